//! Test support shared by every crate's suites (and the harness's binaries, which find the
//! fixtures and corpora the same way), so no suite carries its own copy.
//!
//! - [`fixtures`]: the shared Delta fixtures (`$DELTA_FIXTURES`, else `../shared/fixtures`
//!   beside the workspace). Missing fixtures fail loudly: a suite that silently passes without
//!   its tables proves nothing.
//! - [`copy_table`]: a writable copy of a fixture in a temp dir, for tests that damage or
//!   extend a table (the shared copy may have no write bits and must never change).

use std::path::{Path, PathBuf};

pub mod azurite;
pub mod damage;
pub mod fuzz;
pub mod gates;
pub mod net;
pub mod s3;

/// The workspace root, found at run time: cargo runs every test binary with
/// `CARGO_MANIFEST_DIR` set to the tested member's folder, one level below the root. The
/// compile-time path is only a fallback: cargo reuses a build across checkouts of the same
/// workspace, so a path baked into a binary may name another checkout.
pub fn workspace_root() -> PathBuf {
    std::env::var_os("CARGO_MANIFEST_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")))
        .join("..")
}

/// Where the fixtures should be (`$DELTA_FIXTURES`, else `../shared/fixtures` beside the
/// workspace), unchecked: for binaries that report a missing table their own way.
pub fn fixtures_location() -> PathBuf {
    std::env::var_os("DELTA_FIXTURES")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace_root().join("../shared/fixtures"))
}

pub fn fixtures() -> PathBuf {
    let dir = fixtures_location();
    assert!(
        dir.join("taxi-nyc/_delta_log").is_dir(),
        "the shared Delta fixtures are missing at {} (set DELTA_FIXTURES to their folder)",
        dir.display()
    );
    dir
}

/// The reference table.
pub fn taxi() -> String {
    fixtures().join("taxi-nyc").to_string_lossy().into_owned()
}

/// Every fixture table: `taxi-nyc` and each table under `real/`, sorted.
pub fn all_tables() -> Vec<PathBuf> {
    let root = fixtures();
    let mut out = vec![root.join("taxi-nyc")];
    let mut real: Vec<PathBuf> = std::fs::read_dir(root.join("real"))
        .expect("fixtures/real exists")
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.join("_delta_log").is_dir())
        .collect();
    real.sort();
    assert!(
        real.len() >= 18,
        "expected the real fixture tables, found {}",
        real.len()
    );
    out.extend(real);
    out
}

/// A writable copy of the table at `source` in a fresh temp dir: the dir and the table path.
pub fn copy_table(source: &Path) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("temp dir");
    let table = dir.path().join(source.file_name().expect("a table folder"));
    copy_tree(source, &table);
    (dir, table)
}

/// Copies the tree under `from` to `to`, every file writable (the shared fixtures are not).
pub(crate) fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("create dir");
    for file in files_under(from) {
        let target = to.join(file.strip_prefix(from).expect("below the source"));
        std::fs::create_dir_all(target.parent().expect("a parent")).expect("create dir");
        std::fs::copy(&file, &target).expect("copy file");
        let mut perms = std::fs::metadata(&target).expect("metadata").permissions();
        #[allow(clippy::permissions_set_readonly_false)]
        perms.set_readonly(false);
        std::fs::set_permissions(&target, perms).expect("make writable");
    }
}

/// Every file below `dir`, at any depth, sorted.
pub(crate) fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(next) = pending.pop() {
        for entry in std::fs::read_dir(&next).expect("read dir") {
            let entry = entry.expect("dir entry");
            if entry.file_type().expect("file type").is_dir() {
                pending.push(entry.path());
            } else {
                out.push(entry.path());
            }
        }
    }
    out.sort();
    out
}

/// What a run of one of the workspace's binaries printed.
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

/// Runs the binary at `path` (an `env!("CARGO_BIN_EXE_...")`) with `args`. Backtraces are on,
/// so a leaked one would break the one-line error contract the suites check.
pub fn run_binary(path: &str, args: &[&str]) -> Run {
    let out = std::process::Command::new(path)
        .args(args)
        .env("RUST_BACKTRACE", "1")
        .output()
        .unwrap_or_else(|e| panic!("{path} runs: {e}"));
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Runs `path` with `args`, killed after `limit`: `None` when it had to be (a hang).
pub fn run_binary_within(path: &str, args: &[&str], limit: std::time::Duration) -> Option<Run> {
    use std::io::Read;
    let mut child = std::process::Command::new(path)
        .args(args)
        .env("RUST_BACKTRACE", "1")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{path} runs: {e}"));
    // Drained on threads of their own, so a full pipe never stalls the child.
    let mut stdout = child.stdout.take().expect("piped stdout");
    let mut stderr = child.stderr.take().expect("piped stderr");
    let out = std::thread::spawn(move || {
        let mut s = Vec::new();
        let _ = stdout.read_to_end(&mut s);
        s
    });
    let err = std::thread::spawn(move || {
        let mut s = Vec::new();
        let _ = stderr.read_to_end(&mut s);
        s
    });
    let started = std::time::Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait for the child") {
            break status;
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    };
    Some(Run {
        code: status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.join().unwrap_or_default()).into_owned(),
        stderr: String::from_utf8_lossy(&err.join().unwrap_or_default()).into_owned(),
    })
}

/// The error contract: exit `code`, empty stdout, one stderr line mentioning `fragment`, no
/// panic.
pub fn assert_error(run: &Run, context: &str, code: i32, fragment: &str) {
    assert_eq!(
        run.code, code,
        "exit code of {context}; stderr: {}",
        run.stderr
    );
    assert!(
        run.stdout.is_empty(),
        "stdout must be empty on error for {context}: {}",
        run.stdout
    );
    assert_eq!(
        run.stderr.trim_end().lines().count(),
        1,
        "one stderr line for {context}: {}",
        run.stderr
    );
    assert!(
        run.stderr.contains(fragment),
        "stderr of {context} should mention `{fragment}`: {}",
        run.stderr
    );
    assert!(
        !run.stderr.contains("panicked"),
        "no panic for {context}: {}",
        run.stderr
    );
}
