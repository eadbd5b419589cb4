//! One line per message: frame, relative time, endpoints, protocol, info, and a marker for
//! messages with notes.

use std::io::{self, Write};

use owo_colors::{OwoColorize, Style};

use super::RecordWriter;
use crate::proto::Meta;
use crate::tree::{Record, Severity};

pub struct SummaryWriter<W: Write> {
    out: W,
    color: bool,
    line: String,
    time: String,
    hex: bool,
}

/// Spaces that right-align a text of `len` characters in `width`.
fn pad_left(out: &mut String, len: usize, width: usize) {
    for _ in len..width {
        out.push(' ');
    }
}

impl<W: Write> SummaryWriter<W> {
    pub fn new(out: W, color: bool) -> Self {
        SummaryWriter {
            out,
            color,
            line: String::with_capacity(256),
            time: String::with_capacity(24),
            hex: false,
        }
    }

    /// With `hex`, each line is followed by the dumps `--hex` gives in the tree, and a blank
    /// line.
    pub fn with_hex(mut self, hex: bool) -> Self {
        self.hex = hex;
        self
    }
}

/// The note marker appended to a summary line: the worst note's text, and how many more.
pub fn marker(rec: &Record) -> Option<(Severity, String)> {
    let worst = rec.worst()?;
    let first = rec.notes.iter().find(|n| n.severity() == worst)?;
    let more = rec.notes.len() - 1;
    let mut s = format!("[{}: ", worst.as_str());
    crate::text::push_escaped(&mut s, &first.message);
    if more > 0 {
        s.push_str(&format!(" (+{more} more)"));
    }
    s.push(']');
    Some((worst, s))
}

pub fn severity_style(s: Severity) -> Style {
    match s {
        Severity::Error => Style::new().red().bold(),
        Severity::Warning => Style::new().yellow(),
        Severity::Note => Style::new().blue(),
    }
}

impl<W: Write> RecordWriter for SummaryWriter<W> {
    fn record(&mut self, meta: &Meta<'_>, rec: &Record) -> io::Result<()> {
        use std::fmt::Write as _;
        let l = &mut self.line;
        l.clear();
        // `{:>6} {:>11} ` by hand: the formatting machinery was a visible share of this mode.
        let mut frame = itoa::Buffer::new();
        let frame = frame.format(meta.frame);
        pad_left(l, frame.len(), 6);
        l.push_str(frame);
        l.push(' ');
        let time = &mut self.time;
        time.clear();
        meta.time.relative_into(time, &meta.base);
        pad_left(l, time.len(), 11);
        l.push_str(time);
        l.push(' ');
        l.push_str(meta.src_text);
        l.push_str(" → ");
        l.push_str(meta.dst_text);
        l.push(' ');
        if self.color {
            let _ = write!(l, "{}", rec.protocol.style(Style::new().cyan().bold()));
        } else {
            l.push_str(rec.protocol);
        }
        l.push(' ');
        crate::text::push_escaped(l, &rec.summary);
        if let Some((sev, m)) = marker(rec) {
            l.push(' ');
            if self.color {
                let _ = write!(l, "{}", m.style(severity_style(sev)));
            } else {
                l.push_str(&m);
            }
        }
        l.push('\n');
        if self.hex {
            super::hexdumps_into(l, meta.payload, rec);
            l.push('\n');
        }
        self.out.write_all(l.as_bytes())
    }

    fn finish(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}
