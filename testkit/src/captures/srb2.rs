//! The hand-made SRB2 captures (`cargo run -p testkit --bin gen_captures`).
//!
//! SRB2 cannot run here, so every datagram is built from the layouts in the SRB2 sources of the
//! release in question (github.com/STJr/SRB2, tags `SRB2_release_2.1.25` and
//! `SRB2_release_2.2.13`; file and structure or function cited per message); tests/golden.rs
//! regenerates the files in memory and checks that the committed captures are identical.

use std::net::SocketAddr;

use crate::synth::{PcapWriter, eth_udp, linktype};

/// SRB2 `src/d_net.c` `NetbufferChecksum`: 0x01234567 + Σ byte·(1-based position) over bytes 4…end.
pub fn srb2_checksum(dgram: &[u8]) -> u32 {
    let mut s: u32 = 0x0123_4567;
    for (i, b) in dgram[4..].iter().enumerate() {
        s = s.wrapping_add(*b as u32 * (i as u32 + 1));
    }
    s
}

/// SRB2 `src/d_clisrv.h` `doomdata_t`: the 8-byte header (checksum, ack, ackreturn, packettype, reserved = 0) + body.
pub fn packet(ack: u8, ackret: u8, ptype: u8, body: &[u8]) -> Vec<u8> {
    let mut p = vec![0, 0, 0, 0, ack, ackret, ptype, 0];
    p.extend_from_slice(body);
    let c = srb2_checksum(&p);
    p[..4].copy_from_slice(&c.to_le_bytes());
    p
}

/// Little-endian body builder.
#[derive(Default)]
pub struct B(pub Vec<u8>);
impl B {
    pub fn u8(mut self, v: u8) -> B {
        self.0.push(v);
        self
    }
    pub fn u16(mut self, v: u16) -> B {
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }
    pub fn u32(mut self, v: u32) -> B {
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }
    pub fn raw(mut self, v: &[u8]) -> B {
        self.0.extend_from_slice(v);
        self
    }
    /// `char[n]`: strncpy, zero-padded.
    pub fn chars(mut self, s: &str, n: usize) -> B {
        let mut v = s.as_bytes().to_vec();
        v.resize(n, 0);
        self.0.extend_from_slice(&v);
        self
    }
    /// STRZ / STRN with fewer than n characters: the text then a NUL.
    pub fn strz(mut self, s: &str) -> B {
        self.0.extend_from_slice(s.as_bytes());
        self.0.push(0);
        self
    }
}

/// SRB2 `src/d_ticcmd.h` `ticcmd_t`: forwardmove, sidemove, angleturn, aiming, buttons (+ latency in 2.2.10+).
fn ticcmd(b: B, fw: i8, side: i8, angle: u16, buttons: u16, latency: Option<u8>) -> B {
    let b = b.u8(fw as u8).u8(side as u8).u16(angle).u16(0).u16(buttons);
    match latency {
        Some(l) => b.u8(l),
        None => b,
    }
}

fn md5ish(seed: u8) -> [u8; 16] {
    let mut m = [0u8; 16];
    for (i, x) in m.iter_mut().enumerate() {
        *x = seed.wrapping_mul(31).wrapping_add(i as u8 * 7);
    }
    m
}

/// SRB2 `src/command.c` `CV_ComputeNetid` (≤ 2.2.6): Σ c_k · P[k mod 16], truncated to 16 bits.
fn netid(name: &str) -> u16 {
    const P: [u32; 16] = [2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53];
    let mut s: u32 = 0;
    for (k, c) in name.bytes().enumerate() {
        s = s.wrapping_add(c as u32 * P[k % 16]);
    }
    s as u16
}

/// One server-tics packet description: start tic, per-tic slot moves, per-tic text buffers.
struct Tics<'a> {
    start: u32,
    numtics: u8,
    slots: u8,
    /// (tic offset, player, net-command bytes)
    text: Vec<(u8, u8, &'a [u8])>,
}

/// SRB2 `src/d_clisrv.h` `servertics_pak`, written by `src/d_clisrv.c` `SV_SendTics`: header fields, tic-major ticcmds, then per tic count + (player, len, bytes).
fn servertics(t: &Tics<'_>, v22: bool, latency: bool) -> Vec<u8> {
    let mut b = B::default();
    b = if v22 {
        b.u32(t.start)
    } else {
        b.u8(t.start as u8)
    };
    b = b.u8(t.numtics).u8(t.slots);
    for i in 0..t.numtics {
        for s in 0..t.slots {
            // Slot 0 stands still, the others run forward; angle bit 0 = TICCMD_RECEIVED.
            let fw = if s == 0 { 0 } else { 25 + 5 * s as i8 };
            let angle = 0x4000u16.wrapping_add((i as u16) << 8) | 1;
            let buttons = if (t.start + i as u32).is_multiple_of(3) && s != 0 {
                0x0800
            } else {
                0
            };
            b = ticcmd(
                b,
                fw,
                0,
                angle,
                buttons,
                latency.then_some((t.start as u8).wrapping_add(i)),
            );
        }
    }
    for i in 0..t.numtics {
        let here: Vec<_> = t.text.iter().filter(|x| x.0 == i).collect();
        b = b.u8(here.len() as u8);
        for (_, p, bytes) in here {
            b = b.u8(*p).u8(bytes.len() as u8).raw(bytes);
        }
    }
    b.0
}

struct Cap {
    w: PcapWriter,
    ms: u64,
    client: SocketAddr,
    server: SocketAddr,
}
impl Cap {
    fn new(client: &str, server: &str) -> Cap {
        Cap {
            w: PcapWriter::new(linktype::ETHERNET, false, false, 65535),
            ms: 0,
            client: client.parse().unwrap(),
            server: server.parse().unwrap(),
        }
    }
    fn c2s(&mut self, p: &[u8]) {
        self.ms += 29;
        let f = eth_udp(self.client, self.server, p);
        self.w.packet_at_ms(1_700_000_000, self.ms, &f);
    }
    fn s2c(&mut self, p: &[u8]) {
        self.ms += 29;
        let f = eth_udp(self.server, self.client, p);
        self.w.packet_at_ms(1_700_000_000, self.ms, &f);
    }
}

fn data(n: usize, seed: u8) -> Vec<u8> {
    (0..n)
        .map(|i| (i as u8).wrapping_mul(13).wrapping_add(seed))
        .collect()
}

/// Packet type numbers of 2.1.25 (SRB2 `src/d_clisrv.h` `packettype_t`, tag `SRB2_release_2.1.25`).
mod pt21 {
    pub const ASKINFO: u8 = 12;
    pub const SERVERINFO: u8 = 13;
    pub const PLAYERINFO: u8 = 14;
    pub const REQUESTFILE: u8 = 15;
    pub const FILEFRAGMENT: u8 = 19;
    pub const TEXTCMD: u8 = 20;
    pub const CLIENTJOIN: u8 = 22;
    pub const SERVERCFG: u8 = 1;
    pub const CLIENTCMD: u8 = 2;
    pub const SERVERTICS: u8 = 8;
    pub const PING: u8 = 26;
    pub const NOTHING: u8 = 0;
    pub const CLIENTQUIT: u8 = 11;
}

/// 2.1.25: the client asks, the server describes itself.
fn s21_server_info(c: &mut Cap) {
    use pt21::*;
    // `d_clisrv.h` `askinfo_pak` PT_ASKINFO: version 201, time 1000 (the checksum example of `NetbufferChecksum`).
    c.c2s(&packet(0, 0, ASKINFO, &B::default().u8(201).u32(1000).0));
    // `d_clisrv.h` `serverinfo_pak` 2.1.25 + the file list of `d_netfil.c` `PutFileNeeded`.
    let si = B::default()
        .u8(201)
        .u8(25)
        .u8(2)
        .u8(8)
        .u8(0) // GT_COOP
        .u8(1)
        .u8(0)
        .u8(0)
        .u8(6) // fileneedednum: the five base files, then the add-on
        .u8(0) // adminplayer: stale byte
        .u32(1000)
        .u32(4200)
        .chars("Green Hill Netgame", 32)
        .chars("MAP01", 8)
        .chars("GREENFLOWER", 33)
        .raw(&md5ish(1))
        .u8(1)
        .u8(1)
        // `PutFileNeeded`: 2.1.25 lists every loaded file including the base files (srb2.srb, zones.dta,
        // player.dta, rings.dta, patch.dta; `PutFileNeeded` loops over all of `numwadfiles`,
        // STJr/SRB2 src/d_netfil.c), so the add-on is file 5. Status 0x01: important, larger
        // than maxsend (high nibble 0). Sizes are illustrative.
        .u8(0x01)
        .u32(9_000_000)
        .strz("srb2.srb")
        .raw(&md5ish(2))
        .u8(0x01)
        .u32(6_500_000)
        .strz("zones.dta")
        .raw(&md5ish(4))
        .u8(0x01)
        .u32(2_100_000)
        .strz("player.dta")
        .raw(&md5ish(5))
        .u8(0x01)
        .u32(1_200_000)
        .strz("rings.dta")
        .raw(&md5ish(6))
        .u8(0x01)
        .u32(1_100_000)
        .strz("patch.dta")
        .raw(&md5ish(7))
        .u8(0x11)
        .u32(1500)
        .strz("chatplus.wad")
        .raw(&md5ish(3));
    c.s2c(&packet(0, 0, SERVERINFO, &si.0));
}

/// 2.1.25: the player list, then the client fetches the missing file.
fn s21_player_info_and_file(c: &mut Cap) {
    use pt21::*;
    // `d_clisrv.h` `plrinfo_pak` PT_PLAYERINFO: 32 × 36 bytes; byte 0 = node (2.1.25), 255 = empty.
    let mut pi = B::default();
    for i in 0..32u8 {
        pi = match i {
            0 => pi
                .u8(0)
                .chars("Sonic", 22)
                .raw(&[127, 0, 0, 1])
                .u8(0)
                .u8(0)
                .u8(0x06)
                .u32(1200)
                .u16(300),
            2 => pi
                .u8(2)
                .chars("Knuckles", 22)
                .raw(&[10, 0, 0, 3])
                .u8(0)
                .u8(2)
                .u8(0x07)
                .u32(800)
                .u16(120),
            _ => pi.u8(255).raw(&[0; 35]),
        };
    }
    c.s2c(&packet(0, 0, PLAYERINFO, &pi.0));
    // `d_netfil.c` PT_REQUESTFILE 2.1.25: {fileid, STRN name} … 0xFF; fileid = index in the list (5).
    c.c2s(&packet(
        1,
        0,
        REQUESTFILE,
        &B::default().u8(5).strz("chatplus.wad").u8(0xFF).0,
    ));
    // `d_clisrv.h` `filetx_pak` PT_FILEFRAGMENT 2.1.25: fileid, position (bit 31 = last), size, data; 1009-byte pieces.
    let file = data(1500, 5);
    c.s2c(&packet(
        1,
        1,
        FILEFRAGMENT,
        &B::default().u8(5).u32(0).u16(1009).raw(&file[..1009]).0,
    ));
    c.s2c(&packet(
        2,
        1,
        FILEFRAGMENT,
        &B::default()
            .u8(5)
            .u32(0x8000_0000 | 1009)
            .u16(491)
            .raw(&file[1009..])
            .0,
    ));
}

/// 2.1.25: join, server config and the savegame.
fn s21_join_and_config(c: &mut Cap) {
    use pt21::*;
    // `d_clisrv.h` `clientconfig_pak` PT_CLIENTJOIN 2.1.25: version, subversion, localplayers, mode.
    c.c2s(&packet(
        2,
        2,
        CLIENTJOIN,
        &B::default().u8(201).u8(25).u8(1).u8(0).0,
    ));
    // `d_clisrv.h` `serverconfig_pak` 2.1.25: fixed 116 bytes + 32 names + netvars
    // (`command.c` `CV_SaveNetVars`).
    let mut skins = [0xFFu8; 32];
    skins[0] = 0;
    skins[2] = 2;
    let mut colors = [0xFFu8; 32];
    colors[0] = 6;
    colors[2] = 7;
    let mut cfg = B::default()
        .u8(201)
        .u8(25)
        .u8(0)
        .u8(3)
        .u32(5000)
        .u8(1)
        .u8(1) // GS_LEVEL
        .raw(&skins)
        .raw(&colors)
        .u8(0)
        .u8(1)
        .raw(&[0xFF; 32])
        .chars("AbCdEfGh", 8);
    for i in 0..32 {
        cfg = match i {
            0 => cfg.strz("Sonic"),
            2 => cfg.strz("Knuckles"),
            _ => cfg.u8(0),
        };
    }
    cfg = cfg.u16(1).u16(netid("timelimit")).strz("10").u8(0);
    c.s2c(&packet(3, 2, SERVERCFG, &cfg.0));
    // `d_clisrv.c` `SV_SendSaveGame`, file 0: u32 decompressed length (0 = stored) + stream (opaque here).
    let save = B::default().u32(0).raw(b"SAVEGAME").0;
    c.s2c(&packet(
        4,
        2,
        FILEFRAGMENT,
        &B::default()
            .u8(0)
            .u32(0x8000_0000)
            .u16(save.len() as u16)
            .raw(&save)
            .0,
    ));
}

/// 2.1.25: the first tics, name and colour, client commands, chat, pings and a retransmission.
fn s21_tics_and_chat(c: &mut Cap) {
    use pt21::*;
    // `SV_SendTics`: tics 5000–5001, 3 slots; XD_ADDPLAYER (10) node 1 → player 1
    // (`d_clisrv.c` `Got_AddPlayer`).
    let addplayer = [10u8, 1, 1];
    let t = Tics {
        start: 5000,
        numtics: 2,
        slots: 3,
        text: vec![(0, 0, &addplayer)],
    };
    c.s2c(&packet(0, 3, SERVERTICS, &servertics(&t, false, false)));
    // PT_TEXTCMD (`d_netcmd.c` `Got_NameAndColor`, `Got_WeaponPref`): XD_NAMEANDCOLOR (1) "Tails" colour 5 skin 1; XD_WEAPONPREF (2) 0x01.
    let nc = B::default()
        .u8(1)
        .strz("Tails")
        .u8(5)
        .u8(1)
        .u8(2)
        .u8(0x01)
        .0;
    c.c2s(&packet(
        3,
        4,
        TEXTCMD,
        &B::default().u8(nc.len() as u8).raw(&nc).0,
    ));
    // `d_clisrv.h` `clientcmd_pak` PT_CLIENTCMD: client_tic 5001 & 0xFF, resendfrom 5002 & 0xFF, consistancy, ticcmd.
    let cc = ticcmd(
        B::default().u8(0x89).u8(0x8A).u16(0x1234),
        50,
        0,
        0x4001,
        0x0800,
        None,
    );
    c.c2s(&packet(0, 4, CLIENTCMD, &cc.0));
    // `SV_SendTics`: tics 5001–5003 (5001 overlaps), the server relays Tails's commands at 5002.
    let t = Tics {
        start: 5001,
        numtics: 3,
        slots: 3,
        text: vec![(1, 1, &nc)],
    };
    c.s2c(&packet(0, 4, SERVERTICS, &servertics(&t, false, false)));
    // `d_netcmd.c` `Got_Saycmd` XD_SAY (5): target 0, flags 0, message.
    let say = xd_say(0, "hello everyone");
    c.c2s(&packet(4, 4, TEXTCMD, &textbuf(&say)));
    // Knuckles answers privately: target 2 = player 1 (Tails).
    let say2 = xd_say(2, "hi Tails");
    let t = Tics {
        start: 5003,
        numtics: 2,
        slots: 3,
        text: vec![(1, 1, &say), (1, 2, &say2)],
    };
    c.s2c(&packet(0, 5, SERVERTICS, &servertics(&t, false, false)));
    // `d_clisrv.h` `doomdata_t` `pingtable` PT_PING 2.1.25: u32[32] milliseconds.
    let mut ping = B::default();
    for i in 0..32 {
        ping = ping.u32(match i {
            1 => 57,
            2 => 85,
            _ => 0,
        });
    }
    c.s2c(&packet(5, 5, PING, &ping.0));
    // `d_net.c` `HSendPacket` acks: the client retransmits its PT_TEXTCMD #4 with the same ack and a refreshed ackreturn.
    c.c2s(&packet(4, 5, TEXTCMD, &textbuf(&say)));
}

/// 2.1.25: a kick, a map change, an ack list and the quit.
fn s21_kick_map_and_quit(c: &mut Cap) {
    use pt21::*;
    // `d_netcmd.c` `Got_KickCmd` XD_KICK (3): player 2, KICK_MSG_CUSTOM_KICK (7), reason STRN(30).
    let kick = B::default().u8(3).u8(2).u8(7).strz("spamming").0;
    let t = Tics {
        start: 5005,
        numtics: 2,
        slots: 3,
        text: vec![(1, 0, &kick)],
    };
    c.s2c(&packet(0, 5, SERVERTICS, &servertics(&t, false, false)));
    // `Got_ExitLevelcmd` XD_EXITLEVEL (7, empty in 2.1.25) then `Got_Mapcmd` XD_MAP (6): flags 0, GT_COOP, "MAP02", seed.
    let map = B::default()
        .u8(7)
        .u8(6)
        .u8(0)
        .u8(0)
        .strz("MAP02")
        .u32(0xDEAD_BEEF)
        .0;
    let t = Tics {
        start: 5006,
        numtics: 2,
        slots: 2,
        text: vec![(1, 0, &map)],
    };
    c.s2c(&packet(0, 5, SERVERTICS, &servertics(&t, false, false)));
    // PT_NOTHING (`d_clisrv.h` `doomdata_t`, acks of `d_net.c`): 96-byte ack queue, nothing out of order.
    c.c2s(&packet(0, 5, NOTHING, &[0u8; 96]));
    let t = Tics {
        start: 5008,
        numtics: 2,
        slots: 2,
        text: vec![],
    };
    c.s2c(&packet(0, 5, SERVERTICS, &servertics(&t, false, false)));
    // PT_CLIENTQUIT (`d_clisrv.h` `packettype_t`): empty, reliable.
    c.c2s(&packet(5, 5, CLIENTQUIT, &[]));
}

/// A 2.1.25 session (packet types: SRB2 2.1.25 `src/d_clisrv.h` `packettype_t`; net command ids:
/// 2.1.25 `src/d_netcmd.h` `netxcmd_t`).
pub fn session_2_1_25() -> Vec<u8> {
    // 2.1 clients bind 5029 too (`i_tcp.c`).
    let mut c = Cap::new("10.0.0.2:5029", "10.0.0.1:5029");
    s21_server_info(&mut c);
    s21_player_info_and_file(&mut c);
    s21_join_and_config(&mut c);
    s21_tics_and_chat(&mut c);
    s21_kick_map_and_quit(&mut c);
    c.w.bytes
}

/// Packet type numbers of 2.2.12–2.2.13 (SRB2 `src/d_clisrv.h` `packettype_t`, tag
/// `SRB2_release_2.2.13`).
mod pt22 {
    pub const ASKINFO: u8 = 12;
    pub const SERVERINFO: u8 = 13;
    pub const PLAYERINFO: u8 = 14;
    pub const REQUESTFILE: u8 = 15;
    pub const SERVERCFG: u8 = 1;
    pub const CLIENTCMD: u8 = 2;
    pub const SERVERTICS: u8 = 8;
    pub const RECEIVEDGAMESTATE: u8 = 19;
    pub const BASICKEEPALIVE: u8 = 23;
    pub const FILEFRAGMENT: u8 = 24;
    pub const FILEACK: u8 = 25;
    pub const FILERECEIVED: u8 = 26;
    pub const TEXTCMD: u8 = 27;
    pub const CLIENTJOIN: u8 = 29;
    pub const PING: u8 = 34;
    pub const NOTHING: u8 = 0;
    pub const CLIENTQUIT: u8 = 11;
}

/// 2.2.13: the client asks, the server describes itself.
fn s22_server_info(c: &mut Cap) {
    use pt22::*;
    // The `NetbufferChecksum` example: 02 4f 23 01 00 00 0c 00 ca e8 03 00 00.
    c.c2s(&packet(0, 0, ASKINFO, &B::default().u8(202).u32(1000).0));
    // `serverinfo_pak` 2.2.3+ (150 fixed bytes) + `PutFileNeeded` 2.2.10+ entries (folder byte).
    let si = B::default()
        .u8(0xFF)
        .u8(4)
        .chars("SRB2", 16)
        .u8(202)
        .u8(13)
        .u8(2)
        .u8(8)
        .u8(0)
        .chars("Co-op", 24)
        .u8(1)
        .u8(0)
        .u8(0x00)
        .u8(1)
        .u32(1000)
        .u32(4200)
        .chars("Emerald Coast Co-op", 32)
        .chars("MAP01", 8)
        .chars("GREENFLOWER", 33)
        .raw(&md5ish(1))
        .u8(1)
        .u8(1)
        .u8(0x11)
        .u8(0)
        .u32(1500)
        .strz("chatplus.pk3")
        .raw(&md5ish(3));
    c.s2c(&packet(0, 0, SERVERINFO, &si.0));
}

/// 2.2.13: the player list, then the client fetches the missing file and acknowledges it.
fn s22_player_info_and_file(c: &mut Cap) {
    use pt22::*;
    // `plrinfo_pak` 2.2: byte 0 = player number, address zero, colour bits zero.
    let mut pi = B::default();
    for i in 0..32u8 {
        pi = match i {
            0 => pi
                .u8(0)
                .chars("Sonic", 22)
                .raw(&[0; 4])
                .u8(0)
                .u8(0)
                .u8(0)
                .u32(1200)
                .u16(300),
            2 => pi
                .u8(2)
                .chars("Knuckles", 22)
                .raw(&[0; 4])
                .u8(0)
                .u8(2)
                .u8(0x80)
                .u32(800)
                .u16(120),
            _ => pi.u8(255).raw(&[0; 35]),
        };
    }
    c.s2c(&packet(0, 0, PLAYERINFO, &pi.0));
    // `d_netfil.c` PT_REQUESTFILE 2.2.10+: file ids then 0xFF.
    c.c2s(&packet(1, 0, REQUESTFILE, &[0, 0xFF]));
    // `filetx_pak` 2.2.5+: fileid, filesize, iteration, position, nominal size, data.
    let file = data(1500, 9);
    c.s2c(&packet(
        0,
        1,
        FILEFRAGMENT,
        &B::default()
            .u8(0)
            .u32(1500)
            .u8(1)
            .u32(0)
            .u16(1004)
            .raw(&file[..1004])
            .0,
    ));
    c.s2c(&packet(
        0,
        1,
        FILEFRAGMENT,
        &B::default()
            .u8(0)
            .u32(1500)
            .u8(1)
            .u32(1004)
            .u16(1004)
            .raw(&file[1004..])
            .0,
    ));
    // `d_netfil.c` PT_FILEACK: fileid, iteration, 1 segment {start 0, acks 0b11}.
    c.c2s(&packet(
        0,
        0,
        FILEACK,
        &B::default().u8(0).u8(1).u8(1).u32(0).u32(3).0,
    ));
    // `d_netfil.c` PT_FILERECEIVED: fileid.
    c.c2s(&packet(2, 0, FILERECEIVED, &[0]));
}

/// 2.2.13: join, server config, the savegame and the received-gamestate answer.
fn s22_join_and_config(c: &mut Cap) {
    use pt22::*;
    // `clientconfig_pak` 2.2.10+: modversion 54 (2.2.13), "SRB2", localplayers, mode, names.
    let join = B::default()
        .u8(54)
        .chars("SRB2", 16)
        .u8(1)
        .u8(0)
        .chars("Tails", 21)
        .chars("", 21);
    c.c2s(&packet(3, 0, CLIENTJOIN, &join.0));
    // `serverconfig_pak` 2.2.12+: 19 bytes.
    let cfg = B::default()
        .u8(0)
        .u8(3)
        .u32(70000)
        .u8(1)
        .u8(1)
        .u8(0)
        .u8(1)
        .u8(0)
        .chars("QwErTyUi", 8);
    c.s2c(&packet(1, 3, SERVERCFG, &cfg.0));
    // `SV_SendSaveGame` (file 0): u32 length 0 + stream, one fragment.
    let save = B::default().u32(0).raw(b"SAVEGAME").0;
    c.s2c(&packet(
        0,
        3,
        FILEFRAGMENT,
        &B::default()
            .u8(0)
            .u32(save.len() as u32)
            .u8(1)
            .u32(0)
            .u16(1004)
            .raw(&save)
            .0,
    ));
    // PT_RECEIVEDGAMESTATE (`d_clisrv.h` `packettype_t`): empty, reliable.
    c.c2s(&packet(4, 1, RECEIVEDGAMESTATE, &[]));
}

/// 2.2.13: the first tics, name and colour, client commands and chat.
fn s22_tics_and_chat(c: &mut Cap) {
    use pt22::*;
    // `SV_SendTics` (2.2.5+: u32 start; 9-byte ticcmds): `Got_AddPlayer` XD_ADDPLAYER (11) node 1, player 1, "Tails".
    let addplayer = B::default().u8(11).u8(1).u8(1).strz("Tails").0;
    let t = Tics {
        start: 70000,
        numtics: 2,
        slots: 3,
        text: vec![(0, 0, &addplayer)],
    };
    c.s2c(&packet(0, 4, SERVERTICS, &servertics(&t, true, true)));
    // `Got_NameAndColor` 2.2.5+: name, availabilities u32, colour u16, skin; XD_WEAPONPREF.
    let nc = B::default()
        .u8(1)
        .strz("Tails")
        .u32(0)
        .u16(5)
        .u8(1)
        .u8(2)
        .u8(0x0C)
        .0;
    c.c2s(&packet(
        5,
        1,
        TEXTCMD,
        &B::default().u8(nc.len() as u8).raw(&nc).0,
    ));
    // `clientcmd_pak` 2.2.10+: 13 bytes (ticcmd with latency).
    let cc = ticcmd(
        B::default().u8(0x71).u8(0x72).u16(0x0BCD),
        50,
        -10,
        0x4001,
        0x0880,
        Some(0x70),
    );
    c.c2s(&packet(0, 1, CLIENTCMD, &cc.0));
    let t = Tics {
        start: 70001,
        numtics: 3,
        slots: 3,
        text: vec![(1, 1, &nc)],
    };
    c.s2c(&packet(0, 5, SERVERTICS, &servertics(&t, true, true)));
    let say = xd_say(0, "hello from 2.2");
    c.c2s(&packet(6, 1, TEXTCMD, &textbuf(&say)));
    let say2 = xd_say(2, "welcome Tails");
    let t = Tics {
        start: 70003,
        numtics: 2,
        slots: 3,
        text: vec![(0, 1, &say), (1, 2, &say2)],
    };
    c.s2c(&packet(0, 6, SERVERTICS, &servertics(&t, true, true)));
}

/// 2.2.13: pings, a kick, a map change, keepalive, an ack list and the quit.
fn s22_ping_kick_map_and_quit(c: &mut Cap) {
    use pt22::*;
    // `pingtable` PT_PING 2.2: u32[33], entry 32 = maxping.
    let mut ping = B::default();
    for i in 0..33 {
        ping = ping.u32(match i {
            1 => 42,
            2 => 71,
            32 => 500,
            _ => 0,
        });
    }
    c.s2c(&packet(2, 6, PING, &ping.0));
    // `Got_KickCmd` 2.2: msg 7 | 0x80 (keep body), custom reason.
    let kick = B::default().u8(3).u8(2).u8(0x87).strz("spamming").0;
    let t = Tics {
        start: 70004,
        numtics: 2,
        slots: 3,
        text: vec![(1, 0, &kick)],
    };
    c.s2c(&packet(0, 6, SERVERTICS, &servertics(&t, true, true)));
    // `Got_ExitLevelcmd` with the 2.2.12–2.2.13 cheat byte, then `Got_Mapcmd` "MAP02".
    let map = B::default()
        .u8(7)
        .u8(0)
        .u8(6)
        .u8(0)
        .u8(0)
        .strz("MAP02")
        .u32(0xC0FF_EE11)
        .0;
    let t = Tics {
        start: 70005,
        numtics: 2,
        slots: 2,
        text: vec![(1, 0, &map)],
    };
    c.s2c(&packet(0, 6, SERVERTICS, &servertics(&t, true, true)));
    // PT_BASICKEEPALIVE (empty) and PT_NOTHING with one selective ack (seq 4) (`d_net.c`).
    c.c2s(&packet(0, 2, BASICKEEPALIVE, &[]));
    let mut q = [0u8; 96];
    q[0] = 4;
    c.c2s(&packet(0, 2, NOTHING, &q));
    let t = Tics {
        start: 70007,
        numtics: 2,
        slots: 2,
        text: vec![],
    };
    c.s2c(&packet(0, 6, SERVERTICS, &servertics(&t, true, true)));
    c.c2s(&packet(7, 2, CLIENTQUIT, &[]));
}

/// A 2.2.13 session (packet types: SRB2 2.2.13 `src/d_clisrv.h` `packettype_t`; net command ids:
/// 2.2.13 `src/d_netcmd.h` `netxcmd_t`).
pub fn session_2_2_13() -> Vec<u8> {
    // 2.2 clients use an ephemeral port (`i_tcp.c`).
    let mut c = Cap::new("192.168.1.20:50123", "192.168.1.10:5029");
    s22_server_info(&mut c);
    s22_player_info_and_file(&mut c);
    s22_join_and_config(&mut c);
    s22_tics_and_chat(&mut c);
    s22_ping_kick_map_and_quit(&mut c);
    c.w.bytes
}

/// 2.2.13 traffic joined mid-session: no packet names the release, the tables must tell.
pub fn midsession_2_2_13() -> Vec<u8> {
    let mut c = Cap::new("192.168.1.21:50200", "192.168.1.10:5029");
    let cc = ticcmd(
        B::default().u8(0x10).u8(0x11).u16(7),
        20,
        0,
        0x2001,
        0,
        Some(0x10),
    );
    c.c2s(&packet(0, 9, 2, &cc.0));
    let say = xd_say(0, "anyone here?");
    c.c2s(&packet(10, 9, 27, &textbuf(&say)));
    let exit = [7u8, 0];
    let t = Tics {
        start: 90000,
        numtics: 2,
        slots: 2,
        text: vec![(0, 1, &say), (1, 0, &exit)],
    };
    c.s2c(&packet(0, 10, 8, &servertics(&t, true, true)));
    let mut ping = B::default();
    for i in 0..33 {
        ping = ping.u32(if i < 2 { 30 + i } else { 0 });
    }
    c.s2c(&packet(12, 10, 34, &ping.0));
    c.w.bytes
}

/// Deliberately broken 2.2.13 traffic: every defect must get a located note.
pub fn broken() -> Vec<u8> {
    let mut c = Cap::new("192.168.1.30:50300", "192.168.1.10:5029");
    // 1. Bad checksum (→ warning, still decoded).
    let mut p = packet(0, 0, 12, &B::default().u8(202).u32(1000).0);
    p[0] ^= 0x55;
    c.c2s(&p);
    // 2. PT_SERVERINFO cut inside the server name (→ error), with a valid checksum.
    let si = B::default()
        .u8(0xFF)
        .u8(4)
        .chars("SRB2", 16)
        .u8(202)
        .u8(13)
        .u8(1)
        .u8(8)
        .u8(0)
        .chars("Co-op", 24)
        .u8(0)
        .u8(0)
        .u8(0)
        .u8(0)
        .u32(1000)
        .u32(10)
        .raw(b"Broken Ser");
    c.s2c(&packet(0, 0, 13, &si.0));
    // 3. Unknown packet type 40 (2.2.13 stops at 34) (→ error).
    c.s2c(&packet(0, 0, 40, &[1, 2, 3, 4]));
    // 4. Server tics whose text buffer holds an unknown XD id 30 (→ error, rest of buffer noted),
    //    followed by a valid buffer of the next player that must still decode.
    let bad = [30u8, 1, 2, 3];
    let say = xd_say(0, "still here");
    let t = Tics {
        start: 100,
        numtics: 1,
        slots: 2,
        text: vec![(0, 0, &bad), (0, 1, &say)],
    };
    c.s2c(&packet(0, 0, 8, &servertics(&t, true, true)));
    // 5. PT_CLIENTCMD with 2 trailing bytes (→ warning).
    let cc = ticcmd(B::default().u8(1).u8(2).u16(0), 1, 1, 1, 0, Some(1)).raw(&[0xAA, 0xBB]);
    c.c2s(&packet(0, 0, 2, &cc.0));
    // 6. PT_SERVERTICS claiming 4 tics × 3 slots but carrying one tic (→ error).
    let mut cut = servertics(
        &Tics {
            start: 101,
            numtics: 1,
            slots: 3,
            text: vec![],
        },
        true,
        true,
    );
    cut[4] = 4;
    c.s2c(&packet(0, 0, 8, &cut));
    c.w.bytes
}

/// Every capture this module writes: (file name under `captures/`, bytes).
pub fn all() -> Vec<(&'static str, Vec<u8>)> {
    vec![
        ("srb2-2.1.25-session.pcap", session_2_1_25()),
        ("srb2-2.2.13-session.pcap", session_2_2_13()),
        ("srb2-2.2.13-midsession.pcap", midsession_2_2_13()),
        ("srb2-broken.pcap", broken()),
    ]
}

/// `d_netcmd.c` `Got_Saycmd`'s XD_SAY (5): target, flags 0, the message.
fn xd_say(target: u8, text: &str) -> Vec<u8> {
    B::default().u8(5).u8(target).u8(0).strz(text).0
}

/// A PT_TEXTCMD body: the length of the net commands, then the commands.
fn textbuf(cmds: &[u8]) -> Vec<u8> {
    B::default().u8(cmds.len() as u8).raw(cmds).0
}

/// A 2.1.25 PT_ASKINFO and the PT_SERVERINFO answering it with `name` as the server's name
/// (at most 32 bytes), for the escaping tests: (client's datagram, server's datagram).
pub fn server_info_named(name: &str) -> (Vec<u8>, Vec<u8>) {
    use pt21::*;
    let ask = packet(0, 0, ASKINFO, &B::default().u8(201).u32(1000).0);
    let si = B::default()
        .u8(201)
        .u8(25)
        .u8(1)
        .u8(8)
        .u8(0)
        .u8(1)
        .u8(0)
        .u8(0)
        .u8(0) // fileneedednum
        .u8(0)
        .u32(1000)
        .u32(4200)
        .chars(name, 32)
        .chars("MAP01", 8)
        .chars("GREENFLOWER", 33)
        .raw(&md5ish(1))
        .u8(1)
        .u8(1);
    (ask, packet(0, 0, SERVERINFO, &si.0))
}
