//! The predicate shapes up to 64 KB the front end must answer or refuse at once (nested and
//! unbalanced `NOT (`, bare parentheses, long AND/OR chains, long IN lists, LIKE escapes), each
//! with the outcome it must have, and the front end they go through. Shared by the test
//! (front_end_bounds.rs: every outcome) and the benchmark (benches/front_end.rs: the time
//! each shape takes in a release build, where a parse that is not linear shows).

use explain_compiler::schema::TableColumns;
use explain_core::explain::{CompiledPredicate, ExplainOptions, kernel_scans};

/// The front end of one predicate: compile (parse, normalize, classify) and lower.
pub fn front_end(text: &str, columns: &TableColumns) -> Result<String, (i32, String)> {
    let compiled = CompiledPredicate::compile_against(text, columns)
        .map_err(|e| (e.exit_code(), e.to_string()))?;
    kernel_scans(&compiled, columns, ExplainOptions::default())
        .map_err(|e| (e.exit_code(), e.to_string()))?;
    Ok(compiled.normalized.to_string())
}

/// What a case must come to.
pub enum Expect {
    /// Compiles; its normalized form is this (or anything, when empty).
    Normalized(&'static str),
    /// Refused with exit 2 and a message containing this.
    Refused(&'static str),
}

pub fn nested_not(levels: usize, inner: &str, closed: bool) -> String {
    let close = if closed {
        ")".repeat(levels)
    } else {
        String::new()
    };
    format!("{}{inner}{close}", "NOT (".repeat(levels))
}

pub fn cases() -> Vec<(String, String, Expect)> {
    let mut out: Vec<(String, String, Expect)> = Vec::new();
    let mut add = |name: &str, text: String, expect: Expect| {
        assert!(text.len() <= 64 * 1024, "{name}: {} bytes", text.len());
        out.push((name.to_string(), text, expect));
    };
    nesting(&mut add);
    width_and_junk(&mut add);
    out
}

/// NOT nested balanced and not, deep errors, bare parentheses.
fn nesting(add: &mut dyn FnMut(&str, String, Expect)) {
    use Expect::*;
    // Nested NOT, balanced: even and odd depths within the limit read as what they say.
    add(
        "not-balanced-10",
        nested_not(10, "fare_amount > 1", true),
        Normalized("fare_amount > 1"),
    );
    add(
        "not-balanced-49",
        nested_not(49, "fare_amount > 1", true),
        Normalized("fare_amount <= 1"),
    );
    add(
        "not-balanced-51",
        nested_not(51, "fare_amount > 1", true),
        Refused("nests more than 100 levels"),
    );
    add(
        "not-balanced-120",
        nested_not(120, "fare_amount > 1", true),
        Refused("nests more than 100 levels"),
    );
    add(
        "not-balanced-64kb",
        nested_not(10_000, "fare_amount > 1", true),
        Refused("nests more than 100 levels"),
    );
    // Nested NOT, unbalanced: a clear error at once.
    for levels in [5, 18, 30, 40] {
        add(
            &format!("not-unclosed-{levels}"),
            nested_not(levels, "fare_amount > 1", false),
            Refused("`(` never closed"),
        );
    }
    add(
        "not-unclosed-64kb",
        nested_not(13_000, "fare_amount > 1", false),
        Refused("nests more than 100 levels"),
    );
    // A syntax error at the bottom of a deep valid nest.
    add(
        "not-balanced-error-inside",
        nested_not(49, "fare_amount >", true),
        Refused("malformed SQL"),
    );
    add(
        "not-balanced-error-inside-partition",
        nested_not(45, "pickup_date = = '2024-01-01'", true),
        Refused("malformed SQL"),
    );
    // NOT without parentheses.
    add(
        "not-chain-99",
        format!("{}fare_amount > 1", "NOT ".repeat(99)),
        Normalized("fare_amount <= 1"),
    );
    add(
        "not-chain-64kb",
        format!("{}fare_amount > 1", "NOT ".repeat(16_000)),
        Refused("nests more than 100 levels"),
    );
    // Bare parentheses.
    add(
        "parens-99",
        format!("{}fare_amount > 1{}", "(".repeat(99), ")".repeat(99)),
        Normalized("fare_amount > 1"),
    );
    add(
        "parens-101",
        format!("{}fare_amount > 1{}", "(".repeat(101), ")".repeat(101)),
        Refused("nests more than 100 levels"),
    );
    add(
        "parens-unclosed-64kb",
        format!("{}fare_amount > 1", "(".repeat(60_000)),
        Refused("nests more than 100 levels"),
    );
    add(
        "parens-extra-close",
        "fare_amount > 1)".to_string(),
        Refused("closes no `(`"),
    );
    add(
        "parens-close-then-open",
        ")fare_amount > 1(".to_string(),
        Refused("closes no `(`"),
    );
}

/// Deep alternations, wide chains, long lists, LIKE escapes, nested functions and junk.
fn width_and_junk(add: &mut dyn FnMut(&str, String, Expect)) {
    use Expect::*;
    // Alternating AND/OR nested 45 deep.
    let mut alternating = "fare_amount > 0".to_string();
    for i in 0..45 {
        let op = if i % 2 == 0 { "OR" } else { "AND" };
        alternating = format!("(trip_distance > {i} {op} {alternating})");
    }
    add("and-or-nested-45", alternating, Normalized(""));
    // Wide chains: thousands of conjuncts, disjuncts.
    let conjuncts: Vec<String> = (0..2800).map(|i| format!("fare_amount > {i}")).collect();
    add("and-chain-64kb", conjuncts.join(" AND "), Normalized(""));
    let disjuncts: Vec<String> = (0..1100)
        .map(|i| {
            format!(
                "(trip_distance < {i} AND pickup_date = '2024-01-0{}')",
                i % 9 + 1
            )
        })
        .collect();
    add("or-chain-64kb", disjuncts.join(" OR "), Normalized(""));
    // Long IN lists.
    let values: Vec<String> = (0..9_000).map(|i| i.to_string()).collect();
    add(
        "in-list-9000",
        format!("PULocationID IN ({})", values.join(", ")),
        Normalized(""),
    );
    add(
        "not-in-list-9000",
        format!("PULocationID NOT IN ({})", values.join(", ")),
        Normalized(""),
    );
    let dates: Vec<String> = (0..4_000)
        .map(|i| format!("'2024-{:02}-{:02}'", i % 12 + 1, i % 28 + 1))
        .collect();
    add(
        "in-list-partition-4000",
        format!("pickup_date IN ({})", dates.join(", ")),
        Normalized(""),
    );
    // LIKE with escapes.
    add(
        "like-escapes-64kb",
        format!("pickup_date LIKE '{}%'", "\\%".repeat(30_000)),
        Normalized(""),
    );
    add(
        "like-escape-clause",
        format!("pickup_date LIKE '{}%' ESCAPE '!'", "!_".repeat(30_000)),
        Normalized(""),
    );
    // Functions nested within the limit stay unsupported fragments.
    add(
        "functions-nested-40",
        format!("{}fare_amount{} > 1", "abs(".repeat(40), ")".repeat(40)),
        Normalized(""),
    );
    // Junk.
    add(
        "unterminated-string",
        "pickup_date = '2024-01-01".to_string(),
        Refused("malformed SQL"),
    );
    add(
        "operators-only-64kb",
        "AND OR NOT ".repeat(5_900),
        Refused(""),
    );
    add(
        "empty-parens-64kb",
        "()".repeat(30_000),
        Refused("malformed SQL"),
    );
}
