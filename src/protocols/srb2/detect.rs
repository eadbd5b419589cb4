//! Which release a flow speaks: forced with `--srb2-version`, named by a packet that carries
//! version fields, or else the release whose tables explain the most packets.
//!
//! Version fields on the wire: VERSION (201 for every 2.1.x, 202 for 2.2.x) and SUBVERSION
//! (STJr/SRB2 `src/doomdef.h` up to 2.2.6, `src/version.h` after), PACKETVERSION
//! (`src/d_clisrv.h`), MODVERSION (51–56 for 2.2.10–2.2.15).

use crate::digest::fnv1a;
use crate::tree::{Detail, Record, Severity};

use super::msg::dissect;
use super::state::State;
use super::tables::{self, CANDIDATES, Pt, Release, VERSION_2_1, VERSION_2_2};

/// At most this many packets are trial-decoded under every candidate release (ten decodes each:
/// 6.4x a decided packet's cost). Fewer when the leader can no longer be caught within them.
/// Packets that name the release lock it first; in the shipped captures they come within the
/// first few packets, and trial decoding is for a capture that starts mid-session, where a few
/// dozen packets of tics and commands already tell the tables apart.
pub(crate) const MAX_SCORED: u32 = 32;

/// Consecutive trusted datagrams naming one other release it takes to revise a locked release:
/// one datagram that contradicts it is a stray (flagged, not obeyed).
pub(crate) const REVISE_AFTER: u32 = 2;

/// Trusted datagrams naming one release it takes to lock it: a flow is not decided on one
/// datagram. The first is decoded with the release it names (nothing better is known), and the
/// release is shown as named once.
pub(crate) const LOCK_AFTER: u32 = 2;

/// What a datagram did to a locked release.
#[derive(Debug, Clone, Copy)]
pub(crate) enum LockEvent {
    /// It names `named`, the flow is `locked`: flagged, not obeyed.
    Contradicted { named: Release, locked: Release },
    /// The evidence turned: the flow now decodes with `to`.
    Revised { from: Release, to: Release },
}

/// Why a flow decodes with the release it does.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Basis<'a> {
    Forced,
    Wire(&'a str),
    /// Named by one trusted datagram, not yet locked ([`LOCK_AFTER`]).
    NamedOnce(&'a str),
    BestFit {
        explained: u32,
        packets: u32,
    },
    Default,
}

impl Basis<'_> {
    /// The text of `srb2.release_basis`.
    pub fn explain(self, rel: Release) -> String {
        match self {
            Basis::Forced => "forced by --srb2-version".to_string(),
            Basis::Wire(w) => w.to_string(),
            Basis::NamedOnce(w) => {
                format!("{w}; named by one datagram so far, locked when a second names it")
            }
            Basis::BestFit { explained, packets } => format!(
                "best fit: the {} tables explain {explained} of {packets} packets without errors",
                rel.pt_column()
            ),
            Basis::Default => {
                "nothing seen yet names a release; assuming the most deployed one".to_string()
            }
        }
    }
}

/// A flow's release choice: forced, locked by a packet, or scored by trial decoding.
#[derive(Debug)]
pub(crate) struct Detector {
    forced: Option<Release>,
    locked: Option<(Release, String)>,
    /// A release named by trusted datagrams but not yet locked, the last one's reason, and a
    /// digest of each distinct datagram that named it, none naming another since
    /// ([`LOCK_AFTER`]).
    named: Option<(Release, String, Vec<u64>)>,
    /// Consecutive trusted datagrams that named a release other than the locked one, and the
    /// last such release (see [`REVISE_AFTER`]).
    against: (u32, Option<Release>),
    /// What the last [`Detector::choose`] did to a locked release, for the record's note.
    event: Option<LockEvent>,
    /// Release revisions so far, for `stats`.
    revisions: u32,
    /// Per candidate, the packets it decoded without error or warning (plus PT_ASKINFO hints).
    scores: [u32; CANDIDATES.len()],
    scored: u32,
}

impl Detector {
    pub fn new(forced: Option<Release>) -> Detector {
        Detector {
            forced,
            locked: None,
            named: None,
            against: (0, None),
            event: None,
            revisions: 0,
            scores: [0; CANDIDATES.len()],
            scored: 0,
        }
    }

    /// Learns what a datagram says about the release (only when its checksum holds), then
    /// gives the release to decode it with.
    pub fn choose(&mut self, p: &[u8], checksum_ok: bool, learned: &State) -> (Release, Basis<'_>) {
        self.event = None;
        if self.forced.is_none() && checksum_ok {
            match &self.locked {
                None => {
                    if let Some((r, why)) = sniff_release(p) {
                        self.name(r, why, p);
                    } else if !self.settled() {
                        self.score(p, learned);
                    }
                }
                Some((r, _)) => {
                    let r = *r;
                    self.weigh_against(p, r);
                }
            }
        }
        self.current()
    }

    /// A trusted datagram of an unlocked flow names release `r`: the [`LOCK_AFTER`]th to
    /// name it locks it, and so does one that names the best fit of the packets scored; one
    /// naming another starts the count again.
    /// A copy of a datagram already counted (a replay, a duplicate) is no new evidence.
    fn name(&mut self, r: Release, why: String, p: &[u8]) {
        // Packets the tables already explained are evidence too: a name that agrees with their
        // best fit is the second piece, and scoring (ten trial decodes a packet) can stop.
        if self.scored > 0 && CANDIDATES[self.best()] == r {
            let n = self.scored;
            self.named = None;
            let s = if n == 1 { "" } else { "s" };
            self.locked = Some((r, format!("{why}; the best fit over {n} packet{s} agrees")));
            return;
        }
        // The packet type and body: the same message under another header (ack bytes, a
        // recomputed checksum) is no new evidence either.
        let digest = fnv1a(p.get(6..).unwrap_or(&[]));
        let mut seen = match self.named.take() {
            Some((named, _, seen)) if named == r => seen,
            _ => Vec::new(),
        };
        if !seen.contains(&digest) {
            seen.push(digest);
        }
        let n = seen.len() as u32;
        if n >= LOCK_AFTER {
            self.locked = Some((
                r,
                format!("{why} ({n} distinct trusted datagrams named it)"),
            ));
        } else {
            self.named = Some((r, why, seen));
        }
    }

    /// A trusted datagram of a locked flow that names another release: flagged, and obeyed only
    /// once [`REVISE_AFTER`] consecutive trusted naming datagrams agree on that other release.
    fn weigh_against(&mut self, p: &[u8], locked: Release) {
        let Some((named, why)) = sniff_release(p) else {
            return;
        };
        if named == locked {
            self.against = (0, None);
            return;
        }
        let n = if self.against.1 == Some(named) {
            self.against.0 + 1
        } else {
            1
        };
        self.against = (n, Some(named));
        if n < REVISE_AFTER {
            self.event = Some(LockEvent::Contradicted { named, locked });
            return;
        }
        self.against = (0, None);
        self.revisions += 1;
        self.event = Some(LockEvent::Revised {
            from: locked,
            to: named,
        });
        self.locked = Some((named, format!("{why} (revised from {locked})")));
    }

    /// What the last [`Detector::choose`] did to a locked release.
    pub fn event(&self) -> Option<LockEvent> {
        self.event
    }

    /// The release the flow decodes with now.
    pub fn release(&self) -> Release {
        self.current().0
    }

    /// The release is forced or named by the wire (not a best fit still being scored).
    pub fn decided(&self) -> bool {
        self.forced.is_some() || self.locked.is_some()
    }

    /// The release was forced with `--srb2-version`.
    pub fn forced(&self) -> bool {
        self.forced.is_some()
    }

    fn current(&self) -> (Release, Basis<'_>) {
        if let Some(r) = self.forced {
            return (r, Basis::Forced);
        }
        if let Some((r, why)) = &self.locked {
            return (*r, Basis::Wire(why));
        }
        // One naming datagram decides nothing: before any packet was scored it is the only
        // evidence; once the tables have explained packets, the best fit stays.
        if let Some((r, why, _)) = self.named.as_ref().filter(|_| self.scored == 0) {
            return (*r, Basis::NamedOnce(why));
        }
        if self.scored == 0 {
            return (CANDIDATES[0], Basis::Default);
        }
        let best = self.best();
        let basis = Basis::BestFit {
            explained: self.scores[best].min(self.scored),
            packets: self.scored,
        };
        (CANDIDATES[best], basis)
    }

    /// Trial-decodes a datagram under every candidate with a copy of what the flow learned.
    fn score(&mut self, p: &[u8], learned: &State) {
        self.scored += 1;
        let hint = askinfo_family(p);
        for (i, &r) in CANDIDATES.iter().enumerate() {
            let mut st = learned.clone();
            if explains(&dissect(p, r, &mut st, Detail::None)) {
                self.scores[i] += 1;
            }
            if hint == Some(r.is_2_1()) {
                self.scores[i] += 1;
            }
        }
    }

    /// Scoring is over: [`MAX_SCORED`] packets were scored, or no other candidate could
    /// reach the leader within them (a packet adds at most 2 to a score).
    fn settled(&self) -> bool {
        let left = MAX_SCORED.saturating_sub(self.scored);
        if left == 0 {
            return true;
        }
        let best = self.best();
        let lead = self.scores[best];
        (0..CANDIDATES.len())
            .filter(|&i| i != best)
            .all(|i| self.scores[i].saturating_add(2 * left) < lead)
    }

    /// The best-scoring candidate; ties go to the earlier one.
    fn best(&self) -> usize {
        let mut best = 0;
        for i in 1..CANDIDATES.len() {
            if self.scores[i] > self.scores[best] {
                best = i;
            }
        }
        best
    }

    /// The release and its reason, for `stats`.
    pub fn describe(&self) -> String {
        let (rel, why) = match self.current() {
            (r, Basis::Forced) => (r, "forced by --srb2-version".to_string()),
            (r, Basis::Wire(w)) => (r, w.to_string()),
            (r, b @ Basis::NamedOnce(_)) => (r, b.explain(r)),
            (r, _) => (
                r,
                format!(
                    "best fit over {} packets ({} explained)",
                    self.scored,
                    self.scores[self.best()]
                ),
            ),
        };
        match self.revisions {
            0 => format!("{rel} ({why})"),
            n => format!(
                "{rel} ({why}; revised {n} time{})",
                if n == 1 { "" } else { "s" }
            ),
        }
    }
}

/// A decode explains a packet when it has no error and no warning.
fn explains(rec: &Record) -> bool {
    !rec.notes
        .iter()
        .any(|n| matches!(n.severity(), Severity::Error | Severity::Warning))
}

/// PT_ASKINFO's `version` names the family (2.1.x or 2.2.x) without naming a release.
fn askinfo_family(p: &[u8]) -> Option<bool> {
    if p.len() != 13 || tables::common_type(*p.get(6)?) != Some(Pt::ASKINFO) {
        return None;
    }
    match p[8] {
        VERSION_2_1 => Some(true),
        VERSION_2_2 => Some(false),
        _ => None,
    }
}

/// A release named by the packet itself, with the reason.
pub(crate) fn sniff_release(p: &[u8]) -> Option<(Release, String)> {
    let t = *p.get(6)?;
    let b = p.get(8..)?;
    match tables::common_type(t) {
        Some(Pt::SERVERINFO) => sniff_serverinfo(b),
        Some(Pt::SERVERCFG) => sniff_servercfg(b),
        Some(Pt::ASKINFO) => (b.len() == 5 && b[0] == VERSION_2_1).then(|| {
            let why = "PT_ASKINFO carries version 201 (2.1.x; 2.1.25 is the 2.1 release tabulated)";
            (Release::R2_1_25, why.into())
        }),
        Some(_) => None,
        // PT_CLIENTJOIN moves from release to release.
        None => sniff_clientjoin(t, b),
    }
}

/// Any 2.1.x is decoded with the 2.1.25 tables; the reason says which it was.
fn two_one(sub: u8, what: &str) -> (Release, String) {
    let why = if sub == 25 {
        format!("{what} carries version 201, subversion 25")
    } else {
        format!(
            "{what} carries version 201, subversion {sub} (2.1.{sub}); 2.1.25 is the 2.1 release tabulated"
        )
    };
    (Release::R2_1_25, why)
}

/// PT_SERVERINFO: 2.2.1+ start with 0xFF, packetversion, the application, then version and
/// subversion at 18–19 (the exact release); 2.1 and 2.2.0 start with version, subversion.
fn sniff_serverinfo(b: &[u8]) -> Option<(Release, String)> {
    let n = b.len();
    if n >= 20 && b[0] == 0xFF && b[18] == VERSION_2_2 {
        let r = Release(200 + b[19] as u16);
        return r.supported().then(|| {
            let why = format!(
                "PT_SERVERINFO carries packetversion {}, version 202, subversion {}",
                b[1], b[19]
            );
            (r, why)
        });
    }
    if n >= 109 && b[0] == VERSION_2_1 {
        return Some(two_one(b[1], "PT_SERVERINFO"));
    }
    if n >= 109 && b[0] == VERSION_2_2 && b[1] == 0 {
        let why = "PT_SERVERINFO carries version 202, subversion 0";
        return Some((Release(200), why.into()));
    }
    None
}

/// PT_SERVERCFG: 2.1 and 2.2.0–2.2.9 start with version and subversion (2.2.9's is 20 bytes).
fn sniff_servercfg(b: &[u8]) -> Option<(Release, String)> {
    let n = b.len();
    if n >= 116 && b[0] == VERSION_2_1 {
        return Some(two_one(b[1], "PT_SERVERCFG"));
    }
    if n >= 244 && b[0] == VERSION_2_2 && b[1] <= 8 {
        let why = format!("PT_SERVERCFG carries version 202, subversion {}", b[1]);
        return Some((Release(200 + b[1] as u16), why));
    }
    if n == 20 && b[0] == VERSION_2_2 && b[1] == 9 {
        let why = "PT_SERVERCFG (20 bytes) carries version 202, subversion 9";
        return Some((Release(209), why.into()));
    }
    None
}

/// PT_CLIENTJOIN, by its length: 4 bytes (2.1), 46 (2.2.0), 64 with 0xFF (2.2.1–2.2.9, exact
/// from version/subversion), 61 (2.2.10+, exact from MODVERSION); the type number must be the
/// PT_CLIENTJOIN of the release the body names.
fn sniff_clientjoin(t: u8, b: &[u8]) -> Option<(Release, String)> {
    let r = match b.len() {
        4 if b[0] == VERSION_2_1 => Release::R2_1_25,
        46 if b[0] == VERSION_2_2 && b[1] == 0 => Release(200),
        64 if b[0] == 0xFF && b[18] == VERSION_2_2 && b[19] <= 9 => Release(200 + b[19] as u16),
        61 => tables::release_from_modversion(b[0])?,
        _ => return None,
    };
    if !r.supported() || tables::packet_type(r, t) != Some(Pt::CLIENTJOIN) {
        return None;
    }
    Some(match b.len() {
        4 => two_one(b[1], "PT_CLIENTJOIN"),
        46 => (
            r,
            "PT_CLIENTJOIN (46 bytes) carries version 202, subversion 0".into(),
        ),
        64 => (
            r,
            format!("PT_CLIENTJOIN carries version 202, subversion {}", b[19]),
        ),
        _ => (
            r,
            format!("PT_CLIENTJOIN carries MODVERSION {} ({r})", b[0]),
        ),
    })
}

/// A game built on SRB2's netcode, told by its application string or by a packet type no SRB2
/// release has.
#[derive(Debug, Clone)]
pub(crate) struct OtherGame {
    /// The application string (`SRB2APPLICATION`): "SRB2Kart" (STJr/Kart-Public
    /// `src/doomdef.h`), "RingRacers" (KartKrewDev/RingRacers `src/doomdef.h`); None when only
    /// a packet type told.
    pub application: Option<String>,
    /// What told it, for the record and `stats`.
    pub evidence: String,
}

impl OtherGame {
    /// The game's name as shown.
    pub fn name(&self) -> &str {
        match self.application.as_deref() {
            Some("SRB2Kart") => "SRB2Kart",
            Some("RingRacers") => "Dr. Robotnik's Ring Racers",
            _ => "a game built on SRB2's netcode",
        }
    }
}

/// The head shared by PT_SERVERINFO (SRB2 2.2.1+, SRB2Kart, Ring Racers: `serverinfo_pak` in
/// each `src/d_clisrv.h`) and the join packet of SRB2 2.2.1-2.2.9, SRB2Kart and Ring Racers
/// (`clientconfig_pak`, the body of PT_CLIENTJOIN): 0xFF, packetversion,
/// application[MAXAPPLICATION = 16], version, subversion. The application when it is not "SRB2".
fn other_application(b: &[u8]) -> Option<(String, u8, u8)> {
    let b = b.get(..20)?;
    if b[0] != 0xFF {
        return None;
    }
    // Written with strncpy: the name, then NULs to the end of the field.
    let field = &b[2..18];
    let end = field.iter().position(|&c| c == 0)?;
    let (app, pad) = field.split_at(end);
    let name = !app.is_empty() && app.iter().all(|c| c.is_ascii_graphic());
    let padded = pad.iter().all(|&c| c == 0);
    (name && padded && app != b"SRB2")
        .then(|| (String::from_utf8_lossy(app).into_owned(), b[18], b[19]))
}

/// Another game on SRB2's netcode, from a checksum-valid datagram:
/// - PT_SERVERINFO (type 13 everywhere) whose application is not "SRB2";
/// - a join packet: a type past SRB2's common 0-16 whose body is `clientconfig_pak`'s head with
///   another application (PT_CLIENTJOIN is 29 in SRB2Kart v1.6, STJr/Kart-Public
///   `src/d_clisrv.h`; 35 in Ring Racers, KartKrewDev/RingRacers `src/d_clisrv.h`; the type is
///   not checked, since those enums move between versions);
/// - with `by_type` (no `--srb2-version` forced: a user who forces a release says the flow is
///   SRB2, and such a packet is then an error), a packet type past every SRB2 release's
///   NUMPACKETTYPE (35 in 2.2.13, the most): Ring Racers' enum goes on to PT_SAY (46), with
///   PT_CLIENTKEY, PT_SERVERCHALLENGE and the signature packets before it.
pub(crate) fn sniff_other_game(p: &[u8], by_type: bool) -> Option<OtherGame> {
    let t = *p.get(6)?;
    let body = p.get(8..).unwrap_or(&[]);
    let common = tables::common_type(t);
    let head = common == Some(Pt::SERVERINFO) || common.is_none();
    if head && let Some((app, version, sub)) = other_application(body) {
        let packet = if common.is_some() {
            "PT_SERVERINFO".to_string()
        } else {
            format!("its join packet (type {t})")
        };
        let evidence =
            format!("application {app:?}, version {version}, subversion {sub} in {packet}");
        return Some(OtherGame {
            application: Some(app),
            evidence,
        });
    }
    let most = CANDIDATES
        .iter()
        .map(|&r| tables::num_packet_types(r))
        .max()
        .unwrap_or(0);
    (by_type && usize::from(t) >= most).then(|| OtherGame {
        application: None,
        evidence: format!(
            "packet type {t}, which no SRB2 release has (at most {most} types), with a valid checksum"
        ),
    })
}
