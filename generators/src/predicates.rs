//! Predicates over a generated table: proptest strategies (with shrinking) and an arbtest entry
//! point, both drawing literals from the table's actual values and their boundaries (min, max,
//! just inside, just outside), and covering every construct of the owned AST, unsupported ones
//! included, to a bounded depth. Predicates are rendered as SQL both front ends read
//! (explain-core's sqlparser and the oracle's DataFusion).

use std::sync::Arc;

use explain_compiler::ast::{CmpOp, ColumnRef, Literal, Operand, Predicate, TypedLiteralKind};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};

use crate::spec::{Kind, TableSpec};
use crate::stats::format_date;
use crate::values::Cell;
use crate::writer::WrittenTable;

/// The literals a predicate may compare one column with.
#[derive(Clone, Debug)]
pub struct ColumnPool {
    pub column: ColumnRef,
    pub kind: Kind,
    pub literals: Vec<Literal>,
}

/// Every column's pool (struct columns contribute their leaves).
#[derive(Clone, Debug)]
pub struct Pools {
    pub columns: Vec<ColumnPool>,
    /// The struct columns themselves, for `st IS [NOT] NULL` (their fields are pools of
    /// `columns`): a NULL struct has every leaf NULL, which the explainer prunes by.
    pub structs: Vec<ColumnRef>,
}

fn timestamp_text(micros: i64) -> String {
    // `YYYY-MM-DD HH:MM:SS.ffffff`, read as UTC by both front ends.
    crate::stats::format_micros(micros, false).replacen('T', " ", 1)
}

/// A cell as a literal of its column, `None` when no literal both front ends read can denote
/// it exactly (infinities).
pub fn literal_of(kind: Kind, cell: &Cell) -> Option<Literal> {
    Some(match cell {
        Cell::Int(v) => Literal::Number(v.to_string()),
        Cell::Float(v) if v.is_nan() => Literal::String("NaN".into()),
        Cell::Float(v) if v.is_infinite() => return None,
        Cell::Float(v) => Literal::Number(if kind == Kind::Float32 {
            exact_decimal(f64::from(*v as f32))
        } else {
            format!("{v:?}")
        }),
        Cell::Decimal(v) if kind == Kind::WideDecimal => {
            Literal::Number(crate::values::decimal_text(*v, 18))
        }
        Cell::Decimal(v) => {
            let sign = if *v < 0 { "-" } else { "" };
            Literal::Number(format!("{sign}{}.{:02}", v.abs() / 100, v.abs() % 100))
        }
        Cell::Str(s) => Literal::String(s.clone()),
        Cell::Bool(b) => Literal::Boolean(*b),
        Cell::Date(d) => Literal::Typed {
            kind: TypedLiteralKind::Date,
            text: format_date(*d),
        },
        Cell::Micros(t) => Literal::String(timestamp_text(*t)),
        Cell::Null | Cell::Struct(..) => return None,
    })
}

/// The exact decimal expansion of a binary float (every finite float has one): an f32 column
/// compared with its shortest repr would compare in double precision against a different
/// number, so the literal names the f32 value exactly.
pub fn exact_decimal(v: f64) -> String {
    let text = format!("{v:.160}");
    let text = text.trim_end_matches('0');
    text.strip_suffix('.')
        .map_or_else(|| text.to_string(), |t| format!("{t}.0"))
}

/// Values around `cells`' extremes: min, max, one unit inside and outside each.
fn boundaries(kind: Kind, cells: &[Cell]) -> Vec<Cell> {
    let mut out = Vec::new();
    let ints: Vec<i64> = cells
        .iter()
        .filter_map(|c| if let Cell::Int(v) = c { Some(*v) } else { None })
        .collect();
    let (lo_limit, hi_limit) = match kind {
        Kind::Int8 => (i64::from(i8::MIN), i64::from(i8::MAX)),
        Kind::Int16 => (i64::from(i16::MIN), i64::from(i16::MAX)),
        Kind::Int32 => (i64::from(i32::MIN), i64::from(i32::MAX)),
        _ => (i64::MIN, i64::MAX),
    };
    if let (Some(lo), Some(hi)) = (ints.iter().min(), ints.iter().max()) {
        for v in [
            lo.saturating_sub(1),
            *lo,
            lo.saturating_add(1),
            hi.saturating_sub(1),
            *hi,
            hi.saturating_add(1),
        ] {
            out.push(Cell::Int(v.clamp(lo_limit, hi_limit)));
        }
    }
    let floats: Vec<f64> = cells
        .iter()
        .filter_map(|c| {
            if let Cell::Float(v) = c {
                v.is_finite().then_some(*v)
            } else {
                None
            }
        })
        .collect();
    if let (Some(lo), Some(hi)) = (
        floats.iter().copied().reduce(f64::min),
        floats.iter().copied().reduce(f64::max),
    ) {
        let step = |v: f64, up: bool| {
            if kind == Kind::Float32 {
                let f = v as f32;
                f64::from(if up { f.next_up() } else { f.next_down() })
            } else if up {
                v.next_up()
            } else {
                v.next_down()
            }
        };
        for v in [
            step(lo, false),
            lo,
            step(lo, true),
            step(hi, false),
            hi,
            step(hi, true),
        ] {
            out.push(Cell::Float(v));
        }
    }
    let strings: Vec<&String> = cells
        .iter()
        .filter_map(|c| if let Cell::Str(s) = c { Some(s) } else { None })
        .collect();
    if let (Some(lo), Some(hi)) = (strings.iter().min(), strings.iter().max()) {
        out.push(Cell::Str((*lo).clone()));
        out.push(Cell::Str((*hi).clone()));
        out.push(Cell::Str(format!("{hi}a")));
        out.push(Cell::Str(lo.chars().take(2).collect()));
    }
    let dates: Vec<i32> = cells
        .iter()
        .filter_map(|c| {
            if let Cell::Date(v) = c {
                Some(*v)
            } else {
                None
            }
        })
        .collect();
    if let (Some(lo), Some(hi)) = (dates.iter().min(), dates.iter().max()) {
        // Only dates of four-digit years: 0001-01-01 ..= 9999-12-31.
        out.extend(
            [lo - 1, *lo, *hi, hi + 1]
                .into_iter()
                .filter(|d| (-719_162..=2_932_896).contains(d))
                .map(Cell::Date),
        );
    }
    let times: Vec<i64> = cells
        .iter()
        .filter_map(|c| {
            if let Cell::Micros(v) = c {
                Some(*v)
            } else {
                None
            }
        })
        .collect();
    if let (Some(lo), Some(hi)) = (times.iter().min(), times.iter().max()) {
        // Only timestamps of four-digit years: 0001-01-01 00:00:00 ..= 9999-12-31
        // 23:59:59.999999.
        out.extend(
            [lo - 1, *lo, *hi, hi + 1, (hi / 1000) * 1000]
                .into_iter()
                .filter(|t| (-62_135_596_800_000_000..=253_402_300_799_999_999).contains(t))
                .map(Cell::Micros),
        );
    }
    out
}

/// Distinct literals from up to `sample` cells plus the boundaries.
fn pool(kind: Kind, cells: &[Cell], sample: usize) -> Vec<Literal> {
    let step = (cells.len() / sample.max(1)).max(1);
    let mut picked: Vec<Cell> = cells.iter().step_by(step).cloned().collect();
    picked.extend(boundaries(kind, cells));
    let mut out: Vec<Literal> = Vec::new();
    for c in &picked {
        if let Some(l) = literal_of(kind, c)
            && !out.contains(&l)
        {
            out.push(l);
        }
    }
    for l in edge_literals(kind, &out) {
        if !out.contains(&l) {
            out.push(l);
        }
    }
    out
}

/// Spellings and values readers get wrong (pitfalls 22, 24-26): the same numbers in exponent
/// notation, literals beyond a type's range or precision, both zeros and NaN on float columns,
/// strings with a supplementary character or U+FFFD where a truncated max would cut them.
fn edge_literals(kind: Kind, pool: &[Literal]) -> Vec<Literal> {
    let number = |t: &str| Literal::Number(t.to_string());
    let mut out: Vec<Literal> = pool
        .iter()
        .filter_map(|l| match l {
            Literal::Number(t) => exponent_spelling(t).map(Literal::Number),
            _ => None,
        })
        .take(2)
        .collect();
    match kind {
        Kind::Int8 | Kind::Int16 | Kind::Int32 | Kind::Int64 => {
            out.extend(["1e30", "-1e30", "2.5", "-0.5"].map(number));
            out.extend(engine_readings(pool, true, false));
        }
        Kind::Decimal | Kind::WideDecimal => {
            // One digit past the scale, and beyond the precision.
            out.extend(["0.0000000000000000001", "-1.0000000000000000005", "1e40"].map(number));
            out.extend(engine_readings(pool, false, false));
        }
        Kind::Float32 | Kind::Float64 => {
            out.extend(["-0.0", "0.0", "0", "1e300", "-1e-300", "0.1"].map(number));
            out.push(Literal::String("NaN".into()));
        }
        Kind::String => {
            let base = pool.iter().find_map(|l| {
                if let Literal::String(s) = l {
                    Some(s.clone())
                } else {
                    None
                }
            });
            if let Some(base) = base {
                let cut = base.char_indices().nth(3).map_or(base.len(), |(i, _)| i);
                let (head, tail) = base.split_at(cut);
                out.push(Literal::String(format!("{head}\u{1F33C}{tail}")));
                out.push(Literal::String(format!("{head}\u{FFFD}")));
            }
        }
        Kind::Boolean | Kind::Date | Kind::Timestamp | Kind::TimestampNtz | Kind::Struct => {}
    }
    out
}

/// Literals the engines read otherwise than as the number they spell (pitfalls 26, 28),
/// around values of the pool: a double token that rounds onto a value (`4.0000000000000001e0`,
/// and the next integer spelled with an exponent, which beyond 2^53 is no double), and quoted
/// numbers past the column's grid (`'4.5'`, `'-4.5'`, `'4.4'` on an integer column; one more
/// digit than the scale on a decimal), which Spark cuts toward zero, DuckDB rounds half away
/// from zero and Spark with ANSI on refuses.
///
/// The sampled pools take the double tokens (`quoted: false`); the quoted numbers are drawn by
/// the engine-backed checks alone (`quoted: true`), since the oracle's model evaluator runs
/// the DataFusion reading, which refuses a quoted fraction against an integer column.
pub fn engine_readings(pool: &[Literal], integer: bool, quoted: bool) -> Vec<Literal> {
    let mut out = Vec::new();
    for t in pool
        .iter()
        .filter_map(|l| match l {
            Literal::Number(t) if !t.contains(['e', 'E']) => Some(t),
            _ => None,
        })
        .take(2)
    {
        out.push(Literal::Number(if t.contains('.') {
            format!("{t}00000000000000001e0")
        } else {
            format!("{t}.0000000000000001e0")
        }));
        if integer && let Some(next) = t.parse::<i64>().ok().and_then(|v| v.checked_add(1)) {
            out.push(Literal::Number(format!("{next}e0")));
        }
        if !quoted {
            continue;
        }
        if integer {
            let (sign, body) = t.strip_prefix('-').map_or(("", t.as_str()), |b| ("-", b));
            out.push(Literal::String(format!("{sign}{body}.5")));
            out.push(Literal::String(format!("-{body}.5")));
            out.push(Literal::String(format!("{sign}{body}.4")));
            out.push(Literal::String(t.clone()));
        } else if t.contains('.') {
            out.push(Literal::String(format!("{t}5")));
            out.push(Literal::String(format!("{t}4")));
        }
    }
    out
}

/// Literals of a type the column cannot hold, or in a spelling only Spark reads (issue class
/// 7), as SQL text, around values of the pool: Spark's suffixed numbers (`2Y`, `2S`, `2L`,
/// `1.5D`, `1.5F`, `1.0BD`), booleans and words against numbers, numbers against strings and
/// dates, double-quoted strings, timestamps against dates (at midnight and within the day),
/// dates and `T10` or ` UTC` shapes against timestamps. Spark with ANSI off runs nearly all of them; the
/// engine-backed checks hold the explainer's reading of each to the engines'.
pub fn mistyped_literals(pool: &[Literal], kind: Kind) -> Vec<String> {
    let numbers: Vec<&str> = pool
        .iter()
        .filter_map(|l| match l {
            Literal::Number(t) if !t.contains(['e', 'E']) => Some(t.as_str()),
            _ => None,
        })
        .take(2)
        .collect();
    let texts: Vec<&str> = pool
        .iter()
        .filter_map(|l| match l {
            Literal::String(t) | Literal::Typed { text: t, .. } => Some(t.as_str()),
            _ => None,
        })
        .take(2)
        .collect();
    let mut out: Vec<String> = Vec::new();
    match kind {
        Kind::Int8 | Kind::Int16 | Kind::Int32 | Kind::Int64 => {
            for n in &numbers {
                let magnitude = n.trim_start_matches('-');
                let sign = if n.starts_with('-') { "-" } else { "" };
                for suffix in ["Y", "S", "L", "D", "F", "BD"] {
                    out.push(format!("{sign}{magnitude}{suffix}"));
                }
                out.push(format!("{sign}{magnitude}.5D"));
            }
            out.extend(["TRUE", "FALSE", "'abc'", "DATE '2024-01-03'"].map(String::from));
        }
        Kind::Float32 | Kind::Float64 | Kind::Decimal | Kind::WideDecimal => {
            for n in &numbers {
                let magnitude = n.trim_start_matches('-');
                let sign = if n.starts_with('-') { "-" } else { "" };
                for suffix in ["D", "F", "BD"] {
                    out.push(format!("{sign}{magnitude}{suffix}"));
                }
            }
            out.extend(["TRUE", "FALSE", "'abc'", "'NaN'"].map(String::from));
        }
        Kind::String => {
            out.extend(["5", "TRUE", "DATE '2024-01-03'"].map(String::from));
            // Double quotes: a string in Spark, a column name in DuckDB and DataFusion.
            out.extend(
                texts
                    .iter()
                    .map(|t| format!("\"{}\"", t.replace('"', "\"\""))),
            );
            // A backslash-escaped quote inside a string: Spark's string, refused by the others.
            out.extend(
                texts
                    .iter()
                    .map(|t| format!("'{}\\'s'", t.replace('\'', "''"))),
            );
        }
        Kind::Boolean => out.extend(["1", "'true'"].map(String::from)),
        Kind::Date => {
            for d in &texts {
                let day = d.get(..10).unwrap_or(d);
                out.push(format!("TIMESTAMP '{day} 00:00:00'"));
                out.push(format!("TIMESTAMP '{day} 10:30:00'"));
                out.push(format!("'{day} 10:30:00'"));
            }
            out.push("5".into());
        }
        Kind::Timestamp | Kind::TimestampNtz => {
            for t in &texts {
                let day = t.get(..10).unwrap_or(t);
                out.push(format!("DATE '{day}'"));
                out.push(format!("'{day}T10'"));
                out.push(format!("'{day} 10:00:00 UTC'"));
                out.push(format!("TIMESTAMP '{day} 10:00:00+00:00'"));
            }
            out.push("5".into());
        }
        Kind::Struct => {}
    }
    out
}

/// The same number in exponent notation: `12.5` -> `125e-1`, `40` -> `40e0`.
fn exponent_spelling(text: &str) -> Option<String> {
    let (sign, body) = text.strip_prefix('-').map_or(("", text), |b| ("-", b));
    if body.contains(['e', 'E']) {
        return None;
    }
    let (int, frac) = body.split_once('.').unwrap_or((body, ""));
    let digits = format!("{int}{frac}");
    let trimmed = digits.trim_start_matches('0');
    let digits = if trimmed.is_empty() { "0" } else { trimmed };
    Some(format!("{sign}{digits}e-{}", frac.len()))
}

impl Pools {
    /// Pools from what was written (removed files included: their values are fair literals).
    pub fn from_table(spec: &TableSpec, table: &WrittenTable) -> Pools {
        let mut columns = Vec::new();
        let mut structs = Vec::new();
        for (i, column) in spec.data_columns().iter().enumerate() {
            let cells: Vec<Cell> = table
                .files
                .iter()
                .flat_map(|f| f.cells[i].iter().cloned())
                .collect();
            if column.kind == Kind::Struct {
                structs.push(ColumnRef::new([column.name.as_str()]));
                let a: Vec<Cell> = cells
                    .iter()
                    .filter_map(|c| match c {
                        Cell::Struct(Some(a), _) => Some(Cell::Int(i64::from(*a))),
                        _ => None,
                    })
                    .collect();
                let b: Vec<Cell> = cells
                    .iter()
                    .filter_map(|c| match c {
                        Cell::Struct(_, Some(b)) => Some(Cell::Str(b.clone())),
                        _ => None,
                    })
                    .collect();
                columns.push(ColumnPool {
                    column: ColumnRef::new([column.name.as_str(), "a"]),
                    kind: Kind::Int32,
                    literals: pool(Kind::Int32, &a, 12),
                });
                columns.push(ColumnPool {
                    column: ColumnRef::new([column.name.as_str(), "b"]),
                    kind: Kind::String,
                    literals: pool(Kind::String, &b, 12),
                });
                continue;
            }
            let literals = pool(column.kind, &cells, 12);
            if !literals.is_empty() {
                columns.push(ColumnPool {
                    column: ColumnRef::new([column.name.as_str()]),
                    kind: column.kind,
                    literals,
                });
            }
        }
        for column in spec.partition_columns() {
            let slots = spec.partition_values.max(1);
            let literals = (0..=slots)
                .map(|s| {
                    let mut text = crate::values::partition_value_text(spec, column.kind, s);
                    // A misspelt value's literal is the number it means.
                    if let Some((written, means)) = crate::values::writer_decimal_spelling(s)
                        && text == written
                        && spec.quirks.writer_partition_spellings
                    {
                        text = means.to_string();
                    }
                    match column.kind {
                        k if k.is_number() => Literal::Number(text),
                        Kind::Boolean => Literal::Boolean(text == "true"),
                        _ => Literal::String(text),
                    }
                })
                .collect::<Vec<_>>();
            let mut distinct: Vec<Literal> = Vec::new();
            for l in literals {
                if !distinct.contains(&l) {
                    distinct.push(l);
                }
            }
            columns.push(ColumnPool {
                column: ColumnRef::new([column.name.as_str()]),
                kind: column.kind,
                literals: distinct,
            });
        }
        // Beside all-NULL files, numbers beyond BIGINT's range (and a decimal's precision):
        // the comparisons Spark folds to TRUE before reading, NULL rows included.
        if spec.quirks.null_files {
            for pool in &mut columns {
                let beyond: &[&str] = match pool.kind {
                    Kind::Int8 | Kind::Int16 | Kind::Int32 | Kind::Int64 => &[
                        "-9223372036854775809",
                        "9223372036854775808",
                        "-9223372036854775809.5",
                        "99999999999999999999999999999999999999",
                    ],
                    Kind::Decimal | Kind::WideDecimal => &[
                        "-99999999999999999999999999999999999999",
                        "9223372036854775808",
                    ],
                    Kind::Float32
                    | Kind::Float64
                    | Kind::String
                    | Kind::Boolean
                    | Kind::Date
                    | Kind::Timestamp
                    | Kind::TimestampNtz
                    | Kind::Struct => &[],
                };
                pool.literals
                    .extend(beyond.iter().map(|t| Literal::Number(t.to_string())));
            }
        }
        Pools { columns, structs }
    }
}

const OPS: [CmpOp; 6] = [
    CmpOp::Eq,
    CmpOp::NotEq,
    CmpOp::Lt,
    CmpOp::LtEq,
    CmpOp::Gt,
    CmpOp::GtEq,
];

/// A leaf over one column: every leaf construct the column's type allows.
fn leaf_strategy(pool: ColumnPool, all: Arc<Vec<ColumnPool>>) -> BoxedStrategy<Predicate> {
    let column = pool.column.clone();
    let kind = pool.kind;
    let lit = proptest::sample::select(pool.literals.clone());
    let compare = compare_leaf(&column, &lit);
    let c = column.clone();
    let is_null = any::<bool>()
        .prop_map(move |negated| Predicate::IsNull {
            column: c.clone(),
            negated,
        })
        .boxed();
    let c = column.clone();
    let in_list = (proptest::collection::vec(lit.clone(), 1..4), any::<bool>())
        .prop_map(move |(list, negated)| Predicate::InList {
            column: c.clone(),
            list,
            negated,
        })
        .boxed();
    // A list longer than the kernel expands (lower::MAX_IN_LIST_EXPANSION is 20), of distinct
    // literals so that it stays long once duplicates are dropped: the explainer bounds it by
    // its hull after the guards judge it as written. Only a pool of more than 20 literals has
    // one.
    let long_in_list = (pool.literals.len() > 21).then(|| {
        let c = column.clone();
        let most = pool.literals.len().min(32);
        (
            proptest::sample::subsequence(pool.literals.clone(), 21..=most),
            any::<bool>(),
        )
            .prop_map(move |(list, negated)| Predicate::InList {
                column: c.clone(),
                list,
                negated,
            })
            .boxed()
    });
    let c = column.clone();
    let between = (lit.clone(), lit.clone(), any::<bool>())
        .prop_map(move |(low, high, negated)| Predicate::Between {
            column: c.clone(),
            low,
            high,
            negated,
        })
        .boxed();
    let mut options: Vec<BoxedStrategy<Predicate>> =
        vec![compare.clone(), compare, is_null, in_list, between];
    options.extend(long_in_list);
    // A list holding a string on a number or date column (the text of a pool value, which
    // every engine casts; the engine tests add texts DataFusion refuses): Spark with ANSI off
    // compares such a list as strings.
    let texts = texts_every_engine_casts(&pool.literals, kind);
    if !texts.is_empty() {
        let c = column.clone();
        let with_a_string = (
            proptest::collection::vec(lit.clone(), 0..3),
            proptest::sample::select(texts),
            any::<bool>(),
        )
            .prop_map(move |(mut list, text, negated)| {
                list.push(text);
                Predicate::InList {
                    column: c.clone(),
                    list,
                    negated,
                }
            })
            .boxed();
        options.push(with_a_string);
    }
    if kind == Kind::String {
        options.extend(string_leaves(&pool, &column, &lit));
    }
    if kind == Kind::Boolean {
        let c = column.clone();
        options.push(Just(Predicate::BoolColumn(c)).boxed());
    }
    // Arithmetic on the column (a leaf the explainer keeps whole), on number columns but float.
    if kind.is_number() && kind != Kind::Float32 {
        let c = column.clone();
        let arithmetic = lit.prop_map(move |l| Predicate::Unsupported {
            sql: format!("{c} + 1 > {l}"),
            columns: vec![c.clone()],
        });
        options.push(arithmetic.boxed());
    }
    // Column against column of the same kind.
    let peers: Vec<ColumnRef> = all
        .iter()
        .filter(|p| p.kind == kind && p.column != column)
        .map(|p| p.column.clone())
        .collect();
    if !peers.is_empty() {
        let c = column.clone();
        let vs = (
            proptest::sample::select(peers),
            proptest::sample::select(OPS.to_vec()),
        )
            .prop_map(move |(other, op)| Predicate::Unsupported {
                sql: format!("{c} {} {other}", op.sql()),
                columns: vec![c.clone(), other],
            });
        options.push(vs.boxed());
    }
    proptest::strategy::Union::new(options).boxed()
}

/// The texts of `literals` every engine casts to a column of `kind` (a number or a date),
/// within the column's range (the null-files knob adds numbers beyond it): a list holding
/// one on such a column is compared as strings by Spark with ANSI off.
fn texts_every_engine_casts(literals: &[Literal], kind: Kind) -> Vec<Literal> {
    if !(kind.is_number() || kind == Kind::Date) {
        return Vec::new();
    }
    // Within the column's range (the null-files knob adds numbers beyond it), spelled so
    // that every engine casts it.
    let casts = |t: &str| match kind {
        Kind::Int8 => t.parse::<i8>().is_ok(),
        Kind::Int16 => t.parse::<i16>().is_ok(),
        Kind::Int32 => t.parse::<i32>().is_ok(),
        Kind::Int64 => t.parse::<i64>().is_ok(),
        Kind::Decimal | Kind::WideDecimal => {
            // DataFusion casts no exponent to a decimal.
            t.chars().filter(char::is_ascii_digit).count() <= 18 && !t.contains(['e', 'E'])
        }
        Kind::Float32
        | Kind::Float64
        | Kind::Date
        | Kind::String
        | Kind::Boolean
        | Kind::Timestamp
        | Kind::TimestampNtz
        | Kind::Struct => true,
    };
    literals
        .iter()
        .filter_map(|l| match l {
            Literal::Number(t) | Literal::Typed { text: t, .. } if casts(t) => {
                Some(Literal::String(t.clone()))
            }
            Literal::Number(_)
            | Literal::Typed { .. }
            | Literal::String(_)
            | Literal::Boolean(_)
            | Literal::Null
            | Literal::Binary(_) => None,
        })
        .collect::<Vec<Literal>>()
}

/// The leaves only a string column has: LIKE with a pattern cut from a value, and a function
/// of the column (kept whole).
fn string_leaves(
    pool: &ColumnPool,
    column: &ColumnRef,
    lit: &proptest::sample::Select<Literal>,
) -> Vec<BoxedStrategy<Predicate>> {
    let mut leaves = Vec::new();
    let c = column.clone();
    let texts: Vec<String> = pool
        .literals
        .iter()
        .filter_map(|l| {
            if let Literal::String(s) = l {
                Some(s.clone())
            } else {
                None
            }
        })
        .collect();
    if !texts.is_empty() {
        let like = (proptest::sample::select(texts), 0usize..4, any::<bool>())
            .prop_map(move |(text, shape, negated)| {
                let cut: String = text.chars().take(2).collect();
                let pattern = match shape {
                    0 => format!("{cut}%"),
                    1 => format!("%{cut}%"),
                    2 => format!("{}_%", cut.chars().take(1).collect::<String>()),
                    _ => text.replace('%', "\\%").replace('_', "\\_"),
                };
                Predicate::Like {
                    column: c.clone(),
                    pattern,
                    escape: None,
                    negated,
                }
            })
            .boxed();
        leaves.push(like);
    }
    let c = column.clone();
    let upper = lit.clone().prop_map(move |l| Predicate::Unsupported {
        sql: format!("UPPER({c}) = {l}"),
        columns: vec![c.clone()],
    });
    leaves.push(upper.boxed());
    leaves
}

/// `column op literal`, or the literal first with the operator commuted.
fn compare_leaf(
    column: &ColumnRef,
    lit: &proptest::sample::Select<Literal>,
) -> BoxedStrategy<Predicate> {
    let c = column.clone();
    (
        lit.clone(),
        proptest::sample::select(OPS.to_vec()),
        any::<bool>(),
    )
        .prop_map(move |(l, op, flipped)| {
            if flipped {
                Predicate::Compare {
                    left: Operand::Literal(l),
                    op: op.commuted(),
                    right: Operand::Column(c.clone()),
                }
            } else {
                Predicate::Compare {
                    left: Operand::Column(c.clone()),
                    op,
                    right: Operand::Literal(l),
                }
            }
        })
        .boxed()
}

/// `st IS [NOT] NULL` on a struct column: no statistics of its own, decided by its leaves'.
fn struct_is_null(column: ColumnRef) -> BoxedStrategy<Predicate> {
    any::<bool>()
        .prop_map(move |negated| Predicate::IsNull {
            column: column.clone(),
            negated,
        })
        .boxed()
}

/// Predicates over the pools' columns, nested to at most `depth` junction levels.
pub fn predicate_strategy(pools: &Pools, depth: u32) -> BoxedStrategy<Predicate> {
    let all = Arc::new(pools.columns.clone());
    let mut leaves: Vec<BoxedStrategy<Predicate>> = pools
        .columns
        .iter()
        .map(|p| leaf_strategy(p.clone(), all.clone()))
        .collect();
    leaves.extend(pools.structs.iter().map(|s| struct_is_null(s.clone())));
    let leaf = proptest::strategy::Union::new(leaves).boxed();
    leaf.prop_recursive(depth, 24, 3, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 2..4).prop_map(Predicate::And),
            proptest::collection::vec(inner.clone(), 2..4).prop_map(Predicate::Or),
            inner.prop_map(|p| Predicate::Not(Box::new(p))),
        ]
    })
    .boxed()
}

/// `n` predicates drawn deterministically from `seed`.
pub fn sample_predicates(pools: &Pools, depth: u32, seed: u64, n: usize) -> Vec<Predicate> {
    let strategy = predicate_strategy(pools, depth);
    let mut bytes = [0u8; 32];
    bytes[..8].copy_from_slice(&seed.to_le_bytes());
    let mut runner = TestRunner::new_with_rng(
        Config::default(),
        TestRng::from_seed(RngAlgorithm::ChaCha, &bytes),
    );
    (0..n)
        .filter_map(|_| {
            strategy
                .new_tree(&mut runner)
                .ok()
                .map(|t| proptest::strategy::ValueTree::current(&t))
        })
        .collect()
}

/// An AND and an OR of `leaves` leaves drawn from the pools with `seed` (none for fewer than
/// two): chains as long as the explainer accepts, one operator deep per leaf where an engine
/// evaluates by recursion.
pub fn long_chains(pools: &Pools, seed: u64, leaves: usize) -> Vec<Predicate> {
    if leaves < 2 {
        return Vec::new();
    }
    let drawn = sample_predicates(pools, 0, seed ^ 0x6c6f_6e67, leaves);
    vec![Predicate::And(drawn.clone()), Predicate::Or(drawn)]
}

/// The arbtest entry point: a predicate from unstructured bytes (arbtest shrinks the bytes).
pub fn arbitrary_predicate(
    u: &mut arbtest::arbitrary::Unstructured<'_>,
    pools: &Pools,
    depth: u32,
) -> arbtest::arbitrary::Result<Predicate> {
    if depth == 0 || u.ratio(2u8, 3u8)? {
        if !pools.structs.is_empty() && u.ratio(1u8, 8u8)? {
            return Ok(Predicate::IsNull {
                column: u.choose(&pools.structs)?.clone(),
                negated: u.arbitrary()?,
            });
        }
        let pool = u.choose(&pools.columns)?;
        let literal = u.choose(&pool.literals)?.clone();
        return Ok(match u.int_in_range(0u8..=3)? {
            0 => Predicate::IsNull {
                column: pool.column.clone(),
                negated: u.arbitrary()?,
            },
            1 => Predicate::InList {
                column: pool.column.clone(),
                list: vec![literal, u.choose(&pool.literals)?.clone()],
                negated: u.arbitrary()?,
            },
            2 => Predicate::Between {
                column: pool.column.clone(),
                low: literal,
                high: u.choose(&pool.literals)?.clone(),
                negated: u.arbitrary()?,
            },
            _ => Predicate::Compare {
                left: Operand::Column(pool.column.clone()),
                op: *u.choose(&OPS)?,
                right: Operand::Literal(literal),
            },
        });
    }
    Ok(match u.int_in_range(0u8..=2)? {
        0 => Predicate::And(vec![
            arbitrary_predicate(u, pools, depth - 1)?,
            arbitrary_predicate(u, pools, depth - 1)?,
        ]),
        1 => Predicate::Or(vec![
            arbitrary_predicate(u, pools, depth - 1)?,
            arbitrary_predicate(u, pools, depth - 1)?,
        ]),
        _ => Predicate::Not(Box::new(arbitrary_predicate(u, pools, depth - 1)?)),
    })
}
