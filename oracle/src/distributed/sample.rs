//! The driver's own check of a cluster's answer: a sample of the files is read here and matched
//! by the oracle's second evaluator, the row-wise interpreter under DataFusion's semantics
//! (`interpret.rs`), which shares no code with the executors' DataFusion evaluation. Where the
//! interpreter does not evaluate a construct of the predicate, the sample is matched by the
//! local DataFusion evaluation over the whole-file load instead (another reader path than the
//! executors' per-file reads). A file whose rows or matching rows differ refuses the answer.

use super::FileCounts;
use crate::error::OracleError;
use crate::interpret::Semantics;
use crate::log::replay::Snapshot;
use crate::matching::LoadedTable;
use crate::planning::plan;
use crate::report::SampleCheck;

/// The positions of up to `n` files of `snapshot` to check: spread evenly over the live files,
/// and the first file with a deletion vector and the first file the cluster says matches
/// (the cases where a wrong count hides most easily).
pub fn sample_positions(snapshot: &Snapshot, counts: &[FileCounts], n: usize) -> Vec<usize> {
    let total = snapshot.files.len();
    if n == 0 || total == 0 {
        return Vec::new();
    }
    let mut picked: Vec<usize> = Vec::new();
    let first_dv = snapshot
        .files
        .iter()
        .position(|f| f.deletion_vector.is_some());
    let first_match = counts.iter().position(|c| c.matching_rows > 0);
    picked.extend(first_dv.into_iter().chain(first_match));
    picked.dedup();
    picked.truncate(n);
    let spread = n - picked.len();
    picked.extend((0..spread).map(|k| k * total / spread));
    picked.sort_unstable();
    picked.dedup();
    picked
}

/// Reads the files at `positions` here and checks the cluster's `counts` for them.
pub fn check_sample(
    snapshot: &Snapshot,
    predicate: &str,
    counts: &[FileCounts],
    positions: &[usize],
) -> Result<SampleCheck, OracleError> {
    let sample = Snapshot::from_parts(
        snapshot.store.clone(),
        snapshot.version,
        snapshot.protocol.clone(),
        snapshot.metadata.clone(),
        positions
            .iter()
            .map(|&i| snapshot.files[i].clone())
            .collect(),
    )?;
    let loaded = LoadedTable::load(sample, &plan(2))?;
    let (local, evaluator, unsupported) =
        match loaded.matching_rows_under(predicate, Semantics::DataFusion)? {
            Ok(rows) => (rows, "row-wise", None),
            Err(why) => (loaded.matching_rows(predicate)?, "datafusion", Some(why.0)),
        };
    for (j, &i) in positions.iter().enumerate() {
        let path = &snapshot.files[i].path;
        let cluster = &counts[i];
        let here = &loaded.counts[j];
        if cluster.live_rows != here.live_rows || cluster.physical_rows != here.physical_rows {
            return Err(OracleError::Cluster(format!(
                "the cluster read {} live row(s) of {} in `{path}`, the driver {} of {}; the answer is refused",
                cluster.live_rows, cluster.physical_rows, here.live_rows, here.physical_rows
            )));
        }
        if cluster.matching_rows != local[j] {
            return Err(OracleError::Cluster(format!(
                "the cluster counts {} matching row(s) in `{path}`, the driver's {evaluator} evaluator {}; the answer is refused",
                cluster.matching_rows, local[j]
            )));
        }
    }
    Ok(SampleCheck {
        files: positions.len(),
        evaluator,
        unsupported,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counts(matching: &[u64]) -> Vec<FileCounts> {
        matching
            .iter()
            .map(|&m| FileCounts {
                physical_rows: 10,
                live_rows: 10,
                matching_rows: m,
                row_groups: Vec::new(),
            })
            .collect()
    }

    #[test]
    fn spread_positions_stay_in_range_and_include_the_first_match() {
        let taxi = Snapshot::open(&testkit::taxi(), None).expect("taxi opens");
        let n = taxi.files.len();
        let mut matching = vec![0; n];
        matching[n - 1] = 3;
        let picked = sample_positions(&taxi, &counts(&matching), 4);
        assert!(picked.len() <= 4 && !picked.is_empty(), "{picked:?}");
        assert!(picked.contains(&(n - 1)), "{picked:?}");
        assert!(picked.iter().all(|&i| i < n), "{picked:?}");
        assert!(picked.windows(2).all(|w| w[0] < w[1]), "{picked:?}");
        assert!(sample_positions(&taxi, &counts(&matching), 0).is_empty());
        let all = sample_positions(&taxi, &counts(&matching), n + 5);
        assert!(all.len() <= n, "{all:?}");
    }

    /// Taxi's files with the counts the local oracle gives them for `predicate`.
    fn taxi_counts(predicate: &str) -> (Snapshot, Vec<FileCounts>) {
        let snapshot = Snapshot::open(&testkit::taxi(), None).expect("taxi opens");
        let loaded = LoadedTable::load(snapshot.clone(), &plan(2)).expect("taxi loads");
        let matching = loaded.matching_rows(predicate).expect("the predicate runs");
        let counts = loaded
            .counts
            .iter()
            .zip(matching)
            .map(|(c, m)| FileCounts {
                physical_rows: c.physical_rows,
                live_rows: c.live_rows,
                matching_rows: m,
                row_groups: Vec::new(),
            })
            .collect();
        (snapshot, counts)
    }

    #[test]
    fn a_right_answer_passes_with_the_row_wise_evaluator() {
        let predicate = "trip_distance > 5";
        let (snapshot, counts) = taxi_counts(predicate);
        let positions = sample_positions(&snapshot, &counts, 5);
        let check = check_sample(&snapshot, predicate, &counts, &positions).expect("agrees");
        assert_eq!(check.files, positions.len());
        assert_eq!(check.evaluator, "row-wise");
        assert_eq!(check.unsupported, None);
    }

    #[test]
    fn a_wrong_count_or_a_wrong_row_total_is_refused() {
        let predicate = "trip_distance > 5";
        let (snapshot, counts) = taxi_counts(predicate);
        let positions = sample_positions(&snapshot, &counts, 5);
        let at = positions[positions.len() / 2];
        let mut wrong = counts.clone();
        wrong[at].matching_rows += 1;
        let e = check_sample(&snapshot, predicate, &wrong, &positions).unwrap_err();
        assert!(matches!(e, OracleError::Cluster(_)), "{e}");
        assert!(e.to_string().contains("the answer is refused"), "{e}");
        assert!(e.to_string().contains(&snapshot.files[at].path), "{e}");
        let mut wrong = counts;
        wrong[at].live_rows -= 1;
        let e = check_sample(&snapshot, predicate, &wrong, &positions).unwrap_err();
        assert!(e.to_string().contains("live row(s)"), "{e}");
    }

    #[test]
    fn a_predicate_the_interpreter_cannot_evaluate_is_checked_by_datafusion_here() {
        let predicate = "abs(trip_distance) > 5";
        let (snapshot, counts) = taxi_counts(predicate);
        let positions = sample_positions(&snapshot, &counts, 3);
        let check = check_sample(&snapshot, predicate, &counts, &positions).expect("agrees");
        assert_eq!(check.evaluator, "datafusion");
        assert!(check.unsupported.is_some());
        let mut wrong = counts;
        wrong[positions[0]].matching_rows += 1;
        assert!(check_sample(&snapshot, predicate, &wrong, &positions).is_err());
    }
}
