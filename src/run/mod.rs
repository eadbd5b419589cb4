//! Running a capture through the engine: the read → decode → write loop shared by the commands
//! ([`crate::commands`]) and [`parallel`], the first pass of `-2`, and in-memory rendering for
//! tests, benches and fuzzing. It knows no command: the commands call it.

pub mod live;
pub mod many;
pub mod parallel;
mod progress;

use std::io::{self, BufRead};

use crate::capture::{CaptureError, CaptureReader, Event};
use crate::engine::hindsight::Hindsight;
use crate::engine::{Config, Engine, FrameRange, Stats};
pub use crate::output::OutputFormat;
use crate::output::Rendering;
use crate::proto::Meta;
use crate::protocols;
use crate::tree::Record;

pub(crate) use progress::Progress;

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

impl Outcome {
    /// The input error that ended the run, if one did.
    pub fn input_error(self) -> Option<CaptureError> {
        match self {
            Outcome::InputError(e) => Some(e),
            _ => None,
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
    let progress = Progress::maybe(total_len);
    let outcome = run_capture_each(input, engine, warn, sink, &mut |frames, offset| {
        if let Some(p) = &progress {
            p.tick(frames, offset);
        }
    });
    if let Some(p) = progress {
        p.clear();
    }
    outcome
}

/// Link types met so far, so that each one gamedissect cannot read is said once, where its first
/// frame is (its frames are otherwise only counted as not IP).
#[derive(Default)]
pub(crate) struct LinkTypes {
    last: Option<u32>,
    unsupported: Vec<u32>,
}

impl LinkTypes {
    #[inline]
    pub(crate) fn check(
        &mut self,
        p: &crate::capture::Packet<'_>,
        warn: &mut dyn FnMut(&CaptureError),
    ) {
        // Captures have one link type, or a few interleaved: the list is looked at only on a
        // change.
        if self.last == Some(p.linktype) {
            return;
        }
        self.last = Some(p.linktype);
        if crate::net::linktype::SUPPORTED.contains(&p.linktype)
            || self.unsupported.contains(&p.linktype)
        {
            return;
        }
        self.unsupported.push(p.linktype);
        warn(&CaptureError {
            offset: p.offset,
            message: format!(
                "link type {} is not one gamedissect reads (Ethernet, raw IP, BSD loopback, Linux cooked v1 and v2); its frames are counted as not IP",
                p.linktype
            ),
        });
    }
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
    // Frames past the last one asked for cannot be reported: stop reading there, once no frame
    // asked for is held (a later frame may still decode it, as in a run over every frame; the
    // hold's bounds end the reading at most their length later).
    let last = engine.config().frames.last;
    let mut links = LinkTypes::default();
    let outcome = loop {
        if engine.frames() >= last && engine.settled_frames() >= last {
            break Outcome::Done;
        }
        match reader.next() {
            Ok(Some(Event::Packet(p))) => {
                links.check(&p, warn);
                if let Err(e) = engine.packet(&p, sink) {
                    break Outcome::Output(e);
                }
            }
            Ok(Some(Event::BadRecord(e))) => {
                engine.bad_record();
                warn(&CaptureError {
                    offset: e.offset,
                    message: format!("{} (record skipped)", e.message),
                });
            }
            Ok(Some(Event::Quiet)) => {
                // Nothing arrives: what waits behind a hold is handed on now, not when the
                // writer next writes (docs/architecture.md, live input).
                if let Err(e) = engine.flush(sink) {
                    break Outcome::Output(e);
                }
            }
            Ok(None) => break Outcome::Done,
            Err(e) => break Outcome::InputError(e),
        }
        after(engine.settled_frames(), reader.offset());
    };
    // Records held back behind a held datagram are handed on as they stand, unless the output
    // already failed (`-c N` reached, the reader gone): the sink is not called again.
    let outcome = match outcome {
        Outcome::Output(e) => Outcome::Output(e),
        o => match (o, engine.flush(sink)) {
            (Outcome::Done, Err(e)) => Outcome::Output(e),
            (o, _) => o,
        },
    };
    engine.finish();
    outcome
}

/// The first pass of `-2`: decodes the whole capture, writing nothing, and returns what the flows'
/// decoders learned (only where the second pass uses it: trees, filters and statistics are off).
pub fn first_pass<R: BufRead>(input: R, config: &Config) -> (Hindsight, Outcome) {
    let config = Config {
        detail: false,
        detail_when: None,
        field_mask: None,
        flow_stats: false,
        message_stats: false,
        filter: None,
        frames: FrameRange::ALL,
        frame_list: Vec::new(),
        shard: None,
        learn: true,
        hindsight: None,
        ..config.clone()
    };
    let mut engine = Engine::new(protocols::all(), config);
    let outcome = run_capture_each(
        input,
        &mut engine,
        &mut |_| {},
        &mut |_, _| Ok(()),
        &mut |_, _| {},
    );
    (engine.learned(), outcome)
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
        let mut writer = Rendering::plain(format).writer(&mut out);
        let o = run_capture(bytes, &mut engine, None, &mut |_| {}, &mut |m, r| {
            writer.record(m, r)
        });
        let _ = writer.finish();
        o
    };
    (
        String::from_utf8(out).expect("outputs are UTF-8"),
        outcome.input_error(),
    )
}

/// Decodes a capture held in memory and returns its statistics.
/// `stats --interval WIDTH_NS` over a capture in memory, as the command writes it.
pub fn interval_stats_of(
    bytes: &[u8],
    config: Config,
    width_ns: u64,
    format: crate::output::ListFormat,
) -> String {
    let config = Config {
        detail: config.filter.is_some(),
        ..config
    };
    let mut engine = Engine::new(protocols::all(), config);
    let mut out = Vec::new();
    let mut counts = crate::output::interval::IntervalStats::new(width_ns, format, &mut out);
    run_capture(bytes, &mut engine, None, &mut |_| {}, &mut |m, r| {
        counts.record(m, r)
    });
    // Writing to memory cannot fail.
    let _ = counts.finish();
    String::from_utf8_lossy(&out).into_owned()
}

pub fn stats_of(bytes: &[u8], config: Config) -> (Stats, Option<CaptureError>) {
    let config = Config {
        detail: false,
        ..config
    };
    let mut engine = Engine::new(protocols::all(), config);
    let outcome = run_capture(bytes, &mut engine, None, &mut |_| {}, &mut |_, _| Ok(()));
    (engine.stats().clone(), outcome.input_error())
}
