//! The pipeline between capture reading and output: frames → UDP datagrams (reassembled when
//! fragmented) → flows → the flow's decoder → records, with statistics along the way.
//!
//! A flow's decoder is chosen once, in this order: `--decode-as`, content probes (certain before
//! likely; ties go to the protocol whose port matches, then to registry order), then well-known
//! ports (lower port first, as Wireshark does, so both directions agree). An unclaimed flow is
//! probed again on its next datagrams, up to [`PROBE_ATTEMPTS`], then stays plain UDP.

use std::borrow::Cow;
use std::collections::hash_map::Entry;
use std::collections::{BTreeMap, HashMap};
use std::hash::{BuildHasherDefault, Hasher};
use std::net::SocketAddr;
use std::panic::{AssertUnwindSafe, catch_unwind};

use crate::capture::{Packet, Timestamp};
use crate::net::defrag::{DefragLimits, DefragStats, Defragmenter};
use crate::net::{self, Frame, UdpLength};
use crate::proto::{
    ChosenBy, Confidence, Datagram, Direction, FlowDecoder, Prefs, ProbeInput, Protocol, Role,
    RoleSource,
};
use crate::protocols::udp as udpf;
use crate::tree::{Field, Note, Pos, Record, Severity, Value};

/// Datagrams of an unclaimed flow that are offered to the probes before it stays plain UDP.
pub const PROBE_ATTEMPTS: u8 = 8;
/// Flows whose per-flow statistics are kept; later flows are only counted.
pub const MAX_FLOW_STATS: usize = 100_000;

/// A `--decode-as` rule: datagrams to or from these ports go to this protocol.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DecodeAs {
    pub lo: u16,
    pub hi: u16,
    pub protocol: usize,
}

/// Inclusive frame-number range to report.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FrameRange {
    pub first: u64,
    pub last: u64,
}

impl FrameRange {
    pub const ALL: FrameRange = FrameRange {
        first: 1,
        last: u64::MAX,
    };
    pub fn contains(&self, n: u64) -> bool {
        (self.first..=self.last).contains(&n)
    }
}

#[derive(Debug, Clone)]
pub struct Config {
    pub decode_as: Vec<DecodeAs>,
    pub heuristics: bool,
    pub prefs: Prefs,
    /// Report only records of these protocols (by name); empty = all.
    pub only_protocols: Vec<String>,
    pub frames: FrameRange,
    pub max_flows: usize,
    /// A flow unseen for this long (capture time) is forgotten, with its decoder state.
    pub flow_idle_secs: i64,
    pub defrag: DefragLimits,
    /// Build field trees (the tree and JSON modes). Off, decoders still produce summaries, notes
    /// and message types, which is all the summary and stats modes show.
    pub detail: bool,
    /// Keep per-flow statistics (only `stats` prints them; without them memory stays flat however
    /// many flows a long capture has).
    pub flow_stats: bool,
    /// Tally records by protocol, message type and note severity. Only `stats` prints the
    /// tallies; `dissect` turns them off (string-keyed map updates per record, a few percent of
    /// a summary run).
    pub message_stats: bool,
    /// Decode only the flows of one shard (see [`Shard`]); `None` decodes every flow.
    pub shard: Option<Shard>,
}

/// One of `count` engines that read the same capture side by side, each decoding the flows whose
/// number modulo `count` is `index`. Every shard still tracks every flow, so flow numbers,
/// eviction and frame numbers agree between shards and with an unsharded run; records of the
/// flows a shard does not own are simply never made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    pub index: u64,
    pub count: u64,
}

impl Shard {
    pub fn owns(&self, flow: u64) -> bool {
        flow % self.count == self.index
    }
}

impl Default for Config {
    fn default() -> Self {
        Config {
            decode_as: Vec::new(),
            heuristics: true,
            prefs: Prefs::default(),
            only_protocols: Vec::new(),
            frames: FrameRange::ALL,
            max_flows: 65_536,
            flow_idle_secs: 600,
            defrag: DefragLimits::default(),
            flow_stats: true,
            message_stats: true,
            detail: true,
            shard: None,
        }
    }
}

/// Frame-level facts handed to output sinks with each record.
#[derive(Debug, Clone, Copy)]
pub struct Meta<'a> {
    pub frame: u64,
    pub time: Timestamp,
    /// Time of the capture's first frame, for relative times.
    pub base: Timestamp,
    pub src: SocketAddr,
    pub dst: SocketAddr,
    /// `src` and `dst` already formatted (`ip:port`, IPv6 in brackets), once per flow.
    pub src_text: &'a str,
    pub dst_text: &'a str,
    pub payload: &'a [u8],
    /// Flow number (0-based, in order of first appearance).
    pub flow: u64,
}

#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct CountBytes {
    pub messages: u64,
    pub bytes: u64,
}

#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct ProtocolStats {
    pub datagrams: u64,
    pub messages: u64,
    pub bytes: u64,
    /// Messages with at least one `error` note.
    pub malformed: u64,
    /// Messages whose datagram the capture cut short.
    pub short: u64,
    pub warnings: u64,
}

#[derive(Debug, Clone, serde::Serialize)]
pub struct FlowStats {
    pub flow: u64,
    pub client: SocketAddr,
    pub server: SocketAddr,
    pub protocol: &'static str,
    pub chosen_by: &'static str,
    pub roles_from: &'static str,
    pub first: String,
    pub last: String,
    #[serde(skip)]
    first_time: Timestamp,
    #[serde(skip)]
    last_time: Timestamp,
    pub packets_to_server: u64,
    pub bytes_to_server: u64,
    pub packets_to_client: u64,
    pub bytes_to_client: u64,
    pub messages: u64,
    pub malformed: u64,
    /// What the decoder says about the flow (release assumed, callsigns seen …).
    pub facts: BTreeMap<String, String>,
}

#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct FlowTableStats {
    pub created: u64,
    pub evicted_idle: u64,
    pub evicted_cap: u64,
    pub peak: u64,
    /// Flows past the per-flow statistics cap: counted, not listed.
    pub unlisted: u64,
}

/// Everything `stats` reports. Maps are ordered so the output is deterministic.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct Stats {
    pub frames: u64,
    pub captured_bytes: u64,
    pub truncated_frames: u64,
    pub bad_records: u64,
    pub not_ip: u64,
    pub not_udp: u64,
    pub link_errors: u64,
    pub udp_datagrams: u64,
    pub records: u64,
    pub protocols: BTreeMap<&'static str, ProtocolStats>,
    pub message_types: BTreeMap<&'static str, BTreeMap<String, CountBytes>>,
    pub flows: Vec<FlowStats>,
    pub flow_table: FlowTableStats,
    pub reassembly: DefragStats,
    pub notes: BTreeMap<&'static str, u64>,
}

struct Flow {
    id: u64,
    decoder: Option<(usize, Box<dyn FlowDecoder>)>,
    chosen_by: Option<ChosenBy>,
    server: SocketAddr,
    role_source: RoleSource,
    last_seen: Timestamp,
    datagrams: u64,
    probes_left: u8,
    stats: Option<usize>,
    /// The key's two endpoints, formatted once.
    texts: [String; 2],
}

/// The multiply-rotate hash rustc uses (FxHash): flow keys are not attacker-chosen in a way that
/// matters for an offline tool, and SipHash was 6% of a summary run's instructions.
#[derive(Default)]
struct FxHasher(u64);

impl Hasher for FxHasher {
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut w = [0u8; 8];
            w[..chunk.len()].copy_from_slice(chunk);
            self.add(u64::from_le_bytes(w));
        }
    }
    fn write_u8(&mut self, v: u8) {
        self.add(v as u64)
    }
    fn write_u16(&mut self, v: u16) {
        self.add(v as u64)
    }
    fn write_u32(&mut self, v: u32) {
        self.add(v as u64)
    }
    fn write_u64(&mut self, v: u64) {
        self.add(v)
    }
    fn write_usize(&mut self, v: usize) {
        self.add(v as u64)
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

impl FxHasher {
    fn add(&mut self, w: u64) {
        self.0 = (self.0.rotate_left(5) ^ w).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
}

type FlowMap = HashMap<FlowKey, Flow, BuildHasherDefault<FxHasher>>;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
struct FlowKey(SocketAddr, SocketAddr);

impl FlowKey {
    fn of(a: SocketAddr, b: SocketAddr) -> FlowKey {
        if a <= b { FlowKey(a, b) } else { FlowKey(b, a) }
    }
}

pub struct Engine {
    protocols: Vec<&'static dyn Protocol>,
    config: Config,
    flows: FlowMap,
    next_flow: u64,
    last_flow_sweep: i64,
    defrag: Defragmenter,
    records: Vec<Record>,
    stats: Stats,
    frame: u64,
    base: Option<Timestamp>,
}

fn udp_record(payload: &[u8], declared: usize) -> Record {
    let mut r = Record::new("udp");
    r.msg_type = Cow::Borrowed("datagram");
    r.summary = format!("UDP payload, {} bytes", declared.max(payload.len()));
    let mut root = Field::new(&udpf::UDP, Value::None, Pos::bytes(0, payload.len()));
    root.children.push(Field::new(
        &udpf::LENGTH,
        Value::UInt(declared as u64),
        Pos::bytes(0, payload.len()),
    ));
    root.children.push(Field::new(
        &udpf::PAYLOAD,
        Value::Bytes(payload.into()),
        Pos::bytes(0, payload.len()),
    ));
    r.fields.push(root);
    r
}

impl Engine {
    pub fn new(protocols: Vec<&'static dyn Protocol>, config: Config) -> Engine {
        Engine {
            protocols,
            defrag: Defragmenter::new(config.defrag),
            config,
            flows: FlowMap::default(),
            next_flow: 0,
            last_flow_sweep: i64::MIN,
            records: Vec::new(),
            stats: Stats::default(),
            frame: 0,
            base: None,
        }
    }

    pub fn config(&self) -> &Config {
        &self.config
    }

    pub fn stats(&self) -> &Stats {
        &self.stats
    }

    /// Frames read so far.
    pub fn frames(&self) -> u64 {
        self.frame
    }

    /// A bad record in the capture (framing intact, content unusable): counted as a frame.
    pub fn bad_record(&mut self) {
        self.frame += 1;
        self.stats.frames += 1;
        self.stats.bad_records += 1;
    }

    /// Collects the decoders' final per-flow facts into the statistics.
    pub fn finish(&mut self) {
        let flows: Vec<Flow> = self.flows.drain().map(|(_, f)| f).collect();
        for f in flows {
            self.retire(f);
        }
        self.stats.reassembly = self.defrag.stats;
        self.stats.flows.sort_by_key(|f| f.flow);
        for f in &mut self.stats.flows {
            f.first = f.first_time.rfc3339();
            f.last = f.last_time.rfc3339();
        }
    }

    fn retire(&mut self, flow: Flow) {
        if let (Some(i), Some((_, dec))) = (flow.stats, &flow.decoder) {
            let facts = dec.describe();
            self.stats.flows[i].facts.extend(facts);
        }
    }

    /// Processes one captured frame; records selected for output go to `sink`.
    pub fn packet<E>(
        &mut self,
        pkt: &Packet<'_>,
        sink: &mut dyn FnMut(&Meta<'_>, &mut Record) -> Result<(), E>,
    ) -> Result<(), E> {
        self.frame += 1;
        let frame = self.frame;
        self.base.get_or_insert(pkt.time);
        self.stats.frames += 1;
        self.stats.captured_bytes += pkt.data.len() as u64;
        let cut = pkt.truncated();
        if cut {
            self.stats.truncated_frames += 1;
        }
        match net::decode_frame(pkt.linktype, pkt.data) {
            Frame::Udp {
                src,
                dst,
                segment,
                incomplete,
            } => match net::parse_udp(src, dst, segment, cut) {
                Some(u) => self.datagram(frame, pkt.time, &u, incomplete && cut, None, sink),
                None => {
                    self.stats.link_errors += 1;
                    Ok(())
                }
            },
            Frame::Fragment(f) => {
                if let Some(whole) = self.defrag.add(&f, pkt.time) {
                    if let Some(u) = net::parse_udp(whole.src, whole.dst, &whole.segment, false) {
                        return self.datagram(
                            frame,
                            pkt.time,
                            &u,
                            false,
                            Some(whole.fragments),
                            sink,
                        );
                    }
                    self.stats.link_errors += 1;
                }
                Ok(())
            }
            Frame::OtherIp(_) => {
                self.stats.not_udp += 1;
                Ok(())
            }
            Frame::NotIp => {
                self.stats.not_ip += 1;
                Ok(())
            }
            Frame::Malformed(_) => {
                self.stats.link_errors += 1;
                Ok(())
            }
        }
    }

    fn choose(
        protocols: &[&'static dyn Protocol],
        config: &Config,
        src: SocketAddr,
        dst: SocketAddr,
        payload: &[u8],
    ) -> Option<(usize, ChosenBy, SocketAddr, RoleSource)> {
        for rule in &config.decode_as {
            let hit = |p: u16| (rule.lo..=rule.hi).contains(&p);
            if hit(dst.port()) || hit(src.port()) {
                let (server, how) = if hit(dst.port()) {
                    (dst, RoleSource::Port)
                } else {
                    (src, RoleSource::Port)
                };
                let probe = protocols[rule.protocol].probe(&ProbeInput {
                    payload,
                    src_port: src.port(),
                    dst_port: dst.port(),
                });
                let (server, how) = match probe.sender {
                    Some(Role::Server) => (src, RoleSource::Content),
                    Some(Role::Client) => (dst, RoleSource::Content),
                    None => (server, how),
                };
                return Some((rule.protocol, ChosenBy::DecodeAs, server, how));
            }
        }
        let port_server = |i: usize| {
            let info = protocols[i].info();
            let (lo, hi) = if src.port() <= dst.port() {
                (src, dst)
            } else {
                (dst, src)
            };
            if info.is_server_port(lo.port()) {
                Some(lo)
            } else if info.is_server_port(hi.port()) {
                Some(hi)
            } else {
                None
            }
        };
        if config.heuristics {
            let input = ProbeInput {
                payload,
                src_port: src.port(),
                dst_port: dst.port(),
            };
            let mut best: Option<(Confidence, bool, usize, Option<Role>)> = None;
            for (i, p) in protocols.iter().enumerate() {
                let probe = p.probe(&input);
                if probe.confidence == Confidence::No {
                    continue;
                }
                let port = port_server(i).is_some();
                let better = match best {
                    None => true,
                    Some((c, bp, _, _)) => (probe.confidence, port) > (c, bp),
                };
                if better {
                    best = Some((probe.confidence, port, i, probe.sender));
                }
            }
            if let Some((conf, _, i, sender)) = best {
                let (server, how) = match (sender, port_server(i)) {
                    (Some(Role::Server), _) => (src, RoleSource::Content),
                    (Some(Role::Client), _) => (dst, RoleSource::Content),
                    (None, Some(s)) => (s, RoleSource::Port),
                    (None, None) => (dst, RoleSource::FirstSender),
                };
                return Some((i, ChosenBy::Probe(conf), server, how));
            }
        }
        // Ports last, lower port first so that both directions of a flow pick the same decoder.
        let (lo, hi) = if src.port() <= dst.port() {
            (src, dst)
        } else {
            (dst, src)
        };
        for end in [lo, hi] {
            if let Some(i) =
                (0..protocols.len()).find(|&i| protocols[i].info().is_server_port(end.port()))
            {
                return Some((i, ChosenBy::Port, end, RoleSource::Port));
            }
        }
        None
    }

    fn sweep_flows(&mut self, now: Timestamp) {
        let idle = self.config.flow_idle_secs;
        let stale: Vec<FlowKey> = self
            .flows
            .iter()
            .filter(|(_, f)| now.secs - f.last_seen.secs > idle)
            .map(|(k, _)| *k)
            .collect();
        for k in stale {
            if let Some(f) = self.flows.remove(&k) {
                self.stats.flow_table.evicted_idle += 1;
                self.retire(f);
            }
        }
    }

    fn make_room(&mut self, now: Timestamp) {
        self.sweep_flows(now);
        if self.flows.len() < self.config.max_flows {
            return;
        }
        // Still full: forget the least recently seen eighth, so this scan is rare.
        let mut by_age: Vec<(Timestamp, u64, FlowKey)> = self
            .flows
            .iter()
            .map(|(k, f)| (f.last_seen, f.id, *k))
            .collect();
        by_age.sort_unstable();
        let n = (self.flows.len() / 8).max(1);
        for (_, _, k) in by_age.into_iter().take(n) {
            if let Some(f) = self.flows.remove(&k) {
                self.stats.flow_table.evicted_cap += 1;
                self.retire(f);
            }
        }
    }

    fn datagram<E>(
        &mut self,
        frame: u64,
        time: Timestamp,
        u: &net::Udp<'_>,
        cut: bool,
        reassembled_from: Option<usize>,
        sink: &mut dyn FnMut(&Meta<'_>, &mut Record) -> Result<(), E>,
    ) -> Result<(), E> {
        self.stats.udp_datagrams += 1;
        if time.secs.saturating_sub(self.last_flow_sweep) >= 60 {
            self.last_flow_sweep = time.secs;
            self.sweep_flows(time);
        }
        let key = FlowKey::of(u.src, u.dst);
        // A full table makes room before a new flow (the extra lookup happens only at the cap).
        if self.flows.len() >= self.config.max_flows && !self.flows.contains_key(&key) {
            self.make_room(time);
        }
        let table_len = self.flows.len();
        // One hash and probe per datagram: the entry finds the flow or makes it.
        let f = match self.flows.entry(key) {
            Entry::Occupied(e) => e.into_mut(),
            Entry::Vacant(e) => {
                let id = self.next_flow;
                self.next_flow += 1;
                self.stats.flow_table.created += 1;
                let owned = self.config.shard.is_none_or(|s| s.owns(id));
                let stats = if !self.config.flow_stats || !owned {
                    None
                } else if self.stats.flows.len() < MAX_FLOW_STATS {
                    self.stats.flows.push(FlowStats {
                        flow: id,
                        client: u.src,
                        server: u.dst,
                        protocol: "udp",
                        chosen_by: "none",
                        roles_from: RoleSource::FirstSender.as_str(),
                        first: String::new(),
                        last: String::new(),
                        first_time: time,
                        last_time: time,
                        packets_to_server: 0,
                        bytes_to_server: 0,
                        packets_to_client: 0,
                        bytes_to_client: 0,
                        messages: 0,
                        malformed: 0,
                        facts: BTreeMap::new(),
                    });
                    Some(self.stats.flows.len() - 1)
                } else {
                    self.stats.flow_table.unlisted += 1;
                    None
                };
                self.stats.flow_table.peak = self.stats.flow_table.peak.max(table_len as u64 + 1);
                e.insert(Flow {
                    id,
                    decoder: None,
                    chosen_by: None,
                    server: u.dst,
                    role_source: RoleSource::FirstSender,
                    last_seen: time,
                    datagrams: 0,
                    probes_left: PROBE_ATTEMPTS,
                    stats,
                    texts: if owned {
                        [key.0.to_string(), key.1.to_string()]
                    } else {
                        Default::default()
                    },
                })
            }
        };
        // Another shard decodes this flow; this one only keeps the flow's clock for eviction.
        if self.config.shard.is_some_and(|s| !s.owns(f.id)) {
            f.last_seen = time;
            return Ok(());
        }

        // Choose a decoder for a flow that has none yet.
        if f.decoder.is_none() && f.probes_left > 0 {
            let choice = Engine::choose(&self.protocols, &self.config, u.src, u.dst, u.payload);
            f.probes_left -= 1;
            if let Some((i, how, server, roles)) = choice {
                let dec = self.protocols[i].new_flow(&self.config.prefs);
                f.decoder = Some((i, dec));
                f.chosen_by = Some(how);
                f.server = server;
                f.role_source = roles;
                if let Some(s) = f.stats {
                    let fs = &mut self.stats.flows[s];
                    fs.protocol = self.protocols[i].info().name;
                    fs.chosen_by = how.as_str();
                    fs.roles_from = roles.as_str();
                    let client = if server == u.src { u.dst } else { u.src };
                    fs.client = client;
                    fs.server = server;
                }
            }
        }

        f.last_seen = time;
        let index_in_flow = f.datagrams;
        f.datagrams += 1;
        let direction = if u.dst == f.server {
            Direction::ToServer
        } else {
            Direction::ToClient
        };
        let flow_id = f.id;
        let flow_stats = f.stats;
        let dgram = Datagram {
            payload: u.payload,
            truncated: cut,
            direction,
            src: u.src,
            dst: u.dst,
            time,
            frame,
            index_in_flow,
            role_source: f.role_source,
            detail: self.config.detail,
        };

        self.records.clear();
        if let Some((i, dec)) = f.decoder.as_mut() {
            let protocol_name = self.protocols[*i].info().name;
            let records = &mut self.records;
            // A decoder bug must cost one message, not the run: the flow falls back to plain UDP.
            if catch_unwind(AssertUnwindSafe(|| dec.decode(&dgram, records))).is_err() {
                records.clear();
                let mut r = udp_record(u.payload, u.declared_len);
                r.protocol = protocol_name;
                r.expert(&udpf::DECODER_FAILED, None, "decoder failed on this datagram (a bug); the flow is shown as plain UDP from here on");
                records.push(r);
                f.decoder = None;
                f.probes_left = 0;
            } else if records.is_empty() {
                let mut r = udp_record(u.payload, u.declared_len);
                r.protocol = protocol_name;
                r.expert(
                    &udpf::DECODER_EMPTY,
                    None,
                    "decoder produced no message for this datagram",
                );
                records.push(r);
            }
        } else {
            self.records.push(udp_record(u.payload, u.declared_len));
        }
        let texts = &f.texts;

        // Notes the UDP layer owes every record of this datagram.
        let mut extra: Vec<Note> = Vec::new();
        match u.length {
            UdpLength::Ok => {}
            UdpLength::Cut => extra.push(Note::new(
                &udpf::CUT_BY_SNAPLEN,
                Some(&udpf::LENGTH),
                None,
                format!(
                    "datagram cut by the capture's snaplen: {} of {} payload bytes captured",
                    u.payload.len(),
                    u.declared_len
                ),
            )),
            UdpLength::Lies { claimed, available } => extra.push(Note::new(
                &udpf::LENGTH_LIES,
                Some(&udpf::LENGTH),
                None,
                format!("UDP length {claimed} does not fit the {available} payload bytes the IP packet carries"),
            )),
        }
        if cut && u.length == UdpLength::Ok {
            extra.push(Note::new(
                &udpf::FRAME_CUT,
                None,
                None,
                "frame cut by the capture's snaplen",
            ));
        }
        if let Some(n) = reassembled_from {
            extra.push(Note::new(
                &udpf::REASSEMBLED,
                None,
                None,
                format!("datagram reassembled from {n} IP fragments"),
            ));
        }

        let (src_text, dst_text) = if key.0 == u.src {
            (&texts[0], &texts[1])
        } else {
            (&texts[1], &texts[0])
        };
        let meta = Meta {
            frame,
            time,
            base: self.base.unwrap_or(time),
            src: u.src,
            dst: u.dst,
            src_text,
            dst_text,
            payload: u.payload,
            flow: flow_id,
        };
        let selected_frame = self.config.frames.contains(frame);
        let n = self.records.len() as u64;
        let share = u.payload.len() as u64 / n.max(1);
        let mut records = std::mem::take(&mut self.records);
        let mut result = Ok(());
        for (k, rec) in records.iter_mut().enumerate() {
            rec.notes.extend(extra.iter().cloned());
            let wanted = selected_frame
                && (self.config.only_protocols.is_empty()
                    || self.config.only_protocols.iter().any(|p| p == rec.protocol));
            if !wanted {
                continue;
            }
            let bytes = if k == 0 {
                u.payload.len() as u64 - share * (n - 1)
            } else {
                share
            };
            if self.config.message_stats {
                Engine::count(
                    &mut self.stats,
                    rec,
                    bytes,
                    cut,
                    k == 0,
                    flow_stats,
                    direction,
                    u.payload.len() as u64,
                    &time,
                );
            }
            if result.is_ok() {
                result = sink(&meta, rec);
            }
        }
        self.records = records;
        result
    }

    #[allow(clippy::too_many_arguments)]
    fn count(
        s: &mut Stats,
        rec: &Record,
        bytes: u64,
        cut: bool,
        first_of_datagram: bool,
        flow_stats: Option<usize>,
        direction: Direction,
        datagram_len: u64,
        time: &Timestamp,
    ) {
        s.records += 1;
        let ps = s.protocols.entry(rec.protocol).or_default();
        ps.messages += 1;
        ps.bytes += bytes;
        if first_of_datagram {
            ps.datagrams += 1;
        }
        let errors = rec.has_errors();
        if errors {
            ps.malformed += 1;
        }
        if cut {
            ps.short += 1;
        }
        if rec.worst() == Some(Severity::Warning) {
            ps.warnings += 1;
        }
        for n in &rec.notes {
            *s.notes.entry(n.severity.as_str()).or_default() += 1;
        }
        let types = s.message_types.entry(rec.protocol).or_default();
        let t = match types.get_mut(rec.msg_type.as_ref()) {
            Some(t) => t,
            None => types.entry(rec.msg_type.to_string()).or_default(),
        };
        t.messages += 1;
        t.bytes += bytes;
        if let Some(i) = flow_stats {
            let fs = &mut s.flows[i];
            fs.messages += 1;
            if errors {
                fs.malformed += 1;
            }
            if first_of_datagram {
                match direction {
                    Direction::ToServer => {
                        fs.packets_to_server += 1;
                        fs.bytes_to_server += datagram_len;
                    }
                    Direction::ToClient => {
                        fs.packets_to_client += 1;
                        fs.bytes_to_client += datagram_len;
                    }
                }
                fs.last_time = *time;
            }
        }
    }
}

#[cfg(test)]
mod tests;
