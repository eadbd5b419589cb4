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
//! bytes), and a candidate is kept only while every pooled message that ends at that byte
//! parses to `svc_EOF` / `clc_EOF` exactly in its last byte with zero padding bits, and a few
//! longer ones, cut there, read on without an error until the cut. A candidate's text is also
//! tried as the whole key string (the engine repeats it), which gives the whole pad at once;
//! server pads also grow where no message ends, on the cut messages' snapshot clocks
//! (`Clock`). Messages are never decoded with a pad that has not passed a full parse of the
//! message itself.

use super::State;
use super::constants::{Clc, MAX_AREA_BYTES, Svc};
use super::delta::PS_FIELDS;
use super::huffman::static_table;
use super::msg::{BitReader, Loc, R};
use super::notes;
use super::server::Summary;
use crate::tree::{Severity, TreeBuilder};

/// Messages pooled per group (direction and acknowledged command number).
pub const POOL: usize = 96;
/// Groups kept per flow (the oldest is forgotten).
pub const GROUPS: usize = 8;
/// The longest keyed part a pad is searched for (MAX_PACKETLEN − headers).
pub const MAX_PAD: usize = 1400;
/// Candidate pads kept per byte position; more means the messages do not decide yet.
const BEAM: usize = 4096;
/// How far a seed that repeats one command word is written out (then it grows as any other).
const SEED_PAD: usize = 64;
/// Work steps credited to the flow per pooled message, and the most it may save up. A step is
/// one candidate byte looked at; a trial parse costs [`TRIAL`] steps, a seed its length / 16.
const WORK_PER_MESSAGE: u64 = 1024;
const WORK_SAVED: u64 = 1 << 18;
/// The same for server messages, whose pads have ten or more bytes before the first message
/// end to grow through on the cut messages' clocks alone ([`Clock`]); credited to the server
/// pads only (a server sends 20 messages a second at the default sv_fps, a client up to 125).
const WORK_PER_SERVER_MESSAGE: u64 = 8192;
const WORK_SAVED_SERVER: u64 = 1 << 20;
const TRIAL: u64 = 16;
/// Candidate bytes looked up in the tail masks per step (a table lookup, against a trial
/// parse's thousands of instructions).
const LOOKS_PER_STEP: u64 = 16;
/// Growing candidates a step may grow by pairs of bytes.
const PAIR_BEAM: usize = 256;
/// Ending messages and cut longer messages tried per candidate byte.
const ENDERS: usize = 6;
const LONGER: usize = 3;
/// Cut longer messages tried per candidate byte of a server pad: their clocks ([`Clock`]) are
/// compared, so more of them decide more.
const LONGER_SERVER: usize = 12;
/// Growing candidates a server pad's step may grow on the cut messages and clocks alone (no
/// message ending at the byte): beyond, the search stops there.
const CLOCK_BEAM: usize = 1024;
/// Candidates whose text is tried as the whole key string after each step, at most.
const WRAP_BEAM: usize = 16;

/// How a trial parse went.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Trial {
    /// Ended at the EOF operation in the last byte, the padding bits zero.
    Clean,
    /// Read past the end without a grammar error (a cut message under a right pad).
    Short,
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
    let end = st.parse_client(body, Some(b""), loc, &mut t, &mut sum, &mut cmds, &mut obs);
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
}

/// The messages keyed with one (unknown) string, and the pad found so far.
struct Group {
    to_server: bool,
    ack: u32,
    msgs: Vec<Pooled>,
    pad: Vec<u8>,
    /// Pool size at the last search (searched again when it doubles).
    searched_at: usize,
    /// Messages pooled so far (the pool keeps the newest [`POOL`]).
    added: usize,
    /// How many pooled messages the pad was found from.
    from: usize,
}

/// The per-flow recovery state.
#[derive(Default)]
pub struct Pads {
    groups: Vec<Group>,
    /// Work credit per direction (server pads, client pads).
    credit: [u64; 2],
    /// Trial parses spent so far (counted work, for the hostile tests and `stats`).
    pub work: u64,
    /// Whether the challenge byte has been found from a pad and a captured command.
    pub challenge: Option<u8>,
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
            .sum()
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
            self.groups.remove(0);
        }
        self.groups.push(Group {
            to_server,
            ack,
            msgs: Vec::new(),
            pad: Vec::new(),
            searched_at: 0,
            added: 0,
            from: 0,
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
                // The shortest (kept first by the search) fixed bytes the pad already has.
                g.msgs.remove(0);
            }
            g.msgs.push(Pooled {
                body: body.to_vec(),
                base,
                sequence,
            });
            g.added += 1;
            let (per, most) = if to_server {
                (WORK_PER_MESSAGE, WORK_SAVED)
            } else {
                (WORK_PER_SERVER_MESSAGE, WORK_SAVED_SERVER)
            };
            let credit = &mut self.credit[usize::from(to_server)];
            *credit = (*credit + per).min(most);
            // Searched at 4 messages and each time their number doubles.
            let n = g.added;
            // A server message's pad is searched for only with the challenge byte known (from
            // a client message's pad, whose messages end after a few keyed bytes): before it,
            // 256 times the seeds would grow through the ten or more bytes before the first
            // message end, spending the flow's credit for nothing.
            let ready = to_server || challenge.or(self.challenge).is_some();
            if n >= 4 && n >= 2 * g.searched_at && ready {
                g.searched_at = n;
                self.search(gi, challenge);
            }
        }
        let g = &self.groups[gi];
        (g.pad.len() >= need).then(|| Found {
            pad: &g.pad[..need],
            from: g.from,
        })
    }

    /// Extends group `gi`'s pad as far as its pooled messages decide it.
    fn search(&mut self, gi: usize, challenge: Option<u8>) {
        let cb = challenge.or(self.challenge);
        let Pads {
            groups,
            credit,
            work,
            ..
        } = self;
        let g = &mut groups[gi];
        let credit = &mut credit[usize::from(g.to_server)];
        let (found, seed) = extend(g, cb, credit, work);
        if found.len() > g.pad.len() {
            g.pad = found;
            g.from = g.added;
            // Pad bytes that only one challenge byte explains.
            if g.pad.len() >= 3 && self.challenge.is_none() && cb.is_none() {
                self.challenge = seed;
            }
        }
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

/// Whether byte `p` can be the last byte of a message that ends inside it: the EOF
/// operation's code (bit `k` of `code` is its `k`-th bit) ends in it, and the bits above are
/// zero. (A message whose EOF ends a byte carries one more, unwritten byte: see [`classify`].)
fn tail_ok(p: u8, code: u32, len: u32) -> bool {
    (1..=7u32).any(|e| {
        let above = if e < 8 { p >> e } else { 0 };
        let m = len.min(e);
        let mask = (1u32 << m) - 1;
        above == 0 && (p as u32 >> (e - m)) & mask == (code >> (len - m)) & mask
    })
}

/// Per keyed byte position, the pad bytes worth a trial parse: those under which most pooled
/// messages ending there end inside their last byte with the EOF operation ([`tail_ok`]).
/// About one message in eight ends on a byte boundary and carries an unwritten byte, so this
/// only orders the work: a pad is taken on full parses alone. `None` where no message ends.
fn tail_masks(g: &Group, start: usize, longest: usize) -> Vec<Option<[bool; 256]>> {
    let eof = if g.to_server { Clc::EOF.0 } else { Svc::EOF.0 };
    let (code, len) = static_table().codes[eof as usize];
    let mut counts = vec![None; longest];
    for m in &g.msgs {
        let Some(n) = m.keyed_len(start).checked_sub(1) else {
            continue;
        };
        let last = m.body[m.body.len() - 1] ^ m.base;
        let (total, fits) = counts[n].get_or_insert((0u32, [0u32; 256]));
        *total += 1;
        for (z, f) in fits.iter_mut().enumerate() {
            *f += tail_ok(last ^ z as u8, code, len) as u32;
        }
    }
    counts
        .into_iter()
        .map(|c| {
            let (total, fits) = c?;
            // At least five in eight of them, once there are three.
            let need = if total < 3 {
                1
            } else {
                (total * 5).div_ceil(8)
            };
            Some(fits.map(|f| f >= need))
        })
        .collect()
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
/// Server commands whose argument is a configstring index (0…1023) and a quoted value.
const INDEXED_WORDS: &[&[u8]] = &[b"cs", b"bcs0", b"bcs1", b"bcs2"];
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

/// The first candidate pads: each challenge byte (or the one known) with each command word,
/// alone (the string then repeats, so the whole pad follows), followed by a space, or by a
/// space and a quote, and the empty string. Once the challenge byte is known, a configstring
/// command also with each index (`cs 5 "`).
fn seeds(to_server: bool, challenge: Option<u8>, longest: usize) -> Vec<Cand> {
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
    let mut texts: Vec<Vec<u8>> = Vec::new();
    for w in words {
        texts.push(w.to_vec());
        texts.push([w, &b" "[..]].concat());
        texts.push([w, &b" \""[..]].concat());
    }
    if to_server && challenge.is_some() {
        for w in INDEXED_WORDS {
            for i in 0..1024 {
                texts.push(format!("{} {i} \"", String::from_utf8_lossy(w)).into_bytes());
            }
        }
    }
    let mut out = Vec::new();
    for &cb in &bytes {
        let seed = Some(cb);
        out.push((pad_of(cb, b"", start, longest.min(SEED_PAD)), seed));
        for (k, t) in texts.iter().enumerate() {
            // A word alone repeats; a longer start is known only as far as it goes.
            let len = if k % 3 == 0 && k < 3 * words.len() {
                SEED_PAD
            } else {
                t.len()
            };
            out.push((pad_of(cb, t, start, len.min(longest)), seed));
        }
    }
    out
}

/// A candidate pad, with the challenge byte of the seed it grew from.
type Cand = (Vec<u8>, Option<u8>);

/// The longest pad the pooled messages of `g` decide, spending at most `credit` trial parses
/// (counted in `work`): candidates start from [`seeds`] (or the pad found so far), grow one
/// key-string character at a time, and are kept while the messages that end at each byte
/// parse cleanly; what every survivor agrees on is the pad.
fn extend(g: &mut Group, challenge: Option<u8>, credit: &mut u64, work: &mut u64) -> Cand {
    let mut probe = State::default();
    let start = keyed_from(g.to_server);
    g.msgs.sort_by_key(|m| m.body.len());
    let longest = g.msgs.last().map_or(0, |m| m.keyed_len(start));
    let tails = tail_masks(g, start, longest);
    let mut beam = if g.pad.is_empty() {
        let words = if g.to_server {
            SERVER_WORDS
        } else {
            CLIENT_WORDS
        };
        let (bytes, texts) = match challenge {
            Some(_) if g.to_server => (1, 3 * words.len() + 4 * 1024 + 1),
            Some(_) => (1, 3 * words.len() + 1),
            None => (256, 3 * words.len() + 1),
        };
        let cost = (bytes * texts) as u64 * (1 + longest.min(SEED_PAD) as u64 / 16);
        if *credit < cost {
            return (Vec::new(), None);
        }
        *credit -= cost;
        *work += cost;
        seeds(g.to_server, challenge, longest)
    } else {
        vec![(g.pad.clone(), None)]
    };
    let mut found = (g.pad.clone(), None);
    let mut decided_to = usize::MAX;
    let mut w = Work {
        probe: &mut probe,
        to_server: g.to_server,
        start,
        scratch: Vec::new(),
        clocks: Vec::new(),
        frames: frame_lengths(),
    };
    let witnesses = wrap_witnesses(&g.msgs);
    // A seed that repeats a command word is a whole key string: tried on whole messages first
    // (with the challenge byte known: 256 of each would spend the credit on trials).
    let known = if challenge.is_some() { beam.len() } else { 0 };
    let words: Vec<&Cand> = beam[..known]
        .iter()
        .filter(|c| c.0.len() >= SEED_PAD.min(longest))
        .collect();
    if let Some(whole) = wrapped(&words, &witnesses, challenge, &mut w, (credit, work)) {
        return whole;
    }
    for (n, tail) in tails.iter().enumerate().skip(g.pad.len()) {
        let (enders, longer) = ending_at(&g.msgs, start, n + 1);
        let (after, after_longer) = ending_at(&g.msgs, start, n + 2);
        let then = tails.get(n + 1).and_then(Option::as_ref).map(|t| Next {
            enders: &after,
            longer: &after_longer,
            tail: t,
        });
        let checks = Checks {
            n,
            enders: &enders,
            longer: &longer,
            tail: tail.as_ref(),
            challenge,
            clocked: !g.to_server,
            then,
        };
        let Some((next, complete)) = step(std::mem::take(&mut beam), &checks, &mut w, credit, work)
        else {
            return found;
        };
        if next.is_empty() {
            break;
        }
        beam = next;
        if beam.len() <= WRAP_BEAM {
            let all: Vec<&Cand> = beam.iter().collect();
            if let Some(whole) = wrapped(&all, &witnesses, challenge, &mut w, (credit, work)) {
                return whole;
            }
        }
        // Candidates left ungrown for want of evidence may hold the pad: nothing from this
        // byte on is decided.
        decided_to = decided_to.min(if complete { usize::MAX } else { n });
        let common = common_prefix(&beam).min(n + 1).min(decided_to);
        if common > found.0.len() {
            // The challenge byte is known when every survivor grew from the same one.
            let cb = beam[0].1.filter(|&c| beam.iter().all(|b| b.1 == Some(c)));
            found = (beam[0].0[..common].to_vec(), cb);
        }
    }
    found
}

/// The messages a whole key string is tried on: the shortest, the longest and two between.
fn wrap_witnesses(msgs: &[Pooled]) -> Vec<&Pooled> {
    let n = msgs.len();
    let mut at: Vec<usize> = [0, n / 3, 2 * n / 3, n.saturating_sub(1)].into();
    at.dedup();
    at.into_iter().filter_map(|i| msgs.get(i)).collect()
}

/// The key string a pad spells from its challenge byte (`Z_0 ^ S[0]`, then `Z_i ^ Z_(i-1) =
/// S[i]` shifted on odd bytes), cut to its shortest period: the text, were the string to end
/// (and repeat) there. `None` when a byte is no key-string character.
fn text_of(pad: &[u8], challenge: u8, start: usize) -> Option<Vec<u8>> {
    let mut text = Vec::with_capacity(pad.len());
    let mut prev = challenge;
    for (i, &z) in pad.iter().enumerate() {
        let d = z ^ prev;
        let c = if (start + i) & 1 == 1 {
            if d & 1 != 0 {
                return None;
            }
            d >> 1
        } else {
            d
        };
        if c > 127 {
            return None;
        }
        text.push(c);
        prev = z;
    }
    let period = (1..=text.len())
        .find(|&p| (p..text.len()).all(|i| text[i] == text[i - p]))
        .unwrap_or(text.len());
    text.truncate(period);
    Some(text)
}

/// The first candidate whose text, taken as the whole key string, de-keys every witness
/// cleanly: its pad written out to the longest pooled message, with the challenge byte.
fn wrapped(
    beam: &[&Cand],
    witnesses: &[&Pooled],
    challenge: Option<u8>,
    w: &mut Work<'_>,
    (credit, work): (&mut u64, &mut u64),
) -> Option<Cand> {
    let longest = witnesses.last()?.keyed_len(w.start);
    let mut tried: Vec<(u8, Vec<u8>)> = Vec::new();
    for (pad, seed) in beam {
        let cb = seed.or(challenge)?;
        let Some(text) = text_of(pad, cb, w.start) else {
            continue;
        };
        // Text shorter than a command word says nothing yet; an empty string is a seed.
        let key = (cb, text);
        if key.1.len() < 2 || tried.contains(&key) {
            continue;
        }
        let (cb, text) = &key;
        let cb = *cb;
        if *credit < TRIAL * witnesses.len() as u64 {
            return None;
        }
        let whole = pad_of(cb, text, w.start, longest);
        let mut ran = 0;
        let ok = witnesses.iter().all(|m| {
            ran += 1;
            w.whole(m, &whole)
        });
        *credit -= TRIAL * ran;
        *work += TRIAL * ran;
        if ok {
            return Some((whole, Some(cb)));
        }
        tried.push(key);
    }
    None
}

/// The pooled messages (up to [`ENDERS`]) whose keyed part is `len` bytes long, and up to
/// [`LONGER`] ([`LONGER_SERVER`] for a server pad) longer ones. A message one byte longer is
/// not cut there: its EOF may end exactly at the cut (its last byte unwritten, see
/// [`classify`]), which reads as an ending, not as a message that goes on.
fn ending_at(msgs: &[Pooled], start: usize, len: usize) -> (Vec<&Pooled>, Vec<&Pooled>) {
    let at = |m: &&Pooled| m.keyed_len(start);
    let most = if start == keyed_from(false) {
        LONGER_SERVER
    } else {
        LONGER
    };
    let enders = msgs.iter().filter(|m| at(m) == len).take(ENDERS).collect();
    let longer = msgs.iter().filter(|m| at(m) > len + 1).take(most).collect();
    (enders, longer)
}

/// What one search step checks a candidate byte at keyed position `n` against.
struct Checks<'a> {
    n: usize,
    enders: &'a [&'a Pooled],
    longer: &'a [&'a Pooled],
    tail: Option<&'a [bool; 256]>,
    challenge: Option<u8>,
    /// A server pad: candidates grow on cut messages and their clocks where no message ends.
    clocked: bool,
    /// The next byte's checks, when messages end there: a byte no message ends at is then
    /// grown together with the next one (checked by the messages ending there), rather than
    /// on the weak evidence of cut messages alone.
    then: Option<Next<'a>>,
}

/// The checks of the byte after a step's: the messages ending there, longer ones and the mask.
#[derive(Clone, Copy)]
struct Next<'a> {
    enders: &'a [&'a Pooled],
    longer: &'a [&'a Pooled],
    tail: &'a [bool; 256],
}

/// Grows (or checks) every candidate of `beam` by byte `n`, returning the survivors and
/// whether every growing candidate was tried (false: some were left ungrown for want of
/// evidence); `None` when the credit is spent or too many candidates grow. Candidates that
/// agree on their first `n + 1` bytes (seeds of one challenge byte and command words sharing a
/// start) are checked once: the beam is sorted, and the last check's outcome reused while the
/// prefix repeats.
fn step(
    mut beam: Vec<Cand>,
    c: &Checks<'_>,
    w: &mut Work<'_>,
    credit: &mut u64,
    work: &mut u64,
) -> Option<(Vec<Cand>, bool)> {
    let n = c.n;
    // A seeded byte with no message ending at it has nothing to be checked against (but the
    // cut messages' clocks, for a server pad).
    if c.enders.is_empty() && !c.clocked && beam.iter().all(|(b, _)| b.len() > n) {
        return Some((beam, true));
    }
    beam.sort_unstable();
    beam.dedup();
    // Pairs cost up to 127 × 127 lookups per growing candidate: with many of them, only the
    // seeded ones go on.
    let growing = beam.iter().filter(|(b, _)| b.len() <= n).count();
    let pairs_ok = growing <= PAIR_BEAM;
    // A server pad's candidates grow on the cut messages and their clocks, while few.
    let clock_ok = c.clocked && growing <= CLOCK_BEAM;
    let mut complete = true;
    let mut next = Vec::new();
    let mut grown = 0;
    // The last prefix checked (its first `n` bytes, and byte `n` when seeded) and the bytes
    // that passed after it (one, or two when grown in pairs).
    let mut memo: Option<(Vec<u8>, Vec<Vec<u8>>)> = None;
    let mut looked = 0u64;
    for (b, seed) in beam {
        let grow = b.len() <= n;
        let key = &b[..(n + usize::from(!grow)).min(b.len())];
        let by_pairs = grow && c.enders.is_empty() && c.then.is_some() && pairs_ok;
        let passed = match &memo {
            Some((k, passed)) if k[..] == *key => passed.clone(),
            // Cut messages alone hardly decide a byte: a candidate grows only where messages
            // end at this byte or the next (or, for a server pad, on the clocks too).
            _ if grow && c.enders.is_empty() && !by_pairs && !clock_ok => {
                complete = false;
                Vec::new()
            }
            _ if by_pairs => {
                let then = c.then?;
                let passed = pairs(&b, c, then, w, (credit, work), &mut looked)?;
                memo = Some((key.to_vec(), passed.clone()));
                passed
            }
            _ => {
                let passed = singles(&b, grow, c, w, (credit, work), &mut looked)?;
                memo = Some((key.to_vec(), passed.clone()));
                passed
            }
        };
        if !grow {
            if !passed.is_empty() {
                next.push((b, seed));
            }
            continue;
        }
        for z in passed {
            let mut p = b.clone();
            p.extend_from_slice(&z);
            grown += 1;
            next.push((p, seed));
        }
        if grown > BEAM {
            return None;
        }
    }
    Some((next, complete))
}

/// The bytes `n` after `b` (its own byte `n` when seeded) under which the messages ending at
/// `n` parse cleanly and the longer ones, cut there, read on (`None`: the credit is spent).
fn singles(
    b: &[u8],
    grow: bool,
    c: &Checks<'_>,
    w: &mut Work<'_>,
    (credit, work): (&mut u64, &mut u64),
    looked: &mut u64,
) -> Option<Vec<Vec<u8>>> {
    let n = c.n;
    let opts = if grow {
        candidates(b, w.start, c.challenge)
    } else {
        vec![b[n]]
    };
    // Growing needs the cut longer messages; a seeded byte only its enders (and, for a server
    // pad, the cut messages' clocks).
    let longer = if grow || c.clocked { c.longer } else { &[][..] };
    let cost = 1 + TRIAL * (c.enders.len() + longer.len()) as u64;
    let mut passed = Vec::new();
    for z in opts {
        if *credit < cost {
            return None;
        }
        *looked += 1;
        if looked.is_multiple_of(LOOKS_PER_STEP) {
            *credit -= 1;
            *work += 1;
        }
        if c.tail.is_some_and(|t| !t[z as usize]) {
            continue;
        }
        // Charged the trial parses actually run (a check stops at the first failure).
        let (ok, steps) = w.fits(&b[..n], z, c.enders, longer);
        *credit = credit.saturating_sub(steps);
        *work += steps;
        if ok {
            passed.push(vec![z]);
        }
    }
    Some(passed)
}

/// The pairs of bytes `n`, `n + 1` after `b` under which the messages ending at `n + 1` parse
/// cleanly and the longer ones, cut there, read on (`None`: the credit is spent).
fn pairs(
    b: &[u8],
    c: &Checks<'_>,
    then: Next<'_>,
    w: &mut Work<'_>,
    (credit, work): (&mut u64, &mut u64),
    looked: &mut u64,
) -> Option<Vec<Vec<u8>>> {
    let cost = 1 + TRIAL * (then.enders.len() + then.longer.len()) as u64;
    let mut passed = Vec::new();
    let mut prefix = b.to_vec();
    for z1 in candidates(b, w.start, c.challenge) {
        prefix.push(z1);
        for z2 in candidates(&prefix, w.start, c.challenge) {
            if *credit < cost {
                return None;
            }
            *looked += 1;
            if looked.is_multiple_of(LOOKS_PER_STEP) {
                *credit -= 1;
                *work += 1;
            }
            if !then.tail[z2 as usize] {
                continue;
            }
            let (ok, steps) = w.fits(&prefix, z2, then.enders, then.longer);
            *credit = credit.saturating_sub(steps);
            *work += steps;
            if ok {
                passed.push(vec![z1, z2]);
            }
        }
        prefix.pop();
    }
    Some(passed)
}

fn common_prefix(beam: &[Cand]) -> usize {
    let first = &beam[0].0;
    beam[1..].iter().fold(first.len(), |n, (b, _)| {
        n.min(first.iter().zip(b).take_while(|(x, y)| x == y).count())
    })
}

/// The next pad byte's candidates after `pad`: any byte first, then the previous one XOR a
/// key-string character (1…127 but `%`, or 0 for an empty string), shifted on odd bytes. A
/// server pad's key string is a client command, typed or built by the client (ioquake3
/// code/qcommon/cmd.c `Cmd_Args`, code/client/cl_main.c `CL_AddReliableCommand` callers): its
/// characters are printable (32…126).
fn candidates(pad: &[u8], start: usize, challenge: Option<u8>) -> Vec<u8> {
    let (prev, shift) = match (pad.last(), challenge) {
        (Some(&prev), _) => (prev, (start + pad.len()) & 1),
        (None, Some(cb)) => (cb, 0),
        (None, None) => return (0..=255).collect(),
    };
    let printable = start == keyed_from(false);
    (0u8..=127)
        .filter(|&c| c != b'%' && (!printable || c == 0 || (32..127).contains(&c)))
        .map(|c| prev ^ (c << shift))
        .collect()
}

/// The trial parses of one search step.
struct Work<'p> {
    probe: &'p mut State,
    to_server: bool,
    start: usize,
    scratch: Vec<u8>,
    /// The clocks of the server messages a check parsed.
    clocks: Vec<(u32, Clock)>,
    /// [`frame_lengths`].
    frames: Vec<i64>,
}

impl Work<'_> {
    /// Whether `pad` de-keys the whole message `m` cleanly.
    fn whole(&mut self, m: &Pooled, pad: &[u8]) -> bool {
        self.scratch.clear();
        self.scratch.extend_from_slice(&m.body);
        apply(&mut self.scratch, self.start, m.base, pad);
        trial(self.probe, self.to_server, &self.scratch, m.sequence) == Trial::Clean
    }

    /// Whether pad `b` + `z` lets every ender parse cleanly and every longer message, cut
    /// after the new byte, read on without an error; for a server pad, first whether their
    /// clocks agree ([`clocks_agree`]: a read of a few symbols, against a trial parse of the
    /// whole cut message). Also says the work it took, in steps.
    fn fits(&mut self, b: &[u8], z: u8, enders: &[&Pooled], longer: &[&Pooled]) -> (bool, u64) {
        let cut = self.start + b.len() + 1;
        let witnesses = || enders.iter().chain(longer);
        let mut steps = 0;
        if !self.to_server {
            self.clocks.clear();
            for m in witnesses() {
                self.cut_dekeyed(m, cut, b, z);
                self.clocks.push((m.sequence, clock_of(&self.scratch)));
                steps += 1;
            }
            if !clocks_agree(&self.clocks, &self.frames) {
                return (false, steps);
            }
        }
        for (i, m) in witnesses().enumerate() {
            let want = if i < enders.len() {
                Trial::Clean
            } else {
                Trial::Short
            };
            self.cut_dekeyed(m, cut, b, z);
            steps += TRIAL;
            if trial(self.probe, self.to_server, &self.scratch, m.sequence) != want {
                return (false, steps);
            }
        }
        (true, steps)
    }

    /// `m`'s first `cut` bytes into the scratch buffer, de-keyed with pad `b` + `z`.
    fn cut_dekeyed(&mut self, m: &Pooled, cut: usize, b: &[u8], z: u8) {
        self.scratch.clear();
        self.scratch.extend_from_slice(&m.body[..cut]);
        apply(&mut self.scratch, self.start, m.base, b);
        self.scratch[cut - 1] ^= m.base ^ z;
    }
}

/// What a server message's first operations say about when it was sent: the snapshot's
/// server time and the player state's commandTime when the message carries them (and they
/// were read whole). ioquake3 code/server/sv_snapshot.c `SV_WriteSnapshotToClient` writes the
/// time right after the opcode (after any reliable commands,
/// `SV_UpdateServerCommandsToClient`), then deltaNum, snapFlags, the area mask and the player
/// state, whose first field is commandTime (code/qcommon/msg.c `playerStateFields`, 32 bits,
/// `MSG_WriteDeltaPlayerstate`: the field count, then a changed bit per field).
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq)]
struct Clock {
    time: Option<i32>,
    /// commandTime's low `command_bytes` bytes (it is sent low byte first).
    command: u32,
    command_bytes: u8,
}

/// Reads a (de-keyed, possibly cut) server message's [`Clock`].
fn clock_of(body: &[u8]) -> Clock {
    let mut c = Clock::default();
    let _ = read_clock(&mut BitReader::new(body), &mut c);
    c
}

fn read_clock(r: &mut BitReader<'_>, c: &mut Clock) -> R<()> {
    r.ulong()?;
    let mut text = Vec::new();
    // Reliable commands come first (at most MAX_RELIABLE_COMMANDS of them), then the snapshot.
    for _ in 0..=64 {
        match Svc(r.byte()?) {
            Svc::NOP => {}
            Svc::SERVER_COMMAND => {
                r.ulong()?;
                r.string(0, &mut text)?;
            }
            Svc::SNAPSHOT => {
                c.time = Some(r.long()?);
                r.byte()?;
                r.byte()?;
                let areas = r.byte()? as usize;
                if areas > MAX_AREA_BYTES {
                    return Ok(());
                }
                for _ in 0..areas {
                    r.byte()?;
                }
                let fields = r.byte()? as usize;
                if (1..=PS_FIELDS).contains(&fields) && r.bit()? == 1 {
                    for k in 0..4 {
                        c.command |= (r.byte()? as u32) << (8 * k);
                        c.command_bytes += 1;
                    }
                }
                return Ok(());
            }
            _ => return Ok(()),
        }
    }
    Ok(())
}

/// The server frame lengths (ms) a server time may advance by per message, the default 50
/// first: 1000 / sv_fps (ioquake3 code/server/sv_main.c `SV_Frame`: `frameMsec = 1000 /
/// sv_fps`) for sv_fps 1…1000, and multiples of 50 ms up to 1 s (a client whose `snaps` is
/// below sv_fps gets every second, third… frame).
fn frame_lengths() -> Vec<i64> {
    let mut all: Vec<i64> = (1..=1000i64)
        .map(|fps| 1000 / fps)
        .chain((2..=20).map(|k| 50 * k))
        .filter(|&f| f != 50)
        .collect();
    all.sort_unstable();
    all.dedup();
    all.insert(0, 50);
    all
}

/// Whether the clocks of messages keyed alike could all be true. The player state's
/// commandTime trails the server time by a lag that holds steady while the client plays (the
/// last usercmd time the server ran: code/server/sv_client.c `SV_ClientThink`, code/game/
/// g_active.c `ClientThink_real`): all but a quarter of the lags fall within [`LAG_SPREAD`] ms,
/// compared on the low byte, the low two bytes, or whole as far as commandTime was read. The
/// server times lie on one frame grid: `time − frame × sequence` the same for all but a
/// quarter of them, for one frame length (each server frame sends a client at most one
/// message; `snaps` below sv_fps skips frames evenly). On both real captures every snapshot is
/// on the 50 ms grid and 88 % of the lags within 25…100 ms (most within 66…79). A wrong pad byte turns these
/// values into noise, so a few witnesses reject it.
fn clocks_agree(clocks: &[(u32, Clock)], frames: &[i64]) -> bool {
    let mut lags = Vec::with_capacity(clocks.len());
    for bytes in [1u8, 2, 4] {
        lags.clear();
        lags.extend(clocks.iter().filter_map(|(_, c)| {
            let time = c.time? as u32;
            (c.command_bytes >= bytes).then(|| {
                let mask = if bytes == 4 {
                    u32::MAX
                } else {
                    (1 << (8 * bytes)) - 1
                };
                (time.wrapping_sub(c.command) & mask, mask)
            })
        }));
        if !lags_cluster(&mut lags) {
            return false;
        }
    }
    let times: Vec<(i64, i64)> = clocks
        .iter()
        .filter_map(|&(seq, c)| Some((seq as i64, c.time? as i64)))
        .collect();
    if times.len() < 2 {
        return true;
    }
    let need = times.len() - times.len() / 4;
    let mut offsets = Vec::with_capacity(times.len());
    frames.iter().any(|&frame| {
        offsets.clear();
        offsets.extend(times.iter().map(|&(seq, time)| time - frame * seq));
        offsets.sort_unstable();
        offsets
            .chunk_by(|a, b| a == b)
            .any(|same| same.len() >= need)
    })
}

/// How far apart the commandTime lags of one group may be (ms), for all but a quarter.
const LAG_SPREAD: u32 = 64;

/// Whether all but a quarter of `lags` (each a value and the mask it was taken under, all the
/// same mask) fit in a window of [`LAG_SPREAD`], wrapping around the mask.
fn lags_cluster(lags: &mut [(u32, u32)]) -> bool {
    let Some(&(_, mask)) = lags.first() else {
        return true;
    };
    if lags.len() < 2 {
        return true;
    }
    let need = lags.len() - lags.len() / 4;
    lags.sort_unstable();
    let n = lags.len();
    (0..n).any(|i| {
        let from = lags[i].0;
        (0..n)
            .filter(|&k| lags[(i + k) % n].0.wrapping_sub(from) & mask < LAG_SPREAD)
            .count()
            >= need
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

    /// The text a pad spells is the key string, cut to its period: a string written out
    /// longer than itself (the engine wraps at its end) reads back as itself.
    #[test]
    fn text_of_reads_the_key_string_back() {
        for text in [
            &b"say second chat line 12345 gg"[..],
            b"disconnect",
            b"cp \"x",
        ] {
            for start in [4usize, 12] {
                let pad = pad_of(0xee, text, start, 70);
                assert_eq!(text_of(&pad, 0xee, start).as_deref(), Some(text));
                // Cut inside the string: the part seen so far, itself cut to its period
                // (`say s` reads as `say ` repeating).
                let part = text_of(&pad[..3], 0xee, start).unwrap();
                assert_eq!(part, &text[..3]);
                assert_eq!(
                    text_of(&pad[..5], 0xee, start).unwrap().len(),
                    5 - usize::from(text[4] == text[0])
                );
            }
        }
        // An odd byte whose difference is odd is no shifted character.
        let mut pad = pad_of(0xee, b"say", 4, 8);
        pad[1] ^= 1;
        assert_eq!(text_of(&pad, 0xee, 4), None);
    }

    /// Server times on the 50 ms grid of the sequence, with commandTime 66…79 ms behind (the
    /// shipped OpenArena capture, messages 236–238: 13900, 13950, 14000 and commandTimes
    /// 13822, 13871, 13936), agree; a wrong pad's noise does not.
    #[test]
    fn clocks_follow_the_frame_grid_and_the_lag() {
        let frames = frame_lengths();
        assert_eq!(frames[0], 50);
        let clock = |time: i32, command: i32, bytes: u8| Clock {
            time: Some(time),
            command: command as u32 & (u32::MAX >> (32 - 8 * bytes as u32)),
            command_bytes: bytes,
        };
        let real = [
            (236, clock(13900, 13822, 4)),
            (237, clock(13950, 13871, 4)),
            (238, clock(14000, 13936, 4)),
        ];
        assert!(clocks_agree(&real, &frames));
        // Only the low byte of commandTime read yet: the lags still cluster.
        let low = real.map(|(s, c)| (s, clock(c.time.unwrap(), c.command as i32, 1)));
        assert!(clocks_agree(&low, &frames));
        // A time off the grid, a commandTime far from its time.
        let mut off = real;
        off[1].1.time = Some(13_957);
        assert!(!clocks_agree(&off, &frames));
        let mut far = real;
        far[2].1.command = 0x1234_5678;
        far[1].1.command = 0x0765_4321;
        assert!(!clocks_agree(&far, &frames));
        // A frame grid other than 50 ms (sv_fps 40: 25 ms).
        let fast = [
            (10, clock(1250, 1180, 4)),
            (11, clock(1275, 1200, 4)),
            (13, clock(1325, 1250, 4)),
        ];
        assert!(clocks_agree(&fast, &frames));
        // Nothing read yet agrees with anything.
        assert!(clocks_agree(
            &[(1, Clock::default()), (2, Clock::default())],
            &frames
        ));
    }

    /// Lags near the wrap of their mask cluster across it.
    #[test]
    fn lags_cluster_across_the_wrap() {
        let mut lags = [(250, 255), (10, 255), (2, 255), (252, 255)];
        assert!(lags_cluster(&mut lags));
        let mut spread = [(0, 255), (64, 255), (128, 255), (192, 255)];
        assert!(!lags_cluster(&mut spread));
    }
}
