//! Decoded values from the hand-made 3D GameStudio captures (built by
//! `testkit::captures::gamestudio`).

use gamedissect::engine::Config;
use gamedissect::run::{OutputFormat, render};
use serde_json::Value;

fn decode_with(name: &str, cfg: Config) -> Vec<Value> {
    let bytes = std::fs::read(format!("captures/{name}")).unwrap();
    let (out, err) = render(&bytes, OutputFormat::Json, cfg);
    assert!(err.is_none(), "{name}: {err:?}");
    out.lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn decode(name: &str) -> Vec<Value> {
    decode_with(name, Config::default())
}

fn errors(v: &Value) -> usize {
    v["notes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|n| n["severity"] == "error")
        .count()
}

fn gs(v: &Value) -> &Value {
    &v["fields"]["gamestudio"]
}

/// The messages of one kind in a record, in datagram order (each kind is its own JSON key).
fn kind<'a>(v: &'a Value, kind: &str) -> &'a Vec<Value> {
    gs(v)[kind]
        .as_array()
        .unwrap_or_else(|| panic!("no {kind} in {v}"))
}

fn f(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

#[test]
fn good_captures_have_no_errors_and_right_dialect() {
    for (name, dialect, n) in [
        ("gamestudio-a6-raw.pcap", "A6+", 14),
        ("gamestudio-a6-fixed.pcap", "A6+", 4),
        ("gamestudio-a6-dplay8.pcap", "A6+", 15),
        ("gamestudio-a6-dplay8-signed.pcap", "A6+", 6),
        ("gamestudio-a5-raw.pcap", "A5", 14),
        ("gamestudio-a5-dplay4.pcap", "A5", 16),
        ("gamestudio-a5-dplay4-noid.pcap", "A5", 14),
        ("gamestudio-a5-dplay8.pcap", "A5", 17),
        ("gamestudio-a6-dplay4.pcap", "A6+", 14),
    ] {
        let recs = decode(name);
        assert_eq!(recs.len(), n, "{name}");
        for r in &recs {
            assert_eq!(r["protocol"], "gamestudio", "{name}: {r}");
            assert_eq!(errors(r), 0, "{name}: {r}");
            if let Some(d) = gs(r).get("dialect") {
                assert!(
                    r["summary"].as_str().unwrap().contains(dialect),
                    "{name}: {r}"
                );
                assert_eq!(d["name"], dialect, "{name}: {r}");
            }
        }
    }
}

#[test]
fn a6_raw_values() {
    for name in ["gamestudio-a6-raw.pcap", "gamestudio-a6-dplay4.pcap"] {
        a6_values(&decode(name));
    }
    let r = decode("gamestudio-a6-dplay4.pcap");
    assert_eq!(r[0]["fields"]["dplay4"]["id_to"], 0x0077_0010);
}

fn a6_values(r: &[Value]) {
    assert_eq!(kind(&r[0], "cls_join")[0]["player_name"], "Alice");
    assert_eq!(gs(&r[0])["direction"]["name"], "client_to_server");
    let m = &kind(&r[1], "svc_info")[0];
    assert_eq!(m["cmd"]["name"], "SVC_INFO");
    assert_eq!(f(&m["server_time"]), 12.5);
    let m = &kind(&r[1], "svc_var")[0];
    assert_eq!(m["var_value"].as_array().unwrap().len(), 2);
    assert_eq!(f(&m["var_value"][1]), -2.25);
    assert_eq!(kind(&r[1], "svc_string")[0]["text"], "Welcome");
    assert_eq!(kind(&r[2], "cls_level")[0]["level_name"], "office.wmb");
    let m = &kind(&r[2], "cls_create")[0];
    assert_eq!(m["file_name"], "guard.mdl");
    assert_eq!(f(&m["start"]["y"]), -20.5);
    assert_eq!(m["identifier"], 77);
    assert_eq!(kind(&r[3], "svc_local")[0]["cmd"]["value"], 0x12);
    // The seed's worked example
    let m = &kind(&r[5], "svc_update2")[0];
    assert_eq!(m["cmd"]["name"], "SVC_UPDATE2");
    assert_eq!(m["entity_index"], 7);
    assert_eq!(
        (f(&m["pos"]["x"]), f(&m["pos"]["y"]), f(&m["pos"]["z"])),
        (1.0, 2.0, 3.0)
    );
    assert!((f(&m["pan"]) - 0.703).abs() < 0.001);
    assert_eq!(gs(&r[5])["pos_mode"]["name"], "packed");
    // Every parameter bit
    let m = &kind(&r[6], "svc_update1")[0];
    assert_eq!(m["file_name"], "guard.mdl");
    assert_eq!(f(&m["scale"]["y"]), 2.0);
    assert_eq!(f(&m["ambient"]), 20.0);
    assert_eq!(m["skin"], 2);
    let m = &kind(&r[7], "svc_update2")[0];
    assert_eq!(f(&m["pos"]["x"]), 100.5);
    assert!((f(&m["pan"]) - 90.0).abs() < 0.01);
    assert_eq!(m["frame"], 3);
    assert_eq!(m["next_frame"], 4);
    assert_eq!(m["flags"], 0x0102);
    let m = &kind(&r[8], "svc_update3")[0];
    assert_eq!(f(&m["lightrange"]), 2000.0);
    assert_eq!(f(&m["color"]["red"]), 255.0);
    assert_eq!(f(&m["color"]["blue"]), 0.0);
    assert_eq!(f(&m["u"]), 0.5);
    let m = &kind(&r[9], "cls_skill")[0];
    assert_eq!(m["struct_field"], "skill1");
    assert_eq!(f(&m["skill"][0]), 42.0);
    let m = &kind(&r[9], "cls_skill3")[0];
    assert_eq!(m["struct_field"], "x, y, z");
    assert_eq!(m["skill"].as_array().unwrap().len(), 3);
    assert_eq!(f(&kind(&r[11], "svc_entsound")[0]["volume"]), 2000.0);
    let m = &kind(&r[11], "svc_effect")[0];
    assert_eq!(m["number"], 20);
    assert_eq!(f(&m["vel"]["z"]), 1.5);
}

#[test]
fn a5_values_raw_and_in_directplay4() {
    for (name, off) in [
        ("gamestudio-a5-raw.pcap", 0),
        ("gamestudio-a5-dplay4.pcap", 1),
    ] {
        let r = decode(name);
        let m = &kind(&r[off], "cls_join")[0];
        assert_eq!(m["player_dpid"], 0x5a3c_9e41u32, "{name}");
        assert_eq!(m["player_name"], "Bob");
        assert_eq!(kind(&r[off], "cls_fill").len(), 2);
        let m = &kind(&r[off + 1], "svc_info")[0];
        assert_eq!(m["sync"], 0x1119_1218);
        assert_eq!(f(&m["frame_time"]), 0.0625);
        let m = &kind(&r[off + 6], "svc_update1")[0];
        assert_eq!(m["cmd"]["name"], "SVC_UPDATE1");
        assert_eq!(f(&m["pos"]["z"]), 3.0);
        let m = &kind(&r[off + 9], "svc_update3")[0];
        assert_eq!(m["cmd"]["name"], "SVC_UPDATE3");
        assert_eq!(f(&m["color"]["blue"]), 10.0);
        assert_eq!(f(&m["v"]), -1.0);
        assert_eq!(m["flags2"], 4);
        assert!(m.get("struct_field").is_none());
    }
    let r = decode("gamestudio-a5-dplay4.pcap");
    assert_eq!(r[0]["fields"]["dplay4"]["command"]["name"], "ENUMSESSIONS");
    assert_eq!(r[1]["fields"]["dplay4"]["token"]["name"], "remote");
    assert_eq!(r[1]["fields"]["dplay4"]["id_from"], 0x0312_4401);
    assert_eq!(r[0]["fields"]["dplay4"]["enum_flags"], 1);
    assert_eq!(r[15]["fields"]["dplay4"]["command"]["name"], "PING");
}

/// NM (DPSESSION_NOMESSAGEID) DirectPlay 4 session: the Gamestudio data starts at offset 20.
#[test]
fn a5_in_directplay4_without_message_ids() {
    let r = decode("gamestudio-a5-dplay4-noid.pcap");
    assert!(r[0]["fields"]["dplay4"].get("id_from").is_none());
    assert_eq!(kind(&r[0], "cls_join")[0]["player_name"], "Bob");
    assert_eq!(kind(&r[0], "cls_join")[0]["player_dpid"], 0x5a3c_9e41u32);
    assert_eq!(kind(&r[1], "svc_info")[0]["sync"], 0x1119_1218);
    assert_eq!(f(&kind(&r[6], "svc_update1")[0]["pos"]["z"]), 3.0);
}

#[test]
fn dplay8_layers() {
    let r = decode("gamestudio-a6-dplay8.pcap");
    assert_eq!(
        r[0]["fields"]["dplay8"]["enum_command"]["name"],
        "ENUM_QUERY"
    );
    let e = &r[1]["fields"]["dplay8"];
    assert_eq!(e["enum_command"]["name"], "ENUM_RESPONSE");
    assert_eq!(e["session_name"], "office");
    assert_eq!(
        (e["current_players"].as_u64(), e["max_players"].as_u64()),
        (Some(2), Some(8))
    );
    assert_eq!(
        e["application_guid"],
        "{44332211-6655-8877-99AA-BBCCDDEEFF02}"
    );
    assert_eq!(r[2]["fields"]["dplay8"]["ext_opcode"]["name"], "CONNECT");
    assert_eq!(kind(&r[5], "cls_join")[0]["player_name"], "Carol");
    assert_eq!(
        r[7]["fields"]["dplay8"]["coalesced"]
            .as_array()
            .unwrap()
            .len(),
        3
    );
    assert_eq!(kind(&r[7], "svc_local").len(), 1);
    assert_eq!(kind(&r[7], "svc_update2")[0]["entity_index"], 7);
    assert_eq!(kind(&r[7], "svc_update3")[0]["cmd"]["name"], "SVC_UPDATE3");
    assert_eq!(r[8]["fields"]["dplay8"]["sack_mask1"], 1);
    assert_eq!(kind(&r[8], "cls_skill")[0]["struct_field"], "skill3");
    // A message split over three DFRAMEs, reassembled from the third
    assert!(gs(&r[9]).is_null() && gs(&r[10]).is_null());
    assert_eq!(kind(&r[11], "svc_string").len(), 1);
    let m = kind(&r[11], "svc_update2");
    assert_eq!(m.len(), 20);
    assert!(
        kind(&r[11], "svc_string")[0]["text"]
            .as_str()
            .unwrap()
            .starts_with("Welcome to the office")
    );
    assert_eq!(m[19]["entity_index"], 119);
    assert_eq!(f(&m[19]["pos"]["x"]), 152.0);
    assert_eq!(r[12]["fields"]["dplay8"]["ext_opcode"]["name"], "SACK");
    assert_eq!(r[13]["fields"]["dplay8"]["session_id"], 0x1a2b_3c4d);
    // [MC-DPL8R] 2.2.2: a KeepAlive MUST have RELIABLE, SEQUENTIAL and END_MSG set (the
    // generator first left SEQUENTIAL out).
    assert!(r[13]["summary"].as_str().unwrap().contains("KEEPALIVE"));
    let cmd = r[13]["fields"]["dplay8"]["command"].as_u64().unwrap();
    assert_eq!(cmd & 0x27, 0x27, "keep-alive bCommand {cmd:#x}");
    assert!(r[14]["fields"]["dplay8"]["core_message"].is_string());
}

#[test]
fn dplay8_signed_session() {
    let r = decode("gamestudio-a6-dplay8-signed.pcap");
    let h = &r[2]["fields"]["dplay8"];
    assert_eq!(h["signing_opts"]["name"], "FAST");
    assert_eq!(h["sender_secret"], 0x1111_2222_3333_4444u64);
    assert_eq!(
        r[5]["fields"]["dplay8"]["signature"],
        0x5a5a_0000_0000_0001u64
    );
    assert_eq!(kind(&r[3], "cls_join")[0]["player_name"], "Gina");
    assert_eq!(f(&kind(&r[5], "svc_update2")[0]["pos"]["z"]), 3.0);
}

#[test]
fn fixed_cposition_is_detected_and_can_be_forced() {
    let r = decode("gamestudio-a6-fixed.pcap");
    assert_eq!(kind(&r[0], "cls_join")[0]["session_name"], "arena");
    assert_eq!(gs(&r[2])["pos_mode"]["name"], "fixed");
    assert_eq!(f(&kind(&r[2], "svc_update2")[0]["pos"]["y"]), -2.5);
    assert_eq!(f(&kind(&r[3], "svc_update2")[0]["pos"]["x"]), 1000.25);
    let mut cfg = Config::default();
    cfg.prefs.set("gamestudio.pos", "packed");
    let r = decode_with("gamestudio-a6-fixed.pcap", cfg);
    assert!(errors(&r[2]) > 0);
}

#[test]
fn forcing_the_wrong_dialect_gives_errors() {
    let mut cfg = Config::default();
    cfg.prefs.set("gamestudio.dialect", "a6");
    let r = decode_with("gamestudio-a5-raw.pcap", cfg);
    assert!(r.iter().filter(|r| errors(r) > 0).count() >= 5);
}

#[test]
fn broken_captures_get_located_errors() {
    let r = decode("gamestudio-broken.pcap");
    let bad: Vec<usize> = r
        .iter()
        .enumerate()
        .filter(|(_, r)| errors(r) > 0)
        .map(|(i, _)| i + 1)
        .collect();
    assert_eq!(bad, vec![3, 4, 5, 6, 7, 9, 10, 12, 13]);
    for i in bad {
        let rec = &r[i - 1];
        let e = rec["notes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|n| n["severity"] == "error")
            .unwrap();
        assert!(e.get("field").is_some(), "frame {i}: {e}");
    }
}
