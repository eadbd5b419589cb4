//! 3D GameStudio (Acknex) A5 and A6+ client/server protocol, raw over UDP or inside DirectPlay 8
//! / DirectPlay 4 frames.
//!
//! Layers: [`dplay`] unwraps DirectPlay; [`msg`] decodes the back-to-back Gamestudio messages.
//! The flow decoder decides, from evidence it shows in every record, the transport (raw,
//! DirectPlay 8, DirectPlay 4), the direction (refining the plumbing's guess), the dialect (A5 or
//! A6+) and the CPosition encoding (packed or fixed). See docs/protocols/gamestudio.md.

pub mod dplay;
pub mod events;
pub mod facts;
pub mod fields;
mod flow;
pub mod msg;
pub mod notes;
mod reassembly;

use crate::proto::{FlowDecoder, PrefDef, Prefs, Probe, ProbeInput, Protocol, ProtocolInfo, Role};

use dplay::{Dp4Command, Dp8Ext, EnumCommand};
use flow::Flow;
use msg::{Dialect, PosMode};

pub struct Gamestudio;

pub static PROTOCOL: Gamestudio = Gamestudio;

/// The option that forces the dialect (`--gamestudio-dialect` sets it).
pub const DIALECT_PREF: &str = "gamestudio.dialect";
/// The option that forces the CPosition encoding (`--gamestudio-pos` sets it).
pub const POS_PREF: &str = "gamestudio.pos";

static INFO: ProtocolInfo = ProtocolInfo {
    name: "gamestudio",
    title: "3D GameStudio (Acknex) A5 and A6+",
    ports: &[(2300, 2400), (6073, 6073), (47624, 47624)],
    heuristic: "the A5 svc_info sync constant, DirectPlay 4 size/token word (0xFAB) with 'play' signature or SOCKADDR_IN, DirectPlay 8 connect frames; on the game ports also messages that parse exactly",
    prefs: &[
        PrefDef {
            key: DIALECT_PREF,
            values: "a5|a6",
            desc: "force the dialect instead of deciding it per flow (also --gamestudio-dialect)",
        },
        PrefDef {
            key: POS_PREF,
            values: "packed|fixed",
            desc: "force the CPosition encoding (pos_resolution is not on the wire; also --gamestudio-pos)",
        },
    ],
    fields: &[fields::ALL],
    notes: notes::ALL,
};

/// The first datagram's game-port test: DirectPlay 4 game ports, DirectPlay 8 enumeration,
/// DirectPlay 4 enumeration ([MC-DPL4CS] 2.1, [MC-DPLHP] 1.9).
fn port_hit(input: &ProbeInput<'_>) -> bool {
    INFO.is_server_port(input.src_port) || INFO.is_server_port(input.dst_port)
}

/// Bytes of Gamestudio messages a probe reads per datagram at most, in every reading together
/// (whole messages: the last may end past it). A datagram whose messages go on past it proves
/// nothing, and the flow is probed again on its next one: unclaimed 2 KB DirectPlay 8 frames of
/// Gamestudio-like bytes cost 750x a plain datagram when every reading parsed them whole. Real
/// flows open with short messages (joins, pings, server info of a few dozen bytes).
pub const PROBE_BYTES: usize = 256;

/// Which directions buffers parse cleanly in (any dialect, any CPosition reading), each reading
/// spending at most `budget` bytes over all the buffers (`usize::MAX`: the decoder's own test,
/// which reads everything).
fn roles_within(bufs: &[&[u8]], budget: usize) -> (bool, bool) {
    (
        reads_within(bufs, true, budget),
        reads_within(bufs, false, budget),
    )
}

/// Whether buffers parse cleanly in one direction under some dialect and CPosition reading,
/// each reading spending at most `budget` bytes over all the buffers. Stops at the first
/// reading that fits.
fn reads_within(bufs: &[&[u8]], to_server: bool, budget: usize) -> bool {
    let reads = |d: Dialect, p: PosMode| {
        let mut left = budget;
        bufs.iter().all(|b| {
            let ok = !b.is_empty() && msg::parses_within(b, to_server, d, p, left) == Some(true);
            left = left.saturating_sub(b.len());
            ok
        })
    };
    [Dialect::A6, Dialect::A5].into_iter().any(|d| {
        [PosMode::Packed, PosMode::Fixed]
            .into_iter()
            .any(|p| reads(d, p))
    })
}

/// Whether buffers, read whole, parse cleanly in some direction (the decoder's framing
/// decisions, which do not need to know which).
fn parse_somehow(bufs: &[&[u8]]) -> bool {
    reads_within(bufs, true, usize::MAX) || reads_within(bufs, false, usize::MAX)
}

/// Which directions the Gamestudio buffers of a DirectPlay frame parse cleanly in, within
/// `budget` bytes; neither when there are none.
fn payload_roles(p: &[u8], payloads: &[(usize, usize)], budget: usize) -> (bool, bool) {
    let bufs = payload_bufs(p, payloads);
    if bufs.is_empty() {
        return (false, false);
    }
    roles_within(&bufs, budget)
}

/// The Gamestudio buffers of a DirectPlay frame.
fn payload_bufs<'a>(p: &'a [u8], payloads: &[(usize, usize)]) -> Vec<&'a [u8]> {
    payloads
        .iter()
        .filter_map(|&(o, n)| p.get(o..o + n))
        .collect()
}

fn role_of(clean: (bool, bool)) -> Option<Role> {
    match clean {
        (true, false) => Some(Role::Client),
        (false, true) => Some(Role::Server),
        _ => None,
    }
}

fn has_sync(b: &[u8]) -> bool {
    b.len() >= 14 && b[0] == 0x07 && b[1..5] == msg::SYNC.to_le_bytes()
}

/// The sender of a DirectPlay 4 message, when its content shows it.
fn dp4_sender(p: &[u8]) -> Option<Role> {
    if dplay::is_dp4_system(p) {
        // ENUMSESSIONS is sent by a client looking for sessions. The command follows the
        // signature (Wine dplayx, Wireshark epan/dissectors/packet-dplay.c; see dplay::dp4_with).
        let cmd = p
            .get(24..26)
            .map(|c| Dp4Command(u16::from_le_bytes([c[0], c[1]])));
        return match cmd {
            Some(Dp4Command::ENUMSESSIONS) => Some(Role::Client),
            Some(Dp4Command::ENUMSESSIONSREPLY) => Some(Role::Server),
            _ => None,
        };
    }
    // Player message: Gamestudio data after idFrom/idTo, or right after the header in an NM
    // session ([MC-DPL4CS] 2.2.45).
    let at = |o: usize| roles_within(&[p.get(o..).unwrap_or(&[])], PROBE_BYTES);
    let with_ids = at(28);
    if with_ids.0 || with_ids.1 {
        role_of(with_ids)
    } else {
        role_of(at(20))
    }
}

impl Protocol for Gamestudio {
    fn info(&self) -> &'static ProtocolInfo {
        &INFO
    }
    fn type_fields(&self) -> &'static crate::tree::TypeFields {
        &fields::TYPES
    }
    fn events(&self) -> Option<&'static crate::toolkit::facts::Events> {
        Some(&events::EVENTS)
    }

    fn probe(&self, input: &ProbeInput<'_>) -> Probe {
        let p = input.payload;
        if p.is_empty() || p.len() > 2048 {
            return Probe::NO;
        }
        if dplay::is_dp4(p) {
            return Probe::certain(dp4_sender(p));
        }
        if dplay::is_dp8_connect(p) {
            // CONNECT comes from the connector; the listener's CONNECTED carries POLL.
            return Probe::certain(match (p[0], Dp8Ext(p[1])) {
                (_, Dp8Ext::CONNECT) => Some(Role::Client),
                (0x88, _) => Some(Role::Server),
                _ => Some(Role::Client),
            });
        }
        if dplay::is_dp8_enum(p) {
            if !port_hit(input) {
                return Probe::NO;
            }
            return Probe::likely(Some(if EnumCommand(p[1]) == EnumCommand::QUERY {
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
            let raw = roles_within(&[p], PROBE_BYTES);
            if raw.0 || raw.1 {
                return Probe::likely(role_of(raw));
            }
        }
        // A DirectPlay 8 data frame whose payload parses exactly: likely on the game ports only.
        // Off them a lone data frame is no evidence (a DNS query on port 53 once parsed as one,
        // carrying an A5 message): DirectPlay 8 needs its connect exchange there (above).
        if on_port && p[0] & 0x01 != 0 {
            let u = dplay::dp8(p, false, false);
            if u.ok {
                let r = payload_roles(p, &u.payloads, PROBE_BYTES);
                if r.0 || r.1 {
                    return Probe::likely(role_of(r));
                }
            }
        }
        Probe::NO
    }

    fn new_flow(&self, prefs: &Prefs) -> Box<dyn FlowDecoder> {
        let forced_dialect = match prefs.get(DIALECT_PREF) {
            Some("a5") | Some("A5") => Some(Dialect::A5),
            Some("a6") | Some("A6") | Some("a6+") => Some(Dialect::A6),
            _ => None,
        };
        let forced_pos = match prefs.get(POS_PREF) {
            Some("packed") => Some(PosMode::Packed),
            Some("fixed") => Some(PosMode::Fixed),
            _ => None,
        };
        Box::new(Flow::new(forced_dialect, forced_pos))
    }
}

#[cfg(test)]
mod tests;
