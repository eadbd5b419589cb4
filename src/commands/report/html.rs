//! The page: XHTML-style markup (every element closed, every attribute quoted, so an XML parser
//! reads it), inline CSS with light and dark colours, inline SVG charts; nothing fetched.

use std::fmt::Write as _;

use super::chart::{self, Axes, Series};
use super::games::{self, FgPoint, Path};
use super::markup::escape;
use super::{Gathered, Io};
use crate::tree::Severity;

/// Flow table rows, expert-note rows and series per chart shown.
const MAX_FLOW_ROWS: usize = 30;
const MAX_NOTE_ROWS: usize = 200;
const MAX_LAYERS: usize = 8;
/// Points a chart over time draws at most (its bins merged to fit).
const POINTS: usize = 120;

const STYLE: &str = "
:root{--fg:#1d2330;--bg:#ffffff;--muted:#5d6675;--line:#d9dde3;--head:#f2f4f7;--error:#b42318;--warning:#b54708}
@media (prefers-color-scheme:dark){:root{--fg:#e6e8eb;--bg:#15181d;--muted:#9aa3ae;--line:#343a44;--head:#1f242b;--error:#f97066;--warning:#fdb022}}
body{margin:0 auto;max-width:1320px;padding:16px 24px;font:14px/1.45 system-ui,sans-serif;color:var(--fg);background:var(--bg)}
h1{font-size:22px;margin:4px 0 2px}h2{font-size:18px;margin:28px 0 8px;border-bottom:1px solid var(--line);padding-bottom:4px}
h3{font-size:15px;margin:16px 0 6px}
.muted{color:var(--muted)}
table{border-collapse:collapse;margin:6px 0;font-size:13px}
th,td{border:1px solid var(--line);padding:3px 8px;text-align:left;vertical-align:top}
th{background:var(--head)}td.n{text-align:right;font-variant-numeric:tabular-nums}
.glance{display:grid;grid-template-columns:repeat(auto-fit,minmax(150px,1fr));gap:8px;margin:10px 0}
.glance div{border:1px solid var(--line);border-radius:6px;padding:6px 10px}
.glance b{display:block;font-size:18px;overflow-wrap:anywhere}
.charts{display:grid;grid-template-columns:repeat(auto-fit,minmax(560px,1fr));gap:10px 18px}
figure{margin:0}figcaption{font-weight:600;margin:4px 0}
svg.chart{width:100%;height:auto;max-width:620px;color:var(--fg)}
.legend span{display:inline-block;margin:0 12px 2px 0;font-size:12px}
.legend i{display:inline-block;width:10px;height:10px;margin-right:4px;border-radius:2px}
.error{color:var(--error);font-weight:600}.warning{color:var(--warning);font-weight:600}
";

/// Thousands separated by thin spaces.
fn num(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push('\u{202f}');
        }
        out.push(c);
    }
    out
}

/// The whole page.
pub fn page(g: &Gathered, input_error: Option<String>) -> String {
    let mut h = String::with_capacity(64 << 10);
    let title = format!("gamedissect report: {}", g.file);
    let _ = write!(
        h,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"/>\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\
         <meta name=\"color-scheme\" content=\"light dark\"/>\
         <title>{}</title><style>{STYLE}</style></head><body>\n<h1>{}</h1>\n",
        escape(&title),
        escape(&title)
    );
    if let Some(e) = input_error {
        let _ = writeln!(
            h,
            "<p class=\"error\">The capture could not be read to its end: {}</p>",
            escape(&e)
        );
    }
    glance(&mut h, g);
    io_graph(&mut h, g);
    flows(&mut h, g);
    notes(&mut h, g);
    events(&mut h, g);
    flightgear(&mut h, &g.games);
    quake3(&mut h, &g.games);
    srb2(&mut h, &g.games);
    h.push_str("</body></html>\n");
    h
}

fn duration(g: &Gathered) -> f64 {
    match (g.first, g.last) {
        (Some(a), Some(b)) => b.secs_since(&a),
        _ => 0.0,
    }
}

fn tile(h: &mut String, label: &str, value: &str) {
    let _ = write!(
        h,
        "<div><span class=\"muted\">{}</span><b>{}</b></div>",
        escape(label),
        escape(value)
    );
}

fn glance(h: &mut String, g: &Gathered) {
    let s = &g.stats;
    h.push_str("<section id=\"glance\"><h2>The capture at a glance</h2><div class=\"glance\">");
    tile(h, "duration", &format!("{:.1} s", duration(g)));
    tile(h, "packets", &num(s.frames));
    tile(h, "bytes captured", &num(s.captured_bytes));
    tile(h, "UDP datagrams", &num(s.udp_datagrams));
    tile(h, "flows", &num(s.flow_table.created));
    for sev in ["error", "warning", "note"] {
        tile(
            h,
            &format!("{sev} notes"),
            &num(s.notes.get(sev).copied().unwrap_or(0)),
        );
    }
    h.push_str("</div>\n<table><tr><th>protocol</th><th>datagrams</th><th>messages</th><th>bytes</th><th>malformed</th></tr>");
    for (name, p) in &s.protocols {
        let _ = write!(
            h,
            "<tr><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td></tr>",
            escape(name),
            num(p.datagrams),
            num(p.messages),
            num(p.bytes),
            num(p.malformed)
        );
    }
    h.push_str("</table>\n");
    if let (Some(a), Some(b)) = (g.first, g.last) {
        let _ = write!(
            h,
            "<p class=\"muted\">From {} to {}.",
            a.rfc3339(),
            b.rfc3339()
        );
    } else {
        h.push_str("<p class=\"muted\">No message was reported.");
    }
    if g.sampled && g.with_trees < g.datagrams {
        let _ = write!(
            h,
            " Events, tracks, paths and pings are read from decoded fields, built here for {} of {} datagrams \
             (all of the first {} frames, then each flow's first {} and every {}th): \
             <code>gamedissect events</code> and <code>gamedissect tracks</code> read them all.",
            num(g.with_trees),
            num(g.datagrams),
            num(super::TREES_FROM_START),
            super::TREES_FLOW_START,
            super::TREES_EVERY
        );
    }
    h.push_str("</p></section>\n");
}

fn legend(h: &mut String, names: &[String]) {
    h.push_str("<div class=\"legend\">");
    for (i, n) in names.iter().enumerate() {
        let _ = write!(
            h,
            "<span><i style=\"background:{}\"></i>{}</span>",
            chart::css_color(i),
            escape(n)
        );
    }
    h.push_str("</div>");
}

/// The largest series of a grouping by bytes, the rest summed as `other`, as per-second rates.
fn layers(io: &Io, bytes: bool) -> (Vec<f64>, Vec<Series>) {
    let mut order: Vec<usize> = (0..io.keys.len()).collect();
    order.sort_by(|&a, &b| io.bytes[b].cmp(&io.bytes[a]).then(a.cmp(&b)));
    let shown = order.len().min(if order.len() > MAX_LAYERS {
        MAX_LAYERS - 1
    } else {
        MAX_LAYERS
    });
    let (w, bins) = io.bins.coarse(POINTS);
    let x: Vec<f64> = bins.iter().map(|(t, _)| t + w / 2.0).collect();
    let value = |c: &super::Cell| if bytes { c.bytes } else { c.packets } as f64 / w;
    let series_of = |keys: &[usize], name: String| Series {
        name,
        points: bins
            .iter()
            .map(|(t, slot)| {
                let v = keys.iter().filter_map(|&k| slot.0.get(k)).map(value).sum();
                (*t, v)
            })
            .collect(),
    };
    let mut out: Vec<Series> = order[..shown]
        .iter()
        .map(|&k| series_of(&[k], io.keys[k].clone()))
        .collect();
    if shown < order.len() {
        out.push(series_of(&order[shown..], "others".into()));
    }
    (x, out)
}

fn io_graph(h: &mut String, g: &Gathered) {
    h.push_str("<section id=\"io\"><h2>I/O graph</h2>");
    if g.by_protocol.bins.is_empty() {
        h.push_str("<p class=\"muted\">No messages.</p></section>\n");
        return;
    }
    let _ = write!(
        h,
        "<p class=\"muted\">Per {} s interval (chosen from the capture's length), as rates per second; a datagram counts once per series it carries messages of.</p><div class=\"charts\">",
        g.by_protocol.bins.coarse(POINTS).0
    );
    for (io, what) in [(&g.by_protocol, "protocol"), (&g.by_type, "message type")] {
        for (bytes, unit) in [(false, "packets/s"), (true, "bytes/s")] {
            let (x, series) = layers(io, bytes);
            let _ = write!(h, "<figure><figcaption>{unit} by {what}</figcaption>");
            h.push_str(&chart::stacked(&x, &series, "seconds", unit));
            legend(
                h,
                &series.iter().map(|s| s.name.clone()).collect::<Vec<_>>(),
            );
            h.push_str("</figure>");
        }
    }
    h.push_str("</div></section>\n");
}

fn flows(h: &mut String, g: &Gathered) {
    let s = &g.stats;
    let _ = write!(
        h,
        "<section id=\"flows\"><h2>Flows</h2><p class=\"muted\">{} flows; the {} largest by bytes.</p>",
        num(s.flow_table.created),
        s.flows.len().min(MAX_FLOW_ROWS)
    );
    let mut order: Vec<&crate::engine::FlowStats> = s.flows.iter().collect();
    order.sort_by_key(|f| {
        (
            std::cmp::Reverse(f.bytes_to_server + f.bytes_to_client),
            f.flow,
        )
    });
    h.push_str("<table><tr><th>#</th><th>client</th><th>server</th><th>protocol</th><th>chosen by</th>\
        <th>roles from</th><th>packets c→s</th><th>bytes c→s</th><th>packets s→c</th><th>bytes s→c</th><th>malformed</th></tr>");
    for f in order.into_iter().take(MAX_FLOW_ROWS) {
        let _ = write!(
            h,
            "<tr><td class=\"n\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>\
             <td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td></tr>",
            f.flow,
            f.client,
            f.server,
            escape(f.protocol),
            escape(f.chosen_by),
            escape(f.roles_from),
            num(f.packets_to_server),
            num(f.bytes_to_server),
            num(f.packets_to_client),
            num(f.bytes_to_client),
            num(f.malformed)
        );
    }
    h.push_str("</table></section>\n");
}

fn notes(h: &mut String, g: &Gathered) {
    h.push_str("<section id=\"notes\"><h2>Expert notes</h2>");
    if g.notes.is_empty() {
        h.push_str("<p class=\"muted\">None.</p></section>\n");
        return;
    }
    h.push_str("<table><tr><th>severity</th><th>protocol</th><th>message</th><th>note</th><th>count</th><th>first frames</th><th>first text</th></tr>");
    // Worst first.
    for ((sev, proto, ty, name), n) in g.notes.iter().rev().take(MAX_NOTE_ROWS) {
        let sev = match sev {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => "note",
        };
        let frames: Vec<String> = n.frames.iter().map(u64::to_string).collect();
        let _ = write!(
            h,
            "<tr><td class=\"{sev}\">{sev}</td><td>{}</td><td>{}</td><td>{}</td><td class=\"n\">{}</td><td>{}</td><td>{}</td></tr>",
            escape(proto),
            escape(ty),
            escape(name),
            num(n.count),
            frames.join(", "),
            escape(&n.message)
        );
    }
    h.push_str("</table>");
    if g.notes.len() > MAX_NOTE_ROWS || g.notes_left_out > 0 {
        let _ = write!(
            h,
            "<p class=\"muted\">Groups past the first {MAX_NOTE_ROWS} are not listed; {} notes fell past the {} groups kept.</p>",
            num(g.notes_left_out),
            super::MAX_NOTE_GROUPS
        );
    }
    h.push_str("</section>\n");
}

fn label(l: &Option<crate::toolkit::facts::Label>) -> String {
    l.as_ref().map(|l| escape(&l.clean)).unwrap_or_default()
}

fn events(h: &mut String, g: &Gathered) {
    if g.event_counts.is_empty() {
        return;
    }
    h.push_str("<section id=\"events\"><h2>Events</h2>");
    let rows: Vec<String> = g
        .event_counts
        .keys()
        .map(|(p, k)| format!("{p} {k}"))
        .collect();
    let keys: Vec<_> = g.event_counts.keys().copied().collect();
    let marks: Vec<(f64, usize)> = g
        .event_marks
        .iter()
        .filter_map(|(t, k)| keys.iter().position(|x| x == k).map(|i| (*t, i)))
        .collect();
    h.push_str(&chart::timeline(&marks, &rows, duration(g)));
    h.push_str("<p>");
    for ((p, k), n) in &g.event_counts {
        let _ = write!(h, "{} {}: {} &#160; ", escape(p), escape(k), num(*n));
    }
    h.push_str("</p><table><tr><th>seconds</th><th>frame</th><th>event</th><th>who</th><th>target</th><th>text</th></tr>");
    for l in &g.events {
        let e = &l.event;
        let _ = write!(
            h,
            "<tr><td class=\"n\">{:.3}</td><td class=\"n\">{}</td><td>{} {}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            l.rel,
            e.frame,
            escape(e.protocol),
            escape(e.kind),
            label(&e.who),
            label(&e.target),
            label(&e.text)
        );
    }
    h.push_str("</table>");
    let total: u64 = g.event_counts.values().sum();
    if total > g.events.len() as u64 {
        let _ = write!(
            h,
            "<p class=\"muted\">The first {} of {} events are listed.</p>",
            g.events.len(),
            num(total)
        );
    }
    h.push_str("</section>\n");
}

/// A round length near a quarter of `span`: 1, 2 or 5 times a power of ten.
fn nice(span: f64) -> f64 {
    let target = (span / 4.0).max(1e-9);
    let p = 10f64.powf(target.log10().floor());
    [5.0, 2.0, 1.0]
        .into_iter()
        .map(|m| m * p)
        .find(|&v| v <= target)
        .unwrap_or(p)
}

fn flightgear(h: &mut String, g: &games::Games) {
    if g.fg.is_empty() {
        return;
    }
    h.push_str("<section id=\"flightgear\"><h2>FlightGear tracks</h2>");
    let names: Vec<String> = g.fg.keys().cloned().collect();
    let track = |f: fn(&FgPoint) -> (f64, f64)| -> Vec<Series> {
        g.fg.iter()
            .map(|(c, p): (&String, &Path<FgPoint>)| Series {
                name: c.clone(),
                points: p.points.iter().map(f).collect(),
            })
            .collect()
    };
    let map = track(|p| (p[1], p[2]));
    let lats: Vec<f64> = map
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.1))
        .collect();
    let mid = lats.iter().sum::<f64>() / lats.len().max(1) as f64;
    // A degree of longitude is cos(latitude) times a degree of latitude (111.32 km).
    let cos = mid.to_radians().cos().abs().max(0.01);
    let lon_span = map
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.0))
        .fold((f64::MAX, f64::MIN), |a, x| (a.0.min(x), a.1.max(x)));
    let km = nice(((lon_span.1 - lon_span.0).max(0.0) * 111.32 * cos).max(0.01));
    let axes = Axes {
        x_desc: "longitude °",
        y_desc: "latitude °",
        aspect: Some(1.0 / cos),
        scale: Some((km / (111.32 * cos), format!("{km} km"))),
    };
    h.push_str(
        "<div class=\"charts\"><figure><figcaption>Position (longitude, latitude)</figcaption>",
    );
    h.push_str(&chart::lines(&map, &axes, None));
    legend(h, &names);
    h.push_str("</figure><figure><figcaption>Altitude</figcaption>");
    let alt = Axes {
        x_desc: "seconds",
        y_desc: "feet",
        ..Axes::default()
    };
    h.push_str(&chart::lines(&track(|p| (p[0], p[3])), &alt, None));
    legend(h, &names);
    h.push_str("</figure></div><table><tr><th>callsign</th><th>positions</th><th>first s</th><th>last s</th></tr>");
    for (c, p) in &g.fg {
        let (a, b) = (
            p.points.first().map_or(0.0, |x| x[0]),
            p.points.last().map_or(0.0, |x| x[0]),
        );
        let _ = write!(
            h,
            "<tr><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{a:.1}</td><td class=\"n\">{b:.1}</td></tr>",
            escape(c),
            num(p.seen())
        );
    }
    h.push_str("</table>");
    left_out(h, g.fg_left_out, "positions of callsigns");
    h.push_str("</section>\n");
}

/// Says how much a bounded chart left out, if anything.
fn left_out(h: &mut String, n: u64, what: &str) {
    if n > 0 {
        let _ = write!(
            h,
            "<p class=\"muted\">{} {what} past the first {} (or {} maps) are not drawn.</p>",
            num(n),
            games::MAX_TRACKS,
            games::MAX_MAPS
        );
    }
}

fn quake3(h: &mut String, g: &games::Games) {
    if g.q3_paths.is_empty() && g.q3_clients.is_empty() {
        return;
    }
    h.push_str("<section id=\"quake3\"><h2>Quake 3</h2><div class=\"charts\">");
    for (map, players) in &g.q3_paths {
        let series: Vec<Series> = players
            .iter()
            .map(|(who, p)| Series {
                name: g.q3_label(who),
                points: p.points.clone(),
            })
            .collect();
        let _ = write!(
            h,
            "<figure><figcaption>Paths on {} (top-down, map units)</figcaption>",
            escape(map)
        );
        let axes = Axes {
            x_desc: "x",
            y_desc: "y",
            aspect: Some(1.0),
            scale: None,
        };
        // A step this long is a respawn or a teleporter, not a run.
        h.push_str(&chart::lines(&series, &axes, Some(600.0)));
        legend(
            h,
            &series.iter().map(|s| s.name.clone()).collect::<Vec<_>>(),
        );
        h.push_str("</figure>");
    }
    let names: Vec<String> = g.q3_clients.values().map(|c| c.label.clone()).collect();
    for (what, unit) in [
        ("Snapshot rate", "snapshots/s"),
        ("Snapshot size", "mean bytes"),
    ] {
        let series: Vec<Series> = g
            .q3_clients
            .values()
            .map(|c| {
                let (w, bins) = c.bins.coarse(POINTS);
                let points = bins.iter().filter(|(_, s)| s.count > 0).map(|(t, s)| {
                    let v = if unit == "snapshots/s" {
                        s.count as f64 / w
                    } else {
                        s.bytes as f64 / s.count as f64
                    };
                    (t + w / 2.0, v)
                });
                Series {
                    name: c.label.clone(),
                    points: points.collect(),
                }
            })
            .collect();
        let _ = write!(h, "<figure><figcaption>{what} per client</figcaption>");
        h.push_str(&chart::lines(
            &series,
            &Axes {
                x_desc: "seconds",
                y_desc: unit,
                ..Axes::default()
            },
            None,
        ));
        legend(h, &names);
        h.push_str("</figure>");
    }
    h.push_str("</div>");
    left_out(
        h,
        g.q3_left_out,
        "positions or snapshots of maps, players or clients",
    );
    h.push_str("</section>\n");
}

fn srb2(h: &mut String, g: &games::Games) {
    if !g.srb2_seen {
        return;
    }
    h.push_str("<section id=\"srb2\"><h2>SRB2 players and ping</h2><p class=\"muted\">From the server's ping tables (PT_PING): the slots of players the decoder knows by name, and any other slot with a non-zero ping.</p><div class=\"charts\">");
    let (w, bins) = g.srb2.coarse(POINTS);
    let players = Series {
        name: "players".into(),
        points: bins
            .iter()
            .filter_map(|(t, b)| b.players.map(|p| (t + w / 2.0, f64::from(p))))
            .collect(),
    };
    h.push_str("<figure><figcaption>Players</figcaption>");
    h.push_str(&chart::lines(
        &[players],
        &Axes {
            x_desc: "seconds",
            y_desc: "players",
            ..Axes::default()
        },
        None,
    ));
    h.push_str("</figure><figure><figcaption>Ping per player slot</figcaption>");
    let pings: Vec<Series> = (0..games::SRB2_SLOTS)
        .filter(|&i| bins.iter().any(|(_, b)| b.n[i] > 0))
        .map(|i| Series {
            name: g.srb2_names[i]
                .clone()
                .unwrap_or_else(|| format!("player {i}")),
            points: bins
                .iter()
                .filter(|(_, b)| b.n[i] > 0)
                .map(|(t, b)| (t + w / 2.0, b.sum[i] as f64 / f64::from(b.n[i])))
                .collect(),
        })
        .collect();
    h.push_str(&chart::lines(
        &pings,
        &Axes {
            x_desc: "seconds",
            y_desc: "ms",
            ..Axes::default()
        },
        None,
    ));
    legend(h, &pings.iter().map(|s| s.name.clone()).collect::<Vec<_>>());
    h.push_str("</figure></div></section>\n");
}
