use super::*;
use testkit::synth::{PcapNgWriter, PcapWriter, linktype};

/// (data, orig_len, time, linktype, offset) of each packet.
type Seen = (Vec<u8>, u32, Timestamp, u32, u64);

fn read_all(bytes: &[u8]) -> (Vec<Seen>, Vec<CaptureError>, Option<CaptureError>) {
    let mut r = CaptureReader::new(bytes).expect("header");
    let mut packets = Vec::new();
    let mut bad = Vec::new();
    loop {
        match r.next() {
            Ok(Some(Event::Packet(p))) => {
                packets.push((p.data.to_vec(), p.orig_len, p.time, p.linktype, p.offset))
            }
            Ok(Some(Event::BadRecord(e))) => bad.push(e),
            Ok(Some(Event::Quiet)) => unreachable!("bytes in memory are never quiet"),
            Ok(None) => return (packets, bad, None),
            Err(e) => return (packets, bad, Some(e)),
        }
    }
}

#[test]
fn pcap_in_both_byte_orders_and_resolutions() {
    for big_endian in [false, true] {
        for nanos in [false, true] {
            let mut w = PcapWriter::new(linktype::ETHERNET, big_endian, nanos, 65535);
            w.packet(
                1_700_000_000,
                if nanos { 123_456_789 } else { 123_456 },
                b"abc",
                3,
            );
            w.packet(1_700_000_001, 5, b"defg", 60);
            let (p, bad, err) = read_all(&w.bytes);
            assert!(err.is_none() && bad.is_empty());
            assert_eq!(p.len(), 2);
            assert_eq!(p[0].0, b"abc");
            assert_eq!(p[0].3, linktype::ETHERNET);
            assert_eq!(p[0].4, 24);
            assert_eq!(p[1].1, 60, "orig_len kept for a snaplen-cut packet");
            let want_nanos = if nanos { 123_456_789 } else { 123_456_000 };
            assert_eq!(
                p[0].2,
                Timestamp::new(1_700_000_000, want_nanos, if nanos { 9 } else { 6 })
            );
            assert_eq!(p[1].2.nanos, if nanos { 5 } else { 5000 });
        }
    }
}

#[test]
fn pcap_cut_mid_record_yields_whole_packets_then_a_located_error() {
    let mut w = PcapWriter::new(linktype::ETHERNET, false, false, 65535);
    w.packet(1, 0, &[1; 10], 10).packet(2, 0, &[2; 10], 10);
    let full = w.bytes.clone();
    // Cut inside the second record's data.
    let (p, _, err) = read_all(&full[..full.len() - 3]);
    assert_eq!(p.len(), 1);
    let err = err.expect("error");
    assert_eq!(err.offset, 24 + 26);
    assert_eq!(
        err.message,
        "file cut off inside a record: 10 bytes declared, 7 present"
    );
    // Cut inside the second record's header.
    let (p, _, err) = read_all(&full[..24 + 26 + 5]);
    assert_eq!(p.len(), 1);
    assert_eq!(
        err.unwrap().message,
        "file cut off inside a record header (5 of 16 bytes)"
    );
}

#[test]
fn pcap_lying_record_length_is_refused_without_allocating() {
    let mut w = PcapWriter::new(linktype::ETHERNET, false, false, 65535);
    w.packet(1, 0, &[1; 4], 4);
    let at = w.bytes.len();
    w.bytes.extend_from_slice(&[
        0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
    ]);
    let (p, _, err) = read_all(&w.bytes);
    assert_eq!(p.len(), 1);
    let err = err.unwrap();
    assert_eq!(err.offset, at as u64);
    assert!(
        err.message.contains("4294967295 captured bytes"),
        "{}",
        err.message
    );
}

#[test]
fn bad_magic_and_short_headers() {
    let e = CaptureReader::new(&b"hello world, not a capture"[..])
        .err()
        .unwrap();
    assert_eq!(e.offset, 0);
    assert!(
        e.message
            .starts_with("not a pcap, pcapng or Quake 3 demo file (magic 68 65 6c 6c)")
    );
    let e = CaptureReader::new(&[0x1f, 0x8b, 8, 0][..]).err().unwrap();
    assert!(e.message.contains("gzip"));
    let e = CaptureReader::new(&[][..]).err().unwrap();
    assert_eq!(
        e.message,
        "empty input, not a pcap, pcapng or Quake 3 demo file"
    );
    let e = CaptureReader::new(&[0xd4, 0xc3, 0xb2, 0xa1, 2, 0][..])
        .err()
        .unwrap();
    assert_eq!(e.message, "pcap file header cut off (6 of 24 bytes)");
}

#[test]
fn pcapng_two_interfaces_with_their_own_link_types_and_resolutions() {
    let mut w = PcapNgWriter::new();
    w.section(false)
        .interface(linktype::ETHERNET as u16, None)
        .interface(linktype::LINUX_SLL as u16, Some(9))
        .other_block()
        .packet(0, 1_700_000_000_123_456, b"eth", 3)
        .packet(1, 1_700_000_000_123_456_789, b"sll", 100)
        .simple_packet(b"simple");
    let (p, bad, err) = read_all(&w.bytes);
    assert!(err.is_none(), "{err:?}");
    assert!(bad.is_empty());
    assert_eq!(p.len(), 3);
    assert_eq!(
        (p[0].0.as_slice(), p[0].3),
        (&b"eth"[..], linktype::ETHERNET)
    );
    assert_eq!(p[0].2, Timestamp::new(1_700_000_000, 123_456_000, 6));
    assert_eq!(
        (p[1].0.as_slice(), p[1].3, p[1].1),
        (&b"sll"[..], linktype::LINUX_SLL, 100)
    );
    assert_eq!(p[1].2, Timestamp::new(1_700_000_000, 123_456_789, 9));
    assert_eq!(p[2].0, b"simple");
    assert_eq!(p[2].3, linktype::ETHERNET);
}

#[test]
fn pcapng_binary_resolution_and_big_endian_second_section() {
    let mut w = PcapNgWriter::new();
    w.section(false)
        .interface(linktype::RAW as u16, Some(0x80 | 10))
        .packet(0, (5 << 10) | 512, b"a", 1)
        .section(true)
        .interface(linktype::IPV6 as u16, Some(3))
        .packet(0, 7_250, b"b", 1);
    let (p, bad, err) = read_all(&w.bytes);
    assert!(err.is_none() && bad.is_empty(), "{err:?} {bad:?}");
    assert_eq!(p[0].2, Timestamp::new(5, 500_000_000, 9));
    assert_eq!(p[1].3, linktype::IPV6);
    assert_eq!(p[1].2, Timestamp::new(7, 250_000_000, 3));
}

#[test]
fn pcapng_packet_on_unknown_interface_is_a_bad_record_and_reading_goes_on() {
    let mut w = PcapNgWriter::new();
    w.section(false)
        .interface(1, None)
        .packet(3, 0, b"x", 1)
        .packet(0, 0, b"y", 1);
    let (p, bad, err) = read_all(&w.bytes);
    assert!(err.is_none());
    assert_eq!(bad.len(), 1);
    assert!(bad[0].message.contains("interface 3"));
    assert_eq!(p.len(), 1);
}

#[test]
fn pcapng_huge_block_length_is_a_located_error() {
    let mut w = PcapNgWriter::new();
    w.section(false).interface(1, None);
    let at = w.bytes.len() as u64;
    w.bytes.extend_from_slice(&6u32.to_le_bytes());
    w.bytes.extend_from_slice(&u32::MAX.to_le_bytes());
    let (_, _, err) = read_all(&w.bytes);
    let err = err.unwrap();
    assert_eq!(err.offset, at);
    assert!(err.message.contains("exceeds"), "{}", err.message);
}

#[test]
fn every_cut_of_a_small_capture_ends_in_whole_packets_or_a_located_error() {
    let mut w = PcapNgWriter::new();
    w.section(false)
        .interface(1, None)
        .packet(0, 1, b"abcd", 4)
        .packet(0, 2, b"efgh", 4);
    let full = w.bytes.clone();
    for cut in 0..full.len() {
        match CaptureReader::new(&full[..cut]) {
            Err(e) => assert!(e.offset <= cut as u64),
            Ok(mut r) => loop {
                match r.next() {
                    Ok(Some(_)) => {}
                    Ok(None) => break,
                    Err(e) => {
                        assert!(e.offset <= cut as u64);
                        break;
                    }
                }
            },
        }
    }
}

/// Bytes handed over a few at a time, with a quiet spell reported once at each of `quiet`'s
/// offsets (as a live input asked to report them does).
struct QuietAt {
    bytes: Vec<u8>,
    at: usize,
    quiet: Vec<usize>,
}

impl io::Read for QuietAt {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        source::read_through_buffer(self, buf)
    }
}

impl BufRead for QuietAt {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        if let Some(i) = self.quiet.iter().position(|&q| q == self.at) {
            self.quiet.remove(i);
            return Err(source::quiet_error());
        }
        let next_quiet = self.quiet.iter().copied().filter(|&q| q > self.at).min();
        let end = (self.at + 7)
            .min(next_quiet.unwrap_or(usize::MAX))
            .min(self.bytes.len());
        Ok(&self.bytes[self.at..end])
    }

    fn consume(&mut self, n: usize) {
        self.at += n;
    }
}

/// The packets' data and the quiet spells a capture reader meets in `input`, in order.
fn packets_and_quiet_spells(input: QuietAt) -> Vec<String> {
    let mut r = CaptureReader::new(input).expect("header");
    let mut seen = Vec::new();
    loop {
        match r.next() {
            Ok(Some(Event::Packet(p))) => seen.push(String::from_utf8_lossy(p.data).into_owned()),
            Ok(Some(Event::Quiet)) => seen.push("quiet".to_string()),
            Ok(Some(Event::BadRecord(e))) => panic!("{e:?}"),
            Ok(None) => return seen,
            Err(e) => panic!("{e:?}"),
        }
    }
}

#[test]
fn a_quiet_spell_is_an_event_between_records_and_waited_for_inside_one() {
    let mut w = PcapWriter::new(linktype::ETHERNET, false, false, 65535);
    w.packet(1_700_000_000, 0, b"abc", 3);
    w.packet(1_700_000_001, 0, b"defghij", 7);
    // After the header, inside the first record's header, inside its data, between the two.
    let between = 24 + 16 + 3;
    let input = QuietAt {
        bytes: w.bytes.clone(),
        at: 0,
        quiet: vec![24, 30, 24 + 16 + 1, between],
    };
    let seen = packets_and_quiet_spells(input);
    assert_eq!(seen, ["quiet", "abc", "quiet", "defghij"]);
}

/// In pcapng, a block that is no packet (statistics, name resolution, a new interface) ends a
/// record as well: a quiet spell right after it is an event, not waited through (it is reported
/// once per spell, so a spell waited through would leave held records held until the writer
/// writes again).
#[test]
fn a_quiet_spell_after_a_pcapng_block_that_is_no_packet_is_an_event() {
    let mut w = PcapNgWriter::new();
    w.section(false)
        .interface(linktype::ETHERNET as u16, None)
        .packet(0, 1_700_000_000_000_000, b"abc", 3)
        .other_block();
    let after_other = w.bytes.len();
    w.interface(linktype::ETHERNET as u16, None);
    let after_interface = w.bytes.len();
    w.packet(1, 1_700_000_001_000_000, b"def", 3);
    let input = QuietAt {
        bytes: w.bytes.clone(),
        at: 0,
        // And one inside the last packet's block, waited through.
        quiet: vec![after_other, after_interface, after_interface + 10],
    };
    let seen = packets_and_quiet_spells(input);
    assert_eq!(seen, ["abc", "quiet", "quiet", "def"]);
}
