//! Helpers for the Quake 3 "from the wild" tests (`tests/quake3_wild.rs`,
//! `tests/quake3_wild_busy.rs`, `tests/quake3_corpus.rs`): captures cut at every 10 % of their
//! frames and thinned by seeded random frame loss, decoded and compared message by message with
//! the decode of the whole capture. What a case measures and how is `testkit::recovery`, shared
//! with the `score_quake3` harness; this module adds what only the tests need.
//!
//! A run of the suite decodes each whole capture once ([`load_full`]) and measures each capture's
//! wild cases once per pass count ([`wild_cases_in`]), whichever tests ask for them: the first
//! to ask computes, the others wait for it and share the result. The cases of one measurement
//! are decoded on as many threads as the machine has (`testkit::par::each_parallel`).

#![allow(dead_code)]

use std::collections::BTreeMap;
use std::sync::{Mutex, OnceLock};

use gamedissect::tree::{Field, Record};
use testkit::dissect::value_text;
pub use testkit::par::each_parallel;
pub use testkit::recovery::*;

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
    let kept = case_frames(p.records.len());
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
