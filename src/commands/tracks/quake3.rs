//! Quake 3 tracks: per snapshot, the recording client's position, view angles and health (its
//! player state), and every visible player entity's position and angles with its name.
//!
//! A delta snapshot lists only the entities that changed against its reference snapshot (the
//! one of message `delta_from`; ioquake3 code/server/sv_snapshot.c `SV_EmitPacketEntities`), so
//! each flow keeps the visible players of its last PACKET_BACKUP (32, qcommon.h) snapshots and
//! builds each snapshot's set from its reference. A player entity is eType ET_PLAYER (1) with
//! the client's number as entity number; its `pos.trBase` is the player's origin and its
//! `apos.trBase` the view angles (code/game/bg_misc.c `BG_PlayerStateToEntityState`). Names,
//! map and the client's own number come from the same per-flow state as `gamedissect events`;
//! every value is read through the Quake 3 facts (`protocols::quake3::facts`).

use std::collections::{HashMap, VecDeque};
use std::io;

use crate::proto::Meta;
use crate::protocols::quake3::constants::PACKET_BACKUP;
use crate::protocols::quake3::events as names;
use crate::protocols::quake3::facts::{ET_PLAYER, MAX_CLIENTS, Message, Snapshot, clean_str};
use crate::toolkit::facts::{At, EventExtractor};
use crate::tree::Record;

/// The CSV header of Quake 3 tracks.
pub const CSV_COLUMNS: &str =
    "frame,time,rel,flow,map,server_time,subject,client,name,name_raw,x,y,z,pitch,yaw,roll,health";

/// Flows followed at once; beyond, the least recently seen eighth is forgotten.
const MAX_FLOWS: usize = 4096;

/// One visible player entity.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Seen {
    client: u16,
    pos: [f64; 3],
    angles: [Option<f64>; 3],
}

#[derive(Default)]
struct Flow {
    names: names::State,
    /// (message sequence, visible players) of the last snapshots, oldest first.
    snapshots: VecDeque<(i64, Vec<Seen>)>,
    last_frame: u64,
}

/// One row: the client's own state (`health` known) or a visible player.
struct Row<'a> {
    subject: &'static str,
    client: Option<i64>,
    name: Option<&'a str>,
    /// `None`: not known (written empty, never guessed).
    pos: [Option<f64>; 3],
    angles: [Option<f64>; 3],
    health: Option<i64>,
}

/// Every Quake 3 flow's track state.
#[derive(Default)]
pub(super) struct Tracks {
    flows: HashMap<u64, Flow>,
}

impl Tracks {
    /// Writes the rows of one record (nothing unless it is a Quake 3 snapshot).
    pub(super) fn record(
        &mut self,
        meta: &Meta<'_>,
        record: &Record,
        out: &mut dyn FnMut(String) -> io::Result<()>,
        json: bool,
    ) -> io::Result<()> {
        if record.protocol != "quake3" {
            return Ok(());
        }
        let Some(msg) = Message::of(record) else {
            return Ok(());
        };
        let flow = self.flow(meta.flow, meta.frame);
        flow.names.record(&At::of(meta), record, &mut Vec::new());
        let Some(snap) = msg.snapshot() else {
            return Ok(());
        };
        let seen = flow.visible(snap, msg.sequence());
        let server_time = snap.server_time();
        let mut rows = Vec::with_capacity(seen.len() + 1);
        if let Some(ps) = snap.player_state() {
            let client = flow.names.client_num();
            rows.push(Row {
                subject: "client",
                client,
                name: client.and_then(|c| flow.names.player_raw(c)),
                pos: ps.origin(),
                angles: ps.viewangles(),
                health: ps.health(),
            });
        }
        for s in &seen {
            rows.push(Row {
                subject: "player",
                client: Some(i64::from(s.client)),
                name: flow.names.player_raw(i64::from(s.client)),
                pos: s.pos.map(Some),
                angles: s.angles,
                health: None,
            });
        }
        let map = flow.names.map();
        for row in rows {
            out(format_row(meta, map, server_time, &row, json))?;
        }
        Ok(())
    }

    fn flow(&mut self, flow: u64, frame: u64) -> &mut Flow {
        if !self.flows.contains_key(&flow) && self.flows.len() >= MAX_FLOWS {
            let mut seen: Vec<u64> = self.flows.values().map(|f| f.last_frame).collect();
            seen.sort_unstable();
            let cut = seen[seen.len() / 8];
            self.flows.retain(|_, f| f.last_frame > cut);
        }
        let f = self.flows.entry(flow).or_default();
        f.last_frame = frame;
        f
    }
}

impl Flow {
    /// The players visible in `snap`: its reference snapshot's, changed by the entities it
    /// lists. When the reference was not captured, only the listed players are known.
    fn visible(&mut self, snap: Snapshot<'_>, seq: Option<i64>) -> Vec<Seen> {
        let delta = snap.delta_num().unwrap_or(0);
        let mut seen: Vec<Seen> = if delta == 0 {
            Vec::new()
        } else {
            let from = snap.delta_from();
            self.snapshots
                .iter()
                .find(|(s, _)| Some(*s) == from)
                .map(|(_, v)| v.clone())
                .unwrap_or_default()
        };
        for n in snap.removed() {
            seen.retain(|s| i64::from(s.client) != n);
        }
        for e in snap.entities() {
            let Some(n) = e.number().and_then(|n| u16::try_from(n).ok()) else {
                continue;
            };
            seen.retain(|s| s.client != n);
            // A player whose position is not known is left out (never guessed); unknown
            // angles are written empty.
            if let [Some(x), Some(y), Some(z)] = e.position()
                && !e.removed()
                && e.e_type() == Some(ET_PLAYER)
                && i64::from(n) < MAX_CLIENTS
            {
                seen.push(Seen {
                    client: n,
                    pos: [x, y, z],
                    angles: e.angles(),
                });
            }
        }
        seen.sort_unstable_by_key(|s| s.client);
        if let Some(seq) = seq {
            if self.snapshots.len() >= PACKET_BACKUP {
                self.snapshots.pop_front();
            }
            self.snapshots.push_back((seq, seen.clone()));
        }
        seen
    }
}

fn csv_text(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

fn format_row(
    meta: &Meta<'_>,
    map: Option<&str>,
    server_time: Option<i64>,
    row: &Row<'_>,
    json: bool,
) -> String {
    let rel = meta.time.secs_since(&meta.base);
    let clean = row.name.map(clean_str);
    if json {
        let v = serde_json::json!({
            "frame": meta.frame,
            "time": meta.time.rfc3339(),
            "rel": rel,
            "flow": meta.flow,
            "protocol": "quake3",
            "map": map,
            "server_time": server_time,
            "subject": row.subject,
            "client": row.client,
            "name": clean,
            "name_raw": row.name,
            "x": row.pos[0], "y": row.pos[1], "z": row.pos[2],
            "pitch": row.angles[0], "yaw": row.angles[1], "roll": row.angles[2],
            "health": row.health,
        });
        return v.to_string();
    }
    let opt = |v: Option<i64>| v.map(|v| v.to_string()).unwrap_or_default();
    let optf = |v: Option<f64>| v.map(|v| v.to_string()).unwrap_or_default();
    format!(
        "{},{},{:.6},{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
        meta.frame,
        meta.time.rfc3339(),
        rel,
        meta.flow,
        csv_text(map.unwrap_or_default()),
        opt(server_time),
        row.subject,
        opt(row.client),
        csv_text(clean.as_deref().unwrap_or_default()),
        csv_text(row.name.unwrap_or_default()),
        optf(row.pos[0]),
        optf(row.pos[1]),
        optf(row.pos[2]),
        optf(row.angles[0]),
        optf(row.angles[1]),
        optf(row.angles[2]),
        opt(row.health),
    )
}
