//! The recovery corpus's shipped subset (`captures/corpus/`; docs/protocols/quake3.md "Recovery
//! corpus"), scored as `score_quake3` scores the whole corpus: each session cut at every 10 % of
//! its frames and thinned by 5 % and 20 % seeded loss, decoded in one pass (the default decode)
//! and compared message by message with the decode of the whole capture
//! (`testkit::score::score_capture`). What was measured when the subset was chosen is a floor: no
//! case may show an `error` note or a value the whole decode contradicts, each case's messages
//! are the ones counted then, and none may decode fewer of them exactly.

use std::path::Path;

use testkit::recovery::{Distribution, Passes};
use testkit::score::{CaptureScore, score_capture};

/// Each shipped session: its file and, per case of `testkit::recovery::case_frames` in order,
/// the game messages counted and those decoded exactly when the subset was chosen.
const FLOOR: &[(&str, &[(usize, usize)])] = &[
    (
        "q3-longinfo-01.pcap",
        &[
            (2493, 2405), // cut at 10 % (frame 301)
            (2192, 0),    // cut at 20 % (frame 601)
            (1892, 102),  // cut at 30 % (frame 901)
            (1595, 0),    // cut at 40 % (frame 1201)
            (1294, 1056), // cut at 50 % (frame 1501)
            (1005, 1005), // cut at 60 % (frame 1801)
            (690, 106),   // cut at 70 % (frame 2101)
            (394, 0),     // cut at 80 % (frame 2401)
            (87, 0),      // cut at 90 % (frame 2701)
            (2730, 2730), // 5 % of frames lost
            (1237, 0),    // cut at 50 % and 5 % lost
            (2301, 2107), // 20 % of frames lost
            (1052, 0),    // cut at 50 % and 20 % lost
        ],
    ),
    (
        "q3-multi3-01.pcap",
        &[
            (2486, 2486), // cut at 10 % (frame 301)
            (2192, 2127), // cut at 20 % (frame 601)
            (1890, 1890), // cut at 30 % (frame 901)
            (1586, 1586), // cut at 40 % (frame 1201)
            (1289, 1241), // cut at 50 % (frame 1501)
            (864, 864),   // cut at 60 % (frame 1801)
            (503, 0),     // cut at 70 % (frame 2101)
            (200, 0),     // cut at 80 % (frame 2401)
            (0, 0),       // cut at 90 % (frame 2701)
            (2797, 2796), // 5 % of frames lost
            (1233, 1184), // cut at 50 % and 5 % lost
            (2360, 2311), // 20 % of frames lost
            (1047, 958),  // cut at 50 % and 20 % lost
        ],
    ),
    (
        "q3-proto68-01.pcap",
        &[
            (2480, 2480), // cut at 10 % (frame 301)
            (2185, 2123), // cut at 20 % (frame 601)
            (1877, 1877), // cut at 30 % (frame 901)
            (1601, 1601), // cut at 40 % (frame 1201)
            (1294, 1294), // cut at 50 % (frame 1501)
            (999, 839),   // cut at 60 % (frame 1801)
            (693, 693),   // cut at 70 % (frame 2101)
            (396, 396),   // cut at 80 % (frame 2401)
            (95, 95),     // cut at 90 % (frame 2701)
            (2785, 2777), // 5 % of frames lost
            (1237, 1237), // cut at 50 % and 5 % lost
            (2354, 2354), // 20 % of frames lost
            (1052, 0),    // cut at 50 % and 20 % lost
        ],
    ),
];

/// The subset's cases, how many of them reached 95 % exact, and the median case's exact share
/// (97.1 %) when the subset was chosen; one case, cut at 90 % of the multi-client session, counts
/// no message and is left out of the shares.
const CASES: usize = 39;
const AT_95: usize = 23;
const MEDIAN: f64 = 0.970;

fn score(capture: &str) -> CaptureScore {
    let path = Path::new("captures/corpus").join(capture);
    score_capture(&path, &[Passes::One], |_| true).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn the_corpus_subset_keeps_its_floor() {
    let scores: Vec<CaptureScore> = FLOOR.iter().map(|(c, _)| score(c)).collect();
    for (s, (capture, floor)) in scores.iter().zip(FLOOR) {
        assert_eq!(
            (s.full_keyed, s.full_errors),
            (0, 0),
            "{capture}: the whole decode"
        );
        assert_eq!(s.cases.len(), floor.len(), "{capture}");
        for ((case, f), &(counted, exact)) in s.cases.iter().zip(*floor) {
            let f = &f[0];
            assert_eq!((f.wrong, f.errors), (0, 0), "{capture}: {case}");
            assert_eq!(f.counted, counted, "{capture}: {case}");
            assert!(f.exact >= exact, "{capture}: {case}: {} < {exact}", f.exact);
        }
    }
    let d = Distribution::of(scores.iter().flat_map(|s| s.cases.iter().map(|c| &c.1[0])));
    println!("{}", testkit::score::distribution_line("corpus subset", &d));
    assert_eq!((d.cases + d.empty, d.wrong, d.errors), (CASES, 0, 0));
    assert!(d.at_95 >= AT_95, "{} cases at 95 % or more", d.at_95);
    assert!(d.median >= MEDIAN, "median {}", d.median);
}
