//! Writing pcapng: one section, its interfaces, and enhanced packet blocks with comments (what
//! `annotate` writes). Little-endian, as most writers do; readers take either order.
//!
//! Comments are strings from the decode: each is kept valid for the container whatever it
//! holds (no NUL, at most an option's 65,535 bytes), and a block never grows past
//! [`MAX_RECORD`], the largest block our own reader (and Wireshark's) accepts.

use std::borrow::Cow;
use std::io::{self, Write};

use super::{InterfaceInfo, MAX_RECORD, PCAPNG_EPB, PCAPNG_IDB, PCAPNG_SHB};

const OPT_ENDOFOPT: u16 = 0;
const OPT_COMMENT: u16 = 1;
const SHB_USERAPPL: u16 = 4;
const IF_TSRESOL: u16 = 9;
const IF_TSOFFSET: u16 = 14;
/// The longest option value: its length is a 16-bit field.
const MAX_OPTION: usize = u16::MAX as usize;
/// Room kept in a block for the comment that says how many others did not fit.
const LEFT_OUT_ROOM: usize = 128;

/// One packet as an enhanced packet block carries it.
#[derive(Debug, Clone, Copy)]
pub struct EnhancedPacket<'a> {
    /// An interface [`PcapngWriter::interface`] returned.
    pub interface: u32,
    /// The timestamp in that interface's units.
    pub units: u64,
    pub data: &'a [u8],
    pub orig_len: u32,
}

/// A pcapng stream being written: the section header is out once [`PcapngWriter::new`]
/// returns, each block is written whole.
pub struct PcapngWriter<W: Write> {
    out: W,
    /// The block being built (reused).
    block: Vec<u8>,
    interfaces: u32,
}

impl<W: Write> PcapngWriter<W> {
    /// Writes the section header block, naming `application` as the writer (`shb_userappl`,
    /// shown in Wireshark's capture file properties).
    pub fn new(out: W, application: &str) -> io::Result<PcapngWriter<W>> {
        let mut w = PcapngWriter {
            out,
            block: Vec::with_capacity(1 << 16),
            interfaces: 0,
        };
        w.start(PCAPNG_SHB);
        w.block.extend_from_slice(&0x1a2b_3c4d_u32.to_le_bytes());
        w.block.extend_from_slice(&1u16.to_le_bytes());
        w.block.extend_from_slice(&0u16.to_le_bytes());
        // Section length not given: the stream is written once, front to back.
        w.block.extend_from_slice(&u64::MAX.to_le_bytes());
        let fixed = w.block.len();
        option(&mut w.block, SHB_USERAPPL, &clean(application));
        w.end(fixed)?;
        Ok(w)
    }

    /// Describes an interface with the link type, snapshot length, timestamp resolution and
    /// offset of `info`; returns its number for [`EnhancedPacket::interface`].
    pub fn interface(&mut self, info: &InterfaceInfo) -> io::Result<u32> {
        let id = self.interfaces;
        self.interfaces = id
            .checked_add(1)
            .ok_or_else(|| io::Error::other("more than 2^32 interfaces in one pcapng section"))?;
        self.start(PCAPNG_IDB);
        // The block's field is 16 bits, as libpcap reads a pcap header's link type.
        self.block
            .extend_from_slice(&(info.linktype as u16).to_le_bytes());
        self.block.extend_from_slice(&0u16.to_le_bytes());
        self.block.extend_from_slice(&info.snaplen.to_le_bytes());
        let fixed = self.block.len();
        if info.tsresol != 6 {
            option(&mut self.block, IF_TSRESOL, &[info.tsresol]);
        }
        if info.tsoffset != 0 {
            option(&mut self.block, IF_TSOFFSET, &info.tsoffset.to_le_bytes());
        }
        self.end(fixed)?;
        Ok(id)
    }

    /// Writes one packet with `comments` (`opt_comment`, in order). Comments that would take
    /// the block past [`MAX_RECORD`] are left out, and a last comment says how many.
    pub fn packet<S: AsRef<str>>(
        &mut self,
        p: &EnhancedPacket<'_>,
        comments: &[S],
    ) -> io::Result<()> {
        self.start(PCAPNG_EPB);
        for v in [
            p.interface,
            (p.units >> 32) as u32,
            p.units as u32,
            p.data.len() as u32,
            p.orig_len,
        ] {
            self.block.extend_from_slice(&v.to_le_bytes());
        }
        self.block.extend_from_slice(p.data);
        pad(&mut self.block);
        let fixed = self.block.len();
        let room = MAX_RECORD.saturating_sub(LEFT_OUT_ROOM + 8);
        let mut left_out = 0usize;
        for c in comments {
            let c = clean(c.as_ref());
            if left_out > 0 || self.block.len() + 4 + c.len().div_ceil(4) * 4 > room {
                left_out += 1;
                continue;
            }
            option(&mut self.block, OPT_COMMENT, &c);
        }
        if left_out > 0 {
            let note = format!(
                "gamedissect: {left_out} more comments left out (a block holds at most {MAX_RECORD} bytes)"
            );
            option(&mut self.block, OPT_COMMENT, note.as_bytes());
        }
        self.end(fixed)
    }

    /// Flushes what is written (a live input gone quiet: the reader of a pipe sees it now).
    pub fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }

    /// Flushes what is written and gives the output back.
    pub fn finish(mut self) -> io::Result<W> {
        self.out.flush()?;
        Ok(self.out)
    }

    /// Begins a block of type `kind` (its lengths are set by [`PcapngWriter::end`]).
    fn start(&mut self, kind: u32) {
        self.block.clear();
        self.block.extend_from_slice(&kind.to_le_bytes());
        self.block.extend_from_slice(&0u32.to_le_bytes());
    }

    /// Ends the options when there are any past the first `fixed` bytes, sets the lengths,
    /// and writes the block.
    fn end(&mut self, fixed: usize) -> io::Result<()> {
        if self.block.len() > fixed {
            option(&mut self.block, OPT_ENDOFOPT, &[]);
        }
        let total = (self.block.len() + 4) as u32;
        self.block[4..8].copy_from_slice(&total.to_le_bytes());
        self.block.extend_from_slice(&total.to_le_bytes());
        self.out.write_all(&self.block)
    }
}

/// Appends an option (code, length, value padded to 4 bytes).
fn option(block: &mut Vec<u8>, code: u16, value: &[u8]) {
    block.extend_from_slice(&code.to_le_bytes());
    block.extend_from_slice(&(value.len() as u16).to_le_bytes());
    block.extend_from_slice(value);
    pad(block);
}

fn pad(block: &mut Vec<u8>) {
    block.resize(block.len().div_ceil(4) * 4, 0);
}

/// `s` as a pcapng string option holds it: a NUL (which readers take for the string's end)
/// replaced by U+FFFD, and cut at a character boundary to fit the option's length, with `…`.
fn clean(s: &str) -> Cow<'_, [u8]> {
    let nuls = s.bytes().filter(|&b| b == 0).count();
    if nuls == 0 && s.len() <= MAX_OPTION {
        return Cow::Borrowed(s.as_bytes());
    }
    // U+FFFD takes three bytes where NUL took one.
    let whole = s.len() + 2 * nuls <= MAX_OPTION;
    let limit = if whole {
        MAX_OPTION
    } else {
        MAX_OPTION - '…'.len_utf8()
    };
    let mut out = String::with_capacity(limit);
    for c in s.chars() {
        let c = if c == '\0' { '\u{fffd}' } else { c };
        if out.len() + c.len_utf8() > limit {
            break;
        }
        out.push(c);
    }
    if !whole {
        out.push('…');
    }
    Cow::Owned(out.into_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capture::{CaptureReader, Event};

    /// The comments of each packet of a pcapng, read back by our reader.
    fn comments_of(bytes: &[u8]) -> Vec<Vec<String>> {
        let mut r = CaptureReader::new(bytes).unwrap();
        let mut all = Vec::new();
        while let Ok(Some(e)) = r.next() {
            if let Event::Packet(_) = e {
                all.push(r.comments());
            }
        }
        all
    }

    fn written(comments: &[String]) -> Vec<u8> {
        let mut w = PcapngWriter::new(Vec::new(), "test").unwrap();
        let info = InterfaceInfo {
            linktype: 1,
            snaplen: 65_535,
            tsresol: 6,
            tsoffset: 0,
        };
        let id = w.interface(&info).unwrap();
        let p = EnhancedPacket {
            interface: id,
            units: 1,
            data: b"abcde",
            orig_len: 5,
        };
        w.packet(&p, comments).unwrap();
        w.packet(&p, &[] as &[String]).unwrap();
        w.finish().unwrap()
    }

    #[test]
    fn a_comment_never_breaks_its_option() {
        let long = "é".repeat(40_000);
        let comments = ["a\0b".to_string(), long.clone(), "plain".to_string()];
        let back = comments_of(&written(&comments));
        assert_eq!(back.len(), 2);
        assert_eq!(back[1], Vec::<String>::new());
        let [nul, cut, plain] = &back[0][..] else {
            panic!("three comments: {:?}", back[0].len());
        };
        assert_eq!(nul, "a\u{fffd}b");
        // 65,535 bytes at the most, cut between characters, and said to be cut.
        assert_eq!(cut.len(), 65_535);
        assert!(cut.ends_with("é…") && long.starts_with(cut.trim_end_matches('…')));
        assert_eq!(plain, "plain");
    }

    #[test]
    fn comments_past_the_block_limit_are_counted_not_written() {
        let big = "x".repeat(60_000);
        let comments = vec![big; 300];
        let bytes = written(&comments);
        let back = comments_of(&bytes);
        let kept = back[0].len() - 1;
        assert_eq!(kept, MAX_RECORD / 60_004);
        assert_eq!(
            back[0][kept],
            format!(
                "gamedissect: {} more comments left out (a block holds at most {MAX_RECORD} bytes)",
                300 - kept
            )
        );
        assert!(back[0][..kept].iter().all(|c| c.len() == 60_000));
    }
}
