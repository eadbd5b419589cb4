//! Records waiting behind a held datagram.
//!
//! A decoder may hold a datagram it cannot decode yet but may decode later (a Quake 3 legacy
//! message whose XOR pad is being recovered from the messages that follow: see
//! [`crate::proto::Learning::holds_last`]). Records stay in frame order, so every record
//! after a held one waits too, owned here, until the held datagram is released: decoded after
//! all, or kept as first shown with a note.
//!
//! The wait is bounded by what every shard of a sharded run sees alike (frames, captured bytes
//! and capture time since the oldest held datagram), so that output is the same on any thread
//! count; past a bound, the oldest hold is given up.

use std::collections::VecDeque;
use std::net::SocketAddr;

use super::tally::DatagramTally;
use crate::capture::Timestamp;
use crate::proto::Meta;
use crate::proto::{Direction, Release};
use crate::tree::{Note, Record};

/// Frames the capture may go on for past a held datagram before its hold is given up.
pub const WAIT_FRAMES: u64 = 4096;
/// Captured bytes read past a held datagram before its hold is given up (every record waiting
/// behind it is kept in memory meanwhile).
pub const WAIT_BYTES: u64 = 4 << 20;
/// Capture time past a held datagram before its hold is given up, in seconds: a live capture
/// shows every record at most this late.
pub const WAIT_SECS: i64 = 30;

/// A datagram's delivery, waiting: its frame's facts, owned, and its records.
pub(super) struct Waiting {
    pub frame: u64,
    pub time: Timestamp,
    pub src: SocketAddr,
    pub dst: SocketAddr,
    pub src_text: String,
    pub dst_text: String,
    pub payload: Vec<u8>,
    pub flow: u64,
    pub direction: Option<Direction>,
    pub notes: Vec<Note>,
    pub tally: DatagramTally,
    pub records: Vec<Record>,
    /// Its decoder holds it: it may still be decoded again.
    pub held: bool,
    /// Its flow is on trial ([`super::series`]): it waits for the judge's verdict, to be
    /// decoded from the start if the flow is claimed, or shown as it is.
    pub trial: bool,
    /// The UDP length it declared, and the conversations in the flow table when it came: what
    /// decoding it again on a claim needs.
    pub declared: usize,
    pub conversations: usize,
    /// Captured bytes read before it.
    pub at_bytes: u64,
}

impl Waiting {
    /// The delivery of a datagram (`meta`) with its notes, tally and records.
    pub fn new(
        meta: &Meta<'_>,
        (notes, tally, records): (Vec<Note>, DatagramTally, Vec<Record>),
        held: bool,
        at_bytes: u64,
    ) -> Waiting {
        Waiting {
            frame: meta.frame,
            time: meta.time,
            src: meta.src,
            dst: meta.dst,
            src_text: meta.src_text.to_string(),
            dst_text: meta.dst_text.to_string(),
            payload: meta.payload.to_vec(),
            flow: meta.flow,
            direction: meta.direction,
            notes,
            tally,
            records,
            held,
            trial: false,
            declared: meta.payload.len(),
            conversations: 0,
            at_bytes,
        }
    }

    /// Whether anything holds it: its decoder or its flow's trial.
    pub fn waits(&self) -> bool {
        self.held || self.trial
    }

    pub fn meta(&self, base: Timestamp) -> Meta<'_> {
        Meta {
            frame: self.frame,
            time: self.time,
            base,
            src: self.src,
            dst: self.dst,
            src_text: &self.src_text,
            dst_text: &self.dst_text,
            payload: &self.payload,
            flow: self.flow,
            direction: self.direction,
        }
    }

    /// Whether its hold has lasted past a bound, now that the capture is at `frame`, `time` and
    /// `bytes` captured.
    pub fn overdue(&self, frame: u64, time: Timestamp, bytes: u64) -> bool {
        frame.saturating_sub(self.frame) > WAIT_FRAMES
            || bytes.saturating_sub(self.at_bytes) > WAIT_BYTES
            || time.secs.saturating_sub(self.time.secs) > WAIT_SECS
    }
}

/// The waiting deliveries, in frame order.
#[derive(Default)]
pub(super) struct Queue {
    pub waiting: VecDeque<Waiting>,
    /// Releases taken from a decoder, not yet applied (kept to reuse the allocation).
    pub releases: Vec<Release>,
}

impl Queue {
    /// Applies the releases taken from decoders to the datagrams they hold. A release for a
    /// datagram no longer waiting (its hold was given up) is dropped.
    pub fn apply_releases(&mut self) {
        for rel in self.releases.drain(..) {
            let frame = rel.frame();
            let Ok(i) = self.waiting.binary_search_by_key(&frame, |w| w.frame) else {
                continue;
            };
            let w = &mut self.waiting[i];
            if !w.held {
                continue;
            }
            w.held = false;
            match rel {
                Release::Decoded { records, .. } if !records.is_empty() => w.records = records,
                Release::Decoded { .. } | Release::Shown { .. } => {}
                Release::Kept { note, .. } => {
                    for r in &mut w.records {
                        r.notes.push(note.clone());
                    }
                }
            }
        }
    }

    /// The oldest waiting datagram still held, when its hold is overdue.
    pub fn overdue_head(&self, frame: u64, time: Timestamp, bytes: u64) -> Option<&Waiting> {
        let w = self.waiting.front()?;
        (w.waits() && w.overdue(frame, time, bytes)).then_some(w)
    }

    /// The next delivery that is ready (nothing held before it).
    pub fn pop_ready(&mut self) -> Option<Waiting> {
        if self.waiting.front()?.waits() {
            return None;
        }
        self.waiting.pop_front()
    }

    /// Ends the trial of every datagram of flow `flow`: they stand as first shown.
    pub fn end_trial(&mut self, flow: u64) {
        for w in self.waiting.iter_mut().filter(|w| w.flow == flow) {
            w.trial = false;
        }
    }

    /// The last frame whose records have all been handed on (`current` when nothing waits).
    pub fn settled_through(&self, current: u64) -> u64 {
        self.waiting
            .front()
            .map_or(current, |w| w.frame.saturating_sub(1))
    }
}
