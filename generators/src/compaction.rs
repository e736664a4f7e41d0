//! Log compaction: `{from}.{to}.compacted.json` holding the reconciled actions of the commits
//! `from..=to`, as the protocol describes it (Log Compaction Files): the newest protocol and
//! metadata of the range, each transaction identifier's and domain's newest action, the files
//! added in the range and not removed in it, and the removes as tombstones; no `commitInfo`.
//! The commits stay: a reader may read the compaction file in their place or ignore it, and
//! either way must find the same table.

use std::path::{Path, PathBuf};

use serde_json::Value;

/// Writes the compaction of the commits `from..=to` of the table at `root`; its path.
pub fn compact(root: &Path, from: u64, to: u64) -> Result<PathBuf, String> {
    if from >= to {
        return Err(format!(
            "a compaction spans two commits or more: {from}..={to}"
        ));
    }
    let log = root.join("_delta_log");
    let mut protocol: Option<Value> = None;
    let mut metadata: Option<Value> = None;
    let mut keyed: Vec<(String, Value)> = Vec::new();
    let mut files: Vec<(String, Value)> = Vec::new();
    for version in from..=to {
        let actions = delta_commit::read_commit(&log, version)?.ok_or_else(|| {
            format!(
                "{}: no such commit",
                delta_commit::commit_path(&log, version).display()
            )
        })?;
        for action in actions {
            reconcile(action, &mut protocol, &mut metadata, &mut keyed, &mut files);
        }
    }
    let mut out = String::new();
    for action in protocol
        .iter()
        .chain(metadata.iter())
        .chain(keyed.iter().map(|(_, a)| a))
        .chain(files.iter().map(|(_, a)| a))
    {
        out.push_str(&action.to_string());
        out.push('\n');
    }
    let path = log.join(format!("{from:020}.{to:020}.compacted.json"));
    std::fs::write(&path, out).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(path)
}

/// A file action's key: its path and deletion vector, as the protocol reconciles them.
fn file_key(action: &Value) -> String {
    let dv = &action["deletionVector"];
    format!(
        "{}\u{0}{}\u{0}{}",
        action["path"].as_str().unwrap_or_default(),
        dv["storageType"].as_str().unwrap_or_default(),
        dv["pathOrInlineDv"].as_str().unwrap_or_default()
    )
}

/// Folds one action into the range's state: the newest action per key wins.
fn reconcile(
    action: Value,
    protocol: &mut Option<Value>,
    metadata: &mut Option<Value>,
    keyed: &mut Vec<(String, Value)>,
    files: &mut Vec<(String, Value)>,
) {
    let set = |list: &mut Vec<(String, Value)>, key: String, action: Value| match list
        .iter_mut()
        .find(|(k, _)| *k == key)
    {
        Some(slot) => slot.1 = action,
        None => list.push((key, action)),
    };
    if action.get("protocol").is_some() {
        *protocol = Some(action);
    } else if action.get("metaData").is_some() {
        *metadata = Some(action);
    } else if let Some(txn) = action.get("txn") {
        let key = format!("txn\u{0}{}", txn["appId"].as_str().unwrap_or_default());
        set(keyed, key, action);
    } else if let Some(domain) = action.get("domainMetadata") {
        let key = format!(
            "domain\u{0}{}",
            domain["domain"].as_str().unwrap_or_default()
        );
        set(keyed, key, action);
    } else if let Some(add) = action.get("add") {
        // A re-add of a path (a new deletion vector) replaces what the range held of it.
        let key = file_key(add);
        set(files, key, action);
    } else if let Some(remove) = action.get("remove") {
        let key = file_key(remove);
        set(files, key, action);
    }
    // `commitInfo`, `cdc` and `checkpointMetadata` have no place in a compaction.
}
