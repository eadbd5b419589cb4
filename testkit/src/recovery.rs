//! Measuring the Quake 3 key recovery on shortened captures: a capture cut at every 10 % of its
//! frames (it starts mid-session) and thinned by seeded random frame loss, decoded and compared
//! message by message with the decode of the whole capture. The wild tests
//! (`tests/wild/mod.rs`, `tests/quake3_wild*.rs`, `tests/quake3_corpus.rs`) and the
//! `score_quake3` harness over a folder of captures share it.
//!
//! A game message (a sequenced server or client message) decodes *exactly* when its kind is the
//! same and every value the message itself carries equals the full decode's: the server time,
//! the server and client commands, each transmitted entity with its changed fields and their
//! values, the player state's changed fields and values, and every usercmd. Values the message
//! does not carry (fields unchanged since a reference the shortened capture lacks) may be absent,
//! but a value that is shown must be right. Only messages from 5 s after the cut count; the
//! cut and thinned captures are made in memory, never written.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use gamedissect::tree::{Field, Record, Severity};

use crate::dissect::{config_for, each_record, value_text};
use crate::synth::Rng;

/// A classic pcap file split into its header and its records (each with its 16-byte header).
pub struct Pcap {
    pub header: Vec<u8>,
    pub records: Vec<Vec<u8>>,
    /// Record times in microseconds.
    pub times: Vec<u64>,
}

pub fn read_pcap(bytes: &[u8]) -> Pcap {
    parse_pcap(bytes).unwrap_or_else(|e| panic!("{e}"))
}

/// [`read_pcap`] that says why a file is not a whole little-endian classic pcap instead of
/// panicking: what a harness run on any folder skips.
pub fn parse_pcap(bytes: &[u8]) -> Result<Pcap, String> {
    let le32 = |o: usize| u32::from_le_bytes([bytes[o], bytes[o + 1], bytes[o + 2], bytes[o + 3]]);
    if bytes.len() < 24 {
        return Err("shorter than a pcap header".into());
    }
    let magic = le32(0);
    if magic != 0xa1b2_c3d4 && magic != 0xa1b2_3c4d {
        return Err("little-endian classic pcap expected".into());
    }
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
        if o + 16 + len > bytes.len() {
            break;
        }
        p.times
            .push(le32(o) as u64 * 1_000_000 + if nanos { frac / 1000 } else { frac });
        p.records.push(bytes[o..o + 16 + len].to_vec());
        o += 16 + len;
    }
    if o != bytes.len() {
        return Err(format!(
            "not whole records: {} bytes left at offset {o}",
            bytes.len() - o
        ));
    }
    Ok(p)
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

/// Whether the shortened capture's message decodes exactly as the full one.
pub fn exact(full: &Message, cut: &Message) -> bool {
    full.msg_type == cut.msg_type
        && full
            .carried
            .iter()
            .all(|p| cut.shown.get(p) == full.shown.get(p))
        && cut.shown.iter().all(|(p, v)| full.shown.get(p) == Some(v))
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

/// The shortened captures every capture is measured on, each with its name and which of the
/// `n` frames it keeps: cut at every 10 % (10 to 90), 5 % and 20 % of the frames lost (seeded),
/// and cut at 50 % with the same losses.
pub fn case_frames(n: usize) -> Vec<(String, Vec<bool>)> {
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
    kept
}

/// How a set of cases is distributed: what issue 37 judges the recovery by. A case that counts
/// no game message (a cut too near the end) says nothing of the recovery: it is left out of the
/// shares, counted in `empty`.
#[derive(Clone, Debug, PartialEq)]
pub struct Distribution {
    /// The cases that count game messages.
    pub cases: usize,
    pub empty: usize,
    /// The median case's exact share (the mean of the two middle ones for an even count), 0..=1.
    pub median: f64,
    pub worst: f64,
    /// How many cases reach 95 % exact or more.
    pub at_95: usize,
    pub wrong: usize,
    pub errors: usize,
}

impl Distribution {
    pub fn of<'a>(cases: impl IntoIterator<Item = &'a Figures>) -> Distribution {
        let mut shares = Vec::new();
        let (mut wrong, mut errors, mut empty) = (0, 0, 0);
        for f in cases {
            if f.counted == 0 {
                empty += 1;
            } else {
                shares.push(f.share());
            }
            wrong += f.wrong;
            errors += f.errors;
        }
        shares.sort_by(f64::total_cmp);
        let n = shares.len();
        let median = match n {
            0 => 1.0,
            _ if n % 2 == 1 => shares[n / 2],
            _ => (shares[n / 2 - 1] + shares[n / 2]) / 2.0,
        };
        Distribution {
            cases: n,
            empty,
            median,
            worst: shares.first().copied().unwrap_or(1.0),
            at_95: shares.iter().filter(|&&s| s >= 0.95).count(),
            wrong,
            errors,
        }
    }

    /// The share of cases at 95 % or more, 0..=1.
    pub fn share_at_95(&self) -> f64 {
        if self.cases == 0 {
            1.0
        } else {
            self.at_95 as f64 / self.cases as f64
        }
    }
}

/// How a pass count is named after a capture or a case: nothing for one pass, ` (-2)` for two.
pub fn label(passes: Passes) -> &'static str {
    match passes {
        Passes::One => "",
        Passes::Two => " (-2)",
    }
}
