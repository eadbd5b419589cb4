//! FlightGear MP: decoded values checked against ground truth.
//!
//! * Real captures (`captures/flightgear-{v1,v2-ground,v2-air,v2-pair}.pcap`, made by
//!   `scripts/capture-flightgear.sh` with Debian's fgfs 2020.3.16): the callsign, model path,
//!   chat lines and start position written in the `.txt` beside each capture.
//! * The hand-made capture (`captures/flightgear-handmade.pcap`): what fgfs did not send (relay
//!   magic, MsgId 1, PING/PONG, every short-float type, bool blocks, an unknown id, lying
//!   lengths, fgms header rewrites, a pre-1.9.1 client), built by
//!   `testkit::captures::flightgear`; the values below are the ones it was built from.

use std::collections::BTreeMap;
use std::fs;

use gamedissect::engine::Config;
use gamedissect::protocols::flightgear::constants::V2_PAD_MAGIC;
use gamedissect::protocols::flightgear::tables::lookup;
use gamedissect::run::{OutputFormat, render};
use gamedissect::tree::Value;
use serde_json::Value as J;

fn decode(path: &str) -> Vec<J> {
    let bytes = fs::read(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let (out, err) = render(&bytes, OutputFormat::Json, Config::default());
    assert!(err.is_none(), "{err:?}");
    out.lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn fg(r: &J) -> &J {
    &r["fields"]["flightgear"]
}

/// The properties of a record: JSON keys them by path (in wire order in the text; serde_json
/// sorts them here).
fn props(r: &J) -> Vec<(&String, &J)> {
    fg(r)["properties"]["property"]
        .as_object()
        .map(|o| o.iter().collect())
        .unwrap_or_default()
}

/// The value of property `id`, found under its path.
fn prop(r: &J, id: u64) -> Option<&J> {
    fg(r)["properties"]["property"].get(lookup(id as u32)?.path)
}

fn notes(r: &J, severity: &str) -> Vec<String> {
    r["notes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|n| n["severity"] == severity)
        .map(|n| n["message"].as_str().unwrap().to_string())
        .collect()
}

/// One `[A]`/`[B]` section of a capture's `.txt` (or the whole file when it has none).
#[derive(Debug, Default)]
struct Truth {
    callsign: String,
    model: String,
    protocol: String,
    lat: f64,
    lon: f64,
    chats: Vec<String>,
}

fn truths(txt: &str) -> Vec<Truth> {
    let mut out: Vec<Truth> = Vec::new();
    let mut cur: Option<Truth> = None;
    for line in txt.lines() {
        if line.starts_with('[') || (line.starts_with("callsign: ") && cur.is_none()) {
            if let Some(t) = cur.take() {
                out.push(t);
            }
            cur = Some(Truth::default());
        }
        let Some(t) = cur.as_mut() else { continue };
        let Some((k, v)) = line.split_once(": ") else {
            continue;
        };
        match k {
            "callsign" => t.callsign = v.to_string(),
            "model-path (read back /sim/model/path)" => t.model = v.to_string(),
            "protocol-version-given" => t.protocol = v.to_string(),
            "start-lat-deg" => t.lat = v.parse().unwrap(),
            "start-lon-deg" => t.lon = v.parse().unwrap(),
            k if k.starts_with("chat") && k[4..].parse::<u32>().is_ok() => {
                t.chats.push(v.to_string())
            }
            _ => {}
        }
    }
    out.extend(cur);
    out
}

fn check_real(name: &str) {
    let pcap = format!("captures/{name}.pcap");
    let txt = fs::read_to_string(format!("captures/{name}.txt")).unwrap();
    let packets: usize = txt
        .lines()
        .find_map(|l| l.strip_prefix("packets: "))
        .unwrap()
        .parse()
        .unwrap();
    let recs = decode(&pcap);
    assert_eq!(recs.len(), packets, "{name}: one record per packet");
    for r in &recs {
        assert_eq!(r["protocol"], "flightgear", "{name} frame {}", r["frame"]);
        assert!(
            notes(r, "error").is_empty(),
            "{name} frame {}: {:?}",
            r["frame"],
            r["notes"]
        );
        assert!(
            notes(r, "warning").is_empty(),
            "{name} frame {}: {:?}",
            r["frame"],
            r["notes"]
        );
        // Every property is named: the walk never met an unknown id.
        assert!(fg(r)["properties"].get("undecoded").is_none());
        assert!(!props(r).is_empty());
        for (path, _) in props(r) {
            assert!(!path.is_empty() && !path.chars().all(|c| c.is_ascii_digit()));
        }
    }
    let truths = truths(&txt);
    assert!(!truths.is_empty());
    for t in &truths {
        check_truth(name, t, &recs);
    }
}

/// One aircraft of a real capture against its section of the `.txt`: model, start position,
/// protocol, chat lines and the first summary.
fn check_truth(name: &str, t: &Truth, recs: &[J]) {
    let mine: Vec<&J> = recs
        .iter()
        .filter(|r| fg(r)["callsign"] == t.callsign.as_str())
        .collect();
    assert!(
        mine.len() > 20,
        "{name}: {} has {} packets",
        t.callsign,
        mine.len()
    );
    let first = mine[0];
    let pos = &fg(first)["position"];
    assert_eq!(pos["model"], t.model.as_str());
    let lat = pos["geodetic"]["latitude"].as_f64().unwrap();
    let lon = pos["geodetic"]["longitude"].as_f64().unwrap();
    assert!(
        (lat - t.lat).abs() < 0.01,
        "{name} {}: lat {lat} want {}",
        t.callsign,
        t.lat
    );
    assert!(
        (lon - t.lon).abs() < 0.01,
        "{name} {}: lon {lon} want {}",
        t.callsign,
        t.lon
    );
    // Protocol: the pad word and, for v2, property 10 first.
    let want_pad = if t.protocol == "2" { V2_PAD_MAGIC } else { 0 };
    for r in &mine {
        assert_eq!(fg(r)["position"]["pad"], want_pad as u64);
    }
    // (Its place first and the wire forms: `property_order_and_forms_in_the_real_captures`.)
    if t.protocol == "2" {
        assert_eq!(prop(first, 10).unwrap(), 2);
    } else {
        assert!(prop(first, 10).is_none());
    }
    // Chat lines typed through the telnet server arrive as property 10002, in order, and
    // the summary shows each once.
    let chats: Vec<&str> = mine
        .iter()
        .filter_map(|r| prop(r, 10002))
        .map(|p| p.as_str().unwrap())
        .collect();
    let mut seen: Vec<&str> = Vec::new();
    for c in chats {
        if seen.last() != Some(&c) {
            seen.push(c);
        }
    }
    let want: Vec<&str> = t.chats.iter().map(|s| s.as_str()).collect();
    let pos_of = |c: &str| seen.iter().position(|s| *s == c);
    let idx: Vec<Option<usize>> = want.iter().map(|c| pos_of(c)).collect();
    assert!(
        idx.iter().all(|i| i.is_some()),
        "{name} {}: chats {seen:?}",
        t.callsign
    );
    assert!(
        idx.windows(2).all(|w| w[0] < w[1]),
        "{name}: chat order {seen:?}"
    );
    for c in &want {
        let shown = mine
            .iter()
            .filter(|r| {
                r["summary"]
                    .as_str()
                    .unwrap()
                    .ends_with(&format!("chat \"{c}\""))
            })
            .count();
        assert_eq!(shown, 1, "{name}: summary shows {c:?} once");
    }
    let s = first["summary"].as_str().unwrap();
    assert!(
        s.starts_with(&format!(
            "{} c172p {:.4}N {:.4}W ",
            t.callsign, t.lat, -t.lon
        )),
        "{s}"
    );
}

#[test]
fn real_v1_capture() {
    check_real("flightgear-v1");
}

#[test]
fn real_v2_ground_capture() {
    check_real("flightgear-v2-ground");
    // On the ground at KSFO, heading 280 as given to fgfs.
    let recs = decode("captures/flightgear-v2-ground.pcap");
    let last = recs.last().unwrap();
    let hdg = fg(last)["position"]["attitude"]["heading"]
        .as_f64()
        .unwrap();
    assert!((hdg - 280.0).abs() < 1.0, "{hdg}");
}

#[test]
fn real_v2_air_capture() {
    check_real("flightgear-v2-air");
    // Started in the air at 3000 ft, heading 180.
    let recs = decode("captures/flightgear-v2-air.pcap");
    let p = &fg(&recs[0])["position"];
    let ft = p["geodetic"]["altitude_ft"].as_f64().unwrap();
    assert!((ft - 3000.0).abs() < 100.0, "{ft}");
    let hdg = p["attitude"]["heading"].as_f64().unwrap();
    assert!((hdg - 180.0).abs() < 2.0, "{hdg}");
}

#[test]
fn real_v2_pair_capture() {
    check_real("flightgear-v2-pair");
}

/// The properties are pairs of an id and its value in wire order, and JSON keeps that order
/// in its text: every v2 packet starts with protocol-version = 2 (`SendMyPosition` writes id
/// 10 first). `forms` gives each element's wire form: only v1 forms and bool blocks in the v1
/// capture; in v2 short forms, but not for every id the table would send short: fgfs 2020.3.16
/// sends empty strings (1200 `environment/wildfire/data`, 1400, 10100) in v1 form, which is why the
/// form is kept per element rather than derived from the table.
#[test]
fn property_order_and_forms_in_the_real_captures() {
    for (name, v2) in [
        ("flightgear-v1", false),
        ("flightgear-v2-ground", true),
        ("flightgear-v2-pair", true),
    ] {
        let bytes = fs::read(format!("captures/{name}.pcap")).unwrap();
        let (mut messages, mut v1_strings) = (0, 0);
        testkit::dissect::each_record(&bytes, Config::default(), |_, r| {
            let group = r.find("flightgear.properties.property").unwrap();
            let Some(Value::Str(forms)) = r.find("flightgear.properties.forms").map(|f| &f.value)
            else {
                panic!("{name}: no forms")
            };
            let pairs: Vec<_> = group.children.chunks_exact(2).collect();
            assert_eq!(pairs.len() * 2, group.children.len(), "{name}");
            assert_eq!(pairs.len(), forms.len(), "{name}");
            for (p, form) in pairs.iter().zip(forms.chars()) {
                assert_eq!(p[0].def.name, "flightgear.properties.property.id");
                assert_eq!(p[1].def.name, "flightgear.properties.property.value");
                assert_eq!(form == 's', p[0].pos.len == 2, "{name}");
                assert!(v2 || form != 's', "{name}");
                if form == 'v' && matches!(p[1].value, Value::Str(_)) {
                    v1_strings += 1;
                }
            }
            if v2 {
                assert!(forms.starts_with('s'), "{name}");
                assert_eq!(
                    pairs[0][0].value,
                    Value::Enum(10, "sim/multiplay/protocol-version")
                );
                assert_eq!(pairs[0][1].value, Value::Int(2));
            }
            messages += 1;
        });
        assert!(messages > 100, "{name}");
        assert!(!v2 || v1_strings > 0, "{name}");
        let (json, _) = render(&bytes, OutputFormat::Json, Config::default());
        let first = json.lines().next().unwrap();
        let want = if v2 {
            "\"property\":{\"sim/multiplay/protocol-version\":2,"
        } else {
            "\"property\":{\"surface-positions/left-aileron-pos-norm\":"
        };
        assert!(first.contains(want), "{name}: {first}");
        assert!(first.contains("\"forms\":\""), "{name}: {first}");
    }
}

// ---------------------------------------------------------------- the hand-made capture

/// The hand-made capture's records by frame number.
fn handmade() -> BTreeMap<u64, J> {
    let recs = decode("captures/flightgear-handmade.pcap");
    assert_eq!(recs.len(), 15);
    recs.into_iter()
        .map(|r| (r["frame"].as_u64().unwrap(), r))
        .collect()
}

#[test]
fn handmade_capture_positions() {
    let by_frame = handmade();
    let r = |n: u64| &by_frame[&n];

    // 1: v2 with every short form.
    let v2 = r(1);
    assert!(
        v2["notes"].as_array().unwrap().is_empty(),
        "{:?}",
        v2["notes"]
    );
    assert_eq!(
        v2["summary"],
        "N123 c172p 37.6189N 122.3750W 3012 ft hdg 281 chat \"Hello from N123\""
    );
    let val = |id: u64| prop(v2, id).unwrap().clone();
    assert!((val(100).as_f64().unwrap() + 0.49998).abs() < 1e-5);
    assert!((val(302).as_f64().unwrap() - 2400.3).abs() < 1e-3);
    assert!((val(810).as_f64().unwrap() - 12.5).abs() < 1e-6);
    assert!((val(1001).as_f64().unwrap() - 0.25).abs() < 1e-6);
    assert_eq!(val(1006), true);
    assert_eq!(val(1201), 2);
    assert_eq!(val(1501), 3012);
    assert_eq!(val(120), 1);
    assert_eq!(val(1101), "blue");
    assert_eq!(val(10002), "Hello from N123");
    assert_eq!(val(13001), 118_500_000);
    assert_eq!(val(13002), 5);
    assert_eq!(val(11000), true);
    assert_eq!(val(11001), false);
    assert_eq!(val(11002), true);
    assert_eq!(val(11051), true);
    // A bool block's bit is a property of its own, keyed by its path.
    assert_eq!(
        fg(v2)["properties"]["property"]["sim/multiplay/generic/bool[91]"],
        true
    );
    assert_eq!(val(11091), true);
    assert_eq!(val(11110), true);
    assert_eq!(props(v2).len(), 13 + 93);
    let att = &fg(v2)["position"]["attitude"];
    assert!((att["pitch"].as_f64().unwrap() - 3.0).abs() < 0.01);
    assert!((att["roll"].as_f64().unwrap() + 10.0).abs() < 0.01);
    assert_eq!(fg(v2)["position"]["linear_velocity"]["x"], 55.0);

    // 2: v1 forms.
    let v1 = r(2);
    assert!(
        v1["notes"].as_array().unwrap().is_empty(),
        "{:?}",
        v1["notes"]
    );
    assert!(
        !v1["summary"].as_str().unwrap().contains("chat"),
        "same chat line: shown once"
    );
    assert_eq!(prop(v1, 108).unwrap(), "Engaged");
    assert_eq!(prop(v1, 904).unwrap(), true);
    // 0xE9 is not UTF-8 on its own: the text is kept as bytes (base64 of 62 e9 62 65).
    assert_eq!(prop(v1, 1101).unwrap()["bytes"], "YuliZQ==");
}

#[test]
fn handmade_capture_headers_ids_and_notes() {
    let by_frame = handmade();
    let r = |n: u64| &by_frame[&n];

    // 3 and 4: fgms header rewrites.
    assert_eq!(fg(r(3))["range_word"]["range_nm"], 100);
    assert_eq!(
        r(3)["summary"],
        "D-EFGH 777-200ER 51.4706N 0.4619W 4921 ft hdg 090 chat \"Speedbird ready\""
    );
    assert_eq!(fg(r(4))["range_word"]["reply_address"], "192.0.2.7");
    assert_eq!(fg(r(4))["reply_port"], 5000);
    assert!(
        r(4)["summary"]
            .as_str()
            .unwrap()
            .starts_with("OLDFGMS ufo 33.9461S 151.1772E ")
    );

    // 5: MsgId 1.
    assert_eq!(
        r(5)["summary"],
        "*FGMS* chat \"Welcome to gamedissect test server\""
    );
    assert_eq!(fg(r(5))["chat"], "Welcome to gamedissect test server");
    assert_eq!(fg(r(5))["msg_id"]["name"], "CHAT_MSG");

    // 6, 7: PING / PONG.
    assert!(
        r(6)["summary"]
            .as_str()
            .unwrap()
            .starts_with("PING N123 c172p")
    );
    assert!(
        r(7)["summary"]
            .as_str()
            .unwrap()
            .starts_with("PONG N123 c172p")
    );

    // 8: relay magic.
    assert_eq!(fg(r(8))["magic"]["name"], "SFGF");
    assert!(
        r(8)["summary"]
            .as_str()
            .unwrap()
            .starts_with("[relay] N123 c172p")
    );
    assert!(r(8)["notes"].as_array().unwrap().is_empty());

    // 9: unknown id: a warning, the walk stops, the rest is kept as bytes.
    let w = notes(r(9), "warning");
    assert_eq!(w.len(), 1);
    assert!(w[0].contains("unknown property id 9999"), "{w:?}");
    assert!(notes(r(9), "error").is_empty());
    assert_eq!(props(r(9)).len(), 1);
    assert_eq!(
        fg(r(9))["properties"]["undecoded"],
        "0000270f0000000100640000"
    );

    // 10: id 13003.
    assert!(notes(r(10), "note").iter().any(|n| n.contains("13003")));
    assert!((prop(r(10), 13003).unwrap().as_f64().unwrap() - 0.1523).abs() < 1e-6);

    // 11, 12: lying lengths.
    assert!(
        notes(r(11), "error")
            .iter()
            .any(|e| e.contains("FlightGear drops it"))
    );
    assert!(notes(r(12), "error").is_empty());
    // The length warning, and the datagram is not trusted (FlightGear drops it).
    assert_eq!(notes(r(12), "warning").len(), 2);
    assert!(
        notes(r(12), "warning")
            .iter()
            .any(|w| w.contains("not trusted"))
    );
    assert_eq!(fg(r(12))["trailing"], "04b10001");

    // 13, 14: obsolete and unknown message ids.
    assert_eq!(r(13)["summary"], "N123 RESET_DATA (0 bytes, obsolete)");
    assert_eq!(fg(r(14))["msg_id"]["value"], 42);
    assert_eq!(fg(r(14))["msg_id"]["name"], J::Null);
    assert_eq!(r(14)["summary"], "N123 message id 42 (4 bytes)");

    // 15: pre-1.9.1 client, properties from 228.
    assert_eq!(prop(r(15), 100).unwrap(), 0.25);
    assert_eq!(prop(r(15), 10002).unwrap(), "hi from 1.9.0");
    assert!(notes(r(15), "error").is_empty());
    assert!(
        r(15)["summary"]
            .as_str()
            .unwrap()
            .ends_with("chat \"hi from 1.9.0\"")
    );
}
