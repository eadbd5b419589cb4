//! `stats` over several captures: each capture's own counts as it is read (a line of text, an
//! element of JSON's `captures`), then one report of them all in the single capture's layout,
//! its flows named by capture and number (`NAME#3`; JSON: `capture` and `flow`).
//!
//! Each capture's part is written as soon as it is counted and only the sum is kept, so memory
//! does not grow with the number of captures; the flows listed together are capped as one
//! capture's are ([`MAX_FLOW_STATS`]), the rest counted as unlisted.

use std::collections::BTreeMap;
use std::io::{self, Write};

use crate::engine::{CountBytes, FlowTableStats, MAX_FLOW_STATS, ProtocolStats, Stats};
use crate::net::defrag::DefragStats;
use crate::output::ListFormat;

/// The report of several captures, written as they come.
pub struct Combined {
    format: ListFormat,
    total: Stats,
    selected: u64,
    captures: u64,
}

/// One capture's element of `captures`: the single capture's keys but its flows (the report's
/// `flows` lists them all), with its name and the input error that ended it.
#[derive(serde::Serialize)]
struct CaptureJson<'a> {
    capture: &'a str,
    error: Option<&'a str>,
    frames: u64,
    captured_bytes: u64,
    truncated_frames: u64,
    bad_records: u64,
    not_ip: u64,
    not_udp: u64,
    link_errors: u64,
    udp_datagrams: u64,
    records: u64,
    protocols: &'a BTreeMap<&'static str, ProtocolStats>,
    message_types: &'a BTreeMap<&'static str, BTreeMap<String, CountBytes>>,
    flow_table: &'a FlowTableStats,
    reassembly: &'a DefragStats,
    notes: &'a BTreeMap<&'static str, u64>,
    frames_selected: u64,
}

impl<'a> CaptureJson<'a> {
    fn new(name: &'a str, s: &'a Stats, selected: u64, error: Option<&'a str>) -> Self {
        CaptureJson {
            capture: name,
            error,
            frames: s.frames,
            captured_bytes: s.captured_bytes,
            truncated_frames: s.truncated_frames,
            bad_records: s.bad_records,
            not_ip: s.not_ip,
            not_udp: s.not_udp,
            link_errors: s.link_errors,
            udp_datagrams: s.udp_datagrams,
            records: s.records,
            protocols: &s.protocols,
            message_types: &s.message_types,
            flow_table: &s.flow_table,
            reassembly: &s.reassembly,
            notes: &s.notes,
            frames_selected: selected,
        }
    }
}

impl Combined {
    pub fn new(format: ListFormat) -> Combined {
        Combined {
            format,
            total: Stats::default(),
            selected: 0,
            captures: 0,
        }
    }

    /// Counts one capture, `selected` of its frames chosen by `--frames`, and writes its part;
    /// `error`: the input error that ended it (its counts are then of what was read).
    pub fn capture(
        &mut self,
        out: &mut dyn Write,
        name: &str,
        mut stats: Stats,
        selected: u64,
        error: Option<&str>,
    ) -> io::Result<()> {
        match self.format {
            ListFormat::Text => self.capture_text(out, name, &stats, error)?,
            ListFormat::Json => {
                out.write_all(if self.captures == 0 {
                    b"{\"captures\":["
                } else {
                    b","
                })?;
                let part = CaptureJson::new(name, &stats, selected, error);
                serde_json::to_writer(&mut *out, &part).map_err(io::Error::other)?;
            }
        }
        self.captures += 1;
        self.selected += selected;
        self.total.add(&stats);
        for mut f in std::mem::take(&mut stats.flows) {
            if self.total.flows.len() >= MAX_FLOW_STATS {
                self.total.flow_table.unlisted += 1;
                continue;
            }
            f.capture = Some(name.to_string());
            self.total.flows.push(f);
        }
        Ok(())
    }

    fn capture_text(
        &self,
        out: &mut dyn Write,
        name: &str,
        s: &Stats,
        error: Option<&str>,
    ) -> io::Result<()> {
        if self.captures == 0 {
            writeln!(out, "Captures:")?;
        }
        write!(
            out,
            "  {}: {} frames, {} bytes captured, {} flows, {} messages",
            crate::text::escaped(name),
            s.frames,
            s.captured_bytes,
            s.flow_table.created,
            s.records
        )?;
        match error {
            Some(e) => writeln!(out, "; input error: {}", crate::text::escaped(e)),
            None => writeln!(out),
        }
    }

    /// Writes the report of every capture counted.
    pub fn finish(self, out: &mut dyn Write) -> io::Result<()> {
        match self.format {
            ListFormat::Text => {
                if self.captures > 0 {
                    writeln!(out)?;
                }
                let (n, frames) = (self.captures, self.total.frames);
                write!(out, "All {n} captures: {frames} frames")?;
                super::tables_text(out, &self.total, self.selected)
            }
            ListFormat::Json => {
                out.write_all(if self.captures == 0 {
                    b"{\"captures\":[],"
                } else {
                    b"],"
                })?;
                let json = serde_json::to_vec(&self.total).map_err(io::Error::other)?;
                // The sum's keys follow, in the single capture's order.
                let keys = json
                    .strip_prefix(b"{")
                    .and_then(|j| j.strip_suffix(b"}"))
                    .ok_or_else(|| io::Error::other("statistics are not a JSON object"))?;
                out.write_all(keys)?;
                writeln!(out, ",\"frames_selected\":{}}}", self.selected)?;
                out.flush()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A capture's element has every key of a single capture's report but `flows`, so the two
    /// cannot drift apart.
    #[test]
    fn a_capture_element_has_the_single_report_keys_but_flows() {
        let s = Stats::default();
        let keys = |v: serde_json::Value| -> Vec<String> {
            v.as_object().unwrap().keys().cloned().collect()
        };
        let mut single = keys(serde_json::to_value(&s).unwrap());
        single.retain(|k| k != "flows");
        single.extend(["capture", "error", "frames_selected"].map(String::from));
        single.sort();
        let mut part = keys(serde_json::to_value(CaptureJson::new("a", &s, 0, None)).unwrap());
        part.sort();
        assert_eq!(part, single);
    }
}
