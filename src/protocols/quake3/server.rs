//! Server → client messages: reliable acknowledge, then svc operations (ioquake3
//! code/client/cl_parse.c `CL_ParseServerMessage`, `CL_ParseGamestate`, `CL_ParseSnapshot`,
//! `CL_ParseDownload`, `CL_ParseCommandString`, `CL_ParseVoip`).

use super::State;
use super::bits::{BitDissector, Loc};
use super::connectionless::{InfoDefs, add_info, info_value, tokenize};
use super::constants::{
    Cs, ENTITYNUM_NONE, EntBase, GENTITYNUM_BITS, MAX_AREA_BYTES, MAX_CONFIGSTRINGS, MAX_GENTITIES,
    MAX_OPS, PACKET_BACKUP, Svc,
};
use super::delta::{self, ENT_ALL_KNOWN, EntDelta, EntState, KnownEnt, PlayerState};
use super::fields::*;
use super::notes;
use std::fmt::Write as _;
use std::sync::Arc;

use crate::tree::{Pos, TreeBuilder, Value};
use crate::wire::{Step, Stop};

pub static CS_INFO_DEFS: InfoDefs = InfoDefs {
    group: &GS_CS_INFO,
    pair: &GS_CS_INFO_PAIR,
    key: &GS_CS_INFO_KEY,
    value: &GS_CS_INFO_VALUE,
};
pub static CMD_INFO_DEFS: InfoDefs = InfoDefs {
    group: &SVC_CMD_INFO,
    pair: &SVC_CMD_INFO_PAIR,
    key: &SVC_CMD_INFO_KEY,
    value: &SVC_CMD_INFO_VALUE,
};

/// A snapshot kept for later deltas.
#[derive(Clone, Default)]
pub struct Snap {
    pub sequence: u32,
    /// The slot holds a snapshot that was decoded to the end.
    pub valid: bool,
    pub ps: PlayerState,
    /// Numbers of the snapshot's entities, sorted.
    pub nums: Vec<u16>,
    /// Their states, when field trees are on (empty otherwise: the summary shows only which
    /// entities exist, and a list of plain numbers is cleared without touching its memory).
    /// States are shared between the snapshots of the ring: an entity a delta leaves unchanged
    /// is the same allocation in both (copy on write).
    pub states: Vec<Arc<KnownEnt>>,
    /// Its entity list is whole: a non-delta snapshot, or a delta from a whole one (after a
    /// reference that was not captured, only the entities sent since are listed).
    pub complete: bool,
    /// Entity numbers known not to be in the snapshot (bit n % 64 of word n / 64): every one
    /// not listed in a whole snapshot; after a lost reference, those removed since.
    pub gone: Gone,
}

/// A set of entity numbers (below MAX_GENTITIES), one bit each.
pub type Gone = [u64; MAX_GENTITIES / 64];

/// The snapshots a flow keeps, in slots by message sequence modulo [`PACKET_BACKUP`], as the
/// client keeps them (`cl.snapshots[messageNum & PACKET_MASK]`, ioquake3 code/client/cl_parse.c
/// `CL_ParseSnapshot`): a delta from message m is usable only while slot m still holds message m
/// ("Delta frame too old" otherwise). A snapshot is decoded straight into its slot, so the few
/// hundred bytes of a player state are never moved.
#[derive(Default)]
pub struct SnapRing {
    /// Empty until the first snapshot, then [`PACKET_BACKUP`] slots.
    slots: Vec<Snap>,
}

impl SnapRing {
    /// Forgets every snapshot (a new level or connection); the slots' memory is kept.
    pub fn clear(&mut self) {
        for s in &mut self.slots {
            s.valid = false;
        }
    }

    /// The slot holding message `sequence`, if it is still there.
    pub fn find(&self, sequence: u32) -> Option<usize> {
        let i = sequence as usize % PACKET_BACKUP;
        let s = self.slots.get(i)?;
        (s.valid && s.sequence == sequence).then_some(i)
    }

    pub fn slots(&self) -> &[Snap] {
        &self.slots
    }
}

/// What the summary reports: the parts joined with `; ` as they are added.
#[derive(Default)]
pub struct Summary {
    pub text: String,
    /// How many parts `text` holds.
    pub parts: usize,
    pub msg_type: &'static str,
    /// `text` starts with a heading; the first part follows it after a space.
    headed: bool,
}

pub use crate::text::{push_int, push_uint};

/// Appends `v` as `{:#x}` does: `0x` and lowercase hex digits.
pub fn push_hex(out: &mut String, v: u64) {
    out.push_str("0x");
    let digits = (64 - v.leading_zeros()).div_ceil(4).max(1);
    for k in (0..digits).rev() {
        let d = (v >> (4 * k) & 15) as u8;
        out.push(if d < 10 { b'0' + d } else { b'a' + d - 10 } as char);
    }
}

impl Summary {
    /// A summary whose parts follow `heading` (the whole line is built in one string).
    pub fn after(heading: String) -> Summary {
        Summary {
            text: heading,
            headed: true,
            ..Summary::default()
        }
    }
    fn sep(&mut self) {
        if self.parts > 0 {
            self.text.push_str("; ");
        } else if self.headed {
            self.text.push(' ');
        } else if self.text.capacity() == 0 {
            self.text.reserve(96);
        }
        self.parts += 1;
    }
    /// Starts a part written by the caller (for hot lines written without `format!`).
    pub fn part(&mut self) -> &mut String {
        self.sep();
        &mut self.text
    }
    /// Appends a formatted part.
    pub fn add(&mut self, part: std::fmt::Arguments<'_>) {
        self.sep();
        let _ = self.text.write_fmt(part);
    }
    /// Appends a part.
    pub fn add_str(&mut self, part: &str) {
        self.sep();
        self.text.push_str(part);
    }
}

fn lossy(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn short_text(b: &[u8], n: usize) -> String {
    let s = lossy(b);
    let s = s.trim_end_matches('\n');
    if s.chars().count() > n {
        let mut o: String = s.chars().take(n).collect();
        o.push('…');
        o
    } else {
        s.to_string()
    }
}

impl State {
    /// Parses a complete server message `body` (already de-keyed) with netchan `sequence`;
    /// returns the bit position where reading stopped.
    pub fn parse_server(
        &mut self,
        body: &[u8],
        sequence: u32,
        loc: Loc,
        t: &mut TreeBuilder,
        sum: &mut Summary,
    ) -> usize {
        t.open(&SVC, Value::None, loc.bits(0, body.len() * 8));
        let mut d = BitDissector::new(body, t, loc);
        // A failed read has recorded its note; the message ends there.
        let _ = self.server_ops(&mut d, sequence, sum);
        let end = d.pos();
        t.close_as_is();
        end
    }

    fn server_ops(
        &mut self,
        d: &mut BitDissector<'_, '_>,
        sequence: u32,
        sum: &mut Summary,
    ) -> Step<()> {
        let s = d.pos();
        let ack = d.ulong("reliable acknowledge")?;
        d.t.add(
            &SVC_RELIABLE_ACK,
            Value::UInt(ack as u64),
            d.loc.bits(s, d.pos()),
        );
        let mut nops = 0u64;
        let mut nop_pos = None;
        let mut seen = 0u32;
        for _ in 0..MAX_OPS {
            let s = d.pos();
            let op = Svc(d.byte("svc opcode")?);
            match op {
                Svc::NOP => {
                    nops += 1;
                    nop_pos.get_or_insert(d.loc.bits(s, d.pos()));
                }
                Svc::GAMESTATE | Svc::SNAPSHOT if seen & (1 << op.0) != 0 => {
                    d.t.expert(
                        &notes::SVC_REPEATED,
                        None,
                        Some(d.loc.bits(s, d.pos())),
                        format!(
                            "a second {} in one message",
                            if op == Svc::GAMESTATE {
                                "gamestate"
                            } else {
                                "snapshot"
                            }
                        ),
                    );
                    return Ok(());
                }
                Svc::GAMESTATE => {
                    seen |= 1 << op.0;
                    self.gamestate(d, s, sum)?
                }
                Svc::SERVER_COMMAND => self.server_command(d, s, sum)?,
                Svc::DOWNLOAD => self.download(d, s, sum)?,
                Svc::SNAPSHOT => {
                    seen |= 1 << op.0;
                    self.snapshot(d, s, sequence, sum)?
                }
                Svc::EOF => {
                    if nops > 0 {
                        d.t.add(
                            &SVC_NOP,
                            Value::UInt(nops),
                            nop_pos.unwrap_or(d.loc.bits(s, s)),
                        );
                    }
                    if sum.msg_type.is_empty() {
                        sum.msg_type = "server";
                    }
                    return Ok(());
                }
                Svc::VOIP_SPEEX | Svc::VOIP_OPUS => self.voip(d, s, op, sum)?,
                _ => {
                    d.t.expert(
                        &notes::SVC_UNKNOWN,
                        None,
                        Some(d.loc.bits(s, d.pos())),
                        format!("unknown svc opcode {}", op.0),
                    );
                    return Ok(());
                }
            }
        }
        d.t.expert(
            &notes::TOO_MANY_OPS,
            None,
            None,
            "more than 4096 operations in one message",
        );
        Ok(())
    }

    fn gamestate(&mut self, d: &mut BitDissector<'_, '_>, s: usize, sum: &mut Summary) -> Step<()> {
        sum.msg_type = "gamestate";
        d.t.open(&GAMESTATE, Value::None, d.loc.bits(s, s));
        let a = d.pos();
        let seq = d.ulong("gamestate command sequence")?;
        d.t.add(&GS_COMMAND_SEQ, Value::UInt(seq as u64), d.since(a));
        self.gamestate_seen(seq);
        self.have_gamestate = true;
        let mut n_cs = 0u32;
        let mut n_bl = 0u64;
        let mut buf = Vec::new();
        loop {
            let a = d.pos();
            let cmd = Svc(d.byte("gamestate entry")?);
            match cmd {
                Svc::EOF => break,
                Svc::CONFIGSTRING => {
                    let idx = d.short("configstring index")?;
                    d.string("configstring", 8192, &mut buf)?;
                    let p = d.since(a);
                    if !(0..MAX_CONFIGSTRINGS as i16).contains(&idx) {
                        d.t.expert(
                            &notes::CONFIGSTRING_INDEX,
                            Some(&GS_CS_INDEX),
                            Some(p),
                            format!("configstring index {idx} out of range"),
                        );
                        d.t.close(d.end());
                        return Ok(());
                    }
                    n_cs += 1;
                    self.configstring_set(idx as u32, &buf, sum);
                    d.t.open(&GS_CONFIGSTRING, Value::None, p);
                    d.t.add(&GS_CS_INDEX, Value::UInt(idx as u64), p);
                    let name = Cs::name_of(idx as u32);
                    if !name.is_empty() {
                        d.t.add(&GS_CS_NAME, Value::Str(name.into()), p);
                    }
                    d.t.add_text(&GS_CS_VALUE, &buf, p);
                    if Cs::is_info(idx as u32) {
                        add_info(d.t, &CS_INFO_DEFS, &buf, p, None);
                    }
                    d.t.close_as_is();
                }
                Svc::BASELINE => {
                    let num = d.bits("baseline number", GENTITYNUM_BITS)? as u16;
                    let zero = [0u32; delta::ENT_FIELDS];
                    let (mut st, mut ch) = ([0u32; delta::ENT_FIELDS], delta::Changes::new());
                    let delta = delta::read_entity(d, "baseline", &zero, &mut st, &mut ch)?;
                    let p = d.since(a);
                    n_bl += 1;
                    d.t.open(&ENTITY, Value::None, p);
                    d.t.add(&ENT_NUMBER, Value::UInt(num as u64), p);
                    match delta {
                        EntDelta::Changed => {
                            let (all, src) = (ENT_ALL_KNOWN, d.loc.source);
                            delta::render_entity(d.t, &st, all, Some(&ch), src, p);
                            self.set_baseline(num, st);
                        }
                        EntDelta::Removed => {
                            d.t.add(&ENT_REMOVED, Value::Bool(true), p);
                        }
                        EntDelta::Unchanged => self.set_baseline(num, zero),
                    }
                    d.t.close_as_is();
                }
                _ => {
                    d.t.expert(
                        &notes::GAMESTATE_ENTRY_UNKNOWN,
                        None,
                        Some(d.since(a)),
                        format!("unknown gamestate entry {}", cmd.0),
                    );
                    d.t.close(d.end());
                    return Ok(());
                }
            }
        }
        d.t.add(&GS_BASELINES, Value::UInt(n_bl), d.loc.bits(s, d.pos()));
        let a = d.pos();
        let cn = d.ulong("clientNum")?;
        d.t.add(&GS_CLIENT_NUM, Value::UInt(cn as u64), d.since(a));
        let a = d.pos();
        let feed = d.long("checksumFeed")?;
        d.t.add(&GS_CHECKSUM_FEED, Value::Int(feed as i64), d.since(a));
        if let (Some(old), Some(id)) = (self.checksum_feed, self.feed_server_id)
            && self.server_id != Some(id)
        {
            self.prev_feed = Some((id, old));
        }
        self.checksum_feed = Some(feed);
        self.feed_server_id = self.server_id;
        self.client_num = Some(cn);
        d.t.close(d.end());
        let map = self.map.clone().unwrap_or_default();
        sum.add(format_args!(
            "gamestate map {map} {n_cs} configstrings {n_bl} baselines client {cn}"
        ));
        Ok(())
    }

    fn server_command(
        &mut self,
        d: &mut BitDissector<'_, '_>,
        s: usize,
        sum: &mut Summary,
    ) -> Step<()> {
        let num = d.ulong("server command number")?;
        let mut text = Vec::new();
        d.string("server command", 1024, &mut text)?;
        let p = d.loc.bits(s, d.pos());
        let fresh = self.server_cmds.put(num, &text);
        d.t.open(&SVC_COMMAND, Value::None, p);
        d.t.add(&SVC_CMD_SEQUENCE, Value::UInt(num as u64), p);
        d.t.add_text(&SVC_CMD_TEXT, &text, p);
        let toks = tokenize(&text);
        let name = toks.first().copied().unwrap_or(b"");
        d.t.add_text(&SVC_CMD_NAME, name, p);
        let arg = |i: usize| toks.get(i).copied().unwrap_or(b"");
        let mut line = format!("cmd {num} {}", lossy(name));
        match name {
            b"print" | b"chat" | b"tchat" | b"cp" | b"disconnect" => {
                d.t.add_text(&SVC_CMD_MESSAGE, arg(1), p);
                line = format!("{} \"{}\"", lossy(name), short_text(arg(1), 60));
            }
            b"cs" => {
                let idx: u32 = lossy(arg(1)).parse().unwrap_or(u32::MAX);
                if idx < MAX_CONFIGSTRINGS {
                    self.cs_command(d.t, p, idx, arg(2), fresh, sum);
                    line = format!("cs {idx} {}", Cs::name_of(idx));
                }
            }
            b"bcs0" | b"bcs1" | b"bcs2" => {
                let idx: u32 = lossy(arg(1)).parse().unwrap_or(u32::MAX);
                if idx < MAX_CONFIGSTRINGS {
                    d.t.add(&SVC_CMD_CS_INDEX, Value::UInt(idx as u64), p);
                    if name == b"bcs0" || self.bcs.as_ref().is_none_or(|b| b.0 != idx) {
                        self.bcs = Some((idx, Vec::new()));
                    }
                    if let Some((_, buf)) = self.bcs.as_mut()
                        && buf.len() + arg(2).len() <= 16384
                    {
                        buf.extend_from_slice(arg(2));
                    }
                    if name == b"bcs2"
                        && let Some((_, full)) = self.bcs.take()
                    {
                        self.cs_command(d.t, p, idx, &full, fresh, sum);
                    }
                    line = format!("{} {idx}", lossy(name));
                }
            }
            _ => {
                for a in toks.iter().skip(1).take(64) {
                    d.t.add_text(&SVC_CMD_ARG, a, p);
                }
            }
        }
        d.t.close_as_is();
        sum.add_str(&line);
        if sum.msg_type.is_empty() {
            sum.msg_type = "serverCommand";
        }
        Ok(())
    }

    fn cs_command(
        &mut self,
        t: &mut TreeBuilder,
        p: Pos,
        idx: u32,
        value: &[u8],
        fresh: bool,
        sum: &mut Summary,
    ) {
        t.add(&SVC_CMD_CS_INDEX, Value::UInt(idx as u64), p);
        let name = Cs::name_of(idx);
        if !name.is_empty() {
            t.add(&SVC_CMD_CS_NAME, Value::Str(name.into()), p);
        }
        t.add_text(&SVC_CMD_CS_VALUE, value, p);
        if Cs::is_info(idx) {
            add_info(t, &CMD_INFO_DEFS, value, p, None);
        }
        if fresh {
            self.configstring_set(idx, value, sum);
        }
    }

    /// Learns what matters from a configstring (map, serverId, player names).
    fn configstring_set(&mut self, idx: u32, value: &[u8], _sum: &mut Summary) {
        match Cs::block(idx) {
            Cs::SERVERINFO => {
                if let Some(m) = info_value(value, b"mapname") {
                    self.map = Some(lossy(m));
                }
            }
            Cs::SYSTEMINFO => {
                if let Some(id) = info_value(value, b"sv_serverid") {
                    self.server_id = lossy(id).parse().ok();
                }
            }
            Cs::PLAYERS => {
                if let Some(n) = info_value(value, b"n")
                    && self.players.len() < 64
                    && !self.players.iter().any(|p| p.as_bytes() == n)
                {
                    self.players.push(lossy(n));
                }
            }
            _ => {}
        }
    }

    fn download(&mut self, d: &mut BitDissector<'_, '_>, s: usize, sum: &mut Summary) -> Step<()> {
        let block = d.bits("download", 16)? as u16;
        d.t.open(&DOWNLOAD, Value::None, d.loc.bits(s, s));
        d.t.add(&DL_BLOCK, Value::UInt(block as u64), d.loc.bits(s, d.pos()));
        if block == 0 {
            let size = d.long("download")?;
            d.t.add(&DL_SIZE, Value::Int(size as i64), d.loc.bits(s, d.pos()));
            if size < 0 {
                let mut text = Vec::new();
                d.string("download", 1024, &mut text)?;
                d.t.add_text(&DL_ERROR, &text, d.loc.bits(s, d.pos()));
                d.t.close(d.end());
                sum.add(format_args!("download error {}", short_text(&text, 60)));
                return Ok(());
            }
        }
        let len = d.bits("download", 16)? as u16 as usize;
        d.t.add(&DL_LENGTH, Value::UInt(len as u64), d.loc.bits(s, d.pos()));
        let a = d.pos();
        let data = d.bytes("download", len)?;
        d.t.add(&DL_DATA, Value::Bytes(data.into()), d.since(a));
        d.t.close(d.end());
        sum.add(format_args!("download block {block} {len} bytes"));
        if sum.msg_type.is_empty() {
            sum.msg_type = "download";
        }
        Ok(())
    }

    fn voip(
        &mut self,
        d: &mut BitDissector<'_, '_>,
        s: usize,
        op: Svc,
        sum: &mut Summary,
    ) -> Step<()> {
        let client = d.bits("voip", 16)?;
        let generation = d.byte("voip")?;
        let seq = d.ulong("voip")?;
        let frames = d.byte("voip")?;
        let size = d.bits("voip", 16)? as usize;
        let flags = d.raw("voip", 2)?;
        let a = d.pos();
        let data = d.bytes("voip", size)?;
        let p = d.loc.bits(s, d.pos());
        d.t.open(&VOIP, Value::Enum(op.0 as i64, op.name_or("")), p);
        d.t.add(&VOIP_CLIENT, Value::UInt(client as u64), p);
        d.t.add(&VOIP_GENERATION, Value::UInt(generation as u64), p);
        d.t.add(&VOIP_SEQUENCE, Value::UInt(seq as u64), p);
        d.t.add(&VOIP_FRAMES, Value::UInt(frames as u64), p);
        d.t.add(&VOIP_FLAGS, Value::UInt(flags as u64), p);
        d.t.add(&VOIP_DATA, Value::Bytes(data.into()), d.since(a));
        d.t.close_as_is();
        sum.add(format_args!("voip client {client} {size} bytes"));
        Ok(())
    }

    /// A snapshot (ioquake3 code/client/cl_parse.c `CL_ParseSnapshot`), decoded straight into
    /// its slot of the ring.
    fn snapshot(
        &mut self,
        d: &mut BitDissector<'_, '_>,
        s: usize,
        sequence: u32,
        sum: &mut Summary,
    ) -> Step<()> {
        sum.msg_type = "snapshot";
        d.t.open(&SNAPSHOT, Value::None, d.loc.bits(s, s));
        let Some(hd) = snapshot_header(d, sequence, &mut self.seen_head)? else {
            return Ok(());
        };
        self.server_time.set(Some(hd.time));
        let reference = if hd.delta_num == 0 {
            None
        } else {
            let found = self.snaps.find(hd.from_seq);
            if found.is_none() {
                d.t.expert(
                    &notes::DELTA_REFERENCE_MISSING,
                    Some(&SNAP_DELTA_FROM),
                    Some(d.since(hd.mask_at)),
                    format!(
                        "reference snapshot {} was not captured: fields not sent are unknown",
                        hd.from_seq
                    ),
                );
            }
            found
        };
        // After a lost gamestate the baselines kept are another level's: not used.
        let level = self.baselines_apply();
        let ring = &mut self.snaps.slots;
        if ring.is_empty() {
            ring.resize_with(PACKET_BACKUP, Snap::default);
        }
        let slot = sequence as usize % PACKET_BACKUP;
        // A delta of exactly PACKET_BACKUP messages refers to the slot about to be overwritten.
        let same_slot_copy = (reference == Some(slot)).then(|| ring[slot].clone());
        let (target, from_snap) = slot_and_reference(ring, slot, reference);
        let from_snap = same_slot_copy.as_ref().or(from_snap);
        target.valid = false;
        target.sequence = sequence;
        // Deltas from a reference that was not captured start from values not known (shown
        // absent, never as 0), each known once sent.
        let zero_ps = if hd.delta_num == 0 {
            PlayerState::default()
        } else {
            PlayerState::unknown()
        };
        let from_ps = from_snap.map_or(&zero_ps, |sn| &sn.ps);
        target.complete = hd.delta_num == 0 || from_snap.is_some_and(|sn| sn.complete);
        let a = d.pos();
        let ch = &mut self.scratch_changes;
        delta::read_player(d, from_ps, &mut target.ps, ch)?;
        let pp = d.since(a);
        d.t.open(&PS, Value::None, pp);
        delta::render_player(d.t, &target.ps, ch, d.loc.source, pp);
        if !target.ps.all_known() {
            d.t.add(&PS_INCOMPLETE, Value::Bool(true), pp);
        }
        d.t.close_as_is();
        let bases = Bases {
            baselines: if level { &self.baselines } else { &[] },
            have_gamestate: self.have_gamestate && level,
            // No reference: every entity is new; a reference not captured: none is known to be.
            gone: match from_snap {
                Some(sn) => sn.gone,
                None if hd.delta_num == 0 => [u64::MAX; MAX_GENTITIES / 64],
                None => [0; MAX_GENTITIES / 64],
            },
        };
        let reference = from_snap.map_or((&[][..], &[][..]), |sn| (&sn.nums[..], &sn.states[..]));
        let (sent, removed) = packet_entities(d, &bases, reference, target, ch)?;
        for n in &removed {
            d.t.add(
                &SNAP_REMOVED,
                Value::UInt(*n as u64),
                d.loc.bits(s, d.pos()),
            );
        }
        let total = target.complete.then_some(target.nums.len());
        if let Some(total) = total {
            d.t.add(
                &SNAP_ENTITIES,
                Value::UInt(total as u64),
                d.loc.bits(s, d.pos()),
            );
        }
        d.t.close(d.end());
        snapshot_summary(sum, &hd, sent, total, removed.len(), &target.ps);
        target.valid = true;
        Ok(())
    }
}

/// The fixed part of a snapshot, before the player state.
struct SnapHeader {
    time: i32,
    delta_num: u8,
    /// The message the snapshot is a delta from.
    from_seq: u32,
    /// Where the area mask starts.
    mask_at: usize,
}

/// Reads the server time, delta number, flags and area mask (ioquake3 code/client/cl_parse.c
/// `CL_ParseSnapshot`); `None` when the area mask is too long to follow.
fn snapshot_header(
    d: &mut BitDissector<'_, '_>,
    sequence: u32,
    seen: &mut Option<super::SeenHead>,
) -> Step<Option<SnapHeader>> {
    const WHAT: &str = "snapshot";
    let a = d.pos();
    let time = d.long(WHAT)?;
    *seen = Some((time, None));
    d.t.add(&SNAP_SERVER_TIME, Value::Int(time as i64), d.since(a));
    let a = d.pos();
    let delta_num = d.byte(WHAT)?;
    d.t.add(&SNAP_DELTA_NUM, Value::UInt(delta_num as u64), d.since(a));
    let from_seq = sequence.wrapping_sub(delta_num as u32);
    if delta_num != 0 {
        d.t.add(&SNAP_DELTA_FROM, Value::UInt(from_seq as u64), d.since(a));
    }
    let a = d.pos();
    let flags = d.byte(WHAT)?;
    *seen = Some((time, Some((delta_num, flags))));
    d.t.add(&SNAP_FLAGS, Value::UInt(flags as u64), d.since(a));
    let mask_at = d.pos();
    let alen = d.byte(WHAT)? as usize;
    if alen > MAX_AREA_BYTES {
        d.t.expert(
            &notes::AREAMASK_LENGTH,
            Some(&SNAP_AREAMASK),
            Some(d.since(mask_at)),
            format!("area mask length {alen} exceeds 32"),
        );
        d.t.close(d.end());
        return Ok(None);
    }
    let mask = d.bytes(WHAT, alen)?;
    d.t.add(&SNAP_AREAMASK, Value::Bytes(mask.into()), d.since(mask_at));
    Ok(Some(SnapHeader {
        time,
        delta_num,
        from_seq,
        mask_at,
    }))
}

/// What an entity that is not in the reference snapshot is a delta from.
struct Bases<'s> {
    baselines: &'s [Option<Box<EntState>>],
    /// A gamestate was decoded: an absent baseline is known to be zero.
    have_gamestate: bool,
    /// The entities known not to be in the reference (all it does not list when its list is
    /// whole): one of them is new, a delta from its baseline. Another one missing from the
    /// reference's list may have been in the real reference, whose state the capture lacks.
    gone: Gone,
}

/// Whether `num` is in `set`.
fn has(set: &Gone, num: u16) -> bool {
    set[num as usize / 64] >> (num % 64) & 1 == 1
}

/// Puts `num` in `set`, or takes it out.
fn mark(set: &mut Gone, num: u16, on: bool) {
    let (word, bit) = (&mut set[num as usize / 64], 1 << (num % 64));
    *word = if on { *word | bit } else { *word & !bit };
}

/// A state of which nothing is known.
const UNKNOWN_ENT: KnownEnt = KnownEnt {
    f: [0; delta::ENT_FIELDS],
    known: 0,
};

/// The state the delta of entity `num`, not in the reference's list, applies to: its baseline
/// when it is known not to be in the reference (ioquake3 code/client/cl_parse.c
/// `CL_ParsePacketEntities` deltas a new entity from `cl.entityBaselines`), else nothing known.
fn new_entity_base(bases: &Bases<'_>, num: u16) -> (KnownEnt, EntBase) {
    if !has(&bases.gone, num) {
        return (UNKNOWN_ENT, EntBase::REFERENCE_NOT_CAPTURED);
    }
    let all = |f| KnownEnt {
        f,
        known: ENT_ALL_KNOWN,
    };
    match bases.baselines.get(num as usize).and_then(|b| b.as_deref()) {
        Some(b) => (all(*b), EntBase::BASELINE),
        None if bases.have_gamestate => (all([0; delta::ENT_FIELDS]), EntBase::ZERO),
        None => (UNKNOWN_ENT, EntBase::NOT_CAPTURED),
    }
}

/// The entity records of a snapshot, merged with the reference's entity list into the target
/// slot (ioquake3 code/client/cl_parse.c `CL_ParsePacketEntities`). The target slot's own
/// lists (of the message PACKET_BACKUP ago) are reused: no allocation. Returns how many
/// records were sent and the entities removed.
fn packet_entities(
    d: &mut BitDissector<'_, '_>,
    bases: &Bases<'_>,
    (old, old_states): (&[u16], &[Arc<KnownEnt>]),
    target: &mut Snap,
    ch: &mut delta::Changes,
) -> Step<(usize, Vec<u16>)> {
    let Snap {
        nums: ents,
        states,
        gone: target_gone,
        ..
    } = target;
    let mut gone = bases.gone;
    ents.clear();
    states.clear();
    ents.reserve(old.len() + 8);
    // The state of the reference's entity `i` (none known if trees were off when it was read).
    let old_state =
        |i: usize| (old_states.get(i).cloned()).unwrap_or_else(|| Arc::new(UNKNOWN_ENT));
    let detail = d.t.detail();
    let mut oi = 0usize;
    let mut sent = 0usize;
    let mut removed = Vec::new();
    let mut last: i32 = -1;
    for _ in 0..MAX_GENTITIES + 1 {
        let a = d.pos();
        let num = d.bits("entity number", GENTITYNUM_BITS)? as u16;
        if num == ENTITYNUM_NONE {
            break;
        }
        // The list must be strictly increasing, as the server sorts it (ioquake3
        // code/server/sv_snapshot.c `SV_BuildClientSnapshot` qsorts the entity numbers, and
        // `SV_EmitPacketEntities` walks both lists in order). A record out of order would make
        // the merge below repeat the reference's entities: an error that ends the snapshot, so
        // a snapshot holds at most ENTITYNUM_NONE entities and is never kept as a reference.
        if (num as i32) <= last {
            d.t.expert(
                &notes::ENTITY_ORDER,
                Some(&ENT_NUMBER),
                Some(d.since(a)),
                format!("entity {num} out of order after {last}: the snapshot ends here"),
            );
            return Err(Stop);
        }
        last = num as i32;
        while oi < old.len() && old[oi] < num {
            ents.push(old[oi]);
            if detail {
                states.push(old_state(oi));
            }
            oi += 1;
        }
        // The state the delta applies to: shared with the reference snapshot, or a baseline.
        // (Without trees the values are not shown, so they are not looked up.)
        let in_reference = oi < old.len() && old[oi] == num;
        if in_reference {
            oi += 1;
        }
        let (mut fresh, mut base) = (UNKNOWN_ENT, EntBase::PREVIOUS);
        let prev = match (in_reference, detail) {
            (true, true) => Some(old_state(oi - 1)),
            (false, true) => {
                (fresh, base) = new_entity_base(bases, num);
                None
            }
            (_, false) => None,
        };
        let from = prev.as_deref().unwrap_or(&fresh);
        let known = from.known;
        let mut st = [0u32; delta::ENT_FIELDS];
        let delta = delta::read_entity(d, "entity", &from.f, &mut st, ch)?;
        sent += 1;
        let is_removed = delta == EntDelta::Removed;
        mark(&mut gone, num, is_removed);
        if is_removed {
            removed.push(num);
        } else {
            ents.push(num);
        }
        if !detail {
            continue;
        }
        let state = match delta {
            EntDelta::Removed => None,
            EntDelta::Unchanged => Some(prev.unwrap_or_else(|| Arc::new(fresh))),
            EntDelta::Changed => Some(Arc::new(KnownEnt {
                f: st,
                known: known | ch.mask,
            })),
        };
        let changes = (delta == EntDelta::Changed).then_some(&*ch);
        entity_record(d, a, num, base, state.as_deref(), changes);
        states.extend(state);
    }
    let rest = oi.min(old.len());
    ents.extend_from_slice(&old[rest..]);
    if detail {
        states.extend((rest..old.len()).map(old_state));
    }
    *target_gone = gone;
    Ok((sent, removed))
}

/// The tree of one entity record read since `a`: removed, or its state after the delta
/// (`changes` locating the fields the delta carried).
fn entity_record(
    d: &mut BitDissector<'_, '_>,
    a: usize,
    num: u16,
    base: EntBase,
    state: Option<&KnownEnt>,
    changes: Option<&delta::Changes>,
) {
    let p = d.since(a);
    d.t.open(&ENTITY, Value::None, p);
    d.t.add(&ENT_NUMBER, Value::UInt(num as u64), p);
    match state {
        None => {
            d.t.add(&ENT_REMOVED, Value::Bool(true), p);
        }
        Some(st) => {
            d.t.add(&ENT_BASE, Value::Enum(base.0 as i64, base.name_or("")), p);
            delta::render_entity(d.t, &st.f, st.known, changes, d.loc.source, p);
        }
    }
    d.t.close_as_is();
}

/// "snapshot {time} delta {delta_num} ents {sent}/{total} {health}hp[ removed {n}] w{weapon}",
/// written without `format!` (one per snapshot); `?` for a value not known.
fn snapshot_summary(
    sum: &mut Summary,
    hd: &SnapHeader,
    sent: usize,
    total: Option<usize>,
    removed: usize,
    ps: &PlayerState,
) {
    let weapon = ps.knows(41).then_some(ps.f[41]);
    let health = ps.knows_elem(0, 0).then_some(ps.arrays[0][0]);
    let o = sum.part();
    o.push_str("snapshot ");
    push_int(o, hd.time as i64);
    o.push_str(" delta ");
    push_uint(o, hd.delta_num as u64);
    o.push_str(" ents ");
    push_uint(o, sent as u64);
    o.push('/');
    match total {
        Some(n) => push_uint(o, n as u64),
        None => o.push('?'),
    }
    o.push(' ');
    match health {
        Some(h) => push_int(o, h as i64),
        None => o.push('?'),
    }
    o.push_str("hp");
    if removed > 0 {
        o.push_str(" removed ");
        push_uint(o, removed as u64);
    }
    o.push_str(" w");
    match weapon {
        Some(w) => push_uint(o, w as u64),
        None => o.push('?'),
    }
}

/// The slot a snapshot is decoded into and, when it is another slot, its reference.
fn slot_and_reference(
    ring: &mut [Snap],
    slot: usize,
    reference: Option<usize>,
) -> (&mut Snap, Option<&Snap>) {
    match reference {
        Some(i) if i < slot => {
            let (lo, hi) = ring.split_at_mut(slot);
            (&mut hi[0], Some(&lo[i]))
        }
        Some(i) if i > slot => {
            let (lo, hi) = ring.split_at_mut(i);
            (&mut lo[slot], Some(&hi[0]))
        }
        _ => (&mut ring[slot], None),
    }
}
