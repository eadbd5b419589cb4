//! The annotated field tree: one line per field with its label, value, unit, meaning, dotted name
//! and position; notes after the fields; optionally a hex dump of every data source.

use std::fmt::Write as _;
use std::io::{self, Write};

use owo_colors::{OwoColorize, Style};

use super::summary::severity_style;
use super::{RecordWriter, TreeView, display_value, hexdumps_into, position_into};
use crate::proto::Meta;
use crate::tree::{Field, Pos, Record, Value};

pub struct TreeWriter<W: Write> {
    out: W,
    color: bool,
    hex: bool,
    view: TreeView,
    buf: String,
    first: bool,
}

impl<W: Write> TreeWriter<W> {
    pub fn new(out: W, color: bool, hex: bool) -> Self {
        TreeWriter {
            out,
            color,
            hex,
            view: TreeView::FULL,
            buf: String::with_capacity(4096),
            first: true,
        }
    }

    /// Shows the messages as `view` says (`--expand`, `--compact`).
    pub fn with_view(mut self, view: TreeView) -> Self {
        self.view = view;
        self
    }

    fn paint(&mut self, text: &str, style: Style) {
        if self.color {
            let _ = write!(self.buf, "{}", text.style(style));
        } else {
            self.buf.push_str(text);
        }
    }

    /// Shows every field with its children unless `--expand` names others: then a field
    /// outside the named subtrees shows its children only on the way to one of them.
    fn fields(&mut self, list: &[Field], depth: usize, expanded: bool) {
        let mut i = 0;
        while i < list.len() {
            let f = &list[i];
            i += 1;
            if let Some(next) = list.get(i)
                && is_raw_of(f, next)
            {
                continue;
            }
            let expanded = expanded || self.view.expand.iter().any(|p| under(f.def.name, p));
            let open = expanded || (!f.children.is_empty() && has_expanded(f, self.view.expand));
            if let Some((key, value)) = as_pair(f) {
                self.line(f, depth, Some(key), value, false);
                continue;
            }
            self.line(f, depth, None, f, !open && !f.children.is_empty());
            if open && f.def.map {
                self.pairs(&f.children, depth + 1);
            } else if open {
                self.fields(&f.children, depth + 1, expanded);
            }
        }
    }

    /// The pairs of a key/value group ([`crate::tree::FieldDef::map`]): one `key: value` line
    /// each, annotated with the key's name and where the pair lies (from the key to the end of
    /// the value, or the value's bits when it is a bit).
    fn pairs(&mut self, list: &[Field], depth: usize) {
        let mut rest = list;
        while let [key, tail @ ..] = rest {
            match tail {
                [value, after @ ..] if !std::ptr::eq(value.def, key.def) => {
                    let mut at = key.clone();
                    at.pos = if value.pos.bits || key.pos.bits || value.pos.source != key.pos.source
                    {
                        value.pos
                    } else {
                        let end = value.pos.end().max(key.pos.end());
                        Pos {
                            len: end - key.pos.offset,
                            ..key.pos
                        }
                    };
                    self.line(&at, depth, Some(key), value, false);
                    rest = after;
                }
                _ => {
                    self.line(key, depth, None, key, false);
                    rest = tail;
                }
            }
        }
    }

    /// One field's line: its label (or, for a key/value pair, the key), value, meaning, and
    /// unless compact its name and position; `…` when its children are not shown.
    fn line(&mut self, f: &Field, depth: usize, key: Option<&Field>, shown: &Field, more: bool) {
        for _ in 0..depth {
            self.buf.push_str("  ");
        }
        match key.map(|k| &k.value) {
            Some(Value::Str(k)) if !k.is_empty() && !k.chars().any(crate::text::is_unsafe) => {
                self.paint(k, Style::new());
            }
            Some(_) => {
                let mut k = String::new();
                display_value(&mut k, key.unwrap_or(f));
                self.paint(&k, Style::new());
            }
            None => self.paint(f.def.label, Style::new()),
        }
        let mut v = String::new();
        display_value(&mut v, shown);
        if !v.is_empty() || key.is_some() {
            self.buf.push_str(": ");
            self.paint(&v, Style::new().bold());
        }
        if let Some(m) = &shown.meaning {
            self.buf.push_str(" (");
            self.paint(&crate::text::escaped(m), Style::new().green());
            self.buf.push(')');
        }
        if more {
            self.buf.push_str(" …");
        }
        if !self.view.compact {
            let mut ann = String::with_capacity(48);
            ann.push_str("  [");
            ann.push_str(f.def.name);
            ann.push(' ');
            position_into(&mut ann, &f.pos);
            ann.push(']');
            self.paint(&ann, Style::new().dimmed());
        }
        self.buf.push('\n');
    }
}

/// Whether `name` is the field (or protocol) `prefix` or lies under it.
fn under(name: &str, prefix: &str) -> bool {
    name.strip_prefix(prefix)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with('.'))
}

/// Whether a field below `f` is one `--expand` names.
fn has_expanded(f: &Field, expand: &[String]) -> bool {
    f.children
        .iter()
        .any(|c| expand.iter().any(|p| under(c.def.name, p)) || has_expanded(c, expand))
}

/// A key/value pair (the shape docs/output.md gives key/value lists: a group of a `key` and a
/// `value`): its key and value fields, shown as one line.
fn as_pair(f: &Field) -> Option<(&Field, &Field)> {
    match (&f.value, f.children.as_slice()) {
        (Value::None, [k, v]) if k.def.key() == "key" && v.def.key() == "value" => Some((k, v)),
        _ => None,
    }
}

/// Whether `f` is the raw text that the key/value list `next` shows parsed (a decoder gives
/// both for scripts; the tree shows the pairs once).
fn is_raw_of(f: &Field, next: &Field) -> bool {
    f.def.holds_text()
        && f.pos == next.pos
        && matches!(next.value, Value::None)
        && !next.children.is_empty()
        && next.children.iter().all(|c| as_pair(c).is_some())
}

impl<W: Write> RecordWriter for TreeWriter<W> {
    fn after_earlier_records(&mut self) {
        self.first = false;
    }

    fn record(&mut self, meta: &Meta<'_>, rec: &Record) -> io::Result<()> {
        self.buf.clear();
        if !self.first {
            self.buf.push('\n');
        }
        self.first = false;
        let head = format!(
            "Frame {}: {} s, {} → {}, flow {}, {} bytes",
            meta.frame,
            meta.time.relative(&meta.base),
            meta.src,
            meta.dst,
            meta.flow,
            meta.payload.len()
        );
        self.paint(&head, Style::new().bold());
        self.buf.push('\n');
        self.paint(rec.protocol, Style::new().cyan().bold());
        self.buf.push_str(": ");
        crate::text::push_escaped(&mut self.buf, &rec.summary);
        self.buf.push('\n');
        self.fields(&rec.fields, 1, self.view.expand.is_empty());
        for n in &rec.notes {
            self.buf.push_str("  ");
            let tag = format!("[{}]", n.severity().as_str());
            self.paint(&tag, severity_style(n.severity()));
            self.buf.push(' ');
            crate::text::push_escaped(&mut self.buf, &n.message);
            let mut loc = String::new();
            if let Some(field) = n.field {
                loc.push_str(field);
            }
            if let Some(p) = &n.pos {
                if !loc.is_empty() {
                    loc.push(' ');
                }
                position_into(&mut loc, p);
            }
            if !loc.is_empty() && !self.view.compact {
                self.buf.push_str("  ");
                self.paint(&format!("[{loc}]"), Style::new().dimmed());
            }
            self.buf.push('\n');
        }
        if self.hex {
            hexdumps_into(&mut self.buf, meta.payload, rec);
        }
        self.out.write_all(self.buf.as_bytes())
    }

    fn finish(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}
