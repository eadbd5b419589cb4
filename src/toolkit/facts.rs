//! The vocabulary of game events (`gamedissect events`, docs/events.md): what a protocol that
//! reports events produces ([`Event`], its [`Label`]s, the [`At`] of its record, its
//! [`KindDef`]s).
//!
//! It sits in the toolkit because the protocols produce it and the commands consume it: a
//! protocol folder must not import a command.

use crate::proto::Meta;
use crate::toolkit::time::Timestamp;

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
