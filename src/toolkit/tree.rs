//! The one field-tree model every decoder fills and every output mode reads.
//!
//! A decoder declares its fields once, as `static` [`FieldDef`]s (the equivalent of Wireshark's
//! `hf_register_info`), and builds a [`Record`] per message out of [`Field`] nodes that point at
//! those definitions. Because a node can only be made from a registered definition, the field
//! reference (`docs/fields.md`, `gamedissect fields`) is generated from the same statics and can
//! never miss a field a decoder emits.

use std::borrow::Cow;

static DISCARDED: FieldDef = FieldDef::group("discarded", "Discarded field");

/// The type of a field's value; decides how outputs render it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A grouping node without a value of its own.
    Group,
    UInt,
    Int,
    Float,
    Bool,
    /// Text. Bytes that are not UTF-8 are kept as bytes and rendered as such.
    Str,
    /// Binary data, rendered as hex.
    Bytes,
    /// A number with a symbolic name (open enum: unknown numbers keep their value).
    Enum,
    /// A value whose type varies from one occurrence to the next (a FlightGear property is an
    /// int, a float, a bool or text by its id); bytes in it are text that is not UTF-8.
    Any,
}

impl Kind {
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Group => "group",
            Kind::UInt => "uint",
            Kind::Int => "int",
            Kind::Float => "float",
            Kind::Bool => "bool",
            Kind::Str => "string",
            Kind::Bytes => "bytes",
            Kind::Enum => "enum",
            Kind::Any => "any",
        }
    }
}

/// Which fields each of a protocol's message types can carry, so that a typed output (Parquet)
/// gives a type's files the columns of those fields rather than the protocol's whole tree. A
/// type no entry names carries the whole tree. Names are `FieldDef` names: each brings what is
/// under it and what it [`holds`](FieldDef::holds), and the groups above it.
#[derive(Debug)]
pub struct TypeFields {
    /// Fields every named type carries.
    pub common: &'static [&'static str],
    /// Type names (`prefix*` for every type starting with `prefix`) and the fields beside
    /// `common` that their records can carry; the first entry naming a type decides.
    pub by_type: &'static [(&'static [&'static str], &'static [&'static str])],
}

impl TypeFields {
    /// No type named: every type carries the whole tree.
    pub const WHOLE: TypeFields = TypeFields {
        common: &[],
        by_type: &[],
    };

    /// The fields records of `msg_type` can carry, `None` for the whole tree.
    pub fn of(&self, msg_type: &str) -> Option<Vec<&'static str>> {
        let named = |pattern: &str| match pattern.strip_suffix('*') {
            Some(prefix) => msg_type.starts_with(prefix),
            None => msg_type == pattern,
        };
        let (_, fields) = self
            .by_type
            .iter()
            .find(|(types, _)| types.iter().any(|t| named(t)))?;
        Some(self.common.iter().chain(fields.iter()).copied().collect())
    }
}

/// A registered field: stable dotted name, label for humans, value type.
#[derive(Debug)]
pub struct FieldDef {
    /// Dotted, stable, unique: `quake3.snapshot.server_time`.
    pub name: &'static str,
    /// Human label shown in the tree.
    pub label: &'static str,
    pub kind: Kind,
    /// The field may occur several times under one parent: JSON renders it as an array always,
    /// even when only one occurrence is present, so scripts see one shape.
    pub repeated: bool,
    /// Unit appended to the value in the tree (`ms`, `°`, `ft`).
    pub unit: &'static str,
    /// Integers shown in hex in the tree (JSON keeps numbers).
    pub hex: bool,
    /// One-line description for the field reference.
    pub desc: &'static str,
    /// Where the last dotted segment of `name` starts: the field's JSON key.
    key_start: usize,
    /// A valued field that can have children (`flightgear.range_word` and its readings): JSON
    /// always writes it as an object with its value under `value`, children or not.
    pub nests: bool,
    /// A group whose children are key/value pairs (a key leaf, an enum or text, then its value):
    /// JSON writes it as one object keyed by each key's name or text, in order, and the text
    /// tree as one `key: value` line per pair (see [`FieldDef::map`]).
    pub map: bool,
    /// The kind of the value a group carries of its own (`srb2.tics.tic` is its tic number),
    /// `None` for a group without one; declared with [`FieldDef::valued`], so that typed
    /// outputs (Parquet) know its column without seeing data.
    pub group_value: Option<Kind>,
    /// Fields named outside this one's dotted name that a decoder places under it (a Quake 3
    /// snapshot entity reused as a gamestate baseline): each a field name, or `prefix.*` for
    /// every field directly under a name prefix. Declared with [`FieldDef::holds`]; with the
    /// dotted names they make the registry's whole tree (docs/parquet.md).
    pub holds: &'static [&'static str],
}

impl FieldDef {
    const fn new(kind: Kind, name: &'static str, label: &'static str) -> FieldDef {
        let bytes = name.as_bytes();
        let mut key_start = bytes.len();
        while key_start > 0 && bytes[key_start - 1] != b'.' {
            key_start -= 1;
        }
        FieldDef {
            name,
            label,
            kind,
            repeated: false,
            unit: "",
            hex: false,
            desc: "",
            key_start,
            nests: false,
            map: false,
            group_value: None,
            holds: &[],
        }
    }
    pub const fn group(name: &'static str, label: &'static str) -> FieldDef {
        FieldDef::new(Kind::Group, name, label)
    }
    pub const fn uint(name: &'static str, label: &'static str) -> FieldDef {
        FieldDef::new(Kind::UInt, name, label)
    }
    pub const fn int(name: &'static str, label: &'static str) -> FieldDef {
        FieldDef::new(Kind::Int, name, label)
    }
    pub const fn float(name: &'static str, label: &'static str) -> FieldDef {
        FieldDef::new(Kind::Float, name, label)
    }
    pub const fn boolean(name: &'static str, label: &'static str) -> FieldDef {
        FieldDef::new(Kind::Bool, name, label)
    }
    pub const fn string(name: &'static str, label: &'static str) -> FieldDef {
        FieldDef::new(Kind::Str, name, label)
    }
    pub const fn bytes(name: &'static str, label: &'static str) -> FieldDef {
        FieldDef::new(Kind::Bytes, name, label)
    }
    pub const fn enumeration(name: &'static str, label: &'static str) -> FieldDef {
        FieldDef::new(Kind::Enum, name, label)
    }
    pub const fn any(name: &'static str, label: &'static str) -> FieldDef {
        FieldDef::new(Kind::Any, name, label)
    }

    /// Bytes in this field are text (shown quoted, `{"bytes": base64}` in JSON), not binary data.
    pub fn holds_text(&self) -> bool {
        matches!(self.kind, Kind::Str | Kind::Any)
    }
    pub const fn repeated(mut self) -> FieldDef {
        self.repeated = true;
        self
    }
    pub const fn unit(mut self, unit: &'static str) -> FieldDef {
        self.unit = unit;
        self
    }
    /// Declares that this valued field can have children (see [`FieldDef::nests`]).
    pub const fn nests(mut self) -> FieldDef {
        self.nests = true;
        self
    }
    /// Declares a group of key/value pairs: FlightGear's properties are written as
    /// `{"sim/multiplay/chat": "hi", …}` without a tree node per element.
    pub const fn map(mut self) -> FieldDef {
        self.map = true;
        self
    }
    /// Declares the kind of the value this group carries (see [`FieldDef::group_value`]).
    pub const fn valued(mut self, kind: Kind) -> FieldDef {
        self.group_value = Some(kind);
        self
    }
    /// Declares fields named elsewhere that sit under this one (see [`FieldDef::holds`]).
    pub const fn holds(mut self, names: &'static [&'static str]) -> FieldDef {
        self.holds = names;
        self
    }
    pub const fn hex(mut self) -> FieldDef {
        self.hex = true;
        self
    }
    pub const fn desc(mut self, desc: &'static str) -> FieldDef {
        self.desc = desc;
        self
    }

    /// The JSON key under the parent's object: the last segment of the dotted name. A field
    /// reused under several parents (a Quake 3 entity as a snapshot entity and as a gamestate
    /// baseline, an SRB2 ticcmd in a tic and in a PT_CLIENTCMD) keeps one name for filters and
    /// one key wherever it sits, and no key contains a dot.
    pub fn key(&self) -> &'static str {
        // `key_start` follows an ASCII '.' (or is 0), so it is a character boundary.
        self.name.get(self.key_start..).unwrap_or(self.name)
    }
    /// Whether JSON writes an occurrence as an object: a group always, a valued field when it
    /// is declared to nest or has children in this occurrence.
    pub fn is_object(&self) -> bool {
        self.kind == Kind::Group || self.nests
    }
}

/// Declares a protocol's fields as statics plus an `ALL` slice listing them in order.
///
/// ```
/// mod fields {
///     gamedissect::field_defs! {
///         NETCHAN = group("quake3.netchan", "Netchan header");
///         SEQUENCE = uint("quake3.netchan.sequence", "Sequence").desc("Outgoing sequence number");
///     }
/// }
/// assert_eq!(fields::ALL.len(), 2);
/// assert_eq!(fields::SEQUENCE.name, "quake3.netchan.sequence");
/// assert_eq!(fields::SEQUENCE.key(), "sequence");
/// ```
#[macro_export]
macro_rules! field_defs {
    ($( $(#[$meta:meta])* $id:ident = $ctor:ident ( $($args:tt)* ) $( . $m:ident ( $($margs:tt)* ) )* ; )*) => {
        $( $(#[$meta])* pub static $id: $crate::tree::FieldDef =
            $crate::tree::FieldDef::$ctor($($args)*) $( . $m ( $($margs)* ) )* ; )*
        /// Every field this module declares, in declaration order.
        pub static ALL: &[&$crate::tree::FieldDef] = &[ $( &$id ),* ];
    };
}

/// Two definitions are the same field when they have the same name (names are unique).
impl PartialEq for FieldDef {
    fn eq(&self, other: &FieldDef) -> bool {
        self.name == other.name
    }
}

/// A typed value.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    None,
    UInt(u64),
    Int(i64),
    F32(f32),
    F64(f64),
    Bool(bool),
    Str(Box<str>),
    /// Binary data, or text that is not UTF-8.
    Bytes(Box<[u8]>),
    /// Number and its symbolic name (empty when the number is unknown).
    Enum(i64, &'static str),
}

impl Value {
    /// Text from wire bytes: a string when it is UTF-8, bytes otherwise (never lossy).
    pub fn text(bytes: &[u8]) -> Value {
        match std::str::from_utf8(bytes) {
            Ok(s) => Value::Str(s.into()),
            Err(_) => Value::Bytes(bytes.into()),
        }
    }
}

/// Where a field sits: in which data source (0 = the UDP payload), at which byte or bit range.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Pos {
    pub source: u8,
    /// Offsets and lengths count bits instead of bytes.
    pub bits: bool,
    pub offset: u32,
    pub len: u32,
}

impl Pos {
    pub fn bytes(offset: usize, len: usize) -> Pos {
        Pos {
            source: 0,
            bits: false,
            offset: offset as u32,
            len: len as u32,
        }
    }
    pub fn bits(offset: usize, len: usize) -> Pos {
        Pos {
            source: 0,
            bits: true,
            offset: offset as u32,
            len: len as u32,
        }
    }
    pub fn in_source(mut self, source: u8) -> Pos {
        self.source = source;
        self
    }
    /// End offset in this position's unit.
    pub fn end(&self) -> u32 {
        self.offset.saturating_add(self.len)
    }
}

/// One node of the tree.
#[derive(Debug, Clone, PartialEq)]
pub struct Field {
    pub def: &'static FieldDef,
    pub value: Value,
    /// What the value means, for humans (`180.0°` is the unit; this is `PT_SERVERINFO`,
    /// `unknown id`, `client → server`).
    pub meaning: Option<Box<str>>,
    pub pos: Pos,
    pub children: Vec<Field>,
}

impl Field {
    pub fn new(def: &'static FieldDef, value: Value, pos: Pos) -> Field {
        Field {
            def,
            value,
            meaning: None,
            pos,
            children: Vec::new(),
        }
    }

    /// The first descendant (depth first, self included) with this field name.
    pub fn find(&self, name: &str) -> Option<&Field> {
        if self.def.name == name {
            return Some(self);
        }
        self.children.iter().find_map(|c| c.find(name))
    }

    /// Every descendant (self included) with this field name, depth first.
    pub fn find_all<'a>(&'a self, name: &str, out: &mut Vec<&'a Field>) {
        if self.def.name == name {
            out.push(self);
        }
        for c in &self.children {
            c.find_all(name, out);
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    Note,
    Warning,
    Error,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Note => "note",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

/// A registered expert note, the equivalent of Wireshark's `ei_register_info`: a stable dotted
/// name (`expert.<protocol>.<what>`, or `expert.<what>` for notes of the toolkit and the
/// plumbing), its severity and a one-line summary. Every note a decoder adds names its
/// definition, so notes can be counted and filtered by kind, and `docs/fields.md` lists them.
#[derive(Debug)]
pub struct NoteDef {
    pub name: &'static str,
    pub severity: Severity,
    pub summary: &'static str,
}

impl NoteDef {
    pub const fn error(name: &'static str, summary: &'static str) -> NoteDef {
        NoteDef {
            name,
            severity: Severity::Error,
            summary,
        }
    }
    pub const fn warning(name: &'static str, summary: &'static str) -> NoteDef {
        NoteDef {
            name,
            severity: Severity::Warning,
            summary,
        }
    }
    pub const fn note(name: &'static str, summary: &'static str) -> NoteDef {
        NoteDef {
            name,
            severity: Severity::Note,
            summary,
        }
    }
}

impl PartialEq for NoteDef {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
    }
}

/// An expert note: `error` = malformed, `warning` = suspicious, `note` = worth knowing.
#[derive(Debug, Clone, PartialEq)]
pub struct Note {
    /// The registered kind of note, which gives its severity.
    pub def: &'static NoteDef,
    pub message: String,
    /// The field the note is about, when there is one.
    pub field: Option<&'static str>,
    pub pos: Option<Pos>,
}

/// Extra bytes a decoder derived (reassembled, decompressed, de-keyed) that fields may point into.
#[derive(Debug, Clone, PartialEq)]
pub struct Source {
    pub name: Cow<'static, str>,
    pub data: Vec<u8>,
}

/// One decoded message: what every output mode renders.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Record {
    /// Protocol short name (`quake3`), or `udp` when no decoder claimed the datagram.
    pub protocol: &'static str,
    /// The message type, for statistics (`snapshot`, `PT_SERVERTICS`).
    pub msg_type: Cow<'static, str>,
    /// The one-line info.
    pub summary: String,
    /// Top-level layers (usually one node named after the protocol).
    pub fields: Vec<Field>,
    pub notes: Vec<Note>,
    /// Data sources 1.. (source 0 is the UDP payload).
    pub sources: Vec<Source>,
}

impl Record {
    pub fn new(protocol: &'static str) -> Record {
        Record {
            protocol,
            msg_type: Cow::Borrowed(""),
            summary: String::new(),
            fields: Vec::new(),
            notes: Vec::new(),
            sources: Vec::new(),
        }
    }

    pub fn worst(&self) -> Option<Severity> {
        self.notes.iter().map(Note::severity).max()
    }

    pub fn has_errors(&self) -> bool {
        self.worst() == Some(Severity::Error)
    }

    /// The first field with this name anywhere in the record.
    pub fn find(&self, name: &str) -> Option<&Field> {
        self.fields.iter().find_map(|f| f.find(name))
    }

    /// Every field with this name anywhere in the record, in tree order.
    pub fn find_all(&self, name: &str) -> Vec<&Field> {
        let mut out = Vec::new();
        for f in &self.fields {
            f.find_all(name, &mut out);
        }
        out
    }

    /// Adds a registered note (its severity comes from the definition).
    pub fn expert(
        &mut self,
        def: &'static NoteDef,
        field: Option<&'static FieldDef>,
        message: impl Into<String>,
    ) {
        self.notes.push(Note::new(def, field, None, message));
    }
}

impl Note {
    /// A note of a registered kind.
    pub fn new(
        def: &'static NoteDef,
        field: Option<&'static FieldDef>,
        pos: Option<Pos>,
        message: impl Into<String>,
    ) -> Note {
        Note {
            def,
            message: message.into(),
            field: field.map(|d| d.name),
            pos,
        }
    }

    /// The registered name of the note's kind (`expert.…`).
    pub fn name(&self) -> &'static str {
        self.def.name
    }

    pub fn severity(&self) -> Severity {
        self.def.severity
    }
}

/// Builds a tree with a stack of open groups, the way Wireshark's `proto_tree_add_subtree` does,
/// so decoders write straight-line code and never juggle borrows.
#[derive(Debug)]
pub struct TreeBuilder {
    stack: Vec<Field>,
    roots: Vec<Field>,
    pub notes: Vec<Note>,
    /// Fields are thrown away (see [`TreeBuilder::new`]); `scratch` stands in for the last one.
    discard: bool,
    scratch: Field,
    discarded_depth: usize,
    /// Only these fields are kept (see [`Detail::Only`]); the others are dropped as with
    /// `discard`, an unwanted group's wanted descendants going to the nearest kept level.
    mask: Option<&'static FieldMask>,
    /// With a mask: open levels, kept or skipped.
    levels: usize,
    /// With a mask: bit `i` set when open level `i` (below 64) was skipped; deeper levels are
    /// always kept, which a filter cannot tell apart (it finds fields by name at any depth).
    skips: u64,
    /// With a mask: the last field added or closed was dropped, so `last_mut` is the scratch.
    last_skipped: bool,
}

/// Which fields a decoder's trees keep: none (summary and statistics), all (tree and JSON
/// output), or only those a display filter or `-e` columns read, with their relatives by name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Detail {
    None,
    All,
    Only(&'static FieldMask),
}

impl Detail {
    /// Whether trees are built at all (decoders skip work that only feeds trees without it).
    pub fn on(self) -> bool {
        self != Detail::None
    }
}

impl From<bool> for Detail {
    fn from(on: bool) -> Detail {
        if on { Detail::All } else { Detail::None }
    }
}

/// A set of registered fields a tree keeps, by definition address: the named fields, the
/// fields whose names are dotted prefixes of them (their parents) and the fields named under
/// them (their children, which a group's presence or value may stand for).
#[derive(Debug, PartialEq, Eq)]
pub struct FieldMask {
    wanted: Box<[usize]>,
    /// The names of the wanted fields, for [`TreeBuilder::keeps_under`].
    names: Box<[&'static str]>,
}

impl FieldMask {
    /// The mask for `names` over every field of `all`.
    pub fn new<'a>(names: &[&str], all: impl IntoIterator<Item = &'a &'static FieldDef>) -> Self {
        let related = |def: &FieldDef, n: &str| {
            let (short, long) = if def.name.len() <= n.len() {
                (def.name, n)
            } else {
                (n, def.name)
            };
            long.strip_prefix(short)
                .is_some_and(|rest| rest.is_empty() || rest.starts_with('.'))
        };
        let defs: Vec<&'static FieldDef> = all
            .into_iter()
            .filter(|def| names.iter().any(|n| related(def, n)))
            .copied()
            .collect();
        let mut wanted: Vec<usize> = defs
            .iter()
            .map(|&def| std::ptr::from_ref::<FieldDef>(def) as usize)
            .collect();
        wanted.sort_unstable();
        wanted.dedup();
        FieldMask {
            wanted: wanted.into(),
            names: defs.iter().map(|def| def.name).collect(),
        }
    }

    /// Whether a field named `group` or under it is wanted.
    pub fn wants_under(&self, group: &str) -> bool {
        self.names.iter().any(|n| {
            n.strip_prefix(group)
                .is_some_and(|rest| rest.is_empty() || rest.starts_with('.'))
        })
    }

    #[inline]
    pub fn wants(&self, def: &'static FieldDef) -> bool {
        let addr = std::ptr::from_ref(def) as usize;
        self.wanted.binary_search(&addr).is_ok()
    }

    /// How many registered fields the mask keeps.
    pub fn len(&self) -> usize {
        self.wanted.len()
    }

    pub fn is_empty(&self) -> bool {
        self.wanted.is_empty()
    }
}

/// An empty builder that keeps fields: a placeholder for `std::mem::take`.
impl Default for TreeBuilder {
    fn default() -> Self {
        TreeBuilder::new(true)
    }
}

impl TreeBuilder {
    /// A builder that keeps fields when `detail` is set. Without detail (the summary and stats
    /// modes, which show only summaries, notes and counts) it discards fields and keeps notes,
    /// so decoders skip the cost of building trees nobody prints; the engine passes the flag in
    /// [`crate::proto::Datagram::detail`].
    /// With [`Detail::Only`] it keeps only the mask's fields.
    pub fn new(detail: impl Into<Detail>) -> TreeBuilder {
        let detail = detail.into();
        TreeBuilder {
            stack: Vec::new(),
            roots: Vec::new(),
            notes: Vec::new(),
            discard: detail == Detail::None,
            scratch: Field::new(&DISCARDED, Value::None, Pos::default()),
            discarded_depth: 0,
            mask: match detail {
                Detail::Only(m) => Some(m),
                _ => None,
            },
            levels: 0,
            skips: 0,
            last_skipped: false,
        }
    }

    /// Whether `def` is dropped by the mask (never without one).
    #[inline]
    fn masked_out(&self, def: &'static FieldDef) -> bool {
        self.mask.is_some_and(|m| !m.wants(def))
    }

    fn scratch(&mut self) -> &mut Field {
        if !self.scratch.children.is_empty() {
            // Nothing a caller hung under a discarded node may pile up.
            self.scratch.children.clear();
        }
        &mut self.scratch
    }

    fn siblings(&mut self) -> &mut Vec<Field> {
        match self.stack.last_mut() {
            Some(top) => &mut top.children,
            None => &mut self.roots,
        }
    }

    /// Adds a leaf under the innermost open group; returns it so a meaning can be attached.
    /// While fields are discarded this only drops the value and hands back the scratch node
    /// (inlined, so a discarded field costs a branch at the call site).
    #[inline]
    pub fn add(&mut self, def: &'static FieldDef, value: Value, pos: Pos) -> &mut Field {
        if self.discard {
            drop(value);
            return self.scratch();
        }
        if self.mask.is_some() {
            self.last_skipped = self.masked_out(def);
            if self.last_skipped {
                drop(value);
                return self.scratch();
            }
        }
        self.push_leaf(Field::new(def, value, pos))
    }

    /// Adds a text leaf ([`Value::text`]); while fields are discarded the text is not even
    /// converted (decoders add command lines and info strings on every message).
    #[inline]
    pub fn add_text(&mut self, def: &'static FieldDef, bytes: &[u8], pos: Pos) -> &mut Field {
        if self.discard || self.masked_out(def) {
            return self.add(def, Value::None, pos);
        }
        self.last_skipped = false;
        self.push_leaf(Field::new(def, Value::text(bytes), pos))
    }

    #[inline(never)]
    fn push_leaf(&mut self, field: Field) -> &mut Field {
        let list = self.siblings();
        list.push(field);
        list.last_mut().expect("just pushed")
    }

    /// Whether fields are kept (see [`TreeBuilder::new`]).
    pub fn detail(&self) -> bool {
        !self.discard
    }

    /// Whether a field named as `group` or under it would be kept: decoders skip computing
    /// values for a whole part of the tree (a Quake 3 entity's fields) nobody keeps.
    pub fn keeps_under(&self, group: &'static FieldDef) -> bool {
        !self.discard && self.mask.is_none_or(|m| m.wants_under(group.name))
    }

    /// Makes room for `additional` more nodes at the current level (a capacity hint: the tree
    /// is the same with or without it; nothing happens while fields are discarded).
    pub fn reserve(&mut self, additional: usize) {
        if !self.discard {
            self.siblings().reserve(additional);
        }
    }

    /// Adds a leaf with a meaning.
    pub fn add_meaning(
        &mut self,
        def: &'static FieldDef,
        value: Value,
        pos: Pos,
        meaning: impl Into<Box<str>>,
    ) {
        self.add(def, value, pos).meaning = Some(meaning.into());
    }

    /// Opens a group (with or without a value of its own) at `pos`; its length is fixed on close.
    #[inline]
    pub fn open(&mut self, def: &'static FieldDef, value: Value, pos: Pos) {
        if self.discard {
            self.discarded_depth += 1;
            return;
        }
        if self.mask.is_some() {
            let level = self.levels;
            self.levels += 1;
            if level < 64 && self.masked_out(def) {
                self.skips |= 1 << level;
                return;
            }
            self.last_skipped = false;
        }
        self.push_group(Field::new(def, value, pos));
    }

    /// With a mask, leaves the innermost level; whether it was a skipped group.
    #[inline]
    fn leave_skipped(&mut self) -> bool {
        if self.mask.is_none() || self.levels == 0 {
            return false;
        }
        self.levels -= 1;
        let bit = 1u64.checked_shl(self.levels as u32).unwrap_or(0);
        let skipped = self.skips & bit != 0;
        self.skips &= !bit;
        self.last_skipped = skipped;
        skipped
    }

    /// With a mask, whether the innermost open level is a skipped group.
    fn innermost_skipped(&self) -> bool {
        self.mask.is_some()
            && self.levels > 0
            && self.skips & 1u64.checked_shl(self.levels as u32 - 1).unwrap_or(0) != 0
    }

    #[inline(never)]
    fn push_group(&mut self, field: Field) {
        self.stack.push(field);
    }

    /// Sets the meaning of the innermost open group.
    pub fn set_group_meaning(&mut self, meaning: impl Into<Box<str>>) {
        if self.innermost_skipped() {
            return;
        }
        if let Some(top) = self.stack.last_mut() {
            top.meaning = Some(meaning.into());
        }
    }

    /// Closes the innermost group, setting its end (same unit as its start).
    #[inline]
    pub fn close(&mut self, end: usize) {
        if self.discard {
            self.discarded_depth = self.discarded_depth.saturating_sub(1);
            return;
        }
        if self.leave_skipped() {
            return;
        }
        if let Some(mut top) = self.stack.pop() {
            top.pos.len = (end as u32).saturating_sub(top.pos.offset);
            self.siblings().push(top);
        }
    }

    /// Closes the innermost group keeping the length it was opened with.
    #[inline]
    pub fn close_as_is(&mut self) {
        if self.discard {
            self.discarded_depth = self.discarded_depth.saturating_sub(1);
            return;
        }
        if self.leave_skipped() {
            return;
        }
        if let Some(top) = self.stack.pop() {
            self.siblings().push(top);
        }
    }

    pub fn depth(&self) -> usize {
        if self.discard {
            self.discarded_depth
        } else if self.mask.is_some() {
            self.levels
        } else {
            self.stack.len()
        }
    }

    /// The last leaf or closed group added at the current level.
    pub fn last_mut(&mut self) -> Option<&mut Field> {
        if self.discard || (self.mask.is_some() && self.last_skipped) {
            return Some(&mut self.scratch);
        }
        self.siblings().last_mut()
    }

    /// Adds a registered note (its severity comes from the definition).
    pub fn expert(
        &mut self,
        def: &'static NoteDef,
        field: Option<&'static FieldDef>,
        pos: Option<Pos>,
        message: impl Into<String>,
    ) {
        self.notes.push(Note::new(def, field, pos, message));
    }

    /// Closes every open group at `end` and moves the tree and notes into `record`.
    pub fn finish_into(mut self, end: usize, record: &mut Record) {
        if self.discard {
            record.notes.append(&mut self.notes);
            return;
        }
        while !self.stack.is_empty() || self.levels > 0 {
            self.close(end);
        }
        record.fields.append(&mut self.roots);
        record.notes.append(&mut self.notes);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    static ROOT: FieldDef = FieldDef::group("test", "Test");
    static GROUP: FieldDef = FieldDef::group("test.group", "Group");
    static LEAF: FieldDef = FieldDef::uint("test.group.leaf", "Leaf").repeated();
    static OTHER: FieldDef = FieldDef::uint("other.leaf", "Other");
    static RAN_OUT: NoteDef = NoteDef::error("expert.test.ran_out", "Test note");

    /// A mask keeps the wanted leaf and its named parents; an unwanted group in between hands
    /// the leaf to the nearest kept level, and what is said of dropped nodes goes nowhere.
    #[test]
    fn a_mask_keeps_wanted_fields_and_their_parents() {
        static MID: FieldDef = FieldDef::group("other", "Unwanted group");
        let mask: &'static FieldMask = Box::leak(Box::new(FieldMask::new(
            &["test.group.leaf"],
            &[&ROOT, &GROUP, &LEAF, &OTHER, &MID],
        )));
        assert_eq!(mask.len(), 3);
        let mut b = TreeBuilder::new(Detail::Only(mask));
        b.open(&ROOT, Value::None, Pos::bytes(0, 0));
        b.add(&OTHER, Value::UInt(1), Pos::bytes(0, 1));
        assert!(std::ptr::eq(b.last_mut().unwrap().def, &DISCARDED));
        b.open(&MID, Value::None, Pos::bytes(1, 0));
        b.set_group_meaning("lost");
        b.add(&LEAF, Value::UInt(7), Pos::bytes(1, 2)).meaning = Some("seven".into());
        assert_eq!(b.depth(), 2);
        b.close(3);
        b.open(&GROUP, Value::None, Pos::bytes(3, 0));
        b.add(&LEAF, Value::UInt(8), Pos::bytes(3, 2));
        let mut r = Record::new("test");
        b.finish_into(5, &mut r);
        assert_eq!(r.fields.len(), 1);
        let root = &r.fields[0];
        assert_eq!(
            (root.def.name, root.pos.len, root.meaning.as_deref()),
            ("test", 5, None)
        );
        let kids: Vec<_> = root
            .children
            .iter()
            .map(|c| (c.def.name, &c.value))
            .collect();
        assert_eq!(
            kids,
            [
                ("test.group.leaf", &Value::UInt(7)),
                ("test.group", &Value::None)
            ]
        );
        assert_eq!(root.children[0].meaning.as_deref(), Some("seven"));
        assert_eq!(root.children[1].children[0].value, Value::UInt(8));
    }

    #[test]
    fn builder_nests_and_sets_group_lengths() {
        let mut b = TreeBuilder::new(true);
        b.open(&ROOT, Value::None, Pos::bytes(0, 0));
        b.open(&GROUP, Value::None, Pos::bytes(2, 0));
        b.add(&LEAF, Value::UInt(7), Pos::bytes(2, 2));
        b.add(&LEAF, Value::UInt(9), Pos::bytes(4, 2));
        b.close(6);
        b.expert(&RAN_OUT, Some(&LEAF), Some(Pos::bytes(6, 1)), "ran out");
        let mut r = Record::new("test");
        b.finish_into(10, &mut r);
        assert_eq!(r.fields.len(), 1);
        let root = &r.fields[0];
        assert_eq!(root.pos, Pos::bytes(0, 10));
        assert_eq!(root.children[0].pos, Pos::bytes(2, 4));
        assert_eq!(r.find_all("test.group.leaf").len(), 2);
        assert_eq!(r.find("test.group.leaf").unwrap().value, Value::UInt(7));
        assert!(r.has_errors());
        assert_eq!(r.notes[0].field, Some("test.group.leaf"));
    }

    #[test]
    fn without_detail_fields_are_discarded_and_notes_kept() {
        let mut b = TreeBuilder::new(false);
        assert!(!b.detail());
        b.open(&ROOT, Value::None, Pos::bytes(0, 0));
        b.add(&LEAF, Value::UInt(7), Pos::bytes(2, 2)).meaning = Some("x".into());
        assert_eq!(b.depth(), 1);
        b.expert(&RAN_OUT, None, None, "kept");
        let mut r = Record::new("test");
        b.finish_into(4, &mut r);
        assert!(r.fields.is_empty());
        assert_eq!(r.notes.len(), 1);
        assert!(TreeBuilder::new(true).detail());
    }

    #[test]
    fn text_leaves_hold_str_or_bytes_and_nothing_while_discarding() {
        static TEXT: FieldDef = FieldDef::string("test.text", "Text");
        let mut b = TreeBuilder::new(true);
        b.add_text(&TEXT, b"say hi", Pos::bytes(0, 6));
        b.add_text(&TEXT, b"\xff\x00", Pos::bytes(6, 2));
        let mut r = Record::new("test");
        b.finish_into(8, &mut r);
        assert_eq!(r.fields[0].value, Value::Str("say hi".into()));
        assert_eq!(r.fields[1].value, Value::Bytes(vec![0xff, 0].into()));
        let mut b = TreeBuilder::new(false);
        b.add_text(&TEXT, b"say hi", Pos::bytes(0, 6)).meaning = Some("m".into());
        let mut r = Record::new("test");
        b.finish_into(6, &mut r);
        assert!(r.fields.is_empty());
    }

    #[test]
    fn json_keys_are_the_last_name_segment() {
        assert_eq!(LEAF.key(), "leaf");
        assert_eq!(GROUP.key(), "group");
        assert_eq!(ROOT.key(), "test");
        assert_eq!(OTHER.key(), "leaf");
    }

    #[test]
    fn text_keeps_non_utf8_as_bytes() {
        assert_eq!(Value::text(b"abc"), Value::Str("abc".into()));
        assert_eq!(
            Value::text(&[0x61, 0xff]),
            Value::Bytes(vec![0x61, 0xff].into())
        );
    }
}
