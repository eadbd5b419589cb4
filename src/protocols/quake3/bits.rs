//! The message bit stream (ioquake3 code/qcommon/msg.c `MSG_ReadBits`): raw bits LSB first, whole bytes through the static
//! Huffman table. Never panics; a read past the end sets `overread` and returns an error.

use super::huffman::{MAX_CODE_BITS, NYT, StaticTable, static_table};
use super::notes;
use crate::tree::{NoteDef, Pos, TreeBuilder};
use crate::wire::{Step, Stop};

/// A read ran past the end of the message (or hit the NYT code, which the encoder never sends).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bad {
    Overread,
    Nyt,
}

pub type R<T> = Result<T, Bad>;

impl Bad {
    /// The registered note and its text for a failed read of `what`.
    pub fn note(self, what: &str) -> (&'static NoteDef, String) {
        match self {
            Bad::Overread => (
                &notes::OVERREAD,
                format!("{what}: read past the end of the message"),
            ),
            Bad::Nyt => (
                &notes::NYT,
                format!("{what}: Huffman code of NYT (corrupt stream)"),
            ),
        }
    }
}

/// Where fields point: bit offsets in the message are shifted by `base` bits in `source`.
#[derive(Clone, Copy)]
pub struct Loc {
    pub source: u8,
    pub base: usize,
}

impl Loc {
    pub fn bits(&self, start: usize, end: usize) -> Pos {
        Pos::bits(self.base + start, end.saturating_sub(start)).in_source(self.source)
    }
}

/// The message bit stream paired with the tree it is dissected into, the bit-level sibling of
/// the toolkit's `Dissector`: a read that fails adds its located note (`<what>: read past the
/// end of the message`, from where the read stopped to the end of the message) and returns
/// [`Stop`]; callers propagate it with `?`. `what` names the part being read, for the note.
pub struct BitDissector<'a, 't> {
    pub r: BitReader<'a>,
    pub t: &'t mut TreeBuilder,
    pub loc: Loc,
}

macro_rules! step_reads {
    ($($name:ident($($arg:ident: $at:ty),*) -> $t:ty;)*) => {
        $(
            #[inline]
            pub fn $name(&mut self, what: &'static str $(, $arg: $at)*) -> Step<$t> {
                match self.r.$name($($arg),*) {
                    Ok(v) => Ok(v),
                    Err(bad) => Err(self.fail(what, bad)),
                }
            }
        )*
    };
}

impl<'a, 't> BitDissector<'a, 't> {
    pub fn new(data: &'a [u8], t: &'t mut TreeBuilder, loc: Loc) -> BitDissector<'a, 't> {
        BitDissector {
            r: BitReader::new(data),
            t,
            loc,
        }
    }

    /// Current bit position in the message.
    #[inline]
    pub fn pos(&self) -> usize {
        self.r.pos()
    }

    /// The bits from `start` to `end` of the message, where a field points.
    #[inline]
    pub fn bits_pos(&self, start: usize, end: usize) -> Pos {
        self.loc.bits(start, end)
    }

    /// The bits read since `start`: where the field just read sits.
    #[inline]
    pub fn since(&self, start: usize) -> Pos {
        self.loc.bits(start, self.r.pos())
    }

    /// The end of what was read, in the unit a group opened at a bit position is closed with.
    #[inline]
    pub fn end(&self) -> usize {
        self.loc.base + self.r.pos()
    }

    /// Records a failed read of `what` as a located error note and returns [`Stop`].
    #[cold]
    #[inline(never)]
    pub fn fail(&mut self, what: &'static str, bad: Bad) -> Stop {
        let (note, msg) = bad.note(what);
        let total = self.r.total_bits();
        let at = self.r.pos().min(total);
        self.t
            .expert(note, None, Some(self.loc.bits(at, total)), msg);
        Stop
    }

    step_reads! {
        bit() -> u32;
        raw(n: u32) -> u32;
        bits(n: i32) -> i64;
        byte() -> u8;
        short() -> i16;
        long() -> i32;
        ulong() -> u32;
        bytes(n: usize) -> Vec<u8>;
        string(max: usize, out: &mut Vec<u8>) -> ();
    }
}

/// The `m`-bit value `v` as `MSG_ReadBits` returns it: sign-extended when `n` is negative.
#[inline(always)]
fn signed(v: u64, n: i32, m: u32) -> i64 {
    if n < 0 && m > 0 && m < 64 && (v >> (m - 1)) & 1 == 1 {
        return (v as i64) - (1i64 << m);
    }
    v as i64
}

pub struct BitReader<'a> {
    data: &'a [u8],
    pos: usize,
    table: &'static StaticTable,
}

impl<'a> BitReader<'a> {
    pub fn new(data: &'a [u8]) -> BitReader<'a> {
        BitReader {
            data,
            pos: 0,
            table: static_table(),
        }
    }
    /// Current bit position.
    pub fn pos(&self) -> usize {
        self.pos
    }
    pub fn total_bits(&self) -> usize {
        self.data.len() * 8
    }
    pub fn bits_left(&self) -> usize {
        self.total_bits().saturating_sub(self.pos)
    }

    /// At least 57 upcoming bits (zero past the end), bit 0 = next bit. One 8-byte load when
    /// the message has 8 bytes left from the current byte, byte by byte near the end.
    #[inline]
    fn peek(&self) -> u64 {
        let byte = self.pos >> 3;
        let v = match self.data.get(byte..byte + 8) {
            Some(s) => {
                let mut a = [0u8; 8];
                a.copy_from_slice(s);
                u64::from_le_bytes(a)
            }
            None => {
                // Under 8 bytes: a byte loop (a copy of a length not known here is a call).
                let tail = self.data.get(byte..).unwrap_or(&[]);
                let mut v = 0u64;
                for (k, &b) in tail.iter().take(8).enumerate() {
                    v |= (b as u64) << (8 * k);
                }
                v
            }
        };
        v >> (self.pos & 7)
    }

    /// `n` raw bits (n ≤ 24), first bit = least significant.
    #[inline]
    pub fn raw(&mut self, n: u32) -> R<u32> {
        if n == 0 {
            return Ok(0);
        }
        if self.bits_left() < n as usize {
            self.pos = self.total_bits();
            return Err(Bad::Overread);
        }
        let v = (self.peek() as u32) & ((1u32 << n) - 1);
        self.pos += n as usize;
        Ok(v)
    }

    /// One raw bit (what `raw(1)` reads, with one byte load).
    #[inline]
    pub fn bit(&mut self) -> R<u32> {
        match self.data.get(self.pos >> 3) {
            Some(&b) => {
                let v = (b >> (self.pos & 7)) & 1;
                self.pos += 1;
                Ok(v as u32)
            }
            None => {
                self.pos = self.total_bits();
                Err(Bad::Overread)
            }
        }
    }

    /// Decodes one symbol from the window `w` (the stream at bit `*pos`), advancing `*pos`;
    /// on an overread `self.pos` becomes the end, on NYT it is left after the code.
    #[inline(always)]
    fn symbol_at(&mut self, w: u64, pos: &mut usize) -> R<(u16, u32)> {
        let e = self.table.lookup[(w as usize) & ((1 << MAX_CODE_BITS) - 1)];
        let len = (e >> 9) as usize;
        let total = self.total_bits();
        if len > total.saturating_sub(*pos) || len == 0 {
            self.pos = total;
            return Err(Bad::Overread);
        }
        *pos += len;
        let sym = e & 0x1ff;
        if sym == NYT {
            self.pos = *pos;
            return Err(Bad::Nyt);
        }
        Ok((sym, len as u32))
    }

    /// One Huffman-coded symbol from the static tree.
    #[inline]
    pub fn symbol(&mut self) -> R<u8> {
        if let Some(w) = self.window() {
            let e = self.table.lookup[(w as usize) & ((1 << MAX_CODE_BITS) - 1)];
            self.pos += (e >> 9) as usize;
            let sym = e & 0x1ff;
            return if sym == NYT {
                Err(Bad::Nyt)
            } else {
                Ok(sym as u8)
            };
        }
        let mut pos = self.pos;
        let (sym, _) = self.symbol_at(self.peek(), &mut pos)?;
        self.pos = pos;
        Ok(sym as u8)
    }

    /// The 64 bits from the current byte on, when the message has them: every read of at most
    /// 57 bits from here needs no end-of-message check.
    #[inline(always)]
    fn window(&self) -> Option<u64> {
        let byte = self.pos >> 3;
        let s = self.data.get(byte..byte + 8)?;
        let mut a = [0u8; 8];
        a.copy_from_slice(s);
        Some(u64::from_le_bytes(a) >> (self.pos & 7))
    }

    /// An n-bit field (`MSG_ReadBits`); negative `n` = signed. The raw low bits and up to four
    /// Huffman symbols are all decoded from one 57-bit window (7 + 3 × 11 + 11 bits at most).
    #[inline]
    pub fn bits(&mut self, n: i32) -> R<i64> {
        let m = n.unsigned_abs().min(32);
        let r = m % 8;
        // Away from the end (most reads) no symbol can run past it: 7 + 4 × 11 = 51 bits at
        // most, of the 57 the window holds. That saves a bounds test per symbol. Near the end
        // (the last 8 bytes: a fair share of short client messages) the same holds when the
        // message has room for the longest codes.
        let mut w = match self.window() {
            Some(w) => w,
            None if self.bits_left() >= (r + 11 * (m / 8)) as usize => self.peek(),
            None => return self.bits_near_end(n),
        };
        let lookup = &self.table.lookup;
        let mut v = w & ((1u64 << r) - 1);
        w >>= r;
        let mut used = r as usize;
        let mut shift = r;
        while shift < m {
            let e = lookup[(w as usize) & ((1 << MAX_CODE_BITS) - 1)];
            let len = (e >> 9) as usize;
            let sym = e & 0x1ff;
            used += len;
            if sym == NYT {
                self.pos += used;
                return Err(Bad::Nyt);
            }
            w >>= len;
            v |= (sym as u64) << shift;
            shift += 8;
        }
        self.pos += used;
        Ok(signed(v, n, m))
    }

    /// [`BitReader::bits`] where the message may end within the field.
    #[cold]
    #[inline(never)]
    fn bits_near_end(&mut self, n: i32) -> R<i64> {
        let m = n.unsigned_abs().min(32);
        let r = m % 8;
        let mut w = self.peek();
        let mut v = 0u64;
        if r > 0 {
            if self.bits_left() < r as usize {
                self.pos = self.total_bits();
                return Err(Bad::Overread);
            }
            v = w & ((1u64 << r) - 1);
            w >>= r;
        }
        let mut pos = self.pos + r as usize;
        let mut shift = r;
        while shift < m {
            let (sym, len) = self.symbol_at(w, &mut pos)?;
            w >>= len;
            v |= (sym as u64) << shift;
            shift += 8;
        }
        self.pos = pos;
        Ok(signed(v, n, m))
    }
    pub fn byte(&mut self) -> R<u8> {
        self.symbol()
    }
    /// `n` Huffman-coded bytes. The capacity is bounded by what the message can still hold (a
    /// byte costs at least two bits), so a lying count cannot allocate more than the input.
    pub fn bytes(&mut self, n: usize) -> R<Vec<u8>> {
        let mut out = Vec::with_capacity(n.min(self.bits_left() / 2));
        for _ in 0..n {
            out.push(self.byte()?);
        }
        Ok(out)
    }
    pub fn short(&mut self) -> R<i16> {
        Ok(self.bits(16)? as u16 as i16)
    }
    pub fn long(&mut self) -> R<i32> {
        Ok(self.bits(32)? as u32 as i32)
    }
    pub fn ulong(&mut self) -> R<u32> {
        Ok(self.bits(32)? as u32)
    }

    /// A NUL-terminated string (the NUL is read, not stored); at most `max` bytes are kept, the
    /// rest consumed up to the NUL as ioquake3 does (`MSG_ReadString`). Bytes are kept as sent.
    pub fn string(&mut self, max: usize, out: &mut Vec<u8>) -> R<()> {
        out.clear();
        // Room for a short string at once (pushing into an empty vector grew it a byte at a
        // time: a sixtieth of a Quake 3 summary run).
        out.reserve(max.min(self.bits_left() / 2).min(64));
        let lookup = &self.table.lookup;
        loop {
            // Five symbols of at most 11 bits fit in one 57-bit window; away from the end no
            // symbol can run past it.
            let Some(mut w) = self.window() else {
                return self.string_near_end(max, out);
            };
            for _ in 0..5 {
                let e = lookup[(w as usize) & ((1 << MAX_CODE_BITS) - 1)];
                let len = (e >> 9) as usize;
                let c = e & 0x1ff;
                self.pos += len;
                if c == NYT {
                    return Err(Bad::Nyt);
                }
                if c == 0 {
                    return Ok(());
                }
                w >>= len;
                if out.len() < max {
                    out.push(c as u8);
                }
            }
        }
    }

    /// The rest of [`BitReader::string`] where the message may end within it.
    #[cold]
    #[inline(never)]
    fn string_near_end(&mut self, max: usize, out: &mut Vec<u8>) -> R<()> {
        loop {
            let mut w = self.peek();
            let mut pos = self.pos;
            for _ in 0..5 {
                let (c, len) = self.symbol_at(w, &mut pos)?;
                w >>= len;
                if c == 0 {
                    self.pos = pos;
                    return Ok(());
                }
                if out.len() < max {
                    out.push(c as u8);
                }
            }
            self.pos = pos;
        }
    }
}

/// A message written as the sender writes it in Huffman mode (ioquake3 code/qcommon/msg.c
/// `MSG_WriteBits`): the tests' messages, and the plaintext the key recovery predicts.
#[derive(Default, Clone)]
pub struct BitWriter {
    pub data: Vec<u8>,
    pub pos: usize,
}

impl BitWriter {
    pub fn bit(&mut self, b: u32) {
        if self.pos >> 3 >= self.data.len() {
            self.data.push(0);
        }
        if b & 1 == 1 {
            self.data[self.pos >> 3] |= 1 << (self.pos & 7);
        }
        self.pos += 1;
    }
    pub fn sym(&mut self, s: u8) {
        let (code, len) = static_table().codes[s as usize];
        for k in 0..len {
            self.bit(code >> k);
        }
    }
    pub fn bits(&mut self, v: i64, n: i32) {
        let m = n.unsigned_abs();
        let v = (v as u64) & if m >= 64 { u64::MAX } else { (1u64 << m) - 1 };
        let r = m % 8;
        for k in 0..r {
            self.bit((v >> k) as u32);
        }
        let mut s = r;
        while s < m {
            self.sym((v >> s) as u8);
            s += 8;
        }
    }
    pub fn long(&mut self, v: i64) {
        self.bits(v, 32)
    }
    pub fn byte(&mut self, v: u8) {
        self.bits(v as i64, 8)
    }
    /// The characters of `MSG_WriteString` without its terminator: `%` and bytes above 127
    /// are sent as `.`.
    pub fn chars(&mut self, text: &[u8]) {
        for &c in text {
            self.sym(if c > 127 || c == b'%' { b'.' } else { c });
        }
    }
    pub fn string(&mut self, s: &[u8]) {
        for &c in s {
            self.sym(c);
        }
        self.sym(0);
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub use super::BitWriter;

    pub fn hex(s: &str) -> Vec<u8> {
        (0..s.len() / 2)
            .map(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).unwrap())
            .collect()
    }

    #[test]
    fn tv1_reads_back() {
        let data = hex("6c3562ab8547280cd99b0807c3c49c256205");
        let mut r = BitReader::new(&data);
        assert_eq!(r.long(), Ok(3));
        assert_eq!(r.byte(), Ok(5));
        assert_eq!(r.long(), Ok(1));
        let mut s = Vec::new();
        r.string(1024, &mut s).unwrap();
        assert_eq!(s, b"print \"hello\"");
        assert_eq!(r.byte(), Ok(8));
        assert_eq!(r.pos(), 139);
    }

    #[test]
    fn tv1_writes() {
        let mut w = BitWriter::default();
        w.long(3);
        w.byte(5);
        w.long(1);
        w.string(b"print \"hello\"");
        w.byte(8);
        assert_eq!(w.data, hex("6c3562ab8547280cd99b0807c3c49c256205"));
    }

    #[test]
    fn tv2_mixed_widths() {
        let data = hex("93a246fe320121e303");
        let mut r = BitReader::new(&data);
        assert_eq!(r.bits(10), Ok(1023));
        assert_eq!(r.bits(1), Ok(0));
        assert_eq!(r.bits(1), Ok(1));
        assert_eq!(r.bits(-16), Ok(-5));
        assert_eq!(r.bits(13), Ok(4095));
        assert_eq!(r.bits(19), Ok(0x1234));
        assert_eq!(r.bits(4), Ok(1));
        assert_eq!(r.bits(5), Ok(31));
        let mut w = BitWriter::default();
        for (v, n) in [
            (1023, 10),
            (0, 1),
            (1, 1),
            (-5, -16),
            (4095, 13),
            (0x1234, 19),
            (1, 4),
            (31, 5),
        ] {
            w.bits(v, n);
        }
        assert_eq!(w.data, data);
    }

    #[test]
    fn bit_reads_like_raw_one() {
        let data = [0b1010_0110u8, 0x81];
        let (mut a, mut b) = (BitReader::new(&data), BitReader::new(&data));
        for _ in 0..17 {
            assert_eq!(a.bit(), b.raw(1));
            assert_eq!(a.pos(), b.pos());
        }
    }

    #[test]
    fn overread_is_an_error() {
        let mut r = BitReader::new(&[0xff]);
        assert_eq!(r.raw(4), Ok(15));
        assert_eq!(r.bits(32), Err(Bad::Overread));
        assert_eq!(r.raw(1), Err(Bad::Overread));
    }
}
