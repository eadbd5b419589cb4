//! The decoder toolkit: what every protocol decoder is written against.
//!
//! - [`proto`]: the interface between the plumbing and a decoder (`Protocol`, `FlowDecoder`,
//!   `Datagram`).
//! - [`tree`]: registered fields (`FieldDef`) and registered expert notes (`NoteDef`), the nodes
//!   built from them and the `TreeBuilder`.
//! - [`wire`]: checked byte reads (`Cursor`), named field ranges (`Field`), and the `Dissector`
//!   that reads a value and adds its field in one call, returning `Step`.
//! - [`digest`]: FNV-1a fingerprints of bytes and words.
//! - [`enums`]: `open_enum!`, opcodes and constants with their names in one place; a value
//!   without a name survives as its number.
//! - [`facts`]: the vocabulary of game events (`Event`, `Label`, `At`, `KindDef`) that protocols
//!   produce and `gamedissect events` writes; [`lookup`]: reading a decoded record's fields by
//!   name.
//!
//! Crate-level aliases (`crate::tree`, `crate::wire`, `crate::proto`) point here.

pub mod digest;
pub mod enums;
pub mod facts;
pub mod lookup;
pub mod meta;
pub mod proto;
pub mod text;
pub mod time;
pub mod tree;
pub mod udp;
pub mod wire;
