//! Delta-coded entity and player states and their rendering (ioquake3 code/qcommon/msg.c
//! `MSG_ReadDeltaEntity`, `MSG_ReadDeltaPlayerstate`; the same in id 1.32).

use super::bits::{Bad, BitDissector};
use super::constants::{FLOAT_INT_BIAS, FLOAT_INT_BITS};
use super::fields::*;
use super::tables::{ENTITY_FIELDS, PLAYER_FIELDS, WireField};
use crate::tree::{FieldDef, Pos, TreeBuilder, Value};
use crate::wire::Step;

pub const ENT_FIELDS: usize = 51;
pub const PS_FIELDS: usize = 48;

pub type EntState = [u32; ENT_FIELDS];

/// Every entity field known.
pub const ENT_ALL_KNOWN: u64 = (1 << ENT_FIELDS) - 1;

/// An entity's state as a snapshot keeps it, and which of its fields are known (bit i:
/// `f[i]`). A delta from a state the capture lacks (a reference snapshot not captured, or
/// one whose entity list is not whole, or a baseline not captured) knows only the fields it
/// sends, and those it carries on to the next snapshots: an unknown field is shown absent,
/// never as a value guessed from a baseline.
#[derive(Clone, Copy, PartialEq, Debug)]
pub struct KnownEnt {
    pub f: EntState,
    pub known: u64,
}

#[derive(Clone, PartialEq, Debug)]
pub struct PlayerState {
    pub f: [u32; PS_FIELDS],
    /// stats, persistant, ammo, powerups.
    pub arrays: [[i32; 16]; 4],
    /// Which values are known (bit i: `f[i]`; `known_elems` bit 16a + k: `arrays[a][k]`): all
    /// of them from a non-delta snapshot on; from a reference that was not captured, only those
    /// sent since (a delta carries absolute values, so a field is known once it changes).
    pub known: u64,
    pub known_elems: u64,
}

/// Every player-state field known.
const ALL_FIELDS: u64 = (1 << PS_FIELDS) - 1;

impl Default for PlayerState {
    /// The all-zero state a non-delta snapshot is read from: every value known.
    fn default() -> Self {
        PlayerState {
            f: [0; PS_FIELDS],
            arrays: [[0; 16]; 4],
            known: ALL_FIELDS,
            known_elems: u64::MAX,
        }
    }
}

impl PlayerState {
    /// The state a delta from a snapshot that was not captured is read from: nothing known.
    pub fn unknown() -> Self {
        PlayerState {
            known: 0,
            known_elems: 0,
            ..PlayerState::default()
        }
    }

    pub fn all_known(&self) -> bool {
        self.known == ALL_FIELDS && self.known_elems == u64::MAX
    }

    /// Whether field `i` is known.
    pub fn knows(&self, i: usize) -> bool {
        self.known >> i & 1 == 1
    }

    /// Whether element `k` of array `a` (0 stats, 1 persistant, 2 ammo, 3 powerups) is known.
    pub fn knows_elem(&self, a: usize, k: usize) -> bool {
        self.known_elems >> (16 * a + k) & 1 == 1
    }
}

/// Slots of [`Changes::pos`]: every player-state field and its four arrays (more than the
/// entity fields).
const CHANGE_SLOTS: usize = PS_FIELDS + 4;

/// Which fields a delta carried, and where (bit offset, bit length) in the message. Only the
/// slots whose `mask` bit is set are meaningful (kept inline: no allocation per delta).
pub struct Changes {
    pub mask: u64,
    pub pos: [(u32, u32); CHANGE_SLOTS],
}

impl Default for Changes {
    fn default() -> Changes {
        Changes::new()
    }
}

impl Changes {
    pub fn new() -> Changes {
        Changes {
            mask: 0,
            pos: [(0, 0); CHANGE_SLOTS],
        }
    }
}

/// Result of reading one entity record after its number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntDelta {
    Removed,
    Unchanged,
    /// The new state and what changed are in the caller's `to` and `ch`.
    Changed,
}

/// A float field: a biased 13-bit integer or the 32 raw bits (ioquake3 code/qcommon/msg.c
/// `MSG_ReadDeltaEntity`, `MSG_ReadDeltaPlayerstate`).
#[inline]
fn read_float(d: &mut BitDissector<'_, '_>, what: &'static str) -> Step<u32> {
    if d.bit(what)? == 0 {
        let v = d.bits(what, FLOAT_INT_BITS)? - FLOAT_INT_BIAS;
        Ok((v as f32).to_bits())
    } else {
        d.ulong(what)
    }
}

/// Reads an entity delta (`MSG_ReadDeltaEntity`, after the entity number) from `from`; a changed state goes to `to`, with `ch`. The
/// caller's buffers are reused: states and change lists are hundreds of bytes, and copying them
/// around per entity was a fifth of a summary run.
pub fn read_entity(
    d: &mut BitDissector<'_, '_>,
    what: &'static str,
    from: &EntState,
    to: &mut EntState,
    ch: &mut Changes,
) -> Step<EntDelta> {
    if d.bit(what)? == 1 {
        return Ok(EntDelta::Removed);
    }
    if d.bit(what)? == 0 {
        return Ok(EntDelta::Unchanged);
    }
    let lc = d.byte(what)? as usize;
    if lc > ENT_FIELDS {
        return Err(d.fail(what, Bad::Overread));
    }
    *to = *from;
    ch.mask = 0;
    for (i, wf) in ENTITY_FIELDS.iter().enumerate().take(lc) {
        if d.bit(what)? == 0 {
            continue;
        }
        let start = d.pos();
        ch.mask |= 1 << i;
        to[i] = if wf.bits == 0 {
            if d.bit(what)? == 0 {
                0
            } else {
                read_float(d, what)?
            }
        } else if d.bit(what)? == 0 {
            0
        } else {
            d.bits(what, wf.bits)? as u32
        };
        ch.pos[i] = (start as u32, (d.pos() - start) as u32);
    }
    Ok(EntDelta::Changed)
}

/// Reads a player-state delta (`MSG_ReadDeltaPlayerstate`) from `from` into `to`, with what changed in `ch`.
pub fn read_player(
    d: &mut BitDissector<'_, '_>,
    from: &PlayerState,
    to: &mut PlayerState,
    ch: &mut Changes,
) -> Step<()> {
    const WHAT: &str = "player state";
    let lc = d.byte(WHAT)? as usize;
    if lc > PS_FIELDS {
        return Err(d.fail(WHAT, Bad::Overread));
    }
    to.clone_from(from);
    ch.mask = 0;
    for (i, wf) in PLAYER_FIELDS.iter().enumerate().take(lc) {
        if d.bit(WHAT)? == 0 {
            continue;
        }
        let start = d.pos();
        ch.mask |= 1 << i;
        to.known |= 1 << i;
        to.f[i] = if wf.bits == 0 {
            read_float(d, WHAT)?
        } else {
            d.bits(WHAT, wf.bits)? as u32
        };
        ch.pos[i] = (start as u32, (d.pos() - start) as u32);
    }
    if d.bit(WHAT)? == 1 {
        for a in 0..4 {
            if d.bit(WHAT)? == 0 {
                continue;
            }
            let start = d.pos();
            ch.mask |= 1 << (PS_FIELDS + a);
            let mask = d.bits(WHAT, 16)? as u32;
            for k in 0..16 {
                if mask >> k & 1 == 1 {
                    to.known_elems |= 1 << (16 * a + k);
                    to.arrays[a][k] = if a == 3 {
                        d.long(WHAT)?
                    } else {
                        d.short(WHAT)? as i32
                    };
                }
            }
            ch.pos[PS_FIELDS + a] = (start as u32, (d.pos() - start) as u32);
        }
    }
    Ok(())
}

fn value_of(wf: &WireField, raw: u32) -> Value {
    match wf.bits {
        0 => Value::F32(f32::from_bits(raw)),
        32 | -32 => Value::Int(raw as i32 as i64),
        n if n < 0 => Value::Int(raw as i32 as i64),
        _ => Value::Int(raw as i64),
    }
}

fn pos_for(ch: Option<&Changes>, i: usize, source: u8, fallback: Pos) -> Pos {
    match ch {
        Some(c) if c.mask >> i & 1 == 1 => {
            let (o, l) = c.pos[i];
            Pos::bits(o as usize, l as usize).in_source(source)
        }
        _ => fallback,
    }
}

/// Adds the known non-zero fields of an entity state under the open group, changed ones
/// located; `known` says which fields are known (the changed ones always are), and a state
/// with some not known is marked partial.
pub fn render_entity(
    t: &mut TreeBuilder,
    st: &EntState,
    known: u64,
    ch: Option<&Changes>,
    source: u8,
    at: Pos,
) {
    if !t.keeps_under(&ENTITY) {
        return;
    }
    let mask = ch.map_or(0, |c| c.mask);
    let shows = |i: usize, v: u32| mask >> i & 1 == 1 || (known >> i & 1 == 1 && v != 0);
    let shown = st.iter().enumerate().filter(|&(i, &v)| shows(i, v)).count();
    t.reserve(mask.count_ones() as usize + shown + 1);
    if let Some(c) = ch {
        for (i, wf) in ENTITY_FIELDS.iter().enumerate() {
            if c.mask >> i & 1 == 1 {
                t.add(&ENT_CHANGED, Value::Str(wf.name.into()), at);
            }
        }
    }
    for (i, wf) in ENTITY_FIELDS.iter().enumerate() {
        if !shows(i, st[i]) {
            continue;
        }
        let f = t.add(wf.def, value_of(wf, st[i]), pos_for(ch, i, source, at));
        if mask >> i & 1 == 1 {
            f.meaning = Some("changed".into());
        }
    }
    if (known | mask) != ENT_ALL_KNOWN {
        t.add(&ENT_PARTIAL, Value::Bool(true), at);
    }
}

type ArrayDefs = (&'static FieldDef, &'static FieldDef, &'static FieldDef);
const ARRAY_DEFS: [ArrayDefs; 4] = [
    (&PS_STAT, &PS_STAT_INDEX, &PS_STAT_VALUE),
    (&PS_PERSISTANT, &PS_PERSISTANT_INDEX, &PS_PERSISTANT_VALUE),
    (&PS_AMMO, &PS_AMMO_INDEX, &PS_AMMO_VALUE),
    (&PS_POWERUP, &PS_POWERUP_INDEX, &PS_POWERUP_VALUE),
];
const ARRAY_NAMES: [&str; 4] = ["stats", "persistant", "ammo", "powerups"];

/// Adds the non-zero fields of a player state under the open group.
pub fn render_player(t: &mut TreeBuilder, ps: &PlayerState, ch: &Changes, source: u8, at: Pos) {
    if !t.keeps_under(&PS) {
        return;
    }
    let shown =
        ps.f.iter()
            .enumerate()
            .filter(|&(i, &v)| v != 0 || ch.mask >> i & 1 == 1)
            .count()
            + ps.arrays.iter().flatten().filter(|&&v| v != 0).count();
    t.reserve(ch.mask.count_ones() as usize + shown + 1);
    for (i, wf) in PLAYER_FIELDS.iter().enumerate() {
        if ch.mask >> i & 1 == 1 {
            t.add(&PS_CHANGED, Value::Str(wf.name.into()), at);
        }
    }
    for (a, name) in ARRAY_NAMES.iter().enumerate() {
        if ch.mask >> (PS_FIELDS + a) & 1 == 1 {
            t.add(&PS_CHANGED, Value::Str((*name).into()), at);
        }
    }
    for (i, wf) in PLAYER_FIELDS.iter().enumerate() {
        let changed = ch.mask >> i & 1 == 1;
        if ps.f[i] == 0 && !changed {
            continue;
        }
        let f = t.add(
            wf.def,
            value_of(wf, ps.f[i]),
            pos_for(Some(ch), i, source, at),
        );
        if changed {
            f.meaning = Some("changed".into());
        }
    }
    for (a, (def, idef, vdef)) in ARRAY_DEFS.iter().enumerate() {
        let p = pos_for(Some(ch), PS_FIELDS + a, source, at);
        for (k, &v) in ps.arrays[a].iter().enumerate() {
            if v == 0 {
                continue;
            }
            t.open(def, Value::None, p);
            t.add(idef, Value::UInt(k as u64), p);
            t.add(vdef, Value::Int(v as i64), p);
            t.close_as_is();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::bits::Loc;
    use super::super::bits::tests::BitWriter;
    use super::*;

    fn dissector<'a, 't>(data: &'a [u8], t: &'t mut TreeBuilder) -> BitDissector<'a, 't> {
        BitDissector::new(data, t, Loc { source: 0, base: 0 })
    }

    #[test]
    fn a_lying_field_count_is_a_located_overread() {
        let mut w = BitWriter::default();
        w.bit(0);
        w.bit(1);
        w.byte(60); // more fields than an entity has
        let mut t = TreeBuilder::new(true);
        let mut d = dissector(&w.data, &mut t);
        let (mut to, mut ch) = ([0u32; ENT_FIELDS], Changes::new());
        let zero = [0u32; ENT_FIELDS];
        assert!(read_entity(&mut d, "baseline", &zero, &mut to, &mut ch).is_err());
        let at = d.pos();
        assert_eq!(t.notes.len(), 1);
        assert_eq!(
            t.notes[0].message,
            "baseline: read past the end of the message"
        );
        assert_eq!(t.notes[0].pos, Some(Pos::bits(at, w.data.len() * 8 - at)));
    }

    #[test]
    fn entity_delta_reads_floats_and_ints() {
        let mut w = BitWriter::default();
        w.bit(0); // not removed
        w.bit(1); // has delta
        w.byte(12); // lc
        // field 0 pos.trTime: changed, nonzero, 32 bits
        w.bit(1);
        w.bit(1);
        w.bits(5000, 32);
        // field 1 pos.trBase[0]: changed, nonzero, 13-bit int form
        w.bit(1);
        w.bit(1);
        w.bit(0);
        w.bits(100 + 4096, 13);
        // field 2: changed, nonzero, full float
        w.bit(1);
        w.bit(1);
        w.bit(1);
        w.bits(1.5f32.to_bits() as i64, 32);
        for _ in 3..11 {
            w.bit(0);
        }
        // field 11 eType: changed to zero
        w.bit(1);
        w.bit(0);
        let mut from = [0u32; ENT_FIELDS];
        from[11] = 3;
        from[20] = 7;
        let mut t = TreeBuilder::new(true);
        let mut d = dissector(&w.data, &mut t);
        let (mut to, mut ch) = ([9u32; ENT_FIELDS], Changes::new());
        ch.mask = u64::MAX; // stale contents of a reused buffer must not survive
        let delta = read_entity(&mut d, "entity", &from, &mut to, &mut ch).unwrap();
        assert_eq!(delta, EntDelta::Changed);
        assert_eq!(to[0], 5000);
        assert_eq!(f32::from_bits(to[1]), 100.0);
        assert_eq!(f32::from_bits(to[2]), 1.5);
        assert_eq!(to[11], 0);
        assert_eq!(to[20], 7);
        assert_eq!(ch.mask, 0b1000_0000_0111);
        assert_eq!(d.pos(), w.pos);
    }

    #[test]
    fn player_delta_with_arrays() {
        let mut w = BitWriter::default();
        w.byte(9); // lc
        w.bit(1);
        w.bits(1234, 32); // commandTime
        for _ in 1..8 {
            w.bit(0);
        }
        w.bit(1);
        w.bits(-20, -16); // weaponTime signed
        w.bit(1); // arrays changed
        w.bit(1); // stats present
        w.bits(0b1001, 16);
        w.bits(100, 16);
        w.bits(-5, 16);
        w.bit(0);
        w.bit(0);
        w.bit(1); // powerups
        w.bits(1, 16);
        w.bits(99999, 32);
        let mut t = TreeBuilder::new(true);
        let mut d = dissector(&w.data, &mut t);
        let (mut ps, mut ch) = (PlayerState::default(), Changes::new());
        ps.f[5] = 77; // stale contents of a reused buffer must not survive
        ch.mask = u64::MAX;
        read_player(&mut d, &PlayerState::default(), &mut ps, &mut ch).unwrap();
        assert_eq!(ps.f[5], 0);
        assert_eq!(ps.f[0], 1234);
        assert_eq!(ps.f[8] as i32, -20);
        assert_eq!(ps.arrays[0][0], 100);
        assert_eq!(ps.arrays[0][3], -5);
        assert_eq!(ps.arrays[3][0], 99999);
        assert_eq!(ch.mask & 0x1ff, 0x101);
        assert_eq!(d.pos(), w.pos);
    }
}

#[cfg(test)]
mod render_tests {
    use super::*;

    /// `render_entity` and `render_player` return early when their group is not kept, which
    /// drops nothing only if every field they add is named under it.
    #[test]
    fn rendered_fields_are_named_under_their_group() {
        let under = |group: &FieldDef, def: &FieldDef| {
            def.name
                .strip_prefix(group.name)
                .is_some_and(|rest| rest.starts_with('.'))
        };
        for wf in &ENTITY_FIELDS {
            assert!(under(&ENTITY, wf.def), "{}", wf.def.name);
        }
        assert!(under(&ENTITY, &ENT_CHANGED));
        assert!(under(&ENTITY, &ENT_PARTIAL));
        let arrays = ARRAY_DEFS.iter().flat_map(|&(a, b, c)| [a, b, c]);
        for def in PLAYER_FIELDS.iter().map(|wf| wf.def).chain(arrays) {
            assert!(under(&PS, def), "{}", def.name);
        }
        assert!(under(&PS, &PS_CHANGED));
    }
}
