//! `gamedissect annotate`: the capture again, as pcapng, with each decoded message's summary
//! and notes as a packet comment of its frame, for Wireshark and tshark to show and filter on
//! (`frame.comment`). docs/annotate.md has the layout and the choices.
//!
//! Every frame is written, decoded or not, with its own bytes, lengths, interface and
//! timestamp. A frame goes out once the engine has handed on all of its records: a Quake 3
//! legacy datagram held for its XOR pad keeps the frames after it waiting, and so does this
//! command, within the same bounds (frames, bytes), and no longer.

use std::collections::VecDeque;
use std::convert::Infallible;
use std::fs::File;
use std::io::{self, BufRead, BufWriter, Write};
use std::process::ExitCode;

use super::dissect::{field_mask, needs_tree};
use super::{Decode, finish_outcome, input_name, open_decode};
use crate::capture::pcapng_write::{EnhancedPacket, PcapngWriter};
use crate::capture::{CaptureError, CaptureReader, Event, Format, InterfaceInfo, Packet};
use crate::engine::{Config, Engine};
use crate::proto::Meta;
use crate::protocols;
use crate::run::{LinkTypes, Outcome, Progress};
use crate::text::push_escaped;
use crate::tree::Record;

/// The application the output's section header names.
const APPLICATION: &str = concat!("gamedissect ", env!("CARGO_PKG_VERSION"), " annotate");

/// A frame read whose records may still come.
struct Frame {
    /// The engine's frame number (bad records count too).
    number: u64,
    interface: u32,
    units: u64,
    orig_len: u32,
    data: Vec<u8>,
    comments: Vec<String>,
}

/// The comment of one message: the summary line as `dissect` prints it from the protocol on
/// (the frame, time and addresses are Wireshark's own columns), with every note in full where
/// `dissect`'s marker names the worst one: `[warning: …] [note: …]`, in the record's order.
/// With one note or none it is `dissect`'s line to the letter. One line: `tshark -V` and the
/// Expert Info list show a comment's line breaks as they are, out of the tree's indentation.
/// Text from the packet is escaped as every text writer does it.
fn comment(rec: &Record) -> String {
    let notes: usize = rec.notes.iter().map(|n| n.message.len() + 12).sum();
    let mut c = String::with_capacity(rec.protocol.len() + rec.summary.len() + 1 + notes);
    c.push_str(rec.protocol);
    c.push(' ');
    push_escaped(&mut c, &rec.summary);
    for n in &rec.notes {
        c.push_str(" [");
        c.push_str(n.severity().as_str());
        c.push_str(": ");
        push_escaped(&mut c, &n.message);
        c.push(']');
    }
    c
}

/// The engine's sink: each record's comment goes to its frame, which is still waiting (the
/// engine hands on a frame's records before it counts the frame settled).
fn to_frames(
    waiting: &mut VecDeque<Frame>,
) -> impl FnMut(&Meta<'_>, &mut Record) -> Result<(), Infallible> + '_ {
    |meta, rec| {
        if let Ok(i) = waiting.binary_search_by_key(&meta.frame, |f| f.number) {
            waiting[i].comments.push(comment(rec));
        }
        Ok(())
    }
}

/// The frames and interfaces on their way to the output.
struct Annotator<W: Write> {
    out: PcapngWriter<W>,
    waiting: VecDeque<Frame>,
    /// The input's section, and its interfaces' numbers in the output once described there.
    section: u64,
    interfaces: Vec<Option<u32>>,
    /// A written frame's buffer, for the next frame's bytes.
    spare: Vec<u8>,
}

impl<W: Write> Annotator<W> {
    /// The output's number for the input's interface `id`, described in the output the first
    /// time a packet of the section uses it.
    fn interface<R: BufRead>(
        &mut self,
        reader: &CaptureReader<R>,
        id: u32,
        linktype: u32,
    ) -> io::Result<u32> {
        if reader.section() != self.section {
            self.section = reader.section();
            self.interfaces.clear();
        }
        let i = id as usize;
        if let Some(Some(out)) = self.interfaces.get(i) {
            return Ok(*out);
        }
        // A packet's interface is described (the reader makes anything else a bad record).
        let info = reader.interface(id).unwrap_or(InterfaceInfo {
            linktype,
            snaplen: 0,
            tsresol: 6,
            tsoffset: 0,
        });
        let out = self.out.interface(&info)?;
        // Below the reader's bound on interfaces a section.
        if self.interfaces.len() <= i {
            self.interfaces.resize(i + 1, None);
        }
        self.interfaces[i] = Some(out);
        Ok(out)
    }

    /// Writes the frames whose records have all come (through frame `settled`).
    fn write_settled(&mut self, settled: u64) -> io::Result<()> {
        while self.waiting.front().is_some_and(|f| f.number <= settled) {
            let Some(f) = self.waiting.pop_front() else {
                break;
            };
            let p = EnhancedPacket {
                interface: f.interface,
                units: f.units,
                data: &f.data,
                orig_len: f.orig_len,
            };
            self.out.packet(&p, &f.comments)?;
            self.spare = f.data;
        }
        Ok(())
    }

    /// One packet: copied to wait for its records, decoded, and written with what is settled.
    fn packet<R: BufRead>(
        &mut self,
        engine: &mut Engine,
        reader: &CaptureReader<R>,
        p: &Packet<'_>,
        bytes: Vec<u8>,
    ) -> io::Result<()> {
        let interface = self.interface(reader, p.interface, p.linktype)?;
        self.waiting.push_back(Frame {
            number: engine.frames() + 1,
            interface,
            units: reader.timestamp_units(),
            orig_len: p.orig_len,
            data: Vec::new(),
            comments: Vec::new(),
        });
        let copy = Packet { data: &bytes, ..*p };
        let Ok(()) = engine.packet(&copy, &mut to_frames(&mut self.waiting));
        if let Some(f) = self.waiting.back_mut() {
            f.data = bytes;
        }
        self.settle(engine)
    }

    /// Gives up the holds past their bounds and writes the frames settled.
    fn settle(&mut self, engine: &mut Engine) -> io::Result<()> {
        let Ok(()) = engine.deliver_overdue(&mut to_frames(&mut self.waiting));
        self.write_settled(engine.settled_frames())
    }

    /// Hands on every record held and writes every frame.
    fn flush(&mut self, engine: &mut Engine) -> io::Result<()> {
        let Ok(()) = engine.flush(&mut to_frames(&mut self.waiting));
        self.write_settled(engine.settled_frames())
    }
}

/// Reads the capture through the engine into the output.
fn annotate<R: BufRead, W: Write>(
    mut reader: CaptureReader<R>,
    engine: &mut Engine,
    a: &mut Annotator<W>,
    warn: &mut dyn FnMut(&CaptureError),
    progress: Option<&Progress>,
) -> Outcome {
    let mut links = LinkTypes::default();
    let outcome = loop {
        let mut bytes = std::mem::take(&mut a.spare);
        let written = match reader.next() {
            Ok(Some(Event::Packet(p))) => {
                links.check(&p, warn);
                bytes.clear();
                bytes.extend_from_slice(p.data);
                // The packet's bytes are copied: the reader is free to say what it knows of
                // the packet's interface and timestamp.
                let p = Packet {
                    data: &[],
                    orig_len: p.orig_len,
                    time: p.time,
                    linktype: p.linktype,
                    interface: p.interface,
                    offset: p.offset,
                    pseudo: p.pseudo,
                };
                a.packet(engine, &reader, &p, bytes)
            }
            Ok(Some(Event::BadRecord(e))) => {
                engine.bad_record();
                warn(&CaptureError {
                    offset: e.offset,
                    message: format!("{} (record skipped)", e.message),
                });
                a.settle(engine)
            }
            Ok(Some(Event::Quiet)) => a.flush(engine).and_then(|_| a.out.flush()),
            Ok(None) => break Outcome::Done,
            Err(e) => break Outcome::InputError(e),
        };
        if let Err(e) = written {
            break Outcome::Output(e);
        }
        if let Some(p) = progress {
            p.tick(engine.settled_frames(), reader.offset());
        }
    };
    match (outcome, a.flush(engine)) {
        (Outcome::Done, Err(e)) => Outcome::Output(e),
        (o, _) => o,
    }
}

/// Where the pcapng goes: a new file, or standard output for `-` (`cli` refuses a terminal).
fn create(output: &str) -> io::Result<BufWriter<Box<dyn Write>>> {
    let out: Box<dyn Write> = if output == "-" {
        Box::new(io::stdout().lock())
    } else {
        Box::new(File::create(output)?)
    };
    Ok(BufWriter::with_capacity(1 << 16, out))
}

/// `annotate`: the capture `decode` names, written to `output` as pcapng with comments.
pub(super) fn command(decode: Decode, output: &str) -> ExitCode {
    let (input, len, mut warn) = match open_decode(&decode) {
        Ok(opened) => opened,
        Err(code) => return code,
    };
    let file = decode.input().to_owned();
    let Decode { config, .. } = decode;
    let reader = match CaptureReader::new(input) {
        Ok(r) => r,
        Err(e) => return finish_outcome(&file, Outcome::InputError(e)),
    };
    if reader.format() == Format::Demo {
        eprintln!(
            "gamedissect: {}: a Quake 3 demo has no frames to copy: annotate takes a pcap or pcapng capture",
            input_name(&file)
        );
        return ExitCode::from(1);
    }
    // The output is made only once the input is known to be a capture.
    let out = match create(output).and_then(|o| PcapngWriter::new(o, APPLICATION)) {
        Ok(out) => out,
        Err(e) => {
            let name = input_name(output);
            eprintln!("gamedissect: {name}: cannot write: {e}");
            return ExitCode::from(1);
        }
    };
    let config = Config {
        detail: needs_tree(&config),
        field_mask: field_mask(&config, &[]),
        flow_stats: false,
        message_stats: false,
        ..config
    };
    let mut engine = Engine::new(protocols::all(), config);
    let mut a = Annotator {
        out,
        waiting: VecDeque::new(),
        section: 0,
        interfaces: Vec::new(),
        spare: Vec::new(),
    };
    let progress = Progress::maybe(len);
    let mut outcome = annotate(reader, &mut engine, &mut a, &mut warn, progress.as_ref());
    if let Some(p) = progress {
        p.clear();
    }
    if let Err(e) = a.out.finish()
        && !matches!(outcome, Outcome::InputError(_))
    {
        outcome = Outcome::Output(e);
    }
    finish_outcome(&file, outcome)
}
