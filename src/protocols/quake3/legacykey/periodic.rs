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
//! residues' filters. A string is taken only when its pad de-keys every pooled message into a
//! clean parse, and only when exactly one string (and challenge byte) does, a string and its
//! repeats (one pad) counting as their shortest.

use super::{
    CLIENT_WORDS, End, Group, LOOKS_PER_STEP, SERVER_WORDS, TRIAL, ending_bytes, keyed_from, pad_of,
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

/// One message end: the keyed byte it ends at and the pad values its last byte may be under.
struct Ender {
    at: usize,
    passing: Vec<u8>,
}

/// The message ends of `g`'s pooled messages.
fn enders(g: &Group) -> Vec<Ender> {
    let start = keyed_from(g.to_server);
    // The plain last bytes that end a message: a pad value passes when it turns the keyed
    // last byte into one of them, so each message costs these few, not 256 tests.
    let ending = ending_bytes(g.to_server);
    let ok: Vec<u8> = (0..=255u8).filter(|&p| ending[p as usize]).collect();
    (g.msgs.iter())
        .filter(|m| m.keyed_len(start) > 0)
        .map(|m| {
            let last = m.body[m.body.len() - 1] ^ m.base;
            let mut passing: Vec<u8> = ok.iter().map(|&p| p ^ last).collect();
            passing.sort_unstable();
            Ender {
                at: m.keyed_len(start) - 1,
                passing,
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

/// Per residue of `fold`'s period, the pad values its message ends allow (all of them ending
/// there at most one in four off: a message whose end fills its last byte carries one more,
/// unwritten byte), or `None` where no message ends.
fn folded(ends: &[Ender], fold: &Fold) -> Vec<Option<[bool; 256]>> {
    let period = fold.period();
    let mut counts: Vec<(u32, [u32; 256])> = vec![(0, [0; 256]); period];
    for e in ends {
        let flip = if (e.at / period) % 2 == 1 { fold.f } else { 0 };
        let (total, c) = &mut counts[e.at % period];
        *total += 1;
        for &z in &e.passing {
            c[(z ^ flip) as usize] += 1;
        }
    }
    // Where no value gets that many (a stale byte among two or three ends), nothing is ruled
    // out.
    (counts.into_iter())
        .map(|(total, c)| {
            let need = total - total / 4;
            (total > 0 && c.iter().any(|&n| n >= need)).then(|| c.map(|n| n >= need))
        })
        .collect()
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
    g: &Group,
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
    let bytes: Vec<u8> = match challenge {
        Some(c) => vec![c],
        None => (0..=255).collect(),
    };
    for fold in &folds {
        let masks = folded(&ends, fold);
        let grown = match grow(g.to_server, &bytes, fold, &masks, credit, work) {
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
    found
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

/// The strings of `fold`'s length, starting with a command word, whose pad under `cb` every
/// folded filter passes (and for an even length, whose last pad byte gives the fold's `F`).
fn grow(
    to_server: bool,
    bytes: &[u8],
    fold: &Fold,
    masks: &[Option<[bool; 256]>],
    credit: &mut u64,
    work: &mut u64,
) -> Result<Vec<(u8, Vec<u8>)>, End> {
    let passes = |k: usize, z: u8| masks[k].is_none_or(|m| m[z as usize]);
    let words = if to_server {
        SERVER_WORDS
    } else {
        CLIENT_WORDS
    };
    // Writing the seeds out is work: a step each.
    let seeding = (bytes.len() * words.len() * 2) as u64;
    *credit = credit.checked_sub(seeding).ok_or(End::Spent)?;
    *work += seeding;
    // (the challenge byte, the last pad byte, the characters so far)
    let mut beam: Vec<(u8, u8, Vec<u8>)> = Vec::new();
    for (&cb, w) in bytes.iter().flat_map(|b| words.iter().map(move |w| (b, w))) {
        for tail in [&b" "[..], b" \""] {
            let text = [w, tail].concat();
            if text.len() >= fold.len {
                continue;
            }
            let pad = pad_of(cb, &text, keyed_from(to_server), text.len());
            if pad.iter().enumerate().all(|(k, &z)| passes(k, z)) {
                beam.push((cb, pad[pad.len() - 1], text));
            }
        }
    }
    let chars: Vec<u8> = text_chars().collect();
    for _ in 0..fold.len {
        let mut next = Vec::new();
        for (cb, prev, text) in &beam {
            let k = text.len();
            if k == fold.len {
                next.push((*cb, *prev, text.clone()));
                continue;
            }
            let looks = 1 + chars.len() as u64 / LOOKS_PER_STEP;
            *credit = credit.checked_sub(looks).ok_or(End::Spent)?;
            *work += looks;
            // A grown candidate is a copy of its characters.
            let copy = 1 + k as u64 / 16;
            for &c in &chars {
                let z = prev ^ (c << (k & 1));
                if passes(k, z) {
                    *credit = credit.checked_sub(copy).ok_or(End::Spent)?;
                    *work += copy;
                    let mut t = text.clone();
                    t.push(c);
                    next.push((*cb, z, t));
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
    let start = keyed_from(to_server);
    Ok(beam
        .into_iter()
        .map(|(cb, _, t)| (cb, t))
        .filter(|(cb, t)| {
            // The whole period's pad, its second half (odd lengths) checked too, and the fold.
            let pad = pad_of(*cb, t, start, period + 1);
            (fold.len..period).all(|k| passes(k, pad[k])) && pad[period] ^ pad[0] == fold.f
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::super::tests::command_message;
    use super::super::{Pooled, apply};
    use super::*;

    /// A server-message group keyed with `text` under challenge byte `cb`, pooling `msgs`.
    fn group(cb: u8, text: &[u8], msgs: &[Vec<u8>]) -> Group {
        let mut g = Group {
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
