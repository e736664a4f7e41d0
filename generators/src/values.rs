//! Cell values: drawn deterministically from a seeded generator, laid out across files, with
//! the edge values readers get wrong mixed in on request.

use std::sync::Arc;

use arrow::array::{
    ArrayRef, BooleanArray, Date32Array, Decimal128Array, Float32Array, Float64Array, Int8Array,
    Int16Array, Int32Array, Int64Array, StringArray, StructArray, TimestampMicrosecondArray,
};
use arrow::datatypes::{DataType, Field, Fields, TimeUnit};
use rand::Rng;
use rand_chacha::ChaCha8Rng;

use crate::spec::{Kind, Layout};

/// One cell. Decimals are in hundredths (`decimal(10, 2)`), dates in days and timestamps in
/// microseconds since the epoch.
#[derive(Clone, Debug, PartialEq)]
pub enum Cell {
    Null,
    Int(i64),
    Float(f64),
    Decimal(i128),
    Str(String),
    Bool(bool),
    Date(i32),
    Micros(i64),
    Struct(Option<i32>, Option<String>),
}

/// 2021-01-01T00:00:00Z in microseconds.
const TS_BASE: i64 = 1_609_459_200_000_000;
const DAY_MICROS: i64 = 86_400_000_000;
/// 2020-01-01 in days.
const DATE_BASE: i32 = 18_262;

/// The part of the value range a file draws from, as `[lo, hi)` fractions of the domain.
pub fn window(layout: Layout, file: usize, files: usize, rng: &mut ChaCha8Rng) -> (f64, f64) {
    let n = files.max(1) as f64;
    match layout {
        Layout::Sorted => (file as f64 / n, (file + 1) as f64 / n),
        Layout::Clustered => {
            let width = (2.0 / n).min(1.0);
            let lo = rng.random_range(0.0..=(1.0 - width));
            (lo, lo + width)
        }
        Layout::Random => (0.0, 1.0),
    }
}

/// The value at fraction `u` of a kind's domain (monotone in `u`).
pub fn at_fraction(kind: Kind, u: f64, rng: &mut ChaCha8Rng) -> Cell {
    let u = u.clamp(0.0, 0.999_999);
    let span = |lo: i64, hi: i64| lo + ((hi - lo) as f64 * u) as i64;
    match kind {
        Kind::Int8 => Cell::Int(span(-100, 100)),
        Kind::Int16 | Kind::Int32 | Kind::Int64 => Cell::Int(span(-1000, 1000)),
        Kind::Float32 => Cell::Float(f64::from((-1000.0 + 2000.0 * u) as f32)),
        Kind::Float64 => Cell::Float(-1000.0 + 2000.0 * u),
        Kind::Decimal => Cell::Decimal(i128::from(span(-1_000_000, 1_000_000))),
        // 21 and more significant digits: a double keeps about 16 of them.
        Kind::WideDecimal => {
            Cell::Decimal(((-1000.0 + 2000.0 * u) * 1e18) as i128 + rng.random_range(1..1000))
        }
        Kind::String => Cell::Str(word(u)),
        Kind::Boolean => Cell::Bool(u >= 0.5),
        Kind::Date => Cell::Date(DATE_BASE + (1000.0 * u) as i32),
        // Sub-millisecond digits, so a max truncated to milliseconds is visibly wrong.
        Kind::Timestamp | Kind::TimestampNtz => Cell::Micros(
            TS_BASE + (1000.0 * u * DAY_MICROS as f64) as i64 + rng.random_range(0..1000),
        ),
        Kind::Struct => Cell::Struct(Some(span(-1000, 1000) as i32), Some(word(u))),
    }
}

/// A lowercase word whose order follows `u`.
fn word(u: f64) -> String {
    let mut x = u;
    let mut out = String::new();
    for _ in 0..4 {
        x *= 26.0;
        let d = x.floor().min(25.0);
        out.push(char::from(b'a' + d as u8));
        x -= d;
    }
    out
}

/// The edge values of a kind (pitfalls 2, 4, 6, 13).
pub fn specials(kind: Kind) -> Vec<Cell> {
    match kind {
        Kind::Int8 => vec![
            Cell::Int(i64::from(i8::MIN)),
            Cell::Int(i64::from(i8::MAX)),
            Cell::Int(0),
        ],
        Kind::Int16 => vec![
            Cell::Int(i64::from(i16::MIN)),
            Cell::Int(i64::from(i16::MAX)),
        ],
        Kind::Int32 => vec![
            Cell::Int(i64::from(i32::MIN)),
            Cell::Int(i64::from(i32::MAX)),
        ],
        Kind::Int64 => vec![Cell::Int(i64::MIN), Cell::Int(i64::MAX)],
        Kind::Float32 | Kind::Float64 => vec![
            Cell::Float(f64::NAN),
            Cell::Float(-0.0),
            Cell::Float(0.0),
            Cell::Float(f64::INFINITY),
            Cell::Float(f64::NEG_INFINITY),
        ],
        Kind::Decimal => vec![
            Cell::Decimal(99_999_999),
            Cell::Decimal(-99_999_999),
            Cell::Decimal(0),
        ],
        Kind::WideDecimal => vec![
            Cell::Decimal(1_000_000_000_000_000_001),
            Cell::Decimal(-1_000_000_000_000_000_001),
            Cell::Decimal(0),
            Cell::Decimal(999_999_999_999_999_999_999),
        ],
        Kind::String => vec![
            Cell::Str(String::new()),
            Cell::Str("\u{7F}".into()),
            Cell::Str("\u{10FFFF}".into()),
            Cell::Str(format!("long{}", "z".repeat(40))),
            Cell::Str("50%_off".into()),
        ],
        Kind::Boolean => vec![Cell::Bool(true), Cell::Bool(false)],
        Kind::Date => vec![Cell::Date(0), Cell::Date(2_932_896)],
        // The epoch, a value with microseconds, and the first and last microsecond of years 1
        // to 9999 (beyond the nanoseconds DataFusion casts timestamps to).
        Kind::Timestamp | Kind::TimestampNtz => vec![
            Cell::Micros(0),
            Cell::Micros(TS_BASE + 999),
            Cell::Micros(-62_135_596_800_000_000),
            Cell::Micros(253_402_300_799_999_999),
        ],
        Kind::Struct => vec![
            Cell::Struct(None, Some(String::new())),
            Cell::Struct(Some(i32::MAX), None),
        ],
    }
}

/// The rows of one column of one file.
pub fn column_cells(
    kind: Kind,
    rows: usize,
    window: (f64, f64),
    null_fraction: f64,
    special_values: bool,
    rng: &mut ChaCha8Rng,
) -> Vec<Cell> {
    let edges = specials(kind);
    (0..rows)
        .map(|_| {
            if rng.random_bool(null_fraction.clamp(0.0, 1.0)) {
                return Cell::Null;
            }
            if special_values && rng.random_bool(0.1) {
                return edges[rng.random_range(0..edges.len())].clone();
            }
            let u = rng.random_range(window.0..window.1.max(window.0 + f64::EPSILON));
            at_fraction(kind, u, rng)
        })
        .collect()
}

/// Precision and scale of a decimal kind.
pub fn decimal_shape(kind: Kind) -> (u8, i8) {
    if kind == Kind::WideDecimal {
        (38, 18)
    } else {
        (10, 2)
    }
}

/// `cell` of a `from` column as the same value of a `to` column, for the widenings of
/// [`crate::spec::Widening`] and back: integers and floats keep their value, a decimal moves to
/// the other scale, a date is its midnight as a timestamp_ntz (and a timestamp at midnight its
/// date). A value the other kind cannot hold exactly is NULL.
pub fn convert_cell(from: Kind, to: Kind, cell: &Cell) -> Cell {
    let decimal = |k: Kind| matches!(k, Kind::Decimal | Kind::WideDecimal);
    match cell {
        Cell::Decimal(v) if decimal(from) && decimal(to) => {
            let (s1, s2) = (decimal_shape(from).1, decimal_shape(to).1);
            let shift = 10i128.pow(s1.abs_diff(s2) as u32);
            if s2 >= s1 {
                v.checked_mul(shift).map_or(Cell::Null, Cell::Decimal)
            } else if v % shift == 0 {
                Cell::Decimal(v / shift)
            } else {
                Cell::Null
            }
        }
        Cell::Date(d) if to == Kind::TimestampNtz => Cell::Micros(i64::from(*d) * 86_400_000_000),
        Cell::Micros(m) if to == Kind::Date => match i32::try_from(m / 86_400_000_000) {
            Ok(d) if m % 86_400_000_000 == 0 => Cell::Date(d),
            _ => Cell::Null,
        },
        Cell::Int(v) if to.is_float() => Cell::Float(*v as f64),
        Cell::Float(f)
            if to.is_number()
                && !to.is_float()
                && !matches!(to, Kind::Decimal | Kind::WideDecimal) =>
        {
            if f.fract() == 0.0 && f.abs() < 9.2e18 {
                Cell::Int(*f as i64)
            } else {
                Cell::Null
            }
        }
        other => other.clone(),
    }
}

/// `unscaled * 10^-scale` as exact decimal text.
pub fn decimal_text(unscaled: i128, scale: u32) -> String {
    let digits = unscaled.unsigned_abs().to_string();
    let width = scale as usize + 1;
    let padded = format!("{digits:0>width$}");
    let (int, frac) = padded.split_at(padded.len() - scale as usize);
    let sign = if unscaled < 0 { "-" } else { "" };
    if frac.is_empty() {
        format!("{sign}{int}")
    } else {
        format!("{sign}{int}.{frac}")
    }
}

/// Applies the value quirks of a spec to a column's cells: the sign bit on NaN, a
/// supplementary character inside strings.
pub fn apply_quirks(kind: Kind, cells: &mut [Cell], quirks: &crate::spec::Quirks) {
    for (i, cell) in cells.iter_mut().enumerate() {
        match cell {
            Cell::Float(v) if quirks.negative_nan && v.is_nan() => *v = -f64::NAN,
            Cell::Str(s) if kind == Kind::String => {
                if let Some(at) = quirks.supplementary_at {
                    let cut = s.char_indices().nth(at).map_or(s.len(), |(i, _)| i);
                    s.insert(cut, '\u{1F33C}');
                }
                if let Some(n) = quirks.char_length {
                    let kept: String = s.chars().take(n).collect();
                    *s = format!("{kept:<n$}");
                }
                if quirks.collation.is_some() && i % 2 == 0 {
                    *s = s.to_uppercase();
                }
                if quirks.backslashes && !s.is_empty() {
                    let cut = s.char_indices().nth(1).map_or(s.len(), |(i, _)| i);
                    match i % 3 {
                        0 => s.insert(cut, '\\'),
                        1 => s.insert(cut, '\t'),
                        _ => {}
                    }
                }
            }
            _ => {}
        }
    }
}

/// A float partition value of the signed-zero quirk: slots 0 to 2 spell zero as Spark
/// (`-0.0`), delta-rs (`0`) and delta-rs for a negative zero (`-0`); later slots as usual.
pub fn signed_zero_partition_text(slot: usize) -> Option<&'static str> {
    ["-0.0", "0", "-0"].get(slot).copied()
}

/// A partition value of a spec's column: [`partition_text`], or zero as writers spell it
/// under the signed-zero quirk.
pub fn partition_value_text(spec: &crate::spec::TableSpec, kind: Kind, slot: usize) -> String {
    match signed_zero_partition_text(slot) {
        Some(zero) if spec.quirks.signed_zero_partitions && kind.is_float() => zero.to_string(),
        _ if spec.quirks.backslashes && kind == Kind::String => {
            let mut cells = [Cell::Str(partition_text(kind, slot))];
            let mut turn = [Cell::Null, Cell::Null, Cell::Null];
            // The slot takes the turn its index would take among cells.
            turn[slot % 3] = cells[0].clone();
            apply_quirks(kind, &mut turn, &spec.quirks);
            cells[0] = turn[slot % 3].clone();
            match &cells[0] {
                Cell::Str(s) => s.clone(),
                _ => partition_text(kind, slot),
            }
        }
        _ => match writer_decimal_spelling(slot) {
            Some((text, _)) if spec.quirks.writer_partition_spellings && kind == Kind::Decimal => {
                text.to_string()
            }
            _ => partition_text(kind, slot),
        },
    }
}

/// A decimal partition value of the writer-spellings quirk, with the number it means: slot 1
/// is 2.50 written `2.5`, slot 2 is -0.25 written `0.-25`; later slots as usual.
pub fn writer_decimal_spelling(slot: usize) -> Option<(&'static str, &'static str)> {
    match slot {
        1 => Some(("2.5", "2.50")),
        2 => Some(("0.-25", "-0.25")),
        _ => None,
    }
}

/// The Arrow type a kind is written as.
pub fn arrow_type(kind: Kind) -> DataType {
    match kind {
        Kind::Int8 => DataType::Int8,
        Kind::Int16 => DataType::Int16,
        Kind::Int32 => DataType::Int32,
        Kind::Int64 => DataType::Int64,
        Kind::Float32 => DataType::Float32,
        Kind::Float64 => DataType::Float64,
        Kind::Decimal => DataType::Decimal128(10, 2),
        Kind::WideDecimal => DataType::Decimal128(38, 18),
        Kind::String => DataType::Utf8,
        Kind::Boolean => DataType::Boolean,
        Kind::Date => DataType::Date32,
        Kind::Timestamp => DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into())),
        Kind::TimestampNtz => DataType::Timestamp(TimeUnit::Microsecond, None),
        Kind::Struct => DataType::Struct(struct_fields()),
    }
}

fn struct_fields() -> Fields {
    Fields::from(vec![
        Field::new("a", DataType::Int32, true),
        Field::new("b", DataType::Utf8, true),
    ])
}

/// The cells of a column as an Arrow array of the kind's type: a cell of another kind is NULL.
pub fn to_array(kind: Kind, cells: &[Cell]) -> ArrayRef {
    let of = |pick: fn(&Cell) -> Option<i64>| cells.iter().map(pick);
    let int = |c: &Cell| if let Cell::Int(v) = c { Some(*v) } else { None };
    let float = |c: &Cell| {
        if let Cell::Float(v) = c {
            Some(*v)
        } else {
            None
        }
    };
    match kind {
        Kind::Int8 => Arc::new(of(int).map(|v| v.map(|v| v as i8)).collect::<Int8Array>()),
        Kind::Int16 => Arc::new(of(int).map(|v| v.map(|v| v as i16)).collect::<Int16Array>()),
        Kind::Int32 => Arc::new(of(int).map(|v| v.map(|v| v as i32)).collect::<Int32Array>()),
        Kind::Int64 => Arc::new(of(int).collect::<Int64Array>()),
        Kind::Float32 => Arc::new(
            cells
                .iter()
                .map(|c| float(c).map(|v| v as f32))
                .collect::<Float32Array>(),
        ),
        Kind::Float64 => Arc::new(cells.iter().map(float).collect::<Float64Array>()),
        Kind::Decimal | Kind::WideDecimal => {
            let (precision, scale) = decimal_shape(kind);
            Arc::new(
                cells
                    .iter()
                    .map(|c| {
                        if let Cell::Decimal(v) = c {
                            Some(*v)
                        } else {
                            None
                        }
                    })
                    .collect::<Decimal128Array>()
                    .with_precision_and_scale(precision, scale)
                    .expect("the decimal kinds' shapes are valid"),
            )
        }
        Kind::String => Arc::new(
            cells
                .iter()
                .map(|c| {
                    if let Cell::Str(v) = c {
                        Some(v.as_str())
                    } else {
                        None
                    }
                })
                .collect::<StringArray>(),
        ),
        Kind::Boolean => Arc::new(
            cells
                .iter()
                .map(|c| {
                    if let Cell::Bool(v) = c {
                        Some(*v)
                    } else {
                        None
                    }
                })
                .collect::<BooleanArray>(),
        ),
        Kind::Date => Arc::new(
            cells
                .iter()
                .map(|c| {
                    if let Cell::Date(v) = c {
                        Some(*v)
                    } else {
                        None
                    }
                })
                .collect::<Date32Array>(),
        ),
        Kind::Timestamp | Kind::TimestampNtz => {
            let array = cells
                .iter()
                .map(|c| {
                    if let Cell::Micros(v) = c {
                        Some(*v)
                    } else {
                        None
                    }
                })
                .collect::<TimestampMicrosecondArray>();
            Arc::new(if kind == Kind::Timestamp {
                array.with_timezone("UTC")
            } else {
                array
            })
        }
        Kind::Struct => struct_array(cells),
    }
}

/// Struct cells as the struct column of [`struct_fields`].
fn struct_array(cells: &[Cell]) -> ArrayRef {
    let a: Int32Array = cells
        .iter()
        .map(|c| if let Cell::Struct(a, _) = c { *a } else { None })
        .collect();
    let b: StringArray = cells
        .iter()
        .map(|c| {
            if let Cell::Struct(_, b) = c {
                b.clone()
            } else {
                None
            }
        })
        .collect();
    let nulls: Vec<bool> = cells.iter().map(|c| !matches!(c, Cell::Null)).collect();
    Arc::new(
        StructArray::try_new(
            struct_fields(),
            vec![Arc::new(a), Arc::new(b)],
            Some(nulls.into()),
        )
        .expect("struct arrays line up"),
    )
}

/// A partition value of a kind: the `slot`-th of its distinct values, as the log writes it.
pub fn partition_text(kind: Kind, slot: usize) -> String {
    let s = slot as i64;
    match kind {
        Kind::Int8 | Kind::Int16 | Kind::Int32 | Kind::Int64 => (s * 7 - 3).to_string(),
        Kind::Float32 | Kind::Float64 => format!("{}", s as f64 * 1.5 - 1.0),
        Kind::Decimal => format!("{}.{:02}", s, (s * 13) % 100),
        Kind::WideDecimal => decimal_text(
            i128::from(s) * 1_000_000_000_000_000_000 + i128::from(s),
            18,
        ),
        Kind::String => format!("p{s}"),
        Kind::Boolean => (slot % 2 == 1).to_string(),
        Kind::Date => format!("2021-01-{:02}", 1 + slot % 28),
        Kind::Timestamp | Kind::TimestampNtz => {
            format!("2021-01-{:02} 12:30:00.{:06}", 1 + slot % 28, slot * 1001)
        }
        Kind::Struct => unreachable!("struct columns are never partition columns"),
    }
}
