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
    let text = one_line(&error_body_cut(&error.to_string()));
    let lower = text.to_ascii_lowercase();
    // The instance metadata service is asked last, when nothing else gave credentials; its
    // refusal (a 403 off EC2) is not the bucket's.
    if matches!(error, E::Generic { .. })
        && (lower.contains("169.254.169.254")
            || lower.contains("instance metadata")
            || lower.contains("/latest/api/token")
            || lower.contains("/latest/meta-data/iam"))
    {
        return NO_AWS_CREDENTIALS.to_string();
    }
    let what = match error {
        E::NotFound { .. } => "not found",
        E::PermissionDenied { .. } => "access denied (the credentials lack permission)",
        E::Unauthenticated { .. } => "not authenticated (credentials missing or refused)",
        E::UnknownConfigurationKey { .. } => "unknown option",
        _ => {
            if lower.contains("signaturedoesnotmatch")
                || lower.contains("invalidaccesskeyid")
                || lower.contains("403 forbidden")
                || lower.contains("accessdenied")
            {
                "access denied (the credentials were refused)"
            } else if lower.contains("nosuchbucket") {
                "no such bucket"
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

/// What S3 credentials were looked for, where none were found.
const NO_AWS_CREDENTIALS: &str = "no credentials found: looked in --storage-option, the environment (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, AWS_PROFILE), the profile files (~/.aws/credentials and ~/.aws/config, or AWS_SHARED_CREDENTIALS_FILE and AWS_CONFIG_FILE) and the instance metadata service (169.254.169.254, which gave none); set one of them, or pass --anonymous for a public bucket";

/// A store's error body (S3's or Azure's XML, often 600 characters and more) replaced by what
/// a user needs of it: its code, message and request id.
fn error_body_cut(text: &str) -> String {
    let Some(start) = text.find("<?xml").or_else(|| text.find("<Error")) else {
        return text.to_string();
    };
    let fields = xml_fields(&text[start..], &["Code", "Message", "RequestId"]);
    let mut parts = Vec::new();
    if let Some(code) = &fields[0] {
        parts.push(format!("code {code}"));
    }
    if let Some(message) = &fields[1] {
        parts.push(message.clone());
    }
    if let Some(id) = &fields[2] {
        parts.push(format!("request id {id}"));
    }
    let head = text[..start].trim_end().trim_end_matches(':');
    if parts.is_empty() {
        format!("{head} (the store's answer left out)")
    } else {
        format!("{head} ({})", parts.join("; "))
    }
}

/// The text of the first element named each of `names` in an XML document, entities resolved
/// and cut to 200 characters; what a malformed document holds up to its fault.
fn xml_fields(xml: &str, names: &[&str]) -> Vec<Option<String>> {
    use quick_xml::events::Event;
    let mut found: Vec<Option<String>> = vec![None; names.len()];
    let mut reader = quick_xml::Reader::from_str(xml);
    // The element being read, when it is one of `names` not found yet, and its text so far.
    let mut reading: Option<(usize, String)> = None;
    loop {
        match reader.read_event() {
            Ok(Event::Start(start)) => {
                let name = start.local_name();
                reading = names
                    .iter()
                    .position(|n| n.as_bytes() == name.as_ref())
                    .filter(|&i| found[i].is_none())
                    .map(|i| (i, String::new()));
            }
            Ok(Event::Text(t)) => {
                if let (Some((_, text)), Ok(t)) = (&mut reading, t.xml10_content()) {
                    text.push_str(&t);
                }
            }
            Ok(Event::CData(t)) => {
                if let (Some((_, text)), Ok(t)) = (&mut reading, t.decode()) {
                    text.push_str(&t);
                }
            }
            Ok(Event::GeneralRef(r)) => {
                if let Some((_, text)) = &mut reading {
                    match (r.resolve_char_ref(), r.decode()) {
                        (Ok(Some(c)), _) => text.push(c),
                        (_, Ok(name)) => text.push_str(
                            quick_xml::escape::resolve_predefined_entity(&name).unwrap_or("?"),
                        ),
                        (_, Err(_)) => text.push('?'),
                    }
                }
            }
            Ok(Event::End(_)) => {
                if let Some((i, text)) = reading.take() {
                    found[i] = Some(text.chars().take(200).collect());
                }
            }
            Ok(Event::Eof) | Err(_) => break,
            Ok(
                Event::Empty(_)
                | Event::Comment(_)
                | Event::Decl(_)
                | Event::PI(_)
                | Event::DocType(_),
            ) => {}
        }
    }
    found
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
    fn a_store_error_body_keeps_its_code_message_and_request_id() {
        let raw = "Generic S3 error: Error performing GET http://127.0.0.1:5123/nobucket in 156ms - Server returned non-2xx status code: 404 Not Found: <?xml version=\"1.0\" encoding=\"utf-8\"?>\n<Error><Code>NoSuchBucket</Code><Message>The specified bucket does not exist</Message><BucketName>nobucket</BucketName><RequestId>hO4ksw</RequestId><HostId>9Gjjt1m+cjU4OPvX9O9/8RuvnG41MRb/18Oux2o5H5MY7ISNTlXN+Dz9IG62/ILVxhAGI0qyPfg=</HostId></Error>";
        let cut = error_body_cut(raw);
        assert_eq!(
            cut,
            "Generic S3 error: Error performing GET http://127.0.0.1:5123/nobucket in 156ms - Server returned non-2xx status code: 404 Not Found (code NoSuchBucket; The specified bucket does not exist; request id hO4ksw)"
        );
        assert_eq!(error_body_cut("no body"), "no body");
    }

    #[test]
    fn a_store_error_body_is_read_as_xml() {
        // Entities resolved, nested elements and other elements' same names left alone,
        // an Azure body's element names, a body cut short.
        let raw = "403 Forbidden: <?xml version=\"1.0\"?><Error><Code>AccessDenied</Code><Message>Access &amp; denied &#x263A;</Message><Details><Code>inner</Code></Details><RequestId><![CDATA[r-1]]></RequestId></Error>";
        assert_eq!(
            error_body_cut(raw),
            "403 Forbidden (code AccessDenied; Access & denied \u{263A}; request id r-1)"
        );
        let cut = "404: <Error><Code>NoSuchKey</Code><Message>The key";
        assert_eq!(error_body_cut(cut), "404 (code NoSuchKey)");
        assert_eq!(
            error_body_cut("500: <Error><Other>x</Other></Error>"),
            "500 (the store's answer left out)"
        );
    }

    #[test]
    fn a_refusal_of_the_metadata_service_is_no_credentials() {
        let e = object_store::Error::Generic {
            store: "S3",
            source: "Error performing PUT http://169.254.169.254/latest/api/token in 2ms - Server returned non-2xx status code: 403 Forbidden".into(),
        };
        let said = describe(&e);
        assert!(
            said.starts_with("no credentials found: looked in"),
            "{said}"
        );
        assert!(!said.contains("access denied"), "{said}");
    }

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
