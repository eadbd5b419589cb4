//! The annotated field tree: one line per field with its label, value, unit, meaning, dotted name
//! and position; notes after the fields; optionally a hex dump of every data source.

use std::fmt::Write as _;
use std::io::{self, Write};

use owo_colors::{OwoColorize, Style};

use super::summary::severity_style;
use super::{RecordWriter, display_value, position_into};
use crate::engine::Meta;
use crate::tree::{Field, Record};

pub struct TreeWriter<W: Write> {
    out: W,
    color: bool,
    hex: bool,
    buf: String,
    first: bool,
}

impl<W: Write> TreeWriter<W> {
    pub fn new(out: W, color: bool, hex: bool) -> Self {
        TreeWriter {
            out,
            color,
            hex,
            buf: String::with_capacity(4096),
            first: true,
        }
    }

    fn paint(&mut self, text: &str, style: Style) {
        if self.color {
            let _ = write!(self.buf, "{}", text.style(style));
        } else {
            self.buf.push_str(text);
        }
    }

    fn field(&mut self, f: &Field, depth: usize) {
        for _ in 0..depth {
            self.buf.push_str("  ");
        }
        self.paint(f.def.label, Style::new());
        let mut v = String::new();
        display_value(&mut v, f);
        if !v.is_empty() {
            self.buf.push_str(": ");
            self.paint(&v, Style::new().bold());
        }
        if let Some(m) = &f.meaning {
            self.buf.push_str(" (");
            self.paint(m, Style::new().green());
            self.buf.push(')');
        }
        let mut ann = String::with_capacity(48);
        ann.push_str("  [");
        ann.push_str(f.def.name);
        ann.push(' ');
        position_into(&mut ann, &f.pos);
        ann.push(']');
        self.paint(&ann, Style::new().dimmed());
        self.buf.push('\n');
        for c in &f.children {
            self.field(c, depth + 1);
        }
    }

    fn hexdump(&mut self, title: &str, data: &[u8]) {
        let _ = writeln!(self.buf, "  {title} ({} bytes):", data.len());
        for (row, chunk) in data.chunks(16).enumerate() {
            let _ = write!(self.buf, "    {:04x}  ", row * 16);
            for i in 0..16 {
                match chunk.get(i) {
                    Some(b) => {
                        let _ = write!(self.buf, "{b:02x} ");
                    }
                    None => self.buf.push_str("   "),
                }
                if i == 7 {
                    self.buf.push(' ');
                }
            }
            self.buf.push(' ');
            for &b in chunk {
                self.buf.push(if b.is_ascii_graphic() || b == b' ' {
                    b as char
                } else {
                    '.'
                });
            }
            self.buf.push('\n');
        }
    }
}

impl<W: Write> RecordWriter for TreeWriter<W> {
    fn after_earlier_records(&mut self) {
        self.first = false;
    }

    fn record(&mut self, meta: &Meta<'_>, rec: &Record) -> io::Result<()> {
        self.buf.clear();
        if !self.first {
            self.buf.push('\n');
        }
        self.first = false;
        let head = format!(
            "Frame {}: {} s, {} → {}, flow {}, {} bytes",
            meta.frame,
            meta.time.relative(&meta.base),
            meta.src,
            meta.dst,
            meta.flow,
            meta.payload.len()
        );
        self.paint(&head, Style::new().bold());
        self.buf.push('\n');
        self.paint(rec.protocol, Style::new().cyan().bold());
        self.buf.push_str(": ");
        self.buf.push_str(&rec.summary);
        self.buf.push('\n');
        for f in &rec.fields {
            self.field(f, 1);
        }
        for n in &rec.notes {
            self.buf.push_str("  ");
            let tag = format!("[{}]", n.severity().as_str());
            self.paint(&tag, severity_style(n.severity()));
            self.buf.push(' ');
            self.buf.push_str(&n.message);
            let mut loc = String::new();
            if let Some(field) = n.field {
                loc.push_str(field);
            }
            if let Some(p) = &n.pos {
                if !loc.is_empty() {
                    loc.push(' ');
                }
                position_into(&mut loc, p);
            }
            if !loc.is_empty() {
                self.buf.push_str("  ");
                self.paint(&format!("[{loc}]"), Style::new().dimmed());
            }
            self.buf.push('\n');
        }
        if self.hex {
            self.hexdump("payload", meta.payload);
            for (i, s) in rec.sources.iter().enumerate() {
                let title = format!("s{}: {}", i + 1, s.name);
                self.hexdump(&title, &s.data);
            }
        }
        self.out.write_all(self.buf.as_bytes())
    }

    fn finish(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}
