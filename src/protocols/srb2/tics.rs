//! The per-tic traffic: ticcmds, PT_CLIENTCMD and its variants, PT_SERVERTICS, PT_TEXTCMD.

use std::fmt::Write as _;

use crate::tree::{Pos, Value};
use crate::wire::{Dissector, Step, Stop};

use super::fields as f;
use super::notes;
use super::prim::{derived, group, mean, mean_with};
use super::state::{MAX_PLAYERS, State};
use super::tables::Release;
use super::xd;

/// Button names of `buttoncode_t` (STJr/SRB2 `src/d_ticcmd.h`; bit 0x80 is BT_USE in 2.1.25,
/// BT_SPIN in 2.2), after the weapon slot of bits 0–3.
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

/// One `ticcmd_t` (STJr/SRB2 `src/d_ticcmd.h`; 2.2.10+ adds `latency`), as a group whose value
/// is the player slot when known.
pub(crate) fn ticcmd(
    d: &mut Dissector<'_>,
    rel: Release,
    slot: Option<u8>,
    st: &State,
) -> Step<(i8, i8, u16)> {
    let at = d.pos();
    let value = slot.map_or(Value::None, |s| Value::UInt(s as u64));
    group(d, &f::CMD, value, |d| {
        // The name is a tree-only value: summary mode would build and drop it per ticcmd.
        if d.tree.detail()
            && let Some(s) = slot
            && let Some(n) = st.name(s)
        {
            d.tree.set_group_meaning(n.to_string());
            derived(d, &f::CMD_PLAYER_NAME, Value::Str(n.into()), at);
        }
        let fw = d.i8(&f::CMD_FORWARD)?;
        let sd = d.i8(&f::CMD_SIDE)?;
        let ang = d.i16_le(&f::CMD_ANGLETURN)?;
        if ang & 1 != 0 {
            mean(d, "TICCMD_RECEIVED");
        }
        d.i16_le(&f::CMD_AIMING)?;
        let b = d.u16_le(&f::CMD_BUTTONS)?;
        if b != 0 {
            mean_with(d, || buttons_meaning(rel, b));
        }
        if rel.ticcmd_size() == 9 {
            d.u8(&f::CMD_LATENCY)?;
        }
        Ok((fw, sd, b))
    })
}

/// PT_CLIENTCMD / PT_CLIENTMIS with one ticcmd, PT_CLIENT2CMD / PT_CLIENT2MIS with two
/// (STJr/SRB2 `src/d_clisrv.h` `clientcmd_pak` / `client2cmd_pak`).
pub(crate) fn clientcmd(d: &mut Dissector<'_>, rel: Release, st: &State, n: usize) -> Step<String> {
    let t = d.u8(&f::CLIENT_TIC)?;
    let r = d.u8(&f::RESENDFROM)?;
    d.i16_le(&f::CONSISTANCY)?;
    // Written in place: this runs on every client command, the bulk of a session.
    let mut s = format!("tic {t} resend from {r}");
    for i in 0..n {
        let who = st.client_players[i];
        let (fw, sd, b) = ticcmd(d, rel, who, st)?;
        // As `State::who`, without its String.
        match who {
            Some(p) => match st.name(p) {
                Some(n) => {
                    s.push(' ');
                    s.push_str(n);
                }
                None => {
                    let _ = write!(s, " player {p}");
                }
            },
            None => {
                let _ = write!(s, " cmd{}", i + 1);
            }
        }
        let _ = write!(s, ": fwd {fw} side {sd}");
        if b != 0 {
            let _ = write!(s, " btn {b:#06x}");
        }
    }
    Ok(s)
}

/// PT_NODEKEEPALIVE / PT_NODEKEEPALIVEMIS: the two tic bytes of a client command, no ticcmd.
pub(crate) fn keepalive(d: &mut Dissector<'_>) -> Step<String> {
    let t = d.u8(&f::CLIENT_TIC)?;
    let r = d.u8(&f::RESENDFROM)?;
    Ok(format!("tic {t} resend from {r}"))
}

/// PT_SERVERTICS, as written by STJr/SRB2 `src/d_clisrv.c` `SV_SendTics`: start tic, tic and
/// slot counts, every slot's ticcmd tic by tic, then each tic's text commands.
pub(crate) fn servertics(d: &mut Dissector<'_>, rel: Release, st: &mut State) -> Step<String> {
    let start = start_tic(d, rel, st)?;
    let numtics = d.u8(&f::TICS_NUMTICS)?;
    let numslots = num_slots(d)?;
    check_block(d, rel, numtics, numslots)?;
    let new_from = tic_cmds(d, rel, st, start, numtics, numslots)?;
    let mut said = Vec::new();
    for i in 0..numtics as u32 {
        tic_text(d, rel, st, start.wrapping_add(i), &mut said)?;
    }
    st.tics_seen += 1;
    if numtics > 0 {
        st.saw_tics(start.wrapping_add(numtics as u32 - 1));
    }
    Ok(tics_summary(start, numtics, new_from, numslots, &said))
}

/// `starttic`: a u32 from 2.2.5, before that its low byte, expanded against the flow's tics.
fn start_tic(d: &mut Dissector<'_>, rel: Release, st: &State) -> Step<u32> {
    let at = d.pos();
    if rel.0 >= 205 {
        return d.u32_le(&f::TICS_START);
    }
    let low = d.u8(&f::TICS_START)?;
    Ok(match st.expand(low) {
        Some(t) => {
            derived(d, &f::TICS_START_EXPANDED, Value::UInt(t as u64), at);
            t
        }
        None => low as u32,
    })
}

/// `numslots`: the writer sends `doomcom->numslots` ≤ MAXPLAYERS and the reader copies that
/// many ticcmds into `netcmds[tic][MAXPLAYERS]` (STJr/SRB2 `src/d_clisrv.c` `SV_SendTics` and
/// the PT_SERVERTICS case of `HandlePacketFromPlayer`), so more is flagged.
fn num_slots(d: &mut Dissector<'_>) -> Step<u8> {
    let at = d.pos();
    let numslots = d.u8(&f::TICS_NUMSLOTS)?;
    if numslots as usize > MAX_PLAYERS {
        d.tree.expert(
            &notes::TOO_MANY_SLOTS,
            Some(&f::TICS_NUMSLOTS),
            Some(Pos::bytes(at, 1)),
            format!(
                "{numslots} slots exceed MAXPLAYERS ({MAX_PLAYERS}); no SRB2 server sends that"
            ),
        );
    }
    Ok(numslots)
}

/// The ticcmd block must fit the datagram (the text section follows it).
fn check_block(d: &mut Dissector<'_>, rel: Release, numtics: u8, numslots: u8) -> Step<()> {
    let ts = rel.ticcmd_size();
    let block = numtics as usize * numslots as usize * ts;
    let left = d.cur.remaining();
    if block > left {
        let at = d.pos();
        d.tree.expert(
            &notes::TICCMDS_CUT_OFF,
            Some(&f::TICS_TIC),
            Some(Pos::bytes(at, left)),
            format!(
                "{numtics} tics × {numslots} slots × {ts} bytes = {block} bytes of ticcmds, only {left} left"
            ),
        );
        return Err(Stop);
    }
    Ok(())
}

/// The ticcmds of every tic and slot (tic-major). Tics at or below the last one decoded in this
/// flow are marked as repeats (the one-tic overlap and periodic resends of `SV_SendTics`);
/// returns the first new tic.
fn tic_cmds(
    d: &mut Dissector<'_>,
    rel: Release,
    st: &State,
    start: u32,
    numtics: u8,
    numslots: u8,
) -> Step<Option<u32>> {
    let before = st.last_tic;
    let mut new_from = None;
    for i in 0..numtics as u32 {
        let tic = start.wrapping_add(i);
        let at = d.pos();
        d.tree
            .open(&f::TICS_TIC, Value::UInt(tic as u64), Pos::bytes(at, 0));
        let repeat = before.is_some_and(|b| tic <= b);
        derived(d, &f::TICS_TIC_REPEAT, Value::Bool(repeat), at);
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
    Ok(new_from)
}

/// The text-command section of one tic: a count, then (player, buffer) records.
fn tic_text(
    d: &mut Dissector<'_>,
    rel: Release,
    st: &mut State,
    tic: u32,
    said: &mut Vec<String>,
) -> Step<()> {
    group(d, &f::TICS_TEXT, Value::UInt(tic as u64), |d| {
        let count = d.u8(&f::TICS_TEXT_COUNT)?;
        for _ in 0..count {
            player_buffer(d, rel, st, said)?;
        }
        Ok(())
    })
}

/// One player's text-command buffer in PT_SERVERTICS. `SV_SendTics` writes player numbers
/// below MAXPLAYERS only, so others are flagged.
fn player_buffer(
    d: &mut Dissector<'_>,
    rel: Release,
    st: &mut State,
    said: &mut Vec<String>,
) -> Step<()> {
    group(d, &f::TEXTBUF, Value::None, |d| {
        let at = d.pos();
        let pl = d.u8(&f::TEXTBUF_PLAYER)?;
        if pl as usize >= MAX_PLAYERS {
            d.tree.expert(
                &notes::PLAYER_OUT_OF_RANGE,
                Some(&f::TEXTBUF_PLAYER),
                Some(Pos::bytes(at, 1)),
                format!("player {pl} is not below MAXPLAYERS ({MAX_PLAYERS})"),
            );
        }
        if d.tree.detail()
            && let Some(n) = st.name(pl)
        {
            let n = n.to_string();
            mean(d, n.clone());
            derived(d, &f::TEXTBUF_PLAYER_NAME, Value::Str(n.into()), at);
        }
        let len = d.u8(&f::TEXTBUF_LEN)?;
        xd::buffer(d, rel, st, len as usize, Some(pl), said)
    })
}

fn tics_summary(
    start: u32,
    numtics: u8,
    new_from: Option<u32>,
    numslots: u8,
    said: &[String],
) -> String {
    // Sized once for the head and the commands' words (it grew a realloc at a time).
    let words: usize = said.iter().map(|w| w.len() + 2).sum();
    let mut s = String::with_capacity(56 + words);
    let _ = match numtics {
        0 => write!(s, "no tics"),
        1 => write!(s, "tic {start}"),
        n => write!(s, "tics {start}-{}", start.wrapping_add(n as u32 - 1)),
    };
    if numtics > 0 {
        match new_from {
            None => s.push_str(" (all repeats)"),
            Some(t) if t != start => {
                let _ = write!(s, " (new from {t})");
            }
            _ => {}
        }
    }
    let _ = write!(s, " slots {numslots}");
    for (i, w) in said.iter().enumerate() {
        s.push_str(if i == 0 { " | " } else { "; " });
        s.push_str(w);
    }
    s
}

/// PT_TEXTCMD / PT_TEXTCMD2: `len` then the net commands of the node's first or second player
/// (STJr/SRB2 `src/d_clisrv.c`, the PT_TEXTCMD case of `HandlePacketFromPlayer`).
pub(crate) fn textcmd(
    d: &mut Dissector<'_>,
    rel: Release,
    st: &mut State,
    player: Option<u8>,
) -> Step<String> {
    let at = d.pos();
    let mut said = Vec::new();
    group(d, &f::TEXTBUF, Value::None, |d| {
        if d.tree.detail()
            && let Some(p) = player
            && let Some(n) = st.name(p)
        {
            let n = n.to_string();
            derived(d, &f::TEXTBUF_PLAYER_NAME, Value::Str(n.into()), at);
        }
        let len = d.u8(&f::TEXTBUF_LEN)?;
        xd::buffer(d, rel, st, len as usize, player, &mut said)
    })?;
    Ok(said.join("; "))
}
