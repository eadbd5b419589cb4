//! Legacy messages held while their XOR pad is being recovered.
//!
//! Without the handshake, a pad is recovered from many messages keyed with the same string
//! (`legacykey`), so the first messages of a group arrive before it is known. Such a message is
//! shown keyed at once and held: when the pad (or its key string) becomes known, it is decoded
//! again, in capture order, and its decoded records replace the keyed ones
//! ([`crate::proto::Learning::released`]); the engine holds back every later record
//! meanwhile. A held server message that cannot be decoded in order (a later one was decoded
//! first), a held message whose group's search gave up, or one that reaches a bound, is
//! released as first shown, with a note. A held client message waits whatever overtakes it: it
//! is decoded again without changing what later messages read.
//!
//! A client message de-keyed whole but for its usercmd values is held the same way until its
//! usercmd key is recovered (`ucmdkey.rs`), within the same bounds.
//!
//! The bounds: [`HOLD_MESSAGES`] and [`HOLD_BYTES`] per flow here, and the engine's own
//! (frames, captured bytes and capture time since the oldest held datagram).

use std::collections::VecDeque;
use std::net::SocketAddr;

use super::constants::FRAGMENT_BIT;
use super::notes;
use crate::proto::{Datagram, Direction, Release, RoleSource};
use crate::toolkit::time::Timestamp;
use crate::tree::{Detail, Note};

/// Messages a flow holds at most; past it, the oldest is released as first shown.
pub const HOLD_MESSAGES: usize = 1024;
/// Held messages released as first shown in a row after which a flow holds no more.
pub const GIVE_UP_AFTER: u64 = 1024;
/// Payload bytes a flow holds at most.
pub const HOLD_BYTES: usize = 512 * 1024;

/// `Held::need` of a message held for its usercmd key after it was held for its pad, de-keyed
/// by its key string or by a recovered pad.
pub const FIRST_KEYED: u32 = 1;
pub const FIRST_KEYED_BY_PAD: u32 = 2;

/// A held datagram: what its decode needs again.
pub struct Held {
    pub frame: u64,
    pub payload: Vec<u8>,
    pub to_server: bool,
    /// The command number its key string is (the pad recovery's group).
    pub ack: u32,
    /// The serverId a client message names (the level whose ring slots it keys with).
    pub server_id: Option<i32>,
    /// Its keyed bytes: the pad must reach this far (at most `legacykey::MAX_PAD`). Held for
    /// its usercmd key, 0 unless it was held for its pad first: [`FIRST_KEYED`] or
    /// [`FIRST_KEYED_BY_PAD`] ([`Held::first_keyed`]).
    pub need: u32,
    time: Timestamp,
    src: SocketAddr,
    dst: SocketAddr,
    index_in_flow: u64,
    conversations: usize,
    truncated: bool,
    role_source: RoleSource,
    detail: Detail,
    /// The sequence notes its first decode gave (the sequence is not tracked again).
    pub sequence_notes: Vec<Note>,
    /// A client message de-keyed but for its usercmds: the key it is held for.
    pub usercmds: Option<UsercmdKey>,
    /// Its first decode showed its key string (`quake3.netchan.xor_string`, shown where it
    /// changes): decoded again, it shows it again.
    pub key_shown: bool,
}

impl Held {
    pub fn new(d: &Datagram<'_>, (ack, need): (u32, usize), sequence_notes: Vec<Note>) -> Held {
        Held {
            frame: d.frame,
            payload: d.payload.to_vec(),
            to_server: d.direction == Direction::ToServer,
            ack,
            server_id: None,
            need: need as u32,
            time: d.time,
            src: d.src,
            dst: d.dst,
            index_in_flow: d.index_in_flow,
            conversations: d.conversations,
            truncated: d.truncated,
            role_source: d.role_source,
            detail: d.detail,
            sequence_notes,
            usercmds: None,
            key_shown: false,
        }
    }

    /// A client message decoded but for its usercmds, whose key is still recovered.
    pub fn for_usercmds(d: &Datagram<'_>, key: UsercmdKey, notes: Vec<Note>) -> Held {
        Held {
            usercmds: Some(key),
            server_id: Some(key.server_id),
            ..Held::new(d, (key.rack, 0), notes)
        }
    }

    /// Held for its usercmd key after it was held for its pad: it was first shown keyed, and
    /// counts so when it is released as first shown.
    pub fn first_keyed(&self) -> bool {
        self.usercmds.is_some() && self.need > 0
    }

    /// [`Held::first_keyed`], and the decode that held it for its usercmd key de-keyed it with
    /// a recovered pad (counted so then).
    pub fn counted_by_pad(&self) -> bool {
        self.usercmds.is_some() && self.need == FIRST_KEYED_BY_PAD
    }

    pub fn datagram(&self) -> Datagram<'_> {
        Datagram {
            payload: &self.payload,
            truncated: self.truncated,
            direction: if self.to_server {
                Direction::ToServer
            } else {
                Direction::ToClient
            },
            src: self.src,
            dst: self.dst,
            time: self.time,
            frame: self.frame,
            index_in_flow: self.index_in_flow,
            conversations: self.conversations,
            // The flow took what was overheard when the datagram first came.
            overheard: Default::default(),
            role_source: self.role_source,
            detail: self.detail,
        }
    }
}

/// The usercmd key a held client message waits for: the serverId and acknowledged server
/// command it belongs to, and the level (gamestates seen) and serverId the flow's usercmd keys
/// were kept under when the message came; it is decoded again only under those.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct UsercmdKey {
    pub server_id: i32,
    pub rack: u32,
    pub keys_of: (u32, Option<i32>),
}

/// Why a held message was released as first shown.
#[derive(Clone, Copy)]
pub enum Unheld {
    /// A later message of its direction was decoded first: decoding it now would take the
    /// flow's state back in time.
    Overtaken,
    /// The pad search of its group gave up, or the group was forgotten.
    SearchEnded,
    /// A bound of the hold, the end of the input, or a live input gone quiet.
    Bound,
    /// A new handshake began another connection.
    Connection,
    /// A gamestate (a new level) or another serverId changed the usercmd keys before its key
    /// was found.
    NewLevel,
}

impl Unheld {
    fn note(self, usercmds: bool) -> Note {
        let why = match self {
            Unheld::Overtaken => {
                "a later message in its direction was decoded first, still without this one's key"
            }
            Unheld::SearchEnded => "the pad search for its key string gave up",
            Unheld::Bound => {
                "the hold reached its bound (or the capture ended, or a live capture went quiet) before the key was found"
            }
            Unheld::Connection => "the client connected again before the key was found",
            Unheld::NewLevel => {
                "a new level (a gamestate, or another serverId) changed the usercmd keys before its key was found"
            }
        };
        let what = if usercmds {
            "held while its usercmd key was recovered, and never de-keyed whole"
        } else {
            "held while its XOR pad was searched for, and never decoded"
        };
        Note::new(&notes::HELD_KEYED, None, None, format!("{what}: {why}"))
    }
}

/// A flow's held messages and what became of them.
#[derive(Default)]
pub struct Holds {
    queue: VecDeque<Held>,
    bytes: usize,
    /// Messages held per direction (server to client, client to server).
    per_direction: [usize; 2],
    out: Vec<Release>,
    /// The datagram just decoded is held.
    pub last: bool,
    /// A held message is being decoded again (nothing is held or settled meanwhile).
    pub replaying: bool,
    /// It is one held for its usercmd key: its values were given to the key's recovery when
    /// it first came.
    pub replaying_usercmds: bool,
    /// The message decoded showed its key string; the one decoded again first did.
    pub key_shown: bool,
    pub replay_key_shown: bool,
    /// The message just decoded ended keyed and may be held: the serverId it names (a client
    /// message's), its group and its keyed length.
    pub candidate: Option<(Option<i32>, u32, usize)>,
    /// The client message just decoded showed its usercmds keyed and may be held for their
    /// key: its serverId and acknowledged server command.
    pub usercmd_candidate: Option<UsercmdKey>,
    /// Messages held, then decoded, and released as first shown.
    pub held: u64,
    pub decoded: u64,
    pub kept: u64,
    /// Messages released as first shown since one was last decoded.
    kept_run: u64,
    /// The sequence of the newest client message decoded when it came.
    pub newest_client: Option<u32>,
}

impl Holds {
    pub fn is_empty(&self) -> bool {
        self.queue.is_empty()
    }

    pub fn bytes(&self) -> usize {
        self.bytes + self.queue.len() * std::mem::size_of::<Held>()
    }

    /// Keeps `sequence` when it is the newest client message decoded so far (when it came, or
    /// decoded again).
    pub fn client_decoded(&mut self, sequence: u32) {
        let newer = |n: u32| (sequence.wrapping_sub(n) as i32) > 0;
        if self.newest_client.is_none_or(newer) {
            self.newest_client = Some(sequence);
        }
    }

    /// Whether a client message newer than `h` was decoded since `h` came (its usercmds are
    /// then no longer the newest the flow knows).
    pub fn decoded_since(&self, h: &Held) -> bool {
        let Some(newest) = self.newest_client else {
            return false;
        };
        let seq = h
            .payload
            .get(..4)
            .map_or(0, |b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]));
        (newest.wrapping_sub(seq & !FRAGMENT_BIT) as i32) > 0
    }

    /// Whether messages are still worth holding: a flow whose last [`GIVE_UP_AFTER`] held
    /// messages were all released as first shown (random bodies on a Quake 3 port, a key no
    /// prediction finds) holds no more until one is decoded after all, so that it stops
    /// making every later record wait and be copied.
    pub fn worth_it(&self) -> bool {
        self.kept_run < GIVE_UP_AFTER
    }

    /// Holds `h`; past a bound, returns the oldest messages, to be released.
    pub fn push(&mut self, h: Held) -> Vec<Held> {
        self.held += 1;
        self.last = true;
        self.insert(self.queue.len(), h);
        let mut over = Vec::new();
        while self.queue.len() > HOLD_MESSAGES || self.bytes > HOLD_BYTES {
            let Some(old) = self.pop() else { break };
            over.push(old);
        }
        over
    }

    /// Puts `h` back at place `i` (a message decoded again, held on for its usercmd key).
    pub fn insert(&mut self, i: usize, h: Held) {
        self.bytes += h.payload.len();
        self.per_direction[usize::from(h.to_server)] += 1;
        self.queue.insert(i, h);
    }

    pub fn front(&self) -> Option<&Held> {
        self.queue.front()
    }

    pub fn pop(&mut self) -> Option<Held> {
        self.remove(0)
    }

    pub fn get(&self, i: usize) -> Option<&Held> {
        self.queue.get(i)
    }

    pub fn remove(&mut self, i: usize) -> Option<Held> {
        let h = self.queue.remove(i)?;
        self.bytes -= h.payload.len();
        self.per_direction[usize::from(h.to_server)] -= 1;
        Some(h)
    }

    /// The groups (acknowledged client commands) of the held server messages, each once.
    pub fn server_groups(&self) -> Vec<u32> {
        let mut acks: Vec<u32> = Vec::new();
        if self.per_direction[0] == 0 {
            return acks;
        }
        for h in self.queue.iter().filter(|h| !h.to_server) {
            if !acks.contains(&h.ack) {
                acks.push(h.ack);
            }
        }
        acks
    }

    /// Whether messages of each direction (server to client, client to server) are held.
    pub fn per_direction(&self) -> [bool; 2] {
        [self.per_direction[0] > 0, self.per_direction[1] > 0]
    }

    /// Releases `h` as first shown.
    pub fn keep(&mut self, h: &Held, why: Unheld) {
        self.kept += 1;
        self.kept_run += 1;
        self.out.push(Release::Kept {
            frame: h.frame,
            note: why.note(h.usercmds.is_some()),
        });
    }

    /// Releases `h`, held for its usercmd key, decoded as far as the key is known now, with a
    /// note saying why it is released before the key was found.
    pub fn partly(&mut self, h: &Held, mut record: crate::tree::Record, why: Unheld) {
        self.kept += 1;
        self.kept_run += 1;
        record.notes.push(why.note(true));
        self.out.push(Release::Decoded {
            frame: h.frame,
            records: vec![record],
        });
    }

    /// Releases `h` decoded.
    pub fn decoded(&mut self, h: &Held, records: Vec<crate::tree::Record>) {
        self.decoded += 1;
        self.kept_run = 0;
        self.out.push(Release::Decoded {
            frame: h.frame,
            records,
        });
    }

    pub fn take_released(&mut self, out: &mut Vec<Release>) {
        out.append(&mut self.out);
    }

    /// What `stats` says of the holds, when there were any.
    pub fn describe(&self) -> Option<String> {
        (self.held > 0).then(|| {
            format!(
                "{} messages held while their key was searched for: {} decoded later, {} never",
                self.held, self.decoded, self.kept
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tree::Detail;

    fn held(frame: u64) -> Held {
        let addr: SocketAddr = "10.0.0.1:27960".parse().unwrap();
        let d = Datagram {
            payload: &[1, 2, 3, 4],
            truncated: false,
            direction: Direction::ToClient,
            src: addr,
            dst: addr,
            time: Timestamp::default(),
            frame,
            index_in_flow: frame,
            conversations: 1,
            overheard: Default::default(),
            role_source: RoleSource::Port,
            detail: Detail::None,
        };
        Held::new(&d, (7, 0), Vec::new())
    }

    fn held_client(sequence: u32) -> Held {
        let addr: SocketAddr = "10.0.0.1:27960".parse().unwrap();
        let mut payload = sequence.to_le_bytes().to_vec();
        payload.extend([0; 8]);
        let d = Datagram {
            payload: &payload,
            truncated: false,
            direction: Direction::ToServer,
            src: addr,
            dst: addr,
            time: Timestamp::default(),
            frame: 1,
            index_in_flow: 1,
            conversations: 1,
            overheard: Default::default(),
            role_source: RoleSource::Port,
            detail: Detail::None,
        };
        Held::new(&d, (7, 0), Vec::new())
    }

    /// A held client message decoded again puts the flow's newest usercmds back only when a
    /// newer client message was decoded since it came, first or again (a fragment's flag and
    /// the sequence's wrap do not count).
    #[test]
    fn a_replay_knows_whether_a_newer_client_message_was_decoded() {
        let mut holds = Holds::default();
        assert!(!holds.decoded_since(&held_client(10)));
        holds.client_decoded(10);
        assert!(!holds.decoded_since(&held_client(10)));
        holds.client_decoded(12);
        holds.client_decoded(11);
        assert_eq!(holds.newest_client, Some(12));
        assert!(holds.decoded_since(&held_client(11)));
        assert!(holds.decoded_since(&held_client(11 | FRAGMENT_BIT)));
        assert!(!holds.decoded_since(&held_client(13)));
    }

    #[test]
    fn a_flow_whose_holds_all_fail_stops_holding_until_one_decodes() {
        let mut holds = Holds::default();
        for frame in 0..GIVE_UP_AFTER - 1 {
            holds.keep(&held(frame), Unheld::Bound);
        }
        assert!(holds.worth_it());
        holds.keep(&held(GIVE_UP_AFTER), Unheld::Bound);
        assert!(!holds.worth_it());
        holds.decoded(&held(GIVE_UP_AFTER + 1), Vec::new());
        assert!(holds.worth_it());
        let mut out = Vec::new();
        holds.take_released(&mut out);
        assert_eq!(out.len() as u64, GIVE_UP_AFTER + 1);
    }
}
