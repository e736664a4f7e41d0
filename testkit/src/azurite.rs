//! Azure Blob Storage on 127.0.0.1 for storage tests: Azurite, Microsoft's emulator (the npm
//! package `azurite`, which `.ci/run` installs into `~/.cache/delta-explain/tools`;
//! `DX_AZURITE` names another `azurite-blob`). It checks shared keys and SAS tokens (their
//! signature, permissions and expiry) as Azure does. A missing emulator fails the test that
//! asks for it: never skipped.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use object_store::ObjectStoreExt as _;

/// The emulator's one account and its published key.
pub const ACCOUNT: &str = "devstoreaccount1";
pub const ACCOUNT_KEY: &str =
    "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==";

fn binary() -> PathBuf {
    if let Some(p) = std::env::var_os("DX_AZURITE") {
        return PathBuf::from(p);
    }
    let home = std::env::var_os("HOME").expect("HOME is set");
    let p = PathBuf::from(home).join(".cache/delta-explain/tools/node_modules/.bin/azurite-blob");
    assert!(
        p.exists(),
        "no Azurite at {}: `bash .ci/run` installs it (npm install --prefix ~/.cache/delta-explain/tools azurite@3.35.0), or set DX_AZURITE",
        p.display()
    );
    p
}

/// A running emulator (blob service only); stopped on drop.
pub struct Azurite {
    child: Child,
    port: u16,
    _dir: tempfile::TempDir,
}

impl Drop for Azurite {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Azurite {
    /// Starts the blob service on a free port of 127.0.0.1, its data in a temp dir.
    pub fn start() -> Azurite {
        let dir = tempfile::tempdir().expect("a data folder");
        let port = crate::net::free_port();
        let child = Command::new(binary())
            .args(["--blobHost", "127.0.0.1", "--blobPort", &port.to_string()])
            .arg("--location")
            .arg(dir.path())
            .args([
                "--silent",
                "--skipApiVersionCheck",
                "--disableProductStyleUrl",
            ])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("Azurite starts");
        crate::net::wait_for(port, "Azurite");
        Azurite {
            child,
            port,
            _dir: dir,
        }
    }

    /// The account's blob endpoint, path-style as the emulator serves it.
    pub fn endpoint(&self) -> String {
        format!("http://127.0.0.1:{}/{ACCOUNT}", self.port)
    }

    /// The storage URL of `path` in `container`, as a Delta table names it.
    pub fn url(&self, container: &str, path: &str) -> String {
        format!("abfss://{container}@{ACCOUNT}.dfs.core.windows.net/{path}")
    }

    /// Creates `container` (if it is not there) and copies the files under `source` to `prefix`
    /// in it, with the account key.
    pub fn upload(&self, container: &str, prefix: &str, source: &Path) {
        let store = object_store::azure::MicrosoftAzureBuilder::new()
            .with_account(ACCOUNT)
            .with_access_key(ACCOUNT_KEY)
            .with_endpoint(self.endpoint())
            .with_allow_http(true)
            .with_container_name(container)
            .build()
            .expect("a client of the emulator");
        let files = crate::files_under(source);
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a runtime");
        runtime.block_on(async {
            self.create_container(container);
            for file in files {
                let relative = file.strip_prefix(source).expect("below the source");
                let key = format!("{prefix}/{}", relative.to_string_lossy());
                let bytes = std::fs::read(&file).expect("a fixture file");
                store
                    .put(&object_store::path::Path::from(key.as_str()), bytes.into())
                    .await
                    .unwrap_or_else(|e| panic!("upload {key}: {e}"));
            }
        });
    }

    /// `PUT ?restype=container`, signed with the account key by a one-request client.
    fn create_container(&self, container: &str) {
        let status = Command::new("curl")
            .args(["-s", "-o", "/dev/null", "-w", "%{http_code}", "-X", "PUT"])
            .args(["-H", "x-ms-version: 2021-08-06", "-H", "content-length: 0"])
            .arg(format!(
                "{}/{container}?restype=container&{}",
                self.endpoint(),
                account_sas()
            ))
            .output()
            .expect("curl runs");
        let status = String::from_utf8_lossy(&status.stdout).to_string();
        assert!(
            status == "201" || status == "409",
            "create container {container}: HTTP {status}"
        );
    }
}

/// An account SAS of the emulator's account for the blob service, every resource type and
/// permission, valid for a day: what a test needs to make a container.
fn account_sas() -> String {
    use base64::Engine as _;
    let now = chrono::Utc::now();
    let stamp = |t: chrono::DateTime<chrono::Utc>| t.format("%Y-%m-%dT%H:%M:%SZ").to_string();
    let (start, expiry) = (
        stamp(now - chrono::Duration::minutes(5)),
        stamp(now + chrono::Duration::days(1)),
    );
    let version = "2021-08-06";
    let to_sign =
        format!("{ACCOUNT}\nracwdl\nb\nsco\n{start}\n{expiry}\n\nhttp,https\n{version}\n\n");
    let b64 = base64::engine::general_purpose::STANDARD;
    let key = ring::hmac::Key::new(
        ring::hmac::HMAC_SHA256,
        &b64.decode(ACCOUNT_KEY).expect("the key is base64"),
    );
    let signature = b64.encode(ring::hmac::sign(&key, to_sign.as_bytes()).as_ref());
    let query: String = url::form_urlencoded::Serializer::new(String::new())
        .extend_pairs([
            ("sv", version),
            ("ss", "b"),
            ("srt", "sco"),
            ("sp", "racwdl"),
            ("st", &start),
            ("se", &expiry),
            ("spr", "http,https"),
            ("sig", &signature),
        ])
        .finish();
    query
}
