//! `gamedissect diff GOLDEN NEW`: which messages and fields of two decodes differ.
//!
//! Each side is a capture (decoded here) or a saved decode (`dissect --format json`). Both are
//! read at once, each on its own thread, into [`Msg`]s; [`lanes::Lanes`] pairs their flows,
//! aligns each flow and direction in bounded windows and reports [`Difference`]s, which a
//! [`Tally`] counts (all of them) and keeps (up to `--max`) for the report. See docs/diff.md.

pub mod align;
pub mod compare;
pub mod lanes;
pub mod msg;
pub mod report;

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::sync::mpsc::{Receiver, sync_channel};
use std::thread;

pub use compare::{CompareOptions, FieldDiff};
pub use lanes::{Difference, StreamKey, What};
pub use msg::Msg;

use crate::engine::{Config, Engine};
use crate::run::{Outcome, run_capture};

/// Everything `diff` is told.
#[derive(Debug, Clone)]
pub struct DiffOptions {
    pub compare: CompareOptions,
    /// Messages per alignment window (per flow and direction).
    pub window: usize,
    /// Differences kept for the report; all are counted.
    pub max: usize,
    /// Explicit flow pairs: (golden flow number, new flow number).
    pub pairs: Vec<(u64, u64)>,
    /// How captures are decoded (`--decode-as`, preferences…).
    pub config: Config,
}

impl Default for DiffOptions {
    fn default() -> Self {
        DiffOptions {
            compare: CompareOptions::default(),
            window: 256,
            max: 1000,
            pairs: Vec::new(),
            config: Config::default(),
        }
    }
}

/// The counts of a comparison and the differences kept for the report.
#[derive(Debug, Clone, Default)]
pub struct Tally {
    pub golden_messages: u64,
    pub new_messages: u64,
    pub differences: u64,
    /// Differences by field name (`(missing)`, `(extra)`, `(moved)`, `(flow only in …)` for
    /// the other kinds).
    pub by_field: BTreeMap<String, u64>,
    /// The first `max` differences, in the order found.
    pub shown: Vec<Difference>,
    max: usize,
}

impl Tally {
    fn new(max: usize) -> Tally {
        Tally {
            max,
            ..Tally::default()
        }
    }

    fn add(&mut self, d: Difference) {
        self.differences += 1;
        *self.by_field.entry(d.what.label().to_string()).or_default() += 1;
        if self.shown.len() < self.max {
            self.shown.push(d);
        }
    }

    /// Whether the two inputs decode alike.
    pub fn equal(&self) -> bool {
        self.differences == 0
    }
}

impl What {
    /// The name a difference is counted under.
    pub fn label(&self) -> &str {
        match self {
            What::Field(f) => &f.name,
            What::Missing => "(missing in new)",
            What::Extra => "(extra in new)",
            What::Moved => "(moved)",
            What::Swapped { .. } => "(swapped)",
            What::FlowOnlyGolden { .. } => "(flow only in golden)",
            What::FlowOnlyNew { .. } => "(flow only in new)",
        }
    }
}

/// `diff`: the two inputs, what is compared and how the report is written.
#[derive(Debug)]
pub struct Diff {
    pub golden: String,
    pub new: String,
    pub options: DiffOptions,
    pub format: crate::output::ListFormat,
}

/// `gamedissect diff`: the report on standard output; exit 0 when equal, 1 when different, 2
/// when an input cannot be read.
pub fn command(d: &crate::commands::diff::Diff) -> std::process::ExitCode {
    use std::process::ExitCode;
    if d.golden == "-" && d.new == "-" {
        eprintln!("gamedissect: diff: only one side can be standard input");
        return ExitCode::from(2);
    }
    let tally = match diff_files(&d.golden, &d.new, &d.options) {
        Ok(t) => t,
        Err(e) => {
            eprintln!(
                "gamedissect: diff: {}",
                crate::text::escaped(&e.to_string())
            );
            return ExitCode::from(2);
        }
    };
    let out = io::BufWriter::new(io::stdout().lock());
    let written = match d.format {
        crate::output::ListFormat::Text => report::write_text(out, &tally),
        crate::output::ListFormat::Json => report::write_json(out, &tally),
    };
    match written {
        Err(e) if e.kind() != io::ErrorKind::BrokenPipe => {
            eprintln!("gamedissect: writing output: {e}");
            ExitCode::from(2)
        }
        _ if tally.equal() => ExitCode::SUCCESS,
        _ => ExitCode::from(1),
    }
}

/// Compares two inputs (paths, `-` for standard input on one side at most).
pub fn diff_files(golden: &str, new: &str, opts: &DiffOptions) -> Result<Tally, String> {
    let g = spawn_reader(golden.to_string(), opts.config.clone());
    let n = spawn_reader(new.to_string(), opts.config.clone());
    let mut lanes = lanes::Lanes::new(opts.compare.clone(), opts.window, opts.pairs.clone());
    let mut tally = Tally::new(opts.max);
    let mut sides = [Some(g), Some(n)];
    // One message from each side in turn, so that both stay near the same place.
    while sides.iter().any(Option::is_some) {
        for (k, side) in sides.iter_mut().enumerate() {
            let Some(rx) = side else { continue };
            match rx.recv() {
                Ok(Ok(msg)) => {
                    if k == 0 {
                        tally.golden_messages += 1;
                    } else {
                        tally.new_messages += 1;
                    }
                    lanes.push(k == 0, msg, &mut |d| tally.add(d));
                }
                Ok(Err(e)) => return Err(e),
                Err(_) => *side = None,
            }
        }
    }
    lanes.finish(&mut |d| tally.add(d));
    Ok(tally)
}

type Feed = Receiver<Result<Msg, String>>;

/// Reads one input on its own thread; messages come through a bounded channel.
fn spawn_reader(path: String, config: Config) -> Feed {
    let (tx, rx) = sync_channel(1024);
    thread::spawn(move || {
        let send = |m: Result<Msg, String>| tx.send(m).is_ok();
        if let Err(e) = read_input(&path, config, &send) {
            send(Err(format!("{path}: {e}")));
        }
    });
    rx
}

fn open(path: &str) -> io::Result<Box<dyn BufRead + Send>> {
    Ok(if path == "-" {
        Box::new(BufReader::with_capacity(1 << 18, io::stdin()))
    } else {
        Box::new(BufReader::with_capacity(1 << 18, File::open(path)?))
    })
}

/// Whether the input is a capture (pcap or pcapng magic) rather than NDJSON.
fn is_capture(head: &[u8]) -> bool {
    const MAGICS: [[u8; 4]; 5] = [
        [0xd4, 0xc3, 0xb2, 0xa1],
        [0xa1, 0xb2, 0xc3, 0xd4],
        [0x4d, 0x3c, 0xb2, 0xa1],
        [0xa1, 0xb2, 0x3c, 0x4d],
        [0x0a, 0x0d, 0x0d, 0x0a],
    ];
    head.len() >= 4 && MAGICS.iter().any(|m| head[..4] == m[..])
}

fn read_input(
    path: &str,
    config: Config,
    send: &dyn Fn(Result<Msg, String>) -> bool,
) -> Result<(), String> {
    let mut input = open(path).map_err(|e| format!("cannot open: {e}"))?;
    let head = input.fill_buf().map_err(|e| e.to_string())?.to_vec();
    if is_capture(&head) {
        read_capture(input, config, send)
    } else {
        read_ndjson(input, send)
    }
}

fn read_ndjson(input: impl Read, send: &dyn Fn(Result<Msg, String>) -> bool) -> Result<(), String> {
    for (i, line) in BufReader::new(input).lines().enumerate() {
        let line = line.map_err(|e| e.to_string())?;
        if line.trim().is_empty() {
            continue;
        }
        let msg = Msg::from_json_line(&line).map_err(|e| format!("line {}: {e}", i + 1))?;
        if !send(Ok(msg)) {
            break;
        }
    }
    Ok(())
}

fn read_capture(
    input: impl BufRead,
    config: Config,
    send: &dyn Fn(Result<Msg, String>) -> bool,
) -> Result<(), String> {
    let config = Config {
        detail: true,
        flow_stats: false,
        message_stats: false,
        ..config
    };
    let mut engine = Engine::new(crate::protocols::all(), config);
    let outcome = run_capture(input, &mut engine, None, &mut |_| {}, &mut |meta, rec| {
        if send(Ok(Msg::from_record(meta, rec))) {
            Ok(())
        } else {
            Err(io::Error::other("the comparison ended"))
        }
    });
    match outcome {
        Outcome::InputError(e) => Err(e.to_string()),
        _ => Ok(()),
    }
}
