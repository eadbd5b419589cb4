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
//! longer ones, cut there, read on without an error until the cut. Messages are never decoded
//! with a pad that has not passed a full parse of the message itself.

use super::State;
use super::constants::{Clc, Svc};
use super::huffman::static_table;
use super::msg::Loc;
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
const TRIAL: u64 = 16;
/// Candidate bytes looked up in the tail masks per step (a table lookup, against a trial
/// parse's thousands of instructions).
const LOOKS_PER_STEP: u64 = 16;
/// Growing candidates a step may grow by pairs of bytes.
const PAIR_BEAM: usize = 256;
/// Ending messages and cut longer messages tried per candidate byte.
const ENDERS: usize = 6;
const LONGER: usize = 3;

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
    credit: u64,
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
            self.credit = (self.credit + WORK_PER_MESSAGE).min(WORK_SAVED);
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
            Some(_) => (1, 3 * words.len() + 4 * 1024 + 1),
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
    let mut w = Work {
        probe: &mut probe,
        to_server: g.to_server,
        start,
        scratch: Vec::new(),
    };
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
            then,
        };
        let Some(next) = step(std::mem::take(&mut beam), &checks, &mut w, credit, work) else {
            return found;
        };
        if next.is_empty() {
            break;
        }
        beam = next;
        let common = common_prefix(&beam).min(n + 1);
        if common > found.0.len() {
            // The challenge byte is known when every survivor grew from the same one.
            let cb = beam[0].1.filter(|&c| beam.iter().all(|b| b.1 == Some(c)));
            found = (beam[0].0[..common].to_vec(), cb);
        }
    }
    found
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
    enders: &'a [&'a Pooled],
    longer: &'a [&'a Pooled],
    tail: Option<&'a [bool; 256]>,
    challenge: Option<u8>,
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

/// Grows (or checks) every candidate of `beam` by byte `n`; `None` when the credit is spent
/// or too many candidates grow. Candidates that agree on their first `n + 1` bytes (seeds of
/// one challenge byte and command words sharing a start) are checked once: the beam is sorted,
/// and the last check's outcome reused while the prefix repeats.
fn step(
    mut beam: Vec<Cand>,
    c: &Checks<'_>,
    w: &mut Work<'_>,
    credit: &mut u64,
    work: &mut u64,
) -> Option<Vec<Cand>> {
    let n = c.n;
    // A seeded byte with no message ending at it has nothing to be checked against.
    if c.enders.is_empty() && beam.iter().all(|(b, _)| b.len() > n) {
        return Some(beam);
    }
    beam.sort_unstable();
    beam.dedup();
    // Pairs cost up to 127 × 127 lookups per growing candidate: with many of them, only the
    // seeded ones go on.
    let growing = beam.iter().filter(|(b, _)| b.len() <= n).count();
    let pairs_ok = growing <= PAIR_BEAM;
    let mut next = Vec::new();
    let mut grown = 0;
    // The last prefix checked (its first `n` bytes, and byte `n` when seeded) and the bytes
    // that passed after it (one, or two when grown in pairs).
    let mut memo: Option<(Vec<u8>, Vec<Vec<u8>>)> = None;
    let mut looked = 0u64;
    for (b, seed) in beam {
        let grow = b.len() <= n;
        let key = &b[..(n + usize::from(!grow)).min(b.len())];
        let passed = match &memo {
            Some((k, passed)) if k[..] == *key => passed.clone(),
            // Cut messages alone hardly decide a byte: a candidate grows only where messages
            // end at this byte or the next.
            _ if grow && c.enders.is_empty() && (c.then.is_none() || !pairs_ok) => Vec::new(),
            _ if grow && c.enders.is_empty() && c.then.is_some() => {
                let then = c.then.expect("checked");
                let passed = pairs(&b, c, then, w, (credit, work), &mut looked)?;
                memo = Some((key.to_vec(), passed.clone()));
                passed
            }
            _ => {
                let opts = if grow {
                    candidates(&b, w.start, c.challenge)
                } else {
                    vec![b[n]]
                };
                // Growing needs the cut longer messages; a seeded byte only its enders.
                let longer = if grow { c.longer } else { &[][..] };
                let cost = 1 + TRIAL * (c.enders.len() + longer.len()) as u64;
                let mut passed = Vec::new();
                for z in opts {
                    if *credit < cost {
                        return None;
                    }
                    looked += 1;
                    if looked.is_multiple_of(LOOKS_PER_STEP) {
                        *credit -= 1;
                        *work += 1;
                    }
                    if c.tail.is_some_and(|t| !t[z as usize]) {
                        continue;
                    }
                    *credit -= cost - 1;
                    *work += cost - 1;
                    if w.fits(&b[..n], z, c.enders, longer) {
                        passed.push(vec![z]);
                    }
                }
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
    Some(next)
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
            *credit -= cost - 1;
            *work += cost - 1;
            if w.fits(&prefix, z2, then.enders, then.longer) {
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
/// key-string character (1…127 but `%`, or 0 for an empty string), shifted on odd bytes.
fn candidates(pad: &[u8], start: usize, challenge: Option<u8>) -> Vec<u8> {
    let (prev, shift) = match (pad.last(), challenge) {
        (Some(&prev), _) => (prev, (start + pad.len()) & 1),
        (None, Some(cb)) => (cb, 0),
        (None, None) => return (0..=255).collect(),
    };
    (0u8..=127)
        .filter(|&c| c != b'%')
        .map(|c| prev ^ (c << shift))
        .collect()
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
        for (m, want) in enders
            .iter()
            .map(|m| (m, Trial::Clean))
            .chain(longer.iter().map(|m| (m, Trial::Short)))
        {
            self.scratch.clear();
            self.scratch.extend_from_slice(&m.body[..cut]);
            apply(&mut self.scratch, self.start, m.base, b);
            self.scratch[cut - 1] ^= m.base ^ z;
            if trial(self.probe, self.to_server, &self.scratch, m.sequence) != want {
                return false;
            }
        }
        true
    }
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
}
