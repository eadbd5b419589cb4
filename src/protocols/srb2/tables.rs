//! Release tables: packet-type numbers, net-command (XD) ids, version identifiers.
//!
//! Sources (restated from /work/shared/protocols/srb2.md, which cites STJr/SRB2):
//! * packet types: the `packettype_t` enum of `src/d_clisrv.h` (≤ 2.2.13) and
//!   `src/netcode/protocol.h` (2.2.14+) at each `SRB2_release_*` tag (reference §3);
//! * XD ids: the `netxcmd_t` enum of `src/d_netcmd.h` / `src/netcode/d_netcmd.h` (reference §7.2);
//! * MODVERSION / VERSION / SUBVERSION: `src/doomdef.h`, `src/version.h` (reference §3.1).

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

    /// The range of releases sharing this release's packet-type column (reference §3).
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

    /// Size of a `ticcmd_t` (reference §4.1): 9 bytes from 2.2.10 (the `latency` byte).
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

/// Release for a 2.2.10+ PT_CLIENTJOIN `modversion` (reference §3.1: 51…56 = 2.2.10…2.2.15).
pub fn release_from_modversion(m: u8) -> Option<Release> {
    match m {
        51..=56 => Some(Release(210 + (m as u16 - 51))),
        _ => None,
    }
}

/// Packet types (names as in `packettype_t`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pt {
    Nothing,
    ServerCfg,
    ClientCmd,
    ClientMis,
    Client2Cmd,
    Client2Mis,
    NodeKeepalive,
    NodeKeepaliveMis,
    ServerTics,
    ServerRefuse,
    ServerShutdown,
    ClientQuit,
    AskInfo,
    ServerInfo,
    PlayerInfo,
    RequestFile,
    AskInfoViaMs,
    ResynchEnd,
    ResynchGet,
    WillResendGamestate,
    CanReceiveGamestate,
    ReceivedGamestate,
    SendingLuaFile,
    AskLuaFile,
    HasLuaFile,
    BasicKeepalive,
    FileFragment,
    FileAck,
    FileReceived,
    TextCmd,
    TextCmd2,
    ClientJoin,
    NodeTimeout,
    Resynching,
    Login,
    TellFilesNeeded,
    MoreFilesNeeded,
    Ping,
}

impl Pt {
    pub fn name(self) -> &'static str {
        use Pt::*;
        match self {
            Nothing => "PT_NOTHING",
            ServerCfg => "PT_SERVERCFG",
            ClientCmd => "PT_CLIENTCMD",
            ClientMis => "PT_CLIENTMIS",
            Client2Cmd => "PT_CLIENT2CMD",
            Client2Mis => "PT_CLIENT2MIS",
            NodeKeepalive => "PT_NODEKEEPALIVE",
            NodeKeepaliveMis => "PT_NODEKEEPALIVEMIS",
            ServerTics => "PT_SERVERTICS",
            ServerRefuse => "PT_SERVERREFUSE",
            ServerShutdown => "PT_SERVERSHUTDOWN",
            ClientQuit => "PT_CLIENTQUIT",
            AskInfo => "PT_ASKINFO",
            ServerInfo => "PT_SERVERINFO",
            PlayerInfo => "PT_PLAYERINFO",
            RequestFile => "PT_REQUESTFILE",
            AskInfoViaMs => "PT_ASKINFOVIAMS",
            ResynchEnd => "PT_RESYNCHEND",
            ResynchGet => "PT_RESYNCHGET",
            WillResendGamestate => "PT_WILLRESENDGAMESTATE",
            CanReceiveGamestate => "PT_CANRECEIVEGAMESTATE",
            ReceivedGamestate => "PT_RECEIVEDGAMESTATE",
            SendingLuaFile => "PT_SENDINGLUAFILE",
            AskLuaFile => "PT_ASKLUAFILE",
            HasLuaFile => "PT_HASLUAFILE",
            BasicKeepalive => "PT_BASICKEEPALIVE",
            FileFragment => "PT_FILEFRAGMENT",
            FileAck => "PT_FILEACK",
            FileReceived => "PT_FILERECEIVED",
            TextCmd => "PT_TEXTCMD",
            TextCmd2 => "PT_TEXTCMD2",
            ClientJoin => "PT_CLIENTJOIN",
            NodeTimeout => "PT_NODETIMEOUT",
            Resynching => "PT_RESYNCHING",
            Login => "PT_LOGIN",
            TellFilesNeeded => "PT_TELLFILESNEEDED",
            MoreFilesNeeded => "PT_MOREFILESNEEDED",
            Ping => "PT_PING",
        }
    }
}

use Pt::*;

/// Types 0–16: the same number in every release (reference §3).
const COMMON: [Pt; 17] = [
    Nothing,
    ServerCfg,
    ClientCmd,
    ClientMis,
    Client2Cmd,
    Client2Mis,
    NodeKeepalive,
    NodeKeepaliveMis,
    ServerTics,
    ServerRefuse,
    ServerShutdown,
    ClientQuit,
    AskInfo,
    ServerInfo,
    PlayerInfo,
    RequestFile,
    AskInfoViaMs,
];

// Types 17 and up, one array per column of reference §3.
const TAIL_2_1_25: &[Pt] = &[
    ResynchEnd,
    ResynchGet,
    FileFragment,
    TextCmd,
    TextCmd2,
    ClientJoin,
    NodeTimeout,
    Resynching,
    Login,
    Ping,
];
const TAIL_2_2_3: &[Pt] = &[
    ResynchEnd,
    ResynchGet,
    SendingLuaFile,
    AskLuaFile,
    HasLuaFile,
    FileFragment,
    TextCmd,
    TextCmd2,
    ClientJoin,
    NodeTimeout,
    Resynching,
    Login,
    Ping,
];
const TAIL_2_2_5: &[Pt] = &[
    ResynchEnd,
    ResynchGet,
    SendingLuaFile,
    AskLuaFile,
    HasLuaFile,
    FileFragment,
    FileAck,
    FileReceived,
    TextCmd,
    TextCmd2,
    ClientJoin,
    NodeTimeout,
    Resynching,
    Login,
    Ping,
];
const TAIL_2_2_9: &[Pt] = &[
    WillResendGamestate,
    CanReceiveGamestate,
    ReceivedGamestate,
    SendingLuaFile,
    AskLuaFile,
    HasLuaFile,
    FileFragment,
    FileAck,
    FileReceived,
    TextCmd,
    TextCmd2,
    ClientJoin,
    NodeTimeout,
    Login,
    Ping,
];
const TAIL_2_2_10: &[Pt] = &[
    WillResendGamestate,
    CanReceiveGamestate,
    ReceivedGamestate,
    SendingLuaFile,
    AskLuaFile,
    HasLuaFile,
    FileFragment,
    FileAck,
    FileReceived,
    TextCmd,
    TextCmd2,
    ClientJoin,
    NodeTimeout,
    Login,
    TellFilesNeeded,
    MoreFilesNeeded,
    Ping,
];
const TAIL_2_2_12: &[Pt] = &[
    WillResendGamestate,
    CanReceiveGamestate,
    ReceivedGamestate,
    SendingLuaFile,
    AskLuaFile,
    HasLuaFile,
    BasicKeepalive,
    FileFragment,
    FileAck,
    FileReceived,
    TextCmd,
    TextCmd2,
    ClientJoin,
    NodeTimeout,
    Login,
    TellFilesNeeded,
    MoreFilesNeeded,
    Ping,
];
const TAIL_2_2_14: &[Pt] = &[
    WillResendGamestate,
    CanReceiveGamestate,
    ReceivedGamestate,
    SendingLuaFile,
    AskLuaFile,
    HasLuaFile,
    BasicKeepalive,
    FileFragment,
    FileAck,
    FileReceived,
    TextCmd,
    TextCmd2,
    ClientJoin,
    Login,
    TellFilesNeeded,
    MoreFilesNeeded,
    Ping,
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
    let n = n as usize;
    if n < COMMON.len() {
        return Some(COMMON[n]);
    }
    tail(r).get(n - COMMON.len()).copied()
}

/// NUMPACKETTYPE of a release.
pub fn num_packet_types(r: Release) -> usize {
    COMMON.len() + tail(r).len()
}

/// The number of a packet type in a release (used by the capture generator and tests).
pub fn packet_number(r: Release, pt: Pt) -> Option<u8> {
    (0..num_packet_types(r) as u8).find(|&n| packet_type(r, n) == Some(pt))
}

/// Net commands (`netxcmd_t`, names without the `XD_` prefix in the enum variants).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Xd {
    NameAndColor,
    WeaponPref,
    Kick,
    NetVar,
    Say,
    Map,
    ExitLevel,
    AddFile,
    AddFolder,
    Pause,
    AddPlayer,
    TeamChange,
    ClearScores,
    Unused13,
    Verified,
    RandomSeed,
    RunSoc,
    ReqAddFile,
    DelFile,
    ReqAddFolder,
    SetMotd,
    Suicide,
    Demoted,
    LuaCmd,
    LuaVar,
    LuaFile,
    MutePlayer,
}

impl Xd {
    pub fn name(self) -> &'static str {
        use Xd::*;
        match self {
            NameAndColor => "XD_NAMEANDCOLOR",
            WeaponPref => "XD_WEAPONPREF",
            Kick => "XD_KICK",
            NetVar => "XD_NETVAR",
            Say => "XD_SAY",
            Map => "XD_MAP",
            ExitLevel => "XD_EXITLEVEL",
            AddFile => "XD_ADDFILE",
            AddFolder => "XD_ADDFOLDER",
            Pause => "XD_PAUSE",
            AddPlayer => "XD_ADDPLAYER",
            TeamChange => "XD_TEAMCHANGE",
            ClearScores => "XD_CLEARSCORES",
            Unused13 => "XD_UNUSED13",
            Verified => "XD_VERIFIED",
            RandomSeed => "XD_RANDOMSEED",
            RunSoc => "XD_RUNSOC",
            ReqAddFile => "XD_REQADDFILE",
            DelFile => "XD_DELFILE",
            ReqAddFolder => "XD_REQADDFOLDER",
            SetMotd => "XD_SETMOTD",
            Suicide => "XD_SUICIDE",
            Demoted => "XD_DEMOTED",
            LuaCmd => "XD_LUACMD",
            LuaVar => "XD_LUAVAR",
            LuaFile => "XD_LUAFILE",
            MutePlayer => "XD_MUTEPLAYER",
        }
    }
}

// XD ids 1… per column of reference §7.2 (index 0 = id 1). True decimal values.
const XD_2_1_25: &[Xd] = &[
    Xd::NameAndColor,
    Xd::WeaponPref,
    Xd::Kick,
    Xd::NetVar,
    Xd::Say,
    Xd::Map,
    Xd::ExitLevel,
    Xd::AddFile,
    Xd::Pause,
    Xd::AddPlayer,
    Xd::TeamChange,
    Xd::ClearScores,
    Xd::Unused13,
    Xd::Verified,
    Xd::RandomSeed,
    Xd::RunSoc,
    Xd::ReqAddFile,
    Xd::DelFile,
    Xd::SetMotd,
    Xd::Suicide,
    Xd::Demoted,
    Xd::LuaCmd,
    Xd::LuaVar,
];
const XD_2_2_3: &[Xd] = &[
    Xd::NameAndColor,
    Xd::WeaponPref,
    Xd::Kick,
    Xd::NetVar,
    Xd::Say,
    Xd::Map,
    Xd::ExitLevel,
    Xd::AddFile,
    Xd::Pause,
    Xd::AddPlayer,
    Xd::TeamChange,
    Xd::ClearScores,
    Xd::Unused13,
    Xd::Verified,
    Xd::RandomSeed,
    Xd::RunSoc,
    Xd::ReqAddFile,
    Xd::DelFile,
    Xd::SetMotd,
    Xd::Suicide,
    Xd::Demoted,
    Xd::LuaCmd,
    Xd::LuaVar,
    Xd::LuaFile,
];
const XD_2_2_10: &[Xd] = &[
    Xd::NameAndColor,
    Xd::WeaponPref,
    Xd::Kick,
    Xd::NetVar,
    Xd::Say,
    Xd::Map,
    Xd::ExitLevel,
    Xd::AddFile,
    Xd::AddFolder,
    Xd::Pause,
    Xd::AddPlayer,
    Xd::TeamChange,
    Xd::ClearScores,
    Xd::Verified,
    Xd::RandomSeed,
    Xd::RunSoc,
    Xd::ReqAddFile,
    Xd::ReqAddFolder,
    Xd::SetMotd,
    Xd::Suicide,
    Xd::Demoted,
    Xd::LuaCmd,
    Xd::LuaVar,
    Xd::LuaFile,
];
const XD_2_2_14: &[Xd] = &[
    Xd::NameAndColor,
    Xd::WeaponPref,
    Xd::Kick,
    Xd::NetVar,
    Xd::Say,
    Xd::Map,
    Xd::ExitLevel,
    Xd::AddFile,
    Xd::AddFolder,
    Xd::Pause,
    Xd::AddPlayer,
    Xd::TeamChange,
    Xd::ClearScores,
    Xd::Verified,
    Xd::RandomSeed,
    Xd::RunSoc,
    Xd::ReqAddFile,
    Xd::ReqAddFolder,
    Xd::SetMotd,
    Xd::Suicide,
    Xd::Demoted,
    Xd::LuaCmd,
    Xd::LuaVar,
    Xd::LuaFile,
    Xd::MutePlayer,
];

fn xd_table(r: Release) -> &'static [Xd] {
    match r.0 {
        0..=202 => XD_2_1_25,
        203..=209 => XD_2_2_3,
        210..=213 => XD_2_2_10,
        _ => XD_2_2_14,
    }
}

/// The net command an XD id stands for in a release (id 0 is never used).
pub fn xd(r: Release, id: u8) -> Option<Xd> {
    if id == 0 {
        return None;
    }
    xd_table(r).get(id as usize - 1).copied()
}

/// The id of a net command in a release.
pub fn xd_id(r: Release, x: Xd) -> Option<u8> {
    xd_table(r)
        .iter()
        .position(|&y| y == x)
        .map(|i| i as u8 + 1)
}

/// XD_KICK `msg` values (reference §11).
pub fn kick_msg(m: u8) -> &'static str {
    match m {
        1 => "KICK_MSG_GO_AWAY",
        2 => "KICK_MSG_CON_FAIL",
        3 => "KICK_MSG_PLAYER_QUIT",
        4 => "KICK_MSG_TIMEOUT",
        5 => "KICK_MSG_BANNED",
        6 => "KICK_MSG_PING_HIGH",
        7 => "KICK_MSG_CUSTOM_KICK",
        8 => "KICK_MSG_CUSTOM_BAN",
        9 => "KICK_MSG_IDLE",
        _ => "",
    }
}

/// Gametypes (reference §11, `src/doomstat.h`).
pub fn gametype(g: u8) -> &'static str {
    match g {
        0 => "GT_COOP",
        1 => "GT_COMPETITION",
        2 => "GT_RACE",
        3 => "GT_MATCH",
        4 => "GT_TEAMMATCH",
        5 => "GT_TAG",
        6 => "GT_HIDEANDSEEK",
        7 => "GT_CTF",
        _ => "",
    }
}

/// Game states (reference §11, `src/g_state.h`): 2.2 inserted GS_ENDING at 10.
pub fn gamestate(r: Release, g: u8) -> &'static str {
    const OLD: [&str; 13] = [
        "GS_NULL",
        "GS_LEVEL",
        "GS_INTERMISSION",
        "GS_CONTINUING",
        "GS_TITLESCREEN",
        "GS_TIMEATTACK",
        "GS_CREDITS",
        "GS_EVALUATION",
        "GS_GAMEEND",
        "GS_INTRO",
        "GS_CUTSCENE",
        "GS_DEDICATEDSERVER",
        "GS_WAITINGPLAYERS",
    ];
    const NEW: [&str; 14] = [
        "GS_NULL",
        "GS_LEVEL",
        "GS_INTERMISSION",
        "GS_CONTINUING",
        "GS_TITLESCREEN",
        "GS_TIMEATTACK",
        "GS_CREDITS",
        "GS_EVALUATION",
        "GS_GAMEEND",
        "GS_INTRO",
        "GS_ENDING",
        "GS_CUTSCENE",
        "GS_DEDICATEDSERVER",
        "GS_WAITINGPLAYERS",
    ];
    let t: &[&str] = if r.is_2_1() { &OLD } else { &NEW };
    t.get(g as usize).copied().unwrap_or("")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packet_type_columns_match_the_reference() {
        let r = Release::R2_1_25;
        assert_eq!(packet_type(r, 19), Some(FileFragment));
        assert_eq!(packet_type(r, 22), Some(ClientJoin));
        assert_eq!(packet_type(r, 25), Some(Login));
        assert_eq!(packet_type(r, 26), Some(Ping));
        assert_eq!(num_packet_types(r), 27);
        let r = Release::R2_2_13;
        assert_eq!(packet_type(r, 23), Some(BasicKeepalive));
        assert_eq!(packet_type(r, 24), Some(FileFragment));
        assert_eq!(packet_type(r, 27), Some(TextCmd));
        assert_eq!(packet_type(r, 29), Some(ClientJoin));
        assert_eq!(packet_type(r, 34), Some(Ping));
        assert_eq!(num_packet_types(r), 35);
        // NUMPACKETTYPE row of reference §3.
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
        assert_eq!(packet_type(Release(214), 30), Some(Login));
        assert_eq!(packet_type(Release(210), 31), Some(TellFilesNeeded));
        assert_eq!(packet_type(Release(205), 23), Some(FileAck));
        assert_eq!(packet_type(Release(203), 29), Some(Ping));
        assert_eq!(packet_number(Release(213), Ping), Some(34));
    }

    #[test]
    fn xd_ids_are_decimal() {
        let r = Release::R2_1_25;
        assert_eq!(xd(r, 10), Some(Xd::AddPlayer));
        assert_eq!(xd(r, 16), Some(Xd::RunSoc));
        assert_eq!(xd(r, 22), Some(Xd::LuaCmd));
        assert_eq!(xd(r, 24), None);
        let r = Release::R2_2_13;
        assert_eq!(xd(r, 9), Some(Xd::AddFolder));
        assert_eq!(xd(r, 11), Some(Xd::AddPlayer));
        assert_eq!(xd(r, 13), Some(Xd::ClearScores));
        assert_eq!(xd(r, 18), Some(Xd::ReqAddFolder));
        assert_eq!(xd(r, 24), Some(Xd::LuaFile));
        assert_eq!(xd(r, 25), None);
        assert_eq!(xd(Release(215), 25), Some(Xd::MutePlayer));
        assert_eq!(xd(Release(205), 24), Some(Xd::LuaFile));
        assert_eq!(xd(r, 0), None);
        assert_eq!(xd_id(r, Xd::Say), Some(5));
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
