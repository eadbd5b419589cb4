//! `annotate`: the pcapng it writes read back with our own capture reader. Every frame comes
//! back with the same bytes, lengths, link type, interface and timestamp (to the unit the file
//! holds it in), and its comments are the lines `dissect` prints for it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use clap::Parser;
use gamedissect::capture::{CaptureReader, Event, InterfaceInfo, Timestamp};
use gamedissect::cli::{Cli, config_from};
use gamedissect::engine::Config;
use gamedissect::run::{OutputFormat, render};
use testkit::dissect::{GOLDEN_DIR, config_for, shipped_captures};
use testkit::synth::{PcapNgWriter, PcapWriter, eth_udp, linktype};

const BIN: &str = env!("CARGO_BIN_EXE_gamedissect");

/// One frame as the reader gives it, with what a copy must keep.
#[derive(Debug, PartialEq)]
struct Frame {
    data: Vec<u8>,
    orig_len: u32,
    time: Timestamp,
    linktype: u32,
    interface: Option<InterfaceInfo>,
    units: u64,
    comments: Vec<String>,
}

/// The frames of a capture, each with its frame number as `dissect` counts them (a record
/// skipped as unreadable takes a number too).
fn read_frames(bytes: &[u8]) -> Vec<(u64, Frame)> {
    let mut reader = CaptureReader::new(bytes).expect("a capture");
    let mut frames = Vec::new();
    let mut number = 0;
    loop {
        let (mut frame, id) = match reader.next() {
            Ok(Some(Event::Packet(p))) => (
                Frame {
                    data: p.data.to_vec(),
                    orig_len: p.orig_len,
                    time: p.time,
                    linktype: p.linktype,
                    interface: None,
                    units: 0,
                    comments: Vec::new(),
                },
                p.interface,
            ),
            Ok(Some(Event::BadRecord(_))) => {
                number += 1;
                continue;
            }
            Ok(Some(Event::Quiet)) => unreachable!("bytes in memory are never quiet"),
            Ok(None) | Err(_) => return frames,
        };
        number += 1;
        frame.interface = reader.interface(id);
        frame.units = reader.timestamp_units();
        frame.comments = reader.comments();
        frames.push((number, frame));
    }
}

fn out_path(name: &str) -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("annotate-{name}.pcapng"))
}

/// The options a shipped capture is decoded with (`tests/golden/<stem>.args`).
fn golden_args(capture: &Path) -> Vec<String> {
    let stem = capture.file_stem().unwrap().to_string_lossy();
    std::fs::read_to_string(Path::new(GOLDEN_DIR).join(format!("{stem}.args")))
        .map(|t| t.lines().map(str::trim).map(String::from).collect())
        .unwrap_or_default()
}

/// Runs `annotate ARGS -w OUT` and returns the exit code, stderr and what was written.
fn annotate(args: &[&str], name: &str) -> (i32, String, Vec<u8>) {
    let out = out_path(name);
    let _ = std::fs::remove_file(&out);
    let run = Command::new(BIN)
        .arg("annotate")
        .args(args)
        .arg("-w")
        .arg(&out)
        .output()
        .unwrap();
    (
        run.status.code().unwrap_or(-1),
        String::from_utf8(run.stderr).unwrap(),
        std::fs::read(&out).unwrap_or_default(),
    )
}

/// `dissect`'s summary lines of a capture, by frame, each without the frame number, time and
/// addresses (what the comment leaves to Wireshark's columns).
fn dissect_lines(bytes: &[u8], config: Config) -> BTreeMap<u64, Vec<String>> {
    let (text, _) = render(bytes, OutputFormat::Summary, config);
    let mut lines: BTreeMap<u64, Vec<String>> = BTreeMap::new();
    for line in text.lines() {
        let frame = line.split_whitespace().next().unwrap().parse().unwrap();
        // `FRAME TIME SRC → DST ` and the rest: addresses hold no space.
        let (_, after_src) = line.split_once(" → ").unwrap();
        let (_, tail) = after_src.split_once(' ').unwrap();
        lines.entry(frame).or_default().push(tail.to_string());
    }
    lines
}

/// Whether `comment` is `dissect`'s `line`: the same, or, where the line's marker names the
/// worst of several notes (`[warning: … (+N more)]`), the same summary with all N+1 notes,
/// the marker's among them.
fn comment_is_line(comment: &str, line: &str) -> bool {
    if comment == line {
        return true;
    }
    let Some(rest) = line.strip_suffix(" more)]") else {
        return false;
    };
    let Some((marker, more)) = rest.rsplit_once(" (+") else {
        return false;
    };
    let at = ["error", "warning", "note"]
        .iter()
        .filter_map(|s| marker.rfind(&format!(" [{s}: ")))
        .max()
        .unwrap();
    let (summary, worst) = (&marker[..at], &marker[at + 1..]);
    let notes = &comment[summary.len()..];
    let count = ["error", "warning", "note"]
        .iter()
        .map(|s| notes.matches(&format!(" [{s}: ")).count())
        .sum::<usize>();
    comment.starts_with(summary)
        && notes.contains(&format!("{worst}]"))
        && count == more.parse::<usize>().unwrap() + 1
}

#[test]
fn every_shipped_capture_comes_back_frame_for_frame_with_dissects_lines() {
    let mut compared: BTreeMap<String, usize> = BTreeMap::new();
    for capture in shipped_captures() {
        let name = capture.file_stem().unwrap().to_string_lossy().into_owned();
        let mut args = golden_args(&capture);
        args.push(capture.to_string_lossy().into_owned());
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let (code, stderr, written) = annotate(&args, &name);
        assert_eq!((code, stderr.as_str()), (0, ""), "{name}");
        let input = std::fs::read(&capture).unwrap();
        let before = read_frames(&input);
        let after = read_frames(&written);
        assert_eq!(before.len(), after.len(), "{name}: frames");
        let mut lines = dissect_lines(&input, config_for(&capture));
        for ((number, old), (_, mut new)) in before.iter().zip(after) {
            let want = lines.remove(number).unwrap_or_default();
            let comments = std::mem::take(&mut new.comments);
            assert_eq!(old, &new, "{name} frame {number}");
            assert_eq!(comments.len(), want.len(), "{name} frame {number}");
            for (c, line) in comments.iter().zip(&want) {
                assert!(comment_is_line(c, line), "{name} {number}:\n{c}\n{line}");
                *compared
                    .entry(c.split(' ').next().unwrap().to_string())
                    .or_default() += 1;
            }
        }
        assert!(
            lines.is_empty(),
            "{name}: lines of no frame written: {lines:?}"
        );
    }
    // Every game's messages were compared (udp: the datagrams no decoder claims).
    let games: Vec<&str> = compared.keys().map(String::as_str).collect();
    assert_eq!(games, ["flightgear", "gamestudio", "quake3", "srb2", "udp"]);
}

/// The configuration `dissect -Y EXPR CAPTURE` decodes with.
fn filter_config(capture: &Path, expr: &str) -> Config {
    let argv = [
        "gamedissect",
        "dissect",
        "-Y",
        expr,
        capture.to_str().unwrap(),
    ];
    let Ok(Cli {
        command: gamedissect::cli::Command::Dissect(a),
    }) = Cli::try_parse_from(argv)
    else {
        panic!("dissect arguments parse");
    };
    config_from(&a.decode, &gamedissect::protocols::all()).unwrap()
}

/// Output frame numbers (as tshark counts them) whose comments contain `needle`.
fn frames_saying(frames: &[(u64, Frame)], needle: &str) -> Vec<u64> {
    (1u64..)
        .zip(frames)
        .filter(|(_, (_, f))| f.comments.iter().any(|c| c.contains(needle)))
        .map(|(n, _)| n)
        .collect()
}

const LEGACY: &str = "captures/quake3-openarena-legacy.pcap";

#[test]
fn the_legacy_captures_chat_frames_are_those_whose_comment_says_chat() {
    let (code, _, written) = annotate(&[LEGACY], "legacy");
    assert_eq!(code, 0);
    let frames = read_frames(&written);
    let input = std::fs::read(LEGACY).unwrap();
    // `frame.comment contains "chat"`: the frames whose `dissect` lines say chat, the server's
    // chat commands and the client's `say` whose text has the word.
    let lines = dissect_lines(&input, config_for(Path::new(LEGACY)));
    let said: Vec<u64> = lines
        .iter()
        .filter(|(_, l)| l.iter().any(|l| l.contains("chat")))
        .map(|(f, _)| *f)
        .collect();
    assert_eq!(said, [738, 870, 1376, 1377, 1378]);
    assert_eq!(frames_saying(&frames, "chat"), said);
    // The chat messages themselves, as our filter finds them: the comments' `chat "`.
    let chat = dissect_lines(
        &input,
        filter_config(Path::new(LEGACY), "quake3.svc.command.name == chat"),
    );
    let chat: Vec<u64> = chat.keys().copied().collect();
    assert_eq!(chat, [738, 870, 1378]);
    assert_eq!(frames_saying(&frames, " chat \""), chat);
}

#[test]
fn a_filter_chooses_the_comments_and_every_frame_is_still_written() {
    let expr = "quake3.svc.command.name == chat";
    let (code, _, filtered) = annotate(&["-Y", expr, LEGACY], "legacy-filtered");
    assert_eq!(code, 0);
    let (_, _, all) = annotate(&[LEGACY], "legacy-all");
    let (filtered, all) = (read_frames(&filtered), read_frames(&all));
    assert_eq!(filtered.len(), all.len());
    assert_eq!(
        filtered.len(),
        read_frames(&std::fs::read(LEGACY).unwrap()).len()
    );
    for (n, ((_, f), (_, a))) in (1u64..).zip(filtered.iter().zip(&all)) {
        assert_eq!((&f.data, f.time), (&a.data, a.time), "frame {n}");
        if [738, 870, 1378].contains(&n) {
            assert_eq!(f.comments, a.comments, "frame {n}");
        } else {
            assert!(f.comments.is_empty(), "frame {n}: {:?}", f.comments);
        }
    }
}

#[test]
fn pcapng_sections_interfaces_and_resolutions_are_kept_to_the_unit() {
    let (a, b) = (
        "10.0.0.1:40000".parse().unwrap(),
        "10.0.0.2:40001".parse().unwrap(),
    );
    let d = |n: u8| eth_udp(a, b, &[n; 12]);
    let mut w = PcapNgWriter::new();
    w.section(false)
        .interface(1, None)
        .interface_offset(1, 0x80 | 20, -5)
        .interface(1, Some(12))
        .packet(0, 1_700_000_000_123_456, &d(1), 60)
        // 2^-20 s units and 10^-12 s units: no nanosecond count holds them exactly.
        .packet(1, (1_700_000_000 << 20) | 12_345, &d(2), 54)
        .packet(2, 10_000_000_123_456_789_012, &d(3), 54)
        // On an interface the section does not describe: skipped, as `dissect` skips it.
        .packet(7, 1, &d(4), 54)
        .other_block()
        .section(true)
        .interface(1, Some(9))
        .packet(0, 1_700_000_001_000_000_007, &d(5), 54);
    let input = out_path("synthetic-in");
    std::fs::write(&input, &w.bytes).unwrap();
    let (code, stderr, written) = annotate(&[input.to_str().unwrap()], "synthetic");
    assert_eq!(code, 0);
    assert!(
        stderr.contains("which the section does not describe (record skipped)"),
        "{stderr}"
    );
    let (before, after) = (read_frames(&w.bytes), read_frames(&written));
    assert_eq!(before.len(), 4);
    let tsresol: Vec<u8> = after
        .iter()
        .map(|(_, f)| f.interface.unwrap().tsresol)
        .collect();
    assert_eq!(tsresol, [6, 0x80 | 20, 12, 9]);
    assert_eq!(after[1].1.interface.unwrap().tsoffset, -5);
    assert_eq!(after[2].1.units, 10_000_000_123_456_789_012);
    for ((_, old), (_, mut new)) in before.into_iter().zip(after) {
        let comments = std::mem::take(&mut new.comments);
        assert_eq!(old, new);
        assert_eq!(comments.len(), 1, "{comments:?}");
        assert!(
            comments[0].starts_with("udp UDP payload, 12 bytes"),
            "{comments:?}"
        );
    }
}

#[test]
fn pcap_in_nanoseconds_and_microseconds_keeps_its_resolution() {
    let (a, b) = (
        "10.0.0.1:40000".parse().unwrap(),
        "10.0.0.2:40001".parse().unwrap(),
    );
    for (nanos, big_endian) in [(true, false), (false, true)] {
        let mut w = PcapWriter::new(linktype::ETHERNET, big_endian, nanos, 1500);
        w.packet(1_700_000_000, 999_999, &eth_udp(a, b, b"one"), 45)
            .packet(1_700_000_001, 7, &eth_udp(a, b, b"two"), 100);
        let input = out_path("pcap-in");
        std::fs::write(&input, &w.bytes).unwrap();
        let (code, _, written) = annotate(&[input.to_str().unwrap()], "pcap");
        assert_eq!(code, 0);
        let (before, after) = (read_frames(&w.bytes), read_frames(&written));
        assert_eq!(after.len(), 2);
        let info = after[0].1.interface.unwrap();
        let want = InterfaceInfo {
            linktype: 1,
            snaplen: 1500,
            tsresol: if nanos { 9 } else { 6 },
            tsoffset: 0,
        };
        assert_eq!(info, want);
        let scale = if nanos { 1_000_000_000 } else { 1_000_000 };
        assert_eq!(after[1].1.units, 1_700_000_001 * scale + 7);
        for ((_, old), (_, mut new)) in before.into_iter().zip(after) {
            new.comments.clear();
            assert_eq!(old, new);
        }
    }
}

#[test]
fn the_output_is_refused_where_it_cannot_go() {
    // A capture written over while it is read: refused before anything is opened.
    let copy = out_path("self");
    std::fs::copy(LEGACY, &copy).unwrap();
    let copy = copy.to_str().unwrap();
    let run = Command::new(BIN)
        .args(["annotate", copy, "-w", copy])
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&run.stderr).contains("the capture being read"));
    assert_eq!(std::fs::read(copy).unwrap(), std::fs::read(LEGACY).unwrap());
    // No -w.
    let run = Command::new(BIN)
        .args(["annotate", LEGACY])
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(2));
    // Not a capture: nothing is written.
    let (code, stderr, written) = annotate(&["README.md"], "not-a-capture");
    assert_eq!((code, written.len()), (1, 0), "{stderr}");
    assert!(!out_path("not-a-capture").exists());
}

#[test]
fn standard_output_into_a_pipe_carries_the_same_bytes_as_a_file() {
    let (_, _, file) = annotate(&[LEGACY], "legacy-file");
    let run = Command::new(BIN)
        .args(["annotate", LEGACY, "-w", "-"])
        .stdout(Stdio::piped())
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(0));
    assert!(file.len() > 100_000);
    assert_eq!(run.stdout, file);
}
