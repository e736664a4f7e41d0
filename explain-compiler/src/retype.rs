//! Comparisons across types, as engines run them: a literal that is not of its column's type
//! becomes one that is, with the same matching rows under Spark, DuckDB and DataFusion; where
//! they disagree, the rewrite keeps the rows any of them could match and a note says so. Only
//! a comparison no engine would run (a struct against a literal) is refused later, by
//! [`crate::lower::check_literals`]; a literal of a type the column cannot hold is read as the
//! engines that run it read it ([`crate::mistyped`]).
//!
//! | column | literal | rewrite | engines |
//! |---|---|---|---|
//! | integer or decimal(p, s) | a quoted number `'5'` | the number `5` | all cast the string to the column's type |
//! | integer or decimal(p, s) | more fractional digits than `s` (`x > 1.5` on an integer) | `x > L` -> `x >= ceil(L)`, `x >= L` -> `x >= ceil(L)`, `x < L` -> `x <= floor(L)`, `x <= L` -> `x <= floor(L)`, `x = L` -> FALSE, `x != L` -> `x IS NOT NULL` (floor and ceil at scale `s`) | all compare exactly (as decimals) |
//! | integer or decimal(p, s) | beyond the type's range | `x < L`, `x <= L`, `x != L` -> `x IS NOT NULL` above the range, FALSE below it (and mirrored for `>`, `>=`); `x = L` -> FALSE | all compare exactly |
//! | integer (any width) | a plain number beyond BIGINT's range, at most 38 digits | `x < L`, `x <= L` above the range (and `x > L`, `x >= L` below it) -> TRUE | Spark folds the comparison to TRUE before reading, NULL rows included (a decimal literal); DuckDB and DataFusion compare exactly (`x IS NOT NULL`): the union is TRUE |
//! | double | a quoted number `'5'` | the number `5` | all cast the string to double |
//! | float | a number with no exact float (`0.1`) | `x = L` -> `x = f32(L)`; `x != L` -> `x IS NOT NULL`; `<`/`<=`/`>`/`>=` to the float bound that admits both readings | Spark and DataFusion widen the column to double (no float equals `0.1`), DuckDB narrows the literal to the nearest float: disagree; the union is kept |
//!
//! `IN` lists drop the values no row can equal; an empty list is FALSE, an empty `NOT IN`
//! list is `x IS NOT NULL`.

use delta_kernel::schema::PrimitiveType;

use crate::ast::{CmpOp, ColumnRef, Literal};
use crate::classify::Note;
use crate::coerce::LongNumber;
use crate::mistyped::mistyped;
use crate::nnf::{Leaf, Nnf};
use crate::schema::{ColumnInfo, TableColumns};

pub const CROSS_TYPE_COMPARISON: &str = "CROSS_TYPE_COMPARISON";
/// A number beyond the column type's range: every engine compares it exactly, so the
/// comparison is decided for every row (FALSE, or `x IS NOT NULL`) without statistics.
pub const LITERAL_OUT_OF_RANGE: &str = "LITERAL_OUT_OF_RANGE";

/// Rewrites every leaf whose literal is not of its column's type. The notes name the leaves
/// engines disagree on.
pub fn retype(pred: &Nnf, columns: &TableColumns) -> (Nnf, Vec<Note>) {
    let mut disagree: Vec<String> = Vec::new();
    let mut engine_only: Vec<String> = Vec::new();
    let mut beyond: Vec<String> = Vec::new();
    let mut folded: Vec<String> = Vec::new();
    let out = pred.map_leaves(&mut |leaf: &Leaf| {
        let Some(info) = leaf.column().and_then(|c| columns.resolve(c).ok()) else {
            return Nnf::Leaf(leaf.clone());
        };
        // The column's numeric domain, computed once for both questions asked of the leaf.
        let domain = domain(&info);
        let range = beyond_range(leaf, &info, domain.as_ref());
        let rewritten = match retype_leaf(leaf, &info, domain.as_ref()) {
            Some((Nnf::Const(true), _)) if range.is_some() => {
                folded.push(format!("`{leaf}`"));
                Nnf::Const(true)
            }
            Some((rewritten, engines_disagree)) => {
                if let Some(range) = &range {
                    beyond.push(format!("`{leaf}` ({range})"));
                }
                if engines_disagree {
                    disagree.push(format!("`{leaf}`"));
                }
                rewritten
            }
            None => {
                if let Some(range) = &range {
                    beyond.push(format!("`{leaf}` ({range})"));
                }
                Nnf::Leaf(leaf.clone())
            }
        };
        // What is left of a type the column cannot hold: as the engines that run it read it.
        rewritten.map_leaves(&mut |l: &Leaf| match mistyped(l, &info) {
            Some((read, why)) => {
                engine_only.push(format!("`{l}` ({why})"));
                read
            }
            None => Nnf::Leaf(l.clone()),
        })
    });
    let mut notes = Vec::new();
    if !beyond.is_empty() {
        notes.push(Note {
            code: LITERAL_OUT_OF_RANGE,
            message: format!(
                "{}: a literal beyond the column type's range, compared exactly by every engine, so the comparison is decided for every row without statistics (a misspelt literal, most often)",
                beyond.join(", ")
            ),
        });
    }
    if !folded.is_empty() {
        notes.push(Note {
            code: LITERAL_OUT_OF_RANGE,
            message: format!(
                "{}: a number beyond the range of BIGINT against an integer column, which Spark decides before reading as TRUE for every row, NULL included (DuckDB and DataFusion compare it exactly and match every non-NULL row); every file is kept",
                folded.join(", ")
            ),
        });
    }
    if !engine_only.is_empty() {
        notes.push(Note {
            code: CROSS_TYPE_COMPARISON,
            message: format!(
                "{}: a literal of a type the column cannot hold, read as the engines that run it read it",
                engine_only.join(", ")
            ),
        });
    }
    if !disagree.is_empty() {
        notes.push(Note {
            code: CROSS_TYPE_COMPARISON,
            message: format!(
                "{}: engines read the literal differently (a float column against a number with no exact float: Spark and DataFusion widen the column, DuckDB narrows the literal; a quoted fraction against an integer or decimal column: Spark with ANSI off cuts it toward zero, DuckDB rounds it half away from zero, Spark compares a decimal column with it as doubles, Spark with ANSI on refuses it; a number with more digits than a decimal type holds: Spark rounds it; a double against a decimal column: DataFusion rounds it at the scale; a timestamp text with digits below the microsecond: Spark and DuckDB cut them, DataFusion compares in nanoseconds); the rows any reading matches are kept",
                disagree.join(", ")
            ),
        });
    }
    (out, notes)
}

/// The column's numeric domain: integers of a range, decimals at a scale within a precision,
/// or floats.
enum Domain {
    /// Multiples of `10^-scale` with at most `precision` digits (integers: scale 0 and the
    /// type's bounds). `decimal`: a decimal type, which Spark compares with a quoted number
    /// as a double.
    Exact {
        scale: u8,
        min: LongNumber,
        max: LongNumber,
        decimal: bool,
        /// Digits before the point of the decimal type Spark compares the column as
        /// (`DecimalType.forType`: 3, 5, 10, 20 for byte to long; `p - s` for decimal(p, s)).
        int_digits: u8,
    },
    Float,
    /// Every number is compared as the nearest double by every engine.
    Double,
}

fn domain(info: &ColumnInfo) -> Option<Domain> {
    let int = |min: i128, max: i128, int_digits: u8| {
        Some(Domain::Exact {
            scale: 0,
            min: LongNumber::parse(&min.to_string())?,
            max: LongNumber::parse(&max.to_string())?,
            decimal: false,
            int_digits,
        })
    };
    match info.primitive()? {
        PrimitiveType::Byte => int(i8::MIN.into(), i8::MAX.into(), 3),
        PrimitiveType::Short => int(i16::MIN.into(), i16::MAX.into(), 5),
        PrimitiveType::Integer => int(i32::MIN.into(), i32::MAX.into(), 10),
        PrimitiveType::Long => int(i64::MIN.into(), i64::MAX.into(), 20),
        PrimitiveType::Decimal(dt) => {
            let digits = "9".repeat(usize::from(dt.precision()));
            let scale = usize::from(dt.scale());
            let (int, frac) = digits.split_at(digits.len() - scale);
            let text = if frac.is_empty() {
                int.to_string()
            } else {
                format!("{}.{frac}", if int.is_empty() { "0" } else { int })
            };
            Some(Domain::Exact {
                scale: dt.scale(),
                min: LongNumber::parse(&format!("-{text}"))?,
                max: LongNumber::parse(&text)?,
                decimal: true,
                int_digits: dt.precision() - dt.scale(),
            })
        }
        PrimitiveType::Float => Some(Domain::Float),
        PrimitiveType::Double => Some(Domain::Double),
        PrimitiveType::Boolean
        | PrimitiveType::String
        | PrimitiveType::Binary
        | PrimitiveType::Date
        | PrimitiveType::Timestamp
        | PrimitiveType::TimestampNtz
        | PrimitiveType::Void
        | PrimitiveType::IntervalYearMonth
        | PrimitiveType::IntervalDayTime => None,
    }
}

/// The range a leaf's number lies beyond (`long holds -9223372036854775808 to ...`), for an
/// integer or decimal column; `None` for every other leaf.
fn beyond_range(leaf: &Leaf, info: &ColumnInfo, domain: Option<&Domain>) -> Option<String> {
    let Some(Domain::Exact { min, max, .. }) = domain else {
        return None;
    };
    let literals: Vec<&Literal> = match leaf {
        Leaf::Cmp { literal, .. } => vec![literal],
        Leaf::In { list, .. } => list.iter().collect(),
        Leaf::IsNull { .. } | Leaf::Bool { .. } | Leaf::Like { .. } | Leaf::Unsupported { .. } => {
            return None;
        }
    };
    let outside = literals.iter().any(|l| {
        numeric_text(l)
            .and_then(LongNumber::parse)
            .is_some_and(|v| &v < min || &v > max)
    });
    let type_name = info.primitive().map(|p| p.to_string()).unwrap_or_default();
    outside.then(|| format!("{type_name} holds {min} to {max}"))
}

/// A numeric literal's text: a number token, or a quoted number (engines cast it).
fn numeric_text(literal: &Literal) -> Option<&str> {
    match literal {
        Literal::Number(n) => Some(n),
        Literal::String(s) if LongNumber::parse(s).is_some() => Some(s.trim()),
        _ => None,
    }
}

/// A number token with an exponent (`1e1`, `4.0000000000000001e0`): a DOUBLE in Spark, DuckDB
/// and DataFusion, rounded to the nearest double before any comparison (pitfall 26).
pub fn is_double_token(literal: &Literal) -> bool {
    matches!(literal, Literal::Number(n) if n.contains(['e', 'E']))
}

/// The scale Spark rounds a plain number to against an exact column, where their common
/// decimal type needs more than 38 digits (`DecimalType.adjustPrecisionScale`: the integer
/// digits kept, the scale cut to `max(38 - integer digits, min(scale, 6))`); `None` where it
/// compares them exactly.
fn spark_wide_scale(text: &str, column_scale: u8, column_int_digits: u8) -> Option<u8> {
    let body = text.trim().trim_start_matches(['-', '+']);
    let (int, frac) = body.split_once('.').unwrap_or((body, ""));
    let int_len = int.trim_start_matches('0').len().max(1);
    let frac_len = frac.len();
    let scale = frac_len.max(usize::from(column_scale));
    let range = int_len.max(usize::from(column_int_digits));
    if frac_len <= usize::from(column_scale) || range + scale <= 38 {
        return None;
    }
    let adjusted = 38usize.saturating_sub(range).max(scale.min(6));
    (adjusted < frac_len)
        .then(|| u8::try_from(adjusted).ok())
        .flatten()
}

/// The shortest text that reads back as `v` (finite).
fn double_text(v: f64) -> Option<LongNumber> {
    LongNumber::parse(&format!("{v:e}"))
}

/// DataFusion's reading of a DOUBLE literal `v` against a decimal column of `scale`: it casts
/// the literal to the common decimal type, whose scale is at least 15 (a DOUBLE coerces as
/// decimal(30, 15)), the way arrow casts a double to a decimal: `round(v * 10^s)` computed in
/// doubles, which is not always the decimal nearest to `v` (`1103.37` is read as
/// `1103.369999999999872`, so `dec > 1103.37` matches the value 1103.37 there). `None` where
/// the cast leaves 38 digits (DataFusion then reads no value at all).
fn datafusion_decimal(v: f64, scale: u8) -> Option<LongNumber> {
    let scale = scale.max(15);
    let scaled = (10_f64.powi(i32::from(scale)) * v).round();
    if !scaled.is_finite() || scaled.abs() >= 1e38 {
        return None;
    }
    // `+ 0.0` spells a negative zero as 0.
    LongNumber::parse(&format!("{:.0}e-{scale}", scaled + 0.0))
}

/// What the engines may read a numeric literal as, against a column of exact numbers
/// (integers, decimals). A column value `x` can satisfy `x = L` under some engine only within
/// `[low, high]`, `x > L` only above `least`, `x < L` only below `greatest`.
///
/// | literal | readings | engines |
/// |---|---|---|
/// | a plain number `2.5` | itself (Spark, DuckDB: a decimal literal); with a decimal point, also the double it rounds to, as for `2.5e0` (DataFusion reads it as a DOUBLE) | disagree where the double is not the number |
/// | a number with an exponent `2.5e0` | the double `d` it rounds to; `x` is compared as a double, so `x = d` holds only between the doubles next to `d` | all (DOUBLE literals) |
/// | a quoted number `'2.5'` | cut toward zero to the column's scale (Spark, ANSI off), rounded half away from zero (DuckDB), itself; on a decimal column also the double it rounds to (Spark compares as doubles) | disagree unless all readings coincide; Spark with ANSI on refuses a quoted fraction against an integer |
struct Readings {
    low: LongNumber,
    high: LongNumber,
    least: LongNumber,
    greatest: LongNumber,
    /// Engines read the literal as different values.
    disagree: bool,
}

impl Readings {
    /// `as_double`: the literal stands in an IN list that holds a double, which makes every
    /// number in it a double in Spark, DuckDB and DataFusion.
    fn of(
        literal: &Literal,
        scale: u8,
        decimal: bool,
        as_double: bool,
        int_digits: u8,
    ) -> Option<Readings> {
        let text = numeric_text(literal)?;
        let exact = LongNumber::parse(text)?;
        match literal {
            Literal::Number(_) if as_double || is_double_token(literal) => {
                let v: f64 = text.parse().ok()?;
                // Beyond the double range: every engine reads an infinity, which orders as
                // the exact number does against any column of finite numbers.
                if !v.is_finite() {
                    return Some(Self::single(exact));
                }
                let mut r = Self::double(v)?;
                if decimal {
                    // DataFusion casts the double to the decimal column's type (rounding it
                    // at the scale) where Spark and DuckDB compare as doubles: any value
                    // between the double's neighbours may be the one compared, and the
                    // double cut or rounded at the scale (measured: `w IN (1e-35)` matches
                    // 0 on a decimal(38,18) column in DataFusion).
                    let (truncated, rounded) = double_text(v)?.truncated_and_rounded(scale)?;
                    let mut at_scale =
                        vec![LongNumber::parse(&truncated)?, LongNumber::parse(&rounded)?];
                    at_scale.extend(datafusion_decimal(v, scale));
                    for n in at_scale {
                        // Outside the double's neighbours: DataFusion reads another value.
                        if n < r.low {
                            r.low = n;
                            r.disagree = true;
                        } else if n > r.high {
                            r.high = n;
                            r.disagree = true;
                        }
                    }
                    r.least = r.low.clone();
                    r.greatest = r.high.clone();
                }
                Some(r)
            }
            Literal::Number(_) => {
                let exactly = match spark_wide_scale(text, scale, int_digits) {
                    // Spark's common decimal type would need more than 38 digits: it keeps the
                    // integer digits and rounds the literal half away from zero at a smaller
                    // scale (measured: `w = -1.0000000000000000005` matches -1.000000000000000001
                    // on a decimal(38,18) column); the others compare exactly.
                    Some(spark_scale) => {
                        let (_, rounded) = exact.truncated_and_rounded(spark_scale)?;
                        let rounded = LongNumber::parse(&rounded)?;
                        let (least, greatest) = if rounded < exact {
                            (rounded, exact.clone())
                        } else {
                            (exact.clone(), rounded)
                        };
                        Some(Readings {
                            low: least.clone(),
                            high: greatest.clone(),
                            disagree: least != greatest,
                            least,
                            greatest,
                        })
                    }
                    None => Some(Self::single(exact.clone())),
                };
                // DataFusion's SQL parser reads a number with a decimal point as a DOUBLE:
                // against a decimal column it compares the double as a decimal of at least 15
                // fractional digits (measured on a decimal(10,2) column: `dec = 1e-15` matches
                // no row, `dec = 0.0000000000000001` matches the rows holding 0.00; on a
                // decimal(38,18) one `1e-35` matches 0), the double cut or rounded there, and
                // arrow's cast computes the cut in doubles ([`datafusion_decimal`]: on a
                // decimal(10,2) column `dec > 1103.37` matches 1103.37); against an integer
                // column it compares as doubles, as the same number with an exponent. Its
                // reading joins Spark's and DuckDB's exact one.
                if !text.contains('.') {
                    return exactly;
                }
                Self::with_datafusion_reading(
                    text, &exact, exactly?, scale, decimal, as_double, int_digits,
                )
            }
            Literal::String(_) => Self::of_quoted(text, &exact, scale, decimal, as_double),
            Literal::Boolean(_) | Literal::Null | Literal::Typed { .. } | Literal::Binary(_) => {
                None
            }
        }
    }

    /// One value every engine reads.
    fn single(v: LongNumber) -> Readings {
        Readings {
            low: v.clone(),
            high: v.clone(),
            least: v.clone(),
            greatest: v,
            disagree: false,
        }
    }

    /// A double: any value that rounds to it.
    fn double(v: f64) -> Option<Readings> {
        // Monotone rounding: any `x <= prev(d)` reads as at most prev(d) < d, any `x <= d` as
        // at most d; so `x = d` needs `prev(d) < x < next(d)` and `x > d` needs `x > d`,
        // whatever text of d is used, as long as it reads back as d.
        let d = double_text(v)?;
        Some(Readings {
            low: double_text(v.next_down())?,
            high: double_text(v.next_up())?,
            least: d.clone(),
            greatest: d,
            disagree: false,
        })
    }

    /// A number with a decimal point: Spark's and DuckDB's `exactly` joined by DataFusion's
    /// reading of it as a DOUBLE.
    fn with_datafusion_reading(
        text: &str,
        exact: &LongNumber,
        exactly: Readings,
        scale: u8,
        decimal: bool,
        as_double: bool,
        int_digits: u8,
    ) -> Option<Readings> {
        let as_written: f64 = text.parse().ok()?;
        let datafusion = if decimal {
            let (cut, rounded) = double_text(as_written)?.truncated_and_rounded(scale.max(15))?;
            let mut readings = vec![LongNumber::parse(&cut)?, LongNumber::parse(&rounded)?];
            readings.extend(datafusion_decimal(as_written, scale));
            let low = readings.iter().min()?.clone();
            let high = readings.iter().max()?.clone();
            Readings {
                disagree: false,
                least: low.clone(),
                greatest: high.clone(),
                low,
                high,
            }
        } else {
            let mut r = Self::of(
                &Literal::Number(format!("{}e0", text.trim())),
                scale,
                decimal,
                as_double,
                int_digits,
            )?;
            r.disagree = double_text(as_written).as_ref() != Some(exact);
            r
        };
        // The readings differ where they hold other members of the column's grid.
        let members =
            |r: &Readings| Some((r.low.floor_ceil(scale)?.1, r.high.floor_ceil(scale)?.0));
        // ... or bound a strict comparison on other sides of a member (`dec > 1103.37`
        // excludes 1103.37 in Spark and DuckDB, not in DataFusion).
        let sides =
            |r: &Readings| Some((r.least.floor_ceil(scale)?, r.greatest.floor_ceil(scale)?));
        let differ =
            members(&datafusion) != members(&exactly) || sides(&datafusion) != sides(&exactly);
        Some(Readings {
            disagree: exactly.disagree || (differ && (decimal || datafusion.disagree)),
            low: exactly.low.min(datafusion.low),
            high: exactly.high.max(datafusion.high),
            least: exactly.least.min(datafusion.least),
            greatest: exactly.greatest.max(datafusion.greatest),
        })
    }

    /// A quoted number: cut or rounded at the column's scale, itself, and on a decimal column
    /// (or in a list of doubles) the double it rounds to.
    fn of_quoted(
        text: &str,
        exact: &LongNumber,
        scale: u8,
        decimal: bool,
        as_double: bool,
    ) -> Option<Readings> {
        let (truncated, rounded) = exact.truncated_and_rounded(scale)?;
        let mut centers = vec![
            exact.clone(),
            LongNumber::parse(&truncated)?,
            LongNumber::parse(&rounded)?,
        ];
        let mut bounds = Vec::new();
        if decimal || as_double {
            let v: f64 = text.parse().ok()?;
            if let Some(d) = Self::double(v) {
                centers.push(d.least);
                bounds.extend([d.low, d.high]);
            }
        }
        let least = centers.iter().min()?.clone();
        let greatest = centers.iter().max()?.clone();
        bounds.extend([least.clone(), greatest.clone()]);
        Some(Readings {
            low: bounds.iter().min()?.clone(),
            high: bounds.iter().max()?.clone(),
            disagree: least != greatest,
            least,
            greatest,
        })
    }
}

/// A float column against a number: the literal itself where it is a float, else the floats
/// on either side of it (DuckDB's nearest float is one of them).
enum FloatPlace {
    Member,
    Between { down: f32, up: f32 },
}

fn float_place(literal: &Literal) -> Option<(f64, FloatPlace)> {
    let v: f64 = numeric_text(literal)?.parse().ok()?;
    let narrowed = v as f32;
    if !v.is_finite() || f64::from(narrowed) == v {
        return Some((v, FloatPlace::Member));
    }
    let (down, up) = if f64::from(narrowed) < v {
        (narrowed, narrowed.next_up())
    } else {
        (narrowed.next_down(), narrowed)
    };
    Some((v, FloatPlace::Between { down, up }))
}

/// A float as a literal: a number, or the quoted infinity a number beyond the float range
/// narrows to.
fn float_literal(v: f32) -> Literal {
    match v {
        f32::INFINITY => Literal::String("Infinity".into()),
        f32::NEG_INFINITY => Literal::String("-Infinity".into()),
        v => Literal::Number(format!("{:?}", f64::from(v))),
    }
}

fn cmp(column: &ColumnRef, op: CmpOp, literal: Literal) -> Nnf {
    Nnf::Leaf(Leaf::Cmp {
        column: column.clone(),
        op,
        literal,
    })
}

fn not_null(column: &ColumnRef) -> Nnf {
    Nnf::Leaf(Leaf::IsNull {
        column: column.clone(),
        negated: true,
    })
}

/// `x [NOT] IN (members)`, with the lists of none and one spelled as what they are.
fn listed(column: &ColumnRef, mut members: Vec<Literal>, negated: bool) -> Nnf {
    members.dedup();
    match (members.len(), negated) {
        (0, false) => Nnf::Const(false),
        (0, true) => not_null(column),
        (1, false) => cmp(column, CmpOp::Eq, members.remove(0)),
        (1, true) => cmp(column, CmpOp::NotEq, members.remove(0)),
        (_, negated) => Nnf::Leaf(Leaf::In {
            column: column.clone(),
            list: members,
            negated,
        }),
    }
}

/// Bounds on a column of exact numbers: each decides against the domain's range first, then
/// snaps the bound to the grid of multiples of `10^-scale` (a bound between two members
/// becomes the member on its inner side).
struct Grid<'a> {
    column: &'a ColumnRef,
    scale: u8,
    min: &'a LongNumber,
    max: &'a LongNumber,
}

impl Grid<'_> {
    fn snap(&self, v: &LongNumber) -> Option<(String, String)> {
        v.floor_ceil(self.scale)
    }

    fn number(text: String) -> Literal {
        Literal::Number(text)
    }

    /// `x >= v`.
    fn at_least(&self, v: &LongNumber) -> Nnf {
        if v <= self.min {
            return not_null(self.column);
        }
        if v > self.max {
            return Nnf::Const(false);
        }
        match self.snap(v) {
            Some((_, ceil)) => cmp(self.column, CmpOp::GtEq, Self::number(ceil)),
            None => not_null(self.column),
        }
    }

    /// `x > v`.
    fn above(&self, v: &LongNumber) -> Nnf {
        if v < self.min {
            return not_null(self.column);
        }
        if v >= self.max {
            return Nnf::Const(false);
        }
        match self.snap(v) {
            Some((floor, ceil)) if floor == ceil => {
                cmp(self.column, CmpOp::Gt, Self::number(floor))
            }
            Some((_, ceil)) => cmp(self.column, CmpOp::GtEq, Self::number(ceil)),
            None => not_null(self.column),
        }
    }

    /// `x <= v`.
    fn at_most(&self, v: &LongNumber) -> Nnf {
        if v >= self.max {
            return not_null(self.column);
        }
        if v < self.min {
            return Nnf::Const(false);
        }
        match self.snap(v) {
            Some((floor, _)) => cmp(self.column, CmpOp::LtEq, Self::number(floor)),
            None => not_null(self.column),
        }
    }

    /// `x < v`.
    fn below(&self, v: &LongNumber) -> Nnf {
        if v > self.max {
            return not_null(self.column);
        }
        if v <= self.min {
            return Nnf::Const(false);
        }
        match self.snap(v) {
            Some((floor, ceil)) if floor == ceil => {
                cmp(self.column, CmpOp::Lt, Self::number(floor))
            }
            Some((floor, _)) => cmp(self.column, CmpOp::LtEq, Self::number(floor)),
            None => not_null(self.column),
        }
    }

    /// `low <= x <= high`: one member, a range of members, or none.
    fn between(&self, low: &LongNumber, high: &LongNumber) -> Nnf {
        if high < self.min || low > self.max {
            return Nnf::Const(false);
        }
        let low = low.max(self.min);
        let high = high.min(self.max);
        let (Some((_, first)), Some((last, _))) = (self.snap(low), self.snap(high)) else {
            // Beyond 38 digits: the range as written keeps every member in it.
            return Nnf::and(vec![self.at_least(low), self.at_most(high)]);
        };
        match (LongNumber::parse(&first), LongNumber::parse(&last)) {
            (Some(f), Some(l)) if f > l => Nnf::Const(false),
            (Some(f), Some(l)) if f == l => cmp(self.column, CmpOp::Eq, Self::number(first)),
            _ => Nnf::and(vec![
                cmp(self.column, CmpOp::GtEq, Self::number(first)),
                cmp(self.column, CmpOp::LtEq, Self::number(last)),
            ]),
        }
    }

    /// `x != L`: every engine reads one member `v` (then `x != v`), or the rows the readings
    /// exclude differ and only NULL is excluded by all (`x IS NOT NULL`).
    fn other_than(&self, r: &Readings) -> Nnf {
        match self.member(r) {
            Some(v) => cmp(self.column, CmpOp::NotEq, Self::number(v)),
            None => not_null(self.column),
        }
    }

    /// The one member every reading is, if there is one: a double `d` compared with `x` as a
    /// double excludes at least `x = d`.
    fn member(&self, r: &Readings) -> Option<String> {
        if r.least != r.greatest || &r.least < self.min || &r.least > self.max {
            return None;
        }
        let (floor, ceil) = self.snap(&r.least)?;
        (floor == ceil).then_some(floor)
    }

    fn leaf(&self, op: CmpOp, r: &Readings) -> Nnf {
        match op {
            CmpOp::Eq => self.between(&r.low, &r.high),
            CmpOp::NotEq => self.other_than(r),
            CmpOp::Gt => self.above(&r.least),
            CmpOp::GtEq => self.at_least(&r.low),
            CmpOp::Lt => self.below(&r.greatest),
            CmpOp::LtEq => self.at_most(&r.high),
        }
    }
}

/// The literal as written, when every engine reads it as that member of the domain: a plain
/// number on the grid and in range (`None` for a quoted one, which is re-spelled as a number).
fn unchanged(literal: &Literal, r: &Readings, grid: &Grid<'_>) -> bool {
    matches!(literal, Literal::Number(_))
        && !is_double_token(literal)
        && r.least == r.low
        && r.greatest == r.high
        && grid
            .member(r)
            .is_some_and(|m| LongNumber::parse(&m).as_ref() == Some(&r.least))
}

/// Whether Spark folds `x op L` to the constant TRUE, NULL rows included (measured on pyspark
/// 4, ANSI on and off: `b > -9223372036854775809` on a BIGINT column holding NULL and 1
/// matches both rows, `b != -9223372036854775809` and `i > -2147483649` match one): an
/// integer column of any width against a plain number beyond the range of BIGINT with at most
/// 38 digits (a decimal literal in Spark; 39 digits are a DOUBLE there, which Spark compares
/// exactly), in the direction that holds for every value. DuckDB and DataFusion compare it
/// exactly (`x IS NOT NULL`); the union of the readings is TRUE. A decimal column against a
/// literal beyond its precision is not folded (measured: `d > -100000000000000000000` on a
/// decimal(5,2) column matches only the non-NULL row).
fn spark_folds_to_true(literal: &Literal, op: CmpOp, decimal: bool) -> bool {
    if decimal || is_double_token(literal) {
        return false;
    }
    let Literal::Number(text) = literal else {
        return false;
    };
    let ordering = match op {
        CmpOp::Lt | CmpOp::LtEq | CmpOp::Gt | CmpOp::GtEq => true,
        // Compared exactly by Spark too: `!=` excludes NULL, `=` matches nothing.
        CmpOp::Eq | CmpOp::NotEq => false,
    };
    let (Some(v), Some(long_min), Some(long_max)) = (
        LongNumber::parse(text),
        LongNumber::parse(&i64::MIN.to_string()),
        LongNumber::parse(&i64::MAX.to_string()),
    ) else {
        return false;
    };
    let digits = text
        .trim()
        .trim_start_matches(['-', '+'])
        .chars()
        .filter(char::is_ascii_digit)
        .collect::<String>();
    let significant = digits.trim_start_matches('0').len();
    ordering && (v < long_min || v > long_max) && significant <= 38
}

fn is_not_null(nnf: &Nnf) -> bool {
    matches!(nnf, Nnf::Leaf(Leaf::IsNull { negated: true, .. }))
}

/// A timestamp text with digits below the microsecond, cut to the microsecond (`None` when
/// it has none): Spark and DuckDB read it so (measured: `ts = '..00.0000009'` matches
/// `..00`); DataFusion compares in nanoseconds, where no microsecond value equals it.
fn below_microsecond(literal: &Literal) -> Option<Literal> {
    let (text, rebuild): (&str, Box<dyn Fn(String) -> Literal>) = match literal {
        Literal::String(t) => (t, Box::new(Literal::String)),
        Literal::Typed { kind, text } => {
            let kind = *kind;
            (text, Box::new(move |t| Literal::Typed { kind, text: t }))
        }
        Literal::Number(_) | Literal::Boolean(_) | Literal::Null | Literal::Binary(_) => {
            return None;
        }
    };
    let colon = text.rfind(':')?;
    let dot = colon + text[colon..].find('.')?;
    let digits = text[dot + 1..]
        .bytes()
        .take_while(u8::is_ascii_digit)
        .count();
    if digits <= 6 {
        return None;
    }
    let cut = dot + 1 + 6;
    let end = dot + 1 + digits;
    Some(rebuild(format!("{}{}", &text[..cut], &text[end..])))
}

/// A timestamp column against a text with digits below the microsecond: the union of the
/// readings (cut to the microsecond; compared in nanoseconds).
fn retype_timestamp(leaf: &Leaf) -> Option<(Nnf, bool)> {
    match leaf {
        Leaf::Cmp {
            column,
            op,
            literal,
        } => {
            let cut = below_microsecond(literal)?;
            Some((
                match op {
                    // Cut: `x = T`; in nanoseconds nothing equals it.
                    CmpOp::Eq => cmp(column, CmpOp::Eq, cut),
                    // Cut: every row but `T`; in nanoseconds every row.
                    CmpOp::NotEq => not_null(column),
                    // In nanoseconds `x < T.000000999` holds at `T` too.
                    CmpOp::Lt | CmpOp::LtEq => cmp(column, CmpOp::LtEq, cut),
                    // Cut: `x > T`; in nanoseconds `x > T` as well.
                    CmpOp::Gt => cmp(column, CmpOp::Gt, cut),
                    CmpOp::GtEq => cmp(column, CmpOp::GtEq, cut),
                },
                true,
            ))
        }
        Leaf::In {
            column,
            list,
            negated,
        } => {
            if list.iter().all(|l| below_microsecond(l).is_none()) {
                return None;
            }
            let members: Vec<Literal> = list
                .iter()
                .filter_map(|l| match below_microsecond(l) {
                    None => Some(l.clone()),
                    // NOT IN: in nanoseconds the item excludes no row.
                    Some(_) if *negated => None,
                    Some(cut) => Some(cut),
                })
                .collect();
            Some((listed(column, members, *negated), true))
        }
        Leaf::IsNull { .. } | Leaf::Bool { .. } | Leaf::Like { .. } | Leaf::Unsupported { .. } => {
            None
        }
    }
}

/// The rewrite of one leaf and whether engines disagree on it; `None` when it needs none.
/// `domain`: the column's ([`domain`]).
fn retype_leaf(leaf: &Leaf, info: &ColumnInfo, domain: Option<&Domain>) -> Option<(Nnf, bool)> {
    if matches!(
        info.primitive(),
        Some(PrimitiveType::Timestamp | PrimitiveType::TimestampNtz)
    ) {
        return retype_timestamp(leaf);
    }
    match domain? {
        Domain::Exact {
            scale,
            min,
            max,
            decimal,
            int_digits,
        } => {
            let column = leaf.column()?;
            let grid = Grid {
                column,
                scale: *scale,
                min,
                max,
            };
            retype_exact(leaf, &grid, *decimal, *int_digits)
        }
        Domain::Float => retype_float(leaf),
        Domain::Double => retype_double(leaf),
    }
}

/// A double column: every engine casts a quoted number to double; a number token of any form
/// is the double it rounds to.
fn retype_double(leaf: &Leaf) -> Option<(Nnf, bool)> {
    let respell = |l: &Literal| match l {
        Literal::String(s) if LongNumber::parse(s).is_some() => {
            Some(Literal::Number(s.trim().to_string()))
        }
        _ => None,
    };
    match leaf {
        Leaf::Cmp {
            column,
            op,
            literal,
        } => respell(literal).map(|l| (cmp(column, *op, l), false)),
        Leaf::In {
            column,
            list,
            negated,
        } => {
            if list.iter().all(|l| respell(l).is_none()) {
                return None;
            }
            let list = list
                .iter()
                .map(|l| respell(l).unwrap_or_else(|| l.clone()))
                .collect();
            Some((
                Nnf::Leaf(Leaf::In {
                    column: column.clone(),
                    list,
                    negated: *negated,
                }),
                false,
            ))
        }
        Leaf::IsNull { .. } | Leaf::Bool { .. } | Leaf::Like { .. } | Leaf::Unsupported { .. } => {
            None
        }
    }
}

fn retype_exact(
    leaf: &Leaf,
    grid: &Grid<'_>,
    decimal: bool,
    int_digits: u8,
) -> Option<(Nnf, bool)> {
    let in_doubles = matches!(leaf, Leaf::In { list, .. } if list.iter().any(is_double_token));
    let readings = |l: &Literal| Readings::of(l, grid.scale, decimal, in_doubles, int_digits);
    match leaf {
        Leaf::Cmp { op, literal, .. } => {
            let r = readings(literal)?;
            if unchanged(literal, &r, grid) {
                return None;
            }
            // A quoted member re-spelled as the number every engine casts it to.
            if !r.disagree
                && let Some(m) = grid.member(&r)
                && matches!(literal, Literal::String(_))
                && LongNumber::parse(&m).as_ref() == Some(&r.low)
                && r.low == r.high
            {
                return Some((cmp(grid.column, *op, Literal::Number(m)), false));
            }
            let rewritten = grid.leaf(*op, &r);
            // Spark decides the comparison before reading: TRUE for every row, NULL included.
            if spark_folds_to_true(literal, *op, decimal) && is_not_null(&rewritten) {
                return Some((Nnf::Const(true), true));
            }
            Some((rewritten, r.disagree))
        }
        Leaf::In { list, negated, .. } => {
            // An item that is no number (`'NaN'`) stays as written and is left to coercion.
            let items: Vec<(&Literal, Option<Readings>)> =
                list.iter().map(|l| (l, readings(l))).collect();
            if items
                .iter()
                .all(|(l, r)| r.as_ref().is_none_or(|r| unchanged(l, r, grid)))
            {
                return None;
            }
            let mut disagree = false;
            let mut members: Vec<Literal> = Vec::new();
            let mut ranges: Vec<Nnf> = Vec::new();
            for (l, r) in items {
                let Some(r) = r else {
                    members.push(l.clone());
                    continue;
                };
                disagree |= r.disagree;
                if unchanged(l, &r, grid) {
                    members.push(l.clone());
                    continue;
                }
                if *negated {
                    // `x NOT IN (..)` is `x != item` for each: an item no engine reads as one
                    // member excludes only NULL, which the other items exclude too.
                    if let Some(m) = grid.member(&r) {
                        members.push(Literal::Number(m));
                    }
                    continue;
                }
                match grid.between(&r.low, &r.high) {
                    Nnf::Leaf(Leaf::Cmp {
                        op: CmpOp::Eq,
                        literal,
                        ..
                    }) => members.push(literal),
                    Nnf::Const(false) => {}
                    range => ranges.push(range),
                }
            }
            let listed = listed(grid.column, members, *negated);
            let rewritten = if ranges.is_empty() {
                listed
            } else {
                ranges.insert(0, listed);
                Nnf::or(ranges)
            };
            Some((rewritten, disagree))
        }
        Leaf::IsNull { .. } | Leaf::Bool { .. } | Leaf::Like { .. } | Leaf::Unsupported { .. } => {
            None
        }
    }
}

/// A float column. Spark and DataFusion widen the column to double, DuckDB narrows a decimal
/// literal to the nearest float: where the literal has no exact float the two readings differ
/// and the union is kept.
fn retype_float(leaf: &Leaf) -> Option<(Nnf, bool)> {
    match leaf {
        Leaf::Cmp {
            column,
            op,
            literal,
        } => {
            let (v, place) = float_place(literal)?;
            let FloatPlace::Between { down, up } = place else {
                return match literal {
                    Literal::Number(_) => None,
                    // A quoted float is the number.
                    _ => Some((
                        cmp(
                            column,
                            *op,
                            Literal::Number(numeric_text(literal)?.to_string()),
                        ),
                        false,
                    )),
                };
            };
            // DuckDB's `x >= nearest` / `x <= nearest` admits the nearest float too, which may
            // lie on the far side of the literal: the union takes it.
            let nearest = float_literal(v as f32);
            let rewritten = match op {
                CmpOp::Eq => cmp(column, CmpOp::Eq, nearest),
                CmpOp::NotEq => not_null(column),
                CmpOp::GtEq => cmp(column, CmpOp::GtEq, nearest),
                CmpOp::LtEq => cmp(column, CmpOp::LtEq, nearest),
                CmpOp::Gt => cmp(column, CmpOp::GtEq, float_literal(up)),
                CmpOp::Lt => cmp(column, CmpOp::LtEq, float_literal(down)),
            };
            Some((rewritten, true))
        }
        Leaf::In {
            column,
            list,
            negated,
        } => {
            let placed: Vec<(&Literal, Option<(f64, FloatPlace)>)> =
                list.iter().map(|l| (l, float_place(l))).collect();
            if placed.iter().all(|(l, p)| match p {
                None => true,
                Some((_, FloatPlace::Member)) => matches!(l, Literal::Number(_)),
                Some((_, FloatPlace::Between { .. })) => false,
            }) {
                return None;
            }
            let mut members: Vec<Literal> = Vec::new();
            let mut disagree = false;
            for (l, p) in placed {
                match p {
                    None => members.push(l.clone()),
                    Some((_, FloatPlace::Member)) => {
                        members.push(Literal::Number(numeric_text(l)?.to_string()));
                    }
                    Some((v, FloatPlace::Between { .. })) => {
                        // DuckDB's nearest float (the union keeps it in an IN list; a NOT IN
                        // list then cannot exclude it).
                        disagree = true;
                        if !negated {
                            members.push(float_literal(v as f32));
                        }
                    }
                }
            }
            Some((listed(column, members, *negated), disagree))
        }
        Leaf::IsNull { .. } | Leaf::Bool { .. } | Leaf::Like { .. } | Leaf::Unsupported { .. } => {
            None
        }
    }
}
