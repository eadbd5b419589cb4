//! Scoring the Quake 3 key recovery on a set of captures (issue 37): each capture decoded whole
//! once, then each of its shortened cases ([`recovery::case_frames`]) decoded in one pass, two
//! (`-2`) or both, and compared with the whole decode ([`recovery::measure_in`]). The
//! `score_quake3` binary prints the result as one table and its distribution;
//! `tests/quake3_corpus.rs` asserts it on the shipped subset of the corpus.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use crate::par::each_parallel;
use crate::recovery::{self, Distribution, Figures, Passes};

/// One capture's cases, each measured once per pass count asked for.
pub struct CaptureScore {
    /// The capture's file name.
    pub capture: String,
    pub frames: usize,
    /// Game messages of the whole capture's decode, and those of them still keyed: the whole
    /// decode is the reference, so a keyed one there is a message no case can be judged on.
    pub full_messages: usize,
    pub full_keyed: usize,
    pub full_errors: usize,
    /// Each case's name and its figures, one per entry of the pass counts asked for.
    pub cases: Vec<(String, Vec<Figures>)>,
}

/// The pcap files of `paths`: each file as given, each folder's `*.pcap` files, sorted by name.
pub fn captures_in(paths: &[PathBuf]) -> std::io::Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for p in paths {
        if p.is_dir() {
            let mut found: Vec<PathBuf> = std::fs::read_dir(p)?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|f| f.extension().is_some_and(|x| x == "pcap"))
                .collect();
            found.sort();
            out.extend(found);
        } else {
            out.push(p.clone());
        }
    }
    Ok(out)
}

/// Scores `capture` on the cases `pick` keeps (by index in [`recovery::case_frames`]), each
/// decoded once per entry of `passes`, the cases spread over the cores.
pub fn score_capture(
    capture: &Path,
    passes: &[Passes],
    pick: impl Fn(usize) -> bool + Sync,
) -> Result<CaptureScore, String> {
    let name = capture.to_string_lossy().into_owned();
    let bytes = std::fs::read(capture).map_err(|e| format!("{name}: {e}"))?;
    let p = recovery::parse_pcap(&bytes).map_err(|e| format!("{name}: {e}"))?;
    let all: Vec<u64> = (1..=p.records.len() as u64).collect();
    let full = recovery::decode(&bytes, &all, &name);
    let cases: Vec<(usize, (String, Vec<bool>))> = recovery::case_frames(p.records.len())
        .into_iter()
        .enumerate()
        .filter(|(i, _)| pick(*i))
        .collect();
    let jobs: Vec<(usize, Passes)> = (0..cases.len())
        .flat_map(|c| passes.iter().map(move |&pass| (c, pass)))
        .collect();
    let measured = each_parallel(&jobs, |&(c, pass)| {
        let keep = &cases[c].1.1;
        recovery::measure_in(&p, &full, (&name, pass), |i| keep[i])
    });
    let mut measured = measured.into_iter();
    let cases = cases
        .into_iter()
        .map(|(_, (case, _))| (case, measured.by_ref().take(passes.len()).collect()))
        .collect();
    Ok(CaptureScore {
        capture: capture
            .file_name()
            .map_or(name.clone(), |f| f.to_string_lossy().into_owned()),
        frames: p.records.len(),
        full_messages: full.messages.len(),
        full_keyed: (full.messages.values())
            .filter(|m| m.msg_type == "keyed")
            .count(),
        full_errors: full.errors.len(),
        cases,
    })
}

/// The distribution of every case of `scores` under the `k`-th pass count.
pub fn distribution(scores: &[CaptureScore], k: usize) -> Distribution {
    Distribution::of(scores.iter().flat_map(|s| s.cases.iter().map(|c| &c.1[k])))
}

fn percent(part: usize, whole: usize) -> f64 {
    if whole == 0 {
        100.0
    } else {
        100.0 * part as f64 / whole as f64
    }
}

fn pass_heading(pass: Passes) -> &'static str {
    match pass {
        Passes::One => "one pass",
        Passes::Two => "-2",
    }
}

/// The table: a row per case (game messages counted, then per pass count exact %, keyed %,
/// messages with a wrong value, `error` notes), a row per capture for its whole decode, then
/// the distribution of the cases per pass count.
pub fn table(scores: &[CaptureScore], passes: &[Passes]) -> String {
    let mut out = String::new();
    let _ = write!(out, "{:<28} {:<30} {:>6}", "capture", "case", "msgs");
    for &pass in passes {
        let _ = write!(out, " | {:<8} exact%  keyed% wrong err", pass_heading(pass));
    }
    out.push('\n');
    for s in scores {
        let _ = writeln!(
            out,
            "{:<28} {:<30} {:>6} | whole capture: {} frames, {} game messages, {} keyed, {} error notes",
            s.capture,
            "(whole)",
            s.full_messages,
            s.frames,
            s.full_messages,
            s.full_keyed,
            s.full_errors
        );
        for (case, figures) in &s.cases {
            let counted = figures.first().map_or(0, |f| f.counted);
            let _ = write!(out, "{:<28} {:<30} {counted:>6}", s.capture, case);
            for f in figures {
                let _ = write!(
                    out,
                    " | {:>15.1} {:>7.1} {:>5} {:>3}",
                    100.0 * f.share(),
                    percent(f.counted - f.dekeyed.min(f.counted), f.counted),
                    f.wrong,
                    f.errors
                );
            }
            out.push('\n');
        }
    }
    out.push('\n');
    for (k, &pass) in passes.iter().enumerate() {
        out.push_str(&distribution_line(
            pass_heading(pass),
            &distribution(scores, k),
        ));
        out.push('\n');
    }
    out
}

/// One line of a distribution: the figures issue 37 is judged by.
pub fn distribution_line(what: &str, d: &Distribution) -> String {
    format!(
        "{what}: {} cases ({} more count no message), median {:.1} % exact, worst {:.1} %, {} cases ({:.0} %) at 95 % or more, {} messages with a wrong value, {} error notes",
        d.cases,
        d.empty,
        100.0 * d.median,
        100.0 * d.worst,
        d.at_95,
        100.0 * d.share_at_95(),
        d.wrong,
        d.errors
    )
}

/// The profile of a corpus capture: its file stem less the session number (`q3-idle-01.pcap`
/// → `q3-idle`).
pub fn profile_of(capture: &str) -> &str {
    let stem = capture.strip_suffix(".pcap").unwrap_or(capture);
    match stem.rsplit_once('-') {
        Some((profile, n)) if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) => profile,
        _ => stem,
    }
}

/// A row per profile: its sessions, cases, and per pass count the median case and the worst.
pub fn profiles(scores: &[CaptureScore], passes: &[Passes]) -> String {
    let mut names: Vec<&str> = scores.iter().map(|s| profile_of(&s.capture)).collect();
    names.dedup();
    let mut out = format!("{:<20} {:>8} {:>5}", "profile", "sessions", "cases");
    for &pass in passes {
        let _ = write!(out, " | {:<8} median  worst  >=95%", pass_heading(pass));
    }
    out.push('\n');
    for name in names {
        let of: Vec<&CaptureScore> = (scores.iter())
            .filter(|s| profile_of(&s.capture) == name)
            .collect();
        let cases: usize = of.iter().map(|s| s.cases.len()).sum();
        let _ = write!(out, "{name:<20} {:>8} {cases:>5}", of.len());
        for k in 0..passes.len() {
            let d = Distribution::of(of.iter().flat_map(|s| s.cases.iter().map(|c| &c.1[k])));
            let _ = write!(
                out,
                " | {:>15.1} {:>6.1} {:>5}",
                100.0 * d.median,
                100.0 * d.worst,
                d.at_95
            );
        }
        out.push('\n');
    }
    out
}

/// The cases as JSON lines (one object per case and pass count), then one object per pass
/// count with the distribution.
pub fn json_lines(scores: &[CaptureScore], passes: &[Passes]) -> String {
    let mut out = String::new();
    for s in scores {
        for (case, figures) in &s.cases {
            for (f, &pass) in figures.iter().zip(passes) {
                let v = serde_json::json!({
                    "capture": s.capture, "case": case, "passes": pass_count(pass),
                    "counted": f.counted, "exact": f.exact, "dekeyed": f.dekeyed,
                    "wrong": f.wrong, "errors": f.errors,
                });
                let _ = writeln!(out, "{v}");
            }
        }
    }
    for (k, &pass) in passes.iter().enumerate() {
        let d = distribution(scores, k);
        let v = serde_json::json!({
            "distribution": pass_count(pass), "cases": d.cases, "empty": d.empty,
            "median": d.median,
            "worst": d.worst, "at_95": d.at_95, "wrong": d.wrong, "errors": d.errors,
        });
        let _ = writeln!(out, "{v}");
    }
    out
}

fn pass_count(pass: Passes) -> u8 {
    match pass {
        Passes::One => 1,
        Passes::Two => 2,
    }
}

#[cfg(test)]
mod tests {
    use super::profile_of;
    use crate::recovery::{Distribution, Figures};

    fn case(exact: usize, counted: usize, wrong: usize, errors: usize) -> Figures {
        Figures {
            exact,
            counted,
            wrong,
            errors,
            ..Figures::default()
        }
    }

    #[test]
    fn a_distribution_has_the_median_worst_and_share_at_95() {
        let odd = [
            case(50, 100, 1, 0),
            case(99, 100, 0, 2),
            case(95, 100, 0, 0),
        ];
        let d = Distribution::of(&odd);
        assert_eq!((d.cases, d.median, d.worst, d.at_95), (3, 0.95, 0.5, 2));
        assert_eq!((d.wrong, d.errors), (1, 2));
        let even = [case(10, 100, 0, 0), case(30, 100, 0, 0)];
        let d = Distribution::of(&even);
        assert_eq!((d.median, d.worst, d.at_95), (0.2, 0.1, 0));
        assert_eq!(d.share_at_95(), 0.0);
        // A case with no message counted is left out of the shares.
        let d = Distribution::of(&[case(0, 0, 0, 0), case(90, 100, 0, 0)]);
        assert_eq!((d.cases, d.empty, d.median, d.at_95), (1, 1, 0.9, 0));
    }

    #[test]
    fn a_profile_is_the_stem_less_its_number() {
        assert_eq!(profile_of("q3-idle-01.pcap"), "q3-idle");
        assert_eq!(profile_of("q3-fast-tdm-12.pcap"), "q3-fast-tdm");
        assert_eq!(
            profile_of("quake3-openarena-busy.pcap"),
            "quake3-openarena-busy"
        );
        assert_eq!(profile_of("x-.pcap"), "x-");
    }
}
