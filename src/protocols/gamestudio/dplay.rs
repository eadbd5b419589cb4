//! The DirectPlay wrappers around Gamestudio messages.
//!
//! DirectPlay 8: [MC-DPL8R] §2.2.1 (CFRAMEs), §2.2.2 (DFRAME), §2.2.3 (coalesced payloads);
//! enumeration lead byte 0x00: [MC-DPLHP]. DirectPlay 4: [MC-DPL4CS] §2.2.1 (SOCKADDR_IN),
//! §2.2.6 (DPSP_MSG_HEADER, command values), §2.2.45 (player messages). All little-endian.

use crate::tree::{Pos, TreeBuilder, Value};
use crate::wire::Cursor;

use super::fields as f;

/// What a wrapper layer found in a datagram.
#[derive(Debug, Default)]
pub struct Unwrapped {
    pub tree: TreeBuilder,
    /// Gamestudio message buffers: (offset in the UDP payload, length).
    pub payloads: Vec<(usize, usize)>,
    pub summary: String,
    /// The frame is DirectPlay control traffic only.
    pub msg_type: &'static str,
    /// The frame was decoded without an error.
    pub ok: bool,
    /// A piece of a message split over several DFRAMEs: (NEW_MSG/END_MSG bits, offset,
    /// length, bSeq).
    pub fragment: Option<(u8, usize, usize, u8)>,
    /// A CONNECTED_SIGNED frame was seen: the session signs its frames from now on.
    pub signing: bool,
}

impl Unwrapped {
    /// `detail`: keep the field tree (see `Datagram::detail`).
    pub fn new(detail: bool) -> Unwrapped {
        Unwrapped {
            tree: TreeBuilder::new(detail),
            ..Unwrapped::default()
        }
    }
}

// [MC-DPL8R] 2.2.2 bCommand
const DATA: u8 = 0x01;
const CMD_NAMES: [&str; 8] = [
    "DATA",
    "RELIABLE",
    "SEQUENTIAL",
    "POLL",
    "NEW_MSG",
    "END_MSG",
    "USER_1",
    "USER_2",
];
const CTL_NAMES: [&str; 8] = [
    "RETRY",
    "KEEPALIVE",
    "COALESCE",
    "END_STREAM",
    "SACK1",
    "SACK2",
    "SEND1",
    "SEND2",
];

fn flag_names(v: u8, names: &[&str; 8]) -> String {
    let v: Vec<&str> = (0..8)
        .filter(|b| v & (1 << b) != 0)
        .map(|b| names[b])
        .collect();
    if v.is_empty() {
        "none".into()
    } else {
        v.join("|")
    }
}

pub fn ext_opcode_name(op: u8) -> &'static str {
    match op {
        0x01 => "CONNECT",
        0x02 => "CONNECTED",
        0x03 => "CONNECTED_SIGNED",
        0x04 => "HARD_DISCONNECT",
        0x06 => "SACK",
        _ => "",
    }
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
    if p.len() < 20 {
        return false;
    }
    let w = u32::from_le_bytes([p[0], p[1], p[2], p[3]]);
    matches!(w >> 20, 0xFAB | 0xCAB | 0xBAB) && p[4] == 2 && p[5] == 0
}

/// Whether a DirectPlay 4 message carries the 'play' signature (a system message).
pub fn is_dp4_system(p: &[u8]) -> bool {
    p.get(20..24) == Some(&b"play"[..])
}

fn u32_at(c: &mut Cursor<'_>) -> Option<u32> {
    c.u32_le().ok()
}

fn add<'t>(
    t: &'t mut TreeBuilder,
    def: &'static crate::tree::FieldDef,
    v: Value,
    at: usize,
    n: usize,
) -> &'t mut crate::tree::Field {
    t.add(def, v, Pos::bytes(at, n))
}

/// Decodes a DirectPlay 8 frame (CFRAME, DFRAME or enumeration message). `signed`: the session
/// was set up with CONNECTED_SIGNED, so frames carry an 8-byte ullSignature ([MC-DPL8R] 2.2.2).
pub fn dp8(p: &[u8], signed: bool, detail: bool) -> Unwrapped {
    let mut u = Unwrapped {
        ok: true,
        ..Unwrapped::new(detail)
    };
    let t = &mut u.tree;
    t.open(&f::DP8, Value::None, Pos::bytes(0, p.len()));
    let mut c = Cursor::new(p);
    let cut = |t: &mut TreeBuilder, what: &str, at: usize, have: usize| {
        t.error(
            Some(&f::DP8),
            Some(Pos::bytes(at, have)),
            format!("DirectPlay 8 {what} is cut off at offset {at}"),
        );
    };
    if is_dp8_enum(p) {
        enumeration(p, &mut u);
        return u;
    }
    let Ok(cmd) = c.u8() else {
        cut(t, "frame", 0, 0);
        u.ok = false;
        u.msg_type = "DP8 malformed";
        return u;
    };
    if cmd & DATA == 0 {
        // CFRAME ([MC-DPL8R] 2.2.1)
        let m = add(t, &f::DP8_COMMAND, Value::UInt(cmd as u64), 0, 1);
        m.meaning = Some(format!("CFRAME{}", if cmd & 0x08 != 0 { "|POLL" } else { "" }).into());
        let Ok(op) = c.u8() else {
            cut(t, "CFRAME", 1, 0);
            u.ok = false;
            u.msg_type = "DP8 malformed";
            return u;
        };
        let name = ext_opcode_name(op);
        add(t, &f::DP8_EXT, Value::Enum(op as i64, name), 1, 1);
        u.msg_type = match op {
            1 => "DP8 CONNECT",
            2 => "DP8 CONNECTED",
            3 => "DP8 CONNECTED_SIGNED",
            4 => "DP8 HARD_DISCONNECT",
            6 => "DP8 SACK",
            _ => "DP8 CFRAME",
        };
        let ok = if op == 6 {
            // SACK: bFlags bRetry bNSeq bNRcv wPadding tTimestamp [masks]
            match p.get(2..12) {
                Some(h) => {
                    let flags = h[0];
                    add(t, &f::DP8_SACK_FLAGS, Value::UInt(flags as u64), 2, 1);
                    add(t, &f::DP8_RETRY, Value::UInt(h[1] as u64), 3, 1);
                    add(t, &f::DP8_NSEQ, Value::UInt(h[2] as u64), 4, 1);
                    add(t, &f::DP8_NRCV, Value::UInt(h[3] as u64), 5, 1);
                    let ts = u32::from_le_bytes([h[6], h[7], h[8], h[9]]);
                    add(t, &f::DP8_TIMESTAMP, Value::UInt(ts as u64), 8, 4);
                    let mut at = 12;
                    let mut ok = true;
                    for (bit, def) in [
                        (0x02u8, &f::DP8_SACK1),
                        (0x04, &f::DP8_SACK2),
                        (0x08, &f::DP8_SEND1),
                        (0x10, &f::DP8_SEND2),
                    ] {
                        if flags & bit != 0 {
                            match p.get(at..at + 4) {
                                Some(b) => {
                                    add(
                                        t,
                                        def,
                                        Value::UInt(
                                            u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as u64
                                        ),
                                        at,
                                        4,
                                    );
                                    at += 4;
                                }
                                None => {
                                    cut(t, "SACK mask", at, p.len().saturating_sub(at));
                                    ok = false;
                                    break;
                                }
                            }
                        }
                    }
                    u.summary = format!("DP8 SACK next-seq {} next-recv {}", h[2], h[3]);
                    if ok
                        && signed
                        && let Some(b) = p.get(at..at + 8)
                    {
                        let sig =
                            u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]);
                        add(t, &f::DP8_SIGNATURE, Value::UInt(sig), at, 8);
                        at += 8;
                    }
                    if ok && p.len() > at {
                        add(
                            t,
                            &f::DP8_DATA,
                            Value::Bytes(p[at..].into()),
                            at,
                            p.len() - at,
                        );
                    }
                    ok
                }
                None => {
                    cut(t, "SACK", 2, p.len().saturating_sub(2));
                    false
                }
            }
        } else if (1..=4).contains(&op) {
            // CONNECT / CONNECTED / CONNECTED_SIGNED / HARD_DISCONNECT common head (16 bytes).
            match p.get(2..16) {
                Some(h) => {
                    add(t, &f::DP8_MSG_ID, Value::UInt(h[0] as u64), 2, 1);
                    add(t, &f::DP8_RSP_ID, Value::UInt(h[1] as u64), 3, 1);
                    let ver = u32::from_le_bytes([h[2], h[3], h[4], h[5]]);
                    add(t, &f::DP8_VERSION, Value::UInt(ver as u64), 4, 4);
                    let sid = u32::from_le_bytes([h[6], h[7], h[8], h[9]]);
                    add(t, &f::DP8_SESSION, Value::UInt(sid as u64), 8, 4);
                    let ts = u32::from_le_bytes([h[10], h[11], h[12], h[13]]);
                    add(t, &f::DP8_TIMESTAMP, Value::UInt(ts as u64), 12, 4);
                    let q64 = |o: usize| {
                        p.get(o..o + 8).map(|b| {
                            u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]])
                        })
                    };
                    let mut end = 16;
                    if op == 3 && p.len() >= 48 {
                        // CONNECTED_SIGNED (2.2.1.3): cookie, two secrets, options, echo.
                        for (o, def) in [
                            (16, &f::DP8_CONNECT_SIG),
                            (24, &f::DP8_SENDER_SECRET),
                            (32, &f::DP8_RECEIVER_SECRET),
                        ] {
                            add(t, def, Value::UInt(q64(o).unwrap_or(0)), o, 8);
                        }
                        let opts = u32::from_le_bytes([p[40], p[41], p[42], p[43]]);
                        let oname = match opts & 3 {
                            1 => "FAST",
                            2 => "FULL",
                            _ => "",
                        };
                        add(
                            t,
                            &f::DP8_SIGNING_OPTS,
                            Value::Enum(opts as i64, oname),
                            40,
                            4,
                        );
                        let echo = u32::from_le_bytes([p[44], p[45], p[46], p[47]]);
                        add(t, &f::DP8_ECHO_TS, Value::UInt(echo as u64), 44, 4);
                        end = 48;
                        u.signing = true;
                    } else if op == 4 && signed && p.len() >= 24 {
                        add(
                            t,
                            &f::DP8_SIGNATURE,
                            Value::UInt(q64(16).unwrap_or(0)),
                            16,
                            8,
                        );
                        end = 24;
                    }
                    if p.len() > end {
                        add(
                            t,
                            &f::DP8_DATA,
                            Value::Bytes(p[end..].into()),
                            end,
                            p.len() - end,
                        );
                    }
                    u.summary = format!("DP8 {name} session {sid:#010x} version {ver:#x}");
                    true
                }
                None => {
                    cut(t, "CFRAME", 2, p.len().saturating_sub(2));
                    false
                }
            }
        } else {
            if p.len() > 2 {
                add(t, &f::DP8_DATA, Value::Bytes(p[2..].into()), 2, p.len() - 2);
            }
            t.warning(
                Some(&f::DP8_EXT),
                Some(Pos::bytes(1, 1)),
                format!("unknown CFRAME opcode {op:#04x}"),
            );
            u.summary = format!("DP8 CFRAME opcode {op:#04x}");
            true
        };
        u.ok = ok;
        return u;
    }
    // DFRAME ([MC-DPL8R] 2.2.2)
    u.summary = "DP8 malformed DFRAME".into();
    u.msg_type = "DP8 malformed";
    add(t, &f::DP8_COMMAND, Value::UInt(cmd as u64), 0, 1).meaning =
        Some(flag_names(cmd, &CMD_NAMES).into());
    let (Ok(ctl), Ok(seq), Ok(nrcv)) = (c.u8(), c.u8(), c.u8()) else {
        cut(t, "DFRAME header", 0, p.len());
        u.ok = false;
        u.msg_type = "DP8 malformed";
        return u;
    };
    add(t, &f::DP8_CONTROL, Value::UInt(ctl as u64), 1, 1).meaning =
        Some(flag_names(ctl, &CTL_NAMES).into());
    add(t, &f::DP8_SEQ, Value::UInt(seq as u64), 2, 1);
    add(t, &f::DP8_NRCV, Value::UInt(nrcv as u64), 3, 1);
    for (bit, def) in [
        (0x10u8, &f::DP8_SACK1),
        (0x20, &f::DP8_SACK2),
        (0x40, &f::DP8_SEND1),
        (0x80, &f::DP8_SEND2),
    ] {
        if ctl & bit != 0 {
            let at = c.pos();
            match u32_at(&mut c) {
                Some(v) => {
                    add(t, def, Value::UInt(v as u64), at, 4);
                }
                None => {
                    cut(t, "DFRAME mask", at, c.remaining());
                    u.ok = false;
                    u.msg_type = "DP8 malformed";
                    return u;
                }
            }
        }
    }
    if signed {
        let at = c.pos();
        match c.u64_le() {
            Ok(sig) => {
                add(t, &f::DP8_SIGNATURE, Value::UInt(sig), at, 8);
            }
            Err(_) => {
                cut(t, "DFRAME signature", at, c.remaining());
                u.ok = false;
                u.msg_type = "DP8 malformed";
                return u;
            }
        }
    }
    u.summary = format!("DP8 DATA seq {seq} nrcv {nrcv}");
    u.msg_type = "DP8 DATA";
    if ctl & 0x02 != 0 && c.remaining() == 4 {
        // Keep-alive (version ≥ 1.5): dwSessID, no payload.
        let at = c.pos();
        let sid = u32_at(&mut c).unwrap_or(0);
        add(t, &f::DP8_SESSION, Value::UInt(sid as u64), at, 4);
        u.summary = format!("DP8 KEEPALIVE seq {seq} session {sid:#010x}");
        u.msg_type = "DP8 KEEPALIVE";
        return u;
    }
    let start = c.pos();
    if ctl & 0x04 != 0 {
        // Coalesced payloads ([MC-DPL8R] 2.2.3): 1–32 two-byte headers, padding to 4, payloads
        // each padded to 4 bytes (sizes exclude padding).
        let mut heads = Vec::new();
        loop {
            let at = c.pos();
            let (Ok(sz), Ok(sc)) = (c.u8(), c.u8()) else {
                cut(t, "coalesce header", at, c.remaining());
                u.ok = false;
                return u;
            };
            let size = sz as usize | (((sc & 0x38) as usize) << 5);
            heads.push((at, size, sc));
            if sc & 0x01 != 0 {
                break;
            }
            if heads.len() >= 32 {
                t.error(
                    Some(&f::DP8_SUB_CMD),
                    Some(Pos::bytes(at, 2)),
                    "more than 32 coalesce headers without END_COALESCE",
                );
                u.ok = false;
                return u;
            }
        }
        if heads.len() % 2 == 1 {
            let _ = c.skip(2.min(c.remaining()));
        }
        let mut data_at = c.pos();
        let n = heads.len();
        for (i, (hat, size, sc)) in heads.into_iter().enumerate() {
            t.open(&f::DP8_SUB, Value::None, Pos::bytes(hat, 2));
            add(t, &f::DP8_SUB_SIZE, Value::UInt(size as u64), hat, 2);
            add(t, &f::DP8_SUB_CMD, Value::UInt(sc as u64), hat + 1, 1).meaning = Some(
                flag_names(
                    sc & 0xc7,
                    &[
                        "END_COALESCE",
                        "RELIABLE",
                        "SEQUENTIAL",
                        "",
                        "",
                        "",
                        "USER_1",
                        "USER_2",
                    ],
                )
                .replace("||", "|")
                .into(),
            );
            if data_at + size > p.len() {
                t.error(
                    Some(&f::DP8_SUB_SIZE),
                    Some(Pos::bytes(hat, 2)),
                    format!("coalesced payload {} claims {size} bytes at offset {data_at}, only {} left", i + 1, p.len().saturating_sub(data_at)),
                );
                t.close_as_is();
                u.ok = false;
                return u;
            }
            if sc & 0xc0 != 0 {
                add(
                    t,
                    &f::DP8_CORE,
                    Value::Bytes(p[data_at..data_at + size].into()),
                    data_at,
                    size,
                );
            } else {
                u.payloads.push((data_at, size));
            }
            t.close_as_is();
            data_at += size;
            if i + 1 < n {
                data_at = data_at.div_ceil(4) * 4;
            }
        }
        u.summary = format!("DP8 DATA seq {seq} nrcv {nrcv} coalesced ×{n}");
        if data_at < p.len() {
            t.warning(
                None,
                Some(Pos::bytes(data_at, p.len() - data_at)),
                format!(
                    "{} bytes after the last coalesced payload",
                    p.len() - data_at
                ),
            );
        }
        return u;
    }
    let len = p.len() - start;
    add(t, &f::DP8_PAYLOAD_LEN, Value::UInt(len as u64), start, len);
    if len == 0 {
        u.summary = format!("DP8 DATA seq {seq} nrcv {nrcv} (no payload)");
        u.msg_type = "DP8 ACK";
    } else if cmd & 0xc0 != 0 {
        add(t, &f::DP8_CORE, Value::Bytes(p[start..].into()), start, len);
        u.summary = format!("DP8 DATA seq {seq} core message {len} bytes");
        u.msg_type = "DP8 core";
    } else if cmd & 0x30 != 0x30 {
        add(
            t,
            &f::DP8_FRAGMENT,
            Value::Bytes(p[start..].into()),
            start,
            len,
        );
        u.fragment = Some((cmd & 0x30, start, len, seq));
        u.summary = format!("DP8 DATA seq {seq} fragment {len} bytes");
        u.msg_type = "DP8 fragment";
    } else {
        u.payloads.push((start, len));
    }
    u
}

pub fn dp4_command_name(c: u16) -> &'static str {
    match c {
        0x01 => "ENUMSESSIONSREPLY",
        0x02 => "ENUMSESSIONS",
        0x03 => "ENUMPLAYERSREPLY",
        0x04 => "ENUMPLAYER",
        0x05 => "REQUESTPLAYERID",
        0x06 => "REQUESTGROUPID",
        0x07 => "REQUESTPLAYERREPLY",
        0x08 => "CREATEPLAYER",
        0x09 => "CREATEGROUP",
        0x0a => "PLAYERMESSAGE",
        0x0b => "DELETEPLAYER",
        0x0c => "DELETEGROUP",
        0x0d => "ADDPLAYERTOGROUP",
        0x0e => "DELETEPLAYERFROMGROUP",
        0x0f => "PLAYERDATACHANGED",
        0x10 => "PLAYERNAMECHANGED",
        0x11 => "GROUPDATACHANGED",
        0x12 => "GROUPNAMECHANGED",
        0x13 => "ADDFORWARDREQUEST",
        0x15 => "PACKET",
        0x16 => "PING",
        0x17 => "PINGREPLY",
        0x18 => "YOUAREDEAD",
        0x19 => "PLAYERWRAPPER",
        0x1a => "SESSIONDESCCHANGED",
        0x1c => "CHALLENGE",
        0x1d => "ACCESSGRANTED",
        0x1e => "LOGONDENIED",
        0x1f => "AUTHERROR",
        0x20 => "NEGOTIATE",
        0x21 => "CHALLENGERESPONSE",
        0x22 => "SIGNED",
        0x24 => "ADDFORWARDREPLY",
        0x25 => "ASK4MULTICAST",
        0x26 => "ASK4MULTICASTGUARANTEED",
        0x27 => "ADDSHORTCUTTOGROUP",
        0x28 => "DELETEGROUPFROMGROUP",
        0x29 => "SUPERENUMPLAYERSREPLY",
        0x2b => "KEYEXCHANGE",
        0x2c => "KEYEXCHANGEREPLY",
        0x2d => "CHAT",
        0x2e => "ADDFORWARD",
        0x2f => "ADDFORWARDACK",
        0x30 => "PACKET2_DATA",
        0x31 => "PACKET2_ACK",
        0x35 => "IAMNAMESERVER",
        0x36 => "VOICE",
        0x37 => "MULTICASTDELIVERY",
        0x38 => "CREATEPLAYERVERIFY",
        _ => "",
    }
}

/// Decodes a DirectPlay 4 message; `ids`: player messages carry idFrom and idTo, which a session
/// with the NM (DPSESSION_NOMESSAGEID) flag omits ([MC-DPL4CS] 2.2.45, 2.2.5).
pub fn dp4_with(p: &[u8], ids: bool, detail: bool) -> Unwrapped {
    let mut u = Unwrapped {
        ok: true,
        ..Unwrapped::new(detail)
    };
    let t = &mut u.tree;
    t.open(&f::DP4, Value::None, Pos::bytes(0, p.len()));
    if p.len() < 20 {
        t.error(
            Some(&f::DP4),
            Some(Pos::bytes(0, p.len())),
            "DirectPlay 4 header is cut off",
        );
        u.ok = false;
        u.msg_type = "DP4 malformed";
        return u;
    }
    let w = u32::from_le_bytes([p[0], p[1], p[2], p[3]]);
    let size = (w & 0xfffff) as usize;
    let token = (w >> 20) as i64;
    add(t, &f::DP4_SIZE, Value::UInt(size as u64), 0, 4);
    let tname = match token {
        0xFAB => "remote",
        0xCAB => "forward",
        0xBAB => "server",
        _ => "",
    };
    add(t, &f::DP4_TOKEN, Value::Enum(token, tname), 2, 2);
    add(
        t,
        &f::DP4_FAMILY,
        Value::UInt(u16::from_le_bytes([p[4], p[5]]) as u64),
        4,
        2,
    );
    // SOCKADDR_IN port and address are in network order (struct built "as on a little-endian
    // machine", where sin_port/sin_addr are already big-endian).
    add(
        t,
        &f::DP4_PORT,
        Value::UInt(u16::from_be_bytes([p[6], p[7]]) as u64),
        6,
        2,
    );
    let addr = format!("{}.{}.{}.{}", p[8], p[9], p[10], p[11]);
    add(t, &f::DP4_ADDR, Value::Str(addr.into()), 8, 4);
    if size != p.len() {
        t.warning(
            Some(&f::DP4_SIZE),
            Some(Pos::bytes(0, 4)),
            format!("size word says {size} bytes, the datagram has {}", p.len()),
        );
    }
    if is_dp4_system(p) {
        add(t, &f::DP4_SIGNATURE, Value::Str("play".into()), 20, 4);
        let Some(h) = p.get(24..28) else {
            t.error(
                Some(&f::DP4),
                Some(Pos::bytes(24, p.len() - 24)),
                "DirectPlay 4 system header is cut off",
            );
            u.ok = false;
            u.msg_type = "DP4 malformed";
            return u;
        };
        // After 'play': Command (2), then Version (2). The diagram of [MC-DPL4CS] 2.2.6 draws
        // Version first, but the implementations put the command first: Wine dplayx
        // (DPMSG_SENDENVELOPE: dwMagic, wCommandId, wVersion), Wireshark packet-dplay.c
        // (dissect_dplay_header: play_str, command, dialect), and the spec's own §4.1 example
        // (ENUMSESSIONS 0x0002, version 14). The real programs win.
        let cmd = u16::from_le_bytes([h[0], h[1]]);
        let ver = u16::from_le_bytes([h[2], h[3]]);
        let name = dp4_command_name(cmd);
        add(t, &f::DP4_COMMAND, Value::Enum(cmd as i64, name), 24, 2);
        add(t, &f::DP4_VERSION, Value::UInt(ver as u64), 26, 2);
        let mut body_at = 28;
        if cmd == 0x02
            && let Some(b) = p.get(28..52)
        {
            // [MC-DPL4CS] 2.2.29: ApplicationGuid, PasswordOffset, Flags, Password.
            add(
                t,
                &f::DP4_APP_GUID,
                Value::Str(guid(&b[..16]).into()),
                28,
                16,
            );
            let po = u32::from_le_bytes([b[16], b[17], b[18], b[19]]);
            add(t, &f::DP4_PASSWORD_OFFSET, Value::UInt(po as u64), 44, 4);
            let fl = u32::from_le_bytes([b[20], b[21], b[22], b[23]]);
            add(t, &f::DP4_ENUM_FLAGS, Value::UInt(fl as u64), 48, 4);
            body_at = 52;
        }
        if p.len() > body_at {
            add(
                t,
                &f::DP4_BODY,
                Value::Bytes(p[body_at..].into()),
                body_at,
                p.len() - body_at,
            );
        }
        u.summary = format!(
            "DP4 {} v{ver}",
            if name.is_empty() { "system" } else { name }
        );
        u.msg_type = "DP4 system";
        return u;
    }
    if !ids {
        u.summary = "DP4 player message (no ids)".into();
        u.msg_type = "DP4 player";
        if p.len() > 20 {
            u.payloads.push((20, p.len() - 20));
        }
        return u;
    }
    let Some(ids) = p.get(20..28) else {
        t.error(
            Some(&f::DP4),
            Some(Pos::bytes(20, p.len() - 20)),
            "DirectPlay 4 player message ids are cut off",
        );
        u.ok = false;
        u.msg_type = "DP4 malformed";
        return u;
    };
    let from = u32::from_le_bytes([ids[0], ids[1], ids[2], ids[3]]);
    let to = u32::from_le_bytes([ids[4], ids[5], ids[6], ids[7]]);
    add(t, &f::DP4_ID_FROM, Value::UInt(from as u64), 20, 4);
    add(t, &f::DP4_ID_TO, Value::UInt(to as u64), 24, 4);
    u.summary = format!("DP4 {from:#010x}→{to:#010x}");
    u.msg_type = "DP4 player";
    if p.len() > 28 {
        u.payloads.push((28, p.len() - 28));
    }
    u
}

/// A GUID in its registry form ({Data1-Data2-Data3-Data4}, the first three little-endian;
/// [MS-DTYP] 2.3.4).
pub fn guid(b: &[u8]) -> String {
    if b.len() < 16 {
        return String::new();
    }
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

/// DirectPlay 8 enumeration ([MC-DPLHP] 2.2.1 EnumQuery, 2.2.2 EnumResponse).
fn enumeration(p: &[u8], u: &mut Unwrapped) {
    let t = &mut u.tree;
    let cmd = p[1];
    let name = if cmd == 2 {
        "ENUM_QUERY"
    } else {
        "ENUM_RESPONSE"
    };
    add(t, &f::DP8_ENUM_CMD, Value::Enum(cmd as i64, name), 1, 1);
    let id = u16::from_le_bytes([p[2], p[3]]);
    add(t, &f::DP8_ENUM_PAYLOAD, Value::UInt(id as u64), 2, 2);
    u.summary = format!("DP8 {name} payload {id:#06x}");
    u.msg_type = if cmd == 2 {
        "DP8 ENUM_QUERY"
    } else {
        "DP8 ENUM_RESPONSE"
    };
    if cmd == 2 {
        let Some(&qt) = p.get(4) else {
            t.error(
                Some(&f::DP8_QUERY_TYPE),
                Some(Pos::bytes(4, 0)),
                "ENUM_QUERY QueryType is cut off at offset 4",
            );
            u.ok = false;
            return;
        };
        add(t, &f::DP8_QUERY_TYPE, Value::UInt(qt as u64), 4, 1);
        let mut at = 5;
        if qt == 1 {
            match p.get(5..21) {
                Some(g) => {
                    add(t, &f::DP8_APP_GUID, Value::Str(guid(g).into()), 5, 16);
                    at = 21;
                }
                None => {
                    t.error(
                        Some(&f::DP8_APP_GUID),
                        Some(Pos::bytes(5, p.len() - 5)),
                        "ENUM_QUERY ApplicationGUID is cut off at offset 5",
                    );
                    u.ok = false;
                    return;
                }
            }
        }
        if p.len() > at {
            add(
                t,
                &f::DP8_APP_PAYLOAD,
                Value::Bytes(p[at..].into()),
                at,
                p.len() - at,
            );
        }
        return;
    }
    // EnumResponse: 14 DWORDs, two GUIDs, then the variable data the offsets point into.
    let Some(h) = p.get(4..92) else {
        t.error(
            Some(&f::DP8_ENUM_CMD),
            Some(Pos::bytes(4, p.len() - 4)),
            format!("ENUM_RESPONSE needs 92 bytes, the datagram has {}", p.len()),
        );
        u.ok = false;
        return;
    };
    let dw = |i: usize| u32::from_le_bytes([h[i * 4], h[i * 4 + 1], h[i * 4 + 2], h[i * 4 + 3]]);
    for (i, def) in [
        (0usize, &f::DP8_REPLY_OFFSET),
        (1, &f::DP8_RESPONSE_SIZE),
        (2, &f::DP8_DESC_SIZE),
        (3, &f::DP8_DESC_FLAGS),
        (4, &f::DP8_MAX_PLAYERS),
        (5, &f::DP8_CUR_PLAYERS),
    ] {
        add(t, def, Value::UInt(dw(i) as u64), 4 + i * 4, 4);
    }
    add(
        t,
        &f::DP8_INSTANCE_GUID,
        Value::Str(guid(&h[56..72]).into()),
        60,
        16,
    );
    add(
        t,
        &f::DP8_APP_GUID,
        Value::Str(guid(&h[72..88]).into()),
        76,
        16,
    );
    let (off, size) = (dw(6) as usize, dw(7) as usize);
    if size > 0 {
        // Offsets count from the end of EnumPayload, as ReplyOffset does.
        let start = 4usize.saturating_add(off);
        match p.get(start..start.saturating_add(size)) {
            Some(b) => {
                let units: Vec<u16> = b
                    .chunks_exact(2)
                    .map(|c| u16::from_le_bytes([c[0], c[1]]))
                    .take_while(|&c| c != 0)
                    .collect();
                let name = String::from_utf16_lossy(&units);
                u.summary
                    .push_str(&format!(" \"{name}\" {}/{} players", dw(5), dw(4)));
                add(
                    t,
                    &f::DP8_SESSION_NAME,
                    Value::Str(name.into()),
                    start,
                    size,
                );
            }
            None => {
                t.error(
                    Some(&f::DP8_SESSION_NAME),
                    Some(Pos::bytes(4 + 24, 8)),
                    format!("SessionName ({size} bytes at offset {start}) lies outside the {}-byte datagram", p.len()),
                );
                u.ok = false;
            }
        }
    }
    if size == 0 && p.len() > 92 {
        add(
            t,
            &f::DP8_DATA,
            Value::Bytes(p[92..].into()),
            92,
            p.len() - 92,
        );
    }
}
