//! Tables named in a Unity Catalog (`--catalog unity`), against a real catalog on 127.0.0.1:
//! the open-source server `uc-server` (crates.io `olai-uc-server`, its in-memory backend),
//! installed by `.ci/run` (or `cargo install --locked olai-uc-server --version 0.0.11
//! --features bin`; `DX_UC_SERVER` names another binary). Without it the tests fail: they are
//! never skipped. The shared fixtures are registered as external Delta tables at their
//! `file://` folders (for which the server vends nothing), and taxi-nyc once more in Azure Blob
//! Storage's emulator (Azurite, `testkit::azurite`), governed by the emulator's account key:
//! there the server signs a SAS per request and the table is read with it alone. The server's
//! clock is set back with libfaketime to vend credentials that have expired; its request log
//! counts how often it was asked for credentials.

use std::path::PathBuf;
use std::process::{Child, Command};
use std::time::Duration;

use crate::support::{fixtures, run, taxi};

/// A token no message may show.
const TOKEN: &str = "dapi-SECRET-0123456789";

fn server_binary() -> PathBuf {
    if let Some(p) = std::env::var_os("DX_UC_SERVER") {
        return PathBuf::from(p);
    }
    let home = std::env::var_os("HOME").expect("HOME is set");
    let p = PathBuf::from(home).join(".cache/delta-explain/tools/bin/uc-server");
    assert!(
        p.is_file(),
        "no uc-server at {}: `bash .ci/run` installs it (cargo install --locked olai-uc-server --version 0.0.11 --features bin --root ~/.cache/delta-explain/tools), or set DX_UC_SERVER",
        p.display()
    );
    p
}

/// A Unity Catalog server on 127.0.0.1 with the fixtures registered; stopped on drop.
struct Catalog {
    child: Child,
    url: String,
    dir: tempfile::TempDir,
}

impl Drop for Catalog {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `curl` with a JSON body: the status and the answer.
fn call(method: &str, url: &str, body: Option<&serde_json::Value>) -> (u16, serde_json::Value) {
    let mut args = vec![
        "-s".to_string(),
        "-o".into(),
        "-".into(),
        "-w".into(),
        "\n%{http_code}".into(),
        "-X".into(),
        method.into(),
        "-H".into(),
        "content-type: application/json".into(),
        // The user a trusting proxy would forward (ignored by an anonymous server).
        "-H".into(),
        "x-forwarded-user: admin".into(),
        url.into(),
    ];
    if let Some(b) = body {
        args.push("-d".into());
        args.push(b.to_string());
    }
    let out = Command::new("curl")
        .args(&args)
        .output()
        .expect("curl runs");
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    let (body, status) = text.rsplit_once('\n').unwrap_or(("", "0"));
    (
        status.trim().parse().unwrap_or(0),
        serde_json::from_str(body).unwrap_or(serde_json::Value::Null),
    )
}

/// How a test's catalog server runs.
#[derive(Default)]
struct Setup {
    /// Its clock set back by this many seconds (libfaketime), so the credentials it vends
    /// expire that much sooner than it says.
    clock_behind_secs: Option<u64>,
    /// Behind a trusted proxy (`auth.mode: reverse-proxy`): a request without the forwarded
    /// user, as every request of ours is, is refused with 401.
    reverse_proxy: bool,
}

impl Catalog {
    fn start() -> Catalog {
        Catalog::start_with(Setup::default())
    }

    fn start_with(setup: Setup) -> Catalog {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(fixtures()).unwrap();
        let managed = std::fs::canonicalize(dir.path()).unwrap().join("managed");
        std::fs::create_dir(&managed).unwrap();
        let config = dir.path().join("uc.yaml");
        let auth = if setup.reverse_proxy {
            "auth:\n  mode: reverse-proxy\n"
        } else {
            ""
        };
        std::fs::write(
            &config,
            format!(
                "local_storage:\n  allowed-roots:\n    - {}\n    - {}\nui:\n  serve: false\n{auth}",
                root.display(),
                managed.display()
            ),
        )
        .unwrap();
        let port = testkit::net::free_port();
        let mut command = match setup.clock_behind_secs {
            Some(secs) => {
                // The multi-threaded libfaketime (the server's runtime has threads), its
                // monotonic clock left alone (timers and timeouts run as they would).
                let mut c = Command::new("faketime");
                c.args(["-m", "--exclude-monotonic", "-f", &format!("-{secs}s")])
                    .arg(server_binary());
                c
            }
            None => Command::new(server_binary()),
        };
        // Its log holds a line per request (tower-http's trace at debug).
        let log = std::fs::File::create(dir.path().join("server.log")).unwrap();
        let child = command
            .args(["serve", "--config"])
            .arg(&config)
            .args([
                "--host",
                "127.0.0.1",
                "--port",
                &port.to_string(),
                "--no-ui",
            ])
            .env("RUST_LOG", "tower_http=debug")
            .env("NO_COLOR", "1")
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .spawn()
            .expect("uc-server starts (and faketime, where the clock is set back)");
        let url = format!("http://127.0.0.1:{port}");
        let catalog = Catalog { child, url, dir };

        // 300 tries 200 ms apart (about a minute): a readiness wait, not a measure of time.
        let mut tries = 0;
        loop {
            let (status, _) = call("GET", &catalog.api("catalogs"), None);
            if status == 200 {
                break;
            }
            tries += 1;
            assert!(tries < 300, "uc-server did not answer within 300 tries");
            std::thread::sleep(Duration::from_millis(200));
        }
        // file:// locations need an external location (with a storage credential, which
        // the server requires and which vends nothing for local files), the managed catalog
        // a storage root inside one.
        catalog.create(
            "credentials",
            serde_json::json!({"name": "local_files", "purpose": "STORAGE",
                "azure_storage_key": {"account_name": "unused", "account_key": "dW51c2Vk"}}),
        );
        for (name, url) in [("shared_fixtures", &root), ("managed_root", &managed)] {
            catalog.create(
                "external-locations",
                serde_json::json!({"name": name, "url": format!("file://{}", url.display()),
                    "credential_name": "local_files"}),
            );
        }
        catalog.create(
            "catalogs",
            serde_json::json!({"name": "fixtures",
                "storage_root": format!("file://{}", managed.display())}),
        );
        catalog.create(
            "schemas",
            serde_json::json!({"name": "real", "catalog_name": "fixtures"}),
        );
        catalog
    }

    fn api(&self, path: &str) -> String {
        format!("{}/api/2.1/unity-catalog/{path}", self.url)
    }

    fn create(&self, what: &str, body: serde_json::Value) -> serde_json::Value {
        let (status, answer) = call("POST", &self.api(what), Some(&body));
        assert_eq!(status, 200, "create {what} {body}: {answer}");
        answer
    }

    /// Registers the local folder `location` as the external table `fixtures.real.<name>`.
    fn register(&self, name: &str, location: &str, format: &str, properties: serde_json::Value) {
        let location = format!(
            "file://{}",
            std::fs::canonicalize(location).unwrap().display()
        );
        self.register_url(name, &location, format, properties);
    }

    /// Registers the storage URL `location` as the external table `fixtures.real.<name>`.
    fn register_url(
        &self,
        name: &str,
        location: &str,
        format: &str,
        properties: serde_json::Value,
    ) {
        self.create(
            "tables",
            serde_json::json!({
                "name": name,
                "catalog_name": "fixtures",
                "schema_name": "real",
                "table_type": "EXTERNAL",
                "data_source_format": format,
                "storage_location": location,
                "properties": properties,
            }),
        );
    }

    /// The container `lake` of `azurite` as an external location, governed by the emulator's
    /// account key as a storage credential: the catalog signs a SAS for each read from it.
    fn govern(&self, azurite: &testkit::azurite::Azurite) {
        self.create(
            "credentials",
            serde_json::json!({"name": "azurite_key", "purpose": "STORAGE",
                "azure_storage_key": {"account_name": testkit::azurite::ACCOUNT,
                    "account_key": testkit::azurite::ACCOUNT_KEY}}),
        );
        self.create(
            "external-locations",
            serde_json::json!({"name": "lake", "url": azurite.url("lake", ""),
                "credential_name": "azurite_key"}),
        );
    }

    /// How many times the server was asked for table credentials (its request log).
    fn credential_requests(&self) -> usize {
        std::fs::read_to_string(self.dir.path().join("server.log"))
            .unwrap_or_default()
            .lines()
            .filter(|l| {
                l.contains("temporary-table-credentials")
                    && l.contains("started processing request")
            })
            .count()
    }

    /// `delta-explain` with the catalog's endpoint and token in the environment.
    fn explain(&self, args: &[&str]) -> testkit::Run {
        self.explain_with(
            args,
            &[("DATABRICKS_HOST", &self.url), ("DATABRICKS_TOKEN", TOKEN)],
        )
    }

    fn explain_with(&self, args: &[&str], env: &[(&str, &str)]) -> testkit::Run {
        let out = Command::new(env!("CARGO_BIN_EXE_delta-explain"))
            .args(args)
            .env_remove("DATABRICKS_HOST")
            .env_remove("DATABRICKS_TOKEN")
            .env_remove("DATABRICKS_CONFIG_PROFILE")
            .env("DATABRICKS_CONFIG_FILE", "/nonexistent/databrickscfg")
            .envs(env.iter().copied())
            .output()
            .unwrap();
        testkit::Run {
            code: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }
}

/// A report without what differs between a name and a path (the location, the time).
fn comparable(stdout: &str) -> serde_json::Value {
    let mut doc: serde_json::Value = serde_json::from_str(stdout).expect("JSON");
    doc["table"] = serde_json::Value::Null;
    doc["elapsed_ms"] = 0.into();
    doc
}

#[test]
#[ignore = "external tier: uc-server, Azurite and faketime (bash .ci/run installs them)"]
fn a_fixture_named_in_the_catalog_explains_as_by_its_path() {
    let catalog = Catalog::start();
    let real = fixtures().join("real");
    let tables = [
        (
            "taxi_nyc",
            taxi(),
            "pickup_date = '2024-01-03' AND trip_distance > 5",
        ),
        (
            "basic_partitioned",
            real.join("basic_partitioned").display().to_string(),
            "letter = 'a'",
        ),
        (
            "dv_partitioned",
            real.join("dv-partitioned-with-checkpoint")
                .display()
                .to_string(),
            "part = 0 OR col1 > 5",
        ),
    ];
    for (name, path, predicate) in &tables {
        catalog.register(name, path, "DELTA", serde_json::json!({}));
        let full = format!("fixtures.real.{name}");
        let by_name = catalog.explain(&[
            &full,
            "--catalog",
            "unity",
            "-w",
            predicate,
            "-v",
            "--format",
            "json",
        ]);
        assert_eq!(by_name.code, 0, "{full}: {}", by_name.stderr);
        let by_path = run(&[path, "-w", predicate, "-v", "--format", "json"]);
        assert_eq!(by_path.code, 0, "{path}: {}", by_path.stderr);
        assert_eq!(
            comparable(&by_name.stdout),
            comparable(&by_path.stdout),
            "{full} against {path}"
        );
    }
    // advise takes the same names.
    let workload = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(workload.path(), "trip_distance > 5\n").unwrap();
    let advice = catalog.explain(&[
        "advise",
        "fixtures.real.taxi_nyc",
        "--catalog",
        "unity",
        "--predicates",
        workload.path().to_str().unwrap(),
    ]);
    assert_eq!(advice.code, 0, "{}", advice.stderr);
    // The catalog answers the credentials request for a file:// location with none to vend.
    let (status, info) = call("GET", &catalog.api("tables/fixtures.real.taxi_nyc"), None);
    assert_eq!(status, 200, "{info}");
    let (status, vended) = call(
        "POST",
        &catalog.api("temporary-table-credentials"),
        Some(&serde_json::json!({"table_id": info["table_id"], "operation": "READ"})),
    );
    assert_eq!(status, 200, "{vended}");
}

#[test]
#[ignore = "external tier: uc-server, Azurite and faketime (bash .ci/run installs them)"]
fn each_catalog_error_is_one_line_with_its_exit_code_and_no_token() {
    let catalog = Catalog::start();
    catalog.register("taxi_nyc", &taxi(), "DELTA", serde_json::json!({}));
    // Each table at a location of its own (the catalog refuses overlapping ones).
    let real = fixtures().join("real");
    catalog.register(
        "taxi_parquet",
        &real.join("basic-decimal-table").display().to_string(),
        "PARQUET",
        serde_json::json!({}),
    );
    catalog.register(
        "taxi_managed",
        &real.join("basic-with-checkpoint").display().to_string(),
        "DELTA",
        serde_json::json!({"delta.feature.catalogManaged": "supported"}),
    );
    let p = "trip_distance > 5";
    let closed = format!("http://127.0.0.1:{}", testkit::net::free_port());
    let cases: Vec<(testkit::Run, i32, &str, &str)> = vec![
        (
            catalog.explain(&["fixtures.real.nosuch", "--catalog", "unity", "-w", p]),
            3,
            "the Unity Catalog has no table fixtures.real.nosuch",
            "unknown table",
        ),
        (
            catalog.explain(&["taxi_nyc", "--catalog", "unity", "-w", p]),
            2,
            "not a Unity Catalog table name",
            "malformed name",
        ),
        (
            catalog.explain_with(
                &["fixtures.real.taxi_nyc", "--catalog", "unity", "-w", p],
                &[("DATABRICKS_HOST", &catalog.url)],
            ),
            3,
            "no token for the Unity Catalog",
            "no token",
        ),
        (
            catalog.explain_with(
                &["fixtures.real.taxi_nyc", "--catalog", "unity", "-w", p],
                &[("DATABRICKS_HOST", &closed), ("DATABRICKS_TOKEN", TOKEN)],
            ),
            3,
            "cannot reach the Unity Catalog",
            "unreachable catalog",
        ),
        (
            catalog.explain(&["fixtures.real.taxi_parquet", "--catalog", "unity", "-w", p]),
            3,
            "not a Delta table",
            "not Delta",
        ),
        (
            catalog.explain(&["fixtures.real.taxi_managed", "--catalog", "unity", "-w", p]),
            3,
            "catalog-managed",
            "catalog-managed",
        ),
        (
            catalog.explain_with(
                &["fixtures.real.taxi_nyc", "--catalog", "unity", "-w", p],
                &[("DATABRICKS_TOKEN", TOKEN)],
            ),
            2,
            "no Unity Catalog endpoint",
            "no endpoint",
        ),
    ];
    for (out, code, fragment, what) in cases {
        testkit::assert_error(&out, what, code, fragment);
        assert!(
            !out.stderr.contains(TOKEN),
            "{what}: the token shows: {}",
            out.stderr
        );
    }
}

#[test]
#[ignore = "external tier: uc-server, Azurite and faketime (bash .ci/run installs them)"]
fn the_endpoint_and_token_come_from_a_databricks_profile() {
    let catalog = Catalog::start();
    catalog.register("taxi_nyc", &taxi(), "DELTA", serde_json::json!({}));
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("databrickscfg");
    std::fs::write(
        &cfg,
        format!(
            "[DEFAULT]\nhost = http://127.0.0.1:1\ntoken = wrong\n\n[local]\nhost = {}\ntoken = {TOKEN}\n",
            catalog.url
        ),
    )
    .unwrap();
    let cfg = cfg.to_string_lossy().into_owned();
    let args = [
        "fixtures.real.taxi_nyc",
        "--catalog",
        "unity",
        "--catalog-profile",
        "local",
        "-w",
        "trip_distance > 5",
    ];
    let out = catalog.explain_with(&args, &[("DATABRICKS_CONFIG_FILE", &cfg)]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stdout.contains("Total reduction: 20 -> 9 files"),
        "{}",
        out.stdout
    );
    // DATABRICKS_CONFIG_PROFILE names it too; a profile that is not there is bad input.
    let out = catalog.explain_with(
        &args[..3]
            .iter()
            .chain(&args[5..])
            .copied()
            .collect::<Vec<_>>(),
        &[
            ("DATABRICKS_CONFIG_FILE", &cfg),
            ("DATABRICKS_CONFIG_PROFILE", "local"),
        ],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    let mut missing = args.to_vec();
    missing[4] = "nosuch";
    let out = catalog.explain_with(&missing, &[("DATABRICKS_CONFIG_FILE", &cfg)]);
    testkit::assert_error(&out, "missing profile", 2, "no profile [nosuch]");
}

/// taxi-nyc in Azure Blob Storage (the Azurite emulator on 127.0.0.1), registered in the
/// catalog with the emulator's account key as its storage credential.
fn azure_lake(setup: Setup) -> (Catalog, testkit::azurite::Azurite) {
    let azurite = testkit::azurite::Azurite::start();
    azurite.upload("lake", "taxi-nyc", std::path::Path::new(&taxi()));
    let catalog = Catalog::start_with(setup);
    catalog.govern(&azurite);
    catalog.register_url(
        "taxi_azure",
        &azurite.url("lake", "taxi-nyc"),
        "DELTA",
        serde_json::json!({}),
    );
    (catalog, azurite)
}

/// The store's endpoint and nothing else: no key, so a read succeeds only with what the
/// catalog vends.
fn endpoint_only(azurite: &testkit::azurite::Azurite) -> String {
    format!("azure_storage_endpoint={}", azurite.endpoint())
}

#[test]
#[ignore = "external tier: uc-server, Azurite and faketime (bash .ci/run installs them)"]
fn a_table_in_azure_storage_is_read_with_the_sas_the_catalog_vends() {
    let (catalog, azurite) = azure_lake(Setup::default());
    let endpoint = endpoint_only(&azurite);
    let predicate = "pickup_date = '2024-01-03' AND trip_distance > 5";
    let by_name = catalog.explain(&[
        "fixtures.real.taxi_azure",
        "--catalog",
        "unity",
        "--storage-option",
        &endpoint,
        "-w",
        predicate,
        "-v",
        "--format",
        "json",
    ]);
    assert_eq!(by_name.code, 0, "{}", by_name.stderr);
    let by_path = run(&[&taxi(), "-w", predicate, "-v", "--format", "json"]);
    assert_eq!(by_path.code, 0, "{}", by_path.stderr);
    assert_eq!(comparable(&by_name.stdout), comparable(&by_path.stdout));
    assert!(
        catalog.credential_requests() >= 1,
        "the catalog was asked for credentials"
    );
    // The same location without the catalog has no credential: the store refuses it, so the
    // read above went through the vended SAS.
    let url = azurite.url("lake", "taxi-nyc");
    let bare = run(&[
        &url,
        "--storage-option",
        &endpoint,
        "--storage-option",
        "azure_storage_account_name=devstoreaccount1",
        "--anonymous",
        "-w",
        predicate,
    ]);
    assert_eq!(bare.code, 3, "{}{}", bare.stdout, bare.stderr);
}

/// `trip_distance > 5` on the Azure table named in the catalog, with the store's endpoint
/// alone and `extra` arguments.
fn explain_azure(
    catalog: &Catalog,
    azurite: &testkit::azurite::Azurite,
    extra: &[&str],
) -> testkit::Run {
    let endpoint = endpoint_only(azurite);
    let mut args = vec![
        "fixtures.real.taxi_azure",
        "--catalog",
        "unity",
        "--storage-option",
        &endpoint,
        "-w",
        "trip_distance > 5",
    ];
    args.extend_from_slice(extra);
    catalog.explain(&args)
}

#[test]
#[ignore = "external tier: uc-server, Azurite and faketime (bash .ci/run installs them)"]
fn vended_credentials_are_asked_for_again_before_they_expire() {
    let (catalog, azurite) = azure_lake(Setup::default());
    let run_with = |extra: &[&str]| {
        let out = explain_azure(&catalog, &azurite, extra);
        assert_eq!(out.code, 0, "{}", out.stderr);
        assert!(
            out.stdout.contains("Total reduction: 20 -> 9 files"),
            "{}",
            out.stdout
        );
    };
    // The SAS lives an hour: a short run asks once, when it resolves the table.
    let before = catalog.credential_requests();
    run_with(&[]);
    assert_eq!(catalog.credential_requests() - before, 1);
    // Credentials that expire within the refresh window are asked for again at each use,
    // and the read goes on with the new ones: more than one request in one run.
    let before = catalog.credential_requests();
    run_with(&["--catalog-refresh-before", "7200"]);
    let asked = catalog.credential_requests() - before;
    assert!(
        asked > 1,
        "credentials inside the refresh window were asked for {asked} time(s)"
    );
}

#[test]
#[ignore = "external tier: uc-server, Azurite and faketime (bash .ci/run installs them)"]
fn expired_credentials_and_a_refused_caller_are_one_line_errors() {
    // A catalog whose clock is two hours behind vends a SAS that expired an hour ago.
    let (catalog, azurite) = azure_lake(Setup {
        clock_behind_secs: Some(7200),
        ..Setup::default()
    });
    let out = explain_azure(&catalog, &azurite, &[]);
    testkit::assert_error(&out, "expired credentials", 3, "already expired");
    assert!(!out.stderr.contains(TOKEN), "{}", out.stderr);
    assert!(
        !out.stderr.contains("sig="),
        "a vended secret shows: {}",
        out.stderr
    );
    // A catalog behind a proxy that forwards no user for us refuses every request: 401.
    let guarded = Catalog::start_with(Setup {
        reverse_proxy: true,
        ..Setup::default()
    });
    guarded.register("taxi_nyc", &taxi(), "DELTA", serde_json::json!({}));
    let out = guarded.explain(&[
        "fixtures.real.taxi_nyc",
        "--catalog",
        "unity",
        "-w",
        "trip_distance > 5",
    ]);
    testkit::assert_error(&out, "refused caller", 3, "refused the token");
    assert!(!out.stderr.contains(TOKEN), "{}", out.stderr);
}
