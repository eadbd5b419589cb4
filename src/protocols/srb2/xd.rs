//! Net commands ("XD"): a text-command buffer holds commands back to back, each an XD id and a
//! body with no length of its own, which the game walks calling one `Got_*` handler per id
//! (STJr/SRB2 `src/d_netcmd.c` `ExtraDataTicker`; bodies per handler as cited below, 2.1.25 and
//! 2.2.13 `src/d_netcmd.c`, `src/d_clisrv.c`, `src/hu_stuff.c`, `src/lua_consolelib.c`).

use crate::tree::{Pos, Value};
use crate::wire::{Cursor, Dissector, Step, Stop};

use super::fields as f;
use super::notes;
use super::prim::{enum_u8, flag_names, gametype_name, mean, mean_with, netvar, strn, text};
use super::state::State;
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
    let mut c = Cmd { rel, st, player };
    while !d.cur.is_empty() {
        if command(d, &mut c, said).is_err() {
            undecoded_rest(d, end);
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

/// Shows what is left of a buffer after a command that could not be decoded.
fn undecoded_rest(d: &mut Dissector<'_>, end: usize) {
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
}

/// What a command's handler works with: the release, the flow's state, the issuing player.
struct Cmd<'s> {
    rel: Release,
    st: &'s mut State,
    player: Option<u8>,
}

impl Cmd<'_> {
    /// The issuing player's name, for summaries.
    fn by(&self) -> String {
        self.st.who_or_client(self.player)
    }
}

/// One net command, as a group named by its id; its summary goes to `said`.
fn command(d: &mut Dissector<'_>, c: &mut Cmd<'_>, said: &mut Vec<String>) -> Step<()> {
    let at = d.pos();
    let id = d.cur.u8().map_err(|e| d.short(&f::XD, e))?;
    let x = tables::xd(c.rel, id);
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
                format!("net command id {id} does not exist in SRB2 {}", c.rel),
            );
            Err(Stop)
        }
        Some(x) => handle(d, x, c).map(|s| said.push(s)),
    };
    d.close();
    r
}

/// The body of one command, by its handler; returns its summary.
fn handle(d: &mut Dissector<'_>, x: Xd, c: &mut Cmd<'_>) -> Step<String> {
    match x {
        Xd::NAMEANDCOLOR => name_and_color(d, c),
        Xd::WEAPONPREF => weapon_pref(d, c),
        Xd::KICK => kick(d, c),
        Xd::NETVAR => {
            let (id, val) = netvar(d)?;
            Ok(format!("netvar {id:#06x} = \"{val}\""))
        }
        Xd::SAY => say(d, c),
        Xd::MAP => map(d),
        Xd::EXITLEVEL => {
            // Got_ExitLevelcmd reads a `cheat` byte in 2.2.12–2.2.13 only.
            if matches!(c.rel.0, 212 | 213) {
                d.u8(&f::XD_CHEAT)?;
            }
            Ok("exitlevel".into())
        }
        Xd::ADDFILE => add_file(d, "addfile"),
        Xd::REQADDFILE => add_file(d, "reqaddfile"),
        Xd::ADDFOLDER => add_folder(d, "addfolder"),
        Xd::REQADDFOLDER => add_folder(d, "reqaddfolder"),
        Xd::PAUSE => {
            let p = d.u8(&f::XD_PAUSED)?;
            d.u8(&f::XD_DEDICATEDPAUSE)?;
            Ok(if p != 0 { "pause" } else { "unpause" }.into())
        }
        Xd::ADDPLAYER => add_player(d, c),
        Xd::TEAMCHANGE => team_change(d, c.st),
        Xd::CLEARSCORES => Ok("clearscores".into()),
        Xd::VERIFIED => admin_change(d, c.st, "verified"),
        Xd::DEMOTED => admin_change(d, c.st, "demoted"),
        Xd::RANDOMSEED => {
            d.u32_le(&f::XD_SEED)?;
            Ok("randomseed".into())
        }
        Xd::RUNSOC => {
            let n = d.cstring(&f::XD_FILENAME, 256)?;
            Ok(format!("runsoc {}", text(n)))
        }
        Xd::SETMOTD => Ok(set_motd(d)),
        Xd::SUICIDE => {
            let p = d.i32_le(&f::XD_SUICIDE_PLAYER)?;
            Ok(format!("suicide {} (player {p})", c.by()))
        }
        Xd::LUACMD => lua_cmd(d, c),
        Xd::LUAFILE => {
            let s = d.u8(&f::XD_SUCCESS)?;
            Ok(format!("luafile {}", if s != 0 { "ok" } else { "failed" }))
        }
        Xd::MUTEPLAYER => {
            let p = d.u8(&f::XD_TARGET_PLAYER)?;
            let m = d.u8(&f::XD_MUTED)?;
            let verb = if m != 0 { "mute" } else { "unmute" };
            Ok(format!("{verb} {}", c.st.who(p)))
        }
        // XD_UNUSED13 and XD_DELFILE (2.1.25–2.2.9), XD_LUAVAR: never sent, no handler.
        _ => no_handler(d, x, c.rel),
    }
}

fn no_handler(d: &mut Dissector<'_>, x: Xd, rel: Release) -> Step<String> {
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
    Err(Stop)
}

/// `Got_NameAndColor`: name STRN(21), 2.2 availabilities u32, colour (u16 from 2.2.5), skin.
fn name_and_color(d: &mut Dissector<'_>, c: &mut Cmd<'_>) -> Step<String> {
    let v = c.rel.0;
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
    // Named by what was known before this command renames the player.
    let said = format!(
        "{} name \"{}\" colour {color} skin {skin}",
        c.by(),
        text(name)
    );
    if let Some(p) = c.player {
        c.st.set_name(p, name);
    }
    Ok(said)
}

/// `Got_WeaponPref`: flag bits; 2.2 adds directionchar and autobrake.
fn weapon_pref(d: &mut Dissector<'_>, c: &Cmd<'_>) -> Step<String> {
    const PREFS: &[(u32, &str)] = &[
        (1, "flipcam"),
        (2, "analog"),
        (4, "directionchar"),
        (8, "autobrake"),
    ];
    let p = d.u8(&f::XD_PREFS)?;
    let known = if c.rel.is_2_1() { &PREFS[..2] } else { PREFS };
    mean_with(d, || flag_names(p as u32, known).join(" "));
    Ok(format!("{} weaponpref {p:#04x}", c.by()))
}

/// `Got_KickCmd` (`src/d_clisrv.c`): player, msg (2.2.1+: bit 0x80 keeps the body), and a
/// STRN(30) reason for a custom kick or ban, consumed whenever the low bits say so (the game's
/// own early exits skip it, but the bytes are on the wire).
fn kick(d: &mut Dissector<'_>, c: &Cmd<'_>) -> Step<String> {
    let keep_body_bit = c.rel.0 >= 201;
    let target = d.u8(&f::XD_TARGET_PLAYER)?;
    let tname = c.st.who(target);
    mean(d, tname.clone());
    let at = d.pos();
    let raw = d.cur.u8().map_err(|e| d.short(&f::XD_KICK_MSG, e))?;
    let msg = KickMsg(if keep_body_bit { raw & 0x7f } else { raw });
    d.add(
        &f::XD_KICK_MSG,
        Value::Enum(raw as i64, msg.name_or("")),
        at,
        1,
    );
    if keep_body_bit {
        d.add(&f::XD_KICK_KEEPBODY, Value::Bool(raw & 0x80 != 0), at, 1);
    }
    let mut s = format!("kick {tname}: {}", msg.name_or(""));
    if matches!(msg, KickMsg::CUSTOM_KICK | KickMsg::CUSTOM_BAN) {
        let reason = strn(d, &f::XD_KICK_REASON, 30)?;
        s.push_str(&format!(" \"{}\"", text(reason)));
    }
    Ok(s)
}

/// `Got_Saycmd` (`src/hu_stuff.c`): target s8 (0 everyone, n > 0 private to player n-1, -1 own
/// team), flags, message STRZ.
fn say(d: &mut Dissector<'_>, c: &Cmd<'_>) -> Step<String> {
    let target = d.i8(&f::XD_SAY_TARGET)?;
    let tm = match target {
        0 => "everyone".to_string(),
        -1 => "own team".to_string(),
        t if t > 0 => format!("private to {}", c.st.who((t - 1) as u8)),
        _ => String::new(),
    };
    mean(d, tm.clone());
    let flags = d.u8(&f::XD_SAY_FLAGS)?;
    mean_with(d, || {
        flag_names(flags as u32, &[(1, "HU_SERVER_SAY"), (2, "HU_CSAY")]).join(" ")
    });
    let msg = d.cstring(&f::XD_SAY_MESSAGE, 256)?;
    let speaker = if flags & 1 != 0 {
        "SERVER".to_string()
    } else {
        c.by()
    };
    let to = if target == 0 {
        String::new()
    } else {
        format!(" ({tm})")
    };
    Ok(format!("say {speaker}{to}: \"{}\"", text(msg)))
}

/// `Got_Mapcmd`: flags, gametype, map name STRN(512), random seed.
fn map(d: &mut Dissector<'_>) -> Step<String> {
    const FLAGS: &[(u32, &str)] = &[
        (1, "ultimate"),
        (2, "don't reset players"),
        (4, "skip cutscene"),
        (8, "FLS"),
    ];
    let fl = d.u8(&f::XD_MAP_FLAGS)?;
    mean(d, flag_names(fl as u32, FLAGS).join(", "));
    let gt = enum_u8(d, &f::XD_MAP_GAMETYPE, gametype_name)?;
    let name = strn(d, &f::XD_MAP_NAME, 512)?;
    d.u32_le(&f::XD_MAP_SEED)?;
    let g = gametype_name(gt);
    let g = if g.is_empty() { "custom gametype" } else { g };
    Ok(format!("map {} {g}", text(name)))
}

/// `Got_Addfilecmd` / `Got_RequestAddfilecmd`: file name STRN(240) and its MD5.
fn add_file(d: &mut Dissector<'_>, verb: &str) -> Step<String> {
    let n = strn(d, &f::XD_FILENAME, 240)?;
    d.bytes(&f::XD_MD5, 16)?;
    Ok(format!("{verb} {}", text(n)))
}

/// `Got_Addfoldercmd` / `Got_RequestAddfoldercmd` (2.2.10+): path STRN(240).
fn add_folder(d: &mut Dissector<'_>, verb: &str) -> Step<String> {
    let n = strn(d, &f::XD_FILENAME, 240)?;
    Ok(format!("{verb} {}", text(n)))
}

/// `Got_AddPlayer` (`src/d_clisrv.c`): node, player number (bit 0x80: the node's second
/// player), 2.2 name STRN(21).
fn add_player(d: &mut Dissector<'_>, c: &mut Cmd<'_>) -> Step<String> {
    let node = d.u8(&f::XD_NODE)?;
    let at = d.pos();
    let raw = d.cur.u8().map_err(|e| d.short(&f::XD_PLAYERNUM, e))?;
    let num = raw & 0x7f;
    let second = raw & 0x80 != 0;
    d.add(&f::XD_PLAYERNUM, Value::UInt(num as u64), at, 1);
    d.add(&f::XD_SPLITSCREEN, Value::Bool(second), at, 1);
    let mut name = None;
    if c.rel.0 >= 200 {
        let n = strn(d, &f::XD_NAME, 21)?;
        c.st.set_name(num, n);
        name = Some(text(n));
    }
    c.st.added_player(node, num, second, name.is_some());
    Ok(format!(
        "addplayer {num} node {node}{}",
        name.map(|n| format!(" \"{n}\"")).unwrap_or_default()
    ))
}

/// `Got_Teamchange`: the `changeteam_union` bitfield (little-endian allocation).
fn team_change(d: &mut Dissector<'_>, st: &State) -> Step<String> {
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
    Ok(format!("teamchange {} to team {team}", st.who(pn)))
}

/// `Got_Verification` / `Got_Removal`: the player promoted to or removed from admins.
fn admin_change(d: &mut Dissector<'_>, st: &State, verb: &str) -> Step<String> {
    let p = d.u8(&f::XD_TARGET_PLAYER)?;
    let n = st.who(p);
    mean(d, n.clone());
    Ok(format!("{verb} {n}"))
}

/// `Got_MotD_f`: no terminator on the wire; the text runs to a NUL, 254 characters or the end
/// of the buffer.
fn set_motd(d: &mut Dissector<'_>) -> String {
    let at = d.pos();
    let (s, _) = d.cur.cstring(254);
    let n = d.pos() - at;
    d.add(&f::XD_MOTD, Value::text(s), at, n);
    format!("motd \"{}\"", text(s))
}

/// `Got_Luacmd` (`src/lua_consolelib.c`): argc, then argc STRN(255) (argv[0] = command).
fn lua_cmd(d: &mut Dissector<'_>, c: &Cmd<'_>) -> Step<String> {
    let argc = d.u8(&f::XD_ARGC)?;
    let mut args = Vec::new();
    for _ in 0..argc {
        args.push(text(strn(d, &f::XD_ARG, 255)?));
    }
    Ok(format!("{} lua {}", c.by(), args.join(" ")))
}
