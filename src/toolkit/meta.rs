//! What every writer, filter and command is told of the frame a record came from, and which
//! way its datagram went.

use std::net::SocketAddr;

use crate::toolkit::time::Timestamp;

/// Frame-level facts handed to output sinks with each record.
#[derive(Debug, Clone, Copy)]
pub struct Meta<'a> {
    pub frame: u64,
    pub time: Timestamp,
    /// Time of the capture's first frame, for relative times.
    pub base: Timestamp,
    pub src: SocketAddr,
    pub dst: SocketAddr,
    /// `src` and `dst` already formatted (`ip:port`, IPv6 in brackets), once per flow.
    pub src_text: &'a str,
    pub dst_text: &'a str,
    pub payload: &'a [u8],
    /// Flow number (0-based, in order of first appearance).
    pub flow: u64,
    /// Which way the datagram went, when the roles were decided (by a decoder's probe or a
    /// server port); `None` for plain UDP and for flows where the first sender was only taken
    /// to be the client.
    pub direction: Option<Direction>,
}

/// Direction of a datagram within its flow.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Direction {
    ToServer,
    ToClient,
}

impl Direction {
    pub fn as_str(self) -> &'static str {
        match self {
            Direction::ToServer => "client → server",
            Direction::ToClient => "server → client",
        }
    }
}
