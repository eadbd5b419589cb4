//! Writing events: aligned text for people, NDJSON for `jq`, CSV for spreadsheets. The columns
//! are the same in all three (docs/events.md).

use std::io::{self, Write};

use crate::toolkit::facts::{Event, Label};

/// How events are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventFormat {
    Text,
    Json,
    Csv,
    /// Files under a directory (`output::parquet::events`).
    Parquet,
}

/// The CSV header, also the JSON keys.
pub const COLUMNS: [&str; 13] = [
    "frame",
    "time",
    "rel",
    "flow",
    "protocol",
    "kind",
    "who",
    "who_raw",
    "target",
    "target_raw",
    "text",
    "text_raw",
    "details",
];

/// The CSV header line, with a first column `capture` when several captures are written.
pub fn csv_header(keyed: bool) -> String {
    let capture = if keyed { "capture," } else { "" };
    format!("{capture}{}\n", COLUMNS.join(","))
}

pub struct EventWriter<W: Write> {
    out: W,
    format: EventFormat,
    line: String,
    /// The capture's name, when several are written: before each text line (`NAME:`), a first
    /// CSV column, a JSON key.
    capture: Option<String>,
}

impl<W: Write> EventWriter<W> {
    pub fn new(mut out: W, format: EventFormat) -> io::Result<EventWriter<W>> {
        if format == EventFormat::Csv {
            out.write_all(csv_header(false).as_bytes())?;
        }
        Ok(EventWriter {
            out,
            format,
            line: String::new(),
            capture: None,
        })
    }

    /// A writer of the events of the capture `name`, one of several written together (the CSV
    /// header, [`csv_header`], is written once before them all).
    pub fn of_capture(out: W, format: EventFormat, name: &str) -> EventWriter<W> {
        EventWriter {
            out,
            format,
            line: String::new(),
            capture: Some(name.to_string()),
        }
    }

    pub fn event(&mut self, e: &Event) -> io::Result<()> {
        self.line.clear();
        let capture = self.capture.as_deref();
        match self.format {
            EventFormat::Text => {
                if let Some(c) = capture {
                    crate::text::push_escaped(&mut self.line, c);
                    self.line.push(':');
                }
                text_line(&mut self.line, e);
            }
            // Parquet goes to files (`output::parquet::events`), never through a writer.
            EventFormat::Json | EventFormat::Parquet => json_line(&mut self.line, e, capture),
            EventFormat::Csv => {
                if let Some(c) = capture {
                    csv_field(&mut self.line, c);
                    self.line.push(',');
                }
                csv_line(&mut self.line, e);
            }
        }
        self.line.push('\n');
        self.out.write_all(self.line.as_bytes())
    }

    pub fn finish(mut self) -> io::Result<()> {
        self.out.flush()
    }
}

fn rel(e: &Event) -> String {
    e.time.relative(&e.base)
}

fn details_text(e: &Event) -> String {
    let parts: Vec<String> = e
        .details
        .iter()
        .map(|(k, v)| format!("{k}={}", crate::text::escaped(v)))
        .collect();
    parts.join(" ")
}

/// `  frame  rel  flow N  protocol  kind  who → target: text  [k=v …]`
fn text_line(s: &mut String, e: &Event) {
    use std::fmt::Write as _;
    let _ = write!(
        s,
        "{:>6} {:>12} flow {:<3} {} {:<11}",
        e.frame,
        rel(e),
        e.flow,
        e.protocol,
        e.kind
    );
    if let Some(w) = &e.who {
        s.push(' ');
        crate::text::push_escaped(s, &w.clean);
    }
    if let Some(t) = &e.target {
        s.push_str(" → ");
        crate::text::push_escaped(s, &t.clean);
    }
    if let Some(t) = &e.text {
        s.push_str(if e.who.is_some() || e.target.is_some() {
            ": "
        } else {
            " "
        });
        crate::text::push_escaped(s, &t.clean);
    }
    if !e.details.is_empty() {
        let _ = write!(s, "  [{}]", details_text(e));
    }
}

fn json_line(s: &mut String, e: &Event, capture: Option<&str>) {
    let label = |l: &Option<Label>, raw: bool| match l {
        Some(l) => serde_json::Value::String(if raw { l.raw.clone() } else { l.clean.clone() }),
        None => serde_json::Value::Null,
    };
    let details: serde_json::Map<String, serde_json::Value> = e
        .details
        .iter()
        .map(|(k, v)| (k.to_string(), serde_json::Value::String(v.clone())))
        .collect();
    let rel_secs = (e.time.as_nanos() - e.base.as_nanos()) as f64 / 1e9;
    let mut v = serde_json::json!({
        "frame": e.frame,
        "time": e.time.rfc3339(),
        "rel": rel_secs,
        "flow": e.flow,
        "protocol": e.protocol,
        "kind": e.kind,
        "who": label(&e.who, false),
        "who_raw": label(&e.who, true),
        "target": label(&e.target, false),
        "target_raw": label(&e.target, true),
        "text": label(&e.text, false),
        "text_raw": label(&e.text, true),
        "details": details,
    });
    if let (Some(c), Some(map)) = (capture, v.as_object_mut()) {
        map.insert("capture".into(), c.into());
    }
    s.push_str(&v.to_string());
}

/// A CSV field (RFC 4180): its unsafe characters escaped (a line break in a chat line becomes
/// `\n`, so one event is one line), quoted when it holds a comma or a quote.
fn csv_field(s: &mut String, v: &str) {
    let v = crate::text::escaped(v);
    if v.contains([',', '"']) {
        s.push('"');
        s.push_str(&v.replace('"', "\"\""));
        s.push('"');
    } else {
        s.push_str(&v);
    }
}

fn csv_line(s: &mut String, e: &Event) {
    let opt = |l: &Option<Label>, raw: bool| {
        l.as_ref()
            .map(|l| if raw { l.raw.clone() } else { l.clean.clone() })
            .unwrap_or_default()
    };
    let cols = [
        e.frame.to_string(),
        e.time.rfc3339(),
        rel(e),
        e.flow.to_string(),
        e.protocol.to_string(),
        e.kind.to_string(),
        opt(&e.who, false),
        opt(&e.who, true),
        opt(&e.target, false),
        opt(&e.target, true),
        opt(&e.text, false),
        opt(&e.text, true),
        details_text(e),
    ];
    for (i, c) in cols.iter().enumerate() {
        if i > 0 {
            s.push(',');
        }
        csv_field(s, c);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_quoting() {
        let mut s = String::new();
        csv_field(&mut s, "a,\"b\"");
        assert_eq!(s, "\"a,\"\"b\"\"\"");
        s.clear();
        csv_field(&mut s, "plain");
        assert_eq!(s, "plain");
        s.clear();
        csv_field(&mut s, "a\nb\x1b[2J,\u{202e}");
        assert_eq!(s, "\"a\\nb\\x1b[2J,\\u{202e}\"");
    }
}
