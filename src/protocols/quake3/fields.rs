//! Every field the Quake III Arena (id 1.32, ioquake3, OpenArena) decoder emits.

crate::field_defs! {
    ROOT = group("quake3", "Quake III Arena (id 1.32, ioquake3, OpenArena)");
    UNDECODED = bytes("quake3.undecoded", "Not yet decoded").desc("Payload bytes this decoder does not decode yet");
}
