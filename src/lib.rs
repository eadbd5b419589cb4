//! gamedissect: dissects the network traffic of classic game and simulator protocols from packet
//! captures.
//!
//! The pipeline (see docs/architecture.md): [`cli`] turns arguments into settings and [`run`]
//! runs them; [`capture`] reads pcap/pcapng; [`net`] unwraps link layers, IP (with reassembly)
//! and UDP; [`engine`] groups datagrams into flows and hands each to the decoder its flow was
//! assigned; decoders under [`protocols`], written against the [`toolkit`], build
//! [`tree::Record`]s from registered fields; [`output`] renders them. Only [`protocols`] knows any
//! game protocol.

pub mod capture;
pub mod cli;
pub mod commands;
pub mod engine;
pub mod filter;
pub mod net;
pub mod output;
pub mod protocols;
pub mod run;
pub mod toolkit;

pub use toolkit::{digest, proto, text, tree, wire};
