//! Stray datagrams injected into a shipped capture (`tests/injection.rs`): random bytes, a
//! genuine payload with bits flipped, a truncated copy, a replay of an older genuine datagram
//! and a header-valid forgery per protocol, each wrapped in the link/IP/UDP headers of a
//! genuine datagram of the flow (and direction) it is slipped into, right after that datagram.
//!
//! Only classic little-endian pcap files over Ethernet are read (every shipped `.pcap`).

use std::collections::BTreeMap;

use crate::synth::Rng;

/// One frame of a capture: its pcap record header and bytes, and where its UDP payload is.
#[derive(Debug, Clone)]
pub struct Frame {
    pub header: [u8; 16],
    pub data: Vec<u8>,
    /// Offset of the IP header, of the UDP payload, and the payload's length (None: not a
    /// whole UDP datagram).
    pub udp: Option<(usize, usize, usize)>,
    /// Source and destination address and port bytes: the flow and direction.
    pub key: Vec<u8>,
}

/// The kinds of stray datagram.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Random,
    BitFlip,
    Truncated,
    Replay,
    Forgery,
}

impl Kind {
    pub const ALL: [Kind; 5] = [
        Kind::Random,
        Kind::BitFlip,
        Kind::Truncated,
        Kind::Replay,
        Kind::Forgery,
    ];
}

/// The 24-byte file header and the frames of a classic pcap file.
pub fn read_pcap(bytes: &[u8]) -> ([u8; 24], Vec<Frame>) {
    let head: [u8; 24] = bytes[..24].try_into().expect("a pcap header");
    assert_eq!(&head[..4], &[0xd4, 0xc3, 0xb2, 0xa1], "little-endian pcap");
    assert_eq!(u32::from_le_bytes(head[20..24].try_into().unwrap()), 1);
    let mut frames = Vec::new();
    let mut at = 24;
    while at + 16 <= bytes.len() {
        let header: [u8; 16] = bytes[at..at + 16].try_into().unwrap();
        let cap = u32::from_le_bytes(header[8..12].try_into().unwrap()) as usize;
        let data = bytes[at + 16..at + 16 + cap].to_vec();
        at += 16 + cap;
        let (udp, key) = locate_udp(&data).unwrap_or((None, Vec::new()));
        frames.push(Frame {
            header,
            data,
            udp,
            key,
        });
    }
    (head, frames)
}

/// IP offset, payload offset and length, and the flow key of a whole UDP datagram in an
/// Ethernet frame.
#[allow(clippy::type_complexity)]
fn locate_udp(d: &[u8]) -> Option<(Option<(usize, usize, usize)>, Vec<u8>)> {
    let mut ip = 14;
    let mut ethertype = u16::from_be_bytes(d.get(12..14)?.try_into().ok()?);
    while ethertype == 0x8100 {
        ethertype = u16::from_be_bytes(d.get(ip + 2..ip + 4)?.try_into().ok()?);
        ip += 4;
    }
    let (udp, addrs) = match ethertype {
        0x0800 => {
            let ihl = (d.get(ip)? & 0x0f) as usize * 4;
            let frag = u16::from_be_bytes(d.get(ip + 6..ip + 8)?.try_into().ok()?);
            if d[ip + 9] != 17 || frag & 0x3fff != 0 {
                return None;
            }
            (ip + ihl, d.get(ip + 12..ip + 20)?.to_vec())
        }
        0x86dd if *d.get(ip + 6)? == 17 => (ip + 40, d.get(ip + 8..ip + 40)?.to_vec()),
        _ => return None,
    };
    let len = u16::from_be_bytes(d.get(udp + 4..udp + 6)?.try_into().ok()?) as usize;
    let payload = len.checked_sub(8)?;
    if udp + 8 + payload > d.len() {
        return None;
    }
    let mut key = addrs;
    key.extend_from_slice(&d[udp..udp + 4]);
    Some((Some((ip, udp + 8, payload)), key))
}

impl Frame {
    /// The UDP payload, when the frame holds a whole UDP datagram.
    pub fn payload(&self) -> Option<&[u8]> {
        let (_, at, len) = self.udp?;
        Some(&self.data[at..at + len])
    }

    /// A copy of this frame's link/IP/UDP headers around another payload (lengths fixed, the
    /// IPv4 header checksum recomputed, the UDP checksum left out).
    pub fn with_payload(&self, payload: &[u8]) -> Frame {
        let (ip, at, _) = self.udp.expect("a UDP frame");
        let mut data = self.data[..at].to_vec();
        data.extend_from_slice(payload);
        let udp_len = (payload.len() + 8) as u16;
        data[at - 4..at - 2].copy_from_slice(&udp_len.to_be_bytes());
        data[at - 2..at].copy_from_slice(&[0, 0]);
        if data[ip] >> 4 == 4 {
            let total = (data.len() - ip) as u16;
            data[ip + 2..ip + 4].copy_from_slice(&total.to_be_bytes());
            let ihl = (data[ip] & 0x0f) as usize * 4;
            data[ip + 10..ip + 12].copy_from_slice(&[0, 0]);
            let sum = ipv4_checksum(&data[ip..ip + ihl]);
            data[ip + 10..ip + 12].copy_from_slice(&sum.to_be_bytes());
        } else {
            let plen = (data.len() - ip - 40) as u16;
            data[ip + 4..ip + 6].copy_from_slice(&plen.to_be_bytes());
        }
        let mut header = self.header;
        let n = (data.len() as u32).to_le_bytes();
        header[8..12].copy_from_slice(&n);
        header[12..16].copy_from_slice(&n);
        Frame {
            header,
            data,
            udp: Some((ip, at, payload.len())),
            key: self.key.clone(),
        }
    }
}

fn ipv4_checksum(h: &[u8]) -> u16 {
    let mut sum: u32 = h
        .chunks(2)
        .map(|c| u16::from_be_bytes([c[0], *c.get(1).unwrap_or(&0)]) as u32)
        .sum();
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    !(sum as u16)
}

/// The pcap file of `head` and `frames`.
pub fn write_pcap(head: &[u8; 24], frames: &[Frame]) -> Vec<u8> {
    let mut out = head.to_vec();
    for f in frames {
        out.extend_from_slice(&f.header);
        out.extend_from_slice(&f.data);
    }
    out
}

/// `capture` (its bytes, named `name` for the protocol of the forgery) with `count` strays of
/// `kind`, each right after a genuine datagram of a different flow direction in turn (the
/// busiest first, those of one datagram only when no other has more), spread over the
/// capture. Returns the new file and, per frame of it, whether it is genuine.
pub fn inject(
    bytes: &[u8],
    name: &str,
    kind: Kind,
    count: usize,
    seed: u64,
) -> (Vec<u8>, Vec<bool>) {
    let (head, frames) = read_pcap(bytes);
    let mut rng = Rng(seed);
    let mut keys: BTreeMap<Vec<u8>, Vec<usize>> = BTreeMap::new();
    for (i, f) in frames.iter().enumerate() {
        if f.payload().is_some_and(|p| !p.is_empty()) {
            keys.entry(f.key.clone()).or_default().push(i);
        }
    }
    // The busiest directions first, and only those with more than one datagram while there
    // are any: a capture's one-datagram query flows would otherwise take the strays meant for
    // its game traffic (a Quake 3 capture has some twenty of them).
    let mut directions: Vec<&Vec<usize>> = keys.values().collect();
    directions.sort_by_key(|d| std::cmp::Reverse(d.len()));
    if directions.iter().any(|d| d.len() > 1) {
        directions.retain(|d| d.len() > 1);
    }
    let mut after: BTreeMap<usize, Vec<Frame>> = BTreeMap::new();
    for k in 0..count {
        if directions.is_empty() {
            break;
        }
        let list = directions[k % directions.len()];
        // Spread: the k-th stray goes after a datagram at (k+1)/(count+1) of the direction.
        let at = list[(list.len() * (k + 1) / (count + 1)).min(list.len() - 1)];
        let template = &frames[at];
        let genuine = template.payload().unwrap();
        let older = frames[list[0]].payload().unwrap();
        let payload = stray(kind, name, genuine, older, &mut rng);
        after
            .entry(at)
            .or_default()
            .push(template.with_payload(&payload));
    }
    let mut out = Vec::new();
    let mut genuine = Vec::new();
    for (i, f) in frames.into_iter().enumerate() {
        out.push(f);
        genuine.push(true);
        for s in after.remove(&i).unwrap_or_default() {
            out.push(s);
            genuine.push(false);
        }
    }
    (write_pcap(&head, &out), genuine)
}

/// The payload of one stray.
fn stray(kind: Kind, name: &str, genuine: &[u8], older: &[u8], rng: &mut Rng) -> Vec<u8> {
    match kind {
        Kind::Random => {
            let n = 1 + rng.below(genuine.len().max(8) as u64) as usize;
            rng.bytes(n)
        }
        Kind::BitFlip => {
            let mut p = genuine.to_vec();
            for _ in 0..3 {
                let bit = rng.below(p.len() as u64 * 8) as usize;
                p[bit / 8] ^= 1 << (bit % 8);
            }
            p
        }
        Kind::Truncated => genuine[..genuine.len() / 2].to_vec(),
        Kind::Replay => older.to_vec(),
        Kind::Forgery => forgery(name, genuine, rng),
    }
}

/// A datagram whose header passes the protocol's checks but says something absurd.
fn forgery(name: &str, genuine: &[u8], rng: &mut Rng) -> Vec<u8> {
    if name.starts_with("srb2") {
        // A valid checksum and packet type 250, which no release has.
        let mut p = genuine.to_vec();
        p.resize(p.len().max(8), 0);
        p[6] = 250;
        let sum = srb2_checksum(&p);
        p[..4].copy_from_slice(&sum.to_le_bytes());
        return p;
    }
    if name.starts_with("flightgear") {
        // Valid magic and version; an absurd MsgLen or an unknown message id.
        let mut p = genuine.to_vec();
        if p.len() >= 16 {
            if rng.below(2) == 0 {
                p[12..16].copy_from_slice(&0xfff0_u32.to_be_bytes());
            } else {
                p[8..12].copy_from_slice(&999_u32.to_be_bytes());
            }
        }
        return p;
    }
    if name.starts_with("quake3") {
        // Mid-connection: a connectResponse nobody asked for, or the genuine sequenced datagram
        // 5,000 sequences ahead (header-valid in the legacy netchan; in ioquake3's the checksum
        // no longer matches the sequence, as a forger without the challenge would send it).
        if genuine.starts_with(&[0xff; 4]) {
            return b"\xff\xff\xff\xffconnectResponse 12345".to_vec();
        }
        let mut p = genuine.to_vec();
        if p.len() >= 4 {
            let word = u32::from_le_bytes(p[..4].try_into().unwrap());
            let seq = (word & 0x7fff_ffff).wrapping_add(5000) & 0x7fff_ffff;
            p[..4].copy_from_slice(&((word & 0x8000_0000) | seq).to_le_bytes());
        }
        return p;
    }
    // GameStudio: a DirectPlay 8 data frame with a sequence number far from the flow's, or
    // (raw and DirectPlay 4) an A5 svc_info with its sync constant, which A6+ reads otherwise.
    if name.contains("dplay8") && genuine.len() >= 4 && genuine[0] & 0x01 == 0x01 {
        let mut p = genuine.to_vec();
        p[2] = p[2].wrapping_add(100);
        return p;
    }
    let mut p = vec![0x01];
    p.extend_from_slice(&0x1119_1218_u32.to_le_bytes());
    p.extend_from_slice(&rng.bytes(6));
    p
}

/// SRB2's `NetbufferChecksum` (STJr/SRB2 `src/d_net.c`): 0x01234567 plus every byte from
/// offset 4 times its 1-based position.
pub fn srb2_checksum(p: &[u8]) -> u32 {
    let mut sum: u32 = 0x0123_4567;
    for (i, &b) in p.iter().skip(4).enumerate() {
        sum = sum.wrapping_add((b as u32).wrapping_mul(i as u32 + 1));
    }
    sum
}
