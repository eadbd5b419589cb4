//! Quake 3 demo files (`.dm_68`, `.dm_71`, `.dm_72`) as input: records of int32 LE sequence,
//! int32 LE length and the message, until a length of -1 or the end (ioquake3
//! code/client/cl_main.c `CL_ReadDemoMessage`, written by `CL_WriteDemoMessage` and
//! `CL_StopRecord_f`).
//!
//! [`DemoReader`] reads the records; the capture reader turns each message into a pseudo
//! datagram of one fixed flow ([`pseudo_datagram`]) so that the Quake 3 decoder reads it as the
//! server → client side of a connection: frame N is the demo's Nth message.

use std::io::Read;

/// The largest message a client accepts (ioquake3 code/qcommon/qcommon.h `MAX_MSGLEN`); a longer
/// one is an `ERR_DROP` in `CL_ReadDemoMessage`.
pub const MAX_MSGLEN: usize = 16_384;

/// One step of reading a demo.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Item {
    /// A message: its sequence and bytes, and the byte offset of its record.
    Message {
        offset: u64,
        sequence: u32,
        bytes: Vec<u8>,
    },
    /// The end marker (length -1), at this offset.
    End { offset: u64 },
}

/// Why a demo could not be read further, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DemoError {
    pub offset: u64,
    pub message: String,
}

/// Reads one record into `message` (cleared first): `Ok(Some(sequence))` for a message,
/// `Ok(None)` at the end marker or a clean end of input. `head`, when given, is the record's
/// header already read. `offset` is the input offset, advanced by what was read. Never allocates
/// more than [`MAX_MSGLEN`].
pub fn read_record<R: Read>(
    input: &mut R,
    offset: &mut u64,
    head: Option<[u8; 8]>,
    message: &mut Vec<u8>,
) -> Result<Option<u32>, DemoError> {
    let at = *offset - if head.is_some() { 8 } else { 0 };
    let head = match head {
        Some(h) => h,
        None => {
            let mut h = [0u8; 8];
            match fill(input, offset, &mut h)? {
                0 => return Ok(None),
                8 => h,
                got => {
                    let message = format!("demo record header cut off after {got} of 8 bytes");
                    return Err(DemoError {
                        offset: at,
                        message,
                    });
                }
            }
        }
    };
    let sequence = u32::from_le_bytes([head[0], head[1], head[2], head[3]]);
    let len = i32::from_le_bytes([head[4], head[5], head[6], head[7]]);
    if len == -1 {
        return Ok(None);
    }
    let bad_len = |message: String| DemoError {
        offset: at + 4,
        message,
    };
    let Ok(len) = usize::try_from(len) else {
        return Err(bad_len(format!("demo message length {len} is negative")));
    };
    if len > MAX_MSGLEN {
        let m = format!("demo message length {len} is over the game's limit of {MAX_MSGLEN}");
        return Err(bad_len(m));
    }
    message.clear();
    message.resize(len, 0);
    let got = fill(input, offset, message)?;
    if got < len {
        let message = format!("demo message cut off after {got} of {len} bytes");
        return Err(DemoError {
            offset: at + 8,
            message,
        });
    }
    Ok(Some(sequence))
}

/// Reads as much of `buf` as the input holds; how many bytes that was.
fn fill<R: Read>(input: &mut R, offset: &mut u64, buf: &mut [u8]) -> Result<usize, DemoError> {
    let got = super::read_full(input, buf).map_err(|e| DemoError {
        offset: *offset,
        message: format!("read error: {e}"),
    })?;
    *offset += got as u64;
    Ok(got)
}

/// Reads a demo record by record.
pub struct DemoReader<R> {
    input: R,
    offset: u64,
    done: bool,
}

impl<R: Read> DemoReader<R> {
    pub fn new(input: R) -> Self {
        DemoReader {
            input,
            offset: 0,
            done: false,
        }
    }

    /// The next record; `Ok(None)` at the end of the input (after the end marker, or, as the
    /// game accepts it, at a clean end without one). After an error, `Ok(None)`.
    pub fn next_item(&mut self) -> Result<Option<Item>, DemoError> {
        if self.done {
            return Ok(None);
        }
        let at = self.offset;
        let mut bytes = Vec::new();
        match read_record(&mut self.input, &mut self.offset, None, &mut bytes) {
            Ok(Some(sequence)) => Ok(Some(Item::Message {
                offset: at,
                sequence,
                bytes,
            })),
            Ok(None) => {
                self.done = true;
                Ok((self.offset > at).then_some(Item::End { offset: at }))
            }
            Err(e) => {
                self.done = true;
                Err(e)
            }
        }
    }
}

/// Every message of a demo held in memory, in order, up to the end marker.
pub fn messages(bytes: &[u8]) -> Result<Vec<(u32, Vec<u8>)>, DemoError> {
    let mut r = DemoReader::new(bytes);
    let mut out = Vec::new();
    while let Some(item) = r.next_item()? {
        if let Item::Message {
            sequence, bytes, ..
        } = item
        {
            out.push((sequence, bytes));
        }
    }
    Ok(out)
}

/// The pseudo flow of a demo read as input: the server end (a Quake III port, so that the
/// messages go to the client) and the client end (port 0, no Quake III port). No address is real.
pub const SERVER_PORT: u16 = 27960;
pub const CLIENT_PORT: u16 = 0;
/// IPv4 and UDP headers before the pseudo netchan header.
const IP_UDP: usize = 28;

/// Whether the first 8 bytes of an input look like a demo's first record: a sequence below 2^30
/// and a length from 1 to [`MAX_MSGLEN`]. (Text and pcap/pcapng magics fail the first test: their
/// fourth byte is 0x20 or more.)
pub fn looks_like_demo(head: &[u8; 8]) -> bool {
    let seq = u32::from_le_bytes([head[0], head[1], head[2], head[3]]);
    let len = i32::from_le_bytes([head[4], head[5], head[6], head[7]]);
    seq < 1 << 30 && (1..=MAX_MSGLEN as i32).contains(&len)
}

/// Writes into `out` a raw IPv4 packet (link type RAW) carrying `message` from the pseudo server
/// to the pseudo client, behind an ioquake3-layout netchan header: the sequence, and a checksum
/// field of 0 (a demo keeps no netchan header: nothing is keyed, and the decoder has no challenge
/// to check the checksum against).
pub fn pseudo_datagram(out: &mut Vec<u8>, sequence: u32, message: &[u8]) {
    let udp_len = 8 + 8 + message.len();
    let total = IP_UDP - 8 + udp_len;
    out.clear();
    out.extend_from_slice(&[0x45, 0, (total >> 8) as u8, total as u8]);
    out.extend_from_slice(&[0, 0, 0, 0, 64, 17, 0, 0]);
    out.extend_from_slice(&[0; 8]);
    let sum = ipv4_checksum(&out[..20]);
    out[10..12].copy_from_slice(&sum.to_be_bytes());
    out.extend_from_slice(&SERVER_PORT.to_be_bytes());
    out.extend_from_slice(&CLIENT_PORT.to_be_bytes());
    out.extend_from_slice(&(udp_len as u16).to_be_bytes());
    out.extend_from_slice(&[0, 0]);
    out.extend_from_slice(&(sequence & 0x7fff_ffff).to_le_bytes());
    out.extend_from_slice(&[0; 4]);
    out.extend_from_slice(message);
}

fn ipv4_checksum(header: &[u8]) -> u16 {
    let mut sum: u32 = header
        .chunks(2)
        .map(|c| u32::from(u16::from_be_bytes([c[0], c[1]])))
        .sum();
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    !(sum as u16)
}
