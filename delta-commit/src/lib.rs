//! The one Delta commit writer of the workspace: the actions a table's first commits hold
//! (`protocol`, `metaData`, `add`, `remove`) as the Delta protocol spells them, and a commit
//! file written under `_delta_log`. The generators write their tables with it (checkpoints and
//! deletion vectors are theirs) and the advisor its statistics-only tables.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value, json};

/// The `protocol` action: reader and writer versions, with table features from versions 3 and 7.
pub fn protocol(reader_features: &[&str], writer_features: &[&str]) -> Value {
    match (reader_features.is_empty(), writer_features.is_empty()) {
        (true, true) => json!({"protocol": {"minReaderVersion": 1, "minWriterVersion": 2}}),
        (true, false) => json!({"protocol": {"minReaderVersion": 1, "minWriterVersion": 7,
            "writerFeatures": writer_features}}),
        (false, _) => json!({"protocol": {"minReaderVersion": 3, "minWriterVersion": 7,
            "readerFeatures": reader_features, "writerFeatures": writer_features}}),
    }
}

/// The `protocol` action a schema needs: `timestampNtz` when a column is `timestamp_ntz`.
pub fn protocol_for_schema(schema_string: &str) -> Value {
    if schema_string.contains("\"timestamp_ntz\"") {
        protocol(&["timestampNtz"], &["timestampNtz"])
    } else {
        protocol(&[], &[])
    }
}

/// The `metaData` action of a Parquet table: its id, schema (Delta's JSON, as text), partition
/// columns and configuration.
pub fn metadata(
    id: &str,
    schema_string: &str,
    partition_columns: &[&str],
    configuration: Map<String, Value>,
) -> Value {
    json!({"metaData": {
        "id": id,
        "format": {"provider": "parquet", "options": {}},
        "schemaString": schema_string,
        "partitionColumns": partition_columns,
        "configuration": configuration,
        "createdTime": 0,
    }})
}

/// The schema text of `fields` (Delta's JSON fields).
pub fn schema_string(fields: &[Value]) -> String {
    json!({"type": "struct", "fields": fields}).to_string()
}

/// The `add` action of a file: its path, partition values (`None`: NULL), size and statistics
/// JSON. `extra` holds further fields of the action (`deletionVector`, `tags`, ...).
pub fn add(
    path: &str,
    partition_values: &[(String, Option<String>)],
    size: u64,
    stats: Option<&str>,
    extra: Map<String, Value>,
) -> Value {
    let partition: Map<String, Value> = partition_values
        .iter()
        .map(|(c, v)| (c.clone(), json!(v)))
        .collect();
    let mut action = json!({
        "path": path,
        "partitionValues": partition,
        "size": size,
        "modificationTime": 0,
        "dataChange": true,
    });
    if let (Some(stats), Some(fields)) = (stats, action.as_object_mut()) {
        fields.insert("stats".into(), json!(stats));
    }
    if let Some(fields) = action.as_object_mut() {
        fields.extend(extra);
    }
    json!({ "add": action })
}

/// The `remove` action of a file removed at time 0.
pub fn remove(path: &str) -> Value {
    json!({"remove": {"path": path, "deletionTimestamp": 0, "dataChange": true}})
}

/// The path of commit `version` under the log folder `log`.
pub fn commit_path(log: &Path, version: u64) -> PathBuf {
    log.join(format!("{version:020}.json"))
}

/// Writes commit `version` of the table whose log folder is `log` (created if needed): one
/// action a line. Returns the file's path.
pub fn write_commit(log: &Path, version: u64, actions: &[Value]) -> std::io::Result<PathBuf> {
    std::fs::create_dir_all(log)?;
    let path = commit_path(log, version);
    let text: String = actions.iter().map(|a| a.to_string() + "\n").collect();
    std::fs::write(&path, text)?;
    Ok(path)
}

/// The actions of commit `version` of the table whose log folder is `log`, in order; `None`
/// where the log holds no such commit (not written, or cleaned up).
pub fn read_commit(log: &Path, version: u64) -> Result<Option<Vec<Value>>, String> {
    let path = commit_path(log, version);
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(format!("{}: {e}", path.display())),
    };
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).map_err(|e| format!("{}: {e}", path.display())))
        .collect::<Result<Vec<Value>, String>>()
        .map(Some)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_commit_reads_back_as_written_and_a_missing_one_is_none() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("_delta_log");
        let actions = vec![protocol(&[], &[]), remove("a.parquet")];
        write_commit(&log, 3, &actions).unwrap();
        assert_eq!(read_commit(&log, 3).unwrap(), Some(actions));
        assert_eq!(read_commit(&log, 4).unwrap(), None);
        std::fs::write(commit_path(&log, 5), "{\"add\": \n").unwrap();
        assert!(
            read_commit(&log, 5)
                .unwrap_err()
                .contains("00000000000000000005.json")
        );
    }

    #[test]
    fn a_commit_is_one_action_a_line_named_by_its_version() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("_delta_log");
        let fields =
            [json!({"name": "t", "type": "timestamp_ntz", "nullable": true, "metadata": {}})];
        let schema = schema_string(&fields);
        let actions = [
            protocol_for_schema(&schema),
            metadata("t", &schema, &["p"], Map::new()),
            add(
                "p=1/a.parquet",
                &[("p".into(), Some("1".into())), ("q".into(), None)],
                10,
                Some("{\"numRecords\":1}"),
                Map::new(),
            ),
            remove("b.parquet"),
        ];
        let path = write_commit(&log, 3, &actions).unwrap();
        assert!(path.ends_with("00000000000000000003.json"));
        let lines: Vec<Value> = std::fs::read_to_string(&path)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(lines.len(), 4);
        assert_eq!(
            lines[0]["protocol"]["readerFeatures"],
            json!(["timestampNtz"])
        );
        assert_eq!(lines[1]["metaData"]["partitionColumns"], json!(["p"]));
        assert_eq!(
            lines[2]["add"]["partitionValues"],
            json!({"p": "1", "q": null})
        );
        assert_eq!(lines[2]["add"]["stats"], json!("{\"numRecords\":1}"));
        assert_eq!(lines[3]["remove"]["path"], json!("b.parquet"));
        assert_eq!(
            protocol(&[], &["collations-preview"])["protocol"]["minWriterVersion"],
            json!(7)
        );
    }
}
