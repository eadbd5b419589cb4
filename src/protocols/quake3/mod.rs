//! Quake III Arena (id 1.32 protocol 68, ioquake3, OpenArena 0.8.8).
//!
//! Layers: connectionless text commands ([`connectionless`]); the netchan header, fragments,
//! checksum and legacy XOR keying ([`netchan`]); the Huffman bit stream ([`huffman`],
//! [`bits`]); server messages ([`server`]) with delta-coded states ([`delta`]); client messages
//! with keyed usercmds ([`client`]); the per-flow decoder ([`flow`]). Upstream sources: GitHub
//! ioquake/ioq3 (code/qcommon, code/server, code/client), id-Software/Quake-III-Arena (the
//! 1.32 GPL release) and OpenArena/engine; docs/protocols/quake3.md records the decisions.

pub mod bits;
pub mod client;
pub mod connectionless;
pub mod constants;
pub mod delta;
pub mod events;
pub mod facts;
pub mod fields;
pub mod flow;
pub mod hold;
pub mod huffman;
pub mod legacykey;
pub mod netchan;
pub mod notes;
pub mod series;
pub mod server;
pub mod tables;
pub mod ucmdkey;
pub mod userinfo;

use crate::proto::{
    FlowDecoder, Overhearing, Prefs, Probe, ProbeInput, Protocol, ProtocolInfo, Role, Series,
};
use constants::MAX_RELIABLE_COMMANDS;
use delta::EntState;
use netchan::{Flavour, Reassembly};
use server::SnapRing;

pub struct Quake3;

pub static PROTOCOL: Quake3 = Quake3;

static INFO: ProtocolInfo = ProtocolInfo {
    name: "quake3",
    title: "Quake III Arena (id 1.32, ioquake3, OpenArena)",
    ports: &[(27950, 27953), (27960, 27963)],
    heuristic: "the connectionless marker 0xffffffff followed by a known command (certain, with the sender's role); a netchan header on a Quake III port (likely)",
    prefs: &[],
    fields: &[fields::ALL],
    notes: notes::ALL,
};

fn is_q3_port(p: u16) -> bool {
    INFO.is_server_port(p)
}

impl Protocol for Quake3 {
    fn info(&self) -> &'static ProtocolInfo {
        &INFO
    }
    fn type_fields(&self) -> &'static crate::tree::TypeFields {
        &fields::TYPES
    }
    fn events(&self) -> Option<&'static crate::toolkit::facts::Events> {
        Some(&events::EVENTS)
    }
    fn probe(&self, input: &ProbeInput<'_>) -> Probe {
        let p = input.payload;
        if p.len() >= 4 && p[..4] == [0xff; 4] {
            return match connectionless::classify(&p[4..]) {
                Some((_, role)) => Probe::certain(Some(role)),
                None => Probe::NO,
            };
        }
        // Netchan shape: a plausible sequence number on a Quake III port.
        if p.len() >= 6 && (is_q3_port(input.src_port) || is_q3_port(input.dst_port)) {
            let seq = netchan::le32(p, 0).unwrap_or(0) & !netchan::FRAGMENT_BIT;
            if seq < 0x0100_0000 {
                let role = if is_q3_port(input.dst_port) && !is_q3_port(input.src_port) {
                    Some(Role::Client)
                } else if is_q3_port(input.src_port) && !is_q3_port(input.dst_port) {
                    Some(Role::Server)
                } else {
                    None
                };
                return Probe::likely(role);
            }
        }
        Probe::NO
    }
    fn new_flow(&self, _prefs: &Prefs) -> Box<dyn FlowDecoder> {
        Box::new(flow::Flow::default())
    }
    fn overhearing(&self) -> Option<&dyn Overhearing> {
        Some(self)
    }
    fn series(&self) -> Option<&dyn Series> {
        Some(&series::Quake3Series)
    }
}

/// A server's `statusResponse` lists its players' names (ioquake3 code/server/sv_main.c
/// `SVC_Status`: `%i %i "%s"\n` per client, score, ping and `cl->name`): a server browser's
/// query tells the game flows of that server the names their chat echoes show.
impl Overhearing for Quake3 {
    fn overhear(&self, payload: &[u8]) -> Vec<Vec<u8>> {
        // Nearly every datagram is a game message: one byte tells.
        if payload.first() != Some(&0xff) {
            return Vec::new();
        }
        match payload.strip_prefix(b"\xff\xff\xff\xffstatusResponse\n") {
            Some(rest) => userinfo::status_names(rest),
            None => Vec::new(),
        }
    }
}

/// The reliable commands of one side, indexed by number modulo MAX_RELIABLE_COMMANDS.
///
/// The slots are allocated at the first command: a flow that never carries one (a scan, a
/// one-datagram flow, a flood of gamestates) costs nothing here, where 64 empty slots cost 2 KiB.
#[derive(Default)]
pub struct Ring {
    /// Empty until the first [`Ring::put`], then MAX_RELIABLE_COMMANDS slots.
    slots: Vec<(u32, Vec<u8>)>,
    /// The slots' text capacity, kept as it changes so that measuring the state is O(1).
    text_bytes: usize,
    /// Bit `i`: slot `i` holds a text recovered rather than captured (read off a pad, or a
    /// predicted chat echo), which `quake3.netchan.xor_source` says.
    recovered: u64,
}

impl Ring {
    /// Stores a command; returns whether it was new (or held only as recovered).
    pub fn put(&mut self, num: u32, text: &[u8]) -> bool {
        if self.slots.is_empty() {
            self.slots = vec![(u32::MAX, Vec::new()); MAX_RELIABLE_COMMANDS];
        }
        let i = num as usize % MAX_RELIABLE_COMMANDS;
        let slot = &mut self.slots[i];
        let was_recovered = self.recovered & (1 << i) != 0;
        self.recovered &= !(1 << i);
        if slot.0 == num && !was_recovered {
            return false;
        }
        // A captured copy of a recovered command is its first sighting.
        let new = slot.0 != num || was_recovered;
        let before = slot.1.capacity();
        slot.0 = num;
        slot.1.clear();
        slot.1.extend_from_slice(text);
        self.text_bytes = self.text_bytes - before + slot.1.capacity();
        new
    }
    /// Stores a command recovered rather than captured: a captured text is kept as it is (and
    /// a captured one replaces it when it comes).
    pub fn put_recovered(&mut self, num: u32, text: &[u8]) {
        if self.get(num).is_none() {
            self.put(num, text);
            self.recovered |= 1 << (num as usize % MAX_RELIABLE_COMMANDS);
        }
    }
    /// Whether the ring slot of command `num` holds a newer command.
    pub fn newer_than(&self, num: u32) -> bool {
        let i = num as usize % MAX_RELIABLE_COMMANDS;
        (self.slots.get(i)).is_some_and(|s| s.0 != u32::MAX && (s.0.wrapping_sub(num) as i32) > 0)
    }
    /// Whether command `num` is held, recovered rather than captured.
    pub fn is_recovered(&self, num: u32) -> bool {
        let i = num as usize % MAX_RELIABLE_COMMANDS;
        self.slots.get(i).is_some_and(|s| s.0 == num) && self.recovered & (1 << i) != 0
    }
    /// The text of command `num` when it was captured (number 0 = nothing yet: empty).
    pub fn get(&self, num: u32) -> Option<&[u8]> {
        match self.slots.get(num as usize % MAX_RELIABLE_COMMANDS) {
            Some(slot) if slot.0 == num => Some(&slot.1),
            _ if num == 0 => Some(b""),
            _ => None,
        }
    }
    /// Whatever the slot of `num` holds (what a client that missed `num` would use).
    pub fn slot(&self, num: u32) -> &[u8] {
        self.slots
            .get(num as usize % MAX_RELIABLE_COMMANDS)
            .map_or(&[], |s| &s.1)
    }
    /// The commands held, captured or recovered, in no particular order.
    pub fn texts(&self) -> impl Iterator<Item = (u32, &[u8])> {
        (self.slots.iter())
            .filter(|s| s.0 != u32::MAX)
            .map(|s| (s.0, &s.1[..]))
    }
    fn bytes(&self) -> usize {
        self.slots.capacity() * std::mem::size_of::<(u32, Vec<u8>)>() + self.text_bytes
    }
}

/// Per-flow protocol state: what a client and a server keep about each other (ioquake3
/// code/client/client.h `clientConnection_t`, code/server/server.h `client_t`).
#[derive(Default)]
pub struct State {
    pub flavour: Option<(Flavour, &'static str)>,
    /// Without a handshake, before the flavour is decided: messages in a row that parsed
    /// cleanly in the ioquake3 layout, and that did not.
    pub flavour_runs: (u8, u8),
    /// The direction (to the server) and sequence of a datagram whose checksum did not match
    /// the challenge: a second, other one decides the legacy netchan (`Flow::decide_flavour`).
    pub legacy_vote: Option<(bool, u32)>,
    pub challenge: Option<i32>,
    pub protocol: Option<u32>,
    pub qport: Option<u16>,
    pub frag: [Reassembly; 2],
    pub client_cmds: Ring,
    pub server_cmds: Ring,
    pub checksum_feed: Option<i32>,
    /// The serverId (CS_SYSTEMINFO `sv_serverid`) of the gamestate `checksum_feed` came from:
    /// a client message with another serverId was sent under another map's gamestate (one the
    /// capture lost), whose checksumFeed is not this one.
    pub feed_server_id: Option<i32>,
    /// The previous gamestate's (serverId, checksumFeed): after a map change the client sends
    /// a few moves under the old gamestate before it reads the new one.
    pub prev_feed: Option<(i32, i32)>,
    pub client_num: Option<u32>,
    pub server_id: Option<i32>,
    pub map: Option<String>,
    pub players: Vec<String>,
    /// `-2`: the names the first pass saw over this flow, tried after the names seen so far
    /// ([`State::known_names`]).
    pub hinted_names: Vec<Vec<u8>>,
    /// The names the server's status listed to a server browser (`Datagram::overheard`), and
    /// the generation they came with; tried after all the others.
    pub overheard_names: Vec<Vec<u8>>,
    pub overheard_generation: u64,
    pub bcs: Option<(u32, Vec<u8>)>,
    /// Last sequence seen per direction (0 = to client, 1 = to server).
    pub last_seq: [Option<u32>; 2],
    /// A sequence far ahead of `last_seq` seen once per direction, not yet trusted: the next
    /// datagram that follows it confirms the jump (`Flow::distrust`).
    pub seq_ahead: [Option<u32>; 2],
    /// A gamestate was decoded: absent baselines are known to be zero.
    pub have_gamestate: bool,
    /// The server command sequence of the last gamestate: the client acknowledges it without
    /// having received its text.
    pub gamestate_cmd_seq: Option<u32>,
    /// Gamestates and new connections seen: a client message held for its usercmd key is
    /// decoded again only under the keys of the level it was sent in.
    pub levels: u32,
    /// The serverId of the last client message read (set in place by every parse: it is in
    /// the unkeyed header). A client sends the serverId of the gamestate it holds (ioquake3
    /// code/client/cl_input.c `CL_WritePacket`); one that no captured gamestate or systeminfo
    /// named means the capture lost the gamestate of the client's level, whose baselines are
    /// then not the ones kept (see [`State::baselines_apply`]).
    pub client_server_id: std::cell::Cell<Option<i32>>,
    baselines: Vec<Option<Box<EntState>>>,
    /// How many of `baselines` are set, kept as they change so that measuring the state does
    /// not walk 1,024 slots.
    baselines_set: usize,
    pub snaps: SnapRing,
    /// Reused by every delta read, so that its few hundred bytes are not zeroed and moved each
    /// time.
    scratch_changes: delta::Changes,
    pub frames: u64,
    pub errors: u64,
    /// Game messages decoded, and those left keyed because their key was not known.
    pub messages_decoded: u64,
    pub messages_keyed: u64,
    /// Of the decoded messages, those de-keyed with a recovered pad.
    pub messages_recovered: u64,
    /// Of the decoded client messages, those whose usercmd key was not known.
    pub usercmds_keyed: u64,
    /// The usercmd key recovered without the gamestate.
    pub ucmd_keys: ucmdkey::UcmdKeys,
    /// Legacy XOR pads recovered without the handshake.
    pub pads: legacykey::Pads,
    /// The XOR key string last shown per direction (0 = to client, 1 = to server): shown
    /// again only when it changes.
    pub shown_key: [Option<Vec<u8>>; 2],
    /// The last snapshot header read, as far as it was read: the server time, then the delta
    /// number and flags. The key recovery compares it across the messages of one key string.
    pub seen_head: Option<SeenHead>,
    /// The newest server time decoded, a snapshot's or a usercmd's (ioquake3
    /// code/client/cl_input.c `CL_CreateCmd`: the client's estimate of the server's time): the
    /// key recovery screens `respawn N` strings near it. (A cell: the moves are read through a
    /// shared borrow.)
    pub server_time: std::cell::Cell<Option<i32>>,
}

/// A snapshot's server time and, when read, its delta number and flags.
pub type SeenHead = (i32, Option<(u8, u8)>);

impl State {
    pub fn baseline(&self, num: u16) -> Option<EntState> {
        self.baselines.get(num as usize)?.as_deref().copied()
    }
    pub fn set_baseline(&mut self, num: u16, st: EntState) {
        if num >= 1024 {
            return;
        }
        if self.baselines.is_empty() {
            self.baselines.resize(1024, None);
        }
        let slot = &mut self.baselines[num as usize];
        if slot.is_none() {
            self.baselines_set += 1;
        }
        *slot = Some(Box::new(st));
    }
    /// Whether the baselines kept are those of the level the client is on: no client message
    /// yet, or its serverId is one the captured gamestates and systeminfo named (the current
    /// one, or the previous map's while the client has not read the new gamestate).
    pub fn baselines_apply(&self) -> bool {
        let Some(id) = self.client_server_id.get() else {
            return true;
        };
        let known = [
            self.server_id,
            self.feed_server_id,
            self.prev_feed.map(|(id, _)| id),
        ];
        known.iter().all(Option::is_none) || known.contains(&Some(id))
    }
    /// A gamestate starts a new level: old baselines and snapshots no longer apply.
    pub fn gamestate_seen(&mut self, command_sequence: u32) {
        self.gamestate_cmd_seq = Some(command_sequence);
        self.levels = self.levels.wrapping_add(1);
        self.baselines.clear();
        self.baselines_set = 0;
        self.snaps.clear();
        self.bcs = None;
        self.ucmd_keys = self.ucmd_keys.for_new_connection();
    }
    /// The memory of the baselines: the slot table and each set baseline.
    fn baseline_bytes(&self) -> usize {
        self.baselines.capacity() * std::mem::size_of::<Option<Box<EntState>>>()
            + self.baselines_set * std::mem::size_of::<EntState>()
    }
    /// The text a client keys with for acknowledged server command `num` in a message naming
    /// `server_id`: the captured one, else, for a number a gamestate covered (acknowledged
    /// without its text arriving, sent before the gamestate) in a message sent under that
    /// gamestate, whatever the ring slot holds. A text lost from the capture is not guessed:
    /// a message sent under the level before (held while its pad was searched for, decoded
    /// again after the new gamestate) acknowledges a command the client did receive.
    pub fn acked_text(&self, num: u32, server_id: Option<i32>) -> Option<&[u8]> {
        self.server_cmds.get(num).or_else(|| {
            let under = self.feed_server_id.is_some() && self.feed_server_id == server_id;
            let covered = under && self.gamestate_cmd_seq.is_some_and(|g| num <= g);
            covered.then(|| self.server_cmds.slot(num))
        })
    }
    /// Server commands predicted from the client's chat: the server echoes a client's `say X`
    /// as a `chat "…X…"` command to every client (ioquake3 code/game/g_cmds.c `G_Say`,
    /// `G_SayTo`), wrapped in the sender's name and colours. The wrapping is learned from a
    /// captured pair (a server `chat`/`tchat` text containing a captured `say` text), or built
    /// as `G_Say` does for each player name known (a pair captured before a rename carries the
    /// old name), and put around the client's newest chat lines. Used only as candidate key
    /// strings, each checked against every pooled message it would key.
    pub fn predicted_server_commands(&self) -> Vec<Vec<u8>> {
        let says: Vec<(u32, &[u8])> = (self.client_cmds.texts())
            .filter_map(|(n, t)| Some((n, say_text(t)?)))
            .collect();
        let mut wraps: Vec<(&[u8], &[u8])> = Vec::new();
        for (_, t) in self.server_cmds.texts() {
            if !(t.starts_with(b"chat \"") || t.starts_with(b"tchat \"")) {
                continue;
            }
            for &(_, x) in &says {
                if let Some(at) = t.windows(x.len()).position(|w| w == x) {
                    let wrap = (&t[..at], &t[at + x.len()..]);
                    if !wraps.contains(&wrap) && wraps.len() < 4 {
                        wraps.push(wrap);
                    }
                }
            }
        }
        // And OpenArena's own wrapping for each player name known: a rename since the captured
        // pair, or no pair captured at all (g_cmds.c `G_Say`).
        let heads = self.echo_heads(&self.known_names());
        for head in &heads {
            let wrap = (&head[..], &b"\""[..]);
            if !wraps.contains(&wrap) {
                wraps.push(wrap);
            }
        }
        let mut newest = says;
        newest.sort_unstable_by_key(|&(n, _)| std::cmp::Reverse(n));
        newest.truncate(4);
        let mut out = Vec::new();
        for (_, x) in newest {
            for (before, after) in &wraps {
                out.push([before, x, after].concat());
            }
        }
        out
    }

    /// The player names the flow has shown, newest first (at most [`userinfo::NAMES`]): its
    /// players' configstrings and the names its server commands show.
    pub fn known_names(&self) -> Vec<Vec<u8>> {
        let mut names: Vec<Vec<u8>> = Vec::new();
        let mut texts: Vec<(u32, &[u8])> = self.server_cmds.texts().collect();
        texts.sort_unstable_by_key(|&(n, _)| std::cmp::Reverse(n));
        let from_cmds = texts.into_iter().flat_map(|(_, t)| userinfo::names_in(t));
        let from_players = self.players.iter().rev().map(String::as_bytes);
        let hinted = self.hinted_names.iter().map(Vec::as_slice);
        let overheard = self.overheard_names.iter().map(Vec::as_slice);
        for name in from_cmds.chain(from_players).chain(hinted).chain(overheard) {
            if names.len() < userinfo::NAMES && !names.iter().any(|n| n == name) {
                names.push(name.to_vec());
            }
        }
        names
    }

    /// The likely `userinfo` commands (or their beginnings) of players called `names`: the
    /// client's own captured ones renamed, and the defaults'.
    pub fn predicted_userinfos(&self, names: &[Vec<u8>]) -> Vec<Vec<u8>> {
        let mut captured: Vec<(u32, &[u8])> = self.client_cmds.texts().collect();
        captured.sort_unstable_by_key(|&(n, _)| std::cmp::Reverse(n));
        userinfo::predictions(names, captured.into_iter().map(|(_, t)| t))
    }

    fn new_connection(&mut self) {
        self.gamestate_cmd_seq = None;
        self.flavour = None;
        self.flavour_runs = (0, 0);
        self.legacy_vote = None;
        self.last_seq = [None; 2];
        self.seq_ahead = [None; 2];
        self.frag = Default::default();
        self.client_cmds = Ring::default();
        self.server_cmds = Ring::default();
        self.checksum_feed = None;
        self.feed_server_id = None;
        self.prev_feed = None;
        self.client_server_id.set(None);
        self.ucmd_keys = Default::default();
        self.levels = self.levels.wrapping_add(1);
        self.pads = Default::default();
        self.shown_key = Default::default();
        self.baselines.clear();
        self.baselines_set = 0;
        self.snaps.clear();
    }
    /// The low byte of the challenge, all the legacy XOR key uses of it: from the handshake,
    /// else found by the key recovery.
    pub fn xor_challenge(&self) -> Option<u8> {
        self.challenge.map(|c| c as u8).or(self.pads.challenge)
    }
}

/// The chat line of a `say` or `say_team` command (at least three characters, quotes off).
fn say_text(cmd: &[u8]) -> Option<&[u8]> {
    let rest = (cmd.strip_prefix(b"say "))
        .or_else(|| cmd.strip_prefix(b"say_team "))?
        .trim_ascii();
    let rest = rest.strip_prefix(b"\"").unwrap_or(rest);
    let rest = rest.strip_suffix(b"\"").unwrap_or(rest);
    (rest.len() >= 3).then_some(rest)
}

#[cfg(test)]
mod tests;
