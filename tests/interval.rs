//! `stats --interval`: per-interval counts that add up to `stats` over every shipped capture,
//! and a known interval checked against the JSON records' own times.

use std::collections::BTreeMap;
use std::fs;
use std::path::PathBuf;

use gamedissect::output::ListFormat;
use gamedissect::run::{OutputFormat, interval_stats_of, render, stats_of};
use testkit::dissect::{config_for, shipped_captures as captures};

const SECOND: u64 = 1_000_000_000;

fn intervals(cap: &PathBuf, width: u64) -> serde_json::Value {
    let bytes = fs::read(cap).unwrap();
    let json = interval_stats_of(&bytes, config_for(cap), width, ListFormat::Json);
    serde_json::from_str(&json).unwrap_or_else(|e| panic!("{}: {e}: {json}", cap.display()))
}

/// Summed over the intervals, datagrams, bytes and messages per protocol, and messages per
/// type, are those of `stats`; intervals are in order and one width apart.
#[test]
fn intervals_add_up_to_stats() {
    for cap in captures() {
        let v = intervals(&cap, SECOND);
        assert_eq!(v["interval"].as_f64(), Some(1.0));
        assert_eq!(v["late"], 0, "{}", cap.display());
        let mut protos: BTreeMap<String, (u64, u64, u64)> = BTreeMap::new();
        let mut types: BTreeMap<(String, String), u64> = BTreeMap::new();
        let mut last_start = f64::NEG_INFINITY;
        for i in v["intervals"].as_array().unwrap() {
            let (start, end) = (i["start"].as_f64().unwrap(), i["end"].as_f64().unwrap());
            assert!(start > last_start && (end - start - 1.0).abs() < 1e-9);
            last_start = start;
            for (p, c) in i["protocols"].as_object().unwrap() {
                let e = protos.entry(p.clone()).or_default();
                e.0 += c["packets"].as_u64().unwrap();
                e.1 += c["bytes"].as_u64().unwrap();
                e.2 += c["messages"].as_u64().unwrap();
                for (t, tc) in c["types"].as_object().unwrap() {
                    *types.entry((p.clone(), t.clone())).or_default() +=
                        tc["messages"].as_u64().unwrap();
                }
            }
        }
        let (stats, _) = stats_of(&fs::read(&cap).unwrap(), config_for(&cap));
        let expected: BTreeMap<String, (u64, u64, u64)> = stats
            .protocols
            .iter()
            .filter(|(_, p)| p.messages > 0)
            .map(|(n, p)| (n.to_string(), (p.datagrams, p.bytes, p.messages)))
            .collect();
        assert_eq!(protos, expected, "{}", cap.display());
        let expected_types: BTreeMap<(String, String), u64> = stats
            .message_types
            .iter()
            .flat_map(|(p, m)| {
                m.iter()
                    .map(|(t, c)| ((p.to_string(), t.clone()), c.messages))
            })
            .collect();
        assert_eq!(types, expected_types, "{}", cap.display());
    }
}

/// The Quake 3 capture's first ten seconds: the messages and snapshots counted from the JSON
/// records' `time_relative`.
#[test]
fn a_known_interval_matches_the_records_times() {
    let cap = PathBuf::from("captures/quake3-openarena-legacy.pcap");
    let v = intervals(&cap, 10 * SECOND);
    let first = &v["intervals"][0];
    assert_eq!(first["start"].as_f64(), Some(0.0));
    let (json, _) = render(
        &fs::read(&cap).unwrap(),
        OutputFormat::Json,
        config_for(&cap),
    );
    let records: Vec<serde_json::Value> = json
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .filter(|r: &serde_json::Value| r["time_relative"].as_f64().unwrap() < 10.0)
        .collect();
    let q3 = &first["protocols"]["quake3"];
    assert_eq!(q3["messages"], records.len());
    let snapshots = records.iter().filter(|r| r["type"] == "snapshot").count();
    assert!(snapshots > 100, "{snapshots}");
    assert_eq!(q3["types"]["snapshot"]["messages"], snapshots);
    let bytes: u64 = records.iter().map(|r| r["length"].as_u64().unwrap()).sum();
    assert_eq!(q3["bytes"], bytes);
}
