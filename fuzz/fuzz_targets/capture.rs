//! A whole capture file: the reader, link layers, IP, reassembly, flows, every decoder and the
//! JSON writer.
#![no_main]

use gamedissect::run::{OutputFormat, render};
use gamedissect::engine::Config;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = render(data, OutputFormat::Json, Config::default());
});
