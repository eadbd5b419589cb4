//! NDJSON: one object per message with exactly the keys `frame`, `time`, `src`, `dst`,
//! `protocol`, `summary`, `fields`, `notes`.
//!
//! `fields` nests by dotted name: `quake3.snapshot.server_time` is `fields.quake3.snapshot.server_time`.
//! A field declared repeated is always an array; a field that carries a value and has children
//! is an object whose `value` key holds the value. Numbers are numbers; enums are
//! `{"value": n, "name": "NAME"}` (`name` null when the number is unknown); binary data is a hex
//! string; text that is not UTF-8 is `{"bytes": "<base64>"}`, as in ripgrep's JSON, so nothing is
//! lost. Written by hand rather than through serde so that no intermediate value is built per
//! field; the tests parse every line back with serde_json.

use std::fmt::Write as _;
use std::io::{self, Write};

use super::RecordWriter;
use crate::engine::Meta;
use crate::tree::{Field, FieldDef, Kind, Record, Value};

pub struct JsonWriter<W: Write> {
    out: W,
    buf: String,
}

impl<W: Write> JsonWriter<W> {
    pub fn new(out: W) -> Self {
        JsonWriter {
            out,
            buf: String::with_capacity(8192),
        }
    }
}

/// Bytes that need escaping in a JSON string: control characters, `"` and `\\`.
static NEEDS_ESCAPE: [bool; 256] = {
    let mut t = [false; 256];
    let mut i = 0;
    while i < 0x20 {
        t[i] = true;
        i += 1;
    }
    t[b'"' as usize] = true;
    t[b'\\' as usize] = true;
    t
};

/// A JSON string literal.
pub fn string_into(out: &mut String, s: &str) {
    out.push('"');
    let bytes = s.as_bytes();
    // Most strings need no escaping: copy them whole.
    if !bytes.iter().any(|&b| NEEDS_ESCAPE[b as usize]) {
        out.push_str(s);
        out.push('"');
        return;
    }
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        if !NEEDS_ESCAPE[b as usize] {
            continue;
        }
        let esc: Option<&str> = match b {
            b'"' => Some("\\\""),
            b'\\' => Some("\\\\"),
            b'\n' => Some("\\n"),
            b'\r' => Some("\\r"),
            b'\t' => Some("\\t"),
            _ => None,
        };
        out.push_str(&s[start..i]);
        match esc {
            Some(e) => out.push_str(e),
            None => {
                let _ = write!(out, "\\u{:04x}", b);
            }
        }
        start = i + 1;
    }
    out.push_str(&s[start..]);
    out.push('"');
}

const B64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Standard base64 with padding (RFC 4648 §4).
pub fn base64_into(out: &mut String, data: &[u8]) {
    for chunk in data.chunks(3) {
        let n = chunk.len();
        let v = (chunk[0] as u32) << 16
            | (*chunk.get(1).unwrap_or(&0) as u32) << 8
            | *chunk.get(2).unwrap_or(&0) as u32;
        for k in 0..4 {
            if k <= n {
                out.push(B64[(v >> (18 - 6 * k) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
}

fn float_into(out: &mut String, v: f64, display: impl std::fmt::Display) {
    if v.is_finite() {
        let _ = write!(out, "{display}");
    } else if v.is_nan() {
        out.push_str("\"NaN\"");
    } else if v > 0.0 {
        out.push_str("\"Infinity\"");
    } else {
        out.push_str("\"-Infinity\"");
    }
}

fn scalar_into(out: &mut String, f: &Field) {
    match &f.value {
        Value::None => out.push_str("null"),
        Value::UInt(v) => out.push_str(itoa::Buffer::new().format(*v)),
        Value::Int(v) => out.push_str(itoa::Buffer::new().format(*v)),
        Value::F32(v) => float_into(out, *v as f64, v),
        Value::F64(v) => float_into(out, *v, v),
        Value::Bool(v) => out.push_str(if *v { "true" } else { "false" }),
        Value::Str(s) => string_into(out, s),
        Value::Bytes(b) if f.def.kind == Kind::Str => {
            out.push_str("{\"bytes\":\"");
            base64_into(out, b);
            out.push_str("\"}");
        }
        Value::Bytes(b) => {
            out.push('"');
            super::hex_all_into(out, b);
            out.push('"');
        }
        Value::Enum(n, name) => {
            out.push_str("{\"value\":");
            out.push_str(itoa::Buffer::new().format(*n));
            out.push_str(",\"name\":");
            if name.is_empty() {
                out.push_str("null");
            } else {
                string_into(out, name);
            }
            out.push('}');
        }
    }
}

fn field_into(out: &mut String, f: &Field) {
    if f.children.is_empty() {
        if matches!(f.value, Value::None) && f.def.kind == Kind::Group {
            out.push_str("{}");
        } else {
            scalar_into(out, f);
        }
        return;
    }
    out.push('{');
    let mut first = true;
    match &f.value {
        Value::None => {}
        Value::Enum(n, name) => {
            let _ = write!(out, "\"value\":{n},\"name\":");
            if name.is_empty() {
                out.push_str("null");
            } else {
                string_into(out, name);
            }
            first = false;
        }
        _ => {
            out.push_str("\"value\":");
            scalar_into(out, f);
            first = false;
        }
    }
    members_into(out, Some(f.def), &f.children, first);
    out.push('}');
}

/// Writes the members of an object for `children`, grouping same-named siblings into arrays so
/// that no key is ever written twice.
fn members_into(out: &mut String, parent: Option<&FieldDef>, children: &[Field], mut first: bool) {
    let mut done_small: u64 = 0;
    let mut done_big: Vec<bool> = Vec::new();
    if children.len() > 64 {
        done_big = vec![false; children.len()];
    }
    let is_done =
        |i: usize, small: u64, big: &Vec<bool>| if i < 64 { small >> i & 1 == 1 } else { big[i] };
    for i in 0..children.len() {
        if is_done(i, done_small, &done_big) {
            continue;
        }
        let def = children[i].def;
        let same =
            |j: usize| std::ptr::eq(children[j].def, def) || children[j].def.name == def.name;
        let many = def.repeated
            || children[i + 1..]
                .iter()
                .enumerate()
                .any(|(k, _)| same(i + 1 + k));
        if !first {
            out.push(',');
        }
        first = false;
        string_into(out, def.key_under(parent));
        out.push(':');
        if !many {
            field_into(out, &children[i]);
            continue;
        }
        out.push('[');
        let mut first_item = true;
        for j in i..children.len() {
            if !is_done(j, done_small, &done_big) && same(j) {
                if j < 64 {
                    done_small |= 1 << j;
                } else {
                    done_big[j] = true;
                }
                if !first_item {
                    out.push(',');
                }
                first_item = false;
                field_into(out, &children[j]);
            }
        }
        out.push(']');
    }
}

/// One record as a JSON object (no trailing newline).
pub fn record_into(out: &mut String, meta: &Meta<'_>, rec: &Record) {
    let _ = write!(
        out,
        "{{\"frame\":{},\"time\":\"{}\",\"src\":\"{}\",\"dst\":\"{}\",\"protocol\":",
        meta.frame,
        meta.time.rfc3339(),
        meta.src,
        meta.dst
    );
    string_into(out, rec.protocol);
    out.push_str(",\"summary\":");
    string_into(out, &rec.summary);
    out.push_str(",\"fields\":{");
    members_into(out, None, &rec.fields, true);
    out.push_str("},\"notes\":[");
    for (i, n) in rec.notes.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str("{\"severity\":\"");
        out.push_str(n.severity.as_str());
        out.push_str("\",\"message\":");
        string_into(out, &n.message);
        out.push_str(",\"field\":");
        match n.field {
            Some(f) => string_into(out, f),
            None => out.push_str("null"),
        }
        out.push('}');
    }
    out.push_str("]}");
}

impl<W: Write> RecordWriter for JsonWriter<W> {
    fn record(&mut self, meta: &Meta<'_>, rec: &Record) -> io::Result<()> {
        self.buf.clear();
        record_into(&mut self.buf, meta, rec);
        self.buf.push('\n');
        self.out.write_all(self.buf.as_bytes())
    }

    fn finish(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}
