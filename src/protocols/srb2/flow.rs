//! The per-flow decoder: the release choice, what the flow learned and the window of recent
//! reliable sequence numbers, around the decode of each datagram.

use std::borrow::Cow;

use crate::proto::{Datagram, Direction, FlowDecoder, Prefs};
use crate::tree::{Field, Note, NoteDef, Pos, Record, Severity, Value};

use super::detect::{
    Basis, Detector, LockEvent, OtherGame, REVISE_AFTER, sniff_other_game, sniff_release,
};
use super::fields as f;
use super::msg::dissect;
use super::notes;
use super::state::State;
use super::tables::{self, Release};
use super::{carried_checksum, checksum};

pub(crate) struct Flow {
    detect: Detector,
    /// A `--srb2-version` value that names no tabulated release.
    bad_pref: Option<String>,
    state: State,
    acks: AckWindow,
    /// The flow's server named another game built on SRB2's netcode: nothing past the header
    /// is decoded from then on.
    other_game: Option<OtherGame>,
    /// Evidence against the current game verdict: distinct trusted datagrams pointing to the
    /// other side (another game while SRB2, an SRB2 release while another game), and the last.
    turning: (u32, Vec<u8>),
    /// Times the game verdict was revised, for `stats`.
    game_revisions: u32,
}

/// Distinct trusted datagrams that must point to another game (application string, or a packet
/// type no SRB2 release has) before the flow is taken for one, with no datagram that the
/// flow's SRB2 release explains cleanly in between; as many naming an SRB2 release turn it back.
const GAME_AFTER: u32 = 2;

impl Flow {
    pub fn new(prefs: &Prefs) -> Flow {
        let raw = prefs.get(super::VERSION_PREF);
        let forced = raw.and_then(Release::parse);
        Flow {
            detect: Detector::new(forced),
            bad_pref: match (raw, forced) {
                (Some(r), None) => Some(r.to_string()),
                _ => None,
            },
            state: State::default(),
            acks: AckWindow::default(),
            other_game: None,
            turning: (0, Vec::new()),
            game_revisions: 0,
        }
    }
}

impl Flow {
    /// Weighs a trusted datagram for or against the game verdict. Returns the note to put on
    /// it: a hint, or the revision back to SRB2.
    fn weigh_game(&mut self, p: &[u8]) -> Option<(&'static NoteDef, String)> {
        let fresh = self.turning.1 != p;
        if self.other_game.is_some() {
            sniff_release(p)?;
            if fresh {
                self.turning = (self.turning.0 + 1, p.to_vec());
            }
            if self.turning.0 < GAME_AFTER {
                let msg =
                    "this datagram names an SRB2 release; one is not enough to revise the game";
                return Some((&notes::RELEASE_CONTRADICTED, msg.into()));
            }
            self.turning = (0, Vec::new());
            self.other_game = None;
            self.game_revisions += 1;
            let msg =
                format!("{GAME_AFTER} datagrams name an SRB2 release: the flow is SRB2 again");
            return Some((&notes::RELEASE_REVISED, msg));
        }
        let g = sniff_other_game(p, !self.detect.forced())?;
        if fresh {
            self.turning = (self.turning.0 + 1, p.to_vec());
        }
        if self.turning.0 < GAME_AFTER {
            let msg = format!(
                "points to {} ({}); not decided on one datagram",
                g.name(),
                g.evidence
            );
            return Some((&notes::OTHER_GAME_HINT, msg));
        }
        self.turning = (0, Vec::new());
        self.other_game = Some(g);
        None
    }

    /// Decodes with the flow's state when the datagram is trusted, else with a copy that is
    /// thrown away, and says why it was not trusted.
    fn dissect_trusted(&mut self, dg: &Datagram<'_>, ok: bool, dup: bool) -> Record {
        let p = dg.payload;
        let (rel, basis) = self
            .detect
            .choose(p, ok && !dup && self.known(p), &self.state);
        let known = tables::packet_type(rel, p.get(6).copied().unwrap_or(0)).is_some();
        let trusted = ok && known;
        let mut rec = if trusted && !dup {
            dissect(p, rel, &mut self.state, dg.detail)
        } else {
            dissect(p, rel, &mut self.state.clone(), dg.detail)
        };
        if let Some(root) = rec.fields.first_mut() {
            name_release(root, rel, basis);
        }
        if !trusted {
            let why = if ok {
                format!(
                    "packet type {} does not exist in {rel}",
                    p.get(6).copied().unwrap_or(0)
                )
            } else {
                "its checksum fails, so SRB2 itself drops it (HGetPacket, src/d_net.c)".into()
            };
            rec.expert(
                &notes::UNTRUSTED,
                None,
                format!("not trusted: {why}; the flow's state is unchanged"),
            );
        } else if p.len() > 4 && p[4] != 0 {
            self.acks.track(&mut rec, p[4], dg.direction);
        }
        if let Some(e) = self.detect.event() {
            let (def, msg) = match e {
                LockEvent::Contradicted { named, locked } => (
                    &notes::RELEASE_CONTRADICTED,
                    format!(
                        "this datagram names {named}, the flow is {locked}: not obeyed on one datagram"
                    ),
                ),
                LockEvent::Revised { from, to } => (
                    &notes::RELEASE_REVISED,
                    format!(
                        "{REVISE_AFTER} consecutive datagrams name {to}: the flow's release is revised from {from}"
                    ),
                ),
            };
            rec.expert(def, Some(&f::RELEASE), msg);
        }
        rec
    }

    /// Once the release is decided, a packet type it lacks is no evidence about the release.
    fn known(&self, p: &[u8]) -> bool {
        !self.detect.decided()
            || tables::packet_type(self.detect.release(), p.get(6).copied().unwrap_or(0)).is_some()
    }
}

/// The release explains the datagram: no error, no warning.
fn clean(rec: &Record) -> bool {
    !rec.notes
        .iter()
        .any(|n| matches!(n.severity(), Severity::Error | Severity::Warning))
}

impl FlowDecoder for Flow {
    fn decode(&mut self, dg: &Datagram<'_>, out: &mut Vec<Record>) {
        let p = dg.payload;
        if p.is_empty() {
            out.push(empty_datagram());
            return;
        }
        let ok = p.len() >= 8 && carried_checksum(p) == Some(checksum(p));
        let dup = ok && p[4] != 0 && self.acks.seen(p[4], dg.direction);
        let game_note = if ok && !dup { self.weigh_game(p) } else { None };
        if let Some(game) = &self.other_game {
            let mut rec = other_game_record(p, game);
            if let Some((def, msg)) = game_note {
                rec.expert(def, None, msg);
            }
            out.push(rec);
            return;
        }
        let mut rec = self.dissect_trusted(dg, ok, dup);
        match game_note {
            Some((def, msg)) => rec.expert(def, None, msg),
            // A datagram the release explains cleanly is evidence for SRB2.
            None if ok && !dup && clean(&rec) => self.turning.0 = 0,
            None => {}
        }
        if dg.truncated {
            soften_cut_notes(&mut rec, p.len());
        }
        if let Some(bad) = &self.bad_pref {
            rec.expert(
                &notes::BAD_VERSION_PREF,
                Some(&f::RELEASE),
                format!(
                    "--srb2-version {bad:?} is not a tabulated release (2.1.25, 2.2.0 … 2.2.15); detecting instead"
                ),
            );
        }
        out.push(rec);
    }

    fn state_bytes(&self) -> usize {
        self.state
            .names
            .iter()
            .map(|n| n.as_ref().map_or(0, |s| s.len()) + 24)
            .sum::<usize>()
            + self.other_game.as_ref().map_or(0, |g| {
                g.application.as_ref().map_or(0, String::capacity) + g.evidence.capacity()
            })
            + 64
    }

    fn describe(&self) -> Vec<(String, String)> {
        if let Some(g) = &self.other_game {
            return vec![("game".to_string(), other_game_text(g))];
        }
        let mut v = vec![("release".to_string(), self.detect.describe())];
        if self.game_revisions > 0 {
            let text = format!(
                "taken for another game, then SRB2 again ({} time{})",
                self.game_revisions,
                if self.game_revisions == 1 { "" } else { "s" }
            );
            v.push(("game revised".into(), text));
        }
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

/// A 0-byte datagram, SRB2's reachability test of a new address (STJr/SRB2 `src/i_tcp.c`
/// `SOCK_NetMakeNodewPort`).
fn empty_datagram() -> Record {
    let mut r = Record::new("srb2");
    r.msg_type = Cow::Borrowed("empty");
    r.summary = "empty datagram (address reachability test)".into();
    r.fields
        .push(Field::new(&f::ROOT, Value::None, Pos::bytes(0, 0)));
    r.expert(
        &notes::EMPTY_DATAGRAM,
        None,
        "SRB2 sends a 0-byte datagram to test a new address; receivers drop it",
    );
    r
}

fn other_game_text(g: &OtherGame) -> String {
    format!(
        "{} ({}); not SRB2, only headers decoded",
        g.name(),
        g.evidence
    )
}

/// A datagram of a flow that speaks another game: the shared header (checksum, ack, ackreturn,
/// type) is all that SRB2's knowledge covers, so the record says so instead of guessing a body.
fn other_game_record(p: &[u8], g: &OtherGame) -> Record {
    let mut r = Record::new("srb2");
    r.msg_type = Cow::Borrowed("other game");
    let t = p.get(6).map_or(String::from("?"), |t| t.to_string());
    let app = g.application.as_deref().unwrap_or("other game");
    r.summary = format!("{app} packet type {t}, {} bytes (not decoded)", p.len());
    let mut root = Field::new(&f::ROOT, Value::None, Pos::bytes(0, p.len()));
    root.children.push(Field::new(
        &f::RELEASE,
        Value::Str(app.to_string().into()),
        Pos::bytes(0, 0),
    ));
    root.children.push(Field::new(
        &f::RELEASE_BASIS,
        Value::Str(other_game_text(g).into()),
        Pos::bytes(0, 0),
    ));
    r.fields.push(root);
    r.expert(
        &notes::OTHER_GAME,
        None,
        format!(
            "not SRB2 but {}: its packet tables differ, so the body is not decoded",
            g.name()
        ),
    );
    r
}

/// Puts the release and the reason for it first under the root.
fn name_release(root: &mut Field, rel: Release, basis: Basis<'_>) {
    let why = Value::Str(basis.explain(rel).into());
    let release = Value::Str(rel.to_string().into());
    root.children.splice(
        0..0,
        [
            Field::new(&f::RELEASE, release, Pos::bytes(0, 0)),
            Field::new(&f::RELEASE_BASIS, why, Pos::bytes(0, 0)),
        ],
    );
}

/// The snaplen cut the datagram: the checksum cannot be verified and running out of bytes at
/// the end is expected, so those notes are downgraded.
fn soften_cut_notes(rec: &mut Record, len: usize) {
    for n in rec.notes.iter_mut() {
        let at_end = n.pos.is_some_and(|x| x.end() as usize >= len);
        let checksum = n.field == Some(f::CHECKSUM.name) || n.def == &notes::UNTRUSTED;
        if (at_end && n.severity() == Severity::Error) || checksum {
            n.def = &crate::wire::CUT_BY_SNAPLEN;
            n.message = format!("{} (the capture cut this datagram)", n.message);
        }
    }
}

/// How many reliable packets can be outstanding per destination: 96 (STJr/SRB2 `src/d_net.c`
/// `GetFreeAcknum`, `remotefirstack + MAXACKTOSEND`).
const ACK_WINDOW: usize = 96;

/// Recent reliable sequence numbers per direction (0 = to server, 1 = to client), newest last.
#[derive(Debug, Default)]
struct AckWindow {
    recent: [Vec<u8>; 2],
}

impl AckWindow {
    /// The reliable sequence number was already seen recently in this direction.
    fn seen(&self, ack: u8, dir: Direction) -> bool {
        self.recent[(dir == Direction::ToClient) as usize].contains(&ack)
    }

    /// Flags a reliable packet whose sequence number was already seen recently in the same
    /// direction: a resend with the same `ack` after NODETIMEOUT, or a duplicate, both of which
    /// the receiver discards (`src/d_net.c`).
    fn track(&mut self, rec: &mut Record, ack: u8, dir: Direction) {
        let list = &mut self.recent[(dir == Direction::ToClient) as usize];
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
