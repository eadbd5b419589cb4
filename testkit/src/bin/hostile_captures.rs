//! `cargo run --release -p testkit --bin hostile_captures -- DIR`: writes the crafted captures
//! of `scripts/hostile-bench.sh` into DIR, one per attack the hostile suite covers.

use std::net::SocketAddr;
use std::path::PathBuf;

use testkit::quake3;
use testkit::synth::{self, PcapNgWriter, PcapWriter};

fn addr(net: u8, i: u32, port: u16) -> SocketAddr {
    SocketAddr::from(([10, net, (i >> 8) as u8, i as u8], port))
}

/// 2,000 delta snapshots in one flow whose entity records come out of order.
fn snapshots_out_of_order() -> Vec<u8> {
    let (server, client) = (addr(255, 1, 27960), addr(1, 1, 27961));
    let mut w = PcapWriter::new(101, false, false, 65535);
    let push = |w: &mut PcapWriter, i: u32, p: &[u8]| {
        let ip = synth::ip_udp(server, client, p);
        w.packet(1_000 + i / 20, (i % 20) * 50_000, &ip, ip.len() as u32);
    };
    push(&mut w, 0, &quake3::challenge_response());
    push(&mut w, 1, &quake3::s2c(1, &quake3::gamestate(1_022)));
    for seq in 2..2_002u32 {
        let delta = u8::from(seq > 2);
        let p = quake3::s2c(seq, &quake3::snapshot_descending(seq.into(), delta, 1_000));
        push(&mut w, seq, &p);
    }
    w.bytes
}

/// `flows` flows, each opened by `gamestate` (1,022 baselines).
fn gamestate_flood(flows: u32, gamestate: &[u8]) -> Vec<u8> {
    let gamestate = quake3::s2c(1, gamestate);
    let mut w = PcapWriter::new(101, false, false, 65535);
    for i in 0..flows {
        let (server, client) = (addr(255, 1, 27960), addr(1 + (i >> 16) as u8, i, 27961));
        for p in [quake3::challenge_response(), gamestate.clone()] {
            let ip = synth::ip_udp(server, client, &p);
            w.packet(1_000 + i / 1_000, i % 1_000, &ip, ip.len() as u32);
        }
    }
    w.bytes
}

/// 200,000 IPv4 first fragments, each of a new datagram.
fn first_fragments() -> Vec<u8> {
    let mut w = PcapWriter::new(101, false, false, 65535);
    for i in 0..200_000u32 {
        let ip = synth::ipv4(
            [10, 0, (i >> 16) as u8, (i >> 8) as u8],
            [10, 9, 9, i as u8],
            17,
            i as u16,
            0,
            true,
            &[0x55; 64],
        );
        w.packet(1_000 + i / 10_000, i % 10_000, &ip, ip.len() as u32);
    }
    w.bytes
}

/// 60,000 flows of one small datagram each.
fn many_flows() -> Vec<u8> {
    let mut w = PcapWriter::new(101, false, false, 65535);
    for i in 0..60_000u32 {
        let src = SocketAddr::from(([10, 2, (i >> 8) as u8, i as u8], 1_024 + (i >> 16) as u16));
        let ip = synth::ip_udp(src, addr(255, 1, 27960), b"\xff\xff\xff\xffgetinfo x");
        w.packet(1_000 + i / 1_000, i % 1_000, &ip, ip.len() as u32);
    }
    w.bytes
}

/// pcapng interfaces offset to both ends of time, datagrams and fragments interleaved.
fn time_extremes() -> Vec<u8> {
    let mut w = PcapNgWriter::new();
    w.section(false)
        .interface_offset(101, 6, i64::MIN)
        .interface_offset(101, 6, i64::MAX);
    for i in 0..100_000u32 {
        let ip = if i % 2 == 0 {
            synth::ip_udp(
                addr(0, 1, 27960),
                addr(0, 2, 27961),
                b"\xff\xff\xff\xffgetinfo x",
            )
        } else {
            synth::ipv4(
                [10, 0, 0, 3],
                [10, 0, 0, 4],
                17,
                i as u16,
                0,
                true,
                &[0; 16],
            )
        };
        w.packet((i / 2) % 2, u64::from(i) * 1_000, &ip, ip.len() as u32);
    }
    w.bytes
}

fn main() {
    let dir = PathBuf::from(std::env::args().nth(1).unwrap_or_else(|| "hostile".into()));
    std::fs::create_dir_all(&dir).expect("create the output directory");
    let flows: u32 = std::env::var("HOSTILE_FLOWS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(60_000);
    for (name, bytes) in [
        ("q3-snapshots-out-of-order", snapshots_out_of_order()),
        // Issue 14's size: 2.7 KB gamestates of 1,022 empty baselines (165 MB at 60,000 flows).
        (
            "q3-gamestate-flood",
            gamestate_flood(flows, &quake3::gamestate_empty(1_022)),
        ),
        // The same with a field in every baseline: 8.7 KB gamestates (524 MB).
        (
            "q3-gamestate-flood-8k",
            gamestate_flood(flows, &quake3::gamestate(1_022)),
        ),
        ("ip-first-fragments", first_fragments()),
        ("many-flows", many_flows()),
        (
            "colliding-keys",
            testkit::collide::colliding_capture(60_000),
        ),
        ("pcapng-time-extremes", time_extremes()),
        // 5,000 unclaimed flows of 8 DirectPlay 8 frames of 2 KB: every datagram probed.
        (
            "gamestudio-dp8-probing",
            testkit::hostile::dp8_probe_flood(5_000, 8),
        ),
        // 2,000 flows of 64 datagrams that fit every Gamestudio reading: 16 under all of them,
        // then settled.
        (
            "gamestudio-ambiguous",
            testkit::hostile::gamestudio_ambiguous(2_000, 64),
        ),
        // 2,000 SRB2 flows of 64 packets that name no release: 32 trial-decoded per flow.
        (
            "srb2-release-trial",
            testkit::hostile::srb2_trial(2_000, 64),
        ),
        // 20,000 snapshots of 1 KB that each render 650 entities from their baselines.
        (
            "q3-baseline-render",
            testkit::hostile::q3_baseline_render(20_000),
        ),
    ] {
        let path = dir.join(format!(
            "{name}.{}",
            if name.starts_with("pcapng") {
                "pcapng"
            } else {
                "pcap"
            }
        ));
        std::fs::write(&path, bytes).expect("write a capture");
        eprintln!("wrote {}", path.display());
    }
}
