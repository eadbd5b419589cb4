//! FNV-1a, 64 bits: a cheap, deterministic fingerprint of bytes or words, for telling one
//! datagram's content from another's (a replay is no new evidence) and a try's inputs from the
//! last one's. Not for security: anyone can make two inputs collide.

/// The FNV-1a 64 offset basis: the fingerprint of nothing.
const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const PRIME: u64 = 0x0000_0100_0000_01b3;

/// A fingerprint built piece by piece.
#[derive(Debug, Clone, Copy)]
pub struct Fnv(u64);

impl Default for Fnv {
    fn default() -> Self {
        Fnv(OFFSET)
    }
}

impl Fnv {
    /// Mixes in each byte.
    pub fn bytes(mut self, bytes: &[u8]) -> Fnv {
        for &b in bytes {
            self = self.word(u64::from(b));
        }
        self
    }

    /// Mixes in one value as one step (FNV-1a over words rather than bytes).
    pub fn word(self, v: u64) -> Fnv {
        Fnv((self.0 ^ v).wrapping_mul(PRIME))
    }

    pub fn finish(self) -> u64 {
        self.0
    }
}

/// FNV-1a 64 of `bytes`.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    Fnv::default().bytes(bytes).finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The published FNV-1a 64 test vectors.
    #[test]
    fn published_values() {
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a(b"foobar"), 0x8594_4171_f739_67e8);
    }
}
