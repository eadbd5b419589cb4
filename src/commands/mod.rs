//! The commands, one module each, run from checked [`Settings`] (made by [`crate::cli`], the
//! only module that knows clap) to an exit code: `dissect` and `stats` here, and `events`,
//! `tracks`, `report`, `demo`, `diff`, `annotate`, `fields` and `protocols` in their modules.
//!
//! Exit codes: 0 success (also when the reader of our output goes away, as with `| head`),
//! 1 input error (unreadable, not a capture, cut off), 2 usage error (reported by `cli`).

use std::borrow::Cow;
use std::io::{self, Write};
use std::process::ExitCode;

use crate::text::escaped;

mod annotate;
pub mod demo;
pub mod diff;
mod dissect;
pub mod events;
mod inputs;
mod many;
pub mod reference;
pub mod report;
pub mod tracks;

pub use dissect::Dissect;

use crate::capture::{CaptureError, Input};
use crate::engine::Config;
use crate::output::ListFormat;
use crate::run::Outcome;
use crate::run::live;

/// What the command line asks for, every argument checked: what [`run`] executes.
#[derive(Debug)]
pub enum Settings {
    Dissect(dissect::Dissect),
    Stats {
        decode: Decode,
        format: ListFormat,
        /// `--interval` in nanoseconds.
        interval: Option<u64>,
        /// With several captures, how many are decoded at once (`None`: the default).
        threads: Option<usize>,
    },
    Events {
        decode: Decode,
        format: events::EventFormat,
        /// `--kind` selectors, each a known kind.
        kinds: Vec<String>,
        /// With several captures, how many are decoded at once (`None`: the default).
        threads: Option<usize>,
        /// `-w`: the directory Parquet goes into (with `--format parquet`).
        write: Option<std::path::PathBuf>,
    },
    Tracks {
        decode: Decode,
        format: tracks::TrackFormat,
    },
    Demo {
        decode: Decode,
        /// `None` with `--list`: nothing is written.
        dir: Option<std::path::PathBuf>,
        single: bool,
    },
    Protocols(ListFormat),
    Fields {
        /// Only this protocol's fields (a known name).
        protocol: Option<String>,
        markdown: bool,
        /// The Parquet reference instead (docs/parquet.md).
        parquet: bool,
    },
    Diff(diff::Diff),
    Report {
        decode: Decode,
        /// A file name, or `-` for standard output.
        output: String,
    },
    Annotate {
        decode: Decode,
        /// The pcapng to write: a file name, or `-` for standard output.
        output: String,
    },
    /// A shell's completion script, made by `cli`, for standard output.
    Completions(Vec<u8>),
    /// Man pages made by `cli` (file name, roff text), for `dir`.
    Man {
        dir: std::path::PathBuf,
        pages: Vec<(String, Vec<u8>)>,
    },
}

/// The inputs and the engine configuration, shared by every command that decodes.
#[derive(Debug)]
pub struct Decode {
    /// File or directory names as given, or `-` (standard input, then the only one). Commands
    /// that read one capture have exactly one ([`Decode::input`]).
    pub inputs: Vec<String>,
    pub config: Config,
    /// `--quiet`: no progress bar.
    pub quiet: bool,
    /// `-2`: a first pass over the file, whose learning the decoding starts from.
    pub two_pass: bool,
}

impl Decode {
    /// The input of a command that reads one capture (the first, should there be more).
    pub fn input(&self) -> &str {
        one_input(&self.inputs)
    }

    /// Whether the inputs are several captures: more than one name, or a directory (whatever it
    /// holds, so that the output's shape does not depend on how many files it has).
    pub fn several(&self) -> bool {
        let one = self.input();
        self.inputs.len() > 1 || (one != "-" && std::path::Path::new(one).is_dir())
    }
}

/// [`Decode::input`] of `inputs`, for where the configuration has been moved out of its
/// [`Decode`].
fn one_input(inputs: &[String]) -> &str {
    inputs.first().map_or("-", String::as_str)
}

/// Runs the command the settings describe and returns the process's exit code.
pub fn run(settings: Settings) -> ExitCode {
    if many::several(&settings) {
        return many::run(settings);
    }
    match first_pass(settings) {
        Ok(settings) => run_second(settings),
        Err(code) => code,
    }
}

fn run_second(settings: Settings) -> ExitCode {
    match settings {
        Settings::Dissect(d) => dissect::dissect(d),
        Settings::Stats {
            decode,
            format,
            interval,
            ..
        } => dissect::stats(decode, format, interval),
        Settings::Events {
            decode,
            kinds,
            write: Some(dir),
            ..
        } => events::parquet_command(decode, kinds, &dir),
        Settings::Events {
            decode,
            format,
            kinds,
            ..
        } => events::command(decode, format, kinds),
        Settings::Tracks { decode, format } => tracks::command(decode, format),
        Settings::Protocols(format) => reference::protocols(format),
        Settings::Fields {
            protocol,
            markdown,
            parquet,
        } => reference::fields(protocol.as_deref(), markdown, parquet),
        Settings::Diff(d) => crate::commands::diff::command(&d),
        Settings::Demo {
            decode,
            dir,
            single,
        } => demo::command(decode, dir, single),
        Settings::Report { decode, output } => report::run(decode, &output),
        Settings::Annotate { decode, output } => annotate::command(decode, &output),
        Settings::Completions(script) => {
            let mut out = io::stdout().lock();
            let written = out.write_all(&script);
            finish_listing(written, &mut out)
        }
        Settings::Man { dir, pages } => reference::man_pages(&dir, &pages),
    }
}

/// `-2`: reads the capture file once without output, and hands what its flows' decoders learned
/// to the run that follows (docs/architecture.md, two-pass analysis).
fn first_pass(mut settings: Settings) -> Result<Settings, ExitCode> {
    let decode = match &mut settings {
        Settings::Dissect(d) => &mut d.decode,
        Settings::Stats { decode, .. }
        | Settings::Events { decode, .. }
        | Settings::Tracks { decode, .. }
        | Settings::Report { decode, .. }
        | Settings::Annotate { decode, .. } => decode,
        _ => return Ok(settings),
    };
    if !decode.two_pass {
        return Ok(settings);
    }
    let input = open_or_exit(decode.input())?;
    // A FIFO or a device is read once (standard input is refused with the options).
    if input.file_len().is_none() {
        eprintln!(
            "gamedissect: {}: -2 reads the capture twice: give a regular file",
            input_name(decode.input())
        );
        return Err(ExitCode::from(2));
    }
    // An input error is reported by the second pass, which meets it at the same place.
    let (learned, _) = crate::run::first_pass(input, &decode.config);
    decode.config.hindsight = Some(std::sync::Arc::new(learned));
    Ok(settings)
}

fn open_input(file: &str) -> Result<Input, String> {
    Input::open(file).map_err(|e| {
        let e = escaped(&e.to_string()).into_owned();
        format!("gamedissect: {}: cannot open: {e}", input_name(file))
    })
}

/// The input as error messages name it, its control characters escaped as every text writer
/// does ([`crate::text::push_escaped`]).
fn input_name(file: &str) -> Cow<'_, str> {
    if file == "-" {
        Cow::Borrowed("<stdin>")
    } else {
        escaped(file)
    }
}

/// An error's text with its control characters escaped: a capture error can quote the file.
fn error_text(e: &impl std::fmt::Display) -> String {
    escaped(&e.to_string()).into_owned()
}

/// Opens the input, or reports why not and gives the exit code.
fn open_or_exit(file: &str) -> Result<Input, ExitCode> {
    // Installed before a FIFO's open, which waits for its writer.
    let _ = live::stop_on_signals();
    open_input(file).map_err(|msg| {
        eprintln!("{msg}");
        ExitCode::from(1)
    })
}

/// The input's length for the progress bar, or `None` for no bar (`--quiet`, or not a file).
fn progress_total(input: &Input, quiet: bool) -> Option<u64> {
    input.file_len().filter(|_| !quiet)
}

/// Reports a skipped record or a link type that cannot be read on stderr, naming the input.
fn warn_skipped(file: &str) -> impl FnMut(&CaptureError) + Send + 'static {
    let name = input_name(file).into_owned();
    move |e: &CaptureError| eprintln!("gamedissect: {name}: {}", error_text(e))
}

/// What every whole-capture command (`events`, `tracks`, `demo`, `report`) starts from: the
/// opened input, its length for the progress bar, and the printer of skipped records.
type Opened<W> = (Input, Option<u64>, W);

fn open_decode(
    decode: &Decode,
) -> Result<Opened<impl FnMut(&CaptureError) + Send + 'static>, ExitCode> {
    let input = open_or_exit(decode.input())?;
    let len = progress_total(&input, decode.quiet);
    Ok((input, len, warn_skipped(decode.input())))
}

/// A writer of files under `dir` (Parquet), or `None` with why said on stderr.
fn files_in<T>(dir: &std::path::Path, made: io::Result<T>) -> Option<T> {
    made.inspect_err(|e| eprintln!("gamedissect: {}: {e}", dir.display()))
        .ok()
}

/// The outcome of a run that wrote files, once they are `closed`: a writing error is the run's
/// when the input ended well; after an input error it is said too, as the files lack footers.
fn with_files_closed(outcome: Outcome, closed: io::Result<()>) -> Outcome {
    match (closed, outcome) {
        (Err(e), Outcome::Done) => Outcome::Output(e),
        (Err(e), outcome) => {
            eprintln!("gamedissect: writing Parquet: {e}");
            outcome
        }
        (Ok(()), outcome) => outcome,
    }
}

fn finish_outcome(file: &str, outcome: Outcome) -> ExitCode {
    // A signal ended the input wherever it was: a cut record there is our doing, not the file's.
    if let Some(code) = live::stopped_exit_code() {
        if let Outcome::Output(e) = &outcome
            && e.kind() != io::ErrorKind::BrokenPipe
        {
            eprintln!("gamedissect: writing output: {e}");
        }
        return ExitCode::from(code);
    }
    match outcome {
        Outcome::Done => ExitCode::SUCCESS,
        Outcome::InputError(e) => {
            eprintln!("gamedissect: {}: {}", input_name(file), error_text(&e));
            ExitCode::from(1)
        }
        Outcome::Output(e) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Outcome::Output(e) => {
            eprintln!("gamedissect: writing output: {e}");
            ExitCode::from(1)
        }
    }
}

/// The end of a listing (`protocols`, `fields`): flushed, and mapped to an exit code.
fn finish_listing(written: io::Result<()>, out: &mut impl Write) -> ExitCode {
    finish_outcome(
        "-",
        match written.and_then(|_| out.flush()) {
            Ok(()) => Outcome::Done,
            Err(e) => Outcome::Output(e),
        },
    )
}
