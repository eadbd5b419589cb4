//! One decoded message as `diff` compares it: record-level facts plus its fields flattened to
//! dotted names, made alike from a capture (through the JSON writer) and from saved NDJSON.

use serde_json::{Map, Value};

/// One message, flattened.
#[derive(Debug, Clone, PartialEq)]
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
    pub summary: String,
    /// `(dotted name, value)` in tree order; a repeated field's occurrences are `name[i]`.
    pub fields: Vec<(String, String)>,
}

impl Msg {
    /// Parses one NDJSON line as `dissect --format json` writes it.
    pub fn from_json_line(line: &str) -> Result<Msg, String> {
        let v: Value = serde_json::from_str(line).map_err(|e| format!("not JSON: {e}"))?;
        let obj = v.as_object().ok_or("a record must be a JSON object")?;
        Msg::from_object(obj)
    }

    fn from_object(obj: &Map<String, Value>) -> Result<Msg, String> {
        let text = |k: &str| obj.get(k).and_then(Value::as_str).unwrap_or("").to_string();
        let frame = obj
            .get("frame")
            .and_then(Value::as_u64)
            .ok_or("a record needs a numeric `frame`")?;
        let time = obj
            .get("time_epoch")
            .and_then(Value::as_f64)
            .or_else(|| obj.get("time").and_then(Value::as_str).and_then(epoch_of));
        let mut fields = Vec::new();
        if let Some(Value::Object(f)) = obj.get("fields") {
            flatten_members(f, None, &mut fields);
        }
        if let Some(Value::Array(notes)) = obj.get("notes") {
            flatten_notes(notes, &mut fields);
        }
        let mut msg = Msg {
            frame,
            time,
            src: text("src"),
            dst: text("dst"),
            protocol: text("protocol"),
            kind: text("type"),
            flow: obj.get("flow").and_then(Value::as_u64),
            to_server: obj
                .get("direction")
                .and_then(Value::as_str)
                .map(is_to_server),
            summary: text("summary"),
            fields,
        };
        msg.kind = if msg.kind.is_empty() {
            fallback_kind(&msg.fields)
        } else {
            format!("{}:{}", msg.protocol, msg.kind)
        };
        Ok(msg)
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

    const LINE: &str = r#"{"frame":2,"time":"2026-11-21T19:20:42.084642Z","src":"127.0.0.1:27960","dst":"127.0.0.1:55877","protocol":"quake3","summary":"infoResponse","fields":{"quake3":{"oob":{"marker":4294967295,"command":"infoResponse","info":{"pair":[{"key":"voip","value":"opus"},{"key":"clients","value":"2"}]}},"quake3.svc.snapshot.entity":[{"number":3}]},"flightgear":{"msg_id":{"value":7,"name":"POS_DATA"},"range_word":{"value":100,"range_nm":100}}},"notes":[{"severity":"error","message":"cut off","field":null}]}"#;

    #[test]
    fn fields_flatten_to_dotted_names_with_occurrences() {
        let m = Msg::from_json_line(LINE).unwrap();
        let get = |n: &str| {
            m.fields
                .iter()
                .find(|(k, _)| k == n)
                .map(|(_, v)| v.as_str())
        };
        assert_eq!(get("quake3.oob.marker"), Some("4294967295"));
        assert_eq!(get("quake3.oob.command"), Some("infoResponse"));
        assert_eq!(get("quake3.oob.info.pair[1].key"), Some("clients"));
        assert_eq!(get("quake3.oob.info.pair[1].value"), Some("2"));
        assert_eq!(get("quake3.svc.snapshot.entity[0].number"), Some("3"));
        assert_eq!(get("flightgear.msg_id"), Some("7 (POS_DATA)"));
        assert_eq!(get("flightgear.range_word.value"), Some("100"));
        assert_eq!(get("flightgear.range_word.range_nm"), Some("100"));
        assert_eq!(get("expert[0]"), Some("error: cut off"));
        // No `type` key: the first field's layer (keys come sorted).
        assert_eq!(m.kind, "flightgear.msg_id");
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
