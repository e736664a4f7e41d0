//! Storage errors, in one line each and without secrets.

use thiserror::Error;

/// Why a table's store cannot be opened or read.
#[derive(Debug, Error)]
pub enum StorageError {
    /// The location is not a URL this tool reads (bad input, exit 2).
    #[error("{0}")]
    BadLocation(String),
    /// An option the store does not know, or a malformed profile (bad input, exit 2).
    #[error("{0}")]
    BadOption(String),
    /// No table at the location (exit 3).
    #[error("{location}: {reason}")]
    NoTable { location: String, reason: String },
    /// The store refused or failed (exit 3).
    #[error("{0}")]
    Store(String),
}

impl StorageError {
    /// The documented exit code: 2 for bad input, 3 for the table or its store.
    pub fn exit_code(&self) -> i32 {
        match self {
            StorageError::BadLocation(_) | StorageError::BadOption(_) => 2,
            StorageError::NoTable { .. } | StorageError::Store(_) => 3,
        }
    }
}

/// One line saying what an object-store error means for the user: what is missing or refused,
/// with the store's own words after it (object_store's messages carry no credentials).
pub fn describe(error: &object_store::Error) -> String {
    use object_store::Error as E;
    let text = one_line(&error.to_string());
    let what = match error {
        E::NotFound { .. } => "not found",
        E::PermissionDenied { .. } => "access denied (the credentials lack permission)",
        E::Unauthenticated { .. } => "not authenticated (credentials missing or refused)",
        E::UnknownConfigurationKey { .. } => "unknown option",
        _ => {
            let lower = text.to_ascii_lowercase();
            if lower.contains("signaturedoesnotmatch")
                || lower.contains("invalidaccesskeyid")
                || lower.contains("403 forbidden")
                || lower.contains("accessdenied")
            {
                "access denied (the credentials were refused)"
            } else if lower.contains("nosuchbucket") {
                "no such bucket"
            } else if lower.contains("169.254.169.254")
                || lower.contains("instance metadata")
                || lower.contains("/latest/api/token")
                || lower.contains("/latest/meta-data/iam")
            {
                "no credentials found (set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, AWS_PROFILE, --storage-option, or --anonymous for a public bucket)"
            } else if lower.contains("error sending request")
                || lower.contains("connection refused")
                || lower.contains("dns error")
                || lower.contains("timed out")
                || lower.contains("connect")
            {
                "cannot reach the store"
            } else {
                "store error"
            }
        }
    };
    format!("{what}: {text}")
}

/// Control characters and line breaks of a message escaped (errors are one line), and the
/// query of every URL in it cut (a SAS token or a presigned signature is a secret).
fn one_line(text: &str) -> String {
    redact_queries(text)
        .chars()
        .flat_map(|c| {
            if c.is_control() {
                c.escape_default().collect::<Vec<_>>()
            } else {
                vec![c]
            }
        })
        .collect()
}

/// `text` with the query string of each URL in it replaced by `?...`.
pub fn redact_queries(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("://") {
        let end_of_url = rest[at..]
            .find(|c: char| c.is_whitespace() || matches!(c, ')' | '"' | '\'' | '>' | ','))
            .map_or(rest.len(), |e| at + e);
        let url = &rest[..end_of_url];
        match url[at..].find('?') {
            Some(q) => {
                out.push_str(&url[..at + q]);
                out.push_str("?...");
            }
            None => out.push_str(url),
        }
        rest = &rest[end_of_url..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn url_queries_are_cut_from_messages() {
        assert_eq!(
            redact_queries(
                "error sending request for url (https://a.blob.core.windows.net/c/x?sv=1&sig=SECRET): refused"
            ),
            "error sending request for url (https://a.blob.core.windows.net/c/x?...): refused"
        );
        assert_eq!(redact_queries("no url here?"), "no url here?");
        assert_eq!(
            redact_queries("s3://b/t? and http://h/p?X-Amz-Signature=S"),
            "s3://b/t?... and http://h/p?..."
        );
    }
}
