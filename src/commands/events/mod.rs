//! `gamedissect events`: what happened in the game, one event per line, read from the decoded
//! [`Record`]s that `dissect` prints (nothing re-parsed).
//!
//! Each protocol that reports events says so in the registry
//! ([`crate::proto::Protocol::events`]): its kinds, and a small extractor in its own folder
//! (`protocols/<name>/events.rs`) holding only what naming needs (a Quake 3 flow's player
//! table, the last reliable command sequence seen, an SRB2 flow's reported command buffers, a
//! GameStudio flow's entity files, a FlightGear callsign's first and last packet); every table
//! is bounded, so memory stays flat however long the capture. Events are written as they are
//! found, in frame order. docs/events.md lists every kind and column.

pub mod run;
mod write;

use std::io;
use std::process::ExitCode;

use super::{Decode, finish_outcome, one_input, open_decode};
use std::collections::HashMap;

use crate::proto::{Meta, Protocol};
use crate::protocols;
use crate::toolkit::facts::{At, Event, EventExtractor, Events, KindDef, Scope};
use crate::tree::Record;

pub use write::{EventFormat, EventWriter, csv_header};

/// Every kind of event, per protocol, in registry order.
pub fn kinds() -> impl Iterator<Item = &'static KindDef> {
    protocols::all()
        .into_iter()
        .filter_map(|p| p.events())
        .flat_map(|e| e.kinds)
}

/// Whether `--kind` names a known kind: `chat` (every protocol's) or `quake3.chat`.
pub fn kind_known(selector: &str) -> bool {
    kinds().any(|k| selects(selector, k.protocol, k.name))
}

fn selects(selector: &str, protocol: &str, kind: &str) -> bool {
    match selector.split_once('.') {
        Some((p, k)) => p == protocol && k == kind,
        None => selector == kind,
    }
}

/// Where a found event goes.
pub(crate) type Emit<'a> = dyn FnMut(Event) -> std::io::Result<()> + 'a;

/// Flows whose state is kept at once; beyond, the least recently seen eighth is forgotten (the
/// engine forgets flows the same way; a forgotten flow starts again as if mid-session).
const MAX_FLOWS: usize = 65_536;

/// A protocol with events, and its extractor for the whole capture when it keeps one.
struct Source {
    name: &'static str,
    events: &'static Events,
    capture: Option<Box<dyn EventExtractor>>,
}

/// Turns records into events: owns every protocol's state.
pub struct Extractor {
    sources: Vec<Source>,
    /// Per flow: the frame it was last seen, the source its extractor is of, the extractor.
    flows: HashMap<u64, (u64, usize, Box<dyn EventExtractor>)>,
    kinds: Vec<String>,
    frames: crate::engine::FrameRange,
}

impl Extractor {
    /// The extractor of the `registry`'s protocols that report events. `kinds`: the `--kind`
    /// selectors (empty: every kind); `frames`: the frames whose events are reported (every
    /// frame is still read, for names).
    pub fn new(
        registry: &[&'static dyn Protocol],
        kinds: Vec<String>,
        frames: crate::engine::FrameRange,
    ) -> Extractor {
        let sources = registry
            .iter()
            .filter_map(|p| {
                let events = p.events()?;
                Some(Source {
                    name: p.info().name,
                    events,
                    capture: (events.scope == Scope::Capture).then(|| (events.extractor)()),
                })
            })
            .collect();
        Extractor {
            sources,
            flows: HashMap::new(),
            kinds,
            frames,
        }
    }

    fn wanted(&self, e: &Event) -> bool {
        e.frame >= self.frames.first
            && e.frame <= self.frames.last
            && (self.kinds.is_empty() || self.kinds.iter().any(|s| selects(s, e.protocol, e.kind)))
    }

    /// The events of one record, handed to `emit` in order.
    pub fn record(
        &mut self,
        meta: &Meta<'_>,
        record: &Record,
        emit: &mut Emit<'_>,
    ) -> std::io::Result<()> {
        let at = At::of(meta);
        let mut found = Vec::new();
        if let Some(source) = self.sources.iter().position(|s| s.name == record.protocol) {
            let extractor = if self.sources[source].capture.is_some() {
                self.sources[source].capture.as_mut()
            } else {
                self.flow_state(meta.flow, meta.frame, source)
            };
            if let Some(extractor) = extractor {
                extractor.record(&at, record, &mut found);
            }
        }
        for e in found {
            if self.wanted(&e) {
                emit(e)?;
            }
        }
        Ok(())
    }

    /// The events only the end of the capture tells (a FlightGear callsign's last packet).
    pub fn finish(&mut self, emit: &mut Emit<'_>) -> std::io::Result<()> {
        let mut found = Vec::new();
        for whole in self.sources.iter_mut().filter_map(|s| s.capture.as_mut()) {
            whole.finish(&mut found);
        }
        for e in found {
            if self.wanted(&e) {
                emit(e)?;
            }
        }
        Ok(())
    }

    /// The extractor of `flow`, made afresh when the flow has none or one of another source.
    fn flow_state(
        &mut self,
        flow: u64,
        frame: u64,
        source: usize,
    ) -> Option<&mut Box<dyn EventExtractor>> {
        if let Some((seen, of, _)) = self.flows.get_mut(&flow)
            && *of == source
        {
            *seen = frame;
            return self.flows.get_mut(&flow).map(|(_, _, s)| s);
        }
        let fresh = (self.sources[source].events.extractor)();
        if !self.flows.contains_key(&flow) && self.flows.len() >= MAX_FLOWS {
            self.evict();
        }
        self.flows.insert(flow, (frame, source, fresh));
        self.flows.get_mut(&flow).map(|(_, _, s)| s)
    }

    /// Forgets the least recently seen eighth of the flows.
    fn evict(&mut self) {
        let mut seen: Vec<u64> = self.flows.values().map(|(f, _, _)| *f).collect();
        seen.sort_unstable();
        let cut = seen[seen.len() / 8];
        self.flows.retain(|_, (f, _, _)| *f > cut);
    }
}

/// `gamedissect events`.
pub(super) fn command(
    decode: Decode,
    format: crate::commands::events::EventFormat,
    kinds: Vec<String>,
) -> ExitCode {
    let (input, len, mut warn) = match open_decode(&decode) {
        Ok(opened) => opened,
        Err(code) => return code,
    };
    let out = io::BufWriter::with_capacity(1 << 16, io::stdout().lock());
    let writer = match EventWriter::new(out, format) {
        Ok(w) => w,
        Err(e) => return finish_outcome(decode.input(), crate::run::Outcome::Output(e)),
    };
    let outcome =
        crate::commands::events::run::events(input, len, decode.config, kinds, writer, &mut warn);
    finish_outcome(one_input(&decode.inputs), outcome)
}

/// `events --format parquet -w DIR`: the events of one capture as Parquet files.
pub(super) fn parquet_command(
    decode: Decode,
    kinds: Vec<String>,
    dir: &std::path::Path,
) -> ExitCode {
    let (input, len, mut warn) = match open_decode(&decode) {
        Ok(opened) => opened,
        Err(code) => return code,
    };
    let file = one_input(&decode.inputs);
    let made = crate::output::parquet::events::EventSink::new(dir, file);
    let Some(mut sink) = super::files_in(dir, made) else {
        return ExitCode::from(2);
    };
    let outcome = run::extract(
        input,
        len,
        decode.config,
        kinds,
        &mut |e| sink.event(e),
        &mut warn,
    );
    let outcome = super::with_files_closed(outcome, sink.finish().map(drop));
    finish_outcome(file, outcome)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selectors() {
        // `PROTO.KIND` or `KIND`; the protocols are the registered ones, named as a user types.
        let (q3, fg) = (
            crate::protocols::quake3::PROTOCOL.info().name,
            crate::protocols::flightgear::PROTOCOL.info().name,
        );
        assert!(selects("chat", q3, "chat"));
        assert!(selects(&format!("{q3}.chat"), q3, "chat"));
        assert!(!selects(&format!("{fg}.chat"), q3, "chat"));
        assert!(kind_known("kill") && kind_known(&format!("{fg}.chat")) && !kind_known("dance"));
    }
}
