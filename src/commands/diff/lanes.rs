//! Streams of messages, one per flow and direction, paired between the two inputs and aligned
//! in bounded windows.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::hash::{Hash, Hasher};

use super::align::{Op, align};
use super::compare::{CompareOptions, FieldDiff};
use super::msg::Msg;

/// Which flow of its input a stream is: paired between inputs by protocol and server port,
/// then by order of appearance (or by an explicit `--pair`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct StreamKey {
    /// Explicitly paired: the golden flow number.
    pub pair: Option<u64>,
    pub protocol: String,
    pub server_port: u16,
    /// 0 for the first flow of this protocol and server port, 1 for the next…
    pub ordinal: u32,
}

impl std::fmt::Display for StreamKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.pair {
            Some(g) => write!(f, "{} golden flow {g} (paired)", self.protocol),
            None => write!(
                f,
                "{} server port {} #{}",
                self.protocol, self.server_port, self.ordinal
            ),
        }
    }
}

/// What differs.
#[derive(Debug, Clone, PartialEq)]
pub enum What {
    Field(FieldDiff),
    /// In the golden input, not in the new one.
    Missing,
    /// In the new input, not in the golden one.
    Extra,
    /// The same message, at another place in the order.
    Moved,
    /// This message and the one at golden frame `with` trade places.
    Swapped {
        with: u64,
    },
    /// A whole flow (direction) that the other input does not have: `messages` of it.
    FlowOnlyGolden {
        messages: u64,
    },
    FlowOnlyNew {
        messages: u64,
    },
}

/// One difference, located on both sides.
#[derive(Debug, Clone, PartialEq)]
pub struct Difference {
    pub stream: StreamKey,
    pub to_server: bool,
    pub golden_frame: Option<u64>,
    pub new_frame: Option<u64>,
    /// The message type.
    pub kind: String,
    pub what: What,
}

/// A message with its alignment key: its type and a hash of what is compared.
struct Keyed {
    msg: Msg,
    key: (u64, u64),
    bytes: usize,
}

impl Keyed {
    /// Approximate heap bytes, for the bound on what is held (fixed when it is queued, so
    /// that what is added and taken away match).
    fn bytes(&self) -> usize {
        self.bytes
    }
}

/// A flow quiet this long in both inputs (in each input's own capture time) is over: the
/// engine forgets flows idle for as long.
const IDLE_SECONDS: f64 = 600.0;
/// Held messages of all flows together stay under this many bytes; past it the least recently
/// active flow is aligned and reported as it stands.
const MAX_HELD_BYTES: usize = 256 << 20;
/// How often (in messages) idle flows are looked for.
const SWEEP_EVERY: u64 = 4096;

/// rustc's FxHash: fast, and a collision only makes two messages look alike to the alignment,
/// which the field comparison of the pair then corrects; the window bounds the work either way.
#[derive(Default)]
struct Fx(u64);

impl Hasher for Fx {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let mut a = [0u8; 8];
            a.copy_from_slice(c);
            self.add(u64::from_le_bytes(a));
        }
        let rest = chunks.remainder();
        let mut a = [0u8; 8];
        a[..rest.len()].copy_from_slice(rest);
        self.add(u64::from_le_bytes(a) ^ rest.len() as u64);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

impl Fx {
    fn add(&mut self, w: u64) {
        self.0 = (self.0.rotate_left(5) ^ w).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
}

fn hash_of<T: Hash + ?Sized>(v: &T) -> u64 {
    let mut h = Fx::default();
    v.hash(&mut h);
    h.finish()
}

fn keyed(msg: Msg, opts: &CompareOptions) -> Keyed {
    let mut h = Fx::default();
    if opts.ignore.is_empty() && opts.only.is_empty() {
        msg.body.hash(&mut h);
    } else {
        for (name, value) in msg.fields() {
            if opts.wanted(name) {
                (name, value).hash(&mut h);
            }
        }
    }
    if opts.addresses {
        (&msg.src, &msg.dst).hash(&mut h);
    }
    let key = (hash_of(&msg.kind), h.finish());
    let bytes = msg.bytes();
    Keyed { msg, key, bytes }
}

#[derive(Default)]
struct Lane {
    golden: VecDeque<Keyed>,
    new: VecDeque<Keyed>,
    seen_golden: u64,
    seen_new: u64,
    /// The first message of each side: frame and type.
    first_golden: Option<(u64, String)>,
    first_new: Option<(u64, String)>,
    /// Messages let go while the other input had no such flow yet.
    dropped_golden: u64,
    dropped_new: u64,
    /// Capture time of the last message of each side (golden, new).
    last_time: [Option<f64>; 2],
    /// When the lane last got a message (the count of messages pushed then).
    touched: u64,
    /// Approximate bytes held in the two queues.
    bytes: usize,
}

/// Per-input bookkeeping: which stream each flow is.
#[derive(Default)]
struct Side {
    /// Flow id → (stream, the first sender's address).
    flows: HashMap<String, (StreamKey, String)>,
    ordinals: HashMap<(String, u16), u32>,
}

fn port_of(addr: &str) -> u16 {
    addr.rsplit(':')
        .next()
        .and_then(|p| p.parse().ok())
        .unwrap_or(0)
}

impl Side {
    /// The stream and direction of a message, learning its flow on first sight.
    fn place(&mut self, m: &Msg, pairs: &[(u64, u64)], golden: bool) -> (StreamKey, bool) {
        let id = match m.flow {
            Some(n) => n.to_string(),
            None => {
                let (a, b) = if m.src <= m.dst {
                    (&m.src, &m.dst)
                } else {
                    (&m.dst, &m.src)
                };
                format!("{a}|{b}")
            }
        };
        let pair = m.flow.and_then(|f| {
            pairs
                .iter()
                .find(|&&(g, n)| if golden { g == f } else { n == f })
                .map(|&(g, _)| g)
        });
        let ordinals = &mut self.ordinals;
        let (key, first_src) = self.flows.entry(id).or_insert_with(|| {
            let to_server = m.to_server.unwrap_or(true);
            let server = if to_server { &m.dst } else { &m.src };
            let slot = (m.protocol.clone(), port_of(server));
            let n = ordinals.entry(slot.clone()).or_insert(0);
            let key = StreamKey {
                pair,
                protocol: slot.0,
                server_port: slot.1,
                ordinal: if pair.is_some() { 0 } else { *n },
            };
            if pair.is_none() {
                *n += 1;
            }
            (key, m.src.clone())
        });
        let to_server = m.to_server.unwrap_or(m.src == *first_src);
        (key.clone(), to_server)
    }
}

/// The alignment of both inputs: fed message by message, it reports differences as the
/// windows fill, holding at most a few windows of messages per stream.
pub struct Lanes {
    opts: CompareOptions,
    window: usize,
    pairs: Vec<(u64, u64)>,
    lanes: BTreeMap<(StreamKey, bool), Lane>,
    sides: [Side; 2],
    /// Messages pushed so far.
    pushes: u64,
    /// The latest capture time of each input.
    now: [Option<f64>; 2],
    held_bytes: usize,
}

impl Lanes {
    pub fn new(opts: CompareOptions, window: usize, pairs: Vec<(u64, u64)>) -> Lanes {
        Lanes {
            opts,
            window: window.max(2),
            pairs,
            lanes: BTreeMap::new(),
            sides: [Side::default(), Side::default()],
            pushes: 0,
            now: [None, None],
            held_bytes: 0,
        }
    }

    /// Adds a message of the golden (`golden`) or new input.
    pub fn push(&mut self, golden: bool, msg: Msg, out: &mut dyn FnMut(Difference)) {
        let (stream, to_server) = self.sides[usize::from(!golden)].place(&msg, &self.pairs, golden);
        let item = keyed(msg, &self.opts);
        let side = usize::from(!golden);
        self.pushes += 1;
        if item.msg.time.is_some() {
            self.now[side] = item.msg.time;
        }
        let lane_key = (stream, to_server);
        let lane = self.lanes.entry(lane_key.clone()).or_default();
        lane.last_time[side] = item.msg.time.or(lane.last_time[side]);
        lane.touched = self.pushes;
        let bytes = item.bytes();
        lane.bytes += bytes;
        self.held_bytes += bytes;
        let first = Some((item.msg.frame, item.msg.kind.clone()));
        if golden {
            lane.first_golden = lane.first_golden.take().or(first);
            lane.golden.push_back(item);
            lane.seen_golden += 1;
        } else {
            lane.first_new = lane.first_new.take().or(first);
            lane.new.push_back(item);
            lane.seen_new += 1;
        }
        let w = self.window;
        let ready = (lane.golden.len() >= 2 * w && lane.new.len() >= 2 * w)
            || lane.golden.len() > 4 * w
            || lane.new.len() > 4 * w;
        if ready {
            self.step(&lane_key, false, out);
        }
        if self.pushes.is_multiple_of(SWEEP_EVERY) {
            self.sweep_idle(out);
        }
        while self.held_bytes > MAX_HELD_BYTES {
            let Some(oldest) = self.least_recent() else {
                break;
            };
            self.close(&oldest, out);
        }
    }

    /// Aligns and forgets the flows both inputs have been quiet on for [`IDLE_SECONDS`].
    fn sweep_idle(&mut self, out: &mut dyn FnMut(Difference)) {
        let now = self.now;
        let idle = |lane: &Lane| {
            (0..2).all(|s| match (now[s], lane.last_time[s]) {
                (Some(n), Some(t)) => n - t > IDLE_SECONDS,
                _ => true,
            })
        };
        let done: Vec<_> = self
            .lanes
            .iter()
            .filter(|(_, l)| idle(l))
            .map(|(k, _)| k.clone())
            .collect();
        for k in done {
            self.close(&k, out);
        }
    }

    fn least_recent(&self) -> Option<(StreamKey, bool)> {
        self.lanes
            .iter()
            .filter(|(_, l)| l.bytes > 0)
            .min_by_key(|(_, l)| l.touched)
            .map(|(k, _)| k.clone())
    }

    /// Aligns all a stream holds, reports it and forgets the stream.
    fn close(&mut self, k: &(StreamKey, bool), out: &mut dyn FnMut(Difference)) {
        let Some(lane) = self.lanes.get(k) else {
            return;
        };
        if lane.seen_golden == 0 || lane.seen_new == 0 {
            self.flow_only(k, out);
        } else {
            self.dropped(k, out);
            while self.lanes[k].golden.len() + self.lanes[k].new.len() > 0 {
                self.step(k, true, out);
            }
        }
        if let Some(lane) = self.lanes.remove(k) {
            self.held_bytes -= lane.bytes;
        }
    }

    /// Both inputs have ended: aligns what every stream still holds.
    pub fn finish(&mut self, out: &mut dyn FnMut(Difference)) {
        let keys: Vec<_> = self.lanes.keys().cloned().collect();
        for k in keys {
            self.close(&k, out);
        }
    }

    /// A stream only one input has: one difference for all of it.
    fn flow_only(&mut self, k: &(StreamKey, bool), out: &mut dyn FnMut(Difference)) {
        let Some(lane) = self.lanes.get_mut(k) else {
            return;
        };
        let golden_side = lane.seen_new == 0;
        let what = if golden_side {
            What::FlowOnlyGolden {
                messages: lane.seen_golden,
            }
        } else {
            What::FlowOnlyNew {
                messages: lane.seen_new,
            }
        };
        let first = if golden_side {
            &lane.first_golden
        } else {
            &lane.first_new
        };
        out(only_difference(k, golden_side, first.clone(), what));
        lane.golden.clear();
        lane.new.clear();
        self.held_bytes -= lane.bytes;
        lane.bytes = 0;
    }

    /// Messages one input had before the other input's flow began.
    fn dropped(&mut self, k: &(StreamKey, bool), out: &mut dyn FnMut(Difference)) {
        let Some(lane) = self.lanes.get(k) else {
            return;
        };
        if lane.dropped_golden > 0 {
            let what = What::FlowOnlyGolden {
                messages: lane.dropped_golden,
            };
            out(only_difference(k, true, lane.first_golden.clone(), what));
        }
        if lane.dropped_new > 0 {
            let what = What::FlowOnlyNew {
                messages: lane.dropped_new,
            };
            out(only_difference(k, false, lane.first_new.clone(), what));
        }
    }

    /// Aligns the front windows of a stream and reports the part that is settled (all of it
    /// when `last`).
    fn step(&mut self, k: &(StreamKey, bool), last: bool, out: &mut dyn FnMut(Difference)) {
        let w = self.window;
        let Some(lane) = self.lanes.get_mut(k) else {
            return;
        };
        if !last && (lane.seen_golden == 0 || lane.seen_new == 0) {
            // The other input has no such flow yet: keep counting, hold one window.
            let (q, dropped) = if lane.seen_new == 0 {
                (&mut lane.golden, &mut lane.dropped_golden)
            } else {
                (&mut lane.new, &mut lane.dropped_new)
            };
            let mut freed = 0;
            while q.len() > w {
                freed += q.pop_front().map_or(0, |m| m.bytes());
                *dropped += 1;
            }
            lane.bytes -= freed;
            self.held_bytes -= freed;
            return;
        }
        let a: Vec<(u64, u64)> = lane.golden.iter().take(2 * w).map(|m| m.key).collect();
        let b: Vec<(u64, u64)> = lane.new.iter().take(2 * w).map(|m| m.key).collect();
        let ops = align(&a, &b);
        let settled = settled_prefix(&ops, w, last);
        let (ng, nn) = consumed(&ops[..settled]);
        let g: Vec<Keyed> = lane.golden.drain(..ng).collect();
        let n: Vec<Keyed> = lane.new.drain(..nn).collect();
        let freed: usize = g.iter().chain(&n).map(Keyed::bytes).sum();
        lane.bytes -= freed;
        self.held_bytes -= freed;
        report(&self.opts, k, &ops[..settled], &g, &n, out);
    }
}

fn only_difference(
    k: &(StreamKey, bool),
    golden_side: bool,
    first: Option<(u64, String)>,
    what: What,
) -> Difference {
    let (frame, kind) = first.unwrap_or_default();
    Difference {
        stream: k.0.clone(),
        to_server: k.1,
        golden_frame: golden_side.then_some(frame),
        new_frame: (!golden_side).then_some(frame),
        kind,
        what,
    }
}

/// How many leading ops are settled: up to the last one-to-one match wholly inside the first
/// window, so that a run of unmatched messages is never split between two steps.
fn settled_prefix(ops: &[Op], w: usize, last: bool) -> usize {
    if last {
        return ops.len();
    }
    let inside = |op: &Op| match *op {
        Op::Both(i, j) => i < w && j < w,
        Op::Golden(i) => i < w,
        Op::New(j) => j < w,
        Op::Swap(_, j) => j < w,
    };
    let limit = ops.iter().take_while(|op| inside(op)).count();
    let anchor = |op: &Op| matches!(op, Op::Both(..) | Op::Swap(..));
    match ops[..limit].iter().rposition(anchor) {
        Some(p) => p + 1,
        None => limit.max(1).min(ops.len()),
    }
}

/// How many golden and new messages the ops cover.
fn consumed(ops: &[Op]) -> (usize, usize) {
    ops.iter().fold((0, 0), |(g, n), op| match *op {
        Op::Both(i, j) => (g.max(i + 1), n.max(j + 1)),
        Op::Golden(i) => (g.max(i + 1), n),
        Op::New(j) => (g, n.max(j + 1)),
        Op::Swap(_, j) => (g.max(j + 1), n.max(j + 1)),
    })
}

/// Turns settled ops into differences: identical messages at other places are one move;
/// between matches, unmatched messages of the same type pair up in order and compare field by
/// field; the rest are missing or extra.
fn report(
    opts: &CompareOptions,
    k: &(StreamKey, bool),
    ops: &[Op],
    g: &[Keyed],
    n: &[Keyed],
    out: &mut dyn FnMut(Difference),
) {
    let diff = |gi: Option<usize>, ni: Option<usize>, what: What| Difference {
        stream: k.0.clone(),
        to_server: k.1,
        golden_frame: gi.map(|i| g[i].msg.frame),
        new_frame: ni.map(|j| n[j].msg.frame),
        kind: gi.map_or_else(
            || n[ni.unwrap_or(0)].msg.kind.clone(),
            |i| g[i].msg.kind.clone(),
        ),
        what,
    };
    let mut claimed_new = vec![false; n.len()];
    let mut moved_golden = vec![false; g.len()];
    let unmatched_new: Vec<usize> = ops
        .iter()
        .filter_map(|op| if let Op::New(j) = *op { Some(j) } else { None })
        .collect();
    for op in ops {
        if let Op::Golden(i) = *op
            && let Some(&j) = unmatched_new
                .iter()
                .find(|&&j| !claimed_new[j] && n[j].key == g[i].key)
        {
            claimed_new[j] = true;
            moved_golden[i] = true;
            out(diff(Some(i), Some(j), What::Moved));
        }
    }
    let mut run_g: Vec<usize> = Vec::new();
    let mut run_n: Vec<usize> = Vec::new();
    for op in ops
        .iter()
        .chain(std::iter::once(&Op::Both(usize::MAX, usize::MAX)))
    {
        match *op {
            Op::Golden(i) if !moved_golden[i] => run_g.push(i),
            Op::New(j) if !claimed_new[j] => run_n.push(j),
            Op::Swap(i, j) => {
                run(opts, &run_g, &run_n, g, n, &diff, out);
                run_g.clear();
                run_n.clear();
                let with = g[j].msg.frame;
                out(diff(Some(i), Some(i), What::Swapped { with }));
            }
            Op::Both(i, j) => {
                run(opts, &run_g, &run_n, g, n, &diff, out);
                run_g.clear();
                run_n.clear();
                if i != usize::MAX {
                    for d in opts.compare(&g[i].msg, &n[j].msg) {
                        out(diff(Some(i), Some(j), What::Field(d)));
                    }
                }
            }
            _ => {}
        }
    }
}

/// A run of unmatched messages between two matches.
fn run(
    opts: &CompareOptions,
    run_g: &[usize],
    run_n: &[usize],
    g: &[Keyed],
    n: &[Keyed],
    diff: &dyn Fn(Option<usize>, Option<usize>, What) -> Difference,
    out: &mut dyn FnMut(Difference),
) {
    let mut used = vec![false; run_n.len()];
    for &i in run_g {
        let partner = run_n
            .iter()
            .enumerate()
            .find(|&(p, &j)| !used[p] && n[j].key.0 == g[i].key.0);
        match partner {
            Some((p, &j)) => {
                used[p] = true;
                for d in opts.compare(&g[i].msg, &n[j].msg) {
                    out(diff(Some(i), Some(j), What::Field(d)));
                }
            }
            None => out(diff(Some(i), None, What::Missing)),
        }
    }
    for (p, &j) in run_n.iter().enumerate() {
        if !used[p] {
            out(diff(None, Some(j), What::Extra));
        }
    }
}
