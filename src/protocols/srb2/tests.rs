//! Unit tests: byte-exact vectors for the primitives and bodies, detection, and a property test.

use super::detect::{Basis, Detector, sniff_release};
use super::state::State;
use super::state::expand_tic;
use super::tables::{self, Pt, Release};
use super::*;
use crate::capture::Timestamp;
use crate::proto::{Datagram, Direction, RoleSource};
use crate::tree::{Field, Pos, Record, Severity, Value};

/// Builds a datagram with a correct checksum (the `doomdata_t` header of STJr/SRB2
/// `src/d_clisrv.h`).
fn pkt(ack: u8, ackret: u8, t: u8, body: &[u8]) -> Vec<u8> {
    let mut p = vec![0, 0, 0, 0, ack, ackret, t, 0];
    p.extend_from_slice(body);
    let c = checksum(&p);
    p[..4].copy_from_slice(&c.to_le_bytes());
    p
}

fn dgram(p: &[u8], dir: Direction, i: u64) -> Datagram<'_> {
    Datagram {
        payload: p,
        truncated: false,
        direction: dir,
        src: "10.0.0.2:5029".parse().unwrap(),
        dst: "10.0.0.1:5029".parse().unwrap(),
        time: Timestamp::new(0, 0, 6),
        frame: i + 1,
        index_in_flow: i,
        conversations: 1,
        overheard: Default::default(),
        role_source: RoleSource::Port,
        detail: true.into(),
    }
}

fn decode_as(rel: &str, packets: &[(Direction, Vec<u8>)]) -> Vec<Record> {
    let mut prefs = Prefs::default();
    prefs.set("srb2.version", rel);
    decode_with(prefs, packets)
}

fn decode_with(prefs: Prefs, packets: &[(Direction, Vec<u8>)]) -> Vec<Record> {
    let mut flow = PROTOCOL.new_flow(&prefs);
    let mut out = Vec::new();
    for (i, (dir, p)) in packets.iter().enumerate() {
        flow.decode(&dgram(p, *dir, i as u64), &mut out);
    }
    out
}

fn one(rel: &str, dir: Direction, p: Vec<u8>) -> Record {
    decode_as(rel, &[(dir, p)]).pop().unwrap()
}

fn val<'a>(r: &'a Record, name: &str) -> &'a Value {
    &r.find(name)
        .unwrap_or_else(|| panic!("{name} missing"))
        .value
}

fn all_vals(r: &Record, name: &str) -> Vec<Value> {
    r.find_all(name)
        .into_iter()
        .map(|f: &Field| f.value.clone())
        .collect()
}

fn errors(r: &Record) -> usize {
    r.notes
        .iter()
        .filter(|n| n.severity() == Severity::Error)
        .count()
}

fn s(x: &str) -> Value {
    Value::Str(x.into())
}

const TS: Direction = Direction::ToServer;
const TC: Direction = Direction::ToClient;

#[test]
fn checksum_matches_the_worked_example() {
    // `NetbufferChecksum` (STJr/SRB2 src/d_net.c) of a 2.2.13 and a 2.1.25 PT_ASKINFO, ack 0,
    // time 1000.
    let a = [
        0x02, 0x4f, 0x23, 0x01, 0x00, 0x00, 0x0c, 0x00, 0xca, 0xe8, 0x03, 0x00, 0x00,
    ];
    assert_eq!(checksum(&a), 0x0123_4F02);
    let b = [
        0xfd, 0x4e, 0x23, 0x01, 0x00, 0x00, 0x0c, 0x00, 0xc9, 0xe8, 0x03, 0x00, 0x00,
    ];
    assert_eq!(checksum(&b), u32::from_le_bytes([0xfd, 0x4e, 0x23, 0x01]));
    assert_eq!(pkt(0, 0, 12, &[0xca, 0xe8, 3, 0, 0]), a.to_vec());
    // Only bytes after the checksum count.
    assert_eq!(checksum(&[9, 9, 9, 9]), 0x0123_4567);
    assert_eq!(checksum(&[]), 0x0123_4567);
}

#[test]
fn probe_is_certain_only_with_a_matching_checksum() {
    let p = pkt(0, 0, 12, &[202, 0xe8, 3, 0, 0]);
    fn pi(p: &[u8]) -> ProbeInput<'_> {
        ProbeInput {
            payload: p,
            src_port: 40000,
            dst_port: 40001,
        }
    }
    let r = PROTOCOL.probe(&pi(&p));
    assert_eq!(r, Probe::certain(Some(Role::Client)));
    let sv = pkt(0, 0, 13, &[0xFF]);
    assert_eq!(PROTOCOL.probe(&pi(&sv)).sender, Some(Role::Server));
    let mut bad = p.clone();
    bad[9] ^= 1;
    assert_eq!(PROTOCOL.probe(&pi(&bad)), Probe::NO);
    assert_eq!(PROTOCOL.probe(&pi(&[])), Probe::NO);
    assert_eq!(PROTOCOL.probe(&pi(&[0x67, 0x45, 0x23])), Probe::NO);
    // Type ≥ 17: role unknown, still certain.
    assert_eq!(
        PROTOCOL.probe(&pi(&pkt(0, 0, 29, &[]))),
        Probe::certain(None)
    );
}

#[test]
fn header_fields_and_bad_checksum_warning() {
    let mut p = pkt(7, 3, 11, &[]);
    let r = one("2.2.13", TS, p.clone());
    assert_eq!(val(&r, "srb2.header.ack"), &Value::UInt(7));
    assert_eq!(val(&r, "srb2.header.ackreturn"), &Value::UInt(3));
    assert_eq!(
        val(&r, "srb2.header.type"),
        &Value::Enum(11, "PT_CLIENTQUIT")
    );
    assert_eq!(val(&r, "srb2.header.checksum_ok"), &Value::Bool(true));
    assert!(r.notes.is_empty());
    p[1] ^= 0xff;
    let r = one("2.2.13", TS, p);
    assert_eq!(val(&r, "srb2.header.checksum_ok"), &Value::Bool(false));
    assert_eq!(r.worst(), Some(Severity::Warning));
    assert_eq!(r.notes[0].pos, Some(Pos::bytes(0, 4)));
    assert_eq!(r.msg_type, "PT_CLIENTQUIT");
}

#[test]
fn short_header_and_unknown_type_are_errors() {
    let r = one("2.2.13", TS, vec![1, 2, 3]);
    assert!(r.has_errors());
    assert_eq!(r.msg_type, "short");
    let r = one("2.2.13", TS, pkt(0, 0, 35, &[1]));
    assert!(r.has_errors());
    assert_eq!(r.notes[0].pos, Some(Pos::bytes(6, 1)));
    // 35 is out of range for 2.2.13 but 26 is PT_PING in 2.1.25.
    let r = one("2.1.25", TS, pkt(0, 0, 27, &[]));
    assert!(r.has_errors());
}

#[test]
fn packet_type_names_follow_the_release() {
    let r = one("2.1.25", TC, pkt(0, 0, 26, &[0; 128]));
    assert_eq!(r.msg_type, "PT_PING");
    let r = one("2.2.13", TC, pkt(0, 0, 26, &[3]));
    assert_eq!(r.msg_type, "PT_FILERECEIVED");
    assert_eq!(val(&r, "srb2.filereceived.fileid"), &Value::UInt(3));
    let r = one("2.2.15", TC, pkt(0, 0, 33, &[0; 132]));
    assert_eq!(r.msg_type, "PT_PING");
    assert_eq!(errors(&r), 0);
    assert_eq!(
        tables::packet_type(Release(204), 22),
        Some(Pt::FILEFRAGMENT)
    );
}

#[test]
fn askinfo_and_nothing_bodies() {
    let r = one("2.2.13", TS, pkt(0, 0, 12, &[202, 0xe8, 3, 0, 0]));
    assert_eq!(val(&r, "srb2.askinfo.version"), &Value::UInt(202));
    assert_eq!(val(&r, "srb2.askinfo.time"), &Value::UInt(1000));
    assert_eq!(r.summary, "PT_ASKINFO version 202 time 1000");
    let mut q = [0u8; 96];
    q[0] = 9;
    q[5] = 11;
    let r = one("2.1.25", TS, pkt(0, 4, 0, &q));
    assert_eq!(
        all_vals(&r, "srb2.nothing.ack"),
        vec![Value::UInt(9), Value::UInt(11)]
    );
    assert_eq!(r.find_all("srb2.nothing.ack")[1].pos, Pos::bytes(13, 1));
    let r = one("2.1.25", TS, pkt(0, 4, 0, &q[..50]));
    assert!(r.has_errors());
}

#[test]
fn clientcmd_sizes_differ_by_release() {
    // client_tic, resendfrom, consistancy, ticcmd (fwd -5, side 7, angle 0x0101, aim -2, buttons 0x0840).
    let base = [3u8, 4, 0x34, 0x12, 0xfb, 7, 1, 1, 0xfe, 0xff, 0x40, 0x08];
    let r = one("2.1.25", TS, pkt(0, 0, 2, &base));
    assert_eq!(errors(&r), 0);
    assert!(r.notes.is_empty());
    assert_eq!(val(&r, "srb2.clientcmd.client_tic"), &Value::UInt(3));
    assert_eq!(val(&r, "srb2.clientcmd.consistancy"), &Value::Int(0x1234));
    assert_eq!(val(&r, "srb2.cmd.forward"), &Value::Int(-5));
    assert_eq!(val(&r, "srb2.cmd.side"), &Value::Int(7));
    assert_eq!(val(&r, "srb2.cmd.angleturn"), &Value::Int(0x0101));
    assert_eq!(val(&r, "srb2.cmd.aiming"), &Value::Int(-2));
    assert_eq!(val(&r, "srb2.cmd.buttons"), &Value::UInt(0x0840));
    assert!(r.find("srb2.cmd.latency").is_none());
    let mut b13 = base.to_vec();
    b13.push(0x55);
    let r = one("2.2.13", TS, pkt(0, 0, 2, &b13));
    assert!(r.notes.is_empty());
    assert_eq!(val(&r, "srb2.cmd.latency"), &Value::UInt(0x55));
    // The 13-byte form under 2.1.25 leaves a trailing byte (warning).
    let r = one("2.1.25", TS, pkt(0, 0, 2, &b13));
    assert_eq!(r.worst(), Some(Severity::Warning));
    // CLIENT2CMD: two ticcmds.
    let mut two = base.to_vec();
    two.extend_from_slice(&base[4..]);
    let r = one("2.1.25", TS, pkt(0, 0, 4, &two));
    assert_eq!(r.find_all("srb2.cmd").len(), 2);
    assert!(r.notes.is_empty());
    let r = one("2.2.13", TS, pkt(0, 0, 6, &[9, 10]));
    assert_eq!(val(&r, "srb2.clientcmd.resendfrom"), &Value::UInt(10));
}

#[test]
fn expand_tic_follows_expandtics() {
    assert_eq!(expand_tic(0x88, 5000), 5000);
    assert_eq!(expand_tic(0x8a, 5000), 5002);
    assert_eq!(expand_tic(0x02, 0x1FE), 0x202);
    assert_eq!(expand_tic(0xFE, 0x202), 0x1FE);
    assert_eq!(expand_tic(0xF0, 0x10), 0xF0);
}

/// PT_SERVERTICS body 2.1.25: start u8, numtics, numslots, 8-byte ticcmds, text section.
fn tics_2_1(start: u8, n: u8, slots: u8, text: &[u8]) -> Vec<u8> {
    let mut b = vec![start, n, slots];
    for i in 0..(n as usize * slots as usize) {
        b.extend_from_slice(&[i as u8, 0, 1, 0, 0, 0, 0, 0]);
    }
    b.extend_from_slice(text);
    b
}

#[test]
fn servertics_decodes_every_slot_and_marks_repeats() {
    // Anchor at gametic 5000 via a 2.1.25 PT_SERVERCFG-free path: start low byte only.
    let p1 = pkt(0, 0, 8, &tics_2_1(0x88, 2, 2, &[0, 0]));
    let p2 = pkt(0, 0, 8, &tics_2_1(0x89, 2, 2, &[0, 1, 1, 3, 5, 0, 0]));
    let recs = decode_as("2.1.25", &[(TC, p1), (TC, p2)]);
    assert_eq!(recs[0].find_all("srb2.tics.tic").len(), 2);
    assert_eq!(recs[0].find_all("srb2.cmd").len(), 4);
    assert_eq!(
        all_vals(&recs[1], "srb2.tics.tic.repeat"),
        vec![Value::Bool(true), Value::Bool(false)]
    );
    assert_eq!(
        all_vals(&recs[1], "srb2.tics.tic"),
        vec![Value::UInt(0x89), Value::UInt(0x8a)]
    );
    // The text buffer of player 1 has a truncated XD_SAY (3 bytes: id, target, flags).
    assert!(recs[1].has_errors());
    assert_eq!(val(&recs[1], "srb2.textbuf.player"), &Value::UInt(1));
    assert!(
        recs[1]
            .summary
            .contains("tics 137-138 (new from 138) slots 2")
    );
}

#[test]
fn servertics_slots_and_players_above_maxplayers_are_flagged() {
    // numslots is doomcom->numslots ≤ MAXPLAYERS (32) and text-command player numbers are
    // < MAXPLAYERS (STJr/SRB2 src/d_clisrv.c SV_SendTics; src/doomdef.h MAXPLAYERS 32).
    let mut b = vec![0x10, 1, 33];
    b.extend_from_slice(&[0; 33 * 8]);
    b.push(0);
    let r = one("2.1.25", TC, pkt(0, 0, 8, &b));
    assert!(!r.has_errors(), "{:?}", r.notes);
    assert_eq!(r.notes.len(), 1, "{:?}", r.notes);
    assert_eq!(r.notes[0].severity(), Severity::Warning);
    assert_eq!(r.notes[0].field, Some("srb2.tics.numslots"));
    assert_eq!(r.find_all("srb2.cmd").len(), 33);
    // 32 slots are fine; a text buffer from player 40 is flagged.
    let mut b = vec![0x10, 1, 32];
    b.extend_from_slice(&[0; 32 * 8]);
    b.extend_from_slice(&[1, 40, 2, 14, 3]);
    let r = one("2.1.25", TC, pkt(0, 0, 8, &b));
    assert_eq!(r.notes.len(), 1, "{:?}", r.notes);
    assert_eq!(r.notes[0].severity(), Severity::Warning);
    assert_eq!(r.notes[0].field, Some("srb2.textbuf.player"));
    assert_eq!(val(&r, "srb2.xd"), &Value::Enum(14, "XD_VERIFIED"));
}

#[test]
fn servertics_22_uses_u32_start_and_9_byte_cmds() {
    let mut b = 70000u32.to_le_bytes().to_vec();
    b.extend_from_slice(&[1, 2]);
    b.extend_from_slice(&[
        1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18,
    ]);
    // Text: one buffer from player 0: XD_PAUSE (10 in 2.2.13) paused 1 dedicated 0.
    b.extend_from_slice(&[1, 0, 3, 10, 1, 0]);
    let r = one("2.2.13", TC, pkt(0, 0, 8, &b));
    assert!(r.notes.is_empty(), "{:?}", r.notes);
    assert_eq!(val(&r, "srb2.tics.tic"), &Value::UInt(70000));
    assert_eq!(
        all_vals(&r, "srb2.cmd.latency"),
        vec![Value::UInt(9), Value::UInt(18)]
    );
    assert_eq!(val(&r, "srb2.xd"), &Value::Enum(10, "XD_PAUSE"));
    assert_eq!(val(&r, "srb2.xd.paused"), &Value::UInt(1));
    // Same bytes in 2.1.25 numbering: 10 = XD_ADDPLAYER.
    assert_eq!(
        tables::xd(Release::R2_1_25, 10),
        Some(tables::Xd::ADDPLAYER)
    );
}

fn textcmd(rel: &str, cmds: &[u8]) -> Record {
    let t = tables::packet_number(Release::parse(rel).unwrap(), Pt::TEXTCMD).unwrap();
    let mut b = vec![cmds.len() as u8];
    b.extend_from_slice(cmds);
    one(rel, TS, pkt(1, 0, t, &b))
}

#[test]
fn xd_nameandcolor_per_release() {
    let r = textcmd("2.1.25", b"\x01Amy\0\x05\x03");
    assert!(r.notes.is_empty(), "{:?}", r.notes);
    assert_eq!(val(&r, "srb2.xd.player_name"), &s("Amy"));
    assert_eq!(val(&r, "srb2.xd.color"), &Value::UInt(5));
    assert_eq!(val(&r, "srb2.xd.skin"), &Value::UInt(3));
    let r = textcmd("2.2.4", b"\x01Amy\0\x01\0\0\0\x05\x03");
    assert!(r.notes.is_empty());
    assert_eq!(val(&r, "srb2.xd.availabilities"), &Value::UInt(1));
    let r = textcmd("2.2.13", b"\x01Amy\0\x01\0\0\0\x05\x01\x03");
    assert!(r.notes.is_empty());
    assert_eq!(val(&r, "srb2.xd.color"), &Value::UInt(0x105));
    // A 21-character name has no NUL (STRN(21)).
    let r = textcmd("2.1.25", b"\x01ABCDEFGHIJKLMNOPQRSTU\x05\x03");
    assert!(r.notes.is_empty());
    assert_eq!(val(&r, "srb2.xd.player_name"), &s("ABCDEFGHIJKLMNOPQRSTU"));
}

#[test]
fn xd_kick_say_map_netvar() {
    let r = textcmd("2.2.13", b"\x03\x02\x88ban reason\0");
    assert!(r.notes.is_empty());
    assert_eq!(val(&r, "srb2.xd.player"), &Value::UInt(2));
    assert_eq!(
        val(&r, "srb2.xd.kick_msg"),
        &Value::Enum(0x88, "KICK_MSG_CUSTOM_BAN")
    );
    assert_eq!(val(&r, "srb2.xd.keep_body"), &Value::Bool(true));
    assert_eq!(val(&r, "srb2.xd.reason"), &s("ban reason"));
    let r = textcmd("2.1.25", b"\x03\x02\x04\x05\xff\x02hi team\0");
    assert!(r.notes.is_empty());
    assert_eq!(
        val(&r, "srb2.xd.kick_msg"),
        &Value::Enum(4, "KICK_MSG_TIMEOUT")
    );
    assert_eq!(val(&r, "srb2.xd.target"), &Value::Int(-1));
    assert_eq!(val(&r, "srb2.xd.flags"), &Value::UInt(2));
    assert_eq!(val(&r, "srb2.xd.message"), &s("hi team"));
    let r = textcmd("2.2.13", b"\x06\x02\x03MAP05\0\x01\x02\x03\x04");
    assert!(r.notes.is_empty());
    assert_eq!(val(&r, "srb2.xd.map_flags"), &Value::UInt(2));
    assert_eq!(val(&r, "srb2.xd.gametype"), &Value::Enum(3, "GT_MATCH"));
    assert_eq!(val(&r, "srb2.xd.map"), &s("MAP05"));
    assert_eq!(val(&r, "srb2.xd.map_seed"), &Value::UInt(0x0403_0201));
    let r = textcmd("2.2.13", b"\x04\x07\x00300\0\x01");
    assert!(r.notes.is_empty());
    assert_eq!(val(&r, "srb2.netvar.id"), &Value::UInt(7));
    assert_eq!(val(&r, "srb2.netvar.value"), &s("300"));
    assert_eq!(val(&r, "srb2.netvar.stealth"), &Value::UInt(1));
}

#[test]
fn xd_teamchange_addplayer_luacmd_misc() {
    // playernum 3, newteam 2, verification 1: 3 | 2<<5 | 1<<10.
    let w: u16 = 3 | (2 << 5) | (1 << 10);
    let mut c = vec![12u8];
    c.extend_from_slice(&w.to_le_bytes());
    let r = textcmd("2.2.13", &c);
    assert!(r.notes.is_empty());
    assert_eq!(val(&r, "srb2.xd.tc_player"), &Value::UInt(3));
    assert_eq!(val(&r, "srb2.xd.tc_team"), &Value::UInt(2));
    assert_eq!(val(&r, "srb2.xd.tc_verification"), &Value::Bool(true));
    assert_eq!(val(&r, "srb2.xd.tc_autobalance"), &Value::Bool(false));
    let r = textcmd("2.2.13", b"\x0b\x04\x85Cream\0");
    assert!(r.notes.is_empty());
    assert_eq!(val(&r, "srb2.xd.node"), &Value::UInt(4));
    assert_eq!(val(&r, "srb2.xd.playernum"), &Value::UInt(5));
    assert_eq!(val(&r, "srb2.xd.second_player"), &Value::Bool(true));
    assert_eq!(val(&r, "srb2.xd.player_name"), &s("Cream"));
    let r = textcmd("2.1.25", b"\x16\x02hello\0world\0\x14\x01\0\0\0");
    assert!(r.notes.is_empty(), "{:?}", r.notes);
    assert_eq!(all_vals(&r, "srb2.xd.arg"), vec![s("hello"), s("world")]);
    assert_eq!(val(&r, "srb2.xd.suicide_player"), &Value::Int(1));
    // XD_EXITLEVEL carries a byte in 2.2.12–2.2.13 only: 07 00 05 … parses as exit + say there.
    let r = textcmd("2.2.13", b"\x07\x00\x05\x00\x00x\0");
    assert!(r.notes.is_empty());
    let r = textcmd("2.2.11", b"\x07\x00\x05\x00\x00x\0");
    assert!(r.has_errors());
    let r = textcmd(
        "2.2.13",
        b"\x08a.pk3\0AAAAAAAAAAAAAAAA\x09dir\0\x13motd text",
    );
    assert!(r.notes.is_empty(), "{:?}", r.notes);
    assert_eq!(val(&r, "srb2.xd.motd"), &s("motd text"));
    let r = textcmd("2.2.15", b"\x19\x01\x01\x18\x01\x0e\x02\x15\x02");
    assert!(r.notes.is_empty(), "{:?}", r.notes);
    assert_eq!(val(&r, "srb2.xd.muted"), &Value::UInt(1));
}

#[test]
fn an_undecodable_command_stops_only_its_buffer() {
    // 2.1.25 XD 13 is unused: the rest of the buffer is kept as bytes with a note.
    let r = textcmd("2.1.25", b"\x0d\x01\x02\x03");
    assert!(r.has_errors());
    assert_eq!(
        val(&r, "srb2.textbuf.undecoded"),
        &Value::Bytes(vec![1, 2, 3].into())
    );
    let r = textcmd("2.2.13", b"\x00\x01");
    assert!(r.has_errors());
    // A buffer length beyond the packet is an error.
    let r = one("2.2.13", TS, pkt(1, 0, 27, &[9, 5, 0]));
    assert!(r.has_errors());
}

#[test]
fn join_and_servercfg_per_release() {
    let r = one("2.1.25", TS, pkt(1, 0, 22, &[201, 25, 1, 0]));
    assert!(r.notes.is_empty());
    assert_eq!(val(&r, "srb2.join.subversion"), &Value::UInt(25));
    let mut b = vec![54u8];
    b.extend_from_slice(b"SRB2\0\0\0\0\0\0\0\0\0\0\0\0");
    b.extend_from_slice(&[1, 0]);
    b.extend_from_slice(b"Tails\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0");
    b.extend_from_slice(&[0; 21]);
    let r = one("2.2.13", TS, pkt(1, 0, 29, &b));
    assert!(r.notes.is_empty());
    assert_eq!(val(&r, "srb2.join.modversion"), &Value::UInt(54));
    assert_eq!(val(&r, "srb2.join.application"), &s("SRB2"));
    assert_eq!(all_vals(&r, "srb2.join.name"), vec![s("Tails"), s("")]);
    let cfg = [
        0u8, 2, 0x10, 0x27, 0, 0, 1, 1, 0, 0, 1, b'A', b'B', b'C', b'D', b'E', b'F', b'G', b'H',
    ];
    let r = one("2.2.13", TC, pkt(1, 0, 1, &cfg));
    assert!(r.notes.is_empty());
    assert_eq!(val(&r, "srb2.servercfg.gametic"), &Value::UInt(10000));
    assert_eq!(val(&r, "srb2.servercfg.usedcheats"), &Value::UInt(1));
    assert_eq!(val(&r, "srb2.servercfg.server_context"), &s("ABCDEFGH"));
    let r = one("2.2.11", TC, pkt(1, 0, 1, &cfg[..18]));
    assert!(r.notes.is_empty());
}

#[test]
fn release_is_sniffed_from_the_wire() {
    let join = pkt(1, 0, 22, &[201, 25, 1, 0]);
    let (r, why) = sniff_release(&join).unwrap();
    assert_eq!(r, Release::R2_1_25);
    assert!(why.contains("subversion 25"));
    let mut b = vec![52u8];
    b.extend_from_slice(&[0; 60]);
    assert_eq!(sniff_release(&pkt(1, 0, 28, &b)).unwrap().0, Release(211));
    // 2.2.13 MODVERSION but type 28 (= PT_TEXTCMD2 in 2.2.13): not a join.
    b[0] = 54;
    assert!(sniff_release(&pkt(1, 0, 28, &b)).is_none());
    let mut si = vec![0xFFu8, 4];
    si.extend_from_slice(&[0; 16]);
    si.extend_from_slice(&[202, 9]);
    si.extend_from_slice(&[0; 10]);
    assert_eq!(sniff_release(&pkt(0, 0, 13, &si)).unwrap().0, Release(209));
    assert_eq!(
        sniff_release(&pkt(
            0,
            0,
            1,
            &[202, 9, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
        ))
        .unwrap()
        .0,
        Release(209)
    );
    assert!(sniff_release(&[1, 2]).is_none());
}

/// A release is locked by two distinct trusted datagrams that name it, not by one, nor by one
/// and its replay.
#[test]
fn a_release_is_locked_by_two_distinct_naming_datagrams() {
    let join = pkt(1, 0, 22, &[201, 25, 1, 0]);
    // Another header on the same message is no second datagram; another message is.
    let reheaded = pkt(2, 0, 22, &[201, 25, 1, 0]);
    let other = pkt(2, 0, 22, &[201, 25, 2, 0]);
    let mut d = Detector::new(None);
    let st = State::default();
    let (r, basis) = d.choose(&join, true, &st);
    assert_eq!(r, Release::R2_1_25);
    assert!(matches!(basis, Basis::NamedOnce(_)));
    assert!(!d.decided());
    d.choose(&join, true, &st);
    assert!(!d.decided(), "a replay is no second datagram");
    d.choose(&reheaded, true, &st);
    assert!(!d.decided(), "nor the same message under another header");
    d.choose(&other, true, &st);
    assert!(d.decided());
    assert!(
        d.describe()
            .contains("2 distinct trusted datagrams named it"),
        "{}",
        d.describe()
    );
}

#[test]
fn best_fit_picks_the_release_that_explains_the_flow() {
    // 2.2.10+ CLIENTCMD (13 bytes) and a 2.2.12–2.2.13 PING (type 34, 132 bytes).
    let cc = pkt(0, 0, 2, &[1, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 7]);
    let ping = pkt(3, 0, 34, &[0; 132]);
    let recs = decode_with(Prefs::default(), &[(TS, cc), (TC, ping)]);
    assert_eq!(val(&recs[1], "srb2.release"), &s("2.2.13"));
    let why = val(&recs[1], "srb2.release_basis");
    assert!(matches!(why, Value::Str(w) if w.contains("best fit")));
    // A 2.1.25 PT_PING (type 26, 128 bytes) and an 8-byte-ticcmd CLIENTCMD.
    let cc = pkt(0, 0, 2, &[1, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    let ping = pkt(3, 0, 26, &[0; 128]);
    let recs = decode_with(Prefs::default(), &[(TS, cc), (TC, ping)]);
    assert_eq!(val(&recs[1], "srb2.release"), &s("2.1.25"));
    // A bad preference is reported, then detection runs.
    let mut prefs = Prefs::default();
    prefs.set("srb2.version", "3.0.0");
    let recs = decode_with(prefs, &[(TS, pkt(0, 0, 11, &[]))]);
    assert_eq!(recs[0].worst(), Some(Severity::Warning));
}

#[test]
fn playerinfo_serverinfo_ping_names() {
    let mut b = Vec::new();
    for i in 0..32u8 {
        if i == 1 {
            b.push(1);
            let mut n = b"Amy".to_vec();
            n.resize(22, 0);
            b.extend_from_slice(&n);
            b.extend_from_slice(&[0, 0, 0, 0, 255, 5, 0x80]);
            b.extend_from_slice(&77u32.to_le_bytes());
            b.extend_from_slice(&9u16.to_le_bytes());
        } else {
            b.push(255);
            b.extend_from_slice(&[0; 35]);
        }
    }
    let mut ping = vec![0u8; 132];
    ping[4] = 33;
    let recs = decode_as(
        "2.2.13",
        &[(TC, pkt(0, 0, 14, &b)), (TC, pkt(1, 0, 34, &ping))],
    );
    assert!(recs[0].notes.is_empty());
    assert_eq!(val(&recs[0], "srb2.playerinfo.player.name"), &s("Amy"));
    assert_eq!(
        val(&recs[0], "srb2.playerinfo.player.score"),
        &Value::UInt(77)
    );
    assert_eq!(
        val(&recs[0], "srb2.playerinfo.player.time"),
        &Value::UInt(9)
    );
    assert_eq!(recs[1].summary, "PT_PING #1 Amy 33 ms");
    let r = one("2.2.13", TC, pkt(0, 0, 14, &b[..100]));
    assert!(r.has_errors());
}

#[test]
fn unimportant_files_are_named_in_the_2_1_file_list() {
    // Pre-2.2.10 `PutFileNeeded` (STJr/SRB2 src/d_netfil.c) lists every loaded file; a
    // music/sound-only file has status low nibble 0.
    let mut b = vec![201, 25, 1, 8, 0, 0, 0, 0, 2, 0];
    b.extend_from_slice(&[0; 8]);
    b.extend_from_slice(&[0; 32 + 8 + 33 + 16 + 2]);
    assert_eq!(b.len(), 109);
    for (status, name) in [(0x00u8, &b"music.dta"[..]), (0x11, &b"x.wad"[..])] {
        b.push(status);
        b.extend_from_slice(&1000u32.to_le_bytes());
        b.extend_from_slice(name);
        b.push(0);
        b.extend_from_slice(&[0; 16]);
    }
    let r = one("2.1.25", TC, pkt(0, 0, 13, &b));
    assert!(r.notes.is_empty(), "{:?}", r.notes);
    let st = r.find_all("srb2.file.status");
    assert_eq!(st.len(), 2);
    assert_eq!(
        st[0].meaning.as_deref(),
        Some("unimportant (music/sound only); won't send: larger than maxsend")
    );
    assert_eq!(st[1].meaning.as_deref(), Some("will send if requested"));
}

#[test]
fn fragments_old_and_new() {
    let mut b = vec![2u8];
    b.extend_from_slice(&(0x8000_0000u32 | 100).to_le_bytes());
    b.extend_from_slice(&3u16.to_le_bytes());
    b.extend_from_slice(&[7, 8, 9]);
    let r = one("2.1.25", TC, pkt(1, 0, 19, &b));
    assert!(r.notes.is_empty());
    assert_eq!(val(&r, "srb2.fragment.position"), &Value::UInt(0x8000_0064));
    assert_eq!(val(&r, "srb2.fragment.last"), &Value::Bool(true));
    assert_eq!(
        val(&r, "srb2.fragment.data"),
        &Value::Bytes(vec![7, 8, 9].into())
    );
    let r = one("2.1.25", TC, pkt(1, 0, 19, &b[..8]));
    assert!(r.has_errors());
    let mut n = vec![1u8];
    n.extend_from_slice(&3000u32.to_le_bytes());
    n.push(2);
    n.extend_from_slice(&2008u32.to_le_bytes());
    n.extend_from_slice(&1004u16.to_le_bytes());
    n.extend_from_slice(&[1, 2]);
    let r = one("2.2.13", TC, pkt(0, 0, 24, &n));
    assert!(r.notes.is_empty());
    assert_eq!(val(&r, "srb2.fragment.filesize"), &Value::UInt(3000));
    assert_eq!(val(&r, "srb2.fragment.index"), &Value::UInt(2));
}

#[test]
fn resynch_2_1_25_layouts() {
    let r = one("2.1.25", TC, pkt(0, 0, 24, &[0u8; 334]));
    assert!(r.notes.is_empty(), "{:?}", r.notes);
    assert_eq!(r.find_all("srb2.resynch.powers").len(), 23);
    let mut b = vec![0u8; 334];
    b[259] = 1;
    b[264..268].copy_from_slice(&(-5i32).to_le_bytes());
    let r = one("2.1.25", TC, pkt(0, 0, 24, &b));
    assert!(r.notes.is_empty());
    assert_eq!(val(&r, "srb2.resynch.x"), &Value::Int(-5));
    assert_eq!(
        r.find("srb2.resynch.x").unwrap().pos,
        Pos::bytes(8 + 264, 4)
    );
    let r = one("2.1.25", TC, pkt(1, 0, 17, &[0u8; 594]));
    assert!(r.notes.is_empty());
    assert_eq!(r.find_all("srb2.resynchend.laps").len(), 32);
    assert_eq!(
        r.find_all("srb2.resynchend.laps")[31].pos,
        Pos::bytes(8 + 593, 1)
    );
    let r = one("2.2.4", TC, pkt(1, 0, 17, &[0u8; 598]));
    assert_eq!(errors(&r), 0);
}

/// xorshift64*, deterministic.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

#[test]
fn property_no_panic_on_random_and_mutated_payloads() {
    let seeds: Vec<Vec<u8>> = vec![
        pkt(0, 0, 12, &[202, 0xe8, 3, 0, 0]),
        pkt(0, 0, 2, &[1, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 7]),
        pkt(
            0,
            0,
            8,
            &tics_2_1(0x88, 2, 2, &[1, 0, 4, 5, 0, 0, b'x', 0, 0]),
        ),
        pkt(1, 0, 27, b"\x0e\x01Amy\0\x01\0\0\0\x05\x01\x03\x05\x00"),
        pkt(1, 0, 20, b"\x09\x03\x02\x07abc\0\x06\x00"),
        pkt(0, 0, 24, &[0u8; 334]),
        pkt(0, 0, 17, &[0u8; 594]),
        pkt(0, 0, 14, &[255u8; 1152]),
        pkt(
            0,
            0,
            13,
            &[
                0xFF, 4, b'S', 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 202, 13, 1, 8, 0,
            ],
        ),
        pkt(0, 0, 1, &[201, 25, 0, 3, 0x88, 0x13, 0, 0, 1, 1]),
        pkt(0, 0, 15, b"\x01abc\0\x02\xff"),
    ];
    // Auto-detection plus every tabulated release: 2.1.25 and 2.2.0 … 2.2.15.
    let names: Vec<String> = std::iter::once("2.1.25".to_string())
        .chain((0..=15).map(|p| format!("2.2.{p}")))
        .collect();
    let mut releases: Vec<Option<&str>> = vec![None];
    releases.extend(names.iter().map(|n| Some(n.as_str())));
    let mut rng = Rng(0x5eed_1234_abcd_0001);
    let mut total = 0;
    for round in 0..2400 {
        let rel = releases[round % releases.len()];
        let mut prefs = Prefs::default();
        if let Some(r) = rel {
            prefs.set("srb2.version", r);
        }
        let mut flow = PROTOCOL.new_flow(&prefs);
        for i in 0..10u64 {
            let mut p = if rng.below(3) == 0 {
                let n = rng.below(1500);
                let mut v: Vec<u8> = (0..n).map(|_| rng.next() as u8).collect();
                if v.len() > 7 {
                    v[6] = rng.below(40) as u8;
                }
                v
            } else {
                seeds[rng.below(seeds.len())].clone()
            };
            for _ in 0..rng.below(6) {
                if p.is_empty() {
                    break;
                }
                let k = rng.below(p.len());
                match rng.below(4) {
                    0 => p[k] = rng.next() as u8,
                    1 => p.truncate(k),
                    2 => p.insert(k, rng.next() as u8),
                    _ => p[k] ^= 1 << rng.below(8),
                }
            }
            // Half of the time keep the checksum valid so that detection and decoding run deep.
            if p.len() >= 8 && rng.below(2) == 0 {
                let c = checksum(&p);
                p[..4].copy_from_slice(&c.to_le_bytes());
            }
            let dir = if rng.below(2) == 0 { TS } else { TC };
            let mut out = Vec::new();
            flow.decode(&dgram(&p, dir, i), &mut out);
            assert!(!out.is_empty());
            for n in out.iter().flat_map(|r| &r.notes) {
                let def = n.def;
                assert!(
                    notes::ALL.contains(&def) || crate::wire::NOTES.contains(&def),
                    "{} is not listed",
                    def.name
                );
            }
            let _ = PROTOCOL.probe(&ProbeInput {
                payload: &p,
                src_port: 5029,
                dst_port: 5029,
            });
            total += 1;
        }
        let _ = flow.describe();
    }
    assert!(total >= 20_000);
}

#[test]
fn small_bodies_refuse_files_login() {
    let r = one("2.2.13", TC, pkt(1, 0, 9, b"Server is full\0"));
    assert!(r.notes.is_empty());
    assert_eq!(val(&r, "srb2.refuse.reason"), &s("Server is full"));
    let r = one("2.2.13", TS, pkt(0, 0, 32, &5i32.to_le_bytes()));
    assert_eq!(val(&r, "srb2.tellfiles.first"), &Value::Int(5));
    let mut m = 2i32.to_le_bytes().to_vec();
    m.extend_from_slice(&[1, 1, 0x01, 1]);
    m.extend_from_slice(&77u32.to_le_bytes());
    m.extend_from_slice(b"dir\0");
    m.extend_from_slice(&[0xAB; 16]);
    let r = one("2.2.13", TC, pkt(0, 0, 33, &m));
    assert!(r.notes.is_empty(), "{:?}", r.notes);
    assert_eq!(val(&r, "srb2.file.name"), &s("dir"));
    assert_eq!(val(&r, "srb2.file.folder"), &Value::UInt(1));
    assert_eq!(val(&r, "srb2.morefiles.more"), &Value::UInt(1));
    let r = one("2.1.25", TS, pkt(1, 0, 25, &[0x11; 16]));
    assert!(r.notes.is_empty());
    assert_eq!(
        val(&r, "srb2.login.hash"),
        &Value::Bytes(vec![0x11; 16].into())
    );
    let r = one("2.1.25", TS, pkt(1, 0, 25, &[0x11; 15]));
    assert!(r.has_errors());
    let r = one("2.2.13", TC, pkt(1, 0, 10, &[]));
    assert_eq!(r.msg_type, "PT_SERVERSHUTDOWN");
    assert!(r.notes.is_empty());
    let r = one("2.2.13", TC, pkt(1, 0, 10, &[1]));
    assert_eq!(r.worst(), Some(Severity::Warning));
}

#[test]
fn snaplen_cuts_are_notes_not_errors() {
    let p = pkt(0, 0, 14, &[255u8; 1152]);
    let mut flow = PROTOCOL.new_flow(&Prefs::default());
    let mut out = Vec::new();
    let mut d = dgram(&p[..200], TC, 0);
    d.truncated = true;
    flow.decode(&d, &mut out);
    assert_eq!(out[0].worst(), Some(Severity::Note));
    assert!(
        out[0]
            .notes
            .iter()
            .any(|n| n.message.contains("capture cut"))
    );
    let mut out = Vec::new();
    flow.decode(&dgram(&p[..200], TC, 1), &mut out);
    assert!(out[0].has_errors());
}

#[test]
fn retransmissions_are_noted() {
    let a = pkt(4, 0, 11, &[]);
    let b = pkt(4, 1, 11, &[]);
    let recs = decode_as("2.2.13", &[(TS, a.clone()), (TC, a), (TS, b)]);
    assert!(recs[0].notes.is_empty());
    assert!(recs[1].notes.is_empty());
    assert_eq!(recs[2].notes.len(), 1);
    assert_eq!(recs[2].notes[0].pos, Some(Pos::bytes(4, 1)));
}

/// The head of a PT_SERVERINFO as SRB2 2.2.1+, SRB2Kart and Ring Racers all write it: 0xFF,
/// packetversion, application[16], version, subversion (then a body that differs).
fn serverinfo_head(app: &[u8], version: u8, subversion: u8) -> Vec<u8> {
    let mut b = vec![0xFF, 0];
    let mut name = [0u8; 16];
    name[..app.len()].copy_from_slice(app);
    b.extend_from_slice(&name);
    b.extend_from_slice(&[version, subversion]);
    b.extend_from_slice(&[0; 40]);
    b
}

#[test]
fn srb2kart_and_ring_racers_are_named_not_decoded_with_srb2_tables() {
    for (app, version, sub, game) in [
        (&b"SRB2Kart"[..], 1, 6, "SRB2Kart"),
        (b"RingRacers", 2, 3, "Dr. Robotnik's Ring Racers"),
    ] {
        let mut join = serverinfo_head(app, version, sub);
        join.truncate(20);
        join.extend_from_slice(&[1, 0]);
        join.extend_from_slice(&[b'P'; 22]);
        let packets = [
            (Direction::ToServer, pkt(0, 0, 12, &[202, 0, 0, 0, 0])),
            (
                Direction::ToClient,
                pkt(0, 0, 13, &serverinfo_head(app, version, sub)),
            ),
            (Direction::ToServer, pkt(1, 0, 29, &join)),
            (Direction::ToServer, pkt(1, 0, 25, &[1, 2, 3])),
        ];
        let mut flow = PROTOCOL.new_flow(&Prefs::default());
        let mut out = Vec::new();
        for (i, (dir, p)) in packets.iter().enumerate() {
            flow.decode(&dgram(p, *dir, i as u64), &mut out);
        }
        let name = String::from_utf8_lossy(app);
        // Before the server names its game, the common PT_ASKINFO decodes as SRB2's.
        assert_eq!(out[0].msg_type, "PT_ASKINFO");
        // One datagram naming another game is a hint, not a verdict.
        assert_eq!(out[1].msg_type, "PT_SERVERINFO");
        assert!(
            out[1]
                .notes
                .iter()
                .any(|n| n.def == &notes::OTHER_GAME_HINT)
        );
        for r in &out[2..] {
            assert_eq!(r.msg_type, "other game");
            assert_eq!(val(r, "srb2.release"), &s(&name));
            assert_eq!(errors(r), 0);
            assert!(r.notes.iter().any(|n| n.def == &notes::OTHER_GAME));
        }
        assert_eq!(
            out[3].summary,
            format!("{name} packet type 25, 11 bytes (not decoded)")
        );
        let facts = flow.describe();
        assert_eq!(
            facts,
            vec![(
                "game".to_string(),
                format!(
                    "{game} (application {name:?}, version {version}, subversion {sub} in its join packet (type 29)); not SRB2, only headers decoded"
                )
            )]
        );
    }
    // SRB2's own application string is SRB2: decoded as usual.
    let r = one(
        "2.2.13",
        Direction::ToClient,
        pkt(0, 0, 13, &serverinfo_head(b"SRB2", 202, 13)),
    );
    assert_ne!(r.msg_type, "other game");
}

/// A packet decoded with the release detected.
fn auto(dir: Direction, p: Vec<u8>) -> Record {
    decode_with(Prefs::default(), &[(dir, p)]).pop().unwrap()
}

/// The join packet (`clientconfig_pak`: 0xFF, packetversion, application[16], version,
/// subversion, localplayers, mode, names…) names the game too, under the join's own type number:
/// 29 in SRB2Kart v1.6 (STJr/Kart-Public `src/d_clisrv.h`), 35 in Ring Racers
/// (KartKrewDev/RingRacers `src/d_clisrv.h`). SRB2 2.2.1-2.2.9's join carries "SRB2".
#[test]
fn srb2kart_and_ring_racers_are_named_by_their_join_packet() {
    for (app, t, game) in [
        (&b"SRB2Kart"[..], 29, "SRB2Kart"),
        (b"RingRacers", 35, "Dr. Robotnik's Ring Racers"),
    ] {
        let mut join = serverinfo_head(app, 2, 4);
        join.truncate(20);
        join.extend_from_slice(&[1, 0]); // localplayers, mode
        join.extend_from_slice(&[b'P'; 22]);
        let mut again = join.clone();
        again[30] = b'Q';
        let recs = decode_with(
            Prefs::default(),
            &[
                (Direction::ToServer, pkt(1, 0, t, &join)),
                (Direction::ToServer, pkt(2, 0, t, &again)),
            ],
        );
        assert_ne!(recs[0].msg_type, "other game");
        let r = recs[1].clone();
        assert_eq!(r.msg_type, "other game");
        let name = String::from_utf8_lossy(app);
        assert_eq!(val(&r, "srb2.release"), &s(&name));
        assert_eq!(
            val(&r, "srb2.release_basis"),
            &s(&format!(
                "{game} (application {name:?}, version 2, subversion 4 in its join packet (type {t})); not SRB2, only headers decoded"
            ))
        );
        assert_eq!(
            r.notes[0].message,
            format!("not SRB2 but {game}: its packet tables differ, so the body is not decoded")
        );
    }
    // An application field that is not a NUL-padded name is no evidence.
    let mut join = serverinfo_head(b"SRB2Kart", 2, 4);
    join[12] = b'x';
    assert_ne!(
        auto(Direction::ToServer, pkt(1, 0, 29, &join)).msg_type,
        "other game"
    );
}

/// A checksum-valid packet type that no SRB2 release has (every release stops at 35 or fewer:
/// Ring Racers' PT_SAY is 46) tells another game, unless the user forced a release.
#[test]
fn a_packet_type_no_srb2_release_has_tells_another_game() {
    // One such datagram is a stray: noted, not obeyed.
    let r = auto(Direction::ToServer, pkt(0, 0, 46, &[1, 2, 3]));
    assert_ne!(r.msg_type, "other game");
    assert!(r.notes.iter().any(|n| n.def == &notes::OTHER_GAME_HINT));
    let recs = decode_with(
        Prefs::default(),
        &[
            (Direction::ToServer, pkt(0, 0, 46, &[1, 2, 4])),
            (Direction::ToServer, pkt(0, 0, 46, &[1, 2, 3])),
        ],
    );
    let r = recs[1].clone();
    assert_eq!(r.msg_type, "other game");
    assert_eq!(
        val(&r, "srb2.release_basis"),
        &s(
            "a game built on SRB2's netcode (packet type 46, which no SRB2 release has (at most 35 types), with a valid checksum); not SRB2, only headers decoded"
        )
    );
    assert_eq!(
        r.summary,
        "other game packet type 46, 11 bytes (not decoded)"
    );
    // 34 is PT_PING in 2.2.12-2.2.13: SRB2's.
    assert_ne!(
        auto(Direction::ToClient, pkt(0, 0, 34, &[0; 20])).msg_type,
        "other game"
    );
    // Forced: an SRB2 packet with a type its release lacks, an error as before.
    let r = one("2.2.13", Direction::ToServer, pkt(0, 0, 46, &[1, 2, 3]));
    assert_eq!(r.msg_type, "unknown");
    assert!(errors(&r) > 0);
}

/// A flow decided by best fit (2.2.12–2.2.13) gets one stray trusted PT_CLIENTJOIN naming
/// 2.1.25: the next genuine datagram must still decode as 2.2.13.
#[test]
fn one_stray_naming_datagram_overrides_a_best_fit() {
    let cc = pkt(0, 0, 2, &[1, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 7]);
    let ping = pkt(3, 0, 34, &[0; 132]);
    let stray = pkt(1, 0, 22, &[201, 25, 1, 0]);
    let mut dgs = vec![(TS, cc.clone()), (TC, ping.clone()), (TS, stray)];
    for _ in 0..3 {
        dgs.push((TS, cc.clone()));
        dgs.push((TC, ping.clone()));
    }
    let recs = decode_with(Prefs::default(), &dgs);
    let last = recs.last().unwrap();
    assert_eq!(
        val(last, "srb2.release"),
        &s("2.2.13"),
        "{:?}",
        val(last, "srb2.release_basis")
    );
}
