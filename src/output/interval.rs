//! `stats --interval`: packets, bytes and messages per protocol and message type in fixed time
//! intervals from the capture's first frame, like `tshark -z io,stat`.
//!
//! Intervals are written as soon as a later one has begun, so memory holds two intervals at
//! most whatever the capture's length. A capture's frames are in time order except for small
//! reorderings; a message whose interval was already written is counted as late (shown at the
//! end) rather than in a wrong interval.

use std::collections::BTreeMap;
use std::io::{self, Write};

use crate::output::ListFormat;
use crate::proto::Meta;
use crate::tree::Record;

/// Counts of one protocol or message type in one interval.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Count {
    pub messages: u64,
    /// Datagrams holding at least one of these messages, and their UDP payload bytes.
    pub packets: u64,
    pub bytes: u64,
    last_frame: u64,
}

impl Count {
    fn add(&mut self, frame: u64, len: u64) {
        self.messages += 1;
        if self.packets == 0 || self.last_frame != frame {
            self.packets += 1;
            self.bytes += len;
            self.last_frame = frame;
        }
    }
}

/// One protocol in one interval: its totals and its message types.
#[derive(Debug, Default, Clone)]
pub struct ProtocolCount {
    pub all: Count,
    pub types: BTreeMap<String, Count>,
}

/// One interval's counts, by protocol.
pub type Slot = BTreeMap<&'static str, ProtocolCount>;

/// Gathers records into intervals and writes each when it is complete.
pub struct IntervalStats<W: Write> {
    width_ns: u64,
    format: ListFormat,
    held: BTreeMap<i64, Slot>,
    /// Intervals below this one have been written.
    written_below: i64,
    late: u64,
    out: W,
    started: bool,
    /// `"capture":"NAME",`, the JSON object's first key when several captures are written.
    capture_key: String,
}

impl<W: Write> IntervalStats<W> {
    pub fn new(width_ns: u64, format: ListFormat, out: W) -> Self {
        IntervalStats {
            width_ns: width_ns.max(1),
            format,
            held: BTreeMap::new(),
            written_below: i64::MIN,
            late: 0,
            out,
            started: false,
            capture_key: String::new(),
        }
    }

    /// The JSON object starts with a `capture` key holding `name` (several captures in one
    /// output; the text has a header line per capture instead).
    pub fn with_capture(mut self, name: &str) -> Self {
        self.capture_key = "\"capture\":".to_string();
        super::json::string_into(&mut self.capture_key, name);
        self.capture_key.push(',');
        self
    }

    /// Counts one printed record; writes the intervals that ended before the one before it.
    pub fn record(&mut self, meta: &Meta<'_>, rec: &Record) -> io::Result<()> {
        let rel = meta.time.as_nanos() - meta.base.as_nanos();
        let index = rel.div_euclid(self.width_ns as i128) as i64;
        if index < self.written_below {
            self.late += 1;
            return Ok(());
        }
        let len = meta.payload.len() as u64;
        let p = self.held.entry(index).or_default();
        let p = p.entry(rec.protocol).or_default();
        p.all.add(meta.frame, len);
        match p.types.get_mut(rec.msg_type.as_ref()) {
            Some(c) => c.add(meta.frame, len),
            None => {
                let mut c = Count::default();
                c.add(meta.frame, len);
                p.types.insert(rec.msg_type.to_string(), c);
            }
        }
        // One interval back stays open for reordered frames.
        while let Some((&first, _)) = self.held.first_key_value() {
            if first >= index.saturating_sub(1) {
                break;
            }
            self.write_first()?;
        }
        Ok(())
    }

    fn write_first(&mut self) -> io::Result<()> {
        let Some((index, slot)) = self.held.pop_first() else {
            return Ok(());
        };
        self.written_below = index.saturating_add(1);
        let start = index as f64 * self.width_ns as f64 / 1e9;
        let end = start + self.width_ns as f64 / 1e9;
        match self.format {
            ListFormat::Text => self.text_rows(start, end, &slot),
            ListFormat::Json => self.json_interval(start, end, &slot),
        }
    }

    fn head(&mut self) -> io::Result<()> {
        if self.started {
            return Ok(());
        }
        self.started = true;
        match self.format {
            ListFormat::Text => writeln!(
                self.out,
                "{:>12} {:>12}  {:<12} {:<24} {:>9} {:>9} {:>12}",
                "start", "end", "protocol", "type", "messages", "packets", "bytes"
            ),
            ListFormat::Json => write!(
                self.out,
                "{{{}\"interval\":{:?},\"intervals\":[",
                self.capture_key,
                self.width_ns as f64 / 1e9
            ),
        }
    }

    fn text_rows(&mut self, start: f64, end: f64, slot: &Slot) -> io::Result<()> {
        self.head()?;
        for (proto, p) in slot {
            let rows = std::iter::once(("(all)", &p.all))
                .chain(p.types.iter().map(|(t, c)| (t.as_str(), c)));
            for (ty, c) in rows {
                writeln!(
                    self.out,
                    "{start:>12.6} {end:>12.6}  {proto:<12} {ty:<24} {:>9} {:>9} {:>12}",
                    c.messages, c.packets, c.bytes
                )?;
            }
        }
        Ok(())
    }

    fn json_interval(&mut self, start: f64, end: f64, slot: &Slot) -> io::Result<()> {
        let first = !self.started;
        self.head()?;
        let mut s = String::new();
        if !first {
            s.push(',');
        }
        s.push_str(&format!(
            "{{\"start\":{start:?},\"end\":{end:?},\"protocols\":{{"
        ));
        for (i, (proto, p)) in slot.iter().enumerate() {
            if i > 0 {
                s.push(',');
            }
            super::json::string_into(&mut s, proto);
            s.push(':');
            count_json(&mut s, &p.all);
            s.pop();
            s.push_str(",\"types\":{");
            for (j, (ty, c)) in p.types.iter().enumerate() {
                if j > 0 {
                    s.push(',');
                }
                super::json::string_into(&mut s, ty);
                s.push(':');
                count_json(&mut s, c);
            }
            s.push_str("}}");
        }
        s.push_str("}}");
        self.out.write_all(s.as_bytes())
    }

    /// Writes the intervals still held and the closing lines.
    pub fn finish(mut self) -> io::Result<()> {
        while !self.held.is_empty() {
            self.write_first()?;
        }
        self.head()?;
        match self.format {
            ListFormat::Text if self.late > 0 => writeln!(
                self.out,
                "{} messages arrived after their interval was written (frames out of time order) and are not counted",
                self.late
            )?,
            ListFormat::Text => {}
            ListFormat::Json => writeln!(self.out, "],\"late\":{}}}", self.late)?,
        }
        self.out.flush()
    }
}

fn count_json(s: &mut String, c: &Count) {
    s.push_str(&format!(
        "{{\"messages\":{},\"packets\":{},\"bytes\":{}}}",
        c.messages, c.packets, c.bytes
    ));
}

/// `--interval` values: a number of seconds with an optional unit (`1`, `1s`, `500ms`, `250us`,
/// `2m`). `None` when the text is not a positive duration of at least a microsecond.
pub fn parse_interval(text: &str) -> Option<u64> {
    let t = text.trim();
    let (num, scale) = if let Some(n) = t.strip_suffix("ms") {
        (n, 1e6)
    } else if let Some(n) = t.strip_suffix("us") {
        (n, 1e3)
    } else if let Some(n) = t.strip_suffix('s') {
        (n, 1e9)
    } else if let Some(n) = t.strip_suffix('m') {
        (n, 60e9)
    } else {
        (t, 1e9)
    };
    let v: f64 = num.trim().parse().ok()?;
    let ns = v * scale;
    // A day of microseconds is far below u64; a year bounds the width.
    (ns.is_finite() && (1e3..=365.0 * 86_400e9).contains(&ns)).then_some(ns.round() as u64)
}

#[cfg(test)]
mod tests {
    use super::parse_interval;

    #[test]
    fn interval_values() {
        assert_eq!(parse_interval("1s"), Some(1_000_000_000));
        assert_eq!(parse_interval("1"), Some(1_000_000_000));
        assert_eq!(parse_interval("0.5"), Some(500_000_000));
        assert_eq!(parse_interval("500ms"), Some(500_000_000));
        assert_eq!(parse_interval("250us"), Some(250_000));
        assert_eq!(parse_interval("2m"), Some(120_000_000_000));
        for bad in ["0", "-1s", "x", "", "1ns", "NaN", "inf", "1e30"] {
            assert_eq!(parse_interval(bad), None, "{bad}");
        }
    }
}
