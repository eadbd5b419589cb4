//! Every field the 3D GameStudio (Acknex) A5 and A6+ decoder emits.

crate::field_defs! {
    ROOT = group("gamestudio", "3D GameStudio (Acknex) A5 and A6+");
    UNDECODED = bytes("gamestudio.undecoded", "Not yet decoded").desc("Payload bytes this decoder does not decode yet");
}
