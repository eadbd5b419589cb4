//! Several jobs (one a capture file) run side by side on a few threads, their outputs written
//! in job order, exactly as if they had run one after the other.
//!
//! Each job writes into its own bounded queue of chunks; the calling thread writes the queue of
//! the first unfinished job, then the next one's. A job that runs ahead waits when its queue is
//! full, and a thread starts a job only while it is fewer than [`Sizes::ahead`] jobs past the
//! one being written, so memory holds at most `ahead` queues however many jobs and however
//! long their outputs. Jobs are handed out in order, so the job being written always has a
//! thread: nothing waits on a job that cannot run.

use std::collections::HashMap;
use std::io::{self, Write};
use std::sync::mpsc::{Receiver, Sender, SyncSender, channel, sync_channel};
use std::sync::{Condvar, Mutex, PoisonError};

/// Sizes of the queues between the jobs and the writing thread.
#[derive(Debug, Clone, Copy)]
pub struct Sizes {
    /// A job hands over its output in chunks of about this many bytes.
    pub chunk: usize,
    /// Chunks queued from each job.
    pub chunks_queued: usize,
    /// Jobs started but not yet written, at most.
    pub ahead: usize,
}

impl Sizes {
    /// For `threads` jobs at once: a few chunks each, and each thread one job ahead.
    pub fn for_threads(threads: usize) -> Sizes {
        Sizes {
            chunk: 256 * 1024,
            chunks_queued: 2,
            ahead: 2 * threads.max(1),
        }
    }
}

/// What a job sends to the writing thread.
enum Piece<T> {
    /// Output, and whether the job flushed after it (to be flushed on, for `--line-buffered`).
    Bytes(Vec<u8>, bool),
    /// The job's result, after all its output.
    Done(T),
}

/// A job's output: its chunks go to the writing thread.
struct JobOut<'a, T> {
    tx: SyncSender<Piece<T>>,
    buf: Vec<u8>,
    chunk: usize,
    /// Chunks the writing thread has written, back for reuse.
    spares: &'a Receiver<Vec<u8>>,
}

impl<T> JobOut<'_, T> {
    fn send(&mut self, flush: bool) -> io::Result<()> {
        // A written chunk comes back with its memory: a fresh one each time was memory to
        // fault in again, freed on the other thread (which glibc pays for; docs/performance.md).
        let next = match self.spares.try_recv() {
            Ok(spare) if spare.capacity() <= 2 * self.chunk => spare,
            _ => Vec::with_capacity(self.chunk),
        };
        let bytes = std::mem::replace(&mut self.buf, next);
        self.tx
            .send(Piece::Bytes(bytes, flush))
            .map_err(|_| io::Error::new(io::ErrorKind::BrokenPipe, "the output writer stopped"))
    }
}

impl<T> Write for JobOut<'_, T> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.buf.extend_from_slice(buf);
        if self.buf.len() >= self.chunk {
            self.send(false)?;
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        if self.buf.is_empty() {
            return Ok(());
        }
        self.send(true)
    }
}

/// Which job is next, and how far the writing has got.
struct Progress {
    next: usize,
    written: usize,
    stopped: bool,
}

struct Schedule {
    count: usize,
    ahead: usize,
    state: Mutex<Progress>,
    changed: Condvar,
}

impl Schedule {
    /// The next job to run, once it is few enough jobs ahead of the writing; `None` when every
    /// job has been taken or the writing stopped.
    fn take(&self) -> Option<usize> {
        let mut p = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        loop {
            if p.stopped || p.next >= self.count {
                return None;
            }
            if p.next < p.written + self.ahead {
                p.next += 1;
                return Some(p.next - 1);
            }
            p = self.changed.wait(p).unwrap_or_else(PoisonError::into_inner);
        }
    }

    fn update(&self, f: impl FnOnce(&mut Progress)) {
        f(&mut self.state.lock().unwrap_or_else(PoisonError::into_inner));
        self.changed.notify_all();
    }
}

/// A job's number, its queue, and where its written chunks go back to its thread.
type Announce<T> = (usize, Receiver<Piece<T>>, SyncSender<Vec<u8>>);

/// What is done with each job's result, once its output is written: it may write more.
pub type Done<'a, T> = dyn FnMut(usize, T, &mut dyn Write) -> io::Result<()> + 'a;

/// Runs `job(i, out)` for every `i` below `count` on up to `threads` threads, writes each job's
/// output to `out` in job order, and hands each job's result to `done` once its output is
/// written. An error from writing or from `done` stops the run: jobs not started are not run,
/// the others' writes fail, and the error is returned once every thread has ended.
pub fn in_order<T: Send>(
    count: usize,
    threads: usize,
    sizes: Sizes,
    job: &(dyn Fn(usize, &mut dyn Write) -> T + Sync),
    out: &mut dyn Write,
    done: &mut Done<'_, T>,
) -> io::Result<()> {
    let schedule = Schedule {
        count,
        ahead: sizes.ahead.max(1),
        state: Mutex::new(Progress {
            next: 0,
            written: 0,
            stopped: false,
        }),
        changed: Condvar::new(),
    };
    let (announce, announced) = channel::<Announce<T>>();
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads.clamp(1, count.max(1)))
            .map(|_| {
                let announce = announce.clone();
                let schedule = &schedule;
                scope.spawn(move || run_jobs(schedule, &announce, sizes, job))
            })
            .collect();
        drop(announce);
        let mut written = write_in_order(count, &announced, &schedule, out, done);
        if written.is_err() {
            schedule.update(|p| p.stopped = true);
            // Every job's queue is dropped as it is announced, so its writes fail and it ends.
            while announced.recv().is_ok() {}
        }
        for h in handles {
            if h.join().is_err() && written.is_ok() {
                written = Err(io::Error::other("a decoding thread panicked"));
            }
        }
        written
    })
}

/// One thread: runs jobs as the schedule hands them out.
fn run_jobs<T>(
    schedule: &Schedule,
    announce: &Sender<Announce<T>>,
    sizes: Sizes,
    job: &(dyn Fn(usize, &mut dyn Write) -> T + Sync),
) {
    let queued = sizes.chunks_queued.max(1);
    let (spare_tx, spares) = sync_channel(queued + 1);
    while let Some(index) = schedule.take() {
        let (tx, rx) = sync_channel(queued);
        if announce.send((index, rx, spare_tx.clone())).is_err() {
            return;
        }
        let mut out = JobOut {
            tx,
            buf: Vec::with_capacity(sizes.chunk),
            chunk: sizes.chunk.max(1),
            spares: &spares,
        };
        let result = job(index, &mut out);
        if out.send(false).is_err() || out.tx.send(Piece::Done(result)).is_err() {
            return;
        }
    }
}

/// The writing thread's part: each job's queue in turn.
fn write_in_order<T>(
    count: usize,
    announced: &Receiver<Announce<T>>,
    schedule: &Schedule,
    out: &mut dyn Write,
    done: &mut Done<'_, T>,
) -> io::Result<()> {
    let lost = || io::Error::other("a decoding thread ended without its output");
    let mut queues = HashMap::new();
    for index in 0..count {
        let (rx, spares) = loop {
            if let Some(q) = queues.remove(&index) {
                break q;
            }
            let (i, rx, spares) = announced.recv().map_err(|_| lost())?;
            queues.insert(i, (rx, spares));
        };
        loop {
            match rx.recv().map_err(|_| lost())? {
                Piece::Bytes(mut b, flush) => {
                    out.write_all(&b)?;
                    if flush {
                        out.flush()?;
                    }
                    b.clear();
                    let _ = spares.try_send(b);
                }
                Piece::Done(result) => {
                    done(index, result, out)?;
                    break;
                }
            }
        }
        schedule.update(|p| p.written += 1);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Jobs whose output length and speed vary: written in order, whatever the threads and
    /// sizes, each result after its output.
    #[test]
    fn outputs_come_in_job_order() {
        let job = |i: usize, out: &mut dyn Write| {
            // Later jobs are shorter, so they finish first.
            for line in 0..(40 - i) * 50 {
                writeln!(out, "job {i} line {line}").unwrap();
            }
            i * 10
        };
        let mut expected = Vec::new();
        for i in 0..30 {
            for line in 0..(40 - i) * 50 {
                writeln!(expected, "job {i} line {line}").unwrap();
            }
            writeln!(expected, "done {}", i * 10).unwrap();
        }
        for threads in [1, 2, 4, 7] {
            let sizes = Sizes {
                chunk: 100,
                chunks_queued: 1,
                ahead: threads,
            };
            let mut out = Vec::new();
            let mut done = |_: usize, r: usize, out: &mut dyn Write| writeln!(out, "done {r}");
            in_order(30, threads, sizes, &job, &mut out, &mut done).unwrap();
            assert!(out == expected, "{threads} threads");
        }
    }

    /// A write that fails ends the run with its error, every thread stopped, later jobs not run.
    #[test]
    fn a_failed_write_stops_every_job() {
        struct Closed(usize);
        impl Write for Closed {
            fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
                if self.0 < 1000 {
                    self.0 += buf.len();
                    return Ok(buf.len());
                }
                Err(io::ErrorKind::BrokenPipe.into())
            }
            fn flush(&mut self) -> io::Result<()> {
                Ok(())
            }
        }
        let started = std::sync::atomic::AtomicUsize::new(0);
        let job = |_: usize, out: &mut dyn Write| {
            started.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            for _ in 0..100_000 {
                if out.write_all(b"0123456789\n").is_err() {
                    return false;
                }
            }
            true
        };
        let sizes = Sizes {
            chunk: 256,
            chunks_queued: 2,
            ahead: 4,
        };
        let e = in_order(1000, 3, sizes, &job, &mut Closed(0), &mut |_, _, _| Ok(())).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::BrokenPipe);
        assert!(started.into_inner() <= 4);
    }
}
