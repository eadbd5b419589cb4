//! Golden decodes: every capture in `captures/` has its expected summary output in
//! `tests/golden/<name>.summary` (or, when the summary is over 256 KiB, its digest in
//! `tests/golden/<name>.digest`: counts, sampled lines and a checksum of the whole) and its
//! example records in tree form in `tests/golden/<name>.examples` (the rules:
//! `testkit::dissect::examples` and [`digest`], docs/testing.md), compared byte for byte.
//! `GAMEDISSECT_BLESS=1 cargo test --test suite golden::` rewrites them; review the diff before
//! committing. A capture that needs options has them in
//! `tests/golden/<name>.args`, one argument per line. JSON output is checked for form and
//! agreement with the summary; field values are asserted one field at a time in
//! `tests/<protocol>.rs` and `tests/fields.rs`.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

use gamedissect::digest::fnv1a;
use gamedissect::run::parallel::{Tuning, render_sharded};
use gamedissect::run::{OutputFormat, render};

fn captures() -> Vec<PathBuf> {
    testkit::dissect::shipped_captures()
}

fn stem(p: &Path) -> String {
    p.file_stem().unwrap().to_string_lossy().into_owned()
}

fn config_for(capture: &Path) -> gamedissect::engine::Config {
    testkit::dissect::config_for(capture)
}

/// A capture rendered in one format on one thread, with the input error that ended it (as
/// text). Several tests compare against the same renders: each is made once per test run, by
/// the first test to ask (the others wait for it), and shared.
fn rendered(cap: &Path, format: OutputFormat) -> &'static (String, Option<String>) {
    type Cell = &'static OnceLock<(String, Option<String>)>;
    static RENDERS: Mutex<BTreeMap<String, Cell>> = Mutex::new(BTreeMap::new());
    let key = format!("{} {format:?}", cap.display());
    let cell = {
        let mut renders = RENDERS.lock().unwrap_or_else(|e| e.into_inner());
        *renders
            .entry(key)
            .or_insert_with(|| Box::leak(Box::new(OnceLock::new())))
    };
    cell.get_or_init(|| {
        let bytes = fs::read(cap).unwrap();
        let (out, err) = render(&bytes, format, config_for(cap));
        (out, err.map(|e| e.to_string()))
    })
}

/// A summary longer than this is kept as its [`digest`] instead of whole.
const WHOLE_SUMMARY_MAX: usize = 256 * 1024;

/// Summary lines a digest keeps: the first `DIGEST_HEAD`, the last `DIGEST_TAIL`, every
/// `DIGEST_EVERY`th, every line with a bracketed marker (a note, a reassembly) and every line
/// quoting a text (a command: chat, print, a configstring).
const DIGEST_HEAD: usize = 20;
const DIGEST_TAIL: usize = 10;
const DIGEST_EVERY: usize = 500;

/// The golden form of a summary too long to review whole: its size and checksum (so that any
/// change of any byte fails), the records and notes the tree decode counts (`counts`, from
/// `testkit::dissect::examples_and_counts`: where a change is), and a sample of its lines,
/// each after its line number (what a change looks like).
fn digest(cap: &Path, summary: &str, counts: &str) -> String {
    let lines: Vec<&str> = summary.lines().collect();
    let n = lines.len();
    let mut out = String::new();
    let _ = writeln!(
        out,
        "# {}: `dissect` summary over {} KiB, kept as a digest (docs/testing.md, \"Golden files\")",
        cap.display(),
        WHOLE_SUMMARY_MAX / 1024
    );
    let _ = writeln!(out, "lines {n}");
    let _ = writeln!(out, "bytes {}", summary.len());
    let _ = writeln!(out, "fnv1a64 {:016x}", fnv1a(summary.as_bytes()));
    out.push_str("# records per protocol, message type and direction; notes per protocol, severity and name\n");
    out.push_str(counts);
    let _ = writeln!(
        out,
        "# summary lines: the first {DIGEST_HEAD}, every {DIGEST_EVERY}th, each with a [marker] or a \"text\", the last {DIGEST_TAIL}"
    );
    for (i, line) in lines.iter().enumerate() {
        let k = i + 1;
        let marked = line.contains(" [") || line.contains('"');
        if k <= DIGEST_HEAD || k % DIGEST_EVERY == 0 || marked || k + DIGEST_TAIL > n {
            let _ = writeln!(out, "{k}: {line}");
        }
    }
    out
}

fn first_difference(want: &str, got: &str) -> String {
    for (i, (w, g)) in want.lines().zip(got.lines()).enumerate() {
        if w != g {
            return format!("line {}:\n  want: {w}\n  got:  {g}", i + 1);
        }
    }
    format!(
        "line counts differ: want {}, got {}",
        want.lines().count(),
        got.lines().count()
    )
}

/// Compares `out` with the golden file `name` (or rewrites it when blessing); a mismatch is
/// pushed to `failures`, and `false` returned.
fn check_golden(name: &Path, out: &str, bless: bool, failures: &mut Vec<String>) -> bool {
    if bless {
        fs::write(name, out).unwrap();
        return true;
    }
    match fs::read_to_string(name) {
        Ok(want) if want == out => return true,
        Ok(want) => failures.push(format!(
            "{}: {}",
            name.display(),
            first_difference(&want, out)
        )),
        Err(_) => failures.push(format!("{}: missing", name.display())),
    }
    false
}

/// The golden files a capture may have: its summary whole, its summary's digest, its example
/// records.
fn golden_files(cap: &Path) -> [PathBuf; 3] {
    let dir = Path::new(testkit::dissect::GOLDEN_DIR);
    [
        dir.join(format!("{}.summary", stem(cap))),
        dir.join(format!("{}.digest", stem(cap))),
        dir.join(format!("{}.examples", stem(cap))),
    ]
}

#[test]
fn every_capture_matches_its_golden_decode() {
    let bless = std::env::var_os("GAMEDISSECT_BLESS").is_some();
    let mut failures = Vec::new();
    let mut expected_files = Vec::new();
    for cap in captures() {
        let bytes = fs::read(&cap).unwrap();
        let [summary_file, digest_file, examples_file] = golden_files(&cap);
        let (summary, err) = rendered(&cap, OutputFormat::Summary);
        let mut summary = summary.clone();
        if let Some(e) = err {
            summary.push_str(&format!("input error: {e}\n"));
        }
        let (examples, counts) = testkit::dissect::examples_and_counts(&bytes, config_for(&cap));
        if summary.len() <= WHOLE_SUMMARY_MAX {
            check_golden(&summary_file, &summary, bless, &mut failures);
            expected_files.push(summary_file);
        } else {
            let digest = digest(&cap, &summary, &counts);
            if !check_golden(&digest_file, &digest, bless, &mut failures) {
                // The whole summary, to compare with the previous commit's.
                let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("golden");
                fs::create_dir_all(&dir).unwrap();
                let whole = dir.join(format!("{}.summary", stem(&cap)));
                fs::write(&whole, &summary).unwrap();
                failures.push(format!("  (the whole summary is in {})", whole.display()));
            }
            expected_files.push(digest_file);
        }
        check_golden(&examples_file, &examples, bless, &mut failures);
        expected_files.push(examples_file);
    }
    for f in fs::read_dir(testkit::dissect::GOLDEN_DIR).unwrap() {
        let p = f.unwrap().path();
        let ext = p.extension().and_then(|e| e.to_str()).unwrap_or("");
        if ext != "args" && !expected_files.contains(&p) {
            failures.push(format!(
                "{}: no capture in captures/ for this golden file",
                p.display()
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} golden mismatch(es); if the change is intended, rerun with GAMEDISSECT_BLESS=1 and review the diff:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Splitting flows between threads must not change a byte of any output.
#[test]
fn every_capture_decodes_the_same_on_several_threads() {
    for cap in captures() {
        let bytes = fs::read(&cap).unwrap();
        for format in [
            OutputFormat::Summary,
            OutputFormat::Json,
            OutputFormat::Tree,
        ] {
            let (one, one_err) = rendered(&cap, format);
            for shards in [2, 3] {
                let (many, err) =
                    render_sharded(&bytes, format, config_for(&cap), shards, Tuning::default());
                assert_eq!(
                    *one_err,
                    err.map(|e| e.to_string()),
                    "{} {format:?} {shards}",
                    cap.display()
                );
                assert!(
                    *one == many,
                    "{} {format:?} on {shards} threads: {}",
                    cap.display(),
                    first_difference(one, &many)
                );
            }
        }
    }
}

/// The same with the pipeline shrunk to a few bytes, so that shards run dry of input, hand over
/// tiny batches and fill every queue: the paths where a pipeline would deadlock or reorder.
#[test]
fn a_tiny_pipeline_still_gives_identical_output() {
    let tiny = Tuning {
        block: 61,
        blocks_queued: 1,
        batch_bytes: 97,
        batches_queued: 1,
    };
    for name in ["quake3-ioq3-protocol", "flightgear-v2-pair", "udp-mixed"] {
        let cap = captures()
            .into_iter()
            .find(|c| stem(c) == name)
            .unwrap_or_else(|| panic!("{name}"));
        let bytes = fs::read(&cap).unwrap();
        let (one, _) = rendered(&cap, OutputFormat::Json);
        for shards in [2, 4] {
            let (many, _) =
                render_sharded(&bytes, OutputFormat::Json, config_for(&cap), shards, tiny);
            assert!(
                *one == many,
                "{name} on {shards} threads: {}",
                first_difference(one, &many)
            );
        }
    }
}

/// JSON output of every capture: each line parses, has exactly the documented top-level keys,
/// and the records are the summary's lines, in the same order, with the same protocol and
/// summary (the summary mode decodes without field trees, JSON with them).
#[test]
fn json_output_parses_and_agrees_with_the_summary() {
    for cap in captures() {
        let (json, json_err) = rendered(&cap, OutputFormat::Json);
        let (summary, summary_err) = rendered(&cap, OutputFormat::Summary);
        assert_eq!(json_err, summary_err, "{}", cap.display());
        let lines: Vec<&str> = summary.lines().collect();
        let records: Vec<serde_json::Value> = json
            .lines()
            .enumerate()
            .map(|(i, l)| {
                serde_json::from_str(l)
                    .unwrap_or_else(|e| panic!("{} JSON line {}: {e}", cap.display(), i + 1))
            })
            .collect();
        assert_eq!(lines.len(), records.len(), "{}", cap.display());
        for (line, rec) in lines.iter().zip(&records) {
            let keys: Vec<&str> = rec
                .as_object()
                .unwrap()
                .keys()
                .map(|k| k.as_str())
                .collect();
            assert_eq!(
                keys,
                [
                    "direction",
                    "dst",
                    "fields",
                    "flow",
                    "frame",
                    "length",
                    "notes",
                    "protocol",
                    "src",
                    "summary",
                    "time",
                    "time_epoch",
                    "time_relative",
                    "type"
                ],
                "{}",
                cap.display()
            );
            // JSON holds the text as it is; the summary line, escaped (docs/output.md "Escaping").
            let want = format!(
                " {} {}",
                rec["protocol"].as_str().unwrap(),
                gamedissect::text::escaped(rec["summary"].as_str().unwrap())
            );
            assert!(
                line.contains(&want),
                "{}: {line:?} does not contain {want:?}",
                cap.display()
            );
        }
    }
}

#[test]
fn docs_fields_md_is_generated_from_the_code() {
    let want = gamedissect::commands::reference::fields_markdown(&gamedissect::protocols::all());
    if std::env::var_os("GAMEDISSECT_BLESS").is_some() {
        fs::write("docs/fields.md", &want).unwrap();
        return;
    }
    let have = fs::read_to_string("docs/fields.md").unwrap_or_default();
    assert!(
        have == want,
        "docs/fields.md is out of date: run `cargo run -- fields --markdown > docs/fields.md` (or GAMEDISSECT_BLESS=1 cargo test)\n{}",
        first_difference(&want, &have)
    );
}

/// A field that has a value and children renders as an object holding `value` (and `name` for an
/// enum) beside its children, so no child of a valued field may itself be keyed `value` or `name`.
/// Names must also be unique and use only lower-case letters, digits, `_` and `.`.
#[test]
fn field_names_are_unique_and_never_collide_in_json() {
    let registry = gamedissect::protocols::all();
    let all = gamedissect::proto::all_fields(&registry);
    let defs: Vec<&gamedissect::tree::FieldDef> =
        all.iter().flat_map(|(_, _, f)| f.iter().copied()).collect();
    let mut seen = std::collections::BTreeSet::new();
    for d in &defs {
        assert!(seen.insert(d.name), "field {} is declared twice", d.name);
        let ok = d
            .name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' || c == '.');
        assert!(
            ok && !d.name.contains("._") && !d.name.contains("_."),
            "field name {:?} breaks the naming rules",
            d.name
        );
    }
    for p in &defs {
        if p.kind == gamedissect::tree::Kind::Group {
            continue;
        }
        for c in &defs {
            if let Some(rest) = c
                .name
                .strip_prefix(p.name)
                .and_then(|r| r.strip_prefix('.'))
            {
                assert!(
                    rest != "value" && rest != "name",
                    "{} would collide with the value of {}",
                    c.name,
                    p.name
                );
            }
        }
    }
}

/// The hand-made captures are what their generators in `testkit::captures` write today.
#[test]
fn handmade_captures_equal_their_generators() {
    for (name, bytes) in testkit::captures::all() {
        let path = Path::new("captures").join(name);
        let have = fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert!(
            have == bytes,
            "{} differs from its generator: run `cargo run -p testkit --bin gen_captures`",
            path.display()
        );
    }
}

/// Every note any shipped capture produces is of a registered kind, listed where the field
/// reference finds it: the protocol's own notes, or the plumbing's and the toolkit's.
#[test]
fn every_note_is_registered_with_its_protocol() {
    let registry = gamedissect::protocols::all();
    let mut kinds = std::collections::BTreeSet::new();
    for cap in captures() {
        let bytes = fs::read(&cap).unwrap();
        testkit::dissect::each_record(&bytes, config_for(&cap), |_, rec| {
            let own = registry
                .iter()
                .find(|p| p.info().name == rec.protocol)
                .map_or(&[][..], |p| p.info().notes);
            for n in &rec.notes {
                let listed = own.contains(&n.def)
                    || gamedissect::toolkit::udp::NOTES.contains(&n.def)
                    || gamedissect::wire::NOTES.contains(&n.def);
                assert!(listed, "{}: {} is not listed", cap.display(), n.name());
                assert!(n.name().starts_with("expert."), "{}", n.name());
                kinds.insert(n.name());
            }
        });
    }
    // The broken and hand-made captures exercise a good part of the registry.
    assert!(kinds.len() >= 20, "{kinds:?}");
}

/// Note names are unique across the registry.
#[test]
fn note_names_are_unique() {
    let mut names: Vec<&str> = gamedissect::toolkit::udp::NOTES
        .iter()
        .chain(gamedissect::wire::NOTES)
        .map(|n| n.name)
        .collect();
    for p in gamedissect::protocols::all() {
        names.extend(p.info().notes.iter().map(|n| n.name));
    }
    let total = names.len();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), total, "a note name is registered twice");
}

/// The digest's checksum is FNV-1a 64 (the published test values: the empty string and "a").
#[test]
fn the_digest_checksum_is_fnv1a() {
    assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
    assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
    assert_eq!(fnv1a(b"foobar"), 0x85944171f73967e8);
}
