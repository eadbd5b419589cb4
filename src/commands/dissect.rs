//! `dissect` and `stats`: every message of a capture written in one of the output formats, on
//! one thread or several, and the counts of a whole capture or per interval.

use std::cell::RefCell;
use std::io::{self, BufWriter, Write};
use std::process::ExitCode;

use super::{Decode, finish_outcome, open_or_exit, progress_total, warn_skipped};
use crate::capture::{CaptureError, Input};
use crate::engine::{Config, Engine};
use crate::filter::Column;
use crate::output::parquet::ParquetSink;
use crate::output::parquet::columns::Misfits;
use crate::output::{CaptureName, ListFormat, OutputFormat, Rendering};
use crate::protocols;
use crate::run::live::{self, FlushWhenIdle, Flushing, SharedOut};
use crate::run::parallel::{self, Tuning};
use crate::run::{Outcome, run_capture};
use crate::tree::FieldMask;

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
    /// `-w`: the directory Parquet goes into (only with `--format parquet`).
    pub write: Option<std::path::PathBuf>,
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

/// Counts a written record; [`CountReached`] once `limit` are written.
fn count_one(written: &mut u64, limit: u64) -> io::Result<()> {
    *written += 1;
    if *written >= limit {
        return Err(io::Error::other(CountReached));
    }
    Ok(())
}

/// A run stopped by [`CountReached`] is a run that did what was asked.
fn done_at_count(outcome: Outcome) -> Outcome {
    match &outcome {
        Outcome::Output(e) if e.get_ref().is_some_and(|e| e.is::<CountReached>()) => Outcome::Done,
        _ => outcome,
    }
}

/// Whether the display filter reads decoded fields, which are then built even where the output
/// does not show them.
pub(super) fn needs_tree(config: &Config) -> bool {
    config.filter.as_ref().is_some_and(|f| f.needs_tree())
}

/// For output that shows no tree, the trees a filter and `-e` columns read: only their fields
/// (see [`crate::filter::field_mask`]). Leaked as the fields spec is: one small mask per run.
pub(super) fn field_mask(config: &Config, columns: &[Column]) -> Option<&'static FieldMask> {
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

/// The engine configuration `dissect` decodes with for `rendering`: field trees built only where
/// the output or the filter reads them.
pub(super) fn config_for(config: Config, rendering: &Rendering) -> Config {
    let field_mask = match rendering.format {
        _ if rendering.hex => None,
        OutputFormat::Summary => field_mask(&config, &[]),
        OutputFormat::Fields => field_mask(
            &config,
            rendering.fields.map_or(&[], |s| s.columns.as_slice()),
        ),
        OutputFormat::Tree | OutputFormat::Json | OutputFormat::Parquet => None,
    };
    Config {
        field_mask,
        flow_stats: false,
        message_stats: false,
        // The summary's hex dumps show the decoders' extra buffers, which come with the trees.
        detail: needs_tree(&config)
            || rendering.hex
            || match rendering.format {
                OutputFormat::Summary => false,
                OutputFormat::Fields => rendering
                    .fields
                    .is_some_and(|s| s.columns.iter().any(Column::needs_tree)),
                OutputFormat::Tree | OutputFormat::Json | OutputFormat::Parquet => true,
            },
        ..config
    }
}

/// The first line of `--format fields -E header=y` (nothing otherwise), written once, before
/// any record.
pub(super) fn header(rendering: &Rendering) -> Option<String> {
    rendering
        .fields
        .filter(|s| s.header)
        .map(|spec| spec.header_line())
}

pub(super) fn dissect(args: Dissect) -> ExitCode {
    let file = args.decode.input().to_string();
    let config = config_for(args.decode.config, &args.rendering);
    let mut input = match open_or_exit(&file) {
        Ok(x) => x,
        Err(code) => return code,
    };
    if let Some(dir) = args.write.as_deref() {
        let len = progress_total(&input, args.decode.quiet);
        return dissect_parquet(input, len, config, dir, &file, args.count);
    }
    input.report_quiet(live::HOLD_QUIET);
    let len = progress_total(&input, args.decode.quiet);
    let flushing = Flushing::choose(args.line_buffered, input.is_live());
    let warn = warn_skipped(&file);
    let mut out = BufWriter::with_capacity(1 << 16, io::stdout().lock());
    // The header goes first, whoever writes the records (every decoding thread has a writer).
    if let Some(line) = header(&args.rendering)
        && let Err(e) = out.write_all(line.as_bytes())
    {
        return finish_outcome(&file, Outcome::Output(e));
    }
    let capture = CaptureName {
        name: file.clone(),
        keyed: false,
    };
    // `-c` stops at a record count: one thread, which knows when it has written them.
    let threads = match args.count {
        Some(_) => 1,
        None => args.threads.unwrap_or_else(parallel::default_shards),
    };
    if threads > 1 {
        let tuning = Tuning::for_format(args.rendering.format);
        let outcome = parallel::dissect_sharded(
            (Box::new(input), &capture),
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
        capture,
    };
    let (outcome, _) = dissect_one_thread(input, len, config, how, out, warn);
    finish_outcome(&file, outcome)
}

/// `dissect --format parquet -w DIR`: decoded on this thread, encoded on another (see
/// [`crate::output::parquet`]); `--threads` does not apply.
fn dissect_parquet(
    input: Input,
    len: Option<u64>,
    config: Config,
    dir: &std::path::Path,
    file: &str,
    count: Option<u64>,
) -> ExitCode {
    let Some(mut sink) = parquet_sink(dir, file) else {
        return ExitCode::from(2);
    };
    let (outcome, _) = parquet_capture(&mut sink, input, len, config, file, count);
    finish_outcome(file, finish_parquet(sink, outcome))
}

/// The Parquet writer for `dir`, its rows naming `capture`; `None` when it cannot write
/// there (said on stderr).
pub(super) fn parquet_sink(dir: &std::path::Path, capture: &str) -> Option<ParquetSink> {
    super::files_in(dir, ParquetSink::new(dir, capture, &protocols::all()))
}

/// Decodes one capture into `sink`, stopping after `count` records: how the read ended and
/// how many records it wrote.
pub(super) fn parquet_capture(
    sink: &mut ParquetSink,
    input: Input,
    len: Option<u64>,
    config: Config,
    file: &str,
    count: Option<u64>,
) -> (Outcome, u64) {
    let mut warn = warn_skipped(file);
    let mut engine = Engine::new(protocols::all(), config);
    let (mut written, limit) = (0u64, count.unwrap_or(u64::MAX));
    let outcome = run_capture(input, &mut engine, len, &mut warn, &mut |m, r| {
        sink.record(m, r)?;
        count_one(&mut written, limit)
    });
    (done_at_count(outcome), written)
}

/// Writes the files' last rows and footers, and says what did not fit; the run's outcome.
pub(super) fn finish_parquet(sink: ParquetSink, outcome: Outcome) -> Outcome {
    let closed = sink.finish().map(|w| warn_misfits(&w.misfits));
    super::with_files_closed(outcome, closed)
}

/// What the Parquet schema could not hold, said once at the end (a decoder that places a field
/// where the registry does not declare it is a bug; tests keep the shipped captures at zero).
fn warn_misfits(m: &Misfits) {
    if m.dropped > 0 {
        eprintln!(
            "gamedissect: {} values had no column in the Parquet schema and were left out",
            m.dropped
        );
    }
    if m.lossy > 0 {
        eprintln!(
            "gamedissect: {} texts were not UTF-8: written to Parquet with U+FFFD for bad bytes",
            m.lossy
        );
    }
}

/// How `dissect` writes on the calling thread.
pub(super) struct OneThread {
    pub rendering: crate::output::Rendering,
    /// `-c`: stop after this many records.
    pub count: Option<u64>,
    pub flushing: Flushing,
    pub capture: CaptureName,
}

/// `dissect` on the calling thread: flushed as `flushing` says, stopped after `-c` records.
/// Returns how the run ended and how many records it wrote.
pub(super) fn dissect_one_thread<W: Write>(
    input: Input,
    len: Option<u64>,
    config: Config,
    how: OneThread,
    out: W,
    mut warn: impl FnMut(&CaptureError),
) -> (Outcome, u64) {
    let OneThread {
        rendering,
        count,
        flushing,
        capture,
    } = how;
    let out = RefCell::new(out);
    let mut writer = rendering.writer_for(SharedOut(&out), &capture);
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
        count_one(&mut written, limit)
    });
    outcome = done_at_count(outcome);
    if let Err(e) = writer.finish()
        && !matches!(outcome, Outcome::InputError(_))
    {
        outcome = Outcome::Output(e);
    }
    (outcome, written)
}

/// The engine configuration of `stats`: field trees only for what a filter reads.
pub(super) fn stats_config(config: Config) -> Config {
    Config {
        detail: needs_tree(&config),
        field_mask: field_mask(&config, &[]),
        ..config
    }
}

/// `stats`, or with `--interval` the counts per interval (the sink counts each printed record).
pub(super) fn stats(decode: Decode, format: ListFormat, interval: Option<u64>) -> ExitCode {
    let file = decode.input().to_string();
    let Decode { config, quiet, .. } = decode;
    let config = stats_config(config);
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
