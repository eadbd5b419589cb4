//! Every expert note the Quake III decoder adds, registered once (listed in the protocol's
//! `ProtocolInfo::notes`, so the field reference documents them).

use crate::tree::NoteDef;

// The netchan layer (ioquake3 code/qcommon/net_chan.c `Netchan_Process`).
pub static RUNT: NoteDef = NoteDef::error(
    "expert.quake3.runt",
    "A sequenced datagram too short for its netchan header",
);
pub static FLAVOUR: NoteDef = NoteDef::note(
    "expert.quake3.flavour",
    "The netchan flavour (legacy or ioquake3) the flow was found to use, and why",
);
pub static CHECKSUM_WRONG: NoteDef = NoteDef::warning(
    "expert.quake3.checksum_wrong",
    "The ioquake3 netchan checksum does not match the challenge",
);
pub static UNTRUSTED: NoteDef = NoteDef::warning(
    "expert.quake3.untrusted",
    "Not trusted (stale or far-ahead sequence, wrong checksum, a handshake mid-connection): the flow's state unchanged",
);
pub static SEQUENCE_GAP: NoteDef = NoteDef::note(
    "expert.quake3.sequence_gap",
    "Messages before this one were not captured",
);
pub static FRAGMENT_LENGTH: NoteDef = NoteDef::error(
    "expert.quake3.fragment_length",
    "A fragment length larger than the bytes that follow",
);
pub static FRAGMENT_DROPPED: NoteDef = NoteDef::note(
    "expert.quake3.fragment_dropped",
    "A fragment the engine drops (a fragment was lost, or the message grows too large)",
);
pub static XOR_NO_CHALLENGE: NoteDef = NoteDef::note(
    "expert.quake3.xor_no_challenge",
    "Legacy XOR keying without the challenge: only the unkeyed acknowledgements are decoded",
);
pub static XOR_KEY_UNKNOWN: NoteDef = NoteDef::note(
    "expert.quake3.xor_key_unknown",
    "The client command a legacy server message is keyed with was not captured",
);
pub static HELD_KEYED: NoteDef = NoteDef::note(
    "expert.quake3.held_keyed",
    "A message held while its key was searched for (a legacy XOR pad, or a usercmd key), never decoded whole",
);
pub static SNAPLEN: NoteDef = NoteDef::note(
    "expert.quake3.snaplen",
    "The capture's snaplen cut a datagram the decoder found errors in",
);

// The message bit stream (ioquake3 code/qcommon/msg.c `MSG_ReadBits`).
pub static OVERREAD: NoteDef = NoteDef::error(
    "expert.quake3.overread",
    "A read past the end of the message",
);
pub static NYT: NoteDef = NoteDef::error(
    "expert.quake3.nyt",
    "The Huffman code of NYT, which the encoder never sends: a corrupt stream",
);

// Server messages (ioquake3 code/client/cl_parse.c `CL_ParseServerMessage`).
pub static SVC_UNKNOWN: NoteDef = NoteDef::error(
    "expert.quake3.svc_unknown",
    "An svc opcode the engine does not know",
);
pub static SVC_REPEATED: NoteDef = NoteDef::error(
    "expert.quake3.svc_repeated",
    "A second gamestate or snapshot in one message",
);
pub static TOO_MANY_OPS: NoteDef = NoteDef::error(
    "expert.quake3.too_many_ops",
    "More operations in one message than the decoder follows",
);
pub static CONFIGSTRING_INDEX: NoteDef = NoteDef::error(
    "expert.quake3.configstring_index",
    "A configstring index outside 0…1023",
);
pub static GAMESTATE_ENTRY_UNKNOWN: NoteDef = NoteDef::error(
    "expert.quake3.gamestate_entry_unknown",
    "A gamestate entry that is neither a configstring, a baseline nor the end",
);
pub static AREAMASK_LENGTH: NoteDef = NoteDef::error(
    "expert.quake3.areamask_length",
    "A snapshot area mask longer than 32 bytes",
);
pub static DELTA_REFERENCE_MISSING: NoteDef = NoteDef::note(
    "expert.quake3.delta_reference_missing",
    "The snapshot a delta refers to was not captured (or is too old)",
);
pub static ENTITY_ORDER: NoteDef = NoteDef::error(
    "expert.quake3.entity_order",
    "Entity numbers of a snapshot not in increasing order (the snapshot ends there)",
);

// Client messages (ioquake3 code/server/sv_client.c `SV_ExecuteClientMessage`).
pub static CLC_UNKNOWN: NoteDef = NoteDef::error(
    "expert.quake3.clc_unknown",
    "A clc opcode the engine does not know",
);
pub static NO_CLC_EOF: NoteDef = NoteDef::warning(
    "expert.quake3.no_clc_eof",
    "No clc_EOF after a move (the server ignores the rest)",
);
pub static USERCMD_COUNT: NoteDef = NoteDef::error(
    "expert.quake3.usercmd_count",
    "A usercmd count outside 1…32",
);
pub static XOR_CLIENT_KEY_UNKNOWN: NoteDef = NoteDef::note(
    "expert.quake3.xor_client_key_unknown",
    "No captured server command de-keys a legacy client message: its key string was not captured, so only its acknowledgements are shown",
);
pub static KEY_UNKNOWN: NoteDef = NoteDef::note(
    "expert.quake3.key_unknown",
    "The usercmd key is unknown: usercmd fields are shown still keyed",
);

// Connectionless packets (ioquake3 code/server/sv_main.c `SV_ConnectionlessPacket`,
// code/client/cl_main.c `CL_ConnectionlessPacket`).
pub static OOB_UNKNOWN: NoteDef = NoteDef::warning(
    "expert.quake3.oob_unknown",
    "A connectionless command the engines do not know",
);
pub static CONNECT_SHORT: NoteDef = NoteDef::error(
    "expert.quake3.connect_short",
    "A connect packet too short for the compressed userinfo length",
);
pub static USERINFO_CUT: NoteDef = NoteDef::error(
    "expert.quake3.userinfo_cut",
    "The compressed userinfo of a connect packet ends early",
);
pub static SERVER_LIST_ENTRY: NoteDef = NoteDef::error(
    "expert.quake3.server_list_entry",
    "A master server list entry cut short or of unknown kind",
);

/// Every note above, for the protocol's registration.
pub static ALL: &[&NoteDef] = &[
    &RUNT,
    &FLAVOUR,
    &CHECKSUM_WRONG,
    &UNTRUSTED,
    &SEQUENCE_GAP,
    &FRAGMENT_LENGTH,
    &FRAGMENT_DROPPED,
    &XOR_NO_CHALLENGE,
    &XOR_KEY_UNKNOWN,
    &XOR_CLIENT_KEY_UNKNOWN,
    &HELD_KEYED,
    &SNAPLEN,
    &OVERREAD,
    &NYT,
    &SVC_UNKNOWN,
    &SVC_REPEATED,
    &TOO_MANY_OPS,
    &CONFIGSTRING_INDEX,
    &GAMESTATE_ENTRY_UNKNOWN,
    &AREAMASK_LENGTH,
    &DELTA_REFERENCE_MISSING,
    &ENTITY_ORDER,
    &CLC_UNKNOWN,
    &NO_CLC_EOF,
    &USERCMD_COUNT,
    &KEY_UNKNOWN,
    &OOB_UNKNOWN,
    &CONNECT_SHORT,
    &USERINFO_CUT,
    &SERVER_LIST_ENTRY,
];
