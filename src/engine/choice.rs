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
use crate::tree::Note;

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

/// A flow's decoder: its protocol's registry index and its per-flow state.
pub(super) struct Decoder {
    pub protocol: usize,
    pub state: Box<dyn FlowDecoder>,
}

impl Decoder {
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
    pub fn give_up(&mut self, through: u64, releases: &mut Vec<Release>) {
        if let Some(l) = self.state.learning() {
            l.give_up(through);
            l.released(releases);
        }
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
    config
        .heuristics
        .then(|| by_content(protocols, ends, &input))
        .flatten()
        .or_else(|| by_port(protocols, ends))
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

/// The fact `stats` lists for a flow settled as plain UDP.
pub(super) fn settled_fact(config: &Config) -> (String, String) {
    ("decoder".to_string(), settled_why(config.heuristics))
}
