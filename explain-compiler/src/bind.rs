//! Filters bound at query time: `current_date()`, `current_timestamp()` and `now()` are bound
//! before planning, as every engine binds them (Spark, DuckDB and DataFusion evaluate them once
//! per query, then prune with the value), so `pickup_date = current_date()` prunes like the
//! date it stands for.
//!
//! | written | bound to | as |
//! |---|---|---|
//! | `current_date()`, `current_date` | the day of the binding instant, in UTC | `DATE 'yyyy-mm-dd'` |
//! | `current_timestamp()`, `current_timestamp`, `now()` | the binding instant, to the microsecond | `TIMESTAMP 'yyyy-mm-dd hh:mm:ss.ffffff'` (read as UTC) |
//!
//! The instant is the run's (or the caller's, `--now`); the report says each value bound. The
//! text is rewritten outside quoted strings and quoted names only; a name that merely contains
//! one of these (`my_now()`, `current_dates`) is left alone, and so is a call with arguments.

use serde::Serialize;

/// One function bound: as written, and the literal it became.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Bound {
    pub function: String,
    pub value: String,
}

/// The instant the functions are bound to: microseconds since the Unix epoch, UTC.
pub type Instant = i64;

/// `sql` with every call of a time function replaced by its value at `now`, and what was
/// bound (each function once, in order of appearance).
pub fn bind_time(sql: &str, now: Instant) -> (String, Vec<Bound>) {
    let chars: Vec<char> = sql.chars().collect();
    let mut out = String::with_capacity(sql.len());
    let mut bound: Vec<Bound> = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if matches!(c, '\'' | '"' | '`') {
            // A quoted string or name to its closing quote (a doubled quote inside it).
            let start = i;
            i += 1;
            while i < chars.len() {
                if chars[i] == c {
                    if chars.get(i + 1) == Some(&c) {
                        i += 2;
                        continue;
                    }
                    i += 1;
                    break;
                }
                i += 1;
            }
            out.extend(&chars[start..i]);
            continue;
        }
        let starts_word =
            (c.is_ascii_alphabetic() || c == '_') && !(i > 0 && is_word(chars[i - 1]));
        if !starts_word {
            out.push(c);
            i += 1;
            continue;
        }
        let mut end = i;
        while end < chars.len() && is_word(chars[end]) {
            end += 1;
        }
        let word: String = chars[i..end].iter().collect();
        // `()` after the name, white space allowed; a call with arguments is not ours.
        let mut after = end;
        while after < chars.len() && chars[after].is_whitespace() {
            after += 1;
        }
        let mut parens = None;
        if chars.get(after) == Some(&'(') {
            let mut close = after + 1;
            while close < chars.len() && chars[close].is_whitespace() {
                close += 1;
            }
            if chars.get(close) == Some(&')') {
                parens = Some(close + 1);
            }
        }
        let called = chars.get(after) == Some(&'(');
        let (value, consumed) = match (word.to_ascii_lowercase().as_str(), parens) {
            ("current_date", Some(p)) => (Some(date_literal(now)), p),
            ("current_date", None) if !called => (Some(date_literal(now)), end),
            ("current_timestamp", Some(p)) | ("now", Some(p)) => (Some(timestamp_literal(now)), p),
            ("current_timestamp", None) if !called => (Some(timestamp_literal(now)), end),
            _ => (None, end),
        };
        match value {
            Some(value) => {
                let written: String = chars[i..consumed].iter().collect();
                if !bound.iter().any(|b| b.function == written) {
                    bound.push(Bound {
                        function: written,
                        value: value.clone(),
                    });
                }
                out.push_str(&value);
                i = consumed;
            }
            None => {
                out.push_str(&word);
                i = end;
            }
        }
    }
    (out, bound)
}

fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '.'
}

/// The UTC day of `now`, as a DATE literal.
fn date_literal(now: Instant) -> String {
    let (y, m, d) = civil(now.div_euclid(86_400_000_000));
    format!("DATE '{y:04}-{m:02}-{d:02}'")
}

/// `now` to the microsecond, as a TIMESTAMP literal read as UTC.
fn timestamp_literal(now: Instant) -> String {
    let days = now.div_euclid(86_400_000_000);
    let micros = now.rem_euclid(86_400_000_000);
    let (y, m, d) = civil(days);
    let secs = micros / 1_000_000;
    format!(
        "TIMESTAMP '{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02}.{:06}'",
        secs / 3600,
        secs / 60 % 60,
        secs % 60,
        micros % 1_000_000
    )
}

/// The proleptic Gregorian date of a day count since 1970-01-01 (Howard Hinnant's
/// `civil_from_days`).
fn civil(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

/// An instant from its text, as `--now` takes it: `yyyy-mm-dd`, or a timestamp
/// (`yyyy-mm-dd[T| ]hh:mm:ss[.ffffff]`, read as UTC, or with `Z` or `±hh:mm`).
pub fn parse_instant(text: &str) -> Result<Instant, String> {
    let text = text.trim();
    let with_time = if text.len() == 10 {
        format!("{text} 00:00:00")
    } else {
        text.to_string()
    };
    match crate::coerce::parse_timestamp(&with_time) {
        Ok(
            crate::coerce::ParsedTimestamp::Utc(micros)
            | crate::coerce::ParsedTimestamp::Local(micros),
        ) => Ok(micros),
        Err(e) => Err(format!(
            "`{text}` is not a date or a timestamp (yyyy-mm-dd[ hh:mm:ss[.ffffff]][Z|±hh:mm]): {e}"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 2024-01-03 10:30:00.123456 UTC.
    const NOW: Instant = 1_704_277_800_123_456;

    #[test]
    fn time_functions_become_their_values_and_nothing_else_changes() {
        let (sql, bound) = bind_time(
            "d = current_date() AND ts <= NOW() AND t > current_timestamp AND e = CURRENT_DATE",
            NOW,
        );
        assert_eq!(
            sql,
            "d = DATE '2024-01-03' AND ts <= TIMESTAMP '2024-01-03 10:30:00.123456' AND t > TIMESTAMP '2024-01-03 10:30:00.123456' AND e = DATE '2024-01-03'"
        );
        assert_eq!(bound.len(), 4);
        assert_eq!(bound[0].function, "current_date()");
        for untouched in [
            "s = 'current_date()'",
            "`now` = 1",
            "\"current_date\" = 1",
            "my_now() = 1",
            "current_dates = 1",
            "t.now = 1",
            "now(1) = 2",
            "current_date(1) = 2",
        ] {
            assert_eq!(bind_time(untouched, NOW), (untouched.to_string(), vec![]));
        }
    }

    #[test]
    fn days_before_the_epoch_and_leap_days_are_dated_right() {
        assert_eq!(date_literal(0), "DATE '1970-01-01'");
        assert_eq!(date_literal(-1), "DATE '1969-12-31'");
        assert_eq!(
            date_literal(parse_instant("2024-02-29T23:59:59").unwrap()),
            "DATE '2024-02-29'"
        );
        assert_eq!(
            parse_instant("2024-01-03 12:30:00+02:00").unwrap(),
            parse_instant("2024-01-03T10:30:00Z").unwrap()
        );
        assert!(parse_instant("yesterday").is_err());
    }
}
