//! `diff`: the exact differences reported between a capture and edited copies of it.

use std::path::PathBuf;

use gamedissect::commands::diff::{DiffOptions, Tally, What, diff_files};

/// A classic pcap split into its global header and records (header + data each).
struct Pcap {
    header: Vec<u8>,
    records: Vec<Vec<u8>>,
    little: bool,
}

impl Pcap {
    /// The first `keep` records of a capture (a short copy keeps debug-build tests quick).
    fn head(path: &str, keep: usize) -> Pcap {
        let mut p = Pcap::read(path);
        p.records.truncate(keep);
        p
    }

    fn read(path: &str) -> Pcap {
        let d = std::fs::read(path).unwrap();
        let little = d[0] == 0xd4;
        let u32_at = |o: usize| {
            let b = [d[o], d[o + 1], d[o + 2], d[o + 3]];
            if little {
                u32::from_le_bytes(b)
            } else {
                u32::from_be_bytes(b)
            }
        };
        let mut records = Vec::new();
        let mut o = 24;
        while o + 16 <= d.len() {
            let len = u32_at(o + 8) as usize;
            records.push(d[o..o + 16 + len].to_vec());
            o += 16 + len;
        }
        Pcap {
            header: d[..24].to_vec(),
            records,
            little,
        }
    }

    fn write(&self, name: &str) -> String {
        let path: PathBuf = scratch(&format!("{name}.pcap"));
        let mut out = self.header.clone();
        for r in &self.records {
            out.extend_from_slice(r);
        }
        std::fs::write(&path, out).unwrap();
        path.to_string_lossy().into_owned()
    }

    /// Adds `secs` to every record's timestamp.
    fn shift(&mut self, secs: u32) {
        for r in &mut self.records {
            let b = [r[0], r[1], r[2], r[3]];
            let t = if self.little {
                u32::from_le_bytes(b)
            } else {
                u32::from_be_bytes(b)
            };
            let t = t + secs;
            let nb = if self.little {
                t.to_le_bytes()
            } else {
                t.to_be_bytes()
            };
            r[..4].copy_from_slice(&nb);
        }
    }
}

const FG: &str = "captures/flightgear-v2-pair.pcap";
const Q3: &str = "captures/quake3-ioq3-protocol.pcap";

/// A file under the target's scratch directory, overwritten by the next run (names are unique
/// per test): not one file per run left in the system's temporary directory.
fn scratch(name: &str) -> PathBuf {
    std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("diff-{name}"))
}

fn diff(golden: &str, new: &str, opts: &DiffOptions) -> Tally {
    diff_files(golden, new, opts).unwrap()
}

fn labels(t: &Tally) -> Vec<String> {
    t.shown.iter().map(|d| d.what.label().to_string()).collect()
}

#[test]
fn a_capture_against_itself_is_equal() {
    let t = diff(Q3, Q3, &DiffOptions::default());
    assert!(t.equal(), "{:?}", &t.shown[..t.shown.len().min(5)]);
    assert_eq!(t.golden_messages, t.new_messages);
    assert!(t.golden_messages > 1000);
}

#[test]
fn a_time_shifted_copy_is_equal_unless_times_are_compared() {
    let golden = Pcap::head(FG, 600).write("golden-shift");
    let mut p = Pcap::head(FG, 600);
    p.shift(3600);
    let shifted = p.write("shifted");
    assert!(diff(&golden, &shifted, &DiffOptions::default()).equal());
    let mut opts = DiffOptions::default();
    opts.compare.time = true;
    let t = diff(&golden, &shifted, &opts);
    assert_eq!(t.differences, 600);
    assert_eq!(t.by_field.get("time"), Some(&600));
    opts.compare.time_tolerance = 3600.5;
    assert!(diff(&golden, &shifted, &opts).equal());
}

#[test]
fn one_dropped_frame_is_one_missing_message() {
    let golden = Pcap::head(FG, 600).write("golden-drop");
    let mut p = Pcap::head(FG, 600);
    p.records.remove(100);
    let t = diff(&golden, &p.write("dropped"), &DiffOptions::default());
    assert_eq!(labels(&t), vec!["(missing in new)"]);
    assert_eq!(t.shown[0].golden_frame, Some(101));
}

#[test]
fn one_duplicated_frame_is_one_extra_message() {
    let golden = Pcap::head(FG, 600).write("golden-dup");
    let mut p = Pcap::head(FG, 600);
    let copy = p.records[200].clone();
    p.records.insert(201, copy);
    let t = diff(&golden, &p.write("duplicated"), &DiffOptions::default());
    assert_eq!(labels(&t), vec!["(extra in new)"]);
}

#[test]
fn two_swapped_frames_are_one_swap() {
    let golden = Pcap::head(FG, 600).write("golden-swap");
    let mut p = Pcap::head(FG, 600);
    // Two frames of the same flow and direction: the pair capture alternates senders.
    p.records.swap(300, 302);
    let t = diff(&golden, &p.write("swapped"), &DiffOptions::default());
    assert_eq!(labels(&t), vec!["(swapped)"], "{:?}", t.shown);
    assert_eq!(t.shown[0].golden_frame, Some(301));
}

#[test]
fn saved_ndjson_of_a_capture_equals_the_capture() {
    let (json, err) = gamedissect::run::render(
        &std::fs::read(Q3).unwrap(),
        gamedissect::run::OutputFormat::Json,
        Default::default(),
    );
    assert!(err.is_none());
    let path = scratch("q3.ndjson");
    std::fs::write(&path, json).unwrap();
    let t = diff(Q3, path.to_str().unwrap(), &DiffOptions::default());
    assert!(t.equal(), "{:?}", &t.shown[..t.shown.len().min(5)]);
    let _ = What::Missing;
}

#[test]
fn one_rewritten_flightgear_property_byte_is_that_field() {
    let golden = Pcap::head(FG, 600).write("golden-prop");
    let mut p = Pcap::head(FG, 600);
    // Frame 101's second property (surface-positions/left-aileron-pos-norm) has its 2-byte
    // value at payload offset 238.
    let rec = &mut p.records[100];
    let payload = rec.windows(4).position(|w| w == b"FGFS").unwrap();
    rec[payload + 239] ^= 0x01;
    let t = diff(&golden, &p.write("prop"), &DiffOptions::default());
    let fields: Vec<_> = t
        .shown
        .iter()
        .map(|d| (d.golden_frame, d.what.label().to_string()))
        .collect();
    assert_eq!(
        fields,
        vec![(
            Some(101),
            "flightgear.properties.property.surface-positions/left-aileron-pos-norm".to_string()
        )],
        "{:?}",
        t.shown
    );
}

#[test]
fn a_changed_quake3_server_command_text_is_that_field() {
    let (json, _) = gamedissect::run::render(
        &std::fs::read(Q3).unwrap(),
        gamedissect::run::OutputFormat::Json,
        Default::default(),
    );
    let golden = scratch("q3g.ndjson");
    std::fs::write(&golden, &json).unwrap();
    // A reimplementation that prints another text in one server command.
    let target = "\"text\":\"print \\\"";
    let at = json.find(target).expect("a print command");
    let mut edited = json.clone();
    edited.insert(at + target.len(), 'X');
    let new = scratch("q3n.ndjson");
    std::fs::write(&new, edited).unwrap();
    let t = diff(
        golden.to_str().unwrap(),
        new.to_str().unwrap(),
        &DiffOptions::default(),
    );
    assert_eq!(t.differences, 1, "{:?}", t.shown);
    assert!(t.shown[0].what.label().ends_with(".text"), "{:?}", t.shown);
}

/// The command: exit 0 equal, 1 different, 2 usage or input errors; `--max` limits what is
/// printed, never what is counted; `--ignore` leaves a field out.
#[test]
fn the_command_exits_by_result_and_counts_beyond_max() {
    let bin = env!("CARGO_BIN_EXE_gamedissect");
    let golden = Pcap::head(FG, 600).write("cli-golden");
    let mut p = Pcap::head(FG, 600);
    for k in [100, 150, 250] {
        let rec = &mut p.records[k];
        let payload = rec.windows(4).position(|w| w == b"FGFS").unwrap();
        rec[payload + 239] ^= 0x01;
    }
    let new = p.write("cli-new");
    let run = |args: &[&str]| {
        let out = std::process::Command::new(bin).args(args).output().unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
        )
    };
    assert_eq!(run(&["diff", &golden, &golden]).0, Some(0));
    let (code, text) = run(&["diff", "--max", "1", &golden, &new]);
    assert_eq!(code, Some(1));
    assert_eq!(
        text.matches("flightgear.properties.property.surface-positions/left-aileron-pos-norm:")
            .count(),
        1,
        "{text}"
    );
    assert!(text.contains("(2 more differences not shown"), "{text}");
    assert!(
        text.contains("3 differences (golden 600 messages, new 600)"),
        "{text}"
    );
    let (code, json) = run(&["diff", "-f", "json", &golden, &new]);
    assert_eq!(code, Some(1));
    let last: serde_json::Value = serde_json::from_str(json.lines().last().unwrap()).unwrap();
    assert_eq!(last["summary"]["differences"], 3);
    let ignored = ["diff", "--ignore", "flightgear.properties.*", &golden, &new];
    assert_eq!(run(&ignored).0, Some(0));
    assert_eq!(run(&["diff", &golden, "/nonexistent.pcap"]).0, Some(2));
    assert_eq!(run(&["diff", "--pair", "x", &golden, &new]).0, Some(2));
}

/// Every shipped capture equals its own saved decode: the same comparison a regression test of a
/// game server runs against its golden NDJSON, over every protocol and dialect we ship.
#[test]
fn every_shipped_capture_equals_its_saved_decode() {
    for cap in testkit::dissect::shipped_captures() {
        let config = testkit::dissect::config_for(&cap);
        let (json, _) = gamedissect::run::render(
            &std::fs::read(&cap).unwrap(),
            gamedissect::run::OutputFormat::Json,
            config.clone(),
        );
        let stem = cap.file_stem().unwrap().to_string_lossy().into_owned();
        let saved = scratch(&format!("{stem}.ndjson"));
        std::fs::write(&saved, &json).unwrap();
        let opts = DiffOptions {
            config,
            ..DiffOptions::default()
        };
        let t = diff_files(cap.to_str().unwrap(), saved.to_str().unwrap(), &opts).unwrap();
        assert!(
            t.equal(),
            "{}: {:?}",
            cap.display(),
            &t.shown[..t.shown.len().min(3)]
        );
        assert_eq!(
            t.golden_messages as usize,
            json.lines().count(),
            "{}",
            cap.display()
        );
        let _ = std::fs::remove_file(saved);
    }
}
