//! `--format fields`: one line per message with the values of the `-e` columns, as
//! `tshark -T fields` writes them, with its `-E` options (`header`, `separator`, `quote`,
//! `occurrence`, `aggregator`).
//!
//! Unquoted (the default, TSV), a value's tabs, newlines, carriage returns and backslashes are
//! written `\t`, `\n`, `\r`, `\\`, other control characters `\xNN`, so that a line is always
//! one message. With `quote=d` (or `s`)
//! every value is quoted and a quote inside is doubled, as RFC 4180 CSV has it, so that pandas
//! and DuckDB read the file as is.

use std::io::{self, Write};

use super::RecordWriter;
use crate::filter::Column;
use crate::proto::Meta;
use crate::tree::Record;

/// Which occurrences of a repeated field a column shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Occurrence {
    All,
    First,
    Last,
    /// The Nth (1-based).
    Nth(usize),
}

/// The columns and the `-E` options.
#[derive(Debug)]
pub struct FieldsSpec {
    pub columns: Vec<Column>,
    pub header: bool,
    pub separator: String,
    pub quote: Option<char>,
    pub occurrence: Occurrence,
    pub aggregator: String,
}

impl FieldsSpec {
    /// The columns with tshark's defaults: no header, tab-separated, unquoted, every occurrence
    /// joined by `,`.
    pub fn new(columns: Vec<Column>) -> FieldsSpec {
        FieldsSpec {
            columns,
            header: false,
            separator: "\t".to_string(),
            quote: None,
            occurrence: Occurrence::All,
            aggregator: ",".to_string(),
        }
    }

    /// Applies one `-E KEY=VALUE`, spelt as tshark spells it (`/t` tab, `/s` space).
    pub fn set(&mut self, option: &str) -> Result<(), String> {
        let (k, v) = option
            .split_once('=')
            .ok_or_else(|| format!("-E {option:?}: expected KEY=VALUE"))?;
        let chars = |v: &str| match v {
            "/t" => "\t".to_string(),
            "/s" => " ".to_string(),
            v => v.to_string(),
        };
        let bad = |what: &str| Err(format!("-E {option:?}: {k} takes {what}"));
        match (k, v) {
            ("header", "y") => self.header = true,
            ("header", "n") => self.header = false,
            ("header", _) => return bad("y or n"),
            ("separator", v) if !v.is_empty() => self.separator = chars(v),
            ("aggregator", v) if !v.is_empty() => self.aggregator = chars(v),
            ("separator" | "aggregator", _) => return bad("a character, /t or /s"),
            ("quote", "d") => self.quote = Some('"'),
            ("quote", "s") => self.quote = Some('\''),
            ("quote", "n") => self.quote = None,
            ("quote", _) => return bad("d, s or n"),
            ("occurrence", "f") => self.occurrence = Occurrence::First,
            ("occurrence", "l") => self.occurrence = Occurrence::Last,
            ("occurrence", "a") => self.occurrence = Occurrence::All,
            ("occurrence", n) => match n.parse::<usize>() {
                Ok(n) if n > 0 => self.occurrence = Occurrence::Nth(n),
                _ => return bad("f, l, a or a number from 1"),
            },
            _ => {
                return Err(format!(
                    "-E {option:?}: unknown option {k:?} (header, separator, quote, occurrence, aggregator)"
                ));
            }
        }
        Ok(())
    }

    /// The header line (the column names), with its newline.
    pub fn header_line(&self) -> String {
        let mut line = String::new();
        for (i, c) in self.columns.iter().enumerate() {
            if i > 0 {
                line.push_str(&self.separator);
            }
            self.value_into(&mut line, &c.name);
        }
        line.push('\n');
        line
    }

    fn value_into(&self, out: &mut String, v: &str) {
        match self.quote {
            Some(q) => {
                out.push(q);
                // A newline or a tab in quotes is CSV's own and reads back as it was; every
                // other control is escaped as every text writer does.
                for c in v.chars() {
                    match c {
                        c if c == q => {
                            out.push(q);
                            out.push(q);
                        }
                        '\n' | '\t' => out.push(c),
                        c => crate::text::push_escaped_char(out, c),
                    }
                }
                out.push(q);
            }
            None => {
                for c in v.chars() {
                    match c {
                        '\\' => out.push_str("\\\\"),
                        c => crate::text::push_escaped_char(out, c),
                    }
                }
            }
        }
    }
}

pub struct FieldsWriter<W: Write> {
    out: W,
    spec: &'static FieldsSpec,
    line: String,
    values: Vec<String>,
    /// What `-e capture` writes.
    capture: String,
}

impl<W: Write> FieldsWriter<W> {
    pub fn new(out: W, spec: &'static FieldsSpec) -> Self {
        FieldsWriter {
            out,
            spec,
            line: String::with_capacity(256),
            values: Vec::new(),
            capture: String::new(),
        }
    }

    /// The records come from the capture `name` (the `capture` column).
    pub fn with_capture(mut self, name: &str) -> Self {
        name.clone_into(&mut self.capture);
        self
    }
}

impl<W: Write> RecordWriter for FieldsWriter<W> {
    fn record(&mut self, meta: &Meta<'_>, rec: &Record) -> io::Result<()> {
        let spec = self.spec;
        self.line.clear();
        for (i, c) in spec.columns.iter().enumerate() {
            if i > 0 {
                self.line.push_str(&spec.separator);
            }
            c.texts(meta, rec, &self.capture, &mut self.values);
            let picked: &[String] = match spec.occurrence {
                Occurrence::All => &self.values,
                Occurrence::First => self.values.first().map(std::slice::from_ref).unwrap_or(&[]),
                Occurrence::Last => self.values.last().map(std::slice::from_ref).unwrap_or(&[]),
                Occurrence::Nth(n) => self
                    .values
                    .get(n - 1)
                    .map(std::slice::from_ref)
                    .unwrap_or(&[]),
            };
            // One value in quotes for the column: the occurrences joined, then quoted.
            let joined = picked.join(&spec.aggregator);
            if !picked.is_empty() || spec.quote.is_some() {
                spec.value_into(&mut self.line, &joined);
            }
        }
        self.line.push('\n');
        self.out.write_all(self.line.as_bytes())
    }

    fn finish(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}
