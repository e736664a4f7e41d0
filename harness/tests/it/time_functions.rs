//! Filters bound at query time (`current_date()`, `current_timestamp`, `now()`), held to the
//! engines that bind them themselves: a table whose DATE partition holds yesterday, today and
//! tomorrow (UTC) and whose TIMESTAMP column holds instants hours before and after now, real
//! Parquet; Spark (ANSI off and on), DuckDB and DataFusion run each predicate over the
//! oracle's rows at their own time, the explainer binds the functions to the time of its run.
//! Every file any engine matches is kept, default and `--strict`, and the day's equality
//! prunes to today's file.

use std::sync::Arc;

use arrow::array::{RecordBatch, TimestampMicrosecondArray};
use arrow::datatypes::{DataType, Field, Schema, TimeUnit};
use datafusion::parquet::arrow::ArrowWriter;
use harness::checks::{Outcome, soundness_with};
use harness::subject::Subject;

const HOUR: i64 = 3_600_000_000;

fn now_micros() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_micros() as i64
}

/// `yyyy-mm-dd` of a day count since the epoch.
fn day_text(days: i64) -> String {
    let (y, m, d) = {
        let z = days + 719_468;
        let era = z.div_euclid(146_097);
        let doe = z.rem_euclid(146_097);
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
        let mp = (5 * doy + 2) / 153;
        let d = doy - (153 * mp + 2) / 5 + 1;
        let m = if mp < 10 { mp + 3 } else { mp - 9 };
        (yoe + era * 400 + i64::from(m <= 2), m, d)
    };
    format!("{y:04}-{m:02}-{d:02}")
}

fn iso(micros: i64) -> String {
    let days = micros.div_euclid(86_400 * 1_000_000);
    let secs = micros.rem_euclid(86_400 * 1_000_000) / 1_000_000;
    format!(
        "{}T{:02}:{:02}:{:02}.000Z",
        day_text(days),
        secs / 3600,
        secs / 60 % 60,
        secs % 60
    )
}

/// The table at `root`: three days around today, two files each.
fn around_now(root: &std::path::Path, now: i64) {
    let fields = [
        serde_json::json!({"name": "day", "type": "date", "nullable": true, "metadata": {}}),
        serde_json::json!({"name": "ts", "type": "timestamp", "nullable": true, "metadata": {}}),
    ];
    let schema = delta_commit::schema_string(&fields);
    let mut actions = vec![
        delta_commit::protocol(&[], &[]),
        delta_commit::metadata("around-now", &schema, &["day"], Default::default()),
    ];
    let arrow_schema = Arc::new(Schema::new(vec![Field::new(
        "ts",
        DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into())),
        true,
    )]));
    let today = now.div_euclid(24 * HOUR);
    for (k, offset) in [-1i64, 0, 1].into_iter().enumerate() {
        let day = day_text(today + offset);
        // Hours before and after now: the first file of a day before it, the second after.
        for (f, hours) in [[-30i64, -26], [26, 30]].iter().enumerate() {
            let values: Vec<i64> = hours
                .iter()
                .map(|h| now + (h + 24 * offset) * HOUR / 4)
                .collect();
            let path = format!("day={day}/part-{k}-{f}.parquet");
            let full = root.join(&path);
            std::fs::create_dir_all(full.parent().unwrap()).unwrap();
            let batch = RecordBatch::try_new(
                arrow_schema.clone(),
                vec![Arc::new(
                    TimestampMicrosecondArray::from(values.clone()).with_timezone("UTC"),
                )],
            )
            .unwrap();
            let mut writer = ArrowWriter::try_new(
                std::fs::File::create(&full).unwrap(),
                arrow_schema.clone(),
                None,
            )
            .unwrap();
            writer.write(&batch).unwrap();
            writer.close().unwrap();
            let size = std::fs::metadata(&full).unwrap().len();
            let (lo, hi) = (values[0].min(values[1]), values[0].max(values[1]));
            let stats = format!(
                "{{\"numRecords\":2,\"minValues\":{{\"ts\":\"{}\"}},\"maxValues\":{{\"ts\":\"{}\"}},\"nullCount\":{{\"ts\":0}}}}",
                iso(lo),
                iso(hi + 999_999)
            );
            actions.push(delta_commit::add(
                &path,
                &[("day".to_string(), Some(day.clone()))],
                size,
                Some(&stats),
                Default::default(),
            ));
        }
    }
    delta_commit::write_commit(&root.join("_delta_log"), 0, &actions).unwrap();
}

#[test]
#[ignore = "external tier: Spark and DuckDB (bash oracle/engines/setup.sh)"]
fn time_functions_are_bound_as_the_engines_bind_them() {
    use oracle::engines::EngineWorkers;

    let dir = tempfile::tempdir().unwrap();
    around_now(dir.path(), now_micros());
    let location = dir.path().to_string_lossy().into_owned();
    let subject = Subject::load_at("around-now", &location, None).unwrap();
    let truth = super::engine_readings::every_engine(&subject, EngineWorkers::default());
    let mut failures = Vec::new();
    let mut kept = Vec::new();
    for predicate in [
        "day = current_date()",
        "day = CURRENT_DATE",
        "day < current_date()",
        "day >= current_date",
        "NOT (day = current_date())",
        "ts <= now()",
        "ts > now()",
        "ts < current_timestamp",
        "day = current_date() AND ts > now()",
    ] {
        for (semantics, answer) in truth.ask(&subject, predicate).expect("the engines answer") {
            if !matches!(answer, harness::engine_truth::EngineAnswer::Rows(_)) {
                failures.push(format!(
                    "`{predicate}`: {} does not run it: {answer:?}",
                    semantics.name()
                ));
            }
        }
        let case = soundness_with(&subject, predicate, Some(&truth));
        match case.outcome {
            Outcome::Pass => kept.push((predicate, case.tightness.kept)),
            other => failures.push(format!("`{predicate}`: {other:?}")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // Bound, the day's equality prunes to today's two files (unbound it kept all six).
    let of = |p: &str| kept.iter().find(|(q, _)| *q == p).map(|(_, k)| *k);
    assert_eq!(of("day = current_date()"), Some(2), "{kept:?}");
    assert_eq!(of("day < current_date()"), Some(2), "{kept:?}");
}
