//! The interface between the shared plumbing and a protocol decoder.
//!
//! A protocol is a static descriptor ([`Protocol`]) with a cheap stateless probe; once a flow is
//! assigned to it, the plumbing asks it for a [`FlowDecoder`], which owns all per-flow state and
//! turns each datagram into one or more [`Record`]s. The plumbing knows nothing else about any
//! protocol.
//!
//! Decoders that learn over a flow what decodes it (Quake 3 only, today) add one optional
//! capability: [`Learning`] on the decoder (holding datagrams, the two passes of `-2`), and
//! [`Overhearing`] on the protocol (what its datagrams tell other flows). The others implement
//! only `info`, `probe` and `new_flow`, and `decode` (with `state_bytes` and `describe`).

use std::collections::BTreeMap;
use std::net::SocketAddr;

pub use crate::toolkit::meta::{Direction, Meta};
use crate::toolkit::time::Timestamp;
use crate::tree::{FieldDef, Note, NoteDef, Record, TypeFields};

/// How sure a probe is that a datagram belongs to its protocol.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Confidence {
    No,
    Likely,
    Certain,
}

/// Which end of a conversation sent a datagram.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Role {
    Client,
    Server,
}

/// A probe's verdict, with the sender's role when the content reveals it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Probe {
    pub confidence: Confidence,
    pub sender: Option<Role>,
}

impl Probe {
    pub const NO: Probe = Probe {
        confidence: Confidence::No,
        sender: None,
    };
    pub fn likely(sender: Option<Role>) -> Probe {
        Probe {
            confidence: Confidence::Likely,
            sender,
        }
    }
    pub fn certain(sender: Option<Role>) -> Probe {
        Probe {
            confidence: Confidence::Certain,
            sender,
        }
    }
}

/// How a flow's server end was decided, so decoders and users can see it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RoleSource {
    /// The probe recognised who sent the first datagram.
    Content,
    /// One end uses a port the protocol registers for servers.
    Port,
    /// Neither told: the end that sent first is taken as the client.
    FirstSender,
}

impl RoleSource {
    pub fn as_str(self) -> &'static str {
        match self {
            RoleSource::Content => "content",
            RoleSource::Port => "server port",
            RoleSource::FirstSender => "first sender is the client",
        }
    }
}

/// Why a flow got its decoder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChosenBy {
    DecodeAs,
    Probe(Confidence),
    Port,
    /// The weight of several datagrams ([`Series`]): no one of them alone tells.
    Series,
}

impl ChosenBy {
    pub fn as_str(self) -> &'static str {
        match self {
            ChosenBy::DecodeAs => "decode-as",
            ChosenBy::Probe(Confidence::Certain) => "content (certain)",
            ChosenBy::Probe(_) => "content (likely)",
            ChosenBy::Port => "port",
            ChosenBy::Series => "content (series)",
        }
    }
}

/// What a decoder is told about each datagram.
#[derive(Debug, Clone, Copy)]
pub struct Datagram<'a> {
    /// The UDP payload as captured (possibly cut by the snaplen; see `truncated`).
    pub payload: &'a [u8],
    /// The payload was cut by the capture's snaplen: running out of bytes is expected.
    pub truncated: bool,
    pub direction: Direction,
    pub src: SocketAddr,
    pub dst: SocketAddr,
    pub time: Timestamp,
    /// Frame number in the capture (1-based).
    pub frame: u64,
    /// Index of this datagram within its flow (0-based).
    pub index_in_flow: u64,
    /// Conversations in the engine's flow table when the datagram came (before it was counted):
    /// flows that carried four datagrams or more (`engine::flows::CONVERSATION`), so that a
    /// probe and its answer are not one. Every shard tracks every flow, so this is the same on
    /// any thread count: a decoder may size per-flow work by it (the Quake 3 pad recovery's
    /// start credit).
    pub conversations: usize,
    /// What other flows' datagrams said about this flow's endpoints ([`Overhearing`],
    /// `engine::overheard`), given when anything was heard since the flow's previous datagram
    /// (empty otherwise), with a generation that changes when what is heard about them does:
    /// the same on any thread count. Candidates only: a decoder checks anything it builds from
    /// them against the bytes before it shows it.
    pub overheard: Heard<'a>,
    pub role_source: RoleSource,
    /// Field trees are wanted (tree and JSON output). Without it a decoder still adds its
    /// summary and notes; `TreeBuilder::new(detail)` discards fields for it, or keeps only a
    /// display filter's fields ([`crate::tree::Detail::Only`]).
    pub detail: crate::tree::Detail,
}

/// What was overheard about one endpoint, with a count that changes whenever it does (a decoder
/// compares the count, not the strings, at each datagram).
#[derive(Debug, Default, Clone, Copy)]
pub struct Heard<'a> {
    pub generation: u64,
    pub items: &'a [Vec<u8>],
}

/// A stateless, cheap look at a datagram.
#[derive(Debug, Clone, Copy)]
pub struct ProbeInput<'a> {
    pub payload: &'a [u8],
    pub src_port: u16,
    pub dst_port: u16,
}

/// Options given on the command line (`--srb2-version`, `-o key=value`), by dotted key.
#[derive(Debug, Clone, Default)]
pub struct Prefs {
    map: BTreeMap<String, String>,
}

impl Prefs {
    pub fn set(&mut self, key: impl Into<String>, value: impl Into<String>) {
        self.map.insert(key.into(), value.into());
    }
    pub fn get(&self, key: &str) -> Option<&str> {
        self.map.get(key).map(|s| s.as_str())
    }
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.map.iter().map(|(k, v)| (k.as_str(), v.as_str()))
    }
}

/// A preference a protocol accepts, for `gamedissect protocols` and validation.
#[derive(Debug)]
pub struct PrefDef {
    pub key: &'static str,
    pub values: &'static str,
    pub desc: &'static str,
}

/// The static description of a protocol.
#[derive(Debug)]
pub struct ProtocolInfo {
    /// Short name, the JSON `protocol` value and the first segment of every field name.
    pub name: &'static str,
    pub title: &'static str,
    /// Well-known server port ranges (inclusive).
    pub ports: &'static [(u16, u16)],
    /// What the content probe looks for, in one sentence.
    pub heuristic: &'static str,
    pub prefs: &'static [PrefDef],
    /// Every field the protocol can emit.
    pub fields: &'static [&'static [&'static FieldDef]],
    /// Every expert note the protocol's decoder can add (beside the toolkit's own).
    pub notes: &'static [&'static NoteDef],
}

impl ProtocolInfo {
    pub fn is_server_port(&self, port: u16) -> bool {
        self.ports.iter().any(|&(lo, hi)| (lo..=hi).contains(&port))
    }
}

/// A protocol decoder's registration.
pub trait Protocol: Sync {
    fn info(&self) -> &'static ProtocolInfo;
    /// The game events the protocol reports (`gamedissect events`), when it reports any: its
    /// kinds and a fresh extractor, which reads them from the decoded records through the
    /// protocol's facts (`protocols/<name>/facts.rs`).
    fn events(&self) -> Option<&'static crate::toolkit::facts::Events> {
        None
    }
    /// Must be cheap, must not panic, must not allocate much: it runs on unclaimed datagrams.
    fn probe(&self, input: &ProbeInput<'_>) -> Probe;
    fn new_flow(&self, prefs: &Prefs) -> Box<dyn FlowDecoder>;
    /// Whether a datagram passes the protocol's own checks: the evidence a flow claimed by
    /// port alone needs in one of its first datagrams (`engine::choice::EVIDENCE_DATAGRAMS`),
    /// or it is plain UDP. By default, what its probe recognises (`likely` or better).
    fn evidence(&self, input: &ProbeInput<'_>) -> bool {
        self.probe(input).confidence >= Confidence::Likely
    }
    /// Its [`Overhearing`], when its datagrams tell other flows anything. Asked once, when the
    /// engine is made: only the protocols that answer are asked at each datagram (a call per
    /// protocol at every datagram cost 5 % of a `stats` run).
    fn overhearing(&self) -> Option<&dyn Overhearing> {
        None
    }
    /// Which fields each message type can carry (docs/parquet.md); by default every type
    /// carries the whole tree.
    fn type_fields(&self) -> &'static TypeFields {
        &TypeFields::WHOLE
    }
    /// Its [`Series`], when a flow of it can be recognised by the weight of several datagrams
    /// where no single one tells (a Quake 3 session cut mid-way, off its registered ports).
    fn series(&self) -> Option<&dyn Series> {
        None
    }
}

/// A protocol's judge of a whole flow: what a flow nothing else claimed looks like over its
/// first datagrams (`engine::PROBE_ATTEMPTS`), which the engine holds back meanwhile, and
/// decodes from the first once the judge claims the flow.
pub trait Series: Sync {
    /// A judge for a flow whose first datagram is `payload`, when that datagram may open a
    /// series of the protocol (cheap and stateless, like a probe); the judge then weighs it
    /// too.
    fn watch(&self, payload: &[u8]) -> Option<Box<dyn Judge>>;
}

/// The state of one flow's [`Series`] judgement: small, and bounded work per datagram.
pub trait Judge: Send {
    /// Weighs the flow's next datagram; `from_first` says whether its sender is the end that
    /// sent the flow's first datagram.
    fn weigh(&mut self, payload: &[u8], from_first: bool) -> Judgement;
}

/// A [`Judge`]'s verdict after a datagram.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Judgement {
    /// Not enough yet either way.
    Undecided,
    /// The flow is not of the protocol.
    Refuted,
    /// The flow is of the protocol: which end is the server, and what the decision rests on
    /// (for `stats`).
    Claimed {
        server_is_first: bool,
        basis: String,
    },
}

/// What a protocol's datagrams tell other flows: the protocol's side of [`Learning`]. A decoder
/// that learns over its flow learns from the flow's datagrams, from a first pass (`-2`), and
/// from what other flows' datagrams said about its endpoints, which the engine hands every
/// decoder ([`Datagram::overheard`]); a protocol overhears so that its decoders may learn it.
/// Quake 3 has both: a server's status to a server browser names the players whose names key
/// the game flows' chat echoes.
pub trait Overhearing: Sync {
    /// What a datagram tells other flows about its sender: a few short strings, handed to every
    /// flow with that endpoint as [`Datagram::overheard`]. It runs on every datagram on every
    /// shard: it must be cheap, and most datagrams tell nothing.
    fn overhear(&self, payload: &[u8]) -> Vec<Vec<u8>>;
}

/// Every field of every protocol, the plain-UDP record first.
pub fn all_fields(
    registry: &[&'static dyn Protocol],
) -> Vec<(&'static str, &'static str, Vec<&'static FieldDef>)> {
    let mut v = vec![(
        "udp",
        "Plain UDP (no decoder)",
        crate::toolkit::udp::ALL.to_vec(),
    )];
    for p in registry {
        let i = p.info();
        v.push((
            i.name,
            i.title,
            i.fields.iter().flat_map(|s| s.iter().copied()).collect(),
        ));
    }
    v
}

/// Per-flow decoding state, owned by the flow.
pub trait FlowDecoder: Send {
    /// Decodes one datagram into one or more records (at least one, even for garbage).
    fn decode(&mut self, dgram: &Datagram<'_>, out: &mut Vec<Record>);
    /// Approximate heap bytes held as state, for the memory figures in `stats`.
    fn state_bytes(&self) -> usize {
        0
    }
    /// Per-flow facts for `stats` (e.g. the release or dialect assumed, the callsigns seen).
    fn describe(&self) -> Vec<(String, String)> {
        Vec::new()
    }
    /// Its [`Learning`], when it learns over the flow: what the engine holds, ends, keeps and
    /// hands on for it. A decoder without it only decodes each datagram as it comes.
    fn learning(&mut self) -> Option<&mut dyn Learning> {
        None
    }
}

/// A decoder that learns over its flow what decodes the flow's messages (a Quake 3 legacy
/// flow's XOR pads and player names, its usercmd key), and so may hold a datagram until it
/// knows more, and hand what it learned to a second pass (`-2`). What it learns from other
/// flows comes in [`Datagram::overheard`], from the protocols with [`Overhearing`].
pub trait Learning {
    /// Whether the datagram just decoded is held: its records show what is known now, and the
    /// decoder may decode it again once it knows more (a Quake 3 message whose XOR pad is being
    /// recovered). The engine holds back every later record too, so that records stay in frame
    /// order, until [`Learning::released`] gives the held datagram's final records.
    fn holds_last(&self) -> bool;
    /// The final records of datagrams held earlier, when there are any now.
    fn released(&mut self, out: &mut Vec<Release>);
    /// Ends the holds of every datagram up to frame `through`: the engine can wait no longer
    /// (its bounds, or the end of the input). Each is released, decoded or kept.
    fn give_up(&mut self, through: u64);
    /// What the decoder learned over the flow that could have helped it earlier (`-2`, the
    /// first pass): a few short byte strings, bounded by [`crate::engine::hindsight`]. A Quake 3
    /// flow gives the player names it saw and the usercmd keys it recovered.
    fn hindsight(&self) -> Vec<Vec<u8>>;
    /// Takes what the first pass learned over this flow (`-2`, before its first datagram):
    /// candidates only, each still checked against the bytes before anything is shown from it.
    fn foresee(&mut self, learned: &[Vec<u8>]);
}

/// The final records of a held datagram.
#[derive(Debug)]
pub enum Release {
    /// Decoded after all: these records replace the ones first shown.
    Decoded { frame: u64, records: Vec<Record> },
    /// Never decoded: the records first shown stand, with this note added to each.
    Kept { frame: u64, note: Note },
    /// Decoded as first shown: the records stand as they are.
    Shown { frame: u64 },
}

impl Release {
    pub fn frame(&self) -> u64 {
        match self {
            Release::Decoded { frame, .. }
            | Release::Kept { frame, .. }
            | Release::Shown { frame } => *frame,
        }
    }
}
