//! Hot-path benchmarks: `cargo bench`. A plain harness (median of repeated runs, packets/s)
//! rather than criterion, so that `cargo test` builds no extra dependency; for comparisons that
//! must not depend on machine load, count instructions with callgrind (docs/performance.md).

use std::hint::black_box;
use std::time::{Duration, Instant};

use gamedissect::capture::{CaptureReader, Event};
use gamedissect::engine::Config;
use gamedissect::net::whole_udp;
use gamedissect::protocols;
use gamedissect::run::{OutputFormat, render};
use testkit::synth::drive_decoder;

const CAPTURE: &str = "captures/quake3-openarena-legacy.pcap";

/// One shipped capture per protocol and dialect, run through the whole pipeline in summary and
/// JSON: each decoder's hot path (scripts/bench-vs-tshark.sh measures the same against tshark).
const PER_DIALECT: &[&str] = &[
    "captures/quake3-openarena-legacy.pcap",
    "captures/quake3-ioq3-protocol.pcap",
    "captures/srb2-2.1.25-session.pcap",
    "captures/srb2-2.2.13-session.pcap",
    "captures/flightgear-v1.pcap",
    "captures/flightgear-v2-pair.pcap",
    "captures/gamestudio-a5-raw.pcap",
    "captures/gamestudio-a6-raw.pcap",
    "captures/gamestudio-a5-dplay4.pcap",
    "captures/gamestudio-a6-dplay4.pcap",
    "captures/gamestudio-a5-dplay8.pcap",
    "captures/gamestudio-a6-dplay8.pcap",
];

/// Runs `f` until at least a second has passed (and at least 5 times); returns the median.
fn measure(name: &str, packets: usize, mut f: impl FnMut()) {
    let mut times: Vec<Duration> = Vec::new();
    let start = Instant::now();
    while times.len() < 5 || start.elapsed() < Duration::from_secs(1) {
        let t = Instant::now();
        f();
        times.push(t.elapsed());
    }
    times.sort();
    let median = times[times.len() / 2];
    let per = median.as_nanos() as f64 / packets as f64;
    println!(
        "{name:<34} {:>10.3} ms  {:>8.0} ns/packet  {:>10.0} packets/s  ({} runs)",
        median.as_secs_f64() * 1e3,
        per,
        1e9 / per,
        times.len()
    );
}

/// The capture's UDP payloads on the game flow (client port 27961), in order, with direction.
fn game_flow(bytes: &[u8]) -> Vec<(bool, Vec<u8>)> {
    let mut r = CaptureReader::new(bytes).expect("capture");
    let mut out = Vec::new();
    while let Ok(Some(ev)) = r.next() {
        let Event::Packet(p) = ev else { continue };
        if let Some(u) = whole_udp(p.linktype, p.data)
            && (u.src.port() == 27961 || u.dst.port() == 27961)
        {
            out.push((u.dst.port() == 27960, u.payload.to_vec()));
        }
    }
    out
}

fn count_packets(bytes: &[u8]) -> usize {
    let mut r = CaptureReader::new(bytes).unwrap();
    let mut n = 0;
    while let Ok(Some(_)) = r.next() {
        n += 1;
    }
    n
}

/// Summary and JSON through the whole pipeline, per protocol and dialect.
fn per_dialect() {
    for path in PER_DIALECT {
        let bytes = std::fs::read(path).expect("run from the repository root");
        let packets = count_packets(&bytes);
        let name = path
            .trim_start_matches("captures/")
            .trim_end_matches(".pcap");
        for (mode, format) in [
            ("summary", OutputFormat::Summary),
            ("json", OutputFormat::Json),
        ] {
            // As `dissect` runs: no field tree behind summary lines, no statistics.
            let config = Config {
                detail: format != OutputFormat::Summary,
                flow_stats: false,
                message_stats: false,
                ..Config::default()
            };
            measure(&format!("{name}, {mode}"), packets, || {
                black_box(render(black_box(&bytes), format, config.clone()));
            });
        }
    }
}

fn main() {
    let bytes = std::fs::read(CAPTURE).expect("run from the repository root");
    let packets = count_packets(&bytes);
    println!("{CAPTURE}: {packets} packets");

    measure("capture reading", packets, || {
        let mut r = CaptureReader::new(black_box(&bytes[..])).unwrap();
        while let Ok(Some(ev)) = r.next() {
            black_box(&ev);
        }
    });

    let flow = game_flow(&bytes);
    let history: Vec<(bool, &[u8])> = flow.iter().map(|(d, p)| (*d, p.as_slice())).collect();
    let quake3 = protocols::all()[protocols::index_of(&protocols::all(), "quake3").unwrap()];
    let prefs = Default::default();
    measure(
        "quake3 decode (Huffman, delta), no tree",
        history.len(),
        || {
            black_box(drive_decoder(
                quake3,
                &prefs,
                black_box(&history),
                Some(false),
            ));
        },
    );
    measure("quake3 decode with field trees", history.len(), || {
        black_box(drive_decoder(
            quake3,
            &prefs,
            black_box(&history),
            Some(true),
        ));
    });

    measure("whole pipeline, summary", packets, || {
        black_box(render(
            black_box(&bytes),
            OutputFormat::Summary,
            Config::default(),
        ));
    });
    measure("whole pipeline, json", packets, || {
        black_box(render(
            black_box(&bytes),
            OutputFormat::Json,
            Config::default(),
        ));
    });
    per_dialect();
}
