//! From a captured frame to a UDP datagram: link layer, IPv4/IPv6 (etherparse's lax slicing, so a
//! frame cut by the snaplen still yields what it has), and UDP.
//!
//! Link layers etherparse does not know (BSD null/loopback, Linux SLL2) are unwrapped here; IP
//! fragments are handed to [`defrag::Defragmenter`].

pub mod defrag;

use std::net::{IpAddr, SocketAddr};

use etherparse::{EtherType, IpNumber, LaxNetSlice, LaxSlicedPacket};

/// The LINKTYPE_ values we decode.
pub mod linktype {
    pub const NULL: u32 = 0;
    pub const ETHERNET: u32 = 1;
    /// DLT_RAW as some BSDs write it into files.
    pub const RAW_BSD12: u32 = 12;
    pub const RAW_BSD14: u32 = 14;
    pub const RAW: u32 = 101;
    pub const LOOP: u32 = 108;
    pub const LINUX_SLL: u32 = 113;
    pub const IPV4: u32 = 228;
    pub const IPV6: u32 = 229;
    pub const LINUX_SLL2: u32 = 276;

    /// The link types whose frames are read down to IP; any other is counted as not IP.
    pub const SUPPORTED: [u32; 10] = [
        NULL, ETHERNET, RAW_BSD12, RAW_BSD14, RAW, LOOP, LINUX_SLL, IPV4, IPV6, LINUX_SLL2,
    ];
}

/// A fragment of an IP datagram carrying UDP.
#[derive(Debug, Clone, Copy)]
pub struct Fragment<'a> {
    pub src: IpAddr,
    pub dst: IpAddr,
    pub id: u32,
    /// Byte offset of this fragment in the reassembled IP payload.
    pub offset: u32,
    pub more: bool,
    pub data: &'a [u8],
    /// The fragment's bytes were cut by the snaplen or a lying IP length.
    pub incomplete: bool,
}

/// What a frame turned out to be.
#[derive(Debug, Clone, Copy)]
pub enum Frame<'a> {
    /// A whole (unfragmented) IP payload carrying UDP: header and data follow.
    Udp {
        src: IpAddr,
        dst: IpAddr,
        /// UDP header plus payload as far as captured.
        segment: &'a [u8],
        /// The IP packet was cut short (snaplen, or a total length that lies).
        incomplete: bool,
    },
    Fragment(Fragment<'a>),
    /// IP, but not UDP; the IP protocol number is given for statistics.
    OtherIp(u8),
    /// Not IP at all (ARP, other ethertypes, unsupported link types).
    NotIp,
    /// The link or IP header could not be read.
    Malformed(&'static str),
}

/// Unwraps the link layer and the IP header.
pub fn decode_frame(linktype: u32, data: &[u8]) -> Frame<'_> {
    if let Some(f) = plain_ipv4_udp(linktype, data) {
        return f;
    }
    decode_frame_sliced(linktype, data)
}

/// Where the IPv4 header starts when the link header says IPv4 outright.
fn ipv4_start(linktype: u32, data: &[u8]) -> Option<usize> {
    let at = |i: usize| data.get(i).copied();
    match linktype {
        linktype::ETHERNET if at(12)? == 0x08 && at(13)? == 0x00 => Some(14),
        linktype::RAW | linktype::RAW_BSD12 | linktype::RAW_BSD14 | linktype::IPV4 => Some(0),
        linktype::NULL if data.get(..4)? == [2, 0, 0, 0] || data.get(..4)? == [0, 0, 0, 2] => {
            Some(4)
        }
        linktype::LOOP if data.get(..4)? == [0, 0, 0, 2] => Some(4),
        linktype::LINUX_SLL if at(14)? == 0x08 && at(15)? == 0x00 && data.len() >= 16 => Some(16),
        linktype::LINUX_SLL2 if at(0)? == 0x08 && at(1)? == 0x00 && data.len() >= 20 => Some(20),
        _ => None,
    }
}

/// The common case read directly: a whole, unfragmented IPv4 packet carrying UDP. Anything else
/// (VLAN tags, IPv6, fragments, cut or lying lengths) returns `None` and goes through
/// etherparse. Profiles showed etherparse's general slicing (it copies its header structs
/// around) at about a tenth of a summary run; a test checks that both paths agree.
fn plain_ipv4_udp(linktype: u32, data: &[u8]) -> Option<Frame<'_>> {
    let ip = data.get(ipv4_start(linktype, data)?..)?;
    let head = ip.get(..20)?;
    let ihl = usize::from(head[0] & 0x0f) * 4;
    let total = usize::from(u16::from_be_bytes([head[2], head[3]]));
    let fragment_bits = u16::from_be_bytes([head[6], head[7]]) & 0x3fff;
    if head[0] >> 4 != 4 || ihl < 20 || total < ihl || total > ip.len() {
        return None;
    }
    if fragment_bits != 0 || head[9] != 17 {
        return None;
    }
    let addr = |i: usize| IpAddr::from([head[i], head[i + 1], head[i + 2], head[i + 3]]);
    Some(Frame::Udp {
        src: addr(12),
        dst: addr(16),
        segment: &ip[ihl..total],
        incomplete: false,
    })
}

/// [`decode_frame`] through etherparse, for every frame.
pub fn decode_frame_sliced(linktype: u32, data: &[u8]) -> Frame<'_> {
    let sliced = match linktype {
        linktype::ETHERNET => match LaxSlicedPacket::from_ethernet(data) {
            Ok(p) => p,
            Err(_) => return Frame::Malformed("Ethernet header cut off"),
        },
        linktype::RAW
        | linktype::RAW_BSD12
        | linktype::RAW_BSD14
        | linktype::IPV4
        | linktype::IPV6 => match LaxSlicedPacket::from_ip(data) {
            Ok(p) => p,
            Err(_) => return Frame::Malformed("IP header unreadable"),
        },
        linktype::NULL | linktype::LOOP => {
            if data.len() < 4 {
                return Frame::Malformed("loopback header cut off");
            }
            let b = [data[0], data[1], data[2], data[3]];
            // NULL stores the family in the capturing host's byte order, LOOP in network order.
            let family = if linktype == linktype::LOOP {
                u32::from_be_bytes(b)
            } else if u32::from_le_bytes(b) < 0x100 {
                u32::from_le_bytes(b)
            } else {
                u32::from_be_bytes(b)
            };
            match family {
                // AF_INET everywhere; AF_INET6 is 24 (BSDs), 28 (FreeBSD), 30 (Darwin).
                2 | 24 | 28 | 30 => match LaxSlicedPacket::from_ip(&data[4..]) {
                    Ok(p) => p,
                    Err(_) => return Frame::Malformed("IP header unreadable"),
                },
                _ => return Frame::NotIp,
            }
        }
        linktype::LINUX_SLL => {
            if data.len() < 16 {
                return Frame::Malformed("Linux cooked (SLL) header cut off");
            }
            let proto = u16::from_be_bytes([data[14], data[15]]);
            LaxSlicedPacket::from_ether_type(EtherType(proto), &data[16..])
        }
        linktype::LINUX_SLL2 => {
            if data.len() < 20 {
                return Frame::Malformed("Linux cooked v2 (SLL2) header cut off");
            }
            let proto = u16::from_be_bytes([data[0], data[1]]);
            LaxSlicedPacket::from_ether_type(EtherType(proto), &data[20..])
        }
        _ => return Frame::NotIp,
    };
    from_sliced(&sliced)
}

fn from_sliced<'a>(p: &LaxSlicedPacket<'a>) -> Frame<'a> {
    let Some(net) = &p.net else {
        return if p.stop_err.is_some() {
            Frame::Malformed("IP header cut off or unreadable")
        } else {
            Frame::NotIp
        };
    };
    match net {
        LaxNetSlice::Ipv4(v4) => {
            let h = v4.header();
            let payload = v4.payload();
            if payload.ip_number != IpNumber::UDP {
                return Frame::OtherIp(payload.ip_number.0);
            }
            let (src, dst) = (
                IpAddr::V4(h.source_addr()),
                IpAddr::V4(h.destination_addr()),
            );
            if payload.fragmented {
                return Frame::Fragment(Fragment {
                    src,
                    dst,
                    id: h.identification() as u32,
                    offset: h.fragments_offset().value() as u32 * 8,
                    more: h.more_fragments(),
                    data: payload.payload,
                    incomplete: payload.incomplete,
                });
            }
            Frame::Udp {
                src,
                dst,
                segment: payload.payload,
                incomplete: payload.incomplete,
            }
        }
        LaxNetSlice::Ipv6(v6) => {
            let h = v6.header();
            let payload = v6.payload();
            let (src, dst) = (
                IpAddr::V6(h.source_addr()),
                IpAddr::V6(h.destination_addr()),
            );
            if payload.fragmented {
                let frag = v6.extensions().clone().into_iter().find_map(|e| match e {
                    etherparse::Ipv6ExtensionSlice::Fragment(f) => Some(f),
                    _ => None,
                });
                let Some(f) = frag else {
                    return Frame::Malformed("IPv6 fragment header unreadable");
                };
                if f.next_header() != IpNumber::UDP {
                    return Frame::OtherIp(f.next_header().0);
                }
                return Frame::Fragment(Fragment {
                    src,
                    dst,
                    id: f.identification(),
                    offset: f.fragment_offset().value() as u32 * 8,
                    more: f.more_fragments(),
                    data: payload.payload,
                    incomplete: payload.incomplete,
                });
            }
            if payload.ip_number != IpNumber::UDP {
                return Frame::OtherIp(payload.ip_number.0);
            }
            Frame::Udp {
                src,
                dst,
                segment: payload.payload,
                incomplete: payload.incomplete,
            }
        }
        LaxNetSlice::Arp(_) => Frame::NotIp,
    }
}

/// How the UDP length compares with what the IP layer carried.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UdpLength {
    Ok,
    /// The capture holds fewer bytes than the UDP length says, because the frame was cut.
    Cut,
    /// The UDP length claims more than the IP packet carries (or less than 8).
    Lies {
        claimed: u16,
        available: usize,
    },
}

/// A parsed UDP datagram.
#[derive(Debug, Clone, Copy)]
pub struct Udp<'a> {
    pub src: SocketAddr,
    pub dst: SocketAddr,
    pub payload: &'a [u8],
    /// Payload length the UDP header declares.
    pub declared_len: usize,
    pub length: UdpLength,
}

/// Reads the UDP header of a whole segment. `cut` says the bytes were cut by the capture.
pub fn parse_udp(src: IpAddr, dst: IpAddr, segment: &[u8], cut: bool) -> Option<Udp<'_>> {
    if segment.len() < 8 {
        return None;
    }
    let sport = u16::from_be_bytes([segment[0], segment[1]]);
    let dport = u16::from_be_bytes([segment[2], segment[3]]);
    let claimed = u16::from_be_bytes([segment[4], segment[5]]);
    let available = segment.len() - 8;
    let (payload, length) = if claimed < 8 {
        (&segment[8..], UdpLength::Lies { claimed, available })
    } else if claimed as usize - 8 > available {
        let how = if cut {
            UdpLength::Cut
        } else {
            UdpLength::Lies { claimed, available }
        };
        (&segment[8..], how)
    } else {
        (&segment[8..claimed as usize], UdpLength::Ok)
    };
    Some(Udp {
        src: SocketAddr::new(src, sport),
        dst: SocketAddr::new(dst, dport),
        payload,
        declared_len: (claimed as usize).saturating_sub(8),
        length,
    })
}

/// The UDP datagram of a frame that carries a whole one (not a fragment), for tools that read
/// captures without the engine (benchmarks, fuzz seeding).
pub fn whole_udp(linktype: u32, data: &[u8]) -> Option<Udp<'_>> {
    match decode_frame(linktype, data) {
        Frame::Udp {
            src,
            dst,
            segment,
            incomplete,
        } => parse_udp(src, dst, segment, incomplete),
        _ => None,
    }
}

#[cfg(test)]
mod tests;
