//! The usercmd key without the gamestate.
//!
//! A client keys each usercmd with `checksumFeed ^ messageAcknowledge ^ MSG_HashKey(text of the
//! acknowledged server command) ^ serverTime` (ioquake3 code/client/cl_input.c
//! `CL_WriteUsercmd`, code/qcommon/msg.c `MSG_WriteDeltaUsercmdKey`; the server undoes it in
//! code/server/sv_client.c `SV_UserMove`). Only the low 16 bits of the key matter (angles and
//! buttons are 16-bit fields, the rest 8-bit), and messageAcknowledge and serverTime are on the
//! wire unkeyed. So for every message acknowledging the same server command the one unknown is
//! `U = low16(checksumFeed ^ hash)`, and once U and the command's text are known,
//! `low16(checksumFeed)` keys every later message whose acknowledged text was captured.
//!
//! U is decided in steps, each used as soon as it is known (a field's key is masked to the
//! field's width, so the low byte alone de-keys forward, right, up and weapon). Exactly, by
//! [`link`]: the client repeats its last packet's usercmds in the next one, so a usercmd seen
//! before under a known key gives U = value sent XOR value known. Otherwise by plausibility over
//! the values the client sent (each observation is a value XOR U): the low byte from the 8-bit
//! fields (weapon a small number, moves ±127, ±64 or 0), the high byte's low seven bits from the
//! angles' continuity (a wrong XOR in the high byte makes the view jump where the true angle
//! crosses a 1.4° sector boundary), and its top bit from the buttons (no button above bit 11
//! exists, ioquake3 code/qcommon/q_shared.h `BUTTON_*`) and from angles sent shortly after the
//! same angle was known (no half turn in 50 ms). A candidate is taken only when it beats every
//! other by a clear margin: a player who never turns leaves the high byte undecided, and the
//! angles and buttons then stay keyed, with a note.

/// One usercmd value: the field (index into `client::USERCMD_FIELDS`) and, when `known` is 0,
/// the value as sent XOR U (masked to the field's width), in the order the client sent them;
/// otherwise an *anchor*: the bits `known` of the true value, read under a key that covered
/// them.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct UcmdObs {
    pub field: u8,
    pub v: u16,
    /// The usercmd's serverTime (unkeyed): orders the angles, and names the usercmd, which the
    /// client repeats in its next packet (cl_packetdup).
    pub t: i32,
    pub known: u16,
    /// Sent in the first usercmd of its packet, a delta from an all-zero usercmd
    /// (`CL_WritePacket`): sent because it is not 0, where a later usercmd sends a field only
    /// when it changed.
    pub first: bool,
}

/// Observations kept per acknowledged command (the newest).
pub const MAX_OBS: usize = 512;
/// Acknowledged commands searched at once (the oldest is replaced).
pub const MAX_GROUPS: usize = 4;
/// Buttons values kept per group.
pub const MAX_BUTTONS: usize = 64;
/// How close in time a known angle must be to vote for the top bit of a keyed one.
pub const NEAR_MS: i32 = 50;
/// Anchors kept (the newest), and taken from one message at most.
pub const MAX_ANCHORS: usize = 64;
pub const MESSAGE_ANCHORS: usize = 16;
/// A group is first searched at this many observations, then each time their number doubled,
/// and past `MAX_OBS` every `MAX_OBS / 2` new ones. A search visits each kept observation at
/// most 256 + 128 times, so the work per observation stays below 1,000 cheap steps, whatever
/// the input.
pub const FIRST_SEARCH: usize = 32;
/// Once the low byte is known, only the high byte is searched, every this many new values: 128
/// visits of each of at most `MAX_OBS` kept values, at most 1,024 steps per value.
pub const HIGH_EVERY: usize = 64;

/// A usercmd whose every value is known: its serverTime and its values in wire order.
pub type KnownCmd = (i32, [u16; 8]);

/// How a recovered key is known, shown in `quake3.clc.move.key`'s meaning.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Recovered {
    /// The 16 bits XORed with messageAcknowledge and serverTime (only `mask`'s bits are known).
    pub u: u16,
    /// The bits of `u` that are known: `0xff` or `0x7fff` (the 8-bit fields de-key) or
    /// `0xffff` (every field de-keys).
    pub mask: u16,
    /// How many usercmd values the recovery used.
    pub from: u32,
    /// Recovered by the first pass of `-2`, over the whole capture.
    pub hindsight: bool,
}

impl Recovered {
    /// Whether every bit of a field of width mask `w` is known.
    pub fn covers(&self, w: u16) -> bool {
        w & !self.mask == 0
    }
}

/// The bits known of a partly decided group: the low byte, then all 16.
pub const LOW_BYTE: u16 = 0xff;
pub const LOW_15: u16 = 0x7fff;
pub const ALL_BITS: u16 = 0xffff;

/// A group: the usercmd values sent in the messages that acknowledge one server command
/// (`rack`), all keyed with one unknown U, and what is decided of U.
struct AckObservations {
    rack: u32,
    found: Option<Recovered>,
    obs: Vec<UcmdObs>,
    /// The buttons values, kept apart (the newest `MAX_BUTTONS`): they are rare, and only they
    /// fix U's top bit, possibly long after the turns fixed the rest.
    buttons: Vec<UcmdObs>,
    /// U's low byte once the 8-bit fields fixed it; its low 15 bits once the turns fixed the
    /// rest of them; and the buttons' votes for its top bit. `linked`: all 16 bits, from a
    /// usercmd also sent under a known key.
    low: Option<u8>,
    low15: Option<u16>,
    /// U's low 15 bits as the last high-byte search found them (a pick not clearly the
    /// smoothest is taken only when the next search makes it again).
    high_pick: Option<u16>,
    linked: Option<u16>,
    votes: [u32; 2],
    /// Angles sent keyed, each with the same angle known shortly before (the newest
    /// `MAX_BUTTONS`): votes for the top bit, as a view does not turn half round in
    /// `NEAR_MS`.
    near: Vec<(UcmdObs, u16)>,
    /// Observations added so far, and the count at which the next search runs.
    seen: usize,
    next_search: usize,
}

/// Per-flow recovery state, reset by each gamestate (a new map has a new checksumFeed), and
/// tied to the serverId its values were sent under: a client message names the serverId of the
/// gamestate it holds (ioquake3 code/client/cl_input.c `CL_WritePacket`), so a move under another
/// serverId was keyed with another map's checksumFeed, one whose gamestate the capture may have
/// lost.
#[derive(Default)]
pub struct UcmdKeys {
    /// The recovery under the serverId of the newest values.
    cur: Level,
    /// Values known in recent messages, for [`link`].
    anchors: std::collections::VecDeque<UcmdObs>,
    /// The last two usercmds (serverTime and values) of the last message decoded with its whole
    /// key while no key was being recovered, set in place (see [`UcmdKeys::remember`]): the
    /// first message of a run keyed with an unknown key repeats them.
    last: std::cell::Cell<[Option<KnownCmd>; 2]>,
    pub searches: u32,
    /// low16(checksumFeed) of the serverIds left behind (a map change), oldest first, at most
    /// [`MAX_FEEDS`]: with the current one, what a first pass (`-2`) hands on.
    past: Vec<(i32, Recovered)>,
    /// `-2`: those the first pass recovered, used for a serverId whose own is not known yet.
    hints: Vec<(i32, Recovered)>,
    /// The recovery of the serverId before this one, kept apart: a late message of the old
    /// level (held while its XOR pad was searched for, or out of order) goes on with it, and
    /// neither clears nor reads the new level's.
    prev: Option<Box<Level>>,
}

/// One serverId's recovery.
#[derive(Default)]
struct Level {
    /// The serverId the kept values and keys were sent under.
    server_id: Option<i32>,
    /// low16(checksumFeed) with the number of values it was recovered from.
    feed_low: Option<Recovered>,
    groups: Vec<AckObservations>,
}

/// serverIds whose recovered low16(checksumFeed) are kept for a second pass.
pub const MAX_FEEDS: usize = 4;

impl UcmdKeys {
    /// U for a message sent under `server_id` acknowledging command `rack` (`hash` = its text's
    /// hash when captured); none for a serverId other than the one the keys were learned under.
    pub fn lookup(
        &self,
        server_id: Option<i32>,
        rack: u32,
        hash: Option<u32>,
    ) -> Option<Recovered> {
        let level = match self.prev.as_deref() {
            Some(p) if self.is_prev(server_id) => p,
            _ => &self.cur,
        };
        let own = server_id == level.server_id;
        let found = (level.groups.iter())
            .find(|g| own && g.rack == rack)
            .and_then(|g| g.found);
        let Some(h) = hash else {
            return found;
        };
        // Every candidate is a recovery, never a guess: the one that knows the most bits wins
        // (a first pass's feed over this pass's partial one, or the group's own key recovered
        // before the text was known), this pass's feed on a tie. A group key that contradicts
        // this pass's feed is not taken, as its values are not (`move_to_feed`).
        let feed = own.then_some(level.feed_low).flatten();
        // A serverId left behind (a map change) keeps the feed recovered under it: a client
        // message held until after the change is decoded with it.
        let past = (!own).then(|| feed_of(&self.past, server_id)).flatten();
        let keyed = [feed, feed_of(&self.hints, server_id), past].map(|f| {
            f.map(|f| Recovered {
                u: (f.u ^ h as u16) & f.mask,
                ..f
            })
        });
        let agrees = |r: &Recovered| keyed[0].is_none_or(|f| (f.u ^ r.u) & f.mask & r.mask == 0);
        let bits = |r: &Recovered| r.mask.count_ones();
        (keyed.into_iter().flatten())
            .chain(found.filter(agrees))
            .reduce(|best, r| if bits(&r) > bits(&best) { r } else { best })
    }

    /// Whether `server_id` is the one before the current one.
    fn is_prev(&self, server_id: Option<i32>) -> bool {
        server_id.is_some()
            && self.cur.server_id.is_some()
            && server_id != self.cur.server_id
            && self.prev.as_ref().is_some_and(|p| p.server_id == server_id)
    }

    /// Makes the previous serverId's recovery the current one, and back.
    fn swap_prev(&mut self) {
        if let Some(p) = self.prev.as_deref_mut() {
            std::mem::swap(&mut self.cur, p);
        }
    }

    /// Leaves the current serverId's recovery behind: its feed among the past ones, the whole
    /// of it as the previous one.
    fn leave_level(&mut self) {
        if self.cur.server_id.is_none() {
            return;
        }
        self.leave_prev();
        let left = std::mem::take(&mut self.cur);
        if let Some((id, f)) = left.server_id.zip(left.feed_low) {
            self.keep_past(id, f);
        }
        self.prev = Some(Box::new(left));
    }

    /// Drops the previous serverId's recovery, its feed (grown since it was left behind, maybe)
    /// kept among the past ones.
    fn leave_prev(&mut self) {
        let Some(p) = self.prev.take() else { return };
        if let Some((id, f)) = p.server_id.zip(p.feed_low) {
            self.keep_past(id, f);
        }
    }

    /// Keeps serverId `id`'s feed among the past ones: in place of the one it had there when
    /// it knows as many bits (it grew since), else as the newest.
    fn keep_past(&mut self, id: i32, f: Recovered) {
        let had = self.past.iter().rposition(|&(i, _)| i == id);
        match had {
            Some(k) if self.past[k].1.mask.count_ones() <= f.mask.count_ones() => {
                self.past[k].1 = f;
            }
            Some(_) => {}
            None => self.leave_behind(id, f),
        }
    }

    /// Every serverId's recovered low16(checksumFeed) (whole or in part), oldest first: what
    /// this flow learned for a second pass.
    pub fn feeds(&self) -> Vec<(i32, Recovered)> {
        let now = self.cur.server_id.zip(self.cur.feed_low);
        // The previous serverId's may have grown since it was left behind.
        let prev = (self.prev.as_deref())
            .and_then(|p| p.server_id.zip(p.feed_low))
            .filter(|f| !self.past.contains(f));
        (self.past.iter().copied()).chain(prev).chain(now).collect()
    }

    /// Takes what a first pass recovered (`-2`), oldest first: per serverId the key with the
    /// most bits known (a state dropped at `--max-state` hands on what it had recovered then,
    /// and the restarted one its own), of the newest [`MAX_FEEDS`] serverIds.
    pub fn hint(&mut self, feeds: &[(i32, Recovered)]) {
        let mut best: Vec<(i32, Recovered)> = Vec::new();
        for &(id, r) in feeds {
            let better =
                |b: &Recovered| (r.mask.count_ones(), r.from) > (b.mask.count_ones(), b.from);
            match best.iter().position(|(i, _)| *i == id) {
                Some(k) if better(&best[k].1) => {
                    best.remove(k);
                    best.push((id, r));
                }
                Some(_) => {}
                None => best.push((id, r)),
            }
        }
        let newest = &best[best.len().saturating_sub(MAX_FEEDS)..];
        self.hints = (newest.iter())
            .map(|&(id, r)| {
                (
                    id,
                    Recovered {
                        hindsight: true,
                        ..r
                    },
                )
            })
            .collect();
    }

    /// The state for the flow's next connection: what it recovered per serverId and what a
    /// first pass handed it stay (a serverId's checksumFeed is the map's, the same for every
    /// connection: ioquake3 code/server/sv_init.c `SV_SpawnServer`); the rest starts over.
    pub fn for_new_connection(&mut self) -> UcmdKeys {
        // The level left stays the previous one, so that a late move of it does not take the
        // new level's place; but only with its feed: a group's key is for its command's text,
        // and a new connection numbers its commands afresh.
        self.leave_level();
        let prev = self.prev.take().map(|mut p| {
            p.groups.clear();
            p
        });
        UcmdKeys {
            past: std::mem::take(&mut self.past),
            hints: std::mem::take(&mut self.hints),
            prev,
            ..UcmdKeys::default()
        }
    }

    /// Keeps serverId `id`'s recovered feed among the newest [`MAX_FEEDS`] left behind.
    fn leave_behind(&mut self, id: i32, f: Recovered) {
        if self.past.len() == MAX_FEEDS {
            self.past.remove(0);
        }
        self.past.push((id, f));
    }

    /// The serverId the kept values and keys were sent under.
    pub fn server_id(&self) -> Option<i32> {
        self.cur.server_id
    }

    /// Whether the client messages should report their known values as anchors: while some
    /// key is being recovered, or may have to be (no gamestate captured).
    pub fn wants_anchors(&self) -> bool {
        let prev = self.prev.as_deref().map_or(&[][..], |p| &p.groups[..]);
        (self.cur.groups.iter().chain(prev)).any(|g| g.found.is_none_or(|r| r.mask != ALL_BITS))
    }

    /// Keeps the last two usercmds of a message whose every value is known (serverTime and the
    /// values in wire order) in place of the last message's: cheap enough for every message.
    pub fn remember(&self, cmds: [Option<KnownCmd>; 2]) {
        self.last.set(cmds);
    }

    /// The usercmds [`UcmdKeys::remember`] kept.
    pub fn remembered(&self) -> [Option<KnownCmd>; 2] {
        self.last.get()
    }

    /// Starts over when a message names another serverId than the kept values': a new map
    /// (its gamestate lost from the capture) has a new checksumFeed. The old one's recovery is
    /// kept as the previous one; the anchors stay: they are values, not keys.
    fn under(&mut self, server_id: i32) {
        if self.cur.server_id == Some(server_id) {
            return;
        }
        self.leave_level();
        self.cur.server_id = Some(server_id);
    }

    /// Runs `f`, a trial parse, and puts back the usercmds kept by [`UcmdKeys::remember`]: a
    /// parse under a guessed key string decodes the usercmds under a guessed key too, and its
    /// values must not become anchors (they made [`link`] and the top-bit votes decide wrong keys).
    pub fn untouched<R>(&self, f: impl FnOnce() -> R) -> R {
        let last = self.last.get();
        let r = f();
        self.last.set(last);
        r
    }

    /// Adds the observations and anchors of a message sent under `server_id`; true when this
    /// made more of its key known (the low byte, 15 bits, or all 16).
    pub fn learn(&mut self, server_id: i32, rack: u32, hash: Option<u32>, obs: &[UcmdObs]) -> bool {
        if !self.is_prev(Some(server_id)) {
            return self.learn_here(server_id, rack, hash, obs);
        }
        self.swap_prev();
        let more = self.learn_here(server_id, rack, hash, obs);
        self.swap_prev();
        more
    }

    /// [`UcmdKeys::learn`] under the current serverId, or a new one.
    fn learn_here(
        &mut self,
        server_id: i32,
        rack: u32,
        hash: Option<u32>,
        obs: &[UcmdObs],
    ) -> bool {
        self.under(server_id);
        self.keep_anchors(obs);
        // The number FEED names the checksumFeed pool: a client acknowledging it (any 32-bit
        // value on the wire) without its text would pool its own U there as the feed.
        if rack == FEED && hash.is_none() {
            return false;
        }
        if let Some(h) = hash {
            self.move_to_feed(rack, h as u16);
        }
        let known = self
            .lookup(self.cur.server_id, rack, hash)
            .map_or(0, |r| r.mask);
        if known == ALL_BITS || obs.iter().all(|o| o.known != 0) {
            return false;
        }
        // With the command's text captured, the values are pooled with every other such
        // message's, as value XOR low16(checksumFeed).
        let (rack, xor) = match hash {
            Some(h) => (FEED, h as u16),
            None => (rack, 0),
        };
        let obs: Vec<UcmdObs> = (obs.iter().filter(|o| o.known == 0))
            .map(|o| UcmdObs {
                v: o.v ^ (xor & width_mask(o.field)),
                ..*o
            })
            .collect();
        let i = self.group(rack);
        let g = &mut self.cur.groups[i];
        let obs = &obs[obs.len().saturating_sub(MAX_OBS)..];
        let over = (g.obs.len() + obs.len()).saturating_sub(MAX_OBS);
        g.obs.drain(..over);
        g.obs.extend_from_slice(obs);
        g.seen += obs.len();
        for o in obs.iter().filter(|o| o.field == BUTTONS) {
            if g.buttons.len() == MAX_BUTTONS {
                g.buttons.remove(0);
            }
            g.buttons.push(*o);
        }
        let near = near_pairs(obs, &self.anchors);
        for &p in &near {
            if g.near.len() == MAX_BUTTONS {
                g.near.remove(0);
            }
            g.near.push(p);
        }
        if let Some((u, m)) = link(obs, &self.anchors) {
            g.merge(u, m);
        } else if g.linked.is_none()
            && let Some(u) = still_link(obs, &self.anchors)
        {
            g.merge(u, ALL_BITS);
        }
        if let Some(low15) = g.low15 {
            // Only the top bit is missing: each buttons value and near angle votes as it comes.
            let v = top_votes(obs, &near, low15);
            g.votes = [g.votes[0] + v[0], g.votes[1] + v[1]];
        } else if g.seen >= g.next_search {
            self.searches += 1;
            g.next_search = g.seen + g.seen.min(MAX_OBS / 2);
            g.low = g.low.or_else(|| search_low(&g.obs));
            if g.low.is_some() {
                // The turns that decide the high byte may be short: it is searched more often.
                g.next_search = g.seen + HIGH_EVERY;
            }
            // A pick that is not clearly the smoothest is taken when the next search (64 values
            // on) makes it again: a high byte off by one smoothed a steady turn whose usercmds
            // the capture lost in places (busy legacy capture, 20 % loss, seed 10 of 25: 899
            // moves with the view 1.4° off).
            let pick = g.low.and_then(|b| search_high7(&g.obs, b));
            let again = |p: u16| g.high_pick == Some(p);
            g.low15 = pick.filter(|&(p, clear)| clear || again(p)).map(|(p, _)| p);
            g.high_pick = pick.map(|(p, _)| p);
            if let Some(low15) = g.low15 {
                g.votes = top_votes(&g.buttons, &g.near, low15);
            }
        }
        let from = g.seen.min(u32::MAX as usize) as u32;
        let (u, mask) = match g.linked.or(g.low15.and_then(|l| top_bit(g.votes, l))) {
            Some(u) => (u, ALL_BITS),
            None => match (g.low15, g.low) {
                (Some(l), _) => (l, LOW_15),
                (None, Some(b)) => (b as u16, LOW_BYTE),
                (None, None) => return false,
            },
        };
        if mask <= known {
            return false;
        }
        let found = Recovered {
            u,
            mask,
            from,
            hindsight: false,
        };
        if mask == ALL_BITS {
            (g.obs, g.buttons) = (Vec::new(), Vec::new());
        }
        if rack == FEED {
            self.cur.feed_low = Some(found);
            if mask == ALL_BITS {
                self.cur.groups.retain(|g| g.rack != FEED);
            }
        } else {
            g.found = Some(found);
        }
        true
    }

    /// Command `rack`'s text is now known (hash `h`): what its group learned, keyed with
    /// low16(checksumFeed) XOR `h`, joins the pool of every message whose text is known, and a
    /// key it found gives the feed. Started over instead, the feed took longer to find than
    /// the group had (`-2`, which knows a text from the start, then knew less than one pass).
    /// A key that contradicts the feed known (one of them is wrong, or the text is not what
    /// the client hashed) is dropped with the group's values: the feed is kept, as before.
    fn move_to_feed(&mut self, rack: u32, h: u16) {
        let Some(i) = (self.cur.groups.iter()).position(|g| g.rack == rack && rack != FEED) else {
            return;
        };
        let old = self.cur.groups.remove(i);
        if let Some(r) = old.found {
            let fed = Recovered {
                u: (r.u ^ h) & r.mask,
                ..r
            };
            let bits = |m: u16| m.count_ones();
            match self.cur.feed_low {
                Some(f) if (f.u ^ fed.u) & f.mask & fed.mask != 0 => return,
                Some(f) if bits(fed.mask) <= bits(f.mask) => {}
                _ => self.cur.feed_low = Some(fed),
            }
        }
        let known = self.cur.feed_low;
        if known.is_some_and(|f| f.mask == ALL_BITS) {
            self.cur.groups.retain(|g| g.rack != FEED);
            return;
        }
        let to_feed = |o: &UcmdObs| UcmdObs {
            v: o.v ^ (h & width_mask(o.field)),
            ..*o
        };
        let fi = self.group(FEED);
        let g = &mut self.cur.groups[fi];
        g.seen += old.obs.len();
        let mut obs: Vec<UcmdObs> = old.obs.iter().map(to_feed).chain(g.obs.drain(..)).collect();
        // In serverTime order: the turns' search skips an angle sent before the one it just
        // took (the group's values, put first, hid the pool's older turns), and the newest are
        // kept.
        obs.sort_by_key(|o| o.t);
        g.obs = newest(obs, MAX_OBS);
        let buttons = (old.buttons.iter().map(to_feed))
            .chain(g.buttons.drain(..))
            .collect();
        g.buttons = newest(buttons, MAX_BUTTONS);
        let near = (old.near.iter()).map(|(o, a)| (to_feed(o), *a));
        g.near = newest(near.chain(g.near.drain(..)).collect(), MAX_BUTTONS);
        // The pool's search goes on from the bits known, as the group's did: its turns alone
        // decide the high byte only once the low byte is known.
        if let Some(f) = known {
            g.merge(f.u, f.mask);
        }
    }

    /// Keeps the values known in a message, and those of the last message decoded whole, as
    /// anchors for [`link`] and the near pairs (the newest `MAX_ANCHORS`).
    fn keep_anchors(&mut self, obs: &[UcmdObs]) {
        let last = self.last.take();
        let remembered = last.into_iter().flatten().flat_map(|(t, values)| {
            (0..8u8).map(move |k| UcmdObs {
                field: k,
                v: values[k as usize],
                t,
                known: width_mask(k),
                first: false,
            })
        });
        let new_anchors = obs
            .iter()
            .filter(|o| o.known != 0)
            .take(MESSAGE_ANCHORS)
            .copied();
        for a in remembered.chain(new_anchors) {
            if !self.anchors.contains(&a) {
                if self.anchors.len() == MAX_ANCHORS {
                    self.anchors.pop_front();
                }
                self.anchors.push_back(a);
            }
        }
    }

    /// The index of the group of `rack`, made (replacing the oldest) when there is none.
    fn group(&mut self, rack: u32) -> usize {
        if let Some(i) = self.cur.groups.iter().position(|g| g.rack == rack) {
            return i;
        }
        if self.cur.groups.len() == MAX_GROUPS {
            self.cur.groups.remove(0);
        }
        self.cur.groups.push(AckObservations {
            rack,
            found: None,
            obs: Vec::new(),
            buttons: Vec::new(),
            low: None,
            low15: None,
            high_pick: None,
            linked: None,
            votes: [0; 2],
            near: Vec::new(),
            seen: 0,
            next_search: FIRST_SEARCH,
        });
        self.cur.groups.len() - 1
    }

    /// How the flow's usercmd key is known, for `stats` (`None` before any value was kept).
    pub fn describe(&self) -> Option<String> {
        if let Some(f) = self.cur.feed_low {
            let bits = f.mask.count_ones();
            let still = if f.mask == ALL_BITS {
                ""
            } else {
                "; angles and buttons still keyed"
            };
            return Some(format!(
                "low {bits} bits of checksumFeed recovered from {} usercmd values (gamestate not captured{still})",
                f.from
            ));
        }
        if let Some(&(_, h)) = self
            .hints
            .iter()
            .find(|(id, _)| Some(*id) == self.cur.server_id)
        {
            return Some(format!(
                "low {} bits of checksumFeed from the first pass (-2), which recovered them from {} usercmd values over the whole capture (gamestate not captured)",
                h.mask.count_ones(),
                h.from
            ));
        }
        let found = |mask| {
            let g = self.cur.groups.iter();
            g.filter(|g| g.found.is_some_and(|r| r.mask == mask))
                .count()
        };
        let (all, low) = (found(ALL_BITS), found(LOW_BYTE) + found(LOW_15));
        if all + low > 0 {
            return Some(format!(
                "recovered for {all} acknowledged command(s) whose text was not captured (only some of the low 16 bits for {low} more)"
            ));
        }
        let seen: usize = self.cur.groups.iter().map(|g| g.seen).sum();
        (seen > 0).then(|| format!("not recovered ({seen} usercmd values gathered)"))
    }

    pub fn bytes(&self) -> usize {
        let feeds = (self.past.capacity() + self.hints.capacity())
            * std::mem::size_of::<(i32, Recovered)>();
        let per = std::mem::size_of::<UcmdObs>();
        let prev = self.prev.as_deref().map_or(&[][..], |p| &p.groups[..]);
        let g = self.cur.groups.iter().chain(prev);
        g.map(|g| (g.obs.capacity() + g.buttons.capacity()) * per + 64)
            .sum::<usize>()
            + self.anchors.capacity() * per
            + feeds
    }
}

impl AckObservations {
    /// Takes the bits `m` of U found by [`link`], unless they contradict what the search
    /// already decided (then neither is trusted more: nothing changes) or make the group's
    /// 8-bit values implausible ([`plausible_low`]): a link rests on two values, and one wrong
    /// anchor would otherwise key every later move of the group.
    fn merge(&mut self, u: u16, m: u16) {
        if !plausible_low(&self.obs, u as u8) {
            return;
        }
        let decided = [
            (self.low.map(u16::from), LOW_BYTE),
            (self.low15, LOW_15),
            (self.linked, ALL_BITS),
        ];
        if decided
            .iter()
            .any(|&(d, dm)| d.is_some_and(|d| (d ^ u) & dm & m != 0))
        {
            return;
        }
        if m == ALL_BITS {
            self.linked = Some(u);
        }
        if m & LOW_15 == LOW_15 && self.low15.is_none() {
            self.low15 = Some(u & LOW_15);
            self.votes = top_votes(&self.buttons, &self.near, u & LOW_15);
        }
        if m & LOW_BYTE == LOW_BYTE {
            self.low = Some(u as u8);
        }
    }
}

/// U's bits from the usercmds of `obs` that an earlier packet already carried under a key that
/// covered them: the client repeats its last packet's usercmds in the next one (cl_packetdup,
/// ioquake3 code/client/cl_input.c `CL_WritePacket`), and a usercmd is named by its serverTime,
/// so each such value gives U = sent value XOR known value. Needs two such values that agree and
/// none that disagrees (two usercmds with one serverTime would disagree).
pub fn link(obs: &[UcmdObs], anchors: &std::collections::VecDeque<UcmdObs>) -> Option<(u16, u16)> {
    let (mut u, mut m, mut n) = (0u16, 0u16, 0u32);
    for o in obs {
        for a in anchors.iter().filter(|a| a.t == o.t && a.field == o.field) {
            let bits = a.known & width_mask(o.field);
            let c = (o.v ^ a.v) & bits;
            if (c ^ u) & m & bits != 0 {
                return None;
            }
            (u, m, n) = (u | c, m | bits, n + 1);
        }
    }
    // Only whole steps count: the low byte, 15 bits, all 16.
    let m = [ALL_BITS, LOW_15, LOW_BYTE]
        .into_iter()
        .find(|&s| m & s == s)?;
    (n >= 2).then_some((u & m, m))
}

/// U from the first usercmd of a packet whose key is unknown, when its values are those the
/// same fields held at most [`NEAR_MS`] before in a packet decoded whole: the client did not
/// turn, switch weapons or change its moves in the usercmds the capture lost between them (a
/// keyed usercmd's serverTime is unkeyed). Each value sent in the first usercmd is one that is
/// not 0 (a delta from an all-zero usercmd, `CL_WritePacket`), so every field it sends is
/// compared. Needs every such value to agree on U, an angle or the buttons among them (all 16
/// bits) and one more value: where only one angle turned the other disagrees, and a turn
/// disagrees with the weapon unless it left the angle's low byte as it was (a turn by a multiple
/// of 256 units, 1.4°, one turn in 256 at random: the limit of this link). The key is then
/// checked as every link is (`AckObservations::merge`: the group's 8-bit values must stay
/// plausible).
pub fn still_link(obs: &[UcmdObs], anchors: &std::collections::VecDeque<UcmdObs>) -> Option<u16> {
    let (mut u, mut m, mut n) = (0u16, 0u16, 0u32);
    for o in obs.iter().filter(|o| o.first && o.known == 0) {
        let w = width_mask(o.field);
        let before = anchors.iter().filter(|a| {
            // serverTimes are any 32-bit values on the wire: no overflow.
            let gap = i64::from(o.t) - i64::from(a.t);
            a.field == o.field && a.known & w == w && (1..=NEAR_MS as i64).contains(&gap)
        });
        let a = before.max_by_key(|a| a.t)?;
        let c = (o.v ^ a.v) & w;
        if (c ^ u) & m & w != 0 {
            return None;
        }
        (u, m, n) = (u | c, m | w, n + 1);
    }
    (m == ALL_BITS && n >= 2).then_some(u)
}

const ROLL: u8 = 2;
/// The group of the values whose acknowledged text is known (they share low16(checksumFeed)).
const FEED: u32 = u32::MAX;

/// The last `keep` of `v`.
fn newest<T>(mut v: Vec<T>, keep: usize) -> Vec<T> {
    v.drain(..v.len().saturating_sub(keep));
    v
}

/// The bits a field's key covers.
pub fn width_mask(field: u8) -> u16 {
    if field <= ROLL || field == BUTTONS {
        0xffff
    } else {
        0xff
    }
}
const BUTTONS: u8 = 6;
const WEAPON: u8 = 7;

/// Plausibility of an 8-bit value under a candidate low byte.
fn low_score(field: u8, v: u8) -> i32 {
    match field {
        // Weapons are numbered from 1 (WP_NONE 0); mods stay below 16 (bg_public.h `weapon_t`).
        WEAPON => match v {
            1..=15 => 3,
            0 => 1,
            _ => -3,
        },
        // Keyboard moves are ±127 (cl_run) or ±64 (walking), 0 when released
        // (cl_input.c `CL_KeyMove`). −128 only comes from a mouse or joystick move
        // (`ClampChar`): neutral, or it would tie every −127 with the candidate one bit off.
        _ => match v {
            0x00 | 0x7f | 0x81 | 0x40 | 0xc0 => 1,
            0x80 => 0,
            _ => -1,
        },
    }
}

fn best_two(scores: impl Iterator<Item = (u32, i64)>) -> Option<(u32, i64, i64)> {
    let mut best: Option<(u32, i64)> = None;
    let mut second = i64::MIN;
    for (c, s) in scores {
        match best {
            Some((_, b)) if s <= b => second = second.max(s),
            _ => {
                if let Some((_, b)) = best {
                    second = second.max(b);
                }
                best = Some((c, s));
            }
        }
    }
    best.map(|(c, s)| (c, s, second))
}

/// Whether the 8-bit values kept are believable under the low byte `b`: no weapon above 15
/// (none exists, bg_public.h `weapon_t`), and the moves more often keyboard values than not.
fn plausible_low(obs: &[UcmdObs], b: u8) -> bool {
    let mut moves = 0i64;
    for o in obs.iter().filter(|o| o.field > ROLL && o.field != BUTTONS) {
        let s = low_score(o.field, o.v as u8 ^ b);
        if o.field == WEAPON && s < 0 {
            return false;
        }
        moves += i64::from(s);
    }
    moves >= 0
}

/// The low byte of U: the candidate under which the 8-bit values are plausible, clearly best.
fn search_low(obs: &[UcmdObs]) -> Option<u8> {
    let (b, best, second) = best_two((0..256u32).map(|b| {
        let s: i64 = obs
            .iter()
            .filter(|o| o.field > 2 && o.field != BUTTONS)
            .map(|o| low_score(o.field, o.v as u8 ^ b as u8) as i64)
            .sum();
        (b, s)
    }))?;
    (best >= 12 && best - second >= 6).then_some(b as u8)
}

/// How unevenly the view turns under the high-byte candidate `c`: the angles in serverTime
/// order (each time once), and the change of each step from the one before, capped.
fn turn_cost(obs: &[UcmdObs], c: u16, b: u16) -> i64 {
    let mut cost = 0i64;
    for field in 0..=ROLL {
        let mut last: Option<(i32, u16)> = None;
        let mut step: Option<i32> = None;
        for o in obs.iter().filter(|o| o.field == field) {
            let a = o.v ^ (c << 8 | b);
            match last {
                Some((t, _)) if o.t <= t => continue,
                Some((_, p)) => {
                    let d = a.wrapping_sub(p) as i16 as i32;
                    if let Some(s) = step {
                        cost += (d - s).unsigned_abs().min(4096) as i64;
                    }
                    step = Some(d);
                }
                None => {}
            }
            last = Some((o.t, a));
        }
    }
    cost
}

/// U from a group's observations, or `None` while any byte is undecided.
pub fn search(obs: &[UcmdObs]) -> Option<u16> {
    let (low15, _) = search_high7(obs, search_low(obs)?)?;
    top_bit(top_votes(obs, &[], low15), low15)
}

/// The low byte `b` with the high byte's low seven bits, and whether they are clearly the
/// smoothest (the runner-up costs half as much again). XOR 0x80 in the high byte is a half turn,
/// invisible to continuity; those seven bits are fixed by the turns.
pub fn search_high7(obs: &[UcmdObs], b: u8) -> Option<(u16, bool)> {
    let b = b as u16;
    let (c, best, second) = best_two((0..128u32).map(|c| (c, -turn_cost(obs, c as u16, b))))?;
    // A wrong candidate adds at least one sector (256) at each boundary it breaks. And the
    // best must be clearly the smoothest, at most half the runner-up's cost: a client turning
    // at a steady rate near a multiple of 256 units a usercmd (a keyboard turn) is as smooth
    // under a high byte off by one (busy capture, 30 % loss: 409 moves showed wrong angles).
    let (cost, runner_up) = (-best, -second);
    let clear = 2 * runner_up >= 3 * cost;
    (best - second >= 512 && 4 * runner_up >= 5 * cost).then_some(((c as u16) << 8 | b, clear))
}

/// How many buttons values are plausible (no bit above 11) with the top bit 0 and with it 1,
/// plus how many keyed angles are within a quarter turn of the same angle known shortly before
/// (with the top bit 0, and with it 1: exactly one of the two is, but at a quarter turn).
fn top_votes(obs: &[UcmdObs], near: &[(UcmdObs, u16)], low15: u16) -> [u32; 2] {
    let mut votes = [0; 2];
    for o in obs.iter().filter(|o| o.field == BUTTONS) {
        for (i, top) in [0u16, 0x8000].into_iter().enumerate() {
            votes[i] += u32::from((o.v ^ (top | low15)) & 0xf000 == 0);
        }
    }
    for (o, known) in near {
        for (i, top) in [0u16, 0x8000].into_iter().enumerate() {
            let turn = (o.v ^ top ^ low15).wrapping_sub(*known) as i16;
            votes[i] += u32::from(turn.unsigned_abs() < 0x4000);
        }
    }
    votes
}

/// The keyed angles of `obs` paired with the same angle's value known (all 16 bits) at most
/// [`NEAR_MS`] before: the anchors of the previous packet, or of this one's first usercmd (an
/// angle it does not send is 0 there, `CL_WritePacket` deltas it from an all-zero usercmd).
fn near_pairs(
    obs: &[UcmdObs],
    anchors: &std::collections::VecDeque<UcmdObs>,
) -> Vec<(UcmdObs, u16)> {
    let mut pairs = Vec::new();
    for o in obs.iter().filter(|o| o.field <= ROLL) {
        let before = anchors.iter().filter(|a| {
            // serverTimes are any 32-bit values on the wire: no overflow.
            let gap = i64::from(o.t) - i64::from(a.t);
            a.field == o.field && a.known == ALL_BITS && (1..=NEAR_MS as i64).contains(&gap)
        });
        if let Some(a) = before.max_by_key(|a| a.t) {
            pairs.push((*o, a.v));
        }
    }
    pairs
}

fn top_bit([zero, one]: [u32; 2], low15: u16) -> Option<u16> {
    if zero > 2 * one {
        Some(low15)
    } else if one > 2 * zero {
        Some(low15 | 0x8000)
    } else {
        None
    }
}

/// The feed `feeds` (one per serverId) holds for `server_id`.
fn feed_of(feeds: &[(i32, Recovered)], server_id: Option<i32>) -> Option<Recovered> {
    let id = server_id?;
    feeds.iter().find_map(|&(i, r)| (i == id).then_some(r))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The serverId the test clients send.
    const SID: i32 = 991;

    /// A first pass's key (`-2`) keys a move under its own serverId whose acknowledged text is
    /// known, whether or not this pass has learned under that serverId yet, and nothing else:
    /// not another serverId's moves, nor a move whose command text is not known (its group's key
    /// depends on that text). The keys learned under each serverId are handed on, oldest first.
    #[test]
    fn a_first_pass_key_keys_only_its_own_server_id() {
        let feed = Recovered {
            u: 0xb660,
            mask: ALL_BITS,
            from: 144,
            hindsight: false,
        };
        let mut keys = UcmdKeys::default();
        keys.hint(&[(SID, feed)]);
        let got = keys.lookup(Some(SID), 24, Some(0x0f0f)).expect("hinted");
        assert_eq!(
            (got.u, got.mask, got.from),
            (0xb660 ^ 0x0f0f, ALL_BITS, 144)
        );
        assert!(got.hindsight);
        assert_eq!(keys.lookup(Some(SID + 1), 24, Some(0x0f0f)), None);
        assert_eq!(keys.lookup(Some(SID), 24, None), None);
        // Learning under the serverId keeps the hint in use; the values are not searched.
        assert!(!keys.learn(
            SID,
            24,
            Some(0x0f0f),
            &[sent_keyed(0xb660 ^ 0x0f0f, 0, 5, 100)]
        ));
        assert!(keys.lookup(Some(SID), 25, Some(0x1234)).is_some());
        assert!(keys.feeds().is_empty(), "nothing recovered in this pass");
        // What a pass recovered under each serverId, the current one last.
        keys.cur.feed_low = Some(feed);
        keys.under(SID + 1);
        let later = Recovered { u: 0x1111, ..feed };
        keys.cur.feed_low = Some(later);
        assert_eq!(keys.feeds(), [(SID, feed), (SID + 1, later)]);
        // A new connection keeps both, and the first pass's key, and forgets the rest.
        let mut next = keys.for_new_connection();
        assert_eq!(next.feeds(), [(SID, feed), (SID + 1, later)]);
        assert_eq!((next.cur.server_id, next.cur.feed_low), (None, None));
        assert!(
            next.lookup(Some(SID), 30, Some(0x0f0f))
                .is_some_and(|r| r.hindsight)
        );
        next.under(SID + 2);
        assert_eq!(next.feeds().len(), 2);
        // Of more serverIds than are kept, the newest are taken (a pass hands on its last
        // four and the current one).
        let many: Vec<(i32, Recovered)> = (0..6).map(|i| (SID + i, feed)).collect();
        next.hint(&many);
        assert!(feed_of(&next.hints, Some(SID + 1)).is_none());
        assert!(
            feed_of(&next.hints, Some(SID + 2)).is_some()
                && feed_of(&next.hints, Some(SID + 5)).is_some()
        );
        // One serverId handed on twice (a state dropped, and the restarted one): the key with
        // the most bits known is taken, whichever came first.
        let low = Recovered {
            u: 0x60,
            mask: LOW_BYTE,
            from: 300,
            ..feed
        };
        next.hint(&[(SID, feed), (SID, low)]);
        assert_eq!(
            feed_of(&next.hints, Some(SID)).map(|r| r.mask),
            Some(ALL_BITS)
        );
        next.hint(&[(SID, low), (SID, feed)]);
        assert_eq!(
            feed_of(&next.hints, Some(SID)).map(|r| r.mask),
            Some(ALL_BITS)
        );
    }

    /// Value `v` of `field` at serverTime `t` as sent keyed with `u`.
    fn sent_keyed(u: u16, field: u8, v: u16, t: i32) -> UcmdObs {
        UcmdObs {
            field,
            v: (v ^ u) & width_mask(field),
            t,
            known: 0,
            first: false,
        }
    }

    /// A client turning steadily, moving and switching weapons, keyed with `u`.
    fn session(u: u16, n: u32) -> Vec<UcmdObs> {
        let mut obs = Vec::new();
        for i in 0..n {
            let yaw = (i * 700) as u16;
            obs.push(UcmdObs {
                field: 1,
                v: yaw ^ u,
                t: i as i32,
                known: 0,
                first: false,
            });
            obs.push(UcmdObs {
                field: 3,
                v: (if i % 3 == 0 { 0x81 } else { 0x7f }) ^ (u & 0xff),
                t: i as i32,
                known: 0,
                first: false,
            });
            obs.push(UcmdObs {
                field: WEAPON,
                v: (2 + (i / 40) as u16 % 3) ^ (u & 0xff),
                t: i as i32,
                known: 0,
                first: false,
            });
            if i % 10 == 0 {
                obs.push(UcmdObs {
                    field: BUTTONS,
                    v: (i as u16 / 10 % 2) ^ u,
                    t: i as i32,
                    known: 0,
                    first: false,
                });
            }
        }
        obs
    }

    #[test]
    fn recovers_u_from_a_turning_client() {
        for u in [0u16, 0x1234, 0xbeef, 0x8001, 0x7f80] {
            assert_eq!(search(&session(u, 120)), Some(u), "u = {u:#x}");
        }
    }

    #[test]
    fn undecided_without_turns_or_buttons() {
        let still: Vec<UcmdObs> = session(0x4321, 120)
            .into_iter()
            .map(|o| {
                if o.field == 1 {
                    UcmdObs {
                        v: 0x4321 ^ 90,
                        ..o
                    }
                } else {
                    o
                }
            })
            .collect();
        assert_eq!(search(&still), None);
        let no_buttons: Vec<UcmdObs> = session(0x4321, 120)
            .into_iter()
            .filter(|o| o.field != BUTTONS)
            .collect();
        assert_eq!(search(&no_buttons), None);
    }

    #[test]
    fn searches_are_bounded() {
        let mut k = UcmdKeys::default();
        let noise: Vec<UcmdObs> = (0..40u16)
            .map(|i| UcmdObs {
                field: (i % 8) as u8,
                v: i.wrapping_mul(40503),
                t: i as i32,
                known: 0,
                first: false,
            })
            .collect();
        for rack in 0..1000 {
            k.learn(SID, rack % 3, None, &noise);
        }
        // 40,000 observations into three groups: the first search of each at 32, then at
        // 64, 128, 256, 512 and every 256 after.
        assert!(k.searches <= 3 * (5 + 40_000 / 3 / 256), "{}", k.searches);
        assert!(k.searches >= 100, "{}", k.searches);
        assert!(k.cur.groups.len() <= MAX_GROUPS);
        assert!(k.cur.groups.iter().all(|g| g.obs.len() <= MAX_OBS));
    }

    #[test]
    fn a_known_text_gives_the_feed_for_other_commands() {
        let (feed, h1, h2) = (0x5a5au16, 0x1111u32, 0x2222u32);
        let mut k = UcmdKeys::default();
        let obs = session(feed ^ h1 as u16, 120);
        assert!(k.learn(SID, 7, Some(h1), &obs));
        assert_eq!(
            k.lookup(Some(SID), 7, Some(h1)).map(|r| r.u),
            Some(feed ^ h1 as u16)
        );
        assert_eq!(
            k.lookup(Some(SID), 8, Some(h2)).map(|r| r.u),
            Some(feed ^ h2 as u16)
        );
        assert_eq!(k.lookup(Some(SID), 9, None), None);
    }

    /// A group that found its whole U before its command's text was known gives
    /// low16(checksumFeed) once the text is: every command whose text is known is keyed with
    /// it, and the group is gone.
    #[test]
    fn a_group_whose_text_becomes_known_gives_the_feed() {
        let (feed, h1, h2) = (0x5a5au16, 0x1111u32, 0x2222u32);
        let mut k = UcmdKeys::default();
        assert!(k.learn(SID, 7, None, &session(feed ^ h1 as u16, 120)));
        assert_eq!(k.lookup(Some(SID), 8, Some(h2)), None);
        // The next message acknowledging 7 comes once its text was recovered.
        assert!(!k.learn(SID, 7, Some(h1), &session(feed ^ h1 as u16, 1)));
        let r = k.lookup(Some(SID), 8, Some(h2)).map(|r| (r.u, r.mask));
        assert_eq!(r, Some((feed ^ h2 as u16, ALL_BITS)));
        let r = k.lookup(Some(SID), 7, Some(h1)).map(|r| (r.u, r.mask));
        assert_eq!(r, Some((feed ^ h1 as u16, ALL_BITS)));
        assert!(
            k.cur.groups.is_empty(),
            "no pool is kept once the feed is known"
        );
    }

    /// The values a group pooled as value XOR U join the checksumFeed pool as value XOR
    /// low16(checksumFeed), 8-bit fields and 16-bit ones alike: the group's turns and moves (its
    /// low 15 bits, no buttons) with the buttons of another command's moves (the top bit) make
    /// the whole feed, which neither gives alone.
    #[test]
    fn a_group_s_values_join_the_feed_pool() {
        let (feed, h1, h2, h3) = (0xc3a5u16, 0x0f0fu32, 0x7331u32, 0x4242u32);
        let no_buttons = |u: u16| -> Vec<UcmdObs> {
            let s = session(u, 120).into_iter();
            s.filter(|o| o.field != BUTTONS).collect()
        };
        let mut k = UcmdKeys::default();
        assert!(k.learn(SID, 7, None, &no_buttons(feed ^ h1 as u16)));
        let r = k.lookup(Some(SID), 7, None).map(|r| (r.u, r.mask));
        assert_eq!(r, Some(((feed ^ h1 as u16) & LOW_15, LOW_15)));
        let buttons: Vec<UcmdObs> = (session(feed ^ h2 as u16, 120).into_iter())
            .filter(|o| o.field == BUTTONS)
            .collect();
        assert!(!k.learn(SID, 8, Some(h2), &buttons));
        assert_eq!(k.lookup(Some(SID), 9, Some(h3)), None);
        // Command 7's text is known now: with the next message acknowledging it, the pool
        // holds both, and its search decides the top bit.
        let more: Vec<UcmdObs> = (no_buttons(feed ^ h1 as u16).into_iter())
            .map(|o| UcmdObs { t: o.t + 120, ..o })
            .take(6)
            .collect();
        assert!(k.learn(SID, 7, Some(h1), &more));
        let r = k.lookup(Some(SID), 9, Some(h3)).map(|r| (r.u, r.mask));
        assert_eq!(r, Some((feed ^ h3 as u16, ALL_BITS)));
    }

    /// A group that knew only U's low byte (linked from two 8-bit values) hands it to the pool
    /// with its values: the turns that follow, with no 8-bit value among them (a player who
    /// only turns sends none), decide the high byte's low seven bits from it.
    #[test]
    fn the_pool_goes_on_from_a_group_s_low_byte() {
        let (feed, h1, h3) = (0x5a5au16, 0x1111u32, 0x4242u32);
        let u = feed ^ h1 as u16;
        let k = UcmdKeys::default();
        k.remember([None, Some((500, [0, 0, 0, 127, 0, 0, 0, 3]))]);
        let mut k = k;
        let sent = |field: u8, v: u16| sent_keyed(u, field, v, 500);
        assert!(k.learn(SID, 7, None, &[sent(3, 127), sent(WEAPON, 3)]));
        let r = k.lookup(Some(SID), 7, None).map(|r| (r.u, r.mask));
        assert_eq!(r, Some((u & LOW_BYTE, LOW_BYTE)));
        let turns: Vec<UcmdObs> = (session(u, 120).into_iter())
            .filter(|o| o.field == 1)
            .map(|o| UcmdObs { t: o.t + 600, ..o })
            .collect();
        assert!(k.learn(SID, 7, Some(h1), &turns));
        let r = k.lookup(Some(SID), 9, Some(h3)).map(|r| (r.u, r.mask));
        assert_eq!(r, Some(((feed ^ h3 as u16) & LOW_15, LOW_15)));
    }

    /// The pool's angles are searched in serverTime order, whichever pool they came from: a
    /// group moved in with a few turns later than the pool's many (its moves and weapons gave
    /// the low byte) does not hide the pool's turns behind its own.
    #[test]
    fn moved_values_are_searched_in_time_order() {
        let (feed, h1, h2, h3) = (0x5a5au16, 0x1111u32, 0x2222u32, 0x4242u32);
        let mut k = UcmdKeys::default();
        let turns: Vec<UcmdObs> = (session(feed ^ h2 as u16, 120).into_iter())
            .filter(|o| o.field == 1)
            .collect();
        assert!(!k.learn(SID, 8, Some(h2), &turns));
        let later: Vec<UcmdObs> = (session(feed ^ h1 as u16, 120).into_iter())
            .filter(|o| o.field != BUTTONS && (o.field != 1 || o.t < 3))
            .map(|o| UcmdObs { t: o.t + 1000, ..o })
            .collect();
        assert!(k.learn(SID, 7, None, &later));
        let r = k.lookup(Some(SID), 7, None).map(|r| r.mask);
        assert_eq!(r, Some(LOW_BYTE));
        let last = sent_keyed(feed ^ h1 as u16, WEAPON, 3, 1200);
        assert!(k.learn(SID, 7, Some(h1), &[last]));
        let r = k.lookup(Some(SID), 9, Some(h3)).map(|r| (r.u, r.mask));
        assert_eq!(r, Some(((feed ^ h3 as u16) & LOW_15, LOW_15)));
    }

    /// A group's key that contradicts the feed known, once its text is known (one of them is
    /// wrong, or the text filed is not what the client hashed), changes nothing: the feed
    /// stays what the pool found, and the group's values stay out of the pool.
    #[test]
    fn a_group_key_that_contradicts_the_feed_is_dropped() {
        let (feed, h1, h2, h3) = (0x5a5au16, 0x1111u32, 0x2222u32, 0x4242u32);
        let still = |u: u16| -> Vec<UcmdObs> {
            let s = session(u, 120).into_iter();
            s.filter(|o| o.field != 1 && o.field != BUTTONS).collect()
        };
        let mut k = UcmdKeys::default();
        assert!(k.learn(SID, 8, Some(h2), &still(feed ^ h2 as u16)));
        let low = Some(((feed ^ h3 as u16) & LOW_BYTE, LOW_BYTE));
        let r = k.lookup(Some(SID), 9, Some(h3)).map(|r| (r.u, r.mask));
        assert_eq!(r, low);
        // Command 7's moves were keyed under another text than the one filed for it.
        let other = feed ^ h1 as u16 ^ 0x0303;
        assert!(k.learn(SID, 7, None, &session(other, 120)));
        let r = k.lookup(Some(SID), 7, Some(h1)).map(|r| (r.u, r.mask));
        assert_eq!(r, Some(((feed ^ h1 as u16) & LOW_BYTE, LOW_BYTE)));
        k.learn(SID, 7, Some(h1), &session(other, 1));
        let r = k.lookup(Some(SID), 9, Some(h3)).map(|r| (r.u, r.mask));
        assert_eq!(r, low);
        // The pool's 240 values and the 4 of the last message, not the group's 370.
        let pool = k
            .cur
            .groups
            .iter()
            .find(|g| g.rack == FEED)
            .expect("the pool");
        assert_eq!(pool.obs.len(), 244);
    }

    /// A client message may acknowledge any 32-bit command number, the one that names the
    /// checksumFeed pool among them: without its text its values are not pooled as the feed's,
    /// and with it they join the pool like any other's, without moving the pool onto itself.
    #[test]
    fn the_feed_pool_s_number_acknowledged() {
        let (feed, h1, h2) = (0x5a5au16, 0x1111u32, 0x2222u32);
        let mut k = UcmdKeys::default();
        k.learn(SID, FEED, None, &session(0x1234, 120));
        assert_eq!(k.lookup(Some(SID), 8, Some(h2)), None);
        let mut k = UcmdKeys::default();
        let obs = session(feed ^ h1 as u16, 120);
        for part in obs.chunks(12) {
            k.learn(SID, FEED, Some(h1), part);
        }
        let r = k.lookup(Some(SID), 8, Some(h2)).map(|r| (r.u, r.mask));
        assert_eq!(r, Some((feed ^ h2 as u16, ALL_BITS)));
    }

    #[test]
    fn the_low_byte_alone_without_turns() {
        let mut k = UcmdKeys::default();
        let still: Vec<UcmdObs> = session(0x4321, 120)
            .into_iter()
            .filter(|o| o.field != 1 && o.field != BUTTONS)
            .collect();
        assert!(k.learn(SID, 5, None, &still));
        let r = k.lookup(Some(SID), 5, None).expect("low byte");
        assert_eq!((r.u, r.mask), (0x21, LOW_BYTE));
        assert!(r.covers(0xff) && !r.covers(0xffff));
    }

    /// Keys that kept the last usercmd of a message keyed with a known key: at serverTime 500,
    /// yaw 12345 and weapon 3.
    fn kept_last_usercmd() -> UcmdKeys {
        let k = UcmdKeys::default();
        k.remember([None, Some((500, [0, 12345, 0, 0, 0, 0, 0, 3]))]);
        k
    }

    /// Whether that usercmd, sent again first in the next message keyed with the unknown
    /// 0xbeef, makes the whole key known.
    fn links_0xbeef(k: &mut UcmdKeys) -> bool {
        let sent = |field: u8, v: u16| sent_keyed(0xbeef, field, v, 500);
        k.learn(SID, 9, None, &[sent(1, 12345), sent(WEAPON, 3)])
            && k.lookup(Some(SID), 9, None).map(|r| (r.u, r.mask)) == Some((0xbeef, ALL_BITS))
    }

    #[test]
    fn a_repeated_usercmd_links_the_key() {
        assert!(links_0xbeef(&mut kept_last_usercmd()));
        // Values that disagree (two usercmds with one serverTime) decide nothing.
        let u = 0xbeefu16;
        let sent = |field: u8, v: u16| sent_keyed(u, field, v, 500);
        let mut k = kept_last_usercmd();
        assert!(!k.learn(SID, 9, None, &[sent(1, 12345), sent(WEAPON, 4)]));
        assert_eq!(k.lookup(Some(SID), 9, None), None);
    }

    #[test]
    fn a_link_that_makes_a_weapon_impossible_is_refused() {
        let mut k = kept_last_usercmd();
        let u = 0xbeefu16;
        let sent = |field: u8, v: u16, t: i32| sent_keyed(u, field, v, t);
        // The two repeated values agree on U, but under it the next usercmd holds weapon 200:
        // an anchor or a value is wrong, and nothing is decided.
        let obs = [
            sent(1, 12345, 500),
            sent(WEAPON, 3, 500),
            sent(WEAPON, 200, 516),
        ];
        assert!(!k.learn(SID, 9, None, &obs));
        assert_eq!(k.lookup(Some(SID), 9, None), None);
    }

    #[test]
    fn keys_are_tied_to_the_server_id() {
        let mut k = UcmdKeys::default();
        assert!(k.learn(SID, 5, None, &session(0x1234, 120)));
        assert_eq!(k.lookup(Some(SID), 5, None).map(|r| r.u), Some(0x1234));
        // A move under another serverId was keyed with another map's checksumFeed.
        assert_eq!(k.lookup(Some(79292), 5, None), None);
        assert_eq!(k.lookup(None, 5, None), None);
        // Values under the new serverId start the recovery afresh; the old one's is kept apart
        // for a late move of the old map (held while its XOR pad was searched for).
        assert!(!k.learn(79292, 5, None, &session(0x4321, 2)));
        assert_eq!(k.lookup(Some(SID), 5, None).map(|r| r.u), Some(0x1234));
        assert_eq!(k.lookup(Some(79292), 5, None), None);
        assert_eq!(k.server_id(), Some(79292));
    }

    /// Values of the old serverId that come after a map change (a move held while its XOR pad
    /// was searched for) go on with the old one's recovery, and neither clear nor feed the new
    /// one's; a third serverId leaves only the second one's recovery kept whole.
    #[test]
    fn a_late_move_of_the_old_map_goes_on_with_its_own_recovery() {
        let mut k = UcmdKeys::default();
        assert!(!k.learn(SID, 5, None, &session(0x1234, 2)));
        assert!(!k.learn(79292, 7, None, &session(0x4321, 2)));
        assert!(k.learn(SID, 5, None, &session(0x1234, 120)));
        assert_eq!(k.lookup(Some(SID), 5, None).map(|r| r.u), Some(0x1234));
        assert_eq!(k.lookup(Some(79292), 7, None), None);
        assert_eq!(k.server_id(), Some(79292));
        assert!(k.learn(79292, 7, None, &session(0x4321, 120)));
        assert_eq!(k.lookup(Some(79292), 7, None).map(|r| r.u), Some(0x4321));
        assert!(!k.learn(5, 9, None, &session(0x1111, 2)));
        assert_eq!(k.lookup(Some(SID), 5, None), None);
        assert_eq!(k.lookup(Some(79292), 7, None).map(|r| r.u), Some(0x4321));
    }

    /// After a gamestate, a late move of the level before goes on with that level's recovery
    /// and leaves the new level's serverId in place (its held moves wait for its keys).
    #[test]
    fn a_late_move_after_a_gamestate_keeps_the_new_level() {
        let mut k = UcmdKeys::default();
        k.learn(SID, 5, None, &session(0x1234, 2));
        let mut next = k.for_new_connection();
        next.learn(79292, 7, None, &session(0x4321, 2));
        next.learn(SID, 5, None, &session(0x1234, 2));
        assert_eq!(next.server_id(), Some(79292));
    }

    /// A level left twice keeps one entry among the past feeds, the one that knows the most.
    #[test]
    fn a_grown_feed_replaces_its_older_self_among_the_past_ones() {
        let mut k = UcmdKeys::default();
        let low = Recovered {
            u: 0x34,
            mask: 0xff,
            from: 40,
            hindsight: false,
        };
        let whole = Recovered {
            u: 0x1234,
            mask: 0xffff,
            from: 200,
            ..low
        };
        k.keep_past(SID, low);
        k.keep_past(SID, whole);
        k.keep_past(SID, low);
        assert_eq!(k.past, vec![(SID, whole)]);
    }

    /// A gamestate or a new connection right after a group's key was found drops that key: the
    /// next connection's command of the same number has another text.
    #[test]
    fn a_new_connection_drops_the_keys_of_its_commands() {
        let mut k = UcmdKeys::default();
        assert!(k.learn(SID, 7, None, &session(0x4321, 120)));
        let mut next = k.for_new_connection();
        assert_eq!(next.lookup(Some(SID), 7, None), None);
        assert!(!next.learn(SID, 7, None, &session(0x1111, 2)));
        assert_eq!(next.lookup(Some(SID), 7, None), None);
    }

    /// Keys that kept the last usercmd of a message decoded whole: at serverTime 500, pitch
    /// 300, yaw 12345 and weapon 3.
    fn kept_still_usercmd() -> UcmdKeys {
        let k = UcmdKeys::default();
        k.remember([None, Some((500, [300, 12345, 0, 0, 0, 0, 0, 3]))]);
        k
    }

    /// The first usercmd of a packet keyed with 0xbeef, `ms` after that one, with the
    /// values `(field, value)`.
    fn first_keyed(ms: i32, values: &[(u8, u16)]) -> Vec<UcmdObs> {
        let sent = |&(field, v): &(u8, u16)| UcmdObs {
            first: true,
            ..sent_keyed(0xbeef, field, v, 500 + ms)
        };
        values.iter().map(sent).collect()
    }

    #[test]
    fn a_still_client_links_the_key_across_lost_packets() {
        // The packets between were lost: no usercmd is repeated, but the values are the same
        // 33 ms later.
        let mut k = kept_still_usercmd();
        assert!(k.learn(SID, 9, None, &first_keyed(33, &[(1, 12345), (WEAPON, 3)])));
        let r = k.lookup(Some(SID), 9, None).map(|r| (r.u, r.mask));
        assert_eq!(r, Some((0xbeef, ALL_BITS)));
    }

    #[test]
    fn a_turn_or_a_long_gap_links_nothing() {
        let cases: [(i32, &[(u8, u16)]); 6] = [
            // The view turned in the gap: the yaw's U and the weapon's disagree.
            (33, &[(1, 12345 + 700), (WEAPON, 3)]),
            // Both angles turned, by the same XOR: they agree, but not with the weapon.
            (33, &[(0, 300 ^ 0x1111), (1, 12345 ^ 0x1111), (WEAPON, 3)]),
            // The pitch held still while the yaw turned.
            (33, &[(0, 300), (1, 12345 ^ 0x1100), (WEAPON, 3)]),
            // One value alone proves nothing.
            (33, &[(1, 12345)]),
            // Only 8-bit values: the angles' high byte is not known.
            (33, &[(WEAPON, 3), (3, 127)]),
            // Too long after the values known.
            (NEAR_MS + 1, &[(1, 12345), (WEAPON, 3)]),
        ];
        for (ms, values) in cases {
            let mut k = kept_still_usercmd();
            k.learn(SID, 9, None, &first_keyed(ms, values));
            let r = k.lookup(Some(SID), 9, None);
            assert!(r.is_none_or(|r| r.mask != ALL_BITS), "{values:?}: {r:?}");
        }
        // A field the first usercmd sends with no value known shortly before: nothing.
        let mut k = UcmdKeys::default();
        k.remember([None, Some((500, [0, 12345, 0, 0, 0, 0, 0, 3]))]);
        k.learn(SID, 9, None, &first_keyed(33, &[(1, 12345), (WEAPON, 3)]));
        let later: Vec<UcmdObs> = first_keyed(120, &[(1, 12345), (WEAPON, 3)]);
        k.learn(SID, 10, None, &later);
        assert_eq!(k.lookup(Some(SID), 10, None), None);
    }

    /// A usercmd other than the first sends a field because it changed: never compared with the
    /// value known before.
    #[test]
    fn only_the_first_usercmd_is_compared() {
        let mut k = kept_still_usercmd();
        let later: Vec<UcmdObs> = [(1u8, 12345u16), (WEAPON, 3)]
            .iter()
            .map(|&(f, v)| sent_keyed(0xbeef, f, v, 533))
            .collect();
        k.learn(SID, 9, None, &later);
        assert_eq!(k.lookup(Some(SID), 9, None), None);
    }

    #[test]
    fn a_trial_parse_leaves_the_kept_usercmds() {
        let mut k = kept_last_usercmd();
        // A trial under a guessed key string decodes the same usercmd with other values.
        k.untouched(|| k.remember([None, Some((500, [0, 999, 0, 0, 0, 0, 0, 9]))]));
        assert!(links_0xbeef(&mut k));
    }
}
