//! A capture whose names, chat and server info hold terminal commands and bidirectional
//! controls, for the escaping tests (`tests/escape.rs`; docs/output.md "Escaping"). Built in
//! memory, not shipped under `captures/`.

use std::net::SocketAddr;

use crate::synth::{PcapWriter, eth_udp, linktype};

/// Every kind of character a text writer escapes: ESC `[2J` (clear the screen), an OSC 52
/// clipboard write ended by BEL, a one-character C1 CSI, a right-to-left override, DEL and a
/// newline.
pub const HOSTILE: &str = "A\x1b[2J\x1b]52;c;cHduZWQ=\x07\u{9b}31m\u{202e}gpj.exe\x7fZ\nB";
/// A FlightGear callsign (8 bytes on the wire) holding ESC and DEL.
pub const CALLSIGN: &str = "E\x1b[2J\x7f";
/// An SRB2 server name (at most 32 bytes) holding ESC, a C1 CSI and a bidi isolate.
pub const SRB2_NAME: &str = "S\x1b[2J\u{9b}1m\u{2066}x\x7f";

fn addr(s: &str) -> SocketAddr {
    s.parse().expect("literal address")
}

/// The capture: a Quake 3 `getinfo`/`infoResponse` and `getstatus`/`statusResponse` whose
/// hostname and player name are `text`, a FlightGear position whose chat is `text` from
/// [`CALLSIGN`], and an SRB2 server info named [`SRB2_NAME`].
pub fn capture(text: &str) -> Vec<u8> {
    let mut w = PcapWriter::new(linktype::ETHERNET, false, false, 65535);
    let (q3c, q3s) = (addr("10.0.0.5:27961"), addr("10.0.0.6:27960"));
    let info = format!("infoResponse\n\\hostname\\{text}\\mapname\\q3dm1\\clients\\1");
    let status =
        format!("statusResponse\n\\sv_hostname\\{text}\\mapname\\q3dm1\n0 50 \"{text}\"\n");
    let oob = |s: &str| {
        let mut b = vec![0xff; 4];
        b.extend_from_slice(s.as_bytes());
        b
    };
    let datagrams: Vec<(SocketAddr, SocketAddr, Vec<u8>)> = vec![
        (q3c, q3s, b"\xff\xff\xff\xffgetinfo xxx".to_vec()),
        (q3s, q3c, oob(&info)),
        (q3c, q3s, b"\xff\xff\xff\xffgetstatus".to_vec()),
        (q3s, q3c, oob(&status)),
        (
            addr("10.0.0.1:5000"),
            addr("10.0.0.2:5000"),
            crate::flightgear::sample_v2(CALLSIGN, text),
        ),
    ];
    let mut ms = 0;
    for (src, dst, payload) in &datagrams {
        ms += 10;
        w.packet_at_ms(1_700_000_000, ms, &eth_udp(*src, *dst, payload));
    }
    let (ask, info) = super::srb2::server_info_named(SRB2_NAME);
    let (c, s) = (addr("10.0.0.7:5030"), addr("10.0.0.8:5029"));
    w.packet_at_ms(1_700_000_000, 100, &eth_udp(c, s, &ask));
    w.packet_at_ms(1_700_000_000, 110, &eth_udp(s, c, &info));
    w.bytes
}
