//! Reading decoded records by registered field name: how a protocol's facts (its events, the
//! positions and names the commands show) look at a message.

use std::borrow::Cow;

use crate::tree::{Field, Value};

/// The first direct child of `f` with this field name.
pub fn child<'a>(f: &'a Field, name: &str) -> Option<&'a Field> {
    f.children.iter().find(|c| c.def.name == name)
}

/// Every direct child of `f` with this field name.
pub fn children<'a>(f: &'a Field, name: &'a str) -> impl Iterator<Item = &'a Field> + 'a {
    f.children.iter().filter(move |c| c.def.name == name)
}

/// A value as text: strings as they are, text that is not UTF-8 with replacement characters
/// (events are for reading; `dissect` keeps the bytes).
pub fn text(v: &Value) -> Option<Cow<'_, str>> {
    match v {
        Value::Str(s) => Some(Cow::Borrowed(s)),
        Value::Bytes(b) => Some(String::from_utf8_lossy(b)),
        _ => None,
    }
}

/// A value as an integer (enums give their number).
pub fn int(v: &Value) -> Option<i64> {
    match *v {
        Value::UInt(n) => i64::try_from(n).ok(),
        Value::Int(n) => Some(n),
        Value::Enum(n, _) => Some(n),
        _ => None,
    }
}

/// The text of the first direct child with this name.
pub fn child_text<'a>(f: &'a Field, name: &str) -> Option<Cow<'a, str>> {
    child(f, name).and_then(|c| text(&c.value))
}

/// The integer of the first direct child with this name.
pub fn child_int(f: &Field, name: &str) -> Option<i64> {
    child(f, name).and_then(|c| int(&c.value))
}

/// The value of `key` in an info-string group (`…info` with `…info.pair` children holding
/// `…key` and `…value`), whatever the group's name prefix.
pub fn info_value<'a>(info: &'a Field, key: &str) -> Option<Cow<'a, str>> {
    info.children.iter().find_map(|pair| {
        let k = pair
            .children
            .iter()
            .find(|c| c.def.name.ends_with(".key"))?;
        if text(&k.value)? != key {
            return None;
        }
        let v = pair
            .children
            .iter()
            .find(|c| c.def.name.ends_with(".value"))?;
        text(&v.value)
    })
}
