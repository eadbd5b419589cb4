//! Every expert note the FlightGear decoder adds, registered once (`expert.flightgear.*`).
//!
//! The receiver rules the notes refer to are FlightGear 2020.3 `src/MultiPlayer/multiplaymgr.cxx`
//! (`FGMultiplayMgr::update`, `ProcessPosMsg`, `ProcessChatMsg`, `verifyProperties`); the
//! header rewrites are fgms `src/server/fg_server.cxx`.

use crate::tree::NoteDef;

// Header (`T_MsgHdr`, mpmessages.hxx).
/// A datagram FlightGear itself would drop (bad magic, version or length): shown, not learned
/// from (see "Trust" in `docs/architecture.md`).
pub static UNTRUSTED: NoteDef = NoteDef::warning(
    "expert.flightgear.untrusted",
    "The datagram fails FlightGear's magic, version or length check: it is shown but changes nothing in the flow's state",
);
pub static BAD_MAGIC: NoteDef = NoteDef::error(
    "expert.flightgear.bad_magic",
    "The magic is neither FGFS nor SFGF",
);
pub static BAD_VERSION: NoteDef = NoteDef::warning(
    "expert.flightgear.bad_version",
    "The version word is not 0x00010001, the only one FlightGear accepts",
);
pub static CALLSIGN_UNTERMINATED: NoteDef = NoteDef::warning(
    "expert.flightgear.callsign_unterminated",
    "The callsign fills all 8 bytes without a NUL",
);
pub static HEADER_CUT: NoteDef = NoteDef::error(
    "expert.flightgear.header_cut",
    "The datagram is shorter than the 32-byte header",
);
pub static MSG_LEN_BELOW_HEADER: NoteDef = NoteDef::error(
    "expert.flightgear.msg_len_below_header",
    "MsgLen is shorter than the 32-byte header",
);
pub static MSG_LEN_SNAPLEN: NoteDef = NoteDef::note(
    "expert.flightgear.msg_len_snaplen",
    "MsgLen is longer than what the capture's snaplen kept",
);
pub static MSG_LEN_LONGER: NoteDef = NoteDef::error(
    "expert.flightgear.msg_len_longer",
    "MsgLen is longer than the datagram (FlightGear drops it)",
);
pub static MSG_LEN_SHORTER: NoteDef = NoteDef::warning(
    "expert.flightgear.msg_len_shorter",
    "MsgLen is shorter than the datagram (FlightGear drops it)",
);
pub static OVERSIZE: NoteDef = NoteDef::warning(
    "expert.flightgear.oversize",
    "The datagram is larger than FlightGear's 1200-byte receive buffer",
);
pub static OBSOLETE_MSG_ID: NoteDef = NoteDef::note(
    "expert.flightgear.obsolete_msg_id",
    "An obsolete message id (2-6, 8) that FlightGear 2020.3 ignores",
);
pub static UNKNOWN_MSG_ID: NoteDef = NoteDef::warning(
    "expert.flightgear.unknown_msg_id",
    "A message id FlightGear does not know; it logs and ignores the message",
);

// Legacy chat (`T_ChatMsg`).
pub static CHAT_EMPTY: NoteDef = NoteDef::error(
    "expert.flightgear.chat_empty",
    "A chat message without text",
);
pub static CHAT_NO_NUL: NoteDef = NoteDef::note(
    "expert.flightgear.chat_no_nul",
    "Chat text without a NUL: FlightGear replaces its last byte by one",
);

// Position block (`T_PositionMsg`).
pub static POSITION_SHORT: NoteDef = NoteDef::error(
    "expert.flightgear.position_short",
    "A position message shorter than 232 bytes (FlightGear drops it)",
);
pub static MODEL_UNTERMINATED: NoteDef = NoteDef::warning(
    "expert.flightgear.model_unterminated",
    "The model path fills all 96 bytes without a NUL",
);
pub static NAN: NoteDef = NoteDef::warning(
    "expert.flightgear.nan",
    "A time, position, orientation or motion value is NaN (FlightGear drops the message)",
);
pub static LEGACY_PROPS_228: NoteDef = NoteDef::note(
    "expert.flightgear.legacy_props_228",
    "Legacy 32-bit client: the properties start at the pad word",
);
pub static LEGACY_PROPS_232: NoteDef = NoteDef::note(
    "expert.flightgear.legacy_props_232",
    "Legacy 64-bit client: the pad word is stack garbage, the properties follow it",
);
pub static LEGACY_NO_PROPS: NoteDef = NoteDef::warning(
    "expert.flightgear.legacy_no_props",
    "Legacy pad word and no valid v1 property list: FlightGear ignores the properties",
);

// Property section.
pub static TOO_MANY_ITEMS: NoteDef = NoteDef::warning(
    "expert.flightgear.too_many_items",
    "More property values than the decoder shows",
);
pub static REPEATED_ID: NoteDef = NoteDef::warning(
    "expert.flightgear.repeated_id",
    "A property id repeated in one message",
);
pub static PROPS_TRAILING: NoteDef = NoteDef::warning(
    "expert.flightgear.props_trailing",
    "Bytes after the last property element, too short for another",
);
pub static UNKNOWN_ID: NoteDef = NoteDef::warning(
    "expert.flightgear.unknown_id",
    "A property id the table does not know: the rest of the section cannot be decoded",
);
pub static LATER_ID: NoteDef = NoteDef::note(
    "expert.flightgear.later_id",
    "A property id newer than FlightGear 2020.3",
);
pub static PROTOCOL_NOT_FIRST: NoteDef = NoteDef::note(
    "expert.flightgear.protocol_not_first",
    "Property 10 (protocol-version) is not the first property",
);
pub static FLOAT_AS_SHORT: NoteDef = NoteDef::warning(
    "expert.flightgear.float_as_short",
    "A float property sent in short form although it is not a scaled one: FlightGear reads 0",
);
pub static STRING_NEGATIVE_LENGTH: NoteDef = NoteDef::error(
    "expert.flightgear.string_negative_length",
    "A compact (v2) string with a negative length",
);
pub static STRING_CUT: NoteDef = NoteDef::error(
    "expert.flightgear.string_cut",
    "A compact (v2) string runs past the end of the message",
);
pub static STRING_TOO_LONG: NoteDef = NoteDef::warning(
    "expert.flightgear.string_too_long",
    "A compact (v2) string longer than FlightGear sends (767)",
);
pub static V1_STRING_CAPPED: NoteDef = NoteDef::warning(
    "expert.flightgear.v1_string_capped",
    "A v1 string length over 768: FlightGear reads 768 characters",
);
pub static V1_STRING_CUT: NoteDef = NoteDef::error(
    "expert.flightgear.v1_string_cut",
    "A v1 string's character and pad words run past the end of the message",
);
pub static V1_STRING_ODD_WORDS: NoteDef = NoteDef::note(
    "expert.flightgear.v1_string_odd_words",
    "A v1 string word holds more than a sign-extended byte; the low byte is used",
);
pub static BOOL_BLOCK_ID: NoteDef = NoteDef::note(
    "expert.flightgear.bool_block_id",
    "A v1 bool id inside the block range but not a block id: FlightGear takes it as a block",
);
pub static BOOL_BLOCK_BIT31: NoteDef = NoteDef::note(
    "expert.flightgear.bool_block_bit31",
    "Bit 31 of a bool block is set; it is never used",
);

/// Every note above, for the protocol's registration and the field reference.
pub static ALL: &[&NoteDef] = &[
    &UNTRUSTED,
    &BAD_MAGIC,
    &BAD_VERSION,
    &CALLSIGN_UNTERMINATED,
    &HEADER_CUT,
    &MSG_LEN_BELOW_HEADER,
    &MSG_LEN_SNAPLEN,
    &MSG_LEN_LONGER,
    &MSG_LEN_SHORTER,
    &OVERSIZE,
    &OBSOLETE_MSG_ID,
    &UNKNOWN_MSG_ID,
    &CHAT_EMPTY,
    &CHAT_NO_NUL,
    &POSITION_SHORT,
    &MODEL_UNTERMINATED,
    &NAN,
    &LEGACY_PROPS_228,
    &LEGACY_PROPS_232,
    &LEGACY_NO_PROPS,
    &TOO_MANY_ITEMS,
    &REPEATED_ID,
    &PROPS_TRAILING,
    &UNKNOWN_ID,
    &LATER_ID,
    &PROTOCOL_NOT_FIRST,
    &FLOAT_AS_SHORT,
    &STRING_NEGATIVE_LENGTH,
    &STRING_CUT,
    &STRING_TOO_LONG,
    &V1_STRING_CAPPED,
    &V1_STRING_CUT,
    &V1_STRING_ODD_WORDS,
    &BOOL_BLOCK_ID,
    &BOOL_BLOCK_BIT31,
];
