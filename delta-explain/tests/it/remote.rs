//! Tables in an object store: every shared fixture uploaded to an S3-compatible server on
//! 127.0.0.1 (`testkit::s3`) reads exactly as from its local path, for every predicate of its
//! corpus; the store's failures are the documented one-line errors with exit 3, bad options
//! exit 2; and the explanation asks the store for the log once, never file by file.

use testkit::s3::S3Server;
use testkit::{Run, all_tables, workspace_root};

use crate::support::{assert_valid_report, run};

/// `delta-explain` on `table` with `args` and the server's options.
fn run_remote(server: &S3Server, table: &str, args: &[&str]) -> Run {
    let options = server.option_args();
    let mut all: Vec<&str> = vec![table];
    all.extend(args);
    all.extend(options.iter().map(String::as_str));
    run(&all)
}

/// The array of reports `--predicates` prints, each checked against the schema.
fn reports(stdout: &str) -> serde_json::Value {
    let doc: serde_json::Value = serde_json::from_str(stdout).expect("a JSON array");
    for report in doc.as_array().expect("an array of reports") {
        assert_valid_report(report);
    }
    doc
}

/// The report with the table's location left out: the one field the store changes.
fn located_away(mut doc: serde_json::Value) -> serde_json::Value {
    fn strip(v: &mut serde_json::Value) {
        match v {
            serde_json::Value::Object(map) => {
                for key in ["table", "table_path", "location", "elapsed_ms", "timings"] {
                    map.remove(key);
                }
                map.values_mut().for_each(strip);
            }
            serde_json::Value::Array(items) => items.iter_mut().for_each(strip),
            _ => {}
        }
    }
    strip(&mut doc);
    doc
}

#[test]
fn every_fixture_reads_the_same_through_s3_as_from_its_path() {
    let server = S3Server::start();
    server.create_bucket("lake");
    for table in all_tables() {
        let name = table.file_name().unwrap().to_string_lossy().into_owned();
        server.upload("lake", &format!("tables/{name}"), &table);
        let corpus = workspace_root().join(format!("corpora/{name}.txt"));
        let corpus = corpus.to_string_lossy().into_owned();
        let args = ["--predicates", corpus.as_str(), "--format", "json", "-v"];
        let mut local_args = vec![table.to_str().unwrap()];
        local_args.extend(args);
        let local = run(&local_args);
        assert_eq!(local.code, 0, "{name} local: {}", local.stderr);
        let url = format!("s3://lake/tables/{name}");
        let remote = run_remote(&server, &url, &args);
        assert_eq!(remote.code, 0, "{name} through s3: {}", remote.stderr);
        let (local, remote) = (reports(&local.stdout), reports(&remote.stdout));
        assert!(
            local.as_array().is_some_and(|a| !a.is_empty()),
            "{name}: a report per predicate"
        );
        assert_eq!(located_away(local), located_away(remote), "{name}");
    }
}

/// What goes wrong with a store, in one line each, with the exit code of the contract and no
/// secret in the message.
#[test]
fn store_failures_are_one_line_errors() {
    let server = S3Server::start();
    server.create_bucket("lake");
    server.upload("lake", "taxi", &testkit::fixtures().join("taxi-nyc"));
    let endpoint = format!("endpoint={}", server.endpoint());
    let keys = [
        "--storage-option",
        "access_key_id=testkit-access-key",
        "--storage-option",
        "secret_access_key=testkit-secret-key",
    ];
    // A port nothing listens on: bind one, note it, let it go.
    let closed = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    let unreachable = format!("endpoint=http://{closed}");
    let wrong = [
        "--option",
        "access_key_id=testkit-access-key",
        "--option",
        "secret_access_key=not-the-secret",
    ];
    let cases: Vec<(&str, Vec<&str>, i32, &str)> = vec![
        (
            "s3://lake/taxi",
            [&["--storage-option", endpoint.as_str()][..], &wrong].concat(),
            3,
            "access denied",
        ),
        (
            "s3://no-such-bucket/taxi",
            [&["--storage-option", endpoint.as_str()][..], &keys].concat(),
            3,
            "no such bucket",
        ),
        (
            "s3://lake/elsewhere",
            [&["--storage-option", endpoint.as_str()][..], &keys].concat(),
            3,
            "no _delta_log under this prefix",
        ),
        (
            "s3://lake/taxi",
            [&["--storage-option", unreachable.as_str()][..], &keys].concat(),
            3,
            "cannot reach the store",
        ),
        (
            "s3://lake/taxi",
            vec!["--storage-option", "acess_key_id=not-the-secret"],
            2,
            "unknown S3 storage option 'acess_key_id'",
        ),
        (
            "s3://lake/taxi",
            vec!["--storage-option", "novalue"],
            2,
            "expected KEY=VALUE",
        ),
        (
            "hdfs://namenode/taxi",
            vec![],
            2,
            "unsupported scheme 'hdfs'",
        ),
    ];
    for (url, extra, code, fragment) in cases {
        let mut args = vec![url, "-w", "fare_amount > 10", "--region", "us-east-1"];
        args.extend(extra.iter().copied());
        let run = run(&args);
        let context = format!("{url} {extra:?}");
        testkit::assert_error(&run, &context, code, fragment);
        assert!(
            !run.stderr.contains("not-the-secret"),
            "{context}: {}",
            run.stderr
        );
    }
}

/// An AWS profile from a shared credentials file reaches the store, as the AWS CLI's would;
/// a named profile that does not exist is bad input.
#[test]
fn an_aws_profile_supplies_keys_region_and_endpoint() {
    let server = S3Server::start();
    server.create_bucket("lake");
    server.upload("lake", "taxi", &testkit::fixtures().join("taxi-nyc"));
    let dir = tempfile::tempdir().unwrap();
    let credentials = dir.path().join("credentials");
    let config = dir.path().join("config");
    std::fs::write(
        &credentials,
        format!(
            "[lakehouse]\naws_access_key_id = {}\naws_secret_access_key = {}\n",
            testkit::s3::ACCESS_KEY,
            testkit::s3::SECRET_KEY
        ),
    )
    .unwrap();
    std::fs::write(
        &config,
        format!(
            "[profile lakehouse]\nregion = us-east-1\nendpoint_url = {}\n",
            server.endpoint()
        ),
    )
    .unwrap();
    let run_with = |profile: &str| {
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_delta-explain"))
            .args([
                "s3://lake/taxi",
                "-w",
                "fare_amount > 10",
                "--format",
                "json",
            ])
            .env_clear()
            .env("AWS_SHARED_CREDENTIALS_FILE", &credentials)
            .env("AWS_CONFIG_FILE", &config)
            .env("AWS_PROFILE", profile)
            .output()
            .unwrap();
        (
            output.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&output.stdout).into_owned(),
            String::from_utf8_lossy(&output.stderr).into_owned(),
        )
    };
    let (code, stdout, stderr) = run_with("lakehouse");
    assert_eq!(code, 0, "{stderr}");
    let local = run(&[
        &testkit::taxi(),
        "-w",
        "fare_amount > 10",
        "--format",
        "json",
    ]);
    assert_eq!(
        located_away(serde_json::from_str(&stdout).unwrap()),
        located_away(serde_json::from_str(&local.stdout).unwrap())
    );
    let (code, _, stderr) = run_with("nosuch");
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("AWS profile 'nosuch' not found"),
        "{stderr}"
    );
}

/// Azure's settings come from its environment variables (`AZURE_STORAGE_ACCOUNT_NAME`, the
/// emulator switch and address): the store is built and asked, and an emulator that is not
/// running is reported as unreachable, not as a missing account.
#[test]
fn azure_reads_its_account_from_the_environment() {
    let closed = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_delta-explain"))
        .args(["az://container/tables/taxi", "-w", "fare_amount > 10"])
        .env_clear()
        .env("AZURE_STORAGE_ACCOUNT_NAME", "devstoreaccount1")
        .env("AZURE_STORAGE_USE_EMULATOR", "true")
        .env("AZURITE_BLOB_STORAGE_URL", format!("http://{closed}"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(3), "{stderr}");
    assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
    assert!(stderr.contains("cannot reach the store"), "{stderr}");
    assert!(!stderr.contains("Account must be specified"), "{stderr}");
}

/// A throttling store (503 answers) is asked again; the answer is the same, and `--verbose`
/// says how many requests were retried.
#[test]
fn transient_failures_are_retried_and_counted_under_verbose() {
    let server = S3Server::start();
    server.create_bucket("lake");
    server.upload("lake", "taxi", &testkit::fixtures().join("taxi-nyc"));
    let calm = run_remote(
        &server,
        "s3://lake/taxi",
        &["-w", "fare_amount > 10", "--format", "json", "-v"],
    );
    assert_eq!(calm.code, 0, "{}", calm.stderr);
    assert!(!calm.stderr.contains("retried"), "{}", calm.stderr);
    server.fail_next(2);
    let throttled = run_remote(
        &server,
        "s3://lake/taxi",
        &["-w", "fare_amount > 10", "--format", "json", "-v"],
    );
    assert_eq!(throttled.code, 0, "{}", throttled.stderr);
    assert_eq!(
        located_away(serde_json::from_str(&calm.stdout).unwrap()),
        located_away(serde_json::from_str(&throttled.stdout).unwrap())
    );
    assert!(
        throttled
            .stderr
            .contains("answered 2 request(s) only when asked again"),
        "{}",
        throttled.stderr
    );
}

/// With no credentials anywhere, the S3 client falls back to the instance metadata service; off
/// a cloud instance that fails, and the error says credentials are missing, with where to put
/// them (here the metadata endpoint is a closed local port, so nothing leaves the machine).
#[test]
fn no_credentials_anywhere_says_so() {
    let closed = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_delta-explain"))
        .args([
            "s3://lake/taxi",
            "-w",
            "fare_amount > 10",
            "--region",
            "us-east-1",
            "--option",
            &format!("endpoint=http://{closed}"),
            "--option",
            &format!("metadata_endpoint=http://{closed}"),
        ])
        .env_clear()
        .env("HOME", "/nonexistent")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(3), "{stderr}");
    assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains(
            "no credentials found: looked in --storage-option, the environment (AWS_ACCESS_KEY_ID"
        ),
        "{stderr}"
    );
}

/// `advise` on tables in the store: the rows are read and the workload explained through the
/// store with the same options, and the advice is the local one (less the table's location and
/// the time it took).
#[test]
fn advise_reads_a_table_in_the_store_as_from_its_path() {
    let server = S3Server::start();
    server.create_bucket("lake");
    let dir = tempfile::tempdir().unwrap();
    let workload = dir.path().join("workload.sql");
    for name in ["taxi-nyc", "dv-partitioned-with-checkpoint"] {
        let table = all_tables()
            .into_iter()
            .find(|t| t.file_name().is_some_and(|n| n == name))
            .expect("the fixture");
        server.upload("lake", &format!("advise/{name}"), &table);
        let corpus =
            std::fs::read_to_string(workspace_root().join(format!("corpora/{name}.txt"))).unwrap();
        let predicates: Vec<&str> = corpus
            .lines()
            .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
            .take(12)
            .collect();
        std::fs::write(&workload, predicates.join("\n")).unwrap();
        let workload = workload.to_str().unwrap();
        let args = ["--predicates", workload, "--format", "json"];
        let mut local_args = vec!["advise", table.to_str().unwrap()];
        local_args.extend(args);
        let local = run(&local_args);
        assert_eq!(local.code, 0, "{name} local: {}", local.stderr);
        let url = format!("s3://lake/advise/{name}");
        let options = server.option_args();
        let mut remote_args = vec!["advise", url.as_str()];
        remote_args.extend(args);
        remote_args.extend(options.iter().map(String::as_str));
        let remote = run(&remote_args);
        assert_eq!(remote.code, 0, "{name} remote: {}", remote.stderr);
        let parse = |s: &str| located_away(serde_json::from_str(s).expect("JSON advice"));
        assert_eq!(parse(&remote.stdout), parse(&local.stdout), "{name}");
    }
}
