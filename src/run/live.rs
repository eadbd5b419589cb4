//! Output for live use: when records are flushed, and how SIGINT/SIGTERM end a run.
//!
//! A record is only useful live once it reaches the reader of our output, so with a live input
//! (pipe, FIFO, terminal) the output is flushed whenever decoding is about to wait for more
//! input; while input keeps coming, the output stays buffered and costs what it costs on a file.
//! `--line-buffered` flushes after every record whatever the input.
//!
//! A record waiting behind a held datagram (a Quake 3 legacy message whose key is being
//! recovered) waits for later datagrams; while a live input brings none for [`HOLD_QUIET`],
//! every hold is given up and what waited behind it is written, so that a quiet pipe never
//! sits on records.
//!
//! SIGINT and SIGTERM stop the reading: the input ends where it is, every record decoded so far
//! is written and flushed, and the process exits with 128 + the signal's number (130, 143), as a
//! shell reports a process the signal killed. A second signal kills at once, for an output that
//! does not drain.

use std::cell::RefCell;
use std::io::{self, BufRead, Read, Write};
use std::sync::atomic::{AtomicI32, Ordering};

use signal_hook::consts::{SIGINT, SIGTERM};
use signal_hook::iterator::Signals;

use crate::capture::Input;
use crate::capture::source::{read_through_buffer, stop_reading};

/// How long a live input may bring nothing before the records waiting behind held datagrams
/// are written as they stand. Long enough for `tcpdump -U`, which writes each packet as it
/// comes, not to end holds between a game's packets (20 a second and more); a writer that
/// buffers (tcpdump without `-U`) may end some of them early.
pub const HOLD_QUIET: std::time::Duration = std::time::Duration::from_secs(2);

/// When the output is flushed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flushing {
    /// When a buffer fills, and at the end (a file read as fast as it goes).
    AtEnd,
    /// Also whenever decoding waits for input (a live input).
    WhenIdle,
    /// After every record (`--line-buffered`).
    EachRecord,
}

impl Flushing {
    /// The flushing a run needs: `line_buffered` asks for every record, a live input for idle
    /// moments.
    pub fn choose(line_buffered: bool, live: bool) -> Flushing {
        match (line_buffered, live) {
            (true, _) => Flushing::EachRecord,
            (false, true) => Flushing::WhenIdle,
            (false, false) => Flushing::AtEnd,
        }
    }
}

/// The signal that stopped the run (0: none).
static STOPPED_BY: AtomicI32 = AtomicI32::new(0);

/// From now on, SIGINT and SIGTERM end the input instead of the process (see the module
/// documentation). Call once, before reading.
pub fn stop_on_signals() -> io::Result<()> {
    let mut signals = Signals::new([SIGINT, SIGTERM])?;
    std::thread::spawn(move || {
        for signal in signals.forever() {
            if STOPPED_BY.load(Ordering::SeqCst) != 0 {
                // A second signal: the output did not drain, or the user insists.
                let _ = signal_hook::low_level::emulate_default_handler(signal);
                std::process::exit(128 + signal);
            }
            STOPPED_BY.store(signal, Ordering::SeqCst);
            stop_reading();
        }
    });
    Ok(())
}

/// The exit code for a run a signal stopped: 130 for SIGINT, 143 for SIGTERM.
pub fn stopped_exit_code() -> Option<u8> {
    match STOPPED_BY.load(Ordering::SeqCst) {
        0 => None,
        s => u8::try_from(128 + s).ok(),
    }
}

/// One output shared by the record writer and whoever flushes it (one thread).
pub struct SharedOut<'a, W>(pub &'a RefCell<W>);

impl<W: Write> Write for SharedOut<'_, W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.borrow_mut().write(buf)
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.0.borrow_mut().write_all(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.0.borrow_mut().flush()
    }
}

/// The input of a one-thread run, which flushes `out` before it waits for a live input's writer
/// when `flush` is set.
pub struct FlushWhenIdle<'a, W> {
    pub input: Input,
    pub out: &'a RefCell<W>,
    pub flush: bool,
}

impl<W: Write> Read for FlushWhenIdle<'_, W> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        read_through_buffer(self, buf)
    }
}

impl<W: Write> BufRead for FlushWhenIdle<'_, W> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        let FlushWhenIdle { input, out, flush } = self;
        if !*flush {
            return input.fill_buf();
        }
        input.fill_buf_or_wait(&mut || out.borrow_mut().flush())
    }

    fn consume(&mut self, n: usize) {
        self.input.consume(n);
    }
}
