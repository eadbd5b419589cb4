//! A group's whole key string found from where its messages end, through the pad's period.
//!
//! The legacy transform (ioquake3 code/server/sv_net_chan.c `SV_Netchan_Encode`,
//! code/client/cl_net_chan.c `CL_Netchan_Encode`) takes in one key-string character per byte,
//! the string restarting after its end, so with the per-message value left out pad byte `k` is
//! `cb ^ t_0 ^ … ^ t_k` with `t_j = s[j mod L] << (j & 1)`. For an even string length `L` one
//! period adds the same `F = t_0 ^ … ^ t_(L-1)` wherever it starts: `pad[k + L] = pad[k] ^ F`,
//! and `F = pad[L-1] ^ cb`. For an odd length each character comes once unshifted and once
//! shifted in two periods: `pad[k + 2L] = pad[k] ^ F`. So a message that ends at keyed byte `n`,
//! however far past the string's length, says what the pad byte at `n mod P` (`P` the period,
//! `L` or `2L`) may be, through `F` when `n / P` is odd.
//!
//! The search grows a pad from its first byte and needs messages ending early; this needs only
//! messages of many lengths. A string length and `F` are scored by the residues where messages
//! end in both an even and an odd period and all agree on one pad value under that `F`; the
//! best few are folded onto one period, and the string is grown character by character
//! (printable characters, from a command word and a space or a space and a quote) through the
//! residues' filters ([`Filters`]: every message ending at a residue ends there under the pad
//! byte, or its end filled the byte before and its last byte is the unwritten one), the
//! messages ending at that byte parsed whole, and when the candidates are many, longer server
//! messages cut after it. An even length's last pad byte is fixed by `F`, which the last
//! residues are walked back from ([`reach`]); an odd length's second period takes the
//! characters in again, and its residues are checked as the string grows ([`Turn`]). A string
//! is taken only when its pad de-keys every pooled message into a clean parse, and only when
//! exactly one string (and challenge byte) does, a string and its repeats (one pad) counting as
//! their shortest.

use super::{
    CLIENT_WORDS, ENDERS, End, LOOKS_PER_STEP, PadPool, Pooled, SERVER_WORDS, TRIAL, Work,
    ending_bytes, filled_bytes, keyed_from, pad_of,
};
use crate::protocols::quake3::State;

/// The longest key string looked for. A chat line is cut to 150 characters by the game
/// (ioquake3 code/game/g_cmds.c `MAX_SAY_TEXT`), and `say "…"\n` adds seven.
pub const MAX_LEN: usize = 160;
/// The shortest: the search finds shorter strings (their pads repeat within a few bytes).
const MIN_LEN: usize = 6;
/// Residues where messages of both parities end, agreeing on one `F`, needed for a length to
/// be tried; and the (length, `F`) pairs tried per solve.
const MIN_AGREE: u32 = 6;
const TRIED: usize = 4;
/// Positions where two or more messages end needed before a group is tried.
const MIN_POSITIONS: usize = 4;
/// Candidates past which each grown one is checked by cutting longer server messages after
/// its byte: they must read on without an error (as the search checks its bytes).
const CUT_CHECKS_FROM: usize = 256;
const CUT_CHECKS: usize = 8;
/// The most one length's growing may spend (busy capture: 76,000 steps for the 28
/// characters of `say 07 new map, same netchan`, a million for `say 11 almost done`).
const GROW_CREDIT: u64 = 3 << 19;
/// Candidate strings kept per character.
const BEAM: usize = 1 << 12;

/// The tries' credit (work steps, as the searches'): at the flow's fourth pooled keyed message
/// (shrinking with the conversations in the flow table, `start_credit`), per pooled message,
/// and the most saved.
pub(super) const FOLD_START: u64 = 1 << 22;
pub(super) const FOLD_PER_MESSAGE: u64 = 1 << 9;
pub(super) const FOLD_SAVED: u64 = 1 << 23;

/// Messages pooled before the period is first looked for: each residue needs messages
/// ending in it.
const FIRST_TRY: usize = 32;

/// The last try (five per group, at 32, 48, 72, 108 and 162 messages pooled; the pool keeps
/// 96).
const LAST_TRY: usize = 162;

/// Whether a group with `added` messages pooled, last tried at `tried_at`, is due a try: at
/// [`FIRST_TRY`] and each time the number grows by half, up to [`LAST_TRY`].
pub(super) fn due(added: usize, tried_at: usize) -> bool {
    added >= FIRST_TRY && added >= tried_at + (tried_at / 2).max(1) && tried_at < LAST_TRY
}

/// Whether the messages ending at one keyed byte agree on its pad value, at most positions
/// where two or more end: real messages keyed alike do, but for one in eight (a stale last
/// byte), where random bodies' last bytes share a value two times in five, and three of them
/// one time in fifty. Positions with such agreement, and the positions looked at.
fn agreeing(ends: &[Ender]) -> (usize, usize) {
    let mut by_at: Vec<(usize, &[u8])> = ends.iter().map(|e| (e.at, &e.passing[..])).collect();
    by_at.sort_unstable_by_key(|e| e.0);
    let (mut agree, mut looked) = (0, 0);
    for run in by_at.chunk_by(|a, b| a.0 == b.0).filter(|r| r.len() >= 2) {
        looked += 1;
        let mut counts = [0u8; 256];
        for (_, passing) in run {
            for &z in *passing {
                counts[z as usize] = counts[z as usize].saturating_add(1);
            }
        }
        let total = run.len();
        let need = (total - total / 4) as u8;
        agree += counts.iter().any(|&n| n >= need) as usize;
    }
    (agree, looked)
}

/// One message end: the keyed byte it ends at, the pad values its last byte may be under, and
/// the keyed byte before it (the per-message value removed) when that one is keyed too.
struct Ender {
    at: usize,
    passing: Vec<u8>,
    before: Option<u8>,
}

/// The message ends of `g`'s pooled messages.
fn enders(g: &PadPool) -> Vec<Ender> {
    let start = keyed_from(g.to_server);
    // The plain last bytes that end a message: a pad value passes when it turns the keyed
    // last byte into one of them, so each message costs these few, not 256 tests.
    let ending = ending_bytes(g.to_server);
    let ok: Vec<u8> = (0..=255u8).filter(|&p| ending[p as usize]).collect();
    (g.msgs.iter())
        .filter(|m| m.keyed_len(start) > 0)
        .map(|m| {
            let n = m.body.len();
            let last = m.body[n - 1] ^ m.base;
            let mut passing: Vec<u8> = ok.iter().map(|&p| p ^ last).collect();
            passing.sort_unstable();
            let at = m.keyed_len(start) - 1;
            Ender {
                at,
                passing,
                before: (at > 0).then(|| m.body[n - 2] ^ m.base),
            }
        })
        .collect()
}

/// A string length and fold constant scored by the residues that agree on it.
#[derive(Clone, Copy, Debug)]
struct Fold {
    len: usize,
    f: u8,
    agree: u32,
}

impl Fold {
    fn period(&self) -> usize {
        period_of(self.len)
    }

    /// What the pad at keyed byte `n` adds to the first period's value there: `F` in odd
    /// periods.
    fn flip(&self, n: usize) -> u8 {
        if (n / self.period()) % 2 == 1 {
            self.f
        } else {
            0
        }
    }
}

/// The pad's period for a string of `len` characters: `len` when even, twice it when odd.
fn period_of(len: usize) -> usize {
    if len.is_multiple_of(2) { len } else { 2 * len }
}

/// The best fold constant for string length `len`: the one under which the most residues of
/// the period, where messages end in both an even and an odd period, have all their message
/// ends (but one in four) agreeing on one pad value, with both kinds among them. Charged to
/// `credit` before it is done (a counter increment and its reset are a look-up's work);
/// `None` when it cannot be paid for.
fn score(ends: &[Ender], len: usize, credit: &mut u64, work: &mut u64) -> Option<Fold> {
    let period = period_of(len);
    let mut at: Vec<(Vec<usize>, Vec<usize>)> = vec![(Vec::new(), Vec::new()); period];
    for (i, e) in ends.iter().enumerate() {
        let (even, odd) = &mut at[e.at % period];
        if (e.at / period).is_multiple_of(2) {
            even.push(i);
        } else {
            odd.push(i);
        }
    }
    at.retain(|(even, odd)| !even.is_empty() && !odd.is_empty());
    let looks: usize = (at.iter())
        .flat_map(|(even, odd)| even.iter().chain(odd))
        .map(|&i| ends[i].passing.len())
        .sum();
    let cost = 1 + 256 * 2 * looks as u64 / LOOKS_PER_STEP;
    *credit = credit.checked_sub(cost)?;
    *work += cost;
    let mut best = Fold {
        len,
        f: 0,
        agree: 0,
    };
    let mut counts = [0u32; 256];
    for f in 0..=255u8 {
        let mut agree = 0;
        for (even, odd) in &at {
            let mut top = 0;
            for (list, flip) in [(even, 0), (odd, f)] {
                for &i in list {
                    for &z in &ends[i].passing {
                        let c = &mut counts[(z ^ flip) as usize];
                        *c += 1;
                        top = top.max(*c);
                    }
                }
            }
            for (list, flip) in [(even, 0), (odd, f)] {
                for &i in list {
                    for &z in &ends[i].passing {
                        counts[(z ^ flip) as usize] = 0;
                    }
                }
            }
            let total = (even.len() + odd.len()) as u32;
            let need = (total - total / 4).max(even.len().max(odd.len()) as u32 + 1);
            agree += (top >= need) as u32;
        }
        if agree > best.agree {
            best = Fold { len, f, agree };
        }
    }
    Some(best)
}

/// What the message ends folded onto one period allow, per residue: a value under which each
/// of them ends there, or, its end filling the byte before, carries one more, unwritten
/// byte. One server message in eight does on the real captures (ioquake3
/// code/qcommon/msg.c `MSG_WriteBits` sends bits / 8 + 1 bytes, and `MSG_Init` leaves the
/// buffer as it was), so two of four messages ending at one place sometimes do: a filter
/// taking the values most of them agree on (as [`score`] does, to choose the lengths) then
/// rules the right one out (the busy capture cut at 60 %: `say 07 new map, same netchan`,
/// keyed byte 37), where this one, which knows which byte each message's end filled, keeps
/// it and rules out more of the wrong ones.
struct Filters<'e> {
    ends_at: Vec<Vec<&'e Ender>>,
    filled: [bool; 256],
    fold: Fold,
}

impl<'e> Filters<'e> {
    fn new(to_server: bool, ends: &'e [Ender], fold: &Fold) -> Self {
        let period = fold.period();
        let mut ends_at: Vec<Vec<&Ender>> = vec![Vec::new(); period];
        for e in ends {
            ends_at[e.at % period].push(e);
        }
        Filters {
            ends_at,
            filled: filled_bytes(to_server),
            fold: *fold,
        }
    }

    /// Whether pad value `z` at residue `k` (in the first period) lets every message ending
    /// there end, after `before` at the residue before it (`None` while not known: then any
    /// end may be a filled one). Costs a look-up per end ([`Filters::looks`]).
    fn passes(&self, k: usize, z: u8, before: Option<u8>) -> bool {
        self.ends_at[k].iter().all(|e| {
            let ends_here = e.passing.binary_search(&(z ^ self.fold.flip(e.at))).is_ok();
            let fills_before = e.before.is_some_and(|b| {
                before.is_none_or(|p| self.filled[(b ^ p ^ self.fold.flip(e.at - 1)) as usize])
            });
            ends_here || fills_before
        })
    }

    /// The look-ups one value at residue `k` may cost.
    fn looks(&self, k: usize) -> u64 {
        1 + self.ends_at[k].len() as u64
    }
}

/// The characters a chat line or command is written with (printable ASCII; `%` is keyed as
/// `.`, so it is not one).
fn text_chars() -> impl Iterator<Item = u8> + Clone {
    // 0x19 is the separator the game puts after a speaker's name in a `chat` echo (ioquake3
    // code/game/g_cmds.c `G_Say`: `"%s%c%c"…, Q_COLOR_ESCAPE, COLOR_WHITE` then `EC ": "`).
    std::iter::once(0x19).chain((b' '..=b'~').filter(|&c| c != b'%'))
}

/// The challenge byte and key string of group `g` (under `challenge` when it is known, else
/// under each byte), found from its message ends through the pad's period, when exactly one
/// string's pad de-keys every pooled message into a clean parse. Spends `credit` (work steps,
/// counted in `work`); `None` as well when it runs out.
pub(super) fn solve(
    g: &PadPool,
    challenge: Option<u8>,
    credit: &mut u64,
    work: &mut u64,
) -> Option<(u8, Vec<u8>)> {
    // Charged as each message's last byte looked up under every pad value (the count the
    // credit was sized with; `enders` now reads the few that pass directly).
    let setup = 1 + g.msgs.len() as u64 * 256 / LOOKS_PER_STEP;
    *credit = credit.checked_sub(setup)?;
    *work += setup;
    let ends = enders(g);
    // Random bodies seldom agree where they end alike: no fold is scored for them.
    let (agree, looked) = agreeing(&ends);
    if looked < MIN_POSITIONS || agree * 4 < looked * 3 {
        return None;
    }
    let longest = g.longest();
    let top = longest.min(MAX_LEN * 2) / 2;
    let mut folds: Vec<Fold> = Vec::new();
    for len in MIN_LEN..=top.min(MAX_LEN) {
        let fold = score(&ends, len, credit, work)?;
        if fold.agree >= MIN_AGREE {
            folds.push(fold);
        }
    }
    folds.sort_by_key(|f| (std::cmp::Reverse(f.agree), f.len));
    folds.truncate(TRIED);
    let mut probe = State::default();
    let mut scratch = Vec::new();
    let mut found: Option<(u8, Vec<u8>)> = None;
    // A length dropped for its share may have grown another string that fits: nothing is
    // taken then (exactly one string must fit among every length tried).
    let mut dropped = false;
    let bytes: Vec<u8> = match challenge {
        Some(c) => vec![c],
        None => (0..=255).collect(),
    };
    for fold in &folds {
        // A multiple of a length already found folds onto the same period: its strings would
        // be the found one repeated, or others that the same messages would have to parse
        // under (and growing them, without the repeat to check, costs the most).
        if found
            .as_ref()
            .is_some_and(|(_, t)| fold.len.is_multiple_of(t.len()))
        {
            continue;
        }
        let filters = Filters::new(g.to_server, &ends, fold);
        // One length may not spend more than its share: the others, and the groups after
        // this one, are tried from what is left.
        let available = *credit;
        let mut share = available.min(GROW_CREDIT);
        let grown = grow(g, &bytes, &filters, &mut share, work);
        *credit = available - (available.min(GROW_CREDIT) - share);
        let grown = match grown {
            Err(End::Spent) if available > GROW_CREDIT => {
                dropped = true;
                continue;
            }
            Ok(grown) => grown,
            Err(End::Spent) => return None,
            Err(_) => continue,
        };
        for (cb, text) in grown {
            let cost = TRIAL * g.msgs.len() as u64;
            *credit = credit.checked_sub(cost)?;
            *work += cost;
            let pad = pad_of(cb, &text, keyed_from(g.to_server), longest);
            if (g.msgs.iter()).all(|m| g.dekeys(m, &pad, &mut probe, &mut scratch)) {
                let text = shortest_repeat(text);
                if found.as_ref().is_some_and(|t| t.1 != text || t.0 != cb) {
                    return None;
                }
                found = Some((cb, text));
            }
        }
    }
    found.filter(|_| !dropped)
}

/// The shortest string whose repeats make up `text` (`text` itself when it is no repeat). A
/// string and its repeats give one pad (the key string restarts after its end): a string of odd
/// length `L` and its double share the period `2L`, so both folds are tried and both de-key
/// every message. Taken as the shortest, as `read_string` reads a pad's string.
fn shortest_repeat(mut text: Vec<u8>) -> Vec<u8> {
    let n = text.len();
    let root = (1..n)
        .filter(|&l| n.is_multiple_of(l))
        .find(|&l| (l..n).all(|k| text[k] == text[k - l]));
    if let Some(l) = root {
        text.truncate(l);
    }
    text
}

/// A set of byte values, one bit each.
type ByteSet = [u64; 4];

fn has(set: &ByteSet, v: u8) -> bool {
    set[v as usize / 64] >> (v % 64) & 1 == 1
}

fn put(set: &mut ByteSet, v: u8) {
    set[v as usize / 64] |= 1 << (v % 64);
}

/// How many positions before the period's last one [`reach`] walks back: its sets fill up
/// within a few characters (each of the 95 characters may lead on, and a residue where one
/// message ends passes about one pad value in twenty).
const REACH_BACK: usize = 8;

/// For an even string length, per keyed byte `k` among the period's last [`REACH_BACK`] and
/// pad value, the challenge bytes `cb` under which that value can still lead, through
/// characters whose pad bytes pass the filters, to the period's last pad byte, which the fold
/// fixes: `F ^ cb` (the fold's `F` is `pad[L-1] ^ cb`). Grown from its start alone, the
/// candidates multiply through the last residues where few messages end; walking back from
/// that last byte first keeps only those that can close the period. `None` for an odd length
/// (see [`Turn`]).
fn reach(filters: &Filters, credit: &mut u64, work: &mut u64) -> Result<Reach, End> {
    let fold = &filters.fold;
    let len = fold.len;
    if !len.is_multiple_of(2) {
        return Ok(None);
    }
    let first = len.saturating_sub(REACH_BACK + 1);
    let chars: Vec<u8> = text_chars().collect();
    let mut r = vec![[[0u64; 4]; 256]; len - first];
    for cb in 0..=255u8 {
        put(&mut r[len - 1 - first][(fold.f ^ cb) as usize], cb);
    }
    for k in (first..len - 1).rev() {
        let cost = 1 + 256 * chars.len() as u64 * filters.looks(k + 1) / LOOKS_PER_STEP;
        charge(credit, work, cost)?;
        let shift = (k + 1) & 1;
        for z in 0..=255u8 {
            let mut targets = [0u64; 4];
            for &c in &chars {
                let next = z ^ (c << shift);
                let row = r[k + 1 - first][next as usize];
                if row != [0; 4] && filters.passes(k + 1, next, Some(z)) {
                    targets.iter_mut().zip(row).for_each(|(t, b)| *t |= b);
                }
            }
            r[k - first][z as usize] = targets;
        }
    }
    Ok(Some((first, r)))
}

/// [`reach`]'s sets: from which keyed byte, and per byte from there and pad value, the
/// challenge bytes.
type Reach = Option<(usize, Vec<[ByteSet; 256]>)>;

/// For an odd string length, the second period's pad as far as the string is grown: the
/// characters come in again shifted the other way, so byte `L + k` is `pad[L-1] ^ y` with `y`
/// known from the first `k + 1` characters, and `pad[L-1]` is known only when the string is
/// whole. The values it may take (under which every second-period byte so far passes its
/// filter) are kept, and a string none is left for is dropped: the messages ending in the
/// second period check each character as it is grown, not only at the end.
#[derive(Clone)]
struct Turn {
    y: u8,
    last: ByteSet,
}

/// A string being grown: its challenge byte, its pad's last byte, its characters, and for an
/// odd length its second period.
#[derive(Clone)]
struct Cand {
    cb: u8,
    z: u8,
    text: Vec<u8>,
    turn: Option<Turn>,
}

impl Cand {
    /// `c` appended at keyed byte `k` (its pad byte `z`), or `None` when the second period
    /// leaves no value for the last pad byte. Costs a look-up per value looked at.
    fn grown(&self, c: u8, z: u8, filters: &Filters, looks: &mut u64) -> Option<Cand> {
        let k = self.text.len();
        let turn = match &self.turn {
            None => None,
            Some(t) => Some(t.next(k, c, filters, looks)?),
        };
        let mut text = self.text.clone();
        text.push(c);
        Some(Cand {
            cb: self.cb,
            z,
            text,
            turn,
        })
    }
}

impl Turn {
    fn new() -> Self {
        Turn {
            y: 0,
            last: [u64::MAX; 4],
        }
    }

    /// After character `c` at index `k`: byte `L + k` of the second period.
    fn next(&self, k: usize, c: u8, filters: &Filters, looks: &mut u64) -> Option<Turn> {
        let len = filters.fold.len;
        let at = len + k;
        let y = self.y ^ (c << (at & 1));
        if filters.ends_at[at].is_empty() {
            return Some(Turn { y, ..*self });
        }
        let mut last = [0u64; 4];
        for u in 0..=255u8 {
            if has(&self.last, u) {
                *looks += filters.looks(at);
                if filters.passes(at, u ^ y, Some(u ^ self.y)) {
                    put(&mut last, u);
                }
            }
        }
        (last != [0; 4]).then_some(Turn { y, last })
    }
}

/// The strings of `fold`'s length, starting with a command word, whose pad under `cb` every
/// folded filter passes (and whose last pad byte gives the fold's `F`). Past [`CUT_CHECKS_FROM`]
/// candidates, each grown one must also let longer server messages, cut after its byte, read
/// on without an error.
fn grow(
    g: &PadPool,
    bytes: &[u8],
    filters: &Filters,
    credit: &mut u64,
    work: &mut u64,
) -> Result<Vec<(u8, Vec<u8>)>, End> {
    let fold = &filters.fold;
    let reach = reach(filters, credit, work)?;
    let reaches = |k: usize, z: u8, cb: u8| match &reach {
        Some((first, r)) if k >= *first => has(&r[k - first][z as usize], cb),
        _ => true,
    };
    let passes = |k: usize, z: u8, before: Option<u8>| filters.passes(k, z, before);
    let mut beam = seeds(g.to_server, bytes, filters, credit, work)?;
    beam.retain(|c| reaches(c.text.len() - 1, c.z, c.cb));
    let start = keyed_from(g.to_server);
    let mut probe = State::default();
    let mut cut = Work {
        probe: &mut probe,
        to_server: g.to_server,
        start,
        scratch: Vec::new(),
    };
    let chars: Vec<u8> = text_chars().collect();
    let checks = Checks::new(g, fold.len, start);
    for _ in 0..fold.len {
        let mut next = Vec::new();
        let crowded = beam.len() > CUT_CHECKS_FROM;
        for cand in &beam {
            let k = cand.text.len();
            if k == fold.len {
                next.push(cand.clone());
                continue;
            }
            let mut looks = chars.len() as u64 * filters.looks(k);
            let mut grown = Vec::new();
            for &c in &chars {
                let z = cand.z ^ (c << (k & 1));
                if passes(k, z, Some(cand.z)) && reaches(k, z, cand.cb) {
                    grown.extend(cand.grown(c, z, filters, &mut looks));
                }
            }
            let looks = 1 + looks / LOOKS_PER_STEP;
            charge(credit, work, looks)?;
            for c in grown {
                // A grown candidate is a copy of its characters.
                let copy = 1 + k as u64 / 16;
                charge(credit, work, copy)?;
                if checks.pass(&c, crowded, &mut cut, (credit, work))? {
                    next.push(c);
                }
            }
            if next.len() > BEAM {
                return Err(End::Overflow);
            }
        }
        beam = next;
        if beam.is_empty() {
            return Err(End::Dead);
        }
    }
    let period = fold.period();
    Ok(beam
        .into_iter()
        .filter(|c| {
            // The whole period's pad, its second half (odd lengths) checked again, the first
            // byte after the last (the one before it in the fold), and the fold.
            let pad = pad_of(c.cb, &c.text, start, period + 1);
            let before = |k: usize| pad[(k + period - 1) % period];
            let all = std::iter::once(0).chain(fold.len..period);
            all.into_iter().all(|k| passes(k, pad[k], Some(before(k))))
                && pad[period] ^ pad[0] == fold.f
        })
        .map(|c| (c.cb, c.text))
        .collect())
}

/// The seeds: a command word and a space, or a space and a quote, under each challenge byte
/// of `bytes`, whose pad passes the filters. A string with a quote there grows from both, a
/// duplicate the final check pays for; without the quote seeds the candidates are fewer, the
/// cut checks start later, and the busy capture under `--max-state 40K` kept 62 more
/// messages keyed (`two_passes_outlive_the_state_budget`).
fn seeds(
    to_server: bool,
    bytes: &[u8],
    filters: &Filters,
    credit: &mut u64,
    work: &mut u64,
) -> Result<Vec<Cand>, End> {
    let fold = &filters.fold;
    let words = if to_server {
        SERVER_WORDS
    } else {
        CLIENT_WORDS
    };
    // Writing the seeds out is work: a step each.
    let seeding = (bytes.len() * words.len() * 2) as u64;
    charge(credit, work, seeding)?;
    let mut beam = Vec::new();
    for (&cb, w) in bytes.iter().flat_map(|b| words.iter().map(move |w| (b, w))) {
        for tail in [&b" "[..], b" \""] {
            let text = [w, tail].concat();
            if text.len() >= fold.len {
                continue;
            }
            let pad = pad_of(cb, &text, keyed_from(to_server), text.len());
            let before = |k: usize| k.checked_sub(1).map(|j| pad[j]);
            if !(pad.iter().enumerate()).all(|(k, &z)| filters.passes(k, z, before(k))) {
                continue;
            }
            let mut cand = Some(Cand {
                cb,
                z: cb,
                text: Vec::new(),
                turn: (!fold.len.is_multiple_of(2)).then(Turn::new),
            });
            let mut looks = 0;
            for (&c, &z) in text.iter().zip(&pad) {
                cand = cand.and_then(|cand| cand.grown(c, z, filters, &mut looks));
            }
            let looks = 1 + looks / LOOKS_PER_STEP;
            charge(credit, work, looks)?;
            beam.extend(cand);
        }
    }
    Ok(beam)
}

/// What a grown candidate is checked with, per keyed byte `k` of the first period: the
/// messages ending there (each must parse cleanly under the pad, or, its last byte the
/// unwritten one, end on the byte before), and, once the candidates are more than
/// [`CUT_CHECKS_FROM`], longer server messages cut after it (none for client messages, whose
/// keyed usercmd values hardly check a cut).
struct Checks<'g> {
    whole: Vec<Vec<&'g Pooled>>,
    cut: Vec<Vec<&'g Pooled>>,
}

impl<'g> Checks<'g> {
    fn new(g: &'g PadPool, len: usize, start: usize) -> Self {
        let at = |m: &&Pooled| m.keyed_len(start);
        let whole = (0..len)
            .map(|k| {
                g.msgs
                    .iter()
                    .filter(|m| at(m) == k + 1)
                    .take(ENDERS)
                    .collect()
            })
            .collect();
        let cut = (0..len)
            .map(|k| match g.to_server {
                true => Vec::new(),
                false => (g.msgs.iter().filter(|m| at(m) > k + 1))
                    .take(CUT_CHECKS)
                    .collect(),
            })
            .collect();
        Checks { whole, cut }
    }

    /// Whether `c`'s pad passes the checks of its last byte (the cut ones only when `crowded`):
    /// a trial parse each, charged as it is done (a wrong byte is mostly caught by the first
    /// few).
    fn pass(
        &self,
        c: &Cand,
        crowded: bool,
        w: &mut Work,
        (credit, work): (&mut u64, &mut u64),
    ) -> Result<bool, End> {
        let k = c.text.len() - 1;
        let cut: &[&Pooled] = if crowded { &self.cut[k] } else { &[] };
        if self.whole[k].is_empty() && cut.is_empty() {
            return Ok(true);
        }
        let pad = pad_of(c.cb, &c.text, w.start, k + 1);
        for m in &self.whole[k] {
            charge(credit, work, TRIAL)?;
            // Parsed whole: a message whose EOF fills the byte before its unwritten last byte
            // parses clean too (`classify`).
            if !w.fits(&pad[..k], pad[k], &[m], &[]) {
                return Ok(false);
            }
        }
        for m in cut {
            charge(credit, work, TRIAL)?;
            if !w.fits(&pad[..k], pad[k], &[], &[m]) {
                return Ok(false);
            }
        }
        Ok(true)
    }
}

/// Takes `steps` from `credit` and counts them in `work`; [`End::Spent`] when they are not
/// there.
fn charge(credit: &mut u64, work: &mut u64, steps: u64) -> Result<(), End> {
    *credit = credit.checked_sub(steps).ok_or(End::Spent)?;
    *work += steps;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::tests::command_message;
    use super::super::{Pooled, apply};
    use super::*;

    /// A server-message group keyed with `text` under challenge byte `cb`, pooling `msgs`.
    fn group(cb: u8, text: &[u8], msgs: &[Vec<u8>]) -> PadPool {
        let mut g = PadPool {
            to_server: false,
            ack: 7,
            msgs: Vec::new(),
            pad: Vec::new(),
            searched_at: 0,
            failed: 0,
            tried_at: 0,
            added: 0,
            from: 0,
            screened: std::cell::Cell::new(0),
            folded_at: 0,
            server_time: None,
            server_sequence: None,
        };
        for (i, body) in msgs.iter().enumerate() {
            let mut keyed = body.clone();
            let base = (i as u8).wrapping_mul(29);
            let pad = pad_of(cb, text, 4, keyed.len() - 4);
            apply(&mut keyed, 4, base, &pad);
            g.msgs.push(Pooled {
                body: keyed,
                base,
                sequence: 100 + i as u32,
            });
            g.added += 1;
        }
        g
    }

    /// Server messages whose commands are 1 to 80 letters long: they end at keyed bytes from
    /// the first period of an 18-character string to its fourth. Those whose end fills their
    /// last byte (and so carry one more, unwritten byte) are left out: where such a byte is
    /// the only end at its place in the period, it rules the right pad value out (a limit).
    fn messages() -> Vec<Vec<u8>> {
        (0..96)
            .filter_map(|i| {
                let len = 1 + (i * 37) % 80;
                let text: Vec<u8> = (0..len).map(|k| b'a' + ((k * 7 + i) % 26) as u8).collect();
                let m = command_message(i as i64 + 1, &text);
                (m.last() != Some(&0)).then_some(m)
            })
            .collect()
    }

    /// [`messages`], and three times as many more as the fewest of them that end at one place
    /// of the period (keyed from byte 4, 18 characters), ending there, whose end fills their
    /// last byte: the one more, unwritten byte they carry holds what the sender's buffer held
    /// (ioquake3 code/qcommon/msg.c `MSG_Init` does not clear it), here the same byte in each.
    fn three_of_four_unwritten() -> Vec<Vec<u8>> {
        let mut msgs = messages();
        let residue = |m: &Vec<u8>| (m.len() - 5) % 18;
        let mut at = [0usize; 18];
        msgs.iter().for_each(|m| at[residue(m)] += 1);
        let r = (0..18)
            .filter(|&r| at[r] > 0)
            .min_by_key(|&r| at[r])
            .expect("ends");
        let filled = (96..4096).filter_map(|i| {
            let len = 1 + (i * 37) % 80;
            let text: Vec<u8> = (0..len).map(|k| b'a' + ((k * 7 + i) % 26) as u8).collect();
            let mut m = command_message(i as i64 + 1, &text);
            let last = m.last_mut()?;
            (*last == 0).then(|| *last = 0x5a)?;
            (residue(&m) == r).then_some(m)
        });
        let more: Vec<Vec<u8>> = filled.take(3 * at[r]).collect();
        assert_eq!(more.len(), 3 * at[r]);
        msgs.extend(more);
        msgs
    }

    /// A message whose end fills its last byte carries an unwritten one: where most of the
    /// messages ending at one place of the period do, and their unwritten bytes agree, the
    /// string is still found, the filters knowing which byte each end filled (the value most
    /// ends agreed on ruled the right one out, as on the busy capture cut at 60 %, two of
    /// four at keyed byte 37, where one of the others agreed with them).
    #[test]
    fn unwritten_last_bytes_do_not_hide_the_string() {
        let (cb, text) = (0x7c, &b"say 11 almost done"[..]);
        let msgs = three_of_four_unwritten();
        assert!(msgs.len() > messages().len());
        let g = group(cb, text, &msgs);
        let (mut credit, mut work) = (FOLD_START, 0);
        assert_eq!(
            solve(&g, Some(cb), &mut credit, &mut work),
            Some((cb, text.to_vec()))
        );
    }

    /// Under the true length and `F`, the filters, the walk back of an even length and the
    /// second period of an odd one never rule the true string out: strings of even and odd
    /// lengths, from messages of many lengths, every one kept whose end fills its last byte,
    /// its unwritten byte anything.
    #[test]
    fn the_true_string_survives_its_own_fold() {
        let msgs: Vec<Vec<u8>> = (0..96)
            .map(|i| {
                let len = 1 + (i * 37) % 80;
                let text: Vec<u8> = (0..len).map(|k| b'a' + ((k * 7 + i) % 26) as u8).collect();
                let mut m = command_message(i as i64 + 1, &text);
                if let Some(last @ 0) = m.last_mut() {
                    *last = (i as u8).wrapping_mul(83) ^ 0x5a;
                }
                m
            })
            .collect();
        let texts: [&[u8]; 6] = [
            b"say hey",
            b"say 11 almost done",
            b"say 03 jump jump jump",
            b"say 07 new map, same netchan",
            b"say 10 ten lines and counting",
            b"say_team go go go",
        ];
        for text in texts {
            for cb in [0x7c, 0xee] {
                let g = group(cb, text, &msgs);
                let period = period_of(text.len());
                let pad = pad_of(cb, text, 4, period + 1);
                let fold = Fold {
                    len: text.len(),
                    f: pad[period] ^ pad[0],
                    agree: 0,
                };
                let ends = enders(&g);
                let filters = Filters::new(false, &ends, &fold);
                let (mut credit, mut work) = (FOLD_SAVED, 0);
                let grown = grow(&g, &[cb], &filters, &mut credit, &mut work);
                let grown = grown.unwrap_or_else(|e| panic!("{text:?} {cb:#x}: {e:?}"));
                assert!(
                    grown.contains(&(cb, text.to_vec())),
                    "{:?} {cb:#x}: {} grown",
                    String::from_utf8_lossy(text),
                    grown.len()
                );
                assert_eq!(work + credit, FOLD_SAVED);
            }
        }
    }

    /// One period of the pad adds one constant: `pad[k + L] = pad[k] ^ F` with
    /// `F = pad[L-1] ^ cb` for an even length, `pad[k + 2L] = pad[k] ^ F` for an odd one
    /// (ioquake3 code/server/sv_net_chan.c `SV_Netchan_Encode`).
    #[test]
    fn the_pad_is_periodic_up_to_one_constant() {
        let cb = 0x7c;
        let even = b"say 11 almost done";
        let pad = pad_of(cb, even, 4, 5 * even.len());
        let f = pad[even.len() - 1] ^ cb;
        assert!((0..4 * even.len()).all(|k| pad[k + even.len()] == pad[k] ^ f));
        let odd = b"say 03 jump jump jump";
        let l2 = 2 * odd.len();
        let pad = pad_of(cb, odd, 4, 3 * l2);
        let f = pad[l2] ^ pad[0];
        assert!((0..2 * l2).all(|k| pad[k + l2] == pad[k] ^ f));
        // Not one constant over a single odd period.
        assert!((0..l2).any(|k| pad[k + odd.len()] ^ pad[k] != pad[odd.len()] ^ pad[0]));
    }

    /// Messages that end at known places fold onto one period: the string is found whole,
    /// under the known challenge byte or without it.
    #[test]
    fn a_string_is_found_from_message_ends_past_its_length() {
        let (cb, text) = (0x7c, &b"say 11 almost done"[..]);
        let g = group(cb, text, &messages());
        let keyed: Vec<usize> = g.msgs.iter().map(|m| m.keyed_len(4)).collect();
        assert!(keyed.iter().any(|&n| n > 3 * text.len()), "{keyed:?}");
        let (agree, looked) = agreeing(&enders(&g));
        assert!(
            looked >= MIN_POSITIONS && agree * 4 >= looked * 3,
            "{agree} {looked}"
        );
        let (mut credit, mut work) = (FOLD_START, 0);
        let got = solve(&g, Some(cb), &mut credit, &mut work);
        assert_eq!(got, Some((cb, text.to_vec())));
        assert!(work > 0 && work + credit == FOLD_START);
        let (mut credit, mut work) = (FOLD_SAVED, 0);
        assert_eq!(
            solve(&g, None, &mut credit, &mut work),
            Some((cb, text.to_vec()))
        );
    }

    /// A string of odd length and its double give one pad and one period (twice the length):
    /// both folds grow a string that de-keys every message. The string is its shortest form,
    /// not two strings that disagree (before, nothing was taken for "say abc": its fold gave
    /// it, and the fold of 14 gave "say abcsay abc").
    #[test]
    fn a_string_of_odd_length_is_not_lost_to_its_double() {
        let (cb, text) = (0x7c, &b"say abc"[..]);
        let g = group(cb, text, &messages());
        let (mut credit, mut work) = (FOLD_SAVED, 0);
        let got = solve(&g, Some(cb), &mut credit, &mut work);
        assert_eq!(got, Some((cb, text.to_vec())));
        assert_eq!(shortest_repeat(b"say abcsay abc".to_vec()), b"say abc");
        assert_eq!(shortest_repeat(b"say aa".to_vec()), b"say aa");
        assert_eq!(shortest_repeat(b"abab".to_vec()), b"ab");
        assert_eq!(shortest_repeat(Vec::new()), b"");
    }

    /// Random bodies fold onto no string, and the work stays within the credit.
    #[test]
    fn random_messages_give_nothing() {
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let msgs: Vec<Vec<u8>> = (0..96)
            .map(|i| {
                (0..12 + (i * 13) % 150)
                    .map(|_| {
                        x ^= x << 13;
                        x ^= x >> 7;
                        x ^= x << 17;
                        x as u8
                    })
                    .collect()
            })
            .collect();
        let g = group(0, b"", &msgs);
        let (mut credit, mut work) = (FOLD_SAVED, 0);
        assert_eq!(solve(&g, None, &mut credit, &mut work), None);
        assert!(work <= FOLD_SAVED);
        // Too little credit: nothing, and nothing spent past it.
        let (mut credit, mut work) = (1000, 0);
        assert_eq!(solve(&g, None, &mut credit, &mut work), None);
        assert!(work <= 1000);
    }

    #[test]
    fn tries_come_at_32_messages_and_each_half_more() {
        assert!(!due(31, 0));
        assert!(due(32, 0));
        assert!(!due(47, 32));
        assert!(due(48, 32));
        assert!(due(72, 48));
    }
}
