//! Net commands ("XD", reference §7): a buffer of `id` + body, with no length per command.

use crate::tree::{Pos, Value};
use crate::wire::{Cursor, Dissector, Step, Stop};

use super::State;
use super::body::{gametype_name, netvar, strn};
use super::fields as f;
use super::notes;
use super::tables::{self, KickMsg, Release, Xd};

/// Decodes a text-command buffer of `len` bytes at the cursor, issued by `player` (when known).
/// A command that cannot be decoded stops this buffer (with a located note); the cursor then
/// moves to the end of the buffer so the caller continues with what follows.
pub(crate) fn buffer(
    d: &mut Dissector<'_>,
    rel: Release,
    st: &mut State,
    len: usize,
    player: Option<u8>,
    said: &mut Vec<String>,
) -> Step<()> {
    let start = d.pos();
    let full = d.cur.data();
    let avail = d.cur.remaining();
    let cut = len > avail;
    let end = start + len.min(avail);
    d.cur = Cursor::at(&full[..end], start);
    while !d.cur.is_empty() {
        if command(d, rel, st, player, said).is_err() {
            let at = d.pos();
            let left = end.saturating_sub(at);
            if left > 0 {
                let rest = d.cur.rest();
                d.add(&f::XD_UNDECODED, Value::Bytes(rest.into()), at, left);
                d.tree.expert(
                    &notes::XD_UNDELIMITED,
                    Some(&f::XD_UNDECODED),
                    Some(Pos::bytes(at, left)),
                    format!(
                        "{left} byte{} of this text-command buffer not decoded: commands carry no length, so the rest cannot be delimited",
                        if left == 1 { "" } else { "s" }
                    ),
                );
            }
            break;
        }
    }
    d.cur = Cursor::at(full, end);
    if cut {
        d.tree.expert(
            &notes::TEXTBUF_CUT_OFF,
            Some(&f::TEXTBUF_LEN),
            Some(Pos::bytes(start, avail)),
            format!("text-command buffer claims {len} bytes, only {avail} left"),
        );
        return Err(Stop);
    }
    Ok(())
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn who(st: &State, player: Option<u8>) -> String {
    match player {
        Some(p) => st.who(p),
        None => "client".into(),
    }
}

fn set_meaning(d: &mut Dissector<'_>, m: impl Into<Box<str>>) {
    if let Some(x) = d.tree.last_mut() {
        x.meaning = Some(m.into());
    }
}

/// One net command.
fn command(
    d: &mut Dissector<'_>,
    rel: Release,
    st: &mut State,
    player: Option<u8>,
    said: &mut Vec<String>,
) -> Step<()> {
    let at = d.pos();
    let id = d.cur.u8().map_err(|e| d.short(&f::XD, e))?;
    let x = tables::xd(rel, id);
    d.tree.open(
        &f::XD,
        Value::Enum(id as i64, x.map_or("", Xd::label)),
        Pos::bytes(at, 1),
    );
    let r = match x {
        None => {
            d.tree.expert(
                &notes::UNKNOWN_XD,
                Some(&f::XD),
                Some(Pos::bytes(at, 1)),
                format!("net command id {id} does not exist in SRB2 {rel}"),
            );
            Err(Stop)
        }
        Some(x) => xd_body(d, rel, st, player, x, said),
    };
    d.close();
    r
}

fn xd_body(
    d: &mut Dissector<'_>,
    rel: Release,
    st: &mut State,
    player: Option<u8>,
    x: Xd,
    said: &mut Vec<String>,
) -> Step<()> {
    let v = rel.0;
    let by = who(st, player);
    match x {
        Xd::NAMEANDCOLOR => {
            let name = strn(d, &f::XD_NAME, 21)?;
            if v >= 200 {
                d.u32_le(&f::XD_AVAILABILITIES)?;
            }
            let color = if v >= 205 {
                d.u16_le(&f::XD_COLOR)?
            } else {
                d.u8(&f::XD_COLOR)? as u16
            };
            let skin = d.u8(&f::XD_SKIN)?;
            said.push(format!(
                "{by} name \"{}\" colour {color} skin {skin}",
                text(name)
            ));
            if let Some(p) = player {
                st.set_name(p, name);
            }
        }
        Xd::WEAPONPREF => {
            let p = d.u8(&f::XD_PREFS)?;
            let mut m = Vec::new();
            for (bit, s) in [
                (1, "flipcam"),
                (2, "analog"),
                (4, "directionchar"),
                (8, "autobrake"),
            ] {
                if p & bit != 0 && (bit < 4 || v >= 200) {
                    m.push(s);
                }
            }
            set_meaning(d, m.join(" "));
            said.push(format!("{by} weaponpref {p:#04x}"));
        }
        Xd::KICK => {
            let target = d.u8(&f::XD_TARGET_PLAYER)?;
            let tname = st.who(target);
            set_meaning(d, tname.clone());
            let mat = d.pos();
            let raw = d.cur.u8().map_err(|e| d.short(&f::XD_KICK_MSG, e))?;
            let base = if v >= 201 { raw & 0x7f } else { raw };
            d.add(
                &f::XD_KICK_MSG,
                Value::Enum(raw as i64, KickMsg(base).name_or("")),
                mat,
                1,
            );
            if v >= 201 {
                d.add(&f::XD_KICK_KEEPBODY, Value::Bool(raw & 0x80 != 0), mat, 1);
            }
            let mut s = format!("kick {tname}: {}", KickMsg(base).name_or(""));
            if matches!(KickMsg(base), KickMsg::CUSTOM_KICK | KickMsg::CUSTOM_BAN) {
                let reason = strn(d, &f::XD_KICK_REASON, 30)?;
                s.push_str(&format!(" \"{}\"", text(reason)));
            }
            said.push(s);
        }
        Xd::NETVAR => {
            let (id, val) = netvar(d)?;
            said.push(format!("netvar {id:#06x} = \"{val}\""));
        }
        Xd::SAY => {
            let target = d.i8(&f::XD_SAY_TARGET)?;
            let tm = match target {
                0 => "everyone".to_string(),
                -1 => "own team".to_string(),
                t if t > 0 => format!("private to {}", st.who((t - 1) as u8)),
                _ => String::new(),
            };
            set_meaning(d, tm.clone());
            let flags = d.u8(&f::XD_SAY_FLAGS)?;
            let mut m = Vec::new();
            if flags & 1 != 0 {
                m.push("HU_SERVER_SAY");
            }
            if flags & 2 != 0 {
                m.push("HU_CSAY");
            }
            set_meaning(d, m.join(" "));
            let msg = d.cstring(&f::XD_SAY_MESSAGE, 256)?;
            let speaker = if flags & 1 != 0 {
                "SERVER".to_string()
            } else {
                by
            };
            let to = if target == 0 {
                String::new()
            } else {
                format!(" ({tm})")
            };
            said.push(format!("say {speaker}{to}: \"{}\"", text(msg)));
        }
        Xd::MAP => {
            let fl = d.u8(&f::XD_MAP_FLAGS)?;
            let mut m = Vec::new();
            for (bit, s) in [
                (1, "ultimate"),
                (2, "don't reset players"),
                (4, "skip cutscene"),
                (8, "FLS"),
            ] {
                if fl & bit != 0 {
                    m.push(s);
                }
            }
            set_meaning(d, m.join(", "));
            let gat = d.pos();
            let gt = d.cur.u8().map_err(|e| d.short(&f::XD_MAP_GAMETYPE, e))?;
            d.add(
                &f::XD_MAP_GAMETYPE,
                Value::Enum(gt as i64, gametype_name(gt)),
                gat,
                1,
            );
            let name = strn(d, &f::XD_MAP_NAME, 512)?;
            d.u32_le(&f::XD_MAP_SEED)?;
            let g = gametype_name(gt);
            said.push(format!(
                "map {} {}",
                text(name),
                if g.is_empty() { "custom gametype" } else { g }
            ));
        }
        Xd::EXITLEVEL => {
            if v == 212 || v == 213 {
                d.u8(&f::XD_CHEAT)?;
            }
            said.push("exitlevel".into());
        }
        Xd::ADDFILE | Xd::REQADDFILE => {
            let n = strn(d, &f::XD_FILENAME, 240)?;
            d.bytes(&f::XD_MD5, 16)?;
            said.push(format!(
                "{} {}",
                if x == Xd::ADDFILE {
                    "addfile"
                } else {
                    "reqaddfile"
                },
                text(n)
            ));
        }
        Xd::ADDFOLDER | Xd::REQADDFOLDER => {
            let n = strn(d, &f::XD_FILENAME, 240)?;
            said.push(format!(
                "{} {}",
                if x == Xd::ADDFOLDER {
                    "addfolder"
                } else {
                    "reqaddfolder"
                },
                text(n)
            ));
        }
        Xd::PAUSE => {
            let p = d.u8(&f::XD_PAUSED)?;
            d.u8(&f::XD_DEDICATEDPAUSE)?;
            said.push(if p != 0 { "pause" } else { "unpause" }.into());
        }
        Xd::ADDPLAYER => {
            let node = d.u8(&f::XD_NODE)?;
            let nat = d.pos();
            let raw = d.cur.u8().map_err(|e| d.short(&f::XD_PLAYERNUM, e))?;
            let num = raw & 0x7f;
            let second = raw & 0x80 != 0;
            d.add(&f::XD_PLAYERNUM, Value::UInt(num as u64), nat, 1);
            d.add(&f::XD_SPLITSCREEN, Value::Bool(second), nat, 1);
            let mut name = None;
            if v >= 200 {
                let n = strn(d, &f::XD_NAME, 21)?;
                st.set_name(num, n);
                name = Some(text(n));
            }
            if Some(node) == st.client_node && num < 32 {
                st.client_players[second as usize] = Some(num);
                if name.is_none()
                    && !second
                    && let Some(j) = st.join_name.clone()
                {
                    st.set_name(num, j.as_bytes());
                }
            }
            said.push(format!(
                "addplayer {num} node {node}{}",
                name.map(|n| format!(" \"{n}\"")).unwrap_or_default()
            ));
        }
        Xd::TEAMCHANGE => {
            let at = d.pos();
            let w = d.cur.u16_le().map_err(|e| d.short(&f::XD_TEAMCHANGE, e))?;
            d.add(&f::XD_TEAMCHANGE, Value::UInt(w as u64), at, 2);
            let pn = (w & 0x1f) as u8;
            let team = (w >> 5) & 0x1f;
            d.add(&f::XD_TC_PLAYER, Value::UInt(pn as u64), at, 2);
            d.add(&f::XD_TC_TEAM, Value::UInt(team as u64), at, 2);
            d.add(&f::XD_TC_VERIFIED, Value::Bool(w & 0x400 != 0), at, 2);
            d.add(&f::XD_TC_AUTOBALANCE, Value::Bool(w & 0x800 != 0), at, 2);
            d.add(&f::XD_TC_SCRAMBLED, Value::Bool(w & 0x1000 != 0), at, 2);
            said.push(format!("teamchange {} to team {team}", st.who(pn)));
        }
        Xd::CLEARSCORES => said.push("clearscores".into()),
        Xd::VERIFIED | Xd::DEMOTED => {
            let p = d.u8(&f::XD_TARGET_PLAYER)?;
            let n = st.who(p);
            set_meaning(d, n.clone());
            said.push(format!(
                "{} {n}",
                if x == Xd::VERIFIED {
                    "verified"
                } else {
                    "demoted"
                }
            ));
        }
        Xd::RANDOMSEED => {
            d.u32_le(&f::XD_SEED)?;
            said.push("randomseed".into());
        }
        Xd::RUNSOC => {
            let n = d.cstring(&f::XD_FILENAME, 256)?;
            said.push(format!("runsoc {}", text(n)));
        }
        Xd::SETMOTD => {
            // No terminator on the wire: the text runs to a NUL, 254 characters or the buffer end.
            let at = d.pos();
            let (s, _) = d.cur.cstring(254);
            let n = d.pos() - at;
            d.add(&f::XD_MOTD, Value::text(s), at, n);
            said.push(format!("motd \"{}\"", text(s)));
        }
        Xd::SUICIDE => {
            let p = d.i32_le(&f::XD_SUICIDE_PLAYER)?;
            said.push(format!("suicide {by} (player {p})"));
        }
        Xd::LUACMD => {
            let argc = d.u8(&f::XD_ARGC)?;
            let mut args = Vec::new();
            for _ in 0..argc {
                args.push(text(strn(d, &f::XD_ARG, 255)?));
            }
            said.push(format!("{by} lua {}", args.join(" ")));
        }
        Xd::LUAFILE => {
            let s = d.u8(&f::XD_SUCCESS)?;
            said.push(format!("luafile {}", if s != 0 { "ok" } else { "failed" }));
        }
        Xd::MUTEPLAYER => {
            let p = d.u8(&f::XD_TARGET_PLAYER)?;
            let m = d.u8(&f::XD_MUTED)?;
            said.push(format!(
                "{} {}",
                if m != 0 { "mute" } else { "unmute" },
                st.who(p)
            ));
        }
        // XD_UNUSED13 and XD_DELFILE (2.1.25–2.2.9), XD_LUAVAR: never sent, no handler.
        _ => {
            let at = d.pos().saturating_sub(1);
            d.tree.expert(
                &notes::XD_NO_HANDLER,
                Some(&f::XD),
                Some(Pos::bytes(at, 1)),
                format!(
                    "{} has no handler in SRB2 {rel} (never sent), so its body is unknown",
                    x.label()
                ),
            );
            return Err(Stop);
        }
    }
    Ok(())
}
