//! A file's raw statistics, as the log records them (the `stats` JSON of its add action),
//! for the per-file view and the statistics gate. Pruning itself is the kernel's; this module
//! only reads what the same replay carried.

use serde_json::Value;

/// The parsed `stats` JSON of one file.
#[derive(Clone, Debug, Default)]
pub struct FileStats {
    pub num_records: Option<i64>,
    pub min_values: Value,
    pub max_values: Value,
    pub null_count: Value,
}

impl FileStats {
    /// Parses the stats JSON; `None` when the file has none or it is not JSON (an unreadable
    /// stats string prunes nothing in the kernel either).
    pub fn parse(json: Option<&str>) -> Option<Self> {
        let v: Value = serde_json::from_str(json?).ok()?;
        Some(Self {
            num_records: v.get("numRecords").and_then(Value::as_i64),
            min_values: v.get("minValues").cloned().unwrap_or(Value::Null),
            max_values: v.get("maxValues").cloned().unwrap_or(Value::Null),
            null_count: v.get("nullCount").cloned().unwrap_or(Value::Null),
        })
    }

    fn at<'a>(root: &'a Value, path: &[String]) -> Option<&'a Value> {
        path.iter()
            .try_fold(root, |v, part| v.get(part))
            .filter(|v| !v.is_null())
    }

    pub fn min(&self, path: &[String]) -> Option<&Value> {
        Self::at(&self.min_values, path)
    }

    pub fn max(&self, path: &[String]) -> Option<&Value> {
        Self::at(&self.max_values, path)
    }

    pub fn nulls(&self, path: &[String]) -> Option<i64> {
        Self::at(&self.null_count, path).and_then(Value::as_i64)
    }

    /// Whether the stats can bound the column: both bounds present, or a null count that says
    /// every row is NULL (then no bound is needed).
    pub fn covers(&self, path: &[String]) -> bool {
        (self.min(path).is_some() && self.max(path).is_some())
            || matches!((self.nulls(path), self.num_records), (Some(n), Some(r)) if n == r)
    }
}

/// `numRecords` of a statistics string without parsing the rest: writers put it first, so
/// this reads a few bytes per file where [`FileStats::parse`] reads them all. Falls back to
/// the full parse when the key is elsewhere or the value is not a plain integer.
pub fn num_records(stats: &str) -> Option<u64> {
    const KEY: &str = "\"numRecords\":";
    let head = stats.trim_start().strip_prefix('{')?.trim_start();
    if let Some(rest) = head.strip_prefix(KEY) {
        let rest = rest.trim_start();
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        let after = rest[digits..].trim_start();
        if digits > 0 && (after.starts_with(',') || after.starts_with('}')) {
            return rest[..digits].parse().ok();
        }
    }
    FileStats::parse(Some(stats))?
        .num_records
        .and_then(|n| u64::try_from(n).ok())
}

#[cfg(test)]
mod num_records_tests {
    use super::num_records;

    #[test]
    fn the_leading_count_is_read_and_anything_else_parsed() {
        assert_eq!(
            num_records(r#"{"numRecords":200,"minValues":{}}"#),
            Some(200)
        );
        assert_eq!(num_records(r#" { "numRecords" : 7 }"#), Some(7));
        assert_eq!(num_records(r#"{"minValues":{},"numRecords":5}"#), Some(5));
        assert_eq!(num_records(r#"{"numRecords":-1}"#), None);
        assert_eq!(num_records(r#"{"numRecords":1e3}"#), None);
        assert_eq!(num_records(r#"{"minValues":{}}"#), None);
        assert_eq!(num_records("not json"), None);
    }
}
