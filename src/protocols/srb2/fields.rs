//! Every field the Sonic Robo Blast 2 decoder emits.

crate::field_defs! {
    ROOT = group("srb2", "Sonic Robo Blast 2");
    UNDECODED = bytes("srb2.undecoded", "Not yet decoded").desc("Payload bytes this decoder does not decode yet");
}
