//! Every expert note the Sonic Robo Blast 2 decoder adds (beside the toolkit's cut-off,
//! missing-terminator and trailing-bytes notes), listed in `ProtocolInfo::notes`.

use crate::tree::NoteDef;

/// A 0-byte datagram: the address reachability test of STJr/SRB2 `src/i_tcp.c`
/// `SOCK_NetMakeNodewPort`.
pub static EMPTY_DATAGRAM: NoteDef = NoteDef::note(
    "expert.srb2.empty_datagram",
    "A 0-byte datagram: SRB2 tests a new address with it and receivers drop it",
);
/// `ack` already seen in this direction (STJr/SRB2 `src/d_net.c` resends with the same `ack`).
pub static RETRANSMISSION: NoteDef = NoteDef::note(
    "expert.srb2.retransmission",
    "A reliable packet's sequence number was already sent in this direction: a retransmission or duplicate",
);
/// `--srb2-version` named no release the decoder has tables for.
pub static BAD_VERSION_PREF: NoteDef = NoteDef::warning(
    "expert.srb2.bad_version_pref",
    "--srb2-version names no tabulated release; the release is detected instead",
);
/// The carried checksum is not `NetbufferChecksum` of the datagram.
pub static BAD_CHECKSUM: NoteDef = NoteDef::warning(
    "expert.srb2.bad_checksum",
    "The carried checksum does not match the datagram (SRB2 drops such packets); decoded anyway",
);
/// The type number is beyond the release's `packettype_t`.
pub static UNKNOWN_TYPE: NoteDef = NoteDef::error(
    "expert.srb2.unknown_type",
    "The packet type number does not exist in the release's packettype_t; the body is kept as bytes",
);
/// A `WRITESTRINGN` string ran out before its NUL or its bound.
pub static STRN_CUT_OFF: NoteDef = NoteDef::error(
    "expert.srb2.strn_cut_off",
    "A bounded string (STRN) ends without a NUL before its bound",
);
/// PT_SERVERTICS `numslots` above MAXPLAYERS.
pub static TOO_MANY_SLOTS: NoteDef = NoteDef::warning(
    "expert.srb2.too_many_slots",
    "PT_SERVERTICS carries more player slots than MAXPLAYERS (32); no SRB2 server sends that",
);
/// PT_SERVERTICS ticcmd block larger than the datagram.
pub static TICCMDS_CUT_OFF: NoteDef = NoteDef::error(
    "expert.srb2.ticcmds_cut_off",
    "The PT_SERVERTICS ticcmd block (tics × slots × ticcmd size) is longer than the datagram",
);
/// A PT_SERVERTICS text-command record of a player number ≥ MAXPLAYERS.
pub static PLAYER_OUT_OF_RANGE: NoteDef = NoteDef::warning(
    "expert.srb2.player_out_of_range",
    "A PT_SERVERTICS text-command player number is not below MAXPLAYERS (32)",
);
/// PT_NODETIMEOUT seen on the wire.
pub static NODETIMEOUT_ON_WIRE: NoteDef = NoteDef::note(
    "expert.srb2.nodetimeout_on_wire",
    "PT_NODETIMEOUT is only queued locally by the game; it is not expected on the wire",
);
/// A 2.2.5+ fragment with more data than its nominal size.
pub static FRAGMENT_OVERSIZE: NoteDef = NoteDef::warning(
    "expert.srb2.fragment_oversize",
    "A 2.2.5+ file fragment carries more data bytes than its nominal fragment size",
);
/// A 2.2.0–2.2.8 resynch body, whose layout the decoder does not know.
pub static UNTABULATED: NoteDef = NoteDef::note(
    "expert.srb2.untabulated",
    "The 2.2.0–2.2.8 resynch layouts are not tabulated; the body is shown as bytes",
);
/// The object part of a 2.1.25 `resynch_pak` is short.
pub static RESYNCH_CUT_OFF: NoteDef = NoteDef::error(
    "expert.srb2.resynch_cut_off",
    "The object part of a 2.1.25 resynch_pak is shorter than its 74 bytes",
);
/// The rest of a text-command buffer after a command that could not be decoded.
pub static XD_UNDELIMITED: NoteDef = NoteDef::note(
    "expert.srb2.xd_undelimited",
    "Net commands carry no length: the rest of a buffer after an undecodable command is not decoded",
);
/// A text-command buffer longer than what is left of the packet.
pub static TEXTBUF_CUT_OFF: NoteDef = NoteDef::error(
    "expert.srb2.textbuf_cut_off",
    "A text-command buffer claims more bytes than the packet holds",
);
/// An XD id beyond the release's `netxcmd_t`.
pub static UNKNOWN_XD: NoteDef = NoteDef::error(
    "expert.srb2.unknown_xd",
    "The net command id does not exist in the release's netxcmd_t",
);
/// An XD id the release has no `Got_*` handler for.
pub static XD_NO_HANDLER: NoteDef = NoteDef::error(
    "expert.srb2.xd_no_handler",
    "The net command has no handler in the release (never sent), so its body is unknown",
);

/// The flow is a game built on SRB2's netcode (SRB2Kart, Ring Racers), named by the application
/// string of its PT_SERVERINFO: same header and checksum, different packet tables.
pub static OTHER_GAME: NoteDef = NoteDef::note(
    "expert.srb2.other_game",
    "The flow is a game built on SRB2's netcode (SRB2Kart, Ring Racers): its packet tables are not SRB2's, so only the header is decoded",
);

/// A datagram the flow does not learn from (see "Trust" in `docs/architecture.md`).
pub static UNTRUSTED: NoteDef = NoteDef::warning(
    "expert.srb2.untrusted",
    "The datagram fails SRB2's checksum or has a packet type the flow's release lacks: it is shown but changes nothing in the flow's state",
);
/// A trusted datagram that names another release than the one the flow decided.
pub static RELEASE_CONTRADICTED: NoteDef = NoteDef::note(
    "expert.srb2.release_contradicted",
    "The datagram names another release than the flow's: one such datagram is not obeyed",
);
/// The flow's release or game verdict changed on the weight of agreeing datagrams.
pub static RELEASE_REVISED: NoteDef = NoteDef::note(
    "expert.srb2.release_revised",
    "Consecutive trusted datagrams agree against the flow's release or game: the decision is revised",
);
/// A datagram pointing to another game, not yet enough to decide.
pub static OTHER_GAME_HINT: NoteDef = NoteDef::note(
    "expert.srb2.other_game_hint",
    "The datagram points to a game built on SRB2's netcode; one datagram is not enough to decide",
);

/// Every note above, for `ProtocolInfo::notes`.
pub static ALL: &[&NoteDef] = &[
    &EMPTY_DATAGRAM,
    &RETRANSMISSION,
    &BAD_VERSION_PREF,
    &BAD_CHECKSUM,
    &UNKNOWN_TYPE,
    &STRN_CUT_OFF,
    &TOO_MANY_SLOTS,
    &TICCMDS_CUT_OFF,
    &PLAYER_OUT_OF_RANGE,
    &NODETIMEOUT_ON_WIRE,
    &FRAGMENT_OVERSIZE,
    &UNTABULATED,
    &RESYNCH_CUT_OFF,
    &XD_UNDELIMITED,
    &TEXTBUF_CUT_OFF,
    &UNKNOWN_XD,
    &XD_NO_HANDLER,
    &OTHER_GAME,
    &UNTRUSTED,
    &RELEASE_CONTRADICTED,
    &RELEASE_REVISED,
    &OTHER_GAME_HINT,
];
