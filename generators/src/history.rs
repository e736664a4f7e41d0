//! A table's log as it evolves after it is written: a random sequence of operations drawn
//! from a seed, each appended where the table allows it: an OPTIMIZE-style rewrite sorted by
//! the first integer column (`rewrite`), deletes with deletion vectors (`deletes`), a log
//! compaction of the commits so far (`compaction`). The rewrite comes before the deletes (it
//! rewrites the files' rows as written, so it would bring deleted rows back); the compaction
//! comes last, over every commit from 1.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::spec::{Kind, TableSpec};
use crate::writer::WrittenTable;

/// One operation of a history.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    Rewrite,
    Delete,
    Compact,
}

impl Op {
    pub fn name(self) -> &'static str {
        match self {
            Op::Rewrite => "rewrite",
            Op::Delete => "delete",
            Op::Compact => "compact",
        }
    }
}

/// Appends to `table` (written from `spec`) the operations `seed` draws, each with
/// probability 3/4 and where the table allows it: the last version and the operations applied.
pub fn evolve(spec: &TableSpec, table: &WrittenTable, seed: u64) -> (u64, Vec<Op>) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0x4849_5354_4f52_5953);
    let mut applied = Vec::new();
    let mut current = table.clone();
    if rng.random_bool(0.75) {
        let by = spec
            .data_columns()
            .into_iter()
            .find(|c| matches!(c.kind, Kind::Int32 | Kind::Int64))
            .map(|c| c.name.clone());
        if let Some(rewritten) =
            by.and_then(|by| crate::rewrite::rewrite_sorted(spec, &current, &by).ok())
        {
            current = rewritten;
            applied.push(Op::Rewrite);
        }
    }
    if rng.random_bool(0.75)
        && let Ok(version) = crate::deletes::delete_rows(spec, &current, seed)
    {
        current.version = version;
        applied.push(Op::Delete);
    }
    if rng.random_bool(0.75)
        && current.version >= 2
        && crate::compaction::compact(&current.root, 1, current.version).is_ok()
    {
        applied.push(Op::Compact);
    }
    (current.version, applied)
}
