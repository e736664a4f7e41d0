//! Where a Delta table lives, opened as an object store.
//!
//! Both binaries read tables through this crate: `delta-explain` hands the store to the
//! kernel's default engine, `delta-oracle` reads the log and the data through it. A location is
//! a local directory or a URL (`file://`, `s3://`, `s3a://`, `az://`, `azure://`, `abfs://`,
//! `abfss://`, `gs://`); credentials come the way each cloud's own tools find them:
//!
//! | store | from the environment | from files | options (`--storage-option KEY=VALUE`) |
//! |---|---|---|---|
//! | S3 and S3-compatible | `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`, `AWS_REGION`, `AWS_ENDPOINT_URL`, web identity, container credentials, instance metadata | `~/.aws/credentials` and `~/.aws/config` for `AWS_PROFILE` (or `profile=`) | object_store's `AmazonS3ConfigKey` names |
//! | Azure | `AZURE_STORAGE_ACCOUNT_NAME`, `AZURE_STORAGE_ACCOUNT_KEY`, `AZURE_STORAGE_SAS_TOKEN`, `AZURE_CLIENT_ID`/`SECRET`/`TENANT_ID`, managed identity | | `AzureConfigKey` names |
//! | GCS | `GOOGLE_SERVICE_ACCOUNT`, `GOOGLE_APPLICATION_CREDENTIALS`, application default credentials | | `GoogleConfigKey` names |
//!
//! Options given on the command line win over the environment, which wins over profile files.
//! `skip_signature=true` (or [`StorageOptions::anonymous`]) reads public buckets; an
//! `http://` endpoint is allowed without a further option (asking for it is asking for plain
//! HTTP). Requests are retried a few times on transient failures, for at most 30 seconds, so an
//! unreachable endpoint is reported rather than waited on.
//!
//! Errors never carry a secret: messages name the location and the kind of failure, and a
//! value given for an option is never echoed.

mod aws_profile;
mod error;
mod hintless;
mod location;
pub mod retries;
pub mod unity;

use std::sync::Arc;
use std::time::Duration;

use object_store::ObjectStore;
use object_store::aws::{AmazonS3Builder, AmazonS3ConfigKey};
use object_store::azure::{AzureConfigKey, MicrosoftAzureBuilder};
use object_store::gcp::{GoogleCloudStorageBuilder, GoogleConfigKey};
use object_store::local::LocalFileSystem;
use object_store::{BackoffConfig, ClientConfigKey, RetryConfig};
use url::Url;

pub use error::{StorageError, describe, redact_queries};
pub use hintless::without_checkpoint_hint;
pub use location::{Scheme, table_url};
pub use object_store;
pub use unity::{Catalog, locate};

/// How to reach a table's store: options beyond what the environment says.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StorageOptions {
    /// `KEY=VALUE` pairs, in the order given; a later pair wins.
    pub options: Vec<(String, String)>,
    /// The S3 region (`--region`), over `AWS_REGION` and the profile.
    pub region: Option<String>,
    /// Unsigned requests: public buckets.
    pub anonymous: bool,
    /// Credentials a Unity Catalog vended for the table (asked for again as they expire);
    /// over every other source.
    pub vended: Option<unity::VendedCredentials>,
}

impl StorageOptions {
    /// Parses one `KEY=VALUE` option as given on a command line.
    pub fn parse_pair(text: &str) -> Result<(String, String), String> {
        match text.split_once('=') {
            Some((key, value)) if !key.trim().is_empty() => {
                Ok((key.trim().to_ascii_lowercase(), value.to_string()))
            }
            _ => Err(format!(
                "expected KEY=VALUE, found {:?}",
                text.split_once('=').map_or(text, |(k, _)| k)
            )),
        }
    }

    fn get(&self, keys: &[&str]) -> Option<&str> {
        self.options
            .iter()
            .rev()
            .find(|(k, _)| keys.contains(&k.as_str()))
            .map(|(_, v)| v.as_str())
    }
}

/// A table's store, and where in it the table is.
#[derive(Debug, Clone)]
pub struct TableStore {
    /// The table's URL, ending in `/`.
    pub url: Url,
    /// A store rooted where the URL's scheme and authority point (a bucket, a container, `/`).
    pub store: Arc<dyn ObjectStore>,
    /// The table's directory inside `store`.
    pub prefix: object_store::path::Path,
}

impl TableStore {
    /// The store path of `name` (plain names, `/`-separated, relative to the table root).
    pub fn path(&self, name: &str) -> object_store::path::Path {
        name.split('/')
            .filter(|p| !p.is_empty())
            .fold(self.prefix.clone(), |path, part| path.join(part))
    }

    /// The store path of a file the log names: a URL-encoded path relative to the table root,
    /// or an absolute URL in the table's store. Decoded once, as the kernel decodes it, so
    /// both readers open the same object.
    pub fn resolve(&self, log_path: &str) -> Result<object_store::path::Path, StorageError> {
        let bad = |why: &str| StorageError::BadLocation(format!("file path {log_path:?}: {why}"));
        let url = self.url.join(log_path).map_err(|e| bad(&e.to_string()))?;
        if url.scheme() != self.url.scheme() || url.authority() != self.url.authority() {
            return Err(bad("outside the table's store"));
        }
        object_store::path::Path::from_url_path(url.path()).map_err(|e| bad(&e.to_string()))
    }

    /// The path of the log directory.
    pub fn log_dir(&self) -> object_store::path::Path {
        self.path("_delta_log")
    }
}

/// Opens the store of the table at `location` (a local directory or a URL).
pub fn open(location: &str, options: &StorageOptions) -> Result<TableStore, StorageError> {
    let url = table_url(location)?;
    let scheme = Scheme::of(&url)?;
    let store: Arc<dyn ObjectStore> = match scheme {
        Scheme::File => Arc::new(LocalFileSystem::new()),
        Scheme::S3 => Arc::new(s3(&url, options)?),
        Scheme::Azure => Arc::new(azure(&url, options)?),
        Scheme::Gcs => Arc::new(gcs(&url, options)?),
    };
    let prefix = object_store::path::Path::from_url_path(url.path())
        .map_err(|e| StorageError::BadLocation(format!("{url}: {e}")))?;
    Ok(TableStore { url, store, prefix })
}

/// Lists the table's log for one entry: a missing bucket, refused credentials, an unreachable
/// endpoint or a prefix without `_delta_log` is reported here, in the store's terms, before a
/// reader makes something else of it. One request.
pub fn check_log(table: &TableStore) -> Result<(), StorageError> {
    use futures::StreamExt;
    let runtime = runtime()?;
    let log = table.log_dir();
    let first = runtime.block_on(async { table.store.list(Some(&log)).next().await });
    match first {
        Some(Ok(_)) => Ok(()),
        Some(Err(e)) => Err(StorageError::Store(describe(&e))),
        None => Err(StorageError::NoTable {
            location: table.url.to_string(),
            reason: "not a Delta table (no _delta_log under this prefix)".into(),
        }),
    }
}

/// The text of the file `name` (relative to the table root), or `None` where there is none.
/// One request.
pub fn read_text(table: &TableStore, name: &str) -> Result<Option<String>, StorageError> {
    use object_store::ObjectStoreExt;
    let runtime = runtime()?;
    let path = table.path(name);
    let got = runtime.block_on(async {
        match table.store.get(&path).await {
            Ok(result) => result.bytes().await.map(|b| Some(b.to_vec())),
            Err(object_store::Error::NotFound { .. }) => Ok(None),
            Err(e) => Err(e),
        }
    });
    match got {
        Ok(Some(bytes)) => Ok(Some(String::from_utf8_lossy(&bytes).into_owned())),
        Ok(None) => Ok(None),
        Err(e) => Err(StorageError::Store(describe(&e))),
    }
}

/// A runtime for a caller without one: object-store clients need tokio's I/O and timers.
pub fn runtime() -> Result<tokio::runtime::Runtime, StorageError> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| StorageError::Store(format!("cannot start an I/O runtime: {e}")))
}

/// Retries: a few, within 30 seconds, so a dead endpoint is reported rather than waited on.
fn retry() -> RetryConfig {
    RetryConfig {
        backoff: BackoffConfig::default(),
        max_retries: 3,
        retry_timeout: Duration::from_secs(30),
    }
}

/// Options this crate reads itself rather than passing to a builder.
const OWN_KEYS: &[&str] = &["profile", "aws_profile"];

/// The option names a misspelt key is matched against, per store (each one a key its
/// builder parses: checked by a test). Not every alias, the ones people write.
const S3_KEYS: &[&str] = &[
    "aws_access_key_id",
    "aws_secret_access_key",
    "aws_session_token",
    "aws_region",
    "aws_default_region",
    "aws_endpoint",
    "aws_endpoint_url",
    "aws_bucket",
    "aws_virtual_hosted_style_request",
    "aws_imdsv1_fallback",
    "aws_metadata_endpoint",
    "aws_unsigned_payload",
    "aws_skip_signature",
    "aws_checksum_algorithm",
    "aws_container_credentials_relative_uri",
    "aws_s3_express",
    "aws_request_payer",
    "aws_server_side_encryption",
    "aws_sse_kms_key_id",
    "access_key_id",
    "secret_access_key",
    "session_token",
    "region",
    "endpoint",
    "endpoint_url",
    "skip_signature",
    "allow_http",
    "aws_profile",
    "profile",
];
const AZURE_KEYS: &[&str] = &[
    "azure_storage_account_name",
    "azure_storage_account_key",
    "azure_storage_sas_key",
    "azure_storage_token",
    "azure_storage_client_id",
    "azure_storage_client_secret",
    "azure_storage_tenant_id",
    "azure_storage_use_emulator",
    "azure_storage_endpoint",
    "azure_use_azure_cli",
    "azure_skip_signature",
    "azure_container_name",
    "azure_federated_token_file",
    "account_name",
    "account_key",
    "access_key",
    "sas_key",
    "sas_token",
    "bearer_token",
    "client_id",
    "client_secret",
    "tenant_id",
    "use_emulator",
    "endpoint",
    "use_azure_cli",
    "allow_http",
];
const GCS_KEYS: &[&str] = &[
    "google_service_account",
    "google_service_account_path",
    "google_service_account_key",
    "google_application_credentials",
    "google_bucket",
    "google_bucket_name",
    "google_skip_signature",
    "service_account",
    "service_account_path",
    "service_account_key",
    "bucket",
    "bucket_name",
    "allow_http",
];

fn unknown_key(store: &str, key: &str) -> StorageError {
    let known = match store {
        "S3" => S3_KEYS,
        "Azure" => AZURE_KEYS,
        _ => GCS_KEYS,
    };
    let typed = key.to_ascii_lowercase();
    let nearest = known
        .iter()
        .map(|k| (strsim::jaro_winkler(&typed, k), *k))
        .filter(|(score, _)| *score >= 0.85)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, k)| k);
    StorageError::BadOption(match nearest {
        Some(k) => format!("unknown {store} storage option '{key}' (did you mean '{k}'?)"),
        None => format!(
            "unknown {store} storage option '{key}' (see the option names of object_store's {store} configuration)"
        ),
    })
}

fn s3(url: &Url, options: &StorageOptions) -> Result<object_store::aws::AmazonS3, StorageError> {
    let mut builder = AmazonS3Builder::new().with_retry(retry()).with_config(
        AmazonS3ConfigKey::Client(ClientConfigKey::ConnectTimeout),
        "5s",
    );
    // Profile files first, the environment over them, options over both.
    let profile = options
        .get(&["profile", "aws_profile"])
        .map(str::to_string)
        .or_else(|| std::env::var("AWS_PROFILE").ok());
    let env_has_keys = std::env::var_os("AWS_ACCESS_KEY_ID").is_some();
    for (key, value) in aws_profile::settings(profile.as_deref(), !env_has_keys)? {
        builder = builder.with_config(key, value);
    }
    for (key, value) in std::env::vars() {
        if key.starts_with("AWS_")
            && let Ok(k) = key.to_ascii_lowercase().parse::<AmazonS3ConfigKey>()
        {
            builder = builder.with_config(k, value);
        }
    }
    if let Some(region) = &options.region {
        builder = builder.with_region(region);
    }
    for (key, value) in &options.options {
        if OWN_KEYS.contains(&key.as_str()) {
            continue;
        }
        let k = key
            .parse::<AmazonS3ConfigKey>()
            .map_err(|_| unknown_key("S3", key))?;
        builder = builder.with_config(k, value);
    }
    if options.anonymous {
        builder = builder.with_skip_signature(true);
    }
    if let Some(vended) = &options.vended {
        builder = builder.with_credentials(Arc::new(unity::AwsProvider(vended.clone())));
    }
    if builder
        .get_config_value(&AmazonS3ConfigKey::Endpoint)
        .is_some_and(|e| e.starts_with("http://"))
    {
        builder = builder.with_allow_http(true);
    }
    builder
        .with_url(url.as_str())
        .build()
        .map_err(|e| StorageError::Store(describe(&e)))
}

fn azure(
    url: &Url,
    options: &StorageOptions,
) -> Result<object_store::azure::MicrosoftAzure, StorageError> {
    let mut builder = MicrosoftAzureBuilder::from_env()
        .with_retry(retry())
        .with_config(
            AzureConfigKey::Client(ClientConfigKey::ConnectTimeout),
            "5s",
        );
    for (key, value) in &options.options {
        let k = key
            .parse::<AzureConfigKey>()
            .map_err(|_| unknown_key("Azure", key))?;
        builder = builder.with_config(k, value);
    }
    if options.anonymous {
        builder = builder.with_skip_signature(true);
    }
    if let Some(vended) = &options.vended {
        builder = builder.with_credentials(Arc::new(unity::AzureProvider(vended.clone())));
    }
    if builder
        .get_config_value(&AzureConfigKey::Endpoint)
        .is_some_and(|e| e.starts_with("http://"))
    {
        builder = builder.with_allow_http(true);
    }
    builder
        .with_url(url.as_str())
        .build()
        .map_err(|e| StorageError::Store(describe(&e)))
}

fn gcs(
    url: &Url,
    options: &StorageOptions,
) -> Result<object_store::gcp::GoogleCloudStorage, StorageError> {
    let mut builder = GoogleCloudStorageBuilder::from_env()
        .with_retry(retry())
        .with_config(
            GoogleConfigKey::Client(ClientConfigKey::ConnectTimeout),
            "5s",
        );
    for (key, value) in &options.options {
        let k = key
            .parse::<GoogleConfigKey>()
            .map_err(|_| unknown_key("GCS", key))?;
        builder = builder.with_config(k, value);
    }
    if options.anonymous {
        builder = builder.with_skip_signature(true);
    }
    if let Some(vended) = &options.vended {
        builder = builder.with_credentials(Arc::new(unity::GcpProvider(vended.clone())));
    }
    builder
        .with_url(url.as_str())
        .build()
        .map_err(|e| StorageError::Store(describe(&e)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_split_at_the_first_equals_sign() {
        assert_eq!(
            StorageOptions::parse_pair("AWS_ENDPOINT_URL=http://x:1/?a=b").unwrap(),
            ("aws_endpoint_url".into(), "http://x:1/?a=b".into())
        );
        assert!(StorageOptions::parse_pair("novalue").is_err());
        assert!(StorageOptions::parse_pair("=x").is_err());
    }

    #[test]
    fn every_suggested_option_is_one_the_store_parses() {
        for k in S3_KEYS {
            assert!(
                OWN_KEYS.contains(k) || k.parse::<AmazonS3ConfigKey>().is_ok(),
                "S3 {k}"
            );
        }
        for k in AZURE_KEYS {
            assert!(k.parse::<AzureConfigKey>().is_ok(), "Azure {k}");
        }
        for k in GCS_KEYS {
            assert!(k.parse::<GoogleConfigKey>().is_ok(), "GCS {k}");
        }
    }

    #[test]
    fn a_misspelt_option_is_told_its_nearest_name() {
        for (url, key, meant) in [
            ("s3://b/t", "aws_acess_key_id", "aws_access_key_id"),
            ("s3://b/t", "AWS_SECERT_ACCESS_KEY", "aws_secret_access_key"),
            ("az://c/t", "acount_name", "account_name"),
            (
                "gs://b/t",
                "google_service_acount",
                "google_service_account",
            ),
        ] {
            let options = StorageOptions {
                options: vec![(key.into(), "SECRET-VALUE".into())],
                ..StorageOptions::default()
            };
            let e = open(url, &options).unwrap_err().to_string();
            assert!(e.contains(&format!("did you mean '{meant}'?")), "{e}");
            assert!(!e.contains("SECRET-VALUE"), "{e}");
        }
    }

    #[test]
    fn an_unknown_option_is_refused_without_echoing_its_value() {
        let options = StorageOptions {
            options: vec![("acess_key_id".into(), "SECRET-VALUE".into())],
            ..Default::default()
        };
        let e = open("s3://bucket/table", &options).unwrap_err();
        assert!(matches!(e, StorageError::BadOption(_)), "{e}");
        assert!(e.to_string().contains("acess_key_id"), "{e}");
        assert!(!e.to_string().contains("SECRET-VALUE"), "{e}");
    }

    #[test]
    fn table_paths_join_under_the_prefix() {
        let t = open(
            "s3://bucket/some/table",
            &StorageOptions {
                region: Some("eu-west-1".into()),
                anonymous: true,
                ..Default::default()
            },
        )
        .unwrap();
        assert_eq!(t.url.as_str(), "s3://bucket/some/table/");
        assert_eq!(t.log_dir().as_ref(), "some/table/_delta_log");
        assert_eq!(
            t.path("_delta_log/_last_checkpoint").as_ref(),
            "some/table/_delta_log/_last_checkpoint"
        );
        // Log paths are URL-encoded once; the object's key is the decoded path.
        assert_eq!(
            t.resolve("ts=2013-07-05%2017%253A01%253A00/part-0.parquet")
                .unwrap()
                .as_ref(),
            "some/table/ts=2013-07-05 17%3A01%3A00/part-0.parquet"
        );
        assert_eq!(
            t.resolve("s3://bucket/elsewhere/x.parquet")
                .unwrap()
                .as_ref(),
            "elsewhere/x.parquet"
        );
        assert!(t.resolve("s3://other/x.parquet").is_err());
    }
}
