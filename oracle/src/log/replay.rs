//! Log replay: protocol and metadata, then add/remove reconciliation over the checkpoint and
//! the commits after it. Files are identified by path and deletion-vector id, as the protocol
//! says: re-adding a path with a new deletion vector replaces the old entry through the
//! remove that accompanies it.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::delta_schema::{ColumnMapping, DeltaField, parse_schema};
use crate::error::OracleError;
use crate::log::actions::{Action, Add, DeletionVectorDescriptor, Metadata, Protocol};
use crate::log::checkpoint::{read_checkpoint_file, read_json_actions};
use crate::log::segment::select;

/// Reader features the oracle implements. Anything else stops the replay: an oracle that
/// ignored a feature changing how rows are read would not be ground truth.
const SUPPORTED_READER_FEATURES: &[&str] = &[
    "columnMapping",
    "deletionVectors",
    "timestampNtz",
    "typeWidening",
    "typeWidening-preview",
    "v2Checkpoint",
    "vacuumProtocolCheck",
];

/// One live file of the snapshot.
#[derive(Clone, Debug)]
pub struct LiveFile {
    /// The path as the log writes it (relative and URL-encoded, or an absolute URL).
    pub path: String,
    pub size: i64,
    /// Partition values by physical column name, `None` for a JSON null.
    pub partition_values: HashMap<String, Option<String>>,
    /// The statistics: the JSON string parsed, or `stats_parsed` where only that exists.
    pub stats: Option<Value>,
    pub deletion_vector: Option<DeletionVectorDescriptor>,
}

impl LiveFile {
    pub fn num_records(&self) -> Option<u64> {
        self.stats.as_ref()?.get("numRecords")?.as_u64()
    }
}

/// A replayed snapshot.
#[derive(Clone, Debug)]
pub struct Snapshot {
    pub root: PathBuf,
    pub version: u64,
    pub protocol: Protocol,
    pub metadata: Metadata,
    pub fields: Vec<DeltaField>,
    pub mapping: ColumnMapping,
    /// Files in log order of their (last) addition.
    pub files: Vec<LiveFile>,
}

impl Snapshot {
    /// Replays the table at `location` (a directory or a `file://` URL) up to `version`.
    pub fn open(location: &str, version: Option<u64>) -> Result<Snapshot, OracleError> {
        let root = table_root(location)?;
        let log_dir = root.join("_delta_log");
        if !log_dir.is_dir() {
            return Err(OracleError::Table {
                table: location.into(),
                reason: "not a Delta table (no _delta_log directory)".into(),
            });
        }
        let segment = select(&log_dir, version)?;
        let mut protocol = None;
        let mut metadata = None;
        let mut live: HashMap<(String, Option<String>), (usize, Add)> = HashMap::new();
        let mut order = 0usize;
        let mut apply = |action: Action, from_checkpoint: bool| match action {
            Action::Add(add) => {
                let key = (
                    add.path.clone(),
                    add.deletion_vector
                        .as_ref()
                        .map(DeletionVectorDescriptor::unique_id),
                );
                order += 1;
                live.insert(key, (order, add));
            }
            // Removes in a checkpoint are tombstones of files already gone from its adds.
            Action::Remove(remove) if !from_checkpoint => {
                live.remove(&(
                    remove.path,
                    remove
                        .deletion_vector
                        .as_ref()
                        .map(DeletionVectorDescriptor::unique_id),
                ));
            }
            Action::Metadata(m) => metadata = Some(m),
            Action::Protocol(p) => protocol = Some(p),
            _ => {}
        };
        if let Some(checkpoint) = &segment.checkpoint {
            for file in &checkpoint.files {
                for action in read_checkpoint_file(file)? {
                    if let Action::Sidecar(sidecar) = &action {
                        let path = log_dir.join("_sidecars").join(&sidecar.path);
                        for inner in read_checkpoint_file(&path)? {
                            apply(inner, true);
                        }
                    } else {
                        apply(action, true);
                    }
                }
            }
        }
        for (_, commit) in &segment.commits {
            for action in read_json_actions(commit)? {
                apply(action, false);
            }
        }
        let protocol = protocol.ok_or_else(|| {
            OracleError::log(format!(
                "no protocol action up to version {}",
                segment.version
            ))
        })?;
        let metadata = metadata.ok_or_else(|| {
            OracleError::log(format!(
                "no metaData action up to version {}",
                segment.version
            ))
        })?;
        for feature in protocol.reader_features.iter().flatten() {
            if !SUPPORTED_READER_FEATURES.contains(&feature.as_str()) {
                return Err(OracleError::Table {
                    table: location.into(),
                    reason: format!("reader feature `{feature}` is not supported by the oracle"),
                });
            }
        }
        let fields = parse_schema(&metadata.schema_string)?;
        let mapping = ColumnMapping::parse(
            metadata
                .configuration
                .get("delta.columnMapping.mode")
                .and_then(|v| v.as_deref()),
        )?;
        let mut adds: Vec<(usize, Add)> = live.into_values().collect();
        adds.sort_by_key(|(o, _)| *o);
        let files = adds
            .into_iter()
            .map(|(_, add)| {
                let stats = match &add.stats {
                    Some(text) => Some(serde_json::from_str::<Value>(text).map_err(|e| {
                        OracleError::log(format!("the stats of `{}` are not JSON: {e}", add.path))
                    })?),
                    None => add.stats_parsed.clone().filter(|v| !v.is_null()),
                };
                Ok(LiveFile {
                    path: add.path,
                    size: add.size,
                    partition_values: add.partition_values,
                    stats,
                    deletion_vector: add.deletion_vector,
                })
            })
            .collect::<Result<Vec<_>, OracleError>>()?;
        Ok(Snapshot {
            root,
            version: segment.version,
            protocol,
            metadata,
            fields,
            mapping,
            files,
        })
    }

    pub fn partition_columns(&self) -> &[String] {
        &self.metadata.partition_columns
    }

    /// The top-level field of a logical column name.
    pub fn field(&self, name: &str) -> Option<&DeltaField> {
        self.fields.iter().find(|f| f.name == name)
    }

    /// The local path of a file named in the log (relative paths are URL-encoded).
    pub fn file_path(&self, log_path: &str) -> Result<PathBuf, OracleError> {
        resolve_path(&self.root, log_path)
    }
}

/// The table's root directory.
pub fn table_root(location: &str) -> Result<PathBuf, OracleError> {
    let path = if location.contains("://") {
        let url = url::Url::parse(location).map_err(|e| OracleError::Table {
            table: location.into(),
            reason: format!("not a URL: {e}"),
        })?;
        if url.scheme() != "file" {
            return Err(OracleError::Table {
                table: location.into(),
                reason: format!(
                    "the oracle reads local tables only, not `{}://`",
                    url.scheme()
                ),
            });
        }
        url.to_file_path().map_err(|_| OracleError::Table {
            table: location.into(),
            reason: "not a local file URL".into(),
        })?
    } else {
        PathBuf::from(location)
    };
    if !path.is_dir() {
        return Err(OracleError::Table {
            table: location.into(),
            reason: "no such directory".into(),
        });
    }
    Ok(path)
}

/// A log path (relative and URL-encoded, or an absolute `file://` URL) as a local path.
pub fn resolve_path(root: &Path, log_path: &str) -> Result<PathBuf, OracleError> {
    if log_path.contains("://") {
        let url = url::Url::parse(log_path).map_err(|e| OracleError::file(log_path, e))?;
        return url
            .to_file_path()
            .map_err(|_| OracleError::file(log_path, "not a local file URL"));
    }
    let decoded = percent_decode(log_path)
        .ok_or_else(|| OracleError::file(log_path, "bad percent-encoding"))?;
    Ok(root.join(decoded))
}

fn percent_decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_paths_are_url_decoded() {
        let root = Path::new("/t");
        assert_eq!(
            resolve_path(
                root,
                "tsNtzPartition=2013-07-05%2017%253A01%253A00.123456/part-0.parquet"
            )
            .unwrap(),
            Path::new("/t/tsNtzPartition=2013-07-05 17%3A01%3A00.123456/part-0.parquet")
        );
        assert_eq!(
            resolve_path(root, "file:///x/y.parquet").unwrap(),
            Path::new("/x/y.parquet")
        );
        assert!(resolve_path(root, "bad%zz").is_err());
    }
}
