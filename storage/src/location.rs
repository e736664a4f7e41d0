//! Table locations: a local directory becomes a `file://` URL, anything with a scheme is taken
//! as a URL and named by the store that serves it.

use object_store::ObjectStoreScheme;
use url::Url;

use crate::StorageError;

/// The stores a table can live in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scheme {
    File,
    S3,
    Azure,
    Gcs,
}

impl Scheme {
    /// The store serving `url` (`s3a://` and `https://<bucket>.s3...` are S3, `abfss://` and
    /// `https://<account>.blob.core.windows.net` Azure, and so on, as object_store reads them).
    pub fn of(url: &Url) -> Result<Self, StorageError> {
        let unsupported = || {
            StorageError::BadLocation(format!(
                "{url}: unsupported scheme '{}' (use a local path, file://, s3://, s3a://, az://, abfs[s]:// or gs://)",
                url.scheme()
            ))
        };
        match ObjectStoreScheme::parse(url) {
            Ok((ObjectStoreScheme::Local, _)) => Ok(Scheme::File),
            Ok((ObjectStoreScheme::AmazonS3, _)) => Ok(Scheme::S3),
            Ok((ObjectStoreScheme::MicrosoftAzure, _)) => Ok(Scheme::Azure),
            Ok((ObjectStoreScheme::GoogleCloudStorage, _)) => Ok(Scheme::Gcs),
            // A plain HTTP server cannot list a log; memory stores are for tests of other tools.
            Ok((ObjectStoreScheme::Http | ObjectStoreScheme::Memory, _)) => Err(unsupported()),
            Ok(_) | Err(_) => Err(unsupported()),
        }
    }

    /// The store's name in messages.
    pub fn name(self) -> &'static str {
        match self {
            Scheme::File => "local",
            Scheme::S3 => "S3",
            Scheme::Azure => "Azure",
            Scheme::Gcs => "GCS",
        }
    }
}

/// The URL of the table at `location`, ending in `/`. A directory path must exist and hold a
/// `_delta_log` directory; a URL is checked when its store is opened.
pub fn table_url(location: &str) -> Result<Url, StorageError> {
    if let Ok(mut url) = Url::parse(location)
        && url.scheme().len() > 1
    {
        if url.scheme() == "file" {
            let path = url
                .to_file_path()
                .map_err(|_| StorageError::BadLocation(format!("{location}: not a local path")))?;
            return local_url(&path, location);
        }
        if !url.path().ends_with('/') {
            url.set_path(&format!("{}/", url.path()));
        }
        return Ok(url);
    }
    local_url(std::path::Path::new(location), location)
}

fn local_url(path: &std::path::Path, location: &str) -> Result<Url, StorageError> {
    let missing = |reason: String| StorageError::NoTable {
        location: location.to_string(),
        reason,
    };
    let canonical = path.canonicalize().map_err(|e| {
        missing(match e.kind() {
            std::io::ErrorKind::NotFound => "no such directory".into(),
            _ => e.to_string(),
        })
    })?;
    if !canonical.is_dir() {
        return Err(missing("not a directory".into()));
    }
    if !canonical.join("_delta_log").is_dir() {
        return Err(missing(
            "not a Delta table (no _delta_log directory)".into(),
        ));
    }
    Url::from_directory_path(&canonical).map_err(|_| missing("cannot form a file URL".into()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schemes_name_their_stores() {
        for (url, scheme) in [
            ("s3://b/t/", Scheme::S3),
            ("s3a://b/t/", Scheme::S3),
            ("az://c/t/", Scheme::Azure),
            ("abfss://c@a.dfs.core.windows.net/t/", Scheme::Azure),
            ("gs://b/t/", Scheme::Gcs),
            ("file:///tmp/t/", Scheme::File),
        ] {
            assert_eq!(
                Scheme::of(&Url::parse(url).unwrap()).unwrap(),
                scheme,
                "{url}"
            );
        }
        for url in ["memory:///t/", "hdfs://n/t/", "ftp://h/t/"] {
            assert!(Scheme::of(&Url::parse(url).unwrap()).is_err(), "{url}");
        }
    }

    #[test]
    fn remote_urls_end_in_a_slash_and_local_paths_must_be_tables() {
        assert_eq!(table_url("s3://b/t").unwrap().as_str(), "s3://b/t/");
        let dir = std::env::temp_dir();
        assert!(matches!(
            table_url(dir.to_str().unwrap()),
            Err(StorageError::NoTable { .. })
        ));
        assert!(matches!(
            table_url("/no/such/dir"),
            Err(StorageError::NoTable { .. })
        ));
    }
}
