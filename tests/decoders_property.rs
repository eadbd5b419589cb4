//! Every registered decoder, under every preference variant, fed random and mutated flow
//! histories in both directions: no panic, at least one record per datagram. Deterministic (a
//! fixed xorshift seed), so a failure reproduces; the fuzz targets explore further.

use gamedissect::protocols;
use testkit::synth::{Rng, drive_decoder, pref_variants};

/// Payloads that start like each protocol's real traffic, so mutations reach deep code.
fn seeds() -> Vec<Vec<u8>> {
    let mut v: Vec<Vec<u8>> = vec![
        b"\xff\xff\xff\xffgetchallenge".to_vec(),
        b"\xff\xff\xff\xffstatusResponse\n\\sv_hostname\\x\\mapname\\q3dm1\n0 50 \"p\"\n".to_vec(),
        b"\xff\xff\xff\xffgetserversResponse\\\x7f\x00\x00\x01\x6d\x38\\EOT\0\0\0".to_vec(),
        b"FGFS\x00\x01\x00\x01\x00\x00\x00\x07\x00\x00\x00\xe8\x00\x00\x00\x00\x00\x00\x00\x00TEST\0\0\0\0".to_vec(),
        vec![0, 0, 0, 0, 0, 0, 13, 0],
        vec![0x02, 0x01, 0x00],
        vec![0x7f, 0x01, 0x00, 0x00],
        vec![0x3f, 0x00, 0x01, 0x00],
    ];
    if let Ok(caps) = std::fs::read_dir("captures") {
        let mut names: Vec<_> = caps.filter_map(|e| e.ok()).map(|e| e.path()).collect();
        names.sort();
        for p in names {
            if p.extension().is_some_and(|e| e == "pcap" || e == "pcapng") {
                // A few real payloads from each capture: bytes after the first 42 (Ethernet + IPv4 + UDP).
                if let Ok(bytes) = std::fs::read(&p) {
                    for chunk in bytes.chunks(997).take(20) {
                        v.push(chunk.to_vec());
                    }
                }
            }
        }
    }
    v
}

#[test]
fn no_decoder_panics_on_random_flow_histories() {
    let registry = protocols::all();
    let seeds = seeds();
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut datagrams = 0usize;
    for protocol in &registry {
        for prefs in pref_variants() {
            for _ in 0..150 {
                let n = 1 + rng.below(12) as usize;
                let mut history: Vec<(bool, Vec<u8>)> = Vec::with_capacity(n);
                for _ in 0..n {
                    let mut p = if rng.below(3) == 0 {
                        (0..rng.below(300)).map(|_| rng.next_u64() as u8).collect()
                    } else {
                        seeds[rng.below(seeds.len() as u64) as usize].clone()
                    };
                    for _ in 0..rng.below(8) {
                        if p.is_empty() {
                            break;
                        }
                        let at = rng.below(p.len() as u64) as usize;
                        match rng.below(4) {
                            0 => p[at] = rng.next_u64() as u8,
                            1 => p[at] ^= 1 << rng.below(8),
                            2 => p.truncate(at),
                            _ => p.insert(at, rng.next_u64() as u8),
                        }
                    }
                    history.push((rng.below(2) == 0, p));
                }
                let refs: Vec<(bool, &[u8])> =
                    history.iter().map(|(d, p)| (*d, p.as_slice())).collect();
                let records = drive_decoder(*protocol, &prefs, &refs, None);
                assert!(
                    records >= refs.len(),
                    "{} produced {records} records for {} datagrams",
                    protocol.info().name,
                    refs.len()
                );
                datagrams += refs.len();
            }
        }
    }
    assert!(datagrams > 20_000, "only {datagrams} datagrams exercised");
}
