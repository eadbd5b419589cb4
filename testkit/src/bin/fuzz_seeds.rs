//! `cargo run -p testkit --bin fuzz_seeds -- fuzz/corpus`: seeds for the `net` and `decoders`
//! fuzz targets, cut from `captures/` (scripts/fuzz.sh runs this from the repository root).

use std::path::PathBuf;

fn main() {
    let out = PathBuf::from(
        std::env::args()
            .nth(1)
            .unwrap_or_else(|| "fuzz/corpus".into()),
    );
    for dir in ["net", "decoders"] {
        std::fs::create_dir_all(out.join(dir)).expect("create the corpus directories");
    }
    let written = testkit::fuzz_seeds::write(&out);
    eprintln!("wrote {written} decoder seeds");
}
