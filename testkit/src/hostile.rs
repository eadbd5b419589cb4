//! Crafted captures against the heuristics (probes, dialect and release trials), shared by
//! `tests/hostile.rs` and `scripts/hostile-bench.sh` (through the `hostile_captures` binary).

use std::net::SocketAddr;

use crate::captures::srb2;
use crate::synth::{self, PcapWriter};

/// A Gamestudio CLS_JOIN "Alice" (`02`, the name, a NUL): a client message in A5 and A6+ alike.
pub const JOIN_ALICE: [u8; 7] = [0x02, b'A', b'l', b'i', b'c', b'e', 0];

/// `n` CLS_JOIN messages back to back.
pub fn joins(n: usize) -> Vec<u8> {
    JOIN_ALICE.repeat(n)
}

/// A complete DirectPlay 8 data frame (DATA, NEW_MSG and END_MSG set, [MC-DPL8R] 2.2.1.1)
/// carrying `payload`.
pub fn dp8_data_frame(seq: u8, payload: &[u8]) -> Vec<u8> {
    let mut f = vec![0x31, 0x00, seq, 0x00];
    f.extend_from_slice(payload);
    f
}

/// 2 KB of Gamestudio-looking bytes that never parse whole: 291 CLS_JOINs, then a byte that
/// is no command in any dialect or direction.
pub fn almost_gamestudio() -> Vec<u8> {
    let mut p = joins(291);
    p.push(0xff);
    p
}

/// `flows` flows off every registered port, each of `per_flow` DirectPlay 8 data frames of
/// [`almost_gamestudio`] bytes (2,048-byte datagrams): every datagram goes to the probes until
/// the flow settles as plain UDP.
pub fn dp8_probe_flood(flows: u32, per_flow: u32) -> Vec<u8> {
    let payload = almost_gamestudio();
    let server = SocketAddr::from(([10, 255, 0, 3], 41_000));
    let mut w = PcapWriter::new(101, false, false, 65535);
    for i in 0..flows {
        let client = SocketAddr::from(([10, 3, (i >> 8) as u8, i as u8], 40_001));
        for k in 0..per_flow {
            let ip = synth::ip_udp(client, server, &dp8_data_frame(k as u8, &payload));
            w.packet(1_000 + i / 100, (i % 100) * 1_000 + k, &ip, ip.len() as u32);
        }
    }
    w.bytes
}

/// `flows` Gamestudio flows on the game port, each of `per_flow` raw datagrams of 20 CLS_JOINs:
/// every datagram fits A5 and A6+, packed and Fixed, so nothing decides the flow's dialect.
pub fn gamestudio_ambiguous(flows: u32, per_flow: u32) -> Vec<u8> {
    let payload = joins(20);
    let server = SocketAddr::from(([10, 255, 0, 4], 2300));
    let mut w = PcapWriter::new(101, false, false, 65535);
    for i in 0..flows {
        let client = SocketAddr::from(([10, 4, (i >> 8) as u8, i as u8], 2301));
        for k in 0..per_flow {
            let ip = synth::ip_udp(client, server, &payload);
            w.packet(1_000 + i / 100, (i % 100) * 1_000 + k, &ip, ip.len() as u32);
        }
    }
    w.bytes
}

/// A checksum-valid SRB2 PT_CLIENTCMD (type 2, the same in every release) that names no
/// release: client_tic, resendfrom, consistancy, then a ticcmd-sized body.
pub fn srb2_clientcmd(tic: u8) -> Vec<u8> {
    let mut body = vec![tic, tic, 0x34, 0x12];
    body.extend_from_slice(&[1, 0, 0x00, 0x40, 0, 0, 0, 0, 5, 0, 0, 0]);
    srb2::packet(0, 0, 2, &body)
}

/// `flows` SRB2 flows mid-session on port 5029, each of `per_flow` PT_CLIENTCMDs: nothing
/// names the release, so each flow trial-decodes its packets under every candidate release.
pub fn srb2_trial(flows: u32, per_flow: u32) -> Vec<u8> {
    let server = SocketAddr::from(([10, 255, 0, 5], 5029));
    let mut w = PcapWriter::new(101, false, false, 65535);
    for i in 0..flows {
        let client = SocketAddr::from(([10, 5, (i >> 8) as u8, i as u8], 5030));
        for k in 0..per_flow {
            let ip = synth::ip_udp(client, server, &srb2_clientcmd(k as u8));
            w.packet(1_000 + i / 100, (i % 100) * 1_000 + k, &ip, ip.len() as u32);
        }
    }
    w.bytes
}
