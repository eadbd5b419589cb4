//! Helpers for the Quake 3 "from the wild" tests (`tests/quake3_wild.rs`,
//! `tests/quake3_wild_busy.rs`): captures cut at every 10 % of their frames (the capture starts
//! mid-session) and thinned by seeded random frame loss, decoded and compared message by message
//! with the decode of the whole capture.
//!
//! A game message (a sequenced server or client message) decodes *exactly* when its kind is the
//! same and every value the message itself carries equals the full decode's: the server time,
//! the server and client commands, each transmitted entity with its changed fields and their
//! values, the player state's changed fields and values, and every usercmd. Values the message
//! does not carry (fields unchanged since a reference the shortened capture lacks) may be absent,
//! but a value that is shown must be right. Only messages from 5 s after the cut count; the
//! cut and thinned captures are made here, never committed.
//!
//! A run of the suite decodes each whole capture once ([`load_full`]) and measures each capture's
//! wild cases once per pass count ([`wild_cases_in`]), whichever tests ask for them: the first
//! to ask computes, the others wait for it and share the result. The cases of one measurement
//! are decoded on as many threads as the machine has (`testkit::par::each_parallel`).

#![allow(dead_code)]

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::sync::{Mutex, OnceLock};

use gamedissect::tree::{Field, Record, Severity};
use testkit::dissect::{config_for, each_record, value_text};
pub use testkit::par::each_parallel;
use testkit::synth::Rng;

/// A classic pcap file split into its header and its records (each with its 16-byte header).
pub struct Pcap {
    pub header: Vec<u8>,
    pub records: Vec<Vec<u8>>,
    /// Record times in microseconds.
    pub times: Vec<u64>,
}

pub fn read_pcap(bytes: &[u8]) -> Pcap {
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
pub fn subset(p: &Pcap, keep: impl Fn(usize) -> bool) -> (Vec<u8>, Vec<u64>) {
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
pub struct Message {
    pub msg_type: String,
    /// Every value shown: path → value.
    pub shown: BTreeMap<String, String>,
    /// The paths of the values the message itself transmits.
    pub carried: BTreeSet<String>,
    /// Chat lines (server `chat`/`tchat` messages, client `say`/`say_team`/`tell` texts).
    pub chat: Vec<String>,
}

/// Field names whose value depends on state outside the message (the merged entity count, what
/// a delta applied to, which state fields are known, the usercmd key and how it was recovered, the netchan's XOR key and
/// string), so not compared.
pub const NOT_COMPARED: &[&str] = &[
    "quake3.svc.snapshot.entities",
    "quake3.svc.snapshot.entity.base",
    "quake3.svc.snapshot.ps.partial",
    "quake3.svc.snapshot.entity.partial",
    "quake3.clc.move.key",
    "quake3.clc.move.key_recovered_from",
    "quake3.clc.move.key_known_bits",
    "quake3.clc.move.key_first_pass",
];

pub fn last_segment(name: &str) -> &str {
    name.rsplit('.').next().unwrap_or(name)
}

/// Flattens a message's subtree. A repeated group is keyed by its number, index or sequence
/// child when it has one; in an entity or the player state, the values the delta changed are
/// the ones the message carries.
pub fn flatten(f: &Field, path: &str, required: bool, m: &mut Message) {
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

pub fn message_of(r: &Record) -> Option<Message> {
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
pub struct Decoded {
    pub messages: BTreeMap<u64, Message>,
    pub errors: Vec<(u64, String)>,
    pub chat: BTreeSet<String>,
}

pub fn decode(bytes: &[u8], frames: &[u64], capture: &str) -> Decoded {
    decode_in(bytes, frames, capture, Passes::One)
}

/// One pass over a capture, or two (`-2`: the first learns what the second starts from).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Passes {
    One,
    Two,
}

pub fn decode_in(bytes: &[u8], frames: &[u64], capture: &str, passes: Passes) -> Decoded {
    let mut d = Decoded {
        messages: BTreeMap::new(),
        errors: Vec::new(),
        chat: BTreeSet::new(),
    };
    let mut config = config_for(Path::new(capture));
    if passes == Passes::Two {
        let (learned, _) = gamedissect::run::first_pass(bytes, &config);
        config.hindsight = Some(std::sync::Arc::new(learned));
    }
    let err = each_record(bytes, config, |meta, r| {
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

/// The value of `key` in `cells`, made by `make` the first time it is asked for and shared
/// after that by every test of the binary (a test asking while another makes it waits).
fn shared<T: Send + Sync>(
    cells: &'static Mutex<BTreeMap<String, &'static OnceLock<T>>>,
    key: String,
    make: impl FnOnce() -> T,
) -> &'static T {
    let cell = {
        let mut cells = cells.lock().unwrap_or_else(|e| e.into_inner());
        *cells
            .entry(key)
            .or_insert_with(|| Box::leak(Box::new(OnceLock::new())))
    };
    cell.get_or_init(make)
}

/// A capture's records and the decode of the whole capture (one pass), decoded once per test
/// binary and shared.
pub fn load_full(capture: &str) -> &'static (Pcap, Decoded) {
    static FULL: Mutex<BTreeMap<String, &'static OnceLock<(Pcap, Decoded)>>> =
        Mutex::new(BTreeMap::new());
    shared(&FULL, capture.to_string(), || {
        let bytes = std::fs::read(capture).unwrap_or_else(|e| panic!("{capture}: {e}"));
        let p = read_pcap(&bytes);
        let all: Vec<u64> = (1..=p.records.len() as u64).collect();
        let full = decode(&bytes, &all, capture);
        (p, full)
    })
}

/// Whether the shortened capture's message decodes exactly as the full one.
pub fn exact(full: &Message, cut: &Message) -> bool {
    full.msg_type == cut.msg_type
        && full
            .carried
            .iter()
            .all(|p| cut.shown.get(p) == full.shown.get(p))
        && cut.shown.iter().all(|(p, v)| full.shown.get(p) == Some(v))
}

/// The moves `cut` shows among frames `range`, each asserted to decode exactly as in `full`
/// and to leave no usercmd value keyed.
pub fn moves_whole(
    full: &Decoded,
    cut: &Decoded,
    range: std::ops::RangeInclusive<u64>,
) -> Vec<u64> {
    let moves: Vec<u64> = (cut.messages.range(range))
        .filter(|(_, m)| m.msg_type == "move")
        .map(|(&f, _)| f)
        .collect();
    for f in &moves {
        let (fm, cm) = (&full.messages[f], &cut.messages[f]);
        assert!(exact(fm, cm), "frame {f}");
        assert!(!cm.shown.keys().any(|k| k.contains("/keyed#")), "frame {f}");
    }
    moves
}

pub fn full_value<'m>(m: &'m Message, path: &str) -> Option<&'m String> {
    m.shown.get(path)
}

/// Prints how a message that is not exact differs (with `WILD_SHOW` set: to classify them).
pub fn show_difference(frame: u64, full: &Message, cut: Option<&Message>) {
    let Some(cut) = cut else {
        println!("frame {frame}: {} missing", full.msg_type);
        return;
    };
    let missing: Vec<_> = (full.carried.iter())
        .filter(|p| cut.shown.get(*p) != full.shown.get(*p))
        .take(3)
        .collect();
    let wrong: Vec<_> = (cut.shown.iter())
        .filter(|(p, v)| full.shown.get(*p) != Some(v))
        .take(3)
        .collect();
    println!(
        "frame {frame}: {} / {}: carried not shown {missing:?}; shown wrong {wrong:?}",
        full.msg_type, cut.msg_type
    );
}

#[derive(Default, Clone, Debug)]
pub struct Figures {
    pub counted: usize,
    pub exact: usize,
    /// Counted messages shown de-keyed (their type is not `keyed`), exact or not.
    pub dekeyed: usize,
    pub errors: usize,
    /// Counted messages showing a value that differs from the full decode's at the same place
    /// (a guess shown as a value): must be none.
    pub wrong: usize,
    /// Chat texts in the counted messages of the full decode (a client's `say` text and the
    /// server's `chat` echo of it are two), and those the shortened capture's decode shows.
    pub chat_expected: usize,
    pub chat_found: usize,
    /// Chat lines: a `say` text and the server's echo that ends with it are one line, found
    /// when either is shown (as `events` shows it); a line the server sent alone (a console
    /// line) is its text.
    pub lines_expected: usize,
    pub lines_found: usize,
    pub worst: f64,
}

impl Figures {
    pub fn share(&self) -> f64 {
        if self.counted == 0 {
            1.0
        } else {
            self.exact as f64 / self.counted as f64
        }
    }
}

/// Decodes the shortened capture (`keep` picks the frames) and compares it with the full decode.
pub fn measure(p: &Pcap, full: &Decoded, capture: &str, keep: impl Fn(usize) -> bool) -> Figures {
    measure_in(p, full, (capture, Passes::One), keep)
}

pub fn measure_in(
    p: &Pcap,
    full: &Decoded,
    (capture, passes): (&str, Passes),
    keep: impl Fn(usize) -> bool,
) -> Figures {
    let (bytes, frames) = subset(p, keep);
    if frames.is_empty() {
        return Figures::default();
    }
    let cut = decode_in(&bytes, &frames, capture, passes);
    figures(p, full, &frames, &cut)
}

/// How `cut`, the decode of the shortened capture made of `p`'s `frames`, compares with the
/// full decode.
pub fn figures(p: &Pcap, full: &Decoded, frames: &[u64], cut: &Decoded) -> Figures {
    let mut f = Figures::default();
    if frames.is_empty() {
        return f;
    }
    let start = p.times[frames[0] as usize - 1] + 5_000_000;
    let mut chat_expected = BTreeSet::new();
    for &frame in frames {
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
        } else if std::env::var_os("WILD_SHOW").is_some() {
            show_difference(frame, fm, cm);
        }
        if cm.is_some_and(|cm| cm.msg_type != "keyed") {
            f.dekeyed += 1;
        }
        let differs = |cm: &Message| {
            (cm.shown.iter()).any(|(p, v)| full_value(fm, p).is_some_and(|fv| fv != v))
        };
        if cm.is_some_and(differs) {
            f.wrong += 1;
            if std::env::var_os("WILD_SHOW").is_some() {
                let cm = cm.expect("shown");
                let w: Vec<_> = (cm.shown.iter())
                    .filter(|(p, v)| full_value(fm, p).is_some_and(|fv| fv != *v))
                    .map(|(p, v)| (p, v, &fm.shown[p]))
                    .collect();
                println!("wrong frame {frame}: {w:?}");
            }
        }
        chat_expected.extend(fm.chat.iter().cloned());
    }
    f.errors = cut.errors.len();
    f.chat_expected = chat_expected.len();
    f.chat_found = chat_expected.intersection(&cut.chat).count();
    (f.lines_expected, f.lines_found) = chat_lines(&chat_expected, &cut.chat);
    f.worst = f.share();
    f
}

/// The chat lines among `expected` texts, and how many of them `shown` has: a `say` text and
/// the server's echo that ends with it (`chat "NAME^7\x19: ^2TEXT"`, OpenArena g_cmds.c
/// `G_Say`) are one line, found when either is shown.
pub fn chat_lines(expected: &BTreeSet<String>, shown: &BTreeSet<String>) -> (usize, usize) {
    let mut lines: Vec<Vec<&String>> = Vec::new();
    for text in expected {
        let same =
            |other: &&String| other.ends_with(text.as_str()) || text.ends_with(other.as_str());
        match lines.iter_mut().find(|line| line.iter().any(same)) {
            Some(line) => line.push(text),
            None => lines.push(vec![text]),
        }
    }
    let found = lines
        .iter()
        .filter(|line| line.iter().any(|t| shown.contains(*t)));
    (lines.len(), found.count())
}

pub fn sum(all: &[(String, Figures)]) -> Figures {
    let mut t = Figures {
        worst: 1.0,
        ..Figures::default()
    };
    for (_, f) in all {
        t.counted += f.counted;
        t.exact += f.exact;
        t.dekeyed += f.dekeyed;
        t.errors += f.errors;
        t.wrong += f.wrong;
        t.chat_expected += f.chat_expected;
        t.chat_found += f.chat_found;
        t.lines_expected += f.lines_expected;
        t.lines_found += f.lines_found;
        t.worst = t.worst.min(f.worst);
    }
    t
}

/// Cuts at every 10 % of the frames and thins by 5 % and 20 % random loss (seeded); prints the
/// figures of each case and returns their totals.
pub fn wild_cases(capture: &str) -> (Vec<(String, Figures)>, Figures) {
    wild_cases_in(capture, Passes::One)
}

/// [`wild_cases`], each case decoded in one pass or two (`-2`). Measured once per run of the suite
/// (the cases in parallel) and shared by the tests that ask.
pub fn wild_cases_in(capture: &str, passes: Passes) -> (Vec<(String, Figures)>, Figures) {
    type Cases = (Vec<(String, Figures)>, Figures);
    static CASES: Mutex<BTreeMap<String, &'static OnceLock<Cases>>> = Mutex::new(BTreeMap::new());
    let key = format!("{capture}{}", label(passes));
    shared(&CASES, key, || measure_wild_cases(capture, passes)).clone()
}

fn measure_wild_cases(capture: &str, passes: Passes) -> (Vec<(String, Figures)>, Figures) {
    let (p, full) = load_full(capture);
    assert!(full.errors.is_empty(), "{capture}: {:?}", full.errors);
    let n = p.records.len();
    // Each case: its name and which frames it keeps.
    let mut kept: Vec<(String, Vec<bool>)> = Vec::new();
    for tenth in 1..10 {
        let from = n * tenth / 10;
        let name = format!("cut at {}0 % (frame {})", tenth, from + 1);
        kept.push((name, (0..n).map(|i| i >= from).collect()));
    }
    for (percent, seed) in [(5u64, 0x5eed_0005u64), (20, 0x5eed_0020)] {
        let mut rng = Rng(seed);
        let drop: Vec<bool> = (0..n).map(|_| rng.below(100) < percent).collect();
        let name = format!("{percent} % of frames lost");
        kept.push((name, (0..n).map(|i| !drop[i]).collect()));
        let from = n / 2;
        let name = format!("cut at 50 % and {percent} % lost");
        kept.push((name, (0..n).map(|i| i >= from && !drop[i]).collect()));
    }
    let cases: Vec<(String, Figures)> = each_parallel(&kept, |(name, keep)| {
        let f = measure_in(p, full, (capture, passes), |i| keep[i]);
        (name.clone(), f)
    });
    for (name, f) in &cases {
        println!(
            "{capture}{}: {name}: {}/{} game messages exact ({:.1} %), {} de-keyed, {} with a wrong value, {} error notes, chat {}/{}, chat lines {}/{}",
            label(passes),
            f.exact,
            f.counted,
            100.0 * f.share(),
            f.dekeyed,
            f.wrong,
            f.errors,
            f.chat_found,
            f.chat_expected,
            f.lines_found,
            f.lines_expected
        );
    }
    let total = sum(&cases);
    println!(
        "{capture}{}: all cases: {}/{} exact ({:.1} %), {} de-keyed, worst case {:.1} %, {} error notes, chat {}/{}, chat lines {}/{}",
        label(passes),
        total.exact,
        total.counted,
        100.0 * total.share(),
        total.dekeyed,
        100.0 * total.worst,
        total.errors,
        total.chat_found,
        total.chat_expected,
        total.lines_found,
        total.lines_expected
    );
    (cases, total)
}

/// The first field named `name` in `f`'s subtree.
pub fn find<'a>(f: &'a Field, name: &str) -> Option<&'a Field> {
    if f.def.name == name {
        return Some(f);
    }
    f.children.iter().find_map(|c| find(c, name))
}

/// The text of record `r`'s first field named `name`.
pub fn field_text(r: &Record, name: &str) -> Option<String> {
    r.fields
        .iter()
        .find_map(|f| find(f, name))
        .and_then(value_text)
}

fn label(passes: Passes) -> &'static str {
    match passes {
        Passes::One => "",
        Passes::Two => " (-2)",
    }
}
