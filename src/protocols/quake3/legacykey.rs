//! Legacy XOR keys recovered from the keyed messages themselves, for a capture that starts
//! after the handshake or lost the message that carried a key string.
//!
//! The legacy transform (ioquake3 code/server/sv_net_chan.c `SV_Netchan_Encode`,
//! code/client/cl_net_chan.c `CL_Netchan_Encode`) updates its key byte with one character of
//! the key string per byte, from a start key that is the low byte of the challenge XOR a value
//! each message carries unkeyed (the sequence S→C, serverId XOR messageAcknowledge C→S). So
//! byte `i` of every message keyed with the same string is XORed with that per-message value
//! and one pad byte `Z_i` that no message changes: one unknown pad per direction and
//! acknowledged command number, shared by every message that acknowledges it.
//!
//! The pad is found one byte at a time from the grammar of the messages: each step has at
//! most 128 candidates (`Z_i XOR Z_(i-1)` is one key-string character, shifted left on odd
//! bytes), first sifted by the last bytes of the messages ending there (`votes`), and a
//! candidate is kept only while the pooled messages that end at that byte parse to `svc_EOF` /
//! `clc_EOF` exactly in their last byte with zero padding bits (for server messages, a few
//! longer ones cut there must also read on without an error, their snapshot clocks agreeing).
//! Candidates start from whole command words, from the challenge byte alone, or from the
//! starts of command lines (`seeds`). When the pad shows its whole key string (a command
//! word, or a string that repeats within it: `read_string`) and that string's pad de-keys
//! every pooled message, the string and the challenge byte are known, and the flow files the
//! string as the command it is. Messages are never decoded with a pad that has not passed a
//! full parse of the message itself.

use super::State;
use super::bits::{self, Loc};
use super::constants::{Clc, Svc};
use super::huffman::static_table;
use super::notes;
use super::server::Summary;
use crate::tree::{Severity, TreeBuilder};

mod carried;
mod echo;
mod numbered;
mod periodic;

pub use carried::{COMMANDS as CARRIED_COMMANDS, Carried};

/// Messages pooled per group (direction and acknowledged command number).
pub const POOL: usize = 96;
/// Groups kept per flow (the oldest is forgotten).
pub const GROUPS: usize = 8;
/// The longest keyed part a pad is searched for (MAX_PACKETLEN − headers).
pub const MAX_PAD: usize = 1400;
/// Candidate pads kept per byte position; more means the messages do not decide yet.
const BEAM: usize = 1 << 15;
/// How far a seed that repeats one command word is written out (then it grows as any other).
const SEED_PAD: usize = 64;
/// Work steps credited to the flow per pooled message, and the most it may save up. A step is
/// one candidate byte looked at; a trial parse costs [`TRIAL`] steps, a seed its length / 16.
const WORK_PER_MESSAGE: u64 = 1 << 10;
const WORK_SAVED: u64 = 1 << 24;
/// The most one search may spend per pooled message of its group (a search at 4 messages
/// 65,536 steps, at 96 1,572,864).
const SEARCH_PER_MESSAGE: u64 = 1 << 14;
/// The most the search may spend that goes on from a pad a carried command gave
/// (carried.rs): its group was searched before, often given up, and lacked the start.
const CARRIED_SEARCH: u64 = 1 << 22;
/// A search is not started with less credit than this.
const MIN_SEARCH: u64 = 4096;
/// Searches of a group that may find nothing before it is given up (at 4, 8, 12, 18 and 27
/// messages): a group whose first messages decide nothing seldom gets better, and random bytes
/// would otherwise keep the search busy.
const GIVE_UP: u32 = 5;
/// The credit a flow starts with, granted at its fourth pooled keyed message ([`GRANT_AT`]),
/// when few flows are in the engine's table ([`start_credit`]).
const WORK_START: u64 = 1 << 23;
/// Conversations in the table up to which a flow gets the whole start credit: a server of
/// sixteen players captured mid-game gives each of them the whole credit.
const CROWD: u64 = 16;
/// The pooled keyed message at which a flow is granted its start credit ([`start_credit`]).
const GRANT_AT: u8 = 4;
/// Given-up groups remembered after they are forgotten ([`Pads::given_up`]).
const GIVEN_UP_KEPT: usize = 16;
const TRIAL: u64 = 16;
/// Candidate bytes looked up in the tail masks per step (a table lookup, against a trial
/// parse's thousands of instructions).
const LOOKS_PER_STEP: u64 = 16;
/// Work steps per candidate carried through a byte (copied, sorted and merged).
const KEEP: u64 = 16;
/// Ending messages and cut longer messages tried per candidate byte.
const ENDERS: usize = 4;
const LONGER: usize = 3;

/// Pooled messages a predicted key-string beginning must de-key, each into a clean parse to its
/// last byte, before its pad is taken.
pub const PREFIX_FITS: usize = 8;

/// How a trial parse went.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Trial {
    /// Ended at the EOF operation in the last byte, the padding bits zero.
    Clean,
    /// Read past the end without a grammar error (a cut message under a right pad).
    Short,
    /// Ended at the EOF operation with the last bit of the last byte. The sender would have
    /// sent one more byte (see `classify`): a cut message's end, not a whole message's.
    Boundary,
    /// A grammar error, or an ending elsewhere than the last byte.
    Bad,
}

/// Parses `body` (de-keyed) into a scratch tree and says how it ended. `probe` is a scratch
/// state: a server message's snapshots and configstrings land there.
pub fn trial(probe: &mut State, to_server: bool, body: &[u8], sequence: u32) -> Trial {
    let mut t = TreeBuilder::new(false);
    let mut sum = Summary::default();
    let loc = Loc { source: 0, base: 0 };
    let end = if to_server {
        let (mut cmds, mut obs) = (Vec::new(), Vec::new());
        probe.parse_client(body, Some(b""), loc, &mut t, &mut sum, &mut cmds, &mut obs)
    } else {
        probe.parse_server(body, sequence, loc, &mut t, &mut sum)
    };
    classify(&t, end, body)
}

/// [`trial`] for a client message, which leaves the state as it is.
pub fn trial_client(st: &State, body: &[u8]) -> Trial {
    let mut t = TreeBuilder::new(false);
    let mut sum = Summary::default();
    let loc = Loc { source: 0, base: 0 };
    let (mut cmds, mut obs) = (Vec::new(), Vec::new());
    let (cmds, obs) = (&mut cmds, &mut obs);
    let parse = || st.parse_client(body, Some(b""), loc, &mut t, &mut sum, cmds, obs);
    // A message the pad fails on would leave a time read from garbage.
    let time = st.server_time.get();
    let end = st.ucmd_keys.untouched(parse);
    st.server_time.set(time);
    classify(&t, end, body)
}

fn classify(t: &TreeBuilder, end: usize, body: &[u8]) -> Trial {
    let total = body.len() * 8;
    let mut short = false;
    for n in &t.notes {
        if std::ptr::eq(n.def, &notes::OVERREAD) {
            short = true;
        } else if std::ptr::eq(n.def, &notes::NO_CLC_EOF) {
            // The byte after the move ran past the end, or was not clc_EOF.
            if end < total {
                return Trial::Bad;
            }
            short = true;
        } else if n.severity() == Severity::Error {
            return Trial::Bad;
        }
    }
    if short {
        return Trial::Short;
    }
    // The sender's length is the written bits / 8 + 1 (msg.c `MSG_WriteBits`: `cursize =
    // (bit >> 3) + 1`), so a message whose last bit ends a byte carries one more byte, never
    // written (stale buffer contents). Each byte was zeroed when its first bit was written
    // (huffman.c `add_bit`), so the bits after the EOF operation in its byte are zero.
    if end == total {
        return Trial::Boundary;
    }
    if end / 8 + 1 != body.len() || end > total {
        return Trial::Bad;
    }
    let used = end % 8;
    if used > 0 && body[end / 8] >> used != 0 {
        return Trial::Bad;
    }
    Trial::Clean
}

/// Where keying starts: payload byte 12 of a client message, 4 of a server message.
pub fn keyed_from(to_server: bool) -> usize {
    if to_server { 12 } else { 4 }
}

/// Applies (or removes) a pad: byte `start + i` is XORed with `base ^ pad[i]`.
pub fn apply(body: &mut [u8], start: usize, base: u8, pad: &[u8]) {
    for (b, z) in body.iter_mut().skip(start).zip(pad) {
        *b ^= base ^ z;
    }
}

/// The pad a key string and challenge byte give (the transform of `xor` in netchan.rs with
/// the per-message value left out), for `len` keyed bytes from payload byte `start`.
pub fn pad_of(challenge: u8, text: &[u8], start: usize, len: usize) -> Vec<u8> {
    let mut pad = vec![0u8; len];
    super::netchan::xor(&mut pad, 0, challenge, text);
    // `xor` counts parity from its own index 0; `start` is even, so parities agree.
    debug_assert!(start.is_multiple_of(2));
    pad
}

/// One keyed message kept for the search.
struct Pooled {
    body: Vec<u8>,
    base: u8,
    sequence: u32,
}

impl Pooled {
    fn keyed_len(&self, start: usize) -> usize {
        self.body.len().saturating_sub(start)
    }

    /// The pad bytes the message gives if its plaintext starts with `plain` (its whole bytes
    /// only), keyed from byte `from`; `None` when the unkeyed bytes are not the ones written.
    fn pad_given(&self, plain: &bits::BitWriter, from: usize) -> Option<Vec<u8>> {
        let n = (plain.pos / 8).min(self.body.len());
        if n <= from || plain.data[..from] != self.body[..from] {
            return None;
        }
        Some(
            (from..n)
                .map(|i| self.body[i] ^ plain.data[i] ^ self.base)
                .collect(),
        )
    }
}

/// Takes `cost` work steps from `credit`, counted in `work`; `false`, taking nothing, when the
/// credit is short.
fn spend(credit: &mut u64, work: &mut u64, cost: u64) -> bool {
    let Some(left) = credit.checked_sub(cost) else {
        return false;
    };
    (*credit, *work) = (left, *work + cost);
    true
}

/// A group: the messages pooled because one (unknown) key string keys them all (one direction
/// and acknowledged command number), so they share one pad, and the pad found so far.
struct PadPool {
    to_server: bool,
    ack: u32,
    msgs: Vec<Pooled>,
    pad: Vec<u8>,
    /// Pool size at the last search (searched again when it doubles).
    searched_at: usize,
    /// Searches that found nothing: at [`GIVE_UP`] the group is not searched again.
    failed: u32,
    /// Pool size at the last try of predicted key strings.
    tried_at: usize,
    /// Messages pooled so far (the pool keeps the newest [`POOL`]).
    added: usize,
    /// How many pooled messages the pad was found from.
    from: usize,
    /// Byte positions with a message-end filter at the last screen of numbered strings
    /// ([`numbered::screen`]): screened again only when two more have one.
    screened: std::cell::Cell<usize>,
    /// Messages pooled at the last try of the pad's period ([`periodic::solve`]).
    folded_at: usize,
    /// The newest snapshot server time the flow had decoded when the group's first message
    /// came: the time `respawn N` strings are screened around ([`numbered::screen`]), and how
    /// far either side of it that time may be off (0 unless extrapolated: [`Pads::redate`]).
    server_time: Option<(i32, i32)>,
    /// The newest server-message sequence the flow had seen when the group's first message
    /// came: dates the group when the flow knows no server time yet ([`Pads::redate`]).
    server_sequence: Option<u32>,
}

impl PadPool {
    /// The longest keyed part of a pooled message (at most [`MAX_PAD`]).
    fn longest(&self) -> usize {
        let start = keyed_from(self.to_server);
        (self.msgs.iter().map(|m| m.keyed_len(start)).max()).map_or(0, |n| n.min(MAX_PAD))
    }

    /// Pooled message `m` de-keyed with `pad` into `body`, and whether it then parses cleanly
    /// to its last byte.
    fn dekeys(&self, m: &Pooled, pad: &[u8], probe: &mut State, body: &mut Vec<u8>) -> bool {
        body.clear();
        body.extend_from_slice(&m.body);
        apply(body, keyed_from(self.to_server), m.base, pad);
        trial(probe, self.to_server, body, m.sequence) == Trial::Clean
    }

    /// Drops one pooled message of the most common keyed length (the oldest of them): the
    /// search needs messages ending at as many different bytes as it can get.
    fn forget_one(&mut self) {
        let mut lens: Vec<usize> = self.msgs.iter().map(|m| m.body.len()).collect();
        lens.sort_unstable();
        let (mut best, mut best_run, mut run) = (0, 0, 0);
        for (i, &len) in lens.iter().enumerate() {
            run = if i > 0 && lens[i - 1] == len {
                run + 1
            } else {
                1
            };
            if run > best_run {
                (best, best_run) = (len, run);
            }
        }
        if let Some(i) = self.msgs.iter().position(|m| m.body.len() == best) {
            self.msgs.remove(i);
        }
    }
}

/// De-keyed pooled messages: whether each is a client message, its sequence, its bytes.
pub type Harvest = Vec<(bool, u32, Vec<u8>)>;

/// The per-flow recovery state.
#[derive(Default)]
pub struct Pads {
    groups: Vec<PadPool>,
    credit: u64,
    /// Keyed messages pooled, up to [`GRANT_AT`]: the start credit is granted at the last.
    offered: u8,
    /// Trial parses spent so far (counted work, for the hostile tests and `stats`).
    pub work: u64,
    /// Whether the challenge byte has been found from a pad and a captured command.
    pub challenge: Option<u8>,
    /// Key strings read off recovered pads, not yet taken by [`Pads::take_texts`]: the
    /// direction of the messages they key, the command number and the text.
    texts: Vec<(bool, u32, Vec<u8>)>,
    /// Pooled messages de-keyed by a newly recovered pad, not yet taken by
    /// [`Pads::take_harvest`]: whether they are client messages, their sequence, their bytes.
    harvest: Harvest,
    /// The credit of the numbered-string screens ([`numbered::screen`]), apart from the
    /// searches' so that searches that find nothing do not starve the cheap screens.
    screen_credit: u64,
    /// Groups given up and since forgotten (the newest [`GIVEN_UP_KEPT`]): one that comes back
    /// stays given up. Random bodies make groups come and go (their server messages seem to
    /// acknowledge ever new commands), and each coming back searched five times more made a
    /// flow of them spend without end.
    given_up: Vec<(bool, u32)>,
    /// Conversations in the engine's flow table at the current datagram
    /// (`Datagram::conversations`): the start credit shrinks as they multiply (`start_credit`).
    pub conversations: usize,
    /// The newest snapshot server time the flow decoded, given to each new group.
    pub server_time: Option<i32>,
    /// The newest server-message sequence the flow has seen, given to each new group.
    pub server_sequence: Option<u32>,
    /// The credit of the tries of the pads' period ([`periodic::solve`]), apart from the
    /// searches' for the same reason.
    fold_credit: u64,
    /// Server-message groups, their pooled count and [`Pads::names_epoch`] at the last try of
    /// a `say` line's echo ([`Pads::try_echo`]), the newest [`GROUPS`].
    echoed: Vec<(u32, usize, u32)>,
    /// Counts the changes of the names the flow overheard ([`Pads::names_changed`]).
    names_epoch: u32,
    /// The first message of each of the newest [`GROUPS`] server-message groups, which may
    /// carry the echo of the group's key string: kept when the group is forgotten (among
    /// many groups) and comes back.
    firsts: Vec<(u32, Pooled)>,
    /// The groups tried with the commands their messages carry ([`Pads::try_carried`]), with a
    /// fingerprint of the try's inputs, the newest [`carried::REMEMBERED`].
    carried: Vec<((bool, u32), u64)>,
}

/// The start credit (`full`) of a flow granted it with `conversations` others in the engine's
/// table (flows of at least four datagrams: a server browser's probe is not one): whole while
/// the flow is one of the first [`CROWD`], then `full × (CROWD / flows)²` of `flows` with it.
/// It is granted at the flow's fourth pooled keyed message, before anything spends it (a search
/// needs four messages of one group), when the flow is a conversation itself; so the k-th flow
/// granted sees at least the k − 1 before it, whatever order their datagrams come in, and the
/// start credits of every flow of a capture add up to at most `2 × CROWD × full` (while none is
/// forgotten: flows idle for ten minutes of capture time leave the table). With the whole
/// credit for every flow, 500 flows crafted to pass [`decidable`] spent 587 million steps in
/// 5 MB, 7 s of CPU against 0.17 s for a real capture in JSON (docs/performance.md). The count
/// is the same on every shard (each tracks every flow), so is the output.
fn start_credit(full: u64, conversations: usize) -> u64 {
    let flows = conversations as u64 + 1;
    if flows <= CROWD {
        return full;
    }
    full * CROWD * CROWD / flows.saturating_mul(flows)
}

/// Milliseconds of server time per server message: the server runs `sv_fps` frames a second
/// (ioquake3 code/server/sv_main.c `SV_Frame`: `frameMsec = 1000 / sv_fps`, default 20) and
/// sends a client at most one snapshot a frame (code/server/sv_snapshot.c
/// `SV_SendClientMessages`, paced by the client's `snaps`, default 20 in
/// code/client/cl_main.c), each one message of the netchan sequence.
const MS_PER_SERVER_MESSAGE: i64 = 50;
/// How far back a group is dated from the first server time known, in server messages (a
/// minute at 20 a second), and the most the date may be off either side (the window then
/// costs at most four times an ordinary one).
const MAX_MESSAGES_BACK: i64 = 1200;
const MAX_SPREAD: i64 = 6000;

/// How long a client-message group's messages are held for the flow's first server time
/// after the group's first message, in server messages (5 s): a death's `respawn N` group
/// lasts the respawn wait, and the time came 67 server messages after it on the busy capture
/// cut at 70 %. Held up to the time however long, the given-up groups' client messages cost
/// that cut more than the string gave (71.8 % -> 66.5 % exact, a chat line fewer: fewer
/// messages of the `say` groups held for their echo were de-keyed).
const HOLD_UNDATED: i32 = 100;

/// The server time when the newest server message had sequence `then`, extrapolated back from
/// server time `now` known at sequence `now_seq`, and how far either side it may be off: half
/// the time extrapolated (a client with `snaps` 10, or a server at `sv_fps` 40, doubles or
/// halves it), at least a frame's. `None` past [`MAX_MESSAGES_BACK`].
fn extrapolated(now: i32, now_seq: u32, then: u32) -> Option<(i32, i32)> {
    let back = i64::from(now_seq.wrapping_sub(then) as i32);
    if !(0..=MAX_MESSAGES_BACK).contains(&back) {
        return None;
    }
    let span = back * MS_PER_SERVER_MESSAGE;
    let time = i32::try_from(i64::from(now) - span).ok()?;
    let spread = (span / 2).clamp(MS_PER_SERVER_MESSAGE, MAX_SPREAD) as i32;
    Some((time, spread))
}

/// What the recovery knows for one message.
pub struct Found<'a> {
    pub pad: &'a [u8],
    pub from: usize,
}

impl Pads {
    /// Memory held (pooled messages and pads).
    pub fn bytes(&self) -> usize {
        self.groups
            .iter()
            .map(|g| {
                g.pad.capacity() + g.msgs.iter().map(|m| m.body.capacity() + 16).sum::<usize>()
            })
            .sum::<usize>()
            + self.given_up.capacity() * 8
            + self.carried.capacity() * 16
            + (self.firsts.iter())
                .map(|(_, m)| m.body.capacity() + 24)
                .sum::<usize>()
    }

    /// Whether the pad of group (`to_server`, `ack`) is still searched for: the group is
    /// pooled and its searches have not given up.
    pub fn live(&self, to_server: bool, ack: u32) -> bool {
        self.get(to_server, ack).is_some_and(|g| g.failed < GIVE_UP)
    }

    /// The command numbers the pooled client-message groups acknowledge.
    pub fn client_acks(&self) -> impl Iterator<Item = u32> + '_ {
        (self.groups.iter()).filter(|g| g.to_server).map(|g| g.ack)
    }

    /// Whether client-message group `ack` awaits the flow's first server time, which screens
    /// it once more ([`Pads::set_server_time`]), its searches given up or not: for
    /// `HOLD_UNDATED` server messages after its first.
    pub fn undated(&self, to_server: bool, ack: u32) -> bool {
        let Some(newest) = self.server_sequence.filter(|_| self.server_time.is_none()) else {
            return false;
        };
        (self.get(to_server, ack)).is_some_and(|g| {
            let recent = (g.server_sequence)
                .is_some_and(|s| (newest.wrapping_sub(s) as i32) <= HOLD_UNDATED);
            g.to_server && g.server_time.is_none() && g.pad.is_empty() && recent
        })
    }

    /// Whether group (`to_server`, `ack`) has pooled messages.
    pub fn pooled(&self, to_server: bool, ack: u32) -> bool {
        self.get(to_server, ack).is_some()
    }

    /// Whether the pad known for group (`to_server`, `ack`) reaches `need` keyed bytes.
    pub fn covers(&self, to_server: bool, ack: u32, need: usize) -> bool {
        self.get(to_server, ack)
            .is_some_and(|g| g.pad.len() >= need)
    }

    /// The keyed bytes the pad known for group (`to_server`, `ack`) reaches.
    pub fn pad_len(&self, to_server: bool, ack: u32) -> usize {
        self.get(to_server, ack).map_or(0, |g| g.pad.len())
    }

    /// The group of (`to_server`, `ack`), when there is one.
    fn get(&self, to_server: bool, ack: u32) -> Option<&PadPool> {
        (self.groups.iter()).find(|g| g.to_server == to_server && g.ack == ack)
    }

    /// [`Pads::get`], to change.
    fn find(&mut self, to_server: bool, ack: u32) -> Option<&mut PadPool> {
        group_mut(&mut self.groups, (to_server, ack))
    }

    fn group(&mut self, to_server: bool, ack: u32) -> usize {
        if let Some(i) = self
            .groups
            .iter()
            .position(|g| g.to_server == to_server && g.ack == ack)
        {
            return i;
        }
        if self.groups.len() >= GROUPS {
            let old = self.groups.remove(0);
            if old.failed >= GIVE_UP {
                if self.given_up.len() >= GIVEN_UP_KEPT {
                    self.given_up.remove(0);
                }
                self.given_up.push((old.to_server, old.ack));
            }
        }
        let given_up = self.given_up.contains(&(to_server, ack));
        self.groups.push(PadPool {
            to_server,
            ack,
            msgs: Vec::new(),
            pad: Vec::new(),
            searched_at: 0,
            failed: if given_up { GIVE_UP } else { 0 },
            tried_at: 0,
            added: 0,
            from: 0,
            screened: std::cell::Cell::new(0),
            folded_at: 0,
            server_time: self.server_time.map(|t| (t, 0)),
            server_sequence: self.server_sequence,
        });
        self.groups.len() - 1
    }

    /// The pad for a message keyed under (`to_server`, `ack`), pooling the message and
    /// searching when the pad does not cover it yet. `None`: not known (yet).
    pub fn offer(
        &mut self,
        to_server: bool,
        (ack, base, sequence): (u32, u8, u32),
        body: &[u8],
        challenge: Option<u8>,
    ) -> Option<Found<'_>> {
        let start = keyed_from(to_server);
        let need = body.len().saturating_sub(start);
        if need > MAX_PAD {
            return None;
        }
        let gi = self.group(to_server, ack);
        if self.groups[gi].pad.len() < need {
            let g = &mut self.groups[gi];
            if g.msgs.len() >= POOL {
                g.forget_one();
            }
            g.msgs.push(Pooled {
                body: body.to_vec(),
                base,
                sequence,
            });
            g.added += 1;
            if !to_server && g.added == 1 {
                echo::keep_first(&mut self.firsts, ack, g.msgs.last());
            }
            if self.offered < GRANT_AT {
                self.offered += 1;
                if self.offered == GRANT_AT {
                    let n = self.conversations;
                    self.credit += start_credit(WORK_START, n);
                    self.screen_credit += start_credit(numbered::SCREEN_START, n);
                    self.fold_credit += start_credit(periodic::FOLD_START, n);
                }
            }
            self.fold_credit =
                (self.fold_credit + periodic::FOLD_PER_MESSAGE).min(periodic::FOLD_SAVED);
            self.credit = (self.credit + WORK_PER_MESSAGE).min(WORK_SAVED);
            self.screen_credit =
                (self.screen_credit + numbered::SCREEN_PER_MESSAGE).min(numbered::SCREEN_SAVED);
            // Searched at 4 messages and each time their number grows by half.
            let n = g.added;
            // A server message's pad is searched for only with the challenge byte known (from
            // a client message's pad, whose messages end after a few keyed bytes): before it,
            // 256 times the seeds would grow through the ten or more bytes before the first
            // message end, spending the flow's credit for nothing.
            let ready = to_server || challenge.or(self.challenge).is_some();
            let hopeless = g.failed >= GIVE_UP;
            if n >= 4 && n >= g.searched_at + (g.searched_at / 2).max(4) && !hopeless {
                // Before it, only whole commands are screened (`numbered::screen`): they give
                // the challenge byte with the pad.
                g.searched_at = n;
                // A search may spend what its pooled messages warrant, from the flow's credit.
                let full = SEARCH_PER_MESSAGE * g.msgs.len() as u64;
                self.search(gi, challenge, !ready, full);
            }
            let g = &self.groups[gi];
            if g.pad.is_empty() && periodic::due(g.added, g.folded_at) {
                self.fold(gi, challenge.or(self.challenge));
            }
        }
        let g = &self.groups[gi];
        (g.pad.len() >= need).then(|| Found {
            pad: &g.pad[..need],
            from: g.from,
        })
    }

    /// Extends group `gi`'s pad as far as its pooled messages decide it, spending at most
    /// `full` from the flow's credit. With `screen_only`, only the whole strings of
    /// [`numbered::screen`] are tried.
    fn search(&mut self, gi: usize, challenge: Option<u8>, screen_only: bool, full: u64) {
        let cb = challenge.or(self.challenge);
        let Pads {
            groups,
            credit,
            work,
            screen_credit,
            server_time,
            ..
        } = self;
        let g = &mut groups[gi];
        // A group first pooled before the flow knew a server time takes the first it knows.
        g.server_time = g.server_time.or(server_time.map(|t| (t, 0)));
        let cap = full.min(*credit);
        if cap < MIN_SEARCH && !screen_only {
            return;
        }
        let mut allowed = cap;
        // Messages keyed with a numbered command or a bare command word: found whole, from
        // its own credit.
        let numbered = (g.pad.is_empty())
            .then(|| numbered::screen(g, cb, false, screen_credit, work))
            .flatten();
        let (
            Cand {
                pad: found,
                seed,
                text: whole,
                ..
            },
            end,
        ) = match numbered {
            Some((c, text)) => {
                let pad = pad_of(c, &text, keyed_from(g.to_server), g.longest());
                let whole = Cand {
                    pad,
                    seed: Some(c),
                    text: Some(text),
                };
                (whole, End::Done)
            }
            None if screen_only => return,
            None => extend(g, cb, &mut allowed, work),
        };
        *credit -= cap - allowed;
        // A search the flow's credit cut short does not count against the group.
        if found.is_empty() && g.pad.is_empty() && (end != End::Spent || cap == full) {
            g.failed += 1;
        }
        if found.len() <= g.pad.len() {
            return;
        }
        g.pad = found;
        g.from = g.added;
        // A whole command word every survivor agreed on, checked through its end.
        let whole = seed
            .zip(whole)
            .filter(|(c, t)| cb.is_none_or(|k| k == *c) && g.pad.len() > t.len());
        if let Some((cb, text)) = whole.or_else(|| read_string(&g.pad, cb)) {
            // The whole string is known: its pad reaches every pooled message, and must
            // de-key every one of them into a clean parse, some of them through at least three
            // characters of its repeat (a word that is only the start of a longer command
            // fails there unless the command goes on with the word's own first letters).
            let longest = g.longest();
            let checked = std::mem::take(&mut g.pad);
            let start = keyed_from(g.to_server);
            g.pad = pad_of(cb, &text, start, longest.max(checked.len()));
            let dekeyed = dekeyed_pool(g);
            if longest >= text.len() + 3 && dekeyed.len() == g.msgs.len() {
                self.harvest.extend(dekeyed);
                self.texts.push((g.to_server, g.ack, text));
                if self.challenge.is_none() {
                    self.challenge = Some(cb);
                }
                return;
            }
            g.pad = checked;
        }
        self.harvest.extend(dekeyed_pool(g));
    }

    /// Takes the flow's newest decoded server time. The first one known dates the client-message
    /// groups pooled before it, whose screens had no `respawn N` window
    /// (`numbered::screen`): a group keyed with a death's `respawn N` gets no new message
    /// once the client acknowledges the next command, so no later search would screen it
    /// again. Each such group is screened once more, for those strings only, around the time
    /// extrapolated back from its server sequence (`extrapolated`), from the screens' credit.
    /// Whether a key string was found (to be taken with [`Pads::take_texts`]).
    pub fn set_server_time(&mut self, time: Option<i32>, challenge: Option<u8>) -> bool {
        let first = self.server_time.is_none();
        self.server_time = time;
        let (Some(now), Some(seq_now), true) = (time, self.server_sequence, first) else {
            return false;
        };
        let found = self.texts.len();
        let cb = challenge.or(self.challenge);
        for gi in 0..self.groups.len() {
            let g = &mut self.groups[gi];
            // Given up or not: its searches had no `respawn N` past 999 to try.
            if !(g.to_server && g.server_time.is_none() && g.pad.is_empty()) {
                continue;
            }
            let Some(seq) = g.server_sequence else {
                continue;
            };
            g.server_time = extrapolated(now, seq_now, seq);
            if g.server_time.is_none() {
                continue;
            }
            let Pads {
                groups,
                work,
                screen_credit,
                ..
            } = self;
            let g = &groups[gi];
            if let Some((c, text)) = numbered::screen(g, cb, true, screen_credit, work) {
                self.take_whole(gi, c, text);
            }
        }
        self.texts.len() > found
    }

    /// Takes `text` under challenge byte `cb` as group `gi`'s key string when its pad de-keys
    /// every pooled message into a clean parse.
    fn take_whole(&mut self, gi: usize, cb: u8, text: Vec<u8>) {
        let g = &mut self.groups[gi];
        g.pad = pad_of(cb, &text, keyed_from(g.to_server), g.longest());
        let dekeyed = dekeyed_pool(g);
        if dekeyed.len() != g.msgs.len() {
            g.pad.clear();
            return;
        }
        g.from = g.added;
        self.harvest.extend(dekeyed);
        self.texts.push((g.to_server, g.ack, text));
        if self.challenge.is_none() {
            self.challenge = Some(cb);
        }
    }

    /// Looks for group `gi`'s whole key string through its pad's period
    /// ([`periodic::solve`]), from the flow's credit; when one is found, its pad must de-key
    /// every pooled message, and the string and the challenge byte are known.
    fn fold(&mut self, gi: usize, challenge: Option<u8>) {
        let Pads {
            groups,
            fold_credit,
            work,
            ..
        } = self;
        let g = &mut groups[gi];
        g.folded_at = g.added;
        if let Some((cb, text)) = periodic::solve(g, challenge, fold_credit, work) {
            self.take_whole(gi, cb, text);
        }
    }

    /// Whether group (`to_server`, `ack`) is due a try of predicted key strings: at 4 pooled
    /// messages and each time their number doubles (once each).
    pub fn due(&mut self, to_server: bool, ack: u32) -> bool {
        let Some(g) = self.find(to_server, ack) else {
            return false;
        };
        let short = g.pad.len() < g.longest();
        let due = short && g.added >= 4 && g.added.is_power_of_two();
        if !due || g.tried_at == g.added {
            return false;
        }
        g.tried_at = g.added;
        true
    }

    /// The group `key` with what trying strings on it spends and yields: the searches' credit,
    /// the work count and the harvest of de-keyed pooled messages.
    fn tried(
        &mut self,
        key: (bool, u32),
    ) -> Option<(&mut PadPool, &mut u64, &mut u64, &mut Harvest)> {
        let Pads {
            groups,
            credit,
            work,
            harvest,
            ..
        } = self;
        Some((group_mut(groups, key)?, credit, work, harvest))
    }

    /// Tries whole key strings predicted for group (`to_server`, `ack`) under challenge byte
    /// `cb`. A string fits when every pooled message of the group (at least four) parses
    /// cleanly to its last byte under its pad; the first that fits gives the group its pad
    /// (`Some`). The string itself is returned only when it is the one string that fits and the
    /// messages reach past its end: predictions that share their start (one speaker's chat
    /// lines) are not told apart by messages shorter than that start.
    pub fn try_texts(
        &mut self,
        (to_server, ack): (bool, u32),
        texts: &[Vec<u8>],
        cb: u8,
    ) -> Option<Option<Vec<u8>>> {
        let (g, credit, work, harvest) = self.tried((to_server, ack))?;
        if g.msgs.len() < 4 {
            return None;
        }
        let longest = g.longest();
        let mut probe = State::default();
        let mut scratch = Vec::new();
        let mut fitting: Vec<(&Vec<u8>, Vec<u8>)> = Vec::new();
        for text in texts {
            let cost = TRIAL * g.msgs.len() as u64;
            *credit = credit.checked_sub(cost)?;
            *work += cost;
            let pad = pad_of(cb, text, keyed_from(to_server), longest);
            let fits = (g.msgs.iter()).all(|m| g.dekeys(m, &pad, &mut probe, &mut scratch));
            if fits {
                fitting.push((text, pad));
            }
        }
        // A pad the group has (a try made while it was shorter may have found part of it) is
        // kept: only strings that agree with it count, and they may only extend it.
        fitting.retain(|(_, p)| p.starts_with(&g.pad) || g.pad.starts_with(p));
        let one = fitting.len() == 1 && fitting[0].0.len() < longest;
        let text = one.then(|| fitting[0].0.clone());
        // Several strings that fit give the group only the bytes their pads agree on.
        let (_, first) = fitting.first()?;
        let agreed = common_prefix(fitting.iter().map(|(_, p)| &p[..]));
        if agreed > g.pad.len() {
            g.pad = first[..agreed].to_vec();
            g.from = g.added;
            harvest.extend(dekeyed_pool(g));
        }
        Some(text)
    }

    /// Tries key-string beginnings predicted for group (`to_server`, `ack`) under challenge
    /// byte `cb` (a client's `userinfo` up to the value only it knows): one fits when every
    /// pooled message it reaches past, at least `PREFIX_FITS` (eight) of them, parses cleanly
    /// to its last byte under its pad. A group with no pad yet takes the pad the fitting
    /// beginnings agree on, as far as the longest message they were checked with; returns
    /// whether it did.
    pub fn try_prefixes(
        &mut self,
        (to_server, ack): (bool, u32),
        texts: &[Vec<u8>],
        cb: u8,
    ) -> bool {
        let Some((g, credit, work, harvest)) = self.tried((to_server, ack)) else {
            return false;
        };
        if g.pad.len() >= g.longest() {
            return false;
        }
        let start = keyed_from(to_server);
        let (mut probe, mut scratch) = (State::default(), Vec::new());
        let mut fitting: Vec<Vec<u8>> = Vec::new();
        for text in texts {
            let within: Vec<&Pooled> = (g.msgs.iter())
                .filter(|m| m.keyed_len(start) <= text.len())
                .collect();
            if within.len() < PREFIX_FITS {
                continue;
            }
            if !spend(credit, work, TRIAL * within.len() as u64) {
                break;
            }
            // The bytes past the longest message checked are the prediction's, not the
            // capture's: names that share their start, or a default the player changed.
            let checked = (within.iter()).map(|m| m.keyed_len(start)).max();
            let pad = pad_of(cb, text, start, checked.unwrap_or(0));
            if (within.iter()).all(|m| g.dekeys(m, &pad, &mut probe, &mut scratch)) {
                fitting.push(pad);
            }
        }
        // A pad found before (from fewer, shorter messages) is kept: only beginnings that agree
        // with it can extend it.
        fitting.retain(|p| p.starts_with(&g.pad) || g.pad.starts_with(p));
        // Several beginnings that fit give the group only the bytes their pads agree on.
        let Some(first) = fitting.first() else {
            return false;
        };
        let agreed = common_prefix(fitting.iter().map(|p| &p[..]));
        if agreed <= g.pad.len() {
            return false;
        }
        g.pad = first[..agreed].to_vec();
        g.from = g.added;
        harvest.extend(dekeyed_pool(g));
        true
    }

    /// The pooled messages newly de-keyed since the last call: (whether they are client
    /// messages, sequence, bytes). Their records were written keyed; the commands they carry
    /// still key the other direction.
    pub fn take_harvest(&mut self) -> Harvest {
        std::mem::take(&mut self.harvest)
    }

    /// The key strings read off recovered pads since the last call: (whether they key client
    /// messages, command number, text).
    pub fn take_texts(&mut self) -> Vec<(bool, u32, Vec<u8>)> {
        std::mem::take(&mut self.texts)
    }

    /// Looks for the challenge byte: a group's pad that the captured text of the command it
    /// acknowledges reproduces under exactly one challenge byte. `text_of` gives the captured
    /// text of a command number in the other direction.
    pub fn find_challenge<'t>(&mut self, text_of: impl Fn(bool, u32) -> Option<&'t [u8]>) {
        if self.challenge.is_some() {
            return;
        }
        for g in &self.groups {
            if g.pad.len() < 4 {
                continue;
            }
            let Some(text) = text_of(g.to_server, g.ack) else {
                continue;
            };
            let start = keyed_from(g.to_server);
            let first = text
                .first()
                .map_or(0, |&c| if c > 127 || c == b'%' { b'.' } else { c });
            let cb = g.pad[0] ^ first;
            if pad_of(cb, text, start, g.pad.len()) == g.pad {
                self.challenge = Some(cb);
                return;
            }
        }
    }
}

/// The pooled messages of `g` its pad covers and de-keys into a clean parse, with their
/// direction and sequence.
fn dekeyed_pool(g: &PadPool) -> Harvest {
    let start = keyed_from(g.to_server);
    let mut probe = State::default();
    (g.msgs.iter())
        .filter(|m| m.keyed_len(start) <= g.pad.len())
        .filter_map(|m| {
            let mut body = Vec::new();
            let clean = g.dekeys(m, &g.pad, &mut probe, &mut body);
            clean.then_some((g.to_server, m.sequence, body))
        })
        .collect()
}

/// The challenge byte and the whole key string a pad gives when the string repeats within it.
/// Consecutive pad bytes give the string's characters (`Z_k XOR Z_(k-1)`, shifted left on odd
/// bytes); the shortest period that at least two repeats confirm is the string's length, and
/// the character at that position is its first, which with the first pad byte gives the
/// challenge byte. `challenge`, when known, must agree.
fn read_string(pad: &[u8], challenge: Option<u8>) -> Option<(u8, Vec<u8>)> {
    let chars: Vec<u8> = (1..pad.len())
        .map(|k| char_between(k, pad[k - 1], pad[k]))
        .collect::<Option<_>>()?;
    // chars[k - 1] is the character at pad byte k.
    let at = |k: usize| chars[k - 1];
    let period = (1..pad.len())
        .find(|&l| pad.len() >= 2 * l + 2 && (1..pad.len() - l).all(|k| at(k) == at(k + l)))?;
    let first = at(period);
    let text: Vec<u8> = if first == 0 {
        // The empty string: no character changes the key.
        if !chars.iter().all(|&c| c == 0) {
            return None;
        }
        Vec::new()
    } else {
        (0..period)
            .map(|k| if k == 0 { first } else { at(k) })
            .collect()
    };
    if text.contains(&0) {
        return None;
    }
    let cb = pad[0] ^ first;
    if challenge.is_some_and(|c| c != cb) {
        return None;
    }
    Some((cb, text))
}

/// The key-string character that turns pad byte `prev` into `z` at keyed byte `k`: `z ^ prev`,
/// shifted left on odd bytes. None when no character (0…127) gives that difference.
fn char_between(k: usize, prev: u8, z: u8) -> Option<u8> {
    let d = z ^ prev;
    match k & 1 {
        1 if d & 1 == 0 => Some(d >> 1),
        0 if d < 128 => Some(d),
        _ => None,
    }
}

/// Whether byte `p` can be the last byte of a message that ends inside it: the EOF
/// operation's code (bit `k` of `code` is its `k`-th bit) ends in it, and the bits above are
/// zero. (A message whose EOF ends a byte carries one more, unwritten byte: see [`classify`].)
fn tail_ok(p: u8, code: u32, len: u32) -> bool {
    (1..=7u32).any(|e| {
        let above = p >> e;
        let m = len.min(e);
        let mask = (1u32 << m) - 1;
        above == 0 && (p as u32 >> (e - m)) & mask == (code >> (len - m)) & mask
    })
}

/// The plain last bytes a message of that direction can end with ([`tail_ok`] for the EOF
/// operation of client messages, `to_server`, or of server messages).
fn ending_bytes(to_server: bool) -> [bool; 256] {
    let eof = if to_server { Clc::EOF.0 } else { Svc::EOF.0 };
    let (code, len) = static_table().codes[eof as usize];
    std::array::from_fn(|p| tail_ok(p as u8, code, len))
}

/// The plain bytes that end with the whole EOF operation of that direction in their top bits:
/// the last byte written of a message whose EOF ends on a byte boundary, which then carries one
/// more, unwritten byte (msg.c `MSG_WriteBits` sends bits / 8 + 1 bytes).
fn filled_bytes(to_server: bool) -> [bool; 256] {
    let eof = if to_server { Clc::EOF.0 } else { Svc::EOF.0 };
    let (code, len) = static_table().codes[eof as usize];
    std::array::from_fn(|p| {
        let m = len.min(8);
        let mask = (1u32 << m) - 1;
        (p as u32 >> (8 - m)) & mask == (code >> (len - m)) & mask
    })
}

/// Per keyed byte position, the pad bytes under which the messages ending there end with the
/// EOF operation inside their last byte ([`tail_ok`]): a filter applied before any trial parse.
/// A message whose EOF ends on a byte boundary carries an unwritten byte, whatever it holds: on
/// the real captures 40 % of the client messages. So a byte passes when one in five of the
/// enders (at least one) agree, and fewer than three enders filter nothing (all of them could
/// end so). `None` where it does not filter.
fn votes(g: &PadPool, start: usize, longest: usize) -> Vec<Option<[bool; 256]>> {
    let ok = ending_bytes(g.to_server);
    let enders = enders_at(&g.msgs, start, longest);
    // Counted only where a filter comes of it: a flow of many groups computes these often.
    let mut slots: Vec<u32> = vec![u32::MAX; longest];
    let mut fits: Vec<[u32; 256]> = Vec::new();
    for (n, _) in (enders.iter().enumerate()).filter(|&(_, &t)| t >= FILTER_ENDERS) {
        slots[n] = fits.len() as u32;
        fits.push([0; 256]);
    }
    for m in &g.msgs {
        let Some(n) = m.keyed_len(start).checked_sub(1) else {
            continue;
        };
        let Some(fit) = (slots.get(n)).and_then(|&s| fits.get_mut(s as usize)) else {
            continue;
        };
        let last = m.body[m.body.len() - 1] ^ m.base;
        for (z, f) in fit.iter_mut().enumerate() {
            *f += ok[(last ^ z as u8) as usize] as u32;
        }
    }
    (slots.iter().zip(&enders))
        .map(|(&s, &total)| {
            let fit = fits.get(s as usize)?;
            let need = total / 5 + 1;
            Some(fit.map(|f| f >= need))
        })
        .collect()
}

/// Fewer than three messages ending at a byte are too likely all to end on a byte boundary
/// to filter it ([`votes`]).
const FILTER_ENDERS: u32 = 3;

/// Per keyed byte position below `longest`, how many of `msgs` end there.
fn enders_at(msgs: &[Pooled], start: usize, longest: usize) -> Vec<u32> {
    let mut enders = vec![0u32; longest];
    for m in msgs {
        let at = m.keyed_len(start).checked_sub(1);
        if let Some(t) = at.and_then(|n| enders.get_mut(n)) {
            *t += 1;
        }
    }
    enders
}

/// How many byte positions [`votes`] would filter: its answer without its tables, for callers
/// that need some filters before they do anything.
fn filtered_bytes(msgs: &[Pooled], start: usize, longest: usize) -> usize {
    let enders = enders_at(msgs, start, longest);
    enders.iter().filter(|&&t| t >= FILTER_ENDERS).count()
}

/// Command words a key string starts with. C→S messages are keyed with a server command:
/// those the engine and the game send (ioquake3 code/server/sv_main.c, sv_init.c, sv_ccmds.c
/// `SV_SendServerCommand` callers; code/game/g_*.c `trap_SendServerCommand` callers, as
/// code/cgame/cg_servercmds.c `CG_ServerCommand` reads them). S→C messages are keyed with a
/// client command (code/server/sv_client.c `ucmds`, code/game/g_cmds.c `ClientCommand`).
const SERVER_WORDS: &[&[u8]] = &[
    b"cs",
    b"bcs0",
    b"bcs1",
    b"bcs2",
    b"print",
    b"chat",
    b"tchat",
    b"cp",
    b"scores",
    b"tinfo",
    b"map_restart",
    b"disconnect",
    b"loaddefered",
    b"clientLevelShot",
    b"remapShader",
    b"tell",
    b"respawn",
];
const CLIENT_WORDS: &[&[u8]] = &[
    b"userinfo",
    b"say",
    b"say_team",
    b"tell",
    b"score",
    b"team",
    b"follow",
    b"follownext",
    b"followprev",
    b"callvote",
    b"vote",
    b"callteamvote",
    b"teamvote",
    b"kill",
    b"levelshot",
    b"cp",
    b"begin",
    b"disconnect",
    b"nextdl",
    b"stopdl",
    b"donedl",
    b"download",
    b"vsay",
    b"vsay_team",
    b"vtell",
    b"vosay",
    b"vtaunt",
    b"teamtask",
    b"where",
    b"gc",
    b"stats",
];

/// A candidate pad: its bytes, the challenge byte it was seeded with (when one), and the whole
/// key string it stands for (when seeded with one).
#[derive(Clone, Default, PartialEq, Eq, PartialOrd, Ord)]
struct Cand {
    pad: Vec<u8>,
    seed: Option<u8>,
    /// The whole key string, for a candidate seeded with one.
    text: Option<Vec<u8>>,
}

/// The first candidates: the empty pad, grown one key-string character at a time from the
/// first byte (any byte, or the known challenge byte XOR a character); and each challenge
/// byte (or the one known) with each command word alone (the string then repeats, so the pad
/// follows far), followed by a space, or by a space and a quote.
fn seeds(to_server: bool, challenge: Option<u8>, longest: usize) -> [Vec<Cand>; 3] {
    let start = keyed_from(to_server);
    let words = if to_server {
        SERVER_WORDS
    } else {
        CLIENT_WORDS
    };
    let bytes: Vec<u8> = match challenge {
        Some(c) => vec![c],
        None => (0..=255).collect(),
    };
    let generic = vec![Cand {
        pad: Vec::new(),
        seed: challenge,
        text: None,
    }];
    let (mut whole, mut starts) = (Vec::new(), Vec::new());
    for &cb in &bytes {
        for w in words {
            let texts = [
                w.to_vec(),
                [w, &b" "[..]].concat(),
                [w, &b" \""[..]].concat(),
            ];
            for t in &texts {
                // The whole string (it then repeats), or the start of a longer one.
                for (len, out, text) in [
                    (SEED_PAD, &mut whole, Some(t.clone())),
                    (t.len(), &mut starts, None),
                ] {
                    out.push(Cand {
                        pad: pad_of(cb, t, start, len.min(longest)),
                        seed: Some(cb),
                        text,
                    });
                }
            }
        }
    }
    [whole, generic, starts]
}

/// The longest pad the pooled messages of `g` decide, spending at most `credit` work steps
/// (counted in `work`). From the pad found so far, or else first from the challenge byte alone
/// (one key-string character at a time) and, when that grows too many candidates before the
/// first message end, from the command words ([`seeds`]). A pad that no longer fits the pooled
/// messages is forgotten. Without a pad, nothing is seeded unless the messages can decide a
/// byte ([`decidable`]): the search then found nothing.
fn extend(g: &mut PadPool, challenge: Option<u8>, credit: &mut u64, work: &mut u64) -> (Cand, End) {
    let start = keyed_from(g.to_server);
    g.msgs.sort_by_key(|m| m.body.len());
    let longest = g.longest();
    // The filters and the seeds are work too.
    let setup = (longest as u64 * 16 + g.msgs.len() as u64 * 16) / LOOKS_PER_STEP;
    *credit = credit.saturating_sub(setup);
    *work += setup;
    if g.pad.is_empty() && !decidable(g, start, challenge.is_some()) {
        return (Cand::default(), End::Done);
    }
    let mut s = Search {
        g: &*g,
        start,
        longest,
        votes: votes(g, start, longest),
        probe: State::default(),
    };
    let empty = Cand {
        pad: Vec::new(),
        seed: None,
        text: None,
    };
    if !s.g.pad.is_empty() {
        let known = Cand {
            pad: s.g.pad.clone(),
            seed: None,
            text: None,
        };
        let (found, end) = s.run(vec![known], credit, work);
        if end == End::Dead {
            g.pad.clear();
            return (empty, end);
        }
        return (found, end);
    }
    // From whole command words (cheap: they do not grow), then growing from the challenge
    // byte alone, then from the starts of command lines, until a run finds a pad or does not
    // end with too many candidates.
    // Writing the seeds out is work as well: a step per 16 bytes of each.
    let words = if s.g.to_server {
        SERVER_WORDS.len()
    } else {
        CLIENT_WORDS.len()
    };
    let bytes = if challenge.is_some() { 1 } else { 256 };
    let seeding = (bytes * words * 6) as u64 * (1 + SEED_PAD.min(longest) as u64 / 16);
    let Some(left) = credit.checked_sub(seeding) else {
        return (empty, End::Spent);
    };
    *credit = left;
    *work += seeding;
    let mut out = (empty, End::Done);
    for (k, beam) in seeds(s.g.to_server, challenge, longest)
        .into_iter()
        .enumerate()
    {
        out = s.run(beam, credit, work);
        let (found, end) = &out;
        let go_on = found.pad.is_empty()
            && match k {
                0 => *end != End::Spent,
                _ => *end == End::Overflow,
            };
        if !go_on {
            break;
        }
    }
    out
}

/// Whether the pooled messages of `g` can decide pad bytes that are worth writing
/// the seeds out for: evidence before spending, with no trial parse. A search from no pad
/// extends it only to a byte where at least two pooled messages end (`Search::run`), so
/// without one it cannot find anything. Without the challenge byte the seeds are 256 times as
/// many (about 130,000 steps to write out) and two messages ending at one byte reject nearly
/// none of them (both may end on a byte boundary, which no pad byte fails), so a byte where at
/// least three end, a message-end filter ([`votes`]), is required. On the wild captures every
/// search that found a pad without the challenge byte had one (76 of the 406 made without
/// it), and they decode the same with this test as without; random bodies of 8
/// to 207 bytes seldom do (27 messages: about 6 %), so their groups are given up for the
/// filters' cost alone.
fn decidable(g: &PadPool, start: usize, cb: bool) -> bool {
    let need = if cb { 2 } else { FILTER_ENDERS };
    enders_at(&g.msgs, start, g.longest())
        .iter()
        .any(|&t| t >= need)
}

/// How a search run ended.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum End {
    /// Every byte the messages reach was looked at.
    Done,
    /// No candidate fits the messages.
    Dead,
    /// Too many candidates.
    Overflow,
    /// The credit is spent.
    Spent,
}

/// One group's search: its messages, where keying starts, the message ends' filters and a
/// scratch state for trial parses.
struct Search<'g> {
    g: &'g PadPool,
    start: usize,
    longest: usize,
    votes: Vec<Option<[bool; 256]>>,
    probe: State,
}

impl Search<'_> {
    /// Grows `beam` byte by byte; returns what every survivor agrees on, up to the last byte
    /// where at least two messages ended (every byte before it then passed their full parses).
    fn run(&mut self, mut beam: Vec<Cand>, credit: &mut u64, work: &mut u64) -> (Cand, End) {
        let g = self.g;
        let mut found = Cand {
            pad: g.pad.clone(),
            seed: None,
            text: None,
        };
        let mut w = Work {
            probe: &mut self.probe,
            to_server: g.to_server,
            start: self.start,
            scratch: Vec::new(),
        };
        for n in g.pad.len()..self.longest {
            let (enders, longer) = ending_at(&g.msgs, self.start, n + 1);
            let checks = Checks {
                n,
                enders: &enders,
                longer: if g.to_server { &[] } else { &longer },
                mask: self.votes[n].as_ref(),
                next: self.votes.get(n + 1).and_then(Option::as_ref),
            };
            // A seeded byte that nothing checks is passed over (nothing could reject it).
            let checked = !checks.enders.is_empty() || !checks.longer.is_empty();
            if !checked && beam.iter().all(|c| c.pad.len() > n) {
                continue;
            }
            let next = match step(std::mem::take(&mut beam), &checks, &mut w, credit, work) {
                Ok(next) => next,
                Err(end) => return (found, end),
            };
            if next.is_empty() {
                return (found, End::Dead);
            }
            beam = next;
            let common = common_prefix(beam.iter().map(|c| &c.pad[..])).min(n + 1);
            if enders.len() >= 2 && common > found.pad.len() {
                // The challenge byte is known when every survivor grew from the same one.
                let seed = beam[0]
                    .seed
                    .filter(|&c| beam.iter().all(|b| b.seed == Some(c)));
                // And the key string when they all are one whole string, checked through its
                // end and its first character again.
                let text = (beam[0].text.as_ref())
                    .filter(|t| seed.is_some() && common > t.len())
                    .filter(|t| beam.iter().all(|b| b.text.as_ref() == Some(t)))
                    .cloned();
                found = Cand {
                    pad: beam[0].pad[..common].to_vec(),
                    seed,
                    text,
                };
            }
        }
        (found, End::Done)
    }
}

/// The pooled messages (up to [`ENDERS`]) whose keyed part is `len` bytes long, and up to
/// [`LONGER`] longer ones.
fn ending_at(msgs: &[Pooled], start: usize, len: usize) -> (Vec<&Pooled>, Vec<&Pooled>) {
    let at = |m: &&Pooled| m.keyed_len(start);
    let enders = msgs.iter().filter(|m| at(m) == len).take(ENDERS).collect();
    let longer = msgs.iter().filter(|m| at(m) > len).take(LONGER).collect();
    (enders, longer)
}

/// What one search step checks a candidate byte at keyed position `n` against.
struct Checks<'a> {
    n: usize,
    /// Messages ending at this byte: each must parse cleanly to its last byte.
    enders: &'a [&'a Pooled],
    /// Longer server messages, cut after this byte, which must read on without an error (a
    /// client message's grammar, its keyed usercmd values, hardly checks a cut).
    longer: &'a [&'a Pooled],
    /// The message ends' filter for this byte and the next.
    mask: Option<&'a [bool; 256]>,
    next: Option<&'a [bool; 256]>,
}

impl Checks<'_> {
    /// Whether byte `z` at this position can lead to a byte the next position's filter passes.
    fn leads_on(&self, z: u8) -> bool {
        let Some(next) = self.next else {
            return true;
        };
        let shift = (self.n + 1) & 1;
        key_chars().any(|c| next[(z ^ (c << shift)) as usize])
    }
}

/// The characters a key string byte may give: 1…127 but `%` (the transform writes `.` for `%`
/// and for bytes over 127), and 0 for the empty string.
fn key_chars() -> impl Iterator<Item = u8> + Clone {
    (0u8..=127).filter(|&c| c != b'%')
}

/// Grows (or checks) every candidate of `beam` by byte `n`; an error when the credit is spent
/// or the candidates grow too many.
fn step(
    beam: Vec<Cand>,
    c: &Checks<'_>,
    w: &mut Work<'_>,
    credit: &mut u64,
    work: &mut u64,
) -> Result<Vec<Cand>, End> {
    let n = c.n;
    let mut next: Vec<Cand> = Vec::new();
    let cost = TRIAL * (c.enders.len() + c.longer.len()) as u64;
    for cand in beam {
        let seeded = cand.pad.len() > n;
        let opts: Vec<u8> = if seeded {
            vec![cand.pad[n]]
        } else {
            options(&cand, n)
        };
        let looks = 1 + opts.len() as u64 / LOOKS_PER_STEP;
        *credit = credit.checked_sub(looks).ok_or(End::Spent)?;
        *work += looks;
        let mut passed = Vec::new();
        for z in opts {
            if c.mask.is_some_and(|m| !m[z as usize]) {
                continue;
            }
            if c.enders.is_empty() && !c.leads_on(z) {
                continue;
            }
            if cost > 0 {
                *credit = credit.checked_sub(cost).ok_or(End::Spent)?;
                *work += cost;
                if !w.fits(&cand.pad[..n], z, c.enders, c.longer) {
                    continue;
                }
            }
            passed.push(z);
        }
        // A grown candidate is a copy of its bytes, later sorted and merged.
        let copy = KEEP + cand.pad.len() as u64 / 4;
        *credit = credit
            .checked_sub(copy * passed.len() as u64)
            .ok_or(End::Spent)?;
        *work += copy * passed.len() as u64;
        if seeded {
            if !passed.is_empty() {
                next.push(cand);
            }
        } else {
            for z in passed {
                let mut grown = cand.clone();
                grown.pad.push(z);
                next.push(grown);
            }
        }
        if next.len() > BEAM {
            return Err(End::Overflow);
        }
    }
    Ok(merge(next))
}

/// The byte values position `n` may take after `cand`'s pad: the previous byte XOR a key
/// character (shifted left on odd bytes); the first byte is the challenge byte XOR a
/// character, or any byte when the challenge byte is not known.
fn options(cand: &Cand, n: usize) -> Vec<u8> {
    let prev = match (cand.pad.last(), cand.seed) {
        (Some(&prev), _) => prev,
        (None, Some(cb)) => cb,
        (None, None) => return (0..=255).collect(),
    };
    let shift = n & 1;
    // The empty string gives 0 at every byte, any other string never: after the first step
    // the rest follow its kind.
    let empty = match cand.pad.len() {
        0 | 1 => None,
        k => Some(cand.pad[k - 1] == cand.pad[k - 2]),
    };
    key_chars()
        .filter(|&c| empty.is_none_or(|e| e == (c == 0)))
        .map(|c| prev ^ (c << shift))
        .collect()
}

/// Sorts the candidates and merges those with the same bytes (their seeds agreeing or not).
fn merge(mut next: Vec<Cand>) -> Vec<Cand> {
    next.sort_unstable();
    let mut out: Vec<Cand> = Vec::with_capacity(next.len());
    for c in next {
        match out.last_mut() {
            Some(last) if last.pad == c.pad => {
                if last.seed != c.seed {
                    last.seed = None;
                }
                if last.text != c.text {
                    last.text = None;
                }
            }
            _ => out.push(c),
        }
    }
    out
}

/// The group of (`to_server`, `ack`) among `groups` (for a caller that holds the credit too).
fn group_mut(groups: &mut [PadPool], (to_server, ack): (bool, u32)) -> Option<&mut PadPool> {
    (groups.iter_mut()).find(|g| g.to_server == to_server && g.ack == ack)
}

/// How many leading bytes the pads all share (0 for none).
fn common_prefix<'a>(mut pads: impl Iterator<Item = &'a [u8]>) -> usize {
    let Some(first) = pads.next() else { return 0 };
    pads.fold(first.len(), |n, p| {
        n.min(first.iter().zip(p).take_while(|(x, y)| x == y).count())
    })
}

/// The trial parses of one search step.
struct Work<'p> {
    probe: &'p mut State,
    to_server: bool,
    start: usize,
    scratch: Vec<u8>,
}

impl Work<'_> {
    /// Whether pad `b` + `z` lets every ender parse cleanly and every longer message, cut
    /// after the new byte, read on without an error.
    fn fits(&mut self, b: &[u8], z: u8, enders: &[&Pooled], longer: &[&Pooled]) -> bool {
        let cut = self.start + b.len() + 1;
        let mut heads = Vec::new();
        for (m, want) in enders
            .iter()
            .map(|m| (m, Trial::Clean))
            .chain(longer.iter().map(|m| (m, Trial::Short)))
        {
            self.scratch.clear();
            self.scratch.extend_from_slice(&m.body[..cut]);
            apply(&mut self.scratch, self.start, m.base, b);
            self.scratch[cut - 1] ^= m.base ^ z;
            self.probe.seen_head = None;
            let got = trial(self.probe, self.to_server, &self.scratch, m.sequence);
            // A longer message one byte past the cut may end right at it, its last byte the
            // unwritten one.
            let boundary = got == Trial::Boundary && m.body.len() == cut + 1;
            if got != want && !(want == Trial::Short && boundary) {
                return false;
            }
            heads.extend(self.probe.seen_head.map(|h| (m.sequence, h)));
        }
        heads_agree(&mut heads)
    }
}

/// Whether the snapshot headers read from server messages keyed with one string agree: a
/// server time over 0 that grows with the sequence, by at most a second per message (the
/// server sends at most one snapshot per frame, ioquake3 code/server/sv_snapshot.c
/// `SV_SendClientMessages`, and `sv.time` grows by a frame's milliseconds), and a delta number
/// under 32 (`SV_WriteSnapshotToClient` deltas only from the last `PACKET_BACKUP - 3`
/// messages). Random bytes under a wrong pad give random times.
fn heads_agree(heads: &mut [(u32, super::SeenHead)]) -> bool {
    heads.sort_unstable_by_key(|h| h.0);
    if heads
        .iter()
        .any(|&(_, (t, hd))| t <= 0 || hd.is_some_and(|(d, _)| d >= 32))
    {
        return false;
    }
    heads.windows(2).all(|w| {
        let (s0, (t0, _)) = w[0];
        let (s1, (t1, _)) = w[1];
        let (ds, dt) = (s1.wrapping_sub(s0) as i64, t1 as i64 - t0 as i64);
        ds > 0 && dt > 0 && dt <= 1000 * ds
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A pad and the per-message value give the same bytes as the engine's transform with the
    /// full key (ioquake3 code/client/cl_net_chan.c `CL_Netchan_Encode` for S→C, start 4, and
    /// `SV_Netchan_Decode` for C→S, start 12).
    #[test]
    fn pad_and_base_equal_the_full_transform() {
        let body: Vec<u8> = (0..40u8).map(|i| i.wrapping_mul(37) ^ 0x5a).collect();
        let (challenge, text) = (0x069c_27eeu32, &b"cp \""[..]);
        for (start, per_message) in [(4usize, 0x1234u32), (12, 0x0bad_f00d)] {
            let mut engine = body.clone();
            let key = (challenge ^ per_message) as u8;
            super::super::netchan::xor(&mut engine, start, key, text);
            let mut ours = body.clone();
            let pad = pad_of(challenge as u8, text, start, body.len() - start);
            apply(&mut ours, start, per_message as u8, &pad);
            assert_eq!(engine, ours, "start {start}");
            // The pad's neighbours differ by one key-string character (shifted on odd bytes).
            assert_eq!(pad[1] ^ pad[0], b'p' << 1);
            assert_eq!(pad[2] ^ pad[1], b' ');
        }
    }

    /// How a message may end: the EOF operation's code in the last byte with zero bits above,
    /// or one more (unwritten) byte after a byte-aligned end.
    #[test]
    fn tails_follow_the_engine_length_rule() {
        let (code, len) = static_table().codes[Svc::EOF.0 as usize];
        // svc_EOF ends at bit 5 of a byte whose bits 0..5 are its code: a right last byte.
        assert_eq!(len, 5);
        assert!(tail_ok(code as u8, code, len));
        assert!(!tail_ok(code as u8 | 0x80, code, len));
        // Stale bits above the code make it a wrong last byte under every alignment.
        assert!(!tail_ok(0xff, code, len));
    }

    /// A string that repeats within the pad gives itself and the challenge byte; one that does
    /// not repeat twice gives nothing (ioquake3 code/server/sv_net_chan.c `SV_Netchan_Decode`:
    /// the key string restarts at its first character after its last).
    #[test]
    fn a_repeating_string_is_read_off_its_pad() {
        let pad = pad_of(0xee, b"cp \"", 12, 10);
        assert_eq!(read_string(&pad, None), Some((0xee, b"cp \"".to_vec())));
        assert_eq!(
            read_string(&pad, Some(0xee)),
            Some((0xee, b"cp \"".to_vec()))
        );
        assert_eq!(read_string(&pad, Some(0x12)), None);
        // Two repeats are needed before the period is trusted.
        assert_eq!(read_string(&pad[..9], None), None);
        let empty = pad_of(0x5a, b"", 12, 6);
        assert_eq!(read_string(&empty, None), Some((0x5a, Vec::new())));
        let long = pad_of(0x5a, b"print \"hello\\n\"", 12, 20);
        assert_eq!(read_string(&long, None), None);
        // A difference no character gives (odd bytes shift the character left).
        let mut bad = pad.clone();
        bad[1] ^= 1;
        assert_eq!(read_string(&bad, None), None);
    }

    /// A trial parse of a client message (is the pad found right for it?) leaves the flow's
    /// newest server time as it was: a message a pad fails on would give a time from garbage,
    /// and the first time known dates the groups for the `respawn N` screen.
    #[test]
    fn a_trial_parse_leaves_the_server_time() {
        let mut w = super::super::bits::tests::BitWriter::default();
        w.long(3); // serverId
        w.long(210); // messageAcknowledge
        w.long(2); // reliableAcknowledge
        w.byte(Clc::MOVE_NO_DELTA.0);
        w.byte(1); // one usercmd
        w.bits(0, 1); // its server time whole, not a delta
        w.bits(57_000, 32);
        w.bits(0, 1); // nothing else changed
        w.byte(Clc::EOF.0);
        let st = State::default();
        st.server_time.set(Some(55_350));
        trial_client(&st, &w.data);
        assert_eq!(st.server_time.get(), Some(55_350));
        // The same message decoded for real gives its time (the trial would have too).
        let mut t = TreeBuilder::new(false);
        let mut sum = Summary::default();
        let loc = Loc { source: 0, base: 0 };
        let (mut cmds, mut obs) = (Vec::new(), Vec::new());
        st.parse_client(
            &w.data,
            Some(b""),
            loc,
            &mut t,
            &mut sum,
            &mut cmds,
            &mut obs,
        );
        assert_eq!(st.server_time.get(), Some(57_000));
    }

    /// A server message carrying server command `seq` (`text`), as the server writes it.
    pub(super) fn command_message(seq: i64, text: &[u8]) -> Vec<u8> {
        let mut w = super::super::bits::tests::BitWriter::default();
        w.long(seq);
        w.byte(Svc::SERVER_COMMAND.0);
        w.long(seq);
        w.string(text);
        w.byte(Svc::EOF.0);
        // The sender's length is the written bits / 8 + 1 (msg.c `MSG_WriteBits`).
        if w.pos % 8 == 0 {
            w.data.push(0);
        }
        w.data
    }

    /// Pads with group (false, 7) pooling `msgs`, keyed with `text` under challenge byte `cb`.
    pub(super) fn pooled_server_group(cb: u8, text: &[u8], msgs: &[Vec<u8>]) -> Pads {
        let based: Vec<(Vec<u8>, u8)> = (msgs.iter().enumerate())
            .map(|(i, m)| (m.clone(), (i as u8).wrapping_mul(29)))
            .collect();
        pooled_group((false, 7), cb, text, &based)
    }

    /// Pads with group (`to_server`, `ack`) pooling `msgs` (plaintext, per-message value),
    /// keyed with `text` under challenge byte `cb`.
    pub(super) fn pooled_group(
        (to_server, ack): (bool, u32),
        cb: u8,
        text: &[u8],
        msgs: &[(Vec<u8>, u8)],
    ) -> Pads {
        let mut pads = Pads {
            credit: WORK_START,
            ..Pads::default()
        };
        let gi = pads.group(to_server, ack);
        let start = keyed_from(to_server);
        for (i, (body, base)) in msgs.iter().enumerate() {
            let mut keyed = body.clone();
            let pad = pad_of(cb, text, start, keyed.len() - start);
            apply(&mut keyed, start, *base, &pad);
            let g = &mut pads.groups[gi];
            g.msgs.push(Pooled {
                body: keyed,
                base: *base,
                sequence: 100 + i as u32,
            });
            g.added += 1;
        }
        pads
    }

    /// The start credit comes with the fourth pooled keyed message, sized by the
    /// conversations in the table then: whole up to `CROWD`, a quarter at twice as many.
    #[test]
    fn the_start_credit_comes_at_the_fourth_message_sized_by_the_conversations() {
        let credit_after = |conversations: usize| {
            let mut pads = Pads {
                conversations,
                ..Pads::default()
            };
            // Server messages are not searched without the challenge byte: nothing is spent.
            let mut credits = Vec::new();
            for k in 0..5u32 {
                pads.offer(false, (3, 0, 10 + k), &[0x55; 40], None);
                credits.push(pads.credit);
            }
            credits
        };
        let m = WORK_PER_MESSAGE;
        assert_eq!(
            credit_after(CROWD as usize - 1),
            [m, 2 * m, 3 * m, WORK_START + 4 * m, WORK_START + 5 * m]
        );
        let crowded = credit_after(2 * CROWD as usize - 1);
        assert_eq!(crowded[3], WORK_START / 4 + 4 * m);
    }

    /// The busy OpenArena capture cut at 70 %: the flow's first server time, 58,658, is known
    /// when the newest server message is sequence 2685; the client messages keyed with
    /// `respawn 57058` (a death at server time 55,350) were first pooled when it was 2618.
    /// The server sends 20 messages a second (its snapshots: sequence 2702 has server time
    /// 59,550, 2402 has 44,550), so the group is dated 67 × 50 ms back, 55,308 ± 1,675, and
    /// its window holds the number. Groups dated too far back, or ahead, are not.
    #[test]
    fn a_group_is_dated_back_from_the_first_server_time_by_its_sequence() {
        let dated = extrapolated(58_658, 2685, 2618);
        assert_eq!(dated, Some((55_308, 1_675)));
        assert!(numbered::respawn_times(dated).any(|n| n == 57_058));
        // Undated, the window is the 2 s either side of the time: 55,308 is 1,750 ms short.
        assert!(!numbered::respawn_times(Some((58_658, 0))).any(|n| n == 57_058));
        assert_eq!(extrapolated(58_658, 2685, 2685), Some((58_658, 50)));
        assert_eq!(
            extrapolated(58_658, 2685, 2685 - 1200),
            Some((-1_342, 6_000))
        );
        assert_eq!(extrapolated(58_658, 2685, 2685 - 1201), None);
        assert_eq!(extrapolated(58_658, 2685, 2686), None);
        // Sequences wrap; times read off the wire may be anything.
        assert_eq!(extrapolated(1_000, 3, u32::MAX), Some((800, 100)));
        assert_eq!(extrapolated(i32::MIN, 10, 0), None);
    }

    /// A group given up and then forgotten for newer ones stays given up when its messages
    /// come back; one forgotten before it was given up starts over.
    #[test]
    fn a_given_up_group_stays_given_up_after_it_is_forgotten() {
        let mut pads = Pads::default();
        let gi = pads.group(true, 7);
        pads.groups[gi].failed = GIVE_UP;
        pads.group(true, 8);
        assert!(!pads.live(true, 7));
        for ack in 100..100 + GROUPS as u32 {
            pads.group(false, ack);
        }
        assert!(!pads.pooled(true, 7) && !pads.pooled(true, 8));
        pads.group(true, 7);
        pads.group(true, 8);
        assert!(!pads.live(true, 7));
        assert!(pads.live(true, 8));
    }

    /// A predicted beginning is taken only as far as the pooled messages checked it: "Player"
    /// and "Player2" de-key messages that end before the names part identically, and the
    /// first to fit must not give the bytes after them (ioquake3 code/server/sv_net_chan.c
    /// `SV_Netchan_Encode` keys each byte with the string's character at its place).
    #[test]
    fn a_predicted_beginning_gives_only_the_checked_bytes() {
        let cb = 0x3c;
        let truth = super::super::userinfo::predicted(b"Player2");
        let texts = [
            b"cp \"a\"".to_vec(),
            b"cp \"ab\"".to_vec(),
            b"cp \"abc\"".to_vec(),
        ];
        let msgs: Vec<Vec<u8>> = (0..8)
            .map(|i| command_message(i as i64 + 1, &texts[i % 3]))
            .collect();
        let longest = msgs.iter().map(|m| m.len() - 4).max().unwrap();
        assert!(longest < 16 + 6, "the messages end before the names part");
        let tries = [super::super::userinfo::predicted(b"Player"), truth.clone()];
        let mut pads = pooled_server_group(cb, &truth, &msgs);
        assert!(pads.try_prefixes((false, 7), &tries, cb));
        let pad = &pads.groups[0].pad;
        assert_eq!(pad.len(), longest);
        assert_eq!(pad[..], pad_of(cb, &truth, 4, longest)[..]);
        assert_eq!(pads.take_harvest().len(), 8);
    }
}
