//! Decoding on several cores with output byte-identical to a single thread's.
//!
//! Flows are independent of each other once a flow's decoder is chosen, so the work splits by
//! flow. A reader thread reads the input once, in blocks, and hands every block to each of `n`
//! shard threads. Every shard runs a whole [`Engine`] over the whole capture (capture reading,
//! link layers, reassembly and the flow table are cheap and deterministic), but decodes and
//! renders only the flows it owns ([`Shard`]: the least loaded shard when the flow began). Each shard writes its
//! rendered records into batches tagged with frame numbers; this thread merges the batches back
//! into frame order and writes them.
//!
//! Only bytes cross threads: each record's tree is built, rendered and freed on one thread.
//! (An earlier design sent the records themselves to a writer thread and was slower than one
//! thread, because glibc's allocator pays for every free on another thread; see
//! docs/performance.md.)
//!
//! Memory stays bounded: blocks and batches travel through bounded channels. A shard that runs
//! out of input hands over what it has decoded before it waits, which keeps the pipeline from
//! deadlocking: the merger can then always make progress on the shard that is furthest behind.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::io::{self, BufRead, Read, Write};
use std::rc::Rc;
use std::sync::Arc;
use std::sync::mpsc::{Receiver, SyncSender, TryRecvError, sync_channel};

use crate::capture::CaptureError;
use crate::capture::source::{is_quiet, quiet_error, read_through_buffer};
use crate::engine::{Config, Engine, Shard};
use crate::output::{CaptureName, OutputFormat, Rendering};
use crate::protocols;
use crate::run::live::Flushing;
use crate::run::{Outcome, Progress, run_capture_each};

/// Sizes of the pipeline. Tests shrink them to force every hand-over path.
#[derive(Debug, Clone, Copy)]
pub struct Tuning {
    /// Bytes the reader thread reads at a time.
    pub block: usize,
    /// Blocks queued for each shard.
    pub blocks_queued: usize,
    /// A shard hands its output over once this much is rendered.
    pub batch_bytes: usize,
    /// Batches queued from each shard.
    pub batches_queued: usize,
}

impl Default for Tuning {
    fn default() -> Self {
        Tuning {
            block: 256 * 1024,
            blocks_queued: 4,
            batch_bytes: 128 * 1024,
            batches_queued: 4,
        }
    }
}

impl Tuning {
    /// The sizes for one output format. A shard can run ahead of another by the blocks queued
    /// for the slower one, and the merger holds the faster one's output meanwhile: JSON and tree
    /// output are about eleven times their input, so those formats queue fewer, smaller blocks
    /// (peak RSS then stays flat as the capture grows: 1.12x on one ten times longer, against
    /// 1.3-1.4x with the summary's sizes); the summary line is about the size of its packet, and
    /// there larger blocks save hand-overs (about 7% of a summary run).
    pub fn for_format(format: OutputFormat) -> Tuning {
        match format {
            OutputFormat::Summary | OutputFormat::Fields | OutputFormat::Parquet => {
                Tuning::default()
            }
            OutputFormat::Json | OutputFormat::Tree => Tuning {
                block: 64 * 1024,
                blocks_queued: 2,
                ..Tuning::default()
            },
        }
    }
}

/// The shard count to use when the user does not choose: one per core, at most four (past that
/// every shard's share of the common work, reading and flow tracking, outweighs its decoding).
pub fn default_shards() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get().min(4))
}

/// What the reader thread hands the shards.
enum Chunk {
    /// A block of input.
    Block(Arc<Vec<u8>>),
    /// The live input went quiet ([`crate::capture::source::Input::report_quiet`]): every shard
    /// meets it at the same place of the input, so their outputs still agree.
    Quiet,
    /// The read error that ended the input.
    Failed(io::ErrorKind, String),
}

/// Rendered records of one shard, in frame order.
struct Batch {
    bytes: Vec<u8>,
    /// Per record: its frame number and where its bytes end in `bytes`.
    ends: Vec<(u64, usize)>,
    /// The shard has handled every frame up to this one; it will send no record of them later.
    through: u64,
}

impl Batch {
    fn new(capacity: usize) -> Batch {
        Batch {
            bytes: Vec::with_capacity(capacity),
            ends: Vec::new(),
            through: 0,
        }
    }
}

/// A shard's output not yet handed over, shared by its input (which hands it over before
/// waiting), its writer (which appends to it) and its loop.
struct Pending {
    batch: Batch,
    /// Frames fully handled so far.
    through: u64,
    /// `through` at the last hand-over.
    sent_through: u64,
    tx: SyncSender<(usize, Batch)>,
    /// Batches the merger has written, back for reuse.
    spares: Receiver<Batch>,
    /// This shard's index, which tags its batches.
    shard: usize,
    batch_bytes: usize,
}

impl Pending {
    fn hand_over(&mut self, through: u64) -> io::Result<()> {
        // A written batch comes back with its memory: a fresh one each time (160 KiB) was
        // memory the kernel had to fault in again, about a thousand page faults a 50k-packet
        // summary run.
        let capacity = self.batch_bytes + self.batch_bytes / 4;
        let next = match self.spares.try_recv() {
            // One that a huge record grew is let go.
            Ok(mut b) if b.bytes.capacity() <= 2 * capacity => {
                b.bytes.clear();
                b.ends.clear();
                b.through = 0;
                b
            }
            _ => Batch::new(capacity),
        };
        let mut b = std::mem::replace(&mut self.batch, next);
        b.through = through;
        self.sent_through = through;
        self.tx
            .send((self.shard, b))
            .map_err(|_| io::Error::new(io::ErrorKind::BrokenPipe, "output merger stopped"))
    }

    /// Hands over before the shard waits for input, unless there is nothing new to say.
    fn hand_over_before_waiting(&mut self) -> io::Result<()> {
        if self.batch.ends.is_empty() && self.through == self.sent_through {
            return Ok(());
        }
        self.hand_over(self.through)
    }
}

/// The writer's destination inside a shard: the pending batch.
struct PendingBytes(Rc<RefCell<Pending>>);

impl Write for PendingBytes {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.borrow_mut().batch.bytes.extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// A shard's view of the input: the blocks the reader thread sends.
struct ShardInput {
    rx: Receiver<Chunk>,
    block: Arc<Vec<u8>>,
    at: usize,
    pending: Rc<RefCell<Pending>>,
}

impl Read for ShardInput {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        read_through_buffer(self, buf)
    }
}

/// The capture reader reads records in place from the current block.
impl BufRead for ShardInput {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        while self.at == self.block.len() {
            let chunk = match self.rx.try_recv() {
                Ok(c) => c,
                Err(TryRecvError::Disconnected) => return Ok(&[]),
                Err(TryRecvError::Empty) => {
                    self.pending.borrow_mut().hand_over_before_waiting()?;
                    match self.rx.recv() {
                        Ok(c) => c,
                        Err(_) => return Ok(&[]),
                    }
                }
            };
            match chunk {
                Chunk::Block(block) => {
                    self.block = block;
                    self.at = 0;
                }
                Chunk::Quiet => return Err(quiet_error()),
                Chunk::Failed(kind, message) => return Err(io::Error::new(kind, message)),
            }
        }
        Ok(&self.block[self.at..])
    }

    fn consume(&mut self, n: usize) {
        self.at = (self.at + n).min(self.block.len());
    }
}

/// One decoding thread: decodes its share of the flows and hands its records to the merger in
/// batches; the first shard also draws the progress bar.
#[allow(clippy::too_many_arguments)]
fn run_shard(
    shard: Shard,
    rx: Receiver<Chunk>,
    (tx, spares): (SyncSender<(usize, Batch)>, Receiver<Batch>),
    config: Config,
    rendering: Rendering,
    batch_bytes: usize,
    progress: Option<Progress>,
    mut warn: impl FnMut(&CaptureError),
    capture: &CaptureName,
) -> Outcome {
    let pending = Rc::new(RefCell::new(Pending {
        batch: Batch::new(batch_bytes + batch_bytes / 4),
        through: 0,
        sent_through: 0,
        tx,
        spares,
        shard: shard.index as usize,
        batch_bytes,
    }));
    let input = ShardInput {
        rx,
        block: Arc::new(Vec::new()),
        at: 0,
        pending: Rc::clone(&pending),
    };
    let mut writer = rendering.writer_for(PendingBytes(Rc::clone(&pending)), capture);
    // Tree output separates records by a blank line before each but the first; every shard
    // writes it before each, and the merger drops the very first.
    writer.after_earlier_records();
    let config = Config {
        shard: Some(shard),
        ..config
    };
    let mut engine = Engine::new(protocols::all(), config);
    let mut sink = |m: &crate::proto::Meta<'_>, r: &mut crate::tree::Record| {
        {
            let mut p = pending.borrow_mut();
            let new_frame = p.batch.ends.last().is_none_or(|&(f, _)| f != m.frame);
            if p.batch.bytes.len() >= batch_bytes && new_frame {
                p.hand_over(m.frame - 1)?;
            }
        }
        writer.record(m, r)?;
        let mut p = pending.borrow_mut();
        let end = p.batch.bytes.len();
        p.batch.ends.push((m.frame, end));
        Ok(())
    };
    let mut outcome = run_capture_each(input, &mut engine, &mut warn, &mut sink, &mut |f, at| {
        pending.borrow_mut().through = f;
        if let Some(p) = &progress {
            p.tick(f, at);
        }
    });
    if let Some(p) = progress {
        p.clear();
    }
    if let Err(e) = pending.borrow_mut().hand_over(u64::MAX)
        && matches!(outcome, Outcome::Done)
    {
        outcome = Outcome::Output(e);
    }
    outcome
}

/// Reads `input` in blocks and gives each block to every shard, until the input ends, fails or
/// no shard wants more.
fn read_blocks(mut input: Box<dyn BufRead + Send>, txs: Vec<SyncSender<Chunk>>, size: usize) {
    // Blocks come back once every shard has dropped them: reused, they are neither zeroed
    // again nor faulted in again (zeroing fresh blocks was most of this thread's work).
    let mut sent: VecDeque<Arc<Vec<u8>>> = VecDeque::new();
    loop {
        let mut block = match sent.front_mut().and_then(Arc::get_mut) {
            Some(b) => {
                let b = std::mem::take(b);
                sent.pop_front();
                b
            }
            None => Vec::new(),
        };
        block.resize(size, 0);
        let n = match input.read(&mut block) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) if is_quiet(&e) => {
                for tx in &txs {
                    let _ = tx.send(Chunk::Quiet);
                }
                continue;
            }
            Err(e) => {
                for tx in &txs {
                    let _ = tx.send(Chunk::Failed(e.kind(), e.to_string()));
                }
                break;
            }
        };
        block.truncate(n);
        let block = Arc::new(block);
        let mut wanted = false;
        for tx in &txs {
            wanted |= tx.send(Chunk::Block(Arc::clone(&block))).is_ok();
        }
        sent.push_back(block);
        // Past a pipeline's worth, the oldest block is left to the shards to free.
        if sent.len() > 2 * (txs.len() + 4) {
            sent.pop_front();
        }
        if !wanted {
            break;
        }
    }
}

/// The merger's view of one shard's output.
struct Queue {
    batches: VecDeque<Batch>,
    /// Where written batches go back to the shard (dropped when it has enough).
    spares: SyncSender<Batch>,
    /// Next record of the first batch to write, and where its bytes start.
    next: usize,
    start: usize,
    /// The shard has handled every frame up to this one (`u64::MAX`: it has finished).
    through: u64,
}

impl Queue {
    fn new(spares: SyncSender<Batch>) -> Queue {
        Queue {
            batches: VecDeque::new(),
            spares,
            next: 0,
            start: 0,
            through: 0,
        }
    }

    fn drop_written(&mut self) {
        while self
            .batches
            .front()
            .is_some_and(|b| self.next == b.ends.len())
        {
            if let Some(b) = self.batches.pop_front() {
                let _ = self.spares.try_send(b);
            }
            self.next = 0;
            self.start = 0;
        }
    }

    fn head(&self) -> Option<u64> {
        self.batches.front()?.ends.get(self.next).map(|&(f, _)| f)
    }

    /// Frames below this one can no longer come from this shard, apart from its queued records.
    fn bound(&self) -> u64 {
        self.head().unwrap_or(self.through.saturating_add(1))
    }
}

/// Merges the shards' batches into frame order; `skip` leading bytes are dropped.
///
/// All shards send on one channel, so the merger takes whichever batch comes first: waiting on
/// one particular shard could wait on a shard that waits for input, which the reader cannot
/// send because another shard, blocked on its output, does not take its own.
///
/// With [`Flushing::WhenIdle`] the output is flushed before every wait, so a record reaches the
/// reader once its shard waits for input; with [`Flushing::EachRecord`], after every record.
fn merge(
    rx: Receiver<(usize, Batch)>,
    queues: &mut [Queue],
    out: &mut dyn Write,
    mut skip: usize,
    flushing: Flushing,
) -> io::Result<()> {
    let each = flushing == Flushing::EachRecord;
    loop {
        queues.iter_mut().for_each(Queue::drop_written);
        let best = (0..queues.len())
            .filter_map(|i| queues[i].head().map(|f| (f, i)))
            .min();
        // A shard with nothing queued may still owe an earlier frame: wait for it first.
        let behind = queues.iter().any(|q| {
            q.head().is_none() && q.through != u64::MAX && best.is_none_or(|(f, _)| q.through < f)
        });
        if behind {
            if flushing != Flushing::AtEnd {
                out.flush()?;
            }
            match rx.recv() {
                Ok((i, b)) => {
                    queues[i].through = b.through;
                    queues[i].batches.push_back(b);
                }
                // Every shard has ended (one may have failed without its last batch).
                Err(_) => queues.iter_mut().for_each(|q| q.through = u64::MAX),
            }
            continue;
        }
        let Some((_, i)) = best else {
            return Ok(());
        };
        let limit = (0..queues.len())
            .filter(|&j| j != i)
            .map(|j| queues[j].bound())
            .min()
            .unwrap_or(u64::MAX);
        let q = &mut queues[i];
        let b = q.batches.front().expect("has a head");
        let mut end = q.start;
        while let Some(&(f, e)) = b.ends.get(q.next) {
            if f >= limit {
                break;
            }
            end = e;
            q.next += 1;
            if each {
                break;
            }
        }
        let run = &b.bytes[q.start..end];
        let cut = skip.min(run.len());
        skip -= cut;
        out.write_all(&run[cut..])?;
        if each {
            out.flush()?;
        }
        q.start = end;
    }
}

/// Decodes `input` (the capture `capture`) on `shards` threads and writes the records to `out`
/// in frame order, exactly as one thread would, flushing as `flushing` says. Bad records are
/// reported through `warn` (by one shard).
#[allow(clippy::too_many_arguments)]
pub fn dissect_sharded(
    (input, capture): (Box<dyn BufRead + Send>, &CaptureName),
    total_len: Option<u64>,
    config: Config,
    shards: usize,
    rendering: Rendering,
    out: &mut dyn Write,
    warn: impl FnMut(&CaptureError) + Send + 'static,
    tuning: Tuning,
    flushing: Flushing,
) -> Outcome {
    let shards = shards.max(1);
    let mut block_txs = Vec::new();
    let mut queues: Vec<Queue> = Vec::new();
    let mut handles = Vec::new();
    let mut warn = Some(warn);
    let (otx, orx) = sync_channel::<(usize, Batch)>(tuning.batches_queued * shards);
    for index in 0..shards {
        let (btx, brx) = sync_channel::<Chunk>(tuning.blocks_queued);
        block_txs.push(btx);
        let (spare_tx, spare_rx) = sync_channel::<Batch>(tuning.batches_queued);
        queues.push(Queue::new(spare_tx));
        let otx = otx.clone();
        let config = config.clone();
        let mut shard_warn = warn.take();
        let capture = capture.clone();
        // Every shard reads every frame: the first one reports progress for all.
        let progress = if index == 0 {
            Progress::maybe(total_len)
        } else {
            None
        };
        handles.push(std::thread::spawn(move || {
            let batch_bytes = tuning.batch_bytes;
            let shard = Shard {
                index: index as u64,
                count: shards as u64,
            };
            run_shard(
                shard,
                brx,
                (otx, spare_rx),
                config,
                rendering,
                batch_bytes,
                progress,
                |e| {
                    if let Some(w) = shard_warn.as_mut() {
                        w(e)
                    }
                },
                &capture,
            )
        }));
    }
    // Not joined: it may be waiting on a pipe that never ends after an early stop.
    let block = tuning.block.max(1);
    std::thread::spawn(move || read_blocks(input, block_txs, block));
    drop(otx);
    let skip = usize::from(rendering.format == OutputFormat::Tree);
    if let Err(e) = merge(orx, &mut queues, out, skip, flushing).and_then(|()| out.flush()) {
        return Outcome::Output(e);
    }
    let mut outcome = Outcome::Done;
    for (i, h) in handles.into_iter().enumerate() {
        let o = h
            .join()
            .unwrap_or_else(|_| Outcome::Output(io::Error::other("a decoding thread panicked")));
        // Every shard reads the same input, so the first one's input outcome speaks for all.
        match o {
            Outcome::Output(e) => return Outcome::Output(e),
            o if i == 0 => outcome = o,
            _ => {}
        }
    }
    outcome
}

/// Decodes a capture held in memory on `shards` threads into the text of one output format (the
/// tests compare it with [`crate::run::render`]).
pub fn render_sharded(
    bytes: &[u8],
    format: OutputFormat,
    config: Config,
    shards: usize,
    tuning: Tuning,
) -> (String, Option<CaptureError>) {
    let mut out = Vec::new();
    let rendering = Rendering::plain(format);
    let input = Box::new(io::Cursor::new(bytes.to_vec()));
    let outcome = dissect_sharded(
        (input, &CaptureName::default()),
        None,
        config,
        shards,
        rendering,
        &mut out,
        |_| {},
        tuning,
        Flushing::AtEnd,
    );
    let err = match outcome {
        Outcome::InputError(e) => Some(e),
        _ => None,
    };
    (String::from_utf8(out).expect("outputs are UTF-8"), err)
}
