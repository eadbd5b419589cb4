use super::*;
use crate::proto::{Probe, ProtocolInfo};
use crate::tree::FieldDef;
use testkit::synth;

static ROOT: FieldDef = FieldDef::group("echo", "Echo");
static COUNT: FieldDef = FieldDef::uint("echo.count", "Datagrams seen in this flow");
static DIR: FieldDef = FieldDef::string("echo.direction", "Direction");

// The test protocols implement the decoder interface themselves.
use crate::proto::{FlowDecoder, Prefs, ProbeInput, Role};
use crate::tree::Severity;

/// A test protocol: content "ECHO" is certain and comes from a client; port 7777 is its port.
/// Its state counts datagrams per flow; content "PANIC" makes it panic.
struct Echo;
static ECHO: Echo = Echo;
static ECHO_INFO: ProtocolInfo = ProtocolInfo {
    name: "echo",
    title: "Echo test protocol",
    ports: &[(7777, 7777)],
    heuristic: "starts with ECHO",
    prefs: &[],
    fields: &[&[&ROOT, &COUNT, &DIR]],
    notes: &[],
};

struct EchoFlow(u64, &'static str);

impl Protocol for Echo {
    fn info(&self) -> &'static ProtocolInfo {
        &ECHO_INFO
    }
    fn probe(&self, input: &ProbeInput<'_>) -> Probe {
        if input.payload.starts_with(b"ECHO") {
            Probe::certain(Some(Role::Client))
        } else if input.payload.starts_with(b"ech") {
            Probe::likely(None)
        } else {
            Probe::NO
        }
    }
    fn new_flow(&self, _prefs: &Prefs) -> Box<dyn FlowDecoder> {
        Box::new(EchoFlow(0, "echo"))
    }
}

impl FlowDecoder for EchoFlow {
    fn decode(&mut self, d: &Datagram<'_>, out: &mut Vec<Record>) {
        assert!(d.payload != b"PANIC", "test decoder panics on request");
        self.0 += 1;
        let mut r = Record::new(self.1);
        r.msg_type = Cow::Borrowed("echo");
        r.summary = format!("#{} {}", self.0, d.direction.as_str());
        let mut root = Field::new(&ROOT, Value::None, Pos::bytes(0, d.payload.len()));
        root.children
            .push(Field::new(&COUNT, Value::UInt(self.0), Pos::bytes(0, 0)));
        root.children.push(Field::new(
            &DIR,
            Value::Str(d.direction.as_str().into()),
            Pos::bytes(0, 0),
        ));
        r.fields.push(root);
        out.push(r);
    }
    fn describe(&self) -> Vec<(String, String)> {
        vec![("datagrams".into(), self.0.to_string())]
    }
}

/// A second protocol whose probe says "likely" for anything starting with "ech" as well, so
/// ties can be tested; its port is 8888.
struct Other;
static OTHER: Other = Other;
static OTHER_INFO: ProtocolInfo = ProtocolInfo {
    name: "other",
    title: "Other test protocol",
    ports: &[(8888, 8888)],
    heuristic: "starts with ech",
    prefs: &[],
    fields: &[],
    notes: &[],
};

impl Protocol for Other {
    fn info(&self) -> &'static ProtocolInfo {
        &OTHER_INFO
    }
    fn probe(&self, input: &ProbeInput<'_>) -> Probe {
        if input.payload.starts_with(b"ech") {
            Probe::likely(None)
        } else {
            Probe::NO
        }
    }
    fn new_flow(&self, _prefs: &Prefs) -> Box<dyn FlowDecoder> {
        Box::new(EchoFlow(1000, "other"))
    }
}

fn registry() -> Vec<&'static dyn Protocol> {
    vec![&ECHO, &OTHER, &waiting::HOLDER]
}

fn addr(s: &str) -> SocketAddr {
    s.parse().unwrap()
}

struct Seen {
    /// The frames the engine had read when it handed this record on.
    at: u64,
    frame: u64,
    protocol: &'static str,
    summary: String,
    flow: u64,
    notes: Vec<Note>,
}

fn run(config: Config, packets: &[(u64, Vec<u8>, Option<u32>)]) -> (Vec<Seen>, Stats) {
    let mut e = Engine::new(registry(), config);
    let mut seen = Vec::new();
    for (at, (ms, frame, orig)) in (1..).zip(packets) {
        let pkt = Packet {
            data: frame,
            orig_len: orig.unwrap_or(frame.len() as u32),
            time: Timestamp::new(
                1_000 + (*ms / 1000) as i64,
                (*ms % 1000) as u32 * 1_000_000,
                6,
            ),
            linktype: crate::net::linktype::ETHERNET,
            interface: 0,
            offset: 0,
            pseudo: 0,
        };
        e.packet::<()>(&pkt, &mut |m, r| {
            seen.push(Seen::of(at, m, r));
            Ok(())
        })
        .unwrap();
    }
    let end = packets.len() as u64 + 1;
    e.flush::<()>(&mut |m, r| {
        seen.push(Seen::of(end, m, r));
        Ok(())
    })
    .unwrap();
    e.finish();
    (seen, e.stats().clone())
}

impl Seen {
    fn of(at: u64, m: &Meta<'_>, r: &Record) -> Seen {
        Seen {
            at,
            frame: m.frame,
            protocol: r.protocol,
            summary: r.summary.clone(),
            flow: m.flow,
            notes: r.notes.clone(),
        }
    }
}

fn dgram(src: &str, dst: &str, payload: &[u8]) -> Vec<u8> {
    synth::eth_udp(addr(src), addr(dst), payload)
}

#[test]
fn unclaimed_udp_becomes_a_udp_record_with_its_length() {
    let (seen, stats) = run(
        Config::default(),
        &[(0, dgram("10.0.0.1:1000", "10.0.0.2:2000", b"hello"), None)],
    );
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0].protocol, "udp");
    assert_eq!(seen[0].summary, "UDP payload, 5 bytes");
    assert_eq!(stats.protocols["udp"].messages, 1);
    assert_eq!(stats.protocols["udp"].bytes, 5);
}

#[test]
fn content_probe_claims_the_flow_and_state_persists_in_both_directions() {
    let (seen, stats) = run(
        Config::default(),
        &[
            (0, dgram("10.0.0.1:4000", "10.0.0.2:5000", b"ECHO hi"), None),
            (
                10,
                dgram("10.0.0.2:5000", "10.0.0.1:4000", b"anything"),
                None,
            ),
            (20, dgram("10.0.0.1:4000", "10.0.0.2:5000", b"more"), None),
        ],
    );
    let s: Vec<(&str, &str)> = seen
        .iter()
        .map(|s| (s.protocol, s.summary.as_str()))
        .collect();
    assert_eq!(
        s,
        [
            ("echo", "#1 client → server"),
            ("echo", "#2 server → client"),
            ("echo", "#3 client → server")
        ]
    );
    assert!(seen.iter().all(|s| s.flow == 0));
    let f = &stats.flows[0];
    assert_eq!(
        (f.client, f.server),
        (addr("10.0.0.1:4000"), addr("10.0.0.2:5000"))
    );
    assert_eq!(
        (f.chosen_by, f.roles_from),
        ("content (certain)", "content")
    );
    assert_eq!((f.packets_to_server, f.packets_to_client), (2, 1));
    assert_eq!(f.facts["datagrams"], "3");
}

#[test]
fn the_server_port_decides_direction_when_content_does_not() {
    // Port match on the sender's side: the first datagram is from the server. Without the
    // probes the port chooses, and the content still passes the protocol's own check, which a
    // port claim needs.
    let config = Config {
        heuristics: false,
        ..Config::default()
    };
    let (seen, stats) = run(
        config,
        &[(0, dgram("10.0.0.2:7777", "10.0.0.1:40000", b"ECHO"), None)],
    );
    assert_eq!(seen[0].summary, "#1 server → client");
    assert_eq!(stats.flows[0].chosen_by, "port");
}

#[test]
fn likely_probes_tie_break_on_port_then_registry_order() {
    let (seen, _) = run(
        Config::default(),
        &[
            (0, dgram("10.0.0.1:1", "10.0.0.2:8888", b"echx"), None),
            (0, dgram("10.0.0.3:1", "10.0.0.4:9", b"echx"), None),
        ],
    );
    assert_eq!(
        seen[0].protocol, "other",
        "the likely probe whose port matches wins"
    );
    assert_eq!(seen[1].protocol, "echo", "otherwise the first registered");
}

#[test]
fn decode_as_beats_probes_and_no_heuristics_disables_them() {
    let config = Config {
        decode_as: vec![DecodeAs {
            lo: 5030,
            hi: 5030,
            protocol: Some(1),
        }],
        ..Config::default()
    };
    let (seen, stats) = run(
        config,
        &[(0, dgram("10.0.0.1:1", "10.0.0.2:5030", b"ECHO"), None)],
    );
    assert_eq!(seen[0].protocol, "other");
    assert_eq!(stats.flows[0].chosen_by, "decode-as");

    let config = Config {
        heuristics: false,
        ..Config::default()
    };
    let (seen, _) = run(
        config,
        &[
            (0, dgram("10.0.0.1:1", "10.0.0.2:2", b"ECHO"), None),
            // The port still chooses; a port claim needs content its protocol's check passes.
            (0, dgram("10.0.0.1:3", "10.0.0.2:7777", b"ECHO"), None),
        ],
    );
    assert_eq!(seen[0].protocol, "udp");
    assert_eq!(seen[1].protocol, "echo");
}

#[test]
fn decode_as_udp_keeps_a_port_from_every_decoder() {
    let config = Config {
        decode_as: vec![DecodeAs {
            lo: 7777,
            hi: 7777,
            protocol: None,
        }],
        ..Config::default()
    };
    let (seen, _) = run(
        config,
        &[
            (0, dgram("10.0.0.1:3", "10.0.0.2:7777", b"ECHO"), None),
            (1, dgram("10.0.0.1:4", "10.0.0.2:8888", b"ECHO"), None),
        ],
    );
    // The probe and the well-known port both say echo; the rule says plain UDP.
    assert_eq!((seen[0].protocol, seen[1].protocol), ("udp", "echo"));
}

#[test]
fn an_unclaimed_flow_is_probed_again_on_later_datagrams() {
    let (seen, _) = run(
        Config::default(),
        &[
            (0, dgram("10.0.0.1:1", "10.0.0.2:2", b"zzz"), None),
            (1, dgram("10.0.0.1:1", "10.0.0.2:2", b"ECHO"), None),
        ],
    );
    assert_eq!((seen[0].protocol, seen[1].protocol), ("udp", "echo"));
}

#[test]
fn frame_and_protocol_selection_only_filter_output() {
    let packets = [
        (0, dgram("10.0.0.1:1", "10.0.0.2:2", b"ECHO"), None),
        (1, dgram("10.0.0.1:1", "10.0.0.2:2", b"x"), None),
        (2, dgram("10.0.0.5:1", "10.0.0.6:2", b"plain"), None),
    ];
    let config = Config {
        frames: FrameRange { first: 2, last: 3 },
        only_protocols: vec!["echo".into()],
        ..Config::default()
    };
    let (seen, stats) = run(config, &packets);
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0].frame, 2);
    assert_eq!(
        seen[0].summary, "#2 client → server",
        "frame 1 was still decoded for state"
    );
    assert_eq!(stats.records, 1);
}

#[test]
fn snaplen_cut_and_lying_udp_lengths_become_notes() {
    let full = dgram("10.0.0.1:1", "10.0.0.2:2", &[b'z'; 64]);
    let cut = full[..full.len() - 20].to_vec();
    let mut liar = dgram("10.0.0.1:3", "10.0.0.2:4", b"abc");
    let udp_len_at = 14 + 20 + 4;
    liar[udp_len_at..udp_len_at + 2].copy_from_slice(&300u16.to_be_bytes());
    let (seen, stats) = run(
        Config::default(),
        &[(0, cut, Some(full.len() as u32)), (1, liar, None)],
    );
    assert_eq!(seen[0].notes[0].severity(), Severity::Warning);
    assert_eq!(
        seen[0].notes[0].message,
        "datagram cut by the capture's snaplen: 44 of 64 payload bytes captured"
    );
    assert_eq!(seen[0].notes[0].field, Some("udp.length"));
    assert_eq!(seen[1].notes[0].severity(), Severity::Error);
    assert_eq!(stats.truncated_frames, 1);
    assert_eq!(stats.protocols["udp"].short, 1);
    assert_eq!(stats.protocols["udp"].malformed, 1);
}

#[test]
fn fragmented_datagrams_are_reassembled_and_noted() {
    let payload = [&b"ECHO"[..], &[b'q'; 36]].concat();
    let seg = synth::udp(addr("10.0.0.1:4000"), addr("10.0.0.2:7777"), &payload);
    let f1 = synth::ethernet(&synth::ipv4(
        [10, 0, 0, 1],
        [10, 0, 0, 2],
        17,
        42,
        0,
        true,
        &seg[..24],
    ));
    let f2 = synth::ethernet(&synth::ipv4(
        [10, 0, 0, 1],
        [10, 0, 0, 2],
        17,
        42,
        3,
        false,
        &seg[24..],
    ));
    let (seen, stats) = run(Config::default(), &[(0, f1, None), (1, f2, None)]);
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0].frame, 2);
    assert_eq!(seen[0].protocol, "echo");
    assert_eq!(
        seen[0].notes[0].message,
        "datagram reassembled from 2 IP fragments"
    );
    assert_eq!(stats.reassembly.reassembled, 1);
}

#[test]
fn idle_flows_are_evicted_and_the_table_is_bounded() {
    let config = Config {
        max_flows: 4,
        flow_idle_secs: 5,
        ..Config::default()
    };
    let mut packets = Vec::new();
    for i in 0..10u16 {
        packets.push((
            0,
            dgram(&format!("10.0.0.1:{}", 1000 + i), "10.0.0.2:7777", b"x"),
            None,
        ));
    }
    packets.push((100_000, dgram("10.0.0.9:1", "10.0.0.2:7777", b"x"), None));
    let (_, stats) = run(config, &packets);
    assert_eq!(stats.flow_table.created, 11);
    assert!(stats.flow_table.peak <= 4, "peak {}", stats.flow_table.peak);
    assert!(stats.flow_table.evicted_cap >= 6);
    assert!(stats.flow_table.evicted_idle >= 1);
}

#[test]
fn a_panicking_decoder_costs_one_message_and_the_flow_falls_back_to_udp() {
    let (seen, _) = run(
        Config::default(),
        &[
            (0, dgram("10.0.0.1:1", "10.0.0.2:2", b"ECHO"), None),
            (1, dgram("10.0.0.1:1", "10.0.0.2:2", b"PANIC"), None),
            (2, dgram("10.0.0.1:1", "10.0.0.2:2", b"after"), None),
        ],
    );
    assert_eq!(seen[1].protocol, "echo");
    assert_eq!(seen[1].notes[0].severity(), Severity::Error);
    assert_eq!(seen[2].protocol, "udp");
}

#[test]
fn non_udp_and_non_ip_frames_are_counted_not_reported() {
    let tcp = synth::ethernet(&synth::ipv4(
        [1, 1, 1, 1],
        [2, 2, 2, 2],
        6,
        1,
        0,
        false,
        &[0; 20],
    ));
    let mut arp = vec![0xff; 12];
    arp.extend_from_slice(&[0x08, 0x06]);
    arp.extend_from_slice(&[0; 28]);
    let (seen, stats) = run(Config::default(), &[(0, tcp, None), (1, arp, None)]);
    assert!(seen.is_empty());
    assert_eq!(stats.not_udp, 1);
    assert_eq!(stats.frames, 2);
    assert_eq!(stats.not_ip + stats.link_errors, 1);
}

mod waiting;
