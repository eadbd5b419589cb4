//! `gamedissect stats`: counts per protocol, message type and flow, plus what the bounds did.

use std::io::{self, Write};

use crate::engine::{Config, FrameRange, Stats};

mod combined;
pub use combined::Combined;

/// How many of the first `read` frames `--frames` selects (all of them without it).
pub fn frames_selected(config: &Config, read: u64) -> u64 {
    let clip = |r: &FrameRange| (r.first.max(1), r.last.min(read));
    let mut ranges: Vec<(u64, u64)> = if config.frame_list.is_empty() {
        vec![clip(&config.frames)]
    } else {
        config.frame_list.iter().map(clip).collect()
    };
    // The ranges may overlap (`1-5,3-8`): count their union.
    ranges.sort_unstable();
    let (mut total, mut next) = (0, 1);
    for (first, last) in ranges {
        let first = first.max(next);
        if first <= last {
            total += last - first + 1;
            next = last + 1;
        }
    }
    total
}

/// The statistics as one JSON object on one line, with `frames_selected`: how many of the
/// `frames` read `--frames` selected.
pub fn write_json<W: Write>(mut out: W, stats: &Stats, selected: u64) -> io::Result<()> {
    // Appended to the object as written, so its keys keep their order.
    let mut json = serde_json::to_vec(stats).map_err(io::Error::other)?;
    if json.pop() != Some(b'}') {
        return Err(io::Error::other("statistics are not a JSON object"));
    }
    out.write_all(&json)?;
    writeln!(out, ",\"frames_selected\":{selected}}}")?;
    out.flush()
}

/// The statistics as aligned text tables; `selected` frames of those read were selected by
/// `--frames` (said only when fewer than all).
pub fn write_text<W: Write>(mut out: W, s: &Stats, selected: u64) -> io::Result<()> {
    write!(out, "Capture: {} frames", s.frames)?;
    tables_text(out, s, selected)
}

/// The text after the first words of the first line.
fn tables_text<W: Write>(mut out: W, s: &Stats, selected: u64) -> io::Result<()> {
    if selected < s.frames {
        write!(out, " read, {selected} selected by --frames")?;
    }
    writeln!(
        out,
        ", {} bytes captured, {} cut by the snaplen, {} bad records",
        s.captured_bytes, s.truncated_frames, s.bad_records
    )?;
    writeln!(
        out,
        "  UDP datagrams {}, other IP {}, not IP {}, unreadable link/IP/UDP headers {}",
        s.udp_datagrams, s.not_udp, s.not_ip, s.link_errors
    )?;
    writeln!(out)?;
    protocols_text(&mut out, s)?;
    flows_text(&mut out, s)?;
    bounds_text(&mut out, s)?;
    out.flush()
}

fn protocols_text<W: Write>(out: &mut W, s: &Stats) -> io::Result<()> {
    writeln!(out, "Protocols:")?;
    writeln!(
        out,
        "  {:<12} {:>10} {:>10} {:>12} {:>10} {:>8} {:>9}",
        "protocol", "datagrams", "messages", "bytes", "malformed", "short", "warnings"
    )?;
    for (name, p) in &s.protocols {
        writeln!(
            out,
            "  {:<12} {:>10} {:>10} {:>12} {:>10} {:>8} {:>9}",
            name, p.datagrams, p.messages, p.bytes, p.malformed, p.short, p.warnings
        )?;
    }
    writeln!(out)?;
    writeln!(out, "Message types:")?;
    writeln!(
        out,
        "  {:<12} {:<32} {:>10} {:>12}",
        "protocol", "type", "messages", "bytes"
    )?;
    for (proto, types) in &s.message_types {
        for (t, c) in types {
            writeln!(
                out,
                "  {:<12} {:<32} {:>10} {:>12}",
                proto, t, c.messages, c.bytes
            )?;
        }
    }
    writeln!(out)
}

fn flows_text<W: Write>(out: &mut W, s: &Stats) -> io::Result<()> {
    writeln!(
        out,
        "Flows ({} seen, {} listed):",
        s.flow_table.created,
        s.flows.len()
    )?;
    for f in &s.flows {
        // A flow number is per capture: with several, the capture names it too.
        if let Some(c) = &f.capture {
            write!(out, "  {}", crate::text::escaped(c))?;
        } else {
            write!(out, "  ")?;
        }
        writeln!(
            out,
            "#{} {} → {} {} (by {}; roles: {}) c→s {} pkts {} bytes, s→c {} pkts {} bytes, {} messages, {} malformed, {} .. {}",
            f.flow,
            f.client,
            f.server,
            f.protocol,
            f.chosen_by,
            f.roles_from,
            f.packets_to_server,
            f.bytes_to_server,
            f.packets_to_client,
            f.bytes_to_client,
            f.messages,
            f.malformed,
            f.first,
            f.last
        )?;
        for (k, v) in &f.facts {
            let (k, v) = (crate::text::escaped(k), crate::text::escaped(v));
            writeln!(out, "      {k}: {v}")?;
        }
    }
    writeln!(out)
}

/// What the bounds did: the flow table, decoder state, reassembly, and the notes by severity.
fn bounds_text<W: Write>(out: &mut W, s: &Stats) -> io::Result<()> {
    let t = &s.flow_table;
    writeln!(
        out,
        "Flow table: peak {} flows, evicted {} idle and {} at the cap, {} past the listing cap",
        t.peak, t.evicted_idle, t.evicted_cap, t.unlisted
    )?;
    writeln!(
        out,
        "Decoder state: peak {} bytes, dropped {} times at the --max-state budget",
        t.state_peak, t.state_dropped
    )?;
    let r = &s.reassembly;
    writeln!(
        out,
        "IP reassembly: {} fragments, {} datagrams reassembled, {} timed out, dropped {} at the memory cap, {} at the pending cap, {} invalid; peak {} bytes held",
        r.fragments,
        r.reassembled,
        r.timed_out,
        r.dropped_memory_cap,
        r.dropped_pending_cap,
        r.dropped_invalid,
        r.peak_bytes
    )?;
    let notes: Vec<String> = s.notes.iter().map(|(k, v)| format!("{k} {v}")).collect();
    writeln!(
        out,
        "Notes: {}",
        if notes.is_empty() {
            "none".to_string()
        } else {
            notes.join(", ")
        }
    )
}
