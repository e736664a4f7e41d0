//! Tightness: what the guards (explain-core's `guards.rs`) cost in files kept, measured for one
//! (table, predicate) against the kernel asked the same predicate with no guard, and against
//! the files that really match (the oracle).

use explain_compiler::lower::{kernel_can_evaluate, to_kernel};
use explain_core::explain::CompiledPredicate;
use serde::Serialize;

use crate::subject::Subject;

/// One predicate's counts.
#[derive(Clone, Debug, Serialize)]
pub struct Measured {
    pub table: String,
    pub predicate: String,
    pub total: usize,
    /// Files the kernel keeps when asked the predicate as written (its evaluable part, no
    /// guard), over the same cached rows.
    pub kernel: usize,
    /// explain-core's final kept set, default mode and `--strict`.
    pub default: usize,
    pub strict: usize,
    /// Files holding a matching row (the oracle).
    pub matching: usize,
    /// Hazard codes of the default and the strict explanations (each once).
    pub guards: Vec<&'static str>,
    /// Files the default mode keeps that the kernel drops, while no guard fired: each one is
    /// looseness nothing documents.
    pub unexplained: usize,
}

/// Measures `predicate` on `subject`; `Err` when a front end refuses it.
pub fn measure(subject: &Subject, predicate: &str) -> Result<Measured, String> {
    let table = &subject.kernel;
    let compiled = CompiledPredicate::compile(predicate, table).map_err(|e| e.to_string())?;
    let (evaluable, _) = compiled.normalized.weaken(&kernel_can_evaluate);
    let kernel = table
        .survivors(to_kernel(&evaluable, table.columns()).map_err(|e| e.to_string())?)
        .map_err(|e| e.to_string())?;
    let explain =
        |strict| crate::checks::explained(subject, predicate, strict).map_err(|e| e.to_string());
    let (default, strict) = (explain(false)?, explain(true)?);
    let rows = subject
        .oracle
        .matching_rows(predicate)
        .map_err(|e| e.to_string())?;
    let matching = subject
        .oracle_index
        .iter()
        .filter(|i| i.is_some_and(|i| rows[i] > 0))
        .count();
    let mut guards: Vec<&'static str> = Vec::new();
    for h in default.hazards.iter().chain(&strict.hazards) {
        if !guards.contains(&h.code()) {
            guards.push(h.code());
        }
    }
    let widened = default
        .hazards
        .iter()
        .any(|h| h.effect != explain_compiler::guards::Effect::Announced);
    let looser = (0..kernel.len())
        .filter(|&i| default.kept[i] && !kernel[i])
        .count();
    Ok(Measured {
        table: subject.name.clone(),
        predicate: predicate.to_string(),
        total: kernel.len(),
        kernel: kernel.iter().filter(|k| **k).count(),
        default: default.final_files(),
        strict: strict.final_files(),
        matching,
        guards,
        unexplained: if widened { 0 } else { looser },
    })
}
