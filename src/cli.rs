//! The command line: argument parsing, input opening, and the read → decode → write loop.
//!
//! Exit codes: 0 success (also when the reader of our output goes away, as with `| head`),
//! 1 input error (unreadable, not a capture, cut off), 2 usage error.

use std::fs::File;
use std::io::{self, BufRead, BufReader, BufWriter, IsTerminal, Write};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::capture::{CaptureError, CaptureReader, Event};
use crate::engine::{Config, DecodeAs, Engine, FrameRange, Meta, Stats};
use crate::output::RecordWriter;
use crate::output::json::JsonWriter;
use crate::output::summary::SummaryWriter;
use crate::output::text_tree::TreeWriter;
use crate::proto::Protocol;
use crate::protocols;
use crate::tree::{FieldDef, Record};

#[derive(Debug, Parser)]
#[command(
    name = "gamedissect",
    version,
    about = "Dissects the network traffic of classic game and simulator protocols in pcap/pcapng captures",
    after_help = "Exit codes: 0 success, 1 input error, 2 usage error."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Decode every message of a capture: summary lines, a field tree, or NDJSON
    Dissect(DissectArgs),
    /// Count messages and bytes per protocol, message type and flow
    Stats(StatsArgs),
    /// List the decoders, their default ports, heuristics and options
    Protocols {
        #[arg(long, value_enum, default_value_t = ListFormat::Text)]
        format: ListFormat,
    },
    /// List every field name a decoder can emit (like tshark -G fields)
    Fields {
        /// Only this protocol's fields
        protocol: Option<String>,
        /// Markdown, as in docs/fields.md
        #[arg(long)]
        markdown: bool,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ListFormat {
    Text,
    Json,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OutputFormat {
    /// One line per message
    Summary,
    /// Annotated field tree
    Tree,
    /// NDJSON, one object per message
    Json,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ColorChoice {
    Auto,
    Always,
    Never,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum GamestudioDialect {
    A5,
    A6,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum GamestudioPos {
    Packed,
    Fixed,
}

/// Options shared by every command that decodes a capture.
#[derive(Debug, Clone, Args)]
pub struct DecodeArgs {
    /// Capture file (pcap or pcapng), or - for standard input
    pub file: String,
    /// Decode UDP to or from PORT (or PORT-PORT) as PROTO; repeatable
    #[arg(long = "decode-as", value_name = "PORT=PROTO")]
    pub decode_as: Vec<String>,
    /// Report only messages of this protocol (quake3, srb2, flightgear, gamestudio, udp); repeatable
    #[arg(long, value_name = "PROTO")]
    pub protocol: Vec<String>,
    /// Report only these frames: N, N-M, N- or -M (earlier frames are still decoded for state)
    #[arg(long, value_name = "RANGE")]
    pub frames: Option<String>,
    /// Do not guess protocols from content; use --decode-as and well-known ports only
    #[arg(long)]
    pub no_heuristics: bool,
    /// SRB2 release to assume instead of detecting it per flow (e.g. 2.1.25, 2.2.13)
    #[arg(long, value_name = "X.Y.Z")]
    pub srb2_version: Option<String>,
    /// 3D GameStudio dialect to assume instead of detecting it per flow
    #[arg(long, value_enum)]
    pub gamestudio_dialect: Option<GamestudioDialect>,
    /// 3D GameStudio CPosition encoding (the server setting is not on the wire)
    #[arg(long, value_enum)]
    pub gamestudio_pos: Option<GamestudioPos>,
    /// A decoder option as KEY=VALUE (see `gamestudio protocols`); repeatable
    #[arg(short = 'o', long = "option", value_name = "KEY=VALUE")]
    pub options: Vec<String>,
}

#[derive(Debug, Clone, Args)]
pub struct DissectArgs {
    #[command(flatten)]
    pub decode: DecodeArgs,
    /// Output format
    #[arg(short, long, value_enum, default_value_t = OutputFormat::Summary)]
    pub format: OutputFormat,
    /// Colour in the tree and summary (auto: only on a terminal and without NO_COLOR)
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
    /// With --format tree, a hex dump of the payload under each message
    #[arg(long)]
    pub hex: bool,
    /// Decoding threads (flows are split between them; the output is the same for any number).
    /// Default: one per core, at most 4
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=64))]
    pub threads: Option<u16>,
}

#[derive(Debug, Clone, Args)]
pub struct StatsArgs {
    #[command(flatten)]
    pub decode: DecodeArgs,
    /// Output format
    #[arg(short, long, value_enum, default_value_t = ListFormat::Text)]
    pub format: ListFormat,
}

/// A usage mistake found after parsing (unknown protocol name, bad range).
#[derive(Debug)]
pub struct UsageError(pub String);

fn parse_range(s: &str) -> Result<FrameRange, UsageError> {
    let bad = || {
        UsageError(format!(
            "--frames {s:?}: expected N, N-M, N- or -M with frame numbers from 1"
        ))
    };
    let num = |t: &str| t.trim().parse::<u64>().map_err(|_| bad());
    let r = match s.split_once('-') {
        None => {
            let n = num(s)?;
            FrameRange { first: n, last: n }
        }
        Some((a, b)) => FrameRange {
            first: if a.trim().is_empty() { 1 } else { num(a)? },
            last: if b.trim().is_empty() {
                u64::MAX
            } else {
                num(b)?
            },
        },
    };
    if r.first == 0 || r.first > r.last {
        return Err(bad());
    }
    Ok(r)
}

fn protocol_names(registry: &[&'static dyn Protocol]) -> String {
    let mut names: Vec<&str> = registry.iter().map(|p| p.info().name).collect();
    names.push("udp");
    names.join(", ")
}

/// Turns the decoding options into an engine configuration.
pub fn config_from(
    args: &DecodeArgs,
    registry: &[&'static dyn Protocol],
) -> Result<Config, UsageError> {
    let mut cfg = Config {
        heuristics: !args.no_heuristics,
        ..Config::default()
    };
    for rule in &args.decode_as {
        let (ports, proto) = rule.split_once('=').ok_or_else(|| {
            UsageError(format!(
                "--decode-as {rule:?}: expected PORT=PROTO or PORT-PORT=PROTO"
            ))
        })?;
        let range = parse_range(ports)
            .ok()
            .filter(|r| r.last <= 65_535)
            .ok_or_else(|| {
                UsageError(format!(
                    "--decode-as {rule:?}: {ports:?} is not a port or port range"
                ))
            })?;
        let protocol = protocols::index_of(registry, proto.trim()).ok_or_else(|| {
            UsageError(format!(
                "--decode-as {rule:?}: unknown protocol {proto:?} (known: {})",
                protocol_names(registry)
            ))
        })?;
        cfg.decode_as.push(DecodeAs {
            lo: range.first as u16,
            hi: range.last as u16,
            protocol,
        });
    }
    for p in &args.protocol {
        if p != "udp" && protocols::index_of(registry, p).is_none() {
            return Err(UsageError(format!(
                "--protocol {p:?}: unknown protocol (known: {})",
                protocol_names(registry)
            )));
        }
        cfg.only_protocols.push(p.clone());
    }
    if let Some(f) = &args.frames {
        cfg.frames = parse_range(f)?;
    }
    if let Some(v) = &args.srb2_version {
        cfg.prefs.set("srb2.version", v.clone());
    }
    if let Some(d) = args.gamestudio_dialect {
        cfg.prefs.set(
            "gamestudio.dialect",
            if d == GamestudioDialect::A5 {
                "a5"
            } else {
                "a6"
            },
        );
    }
    if let Some(p) = args.gamestudio_pos {
        cfg.prefs.set(
            "gamestudio.pos",
            if p == GamestudioPos::Packed {
                "packed"
            } else {
                "fixed"
            },
        );
    }
    for o in &args.options {
        let (k, v) = o
            .split_once('=')
            .ok_or_else(|| UsageError(format!("-o {o:?}: expected KEY=VALUE")))?;
        let known = registry
            .iter()
            .any(|p| p.info().prefs.iter().any(|d| d.key == k));
        if !known {
            return Err(UsageError(format!(
                "-o {o:?}: no decoder has an option {k:?} (see `gamedissect protocols`)"
            )));
        }
        cfg.prefs.set(k, v);
    }
    Ok(cfg)
}

/// How a decoding run ended.
#[derive(Debug)]
pub enum Outcome {
    /// Every record was read.
    Done,
    /// The capture could not be read past this point; every whole record before it was handled.
    InputError(CaptureError),
    /// Writing the output failed (a closed pipe is reported as such).
    Output(io::Error),
}

/// Progress on stderr for long reads from a file on a terminal.
pub(crate) struct Progress {
    total: u64,
    last: Instant,
    shown: bool,
}

impl Progress {
    pub(crate) fn maybe(total: Option<u64>) -> Option<Progress> {
        let total = total?;
        (total >= 32 * 1024 * 1024 && io::stderr().is_terminal()).then(|| Progress {
            total,
            last: Instant::now(),
            shown: false,
        })
    }

    pub(crate) fn tick(&mut self, offset: u64) {
        if self.last.elapsed() >= Duration::from_millis(250) {
            self.last = Instant::now();
            self.shown = true;
            let pct = offset as f64 * 100.0 / self.total as f64;
            eprint!(
                "\rreading: {pct:5.1}% ({} of {} MiB)",
                offset >> 20,
                self.total >> 20
            );
        }
    }

    pub(crate) fn clear(&self) {
        if self.shown {
            eprint!("\r\x1b[K");
        }
    }
}

/// Reads a whole capture through the engine, handing selected records to `sink`; bad records are
/// reported through `warn`.
pub fn run_capture<R: BufRead>(
    input: R,
    engine: &mut Engine,
    total_len: Option<u64>,
    warn: &mut dyn FnMut(&CaptureError),
    sink: &mut dyn FnMut(&Meta<'_>, &mut Record) -> io::Result<()>,
) -> Outcome {
    let mut progress = Progress::maybe(total_len);
    let outcome = run_capture_each(input, engine, warn, sink, &mut |frames, offset| {
        if let Some(p) = progress.as_mut()
            && frames.is_multiple_of(4096)
        {
            p.tick(offset);
        }
    });
    if let Some(p) = progress {
        p.clear();
    }
    outcome
}

/// [`run_capture`] without progress, calling `after` with the frames read and the input offset
/// once each frame has been fully handled.
pub fn run_capture_each<R: BufRead>(
    input: R,
    engine: &mut Engine,
    warn: &mut dyn FnMut(&CaptureError),
    sink: &mut dyn FnMut(&Meta<'_>, &mut Record) -> io::Result<()>,
    after: &mut dyn FnMut(u64, u64),
) -> Outcome {
    let mut reader = match CaptureReader::new(input) {
        Ok(r) => r,
        Err(e) => return Outcome::InputError(e),
    };
    let last = engine_last_frame(engine);
    let outcome = loop {
        if engine.frames() >= last {
            break Outcome::Done;
        }
        match reader.next() {
            Ok(Some(Event::Packet(p))) => {
                if let Err(e) = engine.packet(&p, sink) {
                    break Outcome::Output(e);
                }
            }
            Ok(Some(Event::BadRecord(e))) => {
                engine.bad_record();
                warn(&e);
            }
            Ok(None) => break Outcome::Done,
            Err(e) => break Outcome::InputError(e),
        }
        after(engine.frames(), reader.offset());
    };
    engine.finish();
    outcome
}

fn engine_last_frame(engine: &Engine) -> u64 {
    engine.config().frames.last
}

/// The colour decision for `--color auto|always|never`, `NO_COLOR` and `TERM=dumb`.
pub fn use_color(choice: ColorChoice) -> bool {
    match choice {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => {
            let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
            let dumb = std::env::var_os("TERM").is_some_and(|t| t == "dumb");
            !no_color && !dumb && io::stdout().is_terminal()
        }
    }
}

/// Decodes a capture held in memory into the text of one output format (golden tests, benches).
pub fn render(
    bytes: &[u8],
    format: OutputFormat,
    config: Config,
) -> (String, Option<CaptureError>) {
    let mut out = Vec::new();
    let mut engine = Engine::new(protocols::all(), config);
    let outcome = {
        let mut writer: Box<dyn RecordWriter> = match format {
            OutputFormat::Summary => Box::new(SummaryWriter::new(&mut out, false)),
            OutputFormat::Tree => Box::new(TreeWriter::new(&mut out, false, false)),
            OutputFormat::Json => Box::new(JsonWriter::new(&mut out)),
        };
        let o = run_capture(bytes, &mut engine, None, &mut |_| {}, &mut |m, r| {
            writer.record(m, r)
        });
        let _ = writer.finish();
        o
    };
    let err = match outcome {
        Outcome::InputError(e) => Some(e),
        _ => None,
    };
    (String::from_utf8(out).expect("outputs are UTF-8"), err)
}

/// Decodes a capture held in memory and returns its statistics.
pub fn stats_of(bytes: &[u8], config: Config) -> (Stats, Option<CaptureError>) {
    let config = Config {
        detail: false,
        ..config
    };
    let mut engine = Engine::new(protocols::all(), config);
    let outcome = run_capture(bytes, &mut engine, None, &mut |_| {}, &mut |_, _| Ok(()));
    let err = match outcome {
        Outcome::InputError(e) => Some(e),
        _ => None,
    };
    (engine.stats().clone(), err)
}

fn open_input(file: &str) -> Result<(Box<dyn BufRead + Send>, Option<u64>), String> {
    if file == "-" {
        return Ok((
            Box::new(BufReader::with_capacity(1 << 18, io::stdin())),
            None,
        ));
    }
    let f = File::open(file).map_err(|e| format!("gamedissect: {file}: cannot open: {e}"))?;
    let len = f.metadata().ok().filter(|m| m.is_file()).map(|m| m.len());
    Ok((Box::new(BufReader::with_capacity(1 << 18, f)), len))
}

fn input_name(file: &str) -> &str {
    if file == "-" { "<stdin>" } else { file }
}

fn usage_exit(e: UsageError) -> ExitCode {
    eprintln!("gamedissect: {}", e.0);
    ExitCode::from(2)
}

fn finish_outcome(file: &str, outcome: Outcome) -> ExitCode {
    match outcome {
        Outcome::Done => ExitCode::SUCCESS,
        Outcome::InputError(e) => {
            eprintln!("gamedissect: {}: {e}", input_name(file));
            ExitCode::from(1)
        }
        Outcome::Output(e) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Outcome::Output(e) => {
            eprintln!("gamedissect: writing output: {e}");
            ExitCode::from(1)
        }
    }
}

pub(crate) fn make_writer<W: Write + 'static>(
    out: W,
    format: OutputFormat,
    color: bool,
    hex: bool,
) -> Box<dyn RecordWriter> {
    match format {
        OutputFormat::Summary => Box::new(SummaryWriter::new(out, color)),
        OutputFormat::Tree => Box::new(TreeWriter::new(out, color, hex)),
        OutputFormat::Json => Box::new(JsonWriter::new(out)),
    }
}

fn dissect(args: &DissectArgs) -> ExitCode {
    let registry = protocols::all();
    let config = match config_from(&args.decode, &registry) {
        Ok(c) => Config {
            flow_stats: false,
            message_stats: false,
            detail: args.format != OutputFormat::Summary,
            ..c
        },
        Err(e) => return usage_exit(e),
    };
    let (input, len) = match open_input(&args.decode.file) {
        Ok(x) => x,
        Err(msg) => {
            eprintln!("{msg}");
            return ExitCode::from(1);
        }
    };
    let color = use_color(args.color);
    let name = input_name(&args.decode.file).to_string();
    let warn = move |e: &CaptureError| eprintln!("gamedissect: {name}: {e} (record skipped)");
    let mut out = BufWriter::with_capacity(1 << 16, io::stdout().lock());
    let threads = args
        .threads
        .map_or_else(crate::parallel::default_shards, usize::from);
    if threads > 1 {
        let rendering = crate::parallel::Rendering {
            format: args.format,
            color,
            hex: args.hex,
        };
        let tuning = crate::parallel::Tuning::for_format(args.format);
        let outcome = crate::parallel::dissect_sharded(
            input, len, config, threads, rendering, &mut out, warn, tuning,
        );
        return finish_outcome(&args.decode.file, outcome);
    }
    let mut writer = make_writer(out, args.format, color, args.hex);
    let mut engine = Engine::new(registry, config);
    let mut warn = warn;
    let mut outcome = run_capture(input, &mut engine, len, &mut warn, &mut |m, r| {
        writer.record(m, r)
    });
    if let Err(e) = writer.finish()
        && !matches!(outcome, Outcome::InputError(_))
    {
        outcome = Outcome::Output(e);
    }
    finish_outcome(&args.decode.file, outcome)
}

fn stats(args: &StatsArgs) -> ExitCode {
    let registry = protocols::all();
    let config = match config_from(&args.decode, &registry) {
        Ok(c) => Config { detail: false, ..c },
        Err(e) => return usage_exit(e),
    };
    let (input, len) = match open_input(&args.decode.file) {
        Ok(x) => x,
        Err(msg) => {
            eprintln!("{msg}");
            return ExitCode::from(1);
        }
    };
    let mut engine = Engine::new(registry, config);
    let name = input_name(&args.decode.file).to_string();
    let mut warn = |e: &CaptureError| eprintln!("gamedissect: {name}: {e} (record skipped)");
    let outcome = run_capture(input, &mut engine, len, &mut warn, &mut |_, _| Ok(()));
    let out = BufWriter::new(io::stdout().lock());
    let written = match args.format {
        ListFormat::Text => crate::output::stats::write_text(out, engine.stats()),
        ListFormat::Json => crate::output::stats::write_json(out, engine.stats()),
    };
    match (outcome, written) {
        (Outcome::Done, Err(e)) => finish_outcome(&args.decode.file, Outcome::Output(e)),
        (o, _) => finish_outcome(&args.decode.file, o),
    }
}

fn list_protocols(format: ListFormat) -> ExitCode {
    let registry = protocols::all();
    let mut out = BufWriter::new(io::stdout().lock());
    let ports = |info: &crate::proto::ProtocolInfo| {
        info.ports
            .iter()
            .map(|&(a, b)| {
                if a == b {
                    a.to_string()
                } else {
                    format!("{a}-{b}")
                }
            })
            .collect::<Vec<_>>()
    };
    let r = match format {
        ListFormat::Json => {
            let list: Vec<serde_json::Value> = registry
                .iter()
                .map(|p| {
                    let i = p.info();
                    serde_json::json!({
                        "name": i.name,
                        "title": i.title,
                        "ports": ports(i),
                        "heuristic": i.heuristic,
                        "options": i.prefs.iter().map(|d| serde_json::json!({"key": d.key, "values": d.values, "description": d.desc})).collect::<Vec<_>>(),
                    })
                })
                .collect();
            serde_json::to_writer(&mut out, &list)
                .map_err(io::Error::other)
                .and_then(|_| writeln!(out))
        }
        ListFormat::Text => (|| {
            for p in &registry {
                let i = p.info();
                writeln!(out, "{}: {}", i.name, i.title)?;
                writeln!(out, "  ports: {}", ports(i).join(", "))?;
                writeln!(out, "  heuristic: {}", i.heuristic)?;
                for d in i.prefs {
                    writeln!(out, "  option -o {}={}: {}", d.key, d.values, d.desc)?;
                }
            }
            writeln!(out, "udp: datagrams no decoder claims (always last)")
        })(),
    };
    finish_outcome(
        "-",
        match r.and_then(|_| out.flush()) {
            Ok(()) => Outcome::Done,
            Err(e) => Outcome::Output(e),
        },
    )
}

/// Every field of every protocol, the plain-UDP record first.
pub fn all_fields(
    registry: &[&'static dyn Protocol],
) -> Vec<(&'static str, &'static str, Vec<&'static FieldDef>)> {
    let mut v = vec![(
        "udp",
        "Plain UDP (no decoder)",
        protocols::udp::ALL.to_vec(),
    )];
    for p in registry {
        let i = p.info();
        v.push((
            i.name,
            i.title,
            i.fields.iter().flat_map(|s| s.iter().copied()).collect(),
        ));
    }
    v
}

/// docs/fields.md, generated from the field definitions.
pub fn fields_markdown(registry: &[&'static dyn Protocol]) -> String {
    use std::fmt::Write as _;
    let mut s = String::new();
    s.push_str("# Field reference\n\n");
    s.push_str("Generated by `gamedissect fields --markdown` from the decoders' field definitions; a test keeps\n");
    s.push_str("it in step with the code. Names are stable: scripts may rely on them. In JSON a field nests\n");
    s.push_str("under its parent by its dotted name; a *repeated* field is always an array. Types: `uint`/`int`\n");
    s.push_str("are JSON integers, `float` a JSON number (or the strings `NaN`, `Infinity`, `-Infinity`),\n");
    s.push_str("`bool` true/false, `string` a JSON string (or `{\"bytes\": base64}` when the wire bytes are not\n");
    s.push_str("UTF-8), `bytes` a hex string, `enum` `{\"value\": n, \"name\": \"NAME\"|null}`, `group` an object,\n");
    s.push_str("`any` whichever of these the value is in each occurrence (its description says how to tell).\n");
    s.push_str(
        "A group that carries a value of its own puts it under `value` (and `name` for an enum).\n",
    );
    s.push_str("Each protocol's fields are followed by its expert notes (`expert.*`), the kinds of note its\n");
    s.push_str("decoder adds; the `udp` section lists those of the plumbing and the toolkit, which a record of\n");
    s.push_str("any protocol can carry.\n");
    for (name, title, fields) in all_fields(registry) {
        let _ = write!(
            s,
            "\n## {name}: {title}\n\n| field | type | label | description |\n|---|---|---|---|\n"
        );
        for f in fields {
            let ty = if f.repeated {
                format!("{}, repeated", f.kind.as_str())
            } else {
                f.kind.as_str().to_string()
            };
            let unit = if f.unit.is_empty() {
                String::new()
            } else {
                format!(" (unit: {})", f.unit)
            };
            let _ = writeln!(
                s,
                "| `{}` | {} | {} | {}{} |",
                f.name,
                ty,
                f.label,
                f.desc.replace('|', "\\|"),
                unit
            );
        }
        notes_markdown(&mut s, name, registry);
    }
    s
}

/// The expert notes table under a protocol's fields (`udp` lists the plumbing's and toolkit's).
fn notes_markdown(s: &mut String, protocol: &str, registry: &[&'static dyn Protocol]) {
    use std::fmt::Write as _;
    let notes: Vec<&crate::tree::NoteDef> = if protocol == "udp" {
        protocols::udp::NOTES
            .iter()
            .chain(crate::wire::NOTES)
            .copied()
            .collect()
    } else {
        registry
            .iter()
            .filter(|p| p.info().name == protocol)
            .flat_map(|p| p.info().notes.iter().copied())
            .collect()
    };
    if notes.is_empty() {
        return;
    }
    let _ = write!(s, "\n| expert note | severity | summary |\n|---|---|---|\n");
    for n in notes {
        let _ = writeln!(
            s,
            "| `{}` | {} | {} |",
            n.name,
            n.severity.as_str(),
            n.summary.replace('|', "\\|")
        );
    }
}

fn list_fields(protocol: Option<&str>, markdown: bool) -> ExitCode {
    let registry = protocols::all();
    let mut out = BufWriter::new(io::stdout().lock());
    let r = (|| {
        if markdown {
            return out.write_all(fields_markdown(&registry).as_bytes());
        }
        let all = all_fields(&registry);
        if let Some(p) = protocol
            && !all.iter().any(|(n, _, _)| *n == p)
        {
            eprintln!(
                "gamedissect: unknown protocol {p:?} (known: {})",
                protocol_names(&registry)
            );
            std::process::exit(2);
        }
        for (name, _, fields) in all {
            if protocol.is_some_and(|p| p != name) {
                continue;
            }
            for f in fields {
                writeln!(
                    out,
                    "{}\t{}{}\t{}",
                    f.name,
                    f.kind.as_str(),
                    if f.repeated { "[]" } else { "" },
                    f.label
                )?;
            }
        }
        Ok(())
    })();
    finish_outcome(
        "-",
        match r.and_then(|_| out.flush()) {
            Ok(()) => Outcome::Done,
            Err(e) => Outcome::Output(e),
        },
    )
}

/// The program: parse arguments, run the command, map the result to an exit code.
pub fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let code = e.exit_code();
            let _ = e.print();
            return ExitCode::from(code.clamp(0, 255) as u8);
        }
    };
    match &cli.command {
        Command::Dissect(a) => dissect(a),
        Command::Stats(a) => stats(a),
        Command::Protocols { format } => list_protocols(*format),
        Command::Fields { protocol, markdown } => list_fields(protocol.as_deref(), *markdown),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frame_ranges() {
        assert_eq!(parse_range("5").unwrap(), FrameRange { first: 5, last: 5 });
        assert_eq!(
            parse_range("100-200").unwrap(),
            FrameRange {
                first: 100,
                last: 200
            }
        );
        assert_eq!(
            parse_range("10-").unwrap(),
            FrameRange {
                first: 10,
                last: u64::MAX
            }
        );
        assert_eq!(
            parse_range("-20").unwrap(),
            FrameRange { first: 1, last: 20 }
        );
        assert!(parse_range("0").is_err());
        assert!(parse_range("9-3").is_err());
        assert!(parse_range("x").is_err());
    }
}
