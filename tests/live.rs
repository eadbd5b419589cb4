//! Live input, as `tcpdump -U -w - | gamedissect dissect -` gives it: packets written slowly
//! into a pipe to the real binary. Each record must come out before the next packet is sent,
//! on one thread and on several; SIGINT and SIGTERM must write everything decoded and exit
//! with 130 and 143.
//!
//! Nothing here measures time. A test waits for each expected line; the generous timeout only
//! turns a hang (the bug this guards against) into a failure instead of a stuck test run.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::Duration;

const BIN: &str = env!("CARGO_BIN_EXE_gamedissect");
/// Only a guard against a hang: a passing run waits milliseconds.
const GUARD: Duration = Duration::from_secs(30);

/// A little-endian pcap split into its file header and its records (header and data each).
fn split_pcap(bytes: &[u8]) -> (Vec<u8>, Vec<Vec<u8>>) {
    let mut records = Vec::new();
    let mut at = 24;
    while at + 16 <= bytes.len() {
        let incl = u32::from_le_bytes(bytes[at + 8..at + 12].try_into().unwrap()) as usize;
        records.push(bytes[at..at + 16 + incl].to_vec());
        at += 16 + incl;
    }
    (bytes[..24].to_vec(), records)
}

fn capture(name: &str) -> Vec<u8> {
    std::fs::read(format!("{}/captures/{name}", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

/// The binary reading its standard input, with its output lines arriving on a channel.
struct Live {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
}

impl Live {
    fn start(args: &[&str]) -> Live {
        let mut child = Command::new(BIN)
            .args(args)
            .env("NO_COLOR", "1")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { return };
                if tx.send(line).is_err() {
                    return;
                }
            }
        });
        Live {
            child,
            stdin,
            lines,
        }
    }

    fn send(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().unwrap();
        stdin.write_all(bytes).unwrap();
        stdin.flush().unwrap();
    }

    /// The next output line; a hang fails the test.
    fn line(&self, waiting_for: &str) -> String {
        self.lines
            .recv_timeout(GUARD)
            .unwrap_or_else(|_| panic!("no output line for {waiting_for}"))
    }

    /// Sends the signal and waits for the exit; the exit code, the remaining output lines and
    /// what was written on stderr.
    fn signal(mut self, signal: &str) -> (i32, Vec<String>, String) {
        let pid = self.child.id().to_string();
        let killed = Command::new("kill")
            .args([&format!("-{signal}"), &pid])
            .status()
            .unwrap();
        assert!(killed.success());
        let status = self.child.wait().unwrap();
        // The output pipe closed with the process: the rest of the lines are all there.
        let rest = self.lines.iter().collect();
        drop(self.stdin.take());
        let mut err = String::new();
        std::io::Read::read_to_string(&mut self.child.stderr.take().unwrap(), &mut err).unwrap();
        (status.code().unwrap_or(-1), rest, err)
    }
}

/// The frame number a summary or JSON line is about.
fn frame_of(line: &str) -> u64 {
    let digits: String = line
        .trim_start()
        .trim_start_matches("{\"frame\":")
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse().unwrap()
}

/// The lines the binary writes for a whole file, grouped by frame.
fn expected_by_frame(file: &str, args: &[&str]) -> BTreeMap<u64, Vec<String>> {
    let path = format!("{}/captures/{file}", env!("CARGO_MANIFEST_DIR"));
    let out = Command::new(BIN)
        .args(["dissect", "--threads", "1"])
        .args(args)
        .arg(&path)
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    assert!(out.status.success());
    let mut by_frame: BTreeMap<u64, Vec<String>> = BTreeMap::new();
    for line in String::from_utf8(out.stdout).unwrap().lines() {
        by_frame
            .entry(frame_of(line))
            .or_default()
            .push(line.to_string());
    }
    by_frame
}

/// Sends the first `packets` records of `file` one at a time and checks that each one's records
/// are written before the next record is sent.
fn each_record_before_the_next_packet(file: &str, args: &[&str], packets: usize) {
    let format: Vec<&str> = match args.iter().position(|&a| a == "--threads") {
        Some(i) => [&args[..i], &args[i + 2..]].concat(),
        None => args.to_vec(),
    };
    let expected = expected_by_frame(file, &format);
    let (header, records) = split_pcap(&capture(file));
    let mut argv = vec!["dissect"];
    argv.extend_from_slice(args);
    argv.push("-");
    let mut live = Live::start(&argv);
    live.send(&header);
    let mut seen = 0;
    for (i, record) in records.iter().take(packets).enumerate() {
        let frame = i as u64 + 1;
        live.send(record);
        for want in expected.get(&frame).into_iter().flatten() {
            let got = live.line(&format!("frame {frame} of {file} {args:?}"));
            assert_eq!(&got, want, "{file} {args:?}");
            seen += 1;
        }
    }
    assert!(seen >= packets, "{file}: only {seen} records checked");
    drop(live.stdin.take());
    assert!(live.child.wait().unwrap().success());
    assert!(
        live.lines.try_recv().is_err(),
        "no line after the last packet"
    );
}

#[test]
fn quake3_records_stream_on_one_thread_and_on_two() {
    for threads in ["1", "2", "3"] {
        each_record_before_the_next_packet(
            "quake3-openarena-legacy.pcap",
            &["--threads", threads],
            40,
        );
    }
}

#[test]
fn json_records_stream_too() {
    for threads in ["1", "2"] {
        each_record_before_the_next_packet(
            "flightgear-v2-pair.pcap",
            &["--format", "json", "--threads", threads],
            20,
        );
        each_record_before_the_next_packet(
            "srb2-2.2.13-session.pcap",
            &["--format", "json", "--threads", threads],
            20,
        );
    }
}

/// A live capture that starts mid-game: its legacy Quake 3 messages are held while their pad is
/// searched for, and the records behind them wait. When the pipe goes quiet (the writer still
/// holding it open), every one of them must come out, exactly as the end of a file with the
/// same records gives them (the holds given up, each with its note), on one thread and on two.
#[test]
fn a_quiet_pipe_gets_the_records_behind_a_hold() {
    let (header, records) = split_pcap(&capture("quake3-openarena-legacy.pcap"));
    // From frame 839: mid-game, with the client's chat line as the server messages' key.
    let part: Vec<u8> = [header.clone(), records[838..868].concat()].concat();
    let file = format!("{}/quiet-hold.pcap", env!("CARGO_TARGET_TMPDIR"));
    std::fs::write(&file, &part).unwrap();
    let whole = Command::new(BIN)
        .args(["dissect", "-f", "json", "--threads", "1", &file])
        .output()
        .unwrap();
    assert!(whole.status.success());
    let want: Vec<String> = String::from_utf8(whole.stdout)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    let held = want
        .iter()
        .filter(|l| l.contains("held while its XOR pad was searched for, and never decoded"))
        .count();
    assert_eq!((want.len(), held), (30, 29));
    // Each run waits out the quiet spell: the two run side by side.
    testkit::par::each_parallel(&["1", "2"], |&threads| {
        let mut live = Live::start(&["dissect", "-f", "json", "--threads", threads, "-"]);
        live.send(&part);
        for (i, line) in want.iter().enumerate() {
            let got = live.line(&format!("record {i} of a quiet pipe on {threads} threads"));
            assert_eq!(&got, line, "{threads} threads");
        }
        // Decoding goes on after the quiet spell.
        live.send(&records[868..870].concat());
        for frame in [31, 32] {
            let got = live.line(&format!("frame {frame} after the quiet spell"));
            assert_eq!(frame_of(&got), frame, "{threads} threads");
        }
        drop(live.stdin.take());
        assert!(live.child.wait().unwrap().success());
    });
}

/// Sends five records and half of a sixth, waits until the five are out, then signals while the
/// writer still holds the pipe open: the process must not wait for the writer, must not call
/// the half record an error in the file, and must exit with the signal's code.
fn stop_with(signal: &str, threads: &str, code: i32) {
    let file = "quake3-openarena-legacy.pcap";
    let expected = expected_by_frame(file, &[]);
    let (header, records) = split_pcap(&capture(file));
    let mut live = Live::start(&["dissect", "--threads", threads, "-"]);
    live.send(&header);
    for record in &records[..5] {
        live.send(record);
    }
    live.send(&records[5][..20]);
    let mut got = Vec::new();
    for frame in 1..=5 {
        for _ in &expected[&frame] {
            got.push(live.line(&format!("frame {frame} before {signal}")));
        }
    }
    let (exit, rest, err) = live.signal(signal);
    let want: Vec<String> = (1..=5).flat_map(|f| expected[&f].clone()).collect();
    assert_eq!(got, want, "{signal} on {threads} threads");
    assert_eq!(rest, Vec::<String>::new(), "{signal} on {threads} threads");
    assert_eq!(exit, code, "{signal} on {threads} threads");
    assert_eq!(err, "", "{signal} on {threads} threads");
}

#[test]
fn sigint_and_sigterm_write_everything_decoded_and_exit_130_143() {
    for threads in ["1", "2"] {
        stop_with("INT", threads, 130);
        stop_with("TERM", threads, 143);
    }
}

/// `--line-buffered` changes when the output is written, never what.
#[test]
fn line_buffered_output_is_the_same() {
    let path = format!(
        "{}/captures/gamestudio-a6-dplay8.pcap",
        env!("CARGO_MANIFEST_DIR")
    );
    let run = |args: &[&str]| {
        let out = Command::new(BIN)
            .arg("dissect")
            .args(args)
            .arg(&path)
            .output()
            .unwrap();
        assert!(out.status.success());
        out.stdout
    };
    for format in ["summary", "json", "tree"] {
        let plain = run(&["-f", format, "--threads", "1"]);
        assert!(!plain.is_empty());
        for threads in ["1", "2"] {
            assert_eq!(run(&["-f", format, "-l", "--threads", threads]), plain);
        }
    }
}
