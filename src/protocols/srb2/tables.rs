//! Release tables: packet-type numbers, net-command (XD) ids, version identifiers.
//!
//! Sources, all STJr/SRB2 at each `SRB2_release_*` tag (2.2.14: commit 8664705cdaef):
//! * packet types: the `packettype_t` enum of `src/d_clisrv.h` (≤ 2.2.13) and
//!   `src/netcode/protocol.h` (2.2.14+);
//! * XD ids: the `netxcmd_t` enum of `src/d_netcmd.h` / `src/netcode/d_netcmd.h`;
//! * MODVERSION / VERSION / SUBVERSION: `src/doomdef.h` (≤ 2.2.6), `src/version.h` (2.2.7+);
//! * gametypes `src/doomstat.h`, game states `src/g_state.h`, KICK_MSG_* `src/d_clisrv.h`.

use std::fmt;

/// A release as `minor * 100 + patch`: 2.1.25 = 125, 2.2.13 = 213.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Release(pub u16);

impl Release {
    pub const R2_1_25: Release = Release(125);
    pub const R2_2_13: Release = Release(213);

    /// Every release whose tables this decoder knows: 2.1.25 and 2.2.0 … 2.2.15.
    pub fn supported(self) -> bool {
        self.0 == 125 || (200..=215).contains(&self.0)
    }

    /// Parses `2.1.25` / `2.2.13`.
    pub fn parse(s: &str) -> Option<Release> {
        let mut it = s.trim().split('.');
        let major: u16 = it.next()?.parse().ok()?;
        let minor: u16 = it.next()?.parse().ok()?;
        let patch: u16 = it.next()?.parse().ok()?;
        if it.next().is_some() || major != 2 || minor > 9 || patch > 99 {
            return None;
        }
        let r = Release(minor * 100 + patch);
        r.supported().then_some(r)
    }

    pub fn is_2_1(self) -> bool {
        self.0 < 200
    }

    /// The range of releases whose `packettype_t` numbers this release shares.
    pub fn pt_column(self) -> &'static str {
        match self.0 {
            0..=199 => "2.1.25",
            200..=202 => "2.2.0–2.2.2",
            203..=204 => "2.2.3–2.2.4",
            205..=208 => "2.2.5–2.2.8",
            209 => "2.2.9",
            210..=211 => "2.2.10–2.2.11",
            212..=213 => "2.2.12–2.2.13",
            _ => "2.2.14–2.2.15",
        }
    }

    /// Size of a `ticcmd_t` (`src/d_ticcmd.h`): 9 bytes from 2.2.10 (the `latency` byte).
    pub fn ticcmd_size(self) -> usize {
        if self.0 >= 210 { 9 } else { 8 }
    }
}

impl fmt::Display for Release {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "2.{}.{}", self.0 / 100, self.0 % 100)
    }
}

/// The releases tried when nothing on the wire names one, in order of preference on a tie:
/// one per distinct set of tables (the 2.2.12–2.2.13 tables first: the most deployed release).
pub const CANDIDATES: [Release; 10] = [
    Release(213),
    Release(125),
    Release(215),
    Release(211),
    Release(209),
    Release(208),
    Release(204),
    Release(202),
    Release(200),
    Release(212),
];

/// VERSION of every 2.1.x release.
pub const VERSION_2_1: u8 = 201;
/// VERSION of every 2.2.x release.
pub const VERSION_2_2: u8 = 202;

/// Release for a 2.2.10+ PT_CLIENTJOIN `modversion` (MODVERSION 51…56 = 2.2.10…2.2.15 in
/// `src/version.h`).
pub fn release_from_modversion(m: u8) -> Option<Release> {
    match m {
        51..=56 => Some(Release(210 + (m as u16 - 51))),
        _ => None,
    }
}

crate::open_enum! {
    /// A packet type (`packettype_t`). The identifier is the type's number in 2.2.12–2.2.13,
    /// whose enum holds every 2.2 type; the three resynch types that 2.2.9 dropped follow at
    /// 35–37. Numbers 0–16 are the same in every release (the enum comment asks that types
    /// be added after them); what a number ≥ 17 means depends on the release: [`packet_type`].
    /// STJr/SRB2 `src/d_clisrv.h` (≤ 2.2.13), `src/netcode/protocol.h` (2.2.14+) `packettype_t`.
    pub struct Pt(u8) {
        NOTHING = 0 => "PT_NOTHING",
        SERVERCFG = 1 => "PT_SERVERCFG",
        CLIENTCMD = 2 => "PT_CLIENTCMD",
        CLIENTMIS = 3 => "PT_CLIENTMIS",
        CLIENT2CMD = 4 => "PT_CLIENT2CMD",
        CLIENT2MIS = 5 => "PT_CLIENT2MIS",
        NODEKEEPALIVE = 6 => "PT_NODEKEEPALIVE",
        NODEKEEPALIVEMIS = 7 => "PT_NODEKEEPALIVEMIS",
        SERVERTICS = 8 => "PT_SERVERTICS",
        SERVERREFUSE = 9 => "PT_SERVERREFUSE",
        SERVERSHUTDOWN = 10 => "PT_SERVERSHUTDOWN",
        CLIENTQUIT = 11 => "PT_CLIENTQUIT",
        ASKINFO = 12 => "PT_ASKINFO",
        SERVERINFO = 13 => "PT_SERVERINFO",
        PLAYERINFO = 14 => "PT_PLAYERINFO",
        REQUESTFILE = 15 => "PT_REQUESTFILE",
        ASKINFOVIAMS = 16 => "PT_ASKINFOVIAMS",
        WILLRESENDGAMESTATE = 17 => "PT_WILLRESENDGAMESTATE",
        CANRECEIVEGAMESTATE = 18 => "PT_CANRECEIVEGAMESTATE",
        RECEIVEDGAMESTATE = 19 => "PT_RECEIVEDGAMESTATE",
        SENDINGLUAFILE = 20 => "PT_SENDINGLUAFILE",
        ASKLUAFILE = 21 => "PT_ASKLUAFILE",
        HASLUAFILE = 22 => "PT_HASLUAFILE",
        BASICKEEPALIVE = 23 => "PT_BASICKEEPALIVE",
        FILEFRAGMENT = 24 => "PT_FILEFRAGMENT",
        FILEACK = 25 => "PT_FILEACK",
        FILERECEIVED = 26 => "PT_FILERECEIVED",
        TEXTCMD = 27 => "PT_TEXTCMD",
        TEXTCMD2 = 28 => "PT_TEXTCMD2",
        CLIENTJOIN = 29 => "PT_CLIENTJOIN",
        NODETIMEOUT = 30 => "PT_NODETIMEOUT",
        LOGIN = 31 => "PT_LOGIN",
        TELLFILESNEEDED = 32 => "PT_TELLFILESNEEDED",
        MOREFILESNEEDED = 33 => "PT_MOREFILESNEEDED",
        PING = 34 => "PT_PING",
        RESYNCHEND = 35 => "PT_RESYNCHEND",
        RESYNCHGET = 36 => "PT_RESYNCHGET",
        RESYNCHING = 37 => "PT_RESYNCHING",
    }
}

impl Pt {
    /// The C name (every value the release tables yield has one).
    pub fn label(self) -> &'static str {
        self.name_or("")
    }
}

/// Types 0–16 have the same number in every release.
const COMMON_TYPES: u8 = 17;

/// The packet type of a number below 17, which means the same in every release (so the probe
/// can tell the sender's role before the release is known).
pub fn common_type(n: u8) -> Option<Pt> {
    (n < COMMON_TYPES).then_some(Pt(n))
}

// Types 17 and up, one array per column of the `packettype_t` enums at the release tags.
const TAIL_2_1_25: &[Pt] = &[
    Pt::RESYNCHEND,
    Pt::RESYNCHGET,
    Pt::FILEFRAGMENT,
    Pt::TEXTCMD,
    Pt::TEXTCMD2,
    Pt::CLIENTJOIN,
    Pt::NODETIMEOUT,
    Pt::RESYNCHING,
    Pt::LOGIN,
    Pt::PING,
];
const TAIL_2_2_3: &[Pt] = &[
    Pt::RESYNCHEND,
    Pt::RESYNCHGET,
    Pt::SENDINGLUAFILE,
    Pt::ASKLUAFILE,
    Pt::HASLUAFILE,
    Pt::FILEFRAGMENT,
    Pt::TEXTCMD,
    Pt::TEXTCMD2,
    Pt::CLIENTJOIN,
    Pt::NODETIMEOUT,
    Pt::RESYNCHING,
    Pt::LOGIN,
    Pt::PING,
];
const TAIL_2_2_5: &[Pt] = &[
    Pt::RESYNCHEND,
    Pt::RESYNCHGET,
    Pt::SENDINGLUAFILE,
    Pt::ASKLUAFILE,
    Pt::HASLUAFILE,
    Pt::FILEFRAGMENT,
    Pt::FILEACK,
    Pt::FILERECEIVED,
    Pt::TEXTCMD,
    Pt::TEXTCMD2,
    Pt::CLIENTJOIN,
    Pt::NODETIMEOUT,
    Pt::RESYNCHING,
    Pt::LOGIN,
    Pt::PING,
];
const TAIL_2_2_9: &[Pt] = &[
    Pt::WILLRESENDGAMESTATE,
    Pt::CANRECEIVEGAMESTATE,
    Pt::RECEIVEDGAMESTATE,
    Pt::SENDINGLUAFILE,
    Pt::ASKLUAFILE,
    Pt::HASLUAFILE,
    Pt::FILEFRAGMENT,
    Pt::FILEACK,
    Pt::FILERECEIVED,
    Pt::TEXTCMD,
    Pt::TEXTCMD2,
    Pt::CLIENTJOIN,
    Pt::NODETIMEOUT,
    Pt::LOGIN,
    Pt::PING,
];
const TAIL_2_2_10: &[Pt] = &[
    Pt::WILLRESENDGAMESTATE,
    Pt::CANRECEIVEGAMESTATE,
    Pt::RECEIVEDGAMESTATE,
    Pt::SENDINGLUAFILE,
    Pt::ASKLUAFILE,
    Pt::HASLUAFILE,
    Pt::FILEFRAGMENT,
    Pt::FILEACK,
    Pt::FILERECEIVED,
    Pt::TEXTCMD,
    Pt::TEXTCMD2,
    Pt::CLIENTJOIN,
    Pt::NODETIMEOUT,
    Pt::LOGIN,
    Pt::TELLFILESNEEDED,
    Pt::MOREFILESNEEDED,
    Pt::PING,
];
const TAIL_2_2_12: &[Pt] = &[
    Pt::WILLRESENDGAMESTATE,
    Pt::CANRECEIVEGAMESTATE,
    Pt::RECEIVEDGAMESTATE,
    Pt::SENDINGLUAFILE,
    Pt::ASKLUAFILE,
    Pt::HASLUAFILE,
    Pt::BASICKEEPALIVE,
    Pt::FILEFRAGMENT,
    Pt::FILEACK,
    Pt::FILERECEIVED,
    Pt::TEXTCMD,
    Pt::TEXTCMD2,
    Pt::CLIENTJOIN,
    Pt::NODETIMEOUT,
    Pt::LOGIN,
    Pt::TELLFILESNEEDED,
    Pt::MOREFILESNEEDED,
    Pt::PING,
];
const TAIL_2_2_14: &[Pt] = &[
    Pt::WILLRESENDGAMESTATE,
    Pt::CANRECEIVEGAMESTATE,
    Pt::RECEIVEDGAMESTATE,
    Pt::SENDINGLUAFILE,
    Pt::ASKLUAFILE,
    Pt::HASLUAFILE,
    Pt::BASICKEEPALIVE,
    Pt::FILEFRAGMENT,
    Pt::FILEACK,
    Pt::FILERECEIVED,
    Pt::TEXTCMD,
    Pt::TEXTCMD2,
    Pt::CLIENTJOIN,
    Pt::LOGIN,
    Pt::TELLFILESNEEDED,
    Pt::MOREFILESNEEDED,
    Pt::PING,
];

fn tail(r: Release) -> &'static [Pt] {
    match r.0 {
        0..=202 => TAIL_2_1_25,
        203..=204 => TAIL_2_2_3,
        205..=208 => TAIL_2_2_5,
        209 => TAIL_2_2_9,
        210..=211 => TAIL_2_2_10,
        212..=213 => TAIL_2_2_12,
        _ => TAIL_2_2_14,
    }
}

/// The packet type a number stands for in a release (None: not in that release's enum).
pub fn packet_type(r: Release, n: u8) -> Option<Pt> {
    match n.checked_sub(COMMON_TYPES) {
        None => Some(Pt(n)),
        Some(i) => tail(r).get(i as usize).copied(),
    }
}

/// NUMPACKETTYPE of a release.
pub fn num_packet_types(r: Release) -> usize {
    COMMON_TYPES as usize + tail(r).len()
}

/// The number of a packet type in a release (used by the tests).
pub fn packet_number(r: Release, pt: Pt) -> Option<u8> {
    (0..num_packet_types(r) as u8).find(|&n| packet_type(r, n) == Some(pt))
}

crate::open_enum! {
    /// A net command (`netxcmd_t`). The identifier is the command's id in 2.2.14–2.2.15, whose
    /// enum holds every 2.2.10+ command; the two ids that 2.2.10 dropped follow at 26–27. What
    /// an id means depends on the release: [`xd`]. STJr/SRB2 `src/d_netcmd.h` (2.2.14+:
    /// `src/netcode/d_netcmd.h`) `netxcmd_t`.
    pub struct Xd(u8) {
        NAMEANDCOLOR = 1 => "XD_NAMEANDCOLOR",
        WEAPONPREF = 2 => "XD_WEAPONPREF",
        KICK = 3 => "XD_KICK",
        NETVAR = 4 => "XD_NETVAR",
        SAY = 5 => "XD_SAY",
        MAP = 6 => "XD_MAP",
        EXITLEVEL = 7 => "XD_EXITLEVEL",
        ADDFILE = 8 => "XD_ADDFILE",
        ADDFOLDER = 9 => "XD_ADDFOLDER",
        PAUSE = 10 => "XD_PAUSE",
        ADDPLAYER = 11 => "XD_ADDPLAYER",
        TEAMCHANGE = 12 => "XD_TEAMCHANGE",
        CLEARSCORES = 13 => "XD_CLEARSCORES",
        VERIFIED = 14 => "XD_VERIFIED",
        RANDOMSEED = 15 => "XD_RANDOMSEED",
        RUNSOC = 16 => "XD_RUNSOC",
        REQADDFILE = 17 => "XD_REQADDFILE",
        REQADDFOLDER = 18 => "XD_REQADDFOLDER",
        SETMOTD = 19 => "XD_SETMOTD",
        SUICIDE = 20 => "XD_SUICIDE",
        DEMOTED = 21 => "XD_DEMOTED",
        LUACMD = 22 => "XD_LUACMD",
        LUAVAR = 23 => "XD_LUAVAR",
        LUAFILE = 24 => "XD_LUAFILE",
        MUTEPLAYER = 25 => "XD_MUTEPLAYER",
        UNUSED13 = 26 => "XD_UNUSED13",
        DELFILE = 27 => "XD_DELFILE",
    }
}

impl Xd {
    /// The C name (every value the release tables yield has one).
    pub fn label(self) -> &'static str {
        self.name_or("")
    }
}

// XD ids 1… per column of the `netxcmd_t` enums at the release tags (index 0 = id 1). Each
// list is also the one of the release before it, without its last entry.

/// 2.2.3–2.2.9; 2.1.25–2.2.2 lack XD_LUAFILE.
const XD_2_2_3: &[Xd] = &[
    Xd::NAMEANDCOLOR,
    Xd::WEAPONPREF,
    Xd::KICK,
    Xd::NETVAR,
    Xd::SAY,
    Xd::MAP,
    Xd::EXITLEVEL,
    Xd::ADDFILE,
    Xd::PAUSE,
    Xd::ADDPLAYER,
    Xd::TEAMCHANGE,
    Xd::CLEARSCORES,
    Xd::UNUSED13,
    Xd::VERIFIED,
    Xd::RANDOMSEED,
    Xd::RUNSOC,
    Xd::REQADDFILE,
    Xd::DELFILE,
    Xd::SETMOTD,
    Xd::SUICIDE,
    Xd::DEMOTED,
    Xd::LUACMD,
    Xd::LUAVAR,
    Xd::LUAFILE,
];
/// 2.2.14+; 2.2.10–2.2.13 lack XD_MUTEPLAYER.
const XD_2_2_14: &[Xd] = &[
    Xd::NAMEANDCOLOR,
    Xd::WEAPONPREF,
    Xd::KICK,
    Xd::NETVAR,
    Xd::SAY,
    Xd::MAP,
    Xd::EXITLEVEL,
    Xd::ADDFILE,
    Xd::ADDFOLDER,
    Xd::PAUSE,
    Xd::ADDPLAYER,
    Xd::TEAMCHANGE,
    Xd::CLEARSCORES,
    Xd::VERIFIED,
    Xd::RANDOMSEED,
    Xd::RUNSOC,
    Xd::REQADDFILE,
    Xd::REQADDFOLDER,
    Xd::SETMOTD,
    Xd::SUICIDE,
    Xd::DEMOTED,
    Xd::LUACMD,
    Xd::LUAVAR,
    Xd::LUAFILE,
    Xd::MUTEPLAYER,
];

fn xd_table(r: Release) -> &'static [Xd] {
    let (list, dropped) = match r.0 {
        0..=202 => (XD_2_2_3, 1),
        203..=209 => (XD_2_2_3, 0),
        210..=213 => (XD_2_2_14, 1),
        _ => (XD_2_2_14, 0),
    };
    &list[..list.len() - dropped]
}

/// The net command an XD id stands for in a release (id 0 is never used).
pub fn xd(r: Release, id: u8) -> Option<Xd> {
    let i = id.checked_sub(1)?;
    xd_table(r).get(i as usize).copied()
}

/// The id of a net command in a release.
pub fn xd_id(r: Release, x: Xd) -> Option<u8> {
    xd_table(r)
        .iter()
        .position(|&y| y == x)
        .map(|i| i as u8 + 1)
}

crate::open_enum! {
    /// XD_KICK `msg` without the 2.2.1+ KICK_MSG_KEEP_BODY bit (0x80). STJr/SRB2
    /// `src/d_clisrv.h` `KICK_MSG_*` (2.2.14+: `src/netcode/d_clisrv.h`).
    pub struct KickMsg(u8) {
        GO_AWAY = 1 => "KICK_MSG_GO_AWAY",
        CON_FAIL = 2 => "KICK_MSG_CON_FAIL",
        PLAYER_QUIT = 3 => "KICK_MSG_PLAYER_QUIT",
        TIMEOUT = 4 => "KICK_MSG_TIMEOUT",
        BANNED = 5 => "KICK_MSG_BANNED",
        PING_HIGH = 6 => "KICK_MSG_PING_HIGH",
        CUSTOM_KICK = 7 => "KICK_MSG_CUSTOM_KICK",
        CUSTOM_BAN = 8 => "KICK_MSG_CUSTOM_BAN",
        IDLE = 9 => "KICK_MSG_IDLE",
    }
}

crate::open_enum! {
    /// Built-in gametypes, the same in 2.1.25 and 2.2 (2.2 adds Lua gametypes from 8, which
    /// have no fixed name). STJr/SRB2 `src/doomstat.h` `GT_*`.
    pub struct Gametype(u8) {
        COOP = 0 => "GT_COOP",
        COMPETITION = 1 => "GT_COMPETITION",
        RACE = 2 => "GT_RACE",
        MATCH = 3 => "GT_MATCH",
        TEAMMATCH = 4 => "GT_TEAMMATCH",
        TAG = 5 => "GT_TAG",
        HIDEANDSEEK = 6 => "GT_HIDEANDSEEK",
        CTF = 7 => "GT_CTF",
    }
}

crate::open_enum! {
    /// `gamestate_t` in the 2.2 numbering (STJr/SRB2 2.2.13 `src/g_state.h`); 2.1.25 lacks
    /// GS_ENDING, so its numbers from 10 on are one lower: [`GameState::from_wire`].
    pub struct GameState(u8) {
        NULL = 0 => "GS_NULL",
        LEVEL = 1 => "GS_LEVEL",
        INTERMISSION = 2 => "GS_INTERMISSION",
        CONTINUING = 3 => "GS_CONTINUING",
        TITLESCREEN = 4 => "GS_TITLESCREEN",
        TIMEATTACK = 5 => "GS_TIMEATTACK",
        CREDITS = 6 => "GS_CREDITS",
        EVALUATION = 7 => "GS_EVALUATION",
        GAMEEND = 8 => "GS_GAMEEND",
        INTRO = 9 => "GS_INTRO",
        ENDING = 10 => "GS_ENDING",
        CUTSCENE = 11 => "GS_CUTSCENE",
        DEDICATEDSERVER = 12 => "GS_DEDICATEDSERVER",
        WAITINGPLAYERS = 13 => "GS_WAITINGPLAYERS",
    }
}

impl GameState {
    /// The game state a wire number stands for in a release (2.1.25 `src/g_state.h` has no
    /// GS_ENDING).
    pub fn from_wire(r: Release, g: u8) -> GameState {
        if r.is_2_1() && g >= GameState::ENDING.0 {
            GameState(g.saturating_add(1))
        } else {
            GameState(g)
        }
    }
}

crate::open_enum! {
    /// PT_SERVERINFO `refusereason` (2.2.3+; 3 from 2.2.10). STJr/SRB2 2.2.13
    /// `src/d_clisrv.c` `SV_SendServerInfo`, `REFUSE_*` in `src/d_clisrv.h`.
    pub struct RefuseReason(u8) {
        JOINABLE = 0 => "joinable",
        JOINS_DISABLED = 1 => "joins disabled",
        SLOTS_FULL = 2 => "full",
        BANNED = 3 => "banned",
    }
}

crate::open_enum! {
    /// High nibble of a file-list `status` up to 2.2.13 (STJr/SRB2 2.2.13 `src/d_netfil.c`
    /// `PutFileNeeded`).
    pub struct WillSend(u8) {
        TOO_LARGE = 0 => "won't send: larger than maxsend",
        YES = 1 => "will send if requested",
        DISABLED = 2 => "won't send (downloading disabled)",
    }
}

crate::open_enum! {
    /// High nibble of a file-list `status` from 2.2.14, where the server writes 0 both for a
    /// file it will send and one too large, and a client reads 2 and up as too large
    /// (STJr/SRB2 2.2.15 `src/netcode/d_netfil.c` `PutFileNeeded`, `WILLSEND_*`).
    pub struct WillSend214(u8) {
        YES_OR_TOO_LARGE = 0 => "will send, or too large",
        NO = 1 => "won't send (downloading disabled)",
        TOO_LARGE = 2 => "too large",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packet_type_columns_match_the_release_enums() {
        let r = Release::R2_1_25;
        assert_eq!(packet_type(r, 19), Some(Pt::FILEFRAGMENT));
        assert_eq!(packet_type(r, 22), Some(Pt::CLIENTJOIN));
        assert_eq!(packet_type(r, 25), Some(Pt::LOGIN));
        assert_eq!(packet_type(r, 26), Some(Pt::PING));
        assert_eq!(num_packet_types(r), 27);
        let r = Release::R2_2_13;
        assert_eq!(packet_type(r, 23), Some(Pt::BASICKEEPALIVE));
        assert_eq!(packet_type(r, 24), Some(Pt::FILEFRAGMENT));
        assert_eq!(packet_type(r, 27), Some(Pt::TEXTCMD));
        assert_eq!(packet_type(r, 29), Some(Pt::CLIENTJOIN));
        assert_eq!(packet_type(r, 34), Some(Pt::PING));
        assert_eq!(num_packet_types(r), 35);
        // NUMPACKETTYPE at the release tags.
        for (v, n) in [
            (200, 27),
            (203, 30),
            (205, 32),
            (209, 32),
            (210, 34),
            (212, 35),
            (214, 34),
        ] {
            assert_eq!(num_packet_types(Release(v)), n, "{v}");
        }
        assert_eq!(packet_type(Release(214), 30), Some(Pt::LOGIN));
        assert_eq!(packet_type(Release(210), 31), Some(Pt::TELLFILESNEEDED));
        assert_eq!(packet_type(Release(205), 23), Some(Pt::FILEACK));
        assert_eq!(packet_type(Release(203), 29), Some(Pt::PING));
        assert_eq!(packet_number(Release(213), Pt::PING), Some(34));
    }

    #[test]
    fn identifiers_are_the_2_2_13_and_2_2_15_numbers() {
        // Types 0–16 mean the same in every release; the rest are 2.2.13 numbers.
        for r in CANDIDATES {
            for n in 0..COMMON_TYPES {
                assert_eq!(packet_type(r, n), Some(Pt(n)));
            }
        }
        for n in 0..35 {
            assert_eq!(packet_type(Release::R2_2_13, n), Some(Pt(n)));
        }
        for (pt, name) in Pt::ALL {
            assert!(name.starts_with("PT_"));
            assert!(CANDIDATES.iter().any(|&r| packet_number(r, *pt).is_some()));
        }
        for n in 1..=25 {
            assert_eq!(xd(Release(215), n), Some(Xd(n)));
        }
        assert_eq!(xd(Release::R2_1_25, 13), Some(Xd::UNUSED13));
        assert_eq!(xd(Release::R2_1_25, 18), Some(Xd::DELFILE));
        assert_eq!(
            GameState::from_wire(Release::R2_1_25, 10),
            GameState::CUTSCENE
        );
        assert_eq!(
            GameState::from_wire(Release::R2_2_13, 10),
            GameState::ENDING
        );
        assert_eq!(GameState::from_wire(Release::R2_1_25, 255).name(), None);
    }

    #[test]
    fn xd_ids_are_decimal() {
        let r = Release::R2_1_25;
        assert_eq!(xd(r, 10), Some(Xd::ADDPLAYER));
        assert_eq!(xd(r, 16), Some(Xd::RUNSOC));
        assert_eq!(xd(r, 22), Some(Xd::LUACMD));
        assert_eq!(xd(r, 24), None);
        let r = Release::R2_2_13;
        assert_eq!(xd(r, 9), Some(Xd::ADDFOLDER));
        assert_eq!(xd(r, 11), Some(Xd::ADDPLAYER));
        assert_eq!(xd(r, 13), Some(Xd::CLEARSCORES));
        assert_eq!(xd(r, 18), Some(Xd::REQADDFOLDER));
        assert_eq!(xd(r, 24), Some(Xd::LUAFILE));
        assert_eq!(xd(r, 25), None);
        assert_eq!(xd(Release(215), 25), Some(Xd::MUTEPLAYER));
        assert_eq!(xd(Release(205), 24), Some(Xd::LUAFILE));
        assert_eq!(xd(r, 0), None);
        assert_eq!(xd_id(r, Xd::SAY), Some(5));
    }

    #[test]
    fn releases_parse_and_print() {
        assert_eq!(Release::parse("2.1.25"), Some(Release(125)));
        assert_eq!(Release::parse("2.2.0"), Some(Release(200)));
        assert_eq!(Release::parse("2.2.15"), Some(Release(215)));
        assert_eq!(Release::parse("2.2.16"), None);
        assert_eq!(Release::parse("2.1.24"), None);
        assert_eq!(Release::parse("x"), None);
        assert_eq!(Release(213).to_string(), "2.2.13");
        assert_eq!(release_from_modversion(54), Some(Release(213)));
        assert_eq!(release_from_modversion(50), None);
    }
}
