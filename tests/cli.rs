//! The command line as a user meets it: exit codes, stdin, errors, pipes, options.

use std::io::{Read, Write};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};

const BIN: &str = env!("CARGO_BIN_EXE_gamedissect");

fn temp_file(bytes: &[u8]) -> std::path::PathBuf {
    static N: AtomicUsize = AtomicUsize::new(0);
    // Under the target's scratch directory, overwritten by the next run: not one file per run
    // left in the system's temporary directory.
    let p = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("cli-{}.pcap", N.fetch_add(1, Ordering::SeqCst)));
    std::fs::write(&p, bytes).unwrap();
    p
}

fn run(args: &[&str], stdin: Option<&[u8]>) -> (i32, String, String) {
    let mut cmd = Command::new(BIN);
    cmd.args(args)
        .env_remove("FORCE_COLOR")
        .env_remove("NO_COLOR")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    let mut input = child.stdin.take().unwrap();
    if let Some(b) = stdin {
        // The program may exit (usage error) before reading its input: a closed pipe is fine.
        let _ = input.write_all(b);
    }
    drop(input);
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

fn mixed() -> Vec<u8> {
    testkit::captures::udp_mixed::build()
}

#[test]
fn summary_from_a_file_and_from_stdin_are_identical() {
    let path = temp_file(&mixed());
    let (code, from_file, err) = run(&["dissect", path.to_str().unwrap()], None);
    assert_eq!((code, err.as_str()), (0, ""));
    assert_eq!(from_file.lines().count(), 6);
    assert!(
        from_file
            .lines()
            .next()
            .unwrap()
            .ends_with("udp UDP payload, 12 bytes")
    );
    let (code, from_stdin, _) = run(&["dissect", "-"], Some(&mixed()));
    assert_eq!(code, 0);
    assert_eq!(from_file, from_stdin);
}

#[test]
fn json_lines_have_the_documented_shape() {
    let (code, out, _) = run(&["dissect", "--format", "json", "-"], Some(&mixed()));
    assert_eq!(code, 0);
    let lines: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 6);
    assert_eq!(lines[0]["protocol"], "udp");
    assert_eq!(lines[0]["frame"], 1);
    assert_eq!(lines[0]["time"], "2025-11-21T19:00:00.000000Z");
    assert_eq!(lines[0]["src"], "192.0.2.1:40000");
    assert_eq!(lines[0]["fields"]["udp"]["length"], 12);
    assert_eq!(
        lines[0]["fields"]["udp"]["payload"],
        "68656c6c6f2c20776f726c64"
    );
    assert_eq!(
        lines[2]["time"], "2025-11-21T19:00:00.002000123Z",
        "ns interface keeps 9 digits"
    );
    assert_eq!(lines[2]["dst"], "[2001:db8::2]:41001");
    assert_eq!(lines[3]["fields"]["udp"]["length"], 1200);
    assert_eq!(lines[5]["notes"][0]["severity"], "error");
    assert_eq!(lines[5]["notes"][0]["field"], "udp.length");
}

#[test]
fn a_file_cut_mid_record_prints_every_whole_packet_then_fails_with_a_located_error() {
    let full = mixed();
    let path = temp_file(&full[..full.len() - 10]);
    for threads in ["1", "2"] {
        let (code, out, err) = run(
            &["dissect", "--threads", threads, path.to_str().unwrap()],
            None,
        );
        assert_eq!(code, 1);
        assert_eq!(out.lines().count(), 6, "all whole packets are shown");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(
            err.starts_with(&format!("gamedissect: {}: at byte ", path.display())),
            "{err}"
        );
        assert!(err.contains("file cut off inside a block"), "{err}");
    }
}

#[test]
fn input_errors_exit_1_and_usage_errors_exit_2() {
    let (code, _, err) = run(&["dissect", "/nonexistent/capture.pcap"], None);
    assert_eq!(code, 1);
    assert!(
        err.starts_with("gamedissect: /nonexistent/capture.pcap: cannot open:"),
        "{err}"
    );
    let (code, _, err) = run(&["dissect", "-"], Some(b"this is not a capture file"));
    assert_eq!(code, 1);
    assert_eq!(
        err,
        "gamedissect: <stdin>: at byte 0: not a pcap, pcapng or Quake 3 demo file (magic 74 68 69 73)\n"
    );
    let (code, _, err) = run(&["dissect", "--protocol", "doom", "-"], Some(&mixed()));
    assert_eq!(code, 2);
    assert!(
        err.contains("--protocol \"doom\": unknown protocol (known: "),
        "{err}"
    );
    let (code, _, _) = run(
        &["dissect", "--decode-as", "abc=quake3", "-"],
        Some(&mixed()),
    );
    assert_eq!(code, 2);
    let (code, _, _) = run(&["dissect", "--frames", "5-2", "-"], Some(&mixed()));
    assert_eq!(code, 2);
    let (code, _, _) = run(&["dissect", "--no-such-flag", "-"], None);
    assert_eq!(code, 2);
    let (code, _, _) = run(&["bogus"], None);
    assert_eq!(code, 2);
}

#[test]
fn decode_as_assigns_the_port_to_a_protocol() {
    let (code, out, _) = run(
        &[
            "dissect",
            "--format",
            "json",
            "--decode-as",
            "40000-40001=quake3",
            "-",
        ],
        Some(&mixed()),
    );
    assert_eq!(code, 0);
    let protos: Vec<String> = out
        .lines()
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).unwrap()["protocol"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    assert_eq!(protos[0], "quake3");
    assert_eq!(protos[1], "quake3");
    assert_eq!(protos[2], "udp");
}

#[test]
fn protocol_and_frame_filters() {
    let (_, out, _) = run(&["dissect", "--frames", "2-3", "-"], Some(&mixed()));
    let frames: Vec<&str> = out
        .lines()
        .map(|l| l.split_whitespace().next().unwrap())
        .collect();
    assert_eq!(frames, ["2", "3"]);
    let (_, out, _) = run(&["dissect", "--protocol", "quake3", "-"], Some(&mixed()));
    assert_eq!(out, "");
}

/// Runs `dissect --format json` on a capture too large for the pipe buffer, reads 100 bytes and
/// closes the pipe: the program must end quietly with exit 0.
fn closes_quietly_when_the_pipe_closes(threads: &str) {
    let mut w = testkit::synth::PcapWriter::new(1, false, false, 65535);
    let f = testkit::synth::eth_udp(
        "10.0.0.1:50000".parse().unwrap(),
        "10.0.0.2:50001".parse().unwrap(),
        b"x",
    );
    for i in 0..20_000 {
        w.packet(i, 0, &f, f.len() as u32);
    }
    let path = temp_file(&w.bytes);
    let mut child = Command::new(BIN)
        .args([
            "dissect",
            "--threads",
            threads,
            "--format",
            "json",
            path.to_str().unwrap(),
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let mut first = [0u8; 100];
    stdout.read_exact(&mut first).unwrap();
    drop(stdout);
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
}

#[test]
fn a_closed_pipe_ends_quietly_with_exit_0() {
    closes_quietly_when_the_pipe_closes("1");
}

#[test]
fn colour_follows_the_flag_and_no_color() {
    let (_, plain, _) = run(&["dissect", "--format", "tree", "-"], Some(&mixed()));
    assert!(
        !plain.contains('\u{1b}'),
        "no colour when stdout is not a terminal"
    );
    let (_, always, _) = run(
        &["dissect", "--color", "always", "--format", "tree", "-"],
        Some(&mixed()),
    );
    assert!(always.contains('\u{1b}'));
    let out = Command::new(BIN)
        .args(["dissect", "--color", "auto", "-"])
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(!out.stdout.contains(&0x1b));
}

#[test]
fn stats_json_and_listings() {
    let (code, out, _) = run(&["stats", "--format", "json", "-"], Some(&mixed()));
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["frames"], 9);
    assert_eq!(v["udp_datagrams"], 6);
    assert_eq!(v["not_udp"], 1);
    assert_eq!(v["reassembly"]["reassembled"], 1);
    assert_eq!(v["protocols"]["udp"]["malformed"], 1);
    assert_eq!(v["protocols"]["udp"]["short"], 1);
    assert_eq!(v["flows"].as_array().unwrap().len(), 5);

    let (code, out, _) = run(&["protocols", "--format", "json"], None);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let names: Vec<&str> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["flightgear", "quake3", "srb2", "gamestudio"]);

    // `-f` as in `dissect`, and the same listing.
    let (code, short, _) = run(&["protocols", "-f", "json"], None);
    assert_eq!((code, short), (0, out));

    // `fields --markdown PROTO`: the reference's introduction and only that protocol's section.
    let (code, md, _) = run(&["fields", "--markdown", "srb2"], None);
    assert_eq!(code, 0);
    let sections: Vec<&str> = md.lines().filter(|l| l.starts_with("## ")).collect();
    assert_eq!(sections.len(), 1, "{sections:?}");
    assert!(sections[0].starts_with("## srb2:"), "{sections:?}");
    assert!(md.contains("| `srb2.xd` |"));
    assert_eq!(run(&["fields", "--markdown", "doom"], None).0, 2);

    let (code, out, _) = run(&["fields", "udp"], None);
    assert_eq!(code, 0);
    assert_eq!(
        out,
        "udp\tgroup\tUser Datagram Protocol\nudp.length\tuint\tPayload length\nudp.payload\tbytes\tPayload\n"
    );
}

#[test]
fn tree_with_hex_dump() {
    let (code, out, _) = run(
        &["dissect", "--format", "tree", "--hex", "--frames", "1", "-"],
        Some(&mixed()),
    );
    assert_eq!(code, 0);
    assert!(
        out.contains("    Payload length: 12 bytes  [udp.length @0+12]"),
        "{out}"
    );
    assert!(
        out.contains("    0000  68 65 6c 6c 6f 2c 20 77  6f 72 6c 64"),
        "{out}"
    );
}

#[test]
fn several_threads_give_identical_output_from_a_file_and_stdin_and_handle_a_closed_pipe() {
    let bytes = mixed();
    let path = temp_file(&bytes);
    for format in ["summary", "tree", "json"] {
        let dissect = |threads: &str, stdin: bool| {
            let file = if stdin { "-" } else { path.to_str().unwrap() };
            let mut child = Command::new(BIN)
                .args([
                    "dissect",
                    "--threads",
                    threads,
                    "--format",
                    format,
                    "--hex",
                    file,
                ])
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .spawn()
                .unwrap();
            let mut input = child.stdin.take().unwrap();
            if stdin {
                input.write_all(&bytes).unwrap();
            }
            drop(input);
            let out = child.wait_with_output().unwrap();
            assert_eq!(out.status.code(), Some(0), "{format} {threads}");
            out.stdout
        };
        let one = dissect("1", false);
        assert!(one.len() > 500, "{format}: {}", one.len());
        for threads in ["2", "3"] {
            assert_eq!(one, dissect(threads, false), "{format} {threads} file");
            assert_eq!(one, dissect(threads, true), "{format} {threads} stdin");
        }
    }
    closes_quietly_when_the_pipe_closes("2");
}

/// A file that is not a capture has no statistics: `stats` says why and prints no report (an
/// all-zero one would read as an empty capture); a capture cut short still gets the report of
/// what was read.
#[test]
fn stats_of_an_unreadable_file_prints_no_report() {
    let (code, out, err) = run(&["stats", "-"], Some(b"this is not a capture file"));
    assert_eq!((code, out.as_str()), (1, ""));
    assert_eq!(
        err,
        "gamedissect: <stdin>: at byte 0: not a pcap, pcapng or Quake 3 demo file (magic 74 68 69 73)\n"
    );
    let full = mixed();
    let (code, out, err) = run(&["stats", "-"], Some(&full[..full.len() - 3]));
    assert_eq!(code, 1);
    assert!(out.starts_with("Capture: 8 frames"), "{out}");
    assert!(err.contains("at byte"), "{err}");
}

/// Frames of a link type gamedissect cannot read are said once per link type, at the first
/// such frame, on every command; they are still counted as not IP.
#[test]
fn an_unsupported_link_type_is_said_once() {
    let mut w = testkit::synth::PcapWriter::new(147, false, false, 65535);
    for i in 0..3 {
        w.packet(1_000 + i, 0, b"\x01\x02\x03\x04", 4);
    }
    let message = "gamedissect: <stdin>: at byte 24: link type 147 is not one gamedissect reads (Ethernet, raw IP, BSD loopback, Linux cooked v1 and v2); its frames are counted as not IP\n";
    for args in [
        &["dissect", "-"][..],
        &["dissect", "--threads", "2", "-"],
        &["stats", "-"],
    ] {
        let (code, out, err) = run(args, Some(&w.bytes));
        assert_eq!((code, err.as_str()), (0, message), "{args:?}");
        if args[0] == "stats" {
            assert!(out.contains("not IP 3,"), "{out}");
        }
    }
}

/// A file long enough for the progress bar, read with stderr on a pipe (as here) or with
/// `--quiet`: stderr stays empty either way, so scripts capturing it see only real warnings.
#[test]
fn no_progress_bar_when_stderr_is_not_a_terminal_or_with_quiet() {
    let mut w = testkit::synth::PcapWriter::new(1, false, false, 65535);
    let frame = testkit::synth::eth_udp(
        "10.0.0.1:40000".parse().unwrap(),
        "10.0.0.2:40001".parse().unwrap(),
        &[0x5a; 1400],
    );
    // Past the bar's 32 MiB threshold.
    let count = (33 << 20) / (frame.len() + 16) + 1;
    for i in 0..count {
        w.packet_at_ms(1_700_000_000, i as u64, &frame);
    }
    let path = temp_file(&w.bytes);
    drop(w);
    for quiet in [None, Some("-q"), Some("--quiet")] {
        let mut args = vec!["stats", path.to_str().unwrap()];
        args.extend(quiet);
        let (code, out, err) = run(&args, None);
        assert_eq!((code, err.as_str()), (0, ""), "{args:?}");
        assert!(
            out.starts_with(&format!("Capture: {count} frames")),
            "{out}"
        );
    }
    std::fs::remove_file(path).unwrap();
}
