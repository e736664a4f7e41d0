//! A table under test, loaded once: explain-core's replay (through delta_kernel) and the
//! oracle's decoded rows, shared by every trial on it.

use explain_core::replay::ReplayedTable;
use oracle::log::Snapshot;
use oracle::matching::LoadedTable;
use oracle::planning::plan;

pub struct Subject {
    /// A short name for trial names and reports (`taxi-nyc`, `gen/nan-floats`).
    pub name: String,
    pub location: String,
    pub kernel: ReplayedTable,
    pub oracle: LoadedTable,
    /// For each live file of `kernel`, its index in the oracle's snapshot.
    pub oracle_index: Vec<Option<usize>>,
}

impl Subject {
    pub fn load(name: &str, location: &str) -> Result<Subject, String> {
        let kernel = ReplayedTable::open(location, None)
            .map_err(|e| format!("{name}: explain-core: {e}"))?;
        let snapshot =
            Snapshot::open(location, None).map_err(|e| format!("{name}: oracle: {e}"))?;
        let oracle =
            LoadedTable::load(snapshot, &plan(2)).map_err(|e| format!("{name}: oracle: {e}"))?;
        let oracle_index = kernel
            .paths()
            .map(|path| oracle.snapshot.files.iter().position(|o| o.path == path))
            .collect();
        Ok(Subject {
            name: name.to_string(),
            location: location.to_string(),
            kernel,
            oracle,
            oracle_index,
        })
    }
}
