//! One FlightGear MP datagram: the 32-byte header, the legacy chat body and the dispatch on
//! `MsgId`; the position block is [`super::position`], the property section
//! [`super::property`], the header's magics, ids, sizes and byte ranges
//! [`super::constants`].
//!
//! Layouts: FlightGear 2020.3 `src/MultiPlayer/mpmessages.hxx` (`T_MsgHdr`, `T_ChatMsg`,
//! `T_PositionMsg`); receiver rules: `src/MultiPlayer/multiplaymgr.cxx`
//! (`FGMultiplayMgr::update`, `ProcessChatMsg`, `ProcessPosMsg`); header rewrites: fgms
//! `src/server/fg_server.cxx`. Every read is checked against the bytes present and against
//! `MsgLen`.

use std::borrow::Cow;
use std::fmt::Write as _;

use super::constants::{HEADER_LEN, MAX_PACKET_SIZE, Magic, MsgId, POSITION_LEN, PROTO_VER, field};
use super::fields as f;
use super::prim::{Facts, lossy, model_short, pos, quote};
use super::{notes, position};
use crate::text::{push_fixed, push_padded};
use crate::tree::{Pos, Record, Severity, TreeBuilder, Value};
use crate::wire::{Cursor, Dissector, Range};

/// The header words the datagram holds (a datagram shorter than the header has only some).
struct Header<'a> {
    magic: Option<Magic>,
    msg_id: Option<MsgId>,
    msg_len: Option<u32>,
    callsign: Cow<'a, str>,
}

/// Decodes one datagram into a record. `observe` is told what a message with a whole header
/// said about its sender (callsign and [`Facts`]) and returns the chat line to show when it
/// is new for that callsign (the flow's aircraft table, `flow.rs`).
pub(super) fn decode(
    payload: &[u8],
    truncated: bool,
    detail: impl Into<crate::tree::Detail>,
    observe: impl FnOnce(&str, &Facts<'_>) -> Option<String>,
) -> Record {
    let mut rec = Record::new("flightgear");
    let mut d = Dissector::new(payload, detail);
    d.tree
        .open(&f::ROOT, Value::None, Pos::bytes(0, payload.len()));
    let hdr = header(&mut d);
    let (msg_type, summary) = if payload.len() < HEADER_LEN {
        d.tree.expert(
            &notes::HEADER_CUT,
            None,
            Some(Pos::bytes(0, payload.len())),
            format!(
                "header is cut off: needs {HEADER_LEN} bytes, the datagram has {}",
                payload.len()
            ),
        );
        let line = format!("short datagram ({} bytes)", payload.len());
        ("malformed", line)
    } else {
        let end = message_end(&mut d.tree, &hdr, payload.len(), truncated);
        let id = hdr.msg_id.unwrap_or_default();
        let mut facts = Facts::default();
        d.cur = Cursor::at(&payload[..end], HEADER_LEN);
        let msg_type = body(&mut d, id, &mut facts);
        if end < payload.len() {
            let rest = &payload[end..];
            d.add(&f::TRAILING, Value::Bytes(rest.into()), end, rest.len());
        }
        let line = summary(observe, &hdr, id, end.saturating_sub(HEADER_LEN), &facts);
        (msg_type, line)
    };
    d.tree.finish_into(payload.len(), &mut rec);
    if truncated {
        soften_for_snaplen(&mut rec);
    }
    rec.msg_type = Cow::Borrowed(msg_type);
    rec.summary = summary;
    rec
}

/// Running out of bytes is expected when the capture's snaplen cut the datagram: such notes
/// become plain notes, so the message does not count as malformed.
fn soften_for_snaplen(rec: &mut Record) {
    for n in rec.notes.iter_mut() {
        if n.severity() == Severity::Error
            && (n.message.contains("cut off") || n.message.contains("needs"))
        {
            n.def = &crate::wire::CUT_BY_SNAPLEN;
            n.message
                .push_str(" (the capture's snaplen cut the datagram)");
        }
    }
}

/// A header word, when the datagram holds it.
fn word(cur: &Cursor<'_>, at: Range) -> Option<u32> {
    let b: [u8; 4] = cur.range(at).ok()?.try_into().ok()?;
    Some(u32::from_be_bytes(b))
}

/// The header word by word: a datagram shorter than the header still shows the words it has,
/// and one note (added by the caller) says the header is cut off.
fn header<'a>(d: &mut Dissector<'a>) -> Header<'a> {
    let magic = word(&d.cur, field::MAGIC).map(Magic);
    if let Some(m) = magic {
        magic_field(&mut d.tree, m);
    }
    if let Some(v) = word(&d.cur, field::VERSION) {
        version_field(&mut d.tree, v);
    }
    let msg_id = word(&d.cur, field::MSG_ID).map(MsgId);
    if let Some(id) = msg_id {
        let value = Value::Enum(id.0 as i64, id.name_or(""));
        d.tree.add(&f::MSG_ID, value, pos(field::MSG_ID));
    }
    let msg_len = word(&d.cur, field::MSG_LEN);
    if let Some(l) = msg_len {
        d.tree
            .add(&f::MSG_LEN, Value::UInt(l as u64), pos(field::MSG_LEN));
    }
    if let Some(w) = word(&d.cur, field::RANGE_WORD) {
        range_word(&mut d.tree, w);
    }
    if let Some(p) = word(&d.cur, field::REPLY_PORT) {
        let at = pos(field::REPLY_PORT);
        d.tree.add(&f::REPLY_PORT, Value::UInt(p as u64), at);
    }
    let callsign = match d.cur.range(field::CALLSIGN) {
        Ok(raw) => callsign_field(&mut d.tree, raw),
        Err(_) => Cow::Borrowed(""),
    };
    Header {
        magic,
        msg_id,
        msg_len,
        callsign,
    }
}

fn magic_field(tree: &mut TreeBuilder, m: Magic) {
    let value = Value::Enum(m.0 as i64, m.name_or(""));
    tree.add(&f::MAGIC, value, pos(field::MAGIC)).meaning = Some(m.meaning().into());
    if m.name().is_none() {
        tree.expert(
            &notes::BAD_MAGIC,
            Some(&f::MAGIC),
            Some(pos(field::MAGIC)),
            format!("magic 0x{:08x} is neither FGFS nor SFGF", m.0),
        );
    }
}

fn version_field(tree: &mut TreeBuilder, v: u32) {
    let at = pos(field::VERSION);
    // The meaning is tree-only: summary mode formatted and dropped it on every packet.
    if tree.detail() {
        let meaning = format!("{}.{}", v >> 16, v & 0xffff);
        tree.add_meaning(&f::VERSION, Value::UInt(v as u64), at, meaning);
    }
    if v != PROTO_VER {
        tree.expert(
            &notes::BAD_VERSION,
            Some(&f::VERSION),
            Some(at),
            format!("version 0x{v:08x}: FlightGear accepts only 0x00010001"),
        );
    }
}

/// The header word at offset 16, read tolerantly: FlightGear 2017.2+ writes the range in nm
/// in the low half; fgms 0.13+ forwards it byte-swapped, fgms 0.11-0.12.0 overwrote the word
/// with the sender's address (fgms `src/server/fg_server.cxx`, the tags of those versions).
fn range_word(tree: &mut TreeBuilder, w: u32) {
    tree.open(
        &f::RANGE_WORD,
        Value::UInt(w as u64),
        pos(field::RANGE_WORD),
    );
    let (hi, lo) = (w >> 16, w & 0xffff);
    if w == 0 {
        tree.set_group_meaning("not set (FlightGear before 2017.2)");
    } else if hi == 0 {
        tree.add(&f::RANGE_NM, Value::UInt(lo as u64), pos(field::RANGE_LOW));
        tree.set_group_meaning("requested range");
    } else if lo == 0 {
        let nm = Value::UInt(w.swap_bytes() as u64);
        let at = pos(field::RANGE_HIGH);
        tree.add_meaning(&f::RANGE_NM, nm, at, "byte-swapped by fgms 0.13+");
        tree.set_group_meaning("requested range, byte-swapped by a forwarding fgms 0.13+");
    } else {
        let o = w.to_be_bytes();
        let address = format!("{}.{}.{}.{}", o[3], o[2], o[1], o[0]);
        let at = pos(field::RANGE_WORD);
        tree.add(&f::REPLY_ADDRESS, Value::Str(address.into()), at);
        tree.set_group_meaning("sender address written by fgms 0.11-0.12.0");
    }
    tree.close(field::RANGE_WORD.end);
}

/// The callsign up to its NUL (FlightGear sends at most 7 characters and a NUL).
fn callsign_field<'a>(tree: &mut TreeBuilder, raw: &'a [u8]) -> Cow<'a, str> {
    let nul = raw.iter().position(|&b| b == 0);
    let text = &raw[..nul.unwrap_or(raw.len())];
    tree.add_text(&f::CALLSIGN, text, pos(field::CALLSIGN));
    if nul.is_none() {
        tree.expert(
            &notes::CALLSIGN_UNTERMINATED,
            Some(&f::CALLSIGN),
            Some(pos(field::CALLSIGN)),
            "callsign fills all 8 bytes without a NUL (FlightGear keeps the first 7)",
        );
    }
    lossy(text)
}

/// Where the message ends: at `MsgLen` when that is inside the datagram. FlightGear
/// (`FGMultiplayMgr::update`) drops a datagram whose `MsgLen` differs from its length.
fn message_end(tree: &mut TreeBuilder, hdr: &Header<'_>, len: usize, truncated: bool) -> usize {
    let msg_len = hdr.msg_len.unwrap_or(0) as usize;
    let at = Some(pos(field::MSG_LEN));
    let differs = || {
        format!("message length {msg_len} but the datagram has {len} bytes (FlightGear drops it)")
    };
    let end = if msg_len < HEADER_LEN {
        let text = format!("message length {msg_len} is shorter than the {HEADER_LEN}-byte header");
        tree.expert(&notes::MSG_LEN_BELOW_HEADER, Some(&f::MSG_LEN), at, text);
        len
    } else if msg_len > len {
        if truncated {
            let text = format!("message length {msg_len}: the capture's snaplen kept {len} bytes");
            tree.expert(&notes::MSG_LEN_SNAPLEN, Some(&f::MSG_LEN), at, text);
        } else {
            tree.expert(&notes::MSG_LEN_LONGER, Some(&f::MSG_LEN), at, differs());
        }
        len
    } else {
        if msg_len < len {
            tree.expert(&notes::MSG_LEN_SHORTER, Some(&f::MSG_LEN), at, differs());
        }
        msg_len
    };
    if len > MAX_PACKET_SIZE {
        let text =
            format!("{len} bytes: larger than FlightGear's {MAX_PACKET_SIZE}-byte receive buffer");
        tree.expert(&notes::OVERSIZE, None, None, text);
    }
    end
}

/// Decodes the body by its message id; returns the message type for `stats`.
fn body<'a>(d: &mut Dissector<'a>, id: MsgId, facts: &mut Facts<'a>) -> &'static str {
    let at = Some(pos(field::MSG_ID));
    match id {
        MsgId::POS_DATA | MsgId::PING | MsgId::PONG => {
            if id != MsgId::POS_DATA && d.cur.len() < HEADER_LEN + POSITION_LEN {
                // A PING/PONG is the sender's datagram echoed; only a position layout is known.
                data_rest(d);
            } else {
                position::decode(d, facts);
            }
            match id {
                MsgId::POS_DATA => "position",
                MsgId::PING => "ping",
                _ => "pong",
            }
        }
        MsgId::CHAT => {
            chat(d, facts);
            "chat"
        }
        MsgId(2..=6) | MsgId::MP_2017_DATA => {
            let text = format!(
                "message id {} ({}) is obsolete: FlightGear 2020.3 ignores it",
                id.0,
                id.name_or("")
            );
            d.tree
                .expert(&notes::OBSOLETE_MSG_ID, Some(&f::MSG_ID), at, text);
            data_rest(d);
            "obsolete"
        }
        _ => {
            let text = format!(
                "unknown message id {}: FlightGear logs and ignores it",
                id.0
            );
            d.tree
                .expert(&notes::UNKNOWN_MSG_ID, Some(&f::MSG_ID), at, text);
            data_rest(d);
            "unknown"
        }
    }
}

/// Shows the rest of the message as opaque data.
fn data_rest(d: &mut Dissector<'_>) {
    let n = d.cur.remaining();
    if n > 0 {
        // Cannot run short: exactly the bytes that remain.
        let _ = d.bytes(&f::DATA, n);
    }
}

/// MsgId 1 (`T_ChatMsg`): text up to the first NUL; `ProcessChatMsg` forces the last byte to
/// NUL.
fn chat<'a>(d: &mut Dissector<'a>, facts: &mut Facts<'a>) {
    let text = d.cur.rest();
    if text.is_empty() {
        d.tree.expert(
            &notes::CHAT_EMPTY,
            Some(&f::CHAT),
            Some(Pos::bytes(HEADER_LEN, 0)),
            "chat message without text (FlightGear needs at least 33 bytes)",
        );
        return;
    }
    let n = text.iter().position(|&b| b == 0).unwrap_or(text.len());
    let at = Pos::bytes(HEADER_LEN, n);
    d.tree.add(&f::CHAT, Value::text(&text[..n]), at);
    if n == text.len() {
        d.tree.expert(
            &notes::CHAT_NO_NUL,
            Some(&f::CHAT),
            Some(at),
            "chat text has no NUL: FlightGear replaces its last byte by one",
        );
    }
    facts.chat = Some(lossy(&text[..n]));
}

/// The one-line summary; tells `observe` what this message said about its aircraft.
fn summary(
    observe: impl FnOnce(&str, &Facts<'_>) -> Option<String>,
    hdr: &Header<'_>,
    id: MsgId,
    body_len: usize,
    facts: &Facts,
) -> String {
    // Room for a position line with its coordinates (`GDPAIRA c172p 37.6189N 122.3750W 0 ft
    // hdg 280`): growing it piece by piece reallocated it three times a message.
    let mut s = String::with_capacity(96);
    if hdr.magic == Some(Magic::SFGF) {
        s.push_str("[relay] ");
    }
    match id {
        MsgId::PING => s.push_str("PING "),
        MsgId::PONG => s.push_str("PONG "),
        _ => {}
    }
    let callsign = hdr.callsign.as_ref();
    s.push_str(if callsign.is_empty() { "?" } else { callsign });
    let new_chat = observe(callsign, facts);
    match id {
        MsgId::CHAT => {
            let _ = write!(s, " chat {}", quote(facts.chat.as_deref().unwrap_or("")));
            return s;
        }
        MsgId::POS_DATA | MsgId::PING | MsgId::PONG => match &facts.model {
            Some(model) => position_summary(&mut s, model, facts),
            None => {
                let _ = write!(s, " {} ({body_len} bytes)", id.name_or(""));
            }
        },
        _ => {
            let _ = match id.name() {
                None => write!(s, " message id {} ({body_len} bytes)", id.0),
                Some(name) => write!(s, " {name} ({body_len} bytes, obsolete)"),
            };
        }
    }
    if let Some(c) = new_chat {
        let _ = write!(s, " chat {}", quote(&c));
    }
    s
}

fn position_summary(s: &mut String, model: &str, facts: &Facts) {
    s.push(' ');
    s.push_str(model_short(model));
    if let Some((lat, lon, ft)) = facts.geo {
        let ns = if lat < 0.0 { 'S' } else { 'N' };
        let ew = if lon < 0.0 { 'W' } else { 'E' };
        s.push(' ');
        push_fixed(s, lat.abs(), 4);
        s.push(ns);
        s.push(' ');
        push_fixed(s, lon.abs(), 4);
        s.push(ew);
        s.push(' ');
        push_fixed(s, ft, 0);
        s.push_str(" ft");
    }
    if let Some(h) = facts.heading {
        let hdg = h.round() % 360.0;
        s.push_str(" hdg ");
        if hdg.is_sign_positive() && hdg < 360.0 {
            // A whole number of degrees: `{:03.0}` is its zero-padded integer.
            push_padded(s, hdg as u64, 3);
        } else {
            let _ = write!(s, "{hdg:03.0}");
        }
    }
    if facts.props_cut {
        s.push_str(" (properties cut)");
    }
}
