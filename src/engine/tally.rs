//! The tallies `stats` reports: per protocol, message type, note severity and flow, and the flow
//! table's own counts.

use std::collections::BTreeMap;
use std::net::SocketAddr;

use super::choice::Choice;
use crate::capture::Timestamp;
use crate::net::defrag::DefragStats;
use crate::proto::{Direction, RoleSource};
use crate::tree::{Record, Severity};

/// Flows whose per-flow statistics are kept; later flows are only counted.
pub const MAX_FLOW_STATS: usize = 100_000;

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
    /// The capture the flow is of, when several captures are counted together (flow numbers
    /// are per capture).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub capture: Option<String>,
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
    /// Decoder state of all flows, as measured, at its highest (bytes).
    pub state_peak: u64,
    /// Times a flow's decoder state was dropped at the `--max-state` budget.
    pub state_dropped: u64,
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

/// What the records of one datagram share, for [`Stats::count`].
#[derive(Clone, Copy)]
pub(super) struct DatagramTally {
    /// The capture cut the datagram.
    pub cut: bool,
    /// The flow's entry in [`Stats::flows`], when it is listed.
    pub flow: Option<usize>,
    pub direction: Direction,
    /// Payload bytes of the whole datagram.
    pub len: u64,
    pub time: Timestamp,
}

impl Stats {
    /// Counts a new flow, and lists it if `listed` (per-flow statistics kept, and this engine
    /// decodes it) while the list has room. Returns its index in [`Stats::flows`].
    pub(super) fn flow_opened(
        &mut self,
        id: u64,
        (client, server): (SocketAddr, SocketAddr),
        time: Timestamp,
        listed: bool,
        table_len: usize,
    ) -> Option<usize> {
        self.flow_table.created += 1;
        let index = if !listed {
            None
        } else if self.flows.len() < MAX_FLOW_STATS {
            self.flows.push(FlowStats::new(id, client, server, time));
            Some(self.flows.len() - 1)
        } else {
            self.flow_table.unlisted += 1;
            None
        };
        self.flow_table.peak = self.flow_table.peak.max(table_len as u64 + 1);
        index
    }

    /// Records the decoder a listed flow was given, and the roles that came with it.
    pub(super) fn flow_assigned(&mut self, index: usize, protocol: &'static str, choice: &Choice) {
        let fs = &mut self.flows[index];
        fs.protocol = protocol;
        fs.chosen_by = choice.chosen_by.as_str();
        fs.roles_from = choice.role_source.as_str();
        fs.client = choice.client;
        fs.server = choice.server;
    }

    /// A listed flow's port claim was withdrawn: it is plain UDP, and `fact` says why.
    pub(super) fn flow_withdrawn(&mut self, index: usize, fact: (String, String)) {
        let fs = &mut self.flows[index];
        fs.protocol = "udp";
        fs.chosen_by = "none";
        fs.roles_from = RoleSource::FirstSender.as_str();
        fs.facts.insert(fact.0, fact.1);
    }

    /// Adds what the decoder says about a flow as it is forgotten.
    pub(super) fn flow_facts(&mut self, index: usize, facts: Vec<(String, String)>) {
        self.flows[index].facts.extend(facts);
    }

    /// Puts the listed flows in flow order and formats their first and last times.
    pub(super) fn finish_flows(&mut self) {
        self.flows.sort_by_key(|f| f.flow);
        for f in &mut self.flows {
            f.first = f.first_time.rfc3339();
            f.last = f.last_time.rfc3339();
        }
    }

    /// Counts one reported record carrying `bytes` of its datagram's payload.
    pub(super) fn count(
        &mut self,
        rec: &Record,
        bytes: u64,
        first_of_datagram: bool,
        d: &DatagramTally,
    ) {
        self.records += 1;
        let ps = self.protocols.entry(rec.protocol).or_default();
        ps.messages += 1;
        ps.bytes += bytes;
        if first_of_datagram {
            ps.datagrams += 1;
        }
        let errors = rec.has_errors();
        if errors {
            ps.malformed += 1;
        }
        if d.cut {
            ps.short += 1;
        }
        if rec.worst() == Some(Severity::Warning) {
            ps.warnings += 1;
        }
        for n in &rec.notes {
            *self.notes.entry(n.severity().as_str()).or_default() += 1;
        }
        let types = self.message_types.entry(rec.protocol).or_default();
        let t = match types.get_mut(rec.msg_type.as_ref()) {
            Some(t) => t,
            None => types.entry(rec.msg_type.to_string()).or_default(),
        };
        t.messages += 1;
        t.bytes += bytes;
        if let Some(i) = d.flow {
            self.flows[i].count(errors, first_of_datagram, d);
        }
    }

    /// Adds another capture's counts to these, its flows aside: sums, and for the peaks (of
    /// the flow table, the decoder state and reassembly, each of one capture's own engine) the
    /// highest.
    pub fn add(&mut self, o: &Stats) {
        self.frames += o.frames;
        self.captured_bytes += o.captured_bytes;
        self.truncated_frames += o.truncated_frames;
        self.bad_records += o.bad_records;
        self.not_ip += o.not_ip;
        self.not_udp += o.not_udp;
        self.link_errors += o.link_errors;
        self.udp_datagrams += o.udp_datagrams;
        self.records += o.records;
        for (name, p) in &o.protocols {
            let t = self.protocols.entry(name).or_default();
            t.datagrams += p.datagrams;
            t.messages += p.messages;
            t.bytes += p.bytes;
            t.malformed += p.malformed;
            t.short += p.short;
            t.warnings += p.warnings;
        }
        for (name, types) in &o.message_types {
            let mine = self.message_types.entry(name).or_default();
            for (t, c) in types {
                let m = mine.entry(t.clone()).or_default();
                m.messages += c.messages;
                m.bytes += c.bytes;
            }
        }
        for (k, n) in &o.notes {
            *self.notes.entry(k).or_default() += n;
        }
        self.flow_table.add(&o.flow_table);
        let (r, x) = (&mut self.reassembly, &o.reassembly);
        r.fragments += x.fragments;
        r.reassembled += x.reassembled;
        r.timed_out += x.timed_out;
        r.dropped_memory_cap += x.dropped_memory_cap;
        r.dropped_pending_cap += x.dropped_pending_cap;
        r.dropped_invalid += x.dropped_invalid;
        r.peak_bytes = r.peak_bytes.max(x.peak_bytes);
    }
}

impl FlowTableStats {
    fn add(&mut self, o: &FlowTableStats) {
        self.created += o.created;
        self.evicted_idle += o.evicted_idle;
        self.evicted_cap += o.evicted_cap;
        self.peak = self.peak.max(o.peak);
        self.unlisted += o.unlisted;
        self.state_peak = self.state_peak.max(o.state_peak);
        self.state_dropped += o.state_dropped;
    }
}

impl FlowStats {
    /// A flow as first seen: plain UDP, the first sender taken as the client.
    fn new(flow: u64, client: SocketAddr, server: SocketAddr, time: Timestamp) -> FlowStats {
        FlowStats {
            capture: None,
            flow,
            client,
            server,
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
        }
    }

    fn count(&mut self, errors: bool, first_of_datagram: bool, d: &DatagramTally) {
        self.messages += 1;
        if errors {
            self.malformed += 1;
        }
        if first_of_datagram {
            match d.direction {
                Direction::ToServer => {
                    self.packets_to_server += 1;
                    self.bytes_to_server += d.len;
                }
                Direction::ToClient => {
                    self.packets_to_client += 1;
                    self.bytes_to_client += d.len;
                }
            }
            self.last_time = d.time;
        }
    }
}
