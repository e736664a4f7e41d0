//! Checkpoint files into actions. Parquet rows are written out as JSON objects by arrow's JSON
//! writer, so checkpoint actions go through the same decoder as commit lines (`actions.rs`):
//! one decoder, no second reading of the action schema.

use arrow::json::LineDelimitedWriter;
use object_store::path::Path as StorePath;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use serde_json::Value;

use crate::error::OracleError;
use crate::log::actions::Action;
use crate::store::TableFiles;

/// The actions of one checkpoint file (Parquet, or a V2 checkpoint in JSON).
pub fn read_checkpoint_file(
    files: &TableFiles,
    path: &StorePath,
) -> Result<Vec<Action>, OracleError> {
    let shown = files.shown(path);
    if path.extension() == Some("json") {
        return read_json_actions(files, path);
    }
    let bytes = files.read(path)?;
    crate::guarded::guarded(&shown, || read_parquet_actions(bytes, &shown))
}

/// The actions of a Parquet checkpoint file.
fn read_parquet_actions(bytes: bytes::Bytes, shown: &str) -> Result<Vec<Action>, OracleError> {
    let shown = shown.to_string();
    let reader = ParquetRecordBatchReaderBuilder::try_new(bytes)
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
pub fn read_json_actions(files: &TableFiles, path: &StorePath) -> Result<Vec<Action>, OracleError> {
    let shown = files.shown(path);
    let bytes = files.read(path)?;
    let text = std::str::from_utf8(&bytes)
        .map_err(|e| OracleError::file(&shown, format!("not UTF-8 text: {e}")))?;
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
