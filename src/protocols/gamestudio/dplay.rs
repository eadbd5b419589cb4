//! The DirectPlay wrappers around Gamestudio messages.
//!
//! DirectPlay 8: Microsoft [MC-DPL8R] 2.2.1 (CFRAMEs), 2.2.2 (DFRAME), 2.2.3 (coalesced
//! payloads); enumeration (lead byte 0x00): [MC-DPLHP] 2.2.1 EnumQuery, 2.2.2 EnumResponse.
//! DirectPlay 4: [MC-DPL4CS] 2.2.1 (SOCKADDR_IN), 2.2.6 (DPSP_MSG_HEADER, command values),
//! 2.2.45 (player messages), read as Wireshark's epan/dissectors/packet-dplay.c
//! (dissect_dplay_header) reads them. All little-endian.

use crate::tree::{FieldDef, Pos, TreeBuilder, Value};
use crate::wire::{Dissector, Range, Step, Stop};

use super::fields as f;
use super::notes;

/// A piece of a message split over several DFRAMEs.
#[derive(Debug, Clone, Copy)]
pub struct Fragment {
    /// The NEW_MSG / END_MSG bits of bCommand.
    pub bits: u8,
    /// Offset and length of the piece in the UDP payload.
    pub at: usize,
    pub len: usize,
    /// bSeq of the frame.
    pub seq: u8,
}

/// What a wrapper layer found in a datagram.
#[derive(Debug, Default)]
pub struct Unwrapped {
    pub tree: TreeBuilder,
    /// Gamestudio message buffers: (offset in the UDP payload, length).
    pub payloads: Payloads,
    pub summary: String,
    /// The frame kind, for `stats`.
    pub msg_type: &'static str,
    /// The frame was decoded without an error.
    pub ok: bool,
    pub fragment: Option<Fragment>,
    /// A CONNECTED_SIGNED frame was seen: the session signs its frames from now on.
    pub signing: bool,
}

/// Buffers as (offset, length). Nearly every datagram has one, kept inline; a `Vec` only for
/// coalesced frames with more (it was an allocation per datagram).
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Payloads {
    one: Option<(usize, usize)>,
    more: Vec<(usize, usize)>,
}

impl Payloads {
    pub fn one(b: (usize, usize)) -> Payloads {
        Payloads {
            one: Some(b),
            more: Vec::new(),
        }
    }

    pub fn push(&mut self, b: (usize, usize)) {
        if self.one.is_none() && self.more.is_empty() {
            self.one = Some(b);
            return;
        }
        self.more.extend(self.one.take());
        self.more.push(b);
    }
}

impl std::ops::Deref for Payloads {
    type Target = [(usize, usize)];

    fn deref(&self) -> &[(usize, usize)] {
        match &self.one {
            Some(b) => std::slice::from_ref(b),
            None => &self.more,
        }
    }
}

crate::open_enum! {
    /// DFRAME bCommand flags ([MC-DPL8R] 2.2.2), in bit order.
    pub struct Dp8Command(u8) {
        DATA = 0x01 => "DATA",
        RELIABLE = 0x02 => "RELIABLE",
        SEQUENTIAL = 0x04 => "SEQUENTIAL",
        POLL = 0x08 => "POLL",
        NEW_MSG = 0x10 => "NEW_MSG",
        END_MSG = 0x20 => "END_MSG",
        USER_1 = 0x40 => "USER_1",
        USER_2 = 0x80 => "USER_2",
    }
}

crate::open_enum! {
    /// DFRAME bControl flags ([MC-DPL8R] 2.2.2), in bit order.
    pub struct Dp8Control(u8) {
        RETRY = 0x01 => "RETRY",
        KEEPALIVE = 0x02 => "KEEPALIVE",
        COALESCE = 0x04 => "COALESCE",
        END_STREAM = 0x08 => "END_STREAM",
        SACK1 = 0x10 => "SACK1",
        SACK2 = 0x20 => "SACK2",
        SEND1 = 0x40 => "SEND1",
        SEND2 = 0x80 => "SEND2",
    }
}

crate::open_enum! {
    /// The bCommand flags of a coalesce header ([MC-DPL8R] 2.2.3), in bit order; bits 3..5 carry
    /// the high bits of the size.
    pub struct CoalesceFlag(u8) {
        END_COALESCE = 0x01 => "END_COALESCE",
        RELIABLE = 0x02 => "RELIABLE",
        SEQUENTIAL = 0x04 => "SEQUENTIAL",
        USER_1 = 0x40 => "USER_1",
        USER_2 = 0x80 => "USER_2",
    }
}

crate::open_enum! {
    /// CFRAME bExtOpCode ([MC-DPL8R] 2.2.1).
    pub struct Dp8Ext(u8) {
        CONNECT = 0x01 => "CONNECT",
        CONNECTED = 0x02 => "CONNECTED",
        CONNECTED_SIGNED = 0x03 => "CONNECTED_SIGNED",
        HARD_DISCONNECT = 0x04 => "HARD_DISCONNECT",
        SACK = 0x06 => "SACK",
    }
}

impl Dp8Ext {
    /// The record type of the CFRAME, for `stats`.
    fn msg_type(self) -> &'static str {
        match self {
            Dp8Ext::CONNECT => "DP8 CONNECT",
            Dp8Ext::CONNECTED => "DP8 CONNECTED",
            Dp8Ext::CONNECTED_SIGNED => "DP8 CONNECTED_SIGNED",
            Dp8Ext::HARD_DISCONNECT => "DP8 HARD_DISCONNECT",
            Dp8Ext::SACK => "DP8 SACK",
            _ => "DP8 CFRAME",
        }
    }
}

crate::open_enum! {
    /// CONNECTED_SIGNED dwSigningOpts, low two bits ([MC-DPL8R] 2.2.1.3).
    pub struct SigningOpts(u32) {
        FAST = 1 => "FAST",
        FULL = 2 => "FULL",
    }
}

crate::open_enum! {
    /// The enumeration command after the 0x00 lead byte ([MC-DPLHP] 2.2.1, 2.2.2).
    pub struct EnumCommand(u8) {
        QUERY = 0x02 => "ENUM_QUERY",
        RESPONSE = 0x03 => "ENUM_RESPONSE",
    }
}

crate::open_enum! {
    /// The token in the high 12 bits of a DirectPlay 4 message's first word ([MC-DPL4CS] 2.2.6).
    pub struct Dp4Token(u32) {
        REMOTE = 0xFAB => "remote",
        FORWARD = 0xCAB => "forward",
        SERVER = 0xBAB => "server",
    }
}

crate::open_enum! {
    /// DirectPlay 4 system message commands ([MC-DPL4CS] 2.2.6; Wireshark
    /// epan/dissectors/packet-dplay.c dplay_command_val).
    pub struct Dp4Command(u16) {
        ENUMSESSIONSREPLY = 0x01 => "ENUMSESSIONSREPLY",
        ENUMSESSIONS = 0x02 => "ENUMSESSIONS",
        ENUMPLAYERSREPLY = 0x03 => "ENUMPLAYERSREPLY",
        ENUMPLAYER = 0x04 => "ENUMPLAYER",
        REQUESTPLAYERID = 0x05 => "REQUESTPLAYERID",
        REQUESTGROUPID = 0x06 => "REQUESTGROUPID",
        REQUESTPLAYERREPLY = 0x07 => "REQUESTPLAYERREPLY",
        CREATEPLAYER = 0x08 => "CREATEPLAYER",
        CREATEGROUP = 0x09 => "CREATEGROUP",
        PLAYERMESSAGE = 0x0a => "PLAYERMESSAGE",
        DELETEPLAYER = 0x0b => "DELETEPLAYER",
        DELETEGROUP = 0x0c => "DELETEGROUP",
        ADDPLAYERTOGROUP = 0x0d => "ADDPLAYERTOGROUP",
        DELETEPLAYERFROMGROUP = 0x0e => "DELETEPLAYERFROMGROUP",
        PLAYERDATACHANGED = 0x0f => "PLAYERDATACHANGED",
        PLAYERNAMECHANGED = 0x10 => "PLAYERNAMECHANGED",
        GROUPDATACHANGED = 0x11 => "GROUPDATACHANGED",
        GROUPNAMECHANGED = 0x12 => "GROUPNAMECHANGED",
        ADDFORWARDREQUEST = 0x13 => "ADDFORWARDREQUEST",
        PACKET = 0x15 => "PACKET",
        PING = 0x16 => "PING",
        PINGREPLY = 0x17 => "PINGREPLY",
        YOUAREDEAD = 0x18 => "YOUAREDEAD",
        PLAYERWRAPPER = 0x19 => "PLAYERWRAPPER",
        SESSIONDESCCHANGED = 0x1a => "SESSIONDESCCHANGED",
        CHALLENGE = 0x1c => "CHALLENGE",
        ACCESSGRANTED = 0x1d => "ACCESSGRANTED",
        LOGONDENIED = 0x1e => "LOGONDENIED",
        AUTHERROR = 0x1f => "AUTHERROR",
        NEGOTIATE = 0x20 => "NEGOTIATE",
        CHALLENGERESPONSE = 0x21 => "CHALLENGERESPONSE",
        SIGNED = 0x22 => "SIGNED",
        ADDFORWARDREPLY = 0x24 => "ADDFORWARDREPLY",
        ASK4MULTICAST = 0x25 => "ASK4MULTICAST",
        ASK4MULTICASTGUARANTEED = 0x26 => "ASK4MULTICASTGUARANTEED",
        ADDSHORTCUTTOGROUP = 0x27 => "ADDSHORTCUTTOGROUP",
        DELETEGROUPFROMGROUP = 0x28 => "DELETEGROUPFROMGROUP",
        SUPERENUMPLAYERSREPLY = 0x29 => "SUPERENUMPLAYERSREPLY",
        KEYEXCHANGE = 0x2b => "KEYEXCHANGE",
        KEYEXCHANGEREPLY = 0x2c => "KEYEXCHANGEREPLY",
        CHAT = 0x2d => "CHAT",
        ADDFORWARD = 0x2e => "ADDFORWARD",
        ADDFORWARDACK = 0x2f => "ADDFORWARDACK",
        PACKET2_DATA = 0x30 => "PACKET2_DATA",
        PACKET2_ACK = 0x31 => "PACKET2_ACK",
        IAMNAMESERVER = 0x35 => "IAMNAMESERVER",
        VOICE = 0x36 => "VOICE",
        MULTICASTDELIVERY = 0x37 => "MULTICASTDELIVERY",
        CREATEPLAYERVERIFY = 0x38 => "CREATEPLAYERVERIFY",
    }
}

/// The fixed layouts, by byte range in the UDP payload.
mod field {
    use crate::wire::Range;

    // Every DirectPlay 8 frame ([MC-DPL8R] 2.2.1, 2.2.2).
    pub const COMMAND: Range = 0..1;
    // CFRAME
    pub const EXT_OPCODE: Range = 1..2;
    // CONNECT / CONNECTED / CONNECTED_SIGNED / HARD_DISCONNECT (2.2.1.1–2.2.1.4)
    pub const CONNECT_HEAD: Range = 2..16;
    pub const MSG_ID: Range = 2..3;
    pub const RSP_ID: Range = 3..4;
    pub const VERSION: Range = 4..8;
    pub const SESSION: Range = 8..12;
    pub const TIMESTAMP: Range = 12..16;
    pub const CONNECT_SIG: Range = 16..24;
    pub const SENDER_SECRET: Range = 24..32;
    pub const RECEIVER_SECRET: Range = 32..40;
    pub const SIGNING_OPTS: Range = 40..44;
    pub const ECHO_TIMESTAMP: Range = 44..48;
    pub const DISCONNECT_SIG: Range = 16..24;
    // SACK (2.2.1.5): bFlags bRetry bNSeq bNRcv wPadding tTimestamp, then the masks
    pub const SACK_HEAD: Range = 2..12;
    pub const SACK_FLAGS: Range = 2..3;
    pub const SACK_RETRY: Range = 3..4;
    pub const SACK_NSEQ: Range = 4..5;
    pub const SACK_NRCV: Range = 5..6;
    pub const SACK_TIMESTAMP: Range = 8..12;
    // DFRAME
    pub const DFRAME_HEAD: Range = 0..4;
    pub const CONTROL: Range = 1..2;
    pub const SEQ: Range = 2..3;
    pub const NRCV: Range = 3..4;
    // Enumeration ([MC-DPLHP] 2.2.1, 2.2.2); offsets after EnumPayload count from 4
    pub const ENUM_COMMAND: Range = 1..2;
    pub const ENUM_PAYLOAD: Range = 2..4;
    pub const QUERY_TYPE: Range = 4..5;
    pub const QUERY_GUID: Range = 5..21;
    pub const RESPONSE: Range = 4..92;
    pub const SESSION_NAME_OFFSET: Range = 28..32;
    pub const SESSION_NAME_SIZE: Range = 32..36;
    pub const INSTANCE_GUID: Range = 60..76;
    pub const APP_GUID: Range = 76..92;
    // DirectPlay 4 ([MC-DPL4CS] 2.2.6, 2.2.45)
    pub const DP4_HEAD: Range = 0..20;
    pub const SIZE_TOKEN: Range = 0..4;
    pub const FAMILY: Range = 4..6;
    pub const PORT: Range = 6..8;
    pub const ADDRESS: Range = 8..12;
    pub const SIGNATURE: Range = 20..24;
    pub const DP4_COMMAND: Range = 24..26;
    pub const DP4_VERSION: Range = 26..28;
    pub const ENUMSESSIONS: Range = 28..52;
    pub const ENUM_APP_GUID: Range = 28..44;
    pub const PASSWORD_OFFSET: Range = 44..48;
    pub const ENUM_FLAGS: Range = 48..52;
    pub const ID_FROM: Range = 20..24;
    pub const ID_TO: Range = 24..28;
}

/// The masks a SACK CFRAME (bFlags) and a DFRAME (bControl) may carry, in wire order.
const MASKS: [&FieldDef; 4] = [&f::DP8_SACK1, &f::DP8_SACK2, &f::DP8_SEND1, &f::DP8_SEND2];
const SACK_MASK_BITS: [u8; 4] = [0x02, 0x04, 0x08, 0x10];
const DFRAME_MASK_BITS: [u8; 4] = [
    Dp8Control::SACK1.0,
    Dp8Control::SACK2.0,
    Dp8Control::SEND1.0,
    Dp8Control::SEND2.0,
];

/// The names of the flags set in `v`, `|`-separated, or `none`.
fn flag_names(v: u8, flags: impl Iterator<Item = (u8, &'static str)>) -> String {
    let mut s = String::new();
    for (_, name) in flags.filter(|&(bit, _)| v & bit != 0) {
        if !s.is_empty() {
            s.push('|');
        }
        s.push_str(name);
    }
    if s.is_empty() { "none".into() } else { s }
}

/// Shape check for the DirectPlay 8 connect handshake CFRAMEs (exact sizes, major version 1).
pub fn is_dp8_connect(p: &[u8]) -> bool {
    matches!(p.first(), Some(0x80 | 0x88))
        && matches!(p.get(1), Some(0x01..=0x03))
        && p.get(6..8) == Some(&[0x01, 0x00][..])
        && (p.len() == 16 || (p.get(1) == Some(&3) && p.len() == 48))
}

/// DirectPlay 8 enumeration (UDP 6073 and game ports): lead byte 0, command 2 or 3.
pub fn is_dp8_enum(p: &[u8]) -> bool {
    p.len() >= 4 && p[0] == 0 && matches!(p[1], 0x02 | 0x03)
}

/// DirectPlay 4: size/token word with a known token and an AF_INET SOCKADDR_IN.
pub fn is_dp4(p: &[u8]) -> bool {
    match p.get(field::DP4_HEAD) {
        Some(h) => {
            let w = u32::from_le_bytes([h[0], h[1], h[2], h[3]]);
            Dp4Token(w >> 20).name().is_some() && h[4] == 2 && h[5] == 0
        }
        None => false,
    }
}

/// Whether a DirectPlay 4 message carries the 'play' signature (a system message).
pub fn is_dp4_system(p: &[u8]) -> bool {
    p.get(field::SIGNATURE) == Some(&b"play"[..])
}

/// A GUID in its registry form ({Data1-Data2-Data3-Data4}, the first three little-endian;
/// [MS-DTYP] 2.3.4).
pub fn guid(b: &[u8]) -> String {
    let Some(b) = b.get(..16) else {
        return String::new();
    };
    format!(
        "{{{:08X}-{:04X}-{:04X}-{:02X}{:02X}-{:02X}{:02X}{:02X}{:02X}{:02X}{:02X}}}",
        u32::from_le_bytes([b[0], b[1], b[2], b[3]]),
        u16::from_le_bytes([b[4], b[5]]),
        u16::from_le_bytes([b[6], b[7]]),
        b[8],
        b[9],
        b[10],
        b[11],
        b[12],
        b[13],
        b[14],
        b[15]
    )
}

/// Decodes a DirectPlay 8 frame (CFRAME, DFRAME or enumeration message). `signed`: the session
/// was set up with CONNECTED_SIGNED, so frames carry an 8-byte ullSignature ([MC-DPL8R] 2.2.2).
/// `detail`: keep the field tree.
pub fn dp8(p: &[u8], signed: bool, detail: bool) -> Unwrapped {
    let mut fr = Frame::new(p, &f::DP8, detail);
    let r = if is_dp8_enum(p) {
        fr.enumeration()
    } else {
        fr.dp8(signed)
    };
    fr.finish(r)
}

/// Decodes a DirectPlay 4 message; `ids`: player messages carry idFrom and idTo, which a session
/// with the NM (DPSESSION_NOMESSAGEID) flag omits ([MC-DPL4CS] 2.2.45, 2.2.5).
pub fn dp4_with(p: &[u8], ids: bool, detail: bool) -> Unwrapped {
    let mut fr = Frame::new(p, &f::DP4, detail);
    let r = fr.dp4(ids);
    if r.is_err() {
        fr.u.msg_type = "DP4 malformed";
    }
    fr.finish(r)
}

/// A datagram of a DirectPlay 4 flow that lacks the DirectPlay 4 header: an error, shown as a
/// malformed DirectPlay 4 message.
pub fn not_dp4(p: &[u8], detail: bool) -> Unwrapped {
    let mut fr = Frame::new(p, &f::DP4, detail);
    let msg =
        "not a DirectPlay 4 message (no size/token word with a known token and AF_INET address)";
    fr.d.fail(&notes::NOT_DP4, &f::DP4, (0, p.len().min(4)), msg);
    fr.u.summary = "DP4 malformed".into();
    fr.u.msg_type = "DP4 malformed";
    fr.finish(Err(Stop))
}

/// Bytes reserved for a record's summary line when the wrapper starts it: room for the
/// wrapper's part and a typical line of messages, so that neither grows it.
pub const SUMMARY_ROOM: usize = 256;

/// `v` as `{v:#010x}` writes it.
fn push_hex32(s: &mut String, v: u32) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    s.push_str("0x");
    for i in (0..8).rev() {
        s.push(char::from(HEX[(v >> (i * 4)) as usize & 0xf]));
    }
}

/// One wrapper frame being decoded.
struct Frame<'a> {
    d: Dissector<'a>,
    u: Unwrapped,
}

impl<'a> Frame<'a> {
    fn new(p: &'a [u8], root: &'static FieldDef, detail: bool) -> Frame<'a> {
        let mut d = Dissector::new(p, detail);
        d.tree.open(root, Value::None, Pos::bytes(0, p.len()));
        Frame {
            d,
            u: Unwrapped {
                ok: true,
                ..Unwrapped::default()
            },
        }
    }

    /// Sets the wrapper's summary, in one buffer sized for the whole summary line of the
    /// record, which it becomes (the flow puts the messages after it).
    fn say(&mut self, args: std::fmt::Arguments<'_>) {
        use std::fmt::Write as _;
        let s = &mut self.u.summary;
        s.clear();
        s.reserve(SUMMARY_ROOM);
        let _ = s.write_fmt(args);
    }

    fn finish(mut self, r: Step<()>) -> Unwrapped {
        self.u.ok = r.is_ok();
        self.u.tree = self.d.tree;
        self.u
    }

    fn len(&self) -> usize {
        self.d.cur.len()
    }

    /// The bytes of `range`, moving the cursor after them; when the frame ends first, a
    /// DirectPlay 8 cut-off note on the bytes that are there.
    fn take(&mut self, what: &str, range: Range) -> Step<&'a [u8]> {
        match self.d.cur.range(range.clone()) {
            Ok(b) => {
                self.d.cur.seek(range.end);
                Ok(b)
            }
            Err(e) => Err(self.d.fail(
                &notes::DP8_CUT_OFF,
                &f::DP8,
                (e.at, e.have),
                format!("DirectPlay 8 {what} is cut off at offset {}", e.at),
            )),
        }
    }

    /// Checks that `n` bytes follow the cursor (see [`Frame::take`]), without moving it.
    fn ahead(&mut self, what: &str, n: usize) -> Step<()> {
        let at = self.d.pos();
        self.take(what, at..at + n)?;
        self.d.cur.seek(at);
        Ok(())
    }

    /// The raw bytes of a field whose value the decoder derives; the cursor ends after them.
    fn raw<const N: usize>(&mut self, def: &'static FieldDef, range: Range) -> Step<[u8; N]> {
        self.d.cur.seek(range.start);
        self.d.cur.array::<N>().map_err(|e| self.d.short(def, e))
    }

    /// Gives the field added last a meaning, when trees are kept.
    fn meaning(&mut self, m: impl FnOnce() -> String) {
        if self.d.tree.detail()
            && let Some(last) = self.d.tree.last_mut()
        {
            last.meaning = Some(m().into());
        }
    }

    /// Shows `n` bytes at `at` as a bytes field (built only when trees are kept).
    fn bytes_at(&mut self, def: &'static FieldDef, at: usize, n: usize) {
        if self.d.tree.detail()
            && let Some(b) = self.d.cur.data().get(at..at + n)
        {
            self.d.add(def, Value::Bytes(b.into()), at, n);
        }
    }

    /// Shows the bytes after the cursor, if any.
    fn rest(&mut self, def: &'static FieldDef) {
        let (at, n) = (self.d.pos(), self.d.cur.remaining());
        if n > 0 {
            self.bytes_at(def, at, n);
        }
    }

    /// A GUID field (built only when trees are kept).
    fn guid_at(&mut self, def: &'static FieldDef, range: Range) {
        if self.d.tree.detail()
            && let Ok(b) = self.d.cur.range(range.clone())
        {
            self.d
                .add(def, Value::Str(guid(b).into()), range.start, range.len());
        }
        self.d.cur.seek(range.end);
    }

    /// The optional 32-bit masks whose `bits` are set in `flags`, in wire order.
    fn masks(&mut self, flags: u8, bits: [u8; 4], what: &str) -> Step<()> {
        for (bit, def) in bits.into_iter().zip(MASKS) {
            if flags & bit != 0 {
                self.ahead(what, 4)?;
                self.d.u32_le(def)?;
            }
        }
        Ok(())
    }
}

/// DirectPlay 8 frames ([MC-DPL8R] 2.2).
impl Frame<'_> {
    fn dp8(&mut self, signed: bool) -> Step<()> {
        self.u.msg_type = "DP8 malformed";
        let cmd = self.take("frame", field::COMMAND)?[0];
        if cmd & Dp8Command::DATA.0 == 0 {
            return self.cframe(cmd, signed);
        }
        self.dframe(cmd, signed)
    }

    fn cframe(&mut self, cmd: u8, signed: bool) -> Step<()> {
        self.d.add(&f::DP8_COMMAND, Value::UInt(cmd as u64), 0, 1);
        self.meaning(|| {
            let poll = cmd & Dp8Command::POLL.0 != 0;
            if poll { "CFRAME|POLL" } else { "CFRAME" }.to_string()
        });
        let op = Dp8Ext(self.take("CFRAME", field::EXT_OPCODE)?[0]);
        self.d
            .add(&f::DP8_EXT, Value::Enum(op.0 as i64, op.name_or("")), 1, 1);
        self.u.msg_type = op.msg_type();
        match op {
            Dp8Ext::SACK => self.sack(signed),
            Dp8Ext::CONNECT
            | Dp8Ext::CONNECTED
            | Dp8Ext::CONNECTED_SIGNED
            | Dp8Ext::HARD_DISCONNECT => self.connect(op, signed),
            _ => {
                self.rest(&f::DP8_DATA);
                self.d.tree.expert(
                    &notes::DP8_UNKNOWN_CFRAME,
                    Some(&f::DP8_EXT),
                    Some(Pos::bytes(1, 1)),
                    format!("unknown CFRAME opcode {:#04x}", op.0),
                );
                self.say(format_args!("DP8 CFRAME opcode {:#04x}", op.0));
                Ok(())
            }
        }
    }

    /// SACK (2.2.1.5).
    fn sack(&mut self, signed: bool) -> Step<()> {
        let h = self.take("SACK", field::SACK_HEAD)?;
        let (flags, nseq, nrcv) = (h[0], h[2], h[3]);
        self.d.u8_at(&f::DP8_SACK_FLAGS, field::SACK_FLAGS)?;
        self.d.u8_at(&f::DP8_RETRY, field::SACK_RETRY)?;
        self.d.u8_at(&f::DP8_NSEQ, field::SACK_NSEQ)?;
        self.d.u8_at(&f::DP8_NRCV, field::SACK_NRCV)?;
        self.d.u32_le_at(&f::DP8_TIMESTAMP, field::SACK_TIMESTAMP)?;
        self.say(format_args!("DP8 SACK next-seq {nseq} next-recv {nrcv}"));
        self.masks(flags, SACK_MASK_BITS, "SACK mask")?;
        // A signature that is not all there is not looked for.
        if signed && self.d.cur.remaining() >= 8 {
            self.d.u64_le(&f::DP8_SIGNATURE)?;
        }
        self.rest(&f::DP8_DATA);
        Ok(())
    }

    /// The common 16-byte head of CONNECT, CONNECTED, CONNECTED_SIGNED and HARD_DISCONNECT.
    fn connect(&mut self, op: Dp8Ext, signed: bool) -> Step<()> {
        self.take("CFRAME", field::CONNECT_HEAD)?;
        self.d.u8_at(&f::DP8_MSG_ID, field::MSG_ID)?;
        self.d.u8_at(&f::DP8_RSP_ID, field::RSP_ID)?;
        let ver = self.d.u32_le_at(&f::DP8_VERSION, field::VERSION)?;
        let sid = self.d.u32_le_at(&f::DP8_SESSION, field::SESSION)?;
        self.d.u32_le_at(&f::DP8_TIMESTAMP, field::TIMESTAMP)?;
        if op == Dp8Ext::CONNECTED_SIGNED && self.len() >= field::ECHO_TIMESTAMP.end {
            self.connected_signed()?;
        } else if op == Dp8Ext::HARD_DISCONNECT && signed && self.len() >= field::DISCONNECT_SIG.end
        {
            self.d.u64_le_at(&f::DP8_SIGNATURE, field::DISCONNECT_SIG)?;
        }
        self.rest(&f::DP8_DATA);
        self.say(format_args!(
            "DP8 {} session {sid:#010x} version {ver:#x}",
            op.name_or("")
        ));
        Ok(())
    }

    /// CONNECTED_SIGNED (2.2.1.3): cookie, two secrets, signing options, echoed timestamp.
    fn connected_signed(&mut self) -> Step<()> {
        self.d.u64_le_at(&f::DP8_CONNECT_SIG, field::CONNECT_SIG)?;
        self.d
            .u64_le_at(&f::DP8_SENDER_SECRET, field::SENDER_SECRET)?;
        self.d
            .u64_le_at(&f::DP8_RECEIVER_SECRET, field::RECEIVER_SECRET)?;
        let opts = u32::from_le_bytes(self.raw(&f::DP8_SIGNING_OPTS, field::SIGNING_OPTS)?);
        let name = SigningOpts(opts & 3).name_or("");
        let r = field::SIGNING_OPTS;
        self.d.add(
            &f::DP8_SIGNING_OPTS,
            Value::Enum(opts as i64, name),
            r.start,
            r.len(),
        );
        self.d.u32_le_at(&f::DP8_ECHO_TS, field::ECHO_TIMESTAMP)?;
        self.u.signing = true;
        Ok(())
    }

    /// DFRAME (2.2.2): bCommand bControl bSeq bNRcv, masks, signature, payload.
    fn dframe(&mut self, cmd: u8, signed: bool) -> Step<()> {
        let r = self.dframe_body(cmd, signed);
        if r.is_err() && self.u.summary.is_empty() {
            self.say(format_args!("DP8 malformed DFRAME"));
        }
        r
    }

    /// A DFRAME; the summary is set once the header is read.
    fn dframe_body(&mut self, cmd: u8, signed: bool) -> Step<()> {
        self.d.add(&f::DP8_COMMAND, Value::UInt(cmd as u64), 0, 1);
        self.meaning(|| flag_names(cmd, Dp8Command::ALL.iter().map(|&(c, n)| (c.0, n))));
        let h = self.take("DFRAME header", field::DFRAME_HEAD)?;
        let (ctl, seq, nrcv) = (h[1], h[2], h[3]);
        self.d.u8_at(&f::DP8_CONTROL, field::CONTROL)?;
        self.meaning(|| flag_names(ctl, Dp8Control::ALL.iter().map(|&(c, n)| (c.0, n))));
        self.d.u8_at(&f::DP8_SEQ, field::SEQ)?;
        self.d.u8_at(&f::DP8_NRCV, field::NRCV)?;
        self.masks(ctl, DFRAME_MASK_BITS, "DFRAME mask")?;
        if signed {
            self.ahead("DFRAME signature", 8)?;
            self.d.u64_le(&f::DP8_SIGNATURE)?;
        }
        // `DP8 DATA seq {seq} nrcv {nrcv}` by hand: it is on every data frame.
        self.say(format_args!("DP8 DATA seq "));
        let s = &mut self.u.summary;
        s.push_str(itoa::Buffer::new().format(seq));
        s.push_str(" nrcv ");
        s.push_str(itoa::Buffer::new().format(nrcv));
        self.u.msg_type = "DP8 DATA";
        if ctl & Dp8Control::KEEPALIVE.0 != 0 && self.d.cur.remaining() == 4 {
            // Keep-alive (version ≥ 1.5): dwSessID, no payload.
            let sid = self.d.u32_le(&f::DP8_SESSION)?;
            self.say(format_args!("DP8 KEEPALIVE seq {seq} session {sid:#010x}"));
            self.u.msg_type = "DP8 KEEPALIVE";
            return Ok(());
        }
        if ctl & Dp8Control::COALESCE.0 != 0 {
            return self.coalesced(seq, nrcv);
        }
        self.single(cmd, seq);
        Ok(())
    }

    /// The payload of a DFRAME that is not coalesced.
    fn single(&mut self, cmd: u8, seq: u8) {
        let (start, len) = (self.d.pos(), self.d.cur.remaining());
        self.d
            .add(&f::DP8_PAYLOAD_LEN, Value::UInt(len as u64), start, len);
        let user = Dp8Command::USER_1.0 | Dp8Command::USER_2.0;
        let whole = Dp8Command::NEW_MSG.0 | Dp8Command::END_MSG.0;
        if len == 0 {
            self.u.summary.push_str(" (no payload)");
            self.u.msg_type = "DP8 ACK";
        } else if cmd & user != 0 {
            self.bytes_at(&f::DP8_CORE, start, len);
            self.say(format_args!("DP8 DATA seq {seq} core message {len} bytes"));
            self.u.msg_type = "DP8 core";
        } else if cmd & whole != whole {
            self.bytes_at(&f::DP8_FRAGMENT, start, len);
            self.u.fragment = Some(Fragment {
                bits: cmd & whole,
                at: start,
                len,
                seq,
            });
            self.say(format_args!("DP8 DATA seq {seq} fragment {len} bytes"));
            self.u.msg_type = "DP8 fragment";
        } else {
            self.u.payloads.push((start, len));
        }
    }

    /// Coalesced payloads (2.2.3): 1–32 two-byte headers, padding to 4, then the payloads, each
    /// padded to 4 bytes (sizes exclude the padding).
    fn coalesced(&mut self, seq: u8, nrcv: u8) -> Step<()> {
        let mut heads = [(0usize, 0usize, 0u8); 32];
        let mut n = 0;
        loop {
            let at = self.d.pos();
            let h = self.take("coalesce header", at..at + 2)?;
            let (sz, sc) = (h[0], h[1]);
            heads[n] = (at, sz as usize | (((sc & 0x38) as usize) << 5), sc);
            n += 1;
            if sc & CoalesceFlag::END_COALESCE.0 != 0 {
                break;
            }
            if n >= heads.len() {
                let msg = "more than 32 coalesce headers without END_COALESCE".to_string();
                let def = &notes::DP8_TOO_MANY_COALESCED;
                return Err(self.d.fail(def, &f::DP8_SUB_CMD, (at, 2), msg));
            }
        }
        if n % 2 == 1 {
            let pad = self.d.cur.remaining().min(2);
            self.d.cur.seek(self.d.pos() + pad);
        }
        let mut data_at = self.d.pos();
        for (i, &(hat, size, sc)) in heads[..n].iter().enumerate() {
            self.coalesced_payload(i, (hat, size, sc), data_at)?;
            data_at += size;
            if i + 1 < n {
                data_at = data_at.div_ceil(4) * 4;
            }
        }
        self.say(format_args!(
            "DP8 DATA seq {seq} nrcv {nrcv} coalesced ×{n}"
        ));
        let len = self.len();
        if data_at < len {
            self.d.tree.expert(
                &notes::DP8_AFTER_COALESCED,
                None,
                Some(Pos::bytes(data_at, len - data_at)),
                format!("{} bytes after the last coalesced payload", len - data_at),
            );
        }
        Ok(())
    }

    fn coalesced_payload(
        &mut self,
        i: usize,
        (hat, size, sc): (usize, usize, u8),
        data_at: usize,
    ) -> Step<()> {
        let t = &mut self.d.tree;
        t.open(&f::DP8_SUB, Value::None, Pos::bytes(hat, 2));
        t.add(
            &f::DP8_SUB_SIZE,
            Value::UInt(size as u64),
            Pos::bytes(hat, 2),
        );
        t.add(
            &f::DP8_SUB_CMD,
            Value::UInt(sc as u64),
            Pos::bytes(hat + 1, 1),
        );
        self.meaning(|| flag_names(sc, CoalesceFlag::ALL.iter().map(|&(c, n)| (c.0, n))));
        let len = self.len();
        if data_at + size > len {
            let msg = format!(
                "coalesced payload {} claims {size} bytes at offset {data_at}, only {} left",
                i + 1,
                len.saturating_sub(data_at)
            );
            let stop = self.d.fail(
                &notes::DP8_COALESCED_OVERRUN,
                &f::DP8_SUB_SIZE,
                (hat, 2),
                msg,
            );
            self.d.tree.close_as_is();
            return Err(stop);
        }
        if sc & (CoalesceFlag::USER_1.0 | CoalesceFlag::USER_2.0) != 0 {
            self.bytes_at(&f::DP8_CORE, data_at, size);
        } else {
            self.u.payloads.push((data_at, size));
        }
        self.d.tree.close_as_is();
        Ok(())
    }
}

/// DirectPlay 8 enumeration ([MC-DPLHP] 2.2.1 EnumQuery, 2.2.2 EnumResponse); the caller
/// checked [`is_dp8_enum`], so the first four bytes are there.
impl Frame<'_> {
    fn enumeration(&mut self) -> Step<()> {
        let cmd = EnumCommand(self.raw::<1>(&f::DP8_ENUM_CMD, field::ENUM_COMMAND)?[0]);
        let name = cmd.name_or("");
        self.d
            .add(&f::DP8_ENUM_CMD, Value::Enum(cmd.0 as i64, name), 1, 1);
        let id = self
            .d
            .u16_le_at(&f::DP8_ENUM_PAYLOAD, field::ENUM_PAYLOAD)?;
        self.say(format_args!("DP8 {name} payload {id:#06x}"));
        if cmd == EnumCommand::QUERY {
            self.u.msg_type = "DP8 ENUM_QUERY";
            self.enum_query()
        } else {
            self.u.msg_type = "DP8 ENUM_RESPONSE";
            self.enum_response()
        }
    }

    fn enum_query(&mut self) -> Step<()> {
        let len = self.len();
        if len < field::QUERY_TYPE.end {
            let msg = "ENUM_QUERY QueryType is cut off at offset 4".to_string();
            let def = &notes::DP8_ENUM_CUT_OFF;
            return Err(self.d.fail(def, &f::DP8_QUERY_TYPE, (4, 0), msg));
        }
        let qt = self.d.u8_at(&f::DP8_QUERY_TYPE, field::QUERY_TYPE)?;
        if qt == 1 {
            if len < field::QUERY_GUID.end {
                let msg = "ENUM_QUERY ApplicationGUID is cut off at offset 5".to_string();
                let def = &notes::DP8_ENUM_CUT_OFF;
                return Err(self.d.fail(def, &f::DP8_APP_GUID, (5, len - 5), msg));
            }
            self.guid_at(&f::DP8_APP_GUID, field::QUERY_GUID);
        }
        self.rest(&f::DP8_APP_PAYLOAD);
        Ok(())
    }

    /// EnumResponse: 14 DWORDs, two GUIDs, then the variable data the offsets point into.
    fn enum_response(&mut self) -> Step<()> {
        let len = self.len();
        if len < field::RESPONSE.end {
            let msg = format!("ENUM_RESPONSE needs 92 bytes, the datagram has {len}");
            let def = &notes::DP8_ENUM_CUT_OFF;
            return Err(self.d.fail(def, &f::DP8_ENUM_CMD, (4, len - 4), msg));
        }
        let mut dw = [0u32; 6];
        let defs = [
            &f::DP8_REPLY_OFFSET,
            &f::DP8_RESPONSE_SIZE,
            &f::DP8_DESC_SIZE,
            &f::DP8_DESC_FLAGS,
            &f::DP8_MAX_PLAYERS,
            &f::DP8_CUR_PLAYERS,
        ];
        for (i, def) in defs.into_iter().enumerate() {
            dw[i] = self.d.u32_le_at(def, 4 + i * 4..8 + i * 4)?;
        }
        self.guid_at(&f::DP8_INSTANCE_GUID, field::INSTANCE_GUID);
        self.guid_at(&f::DP8_APP_GUID, field::APP_GUID);
        let off = u32::from_le_bytes(self.raw(&f::DP8_SESSION_NAME, field::SESSION_NAME_OFFSET)?);
        let size = u32::from_le_bytes(self.raw(&f::DP8_SESSION_NAME, field::SESSION_NAME_SIZE)?);
        if size > 0 {
            self.session_name(off as usize, size as usize, (dw[5], dw[4]))?;
        } else if len > field::RESPONSE.end {
            self.bytes_at(&f::DP8_DATA, field::RESPONSE.end, len - field::RESPONSE.end);
        }
        Ok(())
    }

    /// SessionName: UTF-16LE at an offset counted from the end of EnumPayload, as ReplyOffset's.
    fn session_name(&mut self, off: usize, size: usize, (cur, max): (u32, u32)) -> Step<()> {
        let start = 4usize.saturating_add(off);
        let len = self.len();
        let Some(b) = self.d.cur.data().get(start..start.saturating_add(size)) else {
            let msg = format!(
                "SessionName ({size} bytes at offset {start}) lies outside the {len}-byte datagram"
            );
            let def = &notes::DP8_SESSION_NAME_OUTSIDE;
            return Err(self.d.fail(def, &f::DP8_SESSION_NAME, (28, 8), msg));
        };
        let units: Vec<u16> = b
            .chunks_exact(2)
            .map(|c| u16::from_le_bytes([c[0], c[1]]))
            .take_while(|&c| c != 0)
            .collect();
        let name = String::from_utf16_lossy(&units);
        self.u
            .summary
            .push_str(&format!(" \"{name}\" {cur}/{max} players"));
        self.d
            .add(&f::DP8_SESSION_NAME, Value::Str(name.into()), start, size);
        Ok(())
    }
}

/// DirectPlay 4 messages ([MC-DPL4CS] 2.2.6, 2.2.45).
impl Frame<'_> {
    fn dp4(&mut self, ids: bool) -> Step<()> {
        let len = self.len();
        if len < field::DP4_HEAD.end {
            let msg = "DirectPlay 4 header is cut off".to_string();
            let def = &notes::DP4_HEADER_CUT_OFF;
            return Err(self.d.fail(def, &f::DP4, (0, len), msg));
        }
        self.dp4_header()?;
        if is_dp4_system(self.d.cur.data()) {
            return self.dp4_system();
        }
        let body = field::DP4_HEAD.end;
        if !ids {
            self.say(format_args!("DP4 player message (no ids)"));
            self.u.msg_type = "DP4 player";
            if len > body {
                self.u.payloads.push((body, len - body));
            }
            return Ok(());
        }
        if len < field::ID_TO.end {
            let msg = "DirectPlay 4 player message ids are cut off".to_string();
            let def = &notes::DP4_IDS_CUT_OFF;
            return Err(self.d.fail(def, &f::DP4, (body, len - body), msg));
        }
        let from = self.d.u32_le_at(&f::DP4_ID_FROM, field::ID_FROM)?;
        let to = self.d.u32_le_at(&f::DP4_ID_TO, field::ID_TO)?;
        // `DP4 {from:#010x}→{to:#010x}` by hand: it is on every player message.
        self.say(format_args!("DP4 "));
        push_hex32(&mut self.u.summary, from);
        self.u.summary.push('→');
        push_hex32(&mut self.u.summary, to);
        self.u.msg_type = "DP4 player";
        if len > field::ID_TO.end {
            self.u
                .payloads
                .push((field::ID_TO.end, len - field::ID_TO.end));
        }
        Ok(())
    }

    /// The size/token word and the SOCKADDR_IN placeholder.
    fn dp4_header(&mut self) -> Step<()> {
        let w = u32::from_le_bytes(self.raw(&f::DP4_SIZE, field::SIZE_TOKEN)?);
        let size = (w & 0xfffff) as usize;
        let token = Dp4Token(w >> 20);
        self.d.add(&f::DP4_SIZE, Value::UInt(size as u64), 0, 4);
        self.d.add(
            &f::DP4_TOKEN,
            Value::Enum(token.0 as i64, token.name_or("")),
            2,
            2,
        );
        self.d.u16_le_at(&f::DP4_FAMILY, field::FAMILY)?;
        // SOCKADDR_IN port and address are in network order (struct built "as on a
        // little-endian machine", where sin_port/sin_addr are already big-endian).
        self.d.u16_be_at(&f::DP4_PORT, field::PORT)?;
        let a: [u8; 4] = self.raw(&f::DP4_ADDR, field::ADDRESS)?;
        if self.d.tree.detail() {
            let addr = format!("{}.{}.{}.{}", a[0], a[1], a[2], a[3]);
            self.d.add(&f::DP4_ADDR, Value::Str(addr.into()), 8, 4);
        }
        let len = self.len();
        if size != len {
            self.d.tree.expert(
                &notes::DP4_SIZE_MISMATCH,
                Some(&f::DP4_SIZE),
                Some(Pos::bytes(0, 4)),
                format!("size word says {size} bytes, the datagram has {len}"),
            );
        }
        Ok(())
    }

    fn dp4_system(&mut self) -> Step<()> {
        let len = self.len();
        self.d
            .add(&f::DP4_SIGNATURE, Value::Str("play".into()), 20, 4);
        if len < field::DP4_VERSION.end {
            let msg = "DirectPlay 4 system header is cut off".to_string();
            let def = &notes::DP4_SYSTEM_CUT_OFF;
            return Err(self.d.fail(def, &f::DP4, (24, len - 24), msg));
        }
        // After 'play': Command (2), then Version (2). The diagram of [MC-DPL4CS] 2.2.6 draws
        // Version first, but the implementations put the command first: Wine dplayx
        // (DPMSG_SENDENVELOPE: dwMagic, wCommandId, wVersion), Wireshark packet-dplay.c
        // (dissect_dplay_header: play_str, command, dialect), and the spec's own 4.1 example
        // (ENUMSESSIONS 0x0002, version 14). The real programs win.
        let cmd = Dp4Command(u16::from_le_bytes(
            self.raw(&f::DP4_COMMAND, field::DP4_COMMAND)?,
        ));
        let name = cmd.name_or("");
        self.d
            .add(&f::DP4_COMMAND, Value::Enum(cmd.0 as i64, name), 24, 2);
        let ver = self.d.u16_le_at(&f::DP4_VERSION, field::DP4_VERSION)?;
        if cmd == Dp4Command::ENUMSESSIONS && len >= field::ENUMSESSIONS.end {
            // [MC-DPL4CS] 2.2.29: ApplicationGuid, PasswordOffset, Flags, Password.
            self.guid_at(&f::DP4_APP_GUID, field::ENUM_APP_GUID);
            self.d
                .u32_le_at(&f::DP4_PASSWORD_OFFSET, field::PASSWORD_OFFSET)?;
            self.d.u32_le_at(&f::DP4_ENUM_FLAGS, field::ENUM_FLAGS)?;
        }
        self.rest(&f::DP4_BODY);
        self.say(format_args!(
            "DP4 {} v{ver}",
            if name.is_empty() { "system" } else { name }
        ));
        self.u.msg_type = "DP4 system";
        Ok(())
    }
}
