//! The per-flow decoder: connectionless packets, and sequenced datagrams through the netchan
//! (flavour, sequence order, fragment reassembly, legacy XOR keying) to one server or client
//! message.
//!
//! Upstream: ioquake3 code/qcommon/net_chan.c `Netchan_Process`, code/server/sv_net_chan.c
//! `SV_Netchan_Decode`, code/client/cl_net_chan.c `CL_Netchan_Decode`, and the packet entry
//! points code/server/sv_main.c `SV_PacketEvent`, code/client/cl_main.c `CL_PacketEvent`.

use std::borrow::Cow;

use super::State;
use super::bits::{self, Loc};
use super::client;
use super::connectionless;
use super::constants::SEQUENCE_JUMP;
use super::delta::KnownEnt;
use super::fields::*;
use super::hold::{Held, Holds, Unheld, UsercmdKey};
use super::legacykey::{self, Carried};
use super::netchan::{self, Flavour, FragResult, Header};
use super::notes;
use super::server::{Summary, push_uint};
use super::ucmdkey::{Recovered, UcmdObs};
use crate::proto::{Datagram, Direction, FlowDecoder, Learning, Release};
use crate::tree::{Detail, Field, NoteDef, Pos, Record, Severity, Source, TreeBuilder, Value};

/// The flow-level state machine: everything is in [`State`], apart from the messages held
/// while their pad is searched for.
#[derive(Default)]
pub struct Flow {
    pub st: State,
    hold: Holds,
    /// A handshake seen while the connection runs, not yet obeyed ([`Flow::settle_handshake`]).
    handshake: Option<Handshake>,
}

/// What handshake datagrams (challengeResponse, connect, connectResponse) teach a flow; while
/// the connection runs, merged over the handshake's datagrams until a new netchan follows.
#[derive(Clone, Copy)]
struct Handshake {
    /// A challengeResponse or connect: the connection starts over.
    restarts: bool,
    challenge: Option<i32>,
    protocol: Option<u32>,
    qport: Option<u16>,
    /// Sequenced datagrams of the running connection seen since (see [`HANDSHAKE_WAIT`]).
    waited: u32,
}

impl Handshake {
    /// The later handshake datagram's facts over the earlier's.
    fn merged(self, later: Handshake) -> Handshake {
        Handshake {
            restarts: self.restarts || later.restarts,
            challenge: later.challenge.or(self.challenge),
            protocol: later.protocol.or(self.protocol),
            qport: later.qport.or(self.qport),
            waited: 0,
        }
    }
}

/// Sequenced datagrams of the running connection after which a handshake no new netchan
/// followed is dropped as a stray. A real reconnect's new netchan follows within a few round
/// trips; until then the server may go on sending the old connection's snapshots.
const HANDSHAKE_WAIT: u32 = 64;

/// The highest sequence a new netchan's first datagram may carry: `Netchan_Setup` starts at 1,
/// and a few may be lost.
const NEW_NETCHAN_MAX: u32 = 4;

/// One sequenced datagram: what its header said.
struct Sequenced<'p> {
    p: &'p [u8],
    to_server: bool,
    /// Field trees wanted: when not, values that cost an allocation are not built.
    detail: Detail,
    flavour: Flavour,
    h: Header,
    /// Where the fragment fields start (after the qport and the checksum).
    frag_at: usize,
}

/// The message a datagram carries: read in place unless it had to be de-keyed or was
/// reassembled. (A per-flow reused buffer for the copy was measured slower: its memory is
/// cold.)
struct Message<'p> {
    data: &'p [u8],
    body: Vec<u8>,
    changed: bool,
    reassembled: bool,
    /// No key de-keyed it: the copy holds the keyed bytes.
    still_keyed: bool,
    /// De-keyed with a recovered pad, found from this many messages.
    recovered_from: Option<usize>,
    /// How the legacy key was known (`quake3.netchan.xor_source`).
    key_source: Option<&'static str>,
    /// The client command a legacy server message was de-keyed with.
    key_ack: Option<u32>,
}

impl Message<'_> {
    fn bytes(&self) -> &[u8] {
        if self.changed { &self.body } else { self.data }
    }
}

/// What the keying leaves decodable of a message.
enum Keying<'s> {
    /// Key material missing (the note that says which, if any): only the unkeyed
    /// acknowledgements are decoded, unless the key recovery knows the pad.
    Unkeyed(Option<(&'static NoteDef, String)>),
    /// A legacy client message: the key byte and the key strings to try, likeliest first.
    LegacyClient(u8, Vec<&'s [u8]>),
    /// Ready to parse (de-keyed, or never keyed).
    Plain,
}

/// A client message parsed into a scratch tree (grafted under the root afterwards), with the
/// client commands it carried and the key string it was de-keyed with (shown in the tree).
struct ClientParse {
    tree: TreeBuilder,
    cmds: Vec<(u32, Vec<u8>)>,
    key: Option<Vec<u8>>,
    /// The usercmd values read while the usercmd key is unknown, and the key string they were
    /// de-keyed with (empty when there are none: nothing to learn).
    obs: Vec<UcmdObs>,
    text: Vec<u8>,
}

fn root_field(len: usize) -> Field {
    Field::new(&ROOT, Value::None, Pos::bytes(0, len))
}

/// A sequenced datagram read before the flavour is decided (no handshake captured): the two
/// layouts share only the sequence, so nothing after it is read. Read in the wrong layout, the
/// checksum would show as acknowledgements, and a fragment as malformed.
fn undecided(mut t: TreeBuilder, p: &[u8], r: &mut Record, dir: &str) {
    let raw = netchan::le32(p, 0).unwrap_or(0);
    let seq = raw & !netchan::FRAGMENT_BIT;
    let at = Pos::bytes(0, 4.min(p.len()));
    t.add(&NC_SEQUENCE, Value::UInt(seq as u64), at);
    t.add(
        &NC_FRAGMENT,
        Value::Bool(raw & netchan::FRAGMENT_BIT != 0),
        at,
    );
    t.expert(
        &notes::FLAVOUR,
        Some(&NC_FLAVOUR),
        None,
        "netchan flavour not decided yet (no handshake captured: it takes a long server message, or 4 messages in a row, that parse cleanly with a checksum field, or 2 that do not); only the sequence is read",
    );
    let summary = format!("{dir} seq {seq} (netchan flavour not known yet)");
    finish(t, p, r, "netchan", summary);
}

/// Ends a record that carries no message (a runt or a fragment).
fn finish(t: TreeBuilder, p: &[u8], r: &mut Record, msg_type: &'static str, summary: String) {
    t.finish_into(p.len(), r);
    r.msg_type = Cow::Borrowed(msg_type);
    r.summary = summary;
}

/// Ends the record of a datagram [`Flow::distrust`] turned away: its netchan header, the note
/// saying why, nothing decoded.
fn untrusted(t: TreeBuilder, p: &[u8], r: &mut Record, (dir, seq): (&str, u32), why: String) {
    let mut t = t;
    t.expert(
        &notes::UNTRUSTED,
        Some(&NC_SEQUENCE),
        Some(Pos::bytes(0, 4)),
        format!("not trusted: {why}; not decoded, the flow's state is unchanged"),
    );
    let summary = format!("{dir} seq {seq} not trusted ({} bytes)", p.len());
    finish(t, p, r, "untrusted", summary);
}

impl Flow {
    fn decode_oob(&mut self, d: &Datagram<'_>, r: &mut Record) {
        let mut t = TreeBuilder::new(d.detail);
        t.open(&ROOT, Value::None, Pos::bytes(0, d.payload.len()));
        let res = connectionless::decode(d.payload, &mut t);
        t.finish_into(d.payload.len(), r);
        let l = res.learned;
        if l.new_connection {
            let restarts = res.msg_type == "challengeResponse" || res.msg_type == "connect";
            let shake = Handshake {
                restarts,
                challenge: l.challenge,
                protocol: l.protocol,
                qport: l.qport,
                waited: 0,
            };
            if self.st.last_seq.iter().any(Option::is_some) {
                // The connection runs: a client ignores a handshake reply it did not ask for
                // (ioquake3 code/client/cl_main.c `CL_ConnectionlessPacket`), and a replayed
                // connect is a stray unless a new connection follows it.
                self.handshake = Some(match self.handshake {
                    Some(earlier) => earlier.merged(shake),
                    None => shake,
                });
                r.expert(
                    &notes::UNTRUSTED,
                    None,
                    "not trusted yet: a handshake while the connection runs; the flow starts over only if a new connection follows",
                );
            } else {
                self.start_connection(shake);
            }
        }
        if let Some(src) = res.source {
            r.sources.push(Source {
                name: Cow::Borrowed("decompressed userinfo"),
                data: src,
            });
        }
        r.msg_type = Cow::Borrowed(res.msg_type);
        r.summary = res.summary;
    }

    /// Obeys a handshake: the old connection's held messages cannot be decoded under the new
    /// one's keys, and a restart forgets the old connection; what the handshake teaches is kept.
    fn start_connection(&mut self, shake: Handshake) {
        while let Some(h) = self.hold.pop() {
            self.release_as_shown(&h, Unheld::Connection);
        }
        self.hold.newest_client = None;
        let keep = (self.st.challenge, self.st.protocol, self.st.qport);
        if shake.restarts {
            self.st.new_connection();
        }
        self.st.challenge = shake.challenge.or(keep.0);
        self.st.protocol = shake.protocol.or(keep.1);
        self.st.qport = shake.qport.or(keep.2);
    }

    /// Settles a handshake seen while the connection ran, on a sequenced datagram: a new
    /// netchan starts its sequences again from 1 (ioquake3 code/qcommon/net_chan.c
    /// `Netchan_Setup`), so a datagram with a sequence of at most [`NEW_NETCHAN_MAX`], older
    /// than the direction's last, starts the new connection; in the ioquake3 netchan its
    /// checksum must also match the handshake's challenge (a late or duplicated datagram of the
    /// old connection does not). The old connection's datagrams meanwhile are decoded as
    /// before; after [`HANDSHAKE_WAIT`] of them the handshake is dropped as a stray.
    fn settle_handshake(&mut self, p: &[u8], to_server: bool) {
        let Some(mut shake) = self.handshake.take() else {
            return;
        };
        let seq = netchan::le32(p, 0).unwrap_or(0) & !netchan::FRAGMENT_BIT;
        let last = self.st.last_seq[usize::from(to_server)];
        let small = seq <= NEW_NETCHAN_MAX && last.is_none_or(|l| seq < l);
        let summed = match (self.st.flavour, shake.challenge) {
            (Some((Flavour::Ioq3, _)), Some(ch)) => {
                let at = if to_server { 6 } else { 4 };
                netchan::le32(p, at) == Some(netchan::checksum(ch, seq))
            }
            _ => true,
        };
        if small && summed {
            self.start_connection(shake);
            return;
        }
        shake.waited += 1;
        if shake.waited <= HANDSHAKE_WAIT {
            self.handshake = Some(shake);
        }
    }

    /// Decides the netchan flavour from what the flow showed: the protocol announced, the
    /// ioquake3 checksum (ioquake3 code/qcommon/net_chan.c `Netchan_Process`, protocol 71),
    /// or, without a handshake, whether the message parses in the ioquake3 layout.
    fn decide_flavour(
        &mut self,
        p: &[u8],
        to_server: bool,
        t: &mut TreeBuilder,
    ) -> Option<Flavour> {
        if let Some((f, _)) = self.st.flavour {
            return Some(f);
        }
        let off = if to_server { 6 } else { 4 };
        let seq = netchan::le32(p, 0).unwrap_or(0) & !netchan::FRAGMENT_BIT;
        if p.len() < off + 4 {
            // Too short to test: decide on a later datagram.
            return Some(Flavour::Legacy);
        }
        let decided = match (self.st.protocol, self.st.challenge) {
            (Some(68), _) => (Flavour::Legacy, "connect announced protocol 68"),
            (_, Some(ch)) => match netchan::le32(p, off) {
                Some(v) if v == netchan::checksum(ch, seq) => (
                    Flavour::Ioq3,
                    "the checksum after the header matches the challenge",
                ),
                // One datagram without it could be a stray: two distinct ones (by direction and
                // sequence) decide.
                _ => match self.st.legacy_vote {
                    Some(first) if first != (to_server, seq) => (
                        Flavour::Legacy,
                        "no checksum matching the challenge in two datagrams: legacy netchan",
                    ),
                    _ => {
                        self.st.legacy_vote = Some((to_server, seq));
                        return Some(Flavour::Legacy);
                    }
                },
            },
            (_, None) => self.flavour_from_messages(p, to_server)?,
        };
        t.expert(
            &notes::FLAVOUR,
            Some(&NC_FLAVOUR),
            None,
            format!("netchan flavour {}: {}", decided.0.name(), decided.1),
        );
        self.st.flavour = Some(decided);
        Some(decided.0)
    }

    /// Without a handshake, the flavour from several messages in a row: a legacy message's
    /// keyed bytes, read in the ioquake3 layout, seldom end exactly at the EOF operation in
    /// their last byte, but one that does decides nothing alone (a decision on the first message
    /// showed thousands of error notes on some mid-session captures). `None`: not yet.
    fn flavour_from_messages(
        &mut self,
        p: &[u8],
        to_server: bool,
    ) -> Option<(Flavour, &'static str)> {
        let (clean, long) = parses_as_ioq3(p, to_server)?;
        let (ioq3, legacy) = &mut self.st.flavour_runs;
        if clean && long {
            // A long server message (a gamestate, a demo's first) parsing cleanly decides alone.
            (*ioq3, *legacy) = (IOQ3_RUN, 0);
        } else if clean {
            (*ioq3, *legacy) = (*ioq3 + 1, 0);
        } else {
            (*ioq3, *legacy) = (0, *legacy + 1);
        }
        if *ioq3 >= IOQ3_RUN {
            Some((
                Flavour::Ioq3,
                "no handshake captured; a long server message or 4 messages in a row parse cleanly with a checksum field",
            ))
        } else if *legacy >= LEGACY_RUN {
            Some((
                Flavour::Legacy,
                "no handshake captured; 2 messages in a row do not parse cleanly with a checksum field",
            ))
        } else {
            None
        }
    }

    fn decode_netchan(&mut self, d: &Datagram<'_>, r: &mut Record) {
        let p = d.payload;
        let to_server = d.direction == Direction::ToServer;
        let mut t = TreeBuilder::new(d.detail);
        t.open(&ROOT, Value::None, Pos::bytes(0, p.len()));
        let dir = if to_server { "C→S" } else { "S→C" };
        let demo = is_demo(d);
        if !self.hold.replaying && !demo {
            self.settle_handshake(p, to_server);
        }
        if demo && self.st.flavour.is_none() {
            // A demo keeps no netchan: its records stand behind a pseudo header in the
            // ioquake3 layout, a layout decided by the input, not by the network.
            self.st.flavour = Some((Flavour::Ioq3, DEMO_FLAVOUR));
        }
        let Some(flavour) = self.decide_flavour(p, to_server, &mut t) else {
            return undecided(t, p, r, dir);
        };
        let Some(h) = netchan::parse_header(p, to_server, flavour) else {
            t.expert(
                &notes::RUNT,
                Some(&NC_SEQUENCE),
                Some(Pos::bytes(0, p.len())),
                format!("{} bytes are too short for a netchan header", p.len()),
            );
            let summary = format!("{dir} runt packet ({} bytes)", p.len());
            return finish(t, p, r, "runt", summary);
        };
        let mut s = Sequenced {
            p,
            to_server,
            detail: d.detail,
            flavour,
            h,
            frag_at: 0,
        };
        s.frag_at = self.header_fields(&s, &mut t);
        let mut summary = String::with_capacity(128);
        summary.push_str(dir);
        summary.push_str(" seq ");
        push_uint(&mut summary, h.sequence as u64);
        // A held message's sequence was tracked when it first came. A demo player reads every
        // record whatever its sequence (ioquake3 code/client/cl_main.c `CL_ReadDemoMessage`):
        // no sequence note is the engine's there.
        if !self.hold.replaying && !demo {
            if let Some(why) = self.distrust(&s) {
                return untrusted(t, p, r, (dir, h.sequence), why);
            }
            self.track_sequence(&s, &mut t);
        }
        if !to_server {
            let newest = &mut self.st.pads.server_sequence;
            // The newest, not the last: a late datagram does not date a group.
            if newest.is_none_or(|n| (h.sequence.wrapping_sub(n) as i32) > 0) {
                *newest = Some(h.sequence);
            }
        }
        let data = &p[h.len..];
        let mut reassembled = None;
        if h.fragmented {
            match self.reassemble(&s, data, &mut t) {
                Ok(buf) => {
                    summary.push_str(&format!(" [reassembled {}]", buf.len()));
                    reassembled = Some(buf);
                }
                Err(ending) => {
                    summary.push_str(&ending);
                    return finish(t, p, r, "fragment", summary);
                }
            }
        }
        let changed = flavour == Flavour::Legacy || reassembled.is_some();
        let mut msg = Message {
            data,
            reassembled: reassembled.is_some(),
            still_keyed: false,
            recovered_from: None,
            key_source: None,
            key_ack: None,
            body: match reassembled {
                Some(b) => b,
                None if changed => data.to_vec(),
                None => Vec::new(),
            },
            changed,
        };
        let sum = Summary::after(summary);
        self.decode_message(&s, &mut msg, t, sum, r);
    }

    /// Why a sequenced datagram may not change the flow, if it may not: what the engine drops
    /// (ioquake3 code/qcommon/net_chan.c `Netchan_Process`: a sequence not newer than the last
    /// message, a checksum that does not match the challenge), and a sequence so far ahead
    /// ([`SEQUENCE_JUMP`]) that it is trusted only once a second datagram follows it. A stale
    /// fragment of the message being reassembled is not stale.
    fn distrust(&mut self, s: &Sequenced<'_>) -> Option<String> {
        let (h, dir) = (&s.h, usize::from(s.to_server));
        if let (Some(ch), Some(c)) = (self.st.challenge, h.checksum)
            && netchan::checksum(ch, h.sequence) != c
        {
            return Some("its checksum does not match the challenge (the engine drops it)".into());
        }
        let last = self.st.last_seq[dir]?;
        let continues = h.fragmented && h.frag_start != 0;
        if h.sequence < last || (h.sequence == last && !continues) {
            return Some(format!(
                "sequence {} is not newer than {last}: a duplicate, a replay or late (the engine drops it)",
                h.sequence
            ));
        }
        if h.sequence - last <= SEQUENCE_JUMP {
            self.st.seq_ahead[dir] = None;
            return None;
        }
        let ahead = &mut self.st.seq_ahead[dir];
        match *ahead {
            Some(a) if h.sequence > a && h.sequence - a <= SEQUENCE_JUMP => {
                *ahead = None;
                None
            }
            _ => {
                *ahead = Some(h.sequence);
                Some(format!(
                    "sequence {} is {} ahead of {last}: trusted once the flow follows it",
                    h.sequence,
                    h.sequence - last
                ))
            }
        }
    }

    /// The netchan header fields (ioquake3 code/qcommon/net_chan.c `Netchan_Process`); returns
    /// where the fragment fields start.
    fn header_fields(&self, s: &Sequenced<'_>, t: &mut TreeBuilder) -> usize {
        let h = &s.h;
        t.open(&NETCHAN, Value::None, Pos::bytes(0, h.len));
        t.add(
            &NC_SEQUENCE,
            Value::UInt(h.sequence as u64),
            Pos::bytes(0, 4),
        );
        t.add(&NC_FRAGMENT, Value::Bool(h.fragmented), Pos::bytes(3, 1));
        let mut o = 4;
        if let Some(q) = h.qport {
            t.add(&NC_QPORT, Value::UInt(q as u64), Pos::bytes(o, 2));
            o += 2;
        }
        if let Some(c) = h.checksum {
            self.checksum_field(c, h.sequence, o, t);
            o += 4;
        }
        if h.fragmented {
            t.add(
                &NC_FRAG_START,
                Value::UInt(h.frag_start as u64),
                Pos::bytes(o, 2),
            );
            t.add(
                &NC_FRAG_LEN,
                Value::UInt(h.frag_len as u64),
                Pos::bytes(o + 2, 2),
            );
        }
        let how = self.st.flavour.map_or("not decided yet", |f| f.1);
        t.add(
            &NC_FLAVOUR,
            Value::Enum(s.flavour as i64, s.flavour.name()),
            Pos::bytes(0, h.len),
        )
        .meaning = s.detail.on().then(|| how.into());
        o
    }

    /// The ioquake3 checksum, checked against the challenge when it was captured.
    fn checksum_field(&self, c: u32, sequence: u32, o: usize, t: &mut TreeBuilder) {
        let f = t.add(&NC_CHECKSUM, Value::UInt(c as u64), Pos::bytes(o, 4));
        match self.st.challenge {
            Some(ch) if netchan::checksum(ch, sequence) == c => f.meaning = Some("correct".into()),
            Some(_) => {
                f.meaning = Some("wrong".into());
                t.expert(
                    &notes::CHECKSUM_WRONG,
                    Some(&NC_CHECKSUM),
                    Some(Pos::bytes(o, 4)),
                    "checksum does not match the challenge (the engine drops such packets)",
                );
            }
            None => {}
        }
    }

    /// Sequence order: the engine drops duplicates and older packets and counts the gaps
    /// (ioquake3 code/qcommon/net_chan.c `Netchan_Process`).
    fn track_sequence(&mut self, s: &Sequenced<'_>, t: &mut TreeBuilder) {
        let h = &s.h;
        if h.fragmented && h.frag_start != 0 {
            return;
        }
        let last = &mut self.st.last_seq[usize::from(s.to_server)];
        if let Some(l) = *last {
            // Not newer: turned away by `distrust` before this.
            if h.sequence > l.saturating_add(1) {
                t.expert(
                    &notes::SEQUENCE_GAP,
                    Some(&NC_SEQUENCE),
                    Some(Pos::bytes(0, 4)),
                    format!(
                        "{} message(s) before this one were not captured",
                        h.sequence - l - 1
                    ),
                );
            }
        }
        if last.is_none_or(|l| h.sequence > l) {
            *last = Some(h.sequence);
        }
    }

    /// Adds a fragment to its direction's buffer (ioquake3 code/qcommon/net_chan.c
    /// `Netchan_Process`): the complete message, or `Err` with how the summary of a datagram
    /// that completes nothing ends.
    fn reassemble(
        &mut self,
        s: &Sequenced<'_>,
        data: &[u8],
        t: &mut TreeBuilder,
    ) -> Result<Vec<u8>, String> {
        let (h, o) = (&s.h, s.frag_at);
        let fl = h.frag_len as usize;
        if fl > data.len() {
            t.expert(
                &notes::FRAGMENT_LENGTH,
                Some(&NC_FRAG_LEN),
                Some(Pos::bytes(o + 2, 2)),
                format!("fragment length {fl} but only {} bytes follow", data.len()),
            );
            return Err(" bad fragment".into());
        }
        let fragment = &data[..fl];
        let idx = usize::from(s.to_server);
        match self.st.frag[idx].add(h.sequence, h.frag_start as usize, fragment) {
            FragResult::Partial(have) => {
                t.add(
                    &NC_FRAG_DATA,
                    Value::Bytes(fragment.into()),
                    Pos::bytes(h.len, fl),
                );
                Err(format!(
                    " fragment at {} len {fl} ({have} bytes so far)",
                    h.frag_start
                ))
            }
            FragResult::Dropped(why) => {
                t.add(
                    &NC_FRAG_DATA,
                    Value::Bytes(fragment.into()),
                    Pos::bytes(h.len, fl),
                );
                let at = Some(Pos::bytes(o, 2));
                t.expert(&notes::FRAGMENT_DROPPED, Some(&NC_FRAG_START), at, why);
                Err(format!(" fragment at {} len {fl} (dropped)", h.frag_start))
            }
            FragResult::Complete(buf) => {
                let n = buf.len() as u64;
                t.add(&NC_REASSEMBLED, Value::UInt(n), Pos::bytes(h.len, fl));
                Ok(buf)
            }
        }
    }

    /// Decodes the message after the header into the record, with what its keying allows.
    fn decode_message(
        &mut self,
        s: &Sequenced<'_>,
        msg: &mut Message<'_>,
        mut t: TreeBuilder,
        mut sum: Summary,
        r: &mut Record,
    ) {
        // The acknowledgements at the start of a client message (never keyed).
        let acks = if s.to_server {
            client::read_acks(msg.bytes())
        } else {
            None
        };
        // The serverId is never keyed: a client message left keyed still tells which level the
        // client is on, so that a server message decoded later does not take the baselines of a
        // level whose gamestate was not read for the new one's (`State::baselines_apply`).
        if let Some((server_id, ..)) = acks.filter(|_| !self.hold.replaying) {
            self.st.client_server_id.set(Some(server_id));
        }
        let loc = if msg.changed {
            Loc {
                source: (r.sources.len() + 1) as u8,
                base: 0,
            }
        } else {
            Loc {
                source: 0,
                base: s.h.len * 8,
            }
        };
        let mut chosen_key = None;
        let mut new_cmds = Vec::new();
        let keying = self.keying(s, msg, acks, &mut t);
        t.close(s.h.len);
        match keying {
            Keying::Unkeyed(why) => {
                if let Some(from) = self.pad_dekey(s, msg, acks) {
                    // A key string read off the new pad keys this message's usercmds too.
                    self.take_recovered_texts();
                    self.predict_for_held(s, msg.bytes());
                    self.drain_held(Some(s.to_server));
                    new_cmds = self.plain(s, msg, acks, loc, &mut t, &mut sum);
                    msg.recovered_from = Some(from);
                } else {
                    if let Some((def, text)) = why {
                        t.expert(def, None, None, text);
                    }
                    self.hold.candidate = self.hold_group(s, msg, acks);
                    unkeyed_prefix(msg.bytes(), s.to_server, acks, loc, &mut t, &mut sum);
                }
            }
            Keying::Plain => {
                self.predict_for_held(s, msg.bytes());
                self.drain_held(Some(s.to_server));
                new_cmds = self.plain(s, msg, acks, loc, &mut t, &mut sum);
            }
            Keying::LegacyClient(key, candidates) => {
                let heading_len = sum.text.len();
                match legacy_client(&self.st, msg, key, &candidates, loc, s.detail, &mut sum) {
                    Some(mut parsed) => {
                        self.drain_held(Some(true));
                        if !parsed.obs.is_empty() && self.learn_usercmd_key(acks, &parsed.obs) {
                            // This message completed the recovery: decoded again with the key.
                            reset_summary(&mut sum, heading_len);
                            parsed.cmds.clear();
                            parsed.tree = TreeBuilder::new(s.detail);
                            let text = Some(&parsed.text[..]);
                            let (tree, cmds) = (&mut parsed.tree, &mut parsed.cmds);
                            let obs = &mut Vec::new();
                            self.st
                                .parse_client(&msg.body, text, loc, tree, &mut sum, cmds, obs);
                        }
                        graft(&mut t, parsed.tree);
                        (new_cmds, chosen_key) = (parsed.cmds, parsed.key);
                        let recovered = acks.is_some_and(|a| self.st.server_cmds.is_recovered(a.2));
                        msg.key_source = Some(key_source(&self.st, recovered));
                    }
                    None => match self.pad_dekey(s, msg, acks) {
                        Some(from) => {
                            self.take_recovered_texts();
                            self.drain_held(Some(true));
                            new_cmds = self.plain(s, msg, acks, loc, &mut t, &mut sum);
                            msg.recovered_from = Some(from);
                        }
                        None => {
                            msg.still_keyed = true;
                            self.hold.candidate = self.hold_group(s, msg, acks);
                            let rack = acks.map_or(0, |a| a.2);
                            t.expert(&notes::XOR_CLIENT_KEY_UNKNOWN, None, None, format!("key unknown: legacy XOR key string not captured (server command {rack} was not seen, and no captured text de-keys the message); only the unkeyed acknowledgements are decoded"));
                            unkeyed_prefix(msg.bytes(), true, acks, loc, &mut t, &mut sum);
                        }
                    },
                }
            }
        }
        let usercmds_keyed =
            s.to_server && (t.notes.iter()).any(|n| std::ptr::eq(n.def, &notes::KEY_UNKNOWN));
        self.count_message(s, &sum, usercmds_keyed);
        self.hold.usercmd_candidate = self.hold_for_usercmds(msg, acks, usercmds_keyed);
        self.file_client_commands(new_cmds);
        self.count_recovered(msg);
        if s.detail.on() {
            self.hold.key_shown = false;
            chosen_key = self.key_string_change(s, msg, chosen_key);
        }
        self.take_recovered_texts();
        if s.flavour == Flavour::Legacy {
            self.find_challenge();
        }
        self.finish_message(s, msg, t, sum, chosen_key, r);
    }

    /// Counts a message de-keyed with a recovered pad, and says so. A move decoded again for
    /// its usercmd key was counted when it first came.
    fn count_recovered(&mut self, msg: &mut Message<'_>) {
        if msg.recovered_from.is_some() {
            if !self.hold.replaying_usercmds {
                self.st.messages_recovered += 1;
            }
            msg.key_source = Some("recovered pad");
        }
    }

    /// Files the client commands a message carried. A move decoded again for its usercmd key
    /// filed them when it first came (an old one filed again could take the ring slot of a
    /// newer one).
    fn file_client_commands(&mut self, cmds: Vec<(u32, Vec<u8>)>) {
        if self.hold.replaying_usercmds {
            return;
        }
        for (n, text) in cmds {
            // One held for its pad comes after newer ones: it must not take their ring slot.
            if !(self.hold.replaying && self.st.client_cmds.newer_than(n)) {
                self.st.client_cmds.put(n, &text);
            }
        }
    }

    /// Looks for the challenge byte in the recovered pads and the captured command texts.
    fn find_challenge(&mut self) {
        if self.st.xor_challenge().is_some() {
            return;
        }
        let st = &mut self.st;
        let (sc, cc) = (&st.server_cmds, &st.client_cmds);
        st.pads.find_challenge(
            |to_server, ack| {
                if to_server { sc.get(ack) } else { cc.get(ack) }
            },
        );
    }

    /// Reads the commands out of pooled messages a new pad de-keyed: their records were written
    /// keyed, but a client command in them keys the server messages that acknowledge it, and a
    /// server command the client messages. A command already known is kept as it was.
    fn harvest_commands(&mut self) {
        for (to_server, sequence, body) in self.st.pads.take_harvest() {
            let (mut t, mut sum) = (TreeBuilder::new(false), Summary::default());
            let loc = Loc { source: 0, base: 0 };
            if to_server {
                let (mut cmds, mut obs) = (Vec::new(), Vec::new());
                // An old message's serverId is not the one the client holds now.
                let holds = self.st.client_server_id.get();
                self.st
                    .parse_client(&body, None, loc, &mut t, &mut sum, &mut cmds, &mut obs);
                self.st.client_server_id.set(holds);
                for (n, text) in cmds {
                    self.st.client_cmds.put_recovered(n, &text);
                }
            } else {
                let mut probe = State::default();
                probe.parse_server(&body, sequence, loc, &mut t, &mut sum);
                for (n, text) in probe.server_cmds.texts() {
                    self.st.server_cmds.put_recovered(n, text);
                }
            }
        }
    }

    /// Tries the server commands predicted from the client's chat as the key string of a
    /// client message group whose command was not captured: one that fits gives the group its
    /// pad, and is filed as the command when the messages tell it from the others. A server
    /// message group tries the likely `userinfo` commands of the players known
    /// ([`State::predicted_userinfos`]) the same way, as far as they go.
    fn try_predicted(&mut self, to_server: bool, ack: u32, cb: Option<u8>) -> Option<()> {
        let cb = cb?;
        if !self.st.pads.due(to_server, ack) {
            return None;
        }
        if !to_server {
            let texts = self.st.predicted_userinfos(&self.st.known_names());
            return self
                .st
                .pads
                .try_prefixes((false, ack), &texts, cb)
                .then_some(());
        }
        let texts = self.st.predicted_server_commands();
        let text = self.st.pads.try_texts((to_server, ack), &texts, cb)?;
        if let Some(text) = text {
            self.st.server_cmds.put_recovered(ack, &text);
        }
        Some(())
    }

    /// Files the key strings read off recovered pads as the commands they are: the rest of
    /// each group is then keyed the ordinary way, and the usercmd key gets its hash.
    fn take_recovered_texts(&mut self) {
        self.harvest_commands();
        for (to_server, ack, text) in self.st.pads.take_texts() {
            let ring = if to_server {
                &mut self.st.server_cmds
            } else {
                &mut self.st.client_cmds
            };
            ring.put_recovered(ack, &text);
        }
    }

    /// Parses a message that is ready (de-keyed, or never keyed); returns the client commands
    /// it carried. A client message's usercmds are keyed with the acknowledged server command
    /// ([`State::acked_text`]; without it the key is recovered as without a gamestate).
    #[allow(clippy::too_many_arguments)]
    fn plain(
        &mut self,
        s: &Sequenced<'_>,
        msg: &Message<'_>,
        acks: Option<(i32, u32, u32)>,
        loc: Loc,
        t: &mut TreeBuilder,
        sum: &mut Summary,
    ) -> Vec<(u32, Vec<u8>)> {
        let mut new_cmds = Vec::new();
        if !s.to_server {
            self.st.parse_server(msg.bytes(), s.h.sequence, loc, t, sum);
            return new_cmds;
        }
        let mut tt = TreeBuilder::new(s.detail);
        let st = &self.st;
        let key_text = acks.and_then(|(sid, _, rack)| st.acked_text(rack, Some(sid)));
        let heading_len = sum.text.len();
        let mut obs = Vec::new();
        let cmds = &mut new_cmds;
        st.parse_client(msg.bytes(), key_text, loc, &mut tt, sum, cmds, &mut obs);
        if !obs.is_empty() {
            let text = key_text.map(<[u8]>::to_vec);
            if self.learn_usercmd_key(acks, &obs) {
                // This message completed the recovery: decoded again with the key.
                reset_summary(sum, heading_len);
                new_cmds.clear();
                tt = TreeBuilder::new(s.detail);
                let text = text.as_deref();
                let cmds = &mut new_cmds;
                self.st
                    .parse_client(msg.bytes(), text, loc, &mut tt, sum, cmds, &mut obs);
            }
        }
        graft(t, tt);
        new_cmds
    }

    /// De-keys a legacy message with the pad the key recovery knows for it (pooling it for
    /// the recovery otherwise); returns from how many messages the pad was recovered. The
    /// message is de-keyed only when it then parses cleanly to its last byte; otherwise its
    /// keyed bytes are left as they were.
    fn pad_dekey(
        &mut self,
        s: &Sequenced<'_>,
        msg: &mut Message<'_>,
        acks: Option<(i32, u32, u32)>,
    ) -> Option<usize> {
        if s.flavour != Flavour::Legacy || !msg.changed {
            return None;
        }
        let (ack, base) = if s.to_server {
            let (sid, mack, rack) = acks?;
            (rack, (sid as u32 ^ mack) as u8)
        } else {
            let ack = bits::BitReader::new(&msg.body).ulong().ok()?;
            (ack, s.h.sequence as u8)
        };
        // A move decoded again for its usercmd key was de-keyed when it first came: with the
        // pad known then, not pooled again.
        let need = msg
            .body
            .len()
            .saturating_sub(legacykey::keyed_from(s.to_server));
        if self.hold.replaying_usercmds && !self.st.pads.covers(s.to_server, ack, need) {
            return None;
        }
        let seq = s.h.sequence;
        let cb = self.st.xor_challenge();
        let found = match (self.st.pads).offer(s.to_server, (ack, base, seq), &msg.body, cb) {
            Some(found) => found,
            None => {
                // A lost `say` line, read off the server message that echoes it (echo.rs).
                if s.to_server || !self.st.try_echo(ack) {
                    self.try_predicted(s.to_server, ack, cb)?;
                }
                (self.st.pads).offer(s.to_server, (ack, base, seq), &msg.body, cb)?
            }
        };
        let (pad, from) = (found.pad.to_vec(), found.from);
        let start = legacykey::keyed_from(s.to_server);
        legacykey::apply(&mut msg.body, start, base, &pad);
        let ok = if s.to_server {
            legacykey::trial_client(&self.st, &msg.body)
        } else {
            let mut probe = State::default();
            legacykey::trial(&mut probe, false, &msg.body, seq)
        };
        if ok != legacykey::Trial::Clean {
            legacykey::apply(&mut msg.body, start, base, &pad);
            return None;
        }
        Some(from)
    }

    /// The key string to show: the one this message was de-keyed with, when it differs from
    /// the last shown in its direction.
    fn key_string_change(
        &mut self,
        s: &Sequenced<'_>,
        msg: &Message<'_>,
        client_key: Option<Vec<u8>>,
    ) -> Option<Vec<u8>> {
        let text = if s.to_server {
            client_key?
        } else {
            let ack = msg.key_ack?;
            self.st.client_cmds.get(ack)?.to_vec()
        };
        // A move decoded again for its usercmd key shows the string as it first did.
        if self.hold.replaying_usercmds {
            return self.hold.replay_key_shown.then_some(text);
        }
        let last = &mut self.st.shown_key[s.to_server as usize];
        if last.as_deref() == Some(&text[..]) {
            return None;
        }
        *last = Some(text.clone());
        self.hold.key_shown = true;
        Some(text)
    }

    /// Adds a client message's keyed usercmd values to the key recovery; true when they made
    /// its key known.
    fn learn_usercmd_key(&mut self, acks: Option<(i32, u32, u32)>, obs: &[UcmdObs]) -> bool {
        // A message held for its usercmd key gave its values when it first came.
        let Some((server_id, _, rack)) = acks.filter(|_| !self.hold.replaying_usercmds) else {
            return false;
        };
        // Pooled by checksumFeed only under the captured text of the acknowledged command (the
        // ring slot's older text, tried for the key, may not be what the client hashed).
        let hash = self.st.server_cmds.get(rack).map(client::hash_key);
        self.st.ucmd_keys.learn(server_id, rack, hash, obs)
    }

    /// Works out the legacy XOR key of a message (ioquake3 code/server/sv_net_chan.c
    /// `SV_Netchan_Decode`, code/client/cl_net_chan.c `CL_Netchan_Decode`) and de-keys a server
    /// message in place; a client message is de-keyed candidate by candidate later.
    fn keying<'s>(
        &'s self,
        s: &Sequenced<'_>,
        msg: &mut Message<'_>,
        acks: Option<(i32, u32, u32)>,
        t: &mut TreeBuilder,
    ) -> Keying<'s> {
        let st = &self.st;
        if s.flavour != Flavour::Legacy {
            return Keying::Plain;
        }
        let Some(ch) = st.xor_challenge() else {
            let why = "legacy XOR key material not captured (no challenge seen: the capture starts mid-connection); only the unkeyed acknowledgements are decoded";
            return Keying::Unkeyed(Some((&notes::XOR_NO_CHALLENGE, why.into())));
        };
        if s.to_server {
            let Some((sid, mack, rack)) = acks else {
                return Keying::Unkeyed(None);
            };
            let key = (ch as u32 ^ sid as u32 ^ mack) as u8;
            t.add(&NC_KEY, Value::UInt(key as u64), Pos::bytes(0, s.h.len));
            return Keying::LegacyClient(key, key_candidates(st, rack, sid));
        }
        let ack = bits::BitReader::new(msg.bytes()).ulong().ok();
        let Some(text) = ack.and_then(|a| st.client_cmds.get(a)) else {
            let why = format!(
                "legacy XOR key string not captured (client command {} was not seen); only the reliable acknowledge is decoded",
                ack.unwrap_or(0)
            );
            return Keying::Unkeyed(Some((&notes::XOR_KEY_UNKNOWN, why)));
        };
        let key = (ch as u32 ^ s.h.sequence) as u8;
        t.add(&NC_KEY, Value::UInt(key as u64), Pos::bytes(0, s.h.len));
        netchan::xor(&mut msg.body, 4, key, text);
        // A challenge byte found by the key recovery is checked on each message it de-keys.
        if st.challenge.is_none()
            && legacykey::trial(&mut State::default(), false, &msg.body, s.h.sequence)
                != legacykey::Trial::Clean
        {
            netchan::xor(&mut msg.body, 4, key, text);
            let why = format!(
                "legacy XOR key not known (the challenge byte found from other messages does not de-key this one with client command {})",
                ack.unwrap_or(0)
            );
            return Keying::Unkeyed(Some((&notes::XOR_KEY_UNKNOWN, why)));
        }
        msg.key_ack = ack;
        let recovered = ack.is_some_and(|a| st.client_cmds.is_recovered(a));
        msg.key_source = Some(key_source(st, recovered));
        Keying::Plain
    }

    /// Adds the de-keyed or reassembled copy as a data source and moves everything into the
    /// record.
    fn finish_message(
        &self,
        s: &Sequenced<'_>,
        msg: &mut Message<'_>,
        t: TreeBuilder,
        sum: Summary,
        chosen_key: Option<Vec<u8>>,
        r: &mut Record,
    ) {
        if msg.changed && s.detail.on() {
            r.sources.push(Source {
                name: Cow::Borrowed(match (msg.reassembled, s.flavour) {
                    _ if msg.still_keyed && msg.reassembled => "reassembled message, still keyed",
                    _ if msg.still_keyed => "message, still keyed",
                    (true, Flavour::Legacy) => "reassembled, de-keyed message",
                    (true, Flavour::Ioq3) => "reassembled message",
                    _ => "de-keyed message",
                }),
                data: std::mem::take(&mut msg.body),
            });
        }
        t.finish_into(s.p.len(), r);
        let nc = r
            .fields
            .first_mut()
            .and_then(|root| root.children.iter_mut().find(|c| c.def == &NETCHAN));
        if let Some(nc) = nc {
            if let Some(k) = chosen_key {
                let f = Field::new(&NC_KEY_STRING, Value::text(&k), Pos::bytes(0, s.h.len));
                nc.children.push(f);
            }
            if let Some(how) = msg.key_source {
                let f = Field::new(
                    &NC_KEY_SOURCE,
                    Value::text(how.as_bytes()),
                    Pos::bytes(0, s.h.len),
                );
                nc.children.push(f);
            }
            if let Some(n) = msg.recovered_from {
                let f = Field::new(
                    &NC_KEY_RECOVERED,
                    Value::UInt(n as u64),
                    Pos::bytes(0, s.h.len),
                );
                nc.children.push(f);
            }
        }
        r.msg_type = Cow::Borrowed(if sum.msg_type.is_empty() {
            "netchan"
        } else {
            sum.msg_type
        });
        r.summary = sum.text;
    }
}

impl Flow {
    /// Counts a game message for `stats`: decoded (and its usercmd values keyed or not), or
    /// left keyed; and keeps the sequence of the newest client message decoded when it came.
    fn count_message(&mut self, s: &Sequenced<'_>, sum: &Summary, usercmds_keyed: bool) {
        if sum.msg_type == "keyed" {
            self.st.messages_keyed += 1;
            return;
        }
        if s.to_server {
            self.hold.client_decoded(s.h.sequence);
        }
        self.st.messages_decoded += 1;
        self.st.usercmds_keyed += u64::from(usercmds_keyed);
    }

    /// The notes and counts every record gets once decoded, first or again.
    fn finish_record(&mut self, d: &Datagram<'_>, r: &mut Record) {
        // (Without trees no field is shown; a root node would cost an allocation per message.)
        if r.fields.is_empty() && d.detail.on() {
            r.fields.push(root_field(d.payload.len()));
        }
        if d.truncated && r.has_errors() {
            r.expert(
                &notes::SNAPLEN,
                None,
                "the capture's snaplen cut this datagram",
            );
        }
        if r.has_errors() {
            self.st.errors += 1;
        }
    }

    /// The pad recovery's group of a legacy message left keyed, and its keyed length, when the
    /// message is worth holding: whole (not reassembled) and of a group still searched for.
    fn hold_group(
        &self,
        s: &Sequenced<'_>,
        msg: &Message<'_>,
        acks: Option<(i32, u32, u32)>,
    ) -> Option<(Option<i32>, u32, usize)> {
        if self.hold.replaying
            || !self.hold.worth_it()
            || s.flavour != Flavour::Legacy
            || msg.reassembled
            || !msg.changed
        {
            return None;
        }
        let ack = if s.to_server {
            acks?.2
        } else {
            bits::BitReader::new(&msg.body).ulong().ok()?
        };
        let need = msg
            .body
            .len()
            .saturating_sub(legacykey::keyed_from(s.to_server));
        let live = need <= legacykey::MAX_PAD && self.may_recover(s.to_server, ack);
        let server_id = acks.filter(|_| s.to_server).map(|a| a.0);
        live.then_some((server_id, ack, need))
    }

    /// The usercmd key of a client message shown with its usercmds still keyed, when the
    /// message is worth holding until that key is recovered: whole (not reassembled), decoded
    /// for the first time, and its acknowledgements read.
    fn hold_for_usercmds(
        &self,
        msg: &Message<'_>,
        acks: Option<(i32, u32, u32)>,
        usercmds_keyed: bool,
    ) -> Option<UsercmdKey> {
        // A message held for its pad and decoded again may be held on for its usercmd key.
        if !usercmds_keyed
            || self.hold.replaying_usercmds
            || !self.hold.worth_it()
            || msg.reassembled
        {
            return None;
        }
        acks.map(|(server_id, _, rack)| UsercmdKey {
            server_id,
            rack,
            keys_of: self.usercmd_keys_of(),
        })
    }

    /// The level and the serverId the usercmd keys are kept under now.
    fn usercmd_keys_of(&self) -> (u32, Option<i32>) {
        (self.st.levels, self.st.ucmd_keys.server_id())
    }

    /// Whether the key of group (`to_server`, `ack`) may still be found: its pad is searched
    /// for, or, for server messages, its client command may turn out to be a player's likely
    /// `userinfo` once a name shows ([`Flow::predict_for_held`]), however the search went, or,
    /// for client messages, server messages are held that may carry its server command.
    fn may_recover(&self, to_server: bool, ack: u32) -> bool {
        let pads = &self.st.pads;
        pads.live(to_server, ack)
            || (!to_server && pads.pooled(to_server, ack))
            || pads.undated(to_server, ack)
            // A client message's key is a server command: held server messages, once their pad
            // is found, may carry it (a chat echo the player's name read later reveals).
            || (to_server && self.hold.per_direction()[0])
    }

    /// Takes the names the server's status listed to a server browser (another flow's
    /// datagram, `Datagram::overheard`) when they changed: each server-message group whose
    /// pad is unknown is due another try of its echo with them.
    fn overhear(&mut self, d: &Datagram<'_>) {
        let heard = d.overheard;
        if heard.generation == self.st.overheard_generation || heard.items.is_empty() {
            return;
        }
        self.st.overheard_generation = heard.generation;
        // The newest status's names first, then those of earlier ones (a player who left may
        // still key the messages held).
        let mut names = heard.items.to_vec();
        for old in std::mem::take(&mut self.st.overheard_names) {
            if !names.contains(&old) {
                names.push(old);
            }
        }
        names.truncate(super::userinfo::NAMES);
        self.st.overheard_names = names;
        self.st.pads.names_changed();
    }

    /// Gives the key recovery the flow's newest server time: the first one screens the
    /// client-message groups pooled before it for a `respawn N` near their extrapolated time
    /// (`Pads::set_server_time`), and a key string found is filed at once.
    fn date_groups(&mut self) {
        let challenge = self.st.xor_challenge();
        if (self.st.pads).set_server_time(self.st.server_time.get(), challenge) {
            self.take_recovered_texts();
        }
    }

    /// Whether a held message's key is known now: a pad that reaches its end, or its key
    /// string with the challenge byte.
    fn decodable(&self, h: &Held) -> bool {
        let st = &self.st;
        if let Some(u) = h.usercmds {
            if u.keys_of != self.usercmd_keys_of() {
                return false;
            }
            let hash = st.server_cmds.get(u.rack).map(client::hash_key);
            let key = st.ucmd_keys.lookup(Some(u.server_id), u.rack, hash);
            return key.is_some_and(|k| k.mask == super::ucmdkey::ALL_BITS);
        }
        if h.to_server {
            return self.client_group((h.ack, h.server_id)).covers(h);
        }
        st.pads.covers(false, h.ack, h.need as usize)
            || (st.xor_challenge().is_some() && st.client_cmds.get(h.ack).is_some())
    }

    /// Decodes the held messages whose key is known now, in order in each direction; with
    /// `overtaking` a server message is about to be decoded, and the held server messages that
    /// still cannot be are released as first shown (decoding them after it would take the
    /// snapshots and configstrings back in time). A message whose group's search gave up is
    /// released too. The server messages stop at the first one still held for its pad; client
    /// messages, which a replay decodes without changing what later ones read, are passed over
    /// whatever overtakes them (decoded once their pad or usercmd key is known, or released
    /// when a new level changed the usercmd keys): a look at each held client message, at most
    /// [`CLIENT_GROUPS_LOOKED_AT`] of their groups, and one or two server messages per
    /// datagram, at most [`super::hold::HOLD_MESSAGES`] messages.
    fn drain_held(&mut self, overtaking: Option<bool>) {
        if self.hold.replaying {
            return;
        }
        // The first server time, read from the message about to be decoded, may give the
        // key string of held client messages it overtakes.
        self.date_groups();
        let mut waiting = self.hold.per_direction();
        // Whether the usercmd key of the held client messages is known (looked at once per
        // key: they mostly share one).
        let mut usercmds_due: Option<(UsercmdKey, bool)> = None;
        let mut client_groups: Vec<ClientGroup> = Vec::new();
        let mut looked = 0;
        let mut i = 0;
        while waiting != [false; 2] {
            let Some(h) = self.hold.get(i) else { break };
            let dir = usize::from(h.to_server);
            let unheld = if !waiting[dir] {
                None
            } else if let Some(key) = h.usercmds {
                // Decoded again without changing what a later message reads (`replay`): it
                // waits, whatever overtakes it, and the messages behind it are looked at.
                if key.keys_of != self.usercmd_keys_of() {
                    Some(Some(Unheld::NewLevel))
                } else {
                    let due = match usercmds_due {
                        Some((k, due)) if k == key => due,
                        _ => self.decodable(h),
                    };
                    usercmds_due = Some((key, due));
                    due.then_some(None)
                }
            } else if h.to_server {
                // Likewise a client message held for its pad (looked at once per group; the
                // held messages of a group mostly follow one another).
                let key = (h.ack, h.server_id);
                let same = |g: &ClientGroup| (g.ack, g.server_id) == key;
                let g = match client_groups.last().filter(|g| same(g)) {
                    Some(g) => Some(*g),
                    None => match client_groups.iter().position(same) {
                        Some(k) => {
                            let g = client_groups.remove(k);
                            client_groups.push(g);
                            Some(g)
                        }
                        None if looked < CLIENT_GROUPS_LOOKED_AT => {
                            looked += 1;
                            let g = self.client_group(key);
                            client_groups.push(g);
                            Some(g)
                        }
                        // Many groups (a crafted flow): this one waits for a later datagram.
                        None => None,
                    },
                };
                match g {
                    Some(g) if g.covers(h) => Some(None),
                    Some(g) if !g.may_recover => Some(Some(Unheld::SearchEnded)),
                    _ => None,
                }
            } else if self.decodable(h) {
                Some(None)
            } else if overtaking == Some(h.to_server) {
                Some(Some(Unheld::Overtaken))
            } else if !self.may_recover(h.to_server, h.ack) {
                Some(Some(Unheld::SearchEnded))
            } else {
                waiting[dir] = false;
                None
            };
            let Some(why) = unheld else {
                i += 1;
                continue;
            };
            let Some(h) = self.hold.remove(i) else { break };
            match why {
                None => {
                    self.replay(h, Unheld::Overtaken, Some(i));
                    // It may have filed a text or found the challenge byte (a replay costs
                    // far more than looking at the groups again).
                    client_groups.clear();
                    looked = 0;
                }
                Some(why) => self.release_as_shown(&h, why),
            }
            let left = self.hold.per_direction();
            waiting = [waiting[0] && left[0], waiting[1] && left[1]];
        }
    }

    /// What the held client messages acknowledging server command `ack` under `server_id`
    /// wait for.
    fn client_group(&self, (ack, server_id): (u32, Option<i32>)) -> ClientGroup {
        let st = &self.st;
        ClientGroup {
            ack,
            server_id,
            pad: st.pads.pad_len(true, ack),
            text: st.xor_challenge().is_some() && st.acked_text(ack, server_id).is_some(),
            may_recover: self.may_recover(true, ack),
        }
    }

    /// Before a server message overtakes held ones keyed with a client command that was not
    /// captured, the names it shows (read in a scratch parse) and those known before try their
    /// likely `userinfo` commands on the held messages' groups: a client that has not chatted
    /// since it joined keys the server's messages with its userinfo, and the names often show
    /// only in the message that overtakes them (a chat line's echo).
    fn predict_for_held(&mut self, s: &Sequenced<'_>, body: &[u8]) {
        let Some(cb) = self.st.xor_challenge().filter(|_| !s.to_server) else {
            return;
        };
        let groups = self.hold.server_groups();
        if groups.is_empty() || self.hold.replaying {
            return;
        }
        let mut probe = State::default();
        let (mut t, mut sum) = (TreeBuilder::new(false), Summary::default());
        let loc = Loc { source: 0, base: 0 };
        probe.parse_server(body, s.h.sequence, loc, &mut t, &mut sum);
        let mut names = probe.known_names();
        for name in self.st.known_names() {
            if !names.contains(&name) {
                names.push(name);
            }
        }
        names.truncate(super::userinfo::NAMES);
        let texts = self.st.predicted_userinfos(&names);
        for &ack in &groups {
            if !self.st.try_echo_held(ack, &names) {
                self.st.pads.try_prefixes((false, ack), &texts, cb);
            }
        }
        self.carried_for_held(&groups, cb);
    }

    /// The pads the known commands give the messages that carried them (carried.rs): first
    /// the client-message groups', with the client's newest commands, then the held server
    /// messages' groups, with the server's newest commands and the starts of those read off
    /// the client groups' pads.
    fn carried_for_held(&mut self, groups: &[u32], cb: u8) {
        let newest = |ring: &super::Ring| {
            let mut known: Vec<(u32, &[u8])> = ring.texts().collect();
            known.sort_unstable_by_key(|&(n, _)| std::cmp::Reverse(n));
            (known.into_iter().take(legacykey::CARRIED_COMMANDS))
                .map(|(number, t)| Carried {
                    number,
                    text: t.to_vec(),
                    whole: true,
                })
                .collect::<Vec<Carried>>()
        };
        let client = newest(&self.st.client_cmds);
        let acks: Vec<u32> = self.st.pads.client_acks().collect();
        for &ack in &acks {
            self.st.pads.try_carried((true, ack), &client, cb);
        }
        let mut server = newest(&self.st.server_cmds);
        for ack in acks {
            if self.st.server_cmds.get(ack).is_some() {
                continue;
            }
            if let Some(text) = self.st.pads.key_start(ack, cb) {
                let whole = false;
                server.push(Carried {
                    number: ack,
                    text,
                    whole,
                });
            }
        }
        for &ack in groups {
            self.st.pads.try_carried((false, ack), &server, cb);
        }
        self.take_recovered_texts();
    }

    /// Releases a held message at a bound: decoded when its key is known, or, held for its
    /// usercmd key, as far as that key is known; else as first shown.
    fn release_at_bound(&mut self, h: Held) {
        let same_keys = h
            .usercmds
            .is_some_and(|u| u.keys_of == self.usercmd_keys_of());
        if same_keys || self.decodable(&h) {
            self.replay(h, Unheld::Bound, None);
        } else {
            self.release_as_shown(&h, Unheld::Bound);
        }
    }

    /// Releases `h` as first shown. One first shown keyed, counted since as decoded with its
    /// usercmds keyed (held for them once its pad was found), counts keyed again, and not
    /// de-keyed with a pad.
    fn release_as_shown(&mut self, h: &Held, why: Unheld) {
        if h.first_keyed() {
            let st = &mut self.st;
            st.messages_decoded = st.messages_decoded.saturating_sub(1);
            st.usercmds_keyed = st.usercmds_keyed.saturating_sub(1);
            if h.counted_by_pad() {
                st.messages_recovered = st.messages_recovered.saturating_sub(1);
            }
            st.messages_keyed += 1;
        }
        self.hold.keep(h, why);
    }

    /// Decodes a held message again; released decoded, or as first shown (`why`) when it stays
    /// keyed after all. A message held for its pad whose usercmd values are still keyed is held
    /// on for their key at place `at` of the queue (where it was), when given; one held for its
    /// usercmd key is released as far as that key is known.
    fn replay(&mut self, h: Held, why: Unheld, at: Option<usize>) {
        // Its first decode counted it keyed, or decoded with its usercmds keyed.
        if h.usercmds.is_some() {
            self.st.messages_decoded = self.st.messages_decoded.saturating_sub(1);
            self.st.usercmds_keyed = self.st.usercmds_keyed.saturating_sub(1);
        } else {
            self.st.messages_keyed = self.st.messages_keyed.saturating_sub(1);
        }
        let d = h.datagram();
        let mut r = Record::new("quake3");
        let recovered = self.st.messages_recovered;
        self.hold.replaying = true;
        self.hold.replaying_usercmds = h.usercmds.is_some();
        (self.hold.replay_key_shown, self.hold.key_shown) = (h.key_shown, false);
        // An old client message's serverId is not the one the client holds now; nor is its
        // time the newest the flow knows.
        let holds = self.st.client_server_id.get();
        let time = self.st.server_time.get();
        if h.to_server && self.hold.decoded_since(&h) {
            // Later messages were decoded since it came: its usercmds are no anchors for the
            // next one (`UcmdKeys::remember`), and its time not the flow's newest.
            let anchors = self.st.ucmd_keys.remembered();
            self.decode_netchan(&d, &mut r);
            self.st.ucmd_keys.remember(anchors);
            self.st.server_time.set(time);
        } else {
            self.decode_netchan(&d, &mut r);
        }
        self.st.client_server_id.set(holds);
        self.hold.replaying = false;
        self.hold.replaying_usercmds = false;
        self.finish_record(&d, &mut r);
        r.notes.splice(0..0, h.sequence_notes.iter().cloned());
        let usercmds_keyed = self.hold.usercmd_candidate.take();
        if r.msg_type == "keyed" && h.usercmds.is_some() && !h.first_keyed() {
            // Shown as it first was: counted so again.
            self.st.messages_keyed = self.st.messages_keyed.saturating_sub(1);
            self.st.messages_decoded += 1;
            self.st.usercmds_keyed += 1;
            self.hold.keep(&h, why);
        } else if r.msg_type == "keyed" {
            if h.counted_by_pad() {
                // De-keyed by the replay that held it for its usercmd key: shown keyed now.
                self.st.messages_recovered = self.st.messages_recovered.saturating_sub(1);
            }
            self.hold.keep(&h, why);
        } else if let (Some(key), Some(i), None) = (usercmds_keyed, at, h.usercmds) {
            // Counted decoded with its usercmds keyed, as one held for them from the start.
            let notes = h.sequence_notes.clone();
            let mut again = Held::for_usercmds(&d, key, notes);
            again.key_shown = self.hold.key_shown;
            again.need = if self.st.messages_recovered > recovered {
                super::hold::FIRST_KEYED_BY_PAD
            } else {
                super::hold::FIRST_KEYED
            };
            self.hold.insert(i, again);
        } else if h.usercmds.is_some() && has_note(&r, &notes::KEY_UNKNOWN) {
            self.hold.partly(&h, r, why);
        } else {
            self.hold.decoded(&h, vec![r]);
        }
    }
}

/// Groups of held client messages [`Flow::drain_held`] looks at per datagram: the messages of
/// other groups wait for a later datagram (a crafted flow with a new group per message would
/// otherwise make each datagram look at every held one's group).
const CLIENT_GROUPS_LOOKED_AT: usize = 16;

/// A group of held client messages as [`Flow::drain_held`] looks at it: the keyed bytes its
/// pad reaches, whether its key string is known, and whether its key may still be found.
#[derive(Clone, Copy)]
struct ClientGroup {
    ack: u32,
    server_id: Option<i32>,
    pad: usize,
    text: bool,
    may_recover: bool,
}

impl ClientGroup {
    /// Whether held message `h` of the group can be de-keyed now.
    fn covers(&self, h: &Held) -> bool {
        self.text || h.need as usize <= self.pad
    }
}

/// Whether `r` carries a note of kind `def`.
fn has_note(r: &Record, def: &NoteDef) -> bool {
    r.notes.iter().any(|n| std::ptr::eq(n.def, def))
}

/// The sequence notes of a record about to be held: a held message's sequence is not tracked
/// again when it is decoded again.
fn sequence_notes(r: &Record) -> Vec<crate::tree::Note> {
    (r.notes.iter())
        .filter(|n| std::ptr::eq(n.def, &notes::SEQUENCE_GAP))
        .cloned()
        .collect()
}

/// How a message's XOR key was known, for `quake3.netchan.xor_source`: `recovered` when its key
/// string was read off a recovered pad or predicted rather than captured.
fn key_source(st: &State, recovered: bool) -> &'static str {
    if recovered {
        "recovered text"
    } else if st.challenge.is_some() {
        "handshake"
    } else {
        "other direction"
    }
}

/// Back to the heading alone (the summary is written in place: no copy per message).
fn reset_summary(sum: &mut Summary, heading_len: usize) {
    sum.text.truncate(heading_len);
    sum.parts = 0;
    sum.msg_type = "";
}

/// Messages in a row that decide the flavour without a handshake: parsing cleanly in the
/// ioquake3 layout, or not.
const IOQ3_RUN: u8 = 4;
const LEGACY_RUN: u8 = 2;
// The notes and flow facts spell these numbers out (`undecided`, `flavour_from_messages`).
const _: () = assert!(IOQ3_RUN == 4 && LEGACY_RUN == 2);
/// A server message this long that parses cleanly in the ioquake3 layout decides alone: a
/// snapshot's or gamestate's grammar over 64 bytes does not end exactly at EOF by chance.
const LONG_SERVER_MESSAGE: usize = 64;

/// Without a handshake: whether the datagram parses cleanly in the ioquake3 layout (with a
/// checksum field), to its EOF operation in its last byte, and whether it is a server message of
/// at least [`LONG_SERVER_MESSAGE`] bytes; `None` for a fragment or a datagram too short for
/// the header, which tell nothing.
fn parses_as_ioq3(p: &[u8], to_server: bool) -> Option<(bool, bool)> {
    let h = netchan::parse_header(p, to_server, Flavour::Ioq3)?;
    if h.fragmented {
        return None;
    }
    let body = &p[h.len.min(p.len())..];
    let mut probe = State::default();
    let clean =
        legacykey::trial(&mut probe, to_server, body, h.sequence) == legacykey::Trial::Clean;
    Some((clean, !to_server && body.len() >= LONG_SERVER_MESSAGE))
}

/// The key string a legacy client message is keyed with, when known: the captured text of the
/// server command it acknowledges, or its ring slot's when the gamestate covers it
/// ([`State::acked_text`]). Guesses (an older text in the slot, the empty string) are not
/// tried: a client message parses cleanly under a wrong key string often enough (its usercmd
/// values are keyed again and read as whatever they are) to show wrong values; such a message
/// goes to the pad recovery, which checks a pad on many messages.
fn key_candidates(st: &State, rack: u32, server_id: i32) -> Vec<&[u8]> {
    st.acked_text(rack, Some(server_id)).into_iter().collect()
}

/// Whether a trial parse under a candidate key is clean: no error, and the message ends where
/// the server stops reading (`clc_EOF` after the move). Under a wrong key string the bytes after
/// the first few mis-parse, so a parse that only warns is not taken as proof either.
fn parsed_clean(t: &TreeBuilder) -> bool {
    !t.notes
        .iter()
        .any(|n| n.severity() == Severity::Error || std::ptr::eq(n.def, &notes::NO_CLC_EOF))
}

/// Parses a legacy client message de-keyed with each candidate in turn until one parses
/// cleanly (ioquake3 code/server/sv_net_chan.c `SV_Netchan_Decode`); `None`, with the keyed
/// bytes restored and the summary as it was, when none does: the key string was not captured,
/// and a parse under a wrong key would show invented values and errors the bytes do not have.
///
/// Each candidate de-keys the body in place; the XOR stream does not depend on the data, so
/// applying it again restores the keyed bytes for the next candidate.
fn legacy_client(
    st: &State,
    msg: &mut Message<'_>,
    key: u8,
    candidates: &[&[u8]],
    loc: Loc,
    detail: Detail,
    sum: &mut Summary,
) -> Option<ClientParse> {
    let heading_len = sum.text.len();
    let body = &mut msg.body;
    for &cand in candidates {
        netchan::xor(body, 12, key, cand);
        let mut tree = TreeBuilder::new(detail);
        let mut cmds = Vec::new();
        let mut obs = Vec::new();
        st.parse_client(body, Some(cand), loc, &mut tree, sum, &mut cmds, &mut obs);
        if parsed_clean(&tree) {
            let key = detail.on().then(|| cand.to_vec());
            let text = if obs.is_empty() {
                Vec::new()
            } else {
                cand.to_vec()
            };
            return Some(ClientParse {
                tree,
                cmds,
                key,
                obs,
                text,
            });
        }
        reset_summary(sum, heading_len);
        netchan::xor(body, 12, key, cand);
    }
    None
}

/// Without the key only the unkeyed acknowledgements at the start of a message are shown.
fn unkeyed_prefix(
    message: &[u8],
    to_server: bool,
    acks: Option<(i32, u32, u32)>,
    loc: Loc,
    t: &mut TreeBuilder,
    sum: &mut Summary,
) {
    if to_server {
        t.open(&CLC, Value::None, loc.bits(0, 0));
        if let Some((sid, mack, rack)) = acks {
            t.add(&CLC_SERVER_ID, Value::Int(sid as i64), loc.bits(0, 0));
            t.add(&CLC_MESSAGE_ACK, Value::UInt(mack as u64), loc.bits(0, 0));
            t.add(&CLC_RELIABLE_ACK, Value::UInt(rack as u64), loc.bits(0, 0));
            sum.add(format_args!("ack {mack} (keyed, not decoded)"));
        }
    } else {
        t.open(&SVC, Value::None, loc.bits(0, 0));
        let mut rd = bits::BitReader::new(message);
        if let Ok(a) = rd.ulong() {
            t.add(
                &SVC_RELIABLE_ACK,
                Value::UInt(a as u64),
                loc.bits(0, rd.pos()),
            );
            sum.add(format_args!("reliable ack {a} (keyed, not decoded)"));
        }
    }
    t.close_as_is();
    sum.msg_type = "keyed";
}

/// Moves the nodes and notes of a scratch builder under the innermost open group of `t`.
fn graft(t: &mut TreeBuilder, tt: TreeBuilder) {
    let mut tmp = Record::new("quake3");
    tt.finish_into(0, &mut tmp);
    for f in tmp.fields {
        let Field {
            def,
            value,
            meaning,
            pos,
            children,
        } = f;
        let n = t.add(def, value, pos);
        n.meaning = meaning;
        n.children = children;
    }
    t.notes.extend(tmp.notes);
}

impl FlowDecoder for Flow {
    fn decode(&mut self, d: &Datagram<'_>, out: &mut Vec<Record>) {
        self.hold.last = false;
        self.hold.candidate = None;
        self.hold.usercmd_candidate = None;
        self.hold.key_shown = false;
        // Built where it stays (moving a finished record was a visible share of a summary run).
        out.push(Record::new("quake3"));
        let Some(r) = out.last_mut() else { return };
        self.st.frames += 1;
        self.st.pads.conversations = d.conversations;
        self.overhear(d);
        self.date_groups();
        if d.payload.len() >= 4 && d.payload[..4] == [0xff; 4] {
            self.decode_oob(d, r);
        } else {
            self.decode_netchan(d, r);
        }
        self.finish_record(d, r);
        if let Some((server_id, ack, need)) = self.hold.candidate.take() {
            let mut held = Held::new(d, (ack, need), sequence_notes(r));
            held.server_id = server_id;
            let over = self.hold.push(held);
            over.into_iter().for_each(|h| self.release_at_bound(h));
        } else if let Some(key) = self.hold.usercmd_candidate.take() {
            let mut h = Held::for_usercmds(d, key, sequence_notes(r));
            h.key_shown = self.hold.key_shown;
            let over = self.hold.push(h);
            over.into_iter().for_each(|h| self.release_at_bound(h));
        }
        self.drain_held(None);
    }

    fn learning(&mut self) -> Option<&mut dyn Learning> {
        Some(self)
    }

    fn state_bytes(&self) -> usize {
        let s = &self.st;
        self.hold.bytes()
            + s.frag[0].data.capacity()
            + s.frag[1].data.capacity()
            + s.client_cmds.bytes()
            + s.ucmd_keys.bytes()
            + (s.hinted_names.iter()).map(Vec::capacity).sum::<usize>()
            + (s.overheard_names.iter()).map(Vec::capacity).sum::<usize>()
            + s.pads.bytes()
            + s.server_cmds.bytes()
            + s.baseline_bytes()
            + s.snaps
                .slots()
                .iter()
                .map(|sn| {
                    // An entity state is shared by the snapshots that leave it unchanged: a
                    // quarter of one (with its Arc counts) per slot, and the slot itself.
                    let shared = (16 + std::mem::size_of::<KnownEnt>()) / 4;
                    sn.nums.capacity() * 2
                        + sn.states.capacity() * (8 + shared)
                        + std::mem::size_of::<super::server::Snap>()
                })
                .sum::<usize>()
    }

    fn describe(&self) -> Vec<(String, String)> {
        let s = &self.st;
        let mut v = Vec::new();
        if let Some((f, how)) = s.flavour {
            v.push(("netchan".into(), format!("{} ({how})", f.name())));
        }
        if let Some(p) = s.protocol {
            v.push(("protocol".into(), p.to_string()));
        }
        if s.messages_decoded + s.messages_keyed > 0 {
            let usercmds = if s.usercmds_keyed > 0 {
                format!(" ({} with usercmd values still keyed)", s.usercmds_keyed)
            } else {
                String::new()
            };
            v.push((
                "game messages".into(),
                format!(
                    "{} decoded{usercmds}, {} left keyed (key not captured)",
                    s.messages_decoded, s.messages_keyed
                ),
            ));
        }
        if s.flavour.is_some_and(|(f, _)| f == Flavour::Legacy) {
            let how = match (s.challenge, s.pads.challenge) {
                (Some(_), _) => {
                    "challenge from the handshake; key strings from the captured commands".into()
                }
                (None, Some(cb)) => format!(
                    "challenge byte {cb:#04x} recovered from the keyed messages; key strings from the captured commands"
                ),
                (None, None) => "challenge not known (no handshake captured)".to_string(),
            };
            v.push(("xor keys".into(), how));
            if let Some(held) = self.hold.describe() {
                v.push(("held".into(), held));
            }
            let listed = |names: &[Vec<u8>]| {
                (names.iter())
                    .map(|n| String::from_utf8_lossy(n).into_owned())
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            if !s.hinted_names.is_empty() {
                v.push((
                    "names from the first pass (-2)".into(),
                    format!(
                        "{} (tried as key material from the start)",
                        listed(&s.hinted_names)
                    ),
                ));
            }
            if !s.overheard_names.is_empty() {
                v.push((
                    "names overheard".into(),
                    format!(
                        "{} (the server's status to a server browser, tried as key material)",
                        listed(&s.overheard_names)
                    ),
                ));
            }
            if s.pads.work > 0 {
                v.push((
                    "xor pads".into(),
                    format!(
                        "{} messages de-keyed with a pad recovered from the keyed messages ({} work steps)",
                        s.messages_recovered, s.pads.work
                    ),
                ));
            }
        }
        if s.checksum_feed.is_none()
            && let Some(how) = s.ucmd_keys.describe()
        {
            v.push(("usercmd key".into(), how));
        }
        if let Some(c) = s.challenge {
            v.push(("challenge".into(), c.to_string()));
        }
        if let Some(m) = &s.map {
            v.push(("map".into(), m.clone()));
        }
        if !s.players.is_empty() {
            v.push(("players".into(), s.players.join(", ")));
        }
        v
    }
}

impl Learning for Flow {
    fn holds_last(&self) -> bool {
        self.hold.last
    }

    fn released(&mut self, out: &mut Vec<Release>) {
        self.hold.take_released(out);
    }

    fn give_up(&mut self, through: u64) {
        while self.hold.front().is_some_and(|h| h.frame <= through) {
            let Some(h) = self.hold.pop() else { break };
            self.release_at_bound(h);
        }
    }

    /// What a flow learned that keys its earlier messages (`Learned`): a legacy flow's player
    /// names (its XOR keys wrap chat lines and user infos in them, so a name learned late keys
    /// messages sent long before it shows), and the low 16 bits of checksumFeed the usercmd key
    /// recovery found per serverId (the moves before it had enough values stayed keyed).
    fn hindsight(&self) -> Vec<Vec<u8>> {
        let names = match self.st.flavour {
            Some((Flavour::Legacy, _)) => self.st.known_names(),
            _ => Vec::new(),
        };
        let names = names.into_iter().map(|n| Learned::Name(n).to_bytes());
        let feeds = (self.st.ucmd_keys.feeds().into_iter()).map(|f| Learned::Feed(f).to_bytes());
        names.chain(feeds).collect()
    }

    fn foresee(&mut self, learned: &[Vec<u8>]) {
        let (mut names, mut feeds) = (Vec::new(), Vec::new());
        for l in learned.iter().filter_map(|b| Learned::from_bytes(b)) {
            match l {
                Learned::Name(n) if names.len() < super::userinfo::NAMES => names.push(n),
                Learned::Name(_) => {}
                Learned::Feed(f) => feeds.push(f),
            }
        }
        self.st.hinted_names = names;
        self.st.ucmd_keys.hint(&feeds);
    }
}

/// One thing a Quake 3 flow learned in a first pass (`-2`), as the engine keeps it: a tag byte
/// and its bytes.
#[derive(Debug, Clone, PartialEq)]
enum Learned {
    /// A player name.
    Name(Vec<u8>),
    /// A serverId and the low 16 bits of checksumFeed recovered under it.
    Feed((i32, Recovered)),
}

impl Learned {
    const NAME: u8 = b'n';
    const FEED: u8 = b'f';

    fn to_bytes(&self) -> Vec<u8> {
        match self {
            Learned::Name(n) => [&[Self::NAME][..], n].concat(),
            Learned::Feed((id, r)) => {
                let mut b = vec![Self::FEED];
                b.extend_from_slice(&id.to_le_bytes());
                b.extend_from_slice(&r.u.to_le_bytes());
                b.extend_from_slice(&r.mask.to_le_bytes());
                b.extend_from_slice(&r.from.to_le_bytes());
                b
            }
        }
    }

    fn from_bytes(b: &[u8]) -> Option<Learned> {
        let (&tag, rest) = b.split_first()?;
        match tag {
            Self::NAME if !rest.is_empty() => Some(Learned::Name(rest.to_vec())),
            Self::FEED => {
                let f: [u8; 12] = rest.try_into().ok()?;
                let id = i32::from_le_bytes([f[0], f[1], f[2], f[3]]);
                let r = Recovered {
                    u: u16::from_le_bytes([f[4], f[5]]),
                    mask: u16::from_le_bytes([f[6], f[7]]),
                    from: u32::from_le_bytes([f[8], f[9], f[10], f[11]]),
                    hindsight: true,
                };
                Some(Learned::Feed((id, r)))
            }
            _ => None,
        }
    }
}

const DEMO_FLAVOUR: &str = "demo input: its records behind a pseudo header in the ioquake3 layout";

/// Whether the datagram is a demo record read as input: the capture reader's one pseudo flow,
/// 0.0.0.0:27960 → 0.0.0.0:0 (docs/protocols/quake3.md, "Demos as input"). Port 0 is no
/// sender's or receiver's UDP port, so no captured datagram has it.
fn is_demo(d: &Datagram<'_>) -> bool {
    let (server, client) = match d.direction {
        Direction::ToServer => (d.dst, d.src),
        _ => (d.src, d.dst),
    };
    client.port() == 0
        && server.port() == 27960
        && client.ip().is_unspecified()
        && server.ip().is_unspecified()
}

#[cfg(test)]
mod learned_tests {
    use super::*;

    /// What a flow learned survives the engine's byte strings; anything else (cut, unknown tag,
    /// empty) is dropped without a panic.
    #[test]
    fn learned_items_round_trip_and_garbage_is_dropped() {
        let feed = Recovered {
            u: 0xb660,
            mask: 0x7fff,
            from: 144,
            hindsight: true,
        };
        for l in [
            Learned::Name(b"BusyRenamed".to_vec()),
            Learned::Feed((57058, feed)),
            Learned::Feed((-3, feed)),
        ] {
            assert_eq!(Learned::from_bytes(&l.to_bytes()), Some(l));
        }
        let whole = Learned::Feed((57058, feed)).to_bytes();
        assert_eq!(whole.len(), 13);
        for bad in [
            &b""[..],
            b"n",
            b"x12",
            &whole[..12],
            &[whole.clone(), vec![0]].concat(),
        ] {
            assert_eq!(Learned::from_bytes(bad), None, "{bad:?}");
        }
    }
}
