//! Sonic Robo Blast 2 netgame protocol (the "doomdata" UDP protocol of SRB2 2.1.25 and 2.2.x).
//!
//! Layouts follow STJr/SRB2 (github.com/STJr/SRB2) at the `SRB2_release_*` tags: the packet
//! structs and `packettype_t` of `src/d_clisrv.h` (2.2.14+: `src/netcode/protocol.h`), the
//! writers in `src/d_clisrv.c`, `src/d_net.c`, `src/d_netfil.c`, and the net-command handlers
//! of `src/d_netcmd.c`; each function cites what it follows.
//!
//! The release is forced with `--srb2-version` (pref `srb2.version`), else detected per flow
//! (`detect`): packets that carry a version (PT_SERVERINFO, PT_CLIENTJOIN, PT_SERVERCFG,
//! PT_ASKINFO) lock it, otherwise every candidate release's tables are tried and the one that
//! explains the most packets without error wins.
//!
//! Modules: `flow` holds the per-flow state machine (release choice, `state` learned from
//! the packets, retransmission window); `body` decodes one datagram's header and dispatches
//! on its type to the bodies in `body`, `tics`, `files` and `resynch`; `xd` decodes net
//! commands; `prim` holds the string encodings shared by bodies and commands.

mod detect;
pub mod events;
pub mod facts;
pub mod fields;
mod files;
mod flow;
mod msg;
pub mod notes;
mod prim;
mod resynch;
mod state;
pub mod tables;
mod tics;
mod xd;

use crate::proto::{FlowDecoder, PrefDef, Prefs, Probe, ProbeInput, Protocol, ProtocolInfo, Role};

use tables::Pt;

pub struct Srb2;

pub static PROTOCOL: Srb2 = Srb2;

/// The option that names the release to decode with (`--srb2-version` sets it).
pub const VERSION_PREF: &str = "srb2.version";

static INFO: ProtocolInfo = ProtocolInfo {
    name: "srb2",
    title: "Sonic Robo Blast 2",
    ports: &[(5029, 5029)],
    heuristic: "the 32-bit position-weighted header checksum (seed 0x01234567) matches the datagram",
    prefs: &[PrefDef {
        key: VERSION_PREF,
        values: "2.1.25, 2.2.0 … 2.2.15",
        desc: "Decode with this release's tables instead of detecting the release per flow",
    }],
    fields: &[fields::ALL],
    notes: notes::ALL,
};

/// `NetbufferChecksum` (STJr/SRB2 `src/d_net.c`, unchanged 2.1.25 → 2.2.15): 0x01234567 plus
/// every byte after the checksum field weighted by its 1-based position, modulo 2³².
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
    fn type_fields(&self) -> &'static crate::tree::TypeFields {
        &fields::TYPES
    }
    fn events(&self) -> Option<&'static crate::toolkit::facts::Events> {
        Some(&events::EVENTS)
    }
    fn probe(&self, input: &ProbeInput<'_>) -> Probe {
        let p = input.payload;
        if p.len() < 8 || p.len() > 4096 {
            return Probe::NO;
        }
        if carried_checksum(p) != Some(checksum(p)) {
            return Probe::NO;
        }
        Probe::certain(sender(p[6]))
    }
    fn new_flow(&self, prefs: &Prefs) -> Box<dyn FlowDecoder> {
        Box::new(flow::Flow::new(prefs))
    }
}

/// Types 0–16 mean the same in every release, and most are sent by one side only (STJr/SRB2
/// `src/d_clisrv.c`: the server answers with PT_SERVERCFG … PT_PLAYERINFO, clients send
/// commands, PT_ASKINFO and requests).
fn sender(t: u8) -> Option<Role> {
    match tables::common_type(t)? {
        Pt::SERVERCFG
        | Pt::SERVERTICS
        | Pt::SERVERREFUSE
        | Pt::SERVERSHUTDOWN
        | Pt::SERVERINFO
        | Pt::PLAYERINFO => Some(Role::Server),
        Pt::CLIENTCMD
        | Pt::CLIENTMIS
        | Pt::CLIENT2CMD
        | Pt::CLIENT2MIS
        | Pt::NODEKEEPALIVE
        | Pt::NODEKEEPALIVEMIS
        | Pt::CLIENTQUIT
        | Pt::ASKINFO
        | Pt::REQUESTFILE => Some(Role::Client),
        _ => None,
    }
}

#[cfg(test)]
mod tests;
