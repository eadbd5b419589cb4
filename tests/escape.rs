//! Text from the wire is data, not terminal commands (docs/output.md "Escaping"): a capture whose
//! names, chat and server info hold ESC sequences, OSC 52, C1 controls, DEL and bidirectional
//! overrides goes through every text output, and none of them writes one raw.

use std::path::PathBuf;
use std::process::Command;

use testkit::captures::escape::{CALLSIGN, HOSTILE, SRB2_NAME, capture};

const BIN: &str = env!("CARGO_BIN_EXE_gamedissect");

fn write_capture(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("gamedissect-escape-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, capture(text)).unwrap();
    path
}

/// Runs the binary; its standard output and error.
fn run(args: &[&str]) -> (String, String) {
    let out = Command::new(BIN).args(args).output().unwrap();
    (
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// The first character in `text` that only a packet could have put there: a control other than
/// the newlines and tabs of the format itself, DEL, C1, or a bidirectional control.
fn raw_control(text: &str, tabs: bool) -> Option<(usize, char)> {
    text.char_indices().find(|&(_, c)| {
        let n = c as u32;
        (c.is_control() && c != '\n' && !(tabs && c == '\t'))
            || matches!(n, 0x202a..=0x202e | 0x2066..=0x2069)
    })
}

fn check(what: &str, text: &str, tabs: bool, shows: &[&str]) {
    assert!(!text.is_empty(), "{what}: no output");
    if let Some((at, c)) = raw_control(text, tabs) {
        panic!(
            "{what}: raw {c:?} at {at}: {:?}",
            &text[at.saturating_sub(40)..]
        );
    }
    for s in shows {
        assert!(text.contains(s), "{what}: no {s:?} in\n{text}");
    }
}

/// The forms the capture's texts take once escaped.
const ESC_CLEAR: &str = "\\x1b[2J";
const OSC52: &str = "\\x1b]52;c;cHduZWQ=\\x07";
const CSI: &str = "\\u{9b}31m";
const RLO: &str = "\\u{202e}gpj.exe\\x7fZ";

#[test]
fn no_text_output_writes_a_raw_control() {
    // The constants hold what the test says they hold.
    assert!(
        HOSTILE.contains('\u{1b}') && HOSTILE.contains('\u{9b}') && HOSTILE.contains('\u{202e}')
    );
    assert!(CALLSIGN.contains('\u{7f}') && SRB2_NAME.contains('\u{2066}'));
    let path = write_capture("hostile.pcap", HOSTILE);
    let p = path.to_str().unwrap();
    let all = [ESC_CLEAR, OSC52, CSI, RLO];
    let (summary, _) = run(&["dissect", p]);
    check("summary", &summary, false, &all);
    check(
        "summary",
        &summary,
        false,
        &["S\\x1b[2J\\u{9b}1m\\u{2066}x\\x7f"],
    );
    let (colour, _) = run(&["dissect", "--color", "always", p]);
    // Our own colours are the only ESC left.
    let ours = colour.replace("\u{1b}[", "");
    assert!(!ours.contains('\u{1b}'), "colour: {colour:?}");
    let (tree, _) = run(&["dissect", "-f", "tree", p]);
    check("tree", &tree, false, &all);
    check("tree", &tree, false, &["\"E\\x1b[2J\\x7f\"", "A\\x1b[2J"]);
    for quote in ["n", "d"] {
        let (fields, _) = run(&[
            "dissect",
            "-f",
            "fields",
            "-e",
            "frame.number",
            "-e",
            "msg.type",
            "-e",
            "quake3.oob.info.pair.value",
            "-e",
            "flightgear.callsign",
            "-E",
            &format!("quote={quote}"),
            p,
        ]);
        check(&format!("fields quote={quote}"), &fields, true, &all);
    }
    let (stats, _) = run(&["stats", p]);
    check("stats", &stats, false, &["E\\x1b[2J\\x7f"]);
    for format in ["text", "csv"] {
        let (events, _) = run(&["events", "--format", format, p]);
        check(
            &format!("events {format}"),
            &events,
            false,
            &[ESC_CLEAR, CSI],
        );
    }
    for format in ["csv", "kml", "gpx"] {
        let (tracks, _) = run(&["tracks", "--format", format, p]);
        check(
            &format!("tracks {format}"),
            &tracks,
            false,
            &["E\\x1b[2J\\x7f"],
        );
    }
    let plain = write_capture("plain.pcap", "plain text");
    let (diff, _) = run(&["diff", plain.to_str().unwrap(), p]);
    check("diff", &diff, false, &[ESC_CLEAR]);
    // HTML: escaped as entities, and its controls in the same visible form.
    let (html, _) = run(&["report", "-w", "-", p]);
    check("report", &html, true, &[ESC_CLEAR, CSI]);
    let _ = std::fs::remove_dir_all(path.parent().unwrap());
}

#[test]
fn error_messages_escape_the_file_name() {
    let (_, err) = run(&["dissect", "/nonexistent/a\u{1b}[2J\u{202e}b.pcap"]);
    check("error", &err, false, &["a\\x1b[2J\\u{202e}b.pcap"]);
}
