use super::*;
use testkit::synth;

fn addr(s: &str) -> SocketAddr {
    s.parse().unwrap()
}

fn udp_of(frame: Frame<'_>) -> (IpAddr, IpAddr, Vec<u8>, bool) {
    match frame {
        Frame::Udp {
            src,
            dst,
            segment,
            incomplete,
        } => (src, dst, segment.to_vec(), incomplete),
        other => panic!("not UDP: {other:?}"),
    }
}

#[test]
fn ethernet_ipv4_udp() {
    let f = synth::eth_udp(addr("10.0.0.1:27960"), addr("10.0.0.2:5000"), b"hello");
    let (src, dst, seg, incomplete) = udp_of(decode_frame(linktype::ETHERNET, &f));
    assert_eq!(src.to_string(), "10.0.0.1");
    assert_eq!(dst.to_string(), "10.0.0.2");
    assert!(!incomplete);
    let u = parse_udp(src, dst, &seg, false).unwrap();
    assert_eq!(u.src, addr("10.0.0.1:27960"));
    assert_eq!(u.dst.port(), 5000);
    assert_eq!(u.payload, b"hello");
    assert_eq!(u.length, UdpLength::Ok);
}

#[test]
fn ethernet_with_a_vlan_tag() {
    let ip = synth::ip_udp(addr("10.0.0.1:1"), addr("10.0.0.2:2"), b"v");
    let mut f = vec![
        2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1, 0x81, 0x00, 0x00, 0x05, 0x08, 0x00,
    ];
    f.extend_from_slice(&ip);
    let (_, _, seg, _) = udp_of(decode_frame(linktype::ETHERNET, &f));
    assert_eq!(&seg[8..], b"v");
}

#[test]
fn ipv6_raw_and_cooked_link_types() {
    let ip6 = synth::ip_udp(addr("[::1]:27960"), addr("[::2]:27961"), b"six");
    let (src, _, seg, _) = udp_of(decode_frame(linktype::RAW, &ip6));
    assert_eq!(src.to_string(), "::1");
    assert_eq!(&seg[8..], b"six");

    let ip4 = synth::ip_udp(addr("127.0.0.1:1"), addr("127.0.0.1:2"), b"four");
    let mut sll = vec![0, 0, 3, 4, 0, 6, 0, 0, 0, 0, 0, 0, 0, 0, 0x08, 0x00];
    sll.extend_from_slice(&ip4);
    assert_eq!(
        &udp_of(decode_frame(linktype::LINUX_SLL, &sll)).2[8..],
        b"four"
    );

    let mut sll2 = vec![
        0x86, 0xdd, 0, 0, 0, 0, 0, 1, 3, 4, 6, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    ];
    sll2.extend_from_slice(&ip6);
    assert_eq!(
        &udp_of(decode_frame(linktype::LINUX_SLL2, &sll2)).2[8..],
        b"six"
    );

    let mut null = 2u32.to_le_bytes().to_vec();
    null.extend_from_slice(&ip4);
    assert_eq!(&udp_of(decode_frame(linktype::NULL, &null)).2[8..], b"four");
    let mut null6 = 30u32.to_be_bytes().to_vec();
    null6.extend_from_slice(&ip6);
    assert_eq!(&udp_of(decode_frame(linktype::NULL, &null6)).2[8..], b"six");
    let mut lo = 24u32.to_be_bytes().to_vec();
    lo.extend_from_slice(&ip6);
    assert_eq!(&udp_of(decode_frame(linktype::LOOP, &lo)).2[8..], b"six");
    assert_eq!(&udp_of(decode_frame(linktype::IPV4, &ip4)).2[8..], b"four");
}

#[test]
fn snaplen_cut_frame_keeps_what_it_has() {
    let f = synth::eth_udp(addr("10.0.0.1:1"), addr("10.0.0.2:2"), &[7; 100]);
    let cut = &f[..14 + 20 + 8 + 30];
    let (src, dst, seg, incomplete) = udp_of(decode_frame(linktype::ETHERNET, cut));
    assert!(incomplete);
    let u = parse_udp(src, dst, &seg, true).unwrap();
    assert_eq!(u.payload.len(), 30);
    assert_eq!(u.declared_len, 100);
    assert_eq!(u.length, UdpLength::Cut);
}

#[test]
fn lying_udp_length_is_reported() {
    let mut seg = synth::udp(addr("10.0.0.1:1"), addr("10.0.0.2:2"), b"0123456789");
    seg[4..6].copy_from_slice(&200u16.to_be_bytes());
    let u = parse_udp(
        "10.0.0.1".parse().unwrap(),
        "10.0.0.2".parse().unwrap(),
        &seg,
        false,
    )
    .unwrap();
    assert_eq!(
        u.length,
        UdpLength::Lies {
            claimed: 200,
            available: 10
        }
    );
    assert_eq!(u.payload, b"0123456789");
    seg[4..6].copy_from_slice(&3u16.to_be_bytes());
    let u = parse_udp(
        "10.0.0.1".parse().unwrap(),
        "10.0.0.2".parse().unwrap(),
        &seg,
        false,
    )
    .unwrap();
    assert!(matches!(u.length, UdpLength::Lies { claimed: 3, .. }));
}

#[test]
fn fragments_are_recognised_in_both_ip_versions() {
    let seg = synth::udp(addr("10.0.0.1:1"), addr("10.0.0.2:2"), &[1; 40]);
    let f1 = synth::ipv4([10, 0, 0, 1], [10, 0, 0, 2], 17, 99, 0, true, &seg[..24]);
    match decode_frame(linktype::RAW, &f1) {
        Frame::Fragment(f) => {
            assert_eq!((f.id, f.offset, f.more, f.data.len()), (99, 0, true, 24));
        }
        other => panic!("{other:?}"),
    }
    let f2 = synth::ipv4([10, 0, 0, 1], [10, 0, 0, 2], 17, 99, 3, false, &seg[24..]);
    match decode_frame(linktype::RAW, &f2) {
        Frame::Fragment(f) => assert_eq!((f.offset, f.more), (24, false)),
        other => panic!("{other:?}"),
    }
    let frag6 = synth::ipv6_fragment(17, 2, false, 0xabcdef, &seg[16..]);
    let p6 = synth::ipv6([0; 16], [1; 16], 44, &frag6);
    match decode_frame(linktype::IPV6, &p6) {
        Frame::Fragment(f) => assert_eq!((f.id, f.offset, f.more), (0xabcdef, 16, false)),
        other => panic!("{other:?}"),
    }
}

#[test]
fn non_udp_and_non_ip() {
    let tcp = synth::ipv4([1, 1, 1, 1], [2, 2, 2, 2], 6, 1, 0, false, &[0; 20]);
    assert!(matches!(
        decode_frame(linktype::RAW, &tcp),
        Frame::OtherIp(6)
    ));
    let mut arp = vec![0xff; 12];
    arp.extend_from_slice(&[0x08, 0x06]);
    arp.extend_from_slice(&[0; 28]);
    assert!(matches!(
        decode_frame(linktype::ETHERNET, &arp),
        Frame::NotIp | Frame::Malformed(_)
    ));
    assert!(matches!(
        decode_frame(linktype::ETHERNET, &[1, 2, 3]),
        Frame::Malformed(_)
    ));
    assert!(matches!(decode_frame(9999, &[1, 2, 3]), Frame::NotIp));
}

/// The direct IPv4/UDP path must say exactly what etherparse's slicing says, for every link
/// type it covers, on clean packets and on packets with any header byte changed or cut.
#[test]
fn the_plain_ipv4_path_agrees_with_etherparse() {
    let ip = synth::ip_udp(
        addr("10.1.2.3:27960"),
        addr("192.168.0.9:5000"),
        b"payload bytes",
    );
    let mut sll2 = vec![0x08, 0x00, 0, 0, 0, 0, 0, 1, 0, 1, 0, 6];
    sll2.extend_from_slice(&[0; 8]);
    let links: [(u32, Vec<u8>); 8] = [
        (
            linktype::ETHERNET,
            vec![2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1, 0x08, 0x00],
        ),
        (linktype::RAW, vec![]),
        (linktype::IPV4, vec![]),
        (linktype::NULL, vec![2, 0, 0, 0]),
        (linktype::NULL, vec![0, 0, 0, 2]),
        (linktype::LOOP, vec![0, 0, 0, 2]),
        (
            linktype::LINUX_SLL,
            vec![0, 0, 0, 1, 0, 6, 1, 2, 3, 4, 5, 6, 0, 0, 0x08, 0x00],
        ),
        (linktype::LINUX_SLL2, sll2),
    ];
    let mut rng = synth::Rng(0x5eed_1234_abcd_0001);
    let (mut fast, mut checked) = (0, 0);
    for (lt, head) in &links {
        let mut clean = head.clone();
        clean.extend_from_slice(&ip);
        for round in 0..3000 {
            let mut f = clean.clone();
            if round > 0 {
                for _ in 0..=rng.below(3) {
                    let i = head.len() + rng.below(24) as usize;
                    f[i] = rng.next_u64() as u8;
                }
                if rng.below(4) == 0 {
                    f.truncate(rng.below(f.len() as u64 + 1) as usize);
                }
            }
            checked += 1;
            if plain_ipv4_udp(*lt, &f).is_some() {
                fast += 1;
            }
            assert_eq!(
                format!("{:?}", decode_frame(*lt, &f)),
                format!("{:?}", decode_frame_sliced(*lt, &f)),
                "link type {lt}, frame {f:02x?}"
            );
        }
    }
    assert!(
        fast > checked / 4 && fast < checked,
        "{fast} of {checked} on the direct path"
    );
}
