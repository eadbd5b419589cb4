//! Quake 3 demo files (`.dm_68`, `.dm_71`, `.dm_72`) as input: records of int32 LE sequence,
//! int32 LE length and the message, until a length of -1 or the end (ioquake3
//! code/client/cl_main.c `CL_ReadDemoMessage`, written by `CL_WriteDemoMessage` and
//! `CL_StopRecord_f`).
//!
//! [`DemoReader`] reads the records; the capture reader turns each message into a pseudo
//! datagram of one fixed flow ([`pseudo_datagram`]) so that the Quake 3 decoder reads it as the
//! server → client side of a connection: frame N is the demo's Nth message.

use std::collections::VecDeque;
use std::io::Read;

use crate::protocols::quake3::bits::BitReader;

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
/// The bytes of a pseudo datagram the demo does not hold (see `Packet::pseudo`).
pub const PSEUDO_HEADERS: u32 = IP_UDP as u32;

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

/// Server message operations read by [`glance`] (ioquake3 code/qcommon/qcommon.h `svc_ops_e`).
const SVC_NOP: u8 = 1;
const SVC_GAMESTATE: u8 = 2;
const SVC_CONFIGSTRING: u8 = 3;
const SVC_SERVER_COMMAND: u8 = 5;
const SVC_SNAPSHOT: u8 = 7;

/// What the start of a demo message tells, read as ioquake3 code/client/cl_parse.c
/// `CL_ParseServerMessage` reads it: the reliable acknowledge (a long), then operations. Every
/// read up to a snapshot's server time or the first configstring's text is a whole number of
/// bytes, so only Huffman symbols are read (code/qcommon/msg.c `MSG_ReadBits`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Glance {
    /// The snapshot's server time (`svc_snapshot`'s first long), in milliseconds.
    pub server_time: Option<i64>,
    /// A gamestate's serverinfo (configstring 0) `protocol` key.
    pub protocol: Option<u32>,
}

/// Reads the start of `message` (see [`Glance`]); what it cannot read is left `None`.
pub fn glance(message: &[u8]) -> Glance {
    let mut g = Glance::default();
    let _ = glance_into(&mut BitReader::new(message), &mut g);
    g
}

fn byte(r: &mut BitReader<'_>) -> Option<u8> {
    r.bits(8).ok().map(|v| v as u8)
}

fn long(r: &mut BitReader<'_>) -> Option<i64> {
    r.bits(32).ok().map(|v| i64::from(v as u32 as i32))
}

/// `MSG_ReadString`/`MSG_ReadBigString`: bytes up to a 0, at most `max`.
fn string(r: &mut BitReader<'_>, max: usize) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    while out.len() < max {
        match byte(r)? {
            0 => break,
            c => out.push(c),
        }
    }
    Some(out)
}

fn glance_into(r: &mut BitReader<'_>, g: &mut Glance) -> Option<()> {
    long(r)?;
    for _ in 0..64 {
        match byte(r)? {
            SVC_NOP => {}
            SVC_SERVER_COMMAND => {
                long(r)?;
                string(r, 1024)?;
            }
            SVC_SNAPSHOT => {
                g.server_time = Some(long(r)?.max(0));
                return Some(());
            }
            SVC_GAMESTATE => {
                long(r)?;
                if byte(r)? != SVC_CONFIGSTRING || r.bits(16).ok()? != 0 {
                    return Some(());
                }
                g.protocol = info_protocol(&string(r, 8192)?);
                return Some(());
            }
            _ => return Some(()),
        }
    }
    Some(())
}

/// The `protocol` key of an info string (`\key\value…`; keys compared without case, as
/// code/qcommon/q_shared.c `Info_ValueForKey` does).
fn info_protocol(info: &[u8]) -> Option<u32> {
    let mut parts = info.split(|&b| b == b'\\').skip(1);
    while let (Some(k), Some(v)) = (parts.next(), parts.next()) {
        if k.eq_ignore_ascii_case(b"protocol") {
            return std::str::from_utf8(v).ok()?.parse().ok();
        }
    }
    None
}

/// The game of a demo protocol gamedissect does not decode, by its number: Quake 3 1.27's
/// (48, before the 1.30 entity and player state fields) and Quake Live's (73, 90, 91: more
/// fields and configstrings; brugal/wolfcamql code/client/cl_parse.c, myT/uberdemotools
/// `Demo73`/`Demo90`).
pub fn foreign(protocol: u32) -> Option<&'static str> {
    match protocol {
        48 => Some("Quake 3 1.27"),
        73 | 90 | 91 => Some("Quake Live"),
        _ => None,
    }
}

/// A demo message ready to be handed on: its record's offset, sequence, bytes and time (ms).
#[derive(Debug)]
pub struct Timed {
    pub offset: u64,
    pub sequence: u32,
    pub message: Vec<u8>,
    pub ms: i64,
}

/// How many records are read ahead for the time of those before the first snapshot.
const LOOK_AHEAD: usize = 64;

/// Reads a demo's records and times them by the snapshots' server times: a snapshot at its own
/// server time, any other message at the last snapshot's, and those before the first snapshot
/// at the first snapshot's (looked for up to `LOOK_AHEAD` records ahead; 0 when none is
/// there). A server time below the last one (a new map's clock, restarted by the server) does
/// not turn the records' clock back: from there on the records' time is the server time plus
/// what the clock had reached. A gamestate of a protocol [`foreign`] names is an error.
#[derive(Debug, Default)]
pub struct Timing {
    first: Option<[u8; 8]>,
    ahead: VecDeque<(u64, u32, Vec<u8>)>,
    failed: Option<DemoError>,
    ended: bool,
    /// The last record's time, and the last server time read.
    last: Option<i64>,
    last_server: Option<i64>,
    /// Added to server times: what the clock had reached at each restart.
    shift: i64,
}

impl Timing {
    /// With the first record's header, already read.
    pub fn new(first: [u8; 8]) -> Timing {
        Timing {
            first: Some(first),
            ..Timing::default()
        }
    }

    fn read<R: Read>(&mut self, input: &mut R, offset: &mut u64) {
        if self.ended {
            return;
        }
        let head = self.first.take();
        let at = *offset - if head.is_some() { 8 } else { 0 };
        let mut message = Vec::new();
        match read_record(input, offset, head, &mut message) {
            Ok(Some(sequence)) => self.ahead.push_back((at, sequence, message)),
            Ok(None) => self.ended = true,
            Err(e) => {
                self.ended = true;
                self.failed = Some(e);
            }
        }
    }

    /// The next message, `Ok(None)` at the end; an error after every whole message before it.
    pub fn next<R: Read>(
        &mut self,
        input: &mut R,
        offset: &mut u64,
    ) -> Result<Option<Timed>, DemoError> {
        if self.ahead.is_empty() {
            self.read(input, offset);
        }
        let Some((at, sequence, message)) = self.ahead.pop_front() else {
            return match self.failed.take() {
                Some(e) => Err(e),
                None => Ok(None),
            };
        };
        let g = glance(&message);
        if let Some((p, game)) = g.protocol.and_then(|p| Some((p, foreign(p)?))) {
            self.ended = true;
            self.ahead.clear();
            return Err(DemoError {
                offset: at,
                message: format!("demo of {game} (protocol {p}): not decoded"),
            });
        }
        let ms = match (g.server_time, self.last) {
            (Some(t), _) => {
                if let Some(l) = self.last_server.filter(|&l| t < l) {
                    self.shift += l - t;
                }
                self.last_server = Some(t);
                t + self.shift
            }
            (None, Some(ms)) => ms,
            (None, None) => self.first_snapshot_time(input, offset),
        };
        self.last = Some(ms);
        Ok(Some(Timed {
            offset: at,
            sequence,
            message,
            ms,
        }))
    }

    fn first_snapshot_time<R: Read>(&mut self, input: &mut R, offset: &mut u64) -> i64 {
        let mut i = 0;
        while i < LOOK_AHEAD {
            if i == self.ahead.len() {
                self.read(input, offset);
                if i == self.ahead.len() {
                    return 0;
                }
            }
            if let Some(ms) = glance(&self.ahead[i].2).server_time {
                return ms;
            }
            i += 1;
        }
        0
    }
}
