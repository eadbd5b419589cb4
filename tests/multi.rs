//! Several captures in one run (`dissect`, `stats`, `events` given several files or a
//! directory): the output is each capture's own output, in order, with its name added
//! (docs/output.md, "Several captures").

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value as J;

const BIN: &str = env!("CARGO_BIN_EXE_gamedissect");

/// Three small captures of three protocols, in the order a directory walk gives them.
const CAPTURES: [&str; 3] = [
    "quake3-openarena-legacy.pcap",
    "srb2-2.2.13-session.pcap",
    "udp-mixed.pcapng",
];

fn shipped(name: &str) -> String {
    format!("captures/{name}")
}

fn run(args: &[&str]) -> (i32, Vec<u8>, String) {
    let out = Command::new(BIN)
        .args(args)
        .env_remove("NO_COLOR")
        .output()
        .unwrap();
    let err = String::from_utf8(out.stderr).unwrap();
    (out.status.code().unwrap_or(-1), out.stdout, err)
}

/// Runs and expects success with nothing on stderr.
fn ok(args: &[&str]) -> Vec<u8> {
    let (code, out, err) = run(args);
    assert_eq!((code, err.as_str()), (0, ""), "{args:?}");
    out
}

/// A fresh directory under the target's scratch directory holding copies of `files`.
fn dir_of(name: &str, files: &[(&str, &str)]) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("multi-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    for (from, to) in files {
        let to = dir.join(to);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(from, to).unwrap();
    }
    dir
}

/// The three captures copied into a directory (one in a subdirectory), with a file that is not
/// a capture beside them.
fn captures_dir(name: &str) -> (PathBuf, Vec<String>) {
    let dir = dir_of(
        name,
        &[
            ("captures/quake3-openarena-legacy.pcap", "a/q3.pcap"),
            ("captures/srb2-2.2.13-session.pcap", "b.pcap"),
            ("captures/udp-mixed.pcapng", "c.pcapng"),
            ("captures/quake3-openarena-legacy.log", "a/q3.log"),
        ],
    );
    let d = dir.to_str().unwrap();
    let found = ["a/q3.pcap", "b.pcap", "c.pcapng"].map(|f| format!("{d}/{f}"));
    (dir, found.to_vec())
}

fn json_lines(bytes: &[u8]) -> Vec<J> {
    let text = std::str::from_utf8(bytes).unwrap();
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// `value` with `"capture": name` added.
fn keyed(mut value: J, name: &str) -> J {
    value
        .as_object_mut()
        .unwrap()
        .insert("capture".into(), name.into());
    value
}

#[test]
fn summary_and_tree_are_each_capture_under_its_head_line() {
    let files: Vec<String> = CAPTURES.iter().map(|c| shipped(c)).collect();
    for format in ["summary", "tree"] {
        let mut expected = Vec::new();
        for (i, f) in files.iter().enumerate() {
            if i > 0 {
                expected.push(b'\n');
            }
            expected.extend(format!("==> {f} <==\n").bytes());
            expected.extend(ok(&["dissect", "-f", format, f]));
        }
        let mut args = vec!["dissect", "-f", format];
        args.extend(files.iter().map(String::as_str));
        assert!(ok(&args) == expected, "{format}");
    }
}

#[test]
fn json_records_carry_their_capture_as_files_and_from_a_directory() {
    let (dir, found) = captures_dir("json");
    let files: Vec<String> = CAPTURES.iter().map(|c| shipped(c)).collect();
    for (args, names) in [
        (files.clone(), files.clone()),
        (vec![dir.to_str().unwrap().to_string()], found),
    ] {
        let expected: Vec<J> = files
            .iter()
            .zip(&names)
            .flat_map(|(f, name)| {
                let single = json_lines(&ok(&["dissect", "-f", "json", f]));
                single.into_iter().map(|v| keyed(v, name))
            })
            .collect();
        let mut all = vec!["dissect", "-f", "json"];
        all.extend(args.iter().map(String::as_str));
        let got = ok(&all);
        // The key comes first, the rest as one capture writes it.
        assert!(got.starts_with(format!("{{\"capture\":\"{}\",\"frame\":1,", names[0]).as_bytes()));
        assert_eq!(json_lines(&got), expected);
        assert!(expected.len() > 700);
    }
}

#[test]
fn the_order_is_the_same_on_one_thread_and_four() {
    let (dir, _) = captures_dir("threads");
    let dir = dir.to_str().unwrap();
    for format in ["json", "summary"] {
        let one = ok(&["dissect", "--threads", "1", "-f", format, dir]);
        let four = ok(&["dissect", "--threads", "4", "-f", format, dir]);
        assert!(one == four, "{format}");
    }
    let one = ok(&["events", "--threads", "1", "-f", "json", dir]);
    assert!(one == ok(&["events", "--threads", "4", "-f", "json", dir]));
    let one = ok(&["stats", "--threads", "1", "-f", "json", dir]);
    assert!(one == ok(&["stats", "--threads", "4", "-f", "json", dir]));
}

#[test]
fn fields_have_a_capture_column_and_one_header() {
    let files: Vec<String> = CAPTURES.iter().map(|c| shipped(c)).collect();
    let columns = ["-e", "frame.number", "-e", "msg.type"];
    let mut expected = String::from("capture\tframe.number\tmsg.type\n");
    for f in &files {
        let mut one = vec!["dissect", "-f", "fields"];
        one.extend(columns);
        one.push(f);
        for line in String::from_utf8(ok(&one)).unwrap().lines() {
            expected.push_str(&format!("{f}\t{line}\n"));
        }
    }
    let mut args = vec!["dissect", "-f", "fields", "-E", "header=y", "-e", "capture"];
    args.extend(columns);
    args.extend(files.iter().map(String::as_str));
    assert_eq!(String::from_utf8(ok(&args)).unwrap(), expected);
    // One capture: its name too.
    let one = ok(&["dissect", "-f", "fields", "-e", "capture", &files[2]]);
    assert!(
        String::from_utf8(one)
            .unwrap()
            .lines()
            .all(|l| l == files[2])
    );
}

#[test]
fn one_capture_named_alone_gives_the_output_of_before() {
    // No `capture` key: the golden tests hold every capture's output.
    let f = shipped(CAPTURES[2]);
    let out = ok(&["dissect", "-f", "json", &f]);
    assert!(out.starts_with(b"{\"frame\":1,"));
    // A directory holding one capture is several captures: its output names it.
    let dir = dir_of("one", &[(&f, "only.pcapng")]);
    let out = ok(&["dissect", "-f", "json", dir.to_str().unwrap()]);
    assert!(out.starts_with(b"{\"capture\":"));
}

/// Adds up a number at `path` of each object.
fn sum(values: &[J], path: &[&str]) -> u64 {
    values
        .iter()
        .map(|v| path.iter().fold(v, |v, k| &v[*k]).as_u64().unwrap_or(0))
        .sum()
}

#[test]
fn stats_totals_are_the_sums_of_each_capture() {
    let (dir, found) = captures_dir("stats");
    let files: Vec<String> = CAPTURES.iter().map(|c| shipped(c)).collect();
    let single: Vec<J> = files
        .iter()
        .map(|f| serde_json::from_slice(&ok(&["stats", "-f", "json", f])).unwrap())
        .collect();
    let all: J =
        serde_json::from_slice(&ok(&["stats", "-f", "json", dir.to_str().unwrap()])).unwrap();
    for key in [
        "frames",
        "captured_bytes",
        "udp_datagrams",
        "records",
        "frames_selected",
    ] {
        assert_eq!(all[key].as_u64().unwrap(), sum(&single, &[key]), "{key}");
    }
    for (proto, _) in all["protocols"].as_object().unwrap() {
        for key in ["datagrams", "messages", "bytes", "malformed"] {
            let path = ["protocols", proto.as_str(), key];
            assert_eq!(sum(std::slice::from_ref(&all), &path), sum(&single, &path));
        }
    }
    for (proto, types) in all["message_types"].as_object().unwrap() {
        for (t, counts) in types.as_object().unwrap() {
            let path = ["message_types", proto.as_str(), t.as_str(), "messages"];
            assert_eq!(counts["messages"].as_u64().unwrap(), sum(&single, &path));
        }
    }
    assert_eq!(
        sum(std::slice::from_ref(&all), &["flow_table", "created"]),
        sum(&single, &["flow_table", "created"])
    );
    // Each capture's element is its own report but its flows; the flows are listed together,
    // each with its capture.
    let captures = all["captures"].as_array().unwrap();
    let mut flows = Vec::new();
    for ((part, one), name) in captures.iter().zip(&single).zip(&found) {
        let mut own = one.clone();
        let own = own.as_object_mut().unwrap();
        for f in own.remove("flows").unwrap().as_array().unwrap() {
            flows.push(keyed(f.clone(), name));
        }
        own.insert("capture".into(), name.as_str().into());
        own.insert("error".into(), J::Null);
        assert_eq!(part.as_object().unwrap(), own);
    }
    assert_eq!(all["flows"].as_array().unwrap(), &flows);
}

#[test]
fn stats_text_names_each_capture_and_each_flow_by_capture() {
    let files: Vec<String> = CAPTURES[1..].iter().map(|c| shipped(c)).collect();
    let mut args = vec!["stats"];
    args.extend(files.iter().map(String::as_str));
    let text = String::from_utf8(ok(&args)).unwrap();
    let expected_head = format!(
        "Captures:\n  {}: 25 frames, 4974 bytes captured, 1 flows, 25 messages\n  {}: 9 frames, 1663 bytes captured, 5 flows, 6 messages\n\nAll 2 captures: 34 frames, 6637 bytes captured,",
        files[0], files[1]
    );
    assert!(text.starts_with(&expected_head), "{text}");
    assert!(text.contains(&format!("\n  {}#0 ", files[0])), "{text}");
    assert!(text.contains(&format!("\n  {}#4 ", files[1])), "{text}");
}

#[test]
fn intervals_are_per_capture() {
    let files: Vec<String> = CAPTURES.iter().map(|c| shipped(c)).collect();
    let mut text = Vec::new();
    let mut json = Vec::new();
    for (i, f) in files.iter().enumerate() {
        if i > 0 {
            text.push(b'\n');
        }
        text.extend(format!("==> {f} <==\n").bytes());
        text.extend(ok(&["stats", "--interval", "5s", f]));
        let one: J =
            serde_json::from_slice(&ok(&["stats", "--interval", "5s", "-f", "json", f])).unwrap();
        json.push(keyed(one, f));
    }
    let mut args = vec!["stats", "--interval", "5s"];
    args.extend(files.iter().map(String::as_str));
    assert!(ok(&args) == text);
    args.extend(["-f", "json"]);
    assert_eq!(json_lines(&ok(&args)), json);
}

#[test]
fn events_name_their_capture_in_every_format() {
    let files: Vec<String> = CAPTURES.iter().map(|c| shipped(c)).collect();
    let mut text = String::new();
    let mut csv = String::from("capture,");
    let mut json = Vec::new();
    for f in &files {
        let one = String::from_utf8(ok(&["events", f])).unwrap();
        text.extend(one.lines().map(|l| format!("{f}:{l}\n")));
        let one = String::from_utf8(ok(&["events", "-f", "csv", f])).unwrap();
        let mut lines = one.lines();
        if csv == "capture," {
            csv.push_str(lines.next().unwrap());
            csv.push('\n');
        } else {
            lines.next();
        }
        csv.extend(lines.map(|l| format!("{f},{l}\n")));
        let one = json_lines(&ok(&["events", "-f", "json", f]));
        json.extend(one.into_iter().map(|v| keyed(v, f)));
    }
    assert!(json.len() > 10);
    let args = |format: &str| {
        let mut a = vec!["events".to_string(), "-f".into(), format.into()];
        a.extend(files.iter().cloned());
        a
    };
    let run_as = |format: &str| {
        let a = args(format);
        ok(&a.iter().map(String::as_str).collect::<Vec<_>>())
    };
    assert_eq!(String::from_utf8(run_as("text")).unwrap(), text);
    assert_eq!(String::from_utf8(run_as("csv")).unwrap(), csv);
    assert_eq!(json_lines(&run_as("json")), json);
}

#[test]
fn an_unreadable_capture_is_reported_and_the_others_still_written() {
    let dir = dir_of(
        "unreadable",
        &[
            ("captures/udp-mixed.pcapng", "a.pcapng"),
            ("captures/quake3-openarena-legacy.log", "b.pcap"),
            ("captures/srb2-2.2.13-session.pcap", "c.pcap"),
        ],
    );
    let d = dir.to_str().unwrap();
    let missing = format!("{d}/missing.pcap");
    for threads in ["1", "4"] {
        let (code, out, err) = run(&["dissect", "--threads", threads, "-f", "json", d, &missing]);
        assert_eq!(code, 1);
        let records = json_lines(&out);
        let of = |name: &str| records.iter().filter(|r| r["capture"] == name).count();
        assert_eq!(
            (of(&format!("{d}/a.pcapng")), of(&format!("{d}/c.pcap"))),
            (6, 25)
        );
        assert_eq!(records.len(), 31);
        assert_eq!(
            err,
            format!(
                "gamedissect: {d}/b.pcap: at byte 0: not a pcap, pcapng or Quake 3 demo file (magic 74 74 79 20)\ngamedissect: {missing}: cannot open: No such file or directory (os error 2)\n"
            )
        );
    }
    // `stats` reports the others, and says which capture ended on an error.
    let (code, out, _) = run(&["stats", "-f", "json", d]);
    assert_eq!(code, 1);
    let all: J = serde_json::from_slice(&out).unwrap();
    assert_eq!(all["frames"], 34);
    let errors: Vec<&J> = all["captures"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| &c["error"])
        .collect();
    assert!(errors[0].is_null() && errors[2].is_null());
    assert!(errors[1].as_str().unwrap().contains("not a pcap"));
}

#[test]
fn a_walk_is_sorted_by_path_bytes_and_follows_no_directory_link() {
    let dir = dir_of(
        "walk",
        &[
            ("captures/udp-mixed.pcapng", "b.pcap"),
            ("captures/udp-mixed.pcapng", "a.pcap"),
            ("captures/udp-mixed.pcapng", "a/x.CAP"),
            ("captures/udp-mixed.pcapng", "B/y.dmp"),
            ("captures/udp-mixed.pcapng", "notes.txt"),
        ],
    );
    // A link back up would never end if it were followed; a link to a capture file is taken.
    std::os::unix::fs::symlink(&dir, dir.join("a/up")).unwrap();
    std::os::unix::fs::symlink(dir.join("a.pcap"), dir.join("link.pcap")).unwrap();
    let d = dir.to_str().unwrap();
    let out = ok(&[
        "dissect",
        "-f",
        "fields",
        "-e",
        "capture",
        "-e",
        "frame.number",
        d,
    ]);
    let mut names: Vec<String> = String::from_utf8(out)
        .unwrap()
        .lines()
        .map(|l| l.split('\t').next().unwrap()[d.len()..].to_string())
        .collect();
    names.dedup();
    assert_eq!(
        names,
        ["/B/y.dmp", "/a.pcap", "/a/x.CAP", "/b.pcap", "/link.pcap"]
    );
}

#[test]
fn count_and_two_passes_work_over_several_captures() {
    let files: Vec<String> = CAPTURES.iter().map(|c| shipped(c)).collect();
    // `-c` counts every capture's records, in order.
    let first = ok(&["dissect", "-f", "json", &files[0]])
        .iter()
        .filter(|&&b| b == b'\n')
        .count();
    let n = (first + 3).to_string();
    let mut args = vec!["dissect", "-f", "json", "-c", &n];
    args.extend(files.iter().map(String::as_str));
    let records = json_lines(&ok(&args));
    assert_eq!(records.len(), first + 3);
    assert_eq!(records[first]["capture"], files[1].as_str());
    assert_eq!(records[first + 2]["frame"], 3);
    // `-2` is a first pass over each capture alone.
    let mut expected = Vec::new();
    for f in &files {
        let one = json_lines(&ok(&["dissect", "-2", "-f", "json", f]));
        expected.extend(one.into_iter().map(|v| keyed(v, f)));
    }
    let mut args = vec!["dissect", "-2", "-f", "json"];
    args.extend(files.iter().map(String::as_str));
    assert_eq!(json_lines(&ok(&args)), expected);
}

#[test]
fn commands_of_one_capture_refuse_several_and_stdin_goes_alone() {
    let f = shipped(CAPTURES[2]);
    for args in [
        vec!["tracks", &f, &f],
        vec!["report", "-w", "-", &f, &f],
        vec!["diff", &f, &f, &f],
        vec!["dissect", "-", &f],
    ] {
        let (code, out, err) = run(&args);
        assert_eq!((code, out.len()), (2, 0), "{args:?}");
        assert!(err.starts_with("gamedissect: "), "{err}");
    }
    // An empty directory holds no capture: said, exit 1.
    let empty = dir_of("empty", &[]);
    std::fs::create_dir_all(&empty).unwrap();
    let (code, out, err) = run(&["stats", empty.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(err.contains("no capture files"), "{err}");
    assert!(
        String::from_utf8(out)
            .unwrap()
            .starts_with("All 0 captures: 0 frames")
    );
}

/// Rows per `capture` over every Parquet file under `dir`.
fn parquet_rows_by_capture(dir: &Path) -> std::collections::BTreeMap<String, usize> {
    use ::parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
    use arrow_array::cast::AsArray;
    let mut rows = std::collections::BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
                continue;
            }
            let file = std::fs::File::open(&p).unwrap();
            let reader = ParquetRecordBatchReaderBuilder::try_new(file)
                .unwrap()
                .build()
                .unwrap();
            for batch in reader {
                let batch = batch.unwrap();
                let names = batch.column_by_name("capture").unwrap().as_string::<i32>();
                for name in names.iter().flatten() {
                    *rows.entry(name.to_string()).or_insert(0) += 1;
                }
            }
        }
    }
    rows
}

/// `--format parquet` over several captures writes one set of files, each row naming its
/// capture, as many rows per capture as its JSON records; an unreadable capture is said and
/// the others written; `-c` counts over the captures in order.
#[test]
fn parquet_over_several_captures_names_each_row_s_capture() {
    let (dir, found) = captures_dir("parquet");
    let d = dir.to_str().unwrap();
    let out = dir.join("out");
    let missing = format!("{d}/missing.pcap");
    let (code, stdout, err) = run(&[
        "dissect",
        "--format",
        "parquet",
        "-w",
        out.to_str().unwrap(),
        d,
        &missing,
    ]);
    assert_eq!((code, stdout.len()), (1, 0));
    assert_eq!(
        err,
        format!("gamedissect: {missing}: cannot open: No such file or directory (os error 2)\n")
    );
    let want: std::collections::BTreeMap<String, usize> = found
        .iter()
        .map(|f| {
            (
                f.clone(),
                json_lines(&ok(&["dissect", "-f", "json", f])).len(),
            )
        })
        .collect();
    assert_eq!(want.values().sum::<usize>(), 1676 + 25 + 6);
    assert_eq!(parquet_rows_by_capture(&out), want);
    let counted = dir.join("counted");
    ok(&[
        "dissect",
        "--format",
        "parquet",
        "-c",
        "1680",
        "-w",
        counted.to_str().unwrap(),
        d,
    ]);
    let rows = parquet_rows_by_capture(&counted);
    assert_eq!(rows.values().copied().collect::<Vec<_>>(), [1676, 4]);
    // Once -c is reached no later capture is opened: one that cannot be is no error.
    let first = dir.join("first");
    let (code, _, err) = run(&[
        "dissect",
        "--format",
        "parquet",
        "-c",
        "5",
        "-w",
        first.to_str().unwrap(),
        &found[0],
        &missing,
    ]);
    assert_eq!((code, err.as_str()), (0, ""));
    assert_eq!(parquet_rows_by_capture(&first).values().sum::<usize>(), 5);
    // Events too: one set of files, each row naming its capture.
    let events = dir.join("events");
    ok(&[
        "events",
        "--format",
        "parquet",
        "-w",
        events.to_str().unwrap(),
        d,
    ]);
    let want: std::collections::BTreeMap<String, usize> = found
        .iter()
        .map(|f| {
            (
                f.clone(),
                json_lines(&ok(&["events", "-f", "json", f])).len(),
            )
        })
        .filter(|(_, n)| *n > 0)
        .collect();
    assert_eq!(want.values().sum::<usize>(), 16 + 6);
    assert_eq!(parquet_rows_by_capture(&events), want);
    for args in [
        vec!["events", "--format", "parquet", d],
        vec!["events", "-f", "json", "-w", "x", d],
    ] {
        let (code, out, err) = run(&args);
        assert_eq!((code, out.len()), (2, 0), "{args:?}");
        assert!(err.contains("-w DIR"), "{err}");
    }
}
