//! SQL LIKE patterns: parsing with an escape character, the prefix-range rewrite, and a
//! matcher for the partition-literal evaluator.
//!
//! Semantics: `%` matches any run of characters (possibly empty), `_` exactly one character,
//! the escape character (backslash unless `ESCAPE` names another, as in Spark) makes the next
//! character literal. Matching is case-sensitive, by Unicode scalar value.

use crate::error::ExplainError;

/// The default escape character when a LIKE has no ESCAPE clause (Spark's and DataFusion's).
pub const DEFAULT_ESCAPE: char = '\\';

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Token {
    Char(char),
    AnyRun,
    AnyOne,
}

/// Splits a pattern into tokens. An escape character at the end of the pattern is an error,
/// as in Spark.
pub fn tokenize(pattern: &str, escape: Option<char>) -> Result<Vec<Token>, ExplainError> {
    let escape = escape.unwrap_or(DEFAULT_ESCAPE);
    let mut out = Vec::new();
    let mut chars = pattern.chars();
    while let Some(c) = chars.next() {
        if c == escape {
            match chars.next() {
                Some(next) => out.push(Token::Char(next)),
                None => {
                    return Err(ExplainError::InvalidPredicate(format!(
                        "LIKE pattern '{pattern}' ends with its escape character"
                    )));
                }
            }
        } else if c == '%' {
            // Consecutive `%` are one run.
            if out.last() != Some(&Token::AnyRun) {
                out.push(Token::AnyRun);
            }
        } else if c == '_' {
            out.push(Token::AnyOne);
        } else {
            out.push(Token::Char(c));
        }
    }
    Ok(out)
}

/// What a LIKE pattern means in simpler terms.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PatternShape {
    /// No wildcard: the pattern matches exactly this string.
    Exact(String),
    /// A literal prefix followed by one trailing `%`.
    Prefix(String),
    /// Anything else.
    General,
}

pub fn shape(tokens: &[Token]) -> PatternShape {
    let literal = |ts: &[Token]| -> Option<String> {
        ts.iter()
            .map(|t| match t {
                Token::Char(c) => Some(*c),
                _ => None,
            })
            .collect()
    };
    match tokens.split_last() {
        Some((Token::AnyRun, head)) => match literal(head) {
            Some(prefix) => PatternShape::Prefix(prefix),
            None => PatternShape::General,
        },
        _ => match literal(tokens) {
            Some(s) => PatternShape::Exact(s),
            None => PatternShape::General,
        },
    }
}

/// The least string greater than every string that starts with `prefix`, in code-point order
/// (which is also UTF-8 byte order, the order of Delta string statistics): increment the last
/// character, dropping trailing U+10FFFF first. `None` when no such string exists (the prefix
/// is all U+10FFFF), in which case the range has no upper bound.
///
/// Why the range is exact: `s` starts with `p` iff `p <= s < successor(p)`. Every extension of
/// `p` is `>= p`; and a string `>= p` that does not start with `p` differs from `p` at some
/// position by a larger character, so it is `>= successor(p)`.
pub fn successor(prefix: &str) -> Option<String> {
    let mut chars: Vec<char> = prefix.chars().collect();
    while let Some(last) = chars.pop() {
        let next = match last as u32 {
            0xD7FF => Some('\u{E000}'),
            0x10FFFF => None,
            n => char::from_u32(n + 1),
        };
        if let Some(next) = next {
            chars.push(next);
            return Some(chars.into_iter().collect());
        }
    }
    None
}

/// Whether `text` matches the tokens.
pub fn matches(tokens: &[Token], text: &str) -> bool {
    let text: Vec<char> = text.chars().collect();
    // Classic two-pointer wildcard matching with backtracking to the last `%`.
    let (mut t, mut p) = (0usize, 0usize);
    let mut star: Option<(usize, usize)> = None;
    while t < text.len() {
        match tokens.get(p) {
            Some(Token::Char(c)) if *c == text[t] => {
                t += 1;
                p += 1;
            }
            Some(Token::AnyOne) => {
                t += 1;
                p += 1;
            }
            Some(Token::AnyRun) => {
                star = Some((p, t));
                p += 1;
            }
            _ => match star {
                Some((sp, st)) => {
                    p = sp + 1;
                    t = st + 1;
                    star = Some((sp, st + 1));
                }
                None => return false,
            },
        }
    }
    tokens[p..].iter().all(|tok| *tok == Token::AnyRun)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check_shape(pattern: &str, escape: Option<char>, expected: PatternShape) {
        let tokens = tokenize(pattern, escape).unwrap();
        assert_eq!(shape(&tokens), expected, "shape of LIKE '{pattern}'");
    }

    #[test]
    fn shapes() {
        use PatternShape::*;
        check_shape("abc", None, Exact("abc".into()));
        check_shape("abc%", None, Prefix("abc".into()));
        check_shape("abc%%", None, Prefix("abc".into()));
        check_shape("%", None, Prefix(String::new()));
        check_shape("a\\%b%", None, Prefix("a%b".into()));
        check_shape("a!_b%", Some('!'), Prefix("a_b".into()));
        check_shape("a_c%", None, General);
        check_shape("%abc", None, General);
        check_shape("a%c", None, General);
        check_shape("a\\%", None, Exact("a%".into()));
    }

    #[test]
    fn trailing_escape_is_an_error() {
        assert!(tokenize("abc\\", None).is_err());
    }

    #[test]
    fn successors() {
        let cases: &[(&str, Option<&str>)] = &[
            ("abc", Some("abd")),
            ("2024-01-0", Some("2024-01-1")),
            ("a\u{10FFFF}", Some("b")),
            ("\u{10FFFF}\u{10FFFF}", None),
            ("a\u{D7FF}", Some("a\u{E000}")),
            ("a\u{7F}", Some("a\u{80}")),
        ];
        for (prefix, expected) in cases {
            assert_eq!(
                successor(prefix).as_deref(),
                *expected,
                "successor of {prefix:?}"
            );
        }
    }

    #[test]
    fn matching() {
        let cases: &[(&str, &str, bool)] = &[
            ("%01-03%", "2024-01-03", true),
            ("%01-03%", "2024-01-04", false),
            ("2024-01-0_", "2024-01-05", true),
            ("2024-01-0_", "2024-01-10", false),
            ("a%b%c", "axxbyyc", true),
            ("a%b%c", "axxbyy", false),
            ("%", "", true),
            ("_", "", false),
            ("a\\%", "a%", true),
            ("a\\%", "ab", false),
            ("%a%a%a", "aaa", true),
            ("%aa", "aba", false),
        ];
        for (pattern, text, expected) in cases {
            let tokens = tokenize(pattern, None).unwrap();
            assert_eq!(
                matches(&tokens, text),
                *expected,
                "'{text}' LIKE '{pattern}'"
            );
        }
    }

    #[test]
    fn prefix_range_agrees_with_matching() {
        // The rewrite `LIKE 'p%'` -> `>= p AND < successor(p)` must agree with the matcher.
        let prefixes = ["ab", "a\u{10FFFF}", "", "z\u{D7FF}"];
        let texts = [
            "a",
            "ab",
            "abc",
            "ac",
            "b",
            "a\u{10FFFF}x",
            "a\u{10FFFF}",
            "z\u{D7FF}q",
            "z\u{E000}",
            "",
        ];
        for p in prefixes {
            let tokens = tokenize(&format!("{p}%"), Some('!')).unwrap();
            for t in texts {
                let in_range = t >= p && successor(p).is_none_or(|s| t < s.as_str());
                assert_eq!(matches(&tokens, t), in_range, "'{t}' LIKE '{p}%'");
            }
        }
    }
}
