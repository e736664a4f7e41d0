//! Literal coercion: a raw literal token becomes a kernel [`Scalar`] of its column's type, or a
//! clear error. delta_kernel does not coerce (pitfall 14): `trip_distance > 5` must reach it as
//! a double. Every coercion here is lossless; a literal that would need rounding is rejected
//! instead, because a rounded bound can drop a matching file.

use std::cmp::Ordering;

use chrono::{DateTime, NaiveDate, NaiveDateTime, NaiveTime};
use delta_kernel::expressions::{DecimalData, Scalar};
use delta_kernel::schema::{DataType, DecimalType, PrimitiveType};

use crate::ast::{Literal, TypedLiteralKind};
use crate::error::ExplainError;
use crate::schema::ColumnInfo;

/// A decimal number held exactly: `mantissa * 10^-scale`, normalized so that the mantissa has
/// no trailing zero digits (so equal numbers have equal representations).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExactNumber {
    pub mantissa: i128,
    pub scale: i32,
}

impl ExactNumber {
    /// Parses `[+-]digits[.digits][e[+-]digits]`. `None` for anything else or on overflow.
    pub fn parse(text: &str) -> Option<Self> {
        LongNumber::parse(text)?.to_exact()
    }

    fn normalized(mut self) -> Self {
        if self.mantissa == 0 {
            return Self {
                mantissa: 0,
                scale: 0,
            };
        }
        while self.mantissa % 10 == 0 {
            self.mantissa /= 10;
            self.scale -= 1;
        }
        self
    }

    /// The value as an integer, if it is one and fits.
    pub fn to_i128(self) -> Option<i128> {
        if self.scale <= 0 {
            self.mantissa
                .checked_mul(10i128.checked_pow(u32::try_from(-self.scale).ok()?)?)
        } else {
            None
        }
    }

    /// The unscaled value at `scale`, if representable without losing digits.
    pub fn rescaled(self, scale: u8) -> Option<i128> {
        let shift = i32::from(scale) - self.scale;
        if shift < 0 {
            return None;
        }
        self.mantissa
            .checked_mul(10i128.checked_pow(u32::try_from(shift).ok()?)?)
    }
}

impl Ord for ExactNumber {
    fn cmp(&self, other: &Self) -> Ordering {
        let scale = self.scale.max(other.scale);
        let widen = |n: &ExactNumber| -> Option<i128> {
            n.mantissa
                .checked_mul(10i128.checked_pow(u32::try_from(scale - n.scale).ok()?)?)
        };
        match (widen(self), widen(other)) {
            (Some(a), Some(b)) => a.cmp(&b),
            // Out of i128 range at a common scale: compare digit by digit (never through a
            // double, which cannot tell `1e-400` from 0, pitfall 25).
            _ => LongNumber::of(self).cmp(&LongNumber::of(other)),
        }
    }
}

/// A number of any length, for exact comparison: `0.d1d2d3... * 10^point`, with no leading
/// or trailing zero digit (zero has no digits and no sign).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LongNumber {
    negative: bool,
    digits: Vec<u8>,
    point: i64,
}

impl LongNumber {
    /// Parses `[+-]digits[.digits][e[+-]digits]`, any number of digits. `None` otherwise.
    pub fn parse(text: &str) -> Option<Self> {
        let text = text.trim();
        let (negative, rest) = match text.strip_prefix('-') {
            Some(r) => (true, r),
            None => (false, text.strip_prefix('+').unwrap_or(text)),
        };
        let (body, exponent) = match rest.find(['e', 'E']) {
            Some(i) => (&rest[..i], rest[i + 1..].parse::<i64>().ok()?),
            None => (rest, 0),
        };
        let (int_part, frac_part) = body.split_once('.').unwrap_or((body, ""));
        if (int_part.is_empty() && frac_part.is_empty())
            || !int_part
                .bytes()
                .chain(frac_part.bytes())
                .all(|b| b.is_ascii_digit())
        {
            return None;
        }
        let all: Vec<u8> = int_part
            .bytes()
            .chain(frac_part.bytes())
            .map(|b| b - b'0')
            .collect();
        let leading = all.iter().take_while(|d| **d == 0).count();
        let mut digits = all[leading..].to_vec();
        while digits.last() == Some(&0) {
            digits.pop();
        }
        if digits.is_empty() {
            return Some(Self {
                negative: false,
                digits,
                point: 0,
            });
        }
        let point = i64::try_from(int_part.len()).ok()? - i64::try_from(leading).ok()? + exponent;
        Some(Self {
            negative,
            digits,
            point,
        })
    }

    /// The same number as an [`ExactNumber`], `None` beyond 38 digits or an i32 scale.
    fn to_exact(&self) -> Option<ExactNumber> {
        let mut mantissa: i128 = 0;
        for d in &self.digits {
            mantissa = mantissa.checked_mul(10)?.checked_add(i128::from(*d))?;
        }
        if self.negative {
            mantissa = -mantissa;
        }
        let scale = i64::try_from(self.digits.len()).ok()? - self.point;
        Some(
            ExactNumber {
                mantissa,
                scale: i32::try_from(scale).ok()?,
            }
            .normalized(),
        )
    }

    /// Whether the number is zero (of either sign).
    pub fn is_zero(&self) -> bool {
        self.digits.is_empty()
    }

    fn of(n: &ExactNumber) -> Self {
        let text = format!("{}e{}", n.mantissa, -i64::from(n.scale));
        Self::parse(&text).unwrap_or(Self {
            negative: false,
            digits: Vec::new(),
            point: 0,
        })
    }

    /// The neighbours of this number on the grid of multiples of `10^-scale`, as plain text:
    /// `(floor, ceil)`, equal when the number is on the grid. `None` beyond 38 digits.
    pub fn floor_ceil(&self, scale: u8) -> Option<(String, String)> {
        let scale_i = i64::from(scale);
        // Digits of the number that lie at or above the grid's unit.
        let keep = self.point + scale_i;
        let kept_len =
            usize::try_from(keep.clamp(0, i64::try_from(self.digits.len()).ok()?)).ok()?;
        let exact = keep >= i64::try_from(self.digits.len()).ok()?;
        let mut unscaled: i128 = 0;
        for d in &self.digits[..kept_len] {
            unscaled = unscaled.checked_mul(10)?.checked_add(i128::from(*d))?;
        }
        for _ in kept_len..usize::try_from(keep.max(0)).ok()? {
            unscaled = unscaled.checked_mul(10)?;
        }
        let truncated = if self.negative { -unscaled } else { unscaled };
        let (floor, ceil) = match (exact, self.negative) {
            (true, _) => (truncated, truncated),
            (false, false) => (truncated, truncated.checked_add(1)?),
            (false, true) => (truncated.checked_sub(1)?, truncated),
        };
        Some((decimal_text(floor, scale), decimal_text(ceil, scale)))
    }

    /// The number cut to `scale` fractional digits toward zero, and rounded there half away
    /// from zero: `(truncated, rounded)`, as Spark with ANSI off and DuckDB cast a quoted
    /// fraction to a column of that scale. `None` beyond 38 digits.
    pub fn truncated_and_rounded(&self, scale: u8) -> Option<(String, String)> {
        let (floor, ceil) = self.floor_ceil(scale)?;
        if floor == ceil {
            return Some((floor.clone(), floor));
        }
        let (toward, away) = if self.negative {
            (ceil, floor)
        } else {
            (floor, ceil)
        };
        // Half away from zero depends on the first digit dropped alone.
        let first_dropped = self.point + i64::from(scale);
        let up = usize::try_from(first_dropped)
            .ok()
            .and_then(|i| self.digits.get(i))
            .is_some_and(|d| *d >= 5);
        Some(if up {
            (toward, away)
        } else {
            (toward.clone(), toward)
        })
    }

    fn magnitude_cmp(&self, other: &Self) -> Ordering {
        match (self.digits.is_empty(), other.digits.is_empty()) {
            (true, true) => Ordering::Equal,
            (true, false) => Ordering::Less,
            (false, true) => Ordering::Greater,
            (false, false) => self
                .point
                .cmp(&other.point)
                .then_with(|| self.digits.cmp(&other.digits)),
        }
    }
}

impl Ord for LongNumber {
    fn cmp(&self, other: &Self) -> Ordering {
        match (self.negative, other.negative) {
            (false, true) => Ordering::Greater,
            (true, false) => Ordering::Less,
            (false, false) => self.magnitude_cmp(other),
            (true, true) => other.magnitude_cmp(self),
        }
    }
}

impl std::fmt::Display for LongNumber {
    /// Plain decimal text, no exponent.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.digits.is_empty() {
            return f.write_str("0");
        }
        let digits: String = self.digits.iter().map(|d| char::from(b'0' + d)).collect();
        let sign = if self.negative { "-" } else { "" };
        let len = i64::try_from(digits.len()).unwrap_or(i64::MAX);
        if self.point <= 0 {
            write!(
                f,
                "{sign}0.{}{digits}",
                "0".repeat(usize::try_from(-self.point).unwrap_or(0))
            )
        } else if self.point >= len {
            write!(
                f,
                "{sign}{digits}{}",
                "0".repeat(usize::try_from(self.point - len).unwrap_or(0))
            )
        } else {
            let (int, frac) = digits.split_at(usize::try_from(self.point).unwrap_or(0));
            write!(f, "{sign}{int}.{frac}")
        }
    }
}

impl PartialOrd for LongNumber {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialOrd for ExactNumber {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// Compares two non-null scalars of one type. Floats compare as every engine compares them:
/// `-0.0 = 0.0` (Spark, DuckDB, DataFusion), otherwise in total order. A partition value is
/// typed from its text, and `NaN` text parses to a NaN above every number, where Spark, DuckDB
/// and DataFusion agree (docs/semantics.md).
pub fn compare(a: &Scalar, b: &Scalar) -> Option<Ordering> {
    use Scalar::*;
    // Two arms a variant and no catch-all, so that a new variant is a decision, not a default.
    match (a, b) {
        // Adding +0.0 turns -0.0 into +0.0 and leaves every other value (NaN included) as it is.
        (Float(x), Float(y)) => Some((x + 0.0).total_cmp(&(y + 0.0))),
        (Float(_), _) => None,
        (Double(x), Double(y)) => Some((x + 0.0).total_cmp(&(y + 0.0))),
        (Double(_), _) => None,
        // One scale: the unscaled integers order the values; two scales are two types.
        (Decimal(x), Decimal(y)) => (x.scale() == y.scale()).then(|| x.bits().cmp(&y.bits())),
        (Decimal(_), _) => None,
        // Exact values: their own order. Strings by code point, as UTF-8 bytes order them.
        (Integer(x), Integer(y)) => Some(x.cmp(y)),
        (Integer(_), _) => None,
        (Long(x), Long(y)) => Some(x.cmp(y)),
        (Long(_), _) => None,
        (Short(x), Short(y)) => Some(x.cmp(y)),
        (Short(_), _) => None,
        (Byte(x), Byte(y)) => Some(x.cmp(y)),
        (Byte(_), _) => None,
        (String(x), String(y)) => Some(x.cmp(y)),
        (String(_), _) => None,
        (Boolean(x), Boolean(y)) => Some(x.cmp(y)),
        (Boolean(_), _) => None,
        (Timestamp(x), Timestamp(y)) => Some(x.cmp(y)),
        (Timestamp(_), _) => None,
        (TimestampNtz(x), TimestampNtz(y)) => Some(x.cmp(y)),
        (TimestampNtz(_), _) => None,
        (Date(x), Date(y)) => Some(x.cmp(y)),
        (Date(_), _) => None,
        (Binary(x), Binary(y)) => Some(x.cmp(y)),
        (Binary(_), _) => None,
        (IntervalYearMonth(x), IntervalYearMonth(y)) => Some(x.cmp(y)),
        (IntervalYearMonth(_), _) => None,
        (IntervalDayTime(x), IntervalDayTime(y)) => Some(x.cmp(y)),
        (IntervalDayTime(_), _) => None,
        // NULL orders against nothing (the callers decide NULL first); nested values are never
        // a partition value nor a literal.
        (Null(_) | Struct(_) | Array(_) | Map(_), _) => None,
    }
}

/// `unscaled * 10^-scale` as plain decimal text (`12345` at scale 2 is `123.45`).
pub fn decimal_text(unscaled: i128, scale: u8) -> String {
    let digits = unscaled.unsigned_abs().to_string();
    let scale = usize::from(scale);
    let padded = format!("{digits:0>width$}", width = scale + 1);
    let (int, frac) = padded.split_at(padded.len() - scale);
    let sign = if unscaled < 0 { "-" } else { "" };
    if frac.is_empty() {
        format!("{sign}{int}")
    } else {
        format!("{sign}{int}.{frac}")
    }
}

/// Coerces `literal` to the type of `column`.
pub fn coerce(literal: &Literal, column: &ColumnInfo) -> Result<Scalar, ExplainError> {
    let fail = |reason: String| ExplainError::InvalidLiteral {
        column: column.column.dotted(),
        column_type: column.data_type.to_string(),
        reason,
    };
    let primitive = match &column.data_type {
        DataType::Primitive(p) => p,
        other => {
            return Err(fail(format!(
                "a {other} column cannot be compared with a literal"
            )));
        }
    };
    if matches!(literal, Literal::Null) {
        return Ok(Scalar::Null(column.data_type.clone()));
    }
    match primitive {
        PrimitiveType::Byte
        | PrimitiveType::Short
        | PrimitiveType::Integer
        | PrimitiveType::Long => {
            let n = number(literal).ok_or_else(|| fail(format!("{literal} is not a number")))?;
            let v = n.to_i128().ok_or_else(|| {
                fail(format!(
                    "{literal} is not an integer (rejected rather than rounded)"
                ))
            })?;
            let out_of_range = || fail(format!("{literal} is out of range"));
            Ok(match primitive {
                PrimitiveType::Byte => Scalar::Byte(i8::try_from(v).map_err(|_| out_of_range())?),
                PrimitiveType::Short => {
                    Scalar::Short(i16::try_from(v).map_err(|_| out_of_range())?)
                }
                PrimitiveType::Integer => {
                    Scalar::Integer(i32::try_from(v).map_err(|_| out_of_range())?)
                }
                _ => Scalar::Long(i64::try_from(v).map_err(|_| out_of_range())?),
            })
        }
        PrimitiveType::Float | PrimitiveType::Double => {
            let value =
                float_value(literal).ok_or_else(|| fail(format!("{literal} is not a number")))?;
            if *primitive == PrimitiveType::Double {
                return Ok(Scalar::Double(value));
            }
            // Engines compare a float column with a decimal literal by widening the column to
            // double; narrowing the literal instead changes the answer unless it is exact.
            let narrowed = value as f32;
            if f64::from(narrowed).to_bits() == value.to_bits() || value.is_nan() {
                Ok(Scalar::Float(narrowed))
            } else {
                Err(fail(format!(
                    "{literal} has no exact float representation (nearest {narrowed}); rejected rather than rounded"
                )))
            }
        }
        PrimitiveType::Decimal(dt) => decimal(literal, *dt).map_err(fail),
        PrimitiveType::String => match literal {
            Literal::String(s) => Ok(Scalar::String(s.clone())),
            other => Err(fail(format!("{other} is not a quoted string"))),
        },
        PrimitiveType::Boolean => match literal {
            Literal::Boolean(b) => Ok(Scalar::Boolean(*b)),
            other => Err(fail(format!("{other} is not TRUE or FALSE"))),
        },
        PrimitiveType::Date => match literal {
            Literal::String(s)
            | Literal::Typed {
                kind: TypedLiteralKind::Date,
                text: s,
            } => parse_date(s)
                .map(Scalar::Date)
                .ok_or_else(|| fail(format!("'{s}' is not a date (YYYY-MM-DD)"))),
            other => Err(fail(format!("{other} is not a date"))),
        },
        PrimitiveType::Timestamp | PrimitiveType::TimestampNtz => {
            let ntz = *primitive == PrimitiveType::TimestampNtz;
            let text = match literal {
                Literal::String(s) | Literal::Typed { text: s, .. } => s,
                other => return Err(fail(format!("{other} is not a timestamp"))),
            };
            let parsed = parse_timestamp(text).map_err(|e| fail(format!("'{text}': {e}")))?;
            match (parsed, ntz) {
                (ParsedTimestamp::Local(micros), false) => Ok(Scalar::Timestamp(micros)),
                (ParsedTimestamp::Utc(micros), false) => Ok(Scalar::Timestamp(micros)),
                (ParsedTimestamp::Local(micros), true) => Ok(Scalar::TimestampNtz(micros)),
                (ParsedTimestamp::Utc(_), true) => Err(fail(format!(
                    "'{text}' carries a time zone offset, which is ambiguous against a timestamp without time zone"
                ))),
            }
        }
        // Only a binary literal: engines' readings of a string beside a binary column are not
        // measured, so it stays outside the pruning language.
        PrimitiveType::Binary => match literal {
            Literal::Binary(bytes) => Ok(Scalar::Binary(bytes.clone())),
            other => Err(fail(format!("{other} is not a binary literal (X'..')"))),
        },
        other => Err(fail(format!(
            "{other} columns are not supported in predicates"
        ))),
    }
}

fn number(literal: &Literal) -> Option<ExactNumber> {
    match literal {
        Literal::Number(n) => ExactNumber::parse(n),
        _ => None,
    }
}

/// A float literal: a number token, or one of the quoted special values `'NaN'`,
/// `'Infinity'`, `'-Infinity'` (as Spark casts them).
fn float_value(literal: &Literal) -> Option<f64> {
    match literal {
        Literal::Number(n) => n.parse::<f64>().ok().filter(|v| v.is_finite()),
        Literal::String(s) => match s.trim().to_ascii_lowercase().as_str() {
            "nan" => Some(f64::NAN),
            "infinity" | "inf" | "+infinity" | "+inf" => Some(f64::INFINITY),
            "-infinity" | "-inf" => Some(f64::NEG_INFINITY),
            _ => None,
        },
        _ => None,
    }
}

fn decimal(literal: &Literal, dt: DecimalType) -> Result<Scalar, String> {
    let n = number(literal).ok_or_else(|| format!("{literal} is not a number"))?;
    let bits = n.rescaled(dt.scale()).ok_or_else(|| {
        format!("{literal} has more fractional digits than the column's scale {} (rejected rather than rounded)", dt.scale())
    })?;
    DecimalData::try_new(bits, dt)
        .map(Scalar::Decimal)
        .map_err(|_| format!("{literal} does not fit precision {}", dt.precision()))
}

/// Days since 1970-01-01 of a strict `YYYY-MM-DD`.
pub fn parse_date(text: &str) -> Option<i32> {
    let date = NaiveDate::parse_from_str(text.trim(), "%Y-%m-%d").ok()?;
    let epoch = NaiveDate::from_ymd_opt(1970, 1, 1)?;
    i32::try_from(date.signed_duration_since(epoch).num_days()).ok()
}

/// A parsed timestamp literal: with an explicit offset (normalized to UTC) or without one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParsedTimestamp {
    Utc(i64),
    Local(i64),
}

/// Parses `YYYY-MM-DD[( |T)HH:MM[:SS[.ffffff]]][Z|±HH:MM]`. Without an offset the wall-clock
/// value is returned as `Local`: against a TIMESTAMP column it is read as UTC (the kernel's
/// rule for timestamps without zone, docs/semantics.md). Sub-microsecond digits are rejected
/// (they would need rounding).
pub fn parse_timestamp(text: &str) -> Result<ParsedTimestamp, String> {
    let text = text.trim();
    let micros_of = |naive: NaiveDateTime| -> Result<i64, String> {
        if !naive
            .and_utc()
            .timestamp_subsec_nanos()
            .is_multiple_of(1000)
        {
            return Err("has sub-microsecond digits (rejected rather than rounded)".into());
        }
        Ok(naive.and_utc().timestamp_micros())
    };
    for fmt in [
        "%Y-%m-%dT%H:%M:%S%.f%:z",
        "%Y-%m-%d %H:%M:%S%.f%:z",
        "%Y-%m-%dT%H:%M:%S%.f%#z",
        "%Y-%m-%d %H:%M:%S%.f%#z",
    ] {
        if let Ok(dt) = DateTime::parse_from_str(text, fmt) {
            return micros_of(dt.naive_utc()).map(ParsedTimestamp::Utc);
        }
    }
    if let Some(stripped) = text.strip_suffix('Z').or_else(|| text.strip_suffix('z')) {
        return match parse_naive(stripped) {
            Some(naive) => micros_of(naive).map(ParsedTimestamp::Utc),
            None => Err("is not a timestamp".into()),
        };
    }
    match parse_naive(text) {
        Some(naive) => micros_of(naive).map(ParsedTimestamp::Local),
        None => Err("is not a timestamp (YYYY-MM-DD[ HH:MM:SS[.ffffff]][Z|±HH:MM])".into()),
    }
}

fn parse_naive(text: &str) -> Option<NaiveDateTime> {
    for fmt in [
        "%Y-%m-%d %H:%M:%S%.f",
        "%Y-%m-%dT%H:%M:%S%.f",
        "%Y-%m-%d %H:%M",
        "%Y-%m-%dT%H:%M",
    ] {
        if let Ok(v) = NaiveDateTime::parse_from_str(text, fmt) {
            return Some(v);
        }
    }
    NaiveDate::parse_from_str(text, "%Y-%m-%d")
        .ok()
        .map(|d| d.and_time(NaiveTime::MIN))
}
