//! Quake III values decoded from the real captures, checked against the server console logs
//! written beside them (captures/quake3-*.log, made by scripts/capture-quake3.sh).

use gamedissect::engine::Config;
use gamedissect::run::{OutputFormat, render};
use serde_json::Value;

fn decode(name: &str) -> Vec<Value> {
    let bytes = std::fs::read(format!("captures/{name}.pcap")).expect("capture exists");
    let (text, err) = render(&bytes, OutputFormat::Json, Config::default());
    assert!(err.is_none(), "{err:?}");
    text.lines()
        .map(|l| serde_json::from_str(l).expect("json line"))
        .collect()
}

fn log(name: &str) -> String {
    std::fs::read_to_string(format!("captures/{name}.log")).expect("log exists")
}

/// Every string value anywhere under `v`.
fn strings<'a>(v: &'a Value, out: &mut Vec<&'a str>) {
    match v {
        Value::String(s) => out.push(s),
        Value::Array(a) => a.iter().for_each(|x| strings(x, out)),
        Value::Object(o) => o.values().for_each(|x| strings(x, out)),
        _ => {}
    }
}

fn q3(rec: &Value) -> &Value {
    &rec["fields"]["quake3"]
}

/// Lines of the log after a prefix (e.g. the chat lines "say: GoldenPlayer: …").
fn log_after(log: &str, prefix: &str) -> Vec<String> {
    log.lines()
        .filter_map(|l| l.strip_prefix(prefix).map(str::to_string))
        .collect()
}

fn check_capture(name: &str, flavour: &str) {
    let recs = decode(name);
    let log = log(name);
    assert!(recs.len() > 1600, "{name}: {} records", recs.len());
    // Every frame is Quake III and none carries an error note.
    for r in &recs {
        assert_eq!(r["protocol"], "quake3", "{name} frame {}", r["frame"]);
        for n in r["notes"].as_array().unwrap() {
            assert_ne!(n["severity"], "error", "{name} frame {}: {n}", r["frame"]);
        }
    }
    // The netchan flavour decided from the flow.
    let nc: Vec<&Value> = recs.iter().filter_map(|r| q3(r).get("netchan")).collect();
    assert!(nc.len() > 1500);
    assert!(nc.iter().all(|n| n["flavour"]["name"] == flavour), "{name}");

    check_serverinfo(name, &recs, &log);
    check_players(name, &recs, &log);
    check_chat_and_prints(name, &recs, &log);
    check_kills(name, &recs, &log);
    check_console_rcon_and_connect(name, &recs, &log);
    check_snapshots(&recs);
}

/// The map the server loaded and its hostname, in the gamestate's serverinfo.
fn check_serverinfo(name: &str, recs: &[Value], log: &str) {
    // The map the server loaded ("Server: oa_dm1") is in the gamestate's serverinfo.
    let map = log_after(log, "Server: ")[0].clone();
    let gs = recs
        .iter()
        .find_map(|r| q3(r)["svc"].get("gamestate"))
        .expect("a gamestate");
    let serverinfo = gs["configstring"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["index"] == 0)
        .unwrap();
    let pairs = serverinfo["info"]["pair"].as_array().unwrap();
    let get = |k: &str| {
        pairs
            .iter()
            .find(|p| p["key"] == k)
            .map(|p| p["value"].as_str().unwrap().to_string())
    };
    assert_eq!(get("mapname").as_deref(), Some(map.as_str()), "{name}");
    assert_eq!(
        get("sv_hostname").as_deref(),
        Some("GoldenQ3Server"),
        "{name}"
    );
}

/// Every player the log names is decoded somewhere in the server's messages.
fn check_players(capture: &str, recs: &[Value], log: &str) {
    // Player names the log shows ("ClientUserinfoChanged: N n\NAME\…") appear in the player
    // configstrings (gamestate or cs commands).
    for line in log_after(log, "ClientUserinfoChanged: ") {
        let name = line.split('\\').nth(1).unwrap();
        assert!(
            recs.iter().any(|r| {
                let mut v = Vec::new();
                strings(&q3(r)["svc"], &mut v);
                v.iter()
                    .any(|s| s.contains(&format!("n\\{name}\\")) || *s == name)
            }),
            "{capture}: player {name} not decoded"
        );
    }
}

/// The logged chat lines and broadcasts, as client and server commands.
fn check_chat_and_prints(name: &str, recs: &[Value], log: &str) {
    // Chat: the client's `say` command text and the server's `chat` command carry each line
    // the log printed ("say: GoldenPlayer: TEXT").
    let says = log_after(log, "say: GoldenPlayer: ");
    assert_eq!(says.len(), 2);
    for text in &says {
        let said = recs.iter().any(|r| {
            q3(r)["clc"]["command"]
                .as_array()
                .is_some_and(|c| c.iter().any(|c| c["message"] == text.as_str()))
        });
        assert!(said, "{name}: say {text}");
        let chat = recs.iter().any(|r| {
            q3(r)["svc"]["command"].as_array().is_some_and(|c| {
                c.iter().any(|c| {
                    c["name"] == "chat"
                        && c["message"]
                            .as_str()
                            .is_some_and(|m| m.ends_with(text.as_str()))
                })
            })
        });
        assert!(chat, "{name}: chat {text}");
    }
    // The broadcasts about GoldenPlayer once it is in the game (log: `broadcast: print "…\n"`,
    // the engine escaping the newline) are svc print commands.
    let prints: Vec<String> = log_after(log, "broadcast: print \"")
        .into_iter()
        .filter(|l| l.starts_with("GoldenPlayer") && !l.contains(" connected"))
        .map(|l| l.trim_end_matches("\\n\"").to_string())
        .collect();
    assert_eq!(prints.len(), 2, "{prints:?}");
    for text in &prints {
        let found = recs.iter().any(|r| {
            q3(r)["svc"]["command"].as_array().is_some_and(|c| {
                c.iter().any(|c| {
                    c["name"] == "print"
                        && c["message"].as_str().map(str::trim_end) == Some(text.as_str())
                })
            })
        });
        assert!(found, "{name}: print {text}");
    }
}

/// The logged kills, as obituary events.
fn check_kills(name: &str, recs: &[Value], log: &str) {
    // Kills (log: "Kill: ATTACKER TARGET MOD: …") of players other than ours arrive as
    // obituary event entities (eType ET_EVENTS + EV_OBITUARY, broadcast): eventParm = means of
    // death, otherEntityNum = target, otherEntityNum2 = attacker (absent when 0).
    let mut kills = 0;
    for line in log_after(log, "Kill: ") {
        let nums: Vec<i64> = line
            .split(':')
            .next()
            .unwrap()
            .split(' ')
            .map(|n| n.parse().unwrap())
            .collect();
        let (attacker, target, mod_) = (nums[0], nums[1], nums[2]);
        if target == 2 {
            continue; // our own death at disconnect is never sent to us
        }
        let found = recs.iter().any(|r| {
            q3(r)["svc"]["snapshot"]["entity"]
                .as_array()
                .is_some_and(|ents| {
                    ents.iter().any(|e| {
                        e["e_type"].as_i64().unwrap_or(0) > 13
                            && e["event_parm"].as_i64() == Some(mod_)
                            && e["other_entity_num"].as_i64() == Some(target)
                            && e["other_entity_num2"].as_i64().unwrap_or(0) == attacker
                    })
                })
        });
        assert!(found, "{name}: obituary {line}");
        kills += 1;
    }
    assert_eq!(kills, 1);
}

/// The console line, rcon, the connect userinfo and the challenge, the status player list.
fn check_console_rcon_and_connect(name: &str, recs: &[Value], log: &str) {
    let mut all = Vec::new();
    for r in recs {
        strings(q3(r), &mut all);
    }
    // The console line ("console: server console says hi to GoldenPlayer").
    let console = log_after(log, "console: ")[0].clone();
    assert!(
        all.iter().any(|s| *s == format!("console: {console}")),
        "{name}: console {console}"
    );
    // rcon "status" (log: "Rcon from 127.0.0.1: status") and its password.
    let rcon = recs
        .iter()
        .find_map(|r| q3(r)["oob"].get("rcon_command"))
        .expect("rcon");
    assert_eq!(
        rcon,
        &Value::String(log_after(log, "Rcon from 127.0.0.1: ")[0].clone())
    );
    // The connect userinfo decompresses: the player name, and the challenge the server sent.
    let connect = recs
        .iter()
        .find(|r| q3(r)["oob"]["command"] == "connect")
        .unwrap();
    let ui = q3(connect)["oob"]["userinfo"]["pair"].as_array().unwrap();
    assert!(
        ui.iter()
            .any(|p| p["key"] == "name" && p["value"] == "GoldenPlayer")
    );
    let ch = recs
        .iter()
        .find(|r| q3(r)["oob"]["command"] == "challengeResponse")
        .unwrap();
    assert_eq!(q3(ch)["oob"]["challenge"], q3(connect)["oob"]["challenge"]);
    // statusResponse player lines list the bots the log shows.
    let status = recs
        .iter()
        .find(|r| q3(r)["oob"]["command"] == "statusResponse")
        .unwrap();
    let names: Vec<&str> = q3(status)["oob"]["player"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert!(
        names.contains(&"Angelyss") && names.contains(&"Sarge"),
        "{names:?}"
    );
}

/// The player's own state and the usercmd times.
fn check_snapshots(recs: &[Value]) {
    // Snapshots: the player's own state reaches full health and usercmds carry real times.
    let healths: Vec<i64> = recs
        .iter()
        .filter_map(|r| q3(r)["svc"]["snapshot"]["ps"]["stat"].as_array())
        .filter_map(|a| a.iter().find(|s| s["index"] == 0))
        .map(|s| s["value"].as_i64().unwrap())
        .collect();
    assert!(healths.len() > 300, "{}", healths.len());
    assert!(healths.contains(&125), "spawn health (OpenArena: 125)");
    let times: Vec<i64> = recs
        .iter()
        .filter_map(|r| q3(r)["clc"]["move"]["usercmd"].as_array())
        .flatten()
        .map(|u| u["server_time"].as_i64().unwrap())
        .collect();
    assert!(times.len() > 1000);
    assert!(times.windows(2).filter(|w| w[1] < w[0]).count() < 50);
}

#[test]
fn openarena_legacy_capture() {
    check_capture("quake3-openarena-legacy", "legacy");
}

#[test]
fn ioq3_protocol_capture() {
    check_capture("quake3-ioq3-protocol", "ioq3");
}

/// UDP payloads of a classic little-endian Ethernet pcap with IPv4 (the captures' format),
/// with whether the datagram goes to the server port 27960.
fn datagrams(name: &str) -> Vec<(bool, u16, u16, Vec<u8>)> {
    let b = std::fs::read(format!("captures/{name}.pcap")).unwrap();
    let mut out = Vec::new();
    let mut i = 24;
    while i + 16 <= b.len() {
        let incl = u32::from_le_bytes(b[i + 8..i + 12].try_into().unwrap()) as usize;
        let frame = &b[i + 16..i + 16 + incl];
        i += 16 + incl;
        let ip = &frame[14..];
        let ihl = (ip[0] & 15) as usize * 4;
        let udp = &ip[ihl..];
        let sport = u16::from_be_bytes([udp[0], udp[1]]);
        let dport = u16::from_be_bytes([udp[2], udp[3]]);
        out.push((dport == 27960, sport, dport, udp[8..].to_vec()));
    }
    out
}

/// A field that is not declared repeated occurs at most once under its parent (JSON keys).
fn unique_children(f: &gamedissect::tree::Field) {
    let mut seen = std::collections::HashSet::new();
    for c in &f.children {
        assert!(
            c.def.repeated || seen.insert(c.def.name),
            "{} twice under {}",
            c.def.name,
            f.def.name
        );
        unique_children(c);
    }
}

/// Property test over real flow histories: the real datagrams of both captures in order, with a
/// few of them mutated (bit flips, truncation, random bytes, dropped or duplicated datagrams),
/// through one flow decoder: no panic, one record per datagram.
#[test]
fn mutated_real_flows_never_panic() {
    use gamedissect::proto::{Datagram, Direction, Prefs, Protocol, RoleSource};
    let mut rng = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng
    };
    let mut total = 0;
    for name in ["quake3-openarena-legacy", "quake3-ioq3-protocol"] {
        let dgs = datagrams(name);
        assert!(dgs.len() > 1600);
        for round in 0..8 {
            let mut flow = gamedissect::protocols::quake3::PROTOCOL.new_flow(&Prefs::default());
            for (k, (to_server, sport, dport, p)) in dgs.iter().enumerate() {
                let mut p = p.clone();
                let r = next() % 100;
                if round > 0 && r < 8 && !p.is_empty() {
                    for _ in 0..1 + next() % 3 {
                        let j = (next() as usize) % p.len();
                        match next() % 4 {
                            0 => p[j] ^= 1 << (next() % 8),
                            1 => p.truncate(j),
                            2 => p[j] = next() as u8,
                            _ => p.insert(j, next() as u8),
                        }
                        if p.is_empty() {
                            break;
                        }
                    }
                } else if round > 0 && r < 10 {
                    continue; // dropped datagram
                }
                let d = Datagram {
                    payload: &p,
                    truncated: false,
                    direction: if *to_server {
                        Direction::ToServer
                    } else {
                        Direction::ToClient
                    },
                    src: format!("127.0.0.1:{sport}").parse().unwrap(),
                    dst: format!("127.0.0.1:{dport}").parse().unwrap(),
                    time: Default::default(),
                    frame: k as u64 + 1,
                    index_in_flow: k as u64,
                    conversations: 1,
                    overheard: Default::default(),
                    role_source: RoleSource::Content,
                    detail: true.into(),
                };
                let mut out = Vec::new();
                flow.decode(&d, &mut out);
                assert!(!out.is_empty());
                if round == 0 {
                    for r in &out {
                        r.fields.iter().for_each(unique_children);
                    }
                }
                total += 1;
                if r == 99 {
                    flow.decode(&d, &mut out); // duplicate
                    total += 1;
                }
            }
        }
    }
    assert!(total >= 20_000, "{total}");
}
