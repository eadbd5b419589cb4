//! `captures/flightgear-handmade.pcap`: what fgfs 2020.3 did not send in the real captures
//! (relay magic, MsgId 1, PING/PONG, every short-float type, bool blocks, an unknown id, lying
//! lengths, fgms header rewrites, a pre-1.9.1 client). Each datagram cites the FlightGear or
//! fgms source it follows; `tests/flightgear.rs` checks the committed file equals [`handmade`].

use std::net::SocketAddr;

use gamedissect::protocols::flightgear::constants::{MAGIC_FGFS, MAGIC_SFGF, V2_PAD_MAGIC};

use crate::flightgear::Packet;
use crate::synth::{PcapWriter, eth_udp, linktype};

const CLIENT: &str = "10.0.0.1:5000";
const SERVER: &str = "10.0.0.2:5000";
const RELAY: &str = "10.0.0.3:5000";
const C172: &str = "Aircraft/c172p/Models/c172p.xml";
const KSFO: (f64, f64) = (37.6189, -122.375);

/// One datagram: source, destination, UDP payload.
type Msg = (SocketAddr, SocketAddr, Vec<u8>);

fn addr(s: &str) -> SocketAddr {
    s.parse().expect("literal address")
}

/// N123's c172p over KSFO at 3012 ft, as every client datagram of this capture carries it.
fn n123_position(p: &mut Packet, time: f64, pad: u32) {
    p.position(
        C172,
        time,
        KSFO.0,
        KSFO.1,
        3012.0 * 0.3048,
        (281.0, 3.0, -10.0),
        55.0,
        pad,
    );
}

/// Frames 1 and 2: the same aircraft in protocol 2 and protocol 1.
fn client_positions(out: &mut Vec<Msg>) {
    // Protocol 2 (FlightGear 2020.3 `multiplaymgr.cxx` `FGMultiplayMgr::SendMyPosition`, the
    // `sIdPropertyList` order): id 10 first, partition 1 (NORM 100, SHORT_FLOAT_1 302,
    // SHORT_FLOAT_3 810, SHORT_FLOAT_4 1001, SHORTINT 1201, BOOL as short 1006, INT as-is 1501,
    // INT as NORM 13002 raw), partition 2 (launchbar 120, compact strings 1101 and chat 10002,
    // TT_INT 13001), then the three bool blocks (bits 11000, 11002, 11051 = bool[91],
    // 11091 = bool[92], 11110 = bool[90]).
    let mut p = Packet::client("N123", 7);
    n123_position(&mut p, 100.0, V2_PAD_MAGIC);
    p.short(10, 2)
        .short_float(100, -0.5, 32767.0)
        .short_float(302, 2400.3, 10.0)
        .short_float(810, 12.5, 1000.0)
        .short_float(1001, 0.25, 10000.0)
        .short(1006, 1)
        .short(1201, 2)
        .v1_int(1501, 3012)
        .short(120, 1)
        .v2_string(1101, b"blue")
        .v2_string(10002, b"Hello from N123")
        .v1_int(13001, 118_500_000)
        .short(13002, 5)
        .bool_block(11000, 0b101)
        .bool_block(11040, 1 << 11)
        .bool_block(11080, 1 << 11 | 1 << 30);
    out.push((addr(CLIENT), addr(SERVER), p.finish()));

    // Protocol 1 (pad 0, the v1 branch of `SendMyPosition`): v1 forms only, 108 launchbar state
    // as a v1 string, a sign-extended Latin-1 'é' in 1101, the v1 chat, and the bool block
    // appended v1-style.
    let mut p = Packet::client("N123", 7);
    n123_position(&mut p, 100.1, 0);
    p.v1_float(100, -0.5)
        .v1_string(108, b"Engaged")
        .v1_int(904, 1)
        .v1_int(1100, 3)
        .v1_string(1101, &[b'b', 0xE9, b'b', b'e'])
        .v1_string(10002, b"Hello from N123")
        .bool_block(11000, 0b101);
    out.push((addr(CLIENT), addr(SERVER), p.finish()));
}

/// Frames 3 to 5: what fgms does to forwarded headers, and its old server notices.
fn fgms_rewrites(out: &mut Vec<Msg>) {
    // fgms 0.13 (fgms `src/server/fg_server.cxx` `HandlePacket`) forwards the range word decoded
    // in place: byte-swapped on a little-endian server (64 00 00 00 = 100 nm).
    let mut p = Packet::header(MAGIC_FGFS, 7, 0x6400_0000, 0, "D-EFGH");
    p.position(
        "Aircraft/777/Models/777-200ER.xml",
        5.0,
        51.4706,
        -0.4619,
        1500.0,
        (90.0, 0.0, 0.0),
        120.0,
        V2_PAD_MAGIC,
    );
    p.short(10, 2).v2_string(10002, b"Speedbird ready");
    out.push((addr(SERVER), addr(CLIENT), p.finish()));

    // fgms 0.11-0.12.0 (`fg_server.cxx` `SendToCrossfeed`): the word holds the sender's IPv4
    // address (octets reversed: 192.0.2.7 → 07 02 00 C0) and ReplyPort its UDP port; a
    // protocol-1 sender.
    let mut p = Packet::header(MAGIC_FGFS, 7, 0x0702_00C0, 5000, "OLDFGMS");
    p.position(
        "Aircraft/ufo/Models/ufo.xml",
        7.0,
        -33.9461,
        151.1772,
        50.0,
        (160.0, 0.0, 0.0),
        0.0,
        0,
    );
    p.v1_int(1100, 0);
    out.push((addr(SERVER), addr(CLIENT), p.finish()));

    // A legacy chat message (`mpmessages.hxx` `T_ChatMsg`, MsgId 1, 256 bytes of text) as
    // fgms 0.10 sent its server notices (fgms tag 0.10.22 `fg_server.cxx`), callsign *FGMS*,
    // ReplyPort = the server's port.
    let mut p = Packet::header(MAGIC_FGFS, 1, 0, 5000, "*FGMS*");
    let mut text = [0u8; 256];
    let welcome = b"Welcome to gamedissect test server";
    text[..welcome.len()].copy_from_slice(welcome);
    p.raw(&text);
    out.push((addr(SERVER), addr(CLIENT), p.finish()));
}

/// Frames 6 to 8: PING/PONG and relay traffic.
fn ping_and_relay(out: &mut Vec<Msg>) {
    // PING (9) is a position datagram with MsgId 9; fgms answers with the same bytes as PONG
    // (10) (`mpmessages.hxx` message ids, fgms `fg_server.cxx` `HandlePacket`).
    let mut p = Packet::client("N123", 9);
    n123_position(&mut p, 100.2, V2_PAD_MAGIC);
    p.short(10, 2);
    let ping = p.finish();
    let mut pong = ping.clone();
    pong[11] = 10;
    out.push((addr(CLIENT), addr(SERVER), ping));
    out.push((addr(SERVER), addr(CLIENT), pong));

    // Relay traffic between two fgms (`fg_server.cxx` `HandlePacket`): the magic rewritten to
    // "SFGF".
    let mut p = Packet::header(MAGIC_SFGF, 7, 100, 0, "N123");
    n123_position(&mut p, 100.3, V2_PAD_MAGIC);
    p.short(10, 2).short_float(100, -0.5, 32767.0);
    out.push((addr(SERVER), addr(RELAY), p.finish()));
}

/// Frames 9 to 12: property ids the 2020.3 table does not know, and lying lengths.
fn unknown_ids_and_lengths(out: &mut Vec<Msg>) {
    // An id no table knows (9999) stops the walk (`multiplaymgr.cxx`
    // `FGMultiplayMgr::ProcessPosMsg`); the rest stays undecoded.
    let mut p = Packet::client("N123", 7);
    n123_position(&mut p, 100.4, V2_PAD_MAGIC);
    p.short(10, 2).u32(9999).u32(1).short(100, 0);
    out.push((addr(CLIENT), addr(SERVER), p.finish()));

    // Id 13003, added to `sIdPropertyList` on FlightGear `next` after 2020.3: decoded, with a
    // note.
    let mut p = Packet::client("N123", 7);
    n123_position(&mut p, 100.5, V2_PAD_MAGIC);
    p.short(10, 2).short_float(13003, 0.1523, 10000.0);
    out.push((addr(CLIENT), addr(SERVER), p.finish()));

    // MsgLen 40 bytes more than the datagram (`FGMultiplayMgr::update` drops it), then MsgLen 4
    // bytes less (the last 4 bytes lie outside the message).
    let mut p = Packet::client("N123", 7);
    n123_position(&mut p, 100.6, V2_PAD_MAGIC);
    p.short(10, 2).short(1201, 1);
    let mut long = p.finish();
    let n = long.len() as u32;
    long[12..16].copy_from_slice(&(n + 40).to_be_bytes());
    out.push((addr(CLIENT), addr(SERVER), long.clone()));
    long[12..16].copy_from_slice(&(n - 4).to_be_bytes());
    out.push((addr(CLIENT), addr(SERVER), long));
}

/// Frames 13 to 15: obsolete and unknown message ids, and a pre-1.9.1 client.
fn old_and_odd_senders(out: &mut Vec<Msg>) {
    // An obsolete id (6 RESET_DATA, header only) and an unknown id (42) (`mpmessages.hxx`).
    out.push((
        addr(CLIENT),
        addr(SERVER),
        Packet::client("N123", 6).finish(),
    ));
    let mut p = Packet::client("N123", 42);
    p.raw(b"????");
    out.push((addr(CLIENT), addr(SERVER), p.finish()));

    // A pre-1.9.1 32-bit client (FlightGear branch `releng/1.9.1` `mpmessages.hxx`
    // `T_PositionMsg` without the pad word): a 196-byte block, properties from offset 228.
    let mut p = Packet::client("OLD32", 7);
    p.position(
        "Aircraft/ufo/Models/ufo.xml",
        3.0,
        64.13,
        -21.94,
        30.0,
        (45.0, 0.0, 0.0),
        0.0,
        0,
    );
    p.bytes.truncate(228);
    p.v1_float(100, 0.25).v1_string(10002, b"hi from 1.9.0");
    out.push((addr(CLIENT), addr(SERVER), p.finish()));
}

/// The hand-made capture's bytes: 15 frames, 100 ms apart.
pub fn handmade() -> Vec<u8> {
    let mut msgs: Vec<Msg> = Vec::new();
    client_positions(&mut msgs);
    fgms_rewrites(&mut msgs);
    ping_and_relay(&mut msgs);
    unknown_ids_and_lengths(&mut msgs);
    old_and_odd_senders(&mut msgs);
    let mut w = PcapWriter::new(linktype::ETHERNET, false, false, 65535);
    for (i, (src, dst, payload)) in msgs.iter().enumerate() {
        w.packet_at_ms(1_795_300_000, i as u64 * 100, &eth_udp(*src, *dst, payload));
    }
    w.bytes
}

/// Every capture this module writes: (file name under `captures/`, bytes).
pub fn all() -> Vec<(&'static str, Vec<u8>)> {
    vec![("flightgear-handmade.pcap", handmade())]
}
