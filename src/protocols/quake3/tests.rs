//! Flow-level tests: datagram vectors made with ioquake3's own routines (code/qcommon/msg.c,
//! huffman.c, net_chan.c) through `decode`, and the property tests.

use super::bits::tests::{BitWriter, hex};
use super::constants::SEQUENCE_JUMP;
use super::*;
use crate::capture::Timestamp;
use crate::proto::{Datagram, Direction, RoleSource};
use crate::tree::{Field, Record, Value};

fn dgram(p: &[u8], dir: Direction, i: u64) -> Datagram<'_> {
    Datagram {
        payload: p,
        truncated: false,
        direction: dir,
        src: "127.0.0.1:27960".parse().unwrap(),
        dst: "127.0.0.1:50000".parse().unwrap(),
        time: Timestamp::default(),
        frame: i + 1,
        index_in_flow: i,
        conversations: 1,
        overheard: Default::default(),
        role_source: RoleSource::Content,
        detail: true.into(),
    }
}

fn run(flow: &mut dyn FlowDecoder, p: &[u8], dir: Direction) -> Record {
    let mut out = Vec::new();
    flow.decode(&dgram(p, dir, 0), &mut out);
    assert_eq!(out.len(), 1);
    let r = out.pop().unwrap();
    for n in &r.notes {
        let def = n.def;
        assert!(notes::ALL.contains(&def), "{} is not listed", def.name);
    }
    r
}

#[test]
fn tv3_legacy_flow_decodes_print() {
    let mut f = PROTOCOL.new_flow(&Prefs::default());
    run(
        &mut *f,
        b"\xff\xff\xff\xffchallengeResponse 1234567 5 71",
        Direction::ToClient,
    );
    // The client command #3 the server acknowledges (key string).
    f_put_client_cmd(&mut *f);
    let r = run(
        &mut *f,
        &hex("050000006c3562ab74746206bb33cc1bb051682344f3"),
        Direction::ToClient,
    );
    assert!(!r.has_errors(), "{:?}", r.notes);
    assert_eq!(
        r.find("quake3.svc.command.text").unwrap().value,
        Value::Str("print \"hello\"".into())
    );
    assert_eq!(
        r.find("quake3.svc.command.message").unwrap().value,
        Value::Str("hello".into())
    );
    assert_eq!(
        r.find("quake3.netchan.flavour").unwrap().value,
        Value::Enum(0, "legacy")
    );
    assert!(r.summary.contains("print \"hello\""), "{}", r.summary);
}

/// Feeds an ioq3-flavour-free way of teaching client command 3 = "say hello": a legacy C→S
/// message carrying it (built with the test writer and keyed like a real client).
fn f_put_client_cmd(f: &mut dyn FlowDecoder) {
    let mut w = BitWriter::default();
    w.long(0); // serverId
    w.long(0); // messageAcknowledge
    w.long(0); // reliableAcknowledge
    w.byte(4);
    w.long(3);
    w.string(b"say hello");
    w.byte(5);
    let mut body = w.data;
    let key = 1234567u32 as u8; // challenge ^ serverId 0 ^ messageAcknowledge 0
    netchan::xor(&mut body, 12, key, b"");
    let mut p = vec![1, 0, 0, 0, 0x34, 0x12];
    p.extend_from_slice(&body);
    let r = run(f, &p, Direction::ToServer);
    assert!(!r.has_errors(), "{:?}", r.notes);
    assert_eq!(
        r.find("quake3.clc.command.message").unwrap().value,
        Value::Str("hello".into())
    );
}

#[test]
fn tv4_ioq3_flow() {
    let mut f = PROTOCOL.new_flow(&Prefs::default());
    run(
        &mut *f,
        b"\xff\xff\xff\xffchallengeResponse 1234567 5 72",
        Direction::ToClient,
    );
    let r = run(
        &mut *f,
        &hex("0500000024e64c006c3562ab8547280cd99b0807c3c49c256205"),
        Direction::ToClient,
    );
    assert!(!r.has_errors(), "{:?}", r.notes);
    assert_eq!(
        r.find("quake3.netchan.flavour").unwrap().value,
        Value::Enum(1, "ioq3")
    );
    assert_eq!(
        r.find("quake3.netchan.checksum")
            .unwrap()
            .meaning
            .as_deref(),
        Some("correct")
    );
    assert_eq!(
        r.find("quake3.svc.reliable_ack").unwrap().value,
        Value::UInt(3)
    );
}

#[test]
fn tv6_legacy_client_flow_with_usercmds() {
    let mut f = PROTOCOL.new_flow(&Prefs::default());
    run(
        &mut *f,
        b"\xff\xff\xff\xffchallengeResponse 1234567 5 71",
        Direction::ToClient,
    );
    // Teach server command 4 and the checksumFeed with an ioq3-free legacy gamestate is long;
    // instead check the structure decodes (the key string is found by the fallback).
    let r = run(
        &mut *f,
        &hex("070000003412cf996ce7676ba88a44a218b00cccab65e0001579447ed2c4eeda149fd4758e"),
        Direction::ToServer,
    );
    // Without the server command text the de-keying cannot succeed: the decoder must not panic
    // and must still show the acknowledgements.
    assert_eq!(
        r.find("quake3.clc.server_id").unwrap().value,
        Value::Int(123456)
    );
}

#[test]
fn probe_roles() {
    let pi = |p: &'static [u8]| ProbeInput {
        payload: p,
        src_port: 50000,
        dst_port: 1234,
    };
    assert_eq!(
        PROTOCOL.probe(&pi(b"\xff\xff\xff\xffgetstatus")),
        Probe::certain(Some(Role::Client))
    );
    assert_eq!(
        PROTOCOL.probe(&pi(b"\xff\xff\xff\xffstatusResponse\n\\a\\b")),
        Probe::certain(Some(Role::Server))
    );
    assert_eq!(
        PROTOCOL.probe(&pi(b"\xff\xff\xff\xffTSource Engine Query")),
        Probe::NO
    );
    assert_eq!(PROTOCOL.probe(&pi(b"\x01\x00\x00\x00\x00\x00")), Probe::NO);
    let on_port = ProbeInput {
        payload: b"\x01\x00\x00\x00\x00\x00",
        src_port: 50000,
        dst_port: 27960,
    };
    assert_eq!(PROTOCOL.probe(&on_port), Probe::likely(Some(Role::Client)));
}

/// A field not declared repeated occurs at most once under its parent.
fn unique_children(f: &Field) {
    let mut seen = std::collections::HashSet::new();
    for c in &f.children {
        assert!(
            c.def.repeated || seen.insert(c.def.name),
            "{} twice under {}",
            c.def.name,
            f.def.name
        );
        unique_children(c);
    }
}

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }
}

#[test]
fn property_no_panic_on_random_flows() {
    let seeds: Vec<Vec<u8>> = vec![
        b"\xff\xff\xff\xffchallengeResponse 1234567 5 71".to_vec(),
        hex("050000006c3562ab74746206bb33cc1bb051682344f3"),
        hex("0500000024e64c006c3562ab8547280cd99b0807c3c49c256205"),
        hex("070000003412cf996ce7676ba88a44a218b00cccab65e0001579447ed2c4eeda149fd4758e"),
        hex("070000003412360b9100cf996ce7676ba88a44a218b0bd9bdc76c36354de8c6ca5f3ad53e586ef8800"),
        b"\xff\xff\xff\xffstatusResponse\n\\mapname\\q3dm1\n1 2 \"x\"\n".to_vec(),
        b"\xff\xff\xff\xffgetserversExtResponse\\\x01\x02\x03\x04\x00\x01/0123456789abcdef\x00\x02\\EOT\0\0\0".to_vec(),
        b"\xff\xff\xff\xffconnect \x00\x10\xaa\xbb".to_vec(),
        vec![0x05, 0x00, 0x00, 0x80, 0x00, 0x00, 0x14, 0x05],
    ];
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut total = 0;
    for flow_i in 0..1000 {
        let mut f = PROTOCOL.new_flow(&Prefs::default());
        for k in 0..21 {
            let mut p = if rng.next().is_multiple_of(3) {
                let n = (rng.next() % 200) as usize;
                (0..n).map(|_| rng.next() as u8).collect::<Vec<u8>>()
            } else {
                seeds[(rng.next() as usize) % seeds.len()].clone()
            };
            let muts = rng.next() % 4;
            for _ in 0..muts {
                if p.is_empty() {
                    break;
                }
                let i = (rng.next() as usize) % p.len();
                match rng.next() % 3 {
                    0 => p[i] ^= 1 << (rng.next() % 8),
                    1 => p.truncate(i),
                    _ => p[i] = rng.next() as u8,
                }
            }
            if rng.next().is_multiple_of(5) && p.len() > 4 {
                p[3] |= 0x80; // fragment bit
            }
            let dir = if rng.next().is_multiple_of(2) {
                Direction::ToServer
            } else {
                Direction::ToClient
            };
            let mut out = Vec::new();
            f.decode(&dgram(&p, dir, k), &mut out);
            assert!(!out.is_empty(), "flow {flow_i} datagram {k}");
            for r in &out {
                r.fields.iter().for_each(unique_children);
            }
            total += 1;
        }
    }
    assert!(total >= 20_000);
}

#[test]
fn mid_capture_legacy_is_a_note_not_an_error() {
    let mut f = PROTOCOL.new_flow(&Prefs::default());
    // Without a handshake the first message decides no flavour: only its sequence is read.
    let first = run(
        &mut *f,
        &hex("050000006c3562ab74746206bb33cc1bb051682344f3"),
        Direction::ToClient,
    );
    assert!(!first.has_errors(), "{:?}", first.notes);
    assert_eq!(first.msg_type, "netchan");
    assert!(
        first
            .notes
            .iter()
            .any(|n| n.message.contains("not decided yet"))
    );
    assert_eq!(
        first.find("quake3.netchan.sequence").unwrap().value,
        Value::UInt(5)
    );
    assert!(first.find("quake3.svc.reliable_ack").is_none());
    // The second that does not parse in the ioquake3 layout decides legacy.
    let r = run(
        &mut *f,
        &hex("060000006c3562ab74746206bb33cc1bb051682344f3"),
        Direction::ToClient,
    );
    assert!(!r.has_errors(), "{:?}", r.notes);
    assert!(r.notes.iter().any(|n| n.message.contains("not captured")));
    assert_eq!(
        r.find("quake3.svc.reliable_ack").unwrap().value,
        Value::UInt(3)
    );
    assert_eq!(r.msg_type, "keyed");
}

#[test]
fn lost_fragment_is_a_note() {
    let mut f = PROTOCOL.new_flow(&Prefs::default());
    run(
        &mut *f,
        b"\xff\xff\xff\xffchallengeResponse 1234567 5 71",
        Direction::ToClient,
    );
    // Fragment 2 of sequence 9 without fragment 1.
    let mut p = vec![9, 0, 0, 0x80, 0x14, 0x05, 0x03, 0x00];
    p.extend_from_slice(&[1, 2, 3]);
    let r = run(&mut *f, &p, Direction::ToClient);
    assert!(!r.has_errors(), "{:?}", r.notes);
    assert_eq!(r.msg_type, "fragment");
    assert!(r.summary.contains("dropped"), "{}", r.summary);
    assert_eq!(
        r.find("quake3.netchan.fragment_start").unwrap().value,
        Value::UInt(1300)
    );
}

#[test]
fn fragments_reassemble_across_datagrams() {
    // An ioq3-flavour S→C message of 1300 + 2 bytes: reliable ack 3, svc_serverCommand 1
    // "print \"...\"" padded with nops, EOF. Built with the test writer.
    let mut w = BitWriter::default();
    w.long(3);
    for _ in 0..700 {
        w.byte(1); // svc_nop (code 11011: 5 bits)
    }
    w.byte(5);
    w.long(1);
    w.string(b"print \"x\"");
    w.byte(8);
    let mut msg = w.data;
    msg.resize(1302, 0);
    let ch = 1234567i32;
    let seq = 2u32;
    let mut f = PROTOCOL.new_flow(&Prefs::default());
    run(
        &mut *f,
        b"\xff\xff\xff\xffchallengeResponse 1234567 5 72",
        Direction::ToClient,
    );
    let mut out = Vec::new();
    for (start, part) in [(0usize, &msg[..1300]), (1300, &msg[1300..])] {
        let mut p = (seq | netchan::FRAGMENT_BIT).to_le_bytes().to_vec();
        p.extend_from_slice(&netchan::checksum(ch, seq).to_le_bytes());
        p.extend_from_slice(&(start as u16).to_le_bytes());
        p.extend_from_slice(&(part.len() as u16).to_le_bytes());
        p.extend_from_slice(part);
        out.push(run(&mut *f, &p, Direction::ToClient));
    }
    assert_eq!(out[0].msg_type, "fragment");
    let r = &out[1];
    assert!(!r.has_errors(), "{:?}", r.notes);
    assert_eq!(
        r.find("quake3.netchan.reassembled").unwrap().value,
        Value::UInt(1302)
    );
    assert_eq!(r.find("quake3.svc.nop").unwrap().value, Value::UInt(700));
    assert_eq!(
        r.find("quake3.svc.command.message").unwrap().value,
        Value::Str("x".into())
    );
    assert_eq!(r.sources.len(), 1);
}

/// An ioq3-flavour S→C datagram around a message body.
fn ioq3_s2c(seq: u32, body: &[u8]) -> Vec<u8> {
    let mut p = seq.to_le_bytes().to_vec();
    p.extend_from_slice(&netchan::checksum(1234567, seq).to_le_bytes());
    p.extend_from_slice(body);
    p
}

/// Entity delta writing only field `i` (integer of `bits`) = v (`MSG_WriteDeltaEntity`).
fn write_entity_field(w: &mut BitWriter, num: u16, i: usize, bits: i32, v: i64) {
    w.bits(num as i64, 10);
    w.bit(0); // not removed
    w.bit(1); // has delta
    w.byte((i + 1) as u8);
    for _ in 0..i {
        w.bit(0);
    }
    w.bit(1);
    w.bit(1); // non-zero
    w.bits(v, bits);
}

/// The start of a snapshot message: reliable ack, svc_snapshot, header, an area mask and a
/// player state changing only commandTime (to `time` − 10).
fn snap_header(w: &mut BitWriter, time: i64, delta: u8) {
    w.long(0);
    w.byte(7);
    w.long(time);
    w.byte(delta);
    w.byte(0); // flags
    w.byte(1);
    w.byte(0xff); // area mask
    w.byte(1); // ps lc = 1
    w.bit(1);
    w.bits(time - 10, 32); // commandTime
    w.bit(0); // no arrays
}

/// The end of the entity list and of the message.
fn snap_end(w: &mut BitWriter) {
    w.bits(1023, 10);
    w.byte(8);
}

/// A snapshot message with no entity records.
fn no_entities(time: i64, delta: u8) -> Vec<u8> {
    let mut w = BitWriter::default();
    snap_header(&mut w, time, delta);
    snap_end(&mut w);
    w.data
}

/// A snapshot message with one entity record setting field `i` (an integer of `bits`).
fn one_entity(time: i64, delta: u8, num: u16, i: usize, bits: i32, v: i64) -> Vec<u8> {
    let mut w = BitWriter::default();
    snap_header(&mut w, time, delta);
    write_entity_field(&mut w, num, i, bits, v);
    snap_end(&mut w);
    w.data
}

fn value(r: &Record, name: &str) -> Value {
    match r.find(name) {
        Some(f) => f.value.clone(),
        None => panic!("no {name} in {:?}", r.fields),
    }
}

/// A flow after an ioquake3 handshake and a gamestate (serverinfo, a player configstring,
/// baseline 5 with modelindex (29) = 7), with the gamestate's record.
fn flow_after_gamestate() -> (Box<dyn FlowDecoder>, Record) {
    let mut f = PROTOCOL.new_flow(&Prefs::default());
    run(
        &mut *f,
        b"\xff\xff\xff\xffchallengeResponse 1234567 5 72",
        Direction::ToClient,
    );
    let mut w = BitWriter::default();
    w.long(0);
    w.byte(2);
    w.long(4);
    w.byte(3);
    w.bits(0, 16);
    w.string(b"\\mapname\\q3dm17\\sv_hostname\\Test");
    w.byte(3);
    w.bits(544, 16);
    w.string(b"n\\Visor\\t\\0");
    w.byte(4);
    write_entity_field(&mut w, 5, 29, 8, 7);
    w.byte(8);
    w.long(1); // clientNum
    w.long(-559038737); // checksumFeed
    w.byte(8);
    let r = run(&mut *f, &ioq3_s2c(1, &w.data), Direction::ToClient);
    (f, r)
}

/// Snapshot seq 2, not delta'd: entity 5 from its baseline gets eType (11) = 2.
fn snapshot_from_baseline(f: &mut dyn FlowDecoder) -> Record {
    run(
        f,
        &ioq3_s2c(2, &one_entity(1000, 0, 5, 11, 8, 2)),
        Direction::ToClient,
    )
}

fn has_note(r: &Record, text: &str) -> bool {
    r.notes.iter().any(|n| n.message.contains(text))
}

#[test]
fn gamestate_configstrings_and_baselines() {
    let (_, r) = flow_after_gamestate();
    assert!(!r.has_errors(), "{:?}", r.notes);
    assert_eq!(
        r.summary,
        "S→C seq 1 gamestate map q3dm17 2 configstrings 1 baselines client 1"
    );
    assert_eq!(
        value(&r, "quake3.svc.gamestate.checksum_feed"),
        Value::Int(-559038737)
    );
    let names = r.find_all("quake3.svc.gamestate.configstring.name");
    assert_eq!(names[1].value, Value::Str("player".into()));
}

#[test]
fn snapshot_deltas_from_baselines_and_snapshots() {
    let (mut f, _) = flow_after_gamestate();
    let r = snapshot_from_baseline(&mut *f);
    assert!(!r.has_errors(), "{:?}", r.notes);
    let base = "quake3.svc.snapshot.entity.base";
    assert_eq!(value(&r, base), Value::Enum(1, "baseline"));
    assert_eq!(
        value(&r, "quake3.svc.snapshot.entity.modelindex"),
        Value::Int(7)
    );
    assert_eq!(
        value(&r, "quake3.svc.snapshot.entity.e_type"),
        Value::Int(2)
    );
    assert_eq!(
        value(&r, "quake3.svc.snapshot.ps.command_time"),
        Value::Int(990)
    );

    // Seq 3 delta'd from 2 with no entity records: entity 5 is carried over.
    let r = run(
        &mut *f,
        &ioq3_s2c(3, &no_entities(1050, 1)),
        Direction::ToClient,
    );
    assert!(!r.has_errors(), "{:?}", r.notes);
    assert_eq!(value(&r, "quake3.svc.snapshot.entities"), Value::UInt(1));
    assert_eq!(value(&r, "quake3.svc.snapshot.delta_from"), Value::UInt(2));

    // Seq 4 from 3: entity 5 changes only frame (50) from the previous snapshot state.
    let r = run(
        &mut *f,
        &ioq3_s2c(4, &one_entity(1100, 1, 5, 50, 16, 3)),
        Direction::ToClient,
    );
    assert_eq!(value(&r, base), Value::Enum(0, "previous snapshot"));
    assert_eq!(
        value(&r, "quake3.svc.snapshot.entity.e_type"),
        Value::Int(2)
    );
    assert_eq!(value(&r, "quake3.svc.snapshot.entity.frame"), Value::Int(3));
    assert_eq!(r.find_all("quake3.svc.snapshot.entity.changed").len(), 1);

    // Seq 5 from 4 removes it; seq 6 deltas from a snapshot never captured: a note.
    let mut w = BitWriter::default();
    snap_header(&mut w, 1150, 1);
    w.bits(5, 10);
    w.bit(1);
    snap_end(&mut w);
    let r = run(&mut *f, &ioq3_s2c(5, &w.data), Direction::ToClient);
    assert_eq!(value(&r, "quake3.svc.snapshot.removed"), Value::UInt(5));
    assert_eq!(value(&r, "quake3.svc.snapshot.entities"), Value::UInt(0));
    let r = run(
        &mut *f,
        &ioq3_s2c(6, &no_entities(1200, 9)),
        Direction::ToClient,
    );
    assert!(!r.has_errors());
    assert!(has_note(&r, "was not captured"));
    assert_eq!(
        value(&r, "quake3.svc.snapshot.ps.partial"),
        Value::Bool(true)
    );
}

/// Slots by sequence modulo 32, as the client keeps them: seq 34 takes seq 2's slot, so a
/// delta from 2 finds nothing (the engine's "Delta frame too old"), while a delta of exactly
/// 32 from 34 (into the very slot it reads) still finds it.
#[test]
fn snapshot_slots_by_sequence() {
    let (mut f, _) = flow_after_gamestate();
    snapshot_from_baseline(&mut *f);
    let entities = "quake3.svc.snapshot.entities";
    let r = run(
        &mut *f,
        &ioq3_s2c(34, &one_entity(2000, 0, 7, 11, 8, 4)),
        Direction::ToClient,
    );
    assert!(!r.has_errors(), "{:?}", r.notes);
    assert_eq!(value(&r, entities), Value::UInt(1));
    let r = run(
        &mut *f,
        &ioq3_s2c(35, &no_entities(2050, 33)),
        Direction::ToClient,
    );
    assert!(
        has_note(&r, "reference snapshot 2 was not captured"),
        "{:?}",
        r.notes
    );
    // Without its reference the entity list is not whole: no count (not 0).
    assert!(r.find(entities).is_none());
    let r = run(
        &mut *f,
        &ioq3_s2c(66, &no_entities(2100, 32)),
        Direction::ToClient,
    );
    assert!(!has_note(&r, "was not captured"), "{:?}", r.notes);
    assert_eq!(value(&r, "quake3.svc.snapshot.delta_from"), Value::UInt(34));
    assert_eq!(value(&r, entities), Value::UInt(1));
    assert_eq!(
        value(&r, "quake3.svc.snapshot.ps.command_time"),
        Value::Int(2090)
    );
}

/// After a lost reference, a snapshot's entity list holds only what was sent since: an entity
/// it lacks may have been in the real reference, so its delta is not from its baseline (unless
/// it is known to be gone: removed since). Before,
/// entity 5 showed its baseline's modelindex 7 (in the ioquake3 busy capture thinned by 5 %,
/// frame 989's entity 82 showed pos.trDelta[2] -45600 where the whole capture has -400).
#[test]
fn an_entity_missing_from_a_partial_reference_is_not_from_its_baseline() {
    let (mut f, _) = flow_after_gamestate();
    // The entity's field `name`, when shown.
    let ent = |r: &Record, name: &str| {
        let f = r.find(&format!("quake3.svc.snapshot.entity.{name}"));
        f.map(|f| f.value.clone())
    };
    let (unknown, partial) = (Value::Enum(4, "reference not captured"), Value::Bool(true));
    let mut snap =
        |seq: u32, body: Vec<u8>| run(&mut *f, &ioq3_s2c(seq, &body), Direction::ToClient);
    // Seq 3 deltas from seq 2, never captured: entity 5 sends eType (11) = 2.
    let r = snap(3, one_entity(1050, 1, 5, 11, 8, 2));
    assert!(has_note(&r, "fields not sent are unknown"), "{:?}", r.notes);
    assert_eq!(ent(&r, "base"), Some(unknown.clone()));
    assert_eq!(ent(&r, "e_type"), Some(Value::Int(2)));
    assert_eq!(ent(&r, "modelindex"), None);
    assert_eq!(ent(&r, "partial"), Some(partial.clone()));
    // Seq 4 from seq 3 (captured, its list not whole): entity 5 keeps what was sent (eType),
    // the rest stays unknown.
    let r = snap(4, one_entity(1100, 1, 5, 50, 16, 3));
    assert_eq!(ent(&r, "base"), Some(Value::Enum(0, "previous snapshot")));
    assert_eq!(ent(&r, "e_type"), Some(Value::Int(2)));
    assert_eq!(ent(&r, "frame"), Some(Value::Int(3)));
    assert_eq!(ent(&r, "modelindex"), None);
    assert_eq!(ent(&r, "partial"), Some(partial.clone()));
    // Seq 5 from 4: entity 6 is not in seq 4's list either.
    let r = snap(5, one_entity(1150, 1, 6, 50, 16, 1));
    assert_eq!(ent(&r, "base"), Some(unknown));
    assert_eq!(ent(&r, "partial"), Some(partial));
    // Seq 6 from 5 removes entity 5: known not to be in seq 6, so when seq 7 sends it again it
    // is new, from its baseline, all known.
    let mut w = BitWriter::default();
    snap_header(&mut w, 1200, 1);
    w.bits(5, 10);
    w.bit(1); // removed
    snap_end(&mut w);
    snap(6, w.data);
    let r = snap(7, one_entity(1250, 1, 5, 11, 8, 2));
    assert_eq!(ent(&r, "base"), Some(Value::Enum(1, "baseline")));
    assert_eq!(ent(&r, "modelindex"), Some(Value::Int(7)));
    assert_eq!(ent(&r, "partial"), None);
    // A non-delta snapshot makes the list whole again: every entity not listed is gone.
    snap(8, no_entities(1300, 0));
    let r = snap(9, one_entity(1350, 1, 6, 50, 16, 1));
    assert_eq!(ent(&r, "base"), Some(Value::Enum(2, "zero baseline")));
    assert_eq!(ent(&r, "partial"), None);
}

/// An ioquake3 client message carrying only its header (serverId and acknowledgements).
fn ioq3_c2s(seq: u32, server_id: i64) -> Vec<u8> {
    let mut w = BitWriter::default();
    w.long(server_id);
    w.long(0); // messageAcknowledge
    w.long(0); // reliableAcknowledge
    w.byte(5); // clc_EOF
    let mut p = seq.to_le_bytes().to_vec();
    p.extend_from_slice(&7u16.to_le_bytes());
    p.extend_from_slice(&netchan::checksum(1234567, seq).to_le_bytes());
    p.extend_from_slice(&w.data);
    p
}

/// A server message whose command 1 names serverId 77 (CS_SYSTEMINFO's `sv_serverid`).
fn serverid_77() -> Vec<u8> {
    let mut w = BitWriter::default();
    w.long(0);
    w.byte(5);
    w.long(1);
    w.string(b"cs 1 \"\\sv_serverid\\77\"");
    w.byte(8);
    w.data
}

/// A client on a serverId no captured gamestate or systeminfo named holds a gamestate the
/// capture lost (a map change): the baselines kept are the old level's, so a non-delta
/// snapshot's entities are not read from them. Before, entity 5 showed the old baseline's
/// modelindex (in the ioquake3 busy capture thinned by 20 %, the second gamestate's last
/// fragment is lost, and frame 3160 showed old-map eType and origin values).
#[test]
fn after_a_lost_gamestate_the_old_baselines_are_not_used() {
    let (mut f, _) = flow_after_gamestate();
    let modelindex = "quake3.svc.snapshot.entity.modelindex";
    let base = "quake3.svc.snapshot.entity.base";
    let r = run(&mut *f, &ioq3_s2c(2, &serverid_77()), Direction::ToClient);
    assert!(!r.has_errors(), "{:?}", r.notes);
    // The client on serverId 77, this level's: the baseline applies.
    run(&mut *f, &ioq3_c2s(1, 77), Direction::ToServer);
    let r = run(
        &mut *f,
        &ioq3_s2c(3, &one_entity(1000, 0, 5, 11, 8, 2)),
        Direction::ToClient,
    );
    assert_eq!(value(&r, modelindex), Value::Int(7));
    // The client on serverId 99: a gamestate the capture lacks.
    let r = run(&mut *f, &ioq3_c2s(2, 99), Direction::ToServer);
    assert_eq!(value(&r, "quake3.clc.server_id"), Value::Int(99));
    let r = run(
        &mut *f,
        &ioq3_s2c(4, &one_entity(1050, 0, 5, 11, 8, 2)),
        Direction::ToClient,
    );
    assert_eq!(value(&r, base), Value::Enum(3, "baseline not captured"));
    assert!(r.find(modelindex).is_none(), "{:?}", r.find(modelindex));
    assert_eq!(
        value(&r, "quake3.svc.snapshot.entity.partial"),
        Value::Bool(true)
    );
}

/// A client message that comes after a newer one (reordered or duplicated on the way) is
/// dropped by the engine (ioquake3 code/qcommon/net_chan.c `Netchan_Process`): its serverId,
/// the old level's, does not make the old level's baselines apply again to the next snapshot.
#[test]
fn a_reordered_client_message_does_not_change_the_level() {
    let (mut f, _) = flow_after_gamestate();
    run(&mut *f, &ioq3_s2c(2, &serverid_77()), Direction::ToClient);
    run(&mut *f, &ioq3_c2s(1, 77), Direction::ToServer);
    // The map changes (a gamestate the capture lacks); then client message 1 again, late.
    run(&mut *f, &ioq3_c2s(2, 99), Direction::ToServer);
    let r = run(&mut *f, &ioq3_c2s(1, 77), Direction::ToServer);
    assert!(has_note(&r, "not newer than 2"), "{:?}", r.notes);
    let r = run(
        &mut *f,
        &ioq3_s2c(3, &one_entity(1050, 0, 5, 11, 8, 2)),
        Direction::ToClient,
    );
    let base = value(&r, "quake3.svc.snapshot.entity.base");
    assert_eq!(base, Value::Enum(3, "baseline not captured"));
    assert!(r.find("quake3.svc.snapshot.entity.modelindex").is_none());
}

#[test]
fn bcs_commands_reassemble_a_configstring() {
    let mut f = PROTOCOL.new_flow(&Prefs::default());
    run(
        &mut *f,
        b"\xff\xff\xff\xffchallengeResponse 1234567 5 72",
        Direction::ToClient,
    );
    let mut w = BitWriter::default();
    w.long(0);
    for (n, text) in [
        (1, &b"bcs0 0 \"\\mapname\\q3\""[..]),
        (2, b"bcs1 0 \"dm17\\sv_hostname\""),
        (3, b"bcs2 0 \"\\Big\""),
    ] {
        w.byte(5);
        w.long(n);
        w.string(text);
    }
    w.byte(8);
    let r = run(&mut *f, &ioq3_s2c(1, &w.data), Direction::ToClient);
    assert!(!r.has_errors(), "{:?}", r.notes);
    assert_eq!(
        r.find("quake3.svc.command.cs_value").unwrap().value,
        Value::Str("\\mapname\\q3dm17\\sv_hostname\\Big".into())
    );
    assert_eq!(r.find_all("quake3.svc.command.info.pair").len(), 2);
    assert!(
        r.summary.ends_with("bcs0 0; bcs1 0; bcs2 0"),
        "{}",
        r.summary
    );
}

#[test]
fn sequence_gaps_and_duplicates_are_notes() {
    let mut f = PROTOCOL.new_flow(&Prefs::default());
    run(
        &mut *f,
        b"\xff\xff\xff\xffchallengeResponse 1234567 5 72",
        Direction::ToClient,
    );
    let mut w = BitWriter::default();
    w.long(0);
    w.byte(8);
    let a = run(&mut *f, &ioq3_s2c(1, &w.data), Direction::ToClient);
    let b = run(&mut *f, &ioq3_s2c(4, &w.data), Direction::ToClient);
    let c = run(&mut *f, &ioq3_s2c(4, &w.data), Direction::ToClient);
    assert!(!a.notes.iter().any(|n| n.message.contains("captured")));
    assert!(
        b.notes.iter().any(|n| n.message.contains("2 message(s)")),
        "{:?}",
        b.notes
    );
    assert!(
        c.notes.iter().any(|n| n.message.contains("duplicate")),
        "{:?}",
        c.notes
    );
    assert!(![&a, &b, &c].iter().any(|r| r.has_errors()));
}

/// Structured random messages: valid Huffman symbols and plausible opcodes, so that the svc and
/// clc parsers (gamestate, snapshot deltas, usercmds) are reached deeply, in both directions.
#[test]
fn property_structured_random_messages() {
    let mut rng = Rng(0x1234_5678_9abc_def1);
    let mut total = 0;
    for _ in 0..400 {
        let mut f = PROTOCOL.new_flow(&Prefs::default());
        run(
            &mut *f,
            b"\xff\xff\xff\xffchallengeResponse 1234567 5 72",
            Direction::ToClient,
        );
        for seq in 1..=30u32 {
            let to_server = rng.next().is_multiple_of(2);
            let mut w = BitWriter::default();
            w.long((rng.next() % 8) as i64);
            if to_server {
                w.long((rng.next() % 8) as i64);
                w.long((rng.next() % 8) as i64);
            }
            for _ in 0..1 + rng.next() % 4 {
                let op = if to_server {
                    [1u8, 2, 3, 4, 5, 6, 7][(rng.next() % 7) as usize]
                } else {
                    [1u8, 2, 4, 5, 6, 7, 8, 9, 10][(rng.next() % 9) as usize]
                };
                w.byte(op);
                for _ in 0..rng.next() % 40 {
                    match rng.next() % 4 {
                        0 => w.bit((rng.next() % 2) as u32),
                        1 => w.byte((rng.next() % 4) as u8),
                        2 => w.byte(rng.next() as u8),
                        _ => w.bits(1023, 10),
                    }
                }
            }
            w.byte(if to_server { 5 } else { 8 });
            let mut p = seq.to_le_bytes().to_vec();
            if to_server {
                p.extend_from_slice(&7u16.to_le_bytes());
            }
            p.extend_from_slice(&netchan::checksum(1234567, seq).to_le_bytes());
            p.extend_from_slice(&w.data);
            let dir = if to_server {
                Direction::ToServer
            } else {
                Direction::ToClient
            };
            let mut out = Vec::new();
            f.decode(&dgram(&p, dir, seq as u64), &mut out);
            assert_eq!(out.len(), 1);
            out[0].fields.iter().for_each(unique_children);
            total += 1;
        }
    }
    assert_eq!(total, 12_000);
}

/// A snapshot whose entity records come out of order ends at the first such record with an
/// error, and is not kept as a reference: a delta from it finds nothing. Before, the merge
/// repeated the reference's entities, and a chain of such deltas grew the list without bound.
#[test]
fn out_of_order_entities_end_the_snapshot_and_bound_its_state() {
    let (mut f, _) = flow_after_gamestate();
    snapshot_from_baseline(&mut *f);
    let out_of_order = |time: i64, delta: u8| {
        let mut w = BitWriter::default();
        snap_header(&mut w, time, delta);
        write_entity_field(&mut w, 9, 11, 8, 1);
        write_entity_field(&mut w, 7, 11, 8, 1);
        snap_end(&mut w);
        w.data
    };
    let r = run(
        &mut *f,
        &ioq3_s2c(3, &out_of_order(1050, 1)),
        Direction::ToClient,
    );
    assert!(r.has_errors());
    assert!(
        has_note(&r, "entity 7 out of order after 9"),
        "{:?}",
        r.notes
    );
    let r = run(
        &mut *f,
        &ioq3_s2c(4, &no_entities(1100, 1)),
        Direction::ToClient,
    );
    assert!(
        has_note(&r, "reference snapshot 3 was not captured"),
        "{:?}",
        r.notes
    );
    // A long chain of them: the flow's state stays that of a flow with one entity.
    let before = f.state_bytes();
    for seq in 5..2_005u32 {
        run(
            &mut *f,
            &ioq3_s2c(seq, &out_of_order(1100 + seq as i64, 1)),
            Direction::ToClient,
        );
    }
    assert!(
        f.state_bytes() <= before + 64 * 1024,
        "{} → {}",
        before,
        f.state_bytes()
    );
}

/// A flow that never carried a reliable command holds nothing on the heap (the command rings
/// are made at the first command), and a gamestate counts exactly its baseline table and the
/// one baseline it set, however the count is kept.
#[test]
fn state_bytes_count_what_the_flow_gathered() {
    let fresh = PROTOCOL.new_flow(&Prefs::default());
    assert_eq!(fresh.state_bytes(), 0);
    let (f, _) = flow_after_gamestate();
    let table = 1024 * std::mem::size_of::<Option<Box<EntState>>>();
    let baseline = std::mem::size_of::<EntState>();
    assert_eq!(f.state_bytes(), table + baseline);
    let ring = 64 * std::mem::size_of::<(u32, Vec<u8>)>();
    let mut g = PROTOCOL.new_flow(&Prefs::default());
    run(
        &mut *g,
        b"\xff\xff\xff\xffchallengeResponse 1234567 5 68",
        Direction::ToClient,
    );
    assert_eq!(g.state_bytes(), 0);
    f_put_client_cmd(&mut *g);
    assert_eq!(g.state_bytes(), ring + b"say hello".len());
}

#[test]
fn a_recovered_command_is_marked_until_a_captured_copy_replaces_it() {
    let mut ring = Ring::default();
    ring.put_recovered(5, b"cs 6 \"1\"\n");
    assert!(ring.is_recovered(5));
    assert_eq!(ring.get(5), Some(&b"cs 6 \"1\"\n"[..]));
    // Another number in the same slot is not the recovered one.
    assert!(!ring.is_recovered(5 + MAX_RELIABLE_COMMANDS as u32));
    // A recovered text never replaces a captured one; a captured one replaces a recovered one.
    assert!(ring.put(5, b"cs 6 \"2\"\n"));
    assert!(!ring.put(5, b"cs 6 \"2\"\n"));
    assert!(!ring.is_recovered(5));
    assert_eq!(ring.get(5), Some(&b"cs 6 \"2\"\n"[..]));
    ring.put_recovered(5, b"cs 6 \"3\"\n");
    assert_eq!(ring.get(5), Some(&b"cs 6 \"2\"\n"[..]));
    assert!(!ring.is_recovered(5));
}

/// A client message decoded again after newer ones files a command only where no newer one
/// took the ring slot.
#[test]
fn a_ring_slot_knows_when_it_holds_a_newer_command() {
    let mut ring = Ring::default();
    let n = 5 + MAX_RELIABLE_COMMANDS as u32;
    assert!(!ring.newer_than(5));
    ring.put(n, b"say sixty-nine");
    assert!(!ring.newer_than(n));
    assert!(ring.newer_than(5));
    assert!(!ring.newer_than(n + MAX_RELIABLE_COMMANDS as u32));
    assert!(!ring.newer_than(6));
}

/// A gamestate's ring slots key only the client messages sent under it: a move of the level
/// before (held while its pad was searched for, decoded again after the new gamestate)
/// acknowledges a command the client did receive, whose text the capture lost (the busy capture
/// with 30 % lost, seed 2,030: weapon 250 shown where the client held 2).
#[test]
fn a_ring_slot_keys_only_messages_under_its_gamestate() {
    let mut st = State {
        gamestate_cmd_seq: Some(17),
        feed_server_id: Some(79292),
        ..Default::default()
    };
    assert_eq!(st.acked_text(12, Some(79292)), Some(&b""[..]));
    assert_eq!(st.acked_text(12, Some(991)), None);
    assert_eq!(st.acked_text(12, None), None);
    assert_eq!(st.acked_text(18, Some(79292)), None);
    st.server_cmds.put(12, b"chat \"x\"");
    assert_eq!(st.acked_text(12, Some(991)), Some(&b"chat \"x\""[..]));
}

/// The predicted echo of the client's newest `say` uses the player's current name: the wrapping
/// learned from a captured pair still carries the old name after a rename (the busy capture with
/// 20 % lost: the echo of `say 05…`, sent after the rename, was lost, and the client messages
/// keyed with it wait for this prediction), and OpenArena's own wrapping is built for each name
/// known (g_cmds.c `G_Say`: `chat "<name>^7\x19: ^2<line>"`).
#[test]
fn a_chat_echo_is_predicted_under_the_renamed_players_name() {
    let mut st = State::default();
    st.client_cmds.put(4, b"say chat 04 before the rename");
    st.server_cmds.put(
        30,
        b"chat \"BusyPlayer^7\x19: ^2chat 04 before the rename\"",
    );
    st.server_cmds
        .put(31, b"print \"BusyPlayer^7 renamed to BusyRenamed\n\"");
    st.client_cmds.put(8, b"say 05: renamed now, weapons next");
    let predicted = st.predicted_server_commands();
    let want = b"chat \"BusyRenamed^7\x19: ^205: renamed now, weapons next\"".to_vec();
    assert!(predicted.contains(&want), "{predicted:?}");
    let old = b"chat \"BusyPlayer^7\x19: ^205: renamed now, weapons next\"".to_vec();
    assert!(predicted.contains(&old));
    // No name known and no pair captured: nothing to wrap the line in.
    let mut bare = State::default();
    bare.client_cmds
        .put(8, b"say 05: renamed now, weapons next");
    assert!(bare.predicted_server_commands().is_empty());
}

/// Whether `r` carries the untrusted note.
fn untrusted_note(r: &Record) -> bool {
    r.notes
        .iter()
        .any(|n| std::ptr::eq(n.def, &notes::UNTRUSTED))
}

/// A replay of an older message, a copy of the last one and a copy with a wrong checksum are
/// shown undecoded and change nothing: the next snapshot decodes as it would have.
#[test]
fn stale_and_wrongly_summed_datagrams_change_nothing() {
    let (mut f, gamestate) = flow_after_gamestate();
    let snap = ioq3_s2c(2, &one_entity(1000, 0, 5, 11, 8, 2));
    assert!(!untrusted_note(&run(&mut *f, &snap, Direction::ToClient)));
    let mut forged = ioq3_s2c(3, &no_entities(1050, 0));
    forged[4] ^= 1;
    for stray in [ioq3_s2c(1, &[8]), snap.clone(), forged] {
        let r = run(&mut *f, &stray, Direction::ToClient);
        assert_eq!(r.msg_type, "untrusted", "{}", r.summary);
        assert!(untrusted_note(&r) && r.find("quake3.svc").is_none());
    }
    assert_eq!(gamestate.msg_type, "gamestate");
    let next = run(
        &mut *f,
        &ioq3_s2c(3, &one_entity(1100, 1, 5, 11, 8, 3)),
        Direction::ToClient,
    );
    assert!(!untrusted_note(&next), "{:?}", next.notes);
    assert_eq!(next.msg_type, "snapshot");
    assert!(!has_note(&next, "not captured"), "{:?}", next.notes);
}

/// A sequence far ahead is trusted only once the flow follows it: a lone one is a stray (the
/// next datagram goes on from the last), two in a row a real jump.
#[test]
fn a_far_jump_is_trusted_once_the_flow_follows_it() {
    let (mut f, _) = flow_after_gamestate();
    let far = 2 + SEQUENCE_JUMP + 5;
    let r = snapshot(&mut *f, far, 1000);
    assert_eq!(r.msg_type, "untrusted");
    let r = snapshot(&mut *f, 2, 1050);
    assert_eq!(
        r.msg_type, "snapshot",
        "the flow went on from 1: {:?}",
        r.notes
    );
    let r = snapshot(&mut *f, far, 1100);
    assert_eq!(r.msg_type, "untrusted");
    let r = snapshot(&mut *f, far + 1, 1150);
    assert_eq!(r.msg_type, "snapshot", "{:?}", r.notes);
    assert!(!untrusted_note(&r));
}

/// A handshake while the connection runs starts it over only when a new netchan follows.
#[test]
fn a_handshake_mid_connection_waits_for_the_new_connection() {
    let (mut f, _) = flow_after_gamestate();
    snapshot(&mut *f, 2, 1000);
    let shake = b"\xff\xff\xff\xffchallengeResponse 7654321 5 72";
    let r = run(&mut *f, shake, Direction::ToClient);
    assert!(untrusted_note(&r), "{:?}", r.notes);
    // The old connection goes on: the handshake was a stray; the old challenge still holds.
    let r = snapshot(&mut *f, 3, 1050);
    assert_eq!(r.msg_type, "snapshot", "{:?}", r.notes);
    assert!(!untrusted_note(&r));
    // A real reconnect: the new netchan starts again from 1, under the new challenge.
    run(&mut *f, shake, Direction::ToClient);
    let mut p = 1u32.to_le_bytes().to_vec();
    p.extend_from_slice(&netchan::checksum(7654321, 1).to_le_bytes());
    p.push(8);
    let r = run(&mut *f, &p, Direction::ToClient);
    assert!(!untrusted_note(&r), "{} {:?}", r.summary, r.notes);
}

/// One sequenced datagram without a matching checksum does not decide the legacy netchan: the
/// ioquake3 connection's next datagram still decides ioquake3.
#[test]
fn one_datagram_without_the_checksum_decides_no_flavour() {
    let mut f = PROTOCOL.new_flow(&Prefs::default());
    run(
        &mut *f,
        b"\xff\xff\xff\xffchallengeResponse 1234567 5 72",
        Direction::ToClient,
    );
    let stray = run(&mut *f, &[1, 0, 0, 0, 9, 9, 9, 9, 8], Direction::ToClient);
    assert!(!has_note(&stray, "netchan flavour"), "{:?}", stray.notes);
    let r = snapshot(&mut *f, 2, 1000);
    assert!(has_note(&r, "netchan flavour ioq3"), "{:?}", r.notes);
}

/// A genuine reconnect where one old-netchan datagram from the server arrives between the
/// challengeResponse and the connectResponse (the server keeps sending the old slot's
/// snapshots until the connect reaches it): the new netchan from 1 must start a new connection.
#[test]
fn reconnect_with_an_old_datagram_between_handshake_packets() {
    let (mut f, _) = flow_after_gamestate();
    for seq in 2..=3 {
        run(
            &mut *f,
            &ioq3_s2c(seq, &no_entities(1000 + 50 * seq as i64, 0)),
            Direction::ToClient,
        );
    }
    run(
        &mut *f,
        b"\xff\xff\xff\xffchallengeResponse 7654321 5 72",
        Direction::ToClient,
    );
    // The old connection's last snapshot, still in flight.
    let r = snapshot(&mut *f, 4, 1200);
    assert_eq!(r.msg_type, "snapshot");
    run(
        &mut *f,
        b"\xff\xff\xff\xffconnectResponse 7654321",
        Direction::ToClient,
    );
    // The new netchan: sequence 1 under the new challenge.
    let mut p = 1u32.to_le_bytes().to_vec();
    p.extend_from_slice(&netchan::checksum(7654321, 1).to_le_bytes());
    p.push(8);
    let r = run(&mut *f, &p, Direction::ToClient);
    assert!(
        !untrusted_note(&r),
        "new netchan turned away: {} {:?}",
        r.summary,
        r.notes
    );
}

/// One stray challengeResponse mid-connection, then the genuine continuing fragment of the
/// message being reassembled (sequence == last, small): the genuine flow must not start over.
#[test]
fn stray_handshake_then_genuine_continuing_fragment() {
    let (mut f, _) = flow_after_gamestate();
    let mut w = BitWriter::default();
    w.long(3);
    for _ in 0..700 {
        w.byte(1);
    }
    w.byte(5);
    w.long(1);
    w.string(b"print \"x\"");
    w.byte(8);
    let mut msg = w.data;
    msg.resize(1302, 0);
    let seq = 2u32;
    let frag = |start: usize, part: &[u8]| {
        let mut p = (seq | netchan::FRAGMENT_BIT).to_le_bytes().to_vec();
        p.extend_from_slice(&netchan::checksum(1234567, seq).to_le_bytes());
        p.extend_from_slice(&(start as u16).to_le_bytes());
        p.extend_from_slice(&(part.len() as u16).to_le_bytes());
        p.extend_from_slice(part);
        p
    };
    let r = run(&mut *f, &frag(0, &msg[..1300]), Direction::ToClient);
    assert_eq!(r.msg_type, "fragment");
    // The stray: a replayed/forged handshake.
    run(
        &mut *f,
        b"\xff\xff\xff\xffchallengeResponse 7654321 5 72",
        Direction::ToClient,
    );
    let r = run(&mut *f, &frag(1300, &msg[1300..]), Direction::ToClient);
    assert!(
        !untrusted_note(&r),
        "genuine fragment turned away: {} {:?}",
        r.summary,
        r.notes
    );
    the_next_snapshot_is_trusted(&mut *f, 3, 1100);
}

/// One stray challengeResponse mid-connection, then a genuine duplicate of the last datagram:
/// the engine drops the duplicate and keeps its connection; the flow must too.
#[test]
fn stray_handshake_then_genuine_duplicate() {
    let (mut f, _) = flow_after_gamestate();
    let snap = ioq3_s2c(2, &no_entities(1000, 0));
    run(&mut *f, &snap, Direction::ToClient);
    run(
        &mut *f,
        b"\xff\xff\xff\xffchallengeResponse 7654321 5 72",
        Direction::ToClient,
    );
    run(&mut *f, &snap, Direction::ToClient); // duplicate (e.g. a mirror port)
    the_next_snapshot_is_trusted(&mut *f, 3, 1050);
}

/// The genuine connection's next snapshot decodes as a snapshot, trusted.
fn the_next_snapshot_is_trusted(f: &mut dyn FlowDecoder, seq: u32, time: i64) {
    let r = run(
        f,
        &ioq3_s2c(seq, &no_entities(time, 0)),
        Direction::ToClient,
    );
    assert!(
        !untrusted_note(&r),
        "genuine flow broken by one stray: {} {:?}",
        r.summary,
        r.notes
    );
    assert_eq!(r.msg_type, "snapshot");
}

/// An empty ioquake3 snapshot with sequence `seq` at server time `time`, decoded by `f`.
fn snapshot(f: &mut dyn FlowDecoder, seq: u32, time: i64) -> Record {
    run(
        f,
        &ioq3_s2c(seq, &no_entities(time, 0)),
        Direction::ToClient,
    )
}
