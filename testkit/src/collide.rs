//! Flow keys chosen to collide in an unseeded hash table: the attack a seeded hash defends
//! against. The hash attacked is the one the flow table used before it was seeded, rustc's
//! multiply-rotate FxHash (rustc-hash `FxHasher`, the 2019 word-at-a-time form), fed the way
//! `#[derive(Hash)]` feeds a pair of `SocketAddr`s.

use std::hash::{Hash, Hasher};
use std::net::SocketAddr;

const K: u64 = 0x517c_c1b7_2722_0a95;

/// The unseeded hash the flow table used: the same function for every run, so an attacker can
/// compute collisions offline.
#[derive(Default)]
pub struct FxHasher(u64);

impl FxHasher {
    fn add(&mut self, w: u64) {
        self.0 = (self.0.rotate_left(5) ^ w).wrapping_mul(K);
    }
}

impl Hasher for FxHasher {
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut w = [0u8; 8];
            w[..chunk.len()].copy_from_slice(chunk);
            self.add(u64::from_le_bytes(w));
        }
    }
    fn write_u8(&mut self, v: u8) {
        self.add(v.into())
    }
    fn write_u16(&mut self, v: u16) {
        self.add(v.into())
    }
    fn write_u32(&mut self, v: u32) {
        self.add(v.into())
    }
    fn write_u64(&mut self, v: u64) {
        self.add(v)
    }
    fn write_usize(&mut self, v: usize) {
        self.add(v as u64)
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

/// FxHash of a flow key (the lower endpoint first, as the flow table orders it).
pub fn fx_hash(a: SocketAddr, b: SocketAddr) -> u64 {
    let mut h = FxHasher::default();
    a.min(b).hash(&mut h);
    a.max(b).hash(&mut h);
    h.finish()
}

/// The low bits a hash table indexes its buckets by (hashbrown: `hash & bucket_mask`); 20 bits
/// cover tables of up to a million buckets.
pub const COLLIDING_BITS: u32 = 20;

/// `n` clients of `server` whose flow keys all share the low [`COLLIDING_BITS`] bits of their
/// FxHash, so that they all fall in one bucket chain. The client's port is the last word hashed
/// and the multiplier is odd, so the low bits of the hash are a bijection of the low bits of
/// the state before the multiply: the port is chosen to cancel the low 16 of them, and clients
/// whose remaining 4 bits do not match are skipped (1 in 16 is kept).
pub fn fx_colliding_clients(server: SocketAddr, n: usize) -> Vec<SocketAddr> {
    let mask = (1u64 << COLLIDING_BITS) - 1;
    let inverse = odd_inverse(K);
    let target = 0x5_a5a5u64 & mask;
    let mut out = Vec::with_capacity(n);
    for i in 0u32.. {
        if out.len() == n {
            break;
        }
        let ip = [
            11 + (i >> 24) as u8,
            (i >> 16) as u8,
            (i >> 8) as u8,
            i as u8,
        ];
        // The state before the last multiply, for port 0.
        let x0 = fx_hash(server, SocketAddr::from((ip, 0))).wrapping_mul(inverse) & mask;
        let port = (x0 ^ target) & mask;
        if port > 0xffff || port == 0 {
            continue;
        }
        out.push(SocketAddr::from((ip, port as u16)));
    }
    out
}

/// A capture of `flows` one-datagram Quake 3 flows (a `getinfo` to 10.255.0.1:27960) from
/// [`fx_colliding_clients`], one millisecond apart.
pub fn colliding_capture(flows: usize) -> Vec<u8> {
    use crate::synth::{self, PcapWriter};
    let server: SocketAddr = "10.255.0.1:27960".parse().expect("an address");
    let mut w = PcapWriter::new(101, false, false, 65535);
    for (i, client) in fx_colliding_clients(server, flows).into_iter().enumerate() {
        let ip = synth::ip_udp(client, server, b"\xff\xff\xff\xffgetinfo x");
        let i = i as u32;
        w.packet(1_000 + i / 1_000, i % 1_000, &ip, ip.len() as u32);
    }
    w.bytes
}

/// The inverse of an odd number modulo 2^64 (Newton's iteration doubles the correct bits).
fn odd_inverse(k: u64) -> u64 {
    let mut x = k;
    for _ in 0..6 {
        x = x.wrapping_mul(2u64.wrapping_sub(k.wrapping_mul(x)));
    }
    x
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_clients_collide_in_fxhash() {
        let server: SocketAddr = "10.255.0.1:27960".parse().unwrap();
        let clients = fx_colliding_clients(server, 2_000);
        let mask = (1u64 << COLLIDING_BITS) - 1;
        let first = fx_hash(server, clients[0]) & mask;
        assert!(clients.iter().all(|&c| fx_hash(server, c) & mask == first));
        let mut unique = clients.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), 2_000);
        assert_eq!(odd_inverse(K).wrapping_mul(K), 1);
    }
}
