//! Output modes. Each writer renders [`Record`]s with their frame [`Meta`]; none knows anything
//! about a particular protocol.

pub mod columns;
pub mod interval;
pub mod json;
pub mod parquet;
pub mod stats;
pub mod summary;
pub mod text_tree;

use std::fmt::Write as _;
use std::io;

use crate::proto::Meta;
use crate::tree::{Field, Pos, Record, Value};

use columns::{FieldsSpec, FieldsWriter};
use json::JsonWriter;
use summary::SummaryWriter;
use text_tree::TreeWriter;

/// The output formats of `dissect`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutputFormat {
    /// One line per message.
    Summary,
    /// Annotated field tree.
    Tree,
    /// NDJSON, one object per message.
    Json,
    /// The values of the -e fields, one line per message (like tshark -T fields).
    Fields,
    /// Hive-partitioned Parquet files under a directory (`-w`), not a stream: see
    /// [`parquet::ParquetSink`].
    Parquet,
}

/// The formats of the listings (`stats`, `protocols`, `diff`): text for people, JSON for tools.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ListFormat {
    Text,
    Json,
}

/// How records are rendered: the format and its options.
#[derive(Debug, Clone, Copy)]
pub struct Rendering {
    pub format: OutputFormat,
    pub color: bool,
    /// A hex dump of the payload (and of every extra data source) with each message: under the
    /// tree and the summary line, as `hex` and `sources` keys in JSON.
    pub hex: bool,
    /// How the tree shows each message (`--expand`, `--compact`).
    pub view: TreeView,
    /// With `--format fields`: the columns and options (made once per run, so every decoding
    /// thread's writer shares them).
    pub fields: Option<&'static FieldsSpec>,
}

impl PartialEq for Rendering {
    fn eq(&self, other: &Rendering) -> bool {
        (self.format, self.color, self.hex) == (other.format, other.color, other.hex)
            && self.view == other.view
            && match (self.fields, other.fields) {
                (Some(a), Some(b)) => std::ptr::eq(a, b),
                (a, b) => a.is_none() && b.is_none(),
            }
    }
}

impl Rendering {
    /// Plain text: no colour, no hex dump (tests, benches, in-memory rendering).
    pub fn plain(format: OutputFormat) -> Rendering {
        Rendering {
            format,
            color: false,
            hex: false,
            view: TreeView::FULL,
            fields: None,
        }
    }

    /// The writer for this rendering into `out`, of records of no named capture.
    pub fn writer<'w, W: io::Write + 'w>(self, out: W) -> Box<dyn RecordWriter + 'w> {
        self.writer_for(out, &CaptureName::default())
    }

    /// The writer for this rendering into `out`, of records of the capture `capture`.
    pub fn writer_for<'w, W: io::Write + 'w>(
        self,
        out: W,
        capture: &CaptureName,
    ) -> Box<dyn RecordWriter + 'w> {
        match self.format {
            OutputFormat::Json if capture.keyed => Box::new(
                JsonWriter::new(out)
                    .with_hex(self.hex)
                    .with_capture(&capture.name),
            ),
            OutputFormat::Summary => {
                Box::new(SummaryWriter::new(out, self.color).with_hex(self.hex))
            }
            OutputFormat::Tree => {
                Box::new(TreeWriter::new(out, self.color, self.hex).with_view(self.view))
            }
            OutputFormat::Json => Box::new(JsonWriter::new(out).with_hex(self.hex)),
            OutputFormat::Fields => {
                static NO_COLUMNS: FieldsSpec = FieldsSpec {
                    columns: Vec::new(),
                    header: false,
                    separator: String::new(),
                    quote: None,
                    occurrence: columns::Occurrence::All,
                    aggregator: String::new(),
                };
                let spec = self.fields.unwrap_or(&NO_COLUMNS);
                Box::new(FieldsWriter::new(out, spec).with_capture(&capture.name))
            }
            OutputFormat::Parquet => Box::new(NoStream),
        }
    }
}

/// The capture a writer's records come from.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CaptureName {
    /// As given or found (`-` for standard input): the `capture` column of `--format fields`.
    pub name: String,
    /// One of several captures written together: JSON records carry `name` as a first key,
    /// `capture` (docs/output.md, "Several captures").
    pub keyed: bool,
}

/// How the tree shows a message: which subtrees are expanded, and whether each line carries
/// its field name and position.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TreeView {
    /// `--expand`: only fields named by one of these prefixes (a protocol, a field, or a
    /// dotted prefix of fields) show their children; every other field with children is one
    /// line ending in `…`. Empty: everything expanded.
    pub expand: &'static [String],
    /// `--compact`: no `[name @position]` annotations.
    pub compact: bool,
}

impl TreeView {
    /// Every field expanded and annotated.
    pub const FULL: TreeView = TreeView {
        expand: &[],
        compact: false,
    };
}

/// Parquet is written to files by [`parquet::ParquetSink`], never to a stream.
struct NoStream;

impl RecordWriter for NoStream {
    fn record(&mut self, _: &Meta<'_>, _: &Record) -> io::Result<()> {
        Err(io::Error::other(
            "Parquet is written with -w DIR, not to a stream",
        ))
    }
}

/// A destination for records.
pub trait RecordWriter {
    fn record(&mut self, meta: &Meta<'_>, rec: &Record) -> io::Result<()>;
    /// Writes as if records had been written before (a separator before the first one), for
    /// output that is later joined with other writers' output.
    fn after_earlier_records(&mut self) {}
    fn finish(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Appends `bytes` quoted, with quotes and backslashes escaped, the characters
/// [`crate::text::is_unsafe`] names in their visible form, and bytes that are not UTF-8 as
/// `\xNN`.
pub fn quote_into(out: &mut String, bytes: &[u8]) {
    out.push('"');
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            match c {
                '"' => out.push_str("\\\""),
                '\\' => out.push_str("\\\\"),
                c => crate::text::push_escaped_char(out, c),
            }
        }
        for b in chunk.invalid() {
            let _ = write!(out, "\\x{b:02x}");
        }
    }
    out.push('"');
}

const HEX: &[u8; 16] = b"0123456789abcdef";

/// Lowercase hex of all of `bytes`.
pub fn hex_all_into(out: &mut String, bytes: &[u8]) {
    out.reserve(bytes.len() * 2);
    for &b in bytes {
        out.push(HEX[(b >> 4) as usize] as char);
        out.push(HEX[(b & 15) as usize] as char);
    }
}

/// Lowercase hex of `bytes`, cut after `max` bytes with a count of the rest.
pub fn hex_into(out: &mut String, bytes: &[u8], max: usize) {
    hex_all_into(out, &bytes[..bytes.len().min(max)]);
    if bytes.len() > max {
        let _ = write!(out, "… ({} bytes)", bytes.len());
    }
}

/// A value as humans read it in the tree and the summary: numbers plain (hex when the field
/// says so), text quoted and escaped, bytes in hex, enums as `NAME (n)`, with the unit.
pub fn display_value(out: &mut String, field: &Field) {
    let def = field.def;
    match &field.value {
        Value::None => return,
        Value::UInt(v) if def.hex => {
            let _ = write!(out, "0x{v:x}");
        }
        Value::UInt(v) => {
            let _ = write!(out, "{v}");
        }
        Value::Int(v) => {
            let _ = write!(out, "{v}");
        }
        Value::F32(v) => {
            let _ = write!(out, "{v}");
        }
        Value::F64(v) => {
            let _ = write!(out, "{v}");
        }
        Value::Bool(v) => {
            let _ = write!(out, "{v}");
        }
        Value::Str(s) => quote_into(out, s.as_bytes()),
        Value::Bytes(b) if def.holds_text() => quote_into(out, b),
        Value::Bytes(b) => {
            if b.is_empty() {
                out.push_str("(empty)");
            } else {
                hex_into(out, b, 48);
            }
        }
        Value::Enum(n, name) => {
            if name.is_empty() {
                let _ = write!(out, "{n}");
            } else if def.hex {
                let _ = write!(out, "{name} (0x{n:x})");
            } else {
                let _ = write!(out, "{name} ({n})");
            }
        }
    }
    if !def.unit.is_empty() {
        if !def.unit.starts_with(|c: char| c.is_alphanumeric()) {
            out.push_str(def.unit);
        } else {
            out.push(' ');
            out.push_str(def.unit);
        }
    }
}

/// A hex and ASCII dump of `data` under a `title` line, 16 bytes a row, indented two spaces.
pub fn hexdump_into(out: &mut String, title: &str, data: &[u8]) {
    let _ = writeln!(out, "  {title} ({} bytes):", data.len());
    for (row, chunk) in data.chunks(16).enumerate() {
        let _ = write!(out, "    {:04x}  ", row * 16);
        for i in 0..16 {
            match chunk.get(i) {
                Some(&b) => {
                    out.push(HEX[(b >> 4) as usize] as char);
                    out.push(HEX[(b & 15) as usize] as char);
                    out.push(' ');
                }
                None => out.push_str("   "),
            }
            if i == 7 {
                out.push(' ');
            }
        }
        out.push(' ');
        for &b in chunk {
            out.push(if b.is_ascii_graphic() || b == b' ' {
                b as char
            } else {
                '.'
            });
        }
        out.push('\n');
    }
}

/// The payload's dump, then one per extra data source (`s1: …`), as `--hex` shows them.
pub fn hexdumps_into(out: &mut String, payload: &[u8], rec: &Record) {
    hexdump_into(out, "payload", payload);
    for (i, s) in rec.sources.iter().enumerate() {
        let title = format!("s{}: {}", i + 1, s.name);
        hexdump_into(out, &title, &s.data);
    }
}

/// `@12+4` for bytes, `@12.3+5b` for bits (byte 12, bit 3, five bits), with `sN:` for a data
/// source other than the payload.
pub fn position_into(out: &mut String, pos: &Pos) {
    out.push('@');
    if pos.source != 0 {
        let _ = write!(out, "s{}:", pos.source);
    }
    if pos.bits {
        let _ = write!(out, "{}.{}+{}b", pos.offset / 8, pos.offset % 8, pos.len);
    } else {
        let _ = write!(out, "{}+{}", pos.offset, pos.len);
    }
}

#[cfg(test)]
mod tests;
