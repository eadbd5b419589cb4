//! The hand-made 3D GameStudio captures (no engine runs here).
//!
//! `cargo run -p testkit --bin gen_captures` rewrites them; `tests/golden.rs` checks that the
//! committed files equal what this module builds. Every message follows a row of the tables of
//! the A5 SDK Programmer's Manual (Conitec, July 2002, pp. 12–14, "The A5 Client/Server
//! Protocol") or of the later Conitec manual page "The Client/Server Protocol"
//! (`prog_cserver`, A6+); the wrappers follow [MC-DPL8R] §2.2 and [MC-DPL4CS]
//! §2.2.1/§2.2.6/§2.2.45. All multi-byte values are little-endian: the manual's worked example
//! (p. 14) decodes only that way.

use std::net::SocketAddr;

use crate::synth::{PcapWriter, eth_udp, linktype};

const BASE: u32 = 1_700_000_000;

fn sa(s: &str) -> SocketAddr {
    s.parse().expect("address")
}

/// A byte buffer builder for Gamestudio messages.
#[derive(Default, Clone)]
struct B(Vec<u8>);

impl B {
    fn new() -> B {
        B(Vec::new())
    }
    fn u8(mut self, v: u8) -> B {
        self.0.push(v);
        self
    }
    fn short(mut self, v: i16) -> B {
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }
    fn long(mut self, v: i32) -> B {
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }
    fn dword(mut self, v: u32) -> B {
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }
    fn float(mut self, v: f32) -> B {
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }
    /// String: bytes + NUL.
    fn string(mut self, s: &str) -> B {
        self.0.extend_from_slice(s.as_bytes());
        self.0.push(0);
        self
    }
    /// Fixed 22.10.
    fn fixed(self, v: f64) -> B {
        self.long((v * 1024.0).round() as i32)
    }
    /// Position: signed 24-bit, quants × 128.
    fn pos(mut self, v: f64) -> B {
        let raw = (v * 128.0).round() as i32;
        self.0.extend_from_slice(&raw.to_le_bytes()[..3]);
        self
    }
    fn pos3(self, x: f64, y: f64, z: f64) -> B {
        self.pos(x).pos(y).pos(z)
    }
    /// Angle: degrees × 65535 / 360.
    fn angle(self, deg: f64) -> B {
        let raw = (deg * 65535.0 / 360.0).round() as u32 as u16;
        self.short(raw as i16)
    }
    fn raw(mut self, b: &[u8]) -> B {
        self.0.extend_from_slice(b);
        self
    }
    fn bytes(self) -> Vec<u8> {
        self.0
    }
}

/// Adds a transport around one buffer of Gamestudio messages: `wrap(to_server, messages)`.
type Wrap<'a> = &'a dyn Fn(bool, Vec<u8>) -> Vec<u8>;
/// Writes a whole session through a wrapper.
type Session = dyn Fn(&str, &str, &mut Cap, Wrap<'_>);

struct Cap {
    w: PcapWriter,
    ms: u64,
}

impl Cap {
    fn new() -> Cap {
        Cap {
            w: PcapWriter::new(linktype::ETHERNET, false, false, 65535),
            ms: 0,
        }
    }
    fn send(&mut self, from: &str, to: &str, payload: &[u8]) {
        self.ms += 50;
        let frame = eth_udp(sa(from), sa(to), payload);
        self.w.packet_at_ms(BASE, self.ms, &frame);
    }
    fn bytes(self) -> Vec<u8> {
        self.w.bytes
    }
}

/// The worked example of the `prog_cserver` manual page (last paragraph): SVC_UPDATE2 position
/// + pan, entity 7.
pub const SEED_EXAMPLE_A6: [u8; 14] = [
    0x83, 0x07, 0x00, 0x80, 0x00, 0x00, 0x00, 0x01, 0x00, 0x80, 0x01, 0x00, 0x80, 0x00,
];
/// The same example as printed in the A5 manual (M5-14), with its A5 code 0x43.
pub const SEED_EXAMPLE_A5: [u8; 14] = [
    0x43, 0x07, 0x00, 0x80, 0x00, 0x00, 0x00, 0x01, 0x00, 0x80, 0x01, 0x00, 0x80, 0x00,
];

// ---- A6+ messages (Conitec manual page `prog_cserver`) ----

fn a6_client_join(name: &str) -> B {
    B::new().u8(0x02).string(name) // CLS_JOIN String Player_Name
}
fn a6_server_info(ver: u8, t: f32) -> B {
    B::new().u8(0x07).u8(ver).float(t) // SVC_INFO Byte Protocol_Version Float Server_Time
}

/// A6+: join, server info, level, entity creation.
fn a6_join_and_create(c: &str, s: &str, cap: &mut Cap, wrap: Wrap<'_>) {
    cap.send(c, s, &wrap(true, a6_client_join("Alice").bytes().to_vec()));
    // SVC_INFO + SVC_VAR (Short idx, Short len, Fixed[len]) + SVC_STRING (Short idx, String)
    let m = a6_server_info(3, 12.5)
        .u8(0x0a)
        .short(3)
        .short(2)
        .fixed(1.5)
        .fixed(-2.25)
        .u8(0x0b)
        .short(1)
        .string("Welcome");
    cap.send(s, c, &wrap(false, m.bytes().to_vec()));
    // CLS_LEVEL String + CLS_CREATE String, Position[3], Short action, Short identifier
    let m = B::new()
        .u8(0x09)
        .string("office.wmb")
        .u8(0x03)
        .string("guard.mdl")
        .pos3(10.0, -20.5, 64.0)
        .short(4)
        .short(77);
    cap.send(c, s, &wrap(true, m.bytes().to_vec()));
    // SVC_CREATE Short ent, Short identifier + SVC_LOCAL Short ent, Short function
    let m = B::new()
        .u8(0x03)
        .short(7)
        .short(77)
        .u8(0x12)
        .short(7)
        .short(2);
    cap.send(s, c, &wrap(false, m.bytes().to_vec()));
    cap.send(c, s, &wrap(true, B::new().u8(0x07).bytes().to_vec())); // CLS_PING (no arguments)
    cap.send(s, c, &wrap(false, SEED_EXAMPLE_A6.to_vec()));
}

/// A6+: the three update messages with every parameter bit.
fn a6_updates(c: &str, s: &str, cap: &mut Cap, wrap: Wrap<'_>) {
    // SVC_UPDATE1 bits 0..4: type, scale, ambient, albedo, skin (table order)
    let m = B::new()
        .u8(0x40 | 0x1f)
        .short(7)
        .string("guard.mdl")
        .short(4)
        .short(8)
        .short(2) // Scale[3] raw (× 0.25)
        .u8(51) // ambient Scale(100): 20
        .u8(128) // albedo Scale(255): 128
        .u8(2); // skin
    cap.send(s, c, &wrap(false, m.bytes().to_vec()));
    // SVC_UPDATE2 bits 0..5: position, pan, tilt, roll, frame, flags1
    let m = B::new()
        .u8(0x80 | 0x3f)
        .short(7)
        .pos3(100.5, -3.0, 48.0)
        .angle(90.0)
        .angle(10.0)
        .angle(350.0)
        .short(3)
        .u8(128)
        .short(4) // frame, fraction Scale(1), next frame
        .short(0x0102); // flags 8..23
    cap.send(s, c, &wrap(false, m.bytes().to_vec()));
    // SVC_UPDATE3 bits 0..3: lightrange, colour (R,G,B), alpha, uv (Fixed U,V)
    let m = B::new()
        .u8(0xc0 | 0x0f)
        .short(7)
        .u8(255)
        .u8(255)
        .u8(128)
        .u8(0)
        .u8(51)
        .fixed(0.5)
        .fixed(0.25);
    cap.send(s, c, &wrap(false, m.bytes().to_vec()));
}

/// A6+: variables, strings, skills, sounds and effects, both ways.
fn a6_skills_sounds_and_effects(c: &str, s: &str, cap: &mut Cap, wrap: Wrap<'_>) {
    // CLS_VAR + CLS_STRING + CLS_SKILL (skill1 = offset 148) + CLS_SKILL3 (x,y,z = offset 16)
    let m = B::new()
        .u8(0x0a)
        .short(5)
        .short(1)
        .fixed(3.0)
        .u8(0x0b)
        .short(2)
        .string("ready")
        .u8(0x0e)
        .short(7)
        .short(148)
        .fixed(42.0)
        .u8(0x0f)
        .short(7)
        .short(16)
        .fixed(1.0)
        .fixed(2.0)
        .fixed(3.0);
    cap.send(c, s, &wrap(true, m.bytes().to_vec()));
    // SVC_SKILL skill2 (152) + SVC_SKILL3 pan/tilt/roll (28)
    let m = B::new()
        .u8(0x0e)
        .short(7)
        .short(152)
        .fixed(0.5)
        .u8(0x0f)
        .short(7)
        .short(28)
        .fixed(90.0)
        .fixed(0.0)
        .fixed(0.0);
    cap.send(s, c, &wrap(false, m.bytes().to_vec()));
    // SVC_ENTSOUND Short ent, Short sound, Scale(2000) vol, Long handle + SVC_EFFECT
    let m = B::new()
        .u8(0x05)
        .short(7)
        .short(3)
        .u8(255)
        .long(12345)
        .u8(0x06)
        .short(9)
        .short(20)
        .pos3(1.0, 2.0, 3.0)
        .fixed(0.0)
        .fixed(0.0)
        .fixed(1.5);
    cap.send(s, c, &wrap(false, m.bytes().to_vec()));
    cap.send(
        c,
        s,
        &wrap(true, B::new().u8(0x04).long(7).bytes().to_vec()),
    ); // CLS_REMOVE Long (PC-old)
    cap.send(
        s,
        c,
        &wrap(false, B::new().u8(0x04).short(7).bytes().to_vec()),
    ); // SVC_REMOVE Short
}

/// An A6+ session; `wrap(to_server, messages)` adds the transport (raw, DirectPlay 8 or 4).
fn a6_session(c: &str, s: &str, cap: &mut Cap, wrap: Wrap<'_>) {
    a6_join_and_create(c, s, cap, wrap);
    a6_updates(c, s, cap, wrap);
    a6_skills_sounds_and_effects(c, s, cap, wrap);
}

/// A6+ raw UDP: a whole session (client 10.0.0.2:2301, server 10.0.0.1:2300).
fn a6_raw() -> Vec<u8> {
    let mut cap = Cap::new();
    a6_session("10.0.0.2:2301", "10.0.0.1:2300", &mut cap, &|_, b| b);
    cap.bytes()
}

/// A6+ with 4-byte Fixed CPosition (pos_resolution set): parses exactly only that way.
fn a6_fixed() -> Vec<u8> {
    let (c, s) = ("10.0.0.6:2340", "10.0.0.1:2300");
    let mut cap = Cap::new();
    // CLS_JOIN of the newest page revision: String Player_Name, String Session_Name
    cap.send(c, s, &a6_client_join("Frank").string("arena").bytes());
    cap.send(s, c, &a6_server_info(3, 1.0).bytes());
    // SVC_UPDATE2 bit 0: position as Fixed[3]
    let m = B::new().u8(0x81).short(9).fixed(1.0).fixed(-2.5).fixed(2.0);
    cap.send(s, c, &m.bytes());
    let m = B::new()
        .u8(0x83)
        .short(9)
        .fixed(1000.25)
        .fixed(0.0)
        .fixed(-64.0)
        .angle(180.0);
    cap.send(s, c, &m.bytes());
    cap.bytes()
}

// ---- A5 messages (A5 SDK Programmer's Manual, July 2002, pp. 12–14) ----

const DPID: u32 = 0x5a3c_9e41;

fn a5_info(ver: u8, t: f32, ft: f32) -> B {
    // svc_info Long 0x11191218, Byte version, Float server time, Float frame time
    B::new()
        .u8(0x07)
        .dword(0x1119_1218)
        .u8(ver)
        .float(t)
        .float(ft)
}

/// A5: join, fills, entity creation.
fn a5_join_and_create(c: &str, s: &str, cap: &mut Cap, wrap: Wrap<'_>) {
    // cls_join Long DPID, String name + two cls_fill
    cap.send(
        c,
        s,
        &wrap(
            true,
            B::new()
                .u8(0x02)
                .dword(DPID)
                .string("Bob")
                .u8(1)
                .u8(1)
                .bytes(),
        ),
    );
    cap.send(s, c, &wrap(false, a5_info(5, 100.25, 0.0625).bytes()));
    cap.send(
        c,
        s,
        &wrap(
            true,
            B::new().u8(0x09).dword(DPID).string("arena.wmb").bytes(),
        ),
    );
    // cls_create Long DPID, String, Position[3], Short action, Short identifier
    let m = B::new()
        .u8(0x03)
        .dword(DPID)
        .string("soldier.mdl")
        .pos3(0.0, 0.0, 32.0)
        .short(1)
        .short(12);
    cap.send(c, s, &wrap(true, m.bytes()));
    // svc_create + three svc_fill (minimum 8 bytes)
    cap.send(
        s,
        c,
        &wrap(
            false,
            B::new()
                .u8(0x03)
                .short(3)
                .short(12)
                .u8(1)
                .u8(1)
                .u8(1)
                .bytes(),
        ),
    );
    cap.send(c, s, &wrap(true, B::new().u8(0x07).dword(DPID).bytes())); // cls_ping Long DPID
    cap.send(s, c, &wrap(false, SEED_EXAMPLE_A5.to_vec()));
}

/// A5: the three update messages with every parameter bit.
fn a5_updates(c: &str, s: &str, cap: &mut Cap, wrap: Wrap<'_>) {
    // svc_update1 bits 0..5: position, pan, scale, type, frame, flags1
    let m = B::new()
        .u8(0x40 | 0x3f)
        .short(3)
        .pos3(16.0, 32.0, -8.0)
        .angle(270.0)
        .short(4)
        .short(4)
        .short(4)
        .string("soldier.mdl")
        .short(5)
        .u8(64)
        .u8(0x21);
    cap.send(s, c, &wrap(false, m.bytes()));
    // svc_update2 bits 0..5: ambient, albedo, skin, tilt, roll, nextframe
    let m = B::new()
        .u8(0x80 | 0x3f)
        .short(3)
        .u8(255)
        .u8(100)
        .u8(1)
        .angle(5.0)
        .angle(355.0)
        .short(6);
    cap.send(s, c, &wrap(false, m.bytes()));
    // svc_update3 bits 0..4: lightrange, colour (B,G,R), alpha, uv (Short/16), flags2
    let m = B::new()
        .u8(0xc0 | 0x1f)
        .short(3)
        .u8(51)
        .u8(10)
        .u8(20)
        .u8(30)
        .u8(255)
        .short(32)
        .short(-16)
        .u8(4);
    cap.send(s, c, &wrap(false, m.bytes()));
}

/// A5: variables, strings, skills, sounds and effects, both ways.
fn a5_skills_sounds_and_effects(c: &str, s: &str, cap: &mut Cap, wrap: Wrap<'_>) {
    // cls_var + cls_string + cls_skill (Long Entity_DPID) + cls_skill3
    let m = B::new()
        .u8(0x0a)
        .short(1)
        .short(3)
        .fixed(1.0)
        .fixed(2.0)
        .fixed(3.0)
        .u8(0x0b)
        .short(4)
        .string("go")
        .u8(0x0e)
        .dword(0x0bad_f00d)
        .short(100)
        .fixed(7.0)
        .u8(0x0f)
        .dword(0x0bad_f00d)
        .short(112)
        .fixed(1.0)
        .fixed(0.0)
        .fixed(-1.0);
    cap.send(c, s, &wrap(true, m.bytes()));
    // svc_skill + svc_skill3 + svc_entsound + svc_effect + svc_var + svc_string
    let m = B::new()
        .u8(0x0e)
        .short(3)
        .short(100)
        .fixed(8.0)
        .u8(0x0f)
        .short(3)
        .short(112)
        .fixed(0.0)
        .fixed(0.5)
        .fixed(0.0)
        .u8(0x05)
        .short(3)
        .short(1)
        .u8(128)
        .long(99)
        .u8(0x06)
        .short(2)
        .short(5)
        .pos3(16.0, 32.0, 0.0)
        .fixed(1.0)
        .fixed(1.0)
        .fixed(0.0)
        .u8(0x0a)
        .short(2)
        .short(1)
        .fixed(-0.5)
        .u8(0x0b)
        .short(0)
        .string("Round 1");
    cap.send(s, c, &wrap(false, m.bytes()));
    cap.send(
        c,
        s,
        &wrap(true, B::new().u8(0x04).dword(0x0bad_f00d).bytes()),
    ); // cls_remove
    cap.send(
        s,
        c,
        &wrap(
            false,
            B::new()
                .u8(0x04)
                .short(3)
                .u8(1)
                .u8(1)
                .u8(1)
                .u8(1)
                .u8(1)
                .bytes(),
        ),
    );
}

/// An A5 session; `wrap(to_server, messages)` adds the transport (raw, DirectPlay 8 or 4).
fn a5_session(c: &str, s: &str, cap: &mut Cap, wrap: Wrap<'_>) {
    a5_join_and_create(c, s, cap, wrap);
    a5_updates(c, s, cap, wrap);
    a5_skills_sounds_and_effects(c, s, cap, wrap);
}

fn a5_raw() -> Vec<u8> {
    let mut cap = Cap::new();
    a5_session("10.0.0.3:2305", "10.0.0.1:2300", &mut cap, &|_, b| b);
    cap.bytes()
}

// ---- DirectPlay 4 ([MC-DPL4CS]) ----

/// Size/token word (0xFAB = from a remote DirectPlay machine) + SOCKADDR_IN placeholder.
fn dp4_head(total: usize, port: u16) -> B {
    B::new()
        .dword(total as u32 | (0xFAB << 20))
        .short(2) // AF_INET
        .raw(&port.to_be_bytes())
        .raw(&[0, 0, 0, 0]) // address 0.0.0.0: same network
        .raw(&[0; 8])
}

/// Player message: header, idFrom, idTo, Gamestudio payload ([MC-DPL4CS] §2.2.45).
fn dp4_player(from: u32, to: u32, port: u16, body: &[u8]) -> Vec<u8> {
    dp4_head(28 + body.len(), port)
        .dword(from)
        .dword(to)
        .raw(body)
        .bytes()
}

/// System message: header, 'play', command, version, body. The [MC-DPL4CS] §2.2.6 diagram draws Version
/// first, but Wine dplayx (DPMSG_SENDENVELOPE), Wireshark packet-dplay.c and the spec's own §4.1
/// example put the command first.
fn dp4_system(cmd: u16, port: u16, body: &[u8]) -> Vec<u8> {
    dp4_head(28 + body.len(), port)
        .raw(b"play")
        .short(cmd as i16)
        .short(14) // DX9VERSION
        .raw(body)
        .bytes()
}

fn a5_dplay4() -> Vec<u8> {
    let mut cap = Cap::new();
    // DPSP_MSG_ENUMSESSIONS (0x0002) to 47624: ApplicationGUID, PasswordOffset, Flags.
    let guid = [
        0x11u8, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff,
        0x01,
    ];
    let body = B::new().raw(&guid).dword(0).dword(0x0000_0001).bytes();
    cap.send(
        "10.0.0.5:2321",
        "10.0.0.1:47624",
        &dp4_system(0x0002, 2321, &body),
    );
    let (client_id, server_id) = (0x0312_4401u32, 0x0312_4400u32);
    a5_session(
        "10.0.0.5:2320",
        "10.0.0.1:2350",
        &mut cap,
        &|to_server, b| {
            if to_server {
                dp4_player(client_id, server_id, 2320, &b)
            } else {
                dp4_player(server_id, client_id, 2350, &b)
            }
        },
    );
    // DPSP_MSG_PING (0x0016): IDFrom, TickCount.
    let ping = B::new().dword(server_id).dword(123_456).bytes();
    cap.send(
        "10.0.0.1:2350",
        "10.0.0.5:2320",
        &dp4_system(0x0016, 2350, &ping),
    );
    cap.bytes()
}

// ---- DirectPlay 8 ([MC-DPL8R] §2.2) ----

const SESS: u32 = 0x1a2b_3c4d;

fn dp8_cframe(cmd: u8, op: u8, msg: u8, rsp: u8, ts: u32) -> Vec<u8> {
    B::new()
        .u8(cmd)
        .u8(op)
        .u8(msg)
        .u8(rsp)
        .dword(0x0001_0006)
        .dword(SESS)
        .dword(ts)
        .bytes()
}

/// DFRAME: bCommand, bControl, bSeq, bNRcv, optional masks, payload.
fn dp8_dframe(cmd: u8, ctl: u8, seq: u8, nrcv: u8, masks: &[u32], payload: &[u8]) -> Vec<u8> {
    let mut b = B::new().u8(cmd).u8(ctl).u8(seq).u8(nrcv);
    for m in masks {
        b = b.dword(*m);
    }
    b.raw(payload).bytes()
}

/// Coalesced payload: headers (bSize, bCommand), padding, payloads padded to 4 bytes.
fn dp8_coalesced(subs: &[(u8, Vec<u8>)]) -> Vec<u8> {
    let mut b = B::new();
    for (i, (cmd, p)) in subs.iter().enumerate() {
        let last = if i + 1 == subs.len() { 0x01 } else { 0 };
        let big = ((p.len() >> 8) as u8 & 0x07) << 3;
        b = b.u8(p.len() as u8).u8(cmd | last | big);
    }
    if subs.len() % 2 == 1 {
        b = b.short(0);
    }
    for (i, (_, p)) in subs.iter().enumerate() {
        b = b.raw(p);
        if i + 1 < subs.len() {
            while !b.0.len().is_multiple_of(4) {
                b = b.u8(0);
            }
        }
    }
    b.bytes()
}

const D_REL: u8 = 0x01 | 0x02 | 0x04 | 0x10 | 0x20; // DATA RELIABLE SEQUENTIAL NEW_MSG END_MSG
const D_UNREL: u8 = 0x01 | 0x10 | 0x20; // DATA NEW_MSG END_MSG

/// DirectPlay 8 host enumeration before the session: query and response.
fn dp8_enumeration(cap: &mut Cap) {
    // [MC-DPLHP] enumeration on 6073: ENUM_QUERY (lead 0, cmd 2, wEnumPayload, bType 2 = no GUID)
    cap.send(
        "10.0.0.4:2311",
        "10.0.0.1:6073",
        &B::new().u8(0).u8(2).short(0x1234).u8(2).bytes(),
    );
    // ENUM_RESPONSE from the game port ([MC-DPLHP] 2.2.2): 14 DWORDs, two GUIDs, session name.
    let name: Vec<u8> = "office"
        .encode_utf16()
        .chain([0])
        .flat_map(|c| c.to_le_bytes())
        .collect();
    let mut r = B::new()
        .u8(0)
        .u8(3)
        .short(0x1234)
        .dword(0)
        .dword(0) // ReplyOffset, ResponseSize
        .dword(80)
        .dword(0x0000_0001) // ApplicationDescSize, ApplicationDescFlags (client/server)
        .dword(8)
        .dword(2) // MaxPlayers, CurrentPlayers
        .dword(88)
        .dword(name.len() as u32) // SessionNameOffset (from the end of EnumPayload), size
        .dword(0)
        .dword(0)
        .dword(0)
        .dword(0)
        .dword(0)
        .dword(0);
    r = r.raw(&[0xa1; 16]).raw(&[
        0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff,
        0x02,
    ]);
    cap.send("10.0.0.1:2302", "10.0.0.4:2311", &r.raw(&name).bytes());
}

/// The DirectPlay 8 handshake, then Gamestudio traffic in single and coalesced data frames.
fn dp8_handshake_and_data(cap: &mut Cap, c: &str, s: &str) {
    cap.send(c, s, &dp8_cframe(0x88, 0x01, 0, 0, 1000)); // CONNECT (CFRAME|POLL)
    cap.send(s, c, &dp8_cframe(0x88, 0x02, 0, 0, 5000)); // CONNECTED from the listener (POLL)
    cap.send(c, s, &dp8_cframe(0x80, 0x02, 1, 0, 1010)); // CONNECTED from the connector
    cap.send(
        c,
        s,
        &dp8_dframe(D_REL, 0, 0, 0, &[], &a6_client_join("Carol").bytes()),
    );
    let m = a6_server_info(3, 2.0).u8(0x03).short(11).short(5);
    cap.send(s, c, &dp8_dframe(D_REL, 0, 0, 1, &[], &m.bytes()));
    // Coalesced: SVC_LOCAL (reliable) + the manual's worked example + SVC_UPDATE3 colour/alpha
    let subs = vec![
        (0x06u8, B::new().u8(0x12).short(11).short(1).bytes()),
        (0x00, SEED_EXAMPLE_A6.to_vec()),
        (
            0x00,
            B::new()
                .u8(0xc6)
                .short(11)
                .u8(0)
                .u8(255)
                .u8(0)
                .u8(128)
                .bytes(),
        ),
    ];
    cap.send(
        s,
        c,
        &dp8_dframe(D_REL, 0x04, 1, 1, &[], &dp8_coalesced(&subs)),
    );
    // Unreliable DFRAME with SACK mask 1: CLS_PING + CLS_SKILL (skill3 = 156)
    let m = B::new().u8(0x07).u8(0x0e).short(11).short(156).fixed(-1.0);
    cap.send(
        c,
        s,
        &dp8_dframe(D_UNREL, 0x10, 1, 2, &[0x0000_0001], &m.bytes()),
    );
}

/// A message split over three frames, then SACK, keep-alive and core frames.
fn dp8_split_message_and_control(cap: &mut Cap, c: &str, s: &str) {
    // A reliable message larger than one frame, split over three DFRAMEs (NEW_MSG, middle,
    // END_MSG; [MC-DPL8R] 2.2.2): SVC_STRING with a long text + 20 SVC_UPDATE2 position/pan.
    let mut big = B::new()
        .u8(0x0b)
        .short(9)
        .string(&"Welcome to the office level. ".repeat(4));
    for e in 0..20i16 {
        big = big
            .u8(0x83)
            .short(100 + e)
            .pos3(e as f64 * 8.0, -16.0, 0.5)
            .angle(e as f64 * 18.0);
    }
    let big = big.bytes();
    let (a, rest) = big.split_at(150);
    let (b, c3) = rest.split_at(150);
    cap.send(
        s,
        c,
        &dp8_dframe(0x01 | 0x02 | 0x04 | 0x10, 0, 2, 2, &[], a),
    );
    cap.send(s, c, &dp8_dframe(0x01 | 0x02 | 0x04, 0, 3, 2, &[], b));
    cap.send(
        s,
        c,
        &dp8_dframe(0x01 | 0x02 | 0x04 | 0x20, 0, 4, 2, &[], c3),
    );
    // SACK CFRAME: bFlags RESPONSE, bRetry, bNSeq, bNRcv, wPadding, tTimestamp
    cap.send(
        s,
        c,
        &B::new()
            .u8(0x80)
            .u8(0x06)
            .u8(0x01)
            .u8(0)
            .u8(5)
            .u8(2)
            .short(0)
            .dword(5100)
            .bytes(),
    );
    // Keep-alive: DFRAME with KEEPALIVE control and dwSessID, no payload; its bCommand MUST
    // have RELIABLE, SEQUENTIAL and END_MSG ([MC-DPL8R] 2.2.2).
    cap.send(
        c,
        s,
        &dp8_dframe(
            0x01 | 0x02 | 0x04 | 0x10 | 0x20,
            0x02,
            2,
            5,
            &[],
            &SESS.to_le_bytes(),
        ),
    );
    // A core (USER_1) message: DirectPlay session management, not Gamestudio data
    cap.send(
        s,
        c,
        &dp8_dframe(
            D_REL | 0x40,
            0,
            5,
            3,
            &[],
            &B::new().dword(0xc1).dword(0).bytes(),
        ),
    );
}

fn a6_dplay8() -> Vec<u8> {
    let mut cap = Cap::new();
    dp8_enumeration(&mut cap);
    let (c, s) = ("10.0.0.4:2310", "10.0.0.1:2302");
    dp8_handshake_and_data(&mut cap, c, s);
    dp8_split_message_and_control(&mut cap, c, s);
    cap.bytes()
}

/// DirectPlay 8 handshake, then every Gamestudio buffer in its own reliable DFRAME with
/// per-direction sequence numbers.
fn dp8_session(c: &str, s: &str, cap: &mut Cap, session: &Session) {
    cap.send(c, s, &dp8_cframe(0x88, 0x01, 0, 0, 1000)); // CONNECT
    cap.send(s, c, &dp8_cframe(0x88, 0x02, 0, 0, 5000)); // CONNECTED (listener)
    cap.send(c, s, &dp8_cframe(0x80, 0x02, 1, 0, 1010)); // CONNECTED (connector)
    let seq = [std::cell::Cell::new(0u8), std::cell::Cell::new(0u8)];
    session(c, s, cap, &|to_server, b| {
        let (me, peer) = if to_server { (1, 0) } else { (0, 1) };
        let n = seq[me].get();
        seq[me].set(n.wrapping_add(1));
        dp8_dframe(D_REL, 0, n, seq[peer].get(), &[], &b)
    });
}

/// CONNECTED_SIGNED ([MC-DPL8R] 2.2.1.3): head, ullConnectSig, ullSenderSecret,
/// ullReceiverSecret, dwSigningOpts, dwEchoTimestamp.
fn dp8_connected_signed(cmd: u8, msg: u8, secrets: u64, echo: u32) -> Vec<u8> {
    B::new()
        .raw(&dp8_cframe(cmd, 0x03, msg, 0, 7000))
        .raw(&0x0123_4567_89ab_cdefu64.to_le_bytes())
        .raw(&secrets.to_le_bytes())
        .raw(&secrets.wrapping_mul(3).to_le_bytes())
        .dword(0x0000_0001) // PACKET_SIGNING_FAST
        .dword(echo)
        .bytes()
}

/// A signed DirectPlay 8 session: every DFRAME carries an 8-byte ullSignature after its masks.
fn a6_dplay8_signed() -> Vec<u8> {
    let mut cap = Cap::new();
    let (c, s) = ("10.0.0.11:2380", "10.0.0.1:2302");
    cap.send(c, s, &dp8_cframe(0x88, 0x01, 0, 0, 1000)); // CONNECT
    cap.send(s, c, &dp8_connected_signed(0x88, 0, 0, 0)); // listener: secrets zero
    cap.send(
        c,
        s,
        &dp8_connected_signed(0x80, 1, 0x1111_2222_3333_4444, 7000),
    ); // connector
    let sig = |n: u64| 0x5a5a_0000_0000_0000u64 | n;
    let frame = |seq: u8, nrcv: u8, body: &[u8]| {
        B::new()
            .u8(D_REL)
            .u8(0)
            .u8(seq)
            .u8(nrcv)
            .raw(&sig(seq as u64).to_le_bytes())
            .raw(body)
            .bytes()
    };
    cap.send(c, s, &frame(0, 0, &a6_client_join("Gina").bytes()));
    cap.send(s, c, &frame(0, 1, &a6_server_info(3, 4.0).bytes()));
    cap.send(s, c, &frame(1, 1, &SEED_EXAMPLE_A6));
    cap.bytes()
}

fn a5_dplay8() -> Vec<u8> {
    let mut cap = Cap::new();
    dp8_session("10.0.0.9:2360", "10.0.0.1:2302", &mut cap, &a5_session);
    cap.bytes()
}

fn a6_dplay4() -> Vec<u8> {
    let mut cap = Cap::new();
    let (client_id, server_id) = (0x0077_0011u32, 0x0077_0010u32);
    a6_session(
        "10.0.0.10:2370",
        "10.0.0.1:2350",
        &mut cap,
        &|to_server, b| {
            if to_server {
                dp4_player(client_id, server_id, 2370, &b)
            } else {
                dp4_player(server_id, client_id, 2350, &b)
            }
        },
    );
    cap.bytes()
}

// ---- Deliberately broken ----

fn broken() -> Vec<u8> {
    let mut cap = Cap::new();
    let (c, s) = ("10.0.0.7:2330", "10.0.0.1:2300");
    cap.send(c, s, &a6_client_join("Eve").bytes());
    cap.send(s, c, &a6_server_info(3, 5.0).bytes());
    cap.send(s, c, &SEED_EXAMPLE_A6[..5]); // position cut off
    cap.send(s, c, &B::new().u8(0x04).short(7).u8(0x20).u8(1).bytes()); // unknown command 0x20
    cap.send(c, s, &B::new().u8(0x0b).short(1).raw(b"abc").bytes()); // string without NUL
    cap.send(
        s,
        c,
        &B::new()
            .u8(0x0a)
            .short(1)
            .short(16)
            .fixed(1.0)
            .fixed(2.0)
            .bytes(),
    ); // length lies
    cap.send(s, c, &B::new().u8(0xd0).short(7).u8(0).bytes()); // A6 bit 3.4 unused
    // DirectPlay 8: coalesced size beyond the frame, then a SACK mask cut off
    let (c8, s8) = ("10.0.0.7:2331", "10.0.0.1:2302");
    cap.send(c8, s8, &dp8_cframe(0x88, 0x01, 0, 0, 1));
    let mut co = dp8_coalesced(&[(0, a6_client_join("Zed").bytes())]);
    co[0] = 40; // claims 40 bytes
    cap.send(c8, s8, &dp8_dframe(D_REL, 0x04, 0, 0, &[], &co));
    cap.send(c8, s8, &[D_UNREL, 0x10, 1, 0, 0xff]);
    // A5: join with DPID + fill locks A5; then a bad sync constant and an unused bit 3.5
    let (c5, s5) = ("10.0.0.8:2332", "10.0.0.1:2300");
    cap.send(
        c5,
        s5,
        &B::new().u8(0x02).dword(DPID).string("Mal").u8(1).bytes(),
    );
    cap.send(
        s5,
        c5,
        &B::new()
            .u8(0x07)
            .dword(0x1119_1219)
            .u8(5)
            .float(1.0)
            .float(0.1)
            .bytes(),
    );
    cap.send(s5, c5, &B::new().u8(0xe0).short(1).u8(0).bytes());
    cap.bytes()
}

/// The A5 session inside DirectPlay 4 player messages of a session with the NM flag
/// (DPSESSION_NOMESSAGEID): no idFrom/idTo, the Gamestudio data follows the 20-byte header
/// ([MC-DPL4CS] 2.2.45, 2.2.5).
fn a5_dplay4_noid() -> Vec<u8> {
    let mut cap = Cap::new();
    a5_session(
        "10.0.0.7:2320",
        "10.0.0.1:2350",
        &mut cap,
        &|to_server, b| {
            let port = if to_server { 2320 } else { 2350 };
            dp4_head(20 + b.len(), port).raw(&b).bytes()
        },
    );
    cap.bytes()
}

/// Every capture this module writes: (file name under `captures/`, bytes).
pub fn all() -> Vec<(&'static str, Vec<u8>)> {
    vec![
        ("gamestudio-a6-raw.pcap", a6_raw()),
        ("gamestudio-a6-fixed.pcap", a6_fixed()),
        ("gamestudio-a6-dplay8.pcap", a6_dplay8()),
        ("gamestudio-a6-dplay8-signed.pcap", a6_dplay8_signed()),
        ("gamestudio-a5-raw.pcap", a5_raw()),
        ("gamestudio-a5-dplay4.pcap", a5_dplay4()),
        ("gamestudio-a5-dplay4-noid.pcap", a5_dplay4_noid()),
        ("gamestudio-a5-dplay8.pcap", a5_dplay8()),
        ("gamestudio-a6-dplay4.pcap", a6_dplay4()),
        ("gamestudio-broken.pcap", broken()),
    ]
}
