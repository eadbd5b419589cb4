//! Generators of the hand-made captures in `captures/`, for protocols or situations the real
//! programs could not produce here. Every datagram is built from the upstream source or
//! specification its comment names; the tests check the committed files equal these bytes.

pub mod escape;
pub mod flightgear;
pub mod gamestudio;
pub mod srb2;
pub mod udp_mixed;

/// Every hand-made capture: (file name under `captures/`, bytes).
pub fn all() -> Vec<(&'static str, Vec<u8>)> {
    let mut v = srb2::all();
    v.extend(gamestudio::all());
    v.extend(flightgear::all());
    v.extend(udp_mixed::all());
    v
}
