//! `dissect`, `stats` and `events` over several captures (docs/output.md, "Several captures"):
//! each capture decoded alone by an engine of its own (flows never span captures), one capture
//! a thread ([`crate::run::many`]), and the outputs written in the captures' order exactly as
//! if each had been run alone, each record naming its capture. `stats` adds the captures up.
//!
//! A capture that cannot be read is reported on stderr when its turn to be written comes, and
//! the others are still decoded; the run then ends with exit code 1.

use std::cell::RefCell;
use std::io::{self, BufWriter, Write};
use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use super::dissect::{self, OneThread};
use super::inputs::{self, Capture};
use super::{Decode, Settings, error_text, finish_outcome, warn_skipped};
use crate::capture::Input;
use crate::commands::events::{self, EventFormat, EventWriter};
use crate::engine::{Config, Engine, Stats};
use crate::output::interval::IntervalStats;
use crate::output::stats::Combined;
use crate::output::{CaptureName, ListFormat, OutputFormat, Rendering};
use crate::protocols;
use crate::run::live::{self, Flushing};
use crate::run::many::{Done, Sizes, in_order};
use crate::run::{Outcome, parallel, run_capture};
use crate::text::escaped;

/// Whether `settings` are of a command that reads several captures, naming several.
pub(super) fn several(settings: &Settings) -> bool {
    match settings {
        Settings::Dissect(d) => d.decode.several(),
        Settings::Stats { decode, .. } | Settings::Events { decode, .. } => decode.several(),
        _ => false,
    }
}

/// Runs `settings` of a command that reads several captures ([`several`]).
pub(super) fn run(settings: Settings) -> ExitCode {
    let decode = match &settings {
        Settings::Dissect(d) => &d.decode,
        Settings::Stats { decode, .. } | Settings::Events { decode, .. } => decode,
        _ => return super::run_second(settings),
    };
    let _ = live::stop_on_signals();
    let (captures, failed) = match found(&decode.inputs) {
        Ok(found) => found,
        Err(code) => return code,
    };
    let jobs = |decode: Decode, threads: Option<usize>| Jobs {
        captures,
        threads: threads.unwrap_or_else(parallel::default_shards),
        config: decode.config,
        two_pass: decode.two_pass,
        failed: AtomicBool::new(failed),
    };
    match settings {
        Settings::Dissect(d) if d.write.is_some() => {
            let dir = d.write.clone().unwrap_or_default();
            parquet(jobs(d.decode, Some(1)), &d.rendering, &dir, d.count)
        }
        Settings::Dissect(d) => {
            let jobs = jobs(d.decode, d.threads);
            let how = (d.rendering, d.count, d.line_buffered);
            dissect(jobs, how)
        }
        Settings::Stats {
            decode,
            format,
            interval: None,
            threads,
        } => stats(jobs(decode, threads), format),
        Settings::Stats {
            decode,
            format,
            interval: Some(width),
            threads,
        } => intervals(jobs(decode, threads), format, width),
        Settings::Events {
            decode,
            kinds,
            write: Some(dir),
            ..
        } => events_parquet(jobs(decode, Some(1)), kinds, &dir),
        Settings::Events {
            decode,
            format,
            kinds,
            threads,
            write: None,
        } => events(jobs(decode, threads), format, kinds),
        other => super::run_second(other),
    }
}

/// The captures the inputs name, and whether any input was an error (a directory that cannot
/// be read or holds no capture), which is said on stderr here.
fn found(names: &[String]) -> Result<(Vec<Capture>, bool), ExitCode> {
    let (captures, errors) = inputs::expand(names).map_err(|e| {
        eprintln!("gamedissect: {e}");
        ExitCode::from(1)
    })?;
    for e in &errors {
        eprintln!("gamedissect: {e}");
    }
    let mut failed = !errors.is_empty();
    for dir in names.iter().filter(|n| Path::new(n).is_dir()) {
        if !captures.iter().any(|c| c.path.starts_with(dir)) {
            eprintln!(
                "gamedissect: {}: no capture files (.pcap, .pcapng, .cap, .dmp, .dm_NN) in it",
                escaped(dir)
            );
            failed = true;
        }
    }
    Ok((captures, failed))
}

/// The captures and what every capture's job shares.
struct Jobs {
    captures: Vec<Capture>,
    /// Captures decoded at once.
    threads: usize,
    config: Config,
    two_pass: bool,
    /// An input error was reported (the exit code is then 1).
    failed: AtomicBool,
}

/// A capture's job: decodes capture `i` and writes its output into the writer; what it gives
/// is handed on, in the captures' order, once that output is written.
type Job<'a, T> = dyn Fn(usize, &mut dyn Write) -> T + Sync + 'a;

impl Jobs {
    fn name(&self, i: usize) -> &str {
        &self.captures[i].name
    }

    /// Opens capture `i` for its job, after a first pass over it with `-2`, and gives the
    /// configuration to decode it with. `Err`: why it cannot be read.
    fn open(&self, i: usize, config: &Config) -> Result<(Input, Config), String> {
        let path = &self.captures[i].path;
        let open = || {
            let mut input =
                Input::open_path(path).map_err(|e| format!("cannot open: {}", error_text(&e)))?;
            input.report_quiet(live::HOLD_QUIET);
            Ok::<_, String>(input)
        };
        let input = open()?;
        if !self.two_pass {
            return Ok((input, config.clone()));
        }
        if input.file_len().is_none() {
            return Err("-2 reads the capture twice: give a regular file".into());
        }
        let (learned, _) = crate::run::first_pass(input, config);
        let config = Config {
            hindsight: Some(Arc::new(learned)),
            ..config.clone()
        };
        Ok((open()?, config))
    }

    /// Runs `job` for every capture and writes to standard output: `head`, each capture's
    /// output and then what `done` writes of its result, in order, and last what `tail`
    /// writes. Gives the exit code.
    fn run<T: Send>(
        &self,
        job: &Job<'_, T>,
        head: Option<String>,
        done: &mut Done<'_, T>,
        tail: impl FnOnce(&mut dyn Write) -> io::Result<()>,
    ) -> ExitCode {
        let mut out = BufWriter::with_capacity(1 << 16, io::stdout().lock());
        let (count, sizes) = (self.captures.len(), Sizes::for_threads(self.threads));
        let written = out
            .write_all(head.unwrap_or_default().as_bytes())
            .and_then(|()| in_order(count, self.threads, sizes, job, &mut out, done))
            .and_then(|()| tail(&mut out))
            .and_then(|()| out.flush());
        match written {
            Err(e) => finish_outcome("-", Outcome::Output(e)),
            Ok(()) if self.failed.load(Ordering::SeqCst) && live::stopped_exit_code().is_none() => {
                ExitCode::from(1)
            }
            Ok(()) => finish_outcome("-", Outcome::Done),
        }
    }

    /// Says on stderr why capture `i` ended early, if it did; an output error stops the run.
    fn report(&self, i: usize, ended: Ended) -> io::Result<()> {
        let why = match ended {
            Ended::Outcome(Outcome::Output(e)) => return Err(e),
            ended => ended.error(),
        };
        // A signal cut the input short: not the capture's fault.
        if let Some(why) = why
            && live::stopped_exit_code().is_none()
        {
            eprintln!("gamedissect: {}: {why}", escaped(self.name(i)));
            self.failed.store(true, Ordering::SeqCst);
        }
        Ok(())
    }

    /// `done` for jobs whose result is how they ended.
    fn reporter(&self) -> impl FnMut(usize, Ended, &mut dyn Write) -> io::Result<()> + '_ {
        |i, ended, _| self.report(i, ended)
    }
}

/// How one capture's job ended.
enum Ended {
    Outcome(Outcome),
    /// Why it could not be opened.
    NotOpened(String),
}

impl Ended {
    /// The input error that ended the capture, as text.
    fn error(&self) -> Option<String> {
        match self {
            Ended::Outcome(Outcome::InputError(e)) => Some(error_text(e)),
            Ended::Outcome(_) => None,
            Ended::NotOpened(why) => Some(why.clone()),
        }
    }
}

/// `==> NAME <==` (after a blank line but before the first), as `head` heads each file: before
/// each capture's summary lines, tree or interval table.
fn head_line(out: &mut dyn Write, i: usize, name: &str) -> io::Result<()> {
    let gap = if i > 0 { "\n" } else { "" };
    writeln!(out, "{gap}==> {} <==", escaped(name))
}

/// `dissect`: each capture's records, on one thread a capture; with `-c`, the count is of
/// every capture's records in order, on one thread.
fn dissect(
    mut jobs: Jobs,
    (rendering, count, line_buffered): (Rendering, Option<u64>, bool),
) -> ExitCode {
    let config = dissect::config_for(jobs.config.clone(), &rendering);
    let remaining = count.map(AtomicU64::new);
    if remaining.is_some() {
        jobs.threads = 1;
    }
    let headed = matches!(rendering.format, OutputFormat::Summary | OutputFormat::Tree);
    let job = |i: usize, out: &mut dyn Write| -> Ended {
        let left = remaining.as_ref().map(|r| r.load(Ordering::SeqCst));
        if left == Some(0) {
            return Ended::Outcome(Outcome::Done);
        }
        if headed && let Err(e) = head_line(out, i, jobs.name(i)) {
            return Ended::Outcome(Outcome::Output(e));
        }
        let (input, config) = match jobs.open(i, &config) {
            Ok(x) => x,
            Err(why) => return Ended::NotOpened(why),
        };
        let how = OneThread {
            rendering,
            count: left,
            flushing: Flushing::choose(line_buffered, input.is_live()),
            capture: CaptureName {
                name: jobs.name(i).to_string(),
                keyed: true,
            },
        };
        let warn = warn_skipped(jobs.name(i));
        let (outcome, written) = dissect::dissect_one_thread(input, None, config, how, out, warn);
        if let Some(r) = &remaining {
            r.fetch_sub(written, Ordering::SeqCst);
        }
        Ended::Outcome(outcome)
    };
    let head = dissect::header(&rendering);
    jobs.run(&job, head, &mut jobs.reporter(), |_| Ok(()))
}

/// `dissect --format parquet -w DIR`: the captures one after the other on this thread (the
/// encoder on a second), into one set of files, each row naming its capture; `-c` counts the
/// records of every capture in order.
fn parquet(jobs: Jobs, rendering: &Rendering, dir: &Path, count: Option<u64>) -> ExitCode {
    let config = dissect::config_for(jobs.config.clone(), rendering);
    let Some(mut sink) = dissect::parquet_sink(dir, "") else {
        return ExitCode::from(2);
    };
    let left = std::cell::Cell::new(count);
    let done = || left.get() == Some(0);
    let outcome = jobs.one_after_another(&config, &done, &mut |name, input, config| {
        sink.set_capture(name);
        let (ended, written) =
            dissect::parquet_capture(&mut sink, input, None, config, name, left.get());
        left.set(left.get().map(|l| l.saturating_sub(written)));
        ended
    });
    jobs.exit_code(dissect::finish_parquet(sink, outcome))
}

/// `events --format parquet -w DIR`: the captures one after the other, into one set of files,
/// each row naming its capture.
fn events_parquet(jobs: Jobs, kinds: Vec<String>, dir: &Path) -> ExitCode {
    let made = crate::output::parquet::events::EventSink::new(dir, "");
    let Some(mut sink) = super::files_in(dir, made) else {
        return ExitCode::from(2);
    };
    let config = jobs.config.clone();
    let outcome = jobs.one_after_another(&config, &|| false, &mut |name, input, config| {
        sink.set_capture(name);
        let mut warn = warn_skipped(name);
        let kinds = kinds.clone();
        events::run::extract(
            input,
            None,
            config,
            kinds,
            &mut |e| sink.event(e),
            &mut warn,
        )
    });
    jobs.exit_code(super::with_files_closed(outcome, sink.finish().map(drop)))
}

/// One capture's run on the calling thread: its name, input and configuration.
type InTurn<'a> = dyn FnMut(&str, Input, Config) -> Outcome + 'a;

impl Jobs {
    /// Runs `one` over the captures in order on this thread, saying on stderr each capture that
    /// cannot be read (the others still run); stops at a signal, an output error, or before
    /// the next capture is opened once `done` (`-c` reached: a capture past it is not read).
    /// The outcome of the run.
    fn one_after_another(
        &self,
        config: &Config,
        done: &dyn Fn() -> bool,
        one: &mut InTurn<'_>,
    ) -> Outcome {
        for i in 0..self.captures.len() {
            if live::stopped_exit_code().is_some() || done() {
                break;
            }
            let name = self.name(i);
            let ended = match self.open(i, config) {
                Ok((input, config)) => one(name, input, config),
                Err(why) => {
                    eprintln!("gamedissect: {}: {why}", escaped(name));
                    self.failed.store(true, Ordering::SeqCst);
                    continue;
                }
            };
            match ended {
                Outcome::Done => {}
                Outcome::InputError(e) => {
                    eprintln!("gamedissect: {}: {}", escaped(name), error_text(&e));
                    self.failed.store(true, Ordering::SeqCst);
                }
                output => return output,
            }
        }
        Outcome::Done
    }

    /// The exit code of a run whose last outcome is `outcome`: 1 when a capture failed.
    fn exit_code(&self, outcome: Outcome) -> ExitCode {
        let code = super::finish_outcome("", outcome);
        if code == ExitCode::SUCCESS && self.failed.load(Ordering::SeqCst) {
            return ExitCode::from(1);
        }
        code
    }
}

/// One capture's counts for `stats`.
struct Counted {
    ended: Ended,
    stats: Stats,
    selected: u64,
}

/// `stats`: each capture's line (or JSON element) in order, then the report of them all.
fn stats(jobs: Jobs, format: ListFormat) -> ExitCode {
    let config = dissect::stats_config(jobs.config.clone());
    let job = |i: usize, _: &mut dyn Write| -> Counted {
        let (input, config) = match jobs.open(i, &config) {
            Ok(x) => x,
            Err(why) => {
                return Counted {
                    ended: Ended::NotOpened(why),
                    stats: Stats::default(),
                    selected: 0,
                };
            }
        };
        let mut engine = Engine::new(protocols::all(), config);
        let mut warn = warn_skipped(jobs.name(i));
        let outcome = run_capture(input, &mut engine, None, &mut warn, &mut |_, _| Ok(()));
        let stats = engine.stats();
        Counted {
            ended: Ended::Outcome(outcome),
            selected: crate::output::stats::frames_selected(engine.config(), stats.frames),
            stats: stats.clone(),
        }
    };
    let report = RefCell::new(Combined::new(format));
    let mut done = |i: usize, c: Counted, out: &mut dyn Write| {
        let error = c.ended.error();
        jobs.report(i, c.ended)?;
        let name = jobs.name(i);
        (report.borrow_mut()).capture(out, name, c.stats, c.selected, error.as_deref())
    };
    let tail = |out: &mut dyn Write| report.replace(Combined::new(format)).finish(out);
    jobs.run(&job, None, &mut done, tail)
}

/// `stats --interval`: each capture's intervals from its own first frame, in order.
fn intervals(jobs: Jobs, format: ListFormat, width_ns: u64) -> ExitCode {
    let config = dissect::stats_config(jobs.config.clone());
    let job = |i: usize, out: &mut dyn Write| -> Ended {
        let name = jobs.name(i);
        if format == ListFormat::Text
            && let Err(e) = head_line(out, i, name)
        {
            return Ended::Outcome(Outcome::Output(e));
        }
        let counts = IntervalStats::new(width_ns, format, &mut *out);
        let mut counts = match format {
            ListFormat::Json => counts.with_capture(name),
            ListFormat::Text => counts,
        };
        let (input, config) = match jobs.open(i, &config) {
            Ok(x) => x,
            Err(why) => return Ended::NotOpened(why),
        };
        let mut engine = Engine::new(protocols::all(), config);
        let mut warn = warn_skipped(name);
        let outcome = run_capture(input, &mut engine, None, &mut warn, &mut |m, r| {
            counts.record(m, r)
        });
        Ended::Outcome(match (outcome, counts.finish()) {
            (Outcome::Done, Err(e)) => Outcome::Output(e),
            (o, _) => o,
        })
    };
    jobs.run(&job, None, &mut jobs.reporter(), |_| Ok(()))
}

/// `events`: each capture's events in order, each naming its capture.
fn events(jobs: Jobs, format: EventFormat, kinds: Vec<String>) -> ExitCode {
    let job = |i: usize, out: &mut dyn Write| -> Ended {
        let (input, config) = match jobs.open(i, &jobs.config) {
            Ok(x) => x,
            Err(why) => return Ended::NotOpened(why),
        };
        let writer = EventWriter::of_capture(out, format, jobs.name(i));
        let mut warn = warn_skipped(jobs.name(i));
        let kinds = kinds.clone();
        Ended::Outcome(events::run::events(
            input, None, config, kinds, writer, &mut warn,
        ))
    };
    let head = (format == EventFormat::Csv).then(|| events::csv_header(true));
    jobs.run(&job, head, &mut jobs.reporter(), |_| Ok(()))
}
