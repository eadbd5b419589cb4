//! One FlightGear MP datagram: the 32-byte header (reference §2), the legacy chat body (§3), the
//! 200-byte position block (§4) and the property section in both encodings (§5).
//!
//! Every read is checked against the bytes present and against `MsgLen`; the property walk stops
//! at an unknown id exactly as FlightGear 2020.3 `ProcessPosMsg` does, because the size of an
//! element is known only from its id.

use std::borrow::Cow;
use std::fmt::Write as _;

use super::fields as f;
use super::geo;
use super::notes;
use super::props::{self, PropDef, PropType, Tx};
use super::{Aircraft, Flow};
use crate::tree::{Field, FieldDef, Pos, Record, Severity, TreeBuilder, Value};
use crate::wire::{Cursor, Dissector};

crate::open_enum! {
    /// The header's `Magic`: FlightGear `src/MultiPlayer/mpmessages.hxx` `MSG_MAGIC`, fgms
    /// `src/server/fg_server.hxx` `RELAY_MAGIC`.
    pub struct Magic(u32) {
        FGFS = 0x4647_4653 => "FGFS",
        SFGF = 0x5346_4746 => "SFGF",
    }
}

impl Magic {
    /// Who sends it (fgms rewrites the magic of what it relays to other servers).
    fn meaning(self) -> &'static str {
        match self {
            Magic::FGFS => "FlightGear client data",
            Magic::SFGF => "fgms relay/crossfeed data",
            _ => "not a FlightGear magic",
        }
    }
}

/// "FGFS" as a number, for packet builders.
pub const MAGIC_FGFS: u32 = Magic::FGFS.0;
/// "SFGF" as a number, for packet builders.
pub const MAGIC_SFGF: u32 = Magic::SFGF.0;
/// `PROTO_VER` 1.1 (mpmessages.hxx).
pub const PROTO_VER: u32 = 0x0001_0001;
/// `V2_PAD_MAGIC` (multiplaymgr.cxx, 2017.2+).
pub const V2_PAD_MAGIC: u32 = 0x1FAC_E002;
/// `sizeof(T_MsgHdr)`.
pub const HEADER_LEN: usize = 32;
/// `sizeof(T_PositionMsg)` with the pad word.
pub const POSITION_LEN: usize = 200;
/// `MAX_TEXT_SIZE` of FlightGear 2017.3+: a receiver caps v1 string lengths here.
pub const MAX_TEXT_SIZE: u32 = 768;
/// `MAX_PACKET_SIZE`: FlightGear's send and receive buffers.
pub const MAX_PACKET_SIZE: usize = 1200;
/// `MAX_MODEL_NAME_LEN`.
const MODEL_LEN: usize = 96;
/// Bool blocks (`BOOLARRAY_BASE_1..3`); a receiver takes any v1 BOOL id in this range as a block.
const BOOLARRAY_START: u32 = 11000;
const BOOLARRAY_END: u32 = 11080;
/// Most property items emitted per message (a 1200-byte packet holds far fewer; this bounds
/// the tree of a hostile 64 KiB datagram full of bool blocks).
const MAX_ITEMS: usize = 4096;

crate::open_enum! {
    /// The header's `MsgId`: FlightGear `src/MultiPlayer/mpmessages.hxx` (`*_ID`), 9 and 10
    /// from fgms `src/flightgear/MultiPlayer/mpmessages.hxx`.
    pub struct MsgId(u32) {
        CHAT = 1 => "CHAT_MSG",
        UNUSABLE_POS_DATA = 2 => "UNUSABLE_POS_DATA",
        OLD_OLD_POS_DATA = 3 => "OLD_OLD_POS_DATA",
        OLD_POS_DATA = 4 => "OLD_POS_DATA",
        OLD_PROP_MSG = 5 => "OLD_PROP_MSG",
        RESET_DATA = 6 => "RESET_DATA",
        POS_DATA = 7 => "POS_DATA",
        MP_2017_DATA = 8 => "MP_2017_DATA",
        PING = 9 => "PING",
        PONG = 10 => "PONG",
    }
}

crate::open_enum! {
    /// Launchbar state codes carried by id 120: FlightGear `multiplaymgr.cxx`
    /// `decode_received_launchbar_state`.
    pub struct Launchbar(i16) {
        ENGAGED = 0 => "Engaged",
        LAUNCHING = 1 => "Launching",
        COMPLETED = 2 => "Completed",
        DISENGAGED = 3 => "Disengaged",
    }
}

crate::open_enum! {
    /// Wire form of a property element (the `encoding` field; the numbers are this decoder's
    /// own, only the names are shown).
    pub struct Encoding(u8) {
        V1_INT = 1 => "V1_INT",
        V1_BOOL = 2 => "V1_BOOL",
        V1_FLOAT = 3 => "V1_FLOAT",
        V1_STRING = 4 => "V1_STRING",
        SHORTINT = 5 => "SHORTINT",
        SHORT_FLOAT_NORM = 6 => "SHORT_FLOAT_NORM",
        SHORT_FLOAT_1 = 7 => "SHORT_FLOAT_1",
        SHORT_FLOAT_2 = 8 => "SHORT_FLOAT_2",
        SHORT_FLOAT_3 = 9 => "SHORT_FLOAT_3",
        SHORT_FLOAT_4 = 10 => "SHORT_FLOAT_4",
        V2_STRING = 11 => "V2_STRING",
        BOOLARRAY = 12 => "BOOLARRAY",
    }
}

impl Encoding {
    fn for_short_float(tx: Tx) -> Encoding {
        match tx {
            Tx::SHORT_FLOAT_NORM => Encoding::SHORT_FLOAT_NORM,
            Tx::SHORT_FLOAT_1 => Encoding::SHORT_FLOAT_1,
            Tx::SHORT_FLOAT_2 => Encoding::SHORT_FLOAT_2,
            Tx::SHORT_FLOAT_3 => Encoding::SHORT_FLOAT_3,
            Tx::SHORT_FLOAT_4 => Encoding::SHORT_FLOAT_4,
            _ => Encoding::SHORTINT,
        }
    }
}

/// The value of a v2 short float element: `int16 / divisor`, as FlightGear computes it in double
/// precision and stores it in a float.
pub fn scale_short(raw: i16, tx: Tx) -> Option<f32> {
    tx.short_float_divisor().map(|d| (raw as f64 / d) as f32)
}

fn be32(p: &[u8], at: usize) -> Option<u32> {
    let b = p.get(at..at.checked_add(4)?)?;
    Some(u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
}

/// What the position block and properties told, for the summary and the flow state.
#[derive(Debug, Default)]
struct Facts {
    model: Option<String>,
    geo: Option<(f64, f64, f64)>,
    heading: Option<f64>,
    chat: Option<String>,
    protocol: Option<u8>,
    props_cut: bool,
}

/// Decodes one datagram into a record, updating the flow's aircraft table.
pub fn decode(payload: &[u8], truncated: bool, detail: bool, flow: &mut Flow) -> Record {
    let mut rec = Record::new("flightgear");
    let mut tree = TreeBuilder::new(detail);
    tree.open(&f::ROOT, Value::None, Pos::bytes(0, payload.len()));

    let magic = be32(payload, 0);
    let version = be32(payload, 4);
    let msg_id = be32(payload, 8);
    let msg_len = be32(payload, 12);
    let range = be32(payload, 16);
    let reply_port = be32(payload, 20);

    if let Some(m) = magic.map(Magic) {
        tree.add(
            &f::MAGIC,
            Value::Enum(m.0 as i64, m.name_or("")),
            Pos::bytes(0, 4),
        )
        .meaning = Some(m.meaning().into());
        if m.name().is_none() {
            tree.expert(
                &notes::BAD_MAGIC,
                Some(&f::MAGIC),
                Some(Pos::bytes(0, 4)),
                format!("magic 0x{:08x} is neither FGFS nor SFGF", m.0),
            );
        }
    }
    if let Some(v) = version {
        tree.add_meaning(
            &f::VERSION,
            Value::UInt(v as u64),
            Pos::bytes(4, 4),
            format!("{}.{}", v >> 16, v & 0xffff),
        );
        if v != PROTO_VER {
            tree.expert(
                &notes::BAD_VERSION,
                Some(&f::VERSION),
                Some(Pos::bytes(4, 4)),
                format!("version 0x{v:08x}: FlightGear accepts only 0x00010001"),
            );
        }
    }
    if let Some(id) = msg_id {
        tree.add(
            &f::MSG_ID,
            Value::Enum(id as i64, MsgId(id).name_or("")),
            Pos::bytes(8, 4),
        );
    }
    if let Some(l) = msg_len {
        tree.add(&f::MSG_LEN, Value::UInt(l as u64), Pos::bytes(12, 4));
    }
    if let Some(w) = range {
        range_word(&mut tree, w);
    }
    if let Some(p) = reply_port {
        tree.add(&f::REPLY_PORT, Value::UInt(p as u64), Pos::bytes(20, 4));
    }
    let mut callsign = String::new();
    if let Some(raw) = payload.get(24..32) {
        let n = raw.iter().position(|&b| b == 0);
        let text = &raw[..n.unwrap_or(8)];
        callsign = String::from_utf8_lossy(text).into_owned();
        tree.add(&f::CALLSIGN, Value::text(text), Pos::bytes(24, 8));
        if n.is_none() {
            tree.expert(
                &notes::CALLSIGN_UNTERMINATED,
                Some(&f::CALLSIGN),
                Some(Pos::bytes(24, 8)),
                "callsign fills all 8 bytes without a NUL (FlightGear keeps the first 7)",
            );
        }
    }

    if payload.len() < HEADER_LEN {
        tree.expert(
            &notes::HEADER_CUT,
            None,
            Some(Pos::bytes(0, payload.len())),
            format!(
                "header is cut off: needs {HEADER_LEN} bytes, the datagram has {}",
                payload.len()
            ),
        );
        tree.finish_into(payload.len(), &mut rec);
        rec.msg_type = Cow::Borrowed("malformed");
        rec.summary = format!("short datagram ({} bytes)", payload.len());
        if truncated {
            soften_for_snaplen(&mut rec);
        }
        return rec;
    }
    let msg_id = msg_id.unwrap_or(0);
    let msg_len = msg_len.unwrap_or(0) as usize;

    // The message ends at MsgLen when that is inside the datagram.
    let end = if msg_len < HEADER_LEN {
        tree.expert(
            &notes::MSG_LEN_BELOW_HEADER,
            Some(&f::MSG_LEN),
            Some(Pos::bytes(12, 4)),
            format!("message length {msg_len} is shorter than the {HEADER_LEN}-byte header"),
        );
        payload.len()
    } else if msg_len > payload.len() {
        if truncated {
            tree.expert(
                &notes::MSG_LEN_SNAPLEN,
                Some(&f::MSG_LEN),
                Some(Pos::bytes(12, 4)),
                format!(
                    "message length {msg_len}: the capture's snaplen kept {} bytes",
                    payload.len()
                ),
            );
        } else {
            tree.expert(
                &notes::MSG_LEN_LONGER,
                Some(&f::MSG_LEN),
                Some(Pos::bytes(12, 4)),
                format!(
                    "message length {msg_len} but the datagram has {} bytes (FlightGear drops it)",
                    payload.len()
                ),
            );
        }
        payload.len()
    } else {
        if msg_len < payload.len() {
            tree.expert(
                &notes::MSG_LEN_SHORTER,
                Some(&f::MSG_LEN),
                Some(Pos::bytes(12, 4)),
                format!(
                    "message length {msg_len} but the datagram has {} bytes (FlightGear drops it)",
                    payload.len()
                ),
            );
        }
        msg_len
    };
    if payload.len() > MAX_PACKET_SIZE {
        tree.expert(
            &notes::OVERSIZE,
            None,
            None,
            format!(
                "{} bytes: larger than FlightGear's {MAX_PACKET_SIZE}-byte receive buffer",
                payload.len()
            ),
        );
    }

    let body = &payload[..end];
    let mut facts = Facts::default();
    let msg_type: Cow<'static, str>;
    match msg_id {
        7 | 9 | 10 => {
            msg_type = Cow::Borrowed(match msg_id {
                7 => "position",
                9 => "ping",
                _ => "pong",
            });
            if msg_id != 7 && body.len() < HEADER_LEN + POSITION_LEN {
                // A PING/PONG is the sender's datagram echoed; only a position layout is known.
                data_rest(&mut tree, body, HEADER_LEN);
            } else {
                position(&mut tree, body, &mut facts);
            }
        }
        1 => {
            msg_type = Cow::Borrowed("chat");
            chat(&mut tree, body, &mut facts);
        }
        2..=6 | 8 => {
            msg_type = Cow::Borrowed("obsolete");
            tree.expert(
                &notes::OBSOLETE_MSG_ID,
                Some(&f::MSG_ID),
                Some(Pos::bytes(8, 4)),
                format!(
                    "message id {msg_id} ({}) is obsolete: FlightGear 2020.3 ignores it",
                    MsgId(msg_id).name_or("")
                ),
            );
            data_rest(&mut tree, body, HEADER_LEN);
        }
        _ => {
            msg_type = Cow::Borrowed("unknown");
            tree.expert(
                &notes::UNKNOWN_MSG_ID,
                Some(&f::MSG_ID),
                Some(Pos::bytes(8, 4)),
                format!("unknown message id {msg_id}: FlightGear logs and ignores it"),
            );
            data_rest(&mut tree, body, HEADER_LEN);
        }
    }
    if end < payload.len() {
        tree.add(
            &f::TRAILING,
            Value::Bytes(payload[end..].into()),
            Pos::bytes(end, payload.len() - end),
        );
    }
    tree.finish_into(payload.len(), &mut rec);
    if truncated {
        soften_for_snaplen(&mut rec);
    }
    rec.msg_type = msg_type;
    rec.summary = summary(
        flow,
        &callsign,
        magic == Some(Magic::SFGF.0),
        msg_id,
        end - HEADER_LEN.min(end),
        &facts,
    );
    rec
}

/// Running out of bytes is expected when the capture's snaplen cut the datagram: such notes
/// become plain notes, so the message does not count as malformed.
fn soften_for_snaplen(rec: &mut Record) {
    for n in rec.notes.iter_mut() {
        if n.severity == Severity::Error
            && (n.message.contains("cut off") || n.message.contains("needs"))
        {
            n.severity = Severity::Note;
            n.message
                .push_str(" (the capture's snaplen cut the datagram)");
        }
    }
}

/// The header word at offset 16, read tolerantly (reference §10.3).
fn range_word(tree: &mut TreeBuilder, w: u32) {
    tree.open(&f::RANGE_WORD, Value::UInt(w as u64), Pos::bytes(16, 4));
    let (hi, lo) = (w >> 16, w & 0xffff);
    if w == 0 {
        tree.set_group_meaning("not set (FlightGear before 2017.2)");
    } else if hi == 0 {
        tree.add(&f::RANGE_NM, Value::UInt(lo as u64), Pos::bytes(18, 2));
        tree.set_group_meaning("requested range");
    } else if lo == 0 {
        let nm = w.swap_bytes();
        tree.add_meaning(
            &f::RANGE_NM,
            Value::UInt(nm as u64),
            Pos::bytes(16, 2),
            "byte-swapped by fgms 0.13+",
        );
        tree.set_group_meaning("requested range, byte-swapped by a forwarding fgms 0.13+");
    } else {
        let o = w.to_be_bytes();
        tree.add(
            &f::REPLY_ADDRESS,
            Value::Str(format!("{}.{}.{}.{}", o[3], o[2], o[1], o[0]).into()),
            Pos::bytes(16, 4),
        );
        tree.set_group_meaning("sender address written by fgms 0.11-0.12.0");
    }
    tree.close(20);
}

/// Shows the rest of the message as opaque data.
fn data_rest(tree: &mut TreeBuilder, body: &[u8], from: usize) {
    if let Some(rest) = body.get(from..).filter(|r| !r.is_empty()) {
        tree.add(
            &f::DATA,
            Value::Bytes(rest.into()),
            Pos::bytes(from, rest.len()),
        );
    }
}

/// MsgId 1: text up to the first NUL (reference §3).
fn chat(tree: &mut TreeBuilder, body: &[u8], facts: &mut Facts) {
    let text = body.get(HEADER_LEN..).unwrap_or_default();
    if text.is_empty() {
        tree.expert(
            &notes::CHAT_EMPTY,
            Some(&f::CHAT),
            Some(Pos::bytes(HEADER_LEN, 0)),
            "chat message without text (FlightGear needs at least 33 bytes)",
        );
        return;
    }
    let n = text.iter().position(|&b| b == 0).unwrap_or(text.len());
    tree.add(&f::CHAT, Value::text(&text[..n]), Pos::bytes(HEADER_LEN, n));
    if n == text.len() {
        tree.expert(
            &notes::CHAT_NO_NUL,
            Some(&f::CHAT),
            Some(Pos::bytes(HEADER_LEN, n)),
            "chat text has no NUL: FlightGear replaces its last byte by one",
        );
    }
    facts.chat = Some(String::from_utf8_lossy(&text[..n]).into_owned());
}

/// Reads three floats of one vector group; returns them as f64.
fn vec3_f32(
    d: &mut Dissector<'_>,
    group: &'static FieldDef,
    defs: [&'static FieldDef; 3],
) -> Option<[f64; 3]> {
    d.open(group);
    let mut v = [0.0; 3];
    for (slot, def) in v.iter_mut().zip(defs) {
        match d.f32_be(def) {
            Ok(x) => *slot = x as f64,
            Err(_) => {
                d.close();
                return None;
            }
        }
    }
    d.close();
    Some(v)
}

/// MsgId 7: the 200-byte position block, the derived position and the properties (§4, §5).
fn position(tree: &mut TreeBuilder, body: &[u8], facts: &mut Facts) {
    let mut d = Dissector {
        cur: Cursor::at(body, HEADER_LEN),
        tree: std::mem::take(tree),
    };
    let full = body.len() >= HEADER_LEN + POSITION_LEN;
    if !full {
        d.tree.expert(
            &notes::POSITION_SHORT,
            Some(&f::POSITION),
            Some(Pos::bytes(
                HEADER_LEN,
                body.len().saturating_sub(HEADER_LEN),
            )),
            format!(
                "position message needs {} bytes, it has {} (FlightGear drops it)",
                HEADER_LEN + POSITION_LEN,
                body.len()
            ),
        );
    }
    position_block(&mut d, body, facts);
    *tree = d.tree;
}

fn position_block<'a>(d: &mut Dissector<'a>, body: &'a [u8], facts: &mut Facts) {
    d.open(&f::POSITION);
    let _ = position_fields(d, body, facts);
    // Close the position group (and anything left open by a short read) at the current position.
    while d.tree.depth() > 1 {
        d.close();
    }
}

fn position_fields<'a>(d: &mut Dissector<'a>, body: &'a [u8], facts: &mut Facts) -> Option<()> {
    // Model: 96 bytes, NUL-terminated text.
    let at = d.pos();
    let raw = match d.cur.bytes(MODEL_LEN) {
        Ok(r) => r,
        Err(e) => {
            d.short(&f::MODEL, e);
            return None;
        }
    };
    let n = raw.iter().position(|&b| b == 0);
    let model = &raw[..n.unwrap_or(MODEL_LEN)];
    d.add(&f::MODEL, Value::text(model), at, MODEL_LEN);
    if n.is_none() {
        d.tree.expert(
            &notes::MODEL_UNTERMINATED,
            Some(&f::MODEL),
            Some(Pos::bytes(at, MODEL_LEN)),
            "model path fills all 96 bytes without a NUL",
        );
    }
    facts.model = Some(String::from_utf8_lossy(model).into_owned());

    let time = d.f64_be(&f::TIME).ok()?;
    let lag = d.f64_be(&f::LAG).ok()?;
    d.open(&f::ECEF);
    let mut ecef = [0.0f64; 3];
    for (slot, def) in ecef.iter_mut().zip([&f::ECEF_X, &f::ECEF_Y, &f::ECEF_Z]) {
        *slot = d.f64_be(def).ok()?;
    }
    d.close();
    let orient = vec3_f32(d, &f::ORIENT, [&f::ORIENT_X, &f::ORIENT_Y, &f::ORIENT_Z])?;
    let mut sane = [time, lag]
        .iter()
        .chain(&ecef)
        .chain(&orient)
        .all(|v| !v.is_nan());
    for (g, defs) in [
        (&f::LIN_VEL, [&f::LIN_VEL_X, &f::LIN_VEL_Y, &f::LIN_VEL_Z]),
        (&f::ANG_VEL, [&f::ANG_VEL_X, &f::ANG_VEL_Y, &f::ANG_VEL_Z]),
        (&f::LIN_ACC, [&f::LIN_ACC_X, &f::LIN_ACC_Y, &f::LIN_ACC_Z]),
        (&f::ANG_ACC, [&f::ANG_ACC_X, &f::ANG_ACC_Y, &f::ANG_ACC_Z]),
    ] {
        let v = vec3_f32(d, g, defs)?;
        sane &= v.iter().all(|x| !x.is_nan());
    }
    if !sane {
        d.tree.expert(
            &notes::NAN,
            Some(&f::POSITION),
            Some(Pos::bytes(128, 96)),
            "a time, position, orientation or motion value is NaN: FlightGear drops this message",
        );
    }
    let pad_at = d.pos();
    let pad = d.u32_be(&f::PAD).ok()?;
    let pad_meaning = match pad {
        0 => "protocol 1 (or none)",
        V2_PAD_MAGIC => "V2_PAD_MAGIC: protocol 2",
        _ => "legacy (pre-1.9.1) client",
    };
    if let Some(last) = d.tree.last_mut() {
        last.meaning = Some(pad_meaning.into());
    }
    match pad {
        0 => facts.protocol = Some(1),
        V2_PAD_MAGIC => facts.protocol = Some(2),
        _ => {}
    }

    // Derived position (reference §4.1).
    let g = geo::ecef_to_geodetic(ecef[0], ecef[1], ecef[2]);
    let (lat, lon) = (g.lat.to_degrees(), g.lon.to_degrees());
    let ft = g.alt * geo::FT_PER_M;
    let ecef_pos = Pos::bytes(144, 24);
    d.tree.open(&f::GEODETIC, Value::None, ecef_pos);
    d.tree
        .add(&f::LATITUDE, Value::F64(round_to(lat, 1e7)), ecef_pos);
    d.tree
        .add(&f::LONGITUDE, Value::F64(round_to(lon, 1e7)), ecef_pos);
    d.tree
        .add(&f::ALTITUDE_FT, Value::F64(round_to(ft, 100.0)), ecef_pos);
    d.tree
        .add(&f::ALTITUDE_M, Value::F64(round_to(g.alt, 100.0)), ecef_pos);
    d.tree.close_as_is();
    let (hdg, pitch, roll) = geo::attitude_deg(orient, g.lon, g.lat);
    let or_pos = Pos::bytes(168, 12);
    d.tree.open(&f::ATTITUDE, Value::None, or_pos);
    d.tree
        .add(&f::HEADING, Value::F64(round_to(hdg, 100.0)), or_pos);
    d.tree
        .add(&f::PITCH, Value::F64(round_to(pitch, 100.0)), or_pos);
    d.tree
        .add(&f::ROLL, Value::F64(round_to(roll, 100.0)), or_pos);
    d.tree.close_as_is();
    if lat.is_finite() && lon.is_finite() && ft.is_finite() {
        facts.geo = Some((lat, lon, ft));
    }
    if hdg.is_finite() {
        facts.heading = Some(hdg);
    }
    d.close(); // position

    // Properties (§5): where they start depends on the pad word (§4.4).
    let start = match pad {
        0 | V2_PAD_MAGIC => Some(HEADER_LEN + POSITION_LEN),
        _ => {
            let legacy = pad_at;
            if verify_v1(body, legacy) {
                d.tree.expert(
                    &notes::LEGACY_PROPS_228,
                    Some(&f::PAD),
                    Some(Pos::bytes(pad_at, 4)),
                    "legacy 32-bit client: the properties start at the pad word (offset 228)",
                );
                Some(legacy)
            } else if verify_v1(body, HEADER_LEN + POSITION_LEN) {
                d.tree.expert(
                    &notes::LEGACY_PROPS_232,
                    Some(&f::PAD),
                    Some(Pos::bytes(pad_at, 4)),
                    "legacy 64-bit client: the pad word is stack garbage, properties at offset 232",
                );
                Some(HEADER_LEN + POSITION_LEN)
            } else {
                None
            }
        }
    };
    match start {
        Some(s) => properties(d, body, s, facts),
        None => {
            let from = HEADER_LEN + POSITION_LEN;
            if body.len() > from {
                d.tree.open(
                    &f::PROPERTIES,
                    Value::None,
                    Pos::bytes(from, body.len() - from),
                );
                d.tree.add(
                    &f::PROPS_UNDECODED,
                    Value::Bytes(body[from..].into()),
                    Pos::bytes(from, body.len() - from),
                );
                d.tree.close_as_is();
                d.tree.expert(
                    &notes::LEGACY_NO_PROPS,
                    Some(&f::PROPS_UNDECODED),
                    Some(Pos::bytes(from, body.len() - from)),
                    "legacy pad word and no valid v1 property list at 228 or 232: FlightGear ignores the properties",
                );
            }
        }
    }
    Some(())
}

/// Rounds to 1/scale so derived values print compactly (they are not wire values).
fn round_to(v: f64, scale: f64) -> f64 {
    if v.is_finite() {
        let r = (v * scale).round() / scale;
        if r == 0.0 { 0.0 } else { r }
    } else {
        v
    }
}

/// FlightGear's `verifyProperties`: a strict v1 walk (every id known, no short forms, no NaN
/// floats, string lengths within the data) that must end exactly at the end of the message.
pub fn verify_v1(body: &[u8], start: usize) -> bool {
    let mut c = Cursor::at(body, start);
    if start > body.len() {
        return false;
    }
    while !c.is_empty() {
        let Ok(id) = c.u32_be() else { return false };
        let Some(def) = props::lookup(id) else {
            return false;
        };
        if id > 0xffff {
            return false;
        }
        match def.ty {
            PropType::INT | PropType::BOOL => {
                if c.skip(4).is_err() {
                    return false;
                }
            }
            PropType::FLOAT => match c.f32_be() {
                Ok(v) if !v.is_nan() => {}
                _ => return false,
            },
            _ => {
                let Ok(len) = c.u32_be() else { return false };
                if len > MAX_TEXT_SIZE {
                    return false;
                }
                let words = (len as usize).div_ceil(4) * 4;
                if c.skip(words * 4).is_err() {
                    return false;
                }
            }
        }
    }
    true
}

/// One decoded property element, before it becomes a tree item.
struct Item<'a> {
    def: &'a PropDef,
    id: u32,
    enc: Encoding,
    value: Value,
    meaning: Option<String>,
    /// Where the id sits, where the value sits (byte or bit range).
    id_pos: Pos,
    value_pos: Pos,
    whole: Pos,
}

fn push_item(tree: &mut TreeBuilder, it: Item<'_>) {
    let mut g = Field::new(&f::PROPERTY, Value::None, it.whole);
    let mut m = format!("{} = ", it.def.path);
    match &it.value {
        Value::Int(v) => write!(m, "{v}"),
        Value::F32(v) => write!(m, "{v}"),
        Value::Bool(v) => write!(m, "{v}"),
        Value::Str(s) => write!(m, "{}", quote(s)),
        _ => write!(m, "(bytes)"),
    }
    .ok();
    g.meaning = Some(m.into());
    g.children.push(Field::new(
        &f::PROP_ID,
        Value::UInt(it.id as u64),
        it.id_pos,
    ));
    g.children.push(Field::new(
        &f::PROP_PATH,
        Value::Str(it.def.path.into()),
        it.id_pos,
    ));
    g.children.push(Field::new(
        &f::PROP_TYPE,
        Value::Str(it.def.ty.name_or("").into()),
        it.id_pos,
    ));
    g.children.push(Field::new(
        &f::PROP_ENCODING,
        Value::Str(it.enc.name_or("").into()),
        it.id_pos,
    ));
    let mut v = Field::new(&f::PROP_VALUE, it.value, it.value_pos);
    v.meaning = it.meaning.map(Into::into);
    g.children.push(v);
    *tree.add(&f::PROPERTY, Value::None, it.whole) = g;
}

/// Walks the property section from `start` to the end of the message.
fn properties<'a>(d: &mut Dissector<'a>, body: &'a [u8], start: usize, facts: &mut Facts) {
    if start >= body.len() {
        return;
    }
    d.cur = Cursor::at(body, start);
    d.tree.open(
        &f::PROPERTIES,
        Value::None,
        Pos::bytes(start, body.len() - start),
    );
    let mut items = 0usize;
    let mut first = true;
    while d.cur.remaining() >= 4 {
        if items >= MAX_ITEMS {
            let at = d.pos();
            d.tree.expert(
                &notes::TOO_MANY_ITEMS,
                Some(&f::PROPERTIES),
                Some(Pos::bytes(at, body.len() - at)),
                format!("more than {MAX_ITEMS} property values: the rest is not shown"),
            );
            break;
        }
        match element(d, body, facts, first) {
            Ok(n) => items += n,
            Err(()) => {
                facts.props_cut = true;
                break;
            }
        }
        first = false;
    }
    let left = d.cur.remaining();
    if left > 0 && left < 4 {
        let at = d.pos();
        d.tree.add(
            &f::TRAILING,
            Value::Bytes(body[at..].into()),
            Pos::bytes(at, left),
        );
        d.tree.expert(
            &notes::PROPS_TRAILING,
            Some(&f::TRAILING),
            Some(Pos::bytes(at, left)),
            format!("{left} byte(s) after the last property element, too short for another"),
        );
    }
    let meaning = match facts.protocol {
        Some(2) => "protocol 2 encoding",
        Some(_) => "protocol 1 encoding",
        None => "",
    };
    if !meaning.is_empty() {
        d.tree.set_group_meaning(meaning);
    }
    d.tree.close(body.len());
}

/// Decodes one element; returns the number of items added, or `Err` when the walk must stop
/// (the reason is already a note).
fn element<'a>(
    d: &mut Dissector<'a>,
    body: &'a [u8],
    facts: &mut Facts,
    first: bool,
) -> Result<usize, ()> {
    let at = d.pos();
    let w = d.cur.u32_be().map_err(|_| ())?;
    let short = w >> 16 != 0;
    let id = if short { w >> 16 } else { w };
    let Some(def) = props::lookup(id) else {
        let rest = body.len() - at;
        d.tree.add(
            &f::PROPS_UNDECODED,
            Value::Bytes(body[at..].into()),
            Pos::bytes(at, rest),
        );
        d.tree.expert(
            &notes::UNKNOWN_ID,
            Some(&f::PROPS_UNDECODED),
            Some(Pos::bytes(at, 4)),
            format!(
                "unknown property id {id} at offset {at}: its size is unknown, so the remaining {rest} bytes cannot be decoded (FlightGear abandons them too)"
            ),
        );
        d.cur = Cursor::at(body, body.len());
        return Err(());
    };
    if props::is_later(def) {
        d.tree.expert(
            &notes::LATER_ID,
            Some(&f::PROP_ID),
            Some(Pos::bytes(at, 4)),
            format!("property id {id} is newer than FlightGear 2020.3 (which stops at it)"),
        );
    }
    if short {
        let raw = (w & 0xffff) as u16 as i16;
        let id_pos = Pos::bytes(at, 2);
        let val_pos = Pos::bytes(at + 2, 2);
        let mut item = Item {
            def,
            id,
            enc: Encoding::SHORTINT,
            value: Value::Int(raw as i64),
            meaning: None,
            id_pos,
            value_pos: val_pos,
            whole: Pos::bytes(at, 4),
        };
        match def.ty {
            PropType::STRING => {
                if raw < 0 {
                    d.tree.expert(
                        &notes::STRING_NEGATIVE_LENGTH,
                        Some(&f::PROP_VALUE),
                        Some(val_pos),
                        format!("compact string of id {id} has a negative length {raw}"),
                    );
                    return Err(());
                }
                let len = raw as usize;
                let text = match d.cur.bytes(len) {
                    Ok(t) => t,
                    Err(e) => {
                        d.tree.expert(
                            &notes::STRING_CUT,
                            Some(&f::PROP_VALUE),
                            Some(Pos::bytes(at + 4, e.have)),
                            format!("string of property {id} ({}) is cut off: {e}", def.path),
                        );
                        return Err(());
                    }
                };
                if len as u32 >= MAX_TEXT_SIZE {
                    d.tree.expert(
                        &notes::STRING_TOO_LONG,
                        Some(&f::PROP_VALUE),
                        Some(val_pos),
                        format!("string length {len} exceeds what FlightGear sends (767)"),
                    );
                }
                item.enc = Encoding::V2_STRING;
                item.value = Value::text(text);
                item.value_pos = Pos::bytes(at + 4, len);
                item.whole = Pos::bytes(at, 4 + len);
                if id == 10002 {
                    facts.chat = Some(String::from_utf8_lossy(text).into_owned());
                }
            }
            PropType::INT => {
                if id == 120 {
                    let state = Launchbar(raw).name();
                    item.meaning = Some(match state {
                        Some(s) => format!("{s} (gear/launchbar/state)"),
                        None => "no launchbar state (FlightGear sets an empty string)".into(),
                    });
                } else if def.tx == Tx::SHORT_FLOAT_NORM {
                    item.meaning =
                        Some("raw int16: FlightGear stores it unscaled (declared INT)".into());
                }
                if id == 10 {
                    facts.protocol = u8::try_from(raw).ok().or(facts.protocol);
                    if !first {
                        d.tree.expert(
                            &notes::PROTOCOL_NOT_FIRST,
                            Some(&f::PROP_ID),
                            Some(id_pos),
                            "protocol-version is not the first property",
                        );
                    }
                }
            }
            PropType::BOOL => {
                item.value = Value::Bool(raw != 0);
                if raw != 0 && raw != 1 {
                    item.meaning = Some(format!("raw {raw}"));
                }
            }
            PropType::FLOAT => match scale_short(raw, def.tx) {
                Some(v) => {
                    item.enc = Encoding::for_short_float(def.tx);
                    item.value = Value::F32(v);
                    item.meaning = Some(format!(
                        "{raw} / {}",
                        def.tx.short_float_divisor().unwrap_or(1.0)
                    ));
                }
                None => {
                    item.value = Value::F32(0.0);
                    item.meaning = Some(format!("raw {raw}, not a scaled property"));
                    d.tree.expert(
                        &notes::FLOAT_AS_SHORT,
                        Some(&f::PROP_VALUE),
                        Some(val_pos),
                        format!(
                            "float property {id} ({}) sent in short form, which 2020.3 never does: FlightGear reads 0",
                            def.path
                        ),
                    );
                }
            },
            // The table declares no other type; the raw int16 stands.
            _ => {}
        }
        push_item(&mut d.tree, item);
        return Ok(1);
    }

    // v1 forms: a 32-bit id, then the value by type.
    let id_pos = Pos::bytes(at, 4);
    let val_at = at + 4;
    match def.ty {
        PropType::BOOL if (BOOLARRAY_START..=BOOLARRAY_END).contains(&id) => {
            bool_block(d, body, at, id)
        }
        PropType::INT | PropType::BOOL => {
            let v = d.cur.i32_be().map_err(|e| {
                d.short(&f::PROP_VALUE, e);
            })?;
            let (enc, value) = if def.ty == PropType::BOOL {
                (Encoding::V1_BOOL, Value::Bool(v != 0))
            } else {
                (Encoding::V1_INT, Value::Int(v as i64))
            };
            let meaning =
                (def.ty == PropType::BOOL && v != 0 && v != 1).then(|| format!("raw {v}"));
            push_item(
                &mut d.tree,
                Item {
                    def,
                    id,
                    enc,
                    value,
                    meaning,
                    id_pos,
                    value_pos: Pos::bytes(val_at, 4),
                    whole: Pos::bytes(at, 8),
                },
            );
            Ok(1)
        }
        PropType::FLOAT => {
            let v = d.cur.f32_be().map_err(|e| {
                d.short(&f::PROP_VALUE, e);
            })?;
            push_item(
                &mut d.tree,
                Item {
                    def,
                    id,
                    enc: Encoding::V1_FLOAT,
                    value: Value::F32(v),
                    meaning: None,
                    id_pos,
                    value_pos: Pos::bytes(val_at, 4),
                    whole: Pos::bytes(at, 8),
                },
            );
            Ok(1)
        }
        _ => {
            let len = d.cur.u32_be().map_err(|e| {
                d.short(&f::PROP_VALUE, e);
            })?;
            let mut n = len;
            if len > MAX_TEXT_SIZE {
                n = MAX_TEXT_SIZE;
                d.tree.expert(
                    &notes::V1_STRING_CAPPED,
                    Some(&f::PROP_VALUE),
                    Some(Pos::bytes(val_at, 4)),
                    format!("v1 string length {len} over {MAX_TEXT_SIZE}: FlightGear reads {MAX_TEXT_SIZE} characters"),
                );
            }
            let n = n as usize;
            let words = n.div_ceil(4) * 4;
            let data = match d.cur.bytes(words * 4) {
                Ok(b) => b,
                Err(e) => {
                    d.tree.expert(
                        &notes::V1_STRING_CUT,
                        Some(&f::PROP_VALUE),
                        Some(Pos::bytes(e.at, e.have)),
                        format!(
                            "v1 string of property {id} ({}) is cut off: {n} characters and padding need {} bytes, {} left",
                            def.path,
                            words * 4,
                            e.have
                        ),
                    );
                    d.cur = Cursor::at(body, body.len());
                    return Err(());
                }
            };
            let mut text = Vec::with_capacity(n);
            let mut odd = 0usize;
            for (i, wb) in data.chunks_exact(4).enumerate() {
                let word = u32::from_be_bytes([wb[0], wb[1], wb[2], wb[3]]);
                if i < n {
                    text.push(wb[3]);
                    let hi = word >> 8;
                    if !(hi == 0 || (hi == 0x00ff_ffff && wb[3] >= 0x80)) {
                        odd += 1;
                    }
                } else if word != 0 {
                    odd += 1;
                }
            }
            if odd > 0 {
                d.tree.expert(
                    &notes::V1_STRING_ODD_WORDS,
                    Some(&f::PROP_VALUE),
                    Some(Pos::bytes(val_at + 4, words * 4)),
                    format!("{odd} character or pad word(s) of property {id} hold more than a sign-extended byte; the low byte is used"),
                );
            }
            if id == 10002 {
                facts.chat = Some(String::from_utf8_lossy(&text).into_owned());
            }
            push_item(
                &mut d.tree,
                Item {
                    def,
                    id,
                    enc: Encoding::V1_STRING,
                    value: Value::text(&text),
                    meaning: Some(format!("{len} character(s), one per word")),
                    id_pos,
                    value_pos: Pos::bytes(val_at, 4 + words * 4),
                    whole: Pos::bytes(at, 8 + words * 4),
                },
            );
            Ok(1)
        }
    }
}

/// A bool block: `[block id][31-bit mask]`, bit i = property `block id + i` (§5.2).
fn bool_block(d: &mut Dissector<'_>, _body: &[u8], at: usize, id: u32) -> Result<usize, ()> {
    let mask = d.cur.u32_be().map_err(|e| {
        d.short(&f::BOOL_BLOCK_MASK, e);
    })?;
    d.tree.open(&f::BOOL_BLOCK, Value::None, Pos::bytes(at, 8));
    d.tree
        .add(&f::BOOL_BLOCK_ID, Value::UInt(id as u64), Pos::bytes(at, 4));
    d.tree.add(
        &f::BOOL_BLOCK_MASK,
        Value::UInt(mask as u64),
        Pos::bytes(at + 4, 4),
    );
    d.tree.close_as_is();
    if ![11000, 11040, 11080].contains(&id) {
        d.tree.expert(
            &notes::BOOL_BLOCK_ID,
            Some(&f::BOOL_BLOCK_ID),
            Some(Pos::bytes(at, 4)),
            format!(
                "bool id {id} in the block range: FlightGear takes it as a block starting there"
            ),
        );
    }
    if mask & 0x8000_0000 != 0 {
        d.tree.expert(
            &notes::BOOL_BLOCK_BIT31,
            Some(&f::BOOL_BLOCK_MASK),
            Some(Pos::bytes(at + 4, 4)),
            "bit 31 of a bool block is set; it is never used",
        );
    }
    let mut n = 0;
    for i in 0..31u32 {
        let pid = id + i;
        let Some(def) = props::lookup(pid) else {
            continue;
        };
        let bit = Pos::bits((at + 4) * 8 + (31 - i as usize), 1);
        push_item(
            &mut d.tree,
            Item {
                def,
                id: pid,
                enc: Encoding::BOOLARRAY,
                value: Value::Bool(mask >> i & 1 == 1),
                meaning: None,
                id_pos: Pos::bytes(at, 4),
                value_pos: bit,
                whole: bit,
            },
        );
        n += 1;
    }
    Ok(n)
}

/// The model's short name: the file name of the model path without `.xml`
/// (`Aircraft/c172p/Models/c172p.xml` → `c172p`).
pub fn model_short(path: &str) -> &str {
    let file = path.rsplit('/').next().unwrap_or(path);
    let stem = file.strip_suffix(".xml").unwrap_or(file);
    if stem.is_empty() { path } else { stem }
}

/// Quotes a chat line for the summary, shortened to 80 characters.
fn quote(s: &str) -> String {
    let mut out = String::from("\"");
    for (i, ch) in s.chars().enumerate() {
        if i == 80 {
            out.push('…');
            break;
        }
        if ch.is_control() {
            let _ = write!(out, "\\x{:02x}", ch as u32);
        } else {
            out.push(ch);
        }
    }
    out.push('"');
    out
}

fn summary(
    flow: &mut Flow,
    callsign: &str,
    relay: bool,
    msg_id: u32,
    body_len: usize,
    facts: &Facts,
) -> String {
    let mut s = String::new();
    if relay {
        s.push_str("[relay] ");
    }
    match msg_id {
        9 => s.push_str("PING "),
        10 => s.push_str("PONG "),
        _ => {}
    }
    s.push_str(if callsign.is_empty() { "?" } else { callsign });
    let mut new_chat = None;
    if let Some(a) = flow.aircraft_mut(callsign) {
        update(a, facts, &mut new_chat);
    }
    if new_chat.is_some() {
        flow.chat_lines += 1;
    }
    match msg_id {
        7 | 9 | 10 if facts.model.is_some() => {
            if let Some(m) = &facts.model {
                let _ = write!(s, " {}", model_short(m));
            }
            if let Some((lat, lon, ft)) = facts.geo {
                let _ = write!(
                    s,
                    " {:.4}{} {:.4}{} {:.0} ft",
                    lat.abs(),
                    if lat < 0.0 { 'S' } else { 'N' },
                    lon.abs(),
                    if lon < 0.0 { 'W' } else { 'E' },
                    ft
                );
            }
            if let Some(h) = facts.heading {
                let _ = write!(s, " hdg {:03.0}", h.round() % 360.0);
            }
            if facts.props_cut {
                s.push_str(" (properties cut)");
            }
        }
        1 => {
            let _ = write!(s, " chat {}", quote(facts.chat.as_deref().unwrap_or("")));
            return s;
        }
        7 | 9 | 10 => {
            let _ = write!(s, " {} ({body_len} bytes)", MsgId(msg_id).name_or(""));
        }
        _ => {
            let name = MsgId(msg_id).name_or("");
            if name.is_empty() {
                let _ = write!(s, " message id {msg_id} ({body_len} bytes)");
            } else {
                let _ = write!(s, " {name} ({body_len} bytes, obsolete)");
            }
        }
    }
    if let Some(c) = new_chat {
        let _ = write!(s, " chat {}", quote(&c));
    }
    s
}

/// Records what this message told about its aircraft; sets `new_chat` when the chat line is new
/// or changed (every position packet repeats the current line).
fn update(a: &mut Aircraft, facts: &Facts, new_chat: &mut Option<String>) {
    a.messages += 1;
    if let Some(m) = &facts.model
        && a.model != model_short(m)
    {
        a.model = model_short(m).chars().take(96).collect();
    }
    if let Some(p) = facts.protocol {
        a.protocol = Some(p);
    }
    // An empty value (FGData clears the line ~10 s after it was typed) is remembered, so the
    // same line typed again shows again, but is not itself shown.
    if let Some(c) = &facts.chat
        && a.chat.as_deref() != Some(c.as_str())
    {
        let c: String = c.chars().take(MAX_TEXT_SIZE as usize).collect();
        a.chat = Some(c.clone());
        if !c.is_empty() {
            *new_chat = Some(c);
        }
    }
}
