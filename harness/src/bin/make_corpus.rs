//! `make-corpus [FIXTURES]`: writes `corpora/<table>.txt` for every shared fixture, from the
//! table's own values (min, a middle value, max of each column), read by the oracle. The
//! output is deterministic; rerun it when the fixtures change and review the diff.

use std::fmt::Write as _;

use arrow::array::Array;
use datafusion::scalar::ScalarValue;
use harness::corpus::corpus_path;
use oracle::log::Snapshot;
use oracle::read::read_file;

/// A SQL literal both front ends read as exactly this value; `None` for values no literal
/// denotes exactly (NaN, infinities, nested values).
fn literal(v: &ScalarValue) -> Option<String> {
    Some(match v {
        ScalarValue::Int8(Some(x)) => x.to_string(),
        ScalarValue::Int16(Some(x)) => x.to_string(),
        ScalarValue::Int32(Some(x)) => x.to_string(),
        ScalarValue::Int64(Some(x)) => x.to_string(),
        ScalarValue::Float32(Some(x)) if x.is_finite() => {
            generators::predicates::exact_decimal(f64::from(*x))
        }
        ScalarValue::Float64(Some(x)) if x.is_finite() => format!("{x:?}"),
        ScalarValue::Decimal128(Some(x), _, scale) => {
            let s = *scale as u32;
            let sign = if *x < 0 { "-" } else { "" };
            let abs = x.unsigned_abs();
            if s == 0 {
                format!("{sign}{abs}")
            } else {
                format!(
                    "{sign}{}.{:0width$}",
                    abs / 10u128.pow(s),
                    abs % 10u128.pow(s),
                    width = s as usize
                )
            }
        }
        ScalarValue::Utf8(Some(x)) => format!("'{}'", x.replace('\'', "''")),
        ScalarValue::Boolean(Some(x)) => {
            if *x {
                "TRUE".into()
            } else {
                "FALSE".into()
            }
        }
        ScalarValue::Date32(Some(d)) => format!("DATE '{}'", generators::stats::format_date(*d)),
        ScalarValue::TimestampMicrosecond(Some(t), _) => {
            format!(
                "'{}'",
                generators::stats::format_micros(*t, false).replacen('T', " ", 1)
            )
        }
        _ => return None,
    })
}

fn main() {
    let fixtures = std::env::args()
        .nth(1)
        .map(std::path::PathBuf::from)
        .unwrap_or_else(testkit::fixtures_location);
    let mut tables = vec![fixtures.join("taxi-nyc")];
    let mut real: Vec<_> = std::fs::read_dir(fixtures.join("real"))
        .expect("fixtures/real")
        .map(|e| e.unwrap().path())
        .collect();
    real.sort();
    tables.extend(real);
    for table in tables {
        let location = table.to_string_lossy().into_owned();
        let snapshot = Snapshot::open(&location, None).expect("the fixture replays");
        let schema = oracle::delta_schema::arrow_schema(&snapshot.fields);
        let mut values: Vec<Vec<ScalarValue>> = vec![Vec::new(); schema.fields().len()];
        for file in &snapshot.files {
            for batch in read_file(&snapshot, file, None)
                .expect("the fixture reads")
                .batches
            {
                for (c, column) in batch.columns().iter().enumerate() {
                    for i in 0..column.len() {
                        values[c].push(ScalarValue::try_from_array(column, i).expect("a value"));
                    }
                }
            }
        }
        let name = table.file_name().unwrap().to_string_lossy().into_owned();
        let mut out = format!(
            "# Predicates over `{name}`, from its own values (harness/src/bin/make_corpus.rs).\n"
        );
        let mut picked: Vec<(String, Vec<String>)> = Vec::new();
        for (c, field) in schema.fields().iter().enumerate() {
            let mut distinct: Vec<&ScalarValue> =
                values[c].iter().filter(|v| !v.is_null()).collect();
            distinct.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
            distinct.dedup();
            let lits: Vec<String> = [
                distinct.first(),
                distinct.get(distinct.len() / 2),
                distinct.last(),
            ]
            .into_iter()
            .flatten()
            .filter_map(|v| literal(v))
            .collect();
            let col = format!("\"{}\"", field.name());
            if matches!(
                field.data_type(),
                arrow::datatypes::DataType::Struct(_)
                    | arrow::datatypes::DataType::List(_)
                    | arrow::datatypes::DataType::Map(_, _)
                    | arrow::datatypes::DataType::Binary
            ) {
                continue;
            }
            let _ = writeln!(out, "{col} IS NULL\n{col} IS NOT NULL");
            for lit in &lits {
                for op in ["=", "!=", "<", "<=", ">", ">="] {
                    let _ = writeln!(out, "{col} {op} {lit}");
                }
            }
            if lits.len() >= 2 {
                let _ = writeln!(
                    out,
                    "{col} BETWEEN {} AND {}",
                    lits[0],
                    lits[lits.len() - 1]
                );
                let _ = writeln!(out, "{col} IN ({}, {})", lits[0], lits[1]);
                let _ = writeln!(out, "NOT ({col} = {} OR {col} IS NULL)", lits[1]);
            }
            if let (Some(first), arrow::datatypes::DataType::Utf8) =
                (lits.first(), field.data_type())
            {
                let prefix: String = first
                    .trim_matches('\'')
                    .chars()
                    .take(2)
                    .collect::<String>()
                    .replace(['%', '_', '\''], "");
                if !prefix.is_empty() {
                    let _ = writeln!(out, "{col} LIKE '{prefix}%'\n{col} NOT LIKE '%{prefix}%'");
                }
            }
            picked.push((col, lits));
        }
        // Pairs of neighbouring columns under AND and OR.
        for pair in picked.windows(2) {
            let ((a, la), (b, lb)) = (&pair[0], &pair[1]);
            if let (Some(x), Some(y)) = (la.last(), lb.first()) {
                let _ = writeln!(
                    out,
                    "{a} >= {x} AND {b} <= {y}\n{a} < {x} OR {b} > {y}\nNOT ({a} >= {x} AND {b} IS NOT NULL)"
                );
            }
        }
        let path = corpus_path(&name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, out).unwrap();
        eprintln!("wrote {}", path.display());
    }
}
