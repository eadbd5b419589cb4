//! The wire constants of FlightGear MP: the header's magic and message ids (open enums), the
//! protocol version and pad magic, the fixed sizes and limits, and the header's byte ranges.
//! Each cites where FlightGear 2020.3 (`src/MultiPlayer/mpmessages.hxx`, `multiplaymgr.cxx`)
//! or fgms defines it.

crate::open_enum! {
    /// The header's `Magic`: FlightGear `src/MultiPlayer/mpmessages.hxx` `MSG_MAGIC`, fgms
    /// `src/server/fg_server.hxx` `RELAY_MAGIC`.
    pub struct Magic(u32) {
        FGFS = 0x4647_4653 => "FGFS",
        SFGF = 0x5346_4746 => "SFGF",
    }
}

impl Magic {
    /// Who sends it (fgms rewrites the magic of what it relays to other servers).
    pub(super) fn meaning(self) -> &'static str {
        match self {
            Magic::FGFS => "FlightGear client data",
            Magic::SFGF => "fgms relay/crossfeed data",
            _ => "not a FlightGear magic",
        }
    }
}

/// "FGFS" as a number, for packet builders.
pub const MAGIC_FGFS: u32 = Magic::FGFS.0;
/// "SFGF" as a number, for packet builders.
pub const MAGIC_SFGF: u32 = Magic::SFGF.0;
/// `PROTO_VER` 1.1 (mpmessages.hxx).
pub const PROTO_VER: u32 = 0x0001_0001;
/// `V2_PAD_MAGIC` (multiplaymgr.cxx, 2017.2+).
pub const V2_PAD_MAGIC: u32 = 0x1FAC_E002;
/// `sizeof(T_MsgHdr)`.
pub const HEADER_LEN: usize = 32;
/// `sizeof(T_PositionMsg)` with the pad word.
pub const POSITION_LEN: usize = 200;
/// `MAX_TEXT_SIZE` of FlightGear 2017.3+: a receiver caps v1 string lengths here.
pub const MAX_TEXT_SIZE: u32 = 768;
/// `MAX_PACKET_SIZE`: FlightGear's send and receive buffers.
pub const MAX_PACKET_SIZE: usize = 1200;

crate::open_enum! {
    /// The header's `MsgId`: FlightGear `src/MultiPlayer/mpmessages.hxx` (`*_ID`), 9 and 10
    /// from fgms `src/flightgear/MultiPlayer/mpmessages.hxx`.
    pub struct MsgId(u32) {
        CHAT = 1 => "CHAT_MSG",
        UNUSABLE_POS_DATA = 2 => "UNUSABLE_POS_DATA",
        OLD_OLD_POS_DATA = 3 => "OLD_OLD_POS_DATA",
        OLD_POS_DATA = 4 => "OLD_POS_DATA",
        OLD_PROP_MSG = 5 => "OLD_PROP_MSG",
        RESET_DATA = 6 => "RESET_DATA",
        POS_DATA = 7 => "POS_DATA",
        MP_2017_DATA = 8 => "MP_2017_DATA",
        PING = 9 => "PING",
        PONG = 10 => "PONG",
    }
}

/// Byte ranges of `T_MsgHdr` (mpmessages.hxx).
pub mod field {
    use crate::wire::Range;
    pub const MAGIC: Range = 0..4;
    pub const VERSION: Range = 4..8;
    pub const MSG_ID: Range = 8..12;
    pub const MSG_LEN: Range = 12..16;
    /// `RequestedRangeNm` (FlightGear 2017.2+; `ReplyAddress` before, `RadarRange` in fgms).
    pub const RANGE_WORD: Range = 16..20;
    /// Its halves: the range is the low one; fgms 0.13+ moves it into the high one.
    pub const RANGE_HIGH: Range = 16..18;
    pub const RANGE_LOW: Range = 18..20;
    pub const REPLY_PORT: Range = 20..24;
    pub const CALLSIGN: Range = 24..32;
}
