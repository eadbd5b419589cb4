//! Consistency repair of 2.1.25: PT_RESYNCHING carries a player's `resynch_pak`, PT_RESYNCHEND
//! the game-wide `resynchend_pak` (STJr/SRB2 2.1.25 `src/d_clisrv.h`, written by
//! `src/d_clisrv.c` `resynch_write_player` / `resynch_write_others`). 2.2.0–2.2.8 kept the
//! mechanism with larger structs that are not tabulated; 2.2.9 replaced it with game-state
//! resends.

use crate::tree::{FieldDef, Pos, Value};
use crate::wire::{Dissector, Step, Stop};

use super::fields as f;
use super::notes;
use super::state::{MAX_PLAYERS, State};
use super::tables::Release;

/// 2.1.25 `resynchend_pak` (594 bytes): seed, CTF flag state, then per-player arrays.
pub(crate) fn resynchend(d: &mut Dissector<'_>, rel: Release) -> Step<String> {
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
    for _ in 0..MAX_PLAYERS {
        d.i32_le(&f::RE_CTFTEAM)?;
    }
    for _ in 0..MAX_PLAYERS {
        d.u32_le(&f::RE_SCORE)?;
    }
    for _ in 0..MAX_PLAYERS {
        d.i16_le(&f::RE_NUMBOXES)?;
    }
    for _ in 0..MAX_PLAYERS {
        d.i16_le(&f::RE_TOTALRING)?;
    }
    for _ in 0..MAX_PLAYERS {
        d.u32_le(&f::RE_REALTIME)?;
    }
    for _ in 0..MAX_PLAYERS {
        d.u8(&f::RE_LAPS)?;
    }
    Ok(format!("seed {seed:#010x} in game {ingame:#010x}"))
}

/// A 2.2.0–2.2.8 resynch body: kept as bytes with a note.
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

/// 2.1.25 `resynch_pak` (NUMPOWERS = 23), in wire order up to `hasmo`; the `player_t` members
/// `resynch_write_player` copies.
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

/// Reads the members of a fixed layout in order.
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

/// PT_RESYNCHING (2.1.25 `resynch_pak`, 334 bytes): the player, then the `mobj_t` part when
/// `hasmo` is set (else 74 stale bytes).
pub(crate) fn resynching(d: &mut Dissector<'_>, rel: Release, st: &State) -> Step<String> {
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
