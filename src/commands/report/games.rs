//! What the report draws per game, read from field trees through each protocol's facts
//! (`protocols::<name>::facts`): FlightGear tracks, Quake 3 player paths and snapshot flow,
//! SRB2 pings. Every table and path is bounded.

use std::collections::{BTreeMap, HashMap};

use super::bins::{Bins, Merge};
use crate::proto::Meta;
use crate::protocols::quake3::events as q3names;
use crate::protocols::quake3::facts::{ET_PLAYER, MAX_CLIENTS, Message, clean_str};
use crate::protocols::srb2::facts::{MAX_PLAYERS, ping_table};
use crate::toolkit::facts::{At, EventExtractor};
use crate::tree::Record;

/// Points a path keeps at least; it holds at most twice this.
const PATH_POINTS: usize = 400;
/// Tracks (callsigns, players per map) and flows followed; later ones are counted, not drawn.
pub const MAX_TRACKS: usize = 24;
/// Quake 3 maps drawn.
pub const MAX_MAPS: usize = 4;
/// Quake 3 flows whose names are followed.
const MAX_Q3_FLOWS: usize = 4096;
/// SRB2 ping table slots.
pub const SRB2_SLOTS: usize = MAX_PLAYERS;

/// A path thinned as it grows: every `stride`-th point is kept, and when the path reaches twice
/// [`PATH_POINTS`] every other kept point goes and the stride doubles, so it spans the whole
/// capture in a bounded number of points.
#[derive(Debug, Clone)]
pub struct Path<T> {
    pub points: Vec<T>,
    stride: u64,
    seen: u64,
}

impl<T> Default for Path<T> {
    fn default() -> Self {
        Path {
            points: Vec::new(),
            stride: 1,
            seen: 0,
        }
    }
}

impl<T> Path<T> {
    pub fn push(&mut self, p: T) {
        if self.seen.is_multiple_of(self.stride) {
            self.points.push(p);
            if self.points.len() >= 2 * PATH_POINTS {
                let mut i = 0;
                self.points.retain(|_| {
                    i += 1;
                    i % 2 == 1
                });
                self.stride *= 2;
            }
        }
        self.seen += 1;
    }

    /// Positions offered, kept or not.
    pub fn seen(&self) -> u64 {
        self.seen
    }
}

/// One FlightGear position: seconds, longitude, latitude, altitude in feet.
pub type FgPoint = [f64; 4];

/// Snapshots one Quake 3 client received in a bin, and their datagrams' bytes.
#[derive(Default, Clone, Copy)]
pub struct Snaps {
    pub count: u64,
    pub bytes: u64,
}

impl Merge for Snaps {
    fn merge(&mut self, o: Self) {
        self.count += o.count;
        self.bytes += o.bytes;
    }
}

/// SRB2 pings of a bin: per slot the sum and number of readings, and the most players with a
/// ping in one table.
#[derive(Clone)]
pub struct Pings {
    pub sum: [u64; SRB2_SLOTS],
    pub n: [u32; SRB2_SLOTS],
    pub players: Option<u32>,
}

impl Default for Pings {
    fn default() -> Self {
        Pings {
            sum: [0; SRB2_SLOTS],
            n: [0; SRB2_SLOTS],
            players: None,
        }
    }
}

impl Merge for Pings {
    fn merge(&mut self, o: Self) {
        for i in 0..SRB2_SLOTS {
            self.sum[i] += o.sum[i];
            self.n[i] += o.n[i];
        }
        self.players = self.players.max(o.players);
    }
}

/// A Quake 3 client's snapshots over time, and who it was.
#[derive(Default)]
pub struct Q3Client {
    pub label: String,
    pub bins: Bins<Snaps>,
}

/// A Quake 3 player: the server's address and the client number on it.
pub type Q3Player = (std::net::SocketAddr, Option<i64>);

/// Everything per game.
#[derive(Default)]
pub struct Games {
    pub fg: BTreeMap<String, Path<FgPoint>>,
    pub fg_left_out: u64,
    /// Map → (server, client number; `None`: the recording client's, number unknown) → path.
    pub q3_paths: BTreeMap<String, BTreeMap<Q3Player, Path<(f64, f64)>>>,
    /// The last name seen of each (server, client number).
    pub q3_player_names: BTreeMap<Q3Player, String>,
    pub q3_left_out: u64,
    q3_names: HashMap<u64, q3names::State>,
    /// Per Quake 3 flow, by flow number.
    pub q3_clients: BTreeMap<u64, Q3Client>,
    pub srb2: Bins<Pings>,
    pub srb2_seen: bool,
    /// The last name the decoder gave each ping slot.
    pub srb2_names: [Option<String>; SRB2_SLOTS],
}

/// The x and y of a position, when both are known (a partial state's may not be).
fn xy([x, y, _]: [Option<f64>; 3]) -> Option<(f64, f64)> {
    Some((x?, y?))
}

impl Games {
    /// Reads one record (with its tree; records without one only count toward the snapshots).
    pub fn record(&mut self, meta: &Meta<'_>, rec: &Record, rel_ns: i128) {
        match rec.protocol {
            "quake3" => self.quake3(meta, rec, rel_ns),
            "flightgear" => self.flightgear(meta, rec),
            "srb2" => self.srb2(rec, rel_ns),
            _ => {}
        }
    }

    fn flightgear(&mut self, meta: &Meta<'_>, rec: &Record) {
        let Some((callsign, _, p)) = crate::commands::tracks::point_of(meta, rec) else {
            return;
        };
        let point = [p.rel, p.lon, p.lat, p.alt_ft];
        if point.iter().any(|v| !v.is_finite()) {
            return;
        }
        if !self.fg.contains_key(&callsign) && self.fg.len() >= MAX_TRACKS {
            self.fg_left_out += 1;
            return;
        }
        self.fg.entry(callsign).or_default().push(point);
    }

    fn srb2(&mut self, rec: &Record, rel_ns: i128) {
        let Some(table) = ping_table(rec) else {
            return;
        };
        self.srb2_seen = true;
        let bin = self.srb2.at(rel_ns);
        let mut players = 0;
        for (slot, e) in table.take(SRB2_SLOTS).enumerate() {
            let Some(ms) = e.ms.and_then(|ms| u64::try_from(ms).ok()) else {
                continue;
            };
            // The decoder names the slots of the players it knows of (their pings may be 0: the
            // host's own); a slot without a player reads 0 (SV_SendPingTable, src/d_clisrv.c,
            // fills only playeringame slots).
            if e.player.is_none() && ms == 0 {
                continue;
            }
            if let Some(name) = e.player {
                self.srb2_names[slot] = Some(name.to_string());
            }
            bin.sum[slot] += ms;
            bin.n[slot] += 1;
            players += 1;
        }
        bin.players = bin.players.max(Some(players));
    }

    fn quake3(&mut self, meta: &Meta<'_>, rec: &Record, rel_ns: i128) {
        let snapshot = rec.msg_type == "snapshot";
        if snapshot {
            let c = self.q3_clients.entry(meta.flow);
            if matches!(c, std::collections::btree_map::Entry::Vacant(_))
                && self.q3_clients.len() >= MAX_TRACKS
            {
                self.q3_left_out += 1;
            } else {
                let c = self.q3_clients.entry(meta.flow).or_default();
                if c.label.is_empty() {
                    c.label = format!("flow {} client {}", meta.flow, meta.dst);
                }
                let s = c.bins.at(rel_ns);
                s.count += 1;
                s.bytes += meta.payload.len() as u64;
            }
        }
        let Some(msg) = Message::of(rec) else {
            return;
        };
        if !self.q3_names.contains_key(&meta.flow) && self.q3_names.len() >= MAX_Q3_FLOWS {
            return;
        }
        let names = self.q3_names.entry(meta.flow).or_default();
        names.record(&At::of(meta), rec, &mut Vec::new());
        let Some(snap) = msg.snapshot() else {
            return;
        };
        let map = names.map().unwrap_or("(map unknown)").to_string();
        let mut seen = Vec::new();
        if let Some(ps) = snap.player_state() {
            let who = names.client_num();
            seen.extend(xy(ps.origin()).map(|p| (who, p)));
        }
        for e in snap.entities() {
            // A player entity is eType ET_PLAYER, numbered by its client (bg_public.h,
            // BG_PlayerStateToEntityState in code/game/bg_misc.c); one whose position is not
            // known (a partial state, see `xy`) is left out.
            let n = e.number();
            if e.e_type() == Some(ET_PLAYER)
                && !e.removed()
                && n.is_some_and(|n| (0..MAX_CLIENTS).contains(&n))
                && let Some(p) = xy(e.position())
            {
                seen.push((n, p));
            }
        }
        let server = match meta.direction {
            Some(crate::proto::Direction::ToServer) => meta.dst,
            _ => meta.src,
        };
        for (n, _) in &seen {
            if let Some(raw) = n.and_then(|n| names.player_raw(n))
                && self.q3_player_names.len() < MAX_Q3_FLOWS
            {
                self.q3_player_names.insert((server, *n), clean_str(raw));
            }
        }
        let points = seen.into_iter().map(|(n, p)| ((server, n), p));
        self.q3_points(map, points);
    }

    /// The name of a player, or its number.
    pub fn q3_label(&self, player: &Q3Player) -> String {
        match (self.q3_player_names.get(player), player.1) {
            (Some(name), _) => name.clone(),
            (None, Some(n)) => format!("client {n}"),
            (None, None) => "(recording client)".into(),
        }
    }

    fn q3_points(&mut self, map: String, points: impl Iterator<Item = (Q3Player, (f64, f64))>) {
        if !self.q3_paths.contains_key(&map) && self.q3_paths.len() >= MAX_MAPS {
            self.q3_left_out += 1;
            return;
        }
        let players = self.q3_paths.entry(map).or_default();
        for (who, p) in points {
            if !p.0.is_finite() || !p.1.is_finite() {
                continue;
            }
            if !players.contains_key(&who) && players.len() >= MAX_TRACKS {
                self.q3_left_out += 1;
                continue;
            }
            players.entry(who).or_default().push(p);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_stay_bounded_and_span_the_whole() {
        let mut p = Path::default();
        for i in 0..100_000u32 {
            p.push(i);
        }
        assert!(p.points.len() < 2 * PATH_POINTS && p.points.len() >= PATH_POINTS);
        assert_eq!(p.points[0], 0);
        assert!(*p.points.last().unwrap() > 99_000);
        assert_eq!(p.seen(), 100_000);
    }
}
