//! A lost `say` line read off the server message that echoes it.
//!
//! A legacy server message is keyed with the last client command the server received
//! (ioquake3 code/server/sv_net_chan.c `SV_Netchan_Encode`, `lastClientCommandString`). When
//! that command is a `say X` the capture lost (or sent before a cut), the first server message
//! keyed with it also carries the server's echo of it, `chat "<name>^7\x19: ^2X"` (OpenArena
//! code/game/g_cmds.c `G_Say` / `G_SayTo`), as the first command after the reliable
//! acknowledge (sv_snapshot.c `SV_UpdateServerCommandsToClient` writes the commands the client
//! has not acknowledged before the snapshot). So that message's plaintext is known from its
//! first bit through the name: the acknowledge (readable), `svc_serverCommand`, the command's
//! number and the echo's head, Huffman-coded with the static tree (msg.c `MSG_WriteLong`,
//! `MSG_WriteByte`, `MSG_WriteString`). Each plaintext byte with the keyed byte gives a pad
//! byte, and each pad byte one key-string character (`Z_k ^ Z_(k-1)`, shifted left on odd
//! bytes): `say ` and then the line itself. The key runs ahead of the plaintext (the echo's
//! head is two dozen characters before the line starts in it, and a Huffman-coded character
//! takes less than a byte), so every character read extends the plaintext, which gives more
//! characters, until the key string has restarted (`say ` again) and the plaintext has passed
//! the line's end, after which the bytes read no more characters. The line is where the key
//! restarts. It is taken only when its pad de-keys every pooled message of the group into a
//! clean parse, and only when exactly one line (and challenge byte) does.

use super::{GROUPS, PadPool, Pads, Pooled, TRIAL, dekeyed_pool, keyed_from, pad_of, spend};
use crate::protocols::quake3::State;
use crate::protocols::quake3::bits::BitWriter as Plain;
use crate::protocols::quake3::constants::Svc;
use crate::protocols::quake3::userinfo;

/// Server command numbers tried before and after the newest one the flow knows: the group is
/// tried after the client acknowledged the echo and the server sent more (a map change sends
/// five), and a command the client has not acknowledged yet is sent again before it.
const BEFORE: u32 = 16;
const AFTER: u32 = 3;
/// Pooled messages tried as the echo's carrier: the first the server sent with the key string
/// (the client acknowledges the echo in its next message), the next ones in case it was lost.
const CARRIERS: usize = 3;
/// The longest chat line read (ioquake3 code/game/g_cmds.c `MAX_SAY_TEXT`, 150).
const MAX_LINE: usize = 150;
/// Key-string characters of the restart that must be read before a line is taken.
const REPEAT_SEEN: usize = 4;
/// Echo heads tried at most (learned wrappings and known names).
const HEADS: usize = 12;

/// The key-string characters pad bytes give from challenge byte `cb`: `Z_k ^ Z_(k-1)` (`cb`
/// before the first), shifted left on odd bytes, up to the first difference no character
/// gives (the transform sends `%` and bytes above 127 as `.`, and a string has no NUL).
pub(super) fn key_chars(pad: &[u8], cb: u8) -> Vec<u8> {
    let mut out = Vec::with_capacity(pad.len());
    let mut prev = cb;
    for (k, &z) in pad.iter().enumerate() {
        let Some(c) = super::char_between(k, prev, z) else {
            break;
        };
        if c == 0 || c == b'%' {
            break;
        }
        out.push(c);
        prev = z;
    }
    out
}

/// The plaintext a server message keyed with a `say` starts with when it echoes it: the
/// reliable acknowledge `ack`, then `svc_serverCommand` number `number` and the echo's `head`.
fn echo_start(ack: u32, number: u32, head: &[u8]) -> Plain {
    let mut w = Plain::default();
    w.long(i64::from(ack));
    w.sym(Svc::SERVER_COMMAND.0);
    w.long(i64::from(number));
    w.chars(head);
    w
}

/// The pad bytes pooled message `m` gives if its plaintext starts with `start` and then
/// `more` (its whole bytes only). `None` when the acknowledge's unkeyed bytes are not the ones
/// written.
fn pad_under(m: &Pooled, start: &Plain, more: &[&[u8]]) -> Option<Vec<u8>> {
    let from = keyed_from(false);
    let mut w = Plain {
        data: start.data.clone(),
        pos: start.pos,
    };
    for text in more {
        w.chars(text);
    }
    m.pad_given(&w, from)
}

/// The key-string characters of [`pad_under`]'s pad under challenge byte `cb`, when every
/// pad byte gives one (a short read means the plaintext went wrong).
fn read_key(m: &Pooled, start: &Plain, more: &[&[u8]], cb: u8) -> Option<Vec<u8>> {
    let pad = pad_under(m, start, more)?;
    let chars = key_chars(&pad, cb);
    (chars.len() == pad.len()).then_some(chars)
}

/// The key string's characters read ahead of a plaintext that repeats them: `start`, then the
/// characters read after the key string's own `lead` (`say `, `userinfo "\name\`), as they
/// are read, until no more come. Returns the challenge byte and what was read (it starts with
/// `lead`), and the work spent.
fn read_ahead(
    m: &Pooled,
    start: &Plain,
    lead: &[u8],
    cb: Option<u8>,
    cap: usize,
) -> (Option<(u8, Vec<u8>)>, u64) {
    let mut known: Vec<u8> = Vec::new();
    let mut work = 0;
    let first = lead.first().copied().unwrap_or(0);
    loop {
        work += 1 + known.len() as u64 / 16;
        let Some(pad) = pad_under(m, start, &[&known]) else {
            return (None, work);
        };
        let cb = cb.unwrap_or(pad[0] ^ first);
        let read = key_chars(&pad, cb);
        if !read.starts_with(lead) {
            return (None, work);
        }
        if read.len() - lead.len() <= known.len() || known.len() > cap {
            return (Some((cb, read)), work);
        }
        known = read[lead.len()..].to_vec();
    }
}

/// The `say` lines (whole key strings, with the challenge byte) that pooled message `m` gives
/// if it starts with the echo `start` (the line's characters appended as they are read), under
/// challenge byte `cb` when known. Returns the candidates and the work spent.
fn lines_from(m: &Pooled, start: &Plain, cb: Option<u8>) -> (Vec<(u8, Vec<u8>)>, u64) {
    let (read, mut work) = read_ahead(m, start, b"say ", cb, 2 * MAX_LINE + 8);
    let Some((cb, read)) = read else {
        return (Vec::new(), work);
    };
    // The line ends where the key string restarts: with the echo's closing quote and
    // terminator after the line, the plaintext's whole bytes must give the string and at least
    // `REPEAT_SEEN` characters of its repeat, every one of them.
    let line = &read[4..];
    let mut out = Vec::new();
    for len in 1..=line.len().min(MAX_LINE) {
        if !b"say ".starts_with(&line[len..line.len().min(len + 4)]) {
            continue;
        }
        let text = [b"say ", &line[..len]].concat();
        work += 1 + len as u64 / 16;
        let Some(chars) = read_key(m, start, &[&line[..len], b"\"\0"], cb) else {
            continue;
        };
        let repeats = chars
            .iter()
            .enumerate()
            .all(|(j, &c)| c == text[j % text.len()]);
        if repeats && chars.len() >= text.len() + REPEAT_SEEN {
            // A longer length that also fits is this line repeated: its shortest form.
            out.push((cb, text));
            break;
        }
    }
    (out, work)
}

/// What comes before a renamed player's new name in its `userinfo` command (cl_main.c
/// `CL_CheckUserinfo`, the `name` cvar first), which keys the server's messages after it.
const USERINFO_LEAD: &[u8] = b"userinfo \"\\name\\";

/// The new name that pooled message `m` gives if it starts with the rename's announcement
/// `start` (`print "<old>^7 renamed to `, OpenArena code/game/g_client.c
/// `ClientUserinfoChanged`) and is keyed with the renamed player's `userinfo`: the key runs
/// ahead of the announcement, so the name is read off the key up to its `\`, and then the
/// announcement's end (`\n"`) must give the same key. Returns the challenge byte, the name,
/// and the work spent.
fn rename_from(m: &Pooled, start: &Plain, cb: Option<u8>) -> (Option<(u8, Vec<u8>)>, u64) {
    let (read, mut work) = read_ahead(m, start, USERINFO_LEAD, cb, 40);
    let Some((cb, read)) = read else {
        return (None, work);
    };
    let rest = &read[USERINFO_LEAD.len()..];
    let Some(end) = rest.iter().position(|&c| c == b'\\') else {
        return (None, work);
    };
    let name = &rest[..end];
    if name.is_empty() || name.len() > 36 || name.contains(&b'"') {
        return (None, work);
    }
    work += 1;
    let key = [USERINFO_LEAD, name, b"\\"].concat();
    let Some(chars) = read_key(m, start, &[name, b"\n\"\0"], cb) else {
        return (None, work);
    };
    let agree = chars.len() >= key.len() && chars.starts_with(&key);
    (agree.then(|| (cb, name.to_vec())), work)
}

/// Characters an unknown old name is grown from: printable, without the info-string
/// separators (g_client.c `ClientCleanName` keeps printable characters; `\\` and `"` cannot
/// be in an info value) and `%` (sent as `.`).
fn name_chars() -> impl Iterator<Item = u8> {
    (32u8..127).filter(|&c| c != b'\\' && c != b'"' && c != b'%')
}
/// Old names kept per character while they are grown, and the longest grown.
const OLD_BEAM: usize = 1024;
const MAX_OLD: usize = 24;
/// Work steps per old name looked at (its plaintext written and its key read).
const OLD_STEP: u64 = 4;

/// Whether plaintext `w` gives key characters (under `cb`, or the one that makes the first
/// `u`) that all start a renamed player's `userinfo` as far as they go, past its lead only
/// characters; and whether they reach past the lead (nothing checks the plaintext after).
fn lead_fits(m: &Pooled, w: &Plain, cb: Option<u8>) -> Option<bool> {
    let pad = pad_under(m, w, &[])?;
    let cb = cb.unwrap_or(pad[0] ^ b'u');
    let chars = key_chars(&pad, cb);
    let fits = chars.len() == pad.len() && chars.iter().zip(USERINFO_LEAD).all(|(a, b)| a == b);
    fits.then_some(chars.len() >= USERINFO_LEAD.len())
}

/// [`rename_from`] when the old name is not known either: `start` is the announcement's
/// plaintext up to `print "`. The old name comes before the new in the announcement but after
/// `userinfo "\\name\\` in the key, so each of its characters is checked by the key's
/// known characters the plaintext reveals; the names are grown one character at a time (at
/// most [`OLD_BEAM`] kept), each tried as the whole old name. Returns the challenge byte and
/// the new name when exactly one is found, within `budget` steps (spent from it).
fn rename_unknown(
    m: &Pooled,
    start: &Plain,
    cb: Option<u8>,
    budget: &mut u64,
) -> Option<(u8, Vec<u8>)> {
    *budget = budget.checked_sub(OLD_STEP)?;
    if lead_fits(m, start, cb) != Some(false) {
        return None;
    }
    // Old names still checked by the key's lead; those past it are only tried whole.
    let mut beam: Vec<Plain> = vec![start.clone()];
    let mut found: Option<(u8, Vec<u8>)> = None;
    for _ in 0..MAX_OLD {
        let mut next = Vec::new();
        let mut past = Vec::new();
        for w in &beam {
            for c in name_chars() {
                *budget = budget.checked_sub(OLD_STEP)?;
                let mut w = w.clone();
                w.sym(c);
                match lead_fits(m, &w, cb) {
                    Some(false) => next.push(w),
                    Some(true) => past.push(w),
                    None => {}
                }
                if next.len() + past.len() > OLD_BEAM {
                    return None;
                }
            }
        }
        for w in next.iter().chain(&past) {
            let mut whole = w.clone();
            whole.chars(b"^7 renamed to ");
            let (name, spent) = rename_from(m, &whole, cb);
            *budget = budget.checked_sub(spent * OLD_STEP)?;
            match (&found, name) {
                (Some(f), Some(n)) if *f != n => return None,
                (_, Some(n)) => found = Some(n),
                _ => {}
            }
        }
        if next.is_empty() {
            break;
        }
        beam = next;
    }
    found
}

/// The commands a group's first message is tried as.
enum Head {
    /// A `say` line's echo, its head known.
    Say,
    /// A rename's announcement, the old name known.
    Rename,
    /// A rename's announcement, the old name not known.
    UnknownOld,
}

/// Keeps `first`, the first message pooled in server-message group `ack`, among `firsts` (the
/// newest [`GROUPS`]).
pub(super) fn keep_first(firsts: &mut Vec<(u32, Pooled)>, ack: u32, first: Option<&Pooled>) {
    let Some(m) = first else { return };
    if firsts.iter().any(|f| f.0 == ack) {
        return;
    }
    if firsts.len() >= GROUPS {
        firsts.remove(0);
    }
    firsts.push((ack, m.copy()));
}

impl Pooled {
    fn copy(&self) -> Pooled {
        Pooled {
            body: self.body.clone(),
            base: self.base,
            sequence: self.sequence,
        }
    }
}

/// What reading a group's key off its first message gave.
pub enum Echoed {
    Nothing,
    /// The group's `say` line: its pad is known and the line filed.
    Line,
    /// A renamed player's new name (with the challenge byte): the group is keyed with that
    /// player's `userinfo`, to predict.
    Renamed(u8, Vec<u8>),
}

impl Pads {
    /// Whether server-message group `ack` is due a try of [`Pads::try_echo`]: its pad still
    /// unknown, at 4 pooled messages and each time their number doubles (once each).
    /// `now`: whatever the count (just before a message overtakes the group's held ones).
    fn echo_due(&mut self, ack: u32, now: bool) -> bool {
        let Some(g) = self.get(false, ack) else {
            return false;
        };
        let (added, epoch) = (g.added, self.names_epoch);
        let last = self.echoed.iter().find(|e| e.0 == ack).copied();
        let tried = last.is_some_and(|e| (e.1, e.2) == (added, epoch));
        // Names overheard since the last try: the group is due again at once.
        let renamed = last.is_some_and(|e| e.2 != epoch);
        let due = now || added.is_power_of_two() || renamed;
        if !g.pad.is_empty() || g.msgs.len() < if now { 1 } else { 4 } || !due || tried {
            return false;
        }
        self.echoed.retain(|e| e.0 != ack);
        if self.echoed.len() >= GROUPS {
            self.echoed.remove(0);
        }
        self.echoed.push((ack, added, epoch));
        true
    }

    /// The flow's names changed from outside its own messages (`State::overheard_names`): every
    /// group tried before is due another try of its echo at its next message.
    pub fn names_changed(&mut self) {
        self.names_epoch = self.names_epoch.wrapping_add(1);
    }

    /// Tries to read the key of server-message group `ack` (its pad still unknown) off a
    /// pooled message whose plaintext starts with a known command: the echo of a `say` line,
    /// with each of `heads` (the echo's text up to the line), or a rename's announcement, with
    /// each of `olds` (the names before it) or none known, as the command numbered about
    /// `newest` (the newest server command the flow knows), when due (`echo_due`; `now`: just
    /// before a message overtakes the group's held ones). A line is taken when exactly one
    /// fits every pooled message (a clean parse to its last byte each): the group gets its
    /// pad, the line is filed as the client's command and the challenge byte is known. A new
    /// name is returned for the caller to predict the `userinfo` with.
    pub fn try_echo(
        &mut self,
        ack: u32,
        (heads, olds): (&[Vec<u8>], &[Vec<u8>]),
        (newest, now): (u32, bool),
        cb: Option<u8>,
    ) -> Echoed {
        let cb = cb.or(self.challenge);
        if !self.echo_due(ack, now) {
            return Echoed::Nothing;
        }
        let first = (self.firsts.iter())
            .find(|f| f.0 == ack)
            .map(|f| f.1.copy());
        let Some((g, credit, work, harvest)) = self.tried((false, ack)) else {
            return Echoed::Nothing;
        };
        let mut carriers: Vec<&Pooled> = g.msgs.iter().collect();
        carriers.sort_unstable_by_key(|m| m.sequence);
        carriers.truncate(CARRIERS);
        let first = first.filter(|f| g.msgs.iter().all(|m| m.sequence != f.sequence));
        carriers.extend(first.as_ref());
        let mut found: Vec<(u8, Vec<u8>)> = Vec::new();
        let mut names: Vec<(u8, Vec<u8>)> = Vec::new();
        let renames = olds
            .iter()
            .map(|o| [b"print \"", &o[..], b"^7 renamed to "].concat());
        // The announcement with the old name unknown too (a cut before any name showed).
        let unknown = std::iter::once((Head::UnknownOld, b"print \"".to_vec()));
        let all: Vec<(Head, Vec<u8>)> = (heads.iter().map(|h| (Head::Say, h.clone())))
            .chain(renames.map(|h| (Head::Rename, h)))
            .take(2 * HEADS)
            .chain(unknown)
            .collect();
        for (kind, head) in &all {
            for number in newest.saturating_sub(BEFORE)..=newest.saturating_add(AFTER) {
                let start = echo_start(ack, number, head);
                for &m in &carriers {
                    let (spent, into) = match kind {
                        Head::Say => {
                            let (lines, spent) = lines_from(m, &start, cb);
                            (spent, (lines, &mut found))
                        }
                        Head::Rename => {
                            let (name, spent) = rename_from(m, &start, cb);
                            (spent, (name.into_iter().collect(), &mut names))
                        }
                        Head::UnknownOld => {
                            let mut budget = *credit;
                            let name = rename_unknown(m, &start, cb, &mut budget);
                            (*credit - budget, (name.into_iter().collect(), &mut names))
                        }
                    };
                    if !spend(credit, work, spent) {
                        return Echoed::Nothing;
                    }
                    for l in into.0 {
                        if !into.1.contains(&l) {
                            into.1.push(l);
                        }
                    }
                }
            }
        }
        let fitting = fits(g, &found, credit, work);
        let [(cb, text)] = &fitting[..] else {
            return match &names[..] {
                [(cb, name)] => Echoed::Renamed(*cb, name.clone()),
                _ => Echoed::Nothing,
            };
        };
        g.pad = pad_of(*cb, text, keyed_from(false), g.longest());
        g.from = g.added;
        harvest.extend(dekeyed_pool(g));
        let (cb, text) = (*cb, text.clone());
        self.texts.push((false, ack, text));
        self.challenge.get_or_insert(cb);
        Echoed::Line
    }
}

/// The candidate lines whose pad de-keys every pooled message of `g` into a clean parse.
fn fits(
    g: &PadPool,
    found: &[(u8, Vec<u8>)],
    credit: &mut u64,
    work: &mut u64,
) -> Vec<(u8, Vec<u8>)> {
    let mut out = Vec::new();
    let (mut probe, mut scratch) = (State::default(), Vec::new());
    for (cb, text) in found {
        if !spend(credit, work, TRIAL * g.msgs.len() as u64) {
            break;
        }
        let pad = pad_of(*cb, text, keyed_from(false), g.longest());
        if (g.msgs.iter()).all(|m| g.dekeys(m, &pad, &mut probe, &mut scratch)) {
            out.push((*cb, text.clone()));
        }
    }
    out
}

impl State {
    /// The heads of the server's echo of a client's `say` (the text before the line): the
    /// wrappings learned from captured pairs (a server `chat` text containing a captured `say`
    /// line), then OpenArena's for each player name the flow knows (g_cmds.c `G_Say`:
    /// `chat "<name>^7\x19: ^2<line>"`).
    pub(in crate::protocols::quake3) fn echo_heads(&self, names: &[Vec<u8>]) -> Vec<Vec<u8>> {
        let mut heads: Vec<Vec<u8>> = Vec::new();
        let says: Vec<&[u8]> = (self.client_cmds.texts())
            .filter_map(|(_, t)| t.strip_prefix(b"say "))
            .filter(|x| x.len() >= 3)
            .collect();
        for (_, t) in self.server_cmds.texts() {
            if !t.starts_with(b"chat \"") {
                continue;
            }
            for x in &says {
                if let Some(at) = t.windows(x.len()).position(|w| w == *x)
                    && !heads.iter().any(|h| h == &t[..at])
                {
                    heads.push(t[..at].to_vec());
                }
            }
        }
        for name in names.iter().take(userinfo::NAMES) {
            let head = [b"chat \"", &name[..], b"^7\x19: ^2"].concat();
            if !heads.contains(&head) {
                heads.push(head);
            }
        }
        heads.truncate(HEADS);
        heads
    }

    /// [`Pads::try_echo`] for server-message group `ack`, with the flow's echo heads, its
    /// player names and its newest server command number (captured, or acknowledged by a
    /// pooled client message). A new name read off a rename gives the player's likely
    /// `userinfo` ([`State::predicted_userinfos`]), tried on the group as a beginning.
    pub fn try_echo(&mut self, ack: u32) -> bool {
        let names = self.known_names();
        self.echo(ack, &names, false)
    }

    /// [`State::try_echo`] just before a server message overtakes the held messages of group
    /// `ack`, with the names that message shows first (`names`): a chat line's echo often
    /// shows the speaker's name first, and the group's own echo needs it.
    pub fn try_echo_held(&mut self, ack: u32, names: &[Vec<u8>]) -> bool {
        self.echo(ack, names, true)
    }

    fn echo(&mut self, ack: u32, names: &[Vec<u8>], now: bool) -> bool {
        let heads = self.echo_heads(names);
        let olds = names;
        let known = self.server_cmds.texts().map(|(n, _)| n);
        let Some(newest) = known.chain(self.pads.client_acks()).max() else {
            return false;
        };
        let cb = self.xor_challenge();
        match self.pads.try_echo(ack, (&heads, olds), (newest, now), cb) {
            Echoed::Nothing => false,
            Echoed::Line => true,
            Echoed::Renamed(cb, name) => {
                let texts = self.predicted_userinfos(&[name]);
                let taken = self.pads.try_prefixes((false, ack), &texts, cb);
                if taken {
                    self.pads.challenge.get_or_insert(cb);
                }
                taken
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A server message as the server sends it: the acknowledge, the echo command, a
    /// snapshot-like tail of `tail` bytes of symbol 0, and `svc_EOF`.
    fn echo_message(ack: u32, number: u32, cmd: &[u8], tail: usize) -> Vec<u8> {
        let mut w = echo_start(ack, number, cmd);
        w.sym(0);
        for _ in 0..tail {
            w.sym(Svc::NOP.0);
        }
        w.sym(Svc::EOF.0);
        w.data
    }

    fn keyed(body: &[u8], cb: u8, text: &[u8], base: u8) -> Pooled {
        let mut body = body.to_vec();
        let from = keyed_from(false);
        let pad = pad_of(cb, text, from, body.len() - from);
        super::super::apply(&mut body, from, base, &pad);
        Pooled {
            body,
            base,
            sequence: 0,
        }
    }

    #[test]
    fn key_chars_read_a_string_off_its_pad() {
        let pad = pad_of(0x7c, b"say hi", 4, 10);
        assert_eq!(key_chars(&pad, 0x7c), b"say hisay ");
    }

    #[test]
    fn the_line_is_read_off_the_message_that_echoes_it() {
        let line = b"05: renamed now, weapons next";
        let say = [b"say ", &line[..]].concat();
        let cmd = [b"chat \"BusyRenamed^7\x19: ^2", &line[..], b"\""].concat();
        let body = echo_message(8, 11, &cmd, 40);
        let m = keyed(&body, 0x7c, &say, 0x33);
        let head = b"chat \"BusyRenamed^7\x19: ^2";
        let start = echo_start(8, 11, head);
        // The challenge byte unknown: found with the line.
        let (lines, work) = lines_from(&m, &start, None);
        assert_eq!(lines, [(0x7c, say.clone())]);
        assert!(work > 0);
        // Known and right: the same; known and wrong, or another head, nothing.
        assert_eq!(lines_from(&m, &start, Some(0x7c)).0, [(0x7c, say)]);
        assert!(lines_from(&m, &start, Some(0x7d)).0.is_empty());
        let other = echo_start(8, 11, b"chat \"BusyPlayer^7\x19: ^2");
        assert!(lines_from(&m, &other, None).0.is_empty());
        // Another command number: the plaintext differs from its fifth byte or so.
        assert!(lines_from(&m, &echo_start(8, 12, head), None).0.is_empty());
    }

    /// Frame 2604 of captures/quake3-openarena-busy.pcap, the server's first message keyed
    /// with the client's `say 05: renamed now, weapons next` (command 8), which carries its
    /// echo as command 11 (sequence 1278; the challenge byte is 0x7c).
    const FRAME_2604: &str = concat!(
        "558d58a87e0ad4e677d465e653cdf7f8936af5cbba50a2e43033629574541282",
        "6e89f7cb534e529e447353ca1fc3632a200937187c536aa07a82cecf7facfd0c",
        "789d2808dfce8be5e67bebfde3b8fb9a2bc9332cbe1344e15e2519d2826ce654",
        "5da7331bbe8f75f41a7e90eba38e567bb6a393a64feefa7006238cbd4eff1511",
        "72",
    );

    #[test]
    fn the_real_echo_gives_the_line_and_the_challenge_byte() {
        let body = crate::protocols::quake3::bits::tests::hex(FRAME_2604);
        let m = Pooled {
            body,
            base: 1278u32 as u8,
            sequence: 1278,
        };
        let start = echo_start(8, 11, b"chat \"BusyRenamed^7\x19: ^2");
        let (lines, _) = lines_from(&m, &start, None);
        assert_eq!(
            lines,
            [(0x7c, b"say 05: renamed now, weapons next".to_vec())]
        );
        // Under the name before the rename, nothing.
        let old = echo_start(8, 11, b"chat \"BusyPlayer^7\x19: ^2");
        assert!(lines_from(&m, &old, None).0.is_empty());
    }

    #[test]
    fn a_new_name_is_read_off_the_rename_announcement() {
        let info = b"userinfo \"\\name\\BusyRenamed\\model\\sarge\\rate\\25000\"";
        let cmd = b"print \"BusyPlayer^7 renamed to BusyRenamed\n\"";
        let body = echo_message(7, 9, cmd, 60);
        let m = keyed(&body, 0x7c, info, 0x41);
        let start = echo_start(7, 9, b"print \"BusyPlayer^7 renamed to ");
        let (name, _) = rename_from(&m, &start, None);
        assert_eq!(name, Some((0x7c, b"BusyRenamed".to_vec())));
        let other = echo_start(7, 9, b"print \"Sarge^7 renamed to ");
        assert_eq!(rename_from(&m, &other, None).0, None);
        // The old name not known either: grown through the key's known start.
        let bare = echo_start(7, 9, b"print \"");
        let mut budget = 1 << 24;
        let found = rename_unknown(&m, &bare, None, &mut budget);
        assert!((1u64 << 24) - budget < 100_000, "{budget}");
        assert_eq!(found, Some((0x7c, b"BusyRenamed".to_vec())));
    }
}
