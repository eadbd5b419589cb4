//! Reading pcap and pcapng, from a file or a stream, with the format taken from the magic.
//!
//! Written here rather than taken from pcap-file or pcap-parser (see docs/architecture.md): we need
//! the byte offset of every record for located errors, a hard cap on record and block lengths so a
//! lying length never allocates gigabytes, per-interface link types and timestamp resolutions in
//! pcapng, and a reader that stops cleanly at the first unrecoverable record instead of repeating
//! the same error. Both formats are short enough that owning the code costs less than working
//! around either crate.

pub mod pcapng_write;
pub mod q3demo;
pub mod source;

pub use crate::toolkit::time::Timestamp;
pub use source::Input;

use std::io::{self, BufRead, Read};

/// Largest record or block we accept. Wireshark's own limit for most link types is 256 KiB; we
/// leave room for large pcapng blocks (name resolution, custom) while bounding memory.
pub const MAX_RECORD: usize = 16 * 1024 * 1024;
/// Interfaces per pcapng section we track; more is treated as a malformed file.
pub const MAX_INTERFACES: usize = 65_536;

/// A file-level failure, located by byte offset.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CaptureError {
    pub offset: u64,
    pub message: String,
}

impl std::fmt::Display for CaptureError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "at byte {}: {}", self.offset, self.message)
    }
}

impl std::error::Error for CaptureError {}

/// The container format detected from the magic.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Pcap {
        big_endian: bool,
        nanos: bool,
    },
    PcapNg,
    /// A Quake 3 demo, read as one pseudo flow (`demo`).
    Demo,
}

/// One captured packet, borrowed from the reader's buffer.
#[derive(Debug, Clone, Copy)]
pub struct Packet<'a> {
    pub data: &'a [u8],
    /// Length on the wire; larger than `data.len()` when the snaplen cut the packet.
    pub orig_len: u32,
    pub time: Timestamp,
    pub linktype: u32,
    pub interface: u32,
    /// Byte offset of the record in the input.
    pub offset: u64,
    /// Bytes at the start of `data` the input does not hold: the pseudo IPv4 and UDP headers
    /// of a demo message (its record's own 8-byte header stands for the pseudo netchan header,
    /// so the rest is as long as the record); 0 for a capture.
    pub pseudo: u32,
}

impl Packet<'_> {
    pub fn truncated(&self) -> bool {
        (self.data.len() as u64) < self.orig_len as u64
    }
}

/// What the reader yields.
#[derive(Debug)]
pub enum Event<'a> {
    Packet(Packet<'a>),
    /// A record whose framing is intact but whose content is unusable; reading goes on.
    BadRecord(CaptureError),
    /// A live input asked to ([`source::Input::report_quiet`]) says nothing has arrived for a
    /// while; reading goes on, from the next record.
    Quiet,
}

#[derive(Debug, Clone, Copy)]
enum Resolution {
    /// 10^-n seconds per unit.
    Decimal(u8),
    /// 2^-n seconds per unit.
    Binary(u8),
}

#[derive(Debug, Clone, Copy)]
struct Interface {
    linktype: u32,
    resolution: Resolution,
    offset_secs: i64,
    snaplen: u32,
    /// The `if_tsresol` byte as the file holds it (6 when absent), whatever `resolution` made
    /// of it: a copy of the interface keeps the file's own reading.
    tsresol: u8,
}

/// What the capture says of an interface, as a pcapng writer needs it to describe the same
/// interface: the packets' timestamps, in [`CaptureReader::timestamp_units`], then mean the
/// same instants.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InterfaceInfo {
    pub linktype: u32,
    pub snaplen: u32,
    /// `if_tsresol`: 10^-n seconds a unit, or 2^-n with the top bit set; 6 by default.
    pub tsresol: u8,
    /// `if_tsoffset`: seconds added to every timestamp.
    pub tsoffset: i64,
}

#[derive(Debug)]
enum State {
    Pcap {
        big_endian: bool,
        nanos: bool,
        linktype: u32,
        snaplen: u32,
    },
    PcapNg {
        big_endian: bool,
        interfaces: Vec<Interface>,
    },
    /// A demo, its records timed (the first record's header was read during detection).
    Demo(q3demo::Timing),
}

/// A streaming reader; one buffer is reused for every record.
pub struct CaptureReader<R: BufRead> {
    input: R,
    offset: u64,
    buf: Vec<u8>,
    /// Bytes of the input's buffer that the last packet was read from in place: consumed when
    /// the next one is read (the packet borrows them until then).
    consume: usize,
    state: State,
    format: Format,
    /// pcapng: the first block's bytes already consumed during detection.
    pending_first_block: bool,
    /// pcapng: section header blocks read.
    sections: u64,
    /// The last packet's timestamp as the file holds it, in its interface's units.
    units: u64,
    /// pcapng: where the last packet block's options are in `buf` (empty for none).
    options: std::ops::Range<usize>,
}

const PCAPNG_SHB: u32 = 0x0A0D_0D0A;
const PCAPNG_IDB: u32 = 1;
const PCAPNG_OPB: u32 = 2;
const PCAPNG_SPB: u32 = 3;
const PCAPNG_EPB: u32 = 6;

/// Reads until `buf` is full or the input ends; returns how many bytes were read. A live input
/// gone quiet inside a record is waited for: the record is read whole.
pub(crate) fn read_full<R: Read>(r: &mut R, buf: &mut [u8]) -> io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match r.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted || source::is_quiet(&e) => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

/// The packet of a pcap record: header `head`, captured bytes `data`, starting at `start`.
fn pcap_event(
    head: [u8; 16],
    data: &[u8],
    start: u64,
    big_endian: bool,
    nanos: bool,
    linktype: u32,
) -> Event<'_> {
    let secs = u32_at(&head, 0, big_endian);
    let frac = u32_at(&head, 4, big_endian);
    let orig = u32_at(&head, 12, big_endian);
    if frac >= if nanos { 1_000_000_000 } else { 1_000_000 } {
        return Event::BadRecord(CaptureError {
            offset: start,
            message: format!("timestamp fraction {frac} out of range; record skipped"),
        });
    }
    let (nanos_v, digits) = if nanos {
        (frac, 9)
    } else {
        (frac.saturating_mul(1000), 6)
    };
    Event::Packet(Packet {
        data,
        orig_len: orig.max(data.len() as u32),
        time: Timestamp::new(secs as i64, nanos_v, digits),
        linktype,
        interface: 0,
        offset: start,
        pseudo: 0,
    })
}

fn u16_at(b: &[u8], at: usize, be: bool) -> u16 {
    let a = [b[at], b[at + 1]];
    if be {
        u16::from_be_bytes(a)
    } else {
        u16::from_le_bytes(a)
    }
}

fn u32_at(b: &[u8], at: usize, be: bool) -> u32 {
    let a = [b[at], b[at + 1], b[at + 2], b[at + 3]];
    if be {
        u32::from_be_bytes(a)
    } else {
        u32::from_le_bytes(a)
    }
}

impl<R: BufRead> CaptureReader<R> {
    /// Reads the magic and the file header; fails with a located error on anything else.
    pub fn new(mut input: R) -> Result<CaptureReader<R>, CaptureError> {
        let mut magic = [0u8; 4];
        let n = read_full(&mut input, &mut magic).map_err(|e| io_error(0, e))?;
        if n < 4 {
            return Err(CaptureError {
                offset: 0,
                message: if n == 0 {
                    "empty input, not a pcap, pcapng or Quake 3 demo file".into()
                } else {
                    format!("input ends after {n} bytes, too short for a capture file header")
                },
            });
        }
        let pcap = match magic {
            [0xd4, 0xc3, 0xb2, 0xa1] => Some((false, false)),
            [0xa1, 0xb2, 0xc3, 0xd4] => Some((true, false)),
            [0x4d, 0x3c, 0xb2, 0xa1] => Some((false, true)),
            [0xa1, 0xb2, 0x3c, 0x4d] => Some((true, true)),
            _ => None,
        };
        if let Some((big_endian, nanos)) = pcap {
            let mut head = [0u8; 20];
            let n = read_full(&mut input, &mut head).map_err(|e| io_error(4, e))?;
            if n < 20 {
                return Err(CaptureError {
                    offset: 4 + n as u64,
                    message: format!("pcap file header cut off ({} of 24 bytes)", 4 + n),
                });
            }
            // The top bits of the link-type word carry FCS information, not the link type.
            let linktype = u32_at(&head, 16, big_endian) & 0x0fff_ffff;
            let snaplen = u32_at(&head, 12, big_endian);
            return Ok(CaptureReader {
                input,
                offset: 24,
                buf: Vec::with_capacity(65_536),
                consume: 0,
                state: State::Pcap {
                    big_endian,
                    nanos,
                    linktype,
                    snaplen,
                },
                format: Format::Pcap { big_endian, nanos },
                pending_first_block: false,
                sections: 0,
                units: 0,
                options: 0..0,
            });
        }
        if magic == [0x0a, 0x0d, 0x0d, 0x0a] {
            return Ok(CaptureReader {
                input,
                offset: 0,
                buf: Vec::with_capacity(65_536),
                consume: 0,
                state: State::PcapNg {
                    big_endian: false,
                    interfaces: Vec::new(),
                },
                format: Format::PcapNg,
                pending_first_block: true,
                sections: 0,
                units: 0,
                options: 0..0,
            });
        }
        if let Some(reader) = Self::demo(input, magic)? {
            return Ok(reader);
        }
        let hint = match magic {
            [0x1f, 0x8b, _, _] => {
                "; it is gzip-compressed: decompress it first (zcat FILE | gamedissect dissect -)"
            }
            [0xa1, 0xb2, 0xcd, 0x34] | [0x34, 0xcd, 0xb2, 0xa1] => {
                "; modified (Kuznetzov) pcap is not supported"
            }
            _ => "",
        };
        Err(CaptureError {
            offset: 0,
            message: format!(
                "not a pcap, pcapng or Quake 3 demo file (magic {:02x} {:02x} {:02x} {:02x}){hint}",
                magic[0], magic[1], magic[2], magic[3]
            ),
        })
    }

    /// A demo reader when the input's first 8 bytes look like a demo record, else `Ok(None)`:
    /// this is the last format tried, so only an input no other reader takes gets here, and
    /// its four bytes after the magic are then consumed whatever it is.
    fn demo(mut input: R, magic: [u8; 4]) -> Result<Option<CaptureReader<R>>, CaptureError> {
        let mut head = [0u8; 8];
        head[..4].copy_from_slice(&magic);
        let n = read_full(&mut input, &mut head[4..]).map_err(|e| io_error(4, e))?;
        if n < 4 || !q3demo::looks_like_demo(&head) {
            return Ok(None);
        }
        Ok(Some(CaptureReader {
            input,
            offset: 8,
            buf: Vec::with_capacity(q3demo::MAX_MSGLEN + 64),
            consume: 0,
            state: State::Demo(q3demo::Timing::new(head)),
            format: Format::Demo,
            pending_first_block: false,
            sections: 0,
            units: 0,
            options: 0..0,
        }))
    }

    /// The next demo message as a pseudo datagram (see [`q3demo::pseudo_datagram`]).
    fn next_demo(&mut self) -> Result<Option<Event<'_>>, CaptureError> {
        let State::Demo(timing) = &mut self.state else {
            unreachable!("demo state checked by caller")
        };
        let timed = match timing.next(&mut self.input, &mut self.offset) {
            Ok(Some(t)) => t,
            Ok(None) => return Ok(None),
            Err(e) => {
                return Err(CaptureError {
                    offset: e.offset,
                    message: e.message,
                });
            }
        };
        q3demo::pseudo_datagram(&mut self.buf, timed.sequence, &timed.message);
        let ms = timed.ms;
        Ok(Some(Event::Packet(Packet {
            data: &self.buf,
            orig_len: self.buf.len() as u32,
            time: Timestamp::new(ms / 1000, (ms % 1000) as u32 * 1_000_000, 6),
            linktype: crate::net::linktype::RAW,
            interface: 0,
            offset: timed.offset,
            pseudo: q3demo::PSEUDO_HEADERS,
        })))
    }

    pub fn format(&self) -> Format {
        self.format
    }

    /// Bytes consumed so far.
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// Interface `id` of the current section, as described so far (pcap: interface 0).
    pub fn interface(&self, id: u32) -> Option<InterfaceInfo> {
        match &self.state {
            State::Pcap {
                nanos,
                linktype,
                snaplen,
                ..
            } => (id == 0).then_some(InterfaceInfo {
                linktype: *linktype,
                snaplen: *snaplen,
                tsresol: if *nanos { 9 } else { 6 },
                tsoffset: 0,
            }),
            State::PcapNg { interfaces, .. } => {
                let i = interfaces.get(id as usize)?;
                Some(InterfaceInfo {
                    linktype: i.linktype,
                    snaplen: i.snaplen,
                    tsresol: i.tsresol,
                    tsoffset: i.offset_secs,
                })
            }
            State::Demo(_) => None,
        }
    }

    /// Section header blocks read so far: interface numbers start again at each (pcap: 0).
    pub fn section(&self) -> u64 {
        self.sections
    }

    /// The last packet's timestamp as the file holds it, in its interface's units
    /// ([`InterfaceInfo::tsresol`], before `tsoffset`): what a copy writes to keep it exact.
    /// 0 for a simple packet block, which has none, and for a demo.
    pub fn timestamp_units(&self) -> u64 {
        self.units
    }

    /// The packet comments (`opt_comment`) of the last packet block, invalid UTF-8 replaced;
    /// none for pcap. Read on demand: decoding never pays for them.
    pub fn comments(&self) -> Vec<String> {
        let be = match self.state {
            State::PcapNg { big_endian, .. } => big_endian,
            _ => return Vec::new(),
        };
        let Some(mut options) = self.buf.get(self.options.clone()) else {
            return Vec::new();
        };
        let mut found = Vec::new();
        while options.len() >= 4 {
            let code = u16_at(options, 0, be);
            let len = u16_at(options, 2, be) as usize;
            let Some(value) = options.get(4..4 + len) else {
                break;
            };
            match code {
                0 => break,
                1 => found.push(String::from_utf8_lossy(value).into_owned()),
                _ => {}
            }
            options = options.get(4 + len.div_ceil(4) * 4..).unwrap_or_default();
        }
        found
    }

    /// The next packet, `Ok(None)` at a clean end of input, or a located error at a record that
    /// cannot be read (after which the reader must not be used again).
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> Result<Option<Event<'_>>, CaptureError> {
        self.input.consume(std::mem::take(&mut self.consume));
        if self.gone_quiet()? {
            return Ok(Some(Event::Quiet));
        }
        match self.state {
            State::Pcap { .. } => self.next_pcap(),
            State::PcapNg { .. } => self.next_pcapng(),
            State::Demo { .. } => self.next_demo(),
        }
    }

    /// Whether a live input went quiet, asked between records: the one place it is worth
    /// saying (inside a record the rest is waited for). A read error is reported here, where it
    /// was met (a live input that failed then reads as ended).
    fn gone_quiet(&mut self) -> Result<bool, CaptureError> {
        match self.input.fill_buf() {
            Err(e) if source::is_quiet(&e) => Ok(true),
            Err(e) if e.kind() != io::ErrorKind::Interrupted => Err(io_error(self.offset, e)),
            _ => Ok(false),
        }
    }

    fn next_pcap(&mut self) -> Result<Option<Event<'_>>, CaptureError> {
        let State::Pcap {
            big_endian,
            nanos,
            linktype,
            ..
        } = self.state
        else {
            unreachable!("pcap state checked by caller")
        };
        let start = self.offset;
        // A record wholly inside the input's buffer is read where it lies (no copy); one that
        // straddles the buffer's end is copied together below. (A read error here is left for
        // the copying path to meet again and report.)
        let mut head = [0u8; 16];
        let in_place = match self.input.fill_buf() {
            Ok(b) if b.len() >= 16 => {
                head.copy_from_slice(&b[..16]);
                let incl = u32_at(&head, 8, big_endian) as usize;
                (incl <= MAX_RECORD && b.len() - 16 >= incl).then_some(incl)
            }
            _ => None,
        };
        if let Some(incl) = in_place {
            self.units = pcap_units(&head, big_endian, nanos);
            self.consume = 16 + incl;
            self.offset = start + 16 + incl as u64;
            let b = self.input.fill_buf().map_err(|e| io_error(start, e))?;
            return Ok(Some(pcap_event(
                head,
                &b[16..16 + incl],
                start,
                big_endian,
                nanos,
                linktype,
            )));
        }
        let n = read_full(&mut self.input, &mut head).map_err(|e| io_error(start, e))?;
        if n == 0 {
            return Ok(None);
        }
        if n < 16 {
            return Err(CaptureError {
                offset: start,
                message: format!("file cut off inside a record header ({n} of 16 bytes)"),
            });
        }
        let incl = u32_at(&head, 8, big_endian) as usize;
        if incl > MAX_RECORD {
            return Err(CaptureError {
                offset: start,
                message: format!(
                    "record claims {incl} captured bytes, more than the {MAX_RECORD}-byte limit"
                ),
            });
        }
        self.units = pcap_units(&head, big_endian, nanos);
        self.buf.resize(incl, 0);
        let got = read_full(&mut self.input, &mut self.buf).map_err(|e| io_error(start + 16, e))?;
        self.offset = start + 16 + got as u64;
        if got < incl {
            return Err(CaptureError {
                offset: start,
                message: format!(
                    "file cut off inside a record: {incl} bytes declared, {got} present"
                ),
            });
        }
        Ok(Some(pcap_event(
            head, &self.buf, start, big_endian, nanos, linktype,
        )))
    }

    fn next_pcapng(&mut self) -> Result<Option<Event<'_>>, CaptureError> {
        loop {
            let Some(block) = self.read_block()? else {
                return Ok(None);
            };
            let State::PcapNg {
                big_endian,
                interfaces,
            } = &mut self.state
            else {
                unreachable!("pcapng state")
            };
            match block.kind {
                PCAPNG_SHB => {
                    *big_endian = block.be;
                    interfaces.clear();
                    self.sections += 1;
                }
                PCAPNG_IDB => {
                    let body = &self.buf[..block.body_len];
                    if let Some(bad) = add_interface(interfaces, body, &block)? {
                        return Ok(Some(Event::BadRecord(bad)));
                    }
                }
                PCAPNG_EPB | PCAPNG_OPB | PCAPNG_SPB => {
                    let body = &self.buf[..block.body_len];
                    let seen = (&mut self.units, &mut self.options);
                    return Ok(Some(packet_event(body, interfaces, &block, seen)));
                }
                _ => {} // statistics, name resolution, custom blocks: nothing to dissect
            }
            // A block that is no packet ends a record too: a quiet spell after it is said now,
            // not waited through (it is said once per spell).
            if self.gone_quiet()? {
                return Ok(Some(Event::Quiet));
            }
        }
    }

    /// Reads the next pcapng block into `buf` (its body and trailer), checking its lengths;
    /// `Ok(None)` at a clean end of input.
    fn read_block(&mut self) -> Result<Option<Block>, CaptureError> {
        let start = self.offset;
        let Some((kind, be, consumed, total)) = self.read_block_head(start)? else {
            return Ok(None);
        };
        let rest = total - consumed;
        self.buf.resize(rest, 0);
        let got = read_full(&mut self.input, &mut self.buf)
            .map_err(|e| io_error(start + consumed as u64, e))?;
        self.offset = start + (consumed + got) as u64;
        if got < rest {
            return Err(CaptureError {
                offset: start,
                message: format!(
                    "file cut off inside a block: {total} bytes declared, {} present",
                    consumed + got
                ),
            });
        }
        let trailer = u32_at(&self.buf, rest - 4, be) as usize;
        if trailer != total {
            return Err(CaptureError {
                offset: start,
                message: format!("block length {total} does not match its trailing copy {trailer}"),
            });
        }
        Ok(Some(Block {
            start,
            kind,
            be,
            total,
            body_len: rest - 4,
        }))
    }

    /// A block's type and total length, with the byte order (a section header block brings its
    /// own) and the bytes read so far. The length is checked against [`MAX_RECORD`].
    fn read_block_head(
        &mut self,
        start: u64,
    ) -> Result<Option<(u32, bool, usize, usize)>, CaptureError> {
        let mut head = [0u8; 8];
        let n = if self.pending_first_block {
            // The first four bytes (the SHB type) were consumed by the magic check.
            self.pending_first_block = false;
            head[..4].copy_from_slice(&PCAPNG_SHB.to_le_bytes());
            4 + read_full(&mut self.input, &mut head[4..]).map_err(|e| io_error(start + 4, e))?
        } else {
            read_full(&mut self.input, &mut head).map_err(|e| io_error(start, e))?
        };
        if n == 0 {
            return Ok(None);
        }
        if n < 8 {
            return Err(CaptureError {
                offset: start,
                message: format!("file cut off inside a block header ({n} of 8 bytes)"),
            });
        }
        let State::PcapNg { big_endian, .. } = self.state else {
            unreachable!("pcapng state")
        };
        let mut be = big_endian;
        let mut consumed = 8usize;
        if u32_at(&head, 0, be) == PCAPNG_SHB {
            be = self.read_section_byte_order(start)?;
            consumed = 12;
        }
        let kind = u32_at(&head, 0, be);
        let total = u32_at(&head, 4, be) as usize;
        if total < 12 + (consumed - 8) || !total.is_multiple_of(4) || total > MAX_RECORD {
            return Err(CaptureError {
                offset: start,
                message: if total > MAX_RECORD {
                    format!("block length {total} exceeds the {MAX_RECORD}-byte limit")
                } else {
                    format!(
                        "block length {total} is invalid (must be a multiple of 4 and at least 12)"
                    )
                },
            });
        }
        Ok(Some((kind, be, consumed, total)))
    }

    /// A section header block's byte-order magic: whether the section is big-endian.
    fn read_section_byte_order(&mut self, start: u64) -> Result<bool, CaptureError> {
        let mut magic = [0u8; 4];
        let m = read_full(&mut self.input, &mut magic).map_err(|e| io_error(start + 8, e))?;
        if m < 4 {
            return Err(CaptureError {
                offset: start,
                message: "file cut off inside a section header block".into(),
            });
        }
        match magic {
            [0x1a, 0x2b, 0x3c, 0x4d] => Ok(true),
            [0x4d, 0x3c, 0x2b, 0x1a] => Ok(false),
            _ => Err(CaptureError {
                offset: start + 8,
                message: format!(
                    "section header byte-order magic {:02x}{:02x}{:02x}{:02x} is neither 1a2b3c4d nor 4d3c2b1a",
                    magic[0], magic[1], magic[2], magic[3]
                ),
            }),
        }
    }
}

/// A pcapng block read into the reader's buffer: the body is `buf[..body_len]`.
struct Block {
    /// Byte offset of the block in the input.
    start: u64,
    kind: u32,
    /// The section's byte order.
    be: bool,
    total: usize,
    body_len: usize,
}

/// Adds an interface description block's interface to the section. A block too short to read
/// still takes its interface number (packets on it become bad records) and is itself one.
fn add_interface(
    interfaces: &mut Vec<Interface>,
    body: &[u8],
    block: &Block,
) -> Result<Option<CaptureError>, CaptureError> {
    if interfaces.len() >= MAX_INTERFACES {
        return Err(CaptureError {
            offset: block.start,
            message: format!("more than {MAX_INTERFACES} interfaces in one section"),
        });
    }
    if let Some(iface) = parse_idb(body, block.be) {
        interfaces.push(iface);
        return Ok(None);
    }
    interfaces.push(Interface {
        linktype: u32::MAX,
        resolution: Resolution::Decimal(6),
        offset_secs: 0,
        snaplen: 0,
        tsresol: 6,
    });
    Ok(Some(CaptureError {
        offset: block.start,
        message: "interface description block too short".into(),
    }))
}

/// The fixed part of a packet block (EPB, OPB, SPB).
struct PacketHead {
    interface: u32,
    /// Timestamp in the interface's units (none in an SPB).
    ts: u64,
    caplen: usize,
    orig_len: u32,
    /// Where the packet data starts in the body.
    data_at: usize,
}

fn packet_head(body: &[u8], kind: u32, be: bool) -> Option<PacketHead> {
    let ts = |body: &[u8]| ((u32_at(body, 4, be) as u64) << 32) | u32_at(body, 8, be) as u64;
    match kind {
        PCAPNG_EPB | PCAPNG_OPB if body.len() >= 20 => Some(PacketHead {
            // The obsolete packet block has a 16-bit interface id (then a drops count).
            interface: if kind == PCAPNG_EPB {
                u32_at(body, 0, be)
            } else {
                u16_at(body, 0, be) as u32
            },
            ts: ts(body),
            caplen: u32_at(body, 12, be) as usize,
            orig_len: u32_at(body, 16, be),
            data_at: 20,
        }),
        PCAPNG_SPB if body.len() >= 4 => {
            let orig = u32_at(body, 0, be);
            Some(PacketHead {
                interface: 0,
                ts: 0,
                caplen: (orig as usize).min(body.len() - 4),
                orig_len: orig,
                data_at: 4,
            })
        }
        _ => None,
    }
}

/// The packet of a packet block, or a bad record when its header or interface does not hold.
/// `seen` takes the block's timestamp units and where its options are.
fn packet_event<'b>(
    body: &'b [u8],
    interfaces: &[Interface],
    block: &Block,
    (units, options): (&mut u64, &mut std::ops::Range<usize>),
) -> Event<'b> {
    *options = 0..0;
    let bad = |message: String| {
        Event::BadRecord(CaptureError {
            offset: block.start,
            message,
        })
    };
    let Some(h) = packet_head(body, block.kind, block.be) else {
        return bad(format!(
            "packet block of {} bytes is too short for its header",
            block.total
        ));
    };
    if h.data_at + h.caplen > body.len() {
        return bad(format!(
            "packet block claims {} captured bytes but has room for {}",
            h.caplen,
            body.len() - h.data_at
        ));
    }
    let Some(iface) = interfaces
        .get(h.interface as usize)
        .copied()
        .filter(|i| i.linktype != u32::MAX)
    else {
        return bad(format!(
            "packet on interface {}, which the section does not describe",
            h.interface
        ));
    };
    let time = if block.kind == PCAPNG_SPB {
        Timestamp::default()
    } else {
        convert_ts(h.ts, iface)
    };
    *units = h.ts;
    if block.kind != PCAPNG_SPB {
        *options = h.data_at + h.caplen.div_ceil(4) * 4..body.len();
    }
    Event::Packet(Packet {
        data: &body[h.data_at..h.data_at + h.caplen],
        orig_len: h.orig_len.max(h.caplen as u32),
        time,
        linktype: iface.linktype,
        interface: h.interface,
        offset: block.start,
        pseudo: 0,
    })
}

/// A pcap record's timestamp in its file's units (micro- or nanoseconds).
fn pcap_units(head: &[u8; 16], big_endian: bool, nanos: bool) -> u64 {
    let secs = u32_at(head, 0, big_endian) as u64;
    let frac = u32_at(head, 4, big_endian) as u64;
    secs * if nanos { 1_000_000_000 } else { 1_000_000 } + frac
}

fn io_error(offset: u64, e: io::Error) -> CaptureError {
    CaptureError {
        offset,
        message: format!("read error: {e}"),
    }
}

fn parse_idb(body: &[u8], be: bool) -> Option<Interface> {
    if body.len() < 8 {
        return None;
    }
    let mut iface = Interface {
        linktype: u16_at(body, 0, be) as u32,
        resolution: Resolution::Decimal(6),
        offset_secs: 0,
        snaplen: u32_at(body, 4, be),
        tsresol: 6,
    };
    let mut at = 8;
    while at + 4 <= body.len() {
        let code = u16_at(body, at, be);
        let len = u16_at(body, at + 2, be) as usize;
        let value = body.get(at + 4..at + 4 + len)?;
        match (code, len) {
            (0, _) => break,
            (9, 1) => {
                let v = value[0];
                iface.tsresol = v;
                let n = v & 0x7f;
                // Resolutions finer than what fits a u64 count of units are treated as the default.
                iface.resolution = if v & 0x80 != 0 {
                    if n <= 63 {
                        Resolution::Binary(n)
                    } else {
                        Resolution::Decimal(6)
                    }
                } else if n <= 19 {
                    Resolution::Decimal(n)
                } else {
                    Resolution::Decimal(6)
                };
            }
            (14, 8) => {
                let mut a = [0u8; 8];
                a.copy_from_slice(value);
                iface.offset_secs = if be {
                    i64::from_be_bytes(a)
                } else {
                    i64::from_le_bytes(a)
                };
            }
            _ => {}
        }
        at += 4 + len.div_ceil(4) * 4;
    }
    Some(iface)
}

fn convert_ts(ts: u64, iface: Interface) -> Timestamp {
    let (units, digits) = match iface.resolution {
        Resolution::Decimal(n) => (10u64.pow(n as u32), n.min(9)),
        Resolution::Binary(n) => (1u64 << n, 9),
    };
    let secs = (ts / units) as i64;
    let frac = ts % units;
    let nanos = (frac as u128 * 1_000_000_000 / units as u128) as u32;
    Timestamp::new(secs.saturating_add(iface.offset_secs), nanos, digits)
}

#[cfg(test)]
mod tests;
