//! Stray datagrams (random bytes, bit flips, truncated copies, replays, header-valid forgeries;
//! `testkit::inject`) slipped into every shipped capture of the four protocols, in both
//! directions and at several places, must leave every genuine message decoding as it did
//! without them (see "Trust" in `docs/architecture.md`). The `*-broken` captures are left out:
//! they are made of malformed datagrams, so "genuine" has no meaning there.

use std::path::Path;

use gamedissect::tree::Field;
use testkit::dissect::{config_for, each_record, shipped_captures, value_text};
use testkit::inject::{Kind, inject};

/// Strays per capture and kind.
const STRAYS: usize = 6;

/// Per genuine frame (0-based index among the genuine frames), its records as text: message
/// type, summary and every field's name and value (no positions, no notes).
fn genuine_records(bytes: &[u8], genuine: &[bool], path: &Path) -> Vec<(usize, String)> {
    let mut index = Vec::with_capacity(genuine.len());
    let mut n = 0;
    for &g in genuine {
        index.push(g.then_some(n));
        n += usize::from(g);
    }
    let mut out = Vec::new();
    each_record(bytes, config_for(path), |m, r| {
        if let Some(Some(i)) = index.get(m.frame as usize - 1) {
            let mut s = format!("{} | {}", r.msg_type, r.summary);
            flatten(&r.fields, &mut s);
            out.push((*i, s));
        }
    });
    out
}

fn flatten(fields: &[Field], out: &mut String) {
    for f in fields {
        out.push_str(" | ");
        out.push_str(f.def.name);
        if let Some(v) = value_text(f) {
            out.push('=');
            // A basis names frames and counts datagrams, which the strays shift.
            if f.def.name.ends_with("_basis") {
                let mut digits = false;
                for c in v.chars() {
                    if !c.is_ascii_digit() {
                        out.push(c);
                    } else if !digits {
                        out.push('#');
                    }
                    digits = c.is_ascii_digit();
                }
            } else {
                out.push_str(&v);
            }
        }
        flatten(&f.children, out);
    }
}

/// A capture's records without strays.
fn plain(path: &Path) -> Vec<(usize, String)> {
    let bytes = std::fs::read(path).unwrap();
    let all = vec![true; testkit::inject::read_pcap(&bytes).1.len()];
    genuine_records(&bytes, &all, path)
}

/// Genuine records that differ from `before` with the strays of `kind` in, and the first
/// difference.
fn changed(path: &Path, before: &[(usize, String)], kind: Kind) -> (usize, Option<String>) {
    let bytes = std::fs::read(path).unwrap();
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    let (injected, genuine) = inject(&bytes, &name, kind, STRAYS, 0x5eed ^ name.len() as u64);
    let after = genuine_records(&injected, &genuine, path);
    let mut diffs = 0;
    let mut first = None;
    let len = before.len().max(after.len());
    for i in 0..len {
        if before.get(i) != after.get(i) {
            diffs += 1;
            first.get_or_insert_with(|| format!("{:?}\n  vs\n{:?}", before.get(i), after.get(i)));
        }
    }
    (diffs, first)
}

fn captures(prefixes: &[&str]) -> Vec<std::path::PathBuf> {
    shipped_captures()
        .into_iter()
        .filter(|p| {
            let n = p.file_name().unwrap().to_string_lossy();
            n.ends_with(".pcap")
                && !n.contains("-broken")
                && prefixes.iter().any(|x| n.starts_with(x))
        })
        .collect()
}

#[test]
fn strays_leave_every_genuine_record_alone() {
    let failures = std::sync::Mutex::new(Vec::new());
    let paths = captures(&["srb2-", "flightgear-", "gamestudio-", "quake3-"]);
    testkit::par::each_parallel(&paths, |path| {
        let before = plain(path);
        for kind in Kind::ALL {
            let (n, first) = changed(path, &before, kind);
            if n > 0 {
                failures.lock().unwrap().push(format!(
                    "{} {kind:?}: {n} genuine records changed; first:\n{}",
                    path.display(),
                    first.unwrap_or_default()
                ));
            }
        }
    });
    let failures = failures.into_inner().unwrap();
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
