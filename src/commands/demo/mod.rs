//! `gamedissect demo`: Quake 3 demos from a capture, one per client connection and map.
//!
//! A demo is what the recording client's parser received, message by message (ioquake3
//! code/client/cl_main.c `CL_WriteDemoMessage`): the netchan sequence as a little-endian int32,
//! the message length as a little-endian int32, the message after netchan processing (header
//! removed, de-keyed, fragments reassembled, still Huffman-coded); after the last one two int32
//! -1 (`CL_StopRecord_f`). The decoder already reassembles and de-keys every server → client
//! message; the Quake 3 facts'
//! [`server_message`](crate::protocols::quake3::facts::server_message()) hands over those
//! bytes. A demo starts with a captured gamestate message, as `CL_Record_f` starts with a
//! gamestate of its own making; messages the capture lost are left out, as the client missed
//! them.
//!
//! Memory stays bounded: each message is written out as it is decoded, at most [`MAX_OPEN`]
//! demos are open at once, and at most [`MAX_DEMOS`] are made.

use std::process::ExitCode;

use super::{Decode, finish_outcome, one_input, open_decode};
use std::collections::{HashMap, HashSet};
use std::fs::File;
use std::io::{self, BufRead, BufWriter, Write};
use std::path::{Path, PathBuf};

use crate::engine::{Config, Engine};
use crate::proto::Direction;
use crate::proto::Meta;
use crate::protocols;
use crate::protocols::quake3::facts::{
    clean_str, disconnects, gamestate_player_and_map, handshake_protocol, server_message,
};
use crate::run::{Outcome, run_capture};
use crate::tree::Record;

pub use crate::capture::q3demo as file;

/// Demos open at once (one per connection being written); a connection past it is skipped.
pub const MAX_OPEN: usize = 256;
/// Connections remembered (a few hundred bytes each); records of further flows are only counted.
pub const MAX_CONNS: usize = 100_000;
/// Demos made in one run; a gamestate past it starts none (a capture that changes map at every
/// message would otherwise make a file per datagram).
pub const MAX_DEMOS: usize = 10_000;
/// Characters kept of each part of a file name (player, server, map).
const NAME_PART: usize = 48;

/// What is done with the demos.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// Only say what would be written (`--list`).
    List,
    /// Write each demo into this directory.
    Dir(PathBuf),
    /// Keep each demo's bytes in memory (tests).
    Memory,
}

/// One demo: where it came from and what it holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DemoInfo {
    /// The file name, with its `.dm_<protocol>` extension.
    pub name: String,
    /// The flow number, as in `dissect`.
    pub flow: u64,
    pub server: String,
    pub client: String,
    pub player: String,
    pub map: String,
    /// The protocol the connection used (`connect`'s userinfo, else `challengeResponse`).
    pub protocol: u32,
    /// Messages written, and those missing between them (netchan sequence gaps).
    pub messages: u64,
    pub lost: u64,
    pub first_frame: u64,
    pub last_frame: u64,
    /// The demo's bytes, with [`Target::Memory`] only.
    pub bytes: Vec<u8>,
}

/// A connection no demo was made of, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skipped {
    pub flow: u64,
    pub server: String,
    pub client: String,
    pub reason: String,
}

/// The result of a run: demos in the order they started, and the connections skipped.
#[derive(Debug, Default)]
pub struct Report {
    pub demos: Vec<DemoInfo>,
    pub skipped: Vec<Skipped>,
    /// Records of flows past [`MAX_CONNS`], not looked at.
    pub untracked: u64,
}

enum Out {
    None,
    File(BufWriter<File>),
    Memory(Vec<u8>),
}

impl Out {
    fn write(&mut self, bytes: &[u8]) -> io::Result<()> {
        match self {
            Out::None => Ok(()),
            Out::File(f) => f.write_all(bytes),
            Out::Memory(v) => {
                v.extend_from_slice(bytes);
                Ok(())
            }
        }
    }
}

/// A connection as seen so far.
#[derive(Default)]
struct Conn {
    server: String,
    client: String,
    protocol: Option<u32>,
    /// Server messages before the first gamestate, and those left keyed (the reason a
    /// connection is skipped).
    before_gamestate: u64,
    keyed: u64,
    /// Index in `Report::demos` of the demo being written, and its output.
    open: Option<(usize, Out)>,
    last_sequence: Option<u32>,
    too_many: bool,
    /// Demos made of the connection, and gamestates that started none past [`MAX_DEMOS`].
    demos: u64,
    over_cap: u64,
    /// A gamestate came but no handshake named the protocol, which names the extension.
    no_protocol: bool,
}

struct Collector {
    target: Target,
    single: bool,
    conns: HashMap<u64, Conn>,
    report: Report,
    used_names: Names,
    open_count: usize,
}

/// Reads a capture and makes its demos (or, with [`Target::List`], says which it would make).
pub fn demos<R: BufRead>(
    input: R,
    total_len: Option<u64>,
    config: Config,
    target: Target,
    single: bool,
    warn: &mut dyn FnMut(&crate::capture::CaptureError),
) -> (Report, Outcome) {
    let config = Config {
        detail: true,
        flow_stats: false,
        message_stats: false,
        shard: None,
        filter: None,
        ..config
    };
    let mut c = Collector {
        target,
        single,
        conns: HashMap::new(),
        report: Report::default(),
        used_names: Names::default(),
        open_count: 0,
    };
    let mut engine = Engine::new(protocols::all(), config);
    let mut outcome = run_capture(input, &mut engine, total_len, warn, &mut |m, r| {
        c.record(m, r)
    });
    if let Err(e) = c.finish()
        && matches!(outcome, Outcome::Done)
    {
        outcome = Outcome::Output(e);
    }
    (c.report, outcome)
}

/// The demos of a capture held in memory (tests).
pub fn demos_of(bytes: &[u8], config: Config, single: bool) -> Report {
    demos(bytes, None, config, Target::Memory, single, &mut |_| {}).0
}

impl Collector {
    fn record(&mut self, m: &Meta<'_>, r: &mut Record) -> io::Result<()> {
        if r.protocol != "quake3" {
            return Ok(());
        }
        let protocol = handshake_protocol(r);
        let to_client = m.direction == Some(Direction::ToClient);
        if protocol.is_none() && !to_client && !self.conns.contains_key(&m.flow) {
            // Queries, or client messages of a connection not yet seen from the server.
            return Ok(());
        }
        let Some(conn) = self.conn(m.flow) else {
            return Ok(());
        };
        if let Some(p) = protocol {
            conn.protocol = Some(p);
        }
        if m.direction == Some(Direction::ToServer) && disconnects(r, true) {
            // ioquake3 code/client/cl_main.c `CL_Disconnect` stops the recording before it sends
            // its disconnect: nothing after it was recorded.
            return self.close(m.flow);
        }
        if !to_client {
            return Ok(());
        }
        if conn.server.is_empty() {
            // Before the message is known to decode: a skipped connection of keyed messages is
            // still named.
            conn.server = m.src_text.to_string();
            conn.client = m.dst_text.to_string();
        }
        let Some(msg) = server_message(m.payload, r) else {
            conn.keyed += u64::from(r.msg_type == "keyed");
            return Ok(());
        };
        if msg.gamestate && (conn.open.is_none() || !self.single) {
            self.start(m, r)?;
        }
        let Some(conn) = self.conns.get_mut(&m.flow) else {
            return Ok(());
        };
        let Some((idx, out)) = conn.open.as_mut() else {
            conn.before_gamestate += 1;
            return Ok(());
        };
        let demo = &mut self.report.demos[*idx];
        out.write(&frame_header(msg.sequence, msg.bytes.len()))?;
        out.write(msg.bytes)?;
        demo.messages += 1;
        demo.last_frame = m.frame;
        if let Some(last) = conn.last_sequence
            && msg.sequence > last
        {
            demo.lost += u64::from(msg.sequence - last - 1);
        }
        conn.last_sequence = Some(msg.sequence);
        if disconnects(r, false) {
            // The message is recorded (`CL_PacketEvent` writes it after parsing it); executing
            // the command drops the connection (`CL_GetServerCommand`), which ends the recording.
            return self.close(m.flow);
        }
        Ok(())
    }

    /// The flow's connection, made at its first relevant record unless [`MAX_CONNS`] are known
    /// already (then counted in `Report::untracked`).
    fn conn(&mut self, flow: u64) -> Option<&mut Conn> {
        if self.conns.len() >= MAX_CONNS && !self.conns.contains_key(&flow) {
            self.report.untracked += 1;
            return None;
        }
        Some(self.conns.entry(flow).or_default())
    }

    /// Closes the flow's demo, if any, and opens one for the gamestate in `r`.
    fn start(&mut self, m: &Meta<'_>, r: &Record) -> io::Result<()> {
        self.close(m.flow)?;
        let Some(conn) = self.conns.get_mut(&m.flow) else {
            return Ok(());
        };
        if self.open_count >= MAX_OPEN {
            conn.too_many = true;
            return Ok(());
        }
        if self.report.demos.len() >= MAX_DEMOS {
            conn.over_cap += 1;
            return Ok(());
        }
        let Some(protocol) = conn.protocol else {
            conn.no_protocol = true;
            return Ok(());
        };
        let (player, map) = gamestate_player_and_map(r);
        let player = clean_str(&player);
        let ext = format!("dm_{protocol}");
        let stem = [&player, &conn.server.replace(':', "-"), &map]
            .map(|s| file_part(s))
            .join("_");
        let name = self.used_names.unique(&stem, &ext);
        let out = match &self.target {
            Target::List => Out::None,
            Target::Memory => Out::Memory(Vec::new()),
            Target::Dir(d) => Out::File(BufWriter::new(File::create(d.join(&name))?)),
        };
        self.report.demos.push(DemoInfo {
            name,
            flow: m.flow,
            server: conn.server.clone(),
            client: conn.client.clone(),
            player,
            map,
            protocol,
            messages: 0,
            lost: 0,
            first_frame: m.frame,
            last_frame: m.frame,
            bytes: Vec::new(),
        });
        conn.open = Some((self.report.demos.len() - 1, out));
        conn.last_sequence = None;
        conn.demos += 1;
        self.open_count += 1;
        Ok(())
    }

    /// Ends the flow's open demo with the end marker of `CL_StopRecord_f`.
    fn close(&mut self, flow: u64) -> io::Result<()> {
        let Some(conn) = self.conns.get_mut(&flow) else {
            return Ok(());
        };
        let Some((idx, mut out)) = conn.open.take() else {
            return Ok(());
        };
        self.open_count -= 1;
        out.write(&END_MARKER)?;
        match out {
            Out::File(mut f) => f.flush()?,
            Out::Memory(v) => self.report.demos[idx].bytes = v,
            Out::None => {}
        }
        Ok(())
    }

    fn finish(&mut self) -> io::Result<()> {
        let mut flows: Vec<u64> = self.conns.keys().copied().collect();
        flows.sort_unstable();
        let mut result = Ok(());
        for flow in flows {
            if let Err(e) = self.close(flow) {
                result = result.and(Err(e));
            }
            let conn = &self.conns[&flow];
            // Counted per connection: looking each flow up among the demos made is
            // connections × demos work.
            let has_demo = conn.demos > 0;
            let reason = if conn.too_many {
                Some(format!(
                    "more than {MAX_OPEN} connections were being written at once"
                ))
            } else if conn.over_cap > 0 {
                Some(format!(
                    "{} gamestates came after the first {MAX_DEMOS} demos and started none",
                    conn.over_cap
                ))
            } else if conn.no_protocol && !has_demo {
                Some("the handshake was not captured: the protocol, which names the demo's extension (.dm_68, .dm_71, .dm_72), is unknown".into())
            } else if !has_demo && conn.before_gamestate + conn.keyed > 0 {
                Some(format!(
                    "no gamestate captured ({} server messages decoded, {} left keyed)",
                    conn.before_gamestate, conn.keyed
                ))
            } else {
                None
            };
            if let Some(reason) = reason {
                self.report.skipped.push(Skipped {
                    flow,
                    server: conn.server.clone(),
                    client: conn.client.clone(),
                    reason,
                });
            }
        }
        result
    }
}

/// The end of a demo (ioquake3 code/client/cl_main.c `CL_StopRecord_f`): two int32 -1.
pub const END_MARKER: [u8; 8] = [0xff; 8];

/// The 8 bytes before each message: sequence and length, little-endian int32.
fn frame_header(sequence: u32, len: usize) -> [u8; 8] {
    let mut h = [0u8; 8];
    h[..4].copy_from_slice(&sequence.to_le_bytes());
    // A message is at most MAX_MSGLEN (16,384) bytes after reassembly.
    h[4..].copy_from_slice(&(len as u32).to_le_bytes());
    h
}

/// One part of a file name: letters, digits, `.` and `-` kept, anything else `_`, bounded.
fn file_part(s: &str) -> String {
    let part: String = s
        .chars()
        .take(NAME_PART)
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '.' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    let part = part.trim_start_matches('.').to_string();
    if part.is_empty() {
        "unknown".into()
    } else {
        part
    }
}

/// The file names given so far.
#[derive(Default)]
struct Names {
    used: HashSet<String>,
    /// The next suffix to try per stem: counting up from 2 at every name would be quadratic in
    /// the demos of one player, server and map (a map change at every message).
    next: HashMap<String, u64>,
}

impl Names {
    /// `stem.ext`, or `stem-2.ext`, `stem-3.ext` … when taken.
    fn unique(&mut self, stem: &str, ext: &str) -> String {
        let mut name = format!("{stem}.{ext}");
        if self.used.contains(&name) {
            let n = self.next.entry(stem.to_string()).or_insert(2);
            loop {
                name = format!("{stem}-{n}.{ext}");
                *n += 1;
                if !self.used.contains(&name) {
                    break;
                }
            }
        }
        self.used.insert(name.clone());
        name
    }
}

/// One line per demo and per skipped connection, as `demo` prints them.
pub fn write_report(out: &mut impl Write, report: &Report, dir: Option<&Path>) -> io::Result<()> {
    let verb = if dir.is_some() {
        "wrote"
    } else {
        "would write"
    };
    for d in &report.demos {
        let path = dir.map_or_else(|| d.name.clone(), |p| p.join(&d.name).display().to_string());
        writeln!(
            out,
            "{verb} {path}: flow {}, {} -> {}, player {:?}, map {:?}, protocol {}, {} messages (frames {}-{}), {} lost",
            d.flow,
            d.server,
            d.client,
            d.player,
            d.map,
            d.protocol,
            d.messages,
            d.first_frame,
            d.last_frame,
            d.lost
        )?;
    }
    for s in &report.skipped {
        writeln!(
            out,
            "skipped flow {} ({} -> {}): {}",
            s.flow, s.server, s.client, s.reason
        )?;
    }
    if report.untracked > 0 {
        writeln!(
            out,
            "skipped {} records of flows past the first {MAX_CONNS} Quake 3 connections",
            report.untracked
        )?;
    }
    Ok(())
}

/// `gamedissect demo`.
pub(super) fn command(decode: Decode, dir: Option<std::path::PathBuf>, single: bool) -> ExitCode {
    use crate::commands::demo::Target;
    let (input, len, mut warn) = match open_decode(&decode) {
        Ok(opened) => opened,
        Err(code) => return code,
    };
    if let Some(d) = &dir
        && let Err(e) = std::fs::create_dir_all(d)
    {
        let d = d.display().to_string();
        eprintln!(
            "gamedissect: {}: cannot create: {e}",
            crate::text::escaped(&d)
        );
        return ExitCode::from(1);
    }
    let target = dir.clone().map_or(Target::List, Target::Dir);
    let (report, outcome) =
        crate::commands::demo::demos(input, len, decode.config, target, single, &mut warn);
    let mut out = io::stdout().lock();
    let written = crate::commands::demo::write_report(&mut out, &report, dir.as_deref());
    match (outcome, written.and_then(|_| out.flush())) {
        (Outcome::Done, Err(e)) => finish_outcome(one_input(&decode.inputs), Outcome::Output(e)),
        (o, _) => finish_outcome(one_input(&decode.inputs), o),
    }
}

#[cfg(test)]
mod tests;
