//! The JSON schema, checked over every shipped capture: the record-level keys scripts and
//! `diff` rely on, and (below) the shape of `fields`.

use std::collections::BTreeMap;
use std::fs;
use std::path::PathBuf;

use gamedissect::run::{OutputFormat, render, stats_of};
use gamedissect::tree::{Field, Kind};
use testkit::dissect::{config_for, each_record, shipped_captures as captures};

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

/// A JSON value's type for the schema: integers and floats apart (a float is always written
/// with a fraction), the strings a float uses for non-finite values counted as floats.
fn json_type(v: &serde_json::Value) -> &'static str {
    use serde_json::Value as J;
    match v {
        J::Null => "null",
        J::Bool(_) => "bool",
        J::Number(n) if n.is_f64() => "float",
        J::Number(_) => "int",
        J::String(s) if matches!(s.as_str(), "NaN" | "Infinity" | "-Infinity") => "float",
        J::String(_) => "string",
        J::Array(_) => "array",
        J::Object(_) => "object",
    }
}

/// Every path under `fields` with the JSON types seen there and one place each was seen.
type Shapes = BTreeMap<String, BTreeMap<&'static str, String>>;

fn collect_shapes(v: &serde_json::Value, path: &mut String, seen_at: &str, shapes: &mut Shapes) {
    let ty = json_type(v);
    if ty != "null" {
        shapes
            .entry(path.clone())
            .or_default()
            .entry(ty)
            .or_insert_with(|| seen_at.to_string());
    }
    let len = path.len();
    match v {
        serde_json::Value::Object(m) => {
            for (k, c) in m {
                assert!(!k.contains('.'), "key {k:?} under {path} ({seen_at})");
                path.push('.');
                path.push_str(k);
                collect_shapes(c, path, seen_at, shapes);
                path.truncate(len);
            }
        }
        serde_json::Value::Array(a) => {
            path.push_str("[]");
            for c in a {
                collect_shapes(c, path, seen_at, shapes);
            }
            path.truncate(len);
        }
        _ => {}
    }
}

/// The last two keys of every `any` field's name: where a path may hold several types. An
/// `any` field that is the value of a key/value group (`FieldDef::map`) sits under each key
/// instead: its tail is the group's key and `*`, any key.
fn any_field_tails() -> Vec<(String, String)> {
    let registry = gamedissect::protocols::all();
    let mut tails = Vec::new();
    for (_, _, defs) in gamedissect::proto::all_fields(&registry) {
        for d in defs.iter().filter(|d| d.kind == Kind::Any) {
            let mut parts = d.name.rsplit('.');
            let mut key = parts.next().unwrap_or_default().to_string();
            let mut parent = parts.next().unwrap_or_default().to_string();
            let parent_name = d.name.rsplit_once('.').map_or("", |(p, _)| p);
            if defs.iter().any(|m| m.map && m.name == parent_name) {
                key = "*".to_string();
                parent = parent_name
                    .rsplit('.')
                    .next()
                    .unwrap_or_default()
                    .to_string();
            }
            tails.push((parent, key));
        }
    }
    tails
}

/// Over every shipped capture together: no key under `fields` has a dot, and every path has
/// one JSON type (a declared `any` field aside), so jq paths and DuckDB's inferred columns hold
/// for every record of every capture.
#[test]
fn every_field_path_has_one_json_type_and_no_dotted_key() {
    let mut shapes = Shapes::new();
    for cap in captures() {
        for r in json_records(&cap) {
            let at = format!("{} frame {}", cap.display(), r["frame"]);
            collect_shapes(&r["fields"], &mut String::new(), &at, &mut shapes);
        }
    }
    let tails = any_field_tails();
    let mut mixed = Vec::new();
    for (path, types) in &shapes {
        let keys: Vec<&str> = path.rsplit('.').take(2).collect();
        let tail = |k: &str| k.trim_end_matches("[]").to_string();
        let is_any = keys.len() == 2
            && (tails.contains(&(tail(keys[1]), tail(keys[0])))
                || tails.contains(&(tail(keys[1]), "*".to_string())));
        if types.len() > 1 && !is_any {
            mixed.push(format!("{path}: {types:?}"));
        }
    }
    assert!(
        mixed.is_empty(),
        "paths with several types:\n{}",
        mixed.join("\n")
    );
    // The check is not vacuous: the captures reach the shapes that once varied.
    for path in [
        ".flightgear.range_word",
        ".quake3.svc.gamestate.entity[].pos_tr_base_0",
        ".srb2.tics.tic[].cmd",
        ".srb2.textcmd.textbuf[].xd[]",
        ".gamestudio.svc_update2[].pos.x",
    ] {
        assert!(shapes.contains_key(path), "{path} not reached");
    }
    assert!(shapes.len() > 500, "{} paths", shapes.len());
}

/// Siblings with different names never share a key (the key is the name's last segment), so
/// no object has a key twice: checked on the field trees of every shipped capture.
#[test]
fn sibling_fields_have_distinct_keys() {
    fn check(children: &[Field], at: &str) {
        let mut names: BTreeMap<&str, &str> = BTreeMap::new();
        for c in children {
            let name = *names.entry(c.def.key()).or_insert(c.def.name);
            assert_eq!(
                name,
                c.def.name,
                "two fields keyed {:?} ({at})",
                c.def.key()
            );
            check(&c.children, at);
        }
    }
    for cap in captures() {
        let bytes = fs::read(&cap).unwrap();
        each_record(&bytes, config_for(&cap), |m, r| {
            check(&r.fields, &format!("{} frame {}", cap.display(), m.frame));
        });
    }
}

/// A valued field is declared to nest exactly when another field's name extends its own, so
/// JSON writes it as an object in every record, children or not.
#[test]
fn valued_fields_with_children_are_declared_to_nest() {
    let registry = gamedissect::protocols::all();
    let all: Vec<_> = gamedissect::proto::all_fields(&registry)
        .into_iter()
        .flat_map(|(_, _, defs)| defs)
        .collect();
    let mut nesting = Vec::new();
    for d in &all {
        let prefix = format!("{}.", d.name);
        let has_children = all.iter().any(|o| o.name.starts_with(&prefix));
        if d.kind != Kind::Group {
            assert_eq!(d.nests, has_children, "{}", d.name);
        }
        if d.nests {
            nesting.push(d.name);
        }
    }
    assert_eq!(nesting, ["flightgear.range_word", "srb2.xd"]);
}

/// Known values: whole floats keep a fraction, a nesting field is an object without children
/// too, a reused field sits under the key of its name's last segment.
#[test]
fn known_values_in_the_schema() {
    let gs = json_records(&PathBuf::from("captures/gamestudio-a6-dplay8.pcap"));
    let update = gs
        .iter()
        .flat_map(|r| r["fields"]["gamestudio"]["svc_update2"].as_array().cloned())
        .flatten()
        .next()
        .unwrap();
    assert_eq!(update["entity_index"], 7);
    assert_eq!(update["pos"].to_string(), r#"{"x":1.0,"y":2.0,"z":3.0}"#);
    let fg = json_records(&PathBuf::from("captures/flightgear-handmade.pcap"));
    assert_eq!(fg[4]["frame"], 5);
    let word = &fg[4]["fields"]["flightgear"]["range_word"];
    assert!(word.is_object() && word["value"].is_u64(), "{word}");
    let q3 = json_records(&PathBuf::from("captures/quake3-ioq3-protocol.pcap"));
    let baselines = q3
        .iter()
        .find_map(|r| {
            r["fields"]["quake3"]["svc"]["gamestate"]["entity"]
                .as_array()
                .cloned()
        })
        .unwrap();
    assert!(baselines.len() > 10, "{}", baselines.len());
}
