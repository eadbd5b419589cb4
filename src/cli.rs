//! The command line: turns arguments into [`Settings`], a plain value with every choice checked
//! and resolved. It decodes nothing and writes nothing; [`crate::run`] does, from the settings.
//!
//! Usage errors (exit code 2) are reported here, before any input is opened.
//!
//! [`generate`] makes the shell completions and man pages from the same definitions.

pub mod generate;

use std::io::{self, IsTerminal};
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::commands::diff::{CompareOptions, Diff, DiffOptions};
use crate::commands::events::EventFormat;
use crate::commands::tracks::TrackFormat;
use crate::commands::{Decode, Dissect, Settings};
use crate::engine::{Config, DecodeAs, FrameRange};
use crate::filter::Column;
use crate::output::columns::FieldsSpec;
use crate::output::{ListFormat, OutputFormat, Rendering, TreeView};
use crate::proto::Protocol;
use crate::protocols;

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
    /// What happened in the game: chat, kills, joins, map changes… one line per event
    Events(EventsArgs),
    /// Movement over time: FlightGear tracks (CSV, NDJSON, GeoJSON, KML, GPX), Quake 3 players (CSV, NDJSON)
    Tracks(TracksArgs),
    /// List the decoders, their default ports, heuristics and options
    Protocols {
        /// Output format
        #[arg(short, long, value_enum, default_value_t = ListFormatArg::Text)]
        format: ListFormatArg,
    },
    /// List every field name a decoder can emit (like tshark -G fields)
    Fields {
        /// Only this protocol's fields
        protocol: Option<String>,
        /// Markdown, as in docs/fields.md
        #[arg(long)]
        markdown: bool,
        /// The Parquet columns of every protocol (markdown, as in docs/parquet.md)
        #[arg(long, conflicts_with_all = ["markdown", "protocol"])]
        parquet: bool,
    },
    /// Compare two decodes message by message and field by field (exit 1 when they differ)
    Diff(DiffArgs),
    /// Quake 3 demos (.dm_68, .dm_71, .dm_72) from a capture, one per client connection and map
    Demo(DemoArgs),
    /// One self-contained HTML page of charts and tables about a capture (docs/report.md)
    Report(ReportArgs),
    /// The capture as pcapng, each decoded message a packet comment for Wireshark and tshark
    /// (docs/annotate.md)
    Annotate(AnnotateArgs),
    /// A shell's completion script, on standard output (README "Install")
    Completions {
        /// The shell to complete in
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// The man pages: gamedissect.1 and one per command (gamedissect-dissect.1 …)
    Man {
        /// Directory to write them into, made if missing (default: the current directory)
        #[arg(short = 'o', long = "output-dir", value_name = "DIR")]
        dir: Option<std::path::PathBuf>,
    },
}

/// What `diff` compares beside the decoded fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CompareExtra {
    /// Capture times (see --time-tolerance)
    Time,
    /// Addresses and ports
    Addresses,
}

#[derive(Debug, Clone, Args)]
pub struct DiffArgs {
    /// The golden side: its FILE (a capture, or NDJSON saved by `dissect --format json`) and
    /// how captures are decoded (both sides)
    #[command(flatten)]
    pub decode: DecodeArgs,
    /// The new side: a capture or saved NDJSON, or - for standard input
    #[arg(value_name = "NEW")]
    pub new: String,
    /// Also compare capture times or addresses; repeatable
    #[arg(long, value_enum)]
    pub compare: Vec<CompareExtra>,
    /// Times within this many seconds are equal (with --compare time)
    #[arg(long, value_name = "SECONDS", default_value_t = 0.0)]
    pub time_tolerance: f64,
    /// Leave out fields matching PATTERN (* any run, ? one character); repeatable
    #[arg(long, value_name = "PATTERN")]
    pub ignore: Vec<String>,
    /// Compare only fields matching PATTERN; repeatable
    #[arg(long, value_name = "PATTERN")]
    pub only: Vec<String>,
    /// Numbers of fields matching FIELD within ABS are equal; repeatable
    #[arg(long, value_name = "FIELD=ABS")]
    pub tolerance: Vec<String>,
    /// Pair golden flow G with new flow N (flow numbers as dissect prints them); repeatable
    #[arg(long, value_name = "G=N")]
    pub pair: Vec<String>,
    /// Messages per alignment window, per flow and direction (2-2048; the alignment table is
    /// (2N)² cells)
    #[arg(long, value_name = "N", default_value_t = 256, value_parser = clap::value_parser!(u32).range(2..=2048))]
    pub window: u32,
    /// Print at most N differences (all are counted)
    #[arg(long, value_name = "N", default_value_t = 1000)]
    pub max: usize,
    #[arg(short = 'f', long, value_enum, default_value_t = ListFormatArg::Text)]
    pub format: ListFormatArg,
}

/// A clap-facing copy of a plain enum of the commands, with the help text of each value: only
/// this module knows clap.
macro_rules! value_enum {
    ($(#[$m:meta])* $arg:ident => $plain:ident { $($(#[doc = $d:literal])* $v:ident),* $(,)? }) => {
        $(#[$m])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
        pub enum $arg {
            $($(#[doc = $d])* $v),*
        }
        impl From<$arg> for $plain {
            fn from(a: $arg) -> $plain {
                match a {
                    $($arg::$v => $plain::$v),*
                }
            }
        }
    };
}

value_enum!(
    /// `dissect --format`.
    FormatArg => OutputFormat {
        /// One line per message
        Summary,
        /// Annotated field tree
        Tree,
        /// NDJSON, one object per message
        Json,
        /// The values of the -e fields, one line per message (like tshark -T fields)
        Fields,
        /// Hive-partitioned Parquet files under the -w directory (docs/parquet.md)
        Parquet,
    }
);

value_enum!(
    /// `--format` of the listings.
    ListFormatArg => ListFormat { Text, Json }
);

value_enum!(
    /// `events --format`.
    EventFormatArg => EventFormat {
        Text,
        Json,
        Csv,
        /// Hive-partitioned Parquet files (protocol=…/kind=…) under the -w directory
        Parquet,
    }
);

value_enum!(
    /// `tracks --format`.
    TrackFormatArg => TrackFormat {
        /// One row a position, streamed (FlightGear or Quake 3 columns)
        Csv,
        /// RFC 7946, one LineString a callsign (FlightGear)
        Geojson,
        /// A time-stamped gx:Track a callsign, for Google Earth (FlightGear)
        Kml,
        /// GPX 1.1, one trk a callsign (FlightGear)
        Gpx,
        /// One JSON object a line, streamed (FlightGear and Quake 3)
        Ndjson,
    }
);

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
    /// Capture files (pcap, pcapng or Quake 3 demo) or directories of them, or - for standard
    /// input (alone); `dissect`, `stats` and `events` take several, decoded in parallel, one file
    /// per thread (docs/output.md, "Several captures")
    #[arg(value_name = "FILE", required = true, num_args = 1..)]
    pub files: Vec<String>,
    /// Decode UDP to or from PORT (or PORT-PORT) as PROTO; repeatable
    #[arg(long = "decode-as", value_name = "PORT=PROTO")]
    pub decode_as: Vec<String>,
    /// Report only messages of this protocol (quake3, srb2, flightgear, gamestudio, udp); repeatable
    #[arg(long, value_name = "PROTO")]
    pub protocol: Vec<String>,
    /// Report only these frames: N, N-M, N- or -M, several separated by commas (1,5,9-12);
    /// repeatable (earlier frames are still decoded for state)
    #[arg(long, value_name = "RANGES", allow_hyphen_values = true)]
    pub frames: Vec<String>,
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
    /// Display filter: report only messages it passes, in Wireshark's syntax
    /// (`quake3.svc.command.name == chat && frame.number > 100`; see docs/output.md)
    #[arg(short = 'Y', long = "filter", value_name = "EXPR")]
    pub filter: Option<String>,
    /// Memory budget for the decoders' per-flow state, e.g. 64M or 2G (default 256M); past it
    /// the least recently active flows' state is dropped, with a note and a count in `stats`
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    pub max_state: Option<usize>,
    /// A decoder option as KEY=VALUE (see `gamedissect protocols`); repeatable
    #[arg(short = 'o', long = "option", value_name = "KEY=VALUE")]
    pub options: Vec<String>,
    /// No progress bar on stderr (shown otherwise for files of 32 MiB or more when stderr is
    /// a terminal)
    #[arg(short = 'q', long)]
    pub quiet: bool,
    /// Two-pass analysis (tshark's -2): read the file once to learn what each flow shows late
    /// (a Quake 3 player's name), then decode it with that known from the start
    #[arg(short = '2', long = "two-pass")]
    pub two_pass: bool,
}

#[derive(Debug, Clone, Args)]
pub struct DissectArgs {
    #[command(flatten)]
    pub decode: DecodeArgs,
    /// Output format
    #[arg(short, long, value_enum, default_value_t = FormatArg::Summary)]
    pub format: FormatArg,
    /// Colour in the tree and summary (auto: only on a terminal and without NO_COLOR)
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
    /// A hex and ASCII dump of the payload and of every reassembled or decoded buffer with
    /// each message (summary and tree), or `hex` and `sources` keys (json)
    #[arg(long)]
    pub hex: bool,
    /// With --format tree: show the children only of these protocols or fields (a dotted
    /// prefix such as quake3.svc.snapshot); other fields are one line ending in `…`; repeatable
    #[arg(long, value_name = "PROTO|FIELD")]
    pub expand: Vec<String>,
    /// With --format tree: no `[field.name @position]` after each line
    #[arg(long)]
    pub compact: bool,
    /// With --format fields: a field to print (any name -Y accepts); repeatable, in column order
    #[arg(short = 'e', long = "field", value_name = "NAME")]
    pub fields: Vec<String>,
    /// With --format fields: header=y|n, separator=/t|/s|C, quote=d|s|n, occurrence=f|l|a|N,
    /// aggregator=/s|C (as tshark -E); repeatable
    #[arg(short = 'E', long = "field-option", value_name = "KEY=VALUE")]
    pub field_options: Vec<String>,
    /// Stop after printing N messages (decodes on one thread)
    #[arg(short = 'c', long = "count", value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub count: Option<u64>,
    /// Decoding threads (flows are split between them; with several captures, one capture a
    /// thread; the output is the same for any number). Default: one per core, at most 4
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=64))]
    pub threads: Option<u16>,
    /// Write each record out as soon as it is decoded, even from a file (a live input, such as
    /// a pipe, already flushes whenever it waits for more)
    #[arg(short = 'l', long)]
    pub line_buffered: bool,
    /// With --format parquet: the directory to write into (made if missing; refused if it
    /// already holds a run's protocol=… partitions)
    #[arg(short = 'w', long = "write", value_name = "DIR")]
    pub write: Option<std::path::PathBuf>,
}

#[derive(Debug, Clone, Args)]
pub struct StatsArgs {
    #[command(flatten)]
    pub decode: DecodeArgs,
    /// Output format
    #[arg(short, long, value_enum, default_value_t = ListFormatArg::Text)]
    pub format: ListFormatArg,
    /// Counts per time interval instead (like tshark -z io,stat): `1s`, `500ms`, `2m`, `0.5`
    #[arg(long, value_name = "DURATION")]
    pub interval: Option<String>,
    /// With several captures: how many are decoded at once, one per thread. Default: one per
    /// core, at most 4
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=64))]
    pub threads: Option<u16>,
}

#[derive(Debug, Clone, Args)]
pub struct EventsArgs {
    #[command(flatten)]
    pub decode: DecodeArgs,
    /// Output format
    #[arg(short, long, value_enum, default_value_t = EventFormatArg::Text)]
    pub format: EventFormatArg,
    /// Only events of this kind (chat, kill, join…, or PROTO.KIND); repeatable
    #[arg(long, value_name = "KIND")]
    pub kind: Vec<String>,
    /// With --format parquet: the directory to write into (made if missing; refused if it
    /// already holds a run's protocol=… partitions)
    #[arg(short = 'w', long = "write", value_name = "DIR")]
    pub write: Option<std::path::PathBuf>,
    /// With several captures: how many are decoded at once, one per thread. Default: one per
    /// core, at most 4
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=64))]
    pub threads: Option<u16>,
}

#[derive(Debug, Clone, Args)]
pub struct TracksArgs {
    #[command(flatten)]
    pub decode: DecodeArgs,
    /// Output format
    #[arg(short, long, value_enum, default_value_t = TrackFormatArg::Csv)]
    pub format: TrackFormatArg,
}

#[derive(Debug, Clone, Args)]
pub struct DemoArgs {
    /// Capture file (pcap or pcapng), or - for standard input
    pub file: String,
    /// Directory to write the demos into, made if missing (default: the current directory)
    #[arg(short = 'o', long = "output-dir", value_name = "DIR")]
    pub dir: Option<std::path::PathBuf>,
    /// One demo per connection, map changes included, instead of one per map
    #[arg(long)]
    pub single: bool,
    /// Only say which demos would be written, and which connections are skipped and why
    #[arg(long)]
    pub list: bool,
    /// Decode UDP to or from PORT (or PORT-PORT) as PROTO; repeatable
    #[arg(long = "decode-as", value_name = "PORT=PROTO")]
    pub decode_as: Vec<String>,
    /// No progress bar on stderr
    #[arg(short = 'q', long)]
    pub quiet: bool,
}

#[derive(Debug, Clone, Args)]
pub struct ReportArgs {
    #[command(flatten)]
    pub decode: DecodeArgs,
    /// Where the HTML goes, or - for standard output (`-w` as in tshark: `-o` sets decoder
    /// options)
    #[arg(short = 'w', long, value_name = "FILE")]
    pub output: Option<String>,
}

#[derive(Debug, Clone, Args)]
pub struct AnnotateArgs {
    /// The capture and how it is decoded: every frame is written; --protocol, --frames and -Y
    /// choose which messages become comments
    #[command(flatten)]
    pub decode: DecodeArgs,
    /// The pcapng file to write, or - for standard output when it is not a terminal
    #[arg(short = 'w', long, value_name = "OUT.pcapng")]
    pub output: String,
}

/// A usage mistake found after parsing (unknown protocol name, bad range).
#[derive(Debug)]
pub struct UsageError(pub String);

/// A byte count with an optional binary suffix: `1048576`, `512K`, `64M`, `2G`.
fn parse_size(s: &str) -> Result<usize, String> {
    let t = s.trim();
    let (digits, shift) = match t.char_indices().last() {
        Some((i, 'k' | 'K')) => (&t[..i], 10),
        Some((i, 'm' | 'M')) => (&t[..i], 20),
        Some((i, 'g' | 'G')) => (&t[..i], 30),
        _ => (t, 0),
    };
    digits
        .parse::<usize>()
        .ok()
        .and_then(|n| n.checked_mul(1 << shift))
        .ok_or_else(|| format!("{s:?} is not a size (a number of bytes, or with K, M or G)"))
}

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

/// One `--decode-as PORT[-PORT]=PROTO` rule (`PROTO` a registered name, or `udp`: none).
fn decode_as_rule(rule: &str, registry: &[&'static dyn Protocol]) -> Result<DecodeAs, UsageError> {
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
    let protocol = match proto.trim() {
        "udp" => None,
        name => Some(protocols::index_of(registry, name).ok_or_else(|| {
            UsageError(format!(
                "--decode-as {rule:?}: unknown protocol {proto:?} (known: {})",
                protocol_names(registry)
            ))
        })?),
    };
    Ok(DecodeAs {
        lo: range.first as u16,
        hi: range.last as u16,
        protocol,
    })
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
        cfg.decode_as.push(decode_as_rule(rule, registry)?);
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
    if let Some(f) = &args.filter {
        let filter = crate::filter::Filter::new(f, registry)
            .map_err(|e| UsageError(format!("-Y {f:?}: {e}")))?;
        cfg.filter = Some(std::sync::Arc::new(filter));
    }
    let ranges = args
        .frames
        .iter()
        .flat_map(|f| f.split(','))
        .map(parse_range)
        .collect::<Result<Vec<_>, _>>()?;
    if let (Some(first), Some(last)) = (
        ranges.iter().map(|r| r.first).min(),
        ranges.iter().map(|r| r.last).max(),
    ) {
        cfg.frames = FrameRange { first, last };
        if ranges.len() > 1 {
            cfg.frame_list = ranges;
        }
    }
    if let Some(m) = args.max_state {
        cfg.max_state = m;
    }
    if let Some(v) = &args.srb2_version {
        cfg.prefs.set(protocols::srb2::VERSION_PREF, v.clone());
    }
    if let Some(d) = args.gamestudio_dialect {
        cfg.prefs.set(
            protocols::gamestudio::DIALECT_PREF,
            if d == GamestudioDialect::A5 {
                "a5"
            } else {
                "a6"
            },
        );
    }
    if let Some(p) = args.gamestudio_pos {
        cfg.prefs.set(
            protocols::gamestudio::POS_PREF,
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
    checked_srb2_release(cfg)
}

/// A release that is not tabulated would only be a warning on every SRB2 flow: say it once.
fn checked_srb2_release(cfg: Config) -> Result<Config, UsageError> {
    match cfg.prefs.get(protocols::srb2::VERSION_PREF) {
        Some(v) if protocols::srb2::tables::Release::parse(v).is_none() => Err(UsageError(
            format!("SRB2 release {v:?} is not tabulated (2.1.25, 2.2.0 … 2.2.15)"),
        )),
        _ => Ok(cfg),
    }
}

/// Parses the process's arguments. A usage error is printed here and comes back as the exit
/// code to end with (`--help` and `--version` too, with their success code).
pub fn parse() -> Result<Settings, ExitCode> {
    let cli = Cli::try_parse().map_err(|e| {
        let code = e.exit_code();
        let _ = e.print();
        ExitCode::from(code.clamp(0, 255) as u8)
    })?;
    settings_from(cli, &protocols::all()).map_err(|e| {
        eprintln!("gamedissect: {}", e.0);
        ExitCode::from(2)
    })
}

/// The columns and options of `--format fields`, made once for the whole run (every decoding
/// thread's writer refers to them, so they live as long as the process).
fn fields_spec(
    a: &DissectArgs,
    registry: &[&'static dyn Protocol],
) -> Result<Option<&'static FieldsSpec>, UsageError> {
    let fields = a.format == FormatArg::Fields;
    if !fields {
        return match (a.fields.first(), a.field_options.first()) {
            (None, None) => Ok(None),
            (Some(_), _) => Err(UsageError("-e takes --format fields".to_string())),
            (None, Some(_)) => Err(UsageError("-E takes --format fields".to_string())),
        };
    }
    if a.fields.is_empty() {
        return Err(UsageError(
            "--format fields needs at least one -e NAME (see `gamedissect fields`)".to_string(),
        ));
    }
    let columns =
        Column::resolve(&a.fields, registry).map_err(|e| UsageError(format!("-e: {e}")))?;
    let mut spec = FieldsSpec::new(columns);
    for o in &a.field_options {
        spec.set(o).map_err(UsageError)?;
    }
    Ok(Some(Box::leak(Box::new(spec))))
}

/// `--expand` and `--compact`, checked: tree options, known names. `--hex` is checked here too,
/// as every format but fields shows it.
fn tree_view(a: &DissectArgs, registry: &[&'static dyn Protocol]) -> Result<TreeView, UsageError> {
    if a.format == FormatArg::Fields && a.hex {
        return Err(UsageError(
            "--hex takes --format summary, tree or json (with fields, the columns are the -e names)"
                .to_string(),
        ));
    }
    if a.format != FormatArg::Tree {
        return match (a.expand.first(), a.compact) {
            (Some(_), _) => Err(UsageError("--expand takes --format tree".to_string())),
            (None, true) => Err(UsageError("--compact takes --format tree".to_string())),
            (None, false) => Ok(TreeView::FULL),
        };
    }
    for p in &a.expand {
        crate::filter::check_prefix(p, registry)
            .map_err(|e| UsageError(format!("--expand: {e}")))?;
    }
    Ok(TreeView {
        expand: Box::leak(a.expand.clone().into_boxed_slice()),
        compact: a.compact,
    })
}

/// `fields`: a known protocol, or all.
fn fields_settings(
    protocol: Option<String>,
    markdown: bool,
    parquet: bool,
    registry: &[&'static dyn Protocol],
) -> Result<Settings, UsageError> {
    if let Some(p) = &protocol
        && p != "udp"
        && protocols::index_of(registry, p).is_none()
    {
        return Err(UsageError(format!(
            "unknown protocol {p:?} (known: {})",
            protocol_names(registry)
        )));
    }
    Ok(Settings::Fields {
        protocol,
        markdown,
        parquet,
    })
}

/// `events`: the kinds it names must exist; `-w DIR` goes with `--format parquet` only.
fn events_settings(a: EventsArgs, decode: Decode) -> Result<Settings, UsageError> {
    if let Some(k) = a
        .kind
        .iter()
        .find(|k| !crate::commands::events::kind_known(k))
    {
        return Err(UsageError(format!(
            "--kind {k:?}: unknown kind (see docs/events.md)"
        )));
    }
    if (a.format == EventFormatArg::Parquet) != a.write.is_some() {
        return Err(UsageError(
            "events --format parquet writes files into -w DIR, and -w takes it".into(),
        ));
    }
    Ok(Settings::Events {
        decode,
        format: a.format.into(),
        kinds: a.kind,
        threads: a.threads.map(usize::from),
        write: a.write,
    })
}

/// `-w DIR` goes with `--format parquet` and only with it; options of the text formats do not.
fn parquet_dir(a: &DissectArgs) -> Result<Option<std::path::PathBuf>, UsageError> {
    let parquet = a.format == FormatArg::Parquet;
    match (&a.write, parquet) {
        (None, true) => Err(UsageError(
            "--format parquet writes files: give the directory with -w DIR".into(),
        )),
        (Some(_), false) => Err(UsageError("-w DIR takes --format parquet".into())),
        _ if parquet && (a.hex || a.line_buffered) => Err(UsageError(
            "--hex and -l take a text format, not --format parquet".into(),
        )),
        _ => Ok(a.write.clone()),
    }
}

/// `-2` reads the input twice: standard input is read once.
fn two_pass(args: &DecodeArgs) -> Result<bool, UsageError> {
    if args.two_pass && args.files.iter().any(|f| f == "-") {
        return Err(UsageError(
            "-2 reads the capture twice: give a file, not standard input".into(),
        ));
    }
    Ok(args.two_pass)
}

/// The inputs as given: `-` (standard input) only alone.
fn inputs(files: &[String]) -> Result<Vec<String>, UsageError> {
    if files.len() > 1 && files.iter().any(|f| f == "-") {
        return Err(UsageError(
            "- (standard input) is the only input when given: it cannot be read beside files"
                .into(),
        ));
    }
    Ok(files.to_vec())
}

/// The arguments of a command that reads one capture, checked to name one.
fn one_capture<'a>(args: &'a DecodeArgs, command: &str) -> Result<&'a DecodeArgs, UsageError> {
    if args.files.len() > 1 {
        return Err(UsageError(format!(
            "{command} reads one capture, not {} (dissect, stats and events take several)",
            args.files.len()
        )));
    }
    Ok(args)
}

/// The one input of checked arguments.
fn single_input(files: &[String]) -> Result<String, UsageError> {
    files
        .first()
        .cloned()
        .ok_or_else(|| UsageError("no capture given".into()))
}

/// Checks parsed arguments against the registry and resolves them into [`Settings`].
pub fn settings_from(cli: Cli, registry: &[&'static dyn Protocol]) -> Result<Settings, UsageError> {
    let decode = |args: &DecodeArgs| -> Result<Decode, UsageError> {
        Ok(Decode {
            inputs: inputs(&args.files)?,
            config: config_from(args, registry)?,
            quiet: args.quiet,
            two_pass: two_pass(args)?,
        })
    };
    Ok(match cli.command {
        Command::Dissect(a) => Settings::Dissect(Dissect {
            decode: decode(&a.decode)?,
            rendering: Rendering {
                format: a.format.into(),
                color: use_color(a.color),
                hex: a.hex,
                view: tree_view(&a, registry)?,
                fields: fields_spec(&a, registry)?,
            },
            threads: a.threads.map(usize::from),
            line_buffered: a.line_buffered,
            count: a.count,
            write: parquet_dir(&a)?,
        }),
        Command::Stats(a) => Settings::Stats {
            decode: decode(&a.decode)?,
            format: a.format.into(),
            threads: a.threads.map(usize::from),
            interval: match a.interval.as_deref() {
                None => None,
                Some(t) => Some(crate::output::interval::parse_interval(t).ok_or_else(|| {
                    UsageError(format!(
                        "--interval {t:?}: expected a duration from 1us to a year, such as 1s, 500ms or 2m"
                    ))
                })?),
            },
        },
        Command::Events(a) => {
            let d = decode(&a.decode)?;
            events_settings(a, d)?
        }
        Command::Tracks(a) => Settings::Tracks {
            decode: decode(one_capture(&a.decode, "tracks")?)?,
            format: a.format.into(),
        },
        Command::Demo(a) => {
            let args = DecodeArgs {
                files: vec![a.file.clone()],
                decode_as: a.decode_as.clone(),
                protocol: Vec::new(),
                frames: Vec::new(),
                no_heuristics: false,
                srb2_version: None,
                gamestudio_dialect: None,
                gamestudio_pos: None,
                filter: None,
                max_state: None,
                options: Vec::new(),
                quiet: a.quiet,
                two_pass: false,
            };
            let dir = a.dir.unwrap_or_else(|| ".".into());
            Settings::Demo {
                decode: decode(&args)?,
                dir: (!a.list).then_some(dir),
                single: a.single,
            }
        }
        Command::Protocols { format } => Settings::Protocols(format.into()),
        Command::Fields {
            protocol,
            markdown,
            parquet,
        } => fields_settings(protocol, markdown, parquet, registry)?,
        Command::Diff(a) => Settings::Diff(diff_settings(a, registry)?),
        Command::Report(a) => Settings::Report {
            output: report_output(&a)?,
            decode: decode(one_capture(&a.decode, "report")?)?,
        },
        Command::Annotate(a) => Settings::Annotate {
            output: annotate_output(&a)?,
            decode: decode(one_capture(&a.decode, "annotate")?)?,
        },
        Command::Completions { shell } => Settings::Completions(generate::completions(shell)),
        Command::Man { dir } => man_settings(dir),
    })
}

/// `man [-o DIR]`: the pages, made now, and where they go.
fn man_settings(dir: Option<std::path::PathBuf>) -> Settings {
    Settings::Man {
        dir: dir.unwrap_or_else(|| ".".into()),
        pages: generate::man_pages(),
    }
}

/// `annotate -w`: not a terminal (pcapng is binary), and not the capture being read (which
/// creating the output would empty first).
fn annotate_output(a: &AnnotateArgs) -> Result<String, UsageError> {
    if a.output == "-" {
        if io::stdout().is_terminal() {
            return Err(UsageError(
                "annotate writes binary pcapng: -w FILE, or -w - into a pipe (| tshark -r -)"
                    .into(),
            ));
        }
        return Ok(a.output.clone());
    }
    let same = |x: &str, y: &str| match (std::fs::canonicalize(x), std::fs::canonicalize(y)) {
        (Ok(x), Ok(y)) => x == y,
        _ => false,
    };
    if a.decode
        .files
        .iter()
        .any(|f| f != "-" && same(f, &a.output))
    {
        return Err(UsageError(format!(
            "-w {}: that is the capture being read",
            crate::text::escaped(&a.output)
        )));
    }
    Ok(a.output.clone())
}

/// The report's `-w FILE`. Without it, an `-o` that is not `KEY=VALUE` was most likely meant
/// as the output file (as in `report CAPTURE -o report.html`): say so rather than complain
/// about a decoder option.
fn report_output(a: &ReportArgs) -> Result<String, UsageError> {
    if let Some(out) = &a.output {
        return Ok(out.clone());
    }
    let hint = match a.decode.options.iter().find(|o| !o.contains('=')) {
        Some(o) => format!(" (-o sets decoder options KEY=VALUE: for the page, -w {o})"),
        None => String::new(),
    };
    Err(UsageError(format!(
        "report needs -w FILE, or -w - for standard output{hint}"
    )))
}

fn diff_settings(a: DiffArgs, registry: &[&'static dyn Protocol]) -> Result<Diff, UsageError> {
    let golden = single_input(&one_capture(&a.decode, "diff")?.files)?;
    let compare = CompareOptions {
        time: a.compare.contains(&CompareExtra::Time),
        time_tolerance: a.time_tolerance,
        addresses: a.compare.contains(&CompareExtra::Addresses),
        ignore: a.ignore,
        only: a.only,
        tolerances: a
            .tolerance
            .iter()
            .map(|t| {
                let (field, abs) = split_pair(t, "--tolerance", "FIELD=ABS")?;
                let abs = abs.parse::<f64>().ok().filter(|v| *v >= 0.0);
                abs.map(|v| (field.to_string(), v))
                    .ok_or_else(|| usage_pair(t, "--tolerance", "FIELD=ABS"))
            })
            .collect::<Result<_, _>>()?,
    };
    let pairs = a
        .pair
        .iter()
        .map(|p| {
            let (g, n) = split_pair(p, "--pair", "G=N")?;
            match (g.parse::<u64>(), n.parse::<u64>()) {
                (Ok(g), Ok(n)) => Ok((g, n)),
                _ => Err(usage_pair(p, "--pair", "G=N")),
            }
        })
        .collect::<Result<_, _>>()?;
    Ok(Diff {
        golden,
        new: a.new,
        options: DiffOptions {
            compare,
            window: a.window as usize,
            max: a.max,
            pairs,
            config: config_from(&a.decode, registry)?,
        },
        format: a.format.into(),
    })
}

fn usage_pair(value: &str, flag: &str, shape: &str) -> UsageError {
    UsageError(format!("{flag} takes {shape}, not {value:?}"))
}

/// `A=B` with both sides present.
fn split_pair<'a>(
    value: &'a str,
    flag: &str,
    shape: &str,
) -> Result<(&'a str, &'a str), UsageError> {
    value
        .split_once('=')
        .filter(|(a, b)| !a.is_empty() && !b.is_empty())
        .ok_or_else(|| usage_pair(value, flag, shape))
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
        let Ok(Settings::Stats { decode, .. }) =
            settings(&["stats", "--frames", "1,5,9-12", "--frames", "-3", "x"])
        else {
            panic!("stats settings expected");
        };
        let r = |first, last| FrameRange { first, last };
        assert_eq!(decode.config.frames, r(1, 12));
        assert_eq!(
            decode.config.frame_list,
            [r(1, 1), r(5, 5), r(9, 12), r(1, 3)]
        );
        assert!(settings(&["stats", "--frames", "3,", "x"]).is_err());
    }

    fn settings(args: &[&str]) -> Result<Settings, UsageError> {
        let argv = std::iter::once("gamedissect").chain(args.iter().copied());
        let cli = Cli::try_parse_from(argv).expect("arguments parse");
        settings_from(cli, &protocols::all())
    }

    #[test]
    fn stats_interval_is_a_checked_duration() {
        let Ok(Settings::Stats { interval, .. }) = settings(&["stats", "--interval", "500ms", "x"])
        else {
            panic!("stats settings expected");
        };
        assert_eq!(interval, Some(500_000_000));
        let Err(UsageError(e)) = settings(&["stats", "--interval", "0s", "x"]) else {
            panic!("a zero interval is a usage error");
        };
        assert!(e.contains("--interval"), "{e}");
    }

    #[test]
    fn tree_view_options_are_checked() {
        // A group of a registered protocol, named as a user types it.
        let group = protocols::quake3::fields::SVC.name;
        let args = ["dissect", "-f", "tree", "--expand", group, "--compact", "x"];
        let Ok(Settings::Dissect(d)) = settings(&args) else {
            panic!("dissect settings expected");
        };
        assert_eq!(d.rendering.view.expand, [group.to_string()]);
        assert!(d.rendering.view.compact);
        // A dotted prefix of fields is fine; half a name segment is not.
        assert!(settings(&["dissect", "-f", "tree", "--expand", "srb2", "x"]).is_ok());
        let half = &group[..group.len() - 1];
        assert!(settings(&["dissect", "-f", "tree", "--expand", half, "x"]).is_err());
        assert!(settings(&["dissect", "--expand", "quake3", "x"]).is_err());
        assert!(settings(&["dissect", "-f", "json", "--compact", "x"]).is_err());
        assert!(settings(&["dissect", "-f", "json", "--hex", "x"]).is_ok());
        let fields = [
            "dissect",
            "-f",
            "fields",
            "-e",
            "frame.number",
            "--hex",
            "x",
        ];
        assert!(settings(&fields).is_err());
    }

    #[test]
    fn settings_are_checked_and_resolved() {
        let args = [
            "dissect",
            "-f",
            "tree",
            "--hex",
            "--color",
            "never",
            "--threads",
            "2",
            "x",
        ];
        let Ok(Settings::Dissect(d)) = settings(&args) else {
            panic!("dissect settings expected");
        };
        assert_eq!(d.decode.inputs, ["x"]);
        assert_eq!(
            d.rendering,
            Rendering {
                format: OutputFormat::Tree,
                color: false,
                hex: true,
                view: TreeView::FULL,
                fields: None,
            }
        );
        assert_eq!(d.threads, Some(2));
        assert!(settings(&["stats", "--protocol", "doom", "-"]).is_err());
        assert!(settings(&["fields", "doom"]).is_err());
        assert!(matches!(
            settings(&["fields", "udp"]),
            Ok(Settings::Fields { .. })
        ));
        // An SRB2 release that is not tabulated, by either spelling.
        let option = |release: &str| format!("{}={release}", protocols::srb2::VERSION_PREF);
        for args in [
            &["dissect", "--srb2-version", "9.9", "-"][..],
            &["dissect", "-o", &option("2.3"), "-"][..],
        ] {
            let Err(UsageError(e)) = settings(args) else {
                panic!("{args:?} is a usage error");
            };
            assert!(e.contains("not tabulated"), "{e}");
        }
        assert!(settings(&["dissect", "-o", &option("2.2.13"), "-"]).is_ok());
        // The markdown reference takes the protocol too, checked the same way.
        assert!(settings(&["fields", "doom", "--markdown"]).is_err());
        assert!(settings(&["fields", "srb2", "--markdown"]).is_ok());
    }
}
