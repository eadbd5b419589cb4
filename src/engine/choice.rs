//! Choosing a flow's decoder, and which end is the server.
//!
//! In this order: a `--decode-as` rule for either port; content probes (certain before likely;
//! among equals the protocol whose server port matches, then registry order); well-known ports,
//! the lower port first, as Wireshark's `decode_udp_ports` (epan/dissectors/packet-udp.c) tries
//! them, so that both directions of a flow choose alike.

use std::net::SocketAddr;

use super::config::Config;
use crate::proto::{
    ChosenBy, Confidence, FlowDecoder, ProbeInput, Protocol, Release, Role, RoleSource,
};
use crate::toolkit::udp as udpf;
use crate::tree::{Note, Record};

/// Datagrams of an unclaimed flow that are offered to the probes before it stays plain UDP.
pub const PROBE_ATTEMPTS: u8 = 8;

/// The decoder chosen for a flow, why, and the roles of its two ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Choice {
    /// Index of the protocol in the registry.
    pub protocol: usize,
    pub chosen_by: ChosenBy,
    pub server: SocketAddr,
    pub client: SocketAddr,
    /// How the server end was told.
    pub role_source: RoleSource,
}

/// Datagrams of a flow claimed by port alone in which the protocol's own check
/// ([`Protocol::evidence`]) must pass once, or the claim is withdrawn and the flow is plain UDP.
/// Four, as a conversation is four datagrams (`flows::CONVERSATION`): a request and its answer
/// are not one, and a game flow sends four datagrams within a fraction of a second, so holding
/// them costs little. A capture cut mid-session may open on a damaged or unusual datagram
/// (`captures/srb2-broken.pcap` opens on a bad checksum, its second datagram is good).
pub const EVIDENCE_DATAGRAMS: u8 = 4;

/// A port claim waiting for evidence: the datagrams it holds (shown once evidence comes, as
/// plain UDP if none does), and how many more may come without it.
pub(super) struct Probation {
    /// The protocol's name, for the `stats` fact.
    name: &'static str,
    left: u8,
    /// Frame, payload and UDP length of each datagram held.
    held: Vec<(u64, Vec<u8>, usize)>,
    /// The decoder holds datagrams of its own ([`crate::proto::Learning`]): the claim is
    /// checked, but nothing is held for it.
    holds: bool,
}

/// What a port claim on probation makes of a datagram.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Verdict {
    /// Not on probation, or evidence came: decoded as the decoder says.
    Claimed,
    /// Held until evidence comes or the probation ends.
    Held,
    /// No evidence in [`EVIDENCE_DATAGRAMS`] datagrams: the claim is withdrawn here, with the
    /// `stats` fact saying so.
    Withdrawn((String, String)),
}

/// A flow's decoder: its protocol's registry index and its per-flow state.
pub(super) struct Decoder {
    pub protocol: usize,
    pub state: Box<dyn FlowDecoder>,
    /// A claim by port alone still waiting for the protocol's evidence.
    pub probation: Option<Probation>,
}

impl Decoder {
    /// A decoder for a flow chosen by `chosen_by`: one chosen by port alone is on probation.
    pub fn new(
        (protocol, name): (usize, &'static str),
        mut state: Box<dyn FlowDecoder>,
        chosen_by: ChosenBy,
    ) -> Self {
        let probation = (chosen_by == ChosenBy::Port).then(|| Probation {
            name,
            left: EVIDENCE_DATAGRAMS,
            held: Vec::new(),
            holds: state.learning().is_none(),
        });
        Decoder {
            protocol,
            state,
            probation,
        }
    }

    /// Weighs the datagram just decoded (`records`) for a claim on probation: with `evidence`
    /// the claim stands and what it held is shown as decoded; without it the datagram is held,
    /// or, at the last one, the claim is withdrawn: what it held and this datagram become
    /// plain UDP (`records` rewritten, with a warning).
    pub fn weigh(
        &mut self,
        (frame, payload, declared): (u64, &[u8], usize),
        evidence: bool,
        records: &mut Vec<Record>,
        releases: &mut Vec<Release>,
    ) -> Verdict {
        let Some(p) = self.probation.as_mut() else {
            return Verdict::Claimed;
        };
        if evidence {
            releases.extend(p.held.drain(..).map(|(frame, ..)| Release::Shown { frame }));
            self.probation = None;
            return Verdict::Claimed;
        }
        p.left -= 1;
        if p.left > 0 {
            if !p.holds {
                return Verdict::Claimed;
            }
            p.held.push((frame, payload.to_vec(), declared));
            return Verdict::Held;
        }
        Self::as_udp(p, releases, false);
        let fact = withdrawn_fact(p.name);
        records.clear();
        let mut r = super::udp_record(payload, declared);
        r.notes.push(withdrawn_note());
        records.push(r);
        self.probation = None;
        Verdict::Withdrawn(fact)
    }

    /// Releases what a probation held as plain UDP, the last with the note saying why when
    /// `noted` (the probation ends there).
    fn as_udp(p: &mut Probation, releases: &mut Vec<Release>, noted: bool) {
        let last = p.held.len();
        releases.extend(
            p.held
                .drain(..)
                .enumerate()
                .map(|(k, (frame, payload, declared))| {
                    let mut r = super::udp_record(&payload, declared);
                    if noted && k + 1 == last {
                        r.notes.push(withdrawn_note());
                    }
                    Release::Decoded {
                        frame,
                        records: vec![r],
                    }
                }),
        );
    }

    /// Whether it holds the datagram it just decoded; the final records of those it held
    /// before and releases now go to `releases`. One call for a decoder that does not learn.
    #[inline]
    pub fn holds_last(&mut self, releases: &mut Vec<Release>) -> bool {
        let Some(l) = self.state.learning() else {
            return false;
        };
        let held = l.holds_last();
        l.released(releases);
        held
    }

    /// Ends its holds up to frame `through` (every one at `u64::MAX`), their releases to
    /// `releases`; nothing for a decoder that does not learn.
    /// A probation given up (the flow ends or waited too long) ends without evidence: what it
    /// held is plain UDP, and the claim is withdrawn: the `stats` fact saying so is returned.
    pub fn give_up(
        &mut self,
        through: u64,
        releases: &mut Vec<Release>,
    ) -> Option<(String, String)> {
        if let Some(mut p) = self.probation.take() {
            Self::as_udp(&mut p, releases, true);
            return Some(withdrawn_fact(p.name));
        }
        if let Some(l) = self.state.learning() {
            l.give_up(through);
            l.released(releases);
        }
        None
    }

    /// What it learned over the flow, for a second pass (`-2`).
    pub fn hindsight(&mut self) -> Vec<Vec<u8>> {
        self.state
            .learning()
            .map_or_else(Vec::new, |l| l.hindsight())
    }
}

/// A datagram's two ends, and the ports ordered (lower first) for port lookups.
#[derive(Clone, Copy)]
struct Ends {
    src: SocketAddr,
    dst: SocketAddr,
}

impl Ends {
    fn by_port(self) -> [SocketAddr; 2] {
        if self.src.port() <= self.dst.port() {
            [self.src, self.dst]
        } else {
            [self.dst, self.src]
        }
    }

    /// The end whose port is one of the protocol's server ports, the lower port first.
    fn server_port_end(self, protocol: &dyn Protocol) -> Option<SocketAddr> {
        let info = protocol.info();
        self.by_port()
            .into_iter()
            .find(|end| info.is_server_port(end.port()))
    }

    /// The server end as the probe's view of the sender tells it, else `otherwise`.
    fn server_by_sender(
        self,
        sender: Option<Role>,
        otherwise: (SocketAddr, RoleSource),
    ) -> (SocketAddr, RoleSource) {
        match sender {
            Some(Role::Server) => (self.src, RoleSource::Content),
            Some(Role::Client) => (self.dst, RoleSource::Content),
            None => otherwise,
        }
    }

    fn choice(
        self,
        protocol: usize,
        chosen_by: ChosenBy,
        (server, role_source): (SocketAddr, RoleSource),
    ) -> Choice {
        let client = if server == self.src {
            self.dst
        } else {
            self.src
        };
        Choice {
            protocol,
            chosen_by,
            server,
            client,
            role_source,
        }
    }
}

/// The decoder for a flow whose datagram goes from `src` to `dst`, if any protocol claims it.
pub(super) fn choose(
    protocols: &[&'static dyn Protocol],
    config: &Config,
    src: SocketAddr,
    dst: SocketAddr,
    payload: &[u8],
) -> Option<Choice> {
    let ends = Ends { src, dst };
    let input = ProbeInput {
        payload,
        src_port: src.port(),
        dst_port: dst.port(),
    };
    if let Some(ruled) = by_rule(protocols, config, ends, &input) {
        return ruled;
    }
    let heuristics = config.heuristics && foreign_port(ends).is_none();
    heuristics
        .then(|| by_content(protocols, ends, &input))
        .flatten()
        .or_else(|| by_port(protocols, ends))
}

/// UDP ports that IANA's Service Name and Transport Protocol Port Number Registry
/// (<https://www.iana.org/assignments/service-names-port-numbers>) assigns to protocols that
/// are not games, and that carry much traffic: no content probe is asked about a flow with
/// either end on one (a DNS query once parsed as a GameStudio message inside a DirectPlay 8
/// frame). Only `--decode-as` puts a decoder there. No registered game port is among them.
pub const FOREIGN_PORTS: &[(u16, u16, &str)] = &[
    (53, 53, "DNS"),
    (67, 68, "DHCP (BOOTP)"),
    (69, 69, "TFTP"),
    (88, 88, "Kerberos"),
    (111, 111, "Sun RPC"),
    (123, 123, "NTP"),
    (137, 138, "NetBIOS name and datagram"),
    (161, 162, "SNMP and SNMP traps"),
    (389, 389, "CLDAP"),
    (427, 427, "SLP"),
    (443, 443, "QUIC (HTTP/3)"),
    (464, 464, "Kerberos password"),
    (500, 500, "IKE (ISAKMP)"),
    (514, 514, "syslog"),
    (520, 521, "RIP and RIPng"),
    (546, 547, "DHCPv6"),
    (623, 623, "IPMI (RMCP)"),
    (853, 853, "DNS over QUIC"),
    (1194, 1194, "OpenVPN"),
    (1645, 1646, "RADIUS (old ports)"),
    (1701, 1701, "L2TP"),
    (1812, 1813, "RADIUS"),
    (1900, 1900, "SSDP"),
    (2049, 2049, "NFS"),
    (2123, 2123, "GTP-C"),
    (2152, 2152, "GTP-U"),
    (3478, 3478, "STUN and TURN"),
    (3702, 3702, "WS-Discovery"),
    (3784, 3785, "BFD"),
    (4500, 4500, "IKE NAT traversal (IPsec)"),
    (4739, 4739, "IPFIX"),
    (4789, 4789, "VXLAN"),
    (5060, 5061, "SIP"),
    (5353, 5353, "mDNS"),
    (5355, 5355, "LLMNR"),
    (5683, 5684, "CoAP"),
    (6081, 6081, "Geneve"),
    (6343, 6343, "sFlow"),
];

/// Whether a flow between `src` and `dst` may be judged by its content: heuristics are on and
/// neither port is a foreign protocol's ([`FOREIGN_PORTS`]).
pub(super) fn watchable(config: &Config, src: SocketAddr, dst: SocketAddr) -> bool {
    config.heuristics && foreign_port(Ends { src, dst }).is_none()
}

/// The foreign protocol on either end's port, the lower port first ([`FOREIGN_PORTS`]).
fn foreign_port(ends: Ends) -> Option<&'static str> {
    ends.by_port().into_iter().find_map(|end| {
        FOREIGN_PORTS
            .iter()
            .find(|&&(lo, hi, _)| (lo..=hi).contains(&end.port()))
            .map(|&(_, _, name)| name)
    })
}

/// A `--decode-as` rule for either port (`Some(None)`: the rule says plain UDP); the
/// destination's port makes it the server unless the probe recognises the sender.
fn by_rule(
    protocols: &[&'static dyn Protocol],
    config: &Config,
    ends: Ends,
    input: &ProbeInput<'_>,
) -> Option<Option<Choice>> {
    let rule = config.decode_as.iter().find(|rule| {
        let hit = |p: u16| (rule.lo..=rule.hi).contains(&p);
        hit(ends.dst.port()) || hit(ends.src.port())
    })?;
    let server = if (rule.lo..=rule.hi).contains(&ends.dst.port()) {
        ends.dst
    } else {
        ends.src
    };
    let Some(protocol) = rule.protocol else {
        return Some(None);
    };
    let sender = protocols[protocol].probe(input).sender;
    let roles = ends.server_by_sender(sender, (server, RoleSource::Port));
    Some(Some(ends.choice(protocol, ChosenBy::DecodeAs, roles)))
}

/// The surest probe; among equally sure ones the protocol whose server port matches, then the
/// first registered.
fn by_content(
    protocols: &[&'static dyn Protocol],
    ends: Ends,
    input: &ProbeInput<'_>,
) -> Option<Choice> {
    let mut best: Option<(Confidence, bool, usize, Option<Role>)> = None;
    for (i, p) in protocols.iter().enumerate() {
        let probe = p.probe(input);
        if probe.confidence == Confidence::No {
            continue;
        }
        let port = ends.server_port_end(*p).is_some();
        if best.is_none_or(|(c, bp, _, _)| (probe.confidence, port) > (c, bp)) {
            best = Some((probe.confidence, port, i, probe.sender));
        }
    }
    let (confidence, _, i, sender) = best?;
    let otherwise = match ends.server_port_end(protocols[i]) {
        Some(s) => (s, RoleSource::Port),
        None => (ends.dst, RoleSource::FirstSender),
    };
    let roles = ends.server_by_sender(sender, otherwise);
    Some(ends.choice(i, ChosenBy::Probe(confidence), roles))
}

/// The first protocol registering the lower port as a server port, else the higher one.
fn by_port(protocols: &[&'static dyn Protocol], ends: Ends) -> Option<Choice> {
    ends.by_port().into_iter().find_map(|end| {
        let i = protocols
            .iter()
            .position(|p| p.info().is_server_port(end.port()))?;
        Some(ends.choice(i, ChosenBy::Port, (end, RoleSource::Port)))
    })
}

/// Why a flow nothing claimed is settled as plain UDP: its first [`PROBE_ATTEMPTS`] datagrams
/// were each offered to every probe, and neither end's port is registered. Probing stops there,
/// so that a flow of datagrams that look almost like a protocol does not pay for the probes on
/// every datagram.
fn settled_why(heuristics: bool) -> String {
    if heuristics {
        format!(
            "no probe claimed its first {PROBE_ATTEMPTS} datagrams and no port is registered; settled as plain UDP (--decode-as PORT=PROTOCOL chooses)"
        )
    } else {
        "no port is registered and --no-heuristics is set; settled as plain UDP (--decode-as PORT=PROTOCOL chooses)".to_string()
    }
}

/// The note on the datagram where an unclaimed flow is settled.
pub(super) fn settled_note() -> Note {
    Note::new(
        &udpf::PROBING_SETTLED,
        None,
        None,
        format!(
            "no protocol claimed this flow's first {PROBE_ATTEMPTS} datagrams; it stays plain UDP"
        ),
    )
}

/// The fact `stats` lists for a flow from `src` to `dst` settled as plain UDP.
pub(super) fn settled_fact(config: &Config, src: SocketAddr, dst: SocketAddr) -> (String, String) {
    let why = match foreign_port(Ends { src, dst }) {
        Some(name) if config.heuristics => format!(
            "a port of {name} (IANA), where no probe is asked, and no game port; plain UDP (--decode-as PORT=PROTOCOL chooses)"
        ),
        _ => settled_why(config.heuristics),
    };
    ("decoder".to_string(), why)
}

/// The note on the datagram where a port claim without evidence is withdrawn.
pub(super) fn withdrawn_note() -> Note {
    Note::new(
        &udpf::PORT_CLAIM_WITHDRAWN,
        None,
        None,
        format!(
            "a registered port chose this flow's decoder, but none of its first datagrams (up to {EVIDENCE_DATAGRAMS}) passed the protocol's own check; it is plain UDP (--decode-as PORT=PROTOCOL forces it)"
        ),
    )
}

/// The fact `stats` lists for a flow whose port claim was withdrawn.
fn withdrawn_fact(name: &str) -> (String, String) {
    (
        "decoder".to_string(),
        format!(
            "a {name} port chose it, but none of its first datagrams (up to {EVIDENCE_DATAGRAMS}) passed {name}'s own check; plain UDP (--decode-as PORT={name} forces it)"
        ),
    )
}
