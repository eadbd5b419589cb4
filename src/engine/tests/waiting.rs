//! Records held back behind a datagram its decoder holds: frame order, replacement, bounds.

use super::*;
use crate::proto::{Learning, Release};

/// A test protocol on port 9999 whose decoder holds each `HOLD` datagram, releases every held
/// one decoded at a `FREE` datagram, and keeps them as first shown when the engine gives up.
pub struct Holder;
pub static HOLDER: Holder = Holder;
static HOLDER_INFO: ProtocolInfo = ProtocolInfo {
    name: "holder",
    title: "Holding test protocol",
    ports: &[(9999, 9999)],
    heuristic: "any datagram to port 9999",
    prefs: &[],
    fields: &[],
    notes: &[&HELD],
};
static HELD: NoteDef = NoteDef::note("expert.holder.held", "Held, never decoded");

#[derive(Default)]
struct HolderFlow {
    held: Vec<u64>,
    last: bool,
    out: Vec<Release>,
}

impl Protocol for Holder {
    fn info(&self) -> &'static ProtocolInfo {
        &HOLDER_INFO
    }
    fn probe(&self, input: &ProbeInput<'_>) -> Probe {
        if input.dst_port == 9999 {
            Probe::certain(Some(Role::Client))
        } else {
            Probe::NO
        }
    }
    fn new_flow(&self, _prefs: &Prefs) -> Box<dyn FlowDecoder> {
        Box::<HolderFlow>::default()
    }
}

fn record(summary: String) -> Record {
    let mut r = Record::new("holder");
    r.summary = summary;
    r
}

impl FlowDecoder for HolderFlow {
    fn decode(&mut self, d: &Datagram<'_>, out: &mut Vec<Record>) {
        self.last = d.payload == b"HOLD";
        if self.last {
            self.held.push(d.frame);
            out.push(record(format!("keyed {}", d.frame)));
            return;
        }
        if d.payload == b"FREE" {
            for frame in self.held.drain(..) {
                let records = vec![record(format!("decoded late {frame}"))];
                self.out.push(Release::Decoded { frame, records });
            }
        }
        out.push(record(format!("plain {}", d.frame)));
    }
    fn state_bytes(&self) -> usize {
        self.held.len() * 1000
    }
    fn learning(&mut self) -> Option<&mut dyn Learning> {
        Some(self)
    }
}

impl Learning for HolderFlow {
    fn holds_last(&self) -> bool {
        self.last
    }
    fn released(&mut self, out: &mut Vec<Release>) {
        out.append(&mut self.out);
    }
    fn give_up(&mut self, through: u64) {
        let (done, rest) = self.held.iter().partition(|&&f| f <= through);
        self.held = rest;
        for frame in done {
            let note = Note::new(&HELD, None, None, "held, never decoded");
            self.out.push(Release::Kept { frame, note });
        }
    }
    fn hindsight(&self) -> Vec<Vec<u8>> {
        Vec::new()
    }
    fn foresee(&mut self, _: &[Vec<u8>]) {}
}

fn to_holder(payload: &[u8]) -> Vec<u8> {
    dgram("10.0.0.1:5000", "10.0.0.2:9999", payload)
}

fn to_echo() -> Vec<u8> {
    dgram("10.0.0.3:5000", "10.0.0.2:7777", b"ECHO")
}

#[test]
fn records_behind_a_held_datagram_wait_and_it_is_replaced_when_decoded() {
    let packets = [
        (0, to_holder(b"HOLD"), None),
        (10, to_echo(), None),
        (20, to_holder(b"x"), None),
        (30, to_holder(b"FREE"), None),
        (40, to_echo(), None),
    ];
    let (seen, stats) = run(Config::default(), &packets);
    let frames: Vec<u64> = seen.iter().map(|s| s.frame).collect();
    assert_eq!(frames, [1, 2, 3, 4, 5]);
    assert_eq!(seen[0].summary, "decoded late 1");
    assert_eq!(seen[2].summary, "plain 3");
    // Nothing was handed on before the release at frame 4; then everything at once.
    let at: Vec<u64> = seen.iter().map(|s| s.at).collect();
    assert_eq!(at, [4, 4, 4, 4, 5]);
    assert!(seen[0].notes.is_empty());
    // The statistics count the records handed on: the decoded one, not the keyed one.
    assert_eq!(stats.udp_datagrams, 5);
}

#[test]
fn a_hold_the_capture_outlasts_is_given_up_with_a_note() {
    let mut packets = vec![(0, to_holder(b"HOLD"), None)];
    let frames = WAIT_FRAMES + 2;
    packets.extend((1..frames).map(|i| (i, to_echo(), None)));
    let (seen, _) = run(Config::default(), &packets);
    assert_eq!(seen[0].summary, "keyed 1");
    assert_eq!(seen[0].notes.len(), 1);
    assert_eq!(seen[0].notes[0].message, "held, never decoded");
    // Given up at the first datagram more than WAIT_FRAMES frames later.
    assert_eq!(seen[0].at, WAIT_FRAMES + 2);
    assert!(seen.windows(2).all(|w| w[0].frame < w[1].frame));
}

#[test]
fn a_hold_is_given_up_after_its_capture_time_and_at_the_end() {
    let late = (WAIT_SECS as u64 + 1) * 1000;
    let packets = [
        (0, to_holder(b"HOLD"), None),
        (late, to_echo(), None),
        (late + 1, to_holder(b"HOLD"), None),
    ];
    let (seen, _) = run(Config::default(), &packets);
    let at: Vec<u64> = seen.iter().map(|s| s.at).collect();
    // The first hold ends at the datagram WAIT_SECS later, the second at the end of input.
    assert_eq!(at, [2, 2, 4]);
    assert_eq!(seen[2].summary, "keyed 3");
    assert_eq!(seen[2].notes[0].message, "held, never decoded");
}

/// A sink that fails (`-c N` reached, or the reader of the output gone) is not called again:
/// the records released together with the one it refused are dropped, and nothing is flushed
/// after it.
#[test]
fn a_failing_sink_is_not_called_again_when_held_records_are_released() {
    let mut e = Engine::new(registry(), Config::default());
    let packets = [
        to_holder(b"HOLD"),
        to_echo(),
        to_echo(),
        to_echo(),
        to_holder(b"FREE"),
        to_holder(b"HOLD"),
        to_echo(),
    ];
    let mut calls = 0;
    let mut sink = |_: &Meta<'_>, _: &mut Record| {
        calls += 1;
        if calls >= 2 { Err(()) } else { Ok(()) }
    };
    let mut results = Vec::new();
    for (i, frame) in packets.iter().enumerate() {
        let pkt = Packet {
            data: frame,
            orig_len: frame.len() as u32,
            time: Timestamp::new(1_000 + i as i64, 0, 6),
            linktype: crate::net::linktype::ETHERNET,
            interface: 0,
            offset: 0,
            pseudo: 0,
        };
        results.push(e.packet(&pkt, &mut sink).is_err());
        if results[i] {
            break;
        }
    }
    assert_eq!(results, [false, false, false, false, true]);
    assert_eq!(calls, 2);
}

/// A flow forgotten at the flow cap gives up what its decoder holds at once: the held record
/// gets the decoder's note (it would otherwise wait for the engine's bounds and show no note),
/// and the records behind it are handed on.
#[test]
fn a_flow_forgotten_at_the_cap_gives_up_its_holds() {
    let config = Config {
        max_flows: 3,
        ..Config::default()
    };
    let other = |port: u16| dgram(&format!("10.0.0.4:{port}"), "10.0.0.2:7777", b"ECHO");
    let packets = [
        (0, to_holder(b"HOLD"), None),
        (10, other(5001), None),
        (20, other(5002), None),
        // A fourth flow: the holder's, the least recently seen, is forgotten.
        (30, other(5003), None),
        (40, other(5004), None),
    ];
    let (seen, _) = run(config, &packets);
    assert_eq!(seen[0].summary, "keyed 1");
    assert_eq!(seen[0].notes.len(), 1);
    assert_eq!(seen[0].notes[0].message, "held, never decoded");
    let at: Vec<u64> = seen.iter().map(|s| s.at).collect();
    assert_eq!(at, [4, 4, 4, 4, 5]);
}

/// A flow whose state is dropped at `--max-state` gives up what its decoder held too (the
/// holder counts 1,000 bytes of state per held datagram).
#[test]
fn a_flow_whose_state_is_dropped_gives_up_its_holds() {
    let config = Config {
        max_state: 1,
        ..Config::default()
    };
    let packets = [(0, to_holder(b"HOLD"), None), (10, to_echo(), None)];
    let (seen, stats) = run(config, &packets);
    assert_eq!(stats.flow_table.state_dropped, 1);
    assert_eq!(seen[0].notes.len(), 1, "{:?}", seen[0].notes);
    assert_eq!(seen[0].notes[0].message, "held, never decoded");
    // Handed on at the next datagram, not at the end of the input.
    let at: Vec<u64> = seen.iter().map(|s| s.at).collect();
    assert_eq!(at, [2, 2]);
}

/// Between datagrams (frames that are not UDP), `deliver_overdue` gives up a hold once it is
/// past its frame bound, as the next datagram would, so that a caller keeping every frame
/// behind it (`annotate`) keeps no more than the bound; the time bound waits for a datagram.
#[test]
fn holds_past_their_frame_bound_are_given_up_between_datagrams() {
    let mut e = Engine::new(registry(), Config::default());
    let mut arp = vec![0u8; 12];
    arp.extend_from_slice(&[0x08, 0x06]);
    arp.extend_from_slice(&[0; 28]);
    let hold = to_holder(b"HOLD");
    let mut seen = Vec::new();
    let mut settled = Vec::new();
    for i in 0..WAIT_FRAMES + 3 {
        let data = if i == 0 { &hold } else { &arp };
        let pkt = Packet {
            data,
            orig_len: data.len() as u32,
            // A minute past the hold at once: no time bound applies between datagrams.
            time: Timestamp::new(1_000 + 60 * (i > 0) as i64, 0, 6),
            linktype: crate::net::linktype::ETHERNET,
            interface: 0,
            offset: 0,
            pseudo: 0,
        };
        let mut sink = |m: &Meta<'_>, r: &mut Record| {
            seen.push((m.frame, r.summary.clone(), r.notes.len()));
            Ok::<(), ()>(())
        };
        e.packet(&pkt, &mut sink).unwrap();
        e.deliver_overdue(&mut sink).unwrap();
        settled.push(e.settled_frames());
    }
    // Held through frame WAIT_FRAMES + 1, given up at the frame after it.
    assert_eq!(settled[1], 0);
    assert_eq!(settled[WAIT_FRAMES as usize], 0);
    assert_eq!(settled[WAIT_FRAMES as usize + 1], WAIT_FRAMES + 2);
    assert_eq!(seen, [(1, "keyed 1".to_string(), 1)]);
}
