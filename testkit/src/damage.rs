//! Damaged copies of a table for the log-reader fuzz tests: one seeded damage at a time to
//! one file of the log (a commit, a checkpoint part, `_last_checkpoint`) or to a deletion
//! vector: a truncation, flipped bytes, a deleted line, an emptied file. The same seed gives
//! the same damage, so a failure names a case that can be replayed.

use std::path::{Path, PathBuf};

/// A small seeded generator (xorshift64*): the damage needs no more than that, and the
/// testkit takes no dependency for it.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A number in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n.max(1) as u64) as usize
    }
}

/// One damage done to a copy.
pub struct Damaged {
    /// Keeps the copy alive.
    pub dir: tempfile::TempDir,
    pub table: PathBuf,
    /// The damaged file, relative to the table root.
    pub file: String,
    /// What was done, for failure messages.
    pub what: String,
}

/// The files a damage may hit: every file of `_delta_log` and every deletion vector.
fn targets(table: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let log = table.join("_delta_log");
    for dir in [table.to_path_buf(), log.clone()] {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            let in_log = dir == log;
            let is_file = e.file_type().is_ok_and(|t| t.is_file());
            if is_file && (in_log || name.ends_with(".bin")) {
                out.push(if in_log {
                    format!("_delta_log/{name}")
                } else {
                    name
                });
            }
        }
    }
    out.sort();
    out
}

/// A copy of `source` with one seeded damage.
pub fn damaged_copy(source: &Path, seed: u64) -> Damaged {
    let (dir, table) = crate::copy_table(source);
    let mut rng = Rng::new(seed);
    let files = targets(&table);
    assert!(!files.is_empty(), "{} has no log", source.display());
    let file = files[rng.below(files.len())].clone();
    let path = table.join(&file);
    let mut bytes = std::fs::read(&path).expect("read the file to damage");
    let what = match rng.below(4) {
        0 => {
            let at = rng.below(bytes.len().max(1));
            bytes.truncate(at);
            format!("truncated to {at} bytes")
        }
        1 => {
            let flips = 1 + rng.below(4);
            let mut at = Vec::new();
            for _ in 0..flips {
                if bytes.is_empty() {
                    break;
                }
                let i = rng.below(bytes.len());
                bytes[i] ^= 1 << rng.below(8);
                at.push(i);
            }
            format!("bits flipped at {at:?}")
        }
        2 => {
            let lines: Vec<&[u8]> = bytes.split(|b| *b == b'\n').collect();
            let drop = rng.below(lines.len());
            let kept: Vec<&[u8]> = lines
                .iter()
                .enumerate()
                .filter(|(i, _)| *i != drop)
                .map(|(_, l)| *l)
                .collect();
            bytes = kept.join(&b'\n');
            format!("line {} deleted", drop + 1)
        }
        _ => {
            bytes.clear();
            "emptied".to_string()
        }
    };
    std::fs::write(&path, &bytes).expect("write the damaged file");
    Damaged {
        dir,
        table,
        file,
        what,
    }
}

/// The real tables the damaged-log tests damage, under the fixtures folder.
pub const DAMAGED_TABLES: &[&str] = &[
    "taxi-nyc",
    "real/basic-with-checkpoint",
    "real/multi-part-checkpoint",
    "real/dv-partitioned-with-checkpoint",
    "real/delta-1.2.1-only-struct-stats",
    "real/table-with-columnmapping-mode-name",
];

/// Damages per table: `DAMAGE_CASES`, else `default`.
pub fn cases_per_table(default: u64) -> u64 {
    std::env::var("DAMAGE_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Fuzz cases per target: `FUZZ_CASES`, else `default`.
pub fn fuzz_cases(default: u32) -> u32 {
    std::env::var("FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// `original` with each edit `(at, insert, cut)` applied in turn: `cut` characters' worth of
/// bytes from `at` (moved to character boundaries) replaced by `insert`. The fuzz tests damage
/// real statistics, actions and schemas with it.
pub fn edit_text(original: &str, edits: &[(usize, &str, usize)]) -> String {
    let mut s = original.to_string();
    for (at, insert, cut) in edits {
        let mut at = (*at).min(s.len());
        while !s.is_char_boundary(at) {
            at -= 1;
        }
        let mut end = (at + cut).min(s.len());
        while !s.is_char_boundary(end) {
            end += 1;
        }
        s.replace_range(at..end, insert);
    }
    s
}

/// Joins fuzz tokens, each followed by a space where `spaced` says so.
pub fn join_tokens(parts: &[(&str, bool)]) -> String {
    parts
        .iter()
        .map(|(t, space)| {
            if *space {
                format!("{t} ")
            } else {
                t.to_string()
            }
        })
        .collect()
}
