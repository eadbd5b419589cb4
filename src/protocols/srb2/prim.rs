//! The string encodings and small structures that packet bodies and net commands share.
//!
//! SRB2 writes strings four ways (STJr/SRB2 `src/byteptr.h`): `WRITESTRINGN` (STRN: up to n
//! characters, a NUL only when fewer), `WRITESTRING` (STRZ: always a NUL), `WRITESTRINGL` and
//! strncpy into a `char[n]` member (zero-padded, unterminated when full).

use crate::tree::{FieldDef, Pos, Value};
use crate::wire::{Dissector, Step, Stop};

use super::fields as f;
use super::notes;
use super::tables::Gametype;

/// Reads a STRN(n) string (`READSTRINGN`): bytes up to a NUL (consumed) or `n` bytes.
pub(crate) fn strn<'a>(d: &mut Dissector<'a>, def: &'static FieldDef, n: usize) -> Step<&'a [u8]> {
    let at = d.pos();
    let (s, terminated) = d.cur.cstring(n);
    let len = d.pos() - at;
    d.tree.add_text(def, s, Pos::bytes(at, len));
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

/// Reads a `char[n]` member (strncpy: zero-padded, maybe unterminated); the text stops at a NUL.
pub(crate) fn fixed<'a>(d: &mut Dissector<'a>, def: &'static FieldDef, n: usize) -> Step<&'a [u8]> {
    let at = d.pos();
    let raw = d.cur.bytes(n).map_err(|e| d.short(def, e))?;
    let s = raw.split(|&b| b == 0).next().unwrap_or_default();
    d.tree.add_text(def, s, Pos::bytes(at, n));
    Ok(s)
}

/// Sets the meaning of the field just added (nothing when fields are discarded: the summary
/// and stats modes never show a meaning).
pub(crate) fn mean(d: &mut Dissector<'_>, m: impl Into<Box<str>>) {
    if !d.tree.detail() {
        return;
    }
    if let Some(x) = d.tree.last_mut() {
        x.meaning = Some(m.into());
    }
}

/// Adds a value learned from the flow (not on the wire) at a zero-length position.
pub(crate) fn derived(d: &mut Dissector<'_>, def: &'static FieldDef, v: Value, at: usize) {
    d.tree.add(def, v, Pos::bytes(at, 0));
}

/// Sets the meaning of the field just added to what `m` builds, only when fields are kept:
/// for meanings that cost an allocation to build on every message.
pub(crate) fn mean_with<M: Into<Box<str>>>(d: &mut Dissector<'_>, m: impl FnOnce() -> M) {
    if d.tree.detail() {
        mean(d, m());
    }
}

/// Reads a u8 shown with the name `name` gives it (empty when it has none).
pub(crate) fn enum_u8(
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

/// Runs `body` inside a group opened here with `value`; the group is closed whatever `body`
/// returns, at the position it reached.
#[inline]
pub(crate) fn group<'a, T>(
    d: &mut Dissector<'a>,
    def: &'static FieldDef,
    value: Value,
    body: impl FnOnce(&mut Dissector<'a>) -> Step<T>,
) -> Step<T> {
    let at = d.pos();
    d.tree.open(def, value, Pos::bytes(at, 0));
    let r = body(d);
    d.close();
    r
}

/// The names of the bits of `v` that `table` lists, in table order.
pub(crate) fn flag_names(v: u32, table: &[(u32, &'static str)]) -> Vec<&'static str> {
    table
        .iter()
        .filter(|&&(bit, _)| v & bit != 0)
        .map(|&(_, name)| name)
        .collect()
}

/// A gametype's name, empty for a Lua-defined one.
pub(crate) fn gametype_name(g: u8) -> &'static str {
    Gametype(g).name_or("")
}

/// Wire text for a summary.
pub(crate) fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// A net-variable entry: netid u16, value STRZ, stealth u8 (STJr/SRB2 `src/command.c`
/// `CV_SaveNetVars` / `Got_NetVar`).
pub(crate) fn netvar(d: &mut Dissector<'_>) -> Step<(u16, String)> {
    group(d, &f::NETVAR, Value::None, |d| {
        let id = d.u16_le(&f::NETVAR_ID)?;
        let v = d.cstring(&f::NETVAR_VALUE, 1450)?;
        d.u8(&f::NETVAR_STEALTH)?;
        Ok((id, text(v)))
    })
}
