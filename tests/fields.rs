//! One field at a time, in the style of Wireshark's dissection tests (`tshark -T fields -e`):
//! the values of a named field in frame order, against what the real programs logged
//! (`captures/*.log`, `captures/*.txt`) or what a hand-made capture was built from
//! (`testkit::captures`). These keep field values under test without whole-capture goldens.

use testkit::dissect::{field_values, field_values_in};

/// Just the values, frame numbers dropped.
fn values(capture: &str, field: &str) -> Vec<String> {
    field_values(capture, field)
        .into_iter()
        .map(|(_, v)| v)
        .collect()
}

/// The value of `key` in each key/value list named `pair` (e.g. `quake3.oob.info.pair`), with
/// its frame: keys and values come in the same order, one of each per pair.
fn pairs(capture: &str, pair: &str, key: &str) -> Vec<(u64, String)> {
    let keys = field_values(capture, &format!("{pair}.key"));
    let vals = field_values(capture, &format!("{pair}.value"));
    assert_eq!(keys.len(), vals.len(), "{capture} {pair}");
    keys.into_iter()
        .zip(vals)
        .filter(|((_, k), _)| k == key)
        .map(|(_, (frame, v))| (frame, v))
        .collect()
}

/// The text after `name\` in the `InitGame: \k\v\…` line of a Quake 3 server log.
fn init_game(log: &str, name: &str) -> String {
    let line = log
        .lines()
        .find_map(|l| l.strip_prefix("InitGame: "))
        .expect("an InitGame line");
    let parts: Vec<&str> = line.split('\\').collect();
    let i = parts.iter().position(|p| *p == name).expect(name);
    parts[i + 1].to_string()
}

const Q3: [&str; 2] = ["quake3-ioq3-protocol", "quake3-openarena-legacy"];

#[test]
fn quake3_handshake_commands_in_order() {
    for name in Q3 {
        let cap = format!("captures/{name}.pcap");
        let commands = values(&cap, "quake3.oob.command");
        let want = [
            "getinfo",
            "infoResponse",
            "getstatus",
            "statusResponse",
            "getchallenge",
            "challengeResponse",
            "connect",
            "connectResponse",
        ];
        let handshake: Vec<&str> = commands.iter().map(String::as_str).take(12).collect();
        for w in want {
            assert!(handshake.contains(&w), "{name}: {handshake:?}");
        }
    }
}

#[test]
fn quake3_server_info_matches_the_server_log() {
    for name in Q3 {
        let cap = format!("captures/{name}.pcap");
        let log = std::fs::read_to_string(format!("captures/{name}.log")).unwrap();
        let info = |key: &str| pairs(&cap, "quake3.oob.info.pair", key);
        let hostname = info("hostname");
        assert!(!hostname.is_empty(), "{name}");
        let want = init_game(&log, "sv_hostname");
        assert!(
            hostname.iter().all(|(_, v)| *v == want),
            "{name}: {hostname:?}"
        );
        let maps = info("mapname");
        let want = init_game(&log, "mapname");
        assert!(maps.iter().all(|(_, v)| *v == want), "{name}: {maps:?}");
        let max = info("sv_maxclients");
        let want = init_game(&log, "sv_maxclients");
        assert!(max.iter().all(|(_, v)| *v == want), "{name}: {max:?}");
    }
}

#[test]
fn quake3_connect_userinfo_names_the_logged_player() {
    for name in Q3 {
        let cap = format!("captures/{name}.pcap");
        let log = std::fs::read_to_string(format!("captures/{name}.log")).unwrap();
        // The log's `ClientUserinfoChanged: 2 n\GoldenPlayer\…` for the human client.
        let logged = log
            .lines()
            .filter_map(|l| l.strip_prefix("ClientUserinfoChanged: 2 n\\"))
            .map(|l| l.split('\\').next().unwrap_or_default().to_string())
            .next()
            .expect("the player's userinfo line");
        let names = pairs(&cap, "quake3.oob.userinfo.pair", "name");
        assert!(!names.is_empty(), "{name}");
        assert!(names.iter().all(|(_, v)| *v == logged), "{name}: {names:?}");
    }
}

#[test]
fn quake3_connect_protocol_is_the_servers_com_protocol() {
    // The client connects with the protocol the server logged in InitGame (72 for ioq3's own
    // protocol, 71 for the OpenArena legacy one).
    for name in Q3 {
        let cap = format!("captures/{name}.pcap");
        let log = std::fs::read_to_string(format!("captures/{name}.log")).unwrap();
        let protocol = pairs(&cap, "quake3.oob.userinfo.pair", "protocol");
        let com_protocol = init_game(&log, "com_protocol");
        assert!(!protocol.is_empty(), "{name}");
        assert!(
            protocol.iter().all(|(_, v)| *v == com_protocol),
            "{name}: {protocol:?}, log com_protocol {com_protocol}"
        );
    }
}

/// The `key: value` lines of a FlightGear capture's `.txt` (the first occurrence of each key).
fn fg_truth(name: &str, key: &str) -> String {
    let txt = std::fs::read_to_string(format!("captures/{name}.txt")).unwrap();
    txt.lines()
        .find_map(|l| l.strip_prefix(&format!("{key}: ")))
        .unwrap_or_else(|| panic!("{name}.txt: no {key}"))
        .to_string()
}

const FG_SINGLE: [&str; 3] = ["flightgear-v1", "flightgear-v2-ground", "flightgear-v2-air"];

#[test]
fn flightgear_callsign_and_model_are_the_ones_given_to_fgfs() {
    for name in FG_SINGLE {
        let cap = format!("captures/{name}.pcap");
        let packets: usize = fg_truth(name, "packets").parse().unwrap();
        let callsigns = values(&cap, "flightgear.callsign");
        assert_eq!(callsigns.len(), packets, "{name}");
        let want = fg_truth(name, "callsign");
        assert!(callsigns.iter().all(|c| *c == want), "{name}");
        let models = values(&cap, "flightgear.position.model");
        let want = fg_truth(name, "model-path (read back /sim/model/path)");
        assert_eq!(models.len(), packets, "{name}");
        assert!(models.iter().all(|m| *m == want), "{name}");
    }
}

#[test]
fn flightgear_pad_word_tells_the_protocol_given_to_fgfs() {
    for name in FG_SINGLE {
        let cap = format!("captures/{name}.pcap");
        let want = match fg_truth(name, "protocol-version-given").as_str() {
            "2" => "0x1face002",
            _ => "0x0",
        };
        let pads = values(&cap, "flightgear.position.pad");
        assert!(!pads.is_empty(), "{name}");
        assert!(pads.iter().all(|p| p == want), "{name}: {:?}", &pads[..1]);
    }
}

#[test]
fn flightgear_header_words_of_real_traffic() {
    for name in FG_SINGLE {
        let cap = format!("captures/{name}.pcap");
        let magic = values(&cap, "flightgear.magic");
        assert!(magic.iter().all(|m| m == "FGFS (0x46474653)"), "{name}");
        let version = values(&cap, "flightgear.version");
        assert!(version.iter().all(|v| v == "0x10001"), "{name}");
        let ids = values(&cap, "flightgear.msg_id");
        assert!(ids.iter().all(|i| i == "POS_DATA (7)"), "{name}");
        // fgfs 2020.3 asks for /sim/multiplay/visibility-range-nm, 100 nm unless told otherwise.
        let range = values(&cap, "flightgear.range_word.range_nm");
        assert_eq!(range.len(), magic.len(), "{name}");
        assert!(range.iter().all(|r| r == "100"), "{name}");
    }
}

#[test]
fn flightgear_handmade_header_rewrites() {
    let cap = "captures/flightgear-handmade.pcap";
    // Frame 3: fgms 0.13 forwards the range word byte-swapped; frame 4: fgms 0.11-0.12.0 put
    // the sender's address and port there.
    assert_eq!(
        field_values_in(cap, "flightgear.range_word.range_nm", 3),
        ["100"]
    );
    assert_eq!(
        field_values_in(cap, "flightgear.range_word.reply_address", 4),
        ["192.0.2.7"]
    );
    assert_eq!(field_values_in(cap, "flightgear.reply_port", 4), ["5000"]);
    assert_eq!(
        values(cap, "flightgear.msg_id"),
        [
            "POS_DATA (7)",
            "POS_DATA (7)",
            "POS_DATA (7)",
            "POS_DATA (7)",
            "CHAT_MSG (1)",
            "PING (9)",
            "PONG (10)",
            "POS_DATA (7)",
            "POS_DATA (7)",
            "POS_DATA (7)",
            "POS_DATA (7)",
            "POS_DATA (7)",
            "RESET_DATA (6)",
            "42",
            "POS_DATA (7)",
        ]
    );
    assert_eq!(
        field_values_in(cap, "flightgear.magic", 8),
        ["SFGF (0x53464746)"]
    );
}

#[test]
fn srb2_server_info_is_what_the_generator_wrote() {
    for (name, version) in [
        ("srb2-2.1.25-session", "201"),
        ("srb2-2.2.13-session", "202"),
    ] {
        let cap = format!("captures/{name}.pcap");
        assert_eq!(values(&cap, "srb2.serverinfo.version"), [version], "{name}");
        assert_eq!(values(&cap, "srb2.serverinfo.mapname"), ["MAP01"], "{name}");
        assert_eq!(values(&cap, "srb2.serverinfo.maxplayer"), ["8"], "{name}");
    }
    assert_eq!(
        values(
            "captures/srb2-2.2.13-session.pcap",
            "srb2.serverinfo.servername"
        ),
        ["Emerald Coast Co-op"]
    );
}

#[test]
fn srb2_every_checksum_is_recomputed_equal_except_the_broken_one() {
    for name in ["srb2-2.1.25-session", "srb2-2.2.13-session"] {
        let cap = format!("captures/{name}.pcap");
        let ok = values(&cap, "srb2.header.checksum_ok");
        assert!(!ok.is_empty() && ok.iter().all(|v| v == "true"), "{name}");
    }
    let broken = values("captures/srb2-broken.pcap", "srb2.header.checksum_ok");
    assert_eq!(broken.iter().filter(|v| *v == "false").count(), 1);
}

#[test]
fn gamestudio_dialect_per_capture() {
    for (name, dialect) in [
        ("gamestudio-a5-raw", "A5 (5)"),
        ("gamestudio-a6-raw", "A6+ (6)"),
        ("gamestudio-a5-dplay8", "A5 (5)"),
        ("gamestudio-a6-dplay8", "A6+ (6)"),
    ] {
        let cap = format!("captures/{name}.pcap");
        let d = values(&cap, "gamestudio.dialect");
        assert!(!d.is_empty(), "{name}");
        assert!(d.iter().all(|v| v == dialect), "{name}: {d:?}");
    }
}

#[test]
fn udp_mixed_frames_and_lengths() {
    let cap = "captures/udp-mixed.pcapng";
    let frames: Vec<u64> = field_values(cap, "udp.length")
        .into_iter()
        .map(|(f, _)| f)
        .collect();
    // Frames 4 and 5 are one datagram (reported at 5); 8 and 9 are not UDP.
    assert_eq!(frames, [1, 2, 3, 5, 6, 7]);
    // Frame 7's UDP header claims 512 bytes (504 of payload) where the packet holds 4.
    assert_eq!(field_values_in(cap, "udp.length", 7), ["504"]);
    assert_eq!(field_values_in(cap, "udp.length", 5), ["1200"]);
}
