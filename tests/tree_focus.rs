//! What the tree shows of a message (`--expand`, `--compact`, info strings as key/value lines),
//! `--hex` with every output that shows it, and the `stats` header under `--frames`, on the
//! shipped OpenArena capture (values as its server log and the decoder's golden output give
//! them).

use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_gamedissect");

fn capture(name: &str) -> String {
    format!("{}/captures/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// Runs gamedissect on the OpenArena capture; the output of a successful run.
fn q3(args: &[&str]) -> String {
    let out = Command::new(BIN)
        .args(args)
        .arg(capture("quake3-openarena-legacy.pcap"))
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{args:?}");
    String::from_utf8(out.stdout).unwrap()
}

/// [`q3`] with the arguments in one string, split at spaces.
fn q3w(args: &str) -> String {
    q3(&args.split(' ').collect::<Vec<_>>())
}

fn lines(out: &str) -> Vec<&str> {
    out.lines().collect()
}

#[test]
fn an_info_string_is_one_line_per_key_shown_once() {
    // Frame 2, the server's infoResponse: the pairs of `\voip\opus\g_needpass\0…`.
    let out = q3(&["dissect", "-f", "tree", "--frames", "2"]);
    let l = lines(&out);
    let at = l
        .iter()
        .position(|l| l.starts_with("      Info string  [quake3.oob.info @17+156]"))
        .expect(&out);
    assert_eq!(
        l[at + 1],
        "        voip: \"opus\"  [quake3.oob.info.pair @18+9]"
    );
    assert_eq!(
        l[at + 9],
        "        hostname: \"GoldenQ3Server\"  [quake3.oob.info.pair @117+23]"
    );
    assert_eq!(l.len(), at + 12, "{out}");
    assert!(!out.contains("Key:") && !out.contains("Pair"), "{out}");

    // Frame 16, the gamestate: configstring 0 (serverinfo) is its pairs, not the raw text too.
    let out = q3(&["dissect", "-f", "tree", "--frames", "16"]);
    assert!(
        out.contains("\n            sv_hostname: \"GoldenQ3Server\"  [quake3.svc.gamestate.configstring.info.pair @s1:2.7+6608b]\n"),
        "{out}"
    );
    assert!(!out.contains("\\\\sv_hostname\\\\"), "{out}");
    // JSON (and -e) keep the raw text for scripts.
    let json = q3(&["dissect", "-f", "json", "--frames", "16"]);
    assert!(json.contains("\"value\":\"\\\\com_protocol\\\\71\\\\sv_hostname\\\\GoldenQ3Server"));
}

#[test]
fn expand_shows_only_the_named_subtrees() {
    let out = q3w("dissect -f tree --frames 16 --expand quake3.svc.gamestate.configstring");
    let l = lines(&out);
    assert_eq!(
        l[2],
        "  Quake III Arena (id 1.32, ioquake3, OpenArena)  [quake3 @0+344]"
    );
    // The netchan header is collapsed; the path down to the configstrings is open.
    assert_eq!(l[3], "    Netchan …  [quake3.netchan @0+8]");
    assert_eq!(l[4], "    Server message  [quake3.svc @s1:0.0+23488b]");
    assert_eq!(
        l[6],
        "      Gamestate  [quake3.svc.gamestate @s1:1.0+23473b]"
    );
    assert!(!out.contains("Sequence: 1"), "{out}");
    assert!(out.contains("            mapname: \"oa_dm1\"  ["), "{out}");
    // The 38 baselines are snapshot entities outside the prefix: one collapsed line each.
    let entities = l
        .iter()
        .filter(|l| l.starts_with("        Entity …  [quake3.svc.snapshot.entity "))
        .count();
    assert_eq!(entities, 38, "{out}");
    assert!(!out.contains("Origin"), "{out}");

    // Two prefixes, a protocol's whole tree among them.
    let all = q3(&["dissect", "-f", "tree", "--frames", "16"]);
    let both = q3w("dissect -f tree --frames 16 --expand quake3.netchan --expand quake3");
    assert_eq!(both, all);
}

#[test]
fn compact_drops_names_and_positions() {
    let out = q3(&["dissect", "-f", "tree", "--compact", "--frames", "11"]);
    let l = lines(&out);
    assert_eq!(l[2], "  Quake III Arena (id 1.32, ioquake3, OpenArena)");
    assert_eq!(l[5], "      Command: \"connect\"");
    assert!(l.contains(&"        name: \"GoldenPlayer\""), "{out}");
    assert!(
        l.contains(&"        cl_guid: \"381D54D6636A13525F51C7758F063B91\""),
        "{out}"
    );
    assert!(l.contains(&"      Challenge: 110895342"), "{out}");
    assert!(!out.contains(" ["), "{out}");
    // A note keeps its severity, not its field.
    let out = q3(&["dissect", "-f", "tree", "--compact", "--frames", "14"]);
    let note = "  [note] netchan flavour legacy: no checksum matching the challenge in two datagrams: legacy netchan";
    assert!(lines(&out).contains(&note), "{out}");
    assert!(!out.contains("[quake3.netchan.flavour]"), "{out}");
}

#[test]
fn hex_works_with_the_summary_and_json() {
    // Frame 11, the connect: its payload and the decompressed userinfo (source 1).
    let out = q3(&["dissect", "--hex", "--frames", "11"]);
    let l = lines(&out);
    assert!(l[0].ends_with("quake3 connect name GoldenPlayer protocol 71 challenge 110895342"));
    assert_eq!(l[1], "  payload (241 bytes):");
    assert_eq!(
        l[2],
        "    0000  ff ff ff ff 63 6f 6e 6e  65 63 74 20 01 28 44 74  ....connect .(Dt"
    );
    let s1 = l
        .iter()
        .position(|l| *l == "  s1: decompressed userinfo (296 bytes):");
    let s1 = s1.expect(&out);
    assert_eq!(
        l[s1 + 1],
        "    0000  22 5c 63 68 61 6c 6c 65  6e 67 65 5c 31 31 30 38  \"\\challenge\\1108"
    );
    assert_eq!(l.last(), Some(&""));

    let json = q3(&["dissect", "-f", "json", "--hex", "--frames", "11"]);
    let v: serde_json::Value = serde_json::from_str(json.trim()).unwrap();
    let hex = v["hex"].as_str().unwrap();
    assert_eq!(hex.len(), 241 * 2);
    assert!(hex.starts_with("ffffffff636f6e6e65637420"), "{hex}");
    assert_eq!(v["sources"][0]["name"], "decompressed userinfo");
    let ui = v["sources"][0]["hex"].as_str().unwrap();
    assert_eq!(ui.len(), 296 * 2);
    // "\challenge\110895342
    assert!(
        ui.starts_with("225c6368616c6c656e67655c313130383935333432"),
        "{ui}"
    );
    // Every record has both keys: a message without extra buffers has no sources.
    let json = q3(&["dissect", "-f", "json", "--hex", "--frames", "1"]);
    let v: serde_json::Value = serde_json::from_str(json.trim()).unwrap();
    assert_eq!(v["hex"], "ffffffff676574696e666f0a"); // "getinfo\n"
    assert_eq!(v["sources"], serde_json::json!([]));
}

#[test]
fn stats_header_says_how_many_frames_frames_selected() {
    let out = q3(&["stats", "--frames", "5-10"]);
    assert!(
        out.starts_with(
            "Capture: 10 frames read, 6 selected by --frames, 1966 bytes captured, 0 cut by the snaplen, 0 bad records\n"
        ),
        "{out}"
    );
    // Overlapping ranges count once; reading stops after the last one.
    let out = q3(&["stats", "--frames", "1-5,3-8", "--frames", "100-102"]);
    assert!(
        out.starts_with("Capture: 102 frames read, 11 selected by --frames,"),
        "{out}"
    );
    let out = q3(&["stats"]);
    assert!(
        out.starts_with("Capture: 1676 frames, 140450 bytes captured,"),
        "{out}"
    );
    let json = q3(&["stats", "-f", "json", "--frames", "5,7"]);
    let v: serde_json::Value = serde_json::from_str(json.trim()).unwrap();
    assert_eq!(
        (v["frames"].as_u64(), v["frames_selected"].as_u64()),
        (Some(7), Some(2))
    );
    assert_eq!(v["protocols"]["quake3"]["messages"], 2);
}
