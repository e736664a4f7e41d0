//! What an explanation costs an object store: on tables behind an S3-compatible server on
//! 127.0.0.1, `delta-explain` issues no more requests than one plain kernel scan of the same
//! predicate plus a constant (one listing of the log before the kernel reads it), however many
//! files and phases there are: the phases and the per-file view never touch the store again.

use harness::scaling::{
    TableShape, delta_explain_with, final_files, floor_scan_with, scan_predicates,
};
use storage::StorageOptions;
use testkit::s3::S3Server;

/// Requests the explanation may issue beyond one kernel scan's.
const EXTRA_REQUESTS: u64 = 1;

#[test]
fn an_explanation_costs_one_kernel_scan_of_requests_plus_a_constant() {
    let server = S3Server::start();
    server.create_bucket("lake");
    let storage = StorageOptions {
        options: server.options(),
        ..Default::default()
    };
    let work = tempfile::tempdir().unwrap();
    let mut tables: Vec<(String, std::path::PathBuf, String)> = TableShape::all_of(25_000)
        .into_iter()
        .map(|shape| {
            let dir = shape.write(work.path()).unwrap();
            (shape.name(), dir, shape.predicate())
        })
        .collect();
    for (name, predicate) in [
        (
            "taxi-nyc",
            "pickup_date = '2024-01-03' AND fare_amount > 10",
        ),
        ("real/multi-part-checkpoint", "id > 20"),
        (
            "real/dv-partitioned-with-checkpoint",
            "part = 1 AND col1 > 5",
        ),
    ] {
        tables.push((
            name.replace('/', "-"),
            testkit::fixtures().join(name),
            predicate.to_string(),
        ));
    }
    for (name, dir, predicate) in tables {
        server.upload("lake", &name, &dir);
        let url = format!("s3://lake/{name}");
        let local = dir.to_string_lossy().into_owned();
        let scans = scan_predicates(&local, &predicate).unwrap();
        // The kernel's own count varies by a request or two between runs of one scan (a
        // multi-part checkpoint's parts are read concurrently, so which range reads coalesce
        // depends on timing): the bound is the most of three runs.
        let (mut kept, mut scan_requests) = (0, 0);
        for _ in 0..3 {
            let before = server.requests();
            kept = floor_scan_with(&url, &storage, scans.full.clone()).unwrap();
            scan_requests = scan_requests.max(server.requests() - before);
        }
        let before = server.requests();
        let report = delta_explain_with(&url, &storage, Some(&predicate)).unwrap();
        let explain_requests = server.requests() - before;
        assert_eq!(
            final_files(&report).unwrap(),
            kept,
            "{name}: the same files kept"
        );
        eprintln!("{name}: kernel scan {scan_requests} requests, delta-explain {explain_requests}");
        assert!(
            explain_requests <= scan_requests + EXTRA_REQUESTS,
            "{name}: delta-explain issued {explain_requests} requests, one kernel scan {scan_requests}"
        );
        // Every section on: per-file view, diagnoses (a scan per conjunct), layers.
        let mut command = vec![
            "delta-explain".to_string(),
            url.clone(),
            "--where".into(),
            predicate.clone(),
        ];
        for option in &storage.options {
            command.extend([
                "--storage-option".to_string(),
                format!("{}={}", option.0, option.1),
            ]);
        }
        command.extend(
            ["--verbose", "--explain-why", "--layers", "--format", "json"].map(String::from),
        );
        let args = <delta_explain::cli::Args as clap::Parser>::try_parse_from(&command).unwrap();
        let before = server.requests();
        let outcome = delta_explain::cli::run(&args).unwrap();
        let everything = server.requests() - before;
        assert_eq!(outcome.exit_code, 0, "{name}: {}", outcome.stderr);
        assert!(
            everything <= scan_requests + EXTRA_REQUESTS,
            "{name}: with every section, {everything} requests; one kernel scan {scan_requests}"
        );
    }
}
