//! Progress on stderr for long reads from a file, drawn by `indicatif`: bytes and packets read,
//! their rates, and the time left. Shown only when stderr is a terminal and the input is a file
//! of at least [`MIN_TOTAL`] bytes (a pipe has no known end, and a short run needs no bar);
//! `--quiet` turns it off by withholding the file's length.

use std::io::{self, IsTerminal};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// Files shorter than this are read in well under a second: no bar.
const MIN_TOTAL: u64 = 32 * 1024 * 1024;

/// The bar is updated once per this many frames, so that the read loop pays for it almost
/// nothing (indicatif redraws at most [`REDRAWS_PER_SECOND`] times a second anyway).
const FRAMES_PER_UPDATE: u64 = 4096;

const REDRAWS_PER_SECOND: u8 = 8;

/// A progress bar on stderr, cleared when the run ends.
pub(crate) struct Progress {
    bar: ProgressBar,
}

impl Progress {
    /// A bar for a file of `total` bytes, or `None` when none is to be shown: unknown length
    /// (a pipe, or `--quiet`), a short file, or stderr not a terminal.
    pub(crate) fn maybe(total: Option<u64>) -> Option<Progress> {
        let total = total.filter(|&t| t >= MIN_TOTAL)?;
        if !io::stderr().is_terminal() {
            return None;
        }
        let style = ProgressStyle::with_template(
            "{wide_bar} {bytes}/{total_bytes} {bytes_per_sec}, {msg}, {eta} left",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar());
        let bar = ProgressBar::with_draw_target(
            Some(total),
            ProgressDrawTarget::stderr_with_hz(REDRAWS_PER_SECOND),
        )
        .with_style(style);
        Some(Progress { bar })
    }

    /// Reports `frames` read up to byte `offset` of the file; cheap except once every
    /// [`FRAMES_PER_UPDATE`] frames.
    pub(crate) fn tick(&self, frames: u64, offset: u64) {
        if !frames.is_multiple_of(FRAMES_PER_UPDATE) {
            return;
        }
        self.bar.set_position(offset);
        let seconds = self.bar.elapsed().as_secs_f64();
        let rate = if seconds > 0.0 {
            (frames as f64 / seconds) as u64
        } else {
            0
        };
        self.bar.set_message(format!("{frames} packets {rate}/s"));
    }

    /// Removes the bar, leaving stderr as it was before the run.
    pub(crate) fn clear(self) {
        self.bar.finish_and_clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_bar_without_a_length_or_for_a_short_file() {
        assert!(Progress::maybe(None).is_none());
        assert!(Progress::maybe(Some(MIN_TOTAL - 1)).is_none());
    }

    #[test]
    fn a_bar_updates_only_every_few_thousand_frames() {
        let p = Progress {
            bar: ProgressBar::with_draw_target(Some(1000), ProgressDrawTarget::hidden()),
        };
        p.tick(1, 10);
        assert_eq!(p.bar.position(), 0);
        p.tick(FRAMES_PER_UPDATE, 500);
        assert_eq!(p.bar.position(), 500);
        assert!(p.bar.message().starts_with("4096 packets "));
        p.clear();
    }
}
