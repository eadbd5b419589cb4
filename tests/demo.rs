//! `gamedissect demo`: the demos made from the shipped Quake 3 captures, read back with a demo
//! reader of this test's own (ioquake3 code/client/cl_main.c `CL_ReadDemoMessage`), compared byte
//! for byte with the server messages taken from the raw capture, and read again by `dissect`,
//! whose server → client decode must equal the capture's.

use std::collections::HashMap;
use std::process::Command;

use gamedissect::commands::demo::{Report, demos_of};
use gamedissect::engine::Config;
use gamedissect::run::{OutputFormat, render};
use serde_json::Value;

const LEGACY: &str = "quake3-openarena-legacy";
const IOQ3: &str = "quake3-ioq3-protocol";

fn capture(name: &str) -> Vec<u8> {
    std::fs::read(format!("captures/{name}.pcap")).expect("capture exists")
}

fn le32(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().expect("4 bytes"))
}

/// A demo's records until the end marker, which must close it: (sequence, message).
fn read_demo(bytes: &[u8]) -> Vec<(u32, Vec<u8>)> {
    let mut out = Vec::new();
    let mut at = 0;
    loop {
        let seq = le32(bytes, at);
        let len = le32(bytes, at + 4) as i32;
        if len == -1 {
            assert_eq!(seq as i32, -1, "the end marker is two -1");
            assert_eq!(at + 8, bytes.len(), "nothing after the end marker");
            return out;
        }
        let len = len as usize;
        assert!(len <= 16_384, "MAX_MSGLEN");
        out.push((seq, bytes[at + 8..at + 8 + len].to_vec()));
        at += 8 + len;
    }
}

/// The UDP payloads of a little-endian µs pcap of Ethernet/IPv4 frames, in order, with the
/// source port: (source port, payload).
fn udp_payloads(pcap: &[u8]) -> Vec<(u16, Vec<u8>)> {
    assert_eq!(&pcap[..4], &[0xd4, 0xc3, 0xb2, 0xa1]);
    assert_eq!(le32(pcap, 20), 1, "Ethernet");
    let mut out = Vec::new();
    let mut at = 24;
    while at < pcap.len() {
        let incl = le32(pcap, at + 8) as usize;
        let frame = &pcap[at + 16..at + 16 + incl];
        at += 16 + incl;
        let ip = &frame[14..];
        if u16::from_be_bytes([frame[12], frame[13]]) != 0x0800 || ip[9] != 17 {
            continue;
        }
        let udp = &ip[usize::from(ip[0] & 15) * 4..];
        let len = usize::from(u16::from_be_bytes([udp[4], udp[5]]));
        out.push((u16::from_be_bytes([udp[0], udp[1]]), udp[8..len].to_vec()));
    }
    out
}

/// The server → client messages of an ioquake3-flavour capture after netchan processing, from
/// the raw datagrams (ioquake3 code/qcommon/net_chan.c `Netchan_Process`: sequence and checksum
/// header; fragments of 1,300 bytes until a shorter one).
fn ioq3_server_messages(pcap: &[u8]) -> Vec<(u32, Vec<u8>)> {
    let mut out = Vec::new();
    let mut frag = Vec::new();
    for (port, p) in udp_payloads(pcap) {
        if port != 27960 || p.len() < 8 || p[..4] == [0xff; 4] {
            continue;
        }
        let seq = le32(&p, 0);
        if seq & 0x8000_0000 == 0 {
            out.push((seq, p[8..].to_vec()));
            continue;
        }
        let len = usize::from(u16::from_le_bytes([p[10], p[11]]));
        frag.extend_from_slice(&p[12..12 + len]);
        if len < 1300 {
            out.push((seq & 0x7fff_ffff, std::mem::take(&mut frag)));
        }
    }
    out
}

fn one_demo(name: &str) -> (Report, Vec<(u32, Vec<u8>)>) {
    let report = demos_of(&capture(name), Config::default(), false);
    assert_eq!(report.demos.len(), 1, "{name}: one connection, one map");
    assert!(report.skipped.is_empty());
    let messages = read_demo(&report.demos[0].bytes);
    (report, messages)
}

#[test]
fn each_capture_makes_one_demo_named_after_player_server_and_map() {
    for (name, ext, messages) in [(LEGACY, "dm_71", 400), (IOQ3, "dm_72", 399)] {
        let (report, read) = one_demo(name);
        let d = &report.demos[0];
        // The client connected as GoldenPlayer to oa_dm1 on 127.0.0.1:27960 (scripts/capture-
        // quake3.sh); the legacy connection said protocol 71, the ioquake3 one 72.
        assert_eq!(d.name, format!("GoldenPlayer_127.0.0.1-27960_oa_dm1.{ext}"));
        assert_eq!(
            (d.player.as_str(), d.map.as_str()),
            ("GoldenPlayer", "oa_dm1")
        );
        assert_eq!((d.messages, d.lost), (messages, 0));
        assert_eq!(read.len() as u64, d.messages);
        // The gamestate first, then every message in sequence up to the client's disconnect.
        let seqs: Vec<u32> = read.iter().map(|m| m.0).collect();
        let first = seqs[0];
        assert_eq!(seqs, (first..first + messages as u32).collect::<Vec<_>>());
    }
}

#[test]
fn ioq3_demo_messages_are_the_captured_messages_byte_for_byte() {
    let (_, read) = one_demo(IOQ3);
    let raw: HashMap<u32, Vec<u8>> = ioq3_server_messages(&capture(IOQ3)).into_iter().collect();
    // The gamestate came in three fragments (1312 + 1312 + 348 bytes with their headers).
    assert_eq!(read[0].1.len(), 1300 + 1300 + 336);
    for (seq, bytes) in &read {
        assert_eq!(Some(bytes), raw.get(seq), "message {seq}");
    }
}

#[test]
fn legacy_demo_messages_are_the_captured_messages_de_keyed() {
    let (_, read) = one_demo(LEGACY);
    let mut raw = HashMap::new();
    let mut frag = Vec::new();
    for (port, p) in udp_payloads(&capture(LEGACY)) {
        if port != 27960 || p.len() < 4 || p[..4] == [0xff; 4] {
            continue;
        }
        let seq = le32(&p, 0);
        if seq & 0x8000_0000 == 0 {
            raw.insert(seq, p[4..].to_vec());
            continue;
        }
        let len = usize::from(u16::from_le_bytes([p[6], p[7]]));
        frag.extend_from_slice(&p[8..8 + len]);
        if len < 1300 {
            raw.insert(seq & 0x7fff_ffff, std::mem::take(&mut frag));
        }
    }
    let mut keyed = 0;
    for (seq, bytes) in &read {
        let captured = &raw[seq];
        // The legacy netchan keys everything after the first 4 bytes (CL_Netchan_Decode starts at
        // CL_DECODE_START): same length, same first 4 bytes, and de-keyed bytes after them.
        assert_eq!(bytes.len(), captured.len(), "message {seq}");
        assert_eq!(bytes[..4], captured[..4], "message {seq}");
        keyed += usize::from(bytes[4..] != captured[4..]);
    }
    assert_eq!(keyed, read.len(), "every message was de-keyed");
}

fn json_lines(text: &str) -> Vec<Value> {
    text.lines()
        .map(|l| serde_json::from_str(l).expect("json line"))
        .collect()
}

#[test]
fn dissect_of_a_demo_decodes_like_the_capture() {
    for name in [LEGACY, IOQ3] {
        let report = demos_of(&capture(name), Config::default(), false);
        let demo = &report.demos[0];
        let (text, err) = render(&demo.bytes, OutputFormat::Json, Config::default());
        assert!(err.is_none(), "{err:?}");
        let from_demo = json_lines(&text);
        let (text, _) = render(&capture(name), OutputFormat::Json, Config::default());
        let by_seq: HashMap<u64, Value> = json_lines(&text)
            .into_iter()
            .filter(|r| r["direction"] == "to_client" && r["fields"]["quake3"]["svc"].is_object())
            .map(|r| {
                (
                    r["fields"]["quake3"]["netchan"]["sequence"]
                        .as_u64()
                        .unwrap(),
                    r,
                )
            })
            .collect();
        assert_eq!(from_demo.len() as u64, demo.messages);
        for (i, rec) in from_demo.iter().enumerate() {
            // Frame numbers count the demo's messages; the pseudo flow goes to the client.
            assert_eq!(rec["frame"], i as u64 + 1);
            assert_eq!(rec["direction"], "to_client");
            assert_eq!(rec["src"], "0.0.0.0:27960");
            let q = &rec["fields"]["quake3"];
            let seq = q["netchan"]["sequence"].as_u64().unwrap();
            let captured = &by_seq[&seq];
            assert_eq!(
                q["svc"], captured["fields"]["quake3"]["svc"],
                "{name} seq {seq}"
            );
            assert_eq!(rec["type"], captured["type"]);
            assert!(
                rec["notes"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .all(|n| n["severity"] != "error")
            );
        }
    }
}

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_gamedissect"))
}

#[test]
fn the_command_writes_lists_and_skips() {
    let dir = std::env::temp_dir().join(format!("gamedissect-demo-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cap = format!("captures/{LEGACY}.pcap");
    let list = bin().args(["demo", "--list", &cap]).output().unwrap();
    assert!(list.status.success());
    let text = String::from_utf8(list.stdout).unwrap();
    assert_eq!(
        text,
        "would write GoldenPlayer_127.0.0.1-27960_oa_dm1.dm_71: flow 3, 127.0.0.1:27960 -> 127.0.0.1:27961, player \"GoldenPlayer\", map \"oa_dm1\", protocol 71, 400 messages (frames 16-1630), 0 lost\n"
    );
    // The directory is made when missing.
    let sub = dir.join("sub");
    let out = bin()
        .args(["demo", "-o", sub.to_str().unwrap(), &cap])
        .output()
        .unwrap();
    assert!(out.status.success());
    let written = std::fs::read(sub.join("GoldenPlayer_127.0.0.1-27960_oa_dm1.dm_71")).unwrap();
    let report = demos_of(&capture(LEGACY), Config::default(), false);
    assert_eq!(written, report.demos[0].bytes);
    // `dissect` reads the file by its content.
    let out = bin()
        .args([
            "dissect",
            sub.join("GoldenPlayer_127.0.0.1-27960_oa_dm1.dm_71")
                .to_str()
                .unwrap(),
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(String::from_utf8(out.stdout).unwrap().lines().count(), 400);
    // The same JSON on one thread and on three.
    let demo_path = sub.join("GoldenPlayer_127.0.0.1-27960_oa_dm1.dm_71");
    let json = |threads: &str| {
        let out = bin()
            .args(["dissect", "--format", "json", "--threads", threads])
            .arg(&demo_path)
            .output()
            .unwrap();
        assert!(out.status.success());
        out.stdout
    };
    assert_eq!(json("1"), json("3"));
    std::fs::remove_dir_all(&dir).unwrap();

    // Without the frames up to the gamestate's, the connection is skipped, and says why.
    let reasons = |name: &str, frames: usize| -> Vec<String> {
        let report = demos_of(
            &without_first_records(&capture(name), frames),
            Config::default(),
            false,
        );
        assert!(report.demos.is_empty());
        report
            .skipped
            .iter()
            .map(|s| format!("flow {}: {}", s.flow, s.reason))
            .collect()
    };
    // Both cuts start at server message 4 and keep messages 4 to 434: without the handshake's
    // challenge, all 430 legacy ones decode once the key recovery has found the challenge byte
    // and the client commands keying them: the first ones, keyed with the client's userinfo,
    // once a name shows and its likely userinfo fits (259 before that, 249 before the messages
    // keyed meanwhile were held and decoded in their place); the ioquake3 ones decode once four messages in a row
    // (or a long server message) decided the flavour, the first three showing only their
    // sequence; none is a gamestate.
    assert_eq!(
        reasons(LEGACY, 18),
        ["flow 0: no gamestate captured (430 server messages decoded, 0 left keyed)"]
    );
    assert_eq!(
        reasons(IOQ3, 18),
        ["flow 0: no gamestate captured (428 server messages decoded, 0 left keyed)"]
    );
}

/// The pcap without its first `n` records.
fn without_first_records(pcap: &[u8], n: usize) -> Vec<u8> {
    let mut at = 24;
    for _ in 0..n {
        at += 16 + le32(pcap, at + 8) as usize;
    }
    let mut out = pcap[..24].to_vec();
    out.extend_from_slice(&pcap[at..]);
    out
}

#[test]
fn a_damaged_demo_is_a_located_error_after_its_whole_messages() {
    let dir = std::env::temp_dir().join(format!("gamedissect-demo-cut-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let demo = demos_of(&capture(IOQ3), Config::default(), false).demos[0]
        .bytes
        .clone();
    let messages = read_demo(&demo);
    // Cut inside the third message's bytes, and a copy whose third length lies (over MAX_MSGLEN).
    let third = 8 + messages[0].1.len() + 8 + messages[1].1.len();
    let cut = dir.join("cut.dm_72");
    std::fs::write(&cut, &demo[..third + 8 + 2]).unwrap();
    let mut lying = demo.clone();
    lying[third + 4..third + 8].copy_from_slice(&16_385u32.to_le_bytes());
    let lie = dir.join("lie.dm_72");
    std::fs::write(&lie, &lying).unwrap();
    for (path, at, what) in [
        (
            &cut,
            third + 8,
            format!(
                "demo message cut off after 2 of {} bytes",
                messages[2].1.len()
            ),
        ),
        (
            &lie,
            third + 4,
            "demo message length 16385 is over the game's limit of 16384".to_string(),
        ),
    ] {
        let out = bin()
            .args(["dissect", path.to_str().unwrap()])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1));
        assert_eq!(String::from_utf8(out.stdout).unwrap().lines().count(), 2);
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(
            err,
            format!("gamedissect: {}: at byte {at}: {what}\n", path.display())
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
