//! Tables in an object store: every shared fixture uploaded to an S3-compatible server on
//! 127.0.0.1 (`testkit::s3`) gives the same oracle report (live files, matching files and rows,
//! deletion vectors applied) as from its local path; the store's failures exit 3 on one line.

use testkit::s3::S3Server;
use testkit::{all_tables, run_binary};

use crate::support::corpus_predicates;

const ORACLE: &str = env!("CARGO_BIN_EXE_delta-oracle");

fn without_table(stdout: &str) -> serde_json::Value {
    let mut doc: serde_json::Value = serde_json::from_str(stdout).expect("a JSON report");
    doc.as_object_mut().expect("an object").remove("table");
    doc
}

#[test]
fn every_fixture_matches_the_same_through_s3_as_from_its_path() {
    let server = S3Server::start();
    server.create_bucket("lake");
    let options = server.option_args();
    let mut compared = 0;
    for table in all_tables() {
        let name = table.file_name().unwrap().to_string_lossy().into_owned();
        server.upload("lake", &name, &table);
        let url = format!("s3://lake/{name}");
        for predicate in corpus_predicates(&name) {
            let local = run_binary(
                ORACLE,
                &[
                    table.to_str().unwrap(),
                    "-w",
                    &predicate,
                    "--format",
                    "json",
                ],
            );
            let mut args = vec![url.as_str(), "-w", &predicate, "--format", "json"];
            args.extend(options.iter().map(String::as_str));
            let remote = run_binary(ORACLE, &args);
            let case = format!("{name}: {predicate}");
            assert_eq!(local.code, remote.code, "{case}: {}", remote.stderr);
            if local.code == 0 {
                assert_eq!(
                    without_table(&local.stdout),
                    without_table(&remote.stdout),
                    "{case}"
                );
                compared += 1;
            } else {
                assert_eq!(local.stderr.is_empty(), remote.stderr.is_empty(), "{case}");
            }
        }
    }
    assert!(compared > 60, "only {compared} reports compared");
    assert!(server.requests() > 0);
}

#[test]
fn a_store_failure_exits_3_on_one_line() {
    let server = S3Server::start();
    server.create_bucket("lake");
    server.upload("lake", "taxi", &testkit::fixtures().join("taxi-nyc"));
    let endpoint = format!("endpoint={}", server.endpoint());
    let cases: [(&str, Vec<&str>, &str); 3] = [
        (
            "s3://lake/taxi",
            vec![
                "--option",
                "access_key_id=testkit-access-key",
                "--option",
                "secret_access_key=wrong-secret",
            ],
            "access denied",
        ),
        (
            "s3://lake/nothing-here",
            vec![
                "--option",
                "access_key_id=testkit-access-key",
                "--option",
                "secret_access_key=testkit-secret-key",
            ],
            "no _delta_log",
        ),
        (
            "s3://lake/taxi",
            vec!["--option", "bogus_key=x"],
            "unknown S3 storage option 'bogus_key'",
        ),
    ];
    for (url, extra, fragment) in cases {
        let mut args = vec![
            url,
            "-w",
            "true",
            "--option",
            endpoint.as_str(),
            "--region",
            "us-east-1",
        ];
        args.extend(extra);
        let run = run_binary(ORACLE, &args);
        let expected = if fragment.starts_with("unknown") {
            2
        } else {
            3
        };
        testkit::assert_error(&run, url, expected, fragment);
        assert!(!run.stderr.contains("wrong-secret"), "{}", run.stderr);
    }
}
