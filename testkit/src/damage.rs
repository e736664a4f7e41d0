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

/// The damage seeds of a run: `cases_per_table(default)` of them, from `DAMAGE_SEED` (else
/// 0), so a long run can go on where the last one stopped and any case replays alone.
pub fn damage_seeds(default: u64) -> std::ops::Range<u64> {
    let first: u64 = std::env::var("DAMAGE_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    first..first + cases_per_table(default)
}

/// How a binary is run on a damaged table, and what counts as an answer.
pub struct DamagedRun<'a> {
    /// The binary under test (`env!("CARGO_BIN_EXE_...")`).
    pub binary: &'a str,
    /// Its arguments after the table location.
    pub args: &'a [&'a str],
    /// The start of its one-line error on a damaged table (exit 3).
    pub error_prefix: &'a str,
    /// Checks the standard output of an answer (exit 0).
    pub answer: &'a dyn Fn(&str) -> Result<(), String>,
}

/// Runs `run` on every table of [`DAMAGED_TABLES`] under `fixtures`, once per seed of
/// [`damage_seeds`]: each run answers (exit 0, checked by `run.answer`) or exits 3 with one line
/// starting `run.error_prefix` and nothing on stdout, within a minute; never a panic, a hang or
/// another exit. Returns (answered, refused); panics naming the table, seed and damage on the
/// first case that does otherwise.
pub fn run_on_damaged_tables(fixtures: &Path, run: &DamagedRun) -> (usize, usize) {
    let (mut answered, mut refused) = (0usize, 0usize);
    // `DAMAGE_SECONDS`: rounds of every table at the next seeds until the time is up.
    let deadline = std::env::var("DAMAGE_SECONDS")
        .ok()
        .and_then(|v| v.parse::<u64>().ok())
        .map(|s| std::time::Instant::now() + std::time::Duration::from_secs(s));
    let first = damage_seeds(12);
    let mut rounds = 0u64;
    let mut seeds = first.clone();
    loop {
        for table in DAMAGED_TABLES {
            for seed in seeds.clone() {
                let d = damaged_copy(&fixtures.join(table), seed);
                let location = d.table.to_string_lossy().into_owned();
                let case = format!("{table} seed {seed}: {} {}", d.file, d.what);
                let mut args = vec![location.as_str()];
                args.extend_from_slice(run.args);
                let out =
                    crate::run_binary_within(run.binary, &args, std::time::Duration::from_secs(60))
                        .unwrap_or_else(|| panic!("{case}: still running after 60 s"));
                match out.code {
                    0 => {
                        if let Err(e) = (run.answer)(&out.stdout) {
                            panic!("{case}: not an answer ({e}): {}", out.stdout);
                        }
                        answered += 1;
                    }
                    3 => {
                        assert!(out.stdout.is_empty(), "{case}: stdout on error");
                        let line = out.stderr.trim_end();
                        assert!(!line.contains('\n'), "{case}: one line: {}", out.stderr);
                        assert!(line.starts_with(run.error_prefix), "{case}: {line}");
                        assert!(!line.contains("panicked"), "{case}: {line}");
                        refused += 1;
                    }
                    other => panic!("{case}: exit {other}: {}", out.stderr),
                }
            }
        }
        rounds += 1;
        match deadline {
            Some(d) if std::time::Instant::now() < d => {
                let width = first.end - first.start;
                seeds = first.start + rounds * width..first.end + rounds * width;
            }
            _ => break,
        }
    }
    eprintln!(
        "damaged logs: seeds {}..{}, {answered} answered, {refused} refused with exit 3",
        first.start, seeds.end
    );
    assert!(
        refused > 0,
        "no damage was refused: the damage does not reach the reader"
    );
    (answered, refused)
}
