//! Progress of long work on stderr: the log replay (live files reconciled) and `--verify`'s
//! read of the data (files read).
//!
//! A replay of a few thousand files is over before anyone would read a bar, so a bar stays
//! hidden until its work has run for [`SHOW_AFTER`]; indicatif draws nothing when stderr is
//! not a terminal, so pipes, CI logs and the test suites never see it.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// How long work runs before its bar appears.
pub const SHOW_AFTER: Duration = Duration::from_millis(500);

/// A spinner counting files, shown once the work takes more than a moment. Counted from any
/// thread (`--verify` reads files on several).
pub struct FileProgress {
    bar: ProgressBar,
    started: Instant,
    delay: Duration,
    shown: AtomicBool,
}

impl FileProgress {
    /// The log replay of `table`: live files reconciled.
    pub fn replay(table: &str) -> Self {
        Self::showing_after("replaying", table, "live files", SHOW_AFTER)
    }

    /// `--verify`'s read of `table`'s data: files read.
    pub fn reading(table: &str) -> Self {
        Self::showing_after("reading the data of", table, "files read", SHOW_AFTER)
    }

    /// A bar that appears once the work has run for `delay`.
    fn showing_after(verb: &str, table: &str, unit: &str, delay: Duration) -> Self {
        let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::hidden());
        bar.set_style(
            ProgressStyle::with_template(&format!(
                "{{spinner}} {verb} {{prefix}}: {{msg}} {unit} ({{elapsed}})"
            ))
            .unwrap_or_else(|_| ProgressStyle::default_spinner()),
        );
        bar.set_prefix(table.to_string());
        Self {
            bar,
            started: Instant::now(),
            delay,
            shown: AtomicBool::new(false),
        }
    }

    /// Called with the files counted so far.
    pub fn files_so_far(&self, files: usize) {
        if !self.shown.load(Ordering::Relaxed)
            && self.started.elapsed() >= self.delay
            && !self.shown.swap(true, Ordering::Relaxed)
        {
            self.bar.set_draw_target(ProgressDrawTarget::stderr());
            self.bar.enable_steady_tick(Duration::from_millis(120));
        }
        self.bar.set_message(files.to_string());
    }

    /// Removes the bar, so what follows starts on a clean line.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bar_waits_for_its_delay_and_counts_files() {
        let quick =
            FileProgress::showing_after("replaying", "t", "live files", Duration::from_secs(3600));
        quick.files_so_far(10);
        assert!(
            !quick.shown.load(Ordering::Relaxed),
            "work shorter than the delay never shows a bar"
        );
        assert_eq!(quick.bar.message(), "10");

        let long =
            FileProgress::showing_after("reading the data of", "t", "files read", Duration::ZERO);
        long.files_so_far(1_000);
        long.files_so_far(2_000);
        assert!(
            long.shown.load(Ordering::Relaxed),
            "past the delay the bar is handed to stderr"
        );
        assert_eq!(long.bar.message(), "2000");
        long.finish();
    }
}
