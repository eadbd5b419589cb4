//! The JSON schema, checked over every shipped capture: the record-level keys scripts and
//! `diff` rely on, and (below) the shape of `fields`.

use std::collections::BTreeMap;
use std::fs;
use std::path::PathBuf;

use gamedissect::run::{OutputFormat, render, stats_of};
use testkit::dissect::{config_for, shipped_captures as captures};

fn json_records(cap: &PathBuf) -> Vec<serde_json::Value> {
    let bytes = fs::read(cap).unwrap();
    let (json, _) = render(&bytes, OutputFormat::Json, config_for(cap));
    json.lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// `type` is what `stats` counts, per protocol; `length` is the datagram's payload; the times
/// are numbers that agree with the RFC 3339 `time`; `flow` and `direction` are present.
#[test]
fn record_level_keys_agree_with_stats_and_time() {
    for cap in captures() {
        let records = json_records(&cap);
        let bytes = fs::read(&cap).unwrap();
        let (stats, _) = stats_of(&bytes, config_for(&cap));
        let mut types: BTreeMap<(String, String), u64> = BTreeMap::new();
        let mut first_epoch = None;
        for r in &records {
            let protocol = r["protocol"].as_str().unwrap().to_string();
            let ty = r["type"].as_str().unwrap().to_string();
            *types.entry((protocol, ty)).or_default() += 1;
            assert!(r["length"].is_u64(), "{}: {r}", cap.display());
            assert!(r["flow"].is_u64(), "{}: {r}", cap.display());
            let dir = &r["direction"];
            assert!(
                dir.is_null() || dir == "to_server" || dir == "to_client",
                "{}: {dir}",
                cap.display()
            );
            let epoch = r["time_epoch"].as_f64().unwrap();
            let rel = r["time_relative"].as_f64().unwrap();
            let base = *first_epoch.get_or_insert(epoch - rel);
            assert!((epoch - rel - base).abs() < 1e-5, "{}", cap.display());
        }
        let mut from_stats: BTreeMap<(String, String), u64> = BTreeMap::new();
        for (p, m) in &stats.message_types {
            for (t, cb) in m {
                from_stats.insert((p.to_string(), t.clone()), cb.messages);
            }
        }
        assert_eq!(types, from_stats, "{}", cap.display());
    }
}

/// Record-level values of known frames: the first Quake 3 exchange (the client's `getinfo`,
/// recognised by content) and a plain UDP datagram, whose direction nobody decided.
#[test]
fn record_level_values_of_known_frames() {
    let q3 = json_records(&PathBuf::from("captures/quake3-openarena-legacy.pcap"));
    assert_eq!(q3[0]["type"], "getinfo");
    assert_eq!(q3[0]["length"], 12);
    assert_eq!(q3[0]["flow"], 0);
    assert_eq!(q3[0]["direction"], "to_server");
    assert_eq!(q3[0]["time_relative"].as_f64(), Some(0.0));
    assert_eq!(q3[1]["type"], "infoResponse");
    assert_eq!(q3[1]["length"], 173);
    assert_eq!(q3[1]["direction"], "to_client");
    assert_eq!(q3[1]["time_relative"].as_f64(), Some(0.000095));
    let mixed = json_records(&PathBuf::from("captures/udp-mixed.pcapng"));
    let udp = mixed.iter().find(|r| r["protocol"] == "udp").unwrap();
    assert_eq!(udp["type"], "datagram");
    assert!(udp["direction"].is_null());
}
