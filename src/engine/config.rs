//! The engine's configuration: what to decode, how, and what to report.

use std::sync::Arc;

use super::hindsight::Hindsight;
use crate::filter::Filter;
use crate::net::defrag::DefragLimits;
use crate::proto::Prefs;

/// A `--decode-as` rule: datagrams to or from these ports go to this protocol.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DecodeAs {
    pub lo: u16,
    pub hi: u16,
    /// Index into the protocol registry; `None` (`--decode-as PORT=udp`): no game decoder for
    /// these ports, whatever the probes say (tshark's Decode As "(none)").
    pub protocol: Option<usize>,
}

/// Inclusive frame-number range to report.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FrameRange {
    pub first: u64,
    pub last: u64,
}

impl FrameRange {
    pub const ALL: FrameRange = FrameRange {
        first: 1,
        last: u64::MAX,
    };
    pub fn contains(&self, n: u64) -> bool {
        (self.first..=self.last).contains(&n)
    }
}

/// The default `--max-state`: 256 MiB.
pub const DEFAULT_MAX_STATE: usize = 256 << 20;

#[derive(Debug, Clone)]
pub struct Config {
    pub decode_as: Vec<DecodeAs>,
    pub heuristics: bool,
    pub prefs: Prefs,
    /// Report only records of these protocols (by name); empty = all.
    pub only_protocols: Vec<String>,
    pub frames: FrameRange,
    /// When `--frames` lists several ranges: report only frames in one of them (`frames` is
    /// then their bounding range). Empty: all of `frames`.
    pub frame_list: Vec<FrameRange>,
    pub max_flows: usize,
    /// A flow unseen for this long (capture time) is forgotten, with its decoder state.
    pub flow_idle_secs: i64,
    pub defrag: DefragLimits,
    /// Budget for the decoders' per-flow state, in bytes (`--max-state`): past it the least
    /// recently active flows' state is dropped. With shards, each holds its share.
    pub max_state: usize,
    /// Build field trees (the tree and JSON modes). Off, decoders still produce summaries, notes
    /// and message types, which is all the summary and stats modes show.
    pub detail: bool,
    /// With `detail`: trees are built only for the datagrams this passes, given the frame number
    /// and the datagram's index in its flow (the report builds them for a bounded share of a
    /// long capture). `None`: for every datagram.
    pub detail_when: Option<fn(u64, u64) -> bool>,
    /// With `detail`: trees keep only these fields (what a display filter reads, when the
    /// output shows no tree), so decoders build far less.
    pub field_mask: Option<&'static crate::tree::FieldMask>,
    /// Keep per-flow statistics (only `stats` prints them; without them memory stays flat however
    /// many flows a long capture has).
    pub flow_stats: bool,
    /// Tally records by protocol, message type and note severity. Only `stats` prints the
    /// tallies; `dissect` turns them off (string-keyed map updates per record, a few percent of
    /// a summary run).
    pub message_stats: bool,
    /// Decode only the flows of one shard (see [`Shard`]); `None` decodes every flow.
    pub shard: Option<Shard>,
    /// Report only records the display filter (`-Y`) passes; decoding still sees every frame.
    pub filter: Option<Arc<Filter>>,
    /// `-2`, first pass: keep what each flow's decoder learned ([`crate::engine::Engine::learned`]).
    pub learn: bool,
    /// `-2`, second pass: what the first pass learned, handed to each new flow's decoder.
    pub hindsight: Option<Arc<Hindsight>>,
}

/// One of `count` engines that read the same capture side by side, each decoding the flows given
/// to it (`index`): a new flow goes to the shard whose flows carried the fewest datagrams lately,
/// which every shard computes alike. Every shard still tracks every flow, so flow numbers,
/// eviction and frame numbers agree between shards and with an unsharded run; records of the
/// flows a shard does not own are simply never made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    pub index: u64,
    pub count: u64,
}

impl Config {
    /// This engine's share of the state budget: the whole of it, or one shard's part.
    pub fn state_budget(&self) -> usize {
        match self.shard {
            Some(s) => self.max_state / s.count.max(1) as usize,
            None => self.max_state,
        }
    }
}

impl Default for Config {
    fn default() -> Self {
        Config {
            decode_as: Vec::new(),
            heuristics: true,
            prefs: Prefs::default(),
            only_protocols: Vec::new(),
            frames: FrameRange::ALL,
            frame_list: Vec::new(),
            max_flows: 65_536,
            flow_idle_secs: 600,
            defrag: DefragLimits::default(),
            max_state: DEFAULT_MAX_STATE,
            flow_stats: true,
            message_stats: true,
            detail: true,
            detail_when: None,
            field_mask: None,
            shard: None,
            filter: None,
            learn: false,
            hindsight: None,
        }
    }
}
