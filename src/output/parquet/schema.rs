//! The Parquet schema, made from the field registry alone (never from data): one per protocol,
//! narrowed for each message type to the fields the protocol declares the type can carry
//! ([`TypeFields`]), so a column has one type in every file of every capture, and a type's files
//! hold the columns it fills rather than hundreds of nulls.
//!
//! The tree is the registry's: a field's children are the fields whose dotted name extends its
//! own by one segment, plus those it declares it holds ([`FieldDef::holds`]); the roots are a
//! protocol's undotted names (`gamestudio`, `dplay8`, `dplay4`). Each node mirrors what
//! `dissect -f json` writes at the same path (docs/parquet.md).

use std::sync::Arc;

use foldhash::{HashMap, HashSet};

use arrow_schema::{DataType, Field, Fields, Schema, TimeUnit};

use crate::proto::Protocol;
use crate::tree::{FieldDef, Kind, TypeFields};

/// How deep the registry's tree may go: a `holds` that loops is cut here.
const MAX_DEPTH: usize = 24;

/// A field's key in a schema's indexes: its address. Each name is one `static` (`field_defs!`),
/// and an address hashes in one step where a dotted name (`quake3.svc.snapshot.entity…`) took
/// a tenth of a Parquet run in hashing and comparing.
pub fn def_key(def: &'static FieldDef) -> usize {
    std::ptr::from_ref(def) as usize
}

/// One column of a protocol's `fields` struct: a registered field and what it holds.
#[derive(Debug)]
pub struct Node {
    /// The JSON key: the last segment of the field's name.
    pub key: &'static str,
    pub def: &'static FieldDef,
    /// Declared repeated: a list of what `shape` describes.
    pub list: bool,
    pub shape: Shape,
}

/// What one occurrence of a node is.
#[derive(Debug)]
pub enum Shape {
    /// A value without children.
    Leaf(Kind),
    /// A group, or a valued field that nests: its own value first when it has one (`value`, and
    /// `name` for an enum), then one column per child.
    Object {
        own: Option<Kind>,
        children: Vec<Node>,
        /// Child index by field ([`def_key`]).
        index: HashMap<usize, usize>,
    },
    /// Key/value pairs ([`FieldDef::map`]): the key field's text, the value field's node.
    Map {
        key: &'static FieldDef,
        value: Box<Node>,
    },
}

impl Node {
    /// The node of `def` and everything the registry puts under it.
    fn of(def: &'static FieldDef, defs: &[&'static FieldDef], depth: usize) -> Node {
        let kids = if depth < MAX_DEPTH {
            children_of(def, defs)
        } else {
            Vec::new()
        };
        let shape = if def.map && kids.len() >= 2 {
            Shape::Map {
                key: kids[0],
                value: Box::new(Node::of(kids[1], defs, depth + 1)),
            }
        } else if def.kind == Kind::Group || def.nests || !kids.is_empty() {
            let own = if def.kind == Kind::Group {
                def.group_value
            } else {
                Some(def.kind)
            };
            let taken: &[&str] = match own {
                Some(Kind::Enum) => &["value", "name"],
                Some(_) => &["value"],
                None => &[],
            };
            let mut children: Vec<Node> = Vec::new();
            for k in kids {
                // A key met twice would be two columns of one name; the registry test keeps
                // it from happening, and here the first one wins.
                if !taken.contains(&k.key()) && children.iter().all(|c| c.key != k.key()) {
                    children.push(Node::of(k, defs, depth + 1));
                }
            }
            let index = children
                .iter()
                .enumerate()
                .map(|(i, c)| (def_key(c.def), i))
                .collect();
            Shape::Object {
                own,
                children,
                index,
            }
        } else {
            Shape::Leaf(def.kind)
        };
        Node {
            key: def.key(),
            def,
            list: def.repeated,
            shape,
        }
    }

    /// The Arrow type of one occurrence, lists aside.
    fn item_type(&self) -> DataType {
        match &self.shape {
            Shape::Leaf(kind) => leaf_type(*kind),
            Shape::Object { own, children, .. } => {
                let mut fields = own_fields(*own);
                fields.extend(children.iter().map(Node::arrow_field));
                if fields.is_empty() {
                    // Parquet has no empty group: a group with nothing under it is a flag.
                    return DataType::Boolean;
                }
                DataType::Struct(fields.into())
            }
            Shape::Map { value, .. } => DataType::Map(map_entries(value.item_type()), false),
        }
    }

    /// The Arrow type of the column, a list for a repeated field.
    pub fn arrow_type(&self) -> DataType {
        let item = self.item_type();
        if self.list {
            DataType::List(Arc::new(Field::new("item", item, true)))
        } else {
            item
        }
    }

    pub fn arrow_field(&self) -> Field {
        Field::new(self.key, self.arrow_type(), true)
    }
}

/// The entries of a map column: a non-null text key and the value's column.
pub fn map_entries(value: DataType) -> Arc<Field> {
    let entries = Fields::from(vec![
        Field::new("key", DataType::Utf8, false),
        Field::new("value", value, true),
    ]);
    Arc::new(Field::new("entries", DataType::Struct(entries), false))
}

/// The alternatives of an `any` value, one of which is set in each occurrence.
pub const ANY_ALTERNATIVES: [&str; 6] = ["uint", "int", "float", "bool", "string", "bytes"];

/// The Arrow type of a value of `kind` without children.
pub fn leaf_type(kind: Kind) -> DataType {
    match kind {
        Kind::UInt => DataType::UInt64,
        Kind::Int => DataType::Int64,
        Kind::Float => DataType::Float64,
        Kind::Bool | Kind::Group => DataType::Boolean,
        Kind::Str => DataType::Utf8,
        Kind::Bytes => DataType::Binary,
        Kind::Enum => DataType::Struct(own_fields(Some(Kind::Enum)).into()),
        Kind::Any => DataType::Struct(
            ANY_ALTERNATIVES
                .iter()
                .zip([
                    Kind::UInt,
                    Kind::Int,
                    Kind::Float,
                    Kind::Bool,
                    Kind::Str,
                    Kind::Bytes,
                ])
                .map(|(name, k)| Field::new(*name, leaf_type(k), true))
                .collect::<Vec<_>>()
                .into(),
        ),
    }
}

/// The columns of an object's own value: `value` (and `name` for an enum), as JSON writes them.
fn own_fields(own: Option<Kind>) -> Vec<Field> {
    match own {
        None => Vec::new(),
        Some(Kind::Enum) => vec![
            Field::new("value", DataType::Int64, true),
            Field::new("name", DataType::Utf8, true),
        ],
        Some(k) => vec![Field::new("value", leaf_type(k), true)],
    }
}

/// The fields directly under `def`: by dotted name, then those it declares it holds.
fn children_of(def: &FieldDef, defs: &[&'static FieldDef]) -> Vec<&'static FieldDef> {
    let under = |prefix: &str, d: &FieldDef| {
        d.name
            .strip_prefix(prefix)
            .and_then(|rest| rest.strip_prefix('.'))
            .is_some_and(|rest| !rest.is_empty() && !rest.contains('.'))
    };
    let mut out: Vec<&'static FieldDef> = defs
        .iter()
        .copied()
        .filter(|d| under(def.name, d))
        .collect();
    for held in def.holds {
        match held.strip_suffix(".*") {
            Some(prefix) => out.extend(defs.iter().copied().filter(|d| under(prefix, d))),
            None => out.extend(defs.iter().copied().filter(|d| d.name == *held)),
        }
    }
    out
}

/// One protocol's schema: the roots of its `fields` struct.
#[derive(Debug)]
pub struct ProtocolSchema {
    pub protocol: &'static str,
    pub roots: Vec<Node>,
    /// Root index by field ([`def_key`]).
    pub index: HashMap<usize, usize>,
    /// The whole file schema: the record keys, `fields` and `notes`.
    pub arrow: Arc<Schema>,
}

impl ProtocolSchema {
    pub fn new(protocol: &'static str, defs: &[&'static FieldDef]) -> ProtocolSchema {
        let roots: Vec<Node> = defs
            .iter()
            .filter(|d| !d.name.contains('.'))
            .map(|d| Node::of(d, defs, 0))
            .collect();
        let index = roots
            .iter()
            .enumerate()
            .map(|(i, n)| (def_key(n.def), i))
            .collect();
        let fields: Fields = roots.iter().map(Node::arrow_field).collect();
        let arrow = Arc::new(file_schema(DataType::Struct(fields)));
        ProtocolSchema {
            protocol,
            roots,
            index,
            arrow,
        }
    }
}

/// The fields of `defs` a message type's schema keeps (`wanted`, from
/// [`TypeFields`]): each wanted field, everything under it and what it
/// holds, to the end, and the groups above the wanted ones. Each column it makes is the
/// protocol schema's column at the same path, with fewer members where that is a struct.
pub fn subset(defs: &[&'static FieldDef], wanted: &[&'static str]) -> Vec<&'static FieldDef> {
    let mut keep: HashSet<&'static str> = wanted.iter().copied().collect();
    let inside = |keep: &HashSet<&str>, name: &str| {
        name.match_indices('.')
            .any(|(dot, _)| keep.contains(&name[..dot]))
    };
    loop {
        let before = keep.len();
        let held: Vec<&str> = defs
            .iter()
            .filter(|d| keep.contains(d.name))
            .flat_map(|d| d.holds.iter().copied())
            .collect();
        for d in defs {
            if keep.contains(d.name) {
                continue;
            }
            let is_held = held.iter().any(|h| match h.strip_suffix(".*") {
                Some(prefix) => d.name.rsplit_once('.').is_some_and(|(up, _)| up == prefix),
                None => d.name == *h,
            });
            if is_held || inside(&keep, d.name) {
                keep.insert(d.name);
            }
        }
        if keep.len() == before {
            break;
        }
    }
    for w in wanted {
        for (dot, _) in w.match_indices('.') {
            keep.insert(&w[..dot]);
        }
    }
    defs.iter()
        .copied()
        .filter(|d| keep.contains(d.name))
        .collect()
}

/// The columns of a note, as JSON writes them plus the note's registered name.
pub fn note_fields() -> Fields {
    Fields::from(vec![
        Field::new("severity", DataType::Utf8, false),
        Field::new("name", DataType::Utf8, false),
        Field::new("message", DataType::Utf8, false),
        Field::new("field", DataType::Utf8, true),
    ])
}

/// The record-level columns, in file order, around a protocol's `fields` struct. `protocol`
/// and `type` are not among them: they are the hive partition (`protocol=…/type=…`), which
/// engines add as columns, and Spark refuses a file column that repeats a partition column.
fn file_schema(fields: DataType) -> Schema {
    let utc = DataType::Timestamp(TimeUnit::Nanosecond, Some("UTC".into()));
    let notes = DataType::List(Arc::new(Field::new(
        "item",
        DataType::Struct(note_fields()),
        true,
    )));
    Schema::new(vec![
        Field::new("capture", DataType::Utf8, false),
        Field::new("frame", DataType::UInt64, false),
        Field::new("time", utc, true),
        Field::new("time_relative", DataType::Float64, false),
        Field::new("src", DataType::Utf8, false),
        Field::new("dst", DataType::Utf8, false),
        Field::new("flow", DataType::UInt64, false),
        Field::new("direction", DataType::Utf8, true),
        Field::new("length", DataType::UInt64, false),
        Field::new("summary", DataType::Utf8, false),
        Field::new("fields", fields, false),
        Field::new("notes", notes, false),
    ])
}

/// Every protocol's schema, plain UDP first (as `gamedissect fields` lists them).
pub fn all(registry: &[&'static dyn Protocol]) -> Vec<ProtocolSchema> {
    crate::proto::all_fields(registry)
        .into_iter()
        .map(|(name, _, defs)| ProtocolSchema::new(name, &defs))
        .collect()
}

/// A protocol's fields and which of them each message type carries: what its types' schemas
/// are made from.
#[derive(Debug)]
pub struct ProtocolFields {
    pub protocol: &'static str,
    pub defs: Vec<&'static FieldDef>,
    pub types: &'static TypeFields,
}

impl ProtocolFields {
    /// Every protocol's, plain UDP first.
    pub fn all(registry: &[&'static dyn Protocol]) -> Vec<ProtocolFields> {
        let declared =
            std::iter::once(&TypeFields::WHOLE).chain(registry.iter().map(|p| p.type_fields()));
        crate::proto::all_fields(registry)
            .into_iter()
            .zip(declared)
            .map(|((protocol, _, defs), types)| ProtocolFields {
                protocol,
                defs,
                types,
            })
            .collect()
    }

    /// The schema of `msg_type`'s files: the fields the type can carry
    /// ([`TypeFields::of`]), or the whole protocol's for a type not declared.
    pub fn schema_of(&self, msg_type: &str) -> ProtocolSchema {
        match self.types.of(msg_type) {
            Some(wanted) => ProtocolSchema::new(self.protocol, &subset(&self.defs, &wanted)),
            None => ProtocolSchema::new(self.protocol, &self.defs),
        }
    }
}

/// The Parquet reference (docs/parquet.md): every protocol's columns with their types.
pub fn markdown(registry: &[&'static dyn Protocol]) -> String {
    let mut out = String::from(include_str!("parquet_head.md"));
    let declared = ProtocolFields::all(registry);
    for (s, d) in all(registry).into_iter().zip(&declared) {
        out.push_str(&format!(
            "\n## {}\n\nFiles under `protocol={}/`. `fields`:\n\n| column | type |\n|---|---|\n",
            s.protocol, s.protocol
        ));
        for n in &s.roots {
            let mut path = String::from("fields");
            column_rows(&mut out, &mut path, &n.arrow_field());
        }
        type_rows(&mut out, d.types);
    }
    out
}

/// The table of which fields each declared message type's files have.
fn type_rows(out: &mut String, types: &TypeFields) {
    if types.by_type.is_empty() {
        return;
    }
    let list = |names: &[&str]| {
        let v: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
        if v.is_empty() {
            "—".to_string()
        } else {
            v.join(", ")
        }
    };
    let also = if types.common.is_empty() {
        String::new()
    } else {
        format!("; every type also has {}", list(types.common))
    };
    out.push_str(&format!(
        "\nMessage types: each type's files have the columns of the fields listed, with what is \
         under them and the groups above them{also}. `X*` names every \
         type starting with `X`; the first row naming a type decides.\n\n\
         | types | fields |\n|---|---|\n"
    ));
    for (names, fields) in types.by_type {
        out.push_str(&format!("| {} | {} |\n", list(names), list(fields)));
    }
}

/// One table row per column under `field`, nested columns by their dotted path (`[]` marks a
/// list's items, `{}` a map's values).
fn column_rows(out: &mut String, path: &mut String, field: &Field) {
    let len = path.len();
    path.push('.');
    path.push_str(field.name());
    out.push_str(&format!(
        "| `{path}` | {} |\n",
        type_name(field.data_type())
    ));
    let mut t = field.data_type();
    loop {
        match t {
            DataType::List(item) => {
                path.push_str("[]");
                t = item.data_type();
            }
            DataType::Map(entries, _) => {
                path.push_str("{}");
                match entries.data_type() {
                    DataType::Struct(kv) if kv.len() == 2 => t = kv[1].data_type(),
                    _ => break,
                }
            }
            _ => break,
        }
    }
    if let DataType::Struct(children) = t {
        for c in children {
            column_rows(out, path, c);
        }
    }
    path.truncate(len);
}

/// A type as DuckDB names it when it reads the file.
pub fn type_name(t: &DataType) -> String {
    match t {
        DataType::UInt64 => "UBIGINT".into(),
        DataType::Int64 => "BIGINT".into(),
        DataType::Float64 => "DOUBLE".into(),
        DataType::Boolean => "BOOLEAN".into(),
        DataType::Utf8 => "VARCHAR".into(),
        DataType::Binary => "BLOB".into(),
        DataType::Timestamp(..) => "TIMESTAMPTZ_NS".into(),
        DataType::List(item) => format!("{}[]", type_name(item.data_type())),
        DataType::Map(entries, _) => match entries.data_type() {
            DataType::Struct(kv) if kv.len() == 2 => {
                format!("MAP(VARCHAR, {})", type_name(kv[1].data_type()))
            }
            _ => "MAP".into(),
        },
        DataType::Struct(_) => "STRUCT".into(),
        other => format!("{other}"),
    }
}
