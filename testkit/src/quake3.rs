//! Quake 3 server messages for the hostile tests, written with the decoder's own Huffman-mode
//! writer (`msg::BitWriter`, ioquake3 code/qcommon/msg.c `MSG_WriteBits`): the gamestate and
//! snapshot datagrams of an ioquake3 flow.

use gamedissect::protocols::quake3::netchan;

/// The challenge the flows of these builders use (`challengeResponse 1234567 …`).
pub const CHALLENGE: i32 = 1_234_567;

pub use gamedissect::protocols::quake3::bits::BitWriter;

/// What the hostile tests write beyond the decoder's own `msg::BitWriter` (ioquake3
/// code/qcommon/msg.c `MSG_WriteBits` over the static Huffman code): one-field entity deltas.
pub trait Writes {
    /// An entity delta setting only field `i` (an integer of `bits`) to `v`
    /// (`MSG_WriteDeltaEntity`).
    fn entity_field(&mut self, num: u16, i: usize, bits: i32, v: i64);
}

impl Writes for BitWriter {
    fn entity_field(&mut self, num: u16, i: usize, bits: i32, v: i64) {
        self.bits(num.into(), 10);
        self.bit(0); // not removed
        self.bit(1); // has a delta
        self.byte((i + 1) as u8);
        for _ in 0..i {
            self.bit(0);
        }
        self.bit(1);
        self.bit(1); // non-zero
        self.bits(v, bits);
    }
}

/// The connectionless reply that tells the decoder the flow's challenge and protocol.
pub fn challenge_response() -> Vec<u8> {
    format!("\u{ff}\u{ff}\u{ff}\u{ff}challengeResponse {CHALLENGE} 5 72")
        .chars()
        .map(|c| c as u8)
        .collect()
}

/// An ioquake3 server→client datagram: sequence, checksum, then the message.
pub fn s2c(seq: u32, body: &[u8]) -> Vec<u8> {
    let mut p = seq.to_le_bytes().to_vec();
    p.extend_from_slice(&netchan::checksum(CHALLENGE, seq).to_le_bytes());
    p.extend_from_slice(body);
    p
}

/// A gamestate with a serverinfo configstring and a baseline for each of `baselines` entities
/// (numbers from 0), each setting modelindex (field 29).
pub fn gamestate(baselines: u16) -> Vec<u8> {
    gamestate_of(baselines, |w, num| w.entity_field(num, 29, 8, 7))
}

/// A gamestate of `baselines` empty baselines (12 bits each: number, not removed, no delta from
/// the null entity; `MSG_WriteDeltaEntity`): 1,022 fit a 2.7 KB datagram.
pub fn gamestate_empty(baselines: u16) -> Vec<u8> {
    gamestate_of(baselines, |w, num| {
        w.bits(num.into(), 10);
        w.bits(0, 2); // not removed, no delta
    })
}

/// A gamestate whose baselines `baseline` writes after their svc_baseline byte.
fn gamestate_of(baselines: u16, baseline: impl Fn(&mut BitWriter, u16)) -> Vec<u8> {
    let mut w = BitWriter::default();
    w.long(0);
    w.byte(2); // svc_gamestate
    w.long(4);
    w.byte(3); // svc_configstring
    w.bits(0, 16);
    w.string(b"\\mapname\\q3dm17\\sv_hostname\\Test");
    for num in 0..baselines.min(1023) {
        w.byte(4); // svc_baseline
        baseline(&mut w, num);
    }
    w.byte(8);
    w.long(1); // clientNum
    w.long(-559_038_737); // checksumFeed
    w.byte(8);
    w.data
}

/// A snapshot (delta `delta` messages back) whose entity records run from `first` down to 0:
/// out of order from the second record on.
pub fn snapshot_descending(time: i64, delta: u8, first: u16) -> Vec<u8> {
    let mut w = BitWriter::default();
    w.long(0);
    w.byte(7); // svc_snapshot
    w.long(time);
    w.byte(delta);
    w.byte(0); // flags
    w.byte(1);
    w.byte(0xff); // area mask
    w.byte(0); // player state: no fields
    w.bits(0, 1); // no arrays
    for num in (0..=first.min(1022)).rev() {
        w.entity_field(num, 11, 8, 2);
    }
    w.bits(1023, 10);
    w.byte(8);
    w.data
}
