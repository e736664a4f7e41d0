//! Tables named in a Unity Catalog (`main.sales.orders --catalog unity`): the name resolved to
//! its storage location, and read with the temporary credentials the catalog vends for it.
//!
//! | step | request | used |
//! |---|---|---|
//! | resolve | `GET /api/2.1/unity-catalog/tables/{full_name}` | `storage_location`, `table_id`, `data_source_format` (DELTA only), `properties` (a catalog-managed table is refused: its log is the catalog's) |
//! | credentials | `POST /api/2.1/unity-catalog/temporary-table-credentials` `{table_id, operation: READ}` | AWS keys with a session token, an Azure SAS, a GCP OAuth token, their expiry |
//!
//! The credentials reach the object store as a credential provider that asks the catalog again
//! a minute (`--catalog-refresh-before`) before they expire, so a long run outlives them. The endpoint and the token come
//! the way Databricks tools read them: the flags, then `DATABRICKS_HOST` and
//! `DATABRICKS_TOKEN`, then a profile (`--catalog-profile`, `DATABRICKS_CONFIG_PROFILE`, else
//! `DEFAULT`) of `~/.databrickscfg` (`DATABRICKS_CONFIG_FILE`). No message carries the token or
//! a vended secret.

use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde_json::Value;
use url::Url;

use crate::{StorageError, StorageOptions};

/// How to reach the catalog, as given on the command line (the rest from the environment).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CatalogOptions {
    /// `--catalog-url`: over `DATABRICKS_HOST` and the profile's `host`.
    pub host: Option<String>,
    /// `--catalog-profile`: over `DATABRICKS_CONFIG_PROFILE`.
    pub profile: Option<String>,
    /// `--catalog-refresh-before`: how long before the vended credentials expire the catalog
    /// is asked for new ones ([`REFRESH_BEFORE`] when unset).
    pub refresh_before: Option<Duration>,
}

/// How long before vended credentials expire new ones are asked for, by default: longer than
/// a store request with its retries takes.
pub const REFRESH_BEFORE: Duration = Duration::from_secs(60);

/// The catalog's endpoint and the token to present.
#[derive(Clone)]
pub struct Endpoint {
    host: Url,
    token: String,
    client: reqwest::Client,
}

impl std::fmt::Debug for Endpoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never the token.
        f.debug_struct("Endpoint")
            .field("host", &self.host.as_str())
            .finish()
    }
}

/// A catalog's name of a table, `catalog.schema.table`: bad input (exit 2) otherwise.
pub fn parse_name(name: &str) -> Result<[String; 3], StorageError> {
    let parts: Vec<&str> = name.split('.').collect();
    match parts.as_slice() {
        [c, s, t]
            if [c, s, t]
                .iter()
                .all(|p| !p.trim().is_empty() && !p.contains('/')) =>
        {
            Ok([c.to_string(), s.to_string(), t.to_string()])
        }
        _ => Err(StorageError::BadLocation(format!(
            "`{name}` is not a Unity Catalog table name (catalog.schema.table, e.g. main.sales.orders)"
        ))),
    }
}

impl Endpoint {
    /// The endpoint from the flags, the environment and the profile file, in that order.
    pub fn find(options: &CatalogOptions) -> Result<Endpoint, StorageError> {
        let env = |key: &str| std::env::var(key).ok().filter(|v| !v.trim().is_empty());
        let profile_name = options
            .profile
            .clone()
            .or_else(|| env("DATABRICKS_CONFIG_PROFILE"))
            .unwrap_or_else(|| "DEFAULT".to_string());
        let config_file = env("DATABRICKS_CONFIG_FILE")
            .map(std::path::PathBuf::from)
            .or_else(|| {
                std::env::var_os("HOME").map(|h| std::path::Path::new(&h).join(".databrickscfg"))
            });
        let profile = match &config_file {
            Some(path) if path.is_file() => {
                let ini = ini::Ini::load_from_file(path).map_err(|e| {
                    StorageError::BadOption(format!("{}: not a profile file: {e}", path.display()))
                })?;
                ini.section(Some(profile_name.as_str())).map(|s| {
                    (
                        s.get("host").map(str::to_string),
                        s.get("token").map(str::to_string),
                    )
                })
            }
            _ => None,
        };
        if options.profile.is_some() && profile.is_none() {
            return Err(StorageError::BadOption(format!(
                "no profile [{profile_name}] in {}",
                config_file.map_or("~/.databrickscfg".into(), |p| p.display().to_string())
            )));
        }
        let (profile_host, profile_token) = profile.unwrap_or_default();
        let host = options
            .host
            .clone()
            .or_else(|| env("DATABRICKS_HOST"))
            .or(profile_host)
            .ok_or_else(|| {
                StorageError::BadOption(
                    "no Unity Catalog endpoint: set DATABRICKS_HOST, --catalog-url, or `host` in a profile of ~/.databrickscfg".into(),
                )
            })?;
        let host = if host.contains("://") {
            host
        } else {
            format!("https://{host}")
        };
        let host = Url::parse(&host).map_err(|e| {
            StorageError::BadOption(format!("the Unity Catalog endpoint is not a URL: {e}"))
        })?;
        let token = env("DATABRICKS_TOKEN").or(profile_token).ok_or_else(|| {
            StorageError::Store(format!(
                "no token for the Unity Catalog at {}: set DATABRICKS_TOKEN, or `token` in profile [{profile_name}] of ~/.databrickscfg",
                host.as_str().trim_end_matches('/')
            ))
        })?;
        let client = reqwest::Client::builder()
            .connect_timeout(Duration::from_secs(5))
            .timeout(Duration::from_secs(30))
            .build()
            .map_err(|e| StorageError::Store(format!("an HTTP client: {e}")))?;
        Ok(Endpoint {
            host,
            token,
            client,
        })
    }

    fn api(&self, path: &str) -> String {
        format!(
            "{}/api/2.1/unity-catalog/{path}",
            self.host.as_str().trim_end_matches('/')
        )
    }

    /// One call: the JSON answer, or an error in one line naming what failed (exit 3).
    async fn call(
        &self,
        request: reqwest::RequestBuilder,
        what: &str,
    ) -> Result<Value, StorageError> {
        let host = self.host.as_str().trim_end_matches('/');
        let response = request.bearer_auth(&self.token).send().await.map_err(|e| {
            StorageError::Store(format!(
                "cannot reach the Unity Catalog at {host}: {}",
                crate::redact_queries(&without_source_chain(&e))
            ))
        })?;
        let status = response.status();
        let body: Value = response.json().await.unwrap_or(Value::Null);
        if status.is_success() {
            return Ok(body);
        }
        // Databricks answers `{error_code, message}`, the open-source server a gRPC status
        // `{code, message}`.
        let code = body["error_code"]
            .as_str()
            .or_else(|| body["errorCode"].as_str())
            .map(str::to_string)
            .or_else(|| body["code"].as_i64().map(|c| format!("code {c}")))
            .unwrap_or_default();
        let message: String = body["message"]
            .as_str()
            .unwrap_or_default()
            .chars()
            .take(200)
            .collect();
        let said = if message.is_empty() {
            format!("HTTP {status}")
        } else {
            format!("HTTP {status}: {code} {message}")
        };
        Err(StorageError::Store(match status.as_u16() {
            401 => format!("the Unity Catalog at {host} refused the token ({said})"),
            403 => format!("no permission to {what} ({said})"),
            404 => format!("the Unity Catalog has no {what} ({said})"),
            _ => format!("the Unity Catalog could not {what} ({said})"),
        }))
    }
}

/// reqwest's error without its chain of sources (which may repeat the URL).
fn without_source_chain(e: &reqwest::Error) -> String {
    let text = e.to_string();
    if e.is_connect() {
        format!("{text} (connection refused or unreachable)")
    } else if e.is_timeout() {
        format!("{text} (timed out)")
    } else {
        text
    }
}

/// A table the catalog resolved: where it lives and how to read it.
#[derive(Debug, Clone)]
pub struct CatalogTable {
    pub full_name: String,
    pub table_id: String,
    /// Its storage location, a URL.
    pub location: String,
    /// The store's options: the vended credentials, refreshed as they expire.
    pub storage: StorageOptions,
}

/// The catalogs a table can be named in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Catalog {
    /// Unity Catalog (Databricks, or the open-source server), reached as the options say.
    Unity(CatalogOptions),
}

/// Where `table` is and how to reach it: without a catalog, `table` is the location and
/// `storage` the options; with one, `table` is the catalog's name of it, and the location is
/// the one the catalog gives, read with `storage` and the credentials the catalog vends
/// (over every other source). A malformed name or a missing endpoint is bad input (exit 2);
/// the catalog's refusals and failures are table errors (exit 3).
pub fn locate(
    table: &str,
    storage: &StorageOptions,
    catalog: Option<&Catalog>,
) -> Result<(String, StorageOptions), StorageError> {
    match catalog {
        None => Ok((table.to_string(), storage.clone())),
        Some(Catalog::Unity(options)) => {
            let resolved = resolve(table, options)?;
            let storage = StorageOptions {
                vended: resolved.storage.vended,
                ..storage.clone()
            };
            Ok((resolved.location, storage))
        }
    }
}

/// Resolves `name` in the catalog and vends credentials to read it.
pub fn resolve(name: &str, options: &CatalogOptions) -> Result<CatalogTable, StorageError> {
    let [catalog, schema, table] = parse_name(name)?;
    let endpoint = Endpoint::find(options)?;
    let full_name = format!("{catalog}.{schema}.{table}");
    let runtime = crate::runtime()?;
    runtime.block_on(async {
        let url = endpoint.api(&format!("tables/{full_name}"));
        let info = endpoint
            .call(endpoint.client.get(url), &format!("table {full_name}"))
            .await?;
        let format = info["data_source_format"].as_str().unwrap_or_default();
        if !format.eq_ignore_ascii_case("DELTA") {
            return Err(StorageError::NoTable {
                location: full_name.clone(),
                reason: format!(
                    "not a Delta table (the catalog says its format is {})",
                    if format.is_empty() { "unknown" } else { format }
                ),
            });
        }
        let properties = &info["properties"];
        let managed = properties
            .as_object()
            .into_iter()
            .flatten()
            .any(|(k, v)| {
                (k == "delta.feature.catalogManaged" || k == "delta.feature.catalogOwned-preview")
                    && v.as_str().is_some_and(|v| v.eq_ignore_ascii_case("supported"))
            });
        if managed {
            return Err(StorageError::NoTable {
                location: full_name.clone(),
                reason: "a catalog-managed table (delta.feature.catalogManaged): its commits are the catalog's, not its log's; this tool reads the log alone".into(),
            });
        }
        let location = info["storage_location"]
            .as_str()
            .filter(|l| !l.is_empty())
            .ok_or_else(|| StorageError::NoTable {
                location: full_name.clone(),
                reason: "the catalog gives no storage location".into(),
            })?
            .to_string();
        let table_id = info["table_id"]
            .as_str()
            .ok_or_else(|| StorageError::NoTable {
                location: full_name.clone(),
                reason: "the catalog gives no table id".into(),
            })?
            .to_string();
        let vending = Arc::new(Vending {
            endpoint,
            table_id: table_id.clone(),
            full_name: full_name.clone(),
            refresh_before: options.refresh_before.unwrap_or(REFRESH_BEFORE),
            current: Mutex::new(None),
        });
        let first = vending.vend().await?;
        let mut storage = StorageOptions::default();
        if first.has_credentials() {
            storage.vended = Some(VendedCredentials(Arc::clone(&vending)));
        }
        *vending.current.lock().unwrap_or_else(|p| p.into_inner()) = Some(first);
        Ok(CatalogTable {
            full_name,
            table_id,
            location,
            storage,
        })
    })
}

/// Credentials the catalog vended for one table, and how to ask again.
pub struct Vending {
    endpoint: Endpoint,
    table_id: String,
    full_name: String,
    refresh_before: Duration,
    current: Mutex<Option<Vended>>,
}

/// One answer of the credentials endpoint.
#[derive(Clone)]
pub struct Vended {
    pub aws: Option<Arc<object_store::aws::AwsCredential>>,
    pub azure_sas: Option<Vec<(String, String)>>,
    pub gcp_token: Option<String>,
    /// Milliseconds since the epoch.
    pub expires_at_ms: Option<u64>,
}

impl Vended {
    fn has_credentials(&self) -> bool {
        self.aws.is_some() || self.azure_sas.is_some() || self.gcp_token.is_some()
    }

    /// Whether these credentials expire within `margin`.
    fn expiring(&self, margin: Duration) -> bool {
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as u64);
        self.expires_at_ms
            .is_some_and(|at| at <= now + margin.as_millis() as u64)
    }
}

impl Vending {
    /// Asks the catalog for read credentials.
    async fn vend(&self) -> Result<Vended, StorageError> {
        let url = self.endpoint.api("temporary-table-credentials");
        let body = serde_json::json!({"table_id": self.table_id, "operation": "READ"});
        let answer = self
            .endpoint
            .call(
                self.endpoint.client.post(url).json(&body),
                &format!("read credentials for table {}", self.full_name),
            )
            .await?;
        let text = |v: &Value| v.as_str().map(str::to_string);
        let aws = &answer["aws_temp_credentials"];
        let vended = Vended {
            aws: match (text(&aws["access_key_id"]), text(&aws["secret_access_key"])) {
                (Some(key_id), Some(secret_key)) => {
                    Some(Arc::new(object_store::aws::AwsCredential {
                        key_id,
                        secret_key,
                        token: text(&aws["session_token"]),
                    }))
                }
                _ => None,
            },
            azure_sas: text(&answer["azure_user_delegation_sas"]["sas_token"]).map(|sas| {
                url::form_urlencoded::parse(sas.trim_start_matches('?').as_bytes())
                    .into_owned()
                    .collect()
            }),
            gcp_token: text(&answer["gcp_oauth_token"]["oauth_token"]),
            // A number (Databricks), or a string (int64 in protobuf's JSON mapping, as the
            // open-source server writes it).
            expires_at_ms: answer["expiration_time"]
                .as_u64()
                .or_else(|| answer["expiration_time"].as_str()?.trim().parse().ok()),
        };
        if vended.has_credentials() && vended.expiring(Duration::ZERO) {
            return Err(StorageError::Store(format!(
                "the Unity Catalog vended credentials for table {} that have already expired (check the catalog's clock and its storage credential)",
                self.full_name
            )));
        }
        Ok(vended)
    }

    /// The credentials to use now: the cached ones, or new ones once they expire within
    /// `refresh_before`.
    async fn now(&self) -> Result<Vended, StorageError> {
        let cached = self
            .current
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone();
        match cached {
            Some(v) if !v.expiring(self.refresh_before) => Ok(v),
            _ => {
                let fresh = self.vend().await?;
                *self.current.lock().unwrap_or_else(|p| p.into_inner()) = Some(fresh.clone());
                Ok(fresh)
            }
        }
    }
}

/// The vended credentials a store's builder is given: compared by identity.
#[derive(Clone)]
pub struct VendedCredentials(pub Arc<Vending>);

impl std::fmt::Debug for VendedCredentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "VendedCredentials({})", self.0.full_name)
    }
}

impl PartialEq for VendedCredentials {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for VendedCredentials {}

fn provider_error(e: StorageError) -> object_store::Error {
    object_store::Error::Generic {
        store: "Unity Catalog",
        source: Box::new(e),
    }
}

/// AWS keys, asked for again as they expire.
#[derive(Debug)]
pub struct AwsProvider(pub VendedCredentials);

#[async_trait::async_trait]
impl object_store::CredentialProvider for AwsProvider {
    type Credential = object_store::aws::AwsCredential;
    async fn get_credential(&self) -> object_store::Result<Arc<Self::Credential>> {
        let v = self.0.0.now().await.map_err(provider_error)?;
        v.aws.ok_or_else(|| {
            provider_error(StorageError::Store(
                "the Unity Catalog vended no AWS credentials for an S3 table".into(),
            ))
        })
    }
}

/// An Azure SAS, asked for again as it expires.
#[derive(Debug)]
pub struct AzureProvider(pub VendedCredentials);

#[async_trait::async_trait]
impl object_store::CredentialProvider for AzureProvider {
    type Credential = object_store::azure::AzureCredential;
    async fn get_credential(&self) -> object_store::Result<Arc<Self::Credential>> {
        let v = self.0.0.now().await.map_err(provider_error)?;
        v.azure_sas
            .map(|pairs| Arc::new(object_store::azure::AzureCredential::SASToken(pairs)))
            .ok_or_else(|| {
                provider_error(StorageError::Store(
                    "the Unity Catalog vended no Azure SAS for an Azure table".into(),
                ))
            })
    }
}

/// A GCP OAuth token, asked for again as it expires.
#[derive(Debug)]
pub struct GcpProvider(pub VendedCredentials);

#[async_trait::async_trait]
impl object_store::CredentialProvider for GcpProvider {
    type Credential = object_store::gcp::GcpCredential;
    async fn get_credential(&self) -> object_store::Result<Arc<Self::Credential>> {
        let v = self.0.0.now().await.map_err(provider_error)?;
        v.gcp_token
            .map(|bearer| Arc::new(object_store::gcp::GcpCredential { bearer }))
            .ok_or_else(|| {
                provider_error(StorageError::Store(
                    "the Unity Catalog vended no GCP token for a GCS table".into(),
                ))
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_has_three_parts() {
        assert!(parse_name("main.sales.orders").is_ok());
        for bad in [
            "orders",
            "sales.orders",
            "a.b.c.d",
            "a..c",
            "/tmp/t",
            "s3://b/t",
        ] {
            let e = parse_name(bad).unwrap_err();
            assert_eq!(e.exit_code(), 2, "{bad}: {e}");
        }
    }
}
