//! The diff report: text for people, NDJSON for machines.

use std::io::{self, Write};

use super::{Difference, Tally, What};

fn frame_text(f: Option<u64>) -> String {
    f.map_or_else(|| "-".to_string(), |f| f.to_string())
}

fn direction(to_server: bool) -> &'static str {
    if to_server {
        "client → server"
    } else {
        "server → client"
    }
}

fn what_text(w: &What) -> String {
    let side = |v: &Option<String>| v.clone().unwrap_or_else(|| "(absent)".to_string());
    match w {
        What::Field(f) => format!("{}: {} → {}", f.name, side(&f.golden), side(&f.new)),
        What::Missing => "message missing in new".to_string(),
        What::Extra => "message extra in new".to_string(),
        What::Moved => "message moved".to_string(),
        What::Swapped { with } => format!("message swapped with golden frame {with}"),
        What::FlowOnlyGolden { messages } => format!("only in golden: {messages} messages"),
        What::FlowOnlyNew { messages } => format!("only in new: {messages} messages"),
    }
}

/// Text: the kept differences grouped by flow (flows in order of first difference), then the
/// counts per field.
pub fn write_text(mut out: impl Write, t: &Tally) -> io::Result<()> {
    let mut order: Vec<&Difference> = t.shown.iter().collect();
    let mut first_seen: Vec<&super::StreamKey> = Vec::new();
    for d in &t.shown {
        if !first_seen.contains(&&d.stream) {
            first_seen.push(&d.stream);
        }
    }
    order.sort_by_key(|d| first_seen.iter().position(|s| **s == d.stream));
    let mut current = None;
    for d in order {
        if current != Some(&d.stream) {
            writeln!(out, "flow {}", d.stream)?;
            current = Some(&d.stream);
        }
        writeln!(
            out,
            "  golden {:>6}  new {:>6}  {}  {}  {}",
            frame_text(d.golden_frame),
            frame_text(d.new_frame),
            direction(d.to_server),
            crate::text::escaped(&d.kind),
            crate::text::escaped(&what_text(&d.what))
        )?;
    }
    if t.differences > t.shown.len() as u64 {
        writeln!(
            out,
            "({} more differences not shown; --max raises the limit)",
            t.differences - t.shown.len() as u64
        )?;
    }
    summary_text(&mut out, t)
}

fn summary_text(out: &mut impl Write, t: &Tally) -> io::Result<()> {
    writeln!(
        out,
        "{} difference{} (golden {} messages, new {})",
        t.differences,
        if t.differences == 1 { "" } else { "s" },
        t.golden_messages,
        t.new_messages
    )?;
    let mut fields: Vec<(&String, &u64)> = t.by_field.iter().collect();
    fields.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    for (name, n) in fields {
        writeln!(out, "{n:>8}  {name}")?;
    }
    Ok(())
}

/// NDJSON: one object per kept difference, then one `{"summary": …}` object.
pub fn write_json(mut out: impl Write, t: &Tally) -> io::Result<()> {
    for d in &t.shown {
        serde_json::to_writer(&mut out, &difference_json(d)).map_err(io::Error::other)?;
        out.write_all(b"\n")?;
    }
    let summary = serde_json::json!({"summary": {
        "differences": t.differences,
        "golden_messages": t.golden_messages,
        "new_messages": t.new_messages,
        "by_field": t.by_field,
    }});
    serde_json::to_writer(&mut out, &summary).map_err(io::Error::other)?;
    out.write_all(b"\n")
}

fn difference_json(d: &Difference) -> serde_json::Value {
    let mut v = serde_json::json!({
        "flow": d.stream.to_string(),
        "protocol": d.stream.protocol,
        "direction": if d.to_server { "to_server" } else { "to_client" },
        "type": d.kind,
        "golden_frame": d.golden_frame,
        "new_frame": d.new_frame,
    });
    let extra = match &d.what {
        What::Field(f) => serde_json::json!({
            "difference": "field", "field": f.name, "golden": f.golden, "new": f.new,
        }),
        What::Missing => serde_json::json!({"difference": "missing"}),
        What::Extra => serde_json::json!({"difference": "extra"}),
        What::Moved => serde_json::json!({"difference": "moved"}),
        What::Swapped { with } => {
            serde_json::json!({"difference": "swapped", "with_golden_frame": with})
        }
        What::FlowOnlyGolden { messages } => {
            serde_json::json!({"difference": "flow_only_golden", "messages": messages})
        }
        What::FlowOnlyNew { messages } => {
            serde_json::json!({"difference": "flow_only_new", "messages": messages})
        }
    };
    if let (Some(obj), serde_json::Value::Object(more)) = (v.as_object_mut(), extra) {
        obj.extend(more);
    }
    v
}
