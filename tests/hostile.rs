//! Hostile inputs for the shared plumbing: each case states the expected behaviour (a located file
//! error, located notes, or counted drops) and checks that memory stays bounded. Decoder-level
//! hostile payloads live beside each decoder's property tests.

use gamedissect::engine::Config;
use gamedissect::run::parallel::{Tuning, render_sharded};
use gamedissect::run::{OutputFormat, render, stats_of};
use testkit::captures::udp_mixed;
use testkit::synth::{self, PcapNgWriter, PcapWriter, Rng};

#[test]
fn pcapng_block_length_of_4_gib_is_a_located_error_without_allocating() {
    let mut w = PcapNgWriter::new();
    w.section(false).interface(1, None);
    let f = synth::eth_udp(
        "10.0.0.1:1".parse().unwrap(),
        "10.0.0.2:2".parse().unwrap(),
        b"ok",
    );
    w.packet(0, 0, &f, f.len() as u32);
    let at = w.bytes.len();
    w.bytes.extend_from_slice(&6u32.to_le_bytes());
    w.bytes.extend_from_slice(&0xffff_fffcu32.to_le_bytes());
    let (out, err) = render(&w.bytes, OutputFormat::Summary, Config::default());
    assert_eq!(
        out.lines().count(),
        1,
        "the packet before it is still shown"
    );
    let err = err.expect("a file error");
    assert_eq!(err.offset, at as u64);
    assert_eq!(
        err.message,
        "block length 4294967292 exceeds the 16777216-byte limit"
    );
}

#[test]
fn pcap_record_claiming_4_gib_is_a_located_error() {
    let mut w = PcapWriter::new(1, false, false, 65535);
    w.bytes.extend_from_slice(&[0; 8]);
    w.bytes.extend_from_slice(&u32::MAX.to_le_bytes());
    w.bytes.extend_from_slice(&u32::MAX.to_le_bytes());
    let (_, err) = render(&w.bytes, OutputFormat::Json, Config::default());
    let err = err.unwrap();
    assert_eq!(
        (err.offset, err.message.as_str()),
        (
            24,
            "record claims 4294967295 captured bytes, more than the 16777216-byte limit"
        )
    );
}

#[test]
fn a_capture_cut_at_every_offset_yields_whole_packets_then_a_located_error() {
    let full = udp_mixed::build();
    let (complete, none) = render(&full, OutputFormat::Json, Config::default());
    assert!(none.is_none());
    for cut in 0..full.len() {
        let (out, err) = render(&full[..cut], OutputFormat::Json, Config::default());
        // Whatever was printed is a prefix of the full decode, line for line.
        assert!(
            complete.starts_with(&out),
            "cut at {cut}: output is not a prefix of the full decode"
        );
        if let Some(e) = err {
            assert!(
                e.offset <= cut as u64,
                "cut at {cut}: error located at {}",
                e.offset
            );
        } else {
            // Only a cut on a block boundary ends cleanly.
            assert!(out.len() <= complete.len());
        }
    }
}

/// The same on two threads: the sharded pipeline must stop at the same place with the same
/// error and the same records, whatever block the cut falls in.
#[test]
fn a_cut_capture_reads_the_same_on_two_threads() {
    let full = udp_mixed::build();
    let tuning = Tuning {
        block: 37,
        blocks_queued: 1,
        batch_bytes: 64,
        batches_queued: 1,
    };
    for cut in 0..full.len() {
        let (one, err1) = render(&full[..cut], OutputFormat::Summary, Config::default());
        let (two, err2) = render_sharded(
            &full[..cut],
            OutputFormat::Summary,
            Config::default(),
            2,
            tuning,
        );
        assert_eq!(one, two, "cut at {cut}");
        assert_eq!(
            err1.map(|e| e.to_string()),
            err2.map(|e| e.to_string()),
            "cut at {cut}"
        );
    }
}

/// Flows evicted at the table's cap and then seen again start over as new flows; every shard
/// must evict the same flows at the same moment, or flow numbers and decoder state would differ.
#[test]
fn eviction_at_the_flow_cap_is_the_same_on_several_threads() {
    let mut w = PcapWriter::new(101, false, false, 65535);
    let mut rng = Rng(11);
    for i in 0..30_000u32 {
        let n = rng.below(3_000) as u32;
        let src =
            std::net::SocketAddr::from(([10, 1, (n >> 8) as u8, n as u8], 27_000 + (n % 7) as u16));
        // Quake 3 connectionless and netchan-looking payloads, so decoders keep state.
        let payload: Vec<u8> = if i % 3 == 0 {
            b"\xff\xff\xff\xffgetinfo xxx".to_vec()
        } else {
            let n = 1 + rng.below(40) as usize;
            rng.bytes(n)
        };
        let ip = synth::ip_udp(src, "10.255.255.1:27960".parse().unwrap(), &payload);
        w.packet(1_000 + i / 100, (i % 100) * 10_000, &ip, ip.len() as u32);
    }
    let config = || Config {
        max_flows: 500,
        ..Config::default()
    };
    let (stats, _) = stats_of(&w.bytes, config());
    assert!(
        stats.flow_table.evicted_cap > 1_000,
        "{:?}",
        stats.flow_table
    );
    let (one, _) = render(&w.bytes, OutputFormat::Json, config());
    assert!(one.lines().count() >= 30_000);
    for shards in [2, 3] {
        let (many, _) = render_sharded(
            &w.bytes,
            OutputFormat::Json,
            config(),
            shards,
            Tuning::default(),
        );
        assert!(one == many, "{shards} threads differ");
    }
}

#[test]
fn a_fragment_flood_stays_within_the_reassembly_caps() {
    let mut w = PcapWriter::new(101, false, false, 65535);
    let mut rng = Rng(7);
    // 20,000 first fragments that never complete, with distinct ids and 1,400 bytes each: 28 MB
    // offered to a pool capped at 16 MiB.
    for i in 0..20_000u32 {
        let data = rng.bytes(1400);
        let ip = synth::ipv4(
            [10, 0, (i >> 8) as u8, i as u8],
            [10, 9, 9, 9],
            17,
            i as u16,
            0,
            true,
            &data,
        );
        w.packet(i / 1000, (i % 1000) * 1000, &ip, ip.len() as u32);
    }
    let (stats, err) = stats_of(&w.bytes, Config::default());
    assert!(err.is_none());
    let r = &stats.reassembly;
    assert_eq!(r.fragments, 20_000);
    assert_eq!(r.reassembled, 0);
    assert!(
        r.peak_bytes <= 16 * 1024 * 1024 + 65_536,
        "peak {} bytes",
        r.peak_bytes
    );
    assert!(r.dropped_memory_cap + r.dropped_pending_cap + r.timed_out > 0);
}

#[test]
fn a_flood_of_tiny_flows_keeps_the_flow_table_bounded() {
    // A million single-datagram flows: the table never holds more than its cap and the per-flow
    // listing stops at its cap.
    let mut w = PcapWriter::new(101, false, false, 65535);
    for i in 0..1_000_000u32 {
        let src = std::net::SocketAddr::from((
            [10, (i >> 16) as u8, (i >> 8) as u8, i as u8],
            1024 + (i % 50_000) as u16,
        ));
        let ip = synth::ip_udp(src, "10.255.255.1:9".parse().unwrap(), b"t");
        w.packet(1_000 + i / 10_000, 0, &ip, ip.len() as u32);
    }
    let config = Config {
        max_flows: 10_000,
        ..Config::default()
    };
    let (stats, err) = stats_of(&w.bytes, config);
    assert!(err.is_none());
    assert_eq!(stats.flow_table.created, 1_000_000);
    assert!(
        stats.flow_table.peak <= 10_000,
        "peak {}",
        stats.flow_table.peak
    );
    assert!(stats.flow_table.evicted_cap > 0);
    assert_eq!(stats.flows.len(), 100_000);
    assert_eq!(stats.flow_table.unlisted, 900_000);
}

#[test]
fn random_frames_on_every_link_type_never_panic() {
    let mut rng = Rng(0x5eed);
    let good = synth::eth_udp(
        "10.0.0.1:27960".parse().unwrap(),
        "10.0.0.2:27961".parse().unwrap(),
        &[0xff; 40],
    );
    for &linktype in &[0u32, 1, 12, 14, 101, 108, 113, 228, 229, 276, 147] {
        let mut w = PcapWriter::new(linktype, false, false, 65535);
        for i in 0..2_000u32 {
            let mut frame = if rng.below(2) == 0 {
                let n = rng.below(200) as usize;
                rng.bytes(n)
            } else {
                let mut f = good.clone();
                for _ in 0..1 + rng.below(6) {
                    let at = rng.below(f.len() as u64) as usize;
                    f[at] = rng.next_u64() as u8;
                }
                f
            };
            if rng.below(4) == 0 {
                frame.truncate(rng.below(frame.len() as u64 + 1) as usize);
            }
            let orig = frame.len() as u32 + rng.below(3) as u32 * 100;
            w.packet(i, 0, &frame, orig);
        }
        for format in [
            OutputFormat::Summary,
            OutputFormat::Tree,
            OutputFormat::Json,
        ] {
            let (_, err) = render(&w.bytes, format, Config::default());
            assert!(err.is_none(), "link type {linktype}: {err:?}");
        }
    }
}

#[test]
fn random_bytes_as_a_whole_file_never_panic() {
    let mut rng = Rng(42);
    let seeds: [&[u8]; 3] = [
        &[0xd4, 0xc3, 0xb2, 0xa1],
        &[0x4d, 0x3c, 0xb2, 0xa1],
        &[0x0a, 0x0d, 0x0d, 0x0a],
    ];
    for i in 0..3_000 {
        let mut file = seeds[i % 3].to_vec();
        let n = rng.below(600) as usize;
        file.extend(rng.bytes(n));
        let _ = render(&file, OutputFormat::Json, Config::default());
    }
}

/// pcapng's `if_tsoffset` is any i64: capture times at both extremes, interleaved, go through
/// relative times, flow sweeps and reassembly timeouts (overflow-checked in test builds).
#[test]
fn interfaces_offset_to_both_ends_of_time_decode_without_overflow() {
    let mut w = PcapNgWriter::new();
    w.section(false)
        .interface_offset(101, 6, i64::MIN)
        .interface_offset(101, 6, i64::MAX);
    let (a, b) = (
        "10.0.0.1:27960".parse().unwrap(),
        "10.0.0.2:27961".parse().unwrap(),
    );
    for i in 0..40u32 {
        let ip = if i % 2 == 0 {
            synth::ip_udp(a, b, b"\xff\xff\xff\xffgetinfo x")
        } else {
            // First fragments that never complete, so the timeout sweep compares their ages.
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
        w.packet((i / 2) % 2, u64::from(i) * 90_000_000, &ip, ip.len() as u32);
    }
    for format in [
        OutputFormat::Summary,
        OutputFormat::Tree,
        OutputFormat::Json,
    ] {
        let (out, err) = render(&w.bytes, format, Config::default());
        assert!(err.is_none(), "{err:?}");
        assert!(!out.is_empty());
    }
    let (out, _) = render(&w.bytes, OutputFormat::Summary, Config::default());
    // Frame 1 is on the i64::MIN interface: the base. Its relative time is 0.
    assert!(
        out.lines().next().is_some_and(|l| l.contains(" 0.000000 ")),
        "{out}"
    );
    let (stats, err) = stats_of(&w.bytes, Config::default());
    assert!(err.is_none());
    assert_eq!(stats.udp_datagrams, 20);
    assert_eq!(stats.reassembly.fragments, 20);
}

/// 200,000 first fragments, each a new datagram: the pool stays at its cap, and the bookkeeping
/// per fragment is a small constant (it used to scan all 4,096 pending datagrams each time).
#[test]
fn a_flood_of_first_fragments_costs_constant_work_per_fragment() {
    use gamedissect::capture::Timestamp;
    use gamedissect::net::defrag::{DefragLimits, Defragmenter};
    use gamedissect::net::{Frame, decode_frame};
    let mut d = Defragmenter::new(DefragLimits::default());
    let n = 200_000u32;
    for i in 0..n {
        let ip = synth::ipv4(
            [10, 0, (i >> 16) as u8, (i >> 8) as u8],
            [10, 9, 9, i as u8],
            17,
            i as u16,
            0,
            true,
            &[0x55; 64],
        );
        let Frame::Fragment(f) = decode_frame(101, &ip) else {
            panic!("frame {i} is not a fragment");
        };
        assert!(
            d.add(&f, Timestamp::new(i64::from(i / 10_000), 0, 6))
                .is_none()
        );
    }
    assert_eq!(d.stats.dropped_pending_cap, u64::from(n) - 4_096);
    assert!(d.held_bytes() <= 16 * 1024 * 1024);
    assert!(
        d.steps() <= 4 * u64::from(n),
        "{} steps for {n} fragments",
        d.steps()
    );
}

/// `flows` Quake 3 flows, each opened by a challenge response and a gamestate with 1,022
/// baselines (about 230 KB of decoder state from a 2.7 KB datagram); the first flow speaks once
/// more at the end.
fn gamestate_flood(flows: u32) -> Vec<u8> {
    use testkit::quake3;
    let gamestate = quake3::s2c(1, &quake3::gamestate(1_022));
    let server: std::net::SocketAddr = "10.255.0.1:27960".parse().unwrap();
    let client = |i: u32| std::net::SocketAddr::from(([10, 1, (i >> 8) as u8, i as u8], 27_961));
    let mut w = PcapWriter::new(101, false, false, 65535);
    for i in 0..flows {
        for p in [quake3::challenge_response(), gamestate.clone()] {
            let ip = synth::ip_udp(server, client(i), &p);
            w.packet(1_000 + i / 1_000, i % 1_000, &ip, ip.len() as u32);
        }
    }
    let ip = synth::ip_udp(server, client(0), &quake3::s2c(2, &quake3::gamestate(1)));
    w.packet(1_000 + flows / 1_000, 999, &ip, ip.len() as u32);
    w.bytes
}

#[test]
fn a_flood_of_gamestates_stays_within_the_state_budget() {
    let budget = 16 << 20;
    let config = || Config {
        max_state: budget,
        ..Config::default()
    };
    let capture = gamestate_flood(400);
    let (stats, err) = stats_of(&capture, config());
    assert!(err.is_none());
    let t = &stats.flow_table;
    let per_flow = 200 * 1024;
    assert!(
        t.state_peak as usize > budget && t.state_peak as usize <= budget + 2 * per_flow,
        "peak {} for a budget of {budget}",
        t.state_peak
    );
    // Each flow's state is dropped at most once (it is idle after its gamestate), and only
    // enough of them to go back under the budget.
    assert!(
        (100..=400).contains(&t.state_dropped),
        "{} drops",
        t.state_dropped
    );
    // The first flow lost its state long before its last datagram, which says so.
    let (out, err) = render(&capture, OutputFormat::Json, config());
    assert!(err.is_none());
    let last = out.lines().last().unwrap();
    let note = "decoder state was dropped at the --max-state budget";
    assert!(last.contains(note), "{last}");
    assert_eq!(out.matches(note).count(), 1);
    // Without pressure nothing is dropped.
    let (stats, _) = stats_of(&gamestate_flood(20), config());
    assert_eq!(stats.flow_table.state_dropped, 0);
    assert!(stats.flow_table.state_peak > 20 * 100 * 1024);
}

/// 60,000 flows whose keys share one bucket chain of the unseeded FxHash the flow table used
/// (6-8x per datagram then). The table's hash is now seeded at random per table, so the spread
/// is asserted where the hasher is visible (`engine::flows`' tests count distinct buckets);
/// here: every flow is kept and decoded, and the output does not depend on the seeds (each run
/// and each shard draws its own).
#[test]
fn keys_chosen_to_collide_in_an_unseeded_hash_decode_the_same_under_any_seed() {
    let capture = testkit::collide::colliding_capture(60_000);
    let (stats, err) = stats_of(&capture, Config::default());
    assert!(err.is_none());
    assert_eq!(stats.flow_table.created, 60_000);
    assert_eq!(stats.flow_table.peak, 60_000);
    assert_eq!(stats.flow_table.evicted_cap, 0);
    let (one, _) = render(&capture, OutputFormat::Summary, Config::default());
    assert_eq!(one.lines().count(), 60_000);
    assert_eq!(one.matches("quake3 getinfo").count(), 60_000);
    let (again, _) = render(&capture, OutputFormat::Summary, Config::default());
    assert!(one == again, "two runs differ");
    let (two, _) = render_sharded(
        &capture,
        OutputFormat::Summary,
        Config::default(),
        2,
        Tuning::default(),
    );
    assert!(one == two, "two threads differ");
}

// ---- Heuristics with a budget (probes, dialect and release trials) ----

/// The Gamestudio probe reads at most `PROBE_BYTES` of messages per datagram: a 2 KB DirectPlay
/// 8 frame of 291 well-formed CLS_JOINs proves nothing within it, so the probe does not claim it
/// (reading all of it under every reading cost 750x a plain datagram), while the same frame
/// with 30 joins (210 bytes) is claimed. The bound is what decides, so it is what is tested.
#[test]
fn the_gamestudio_probe_reads_a_bounded_prefix() {
    use gamedissect::proto::{Confidence, ProbeInput, Protocol};
    use gamedissect::protocols::gamestudio::{PROBE_BYTES, PROTOCOL};
    use testkit::hostile::{dp8_data_frame, joins};
    // On a GameStudio port: off them a lone DirectPlay 8 data frame is no evidence at all.
    let probe = |payload: &[u8]| {
        PROTOCOL
            .probe(&ProbeInput {
                payload,
                src_port: 40_001,
                dst_port: 2_300,
            })
            .confidence
    };
    assert_eq!(PROBE_BYTES, 256);
    assert_eq!(probe(&dp8_data_frame(0, &joins(30))), Confidence::Likely);
    assert_eq!(probe(&dp8_data_frame(0, &joins(36))), Confidence::Likely);
    // 37 joins: the 37th starts at byte 252, within the budget; the 38th would start past it.
    assert_eq!(probe(&dp8_data_frame(0, &joins(37))), Confidence::Likely);
    assert_eq!(probe(&dp8_data_frame(0, &joins(38))), Confidence::No);
    assert_eq!(probe(&dp8_data_frame(0, &joins(291))), Confidence::No);
}

/// Unclaimed flows of 2 KB DirectPlay 8 frames: each is probed on its first 8 datagrams, then
/// settled as plain UDP, which its 8th record and its `stats` entry say; the 9th and later
/// datagrams are not probed (the note comes once).
#[test]
fn an_unclaimed_flow_settles_after_its_probing_budget_and_says_so() {
    use gamedissect::engine::PROBE_ATTEMPTS;
    let capture = testkit::hostile::dp8_probe_flood(3, 12);
    let (stats, err) = stats_of(&capture, Config::default());
    assert!(err.is_none());
    assert_eq!(stats.flows.len(), 3);
    for f in &stats.flows {
        assert_eq!((f.protocol, f.chosen_by), ("udp", "none"));
        assert_eq!(f.facts.len(), 1);
        assert_eq!(
            f.facts["decoder"],
            "no probe claimed its first 8 datagrams and no port is registered; settled as plain UDP (--decode-as PORT=PROTOCOL chooses)"
        );
    }
    let (out, err) = render(&capture, OutputFormat::Json, Config::default());
    assert!(err.is_none());
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 36);
    let note = "no protocol claimed this flow's first 8 datagrams; it stays plain UDP";
    for (i, line) in lines.iter().enumerate() {
        let in_flow = i % 12;
        assert_eq!(
            line.contains(note),
            in_flow + 1 == usize::from(PROBE_ATTEMPTS),
            "record {i}"
        );
        assert!(line.contains("\"protocol\":\"udp\""), "record {i}");
    }
}

/// Gamestudio datagrams that fit both dialects and both CPosition encodings: the flow reads
/// each under every open reading for `SETTLE_AFTER` (16) datagrams, then settles on what it
/// showed (A6+, packed) with a note, and every later record names the settled basis.
#[test]
fn an_ambiguous_gamestudio_flow_settles_after_16_datagrams() {
    let capture = testkit::hostile::gamestudio_ambiguous(1, 40);
    let (out, err) = render(&capture, OutputFormat::Json, Config::default());
    assert!(err.is_none());
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 40);
    let settled = "16 datagrams fit more than one reading; settled: dialect A6+, CPosition packed";
    for (i, line) in lines.iter().enumerate() {
        assert_eq!(line.contains(settled), i == 16, "record {i}: {line}");
        let basis = "settled at frame 17: 16 datagrams fit more than one reading; A6+ from here on";
        assert_eq!(line.contains(basis), i >= 16, "record {i}");
        let open = "undecided: parses as A5 and A6+; shown as A6+";
        assert_eq!(line.contains(open), i < 16, "record {i}");
    }
    let (stats, _) = stats_of(&capture, Config::default());
    assert_eq!(
        stats.flows[0].facts["dialect"],
        "A6+ (settled at frame 17: 16 datagrams fit more than one reading; A6+ from here on)"
    );
}

/// SRB2 packets that name no release are trial-decoded under every candidate release for at
/// most 32 packets of a flow (it was 256); the release basis counts them.
#[test]
fn srb2_release_trials_stop_after_32_packets() {
    let capture = testkit::hostile::srb2_trial(1, 100);
    let (stats, err) = stats_of(&capture, Config::default());
    assert!(err.is_none());
    let facts = &stats.flows[0].facts;
    let release = &facts["release"];
    assert!(release.contains("best fit over 32 packets"), "{release}");
    let (out, _) = render(&capture, OutputFormat::Json, Config::default());
    let last = out.lines().last().unwrap();
    assert!(last.contains("of 32 packets without errors"), "{last}");
}

/// 1 KB Quake 3 snapshots that render 650 entities from their baselines: no output cap (see
/// docs/architecture.md, Decisions), so every entity is shown, and the output grows with the
/// entities and nothing else (counted in bytes per entity, one snapshot as three).
#[test]
fn snapshots_rendering_baselines_show_every_entity_at_a_linear_cost() {
    let tree = |snapshots: u32| {
        let (out, err) = render(
            &testkit::hostile::q3_baseline_render(snapshots),
            OutputFormat::Tree,
            Config::default(),
        );
        assert!(err.is_none());
        out
    };
    let (one, three) = (tree(1), tree(3));
    let entities = |out: &str| out.matches("[quake3.svc.snapshot.entity.number ").count();
    // The gamestate's 1,022 baselines are entity records too.
    assert_eq!(entities(&one), 1_022 + 650);
    assert_eq!(entities(&three), 1_022 + 3 * 650);
    assert!(!three.contains("[error]"));
    let per_snapshot = three.len() - one.len();
    assert_eq!(per_snapshot % 2, 0);
    let per_entity = per_snapshot / 2 / 650;
    assert!(
        (200..400).contains(&per_entity),
        "{per_entity} bytes per entity"
    );
}

/// 200 delta snapshots whose 1,001 entity records run backwards: the first out-of-order record
/// ends each snapshot with an error (ioquake3's `CL_ParsePacketEntities`, code/client/cl_parse.c,
/// merges the list assuming ascending numbers), so a snapshot keeps one entity, the flow's state
/// stays near its gamestate's, and the work per snapshot does not grow with the flow (the merged
/// list was never capped: 73 s and 1.25 GiB for 2,000 snapshots).
#[test]
fn snapshots_out_of_order_end_early_and_keep_state_flat() {
    use testkit::quake3::snapshot_descending;
    let capture = testkit::hostile::q3_flow(200, |seq| {
        snapshot_descending(seq.into(), u8::from(seq > 2), 1_000)
    });
    let (out, err) = render(&capture, OutputFormat::Json, Config::default());
    assert!(err.is_none());
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 202);
    for (i, line) in lines.iter().enumerate().skip(2) {
        assert_eq!(
            line.matches("entity 999 out of order after 1000").count(),
            1,
            "record {i}"
        );
        assert_eq!(
            line.matches("\"number\":").count(),
            1,
            "record {i}: {line:.400}"
        );
    }
    let (stats, _) = stats_of(&capture, Config::default());
    let gamestate_only = testkit::hostile::q3_flow(0, |_| Vec::new());
    let peak = stats.flow_table.state_peak;
    let base = stats_of(&gamestate_only, Config::default())
        .0
        .flow_table
        .state_peak;
    assert!(
        peak < base + 64 * 1024,
        "{peak} bytes against {base} after the gamestate"
    );
}

/// The netchan header of a flow's datagram `i` (two client messages to one server message):
/// whether it goes to the server, and the header with the unkeyed acknowledgements read from
/// `acks` (12 bytes for a client message, 4 for a server one).
fn sequenced_header(i: u32, acks: &[u8]) -> (bool, Vec<u8>) {
    let to_server = !i.is_multiple_of(3);
    let mut p = (i + 1).to_le_bytes().to_vec();
    if to_server {
        p.extend_from_slice(&[0x34, 0x12]);
        p.extend_from_slice(acks);
    } else {
        p.extend_from_slice(&acks[..4]);
    }
    (to_server, p)
}

/// One Quake 3 flow of `datagrams` sequenced datagrams with random bodies, two client messages
/// to one server message, `per_second` of them a second. Each direction's unkeyed
/// acknowledgements are fixed, so that every body lands in one key-recovery group. Client
/// bodies are 8 to 207 bytes; server bodies too, or `server_len` bytes.
fn random_quake3_flow(
    seed: u64,
    datagrams: u32,
    server_len: Option<usize>,
    per_second: u32,
) -> PcapWriter {
    let server: std::net::SocketAddr = "10.9.0.1:27960".parse().unwrap();
    let client: std::net::SocketAddr = "10.9.0.2:27961".parse().unwrap();
    let mut rng = Rng(seed);
    // The bytes the acknowledgements are read from: 12 of a client message, 4 of a server one.
    let acks = rng.bytes(12);
    let mut w = PcapWriter::new(101, false, false, 65535);
    for i in 0..datagrams {
        let (to_server, mut p) = sequenced_header(i, &acks);
        let len = match server_len {
            Some(n) if !to_server => n,
            _ => 8 + rng.below(200) as usize,
        };
        let (src, dst) = if to_server {
            (client, server)
        } else {
            (server, client)
        };
        p.extend_from_slice(&rng.bytes(len));
        let ip = synth::ip_udp(src, dst, &p);
        let us = 1_000_000 / per_second;
        w.packet(
            1_000 + i / per_second,
            (i % per_second) * us,
            &ip,
            ip.len() as u32,
        );
    }
    w
}

/// A Quake 3 flow of random bytes (sequenced headers, random bodies, both directions), each
/// direction's unkeyed acknowledgements fixed so that every body lands in one key-recovery
/// group, the worst case: the recovery pools them and searches for pads, and its work is
/// counted and capped by the credit: 8,388,608 steps at the flow's fourth pooled keyed message and
/// 1,024 for each pooled message, at most 16,384 per pooled message in one search, and the
/// group given up after five searches that found nothing (quake3/legacykey.rs; a trial parse
/// is 16 steps). The screens of numbered key strings (legacykey/numbered.rs) have a credit of
/// their own, 4,194,304 steps and 512 per pooled message; on random bodies their message-end
/// filters pass too many bytes and no screen runs past computing them (the longest message
/// and the pooled messages, a step each). The tries of the pad's period (legacykey/periodic.rs,
/// five per group) look at the pooled messages' ends only (16 steps per pooled message: its last
/// byte under each pad value): random bodies ending alike do not agree, so nothing is scored.
#[test]
fn random_bytes_on_a_quake3_port_cost_bounded_counted_work() {
    let datagrams = 3_000u32;
    let w = random_quake3_flow(0x0bad_5eed, datagrams, None, 100);
    let (stats, err) = stats_of(&w.bytes, Config::default());
    assert!(err.is_none());
    let flow = stats
        .flows
        .iter()
        .find(|f| f.facts.contains_key("game messages"))
        .expect("the Quake 3 flow");
    let pads = &flow.facts["xor pads"];
    let work: u64 = pads
        .rsplit_once('(')
        .and_then(|(_, t)| t.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{pads}"));
    // The recovery ran, and spent at most what the pooled messages credited.
    assert!(work > 0, "{pads}");
    assert!(work <= 8_388_608 + 1_024 * datagrams as u64, "{pads}");
    // Five searches at 4 to 27 pooled messages, then none, each with its screen: both count
    // the message ends (a step per keyed byte and per pooled message), and find no byte where
    // three messages end, the evidence needed before seeds are written out (random lengths
    // seldom give one; legacykey.rs `decidable`): nothing more is spent (before that test,
    // 1,073,000 steps). The tries of the pad's period (legacykey/periodic.rs) look at the
    // message ends too, and stop there: random ends do not agree.
    let filters = 2 * 5 * (208 + 27);
    let period_looks = 2 * 5 * (1 + 96 * 16);
    assert!(work <= filters + period_looks, "{pads}");
    // Random bodies rarely parse to their last byte, so almost nothing is de-keyed.
    let games = &flow.facts["game messages"];
    let decoded: u64 = games.split(' ').next().unwrap().parse().unwrap();
    assert!(decoded < datagrams as u64 / 10, "{games}");
    // The messages left keyed while their group was searched for were held (quake3/hold.rs),
    // none decoded: every server message (the server group waits for the challenge byte, so
    // it is never given up) and the client messages while server messages are held (their key
    // may be a server command those carry), until 1,024 in a row were released as first shown
    // (the 1,024 still held then are released too); the hold and the pooled messages stay
    // within the flow's state.
    let held = &flow.facts["held"];
    assert_eq!(
        held,
        "2048 messages held while their key was searched for: 0 decoded later, 2048 never"
    );
    assert!(
        stats.flow_table.state_peak < 1 << 20,
        "{}",
        stats.flow_table.state_peak
    );
}

/// The work steps a Quake 3 flow's pad recovery spent (its `xor pads` fact), 0 when none.
fn pad_work(flow: &gamedissect::engine::FlowStats) -> u64 {
    let Some(pads) = flow.facts.get("xor pads") else {
        return 0;
    };
    (pads.rsplit_once('('))
        .and_then(|(_, t)| t.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{pads}"))
}

/// `flows` Quake 3 flows of `per_flow` datagrams each, taking turns one datagram at a time
/// (the layout of [`random_quake3_flow`] and scripts/hostile-quake3-flows.py): random bodies,
/// each flow's acknowledgements fixed, two client messages to one server message. Bodies are
/// 8 to 207 bytes, or with `lengths` one of that many lengths drawn per flow (crafted: many
/// messages end at one byte, as real ones do). Returns the capture and, per client address, the
/// lengths of its client bodies in order.
fn random_quake3_flows(
    seed: u64,
    flows: u32,
    per_flow: u32,
    lengths: Option<usize>,
) -> (
    PcapWriter,
    std::collections::HashMap<std::net::SocketAddr, Vec<usize>>,
) {
    let server: std::net::SocketAddr = "10.9.0.1:27960".parse().unwrap();
    let mut rng = Rng(seed);
    let mut w = PcapWriter::new(101, false, false, 65535);
    let clients: Vec<std::net::SocketAddr> = (0..flows)
        .map(|k| {
            let ip = [10, 9, 1 + (k / 250) as u8, 2 + (k % 250) as u8];
            std::net::SocketAddr::from((ip, 27_961 + k as u16))
        })
        .collect();
    let acks: Vec<Vec<u8>> = (0..flows).map(|_| rng.bytes(12)).collect();
    let sizes: Vec<Vec<usize>> = (0..flows)
        .map(|_| {
            let n = lengths.unwrap_or(0);
            (0..n).map(|_| 8 + rng.below(200) as usize).collect()
        })
        .collect();
    let mut sent = std::collections::HashMap::new();
    for n in 0..flows * per_flow {
        let (k, i) = ((n % flows) as usize, n / flows);
        let to_server = i % 3 != 0;
        let len = match &sizes[k][..] {
            [] => 8 + rng.below(200) as usize,
            some => some[rng.below(some.len() as u64) as usize],
        };
        let mut p = (i + 1).to_le_bytes().to_vec();
        let (src, dst) = if to_server {
            p.extend_from_slice(&[0x34, 0x12]);
            p.extend_from_slice(&acks[k]);
            sent.entry(clients[k]).or_insert_with(Vec::new).push(len);
            (clients[k], server)
        } else {
            p.extend_from_slice(&acks[k][..4]);
            (server, clients[k])
        };
        p.extend_from_slice(&rng.bytes(len));
        let ip = synth::ip_udp(src, dst, &p);
        w.packet(1_000 + n / 100, (n % 100) * 10_000, &ip, ip.len() as u32);
    }
    (w, sent)
}

/// Whether three lengths are equal: three client messages ending at one byte, the evidence the
/// pad recovery needs before it writes out its seeds without the challenge byte
/// (quake3/legacykey.rs `decidable`).
fn three_alike(lengths: &[usize]) -> bool {
    let mut seen = std::collections::HashMap::new();
    lengths.iter().any(|&l| {
        let c = seen.entry(l).or_insert(0);
        *c += 1;
        *c >= 3
    })
}

/// 200 flows of random bodies on a Quake 3 port: the pad recovery's work is counted per flow
/// and stays with the filters' cost, whatever the number of flows. A client group is searched
/// at 4 pooled messages and each time their number grows by half (at least by 4), so a flow of
/// 40 client messages has at most 10 searches (random bodies make groups come and go: their
/// server messages seem to acknowledge many commands). A search and its screen of numbered
/// strings first count the messages' ends (a step per pooled message and per keyed byte: at
/// most 2 × (207 + 40) each, 4,940 in all), and without a byte where three messages end
/// (random lengths of 8 to 207 bytes seldom give one) they write no seeds and parse nothing.
/// A flow whose messages do give one may spend its searches' allowance, 16,384 steps per
/// pooled message at each search (the pools growing by half, at most 3 × 40 messages in all).
/// Before this evidence test, each flow spent about a million steps (500 flows in 5 MB: 35
/// times a real capture's CPU time).
#[test]
fn many_random_quake3_flows_spend_only_the_filters() {
    let (w, lengths) = random_quake3_flows(0x5eed_0200, 200, 60, None);
    let (stats, err) = stats_of(&w.bytes, Config::default());
    assert!(err.is_none());
    let flows: Vec<_> = (stats.flows.iter())
        .filter(|f| f.facts.contains_key("game messages"))
        .collect();
    assert_eq!(flows.len(), 200);
    const FILTERS: u64 = 10 * 2 * (207 + 40);
    const ALLOWANCE: u64 = 16_384 * 3 * 40;
    let (mut evident, mut total) = (0, 0);
    for f in &flows {
        let work = pad_work(f);
        total += work;
        if three_alike(&lengths[&f.client]) {
            evident += 1;
            assert!(work <= ALLOWANCE + FILTERS, "{}: {work}", f.client);
        } else {
            assert!(work > 0, "{}: the recovery looked", f.client);
            assert!(work <= FILTERS, "{}: {work}", f.client);
        }
    }
    // About 19 % of flows of 40 random lengths have three alike.
    assert!(evident < 50, "{evident}");
    assert!(total <= 200 * FILTERS + evident * ALLOWANCE, "{total}");
}

/// Flows crafted to pass that evidence (their bodies have three lengths, so many messages end at
/// one byte) are bounded by their start credit, which shrinks as conversations (flows of four
/// datagrams or more) fill the engine's table: whole for the first sixteen, then
/// 8,388,608 × (16 / n)² steps with n of them in the table (quake3/legacykey.rs
/// `start_credit`), so all the start credits of a capture add up to at most 32 whole ones; the
/// screens' credit likewise (4,194,304 whole). Besides, each pooled message
/// adds 1,024 and 512 steps, and each search or screen counts its filters. The flows' total is
/// bounded so; before, every flow started with the whole credit and spent about a million
/// steps (the 500 flows of `hostile-quake3-flows.py --lengths 3`: 587 million). And the
/// output is the same on one and three threads: the flow count the credits are decided from is
/// the same on every shard.
#[test]
fn crafted_quake3_flows_share_a_bounded_start_credit_on_any_thread_count() {
    let flows = 500u32;
    let (w, lengths) = random_quake3_flows(0x5eed_0500, flows, 60, Some(3));
    let (stats, err) = stats_of(&w.bytes, Config::default());
    assert!(err.is_none());
    let total: u64 = stats.flows.iter().map(pad_work).sum();
    let keyed = 60 * flows as u64;
    // At most 10 searches per flow of 40 client messages, as above.
    let searches = lengths.len() as u64 * 10;
    let bound = 32 * (8_388_608 + 4_194_304) + (1_024 + 512) * keyed + searches * 2 * (207 + 40);
    assert!(total <= bound, "{total} > {bound}");
    // The crafted flows do search (they are not refused as random ones are).
    assert!(total > 1_000_000, "{total}");
    let (one, err) = render(&w.bytes, OutputFormat::Json, Config::default());
    assert!(err.is_none());
    let (three, _) = render_sharded(
        &w.bytes,
        OutputFormat::Json,
        Config::default(),
        3,
        Tuning::default(),
    );
    assert!(one == three, "three threads differ");
}

/// The OpenArena legacy capture's records `from` to `to` (mid-game: no handshake), as
/// `copies` sets of flows on their own IPv4 addresses (10.`first + k`.0.1, both ends), copy k
/// starting 50 ms after copy k − 1 and `offset_us` after the original, in time order: (time,
/// Ethernet frame).
fn legacy_copies(
    (from, to): (usize, usize),
    first: u8,
    copies: u8,
    offset_us: u64,
) -> Vec<(u64, Vec<u8>)> {
    let raw = std::fs::read("captures/quake3-openarena-legacy.pcap").unwrap();
    let le32 = |o: usize| u32::from_le_bytes(raw[o..o + 4].try_into().unwrap());
    let mut records = Vec::new();
    let mut o = 24;
    while o + 16 <= raw.len() {
        let len = le32(o + 8) as usize;
        let time = le32(o) as u64 * 1_000_000 + le32(o + 4) as u64;
        records.push((time, raw[o + 16..o + 16 + len].to_vec()));
        o += 16 + len;
    }
    let mut out = Vec::new();
    for k in 0..copies {
        for (time, frame) in &records[from..to.min(records.len())] {
            let mut frame = frame.clone();
            // Ethernet, then IPv4: the source and destination addresses.
            for at in [26, 30] {
                frame[at..at + 4].copy_from_slice(&[10, first + k, 0, 1]);
            }
            out.push((time + offset_us + 50_000 * k as u64, frame));
        }
    }
    out.sort_by_key(|r| r.0);
    out
}

/// The pad recovery's start credit is sized by the conversations in the flow table
/// (`Datagram::conversations`), which every shard counts alike: 64 mid-game copies of 200
/// frames of the legacy capture (more than the sixteen that get the whole credit), then, eleven
/// minutes of capture time later (past the idle time, so the 64 are forgotten), one more of
/// 838 frames, decode the same on one to four threads, and the last copy decodes as it does
/// alone (558 messages): the forgotten flows no longer count. The 64th copy of the crowd,
/// granted its credit with the 63 others in the table, decodes less than alone (none, against
/// 119: a limit of a crowded capture, docs/protocols/quake3.md "Many flows").
#[test]
fn forgotten_flows_leave_the_start_credit_alone_on_any_thread_count() {
    let crowd = legacy_copies((838, 1038), 1, 64, 0);
    let last = crowd.last().unwrap().0;
    let late = legacy_copies((838, usize::MAX), 200, 1, last + 660_000_000);
    let write = |records: &[(u64, Vec<u8>)]| {
        let mut w = PcapWriter::new(1, false, false, 65535);
        for (time, frame) in records {
            let (secs, us) = ((time / 1_000_000) as u32, (time % 1_000_000) as u32);
            w.packet(secs, us, frame, frame.len() as u32);
        }
        w.bytes
    };
    let both = write(&[crowd, late.clone()].concat());
    let alone = write(&late);
    let stats = |bytes: &[u8]| {
        let (stats, err) = stats_of(bytes, Config::default());
        assert!(err.is_none());
        stats
    };
    // The one-thread render and the `stats` of the three captures are independent decodes:
    // they run side by side (the sharded renders below use several threads each).
    let (one, [both_stats, alone_stats, crowd_alone_stats]) = std::thread::scope(|s| {
        let counted = s.spawn(|| {
            let crowd_alone = write(&legacy_copies((838, 1038), 64, 1, 0));
            [stats(&both), stats(&alone), stats(&crowd_alone)]
        });
        let (one, err) = render(&both, OutputFormat::Json, Config::default());
        assert!(err.is_none());
        (one, counted.join().unwrap())
    });
    for shards in [2, 3, 4] {
        let (many, _) = render_sharded(
            &both,
            OutputFormat::Json,
            Config::default(),
            shards,
            Tuning::default(),
        );
        assert!(one == many, "{shards} threads differ");
    }
    let facts = |stats: &gamedissect::engine::Stats, ip: [u8; 4]| {
        let f = (stats.flows.iter())
            .find(|f| {
                f.client.ip() == std::net::IpAddr::from(ip) && f.facts.contains_key("game messages")
            })
            .expect("the late copy's flow")
            .facts
            .clone();
        (f["game messages"].clone(), f["xor pads"].clone())
    };
    let late_facts = facts(&both_stats, [10, 200, 0, 1]);
    assert_eq!(late_facts, facts(&alone_stats, [10, 200, 0, 1]));
    // It does decode: the start credit was whole.
    assert!(!late_facts.0.starts_with("0 decoded"), "{late_facts:?}");
    // The crowd's last copy had a (16 / 64)² share of the start credit at most.
    let crowded = facts(&both_stats, [10, 64, 0, 1]);
    let crowd_alone = facts(&crowd_alone_stats, [10, 64, 0, 1]);
    assert!(crowded != crowd_alone, "{crowded:?}");
}

// ---- review: hostile inputs to `demo` and `report` ----

/// One Quake 3 connection (challenge response, then `gamestates` gamestates in a row, sequence
/// 1, 2, …): every server message is a map change, and each starts a demo.
fn map_change_flood(gamestates: u32) -> Vec<u8> {
    use testkit::quake3;
    let body = quake3::gamestate(0);
    let server: std::net::SocketAddr = "10.255.0.1:27960".parse().unwrap();
    let client: std::net::SocketAddr = "10.1.0.1:27961".parse().unwrap();
    let mut w = PcapWriter::new(101, false, false, 65535);
    let ip = synth::ip_udp(server, client, &quake3::challenge_response());
    w.packet(1_000, 0, &ip, ip.len() as u32);
    for i in 1..=gamestates {
        let ip = synth::ip_udp(server, client, &quake3::s2c(i, &body));
        w.packet(1_000 + i / 1_000, i % 1_000, &ip, ip.len() as u32);
    }
    w.bytes
}

/// A map change at every message used to make a demo each, named in work quadratic in their
/// number (40,000 took 88 s in release). Past `MAX_DEMOS` a gamestate starts none, and the
/// connection says how many.
#[test]
fn a_map_change_at_every_message_makes_a_bounded_number_of_demos() {
    use gamedissect::commands::demo::{MAX_DEMOS, demos_of};
    let report = demos_of(
        &map_change_flood(MAX_DEMOS as u32 + 500),
        Config::default(),
        false,
    );
    assert_eq!(report.demos.len(), MAX_DEMOS);
    let last = report.demos.last().unwrap();
    assert_eq!(
        (last.name.as_str(), last.messages, last.first_frame),
        ("unknown_10.255.0.1-27960_q3dm17-10000.dm_72", 1, 10_001)
    );
    assert_eq!(report.skipped.len(), 1);
    assert_eq!(
        report.skipped[0].reason,
        "500 gamestates came after the first 10000 demos and started none"
    );
}

/// A gamestate whose serverinfo names `map` and whose client (number 1) is called `player`.
fn gamestate_named(map: &[u8], player: &[u8]) -> Vec<u8> {
    let mut w = testkit::quake3::BitWriter::default();
    w.long(0);
    w.byte(2); // svc_gamestate
    w.long(4);
    for (index, text) in [
        (0, [b"\\mapname\\", map].concat()),
        (545, [b"\\n\\", player].concat()),
    ] {
        w.byte(3); // svc_configstring
        w.bits(index, 16);
        w.string(&text);
    }
    w.byte(8);
    w.long(1); // clientNum
    w.long(0); // checksumFeed
    w.byte(8);
    w.data
}

/// Player and map names are the server's to choose: path separators, `..`, a leading dot,
/// bytes that are not UTF-8 and very long names must give a short file name inside `-o DIR`.
#[test]
fn hostile_player_and_map_names_stay_inside_the_output_directory() {
    use testkit::quake3;
    let server: std::net::SocketAddr = "10.255.0.1:27960".parse().unwrap();
    let client: std::net::SocketAddr = "10.1.0.1:27961".parse().unwrap();
    let mut w = PcapWriter::new(101, false, false, 65535);
    let names: [(&[u8], &[u8]); 3] = [
        (b"../../../tmp/evil", b"..\\..\\x/y"),
        (b"/etc/passwd\xff", "\u{e9}/../\u{1}x".as_bytes()),
        (&[b'm'; 300], b"^1..^7"),
    ];
    let ip = synth::ip_udp(server, client, &quake3::challenge_response());
    w.packet(1_000, 0, &ip, ip.len() as u32);
    for (i, (map, player)) in names.iter().enumerate() {
        let msg = quake3::s2c(i as u32 + 1, &gamestate_named(map, player));
        let ip = synth::ip_udp(server, client, &msg);
        w.packet(1_000, i as u32 + 1, &ip, ip.len() as u32);
    }
    let root =
        std::env::temp_dir().join(format!("gamedissect-hostile-names-{}", std::process::id()));
    let dir = root.join("out");
    std::fs::create_dir_all(&root).unwrap();
    let cap = root.join("names.pcap");
    std::fs::write(&cap, &w.bytes).unwrap();
    let exe = env!("CARGO_BIN_EXE_gamedissect");
    let out = std::process::Command::new(exe)
        .args(["demo", "-o"])
        .arg(&dir)
        .arg(&cap)
        .output();
    assert!(out.as_ref().unwrap().status.success(), "{out:?}");
    let listing = |d: &std::path::Path| {
        let mut names: Vec<String> = std::fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        names
    };
    let (written, around) = (listing(&dir), listing(&root));
    std::fs::remove_dir_all(&root).unwrap();
    assert_eq!(around, ["names.pcap", "out"], "nothing written beside DIR");
    // A byte that is not UTF-8 is one `_` like any other; the player's name is cleaned first
    // (Q_CleanStr: the `é` and the control byte go).
    assert_eq!(
        written,
        [
            "_.._x_10.255.0.1-27960__etc_passwd_.dm_72",
            "unknown_10.255.0.1-27960__.._.._tmp_evil.dm_72",
            &format!("unknown_10.255.0.1-27960_{}.dm_72", "m".repeat(48)),
        ]
    );
}

/// Demos as input: empty messages, random ones of every length up to `MAX_MSGLEN`, sequences
/// that jump anywhere, and bytes after the end marker (which the game never reads either).
/// Every record is one frame, and nothing is an input error.
#[test]
fn a_demo_of_empty_and_random_messages_reads_record_by_record() {
    let record = |seq: u32, msg: &[u8]| {
        let mut r = seq.to_le_bytes().to_vec();
        r.extend_from_slice(&(msg.len() as u32).to_le_bytes());
        r.extend_from_slice(msg);
        r
    };
    let mut rng = Rng(11);
    let mut demo = record(1, b"\x00");
    for i in 0..1_000u32 {
        demo.extend(record(i + 2, b""));
    }
    for _ in 0..300 {
        let seq = rng.next_u64() as u32;
        let len = rng.below(16_385) as usize;
        demo.extend(record(seq, &rng.bytes(len)));
    }
    demo.extend_from_slice(&[0xff; 8]);
    demo.extend_from_slice(b"not read");
    for format in [OutputFormat::Summary, OutputFormat::Json] {
        let (out, err) = render(&demo, format, Config::default());
        assert!(err.is_none(), "{err:?}");
        assert_eq!(out.lines().count(), 1_301, "{format:?}");
    }
    let (stats, _) = stats_of(&demo, Config::default());
    assert_eq!(stats.frames, 1_301);
}

/// A Quake 3 flow of random bodies whose server messages all fall in one key-recovery group
/// that is never searched (so each is held): a flow holds at most 512 messages and 512 KiB of
/// them (quake3/hold.rs), counted in its state, and each is released as first shown with the
/// note, in frame order.
#[test]
fn held_quake3_messages_stay_within_the_flow_bounds() {
    // Server bodies large enough that the 512 KiB bound comes before the 512 messages one.
    let datagrams = 3_000u32;
    let w = random_quake3_flow(0x401d_5eed, datagrams, Some(1_300), 200);
    let (stats, err) = stats_of(&w.bytes, Config::default());
    assert!(err.is_none());
    let flow = (stats.flows.iter())
        .find(|f| f.facts.contains_key("game messages"))
        .expect("the Quake 3 flow");
    let held = &flow.facts["held"];
    let n: u64 = held.split(' ').next().unwrap().parse().unwrap();
    assert!(n >= 900, "{held}");
    assert!(
        held.ends_with(&format!("0 decoded later, {n} never")),
        "{held}"
    );
    // The payloads held (at most 512 KiB) are counted in the flow's state, beside the pad
    // recovery's pool (96 messages of a group, here about 125 KiB) and the held entries.
    let peak = stats.flow_table.state_peak;
    assert!(peak > 512 << 10, "{peak}");
    assert!(peak < 1 << 20, "{peak}");
    let (json, err) = render(&w.bytes, OutputFormat::Json, Config::default());
    assert!(err.is_none());
    let noted = json
        .matches("held while its XOR pad was searched for")
        .count() as u64;
    assert_eq!(noted, n);
    let frames: Vec<u64> = (json.lines())
        .map(|l| {
            let at = l.find("\"frame\":").unwrap() + 8;
            let digits = l[at..].split(|c: char| !c.is_ascii_digit()).next().unwrap();
            digits.parse().unwrap()
        })
        .collect();
    assert_eq!(frames, (1..=datagrams as u64).collect::<Vec<_>>());
}

/// A server's `statusResponse` (ioquake3 code/server/sv_main.c `SVC_Status`) listing 64 players:
/// the first ten lines carry names no info string can hold (a backslash, a quote) or longer
/// than a name; then `{prefix}0`, `{prefix}1`….
fn status_of(prefix: &str) -> Vec<u8> {
    let mut p = b"\xff\xff\xff\xffstatusResponse\n\\sv_hostname\\x\\mapname\\q3dm1\n".to_vec();
    for i in 0..64 {
        let name = match i {
            0..4 => format!("Back\\slash{i}"),
            4..7 => format!("Quo\"te{i}"),
            7..10 => "L".repeat(37 + i),
            _ => format!("{prefix}{}", i - 10),
        };
        p.extend_from_slice(format!("{i} {i} \"{name}\"\n").as_bytes());
    }
    p
}

/// Statuses from 600 servers (more than the 256 endpoints remembered) and from the game flow's
/// own server, its player list changing every 50 datagrams: what is overheard stays bounded
/// (the flow takes the fair names only, eight of them), the changes cost the flow's key
/// recovery nothing beyond its credit, and the output is the same on several threads. Random
/// bodies key nothing, so the records here do not show the names: that a name heard on another
/// shard's flow reaches the game flow is checked on the busy capture
/// (tests/quake3_wild_busy.rs, `the_servers_status_tells_the_game_flow_the_names`).
#[test]
fn statuses_from_many_servers_stay_bounded_and_the_same_on_several_threads() {
    let server: std::net::SocketAddr = "10.9.0.1:27960".parse().unwrap();
    let client: std::net::SocketAddr = "10.9.0.2:27961".parse().unwrap();
    let browser: std::net::SocketAddr = "10.7.0.1:40000".parse().unwrap();
    let datagrams = 3_000u32;
    let mut rng = Rng(0x5747);
    let acks = rng.bytes(12);
    let mut w = PcapWriter::new(101, false, false, 65535);
    let mut at = 0u32;
    let mut send = |w: &mut PcapWriter, src, dst, p: &[u8]| {
        let ip = synth::ip_udp(src, dst, p);
        w.packet(1_000 + at / 100, (at % 100) * 10_000, &ip, ip.len() as u32);
        at += 1;
    };
    for i in 0..datagrams {
        if i % 3 == 0 {
            let n = i / 3 % 600;
            let other = std::net::SocketAddr::from(([10, 8, (n >> 8) as u8, n as u8], 27960));
            send(&mut w, other, browser, &status_of(&format!("S{n}x")));
        }
        if i % 50 == 0 {
            let list = if i / 50 % 2 == 0 { "A" } else { "B" };
            send(&mut w, server, browser, &status_of(list));
        }
        let (to_server, mut p) = sequenced_header(i, &acks);
        let (src, dst) = if to_server {
            (client, server)
        } else {
            (server, client)
        };
        let len = 8 + rng.below(200) as usize;
        p.extend_from_slice(&rng.bytes(len));
        send(&mut w, src, dst, &p);
    }
    let (stats, err) = stats_of(&w.bytes, Config::default());
    assert!(err.is_none());
    let flow = (stats.flows.iter())
        .find(|f| f.client == client)
        .expect("the Quake 3 flow");
    // The last status (datagram 2,950, list "B") names come first; the older list's are cut at
    // eight names in all.
    assert_eq!(
        flow.facts["names overheard"],
        "B0, B1, B2, B3, B4, B5, B6, B7 (the server's status to a server browser, tried as key \
         material)"
    );
    let pads = &flow.facts["xor pads"];
    let work: u64 = (pads.rsplit_once('('))
        .and_then(|(_, t)| t.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{pads}"));
    // A retry of each group's echo at every change of names is paid from the same credit as
    // every other try (random_bytes_on_a_quake3_port_cost_bounded_counted_work).
    assert!(work <= 8_388_608 + 1_024 * datagrams as u64, "{pads}");
    let (one, _) = render(&w.bytes, OutputFormat::Json, Config::default());
    for shards in [2, 3] {
        let (many, _) = render_sharded(
            &w.bytes,
            OutputFormat::Json,
            Config::default(),
            shards,
            Tuning::default(),
        );
        assert!(one == many, "{shards} threads differ");
    }
}
