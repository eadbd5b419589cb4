//! `gamedissect events` checked against ground truth: the Quake 3 server logs beside the
//! captures (`say:`, `console:`, `Kill:`, `ClientConnect`/`ClientBegin` lines) and the chat lines
//! typed into fgfs's telnet console (`captures/flightgear-*.txt`).

use std::fs;
use std::path::Path;

use gamedissect::events::EventFormat;
use gamedissect::events::run::events_of;
use serde_json::Value as J;
use testkit::dissect::config_for;

fn events(capture: &str, kinds: &[&str]) -> Vec<J> {
    let bytes = fs::read(capture).unwrap_or_else(|e| panic!("{capture}: {e}"));
    events_of(
        &bytes,
        config_for(Path::new(capture)),
        kinds,
        EventFormat::Json,
    )
    .lines()
    .map(|l| serde_json::from_str(l).unwrap())
    .collect()
}

fn s(v: &J) -> String {
    v.as_str().unwrap_or_default().to_string()
}

/// What the server log says the recording client could see: lines up to the server's
/// "GoldenPlayer^7 disconnected" broadcast (after it the server sends that client nothing; the
/// `Kill: 1022 2 20` that follows is the server removing the departed player's body).
struct Log {
    says: Vec<(String, String)>,
    console: Vec<String>,
    kills: Vec<(String, String, String)>,
    joined: Vec<String>,
}

fn read_log(path: &str) -> Log {
    let text = fs::read_to_string(path).unwrap();
    let mut log = Log {
        says: vec![],
        console: vec![],
        kills: vec![],
        joined: vec![],
    };
    let mut names = std::collections::HashMap::new();
    for line in text.lines() {
        if line.starts_with("broadcast: print \"GoldenPlayer^7 disconnected") {
            break;
        }
        if let Some(rest) = line.strip_prefix("ClientUserinfoChanged: ") {
            let (n, info) = rest.split_once(' ').unwrap();
            let name = info.split('\\').nth(1).unwrap().to_string();
            names.insert(n.to_string(), name);
        } else if let Some(n) = line
            .strip_prefix("ClientConnect: ")
            .or_else(|| line.strip_prefix("ClientBegin: "))
        {
            let name = names[n].clone();
            if !log.joined.contains(&name) {
                log.joined.push(name);
            }
        } else if let Some(rest) = line.strip_prefix("say: ") {
            let (who, msg) = rest.split_once(": ").unwrap();
            log.says.push((who.into(), msg.into()));
        } else if let Some(rest) = line.strip_prefix("console: ") {
            log.console.push(rest.to_string());
        } else if let Some(rest) = line.strip_prefix("Kill: ") {
            let (_, what) = rest.split_once(": ").unwrap();
            let (killer, rest) = what.split_once(" killed ").unwrap();
            let (victim, mod_) = rest.split_once(" by ").unwrap();
            log.kills.push((killer.into(), victim.into(), mod_.into()));
        }
    }
    log
}

#[test]
fn quake3_events_match_the_server_logs() {
    for stem in ["quake3-openarena-legacy", "quake3-ioq3-protocol"] {
        let log = read_log(&format!("captures/{stem}.log"));
        let ev = events(&format!("captures/{stem}.pcap"), &[]);
        let of = |kind: &str| -> Vec<&J> { ev.iter().filter(|e| e["kind"] == kind).collect() };
        let says: Vec<(String, String)> = of("chat")
            .into_iter()
            .filter(|e| e["details"]["mode"] == "say")
            .map(|e| (s(&e["who"]), s(&e["text"])))
            .collect();
        assert_eq!(says, log.says, "{stem}");
        assert_eq!(log.says.len(), 2);
        let console: Vec<String> = of("chat")
            .into_iter()
            .filter(|e| e["details"]["mode"] == "server")
            .map(|e| s(&e["text"]))
            .collect();
        assert_eq!(console, log.console, "{stem}");
        assert_eq!(of("chat").len(), log.says.len() + log.console.len());
        let kills: Vec<(String, String, String)> = of("kill")
            .into_iter()
            .map(|e| (s(&e["who"]), s(&e["target"]), s(&e["text"])))
            .collect();
        assert_eq!(kills, log.kills, "{stem}");
        assert_eq!(kills.len(), 1);
        let joined: Vec<String> = of("join").into_iter().map(|e| s(&e["who"])).collect();
        assert_eq!(joined, log.joined, "{stem}");
        assert_eq!(joined, ["Angelyss", "Sarge", "GoldenPlayer"]);
        // The raw forms keep what the game sent.
        let first = of("chat")[0];
        assert_eq!(s(&first["who_raw"]), "GoldenPlayer");
        assert!(s(&first["text_raw"]).starts_with("^2hello"));
    }
}

#[test]
fn quake3_resent_commands_are_one_event_and_rcon_hides_the_password() {
    let ev = events("captures/quake3-openarena-legacy.pcap", &[]);
    // The server sent its last commands in 30 packets before the client went.
    let prints: Vec<String> = ev
        .iter()
        .filter(|e| e["kind"] == "print")
        .map(|e| s(&e["text"]))
        .collect();
    assert_eq!(
        prints,
        ["GoldenPlayer entered the game", "GoldenPlayer disconnected"]
    );
    let leaves: Vec<&J> = ev.iter().filter(|e| e["kind"] == "leave").collect();
    assert_eq!(leaves.len(), 1);
    assert_eq!(leaves[0]["who"], "GoldenPlayer");
    let rcon: Vec<&J> = ev.iter().filter(|e| e["kind"] == "rcon").collect();
    assert_eq!(rcon.len(), 1);
    assert_eq!(rcon[0]["text"], "status");
    let all = serde_json::to_string(&ev).unwrap();
    assert!(!all.contains("goldenrcon"));
    let map: Vec<&J> = ev.iter().filter(|e| e["kind"] == "map").collect();
    assert_eq!(map.len(), 1);
    assert_eq!(map[0]["text"], "oa_dm1");
    assert_eq!(map[0]["details"]["client"], "2");
}

#[test]
fn kind_and_frame_selection_and_csv() {
    let bytes = fs::read("captures/quake3-openarena-legacy.pcap").unwrap();
    let config = || config_for(Path::new("captures/quake3-openarena-legacy.pcap"));
    let kills = events("captures/quake3-openarena-legacy.pcap", &["quake3.kill"]);
    assert_eq!(kills.len(), 1);
    // Names are still known when the gamestate is outside the frames asked for.
    let mut late = config();
    late.frames = gamedissect::engine::FrameRange {
        first: 800,
        last: 900,
    };
    let out = events_of(&bytes, late, &["kill"], EventFormat::Csv);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 2, "{out}");
    assert!(lines[0].starts_with("frame,time,rel,flow,protocol,kind,who,"));
    assert!(lines[1].contains(",quake3,kill,Angelyss,Angelyss,Sarge,Sarge,MOD_GRENADE,"));
    let text = events_of(&bytes, config(), &["chat"], EventFormat::Text);
    assert_eq!(text.lines().count(), 3);
}

/// The chat lines typed into each fgfs's telnet console, by callsign, from the `.txt`.
fn telnet_chat(txt: &str) -> Vec<(String, Vec<String>)> {
    let mut out: Vec<(String, Vec<String>)> = Vec::new();
    for line in fs::read_to_string(txt).unwrap().lines() {
        if let Some(c) = line.strip_prefix("callsign: ") {
            out.push((c.to_string(), vec![]));
        } else if let Some(t) = line
            .strip_prefix("chat1: ")
            .or_else(|| line.strip_prefix("chat2: "))
        {
            out.last_mut().unwrap().1.push(t.to_string());
        }
    }
    out
}

#[test]
fn flightgear_chat_matches_the_telnet_input() {
    for stem in [
        "flightgear-v1",
        "flightgear-v2-air",
        "flightgear-v2-ground",
        "flightgear-v2-pair",
    ] {
        let ev = events(&format!("captures/{stem}.pcap"), &[]);
        for (callsign, typed) in telnet_chat(&format!("captures/{stem}.txt")) {
            let said: Vec<String> = ev
                .iter()
                .filter(|e| e["kind"] == "chat" && e["who"] == callsign.as_str())
                .map(|e| s(&e["text"]))
                .collect();
            // fgfs starts with its default chat text, "Hello" (FlightGear's preferences.xml,
            // /sim/multiplay/chat), before anything is typed.
            let mut expected = vec!["Hello".to_string()];
            expected.extend(typed);
            assert_eq!(said, expected, "{stem} {callsign}");
            let appear: Vec<&J> = ev
                .iter()
                .filter(|e| e["kind"] == "appear" && e["who"] == callsign.as_str())
                .collect();
            assert_eq!(appear.len(), 1);
            assert_eq!(appear[0]["text"], "Aircraft/c172p/Models/c172p.xml");
            let leave = ev
                .iter()
                .filter(|e| e["kind"] == "leave" && e["who"] == callsign.as_str())
                .count();
            assert_eq!(leave, 1);
        }
    }
}

#[test]
fn every_capture_in_every_format_and_usage_errors() {
    for entry in fs::read_dir("captures").unwrap() {
        let path = entry.unwrap().path();
        if !matches!(
            path.extension().and_then(|e| e.to_str()),
            Some("pcap" | "pcapng")
        ) {
            continue;
        }
        let bytes = fs::read(&path).unwrap();
        for format in [EventFormat::Text, EventFormat::Json, EventFormat::Csv] {
            // Broken and hand-made captures included: no panic, and JSON lines parse.
            let out = events_of(&bytes, config_for(&path), &[], format);
            if format == EventFormat::Json {
                for l in out.lines() {
                    serde_json::from_str::<J>(l).unwrap();
                }
            }
        }
    }
    let bin = env!("CARGO_BIN_EXE_gamedissect");
    let run = |args: &[&str]| std::process::Command::new(bin).args(args).output().unwrap();
    let bad = run(&[
        "events",
        "--kind",
        "dance",
        "captures/quake3-ioq3-protocol.pcap",
    ]);
    assert_eq!(bad.status.code(), Some(2));
    let ok = run(&[
        "events",
        "--kind",
        "kill",
        "captures/quake3-ioq3-protocol.pcap",
    ]);
    assert_eq!(ok.status.code(), Some(0));
    let text = String::from_utf8(ok.stdout).unwrap();
    assert_eq!(text.lines().count(), 1);
    assert!(text.contains("Angelyss → Sarge: MOD_GRENADE"), "{text}");
}
