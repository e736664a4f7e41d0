//! Long lists shortened for the text page: an `IN` list of thousands of values, or the
//! thousands of `!=` conjuncts a `NOT IN` list becomes, would fill the screen each time the
//! page repeats the predicate. The JSON report keeps every value; only the page abbreviates.
//!
//! | written | on the page |
//! |---|---|
//! | `x IN (1, 2, ..., 10000)` | `x IN (1, 2, 3, 4, 5, ... 9,995 more)` |
//! | `x != 1 AND x != 2 AND ... AND x != 10000` | `x != 1 AND x != 2 AND x != 3 AND x != 4 AND x != 5 AND ... 9,995 more` |
//!
//! Quotes (`'..'`, `".."`) are read as such, so a comma or a parenthesis inside a string
//! literal or a double-quoted name is never taken for structure. Backticks are not: the page
//! wraps the SQL fragments it quotes in notes in them. A run of `AND` (or `OR`) is
//! shortened only where one keyword joins every term at that level and no `BETWEEN` is among
//! them (its `AND` is not a conjunction).

/// Lists and runs up to this many items are shown whole.
const SHOWN_WHOLE: usize = 12;
/// How many items a shortened list or run keeps.
const KEPT: usize = 5;

/// `text` with its long lists and runs shortened.
pub(super) fn abbreviate(text: &str) -> String {
    // A line's end stays where it is.
    if let Some(line) = text.strip_suffix('\n') {
        return abbreviate(line) + "\n";
    }
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    // A `)` that closes nothing ends a level early; the rest is rendered as a level of its own.
    while i < chars.len() {
        let (text, next, closed) = level(&chars, i);
        out.push_str(&text);
        if closed {
            out.push(')');
        }
        i = next;
    }
    out
}

/// Renders `chars[start..]` up to the `)` closing this level (or the end), shortening a long
/// list or run at this level; returns the text, the index after the level, and whether a `)`
/// closed it (not included in the text).
fn level(chars: &[char], start: usize) -> (String, usize, bool) {
    // The level's text with nested parentheses already rendered, and where each top-level
    // separator (`,`, ` AND `, ` OR `) sits in it.
    let mut out = String::new();
    let mut commas: Vec<usize> = Vec::new();
    let mut i = start;
    while i < chars.len() {
        let c = chars[i];
        match c {
            '\'' | '"' => {
                let end = closing_quote(chars, i);
                out.extend(&chars[i..end]);
                i = end;
                continue;
            }
            '(' => {
                let (inner, next, closed) = level(chars, i + 1);
                out.push('(');
                out.push_str(&inner);
                if closed {
                    out.push(')');
                }
                i = next;
                continue;
            }
            ')' => return (shorten(out, &commas), i + 1, true),
            ',' => commas.push(out.len()),
            _ => {}
        }
        out.push(c);
        i += 1;
    }
    (shorten(out, &commas), chars.len(), false)
}

/// The index after the quote that closes the one at `chars[open]` (a doubled quote is an
/// escaped one), or the end.
fn closing_quote(chars: &[char], open: usize) -> usize {
    let q = chars[open];
    let mut i = open + 1;
    while i < chars.len() {
        if chars[i] == q {
            if chars.get(i + 1) == Some(&q) {
                i += 2;
                continue;
            }
            return i + 1;
        }
        i += 1;
    }
    chars.len()
}

/// One level's text, with a long comma list or a long run of one junction shortened.
fn shorten(text: String, commas: &[usize]) -> String {
    if commas.len() + 1 > SHOWN_WHOLE {
        let more = commas.len() + 1 - KEPT;
        return format!("{}, ... {} more", &text[..commas[KEPT - 1]], grouped(more));
    }
    // `; ` separates the fragments of one bucket on the page's analysis lines.
    for junction in [" AND ", " OR ", "; "] {
        let at = top_level(&text, junction);
        let others_absent = [" AND ", " OR ", " BETWEEN "]
            .iter()
            .filter(|o| **o != junction)
            .all(|o| top_level(&text, o).is_empty());
        if at.len() + 1 > SHOWN_WHOLE && (junction == "; " || others_absent) {
            let more = at.len() + 1 - KEPT;
            return format!(
                "{}{junction}... {} more",
                &text[..at[KEPT - 1]],
                grouped(more)
            );
        }
    }
    text
}

/// Where `needle` occurs in `text` outside quotes and parentheses.
fn top_level(text: &str, needle: &str) -> Vec<usize> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let (mut depth, mut quote) = (0usize, None::<u8>);
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        match quote {
            Some(q) if b == q => quote = None,
            Some(_) => {}
            None => match b {
                b'\'' | b'"' => quote = Some(b),
                b'(' => depth += 1,
                b')' => depth = depth.saturating_sub(1),
                _ if depth == 0 && text.is_char_boundary(i) && text[i..].starts_with(needle) => {
                    out.push(i);
                    i += needle.len();
                    continue;
                }
                _ => {}
            },
        }
        i += 1;
    }
    out
}

/// `n` with thousands separated: `9,995`.
fn grouped(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, d) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(d);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::abbreviate;

    #[test]
    fn long_lists_and_runs_are_shortened() {
        let values: Vec<String> = (1..=10_000).map(|i| i.to_string()).collect();
        let conjuncts: Vec<String> = (1..=20).map(|i| format!("x != {i}")).collect();
        let cases: Vec<(String, String)> = vec![
            (
                format!("x IN ({})", values.join(", ")),
                "x IN (1, 2, 3, 4, 5, ... 9,995 more)".into(),
            ),
            (
                format!("a = 1 AND x NOT IN ({}) OR b = 2", values.join(", ")),
                "a = 1 AND x NOT IN (1, 2, 3, 4, 5, ... 9,995 more) OR b = 2".into(),
            ),
            (
                conjuncts.join(" AND "),
                "x != 1 AND x != 2 AND x != 3 AND x != 4 AND x != 5 AND ... 15 more".into(),
            ),
            (
                format!("y > 1 AND ({})", conjuncts.join(" AND ")),
                "y > 1 AND (x != 1 AND x != 2 AND x != 3 AND x != 4 AND x != 5 AND ... 15 more)"
                    .into(),
            ),
            // Short lists, mixed junctions, BETWEEN and quoted commas stay whole.
            ("x IN (1, 2, 3)".into(), "x IN (1, 2, 3)".into()),
            (
                format!("{} OR z = 1", conjuncts.join(" AND ")),
                format!("{} OR z = 1", conjuncts.join(" AND ")),
            ),
            (
                format!("x BETWEEN 1 AND 2 AND {}", conjuncts.join(" AND ")),
                format!("x BETWEEN 1 AND 2 AND {}", conjuncts.join(" AND ")),
            ),
            (
                "s IN ('a,b,c,d,e,f,g,h,i,j,k,l,m,n', 'o')".into(),
                "s IN ('a,b,c,d,e,f,g,h,i,j,k,l,m,n', 'o')".into(),
            ),
            (
                "s = ')(,,,,,,,,,,,,,,,' AND t = 'it''s'".into(),
                "s = ')(,,,,,,,,,,,,,,,' AND t = 'it''s'".into(),
            ),
            ("unbalanced (a, b".into(), "unbalanced (a, b".into()),
            ("((a) AND b)) c".into(), "((a) AND b)) c".into()),
            (
                format!("note: `x IN ({})` is long", values.join(", ")),
                "note: `x IN (1, 2, 3, 4, 5, ... 9,995 more)` is long".into(),
            ),
            ("x IN (1, 2)\n".into(), "x IN (1, 2)\n".into()),
            (
                format!("     ├─ é AND {}\n", conjuncts.join(" AND ")),
                "     ├─ é AND x != 1 AND x != 2 AND x != 3 AND x != 4 AND ... 16 more\n".into(),
            ),
            (
                format!("  stats-safe:      {}", conjuncts.join("; ")),
                "  stats-safe:      x != 1; x != 2; x != 3; x != 4; x != 5; ... 15 more".into(),
            ),
        ];
        for (text, expected) in cases {
            assert_eq!(
                abbreviate(&text),
                expected,
                "{}",
                &text[..text.len().min(80)]
            );
        }
    }
}
