//! Golden decodes: every capture in `captures/` has its expected `summary` and `json` output in
//! `tests/golden/<name>.summary` and `tests/golden/<name>.json`, compared byte for byte.
//! `GAMEDISSECT_BLESS=1 cargo test --test golden` rewrites them; review the diff before committing.
//! A capture that needs options has them in `tests/golden/<name>.args`, one argument per line.

use std::fs;
use std::path::{Path, PathBuf};

use clap::Parser;
use gamedissect::cli::{Cli, Command, config_from};
use gamedissect::parallel::{Tuning, render_sharded};
use gamedissect::run::{OutputFormat, render};

fn captures() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = fs::read_dir("captures")
        .expect("captures/ exists")
        .map(|e| e.unwrap().path())
        .filter(|p| {
            matches!(
                p.extension().and_then(|e| e.to_str()),
                Some("pcap" | "pcapng")
            )
        })
        .collect();
    v.sort();
    v
}

fn stem(p: &Path) -> String {
    p.file_stem().unwrap().to_string_lossy().into_owned()
}

fn config_for(capture: &Path) -> gamedissect::engine::Config {
    let args_file = Path::new("tests/golden").join(format!("{}.args", stem(capture)));
    let mut argv = vec!["gamedissect".to_string(), "dissect".to_string()];
    if let Ok(text) = fs::read_to_string(&args_file) {
        argv.extend(
            text.lines()
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .map(String::from),
        );
    }
    argv.push(capture.to_string_lossy().into_owned());
    let cli = Cli::try_parse_from(&argv).unwrap_or_else(|e| panic!("{}: {e}", args_file.display()));
    let Command::Dissect(a) = cli.command else {
        unreachable!()
    };
    config_from(&a.decode, &gamedissect::protocols::all())
        .unwrap_or_else(|e| panic!("{}: {}", args_file.display(), e.0))
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

#[test]
fn every_capture_matches_its_golden_decode() {
    let bless = std::env::var_os("GAMEDISSECT_BLESS").is_some();
    let mut failures = Vec::new();
    let mut expected_files = Vec::new();
    for cap in captures() {
        let bytes = fs::read(&cap).unwrap();
        for (format, ext) in [
            (OutputFormat::Summary, "summary"),
            (OutputFormat::Json, "json"),
        ] {
            let (mut out, err) = render(&bytes, format, config_for(&cap));
            if let Some(e) = err {
                out.push_str(&format!("input error: {e}\n"));
            }
            let golden = Path::new("tests/golden").join(format!("{}.{ext}", stem(&cap)));
            expected_files.push(golden.clone());
            if bless {
                fs::write(&golden, &out).unwrap();
                continue;
            }
            match fs::read_to_string(&golden) {
                Ok(want) if want == out => {}
                Ok(want) => failures.push(format!(
                    "{}: {}",
                    golden.display(),
                    first_difference(&want, &out)
                )),
                Err(_) => failures.push(format!("{}: missing", golden.display())),
            }
        }
    }
    for f in fs::read_dir("tests/golden").unwrap() {
        let p = f.unwrap().path();
        let ext = p.extension().and_then(|e| e.to_str()).unwrap_or("");
        if (ext == "summary" || ext == "json") && !expected_files.contains(&p) {
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
            let (one, err) = render(&bytes, format, config_for(&cap));
            let one_err = err.map(|e| e.to_string());
            for shards in [2, 3] {
                let (many, err) =
                    render_sharded(&bytes, format, config_for(&cap), shards, Tuning::default());
                assert_eq!(
                    one_err,
                    err.map(|e| e.to_string()),
                    "{} {format:?} {shards}",
                    cap.display()
                );
                assert!(
                    one == many,
                    "{} {format:?} on {shards} threads: {}",
                    cap.display(),
                    first_difference(&one, &many)
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
        let (one, _) = render(&bytes, OutputFormat::Json, config_for(&cap));
        for shards in [2, 4] {
            let (many, _) =
                render_sharded(&bytes, OutputFormat::Json, config_for(&cap), shards, tiny);
            assert!(
                one == many,
                "{name} on {shards} threads: {}",
                first_difference(&one, &many)
            );
        }
    }
}

#[test]
fn json_golden_lines_parse_and_have_exactly_the_documented_keys() {
    if std::env::var_os("GAMEDISSECT_BLESS").is_some() {
        return; // the golden files are being rewritten by another test right now
    }
    for cap in captures() {
        let golden = Path::new("tests/golden").join(format!("{}.json", stem(&cap)));
        let Ok(text) = fs::read_to_string(&golden) else {
            continue;
        };
        for (i, line) in text.lines().enumerate() {
            if line.starts_with("input error: ") {
                continue;
            }
            let v: serde_json::Value = serde_json::from_str(line)
                .unwrap_or_else(|e| panic!("{}:{}: {e}", golden.display(), i + 1));
            let keys: Vec<&str> = v.as_object().unwrap().keys().map(|k| k.as_str()).collect();
            assert_eq!(
                keys,
                [
                    "dst", "fields", "frame", "notes", "protocol", "src", "summary", "time"
                ]
            );
        }
    }
}

/// The summary mode decodes without building trees; its lines must say exactly what the JSON
/// records (decoded with trees) say in their `summary`.
#[test]
fn summary_lines_match_the_json_summaries() {
    if std::env::var_os("GAMEDISSECT_BLESS").is_some() {
        return; // the golden files are being rewritten by another test right now
    }
    for cap in captures() {
        let s = Path::new("tests/golden").join(format!("{}.summary", stem(&cap)));
        let j = Path::new("tests/golden").join(format!("{}.json", stem(&cap)));
        let (Ok(summary), Ok(json)) = (fs::read_to_string(&s), fs::read_to_string(&j)) else {
            continue;
        };
        let lines: Vec<&str> = summary
            .lines()
            .filter(|l| !l.starts_with("input error: "))
            .collect();
        let records: Vec<serde_json::Value> = json
            .lines()
            .filter(|l| !l.starts_with("input error: "))
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(lines.len(), records.len(), "{}", cap.display());
        for (line, rec) in lines.iter().zip(&records) {
            let want = format!(
                " {} {}",
                rec["protocol"].as_str().unwrap(),
                rec["summary"].as_str().unwrap()
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
    let want = gamedissect::reference::fields_markdown(&gamedissect::protocols::all());
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
    let all = gamedissect::reference::all_fields(&registry);
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
