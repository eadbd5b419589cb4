//! Building frames and capture files from scratch: for tests, fuzz seeds, and the generators of
//! hand-made captures for protocols whose programs cannot run here. Every builder writes exactly
//! the bytes the corresponding RFC or file-format specification describes.

use std::net::{IpAddr, SocketAddr};

/// One's-complement sum used by the IPv4 header and UDP checksums.
fn ones_complement(data: &[u8], mut sum: u32) -> u32 {
    let mut chunks = data.chunks_exact(2);
    for c in &mut chunks {
        sum += u16::from_be_bytes([c[0], c[1]]) as u32;
    }
    if let [last] = chunks.remainder() {
        sum += (*last as u32) << 8;
    }
    sum
}

fn fold(mut sum: u32) -> u16 {
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    !(sum as u16)
}

/// A UDP header plus payload, with the checksum over the pseudo-header of `src`/`dst`.
pub fn udp(src: SocketAddr, dst: SocketAddr, payload: &[u8]) -> Vec<u8> {
    let len = (8 + payload.len()) as u16;
    let mut seg = Vec::with_capacity(len as usize);
    seg.extend_from_slice(&src.port().to_be_bytes());
    seg.extend_from_slice(&dst.port().to_be_bytes());
    seg.extend_from_slice(&len.to_be_bytes());
    seg.extend_from_slice(&[0, 0]);
    seg.extend_from_slice(payload);
    let mut sum = 0u32;
    match (src.ip(), dst.ip()) {
        (IpAddr::V4(s), IpAddr::V4(d)) => {
            sum = ones_complement(&s.octets(), sum);
            sum = ones_complement(&d.octets(), sum);
            sum += 17 + len as u32;
        }
        (IpAddr::V6(s), IpAddr::V6(d)) => {
            sum = ones_complement(&s.octets(), sum);
            sum = ones_complement(&d.octets(), sum);
            sum += 17 + len as u32;
        }
        _ => panic!("mixed address families"),
    }
    let mut c = fold(ones_complement(&seg, sum));
    if c == 0 {
        c = 0xffff;
    }
    seg[6..8].copy_from_slice(&c.to_be_bytes());
    seg
}

/// An IPv4 header (no options) in front of `payload`.
pub fn ipv4(
    src: [u8; 4],
    dst: [u8; 4],
    protocol: u8,
    id: u16,
    frag_offset_8: u16,
    more: bool,
    payload: &[u8],
) -> Vec<u8> {
    let total = (20 + payload.len()) as u16;
    let flags_frag = frag_offset_8 | if more { 0x2000 } else { 0 };
    let mut h = vec![0x45, 0];
    h.extend_from_slice(&total.to_be_bytes());
    h.extend_from_slice(&id.to_be_bytes());
    h.extend_from_slice(&flags_frag.to_be_bytes());
    h.extend_from_slice(&[64, protocol, 0, 0]);
    h.extend_from_slice(&src);
    h.extend_from_slice(&dst);
    let c = fold(ones_complement(&h, 0));
    h[10..12].copy_from_slice(&c.to_be_bytes());
    h.extend_from_slice(payload);
    h
}

/// An IPv6 header in front of `payload` (next header given).
pub fn ipv6(src: [u8; 16], dst: [u8; 16], next: u8, payload: &[u8]) -> Vec<u8> {
    let mut h = vec![0x60, 0, 0, 0];
    h.extend_from_slice(&(payload.len() as u16).to_be_bytes());
    h.extend_from_slice(&[next, 64]);
    h.extend_from_slice(&src);
    h.extend_from_slice(&dst);
    h.extend_from_slice(payload);
    h
}

/// An IPv6 fragment extension header in front of a fragment of the upper layer.
pub fn ipv6_fragment(next: u8, offset_8: u16, more: bool, id: u32, payload: &[u8]) -> Vec<u8> {
    let mut h = vec![next, 0];
    h.extend_from_slice(&((offset_8 << 3) | more as u16).to_be_bytes());
    h.extend_from_slice(&id.to_be_bytes());
    h.extend_from_slice(payload);
    h
}

/// An IP packet carrying one UDP datagram, IPv4 or IPv6 by the addresses.
pub fn ip_udp(src: SocketAddr, dst: SocketAddr, payload: &[u8]) -> Vec<u8> {
    let seg = udp(src, dst, payload);
    match (src.ip(), dst.ip()) {
        (IpAddr::V4(s), IpAddr::V4(d)) => ipv4(s.octets(), d.octets(), 17, 0x1234, 0, false, &seg),
        (IpAddr::V6(s), IpAddr::V6(d)) => ipv6(s.octets(), d.octets(), 17, &seg),
        _ => panic!("mixed address families"),
    }
}

/// An Ethernet II frame (zero MACs except the locally administered bit) around an IP packet.
pub fn ethernet(ip: &[u8]) -> Vec<u8> {
    let ethertype: u16 = if ip.first().map(|b| b >> 4) == Some(6) {
        0x86dd
    } else {
        0x0800
    };
    let mut f = vec![2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1];
    f.extend_from_slice(&ethertype.to_be_bytes());
    f.extend_from_slice(ip);
    f
}

/// Ethernet + IP + UDP in one call.
pub fn eth_udp(src: SocketAddr, dst: SocketAddr, payload: &[u8]) -> Vec<u8> {
    ethernet(&ip_udp(src, dst, payload))
}

/// Link types used in tests (the LINKTYPE_ registry values).
pub mod linktype {
    pub const NULL: u32 = 0;
    pub const ETHERNET: u32 = 1;
    pub const RAW: u32 = 101;
    pub const LOOP: u32 = 108;
    pub const LINUX_SLL: u32 = 113;
    pub const IPV4: u32 = 228;
    pub const IPV6: u32 = 229;
    pub const LINUX_SLL2: u32 = 276;
}

/// A classic pcap file in memory.
#[derive(Debug, Clone)]
pub struct PcapWriter {
    pub bytes: Vec<u8>,
    big_endian: bool,
    nanos: bool,
}

impl PcapWriter {
    pub fn new(linktype: u32, big_endian: bool, nanos: bool, snaplen: u32) -> PcapWriter {
        let mut w = PcapWriter {
            bytes: Vec::new(),
            big_endian,
            nanos,
        };
        let magic: u32 = if nanos { 0xa1b2_3c4d } else { 0xa1b2_c3d4 };
        w.u32(magic);
        w.u16(2);
        w.u16(4);
        w.u32(0);
        w.u32(0);
        w.u32(snaplen);
        w.u32(linktype);
        w
    }

    fn u16(&mut self, v: u16) {
        let b = if self.big_endian {
            v.to_be_bytes()
        } else {
            v.to_le_bytes()
        };
        self.bytes.extend_from_slice(&b);
    }
    fn u32(&mut self, v: u32) {
        let b = if self.big_endian {
            v.to_be_bytes()
        } else {
            v.to_le_bytes()
        };
        self.bytes.extend_from_slice(&b);
    }

    /// Adds a record; `frac` is µs or ns by the file's resolution; `orig_len` ≥ data length.
    pub fn packet(&mut self, secs: u32, frac: u32, data: &[u8], orig_len: u32) -> &mut Self {
        self.u32(secs);
        self.u32(frac);
        self.u32(data.len() as u32);
        self.u32(orig_len.max(data.len() as u32));
        self.bytes.extend_from_slice(data);
        self
    }

    /// Adds a record at `ms` milliseconds after the epoch-based `base_secs`.
    pub fn packet_at_ms(&mut self, base_secs: u32, ms: u64, data: &[u8]) -> &mut Self {
        let secs = base_secs + (ms / 1000) as u32;
        let sub = (ms % 1000) as u32;
        let frac = if self.nanos {
            sub * 1_000_000
        } else {
            sub * 1000
        };
        self.packet(secs, frac, data, data.len() as u32)
    }
}

/// A pcapng file in memory (little-endian sections unless asked otherwise).
#[derive(Debug, Clone, Default)]
pub struct PcapNgWriter {
    pub bytes: Vec<u8>,
    big_endian: bool,
}

impl PcapNgWriter {
    pub fn new() -> PcapNgWriter {
        PcapNgWriter::default()
    }

    fn block(&mut self, kind: u32, body: &[u8]) {
        let padded = body.len().div_ceil(4) * 4;
        let total = (12 + padded) as u32;
        let be = self.big_endian;
        let w = |v: u32| if be { v.to_be_bytes() } else { v.to_le_bytes() };
        self.bytes.extend_from_slice(&w(kind));
        self.bytes.extend_from_slice(&w(total));
        self.bytes.extend_from_slice(body);
        self.bytes.resize(self.bytes.len() + padded - body.len(), 0);
        self.bytes.extend_from_slice(&w(total));
    }

    fn enc32(&self, v: u32) -> [u8; 4] {
        if self.big_endian {
            v.to_be_bytes()
        } else {
            v.to_le_bytes()
        }
    }
    fn enc16(&self, v: u16) -> [u8; 2] {
        if self.big_endian {
            v.to_be_bytes()
        } else {
            v.to_le_bytes()
        }
    }

    /// Starts a section (interfaces are numbered from 0 again).
    pub fn section(&mut self, big_endian: bool) -> &mut Self {
        self.big_endian = big_endian;
        let mut body = Vec::new();
        body.extend_from_slice(&self.enc32(0x1a2b_3c4d));
        body.extend_from_slice(&self.enc16(1));
        body.extend_from_slice(&self.enc16(0));
        body.extend_from_slice(&[0xff; 8]); // section length unknown
        self.block(0x0A0D_0D0A, &body);
        self
    }

    /// Describes an interface; `tsresol` is the raw if_tsresol option byte, if any.
    pub fn interface(&mut self, linktype: u16, tsresol: Option<u8>) -> &mut Self {
        let mut body = Vec::new();
        body.extend_from_slice(&self.enc16(linktype));
        body.extend_from_slice(&self.enc16(0));
        body.extend_from_slice(&self.enc32(262_144));
        if let Some(r) = tsresol {
            body.extend_from_slice(&self.enc16(9));
            body.extend_from_slice(&self.enc16(1));
            body.extend_from_slice(&[r, 0, 0, 0]);
            body.extend_from_slice(&self.enc16(0));
            body.extend_from_slice(&self.enc16(0));
        }
        self.block(1, &body);
        self
    }

    /// An interface description block with `if_tsresol` and `if_tsoffset` (seconds added to
    /// every timestamp, any i64: the hostile tests and fuzz seeds use both extremes).
    pub fn interface_offset(&mut self, linktype: u16, tsresol: u8, tsoffset: i64) -> &mut Self {
        let mut body = Vec::new();
        body.extend_from_slice(&self.enc16(linktype));
        body.extend_from_slice(&self.enc16(0));
        body.extend_from_slice(&self.enc32(262_144));
        body.extend_from_slice(&self.enc16(9));
        body.extend_from_slice(&self.enc16(1));
        body.extend_from_slice(&[tsresol, 0, 0, 0]);
        body.extend_from_slice(&self.enc16(14));
        body.extend_from_slice(&self.enc16(8));
        body.extend_from_slice(&if self.big_endian {
            tsoffset.to_be_bytes()
        } else {
            tsoffset.to_le_bytes()
        });
        body.extend_from_slice(&self.enc16(0));
        body.extend_from_slice(&self.enc16(0));
        self.block(1, &body);
        self
    }

    /// An enhanced packet block with a raw timestamp in the interface's units.
    pub fn packet(
        &mut self,
        interface: u32,
        ts_units: u64,
        data: &[u8],
        orig_len: u32,
    ) -> &mut Self {
        let mut body = Vec::new();
        body.extend_from_slice(&self.enc32(interface));
        body.extend_from_slice(&self.enc32((ts_units >> 32) as u32));
        body.extend_from_slice(&self.enc32(ts_units as u32));
        body.extend_from_slice(&self.enc32(data.len() as u32));
        body.extend_from_slice(&self.enc32(orig_len.max(data.len() as u32)));
        body.extend_from_slice(data);
        self.block(6, &body);
        self
    }

    /// A simple packet block (interface 0, no timestamp).
    pub fn simple_packet(&mut self, data: &[u8]) -> &mut Self {
        let mut body = Vec::new();
        body.extend_from_slice(&self.enc32(data.len() as u32));
        body.extend_from_slice(data);
        self.block(3, &body);
        self
    }

    /// A block the reader must skip (an interface statistics block).
    pub fn other_block(&mut self) -> &mut Self {
        let body = [0u8; 12];
        self.block(5, &body);
        self
    }
}

/// Splits arbitrary bytes into a flow history for fuzzing decoders: each datagram is a header
/// byte (bit 0: sent to the server), a little-endian u16 length (cut to what is left), and that
/// many payload bytes. At most 64 datagrams, so one input stays cheap.
pub fn flow_history(data: &[u8]) -> Vec<(bool, &[u8])> {
    let mut out = Vec::new();
    let mut rest = data;
    while rest.len() >= 3 && out.len() < 64 {
        let to_server = rest[0] & 1 == 1;
        let len = (u16::from_le_bytes([rest[1], rest[2]]) as usize).min(rest.len() - 3);
        out.push((to_server, &rest[3..3 + len]));
        rest = &rest[3 + len..];
    }
    out
}

/// Feeds a flow history to a fresh decoder of `protocol`, as the engine would, and returns how
/// many records it produced. Used by the fuzz targets and the decoders' property tests.
/// `detail`: field trees on every datagram (`Some(true)`), on none (`Some(false)`), or on two
/// datagrams in three (`None`, so that both paths run on one history).
pub fn drive_decoder(
    protocol: &dyn gamedissect::proto::Protocol,
    prefs: &gamedissect::proto::Prefs,
    history: &[(bool, &[u8])],
    detail: Option<bool>,
) -> usize {
    use gamedissect::proto::{Datagram, Direction, RoleSource};
    let client: SocketAddr = "10.0.0.1:40000".parse().expect("literal");
    let server: SocketAddr = "10.0.0.2:27960".parse().expect("literal");
    let mut flow = protocol.new_flow(prefs);
    let mut records = Vec::new();
    let mut total = 0;
    for (i, (to_server, payload)) in history.iter().enumerate() {
        let (src, dst, direction) = if *to_server {
            (client, server, Direction::ToServer)
        } else {
            (server, client, Direction::ToClient)
        };
        records.clear();
        flow.decode(
            &Datagram {
                payload,
                truncated: i % 7 == 6,
                direction,
                src,
                dst,
                time: gamedissect::capture::Timestamp::new(1_700_000_000 + i as i64, 0, 6),
                frame: i as u64 + 1,
                index_in_flow: i as u64,
                conversations: 1,
                overheard: Default::default(),
                role_source: RoleSource::Port,
                detail: detail.unwrap_or(i % 3 != 0).into(),
            },
            &mut records,
        );
        total += records.len();
    }
    let _ = flow.describe();
    total
}

/// Preference sets worth fuzzing every decoder under (releases, dialects, encodings).
pub fn pref_variants() -> Vec<gamedissect::proto::Prefs> {
    let mut v = vec![gamedissect::proto::Prefs::default()];
    for (k, val) in [
        ("srb2.version", "2.1.25"),
        ("srb2.version", "2.2.0"),
        ("srb2.version", "2.2.13"),
        ("gamestudio.dialect", "a5"),
        ("gamestudio.dialect", "a6"),
        ("gamestudio.pos", "packed"),
        ("gamestudio.pos", "fixed"),
    ] {
        let mut p = gamedissect::proto::Prefs::default();
        p.set(k, val);
        v.push(p);
    }
    v
}

/// xorshift64*: a small deterministic generator for property tests, so a failure reproduces
/// from its seed.
#[derive(Debug, Clone)]
pub struct Rng(pub u64);

impl Rng {
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A number below `n` (0 when `n` is 0).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n.max(1)
    }

    pub fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.next_u64() as u8).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flow_history_cuts_lengths_to_what_is_left() {
        let h = flow_history(&[1, 2, 0, b'a', b'b', 0, 9, 0, b'c']);
        assert_eq!(h, [(true, &b"ab"[..]), (false, &b"c"[..])]);
    }

    #[test]
    fn udp_checksum_verifies_to_zero() {
        let src: SocketAddr = "10.0.0.1:1".parse().unwrap();
        let dst: SocketAddr = "10.0.0.2:2".parse().unwrap();
        let seg = udp(src, dst, b"odd");
        let mut sum = ones_complement(&[10, 0, 0, 1, 10, 0, 0, 2], 0) + 17 + seg.len() as u32;
        sum = ones_complement(&seg, sum);
        assert_eq!(fold(sum), 0);
    }
}
