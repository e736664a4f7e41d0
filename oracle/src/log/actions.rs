//! The log actions the oracle reads, decoded from JSON. Checkpoint rows are turned into the
//! same JSON first (`checkpoint.rs`), so commits and checkpoints share one decoder.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Add {
    pub path: String,
    #[serde(default)]
    pub partition_values: HashMap<String, Option<String>>,
    #[serde(default)]
    pub size: i64,
    /// The statistics JSON string, when the writer recorded one.
    pub stats: Option<String>,
    /// The statistics as a struct (checkpoints only), used when `stats` is absent.
    #[serde(rename = "stats_parsed")]
    pub stats_parsed: Option<Value>,
    pub deletion_vector: Option<DeletionVectorDescriptor>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Remove {
    pub path: String,
    pub deletion_vector: Option<DeletionVectorDescriptor>,
}

#[derive(Clone, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DeletionVectorDescriptor {
    /// `u` (relative path from a z85 UUID), `p` (absolute path), `i` (inline).
    pub storage_type: String,
    pub path_or_inline_dv: String,
    pub offset: Option<i32>,
    pub size_in_bytes: i32,
    pub cardinality: i64,
}

impl DeletionVectorDescriptor {
    /// The identity the protocol reconciles files by, together with the path.
    pub fn unique_id(&self) -> String {
        match self.offset {
            Some(o) => format!("{}{}@{o}", self.storage_type, self.path_or_inline_dv),
            None => format!("{}{}", self.storage_type, self.path_or_inline_dv),
        }
    }
}

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Metadata {
    pub schema_string: String,
    #[serde(default)]
    pub partition_columns: Vec<String>,
    #[serde(default)]
    pub configuration: HashMap<String, Option<String>>,
}

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Protocol {
    pub min_reader_version: i32,
    pub min_writer_version: i32,
    pub reader_features: Option<Vec<String>>,
    pub writer_features: Option<Vec<String>>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Sidecar {
    pub path: String,
}

/// One action of the log, as far as replay cares.
#[derive(Clone, Debug)]
pub enum Action {
    Add(Add),
    Remove(Remove),
    Metadata(Metadata),
    Protocol(Protocol),
    Sidecar(Sidecar),
    /// commitInfo, txn, domainMetadata, checkpointMetadata, cdc: nothing replay needs.
    Other,
}

impl Action {
    /// Decodes one action object (`{"add": {...}}`); a row with no action (a checkpoint row of
    /// another kind) is `Other`.
    pub fn from_json(value: Value) -> Result<Action, String> {
        let Value::Object(mut object) = value else {
            return Err("an action is not a JSON object".into());
        };
        fn decode<T: serde::de::DeserializeOwned>(v: Value, kind: &str) -> Result<T, String> {
            serde_json::from_value(v).map_err(|e| format!("bad {kind} action: {e}"))
        }
        for kind in ["add", "remove", "metaData", "protocol", "sidecar"] {
            let Some(v) = object.remove(kind).filter(|v| !v.is_null()) else {
                continue;
            };
            return match kind {
                "add" => decode(v, kind).map(Action::Add),
                "remove" => decode(v, kind).map(Action::Remove),
                "metaData" => decode(v, kind).map(Action::Metadata),
                "protocol" => decode(v, kind).map(Action::Protocol),
                _ => decode(v, kind).map(Action::Sidecar),
            };
        }
        Ok(Action::Other)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_the_actions_replay_needs() {
        let add = Action::from_json(serde_json::json!({"add": {"path": "a.parquet", "partitionValues": {"p": null},
            "size": 3, "dataChange": true, "deletionVector": {"storageType": "i", "pathOrInlineDv": "wi5b=000010000siXQKl0rr91000f55c8Xg0@@D72lkbi5=-{L",
            "sizeInBytes": 40, "cardinality": 6}}}))
        .unwrap();
        let Action::Add(add) = add else {
            panic!("an add")
        };
        assert_eq!(add.partition_values["p"], None);
        assert_eq!(add.deletion_vector.unwrap().cardinality, 6);
        assert!(matches!(
            Action::from_json(serde_json::json!({"commitInfo": {}})).unwrap(),
            Action::Other
        ));
        assert!(matches!(
            Action::from_json(serde_json::json!({"add": null, "txn": {}})).unwrap(),
            Action::Other
        ));
        assert!(
            Action::from_json(serde_json::json!({"add": {"size": 1}})).is_err(),
            "an add needs a path"
        );
        assert!(Action::from_json(serde_json::json!([1])).is_err());
    }
}
