//! Other people's traffic stays plain UDP: the sample of third-party captures in
//! `captures/foreign/` (docs/captures.md names their origin) holds DNS, mDNS, LLMNR, NTP, DHCP,
//! DHCPv6, SSDP, QUIC, SNMP, syslog, TFTP and NetBIOS, and iperf on FlightGear's port 5001,
//! which its port alone once claimed. No flow of any of them may get a game decoder, and each
//! run ends cleanly. `scripts/foreign-corpus.sh` runs the same check over thousands.

use std::path::PathBuf;
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_gamedissect");

fn samples() -> Vec<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("captures/foreign");
    let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "pcap" || e == "pcapng"))
        .collect();
    v.sort();
    v
}

#[test]
fn no_foreign_flow_is_claimed() {
    let samples = samples();
    assert!(samples.len() >= 15, "the sample is gone: {samples:?}");
    for path in samples {
        let out = Command::new(BIN)
            .args(["stats", "-q", "-f", "json"])
            .arg(&path)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{path:?}: {out:?}");
        let stats: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let protocols = stats["protocols"].as_object().unwrap();
        assert!(
            protocols.keys().all(|p| p == "udp"),
            "{path:?} claimed: {protocols:?}"
        );
        for flow in stats["flows"].as_array().unwrap() {
            assert_eq!(flow["protocol"], "udp", "{path:?}: {flow}");
        }
        assert_eq!(stats["bad_records"], 0, "{path:?}");
    }
}

/// iperf on port 5001: FlightGear's port chose it, no datagram passed FlightGear's check, so
/// the claim is withdrawn, with a warning on the record and the reason in `stats`.
#[test]
fn iperf_on_a_flightgear_port_is_withdrawn() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("captures/foreign");
    let path = dir.join("tcpdump-ipv6-srh-insert-cksum.pcap");
    let out = Command::new(BIN)
        .args(["dissect", "-f", "json"])
        .arg(&path)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("\"severity\":\"warning\",\"message\":\"a registered port chose"),
        "{text}"
    );
    assert!(!text.contains("\"protocol\":\"flightgear\""), "{text}");
    let out = Command::new(BIN)
        .args(["stats", "-q", "-f", "json"])
        .arg(&path)
        .output()
        .unwrap();
    let stats: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let why = stats["flows"][0]["facts"]["decoder"].as_str().unwrap();
    assert!(why.contains("flightgear port chose it"), "{why}");
}
