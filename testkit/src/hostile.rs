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

/// A non-delta Quake 3 snapshot listing entities 0 to `n - 1` unchanged from their baselines
/// (12 bits each: number, not removed, no delta; ioquake3 `MSG_ReadDeltaEntity`), which the
/// decoder renders from the baselines: a 1 KB datagram for 650 entities.
pub fn q3_baseline_snapshot(time: i64, n: u16) -> Vec<u8> {
    let mut w = crate::quake3::BitWriter::default();
    w.long(0);
    w.byte(7); // svc_snapshot
    w.long(time);
    w.byte(0); // not a delta
    w.byte(0); // flags
    w.byte(1);
    w.byte(0xff); // area mask
    w.byte(0); // player state: no fields
    w.bits(0, 1); // no arrays
    for num in 0..n.min(1022) {
        w.bits(num.into(), 10);
        w.bits(0, 1); // not removed
        w.bits(0, 1); // no delta: the baseline
    }
    w.bits(1023, 10);
    w.byte(8);
    w.data
}

/// One Quake 3 flow: a gamestate with 1,022 baselines, then `snapshots` server messages, the
/// one of sequence `seq` (from 2) being `message(seq)`.
pub fn q3_flow(snapshots: u32, message: impl Fn(u32) -> Vec<u8>) -> Vec<u8> {
    use crate::quake3;
    let server = SocketAddr::from(([10, 255, 0, 6], 27960));
    let client = SocketAddr::from(([10, 6, 0, 1], 27961));
    let mut w = PcapWriter::new(101, false, false, 65535);
    let mut push = |i: u32, p: &[u8]| {
        let ip = synth::ip_udp(server, client, p);
        w.packet(1_000 + i / 20, (i % 20) * 50_000, &ip, ip.len() as u32);
    };
    push(0, &quake3::challenge_response());
    push(1, &quake3::s2c(1, &quake3::gamestate(1_022)));
    for seq in 2..snapshots + 2 {
        push(seq, &quake3::s2c(seq, &message(seq)));
    }
    w.bytes
}

/// [`q3_flow`] of `snapshots` snapshots that each render 650 entities from their baselines
/// (the output amplification row).
pub fn q3_baseline_render(snapshots: u32) -> Vec<u8> {
    q3_flow(snapshots, |seq| q3_baseline_snapshot(seq.into(), 650))
}
