//! The commands, one module each, run from checked [`Settings`] (made by [`crate::cli`], the
//! only module that knows clap) to an exit code: `dissect` and `stats` here, and `events`,
//! `tracks`, `report`, `demo`, `diff`, `fields` and `protocols` in their modules.
//!
//! Exit codes: 0 success (also when the reader of our output goes away, as with `| head`),
//! 1 input error (unreadable, not a capture, cut off), 2 usage error (reported by `cli`).

use std::cell::RefCell;
use std::io::{self, BufWriter, Write};
use std::process::ExitCode;

pub mod demo;
pub mod diff;
pub mod events;
pub mod reference;
pub mod report;
pub mod tracks;

use crate::capture::{CaptureError, Input};
use crate::engine::{Config, Engine};
use crate::filter::Column;
use crate::output::{ListFormat, OutputFormat, Rendering};
use crate::protocols;
use crate::run::live::{self, FlushWhenIdle, Flushing, SharedOut};
use crate::run::parallel::{self, Tuning};
use crate::run::{Outcome, run_capture};
use crate::tree::FieldMask;

/// What the command line asks for, every argument checked: what [`run`] executes.
#[derive(Debug)]
pub enum Settings {
    Dissect(Dissect),
    Stats {
        decode: Decode,
        format: ListFormat,
        /// `--interval` in nanoseconds.
        interval: Option<u64>,
    },
    Events {
        decode: Decode,
        format: events::EventFormat,
        /// `--kind` selectors, each a known kind.
        kinds: Vec<String>,
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
    },
    Diff(diff::Diff),
    Report {
        decode: Decode,
        /// A file name, or `-` for standard output.
        output: String,
    },
}

/// The input and the engine configuration, shared by every command that decodes.
#[derive(Debug)]
pub struct Decode {
    /// A file name, or `-` for standard input.
    pub input: String,
    pub config: Config,
    /// `--quiet`: no progress bar.
    pub quiet: bool,
    /// `-2`: a first pass over the file, whose learning the decoding starts from.
    pub two_pass: bool,
}

#[derive(Debug)]
pub struct Dissect {
    pub decode: Decode,
    /// The output format, with colour already decided for this terminal and environment.
    pub rendering: Rendering,
    /// `None`: the default for this machine.
    pub threads: Option<usize>,
    /// Flush after every record, whatever the input.
    pub line_buffered: bool,
    /// `-c`: stop after this many records are written.
    pub count: Option<u64>,
}

/// Runs the command the settings describe and returns the process's exit code.
pub fn run(settings: Settings) -> ExitCode {
    match first_pass(settings) {
        Ok(settings) => run_second(settings),
        Err(code) => code,
    }
}

fn run_second(settings: Settings) -> ExitCode {
    match settings {
        Settings::Dissect(d) => dissect(d),
        Settings::Stats {
            decode,
            format,
            interval,
        } => stats(decode, format, interval),
        Settings::Events {
            decode,
            format,
            kinds,
        } => events(decode, format, kinds),
        Settings::Tracks { decode, format } => tracks(decode, format),
        Settings::Protocols(format) => list_protocols(format),
        Settings::Fields { protocol, markdown } => list_fields(protocol.as_deref(), markdown),
        Settings::Diff(d) => crate::commands::diff::command(&d),
        Settings::Demo {
            decode,
            dir,
            single,
        } => demo(decode, dir, single),
        Settings::Report { decode, output } => report(decode, &output),
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
        | Settings::Report { decode, .. } => decode,
        _ => return Ok(settings),
    };
    if !decode.two_pass {
        return Ok(settings);
    }
    let input = open_or_exit(&decode.input)?;
    // A FIFO or a device is read once (standard input is refused with the options).
    if input.file_len().is_none() {
        eprintln!(
            "gamedissect: {}: -2 reads the capture twice: give a regular file",
            decode.input
        );
        return Err(ExitCode::from(2));
    }
    // An input error is reported by the second pass, which meets it at the same place.
    let (learned, _) = crate::run::first_pass(input, &decode.config);
    decode.config.hindsight = Some(std::sync::Arc::new(learned));
    Ok(settings)
}

fn open_input(file: &str) -> Result<Input, String> {
    Input::open(file).map_err(|e| format!("gamedissect: {}: cannot open: {e}", input_name(file)))
}

fn input_name(file: &str) -> &str {
    if file == "-" { "<stdin>" } else { file }
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
    let name = input_name(file).to_string();
    move |e: &CaptureError| eprintln!("gamedissect: {name}: {e}")
}

/// What every whole-capture command (`events`, `tracks`, `demo`, `report`) starts from: the
/// opened input, its length for the progress bar, and the printer of skipped records.
type Opened<W> = (Input, Option<u64>, W);

fn open_decode(
    decode: &Decode,
) -> Result<Opened<impl FnMut(&CaptureError) + Send + 'static>, ExitCode> {
    let input = open_or_exit(&decode.input)?;
    let len = progress_total(&input, decode.quiet);
    Ok((input, len, warn_skipped(&decode.input)))
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

/// Ends the read loop once `-c` records are written (not an error: mapped back to success).
#[derive(Debug)]
struct CountReached;

impl std::fmt::Display for CountReached {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("record count reached")
    }
}

impl std::error::Error for CountReached {}

/// Whether the display filter reads decoded fields, which are then built even where the output
/// does not show them.
fn needs_tree(config: &Config) -> bool {
    config.filter.as_ref().is_some_and(|f| f.needs_tree())
}

/// For output that shows no tree, the trees a filter and `-e` columns read: only their fields
/// (see [`crate::filter::field_mask`]). Leaked as the fields spec is: one small mask per run.
fn field_mask(config: &Config, columns: &[Column]) -> Option<&'static FieldMask> {
    let mut names = config
        .filter
        .as_ref()
        .map(|f| f.field_names())
        .unwrap_or_default();
    names.extend(columns.iter().filter_map(Column::field_name));
    if names.is_empty() {
        return None;
    }
    let mask = crate::filter::field_mask(&names, &protocols::all());
    Some(Box::leak(Box::new(mask)))
}

fn dissect(args: Dissect) -> ExitCode {
    let Decode {
        input: file,
        config,
        quiet,
        ..
    } = args.decode;
    let field_mask = match args.rendering.format {
        _ if args.rendering.hex => None,
        OutputFormat::Summary => field_mask(&config, &[]),
        OutputFormat::Fields => field_mask(
            &config,
            args.rendering.fields.map_or(&[], |s| s.columns.as_slice()),
        ),
        OutputFormat::Tree | OutputFormat::Json => None,
    };
    let config = Config {
        field_mask,
        flow_stats: false,
        message_stats: false,
        // The summary's hex dumps show the decoders' extra buffers, which come with the trees.
        detail: needs_tree(&config)
            || args.rendering.hex
            || match args.rendering.format {
                OutputFormat::Summary => false,
                OutputFormat::Fields => args
                    .rendering
                    .fields
                    .is_some_and(|s| s.columns.iter().any(Column::needs_tree)),
                OutputFormat::Tree | OutputFormat::Json => true,
            },
        ..config
    };
    let mut input = match open_or_exit(&file) {
        Ok(x) => x,
        Err(code) => return code,
    };
    input.report_quiet(live::HOLD_QUIET);
    let len = progress_total(&input, quiet);
    let flushing = Flushing::choose(args.line_buffered, input.is_live());
    let warn = warn_skipped(&file);
    let mut out = BufWriter::with_capacity(1 << 16, io::stdout().lock());
    // The header goes first, whoever writes the records (every decoding thread has a writer).
    if let Some(spec) = args.rendering.fields.filter(|s| s.header)
        && let Err(e) = out.write_all(spec.header_line().as_bytes())
    {
        return finish_outcome(&file, Outcome::Output(e));
    }
    // `-c` stops at a record count: one thread, which knows when it has written them.
    let threads = match args.count {
        Some(_) => 1,
        None => args.threads.unwrap_or_else(parallel::default_shards),
    };
    if threads > 1 {
        let tuning = Tuning::for_format(args.rendering.format);
        let outcome = parallel::dissect_sharded(
            Box::new(input),
            len,
            config,
            threads,
            args.rendering,
            &mut out,
            warn,
            tuning,
            flushing,
        );
        return finish_outcome(&file, outcome);
    }
    let how = OneThread {
        rendering: args.rendering,
        count: args.count,
        flushing,
    };
    let outcome = dissect_one_thread(input, len, config, how, out, warn);
    finish_outcome(&file, outcome)
}

/// How `dissect` writes on the calling thread.
struct OneThread {
    rendering: crate::output::Rendering,
    /// `-c`: stop after this many records.
    count: Option<u64>,
    flushing: Flushing,
}

/// `dissect` on the calling thread: flushed as `flushing` says, stopped after `-c` records.
fn dissect_one_thread(
    input: Input,
    len: Option<u64>,
    config: Config,
    how: OneThread,
    out: BufWriter<io::StdoutLock<'static>>,
    mut warn: impl FnMut(&CaptureError),
) -> Outcome {
    let OneThread {
        rendering,
        count,
        flushing,
    } = how;
    let out = RefCell::new(out);
    let mut writer = rendering.writer(SharedOut(&out));
    let input = FlushWhenIdle {
        input,
        out: &out,
        flush: flushing != Flushing::AtEnd,
    };
    let each = flushing == Flushing::EachRecord;
    let mut engine = Engine::new(protocols::all(), config);
    let (mut written, limit) = (0u64, count.unwrap_or(u64::MAX));
    let mut outcome = run_capture(input, &mut engine, len, &mut warn, &mut |m, r| {
        writer.record(m, r)?;
        if each {
            out.borrow_mut().flush()?;
        }
        written += 1;
        if written >= limit {
            return Err(io::Error::other(CountReached));
        }
        Ok(())
    });
    if let Outcome::Output(e) = &outcome
        && e.get_ref().is_some_and(|e| e.is::<CountReached>())
    {
        outcome = Outcome::Done;
    }
    if let Err(e) = writer.finish()
        && !matches!(outcome, Outcome::InputError(_))
    {
        outcome = Outcome::Output(e);
    }
    outcome
}

/// `stats`, or with `--interval` the counts per interval (the sink counts each printed record).
fn stats(decode: Decode, format: ListFormat, interval: Option<u64>) -> ExitCode {
    let Decode {
        input: file,
        config,
        quiet,
        ..
    } = decode;
    let config = Config {
        detail: needs_tree(&config),
        field_mask: field_mask(&config, &[]),
        ..config
    };
    let input = match open_or_exit(&file) {
        Ok(x) => x,
        Err(code) => return code,
    };
    let len = progress_total(&input, quiet);
    let mut engine = Engine::new(protocols::all(), config);
    let mut warn = warn_skipped(&file);
    let out = BufWriter::new(io::stdout().lock());
    if let Some(width_ns) = interval {
        let mut counts = crate::output::interval::IntervalStats::new(width_ns, format, out);
        let outcome = run_capture(input, &mut engine, len, &mut warn, &mut |m, r| {
            counts.record(m, r)
        });
        return match (outcome, counts.finish()) {
            (Outcome::Done, Err(e)) => finish_outcome(&file, Outcome::Output(e)),
            (o, _) => finish_outcome(&file, o),
        };
    }
    let outcome = run_capture(input, &mut engine, len, &mut warn, &mut |_, _| Ok(()));
    // A file that could not be read at all has no statistics: an all-zero report would read as
    // an empty capture.
    let nothing_read = engine.stats().frames == 0 && engine.stats().bad_records == 0;
    if nothing_read && matches!(outcome, Outcome::InputError(_)) {
        return finish_outcome(&file, outcome);
    }
    let selected = crate::output::stats::frames_selected(engine.config(), engine.stats().frames);
    let written = match format {
        ListFormat::Text => crate::output::stats::write_text(out, engine.stats(), selected),
        ListFormat::Json => crate::output::stats::write_json(out, engine.stats(), selected),
    };
    match (outcome, written) {
        (Outcome::Done, Err(e)) => finish_outcome(&file, Outcome::Output(e)),
        (o, _) => finish_outcome(&file, o),
    }
}

fn events(
    decode: Decode,
    format: crate::commands::events::EventFormat,
    kinds: Vec<String>,
) -> ExitCode {
    let (input, len, mut warn) = match open_decode(&decode) {
        Ok(opened) => opened,
        Err(code) => return code,
    };
    let out = io::stdout().lock();
    let outcome = crate::commands::events::run::events(
        input,
        len,
        decode.config,
        kinds,
        format,
        out,
        &mut warn,
    );
    finish_outcome(&decode.input, outcome)
}

fn tracks(decode: Decode, format: crate::commands::tracks::TrackFormat) -> ExitCode {
    let (input, len, mut warn) = match open_decode(&decode) {
        Ok(opened) => opened,
        Err(code) => return code,
    };
    let out = io::stdout().lock();
    let outcome =
        crate::commands::tracks::tracks(input, len, decode.config, format, out, &mut warn);
    finish_outcome(&decode.input, outcome)
}

fn demo(decode: Decode, dir: Option<std::path::PathBuf>, single: bool) -> ExitCode {
    use crate::commands::demo::Target;
    let (input, len, mut warn) = match open_decode(&decode) {
        Ok(opened) => opened,
        Err(code) => return code,
    };
    if let Some(d) = &dir
        && let Err(e) = std::fs::create_dir_all(d)
    {
        eprintln!("gamedissect: {}: cannot create: {e}", d.display());
        return ExitCode::from(1);
    }
    let target = dir.clone().map_or(Target::List, Target::Dir);
    let (report, outcome) =
        crate::commands::demo::demos(input, len, decode.config, target, single, &mut warn);
    let mut out = io::stdout().lock();
    let written = crate::commands::demo::write_report(&mut out, &report, dir.as_deref());
    match (outcome, written.and_then(|_| out.flush())) {
        (Outcome::Done, Err(e)) => finish_outcome(&decode.input, Outcome::Output(e)),
        (o, _) => finish_outcome(&decode.input, o),
    }
}

fn report(decode: Decode, output: &str) -> ExitCode {
    let (input, len, mut warn) = match open_decode(&decode) {
        Ok(opened) => opened,
        Err(code) => return code,
    };
    let outcome = crate::commands::report::command(input, len, &decode, output, &mut warn);
    finish_outcome(&decode.input, outcome)
}

fn list_protocols(format: ListFormat) -> ExitCode {
    let registry = protocols::all();
    let mut out = BufWriter::new(io::stdout().lock());
    let written = match format {
        ListFormat::Json => reference::protocols_json(&mut out, &registry),
        ListFormat::Text => reference::protocols_text(&mut out, &registry),
    };
    finish_listing(written, &mut out)
}

/// `fields`: the markdown reference, or one line per field (of one protocol, already checked to
/// exist).
fn list_fields(protocol: Option<&str>, markdown: bool) -> ExitCode {
    let registry = protocols::all();
    let mut out = BufWriter::new(io::stdout().lock());
    let written = if markdown {
        out.write_all(reference::fields_markdown_for(&registry, protocol).as_bytes())
    } else {
        reference::fields_text(&mut out, &registry, protocol)
    };
    finish_listing(written, &mut out)
}
