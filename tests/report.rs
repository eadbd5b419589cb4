//! `gamedissect report` on every shipped capture: the page parses as XML, fetches nothing, and
//! holds the sections that apply with the capture's real values (packet counts from the capture
//! notes and `stats`, callsigns from the FlightGear capture notes, player names from the Quake 3
//! server logs, events from `gamedissect events`).

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

use gamedissect::commands::events::EventFormat;
use gamedissect::commands::events::run::events_of;
use gamedissect::commands::report::report_of;
use gamedissect::run::stats_of;
use testkit::dissect::{config_for, field_values, shipped_captures};

/// The page read back with quick-xml: per section id, its text (each text node followed by `|`,
/// the thin spaces of numbers removed), and every element's attributes.
struct Page {
    sections: BTreeMap<String, String>,
    attributes: Vec<(String, String, String)>,
}

fn attributes(e: &quick_xml::events::BytesStart<'_>, page: &mut Page) -> Option<String> {
    let name = e.name().as_ref().to_string();
    let mut id = None;
    for a in e.attributes() {
        let a = a.expect("well-formed attribute");
        let key = a.key.as_ref().to_string();
        let value = a.value.to_string();
        if name == "section" && key == "id" {
            id = Some(value.clone());
        }
        page.attributes.push((name.clone(), key, value));
    }
    id
}

fn parse(html: &str) -> Page {
    use quick_xml::events::Event;
    let mut reader = quick_xml::Reader::from_str(html);
    let mut page = Page {
        sections: BTreeMap::new(),
        attributes: Vec::new(),
    };
    let (mut depth, mut section): (usize, Option<(String, usize)>) = (0, None);
    loop {
        let event = reader
            .read_event()
            .unwrap_or_else(|e| panic!("not well-formed near {}: {e}", reader.buffer_position()));
        match event {
            Event::Start(e) => {
                if let Some(id) = attributes(&e, &mut page) {
                    assert!(
                        page.sections.insert(id.clone(), String::new()).is_none(),
                        "{id} twice"
                    );
                    section = Some((id, depth));
                }
                depth += 1;
            }
            Event::Empty(e) => {
                attributes(&e, &mut page);
            }
            Event::End(_) => {
                depth = depth.checked_sub(1).expect("an end tag without its start");
                if section.as_ref().is_some_and(|(_, d)| *d == depth) {
                    section = None;
                }
            }
            Event::Text(t) => {
                if let Some((id, _)) = &section {
                    let text = t.xml10_content();
                    let s = page.sections.get_mut(id).unwrap();
                    s.push_str(&text.replace('\u{202f}', ""));
                    s.push('|');
                }
            }
            Event::Eof => break,
            _ => {}
        }
    }
    assert_eq!(depth, 0, "every element is closed");
    page
}

fn report(capture: &Path) -> String {
    report_of(&fs::read(capture).unwrap(), config_for(capture))
}

/// Nothing the browser would fetch: no URL, no protocol-relative path, no CSS `url(`, no
/// external script, style sheet, image or frame.
fn assert_self_contained(html: &str, page: &Page, name: &str) {
    for bad in [
        "http:", "https:", "//", "url(", "<script", "<link", "<img", "<iframe", "<object",
        "@import",
    ] {
        assert!(!html.contains(bad), "{name}: contains {bad:?}");
    }
    for (el, key, value) in &page.attributes {
        if matches!(
            key.as_str(),
            "src" | "href" | "xlink:href" | "action" | "data"
        ) {
            assert!(
                value.starts_with("data:") || value.starts_with('#'),
                "{name}: <{el} {key}={value:?}>"
            );
        }
    }
}

/// The value of a glance tile (`<span>label</span><b>value</b>`).
fn tile<'a>(glance: &'a str, label: &str) -> &'a str {
    let at = glance
        .find(&format!("|{label}|"))
        .unwrap_or_else(|| panic!("tile {label}"));
    glance[at + label.len() + 2..].split('|').next().unwrap()
}

#[test]
fn every_shipped_capture_makes_a_self_contained_page_with_its_sections() {
    let captures = shipped_captures();
    assert!(captures.len() >= 20);
    for capture in captures {
        let name = capture.file_name().unwrap().to_string_lossy().into_owned();
        let html = report(&capture);
        let page = parse(&html);
        assert_self_contained(&html, &page, &name);
        let bytes = fs::read(&capture).unwrap();
        let (stats, _) = stats_of(&bytes, config_for(&capture));
        for id in ["glance", "io", "flows", "notes"] {
            assert!(page.sections.contains_key(id), "{name}: no {id}");
        }
        let glance = format!("|{}", page.sections["glance"]);
        assert_eq!(tile(&glance, "packets"), stats.frames.to_string(), "{name}");
        assert_eq!(
            tile(&glance, "flows"),
            stats.flow_table.created.to_string(),
            "{name}"
        );
        let events = events_of(&bytes, config_for(&capture), &[], EventFormat::Csv);
        let has_events = events.lines().count() > 1;
        assert_eq!(
            page.sections.contains_key("events"),
            has_events,
            "{name}: events"
        );
        let fg = !field_values(
            &capture.to_string_lossy(),
            "flightgear.position.geodetic.latitude",
        )
        .is_empty();
        assert_eq!(
            page.sections.contains_key("flightgear"),
            fg,
            "{name}: flightgear"
        );
        assert_eq!(fg, name.starts_with("flightgear-"), "{name}");
        let q3 = stats
            .message_types
            .get("quake3")
            .is_some_and(|t| t.contains_key("snapshot"));
        assert_eq!(page.sections.contains_key("quake3"), q3, "{name}: quake3");
        let srb2 = !field_values(&capture.to_string_lossy(), "srb2.ping.entry").is_empty();
        assert_eq!(page.sections.contains_key("srb2"), srb2, "{name}: srb2");
    }
}

/// Lines of a capture's notes or server log starting with `prefix`, the prefix removed.
fn noted(file: &str, prefix: &str) -> Vec<String> {
    fs::read_to_string(file)
        .unwrap()
        .lines()
        .filter_map(|l| l.strip_prefix(prefix).map(str::to_string))
        .collect()
}

#[test]
fn flightgear_pages_show_each_callsign_and_the_packet_count_of_the_capture_notes() {
    for stem in [
        "flightgear-v1",
        "flightgear-v2-air",
        "flightgear-v2-ground",
        "flightgear-v2-pair",
    ] {
        let page = parse(&report(Path::new(&format!("captures/{stem}.pcap"))));
        let notes = format!("captures/{stem}.txt");
        let packets = &noted(&notes, "packets: ")[0];
        assert_eq!(
            tile(&format!("|{}", page.sections["glance"]), "packets"),
            packets,
            "{stem}"
        );
        let callsigns = noted(&notes, "callsign: ");
        assert!(!callsigns.is_empty());
        let fg = &page.sections["flightgear"];
        for c in &callsigns {
            // The legend of both charts and the table's row.
            assert_eq!(
                fg.matches(&format!("|{c}|")).count(),
                3,
                "{stem}: {c} in {fg}"
            );
        }
        let listed = fg.split("|last s|").nth(1).unwrap();
        let rows = listed.split('|').filter(|s| s.starts_with("GD")).count();
        assert_eq!(rows, callsigns.len(), "{stem}: one row a callsign");
    }
}

#[test]
fn quake3_pages_draw_every_player_of_the_server_log() {
    for stem in ["quake3-openarena-legacy", "quake3-ioq3-protocol"] {
        let page = parse(&report(Path::new(&format!("captures/{stem}.pcap"))));
        let q3 = &page.sections["quake3"];
        // ClientUserinfoChanged: <n> n\<name>\t\… in the server's log.
        let mut names: Vec<String> =
            noted(&format!("captures/{stem}.log"), "ClientUserinfoChanged: ")
                .iter()
                .filter_map(|l| {
                    l.split("n\\")
                        .nth(1)?
                        .split('\\')
                        .next()
                        .map(str::to_string)
                })
                .collect();
        names.sort();
        names.dedup();
        assert_eq!(names, ["Angelyss", "GoldenPlayer", "Sarge"], "{stem}");
        for n in &names {
            assert!(
                q3.contains(&format!("|{n}|")),
                "{stem}: {n} not drawn: {q3}"
            );
        }
        assert!(
            q3.contains("Paths on oa_dm1"),
            "{stem}: the map of the log's InitGame"
        );
        assert!(q3.contains("Snapshot rate per client") && q3.contains("Snapshot size per client"));
    }
}

#[test]
fn events_are_listed_as_gamedissect_events_finds_them() {
    let capture = Path::new("captures/quake3-openarena-legacy.pcap");
    let csv = events_of(
        &fs::read(capture).unwrap(),
        config_for(capture),
        &[],
        EventFormat::Csv,
    );
    let kills = csv.lines().filter(|l| l.contains(",kill,")).count();
    assert_eq!(kills, 1);
    let page = parse(&report(capture));
    let ev = &page.sections["events"];
    assert!(ev.contains(&format!("quake3 kill: {kills}")), "{ev}");
    // Every event is a table row: its kind cell is `quake3 <kind>`.
    let rows = ev
        .split("|text|")
        .nth(1)
        .unwrap()
        .matches("|quake3 ")
        .count();
    assert_eq!(rows, csv.lines().count() - 1);
}

#[test]
fn srb2_pages_chart_players_and_pings() {
    let page = parse(&report(Path::new("captures/srb2-2.2.13-session.pcap")));
    let srb2 = &page.sections["srb2"];
    assert!(
        srb2.contains("|Players|") && srb2.contains("|Ping per player slot|"),
        "{srb2}"
    );
    // The three players of the session's first ping table (frame 19): `Sonic 0 ms, Tails 42 ms,
    // Knuckles 71 ms`.
    assert!(field_values("captures/srb2-2.2.13-session.pcap", "srb2.ping.entry").len() >= 32);
    for name in ["Sonic", "Tails", "Knuckles"] {
        assert!(srb2.contains(&format!("|{name}|")), "{name}: {srb2}");
    }
}

/// A long capture of many flows and message types: the page stays small, its tables and charts
/// bounded, while its counts stay whole.
#[test]
fn a_long_many_flow_capture_gives_a_bounded_page() {
    use std::net::SocketAddr;
    use testkit::synth::{PcapWriter, ip_udp};
    let server: SocketAddr = "10.255.0.1:27960".parse().unwrap();
    let mut w = PcapWriter::new(101, false, false, 65535);
    // 30,000 clients, each asking once with an unknown connectionless command, 10 ms apart
    // (300 s).
    for i in 0..30_000u32 {
        let client = SocketAddr::from(([10, (i >> 16) as u8, (i >> 8) as u8, i as u8], 40_000));
        let ask = format!("\u{ff}\u{ff}\u{ff}\u{ff}ask{i} x");
        let bytes: Vec<u8> = ask.chars().map(|c| c as u8).collect();
        w.packet_at_ms(1_000, u64::from(i) * 10, &ip_udp(client, server, &bytes));
    }
    let html = report_of(&w.bytes, gamedissect::engine::Config::default());
    let page = parse(&html);
    assert_self_contained(&html, &page, "long");
    let glance = format!("|{}", page.sections["glance"]);
    assert_eq!(tile(&glance, "packets"), "30000");
    assert_eq!(tile(&glance, "flows"), "30000");
    let flows = &page.sections["flows"];
    assert!(
        flows.starts_with("Flows|30000 flows; the 30 largest by bytes.|"),
        "{flows}"
    );
    assert!(html.len() < 400_000, "{} bytes", html.len());
    // Every chart over time has at most 120 points: a stacked band's outline is two per point.
    let bands: Vec<usize> = html
        .split("<polygon ")
        .skip(1)
        .map(|p| {
            let at = p.find("points=\"").unwrap() + 8;
            p[at..]
                .split('"')
                .next()
                .unwrap()
                .split_whitespace()
                .count()
        })
        .collect();
    // By protocol and by message type, packets and bytes: one band each (every datagram is a
    // Quake 3 `oob_unknown`); 300 s in bins merged to 118 points, two a point.
    assert_eq!(bands.len(), 4, "{bands:?}");
    assert!(bands.iter().all(|&n| (200..=240).contains(&n)), "{bands:?}");
}

/// The page of a capture with no packet at all, and of one whose interfaces are offset to both
/// ends of i64 seconds (pcapng `if_tsoffset`), packets interleaved: no overflow (the test build
/// checks) and the real counts.
#[test]
fn empty_and_extreme_time_captures_give_a_page() {
    use testkit::synth::{PcapNgWriter, PcapWriter, ip_udp};
    let empty = PcapWriter::new(101, false, false, 65535).bytes;
    let html = report_of(&empty, gamedissect::engine::Config::default());
    let page = parse(&html);
    assert_self_contained(&html, &page, "empty");
    let glance = format!("|{}", page.sections["glance"]);
    assert_eq!(
        (tile(&glance, "packets"), tile(&glance, "duration")),
        ("0", "0.0 s")
    );
    assert!(glance.contains("No message was reported."), "{glance}");
    assert_eq!(page.sections["io"], "I/O graph|No messages.|");

    let mut w = PcapNgWriter::new();
    w.section(false)
        .interface_offset(101, 6, i64::MIN)
        .interface_offset(101, 6, i64::MAX);
    let (a, b) = (
        "10.0.0.1:27961".parse().unwrap(),
        "10.0.0.2:27960".parse().unwrap(),
    );
    for i in 0..40u32 {
        let ip = ip_udp(a, b, b"\xff\xff\xff\xffgetinfo x");
        w.packet(i % 2, u64::from(i) * 90_000_000, &ip, ip.len() as u32);
    }
    let html = report_of(&w.bytes, gamedissect::engine::Config::default());
    let page = parse(&html);
    let glance = format!("|{}", page.sections["glance"]);
    assert_self_contained(&html, &page, "extreme");
    // The times are clamped at both ends of i64 seconds: 2^64 - 1 s apart, 2^64 as an f64.
    assert_eq!(
        (tile(&glance, "packets"), tile(&glance, "duration")),
        ("40", "18446744073709551616.0 s")
    );
    assert!(
        glance.contains(
            "|From -292277022657-01-27T08:29:52.000000Z to 292277026596-12-04T15:30:07.000000Z."
        ),
        "{glance}"
    );
}

#[test]
fn the_command_writes_the_same_page_to_a_file_and_to_stdout() {
    let exe = env!("CARGO_BIN_EXE_gamedissect");
    let capture = "captures/srb2-2.2.13-session.pcap";
    let out = std::process::Command::new(exe)
        .args(["report", "-q", capture, "-w", "-"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let dir = std::env::temp_dir().join(format!("gamedissect-report-{}", std::process::id()));
    fs::create_dir_all(&dir).unwrap();
    let file = dir.join("page.html");
    let status = std::process::Command::new(exe)
        .args(["report", "-q", capture, "-w"])
        .arg(&file)
        .status()
        .unwrap();
    assert!(status.success());
    let written = fs::read(&file).unwrap();
    fs::remove_dir_all(&dir).unwrap();
    assert_eq!(written, out.stdout);
    let page = parse(&String::from_utf8(written).unwrap());
    assert_eq!(
        tile(&format!("|{}", page.sections["glance"]), "packets"),
        "25"
    );
    // A capture that cannot be opened: exit 1, no page.
    let missing = std::process::Command::new(exe)
        .args(["report", "-q", "captures/no-such.pcap", "-w", "-"])
        .output()
        .unwrap();
    assert_eq!(missing.status.code(), Some(1));
    assert!(missing.stdout.is_empty());
}

/// `-o` sets decoder options; a report asked for with `-o report.html` gets a usage error that
/// names the flag it meant, and no page is written.
#[test]
fn an_output_file_given_to_o_is_a_usage_error_naming_w() {
    let exe = env!("CARGO_BIN_EXE_gamedissect");
    let out = std::process::Command::new(exe)
        .args(["report", "captures/srb2-broken.pcap", "-o", "page.html"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("for the page, -w page.html"), "{err}");
    assert!(out.stdout.is_empty());
    assert!(!std::path::Path::new("page.html").exists());
}
