//! Decoding a capture for tests: the records with their frame data ([`each_record`]), the values
//! of one field in frame order ([`field_values`], like `tshark -T fields -e NAME`), and the
//! example records of a capture rendered as a field tree ([`examples`], the reviewable golden
//! files `tests/golden/<capture>.examples`).
//!
//! Paths are relative to the repository root, where `cargo test` runs the root crate's tests.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::net::SocketAddr;
use std::path::Path;

use clap::Parser;
use gamedissect::cli::{Cli, Command, config_from};
use gamedissect::engine::{Config, Engine};
use gamedissect::output::RecordWriter;
use gamedissect::output::text_tree::TreeWriter;
use gamedissect::proto::Meta;
use gamedissect::run::{Outcome, run_capture};
use gamedissect::tree::{Field, Record, Value};

/// Where the golden files live, and the per-capture options (`<capture>.args`).
pub const GOLDEN_DIR: &str = "tests/golden";

/// The configuration a capture is decoded with: the defaults, plus the options of
/// `tests/golden/<capture stem>.args` (one command-line argument per line) when that file exists.
pub fn config_for(capture: &Path) -> Config {
    let stem = capture
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let args_file = Path::new(GOLDEN_DIR).join(format!("{stem}.args"));
    let mut argv = vec!["gamedissect".to_string(), "dissect".to_string()];
    if let Ok(text) = std::fs::read_to_string(&args_file) {
        argv.extend(
            text.lines()
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .map(String::from),
        );
    }
    argv.push(capture.to_string_lossy().into_owned());
    let cli = Cli::try_parse_from(&argv).unwrap_or_else(|e| panic!("{}: {e}", args_file.display()));
    let Command::Dissect(a) = cli.command else {
        unreachable!("the argument list starts with `dissect`")
    };
    config_from(&a.decode, &gamedissect::protocols::all())
        .unwrap_or_else(|e| panic!("{}: {}", args_file.display(), e.0))
}

/// Decodes `bytes` (with field trees) and calls `f` with every record in output order. Returns
/// the input error that ended the capture, if any, as text.
pub fn each_record(
    bytes: &[u8],
    config: Config,
    mut f: impl FnMut(&Meta<'_>, &Record),
) -> Option<String> {
    let config = Config {
        detail: true,
        ..config
    };
    let mut engine = Engine::new(gamedissect::protocols::all(), config);
    let outcome = run_capture(bytes, &mut engine, None, &mut |_| {}, &mut |m, r| {
        f(m, r);
        Ok(())
    });
    match outcome {
        Outcome::InputError(e) => Some(e.to_string()),
        _ => None,
    }
}

fn read_capture(capture: &str) -> Vec<u8> {
    std::fs::read(capture).unwrap_or_else(|e| panic!("{capture}: {e}"))
}

/// `gamedissect events` on a capture file, as JSON records (`kinds` empty: every kind).
pub fn events_json(capture: &str, kinds: &[&str]) -> Vec<serde_json::Value> {
    let bytes = std::fs::read(capture).unwrap_or_else(|e| panic!("{capture}: {e}"));
    gamedissect::commands::events::run::events_of(
        &bytes,
        config_for(Path::new(capture)),
        kinds,
        gamedissect::commands::events::EventFormat::Json,
    )
    .lines()
    .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{capture}: {e}: {l}")))
    .collect()
}

/// A field's value as `tshark -T fields` would print it: numbers and booleans plain (hex when
/// the field is shown in hex), text unquoted, bytes in hex, an enum as `NAME (n)` (or `n`),
/// without the unit. `None` for a field without a value (a group).
pub fn value_text(field: &Field) -> Option<String> {
    let hex = field.def.hex;
    let mut s = String::new();
    match &field.value {
        Value::None => return None,
        Value::UInt(v) if hex => write!(s, "0x{v:x}").ok()?,
        Value::UInt(v) => write!(s, "{v}").ok()?,
        Value::Int(v) => write!(s, "{v}").ok()?,
        Value::F32(v) => write!(s, "{v}").ok()?,
        Value::F64(v) => write!(s, "{v}").ok()?,
        Value::Bool(v) => write!(s, "{v}").ok()?,
        Value::Str(v) => s.push_str(v),
        Value::Bytes(b) => b.iter().try_for_each(|x| write!(s, "{x:02x}")).ok()?,
        Value::Enum(n, "") => write!(s, "{n}").ok()?,
        Value::Enum(n, name) if hex => write!(s, "{name} (0x{n:x})").ok()?,
        Value::Enum(n, name) => write!(s, "{name} ({n})").ok()?,
    }
    Some(s)
}

fn collect_values(fields: &[Field], name: &str, frame: u64, out: &mut Vec<(u64, String)>) {
    for f in fields {
        if f.def.name == name
            && let Some(v) = value_text(f)
        {
            out.push((frame, v));
        }
        collect_values(&f.children, name, frame, out);
    }
}

/// Every value of the field `name` (e.g. `flightgear.range_word.range_nm`) in the capture at
/// path `capture`, in frame order, each with its frame number; a record holding the field
/// several times gives several pairs. Decoded with [`config_for`] the capture.
pub fn field_values(capture: &str, name: &str) -> Vec<(u64, String)> {
    let mut out = Vec::new();
    let err = each_record(
        &read_capture(capture),
        config_for(Path::new(capture)),
        |m, r| collect_values(&r.fields, name, m.frame, &mut out),
    );
    assert!(err.is_none(), "{capture}: {err:?}");
    out
}

/// The values of `name` in one frame of `capture` (see [`field_values`]).
pub fn field_values_in(capture: &str, name: &str, frame: u64) -> Vec<String> {
    field_values(capture, name)
        .into_iter()
        .filter(|(f, _)| *f == frame)
        .map(|(_, v)| v)
        .collect()
}

/// A note message with every run of digits replaced by `#`, so that notes differing only in
/// numbers (offsets, lengths, ids) count as one kind.
fn note_kind(message: &str) -> String {
    let mut out = String::with_capacity(message.len());
    for c in message.chars() {
        if !c.is_ascii_digit() {
            out.push(c);
        } else if !out.ends_with('#') {
            out.push('#');
        }
    }
    out
}

/// Chooses the example records of a capture, in frame order. See [`examples`].
#[derive(Default)]
struct Chooser {
    /// The sender of each flow's first datagram, which defines `forward`.
    first_sender: BTreeMap<u64, SocketAddr>,
    shapes: BTreeSet<(String, String, &'static str)>,
    notes: BTreeSet<(String, String, String)>,
}

impl Chooser {
    /// The record's direction: `forward` when it goes the way of its flow's first datagram.
    fn direction(&mut self, meta: &Meta<'_>) -> &'static str {
        let first = *self.first_sender.entry(meta.flow).or_insert(meta.src);
        if meta.src == first {
            "forward"
        } else {
            "reverse"
        }
    }

    /// Why the record is an example (empty when it is not one).
    fn reasons(&mut self, meta: &Meta<'_>, rec: &Record) -> Vec<String> {
        let direction = self.direction(meta);
        let mut why = Vec::new();
        let shape = (
            rec.protocol.to_string(),
            rec.msg_type.to_string(),
            direction,
        );
        if self.shapes.insert(shape) {
            why.push(format!(
                "first {} {:?} {direction}",
                rec.protocol, rec.msg_type
            ));
        }
        for n in &rec.notes {
            let kind = note_kind(&n.message);
            let key = (
                rec.protocol.to_string(),
                n.severity().as_str().to_string(),
                kind,
            );
            if self.notes.insert(key.clone()) {
                why.push(format!("first {} {} {:?}", key.0, key.1, key.2));
            }
        }
        why
    }
}

/// The example records of a capture, rendered as `dissect --format tree` renders them, each
/// after a `# example N (frame F): reasons` line. A record is an example when it is the first,
/// in frame order, of its (protocol, message type, direction) or the first of its protocol to
/// carry a note of some kind. The direction is `forward` when the datagram goes the way of its
/// flow's first datagram, `reverse` otherwise; the kind of a note is its severity and its message
/// with every run of digits as `#`. An input error that ended the capture closes the text.
pub fn examples(bytes: &[u8], config: Config) -> String {
    examples_and_counts(bytes, config).0
}

/// [`examples`], and what the same decode counts: one line per (protocol, message type,
/// direction) with its number of records, `records PROTOCOL "TYPE" DIRECTION N`, then one per
/// (protocol, severity, note name) with its number of notes, `notes PROTOCOL SEVERITY NAME N`,
/// each kind sorted.
pub fn examples_and_counts(bytes: &[u8], config: Config) -> (String, String) {
    let mut chooser = Chooser::default();
    let mut out = String::new();
    let mut n = 0;
    let mut records = BTreeMap::<(String, String, &'static str), usize>::new();
    let mut notes = BTreeMap::<(String, &'static str, &'static str), usize>::new();
    let err = each_record(bytes, config, |meta, rec| {
        let direction = chooser.direction(meta);
        let shape = (
            rec.protocol.to_string(),
            rec.msg_type.to_string(),
            direction,
        );
        *records.entry(shape).or_default() += 1;
        for note in &rec.notes {
            let kind = (
                rec.protocol.to_string(),
                note.severity().as_str(),
                note.name(),
            );
            *notes.entry(kind).or_default() += 1;
        }
        let why = chooser.reasons(meta, rec);
        if why.is_empty() {
            return;
        }
        n += 1;
        let mut tree = Vec::new();
        let mut w = TreeWriter::new(&mut tree, false, false);
        let _ = w.record(meta, rec);
        let _ = w.finish();
        drop(w);
        if n > 1 {
            out.push('\n');
        }
        let _ = writeln!(
            out,
            "# example {n} (frame {}): {}",
            meta.frame,
            why.join("; ")
        );
        out.push_str(&String::from_utf8_lossy(&tree));
    });
    if let Some(e) = err {
        let _ = writeln!(out, "\ninput error: {e}");
    }
    let mut counts = String::new();
    for ((protocol, msg_type, direction), n) in &records {
        let _ = writeln!(counts, "records {protocol} {msg_type:?} {direction} {n}");
    }
    for ((protocol, severity, name), n) in &notes {
        let _ = writeln!(counts, "notes {protocol} {severity} {name} {n}");
    }
    (out, counts)
}

/// Every capture shipped in `captures/` (pcap and pcapng), sorted by name.
pub fn shipped_captures() -> Vec<std::path::PathBuf> {
    let mut v: Vec<std::path::PathBuf> = std::fs::read_dir("captures")
        .expect("captures/ exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            matches!(
                p.extension().and_then(|e| e.to_str()),
                Some("pcap" | "pcapng")
            )
        })
        .collect();
    v.sort();
    v
}

#[cfg(test)]
mod tests {
    use super::note_kind;

    #[test]
    fn note_kinds_ignore_numbers_only() {
        assert_eq!(note_kind("12 bytes at 340"), "# bytes at #");
        assert_eq!(note_kind("unknown id 9999"), note_kind("unknown id 7"));
        assert_ne!(note_kind("unknown id 7"), note_kind("unknown type 7"));
    }
}
