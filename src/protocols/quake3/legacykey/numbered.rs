//! Whole key strings with a number in them, screened against a client-message group's
//! message ends before its pad is grown byte by byte; and the bare command words that key a
//! server-message group, screened against every pooled message's end.
//!
//! Mid-game, the server command a client acknowledges is most often a score: every frag sets
//! the score configstrings (ioquake3 code/game/g_main.c `CalculateRanks`:
//! `trap_SetConfigstring( CS_SCORES1, va("%i", …) )`), which reach each client as
//! `cs <index> "<value>"\n` (code/server/sv_init.c `SV_SendConfigstring`). The client's
//! messages keyed with it end after two dozen keyed bytes or more, where nothing in their first
//! bytes (keyed usercmd values) checks a grown candidate, so the byte-by-byte search overflows.
//! A whole string needs no such check: each one enumerated here gives every pad byte at once,
//! up to the challenge byte, and the message ends' filters ([`votes`](super::votes)) at a few
//! byte positions leave about one string in a thousand per challenge byte. The survivors are
//! tried as the group's key string, which must de-key every pooled message into a clean parse;
//! exactly one must, or none is taken.

use super::{
    End, LOOKS_PER_STEP, PadPool, TRIAL, decidable, ending_bytes, filled_bytes, filtered_bytes,
    keyed_from, pad_of, votes,
};
use crate::protocols::quake3::State;
use crate::protocols::quake3::constants::Cs;
use crate::protocols::quake3::netchan::xor;
use std::io::Write;

/// Configstrings whose values are small numbers set during play (code/game/bg_public.h):
/// warmup, the two scores, vote and team vote counts, intermission.
const SMALL_NUMBER_CONFIGSTRINGS: [Cs; 10] = [
    Cs::WARMUP,
    Cs::SCORES1,
    Cs::SCORES2,
    Cs::VOTE_YES,
    Cs::VOTE_NO,
    Cs::TEAMVOTE_YES,
    Cs(Cs::TEAMVOTE_YES.0 + 1),
    Cs::TEAMVOTE_NO,
    Cs(Cs::TEAMVOTE_NO.0 + 1),
    Cs::INTERMISSION,
];
/// The values enumerated: empty, −99…999, and `SCORE_NOT_PRESENT` (code/game/bg_public.h), the
/// second score when one player is in the game. (`CS_WARMUP` holds a server time: only its
/// empty, −1 and 0 values are met here.)
const LOWEST: i32 = -99;
const HIGHEST: i32 = 999;
const SCORE_NOT_PRESENT: i32 = -9999;
/// The screens' credit (work steps, as the searches'): at the flow's fourth pooled keyed
/// message (shrinking with the conversations in the flow table, `start_credit`), per
/// pooled message, and the most saved. Apart from the searches' credit, which the searches of
/// long server-message groups that find nothing may drain. A screen of all strings costs
/// about 40,000 steps with the challenge byte known, up to 250,000 without (its survivors'
/// trial parses included).
pub(super) const SCREEN_START: u64 = 1 << 22;
pub(super) const SCREEN_PER_MESSAGE: u64 = 1 << 9;
pub(super) const SCREEN_SAVED: u64 = 1 << 23;
/// Byte positions with a filter needed for a screen that leaves few survivors, and the most
/// used (more cost more and hardly filter further).
const MIN_FILTERS: usize = 2;
const MAX_FILTERS: usize = 8;
/// The most bytes the strongest filter may pass for a screen to be worth its cost.
const MAX_PASSING: usize = 32;

/// The one server command that is a word and a bare number: OpenArena's `respawn %i`
/// (code/game/g_cmds.c `RespawnTimeMessage`: 0 once the wait is over, else the server time of
/// the respawn), enumerated for 0…999.
const RESPAWN: &[u8] = b"respawn";
const WORD_NUMBERS: i32 = 1000;
/// Past 999, the number of `respawn %i` is a server time: OpenArena's `player_die`
/// (code/game/g_combat.c) sets `respawnTime = level.time + 1700 + i`, `i` being left at
/// `level.maxclients` by the loop over the clients before it, and sends it. `level.time` is
/// the snapshots' server time (code/server/sv_main.c `SV_Frame` runs the game frame with
/// `sv.time`, which code/server/sv_snapshot.c `SV_WriteSnapshotToClient` writes), so the
/// number lies a little after the newest snapshot time the flow decoded before the client
/// acknowledged it: the respawn wait, up to `MAX_CLIENTS` (64) more, and the lag between the
/// death and that snapshot ([`LATER`] when the death came after it: the messages carrying the
/// command lost, cut off or keyed; [`EARLIER`] when before it, the snapshot being sent a frame
/// after a death between frames, or the client's first acknowledgement lost).
const RESPAWN_WAIT: i32 = 1700;
const MAX_CLIENTS: i32 = 64;
/// The window around the known server time, in ms: 3 s, 60 server frames at the usual 20 a
/// second, about 3,100 more strings, a tenth of a full screen's cost (see `SCREEN_START`).
const EARLIER: i32 = 2000;
const LATER: i32 = 2000;

/// The client commands sent as a bare word, which key the server's messages until the client's
/// next command: above all `disconnect` (ioquake3 code/client/cl_main.c `CL_Disconnect`), after
/// which the server goes on sending for a few seconds, every message of one length, so that no
/// search from the pad's first byte reaches them; `score` (code/cgame/cg_scoreboard.c, while the
/// scoreboard is shown) and the argument-less commands of code/game/g_cmds.c `ClientCommand`
/// and code/server/sv_client.c `ucmds`.
const BARE_CLIENT_WORDS: [&[u8]; 10] = [
    b"disconnect",
    b"score",
    b"kill",
    b"levelshot",
    b"follownext",
    b"followprev",
    b"team",
    b"where",
    b"stopdl",
    b"donedl",
];

/// Calls `each` with every enumerated string until it returns `Err`, the small numbers
/// first (a flow short of credit then still tries the likeliest: `cs 6 "1"`, `respawn 0`).
/// Then, with the `server_time` a client-message group was first pooled at, the `respawn N`
/// of a death near it ([`RESPAWN_WAIT`]); with `window_only`, only those.
fn for_each_text<E>(
    server_time: Option<(i32, i32)>,
    window_only: bool,
    mut each: impl FnMut(&[u8]) -> Result<(), E>,
) -> Result<(), E> {
    let mut text = Vec::with_capacity(24);
    if !window_only {
        small_texts(&mut text, &mut each)?;
    }
    for n in respawn_times(server_time) {
        text.clear();
        text.extend_from_slice(RESPAWN);
        let _ = write!(text, " {n}");
        each(&text)?;
    }
    Ok(())
}

/// The configstrings' small numbers and `respawn 0`…`respawn 999`, the likeliest first.
fn small_texts<E>(
    text: &mut Vec<u8>,
    each: &mut impl FnMut(&[u8]) -> Result<(), E>,
) -> Result<(), E> {
    let by_size = (0..=HIGHEST)
        .flat_map(|v| [Some(v), (v > 0 && -v >= LOWEST).then_some(-v)])
        .flatten();
    let values = std::iter::once(None)
        .chain(by_size.map(Some))
        .chain(std::iter::once(Some(SCORE_NOT_PRESENT)));
    for v in values {
        for cs in SMALL_NUMBER_CONFIGSTRINGS {
            text.clear();
            // Writing to a Vec cannot fail.
            let _ = match v {
                Some(v) => writeln!(text, "cs {} \"{v}\"", cs.0),
                None => writeln!(text, "cs {} \"\"", cs.0),
            };
            each(text)?;
        }
        if let Some(n) = v.filter(|n| (0..WORD_NUMBERS).contains(n)) {
            text.clear();
            text.extend_from_slice(RESPAWN);
            let _ = write!(text, " {n}");
            each(text)?;
        }
    }
    Ok(())
}

/// The numbers of `respawn N` sent for a death near `server_time` ([`RESPAWN_WAIT`]), past
/// the small numbers already enumerated; the window is wider by the time's own error, `spread`
/// ms either side (an extrapolated time: `Pads::set_server_time`).
pub(super) fn respawn_times(server_time: Option<(i32, i32)>) -> impl Iterator<Item = i32> {
    server_time.into_iter().flat_map(|(t, spread)| {
        let (earlier, later) = (EARLIER.saturating_add(spread), LATER.saturating_add(spread));
        let first = t.saturating_sub(earlier).saturating_add(RESPAWN_WAIT + 1);
        let last = (t.saturating_add(later)).saturating_add(RESPAWN_WAIT + MAX_CLIENTS);
        first.max(WORD_NUMBERS)..=last
    })
}

/// The one enumerated string and challenge byte (the known one, when `challenge` is) that
/// the group's message ends let through and whose pad de-keys every pooled message into a
/// clean parse. Spends the screens' own `credit`; `None` as well when it runs out. With
/// `window_only`, only the `respawn N` near the group's server time, whatever the screens
/// before tried (the group was screened without a server time).
pub(super) fn screen(
    g: &PadPool,
    challenge: Option<u8>,
    window_only: bool,
    credit: &mut u64,
    work: &mut u64,
) -> Option<(u8, Vec<u8>)> {
    if !g.to_server {
        return screen_words(g, challenge, credit, work).ok().flatten();
    }
    let start = keyed_from(g.to_server);
    let longest = g.longest();
    // The filters are work too (as for a search).
    let setup = (longest as u64 * 16 + g.msgs.len() as u64 * 16) / LOOKS_PER_STEP;
    *credit = credit.checked_sub(setup)?;
    *work += setup;
    // Without the challenge byte, 256 times the strings meet the filters: one more is needed.
    let min = MIN_FILTERS + challenge.is_none() as usize;
    // Too few filters is known without the filters' tables (random bodies: nearly always).
    if filtered_bytes(&g.msgs, start, longest) < min {
        return None;
    }
    let votes = votes(g, start, longest);
    // The strongest filters first; real messages' ends pass about ten bytes in 256 each,
    // random bytes' many more, and a screen through weak filters would mostly try survivors.
    let mut filters: Vec<(usize, &[bool; 256], usize)> = (votes.iter().enumerate())
        .filter_map(|(n, v)| {
            let v = v.as_ref()?;
            Some((n, v, v.iter().filter(|&&p| p).count()))
        })
        .collect();
    filters.sort_by_key(|&(n, _, passing)| (passing, n));
    filters.truncate(MAX_FILTERS);
    let &(first, first_mask, strongest) = filters.first()?;
    if strongest > MAX_PASSING {
        return None;
    }
    // Screened again only when the messages end at two more filtered bytes: the strings
    // that passed fewer filters were all tried.
    let before = g.screened.get();
    let tried = !window_only && before > 0 && filters.len() < before + 2;
    if filters.len() < min || tried {
        return None;
    }
    g.screened.set(filters.len().max(before));
    let passing: Vec<u8> = (0..=255u8).filter(|&v| first_mask[v as usize]).collect();
    let reach = filters.iter().map(|f| f.0 + 1).max().unwrap_or(0);
    let per_text = 1 + (reach + passing.len()) as u64 / 16;
    let mut pad0 = vec![0u8; reach];
    let mut fitting: Option<(u8, Vec<u8>)> = None;
    let mut probe = State::default();
    let mut scratch = Vec::new();
    let ended = for_each_text(g.server_time.filter(|_| g.to_server), window_only, |text| {
        *credit = credit.checked_sub(per_text).ok_or(End::Spent)?;
        *work += per_text;
        // Pads are linear in the challenge byte: the pad under `cb` is `cb` XOR this one.
        pad0.fill(0);
        xor(&mut pad0, 0, 0, text);
        for &v in &passing {
            let cb = v ^ pad0[first];
            let lets_through = challenge.is_none_or(|c| c == cb)
                && (filters[1..].iter()).all(|&(n, mask, _)| mask[(cb ^ pad0[n]) as usize]);
            if !lets_through || !dekeys_all(g, cb, text, credit, work, &mut probe, &mut scratch)? {
                continue;
            }
            if fitting.is_some() {
                // Two strings fit: the messages do not tell them apart.
                return Err(End::Dead);
            }
            fitting = Some((cb, text.to_vec()));
        }
        Ok(())
    });
    match ended {
        Ok(()) => fitting,
        Err(End::Spent) => {
            // Not every string was tried: the group may be screened again as it was.
            g.screened.set(before);
            None
        }
        Err(_) => None,
    }
}

/// The one bare client command word and challenge byte (the known one, when `challenge` is)
/// under which every pooled message of server-message group `g` ends with `svc_EOF` in its
/// last byte, or fills the byte before it (the unwritten byte after it holds anything: a
/// position-wide filter, [`votes`], would rule the right value out where all the messages
/// ending there are such), and whose pad de-keys every pooled message into a clean parse.
/// Checked per message, the challenge bytes each one allows (about 19 in 256) narrowing the
/// word's: random bodies leave none after two or three messages.
fn screen_words(
    g: &PadPool,
    challenge: Option<u8>,
    credit: &mut u64,
    work: &mut u64,
) -> Result<Option<(u8, Vec<u8>)>, End> {
    let start = keyed_from(false);
    // Evidence before spending: real messages keyed alike end at one byte now and then (after
    // `disconnect`, nearly all at one), random bodies of many lengths seldom.
    if !decidable(g, start, true) {
        return Ok(None);
    }
    let longest = g.longest();
    let values =
        |table: [bool; 256]| -> Vec<u8> { (0..=255u8).filter(|&v| table[v as usize]).collect() };
    let (ends, fills) = (values(ending_bytes(false)), values(filled_bytes(false)));
    let (mut probe, mut scratch) = (State::default(), Vec::new());
    let mut fitting: Option<(u8, Vec<u8>)> = None;
    for word in BARE_CLIENT_WORDS {
        // The pad under challenge byte 0 (it is linear in the challenge byte) over one period
        // and the period's constant (`periodic`): a step per 16 bytes written.
        let period = if word.len().is_multiple_of(2) {
            word.len()
        } else {
            2 * word.len()
        };
        let write = 1 + period as u64 / LOOKS_PER_STEP;
        *credit = credit.checked_sub(write).ok_or(End::Spent)?;
        *work += write;
        let turn = pad_of(0, word, start, period + 1);
        let f = turn[period] ^ turn[0];
        let pad0 = |k: usize| turn[k % period] ^ if (k / period) % 2 == 1 { f } else { 0 };
        let mut left = challenge.map_or([u64::MAX; 4], |c| with(&[c], 0));
        for m in &g.msgs {
            let cost = 1 + (ends.len() + fills.len()) as u64 / LOOKS_PER_STEP;
            *credit = credit.checked_sub(cost).ok_or(End::Spent)?;
            *work += cost;
            let (n, b) = (m.keyed_len(start), &m.body);
            // The plain byte `back` bytes before the end under challenge byte 0.
            let plain = |back: usize| {
                let k = n.checked_sub(back).filter(|&k| k < longest)?;
                Some(b[start + k] ^ m.base ^ pad0(k))
            };
            let last = plain(1).map_or([0; 4], |x| with(&ends, x));
            let before = plain(2).map_or([0; 4], |x| with(&fills, x));
            for (l, (e, f)) in left.iter_mut().zip(last.into_iter().zip(before)) {
                *l &= e | f;
            }
            if left == [0; 4] {
                break;
            }
        }
        for cb in (0..=255u8).filter(|&c| left[(c >> 6) as usize] >> (c & 63) & 1 == 1) {
            if !dekeys_all(g, cb, word, credit, work, &mut probe, &mut scratch)? {
                continue;
            }
            if fitting.is_some() {
                // Two fit: the messages do not tell them apart.
                return Ok(None);
            }
            fitting = Some((cb, word.to_vec()));
        }
    }
    Ok(fitting)
}

/// The 256-bit set of the challenge bytes `v ^ x`, `v` each of `values`.
fn with(values: &[u8], x: u8) -> [u64; 4] {
    let mut set = [0u64; 4];
    for &v in values {
        let c = v ^ x;
        set[(c >> 6) as usize] |= 1 << (c & 63);
    }
    set
}

/// Whether `text` under challenge byte `cb` de-keys every pooled message of `g` into a clean
/// parse, reaching at least three characters into its repeat in the longest.
fn dekeys_all(
    g: &PadPool,
    cb: u8,
    text: &[u8],
    credit: &mut u64,
    work: &mut u64,
    probe: &mut State,
    scratch: &mut Vec<u8>,
) -> Result<bool, End> {
    let longest = g.longest();
    if longest < text.len() + 3 {
        return Ok(false);
    }
    // Writing the pad out is work as well: a step per 16 bytes.
    let write = 1 + longest as u64 / 16;
    *credit = credit.checked_sub(write).ok_or(End::Spent)?;
    *work += write;
    let pad = pad_of(cb, text, keyed_from(g.to_server), longest);
    for m in &g.msgs {
        *credit = credit.checked_sub(TRIAL).ok_or(End::Spent)?;
        *work += TRIAL;
        if !g.dekeys(m, &pad, probe, scratch) {
            return Ok(false);
        }
    }
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::super::tests::{command_message, pooled_server_group};
    use super::*;

    /// Server messages of about one length, as the server sends after a client's
    /// `disconnect`; those whose end fills their last byte carry one more, unwritten byte,
    /// here not zero (whatever the sender's buffer held).
    fn closing_messages() -> Vec<Vec<u8>> {
        (0..24)
            .map(|i| {
                let text = format!("print \"P{}^7 disconnected\n\"", 10 + i * 7);
                let mut m = command_message(i + 1, text.as_bytes());
                if m.last() == Some(&0) {
                    *m.last_mut().unwrap() = 0xa5;
                }
                m
            })
            .collect()
    }

    /// A server-message group keyed with a bare client command word is found whole, with the
    /// challenge byte, from messages that all end within two bytes (no search from the pad's
    /// first byte reaches them), those whose last byte was never written included.
    #[test]
    fn a_bare_command_word_keys_server_messages_found_whole() {
        let msgs = closing_messages();
        let stale = msgs.iter().filter(|m| m.last() == Some(&0xa5)).count();
        assert!(stale > 0 && stale < msgs.len(), "{stale}");
        let pads = pooled_server_group(0xee, b"disconnect", &msgs);
        let g = &pads.groups[0];
        for challenge in [None, Some(0xee)] {
            let (mut credit, mut work) = (SCREEN_START, 0);
            let got = screen(g, challenge, false, &mut credit, &mut work);
            assert_eq!(got, Some((0xee, b"disconnect".to_vec())));
            assert!(work > 0 && work + credit == SCREEN_START);
        }
        // Under a wrong challenge byte, nothing.
        let (mut credit, mut work) = (SCREEN_START, 0);
        assert_eq!(screen(g, Some(0xef), false, &mut credit, &mut work), None);
        // Another command than the words: nothing.
        let pads = pooled_server_group(0xee, b"say bye", &msgs);
        let (mut credit, mut work) = (SCREEN_START, 0);
        assert_eq!(
            screen(&pads.groups[0], None, false, &mut credit, &mut work),
            None
        );
        // Too little credit: nothing, and nothing spent past it.
        let (mut credit, mut work) = (500, 0);
        assert_eq!(screen(g, None, false, &mut credit, &mut work), None);
        assert!(work <= 500);
    }

    #[test]
    fn strings_are_written_as_the_server_sends_them() {
        let mut all = Vec::new();
        for_each_text(None, false, |t| {
            all.push(t.to_vec());
            Ok::<(), ()>(())
        })
        .unwrap();
        assert_eq!(all.len(), 10 * (1 + 1099 + 1) + 1000);
        // The likeliest first: a flow short of credit still tries them.
        let at = |t: &[u8]| all.iter().position(|a| a == t).unwrap();
        assert!(at(b"cs 6 \"1\"\n") < 64, "{}", at(b"cs 6 \"1\"\n"));
        assert!(at(b"respawn 0") < 64, "{}", at(b"respawn 0"));
        assert!(all.contains(&b"respawn 999".to_vec()));
        assert!(!all.contains(&b"tinfo 1".to_vec()));
        assert!(all.contains(&b"cs 6 \"1\"\n".to_vec()));
        assert!(all.contains(&b"cs 7 \"-9999\"\n".to_vec()));
        assert!(all.contains(&b"cs 5 \"\"\n".to_vec()));
        assert!(all.contains(&b"cs 19 \"-3\"\n".to_vec()));
        assert!(all.contains(&b"cs 22 \"999\"\n".to_vec()));
    }

    /// OpenArena's first death in the busy capture: the snapshot that carried the command has
    /// server time 55,350, the command is `respawn 57058` (1,700 ms and 8 clients later). Near
    /// a known server time the window's numbers follow the small ones; without one, none.
    #[test]
    fn respawn_times_are_screened_near_the_known_server_time() {
        let texts = |time: Option<i32>| {
            let mut all = Vec::new();
            for_each_text(time.map(|t| (t, 0)), false, |t| {
                all.push(t.to_vec());
                Ok::<(), ()>(())
            })
            .unwrap();
            all
        };
        let plain = texts(None);
        // Sent a frame late, or its messages lost: either side of the newest time known.
        for newest in [55_350, 55_285, 53_400, 57_300] {
            let near = texts(Some(newest));
            assert_eq!(near[..plain.len()], plain[..]);
            let window = (EARLIER + LATER + MAX_CLIENTS) as usize;
            assert_eq!(near.len(), plain.len() + window, "{newest}");
            assert!(near.contains(&b"respawn 57058".to_vec()), "{newest}");
        }
        assert!(!texts(Some(53_200)).contains(&b"respawn 57058".to_vec()));
        assert!(!texts(Some(57_400)).contains(&b"respawn 57058".to_vec()));
        // Early in a map the window does not repeat the small numbers.
        assert!(respawn_times(Some((0, 0))).eq(1000..=3764));
        // Any time read off the wire: no overflow.
        assert_eq!(respawn_times(Some((i32::MAX, 0))).count(), 300);
        assert_eq!(respawn_times(Some((i32::MIN, 0))).count(), 0);
    }
}
