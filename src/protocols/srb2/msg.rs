//! One datagram: the `doomdata_t` header, the dispatch on the packet type, and the bodies of
//! the join handshake, server info and ping (STJr/SRB2 `src/d_clisrv.h` packet structs, 2.2.14+
//! `src/netcode/protocol.h`; written by `src/d_clisrv.c`).

use std::fmt::Write as _;

use crate::tree::{FieldDef, Pos, Record, Value};
use crate::wire::{Dissector, Step, Stop};

use super::checksum;
use super::fields as f;
use super::files::{file_entry, fileack, fragment, morefiles, requestfile};
use super::notes;
use super::prim::{
    enum_u8, fixed, flag_names, gametype_name, group, mean, mean_with, netvar, text,
};
use super::resynch::{resynchend, resynching};
use super::state::{MAX_PLAYERS, State};
use super::tables::{self, GameState, Pt, RefuseReason, Release};
use super::tics::{clientcmd, keepalive, servertics, textcmd};

/// Decodes one datagram under one release. What it learns goes to `st`.
pub(crate) fn dissect(
    p: &[u8],
    rel: Release,
    st: &mut State,
    detail: crate::tree::Detail,
) -> Record {
    let mut rec = Record::new("srb2");
    let mut d = Dissector::new(p, detail);
    d.tree.open(&f::ROOT, Value::None, Pos::bytes(0, p.len()));
    let summary = packet(&mut d, p, rel, st, &mut rec);
    rec.summary = summary;
    d.tree.finish_into(p.len(), &mut rec);
    rec
}

/// Decodes the header and body of one datagram; returns the summary line.
fn packet(
    d: &mut Dissector<'_>,
    p: &[u8],
    rel: Release,
    st: &mut State,
    rec: &mut Record,
) -> String {
    let Ok((ack, t, pt)) = header(d, p, rel) else {
        rec.msg_type = "short".into();
        return format!("{} bytes: shorter than the 8-byte header", p.len());
    };
    let Some(pt) = pt else {
        rec.msg_type = "unknown".into();
        return unknown_type(d, t, rel);
    };
    rec.msg_type = pt.label().into();
    let group = body_group(pt);
    if let Some(g) = group {
        d.open(g);
    }
    let r = body(d, pt, rel, st);
    if group.is_some() {
        d.close();
    }
    let tail = match r {
        Ok(s) => {
            d.trailing(&f::TRAILING);
            s
        }
        Err(Stop) => "[malformed]".to_string(),
    };
    // One allocation for the line: it was the label's String, grown by each piece.
    let mut s = String::with_capacity(pt.label().len() + 5 + tail.len());
    s.push_str(pt.label());
    if ack != 0 {
        let _ = write!(s, " #{ack}");
    }
    if !tail.is_empty() {
        s.push(' ');
        s.push_str(&tail);
    }
    s
}

/// The 8-byte `doomdata_t` header: checksum (`NetbufferChecksum`, `src/d_net.c`), ack,
/// ackreturn, packet type (numbered per release), reserved.
fn header(d: &mut Dissector<'_>, p: &[u8], rel: Release) -> Step<(u8, u8, Option<Pt>)> {
    group(d, &f::HEADER, Value::None, |d| {
        let carried = d.u32_le(&f::CHECKSUM)?;
        let computed = checksum(p);
        d.add(&f::CHECKSUM_COMPUTED, Value::UInt(computed as u64), 0, 4);
        d.add(&f::CHECKSUM_OK, Value::Bool(carried == computed), 0, 4);
        if carried != computed {
            d.tree.expert(
                &notes::BAD_CHECKSUM,
                Some(&f::CHECKSUM),
                Some(Pos::bytes(0, 4)),
                format!(
                    "checksum 0x{carried:08x} does not match the computed 0x{computed:08x} (SRB2 drops such packets); decoded anyway"
                ),
            );
        }
        let ack = d.u8(&f::ACK)?;
        if ack == 0 {
            mean(d, "unreliable");
        }
        d.u8(&f::ACKRETURN)?;
        let t = d.cur.u8().map_err(|e| d.short(&f::TYPE, e))?;
        let pt = tables::packet_type(rel, t);
        d.add(
            &f::TYPE,
            Value::Enum(t as i64, pt.map_or("", Pt::label)),
            6,
            1,
        );
        d.u8(&f::RESERVED)?;
        Ok((ack, t, pt))
    })
}

/// A type number the release does not have: an error, and the body kept as bytes.
fn unknown_type(d: &mut Dissector<'_>, t: u8, rel: Release) -> String {
    d.tree.expert(
        &notes::UNKNOWN_TYPE,
        Some(&f::TYPE),
        Some(Pos::bytes(6, 1)),
        format!(
            "packet type {t} does not exist in SRB2 {rel} (the {} tables stop at {})",
            rel.pt_column(),
            tables::num_packet_types(rel) - 1
        ),
    );
    let at = d.pos();
    let rest = d.cur.rest();
    if !rest.is_empty() {
        d.add(&f::BODY, Value::Bytes(rest.into()), at, rest.len());
    }
    format!("unknown packet type {t} ({} body bytes)", rest.len())
}

/// The group each packet type's body goes in (None: the body is empty).
fn body_group(pt: Pt) -> Option<&'static FieldDef> {
    Some(match pt {
        Pt::NOTHING => &f::NOTHING,
        Pt::SERVERCFG => &f::SERVERCFG,
        Pt::CLIENTCMD | Pt::CLIENTMIS | Pt::CLIENT2CMD | Pt::CLIENT2MIS => &f::CLIENTCMD,
        Pt::NODEKEEPALIVE | Pt::NODEKEEPALIVEMIS => &f::CLIENTCMD,
        Pt::SERVERTICS => &f::TICS,
        Pt::SERVERREFUSE => &f::REFUSE,
        Pt::ASKINFO => &f::ASKINFO,
        Pt::SERVERINFO => &f::SERVERINFO,
        Pt::PLAYERINFO => &f::PLAYERINFO,
        Pt::REQUESTFILE => &f::REQUESTFILE,
        Pt::ASKINFOVIAMS => &f::VIAMS,
        Pt::RESYNCHEND => &f::RESYNCHEND,
        Pt::RESYNCHGET => &f::RESYNCHGET,
        Pt::RESYNCHING => &f::RESYNCH,
        Pt::FILEFRAGMENT => &f::FRAGMENT,
        Pt::FILEACK => &f::FILEACK,
        Pt::FILERECEIVED => &f::FILERECEIVED,
        Pt::TEXTCMD | Pt::TEXTCMD2 => &f::TEXTCMD,
        Pt::CLIENTJOIN => &f::JOIN,
        Pt::NODETIMEOUT => &f::NODETIMEOUT,
        Pt::LOGIN => &f::LOGIN,
        Pt::TELLFILESNEEDED => &f::TELLFILES,
        Pt::MOREFILESNEEDED => &f::MOREFILES,
        Pt::PING => &f::PING,
        // Empty bodies (PT_SERVERSHUTDOWN, PT_CLIENTQUIT, the 2.2.9+ game-state resend, the Lua
        // file handshake, PT_BASICKEEPALIVE); the release tables yield no other value.
        _ => return None,
    })
}

/// The body of a packet, by its type; returns the summary after the type name.
fn body(d: &mut Dissector<'_>, pt: Pt, rel: Release, st: &mut State) -> Step<String> {
    match pt {
        Pt::NOTHING => nothing(d),
        Pt::SERVERCFG => servercfg(d, rel, st),
        Pt::CLIENTCMD | Pt::CLIENTMIS => clientcmd(d, rel, st, 1),
        Pt::CLIENT2CMD | Pt::CLIENT2MIS => clientcmd(d, rel, st, 2),
        Pt::NODEKEEPALIVE | Pt::NODEKEEPALIVEMIS => keepalive(d),
        Pt::SERVERTICS => servertics(d, rel, st),
        Pt::SERVERREFUSE => {
            let s = d.cstring(&f::REFUSE_REASON, 256)?;
            Ok(format!("\"{}\"", text(s)))
        }
        Pt::ASKINFO => {
            let v = d.u8(&f::ASKINFO_VERSION)?;
            let t = d.u32_le(&f::ASKINFO_TIME)?;
            Ok(format!("version {v} time {t}"))
        }
        Pt::SERVERINFO => serverinfo(d, rel),
        Pt::PLAYERINFO => playerinfo(d, rel, st),
        Pt::REQUESTFILE => requestfile(d, rel),
        Pt::ASKINFOVIAMS => {
            let a = fixed(d, &f::VIAMS_ADDR, 22)?;
            d.u32_le(&f::VIAMS_TIME)?;
            Ok(format!("for {}", text(a)))
        }
        Pt::RESYNCHEND => resynchend(d, rel),
        Pt::RESYNCHGET => {
            let n = d.u8(&f::RESYNCHGET_PLAYER)?;
            Ok(format!("player {n}"))
        }
        Pt::RESYNCHING => resynching(d, rel, st),
        Pt::FILEFRAGMENT => fragment(d, rel),
        Pt::FILEACK => fileack(d),
        Pt::FILERECEIVED => {
            let id = d.u8(&f::FILERECEIVED_ID)?;
            Ok(format!("file {id}"))
        }
        Pt::TEXTCMD | Pt::TEXTCMD2 => {
            let player = st.client_players[(pt == Pt::TEXTCMD2) as usize];
            textcmd(d, rel, st, player)
        }
        Pt::CLIENTJOIN => join(d, rel, st),
        Pt::NODETIMEOUT => {
            let n = d.u8(&f::NODETIMEOUT_NODE)?;
            d.tree.expert(
                &notes::NODETIMEOUT_ON_WIRE,
                None,
                None,
                "PT_NODETIMEOUT is only queued locally by the game; it is not expected on the wire",
            );
            Ok(format!("node {n}"))
        }
        Pt::LOGIN => {
            d.bytes(&f::LOGIN_HASH, 16)?;
            Ok(String::new())
        }
        Pt::TELLFILESNEEDED => {
            let n = d.i32_le(&f::TELLFILES_FIRST)?;
            Ok(format!("from file {n}"))
        }
        Pt::MOREFILESNEEDED => morefiles(d, rel),
        Pt::PING => ping(d, rel, st),
        _ => Ok(String::new()),
    }
}

/// PT_NOTHING: the 96-byte `acktosend` queue of out-of-order sequence numbers, 0 = empty slot
/// (STJr/SRB2 `src/d_net.c`, MAXACKTOSEND).
fn nothing(d: &mut Dissector<'_>) -> Step<String> {
    let at = d.pos();
    let raw = d.cur.bytes(96).map_err(|e| d.short(&f::NOTHING_ACK, e))?;
    let mut acks = Vec::new();
    for (i, &b) in raw.iter().enumerate() {
        if b != 0 {
            d.add(&f::NOTHING_ACK, Value::UInt(b as u64), at + i, 1);
            acks.push(b.to_string());
        }
    }
    Ok(if acks.is_empty() {
        "no selective acks".into()
    } else {
        format!("acks {}", acks.join(","))
    })
}

/// PT_SERVERCFG (`serverconfig_pak`, `SV_SendServerConfig`): version and subversion up to
/// 2.2.9, the server player, slots, gametic, the client's node, the game state, then a tail
/// that changed in 2.2.9.
fn servercfg(d: &mut Dissector<'_>, rel: Release, st: &mut State) -> Step<String> {
    let v = rel.0;
    if v < 210 {
        d.u8(&f::CFG_VERSION)?;
        d.u8(&f::CFG_SUBVERSION)?;
    }
    let sp = d.u8(&f::CFG_SERVERPLAYER)?;
    let slots = d.u8(&f::CFG_TOTALSLOTNUM)?;
    let gametic = d.u32_le(&f::CFG_GAMETIC)?;
    let node = d.u8(&f::CFG_CLIENTNODE)?;
    let gs = enum_u8(d, &f::CFG_GAMESTATE, |g| {
        GameState::from_wire(rel, g).name_or("")
    })?;
    st.ref_tic = Some(gametic);
    st.client_node = Some(node);
    let gt = if v >= 209 {
        servercfg_tail(d, v)?
    } else {
        servercfg_tail_2_2_8(d, v, st)?
    };
    Ok(format!(
        "gametic {gametic} client node {node} server player {sp} slots {slots} {} {}",
        gametype_name(gt),
        GameState::from_wire(rel, gs).name_or("")
    ))
}

/// 2.2.9+: gametype, modified, 2.2.12+ usedCheats, server context (players travel in the
/// savegame). Returns the gametype.
fn servercfg_tail(d: &mut Dissector<'_>, v: u16) -> Step<u8> {
    let gt = enum_u8(d, &f::CFG_GAMETYPE, gametype_name)?;
    d.u8(&f::CFG_MODIFIED)?;
    if v >= 212 {
        d.u8(&f::CFG_USEDCHEATS)?;
    }
    fixed(d, &f::CFG_CONTEXT, 8)?;
    Ok(gt)
}

/// Up to 2.2.8: per-slot skins and colours (u16 from 2.2.5), 2.2 availabilities, gametype,
/// modified, admins, server context, 32 player names (STRZ, empty for free slots), then the
/// changed net variables (`CV_SaveNetVars`). Returns the gametype.
fn servercfg_tail_2_2_8(d: &mut Dissector<'_>, v: u16, st: &mut State) -> Step<u8> {
    d.bytes(&f::CFG_SKINS, 32)?;
    d.bytes(&f::CFG_COLORS, if v >= 205 { 64 } else { 32 })?;
    if v >= 200 {
        d.bytes(&f::CFG_AVAILABILITIES, 128)?;
    }
    let gt = enum_u8(d, &f::CFG_GAMETYPE, gametype_name)?;
    d.u8(&f::CFG_MODIFIED)?;
    d.bytes(&f::CFG_ADMINS, 32)?;
    fixed(d, &f::CFG_CONTEXT, 8)?;
    for i in 0..MAX_PLAYERS as u8 {
        let n = d.cstring(&f::CFG_NAME, 22)?;
        if n.is_empty() {
            mean(d, "empty slot");
        } else {
            st.set_name(i, n);
            mean(d, format!("player {i}"));
        }
    }
    let count = d.u16_le(&f::CFG_NETVAR_COUNT)?;
    for _ in 0..count {
        netvar(d)?;
    }
    Ok(gt)
}

/// PT_CLIENTJOIN (`clientconfig_pak`, `CL_SendJoin`): four layouts. 2.1.25: version,
/// subversion; 2.2.0 adds two names; 2.2.1–2.2.9 put 0xFF, packetversion and the application
/// first; 2.2.10+ start with MODVERSION and the application instead of the versions.
fn join(d: &mut Dissector<'_>, rel: Release, st: &mut State) -> Step<String> {
    let v = rel.0;
    let mut desc;
    if v >= 210 {
        let m = d.u8(&f::JOIN_MODVERSION)?;
        let app = fixed(d, &f::JOIN_APPLICATION, 16)?;
        desc = format!("{} modversion {m}", text(app));
    } else if v >= 201 {
        d.u8(&f::JOIN_255)?;
        d.u8(&f::JOIN_PACKETVERSION)?;
        let app = fixed(d, &f::JOIN_APPLICATION, 16)?;
        let a = d.u8(&f::JOIN_VERSION)?;
        let b = d.u8(&f::JOIN_SUBVERSION)?;
        desc = format!("{} {a}.{b}", text(app));
    } else {
        let a = d.u8(&f::JOIN_VERSION)?;
        let b = d.u8(&f::JOIN_SUBVERSION)?;
        desc = format!("version {a}.{b}");
    }
    let lp = d.u8(&f::JOIN_LOCALPLAYERS)?;
    d.u8(&f::JOIN_MODE)?;
    desc.push_str(&format!(" localplayers {lp}"));
    if v >= 200 {
        let n1 = fixed(d, &f::JOIN_NAME, 21)?;
        let n2 = fixed(d, &f::JOIN_NAME, 21)?;
        if !n1.is_empty() {
            desc.push_str(&format!(" \"{}\"", text(n1)));
            st.join_name = Some(text(n1));
        }
        if lp > 1 && !n2.is_empty() {
            desc.push_str(&format!(" \"{}\"", text(n2)));
        }
    }
    Ok(desc)
}

/// What the head of a PT_SERVERINFO says, for the summary.
struct InfoHead {
    players: u8,
    max: u8,
    gametype: String,
    files: u8,
}

/// PT_SERVERINFO (`serverinfo_pak`, `SV_SendServerInfo`): a head that differs between 2.1 /
/// 2.2.0 and 2.2.1+, the server, map and level, 2.2.14+ HTTP source, then the file list.
fn serverinfo(d: &mut Dissector<'_>, rel: Release) -> Step<String> {
    let head = if rel.0 <= 200 {
        serverinfo_head_2_1(d)?
    } else {
        serverinfo_head_2_2(d, rel.0)?
    };
    d.u32_le(&f::SI_TIME)?;
    d.u32_le(&f::SI_LEVELTIME)?;
    let name = fixed(d, &f::SI_SERVERNAME, 32)?;
    let map = fixed(d, &f::SI_MAPNAME, 8)?;
    let title = fixed(d, &f::SI_MAPTITLE, 33)?;
    d.bytes(&f::SI_MAPMD5, 16)?;
    d.u8(&f::SI_ACTNUM)?;
    d.u8(&f::SI_ISZONE)?;
    if rel.0 >= 214 {
        fixed(d, &f::SI_HTTPSOURCE, 256)?;
    }
    for _ in 0..head.files {
        file_entry(d, rel)?;
    }
    Ok(format!(
        "\"{}\" {} \"{}\" {}/{} players {} {} files",
        text(name),
        text(map),
        text(title),
        head.players,
        head.max,
        head.gametype,
        head.files
    ))
}

/// 2.1.25 and 2.2.0: versions, players, the gametype number, flags, file count, admin.
fn serverinfo_head_2_1(d: &mut Dissector<'_>) -> Step<InfoHead> {
    d.u8(&f::SI_VERSION)?;
    d.u8(&f::SI_SUBVERSION)?;
    let players = d.u8(&f::SI_PLAYERS)?;
    let max = d.u8(&f::SI_MAXPLAYERS)?;
    let g = enum_u8(d, &f::SI_GAMETYPE, gametype_name)?;
    d.u8(&f::SI_MODIFIED)?;
    d.u8(&f::SI_CHEATS)?;
    d.u8(&f::SI_DEDICATED)?;
    let files = d.u8(&f::SI_FILECOUNT)?;
    d.i8(&f::SI_ADMINPLAYER)?;
    Ok(InfoHead {
        players,
        max,
        gametype: gametype_name(g).to_string(),
        files,
    })
}

/// 2.2.1+: 0xFF, packetversion, application, versions, players, 2.2.3+ refuse reason, the
/// gametype name, flags (2.2.10+ a bit set instead of `isdedicated`), file count.
fn serverinfo_head_2_2(d: &mut Dissector<'_>, v: u16) -> Step<InfoHead> {
    d.u8(&f::SI_255)?;
    d.u8(&f::SI_PACKETVERSION)?;
    fixed(d, &f::SI_APPLICATION, 16)?;
    d.u8(&f::SI_VERSION)?;
    d.u8(&f::SI_SUBVERSION)?;
    let players = d.u8(&f::SI_PLAYERS)?;
    let max = d.u8(&f::SI_MAXPLAYERS)?;
    if v >= 203 {
        enum_u8(d, &f::SI_REFUSE, |r| RefuseReason(r).name_or(""))?;
    }
    let gametype = text(fixed(d, &f::SI_GAMETYPENAME, 24)?);
    d.u8(&f::SI_MODIFIED)?;
    d.u8(&f::SI_CHEATS)?;
    if v >= 210 {
        let fl = d.u8(&f::SI_FLAGS)?;
        let m = flag_names(
            fl as u32,
            &[(0x40, "SV_DEDICATED"), (0x20, "SV_LOTSOFADDONS")],
        );
        if !m.is_empty() {
            mean(d, m.join(" "));
        }
    } else {
        d.u8(&f::SI_DEDICATED)?;
    }
    let files = d.u8(&f::SI_FILECOUNT)?;
    Ok(InfoHead {
        players,
        max,
        gametype,
        files,
    })
}

/// PT_PLAYERINFO (`plrinfo`, `SV_SendPlayerInfo`): 32 records of 36 bytes; unused ones start
/// with 255 and are skipped.
fn playerinfo(d: &mut Dissector<'_>, rel: Release, st: &mut State) -> Step<String> {
    let mut listed = Vec::new();
    for i in 0..MAX_PLAYERS as u8 {
        if d.cur.peek_u8() == Some(255) && d.cur.remaining() >= 36 {
            let _ = d.cur.skip(36);
            continue;
        }
        let (n, name, score, secs) = group(d, &f::PI_PLAYER, Value::UInt(i as u64), |d| {
            player_record(d, rel)
        })?;
        // 2.1.25 carries the node in byte 0 and the record index is the player number;
        // 2.2 carries the player number itself.
        st.set_name(if rel.is_2_1() { i } else { n }, name);
        listed.push((name, score, secs));
    }
    // The line written in one String: it was a String per player, then their join.
    let mut s = format!("{} players: ", listed.len());
    for (k, (name, score, secs)) in listed.into_iter().enumerate() {
        if k > 0 {
            s.push_str(", ");
        }
        s.push_str(&String::from_utf8_lossy(name));
        let _ = write!(s, " ({score} pts, {secs} s)");
    }
    Ok(s)
}

/// One used PT_PLAYERINFO record: number, name, address, team, skin, data bits, score, time.
fn player_record<'a>(d: &mut Dissector<'a>, rel: Release) -> Step<(u8, &'a [u8], u32, u16)> {
    let n = d.u8(&f::PI_NUM)?;
    if rel.is_2_1() {
        mean(d, "node");
    }
    let name = fixed(d, &f::PI_NAME, 22)?;
    let at = d.pos();
    let a = d.cur.array::<4>().map_err(|e| d.short(&f::PI_ADDRESS, e))?;
    // The address and the data meaning are tree-only text, 32 times per packet.
    let detail = d.tree.detail();
    let addr = if detail {
        Value::Str(format!("{}.{}.{}.{}", a[0], a[1], a[2], a[3]).into())
    } else {
        Value::None
    };
    d.add(&f::PI_ADDRESS, addr, at, 4);
    d.u8(&f::PI_TEAM)?;
    d.u8(&f::PI_SKIN)?;
    let data = d.u8(&f::PI_DATA)?;
    if detail {
        data_meaning(d, rel, data);
    }
    let score = d.u32_le(&f::PI_SCORE)?;
    let secs = d.u16_le(&f::PI_TIME)?;
    Ok((n, name, score, secs))
}

/// The meaning of a PT_PLAYERINFO `data` byte: 2.1.25's colour, then the flag bits.
fn data_meaning(d: &mut Dissector<'_>, rel: Release, data: u8) {
    let mut m = Vec::new();
    if rel.is_2_1() {
        m.push(format!("colour {}", data & 0x1f));
    }
    for s in flag_names(
        data as u32,
        &[(0x20, "it"), (0x40, "flag"), (0x80, "super")],
    ) {
        m.push(s.to_string());
    }
    if !m.is_empty() {
        mean(d, m.join(" "));
    }
}

/// PT_PING (`pingtable`): u32 milliseconds per player, 32 in 2.1.25, 33 in 2.2 with the
/// server's maxping last.
fn ping(d: &mut Dissector<'_>, rel: Release, st: &State) -> Step<String> {
    // Entries written into one line, ", " between them (a String each, then a join, before).
    let mut s = String::new();
    let sep = |s: &mut String| {
        if !s.is_empty() {
            s.push_str(", ");
        }
    };
    for i in 0..MAX_PLAYERS as u8 {
        let ms = d.u32_le(&f::PING_ENTRY)?;
        if let Some(n) = st.name(i) {
            mean_with(d, || n);
            sep(&mut s);
            let _ = write!(s, "{n} {ms} ms");
        } else if ms != 0 {
            sep(&mut s);
            let _ = write!(s, "player {i} {ms} ms");
        }
    }
    if !rel.is_2_1() {
        let m = d.u32_le(&f::PING_MAXPING)?;
        if m != 0 {
            sep(&mut s);
            let _ = write!(s, "maxping {m}");
        }
    }
    Ok(s)
}

#[cfg(test)]
mod type_fields {
    use super::*;

    /// Every packet type is declared (`fields::TYPES`), with the group its body goes in: a
    /// type's Parquet files have no column for a group it is not declared with.
    #[test]
    fn every_packet_type_declares_its_body_group() {
        for &(pt, label) in Pt::ALL {
            let declared = f::TYPES
                .of(label)
                .unwrap_or_else(|| panic!("{label} is not declared"));
            if let Some(g) = body_group(pt) {
                assert!(declared.contains(&g.name), "{label}: {} missing", g.name);
            }
            assert_eq!(
                declared.len(),
                f::TYPES.common.len() + usize::from(body_group(pt).is_some()),
                "{label}: {declared:?}"
            );
        }
        for other in ["short", "unknown", "empty", "other game"] {
            assert_eq!(f::TYPES.of(other).map(|d| d.len()), Some(5), "{other}");
        }
    }
}
