//! One line per message: frame, relative time, endpoints, protocol, info, and a marker for
//! messages with notes.

use std::io::{self, Write};

use owo_colors::{OwoColorize, Style};

use super::RecordWriter;
use crate::engine::Meta;
use crate::tree::{Record, Severity};

pub struct SummaryWriter<W: Write> {
    out: W,
    color: bool,
    line: String,
}

impl<W: Write> SummaryWriter<W> {
    pub fn new(out: W, color: bool) -> Self {
        SummaryWriter {
            out,
            color,
            line: String::with_capacity(256),
        }
    }
}

/// The note marker appended to a summary line: the worst note's text, and how many more.
pub fn marker(rec: &Record) -> Option<(Severity, String)> {
    let worst = rec.worst()?;
    let first = rec.notes.iter().find(|n| n.severity == worst)?;
    let more = rec.notes.len() - 1;
    let mut s = format!("[{}: {}", worst.as_str(), first.message);
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
        let _ = write!(l, "{:>6} ", meta.frame);
        let start = l.len();
        meta.time.relative_into(l, &meta.base);
        let width = l.len() - start;
        if width < 11 {
            l.insert_str(start, &"           "[..11 - width]);
        }
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
        l.push_str(&rec.summary);
        if let Some((sev, m)) = marker(rec) {
            l.push(' ');
            if self.color {
                let _ = write!(l, "{}", m.style(severity_style(sev)));
            } else {
                l.push_str(&m);
            }
        }
        l.push('\n');
        self.out.write_all(l.as_bytes())
    }

    fn finish(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}
