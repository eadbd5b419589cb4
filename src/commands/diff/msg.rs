//! One decoded message as `diff` compares it: record-level facts, the record's `fields` and
//! `notes` as the JSON text `dissect` writes (equal texts are equal messages, the common case,
//! found without parsing), and on demand its fields flattened to dotted names. Made alike from
//! a capture (through the JSON writer) and from saved NDJSON.

use std::cell::OnceCell;

use serde_json::{Map, Value};

use crate::capture::Timestamp;
use crate::output::json::{fields_into, notes_into};
use crate::proto::Direction;
use crate::proto::Meta;
use crate::tree::Record;

/// One message.
#[derive(Debug, Clone)]
pub struct Msg {
    pub frame: u64,
    /// Seconds since the Unix epoch.
    pub time: Option<f64>,
    pub src: String,
    pub dst: String,
    pub protocol: String,
    /// The protocol and message type (`quake3:snapshot`, `srb2:PT_SERVERTICS`); alignment
    /// matches on it.
    pub kind: String,
    /// The flow number in its own input, when the input says it.
    pub flow: Option<u64>,
    /// Whether the client sent it, when the input says it.
    pub to_server: Option<bool>,
    /// The `fields` object and the `notes` array as written, separated by a newline.
    pub body: String,
    /// `(dotted name, value)` in key order; a repeated field's occurrences are `name[i]`.
    fields: OnceCell<Vec<(String, String)>>,
}

impl PartialEq for Msg {
    fn eq(&self, other: &Msg) -> bool {
        self.frame == other.frame && self.kind == other.kind && self.body == other.body
    }
}

impl Msg {
    /// Reads one NDJSON line as `dissect --format json` writes it. Only the top level is
    /// parsed here; the fields wait until a comparison needs them.
    pub fn from_json_line(line: &str) -> Result<Msg, String> {
        let top = top_level(line).ok_or("a record must be a JSON object")?;
        let raw = |k: &str| top.iter().find(|(key, _)| *key == k).map(|&(_, v)| v);
        let text = |k: &str| raw(k).and_then(unquote).unwrap_or_default();
        let frame = raw("frame")
            .and_then(|v| v.parse().ok())
            .ok_or("a record needs a numeric `frame`")?;
        let time = raw("time_epoch")
            .and_then(|v| v.parse().ok())
            .or_else(|| raw("time").and_then(unquote).as_deref().and_then(epoch_of));
        let protocol = text("protocol");
        let kind = match raw("type").and_then(unquote) {
            Some(t) => format!("{protocol}:{t}"),
            None => String::new(),
        };
        let body = format!(
            "{}\n{}",
            raw("fields").unwrap_or("{}"),
            raw("notes").unwrap_or("[]")
        );
        let mut msg = Msg {
            frame,
            time,
            src: text("src"),
            dst: text("dst"),
            protocol,
            kind,
            flow: raw("flow").and_then(|v| v.parse().ok()),
            to_server: raw("direction").and_then(unquote).map(|d| is_to_server(&d)),
            body,
            fields: OnceCell::new(),
        };
        if msg.kind.is_empty() {
            msg.kind = fallback_kind(msg.fields());
        }
        Ok(msg)
    }

    /// A decoded record, read as [`Msg::from_json_line`] reads its JSON line (the body is the
    /// same text, written by the same functions).
    pub fn from_record(meta: &Meta<'_>, rec: &Record) -> Msg {
        let mut body = String::with_capacity(1024);
        fields_into(&mut body, rec);
        body.push('\n');
        notes_into(&mut body, rec);
        // Through the text `time_epoch` is written as, so that both readings agree exactly.
        let mut epoch = String::with_capacity(24);
        meta.time.relative_into(&mut epoch, &Timestamp::default());
        Msg {
            frame: meta.frame,
            time: epoch.parse().ok(),
            src: meta.src_text.to_string(),
            dst: meta.dst_text.to_string(),
            protocol: rec.protocol.to_string(),
            kind: format!("{}:{}", rec.protocol, rec.msg_type),
            flow: Some(meta.flow),
            to_server: meta.direction.map(|d| d == Direction::ToServer),
            body,
            fields: OnceCell::new(),
        }
    }

    /// The fields (and notes, as `expert[i]`), flattened on first use.
    pub fn fields(&self) -> &[(String, String)] {
        self.fields.get_or_init(|| flatten_body(&self.body))
    }

    /// A message with the given flattened fields (its body stands for them).
    #[cfg(test)]
    pub(crate) fn with_fields(fields: &[(&str, &str)]) -> Msg {
        let fields: Vec<(String, String)> = fields
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        Msg {
            frame: 1,
            time: Some(10.0),
            src: "a".into(),
            dst: "b".into(),
            protocol: "p".into(),
            kind: "k".into(),
            flow: None,
            to_server: None,
            body: format!("{fields:?}"),
            fields: OnceCell::from(fields),
        }
    }

    /// Approximate heap bytes, for the bound on what is held.
    pub fn bytes(&self) -> usize {
        let flat: usize = self
            .fields
            .get()
            .map_or(0, |f| f.iter().map(|(k, v)| k.len() + v.len() + 48).sum());
        flat + self.body.len() + self.src.len() + self.dst.len() + self.kind.len() + 160
    }
}

fn flatten_body(body: &str) -> Vec<(String, String)> {
    let (fields, notes) = body.split_once('\n').unwrap_or((body, "[]"));
    let mut out = Vec::new();
    if let Ok(Value::Object(f)) = serde_json::from_str::<Value>(fields) {
        flatten_members(&f, None, &mut out);
    }
    if let Ok(Value::Array(n)) = serde_json::from_str::<Value>(notes) {
        flatten_notes(&n, &mut out);
    }
    out
}

/// A JSON string's text (`None` for anything else).
fn unquote(raw: &str) -> Option<String> {
    let inner = raw.strip_prefix('"')?.strip_suffix('"')?;
    if inner.contains('\\') {
        serde_json::from_str(raw).ok()
    } else {
        Some(inner.to_string())
    }
}

/// The keys of a JSON object and the raw text of each value, without parsing the values.
fn top_level(line: &str) -> Option<Vec<(&str, &str)>> {
    let b = line.as_bytes();
    let mut i = skip_ws(b, 0);
    if b.get(i) != Some(&b'{') {
        return None;
    }
    i += 1;
    let mut out = Vec::with_capacity(16);
    loop {
        i = skip_ws(b, i);
        match b.get(i)? {
            b'}' => return Some(out),
            b',' => i = skip_ws(b, i + 1),
            _ => {}
        }
        let key_end = string_end(b, i)?;
        let key = line.get(i + 1..key_end - 1)?;
        i = skip_ws(b, key_end);
        if b.get(i) != Some(&b':') {
            return None;
        }
        let start = skip_ws(b, i + 1);
        let end = value_end(b, start)?;
        out.push((key, line.get(start..end)?));
        i = end;
    }
}

fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while b.get(i).is_some_and(u8::is_ascii_whitespace) {
        i += 1;
    }
    i
}

/// The index after the closing quote of the string that starts at `i`.
fn string_end(b: &[u8], i: usize) -> Option<usize> {
    if b.get(i) != Some(&b'"') {
        return None;
    }
    let mut j = i + 1;
    loop {
        match b.get(j)? {
            b'\\' => j += 2,
            b'"' => return Some(j + 1),
            _ => j += 1,
        }
    }
}

/// The index after the value that starts at `i`: a string, an object or array (nesting and
/// strings inside followed), or a scalar up to the next `,` `}` `]`.
fn value_end(b: &[u8], i: usize) -> Option<usize> {
    match b.get(i)? {
        b'"' => string_end(b, i),
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut j = i;
            loop {
                match b.get(j)? {
                    b'"' => {
                        j = string_end(b, j)?;
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(j + 1);
                        }
                    }
                    _ => {}
                }
                j += 1;
            }
        }
        _ => {
            let mut j = i;
            while b.get(j).is_some_and(|c| !matches!(c, b',' | b'}' | b']')) {
                j += 1;
            }
            Some(j)
        }
    }
}

fn is_to_server(direction: &str) -> bool {
    direction.starts_with("client") || direction == "to_server"
}

/// Without a `type` key (NDJSON from before it existed): the first two name segments of the
/// first field in key order, which name a layer of the message (`quake3.oob`).
fn fallback_kind(fields: &[(String, String)]) -> String {
    let Some((name, _)) = fields.first() else {
        return String::new();
    };
    name.split('.').take(2).collect::<Vec<_>>().join(".")
}

/// The dotted name of a JSON key under `parent`: a key is the name relative to its parent
/// (`snapshot` under `quake3`), or a whole dotted name where the field does not extend its
/// parent's name.
fn child_name(parent: Option<&str>, key: &str) -> String {
    match parent {
        Some(p) if !key.contains('.') => format!("{p}.{key}"),
        _ => key.to_string(),
    }
}

fn flatten_members(
    obj: &Map<String, Value>,
    parent: Option<&str>,
    out: &mut Vec<(String, String)>,
) {
    for (key, value) in obj {
        let name = child_name(parent, key);
        match value {
            Value::Array(items) => {
                for (i, item) in items.iter().enumerate() {
                    flatten_value(&format!("{name}[{i}]"), &name, item, out);
                }
            }
            _ => flatten_value(&name, &name, value, out),
        }
    }
}

/// `path` is where the value is shown (with occurrence indices), `name` its dotted field name,
/// under which its children's keys are relative.
fn flatten_value(path: &str, name: &str, value: &Value, out: &mut Vec<(String, String)>) {
    let Value::Object(obj) = value else {
        out.push((path.to_string(), scalar_text(value)));
        return;
    };
    if let Some(text) = leaf_object_text(obj) {
        out.push((path.to_string(), text));
        return;
    }
    // A group's own value is under `value`, which a child field may also be called (an info
    // pair's `key` and `value`): the key is kept as a name segment either way.
    let mut children = Vec::new();
    flatten_members(obj, Some(name), &mut children);
    // Children of an occurrence `a[2]` show under it: `a[2].b`, not `a.b`.
    for (child_path, v) in children {
        let shown = match child_path.strip_prefix(name) {
            Some(tail) if path != name => format!("{path}{tail}"),
            _ => child_path,
        };
        out.push((shown, v));
    }
}

/// Objects that stand for one value: an enum `{value, name}`, or non-UTF-8 text `{bytes}`.
fn leaf_object_text(obj: &Map<String, Value>) -> Option<String> {
    match obj.len() {
        1 => obj
            .get("bytes")
            .map(|b| format!("bytes {}", scalar_text(b))),
        2 if obj.contains_key("value") && obj.contains_key("name") => obj
            .get("value")
            .map(|v| scalar_or_leaf_text(v, obj.get("name"))),
        _ => None,
    }
}

fn scalar_or_leaf_text(value: &Value, name: Option<&Value>) -> String {
    match name.and_then(Value::as_str) {
        Some(n) => format!("{} ({n})", scalar_text(value)),
        None => scalar_text(value),
    }
}

/// Numbers and booleans as JSON writes them, strings without quotes.
fn scalar_text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Object(o) => match leaf_object_text(o) {
            Some(t) => t,
            None => value.to_string(),
        },
        _ => value.to_string(),
    }
}

/// Notes take part as fields `expert[i]`, so a note that appears or goes is a difference.
fn flatten_notes(notes: &[Value], out: &mut Vec<(String, String)>) {
    for (i, n) in notes.iter().enumerate() {
        let sev = n.get("severity").and_then(Value::as_str).unwrap_or("");
        let msg = n.get("message").and_then(Value::as_str).unwrap_or("");
        out.push((format!("expert[{i}]"), format!("{sev}: {msg}")));
    }
}

/// Seconds since the epoch of an RFC 3339 UTC time as `dissect` writes it
/// (`2026-11-21T19:20:42.084547Z`).
pub fn epoch_of(t: &str) -> Option<f64> {
    let b = t.as_bytes();
    if b.len() < 20 || b[4] != b'-' || b[7] != b'-' || b[10] != b'T' || !t.ends_with('Z') {
        return None;
    }
    let num = |r: std::ops::Range<usize>| t.get(r)?.parse::<i64>().ok();
    let (y, mo, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (h, mi) = (num(11..13)?, num(14..16)?);
    let secs: f64 = t.get(17..t.len() - 1)?.parse().ok()?;
    let days = days_from_civil(y, mo, d);
    Some((days * 86_400 + h * 3_600 + mi * 60) as f64 + secs)
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's `days_from_civil`).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;

    const LINE: &str = r#"{"frame":2,"time":"2026-11-21T19:20:42.084642Z","src":"127.0.0.1:27960","dst":"127.0.0.1:55877","protocol":"game","summary":"infoResponse","fields":{"game":{"oob":{"marker":4294967295,"command":"infoResponse","info":{"pair":[{"key":"voip","value":"opus"},{"key":"clients","value":"2"}]}},"game.svc.snapshot.entity":[{"number":3}]},"air":{"msg_id":{"value":7,"name":"POS_DATA"},"range_word":{"value":100,"range_nm":100}}},"notes":[{"severity":"error","message":"cut off","field":null}]}"#;

    #[test]
    fn fields_flatten_to_dotted_names_with_occurrences() {
        let m = Msg::from_json_line(LINE).unwrap();
        let get = |n: &str| {
            m.fields()
                .iter()
                .find(|(k, _)| k == n)
                .map(|(_, v)| v.as_str())
        };
        assert_eq!(get("game.oob.marker"), Some("4294967295"));
        assert_eq!(get("game.oob.command"), Some("infoResponse"));
        assert_eq!(get("game.oob.info.pair[1].key"), Some("clients"));
        assert_eq!(get("game.oob.info.pair[1].value"), Some("2"));
        assert_eq!(get("game.svc.snapshot.entity[0].number"), Some("3"));
        assert_eq!(get("air.msg_id"), Some("7 (POS_DATA)"));
        assert_eq!(get("air.range_word.value"), Some("100"));
        assert_eq!(get("air.range_word.range_nm"), Some("100"));
        assert_eq!(get("expert[0]"), Some("error: cut off"));
        // No `type` key: the first field's layer (keys come sorted).
        assert_eq!(m.kind, "air.msg_id");
        assert_eq!(m.frame, 2);
    }

    #[test]
    fn rfc3339_times_become_epoch_seconds() {
        assert_eq!(epoch_of("1970-01-01T00:00:01.5Z"), Some(1.5));
        assert_eq!(epoch_of("2000-03-01T00:00:00Z"), Some(951_868_800.0));
        let t = epoch_of("2026-11-21T19:20:42.084642Z").unwrap();
        assert!((t - 1_795_288_842.084_642).abs() < 1e-6);
        assert_eq!(epoch_of("yesterday"), None);
    }
}
