//! Frames on every link type through IP/UDP parsing and fragment reassembly (first byte picks the
//! link type; the rest is a sequence of length-prefixed frames).
#![no_main]

use gamedissect::capture::Timestamp;
use gamedissect::net::defrag::{DefragLimits, Defragmenter};
use gamedissect::net::{Frame, decode_frame, parse_udp};
use libfuzzer_sys::fuzz_target;

const LINKTYPES: [u32; 10] = [0, 1, 12, 14, 101, 108, 113, 228, 229, 276];

fuzz_target!(|data: &[u8]| {
    let Some((&first, mut rest)) = data.split_first() else { return };
    let linktype = LINKTYPES[first as usize % LINKTYPES.len()];
    let mut defrag = Defragmenter::new(DefragLimits {
        max_bytes: 1 << 20,
        max_pending: 64,
        max_pieces: 16,
        timeout_secs: 2,
    });
    let mut t = 0i64;
    while rest.len() >= 2 {
        let len = (u16::from_le_bytes([rest[0], rest[1]]) as usize).min(rest.len() - 2);
        let frame = &rest[2..2 + len];
        rest = &rest[2 + len..];
        t += 1;
        match decode_frame(linktype, frame) {
            Frame::Udp { src, dst, segment, incomplete } => {
                let _ = parse_udp(src, dst, segment, incomplete);
            }
            Frame::Fragment(f) => {
                if let Some(whole) = defrag.add(&f, Timestamp::new(t, 0, 6)) {
                    let _ = parse_udp(whole.src, whole.dst, &whole.segment, false);
                }
            }
            _ => {}
        }
        assert!(defrag.held_bytes() <= (1 << 20) + 65_536);
    }
});
