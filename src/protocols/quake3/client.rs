//! Client → server messages: serverId, acknowledgements, client commands, usercmds decoded
//! through their key (ioquake3 code/client/cl_input.c `CL_WritePacket`, code/server/sv_client.c
//! `SV_ExecuteClientMessage`, `SV_UserMove`, `SV_UserVoip`).

use super::State;
use super::bits::{BitDissector, BitReader, Loc};
use super::connectionless::tokenize;
use super::constants::{Clc, MAX_OPS, MAX_PACKET_USERCMDS};
use super::fields::*;
use super::notes;
use super::server::{Summary, push_hex, push_int, push_uint};
use super::ucmdkey::{ALL_BITS, UcmdObs};
use crate::tree::{TreeBuilder, Value};
use crate::wire::Step;

/// `MSG_HashKey(text, 32)` with `%` and bytes > 127 mapped to `.` (ioquake3 code/qcommon/msg.c
/// `MSG_HashKey`; id 1.32 code/qcommon/common.c `Com_HashKey`).
pub fn hash_key(text: &[u8]) -> u32 {
    let mut h: i32 = 0;
    for (i, &c) in text.iter().take(32).enumerate() {
        if c == 0 {
            break;
        }
        let c = if c > 127 || c == b'%' { b'.' } else { c };
        h = h.wrapping_add((c as i32).wrapping_mul(119 + i as i32));
    }
    let h = h as u32;
    h ^ (h >> 10) ^ (h >> 20)
}

/// One usercmd (ioquake3 code/qcommon/q_shared.h `usercmd_t`).
#[derive(Clone, Copy, Default, Debug, PartialEq)]
pub struct UserCmd {
    pub server_time: i32,
    pub angles: [u16; 3],
    pub forward: i8,
    pub right: i8,
    pub up: i8,
    pub buttons: u16,
    pub weapon: u8,
}

/// Names of the usercmd fields in wire order; bit k of a [`Changed`] mask is `USERCMD_FIELDS[k]`.
pub const USERCMD_FIELDS: [&str; 8] = [
    "pitch", "yaw", "roll", "forward", "right", "up", "buttons", "weapon",
];

/// Which usercmd fields were sent: bit k = [`USERCMD_FIELDS`]`[k]`.
#[derive(Clone, Copy, Default, Debug, PartialEq)]
pub struct Changed(pub u8);

impl Changed {
    pub fn contains(&self, name: &str) -> bool {
        self.names().any(|n| n == name)
    }
    /// The names of the fields sent, in wire order.
    pub fn names(self) -> impl Iterator<Item = &'static str> {
        USERCMD_FIELDS
            .into_iter()
            .enumerate()
            .filter(move |(k, _)| self.0 >> k & 1 == 1)
            .map(|(_, n)| n)
    }
}

/// Reads one usercmd delta (`MSG_ReadDeltaUsercmdKey`) from `from` with `base_key`; returns
/// the command and which fields were sent, and fills `spans` (an out-parameter: the usercmd loop
/// is hot, and returning the spans by value cost a visible share of it in copies).
/// Bit ranges `(start, end)` in the message of the server time (index 0) and of each keyed field
/// that was sent (index k + 1 for [`USERCMD_FIELDS`]`[k]`); `(0, 0)` for fields not sent.
pub type UserCmdSpans = [(u32, u32); 9];

pub fn read_usercmd(
    d: &mut BitDissector<'_, '_>,
    from: &UserCmd,
    base_key: u32,
    spans: &mut UserCmdSpans,
) -> Step<(UserCmd, Changed)> {
    const WHAT: &str = "usercmd";
    let mut to = *from;
    *spans = [(0, 0); 9];
    let t0 = d.pos() as u32;
    to.server_time = if d.bit(WHAT)? == 1 {
        from.server_time.wrapping_add(d.bits(WHAT, 8)? as i32)
    } else {
        d.long(WHAT)?
    };
    spans[0] = (t0, d.pos() as u32);
    let mut changed = Changed::default();
    if d.bit(WHAT)? == 0 {
        return Ok((to, changed));
    }
    let key = base_key ^ to.server_time as u32;
    let mut field = |d: &mut BitDissector<'_, '_>, n: u32, k: usize| -> Step<Option<u32>> {
        let start = d.pos();
        if d.bit(WHAT)? == 0 {
            return Ok(None);
        }
        changed.0 |= 1 << k;
        let v = d.bits(WHAT, n as i32)? as u32;
        spans[k + 1] = (start as u32, d.pos() as u32);
        Ok(Some(v ^ (key & ((1u32 << n) - 1))))
    };
    for k in 0..3 {
        if let Some(v) = field(d, 16, k)? {
            to.angles[k] = v as u16;
        }
    }
    if let Some(v) = field(d, 8, 3)? {
        to.forward = v as u8 as i8;
    }
    if let Some(v) = field(d, 8, 4)? {
        to.right = v as u8 as i8;
    }
    if let Some(v) = field(d, 8, 5)? {
        to.up = v as u8 as i8;
    }
    if let Some(v) = field(d, 16, 6)? {
        to.buttons = v as u16;
    }
    if let Some(v) = field(d, 8, 7)? {
        to.weapon = v as u8;
    }
    Ok((to, changed))
}

fn angle(v: u16) -> f32 {
    v as f32 * 360.0 / 65536.0
}

/// Appends `format!("{:.1}", angle(v))` without the float formatter: `angle(v)` is exactly
/// v × 45 / 8192 (no rounding in f32), so its tenths are v × 225 / 4096, rounded half to even
/// as the formatter rounds an exact tie (checked for every v by a test).
fn push_angle_tenths(out: &mut String, v: u16) {
    let n = v as u32 * 225;
    let (mut tenths, rem) = (n / 4096, n % 4096);
    if rem > 2048 || (rem == 2048 && tenths % 2 == 1) {
        tenths += 1;
    }
    push_uint(out, (tenths / 10) as u64);
    out.push('.');
    out.push((b'0' + (tenths % 10) as u8) as char);
}

/// Appends the values a usercmd sent as observations for [`super::ucmdkey`]: each value as
/// sent XOR U. Read with `base_key` (the known bits of U XOR messageAcknowledge, or 0), a value
/// XOR `undo` (= `base_key ^ messageAcknowledge`) leaves the true value XOR U.
fn push_obs(obs: &mut Vec<UcmdObs>, cmd: &UserCmd, changed: Changed, undo: u32, first: bool) {
    for (k, v) in field_values(cmd).into_iter().enumerate() {
        if changed.0 >> k & 1 == 1 {
            obs.push(UcmdObs {
                field: k as u8,
                v: (v ^ undo as u16) & WIDTHS[k],
                t: cmd.server_time,
                known: 0,
                first,
            });
        }
    }
}

/// Each usercmd field's width mask, in wire order.
const WIDTHS: [u16; 8] = [0xffff, 0xffff, 0xffff, 0xff, 0xff, 0xff, 0xffff, 0xff];

/// The fields (bit k = [`USERCMD_FIELDS`]`[k]`) whose every bit is known.
fn known_fields(kbits: &[u16; 8]) -> u8 {
    (0..8)
        .filter(|&k| kbits[k] == WIDTHS[k])
        .fold(0, |m, k| m | 1 << k)
}

/// Appends the known bits of a usercmd's values as anchors for [`super::ucmdkey`].
fn push_anchors(obs: &mut Vec<UcmdObs>, cmd: &UserCmd, kbits: &[u16; 8]) {
    for (k, v) in field_values(cmd).into_iter().enumerate() {
        if kbits[k] != 0 {
            obs.push(UcmdObs {
                field: k as u8,
                v: v & kbits[k],
                t: cmd.server_time,
                known: kbits[k],
                first: false,
            });
        }
    }
}

/// A usercmd's values in wire order, as their bits on the wire.
fn field_values(cmd: &UserCmd) -> [u16; 8] {
    [
        cmd.angles[0],
        cmd.angles[1],
        cmd.angles[2],
        cmd.forward as u8 as u16,
        cmd.right as u8 as u16,
        cmd.up as u8 as u16,
        cmd.buttons,
        cmd.weapon as u16,
    ]
}

/// Writes a known value, or `?` for one still keyed.
fn unknown_or(o: &mut String, known: bool, write: impl FnOnce(&mut String)) {
    if known {
        write(o);
    } else {
        o.push('?');
    }
}

/// The tree of one usercmd read since `a`: the values known (bit k of `known` for
/// [`USERCMD_FIELDS`]`[k]`), and the names of those still keyed.
fn usercmd_tree(
    d: &mut BitDissector<'_, '_>,
    a: usize,
    cmd: &UserCmd,
    changed: Changed,
    known: u8,
    spans: &UserCmdSpans,
) {
    let p = d.since(a);
    d.t.open(&USERCMD, Value::None, p);
    d.t.reserve(9 + changed.0.count_ones() as usize);
    // A field that was sent points at its own bits; one carried over from the previous
    // usercmd is not on the wire and points at the whole usercmd.
    let at = |i: usize| {
        let (a, b) = spans[i];
        if b > a {
            d.loc.bits(a as usize, b as usize)
        } else {
            p
        }
    };
    d.t.add(&UC_SERVER_TIME, Value::Int(cmd.server_time as i64), at(0));
    for c in changed.names() {
        d.t.add(&UC_CHANGED, Value::Str(c.into()), p);
    }
    let values = [
        (&UC_PITCH, Value::F32(angle(cmd.angles[0]))),
        (&UC_YAW, Value::F32(angle(cmd.angles[1]))),
        (&UC_ROLL, Value::F32(angle(cmd.angles[2]))),
        (&UC_FORWARD, Value::Int(cmd.forward as i64)),
        (&UC_RIGHT, Value::Int(cmd.right as i64)),
        (&UC_UP, Value::Int(cmd.up as i64)),
        (&UC_BUTTONS, Value::UInt(cmd.buttons as u64)),
        (&UC_WEAPON, Value::UInt(cmd.weapon as u64)),
    ];
    for (k, (def, v)) in values.into_iter().enumerate() {
        if known >> k & 1 == 1 {
            d.t.add(def, v, at(k + 1));
        } else {
            d.t.add(&UC_KEYED, Value::Str(USERCMD_FIELDS[k].into()), at(k + 1));
        }
    }
    d.t.close_as_is();
}

/// The three Longs at the start of a client message.
pub fn read_acks(body: &[u8]) -> Option<(i32, u32, u32)> {
    let mut r = BitReader::new(body);
    Some((r.long().ok()?, r.ulong().ok()?, r.ulong().ok()?))
}

impl State {
    /// Parses a complete client message; `key_text` is the text of the acknowledged server
    /// command (for the usercmd key). Client commands found are appended to `new_cmds`; when
    /// the usercmd key is not known, the keyed values sent are appended to `obs` (for
    /// [`super::ucmdkey`]). Returns the bit position where reading stopped.
    #[allow(clippy::too_many_arguments)]
    pub fn parse_client(
        &self,
        body: &[u8],
        key_text: Option<&[u8]>,
        loc: Loc,
        t: &mut TreeBuilder,
        sum: &mut Summary,
        new_cmds: &mut Vec<(u32, Vec<u8>)>,
        obs: &mut Vec<UcmdObs>,
    ) -> usize {
        t.open(&CLC, Value::None, loc.bits(0, body.len() * 8));
        let mut d = BitDissector::new(body, t, loc);
        // A failed read has recorded its note; the message ends there.
        let _ = self.client_ops(&mut d, key_text, sum, (new_cmds, obs));
        let end = d.pos();
        t.close_as_is();
        end
    }

    fn client_ops(
        &self,
        d: &mut BitDissector<'_, '_>,
        key_text: Option<&[u8]>,
        sum: &mut Summary,
        (new_cmds, obs): (&mut Vec<(u32, Vec<u8>)>, &mut Vec<UcmdObs>),
    ) -> Step<()> {
        let a = d.pos();
        let server_id = d.long("client message header")?;
        d.t.add(&CLC_SERVER_ID, Value::Int(server_id as i64), d.since(a));
        self.client_server_id.set(Some(server_id));
        let a = d.pos();
        let msg_ack = d.ulong("client message header")?;
        d.t.add(&CLC_MESSAGE_ACK, Value::UInt(msg_ack as u64), d.since(a));
        let a = d.pos();
        let rel_ack = d.ulong("client message header")?;
        d.t.add(&CLC_RELIABLE_ACK, Value::UInt(rel_ack as u64), d.since(a));
        for _ in 0..MAX_OPS {
            let s = d.pos();
            let op = Clc(d.byte("clc opcode")?);
            match op {
                Clc::NOP => {}
                Clc::MOVE | Clc::MOVE_NO_DELTA => {
                    let no_delta = op == Clc::MOVE_NO_DELTA;
                    // The gamestate's checksumFeed keys only moves sent under that gamestate.
                    let feed = self.feed_for(server_id);
                    let acks = (msg_ack, rel_ack, feed);
                    self.moves(d, s, no_delta, key_text, acks, sum, obs)?;
                    // The server stops parsing after the move (sv_client.c
                    // SV_ExecuteClientMessage); the client always ends with clc_EOF.
                    let a = d.pos();
                    match d.r.byte() {
                        Ok(b) if Clc(b) == Clc::EOF => {}
                        _ => d.t.expert(
                            &notes::NO_CLC_EOF,
                            None,
                            Some(d.since(a)),
                            "no clc_EOF after the move (the server ignores the rest)",
                        ),
                    }
                    return Ok(());
                }
                Clc::CLIENT_COMMAND => {
                    let num = d.ulong("client command")?;
                    let mut text = Vec::new();
                    d.string("client command", 1024, &mut text)?;
                    let p = d.loc.bits(s, d.pos());
                    d.t.open(&CLC_COMMAND, Value::None, p);
                    d.t.add(&CLC_CMD_SEQUENCE, Value::UInt(num as u64), p);
                    d.t.add_text(&CLC_CMD_TEXT, &text, p);
                    let toks = tokenize(&text);
                    let name = toks.first().copied().unwrap_or(b"");
                    d.t.add_text(&CLC_CMD_NAME, name, p);
                    let show = String::from_utf8_lossy(&text);
                    let show: String = show.chars().take(60).collect();
                    if matches!(name, b"say" | b"say_team" | b"tell") {
                        // The chat text is the rest of the line after the command word.
                        let rest = text.get(name.len()..).unwrap_or(&[]).trim_ascii();
                        let rest = rest.strip_prefix(b"\"").unwrap_or(rest);
                        let rest = rest.strip_suffix(b"\"").unwrap_or(rest);
                        d.t.add_text(&CLC_CMD_MESSAGE, rest, p);
                    }
                    d.t.close_as_is();
                    sum.add(format_args!("cmd {num} {show}"));
                    if sum.msg_type.is_empty() {
                        sum.msg_type = "clientCommand";
                    }
                    new_cmds.push((num, text));
                }
                Clc::EOF => {
                    if sum.msg_type.is_empty() {
                        sum.msg_type = "client";
                    }
                    return Ok(());
                }
                Clc::VOIP_SPEEX | Clc::VOIP_OPUS => {
                    self.client_voip(d, s, op, sum)?;
                }
                _ => {
                    d.t.expert(
                        &notes::CLC_UNKNOWN,
                        None,
                        Some(d.loc.bits(s, d.pos())),
                        format!("unknown clc opcode {}", op.0),
                    );
                    return Ok(());
                }
            }
        }
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    fn moves(
        &self,
        d: &mut BitDissector<'_, '_>,
        s: usize,
        no_delta: bool,
        key_text: Option<&[u8]>,
        (msg_ack, rel_ack, feed): (u32, u32, Option<i32>),
        sum: &mut Summary,
        obs: &mut Vec<UcmdObs>,
    ) -> Step<()> {
        let count = d.byte("usercmd")?;
        d.t.open(&CLC_MOVE, Value::None, d.loc.bits(s, s));
        d.t.add(
            &CLC_MOVE_NO_DELTA,
            Value::Bool(no_delta),
            d.loc.bits(s, s + 8),
        );
        d.t.add(
            &CLC_MOVE_COUNT,
            Value::UInt(count as u64),
            d.loc.bits(s, d.pos()),
        );
        if count == 0 || count > MAX_PACKET_USERCMDS {
            d.t.expert(
                &notes::USERCMD_COUNT,
                Some(&CLC_MOVE_COUNT),
                Some(d.loc.bits(s, d.pos())),
                format!("usercmd count {count} outside 1…32"),
            );
            d.t.close(d.end());
            return Ok(());
        }
        let key = self.usercmd_key(d, s, key_text, feed, (msg_ack, rel_ack));
        let (base_key, key_bits) = key.unwrap_or((0, 0));
        let mut from = UserCmd::default();
        // The bits of each field's value that are known: all of them until the field is first
        // sent in this packet (the first usercmd is a delta from an all-zero one, ioquake3
        // code/client/cl_input.c `CL_WritePacket`), then those the key covers.
        let mut kbits = WIDTHS;
        let full = key_bits == ALL_BITS;
        let anchors = self.checksum_feed.is_none() || self.ucmd_keys.wants_anchors();
        let mut prev: Option<UserCmd> = None;
        let detail = d.t.detail();
        let mut spans: UserCmdSpans = [(0, 0); 9];
        for i in 0..count {
            let a = d.pos();
            let (cmd, changed) = read_usercmd(d, &from, base_key, &mut spans)?;
            if !full {
                push_obs(obs, &cmd, changed, base_key ^ msg_ack, i == 0);
                for (k, w) in WIDTHS.into_iter().enumerate() {
                    if changed.0 >> k & 1 == 1 {
                        kbits[k] = key_bits & w;
                    }
                }
            }
            // The newest usercmds come again in the next packet: their known values may
            // recover that packet's key.
            if anchors && count - i <= 2 {
                push_anchors(obs, &cmd, &kbits);
            }
            prev = Some(from);
            from = cmd;
            if detail {
                usercmd_tree(d, a, &cmd, changed, known_fields(&kbits), &spans);
            }
        }
        if full && !anchors {
            // No recovery under way: kept in place, for a next message keyed with an unknown key.
            let older = prev
                .filter(|_| count > 1)
                .map(|c| (c.server_time, field_values(&c)));
            let newest = Some((from.server_time, field_values(&from)));
            self.ucmd_keys.remember([older, newest]);
        }
        let known = known_fields(&kbits);
        if known != 0xff {
            d.t.expert(&notes::KEY_UNKNOWN, Some(&CLC_MOVE_KEY), None, "usercmd key not fully known (gamestate or acknowledged server command not captured, and not yet recovered): the values sent keyed are not shown, only listed in usercmd.keyed");
        }
        let last = from;
        self.server_time.set(Some(last.server_time));
        d.t.close(d.end());
        // "{move|moveNoDelta} {count} t {time} yaw {yaw:.1} fwd {} right {} btn {:#x} w{}"
        let o = sum.part();
        o.push_str(if no_delta { "moveNoDelta " } else { "move " });
        push_uint(o, count as u64);
        o.push_str(" t ");
        push_int(o, last.server_time as i64);
        // A value still keyed is shown as `?`.
        let k = |i: u8| known >> i & 1 == 1;
        o.push_str(" yaw ");
        unknown_or(o, k(1), |o| push_angle_tenths(o, last.angles[1]));
        o.push_str(" fwd ");
        unknown_or(o, k(3), |o| push_int(o, last.forward as i64));
        o.push_str(" right ");
        unknown_or(o, k(4), |o| push_int(o, last.right as i64));
        o.push_str(" btn ");
        unknown_or(o, k(6), |o| push_hex(o, last.buttons as u64));
        o.push_str(" w");
        unknown_or(o, k(7), |o| push_uint(o, last.weapon as u64));
        if sum.msg_type.is_empty() || sum.msg_type == "client" {
            sum.msg_type = "move";
        }
        Ok(())
    }

    /// The checksumFeed that keys the moves of a client message sent under `server_id`: the
    /// gamestate's whose serverId it is (CS_SYSTEMINFO `sv_serverid`; the client sends the
    /// serverId of the gamestate it holds, ioquake3 code/client/cl_input.c `CL_WritePacket`),
    /// the previous gamestate's after a map change, or `None` when the capture lost the
    /// gamestate it was sent under (the key is then recovered from the moves).
    fn feed_for(&self, server_id: i32) -> Option<i32> {
        if self.feed_server_id.is_none_or(|id| id == server_id) {
            return self.checksum_feed;
        }
        self.prev_feed
            .filter(|&(id, _)| id == server_id)
            .map(|(_, feed)| feed)
    }

    /// The usercmd key (ioquake3 code/qcommon/msg.c `MSG_ReadDeltaUsercmdKey` as called by
    /// code/server/sv_client.c `SV_UserMove`) and which of its low 16 bits are known: from the
    /// gamestate's checksumFeed (all bits; `feed` is [`State::feed_for`] the message's
    /// serverId), or recovered ([`super::ucmdkey`]: the low byte, or all 16 bits), shown with
    /// how it is known; `None` when nothing is known yet.
    fn usercmd_key(
        &self,
        d: &mut BitDissector<'_, '_>,
        s: usize,
        key_text: Option<&[u8]>,
        feed: Option<i32>,
        (msg_ack, rel_ack): (u32, u32),
    ) -> Option<(u32, u16)> {
        let hash = key_text.map(hash_key);
        let at = d.loc.bits(s, d.pos());
        if let (Some(feed), Some(h)) = (feed, hash) {
            let k = feed as u32 ^ msg_ack ^ h;
            d.t.add(&CLC_MOVE_KEY, Value::UInt(k as u64), at);
            return Some((k, ALL_BITS));
        }
        // Only a captured text counts here: the ring slot's older text is a guess.
        let exact = self.server_cmds.get(rel_ack).map(hash_key);
        let r = (self.ucmd_keys).lookup(self.client_server_id.get(), rel_ack, exact)?;
        // Only the low 16 bits key anything (no usercmd field is wider); of those, the bits
        // recovered so far.
        let k = (r.u as u32 ^ msg_ack) & r.mask as u32;
        let bits = r.mask.count_ones();
        let detail = d.t.detail();
        d.t.add(&CLC_MOVE_KEY, Value::UInt(k as u64), at).meaning = detail.then(|| {
            let by = if r.hindsight {
                "by the first pass (-2) over the whole capture, "
            } else {
                ""
            };
            format!(
                "low {bits} bits, recovered {by}from {} usercmd values (gamestate not captured)",
                r.from
            )
            .into()
        });
        d.t.add(&CLC_MOVE_KEY_RECOVERED, Value::UInt(r.from as u64), at);
        d.t.add(&CLC_MOVE_KEY_BITS, Value::UInt(bits as u64), at);
        if r.hindsight {
            d.t.add(&CLC_MOVE_KEY_FIRST_PASS, Value::Bool(true), at);
        }
        Some((k, r.mask))
    }

    fn client_voip(
        &self,
        d: &mut BitDissector<'_, '_>,
        s: usize,
        op: Clc,
        sum: &mut Summary,
    ) -> Step<()> {
        let generation = d.byte("voip")?;
        let seq = d.ulong("voip")?;
        let frames = d.byte("voip")?;
        let recips = d.bytes("voip", 8)?;
        let flags = d.byte("voip")?;
        let size = d.bits("voip", 16)? as usize;
        let a = d.pos();
        let data = d.bytes("voip", size)?;
        let p = d.loc.bits(s, d.pos());
        d.t.open(&CLC_VOIP, Value::Enum(op.0 as i64, op.name_or("")), p);
        d.t.add(&VOIP_GENERATION, Value::UInt(generation as u64), p);
        d.t.add(&VOIP_SEQUENCE, Value::UInt(seq as u64), p);
        d.t.add(&VOIP_FRAMES, Value::UInt(frames as u64), p);
        d.t.add(&VOIP_RECIPIENTS, Value::Bytes(recips.into()), p);
        d.t.add(&VOIP_FLAGS, Value::UInt(flags as u64), p);
        d.t.add(&VOIP_DATA, Value::Bytes(data.into()), d.since(a));
        d.t.close_as_is();
        sum.add(format_args!("voip {size} bytes"));
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::bits::tests::hex;
    use super::*;

    #[test]
    fn angle_tenths_match_the_float_formatter() {
        let mut s = String::new();
        for v in 0..=u16::MAX {
            s.clear();
            push_angle_tenths(&mut s, v);
            assert_eq!(s, format!("{:.1}", angle(v)), "v = {v}");
        }
    }

    #[test]
    fn integers_match_the_formatter() {
        use super::super::server::{push_hex, push_int, push_uint};
        for v in [
            0i64,
            1,
            -1,
            9,
            10,
            -10,
            127,
            -127,
            65535,
            i32::MIN as i64,
            i64::MIN,
            i64::MAX,
        ] {
            let mut s = String::new();
            push_int(&mut s, v);
            assert_eq!(s, v.to_string());
        }
        for v in [0u64, 1, 15, 16, 255, 0x1234, u32::MAX as u64, u64::MAX] {
            let mut s = String::new();
            push_uint(&mut s, v);
            assert_eq!(s, v.to_string());
            s.clear();
            push_hex(&mut s, v);
            assert_eq!(s, format!("{v:#x}"));
        }
    }

    #[test]
    fn hash_of_tv5_command() {
        assert_eq!(hash_key(b"cs 20 \"some text\""), 173920);
        assert_eq!(0xDEADBEEFu32 ^ 789 ^ 173920, (-558949734i32) as u32);
    }

    #[test]
    fn tv5_usercmds() {
        let body = hex("cf996ce7676ba88a44a218b0bd9bdc76c36354de8c6ca5f3ad53e586ef8800");
        let mut t = TreeBuilder::new(true);
        let mut d = BitDissector::new(&body, &mut t, Loc { source: 0, base: 0 });
        let r = &mut d.r;
        assert_eq!(r.long(), Ok(123456));
        assert_eq!(r.long(), Ok(789));
        assert_eq!(r.long(), Ok(4));
        assert_eq!(r.byte(), Ok(2));
        assert_eq!(r.byte(), Ok(2));
        let key = 0xDEADBEEFu32 ^ 789 ^ hash_key(b"cs 20 \"some text\"");
        let mut spans = [(0, 0); 9];
        let (a, ch) = read_usercmd(&mut d, &UserCmd::default(), key, &mut spans).unwrap();
        assert_eq!(
            a,
            UserCmd {
                server_time: 100000,
                angles: [1000, 65000, 0],
                forward: 127,
                right: -127,
                up: 0,
                buttons: 1,
                weapon: 5
            }
        );
        assert!(ch.contains("weapon"));
        // Each field that was sent spans its flag bit and its value (Huffman-coded bytes, so the
        // width varies), in wire order; the others are not on the wire.
        assert!(spans[0].1 > spans[0].0);
        let mut end = spans[0].1;
        for k in 0..8 {
            let (lo, hi) = spans[k + 1];
            if ch.0 >> k & 1 == 1 {
                assert!(
                    lo >= end && hi > lo + 1,
                    "field {k}: {lo}..{hi} after {end}"
                );
                end = hi;
            } else {
                assert_eq!((lo, hi), (0, 0), "field {k}");
            }
        }
        assert_eq!(
            ch.0.count_ones(),
            6,
            "all but roll and up (both 0) were sent"
        );
        let (b, _) = read_usercmd(&mut d, &a, key, &mut spans).unwrap();
        assert_eq!(b.server_time, 100008);
        assert_eq!(b.angles[0], 1010);
        assert_eq!(b.right, 0);
        assert_eq!(b.forward, 127);
        assert_eq!(d.r.byte(), Ok(5));
    }
}
