//! `gamedissect demo` on a whole file: the reader, every decoder with field trees, and the demo
//! collector (connections, map changes, names), one demo per map change and then `--single`.
#![no_main]

use gamedissect::commands::demo::demos_of;
use gamedissect::engine::Config;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    for single in [false, true] {
        let report = demos_of(data, Config::default(), single);
        for d in &report.demos {
            // What we write must read back as a demo: whole records and the end marker.
            let back = gamedissect::commands::demo::file::messages(&d.bytes).expect("our demo reads back");
            assert_eq!(back.len() as u64, d.messages);
            assert!(!d.name.contains(['/', '\\']) && !d.name.starts_with('.'));
        }
    }
});
