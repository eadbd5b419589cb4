//! The Gamestudio message layer: back-to-back messages, each a command byte plus arguments.
//!
//! Tables: A5 = SDK Programmer's Manual © Conitec July 2002 p.12–14 ("The A5 Client/Server
//! Protocol", seed 002 and /work/shared/protocols/gamestudio.md §1.2–1.4); A6+ = the later
//! `prog_cserver` manual page (seed 000, the revision called PC-old in the reference notes).
//! All multi-byte values are little-endian (see docs/protocols/gamestudio.md, "Byte order").

use crate::tree::{Field, Note, Pos, Value};
use crate::wire::{Dissector, Step};

use super::fields as f;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    A5,
    A6,
}

impl Dialect {
    pub fn label(self) -> &'static str {
        match self {
            Dialect::A5 => "A5",
            Dialect::A6 => "A6+",
        }
    }
    pub fn value(self) -> Value {
        match self {
            Dialect::A5 => Value::Enum(5, "A5"),
            Dialect::A6 => Value::Enum(6, "A6+"),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PosMode {
    Packed,
    Fixed,
}

impl PosMode {
    pub fn value(self) -> Value {
        match self {
            PosMode::Packed => Value::Enum(3, "packed"),
            PosMode::Fixed => Value::Enum(4, "fixed"),
        }
    }
}

/// The A5 svc_info sync constant (M5-13), little-endian on the wire: `18 12 19 11`.
pub const SYNC: u32 = 0x1119_1218;

/// The result of decoding one buffer of messages under one hypothesis.
#[derive(Debug, Default)]
pub struct Parsed {
    pub fields: Vec<Field>,
    pub notes: Vec<Note>,
    /// Every byte was consumed by known messages without a short read.
    pub clean: bool,
    /// A CPosition was read (so the packed/fixed choice mattered).
    pub used_cpos: bool,
    /// The A5 svc_info sync constant was seen.
    pub saw_sync: bool,
    /// An A6+ SVC_LOCAL was decoded.
    pub saw_local: bool,
    pub names: Vec<&'static str>,
    pub summaries: Vec<String>,
}

/// Command names, by direction and dialect (None: not a command of that table).
pub fn command_name(to_server: bool, dialect: Dialect, cmd: u8) -> Option<&'static str> {
    let a5 = dialect == Dialect::A5;
    Some(match (to_server, cmd) {
        (_, 0x01) if a5 => {
            if to_server {
                "CLS_FILL"
            } else {
                "SVC_FILL"
            }
        }
        (true, 0x02) => "CLS_JOIN",
        (true, 0x03) => "CLS_CREATE",
        (true, 0x04) => "CLS_REMOVE",
        (true, 0x07) => "CLS_PING",
        (true, 0x09) => "CLS_LEVEL",
        (true, 0x0a) => "CLS_VAR",
        (true, 0x0b) => "CLS_STRING",
        (true, 0x0e) => "CLS_SKILL",
        (true, 0x0f) => "CLS_SKILL3",
        (false, 0x03) => "SVC_CREATE",
        (false, 0x04) => "SVC_REMOVE",
        (false, 0x05) => "SVC_ENTSOUND",
        (false, 0x06) => "SVC_EFFECT",
        (false, 0x07) => "SVC_INFO",
        (false, 0x0a) => "SVC_VAR",
        (false, 0x0b) => "SVC_STRING",
        (false, 0x0e) => "SVC_SKILL",
        (false, 0x0f) => "SVC_SKILL3",
        (false, 0x12) if !a5 => "SVC_LOCAL",
        (false, 0x40..=0x7f) => "SVC_UPDATE1",
        (false, 0x80..=0xbf) => "SVC_UPDATE2",
        (false, 0xc0..=0xff) => "SVC_UPDATE3",
        _ => return None,
    })
}

/// One update parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Param {
    Position,
    Pan,
    Tilt,
    Roll,
    /// A5: Short frame + Scale(1) fraction; A6+: also Short next frame.
    Frame,
    NextFrame,
    Flags1,
    Flags2,
    Type,
    Scale,
    Ambient,
    Albedo,
    Skin,
    Lightrange,
    Color,
    Alpha,
    Uv,
}

impl Param {
    fn name(self) -> &'static str {
        match self {
            Param::Position => "position",
            Param::Pan => "pan",
            Param::Tilt => "tilt",
            Param::Roll => "roll",
            Param::Frame => "frame",
            Param::NextFrame => "nextframe",
            Param::Flags1 => "flags1",
            Param::Flags2 => "flags2",
            Param::Type => "type",
            Param::Scale => "scale",
            Param::Ambient => "ambient",
            Param::Albedo => "albedo",
            Param::Skin => "skin",
            Param::Lightrange => "lightrange",
            Param::Color => "color",
            Param::Alpha => "alpha",
            Param::Uv => "uv",
        }
    }
}

/// The parameter of each bit (0..5) of each update group (1..3), in the order the manual prints.
/// A5: M5-14 (bit order). A6+: seed 000 "Parameter | Update.Bit" table.
fn param_table(dialect: Dialect, group: u8) -> [Option<Param>; 6] {
    use Param::*;
    match (dialect, group) {
        (Dialect::A5, 1) => [
            Some(Position),
            Some(Pan),
            Some(Scale),
            Some(Type),
            Some(Frame),
            Some(Flags1),
        ],
        (Dialect::A5, 2) => [
            Some(Ambient),
            Some(Albedo),
            Some(Skin),
            Some(Tilt),
            Some(Roll),
            Some(NextFrame),
        ],
        (Dialect::A5, _) => [
            Some(Lightrange),
            Some(Color),
            Some(Alpha),
            Some(Uv),
            Some(Flags2),
            None,
        ],
        (Dialect::A6, 1) => [
            Some(Type),
            Some(Scale),
            Some(Skin),
            Some(Ambient),
            Some(Albedo),
            None,
        ],
        (Dialect::A6, 2) => [
            Some(Position),
            Some(Pan),
            Some(Tilt),
            Some(Roll),
            Some(Frame),
            Some(Flags1),
        ],
        (Dialect::A6, _) => [
            Some(Lightrange),
            Some(Color),
            Some(Alpha),
            Some(Uv),
            None,
            None,
        ],
    }
}

/// Wire order of the parameters selected by `bits`: the order of the manual's table. A5 prints
/// it in bit order; the A6+ page lists group 1 as type, scale, ambient, albedo, skin (skin, bit
/// 1.2, printed last), and "in the order given below" makes that the wire order.
fn wire_order(dialect: Dialect, group: u8, bits: u8) -> Vec<Result<Param, u8>> {
    let table = param_table(dialect, group);
    let order: [usize; 6] = if dialect == Dialect::A6 && group == 1 {
        [0, 1, 3, 4, 2, 5]
    } else {
        [0, 1, 2, 3, 4, 5]
    };
    order
        .iter()
        .filter(|&&b| bits & (1 << b) != 0)
        .map(|&b| table[b].ok_or(b as u8))
        .collect()
}

/// The A6+ ENTITY member at a byte offset (atypes.h of A7/A8; reference §5.1).
pub fn entity_member(offset: i64) -> Option<String> {
    const HEAD: [&str; 37] = [
        "link.index",
        "link.next",
        "link.name",
        "type",
        "x",
        "y",
        "z",
        "pan",
        "tilt",
        "roll",
        "scale_x",
        "scale_y",
        "scale_z",
        "flags",
        "frame",
        "next_frame",
        "skin",
        "ambient",
        "albedo",
        "alpha",
        "lightrange",
        "blue",
        "green",
        "red",
        "emask",
        "eflags",
        "min_x",
        "min_y",
        "min_z",
        "max_x",
        "max_y",
        "max_z",
        "trigger_range",
        "push",
        "floor_dist",
        "smask",
        "client_id",
    ];
    const TAIL: [&str; 5] = ["pose", "material", "u", "v", "group"];
    if offset < 0 || offset % 4 != 0 {
        return None;
    }
    let i = (offset / 4) as usize;
    if let Some(n) = HEAD.get(i) {
        return Some((*n).to_string());
    }
    if (37..137).contains(&i) {
        return Some(format!("skill{}", i - 36));
    }
    TAIL.get(i.checked_sub(137)?).map(|n| (*n).to_string())
}

struct P<'a> {
    d: Dissector<'a>,
    dialect: Dialect,
    pos: PosMode,
    used_cpos: bool,
    saw_sync: bool,
    saw_local: bool,
    /// Summary words of the current message.
    words: Vec<String>,
}

fn fmt_num(v: f64) -> String {
    let s = format!("{v:.3}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" { "0".into() } else { s.into() }
}

impl<'a> P<'a> {
    fn take<const N: usize>(
        &mut self,
        def: &'static crate::tree::FieldDef,
    ) -> Step<(usize, [u8; N])> {
        let at = self.d.pos();
        match self.d.cur.array::<N>() {
            Ok(a) => Ok((at, a)),
            Err(e) => Err(self.d.short(def, e)),
        }
    }
    fn short(&mut self, def: &'static crate::tree::FieldDef) -> Step<i16> {
        let (at, b) = self.take::<2>(def)?;
        let v = i16::from_le_bytes(b);
        self.d.add(def, Value::Int(v as i64), at, 2);
        Ok(v)
    }
    fn long(&mut self, def: &'static crate::tree::FieldDef) -> Step<i32> {
        let (at, b) = self.take::<4>(def)?;
        let v = i32::from_le_bytes(b);
        self.d.add(def, Value::Int(v as i64), at, 4);
        Ok(v)
    }
    fn dword(&mut self, def: &'static crate::tree::FieldDef) -> Step<u32> {
        let (at, b) = self.take::<4>(def)?;
        let v = u32::from_le_bytes(b);
        self.d.add(def, Value::UInt(v as u64), at, 4);
        Ok(v)
    }
    fn byte(&mut self, def: &'static crate::tree::FieldDef) -> Step<u8> {
        let (at, b) = self.take::<1>(def)?;
        self.d.add(def, Value::UInt(b[0] as u64), at, 1);
        Ok(b[0])
    }
    fn float(&mut self, def: &'static crate::tree::FieldDef) -> Step<f32> {
        let (at, b) = self.take::<4>(def)?;
        let v = f32::from_le_bytes(b);
        self.d.add(def, Value::F32(v), at, 4);
        Ok(v)
    }
    /// Fixed 22.10: signed 32-bit / 1024.
    fn fixed(&mut self, def: &'static crate::tree::FieldDef) -> Step<f64> {
        let (at, b) = self.take::<4>(def)?;
        let raw = i32::from_le_bytes(b);
        let v = raw as f64 / 1024.0;
        self.d.add(def, Value::F64(v), at, 4).meaning = Some(format!("raw {raw}").into());
        Ok(v)
    }
    /// Position: signed 24-bit, raw × 8 = 22.10 fixed, i.e. quants = raw / 128.
    fn packed(&mut self, def: &'static crate::tree::FieldDef) -> Step<f64> {
        let (at, b) = self.take::<3>(def)?;
        let raw = i32::from_le_bytes([b[0], b[1], b[2], if b[2] & 0x80 != 0 { 0xff } else { 0 }]);
        let v = raw as f64 / 128.0;
        self.d.add(def, Value::F64(v), at, 3).meaning = Some(format!("raw {raw}").into());
        Ok(v)
    }
    fn cpos(&mut self, def: &'static crate::tree::FieldDef) -> Step<f64> {
        self.used_cpos = true;
        match self.pos {
            PosMode::Packed => self.packed(def),
            PosMode::Fixed => self.fixed(def),
        }
    }
    /// Angle: raw × 360 / 65535 (read unsigned, so that 0x8000 is 180°).
    fn angle(&mut self, def: &'static crate::tree::FieldDef) -> Step<f64> {
        let (at, b) = self.take::<2>(def)?;
        let raw = u16::from_le_bytes(b);
        let v = raw as f64 * 360.0 / 65535.0;
        self.d.add(def, Value::F64(v), at, 2).meaning = Some(format!("raw {raw}").into());
        Ok(v)
    }
    /// Scale(x): byte × x / 255.
    fn scale(&mut self, def: &'static crate::tree::FieldDef, x: f64) -> Step<f64> {
        let (at, b) = self.take::<1>(def)?;
        let v = b[0] as f64 * x / 255.0;
        self.d.add(def, Value::F64(v), at, 1).meaning = Some(format!("raw {}", b[0]).into());
        Ok(v)
    }
    fn string(&mut self, def: &'static crate::tree::FieldDef) -> Step<String> {
        let s = self.d.cstring(def, 4096)?;
        Ok(String::from_utf8_lossy(s).into_owned())
    }
    fn vec3(
        &mut self,
        group: &'static crate::tree::FieldDef,
        defs: [&'static crate::tree::FieldDef; 3],
        read: fn(&mut Self, &'static crate::tree::FieldDef) -> Step<f64>,
    ) -> Step<[f64; 3]> {
        self.d.open(group);
        let mut out = [0.0; 3];
        for (i, def) in defs.into_iter().enumerate() {
            match read(self, def) {
                Ok(v) => out[i] = v,
                Err(e) => {
                    self.d.close();
                    return Err(e);
                }
            }
        }
        self.d.close();
        Ok(out)
    }
    fn w(&mut self, s: impl Into<String>) {
        self.words.push(s.into());
    }
    /// Struct_Offset, named from the A6+ ENTITY layout; `count` values start there (SKILL3: 3).
    fn struct_offset(&mut self, count: i64) -> Step<()> {
        let off = self.short(&f::STRUCT_OFFSET)?;
        if self.dialect == Dialect::A6
            && let Some(first) = entity_member(off as i64)
        {
            let names: Vec<String> = (0..count)
                .map_while(|i| entity_member(off as i64 + 4 * i))
                .collect();
            let name = if names.len() == count as usize {
                names.join(", ")
            } else {
                first
            };
            let at = self.d.pos() - 2;
            if let Some(last) = self.d.tree.last_mut() {
                last.meaning = Some(name.clone().into());
            }
            self.d
                .add(&f::STRUCT_FIELD, Value::Str(name.clone().into()), at, 2);
            self.w(name.replace(", ", ","));
            return Ok(());
        }
        self.w(format!("offset {off}"));
        Ok(())
    }

    /// Decodes the arguments of one message (the command byte is already read).
    fn message(&mut self, to_server: bool, cmd: u8) -> Step<()> {
        let a5 = self.dialect == Dialect::A5;
        match (to_server, cmd) {
            (_, 0x01) => {}
            (true, 0x02) => {
                if a5 {
                    self.dword(&f::PLAYER_DPID)?;
                }
                let n = self.string(&f::PLAYER_NAME)?;
                self.w(format!("\"{n}\""));
                // The newest page revision adds String Session_Name. Client command bytes are
                // all below 0x10, so printable text right after the name can only be that.
                if !a5 && self.d.cur.peek_u8().is_some_and(|b| b >= 0x20) {
                    let s = self.string(&f::SESSION_NAME)?;
                    self.w(format!("session \"{s}\""));
                }
            }
            (true, 0x03) => {
                if a5 {
                    self.dword(&f::PLAYER_DPID)?;
                }
                let n = self.string(&f::FILE_NAME)?;
                let s = self.vec3(
                    &f::START,
                    [&f::START_X, &f::START_Y, &f::START_Z],
                    Self::packed,
                )?;
                // The newest page revision (PC-new, reference §1) widens Action_Index to a Long.
                // Exactly 6 bytes left (Long + Short) is read that way, unless they are PC-old's
                // Short + Short followed by two CLS_PINGs. Otherwise e.g. `03 "player.mdl" …`
                // parsed only as A5 server messages and locked direction, dialect and CPosition
                // the wrong way.
                let rest = self.d.cur.rest();
                if !a5 && rest.len() == 6 && rest[4..] != [0x07, 0x07] {
                    self.long(&f::ACTION_INDEX)?;
                } else {
                    self.short(&f::ACTION_INDEX)?;
                }
                let id = self.short(&f::IDENTIFIER)?;
                self.w(format!(
                    "{n} at {},{},{} id {id}",
                    fmt_num(s[0]),
                    fmt_num(s[1]),
                    fmt_num(s[2])
                ));
            }
            (true, 0x04) => {
                if a5 {
                    let v = self.dword(&f::ENTITY_DPID)?;
                    self.w(format!("dpid {v:#x}"));
                } else if (2..4).contains(&self.d.cur.remaining()) {
                    // The newest page revision (PC-new, reference §1) makes Entity_Index a Short.
                    // Only 2 or 3 bytes left cannot be PC-old's Long: read the Short, so that such
                    // a message does not parse as SVC_REMOVE only and reverse the flow's
                    // direction.
                    let v = self.short(&f::ENTITY)?;
                    self.w(format!("ent {v}"));
                } else {
                    let v = self.long(&f::ENTITY)?;
                    self.w(format!("ent {v}"));
                }
            }
            (true, 0x07) if a5 => {
                self.dword(&f::PLAYER_DPID)?;
            }
            (true, 0x09) => {
                if a5 {
                    self.dword(&f::PLAYER_DPID)?;
                }
                let n = self.string(&f::LEVEL_NAME)?;
                self.w(n);
            }
            (_, 0x0a) => {
                let idx = self.short(&f::VAR_INDEX)?;
                let len = self.short(&f::VAR_LENGTH)?;
                if len < 0 || (len as usize) * 4 > self.d.cur.remaining() {
                    let at = self.d.pos();
                    self.d.tree.error(
                        Some(&f::VAR_LENGTH),
                        Some(Pos::bytes(at.saturating_sub(2), 2)),
                        format!(
                            "Var_Length {len} needs {} bytes, only {} left",
                            (len.max(0) as usize) * 4,
                            self.d.cur.remaining()
                        ),
                    );
                    return Err(crate::wire::Stop);
                }
                let mut vals = Vec::new();
                for _ in 0..len {
                    vals.push(fmt_num(self.fixed(&f::VAR_VALUE)?));
                }
                if vals.len() > 4 {
                    vals.truncate(4);
                    vals.push("…".into());
                }
                self.w(format!("var {idx} = {}", vals.join(",")));
            }
            (_, 0x0b) => {
                let idx = self.short(&f::STRING_INDEX)?;
                let t = self.string(&f::TEXT)?;
                let short: String = t.chars().take(40).collect();
                let more = if short.len() < t.len() { "…" } else { "" };
                self.w(format!("str {idx} \"{short}{more}\""));
            }
            (_, 0x0e) | (_, 0x0f) => {
                if to_server && a5 {
                    let v = self.dword(&f::ENTITY_DPID)?;
                    self.w(format!("dpid {v:#x}"));
                } else {
                    let v = self.short(&f::ENTITY)?;
                    self.w(format!("ent {v}"));
                }
                let n = if cmd == 0x0e { 1 } else { 3 };
                self.struct_offset(n)?;
                let mut vals = Vec::new();
                for _ in 0..n {
                    vals.push(fmt_num(self.fixed(&f::SKILL)?));
                }
                self.w(format!("= {}", vals.join(",")));
            }
            (false, 0x03) => {
                let e = self.short(&f::ENTITY)?;
                let id = self.short(&f::IDENTIFIER)?;
                self.w(format!("ent {e} id {id}"));
            }
            (false, 0x04) => {
                let e = self.short(&f::ENTITY)?;
                self.w(format!("ent {e}"));
            }
            (false, 0x05) => {
                let e = self.short(&f::ENTITY)?;
                let s = self.short(&f::SOUND_INDEX)?;
                let v = self.scale(&f::VOLUME, 2000.0)?;
                self.long(&f::SOUND_HANDLE)?;
                self.w(format!("ent {e} sound {s} vol {}", fmt_num(v)));
            }
            (false, 0x06) => {
                let a = self.short(&f::ACTION_INDEX)?;
                let n = self.short(&f::NUMBER)?;
                let s = self.vec3(
                    &f::START,
                    [&f::START_X, &f::START_Y, &f::START_Z],
                    Self::packed,
                )?;
                self.vec3(&f::VEL, [&f::VEL_X, &f::VEL_Y, &f::VEL_Z], Self::fixed)?;
                self.w(format!(
                    "action {a} ×{n} at {},{},{}",
                    fmt_num(s[0]),
                    fmt_num(s[1]),
                    fmt_num(s[2])
                ));
            }
            (false, 0x07) => {
                if a5 {
                    let s = self.dword(&f::SYNC)?;
                    if s != SYNC {
                        let at = self.d.pos() - 4;
                        self.d.tree.error(
                            Some(&f::SYNC),
                            Some(Pos::bytes(at, 4)),
                            format!("svc_info sync constant is {s:#010x}, not 0x11191218"),
                        );
                        return Err(crate::wire::Stop);
                    }
                    self.saw_sync = true;
                }
                let v = self.byte(&f::PROTOCOL_VERSION)?;
                let t = self.float(&f::SERVER_TIME)?;
                self.w(format!("v{v} time {}", fmt_num(t as f64)));
                if a5 {
                    let ft = self.float(&f::FRAME_TIME)?;
                    self.w(format!("frame {}", fmt_num(ft as f64)));
                }
            }
            (false, 0x12) => {
                let e = self.short(&f::ENTITY)?;
                let func = self.short(&f::FUNCTION_INDEX)?;
                self.saw_local = true;
                self.w(format!("ent {e} func {func}"));
            }
            (false, 0x40..=0xff) => self.update(cmd)?,
            _ => {}
        }
        Ok(())
    }

    fn update(&mut self, cmd: u8) -> Step<()> {
        let group = cmd >> 6;
        let bits = cmd & 0x3f;
        let order = wire_order(self.dialect, group, bits);
        let names: Vec<&str> = order
            .iter()
            .map(|p| match p {
                Ok(p) => p.name(),
                Err(_) => "unused",
            })
            .collect();
        let at = self.d.pos() - 1;
        self.d
            .add(&f::PARAMS, Value::UInt(bits as u64), at, 1)
            .meaning = Some(names.join(", ").into());
        let e = self.short(&f::ENTITY)?;
        self.w(format!("ent {e}"));
        for p in order {
            let p = match p {
                Ok(p) => p,
                Err(bit) => {
                    let at = self.d.pos();
                    self.d.tree.error(
                        Some(&f::PARAMS),
                        Some(Pos::bytes(at, 0)),
                        format!(
                            "update bit {group}.{bit} has no parameter in the {} table; its size is unknown",
                            self.dialect.label()
                        ),
                    );
                    return Err(crate::wire::Stop);
                }
            };
            match p {
                Param::Position => {
                    let v = self.vec3(&f::POS, [&f::POS_X, &f::POS_Y, &f::POS_Z], Self::cpos)?;
                    self.w(format!(
                        "pos {},{},{}",
                        fmt_num(v[0]),
                        fmt_num(v[1]),
                        fmt_num(v[2])
                    ));
                }
                Param::Pan => {
                    let v = self.angle(&f::PAN)?;
                    self.w(format!("pan {}", fmt_num(v)));
                }
                Param::Tilt => {
                    let v = self.angle(&f::TILT)?;
                    self.w(format!("tilt {}", fmt_num(v)));
                }
                Param::Roll => {
                    let v = self.angle(&f::ROLL)?;
                    self.w(format!("roll {}", fmt_num(v)));
                }
                Param::Frame => {
                    let fr = self.short(&f::FRAME)?;
                    let frac = self.scale(&f::FRAME_FRACTION, 1.0)?;
                    if self.dialect == Dialect::A6 {
                        self.short(&f::NEXT_FRAME)?;
                    }
                    self.w(format!("frame {}", fmt_num(fr as f64 + frac)));
                }
                Param::NextFrame => {
                    let n = self.short(&f::NEXT_FRAME)?;
                    self.w(format!("next {n}"));
                }
                Param::Flags1 => {
                    let v = if self.dialect == Dialect::A6 {
                        let (at, b) = self.take::<2>(&f::FLAGS)?;
                        let v = u16::from_le_bytes(b) as u64;
                        // The Short carries entity flags 8..23: shifted back into place.
                        self.d.add(&f::FLAGS, Value::UInt(v), at, 2).meaning =
                            Some(format!("flags mask {:#x}", v << 8).into());
                        v
                    } else {
                        self.byte(&f::FLAGS)? as u64
                    };
                    self.w(format!("flags {v:#x}"));
                }
                Param::Flags2 => {
                    let v = self.byte(&f::FLAGS2)?;
                    self.w(format!("flags2 {v:#x}"));
                }
                Param::Type => {
                    let n = self.string(&f::FILE_NAME)?;
                    self.w(format!("type {n}"));
                }
                Param::Scale => {
                    let v = self.vec3(
                        &f::SCALE,
                        [&f::SCALE_X, &f::SCALE_Y, &f::SCALE_Z],
                        |p, def| {
                            let (at, b) = p.take::<2>(def)?;
                            let raw = i16::from_le_bytes(b);
                            let v = raw as f64 * 0.25;
                            p.d.add(def, Value::F64(v), at, 2).meaning =
                                Some(format!("raw {raw}").into());
                            Ok(v)
                        },
                    )?;
                    self.w(format!(
                        "scale {},{},{}",
                        fmt_num(v[0]),
                        fmt_num(v[1]),
                        fmt_num(v[2])
                    ));
                }
                Param::Ambient => {
                    let v = self.scale(&f::AMBIENT, 100.0)?;
                    self.w(format!("ambient {}", fmt_num(v)));
                }
                Param::Albedo => {
                    let v = self.scale(&f::ALBEDO, 255.0)?;
                    self.w(format!("albedo {}", fmt_num(v)));
                }
                Param::Skin => {
                    let v = self.byte(&f::SKIN)?;
                    self.w(format!("skin {v}"));
                }
                Param::Lightrange => {
                    let v = self.scale(&f::LIGHTRANGE, 2000.0)?;
                    self.w(format!("light {}", fmt_num(v)));
                }
                Param::Color => {
                    let order = if self.dialect == Dialect::A5 {
                        [&f::BLUE, &f::GREEN, &f::RED]
                    } else {
                        [&f::RED, &f::GREEN, &f::BLUE]
                    };
                    let v = self.vec3(&f::COLOR, order, |p, def| p.scale(def, 255.0))?;
                    let (r, g, b) = if self.dialect == Dialect::A5 {
                        (v[2], v[1], v[0])
                    } else {
                        (v[0], v[1], v[2])
                    };
                    self.w(format!("rgb {},{},{}", fmt_num(r), fmt_num(g), fmt_num(b)));
                }
                Param::Alpha => {
                    let v = self.scale(&f::ALPHA, 100.0)?;
                    self.w(format!("alpha {}", fmt_num(v)));
                }
                Param::Uv => {
                    let (u, v) = if self.dialect == Dialect::A5 {
                        let mut uv = [0.0; 2];
                        for (i, def) in [&f::U, &f::V].into_iter().enumerate() {
                            let (at, b) = self.take::<2>(def)?;
                            let raw = i16::from_le_bytes(b);
                            uv[i] = raw as f64 / 16.0;
                            self.d.add(def, Value::F64(uv[i]), at, 2).meaning =
                                Some(format!("raw {raw}").into());
                        }
                        (uv[0], uv[1])
                    } else {
                        (self.fixed(&f::U)?, self.fixed(&f::V)?)
                    };
                    self.w(format!("uv {},{}", fmt_num(u), fmt_num(v)));
                }
            }
        }
        Ok(())
    }
}

/// Decodes a buffer of back-to-back messages. Positions are shifted by `base` (the buffer's
/// offset in the UDP payload). `detail`: keep the field tree (a trial parse that only asks
/// whether the buffer parses cleanly passes `false`).
pub fn parse(
    data: &[u8],
    base: usize,
    to_server: bool,
    dialect: Dialect,
    pos: PosMode,
    detail: bool,
) -> Parsed {
    let mut p = P {
        d: Dissector::new(data, detail),
        dialect,
        pos,
        used_cpos: false,
        saw_sync: false,
        saw_local: false,
        words: Vec::new(),
    };
    let mut out = Parsed {
        clean: true,
        ..Parsed::default()
    };
    let mut fills = 0usize;
    while let Some(cmd) = p.d.cur.peek_u8() {
        let start = p.d.pos();
        let Some(name) = command_name(to_server, dialect, cmd) else {
            p.d.tree.error(
                Some(&f::CMD),
                Some(Pos::bytes(start, 1)),
                format!(
                    "unknown {} command {cmd:#04x} at offset {}",
                    if to_server { "client" } else { "server" },
                    start + base
                ),
            );
            out.clean = false;
            break;
        };
        p.d.open(&f::MSG);
        p.d.tree.set_group_meaning(name);
        let _ = p.d.cur.u8();
        p.d.add(&f::CMD, Value::Enum(cmd as i64, name), start, 1);
        p.words.clear();
        let r = p.message(to_server, cmd);
        p.d.close();
        if cmd == 0x01 {
            fills += 1;
        } else {
            out.names.push(name);
            let mut s = name.to_string();
            for w in &p.words {
                s.push(' ');
                s.push_str(w);
            }
            out.summaries.push(s);
        }
        if r.is_err() {
            out.clean = false;
            break;
        }
    }
    if !p.d.cur.is_empty() {
        let at = p.d.pos();
        let rest = p.d.cur.rest();
        p.d.add(&f::UNDECODED, Value::Bytes(rest.into()), at, rest.len());
    }
    if fills > 0 {
        out.summaries.push(format!("{fills} fill"));
    }
    out.used_cpos = p.used_cpos;
    out.saw_sync = p.saw_sync;
    out.saw_local = p.saw_local;
    let mut rec = crate::tree::Record::new("gamestudio");
    let end = data.len();
    p.d.tree.finish_into(end, &mut rec);
    for fld in &mut rec.fields {
        shift(fld, base);
    }
    for n in &mut rec.notes {
        if let Some(ps) = &mut n.pos {
            ps.offset = ps.offset.saturating_add(base as u32);
        }
    }
    out.fields = rec.fields;
    out.notes = rec.notes;
    out
}

/// Moves a field tree built over a sub-buffer to its place in the UDP payload.
pub fn shift(fld: &mut Field, base: usize) {
    if fld.pos.source == 0 && !fld.pos.bits {
        fld.pos.offset = fld.pos.offset.saturating_add(base as u32);
    }
    for c in &mut fld.children {
        shift(c, base);
    }
}
