//! Scan planning: how many files (or row-group ranges) to read at once.
//!
//! Partitions start at the available parallelism and are capped by DataFusion's target, by
//! the soft file-descriptor limit (16 descriptors per partition) and by available memory
//! (256 MiB per partition). Available memory is the smaller of `/proc/meminfo`'s MemAvailable
//! and the cgroup headroom of the process: cgroup v1 and v2, the process's own group and every
//! visible ancestor (v1 ancestors only under hierarchical accounting), each
//! `limit - (usage - (inactive_file - dirty - writeback))` with every subtraction floored at
//! zero. The page-cache credit is dropped (taken as zero) when a counter is missing, malformed,
//! duplicated, or larger than usage. A signal that cannot be read drops its cap instead of
//! failing, and the result is never below 1.
//!
//! Every reader takes a filesystem root, so tests run it over fake `/proc` and
//! `/sys/fs/cgroup` trees.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

pub const FDS_PER_PARTITION: u64 = 16;
pub const BYTES_PER_PARTITION: u64 = 256 * 1024 * 1024;

/// The decision and the caps behind it (`None`: the signal was not available).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScanPlan {
    pub partitions: usize,
    pub available_parallelism: usize,
    pub datafusion_target: usize,
    pub fd_cap: Option<u64>,
    pub memory_cap: Option<u64>,
    pub available_memory: Option<u64>,
}

/// Plans over the real machine (`/`).
pub fn plan(datafusion_target: usize) -> ScanPlan {
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    plan_at(Path::new("/"), cpus, datafusion_target)
}

/// Plans with `cpus` available, reading `/proc` and `/sys/fs/cgroup` under `root`.
pub fn plan_at(root: &Path, cpus: usize, datafusion_target: usize) -> ScanPlan {
    let fd_cap = soft_fd_limit(root).map(|n| n / FDS_PER_PARTITION);
    let available_memory = available_memory(root);
    let memory_cap = available_memory.map(|m| m / BYTES_PER_PARTITION);
    let mut partitions = cpus.min(datafusion_target.max(1)) as u64;
    for cap in [fd_cap, memory_cap].into_iter().flatten() {
        partitions = partitions.min(cap);
    }
    ScanPlan {
        partitions: usize::try_from(partitions.max(1)).unwrap_or(1),
        available_parallelism: cpus,
        datafusion_target,
        fd_cap,
        memory_cap,
        available_memory,
    }
}

/// The soft limit of open files (`/proc/self/limits`), `None` when unknown or unlimited.
pub fn soft_fd_limit(root: &Path) -> Option<u64> {
    let text = std::fs::read_to_string(root.join("proc/self/limits")).ok()?;
    let line = text.lines().find(|l| l.starts_with("Max open files"))?;
    line["Max open files".len()..]
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// The smaller of MemAvailable and the cgroup headroom; either alone when the other is
/// unknown.
pub fn available_memory(root: &Path) -> Option<u64> {
    let meminfo = mem_available(root);
    let cgroup = cgroup_headroom(root);
    match (meminfo, cgroup) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

fn mem_available(root: &Path) -> Option<u64> {
    let text = std::fs::read_to_string(root.join("proc/meminfo")).ok()?;
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let mut parts = line["MemAvailable:".len()..].split_whitespace();
    let value: u64 = parts.next()?.parse().ok()?;
    match parts.next() {
        Some("kB") | None => value.checked_mul(1024),
        Some(_) => None,
    }
}

/// The smallest headroom over the process's memory cgroups (v1 and v2) and their visible
/// ancestors; `None` when no group has a limit that can be read.
pub fn cgroup_headroom(root: &Path) -> Option<u64> {
    let text = std::fs::read_to_string(root.join("proc/self/cgroup")).ok()?;
    let mut best: Option<u64> = None;
    let mut consider = |h: Option<u64>| {
        if let Some(h) = h {
            best = Some(best.map_or(h, |b| b.min(h)));
        }
    };
    for line in text.lines() {
        let mut fields = line.splitn(3, ':');
        let (Some(_id), Some(controllers), Some(path)) =
            (fields.next(), fields.next(), fields.next())
        else {
            continue;
        };
        if controllers.is_empty() {
            let mount = root.join("sys/fs/cgroup");
            for dir in group_and_ancestors(&mount, path) {
                consider(v2_headroom(&dir));
            }
        } else if controllers.split(',').any(|c| c == "memory") {
            let mount = root.join("sys/fs/cgroup/memory");
            let chain = group_and_ancestors(&mount, path);
            let Some(own) = chain.first() else { continue };
            consider(v1_headroom(own));
            // Ancestors' limits bind only under hierarchical accounting.
            if read_u64(&own.join("memory.use_hierarchy")) == Some(1) {
                for dir in &chain[1..] {
                    consider(v1_headroom(dir));
                }
            }
        }
    }
    best
}

/// The group's directory and each ancestor up to the mount, those that exist.
fn group_and_ancestors(mount: &Path, group: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut parts: Vec<&str> = group.split('/').filter(|p| !p.is_empty()).collect();
    loop {
        let dir = parts.iter().fold(mount.to_path_buf(), |d, p| d.join(p));
        if dir.is_dir() {
            out.push(dir);
        }
        if parts.pop().is_none() {
            break;
        }
    }
    out
}

fn v2_headroom(dir: &Path) -> Option<u64> {
    let limit = std::fs::read_to_string(dir.join("memory.max")).ok()?;
    let limit: u64 = match limit.trim() {
        "max" => return None,
        text => text.parse().ok()?,
    };
    let usage = read_u64(&dir.join("memory.current"))?;
    let stat = read_stat(&dir.join("memory.stat"));
    Some(headroom(
        limit,
        usage,
        &stat,
        ["inactive_file", "file_dirty", "file_writeback"],
    ))
}

/// v1 reports "no limit" as a huge page-aligned number; anything at or above this is none.
const V1_UNLIMITED: u64 = 1 << 62;

fn v1_headroom(dir: &Path) -> Option<u64> {
    let limit = read_u64(&dir.join("memory.limit_in_bytes"))?;
    if limit >= V1_UNLIMITED {
        return None;
    }
    let usage = read_u64(&dir.join("memory.usage_in_bytes"))?;
    let stat = read_stat(&dir.join("memory.stat"));
    Some(headroom(
        limit,
        usage,
        &stat,
        ["inactive_file", "dirty", "writeback"],
    ))
}

/// `limit - (usage - credit)`, credit = `inactive_file - dirty - writeback`, each subtraction
/// floored at zero; no credit when a counter is missing, malformed or duplicated
/// (`stat` holds `None` for those) or the credit exceeds usage.
fn headroom(
    limit: u64,
    usage: u64,
    stat: &HashMap<String, Option<u64>>,
    counters: [&str; 3],
) -> u64 {
    let get = |k: &str| stat.get(k).copied().flatten();
    let credit = match (get(counters[0]), get(counters[1]), get(counters[2])) {
        (Some(inactive), Some(dirty), Some(writeback)) => {
            let c = inactive.saturating_sub(dirty).saturating_sub(writeback);
            if c > usage { 0 } else { c }
        }
        _ => 0,
    };
    limit.saturating_sub(usage.saturating_sub(credit))
}

fn read_u64(path: &Path) -> Option<u64> {
    std::fs::read_to_string(path).ok()?.trim().parse().ok()
}

/// `memory.stat` as key -> value; a malformed or repeated key maps to `None`.
fn read_stat(path: &Path) -> HashMap<String, Option<u64>> {
    let mut out: HashMap<String, Option<u64>> = HashMap::new();
    let Ok(text) = std::fs::read_to_string(path) else {
        return out;
    };
    for line in text.lines() {
        let mut parts = line.split_whitespace();
        let (Some(key), value) = (parts.next(), parts.next()) else {
            continue;
        };
        let value = value
            .and_then(|v| v.parse::<u64>().ok())
            .filter(|_| parts.next().is_none());
        out.entry(key.to_string())
            .and_modify(|v| *v = None)
            .or_insert(value);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const GIB: u64 = 1 << 30;

    /// A fake root with the given files.
    fn tree(files: &[(&str, String)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for (path, text) in files {
            let full = dir.path().join(path);
            std::fs::create_dir_all(full.parent().unwrap()).unwrap();
            std::fs::write(full, text).unwrap();
        }
        dir
    }

    fn meminfo(gib: u64) -> (&'static str, String) {
        (
            "proc/meminfo",
            format!(
                "MemTotal: 99999999 kB\nMemAvailable: {} kB\n",
                gib * GIB / 1024
            ),
        )
    }

    fn v2(group: &str, max: &str, current: u64, stat: &str) -> Vec<(String, String)> {
        let dir = format!("sys/fs/cgroup{group}");
        vec![
            (format!("{dir}/memory.max"), max.to_string()),
            (format!("{dir}/memory.current"), current.to_string()),
            (format!("{dir}/memory.stat"), stat.to_string()),
        ]
    }

    fn owned(files: Vec<(String, String)>) -> Vec<(&'static str, String)> {
        files
            .into_iter()
            .map(|(p, t)| (&*Box::leak(p.into_boxed_str()), t))
            .collect()
    }

    #[test]
    fn v2_takes_the_tightest_of_the_group_and_its_ancestors() {
        let mut files = owned(v2("/a/b", "max", GIB, ""));
        files.extend(owned(v2(
            "/a",
            &(3 * GIB).to_string(),
            GIB,
            "inactive_file 1073741824\nfile_dirty 0\nfile_writeback 0\n",
        )));
        files.push(("proc/self/cgroup", "0::/a/b\n".into()));
        files.push(meminfo(20));
        let t = tree(&files);
        // /a/b is unlimited; /a: 3 GiB - (1 GiB - 1 GiB cache) = 3 GiB.
        assert_eq!(cgroup_headroom(t.path()), Some(3 * GIB));
        assert_eq!(available_memory(t.path()), Some(3 * GIB));
        assert_eq!(plan_at(t.path(), 64, 64).partitions, 12);
    }

    #[test]
    fn credit_is_dropped_for_bad_counters_and_when_bigger_than_usage() {
        let cases: &[(&str, u64)] = &[
            (
                "inactive_file 536870912\nfile_dirty 0\nfile_writeback 0\n",
                2 * GIB + GIB / 2,
            ),
            (
                "inactive_file 536870912\nfile_dirty 268435456\nfile_writeback 0\n",
                2 * GIB + GIB / 4,
            ),
            // dirty + writeback above inactive: the credit floors at zero.
            ("inactive_file 1\nfile_dirty 5\nfile_writeback 5\n", 2 * GIB),
            ("inactive_file 536870912\nfile_dirty 0\n", 2 * GIB),
            (
                "inactive_file lots\nfile_dirty 0\nfile_writeback 0\n",
                2 * GIB,
            ),
            (
                "inactive_file 536870912\ninactive_file 536870912\nfile_dirty 0\nfile_writeback 0\n",
                2 * GIB,
            ),
            // A credit larger than usage is not trusted.
            (
                "inactive_file 4294967296\nfile_dirty 0\nfile_writeback 0\n",
                2 * GIB,
            ),
        ];
        for (stat, expected) in cases {
            let mut files = owned(v2("/g", &(3 * GIB).to_string(), GIB, stat));
            files.push(("proc/self/cgroup", "0::/g\n".into()));
            let t = tree(&files);
            assert_eq!(
                cgroup_headroom(t.path()),
                Some(*expected),
                "memory.stat {stat:?}"
            );
        }
    }

    #[test]
    fn v1_ancestors_bind_only_with_hierarchy() {
        for (hierarchy, expected) in [("1", GIB), ("0", 4 * GIB)] {
            let files = vec![
                (
                    "proc/self/cgroup",
                    "4:memory:/p/c\n5:cpu,cpuacct:/p/c\n".to_string(),
                ),
                (
                    "sys/fs/cgroup/memory/p/c/memory.limit_in_bytes",
                    (5 * GIB).to_string(),
                ),
                (
                    "sys/fs/cgroup/memory/p/c/memory.usage_in_bytes",
                    GIB.to_string(),
                ),
                (
                    "sys/fs/cgroup/memory/p/c/memory.stat",
                    "inactive_file 0\ndirty 0\nwriteback 0\n".to_string(),
                ),
                (
                    "sys/fs/cgroup/memory/p/c/memory.use_hierarchy",
                    hierarchy.to_string(),
                ),
                (
                    "sys/fs/cgroup/memory/p/memory.limit_in_bytes",
                    (2 * GIB).to_string(),
                ),
                (
                    "sys/fs/cgroup/memory/p/memory.usage_in_bytes",
                    GIB.to_string(),
                ),
                (
                    "sys/fs/cgroup/memory/memory.limit_in_bytes",
                    "9223372036854771712".to_string(),
                ),
                (
                    "sys/fs/cgroup/memory/memory.usage_in_bytes",
                    GIB.to_string(),
                ),
            ];
            let t = tree(&files);
            assert_eq!(
                cgroup_headroom(t.path()),
                Some(expected),
                "use_hierarchy={hierarchy}"
            );
        }
    }

    #[test]
    fn missing_signals_drop_their_caps() {
        let t = tree(&[]);
        let plan = plan_at(t.path(), 8, 16);
        assert_eq!(
            plan,
            ScanPlan {
                partitions: 8,
                available_parallelism: 8,
                datafusion_target: 16,
                fd_cap: None,
                memory_cap: None,
                available_memory: None
            }
        );
        // Unlimited everywhere: only meminfo caps.
        let mut files = owned(v2("/g", "max", GIB, ""));
        files.push(("proc/self/cgroup", "0::/g\n".into()));
        files.push(meminfo(1));
        let t = tree(&files);
        assert_eq!(cgroup_headroom(t.path()), None);
        assert_eq!(plan_at(t.path(), 8, 16).partitions, 4);
    }

    #[test]
    fn fd_and_memory_caps_never_go_below_one() {
        let files = vec![
            ("proc/self/limits", "Limit                     Soft Limit           Hard Limit           Units\nMax open files            20                   4096                 files\n".to_string()),
            meminfo(0),
        ];
        let t = tree(&files);
        let plan = plan_at(t.path(), 8, 8);
        assert_eq!(plan.fd_cap, Some(1));
        assert_eq!(plan.memory_cap, Some(0));
        assert_eq!(plan.partitions, 1);
        // The target caps too.
        assert_eq!(plan_at(tree(&[]).path(), 8, 3).partitions, 3);
    }
}
