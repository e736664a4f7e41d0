//! Progress of a long log replay on stderr.
//!
//! A replay of a few thousand files is over before anyone would read a bar, so the bar stays
//! hidden until the replay has run for [`SHOW_AFTER`]; indicatif draws nothing when stderr is
//! not a terminal, so pipes, CI logs and the test suites never see it.

use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// How long a replay runs before its bar appears.
pub const SHOW_AFTER: Duration = Duration::from_millis(500);

/// A spinner counting reconciled files, shown once the replay takes more than a moment.
pub struct ReplayProgress {
    bar: ProgressBar,
    started: Instant,
    delay: Duration,
    shown: bool,
}

impl ReplayProgress {
    pub fn new(table: &str) -> Self {
        Self::showing_after(table, SHOW_AFTER)
    }

    /// A bar that appears once the replay has run for `delay`.
    pub fn showing_after(table: &str, delay: Duration) -> Self {
        let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::hidden());
        bar.set_style(
            ProgressStyle::with_template(
                "{spinner} replaying {prefix}: {msg} live files ({elapsed})",
            )
            .unwrap_or_else(|_| ProgressStyle::default_spinner()),
        );
        bar.set_prefix(table.to_string());
        Self {
            bar,
            started: Instant::now(),
            delay,
            shown: false,
        }
    }

    /// Called by the replay after each batch with the live files reconciled so far.
    pub fn files_so_far(&mut self, files: usize) {
        if !self.shown && self.started.elapsed() >= self.delay {
            self.bar.set_draw_target(ProgressDrawTarget::stderr());
            self.bar.enable_steady_tick(Duration::from_millis(120));
            self.shown = true;
        }
        self.bar.set_message(files.to_string());
    }

    /// Removes the bar, so the report that follows starts on a clean line.
    pub fn finish(self) {
        self.bar.finish_and_clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bar_waits_for_its_delay_and_counts_files() {
        let mut quick = ReplayProgress::showing_after("t", Duration::from_secs(3600));
        quick.files_so_far(10);
        assert!(
            !quick.shown,
            "a replay shorter than the delay never shows a bar"
        );
        assert_eq!(quick.bar.message(), "10");

        let mut long = ReplayProgress::showing_after("t", Duration::ZERO);
        long.files_so_far(1_000);
        long.files_so_far(2_000);
        assert!(long.shown, "past the delay the bar is handed to stderr");
        assert_eq!(long.bar.message(), "2000");
        long.finish();
    }
}
