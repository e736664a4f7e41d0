//! The engines themselves as the soundness check's truth: Spark (ANSI off and on), DuckDB and
//! DataFusion run each predicate's text as written over a subject's live rows
//! (`oracle::engines`), beside the oracle's model of them. A campaign thread keeps its workers
//! from one table to the next.

use std::cell::RefCell;

use oracle::engines::{Answer, EngineSemantics, EngineWorkers, Engines};

use crate::subject::Subject;

/// What one engine said about one predicate, per kernel file of the subject.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EngineAnswer {
    /// The rows it matched in each kernel file.
    Rows(Vec<u64>),
    /// It refused the predicate (a parse, type or cast error): it runs no query, so it
    /// matches no file.
    Refused(String),
    /// It could not be asked (not installed, would not start): nothing known, never an
    /// agreement.
    Unavailable(String),
}

/// The engines over one subject.
pub struct EngineTruth<'t> {
    engines: RefCell<Engines<'t>>,
    semantics: Vec<EngineSemantics>,
}

impl<'t> EngineTruth<'t> {
    /// Loads `subject`'s rows into the engines of `semantics`, reusing `workers`.
    pub fn start(
        subject: &'t Subject,
        semantics: &[EngineSemantics],
        workers: EngineWorkers,
    ) -> Result<EngineTruth<'t>, String> {
        let engines = Engines::start_with(&subject.oracle, semantics, workers)
            .map_err(|e| format!("{}: the engines: {e}", subject.name))?;
        Ok(EngineTruth {
            engines: RefCell::new(engines),
            semantics: semantics.to_vec(),
        })
    }

    /// The workers, for the next subject.
    pub fn into_workers(self) -> EngineWorkers {
        self.engines.into_inner().into_workers()
    }

    /// Each engine's version, or why it is unavailable.
    pub fn versions(&self) -> Vec<(&'static str, Result<String, String>)> {
        let engines = self.engines.borrow();
        self.semantics
            .iter()
            .map(|s| (s.name(), engines.version(*s).map_err(|u| u.reason)))
            .collect()
    }

    /// Every engine's answer to `predicate`, per kernel file of `subject`; `Err` where an
    /// engine broke while answering (its process ended, no answer in time).
    pub fn ask(
        &self,
        subject: &Subject,
        predicate: &str,
    ) -> Result<Vec<(EngineSemantics, EngineAnswer)>, String> {
        let mut engines = self.engines.borrow_mut();
        let mut out = Vec::with_capacity(self.semantics.len());
        for &semantics in &self.semantics {
            let answer = match engines.answer(semantics, predicate) {
                Ok(Ok(Answer::Rows(rows))) => EngineAnswer::Rows(subject.by_kernel_file(&rows)),
                Ok(Ok(Answer::Refused(why))) => EngineAnswer::Refused(why),
                Ok(Err(unavailable)) => EngineAnswer::Unavailable(unavailable.reason),
                Err(e) => return Err(format!("{}: {e}", semantics.name())),
            };
            out.push((semantics, answer));
        }
        Ok(out)
    }
}
