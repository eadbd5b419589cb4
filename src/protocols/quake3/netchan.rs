//! Netchan header, fragment reassembly and the ioquake3 checksum (ioquake3
//! code/qcommon/net_chan.c `Netchan_Process`, code/qcommon/qcommon.h `NETCHAN_GENCHECKSUM`), and
//! the legacy XOR keying (code/server/sv_net_chan.c `SV_Netchan_Decode`,
//! code/client/cl_net_chan.c `CL_Netchan_Decode`; always on in id 1.32).

pub use super::constants::{FRAGMENT_BIT, FRAGMENT_SIZE, MAX_MSGLEN};

/// Which netchan wire format a connection uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flavour {
    /// id 1.32 / protocol 68 and OpenArena 0.8.8 (71): XOR keying, no checksum.
    Legacy,
    /// ioquake3's own protocol (71+): a 32-bit checksum after the sequence/qport, no XOR.
    Ioq3,
}

impl Flavour {
    pub fn name(self) -> &'static str {
        match self {
            Flavour::Legacy => "legacy",
            Flavour::Ioq3 => "ioq3",
        }
    }
}

/// `challenge XOR (sequence × challenge)` in 32-bit wrapping arithmetic (`NETCHAN_GENCHECKSUM`).
pub fn checksum(challenge: i32, sequence: u32) -> u32 {
    let c = challenge as u32;
    c ^ (sequence & !FRAGMENT_BIT).wrapping_mul(c)
}

/// A parsed header.
#[derive(Debug, Clone, Copy, Default)]
pub struct Header {
    pub sequence: u32,
    pub fragmented: bool,
    pub qport: Option<u16>,
    pub checksum: Option<u32>,
    pub frag_start: u16,
    pub frag_len: u16,
    /// Bytes of header.
    pub len: usize,
}

fn le16(p: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_le_bytes([*p.get(at)?, *p.get(at + 1)?]))
}
pub fn le32(p: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes([
        *p.get(at)?,
        *p.get(at + 1)?,
        *p.get(at + 2)?,
        *p.get(at + 3)?,
    ]))
}

/// Parses the header; `None` when the datagram is too short for it.
pub fn parse_header(p: &[u8], to_server: bool, flavour: Flavour) -> Option<Header> {
    let raw = le32(p, 0)?;
    let mut h = Header {
        sequence: raw & !FRAGMENT_BIT,
        fragmented: raw & FRAGMENT_BIT != 0,
        len: 4,
        ..Header::default()
    };
    if to_server {
        h.qport = Some(le16(p, h.len)?);
        h.len += 2;
    }
    if flavour == Flavour::Ioq3 {
        h.checksum = Some(le32(p, h.len)?);
        h.len += 4;
    }
    if h.fragmented {
        h.frag_start = le16(p, h.len)?;
        h.frag_len = le16(p, h.len + 2)?;
        h.len += 4;
    }
    Some(h)
}

/// Reassembly buffer of one direction (bounded by MAX_MSGLEN).
#[derive(Debug, Default)]
pub struct Reassembly {
    pub sequence: Option<u32>,
    pub data: Vec<u8>,
}

/// What a fragment did to the buffer.
#[derive(Debug, PartialEq, Eq)]
pub enum FragResult {
    /// More fragments needed; (bytes collected so far).
    Partial(usize),
    /// The message is complete.
    Complete(Vec<u8>),
    /// The fragment did not continue the buffer (lost fragment): reason.
    Dropped(&'static str),
}

impl Reassembly {
    pub fn add(&mut self, sequence: u32, start: usize, data: &[u8]) -> FragResult {
        if self.sequence != Some(sequence) {
            self.sequence = Some(sequence);
            self.data.clear();
        }
        if start != self.data.len() {
            return FragResult::Dropped(
                "fragment does not continue the buffer (a fragment was lost)",
            );
        }
        if self.data.len() + data.len() > MAX_MSGLEN {
            self.data.clear();
            self.sequence = None;
            return FragResult::Dropped("reassembled message would exceed 16384 bytes");
        }
        self.data.extend_from_slice(data);
        if data.len() == FRAGMENT_SIZE {
            FragResult::Partial(self.data.len())
        } else {
            self.sequence = None;
            FragResult::Complete(std::mem::take(&mut self.data))
        }
    }
}

/// The XOR transform shared by `SV_Netchan_Decode` and `CL_Netchan_Decode` over `body` (payload index 0 = `body[0]`), from `start`.
pub fn xor(body: &mut [u8], start: usize, mut key: u8, string: &[u8]) {
    // ioquake3 goes back to index 0 whenever the next byte is a NUL or past the end, and index
    // 0 is used even when it is the NUL: the string is used as this cycle, over and over. An
    // empty string adds nothing to the key.
    let end = string
        .iter()
        .skip(1)
        .position(|&c| c == 0)
        .map_or(string.len(), |p| p + 1);
    let cycle = &string[..end];
    let Some(rest) = body.get_mut(start..) else {
        return;
    };
    if cycle.is_empty() {
        rest.iter_mut().for_each(|b| *b ^= key);
        return;
    }
    // One chunk per turn of the cycle, zipped, so the loop has no index checks.
    let mut i = start;
    for chunk in rest.chunks_mut(cycle.len()) {
        for (b, &c) in chunk.iter_mut().zip(cycle) {
            let c = if c > 127 || c == b'%' { b'.' } else { c };
            key ^= ((c as u32) << (i & 1)) as u8;
            *b ^= key;
            i += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::bits::tests::hex;
    use super::*;

    /// `SV_Netchan_Decode`'s loop as ioquake3 writes it (index reset at the NUL or the end),
    /// against the cycled form `xor` uses.
    fn xor_as_written(body: &mut [u8], start: usize, mut key: u8, string: &[u8]) {
        let mut j = 0usize;
        for (i, b) in body.iter_mut().enumerate().skip(start) {
            if j >= string.len() || string[j] == 0 {
                j = 0;
            }
            let mut c = string.get(j).copied().unwrap_or(0);
            if c > 127 || c == b'%' {
                c = b'.';
            }
            key ^= ((c as u32) << (i & 1)) as u8;
            j += 1;
            *b ^= key;
        }
    }

    #[test]
    fn xor_cycles_the_string_as_ioquake3_does() {
        let strings: [&[u8]; 7] = [
            b"",
            b"\0",
            b"\0abc",
            b"a",
            b"cs 20 \"100%\"\xe9\0tail",
            b"print \"hello\"\n",
            &[0x80, b'%', 0xff, b'x', 0x7f],
        ];
        let body: Vec<u8> = (0..=255u8).cycle().take(300).collect();
        let mut checked = 0;
        for string in strings {
            for start in [0, 1, 4, 12, 299, 300, 301] {
                for key in [0u8, 0x82, 0xff] {
                    let (mut a, mut b) = (body.clone(), body.clone());
                    xor(&mut a, start, key, string);
                    xor_as_written(&mut b, start, key, string);
                    assert_eq!(a, b, "string {string:?}, start {start}, key {key}");
                    checked += 1;
                }
            }
        }
        assert_eq!(checked, 147);
    }

    #[test]
    fn checksum_vectors() {
        assert_eq!(checksum(1234567, 5), 0x004C_E624);
        assert_eq!(checksum(1234567, 7), 0x0091_0B36);
        assert_eq!(checksum(-99, 1), 0);
    }

    #[test]
    fn tv3_legacy_server_to_client() {
        let dg = hex("050000006c3562ab74746206bb33cc1bb051682344f3");
        let h = parse_header(&dg, false, Flavour::Legacy).unwrap();
        assert_eq!((h.sequence, h.len, h.fragmented), (5, 4, false));
        let mut body = dg[4..].to_vec();
        let key = (1234567u32 ^ 5) as u8;
        assert_eq!(key, 0x82);
        xor(&mut body, 4, key, b"say hello");
        assert_eq!(body, hex("6c3562ab8547280cd99b0807c3c49c256205"));
    }

    #[test]
    fn tv6_legacy_client_to_server() {
        let dg = hex("070000003412cf996ce7676ba88a44a218b00cccab65e0001579447ed2c4eeda149fd4758e");
        let h = parse_header(&dg, true, Flavour::Legacy).unwrap();
        assert_eq!((h.sequence, h.qport, h.len), (7, Some(0x1234), 6));
        let mut body = dg[6..].to_vec();
        let key = (1234567u32 ^ 123456 ^ 789) as u8;
        assert_eq!(key, 0xD2);
        xor(&mut body, 12, key, b"cs 20 \"some text\"");
        assert_eq!(
            body,
            hex("cf996ce7676ba88a44a218b0bd9bdc76c36354de8c6ca5f3ad53e586ef8800")
        );
    }

    #[test]
    fn tv4_tv7_ioq3_headers() {
        let dg = hex("0500000024e64c006c3562ab8547280cd99b0807c3c49c256205");
        let h = parse_header(&dg, false, Flavour::Ioq3).unwrap();
        assert_eq!((h.sequence, h.checksum, h.len), (5, Some(0x004CE624), 8));
        let dg = hex(
            "070000003412360b9100cf996ce7676ba88a44a218b0bd9bdc76c36354de8c6ca5f3ad53e586ef8800",
        );
        let h = parse_header(&dg, true, Flavour::Ioq3).unwrap();
        assert_eq!(
            (h.qport, h.checksum, h.len),
            (Some(0x1234), Some(0x00910B36), 10)
        );
    }

    #[test]
    fn reassembly_rules() {
        let mut r = Reassembly::default();
        let a = vec![1u8; FRAGMENT_SIZE];
        assert_eq!(r.add(9, 0, &a), FragResult::Partial(1300));
        assert!(matches!(r.add(9, 5, &[1]), FragResult::Dropped(_)));
        let mut r = Reassembly::default();
        r.add(9, 0, &a);
        match r.add(9, 1300, &[2, 3]) {
            FragResult::Complete(v) => assert_eq!(v.len(), 1302),
            other => panic!("{other:?}"),
        }
        for k in 0..13 {
            let _ = r.add(10, k * FRAGMENT_SIZE, &a);
        }
        assert!(matches!(
            r.add(10, 13 * FRAGMENT_SIZE, &a),
            FragResult::Dropped(_)
        ));
    }
}
