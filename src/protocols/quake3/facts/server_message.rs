//! The server message a client would hand to its parser, read back from a decoded record: what
//! a demo stores (ioquake3 code/client/cl_main.c `CL_PacketEvent` writes `msg->data +
//! headerBytes` through `CL_WriteDemoMessage` once `CL_Netchan_Process` returned true).
//!
//! `headerBytes` is the netchan header `Netchan_Process` read (sequence, and the ioquake3
//! checksum; for a reassembled message only the sequence, since it copies the fragment buffer
//! over the datagram). What follows is de-keyed by `CL_Netchan_Decode` in the legacy flavour and
//! still Huffman-coded. The decoder keeps exactly those bytes: the de-keyed or reassembled copy as
//! a data source of the record, or, when neither applied, the payload after the header.

use crate::protocols::quake3::fields::{GAMESTATE, NC_SEQUENCE, NETCHAN, SVC};
use crate::protocols::quake3::notes;
use crate::tree::{Record, Value};

/// A server → client message as the client's parser received it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerMessage<'a> {
    /// The netchan sequence (`clc.serverMessageSequence`).
    pub sequence: u32,
    /// The message after netchan processing, still Huffman-coded.
    pub bytes: &'a [u8],
    /// The message carries `svc_gamestate`.
    pub gamestate: bool,
}

/// Why a server → client datagram gives no message to the client's parser.
fn dropped_by_client(record: &Record) -> bool {
    // Fragments wait for the rest; a runt or keyed message never reaches the parser as we know
    // it; the netchan drops old sequences and (ioquake3) wrong checksums, which we do not trust
    // either; a datagram the capture cut is not the message that was sent.
    matches!(
        &*record.msg_type,
        "fragment" | "runt" | "keyed" | "untrusted"
    ) || record.notes.iter().any(|n| {
        std::ptr::eq(n.def, &notes::CHECKSUM_WRONG)
            || n.def.name.contains("snaplen")
            || n.def.name == "expert.frame_cut"
    })
}

/// The message a server → client sequenced datagram delivered, from its record decoded with
/// field trees (`Datagram::detail`); `None` for anything else, and for a datagram the client
/// would not have parsed.
pub fn server_message<'a>(payload: &'a [u8], record: &'a Record) -> Option<ServerMessage<'a>> {
    if record.protocol != "quake3" || dropped_by_client(record) {
        return None;
    }
    let root = record.fields.first()?;
    let netchan = root
        .children
        .iter()
        .find(|c| std::ptr::eq(c.def, &NETCHAN))?;
    root.children.iter().find(|c| std::ptr::eq(c.def, &SVC))?;
    let sequence = match netchan.find(NC_SEQUENCE.name)?.value {
        Value::UInt(s) => u32::try_from(s).ok()?,
        _ => return None,
    };
    let copied = record.sources.iter().find(|s| {
        matches!(
            &*s.name,
            "de-keyed message" | "reassembled message" | "reassembled, de-keyed message"
        )
    });
    let bytes = match copied {
        Some(s) => &s.data[..],
        None => payload.get(netchan.pos.end() as usize..)?,
    };
    Some(ServerMessage {
        sequence,
        bytes,
        gamestate: record.find(GAMESTATE.name).is_some(),
    })
}
