//! A Quake 3 session cut mid-way is recognised on any port by the weight of its first
//! datagrams (docs/protocols/quake3.md, "Mid-session on any port"): a shipped session moved
//! from port 27960 to 27980 and cut in the middle decodes as it does on 27960, from its first
//! datagram; datagrams with rising counters but not the netchan's shape stay plain UDP, each
//! record as it was.

use std::net::SocketAddr;
use std::path::Path;

use gamedissect::engine::{Engine, FlowStats};
use gamedissect::run::run_capture;
use testkit::dissect::{config_for, each_record};
use testkit::inject::{Frame, read_pcap, write_pcap};
use testkit::synth::{PcapWriter, Rng, eth_udp};

const SESSION: &str = "captures/corpus/q3-proto68-01.pcap";

/// The session from frame `from` on, its port 27960 made `port` (the UDP checksum left out).
fn cut_on_port(from: usize, port: u16) -> Vec<u8> {
    cut_on_port_without(from, port, |_, _| false)
}

/// [`cut_on_port`] without the frames `drop` names (by index in the cut, before the move).
fn cut_on_port_without(from: usize, port: u16, drop: impl Fn(usize, &Frame) -> bool) -> Vec<u8> {
    let bytes = std::fs::read(SESSION).unwrap();
    let (head, frames) = read_pcap(&bytes);
    let mut kept: Vec<Frame> = (frames[from..].iter().enumerate())
        .filter(|&(k, f)| !drop(k, f))
        .map(|(_, f)| f.clone())
        .collect();
    for f in &mut kept {
        let (_, at, _) = f.udp.expect("every frame is UDP");
        let udp = at - 8;
        for k in [udp, udp + 2] {
            if f.data[k..k + 2] == 27960u16.to_be_bytes() {
                f.data[k..k + 2].copy_from_slice(&port.to_be_bytes());
            }
        }
        f.data[udp + 6..udp + 8].copy_from_slice(&[0, 0]);
    }
    write_pcap(&head, &kept)
}

/// Each record's frame, protocol, type and summary.
fn records(bytes: &[u8]) -> Vec<(u64, String, String, String)> {
    let mut out = Vec::new();
    each_record(bytes, config_for(Path::new("x.pcap")), |m, r| {
        out.push((
            m.frame,
            r.protocol.to_string(),
            r.msg_type.to_string(),
            r.summary.clone(),
        ));
    });
    out
}

/// The flows `stats` lists.
fn flows(bytes: &[u8]) -> Vec<FlowStats> {
    let mut engine = Engine::new(
        gamedissect::protocols::all(),
        config_for(Path::new("x.pcap")),
    );
    run_capture(bytes, &mut engine, None, &mut |_| {}, &mut |_, _| Ok(()));
    engine.finish();
    engine.stats().flows.clone()
}

#[test]
fn a_session_cut_midway_on_port_27980_decodes_as_on_27960() {
    let on_27960 = records(&cut_on_port(1500, 27960));
    let on_27980 = records(&cut_on_port(1500, 27980));
    assert_eq!(on_27980.len(), on_27960.len());
    assert_eq!(on_27980, on_27960);
    // Nothing before the claim was lost: the first datagrams are decoded too.
    assert_eq!(on_27980[0].1, "quake3");
    let game = on_27980.iter().filter(|r| r.2 == "snapshot").count();
    assert_eq!(game, 733);
    let flows = flows(&cut_on_port(1500, 27980));
    let f = &flows[0];
    assert_eq!((f.protocol, f.chosen_by), ("quake3", "content (series)"));
    assert_eq!(f.server.port(), 27980);
    assert_eq!(f.roles_from, "content");
    let basis = &f.facts["decoder"];
    assert!(basis.starts_with("quake3 netchan over "), "{basis}");
    assert!(
        basis.contains("acknowledge the server's sequence"),
        "{basis}"
    );
}

/// A capture opening on a burst from the server: the client's first datagram comes after the
/// flow's 8th, when the flow has settled as plain UDP; the judge, still weighing, claims it
/// then, and every datagram held is decoded, none with the settled note.
#[test]
fn a_session_opening_on_a_server_burst_is_claimed_after_its_probes() {
    // The client's datagrams among the cut's first 24 frames (to port 27960).
    let to_server = |k: usize, f: &Frame| {
        let (_, at, _) = f.udp.unwrap();
        k < 24 && f.data[at - 6..at - 4] == 27960u16.to_be_bytes()
    };
    let bytes = cut_on_port_without(1500, 27980, to_server);
    let mut first = Vec::new();
    each_record(&bytes, config_for(Path::new("x.pcap")), |m, r| {
        assert_eq!(r.protocol, "quake3", "frame {}: {}", m.frame, r.summary);
        let settled = r
            .notes
            .iter()
            .any(|n| n.def.name == "expert.probing_settled");
        assert!(!settled, "frame {}", m.frame);
        if first.len() < 12 {
            first.push(r.msg_type.to_string());
        }
    });
    // The server's burst: its first datagram read only for its sequence (the netchan flavour is
    // not known yet), then snapshots.
    assert_eq!(first[0], "netchan");
    assert_eq!(first[1..], vec!["snapshot"; 11]);
    let f = &flows(&bytes)[0];
    assert_eq!((f.protocol, f.chosen_by), ("quake3", "content (series)"));
    // Sixteen datagrams: the claim came after the 8th, when the flow had settled.
    assert_eq!(
        f.facts["decoder"],
        "quake3 netchan over 16 datagrams: the client's sequences rise 718..720 under qport 4321, 3 of its messages acknowledge the server's sequence (up to 778)"
    );
}

/// On its registered port the session is chosen by the likely probe, as it always was.
#[test]
fn on_27960_the_likely_probe_still_chooses() {
    let flows = flows(&cut_on_port(1500, 27960));
    assert_eq!(flows[0].chosen_by, "content (likely)");
    assert!(!flows[0].facts.contains_key("decoder"));
}

const A: &str = "10.0.0.1:40000";
const B: &str = "10.0.0.2:51234";

/// `n` datagrams each way between [`A`] and [`B`], alternating, made by `make(from_b, k)`.
fn exchange(n: u32, mut make: impl FnMut(bool, u32) -> Vec<u8>) -> Vec<u8> {
    let (a, b): (SocketAddr, SocketAddr) = (A.parse().unwrap(), B.parse().unwrap());
    let mut w = PcapWriter::new(1, false, false, 65535);
    for k in 0..2 * n {
        let from_b = k % 2 == 1;
        let (src, dst) = if from_b { (b, a) } else { (a, b) };
        w.packet_at_ms(
            1_700_000_000,
            k as u64 * 10,
            &eth_udp(src, dst, &make(from_b, k / 2)),
        );
    }
    w.bytes
}

/// Every record plain UDP, one per datagram in frame order, the eighth settling the flow.
fn assert_plain(bytes: &[u8], datagrams: u64) {
    let mut frames = Vec::new();
    each_record(bytes, config_for(Path::new("x.pcap")), |m, r| {
        assert_eq!(r.protocol, "udp", "frame {}: {}", m.frame, r.summary);
        let settled = r
            .notes
            .iter()
            .any(|n| n.def.name == "expert.probing_settled");
        assert_eq!(settled, m.frame == 8, "frame {}", m.frame);
        frames.push(m.frame);
    });
    assert_eq!(frames, (1..=datagrams).collect::<Vec<_>>());
    let flows = flows(bytes);
    assert_eq!((flows[0].protocol, flows[0].chosen_by), ("udp", "none"));
}

/// Sequences rising by one each way and a constant "qport", but nothing in the client's
/// messages acknowledges the other end's sequence: no claim.
#[test]
fn rising_counters_with_a_constant_qport_but_no_acknowledgement_stay_udp() {
    let mut rng = Rng(37);
    let bytes = exchange(20, |from_b, k| {
        let mut p = (if from_b { 500 + k } else { 100 + k })
            .to_le_bytes()
            .to_vec();
        p.extend_from_slice(&[0x39, 0x30]);
        p.extend(rng.bytes(24));
        p
    });
    assert_plain(&bytes, 40);
}

/// RakNet-like datagrams (a flag byte, then a 24-bit counter): the little-endian word rises by
/// 256 each time, no netchan step.
#[test]
fn a_counter_after_a_flag_byte_stays_udp() {
    let mut rng = Rng(68);
    let bytes = exchange(20, |from_b, k| {
        let seq = if from_b { 3000 + k } else { 7000 + k };
        let mut p = vec![0x84];
        p.extend_from_slice(&seq.to_le_bytes()[..3]);
        p.extend(rng.bytes(30));
        p
    });
    assert_plain(&bytes, 40);
}
