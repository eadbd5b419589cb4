//! NDJSON: one object per message with exactly the keys `frame`, `time`, `time_epoch`,
//! `time_relative`, `src`, `dst`, `flow`, `direction`, `protocol`, `type`, `length`, `summary`,
//! `fields`, `notes` (and a first key `capture` when several captures are written at once).
//!
//! `fields` nests the field tree, each field keyed by its name's last segment:
//! `quake3.svc.snapshot.server_time` is `fields.quake3.svc.snapshot.server_time`. A field declared
//! repeated is always an array; a group, or a valued field declared to nest, is always an object
//! (its own value under `value`), and a float always has a fraction, so every path has one JSON
//! type (docs/output.md, "One schema"). Numbers are numbers; enums are
//! `{"value": n, "name": "NAME"}` (`name` null when the number is unknown); binary data is a hex
//! string; text that is not UTF-8 is `{"bytes": "<base64>"}`, as in ripgrep's JSON, so nothing is
//! lost. Written by hand rather than through serde so that no intermediate value is built per
//! field; the tests parse every line back with serde_json.

use std::fmt::Write as _;
use std::io::{self, Write};

use super::RecordWriter;
use crate::capture::Timestamp;
use crate::proto::Direction;
use crate::proto::Meta;
use crate::text::{push_int, push_uint};
use crate::tree::{Field, Record, Value};

pub struct JsonWriter<W: Write> {
    out: W,
    buf: String,
    hex: bool,
    /// `"capture":"NAME",`, the first key of every record, when several captures are written.
    capture_key: String,
}

impl<W: Write> JsonWriter<W> {
    pub fn new(out: W) -> Self {
        JsonWriter {
            out,
            buf: String::with_capacity(8192),
            hex: false,
            capture_key: String::new(),
        }
    }

    /// Every record starts with a `capture` key holding `name` (several captures in one output).
    pub fn with_capture(mut self, name: &str) -> Self {
        self.capture_key.clear();
        self.capture_key.push_str("\"capture\":");
        string_into(&mut self.capture_key, name);
        self.capture_key.push(',');
        self
    }

    /// With `hex`, every record also has `hex` (the payload) and `sources` (each extra data
    /// source's `name` and `hex`), so that every record still has the same keys.
    pub fn with_hex(mut self, hex: bool) -> Self {
        self.hex = hex;
        self
    }
}

/// Whether a byte needs an escape inside a JSON string.
#[inline]
fn needs_escape(b: u8) -> bool {
    b < 0x20 || b == b'"' || b == b'\\'
}

/// Whether any byte needs an escape; eight bytes per step (exact bit tricks: a byte of `v` is
/// below `n` when `(v - n·0x01…) & !v & 0x80…` has its high bit; zero bytes of `v ^ c·0x01…`
/// are the bytes equal to `c`).
fn any_escape(bytes: &[u8]) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let below = |v: u64, n: u64| v.wrapping_sub(ONES * n) & !v & HIGH != 0;
    let mut chunks = bytes.chunks_exact(8);
    for c in &mut chunks {
        let mut a = [0u8; 8];
        a.copy_from_slice(c);
        let v = u64::from_le_bytes(a);
        if below(v, 0x20)
            || below(v ^ (ONES * b'"' as u64), 1)
            || below(v ^ (ONES * b'\\' as u64), 1)
        {
            return true;
        }
    }
    chunks.remainder().iter().any(|&b| needs_escape(b))
}

/// A JSON string literal.
pub fn string_into(out: &mut String, s: &str) {
    let bytes = s.as_bytes();
    // Most strings (keys, names, summaries) need no escape: one scan, one copy.
    if !any_escape(bytes) {
        out.reserve(s.len() + 2);
        out.push('"');
        out.push_str(s);
        out.push('"');
        return;
    }
    out.push('"');
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let esc: Option<&str> = match b {
            b'"' => Some("\\\""),
            b'\\' => Some("\\\\"),
            b'\n' => Some("\\n"),
            b'\r' => Some("\\r"),
            b'\t' => Some("\\t"),
            0..=0x1f => None,
            _ => continue,
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

/// A float field's number: always with a fraction or exponent (`1.0`, not `1`), so that JSON
/// readers that type by the text (DuckDB, pandas) see a float in every record.
fn float_into(out: &mut String, v: f64, display: impl std::fmt::Display) {
    // Whole numbers below 2^23 (exact in f32 and f64, with neighbours closer than 1) are written
    // by `{}` as their integer digits; -0 keeps the formatter ("-0").
    if v == v.trunc() && v.abs() < 8_388_608.0 && !(v == 0.0 && v.is_sign_negative()) {
        push_int(out, v as i64);
        out.push_str(".0");
    } else if v.is_finite() {
        let start = out.len();
        let _ = write!(out, "{display}");
        // Rust's `{}` never writes an exponent; a whole number has no '.' either.
        if !out.as_bytes()[start..].contains(&b'.') {
            out.push_str(".0");
        }
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
        Value::UInt(v) => push_uint(out, *v),
        Value::Int(v) => push_int(out, *v),
        Value::F32(v) => float_into(out, *v as f64, v),
        Value::F64(v) => float_into(out, *v, v),
        Value::Bool(v) => out.push_str(if *v { "true" } else { "false" }),
        Value::Str(s) => string_into(out, s),
        Value::Bytes(b) if f.def.holds_text() => {
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
            push_int(out, *n);
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
    if f.def.map {
        map_into(out, f);
        return;
    }
    // A group, or a valued field declared to nest, is an object in every occurrence (children
    // or not), so each path has one JSON type.
    if f.children.is_empty() && !f.def.is_object() {
        scalar_into(out, f);
        return;
    }
    out.push('{');
    let mut first = true;
    match &f.value {
        Value::None => {}
        Value::Enum(n, name) => {
            out.push_str("\"value\":");
            push_int(out, *n);
            out.push_str(",\"name\":");
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
    members_into(out, &f.children, first);
    out.push('}');
}

/// A group of key/value pairs ([`crate::tree::FieldDef::map`]) as one object keyed by each
/// key's name (an enum) or text, in order; a key without its value (a value of the same field
/// as the key cannot follow it) is written with `null`.
fn map_into(out: &mut String, f: &Field) {
    out.push('{');
    let mut rest = f.children.as_slice();
    let mut first = true;
    let mut scratch = String::new();
    while let [key, tail @ ..] = rest {
        if !first {
            out.push(',');
        }
        first = false;
        match &key.value {
            Value::Enum(_, name) if !name.is_empty() => string_into(out, name),
            Value::Str(s) => string_into(out, s),
            _ => {
                scratch.clear();
                super::display_value(&mut scratch, key);
                string_into(out, &scratch);
            }
        }
        out.push(':');
        match tail {
            [value, after @ ..] if !std::ptr::eq(value.def, key.def) => {
                field_into(out, value);
                rest = after;
            }
            _ => {
                out.push_str("null");
                rest = tail;
            }
        }
    }
    out.push('}');
}

/// Length and last two bytes of a field name (equal names have equal signatures).
#[inline]
fn name_key(name: &str) -> u32 {
    let b = name.as_bytes();
    let last = |k: usize| b.len().checked_sub(k).map_or(0, |i| b[i] as u32);
    (b.len() as u32) << 16 | last(1) << 8 | last(2)
}

/// `"key":` for a field name: names are dotted identifiers (a test checks every registered one),
/// so they never need escaping.
fn key_into(out: &mut String, key: &str) {
    debug_assert!(!any_escape(key.as_bytes()), "{key}");
    out.reserve(key.len() + 3);
    out.push('"');
    out.push_str(key);
    out.push_str("\":");
}

/// Writes the members of an object for `children`, grouping same-named siblings into arrays so
/// that no key is ever written twice.
fn members_into(out: &mut String, children: &[Field], mut first: bool) {
    let n = children.len();
    let mut done_small: u64 = 0;
    let mut done_big: Vec<bool> = Vec::new();
    // A compact signature of every child's name (length and last two bytes): names that differ
    // in it cannot be equal, so the duplicate search scans a small array and compares names
    // only on a signature match.
    let mut keys_small = [0u32; 64];
    let mut keys_big: Vec<u32> = Vec::new();
    if n > 64 {
        done_big = vec![false; n];
        keys_big = children.iter().map(|c| name_key(c.def.name)).collect();
    } else {
        for (k, c) in keys_small.iter_mut().zip(children) {
            *k = name_key(c.def.name);
        }
    }
    let keys: &[u32] = if n > 64 { &keys_big } else { &keys_small[..n] };
    // Usually every sibling has its own name: one sort of the signatures shows it, and then no
    // sibling needs a search for its namesakes.
    if (8..=64).contains(&n) {
        let mut sorted = keys_small;
        let sorted = &mut sorted[..n];
        sorted.sort_unstable();
        if sorted.windows(2).all(|w| w[0] != w[1]) {
            for c in children {
                if !first {
                    out.push(',');
                }
                first = false;
                key_into(out, c.def.key());
                if c.def.repeated {
                    out.push('[');
                    field_into(out, c);
                    out.push(']');
                } else {
                    field_into(out, c);
                }
            }
            return;
        }
    }
    let is_done =
        |i: usize, small: u64, big: &Vec<bool>| if i < 64 { small >> i & 1 == 1 } else { big[i] };
    for i in 0..n {
        if is_done(i, done_small, &done_big) {
            continue;
        }
        let def = children[i].def;
        let key = keys[i];
        let same = |j: usize| {
            let other = children[j].def;
            keys[j] == key && (std::ptr::eq(other, def) || other.name == def.name)
        };
        let many = def.repeated || (i + 1..n).any(same);
        if !first {
            out.push(',');
        }
        first = false;
        key_into(out, def.key());
        if !many {
            field_into(out, &children[i]);
            continue;
        }
        out.push('[');
        let mut first_item = true;
        for j in i..n {
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
    out.push('{');
    keys_into(out, meta, rec);
    out.push('}');
}

/// The keys of a record's object, from `frame` to `notes`.
fn keys_into(out: &mut String, meta: &Meta<'_>, rec: &Record) {
    // The addresses come preformatted once per flow (`meta.src_text` is `meta.src` shown).
    out.push_str("\"frame\":");
    push_uint(out, meta.frame);
    out.push_str(",\"time\":\"");
    meta.time.rfc3339_into(out);
    out.push_str("\",\"time_epoch\":");
    meta.time.relative_into(out, &Timestamp::default());
    out.push_str(",\"time_relative\":");
    meta.time.relative_into(out, &meta.base);
    out.push_str(",\"src\":\"");
    out.push_str(meta.src_text);
    out.push_str("\",\"dst\":\"");
    out.push_str(meta.dst_text);
    out.push_str("\",\"flow\":");
    push_uint(out, meta.flow);
    out.push_str(",\"direction\":");
    out.push_str(match meta.direction {
        Some(Direction::ToServer) => "\"to_server\"",
        Some(Direction::ToClient) => "\"to_client\"",
        None => "null",
    });
    out.push_str(",\"protocol\":");
    string_into(out, rec.protocol);
    out.push_str(",\"type\":");
    string_into(out, &rec.msg_type);
    out.push_str(",\"length\":");
    push_uint(out, meta.payload.len() as u64);
    out.push_str(",\"summary\":");
    string_into(out, &rec.summary);
    out.push_str(",\"fields\":");
    fields_into(out, rec);
    out.push_str(",\"notes\":");
    notes_into(out, rec);
}

/// The record's `fields` object, as [`record_into`] writes it.
pub fn fields_into(out: &mut String, rec: &Record) {
    out.push('{');
    members_into(out, &rec.fields, true);
    out.push('}');
}

/// The record's `notes` array, as [`record_into`] writes it.
pub fn notes_into(out: &mut String, rec: &Record) {
    out.push('[');
    for (i, n) in rec.notes.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str("{\"severity\":\"");
        out.push_str(n.severity().as_str());
        out.push_str("\",\"message\":");
        string_into(out, &n.message);
        out.push_str(",\"field\":");
        match n.field {
            Some(f) => string_into(out, f),
            None => out.push_str("null"),
        }
        out.push('}');
    }
    out.push(']');
}

/// `,"hex":…,"sources":[…]`: the payload and every extra data source in lowercase hex.
fn hex_keys_into(out: &mut String, payload: &[u8], rec: &Record) {
    out.push_str(",\"hex\":\"");
    super::hex_all_into(out, payload);
    out.push_str("\",\"sources\":[");
    for (i, s) in rec.sources.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str("{\"name\":");
        string_into(out, &s.name);
        out.push_str(",\"hex\":\"");
        super::hex_all_into(out, &s.data);
        out.push_str("\"}");
    }
    out.push(']');
}

impl<W: Write> RecordWriter for JsonWriter<W> {
    fn record(&mut self, meta: &Meta<'_>, rec: &Record) -> io::Result<()> {
        self.buf.clear();
        self.buf.push('{');
        self.buf.push_str(&self.capture_key);
        keys_into(&mut self.buf, meta, rec);
        if self.hex {
            hex_keys_into(&mut self.buf, meta.payload, rec);
        }
        self.buf.push_str("}\n");
        self.out.write_all(self.buf.as_bytes())
    }

    fn finish(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_match_the_formatter_with_a_fraction() {
        // The formatter's digits, with ".0" when it wrote a whole number.
        let expected = |text: String| {
            if text.contains('.') {
                text
            } else {
                text + ".0"
            }
        };
        let check32 = |v: f32| {
            let mut s = String::new();
            float_into(&mut s, v as f64, v);
            assert_eq!(s, expected(format!("{v}")), "f32 {v:?}");
        };
        let check64 = |v: f64| {
            let mut s = String::new();
            float_into(&mut s, v, v);
            assert_eq!(s, expected(format!("{v}")), "f64 {v:?}");
        };
        for i in (-70_000..70_000).chain((-9_000_000..9_000_000).step_by(97)) {
            check32(i as f32);
            check64(i as f64);
            check32(i as f32 + 0.5);
            check64(i as f64 + 0.25);
        }
        for v in [
            0.0f32,
            -0.0,
            8_388_607.0,
            8_388_608.0,
            16_777_216.0,
            1e10,
            -1e20,
            0.1,
            -3.75,
        ] {
            check32(v);
            check64(v as f64);
        }
        let mut s = String::new();
        for v in [1.0f64, -0.0, 1e20, 0.5] {
            float_into(&mut s, v, v);
            s.push(' ');
        }
        assert_eq!(s, "1.0 -0.0 100000000000000000000.0 0.5 ");
    }

    #[test]
    fn escape_scan_matches_the_byte_test() {
        let mut x: u32 = 0x1234_5678;
        for len in 0..40 {
            for _ in 0..2000 {
                let bytes: Vec<u8> = (0..len)
                    .map(|_| {
                        x ^= x << 13;
                        x ^= x >> 17;
                        x ^= x << 5;
                        // Mostly plain ASCII, sometimes a byte near the escape boundaries.
                        match x % 8 {
                            0 => [0x1f, 0x20, b'"', b'\\', 0x21, 0x5b, 0x5d, 0x80]
                                [(x >> 8) as usize % 8],
                            _ => b'a' + (x >> 8) as u8 % 26,
                        }
                    })
                    .collect();
                assert_eq!(
                    any_escape(&bytes),
                    bytes.iter().any(|&b| needs_escape(b)),
                    "{bytes:?}"
                );
            }
        }
    }
}
