//! The vocabulary of game events (`gamedissect events`, docs/events.md): what a protocol that
//! reports events produces ([`Event`], its [`Label`]s, the [`At`] of its record) and how the
//! command finds them through the registry ([`Events`], offered by
//! [`crate::proto::Protocol::events`]: the [`KindDef`]s and a fresh [`EventExtractor`]).
//!
//! It sits in the toolkit because the protocols produce it and the commands consume it: a
//! protocol folder must not import a command.

use crate::toolkit::meta::Meta;
use crate::toolkit::time::Timestamp;
use crate::tree::Record;

/// A name or a line of text as the game shows it (`raw`, with colour codes and control bytes)
/// and as a person reads it (`clean`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Label {
    pub clean: String,
    pub raw: String,
}

impl Label {
    /// A label whose raw and clean forms are the same.
    pub fn plain(s: impl Into<String>) -> Label {
        let s = s.into();
        Label {
            clean: s.clone(),
            raw: s,
        }
    }
}

/// One game event.
#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    pub frame: u64,
    pub time: Timestamp,
    /// The time of the capture's first frame (relative times are counted from it).
    pub base: Timestamp,
    pub flow: u64,
    pub protocol: &'static str,
    pub kind: &'static str,
    /// Who did it (speaker, killer, the player who joined), when known.
    pub who: Option<Label>,
    /// Whom it was done to (victim, the new name of a renamed player), when there is one.
    pub target: Option<Label>,
    /// The message, means of death, map name, command…
    pub text: Option<Label>,
    /// Further facts, as named values.
    pub details: Vec<(&'static str, String)>,
}

/// A kind of event, for `--kind` and the documentation.
#[derive(Debug)]
pub struct KindDef {
    pub protocol: &'static str,
    pub name: &'static str,
    pub desc: &'static str,
}

/// The facts of the record an event comes from.
#[derive(Debug, Clone, Copy)]
pub struct At {
    pub frame: u64,
    pub time: Timestamp,
    pub base: Timestamp,
    pub flow: u64,
}

impl At {
    pub fn of(meta: &Meta<'_>) -> At {
        At {
            frame: meta.frame,
            time: meta.time,
            base: meta.base,
            flow: meta.flow,
        }
    }

    /// An event of this record with nothing but its kind filled in.
    pub fn event(&self, protocol: &'static str, kind: &'static str) -> Event {
        Event {
            frame: self.frame,
            time: self.time,
            base: self.base,
            flow: self.flow,
            protocol,
            kind,
            who: None,
            target: None,
            text: None,
            details: Vec::new(),
        }
    }
}

/// What a protocol offers `gamedissect events` ([`crate::proto::Protocol::events`]): adding a
/// protocol with events is registering it, not editing the command.
#[derive(Debug)]
pub struct Events {
    /// Every kind of event the protocol reports, for `--kind` and the documentation.
    pub kinds: &'static [KindDef],
    pub scope: Scope,
    /// A fresh extractor: one per flow, or one for the capture, as [`Events::scope`] says.
    pub extractor: fn() -> Box<dyn EventExtractor>,
}

/// How much of the capture one extractor follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// One per flow: a connection's history names its events (players, resent commands). The
    /// command bounds how many flows it follows at once.
    Flow,
    /// One for the whole capture: its events span flows (a FlightGear callsign is heard on
    /// every flow a relay forwards it to).
    Capture,
}

/// Turns decoded records into events, keeping only what naming needs (every table bounded).
pub trait EventExtractor {
    /// The events of one record (of the extractor's protocol), in order.
    fn record(&mut self, at: &At, record: &Record, out: &mut Vec<Event>);
    /// The events only the end of the capture tells (a FlightGear callsign's last packet), in
    /// frame order. Asked once, of a [`Scope::Capture`] extractor only: a flow's state may be
    /// forgotten before the end.
    fn finish(&mut self, _out: &mut Vec<Event>) {}
}
