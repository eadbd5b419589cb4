//! A Quake 3 session cut mid-way, recognised on any port by the weight of its first datagrams
//! ([`crate::proto::Series`]): no handshake names it, and one netchan datagram is four bytes
//! of sequence that many protocols could start with.
//!
//! What a mid-session netchan flow shows (ioquake3 code/qcommon/net_chan.c `Netchan_Transmit`,
//! code/client/cl_input.c `CL_WritePacket`): each end numbers its datagrams with a 32-bit
//! little-endian sequence rising by one (the fragments of one message repeat it, with bit 31
//! set); a client puts its 2-byte qport after the sequence, the same in every datagram; and
//! the client's message opens, Huffman-coded, with the serverId and then the sequence of the
//! last server datagram it received (`clc.serverMessageSequence`), after the qport (protocol
//! 68) or after the qport and a 4-byte checksum (ioquake3's protocol 71).
//!
//! The claim needs all of it in one flow: a client end with [`CLIENT_DATAGRAMS`] datagrams in
//! sequence under one qport, [`ACKS`] of them acknowledging a sequence within [`ACK_SLACK`] of
//! the other end's newest, and the other end's sequences never falling back. Random bytes match a
//! qport three times at odds of 2^-32 and an acknowledgement at about 2^-24; a protocol with a
//! little-endian counter (RakNet, WireGuard, QUIC, RTP) has no acknowledgement of the other
//! end's counter at that place.

use super::bits::BitReader;
use super::netchan::{FRAGMENT_BIT, le32};
use crate::proto::{Judge, Judgement, Series};

/// Datagrams in sequence, under one qport, the client end needs.
pub const CLIENT_DATAGRAMS: u8 = 3;
/// Client datagrams that must acknowledge the other end's sequence.
pub const ACKS: u8 = 2;
/// How far an acknowledgement may be from the other end's newest captured sequence: the
/// client acknowledges what it received, which a capture taken at either end, or one that
/// lost datagrams, sees a few datagrams apart.
pub const ACK_SLACK: u32 = 64;
/// The largest rise of a sequence between two captured datagrams of one end (the datagrams
/// between them lost).
pub const MAX_STEP: u32 = 64;
/// Sequences start at 1 at each connection (`Netchan_Setup`); 2^24 datagrams is days of play.
const MAX_SEQUENCE: u32 = 0x0100_0000;
/// The shortest netchan datagram: a sequence, a qport and a byte of message.
const MIN_LEN: usize = 7;

pub struct Quake3Series;

impl Series for Quake3Series {
    fn watch(&self, payload: &[u8]) -> Option<Box<dyn Judge>> {
        sequence(payload)?;
        Some(Box::new(Watch::default()))
    }
}

/// The sequence and fragment bit of a netchan-shaped datagram.
fn sequence(p: &[u8]) -> Option<(u32, bool)> {
    let raw = le32(p, 0)?;
    let seq = raw & !FRAGMENT_BIT;
    (p.len() >= MIN_LEN && seq != 0 && seq < MAX_SEQUENCE).then_some((seq, raw & FRAGMENT_BIT != 0))
}

/// What one end's datagrams showed.
#[derive(Default)]
struct End {
    last: Option<u32>,
    /// Datagrams of this end weighed.
    seen: u8,
    /// Rises of one to [`MAX_STEP`] from the previous datagram.
    rises: u8,
    /// Steps that were no rise (a datagram reordered or repeated).
    bad: u8,
    qport: Option<u16>,
    qport_changed: bool,
    /// Datagrams acknowledging the other end's sequence.
    acks: u8,
    first_seq: u32,
}

impl End {
    fn as_client(&self) -> bool {
        self.rises + 1 >= CLIENT_DATAGRAMS && !self.qport_changed && self.acks >= ACKS
    }
}

#[derive(Default)]
struct Watch {
    /// Index 0: the end that sent the flow's first datagram.
    ends: [End; 2],
}

/// The sequence a client message acknowledges, read at `at` (after the qport, or after the
/// qport and the checksum): its second Huffman-coded long.
fn acknowledged(p: &[u8], at: usize) -> Option<u32> {
    let mut r = BitReader::new(p.get(at..)?);
    r.long().ok()?;
    r.ulong().ok()
}

impl Watch {
    fn basis(&self, client: usize) -> String {
        let c = &self.ends[client];
        let s = &self.ends[1 - client];
        format!(
            "quake3 netchan over {} datagrams: the client's sequences rise {}..{} under qport {}, {} of its messages acknowledge the server's sequence (up to {})",
            c.seen as u16 + s.seen as u16,
            c.first_seq,
            c.last.unwrap_or(0),
            c.qport.unwrap_or(0),
            c.acks,
            s.last.unwrap_or(0),
        )
    }
}

impl Judge for Watch {
    fn weigh(&mut self, payload: &[u8], from_first: bool) -> Judgement {
        let Some((seq, fragment)) = sequence(payload) else {
            return Judgement::Refuted;
        };
        let k = usize::from(!from_first);
        let other = self.ends[1 - k].last;
        let e = &mut self.ends[k];
        match e.last {
            None => e.first_seq = seq,
            Some(last) => match seq.wrapping_sub(last) {
                // A later fragment of the same message.
                0 if fragment => {}
                1..=MAX_STEP => e.rises += 1,
                _ => e.bad += 1,
            },
        }
        if e.bad > 1 {
            return Judgement::Refuted;
        }
        e.last = Some(seq);
        e.seen = e.seen.saturating_add(1);
        let qport = u16::from_le_bytes([payload[4], payload[5]]);
        e.qport_changed |= e.qport.is_some_and(|q| q != qport);
        e.qport = Some(qport);
        if let Some(theirs) = other.filter(|_| !fragment) {
            let near = |at| {
                acknowledged(payload, at).is_some_and(|ack| {
                    (ack.wrapping_sub(theirs) as i32).unsigned_abs() <= ACK_SLACK && ack != 0
                })
            };
            e.acks += u8::from(near(6) || near(10));
        }
        let client = e.as_client();
        let server = &self.ends[1 - k];
        if client && server.bad == 0 && server.seen >= 1 {
            return Judgement::Claimed {
                server_is_first: k == 1,
                basis: self.basis(k),
            };
        }
        Judgement::Undecided
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocols::quake3::bits::BitWriter;

    /// A protocol-68 client datagram: sequence, qport, then serverId, the acknowledged server
    /// sequence and a reliable acknowledgement, Huffman-coded, and a few bytes of moves.
    fn client(seq: u32, qport: u16, ack: u32) -> Vec<u8> {
        let mut w = BitWriter::default();
        for v in [77_i64, ack as i64, 12] {
            w.long(v);
        }
        let mut p = seq.to_le_bytes().to_vec();
        p.extend_from_slice(&qport.to_le_bytes());
        p.extend_from_slice(&w.data);
        p.extend_from_slice(&[0x5a; 8]);
        p
    }

    fn server(seq: u32) -> Vec<u8> {
        let mut p = seq.to_le_bytes().to_vec();
        p.extend_from_slice(&[0x10, 0xf5, 0x67, 0xa0, 0x31, 0x42, 0x53, 0x64]);
        p
    }

    fn judge(first: &[u8]) -> Box<dyn Judge> {
        Quake3Series
            .watch(first)
            .expect("a netchan-shaped datagram")
    }

    /// Server first (end 0), then the client acknowledging it: claimed at the client's third
    /// datagram, the first sender the server.
    #[test]
    fn a_client_acknowledging_the_server_is_claimed_at_its_third_datagram() {
        let first = server(500);
        let mut j = judge(&first);
        assert_eq!(j.weigh(&first, true), Judgement::Undecided);
        assert_eq!(
            j.weigh(&client(900, 4321, 500), false),
            Judgement::Undecided
        );
        assert_eq!(j.weigh(&server(501), true), Judgement::Undecided);
        assert_eq!(
            j.weigh(&client(901, 4321, 501), false),
            Judgement::Undecided
        );
        assert_eq!(
            j.weigh(&client(902, 4321, 501), false),
            Judgement::Claimed {
                server_is_first: true,
                basis: "quake3 netchan over 5 datagrams: the client's sequences rise 900..902 under qport 4321, 3 of its messages acknowledge the server's sequence (up to 501)".to_string(),
            }
        );
    }

    /// The same exchange with the qport changing, or acknowledgements far from the server's
    /// sequence, is never claimed; a sequence falling back twice refutes it.
    #[test]
    fn no_claim_without_a_constant_qport_and_acknowledgements() {
        for (qports, acks) in [([4321, 4322, 4321], [500, 501, 501]), ([7; 3], [9000; 3])] {
            let first = server(500);
            let mut j = judge(&first);
            j.weigh(&first, true);
            j.weigh(&server(501), true);
            for k in 0..3 {
                let v = j.weigh(
                    &client(900 + k, qports[k as usize], acks[k as usize]),
                    false,
                );
                assert_eq!(v, Judgement::Undecided, "{qports:?} {acks:?}");
            }
        }
        let first = server(500);
        let mut j = judge(&first);
        j.weigh(&first, true);
        assert_eq!(j.weigh(&server(400), true), Judgement::Undecided);
        assert_eq!(j.weigh(&server(300), true), Judgement::Refuted);
        // Not the netchan shape at all: a sequence of 0, or of 2^24 and more.
        assert!(Quake3Series.watch(&server(0)).is_none());
        assert!(Quake3Series.watch(&server(0x0100_0000)).is_none());
    }
}
