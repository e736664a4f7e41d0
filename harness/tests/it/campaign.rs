//! The fuzz campaign with its oracle on a Ballista cluster (`campaign --engine ballista`): a
//! scheduler and two executors of the oracle's cluster, in this process on 127.0.0.1. The same
//! seed checks the same cases with the same outcomes as the local oracle, every predicate is a
//! job on the cluster, and an unreachable cluster stops the campaign (exit 3, one line) with
//! nothing counted as checked.

use std::sync::OnceLock;
use std::time::Duration;

use harness::campaign::{CampaignOptions, CampaignReport, run};
use harness::subject::OracleEngine;
use oracle::distributed::cluster::{
    ExecutorRequest, SchedulerRequest, run_executor, run_scheduler,
};
use oracle::engine::ClusterRequest;
use testkit::net::{free_port, wait_for};
use testkit::{assert_error, run_binary};

/// A scheduler and two executors on threads of this process, started once for the tests that
/// use them; they run until the process ends. Returns the scheduler's URL.
fn cluster() -> &'static str {
    static URL: OnceLock<String> = OnceLock::new();
    URL.get_or_init(|| {
        let port = free_port();
        let scheduler = SchedulerRequest {
            host: "127.0.0.1".into(),
            port,
            executor_timeout_seconds: 30,
        };
        std::thread::spawn(move || run_scheduler(&scheduler));
        wait_for(port, "the scheduler");
        for _ in 0..2 {
            let executor = ExecutorRequest {
                host: "127.0.0.1".into(),
                port: free_port(),
                grpc_port: free_port(),
                scheduler_host: "127.0.0.1".into(),
                scheduler_port: port,
                concurrent_tasks: 2,
                heartbeat_seconds: 1,
            };
            let flight = executor.port;
            std::thread::spawn(move || run_executor(&executor));
            wait_for(flight, "an executor");
        }
        format!("df://127.0.0.1:{port}")
    })
}

/// A short campaign of one job (so its rounds, and their tables and predicates, follow from
/// the seed alone) on `engine`.
fn campaign(engine: OracleEngine) -> CampaignReport {
    let options = CampaignOptions {
        seconds: 600,
        max_cases: Some(60),
        seed: 7,
        jobs: 1,
        predicates_per_table: 6,
        engine,
        work_dir: None,
        engines: Vec::new(),
        chain_leaves: 0,
        histories: false,
    };
    run(&options, &|_| {}).0
}

/// What a campaign found, without its timing and engine: the cases, their outcomes per
/// invariant, construct and semantics, the tightness, the failures.
fn findings(r: &CampaignReport) -> String {
    let mut v = serde_json::to_value(r).expect("the report serializes");
    let o = v.as_object_mut().expect("an object");
    for volatile in [
        "seconds",
        "cases_per_second",
        "oracle_engine",
        "cluster_jobs",
    ] {
        o.remove(volatile);
    }
    serde_json::to_string_pretty(&v).expect("serializes")
}

#[test]
#[ignore = "external tier: a Ballista cluster of delta-oracle-cluster processes"]
fn a_campaign_on_a_ballista_cluster_finds_what_the_local_oracle_finds() {
    let local = campaign(OracleEngine::Local);
    let on_cluster = campaign(OracleEngine::Ballista(ClusterRequest {
        scheduler: cluster().to_string(),
        files_per_task: 2,
        timeout: Duration::from_secs(300),
        // Generated files are small: every file in parts, so the parts' merge is checked too.
        split_bytes: Some(2048),
    }));
    assert_eq!(local.oracle_engine, "local");
    assert_eq!(local.cluster_jobs, 0);
    assert!(
        on_cluster
            .oracle_engine
            .starts_with("ballista df://127.0.0.1:"),
        "{}",
        on_cluster.oracle_engine
    );
    assert_eq!(on_cluster.engine_error, None);
    // Every soundness case and every accepted-values case asks the cluster.
    let asked = |r: &CampaignReport, invariant: &str| {
        r.per_invariant.get(invariant).map_or(0, |c| c.total())
    };
    assert!(asked(&on_cluster, "soundness") > 0);
    assert_eq!(
        on_cluster.cluster_jobs,
        asked(&on_cluster, "soundness") + asked(&on_cluster, "accepted"),
        "one job per soundness and accepted-values case"
    );
    let soundness = &on_cluster.per_invariant["soundness"];
    assert!(soundness.pass > 0, "{soundness:?}");
    assert_eq!(soundness.broken, 0, "{soundness:?}");
    assert!(
        local.cases >= 60 && local.tables > 0,
        "{}",
        findings(&local)
    );
    assert_eq!(
        findings(&on_cluster),
        findings(&local),
        "the same seed finds the same on the cluster"
    );
}

/// The same short campaign with Spark (ANSI off and on), DuckDB and DataFusion running every
/// predicate themselves: each engine decided cases (none unavailable), its version is in the
/// report, the workers carried over from one table to the next, and nothing was dropped.
#[test]
#[ignore = "external tier: Spark and DuckDB (bash oracle/engines/setup.sh)"]
fn a_campaign_with_the_engines_as_truth_checks_every_case_under_each_engine() {
    let options = CampaignOptions {
        seconds: 900,
        max_cases: Some(60),
        seed: 7,
        jobs: 1,
        predicates_per_table: 6,
        engine: OracleEngine::Local,
        work_dir: None,
        engines: oracle::engines::EngineSemantics::ALL.to_vec(),
        chain_leaves: 0,
        histories: false,
    };
    let report = run(&options, &|_| {}).0;
    assert!(report.tables >= 2, "{}", findings(&report));
    assert!(report.failures.is_empty(), "{}", findings(&report));
    for engine in ["spark", "spark-ansi", "duckdb", "datafusion"] {
        let version = &report.engine_versions[engine];
        assert!(
            !version.starts_with("unavailable"),
            "{engine}: {version} (run oracle/engines/setup.sh)"
        );
        let counts = &report.per_semantics[&format!("engine:{engine}")];
        assert_eq!(counts.unknown, 0, "{engine}: {counts:?}");
        assert!(counts.checked > 0, "{engine}: {counts:?}");
        assert_eq!(counts.strict_dropped, 0, "{engine}: {counts:?}");
    }
    assert!(report.engine_versions["spark"].starts_with('4'));
    // The model's own semantics were checked beside them.
    assert!(report.per_semantics["spark-duckdb"].checked > 0);
}

#[test]
fn an_unreachable_cluster_stops_the_campaign_with_exit_3() {
    let out = tempfile::tempdir().expect("a temporary directory");
    let out_dir = out.path().to_string_lossy().into_owned();
    let scheduler = format!("df://127.0.0.1:{}", free_port());
    let run = run_binary(
        env!("CARGO_BIN_EXE_campaign"),
        &[
            "--seconds",
            "300",
            "--cases",
            "40",
            "--jobs",
            "1",
            "--no-save",
            "--out",
            &out_dir,
            "--engine",
            "ballista",
            "--scheduler",
            &scheduler,
            "--cluster-timeout",
            "60",
        ],
    );
    assert_error(&run, "unreachable cluster", 3, "the oracle's engine failed");
    let report: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(out.path().join("report.json")).expect("the report is written"),
    )
    .expect("the report is JSON");
    let soundness = &report["per_invariant"]["soundness"];
    assert_eq!(soundness["pass"], 0, "{report:#}");
    assert_eq!(soundness["broken"], 1, "{report:#}");
    assert!(
        report["engine_error"]
            .as_str()
            .is_some_and(|e| e.contains("the cluster: ")),
        "{report:#}"
    );
    let page = std::fs::read_to_string(out.path().join("report.md")).expect("the page");
    assert!(
        page.contains("Stopped: the oracle's engine failed"),
        "{page}"
    );
}

#[test]
fn contradicting_engine_flags_are_bad_input() {
    let campaign = env!("CARGO_BIN_EXE_campaign");
    for (args, fragment) in [
        (
            &["--engine", "ballista"][..],
            "--engine ballista needs --scheduler",
        ),
        (
            &["--scheduler", "df://127.0.0.1:1"][..],
            "--scheduler is for --engine ballista",
        ),
        (
            &[
                "--engine",
                "ballista",
                "--scheduler",
                "df://127.0.0.1:1",
                "--files-per-task",
                "0",
            ][..],
            "--files-per-task must be at least 1",
        ),
        (
            &["--work-dir", "/nonexistent/dir"][..],
            "is not a directory",
        ),
    ] {
        let run = run_binary(campaign, args);
        assert_error(&run, &args.join(" "), 2, fragment);
    }
}

/// The long-chains knob: each table's predicates end with an AND and an OR of 300 leaves
/// (past the depth that once overflowed the oracle's stack); the explainer and the oracle
/// answer them, and no case fails or goes unanswered.
#[test]
fn long_chains_are_answered_by_the_explainer_and_the_oracle() {
    let options = CampaignOptions {
        seconds: 600,
        max_cases: Some(6),
        seed: 7,
        jobs: 1,
        predicates_per_table: 1,
        engine: OracleEngine::Local,
        work_dir: None,
        engines: Vec::new(),
        chain_leaves: 300,
        histories: false,
    };
    let report = run(&options, &|_| {}).0;
    let soundness = &report.per_invariant["soundness"];
    assert!(soundness.pass >= 3, "{}", findings(&report));
    assert_eq!(soundness.broken, 0, "{}", findings(&report));
    assert!(report.failures.is_empty(), "{}", findings(&report));
}

/// `--histories`: each round also rewrites its table (OPTIMIZE-style, where the table allows)
/// and checks soundness at every version; the history cases are counted apart and hold.
#[test]
fn a_campaign_over_histories_checks_every_version() {
    let options = CampaignOptions {
        seconds: 900,
        max_cases: Some(400),
        seed: 11,
        jobs: 1,
        predicates_per_table: 4,
        engine: OracleEngine::Local,
        work_dir: None,
        engines: Vec::new(),
        chain_leaves: 0,
        histories: true,
    };
    let report = run(&options, &|_| {}).0;
    assert!(report.failures.is_empty(), "{}", findings(&report));
    let history = &report.per_invariant["history"];
    assert!(history.pass > 0, "{history:?}");
    assert_eq!(history.fail, 0, "{history:?}");
    // Deletes with deletion vectors and compactions were appended, and checked at every
    // version (rewrites need an unpartitioned table: `histories.rs` draws them).
    for op in ["delete", "compact"] {
        assert!(
            report.history_ops.get(op).copied().unwrap_or(0) > 0,
            "{op}: {:?}",
            report.history_ops
        );
    }
    // Every round's table read three ways (JSON, stats_parsed, compaction), no row read.
    let two_paths = &report.per_invariant["two-paths"];
    assert!(two_paths.pass > 0, "{two_paths:?}");
    assert_eq!(two_paths.fail, 0, "{two_paths:?}");
}
