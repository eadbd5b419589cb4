//! Writes `captures/udp-mixed.pcapng`: the plumbing's own golden capture. Nothing in it belongs to
//! a game protocol; it exercises what every decoder relies on. Two interfaces of different link
//! types (Ethernet, µs; Linux SLL2, ns), IPv4 and IPv6, a UDP datagram in two IPv4 fragments, a
//! snaplen-cut datagram, a lying UDP length, and TCP and ARP frames that are counted, not shown.
//!
//! `cargo run -p testkit --bin gen_captures` rewrites the file; tests/cli.rs checks it is up to
//! date.

use std::net::SocketAddr;

use crate::synth::{self, PcapNgWriter};

fn addr(s: &str) -> SocketAddr {
    s.parse().expect("valid address")
}

/// The capture's bytes.
pub fn build() -> Vec<u8> {
    let base_us: u64 = 1_763_751_600_000_000; // 2025-11-21T19:00:00Z in µs
    let base_ns: u64 = base_us * 1000;
    let mut w = PcapNgWriter::new();
    w.section(false)
        .interface(1, None) // Ethernet, default µs resolution
        .interface(276, Some(9)); // Linux SLL2, ns resolution

    // 1: plain IPv4 UDP on unregistered ports.
    let f = synth::eth_udp(
        addr("192.0.2.1:40000"),
        addr("192.0.2.2:40001"),
        b"hello, world",
    );
    w.packet(0, base_us, &f, f.len() as u32);
    // 2: the reply.
    let f = synth::eth_udp(
        addr("192.0.2.2:40001"),
        addr("192.0.2.1:40000"),
        b"hello yourself",
    );
    w.packet(0, base_us + 1_500, &f, f.len() as u32);
    // 3: IPv6 UDP on the SLL2 interface.
    let ip6 = synth::ip_udp(
        addr("[2001:db8::1]:41000"),
        addr("[2001:db8::2]:41001"),
        b"six",
    );
    let mut sll2 = vec![
        0x86, 0xdd, 0, 0, 0, 0, 0, 1, 0, 1, 4, 6, 2, 0, 0, 0, 0, 1, 0, 0,
    ];
    sll2.extend_from_slice(&ip6);
    w.packet(1, base_ns + 2_000_123, &sll2, sll2.len() as u32);
    // 4 + 5: a 1200-byte datagram in two fragments (the first carries 1000 bytes of the UDP segment).
    let payload: Vec<u8> = (0..1200u32).map(|i| b'a' + (i % 26) as u8).collect();
    let seg = synth::udp(addr("192.0.2.1:40002"), addr("192.0.2.2:40003"), &payload);
    let f1 = synth::ethernet(&synth::ipv4(
        [192, 0, 2, 1],
        [192, 0, 2, 2],
        17,
        0x0bad,
        0,
        true,
        &seg[..1000],
    ));
    let f2 = synth::ethernet(&synth::ipv4(
        [192, 0, 2, 1],
        [192, 0, 2, 2],
        17,
        0x0bad,
        125,
        false,
        &seg[1000..],
    ));
    w.packet(0, base_us + 3_000, &f1, f1.len() as u32);
    w.packet(0, base_us + 3_010, &f2, f2.len() as u32);
    // 6: a datagram the snaplen cut to 64 bytes of frame.
    let f = synth::eth_udp(
        addr("192.0.2.1:40004"),
        addr("192.0.2.2:40005"),
        &[b'x'; 100],
    );
    w.packet(0, base_us + 4_000, &f[..64], f.len() as u32);
    // 7: a UDP length that claims more than the IP packet carries.
    let mut f = synth::eth_udp(addr("192.0.2.1:40006"), addr("192.0.2.2:40007"), b"liar");
    f[14 + 20 + 4..14 + 20 + 6].copy_from_slice(&512u16.to_be_bytes());
    w.packet(0, base_us + 5_000, &f, f.len() as u32);
    // 8: TCP, counted only.
    let f = synth::ethernet(&synth::ipv4(
        [192, 0, 2, 1],
        [192, 0, 2, 2],
        6,
        7,
        0,
        false,
        &[0; 20],
    ));
    w.packet(0, base_us + 6_000, &f, f.len() as u32);
    // 9: ARP, counted only.
    let mut f = vec![0xff; 6];
    f.extend_from_slice(&[2, 0, 0, 0, 0, 1, 0x08, 0x06]);
    f.extend_from_slice(&[
        0, 1, 8, 0, 6, 4, 0, 1, 2, 0, 0, 0, 0, 1, 192, 0, 2, 1, 0, 0, 0, 0, 0, 0, 192, 0, 2, 2,
    ]);
    w.packet(0, base_us + 7_000, &f, f.len() as u32);
    w.bytes
}

/// Every capture this module writes: (file name under `captures/`, bytes).
pub fn all() -> Vec<(&'static str, Vec<u8>)> {
    vec![("udp-mixed.pcapng", build())]
}
