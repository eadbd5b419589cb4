//! Header and packet bodies (reference §2, §4, §5, §6).

use crate::proto::Direction;
use crate::tree::{FieldDef, Pos, Record, Value};
use crate::wire::{Dissector, Step, Stop};

use super::fields as f;
use super::notes;
use super::tables::{self, GameState, Gametype, Pt, RefuseReason, Release, WillSend, WillSend214};
use super::{State, checksum, xd};

/// Reads a `STRN(n)` string (reference conventions): bytes up to a NUL (consumed) or `n` bytes.
pub(crate) fn strn<'a>(d: &mut Dissector<'a>, def: &'static FieldDef, n: usize) -> Step<&'a [u8]> {
    let at = d.pos();
    let (s, terminated) = d.cur.cstring(n);
    let len = d.pos() - at;
    d.tree.add(def, Value::text(s), Pos::bytes(at, len));
    if !terminated && s.len() < n {
        d.tree.expert(
            &notes::STRN_CUT_OFF,
            Some(def),
            Some(Pos::bytes(at, len)),
            format!(
                "{} is cut off: no NUL and only {} of at most {n} characters",
                def.label,
                s.len()
            ),
        );
        return Err(Stop);
    }
    Ok(s)
}

/// Reads a `char[n]` field (strncpy: zero-padded, maybe unterminated); the text stops at a NUL.
pub(crate) fn fixed<'a>(d: &mut Dissector<'a>, def: &'static FieldDef, n: usize) -> Step<&'a [u8]> {
    let at = d.pos();
    let raw = d.cur.bytes(n).map_err(|e| d.short(def, e))?;
    let s = raw.split(|&b| b == 0).next().unwrap_or_default();
    d.tree.add(def, Value::text(s), Pos::bytes(at, n));
    Ok(s)
}

/// Sets the meaning of the field just added.
pub(crate) fn mean(d: &mut Dissector<'_>, m: impl Into<Box<str>>) {
    if let Some(x) = d.tree.last_mut() {
        x.meaning = Some(m.into());
    }
}

/// Adds a value computed from context (not on the wire) at a zero-length position.
fn note_value(d: &mut Dissector<'_>, def: &'static FieldDef, v: Value, at: usize) {
    d.tree.add(def, v, Pos::bytes(at, 0));
}

fn enum_u8(
    d: &mut Dissector<'_>,
    def: &'static FieldDef,
    name: impl Fn(u8) -> &'static str,
) -> Step<u8> {
    let at = d.pos();
    let v = d.cur.u8().map_err(|e| d.short(def, e))?;
    d.tree
        .add(def, Value::Enum(v as i64, name(v)), Pos::bytes(at, 1));
    Ok(v)
}

/// A gametype's name, empty for a Lua-defined one.
pub(crate) fn gametype_name(g: u8) -> &'static str {
    Gametype(g).name_or("")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Button names of `buttoncode_t` (reference §4.1).
fn buttons_meaning(rel: Release, b: u16) -> String {
    let mut v = Vec::new();
    if b & 0x0f != 0 {
        v.push(format!("weapon {}", b & 0x0f));
    }
    let names = [
        (0x0010, "WEAPONNEXT"),
        (0x0020, "WEAPONPREV"),
        (0x0040, "ATTACK"),
        (0x0080, if rel.is_2_1() { "USE" } else { "SPIN" }),
        (0x0100, "CAMLEFT"),
        (0x0200, "CAMRIGHT"),
        (0x0400, "TOSSFLAG"),
        (0x0800, "JUMP"),
        (0x1000, "FIRENORMAL"),
        (0x2000, "CUSTOM1"),
        (0x4000, "CUSTOM2"),
        (0x8000, "CUSTOM3"),
    ];
    for (bit, n) in names {
        if b & bit != 0 {
            v.push(n.to_string());
        }
    }
    v.join(" ")
}

/// One `ticcmd_t` (reference §4.1), as a group whose value is the player slot when known.
pub(crate) fn ticcmd(
    d: &mut Dissector<'_>,
    rel: Release,
    slot: Option<u8>,
    st: &State,
) -> Step<(i8, i8, u16)> {
    let at = d.pos();
    d.tree.open(
        &f::CMD,
        slot.map_or(Value::None, |s| Value::UInt(s as u64)),
        Pos::bytes(at, 0),
    );
    if let Some(s) = slot
        && let Some(n) = st.name(s)
    {
        d.tree.set_group_meaning(n.to_string());
        note_value(d, &f::CMD_PLAYER_NAME, Value::Str(n.into()), at);
    }
    let r = (|| -> Step<_> {
        let fw = d.i8(&f::CMD_FORWARD)?;
        let sd = d.i8(&f::CMD_SIDE)?;
        let ang = d.i16_le(&f::CMD_ANGLETURN)?;
        if ang & 1 != 0 {
            mean(d, "TICCMD_RECEIVED");
        }
        d.i16_le(&f::CMD_AIMING)?;
        let b = d.u16_le(&f::CMD_BUTTONS)?;
        let m = buttons_meaning(rel, b);
        if !m.is_empty() {
            mean(d, m);
        }
        if rel.ticcmd_size() == 9 {
            d.u8(&f::CMD_LATENCY)?;
        }
        Ok((fw, sd, b))
    })();
    d.close();
    r
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

/// Decodes the header and body of one datagram; returns the summary line.
pub(crate) fn packet(
    d: &mut Dissector<'_>,
    p: &[u8],
    rel: Release,
    st: &mut State,
    dir: Direction,
    rec: &mut Record,
) -> String {
    // Header (reference §2).
    d.open(&f::HEADER);
    let hdr = (|| -> Step<_> {
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
    })();
    d.close();
    let Ok((ack, t, pt)) = hdr else {
        rec.msg_type = "short".into();
        return format!("{} bytes: shorter than the 8-byte header", p.len());
    };
    let Some(pt) = pt else {
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
        rec.msg_type = "unknown".into();
        return format!("unknown packet type {t} ({} body bytes)", rest.len());
    };
    rec.msg_type = pt.label().into();
    let group = body_group(pt);
    if let Some(g) = group {
        d.open(g);
    }
    let r = body(d, pt, rel, st, dir);
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
    let mut s = pt.label().to_string();
    if ack != 0 {
        s.push_str(&format!(" #{ack}"));
    }
    if !tail.is_empty() {
        s.push(' ');
        s.push_str(&tail);
    }
    s
}

fn body(
    d: &mut Dissector<'_>,
    pt: Pt,
    rel: Release,
    st: &mut State,
    dir: Direction,
) -> Step<String> {
    match pt {
        Pt::NOTHING => nothing(d),
        Pt::SERVERCFG => servercfg(d, rel, st),
        Pt::CLIENTCMD | Pt::CLIENTMIS => clientcmd(d, rel, st, 1),
        Pt::CLIENT2CMD | Pt::CLIENT2MIS => clientcmd(d, rel, st, 2),
        Pt::NODEKEEPALIVE | Pt::NODEKEEPALIVEMIS => {
            let t = d.u8(&f::CLIENT_TIC)?;
            let r = d.u8(&f::RESENDFROM)?;
            Ok(format!("tic {t} resend from {r}"))
        }
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
            let second = pt == Pt::TEXTCMD2;
            let player = st.client_players[second as usize];
            textcmd(d, rel, st, player, dir)
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

/// PT_NOTHING: the 96-byte out-of-order ack queue (reference §2.2, §5.1).
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

/// PT_CLIENTCMD / PT_CLIENT2CMD and their MIS variants (reference §5.2, §5.3).
fn clientcmd(d: &mut Dissector<'_>, rel: Release, st: &State, n: usize) -> Step<String> {
    let t = d.u8(&f::CLIENT_TIC)?;
    let r = d.u8(&f::RESENDFROM)?;
    d.i16_le(&f::CONSISTANCY)?;
    let mut s = format!("tic {t} resend from {r}");
    for i in 0..n {
        let who = st.client_players[i];
        let (fw, sd, b) = ticcmd(d, rel, who, st)?;
        let name = who
            .map(|p| st.who(p))
            .unwrap_or_else(|| format!("cmd{}", i + 1));
        s.push_str(&format!(" {name}: fwd {fw} side {sd}"));
        if b != 0 {
            s.push_str(&format!(" btn {b:#06x}"));
        }
    }
    Ok(s)
}

/// Expands an 8-bit tic against a reference (`ExpandTics`, reference §5.2 / §6).
pub(crate) fn expand_tic(low: u8, reference: u32) -> u32 {
    let mut t = (reference & !0xff) | low as u32;
    let diff = t as i64 - reference as i64;
    if diff > 64 && t >= 256 {
        t -= 256;
    } else if diff < -64 {
        t = t.wrapping_add(256);
    }
    t
}

/// MAXPLAYERS (reference §1.2 / §11; `src/doomdef.h`, 32 in every release).
const MAX_PLAYERS: usize = 32;

/// PT_SERVERTICS (reference §6).
fn servertics(d: &mut Dissector<'_>, rel: Release, st: &mut State) -> Step<String> {
    let start_at = d.pos();
    let start = if rel.0 >= 205 {
        d.u32_le(&f::TICS_START)?
    } else {
        let low = d.u8(&f::TICS_START)?;
        match st.ref_tic {
            Some(r) => {
                let t = expand_tic(low, r);
                note_value(d, &f::TICS_START_EXPANDED, Value::UInt(t as u64), start_at);
                t
            }
            None => low as u32,
        }
    };
    let numtics = d.u8(&f::TICS_NUMTICS)?;
    let slots_at = d.pos();
    let numslots = d.u8(&f::TICS_NUMSLOTS)?;
    // The writer sends `doomcom->numslots` ≤ MAXPLAYERS (32) and the reader copies that many
    // ticcmds into `netcmds[tic][MAXPLAYERS]` (STJr/SRB2 src/d_clisrv.c, SV_SendTics and the
    // PT_SERVERTICS case of HandlePacketFromPlayer; MAXPLAYERS 32 in src/doomdef.h).
    if numslots as usize > MAX_PLAYERS {
        d.tree.expert(
            &notes::TOO_MANY_SLOTS,
            Some(&f::TICS_NUMSLOTS),
            Some(Pos::bytes(slots_at, 1)),
            format!(
                "{numslots} slots exceed MAXPLAYERS ({MAX_PLAYERS}); no SRB2 server sends that"
            ),
        );
    }
    let ts = rel.ticcmd_size();
    let block = numtics as usize * numslots as usize * ts;
    if block > d.cur.remaining() {
        let at = d.pos();
        d.tree.expert(
            &notes::TICCMDS_CUT_OFF,
            Some(&f::TICS_TIC),
            Some(Pos::bytes(at, d.cur.remaining())),
            format!(
                "{numtics} tics × {numslots} slots × {ts} bytes = {block} bytes of ticcmds, only {} left",
                d.cur.remaining()
            ),
        );
        return Err(Stop);
    }
    let before = st.last_tic;
    let mut new_from = None;
    for i in 0..numtics as u32 {
        let tic = start.wrapping_add(i);
        let at = d.pos();
        d.tree
            .open(&f::TICS_TIC, Value::UInt(tic as u64), Pos::bytes(at, 0));
        let repeat = before.is_some_and(|b| tic <= b);
        note_value(d, &f::TICS_TIC_REPEAT, Value::Bool(repeat), at);
        if repeat {
            d.tree
                .set_group_meaning("already decoded in an earlier packet");
        } else if new_from.is_none() {
            new_from = Some(tic);
        }
        for s in 0..numslots {
            ticcmd(d, rel, Some(s), st)?;
        }
        d.close();
    }
    // Text-command section: per tic, a count then (player, buffer) records.
    let mut said = Vec::new();
    for i in 0..numtics as u32 {
        let tic = start.wrapping_add(i);
        let at = d.pos();
        d.tree
            .open(&f::TICS_TEXT, Value::UInt(tic as u64), Pos::bytes(at, 0));
        let r = (|| -> Step<_> {
            let count = d.u8(&f::TICS_TEXT_COUNT)?;
            for _ in 0..count {
                let bat = d.pos();
                d.tree.open(&f::TEXTBUF, Value::None, Pos::bytes(bat, 0));
                let r = (|| -> Step<_> {
                    let pl_at = d.pos();
                    let pl = d.u8(&f::TEXTBUF_PLAYER)?;
                    // SV_SendTics writes player numbers j < MAXPLAYERS only (src/d_clisrv.c).
                    if pl as usize >= MAX_PLAYERS {
                        d.tree.expert(
                            &notes::PLAYER_OUT_OF_RANGE,
                            Some(&f::TEXTBUF_PLAYER),
                            Some(Pos::bytes(pl_at, 1)),
                            format!("player {pl} is not below MAXPLAYERS ({MAX_PLAYERS})"),
                        );
                    }
                    if let Some(n) = st.name(pl) {
                        let n = n.to_string();
                        mean(d, n.clone());
                        note_value(d, &f::TEXTBUF_PLAYER_NAME, Value::Str(n.into()), bat);
                    }
                    let len = d.u8(&f::TEXTBUF_LEN)?;
                    xd::buffer(d, rel, st, len as usize, Some(pl), &mut said)
                })();
                d.close();
                r?;
            }
            Ok(())
        })();
        d.close();
        r?;
    }
    st.tics_seen += 1;
    if numtics > 0 {
        let last = start.wrapping_add(numtics as u32 - 1);
        if st.last_tic.is_none_or(|b| last > b) {
            st.last_tic = Some(last);
        }
        if st.ref_tic.is_none_or(|b| last > b) {
            st.ref_tic = Some(last);
        }
    }
    let mut s = match numtics {
        0 => "no tics".to_string(),
        1 => format!("tic {start}"),
        n => format!("tics {start}-{}", start.wrapping_add(n as u32 - 1)),
    };
    if numtics > 0 {
        match new_from {
            None => s.push_str(" (all repeats)"),
            Some(t) if t != start => s.push_str(&format!(" (new from {t})")),
            _ => {}
        }
    }
    s.push_str(&format!(" slots {numslots}"));
    if !said.is_empty() {
        s.push_str(" | ");
        s.push_str(&said.join("; "));
    }
    Ok(s)
}

/// PT_TEXTCMD / PT_TEXTCMD2 (reference §5.11): `len` then the net commands.
fn textcmd(
    d: &mut Dissector<'_>,
    rel: Release,
    st: &mut State,
    player: Option<u8>,
    _dir: Direction,
) -> Step<String> {
    let at = d.pos();
    d.tree.open(&f::TEXTBUF, Value::None, Pos::bytes(at, 0));
    if let Some(p) = player
        && let Some(n) = st.name(p)
    {
        let n = n.to_string();
        note_value(d, &f::TEXTBUF_PLAYER_NAME, Value::Str(n.into()), at);
    }
    let mut said = Vec::new();
    let r = (|| -> Step<_> {
        let len = d.u8(&f::TEXTBUF_LEN)?;
        xd::buffer(d, rel, st, len as usize, player, &mut said)
    })();
    d.close();
    r?;
    Ok(said.join("; "))
}

/// PT_SERVERCFG (reference §5.6), per release.
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
    let gs_at = d.pos();
    let gs = d.cur.u8().map_err(|e| d.short(&f::CFG_GAMESTATE, e))?;
    d.add(
        &f::CFG_GAMESTATE,
        Value::Enum(gs as i64, GameState::from_wire(rel, gs).name_or("")),
        gs_at,
        1,
    );
    st.ref_tic = Some(gametic);
    st.client_node = Some(node);
    let gt;
    if v >= 209 {
        gt = enum_u8(d, &f::CFG_GAMETYPE, gametype_name)?;
        d.u8(&f::CFG_MODIFIED)?;
        if v >= 212 {
            d.u8(&f::CFG_USEDCHEATS)?;
        }
        fixed(d, &f::CFG_CONTEXT, 8)?;
    } else {
        d.bytes(&f::CFG_SKINS, 32)?;
        if v >= 205 {
            d.bytes(&f::CFG_COLORS, 64)?;
        } else {
            d.bytes(&f::CFG_COLORS, 32)?;
        }
        if v >= 200 {
            d.bytes(&f::CFG_AVAILABILITIES, 128)?;
        }
        gt = enum_u8(d, &f::CFG_GAMETYPE, gametype_name)?;
        d.u8(&f::CFG_MODIFIED)?;
        d.bytes(&f::CFG_ADMINS, 32)?;
        fixed(d, &f::CFG_CONTEXT, 8)?;
        // 32 player names (STRZ, empty for free slots), then the changed netvars (§4.3).
        for i in 0..32u8 {
            let at = d.pos();
            let n = d.cstring(&f::CFG_NAME, 22)?;
            if !n.is_empty() {
                st.set_name(i, n);
                mean(d, format!("player {i}"));
            } else {
                let _ = at;
                pop_last(d);
            }
        }
        let count = d.u16_le(&f::CFG_NETVAR_COUNT)?;
        for _ in 0..count {
            netvar(d)?;
        }
    }
    Ok(format!(
        "gametic {gametic} client node {node} server player {sp} slots {slots} {} {}",
        gametype_name(gt),
        GameState::from_wire(rel, gs).name_or("")
    ))
}

fn pop_last(d: &mut Dissector<'_>) {
    // TreeBuilder has no removal; mark the empty name as such instead.
    if let Some(x) = d.tree.last_mut() {
        x.meaning = Some("empty slot".into());
    }
}

/// A net-variable entry (reference §4.3): netid, value STRZ, stealth.
pub(crate) fn netvar(d: &mut Dissector<'_>) -> Step<(u16, String)> {
    let at = d.pos();
    d.tree.open(&f::NETVAR, Value::None, Pos::bytes(at, 0));
    let r = (|| -> Step<_> {
        let id = d.u16_le(&f::NETVAR_ID)?;
        let v = d.cstring(&f::NETVAR_VALUE, 1450)?;
        d.u8(&f::NETVAR_STEALTH)?;
        Ok((id, text(v)))
    })();
    d.close();
    r
}

/// PT_CLIENTJOIN (reference §5.7), per release.
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

/// A file-list entry (reference §4.2).
fn file_entry(d: &mut Dissector<'_>, rel: Release) -> Step<String> {
    let at = d.pos();
    d.tree.open(&f::FILE, Value::None, Pos::bytes(at, 0));
    let r = (|| -> Step<_> {
        let status = d.u8(&f::FILE_STATUS)?;
        let will = status >> 4;
        let m = if rel.0 >= 214 {
            // A 2.2.14+ client reads every value from 2 up as too large.
            WillSend214(will).name_or("too large")
        } else {
            WillSend(will).name_or("")
        };
        // Up to 2.2.9 `PutFileNeeded` writes every loaded file and sets the low nibble to 0 for
        // a file holding only music/sound lumps ("unimportant"), which clients never request
        // (STJr/SRB2 src/d_netfil.c `PutFileNeeded` / `CL_SendRequestFile`).
        let m = if status & 0x0f == 0 {
            if m.is_empty() {
                "unimportant (music/sound only)".to_string()
            } else {
                format!("unimportant (music/sound only); {m}")
            }
        } else {
            m.to_string()
        };
        if !m.is_empty() {
            mean(d, m);
        }
        if rel.0 >= 210 {
            d.u8(&f::FILE_FOLDER)?;
        }
        let size = d.u32_le(&f::FILE_SIZE)?;
        let name = strn(d, &f::FILE_NAME, 512)?;
        d.bytes(&f::FILE_MD5, 16)?;
        Ok(format!("{} ({size} bytes)", text(name)))
    })();
    d.close();
    r
}

/// PT_SERVERINFO (reference §5.8), per release.
fn serverinfo(d: &mut Dissector<'_>, rel: Release) -> Step<String> {
    let v = rel.0;
    let (players, maxp, gtname, count);
    if v <= 200 {
        d.u8(&f::SI_VERSION)?;
        d.u8(&f::SI_SUBVERSION)?;
        players = d.u8(&f::SI_PLAYERS)?;
        maxp = d.u8(&f::SI_MAXPLAYERS)?;
        let g = enum_u8(d, &f::SI_GAMETYPE, gametype_name)?;
        gtname = gametype_name(g).to_string();
        d.u8(&f::SI_MODIFIED)?;
        d.u8(&f::SI_CHEATS)?;
        d.u8(&f::SI_DEDICATED)?;
        count = d.u8(&f::SI_FILECOUNT)?;
        d.i8(&f::SI_ADMINPLAYER)?;
    } else {
        d.u8(&f::SI_255)?;
        d.u8(&f::SI_PACKETVERSION)?;
        fixed(d, &f::SI_APPLICATION, 16)?;
        d.u8(&f::SI_VERSION)?;
        d.u8(&f::SI_SUBVERSION)?;
        players = d.u8(&f::SI_PLAYERS)?;
        maxp = d.u8(&f::SI_MAXPLAYERS)?;
        if v >= 203 {
            enum_u8(d, &f::SI_REFUSE, |r| RefuseReason(r).name_or(""))?;
        }
        gtname = text(fixed(d, &f::SI_GAMETYPENAME, 24)?);
        d.u8(&f::SI_MODIFIED)?;
        d.u8(&f::SI_CHEATS)?;
        if v >= 210 {
            let fl = d.u8(&f::SI_FLAGS)?;
            let mut m = Vec::new();
            if fl & 0x40 != 0 {
                m.push("SV_DEDICATED");
            }
            if fl & 0x20 != 0 {
                m.push("SV_LOTSOFADDONS");
            }
            if !m.is_empty() {
                mean(d, m.join(" "));
            }
        } else {
            d.u8(&f::SI_DEDICATED)?;
        }
        count = d.u8(&f::SI_FILECOUNT)?;
    }
    d.u32_le(&f::SI_TIME)?;
    d.u32_le(&f::SI_LEVELTIME)?;
    let name = fixed(d, &f::SI_SERVERNAME, 32)?;
    let map = fixed(d, &f::SI_MAPNAME, 8)?;
    let title = fixed(d, &f::SI_MAPTITLE, 33)?;
    d.bytes(&f::SI_MAPMD5, 16)?;
    d.u8(&f::SI_ACTNUM)?;
    d.u8(&f::SI_ISZONE)?;
    if v >= 214 {
        fixed(d, &f::SI_HTTPSOURCE, 256)?;
    }
    for _ in 0..count {
        file_entry(d, rel)?;
    }
    Ok(format!(
        "\"{}\" {} \"{}\" {players}/{maxp} players {gtname} {count} files",
        text(name),
        text(map),
        text(title)
    ))
}

/// PT_PLAYERINFO (reference §5.8): 32 records of 36 bytes; unused ones start with 255.
fn playerinfo(d: &mut Dissector<'_>, rel: Release, st: &mut State) -> Step<String> {
    let mut listed = Vec::new();
    for i in 0..32u8 {
        let at = d.pos();
        let first = d.cur.peek_u8();
        if first == Some(255) && d.cur.remaining() >= 36 {
            let _ = d.cur.skip(36);
            continue;
        }
        d.tree
            .open(&f::PI_PLAYER, Value::UInt(i as u64), Pos::bytes(at, 0));
        let r = (|| -> Step<_> {
            let n = d.u8(&f::PI_NUM)?;
            if rel.is_2_1() {
                mean(d, "node");
            }
            let name = fixed(d, &f::PI_NAME, 22)?;
            let addr_at = d.pos();
            let a = d.cur.array::<4>().map_err(|e| d.short(&f::PI_ADDRESS, e))?;
            d.add(
                &f::PI_ADDRESS,
                Value::Str(format!("{}.{}.{}.{}", a[0], a[1], a[2], a[3]).into()),
                addr_at,
                4,
            );
            d.u8(&f::PI_TEAM)?;
            d.u8(&f::PI_SKIN)?;
            let data = d.u8(&f::PI_DATA)?;
            let mut m = Vec::new();
            if rel.is_2_1() {
                m.push(format!("colour {}", data & 0x1f));
            }
            for (bit, s) in [(0x20, "it"), (0x40, "flag"), (0x80, "super")] {
                if data & bit != 0 {
                    m.push(s.to_string());
                }
            }
            if !m.is_empty() {
                mean(d, m.join(" "));
            }
            let score = d.u32_le(&f::PI_SCORE)?;
            let secs = d.u16_le(&f::PI_TIME)?;
            Ok((n, name, score, secs))
        })();
        d.close();
        let (n, name, score, secs) = r?;
        // 2.1.25 carries the node in byte 0 and the record index is the player number;
        // 2.2 carries the player number itself (reference §5.8).
        st.set_name(if rel.is_2_1() { i } else { n }, name);
        listed.push(format!("{} ({score} pts, {secs} s)", text(name)));
    }
    Ok(format!("{} players: {}", listed.len(), listed.join(", ")))
}

/// PT_REQUESTFILE (reference §5.13).
fn requestfile(d: &mut Dissector<'_>, rel: Release) -> Step<String> {
    let mut ids = Vec::new();
    loop {
        let id = d.u8(&f::REQ_FILEID)?;
        if id == 0xFF {
            mean(d, "end of list");
            break;
        }
        if rel.0 <= 209 {
            let n = strn(d, &f::REQ_FILENAME, 512)?;
            ids.push(format!("{id} {}", text(n)));
        } else {
            ids.push(id.to_string());
        }
        if ids.len() > 255 {
            break;
        }
    }
    Ok(format!("files {}", ids.join(", ")))
}

/// PT_FILEFRAGMENT (reference §5.13): 7-byte header up to 2.2.4, 12-byte header from 2.2.5.
fn fragment(d: &mut Dissector<'_>, rel: Release) -> Step<String> {
    let id = d.u8(&f::FRAG_FILEID)?;
    if id == 0 {
        mean(d, "savegame during a join or resend, else the first file");
    }
    if rel.0 >= 205 {
        let total = d.u32_le(&f::FRAG_FILESIZE)?;
        let it = d.u8(&f::FRAG_ITERATION)?;
        let pos = d.u32_le(&f::FRAG_POSITION)?;
        let size = d.u16_le(&f::FRAG_SIZE)?;
        let at = d.pos();
        let data = d.cur.rest();
        let _ = d.cur.skip(data.len());
        d.add(&f::FRAG_DATA, Value::Bytes(data.into()), at, data.len());
        if data.len() > size as usize {
            d.tree.expert(
                &notes::FRAGMENT_OVERSIZE,
                Some(&f::FRAG_DATA),
                Some(Pos::bytes(at, data.len())),
                format!(
                    "{} data bytes exceed the nominal fragment size {size}",
                    data.len()
                ),
            );
        }
        if size > 0 {
            note_value(
                d,
                &f::FRAG_INDEX,
                Value::UInt((pos / size as u32) as u64),
                at,
            );
        }
        Ok(format!(
            "file {id} bytes {pos}-{} of {total} pass {it}",
            pos as u64 + data.len() as u64
        ))
    } else {
        let raw = d.u32_le(&f::FRAG_POSITION)?;
        let last = raw & 0x8000_0000 != 0;
        let pos = raw & 0x7fff_ffff;
        d.add(&f::FRAG_LAST, Value::Bool(last), 1 + 8, 4);
        let size = d.u16_le(&f::FRAG_SIZE)?;
        d.bytes(&f::FRAG_DATA, size as usize)?;
        let mut s = format!("file {id} bytes {pos}-{}", pos as u64 + size as u64);
        if last {
            s.push_str(&format!(
                " (last; file is {} bytes)",
                pos as u64 + size as u64
            ));
        }
        Ok(s)
    }
}

/// PT_FILEACK (reference §5.13).
fn fileack(d: &mut Dissector<'_>) -> Step<String> {
    let id = d.u8(&f::FACK_FILEID)?;
    let it = d.u8(&f::FACK_ITERATION)?;
    let n = d.u8(&f::FACK_NUMSEGMENTS)?;
    let mut got = 0u32;
    for _ in 0..n {
        let at = d.pos();
        d.tree
            .open(&f::FACK_SEGMENT, Value::None, Pos::bytes(at, 0));
        let r = (|| -> Step<_> {
            d.u32_le(&f::FACK_START)?;
            let m = d.u32_le(&f::FACK_ACKS)?;
            Ok(m.count_ones())
        })();
        d.close();
        got += r?;
    }
    Ok(format!(
        "file {id} pass {it} {n} segments, {got} fragments acked"
    ))
}

/// PT_MOREFILESNEEDED (reference §5.13).
fn morefiles(d: &mut Dissector<'_>, rel: Release) -> Step<String> {
    let first = d.i32_le(&f::MORE_FIRST)?;
    let n = d.u8(&f::MORE_NUM)?;
    let more = d.u8(&f::MORE_MORE)?;
    let mut names = Vec::new();
    for _ in 0..n {
        names.push(file_entry(d, rel)?);
    }
    Ok(format!(
        "from {first}: {}{}",
        names.join(", "),
        if more != 0 { " (more follow)" } else { "" }
    ))
}

/// PT_PING (reference §5.15): u32 per player (32 in 2.1, 33 in 2.2 with maxping last).
fn ping(d: &mut Dissector<'_>, rel: Release, st: &State) -> Step<String> {
    let mut listed = Vec::new();
    for i in 0..32u8 {
        let ms = d.u32_le(&f::PING_ENTRY)?;
        if let Some(n) = st.name(i) {
            let n = n.to_string();
            mean(d, n.clone());
            listed.push(format!("{n} {ms} ms"));
        } else if ms != 0 {
            listed.push(format!("player {i} {ms} ms"));
        }
    }
    if !rel.is_2_1() {
        let m = d.u32_le(&f::PING_MAXPING)?;
        if m != 0 {
            listed.push(format!("maxping {m}"));
        }
    }
    Ok(listed.join(", "))
}

/// 2.1.25 `resynchend_pak` (reference §5.14); later layouts are not tabulated.
fn resynchend(d: &mut Dissector<'_>, rel: Release) -> Step<String> {
    if !rel.is_2_1() {
        return untabulated(d, "resynchend_pak");
    }
    let seed = d.u32_le(&f::RE_SEED)?;
    for _ in 0..2 {
        d.i8(&f::RE_FLAGPLAYER)?;
    }
    for def in [
        &f::RE_FLAGLOOSE,
        &f::RE_FLAGFLAGS,
        &f::RE_FLAGX,
        &f::RE_FLAGY,
        &f::RE_FLAGZ,
    ] {
        for _ in 0..2 {
            d.i32_le(def)?;
        }
    }
    let ingame = d.u32_le(&f::RE_INGAME)?;
    for _ in 0..32 {
        d.i32_le(&f::RE_CTFTEAM)?;
    }
    for _ in 0..32 {
        d.u32_le(&f::RE_SCORE)?;
    }
    for _ in 0..32 {
        d.i16_le(&f::RE_NUMBOXES)?;
    }
    for _ in 0..32 {
        d.i16_le(&f::RE_TOTALRING)?;
    }
    for _ in 0..32 {
        d.u32_le(&f::RE_REALTIME)?;
    }
    for _ in 0..32 {
        d.u8(&f::RE_LAPS)?;
    }
    Ok(format!("seed {seed:#010x} in game {ingame:#010x}"))
}

fn untabulated(d: &mut Dissector<'_>, what: &str) -> Step<String> {
    let at = d.pos();
    let rest = d.cur.rest();
    let _ = d.cur.skip(rest.len());
    d.add(&f::BODY, Value::Bytes(rest.into()), at, rest.len());
    d.tree.expert(
        &notes::UNTABULATED,
        Some(&f::BODY),
        Some(Pos::bytes(at, rest.len())),
        format!("the 2.2.0–2.2.8 {what} layout is not tabulated in the reference; shown as bytes"),
    );
    Ok(format!("{} bytes", rest.len()))
}

/// One member of a fixed layout: field and width (negative = signed).
type Member = (&'static FieldDef, i8);

/// 2.1.25 `resynch_pak` (reference §5.14), in wire order up to `hasmo`.
const RESYNCH_HEAD: &[Member] = &[
    (&f::RS_PLAYERSTATE, 1),
    (&f::RS_PFLAGS, 4),
    (&f::RS_PANIM, 1),
    (&f::RS_AIMING, 4),
    (&f::RS_CURRENTWEAPON, -4),
    (&f::RS_RINGWEAPONS, -4),
];
const RESYNCH_BODY: &[Member] = &[
    (&f::RS_HEALTH, -4),
    (&f::RS_LIVES, -1),
    (&f::RS_CONTINUES, -1),
    (&f::RS_SCOREADD, 1),
    (&f::RS_XTRALIFE, -1),
    (&f::RS_PITY, -1),
    (&f::RS_SKINCOLOR, 1),
    (&f::RS_SKIN, -4),
    (&f::RS_NORMALSPEED, -4),
    (&f::RS_RUNSPEED, -4),
    (&f::RS_THRUSTFACTOR, 1),
    (&f::RS_ACCELSTART, 1),
    (&f::RS_ACCELERATION, 1),
    (&f::RS_CHARABILITY, 1),
    (&f::RS_CHARABILITY2, 1),
    (&f::RS_CHARFLAGS, 4),
    (&f::RS_THOKITEM, 4),
    (&f::RS_SPINITEM, 4),
    (&f::RS_REVITEM, 4),
    (&f::RS_ACTIONSPD, -4),
    (&f::RS_MINDASH, -4),
    (&f::RS_MAXDASH, -4),
    (&f::RS_JUMPFACTOR, -4),
    (&f::RS_SPEED, -4),
    (&f::RS_JUMPING, 1),
    (&f::RS_SECONDJUMP, 1),
    (&f::RS_FLY1, 1),
    (&f::RS_GLIDETIME, 4),
    (&f::RS_CLIMBING, 1),
    (&f::RS_DEADTIMER, -4),
    (&f::RS_EXITING, 4),
    (&f::RS_HOMING, 1),
    (&f::RS_SKIDTIME, 4),
    (&f::RS_CMOMX, -4),
    (&f::RS_CMOMY, -4),
    (&f::RS_RMOMX, -4),
    (&f::RS_RMOMY, -4),
    (&f::RS_WEAPONDELAY, -4),
    (&f::RS_TOSSDELAY, -4),
    (&f::RS_STARPOSTX, -2),
    (&f::RS_STARPOSTY, -2),
    (&f::RS_STARPOSTZ, -2),
    (&f::RS_STARPOSTNUM, -4),
    (&f::RS_STARPOSTTIME, 4),
    (&f::RS_STARPOSTANGLE, 4),
    (&f::RS_MAXLINK, -4),
    (&f::RS_DASHSPEED, -4),
    (&f::RS_DASHTIME, -4),
    (&f::RS_ANGLE_POS, 4),
    (&f::RS_OLD_ANGLE_POS, 4),
    (&f::RS_BUMPERTIME, 4),
    (&f::RS_FLYANGLE, -4),
    (&f::RS_DRILLTIMER, 4),
    (&f::RS_LINKCOUNT, -4),
    (&f::RS_LINKTIMER, 4),
    (&f::RS_ANOTHERFLYANGLE, -4),
    (&f::RS_NIGHTSTIME, 4),
    (&f::RS_DRILLMETER, -4),
    (&f::RS_DRILLDELAY, 1),
    (&f::RS_BONUSTIME, 1),
    (&f::RS_MARE, 1),
    (&f::RS_LASTSIDEHIT, -2),
    (&f::RS_LASTLINEHIT, -2),
    (&f::RS_LOSSTIME, 4),
    (&f::RS_TIMESHIT, 1),
    (&f::RS_ONCONVEYOR, -4),
];
const RESYNCH_MOBJ: &[Member] = &[
    (&f::RS_ANGLE, 4),
    (&f::RS_X, -4),
    (&f::RS_Y, -4),
    (&f::RS_Z, -4),
    (&f::RS_MOMX, -4),
    (&f::RS_MOMY, -4),
    (&f::RS_MOMZ, -4),
    (&f::RS_FRICTION, -4),
    (&f::RS_MOVEFACTOR, -4),
    (&f::RS_TICS, -4),
    (&f::RS_STATENUM, 4),
    (&f::RS_FLAGS, 4),
    (&f::RS_FLAGS2, 4),
    (&f::RS_EFLAGS, 2),
    (&f::RS_RADIUS, -4),
    (&f::RS_HEIGHT, -4),
    (&f::RS_SCALE, -4),
    (&f::RS_DESTSCALE, -4),
    (&f::RS_SCALESPEED, -4),
];

fn members(d: &mut Dissector<'_>, list: &[Member]) -> Step<()> {
    for &(def, w) in list {
        match w {
            1 => {
                d.u8(def)?;
            }
            -1 => {
                d.i8(def)?;
            }
            2 => {
                d.u16_le(def)?;
            }
            -2 => {
                d.i16_le(def)?;
            }
            4 => {
                d.u32_le(def)?;
            }
            _ => {
                d.i32_le(def)?;
            }
        }
    }
    Ok(())
}

/// PT_RESYNCHING (2.1.25 `resynch_pak`, 334 bytes, reference §5.14).
fn resynching(d: &mut Dissector<'_>, rel: Release, st: &State) -> Step<String> {
    if !rel.is_2_1() {
        return untabulated(d, "resynch_pak");
    }
    let pl = d.u8(&f::RS_PLAYERNUM)?;
    members(d, RESYNCH_HEAD)?;
    for _ in 0..23 {
        d.u16_le(&f::RS_POWERS)?;
    }
    members(d, RESYNCH_BODY)?;
    let hasmo = d.u8(&f::RS_HASMO)?;
    if hasmo != 0 {
        members(d, RESYNCH_MOBJ)?;
    } else {
        let at = d.pos();
        let n = d.cur.remaining().min(74);
        d.bytes(&f::RS_STALE, n)?;
        if n < 74 {
            d.tree.expert(
                &notes::RESYNCH_CUT_OFF,
                Some(&f::RS_STALE),
                Some(Pos::bytes(at, n)),
                format!("resynch_pak is cut off: 74 object bytes expected, {n} present"),
            );
            return Err(Stop);
        }
    }
    Ok(st.who(pl))
}
