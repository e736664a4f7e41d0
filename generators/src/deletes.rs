//! Deletes with deletion vectors, as one commit: in up to two live files, every third row is
//! marked deleted in a deletion vector (a `deletion_vector_<uuid>.bin` file beside the data,
//! the protocol's format), the file's add written again with the vector and its statistics
//! declared loose (`tightBounds: false`, as Delta Spark writes them) and holding the data
//! file's `numRecords` (the protocol asks it of every file with a vector, so a table written
//! without statistics gains that count), the old add removed, and
//! the protocol given the `deletionVectors` feature. The data files stay as they are.

use std::path::Path;

use roaring::RoaringTreemap;
use serde_json::{Value, json};

use crate::spec::TableSpec;
use crate::writer::{WrittenFile, WrittenTable, add_action, schema_changes};

/// The 4-byte magic of a deletion vector's bitmap (little-endian on disk).
const PORTABLE_MAGIC: u32 = 1_681_511_377;

/// The files a delete marks rows in.
const FILES_PER_DELETE: usize = 2;

/// Deletes every third row (counted from `seed`) of up to two live files of `table` with two
/// rows or more, keeping at least one row in each: the new version. The table keeps its
/// files; their rows read through the vectors.
pub fn delete_rows(spec: &TableSpec, table: &WrittenTable, seed: u64) -> Result<u64, String> {
    if schema_changes(spec) || spec.quirks.mapping.is_some() {
        return Err("deletes are written for tables of one schema without column mapping".into());
    }
    let log = table.root.join("_delta_log");
    let targets: Vec<&WrittenFile> = table
        .files
        .iter()
        .filter(|f| !f.removed && rows_of(f) >= 2)
        .take(FILES_PER_DELETE)
        .collect();
    if targets.is_empty() {
        return Err("no live file of two rows or more".into());
    }
    let version = table.version + 1;
    let mut actions = vec![protocol_with_deletion_vectors(&log, table.version)?];
    for (k, file) in targets.iter().enumerate() {
        let rows = rows_of(file) as u64;
        let mut deleted: RoaringTreemap =
            (0..rows).filter(|r| (r + seed).is_multiple_of(3)).collect();
        if deleted.len() == rows {
            deleted.remove(rows - 1);
        }
        let uuid = uuid::Uuid::from_u128(
            (u128::from(seed) << 64) | (u128::from(version) << 16) | k as u128,
        );
        let (size_in_bytes, bytes) = vector_file(&deleted)?;
        let dv_path = table.root.join(format!("deletion_vector_{uuid}.bin"));
        std::fs::write(&dv_path, bytes).map_err(|e| format!("{}: {e}", dv_path.display()))?;
        let mut add = add_action(&table.root, file)?;
        let fields = add["add"]
            .as_object_mut()
            .ok_or("an add action is an object")?;
        fields.insert(
            "deletionVector".into(),
            json!({
                "storageType": "u",
                "pathOrInlineDv": z85::encode(uuid.as_bytes()),
                "offset": 1,
                "sizeInBytes": size_in_bytes,
                "cardinality": deleted.len(),
            }),
        );
        // The protocol's writer requirement: a file with a deletion vector records its data
        // file's `numRecords`, statistics or not.
        let mut stats: Value = match fields.get("stats").and_then(Value::as_str) {
            Some(stats) => serde_json::from_str(stats).map_err(|e| e.to_string())?,
            None => json!({}),
        };
        stats["numRecords"] = json!(rows);
        stats["tightBounds"] = json!(false);
        fields.insert("stats".into(), json!(stats.to_string()));
        actions.push(delta_commit::remove(&file.path));
        actions.push(add);
    }
    delta_commit::write_commit(&log, version, &actions)
        .map_err(|e| format!("{}: {e}", log.display()))?;
    Ok(version)
}

fn rows_of(file: &WrittenFile) -> usize {
    file.cells.first().map_or(0, Vec::len)
}

/// A deletion vector file holding `deleted`: a version byte (1), then the bitmap's size
/// (4 bytes, big-endian), the bitmap (the magic, little-endian, and the 64-bit roaring bitmap
/// in its portable serialization) and its CRC-32 (4 bytes, big-endian). Returns the bitmap's
/// size and the file's bytes.
fn vector_file(deleted: &RoaringTreemap) -> Result<(usize, Vec<u8>), String> {
    let mut bitmap = PORTABLE_MAGIC.to_le_bytes().to_vec();
    deleted
        .serialize_into(&mut bitmap)
        .map_err(|e| e.to_string())?;
    let size = u32::try_from(bitmap.len()).map_err(|e| e.to_string())?;
    let mut out = vec![1u8];
    out.extend(size.to_be_bytes());
    out.extend(&bitmap);
    out.extend(crc32(&bitmap).to_be_bytes());
    Ok((bitmap.len(), out))
}

/// The table's newest protocol up to `version`, with `deletionVectors` among its reader and
/// writer features (reader version 3, writer version 7).
fn protocol_with_deletion_vectors(log: &Path, version: u64) -> Result<Value, String> {
    let mut newest: Option<Value> = None;
    for v in 0..=version {
        for action in delta_commit::read_commit(log, v)?.unwrap_or_default() {
            if let Some(p) = action.get("protocol") {
                newest = Some(p.clone());
            }
        }
    }
    let protocol = newest.ok_or("the log holds no protocol")?;
    let features = |key: &str| -> Vec<String> {
        let mut list: Vec<String> = protocol[key]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|f| f.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default();
        if !list.iter().any(|f| f == "deletionVectors") {
            list.push("deletionVectors".into());
        }
        list
    };
    let reader = features("readerFeatures");
    let writer = features("writerFeatures");
    let reader: Vec<&str> = reader.iter().map(String::as_str).collect();
    let writer: Vec<&str> = writer.iter().map(String::as_str).collect();
    Ok(delta_commit::protocol(&reader, &writer))
}

/// CRC-32 (IEEE, as java.util.zip.CRC32 computes it), bit by bit: a few bytes per vector need
/// no table, and no checksum crate whose features would differ from the build's others.
fn crc32(data: &[u8]) -> u32 {
    let mut crc = !0u32;
    for byte in data {
        crc ^= u32::from(*byte);
        for _ in 0..8 {
            crc = if crc & 1 == 0 {
                crc >> 1
            } else {
                (crc >> 1) ^ 0xEDB8_8320
            };
        }
    }
    !crc
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_checksum_is_crc32_ieee() {
        assert_eq!(super::crc32(b"123456789"), 0xCBF4_3926);
    }
}
