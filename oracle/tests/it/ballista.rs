//! The matching on a Ballista cluster (`--engine ballista`): a scheduler and two executors of
//! `delta-oracle-cluster`, child processes on 127.0.0.1, give the same report as the local
//! oracle on every shared fixture (deletion vectors included) for the corpus predicates, in
//! tasks of one file and of several; an executor killed while a job runs leaves either the
//! same complete answer or a one-line error (exit 3), never a partial report; tables in an
//! S3-compatible store on 127.0.0.1 are read by the executors themselves.

use std::process::{Child, Command, Stdio};
use std::time::Duration;

use testkit::net::{free_port, wait_for};
use testkit::s3::S3Server;
use testkit::{Run, all_tables, run_binary, workspace_root};

use crate::support::corpus_predicates;

const ORACLE: &str = env!("CARGO_BIN_EXE_delta-oracle");
const CLUSTER: &str = env!("CARGO_BIN_EXE_delta-oracle-cluster");

/// A scheduler and its executors, stopped when dropped.
struct Cluster {
    port: u16,
    executors: Vec<Child>,
    scheduler: Child,
}

impl Cluster {
    fn start(executors: usize) -> Cluster {
        let port = free_port();
        let spawn = |args: &[String]| {
            Command::new(CLUSTER)
                .args(args)
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .expect("delta-oracle-cluster starts")
        };
        let scheduler = spawn(&[
            "scheduler".into(),
            "--port".into(),
            port.to_string(),
            "--executor-timeout".into(),
            "4".into(),
        ]);
        wait_for(port, "the scheduler");
        let executors = (0..executors)
            .map(|_| {
                let (flight, grpc) = (free_port(), free_port());
                let child = spawn(&[
                    "executor".into(),
                    "--port".into(),
                    flight.to_string(),
                    "--grpc-port".into(),
                    grpc.to_string(),
                    "--scheduler-port".into(),
                    port.to_string(),
                    "--concurrent-tasks".into(),
                    "2".into(),
                    "--heartbeat".into(),
                    "1".into(),
                ]);
                wait_for(flight, "an executor");
                child
            })
            .collect();
        Cluster {
            port,
            executors,
            scheduler,
        }
    }

    fn url(&self) -> String {
        format!("df://127.0.0.1:{}", self.port)
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        for child in self.executors.iter_mut().chain([&mut self.scheduler]) {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// `delta-oracle` on the cluster at `url`, in tasks of `per_task` files, waiting 120 s at most,
/// with `more` args.
fn on_cluster(url: &str, table: &str, predicate: &str, per_task: &str, more: &[&str]) -> Run {
    let mut args = vec![
        table,
        "-w",
        predicate,
        "--format",
        "json",
        "--engine",
        "ballista",
        "--scheduler",
        url,
        "--files-per-task",
        per_task,
        "--cluster-timeout",
        "120",
    ];
    args.extend(more);
    run_binary(ORACLE, &args)
}

/// The cluster's report is the local one, with the driver's check of a sample of the files
/// beside it (which every file of the sample passed, or there would be no report).
fn assert_same_report(remote: &Run, local: &Run, case: &str) {
    assert_eq!(remote.code, local.code, "{case}: {}", remote.stderr);
    if local.code != 0 {
        assert_eq!(remote.stdout, local.stdout, "{case}");
        return;
    }
    let mut remote: serde_json::Value = serde_json::from_str(&remote.stdout).unwrap();
    let local: serde_json::Value = serde_json::from_str(&local.stdout).unwrap();
    let check = remote
        .as_object_mut()
        .and_then(|o| o.remove("checked_on_driver"))
        .unwrap_or_else(|| panic!("{case}: no check on the driver"));
    let live = local["live_files"].as_u64().unwrap();
    let checked = check["files"].as_u64().unwrap();
    assert!(
        checked >= live.min(1) && checked <= live.min(8),
        "{case}: {check}"
    );
    assert!(
        ["row-wise", "datafusion"].contains(&check["evaluator"].as_str().unwrap()),
        "{case}: {check}"
    );
    assert_eq!(remote, local, "{case}");
}

/// A run that failed on the cluster's account: exit 3, no report, one line.
fn assert_cluster_error(run: &Run) {
    assert_eq!(run.code, 3, "{}", run.stderr);
    assert!(run.stdout.is_empty(), "no report: {}", run.stdout);
    assert!(
        run.stderr.starts_with("delta-oracle: the cluster: ")
            && run.stderr.trim_end().lines().count() == 1,
        "{}",
        run.stderr
    );
}

#[test]
#[ignore = "external tier: a Ballista cluster of delta-oracle-cluster processes"]
fn every_fixture_matches_on_the_cluster_as_it_does_locally() {
    let cluster = Cluster::start(2);
    let (mut compared, mut with_deleted_rows) = (0usize, 0usize);
    for table in all_tables() {
        let name = table.file_name().unwrap().to_string_lossy().into_owned();
        let path = table.to_str().unwrap();
        for predicate in corpus_predicates(&name) {
            let plain = run_binary(ORACLE, &[path, "-w", &predicate, "--format", "json"]);
            let grouped = run_binary(
                ORACLE,
                &[path, "-w", &predicate, "--format", "json", "--row-groups"],
            );
            // Tasks of one file answer the plain report; tasks of three, the per-row-group one,
            // every file cut in byte ranges of 1,000 (the parts' sums checked against the whole).
            for (per_task, more, local) in [
                ("1", &[][..], &plain),
                (
                    "3",
                    &["--row-groups", "--split-bytes", "1000"][..],
                    &grouped,
                ),
            ] {
                let remote = on_cluster(&cluster.url(), path, &predicate, per_task, more);
                let case = format!("{name}: `{predicate}` in tasks of {per_task} files");
                assert_same_report(&remote, local, &case);
                if local.code == 0 {
                    compared += 1;
                    let doc: serde_json::Value = serde_json::from_str(&local.stdout).unwrap();
                    let deleted = doc["files"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .any(|f| f["deleted_rows"].as_u64() > Some(0));
                    with_deleted_rows += usize::from(deleted);
                }
            }
        }
    }
    assert!(compared >= 40, "only {compared} reports compared");
    assert!(
        with_deleted_rows > 0,
        "no compared table had rows removed by a deletion vector"
    );
}

#[test]
#[ignore = "external tier: a Ballista cluster of delta-oracle-cluster processes"]
fn an_executor_killed_mid_job_never_leaves_a_partial_answer() {
    let mut cluster = Cluster::start(2);
    let table = workspace_root().join("../shared/fixtures/taxi-nyc");
    let table = table.to_str().unwrap();
    let predicate = "trip_distance > 5";
    let local = run_binary(ORACLE, &[table, "-w", predicate, "--format", "json"]);
    assert_eq!(local.code, 0, "{}", local.stderr);
    // Without the driver's check, the cluster's report is the local one, byte for byte.
    let unchecked = on_cluster(
        &cluster.url(),
        table,
        predicate,
        "3",
        &["--check-files", "0"],
    );
    assert_eq!(unchecked.code, 0, "{}", unchecked.stderr);
    assert_eq!(unchecked.stdout, local.stdout);
    // The driver starts a job of one task per file; an executor is killed as it runs.
    let driver = {
        let url = cluster.url();
        let table = table.to_string();
        std::thread::spawn(move || on_cluster(&url, &table, predicate, "1", &[]))
    };
    std::thread::sleep(Duration::from_millis(100));
    let killed = &mut cluster.executors[0];
    killed.kill().expect("the executor is killed");
    killed.wait().expect("the executor stops");
    let remote = driver.join().expect("the driver returns");
    match remote.code {
        // Retried on the executor left: the whole answer.
        0 => assert_same_report(&remote, &local, "a complete answer"),
        // Or the job failed, said on one line.
        3 => assert_cluster_error(&remote),
        other => panic!("exit {other}: {}", remote.stderr),
    }
}

#[test]
fn a_cluster_that_cannot_be_reached_or_named_is_refused_on_one_line() {
    let table = workspace_root().join("../shared/fixtures/taxi-nyc");
    let table = table.to_str().unwrap();
    let unnamed = run_binary(ORACLE, &[table, "-w", "true", "--engine", "ballista"]);
    assert_eq!(unnamed.code, 2, "{}", unnamed.stderr);
    assert!(unnamed.stderr.contains("--scheduler"), "{}", unnamed.stderr);
    let nobody = format!("df://127.0.0.1:{}", free_port());
    assert_cluster_error(&on_cluster(&nobody, table, "true", "8", &[]));
}

#[test]
#[ignore = "external tier: a Ballista cluster of delta-oracle-cluster processes"]
fn tables_in_an_object_store_match_on_the_cluster_as_they_do_locally() {
    // The executors open the store themselves, with the options the driver was given.
    let cluster = Cluster::start(2);
    let server = S3Server::start();
    server.create_bucket("lake");
    let options = server.option_args();
    let options: Vec<&str> = options.iter().map(String::as_str).collect();
    let mut compared = 0;
    for table in all_tables() {
        let name = table.file_name().unwrap().to_string_lossy().into_owned();
        server.upload("lake", &name, &table);
        let url = format!("s3://lake/{name}");
        for predicate in corpus_predicates(&name).into_iter().take(2) {
            let mut local = vec![url.as_str(), "-w", &predicate, "--format", "json"];
            local.extend(&options);
            let local = run_binary(ORACLE, &local);
            let remote = on_cluster(&cluster.url(), &url, &predicate, "2", &options);
            let case = format!("{url}: `{predicate}`");
            assert_same_report(&remote, &local, &case);
            compared += usize::from(local.code == 0);
        }
    }
    assert!(compared >= 10, "only {compared} reports compared");
}

/// A file of ten row groups with rows deleted at their edges and inside them, cut in byte
/// ranges down to a row group's size and below: the parts add up to the local oracle's counts,
/// row group by row group.
#[test]
#[ignore = "external tier: a Ballista cluster of delta-oracle-cluster processes"]
fn a_file_matched_in_byte_ranges_adds_up_to_the_whole() {
    let cluster = Cluster::start(2);
    let dir = tempfile::tempdir().unwrap();
    let deleted = [0u64, 99, 100, 101, 555, 999];
    let size = crate::support::write_table(
        dir.path(),
        1000,
        100,
        Some(crate::rows::inline_dv(&deleted)),
    );
    let table = dir.path().to_str().unwrap();
    for predicate in ["id % 3 = 0", "tag = 't2' AND id > 250", "true"] {
        let local = run_binary(
            ORACLE,
            &[table, "-w", predicate, "--format", "json", "--row-groups"],
        );
        assert_eq!(local.code, 0, "{}", local.stderr);
        for split in [size / 3, 700, 150] {
            let split = split.to_string();
            let remote = on_cluster(
                &cluster.url(),
                table,
                predicate,
                "2",
                &["--row-groups", "--split-bytes", &split],
            );
            assert_same_report(
                &remote,
                &local,
                &format!("`{predicate}` in ranges of {split} bytes"),
            );
        }
    }
}
