//! `cargo run --release -p testkit --bin score_quake3 -- DIR... [--passes 1|2|both] [--json]`:
//! scores the Quake 3 key recovery on every `*.pcap` of the folders (or the files) given. Each
//! capture is cut at every 10 % of its frames and thinned by 5 % and 20 % seeded loss
//! (`testkit::recovery::case_frames`); every case is decoded in one pass, with `-2`, or both, and
//! compared message by message with the decode of the whole capture. Prints one table (a row
//! per case: exact %, keyed %, messages with a wrong value, `error` notes), a row per profile,
//! and the distribution of the cases: median, worst, share at 95 % or more, totals.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, ValueEnum};
use testkit::recovery::Passes;
use testkit::score;

#[derive(Clone, Copy, ValueEnum)]
enum PassesArg {
    #[value(name = "1")]
    One,
    #[value(name = "2")]
    Two,
    Both,
}

#[derive(Parser)]
#[command(about = "Scores the Quake 3 key recovery on cut and thinned captures")]
struct Args {
    /// Folders of captures (their *.pcap files) or capture files.
    #[arg(required = true)]
    paths: Vec<PathBuf>,
    /// Decode each case in one pass, two (as `-2`), or both.
    #[arg(long, value_enum, default_value = "both")]
    passes: PassesArg,
    /// JSON lines instead of the table: one object per case and pass count, then the
    /// distributions.
    #[arg(long)]
    json: bool,
}

fn main() -> ExitCode {
    let args = Args::parse();
    let passes = match args.passes {
        PassesArg::One => vec![Passes::One],
        PassesArg::Two => vec![Passes::Two],
        PassesArg::Both => vec![Passes::One, Passes::Two],
    };
    let captures = match score::captures_in(&args.paths) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("score_quake3: {e}");
            return ExitCode::from(2);
        }
    };
    let mut scores = Vec::new();
    for c in &captures {
        let started = std::time::Instant::now();
        match score::score_capture(c, &passes, |_| true) {
            Ok(s) => {
                eprintln!("{}: {:.1} s", c.display(), started.elapsed().as_secs_f64());
                scores.push(s);
            }
            Err(e) => eprintln!("score_quake3: skipped {e}"),
        }
    }
    if args.json {
        print!("{}", score::json_lines(&scores, &passes));
    } else {
        print!("{}", score::table(&scores, &passes));
        println!();
        print!("{}", score::profiles(&scores, &passes));
    }
    ExitCode::SUCCESS
}
