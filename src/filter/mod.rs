//! Display filters (`-Y/--filter`), in Wireshark's syntax for what applies to decoded game
//! messages: a field name alone (present), comparisons (`== != < <= > >=` and `eq ne lt le gt
//! ge`), `contains`, `matches` (a regular expression), `in {…}`, `and or not && || !` and
//! parentheses. Fields are the registered ones (`gamedissect fields`), expert-note names, and the
//! record-level fields of [`Builtin`].
//!
//! A filter is compiled once, against the registry, so a misspelt name is a usage error with the
//! closest names suggested, and a comparison a field's type can never satisfy (text against a
//! number field) is refused, before any input is read. Semantics follow Wireshark's
//! (`epan/dfilter`): a comparison on a repeated field holds when any occurrence satisfies it,
//! except `!=`, which holds when the field is present and no occurrence is equal ("all not
//! equal", as `!=` means since Wireshark 3.6); a comparison on an absent field is false.
//!
//! - `parse`: the lexer and the recursive-descent parser into `Expr`;
//! - `eval`: running an expression over a record and its frame [`Meta`];
//! - `column`: the same names as columns of `--format fields`.

mod column;
mod eval;
mod parse;

pub use column::Column;

use std::collections::HashMap;
use std::fmt;
use std::net::IpAddr;

use crate::proto::Meta;
use crate::proto::Protocol;
use crate::tree::{FieldDef, FieldMask, Kind, NoteDef, Record};

/// A compiled display filter.
#[derive(Debug)]
pub struct Filter {
    expr: Expr,
    /// The expression as given, for messages.
    text: String,
    needs_tree: bool,
}

/// Why a filter was refused, with the column (1-based) where it went wrong when there is one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FilterError(pub String);

impl fmt::Display for FilterError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Record-level fields: what the frame, the IP and UDP layers and the record itself carry,
/// named as Wireshark names them where Wireshark has the field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Builtin {
    FrameNumber,
    TimeEpoch,
    TimeRelative,
    IpSrc,
    IpDst,
    /// Either address.
    IpAddr,
    UdpSrcPort,
    UdpDstPort,
    /// Either port.
    UdpPort,
    /// The message type, as `stats` counts it and JSON's `type` holds.
    MsgType,
    /// The protocol's short name, as JSON's `protocol` holds.
    MsgProtocol,
    FlowNumber,
    /// `to_server` or `to_client`; absent when no decoder decided the roles.
    FlowDirection,
    /// One per note: `note < warning < error`.
    ExpertSeverity,
    ExpertMessage,
}

/// Every record-level field: name, what it is, its type for comparisons.
pub const BUILTINS: &[(&str, Builtin, &str)] = &[
    (
        "frame.number",
        Builtin::FrameNumber,
        "Frame number in the capture (1-based)",
    ),
    (
        "frame.time_epoch",
        Builtin::TimeEpoch,
        "Seconds since the Unix epoch",
    ),
    (
        "frame.time_relative",
        Builtin::TimeRelative,
        "Seconds since the capture's first frame",
    ),
    (
        "ip.src",
        Builtin::IpSrc,
        "Source address (also a CIDR block: 10.0.0.0/8)",
    ),
    ("ip.dst", Builtin::IpDst, "Destination address"),
    ("ip.addr", Builtin::IpAddr, "Either address"),
    ("udp.srcport", Builtin::UdpSrcPort, "Source port"),
    ("udp.dstport", Builtin::UdpDstPort, "Destination port"),
    ("udp.port", Builtin::UdpPort, "Either port"),
    (
        "msg.type",
        Builtin::MsgType,
        "Message type, as `stats` counts it (JSON `type`)",
    ),
    (
        "msg.protocol",
        Builtin::MsgProtocol,
        "Protocol short name (JSON `protocol`)",
    ),
    (
        "flow.number",
        Builtin::FlowNumber,
        "Flow number (JSON `flow`)",
    ),
    (
        "flow.direction",
        Builtin::FlowDirection,
        "to_server or to_client; absent when no decoder decided the roles",
    ),
    (
        "expert.severity",
        Builtin::ExpertSeverity,
        "Severity of any note: note < warning < error",
    ),
    ("expert.message", Builtin::ExpertMessage, "Text of any note"),
];

/// What a name in a filter refers to.
#[derive(Debug, Clone, Copy)]
enum Target {
    Field(&'static FieldDef),
    Note(&'static NoteDef),
    Builtin(Builtin),
}

/// A literal as written, with every reading of it that parses: a comparison uses the reading
/// that fits the value it meets (a number for a number field, the text for a text field).
#[derive(Debug, Clone)]
struct Literal {
    text: String,
    int: Option<i128>,
    float: Option<f64>,
    boolean: Option<bool>,
    /// An address, or a block of them (`10.0.0.0/8`): the address and the prefix length.
    net: Option<(IpAddr, u8)>,
    /// Hex digits (optionally `:`/`-`/`.` separated) for binary fields.
    bytes: Option<Vec<u8>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CmpOp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

#[derive(Debug)]
enum SetItem {
    One(Literal),
    Range(Literal, Literal),
}

#[derive(Debug)]
enum Cond {
    Present,
    Cmp(CmpOp, Literal),
    Contains(Literal),
    Matches(regex::bytes::Regex),
    In(Vec<SetItem>),
}

#[derive(Debug)]
enum Expr {
    Or(Vec<Expr>),
    And(Vec<Expr>),
    Not(Box<Expr>),
    Test(Target, Cond),
}

/// The names a filter may use: every registered field and note, and the record-level fields.
struct Names {
    map: HashMap<&'static str, Target>,
}

impl Names {
    fn new(registry: &[&'static dyn Protocol]) -> Names {
        let mut map = HashMap::new();
        for (_, _, fields) in crate::proto::all_fields(registry) {
            for f in fields {
                map.insert(f.name, Target::Field(f));
            }
        }
        let notes = crate::toolkit::udp::NOTES
            .iter()
            .chain(crate::wire::NOTES)
            .chain(registry.iter().flat_map(|p| p.info().notes.iter()));
        for n in notes {
            map.insert(n.name, Target::Note(n));
        }
        for &(name, b, _) in BUILTINS {
            map.insert(name, Target::Builtin(b));
        }
        Names { map }
    }

    fn get(&self, name: &str) -> Result<Target, FilterError> {
        self.map.get(name).copied().ok_or_else(|| {
            let close = self.closest(name);
            let hint = if close.is_empty() {
                " (see `gamedissect fields`)".to_string()
            } else {
                format!("; did you mean {}?", close.join(", "))
            };
            FilterError(format!("unknown field {name:?}{hint}"))
        })
    }

    /// Up to five known names nearest to `name`: by edit distance, within a third of its length,
    /// or those that extend it.
    fn closest(&self, name: &str) -> Vec<String> {
        let limit = (name.len() / 3).max(2);
        let mut scored: Vec<(usize, &str)> = self
            .map
            .keys()
            .filter_map(|k| {
                let d = edit_distance(name, k);
                if d <= limit {
                    Some((d, *k))
                } else if k.starts_with(name) && k.as_bytes().get(name.len()) == Some(&b'.') {
                    Some((limit + 1, *k))
                } else {
                    None
                }
            })
            .collect();
        scored.sort();
        scored
            .into_iter()
            .take(5)
            .map(|(_, k)| format!("{k:?}"))
            .collect()
    }
}

/// Levenshtein distance over bytes (names are ASCII).
fn edit_distance(a: &str, b: &str) -> usize {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, &ca) in a.iter().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != cb)).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}

/// Checks an `--expand` prefix: a protocol, a field, or a dotted prefix of registered fields
/// (`quake3.svc`); otherwise an error naming the closest fields.
pub fn check_prefix(prefix: &str, registry: &[&'static dyn Protocol]) -> Result<(), FilterError> {
    let names = Names::new(registry);
    let known = names.map.iter().any(|(name, t)| {
        matches!(t, Target::Field(_))
            && name
                .strip_prefix(prefix)
                .is_some_and(|rest| rest.is_empty() || rest.starts_with('.'))
    });
    if known {
        return Ok(());
    }
    names.get(prefix).map(|_| ()).and_then(|()| {
        Err(FilterError(format!(
            "{prefix:?} is not a field or protocol (see `gamedissect fields`)"
        )))
    })
}

impl Filter {
    /// Compiles `text` against the registry's field names.
    pub fn new(text: &str, registry: &[&'static dyn Protocol]) -> Result<Filter, FilterError> {
        let names = Names::new(registry);
        let expr = parse::parse(text, &names)?;
        Ok(Filter {
            needs_tree: expr.needs_tree(),
            expr,
            text: text.to_string(),
        })
    }

    /// Whether the filter reads decoded fields (and so needs field trees built even for output
    /// that does not show them).
    pub fn needs_tree(&self) -> bool {
        self.needs_tree
    }

    /// The registered fields the filter reads (what its trees must keep).
    pub fn field_names(&self) -> Vec<&'static str> {
        let mut out = Vec::new();
        self.expr.field_names(&mut out);
        out
    }

    /// The expression as given.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Whether the record passes.
    pub fn matches(&self, meta: &Meta<'_>, rec: &Record) -> bool {
        self.expr.eval(meta, rec)
    }
}

/// The trees to build when only `names` are read (a filter's fields, `-e` columns): the mask
/// of those fields and their relatives by name among every registered field. A tree built with
/// it holds every occurrence of each named field, with the same values, because the filter and
/// the columns find fields by name at any depth and the builder hands a dropped group's kept
/// descendants to the nearest kept level.
pub fn field_mask(names: &[&str], registry: &[&'static dyn Protocol]) -> FieldMask {
    let all = crate::proto::all_fields(registry);
    FieldMask::new(names, all.iter().flat_map(|(_, _, fields)| fields))
}

impl Expr {
    fn field_names(&self, out: &mut Vec<&'static str>) {
        match self {
            Expr::Or(v) | Expr::And(v) => v.iter().for_each(|e| e.field_names(out)),
            Expr::Not(e) => e.field_names(out),
            Expr::Test(Target::Field(def), _) => out.push(def.name),
            Expr::Test(..) => {}
        }
    }

    fn needs_tree(&self) -> bool {
        match self {
            Expr::Or(v) | Expr::And(v) => v.iter().any(Expr::needs_tree),
            Expr::Not(e) => e.needs_tree(),
            Expr::Test(Target::Field(_), _) => true,
            Expr::Test(..) => false,
        }
    }
}

/// Whether a field of this kind can ever hold a value this literal compares with; refuses, at
/// compile time, comparisons that could never hold.
fn check_literal(target: &Target, name: &str, lit: &Literal) -> Result<(), FilterError> {
    let numeric = lit.int.is_some() || lit.float.is_some();
    let ok = match target {
        Target::Field(def) => match def.kind {
            Kind::UInt | Kind::Int | Kind::Float => numeric,
            Kind::Bool => lit.boolean.is_some() || numeric,
            Kind::Group | Kind::Enum | Kind::Str | Kind::Bytes | Kind::Any => true,
        },
        Target::Note(_) => false,
        Target::Builtin(b) => match b {
            Builtin::IpSrc | Builtin::IpDst | Builtin::IpAddr => lit.net.is_some(),
            Builtin::ExpertSeverity => eval::severity_of(&lit.text).is_some(),
            Builtin::FlowDirection => matches!(lit.text.as_str(), "to_server" | "to_client"),
            Builtin::MsgType | Builtin::MsgProtocol | Builtin::ExpertMessage => true,
            _ => numeric,
        },
    };
    if ok {
        return Ok(());
    }
    let what = match target {
        Target::Field(def) => format!("a {} field", def.kind.as_str()),
        Target::Note(_) => "an expert note (test it alone, for presence)".to_string(),
        Target::Builtin(Builtin::ExpertSeverity) => "note, warning or error".to_string(),
        Target::Builtin(Builtin::FlowDirection) => "to_server or to_client".to_string(),
        Target::Builtin(Builtin::IpSrc | Builtin::IpDst | Builtin::IpAddr) => {
            "an address or CIDR block".to_string()
        }
        Target::Builtin(_) => "a number".to_string(),
    };
    Err(FilterError(format!(
        "{name} is {what}: it cannot compare with {:?}",
        lit.text
    )))
}

#[cfg(test)]
mod tests;
