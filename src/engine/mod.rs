//! The pipeline between capture reading and output: frames → UDP datagrams (reassembled when
//! fragmented) → flows → the flow's decoder → records, with statistics along the way.
//!
//! - `flows`: the flow table (keys, hash, idle and cap eviction) and a flow's state;
//! - `choice`: which decoder a flow gets, and which end is its server;
//! - `tally`: the statistics `stats` reports;
//! - `config`: what to decode and report.
//!
//! This module ties them together per datagram: find the flow, give it a decoder if it has none
//! (an unclaimed flow is probed again on its next datagrams, up to [`PROBE_ATTEMPTS`], then stays
//! plain UDP), decode, add the UDP layer's notes, filter, count and hand the records on.

mod choice;
mod config;
mod flows;
pub mod hindsight;
pub mod overheard;
mod series;
mod tally;
mod waiting;

use std::borrow::Cow;
use std::net::SocketAddr;
use std::panic::{AssertUnwindSafe, catch_unwind};

use crate::capture::{Packet, Timestamp};
use crate::net::defrag::Defragmenter;
use crate::net::{self, Frame, UdpLength};
use crate::proto::{
    Datagram, FlowDecoder, Meta, Overhearing, ProbeInput, Protocol, Release, RoleSource,
};
use crate::toolkit::udp as udpf;
use crate::tree::{Detail, Field, Note, NoteDef, Pos, Record, Value};

use crate::proto::Heard;
pub use choice::EVIDENCE_DATAGRAMS;
pub use choice::PROBE_ATTEMPTS;
use choice::{Decoder, Verdict, choose};
pub use config::{Config, DecodeAs, FrameRange, Shard};
use flows::{Flow, FlowTable};
use hindsight::Hindsight;
use tally::DatagramTally;
pub use tally::{CountBytes, FlowStats, FlowTableStats, MAX_FLOW_STATS, ProtocolStats, Stats};
use waiting::Waiting;
pub use waiting::{WAIT_BYTES, WAIT_FRAMES, WAIT_SECS};

/// Which holds [`Engine::deliver_waiting`] gives up before it hands on what is ready.
#[derive(Clone, Copy)]
enum GiveUp {
    None,
    /// Those past a bound at this capture time.
    Overdue(Timestamp),
    /// Every one: the input has ended.
    All,
}

pub struct Engine {
    protocols: Vec<&'static dyn Protocol>,
    /// The protocols that overhear (`Protocol::overhearing`), decided once.
    listeners: Vec<&'static dyn Overhearing>,
    config: Config,
    /// The state of a fresh decoder of each protocol, which the state budget does not count.
    fresh_state: Vec<usize>,
    flows: FlowTable,
    defrag: Defragmenter,
    /// The current datagram's records, kept to reuse its allocation.
    records: Vec<Record>,
    stats: Stats,
    frame: u64,
    base: Option<Timestamp>,
    /// Deliveries waiting behind a held datagram.
    hold: waiting::Queue,
    /// What datagrams said about their senders to other flows.
    overheard: overheard::Overheard,
}

/// A datagram as the UDP layer delivered it, with what the layers below said about it.
struct Arrival<'u, 'a> {
    frame: u64,
    time: Timestamp,
    udp: &'u net::Udp<'a>,
    /// The capture cut the frame (and the IP layer saw the datagram incomplete).
    cut: bool,
    /// The number of IP fragments it was reassembled from.
    reassembled_from: Option<usize>,
}

/// What flow `f`'s decoder is told was overheard about the ends of `u` (new since its last
/// look; nothing while it has no decoder, so that its first decoder hears it all).
fn heard_by<'o>(
    o: &'o overheard::Overheard,
    f: &mut flows::Flow,
    (src, dst): (SocketAddr, SocketAddr),
) -> Heard<'o> {
    match f.decoder {
        Some(_) => o.since(&mut f.heard_at, src, dst),
        None => Heard::default(),
    }
}

/// The record of a datagram no decoder claimed.
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

/// The notes the UDP and lower layers owe every record of this datagram.
#[inline]
fn layer_notes(a: &Arrival<'_, '_>) -> Vec<Note> {
    let u = a.udp;
    let mut notes: Vec<Note> = Vec::new();
    match u.length {
        UdpLength::Ok => {}
        UdpLength::Cut => notes.push(Note::new(
            &udpf::CUT_BY_SNAPLEN,
            Some(&udpf::LENGTH),
            None,
            format!(
                "datagram cut by the capture's snaplen: {} of {} payload bytes captured",
                u.payload.len(),
                u.declared_len
            ),
        )),
        UdpLength::Lies { claimed, available } => notes.push(Note::new(
            &udpf::LENGTH_LIES,
            Some(&udpf::LENGTH),
            None,
            format!("UDP length {claimed} does not fit the {available} payload bytes the IP packet carries"),
        )),
    }
    if a.cut && u.length == UdpLength::Ok {
        notes.push(Note::new(
            &udpf::FRAME_CUT,
            None,
            None,
            "frame cut by the capture's snaplen",
        ));
    }
    if let Some(n) = a.reassembled_from {
        notes.push(Note::new(
            &udpf::REASSEMBLED,
            None,
            None,
            format!("datagram reassembled from {n} IP fragments"),
        ));
    }
    notes
}

/// A flow's decoder state is measured after its 1st, 2nd, 4th, 8th and 16th datagram, then
/// after every 32nd: often enough that no flow grows far past the budget unseen (each decoder caps
/// what one datagram can add), rarely enough to cost nothing per datagram.
const MEASURE_EVERY: u64 = 32;

/// Measures the flow's decoder state when it is due (beyond a fresh decoder's); the old and new
/// sizes when they differ.
#[inline]
fn measure_state(f: &mut Flow, fresh: &[usize]) -> Option<(usize, usize)> {
    let n = f.datagrams;
    if !(n.is_power_of_two() || n.is_multiple_of(MEASURE_EVERY)) {
        return None;
    }
    // Only what the flow gathered counts: a fresh decoder's own size is a per-flow constant,
    // bounded by the flow cap, and dropping the state could not free it.
    let new = f.decoder.as_ref().map_or(0, |d| {
        d.state
            .state_bytes()
            .saturating_sub(fresh.get(d.protocol).copied().unwrap_or(0))
    });
    let old = std::mem::replace(&mut f.state, new);
    (old != new).then_some((old, new))
}

/// The field trees wanted for a datagram.
#[inline]
fn detail_for(config: &Config, frame: u64, index_in_flow: u64) -> Detail {
    match config.field_mask {
        _ if !config.detail => Detail::None,
        _ if !(config.detail_when).is_none_or(|when| when(frame, index_in_flow)) => Detail::None,
        Some(mask) => Detail::Only(mask),
        None => Detail::All,
    }
}

/// Every note a datagram's records get from the engine: the layers', and whether the flow's
/// state was dropped at `dropped_at` bytes or it has just settled as plain UDP.
fn datagram_notes(a: &Arrival<'_, '_>, dropped_at: Option<usize>, settled: bool) -> Vec<Note> {
    let mut notes = layer_notes(a);
    if let Some(budget) = dropped_at {
        notes.push(state_dropped_note(budget));
    }
    if settled {
        notes.push(choice::settled_note());
    }
    notes
}

/// Weighs a datagram of a flow claimed by port alone against its protocol's own check
/// ([`Protocol::evidence`]): see [`choice::EVIDENCE_DATAGRAMS`]. A withdrawn claim leaves the
/// flow plain UDP from here on, its `stats` entry saying why.
fn weigh_claim(
    f: &mut Flow,
    protocols: &[&'static dyn Protocol],
    (records, releases, stats): (&mut Vec<Record>, &mut Vec<Release>, &mut Stats),
    u: &net::Udp<'_>,
    frame: u64,
) -> Verdict {
    let Some(d) = f.decoder.as_mut().filter(|d| d.probation.is_some()) else {
        return Verdict::Claimed;
    };
    let input = ProbeInput {
        payload: u.payload,
        src_port: u.src.port(),
        dst_port: u.dst.port(),
    };
    let evidence = protocols[d.protocol].evidence(&input);
    let verdict = d.weigh(
        (frame, u.payload, u.declared_len),
        evidence,
        records,
        releases,
    );
    if let Verdict::Withdrawn(fact) = &verdict {
        withdraw(f, stats, fact.clone());
    }
    verdict
}

/// Probes a flow without a decoder ([`Engine::assign`]) and ends its trial when the judge or a
/// probe decided ([`series`]): whether it has just settled as plain UDP, and whether it is on
/// trial still (its datagram then waits for the verdict).
fn probe(
    f: &mut Flow,
    (protocols, config): (&[&'static dyn Protocol], &Config),
    stats: &mut Stats,
    (overheard, hold): (&overheard::Overheard, &mut waiting::Queue),
    u: &net::Udp<'_>,
) -> (bool, bool) {
    let on_trial = f.watch.is_some();
    let (mut settled, mut claimed) = (false, false);
    if f.decoder.is_none() && f.probes_left > 0 {
        settled = Engine::assign(f, protocols, config, stats, u);
        claimed = f.decoder.is_some();
    } else if on_trial && let Some(claim) = series::weigh(f, protocols, config, u, None) {
        // Past its probes (settled, or chosen by a likely probe), its judge weighs it still.
        Engine::install(f, protocols, config, stats, claim);
        claimed = true;
    }
    if on_trial && f.watch.is_none() {
        series::end(f, (protocols, config), (overheard, hold), claimed);
    }
    (settled, f.watch.is_some())
}

/// Ends a flow's port claim: plain UDP from here on, probed no more.
fn withdraw(f: &mut Flow, stats: &mut Stats, fact: (String, String)) {
    f.decoder = None;
    f.probes_left = 0;
    f.role_source = RoleSource::FirstSender;
    if let Some(s) = f.stats {
        stats.flow_withdrawn(s, fact);
    }
}

/// A fresh decoder for the flow between `a` and `b`, handed what a first pass learned over it
/// (`-2`).
fn new_state(
    protocol: &'static dyn Protocol,
    config: &Config,
    a: SocketAddr,
    b: SocketAddr,
) -> Box<dyn FlowDecoder> {
    let mut state = protocol.new_flow(&config.prefs);
    if let Some(learned) = (config.hindsight.as_ref()).and_then(|h| h.get(a, b))
        && let Some(l) = state.learning()
    {
        l.foresee(learned);
    }
    state
}

fn state_dropped_note(budget: usize) -> Note {
    Note::new(
        &udpf::STATE_DROPPED,
        None,
        None,
        format!(
            "the flow's decoder state was dropped at the --max-state budget of {budget} bytes while the flow was idle; decoding starts over here, as if the capture began with this datagram"
        ),
    )
}

/// Runs the flow's decoder on the datagram (whose UDP length said `declared`) into `records`; a
/// plain UDP record when the flow has none, when it made nothing, or when it panicked (a bug:
/// the flow is plain UDP from then on).
#[inline]
fn decode_into(
    records: &mut Vec<Record>,
    f: &mut Flow,
    protocols: &[&'static dyn Protocol],
    dgram: &Datagram<'_>,
    declared: usize,
) {
    records.clear();
    let payload = dgram.payload;
    let Some(d) = f.decoder.as_mut() else {
        records.push(udp_record(payload, declared));
        return;
    };
    // The datagram as plain UDP, under the flow's protocol, with a note saying why.
    let protocol = protocols[d.protocol].info().name;
    let fallback = |note: &'static NoteDef, message: &str| {
        let mut r = udp_record(payload, declared);
        r.protocol = protocol;
        r.expert(note, None, message);
        r
    };
    // A decoder bug must cost one message, not the run.
    if catch_unwind(AssertUnwindSafe(|| d.state.decode(dgram, records))).is_err() {
        records.clear();
        records.push(fallback(
            &udpf::DECODER_FAILED,
            "decoder failed on this datagram (a bug); the flow is shown as plain UDP from here on",
        ));
        f.decoder = None;
        f.probes_left = 0;
    } else if records.is_empty() {
        records.push(fallback(
            &udpf::DECODER_EMPTY,
            "decoder produced no message for this datagram",
        ));
    }
}

impl Engine {
    pub fn new(protocols: Vec<&'static dyn Protocol>, config: Config) -> Engine {
        let fresh_state = protocols
            .iter()
            .map(|p| p.new_flow(&config.prefs).state_bytes())
            .collect();
        let mut flows = FlowTable::new();
        flows.learned = config.learn.then(Hindsight::default);
        let listeners = protocols.iter().filter_map(|p| p.overhearing()).collect();
        Engine {
            protocols,
            listeners,
            fresh_state,
            defrag: Defragmenter::new(config.defrag),
            config,
            flows,
            records: Vec::new(),
            stats: Stats::default(),
            frame: 0,
            base: None,
            hold: waiting::Queue::default(),
            overheard: overheard::Overheard::default(),
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

    /// What the flows' decoders learned (with [`Config::learn`], once [`Engine::finish`] has
    /// forgotten every flow): the first pass of `-2`.
    pub fn learned(&mut self) -> Hindsight {
        self.flows.learned.take().unwrap_or_default()
    }

    /// Collects the decoders' final per-flow facts into the statistics.
    pub fn finish(&mut self) {
        self.flows.retire_all(&mut self.stats);
        self.stats.reassembly = self.defrag.stats;
        self.stats.finish_flows();
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
        // A demo message's pseudo IPv4/UDP headers are not in the input.
        self.stats.captured_bytes += pkt.data.len().saturating_sub(pkt.pseudo as usize) as u64;
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
                Some(u) => {
                    let a = Arrival {
                        frame,
                        time: pkt.time,
                        udp: &u,
                        cut: incomplete && cut,
                        reassembled_from: None,
                    };
                    self.datagram(&a, sink)
                }
                None => {
                    self.stats.link_errors += 1;
                    Ok(())
                }
            },
            Frame::Fragment(f) => {
                if let Some(whole) = self.defrag.add(&f, pkt.time) {
                    if let Some(u) = net::parse_udp(whole.src, whole.dst, &whole.segment, false) {
                        let a = Arrival {
                            frame,
                            time: pkt.time,
                            udp: &u,
                            cut: false,
                            reassembled_from: Some(whole.fragments),
                        };
                        return self.datagram(&a, sink);
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

    /// Every shard hears what every datagram says about its sender, its own flow's or not:
    /// the flows of that endpoint then know the same at every frame on any thread count.
    fn overhear(&mut self, u: &net::Udp<'_>) {
        for p in &self.listeners {
            let heard = p.overhear(u.payload);
            if !heard.is_empty() {
                self.overheard.hear(u.src, heard);
            }
        }
    }

    /// One UDP datagram: its flow, its decoder, its records.
    fn datagram<E>(
        &mut self,
        a: &Arrival<'_, '_>,
        sink: &mut dyn FnMut(&Meta<'_>, &mut Record) -> Result<(), E>,
    ) -> Result<(), E> {
        let u = a.udp;
        self.stats.udp_datagrams += 1;
        // Every shard looks at its overdue holds at every datagram, its own or not: the holds
        // end at the same frames on any thread count.
        let due = if self.hold.waiting.is_empty() {
            Ok(())
        } else {
            self.deliver_waiting(GiveUp::Overdue(a.time), sink)
        };
        due?;
        let conversations = self.flows.conversations();
        self.overhear(u);
        let f = self.flows.flow(
            (u.src, u.dst),
            a.time,
            (&self.config, &mut self.stats),
            &mut self.hold.releases,
        );
        // Another shard decodes this flow; this one only keeps the flow's clock for eviction.
        if self.config.shard.is_some_and(|s| s.index != f.owner) {
            f.last_seen = a.time;
            return Ok(());
        }
        let parts = (&self.protocols[..], &self.config);
        let queue = (&self.overheard, &mut self.hold);
        let (settled, trial) = probe(f, parts, &mut self.stats, queue, u);
        f.last_seen = a.time;
        let index_in_flow = f.datagrams;
        f.datagrams += 1;
        let direction = f.direction_to(u.dst);
        let overheard = heard_by(&self.overheard, f, (u.src, u.dst));
        let dgram = Datagram {
            payload: u.payload,
            truncated: a.cut,
            direction,
            src: u.src,
            dst: u.dst,
            time: a.time,
            frame: a.frame,
            index_in_flow,
            conversations,
            overheard,
            role_source: f.role_source,
            detail: detail_for(&self.config, a.frame, index_in_flow),
        };
        let declared = u.declared_len;
        decode_into(&mut self.records, f, &self.protocols, &dgram, declared);
        let on_trial = (&mut self.records, &mut self.hold.releases, &mut self.stats);
        let verdict = weigh_claim(f, &self.protocols, on_trial, u, a.frame);
        let measured = measure_state(f, &self.fresh_state);
        let held = verdict == Verdict::Held
            || (f.decoder.as_mut()).is_some_and(|d| d.holds_last(&mut self.hold.releases));
        let state_dropped = std::mem::take(&mut f.state_dropped);
        let (src_text, dst_text) = f.ends_text(u.src, u.dst);
        let roles_known = f.decoder.is_some() && f.role_source != RoleSource::FirstSender;
        let meta = Meta {
            frame: a.frame,
            time: a.time,
            base: self.base.unwrap_or(a.time),
            src: u.src,
            dst: u.dst,
            src_text,
            dst_text,
            payload: u.payload,
            flow: f.id,
            direction: roles_known.then_some(direction),
        };
        let tally = DatagramTally {
            cut: a.cut,
            flow: f.stats,
            direction,
            len: u.payload.len() as u64,
            time: a.time,
        };
        let notes = datagram_notes(
            a,
            state_dropped.then(|| self.config.state_budget()),
            settled,
        );
        let result = if self.hold.waiting.is_empty() && !held && !trial {
            self.hold.releases.clear();
            Engine::deliver(
                &mut self.records,
                &self.config,
                &mut self.stats,
                (&meta, &notes, &tally),
                sink,
            )
        } else {
            let records = std::mem::take(&mut self.records);
            let at_bytes = self.stats.captured_bytes;
            let mut w = Waiting::new(&meta, (notes, tally, records), held, at_bytes);
            (w.trial, w.declared, w.conversations) = (trial, declared, conversations);
            self.hold.waiting.push_back(w);
            self.hold.apply_releases();
            self.deliver_waiting(GiveUp::None, sink)
        };
        if let Some((old, new)) = measured {
            self.restate(old, new);
        }
        result
    }

    /// The last frame whose records have all been handed on: the frames read, unless records
    /// wait behind a held datagram.
    pub fn settled_frames(&self) -> u64 {
        self.hold.settled_through(self.frame)
    }

    /// Hands on the waiting deliveries that are ready, first giving up the holds `give_up`
    /// says. A sink that fails (`-c N` reached, the output gone) ends the run: it is not called
    /// again.
    fn deliver_waiting<E>(
        &mut self,
        give_up: GiveUp,
        sink: &mut dyn FnMut(&Meta<'_>, &mut Record) -> Result<(), E>,
    ) -> Result<(), E> {
        loop {
            let due = match give_up {
                GiveUp::None => None,
                GiveUp::Overdue(t) => {
                    self.hold
                        .overdue_head(self.frame, t, self.stats.captured_bytes)
                }
                GiveUp::All => self.hold.waiting.front().filter(|w| w.waits()),
            };
            if let Some(w) = due {
                let (frame, key, held) = (w.frame, (w.src, w.dst), w.held);
                // A trial past the bounds ends undecided: its datagrams stand as first shown.
                if w.trial {
                    let flow = w.flow;
                    if let Some(f) = self.flows.get_mut(key).filter(|f| f.id == flow) {
                        f.watch = None;
                    }
                    self.hold.end_trial(flow);
                }
                // Only a decoder's hold is given up: a trial alone (a flow's, or an evicted
                // flow's under a new flow with the same ends) leaves the decoder as it is.
                if held
                    && let Some(f) = self.flows.get_mut(key)
                    && let Some(d) = f.decoder.as_mut()
                    && let Some(fact) = d.give_up(frame, &mut self.hold.releases)
                {
                    withdraw(f, &mut self.stats, fact);
                }
                self.hold.apply_releases();
                // A decoder that is gone (its flow forgotten) or that released nothing: the
                // records first shown stand.
                if let Some(w) = self.hold.waiting.front_mut() {
                    (w.held, w.trial) = (false, false);
                }
            }
            let Some(mut w) = self.hold.pop_ready() else {
                return Ok(());
            };
            let base = self.base.unwrap_or(w.time);
            let mut records = std::mem::take(&mut w.records);
            Engine::deliver(
                &mut records,
                &self.config,
                &mut self.stats,
                (&w.meta(base), &w.notes, &w.tally),
                sink,
            )?;
        }
    }

    /// Gives up the holds past their frame or byte bound now, as the next datagram would
    /// before it is decoded, and hands on what is then ready. Between datagrams (a run of
    /// frames that are not UDP) this keeps the frames behind a hold within the bounds for a
    /// caller that keeps them all (`annotate`); the records are the same as without it. The
    /// time bound is left to that datagram: a capture's time can go backwards.
    pub fn deliver_overdue<E>(
        &mut self,
        sink: &mut dyn FnMut(&Meta<'_>, &mut Record) -> Result<(), E>,
    ) -> Result<(), E> {
        if self.hold.waiting.is_empty() {
            return Ok(());
        }
        // The earliest time there is: no hold is past the time bound at it.
        let never = Timestamp::new(i64::MIN, 0, 0);
        self.deliver_waiting(GiveUp::Overdue(never), sink)
    }

    /// Hands on every waiting delivery, giving up every hold: the input has ended, or a live
    /// input went quiet (decoding goes on after it: a pad found later keys later messages).
    pub fn flush<E>(
        &mut self,
        sink: &mut dyn FnMut(&Meta<'_>, &mut Record) -> Result<(), E>,
    ) -> Result<(), E> {
        self.deliver_waiting(GiveUp::All, sink)
    }

    /// Takes a flow's new state size into the total and, past the budget, drops the least
    /// recently active flows' state (each decoder starts over with a fresh one).
    fn restate(&mut self, old: usize, new: usize) {
        self.flows.restate(old, new);
        let total = self.flows.state_total() as u64;
        let t = &mut self.stats.flow_table;
        t.state_peak = t.state_peak.max(total);
        let budget = self.config.state_budget();
        if total as usize <= budget {
            return;
        }
        let (protocols, config) = (&self.protocols, &self.config);
        let releases = &mut self.hold.releases;
        t.state_dropped += self.flows.shed(budget, |f, (a, b), learned| {
            if let Some(d) = f.decoder.as_mut() {
                // What it holds is released before its state goes (applied at the next datagram).
                // A port claim still without evidence is withdrawn (its `stats` entry keeps the
                // claim: the statistics are not at hand here).
                if d.give_up(u64::MAX, releases).is_some() {
                    f.decoder = None;
                    f.probes_left = 0;
                    return;
                }
                // `-2`: what the dropped state learned is kept, and the new one starts from it.
                if let Some(h) = learned {
                    h.add(a, b, d.hindsight());
                }
                d.state = new_state(protocols[d.protocol], config, a, b);
                // The new state is told again what was overheard.
                f.heard_at = 0;
            }
        });
    }

    /// Probes a flow that has no decoder yet, weighs it for a series judge ([`series`]), and,
    /// when a protocol claims it, gives it one. Returns whether this was the flow's last probe
    /// and nothing claimed it: it is settled as plain UDP, which its record and its statistics
    /// say.
    fn assign(
        f: &mut Flow,
        protocols: &[&'static dyn Protocol],
        config: &Config,
        stats: &mut Stats,
        u: &net::Udp<'_>,
    ) -> bool {
        f.probes_left -= 1;
        let chosen = choose(protocols, config, u.src, u.dst, u.payload);
        let Some((choice, basis)) = series::weigh(f, protocols, config, u, chosen) else {
            if f.probes_left > 0 {
                return false;
            }
            if let Some(s) = f.stats {
                stats.flow_facts(s, vec![choice::settled_fact(config, u.src, u.dst)]);
            }
            return true;
        };
        Engine::install(f, protocols, config, stats, (choice, basis));
        false
    }

    /// Gives a flow the decoder of `choice`, and its roles; `basis` is what a series judge's
    /// claim rests on, for `stats`.
    fn install(
        f: &mut Flow,
        protocols: &[&'static dyn Protocol],
        config: &Config,
        stats: &mut Stats,
        (choice, basis): (choice::Choice, Option<String>),
    ) {
        let protocol = protocols[choice.protocol];
        f.decoder = Some(Decoder::new(
            (choice.protocol, protocol.info().name),
            new_state(protocol, config, choice.client, choice.server),
            choice.chosen_by,
        ));
        f.server = choice.server;
        f.role_source = choice.role_source;
        // A decoder replacing one (a judge found the roles reversed) hears it all again.
        f.heard_at = 0;
        if let Some(s) = f.stats {
            stats.flow_assigned(s, protocol.info().name, &choice);
            if let Some(basis) = basis {
                stats.flow_facts(s, vec![("decoder".to_string(), basis)]);
            }
        }
    }

    /// Adds the layers' notes to each record, and counts and hands on those the filters select.
    /// The datagram's payload bytes are split evenly between its records, the remainder to the
    /// first.
    #[inline]
    fn deliver<E>(
        records: &mut [Record],
        config: &Config,
        stats: &mut Stats,
        (meta, notes, tally): (&Meta<'_>, &[Note], &DatagramTally),
        sink: &mut dyn FnMut(&Meta<'_>, &mut Record) -> Result<(), E>,
    ) -> Result<(), E> {
        let selected_frame = config.frames.contains(meta.frame)
            && (config.frame_list.is_empty()
                || config.frame_list.iter().any(|r| r.contains(meta.frame)));
        let n = records.len() as u64;
        let share = tally.len / n.max(1);
        let mut result = Ok(());
        for (k, rec) in records.iter_mut().enumerate() {
            rec.notes.extend(notes.iter().cloned());
            let wanted = selected_frame
                && (config.only_protocols.is_empty()
                    || config.only_protocols.iter().any(|p| p == rec.protocol))
                && config.filter.as_ref().is_none_or(|f| f.matches(meta, rec));
            if !wanted {
                continue;
            }
            if config.message_stats {
                let bytes = if k == 0 {
                    tally.len - share * (n - 1)
                } else {
                    share
                };
                stats.count(rec, bytes, k == 0, tally);
            }
            if result.is_ok() {
                result = sink(meta, rec);
            }
        }
        result
    }
}

#[cfg(test)]
mod tests;
