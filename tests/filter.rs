//! Display filters (`-Y`) on the shipped captures: the frames they select are checked against
//! the servers' logs and against the JSON records the same question selects.

use std::fs;
use std::path::Path;
use std::process::Command;
use std::sync::Arc;

use gamedissect::engine::Config;
use gamedissect::engine::Engine;
use gamedissect::filter::{Filter, field_mask};
use gamedissect::run::{OutputFormat, render, run_capture, stats_of};
use gamedissect::tree::Field;
use testkit::dissect::{config_for, shipped_captures};

const BIN: &str = env!("CARGO_BIN_EXE_gamedissect");
const Q3: &str = "captures/quake3-openarena-legacy.pcap";

fn with_filter(cap: &Path, text: &str) -> Config {
    let filter = Filter::new(text, &gamedissect::protocols::all()).unwrap();
    Config {
        filter: Some(Arc::new(filter)),
        ..config_for(cap)
    }
}

/// `with_filter` with trees cut to the filter's fields, as `dissect -Y` builds them for the
/// summary.
fn with_filter_masked(cap: &Path, text: &str) -> Config {
    let config = with_filter(cap, text);
    let names = config.filter.as_ref().unwrap().field_names();
    assert!(!names.is_empty(), "{text} reads no decoded field");
    let mask = field_mask(&names, &gamedissect::protocols::all());
    Config {
        field_mask: Some(Box::leak(Box::new(mask))),
        ..config
    }
}

/// Which JSON records a filter should select.
type Pred<'a> = Box<dyn Fn(&serde_json::Value) -> bool + 'a>;

fn frames_of(summary: &str) -> Vec<u64> {
    summary
        .lines()
        .map(|l| l.split_whitespace().next().unwrap().parse().unwrap())
        .collect()
}

/// The chat lines the server logged (`say: NAME: TEXT`; the log drops colour codes and the
/// escape byte 0x19 Quake 3 puts after a name) are the chat commands the filter finds, in order.
#[test]
fn chat_commands_are_the_logged_chat_lines() {
    let cap = Path::new(Q3);
    let bytes = fs::read(cap).unwrap();
    let filter = "quake3.svc.command.name == chat";
    let (json, _) = render(&bytes, OutputFormat::Json, with_filter(cap, filter));
    let mut messages = Vec::new();
    for line in json.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        for c in v["fields"]["quake3"]["svc"]["command"]
            .as_array()
            .into_iter()
            .flatten()
        {
            if c["name"] == "chat" {
                messages.push(
                    c["message"]
                        .as_str()
                        .unwrap()
                        .replace("^7", "")
                        .replace("^2", "")
                        .replace('\u{19}', ""),
                );
            }
        }
    }
    assert_eq!(
        messages,
        [
            "GoldenPlayer: hello from GoldenPlayer over the legacy netchan",
            "console: server console says hi to GoldenPlayer",
            "GoldenPlayer: second chat line 12345 gg",
        ]
    );
    let log = fs::read_to_string("captures/quake3-openarena-legacy.log").unwrap();
    for m in &messages {
        assert!(log.contains(m.trim_start_matches("console: ")), "{m}");
    }
    let (summary, _) = render(&bytes, OutputFormat::Summary, with_filter(cap, filter));
    assert_eq!(frames_of(&summary), [738, 870, 1378]);
    let (masked, _) = render(
        &bytes,
        OutputFormat::Summary,
        with_filter_masked(cap, filter),
    );
    assert_eq!(masked, summary);
}

/// On every capture, `msg.type == T` and `expert.severity == error` select exactly the records
/// whose JSON `type` is T or that carry an error note, in every format; `stats -Y` counts them.
#[test]
fn filters_agree_with_the_json_records_on_every_capture() {
    for cap in shipped_captures() {
        let bytes = fs::read(&cap).unwrap();
        let (json, _) = render(&bytes, OutputFormat::Json, config_for(&cap));
        let records: Vec<serde_json::Value> = json
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let Some(ty) = records.last().and_then(|r| r["type"].as_str()) else {
            continue;
        };
        let questions: [(String, Pred); 2] = [
            (format!("msg.type == {ty:?}"), Box::new(|r| r["type"] == ty)),
            (
                "expert.severity == error".to_string(),
                Box::new(|r| {
                    r["notes"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .any(|n| n["severity"] == "error")
                }),
            ),
        ];
        for (filter, pred) in &questions {
            let want: Vec<&serde_json::Value> = records.iter().filter(|r| pred(r)).collect();
            let (got, _) = render(&bytes, OutputFormat::Json, with_filter(&cap, filter));
            let got: Vec<serde_json::Value> = got
                .lines()
                .map(|l| serde_json::from_str(l).unwrap())
                .collect();
            assert_eq!(
                got.iter().collect::<Vec<_>>(),
                want,
                "{} -Y {filter}",
                cap.display()
            );
            let (summary, _) = render(&bytes, OutputFormat::Summary, with_filter(&cap, filter));
            let want_frames: Vec<u64> = want.iter().map(|r| r["frame"].as_u64().unwrap()).collect();
            assert_eq!(
                frames_of(&summary),
                want_frames,
                "{} -Y {filter}",
                cap.display()
            );
            let (stats, _) = stats_of(&bytes, with_filter(&cap, filter));
            let counted: u64 = stats.protocols.values().map(|p| p.messages).sum();
            assert_eq!(
                counted,
                want.len() as u64,
                "{} stats -Y {filter}",
                cap.display()
            );
        }
    }
}

/// Decoding state sees every frame: the late frames a filter selects read exactly as they do
/// in the unfiltered decode (Quake 3 snapshots are deltas of earlier ones).
#[test]
fn state_still_sees_every_frame() {
    let cap = Path::new(Q3);
    let bytes = fs::read(cap).unwrap();
    let (all, _) = render(&bytes, OutputFormat::Summary, config_for(cap));
    let (late, _) = render(
        &bytes,
        OutputFormat::Summary,
        with_filter(cap, "frame.number >= 1300"),
    );
    let want: Vec<&str> = all
        .lines()
        .filter(|l| l.split_whitespace().next().unwrap().parse::<u64>().unwrap() >= 1300)
        .collect();
    assert!(want.len() > 50);
    assert_eq!(late.lines().collect::<Vec<_>>(), want);
}

/// A FlightGear property id is an enum named by its path: the filter takes the path as the
/// id's value. Frame 10 of the hand-made capture is the only one carrying id 13003.
#[test]
fn flightgear_property_ids_match_by_path() {
    let cap = Path::new("captures/flightgear-handmade.pcap");
    let bytes = fs::read(cap).unwrap();
    let select =
        |text: &str| frames_of(&render(&bytes, OutputFormat::Summary, with_filter(cap, text)).0);
    let by_number = select("flightgear.properties.property.id == 13003");
    assert_eq!(by_number, [10]);
    let masked = render(
        &bytes,
        OutputFormat::Summary,
        with_filter_masked(cap, "flightgear.properties.property.id == 13003"),
    );
    assert_eq!(frames_of(&masked.0), by_number);
    assert_eq!(
        select("flightgear.properties.property.id == \"instrumentation/transponder/mach-number\""),
        by_number
    );
}

fn run(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(BIN).args(args).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

#[test]
fn a_misspelt_field_is_a_usage_error_with_suggestions() {
    let (code, out, err) = run(&["dissect", "-Y", "quake3.svc.comand.name == chat", Q3]);
    assert_eq!((code, out.as_str()), (2, ""));
    assert!(
        err.contains("unknown field \"quake3.svc.comand.name\""),
        "{err}"
    );
    assert!(
        err.contains("did you mean \"quake3.svc.command.name\""),
        "{err}"
    );
    let (code, _, err) = run(&["stats", "--filter", "frame.number == x", Q3]);
    assert_eq!(code, 2);
    assert!(err.contains("frame.number is a number"), "{err}");
}

#[test]
fn threads_do_not_change_filtered_output() {
    for format in ["summary", "json", "tree"] {
        let args = |t: &'static str| {
            [
                "dissect",
                "-f",
                format,
                "--threads",
                t,
                "-Y",
                "quake3.svc.snapshot.server_time > 19000 or expert.severity",
                Q3,
            ]
        };
        let (c1, one, _) = run(&args("1"));
        let (c3, three, _) = run(&args("3"));
        assert_eq!((c1, c3), (0, 0));
        assert!(!one.is_empty());
        assert_eq!(one, three, "{format}");
    }
}

// Field extraction: `--format fields -e NAME … -E …`.

#[test]
fn fields_tsv_with_header_lists_the_chat_lines() {
    let (code, out, err) = run(&[
        "dissect",
        "-f",
        "fields",
        "-e",
        "frame.number",
        "-e",
        "msg.type",
        "-e",
        "quake3.svc.command.name",
        "-e",
        "quake3.svc.command.message",
        "-E",
        "header=y",
        "-Y",
        "quake3.svc.command.name == chat",
        Q3,
    ]);
    assert_eq!((code, err.as_str()), (0, ""));
    assert_eq!(
        out,
        "frame.number\tmsg.type\tquake3.svc.command.name\tquake3.svc.command.message\n\
         738\tsnapshot\tchat\tGoldenPlayer^7\\x19: ^2hello from GoldenPlayer over the legacy netchan\n\
         870\tsnapshot\tchat\tconsole: server console says hi to GoldenPlayer\n\
         1378\tsnapshot\tchat\tGoldenPlayer^7\\x19: ^2second chat line 12345 gg\n"
    );
}

/// Reads RFC 4180 CSV (quoted values, doubled quotes, newlines inside quotes).
fn parse_csv(text: &str) -> Vec<Vec<String>> {
    let (mut rows, mut row, mut cell) = (Vec::new(), Vec::new(), String::new());
    let (mut quoted, mut chars) = (false, text.chars().peekable());
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                chars.next();
                cell.push('"');
            }
            ('"', q) => quoted = !q,
            (',', false) => row.push(std::mem::take(&mut cell)),
            ('\n', false) => {
                row.push(std::mem::take(&mut cell));
                rows.push(std::mem::take(&mut row));
            }
            (c, _) => cell.push(c),
        }
    }
    rows
}

/// CSV with `quote=d` reads back to the decoded values: every command text of the capture, in
/// frame order, with its quotes and newlines, as the tree has them.
/// A value as quoted `-f fields` writes it: newlines and tabs as they are, the other controls
/// escaped (docs/output.md "Escaping"; Quake 3 chat's 0x19 becomes `\x19`).
fn csv_escaped(v: &str) -> String {
    let mut out = String::new();
    for c in v.chars() {
        match c {
            '\n' | '\t' => out.push(c),
            c => gamedissect::text::push_escaped_char(&mut out, c),
        }
    }
    out
}

#[test]
fn fields_csv_reads_back_to_the_decoded_values() {
    let (code, out, _) = run(&[
        "dissect",
        "-f",
        "fields",
        "-e",
        "frame.number",
        "-e",
        "quake3.svc.command.text",
        "-E",
        "separator=,",
        "-E",
        "quote=d",
        "-E",
        "header=y",
        "-E",
        "aggregator=|",
        "-Y",
        "quake3.svc.command",
        Q3,
    ]);
    assert_eq!(code, 0);
    let rows = parse_csv(&out);
    assert_eq!(rows[0], ["frame.number", "quake3.svc.command.text"]);
    let mut got: Vec<(u64, String)> = Vec::new();
    for r in &rows[1..] {
        assert_eq!(r.len(), 2, "{r:?}");
        for t in r[1].split('|') {
            got.push((r[0].parse().unwrap(), t.to_string()));
        }
    }
    let want: Vec<(u64, String)> = testkit::dissect::field_values(Q3, "quake3.svc.command.text")
        .into_iter()
        .map(|(f, v)| (f, serde_json::from_str::<String>(&v).unwrap_or(v)))
        .map(|(f, v)| (f, csv_escaped(&v)))
        .collect();
    assert!(got.len() > 100);
    assert!(got.iter().any(|(_, t)| t.contains('"') && t.contains('\n')));
    assert_eq!(got, want);
}

#[test]
fn fields_occurrence_and_threads() {
    let args = |occ: &'static str, threads: &'static str| {
        [
            "dissect",
            "-f",
            "fields",
            "-e",
            "frame.number",
            "-e",
            "quake3.svc.command.sequence",
            "-E",
            occ,
            "-E",
            "header=y",
            "--threads",
            threads,
            "-Y",
            "quake3.svc.command",
            Q3,
        ]
    };
    let (_, all, _) = run(&args("occurrence=a", "1"));
    let (_, first, _) = run(&args("occurrence=f", "1"));
    let (_, last, _) = run(&args("occurrence=l", "1"));
    let (_, second, _) = run(&args("occurrence=2", "1"));
    for (((a, f), l), s) in all
        .lines()
        .zip(first.lines())
        .zip(last.lines())
        .zip(second.lines())
        .skip(1)
    {
        let (frame, seqs) = a.split_once('\t').unwrap();
        let seqs: Vec<&str> = seqs.split(',').collect();
        assert_eq!(f, format!("{frame}\t{}", seqs[0]));
        assert_eq!(l, format!("{frame}\t{}", seqs[seqs.len() - 1]));
        assert_eq!(
            s,
            // Occurrence applies to every column, as in tshark: a frame has one number.
            format!("\t{}", seqs.get(1).copied().unwrap_or(""))
        );
    }
    assert!(
        all.lines().any(|l| l.contains(',')),
        "some snapshot carries several commands"
    );
    let (_, three, _) = run(&args("occurrence=a", "3"));
    assert_eq!(all, three);
    assert_eq!(
        all.lines()
            .filter(|l| l.starts_with("frame.number"))
            .count(),
        1
    );
}

#[test]
fn fields_usage_errors() {
    for (args, want) in [
        (&["dissect", "-f", "fields", Q3][..], "at least one -e"),
        (
            &["dissect", "-e", "frame.number", Q3][..],
            "-e takes --format fields",
        ),
        (
            &["dissect", "-f", "fields", "-e", "quake3.svc.comand", Q3][..],
            "did you mean",
        ),
        (
            &[
                "dissect",
                "-f",
                "fields",
                "-e",
                "frame.number",
                "-E",
                "quote=x",
                Q3,
            ][..],
            "quote takes d, s or n",
        ),
        (
            &[
                "dissect",
                "-f",
                "fields",
                "-e",
                "frame.number",
                "-E",
                "bom=y",
                Q3,
            ][..],
            "unknown option",
        ),
    ] {
        let (code, out, err) = run(args);
        assert_eq!((code, out.as_str()), (2, ""), "{args:?}");
        assert!(err.contains(want), "{args:?}: {err}");
    }
}

// Frame selection: `--frames` lists and `-c`.

#[test]
fn frame_lists_and_count() {
    let (code, out, _) = run(&["dissect", "--frames", "-3", "--frames", "10,20-21", Q3]);
    assert_eq!(code, 0);
    assert_eq!(frames_of(&out), [1, 2, 3, 10, 20, 21]);
    // -c counts printed records, after the filter; the count stops the run early.
    let (code, out, _) = run(&["dissect", "-c", "2", "-Y", "quake3.svc.command", Q3]);
    assert_eq!(code, 0);
    assert_eq!(frames_of(&out), [37, 738]);
    let (code, out, _) = run(&["dissect", "-c", "3", "-f", "json", "--threads", "3", Q3]);
    assert_eq!(code, 0);
    assert_eq!(out.lines().count(), 3);
    let (code, _, err) = run(&["dissect", "--frames", "5,", Q3]);
    assert_eq!(code, 2, "{err}");
}

/// Each field's occurrences in a record, depth first: name, value and meaning.
type Occurrences = Vec<(&'static str, String)>;

fn occurrences(fields: &[Field], out: &mut Occurrences) {
    for f in fields {
        out.push((f.def.name, format!("{:?} {:?}", f.value, f.meaning)));
        occurrences(&f.children, out);
    }
}

/// Per record: its type, summary and notes as text, and its fields' occurrences.
fn decode_all(bytes: &[u8], config: Config) -> Vec<(String, Occurrences)> {
    let mut engine = Engine::new(gamedissect::protocols::all(), config);
    let mut records = Vec::new();
    run_capture(bytes, &mut engine, None, &mut |_| {}, &mut |_, r| {
        let mut occ = Vec::new();
        occurrences(&r.fields, &mut occ);
        let head = format!("{} {} {:?}", r.msg_type, r.summary, r.notes);
        records.push((head, occ));
        Ok(())
    });
    records
}

/// Trees cut to one field (what `-Y` on that field or `-e` with it builds for summary or fields
/// output) hold, on every shipped capture and for every field the capture has, the same
/// occurrences of that field, with the same values and meanings, in the same order, as the full
/// trees; the records' types, summaries and notes do not change. So no filter or column can tell
/// the cut trees from the full ones.
#[test]
fn trees_cut_to_a_field_hold_all_of_it_on_every_capture() {
    let registry = gamedissect::protocols::all();
    for cap in shipped_captures() {
        let bytes = fs::read(&cap).unwrap();
        let full = decode_all(&bytes, config_for(&cap));
        let mut names: Vec<&str> = full
            .iter()
            .flat_map(|(_, o)| o.iter().map(|x| x.0))
            .collect();
        names.sort_unstable();
        names.dedup();
        // One decode per field name, each independent: spread over the cores.
        testkit::par::each_parallel(&names, |&name| {
            let mask = Box::leak(Box::new(field_mask(&[name], &registry)));
            let cut = decode_all(
                &bytes,
                Config {
                    field_mask: Some(mask),
                    ..config_for(&cap)
                },
            );
            assert_eq!(cut.len(), full.len(), "{} {name}", cap.display());
            for (i, (c, f)) in cut.iter().zip(&full).enumerate() {
                assert_eq!(c.0, f.0, "{} record {i} cut to {name}", cap.display());
                let only = |o: &Occurrences| -> Occurrences {
                    o.iter().filter(|x| x.0 == name).cloned().collect()
                };
                assert_eq!(
                    only(&c.1),
                    only(&f.1),
                    "{} record {i}: {name}",
                    cap.display()
                );
            }
        });
    }
}

/// The benchmark's question keeps a few nodes per message: the root, the server message group,
/// the commands and their names.
#[test]
fn a_chat_filter_keeps_only_the_command_names_and_their_parents() {
    let cap = Path::new(Q3);
    let bytes = fs::read(cap).unwrap();
    let config = with_filter_masked(cap, "quake3.svc.command.name == chat");
    let full = decode_all(&bytes, config_for(cap));
    let cut = decode_all(
        &bytes,
        Config {
            filter: None,
            ..config
        },
    );
    let mut names: Vec<&str> = cut
        .iter()
        .flat_map(|(_, o)| o.iter().map(|x| x.0))
        .collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(
        names,
        [
            "quake3",
            "quake3.svc",
            "quake3.svc.command",
            "quake3.svc.command.name"
        ]
    );
    let count = |r: &[(String, Occurrences)]| r.iter().map(|x| x.1.len()).sum::<usize>();
    assert!(
        count(&cut) * 10 < count(&full),
        "{} of {}",
        count(&cut),
        count(&full)
    );
}
