//! Checked reading of wire bytes, for decoders.
//!
//! [`Cursor`] never panics: every read checks the length first and reports a [`Short`] with the
//! offset, the bytes needed and the bytes left. [`Dissector`] pairs a cursor with a
//! [`TreeBuilder`] so that one call reads a value, adds its field with its byte range, and on a
//! short read adds a located `error` note and returns [`Stop`], which decoders propagate with `?`.

use crate::tree::{FieldDef, NoteDef, Pos, TreeBuilder, Value};

/// A read ran past the end of the data.
pub static CUT_OFF: NoteDef = NoteDef::error(
    "expert.cut_off",
    "A field runs past the end of the data (or of the length that encloses it)",
);
/// A string has no terminating NUL within its bound.
pub static NO_TERMINATOR: NoteDef = NoteDef::error(
    "expert.no_terminator",
    "A NUL-terminated string has no terminator within its bound",
);
/// Bytes after the last decoded field.
pub static TRAILING: NoteDef = NoteDef::warning(
    "expert.trailing",
    "Bytes after the last field the decoder understood",
);

/// A read ran past the end of a datagram that the capture's snaplen cut: expected, so a note,
/// not an error (decoders turn their cut-off errors into this kind on such datagrams).
pub static CUT_BY_SNAPLEN: NoteDef = NoteDef::note(
    "expert.field_cut_by_snaplen",
    "A field runs past the end of a datagram the capture's snaplen cut (expected, not malformed)",
);

/// The notes the toolkit itself adds, for the field reference.
pub static NOTES: &[&NoteDef] = &[&CUT_OFF, &NO_TERMINATOR, &TRAILING, &CUT_BY_SNAPLEN];

/// A read ran past the end of the data.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Short {
    pub at: usize,
    pub need: usize,
    pub have: usize,
}

impl std::fmt::Display for Short {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "needs {} byte{} at offset {}, only {} left",
            self.need,
            if self.need == 1 { "" } else { "s" },
            self.at,
            self.have
        )
    }
}

/// A named byte range of a fixed layout, as in smoltcp's `wire` modules: a decoder lists its
/// header as `mod field { pub const MAGIC: Range = 0..4; … }`, and reads with the `*_at`
/// methods of [`Dissector`] or [`Cursor::range`].
pub type Range = core::ops::Range<usize>;

/// A position-tracking reader over a byte slice.
#[derive(Debug, Clone)]
pub struct Cursor<'a> {
    data: &'a [u8],
    pos: usize,
}

macro_rules! int_reads {
    ($($name:ident: $t:ty = $from:ident;)*) => {
        $(
            pub fn $name(&mut self) -> Result<$t, Short> {
                let b = self.array::<{ std::mem::size_of::<$t>() }>()?;
                Ok(<$t>::$from(b))
            }
        )*
    };
}

impl<'a> Cursor<'a> {
    pub fn new(data: &'a [u8]) -> Cursor<'a> {
        Cursor { data, pos: 0 }
    }

    /// A cursor that starts at `pos` of `data` (offsets stay relative to `data`).
    pub fn at(data: &'a [u8], pos: usize) -> Cursor<'a> {
        Cursor {
            data,
            pos: pos.min(data.len()),
        }
    }

    pub fn pos(&self) -> usize {
        self.pos
    }
    pub fn len(&self) -> usize {
        self.data.len()
    }
    pub fn data(&self) -> &'a [u8] {
        self.data
    }
    pub fn remaining(&self) -> usize {
        self.data.len() - self.pos
    }
    pub fn is_empty(&self) -> bool {
        self.remaining() == 0
    }
    pub fn rest(&self) -> &'a [u8] {
        &self.data[self.pos..]
    }

    fn short(&self, need: usize) -> Short {
        Short {
            at: self.pos,
            need,
            have: self.remaining(),
        }
    }

    /// Moves to `pos` (clamped to the end of the data).
    pub fn seek(&mut self, pos: usize) {
        self.pos = pos.min(self.data.len());
    }

    /// The bytes of a named range, without moving.
    pub fn range(&self, range: Range) -> Result<&'a [u8], Short> {
        self.data.get(range.clone()).ok_or(Short {
            at: range.start,
            need: range.len(),
            have: self.data.len().saturating_sub(range.start),
        })
    }

    pub fn peek_u8(&self) -> Option<u8> {
        self.data.get(self.pos).copied()
    }

    pub fn bytes(&mut self, n: usize) -> Result<&'a [u8], Short> {
        if n > self.remaining() {
            return Err(self.short(n));
        }
        let s = &self.data[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }

    pub fn skip(&mut self, n: usize) -> Result<(), Short> {
        self.bytes(n).map(|_| ())
    }

    pub fn array<const N: usize>(&mut self) -> Result<[u8; N], Short> {
        let s = self.bytes(N)?;
        let mut a = [0u8; N];
        a.copy_from_slice(s);
        Ok(a)
    }

    pub fn u8(&mut self) -> Result<u8, Short> {
        Ok(self.array::<1>()?[0])
    }

    int_reads! {
        u16_le: u16 = from_le_bytes; u16_be: u16 = from_be_bytes;
        u32_le: u32 = from_le_bytes; u32_be: u32 = from_be_bytes;
        u64_le: u64 = from_le_bytes; u64_be: u64 = from_be_bytes;
        i8: i8 = from_le_bytes;
        i16_le: i16 = from_le_bytes; i16_be: i16 = from_be_bytes;
        i32_le: i32 = from_le_bytes; i32_be: i32 = from_be_bytes;
        i64_le: i64 = from_le_bytes; i64_be: i64 = from_be_bytes;
        f32_le: f32 = from_le_bytes; f32_be: f32 = from_be_bytes;
        f64_le: f64 = from_le_bytes; f64_be: f64 = from_be_bytes;
    }

    /// Bytes up to a NUL (consumed, not returned), or up to `max` bytes / the end of data.
    /// The flag says whether a terminator was found.
    pub fn cstring(&mut self, max: usize) -> (&'a [u8], bool) {
        let window = &self.data[self.pos..self.pos + self.remaining().min(max)];
        match window.iter().position(|&b| b == 0) {
            Some(i) => {
                self.pos += i + 1;
                (&window[..i], true)
            }
            None => {
                self.pos += window.len();
                (window, false)
            }
        }
    }
}

/// Decoding of this message stops here; the reason is already recorded as a note.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stop;

/// The result type of decoder steps.
pub type Step<T> = Result<T, Stop>;

/// A cursor plus a tree builder: read a value and add its field in one call.
#[derive(Debug)]
pub struct Dissector<'a> {
    pub cur: Cursor<'a>,
    pub tree: TreeBuilder,
}

macro_rules! field_reads {
    ($($name:ident, $at_name:ident: $t:ty => $variant:ident;)*) => {
        $(
            pub fn $name(&mut self, def: &'static FieldDef) -> Step<$t> {
                let at = self.cur.pos();
                let v = self.cur.$name().map_err(|e| self.short(def, e))?;
                self.tree.add(def, Value::$variant(v.into()), Pos::bytes(at, std::mem::size_of::<$t>()));
                Ok(v)
            }

            /// Reads the field of a fixed layout at its named range (see [`Range`]); the cursor
            /// ends after it.
            pub fn $at_name(&mut self, def: &'static FieldDef, range: Range) -> Step<$t> {
                debug_assert_eq!(range.len(), std::mem::size_of::<$t>(), "{}", def.name);
                self.cur.seek(range.start);
                self.$name(def)
            }
        )*
    };
}

impl<'a> Dissector<'a> {
    pub fn new(data: &'a [u8], detail: impl Into<crate::tree::Detail>) -> Dissector<'a> {
        Dissector {
            cur: Cursor::new(data),
            tree: TreeBuilder::new(detail),
        }
    }

    pub fn pos(&self) -> usize {
        self.cur.pos()
    }

    /// Records a located note on `field` at `at..at + len` (a value that was read but cannot
    /// be right) and returns [`Stop`].
    pub fn fail(
        &mut self,
        note: &'static NoteDef,
        field: &'static FieldDef,
        (at, len): (usize, usize),
        message: impl Into<String>,
    ) -> Stop {
        self.tree
            .expert(note, Some(field), Some(Pos::bytes(at, len)), message);
        Stop
    }

    /// Records a short read as a located error on `def` and returns [`Stop`].
    pub fn short(&mut self, def: &'static FieldDef, e: Short) -> Stop {
        self.tree.expert(
            &CUT_OFF,
            Some(def),
            Some(Pos::bytes(e.at, e.have)),
            format!("{} is cut off: {}", def.label, e),
        );
        Stop
    }

    field_reads! {
        u8, u8_at: u8 => UInt;
        u16_le, u16_le_at: u16 => UInt; u16_be, u16_be_at: u16 => UInt;
        u32_le, u32_le_at: u32 => UInt; u32_be, u32_be_at: u32 => UInt;
        u64_le, u64_le_at: u64 => UInt; u64_be, u64_be_at: u64 => UInt;
        i8, i8_at: i8 => Int;
        i16_le, i16_le_at: i16 => Int; i16_be, i16_be_at: i16 => Int;
        i32_le, i32_le_at: i32 => Int; i32_be, i32_be_at: i32 => Int;
        i64_le, i64_le_at: i64 => Int; i64_be, i64_be_at: i64 => Int;
        f32_le, f32_le_at: f32 => F32; f32_be, f32_be_at: f32 => F32;
        f64_le, f64_le_at: f64 => F64; f64_be, f64_be_at: f64 => F64;
    }

    /// Checks once that `n` bytes remain for a fixed layout that starts here (smoltcp's "check
    /// once, then read"): when they do not, adds a located `expert.cut_off` note on `def` and
    /// returns [`Stop`].
    pub fn need(&mut self, def: &'static FieldDef, n: usize) -> Step<()> {
        if self.cur.remaining() < n {
            let e = Short {
                at: self.cur.pos(),
                need: n,
                have: self.cur.remaining(),
            };
            return Err(self.short(def, e));
        }
        Ok(())
    }

    /// Reads `n` raw bytes as a field of kind bytes (or text, by the def's kind).
    pub fn bytes(&mut self, def: &'static FieldDef, n: usize) -> Step<&'a [u8]> {
        let at = self.cur.pos();
        let b = self.cur.bytes(n).map_err(|e| self.short(def, e))?;
        let value = match def.kind {
            _ if def.holds_text() => Value::text(b),
            _ => Value::Bytes(b.into()),
        };
        self.tree.add(def, value, Pos::bytes(at, n));
        Ok(b)
    }

    /// Reads a NUL-terminated string of at most `max` bytes. A missing terminator is an error
    /// note, but the text read so far is still shown.
    pub fn cstring(&mut self, def: &'static FieldDef, max: usize) -> Step<&'a [u8]> {
        let at = self.cur.pos();
        let (s, terminated) = self.cur.cstring(max);
        let len = self.cur.pos() - at;
        self.tree.add(def, Value::text(s), Pos::bytes(at, len));
        if !terminated {
            self.tree.expert(
                &NO_TERMINATOR,
                Some(def),
                Some(Pos::bytes(at, len)),
                format!("{} has no terminating NUL within {} bytes", def.label, len),
            );
            return Err(Stop);
        }
        Ok(s)
    }

    /// Adds a field whose value the decoder computed, at an explicit byte range.
    pub fn add(
        &mut self,
        def: &'static FieldDef,
        value: Value,
        at: usize,
        len: usize,
    ) -> &mut crate::tree::Field {
        self.tree.add(def, value, Pos::bytes(at, len))
    }

    /// Opens a group starting at the current position.
    pub fn open(&mut self, def: &'static FieldDef) {
        let at = self.cur.pos();
        self.tree.open(def, Value::None, Pos::bytes(at, 0));
    }

    /// Closes the innermost group at the current position.
    pub fn close(&mut self) {
        let end = self.cur.pos();
        self.tree.close(end);
    }

    /// Marks the rest of the data as not understood (a `warning`), showing it as bytes.
    pub fn trailing(&mut self, def: &'static FieldDef) {
        let n = self.cur.remaining();
        if n > 0 {
            let at = self.cur.pos();
            let b = self.cur.bytes(n).unwrap_or_default();
            self.tree
                .add(def, Value::Bytes(b.into()), Pos::bytes(at, n));
            self.tree.expert(
                &TRAILING,
                Some(def),
                Some(Pos::bytes(at, n)),
                format!(
                    "{n} trailing byte{} not decoded",
                    if n == 1 { "" } else { "s" }
                ),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tree::{Record, Severity};

    static V: FieldDef = FieldDef::uint("t.v", "Value");
    static S: FieldDef = FieldDef::string("t.s", "Name");

    #[test]
    fn integers_in_both_byte_orders() {
        let mut c = Cursor::new(&[0x12, 0x34, 0x56, 0x78, 0xff]);
        assert_eq!(c.u16_le().unwrap(), 0x3412);
        assert_eq!(c.u16_be().unwrap(), 0x5678);
        assert_eq!(c.i8().unwrap(), -1);
        assert_eq!(
            c.u8(),
            Err(Short {
                at: 5,
                need: 1,
                have: 0
            })
        );
        let mut c = Cursor::new(&[0x3f, 0x80, 0, 0]);
        assert_eq!(c.f32_be().unwrap(), 1.0);
        let mut c = Cursor::new(&[0xff, 0xff, 0xff, 0xfe]);
        assert_eq!(c.i32_be().unwrap(), -2);
    }

    #[test]
    fn short_read_does_not_move_the_cursor() {
        let mut c = Cursor::new(&[1, 2, 3]);
        c.u8().unwrap();
        assert_eq!(
            c.u32_le(),
            Err(Short {
                at: 1,
                need: 4,
                have: 2
            })
        );
        assert_eq!(c.pos(), 1);
        assert_eq!(c.u16_be().unwrap(), 0x0203);
    }

    #[test]
    fn named_ranges_read_in_place_and_check_once() {
        mod field {
            use super::Range;
            pub const A: Range = 0..2;
            pub const B: Range = 2..6;
        }
        let data = [0, 7, 0, 0, 1, 0];
        let mut d = Dissector::new(&data, true);
        assert_eq!(d.need(&V, 6), Ok(()));
        assert_eq!(d.u32_be_at(&V, field::B), Ok(256));
        assert_eq!(d.u16_be_at(&V, field::A), Ok(7));
        assert_eq!(d.pos(), 2);
        assert_eq!(d.cur.range(field::B), Ok(&data[2..6]));
        assert_eq!(
            d.cur.range(4..8),
            Err(Short {
                at: 4,
                need: 4,
                have: 2
            })
        );
        assert_eq!(d.need(&V, 5), Err(Stop));
        let mut r = Record::new("t");
        d.tree.finish_into(6, &mut r);
        assert_eq!(r.fields[0].pos, Pos::bytes(2, 4));
        assert_eq!(r.notes[0].name(), "expert.cut_off");
    }

    #[test]
    fn cstring_with_and_without_terminator() {
        let mut c = Cursor::new(b"ab\0cd");
        assert_eq!(c.cstring(10), (&b"ab"[..], true));
        assert_eq!(c.cstring(10), (&b"cd"[..], false));
        let mut c = Cursor::new(b"abcdef\0");
        assert_eq!(c.cstring(3), (&b"abc"[..], false));
        assert_eq!(c.pos(), 3);
    }

    #[test]
    fn dissector_records_values_and_located_errors() {
        let mut d = Dissector::new(&[0, 5, b'h', b'i'], true);
        assert_eq!(d.u16_be(&V), Ok(5));
        assert_eq!(d.cstring(&S, 64), Err(Stop));
        assert_eq!(d.u8(&V), Err(Stop));
        let mut r = Record::new("t");
        d.tree.finish_into(4, &mut r);
        assert_eq!(r.fields[0].value, Value::UInt(5));
        assert_eq!(r.fields[0].pos, Pos::bytes(0, 2));
        assert_eq!(r.fields[1].value, Value::Str("hi".into()));
        assert_eq!(r.notes.len(), 2);
        assert_eq!(r.notes[0].severity(), Severity::Error);
        assert_eq!(
            r.notes[1].message,
            "Value is cut off: needs 1 byte at offset 4, only 0 left"
        );
    }
}
