//! The per-flow decoder: the release choice, what the flow learned and the window of recent
//! reliable sequence numbers, around the decode of each datagram.

use std::borrow::Cow;

use crate::proto::{Datagram, Direction, FlowDecoder, Prefs};
use crate::tree::{Field, Note, Pos, Record, Severity, Value};

use super::detect::{Basis, Detector, OtherGame, sniff_other_game};
use super::fields as f;
use super::msg::dissect;
use super::notes;
use super::state::State;
use super::tables::Release;
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
}

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
        }
    }
}

impl FlowDecoder for Flow {
    fn decode(&mut self, dg: &Datagram<'_>, out: &mut Vec<Record>) {
        let p = dg.payload;
        if p.is_empty() {
            out.push(empty_datagram());
            return;
        }
        let ok = p.len() >= 8 && carried_checksum(p) == Some(checksum(p));
        if self.other_game.is_none() && ok {
            self.other_game = sniff_other_game(p, !self.detect.forced());
        }
        if let Some(game) = &self.other_game {
            out.push(other_game_record(p, game));
            return;
        }
        let (rel, basis) = self.detect.choose(p, ok, &self.state);
        let mut rec = dissect(p, rel, &mut self.state, dg.detail);
        if let Some(root) = rec.fields.first_mut() {
            name_release(root, rel, basis);
        }
        if dg.truncated {
            soften_cut_notes(&mut rec, p.len());
        }
        if ok && p[4] != 0 {
            self.acks.track(&mut rec, p[4], dg.direction);
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
        let checksum = n.field == Some(f::CHECKSUM.name);
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
