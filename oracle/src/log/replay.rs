//! Log replay: protocol and metadata, then add/remove reconciliation over the checkpoint and
//! the commits after it. Files are identified by path and deletion-vector id, as the protocol
//! says: re-adding a path with a new deletion vector replaces the old entry through the
//! remove that accompanies it.

use std::collections::HashMap;
use std::sync::Arc;

use storage::StorageOptions;

use serde_json::Value;

use crate::delta_schema::{ColumnMapping, DeltaField, parse_schema};
use crate::error::OracleError;
use crate::log::actions::{Action, Add, DeletionVectorDescriptor, Metadata, Protocol};
use crate::log::checkpoint::{read_checkpoint_file, read_json_actions};
use crate::log::segment::{LogListing, select};
use crate::store::TableFiles;

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
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
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
    /// The table's store: where the log and the data are read from.
    pub store: Arc<TableFiles>,
    pub version: u64,
    pub protocol: Protocol,
    pub metadata: Metadata,
    pub fields: Vec<DeltaField>,
    pub mapping: ColumnMapping,
    /// Files in log order of their (last) addition.
    pub files: Vec<LiveFile>,
}

impl Snapshot {
    /// Replays the table at `location` (a directory or a URL; credentials from the
    /// environment) up to `version`.
    pub fn open(location: &str, version: Option<u64>) -> Result<Snapshot, OracleError> {
        Self::open_with(location, &StorageOptions::default(), version)
    }

    /// [`open`](Self::open) with options for the table's store.
    pub fn open_with(
        location: &str,
        storage: &StorageOptions,
        version: Option<u64>,
    ) -> Result<Snapshot, OracleError> {
        let store = TableFiles::open(location, storage)?;
        let segment = select(&LogListing::read(&store)?, version)?;
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
                for action in read_checkpoint_file(&store, &store.log_file(file))? {
                    if let Action::Sidecar(sidecar) = &action {
                        let path = store.log_file(&format!("_sidecars/{}", sidecar.path));
                        for inner in read_checkpoint_file(&store, &path)? {
                            apply(inner, true);
                        }
                    } else {
                        apply(action, true);
                    }
                }
            }
        }
        for (_, commit) in &segment.commits {
            for action in read_json_actions(&store, &store.log_file(commit))? {
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
        if let Some(reason) = refusal(&protocol, &metadata)? {
            return Err(OracleError::Table {
                table: location.into(),
                reason,
            });
        }
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
        Snapshot::from_parts(store, segment.version, protocol, metadata, files)
    }

    /// The snapshot of `files` under `protocol` and `metadata` (its schema and column
    /// mapping read from the metadata), at `version` of the table in `store`: a replay's
    /// result, or a share of one sent to a cluster's executor.
    pub fn from_parts(
        store: Arc<TableFiles>,
        version: u64,
        protocol: Protocol,
        metadata: Metadata,
        files: Vec<LiveFile>,
    ) -> Result<Snapshot, OracleError> {
        let fields = parse_schema(&metadata.schema_string)?;
        let mapping = effective_column_mapping(&protocol, &metadata)?;
        Ok(Snapshot {
            store,
            version,
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

    /// The store path of a file named in the log (relative paths are URL-encoded).
    pub fn file_path(&self, log_path: &str) -> Result<object_store::path::Path, OracleError> {
        self.store.resolve(log_path)
    }
}

/// The column mapping the table is read with: `delta.columnMapping.mode` where the protocol
/// supports the feature (reader version 2, or version 3 listing `columnMapping`), else none.
/// The protocol allows the property on a table without the feature and tells readers to ignore
/// it there (delta_kernel does the same); its fields then read by their logical names.
fn effective_column_mapping(
    protocol: &Protocol,
    metadata: &Metadata,
) -> Result<ColumnMapping, OracleError> {
    let mode = ColumnMapping::parse(
        metadata
            .configuration
            .get("delta.columnMapping.mode")
            .and_then(|v| v.as_deref()),
    )?;
    let supported = match protocol.min_reader_version {
        2 => true,
        3 => protocol
            .reader_features
            .iter()
            .flatten()
            .any(|f| f == "columnMapping"),
        _ => false,
    };
    Ok(if supported { mode } else { ColumnMapping::None })
}

/// Why the protocol tells this reader to refuse the table, if it does: a reader version or
/// feature it does not know, reader features below version 3, column mapping without its
/// annotations, a type change outside the protocol's list.
fn refusal(protocol: &Protocol, metadata: &Metadata) -> Result<Option<String>, OracleError> {
    // Reader version 3 is the newest the protocol defines (table features); a higher one
    // is a protocol this reader does not know.
    if protocol.min_reader_version > 3 {
        return Ok(Some(format!(
            "minReaderVersion {} is not supported by the oracle (it reads versions 1 to 3)",
            protocol.min_reader_version
        )));
    }
    // The protocol lists reader features only at reader version 3 (table features).
    if protocol.reader_features.is_some() && protocol.min_reader_version != 3 {
        return Ok(Some(format!(
            "the protocol lists readerFeatures with minReaderVersion {}: reader features belong to reader version 3 alone",
            protocol.min_reader_version
        )));
    }
    // Under column mapping (name or id) every field is read by its physical name and
    // known by its id: a field without them cannot be found in the data files.
    if !matches!(
        effective_column_mapping(protocol, metadata)?,
        ColumnMapping::None
    ) && let Some(reason) =
        crate::delta_schema::column_mapping_violation(&metadata.schema_string)
    {
        return Ok(Some(reason));
    }
    if let Some(reason) = crate::delta_schema::unsupported_type_change(&metadata.schema_string) {
        return Ok(Some(reason));
    }
    for feature in protocol.reader_features.iter().flatten() {
        if !SUPPORTED_READER_FEATURES.contains(&feature.as_str()) {
            return Ok(Some(format!(
                "reader feature `{feature}` is not supported by the oracle"
            )));
        }
    }
    Ok(None)
}
