//! FlightGear multiplayer protocol (fgfs ↔ fgms, UDP, default port 5000).
//!
//! This file registers the protocol and holds its probe. Layers, each importing only those
//! below it: `flow.rs` is the per-flow decoder (`Flow`), which remembers the aircraft seen
//! (callsign, model, last chat line) so that a chat line is shown once, when it changes, and
//! `stats` can list the aircraft; [`msg`] decodes one datagram (header, legacy chat, dispatch),
//! [`position`] the position block, [`property`] the property section in both encodings;
//! [`prim`] holds what they share, [`constants`] the wire constants, [`tables`] the 420-entry
//! property table of FlightGear 2020.3, [`geo`] derives the geodetic position and attitude,
//! [`notes`] registers the expert notes.
//!
//! Sources: FlightGear 2020.3 (github.com/FlightGear/flightgear, tag `version/2020.3.11`)
//! `src/MultiPlayer/mpmessages.hxx` and `multiplaymgr.cxx`; SimGear `simgear/props/props.hxx`
//! and `simgear/math/SGQuat.hxx`; fgms (github.com/FlightGear/fgms) `src/server/fg_server.cxx`
//! and `src/flightgear/MultiPlayer/mpmessages.hxx`.

pub mod constants;
pub mod events;
pub mod facts;
pub mod fields;
mod flow;
pub mod geo;
pub mod msg;
pub mod notes;
pub mod position;
pub mod prim;
pub mod property;
pub mod tables;

use crate::proto::{FlowDecoder, Prefs, Probe, ProbeInput, Protocol, ProtocolInfo};

use flow::Flow;

pub struct FlightGear;

pub static PROTOCOL: FlightGear = FlightGear;

static INFO: ProtocolInfo = ProtocolInfo {
    name: "flightgear",
    title: "FlightGear multiplayer protocol",
    ports: &[(5000, 5002)],
    heuristic: "the FGFS/SFGF magic followed by the version word 0x00010001",
    prefs: &[],
    fields: &[fields::ALL],
    notes: notes::ALL,
};

/// Content probe, after the receivers' own checks (FlightGear `FGMultiplayMgr::update`, fgms
/// `FG_SERVER::PacketIsValid`): the magic alone is four fixed ASCII bytes; with the version
/// word 0x00010001 behind it the datagram is FlightGear MP on any port. Content does not tell
/// the sender's role (fgms forwards client datagrams unchanged), so no role is claimed.
pub fn probe_payload(p: &[u8]) -> Probe {
    let word = |o: usize| {
        p.get(o..o + 4)
            .map(|b| u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    };
    if word(0).is_none_or(|m| constants::Magic(m).name().is_none()) {
        return Probe::NO;
    }
    match word(4) {
        Some(constants::PROTO_VER) => Probe::certain(None),
        _ => Probe::likely(None),
    }
}

impl Protocol for FlightGear {
    fn info(&self) -> &'static ProtocolInfo {
        &INFO
    }
    fn events(&self) -> Option<&'static crate::toolkit::facts::Events> {
        Some(&events::EVENTS)
    }
    fn probe(&self, input: &ProbeInput<'_>) -> Probe {
        probe_payload(input.payload)
    }
    fn new_flow(&self, _prefs: &Prefs) -> Box<dyn FlowDecoder> {
        Box::new(Flow::default())
    }
}

#[cfg(test)]
mod tests;
