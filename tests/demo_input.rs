//! Demos as input, honestly (docs/protocols/quake3.md, "Demos as input"): demos of protocols
//! gamedissect does not decode are refused by name; our own demos decode with no error and no
//! network-only note, timed by their snapshots' server times, and `stats` counts the file's bytes.

use std::process::Command;

use gamedissect::commands::demo::demos_of;
use gamedissect::engine::Config;
use gamedissect::protocols::quake3::bits::BitWriter;
use gamedissect::run::{OutputFormat, render};
use serde_json::Value;

const CAPTURES: [&str; 4] = [
    "quake3-openarena-legacy",
    "quake3-ioq3-protocol",
    "quake3-openarena-busy",
    "quake3-ioq3-busy",
];

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_gamedissect"))
}

/// Every demo `gamedissect demo` makes of the shipped Quake 3 captures, one per map, and with
/// `--single` (the busy captures change map: their single demo holds two gamestates).
fn our_demos(single: bool) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    for name in CAPTURES {
        let pcap = std::fs::read(format!("captures/{name}.pcap")).expect("capture exists");
        for d in demos_of(&pcap, Config::default(), single).demos {
            out.push((format!("{name}/{}", d.name), d.bytes));
        }
    }
    out
}

fn json_lines(text: &str) -> Vec<Value> {
    text.lines()
        .map(|l| serde_json::from_str(l).expect("json line"))
        .collect()
}

/// A minimal demo whose one message is a gamestate with the serverinfo `\protocol\<p>`, as a
/// Quake 3 1.27 or Quake Live server writes it (the serverinfo holds the `protocol` cvar,
/// CVAR_SERVERINFO).
fn foreign_demo(protocol: u32) -> Vec<u8> {
    // The message, Huffman-coded as code/qcommon/msg.c `MSG_WriteBits` writes it:
    let mut w = BitWriter::default();
    w.long(0); // the reliable acknowledge (`MSG_ReadLong` in CL_ParseServerMessage)
    w.byte(2); // svc_gamestate
    w.long(0); // the server command sequence
    w.byte(3); // svc_configstring
    w.bits(0, 16); // configstring 0: the serverinfo
    w.string(format!("\\mapname\\campgrounds\\protocol\\{protocol}").as_bytes()); // and its 0
    w.byte(8); // svc_EOF: no baselines
    w.long(0); // clientNum
    w.long(0); // checksumFeed
    w.byte(8); // svc_EOF: the message's end
    let mut demo = Vec::new();
    demo.extend_from_slice(&1u32.to_le_bytes()); // the record's sequence: 1
    demo.extend_from_slice(&(w.data.len() as u32).to_le_bytes()); // the message's length
    demo.extend_from_slice(&w.data); // the message
    demo.extend_from_slice(&[0xff; 8]); // the end marker: sequence -1, length -1
    demo
}

#[test]
fn demos_of_protocols_not_decoded_are_refused_by_name() {
    let dir = std::env::temp_dir().join(format!("gamedissect-demo-input-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (protocol, game) in [
        (48, "Quake 3 1.27"),
        (73, "Quake Live"),
        (90, "Quake Live"),
        (91, "Quake Live"),
        (68, ""),
    ] {
        // The extension does not matter: the file is told by its content.
        let path = dir.join(format!("foreign.dm_{protocol}"));
        std::fs::write(&path, foreign_demo(protocol)).unwrap();
        let out = bin().arg("dissect").arg(&path).output().unwrap();
        let err = String::from_utf8(out.stderr).unwrap();
        if game.is_empty() {
            // Ours: decoded.
            assert_eq!(out.status.code(), Some(0), "{err}");
            assert_eq!(String::from_utf8(out.stdout).unwrap().lines().count(), 1);
            continue;
        }
        assert_eq!(out.status.code(), Some(1));
        assert!(out.stdout.is_empty());
        assert_eq!(
            err,
            format!(
                "gamedissect: {}: at byte 0: demo of {game} (protocol {protocol}): not decoded\n",
                path.display()
            )
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Whether a note belongs to the network, not to a demo: the netchan flavour decision, the
/// legacy XOR keys, sequence order.
fn network_only(note: &Value) -> bool {
    let field = note["field"].as_str().unwrap_or("");
    let message = note["message"].as_str().unwrap_or("");
    field.starts_with("quake3.netchan")
        || message.contains("key")
        || message.contains("not newer")
        || message.contains("flavour")
}

#[test]
fn our_demos_decode_without_errors_or_network_notes_timed_by_snapshots() {
    let mut gamestates = 0;
    for single in [false, true] {
        for (name, bytes) in our_demos(single) {
            let (text, err) = render(&bytes, OutputFormat::Json, Config::default());
            assert!(err.is_none(), "{name}: {err:?}");
            let records = json_lines(&text);
            let times: Vec<Option<u64>> = records
                .iter()
                .map(|r| r["fields"]["quake3"]["svc"]["snapshot"]["server_time"].as_u64())
                .collect();
            let first = times.iter().flatten().next().copied().expect("a snapshot");
            // The records' clock: the server time, plus what the clock had reached at each
            // restart of the server's clock (a new map's).
            let (mut last, mut server, mut shift) = (first, first, 0);
            for (r, t) in records.iter().zip(&times) {
                for n in r["notes"].as_array().unwrap() {
                    assert_ne!(n["severity"], "error", "{name}: {n}");
                    assert!(!network_only(n), "{name}: {n}");
                }
                gamestates += usize::from(r["type"] == "gamestate");
                // A snapshot at its server time; any other message at the last snapshot's, or
                // before the first, at the first's.
                if let Some(t) = *t {
                    if t < server {
                        shift += server - t;
                    }
                    server = t;
                    last = t + shift;
                }
                let ms = r["time_epoch"].as_f64().unwrap() * 1000.0;
                assert_eq!(ms.round() as u64, last, "{name} frame {}", r["frame"]);
                let rel = r["time_relative"].as_f64().unwrap() * 1000.0;
                assert_eq!(rel.round() as u64, last - first, "{name}");
            }
            assert!(last > first, "{name}: the time moves");
        }
    }
    // 6 demos of one gamestate each, and the 4 single demos: 1 + 1 + 2 + 2.
    assert_eq!(gamestates, 6 + 6);
}

#[test]
fn stats_counts_the_demo_files_own_bytes() {
    let dir = std::env::temp_dir().join(format!("gamedissect-demo-stats-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (i, (name, bytes)) in our_demos(false).into_iter().enumerate() {
        let path = dir.join(format!("{i}.dm_68"));
        std::fs::write(&path, &bytes).unwrap();
        let out = bin()
            .args(["stats", "--format", "json"])
            .arg(&path)
            .output()
            .unwrap();
        assert!(out.status.success(), "{name}");
        let stats: Value = serde_json::from_slice(&out.stdout).unwrap();
        // Every record (its 8-byte header and its message) is a frame's bytes; the end marker
        // (8 bytes) is none.
        let file = bytes.len() as u64;
        assert_eq!(stats["captured_bytes"], file - 8, "{name}");
        // The protocol's bytes are the records' too: the record header stands for the pseudo
        // netchan header, of the same 8 bytes.
        assert_eq!(stats["protocols"]["quake3"]["bytes"], file - 8, "{name}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
