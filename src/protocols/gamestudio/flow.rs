//! The per-flow state machine. A flow learns, each at most once and each shown on every record
//! with how it was learned: its framing (raw, DirectPlay 8 with or without signatures,
//! DirectPlay 4 with or without player ids), its server end, its dialect (A5 or A6+) and its
//! CPosition encoding (packed or Fixed). Each datagram goes through the same steps: unwrap,
//! reassemble, read the direction, parse under the hypotheses still open, lock what only one
//! reading fits, and build the record from the reading shown.

use std::borrow::Cow;
use std::fmt::Write as _;
use std::net::SocketAddr;

use crate::digest::Fnv;
use crate::proto::{Datagram, Direction, FlowDecoder};
use crate::tree::{Field, Note, NoteDef, Pos, Record, Source, Value};

use super::dplay::{self, Fragment, Payloads, Unwrapped};
use super::msg::{self, Dialect, Fit, PosMode, Words};
use super::reassembly::Reassembly;
use super::{fields, has_sync, notes, parse_somehow, payload_bufs};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Transport {
    Raw,
    Dp8,
    Dp4,
}

impl Transport {
    fn name(self) -> &'static str {
        match self {
            Transport::Raw => "raw UDP",
            Transport::Dp8 => "DirectPlay 8",
            Transport::Dp4 => "DirectPlay 4",
        }
    }
}

/// How the flow's datagrams are framed; once decided it does not change.
#[derive(Debug, Clone, Copy)]
enum Framing {
    /// A CONNECTED_SIGNED seen meanwhile is remembered for when DirectPlay 8 is decided.
    Undecided {
        dp8_signed: bool,
    },
    Raw,
    /// `signed`: a CONNECTED_SIGNED was seen, frames carry an ullSignature ([MC-DPL8R] 2.2.2).
    Dp8 {
        signed: bool,
    },
    /// `ids`: player messages carry idFrom/idTo (None: not yet decided).
    Dp4 {
        ids: Option<bool>,
    },
}

impl Default for Framing {
    fn default() -> Framing {
        Framing::Undecided { dp8_signed: false }
    }
}

impl Framing {
    fn transport(self) -> Option<Transport> {
        match self {
            Framing::Undecided { .. } => None,
            Framing::Raw => Some(Transport::Raw),
            Framing::Dp8 { .. } => Some(Transport::Dp8),
            Framing::Dp4 { .. } => Some(Transport::Dp4),
        }
    }

    /// A CONNECTED_SIGNED frame was seen.
    fn signing(&mut self) {
        match self {
            Framing::Undecided { dp8_signed: s } | Framing::Dp8 { signed: s } => *s = true,
            _ => {}
        }
    }
}

#[derive(Debug, Default, Clone)]
pub(super) struct Flow {
    forced_dialect: Option<Dialect>,
    forced_pos: Option<PosMode>,
    framing: Framing,
    /// The content-decided server end and why.
    server: Option<(SocketAddr, Why)>,
    dialect: Option<(Dialect, Why)>,
    pos: Option<(PosMode, Why)>,
    reassembly: Reassembly,
    /// Datagrams with messages read while something was still open.
    open_datagrams: u32,
    /// Distinct datagrams in a row that only the other dialect reads ([`REVISE_AFTER`]), and a
    /// digest of the last one's bytes (its replay is no second datagram).
    contradictions: u32,
    contradiction_digest: Option<u64>,
    /// Times the dialect was revised, for `stats`.
    revisions: u32,
    /// The dialect one datagram so far fits only, that datagram's frame and a digest of its
    /// bytes: a second, distinct one decides it.
    dialect_vote: Option<(Dialect, u64, u64)>,
}

/// Why a flow decided what it did, kept as facts and written out only where shown (trees,
/// `stats`, the deciding record's note): a flow decides up to three things, and flows of a few
/// datagrams paid a formatted string for each.
#[derive(Debug, Clone, Copy)]
enum Why {
    /// Frame `frame` `parses`, e.g. "parses only as A5".
    Parsed { frame: u64, parses: &'static str },
    /// The server end, from a frame that parses in one direction only (`way`).
    Server {
        frame: u64,
        server: SocketAddr,
        way: &'static str,
    },
    /// Settled after [`SETTLE_AFTER`] open datagrams, on `then` (what the records showed).
    Settled { frame: u64, then: Then },
    /// Revised at `frame`: [`REVISE_AFTER`] datagrams in a row read cleanly only in the other
    /// dialect than `from`.
    Revised { frame: u64, from: Dialect },
    /// Decided by two distinct datagrams that fit only `dialect`: `earlier`, then `frame`
    /// (`sync`: `frame` carries the A5 svc_info sync constant).
    Twice {
        earlier: u64,
        frame: u64,
        dialect: Dialect,
        sync: bool,
    },
}

/// What a flow settles on (see [`Why::Settled`]).
#[derive(Debug, Clone, Copy)]
enum Then {
    /// The reading shown while open ("A6+", "packed").
    Shown(&'static str),
    /// The plumbing's direction, found by `how`.
    Plumbing(&'static str),
}

impl std::fmt::Display for Why {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            Why::Parsed { frame, parses } => write!(f, "frame {frame} {parses}"),
            Why::Server { frame, server, way } => write!(
                f,
                "content: server is {server} (frame {frame} parses only as {way})"
            ),
            Why::Twice {
                earlier,
                frame,
                dialect,
                sync,
            } => {
                write!(
                    f,
                    "frames {earlier} and {frame} parse only as {}",
                    dialect.label()
                )?;
                if sync {
                    write!(
                        f,
                        "; frame {frame} carries the svc_info sync constant 0x11191218"
                    )?;
                }
                Ok(())
            }
            Why::Revised { frame, from } => write!(
                f,
                "revised from {} at frame {frame}: {REVISE_AFTER} datagrams in a row parse only in this dialect",
                from.label()
            ),
            Why::Settled { frame, then } => {
                write!(
                    f,
                    "settled at frame {frame}: {SETTLE_AFTER} datagrams fit more than one reading; "
                )?;
                match then {
                    Then::Shown(what) => write!(f, "{what} from here on"),
                    Then::Plumbing(how) => write!(f, "the plumbing's ({how}) from here on"),
                }
            }
        }
    }
}

/// Datagrams with messages a flow reads under every open reading (both dialects, both CPosition
/// encodings, both directions: up to 8 parses each) before it settles what is still open on the
/// readings it already shows. Every shipped capture decides within its first 11; a flow whose
/// datagrams fit every reading forever (`02 "Alice" 00` is a CLS_JOIN in A5 and A6+) cost 5x a
/// decided one for as long as it lasted.
pub(super) const SETTLE_AFTER: u32 = 16;

/// A note about the flow's dialect, on its field.
fn dialect_note(def: &'static NoteDef, msg: String) -> Note {
    Note::new(def, Some(&fields::DIALECT), None, msg)
}

/// How a dialect one datagram so far fits only is shown until a second, distinct one agrees.
const ONE_VOTE: &str =
    "one datagram so far parses only in this dialect; decided when a second agrees";

/// Datagrams in a row (the flow's next datagrams, none between them) that the flow's dialect
/// cannot read and the other dialect reads cleanly, after which the dialect decided from the
/// content is revised. One is a stray (a second
/// program, a corrupted frame) and is only flagged; the rule is SRB2's for its release.
const REVISE_AFTER: u32 = 2;

/// The wrapper layer's part of a record.
#[derive(Default)]
struct Layer {
    field: Option<Field>,
    summary: String,
    msg_type: &'static str,
    fragment: Option<Fragment>,
    /// Gamestudio message buffers: (offset, length) in `Input::payload`.
    bufs: Payloads,
}

/// The bytes the message layer reads.
struct Input<'a> {
    /// The UDP payload, or the reassembled message.
    payload: &'a [u8],
    bufs: &'a [(usize, usize)],
    /// The data source positions refer to (1: the reassembled message).
    source: u8,
}

/// One full hypothesis over all message buffers of a datagram, and what its trial parse found.
#[derive(Debug, Clone, Copy)]
struct Trial {
    dialect: Dialect,
    pos: PosMode,
    /// None: not tried, because it is the only reading left (the flow has decided everything
    /// the trials decide); the record's own parse reads it.
    fit: Option<Fit>,
}

impl Trial {
    fn bufs<'a>(inp: &'a Input<'_>) -> impl Iterator<Item = (usize, &'a [u8])> + 'a {
        inp.bufs
            .iter()
            .map(|&(o, n)| (o, inp.payload.get(o..o.saturating_add(n)).unwrap_or(&[])))
    }

    /// A trial parse of one reading. Every buffer is read (as the record's parse will be), so
    /// that the flags are those of the full parse.
    fn check(inp: &Input<'_>, to_server: bool, (d, p): (Dialect, PosMode)) -> Trial {
        let mut fit = Fit {
            clean: true,
            ..Fit::default()
        };
        for (_, b) in Trial::bufs(inp) {
            let f = msg::check(b, to_server, d, p);
            fit.clean &= f.clean;
            fit.used_cpos |= f.used_cpos;
            fit.saw_sync |= f.saw_sync;
            fit.saw_local |= f.saw_local;
        }
        Trial {
            dialect: d,
            pos: p,
            fit: Some(fit),
        }
    }

    fn fit(&self) -> Fit {
        self.fit.unwrap_or_default()
    }
    fn clean(&self) -> bool {
        self.fit().clean
    }
    fn used_cpos(&self) -> bool {
        self.fit().used_cpos
    }
    fn saw_sync(&self) -> bool {
        self.fit().saw_sync
    }
    fn saw_local(&self) -> bool {
        self.fit().saw_local
    }
}

/// The trials of one direction, in preference order (at most the four readings), kept inline:
/// every datagram has them.
#[derive(Clone, Copy)]
struct Trials {
    items: [Option<Trial>; 4],
}

impl Trials {
    const NONE: Trials = Trials { items: [None; 4] };

    fn iter(&self) -> impl Iterator<Item = &Trial> + Clone {
        self.items.iter().map_while(Option::as_ref)
    }
    fn get(&self, i: usize) -> Option<Trial> {
        self.items.get(i).copied().flatten()
    }
    fn is_empty(&self) -> bool {
        self.items[0].is_none()
    }
}

impl FromIterator<Trial> for Trials {
    fn from_iter<I: IntoIterator<Item = Trial>>(iter: I) -> Trials {
        let mut t = Trials::NONE;
        for (slot, trial) in t.items.iter_mut().zip(iter) {
            *slot = Some(trial);
        }
        t
    }
}

/// What the learning steps settled for one datagram.
struct Reading {
    to_server: bool,
    /// The hypothesis shown (None: no message buffers).
    trial: Option<Trial>,
    /// How a dialect or CPosition encoding still open is shown.
    dialect_open: &'static str,
    pos_open: &'static str,
}

const DIALECTS: [Dialect; 2] = [Dialect::A6, Dialect::A5];
const POSITIONS: [PosMode; 2] = [PosMode::Packed, PosMode::Fixed];

/// Moves every position of a field tree into data source `n`.
fn into_source(f: &mut Field, n: u8) {
    f.pos = f.pos.in_source(n);
    for c in &mut f.children {
        into_source(c, n);
    }
}

fn dir_short(to_server: bool) -> &'static str {
    if to_server { "C→S" } else { "S→C" }
}

impl Flow {
    /// A flow, with the dialect and CPosition encoding forced by the user when given.
    pub(super) fn new(forced_dialect: Option<Dialect>, forced_pos: Option<PosMode>) -> Flow {
        Flow {
            forced_dialect,
            forced_pos,
            ..Flow::default()
        }
    }
}

/// Framing: unwrapping a datagram and deciding the flow's transport.
impl Flow {
    fn unwrap(&mut self, p: &[u8], detail: bool) -> (Transport, Option<Unwrapped>) {
        match self.framing {
            Framing::Raw => (Transport::Raw, None),
            Framing::Dp8 { signed } => (Transport::Dp8, Some(dplay::dp8(p, signed, detail))),
            Framing::Dp4 { .. } if dplay::is_dp4(p) => {
                (Transport::Dp4, Some(self.dp4_player(p, detail)))
            }
            Framing::Dp4 { .. } => (Transport::Dp4, Some(dplay::not_dp4(p, detail))),
            Framing::Undecided { dp8_signed } => self.first_framing(p, dp8_signed, detail),
        }
    }

    /// DirectPlay 4 and DirectPlay 8 handshakes decide at once; otherwise the first datagram
    /// that parses exactly only raw or only as a DirectPlay 8 frame.
    fn first_framing(
        &mut self,
        p: &[u8],
        signed: bool,
        detail: bool,
    ) -> (Transport, Option<Unwrapped>) {
        if dplay::is_dp4(p) {
            self.framing = Framing::Dp4 { ids: None };
            return (Transport::Dp4, Some(self.dp4_player(p, detail)));
        }
        if dplay::is_dp8_connect(p) || dplay::is_dp8_enum(p) {
            self.framing = Framing::Dp8 { signed };
            return (Transport::Dp8, Some(dplay::dp8(p, signed, detail)));
        }
        let raw = parse_somehow(&[p]);
        let u = dplay::dp8(p, signed, detail);
        let dp8 = p.first().is_some_and(|b| b & 0x01 != 0 || b & 0x80 != 0) && u.ok && {
            let bufs = payload_bufs(p, &u.payloads);
            !bufs.is_empty() && parse_somehow(&bufs)
        };
        match (raw, dp8) {
            (true, false) => {
                self.framing = Framing::Raw;
                (Transport::Raw, None)
            }
            (false, true) => {
                self.framing = Framing::Dp8 { signed };
                (Transport::Dp8, Some(u))
            }
            // A valid DirectPlay 8 frame without Gamestudio data (SACK, keep-alive): shown as
            // such, without deciding the flow's transport.
            (false, false) if u.ok && u.payloads.is_empty() && u.fragment.is_none() => {
                (Transport::Dp8, Some(u))
            }
            _ => (Transport::Raw, None),
        }
    }

    /// A DirectPlay 4 message. Player messages carry idFrom/idTo unless the session has the NM
    /// flag ([MC-DPL4CS] 2.2.45); the session description is rarely in the capture, so the
    /// first player message whose Gamestudio payload parses exactly only one way decides.
    fn dp4_player(&mut self, p: &[u8], detail: bool) -> Unwrapped {
        if dplay::is_dp4_system(p) {
            return dplay::dp4_with(p, true, detail);
        }
        let ids = match self.framing {
            Framing::Dp4 { ids: Some(v) } => v,
            _ => {
                let fits = |at: usize| p.get(at..).is_some_and(|b| parse_somehow(&[b]));
                let learned = match (fits(28), fits(20)) {
                    (true, false) => Some(true),
                    (false, true) => Some(false),
                    _ => None,
                };
                if learned.is_some() {
                    self.framing = Framing::Dp4 { ids: learned };
                }
                learned.unwrap_or(true)
            }
        };
        dplay::dp4_with(p, ids, detail)
    }

    /// The wrapper's tree, notes, summary and message buffers.
    fn layer(&mut self, wrapped: Option<Unwrapped>, len: usize, notes: &mut Vec<Note>) -> Layer {
        let Some(u) = wrapped else {
            return Layer {
                bufs: Payloads::one((0, len)),
                ..Layer::default()
            };
        };
        if u.signing {
            self.framing.signing();
        }
        let mut r = Record::new("gamestudio");
        u.tree.finish_into(len, &mut r);
        notes.append(&mut r.notes);
        Layer {
            field: r.fields.into_iter().next(),
            summary: u.summary,
            msg_type: u.msg_type,
            fragment: u.fragment,
            bufs: u.payloads,
        }
    }
}

/// Learning: direction, dialect and CPosition encoding.
impl Flow {
    /// The (dialect, CPosition) readings still open, in preference order.
    fn hypotheses(&self) -> impl Iterator<Item = (Dialect, PosMode)> {
        let dialect = self.forced_dialect.or(self.dialect.as_ref().map(|d| d.0));
        let pos = self.forced_pos.or(self.pos.as_ref().map(|p| p.0));
        let mut out = [(Dialect::A6, PosMode::Packed); 4];
        let mut n = 0;
        for d in DIALECTS
            .into_iter()
            .filter(|&d| dialect.is_none_or(|x| x == d))
        {
            for p in POSITIONS
                .into_iter()
                .filter(|&p| pos.is_none_or(|x| x == p))
            {
                out[n] = (d, p);
                n += 1;
            }
        }
        out.into_iter().take(n)
    }

    /// All hypotheses for one direction, in preference order, each a trial parse. `shown`: the
    /// direction is known, so a single hypothesis is the one shown, and it is not tried: the
    /// record's parse reads it.
    fn trials(&self, inp: &Input<'_>, to_server: bool, shown: bool) -> Trials {
        if shown && self.hypotheses().count() == 1 {
            return self
                .hypotheses()
                .map(|(dialect, pos)| Trial {
                    dialect,
                    pos,
                    fit: None,
                })
                .collect();
        }
        self.hypotheses()
            .map(|h| Trial::check(inp, to_server, h))
            .collect()
    }

    fn undecided(&self) -> bool {
        (self.forced_dialect.is_none() && self.dialect.is_none())
            || (self.forced_pos.is_none() && self.pos.is_none())
    }

    /// Something is still open that costs a parse per reading: the dialect, the CPosition
    /// encoding, the direction or the framing.
    fn open(&self) -> bool {
        self.undecided()
            || self.server.is_none()
            || matches!(self.framing, Framing::Undecided { .. })
    }

    /// After [`SETTLE_AFTER`] datagrams with messages, settles what is still open on what the
    /// records already show while open (A6+, packed, the plumbing's direction, raw framing), and
    /// says so on this datagram.
    fn settle_if_due(&mut self, dg: &Datagram<'_>, inp: &Input<'_>, notes: &mut Vec<Note>) {
        if inp.bufs.is_empty() || !self.open() {
            return;
        }
        self.open_datagrams += 1;
        if self.open_datagrams <= SETTLE_AFTER {
            return;
        }
        let settled = |then| Why::Settled {
            frame: dg.frame,
            then,
        };
        let mut what = Vec::new();
        if self.forced_dialect.is_none() && self.dialect.is_none() {
            self.dialect = Some((Dialect::A6, settled(Then::Shown("A6+"))));
            what.push("dialect A6+");
        }
        if self.forced_pos.is_none() && self.pos.is_none() {
            self.pos = Some((PosMode::Packed, settled(Then::Shown("packed"))));
            what.push("CPosition packed");
        }
        if self.server.is_none() {
            let server = if dg.direction == Direction::ToServer {
                dg.dst
            } else {
                dg.src
            };
            let how = dg.role_source.as_str();
            self.server = Some((server, settled(Then::Plumbing(how))));
            what.push("direction as the plumbing has it");
        }
        if matches!(self.framing, Framing::Undecided { .. }) {
            self.framing = Framing::Raw;
            what.push("raw framing from the next datagram");
        }
        let msg = format!(
            "{SETTLE_AFTER} datagrams fit more than one reading; settled: {}",
            what.join(", ")
        );
        notes.push(Note::new(&notes::SETTLED, None, None, msg));
    }

    fn learn(&mut self, dg: &Datagram<'_>, inp: &Input<'_>, notes: &mut Vec<Note>) -> Reading {
        self.settle_if_due(dg, inp, notes);
        let (to_server, reversed, trials, other) = self.direction(dg, inp);
        let (idx, dialect_open) = self.decide_dialect(&trials, &other, (dg.frame, inp), notes);
        let pos_open = self.decide_pos(&trials, &other, idx, dg.frame, notes);
        if let Some(msg) = reversed {
            let def = &notes::DIRECTION_REVERSED;
            notes.push(Note::new(def, Some(&fields::DIRECTION), None, msg));
        }
        let trial = trials.get(idx);
        Reading {
            to_server,
            trial,
            dialect_open,
            pos_open,
        }
    }

    /// The direction: the content-decided server end, else the plumbing's, refined by which
    /// direction the messages parse in. Returns it with a note when it reverses the plumbing,
    /// the trials in that direction and, while the plumbing's guess stands and something is
    /// still to be decided, the other direction's.
    fn direction(
        &mut self,
        dg: &Datagram<'_>,
        inp: &Input<'_>,
    ) -> (bool, Option<String>, Trials, Trials) {
        let given = dg.direction == Direction::ToServer;
        if let Some((server, _)) = &self.server {
            let ts = dg.dst == *server;
            let trials = if inp.bufs.is_empty() {
                Trials::NONE
            } else {
                self.trials(inp, ts, true)
            };
            return (ts, None, trials, Trials::NONE);
        }
        if inp.bufs.is_empty() {
            return (given, None, Trials::NONE, Trials::NONE);
        }
        let here = self.trials(inp, given, false);
        let there = self.trials(inp, !given, false);
        // The A5 sync constant is only ever sent by the server.
        let sync = inp
            .bufs
            .iter()
            .any(|&(o, n)| inp.payload.get(o..o + n).is_some_and(has_sync));
        let pick = match (
            here.iter().any(Trial::clean),
            there.iter().any(Trial::clean),
        ) {
            _ if sync => Some(false),
            (true, false) => Some(given),
            (false, true) => Some(!given),
            _ => None,
        };
        let Some(ts) = pick else {
            let other = if self.undecided() {
                there
            } else {
                Trials::NONE
            };
            return (given, None, here, other);
        };
        let server = if ts { dg.dst } else { dg.src };
        let way = if ts {
            "client → server"
        } else {
            "server → client"
        };
        let why = Why::Server {
            frame: dg.frame,
            server,
            way,
        };
        let reversed = (ts != given).then(|| {
            format!(
                "direction reversed from the plumbing's guess ({}): server is {server} (frame {} parses only as {way})",
                dg.role_source.as_str(),
                dg.frame
            )
        });
        self.server = Some((server, why));
        (
            ts,
            reversed,
            if ts == given { here } else { there },
            Trials::NONE,
        )
    }

    /// Locks the dialect when only one fits: the A5 sync constant, or a datagram that parses in
    /// one dialect only. While the direction is still the plumbing's guess, a dialect that fits
    /// the other direction is not ruled out: `07 <dpid> 01` is an A5 cls_ping + fill towards the
    /// server and an A6+ SVC_INFO towards the client. Returns the trial shown and, while open,
    /// how the dialect is shown.
    fn decide_dialect(
        &mut self,
        trials: &Trials,
        other: &Trials,
        (frame, inp): (u64, &Input<'_>),
        notes: &mut Vec<Note>,
    ) -> (usize, &'static str) {
        let first_clean = trials.iter().position(Trial::clean).unwrap_or(0);
        if self.forced_dialect.is_some() || self.dialect.is_some() || trials.is_empty() {
            return (first_clean, "");
        }
        let clean_in = |d: Dialect| {
            trials
                .iter()
                .chain(other.iter())
                .any(|t| t.dialect == d && t.clean())
        };
        let (a5, a6) = (clean_in(Dialect::A5), clean_in(Dialect::A6));
        let sync = trials
            .iter()
            .any(|t| t.dialect == Dialect::A5 && t.clean() && t.saw_sync());
        let local = trials
            .iter()
            .any(|t| t.dialect == Dialect::A6 && t.clean() && t.saw_local());
        // One datagram so far that fits only one dialect decides nothing: a datagram that
        // fits both is shown as any undecided one is.
        let d = if sync || (a5 && !a6) {
            Dialect::A5
        } else if a6 && !a5 {
            Dialect::A6
        } else if a5 && a6 {
            return (first_clean, "undecided: parses as A5 and A6+; shown as A6+");
        } else {
            return (first_clean, "undecided: no reading fits; shown as A6+");
        };
        let shown = trials.iter().position(|t| t.dialect == d && t.clean());
        // The game messages, not their wrapper: a copy in another DirectPlay frame is no new
        // evidence either.
        let digest = Trial::bufs(inp)
            .fold(Fnv::default(), |h, (_, b)| h.bytes(b))
            .finish();
        let earlier = match self.dialect_vote {
            Some((v, f, dg)) if v == d && dg != digest => f,
            Some((v, _, _)) if v == d => {
                return (shown.unwrap_or(0), ONE_VOTE);
            }
            _ => {
                self.dialect_vote = Some((d, frame, digest));
                return (shown.unwrap_or(0), ONE_VOTE);
            }
        };
        self.dialect_vote = None;
        let why = Why::Twice {
            earlier,
            frame,
            dialect: d,
            sync,
        };
        let local = if d == Dialect::A6 && local {
            ", SVC_LOCAL"
        } else {
            ""
        };
        let msg = format!(
            "dialect decided for this flow: {} ({why}{local})",
            d.label()
        );
        notes.push(dialect_note(&notes::DIALECT_DECIDED, msg));
        self.dialect = Some((d, why));
        (shown.unwrap_or(0), "")
    }

    /// Locks the CPosition encoding when the trial shown read one and its dialect parses under
    /// exactly one reading. While the dialect is open, every dialect's readings must agree (else
    /// A6+'s packed reading could lock the encoding for what turns out to be an A5 flow with
    /// Fixed CPositions). Returns, while open, how the encoding is shown.
    fn decide_pos(
        &mut self,
        trials: &Trials,
        other: &Trials,
        idx: usize,
        frame: u64,
        notes: &mut Vec<Note>,
    ) -> &'static str {
        let Some(t) = trials.get(idx) else {
            return "";
        };
        if self.forced_pos.is_some() || self.pos.is_some() || !t.used_cpos() {
            return "";
        }
        let dialect_known = self.forced_dialect.is_some() || self.dialect.is_some();
        let fits = |m: PosMode| {
            trials
                .iter()
                .chain(other.iter())
                .filter(|x| !dialect_known || x.dialect == t.dialect)
                .any(|x| x.pos == m && x.clean())
        };
        let (packed, fixed) = (fits(PosMode::Packed), fits(PosMode::Fixed));
        let (m, parses) = match (packed, fixed) {
            (true, false) => (
                PosMode::Packed,
                "parses exactly only with 3-byte packed CPosition",
            ),
            (false, true) => (
                PosMode::Fixed,
                "parses exactly only with 4-byte Fixed CPosition",
            ),
            (true, true) => return "undecided: both readings fit; shown packed",
            (false, false) => return "undecided: neither reading fits; shown packed",
        };
        let why = Why::Parsed { frame, parses };
        let msg = format!("CPosition encoding decided for this flow: {why}");
        notes.push(Note::new(
            &notes::POS_DECIDED,
            Some(&fields::POS_MODE),
            None,
            msg,
        ));
        self.pos = Some((m, why));
        ""
    }
}

/// The record.
impl Flow {
    fn dialect_basis(&self, r: &Reading) -> String {
        match (&self.forced_dialect, &self.dialect) {
            (Some(_), _) => "forced by --gamestudio-dialect".into(),
            (None, Some((_, why))) => why.to_string(),
            (None, None) => r.dialect_open.into(),
        }
    }

    fn pos_basis(&self, r: &Reading) -> String {
        match (&self.forced_pos, &self.pos) {
            (Some(_), _) => "forced by --gamestudio-pos".into(),
            (None, Some((_, why))) => why.to_string(),
            (None, None) => r.pos_open.into(),
        }
    }

    fn direction_basis(&self, dg: &Datagram<'_>) -> String {
        match &self.server {
            Some((_, why)) => why.to_string(),
            None => format!("plumbing: {}", dg.role_source.as_str()),
        }
    }

    /// The `gamestudio` root with the flow's decisions and their bases (its messages follow).
    /// `used_cpos`: the messages read a CPosition.
    fn root(
        &self,
        (t, used_cpos): (&Trial, bool),
        dg: &Datagram<'_>,
        inp: &Input<'_>,
        r: &Reading,
    ) -> Field {
        let (first, last) = match (inp.bufs.first(), inp.bufs.last()) {
            (Some(&f), Some(&l)) => (f, l),
            _ => ((0, inp.payload.len()), (0, inp.payload.len())),
        };
        let pos = Pos::bytes(first.0, (last.0 + last.1).saturating_sub(first.0));
        let mut root = Field::new(&fields::ROOT, Value::None, pos);
        let at = Pos::bytes(first.0, 0);
        let dir = if r.to_server {
            Value::Enum(0, "client_to_server")
        } else {
            Value::Enum(1, "server_to_client")
        };
        let text = |s: String| Value::Str(s.into());
        let c = &mut root.children;
        c.push(Field::new(&fields::DIALECT, t.dialect.value(), at));
        c.push(Field::new(
            &fields::DIALECT_BASIS,
            text(self.dialect_basis(r)),
            at,
        ));
        c.push(Field::new(&fields::DIRECTION, dir, at));
        c.push(Field::new(
            &fields::DIRECTION_BASIS,
            text(self.direction_basis(dg)),
            at,
        ));
        if used_cpos {
            c.push(Field::new(&fields::POS_MODE, t.pos.value(), at));
            c.push(Field::new(&fields::POS_BASIS, text(self.pos_basis(r)), at));
        }
        root
    }

    /// Parses the messages under the reading shown, the one full parse of the datagram, and
    /// builds the record from it: tree, notes, type, and the summary after the wrapper's part
    /// already in `rec.summary`.
    fn show(
        &self,
        t: Trial,
        (dg, inp): (&Datagram<'_>, &Input<'_>),
        r: &Reading,
        rec: &mut Record,
        wrapper_type: &'static str,
    ) {
        let detail = dg.detail.on();
        let mut text = std::mem::take(&mut rec.summary);
        // Sized once: growing it piece by piece was a realloc per message shown.
        text.reserve(128);
        text.push_str(t.dialect.label());
        text.push(' ');
        text.push_str(dir_short(r.to_server));
        let mut words = Words { text, count: 0 };
        let mut children = Vec::new();
        let (mut first_name, mut used_cpos) = (None, false);
        let how = (r.to_server, t.dialect, t.pos);
        for (o, b) in Trial::bufs(inp) {
            let p = msg::parse_with(b, o, how, detail, &mut words);
            children.extend(p.fields);
            for mut n in p.notes {
                n.pos = n.pos.map(|ps| ps.in_source(inp.source));
                rec.notes.push(n);
            }
            first_name = first_name.or(p.first_name);
            used_cpos |= p.used_cpos;
        }
        if detail {
            let mut root = self.root((&t, used_cpos), dg, inp, r);
            root.children.append(&mut children);
            if inp.source != 0 {
                into_source(&mut root, inp.source);
            }
            rec.fields.push(root);
        }
        let mut summary = words.text;
        if words.count == 0 {
            summary.push_str(" (no messages)");
        }
        if words.count > msg::SHOWN {
            let _ = write!(summary, " (+{} more)", words.count - msg::SHOWN);
        }
        rec.summary = summary;
        rec.msg_type = Cow::Borrowed(match first_name {
            Some(n) => n,
            None if !wrapper_type.is_empty() => wrapper_type,
            None => "fill",
        });
    }
}

impl FlowDecoder for Flow {
    /// A datagram is trusted when its framing holds and it parses cleanly (no error): only
    /// then may it change the flow (framing, direction, dialect, CPosition, reassembly). An
    /// untrusted one is decoded as usual, then the flow is put back as it was.
    fn decode(&mut self, dg: &Datagram<'_>, out: &mut Vec<Record>) {
        let before = self.clone();
        let mut rec = self.decode_one(dg);
        if rec.has_errors() && !dg.truncated {
            *self = before;
            if let Some(revised) = self.weigh_other_dialect(dg, &mut rec) {
                out.push(revised);
                return;
            }
            let msg = "not trusted: its framing or parse fails; the flow's state is unchanged";
            rec.notes
                .push(Note::new(&notes::UNTRUSTED, None, None, msg));
        } else if !rec.has_errors() {
            (self.contradictions, self.contradiction_digest) = (0, None);
        }
        out.push(rec);
    }

    fn state_bytes(&self) -> usize {
        self.reassembly.state_bytes()
    }

    fn describe(&self) -> Vec<(String, String)> {
        self.facts()
    }
}

impl Flow {
    /// A datagram the flow's content-decided dialect cannot read, tried in the other dialect:
    /// one the other reads cleanly is flagged and not obeyed; the [`REVISE_AFTER`]th in a row
    /// revises the dialect, and its record, decoded in the new dialect, is returned.
    fn weigh_other_dialect(&mut self, dg: &Datagram<'_>, rec: &mut Record) -> Option<Record> {
        let (decided, _) = self.dialect.filter(|_| self.forced_dialect.is_none())?;
        let other = match decided {
            Dialect::A5 => Dialect::A6,
            Dialect::A6 => Dialect::A5,
        };
        let mut alt = self.clone();
        alt.dialect = Some((
            other,
            Why::Revised {
                frame: dg.frame,
                from: decided,
            },
        ));
        let mut alt_rec = alt.decode_one(dg);
        if alt_rec.has_errors() {
            // Read by neither: no evidence for the other dialect, and the row is broken.
            (self.contradictions, self.contradiction_digest) = (0, None);
            return None;
        }
        let digest = Fnv::default().bytes(dg.payload).finish();
        if self.contradiction_digest != Some(digest) {
            self.contradictions += 1;
            self.contradiction_digest = Some(digest);
        }
        if self.contradictions < REVISE_AFTER {
            let msg = format!(
                "this datagram parses only as {}, the flow is {}: not obeyed on one datagram",
                other.label(),
                decided.label()
            );
            rec.notes
                .push(dialect_note(&notes::DIALECT_CONTRADICTED, msg));
            return None;
        }
        (alt.contradictions, alt.contradiction_digest) = (0, None);
        alt.revisions = self.revisions + 1;
        *self = alt;
        let msg = format!(
            "{REVISE_AFTER} datagrams in a row parse only as {}: the flow's dialect is revised from {}",
            other.label(),
            decided.label()
        );
        alt_rec
            .notes
            .push(dialect_note(&notes::DIALECT_REVISED, msg));
        Some(alt_rec)
    }

    fn decode_one(&mut self, dg: &Datagram<'_>) -> Record {
        let mut notes: Vec<Note> = Vec::new();
        let (transport, wrapped) = self.unwrap(dg.payload, dg.detail.on());
        let mut layer = self.layer(wrapped, dg.payload.len(), &mut notes);
        let whole = layer
            .fragment
            .and_then(|fr| self.reassembly.add(dg.src, fr, dg.payload, &mut notes));
        if let Some(w) = &whole {
            layer.bufs = Payloads::one((0, w.len()));
        }
        let inp = Input {
            payload: whole.as_deref().unwrap_or(dg.payload),
            bufs: &layer.bufs,
            source: u8::from(whole.is_some()),
        };
        let mut reading = self.learn(dg, &inp, &mut notes);
        let mut rec = Record::new("gamestudio");
        rec.fields.extend(layer.field.take());
        rec.notes = notes;
        match reading.trial.take() {
            Some(t) => {
                if !layer.summary.is_empty() {
                    let mut s = std::mem::take(&mut layer.summary);
                    s.insert(0, '[');
                    s.push_str("] ");
                    rec.summary = s;
                }
                self.show(t, (dg, &inp), &reading, &mut rec, layer.msg_type);
            }
            None => {
                rec.summary = if layer.summary.is_empty() {
                    format!("{} control", transport.name())
                } else {
                    std::mem::take(&mut layer.summary)
                };
                let ty = layer.msg_type;
                rec.msg_type = Cow::Borrowed(if ty.is_empty() { "empty" } else { ty });
            }
        }
        if let Some(data) = whole {
            rec.sources.push(Source {
                name: Cow::Borrowed("reassembled DirectPlay 8 message"),
                data,
            });
        }
        if dg.payload.is_empty() {
            rec.notes
                .push(Note::new(&notes::EMPTY, None, None, "empty datagram"));
        }
        if dg.truncated && rec.has_errors() {
            let msg = "the capture cut this datagram (snaplen); errors at its end are expected";
            rec.notes.push(Note::new(&notes::SNAPLEN, None, None, msg));
        }
        rec
    }

    fn facts(&self) -> Vec<(String, String)> {
        let transport = self
            .framing
            .transport()
            .map_or("undecided", Transport::name);
        let mut v = vec![("transport".into(), transport.into())];
        v.push((
            "dialect".into(),
            match (self.forced_dialect, &self.dialect) {
                (Some(d), _) => format!("{} (forced)", d.label()),
                (None, Some((d, why))) if self.revisions > 0 => format!(
                    "{} ({why}; revised {} time{})",
                    d.label(),
                    self.revisions,
                    if self.revisions == 1 { "" } else { "s" }
                ),
                (None, Some((d, why))) => format!("{} ({why})", d.label()),
                (None, None) => "undecided".into(),
            },
        ));
        v.push((
            "cposition".into(),
            match (self.forced_pos, &self.pos) {
                (Some(p), _) => format!("{p:?} (forced)"),
                (None, Some((p, why))) => format!("{p:?} ({why})"),
                (None, None) => "undecided".into(),
            },
        ));
        if let Some((s, why)) = &self.server {
            v.push(("server".into(), format!("{s} ({why})")));
        }
        if let Framing::Dp4 { ids: Some(ids) } = self.framing {
            let text = if ids {
                "player messages carry idFrom/idTo"
            } else {
                "player messages without idFrom/idTo (NM session)"
            };
            v.push(("dplay4_ids".into(), text.into()));
        }
        v
    }
}
