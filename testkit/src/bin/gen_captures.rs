//! `cargo run -p testkit --bin gen_captures [DIR]`: writes every hand-made capture (SRB2,
//! 3D GameStudio, the FlightGear extras, udp-mixed) into DIR, by default `captures/` of the
//! repository root it is run from. The tests compare the committed files with the same builders.

use std::path::PathBuf;

fn main() {
    let dir = PathBuf::from(std::env::args().nth(1).unwrap_or_else(|| "captures".into()));
    for (name, bytes) in testkit::captures::all() {
        let path = dir.join(name);
        std::fs::write(&path, &bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        println!("wrote {} ({} bytes)", path.display(), bytes.len());
    }
}
