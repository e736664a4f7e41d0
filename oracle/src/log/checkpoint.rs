//! Checkpoint files into actions. Parquet rows are written out as JSON objects by arrow's JSON
//! writer, so checkpoint actions go through the same decoder as commit lines (`actions.rs`):
//! one decoder, no second reading of the action schema.

use std::fs::File;
use std::path::Path;

use arrow::json::LineDelimitedWriter;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use serde_json::Value;

use crate::error::OracleError;
use crate::log::actions::Action;

/// The actions of one checkpoint file (Parquet, or a V2 checkpoint in JSON).
pub fn read_checkpoint_file(path: &Path) -> Result<Vec<Action>, OracleError> {
    let shown = path.display().to_string();
    if path.extension().is_some_and(|e| e == "json") {
        return read_json_actions(path);
    }
    crate::guarded::guarded(&shown, || read_parquet_actions(path, &shown))
}

/// The actions of a Parquet checkpoint file.
fn read_parquet_actions(path: &Path, shown: &str) -> Result<Vec<Action>, OracleError> {
    let shown = shown.to_string();
    let file = File::open(path).map_err(|e| OracleError::file(&shown, e))?;
    let reader = ParquetRecordBatchReaderBuilder::try_new(file)
        .map_err(|e| OracleError::file(&shown, format!("not a readable Parquet checkpoint: {e}")))?
        .build()
        .map_err(|e| OracleError::file(&shown, e))?;
    let mut actions = Vec::new();
    for batch in reader {
        let batch = batch.map_err(|e| OracleError::file(&shown, e))?;
        let mut buffer = Vec::new();
        {
            let mut writer = LineDelimitedWriter::new(&mut buffer);
            writer
                .write(&batch)
                .map_err(|e| OracleError::file(&shown, e))?;
            writer.finish().map_err(|e| OracleError::file(&shown, e))?;
        }
        for line in buffer.split(|b| *b == b'\n').filter(|l| !l.is_empty()) {
            let value: Value =
                serde_json::from_slice(line).map_err(|e| OracleError::file(&shown, e))?;
            actions.push(Action::from_json(value).map_err(|e| OracleError::file(&shown, e))?);
        }
    }
    Ok(actions)
}

/// The actions of a JSON log file (a commit, or a V2 checkpoint): one action object per line.
pub fn read_json_actions(path: &Path) -> Result<Vec<Action>, OracleError> {
    let shown = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| OracleError::file(&shown, e))?;
    let mut actions = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let value: Value = serde_json::from_str(line)
            .map_err(|e| OracleError::file(&shown, format!("line {} is not JSON: {e}", i + 1)))?;
        actions.push(
            Action::from_json(value)
                .map_err(|e| OracleError::file(&shown, format!("line {}: {e}", i + 1)))?,
        );
    }
    Ok(actions)
}
