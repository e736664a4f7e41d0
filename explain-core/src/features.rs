//! The table features that change how a pruning report should be read: deletion vectors,
//! column mapping, clustering, in-commit timestamps and protocol features the kernel does not
//! know. Each present feature carries a note with a stable code (docs/semantics.md).

use delta_kernel::table_features::TableFeature;
use serde::Serialize;

use crate::replay::ReplayedTable;
use explain_compiler::classify::Note;

pub const DELETION_VECTORS: &str = "DELETION_VECTORS";
pub const COLUMN_MAPPING: &str = "COLUMN_MAPPING";
pub const CLUSTERING: &str = "CLUSTERING";
pub const CLUSTERING_UNREADABLE: &str = "CLUSTERING_UNREADABLE";
pub const IN_COMMIT_TIMESTAMPS: &str = "IN_COMMIT_TIMESTAMPS";
pub const UNKNOWN_FEATURES: &str = "UNKNOWN_FEATURES";
pub const COLLATIONS: &str = "COLLATIONS";

#[derive(Clone, Debug, Serialize)]
pub struct TableFeatures {
    pub deletion_vectors: DeletionVectors,
    /// `name` or `id`; null when the table does not map columns (the peer report's type).
    pub column_mapping_mode: Option<String>,
    pub partition_columns: Vec<String>,
    /// Logical clustering columns (liquid clustering), null when the table is not clustered.
    pub clustering_columns: Option<Vec<String>>,
    /// Whether commits carry in-commit timestamps (`delta.enableInCommitTimestamps`).
    pub in_commit_timestamps: bool,
    /// Writer features this reader does not know (the peer report's field; the same list as
    /// `protocol.unknown_writer_features`).
    pub unrecognized_writer_features: Vec<String>,
    pub protocol: ProtocolFeatures,
    pub notes: Vec<Note>,
}

#[derive(Clone, Debug, Serialize)]
pub struct DeletionVectors {
    /// `delta.enableDeletionVectors` in the table properties.
    pub enabled: bool,
    pub files_with_deletion_vectors: usize,
}

#[derive(Clone, Debug, Serialize)]
pub struct ProtocolFeatures {
    pub min_reader_version: i32,
    pub min_writer_version: i32,
    /// Named reader features (table-features protocol only, reader version 3).
    pub reader_features: Vec<String>,
    /// Named writer features (table-features protocol only, writer version 7).
    pub writer_features: Vec<String>,
    /// Features this build of the kernel does not know. An unknown reader feature stops the
    /// read before any report; an unknown writer feature does not change what is read.
    pub unknown_reader_features: Vec<String>,
    pub unknown_writer_features: Vec<String>,
}

impl ProtocolFeatures {
    /// The protocol's versions and features, the unknown ones apart.
    fn of(protocol: &delta_kernel::actions::Protocol) -> ProtocolFeatures {
        let names = |features: Option<&[TableFeature]>| -> Vec<String> {
            features
                .unwrap_or_default()
                .iter()
                .map(ToString::to_string)
                .collect()
        };
        let unknown = |features: Option<&[TableFeature]>| -> Vec<String> {
            features
                .unwrap_or_default()
                .iter()
                .filter_map(|f| match f {
                    TableFeature::Unknown(name) => Some(name.clone()),
                    _ => None,
                })
                .collect()
        };
        ProtocolFeatures {
            min_reader_version: protocol.min_reader_version(),
            min_writer_version: protocol.min_writer_version(),
            reader_features: names(protocol.reader_features()),
            writer_features: names(protocol.writer_features()),
            unknown_reader_features: unknown(protocol.reader_features()),
            unknown_writer_features: unknown(protocol.writer_features()),
        }
    }

    /// The notes the protocol's features call for: collations, and features unknown to this
    /// reader.
    fn notes(&self) -> Vec<Note> {
        let mut notes = Vec::new();
        // Collations change how Spark compares strings, not what is written: the statistics
        // stay binary, so predicates on a collated column keep every file (normalize.rs).
        let is_collations = |f: &str| f.starts_with("collations");
        if let Some(feature) = self
            .writer_features
            .iter()
            .find(|f| is_collations(f.as_str()))
        {
            notes.push(Note {
            code: COLLATIONS,
            message: format!(
                "writer feature `{feature}`: string columns with a collation other than binary are compared by it in Spark (`UTF8_LCASE`: ignoring case) while their statistics are binary; comparisons on them keep every file"
            ),
        });
        }
        let unknown_all: Vec<&String> = self
            .unknown_reader_features
            .iter()
            .chain(&self.unknown_writer_features)
            .filter(|f| !is_collations(f.as_str()))
            .collect();
        if !unknown_all.is_empty() {
            let mut names: Vec<&str> = unknown_all.iter().map(|s| s.as_str()).collect();
            names.sort_unstable();
            names.dedup();
            notes.push(Note {
            code: UNKNOWN_FEATURES,
            message: format!(
                "protocol feature(s) unknown to this reader: {}; they concern writers only, so the files and statistics read here are unaffected",
                names.join(", ")
            ),
        });
        }
        notes
    }
}

impl TableFeatures {
    /// Reads the features of the replayed snapshot. Never fails: a feature whose metadata
    /// cannot be read becomes a note, since none of them changes the survivor sets.
    pub fn read(table: &ReplayedTable) -> TableFeatures {
        Self::read_parts(
            table.snapshot(),
            table.engine(),
            table.columns(),
            table.deletion_vector_files(),
            table.log_notes(),
        )
    }

    /// [`read`](Self::read) from the snapshot and the count of files with deletion vectors,
    /// for an explanation that keeps no rows (`stream.rs`).
    pub fn read_parts(
        snapshot: &delta_kernel::SnapshotRef,
        engine: &dyn delta_kernel::Engine,
        columns: &explain_compiler::schema::TableColumns,
        dv_files: usize,
        log_notes: &[Note],
    ) -> TableFeatures {
        let config = snapshot.table_configuration();
        let protocol = config.protocol();
        let protocol = ProtocolFeatures::of(protocol);
        // What reading the log said of the log itself (a checkpoint hint read past) first.
        let mut notes = log_notes.to_vec();

        if dv_files > 0 {
            notes.push(Note {
                code: DELETION_VECTORS,
                message: format!(
                    "{dv_files} file(s) carry deletion vectors: record counts include soft-deleted rows, and their bounds may be wider than the live rows (still sound for pruning)"
                ),
            });
        }

        let column_mapping_mode =
            format!("{:?}", config.column_mapping_mode()).to_ascii_lowercase();
        if column_mapping_mode != "none" {
            notes.push(Note {
                code: COLUMN_MAPPING,
                message: format!(
                    "column mapping ({column_mapping_mode}): the log keys statistics and partition values by physical names; the per-file view shows them under logical names"
                ),
            });
        }

        let clustering_columns = match snapshot.get_clustering_column_infos(engine) {
            Ok(infos) => infos.map(|infos| {
                infos
                    .iter()
                    .map(|i| i.logical_column.to_string())
                    .collect::<Vec<_>>()
            }),
            Err(e) => {
                notes.push(Note {
                    code: CLUSTERING_UNREADABLE,
                    message: format!(
                        "the clustering metadata (domain `delta.clustering`) could not be read: {}",
                        crate::replay::kernel_message(&e)
                    ),
                });
                None
            }
        };
        if let Some(columns) = &clustering_columns {
            notes.push(Note {
                code: CLUSTERING,
                message: format!(
                    "the table is clustered by {}: data skipping on these columns is as good as the last OPTIMIZE left it; files written since may overlap",
                    if columns.is_empty() { "no column yet".to_string() } else { columns.join(", ") }
                ),
            });
        }

        let in_commit_timestamps = config.table_properties().enable_in_commit_timestamps
            == Some(true)
            && protocol
                .writer_features
                .iter()
                .any(|f| f == "inCommitTimestamp");
        if in_commit_timestamps {
            notes.push(Note {
                code: IN_COMMIT_TIMESTAMPS,
                message: "commits carry in-commit timestamps: a commit's time is the one recorded in its commitInfo, not the file's modification time; --at-version selects by version".to_string(),
            });
        }

        notes.extend(protocol.notes());
        TableFeatures {
            deletion_vectors: DeletionVectors {
                enabled: config.table_properties().enable_deletion_vectors == Some(true),
                files_with_deletion_vectors: dv_files,
            },
            column_mapping_mode: (column_mapping_mode != "none").then_some(column_mapping_mode),
            unrecognized_writer_features: protocol.unknown_writer_features.clone(),
            partition_columns: columns.partition_columns().to_vec(),
            clustering_columns,
            in_commit_timestamps,
            protocol,
            notes,
        }
    }
}
