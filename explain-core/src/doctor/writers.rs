//! Known writer hazards: statistics bugs and behaviours of named writers, each from a public
//! tracker, matched against the writers the table's `commitInfo` names and the table's shape
//! (a hazard of decimal statistics applies where a decimal column is). The table below is the
//! one `docs/doctor.md` prints (checked by a test).

use serde::Serialize;

use super::WriterSpan;

/// What a table must hold for a writer's hazard to apply.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Applies {
    /// A float or double data column.
    FloatColumns,
    /// A decimal data column.
    DecimalColumns,
    /// `delta.dataSkippingStatsColumns` naming a column in backticks.
    EscapedStatsColumns,
    /// `delta.dataSkippingStatsColumns` or `delta.dataSkippingNumIndexedCols` set.
    StatsSettings,
}

/// One known hazard of a writer.
#[derive(Clone, Copy, Debug)]
pub struct KnownHazard {
    /// Stable id (the JSON's `id`, docs/doctor.md's first column).
    pub id: &'static str,
    /// Matched, lowercase, within the writer's name (`commitInfo.engineInfo`, else
    /// `clientVersion`).
    pub writer: &'static str,
    pub applies: Applies,
    /// The public trackers that describe it.
    pub trackers: &'static [&'static str],
    pub summary: &'static str,
}

/// The known hazards, in the order docs/doctor.md lists them.
pub const KNOWN: &[KnownHazard] = &[
    KnownHazard {
        id: "nan-left-out-of-float-bounds",
        writer: "delta-rs",
        applies: Applies::FloatColumns,
        trackers: &["https://github.com/delta-io/delta/pull/7101"],
        summary: "float and double min/max come from Parquet statistics that leave NaN out: a file holding NaN records finite bounds, and a comparison NaN satisfies in Spark and DuckDB (NaN above every number) may prune it",
    },
    KnownHazard {
        id: "decimal-bounds-through-double",
        writer: "delta-rs",
        applies: Applies::DecimalColumns,
        trackers: &[
            "https://github.com/delta-io/delta-rs/issues/3905",
            "https://github.com/delta-io/delta-rs/issues/2974",
            "https://github.com/delta-io/delta-rs/pull/4757",
        ],
        summary: "decimal statistics pass through a double: a bound beyond 15 significant digits is rounded, so a minimum may lie above the file's smallest value or a maximum below its largest (DECIMAL_ROUNDED_BOUNDS widens them)",
    },
    KnownHazard {
        id: "escaped-stats-columns-ignored",
        writer: "delta-rs",
        applies: Applies::EscapedStatsColumns,
        trackers: &["https://github.com/delta-io/delta-rs/issues/2849"],
        summary: "columns named in backticks in delta.dataSkippingStatsColumns get no statistics: skipping on them keeps every file the writer wrote",
    },
    KnownHazard {
        id: "stats-settings-ignored",
        writer: "kafka-delta-ingest",
        applies: Applies::StatsSettings,
        trackers: &["https://github.com/delta-io/kafka-delta-ingest/issues/189"],
        summary: "the writer ignores delta.dataSkippingStatsColumns and delta.dataSkippingNumIndexedCols and records statistics for every column: the settings do not describe its files, and the log grows with every column's bounds",
    },
];

/// The table's shape, as far as the known hazards ask.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Shape {
    pub float_columns: bool,
    pub decimal_columns: bool,
    pub escaped_stats_columns: bool,
    pub stats_settings: bool,
}

impl Shape {
    fn holds(&self, applies: Applies) -> bool {
        match applies {
            Applies::FloatColumns => self.float_columns,
            Applies::DecimalColumns => self.decimal_columns,
            Applies::EscapedStatsColumns => self.escaped_stats_columns,
            Applies::StatsSettings => self.stats_settings,
        }
    }
}

/// A known hazard that applies to one of the table's writers.
#[derive(Clone, Debug, Serialize)]
pub struct WriterHazard {
    pub id: &'static str,
    /// The writer as the commits name it.
    pub writer: String,
    /// The versions it wrote, among those read.
    pub versions: Vec<[u64; 2]>,
    pub summary: &'static str,
    pub trackers: &'static [&'static str],
}

/// The known hazards of the writers of `writers` that the table's shape lets apply.
pub(super) fn hazards(writers: &[WriterSpan], shape: Shape) -> Vec<WriterHazard> {
    let mut out: Vec<WriterHazard> = Vec::new();
    for known in KNOWN.iter().filter(|k| shape.holds(k.applies)) {
        for span in writers {
            if !span.writer.to_lowercase().contains(known.writer) {
                continue;
            }
            let range = [span.from_version, span.to_version];
            match out
                .iter_mut()
                .find(|h| h.id == known.id && h.writer == span.writer)
            {
                Some(h) => h.versions.push(range),
                None => out.push(WriterHazard {
                    id: known.id,
                    writer: span.writer.clone(),
                    versions: vec![range],
                    summary: known.summary,
                    trackers: known.trackers,
                }),
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn span(from: u64, to: u64, writer: &str) -> WriterSpan {
        WriterSpan {
            from_version: from,
            to_version: to,
            writer: writer.to_string(),
        }
    }

    #[test]
    fn a_known_hazard_applies_to_its_writer_where_the_table_holds_what_it_needs() {
        let writers = [
            span(0, 3, "delta-rs:py-1.5.0"),
            span(4, 4, "Apache-Spark/3.5.0 Delta-Lake/3.1.0"),
            span(5, 9, "delta-rs:py-1.5.0"),
            span(10, 10, "kafka-delta-ingest/0.4"),
        ];
        let ids =
            |shape: Shape| -> Vec<&str> { hazards(&writers, shape).iter().map(|h| h.id).collect() };
        assert!(ids(Shape::default()).is_empty());
        let floats = hazards(
            &writers,
            Shape {
                float_columns: true,
                ..Shape::default()
            },
        );
        assert_eq!(floats.len(), 1, "one entry per hazard and writer");
        assert_eq!(floats[0].id, "nan-left-out-of-float-bounds");
        assert_eq!(floats[0].versions, [[0, 3], [5, 9]]);
        assert_eq!(
            ids(Shape {
                decimal_columns: true,
                escaped_stats_columns: true,
                stats_settings: true,
                ..Shape::default()
            }),
            [
                "decimal-bounds-through-double",
                "escaped-stats-columns-ignored",
                "stats-settings-ignored"
            ]
        );
        // Spark alone: none of these.
        assert!(
            hazards(
                &writers[1..2],
                Shape {
                    float_columns: true,
                    decimal_columns: true,
                    escaped_stats_columns: true,
                    stats_settings: true,
                }
            )
            .is_empty()
        );
    }
}
