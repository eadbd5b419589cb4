//! `gamedissect events`: what happened in the game, one event per line, read from the decoded
//! [`Record`]s that `dissect` prints (field lookups by registered name, nothing re-parsed).
//!
//! Each protocol has a small extractor holding only what naming needs (a Quake 3 flow's player
//! table, the last reliable command sequence seen, an SRB2 flow's reported command buffers, a
//! GameStudio flow's entity files, a FlightGear callsign's first and last
//! packet); every table is bounded, so memory stays flat however long the capture. Events are
//! written as they are found, in frame order. docs/events.md lists every kind and column.

mod flightgear;
mod gamestudio;
pub(crate) mod quake3;
pub mod run;
mod srb2;
mod write;

use std::collections::HashMap;

use crate::proto::Meta;
use crate::tree::Record;

pub use crate::toolkit::facts::{At, Event, KindDef, Label};

pub use write::{EventFormat, EventWriter};

/// Every kind of event, per protocol.
pub fn kinds() -> impl Iterator<Item = &'static KindDef> {
    quake3::KINDS
        .iter()
        .chain(flightgear::KINDS)
        .chain(srb2::KINDS)
        .chain(gamestudio::KINDS)
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

/// The per-flow state of the protocols whose events depend on their flow's history.
enum FlowState {
    Quake3(Box<quake3::State>),
    Srb2(Box<srb2::State>),
    GameStudio(Box<gamestudio::State>),
}

impl FlowState {
    /// A fresh state for `protocol`, if its events need one per flow.
    fn new(protocol: &str) -> Option<FlowState> {
        Some(match protocol {
            "quake3" => FlowState::Quake3(Box::default()),
            "srb2" => FlowState::Srb2(Box::default()),
            "gamestudio" => FlowState::GameStudio(Box::default()),
            _ => return None,
        })
    }

    fn protocol(&self) -> &'static str {
        match self {
            FlowState::Quake3(_) => "quake3",
            FlowState::Srb2(_) => "srb2",
            FlowState::GameStudio(_) => "gamestudio",
        }
    }

    fn record(&mut self, at: &At, record: &Record, out: &mut Vec<Event>) {
        match self {
            FlowState::Quake3(s) => s.record(at, record, out),
            FlowState::Srb2(s) => s.record(at, record, out),
            FlowState::GameStudio(s) => s.record(at, record, out),
        }
    }
}

/// Turns records into events: owns every protocol's state.
pub struct Extractor {
    flows: HashMap<u64, (u64, FlowState)>,
    flightgear: flightgear::State,
    kinds: Vec<String>,
    frames: crate::engine::FrameRange,
}

impl Extractor {
    /// `kinds`: the `--kind` selectors (empty: every kind); `frames`: the frames whose events are
    /// reported (every frame is still read, for names).
    pub fn new(kinds: Vec<String>, frames: crate::engine::FrameRange) -> Extractor {
        Extractor {
            flows: HashMap::new(),
            flightgear: flightgear::State::default(),
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
        match record.protocol {
            "flightgear" => self.flightgear.record(&at, record, &mut found),
            protocol => {
                if let Some(state) = self.flow_state(meta.flow, meta.frame, protocol) {
                    state.record(&at, record, &mut found);
                }
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
        self.flightgear.finish(&mut found);
        for e in found {
            if self.wanted(&e) {
                emit(e)?;
            }
        }
        Ok(())
    }

    /// The state of `flow`, made afresh when the flow has none or one of another protocol;
    /// `None` when `protocol` keeps no per-flow state.
    fn flow_state(&mut self, flow: u64, frame: u64, protocol: &str) -> Option<&mut FlowState> {
        if let Some((seen, state)) = self.flows.get_mut(&flow)
            && state.protocol() == protocol
        {
            *seen = frame;
            return self.flows.get_mut(&flow).map(|(_, s)| s);
        }
        let fresh = FlowState::new(protocol)?;
        if !self.flows.contains_key(&flow) && self.flows.len() >= MAX_FLOWS {
            self.evict();
        }
        self.flows.insert(flow, (frame, fresh));
        self.flows.get_mut(&flow).map(|(_, s)| s)
    }

    /// Forgets the least recently seen eighth of the flows.
    fn evict(&mut self) {
        let mut seen: Vec<u64> = self.flows.values().map(|(f, _)| *f).collect();
        seen.sort_unstable();
        let cut = seen[seen.len() / 8];
        self.flows.retain(|_, (f, _)| *f > cut);
    }
}

/// Quake 3 colour codes (`^` and a letter or digit) and control bytes (the `\x19` that ends a
/// chat speaker's name) removed, as ioquake3's `Q_CleanStr` does (code/qcommon/q_shared.c, with
/// `Q_IsColorString`).
pub fn clean_quake3(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '^' && chars.peek().is_some_and(|n| n.is_ascii_alphanumeric()) {
            chars.next();
        } else if !c.is_control() {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colour_codes_and_control_bytes_go() {
        assert_eq!(
            clean_quake3("GoldenPlayer^7\u{19}: ^2hi"),
            "GoldenPlayer: hi"
        );
        assert_eq!(clean_quake3("^^1a^"), "^a^");
        assert_eq!(clean_quake3("x\ny"), "xy");
    }

    #[test]
    fn selectors() {
        assert!(selects("chat", "quake3", "chat"));
        assert!(selects("quake3.chat", "quake3", "chat"));
        assert!(!selects("flightgear.chat", "quake3", "chat"));
        assert!(kind_known("kill") && kind_known("flightgear.chat") && !kind_known("dance"));
    }
}
