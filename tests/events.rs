//! `gamedissect events` checked against ground truth: the Quake 3 server logs beside the
//! captures (`say:`, `console:`, `Kill:`, `ClientConnect`/`ClientBegin` lines) and the chat lines
//! typed into fgfs's telnet console (`captures/flightgear-*.txt`).

use std::fs;
use std::path::Path;

use gamedissect::commands::events::EventFormat;
use gamedissect::commands::events::run::events_of;
use serde_json::Value as J;
use testkit::dissect::{config_for, events_json as events};

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

/// The maps of the `Server: NAME` lines of a server log, in order.
fn logged_maps(path: &str) -> Vec<String> {
    fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter_map(|l| l.strip_prefix("Server: "))
        .map(str::to_string)
        .collect()
}

#[test]
fn quake3_map_change_is_a_map_event() {
    // The busy captures change map mid-session: the second gamestate repeats the last command
    // sequence, so only its new sv_serverid tells it from a resent gamestate.
    for name in ["openarena-busy", "ioq3-busy"] {
        let ev = events(&format!("captures/quake3-{name}.pcap"), &["map"]);
        let maps: Vec<String> = ev.iter().map(|e| s(&e["text"])).collect();
        let logged = logged_maps(&format!("captures/quake3-{name}.log"));
        assert_eq!(logged, ["oa_dm1", "oa_dm2"], "{name}");
        assert_eq!(maps, logged, "{name}");
    }
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

/// (kind, who, target, text) of every event, in order.
fn facts(events: &[J]) -> Vec<(String, String, String, String)> {
    events
        .iter()
        .map(|e| (s(&e["kind"]), s(&e["who"]), s(&e["target"]), s(&e["text"])))
        .collect()
}

fn fact(kind: &str, who: &str, target: &str, text: &str) -> (String, String, String, String) {
    (kind.into(), who.into(), target.into(), text.into())
}

/// The SRB2 captures' events are exactly what testkit/src/captures/srb2.rs built them from:
/// Sonic (0) and Knuckles (2) already in the game, Tails (1) joining, chat relayed in the
/// server's tics (each line once, though tics overlap and the client resends its PT_TEXTCMD),
/// Sonic kicking Knuckles for "spamming", the change to MAP02 and the client's PT_CLIENTQUIT.
#[test]
fn srb2_events_match_the_captures_facts() {
    let e = events("captures/srb2-2.1.25-session.pcap", &[]);
    assert_eq!(
        facts(&e),
        vec![
            fact("join", "Sonic", "", ""),
            fact("join", "Knuckles", "", ""),
            // 2.1.25's XD_ADDPLAYER carries no name; the name comes in the next tic.
            fact("join", "", "", ""),
            fact("chat", "Tails", "", "hello everyone"),
            fact("chat", "Knuckles", "Tails", "hi Tails"),
            fact("kick", "Sonic", "Knuckles", "spamming"),
            fact("map", "", "", "MAP02"),
            fact("leave", "Tails", "", ""),
        ]
    );
    assert_eq!(e[2]["details"]["player"], "1");
    assert_eq!(e[2]["details"]["node"], "1");
    assert_eq!(e[4]["details"]["to"], "1");
    assert_eq!(e[5]["details"]["reason"], "KICK_MSG_CUSTOM_KICK");
    assert_eq!(e[6]["details"]["gametype"], "GT_COOP");
    assert_eq!(
        e.iter()
            .map(|x| x["frame"].as_u64().unwrap())
            .collect::<Vec<_>>(),
        vec![8, 8, 10, 15, 15, 18, 19, 22]
    );

    // 2.2.12+ PT_SERVERCFG lists no names: Sonic and Knuckles are known from PT_PLAYERINFO.
    let e = events("captures/srb2-2.2.13-session.pcap", &[]);
    assert_eq!(
        facts(&e),
        vec![
            fact("join", "Tails", "", ""),
            fact("chat", "Tails", "", "hello from 2.2"),
            fact("chat", "Knuckles", "Tails", "welcome Tails"),
            fact("kick", "Sonic", "Knuckles", "spamming"),
            fact("map", "", "", "MAP02"),
            fact("leave", "Tails", "", ""),
        ]
    );

    // Mid-session: player 1's name was never seen, so it is left empty, never guessed.
    let e = events("captures/srb2-2.2.13-midsession.pcap", &[]);
    assert_eq!(facts(&e), vec![fact("chat", "", "", "anyone here?")]);
    assert_eq!(e[0]["details"]["player"], "1");

    // The broken capture: the valid buffer after an undecodable one still gives its chat.
    let e = events("captures/srb2-broken.pcap", &[]);
    assert_eq!(facts(&e), vec![fact("chat", "", "", "still here")]);
}

/// A refused join, a server shutdown and a renaming, built here from the same SRB2 2.2.13
/// layouts as the shipped captures (`src/d_clisrv.h` `serverrefuse_pak`: char reason[255];
/// PT_SERVERREFUSE 9, PT_SERVERSHUTDOWN 10, PT_SERVERTICS 8; XD_NAMEANDCOLOR 1, XD_KICK 3
/// with KICK_MSG_PLAYER_QUIT 3).
#[test]
fn srb2_refusal_shutdown_rename_and_quit() {
    use testkit::captures::srb2::{B, packet};
    use testkit::synth::{PcapWriter, eth_udp, linktype};
    let client = "192.168.1.40:50400".parse().unwrap();
    let server = "192.168.1.10:5029".parse().unwrap();
    let mut w = PcapWriter::new(linktype::ETHERNET, false, false, 65535);
    let mut ms = 0;
    let mut send = |from, to, p: Vec<u8>| {
        ms += 10;
        w.packet_at_ms(1_700_000_000, ms, &eth_udp(from, to, &p));
    };
    send(
        client,
        server,
        packet(0, 0, 12, &B::default().u8(202).u32(7).0),
    );
    let refuse = B::default().chars("Maximum players reached", 255).0;
    send(server, client, packet(1, 0, 9, &refuse));
    // A server tic (2.2.10+ layout: u32 start, 1 tic, 1 slot, one 9-byte ticcmd) whose text
    // section carries player 0 renaming itself, then player 0 quitting; the same tic again.
    let rename = B::default().u8(1).strz("Amy").u32(0).u16(5).u8(1).0;
    let quit = B::default().u8(3).u8(0).u8(3).0;
    let tic = |cmds: &[&[u8]]| {
        let mut b = B::default()
            .u32(500)
            .u8(1)
            .u8(1)
            .raw(&[0; 9])
            .u8(cmds.len() as u8);
        for c in cmds {
            b = b.u8(0).u8(c.len() as u8).raw(c);
        }
        b.0
    };
    let names = B::default().chars("Sonic", 22).0;
    let mut info = B::default().u8(0).raw(&names).raw(&[0; 13]);
    for _ in 1..32 {
        info = info.u8(255).raw(&[0; 35]);
    }
    send(server, client, packet(0, 0, 14, &info.0));
    send(server, client, packet(0, 0, 8, &tic(&[&rename])));
    send(server, client, packet(0, 0, 8, &tic(&[&rename])));
    let next = |cmds: &[&[u8]]| {
        let mut t = tic(cmds);
        t[..4].copy_from_slice(&501u32.to_le_bytes());
        t
    };
    send(server, client, packet(0, 0, 8, &next(&[&quit])));
    send(server, client, packet(2, 0, 10, &[]));
    let e: Vec<J> = events_of(
        &w.bytes,
        gamedissect::engine::Config::default(),
        &[],
        EventFormat::Json,
    )
    .lines()
    .map(|l| serde_json::from_str(l).unwrap())
    .collect();
    assert_eq!(
        facts(&e),
        vec![
            fact("refuse", "", "", "Maximum players reached"),
            fact("rename", "Sonic", "Amy", ""),
            fact("leave", "Amy", "", ""),
            fact("shutdown", "", "", ""),
        ]
    );
    assert_eq!(e[2]["details"]["reason"], "KICK_MSG_PLAYER_QUIT");
}

/// The GameStudio captures' events are exactly what testkit/src/captures/gamestudio.rs built
/// them from: the player's CLS_JOIN, the level, the strings both ways, the entity the client
/// asked for (CLS_CREATE) as the server created it (SVC_CREATE, same identifier) and removed it.
#[test]
fn gamestudio_events_match_the_captures_facts() {
    let a5 = vec![
        fact("join", "Bob", "", ""),
        fact("level", "", "", "arena.wmb"),
        fact("create", "", "", "soldier.mdl"),
        fact("string", "", "", "go"),
        fact("string", "", "", "Round 1"),
        fact("remove", "", "", "soldier.mdl"),
    ];
    let a6 = vec![
        fact("join", "Alice", "", ""),
        fact("string", "", "", "Welcome"),
        fact("level", "", "", "office.wmb"),
        fact("create", "", "", "guard.mdl"),
        fact("string", "", "", "ready"),
        fact("remove", "", "", "guard.mdl"),
    ];
    let long = "Welcome to the office level. ".repeat(4);
    let cases = [
        ("gamestudio-a5-raw", a5.clone()),
        ("gamestudio-a5-dplay4", a5.clone()),
        ("gamestudio-a5-dplay4-noid", a5.clone()),
        ("gamestudio-a5-dplay8", a5),
        ("gamestudio-a6-raw", a6.clone()),
        ("gamestudio-a6-dplay4", a6),
        // The server's SVC_CREATE without the client's request in the capture: no file named.
        (
            "gamestudio-a6-dplay8",
            vec![
                fact("join", "Carol", "", ""),
                fact("create", "", "", ""),
                fact("string", "", "", &long),
            ],
        ),
        (
            "gamestudio-a6-dplay8-signed",
            vec![fact("join", "Gina", "", "")],
        ),
        ("gamestudio-a6-fixed", vec![fact("join", "Frank", "", "")]),
        // Zed's join is inside a coalesced frame whose size lies: not decoded, not an event.
        (
            "gamestudio-broken",
            vec![
                fact("join", "Eve", "", ""),
                fact("remove", "", "", ""),
                fact("string", "", "", "abc"),
                fact("join", "Mal", "", ""),
            ],
        ),
    ];
    for (stem, expected) in cases {
        let e = events(&format!("captures/{stem}.pcap"), &[]);
        assert_eq!(facts(&e), expected, "{stem}");
    }
    let e = events("captures/gamestudio-a6-raw.pcap", &[]);
    assert_eq!(e[3]["details"]["entity"], "7");
    assert_eq!(e[3]["details"]["identifier"], "77");
    assert_eq!(e[1]["details"]["by"], "server");
    assert_eq!(e[4]["details"]["by"], "client");
    let e = events("captures/gamestudio-a5-raw.pcap", &[]);
    assert_eq!(e[0]["details"]["dpid"], "0x5a3c9e41");
    let e = events("captures/gamestudio-a6-fixed.pcap", &[]);
    assert_eq!(e[0]["details"]["session"], "arena");
}
