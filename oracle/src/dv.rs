//! Deletion vectors: the set of deleted row positions of a file, decoded from the descriptor
//! in its add action (inline Z85, or a `.bin` file named by a Z85 UUID or an absolute path).
//!
//! Format (Delta protocol, "Deletion Vector Format"): a bitmap is a 4-byte little-endian magic
//! 1681511377 followed by a 64-bit roaring bitmap in the portable serialization. A file holds a
//! version byte (1), then at `offset` a 4-byte big-endian size, that many bytes of bitmap, and
//! a 4-byte big-endian CRC-32 of them.

use object_store::path::Path as StorePath;
use roaring::RoaringTreemap;

use crate::error::OracleError;
use crate::log::actions::DeletionVectorDescriptor;
use crate::store::TableFiles;

const PORTABLE_MAGIC: u32 = 1_681_511_377;

/// Where an on-disk deletion vector lives.
pub fn dv_file(
    files: &TableFiles,
    dv: &DeletionVectorDescriptor,
) -> Result<Option<StorePath>, String> {
    match dv.storage_type.as_str() {
        "i" => Ok(None),
        "u" => {
            let encoded = &dv.path_or_inline_dv;
            if encoded.len() < 20 {
                return Err(format!(
                    "deletion vector path `{encoded}` is shorter than a Z85 UUID"
                ));
            }
            let (prefix, uuid_z85) = encoded.split_at(encoded.len() - 20);
            let bytes = z85::decode(uuid_z85)
                .map_err(|e| format!("deletion vector UUID `{uuid_z85}`: {e}"))?;
            let uuid = uuid::Uuid::from_slice(&bytes).map_err(|e| e.to_string())?;
            let name = format!("deletion_vector_{uuid}.bin");
            Ok(Some(if prefix.is_empty() {
                files.under_root(&name)
            } else {
                files.under_root(&format!("{prefix}/{name}"))
            }))
        }
        "p" => files
            .resolve(&dv.path_or_inline_dv)
            .map(Some)
            .map_err(|e| e.to_string()),
        other => Err(format!("unknown deletion vector storage type `{other}`")),
    }
}

/// The deleted row positions of the file whose add action carries `dv`.
pub fn read_deletion_vector(
    files: &TableFiles,
    data_file: &str,
    dv: &DeletionVectorDescriptor,
) -> Result<RoaringTreemap, OracleError> {
    let fail = |reason: String| OracleError::file(data_file, format!("deletion vector: {reason}"));
    let bitmap = match dv_file(files, dv).map_err(fail)? {
        None => {
            let bytes = z85::decode(&dv.path_or_inline_dv)
                .map_err(|e| fail(format!("inline data is not Z85: {e}")))?;
            decode_bitmap(&bytes).map_err(fail)?
        }
        Some(path) => {
            let shown = files.shown(&path);
            let bytes = files.read(&path)?;
            decode_file(&bytes, dv.offset.unwrap_or(1), dv.size_in_bytes)
                .map_err(|e| OracleError::file(&shown, e))?
        }
    };
    if bitmap.len() != dv.cardinality as u64 {
        return Err(fail(format!(
            "holds {} rows, the log says {}",
            bitmap.len(),
            dv.cardinality
        )));
    }
    Ok(bitmap)
}

fn decode_file(bytes: &[u8], offset: i32, size_in_bytes: i32) -> Result<RoaringTreemap, String> {
    if bytes.first() != Some(&1) {
        return Err(format!(
            "unknown deletion vector file version {:?}",
            bytes.first()
        ));
    }
    let start = usize::try_from(offset).map_err(|_| format!("negative offset {offset}"))?;
    let size_at = bytes
        .get(start..start + 4)
        .ok_or("truncated before the bitmap size")?;
    let size = u32::from_be_bytes(size_at.try_into().map_err(|_| "bad size")?) as usize;
    if size != size_in_bytes as usize {
        return Err(format!(
            "bitmap size {size} differs from the log's {size_in_bytes}"
        ));
    }
    let data = bytes
        .get(start + 4..start + 4 + size)
        .ok_or("truncated inside the bitmap")?;
    let crc_at = bytes
        .get(start + 4 + size..start + 8 + size)
        .ok_or("truncated before the checksum")?;
    let expected = u32::from_be_bytes(crc_at.try_into().map_err(|_| "bad checksum")?);
    let actual = crc32(data);
    if actual != expected {
        return Err(format!(
            "checksum {actual:08x} does not match {expected:08x}"
        ));
    }
    decode_bitmap(data)
}

fn decode_bitmap(bytes: &[u8]) -> Result<RoaringTreemap, String> {
    let magic = bytes.get(..4).ok_or("shorter than its magic number")?;
    let magic = u32::from_le_bytes(magic.try_into().map_err(|_| "bad magic")?);
    if magic != PORTABLE_MAGIC {
        return Err(format!(
            "magic number {magic} is not the portable roaring format"
        ));
    }
    RoaringTreemap::deserialize_from(&bytes[4..])
        .map_err(|e| format!("not a portable 64-bit roaring bitmap: {e}"))
}

/// CRC-32 (IEEE, the one java.util.zip.CRC32 computes), bit by bit: the checksum of a few
/// kilobytes per file needs no table.
fn crc32(data: &[u8]) -> u32 {
    let mut crc = !0u32;
    for byte in data {
        crc ^= u32::from(*byte);
        for _ in 0..8 {
            crc = if crc & 1 != 0 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

#[cfg(test)]
mod tests {
    use super::*;

    fn descriptor(
        storage: &str,
        path: &str,
        offset: Option<i32>,
        size: i32,
        cardinality: i64,
    ) -> DeletionVectorDescriptor {
        DeletionVectorDescriptor {
            storage_type: storage.into(),
            path_or_inline_dv: path.into(),
            offset,
            size_in_bytes: size,
            cardinality,
        }
    }

    fn bitmap_bytes(rows: &[u64]) -> Vec<u8> {
        let bitmap: RoaringTreemap = rows.iter().copied().collect();
        let mut bytes = PORTABLE_MAGIC.to_le_bytes().to_vec();
        bitmap.serialize_into(&mut bytes).unwrap();
        bytes
    }

    #[test]
    fn crc32_matches_the_reference() {
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
    }

    #[test]
    fn inline_and_on_disk_vectors_decode() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("_delta_log")).unwrap();
        let files = TableFiles::open(
            dir.path().to_str().unwrap(),
            &storage::StorageOptions::default(),
        )
        .unwrap();
        let rows = [0u64, 3, 7, 1 << 33];
        let mut data = bitmap_bytes(&rows);
        // Z85 needs a multiple of 4 bytes.
        while !data.len().is_multiple_of(4) {
            data.push(0);
        }
        let inline = descriptor("i", &z85::encode(&data), None, data.len() as i32, 4);
        let got = read_deletion_vector(&files, "f.parquet", &inline).unwrap();
        assert_eq!(got.iter().collect::<Vec<_>>(), rows);

        let bitmap = bitmap_bytes(&rows);
        let uuid = uuid::Uuid::from_u128(0x1234_5678_9abc_def0_1234_5678_9abc_def0);
        let mut file = vec![1u8];
        file.extend((bitmap.len() as u32).to_be_bytes());
        file.extend(&bitmap);
        file.extend(crc32(&bitmap).to_be_bytes());
        std::fs::create_dir(dir.path().join("ab")).unwrap();
        std::fs::write(
            dir.path()
                .join("ab")
                .join(format!("deletion_vector_{uuid}.bin")),
            &file,
        )
        .unwrap();
        let on_disk = descriptor(
            "u",
            &format!("ab{}", z85::encode(uuid.as_bytes())),
            Some(1),
            bitmap.len() as i32,
            4,
        );
        let got = read_deletion_vector(&files, "f.parquet", &on_disk).unwrap();
        assert_eq!(got.iter().collect::<Vec<_>>(), rows);

        // A wrong cardinality, a bad checksum and a missing file are errors naming a file.
        let wrong = DeletionVectorDescriptor {
            cardinality: 5,
            ..on_disk.clone()
        };
        assert!(
            read_deletion_vector(&files, "f.parquet", &wrong)
                .unwrap_err()
                .to_string()
                .contains("the log says 5")
        );
        let last = file.len() - 1;
        file[last] ^= 1;
        std::fs::write(
            dir.path()
                .join("ab")
                .join(format!("deletion_vector_{uuid}.bin")),
            &file,
        )
        .unwrap();
        assert!(
            read_deletion_vector(&files, "f.parquet", &on_disk)
                .unwrap_err()
                .to_string()
                .contains("checksum")
        );
        std::fs::remove_dir_all(dir.path().join("ab")).unwrap();
        assert!(
            read_deletion_vector(&files, "f.parquet", &on_disk)
                .unwrap_err()
                .to_string()
                .contains("deletion_vector_")
        );
    }
}
