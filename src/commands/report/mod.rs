//! `gamedissect report`: one self-contained HTML page about a capture (docs/report.md): the
//! capture at a glance, an I/O graph, the flows, the expert notes, the events and, per game,
//! tracks, player paths, snapshot flow and pings.
//!
//! One decoding pass, on one thread, with `stats`' tallies. Field trees (events, tracks, pings)
//! cost several times the decoding itself, so on a long capture they are built for a bounded
//! share of the datagrams (`tree_wanted`); the page says how many. Every table and chart is
//! bounded, so the page's size does not grow with the capture.

mod bins;
mod chart;
mod games;
mod html;
mod markup;

use std::process::ExitCode;

use super::{finish_outcome, open_decode};
use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};
use std::io::{self, Write};

use crate::capture::Timestamp;
use crate::commands::Decode;
use crate::commands::events::Extractor;
use crate::engine::{Config, Engine, Stats};
use crate::proto::Meta;
use crate::protocols;
use crate::run::{Outcome, run_capture};
use crate::toolkit::facts::Event;
use crate::tree::{Record, Severity};
use bins::{Bins, Merge};

/// Frames from the start whose datagrams all get field trees.
const TREES_FROM_START: u64 = 10_000;
/// Past them, a flow's first datagrams and every n-th get trees.
const TREES_FLOW_START: u64 = 64;
const TREES_EVERY: u64 = 32;
/// Series of the I/O graph per grouping (protocols, message types); the rest go to `other`.
const MAX_KEYS: usize = 48;
/// Expert-note groups kept, and first frames each.
const MAX_NOTE_GROUPS: usize = 1_000;
const FIRST_FRAMES: usize = 5;
/// Events listed, and marked on the timeline.
const MAX_EVENTS_LISTED: usize = 300;
const MAX_EVENT_MARKS: usize = 3_000;

/// Whether a datagram gets a field tree: all of a short capture's, then a bounded share.
fn tree_wanted(frame: u64, index_in_flow: u64) -> bool {
    frame <= TREES_FROM_START
        || index_in_flow < TREES_FLOW_START
        || index_in_flow.is_multiple_of(TREES_EVERY)
}

/// Packets and bytes of one series in one bin.
#[derive(Default, Clone, Copy)]
struct Cell {
    packets: u64,
    bytes: u64,
}

#[derive(Default, Clone)]
struct Slot(Vec<Cell>);

impl Merge for Slot {
    fn merge(&mut self, o: Self) {
        if self.0.len() < o.0.len() {
            self.0.resize(o.0.len(), Cell::default());
        }
        for (a, b) in self.0.iter_mut().zip(o.0) {
            a.packets += b.packets;
            a.bytes += b.bytes;
        }
    }
}

/// One grouping of the I/O graph: a series per key (a protocol, or a protocol's message type),
/// binned over time.
#[derive(Default)]
struct Io {
    keys: Vec<String>,
    /// Protocol → message type (empty for the protocol's own series) → key; looked up without
    /// building a string per message.
    index: HashMap<&'static str, HashMap<Box<str>, usize>>,
    /// The last frame counted per key: a datagram of several messages is one packet.
    last_frame: Vec<u64>,
    bytes: Vec<u64>,
    bins: Bins<Slot>,
    /// Keys of message types named by static strings, by the strings' addresses: most messages
    /// find their key here without hashing a string.
    recent: Vec<((usize, usize, usize), usize)>,
}

/// Static message-type names remembered by address.
const RECENT_KEYS: usize = 64;

impl Io {
    fn add(&mut self, key: (&'static str, &Cow<'static, str>), frame: u64, len: u64, rel_ns: i128) {
        let k = self.key(key);
        if self.last_frame[k] == frame {
            return;
        }
        self.last_frame[k] = frame;
        self.bytes[k] += len;
        let slot = self.bins.at(rel_ns);
        if slot.0.len() <= k {
            slot.0.resize(k + 1, Cell::default());
        }
        slot.0[k].packets += 1;
        slot.0[k].bytes += len;
    }

    fn key(&mut self, (protocol, ty): (&'static str, &Cow<'static, str>)) -> usize {
        // Only a static string's address names it for good (an owned one's may be reused).
        let Cow::Borrowed(t) = ty else {
            return self.lookup(protocol, ty);
        };
        let id = (protocol.as_ptr() as usize, t.as_ptr() as usize, t.len());
        if let Some(&(_, k)) = self.recent.iter().find(|(i, _)| *i == id) {
            return k;
        }
        let k = self.lookup(protocol, t);
        if self.recent.len() < RECENT_KEYS {
            self.recent.push((id, k));
        }
        k
    }

    fn lookup(&mut self, protocol: &'static str, ty: &str) -> usize {
        match self.index.get(protocol).and_then(|t| t.get(ty)) {
            Some(&k) => k,
            None if self.keys.len() < MAX_KEYS => self.new_key(protocol, ty),
            None => match self.index.get("other").and_then(|t| t.get("")) {
                Some(&k) => k,
                None => self.new_key("other", ""),
            },
        }
    }

    fn new_key(&mut self, protocol: &'static str, ty: &str) -> usize {
        let name = if ty.is_empty() {
            protocol.to_string()
        } else {
            format!("{protocol} {ty}")
        };
        self.keys.push(name);
        let k = self.keys.len() - 1;
        self.index.entry(protocol).or_default().insert(ty.into(), k);
        self.last_frame.push(0);
        self.bytes.push(0);
        k
    }
}

/// Expert notes of one message type, note and severity.
pub(crate) struct NoteGroup {
    count: u64,
    frames: Vec<u64>,
    message: String,
}

/// An event as listed in the report.
struct Listed {
    rel: f64,
    event: Event,
}

/// Everything the page shows, gathered in one pass.
#[derive(Default)]
pub(crate) struct Gathered {
    file: String,
    stats: Stats,
    first: Option<Timestamp>,
    last: Option<Timestamp>,
    by_protocol: Io,
    by_type: Io,
    /// (severity, protocol, message type, note name) → group.
    notes: BTreeMap<(Severity, &'static str, String, &'static str), NoteGroup>,
    notes_left_out: u64,
    events: Vec<Listed>,
    event_counts: BTreeMap<(&'static str, &'static str), u64>,
    event_marks: Vec<(f64, (&'static str, &'static str))>,
    games: games::Games,
    datagrams: u64,
    with_trees: u64,
    sampled: bool,
    last_frame: u64,
}

impl Gathered {
    fn record(&mut self, meta: &Meta<'_>, rec: &Record, extractor: &mut Extractor) {
        let base = *self.first.get_or_insert(meta.base);
        self.last = Some(self.last.map_or(meta.time, |l| l.max(meta.time)));
        let rel_ns = meta.time.as_nanos() - base.as_nanos();
        let len = meta.payload.len() as u64;
        let new_datagram = self.last_frame != meta.frame;
        if new_datagram {
            self.last_frame = meta.frame;
            self.datagrams += 1;
            if !rec.fields.is_empty() {
                self.with_trees += 1;
            }
        }
        self.by_protocol
            .add((rec.protocol, &Cow::Borrowed("")), meta.frame, len, rel_ns);
        self.by_type
            .add((rec.protocol, &rec.msg_type), meta.frame, len, rel_ns);
        for n in &rec.notes {
            self.note(rec, n, meta.frame);
        }
        let _ = extractor.record(meta, rec, &mut |e| {
            self.event(e);
            Ok(())
        });
        self.games.record(meta, rec, rel_ns);
    }

    fn note(&mut self, rec: &Record, n: &crate::tree::Note, frame: u64) {
        let key = (
            n.severity(),
            rec.protocol,
            rec.msg_type.to_string(),
            n.name(),
        );
        let len = self.notes.len();
        let group = match self.notes.get_mut(&key) {
            Some(g) => g,
            None if len < MAX_NOTE_GROUPS => self.notes.entry(key).or_insert(NoteGroup {
                count: 0,
                frames: Vec::new(),
                message: n.message.clone(),
            }),
            None => {
                self.notes_left_out += 1;
                return;
            }
        };
        group.count += 1;
        if group.frames.len() < FIRST_FRAMES && group.frames.last() != Some(&frame) {
            group.frames.push(frame);
        }
    }

    fn event(&mut self, e: Event) {
        let key = (e.protocol, e.kind);
        *self.event_counts.entry(key).or_default() += 1;
        let rel = e.time.secs_since(&self.first.unwrap_or(e.base));
        if self.event_marks.len() < MAX_EVENT_MARKS {
            self.event_marks.push((rel, key));
        }
        if self.events.len() < MAX_EVENTS_LISTED {
            self.events.push(Listed { rel, event: e });
        }
    }
}

/// Decodes `input` with `decode`'s settings and writes the report to `output` (`-`: stdout).
pub fn command<R: io::BufRead>(
    input: R,
    total_len: Option<u64>,
    decode: &Decode,
    output: &str,
    warn: &mut dyn FnMut(&crate::capture::CaptureError),
) -> Outcome {
    let (gathered, outcome) = gather(
        input,
        total_len,
        decode.config.clone(),
        decode.input(),
        warn,
    );
    if let Outcome::InputError(_) = &outcome
        && gathered.stats.frames == 0
    {
        return outcome;
    }
    let page = html::page(&gathered, input_error_text(&outcome));
    let written = if output == "-" {
        io::stdout().lock().write_all(page.as_bytes())
    } else {
        std::fs::write(output, page.as_bytes())
    };
    match (outcome, written) {
        (_, Err(e)) => Outcome::Output(e),
        (o, Ok(())) => o,
    }
}

/// Why the capture could not be read to its end, if it could not.
fn input_error_text(o: &Outcome) -> Option<String> {
    match o {
        Outcome::InputError(e) => Some(e.to_string()),
        _ => None,
    }
}

fn gather<R: io::BufRead>(
    input: R,
    total_len: Option<u64>,
    config: Config,
    file: &str,
    warn: &mut dyn FnMut(&crate::capture::CaptureError),
) -> (Gathered, Outcome) {
    // A display filter that reads fields needs every tree.
    let every_tree = config.filter.as_ref().is_some_and(|f| f.needs_tree());
    let frames = config.frames;
    let config = Config {
        detail: true,
        detail_when: if every_tree { None } else { Some(tree_wanted) },
        flow_stats: true,
        message_stats: true,
        ..config
    };
    let registry = protocols::all();
    let mut extractor = Extractor::new(&registry, Vec::new(), frames);
    let mut engine = Engine::new(registry, config);
    let mut g = Gathered {
        file: if file == "-" {
            "<stdin>".into()
        } else {
            file.into()
        },
        sampled: !every_tree,
        ..Gathered::default()
    };
    let outcome = run_capture(input, &mut engine, total_len, warn, &mut |m, r| {
        g.record(m, r, &mut extractor);
        Ok(())
    });
    let _ = extractor.finish(&mut |e| {
        g.event(e);
        Ok(())
    });
    g.stats = engine.stats().clone();
    (g, outcome)
}

/// The report of a capture held in memory (tests).
pub fn report_of(bytes: &[u8], config: Config) -> String {
    let (g, outcome) = gather(bytes, None, config, "capture.pcap", &mut |_| {});
    html::page(&g, input_error_text(&outcome))
}

/// `gamedissect report`.
pub(super) fn run(decode: Decode, output: &str) -> ExitCode {
    let (input, len, mut warn) = match open_decode(&decode) {
        Ok(opened) => opened,
        Err(code) => return code,
    };
    let outcome = crate::commands::report::command(input, len, &decode, output, &mut warn);
    finish_outcome(decode.input(), outcome)
}
