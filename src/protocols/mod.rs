//! The protocol registry. Each protocol lives in its own folder with the same shape:
//!
//! - `mod.rs`: the [`Protocol`] registration (name, ports, probe, preferences) and the decoder's
//!   entry point;
//! - `fields.rs`: every field the protocol emits, declared with [`crate::field_defs!`];
//! - `facts.rs` and `events.rs`, for a protocol the commands read games from: typed views of its
//!   decoded records (no command spells a protocol's field names), and the game events it
//!   offers through [`Protocol::events`];
//! - further modules for the protocol's layers, each with its unit tests beside it.
//!
//! Adding a protocol: copy a folder's shape, then add it to [`all`].

use crate::proto::Protocol;

pub mod flightgear;
pub mod gamestudio;
pub mod quake3;
pub mod srb2;

/// Every registered protocol, in the order that breaks ties between equally sure probes.
pub fn all() -> Vec<&'static dyn Protocol> {
    // Strongest content evidence first: FlightGear's magic, Quake 3's marker, SRB2's checksum,
    // then GameStudio, whose evidence is the weakest.
    vec![
        &flightgear::PROTOCOL,
        &quake3::PROTOCOL,
        &srb2::PROTOCOL,
        &gamestudio::PROTOCOL,
    ]
}

/// The registry index of the protocol with this short name.
pub fn index_of(protocols: &[&'static dyn Protocol], name: &str) -> Option<usize> {
    protocols.iter().position(|p| p.info().name == name)
}
