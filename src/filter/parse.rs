//! The filter language's lexer and recursive-descent parser (precedence from lowest: `or`,
//! `and`, `not`, as in Wireshark's `epan/dfilter/grammar.lemon`).

use std::net::IpAddr;

use super::{CmpOp, Cond, Expr, FilterError, Literal, Names, SetItem, Target, check_literal};

/// Nesting deeper than this is refused: the parser recurses per level.
const MAX_DEPTH: usize = 64;

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    LParen,
    RParen,
    LBrace,
    RBrace,
    Comma,
    Cmp(CmpOp),
    And,
    Or,
    Not,
    /// An unquoted run: a field name, a number, an address, a bare word.
    Word(String),
    /// A quoted string, escapes resolved.
    Quoted(String),
}

/// Tokens with their 1-based column.
fn lex(s: &str) -> Result<Vec<(Tok, usize)>, FilterError> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    let bad = |col: usize, what: &str| FilterError(format!("column {col}: {what}"));
    while i < b.len() {
        let c = b[i];
        let col = s[..i].chars().count() + 1;
        let two = b.get(i..i + 2).unwrap_or(&[]);
        let (tok, len) = match c {
            b' ' | b'\t' | b'\n' | b'\r' => {
                i += 1;
                continue;
            }
            b'(' => (Tok::LParen, 1),
            b')' => (Tok::RParen, 1),
            b'{' => (Tok::LBrace, 1),
            b'}' => (Tok::RBrace, 1),
            b',' => (Tok::Comma, 1),
            _ if two == b"==" => (Tok::Cmp(CmpOp::Eq), 2),
            _ if two == b"!=" => (Tok::Cmp(CmpOp::Ne), 2),
            _ if two == b"<=" => (Tok::Cmp(CmpOp::Le), 2),
            _ if two == b">=" => (Tok::Cmp(CmpOp::Ge), 2),
            _ if two == b"&&" => (Tok::And, 2),
            _ if two == b"||" => (Tok::Or, 2),
            b'<' => (Tok::Cmp(CmpOp::Lt), 1),
            b'>' => (Tok::Cmp(CmpOp::Gt), 1),
            b'!' => (Tok::Not, 1),
            b'=' => return Err(bad(col, "a lone \"=\"; comparisons are written \"==\"")),
            b'"' => {
                let (text, len) = quoted(&s[i..]).map_err(|e| bad(col, &e))?;
                (Tok::Quoted(text), len)
            }
            _ => {
                let len = s[i..]
                    .find(|c: char| c.is_whitespace() || "(){},=!<>&|\"".contains(c))
                    .unwrap_or(s.len() - i);
                let w = &s[i..i + len];
                let tok = match w {
                    "and" => Tok::And,
                    "or" => Tok::Or,
                    "not" => Tok::Not,
                    "eq" => Tok::Cmp(CmpOp::Eq),
                    "ne" => Tok::Cmp(CmpOp::Ne),
                    "lt" => Tok::Cmp(CmpOp::Lt),
                    "le" => Tok::Cmp(CmpOp::Le),
                    "gt" => Tok::Cmp(CmpOp::Gt),
                    "ge" => Tok::Cmp(CmpOp::Ge),
                    _ => Tok::Word(w.to_string()),
                };
                (tok, len)
            }
        };
        out.push((tok, col));
        i += len;
    }
    Ok(out)
}

/// A quoted string at the start of `s`: its text (escapes `\" \\ \n \t \r \xNN` resolved) and
/// its length in bytes with the quotes.
fn quoted(s: &str) -> Result<(String, usize), String> {
    let mut text = String::new();
    let mut chars = s.char_indices().skip(1);
    while let Some((i, c)) = chars.next() {
        match c {
            '"' => return Ok((text, i + 1)),
            '\\' => match chars.next().map(|(_, c)| c) {
                Some('n') => text.push('\n'),
                Some('t') => text.push('\t'),
                Some('r') => text.push('\r'),
                Some('x') => {
                    let hex: String = (0..2)
                        .filter_map(|_| chars.next().map(|(_, c)| c))
                        .collect();
                    let v = u8::from_str_radix(&hex, 16)
                        .map_err(|_| format!("\\x{hex} is not a hex byte"))?;
                    text.push(char::from(v));
                }
                Some(c) => text.push(c),
                None => break,
            },
            c => text.push(c),
        }
    }
    Err("unterminated string".to_string())
}

impl Literal {
    fn new(text: String) -> Literal {
        let t = text.trim();
        let int = if let Some(h) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
            i128::from_str_radix(h, 16).ok()
        } else {
            t.parse::<i128>().ok()
        };
        let float = t
            .parse::<f64>()
            .ok()
            .filter(|f| f.is_finite() || t.chars().any(|c| c.is_ascii_alphabetic()));
        let boolean = match t {
            "true" | "True" | "TRUE" => Some(true),
            "false" | "False" | "FALSE" => Some(false),
            _ => None,
        };
        let net = match t.split_once('/') {
            Some((a, p)) => a.parse::<IpAddr>().ok().and_then(|a| {
                let max = if a.is_ipv4() { 32 } else { 128 };
                p.parse::<u8>().ok().filter(|&p| p <= max).map(|p| (a, p))
            }),
            None => t
                .parse::<IpAddr>()
                .ok()
                .map(|a| (a, if a.is_ipv4() { 32 } else { 128 })),
        };
        let digits: String = t.chars().filter(|c| !":-.".contains(*c)).collect();
        let bytes = (!digits.is_empty()
            && digits.len().is_multiple_of(2)
            && digits.bytes().all(|c| c.is_ascii_hexdigit()))
        .then(|| {
            digits
                .as_bytes()
                .chunks(2)
                .filter_map(|p| u8::from_str_radix(std::str::from_utf8(p).ok()?, 16).ok())
                .collect()
        });
        Literal {
            int,
            float,
            boolean,
            net,
            bytes,
            text,
        }
    }
}

struct Parser<'n> {
    toks: Vec<(Tok, usize)>,
    at: usize,
    names: &'n Names,
    depth: usize,
    end_col: usize,
}

pub(super) fn parse(text: &str, names: &Names) -> Result<Expr, FilterError> {
    let toks = lex(text)?;
    if toks.is_empty() {
        return Err(FilterError("the filter is empty".to_string()));
    }
    let mut p = Parser {
        toks,
        at: 0,
        names,
        depth: 0,
        end_col: text.chars().count() + 1,
    };
    let e = p.or()?;
    match p.peek() {
        None => Ok(e),
        Some(_) => Err(p.error("expected \"and\", \"or\" or the end")),
    }
}

impl Parser<'_> {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.at).map(|(t, _)| t)
    }

    fn next(&mut self) -> Option<Tok> {
        let t = self.toks.get(self.at).map(|(t, _)| t.clone());
        self.at += 1;
        t
    }

    fn error(&self, what: &str) -> FilterError {
        let col = self.toks.get(self.at).map_or(self.end_col, |(_, c)| *c);
        FilterError(format!("column {col}: {what}"))
    }

    fn or(&mut self) -> Result<Expr, FilterError> {
        self.joined(&Tok::Or, Parser::and, Expr::Or)
    }

    fn and(&mut self) -> Result<Expr, FilterError> {
        self.joined(&Tok::And, Parser::unary, Expr::And)
    }

    /// `item (sep item)*`, as one expression when there are several.
    fn joined(
        &mut self,
        sep: &Tok,
        item: fn(&mut Self) -> Result<Expr, FilterError>,
        join: fn(Vec<Expr>) -> Expr,
    ) -> Result<Expr, FilterError> {
        let mut v = vec![item(self)?];
        while self.peek() == Some(sep) {
            self.at += 1;
            v.push(item(self)?);
        }
        Ok(if v.len() == 1 { v.remove(0) } else { join(v) })
    }

    fn unary(&mut self) -> Result<Expr, FilterError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.error("nested too deeply"));
        }
        let e = match self.peek() {
            Some(Tok::Not) => {
                self.at += 1;
                Expr::Not(Box::new(self.unary()?))
            }
            Some(Tok::LParen) => {
                self.at += 1;
                let e = self.or()?;
                if self.next() != Some(Tok::RParen) {
                    self.at -= 1;
                    return Err(self.error("expected \")\""));
                }
                e
            }
            _ => self.test()?,
        };
        self.depth -= 1;
        Ok(e)
    }

    /// `FIELD`, `FIELD OP VALUE`, `FIELD contains VALUE`, `FIELD matches "RE"`, `FIELD in {…}`.
    fn test(&mut self) -> Result<Expr, FilterError> {
        let Some(Tok::Word(name)) = self.peek().cloned() else {
            return Err(self.error("expected a field name"));
        };
        let target = self.names.get(&name).map_err(|e| self.error(&e.0))?;
        self.at += 1;
        let cond = match self.peek().cloned() {
            Some(Tok::Cmp(op)) => {
                self.at += 1;
                Cond::Cmp(op, self.literal(&target, &name)?)
            }
            Some(Tok::Word(w)) if w == "contains" => {
                self.at += 1;
                Cond::Contains(self.literal(&target, &name)?)
            }
            Some(Tok::Word(w)) if w == "matches" => {
                self.at += 1;
                Cond::Matches(self.regex()?)
            }
            Some(Tok::Word(w)) if w == "in" => {
                self.at += 1;
                Cond::In(self.set(&target, &name)?)
            }
            _ => Cond::Present,
        };
        Ok(Expr::Test(target, cond))
    }

    fn literal(&mut self, target: &Target, name: &str) -> Result<Literal, FilterError> {
        let lit = match self.peek().cloned() {
            Some(Tok::Word(w) | Tok::Quoted(w)) => Literal::new(w),
            _ => return Err(self.error("expected a value")),
        };
        check_literal(target, name, &lit).map_err(|e| self.error(&e.0))?;
        self.at += 1;
        Ok(lit)
    }

    fn regex(&mut self) -> Result<regex::bytes::Regex, FilterError> {
        let Some(Tok::Quoted(re) | Tok::Word(re)) = self.peek().cloned() else {
            return Err(self.error("expected a regular expression in quotes"));
        };
        let compiled = regex::bytes::RegexBuilder::new(&re)
            .size_limit(1 << 20)
            .build()
            .map_err(|e| self.error(&format!("bad regular expression: {e}")))?;
        self.at += 1;
        Ok(compiled)
    }

    /// `{a b c}`, `{a, b, c}`, with ranges `lo..hi`.
    fn set(&mut self, target: &Target, name: &str) -> Result<Vec<SetItem>, FilterError> {
        if self.next() != Some(Tok::LBrace) {
            self.at -= 1;
            return Err(self.error("expected \"{\" after \"in\""));
        }
        let mut items = Vec::new();
        loop {
            match self.peek().cloned() {
                Some(Tok::RBrace) => {
                    self.at += 1;
                    break;
                }
                Some(Tok::Comma) => self.at += 1,
                Some(Tok::Word(w)) if w.contains("..") && !w.contains('/') => {
                    let (lo, hi) = w.split_once("..").unwrap_or_default();
                    let (lo, hi) = (Literal::new(lo.into()), Literal::new(hi.into()));
                    for l in [&lo, &hi] {
                        check_literal(target, name, l).map_err(|e| self.error(&e.0))?;
                    }
                    items.push(SetItem::Range(lo, hi));
                    self.at += 1;
                }
                Some(Tok::Word(_) | Tok::Quoted(_)) => {
                    items.push(SetItem::One(self.literal(target, name)?));
                }
                _ => return Err(self.error("expected a value or \"}\"")),
            }
        }
        if items.is_empty() {
            return Err(self.error("an empty set matches nothing"));
        }
        Ok(items)
    }
}
