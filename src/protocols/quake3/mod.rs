//! Quake III Arena (id 1.32 protocol 68, ioquake3, OpenArena 0.8.8).
//!
//! Layers: connectionless text commands ([`connectionless`]); the netchan header, fragments,
//! checksum and legacy XOR keying ([`netchan`]); the Huffman bit stream ([`huffman`],
//! [`msg`]); server messages ([`server`]) with delta-coded states ([`delta`]); client messages
//! with keyed usercmds ([`client`]). The reference is /work/shared/protocols/quake3.md (it cites
//! ioquake/ioq3 and id-Software/Quake-III-Arena for every table); docs/protocols/quake3.md
//! records the decisions.

pub mod client;
pub mod connectionless;
pub mod constants;
pub mod delta;
pub mod fields;
pub mod huffman;
pub mod msg;
pub mod netchan;
pub mod notes;
pub mod server;
pub mod tables;

use std::borrow::Cow;

use crate::proto::{
    Datagram, Direction, FlowDecoder, Prefs, Probe, ProbeInput, Protocol, ProtocolInfo, Role,
};
use crate::tree::{Field, Pos, Record, Severity, Source, TreeBuilder, Value};
use constants::MAX_RELIABLE_COMMANDS;
use delta::EntState;
use fields::*;
use msg::Loc;
use netchan::{Flavour, FragResult, Reassembly};
use server::{SnapRing, Summary};

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
        Box::new(Flow::default())
    }
}

/// The reliable commands of one side, indexed by number modulo MAX_RELIABLE_COMMANDS.
pub struct Ring {
    slots: Vec<(u32, Vec<u8>)>,
}

impl Default for Ring {
    fn default() -> Self {
        Ring {
            slots: vec![(u32::MAX, Vec::new()); MAX_RELIABLE_COMMANDS],
        }
    }
}

impl Ring {
    /// Stores a command; returns whether it was new.
    pub fn put(&mut self, num: u32, text: &[u8]) -> bool {
        let slot = &mut self.slots[num as usize % MAX_RELIABLE_COMMANDS];
        if slot.0 == num {
            return false;
        }
        slot.0 = num;
        slot.1.clear();
        slot.1.extend_from_slice(text);
        true
    }
    /// The text of command `num` when it was captured (number 0 = nothing yet: empty).
    pub fn get(&self, num: u32) -> Option<&[u8]> {
        let slot = &self.slots[num as usize % MAX_RELIABLE_COMMANDS];
        if slot.0 == num {
            Some(&slot.1)
        } else if num == 0 {
            Some(b"")
        } else {
            None
        }
    }
    /// Whatever the slot of `num` holds (what a client that missed `num` would use).
    pub fn slot(&self, num: u32) -> &[u8] {
        &self.slots[num as usize % MAX_RELIABLE_COMMANDS].1
    }
    fn bytes(&self) -> usize {
        self.slots.iter().map(|s| s.1.capacity() + 32).sum()
    }
}

/// Per-flow protocol state (reference §16).
#[derive(Default)]
pub struct State {
    pub flavour: Option<(Flavour, &'static str)>,
    pub challenge: Option<i32>,
    pub protocol: Option<u32>,
    pub qport: Option<u16>,
    pub frag: [Reassembly; 2],
    pub client_cmds: Ring,
    pub server_cmds: Ring,
    pub checksum_feed: Option<i32>,
    pub client_num: Option<u32>,
    pub server_id: Option<i32>,
    pub map: Option<String>,
    pub players: Vec<String>,
    pub bcs: Option<(u32, Vec<u8>)>,
    /// Last sequence seen per direction (0 = to client, 1 = to server).
    pub last_seq: [Option<u32>; 2],
    /// A gamestate was decoded: absent baselines are known to be zero.
    pub have_gamestate: bool,
    baselines: Vec<Option<Box<EntState>>>,
    pub snaps: SnapRing,
    /// Reused by every delta read, so that its few hundred bytes are not zeroed and moved each
    /// time.
    scratch_changes: delta::Changes,
    pub frames: u64,
    pub errors: u64,
}

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
        self.baselines[num as usize] = Some(Box::new(st));
    }
    /// A gamestate starts a new level: old baselines and snapshots no longer apply.
    pub fn gamestate_seen(&mut self, _command_sequence: u32) {
        self.baselines.clear();
        self.snaps.clear();
        self.bcs = None;
    }
    fn new_connection(&mut self) {
        self.flavour = None;
        self.last_seq = [None; 2];
        self.frag = Default::default();
        self.client_cmds = Ring::default();
        self.server_cmds = Ring::default();
        self.checksum_feed = None;
        self.baselines.clear();
        self.snaps.clear();
    }
}

#[derive(Default)]
struct Flow {
    st: State,
}

fn root_field(len: usize) -> Field {
    Field::new(&ROOT, Value::None, Pos::bytes(0, len))
}

impl Flow {
    fn decode_oob(&mut self, d: &Datagram<'_>, r: &mut Record) {
        let mut t = TreeBuilder::new(d.detail);
        t.open(&ROOT, Value::None, Pos::bytes(0, d.payload.len()));
        let res = connectionless::decode(d.payload, &mut t);
        t.finish_into(d.payload.len(), r);
        let l = res.learned;
        if l.new_connection {
            // A new handshake: keep what this packet teaches, forget the old connection.
            let keep = (self.st.challenge, self.st.protocol, self.st.qport);
            if res.msg_type == "challengeResponse" || res.msg_type == "connect" {
                self.st.new_connection();
            }
            self.st.challenge = l.challenge.or(keep.0);
            self.st.protocol = l.protocol.or(keep.1);
            self.st.qport = l.qport.or(keep.2);
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

    /// Decides the netchan flavour from what the flow showed (reference §14).
    fn decide_flavour(&mut self, p: &[u8], to_server: bool, t: &mut TreeBuilder) -> Flavour {
        if let Some((f, _)) = self.st.flavour {
            return f;
        }
        let off = if to_server { 6 } else { 4 };
        let seq = netchan::le32(p, 0).unwrap_or(0) & !netchan::FRAGMENT_BIT;
        if p.len() < off + 4 {
            // Too short to test: decide on a later datagram.
            return Flavour::Legacy;
        }
        let decided = match (self.st.protocol, self.st.challenge) {
            (Some(68), _) => (Flavour::Legacy, "connect announced protocol 68"),
            (_, Some(ch)) => match netchan::le32(p, off) {
                Some(v) if v == netchan::checksum(ch, seq) => (
                    Flavour::Ioq3,
                    "the checksum after the header matches the challenge",
                ),
                _ => (
                    Flavour::Legacy,
                    "no checksum matching the challenge: legacy netchan",
                ),
            },
            (_, None) => {
                // No handshake captured: try the ioquake3 layout; a clean parse decides.
                let mut probe = State::default();
                let ok = netchan::parse_header(p, to_server, Flavour::Ioq3).is_some_and(|h| {
                    !h.fragmented && {
                        let mut tt = TreeBuilder::new(t.detail());
                        let mut sum = Summary::default();
                        let body = &p[h.len.min(p.len())..];
                        let loc = Loc { source: 0, base: 0 };
                        if to_server {
                            probe.parse_client(
                                body,
                                Some(b""),
                                loc,
                                &mut tt,
                                &mut sum,
                                &mut Vec::new(),
                            );
                        } else {
                            probe.parse_server(body, h.sequence, loc, &mut tt, &mut sum);
                        }
                        !tt.notes.iter().any(|n| n.severity == Severity::Error)
                    }
                });
                if ok {
                    (
                        Flavour::Ioq3,
                        "no handshake captured; the message parses with a checksum field",
                    )
                } else {
                    (Flavour::Legacy, "no handshake captured; assumed legacy")
                }
            }
        };
        t.expert(
            &notes::FLAVOUR,
            Some(&NC_FLAVOUR),
            None,
            format!("netchan flavour {}: {}", decided.0.name(), decided.1),
        );
        self.st.flavour = Some(decided);
        decided.0
    }

    fn decode_netchan(&mut self, d: &Datagram<'_>, r: &mut Record) {
        let p = d.payload;
        let to_server = d.direction == Direction::ToServer;
        // Trees wanted: when not, values that cost an allocation are not built.
        let detail = d.detail;
        let mut t = TreeBuilder::new(detail);
        t.open(&ROOT, Value::None, Pos::bytes(0, p.len()));
        let flavour = self.decide_flavour(p, to_server, &mut t);
        let dir = if to_server { "C→S" } else { "S→C" };
        let Some(h) = netchan::parse_header(p, to_server, flavour) else {
            t.expert(
                &notes::RUNT,
                Some(&NC_SEQUENCE),
                Some(Pos::bytes(0, p.len())),
                format!("{} bytes are too short for a netchan header", p.len()),
            );
            t.finish_into(p.len(), r);
            r.msg_type = Cow::Borrowed("runt");
            r.summary = format!("{dir} runt packet ({} bytes)", p.len());
            return;
        };
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
            let f = t.add(&NC_CHECKSUM, Value::UInt(c as u64), Pos::bytes(o, 4));
            match self.st.challenge {
                Some(ch) if netchan::checksum(ch, h.sequence) == c => {
                    f.meaning = Some("correct".into())
                }
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
        let how = self.st.flavour.map(|f| f.1).unwrap_or("");
        t.add(
            &NC_FLAVOUR,
            Value::Enum(flavour as i64, flavour.name()),
            Pos::bytes(0, h.len),
        )
        .meaning = detail.then(|| how.into());

        // The message: the rest of the datagram, or a reassembled buffer.
        let mut summary = String::with_capacity(128);
        summary.push_str(dir);
        summary.push_str(" seq ");
        server::push_uint(&mut summary, h.sequence as u64);
        // Sequence order (§3.2): the engine drops duplicates and older packets, counts gaps.
        if !h.fragmented || h.frag_start == 0 {
            let last = &mut self.st.last_seq[usize::from(to_server)];
            if let Some(l) = *last {
                if h.sequence <= l {
                    t.expert(&notes::SEQUENCE_OLD, Some(&NC_SEQUENCE), Some(Pos::bytes(0, 4)), format!("sequence {} is not newer than {l}: duplicate or out of order (the engine drops it)", h.sequence));
                } else if h.sequence - l > 1 {
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
        let data = &p[h.len..];
        let mut reassembled: Option<Vec<u8>> = None;
        if h.fragmented {
            let fl = h.frag_len as usize;
            if fl > data.len() {
                t.expert(
                    &notes::FRAGMENT_LENGTH,
                    Some(&NC_FRAG_LEN),
                    Some(Pos::bytes(o + 2, 2)),
                    format!("fragment length {fl} but only {} bytes follow", data.len()),
                );
                t.finish_into(p.len(), r);
                r.msg_type = Cow::Borrowed("fragment");
                r.summary = summary + " bad fragment";
                return;
            }
            let idx = usize::from(to_server);
            match self.st.frag[idx].add(h.sequence, h.frag_start as usize, &data[..fl]) {
                FragResult::Partial(have) => {
                    t.add(
                        &NC_FRAG_DATA,
                        Value::Bytes(data[..fl].into()),
                        Pos::bytes(h.len, fl),
                    );
                    t.finish_into(p.len(), r);
                    r.msg_type = Cow::Borrowed("fragment");
                    r.summary = format!(
                        "{summary} fragment at {} len {fl} ({have} bytes so far)",
                        h.frag_start
                    );
                    return;
                }
                FragResult::Dropped(why) => {
                    t.add(
                        &NC_FRAG_DATA,
                        Value::Bytes(data[..fl].into()),
                        Pos::bytes(h.len, fl),
                    );
                    t.expert(
                        &notes::FRAGMENT_DROPPED,
                        Some(&NC_FRAG_START),
                        Some(Pos::bytes(o, 2)),
                        why,
                    );
                    t.finish_into(p.len(), r);
                    r.msg_type = Cow::Borrowed("fragment");
                    r.summary =
                        format!("{summary} fragment at {} len {fl} (dropped)", h.frag_start);
                    return;
                }
                FragResult::Complete(buf) => {
                    t.add(
                        &NC_REASSEMBLED,
                        Value::UInt(buf.len() as u64),
                        Pos::bytes(h.len, fl),
                    );
                    summary.push_str(&format!(" [reassembled {}]", buf.len()));
                    reassembled = Some(buf);
                }
            }
        }
        let was_reassembled = reassembled.is_some();
        // The message is read in place unless it has to be de-keyed or was reassembled. (A
        // per-flow reused buffer for the copy was measured slower: its memory is cold.)
        let changed = flavour == Flavour::Legacy || was_reassembled;
        let mut body: Vec<u8> = match reassembled {
            Some(b) => b,
            None if changed => data.to_vec(),
            None => Vec::new(),
        };
        macro_rules! message {
            () => {
                if changed { &body[..] } else { data }
            };
        }
        let mut sum = Summary::after(summary);
        let mut keyed_ok = true;
        let mut key_text_client: Option<&[u8]> = None;
        // The acknowledgements at the start of a client message (never keyed).
        let acks = if to_server {
            client::read_acks(message!())
        } else {
            None
        };
        let mut candidates: Vec<&[u8]> = Vec::new();
        let mut chosen_key: Option<Vec<u8>> = None;
        if flavour == Flavour::Legacy {
            match self.st.challenge {
                None => {
                    keyed_ok = false;
                    t.expert(&notes::XOR_NO_CHALLENGE, None, None, "legacy XOR key material not captured (no challenge seen: the capture starts mid-connection); only the unkeyed acknowledgements are decoded");
                }
                Some(ch) => {
                    if to_server {
                        if let Some((sid, mack, rack)) = acks {
                            let key = (ch as u32 ^ sid as u32 ^ mack) as u8;
                            t.add(&NC_KEY, Value::UInt(key as u64), Pos::bytes(0, h.len));
                            if let Some(s) = self.st.server_cmds.get(rack) {
                                candidates.push(s);
                            }
                            let slot = self.st.server_cmds.slot(rack);
                            if !candidates.contains(&slot) {
                                candidates.push(slot);
                            }
                            if !candidates.iter().any(|c| c.is_empty()) {
                                candidates.push(b"");
                            }
                        } else {
                            keyed_ok = false;
                        }
                    } else {
                        let ack = msg::BitReader::new(message!()).ulong().ok();
                        match ack.and_then(|a| self.st.client_cmds.get(a)) {
                            Some(s) => {
                                let key = (ch as u32 ^ h.sequence) as u8;
                                t.add(&NC_KEY, Value::UInt(key as u64), Pos::bytes(0, h.len));
                                if detail {
                                    t.add_text(&NC_KEY_STRING, s, Pos::bytes(0, h.len));
                                }
                                netchan::xor(&mut body, 4, key, s);
                            }
                            None => {
                                keyed_ok = false;
                                t.expert(&notes::XOR_KEY_UNKNOWN, None, None, format!("legacy XOR key string not captured (client command {} was not seen); only the reliable acknowledge is decoded", ack.unwrap_or(0)));
                            }
                        }
                    }
                }
            }
        } else if let Some((_, _, rack)) = acks {
            key_text_client = Some(
                self.st
                    .server_cmds
                    .get(rack)
                    .unwrap_or(self.st.server_cmds.slot(rack)),
            );
        }
        t.close(h.len);

        let n_sources = r.sources.len();
        let loc = if changed {
            Loc {
                source: (n_sources + 1) as u8,
                base: 0,
            }
        } else {
            Loc {
                source: 0,
                base: h.len * 8,
            }
        };
        if !keyed_ok {
            // Only the unkeyed prefix is meaningful.
            let mut rd = msg::BitReader::new(message!());
            if to_server {
                t.open(&CLC, Value::None, loc.bits(0, 0));
                if let Some((sid, mack, rack)) = acks {
                    t.add(&CLC_SERVER_ID, Value::Int(sid as i64), loc.bits(0, 0));
                    t.add(&CLC_MESSAGE_ACK, Value::UInt(mack as u64), loc.bits(0, 0));
                    t.add(&CLC_RELIABLE_ACK, Value::UInt(rack as u64), loc.bits(0, 0));
                    sum.add(format_args!("ack {mack} (keyed, not decoded)"));
                }
                t.close_as_is();
            } else {
                t.open(&SVC, Value::None, loc.bits(0, 0));
                if let Ok(a) = rd.ulong() {
                    t.add(
                        &SVC_RELIABLE_ACK,
                        Value::UInt(a as u64),
                        loc.bits(0, rd.pos()),
                    );
                    sum.add(format_args!("reliable ack {a} (keyed, not decoded)"));
                }
                t.close_as_is();
            }
            sum.msg_type = "keyed";
        } else if to_server {
            // The client message parses into `tt` (its fields, grafted below), `sum` and `cmds`.
            let mut tt = TreeBuilder::new(detail);
            let mut cmds: Vec<(u32, Vec<u8>)> = Vec::new();
            if flavour == Flavour::Legacy {
                let ch = self.st.challenge.unwrap_or(0);
                let (sid, mack, _) = acks.unwrap_or((0, 0, 0));
                let key = (ch as u32 ^ sid as u32 ^ mack) as u8;
                // Each candidate de-keys `body` in place; the XOR stream does not depend on the
                // data, so applying it again restores the keyed bytes for the next candidate.
                // The first parse (written straight into `tt`, `sum` and `cmds`) is kept unless
                // a later one is clean; its bytes are copied only when another candidate follows.
                let clean =
                    |t: &TreeBuilder| !t.notes.iter().any(|n| n.severity == Severity::Error);
                if let Some((first, others)) = candidates.split_first() {
                    let heading_len = sum.text.len();
                    netchan::xor(&mut body, 12, key, first);
                    self.st
                        .parse_client(&body, Some(first), loc, &mut tt, &mut sum, &mut cmds);
                    if clean(&tt) {
                        chosen_key = detail.then(|| first.to_vec());
                    } else if !others.is_empty() {
                        let first_body = body.clone();
                        netchan::xor(&mut body, 12, key, first);
                        let mut found = false;
                        for (oi, cand) in others.iter().enumerate() {
                            netchan::xor(&mut body, 12, key, cand);
                            let mut tt2 = TreeBuilder::new(detail);
                            let mut heading = String::with_capacity(128);
                            heading.push_str(sum.text.get(..heading_len).unwrap_or(""));
                            let mut sum2 = Summary::after(heading);
                            let mut cmds2 = Vec::new();
                            self.st.parse_client(
                                &body,
                                Some(cand),
                                loc,
                                &mut tt2,
                                &mut sum2,
                                &mut cmds2,
                            );
                            if clean(&tt2) {
                                (tt, sum, cmds) = (tt2, sum2, cmds2);
                                chosen_key = detail.then(|| cand.to_vec());
                                found = true;
                                break;
                            }
                            if oi + 1 < others.len() {
                                netchan::xor(&mut body, 12, key, cand);
                            }
                        }
                        if !found {
                            body = first_body;
                        }
                    }
                }
            } else {
                self.st.parse_client(
                    message!(),
                    key_text_client,
                    loc,
                    &mut tt,
                    &mut sum,
                    &mut cmds,
                );
            }
            graft(&mut t, tt);
            for (n, text) in cmds {
                self.st.client_cmds.put(n, &text);
            }
        } else {
            self.st
                .parse_server(message!(), h.sequence, loc, &mut t, &mut sum);
        }
        if changed && detail {
            r.sources.push(Source {
                name: Cow::Borrowed(match (was_reassembled, flavour) {
                    (true, Flavour::Legacy) => "reassembled, de-keyed message",
                    (true, Flavour::Ioq3) => "reassembled message",
                    _ => "de-keyed message",
                }),
                data: body,
            });
        }
        t.finish_into(p.len(), r);
        if let Some(k) = chosen_key
            && let Some(nc) = r
                .fields
                .first_mut()
                .and_then(|root| root.children.iter_mut().find(|c| c.def == &NETCHAN))
        {
            nc.children.push(Field::new(
                &NC_KEY_STRING,
                Value::text(&k),
                Pos::bytes(0, h.len),
            ));
        }
        r.msg_type = Cow::Borrowed(if sum.msg_type.is_empty() {
            "netchan"
        } else {
            sum.msg_type
        });
        r.summary = sum.text;
    }
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
        // Built where it stays (moving a finished record was a visible share of a summary run).
        out.push(Record::new("quake3"));
        let Some(r) = out.last_mut() else { return };
        self.st.frames += 1;
        if d.payload.len() >= 4 && d.payload[..4] == [0xff; 4] {
            self.decode_oob(d, r);
        } else {
            self.decode_netchan(d, r);
        }
        // (Without trees no field is shown; a root node would cost an allocation per message.)
        if r.fields.is_empty() && d.detail {
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

    fn state_bytes(&self) -> usize {
        let s = &self.st;
        s.frag[0].data.capacity()
            + s.frag[1].data.capacity()
            + s.client_cmds.bytes()
            + s.server_cmds.bytes()
            + s.baselines.len() * 8
            + s.baselines.iter().flatten().count() * std::mem::size_of::<EntState>()
            + s.snaps
                .slots()
                .iter()
                .map(|sn| {
                    sn.nums.capacity() * 2
                        + sn.states.capacity() * (8 + std::mem::size_of::<EntState>() / 4)
                        + 400
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

#[cfg(test)]
mod tests;
