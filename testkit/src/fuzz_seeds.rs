//! Writes seed inputs for the `net` and `decoders` fuzz targets, cut from the captures in
//! `captures/`: `cargo run -p testkit --bin fuzz_seeds -- fuzz/corpus` (scripts/fuzz.sh does
//! this).
//! A `decoders` seed is the fuzz target's own format: a protocol byte, then datagrams as
//! (direction, u16 length, payload), taken from one flow of a real capture in order.

use std::collections::BTreeMap;
use std::path::Path;

use gamedissect::capture::{CaptureReader, Event};
use gamedissect::net::whole_udp;

/// Writes the seeds under `out/net` and `out/decoders` (which must exist) from every capture in
/// `captures/`; returns how many decoder seeds were written.
pub fn write(out: &Path) -> usize {
    let registry = gamedissect::protocols::all();
    let mut paths: Vec<_> = std::fs::read_dir("captures")
        .expect("captures/")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "pcap" || e == "pcapng"))
        .collect();
    paths.sort();
    let mut written = 0;
    write_option_seeds(out);
    for path in paths {
        let bytes = std::fs::read(&path).expect("readable capture");
        let Ok(mut reader) = CaptureReader::new(&bytes[..]) else {
            continue;
        };
        let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
        // Which protocol the capture belongs to, by its name.
        let proto = registry
            .iter()
            .position(|p| stem.starts_with(p.info().name))
            .unwrap_or(0) as u8;
        let mut flows: BTreeMap<(String, String), Vec<u8>> = BTreeMap::new();
        let mut net_seed = vec![1u8];
        while let Ok(Some(ev)) = reader.next() {
            let Event::Packet(p) = ev else { continue };
            if net_seed.len() < 16_384 {
                net_seed.extend_from_slice(&(p.data.len() as u16).to_le_bytes());
                net_seed.extend_from_slice(p.data);
            }
            if let Some(u) = whole_udp(p.linktype, p.data) {
                let (a, b) = (u.src.to_string(), u.dst.to_string());
                let to_server = u.dst.port() < u.src.port();
                let key = if a < b { (a, b) } else { (b, a) };
                let seed = flows.entry(key).or_insert_with(|| vec![proto]);
                if seed.len() < 32_768 {
                    seed.push(to_server as u8);
                    seed.extend_from_slice(&(u.payload.len() as u16).to_le_bytes());
                    seed.extend_from_slice(u.payload);
                }
            }
        }
        std::fs::write(out.join("net").join(format!("{stem}.bin")), &net_seed).expect("write");
        for (i, seed) in flows.values().enumerate().take(16) {
            std::fs::write(out.join("decoders").join(format!("{stem}-{i}.bin")), seed)
                .expect("write");
            written += 1;
        }
    }
    written
}

/// Whole pcapng files whose interfaces carry options (resolutions, offsets at both ends of i64)
/// for the `capture` target: the golden captures have none.
fn write_option_seeds(out: &Path) {
    let Some(parent) = out.join("capture").parent().map(Path::to_path_buf) else {
        return;
    };
    let dir = parent.join("capture");
    if std::fs::create_dir_all(&dir).is_err() {
        return;
    }
    let udp = crate::synth::ip_udp(
        "10.0.0.1:27960".parse().unwrap(),
        "10.0.0.2:27961".parse().unwrap(),
        b"\xff\xff\xff\xffgetinfo x",
    );
    let frag = crate::synth::ipv4([10, 0, 0, 3], [10, 0, 0, 4], 17, 9, 0, true, &[0; 16]);
    for (name, resol, offsets) in [
        ("tsoffset-extremes", 6u8, [i64::MIN, i64::MAX]),
        ("tsoffset-binary", 0x80 | 20, [-1, 1 << 40]),
        ("tsresol-ns", 9, [0, -86_400]),
    ] {
        for be in [false, true] {
            let mut w = crate::synth::PcapNgWriter::new();
            w.section(be);
            for off in offsets {
                w.interface_offset(101, resol, off);
            }
            for i in 0..8u32 {
                let data = if i % 2 == 0 { &udp } else { &frag };
                w.packet((i / 2) % 2, u64::from(i) << 30, data, data.len() as u32);
            }
            let file = dir.join(format!("{name}-{}.pcapng", if be { "be" } else { "le" }));
            let _ = std::fs::write(file, &w.bytes);
        }
    }
}
