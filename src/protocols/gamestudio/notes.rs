//! Every expert note the 3D GameStudio decoder and its DirectPlay wrapper layers add, in one
//! place (the toolkit's own `expert.cut_off` and `expert.no_terminator` come on top).

use crate::tree::NoteDef;

// The Gamestudio message layer (A5 SDK Programmer's Manual p.12–14, `prog_cserver` page).
pub static UNKNOWN_COMMAND: NoteDef = NoteDef::error(
    "expert.gamestudio.unknown_command",
    "A command byte outside the table of the dialect and direction; decoding stops",
);
pub static BAD_SYNC: NoteDef = NoteDef::error(
    "expert.gamestudio.bad_sync",
    "An A5 svc_info whose sync constant is not 0x11191218",
);
pub static BAD_VAR_LENGTH: NoteDef = NoteDef::error(
    "expert.gamestudio.bad_var_length",
    "A Var_Length that is negative or needs more bytes than are left",
);
pub static UNUSED_UPDATE_BIT: NoteDef = NoteDef::error(
    "expert.gamestudio.unused_update_bit",
    "An SVC_UPDATE bit with no parameter in the dialect's table (its size is unknown)",
);

// What the flow decides.
pub static DIALECT_DECIDED: NoteDef = NoteDef::note(
    "expert.gamestudio.dialect_decided",
    "The flow's dialect (A5 or A6+) is decided by this datagram",
);
pub static DIALECT_CONTRADICTED: NoteDef = NoteDef::warning(
    "expert.gamestudio.dialect_contradicted",
    "A datagram only the other dialect reads: flagged, not obeyed on one datagram",
);
pub static DIALECT_REVISED: NoteDef = NoteDef::note(
    "expert.gamestudio.dialect_revised",
    "Datagrams in a row read only in the other dialect: the flow's dialect is revised",
);
pub static POS_DECIDED: NoteDef = NoteDef::note(
    "expert.gamestudio.pos_decided",
    "The flow's CPosition encoding (packed or Fixed) is decided by this datagram",
);
pub static SETTLED: NoteDef = NoteDef::note(
    "expert.gamestudio.settled",
    "The flow's datagrams fit more than one reading for too long: what was still open is settled on the reading shown",
);
pub static DIRECTION_REVERSED: NoteDef = NoteDef::note(
    "expert.gamestudio.direction_reversed",
    "The messages parse only the other way round: the plumbing's direction is reversed",
);
pub static UNTRUSTED: NoteDef = NoteDef::warning(
    "expert.gamestudio.untrusted",
    "The datagram's framing or parse fails: it is shown but changes nothing in the flow's state",
);
pub static EMPTY: NoteDef = NoteDef::warning("expert.gamestudio.empty", "An empty datagram");
pub static SNAPLEN: NoteDef = NoteDef::note(
    "expert.gamestudio.snaplen",
    "The capture cut the datagram, so errors at its end are expected",
);
pub static NOT_DP4: NoteDef = NoteDef::error(
    "expert.gamestudio.not_dplay4",
    "A datagram of a DirectPlay 4 flow without the DirectPlay 4 header",
);

// DirectPlay 8 ([MC-DPL8R] 2.2; Wireshark epan/dissectors/packet-dplay.c covers DirectPlay 4).
pub static DP8_CUT_OFF: NoteDef = NoteDef::error(
    "expert.gamestudio.dplay8_cut_off",
    "A DirectPlay 8 frame ends inside its header, a mask or its signature",
);
pub static DP8_UNKNOWN_CFRAME: NoteDef = NoteDef::warning(
    "expert.gamestudio.dplay8_unknown_cframe",
    "A DirectPlay 8 CFRAME with an unknown extended opcode",
);
pub static DP8_TOO_MANY_COALESCED: NoteDef = NoteDef::error(
    "expert.gamestudio.dplay8_too_many_coalesced",
    "More than 32 coalesce headers without END_COALESCE",
);
pub static DP8_COALESCED_OVERRUN: NoteDef = NoteDef::error(
    "expert.gamestudio.dplay8_coalesced_overrun",
    "A coalesced payload claims more bytes than the frame has left",
);
pub static DP8_AFTER_COALESCED: NoteDef = NoteDef::warning(
    "expert.gamestudio.dplay8_after_coalesced",
    "Bytes after the last coalesced payload",
);
pub static DP8_ENUM_CUT_OFF: NoteDef = NoteDef::error(
    "expert.gamestudio.dplay8_enum_cut_off",
    "A DirectPlay 8 ENUM_QUERY or ENUM_RESPONSE ends inside its fixed part",
);
pub static DP8_SESSION_NAME_OUTSIDE: NoteDef = NoteDef::error(
    "expert.gamestudio.dplay8_session_name_outside",
    "An ENUM_RESPONSE SessionName lies outside the datagram",
);

// Messages split over several DirectPlay 8 DFRAMEs (NEW_MSG … END_MSG).
pub static SPLIT_RETRANSMITTED: NoteDef = NoteDef::note(
    "expert.gamestudio.split_retransmitted",
    "A piece of a split message seen again (same sequence number), ignored",
);
pub static SPLIT_RESTARTED: NoteDef = NoteDef::warning(
    "expert.gamestudio.split_restarted",
    "A split message starts before the previous one ended; the unfinished one is dropped",
);
pub static SPLIT_FIRST: NoteDef = NoteDef::note(
    "expert.gamestudio.split_first",
    "The first piece of a split message",
);
pub static SPLIT_GAP: NoteDef = NoteDef::warning(
    "expert.gamestudio.split_gap",
    "A piece that does not follow its sender's split message (a missing piece, or a stray): the message waits, unchanged",
);
pub static SPLIT_TOO_LARGE: NoteDef = NoteDef::warning(
    "expert.gamestudio.split_too_large",
    "A split message grows past the reassembly bound; it is dropped",
);
pub static SPLIT_MIDDLE: NoteDef = NoteDef::note(
    "expert.gamestudio.split_middle",
    "A middle piece of a split message",
);
pub static SPLIT_DONE: NoteDef = NoteDef::note(
    "expert.gamestudio.split_done",
    "The last piece of a split message: the whole message is decoded from data source 1",
);
pub static SPLIT_ORPHAN: NoteDef = NoteDef::note(
    "expert.gamestudio.split_orphan",
    "A piece of a split message whose first piece is not in the capture",
);

// DirectPlay 4 ([MC-DPL4CS] 2.2.6, 2.2.45; Wireshark epan/dissectors/packet-dplay.c).
pub static DP4_HEADER_CUT_OFF: NoteDef = NoteDef::error(
    "expert.gamestudio.dplay4_header_cut_off",
    "A DirectPlay 4 message shorter than its 20-byte header",
);
pub static DP4_SYSTEM_CUT_OFF: NoteDef = NoteDef::error(
    "expert.gamestudio.dplay4_system_cut_off",
    "A DirectPlay 4 system message that ends inside its command and version",
);
pub static DP4_IDS_CUT_OFF: NoteDef = NoteDef::error(
    "expert.gamestudio.dplay4_ids_cut_off",
    "A DirectPlay 4 player message that ends inside idFrom/idTo",
);
pub static DP4_SIZE_MISMATCH: NoteDef = NoteDef::warning(
    "expert.gamestudio.dplay4_size_mismatch",
    "The DirectPlay 4 size word disagrees with the datagram's length",
);

/// Every note above, for `ProtocolInfo::notes`.
pub static ALL: &[&NoteDef] = &[
    &UNTRUSTED,
    &UNKNOWN_COMMAND,
    &BAD_SYNC,
    &BAD_VAR_LENGTH,
    &UNUSED_UPDATE_BIT,
    &DIALECT_DECIDED,
    &DIALECT_CONTRADICTED,
    &DIALECT_REVISED,
    &POS_DECIDED,
    &SETTLED,
    &DIRECTION_REVERSED,
    &EMPTY,
    &SNAPLEN,
    &NOT_DP4,
    &DP8_CUT_OFF,
    &DP8_UNKNOWN_CFRAME,
    &DP8_TOO_MANY_COALESCED,
    &DP8_COALESCED_OVERRUN,
    &DP8_AFTER_COALESCED,
    &DP8_ENUM_CUT_OFF,
    &DP8_SESSION_NAME_OUTSIDE,
    &SPLIT_RETRANSMITTED,
    &SPLIT_RESTARTED,
    &SPLIT_FIRST,
    &SPLIT_GAP,
    &SPLIT_TOO_LARGE,
    &SPLIT_MIDDLE,
    &SPLIT_DONE,
    &SPLIT_ORPHAN,
    &DP4_HEADER_CUT_OFF,
    &DP4_SYSTEM_CUT_OFF,
    &DP4_IDS_CUT_OFF,
    &DP4_SIZE_MISMATCH,
];
