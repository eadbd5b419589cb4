//! Running a compiled filter over a record: every occurrence of a field is offered to the
//! condition, which holds when any occurrence satisfies it (`!=`: present, and none equal).

use std::cmp::Ordering;
use std::net::IpAddr;

use super::{Builtin, CmpOp, Cond, Expr, Literal, SetItem, Target};
use crate::proto::Direction;
use crate::proto::Meta;
use crate::tree::{Field, Record, Severity, Value};

/// One occurrence of a field, as a filter sees it.
#[derive(Debug, Clone, Copy)]
pub(super) enum Val<'a> {
    UInt(u64),
    Int(i64),
    Float(f64),
    Bool(bool),
    Text(&'a [u8]),
    /// Binary data: compared with a hex literal, or with a literal's text.
    Bin(&'a [u8]),
    Enum(i64, &'a str),
    Ip(IpAddr),
    Severity(Severity),
}

pub(super) fn severity_of(text: &str) -> Option<Severity> {
    match text {
        "note" => Some(Severity::Note),
        "warning" => Some(Severity::Warning),
        "error" => Some(Severity::Error),
        _ => None,
    }
}

fn field_val(f: &Field) -> Option<Val<'_>> {
    Some(match &f.value {
        Value::None => return None,
        Value::UInt(v) => Val::UInt(*v),
        Value::Int(v) => Val::Int(*v),
        Value::F32(v) => Val::Float(*v as f64),
        Value::F64(v) => Val::Float(*v),
        Value::Bool(v) => Val::Bool(*v),
        Value::Str(s) => Val::Text(s.as_bytes()),
        Value::Bytes(b) if f.def.holds_text() => Val::Text(b),
        Value::Bytes(b) => Val::Bin(b),
        Value::Enum(n, name) => Val::Enum(*n, name),
    })
}

fn each_field<'r>(fields: &'r [Field], name: &str, f: &mut dyn FnMut(&'r Field) -> bool) -> bool {
    for x in fields {
        if (x.def.name == name && f(x)) || each_field(&x.children, name, f) {
            return true;
        }
    }
    false
}

/// Offers every occurrence of `target` to `f` until it returns true; whether one did. `seen` is
/// set when the target is present at all.
pub(super) fn each_value(
    target: &Target,
    meta: &Meta<'_>,
    rec: &Record,
    seen: &mut bool,
    f: &mut dyn FnMut(Val<'_>) -> bool,
) -> bool {
    match target {
        Target::Field(def) => each_field(&rec.fields, def.name, &mut |x| {
            *seen = true;
            field_val(x).is_some_and(&mut *f)
        }),
        Target::Note(def) => {
            *seen |= rec.notes.iter().any(|n| n.name() == def.name);
            false
        }
        Target::Builtin(b) => builtin_values(*b, meta, rec, &mut |v| {
            *seen = true;
            f(v)
        }),
    }
}

fn builtin_values(
    b: Builtin,
    meta: &Meta<'_>,
    rec: &Record,
    one: &mut dyn FnMut(Val<'_>) -> bool,
) -> bool {
    match b {
        Builtin::FrameNumber => one(Val::UInt(meta.frame)),
        Builtin::TimeEpoch => one(Val::Float(meta.time.as_nanos() as f64 / 1e9)),
        Builtin::TimeRelative => one(Val::Float(meta.time.secs_since(&meta.base))),
        Builtin::IpSrc => one(Val::Ip(meta.src.ip())),
        Builtin::IpDst => one(Val::Ip(meta.dst.ip())),
        Builtin::IpAddr => one(Val::Ip(meta.src.ip())) || one(Val::Ip(meta.dst.ip())),
        Builtin::UdpSrcPort => one(Val::UInt(meta.src.port().into())),
        Builtin::UdpDstPort => one(Val::UInt(meta.dst.port().into())),
        Builtin::UdpPort => {
            one(Val::UInt(meta.src.port().into())) || one(Val::UInt(meta.dst.port().into()))
        }
        Builtin::MsgType => one(Val::Text(rec.msg_type.as_bytes())),
        Builtin::MsgProtocol => one(Val::Text(rec.protocol.as_bytes())),
        Builtin::FlowNumber => one(Val::UInt(meta.flow)),
        Builtin::FlowDirection => match meta.direction {
            Some(Direction::ToServer) => one(Val::Text(b"to_server")),
            Some(Direction::ToClient) => one(Val::Text(b"to_client")),
            None => false,
        },
        Builtin::ExpertSeverity => rec.notes.iter().any(|n| one(Val::Severity(n.severity()))),
        Builtin::ExpertMessage => rec
            .notes
            .iter()
            .any(|n| one(Val::Text(n.message.as_bytes()))),
    }
}

/// How an occurrence orders against a literal; `None` when they do not compare.
fn compare(v: Val<'_>, lit: &Literal) -> Option<Ordering> {
    let num = |x: f64| lit.float.and_then(|l| x.partial_cmp(&l));
    match v {
        Val::UInt(x) => lit
            .int
            .map(|l| i128::from(x).cmp(&l))
            .or_else(|| num(x as f64)),
        Val::Int(x) => lit
            .int
            .map(|l| i128::from(x).cmp(&l))
            .or_else(|| num(x as f64)),
        Val::Float(x) => num(x),
        Val::Bool(x) => match (lit.boolean, lit.int) {
            (Some(l), _) => Some(x.cmp(&l)),
            (None, Some(l)) => Some(i128::from(x).cmp(&l)),
            _ => None,
        },
        Val::Text(t) => Some(t.cmp(lit.text.as_bytes())),
        Val::Bin(b) => Some(b.cmp(lit.bytes.as_deref().unwrap_or(lit.text.as_bytes()))),
        Val::Enum(n, name) => match lit.int {
            Some(l) => Some(i128::from(n).cmp(&l)),
            None => (name == lit.text).then_some(Ordering::Equal),
        },
        Val::Ip(a) => {
            let (net, prefix) = lit.net?;
            Some(if in_block(a, net, prefix) {
                Ordering::Equal
            } else {
                a.cmp(&net)
            })
        }
        Val::Severity(s) => severity_of(&lit.text).map(|l| s.cmp(&l)),
    }
}

/// Whether `a` lies in the block `net/prefix` (an address of the other family never does).
fn in_block(a: IpAddr, net: IpAddr, prefix: u8) -> bool {
    let (a, net, bits) = match (a, net) {
        (IpAddr::V4(a), IpAddr::V4(n)) => (u32::from(a) as u128, u32::from(n) as u128, 32),
        (IpAddr::V6(a), IpAddr::V6(n)) => (u128::from(a), u128::from(n), 128),
        _ => return false,
    };
    let host = bits - u32::from(prefix);
    host >= bits || (a >> host) == (net >> host)
}

fn holds(op: CmpOp, ord: Option<Ordering>) -> bool {
    let Some(o) = ord else { return false };
    match op {
        CmpOp::Eq => o.is_eq(),
        CmpOp::Ne => o.is_ne(),
        CmpOp::Lt => o.is_lt(),
        CmpOp::Le => o.is_le(),
        CmpOp::Gt => o.is_gt(),
        CmpOp::Ge => o.is_ge(),
    }
}

fn contains(v: Val<'_>, lit: &Literal) -> bool {
    let find = |hay: &[u8], needle: &[u8]| {
        needle.is_empty() || hay.windows(needle.len()).any(|w| w == needle)
    };
    match v {
        Val::Text(t) => find(t, lit.text.as_bytes()),
        Val::Bin(b) => find(b, lit.bytes.as_deref().unwrap_or(lit.text.as_bytes())),
        Val::Enum(_, name) => find(name.as_bytes(), lit.text.as_bytes()),
        _ => false,
    }
}

fn matches_re(v: Val<'_>, re: &regex::bytes::Regex) -> bool {
    match v {
        Val::Text(t) | Val::Bin(t) => re.is_match(t),
        Val::Enum(_, name) => re.is_match(name.as_bytes()),
        _ => false,
    }
}

fn in_set(v: Val<'_>, set: &[SetItem]) -> bool {
    set.iter().any(|item| match item {
        SetItem::One(l) => holds(CmpOp::Eq, compare(v, l)),
        SetItem::Range(lo, hi) => {
            holds(CmpOp::Ge, compare(v, lo)) && holds(CmpOp::Le, compare(v, hi))
        }
    })
}

impl Expr {
    pub(super) fn eval(&self, meta: &Meta<'_>, rec: &Record) -> bool {
        match self {
            Expr::Or(v) => v.iter().any(|e| e.eval(meta, rec)),
            Expr::And(v) => v.iter().all(|e| e.eval(meta, rec)),
            Expr::Not(e) => !e.eval(meta, rec),
            Expr::Test(target, cond) => {
                let mut seen = false;
                match cond {
                    Cond::Present => {
                        each_value(target, meta, rec, &mut seen, &mut |_| true);
                        seen
                    }
                    // All not equal: present, and no occurrence equal.
                    Cond::Cmp(CmpOp::Ne, lit) => {
                        let any_eq = each_value(target, meta, rec, &mut seen, &mut |v| {
                            !holds(CmpOp::Ne, compare(v, lit))
                        });
                        seen && !any_eq
                    }
                    Cond::Cmp(op, lit) => each_value(target, meta, rec, &mut seen, &mut |v| {
                        holds(*op, compare(v, lit))
                    }),
                    Cond::Contains(lit) => {
                        each_value(target, meta, rec, &mut seen, &mut |v| contains(v, lit))
                    }
                    Cond::Matches(re) => {
                        each_value(target, meta, rec, &mut seen, &mut |v| matches_re(v, re))
                    }
                    Cond::In(set) => {
                        each_value(target, meta, rec, &mut seen, &mut |v| in_set(v, set))
                    }
                }
            }
        }
    }
}
