//! Column builders for one row group: a record's field tree is appended column by column as
//! the schema says, then each builder's buffers become an Arrow array without a copy.
//!
//! A column inside a struct is filled lazily: a value is preceded by the nulls of the rows that
//! had none, and a column that got no value in the whole row group becomes a shared all-null
//! array. A protocol's schema has hundreds of columns and a message type fills a few dozen, so
//! the cost follows the values present, not the width of the schema.

use std::collections::HashMap;
use std::sync::Arc;

use arrow_array::types::{Float64Type, Int64Type, TimestampNanosecondType, UInt64Type};
use arrow_array::{
    ArrayRef, BinaryArray, BooleanArray, ListArray, MapArray, PrimitiveArray, StringArray,
    StructArray, new_null_array,
};
use arrow_buffer::{BooleanBufferBuilder, Buffer, NullBuffer, OffsetBuffer, ScalarBuffer};
use arrow_schema::{ArrowError, DataType, FieldRef, Fields};

use super::schema::{Node, Shape, def_key};
use crate::tree::{Field, Kind, Value};

/// What did not fit while appending: counted, never fatal (see [`super::Written`]).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Misfits {
    /// Values the schema has no column for (a field where the registry does not place it, a
    /// second occurrence of a field that is not repeated, a value of another kind).
    pub dropped: u64,
    /// Text that is not UTF-8 in a string column, written with U+FFFD in place of bad bytes.
    pub lossy: u64,
}

fn bits() -> BooleanBufferBuilder {
    BooleanBufferBuilder::new(0)
}

fn nulls(valid: &mut BooleanBufferBuilder) -> Option<NullBuffer> {
    Some(NullBuffer::new(valid.finish())).filter(|n| n.null_count() > 0)
}

/// Numbers of one type and their validity.
#[derive(Debug)]
pub struct Prim<T> {
    vals: Vec<T>,
    valid: BooleanBufferBuilder,
}

impl<T: Copy + Default> Prim<T> {
    fn new() -> Self {
        Prim {
            vals: Vec::new(),
            valid: bits(),
        }
    }
    pub fn push(&mut self, v: T) {
        self.vals.push(v);
        self.valid.append(true);
    }
    fn push_nulls(&mut self, n: usize) {
        self.vals.resize(self.vals.len() + n, T::default());
        self.valid.append_n(n, false);
    }
    fn take(&mut self) -> (ScalarBuffer<T>, Option<NullBuffer>)
    where
        T: arrow_buffer::ArrowNativeType,
    {
        (
            std::mem::take(&mut self.vals).into(),
            nulls(&mut self.valid),
        )
    }
}

/// Text or bytes: offsets into one buffer, and validity.
#[derive(Debug)]
pub struct Var {
    offsets: Vec<i32>,
    data: Vec<u8>,
    valid: BooleanBufferBuilder,
}

impl Var {
    fn new() -> Var {
        Var {
            offsets: vec![0],
            data: Vec::new(),
            valid: bits(),
        }
    }
    fn len(&self) -> usize {
        self.valid.len()
    }
    pub fn push(&mut self, b: &[u8]) {
        self.data.extend_from_slice(b);
        // A row group is flushed at a few MiB (`super::ROW_GROUP_BYTES`), far below 2 GiB.
        self.offsets.push(self.data.len() as i32);
        self.valid.append(true);
    }
    pub fn push_null(&mut self) {
        self.push_nulls(1);
    }
    fn push_nulls(&mut self, n: usize) {
        let end = self.data.len() as i32;
        self.offsets.resize(self.offsets.len() + n, end);
        self.valid.append_n(n, false);
    }
    fn take(&mut self) -> (OffsetBuffer<i32>, Buffer, Option<NullBuffer>) {
        let offsets = std::mem::replace(&mut self.offsets, vec![0]);
        (
            OffsetBuffer::new(offsets.into()),
            Buffer::from_vec(std::mem::take(&mut self.data)),
            nulls(&mut self.valid),
        )
    }
}

/// A struct's validity and its columns (each filled lazily to the struct's length).
#[derive(Debug)]
pub struct StructCol {
    valid: BooleanBufferBuilder,
    pub children: Vec<Col>,
    fields: Fields,
}

/// A list's offsets and validity, and its items' column.
#[derive(Debug)]
pub struct ListCol {
    offsets: Vec<i32>,
    valid: BooleanBufferBuilder,
    pub child: Col,
    field: FieldRef,
}

impl ListCol {
    /// Starts the list of the row being appended, empty.
    pub fn open_row(&mut self) {
        self.offsets.push(self.child.len() as i32);
        self.valid.append(true);
    }
    /// Counts the items appended since into the open list.
    pub fn close_items(&mut self) {
        if let Some(last) = self.offsets.last_mut() {
            *last = self.child.len() as i32;
        }
    }
}

/// A map's offsets and validity, its keys and its values.
#[derive(Debug)]
pub struct MapCol {
    offsets: Vec<i32>,
    valid: BooleanBufferBuilder,
    keys: Var,
    values: Col,
    entries: FieldRef,
}

/// One column being built, shaped by its Arrow type.
#[derive(Debug)]
pub enum Col {
    UInt(Prim<u64>),
    Int(Prim<i64>),
    Float(Prim<f64>),
    /// Nanoseconds since the epoch, UTC.
    Time(Prim<i64>),
    Bool {
        vals: BooleanBufferBuilder,
        valid: BooleanBufferBuilder,
    },
    Str(Var),
    Bin(Var),
    Struct(Box<StructCol>),
    List(Box<ListCol>),
    Map(Box<MapCol>),
}

impl Col {
    /// An empty column of type `t` (types the schema never makes are built as text).
    pub fn new(t: &DataType) -> Col {
        match t {
            DataType::UInt64 => Col::UInt(Prim::new()),
            DataType::Int64 => Col::Int(Prim::new()),
            DataType::Float64 => Col::Float(Prim::new()),
            DataType::Timestamp(..) => Col::Time(Prim::new()),
            DataType::Boolean => Col::Bool {
                vals: bits(),
                valid: bits(),
            },
            DataType::Binary => Col::Bin(Var::new()),
            DataType::Struct(fields) => Col::Struct(Box::new(StructCol {
                valid: bits(),
                children: fields.iter().map(|f| Col::new(f.data_type())).collect(),
                fields: fields.clone(),
            })),
            DataType::List(item) => Col::List(Box::new(ListCol {
                offsets: vec![0],
                valid: bits(),
                child: Col::new(item.data_type()),
                field: item.clone(),
            })),
            DataType::Map(entries, _) => {
                let value = match entries.data_type() {
                    DataType::Struct(kv) if kv.len() == 2 => kv[1].data_type().clone(),
                    _ => DataType::Utf8,
                };
                Col::Map(Box::new(MapCol {
                    offsets: vec![0],
                    valid: bits(),
                    keys: Var::new(),
                    values: Col::new(&value),
                    entries: entries.clone(),
                }))
            }
            _ => Col::Str(Var::new()),
        }
    }

    pub fn len(&self) -> usize {
        match self {
            Col::UInt(p) => p.valid.len(),
            Col::Int(p) | Col::Time(p) => p.valid.len(),
            Col::Float(p) => p.valid.len(),
            Col::Bool { valid, .. } => valid.len(),
            Col::Str(v) | Col::Bin(v) => v.len(),
            Col::Struct(s) => s.valid.len(),
            Col::List(l) => l.valid.len(),
            Col::Map(m) => m.valid.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn push_nulls(&mut self, n: usize) {
        match self {
            Col::UInt(p) => p.push_nulls(n),
            Col::Int(p) | Col::Time(p) => p.push_nulls(n),
            Col::Float(p) => p.push_nulls(n),
            Col::Bool { vals, valid } => {
                vals.append_n(n, false);
                valid.append_n(n, false);
            }
            Col::Str(v) | Col::Bin(v) => v.push_nulls(n),
            // The children follow lazily.
            Col::Struct(s) => s.valid.append_n(n, false),
            Col::List(l) => {
                let end = l.child.len() as i32;
                l.offsets.resize(l.offsets.len() + n, end);
                l.valid.append_n(n, false);
            }
            Col::Map(m) => {
                let end = m.keys.len() as i32;
                m.offsets.resize(m.offsets.len() + n, end);
                m.valid.append_n(n, false);
            }
        }
    }

    /// Nulls up to `len` rows.
    pub fn pad(&mut self, len: usize) {
        let have = self.len();
        if have < len {
            self.push_nulls(len - have);
        }
    }

    pub fn push_null(&mut self) {
        self.push_nulls(1);
    }

    /// Heap bytes this column will hold once padded to `len` rows (what a flush hands over).
    pub fn bytes(&self, len: usize) -> usize {
        if self.is_empty() {
            return 0;
        }
        let len = len.max(self.len());
        let flags = len / 8 + 1;
        match self {
            Col::UInt(_) | Col::Int(_) | Col::Float(_) | Col::Time(_) => len * 8 + flags,
            Col::Bool { .. } => 2 * flags,
            Col::Str(v) | Col::Bin(v) => v.data.capacity() + len * 4 + flags,
            Col::Struct(s) => flags + s.children.iter().map(|c| c.bytes(len)).sum::<usize>(),
            Col::List(l) => len * 4 + flags + l.child.bytes(l.child.len()),
            Col::Map(m) => len * 4 + flags + m.keys.data.capacity() + m.values.bytes(m.keys.len()),
        }
    }

    /// The column as an Arrow array of `len` rows; the builder starts over empty.
    pub fn finish(&mut self, len: usize, shared: &mut NullArrays) -> Result<ArrayRef, ArrowError> {
        if self.is_empty() && len > 0 {
            return Ok(shared.get(&self.data_type(), len));
        }
        self.pad(len);
        Ok(match self {
            Col::UInt(p) => {
                let (v, n) = p.take();
                Arc::new(PrimitiveArray::<UInt64Type>::try_new(v, n)?)
            }
            Col::Int(p) => {
                let (v, n) = p.take();
                Arc::new(PrimitiveArray::<Int64Type>::try_new(v, n)?)
            }
            Col::Time(p) => {
                let (v, n) = p.take();
                Arc::new(
                    PrimitiveArray::<TimestampNanosecondType>::try_new(v, n)?.with_timezone("UTC"),
                )
            }
            Col::Float(p) => {
                let (v, n) = p.take();
                Arc::new(PrimitiveArray::<Float64Type>::try_new(v, n)?)
            }
            Col::Bool { vals, valid } => Arc::new(BooleanArray::new(vals.finish(), nulls(valid))),
            Col::Str(v) => {
                let (o, d, n) = v.take();
                Arc::new(StringArray::try_new(o, d, n)?)
            }
            Col::Bin(v) => {
                let (o, d, n) = v.take();
                Arc::new(BinaryArray::try_new(o, d, n)?)
            }
            Col::Struct(s) => Arc::new(s.finish(len, shared)?),
            Col::List(l) => {
                let items = l.child.len();
                let child = l.child.finish(items, shared)?;
                let offsets = std::mem::replace(&mut l.offsets, vec![0]);
                let n = nulls(&mut l.valid);
                Arc::new(ListArray::try_new(
                    l.field.clone(),
                    OffsetBuffer::new(offsets.into()),
                    child,
                    n,
                )?)
            }
            Col::Map(m) => Arc::new(m.finish(shared)?),
        })
    }

    fn data_type(&self) -> DataType {
        match self {
            Col::UInt(_) => DataType::UInt64,
            Col::Int(_) => DataType::Int64,
            Col::Float(_) => DataType::Float64,
            Col::Time(_) => {
                DataType::Timestamp(arrow_schema::TimeUnit::Nanosecond, Some("UTC".into()))
            }
            Col::Bool { .. } => DataType::Boolean,
            Col::Str(_) => DataType::Utf8,
            Col::Bin(_) => DataType::Binary,
            Col::Struct(s) => DataType::Struct(s.fields.clone()),
            Col::List(l) => DataType::List(l.field.clone()),
            Col::Map(m) => DataType::Map(m.entries.clone(), false),
        }
    }
}

impl StructCol {
    /// Starts a row that is present; returns its index.
    pub fn open_row(&mut self) -> usize {
        self.valid.append(true);
        self.valid.len() - 1
    }

    fn finish(&mut self, len: usize, shared: &mut NullArrays) -> Result<StructArray, ArrowError> {
        self.valid
            .append_n(len.saturating_sub(self.valid.len()), false);
        let arrays = self
            .children
            .iter_mut()
            .map(|c| c.finish(len, shared))
            .collect::<Result<Vec<_>, _>>()?;
        StructArray::try_new_with_length(self.fields.clone(), arrays, nulls(&mut self.valid), len)
    }
}

impl MapCol {
    fn finish(&mut self, shared: &mut NullArrays) -> Result<MapArray, ArrowError> {
        let pairs = self.keys.len();
        let (o, d, n) = self.keys.take();
        let keys: ArrayRef = Arc::new(StringArray::try_new(o, d, n)?);
        let values = self.values.finish(pairs, shared)?;
        let DataType::Struct(kv) = self.entries.data_type() else {
            return Err(ArrowError::SchemaError(
                "map entries are not a struct".into(),
            ));
        };
        let entries = StructArray::try_new(kv.clone(), vec![keys, values], None)?;
        let offsets = std::mem::replace(&mut self.offsets, vec![0]);
        let n = nulls(&mut self.valid);
        MapArray::try_new(
            self.entries.clone(),
            OffsetBuffer::new(offsets.into()),
            entries,
            n,
            false,
        )
    }
}

/// All-null arrays of one length, shared by the columns a row group left empty.
#[derive(Debug, Default)]
pub struct NullArrays {
    len: usize,
    arrays: HashMap<DataType, ArrayRef>,
}

impl NullArrays {
    fn get(&mut self, t: &DataType, len: usize) -> ArrayRef {
        if len != self.len {
            self.arrays.clear();
            self.len = len;
        }
        if let Some(a) = self.arrays.get(t) {
            return a.clone();
        }
        // A struct's members are shared too: a null struct of a hundred numbers costs one
        // null column of numbers, not a hundred.
        let a = match t {
            DataType::Struct(fields) => {
                let children = fields
                    .iter()
                    .map(|f| self.get(f.data_type(), len))
                    .collect();
                let nulls = Some(NullBuffer::new_null(len));
                match StructArray::try_new_with_length(fields.clone(), children, nulls, len) {
                    Ok(s) => Arc::new(s) as ArrayRef,
                    Err(_) => new_null_array(t, len),
                }
            }
            _ => new_null_array(t, len),
        };
        self.arrays.insert(t.clone(), a.clone());
        a
    }
}

/// Appends one occurrence of `node` (one list item, for a repeated field) to `col`.
pub fn push_item(node: &Node, col: &mut Col, f: &Field, m: &mut Misfits) {
    match &node.shape {
        Shape::Leaf(kind) => push_leaf(*kind, col, &f.value, m),
        Shape::Object {
            own,
            children,
            index,
        } => {
            let Col::Struct(s) = col else {
                // A group with nothing under it: a flag that it is there.
                return push_leaf(Kind::Bool, col, &Value::Bool(true), m);
            };
            let row = s.open_row();
            let at = match own {
                Some(Kind::Enum) => {
                    push_enum(s, row, &f.value, m);
                    2
                }
                Some(k) => {
                    s.children[0].pad(row);
                    push_leaf(*k, &mut s.children[0], &f.value, m);
                    1
                }
                None => {
                    m.dropped += u64::from(f.value != Value::None);
                    0
                }
            };
            for c in &f.children {
                match index.get(&def_key(c.def)) {
                    Some(&i) => place(&children[i], &mut s.children[at + i], row, c, m),
                    None => m.dropped += 1,
                }
            }
        }
        Shape::Map { key, value } => push_map(key, value, col, f, m),
    }
}

/// Puts `f`, an occurrence of `node`, into row `row` of its parent's column `col`: an item of
/// the row's list for a repeated field, else the row's value (a second one is dropped).
pub fn place(node: &Node, col: &mut Col, row: usize, f: &Field, m: &mut Misfits) {
    if !node.list {
        if col.len() > row {
            m.dropped += 1;
            return;
        }
        col.pad(row);
        return push_item(node, col, f, m);
    }
    let Col::List(l) = col else {
        m.dropped += 1;
        return;
    };
    if l.valid.len() <= row {
        l.child_pad_rows(row);
        l.open_row();
    }
    push_item(node, &mut l.child, f, m);
    l.close_items();
}

impl ListCol {
    /// Null lists up to `row` rows.
    fn child_pad_rows(&mut self, row: usize) {
        let have = self.valid.len();
        if have < row {
            let end = self.child.len() as i32;
            self.offsets.resize(self.offsets.len() + row - have, end);
            self.valid.append_n(row - have, false);
        }
    }
}

/// An enum's number and name (null when the number is unknown) into the first two children.
fn push_enum(s: &mut StructCol, row: usize, v: &Value, m: &mut Misfits) {
    let (n, name) = match v {
        Value::Enum(n, name) => (Some(*n), *name),
        Value::None => (None, ""),
        _ => {
            m.dropped += 1;
            (None, "")
        }
    };
    let [value, label, ..] = s.children.as_mut_slice() else {
        return;
    };
    value.pad(row);
    label.pad(row);
    match (value, n) {
        (Col::Int(p), Some(n)) => p.push(n),
        (c, _) => c.push_null(),
    }
    match label {
        Col::Str(t) if !name.is_empty() => t.push(name.as_bytes()),
        c => c.push_null(),
    }
}

/// A value of `kind` without children into `col` (null for no value).
pub fn push_leaf(kind: Kind, col: &mut Col, v: &Value, m: &mut Misfits) {
    match (col, v) {
        (c, Value::None) => c.push_null(),
        (Col::UInt(p), Value::UInt(x)) => p.push(*x),
        (Col::UInt(p), Value::Int(x)) if *x >= 0 => p.push(*x as u64),
        (Col::Int(p), Value::Int(x)) => p.push(*x),
        (Col::Int(p), Value::UInt(x)) if i64::try_from(*x).is_ok() => p.push(*x as i64),
        (Col::Float(p), Value::F32(x)) => p.push(f64::from(*x)),
        (Col::Float(p), Value::F64(x)) => p.push(*x),
        (Col::Bool { vals, valid }, Value::Bool(b)) => {
            vals.append(*b);
            valid.append(true);
        }
        (Col::Str(t), Value::Str(s)) => t.push(s.as_bytes()),
        (Col::Str(t), Value::Bytes(b)) => {
            m.lossy += 1;
            t.push(String::from_utf8_lossy(b).as_bytes());
        }
        (Col::Bin(t), Value::Bytes(b)) => t.push(b),
        (Col::Bin(t), Value::Str(s)) => t.push(s.as_bytes()),
        (Col::Struct(s), v) if kind == Kind::Enum => {
            let row = s.open_row();
            push_enum(s, row, v, m);
        }
        (Col::Struct(s), v) if kind == Kind::Any => push_any(s, v, m),
        (c, _) => {
            m.dropped += 1;
            c.push_null();
        }
    }
}

/// An `any` value into the one alternative of its type (schema::ANY_ALTERNATIVES).
fn push_any(s: &mut StructCol, v: &Value, m: &mut Misfits) {
    let row = s.open_row();
    let (i, kind) = match v {
        Value::UInt(_) => (0, Kind::UInt),
        Value::Int(_) => (1, Kind::Int),
        Value::F32(_) | Value::F64(_) => (2, Kind::Float),
        Value::Bool(_) => (3, Kind::Bool),
        Value::Str(_) => (4, Kind::Str),
        Value::Bytes(_) => (5, Kind::Bytes),
        Value::None => return,
        Value::Enum(..) => {
            m.dropped += 1;
            return;
        }
    };
    if let Some(c) = s.children.get_mut(i) {
        c.pad(row);
        push_leaf(kind, c, v, m);
    }
}

/// Key/value pairs as JSON writes them: each key's name or text, then its value (null when a
/// key has none).
fn push_map(
    key: &'static crate::tree::FieldDef,
    value: &Node,
    col: &mut Col,
    f: &Field,
    m: &mut Misfits,
) {
    let Col::Map(map) = col else {
        m.dropped += 1;
        return col.push_null();
    };
    let mut rest = f.children.as_slice();
    let mut text = String::new();
    while let [k, tail @ ..] = rest {
        if !std::ptr::eq(k.def, key) {
            m.dropped += 1;
            rest = tail;
            continue;
        }
        match &k.value {
            Value::Enum(_, name) if !name.is_empty() => map.keys.push(name.as_bytes()),
            Value::Str(s) => map.keys.push(s.as_bytes()),
            _ => {
                text.clear();
                crate::output::display_value(&mut text, k);
                map.keys.push(text.as_bytes());
            }
        }
        let pair = map.keys.len() - 1;
        map.values.pad(pair);
        match tail {
            [v, after @ ..] if !std::ptr::eq(v.def, key) => {
                if std::ptr::eq(v.def, value.def) {
                    push_item(value, &mut map.values, v, m);
                } else {
                    m.dropped += 1;
                    map.values.push_null();
                }
                rest = after;
            }
            _ => {
                map.values.push_null();
                rest = tail;
            }
        }
    }
    map.offsets.push(map.keys.len() as i32);
    map.valid.append(true);
}

/// The rows of one file being built: the record keys, `fields` and `notes`, in schema order.
#[derive(Debug)]
pub struct Rows {
    cols: Vec<Col>,
    len: usize,
}

/// Where each record-level column sits in the file schema (schema::file_schema).
mod at {
    pub const CAPTURE: usize = 0;
    pub const FRAME: usize = 1;
    pub const TIME: usize = 2;
    pub const RELATIVE: usize = 3;
    pub const SRC: usize = 4;
    pub const DST: usize = 5;
    pub const FLOW: usize = 6;
    pub const DIRECTION: usize = 7;
    pub const LENGTH: usize = 8;
    pub const SUMMARY: usize = 9;
    pub const FIELDS: usize = 10;
    pub const NOTES: usize = 11;
}

/// Seconds from `base` to `t` as JSON writes them (the capture's digits, the fraction cut
/// there), so that the double is the one a reader parses from the JSON text: the exact decimal
/// `whole.fraction` divided once, correctly rounded.
pub fn relative_secs(t: &crate::capture::Timestamp, base: &crate::capture::Timestamp) -> f64 {
    let ns = t.as_nanos() - base.as_nanos();
    let digits = u32::from(t.digits.min(9));
    let unit = 10i128.pow(9 - digits);
    // Truncated toward zero, as the text is (its sign is written apart).
    let ticks = ns / unit;
    ticks as f64 / 10f64.powi(digits as i32)
}

impl Rows {
    pub fn new(schema: &arrow_schema::Schema) -> Rows {
        Rows {
            cols: schema
                .fields()
                .iter()
                .map(|f| Col::new(f.data_type()))
                .collect(),
            len: 0,
        }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Appends one record.
    pub fn push(
        &mut self,
        capture: &str,
        meta: &crate::proto::Meta<'_>,
        rec: &crate::tree::Record,
        schema: &super::schema::ProtocolSchema,
        m: &mut Misfits,
    ) {
        self.record_keys(capture, meta, rec);
        if let Col::Struct(s) = &mut self.cols[at::FIELDS] {
            let row = s.open_row();
            for f in &rec.fields {
                match schema.index.get(&def_key(f.def)) {
                    Some(&i) => place(&schema.roots[i], &mut s.children[i], row, f, m),
                    // An empty root (a Quake 3 runt) in a type whose schema has no column for
                    // it loses nothing.
                    None => {
                        m.dropped += u64::from(f.value != Value::None || !f.children.is_empty())
                    }
                }
            }
        }
        if let Col::List(l) = &mut self.cols[at::NOTES] {
            l.open_row();
            if let Col::Struct(s) = &mut l.child {
                for n in &rec.notes {
                    push_note(s, n);
                }
            }
            l.close_items();
        }
        self.len += 1;
    }

    fn record_keys(
        &mut self,
        capture: &str,
        meta: &crate::proto::Meta<'_>,
        rec: &crate::tree::Record,
    ) {
        let text = |c: &mut Col, s: &str| {
            if let Col::Str(v) = c {
                v.push(s.as_bytes());
            }
        };
        let number = |c: &mut Col, n: u64| {
            if let Col::UInt(p) = c {
                p.push(n);
            }
        };
        let c = &mut self.cols;
        text(&mut c[at::CAPTURE], capture);
        number(&mut c[at::FRAME], meta.frame);
        if let Col::Time(p) = &mut c[at::TIME] {
            // Cut to the capture's digits, as the JSON's `time` and `time_epoch` are.
            let unit = 10i128.pow(9 - u32::from(meta.time.digits.min(9)));
            let ns =
                meta.time.secs as i128 * 1_000_000_000 + (meta.time.nanos as i128 / unit) * unit;
            match i64::try_from(ns) {
                Ok(ns) => p.push(ns),
                Err(_) => p.push_nulls(1),
            }
        }
        if let Col::Float(p) = &mut c[at::RELATIVE] {
            p.push(relative_secs(&meta.time, &meta.base));
        }
        text(&mut c[at::SRC], meta.src_text);
        text(&mut c[at::DST], meta.dst_text);
        number(&mut c[at::FLOW], meta.flow);
        match meta.direction {
            Some(crate::proto::Direction::ToServer) => text(&mut c[at::DIRECTION], "to_server"),
            Some(crate::proto::Direction::ToClient) => text(&mut c[at::DIRECTION], "to_client"),
            None => c[at::DIRECTION].push_null(),
        }
        number(&mut c[at::LENGTH], meta.payload.len() as u64);
        text(&mut c[at::SUMMARY], &rec.summary);
    }

    /// Heap bytes of the rows so far, as a flush would hand them over.
    pub fn bytes(&self) -> usize {
        self.cols.iter().map(|c| c.bytes(self.len)).sum()
    }

    /// The rows as one record batch; the builders start over empty.
    pub fn finish(
        &mut self,
        schema: &Arc<arrow_schema::Schema>,
        shared: &mut NullArrays,
    ) -> Result<arrow_array::RecordBatch, ArrowError> {
        let len = std::mem::take(&mut self.len);
        let arrays = self
            .cols
            .iter_mut()
            .map(|c| c.finish(len, shared))
            .collect::<Result<Vec<_>, _>>()?;
        arrow_array::RecordBatch::try_new(schema.clone(), arrays)
    }
}

/// One note: severity, registered name, message, field (schema::note_fields).
fn push_note(s: &mut StructCol, n: &crate::tree::Note) {
    s.open_row();
    let texts = [
        Some(n.severity().as_str()),
        Some(n.name()),
        Some(n.message.as_str()),
        n.field,
    ];
    for (c, t) in s.children.iter_mut().zip(texts) {
        match (c, t) {
            (Col::Str(v), Some(t)) => v.push(t.as_bytes()),
            (c, _) => c.push_null(),
        }
    }
}
