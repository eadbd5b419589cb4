//! Columns for `--format fields -e NAME`: any name a filter accepts, written as text, one string
//! per occurrence.

use std::fmt::Write as _;

use super::eval::{Val, each_value};
use super::{Builtin, FilterError, Names, Target};
use crate::capture::Timestamp;
use crate::proto::Meta;
use crate::proto::Protocol;
use crate::tree::Record;

/// The column `-e capture`: the capture a record comes from, as given or found (a name for
/// columns only: a filter has nothing to choose among the captures named to it).
pub const CAPTURE: &str = "capture";

/// One `-e` column: a registered field, an expert note (its messages), a record-level field, or
/// the capture's name.
#[derive(Debug)]
pub struct Column {
    pub name: String,
    /// `None`: [`CAPTURE`].
    target: Option<Target>,
}

impl Column {
    /// Resolves every name, or says which is unknown and what it may have meant.
    pub fn resolve(
        names: &[String],
        registry: &[&'static dyn Protocol],
    ) -> Result<Vec<Column>, FilterError> {
        let known = Names::new(registry);
        names
            .iter()
            .map(|n| {
                Ok(Column {
                    name: n.clone(),
                    target: match n.as_str() {
                        CAPTURE => None,
                        n => Some(known.get(n)?),
                    },
                })
            })
            .collect()
    }

    /// Whether the column reads decoded fields.
    pub fn needs_tree(&self) -> bool {
        matches!(self.target, Some(Target::Field(_)))
    }

    /// The registered field the column reads, if it reads one.
    pub fn field_name(&self) -> Option<&'static str> {
        match self.target {
            Some(Target::Field(def)) => Some(def.name),
            _ => None,
        }
    }

    /// Appends each occurrence's text to `out` (cleared first); `capture` is the name of the
    /// capture the record comes from.
    pub fn texts(&self, meta: &Meta<'_>, rec: &Record, capture: &str, out: &mut Vec<String>) {
        out.clear();
        let Some(target) = self.target else {
            out.push(capture.to_string());
            return;
        };
        match target {
            // Times keep the capture's precision (an f64 would lose nanoseconds of the epoch).
            Target::Builtin(Builtin::TimeEpoch) => {
                let mut s = String::new();
                meta.time.relative_into(&mut s, &Timestamp::default());
                out.push(s);
            }
            Target::Builtin(Builtin::TimeRelative) => out.push(meta.time.relative(&meta.base)),
            Target::Note(def) => out.extend(
                rec.notes
                    .iter()
                    .filter(|n| n.name() == def.name)
                    .map(|n| n.message.clone()),
            ),
            _ => {
                let mut seen = false;
                each_value(&target, meta, rec, &mut seen, &mut |v| {
                    out.push(text_of(v));
                    false
                });
            }
        }
    }
}

/// A value as a plain field: numbers in decimal, text as is (bytes that are not UTF-8 as
/// `\xNN`), binary data in hex, an enum by its name (its number when it has none).
fn text_of(v: Val<'_>) -> String {
    let mut s = String::new();
    match v {
        Val::UInt(x) => crate::text::push_uint(&mut s, x),
        Val::Int(x) => crate::text::push_int(&mut s, x),
        Val::Float(x) => {
            let _ = write!(s, "{x}");
        }
        Val::Bool(x) => s.push_str(if x { "true" } else { "false" }),
        Val::Text(t) => {
            for chunk in t.utf8_chunks() {
                s.push_str(chunk.valid());
                for b in chunk.invalid() {
                    let _ = write!(s, "\\x{b:02x}");
                }
            }
        }
        Val::Bin(b) => crate::output::hex_all_into(&mut s, b),
        Val::Enum(n, "") => crate::text::push_int(&mut s, n),
        Val::Enum(_, name) => s.push_str(name),
        Val::Ip(a) => {
            let _ = write!(s, "{a}");
        }
        Val::Severity(x) => s.push_str(x.as_str()),
    }
    s
}
