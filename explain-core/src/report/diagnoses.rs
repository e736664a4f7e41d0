//! `diagnoses`: what `--explain-why` says, as the report writes it; found by
//! [`crate::diagnose`].

use serde::Serialize;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    Info,
    Warning,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Diagnosis {
    pub code: &'static str,
    pub severity: Severity,
    pub message: String,
    pub suggestion: String,
}
