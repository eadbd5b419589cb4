//! The position message (MsgId 7, and the PING/PONG that echo one): the 200-byte
//! `T_PositionMsg` (FlightGear 2020.3 `src/MultiPlayer/mpmessages.hxx`), the position and
//! attitude derived from it, and where the property section starts (`ProcessPosMsg`,
//! `verifyProperties` in `multiplaymgr.cxx`).

use super::constants::{HEADER_LEN, POSITION_LEN, V2_PAD_MAGIC};
use super::fields as f;
use super::prim::{Facts, lossy, pos};
use super::{geo, notes, property};
use crate::tree::{FieldDef, Pos, Value};
use crate::wire::{Dissector, Range, Step};

/// Byte ranges of `T_PositionMsg`, counted from the start of the datagram (it follows the
/// 32-byte header).
pub mod field {
    use crate::wire::Range;
    /// `MAX_MODEL_NAME_LEN` bytes, NUL-terminated.
    pub const MODEL: Range = 32..128;
    pub const TIME: Range = 128..136;
    pub const LAG: Range = 136..144;
    pub const POSITION: [Range; 3] = [144..152, 152..160, 160..168];
    pub const ORIENTATION: [Range; 3] = [168..172, 172..176, 176..180];
    pub const LINEAR_VEL: [Range; 3] = [180..184, 184..188, 188..192];
    pub const ANGULAR_VEL: [Range; 3] = [192..196, 196..200, 200..204];
    pub const LINEAR_ACCEL: [Range; 3] = [204..208, 208..212, 212..216];
    pub const ANGULAR_ACCEL: [Range; 3] = [216..220, 220..224, 224..228];
    /// Added in 1.9.1; a legacy 32-bit client's properties start here instead.
    pub const PAD: Range = 228..232;
    /// The whole ECEF position and orientation, where the derived values point.
    pub const ALL_POSITION: Range = 144..168;
    pub const ALL_ORIENTATION: Range = 168..180;
}

/// The position block, its derived values, then the properties where the pad word says they
/// start.
pub(super) fn decode<'a>(d: &mut Dissector<'a>, facts: &mut Facts<'a>) {
    let len = d.cur.len();
    if len < HEADER_LEN + POSITION_LEN {
        d.tree.expert(
            &notes::POSITION_SHORT,
            Some(&f::POSITION),
            Some(Pos::bytes(HEADER_LEN, len.saturating_sub(HEADER_LEN))),
            format!(
                "position message needs {} bytes, it has {len} (FlightGear drops it)",
                HEADER_LEN + POSITION_LEN,
            ),
        );
    }
    d.open(&f::POSITION);
    let pad = block(d, facts);
    // Close the position group (and a vector left open by a short read) where reading stopped.
    while d.tree.depth() > 1 {
        d.close();
    }
    if let Ok(pad) = pad {
        match property_start(d, pad) {
            Some(start) => property::walk(d, start, facts),
            None => undecodable(d),
        }
    }
}

/// The fields of `T_PositionMsg` in order; returns the pad word.
fn block<'a>(d: &mut Dissector<'a>, facts: &mut Facts<'a>) -> Step<u32> {
    if !d.tree.detail() && d.cur.len() >= field::PAD.end {
        return bare_block(d, facts);
    }
    model(d, facts)?;
    let time = d.f64_be_at(&f::TIME, field::TIME)?;
    let lag = d.f64_be_at(&f::LAG, field::LAG)?;
    let ecef_defs = [&f::ECEF_X, &f::ECEF_Y, &f::ECEF_Z];
    let ecef = vec3(d, &f::ECEF, ecef_defs, field::POSITION, |d, def, r| {
        d.f64_be_at(def, r)
    })?;
    let orient_defs = [&f::ORIENT_X, &f::ORIENT_Y, &f::ORIENT_Z];
    let orient = vec3_f32(d, &f::ORIENT, orient_defs, field::ORIENTATION)?;
    let mut sane = [time, lag]
        .iter()
        .chain(&ecef)
        .chain(&orient)
        .all(|v| !v.is_nan());
    for (group, defs, at) in [
        (
            &f::LIN_VEL,
            [&f::LIN_VEL_X, &f::LIN_VEL_Y, &f::LIN_VEL_Z],
            field::LINEAR_VEL,
        ),
        (
            &f::ANG_VEL,
            [&f::ANG_VEL_X, &f::ANG_VEL_Y, &f::ANG_VEL_Z],
            field::ANGULAR_VEL,
        ),
        (
            &f::LIN_ACC,
            [&f::LIN_ACC_X, &f::LIN_ACC_Y, &f::LIN_ACC_Z],
            field::LINEAR_ACCEL,
        ),
        (
            &f::ANG_ACC,
            [&f::ANG_ACC_X, &f::ANG_ACC_Y, &f::ANG_ACC_Z],
            field::ANGULAR_ACCEL,
        ),
    ] {
        let v = vec3_f32(d, group, defs, at)?;
        sane &= v.iter().all(|x| !x.is_nan());
    }
    if !sane {
        nan_note(d);
    }
    let pad = pad(d, facts)?;
    derived(d, ecef, orient, facts);
    Ok(pad)
}

/// `ProcessPosMsg` checks every value from `time` on.
fn nan_note(d: &mut Dissector<'_>) {
    d.tree.expert(
        &notes::NAN,
        Some(&f::POSITION),
        Some(Pos::bytes(field::TIME.start, 96)),
        "a time, position, orientation or motion value is NaN: FlightGear drops this message",
    );
}

/// A whole block without a tree (summary mode): the values [`block`] reads, its notes and
/// facts, read in place instead of as a field each (a checked read and a builder call for
/// each of 20 values were a tenth of a summary run).
fn bare_block<'a>(d: &mut Dissector<'a>, facts: &mut Facts<'a>) -> Step<u32> {
    model(d, facts)?;
    let data = d.cur.data();
    let f64_at = |at: usize| {
        data.get(at..at + 8)
            .and_then(|b| b.try_into().ok())
            .map_or(f64::NAN, f64::from_be_bytes)
    };
    let f32_at = |at: usize| {
        data.get(at..at + 4)
            .and_then(|b| b.try_into().ok())
            .map_or(f32::NAN, f32::from_be_bytes)
    };
    let ecef = field::POSITION.map(|r| f64_at(r.start));
    let orient = field::ORIENTATION.map(|r| f64::from(f32_at(r.start)));
    let sane = !f64_at(field::TIME.start).is_nan()
        && !f64_at(field::LAG.start).is_nan()
        && ecef.iter().all(|v| !v.is_nan())
        && (field::ORIENTATION[0].start..field::PAD.start)
            .step_by(4)
            .all(|at| !f32_at(at).is_nan());
    if !sane {
        nan_note(d);
    }
    let pad = pad(d, facts)?;
    derived(d, ecef, orient, facts);
    Ok(pad)
}

/// The model path: 96 bytes of text up to the first NUL.
fn model<'a>(d: &mut Dissector<'a>, facts: &mut Facts<'a>) -> Step<()> {
    let raw = d
        .cur
        .range(field::MODEL)
        .map_err(|e| d.short(&f::MODEL, e))?;
    d.cur.seek(field::MODEL.end);
    let nul = raw.iter().position(|&b| b == 0);
    let model = &raw[..nul.unwrap_or(raw.len())];
    d.tree.add_text(&f::MODEL, model, pos(field::MODEL));
    if nul.is_none() {
        d.tree.expert(
            &notes::MODEL_UNTERMINATED,
            Some(&f::MODEL),
            Some(pos(field::MODEL)),
            "model path fills all 96 bytes without a NUL",
        );
    }
    facts.model = Some(lossy(model));
    facts.time = d
        .cur
        .data()
        .get(field::TIME)
        .and_then(|b| b.try_into().ok())
        .map(f64::from_be_bytes);
    Ok(())
}

/// Three values of one vector as a group; the group is closed where reading stopped.
#[inline]
fn vec3<'a>(
    d: &mut Dissector<'a>,
    group: &'static FieldDef,
    defs: [&'static FieldDef; 3],
    at: [Range; 3],
    read: impl Fn(&mut Dissector<'a>, &'static FieldDef, Range) -> Step<f64>,
) -> Step<[f64; 3]> {
    d.open(group);
    let mut v = [0.0; 3];
    for ((slot, def), r) in v.iter_mut().zip(defs).zip(at) {
        match read(d, def, r) {
            Ok(x) => *slot = x,
            Err(stop) => {
                d.close();
                return Err(stop);
            }
        }
    }
    d.close();
    Ok(v)
}

fn vec3_f32<'a>(
    d: &mut Dissector<'a>,
    group: &'static FieldDef,
    defs: [&'static FieldDef; 3],
    at: [Range; 3],
) -> Step<[f64; 3]> {
    vec3(d, group, defs, at, |d, def, r| {
        d.f32_be_at(def, r).map(f64::from)
    })
}

/// The pad word: 0 from a protocol-1 sender, `V2_PAD_MAGIC` from a protocol-2 one, anything
/// else from a client older than 1.9.1 (no pad word: stack garbage or the first property).
fn pad(d: &mut Dissector<'_>, facts: &mut Facts<'_>) -> Step<u32> {
    let pad = d.u32_be_at(&f::PAD, field::PAD)?;
    let (meaning, protocol) = match pad {
        0 => ("protocol 1 (or none)", Some(1)),
        V2_PAD_MAGIC => ("V2_PAD_MAGIC: protocol 2", Some(2)),
        _ => ("legacy (pre-1.9.1) client", None),
    };
    if d.tree.detail()
        && let Some(last) = d.tree.last_mut()
    {
        last.meaning = Some(meaning.into());
    }
    if protocol.is_some() {
        facts.protocol = protocol;
    }
    Ok(pad)
}

/// The geodetic position and the attitude, computed as SimGear `SGQuat.hxx` does
/// (`fromAngleAxis`, `fromLonLatRad`, `getEulerRad`); see [`geo`].
fn derived(d: &mut Dissector<'_>, ecef: [f64; 3], orient: [f64; 3], facts: &mut Facts<'_>) {
    let g = geo::ecef_to_geodetic(ecef[0], ecef[1], ecef[2]);
    let (lat, lon) = (g.lat.to_degrees(), g.lon.to_degrees());
    let ft = g.alt * geo::FT_PER_M;
    if !d.tree.detail() {
        // The summary line shows the heading only.
        let hdg = geo::heading_deg(orient, g.lon, g.lat);
        return note_facts(facts, lat, lon, ft, hdg);
    }
    let (hdg, pitch, roll) = geo::attitude_deg(orient, g.lon, g.lat);
    let t = &mut d.tree;
    let at = pos(field::ALL_POSITION);
    t.open(&f::GEODETIC, Value::None, at);
    t.add(&f::LATITUDE, Value::F64(round_to(lat, 1e7)), at);
    t.add(&f::LONGITUDE, Value::F64(round_to(lon, 1e7)), at);
    t.add(&f::ALTITUDE_FT, Value::F64(round_to(ft, 100.0)), at);
    t.add(&f::ALTITUDE_M, Value::F64(round_to(g.alt, 100.0)), at);
    t.close_as_is();
    let at = pos(field::ALL_ORIENTATION);
    t.open(&f::ATTITUDE, Value::None, at);
    t.add(&f::HEADING, Value::F64(round_to(hdg, 100.0)), at);
    t.add(&f::PITCH, Value::F64(round_to(pitch, 100.0)), at);
    t.add(&f::ROLL, Value::F64(round_to(roll, 100.0)), at);
    t.close_as_is();
    note_facts(facts, lat, lon, ft, hdg);
}

/// What the summary line shows of the derived position, when it is a number.
fn note_facts(facts: &mut Facts<'_>, lat: f64, lon: f64, ft: f64, hdg: f64) {
    if lat.is_finite() && lon.is_finite() && ft.is_finite() {
        facts.geo = Some((lat, lon, ft));
    }
    if hdg.is_finite() {
        facts.heading = Some(hdg);
    }
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

/// Where the properties start, by the pad word (`ProcessPosMsg`): after it for a protocol 1
/// or 2 sender; for a legacy client wherever a strict v1 walk (`verifyProperties`) fits, at
/// the pad word (32-bit client) or after it (64-bit client); `None` when neither fits.
fn property_start(d: &mut Dissector<'_>, pad: u32) -> Option<usize> {
    if pad == 0 || pad == V2_PAD_MAGIC {
        return Some(field::PAD.end);
    }
    let body = d.cur.data();
    let (note, text, start) = if property::verify_v1(body, field::PAD.start) {
        (
            &notes::LEGACY_PROPS_228,
            "legacy 32-bit client: the properties start at the pad word (offset 228)",
            field::PAD.start,
        )
    } else if property::verify_v1(body, field::PAD.end) {
        (
            &notes::LEGACY_PROPS_232,
            "legacy 64-bit client: the pad word is stack garbage, properties at offset 232",
            field::PAD.end,
        )
    } else {
        return None;
    };
    d.tree
        .expert(note, Some(&f::PAD), Some(pos(field::PAD)), text);
    Some(start)
}

/// A legacy pad word without a usable v1 property list: FlightGear ignores the properties.
fn undecodable(d: &mut Dissector<'_>) {
    let body = d.cur.data();
    let from = field::PAD.end;
    let Some(rest) = body.get(from..).filter(|r| !r.is_empty()) else {
        return;
    };
    let at = Pos::bytes(from, rest.len());
    d.tree.open(&f::PROPERTIES, Value::None, at);
    d.tree
        .add(&f::PROPS_UNDECODED, Value::Bytes(rest.into()), at);
    d.tree.close_as_is();
    d.tree.expert(
        &notes::LEGACY_NO_PROPS,
        Some(&f::PROPS_UNDECODED),
        Some(at),
        "legacy pad word and no valid v1 property list at 228 or 232: FlightGear ignores the properties",
    );
}
