//! DirectPlay 8 messages split over several DFRAMEs (NEW_MSG, middle frames, END_MSG;
//! [MC-DPL8R] 2.2.2), put back together per sender in arrival order.

use std::net::SocketAddr;

use crate::tree::{Note, NoteDef, Pos};

use super::dplay::{Dp8Command, Fragment};
use super::fields;
use super::notes;

/// Upper bound of one reassembled message (Gamestudio sends at most ~1 KiB).
pub const MAX_REASSEMBLY: usize = 64 * 1024;
/// How far ahead of a sender's pending split message a piece's one-byte sequence may be and
/// still belong to that sender's stream: a quarter of the sequence space. Farther (or behind) it
/// is a stray, and touches nothing: not even a new message's first piece may replace the
/// pending one.
const FAR: u8 = 64;

/// Messages pending at once per flow; the oldest is dropped for a new one.
const MAX_PENDING: usize = 4;

#[derive(Debug, Clone)]
struct Pending {
    sender: SocketAddr,
    bytes: Vec<u8>,
    /// bSeq of the last piece.
    last_seq: u8,
}

#[derive(Debug, Default, Clone)]
pub struct Reassembly {
    pending: Vec<Pending>,
}

impl Reassembly {
    /// Heap bytes held.
    pub fn state_bytes(&self) -> usize {
        self.pending.iter().map(|p| p.bytes.capacity()).sum()
    }

    /// Takes one piece from `sender`; returns the whole message when the piece ends it. What
    /// happened to the piece is a note.
    pub fn add(
        &mut self,
        sender: SocketAddr,
        fr: Fragment,
        payload: &[u8],
        out: &mut Vec<Note>,
    ) -> Option<Vec<u8>> {
        let piece = payload
            .get(fr.at..fr.at.saturating_add(fr.len))
            .unwrap_or(&[]);
        let mut note = |def: &'static NoteDef, msg: String| {
            let at = Some(Pos::bytes(fr.at, fr.len));
            out.push(Note::new(def, Some(&fields::DP8_FRAGMENT), at, msg));
        };
        let slot = self.pending.iter().position(|p| p.sender == sender);
        let last_seq = slot.map(|i| self.pending[i].last_seq);
        let seq = fr.seq;
        if last_seq == Some(seq) {
            let msg = format!("retransmission of the piece with sequence {seq}; ignored");
            note(&notes::SPLIT_RETRANSMITTED, msg);
            return None;
        }
        if let Some(last) = last_seq
            && seq.wrapping_sub(last) > FAR
        {
            let msg = format!(
                "piece with sequence {seq} is far from the split message's {last}: a stray; ignored"
            );
            note(&notes::SPLIT_GAP, msg);
            return None;
        }
        if fr.bits == Dp8Command::NEW_MSG.0 {
            if let Some(i) = slot {
                self.pending.remove(i);
                let msg = "a new message starts before the previous one ended; the unfinished one is dropped";
                note(&notes::SPLIT_RESTARTED, msg.into());
            }
            if self.pending.len() >= MAX_PENDING {
                self.pending.remove(0);
            }
            self.pending.push(Pending {
                sender,
                bytes: piece.to_vec(),
                last_seq: seq,
            });
            note(
                &notes::SPLIT_FIRST,
                format!("first part of a split message ({} bytes)", fr.len),
            );
            return None;
        }
        let Some(i) = slot else {
            let msg = "part of a split message whose first part is not in the capture";
            note(&notes::SPLIT_ORPHAN, msg.into());
            return None;
        };
        let last = last_seq.unwrap_or(0);
        if last.wrapping_add(1) != seq {
            // A lost piece or a stray: either way this piece cannot continue the message, and a
            // stray must not end it. The message waits for its next piece; a new message from
            // the sender replaces it if that never comes.
            let msg = format!(
                "piece with sequence {seq} does not follow {last}: a piece is missing or this one is a stray; the split message waits for sequence {}",
                last.wrapping_add(1)
            );
            note(&notes::SPLIT_GAP, msg);
            return None;
        }
        let total = self.pending[i].bytes.len() + piece.len();
        if total > MAX_REASSEMBLY {
            self.pending.remove(i);
            let msg = format!("split message exceeds {MAX_REASSEMBLY} bytes; dropped");
            note(&notes::SPLIT_TOO_LARGE, msg);
            return None;
        }
        if fr.bits == Dp8Command::END_MSG.0 {
            let mut whole = self.pending.remove(i).bytes;
            whole.extend_from_slice(piece);
            let msg = format!(
                "last part of a split message: {} bytes reassembled",
                whole.len()
            );
            note(&notes::SPLIT_DONE, msg);
            return Some(whole);
        }
        let p = &mut self.pending[i];
        p.bytes.extend_from_slice(piece);
        p.last_seq = seq;
        note(
            &notes::SPLIT_MIDDLE,
            format!("middle part of a split message ({total} bytes so far)"),
        );
        None
    }
}
