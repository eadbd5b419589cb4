//! 3D GameStudio (Acknex) A5 and A6+ client/server protocol, raw over UDP or inside DirectPlay 8
//! / DirectPlay 4 frames.
//!
//! Layers: [`dplay`] unwraps DirectPlay; [`msgs`] decodes the back-to-back Gamestudio messages.
//! The flow decoder decides, from evidence it shows in every record, the transport (raw,
//! DirectPlay 8, DirectPlay 4), the direction (refining the plumbing's guess), the dialect (A5 or
//! A6+) and the CPosition encoding (packed or fixed). See docs/protocols/gamestudio.md.

pub mod dplay;
pub mod fields;
pub mod msgs;

use std::borrow::Cow;
use std::net::SocketAddr;

use crate::proto::{
    Datagram, Direction, FlowDecoder, PrefDef, Prefs, Probe, ProbeInput, Protocol, ProtocolInfo,
    Role,
};
use crate::tree::{Field, Note, Pos, Record, Severity, Source, Value};

use msgs::{Dialect, Parsed, PosMode};

pub struct Gamestudio;

pub static PROTOCOL: Gamestudio = Gamestudio;

static INFO: ProtocolInfo = ProtocolInfo {
    name: "gamestudio",
    title: "3D GameStudio (Acknex) A5 and A6+",
    ports: &[(2300, 2400), (6073, 6073), (47624, 47624)],
    heuristic: "the A5 svc_info sync constant, DirectPlay 4 size/token word (0xFAB) with 'play' signature or SOCKADDR_IN, DirectPlay 8 connect frames; on the game ports also messages that parse exactly",
    prefs: &[
        PrefDef {
            key: "gamestudio.dialect",
            values: "a5|a6",
            desc: "force the dialect instead of deciding it per flow (also --gamestudio-dialect)",
        },
        PrefDef {
            key: "gamestudio.pos",
            values: "packed|fixed",
            desc: "force the CPosition encoding (pos_resolution is not on the wire; also --gamestudio-pos)",
        },
    ],
    fields: &[fields::ALL],
    notes: &[],
};

/// The first datagram's game-port test: DirectPlay 4 game ports, DirectPlay 8 enumeration,
/// DirectPlay 4 enumeration ([MC-DPL4CS] §2.1, [MC-DPLHP] §1.9).
fn port_hit(input: &ProbeInput<'_>) -> bool {
    INFO.is_server_port(input.src_port) || INFO.is_server_port(input.dst_port)
}

/// Which directions a buffer parses cleanly in (any dialect, any CPosition reading).
fn clean_roles(bufs: &[&[u8]]) -> (bool, bool) {
    let mut out = (false, false);
    for (i, to_server) in [true, false].into_iter().enumerate() {
        let ok = [Dialect::A6, Dialect::A5].into_iter().any(|d| {
            [PosMode::Packed, PosMode::Fixed].into_iter().any(|p| {
                bufs.iter()
                    .all(|b| !b.is_empty() && msgs::parse(b, 0, to_server, d, p, false).clean)
            })
        });
        if i == 0 {
            out.0 = ok;
        } else {
            out.1 = ok;
        }
    }
    out
}

fn role_of(clean: (bool, bool)) -> Option<Role> {
    match clean {
        (true, false) => Some(Role::Client),
        (false, true) => Some(Role::Server),
        _ => None,
    }
}

fn has_sync(b: &[u8]) -> bool {
    b.len() >= 14 && b[0] == 0x07 && b[1..5] == msgs::SYNC.to_le_bytes()
}

impl Protocol for Gamestudio {
    fn info(&self) -> &'static ProtocolInfo {
        &INFO
    }

    fn probe(&self, input: &ProbeInput<'_>) -> Probe {
        let p = input.payload;
        if p.is_empty() || p.len() > 2048 {
            return Probe::NO;
        }
        if dplay::is_dp4(p) {
            if dplay::is_dp4_system(p) {
                // ENUMSESSIONS is sent by a client looking for sessions.
                // The command follows the signature (Wine dplayx, Wireshark packet-dplay.c; see
                // dplay::dp4).
                let cmd = p.get(24..26).map(|c| u16::from_le_bytes([c[0], c[1]]));
                return Probe::certain(match cmd {
                    Some(0x02) => Some(Role::Client),
                    Some(0x01) => Some(Role::Server),
                    _ => None,
                });
            }
            // Player message: Gamestudio data after idFrom/idTo, or right after the header in an
            // NM session ([MC-DPL4CS] 2.2.45).
            let at = |o: usize| clean_roles(&[p.get(o..).unwrap_or(&[])]);
            let with_ids = at(28);
            let role = if with_ids.0 || with_ids.1 {
                role_of(with_ids)
            } else {
                role_of(at(20))
            };
            return Probe::certain(role);
        }
        if dplay::is_dp8_connect(p) {
            // CONNECT comes from the connector; the listener's CONNECTED carries POLL.
            return Probe::certain(match (p[0], p[1]) {
                (_, 0x01) => Some(Role::Client),
                (0x88, _) => Some(Role::Server),
                _ => Some(Role::Client),
            });
        }
        if dplay::is_dp8_enum(p) {
            if !port_hit(input) {
                return Probe::NO;
            }
            return Probe::likely(Some(if p[1] == 2 {
                Role::Client
            } else {
                Role::Server
            }));
        }
        if has_sync(p) {
            return Probe::certain(Some(Role::Server));
        }
        let on_port = port_hit(input);
        if on_port {
            let raw = clean_roles(&[p]);
            if raw.0 || raw.1 {
                return Probe::likely(role_of(raw));
            }
        }
        // A complete DirectPlay 8 data frame (DATA, NEW_MSG and END_MSG set, no USER bits) whose
        // payload parses exactly: likely on any port; off the game ports only with a payload of
        // at least two bytes, so that a lone command byte is not enough.
        let whole_dframe = p[0] & 0x31 == 0x31 && p[0] & 0xc0 == 0;
        if p[0] & 0x01 != 0 && (on_port || whole_dframe) {
            let u = dplay::dp8(p, false, false);
            if u.ok
                && !u.payloads.is_empty()
                && (on_port || u.payloads.iter().all(|&(_, n)| n >= 2))
            {
                let bufs: Vec<&[u8]> = u
                    .payloads
                    .iter()
                    .filter_map(|&(o, n)| p.get(o..o + n))
                    .collect();
                let r = clean_roles(&bufs);
                if r.0 || r.1 {
                    return Probe::likely(role_of(r));
                }
            }
        }
        Probe::NO
    }

    fn new_flow(&self, prefs: &Prefs) -> Box<dyn FlowDecoder> {
        let forced_dialect = match prefs.get("gamestudio.dialect") {
            Some("a5") | Some("A5") => Some(Dialect::A5),
            Some("a6") | Some("A6") | Some("a6+") => Some(Dialect::A6),
            _ => None,
        };
        let forced_pos = match prefs.get("gamestudio.pos") {
            Some("packed") => Some(PosMode::Packed),
            Some("fixed") => Some(PosMode::Fixed),
            _ => None,
        };
        Box::new(Flow {
            forced_dialect,
            forced_pos,
            ..Flow::default()
        })
    }
}

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

#[derive(Debug, Default)]
struct Flow {
    forced_dialect: Option<Dialect>,
    forced_pos: Option<PosMode>,
    dialect: Option<(Dialect, String)>,
    pos: Option<(PosMode, String)>,
    transport: Option<Transport>,
    server: Option<(SocketAddr, String)>,
    datagrams: u64,
    /// DirectPlay 8 messages being reassembled, per sender (at most [`MAX_REASSEMBLY`] bytes).
    /// (sender, bytes so far, bSeq of the last piece).
    reassembly: Vec<(SocketAddr, Vec<u8>, u8)>,
    /// A CONNECTED_SIGNED was seen: DirectPlay 8 frames carry a signature.
    dp8_signed: bool,
    /// DirectPlay 4 player messages carry idFrom/idTo (None: not yet decided).
    dp4_ids: Option<bool>,
}

/// Upper bound of one reassembled DirectPlay 8 message (Gamestudio sends at most ~1 KiB).
const MAX_REASSEMBLY: usize = 64 * 1024;

/// Moves every position of a field tree into data source `n`.
fn into_source(f: &mut Field, n: u8) {
    f.pos = f.pos.in_source(n);
    for c in &mut f.children {
        into_source(c, n);
    }
}

/// One full hypothesis over all message buffers of a datagram.
struct Trial {
    dialect: Dialect,
    pos: PosMode,
    parsed: Vec<Parsed>,
}

impl Trial {
    fn clean(&self) -> bool {
        self.parsed.iter().all(|p| p.clean)
    }
    fn used_cpos(&self) -> bool {
        self.parsed.iter().any(|p| p.used_cpos)
    }
    fn saw_sync(&self) -> bool {
        self.parsed.iter().any(|p| p.saw_sync)
    }
    fn saw_local(&self) -> bool {
        self.parsed.iter().any(|p| p.saw_local)
    }
}

fn run(
    payload: &[u8],
    bufs: &[(usize, usize)],
    to_server: bool,
    (d, p): (Dialect, PosMode),
    detail: bool,
) -> Trial {
    let parsed = bufs
        .iter()
        .map(|&(o, n)| {
            let b = payload.get(o..o.saturating_add(n)).unwrap_or(&[]);
            msgs::parse(b, o, to_server, d, p, detail)
        })
        .collect();
    Trial {
        dialect: d,
        pos: p,
        parsed,
    }
}

impl Flow {
    fn dialects(&self) -> Vec<Dialect> {
        if let Some(d) = self.forced_dialect {
            vec![d]
        } else if let Some((d, _)) = &self.dialect {
            vec![*d]
        } else {
            vec![Dialect::A6, Dialect::A5]
        }
    }
    fn positions(&self) -> Vec<PosMode> {
        if let Some(p) = self.forced_pos {
            vec![p]
        } else if let Some((p, _)) = &self.pos {
            vec![*p]
        } else {
            vec![PosMode::Packed, PosMode::Fixed]
        }
    }

    /// All hypotheses for one direction, in preference order.
    fn trials(
        &self,
        payload: &[u8],
        bufs: &[(usize, usize)],
        to_server: bool,
        detail: bool,
    ) -> Vec<Trial> {
        let mut v = Vec::new();
        for d in self.dialects() {
            for p in self.positions() {
                v.push(run(payload, bufs, to_server, (d, p), detail));
            }
        }
        v
    }

    /// A DirectPlay 4 message. Player messages carry idFrom/idTo unless the session has the NM
    /// flag ([MC-DPL4CS] 2.2.45); the session description is rarely in the capture, so the
    /// first player message whose Gamestudio payload parses exactly only one way decides.
    fn dp4_player(&mut self, p: &[u8], detail: bool) -> dplay::Unwrapped {
        if dplay::is_dp4_system(p) {
            return dplay::dp4_with(p, true, detail);
        }
        let ids = match self.dp4_ids {
            Some(v) => v,
            None => {
                let fits = |at: usize| {
                    p.get(at..).is_some_and(|b| {
                        let r = clean_roles(&[b]);
                        r.0 || r.1
                    })
                };
                match (fits(28), fits(20)) {
                    (true, false) => {
                        self.dp4_ids = Some(true);
                        true
                    }
                    (false, true) => {
                        self.dp4_ids = Some(false);
                        false
                    }
                    _ => true,
                }
            }
        };
        dplay::dp4_with(p, ids, detail)
    }

    fn transport_for(&mut self, p: &[u8], detail: bool) -> (Transport, Option<dplay::Unwrapped>) {
        // Once decided, the transport of a flow does not change.
        match self.transport {
            Some(Transport::Dp8) => {
                return (Transport::Dp8, Some(dplay::dp8(p, self.dp8_signed, detail)));
            }
            Some(Transport::Dp4) if dplay::is_dp4(p) => {
                return (Transport::Dp4, Some(self.dp4_player(p, detail)));
            }
            Some(Transport::Dp4) => {
                let mut u = dplay::Unwrapped::new(detail);
                u.tree
                    .open(&fields::DP4, Value::None, Pos::bytes(0, p.len()));
                u.tree.error(
                    Some(&fields::DP4),
                    Some(Pos::bytes(0, p.len().min(4))),
                    "not a DirectPlay 4 message (no size/token word with a known token and AF_INET address)",
                );
                u.summary = "DP4 malformed".into();
                u.msg_type = "DP4 malformed";
                return (Transport::Dp4, Some(u));
            }
            Some(Transport::Raw) => return (Transport::Raw, None),
            None => {}
        }
        if dplay::is_dp4(p) {
            self.transport = Some(Transport::Dp4);
            return (Transport::Dp4, Some(self.dp4_player(p, detail)));
        }
        if dplay::is_dp8_connect(p) || dplay::is_dp8_enum(p) {
            self.transport = Some(Transport::Dp8);
            return (Transport::Dp8, Some(dplay::dp8(p, self.dp8_signed, detail)));
        }
        let raw = clean_roles(&[p]);
        let raw_ok = raw.0 || raw.1;
        let u = dplay::dp8(p, self.dp8_signed, detail);
        let dp8_ok = p.first().is_some_and(|b| b & 0x01 != 0 || b & 0x80 != 0) && u.ok && {
            let bufs: Vec<&[u8]> = u
                .payloads
                .iter()
                .filter_map(|&(o, n)| p.get(o..o + n))
                .collect();
            !bufs.is_empty() && {
                let r = clean_roles(&bufs);
                r.0 || r.1
            }
        };
        match (raw_ok, dp8_ok) {
            (true, false) => {
                self.transport = Some(Transport::Raw);
                (Transport::Raw, None)
            }
            (false, true) => {
                self.transport = Some(Transport::Dp8);
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
}

fn dir_short(to_server: bool) -> &'static str {
    if to_server { "C→S" } else { "S→C" }
}

impl FlowDecoder for Flow {
    fn decode(&mut self, dg: &Datagram<'_>, out: &mut Vec<Record>) {
        self.datagrams += 1;
        let payload = dg.payload;
        let mut rec = Record::new("gamestudio");
        let (transport, wrapped) = self.transport_for(payload, dg.detail);
        let mut notes: Vec<Note> = Vec::new();
        let mut wrapper_field: Option<Field> = None;
        let mut wrapper_summary = String::new();
        let mut wrapper_type: &'static str = "";
        let mut fragment = None;
        let mut bufs: Vec<(usize, usize)> = match wrapped {
            Some(u) => {
                let mut r = Record::new("gamestudio");
                wrapper_summary = u.summary.clone();
                wrapper_type = u.msg_type;
                fragment = u.fragment;
                if u.signing {
                    self.dp8_signed = true;
                }
                let bufs = u.payloads.clone();
                u.tree.finish_into(payload.len(), &mut r);
                wrapper_field = r.fields.into_iter().next();
                notes.extend(r.notes);
                bufs
            }
            None => vec![(0, payload.len())],
        };
        // DirectPlay 8 messages split over several DFRAMEs (NEW_MSG … END_MSG): reassembled per
        // sender, in arrival order; the whole message is decoded from data source 1.
        let mut reassembled: Option<Vec<u8>> = None;
        if let Some((bits, at, n, seq)) = fragment {
            let piece = payload.get(at..at.saturating_add(n)).unwrap_or(&[]);
            let slot = self.reassembly.iter().position(|(a, _, _)| *a == dg.src);
            let note = |sev, msg: String| Note {
                def: None,
                severity: sev,
                message: msg,
                field: Some(fields::DP8_FRAGMENT.name),
                pos: Some(Pos::bytes(at, n)),
            };
            let last_seq = slot.map(|i| self.reassembly[i].2);
            match (bits, slot) {
                _ if last_seq == Some(seq) => notes.push(note(
                    Severity::Note,
                    format!("retransmission of the piece with sequence {seq}; ignored"),
                )),
                (0x10, _) => {
                    if let Some(i) = slot {
                        self.reassembly.remove(i);
                        notes.push(note(
                            Severity::Warning,
                            "a new message starts before the previous one ended; the unfinished one is dropped".into(),
                        ));
                    }
                    if self.reassembly.len() >= 4 {
                        self.reassembly.remove(0);
                    }
                    self.reassembly.push((dg.src, piece.to_vec(), seq));
                    notes.push(note(
                        Severity::Note,
                        format!("first part of a split message ({n} bytes)"),
                    ));
                }
                (_, Some(i)) if last_seq.map(|l| l.wrapping_add(1)) != Some(seq) => {
                    self.reassembly.remove(i);
                    notes.push(note(
                        Severity::Warning,
                        format!(
                            "piece with sequence {seq} does not follow {}: a piece is missing; the split message is dropped",
                            last_seq.unwrap_or(0)
                        ),
                    ));
                }
                (_, Some(i)) => {
                    let total = self.reassembly[i].1.len() + piece.len();
                    if total > MAX_REASSEMBLY {
                        self.reassembly.remove(i);
                        notes.push(note(
                            Severity::Warning,
                            format!("split message exceeds {MAX_REASSEMBLY} bytes; dropped"),
                        ));
                    } else if bits == 0x20 {
                        let (_, mut whole, _) = self.reassembly.remove(i);
                        whole.extend_from_slice(piece);
                        notes.push(note(
                            Severity::Note,
                            format!(
                                "last part of a split message: {} bytes reassembled",
                                whole.len()
                            ),
                        ));
                        bufs = vec![(0, whole.len())];
                        reassembled = Some(whole);
                    } else {
                        self.reassembly[i].1.extend_from_slice(piece);
                        self.reassembly[i].2 = seq;
                        notes.push(note(
                            Severity::Note,
                            format!("middle part of a split message ({total} bytes so far)"),
                        ));
                    }
                }
                (_, None) => notes.push(note(
                    Severity::Note,
                    "part of a split message whose first part is not in the capture".into(),
                )),
            }
        }
        let source: u8 = if reassembled.is_some() { 1 } else { 0 };
        let payload: &[u8] = reassembled.as_deref().unwrap_or(payload);

        // Direction: the content-decided server end, else the plumbing's, refined by which
        // direction the messages parse in.
        let given_to_server = dg.direction == Direction::ToServer;
        let mut how = format!("plumbing: {}", dg.role_source.as_str());
        let mut to_server = given_to_server;
        let mut decided_now: Option<String> = None;
        if let Some((server, why)) = &self.server {
            to_server = dg.dst == *server;
            how = why.clone();
        } else if !bufs.is_empty() {
            let here = self
                .trials(payload, &bufs, given_to_server, false)
                .iter()
                .any(Trial::clean);
            let there = self
                .trials(payload, &bufs, !given_to_server, false)
                .iter()
                .any(Trial::clean);
            // The A5 sync constant is only ever sent by the server.
            let sync = bufs
                .iter()
                .any(|&(o, n)| payload.get(o..o + n).is_some_and(has_sync));
            let pick = match (here, there) {
                _ if sync => Some(false),
                (true, false) => Some(given_to_server),
                (false, true) => Some(!given_to_server),
                _ => None,
            };
            if let Some(ts) = pick {
                let server = if ts { dg.dst } else { dg.src };
                let why = format!(
                    "content: server is {server} (frame {} parses only as {})",
                    dg.frame,
                    if ts {
                        "client → server"
                    } else {
                        "server → client"
                    }
                );
                if ts != given_to_server {
                    decided_now = Some(format!(
                        "direction reversed from the plumbing's guess ({}): {}",
                        dg.role_source.as_str(),
                        why.trim_start_matches("content: ")
                    ));
                }
                to_server = ts;
                how = why.clone();
                self.server = Some((server, why));
            }
        }

        // Dialect and CPosition: the first clean hypothesis, locking a choice once only one
        // reading fits.
        let trials = if bufs.is_empty() {
            Vec::new()
        } else {
            self.trials(payload, &bufs, to_server, dg.detail)
        };
        // The other direction's readings, while the direction is only the plumbing's guess
        // and something is still to be decided from them.
        let undecided = (self.forced_dialect.is_none() && self.dialect.is_none())
            || (self.forced_pos.is_none() && self.pos.is_none());
        let other = if self.server.is_none() && undecided && !bufs.is_empty() {
            self.trials(payload, &bufs, !to_server, false)
        } else {
            Vec::new()
        };
        let mut chosen: Option<usize> = trials.iter().position(Trial::clean);
        let mut dialect_how = if self.forced_dialect.is_some() {
            "forced by --gamestudio-dialect".to_string()
        } else if let Some((_, why)) = &self.dialect {
            why.clone()
        } else {
            String::new()
        };
        if self.forced_dialect.is_none() && self.dialect.is_none() && !trials.is_empty() {
            // While the direction is still the plumbing's guess, a dialect that fits the other
            // direction is not ruled out: `07 <dpid> 01` is an A5 cls_ping + fill towards the
            // server and an A6+ SVC_INFO towards the client.
            let clean_in = |d: Dialect| {
                trials
                    .iter()
                    .chain(&other)
                    .any(|t| t.dialect == d && t.clean())
            };
            let clean_a5 = clean_in(Dialect::A5);
            let clean_a6 = clean_in(Dialect::A6);
            let sync = trials
                .iter()
                .any(|t| t.dialect == Dialect::A5 && t.clean() && t.saw_sync());
            let local = trials
                .iter()
                .any(|t| t.dialect == Dialect::A6 && t.clean() && t.saw_local());
            let lock = if sync {
                Some((
                    Dialect::A5,
                    format!("svc_info sync constant 0x11191218 in frame {}", dg.frame),
                ))
            } else if clean_a5 && !clean_a6 {
                Some((Dialect::A5, format!("frame {} parses only as A5", dg.frame)))
            } else if clean_a6 && !clean_a5 {
                let extra = if local { " (SVC_LOCAL)" } else { "" };
                Some((
                    Dialect::A6,
                    format!("frame {} parses only as A6+{extra}", dg.frame),
                ))
            } else {
                None
            };
            match lock {
                Some((d, why)) => {
                    notes.push(Note {
                        def: None,
                        severity: Severity::Note,
                        message: format!("dialect decided for this flow: {} ({why})", d.label()),
                        field: Some(fields::DIALECT.name),
                        pos: None,
                    });
                    dialect_how = why.clone();
                    self.dialect = Some((d, why));
                    chosen = trials.iter().position(|t| t.dialect == d && t.clean());
                }
                None if clean_a5 && clean_a6 => {
                    dialect_how = "undecided: parses as A5 and A6+; shown as A6+".into();
                }
                None => dialect_how = "undecided: no reading fits; shown as A6+".into(),
            }
        }
        let idx = chosen.unwrap_or(0);
        // CPosition: lock when the chosen dialect parses under exactly one reading.
        let mut pos_how = if self.forced_pos.is_some() {
            "forced by --gamestudio-pos".to_string()
        } else if let Some((_, why)) = &self.pos {
            why.clone()
        } else {
            String::new()
        };
        if let Some(t) = trials.get(idx)
            && self.forced_pos.is_none()
            && self.pos.is_none()
            && t.used_cpos()
        {
            // Only the readings of a known dialect count; while the dialect is open, every
            // dialect's readings must agree (else A6+'s packed reading could lock the encoding
            // for what turns out to be an A5 flow with Fixed CPositions).
            let dialect_known = self.forced_dialect.is_some() || self.dialect.is_some();
            let same: Vec<&Trial> = trials
                .iter()
                .chain(&other)
                .filter(|x| !dialect_known || x.dialect == t.dialect)
                .collect();
            let packed = same.iter().any(|x| x.pos == PosMode::Packed && x.clean());
            let fixed = same.iter().any(|x| x.pos == PosMode::Fixed && x.clean());
            if packed != fixed {
                let m = if packed {
                    PosMode::Packed
                } else {
                    PosMode::Fixed
                };
                let why = format!(
                    "frame {} parses exactly only with {} CPosition",
                    dg.frame,
                    if packed {
                        "3-byte packed"
                    } else {
                        "4-byte Fixed"
                    }
                );
                notes.push(Note {
                    def: None,
                    severity: Severity::Note,
                    message: format!("CPosition encoding decided for this flow: {why}"),
                    field: Some(fields::POS_MODE.name),
                    pos: None,
                });
                pos_how = why.clone();
                self.pos = Some((m, why));
            } else if packed {
                pos_how = "undecided: both readings fit; shown packed".into();
            } else {
                pos_how = "undecided: neither reading fits; shown packed".into();
            }
        }
        if let Some(msg) = decided_now {
            notes.push(Note {
                def: None,
                severity: Severity::Note,
                message: msg,
                field: Some(fields::DIRECTION.name),
                pos: None,
            });
        }

        let trial = trials.into_iter().nth(idx);
        let mut summary = String::new();
        if !wrapper_summary.is_empty() {
            summary.push('[');
            summary.push_str(&wrapper_summary);
            summary.push_str("] ");
        }
        if let Some(f) = wrapper_field {
            rec.fields.push(f);
        }
        match trial {
            Some(t) => {
                let mut root = Field::new(&fields::ROOT, Value::None, Pos::bytes(0, payload.len()));
                if let (Some(first), Some(last)) = (bufs.first(), bufs.last()) {
                    root.pos = Pos::bytes(first.0, (last.0 + last.1).saturating_sub(first.0))
                        .in_source(source);
                }
                let fd = Field::new(
                    &fields::DIALECT,
                    t.dialect.value(),
                    Pos::bytes(root.pos.offset as usize, 0),
                );
                root.children.push(fd);
                root.children.push(Field::new(
                    &fields::DIALECT_BASIS,
                    Value::Str(dialect_how.clone().into()),
                    Pos::bytes(root.pos.offset as usize, 0),
                ));
                let fdir = Field::new(
                    &fields::DIRECTION,
                    if to_server {
                        Value::Enum(0, "client_to_server")
                    } else {
                        Value::Enum(1, "server_to_client")
                    },
                    Pos::bytes(root.pos.offset as usize, 0),
                );
                root.children.push(fdir);
                root.children.push(Field::new(
                    &fields::DIRECTION_BASIS,
                    Value::Str(how.clone().into()),
                    Pos::bytes(root.pos.offset as usize, 0),
                ));
                if t.used_cpos() {
                    let fp = Field::new(
                        &fields::POS_MODE,
                        t.pos.value(),
                        Pos::bytes(root.pos.offset as usize, 0),
                    );
                    root.children.push(fp);
                    root.children.push(Field::new(
                        &fields::POS_BASIS,
                        Value::Str(pos_how.clone().into()),
                        Pos::bytes(root.pos.offset as usize, 0),
                    ));
                }
                let mut names: Vec<&'static str> = Vec::new();
                let mut sums: Vec<String> = Vec::new();
                for p in t.parsed {
                    root.children.extend(p.fields);
                    for mut n in p.notes {
                        n.pos = n.pos.map(|ps| ps.in_source(source));
                        notes.push(n);
                    }
                    names.extend(p.names);
                    sums.extend(p.summaries);
                }
                if source != 0 {
                    into_source(&mut root, source);
                }
                rec.fields.push(root);
                summary.push_str(&format!("{} {}", t.dialect.label(), dir_short(to_server)));
                if sums.is_empty() {
                    summary.push_str(" (no messages)");
                }
                let n = sums.len();
                for (i, s) in sums.into_iter().take(4).enumerate() {
                    summary.push_str(if i == 0 { " " } else { "; " });
                    summary.push_str(&s);
                }
                if n > 4 {
                    summary.push_str(&format!(" (+{} more)", n - 4));
                }
                rec.msg_type = match names.first() {
                    Some(n) => Cow::Borrowed(*n),
                    None if !wrapper_type.is_empty() => Cow::Borrowed(wrapper_type),
                    None => Cow::Borrowed("fill"),
                };
            }
            None => {
                summary.push_str(&format!("{} control", transport.name()));
                let s = summary.trim_end().to_string();
                summary = s;
                if !wrapper_summary.is_empty() {
                    summary = wrapper_summary.clone();
                }
                rec.msg_type = Cow::Borrowed(if wrapper_type.is_empty() {
                    "empty"
                } else {
                    wrapper_type
                });
            }
        }
        if let Some(whole) = reassembled {
            rec.sources.push(Source {
                name: Cow::Borrowed("reassembled DirectPlay 8 message"),
                data: whole,
            });
        }
        if dg.payload.is_empty() {
            notes.push(Note {
                def: None,
                severity: Severity::Warning,
                message: "empty datagram".into(),
                field: None,
                pos: None,
            });
        }
        if dg.truncated && notes.iter().any(|n| n.severity == Severity::Error) {
            notes.push(Note {
                def: None,
                severity: Severity::Note,
                message: "the capture cut this datagram (snaplen); errors at its end are expected"
                    .into(),
                field: None,
                pos: None,
            });
        }
        rec.summary = summary;
        rec.notes = notes;
        out.push(rec);
    }

    fn state_bytes(&self) -> usize {
        self.reassembly.iter().map(|(_, b, _)| b.capacity()).sum()
    }

    fn describe(&self) -> Vec<(String, String)> {
        let mut v = Vec::new();
        v.push((
            "transport".into(),
            self.transport
                .map(Transport::name)
                .unwrap_or("undecided")
                .into(),
        ));
        v.push((
            "dialect".into(),
            match (self.forced_dialect, &self.dialect) {
                (Some(d), _) => format!("{} (forced)", d.label()),
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
        if let Some(ids) = self.dp4_ids {
            v.push((
                "dplay4_ids".into(),
                if ids {
                    "player messages carry idFrom/idTo".into()
                } else {
                    "player messages without idFrom/idTo (NM session)".into()
                },
            ));
        }
        v
    }
}

#[cfg(test)]
mod tests;
