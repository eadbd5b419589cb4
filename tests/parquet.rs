//! `--format parquet`, read back with the parquet crate's Arrow reader on every shipped
//! capture: per type the rows and bytes `stats` counts, every row equal to its `dissect -f json`
//! record (keys, fields, notes; floats exactly), every file's schema the registry's.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use ::parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use arrow_array::cast::AsArray;
use arrow_array::types::{Float64Type, Int64Type, TimestampNanosecondType, UInt64Type};
use arrow_array::{Array, RecordBatch};
use arrow_schema::DataType;
use gamedissect::output::parquet::schema::{self, ANY_ALTERNATIVES};
use gamedissect::output::parquet::{ParquetSink, Written, hive_escape};
use gamedissect::run::{OutputFormat, render, stats_of};
use serde_json::{Map, Value as J};
use testkit::dissect::{config_for, each_record, shipped_captures};

/// The capture written as Parquet under a fresh directory.
fn write(cap: &Path, tag: &str) -> (PathBuf, Written) {
    let dir = std::env::temp_dir().join(format!(
        "gamedissect-parquet-{tag}-{}-{}",
        std::process::id(),
        cap.file_name().unwrap().to_string_lossy()
    ));
    let _ = fs::remove_dir_all(&dir);
    let mut sink = ParquetSink::new(&dir, "cap.pcap", &gamedissect::protocols::all()).unwrap();
    let bytes = fs::read(cap).unwrap();
    each_record(&bytes, config_for(cap), |m, r| sink.record(m, r).unwrap());
    (dir, sink.finish().unwrap())
}

/// Every file's rows, keyed by its (protocol, type) partition.
fn read_back(w: &Written) -> BTreeMap<(String, String), (DataType, Vec<RecordBatch>)> {
    let mut out = BTreeMap::new();
    for path in &w.files {
        let part = |p: &Path| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            name.split_once('=').unwrap().1.to_string()
        };
        let type_dir = path.parent().unwrap();
        let key = (part(type_dir.parent().unwrap()), part(type_dir));
        let reader = ParquetRecordBatchReaderBuilder::try_new(fs::File::open(path).unwrap())
            .unwrap()
            .build()
            .unwrap();
        let batches: Vec<RecordBatch> = reader.map(Result::unwrap).collect();
        let fields = batches[0]
            .schema()
            .field_with_name("fields")
            .unwrap()
            .data_type()
            .clone();
        // A partition's files, part-0 first, in the order they were opened.
        let entry = out.entry(key).or_insert_with(|| (fields, Vec::new()));
        entry.1.extend(batches);
    }
    out
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

fn base64(data: &[u8]) -> String {
    let mut s = String::new();
    gamedissect::output::json::base64_into(&mut s, data);
    s
}

/// One value of an Arrow column as `dissect -f json` writes it (nulls left out of objects).
fn to_json(a: &dyn Array, i: usize) -> J {
    if a.is_null(i) {
        return J::Null;
    }
    match a.data_type() {
        DataType::UInt64 => a.as_primitive::<UInt64Type>().value(i).into(),
        DataType::Int64 => a.as_primitive::<Int64Type>().value(i).into(),
        DataType::Float64 => float_json(a.as_primitive::<Float64Type>().value(i)),
        DataType::Boolean => a.as_boolean().value(i).into(),
        DataType::Utf8 => a.as_string::<i32>().value(i).into(),
        DataType::Binary => hex(a.as_binary::<i32>().value(i)).into(),
        DataType::List(_) => {
            let l = a.as_list::<i32>().value(i);
            J::Array((0..l.len()).map(|k| to_json(&l, k)).collect())
        }
        DataType::Map(..) => {
            let m = a.as_map();
            let entries = m.value(i);
            let (keys, values) = (entries.column(0), entries.column(1));
            let mut o = Map::new();
            for k in 0..entries.len() {
                let key = keys.as_string::<i32>().value(k).to_string();
                o.insert(key, to_json(values, k));
            }
            J::Object(o)
        }
        DataType::Struct(fields) => {
            let s = a.as_struct();
            let names: Vec<&str> = fields.iter().map(|f| f.name().as_str()).collect();
            if names == ANY_ALTERNATIVES {
                // An `any`: the one alternative set, text that is not UTF-8 as JSON writes it.
                let (k, c) = s
                    .columns()
                    .iter()
                    .enumerate()
                    .find(|(_, c)| !c.is_null(i))
                    .unwrap();
                return match k {
                    5 => serde_json::json!({ "bytes": base64(c.as_binary::<i32>().value(i)) }),
                    _ => to_json(c, i),
                };
            }
            let mut o = Map::new();
            for (f, c) in fields.iter().zip(s.columns()) {
                let v = to_json(c, i);
                if !v.is_null() {
                    o.insert(f.name().clone(), v);
                }
            }
            J::Object(o)
        }
        other => panic!("unexpected type {other}"),
    }
}

fn float_json(v: f64) -> J {
    if v.is_nan() {
        "NaN".into()
    } else if v.is_infinite() {
        if v > 0.0 { "Infinity" } else { "-Infinity" }.into()
    } else {
        serde_json::Number::from_f64(v).map_or(J::Null, J::Number)
    }
}

/// The JSON without its nulls (Parquet has a null column where JSON has no key).
fn without_nulls(v: &J) -> J {
    match v {
        J::Object(o) => J::Object(
            o.iter()
                .filter(|(_, v)| !v.is_null())
                .map(|(k, v)| (k.clone(), without_nulls(v)))
                .collect(),
        ),
        J::Array(a) => J::Array(a.iter().map(without_nulls).collect()),
        v => v.clone(),
    }
}

/// Equal, a float of Parquet equal to the JSON's number exactly: JSON writes a float's shortest
/// digits (f32's for a value decoded as f32), so the Parquet double written the same way is the
/// same text. Both texts go through the one parser, whose rounding then cannot tell them apart
/// unless the texts differ.
fn same(json: &J, pq: &J) -> bool {
    match (json, pq) {
        (J::Number(a), J::Number(b)) if a.is_f64() || b.is_f64() => {
            let (a, b) = (a.as_f64().unwrap(), b.as_f64().unwrap());
            let parse = |text: String| serde_json::from_str::<f64>(&text).unwrap();
            a == parse(format!("{b}"))
                || (b as f32 as f64 == b && a == parse(format!("{}", b as f32)))
        }
        (J::Object(a), J::Object(b)) => {
            a.len() == b.len() && a.iter().all(|(k, v)| b.get(k).is_some_and(|w| same(v, w)))
        }
        (J::Array(a), J::Array(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(v, w)| same(v, w))
        }
        (a, b) => a == b,
    }
}

/// Nanoseconds since the epoch written as JSON's `time` is, with as many fraction digits.
fn rfc3339(ns: i64, like: &J) -> String {
    let digits = like
        .as_str()
        .unwrap()
        .split_once('.')
        .map_or(0, |(_, f)| f.len() - 1);
    let (secs, nanos) = (ns.div_euclid(1_000_000_000), ns.rem_euclid(1_000_000_000));
    gamedissect::capture::Timestamp::new(secs, nanos as u32, digits as u8).rfc3339()
}

/// One Parquet row as the JSON record it came from, keys checked by name.
fn row_matches(b: &RecordBatch, i: usize, rec: &J, at: &str) {
    let col = |name: &str| b.column_by_name(name).unwrap();
    assert_eq!(
        col("capture").as_string::<i32>().value(i),
        "cap.pcap",
        "{at}"
    );
    for key in [
        "frame",
        "src",
        "dst",
        "flow",
        "direction",
        "length",
        "summary",
    ] {
        assert_eq!(to_json(col(key), i), rec[key], "{at}: {key}");
    }
    let time = col("time")
        .as_primitive::<TimestampNanosecondType>()
        .value(i);
    assert_eq!(
        J::from(rfc3339(time, &rec["time"])),
        rec["time"],
        "{at}: time"
    );
    let rel = col("time_relative").as_primitive::<Float64Type>().value(i);
    assert!(
        same(&rec["time_relative"], &float_json(rel)),
        "{at}: time_relative {rel}"
    );
    let fields = to_json(col("fields"), i);
    let want = without_nulls(&rec["fields"]);
    assert!(
        same(&want, &fields),
        "{at}: fields\njson    {want}\nparquet {fields}"
    );
    let notes = to_json(col("notes"), i);
    let notes: Vec<J> = notes
        .as_array()
        .unwrap()
        .iter()
        .map(|n| {
            let mut n = n.as_object().unwrap().clone();
            let name = n.remove("name").unwrap();
            assert!(
                name.as_str().unwrap().starts_with("expert."),
                "{at}: {name}"
            );
            J::Object(n)
        })
        .collect();
    assert_eq!(J::Array(notes), without_nulls(&rec["notes"]), "{at}: notes");
}

/// What `stats` counts per type: a datagram's bytes shared among its records, the first taking
/// the remainder (engine::Engine), in the JSON's record order.
fn stats_from_rows(records: &[J]) -> BTreeMap<(String, String), (u64, u64)> {
    let mut out: BTreeMap<(String, String), (u64, u64)> = BTreeMap::new();
    let mut k = 0;
    while k < records.len() {
        let frame = &records[k]["frame"];
        let n = records[k..]
            .iter()
            .take_while(|r| &r["frame"] == frame)
            .count();
        let len = records[k]["length"].as_u64().unwrap();
        let share = len / n as u64;
        for (j, r) in records[k..k + n].iter().enumerate() {
            let bytes = if j == 0 {
                len - share * (n as u64 - 1)
            } else {
                share
            };
            let key = (
                r["protocol"].as_str().unwrap().to_string(),
                r["type"].as_str().unwrap().to_string(),
            );
            let e = out.entry(key).or_default();
            e.0 += 1;
            e.1 += bytes;
        }
        k += n;
    }
    out
}

/// Every shipped capture: counts and bytes per type as `stats`, each row its JSON record, each
/// file the registry's schema, nothing left out.
#[test]
fn every_capture_reads_back_as_its_json() {
    for cap in shipped_captures() {
        reads_back_as_its_json(&cap);
    }
}

/// Cut mid-session, each capture's first datagrams are read before the flow is understood (a
/// Quake 3 netchan whose flavour is not decided, a DirectPlay piece without its start): those
/// records too have a column for every value.
#[test]
fn captures_cut_mid_session_read_back_as_their_json() {
    let dir = std::env::temp_dir().join(format!("gamedissect-parquet-cut-{}", std::process::id()));
    fs::create_dir_all(&dir).unwrap();
    for name in [
        "quake3-openarena-legacy.pcap",
        "quake3-ioq3-protocol.pcap",
        "srb2-2.2.13-session.pcap",
        "gamestudio-a6-dplay8.pcap",
    ] {
        let p = testkit::recovery::read_pcap(&fs::read(format!("captures/{name}")).unwrap());
        let from = p.records.len() * 2 / 5;
        let (cut, _) = testkit::recovery::subset(&p, |i| i >= from);
        // The same file name: the capture's golden options (`config_for`) still apply.
        let path = dir.join(name);
        fs::write(&path, cut).unwrap();
        reads_back_as_its_json(&path);
    }
    fs::remove_dir_all(&dir).unwrap();
}

/// Per type the rows and bytes `stats` counts, each file's schema its type's, every row its
/// JSON record.
fn reads_back_as_its_json(cap: &Path) {
    let registry = gamedissect::protocols::all();
    let protocols = schema::ProtocolFields::all(&registry);
    {
        let cap = cap.to_path_buf();
        let (dir, written) = write(&cap, "json");
        let at = cap.display().to_string();
        assert_eq!(written.misfits, Default::default(), "{at}");
        let files = read_back(&written);
        let bytes = fs::read(&cap).unwrap();
        let (json, _) = render(&bytes, OutputFormat::Json, config_for(&cap));
        let records: Vec<J> = json
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(written.rows, records.len() as u64, "{at}");
        let mut by_type: BTreeMap<(String, String), Vec<&J>> = BTreeMap::new();
        for r in &records {
            let key = (
                r["protocol"].as_str().unwrap().to_string(),
                r["type"].as_str().unwrap().to_string(),
            );
            by_type.entry(key).or_default().push(r);
        }
        // (a) rows and bytes per type, as `stats` counts them.
        let (stats, _) = stats_of(&bytes, config_for(&cap));
        let mut from_stats = BTreeMap::new();
        for (p, types) in &stats.message_types {
            for (t, cb) in types {
                from_stats.insert((p.to_string(), t.clone()), (cb.messages, cb.bytes));
            }
        }
        assert_eq!(stats_from_rows(&records), from_stats, "{at}");
        let escaped: BTreeMap<_, _> = by_type
            .iter()
            .map(|((p, t), v)| ((hive_escape(p), hive_escape(t)), v))
            .collect();
        assert_eq!(
            escaped.keys().collect::<Vec<_>>(),
            files.keys().collect::<Vec<_>>(),
            "{at}"
        );
        for (key, (fields_type, batches)) in &files {
            let want = &escaped[key];
            let rows: usize = batches.iter().map(RecordBatch::num_rows).sum();
            assert_eq!(rows, want.len(), "{at} {key:?}");
            // (c) the type's schema from the registry.
            let s = protocols
                .iter()
                .find(|s| hive_escape(s.protocol) == key.0)
                .unwrap()
                .schema_of(want[0]["type"].as_str().unwrap());
            assert_eq!(
                batches[0].schema().fields(),
                s.arrow.fields(),
                "{at} {key:?}"
            );
            assert_eq!(
                fields_type,
                s.arrow.field_with_name("fields").unwrap().data_type()
            );
            // (b) each row its JSON record, in frame order.
            let mut k = 0;
            for b in batches {
                for i in 0..b.num_rows() {
                    row_matches(b, i, want[k], &format!("{at} {key:?} row {k}"));
                    k += 1;
                }
            }
        }
        fs::remove_dir_all(&dir).unwrap();
    }
}

/// The registry makes a tree Parquet can hold: no two children of a field share a key, no
/// group is left without a column, and every protocol's schema is the same on every run.
#[test]
fn the_registry_makes_one_schema_per_protocol() {
    fn check(node: &schema::Node, path: &str) {
        if let schema::Shape::Object { own, children, .. } = &node.shape {
            assert!(
                own.is_some() || !children.is_empty(),
                "{path}: an empty group"
            );
            let mut keys: Vec<&str> = children.iter().map(|c| c.key).collect();
            keys.sort_unstable();
            keys.dedup();
            assert_eq!(keys.len(), children.len(), "{path}: keys repeat");
            for c in children {
                check(c, &format!("{path}.{}", c.key));
            }
        }
    }
    let registry = gamedissect::protocols::all();
    let a = schema::all(&registry);
    let b = schema::all(&registry);
    assert_eq!(
        a.iter().map(|s| s.protocol).collect::<Vec<_>>(),
        ["udp", "flightgear", "quake3", "srb2", "gamestudio"]
    );
    for (s, t) in a.iter().zip(&b) {
        assert_eq!(s.arrow, t.arrow);
        for n in &s.roots {
            check(n, n.key);
        }
    }
    // Held fields sit where the decoders put them: a baseline under the gamestate, a ticcmd
    // under a tic, a message's arguments under its group.
    let fields = |p: &str| {
        let s = a.iter().find(|s| s.protocol == p).unwrap();
        format!(
            "{:?}",
            s.arrow.field_with_name("fields").unwrap().data_type()
        )
    };
    let q3 = schema::markdown(&registry);
    for path in [
        "| `fields.quake3.svc.gamestate.entity[].pos_tr_base_0` | DOUBLE |",
        "| `fields.srb2.tics.tic[].cmd[].forward` | BIGINT |",
        "| `fields.srb2.tics.tic[].value` | UBIGINT |",
        "| `fields.gamestudio.svc_update2[].pos.x` | DOUBLE |",
        "| `fields.flightgear.properties.property` | MAP(VARCHAR, STRUCT) |",
        "| `fields.quake3.clc.voip[].name` | VARCHAR |",
    ] {
        assert!(q3.contains(path), "{path} not in the reference");
    }
    assert!(fields("udp").contains("payload"));
}

/// docs/parquet.md is what `gamedissect fields --parquet` prints.
#[test]
fn the_parquet_reference_is_generated() {
    let doc = fs::read_to_string("docs/parquet.md").unwrap();
    let generated = schema::markdown(&gamedissect::protocols::all());
    assert!(
        doc == generated,
        "docs/parquet.md is stale: run `gamedissect fields --parquet > docs/parquet.md`"
    );
}

/// Partition values are escaped as Hive escapes them, so every engine reads the type back.
#[test]
fn partition_values_are_hive_escaped() {
    assert_eq!(hive_escape("DP8 SACK"), "DP8 SACK");
    assert_eq!(hive_escape("a/b=c%d"), "a%2Fb%3Dc%25d");
    assert_eq!(hive_escape("x\ny:*?"), "x%0Ay%3A%2A%3F");
    assert_eq!(hive_escape(""), "__HIVE_DEFAULT_PARTITION__");
    assert_eq!(hive_escape("é"), "é");
}

/// A directory holding an earlier run's partitions is refused, one without is used.
#[test]
fn an_earlier_run_is_not_overwritten() {
    let cap = PathBuf::from("captures/flightgear-v1.pcap");
    let (dir, written) = write(&cap, "again");
    assert!(!written.files.is_empty());
    let again = ParquetSink::new(&dir, "cap.pcap", &gamedissect::protocols::all());
    let err = again.err().unwrap();
    assert!(err.to_string().contains("protocol=flightgear"), "{err}");
    fs::remove_dir_all(&dir).unwrap();
}

/// Every leaf column under `t`, by path, with its type.
fn leaves(t: &DataType, path: String, out: &mut Vec<(String, DataType)>) {
    match t {
        DataType::Struct(fields) => {
            for f in fields {
                leaves(f.data_type(), format!("{path}.{}", f.name()), out);
            }
        }
        DataType::List(item) => leaves(item.data_type(), format!("{path}[]"), out),
        DataType::Map(entries, _) => leaves(entries.data_type(), format!("{path}{{}}"), out),
        other => out.push((path, other.clone())),
    }
}

/// A message type's schema is its protocol's, narrowed to the fields the type can carry: the
/// same columns at the same paths with the same types, fewer of them.
#[test]
fn a_type_schema_is_its_protocol_schema_narrowed() {
    let registry = gamedissect::protocols::all();
    let fields_of = |s: &schema::ProtocolSchema| {
        let mut v = Vec::new();
        let t = s.arrow.field_with_name("fields").unwrap().data_type();
        leaves(t, "fields".into(), &mut v);
        v
    };
    let mut narrowed = 0;
    for p in schema::ProtocolFields::all(&registry) {
        let whole = fields_of(&p.schema_of("no such type"));
        for (types, _) in p.types.by_type {
            for t in *types {
                let name = t.replace('*', "X");
                let cols = fields_of(&p.schema_of(&name));
                assert!(!cols.is_empty(), "{} {name}", p.protocol);
                for c in &cols {
                    assert!(whole.contains(c), "{} {name}: {c:?}", p.protocol);
                }
                narrowed += usize::from(cols.len() < whole.len());
            }
        }
    }
    assert!(narrowed >= 80, "{narrowed} types narrowed");
    let columns = |p: &str, t: &str| {
        let p = schema::ProtocolFields::all(&registry)
            .into_iter()
            .find(|s| s.protocol == p)
            .unwrap();
        fields_of(&p.schema_of(t))
            .into_iter()
            .map(|(path, _)| path)
            .collect::<Vec<_>>()
    };
    let has = |cols: &[String], prefix: &str| cols.iter().any(|c| c.starts_with(prefix));
    let moves = columns("quake3", "move");
    assert!(has(&moves, "fields.quake3.clc.move"));
    assert!(has(&moves, "fields.quake3.netchan.qport"));
    assert!(!has(&moves, "fields.quake3.svc"));
    assert!(!has(&moves, "fields.quake3.oob"));
    let tics = columns("srb2", "PT_SERVERTICS");
    assert!(has(&tics, "fields.srb2.tics.tic[].cmd[].forward"));
    assert!(has(&tics, "fields.srb2.header.checksum"));
    assert!(!has(&tics, "fields.srb2.serverinfo"));
    let update = columns("gamestudio", "SVC_UPDATE2");
    assert!(has(&update, "fields.gamestudio.svc_update2[].pos.x"));
    assert!(!has(&update, "fields.gamestudio.svc_update2[].player_name"));
    assert!(!has(&update, "fields.gamestudio.cls_join"));
    assert_eq!(
        columns("gamestudio", "DP8 CONNECT"),
        columns("gamestudio", "DP8 SACK")
    );
    // A type no decoder names has the whole tree: nothing it carries is lost.
    assert_eq!(columns("srb2", "PT_SOMETHING_NEW").len(), {
        let mut v = Vec::new();
        let s = &schema::all(&registry)[3];
        leaves(
            s.arrow.field_with_name("fields").unwrap().data_type(),
            "fields".into(),
            &mut v,
        );
        v.len()
    });
}

/// `events --format parquet`: every shipped capture's events, read back, are its `events -f
/// json` lines, kind by kind in frame order (the capture column, keys, labels, details).
#[test]
fn events_read_back_as_their_json() {
    use gamedissect::commands::events::EventFormat;
    use gamedissect::commands::events::run::{events_of, extract};
    use gamedissect::output::parquet::events::EventSink;
    let mut total = 0;
    for cap in shipped_captures() {
        let at = cap.display().to_string();
        let bytes = fs::read(&cap).unwrap();
        let json = events_of(&bytes, config_for(&cap), &[], EventFormat::Json);
        let dir = std::env::temp_dir().join(format!(
            "gamedissect-parquet-events-{}-{}",
            std::process::id(),
            cap.file_name().unwrap().to_string_lossy()
        ));
        let _ = fs::remove_dir_all(&dir);
        let mut sink = EventSink::new(&dir, "cap.pcap").unwrap();
        let ended = extract(
            &bytes[..],
            None,
            config_for(&cap),
            Vec::new(),
            &mut |e| sink.event(e),
            &mut |_| {},
        );
        assert!(matches!(ended, gamedissect::run::Outcome::Done), "{at}");
        let (files, rows) = sink.finish().unwrap();
        let mut want: BTreeMap<(String, String), Vec<J>> = BTreeMap::new();
        for line in json.lines() {
            let v: J = serde_json::from_str(line).unwrap();
            let key = (
                v["protocol"].as_str().unwrap().to_string(),
                v["kind"].as_str().unwrap().to_string(),
            );
            want.entry(key).or_default().push(v);
        }
        assert_eq!(
            rows as usize,
            want.values().map(Vec::len).sum::<usize>(),
            "{at}"
        );
        total += rows;
        for f in files {
            let path = f.display().to_string();
            let key = want
                .keys()
                .find(|(p, k)| {
                    path.contains(&format!(
                        "protocol={}/kind={}/",
                        hive_escape(p),
                        hive_escape(k)
                    ))
                })
                .unwrap_or_else(|| panic!("{path}"))
                .clone();
            let reader = ParquetRecordBatchReaderBuilder::try_new(fs::File::open(&f).unwrap())
                .unwrap()
                .build()
                .unwrap();
            let mut k = 0;
            for b in reader {
                let b = b.unwrap();
                for i in 0..b.num_rows() {
                    let w = &want[&key][k];
                    let col = |name: &str| to_json(b.column_by_name(name).unwrap().as_ref(), i);
                    assert_eq!(col("capture"), J::from("cap.pcap"));
                    let labels = ["who", "target", "text"];
                    let raw = labels.map(|l| format!("{l}_raw"));
                    let names = ["frame", "flow"].into_iter().chain(labels);
                    for name in names.chain(raw.iter().map(String::as_str)) {
                        assert_eq!(col(name), w[name], "{at} {key:?} row {k} {name}");
                    }
                    assert!(same(&w["rel"], &col("rel")), "{at} {key:?} row {k} rel");
                    let ns = b
                        .column_by_name("time")
                        .unwrap()
                        .as_primitive::<TimestampNanosecondType>()
                        .value(i);
                    assert_eq!(
                        J::from(rfc3339(ns, &w["time"])),
                        w["time"],
                        "{at} {key:?} row {k}"
                    );
                    assert_eq!(
                        without_nulls(&col("details")),
                        w["details"],
                        "{at} {key:?} row {k}"
                    );
                    k += 1;
                }
            }
            assert_eq!(k, want[&key].len(), "{at} {key:?}");
        }
        fs::remove_dir_all(&dir).ok();
    }
    assert_eq!(total, 206, "events of every shipped capture");
}
