//! Sonic Robo Blast 2 netgame protocol (the "doomdata" UDP protocol of SRB2 2.1.25 and 2.2.x).
//!
//! Layouts follow /work/shared/protocols/srb2.md, which restates STJr/SRB2 `src/d_clisrv.h`,
//! `src/d_net.c`, `src/d_netcmd.c` and friends at the release tags; each table cites its section.
//! The release is forced with `--srb2-version` (pref `srb2.version`), else detected per flow:
//! packets that carry a version (PT_SERVERINFO, PT_CLIENTJOIN, PT_SERVERCFG, PT_ASKINFO) lock it,
//! otherwise every candidate release's tables are tried and the one that explains the most
//! packets without error wins.

mod body;
pub mod fields;
pub mod notes;
pub mod tables;
mod xd;

use std::borrow::Cow;

use crate::proto::{
    Datagram, Direction, FlowDecoder, PrefDef, Prefs, Probe, ProbeInput, Protocol, ProtocolInfo,
    Role,
};
use crate::tree::{Note, Pos, Record, Severity, Value};
use crate::wire::Dissector;

use fields as f;
use tables::{CANDIDATES, Pt, Release};

pub struct Srb2;

pub static PROTOCOL: Srb2 = Srb2;

static INFO: ProtocolInfo = ProtocolInfo {
    name: "srb2",
    title: "Sonic Robo Blast 2",
    ports: &[(5029, 5029)],
    heuristic: "the 32-bit position-weighted header checksum (seed 0x01234567) matches the datagram",
    prefs: &[PrefDef {
        key: "srb2.version",
        values: "2.1.25, 2.2.0 … 2.2.15",
        desc: "Decode with this release's tables instead of detecting the release per flow",
    }],
    fields: &[fields::ALL],
    notes: notes::ALL,
};

/// `NetbufferChecksum` (`src/d_net.c`, reference §2.1): 0x01234567 plus every byte after the
/// checksum field weighted by its 1-based position, modulo 2³².
pub fn checksum(datagram: &[u8]) -> u32 {
    let mut sum: u32 = 0x0123_4567;
    for (i, &b) in datagram.iter().skip(4).enumerate() {
        sum = sum.wrapping_add((b as u32).wrapping_mul(i as u32 + 1));
    }
    sum
}

fn carried_checksum(p: &[u8]) -> Option<u32> {
    Some(u32::from_le_bytes(p.get(..4)?.try_into().ok()?))
}

impl Protocol for Srb2 {
    fn info(&self) -> &'static ProtocolInfo {
        &INFO
    }
    fn probe(&self, input: &ProbeInput<'_>) -> Probe {
        let p = input.payload;
        if p.len() < 8 || p.len() > 4096 {
            return Probe::NO;
        }
        if carried_checksum(p) != Some(checksum(p)) {
            return Probe::NO;
        }
        // Types 0–16 mean the same in every release, and each is sent by one side only
        // (STJr/SRB2 src/d_clisrv.c, the HSendPacket calls of each type).
        let role = match tables::common_type(p[6]) {
            Some(
                Pt::SERVERCFG
                | Pt::SERVERTICS
                | Pt::SERVERREFUSE
                | Pt::SERVERSHUTDOWN
                | Pt::SERVERINFO
                | Pt::PLAYERINFO,
            ) => Some(Role::Server),
            Some(
                Pt::CLIENTCMD
                | Pt::CLIENTMIS
                | Pt::CLIENT2CMD
                | Pt::CLIENT2MIS
                | Pt::NODEKEEPALIVE
                | Pt::NODEKEEPALIVEMIS
                | Pt::CLIENTQUIT
                | Pt::ASKINFO
                | Pt::REQUESTFILE,
            ) => Some(Role::Client),
            _ => None,
        };
        Probe::certain(role)
    }
    fn new_flow(&self, prefs: &Prefs) -> Box<dyn FlowDecoder> {
        let raw = prefs.get("srb2.version");
        let forced = raw.and_then(Release::parse);
        Box::new(Flow {
            forced,
            bad_pref: match (raw, forced) {
                (Some(r), None) => Some(r.to_string()),
                _ => None,
            },
            locked: None,
            scores: [0; CANDIDATES.len()],
            scored: 0,
            state: State::default(),
            recent_acks: [Vec::new(), Vec::new()],
        })
    }
}

/// What a flow has learned so far, used to name players and expand 8-bit tics.
#[derive(Debug, Clone, Default)]
pub(crate) struct State {
    /// Player number → name (from XD_NAMEANDCOLOR, XD_ADDPLAYER, PT_PLAYERINFO, PT_SERVERCFG).
    pub names: Vec<Option<String>>,
    /// Absolute tic reference for expanding 8-bit tics (PT_SERVERCFG gametic, then decoded tics).
    pub ref_tic: Option<u32>,
    /// Highest absolute tic already decoded in a PT_SERVERTICS of this flow.
    pub last_tic: Option<u32>,
    /// Node number the server gave this flow's client (PT_SERVERCFG `clientnode`).
    pub client_node: Option<u8>,
    /// The client's player numbers (first, second local player), from XD_ADDPLAYER.
    pub client_players: [Option<u8>; 2],
    /// Name the client asked to join with (2.2 PT_CLIENTJOIN), until XD_ADDPLAYER binds it.
    pub join_name: Option<String>,
    pub tics_seen: u64,
}

impl State {
    pub fn name(&self, player: u8) -> Option<&str> {
        self.names.get(player as usize)?.as_deref()
    }
    pub fn set_name(&mut self, player: u8, name: &[u8]) {
        if player as usize >= 32 {
            return;
        }
        if self.names.len() < 32 {
            self.names.resize(32, None);
        }
        self.names[player as usize] = Some(String::from_utf8_lossy(name).into_owned());
    }
    /// "Sonic (1)" or "player 1".
    pub fn who(&self, player: u8) -> String {
        match self.name(player) {
            Some(n) => n.to_string(),
            None => format!("player {player}"),
        }
    }
}

/// Why a flow decodes with the release it does.
#[derive(Debug, Clone)]
enum Basis {
    Forced,
    Wire(String),
    BestFit { explained: u32, packets: u32 },
    Default,
}

struct Flow {
    forced: Option<Release>,
    bad_pref: Option<String>,
    locked: Option<(Release, String)>,
    scores: [u32; CANDIDATES.len()],
    scored: u32,
    state: State,
    /// Recent reliable sequence numbers per direction (0 = to server, 1 = to client), newest last.
    recent_acks: [Vec<u8>; 2],
}

/// At most this many packets are trial-decoded under every candidate release.
const MAX_SCORED: u32 = 256;

/// What one decode of a datagram produced.
pub(crate) struct Decoded {
    pub record: Record,
    pub errors: usize,
    pub warnings: usize,
}

impl Flow {
    fn choose(&mut self, payload: &[u8], checksum_ok: bool, dir: Direction) -> (Release, Basis) {
        if let Some(r) = self.forced {
            return (r, Basis::Forced);
        }
        if self.locked.is_none()
            && checksum_ok
            && let Some(found) = sniff_release(payload)
        {
            self.locked = Some(found);
        }
        if let Some((r, why)) = &self.locked {
            return (*r, Basis::Wire(why.clone()));
        }
        if checksum_ok && self.scored < MAX_SCORED {
            self.scored += 1;
            let hint = askinfo_family(payload);
            for (i, &r) in CANDIDATES.iter().enumerate() {
                let mut st = self.state.clone();
                let d = dissect(payload, r, &mut st, dir, true, false);
                if d.errors == 0 && d.warnings == 0 {
                    self.scores[i] += 1;
                }
                if hint == Some(r.is_2_1()) {
                    self.scores[i] += 1;
                }
            }
        }
        let mut best = 0;
        for i in 1..CANDIDATES.len() {
            if self.scores[i] > self.scores[best] {
                best = i;
            }
        }
        if self.scored == 0 {
            return (CANDIDATES[0], Basis::Default);
        }
        (
            CANDIDATES[best],
            Basis::BestFit {
                explained: self.scores[best].min(self.scored),
                packets: self.scored,
            },
        )
    }
}

/// PT_ASKINFO's `version` byte names the family (201 = 2.1.x, 202 = 2.2.x; reference §5.8).
fn askinfo_family(p: &[u8]) -> Option<bool> {
    if p.len() == 13 && p.get(6) == Some(&12) {
        match p[8] {
            201 => return Some(true),
            202 => return Some(false),
            _ => {}
        }
    }
    None
}

/// A release named by the packet itself (reference §9 step 5), with the reason.
fn sniff_release(p: &[u8]) -> Option<(Release, String)> {
    let t = *p.get(6)?;
    let b = p.get(8..)?;
    let two_one = |sub: u8, what: &str| {
        let why = if sub == 25 {
            format!("{what} carries version 201, subversion 25")
        } else {
            format!(
                "{what} carries version 201, subversion {sub} (2.1.{sub}); 2.1.25 is the 2.1 release tabulated"
            )
        };
        (Release::R2_1_25, why)
    };
    match (t, b.len()) {
        // PT_SERVERINFO (13 in every release).
        (13, n) if n >= 20 && b[0] == 0xFF && b[18] == 202 => {
            let r = Release(200 + b[19] as u16);
            r.supported().then(|| {
                (
                    r,
                    format!(
                        "PT_SERVERINFO carries packetversion {}, version 202, subversion {}",
                        b[1], b[19]
                    ),
                )
            })
        }
        (13, n) if n >= 109 && b[0] == 201 => Some(two_one(b[1], "PT_SERVERINFO")),
        (13, n) if n >= 109 && b[0] == 202 && b[1] == 0 => Some((
            Release(200),
            "PT_SERVERINFO carries version 202, subversion 0".into(),
        )),
        // PT_CLIENTJOIN: 22 (2.1.25, 2.2.0–2.2.2), 25, 27, 28, 29 by release (reference §3, §5.7).
        (22, 4) if b[0] == 201 => Some(two_one(b[1], "PT_CLIENTJOIN")),
        (22, 46) if b[0] == 202 && b[1] == 0 => Some((
            Release(200),
            "PT_CLIENTJOIN (46 bytes) carries version 202, subversion 0".into(),
        )),
        (22 | 25 | 27 | 28, 64) if b[0] == 0xFF && b[18] == 202 => {
            let r = Release(200 + b[19] as u16);
            (r.supported() && r.0 <= 209 && tables::packet_type(r, t) == Some(Pt::CLIENTJOIN)).then(
                || {
                    (
                        r,
                        format!("PT_CLIENTJOIN carries version 202, subversion {}", b[19]),
                    )
                },
            )
        }
        (28 | 29, 61) => {
            let r = tables::release_from_modversion(b[0])?;
            (tables::packet_type(r, t) == Some(Pt::CLIENTJOIN)).then(|| {
                (
                    r,
                    format!("PT_CLIENTJOIN carries MODVERSION {} ({r})", b[0]),
                )
            })
        }
        // PT_SERVERCFG (1): 2.1 and 2.2.0–2.2.8 start with version/subversion.
        (1, n) if n >= 116 && b[0] == 201 => Some(two_one(b[1], "PT_SERVERCFG")),
        (1, n) if n >= 244 && b[0] == 202 && b[1] <= 8 => Some((
            Release(200 + b[1] as u16),
            format!("PT_SERVERCFG carries version 202, subversion {}", b[1]),
        )),
        (1, 20) if b[0] == 202 && b[1] == 9 => Some((
            Release(209),
            "PT_SERVERCFG (20 bytes) carries version 202, subversion 9".into(),
        )),
        // PT_ASKINFO 201: the 2.1 family, of which only 2.1.25 is tabulated.
        (12, 5) if b[0] == 201 => Some((
            Release::R2_1_25,
            "PT_ASKINFO carries version 201 (2.1.x; 2.1.25 is the 2.1 release tabulated)".into(),
        )),
        _ => None,
    }
}

/// Decodes one datagram under one release. `trial` decodes without keeping what it learns.
pub(crate) fn dissect(
    p: &[u8],
    rel: Release,
    st: &mut State,
    dir: Direction,
    _trial: bool,
    detail: bool,
) -> Decoded {
    let mut rec = Record::new("srb2");
    let mut d = Dissector::new(p, detail);
    d.tree.open(&f::ROOT, Value::None, Pos::bytes(0, p.len()));
    let summary = body::packet(&mut d, p, rel, st, dir, &mut rec);
    rec.summary = summary;
    d.tree.finish_into(p.len(), &mut rec);
    let errors = rec
        .notes
        .iter()
        .filter(|n| n.severity == Severity::Error)
        .count();
    let warnings = rec
        .notes
        .iter()
        .filter(|n| n.severity == Severity::Warning)
        .count();
    Decoded {
        record: rec,
        errors,
        warnings,
    }
}

/// How many reliable packets can be outstanding per destination (reference §2.2: 96).
const ACK_WINDOW: usize = 96;

impl Flow {
    /// Flags a reliable packet whose sequence number was already seen recently in the same
    /// direction: a retransmission after NODETIMEOUT, or a duplicate (reference §2.2).
    fn track_ack(&mut self, rec: &mut Record, ack: u8, dir: Direction) {
        let list = &mut self.recent_acks[(dir == Direction::ToClient) as usize];
        if list.contains(&ack) {
            rec.notes.push(Note::new(
                &notes::RETRANSMISSION,
                Some(&f::ACK),
                Some(Pos::bytes(4, 1)),
                format!(
                    "reliable packet #{ack} was already sent in this direction: a retransmission or duplicate (the receiver discards it)"
                ),
            ));
            return;
        }
        if list.len() >= ACK_WINDOW {
            list.remove(0);
        }
        list.push(ack);
    }
}

impl FlowDecoder for Flow {
    fn decode(&mut self, dg: &Datagram<'_>, out: &mut Vec<Record>) {
        let p = dg.payload;
        if p.is_empty() {
            let mut r = Record::new("srb2");
            r.msg_type = Cow::Borrowed("empty");
            r.summary = "empty datagram (address reachability test)".into();
            r.fields.push(crate::tree::Field::new(
                &f::ROOT,
                Value::None,
                Pos::bytes(0, 0),
            ));
            r.expert(
                &notes::EMPTY_DATAGRAM,
                None,
                "SRB2 sends a 0-byte datagram to test a new address; receivers drop it",
            );
            out.push(r);
            return;
        }
        let ok = p.len() >= 8 && carried_checksum(p) == Some(checksum(p));
        let (rel, basis) = self.choose(p, ok, dg.direction);
        let mut dec = dissect(p, rel, &mut self.state, dg.direction, false, dg.detail);
        let why = match &basis {
            Basis::Forced => "forced by --srb2-version".to_string(),
            Basis::Wire(w) => w.clone(),
            Basis::BestFit { explained, packets } => format!(
                "best fit: the {} tables explain {explained} of {packets} packets without errors",
                rel.pt_column()
            ),
            Basis::Default => {
                "nothing seen yet names a release; assuming the most deployed one".to_string()
            }
        };
        if let Some(root) = dec.record.fields.first_mut() {
            root.children.insert(
                0,
                crate::tree::Field::new(
                    &f::RELEASE_BASIS,
                    Value::Str(why.into()),
                    Pos::bytes(0, 0),
                ),
            );
            root.children.insert(
                0,
                crate::tree::Field::new(
                    &f::RELEASE,
                    Value::Str(rel.to_string().into()),
                    Pos::bytes(0, 0),
                ),
            );
        }
        if dg.truncated {
            // The snaplen cut the datagram: the checksum cannot be verified and running out of
            // bytes at the end is expected, so those notes are downgraded.
            for n in dec.record.notes.iter_mut() {
                let at_end = n.pos.is_some_and(|x| x.end() as usize >= p.len());
                let checksum = n.field == Some(f::CHECKSUM.name);
                if (at_end && n.severity == Severity::Error) || checksum {
                    n.severity = Severity::Note;
                    n.message = format!("{} (the capture cut this datagram)", n.message);
                }
            }
        }
        if ok && p[4] != 0 {
            self.track_ack(&mut dec.record, p[4], dg.direction);
        }
        if let Some(bad) = &self.bad_pref {
            dec.record.expert(
                &notes::BAD_VERSION_PREF,
                Some(&f::RELEASE),
                format!(
                    "--srb2-version {bad:?} is not a tabulated release (2.1.25, 2.2.0 … 2.2.15); detecting instead"
                ),
            );
        }
        out.push(dec.record);
    }

    fn state_bytes(&self) -> usize {
        self.state
            .names
            .iter()
            .map(|n| n.as_ref().map_or(0, |s| s.len()) + 24)
            .sum::<usize>()
            + 64
    }

    fn describe(&self) -> Vec<(String, String)> {
        let mut v = Vec::new();
        let (rel, why) = if let Some(r) = self.forced {
            (r, "forced by --srb2-version".to_string())
        } else if let Some((r, w)) = &self.locked {
            (*r, w.clone())
        } else {
            let mut best = 0;
            for i in 1..CANDIDATES.len() {
                if self.scores[i] > self.scores[best] {
                    best = i;
                }
            }
            (
                CANDIDATES[best],
                format!(
                    "best fit over {} packets ({} explained)",
                    self.scored, self.scores[best]
                ),
            )
        };
        v.push(("release".into(), format!("{rel} ({why})")));
        let names: Vec<String> = self
            .state
            .names
            .iter()
            .enumerate()
            .filter_map(|(i, n)| n.as_ref().map(|n| format!("{i}={n}")))
            .collect();
        if !names.is_empty() {
            v.push(("players".into(), names.join(", ")));
        }
        if let Some(t) = self.state.last_tic {
            v.push(("last tic".into(), t.to_string()));
        }
        v
    }
}

#[cfg(test)]
mod tests;
