//! Minimizing a failing predicate: greedy steps that replace a junction or a NOT by one of its
//! children or drop one item of a junction, kept while the failure persists. Each step makes
//! the tree strictly smaller, so the search ends.

use explain_compiler::ast::Predicate;

/// The predicates one step smaller than `p`.
pub fn smaller(p: &Predicate) -> Vec<Predicate> {
    let mut out = Vec::new();
    match p {
        Predicate::And(items) | Predicate::Or(items) => {
            out.extend(items.iter().cloned());
            if items.len() > 2 {
                for i in 0..items.len() {
                    let rest: Vec<Predicate> = items
                        .iter()
                        .enumerate()
                        .filter(|(j, _)| *j != i)
                        .map(|(_, x)| x.clone())
                        .collect();
                    out.push(if matches!(p, Predicate::And(_)) {
                        Predicate::And(rest)
                    } else {
                        Predicate::Or(rest)
                    });
                }
            }
            for (i, item) in items.iter().enumerate() {
                for smaller_item in smaller(item) {
                    let mut copy = items.clone();
                    copy[i] = smaller_item;
                    out.push(if matches!(p, Predicate::And(_)) {
                        Predicate::And(copy)
                    } else {
                        Predicate::Or(copy)
                    });
                }
            }
        }
        Predicate::Not(inner) => {
            out.push((**inner).clone());
            out.extend(
                smaller(inner)
                    .into_iter()
                    .map(|s| Predicate::Not(Box::new(s))),
            );
        }
        _ => {}
    }
    out
}

/// The smallest predicate reachable from `p` by steps that keep `fails` true.
pub fn minimize(p: &Predicate, fails: &dyn Fn(&Predicate) -> bool) -> Predicate {
    let mut current = p.clone();
    'outer: loop {
        for candidate in smaller(&current) {
            if fails(&candidate) {
                current = candidate;
                continue 'outer;
            }
        }
        return current;
    }
}

#[cfg(test)]
mod tests {
    use explain_compiler::sql::parse_predicate;

    use super::*;

    #[test]
    fn shrinks_to_the_failing_leaf() {
        let p = parse_predicate("NOT (a > 1 AND (b = 2 OR c < 3)) OR d IS NULL").unwrap();
        let fails = |q: &Predicate| q.to_string().contains("c < 3");
        assert_eq!(minimize(&p, &fails).to_string(), "c < 3");
        let keep_all =
            |q: &Predicate| q.to_string().contains("a > 1") && q.to_string().contains("d IS NULL");
        assert_eq!(minimize(&p, &keep_all).to_string(), "a > 1 OR d IS NULL");
    }
}
