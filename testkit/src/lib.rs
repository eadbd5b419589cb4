//! Test-only support for gamedissect, kept out of the library: builders of frames and capture
//! files ([`synth`]), of FlightGear datagrams ([`flightgear`]) and of Quake 3 server messages
//! ([`quake3`]), the generators of the
//! hand-made captures ([`captures`]), fuzz seeds ([`fuzz_seeds`]), helpers that decode a
//! capture for tests ([`dissect`]), one that spreads a test's cases over the cores
//! ([`par`]), and the measure of the Quake 3 key recovery on cut and thinned captures
//! ([`recovery`]).
//!
//! gamedissect's own unit tests use the byte builders through a dev-dependency; the values they
//! return are plain bytes, so the two builds of the library never meet.

pub mod captures;
pub mod collide;
pub mod dissect;
pub mod flightgear;
pub mod fuzz_seeds;
pub mod hostile;
pub mod inject;
pub mod par;
pub mod quake3;
pub mod recovery;
pub mod score;
pub mod synth;
