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
//! U is found by plausibility over the values the client sent (each observation is a value
//! XOR U): the low byte from the 8-bit fields (weapon a small number, moves ±127 or 0), the high
//! byte's low seven bits from the angles' continuity (a wrong XOR in the high byte makes the
//! view jump where the true angle crosses a 1.4° sector boundary), and its top bit from the
//! buttons (no button above bit 11 exists, ioquake3 code/qcommon/q_shared.h `BUTTON_*`). A
//! candidate is taken only when it beats every other by a clear margin: a player who never
//! turns leaves the high byte undecided, and the values then stay keyed, with a note.

/// One keyed usercmd value as sent: the field (index into `client::USERCMD_FIELDS`) and the
/// value XOR U (masked to the field's width), in the order the client sent them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct UcmdObs {
    pub field: u8,
    pub v: u16,
    /// The usercmd's serverTime (unkeyed): orders the angles, which the client repeats in
    /// later packets (cl_packetdup).
    pub t: i32,
}

/// Observations kept per acknowledged command (the newest).
pub const MAX_OBS: usize = 512;
/// Acknowledged commands searched at once (the oldest is replaced).
pub const MAX_GROUPS: usize = 4;
/// Buttons values kept per group.
pub const MAX_BUTTONS: usize = 64;
/// A group is first searched at this many observations, then each time their number doubled,
/// and past `MAX_OBS` every `MAX_OBS / 2` new ones. A search visits each kept observation at
/// most 256 + 128 times, so the work per observation stays below 1,000 cheap steps, whatever
/// the input.
pub const FIRST_SEARCH: usize = 32;

/// How a recovered key is known, shown in `quake3.clc.move.key`'s meaning.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Recovered {
    /// The 16 bits XORed with messageAcknowledge and serverTime.
    pub u: u16,
    /// How many usercmd values the recovery used.
    pub from: u32,
}

struct Group {
    rack: u32,
    found: Option<Recovered>,
    obs: Vec<UcmdObs>,
    /// The buttons values, kept apart (the newest `MAX_BUTTONS`): they are rare, and only they
    /// fix U's top bit, possibly long after the turns fixed the rest.
    buttons: Vec<UcmdObs>,
    /// U's low 15 bits once the turns fixed them, and the buttons' votes for its top bit.
    low15: Option<u16>,
    votes: [u32; 2],
    /// Observations added so far, and the count at which the next search runs.
    seen: usize,
    next_search: usize,
}

/// Per-flow recovery state, reset by each gamestate (a new map has a new checksumFeed).
#[derive(Default)]
pub struct UcmdKeys {
    /// low16(checksumFeed) with the number of values it was recovered from.
    feed_low: Option<Recovered>,
    groups: Vec<Group>,
    pub searches: u32,
}

impl UcmdKeys {
    /// U for a message acknowledging command `rack` (`hash` = its text's hash when captured).
    pub fn lookup(&self, rack: u32, hash: Option<u32>) -> Option<Recovered> {
        if let (Some(f), Some(h)) = (self.feed_low, hash) {
            return Some(Recovered {
                u: f.u ^ h as u16,
                from: f.from,
            });
        }
        self.groups.iter().find(|g| g.rack == rack)?.found
    }

    /// Adds a message's observations; true when this made its key known.
    pub fn learn(&mut self, rack: u32, hash: Option<u32>, obs: &[UcmdObs]) -> bool {
        if obs.is_empty() || self.lookup(rack, hash).is_some() {
            return false;
        }
        // With the command's text captured, the values are pooled with every other such
        // message's, as value XOR low16(checksumFeed).
        let pooled: Vec<UcmdObs>;
        let (rack, obs) = match hash {
            Some(h) => {
                pooled = obs
                    .iter()
                    .map(|o| UcmdObs {
                        v: o.v ^ (h as u16 & width_mask(o.field)),
                        ..*o
                    })
                    .collect();
                (FEED, &pooled[..])
            }
            None => (rack, obs),
        };
        let i = match self.groups.iter().position(|g| g.rack == rack) {
            Some(i) => i,
            None => {
                if self.groups.len() == MAX_GROUPS {
                    self.groups.remove(0);
                }
                self.groups.push(Group {
                    rack,
                    found: None,
                    obs: Vec::new(),
                    buttons: Vec::new(),
                    low15: None,
                    votes: [0; 2],
                    seen: 0,
                    next_search: FIRST_SEARCH,
                });
                self.groups.len() - 1
            }
        };
        let g = &mut self.groups[i];
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
        if let Some(low15) = g.low15 {
            // Only the top bit is missing: each buttons value votes as it comes.
            let v = top_votes(obs, low15);
            g.votes = [g.votes[0] + v[0], g.votes[1] + v[1]];
        } else {
            if g.seen < g.next_search {
                return false;
            }
            self.searches += 1;
            g.next_search = g.seen + g.seen.min(MAX_OBS / 2);
            g.low15 = search_low15(&g.obs);
            if let Some(low15) = g.low15 {
                g.votes = top_votes(&g.buttons, low15);
            }
        }
        let Some(u) = g.low15.and_then(|low15| top_bit(g.votes, low15)) else {
            return false;
        };
        let found = Recovered {
            u,
            from: g.seen.min(u32::MAX as usize) as u32,
        };
        (g.obs, g.buttons) = (Vec::new(), Vec::new());
        if rack == FEED {
            self.feed_low = Some(found);
            self.groups.retain(|g| g.rack != FEED);
        } else {
            g.found = Some(found);
        }
        true
    }

    /// How the flow's usercmd key is known, for `stats` (`None` before any value was kept).
    pub fn describe(&self) -> Option<String> {
        if let Some(f) = self.feed_low {
            return Some(format!(
                "low 16 bits of checksumFeed recovered from {} usercmd values (gamestate not captured)",
                f.from
            ));
        }
        let found = self.groups.iter().filter(|g| g.found.is_some()).count();
        if found > 0 {
            return Some(format!(
                "recovered for {found} acknowledged command(s) whose text was not captured"
            ));
        }
        let seen: usize = self.groups.iter().map(|g| g.seen).sum();
        (seen > 0).then(|| format!("not recovered ({seen} usercmd values gathered)"))
    }

    pub fn bytes(&self) -> usize {
        let per = std::mem::size_of::<UcmdObs>();
        let g = self.groups.iter();
        g.map(|g| (g.obs.capacity() + g.buttons.capacity()) * per + 64)
            .sum()
    }
}

const ROLL: u8 = 2;
/// The group of the values whose acknowledged text is known (they share low16(checksumFeed)).
const FEED: u32 = u32::MAX;

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
        // (cl_input.c `CL_KeyMove`); −128 is read as −127.
        _ => match v {
            0x00 | 0x7f | 0x81 | 0x80 | 0x40 | 0xc0 => 1,
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
    let low15 = search_low15(obs)?;
    top_bit(top_votes(obs, low15), low15)
}

/// The low byte and the high byte's low seven bits. XOR 0x80 in the high byte is a half turn,
/// invisible to continuity; those seven bits are fixed by the turns.
pub fn search_low15(obs: &[UcmdObs]) -> Option<u16> {
    let b = search_low(obs)? as u16;
    let (c, best, second) = best_two((0..128u32).map(|c| (c, -turn_cost(obs, c as u16, b))))?;
    // A wrong candidate adds at least one sector (256) at each boundary it breaks.
    (best - second >= 512).then_some((c as u16) << 8 | b)
}

/// How many buttons values are plausible (no bit above 11) with the top bit 0 and with it 1.
fn top_votes(obs: &[UcmdObs], low15: u16) -> [u32; 2] {
    let mut votes = [0; 2];
    for o in obs.iter().filter(|o| o.field == BUTTONS) {
        for (i, top) in [0u16, 0x8000].into_iter().enumerate() {
            votes[i] += u32::from((o.v ^ (top | low15)) & 0xf000 == 0);
        }
    }
    votes
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A client turning steadily, moving and switching weapons, keyed with `u`.
    fn session(u: u16, n: u32) -> Vec<UcmdObs> {
        let mut obs = Vec::new();
        for i in 0..n {
            let yaw = (i * 700) as u16;
            obs.push(UcmdObs {
                field: 1,
                v: yaw ^ u,
                t: i as i32,
            });
            obs.push(UcmdObs {
                field: 3,
                v: (if i % 3 == 0 { 0x81 } else { 0x7f }) ^ (u & 0xff),
                t: i as i32,
            });
            obs.push(UcmdObs {
                field: WEAPON,
                v: (2 + (i / 40) as u16 % 3) ^ (u & 0xff),
                t: i as i32,
            });
            if i % 10 == 0 {
                obs.push(UcmdObs {
                    field: BUTTONS,
                    v: (i as u16 / 10 % 2) ^ u,
                    t: i as i32,
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
            })
            .collect();
        for rack in 0..1000 {
            k.learn(rack % 3, None, &noise);
        }
        // 40,000 observations into three groups: the first search of each at 32, then at
        // 64, 128, 256, 512 and every 256 after.
        assert!(k.searches <= 3 * (5 + 40_000 / 3 / 256), "{}", k.searches);
        assert!(k.searches >= 100, "{}", k.searches);
        assert!(k.groups.len() <= MAX_GROUPS);
        assert!(k.groups.iter().all(|g| g.obs.len() <= MAX_OBS));
    }

    #[test]
    fn a_known_text_gives_the_feed_for_other_commands() {
        let (feed, h1, h2) = (0x5a5au16, 0x1111u32, 0x2222u32);
        let mut k = UcmdKeys::default();
        let obs = session(feed ^ h1 as u16, 120);
        assert!(k.learn(7, Some(h1), &obs));
        assert_eq!(k.lookup(7, Some(h1)).map(|r| r.u), Some(feed ^ h1 as u16));
        assert_eq!(k.lookup(8, Some(h2)).map(|r| r.u), Some(feed ^ h2 as u16));
        assert_eq!(k.lookup(9, None), None);
    }
}
