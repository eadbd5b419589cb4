//! Every field the FlightGear multiplayer protocol decoder emits.

crate::field_defs! {
    ROOT = group("flightgear", "FlightGear multiplayer protocol");
    UNDECODED = bytes("flightgear.undecoded", "Not yet decoded").desc("Payload bytes this decoder does not decode yet");
}
