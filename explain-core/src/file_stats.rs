//! A file's raw statistics, as the log records them (the `stats` JSON of its add action),
//! for the per-file view and the statistics gate. Pruning itself is the kernel's; this module
//! only reads what the same replay carried.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt;

use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
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
        Self::parse_only(json, &StatsNeeds(Needed::Whole))
    }

    /// Parses the parts of the stats JSON that `needs` names, skipping the rest without
    /// building it: what a reader of a few columns pays for a file with hundreds. Equal to
    /// [`FileStats::parse`] at every path `needs` names, and `None` where it is `None` (a
    /// skipped part is still read as JSON).
    pub fn parse_only(json: Option<&str>, needs: &StatsNeeds) -> Option<Self> {
        let mut de = serde_json::Deserializer::from_str(json?);
        let v = Pick(&needs.0).deserialize(&mut de).ok()?;
        de.end().ok()?;
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

/// Each file's statistics (the `stats` JSONs of a table's files, in order), parsed once for
/// every reader that shares them: the parts `needs` names.
pub fn parse_each<'a>(
    jsons: impl Iterator<Item = Option<&'a str>>,
    needs: &StatsNeeds,
) -> Vec<Option<FileStats>> {
    jsons
        .map(|json| FileStats::parse_only(json, needs))
        .collect()
}

/// Which parts of a file's statistics a reader needs: `numRecords` always, and the bounds and
/// null counts at some statistics paths, or all of them.
#[derive(Clone, Debug)]
pub struct StatsNeeds(Needed);

/// A node of the statistics JSON: kept whole, or only the keys named below it.
#[derive(Clone, Debug)]
enum Needed {
    Whole,
    Keys(BTreeMap<String, Needed>),
}

impl Needed {
    /// What this node or `other` keeps.
    fn merge(&mut self, other: &Needed) {
        match (&mut *self, other) {
            (Needed::Whole, _) => {}
            (_, Needed::Whole) => *self = Needed::Whole,
            (Needed::Keys(mine), Needed::Keys(theirs)) => {
                for (key, below) in theirs {
                    match mine.get_mut(key) {
                        Some(kept) => kept.merge(below),
                        None => {
                            mine.insert(key.clone(), below.clone());
                        }
                    }
                }
            }
        }
    }

    fn insert(&mut self, path: &[String]) {
        let Needed::Keys(children) = self else {
            return; // kept whole already
        };
        match path.split_first() {
            None => *self = Needed::Whole,
            Some((first, rest)) => children
                .entry(first.clone())
                .or_insert_with(|| Needed::Keys(BTreeMap::new()))
                .insert(rest),
        }
    }
}

impl StatsNeeds {
    const SECTIONS: [&str; 3] = ["minValues", "maxValues", "nullCount"];

    /// The statistics of these columns (their statistics paths, physical names).
    pub fn columns<'a>(paths: impl IntoIterator<Item = &'a [String]>) -> Self {
        let mut sections = Needed::Keys(BTreeMap::new());
        for path in paths {
            sections.insert(path);
        }
        Self::with_sections(sections)
    }

    /// What `self` or `other` needs: for two readers of the same files' statistics, which
    /// then parse each file once.
    pub fn and(&self, other: &StatsNeeds) -> StatsNeeds {
        let mut both = self.0.clone();
        both.merge(&other.0);
        StatsNeeds(both)
    }

    /// Every column's statistics.
    pub fn all() -> Self {
        Self::with_sections(Needed::Whole)
    }

    fn with_sections(sections: Needed) -> Self {
        let mut top = BTreeMap::from([("numRecords".to_string(), Needed::Whole)]);
        for section in Self::SECTIONS {
            top.insert(section.to_string(), sections.clone());
        }
        Self(Needed::Keys(top))
    }
}

/// Deserializes the part of a JSON value that a [`Needed`] names: a kept node as a whole
/// `Value`; below a partly kept node, the named keys of an object (a key given twice keeps
/// its last value, as `Value` does) and `Null` for anything that is not an object, which no
/// path can look into either.
struct Pick<'n>(&'n Needed);

impl<'de> DeserializeSeed<'de> for Pick<'_> {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, de: D) -> Result<Value, D::Error> {
        match self.0 {
            Needed::Whole => serde::Deserialize::deserialize(de),
            Needed::Keys(keys) => de.deserialize_any(PickKeys(keys)),
        }
    }
}

struct PickKeys<'n>(&'n BTreeMap<String, Needed>);

impl<'de> Visitor<'de> for PickKeys<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = serde_json::Map::new();
        while let Some(key) = map.next_key_seed(Key)? {
            match self.0.get(key.as_ref()) {
                Some(needed) => {
                    let value = map.next_value_seed(Pick(needed))?;
                    out.insert(key.into_owned(), value);
                }
                None => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(Value::Object(out))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Value::Null)
    }

    fn visit_bool<E>(self, _: bool) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_i64<E>(self, _: i64) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_u64<E>(self, _: u64) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_f64<E>(self, _: f64) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_str<E>(self, _: &str) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
}

/// An object key, borrowed from the input unless it holds escapes.
struct Key;

impl<'de> DeserializeSeed<'de> for Key {
    type Value = Cow<'de, str>;

    fn deserialize<D: Deserializer<'de>>(self, de: D) -> Result<Self::Value, D::Error> {
        de.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for Key {
    type Value = Cow<'de, str>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a string")
    }
    fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(Cow::Borrowed(v))
    }
    fn visit_str<E>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Cow::Owned(v.to_string()))
    }
    fn visit_string<E>(self, v: String) -> Result<Self::Value, E> {
        Ok(Cow::Owned(v))
    }
}

/// `numRecords` of a statistics string without parsing the rest: writers put it first, so
/// this reads a few bytes per file where [`FileStats::parse`] reads them all. Falls back to
/// the full parse when the key is elsewhere or the value is not a plain integer.
pub fn num_records(stats: &str) -> Option<u64> {
    // Bytes, and JSON's ASCII whitespace: this runs once per file of every table.
    const KEY: &[u8] = b"\"numRecords\":";
    // Writers put the count first without spaces (`{"numRecords":123,...`): that form is
    // matched before any trimming.
    let bytes = stats.as_bytes();
    let rest = match bytes.strip_prefix(b"{\"numRecords\":") {
        Some(rest) => Some(rest),
        None => bytes
            .trim_ascii_start()
            .strip_prefix(b"{")?
            .trim_ascii_start()
            .strip_prefix(KEY),
    };
    if let Some(rest) = rest {
        let rest = rest.trim_ascii_start();
        let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
        let after = rest[digits..].trim_ascii_start();
        if digits > 0 && matches!(after.first(), Some(b',' | b'}')) {
            let fold = |n: u64, d: &u8| n.checked_mul(10)?.checked_add(u64::from(d - b'0'));
            return match digits {
                // Nineteen digits never pass `u64::MAX`: no check per digit.
                ..=19 => Some(
                    rest[..digits]
                        .iter()
                        .fold(0u64, |n, d| n * 10 + u64::from(d - b'0')),
                ),
                // `None` past `u64::MAX`, as `u64::from_str` reads them.
                _ => rest[..digits].iter().try_fold(0u64, fold),
            };
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
        assert_eq!(
            num_records(r#"{"numRecords":18446744073709551615}"#),
            Some(u64::MAX)
        );
        assert_eq!(num_records(r#"{"numRecords":18446744073709551616}"#), None);
        assert_eq!(num_records("\t\n{ \"numRecords\":007 }"), Some(7));
        assert_eq!(num_records(r#"{"minValues":{}}"#), None);
        assert_eq!(num_records("not json"), None);
    }

    #[test]
    fn counts_of_every_length_read_as_u64_from_str_reads_them() {
        for digits in [
            "0",
            "9999999999999999999",
            "10000000000000000000",
            "18446744073709551615",
            "18446744073709551616",
            "99999999999999999999",
            "00000000000000000000000000007",
            "000000000000000000000018446744073709551615",
        ] {
            assert_eq!(
                num_records(&format!(r#"{{"numRecords":{digits},"nullCount":{{}}}}"#)),
                digits.parse::<u64>().ok(),
                "{digits}"
            );
        }
        // A count the fast path cannot finish is left to the whole parse.
        assert_eq!(num_records(r#"{"numRecords":12"#), None);
        assert_eq!(num_records(r#"{"numRecords":12 ]"#), None);
    }
}

#[cfg(test)]
mod parse_only_tests {
    use super::{FileStats, StatsNeeds};

    fn path(p: &str) -> Vec<String> {
        p.split('.').map(str::to_string).collect()
    }

    const STATS: [&str; 9] = [
        r#"{"numRecords":3,"minValues":{"a":1,"b":"x","s":{"c":2.5,"d":[1]}},"maxValues":{"a":9,"b":"y","s":{"c":7.5}},"nullCount":{"a":0,"b":1,"s":{"c":0,"d":3}}}"#,
        r#"{"numRecords":3,"minValues":{"a":1,"a":4},"maxValues":{"a":9},"nullCount":{"a":3}}"#,
        r#"{"minValues":{"s":5},"maxValues":{"s":null},"nullCount":7,"tightBounds":true}"#,
        r#"{"numRecords":2,"minValues":{"a\u0062":1},"maxValues":{"ab":2}}"#,
        r#"{"numRecords":1,"minValues":{"a":1},"maxValues":{"a":1},"nullCount":{"a":0}} x"#,
        r#"{"numRecords":1,"minValues":{"a":1e400}}"#,
        r#"[1,2]"#,
        r#"not json"#,
        r#"{"numRecords":-5,"minValues":{"z":[{"y":1}]},"maxValues":{},"nullCount":{}}"#,
    ];

    #[test]
    fn the_named_columns_read_as_in_the_whole_parse() {
        let columns = [path("a"), path("ab"), path("s.c"), path("s.d"), path("z")];
        let needs = StatsNeeds::columns(columns.iter().map(Vec::as_slice));
        for json in STATS {
            let whole = FileStats::parse(Some(json));
            let part = FileStats::parse_only(Some(json), &needs);
            assert_eq!(whole.is_some(), part.is_some(), "{json}");
            let (Some(whole), Some(part)) = (whole, part) else {
                continue;
            };
            assert_eq!(whole.num_records, part.num_records, "{json}");
            for c in &columns {
                assert_eq!(whole.min(c), part.min(c), "{json} {c:?}");
                assert_eq!(whole.max(c), part.max(c), "{json} {c:?}");
                assert_eq!(whole.nulls(c), part.nulls(c), "{json} {c:?}");
                assert_eq!(whole.covers(c), part.covers(c), "{json} {c:?}");
            }
        }
        let all = StatsNeeds::all();
        for json in STATS {
            let whole = FileStats::parse(Some(json));
            let part = FileStats::parse_only(Some(json), &all);
            assert_eq!(
                whole.map(|w| (w.num_records, w.min_values, w.max_values, w.null_count)),
                part.map(|p| (p.num_records, p.min_values, p.max_values, p.null_count)),
                "{json}"
            );
        }
    }

    #[test]
    fn two_readers_needs_together_read_what_each_reads_alone() {
        // One reader wants a column whole, the other a field of it and another column: the
        // merged needs keep the whole column and both others.
        let one = [path("s"), path("a")];
        let other = [path("s.c"), path("b"), path("z")];
        let needs_one = StatsNeeds::columns(one.iter().map(Vec::as_slice));
        let needs_other = StatsNeeds::columns(other.iter().map(Vec::as_slice));
        for both in [needs_one.and(&needs_other), needs_other.and(&needs_one)] {
            for json in STATS {
                let merged = FileStats::parse_only(Some(json), &both);
                for (needs, columns) in [(&needs_one, &one[..]), (&needs_other, &other[..])] {
                    let alone = FileStats::parse_only(Some(json), needs);
                    assert_eq!(merged.is_some(), alone.is_some(), "{json}");
                    let (Some(merged), Some(alone)) = (&merged, alone) else {
                        continue;
                    };
                    assert_eq!(merged.num_records, alone.num_records, "{json}");
                    for c in columns {
                        assert_eq!(merged.min(c), alone.min(c), "{json} {c:?}");
                        assert_eq!(merged.max(c), alone.max(c), "{json} {c:?}");
                        assert_eq!(merged.nulls(c), alone.nulls(c), "{json} {c:?}");
                    }
                }
            }
        }
        // Nothing else is built.
        let json = r#"{"numRecords":1,"minValues":{"a":1,"q":2,"s":{"c":1,"e":2}}}"#;
        let merged = FileStats::parse_only(Some(json), &needs_one.and(&needs_other)).unwrap();
        assert_eq!(
            merged.min_values,
            serde_json::json!({"a": 1, "s": {"c": 1, "e": 2}})
        );
    }

    #[test]
    fn columns_not_named_are_skipped_unbuilt() {
        let needs = StatsNeeds::columns([path("a").as_slice()]);
        let json = r#"{"numRecords":1,"minValues":{"a":1,"b":{"c":2}},"maxValues":{"b":3}}"#;
        let part = FileStats::parse_only(Some(json), &needs).unwrap();
        assert_eq!(part.min_values, serde_json::json!({"a": 1}));
        assert_eq!(part.max_values, serde_json::json!({}));
        assert_eq!(part.null_count, serde_json::Value::Null);
        // A skipped part is still read as JSON.
        let broken = r#"{"numRecords":1,"minValues":{"a":1,"b":{"c":2,}}}"#;
        assert!(FileStats::parse(Some(broken)).is_none());
        assert!(FileStats::parse_only(Some(broken), &needs).is_none());
        assert!(FileStats::parse_only(None, &needs).is_none());
    }
}
