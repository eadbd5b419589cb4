//! Quake 3 captures "from the wild": the shipped captures cut at every 10 % of their frames
//! (the capture starts mid-session) and thinned by seeded random frame loss, decoded and
//! compared message by message with the decode of the whole capture.
//!
//! A game message (a sequenced server or client message) decodes *exactly* when its kind is the
//! same and every value the message itself carries equals the full decode's: the server time,
//! the server and client commands, each transmitted entity with its changed fields and their
//! values, the player state's changed fields and values, and every usercmd. Values the message
//! does not carry (fields unchanged since a reference the shortened capture lacks) may be absent,
//! but a value that is shown must be right. Only messages from 5 s after the cut count; the
//! cut and thinned captures are made here, never committed.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use gamedissect::tree::{Field, Record, Severity};
use testkit::dissect::{config_for, each_record, value_text};
use testkit::synth::Rng;

/// A classic pcap file split into its header and its records (each with its 16-byte header).
struct Pcap {
    header: Vec<u8>,
    records: Vec<Vec<u8>>,
    /// Record times in microseconds.
    times: Vec<u64>,
}

fn read_pcap(bytes: &[u8]) -> Pcap {
    let le32 = |o: usize| u32::from_le_bytes([bytes[o], bytes[o + 1], bytes[o + 2], bytes[o + 3]]);
    let magic = le32(0);
    assert!(
        magic == 0xa1b2_c3d4 || magic == 0xa1b2_3c4d,
        "little-endian classic pcap expected"
    );
    let nanos = magic == 0xa1b2_3c4d;
    let mut p = Pcap {
        header: bytes[..24].to_vec(),
        records: Vec::new(),
        times: Vec::new(),
    };
    let mut o = 24;
    while o + 16 <= bytes.len() {
        let len = le32(o + 8) as usize;
        let frac = le32(o + 4) as u64;
        p.times
            .push(le32(o) as u64 * 1_000_000 + if nanos { frac / 1000 } else { frac });
        p.records.push(bytes[o..o + 16 + len].to_vec());
        o += 16 + len;
    }
    assert_eq!(o, bytes.len(), "whole records");
    p
}

/// A capture made of some of `p`'s records, in order: the bytes and each new frame's original
/// frame number.
fn subset(p: &Pcap, keep: impl Fn(usize) -> bool) -> (Vec<u8>, Vec<u64>) {
    let mut out = p.header.clone();
    let mut frames = Vec::new();
    for (i, r) in p.records.iter().enumerate() {
        if keep(i) {
            out.extend_from_slice(r);
            frames.push(i as u64 + 1);
        }
    }
    (out, frames)
}

/// What a game message carries, as comparable leaves.
#[derive(Default, Clone)]
struct Message {
    msg_type: String,
    /// Every value shown: path → value.
    shown: BTreeMap<String, String>,
    /// The paths of the values the message itself transmits.
    carried: BTreeSet<String>,
    /// Chat lines (server `chat`/`tchat` messages, client `say`/`say_team`/`tell` texts).
    chat: Vec<String>,
}

/// Field names whose value depends on state outside the message (the merged entity count, what
/// a delta applied to, the usercmd key and how it was recovered, the netchan's XOR key and
/// string), so not compared.
const NOT_COMPARED: &[&str] = &[
    "quake3.svc.snapshot.entities",
    "quake3.svc.snapshot.entity.base",
    "quake3.svc.snapshot.ps.partial",
    "quake3.clc.move.key",
    "quake3.clc.move.key_recovered_from",
];

fn last_segment(name: &str) -> &str {
    name.rsplit('.').next().unwrap_or(name)
}

/// Flattens a message's subtree. A repeated group is keyed by its number, index or sequence
/// child when it has one; in an entity or the player state, the values the delta changed are
/// the ones the message carries.
fn flatten(f: &Field, path: &str, required: bool, m: &mut Message) {
    let name = f.def.name;
    let state_group = name.ends_with(".entity") || name.ends_with(".ps");
    let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
    for c in &f.children {
        let n = c.def.name;
        if NOT_COMPARED.contains(&n) {
            continue;
        }
        let occurrence = seen.entry(n).or_default();
        *occurrence += 1;
        let key = c
            .children
            .iter()
            .find(|k| {
                let l = last_segment(k.def.name);
                l == "number" || l == "index" || l == "sequence"
            })
            .and_then(value_text)
            .unwrap_or_else(|| occurrence.to_string());
        let p = format!("{path}/{}#{key}", last_segment(n));
        if let Some(v) = value_text(c) {
            let seg = last_segment(n);
            let carried = if state_group {
                c.meaning.as_deref() == Some("changed")
                    || matches!(seg, "number" | "changed" | "removed")
            } else {
                required
            };
            if carried {
                m.carried.insert(p.clone());
            }
            if n.ends_with("command.message") || n.ends_with("command.text") {
                let word = f
                    .children
                    .iter()
                    .find(|k| k.def.name.ends_with("command.name"))
                    .and_then(value_text)
                    .unwrap_or_default();
                if n.ends_with("message")
                    && matches!(
                        word.as_str(),
                        "chat" | "tchat" | "say" | "say_team" | "tell"
                    )
                {
                    m.chat.push(v.clone());
                }
            }
            m.shown.insert(p.clone(), v);
        }
        // Arrays inside the player state (stats, ammo…) are sent element by element and only
        // when changed; the tree lists them without saying which, so they are compared when
        // shown but not required.
        let entity = n.ends_with(".entity");
        flatten(c, &p, required && (!state_group || entity), m);
    }
}

fn message_of(r: &Record) -> Option<Message> {
    let root = r.fields.first()?;
    let body = root
        .children
        .iter()
        .find(|c| c.def.name == "quake3.svc" || c.def.name == "quake3.clc")?;
    let mut m = Message {
        msg_type: r.msg_type.to_string(),
        ..Message::default()
    };
    flatten(body, body.def.name, true, &mut m);
    Some(m)
}

/// Every record of a capture: original frame → (message, error notes).
struct Decoded {
    messages: BTreeMap<u64, Message>,
    errors: Vec<(u64, String)>,
    chat: BTreeSet<String>,
}

fn decode(bytes: &[u8], frames: &[u64], capture: &str) -> Decoded {
    let mut d = Decoded {
        messages: BTreeMap::new(),
        errors: Vec::new(),
        chat: BTreeSet::new(),
    };
    let err = each_record(bytes, config_for(Path::new(capture)), |meta, r| {
        let frame = frames[meta.frame as usize - 1];
        for n in &r.notes {
            if n.severity() == Severity::Error {
                d.errors.push((frame, n.message.clone()));
            }
        }
        if let Some(m) = message_of(r) {
            d.chat.extend(m.chat.iter().cloned());
            d.messages.insert(frame, m);
        }
    });
    assert!(err.is_none(), "{capture}: {err:?}");
    d
}

/// Whether the shortened capture's message decodes exactly as the full one.
fn exact(full: &Message, cut: &Message) -> bool {
    full.msg_type == cut.msg_type
        && full
            .carried
            .iter()
            .all(|p| cut.shown.get(p) == full.shown.get(p))
        && cut.shown.iter().all(|(p, v)| full.shown.get(p) == Some(v))
}

#[derive(Default)]
struct Figures {
    counted: usize,
    exact: usize,
    /// Counted messages shown de-keyed (their type is not `keyed`), exact or not.
    dekeyed: usize,
    errors: usize,
    chat_expected: usize,
    chat_found: usize,
    worst: f64,
}

impl Figures {
    fn share(&self) -> f64 {
        if self.counted == 0 {
            1.0
        } else {
            self.exact as f64 / self.counted as f64
        }
    }
}

/// Decodes the shortened capture (`keep` picks the frames) and compares it with the full decode.
fn measure(p: &Pcap, full: &Decoded, capture: &str, keep: impl Fn(usize) -> bool) -> Figures {
    let (bytes, frames) = subset(p, keep);
    let mut f = Figures::default();
    if frames.is_empty() {
        return f;
    }
    let cut = decode(&bytes, &frames, capture);
    let start = p.times[frames[0] as usize - 1] + 5_000_000;
    let mut chat_expected = BTreeSet::new();
    for &frame in &frames {
        if p.times[frame as usize - 1] < start {
            continue;
        }
        let Some(fm) = full.messages.get(&frame) else {
            continue;
        };
        f.counted += 1;
        let cm = cut.messages.get(&frame);
        if cm.is_some_and(|cm| exact(fm, cm)) {
            f.exact += 1;
        }
        if cm.is_some_and(|cm| cm.msg_type != "keyed") {
            f.dekeyed += 1;
        }
        chat_expected.extend(fm.chat.iter().cloned());
    }
    f.errors = cut.errors.len();
    f.chat_expected = chat_expected.len();
    f.chat_found = chat_expected.intersection(&cut.chat).count();
    f.worst = f.share();
    f
}

fn sum(all: &[(String, Figures)]) -> Figures {
    let mut t = Figures {
        worst: 1.0,
        ..Figures::default()
    };
    for (_, f) in all {
        t.counted += f.counted;
        t.exact += f.exact;
        t.dekeyed += f.dekeyed;
        t.errors += f.errors;
        t.chat_expected += f.chat_expected;
        t.chat_found += f.chat_found;
        t.worst = t.worst.min(f.worst);
    }
    t
}

/// Cuts at every 10 % of the frames and thins by 5 % and 20 % random loss (seeded); prints the
/// figures of each case and returns their totals.
fn wild_cases(capture: &str) -> (Vec<(String, Figures)>, Figures) {
    let bytes = std::fs::read(capture).unwrap_or_else(|e| panic!("{capture}: {e}"));
    let p = read_pcap(&bytes);
    let all: Vec<u64> = (1..=p.records.len() as u64).collect();
    let full = decode(&bytes, &all, capture);
    assert!(full.errors.is_empty(), "{capture}: {:?}", full.errors);
    let n = p.records.len();
    let mut cases = Vec::new();
    for tenth in 1..10 {
        let from = n * tenth / 10;
        let f = measure(&p, &full, capture, |i| i >= from);
        cases.push((format!("cut at {}0 % (frame {})", tenth, from + 1), f));
    }
    for (percent, seed) in [(5u64, 0x5eed_0005u64), (20, 0x5eed_0020)] {
        let mut rng = Rng(seed);
        let drop: Vec<bool> = (0..n).map(|_| rng.below(100) < percent).collect();
        let f = measure(&p, &full, capture, |i| !drop[i]);
        cases.push((format!("{percent} % of frames lost"), f));
        let from = n / 2;
        let f = measure(&p, &full, capture, |i| i >= from && !drop[i]);
        cases.push((format!("cut at 50 % and {percent} % lost"), f));
    }
    for (name, f) in &cases {
        println!(
            "{capture}: {name}: {}/{} game messages exact ({:.1} %), {} de-keyed, {} error notes, chat {}/{}",
            f.exact,
            f.counted,
            100.0 * f.share(),
            f.dekeyed,
            f.errors,
            f.chat_found,
            f.chat_expected
        );
    }
    let total = sum(&cases);
    println!(
        "{capture}: all cases: {}/{} exact ({:.1} %), {} de-keyed, worst case {:.1} %, {} error notes, chat {}/{}",
        total.exact,
        total.counted,
        100.0 * total.share(),
        total.dekeyed,
        100.0 * total.worst,
        total.errors,
        total.chat_found,
        total.chat_expected
    );
    (cases, total)
}

#[test]
fn pcap_subset_round_trips() {
    let bytes = std::fs::read("captures/quake3-openarena-legacy.pcap").unwrap();
    let p = read_pcap(&bytes);
    assert_eq!(p.records.len(), 1676);
    let (same, frames) = subset(&p, |_| true);
    assert_eq!(same, bytes);
    assert_eq!(frames.len(), 1676);
}

/// What holds already on every case: no `error` note anywhere (a message whose key is not known
/// is shown keyed, with a note), and with 5 % loss from the handshake on, at least 95 % exact
/// with every chat line. (The targets for the cut captures need the key recovery.)
fn check_common(cases: &[(String, Figures)], total: &Figures) {
    assert_eq!(total.errors, 0, "error notes");
    let (_, five) = cases
        .iter()
        .find(|(n, _)| n == "5 % of frames lost")
        .expect("the 5 % case");
    assert!(five.share() >= 0.95, "{}", five.share());
    assert_eq!(five.chat_found, five.chat_expected);
    assert!(five.chat_expected >= 5, "{}", five.chat_expected);
}

#[test]
fn openarena_legacy_from_the_wild() {
    let (cases, total) = wild_cases("captures/quake3-openarena-legacy.pcap");
    assert!(total.counted > 5000, "{}", total.counted);
    check_common(&cases, &total);
    // With 20 % lost the server command `cp "` (4 characters, the key of 420 client messages)
    // was never captured: its pad is recovered; 105 messages decode exactly (79 before key
    // strings were tried whole, 76 before the recovery). The rest: usercmd values whose key is
    // not known, and server messages keyed with chat lines sent in client messages that stayed
    // keyed.
    let (_, twenty) = cases
        .iter()
        .find(|(n, _)| n == "20 % of frames lost")
        .expect("the 20 % case");
    assert_eq!((twenty.exact, twenty.counted), (105, 1045));
    // De-keyed (exact or with usercmd values still keyed): 696 of them (407 before candidate
    // texts were tried as whole key strings and checks charged per trial parse run, 307 before
    // candidates sharing a prefix were checked once); over all cases 5,185 (3,790 before;
    // 2,672 before the prefix sharing).
    assert_eq!(twenty.dekeyed, 696);
    assert_eq!(total.dekeyed, 5185);
    // Exact over all cases: 1,792 (1,328 before); the cut at 40 % and 50 % 93 and 90 (0).
    assert_eq!(total.exact, 1792);
}

#[test]
fn ioq3_from_the_wild() {
    let (cases, total) = wild_cases("captures/quake3-ioq3-protocol.pcap");
    assert!(total.counted > 5000, "{}", total.counted);
    check_common(&cases, &total);
    // The usercmd key recovered without the gamestate (47.6 % of all cases without it, the
    // cuts at 10…50 % 27–31 %): where the client turned after the cut, its moves decode.
    assert!(total.share() >= 0.70, "{}", total.share());
    for (name, f) in &cases[..5] {
        assert!(f.share() >= 0.5, "{name}: {}", f.share());
    }
}

/// `stats` says per flow how many game messages were decoded and how many stayed keyed, and how
/// the legacy keys were known.
#[test]
fn stats_count_decoded_and_keyed_messages() {
    let capture = "captures/quake3-openarena-legacy.pcap";
    let p = read_pcap(&std::fs::read(capture).unwrap());
    let facts = |bytes: &[u8]| {
        let (stats, err) = gamedissect::run::stats_of(bytes, config_for(Path::new(capture)));
        assert!(err.is_none());
        stats
            .flows
            .iter()
            .find(|f| f.facts.contains_key("game messages"))
            .map(|f| f.facts.clone())
            .expect("the game flow")
    };
    let (whole, _) = subset(&p, |_| true);
    let f = facts(&whole);
    // As `stats` counts the message types: 1,195 move, 433 snapshot, 14 clientCommand, 1
    // gamestate and 1 client message (the two fragments are not messages): all decoded.
    assert_eq!(
        f["game messages"],
        "1644 decoded, 0 left keyed (key not captured)"
    );
    assert!(f["xor keys"].starts_with("challenge from the handshake"));
    assert_eq!(f["challenge"], "110895342");
    let (cut, _) = subset(&p, |i| i >= 800);
    let f = facts(&cut);
    // Without the handshake the client messages de-key with pads recovered from themselves
    // (372 of them; 186 before key strings were tried whole); of the server messages, those
    // keyed with `disconnect` (a command word: its pad is tried whole) and those de-keyed
    // through the other direction, 90; the rest stay keyed (their key strings, chat lines sent
    // before their pads were found, are long texts the recovery does not find), and no usercmd
    // key is recovered (the client does not turn).
    assert_eq!(
        f["game messages"],
        "462 decoded (372 with usercmd values still keyed), 396 left keyed (key not captured)"
    );
    // The challenge byte the recovery found is the low byte of the real challenge
    // (110895342 = 0x069c_27ee).
    assert_eq!(
        f["xor keys"],
        "challenge byte 0xee recovered from the keyed messages; key strings from the captured commands"
    );
    assert!(f["xor pads"].starts_with("461 messages de-keyed with a pad"));
}

/// The usercmd key of each move in a decode: frame → (key, "recovered from N" when
/// `key_recovered_from` says it was recovered, else empty).
fn move_keys(bytes: &[u8], frames: &[u64], capture: &str) -> BTreeMap<u64, (String, String)> {
    fn find<'a>(f: &'a Field, name: &str) -> Option<&'a Field> {
        if f.def.name == name {
            return Some(f);
        }
        f.children.iter().find_map(|c| find(c, name))
    }
    let mut keys = BTreeMap::new();
    let err = each_record(bytes, config_for(Path::new(capture)), |meta, r| {
        if let Some(k) = r.fields.iter().find_map(|f| find(f, "quake3.clc.move.key")) {
            let from = "quake3.clc.move.key_recovered_from";
            let how = match r.fields.iter().find_map(|f| find(f, from)) {
                Some(n) => format!("recovered from {}", value_text(n).unwrap_or_default()),
                None => String::new(),
            };
            let v = value_text(k).unwrap_or_default();
            keys.insert(frames[meta.frame as usize - 1], (v, how));
        }
    });
    assert!(err.is_none());
    keys
}

/// A usercmd key recovered without the gamestate equals the low 16 bits of the key the full
/// capture computes from checksumFeed: the capture cut at 10 % recovers it for 268 moves.
#[test]
fn recovered_usercmd_key_is_the_real_one() {
    let capture = "captures/quake3-ioq3-protocol.pcap";
    let bytes = std::fs::read(capture).unwrap();
    let p = read_pcap(&bytes);
    let all: Vec<u64> = (1..=p.records.len() as u64).collect();
    let full = move_keys(&bytes, &all, capture);
    let (cut, frames) = subset(&p, |i| i >= 168);
    let mut recovered = 0;
    for (frame, (v, how)) in move_keys(&cut, &frames, capture) {
        if !how.contains("recovered") {
            continue;
        }
        let num = |t: &str| match t.strip_prefix("0x") {
            Some(h) => u64::from_str_radix(h, 16).unwrap(),
            None => t.parse().unwrap(),
        };
        let real = num(&full[&frame].0);
        assert_eq!(num(&v), real & 0xffff, "frame {frame}");
        recovered += 1;
    }
    assert!(recovered >= 250, "{recovered}");
    // `stats` says how the key is known.
    let (stats, err) = gamedissect::run::stats_of(&cut, config_for(Path::new(capture)));
    assert!(err.is_none());
    let fact = |name: &str| {
        let found = stats.flows.iter().find_map(|f| f.facts.get(name));
        found.cloned().unwrap_or_else(|| panic!("no {name}"))
    };
    let how = fact("usercmd key");
    assert!(
        how.starts_with("low 16 bits of checksumFeed recovered from "),
        "{how}"
    );
    // The moves before the recovery are counted as still keyed.
    let games = fact("game messages");
    assert_eq!(
        games,
        "1494 decoded (836 with usercmd values still keyed), 0 left keyed (key not captured)"
    );
}

/// With 20 % of the frames lost, no usercmd is shown de-keyed with a wrong key: where the server
/// command a move acknowledges was lost, its text is not guessed from an older command in the
/// same ring slot (the key is then recovered or the values stay keyed, with a note). Each key
/// shown equals the whole capture's (its low 16 bits when recovered).
#[test]
fn lossy_usercmd_keys_are_never_guessed() {
    let capture = "captures/quake3-ioq3-protocol.pcap";
    let bytes = std::fs::read(capture).unwrap();
    let p = read_pcap(&bytes);
    let all: Vec<u64> = (1..=p.records.len() as u64).collect();
    let full = move_keys(&bytes, &all, capture);
    let mut rng = Rng(0x5eed_0020);
    let drop: Vec<bool> = (0..p.records.len()).map(|_| rng.below(100) < 20).collect();
    let (thin, frames) = subset(&p, |i| !drop[i]);
    let num = |t: &str| match t.strip_prefix("0x") {
        Some(h) => u64::from_str_radix(h, 16).unwrap(),
        None => t.parse().unwrap(),
    };
    let mut shown = 0;
    for (frame, (v, how)) in move_keys(&thin, &frames, capture) {
        let real = num(&full[&frame].0);
        let mask = if how.is_empty() { u64::MAX } else { 0xffff };
        assert_eq!(num(&v), real & mask, "frame {frame}");
        shown += 1;
    }
    // 969 moves survive the loss; the 509 that acknowledge a lost server command (or come before
    // their key was recovered) show no key.
    assert_eq!(shown, 460);
}

/// Each legacy message says how its key was known, and the key string is shown when it
/// changes: on the whole capture every key comes from the handshake; on the capture cut at frame
/// 801 the de-keyed client messages carry recovered pads, each with the number of messages it
/// was recovered from.
#[test]
fn legacy_keys_say_how_they_were_known() {
    fn find<'a>(f: &'a Field, name: &str) -> Option<&'a Field> {
        if f.def.name == name {
            return Some(f);
        }
        f.children.iter().find_map(|c| find(c, name))
    }
    let capture = "captures/quake3-openarena-legacy.pcap";
    let p = read_pcap(&std::fs::read(capture).unwrap());
    let tally = |bytes: &[u8]| {
        let mut t: BTreeMap<String, usize> = BTreeMap::new();
        let err = each_record(bytes, config_for(Path::new(capture)), |_, r| {
            let get = |n: &str| {
                r.fields
                    .iter()
                    .find_map(|f| find(f, n))
                    .and_then(value_text)
            };
            if let Some(how) = get("quake3.netchan.xor_source") {
                *t.entry(how).or_default() += 1;
            }
            if get("quake3.netchan.xor_string").is_some() {
                *t.entry("key string shown".into()).or_default() += 1;
            }
            if let Some(n) = get("quake3.netchan.xor_recovered_from") {
                assert!(n.parse::<usize>().unwrap() >= 4, "{n}");
                if get("quake3.svc.reliable_ack").is_some() {
                    *t.entry("server pad".into()).or_default() += 1;
                }
            }
        });
        assert!(err.is_none());
        t
    };
    let (whole, _) = subset(&p, |_| true);
    let t = tally(&whole);
    assert_eq!(t.get("handshake"), Some(&1644));
    assert_eq!(t.get("key string shown"), Some(&11));
    let (cut, _) = subset(&p, |i| i >= 800);
    let t = tally(&cut);
    assert_eq!(t.get("recovered pad"), Some(&461));
    // Of them, server messages: the 28 keyed with `disconnect`, whose pad the command word
    // gives whole (none before).
    assert_eq!(t.get("server pad"), Some(&28));
    assert_eq!(t.get("handshake"), None);
}
