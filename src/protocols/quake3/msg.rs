//! The message bit stream (reference §5): raw bits LSB first, whole bytes through the static
//! Huffman table. Never panics; a read past the end sets `overread` and returns an error.

use super::huffman::{MAX_CODE_BITS, NYT, StaticTable, static_table};

/// A read ran past the end of the message (or hit the NYT code, which the encoder never sends).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bad {
    Overread,
    Nyt,
}

pub type R<T> = Result<T, Bad>;

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

    /// Up to 25 upcoming bits (zero past the end), bit 0 = next bit.
    #[inline]
    fn peek(&self) -> u32 {
        let byte = self.pos >> 3;
        let mut v = 0u32;
        for k in 0..4 {
            if let Some(&b) = self.data.get(byte + k) {
                v |= (b as u32) << (8 * k);
            }
        }
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
        let v = self.peek() & ((1u32 << n) - 1);
        self.pos += n as usize;
        Ok(v)
    }

    /// One Huffman-coded symbol from the static tree.
    #[inline]
    pub fn symbol(&mut self) -> R<u8> {
        let e = self.table.lookup[(self.peek() & ((1 << MAX_CODE_BITS) - 1)) as usize];
        let len = (e >> 9) as usize;
        if len > self.bits_left() || len == 0 {
            self.pos = self.total_bits();
            return Err(Bad::Overread);
        }
        self.pos += len;
        let sym = e & 0x1ff;
        if sym == NYT {
            return Err(Bad::Nyt);
        }
        Ok(sym as u8)
    }

    /// An n-bit field (reference §5.2); negative `n` = signed.
    pub fn bits(&mut self, n: i32) -> R<i64> {
        let m = n.unsigned_abs().min(32);
        let r = m % 8;
        let mut v = self.raw(r)? as u64;
        let mut shift = r;
        while shift < m {
            v |= (self.symbol()? as u64) << shift;
            shift += 8;
        }
        if n < 0 && m > 0 && m < 64 && (v >> (m - 1)) & 1 == 1 {
            return Ok((v as i64) - (1i64 << m));
        }
        Ok(v as i64)
    }
    pub fn byte(&mut self) -> R<u8> {
        self.symbol()
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
    /// rest consumed up to the NUL as ioquake3 does (reference §5.4). Bytes are kept as sent.
    pub fn string(&mut self, max: usize, out: &mut Vec<u8>) -> R<()> {
        out.clear();
        loop {
            let c = self.symbol()?;
            if c == 0 {
                return Ok(());
            }
            if out.len() < max {
                out.push(c);
            }
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Test-side writer mirroring reference §5.2.
    #[derive(Default)]
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
        pub fn string(&mut self, s: &[u8]) {
            for &c in s {
                self.sym(c);
            }
            self.sym(0);
        }
    }

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
    fn overread_is_an_error() {
        let mut r = BitReader::new(&[0xff]);
        assert_eq!(r.raw(4), Ok(15));
        assert_eq!(r.bits(32), Err(Bad::Overread));
        assert_eq!(r.raw(1), Err(Bad::Overread));
    }
}
