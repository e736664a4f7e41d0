//! The reproductions' tables in one archive beside the report: `repro-tables.tar.gz` holds
//! every `repro/NNN-.../table/` folder (Parquet files and logs, most of a report's files) and
//! each reproduction's `rows.parquet` (the live rows its script's truth reads), so
//! that a report adds a handful of files to the tree; `tar -xzf repro-tables.tar.gz` in the
//! report's folder puts each table back beside its script.

use std::path::Path;

use flate2::Compression;
use flate2::write::GzEncoder;

/// The archive's name, in the report's folder.
pub const ARCHIVE: &str = "repro-tables.tar.gz";

/// A Python reproduction's live rows, packed beside its table.
pub const ROWS: &str = "rows.parquet";

/// Moves every `out/repro/*/table` into `out/ARCHIVE`; returns how many tables it holds
/// (none: no archive is written).
pub fn pack_tables(out: &Path) -> Result<usize, String> {
    let repro = out.join("repro");
    let mut tables: Vec<String> = match std::fs::read_dir(&repro) {
        Ok(entries) => entries
            .filter_map(Result::ok)
            .filter(|e| e.path().join("table").is_dir())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(0),
        Err(e) => return Err(format!("{}: {e}", repro.display())),
    };
    if tables.is_empty() {
        return Ok(0);
    }
    tables.sort();
    let path = out.join(ARCHIVE);
    let file = std::fs::File::create(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut archive = tar::Builder::new(GzEncoder::new(file, Compression::default()));
    for name in &tables {
        let dir = repro.join(name).join("table");
        archive
            .append_dir_all(format!("repro/{name}/table"), &dir)
            .map_err(|e| format!("{}: {e}", dir.display()))?;
        let rows = repro.join(name).join(ROWS);
        if rows.is_file() {
            archive
                .append_path_with_name(&rows, format!("repro/{name}/{ROWS}"))
                .map_err(|e| format!("{}: {e}", rows.display()))?;
        }
    }
    archive
        .into_inner()
        .and_then(GzEncoder::finish)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    for name in &tables {
        let dir = repro.join(name).join("table");
        std::fs::remove_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let rows = repro.join(name).join(ROWS);
        if rows.is_file() {
            std::fs::remove_file(&rows).map_err(|e| format!("{}: {e}", rows.display()))?;
        }
    }
    Ok(tables.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_move_into_the_archive_and_extract_back() {
        let out = tempfile::tempdir().unwrap();
        for n in ["001-a-refused", "002-b-error"] {
            let table = out.path().join("repro").join(n).join("table/_delta_log");
            std::fs::create_dir_all(&table).unwrap();
            std::fs::write(table.join("00000000000000000000.json"), n).unwrap();
            std::fs::write(out.path().join("repro").join(n).join("repro.py"), "x").unwrap();
        }
        assert_eq!(pack_tables(out.path()).unwrap(), 2);
        assert!(!out.path().join("repro/001-a-refused/table").exists());
        assert!(out.path().join("repro/001-a-refused/repro.py").exists());
        let file = std::fs::File::open(out.path().join(ARCHIVE)).unwrap();
        let back = tempfile::tempdir().unwrap();
        tar::Archive::new(flate2::read::GzDecoder::new(file))
            .unpack(back.path())
            .unwrap();
        let log = back
            .path()
            .join("repro/002-b-error/table/_delta_log/00000000000000000000.json");
        assert_eq!(std::fs::read_to_string(log).unwrap(), "002-b-error");
        // A report without reproductions gets no archive.
        let empty = tempfile::tempdir().unwrap();
        assert_eq!(pack_tables(empty.path()).unwrap(), 0);
        assert!(!empty.path().join(ARCHIVE).exists());
    }
}
