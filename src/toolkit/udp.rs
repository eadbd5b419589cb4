//! Fields of the plain-UDP record (datagrams no decoder claims) and of the notes the UDP layer
//! adds to any record.

crate::field_defs! {
    UDP = group("udp", "User Datagram Protocol").desc("A datagram no decoder claimed");
    LENGTH = uint("udp.length", "Payload length").unit("bytes").desc("Payload length the UDP header declares (header excluded)");
    PAYLOAD = bytes("udp.payload", "Payload").desc("The payload as captured");
}

use crate::tree::NoteDef;

/// The datagram's UDP length is larger than what the capture kept.
pub static CUT_BY_SNAPLEN: NoteDef = NoteDef::warning(
    "expert.udp.cut_by_snaplen",
    "The capture's snaplen cut the datagram: fewer payload bytes than the UDP length",
);
/// The UDP length claims more than the IP packet carries.
pub static LENGTH_LIES: NoteDef = NoteDef::error(
    "expert.udp.length_lies",
    "The UDP length does not fit the payload the IP packet carries",
);
/// The frame (not the datagram) was cut by the snaplen.
pub static FRAME_CUT: NoteDef =
    NoteDef::warning("expert.frame_cut", "The capture's snaplen cut the frame");
/// The datagram was put together from IP fragments.
pub static REASSEMBLED: NoteDef = NoteDef::note(
    "expert.reassembled",
    "The datagram was reassembled from IP fragments",
);
/// A decoder panicked (a bug); the flow falls back to plain UDP.
pub static DECODER_FAILED: NoteDef = NoteDef::error(
    "expert.decoder_failed",
    "The decoder failed on this datagram (a bug); the flow is shown as plain UDP from here on",
);
/// A decoder returned no record for a datagram.
pub static DECODER_EMPTY: NoteDef = NoteDef::note(
    "expert.decoder_empty",
    "The decoder produced no message for this datagram",
);
/// The flow's decoder state was dropped at the `--max-state` budget while it was idle.
pub static STATE_DROPPED: NoteDef = NoteDef::warning(
    "expert.state_dropped",
    "The flow's decoder state was dropped at the --max-state budget; decoding starts over as if the capture began here",
);
/// No probe claimed the flow's first datagrams and no port is registered: it stays plain UDP.
pub static PROBING_SETTLED: NoteDef = NoteDef::note(
    "expert.probing_settled",
    "No protocol claimed the flow within its probing budget; it stays plain UDP",
);
/// A registered port chose the flow's decoder, but none of its first datagrams passed the
/// protocol's own check: the claim is withdrawn and the flow is plain UDP.
pub static PORT_CLAIM_WITHDRAWN: NoteDef = NoteDef::warning(
    "expert.port_claim_withdrawn",
    "A port chose the flow's decoder but none of its first datagrams passed the protocol's check; it is plain UDP",
);

/// The notes the plumbing adds, for the field reference.
pub static NOTES: &[&NoteDef] = &[
    &CUT_BY_SNAPLEN,
    &LENGTH_LIES,
    &FRAME_CUT,
    &REASSEMBLED,
    &DECODER_FAILED,
    &DECODER_EMPTY,
    &STATE_DROPPED,
    &PROBING_SETTLED,
    &PORT_CLAIM_WITHDRAWN,
];
