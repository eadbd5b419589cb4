//! Unit tests of the decoder: byte-exact vectors per element (a header as FlightGear 2017.2+
//! `FillMsgHdr` writes it, elements as `SendMyPosition` encodes them), header words, derived
//! position, flow state.

use super::constants::{MAGIC_FGFS, MAGIC_SFGF, V2_PAD_MAGIC};
use super::prim::{model_short, scale_short};
use super::tables::Tx;
use super::*;
use crate::proto::{Confidence, Role};
use crate::tree::{Field, Record, Severity, Value};
use testkit::flightgear::{Packet, sample_v1, sample_v2};

fn dec(p: &[u8]) -> Record {
    Flow::default().message(p, false, true)
}

fn errors(r: &Record) -> Vec<&str> {
    r.notes
        .iter()
        .filter(|n| n.severity() == Severity::Error)
        .map(|n| n.message.as_str())
        .collect()
}

fn warnings(r: &Record) -> Vec<&str> {
    r.notes
        .iter()
        .filter(|n| n.severity() == Severity::Warning)
        .map(|n| n.message.as_str())
        .collect()
}

/// The (id, value) fields of every property element, in wire order: the properties' group
/// holds nothing but such pairs.
fn pairs(r: &Record) -> Vec<(&Field, &Field)> {
    let Some(group) = r.find("flightgear.properties.property") else {
        return Vec::new();
    };
    assert_eq!(group.children.len() % 2, 0);
    group
        .children
        .chunks_exact(2)
        .map(|c| {
            assert_eq!(c[0].def.name, "flightgear.properties.property.id");
            assert_eq!(c[1].def.name, "flightgear.properties.property.value");
            (&c[0], &c[1])
        })
        .collect()
}

/// The wire form of an element from its character in `forms` and the id's row of the table
/// (docs/protocols/flightgear.md): a bool block's bit; a short element, scaled by the
/// table's TransmitAs; a v1 element of the declared type. The tree's positions agree: a
/// short element's id is 2 bytes, a bit's value 1 bit.
fn encoding_of(form: char, id: &Field, value: &Field) -> String {
    let Value::Enum(n, _) = id.value else {
        panic!("{id:?}")
    };
    let def = super::tables::lookup(n as u32).unwrap();
    assert_eq!(form == 'b', value.pos.bits, "{id:?}");
    assert_eq!(form == 's', id.pos.len == 2, "{id:?}");
    let name = match (def.ty.name_or(""), form) {
        (_, 'b') => "BOOLARRAY",
        ("STRING", 's') => "V2_STRING",
        ("FLOAT", 's') => match def.tx {
            Tx::SHORT_FLOAT_NORM => "SHORT_FLOAT_NORM",
            Tx::SHORT_FLOAT_1 => "SHORT_FLOAT_1",
            Tx::SHORT_FLOAT_2 => "SHORT_FLOAT_2",
            Tx::SHORT_FLOAT_3 => "SHORT_FLOAT_3",
            Tx::SHORT_FLOAT_4 => "SHORT_FLOAT_4",
            _ => "SHORTINT",
        },
        (_, 's') => "SHORTINT",
        (ty, 'v') => return format!("V1_{ty}"),
        _ => panic!("form {form:?}"),
    };
    name.to_string()
}

/// (id, path, type, encoding, value) of every property element: the path is the id's name,
/// the declared type from the table.
fn props_of(r: &Record) -> Vec<(u64, String, String, String, Value)> {
    let pairs = pairs(r);
    let forms: Vec<char> = match r.find("flightgear.properties.forms").map(|f| &f.value) {
        Some(Value::Str(s)) => s.chars().collect(),
        None => Vec::new(),
        v => panic!("{v:?}"),
    };
    assert_eq!(forms.len(), pairs.len());
    pairs
        .into_iter()
        .zip(forms)
        .map(|((id_field, value), form)| {
            let Value::Enum(id, path) = id_field.value else {
                panic!()
            };
            let id = id as u64;
            let ty = super::tables::lookup(id as u32).map_or("", |d| d.ty.name_or(""));
            (
                id,
                path.to_string(),
                ty.to_string(),
                encoding_of(form, id_field, value),
                value.value.clone(),
            )
        })
        .collect()
}

fn prop(r: &Record, id: u64) -> (u64, String, String, String, Value) {
    props_of(r)
        .into_iter()
        .find(|p| p.0 == id)
        .unwrap_or_else(|| panic!("no property {id}"))
}

/// A v2 position packet with exactly these property bytes after the block.
fn with_props(pad: u32, props: &[u8]) -> Vec<u8> {
    let mut p = Packet::client("N123", 7);
    p.position(
        "Aircraft/c172p/Models/c172p.xml",
        1.0,
        37.6189,
        -122.375,
        914.4,
        (281.0, 0.0, 0.0),
        0.0,
        pad,
    );
    p.raw(props);
    p.finish()
}

#[test]
fn probe_needs_the_magic() {
    let v2 = sample_v2("N123", "hi");
    let p = probe_payload(&v2);
    assert_eq!(p.confidence, Confidence::Certain);
    assert_eq!(p.sender, None::<Role>);
    let mut relay = v2.clone();
    relay[..4].copy_from_slice(b"SFGF");
    assert_eq!(probe_payload(&relay).confidence, Confidence::Certain);
    assert_eq!(
        probe_payload(b"FGFS\0\0\0\0").confidence,
        Confidence::Likely
    );
    assert_eq!(probe_payload(b"FGFS").confidence, Confidence::Likely);
    assert_eq!(probe_payload(b"FGF"), Probe::NO);
    assert_eq!(probe_payload(b"GSGF\0\x01\0\x01"), Probe::NO);
    assert_eq!(probe_payload(&[]), Probe::NO);
}

#[test]
fn header_as_fillmsghdr_writes_it() {
    // `FillMsgHdr` (FlightGear 2017.2+): header of an 860-byte position datagram from N123 requesting 100 nm.
    let hdr = [
        0x46, 0x47, 0x46, 0x53, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00, 0x00, 0x07, 0x00, 0x00, 0x03,
        0x5C, 0x00, 0x00, 0x00, 0x64, 0x00, 0x00, 0x00, 0x00, 0x4E, 0x31, 0x32, 0x33, 0x00, 0x00,
        0x00, 0x00,
    ];
    let mut built = Packet::client("N123", 7);
    built.raw(&[0; 828]);
    let built = built.finish();
    assert_eq!(built.len(), 860);
    assert_eq!(&built[..32], &hdr);
    let r = dec(&built);
    let v = |n: &str| r.find(n).unwrap().value.clone();
    assert_eq!(
        v("flightgear.magic"),
        Value::Enum(MAGIC_FGFS as i64, "FGFS")
    );
    assert_eq!(v("flightgear.version"), Value::UInt(0x0001_0001));
    assert_eq!(v("flightgear.msg_id"), Value::Enum(7, "POS_DATA"));
    assert_eq!(v("flightgear.msg_len"), Value::UInt(860));
    assert_eq!(v("flightgear.range_word"), Value::UInt(100));
    assert_eq!(v("flightgear.range_word.range_nm"), Value::UInt(100));
    assert_eq!(v("flightgear.reply_port"), Value::UInt(0));
    assert_eq!(v("flightgear.callsign"), Value::Str("N123".into()));
    assert_eq!(
        r.find("flightgear.callsign").unwrap().pos,
        Pos::bytes(24, 8)
    );
}

use crate::tree::Pos;

#[test]
fn range_word_readings() {
    let word = |w: u32| {
        let mut p = Packet::header(MAGIC_FGFS, 7, w, 0, "X");
        p.raw(&[0; 200]);
        dec(&p.finish())
    };
    // fgms 0.13+ forwards the word byte-swapped: 64 00 00 00.
    let r = word(0x6400_0000);
    assert_eq!(
        r.find("flightgear.range_word.range_nm").unwrap().value,
        Value::UInt(100)
    );
    // fgms 0.11-0.12.0: the sender's address with its octets reversed (127.0.0.1 → 01 00 00 7F).
    let r = word(0x0100_007F);
    assert_eq!(
        r.find("flightgear.range_word.reply_address").unwrap().value,
        Value::Str("127.0.0.1".into())
    );
    let r = word(0);
    assert!(r.find("flightgear.range_word.range_nm").is_none());
    assert!(r.find("flightgear.range_word.reply_address").is_none());
}

#[test]
fn v2_short_elements_as_sent() {
    // id 10 = 2 → 00 0A 00 02; id 100 = -0.5 → 00 64 C0 01 (-16383/32767).
    let r = dec(&with_props(
        V2_PAD_MAGIC,
        &[0x00, 0x0A, 0x00, 0x02, 0x00, 0x64, 0xC0, 0x01],
    ));
    assert!(r.notes.is_empty(), "{:?}", r.notes);
    let p = prop(&r, 10);
    assert_eq!(
        (p.1.as_str(), p.2.as_str(), p.3.as_str(), p.4),
        (
            "sim/multiplay/protocol-version",
            "INT",
            "SHORTINT",
            Value::Int(2)
        )
    );
    let p = prop(&r, 100);
    assert_eq!(p.3, "SHORT_FLOAT_NORM");
    assert_eq!(p.4, Value::F32((-16383.0f64 / 32767.0) as f32));
    let (id, value) = pairs(&r)[1];
    assert_eq!(
        (id.pos, value.pos),
        (Pos::bytes(236, 2), Pos::bytes(238, 2))
    );
}

#[test]
fn a_repeated_id_is_kept_and_warned_once() {
    // id 10 twice (2, then 3), then a bool block whose bit 11000 repeats a v1 11000 element:
    // every element stays in the tree, one warning at the second id 10.
    let mut b = vec![0x00, 0x0A, 0x00, 0x02, 0x00, 0x0A, 0x00, 0x03];
    let r = dec(&with_props(V2_PAD_MAGIC, &b));
    let values: Vec<&Value> = pairs(&r).iter().map(|(_, v)| &v.value).collect();
    assert_eq!(values, [&Value::Int(2), &Value::Int(3)]);
    assert_eq!(
        warnings(&r),
        [
            "property id 10 appears twice in this message: the JSON object repeats its key (the tree and `forms` keep both elements)"
        ]
    );
    assert_eq!(r.notes[0].pos, Some(Pos::bytes(236, 4)));
    b.extend([0x00, 0x0A, 0x00, 0x04]);
    let r = dec(&with_props(V2_PAD_MAGIC, &b));
    assert_eq!(pairs(&r).len(), 3);
    assert_eq!(warnings(&r).len(), 1, "once a message");
    // Distinct ids, bool block bits included, say nothing.
    let mut p = Packet::default();
    p.bool_block(11000, 1).bool_block(11040, 1);
    let r = dec(&with_props(V2_PAD_MAGIC, &p.bytes));
    assert!(r.notes.is_empty(), "{:?}", r.notes);
    p.bool_block(11000, 2);
    let r = dec(&with_props(V2_PAD_MAGIC, &p.bytes));
    assert_eq!(warnings(&r).len(), 1);
    assert!(warnings(&r)[0].starts_with("property id 11000 appears twice"));
}

#[test]
fn every_short_float_scaling() {
    assert_eq!(scale_short(-16383, Tx::SHORT_FLOAT_NORM), Some(-0.49998474));
    assert_eq!(scale_short(24003, Tx::SHORT_FLOAT_1), Some(2400.3));
    assert_eq!(scale_short(-12345, Tx::SHORT_FLOAT_2), Some(-123.45));
    assert_eq!(scale_short(32767, Tx::SHORT_FLOAT_3), Some(32.767));
    assert_eq!(scale_short(2500, Tx::SHORT_FLOAT_4), Some(0.25));
    assert_eq!(scale_short(5, Tx::SHORTINT), None);
    // On the wire: 302 rpm (/10), 810 blade position (/1000), 1001 slats (/10000).
    let bytes = [
        0x01, 0x2E, 0x5D, 0xC3, // 302 = 24003
        0x03, 0x2A, 0x80, 0x01, // 810 = -32767
        0x03, 0xE9, 0x09, 0xC4, // 1001 = 2500
    ];
    let r = dec(&with_props(V2_PAD_MAGIC, &bytes));
    assert!(r.notes.is_empty(), "{:?}", r.notes);
    assert_eq!(prop(&r, 302).3, "SHORT_FLOAT_1");
    assert_eq!(prop(&r, 302).4, Value::F32(2400.3));
    assert_eq!(prop(&r, 810).3, "SHORT_FLOAT_3");
    assert_eq!(prop(&r, 810).4, Value::F32(-32.767));
    assert_eq!(prop(&r, 1001).3, "SHORT_FLOAT_4");
    assert_eq!(prop(&r, 1001).4, Value::F32(0.25));
}

#[test]
fn v2_and_v1_chat_strings_as_sent() {
    // v2: 27 12 00 05 "Hello" (9 bytes, then unaligned); a short follows at offset 241.
    let mut b = vec![0x27, 0x12, 0x00, 0x05];
    b.extend_from_slice(b"Hello");
    b.extend_from_slice(&[0x04, 0xB1, 0x00, 0x01]); // 1201 contrail = 1
    let r = dec(&with_props(V2_PAD_MAGIC, &b));
    assert!(r.notes.is_empty(), "{:?}", r.notes);
    let p = prop(&r, 10002);
    assert_eq!(
        (p.1.as_str(), p.3.as_str()),
        ("sim/multiplay/chat", "V2_STRING")
    );
    assert_eq!(p.4, Value::Str("Hello".into()));
    assert_eq!(prop(&r, 1201).4, Value::Int(1));
    let (id, value) = pairs(&r)[0];
    assert_eq!(
        (id.pos, value.pos),
        (Pos::bytes(232, 2), Pos::bytes(236, 5))
    );
    let (id, value) = pairs(&r)[1];
    assert_eq!(
        (id.pos, value.pos),
        (Pos::bytes(241, 2), Pos::bytes(243, 2))
    );
    assert!(r.summary.ends_with("chat \"Hello\""), "{}", r.summary);

    // v1: 00 00 27 12 | 00 00 00 05 | one word per character | 3 zero words (40 bytes).
    let v1: Vec<u8> = [0x2712u32, 5, 0x48, 0x65, 0x6C, 0x6C, 0x6F, 0, 0, 0]
        .iter()
        .flat_map(|w| w.to_be_bytes())
        .collect();
    assert_eq!(v1.len(), 40);
    let mut built = Packet::default();
    built.v1_string(10002, b"Hello");
    assert_eq!(built.bytes, v1);
    let r = dec(&with_props(0, &v1));
    assert!(r.notes.is_empty(), "{:?}", r.notes);
    let p = prop(&r, 10002);
    assert_eq!(
        (p.3.as_str(), p.4),
        ("V1_STRING", Value::Str("Hello".into()))
    );
    let (id, value) = pairs(&r)[0];
    assert_eq!(
        (id.pos, value.pos),
        (Pos::bytes(232, 4), Pos::bytes(236, 36))
    );
}

#[test]
fn v1_string_keeps_high_characters_and_caps_length() {
    // 'é' in Latin-1 is 0xE9: the sender sign-extends it to FF FF FF E9.
    let mut p = Packet::default();
    p.v1_string(1101, &[b'a', 0xE9]);
    assert_eq!(&p.bytes[12..16], &[0xFF, 0xFF, 0xFF, 0xE9]);
    let r = dec(&with_props(0, &p.bytes));
    assert!(r.notes.is_empty(), "{:?}", r.notes);
    assert_eq!(prop(&r, 1101).4, Value::Bytes(vec![b'a', 0xE9].into()));
    // A length over 768 is capped at 768 (and here the data runs out: an error).
    let r = dec(&with_props(0, &[0, 0, 0x04, 0x4D, 0, 0, 0x10, 0]));
    assert!(
        warnings(&r).iter().any(|w| w.contains("4096 over 768")),
        "{:?}",
        r.notes
    );
    assert!(
        errors(&r).iter().any(|e| e.contains("cut off")),
        "{:?}",
        r.notes
    );
}

#[test]
fn v1_numbers_and_empty_string_in_v2() {
    let mut p = Packet::default();
    p.v1_float(100, -0.5)
        .v1_int(904, 1)
        .v1_int(1100, -7)
        .v1_int(13001, 118_500_000)
        .v1_string(1101, b"");
    let r = dec(&with_props(V2_PAD_MAGIC, &p.bytes));
    assert!(r.notes.is_empty(), "{:?}", r.notes);
    assert_eq!(prop(&r, 100).4, Value::F32(-0.5));
    assert_eq!(prop(&r, 100).3, "V1_FLOAT");
    assert_eq!(prop(&r, 904).4, Value::Bool(true));
    assert_eq!(prop(&r, 904).3, "V1_BOOL");
    assert_eq!(prop(&r, 1100).4, Value::Int(-7));
    assert_eq!(prop(&r, 13001).4, Value::Int(118_500_000));
    assert_eq!(prop(&r, 1101).4, Value::Str("".into()));
}

#[test]
fn bool_blocks_of_31() {
    // Reference: block 1 with bool[0] and bool[2] true → 00 00 2A F8 | 00 00 00 05.
    let b = [0x00, 0x00, 0x2A, 0xF8, 0x00, 0x00, 0x00, 0x05];
    let r = dec(&with_props(V2_PAD_MAGIC, &b));
    assert!(r.notes.is_empty(), "{:?}", r.notes);
    let ps = props_of(&r);
    assert_eq!(ps.len(), 31);
    assert_eq!(ps[0].0, 11000);
    assert_eq!(ps[0].4, Value::Bool(true));
    assert_eq!(ps[1].4, Value::Bool(false));
    assert_eq!(ps[2].4, Value::Bool(true));
    assert_eq!(ps[30].0, 11030);
    assert!(ps.iter().all(|p| p.3 == "BOOLARRAY" && p.2 == "BOOL"));
    // bit 2 is bit 29 of the big-endian word: byte 236 + 3, bit 5 from the top.
    assert_eq!(pairs(&r)[2].1.pos, Pos::bits((232 + 4) * 8 + 29, 1));
    assert_eq!(
        r.find("flightgear.properties.bool_block.mask")
            .unwrap()
            .value,
        Value::UInt(5)
    );
    // Block 2: bit 11 is id 11051, named bool[91] since 2018.2.
    let mut p = Packet::default();
    p.bool_block(11040, 1 << 11)
        .bool_block(11080, 1 << 11 | 1 << 30);
    let r = dec(&with_props(V2_PAD_MAGIC, &p.bytes));
    assert!(r.notes.is_empty(), "{:?}", r.notes);
    let p = prop(&r, 11051);
    assert_eq!(
        (p.1.as_str(), p.4),
        ("sim/multiplay/generic/bool[91]", Value::Bool(true))
    );
    assert_eq!(prop(&r, 11091).1, "sim/multiplay/generic/bool[92]");
    assert_eq!(prop(&r, 11091).4, Value::Bool(true));
    assert_eq!(prop(&r, 11110).4, Value::Bool(true));
    assert_eq!(prop(&r, 11109).4, Value::Bool(false));
    assert_eq!(props_of(&r).len(), 62);
}

#[test]
fn launchbar_bool_short_and_13002() {
    let mut p = Packet::default();
    p.short(120, 1)
        .short(1006, 1)
        .short(13002, 5)
        .short(1504, 0);
    let r = dec(&with_props(V2_PAD_MAGIC, &p.bytes));
    assert!(r.notes.is_empty(), "{:?}", r.notes);
    assert_eq!(prop(&r, 120).4, Value::Int(1));
    let v = pairs(&r)[0].1;
    assert_eq!(
        v.meaning.as_deref(),
        Some("Launching (gear/launchbar/state)")
    );
    assert_eq!(prop(&r, 1006).4, Value::Bool(true));
    assert_eq!(prop(&r, 1504).4, Value::Bool(false));
    assert_eq!(prop(&r, 13002).4, Value::Int(5));
}

#[test]
fn unknown_id_stops_the_walk_with_a_warning() {
    let mut p = Packet::default();
    p.short(10, 2).u32(9999).u32(0).short(100, 0);
    let r = dec(&with_props(V2_PAD_MAGIC, &p.bytes));
    assert!(errors(&r).is_empty());
    let w = warnings(&r);
    assert_eq!(w.len(), 1);
    assert!(w[0].contains("unknown property id 9999"), "{w:?}");
    assert_eq!(props_of(&r).len(), 1);
    assert_eq!(
        r.find("flightgear.properties.undecoded").unwrap().pos,
        Pos::bytes(236, 12)
    );
    assert!(r.summary.ends_with("(properties cut)"), "{}", r.summary);
}

#[test]
fn lying_lengths() {
    let good = sample_v2("N123", "hi");
    // MsgLen larger than the datagram: FlightGear drops it; an error.
    let mut big = good.clone();
    big[12..16].copy_from_slice(&((good.len() + 10) as u32).to_be_bytes());
    let r = dec(&big);
    assert!(
        errors(&r)
            .iter()
            .any(|e| e.contains("but the datagram has")),
        "{:?}",
        r.notes
    );
    // MsgLen smaller: the message ends there, the rest is trailing (warning).
    let mut small = good.clone();
    small.extend_from_slice(&[1, 2, 3]);
    let r = dec(&small);
    assert!(errors(&r).is_empty(), "{:?}", r.notes);
    assert_eq!(
        r.find("flightgear.trailing").unwrap().pos,
        Pos::bytes(good.len(), 3)
    );
    // Below the header.
    let mut tiny = good.clone();
    tiny[12..16].copy_from_slice(&8u32.to_be_bytes());
    assert!(
        errors(&dec(&tiny))
            .iter()
            .any(|e| e.contains("shorter than"))
    );
    // A string length running past the end.
    let r = dec(&with_props(V2_PAD_MAGIC, &[0x27, 0x12, 0x00, 0x40, b'a']));
    assert!(
        errors(&r).iter().any(|e| e.contains("cut off")),
        "{:?}",
        r.notes
    );
    // A position message without its full block.
    let r = dec(&good[..100]);
    assert!(!errors(&r).is_empty());
}

#[test]
fn truncated_header() {
    for n in 0..32 {
        let r = dec(&sample_v2("N123", "x")[..n]);
        assert_eq!(r.msg_type, "malformed");
        assert!(r.has_errors());
    }
}

#[test]
fn legacy_chat_ping_pong_relay_and_unknown_ids() {
    // MsgId 1: 256 bytes of NUL-padded text (`T_ChatMsg`), MsgLen 288.
    let mut p = Packet::client("N123", 1);
    let mut text = [0u8; 256];
    text[..11].copy_from_slice(b"hello world");
    p.raw(&text);
    let chat = p.finish();
    assert_eq!(chat.len(), 288);
    let r = dec(&chat);
    assert!(r.notes.is_empty(), "{:?}", r.notes);
    assert_eq!(r.msg_type, "chat");
    assert_eq!(r.summary, "N123 chat \"hello world\"");
    assert_eq!(
        r.find("flightgear.chat").unwrap().value,
        Value::Str("hello world".into())
    );

    // PING/PONG: the position datagram echoed with MsgId 9/10.
    let mut ping = sample_v2("N123", "hi");
    ping[11] = 9;
    let r = dec(&ping);
    assert_eq!(r.msg_type, "ping");
    assert!(
        r.summary.starts_with("PING N123 c172p 37.6189N 122.3750W"),
        "{}",
        r.summary
    );
    ping[11] = 10;
    assert!(dec(&ping).summary.starts_with("PONG N123"));

    // Relay magic.
    let mut relay = sample_v2("N123", "hi");
    relay[..4].copy_from_slice(&MAGIC_SFGF.to_be_bytes());
    let r = dec(&relay);
    assert!(r.notes.is_empty(), "{:?}", r.notes);
    assert_eq!(
        r.find("flightgear.magic").unwrap().value,
        Value::Enum(MAGIC_SFGF as i64, "SFGF")
    );
    assert!(r.summary.starts_with("[relay] N123"));

    // Obsolete and unknown ids keep their number.
    let mut p = Packet::client("N123", 4);
    p.raw(&[1, 2, 3, 4]);
    let r = dec(&p.finish());
    assert_eq!(r.msg_type, "obsolete");
    assert_eq!(r.summary, "N123 OLD_POS_DATA (4 bytes, obsolete)");
    let mut p = Packet::client("N123", 42);
    let r = dec(&p.finish());
    assert_eq!(
        r.find("flightgear.msg_id").unwrap().value,
        Value::Enum(42, "")
    );
    assert_eq!(r.summary, "N123 message id 42 (0 bytes)");
    assert_eq!(warnings(&r).len(), 1);
}

#[test]
fn legacy_pad_finds_the_properties() {
    // A pre-1.9.1 32-bit client: 196-byte block, properties right after angularAccel (228).
    let mut p = Packet::client("OLD", 7);
    p.position(
        "Aircraft/ufo/Models/ufo.xml",
        1.0,
        10.0,
        20.0,
        100.0,
        (90.0, 0.0, 0.0),
        0.0,
        0,
    );
    p.bytes.truncate(228);
    p.v1_float(100, 0.25).v1_int(1100, 3);
    let r = dec(&p.finish());
    assert!(errors(&r).is_empty(), "{:?}", r.notes);
    assert_eq!(prop(&r, 100).4, Value::F32(0.25));
    assert_eq!(prop(&r, 1100).4, Value::Int(3));
    assert_eq!(r.find("flightgear.properties").unwrap().pos.offset, 228);
    // Garbage in the pad that is no property list at either offset: properties ignored.
    let r = dec(&with_props(0xDEAD_BEEF, &[0, 0, 0, 100, 0x7f, 0xc0, 0, 0]));
    assert!(r.find("flightgear.properties.undecoded").is_some());
    assert_eq!(props_of(&r).len(), 0);
}

#[test]
fn derived_position_and_summary() {
    let r = dec(&sample_v2("N123", "hi"));
    assert!(r.notes.is_empty(), "{:?}", r.notes);
    let f = |n: &str| match r.find(n).unwrap().value {
        Value::F64(v) => v,
        ref v => panic!("{v:?}"),
    };
    assert!((f("flightgear.position.geodetic.latitude") - 37.6189).abs() < 1e-6);
    assert!((f("flightgear.position.geodetic.longitude") + 122.375).abs() < 1e-6);
    assert!((f("flightgear.position.geodetic.altitude_m") - 3.0).abs() < 0.01);
    assert!((f("flightgear.position.geodetic.altitude_ft") - 9.84).abs() < 0.01);
    assert!((f("flightgear.position.attitude.heading") - 281.0).abs() < 0.01);
    assert!((f("flightgear.position.attitude.pitch") - 2.0).abs() < 0.01);
    assert!((f("flightgear.position.attitude.roll") + 1.0).abs() < 0.01);
    assert_eq!(
        r.summary,
        "N123 c172p 37.6189N 122.3750W 10 ft hdg 281 chat \"hi\""
    );
    // The example of the issue: 3012 ft.
    let mut p = Packet::client("N123", 7);
    p.position(
        "Aircraft/c172p/Models/c172p.xml",
        0.0,
        37.6189,
        -122.375,
        3012.0 * 0.3048,
        (281.0, 0.0, 0.0),
        50.0,
        V2_PAD_MAGIC,
    );
    assert_eq!(
        dec(&p.finish()).summary,
        "N123 c172p 37.6189N 122.3750W 3012 ft hdg 281"
    );
}

#[test]
fn v1_sample_decodes_fully() {
    let r = dec(&sample_v1("N123", "hello"));
    assert!(r.notes.is_empty(), "{:?}", r.notes);
    let ps = props_of(&r);
    assert_eq!(ps.len(), 5 + 31);
    assert_eq!(prop(&r, 302).4, Value::F32(2400.3));
    assert_eq!(prop(&r, 10002).4, Value::Str("hello".into()));
}

#[test]
fn flow_shows_chat_once_and_lists_aircraft() {
    let mut flow = Flow::default();
    let a1 = flow.message(&sample_v2("N123", "hi"), false, true);
    let a2 = flow.message(&sample_v2("N123", "hi"), false, true);
    let b1 = flow.message(&sample_v1("D-EFGH", "hi"), false, true);
    let a3 = flow.message(&sample_v2("N123", "bye"), false, true);
    assert!(a1.summary.ends_with("chat \"hi\""));
    assert!(!a2.summary.contains("chat"));
    assert!(b1.summary.ends_with("chat \"hi\""), "{}", b1.summary);
    assert!(a3.summary.ends_with("chat \"bye\""));
    let facts = flow.describe();
    assert_eq!(
        facts,
        vec![
            (
                "aircraft".to_string(),
                "N123 (c172p, v2, 3 messages); D-EFGH (c172p, v1, 1 message)".to_string()
            ),
            ("chat lines".to_string(), "3".to_string())
        ]
    );
    assert!(flow.state_bytes() > 0);
}

#[test]
fn model_short_names() {
    assert_eq!(model_short("Aircraft/c172p/Models/c172p.xml"), "c172p");
    assert_eq!(
        model_short("Aircraft/777/Models/777-200ER.xml"),
        "777-200ER"
    );
    assert_eq!(model_short("ufo"), "ufo");
    assert_eq!(model_short("dir/"), "dir/");
    assert_eq!(model_short(""), "");
}

/// xorshift64*: deterministic pseudo-random numbers for the property test.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Decodes `d` without trees in `bare` (summary mode, with its shortcuts over plain
/// elements): the same summaries, types and notes as `with` (decoded with trees).
fn same_without_trees(
    bare: &mut dyn crate::proto::FlowDecoder,
    d: &crate::proto::Datagram<'_>,
    with: &[Record],
) {
    let mut without = Vec::new();
    bare.decode(
        &crate::proto::Datagram {
            detail: false.into(),
            ..*d
        },
        &mut without,
    );
    assert_eq!(without.len(), with.len());
    for (a, b) in with.iter().zip(&without) {
        assert_eq!(
            (&a.summary, &a.msg_type, &a.notes),
            (&b.summary, &b.msg_type, &b.notes),
            "{:02x?}",
            d.payload
        );
        assert!(b.fields.is_empty());
    }
}

#[test]
fn property_no_panic_on_random_and_mutated_payloads() {
    use crate::proto::{Datagram, Direction, RoleSource};
    let seeds: Vec<Vec<u8>> = vec![
        sample_v2("N123", "hello"),
        sample_v1("N123", "hello"),
        with_props(
            V2_PAD_MAGIC,
            &[0x27, 0x12, 0x00, 0x05, b'H', b'e', b'l', b'l', b'o'],
        ),
        with_props(0x1234_5678, &[0, 0, 0, 100, 0, 0, 0, 0]),
        {
            let mut p = Packet::client("N123", 1);
            p.raw(&[b'x'; 256]);
            p.finish()
        },
    ];
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let addr: std::net::SocketAddr = "10.0.0.1:5000".parse().unwrap();
    let mut total = 0;
    for flow_no in 0..2000 {
        let mut flow = PROTOCOL.new_flow(&Prefs::default());
        // The same datagrams without trees: the same summaries and notes.
        let mut bare = PROTOCOL.new_flow(&Prefs::default());
        for k in 0..11 {
            let payload: Vec<u8> = match rng.below(4) {
                0 => (0..rng.below(1300)).map(|_| rng.next() as u8).collect(),
                1 => {
                    // Random bytes behind a valid header.
                    let mut p = seeds[0][..32].to_vec();
                    p.extend((0..rng.below(1300)).map(|_| rng.next() as u8));
                    if rng.below(2) == 0 {
                        let n = p.len() as u32;
                        p[12..16].copy_from_slice(&n.to_be_bytes());
                    }
                    p
                }
                _ => {
                    let mut p = seeds[rng.below(seeds.len())].clone();
                    for _ in 0..1 + rng.below(8) {
                        match rng.below(4) {
                            0 if !p.is_empty() => {
                                let i = rng.below(p.len());
                                p[i] = rng.next() as u8;
                            }
                            1 => {
                                let n = rng.below(p.len() + 1);
                                p.truncate(n);
                            }
                            2 if p.len() >= 236 => {
                                // Lie about a property word or the length.
                                let i = 232 + rng.below(p.len() - 235);
                                let w = (rng.next() as u32).to_be_bytes();
                                let end = (i + 4).min(p.len());
                                p[i..end].copy_from_slice(&w[..end - i]);
                            }
                            _ if p.len() >= 16 => {
                                let v = rng.next() as u32 % 2000;
                                p[12..16].copy_from_slice(&v.to_be_bytes());
                            }
                            _ => {}
                        }
                    }
                    p
                }
            };
            let d = Datagram {
                payload: &payload,
                truncated: rng.below(8) == 0,
                direction: if (flow_no + k) % 2 == 0 {
                    Direction::ToServer
                } else {
                    Direction::ToClient
                },
                src: addr,
                dst: addr,
                time: Default::default(),
                frame: k as u64 + 1,
                index_in_flow: k as u64,
                conversations: 1,
                overheard: Default::default(),
                role_source: RoleSource::Port,
                detail: true.into(),
            };
            let mut out = Vec::new();
            flow.decode(&d, &mut out);
            assert!(!out.is_empty());
            same_without_trees(bare.as_mut(), &d, &out);
            total += 1;
        }
        let _ = flow.describe();
    }
    assert!(total >= 20_000);
}

#[test]
fn snaplen_cut_is_not_malformed() {
    let full = sample_v2("N123", "hello");
    let mut flow = Flow::default();
    let r = flow.message(&full[..300], true, true);
    assert!(!r.has_errors(), "{:?}", r.notes);
    assert!(r.notes.iter().any(|n| n.message.contains("snaplen")));
    let r = flow.message(&full[..300], false, true);
    assert!(r.has_errors());
    let r = flow.message(&full[..20], true, true);
    assert!(!r.has_errors(), "{:?}", r.notes);
}

#[test]
fn chat_cleared_then_repeated_shows_again() {
    let mut flow = Flow::default();
    let s = |flow: &mut Flow, c: &str| flow.message(&sample_v2("N123", c), false, true).summary;
    assert!(s(&mut flow, "hi").ends_with("chat \"hi\""));
    assert!(!s(&mut flow, "").contains("chat"));
    assert!(s(&mut flow, "hi").ends_with("chat \"hi\""));
    assert_eq!(flow.chat_lines, 2);
}
