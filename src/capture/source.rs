//! Where the capture's bytes come from: a regular file, read as fast as it goes, or a live source
//! (a pipe, a FIFO, a terminal, a socket), whose bytes arrive when a capturing program writes
//! them and whose reader must not sit on decoded records while it waits for more.
//!
//! A live source is read by a thread of its own that hands over whatever each read returned,
//! so the decoding side can tell "nothing more yet" (flush what is decoded, then wait) from
//! "more is here". Both kinds stop early, as if they had ended, once [`stop_reading`] is called
//! (by the SIGINT/SIGTERM handling in `run`): a blocked read cannot be interrupted (the signal
//! handlers restart system calls), so the live reader waits in slices of [`STOP_POLL`] and the
//! reading thread is left behind.
//!
//! A live input can also say that it went quiet ([`Input::report_quiet`]): once its writer has
//! written nothing for that long, a read returns the error [`is_quiet`] recognises, once per
//! quiet spell, and the next read waits again. The capture reader turns it into
//! [`crate::capture::Event::Quiet`] between records, so that records waiting behind a held
//! datagram are not kept from a reader while nothing arrives.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, SyncSender, TryRecvError, sync_channel};
use std::time::{Duration, Instant};

/// Set once the input is to be treated as ended.
static STOP: AtomicBool = AtomicBool::new(false);

/// How long a live reader waits for input before it looks at the stop request again.
pub const STOP_POLL: Duration = Duration::from_millis(50);

/// Bytes asked for per read of a live source (a pipe holds 64 KiB).
const LIVE_READ: usize = 64 * 1024;
/// Reads of a live source queued ahead of the decoder: at most 1 MiB.
const LIVE_QUEUED: usize = 16;
/// Buffer of a file input.
const FILE_BUFFER: usize = 256 * 1024;

/// Makes every input end at its next read, as if its data had ended there.
pub fn stop_reading() {
    STOP.store(true, Ordering::SeqCst);
}

/// Whether [`stop_reading`] was called.
pub fn stop_requested() -> bool {
    STOP.load(Ordering::Relaxed)
}

/// The error a live input's read returns once it has been quiet for the time asked
/// ([`Input::report_quiet`]).
pub fn quiet_error() -> io::Error {
    io::Error::new(io::ErrorKind::WouldBlock, Quiet)
}

/// Whether `e` says the input went quiet (and may still bring more), not that it failed.
pub fn is_quiet(e: &io::Error) -> bool {
    e.get_ref().is_some_and(|inner| inner.is::<Quiet>())
}

/// The payload of [`quiet_error`].
#[derive(Debug)]
struct Quiet;

impl std::fmt::Display for Quiet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the live input is quiet")
    }
}

impl std::error::Error for Quiet {}

/// An opened input.
pub enum Input {
    /// A regular file (named, or redirected to standard input), with its length.
    File(BufReader<StopAware<File>>, u64),
    /// Anything else: bytes arrive as a writer produces them.
    Live(LiveInput),
}

impl Input {
    /// Opens `path`, or standard input for `-`. A FIFO blocks here until its writer opens it.
    pub fn open(path: &str) -> io::Result<Input> {
        if path == "-" {
            use std::os::fd::AsFd;
            return Input::from_file(File::from(io::stdin().as_fd().try_clone_to_owned()?));
        }
        Input::open_path(std::path::Path::new(path))
    }

    /// Opens the file at `path` (`-` is a file of that name here). A FIFO blocks here until its
    /// writer opens it.
    pub fn open_path(path: &std::path::Path) -> io::Result<Input> {
        Input::from_file(File::open(path)?)
    }

    fn from_file(file: File) -> io::Result<Input> {
        let meta = file.metadata()?;
        if meta.is_file() {
            let reader = BufReader::with_capacity(FILE_BUFFER, StopAware(file));
            return Ok(Input::File(reader, meta.len()));
        }
        Ok(Input::Live(LiveInput::spawn(file)))
    }

    /// The length of a regular file.
    pub fn file_len(&self) -> Option<u64> {
        match self {
            Input::File(_, len) => Some(*len),
            Input::Live(_) => None,
        }
    }

    /// Whether bytes arrive as something writes them (pipe, FIFO, terminal, socket).
    pub fn is_live(&self) -> bool {
        matches!(self, Input::Live(_))
    }

    /// From now on a live input reports, once per quiet spell, that its writer has written
    /// nothing for `after` (a read returns [`quiet_error`]). A file never does.
    pub fn report_quiet(&mut self, after: Duration) {
        if let Input::Live(l) = self {
            l.quiet_after = Some(after);
        }
    }

    /// [`BufRead::fill_buf`], calling `before_wait` first when a live input has nothing yet and
    /// the caller would wait for its writer.
    pub fn fill_buf_or_wait(
        &mut self,
        before_wait: &mut dyn FnMut() -> io::Result<()>,
    ) -> io::Result<&[u8]> {
        match self {
            Input::File(f, _) => f.fill_buf(),
            Input::Live(l) => l.fill_buf_or_wait(before_wait),
        }
    }
}

impl Read for Input {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        read_through_buffer(self, buf)
    }
}

impl BufRead for Input {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        self.fill_buf_or_wait(&mut || Ok(()))
    }

    fn consume(&mut self, n: usize) {
        match self {
            Input::File(f, _) => f.consume(n),
            Input::Live(l) => l.at = (l.at + n).min(l.chunk.len()),
        }
    }
}

/// [`Read::read`] for a [`BufRead`] whose own buffer is the only one: copies from it.
pub fn read_through_buffer<R: BufRead + ?Sized>(r: &mut R, buf: &mut [u8]) -> io::Result<usize> {
    let avail = r.fill_buf()?;
    let n = buf.len().min(avail.len());
    buf[..n].copy_from_slice(&avail[..n]);
    r.consume(n);
    Ok(n)
}

/// A reader that reports the end of its input once [`stop_reading`] was called.
pub struct StopAware<R>(pub R);

impl<R: Read> Read for StopAware<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if stop_requested() {
            return Ok(0);
        }
        self.0.read(buf)
    }
}

/// A live source: a thread reads it and hands over each read's bytes.
pub struct LiveInput {
    rx: Receiver<io::Result<Vec<u8>>>,
    chunk: Vec<u8>,
    at: usize,
    ended: bool,
    /// Report a quiet spell this long ([`Input::report_quiet`]).
    quiet_after: Option<Duration>,
    /// This quiet spell was reported already: the next read waits for bytes.
    quiet_said: bool,
}

impl LiveInput {
    /// Starts the thread that reads `source`. It is never joined: after a stop it may wait on
    /// a writer that never writes again.
    pub fn spawn<R: Read + Send + 'static>(source: R) -> LiveInput {
        let (tx, rx) = sync_channel(LIVE_QUEUED);
        std::thread::spawn(move || pump(source, tx));
        LiveInput {
            rx,
            chunk: Vec::new(),
            at: 0,
            ended: false,
            quiet_after: None,
            quiet_said: false,
        }
    }

    fn fill_buf_or_wait(
        &mut self,
        before_wait: &mut dyn FnMut() -> io::Result<()>,
    ) -> io::Result<&[u8]> {
        while self.at == self.chunk.len() && !self.ended {
            match self.next_chunk(before_wait) {
                Ok(Some(c)) => {
                    self.chunk = c;
                    self.at = 0;
                }
                Ok(None) => self.ended = true,
                Err(e) if is_quiet(&e) => return Err(e),
                Err(e) => {
                    self.ended = true;
                    return Err(e);
                }
            }
        }
        Ok(&self.chunk[self.at..])
    }

    /// The next read's bytes; `None` at the end of the input or on a stop request; the
    /// [`quiet_error`] when the quiet spell asked for has passed and was not reported yet.
    fn next_chunk(
        &mut self,
        before_wait: &mut dyn FnMut() -> io::Result<()>,
    ) -> io::Result<Option<Vec<u8>>> {
        if stop_requested() {
            return Ok(None);
        }
        match self.rx.try_recv() {
            Ok(c) => return self.arrived(c),
            Err(TryRecvError::Disconnected) => return Ok(None),
            Err(TryRecvError::Empty) => before_wait()?,
        }
        let since = Instant::now();
        loop {
            match self.rx.recv_timeout(STOP_POLL) {
                Ok(c) => return self.arrived(c),
                Err(RecvTimeoutError::Disconnected) => return Ok(None),
                Err(RecvTimeoutError::Timeout) if stop_requested() => return Ok(None),
                Err(RecvTimeoutError::Timeout) => {}
            }
            let quiet = self.quiet_after.is_some_and(|d| since.elapsed() >= d);
            if quiet && !self.quiet_said {
                self.quiet_said = true;
                return Err(quiet_error());
            }
        }
    }

    /// A read's bytes have come: the next quiet spell is a new one.
    fn arrived(&mut self, c: io::Result<Vec<u8>>) -> io::Result<Option<Vec<u8>>> {
        self.quiet_said = false;
        c.map(Some)
    }
}

/// The live reading thread: each read's bytes as they come, until the end, an error, or the
/// reader going away.
fn pump<R: Read>(mut source: R, tx: SyncSender<io::Result<Vec<u8>>>) {
    loop {
        let mut buf = vec![0u8; LIVE_READ];
        let sent = match source.read(&mut buf) {
            Ok(0) => return,
            Ok(n) => {
                buf.truncate(n);
                tx.send(Ok(buf))
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => {
                let _ = tx.send(Err(e));
                return;
            }
        };
        if sent.is_err() {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A source that gives its pieces one read at a time.
    struct Pieces(Vec<Vec<u8>>);

    impl Read for Pieces {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            if self.0.is_empty() {
                return Ok(0);
            }
            let p = self.0.remove(0);
            buf[..p.len()].copy_from_slice(&p);
            Ok(p.len())
        }
    }

    #[test]
    fn live_input_yields_every_byte_in_order() {
        let mut input = Input::Live(LiveInput::spawn(Pieces(vec![
            b"abc".to_vec(),
            b"d".to_vec(),
            b"efgh".to_vec(),
        ])));
        let mut all = Vec::new();
        input.read_to_end(&mut all).unwrap();
        assert_eq!(all, b"abcdefgh");
        assert!(input.is_live());
        assert_eq!(input.file_len(), None);
    }

    /// A source that gives one piece at once, then each piece the test sends, and ends when the
    /// test's sender goes.
    struct Gate(Option<Vec<u8>>, Receiver<Vec<u8>>);

    impl Read for Gate {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let piece = match self.0.take() {
                Some(p) => p,
                None => match self.1.recv() {
                    Ok(p) => p,
                    Err(_) => return Ok(0),
                },
            };
            buf[..piece.len()].copy_from_slice(&piece);
            Ok(piece.len())
        }
    }

    #[test]
    fn a_quiet_live_input_says_so_once_per_spell() {
        let (tx, rx) = std::sync::mpsc::channel();
        let mut input = Input::Live(LiveInput::spawn(Gate(Some(b"abc".to_vec()), rx)));
        input.report_quiet(Duration::from_millis(10));
        assert_eq!(input.fill_buf().unwrap(), b"abc");
        input.consume(3);
        let quiet = input.fill_buf().unwrap_err();
        assert!(is_quiet(&quiet), "{quiet}");
        // The next read waits for bytes however long they take: one report per spell.
        let late = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(100));
            tx.send(b"def".to_vec()).unwrap();
            tx
        });
        assert_eq!(input.fill_buf().unwrap(), b"def");
        input.consume(3);
        // A new spell is reported again, and the end still ends.
        assert!(is_quiet(&input.fill_buf().unwrap_err()));
        drop(late.join().unwrap());
        assert_eq!(input.fill_buf().unwrap(), b"");
    }

    #[test]
    fn a_live_input_not_asked_waits_quietly() {
        assert!(!is_quiet(&io::Error::new(
            io::ErrorKind::WouldBlock,
            "EAGAIN"
        )));
        let (tx, rx) = std::sync::mpsc::channel();
        let mut input = Input::Live(LiveInput::spawn(Gate(Some(b"ab".to_vec()), rx)));
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(100));
            tx.send(b"cd".to_vec()).unwrap();
        });
        let mut all = Vec::new();
        input.read_to_end(&mut all).unwrap();
        assert_eq!(all, b"abcd");
    }
}
