//! The Gamestudio message layer: back-to-back messages, each a command byte plus arguments.
//!
//! Tables: A5 = Conitec's SDK "Programmer's Manual for A5 Engine 5.230" (July 2002), p.12–14
//! "The A5 Client/Server Protocol"; A6+ = the later online manual page `prog_cserver` ("The
//! Client/Server Protocol"), in its older revision (conitec.net/manual_d/prog_cserver.html,
//! PC-old in docs/protocols/gamestudio.md) with the newest revision's changes
//! (manual.conitec.net/prog_cserver.htm, PC-new) where the wire shows them. All multi-byte
//! values are little-endian (see docs/protocols/gamestudio.md, "Byte order").

use std::borrow::Cow;
use std::fmt::Write as _;

use crate::tree::{Field, FieldDef, Note, NoteDef, Pos, Value};
use crate::wire::{Dissector, Step, Stop};

use super::fields as f;
use super::notes;

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

/// The A5 svc_info sync constant (A5 manual p.13), little-endian on the wire: `18 12 19 11`.
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
    /// The first message's command name (fill bytes are not messages).
    pub first_name: Option<&'static str>,
    /// How many messages were read, fill bytes not counted.
    pub messages: usize,
}

/// How many message summaries a record's summary line shows; the rest are counted.
pub const SHOWN: usize = 4;

/// The summary words of a datagram's messages, written while they are parsed: the first
/// [`SHOWN`] summaries (each after `" "` or `"; "`) appended to `text` (which may hold the
/// start of the record's summary line already), and how many there are in all. A message past
/// the shown ones is parsed without formatting anything.
#[derive(Debug, Default)]
pub struct Words {
    pub text: String,
    pub count: usize,
}

impl Words {
    fn showing(&self) -> bool {
        self.count < SHOWN
    }

    /// Starts the next summary when it is shown; whether it is.
    fn start(&mut self) -> bool {
        if !self.showing() {
            return false;
        }
        if self.count == 0 {
            self.text.push(' ');
        } else {
            self.text.push_str("; ");
        }
        true
    }
}

/// What a trial parse of one reading learns, without fields, notes or summaries: the flags the
/// flow decides on. Learning parses every datagram of a flow under up to eight readings, so a
/// trial parse builds nothing; only the reading shown is parsed again in full ([`parse`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Fit {
    /// Every byte was consumed by known messages without a short read.
    pub clean: bool,
    pub used_cpos: bool,
    pub saw_sync: bool,
    pub saw_local: bool,
}

crate::open_enum! {
    /// Client → server command bytes (A5 manual p.12–13; `prog_cserver` CLS_ table).
    pub struct Cls(u8) {
        /// A5 only: a one-byte filler.
        FILL = 0x01 => "CLS_FILL",
        JOIN = 0x02 => "CLS_JOIN",
        CREATE = 0x03 => "CLS_CREATE",
        REMOVE = 0x04 => "CLS_REMOVE",
        PING = 0x07 => "CLS_PING",
        LEVEL = 0x09 => "CLS_LEVEL",
        VAR = 0x0a => "CLS_VAR",
        STRING = 0x0b => "CLS_STRING",
        SKILL = 0x0e => "CLS_SKILL",
        SKILL3 = 0x0f => "CLS_SKILL3",
    }
}

crate::open_enum! {
    /// Server → client command bytes (A5 manual p.13–14; `prog_cserver` SVC_ table). An update
    /// code's top two bits are its group; [`Svc::group_code`] maps 0x40..=0xff onto them.
    pub struct Svc(u8) {
        /// A5 only: a one-byte filler.
        FILL = 0x01 => "SVC_FILL",
        CREATE = 0x03 => "SVC_CREATE",
        REMOVE = 0x04 => "SVC_REMOVE",
        ENTSOUND = 0x05 => "SVC_ENTSOUND",
        EFFECT = 0x06 => "SVC_EFFECT",
        INFO = 0x07 => "SVC_INFO",
        VAR = 0x0a => "SVC_VAR",
        STRING = 0x0b => "SVC_STRING",
        SKILL = 0x0e => "SVC_SKILL",
        SKILL3 = 0x0f => "SVC_SKILL3",
        /// A6+ only.
        LOCAL = 0x12 => "SVC_LOCAL",
        UPDATE1 = 0x40 => "SVC_UPDATE1",
        UPDATE2 = 0x80 => "SVC_UPDATE2",
        UPDATE3 = 0xc0 => "SVC_UPDATE3",
    }
}

impl Svc {
    /// The table entry of a command byte: update codes by their group.
    pub fn group_code(cmd: u8) -> Svc {
        if cmd >= Svc::UPDATE1.0 {
            Svc(cmd & 0xc0)
        } else {
            Svc(cmd)
        }
    }
}

/// Command names, by direction and dialect (None: not a command of that table).
pub fn command_name(to_server: bool, dialect: Dialect, cmd: u8) -> Option<&'static str> {
    let a5 = dialect == Dialect::A5;
    if to_server {
        let c = Cls(cmd);
        return if c == Cls::FILL && !a5 {
            None
        } else {
            c.name()
        };
    }
    match Svc::group_code(cmd) {
        Svc::FILL if !a5 => None,
        Svc::LOCAL if a5 => None,
        c => c.name(),
    }
}

/// The group of a message kind (the command byte's table entry, as [`command_name`] names it).
fn message_def(to_server: bool, cmd: u8) -> Option<&'static FieldDef> {
    if to_server {
        return Some(match Cls(cmd) {
            Cls::FILL => &f::CLS_FILL,
            Cls::JOIN => &f::CLS_JOIN,
            Cls::CREATE => &f::CLS_CREATE,
            Cls::REMOVE => &f::CLS_REMOVE,
            Cls::PING => &f::CLS_PING,
            Cls::LEVEL => &f::CLS_LEVEL,
            Cls::VAR => &f::CLS_VAR,
            Cls::STRING => &f::CLS_STRING,
            Cls::SKILL => &f::CLS_SKILL,
            Cls::SKILL3 => &f::CLS_SKILL3,
            _ => return None,
        });
    }
    Some(match Svc::group_code(cmd) {
        Svc::FILL => &f::SVC_FILL,
        Svc::CREATE => &f::SVC_CREATE,
        Svc::REMOVE => &f::SVC_REMOVE,
        Svc::ENTSOUND => &f::SVC_ENTSOUND,
        Svc::EFFECT => &f::SVC_EFFECT,
        Svc::INFO => &f::SVC_INFO,
        Svc::VAR => &f::SVC_VAR,
        Svc::STRING => &f::SVC_STRING,
        Svc::SKILL => &f::SVC_SKILL,
        Svc::SKILL3 => &f::SVC_SKILL3,
        Svc::LOCAL => &f::SVC_LOCAL,
        Svc::UPDATE1 => &f::SVC_UPDATE1,
        Svc::UPDATE2 => &f::SVC_UPDATE2,
        Svc::UPDATE3 => &f::SVC_UPDATE3,
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
/// A5: the A5 manual p.14 (bit order). A6+: the `prog_cserver` page's "Parameter | Update.Bit"
/// table.
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
fn wire_order(
    dialect: Dialect,
    group: u8,
    bits: u8,
) -> impl Iterator<Item = Result<Param, u8>> + Clone {
    let table = param_table(dialect, group);
    let order: [u8; 6] = if dialect == Dialect::A6 && group == 1 {
        [0, 1, 3, 4, 2, 5]
    } else {
        [0, 1, 2, 3, 4, 5]
    };
    order
        .into_iter()
        .filter(move |&b| bits & (1 << b) != 0)
        .map(move |b| table[b as usize].ok_or(b))
}

/// The A6+ ENTITY member at a byte offset: the lite-C `atypes.h` ENTITY struct of A7/A8
/// (GitHub VoroneTZ/Gex4 and MohammadJamali/Fun-3D-Gamestudio-Project), all members 4 bytes.
pub fn entity_member(offset: i64) -> Option<String> {
    let mut s = String::new();
    push_entity_member(&mut s, offset).then_some(s)
}

/// Whether [`entity_member`] names the offset: HEAD, skill1..skill100 and TAIL are 142
/// members of 4 bytes.
pub fn names_member(offset: i64) -> bool {
    (0..142 * 4).contains(&offset) && offset % 4 == 0
}

/// Appends [`entity_member`] to `out`; false (nothing appended) when the offset names none.
fn push_entity_member(out: &mut String, offset: i64) -> bool {
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
        return false;
    }
    let i = (offset / 4) as usize;
    let name = if let Some(n) = HEAD.get(i) {
        n
    } else if (37..137).contains(&i) {
        out.push_str("skill");
        out.push_str(itoa::Buffer::new().format(i - 36));
        return true;
    } else {
        match i.checked_sub(137).and_then(|t| TAIL.get(t)) {
            Some(n) => n,
            None => return false,
        }
    };
    out.push_str(name);
    true
}

/// The longest String read (bytes, with its NUL).
const STRING_MAX: usize = 4096;

/// The state of one parse: the dissector plus what the flow wants to learn from it.
struct P<'a> {
    d: Dissector<'a>,
    dialect: Dialect,
    pos: PosMode,
    used_cpos: bool,
    saw_sync: bool,
    saw_local: bool,
    fills: usize,
    /// The summaries written so far (this buffer's and earlier buffers' of the datagram).
    words: Words,
    /// The current message's summary is shown: its words go into `words.text`.
    showing: bool,
    /// A trial parse ([`check`]): no summary words, no notes, nothing allocated; reads stop at
    /// the first contradiction as in a full parse, so the flags come out the same.
    quiet: bool,
}

/// `v` with at most 3 decimals, trailing zeros dropped (`{v:.3}` trimmed). Written through
/// `text::push_fixed`, not the formatter: the formatter's exact-decimal path was a sixth of the
/// summary mode of GameStudio, every position and variable being a number.
#[cfg(test)]
fn fmt_num(v: f64) -> String {
    let mut s = String::with_capacity(16);
    fmt_num_into(&mut s, v);
    s
}

/// [`fmt_num`] appended to `out`.
fn fmt_num_into(out: &mut String, v: f64) {
    let start = out.len();
    // The formatter writes a negative number as '-' and the digits of its magnitude (NaN with
    // no sign, which `v < 0.0` leaves to `push_fixed` as it is).
    if v < 0.0 {
        out.push('-');
        crate::text::push_fixed(out, -v, 3);
    } else {
        crate::text::push_fixed(out, v, 3);
    }
    let s = &out[start..];
    if s.contains('.') {
        let kept = s.trim_end_matches('0').trim_end_matches('.').len();
        out.truncate(start + kept);
    }
    if &out[start..] == "-0" {
        out.truncate(start);
        out.push('0');
    }
}

/// `v` in lower-case hexadecimal without leading zeros (as `{v:x}` writes it).
fn push_hex(out: &mut String, v: u64) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let digits = (64 - v.leading_zeros()).div_ceil(4).max(1);
    for i in (0..digits).rev() {
        out.push(char::from(HEX[(v >> (i * 4)) as usize & 0xf]));
    }
}

/// Three numbers as `x,y,z`.
fn push_xyz(out: &mut String, [x, y, z]: [f64; 3]) {
    fmt_num_into(out, x);
    out.push(',');
    fmt_num_into(out, y);
    out.push(',');
    fmt_num_into(out, z);
}

/// The data types (A5 manual p.12; the same on the `prog_cserver` page).
impl<'a> P<'a> {
    fn short(&mut self, def: &'static FieldDef) -> Step<i16> {
        if self.quiet {
            return self.d.cur.i16_le().map_err(|_| Stop);
        }
        self.d.i16_le(def)
    }
    fn long(&mut self, def: &'static FieldDef) -> Step<i32> {
        if self.quiet {
            return self.d.cur.i32_le().map_err(|_| Stop);
        }
        self.d.i32_le(def)
    }
    fn dword(&mut self, def: &'static FieldDef) -> Step<u32> {
        if self.quiet {
            return self.d.cur.u32_le().map_err(|_| Stop);
        }
        self.d.u32_le(def)
    }
    fn byte(&mut self, def: &'static FieldDef) -> Step<u8> {
        if self.quiet {
            return self.d.cur.u8().map_err(|_| Stop);
        }
        self.d.u8(def)
    }
    fn float(&mut self, def: &'static FieldDef) -> Step<f32> {
        if self.quiet {
            return self.d.cur.f32_le().map_err(|_| Stop);
        }
        self.d.f32_le(def)
    }
    /// The raw bytes of a value the decoder converts, with where they start.
    fn take<const N: usize>(&mut self, def: &'static FieldDef) -> Step<(usize, [u8; N])> {
        let at = self.d.pos();
        match self.d.cur.array::<N>() {
            Ok(a) => Ok((at, a)),
            Err(_) if self.quiet => Err(Stop),
            Err(e) => Err(self.d.short(def, e)),
        }
    }
    /// Stops the parse at a value that cannot be right, with a located note (none in a trial
    /// parse, which would only throw it away).
    fn stop(
        &mut self,
        note: &'static NoteDef,
        def: &'static FieldDef,
        at: (usize, usize),
        msg: impl FnOnce() -> String,
    ) -> Stop {
        if self.quiet {
            return Stop;
        }
        self.d.fail(note, def, at, msg())
    }
    /// Adds a converted value whose meaning shows the raw number (built only for trees).
    fn converted(&mut self, def: &'static FieldDef, v: f64, (at, n): (usize, usize), raw: i64) {
        self.d.add(def, Value::F64(v), at, n);
        if self.d.tree.detail()
            && let Some(last) = self.d.tree.last_mut()
        {
            last.meaning = Some(format!("raw {raw}").into());
        }
    }
    /// Fixed 22.10: signed 32-bit / 1024.
    fn fixed(&mut self, def: &'static FieldDef) -> Step<f64> {
        let (at, b) = self.take::<4>(def)?;
        let raw = i32::from_le_bytes(b);
        let v = raw as f64 / 1024.0;
        self.converted(def, v, (at, 4), raw.into());
        Ok(v)
    }
    /// Position: signed 24-bit, raw × 8 = 22.10 fixed, i.e. quants = raw / 128.
    fn packed(&mut self, def: &'static FieldDef) -> Step<f64> {
        let (at, b) = self.take::<3>(def)?;
        let sign = if b[2] & 0x80 != 0 { 0xff } else { 0 };
        let raw = i32::from_le_bytes([b[0], b[1], b[2], sign]);
        let v = raw as f64 / 128.0;
        self.converted(def, v, (at, 3), raw.into());
        Ok(v)
    }
    /// CPosition: Position or Fixed by `pos_resolution`, which is not on the wire.
    fn cpos(&mut self, def: &'static FieldDef) -> Step<f64> {
        self.used_cpos = true;
        match self.pos {
            PosMode::Packed => self.packed(def),
            PosMode::Fixed => self.fixed(def),
        }
    }
    /// Angle: raw × 360 / 65535 (read unsigned, so that 0x8000 is 180°).
    fn angle(&mut self, def: &'static FieldDef) -> Step<f64> {
        let (at, b) = self.take::<2>(def)?;
        let raw = u16::from_le_bytes(b);
        let v = raw as f64 * 360.0 / 65535.0;
        self.converted(def, v, (at, 2), raw.into());
        Ok(v)
    }
    /// Scale(x): byte × x / 255.
    fn scale(&mut self, def: &'static FieldDef, x: f64) -> Step<f64> {
        let (at, b) = self.take::<1>(def)?;
        let v = b[0] as f64 * x / 255.0;
        self.converted(def, v, (at, 1), b[0].into());
        Ok(v)
    }
    /// A Short multiplied by `factor` (update scale: ×0.25; A5 uv: /16).
    fn short_times(&mut self, def: &'static FieldDef, factor: f64) -> Step<f64> {
        let (at, b) = self.take::<2>(def)?;
        let raw = i16::from_le_bytes(b);
        let v = raw as f64 * factor;
        self.converted(def, v, (at, 2), raw.into());
        Ok(v)
    }
    /// A String: borrowed from the datagram when it is UTF-8 (as it nearly always is).
    fn string(&mut self, def: &'static FieldDef) -> Step<Cow<'a, str>> {
        if self.quiet {
            return match self.d.cur.cstring(STRING_MAX) {
                (_, true) => Ok(Cow::Borrowed("")),
                (_, false) => Err(Stop),
            };
        }
        // As `Dissector::cstring`, but the text is converted only when the tree keeps it.
        let at = self.d.pos();
        let (s, terminated) = self.d.cur.cstring(STRING_MAX);
        let len = self.d.pos() - at;
        self.d.tree.add_text(def, s, Pos::bytes(at, len));
        if !terminated {
            let msg = format!("{} has no terminating NUL within {} bytes", def.label, len);
            let note = &crate::wire::NO_TERMINATOR;
            self.d
                .tree
                .expert(note, Some(def), Some(Pos::bytes(at, len)), msg);
            return Err(Stop);
        }
        Ok(String::from_utf8_lossy(s))
    }
    fn vec3(
        &mut self,
        group: &'static FieldDef,
        defs: [&'static FieldDef; 3],
        read: impl Fn(&mut Self, &'static FieldDef) -> Step<f64>,
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
    /// The summary line, while the current message's summary is shown.
    fn line(&mut self) -> Option<&mut String> {
        self.showing.then_some(&mut self.words.text)
    }
    /// Appends a word to the message's summary line. The words are written by hand, not through
    /// the formatter: they are on every record, and the formatter's machinery was a tenth of
    /// GameStudio's summary mode.
    fn w(&mut self, word: &str) {
        if let Some(l) = self.line() {
            l.push(' ');
            l.push_str(word);
        }
    }
    /// Appends ` label ` and returns the line for the value, while the summary is shown.
    fn labelled(&mut self, label: &str) -> Option<&mut String> {
        let l = self.line()?;
        l.push(' ');
        l.push_str(label);
        l.push(' ');
        Some(l)
    }
    /// Appends ` label value` for an integer.
    fn w_int(&mut self, label: &str, v: impl itoa::Integer) {
        if let Some(l) = self.labelled(label) {
            l.push_str(itoa::Buffer::new().format(v));
        }
    }
    /// Appends ` label 0x…` (as `{v:#x}` writes it).
    fn w_hex(&mut self, label: &str, v: u64) {
        if let Some(l) = self.labelled(label) {
            l.push_str("0x");
            push_hex(l, v);
        }
    }
    /// Appends ` label value` for a number ([`fmt_num`]).
    fn w_num(&mut self, label: &str, v: f64) {
        if let Some(l) = self.labelled(label) {
            fmt_num_into(l, v);
        }
    }
    /// Appends ` label x,y,z`.
    fn w_xyz(&mut self, label: &str, v: [f64; 3]) {
        if let Some(l) = self.labelled(label) {
            push_xyz(l, v);
        }
    }
    /// Appends a word the formatter writes (rare messages).
    fn w_fmt(&mut self, word: std::fmt::Arguments<'_>) {
        if let Some(l) = self.line() {
            l.push(' ');
            let _ = l.write_fmt(word);
        }
    }
}

/// The messages (the command byte is already read).
impl P<'_> {
    fn message(&mut self, to_server: bool, cmd: u8) -> Step<()> {
        if to_server {
            self.client(Cls(cmd))
        } else if cmd >= Svc::UPDATE1.0 {
            self.update(cmd)
        } else {
            self.server(Svc(cmd))
        }
    }

    fn client(&mut self, cmd: Cls) -> Step<()> {
        let a5 = self.dialect == Dialect::A5;
        match cmd {
            Cls::JOIN => self.cls_join(),
            Cls::CREATE => self.cls_create(),
            Cls::REMOVE => self.cls_remove(),
            Cls::PING if a5 => self.dword(&f::PLAYER_DPID).map(drop),
            Cls::LEVEL => {
                if a5 {
                    self.dword(&f::PLAYER_DPID)?;
                }
                let n = self.string(&f::LEVEL_NAME)?;
                self.w(&n);
                Ok(())
            }
            Cls::VAR => self.var(),
            Cls::STRING => self.string_msg(),
            Cls::SKILL | Cls::SKILL3 => self.skill(true, cmd == Cls::SKILL3),
            // CLS_FILL and the A6+ CLS_PING have no arguments.
            _ => Ok(()),
        }
    }

    fn server(&mut self, cmd: Svc) -> Step<()> {
        match cmd {
            Svc::CREATE => {
                let e = self.short(&f::ENTITY)?;
                let id = self.short(&f::IDENTIFIER)?;
                self.w_int("ent", e);
                self.w_int("id", id);
            }
            Svc::REMOVE => {
                let e = self.short(&f::ENTITY)?;
                self.w_int("ent", e);
            }
            Svc::ENTSOUND => {
                let e = self.short(&f::ENTITY)?;
                let s = self.short(&f::SOUND_INDEX)?;
                let v = self.scale(&f::VOLUME, 2000.0)?;
                self.long(&f::SOUND_HANDLE)?;
                self.w_int("ent", e);
                self.w_int("sound", s);
                self.w_num("vol", v);
            }
            Svc::EFFECT => {
                let a = self.short(&f::ACTION_INDEX)?;
                let n = self.short(&f::NUMBER)?;
                let s = self.vec3(
                    &f::START,
                    [&f::START_X, &f::START_Y, &f::START_Z],
                    Self::packed,
                )?;
                self.vec3(&f::VEL, [&f::VEL_X, &f::VEL_Y, &f::VEL_Z], Self::fixed)?;
                self.w_int("action", a);
                self.w_fmt(format_args!("×{n}"));
                self.w_xyz("at", s);
            }
            Svc::INFO => self.svc_info()?,
            Svc::VAR => self.var()?,
            Svc::STRING => self.string_msg()?,
            Svc::SKILL | Svc::SKILL3 => self.skill(false, cmd == Svc::SKILL3)?,
            Svc::LOCAL => {
                let e = self.short(&f::ENTITY)?;
                let func = self.short(&f::FUNCTION_INDEX)?;
                self.saw_local = true;
                self.w_int("ent", e);
                self.w_int("func", func);
            }
            // SVC_FILL has no arguments.
            _ => {}
        }
        Ok(())
    }

    fn cls_join(&mut self) -> Step<()> {
        if self.dialect == Dialect::A5 {
            self.dword(&f::PLAYER_DPID)?;
        }
        let n = self.string(&f::PLAYER_NAME)?;
        self.w_fmt(format_args!("\"{n}\""));
        // PC-new adds String Session_Name. Client command bytes are all below 0x10, so
        // printable text right after the name can only be that.
        if self.dialect == Dialect::A6 && self.d.cur.peek_u8().is_some_and(|b| b >= 0x20) {
            let s = self.string(&f::SESSION_NAME)?;
            self.w_fmt(format_args!("session \"{s}\""));
        }
        Ok(())
    }

    fn cls_create(&mut self) -> Step<()> {
        let a5 = self.dialect == Dialect::A5;
        if a5 {
            self.dword(&f::PLAYER_DPID)?;
        }
        let n = self.string(&f::FILE_NAME)?;
        let s = self.vec3(
            &f::START,
            [&f::START_X, &f::START_Y, &f::START_Z],
            Self::packed,
        )?;
        // PC-new widens Action_Index to a Long. Exactly 6 bytes left (Long + Short) is read that
        // way, unless they are PC-old's Short + Short followed by two CLS_PINGs. Otherwise e.g.
        // `03 "player.mdl" …` parsed only as A5 server messages and locked direction, dialect and
        // CPosition the wrong way.
        let rest = self.d.cur.rest();
        if !a5 && rest.len() == 6 && rest[4..] != [Cls::PING.0, Cls::PING.0] {
            self.long(&f::ACTION_INDEX)?;
        } else {
            self.short(&f::ACTION_INDEX)?;
        }
        let id = self.short(&f::IDENTIFIER)?;
        self.w(&n);
        self.w_xyz("at", s);
        self.w_int("id", id);
        Ok(())
    }

    fn cls_remove(&mut self) -> Step<()> {
        if self.dialect == Dialect::A5 {
            let v = self.dword(&f::ENTITY_DPID)?;
            self.w_hex("dpid", v.into());
            return Ok(());
        }
        // PC-new makes Entity_Index a Short. Only 2 or 3 bytes left cannot be PC-old's Long:
        // read the Short, so that such a message does not parse as SVC_REMOVE only and reverse
        // the flow's direction.
        let v = if (2..4).contains(&self.d.cur.remaining()) {
            i32::from(self.short(&f::ENTITY)?)
        } else {
            self.long(&f::ENTITY)?
        };
        self.w_int("ent", v);
        Ok(())
    }

    /// CLS_VAR / SVC_VAR: Short Var_Index, Short Var_Length, Fixed Var[Var_Length].
    fn var(&mut self) -> Step<()> {
        let idx = self.short(&f::VAR_INDEX)?;
        let len = self.short(&f::VAR_LENGTH)?;
        let left = self.d.cur.remaining();
        if len < 0 || (len as usize) * 4 > left {
            let at = self.d.pos().saturating_sub(2);
            let need = (len.max(0) as usize) * 4;
            let msg = || format!("Var_Length {len} needs {need} bytes, only {left} left");
            return Err(self.stop(&notes::BAD_VAR_LENGTH, &f::VAR_LENGTH, (at, 2), msg));
        }
        let mut first = [0.0; 4];
        for i in 0..len as usize {
            let v = self.fixed(&f::VAR_VALUE)?;
            if let Some(slot) = first.get_mut(i) {
                *slot = v;
            }
        }
        if !self.showing {
            return Ok(());
        }
        // The first four values, then an ellipsis for the rest.
        self.w_int("var", idx);
        self.w("= ");
        let line = &mut self.words.text;
        for (i, &v) in first.iter().take(len as usize).enumerate() {
            if i > 0 {
                line.push(',');
            }
            fmt_num_into(line, v);
        }
        if len > 4 {
            line.push_str(",…");
        }
        Ok(())
    }

    /// CLS_STRING / SVC_STRING: Short String_Index, String Text.
    fn string_msg(&mut self) -> Step<()> {
        let idx = self.short(&f::STRING_INDEX)?;
        let t = self.string(&f::TEXT)?;
        // The first 40 characters, then an ellipsis.
        let (short, more) = match t.char_indices().nth(40) {
            Some((end, _)) => (&t[..end], "…"),
            None => (&t[..], ""),
        };
        self.w_fmt(format_args!("str {idx} \"{short}{more}\""));
        Ok(())
    }

    /// SKILL / SKILL3 both ways: the entity (an A5 client names it by DPID), Struct_Offset, then
    /// one or three Fixed values.
    fn skill(&mut self, to_server: bool, three: bool) -> Step<()> {
        if to_server && self.dialect == Dialect::A5 {
            let v = self.dword(&f::ENTITY_DPID)?;
            self.w_hex("dpid", v.into());
        } else {
            let v = self.short(&f::ENTITY)?;
            self.w_int("ent", v);
        }
        let n = if three { 3 } else { 1 };
        self.struct_offset(n)?;
        let mut vals = [0.0; 3];
        for v in vals.iter_mut().take(n as usize) {
            *v = self.fixed(&f::SKILL)?;
        }
        if !self.showing {
            return Ok(());
        }
        self.w("=");
        let line = &mut self.words.text;
        for (i, &v) in vals.iter().take(n as usize).enumerate() {
            line.push(if i == 0 { ' ' } else { ',' });
            fmt_num_into(line, v);
        }
        Ok(())
    }

    /// Struct_Offset, named from the A6+ ENTITY layout; `count` values start there (SKILL3: 3).
    fn struct_offset(&mut self, count: i64) -> Step<()> {
        let off = self.short(&f::STRUCT_OFFSET)?;
        if !self.d.tree.detail() {
            self.struct_offset_words(off, count);
            return Ok(());
        }
        let first = match self.dialect {
            Dialect::A6 => entity_member(off as i64),
            Dialect::A5 => None,
        };
        let Some(first) = first else {
            self.w_int("offset", off);
            return Ok(());
        };
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
        self.w(&name.replace(", ", ","));
        Ok(())
    }

    /// [`P::struct_offset`]'s summary words alone (no tree), written in place.
    fn struct_offset_words(&mut self, off: i16, count: i64) {
        let a6 = self.dialect == Dialect::A6;
        let Some(l) = self.line() else {
            return;
        };
        let off = off as i64;
        let all = a6 && (0..count).all(|i| names_member(off + 4 * i));
        l.push(' ');
        let start = l.len();
        if all {
            for i in 0..count {
                if i > 0 {
                    l.push(',');
                }
                push_entity_member(l, off + 4 * i);
            }
        } else if !(a6 && push_entity_member(l, off)) {
            l.truncate(start);
            l.push_str("offset ");
            l.push_str(itoa::Buffer::new().format(off));
        }
    }

    /// SVC_INFO: A5 adds the sync constant before and the frame time after (A5 manual p.13).
    fn svc_info(&mut self) -> Step<()> {
        let a5 = self.dialect == Dialect::A5;
        if a5 {
            let s = self.dword(&f::SYNC)?;
            if s != SYNC {
                let at = self.d.pos() - 4;
                let msg = || format!("svc_info sync constant is {s:#010x}, not 0x11191218");
                return Err(self.stop(&notes::BAD_SYNC, &f::SYNC, (at, 4), msg));
            }
            self.saw_sync = true;
        }
        let v = self.byte(&f::PROTOCOL_VERSION)?;
        let t = self.float(&f::SERVER_TIME)?;
        if let Some(l) = self.line() {
            l.push_str(" v");
            l.push_str(itoa::Buffer::new().format(v));
        }
        self.w_num("time", t as f64);
        if a5 {
            let ft = self.float(&f::FRAME_TIME)?;
            self.w_num("frame", ft as f64);
        }
        Ok(())
    }
}

/// SVC_UPDATE1/2/3: the group is the code's top two bits, bits 0..5 select the parameters.
impl P<'_> {
    fn update(&mut self, cmd: u8) -> Step<()> {
        let group = cmd >> 6;
        let bits = cmd & 0x3f;
        let order = wire_order(self.dialect, group, bits);
        let at = self.d.pos() - 1;
        self.d.add(&f::PARAMS, Value::UInt(bits as u64), at, 1);
        if self.d.tree.detail()
            && let Some(last) = self.d.tree.last_mut()
        {
            let names: Vec<&str> = order
                .clone()
                .map(|p| p.map_or("unused", Param::name))
                .collect();
            last.meaning = Some(names.join(", ").into());
        }
        let e = self.short(&f::ENTITY)?;
        self.w_int("ent", e);
        for p in order {
            match p {
                Ok(p) => self.param(p)?,
                Err(bit) => {
                    let at = self.d.pos();
                    let label = self.dialect.label();
                    let msg = || {
                        format!(
                            "update bit {group}.{bit} has no parameter in the {label} table; its size is unknown"
                        )
                    };
                    let def = &notes::UNUSED_UPDATE_BIT;
                    return Err(self.stop(def, &f::PARAMS, (at, 0), msg));
                }
            }
        }
        Ok(())
    }

    fn param(&mut self, p: Param) -> Step<()> {
        match p {
            Param::Position => {
                let v = self.vec3(&f::POS, [&f::POS_X, &f::POS_Y, &f::POS_Z], Self::cpos)?;
                self.w_xyz("pos", v);
            }
            Param::Pan => self.converted_word(&f::PAN, "pan", Self::angle)?,
            Param::Tilt => self.converted_word(&f::TILT, "tilt", Self::angle)?,
            Param::Roll => self.converted_word(&f::ROLL, "roll", Self::angle)?,
            Param::Frame => {
                let fr = self.short(&f::FRAME)?;
                let frac = self.scale(&f::FRAME_FRACTION, 1.0)?;
                if self.dialect == Dialect::A6 {
                    self.short(&f::NEXT_FRAME)?;
                }
                self.w_num("frame", fr as f64 + frac);
            }
            Param::NextFrame => {
                let n = self.short(&f::NEXT_FRAME)?;
                self.w_int("next", n);
            }
            Param::Flags1 => self.flags1()?,
            Param::Flags2 => {
                let v = self.byte(&f::FLAGS2)?;
                self.w_hex("flags2", v.into());
            }
            Param::Type => {
                let n = self.string(&f::FILE_NAME)?;
                self.w_fmt(format_args!("type {n}"));
            }
            Param::Scale => {
                let defs = [&f::SCALE_X, &f::SCALE_Y, &f::SCALE_Z];
                let v = self.vec3(&f::SCALE, defs, |p, def| p.short_times(def, 0.25))?;
                self.w_xyz("scale", v);
            }
            Param::Ambient => {
                self.converted_word(&f::AMBIENT, "ambient", |p, d| p.scale(d, 100.0))?
            }
            Param::Albedo => self.converted_word(&f::ALBEDO, "albedo", |p, d| p.scale(d, 255.0))?,
            Param::Skin => {
                let v = self.byte(&f::SKIN)?;
                self.w_int("skin", v);
            }
            Param::Lightrange => {
                self.converted_word(&f::LIGHTRANGE, "light", |p, d| p.scale(d, 2000.0))?
            }
            Param::Color => self.color()?,
            Param::Alpha => self.converted_word(&f::ALPHA, "alpha", |p, d| p.scale(d, 100.0))?,
            Param::Uv => self.uv()?,
        }
        Ok(())
    }

    /// Reads one converted value and adds `word value` to the summary.
    fn converted_word(
        &mut self,
        def: &'static FieldDef,
        word: &str,
        read: impl Fn(&mut Self, &'static FieldDef) -> Step<f64>,
    ) -> Step<()> {
        let v = read(self, def)?;
        self.w_num(word, v);
        Ok(())
    }

    /// flags1: A5 a Byte; A6+ a Short carrying entity flags 8..23.
    fn flags1(&mut self) -> Step<()> {
        let v = if self.dialect == Dialect::A6 {
            let (at, b) = self.take::<2>(&f::FLAGS)?;
            let v = u16::from_le_bytes(b) as u64;
            self.d.add(&f::FLAGS, Value::UInt(v), at, 2);
            if self.d.tree.detail()
                && let Some(last) = self.d.tree.last_mut()
            {
                // Shifted back into place.
                last.meaning = Some(format!("flags mask {:#x}", v << 8).into());
            }
            v
        } else {
            self.byte(&f::FLAGS)? as u64
        };
        self.w_hex("flags", v);
        Ok(())
    }

    /// Colour: Scale(255) × 3, A5 in the order blue, green, red, A6+ red, green, blue.
    fn color(&mut self) -> Step<()> {
        let a5 = self.dialect == Dialect::A5;
        let order = if a5 {
            [&f::BLUE, &f::GREEN, &f::RED]
        } else {
            [&f::RED, &f::GREEN, &f::BLUE]
        };
        let v = self.vec3(&f::COLOR, order, |p, def| p.scale(def, 255.0))?;
        let rgb = if a5 { [v[2], v[1], v[0]] } else { v };
        self.w_xyz("rgb", rgb);
        Ok(())
    }

    /// uv: A5 Short U, Short V (/16); A6+ Fixed U, V.
    fn uv(&mut self) -> Step<()> {
        let (u, v) = if self.dialect == Dialect::A5 {
            (
                self.short_times(&f::U, 1.0 / 16.0)?,
                self.short_times(&f::V, 1.0 / 16.0)?,
            )
        } else {
            (self.fixed(&f::U)?, self.fixed(&f::V)?)
        };
        if let Some(l) = self.line() {
            l.push_str(" uv ");
            fmt_num_into(l, u);
            l.push(',');
            fmt_num_into(l, v);
        }
        Ok(())
    }
}

/// The message loop.
impl<'a> P<'a> {
    fn new(data: &'a [u8], dialect: Dialect, pos: PosMode, detail: bool, words: Words) -> P<'a> {
        P {
            d: Dissector::new(data, detail),
            dialect,
            pos,
            used_cpos: false,
            saw_sync: false,
            saw_local: false,
            fills: 0,
            words,
            showing: false,
            quiet: false,
        }
    }

    /// A trial parse: see [`P::quiet`].
    fn quiet(data: &'a [u8], dialect: Dialect, pos: PosMode) -> P<'a> {
        P {
            quiet: true,
            ..P::new(data, dialect, pos, false, Words::default())
        }
    }

    fn fit(&self, clean: bool) -> Fit {
        Fit {
            clean,
            used_cpos: self.used_cpos,
            saw_sync: self.saw_sync,
            saw_local: self.saw_local,
        }
    }

    /// One message: its group, command field and arguments; its summary goes into `out`.
    fn next(&mut self, cmd: u8, to_server: bool, base: usize, out: &mut Parsed) -> Step<()> {
        let start = self.d.pos();
        let known = command_name(to_server, self.dialect, cmd).zip(message_def(to_server, cmd));
        let Some((name, def)) = known else {
            let side = if to_server { "client" } else { "server" };
            let msg = || {
                format!(
                    "unknown {side} command {cmd:#04x} at offset {}",
                    start + base
                )
            };
            return Err(self.stop(&notes::UNKNOWN_COMMAND, &f::CMD, (start, 1), msg));
        };
        if self.quiet {
            self.d.cur.seek(start + 1);
            return self.message(to_server, cmd);
        }
        self.d.open(def);
        self.d.tree.set_group_meaning(name);
        self.d.cur.seek(start + 1);
        self.d.add(&f::CMD, Value::Enum(cmd as i64, name), start, 1);
        let fill = cmd == Cls::FILL.0;
        self.showing = !fill && self.words.start();
        if self.showing {
            self.words.text.push_str(name);
        }
        let r = self.message(to_server, cmd);
        self.showing = false;
        self.d.close();
        if fill {
            self.fills += 1;
        } else {
            out.first_name = out.first_name.or(Some(name));
            out.messages += 1;
            self.words.count += 1;
        }
        r
    }

    /// The undecoded rest, the fill count, and the tree moved to the buffer's place; gives back
    /// the summary words.
    fn finish(mut self, base: usize, out: &mut Parsed) -> Words {
        if !self.d.cur.is_empty() && self.d.tree.detail() {
            let at = self.d.pos();
            let rest = self.d.cur.rest();
            self.d
                .add(&f::UNDECODED, Value::Bytes(rest.into()), at, rest.len());
        }
        if self.fills > 0 {
            if self.words.start() {
                let _ = write!(self.words.text, "{} fill", self.fills);
            }
            self.words.count += 1;
        }
        out.used_cpos = self.used_cpos;
        out.saw_sync = self.saw_sync;
        out.saw_local = self.saw_local;
        let detail = self.d.tree.detail();
        let end = self.d.cur.len();
        let (mut fields, mut notes) = if detail {
            let mut rec = crate::tree::Record::new("gamestudio");
            self.d.tree.finish_into(end, &mut rec);
            (rec.fields, rec.notes)
        } else {
            // No tree: only the notes, taken as they are.
            (Vec::new(), std::mem::take(&mut self.d.tree.notes))
        };
        for fld in &mut fields {
            shift(fld, base);
        }
        for n in &mut notes {
            if let Some(ps) = &mut n.pos {
                ps.offset = ps.offset.saturating_add(base as u32);
            }
        }
        out.fields = fields;
        out.notes = notes;
        self.words
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
    let mut words = Words::default();
    let (d, p) = (dialect, pos);
    parse_with(data, base, (to_server, d, p), detail, &mut words)
}

/// [`parse`], writing the messages' summaries after those already in `words` (the earlier
/// buffers of the datagram).
pub fn parse_with(
    data: &[u8],
    base: usize,
    (to_server, dialect, pos): (bool, Dialect, PosMode),
    detail: bool,
    words: &mut Words,
) -> Parsed {
    let mut p = P::new(data, dialect, pos, detail, std::mem::take(words));
    let mut out = Parsed {
        clean: true,
        ..Parsed::default()
    };
    while let Some(cmd) = p.d.cur.peek_u8() {
        if p.next(cmd, to_server, base, &mut out).is_err() {
            out.clean = false;
            break;
        }
    }
    *words = p.finish(base, &mut out);
    out
}

/// Whether a buffer parses exactly, reading at most `budget` bytes of whole messages: `None`
/// when the budget ran out first (nothing proven either way). Probes use it so that what they
/// spend on a datagram does not grow with its length.
pub fn parses_within(
    data: &[u8],
    to_server: bool,
    dialect: Dialect,
    pos: PosMode,
    budget: usize,
) -> Option<bool> {
    check_within(data, to_server, dialect, pos, budget).map(|fit| fit.clean)
}

/// A trial parse of a whole buffer: what [`parse`] would find out, without building anything.
pub fn check(data: &[u8], to_server: bool, dialect: Dialect, pos: PosMode) -> Fit {
    // Without a budget the parse always ends (every message consumes its command byte).
    check_within(data, to_server, dialect, pos, usize::MAX).unwrap_or_default()
}

/// [`check`] reading at most `budget` bytes of whole messages (None: the budget ran out).
fn check_within(
    data: &[u8],
    to_server: bool,
    dialect: Dialect,
    pos: PosMode,
    budget: usize,
) -> Option<Fit> {
    let mut p = P::quiet(data, dialect, pos);
    let mut out = Parsed::default();
    while let Some(cmd) = p.d.cur.peek_u8() {
        if p.d.pos() >= budget {
            return None;
        }
        if p.next(cmd, to_server, 0, &mut out).is_err() {
            return Some(p.fit(false));
        }
    }
    Some(p.fit(true))
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

#[cfg(test)]
mod tests {
    use super::fmt_num;

    /// What `fmt_num` wrote before it avoided the formatter: the definition it must match.
    fn by_formatter(v: f64) -> String {
        let s = format!("{v:.3}");
        let s = s.trim_end_matches('0').trim_end_matches('.');
        if s == "-0" { "0".into() } else { s.into() }
    }

    #[test]
    fn numbers_read_as_the_formatter_writes_them() {
        let mut values = vec![
            0.0,
            -0.0,
            0.0005,
            -0.0005,
            0.0015,
            1.0,
            -1.5,
            100.0,
            1234.5678,
            -0.0004,
            4_294_967.295,
            4_294_967.296,
            1e12,
            -1e12,
            f64::NAN,
            -f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::MIN_POSITIVE,
        ];
        // Every fixed-point value with 10 fraction bits in a range (GameStudio's FIXED is
        // 22.10), and f32 values scattered over magnitudes.
        values.extend((-40_000..40_000).map(|i| i as f64 / 1024.0));
        let mut x = 0x1234_5678u32;
        for _ in 0..20_000 {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            values.push(f32::from_bits(x) as f64);
        }
        for v in values {
            assert_eq!(fmt_num(v), by_formatter(v), "{v:?}");
        }
    }
}
