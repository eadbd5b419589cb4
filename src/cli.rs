//! The command line: turns arguments into [`Settings`], a plain value with every choice checked
//! and resolved. It decodes nothing and writes nothing; [`crate::run`] does, from the settings.
//!
//! Usage errors (exit code 2) are reported here, before any input is opened.

use std::io::{self, IsTerminal};
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::engine::{Config, DecodeAs, FrameRange};
use crate::output::{OutputFormat, Rendering};
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
    /// Memory budget for the decoders' per-flow state, e.g. 64M or 2G (default 256M); past it
    /// the least recently active flows' state is dropped, with a note and a count in `stats`
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    pub max_state: Option<usize>,
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
    if let Some(m) = args.max_state {
        cfg.max_state = m;
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

/// What the command line asks for, every argument checked: what [`crate::run::run`] executes.
#[derive(Debug)]
pub enum Settings {
    Dissect(Dissect),
    Stats {
        decode: Decode,
        format: ListFormat,
    },
    Protocols(ListFormat),
    Fields {
        /// Only this protocol's fields (a known name).
        protocol: Option<String>,
        markdown: bool,
    },
}

/// The input and the engine configuration, shared by every command that decodes.
#[derive(Debug)]
pub struct Decode {
    /// A file name, or `-` for standard input.
    pub input: String,
    pub config: Config,
}

#[derive(Debug)]
pub struct Dissect {
    pub decode: Decode,
    /// The output format, with colour already decided for this terminal and environment.
    pub rendering: Rendering,
    /// `None`: the default for this machine.
    pub threads: Option<usize>,
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

/// Checks parsed arguments against the registry and resolves them into [`Settings`].
pub fn settings_from(cli: Cli, registry: &[&'static dyn Protocol]) -> Result<Settings, UsageError> {
    let decode = |args: &DecodeArgs| -> Result<Decode, UsageError> {
        Ok(Decode {
            input: args.file.clone(),
            config: config_from(args, registry)?,
        })
    };
    Ok(match cli.command {
        Command::Dissect(a) => Settings::Dissect(Dissect {
            decode: decode(&a.decode)?,
            rendering: Rendering {
                format: a.format,
                color: use_color(a.color),
                hex: a.hex,
            },
            threads: a.threads.map(usize::from),
        }),
        Command::Stats(a) => Settings::Stats {
            decode: decode(&a.decode)?,
            format: a.format,
        },
        Command::Protocols { format } => Settings::Protocols(format),
        Command::Fields { protocol, markdown } => {
            // The markdown reference is always whole: a protocol name there was never checked.
            if let Some(p) = &protocol
                && !markdown
                && p != "udp"
                && protocols::index_of(registry, p).is_none()
            {
                return Err(UsageError(format!(
                    "unknown protocol {p:?} (known: {})",
                    protocol_names(registry)
                )));
            }
            Settings::Fields { protocol, markdown }
        }
    })
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
    }

    fn settings(args: &[&str]) -> Result<Settings, UsageError> {
        let argv = std::iter::once("gamedissect").chain(args.iter().copied());
        let cli = Cli::try_parse_from(argv).expect("arguments parse");
        settings_from(cli, &protocols::all())
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
        assert_eq!(d.decode.input, "x");
        assert_eq!(
            d.rendering,
            Rendering {
                format: OutputFormat::Tree,
                color: false,
                hex: true
            }
        );
        assert_eq!(d.threads, Some(2));
        assert!(settings(&["stats", "--protocol", "doom", "-"]).is_err());
        assert!(settings(&["fields", "doom"]).is_err());
        assert!(matches!(
            settings(&["fields", "udp"]),
            Ok(Settings::Fields { .. })
        ));
        // The markdown reference is whole whatever the name.
        assert!(settings(&["fields", "doom", "--markdown"]).is_ok());
    }
}
