//! `delta-explain check`: the explainer's kept sets, and delta_kernel's alone (`--kernel`),
//! held against each other, no row read. On taxi-nyc and the shared fixtures (their corpora's
//! predicates) every applicable check holds for both; a kept set broken on purpose is caught
//! by each check, for both.

use explain_compiler::error::ExplainError;
use explain_core::check::{
    Explainer, Kept, KeptFiles, Kernel, MONOTONE_NARROWER, MONOTONE_WIDER, TERNARY_PARTITION,
    Verdict, check_with,
};
use explain_core::replay::ReplayedTable;

const BIN: &str = env!("CARGO_BIN_EXE_delta-explain");

/// The first predicates of a fixture's corpus (`corpora/NAME.txt`).
fn corpus(name: &str, n: usize) -> Vec<String> {
    let path = testkit::workspace_root()
        .join("corpora")
        .join(format!("{name}.txt"));
    std::fs::read_to_string(path)
        .map(|text| {
            text.lines()
                .map(str::trim)
                .filter(|l| !l.is_empty() && !l.starts_with('#'))
                .take(n)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn every_applicable_check_holds_on_the_fixtures_corpora() {
    let mut applied = 0;
    let mut not_applicable = 0;
    let mut predicates = 0;
    for table in testkit::all_tables() {
        let name = table.file_name().unwrap().to_string_lossy().into_owned();
        let location = table.to_string_lossy().into_owned();
        let replayed = ReplayedTable::open(&location, None).unwrap();
        let subjects: [(&str, Box<dyn KeptFiles>); 2] = [
            ("explainer", Box::new(Explainer::new(&replayed))),
            ("kernel", Box::new(Kernel::new(&replayed))),
        ];
        for (subject, predicate) in subjects
            .iter()
            .flat_map(|s| corpus(&name, 12).into_iter().map(move |p| (s, p)))
        {
            let report = match check_with(&replayed, &predicate, subject.1.as_ref()) {
                Ok(r) => r,
                // A corpus predicate the explainer refuses (bad input on purpose).
                Err(ExplainError::InvalidPredicate(_) | ExplainError::Usage(_)) => continue,
                Err(e) => panic!("{name}: `{predicate}`: {e}"),
            };
            predicates += 1;
            assert!(
                report.passed,
                "{name}, {}: `{predicate}`: {report:#?}",
                subject.0
            );
            for c in &report.checks {
                match c.verdict {
                    Verdict::Pass | Verdict::Announced => applied += 1,
                    Verdict::NotApplicable => not_applicable += 1,
                    Verdict::Fail => unreachable!("passed"),
                }
            }
        }
    }
    assert!(predicates >= 200, "the corpora were read ({predicates})");
    assert!(
        applied > 4 * not_applicable,
        "most checks apply ({applied} applied, {not_applicable} not)"
    );
}

/// A reader (the explainer, the kernel), with one file taken out of the kept sets `breaks`
/// picks.
struct Faulty<'t> {
    real: Box<dyn KeptFiles + 't>,
    victim: usize,
    breaks: fn(&str) -> bool,
}

impl KeptFiles for Faulty<'_> {
    fn kept(&self, predicate: &str, strict: bool) -> Result<Kept, ExplainError> {
        let mut kept = self.real.kept(predicate, strict)?;
        if (self.breaks)(predicate) {
            kept.files[self.victim] = false;
        }
        Ok(kept)
    }

    fn modes(&self) -> &'static [bool] {
        self.real.modes()
    }
}

/// A check and the kept sets a fault breaks to catch it.
type Fault = (&'static str, fn(&str) -> bool);

#[test]
fn a_kept_set_broken_on_purpose_is_caught_by_each_check() {
    let location = testkit::taxi();
    let table = ReplayedTable::open(&location, None).unwrap();
    let predicate = "fare_amount > 10 AND passenger_count >= 1";
    let real = Explainer::new(&table);
    // A file the predicate keeps (it holds rows, as every taxi file does).
    let victim = real
        .kept(predicate, false)
        .unwrap()
        .files
        .iter()
        .position(|k| *k)
        .expect("the predicate keeps a file");
    let clean = check_with(&table, predicate, &real).unwrap();
    assert!(clean.passed, "{clean:#?}");
    assert!(
        clean.checks.iter().all(|c| c.verdict == Verdict::Pass),
        "every check applies to this predicate: {clean:#?}"
    );
    // Each fault breaks the one check it is meant for, in both modes.
    let faults: [Fault; 3] = [
        // Dropped from every kept set: no set holds the file's rows.
        (TERNARY_PARTITION, |_| true),
        // Dropped from the predicate's set alone: the narrower one keeps it.
        (MONOTONE_NARROWER, |p| !p.contains(" IS ")),
        // Dropped from the wider predicate's set alone.
        (MONOTONE_WIDER, |p| p.contains(") OR ")),
    ];
    for (check, breaks, kernel) in faults
        .iter()
        .flat_map(|(c, b)| [(*c, *b, false), (*c, *b, true)])
    {
        let real: Box<dyn KeptFiles> = if kernel {
            Box::new(Kernel::new(&table))
        } else {
            Box::new(Explainer::new(&table))
        };
        let faulty = Faulty {
            real,
            victim,
            breaks,
        };
        let report = check_with(&table, predicate, &faulty).unwrap();
        assert!(
            !report.passed,
            "{check} (kernel: {kernel}): the fault is caught"
        );
        let modes = report.checks.iter().filter(|c| c.check == check).count();
        assert_eq!(modes, if kernel { 1 } else { 2 }, "{report:#?}");
        for c in report.checks.iter().filter(|c| c.check == check) {
            // The default mode may drop a file of NaN rows on a float comparison, and says
            // so (`fare_amount` is a double): there the fault is announced, under --strict a
            // failure.
            let caught = match c.mode {
                "strict" => c.verdict == Verdict::Fail,
                _ => matches!(c.verdict, Verdict::Fail | Verdict::Announced),
            };
            assert!(caught, "{check} {}: {c:?}", c.mode);
            assert_eq!(c.offending, [table.path(victim)], "{c:?}");
        }
    }
}

#[test]
fn the_command_checks_and_exits_by_the_outcome() {
    let taxi = testkit::taxi();
    let run = testkit::run_binary(
        BIN,
        &[
            "check",
            &taxi,
            "-w",
            "pickup_date = '2024-01-03' AND trip_distance > 5",
            "--format",
            "json",
        ],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let report: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(report["passed"], true);
    assert_eq!(report["checks"].as_array().unwrap().len(), 6, "{report}");
    let text = testkit::run_binary(BIN, &["check", &taxi, "-w", "abs(trip_distance) > 5"]);
    assert_eq!(text.code, 0, "{}", text.stderr);
    assert!(
        text.stdout.contains("n/a")
            && text
                .stdout
                .contains("may be NULL where none of its columns is"),
        "a function's NULL rows are not known: {}",
        text.stdout
    );
    // The kernel alone: one mode, three checks, all holding on taxi-nyc.
    let kernel = testkit::run_binary(
        BIN,
        &[
            "check",
            &taxi,
            "--kernel",
            "-w",
            "pickup_date = '2024-01-03' AND trip_distance > 5",
            "--format",
            "json",
        ],
    );
    assert_eq!(kernel.code, 0, "{}", kernel.stderr);
    let report: serde_json::Value = serde_json::from_str(&kernel.stdout).unwrap();
    assert_eq!(report["subject"], "kernel");
    assert_eq!(report["checks"].as_array().unwrap().len(), 3, "{report}");
    let bad = testkit::run_binary(BIN, &["check", &taxi, "-w", "trip_distance >"]);
    testkit::assert_error(&bad, "a malformed predicate", 2, "delta-explain check:");
    let missing = testkit::run_binary(BIN, &["check", "/nonexistent/table", "-w", "a > 1"]);
    assert_eq!(missing.code, 3, "{}", missing.stderr);
    assert_eq!(missing.stderr.lines().count(), 1, "{}", missing.stderr);
}
