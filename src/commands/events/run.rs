//! Running `gamedissect events`: the same engine and loop as `dissect`, each record handed to
//! the [`Extractor`] and each event written at once.

use std::io;

use super::{EventFormat, EventWriter, Extractor};
use crate::engine::{Config, Engine, FrameRange};
use crate::protocols;
use crate::run::{Outcome, run_capture};
use crate::toolkit::facts::Event;

/// Decodes `input` with `config` and writes its events with `writer`; `kinds` are the `--kind`
/// selectors. Every frame is decoded and read for names; `config.frames` only chooses which
/// events are written.
pub fn events<R: io::BufRead, W: io::Write>(
    input: R,
    total_len: Option<u64>,
    config: Config,
    kinds: Vec<String>,
    mut writer: EventWriter<W>,
    warn: &mut dyn FnMut(&crate::capture::CaptureError),
) -> Outcome {
    let mut outcome = extract(
        input,
        total_len,
        config,
        kinds,
        &mut |e| writer.event(e),
        warn,
    );
    if let Err(e) = writer.finish()
        && matches!(outcome, Outcome::Done)
    {
        outcome = Outcome::Output(e);
    }
    outcome
}

/// Decodes `input` with `config` and hands each event to `emit`, as [`events`] writes them.
pub fn extract<R: io::BufRead>(
    input: R,
    total_len: Option<u64>,
    config: Config,
    kinds: Vec<String>,
    emit: &mut dyn FnMut(&Event) -> io::Result<()>,
    warn: &mut dyn FnMut(&crate::capture::CaptureError),
) -> Outcome {
    let frames = config.frames;
    let config = Config {
        detail: true,
        flow_stats: false,
        message_stats: false,
        frames: FrameRange {
            first: 1,
            last: frames.last,
        },
        ..config
    };
    let registry = protocols::all();
    let mut extractor = Extractor::new(&registry, kinds, frames);
    let mut engine = Engine::new(registry, config);
    let mut outcome = run_capture(input, &mut engine, total_len, warn, &mut |m, r| {
        extractor.record(m, r, &mut |e| emit(&e))
    });
    if let Err(e) = extractor.finish(&mut |e| emit(&e))
        && matches!(outcome, Outcome::Done)
    {
        outcome = Outcome::Output(e);
    }
    outcome
}

/// The events of a capture held in memory, as text of one format (tests).
pub fn events_of(bytes: &[u8], config: Config, kinds: &[&str], format: EventFormat) -> String {
    let mut out = Vec::new();
    let kinds = kinds.iter().map(|k| k.to_string()).collect();
    if let Ok(writer) = EventWriter::new(&mut out, format) {
        let _ = events(bytes, None, config, kinds, writer, &mut |_| {});
    }
    String::from_utf8_lossy(&out).into_owned()
}
