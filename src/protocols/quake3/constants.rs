//! Opcodes, indices and engine limits of the Quake III protocol, with their names in one place.

crate::open_enum! {
    /// Server → client operations (ioquake3 code/qcommon/qcommon.h `svc_ops_e`; the VoIP pair
    /// is ioquake3's own).
    pub struct Svc(u8) {
        BAD = 0 => "svc_bad",
        NOP = 1 => "svc_nop",
        GAMESTATE = 2 => "svc_gamestate",
        /// Only inside a gamestate: one configstring.
        CONFIGSTRING = 3 => "svc_configstring",
        /// Only inside a gamestate: one entity baseline.
        BASELINE = 4 => "svc_baseline",
        SERVER_COMMAND = 5 => "svc_serverCommand",
        DOWNLOAD = 6 => "svc_download",
        SNAPSHOT = 7 => "svc_snapshot",
        EOF = 8 => "svc_EOF",
        VOIP_SPEEX = 9 => "svc_voipSpeex",
        VOIP_OPUS = 10 => "svc_voipOpus",
    }
}

crate::open_enum! {
    /// Client → server operations (ioquake3 code/qcommon/qcommon.h `clc_ops_e`).
    pub struct Clc(u8) {
        BAD = 0 => "clc_bad",
        NOP = 1 => "clc_nop",
        MOVE = 2 => "clc_move",
        MOVE_NO_DELTA = 3 => "clc_moveNoDelta",
        CLIENT_COMMAND = 4 => "clc_clientCommand",
        EOF = 5 => "clc_EOF",
        VOIP_SPEEX = 6 => "clc_voipSpeex",
        VOIP_OPUS = 7 => "clc_voipOpus",
    }
}

crate::open_enum! {
    /// Configstring indices of the baseq3 layout (ioquake3 code/qcommon/q_shared.h
    /// `CS_SERVERINFO`, `CS_SYSTEMINFO`; code/game/bg_public.h `CS_MUSIC` … `CS_PARTICLES`).
    /// Blocks of several indices are named by their first; see [`Cs::block`]. Mods may differ.
    pub struct Cs(u32) {
        SERVERINFO = 0 => "serverinfo",
        SYSTEMINFO = 1 => "systeminfo",
        MUSIC = 2 => "music",
        MESSAGE = 3 => "message",
        MOTD = 4 => "motd",
        WARMUP = 5 => "warmup",
        SCORES1 = 6 => "scores1",
        SCORES2 = 7 => "scores2",
        VOTE_TIME = 8 => "vote_time",
        VOTE_STRING = 9 => "vote_string",
        VOTE_YES = 10 => "vote_yes",
        VOTE_NO = 11 => "vote_no",
        TEAMVOTE_TIME = 12 => "team_vote_time",
        TEAMVOTE_STRING = 14 => "team_vote_string",
        TEAMVOTE_YES = 16 => "team_vote_yes",
        TEAMVOTE_NO = 18 => "team_vote_no",
        GAME_VERSION = 20 => "game_version",
        LEVEL_START_TIME = 21 => "level_start_time",
        INTERMISSION = 22 => "intermission",
        FLAGSTATUS = 23 => "flag_status",
        SHADERSTATE = 24 => "shader_state",
        BOTINFO = 25 => "bot_info",
        ITEMS = 27 => "items",
        MODELS = 32 => "model",
        SOUNDS = 288 => "sound",
        PLAYERS = 544 => "player",
        LOCATIONS = 608 => "location",
        PARTICLES = 672 => "particle",
    }
}

impl Cs {
    /// The configstring an index belongs to: the first index of its block (two per team
    /// vote entry, MAX_MODELS, MAX_SOUNDS, MAX_CLIENTS, MAX_LOCATIONS) or the index itself.
    pub fn block(index: u32) -> Cs {
        Cs(match index {
            12..=19 => index & !1,
            32..=287 => 32,
            288..=543 => 288,
            544..=607 => 544,
            608..=671 => 608,
            672..=735 => 672,
            i => i,
        })
    }

    /// The name of the block an index belongs to ("" when the layout has none).
    pub fn name_of(index: u32) -> &'static str {
        Cs::block(index).name_or("")
    }

    /// Configstrings that hold info strings (`\key\value…`).
    pub fn is_info(index: u32) -> bool {
        matches!(
            Cs::block(index),
            Cs::SERVERINFO | Cs::SYSTEMINFO | Cs::PLAYERS
        )
    }
}

crate::open_enum! {
    /// What an entity delta of a snapshot applies to (the decoder's own classification).
    pub struct EntBase(u8) {
        PREVIOUS = 0 => "previous snapshot",
        BASELINE = 1 => "baseline",
        /// The gamestate sent no baseline for it: the client's baseline is all zero.
        ZERO = 2 => "zero baseline",
        NOT_CAPTURED = 3 => "baseline not captured",
        /// Not in the reference snapshot's entity list, which is not whole (the reference, or
        /// one before it, was not captured): the entity may have been in the real one, so the
        /// baseline is not what the delta applied to.
        REFERENCE_NOT_CAPTURED = 4 => "reference not captured",
    }
}

/// MAX_CONFIGSTRINGS (ioquake3 code/qcommon/q_shared.h).
pub const MAX_CONFIGSTRINGS: u32 = 1024;
/// How far ahead of a direction's last sequence a datagram may be and still be trusted at once:
/// 8 s of consecutive loss at `cl_maxpackets`' cap of 125 packets a second (ioquake3
/// code/client/cl_input.c `CL_ReadyToSendPacket`; a LAN client sends one a frame, faster). The engine itself
/// takes any newer sequence (code/qcommon/net_chan.c `Netchan_Process`); a jump farther than
/// this is trusted once a second datagram follows it, so a genuine long outage costs one
/// message and a lone stray costs nothing.
pub const SEQUENCE_JUMP: u32 = 1024;
/// MAX_MAP_AREA_BYTES (ioquake3 code/qcommon/q_shared.h): the longest snapshot area mask.
pub const MAX_AREA_BYTES: usize = 32;
/// GENTITYNUM_BITS (ioquake3 code/qcommon/q_shared.h): width of an entity number.
pub const GENTITYNUM_BITS: i32 = 10;
/// MAX_GENTITIES − 1 (ENTITYNUM_NONE): the entity number that ends a snapshot's entity list.
pub const ENTITYNUM_NONE: u16 = 1023;
/// MAX_GENTITIES: at most this many entity records in one snapshot.
pub const MAX_GENTITIES: usize = 1024;
/// PACKET_BACKUP (ioquake3 code/qcommon/qcommon.h): how many snapshots a client keeps.
pub const PACKET_BACKUP: usize = 32;
/// MAX_PACKET_USERCMDS (ioquake3 code/qcommon/qcommon.h).
pub const MAX_PACKET_USERCMDS: u8 = 32;
/// MAX_RELIABLE_COMMANDS (ioquake3 code/qcommon/qcommon.h): reliable commands kept per side.
pub const MAX_RELIABLE_COMMANDS: usize = 64;
/// The decoder's bound on operations in one message (the engine loops until svc_EOF/clc_EOF).
pub const MAX_OPS: usize = 4096;
/// FLOAT_INT_BITS / FLOAT_INT_BIAS (ioquake3 code/qcommon/msg.c): a float sent as an integer.
pub const FLOAT_INT_BITS: i32 = 13;
pub const FLOAT_INT_BIAS: i64 = 4096;

/// Bit 31 of the sequence: this datagram is one fragment of a larger message (ioquake3
/// code/qcommon/net_chan.c FRAGMENT_BIT).
pub const FRAGMENT_BIT: u32 = 0x8000_0000;
/// FRAGMENT_SIZE (ioquake3 code/qcommon/net_chan.c): fragments carry up to this many bytes; a
/// shorter one is the last.
pub const FRAGMENT_SIZE: usize = 1300;
/// MAX_MSGLEN (ioquake3 code/qcommon/qcommon.h): the largest (reassembled) message.
pub const MAX_MSGLEN: usize = 16384;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn configstring_blocks() {
        assert_eq!(Cs::name_of(0), "serverinfo");
        assert_eq!(Cs::name_of(13), "team_vote_time");
        assert_eq!(Cs::name_of(19), "team_vote_no");
        assert_eq!(Cs::name_of(26), "");
        assert_eq!(Cs::name_of(31), "");
        assert_eq!(Cs::name_of(287), "model");
        assert_eq!(Cs::name_of(600), "player");
        assert_eq!(Cs::name_of(735), "particle");
        assert_eq!(Cs::name_of(736), "");
        assert!(Cs::is_info(1) && Cs::is_info(607) && !Cs::is_info(2) && !Cs::is_info(608));
        assert_eq!(Svc(9).name(), Some("svc_voipSpeex"));
        assert_eq!(Clc(99).name(), None);
    }
}
