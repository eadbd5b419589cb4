//! `gamedissect tracks`: FlightGear movement over time, one track per callsign, as CSV (streamed,
//! one row per position packet), GeoJSON (RFC 7946, one LineString feature per callsign), KML
//! (a time-stamped `gx:Track` per callsign) or GPX 1.1 (one `trk` per callsign).
//! Positions are the decoder's derived geodetic ones (`flightgear.position.geodetic.*`), read by
//! field name; see docs/tracks.md.

use std::collections::HashMap;
use std::io::{self, BufWriter, Write};

use crate::engine::{Config, Engine, Meta};
use crate::protocols;
use crate::run::{Outcome, run_capture};
use crate::tree::{Field, Record, Value};

mod xml;

/// How tracks are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum TrackFormat {
    Csv,
    Geojson,
    Kml,
    Gpx,
}

/// The CSV header.
pub const CSV_COLUMNS: &str =
    "frame,time,rel,callsign,latitude,longitude,altitude_ft,heading,pitch,roll,speed_kt,model";

/// Points held for GeoJSON, KML and GPX (which group by callsign, so cannot stream): about 40 bytes
/// each. Past this, further points are dropped and counted; CSV has no such bound.
const MAX_POINTS: usize = 4_000_000;
/// m/s to knots.
const KNOTS_PER_MPS: f64 = 3600.0 / 1852.0;

/// One position of one callsign.
#[derive(Debug, Clone, PartialEq)]
pub struct Point {
    pub frame: u64,
    pub time: crate::capture::Timestamp,
    pub rel: f64,
    pub lat: f64,
    pub lon: f64,
    pub alt_ft: f64,
    pub heading: f64,
    pub pitch: f64,
    pub roll: f64,
    pub speed_kt: f64,
}

fn float(v: &Value) -> Option<f64> {
    match *v {
        Value::F32(x) => Some(f64::from(x)),
        Value::F64(x) => Some(x),
        _ => None,
    }
}

fn find_f(f: &Field, name: &str) -> Option<f64> {
    f.find(name).and_then(|c| float(&c.value))
}

/// The callsign, model and position of a FlightGear position record.
pub fn point_of(meta: &Meta<'_>, record: &Record) -> Option<(String, String, Point)> {
    if record.protocol != "flightgear" {
        return None;
    }
    let root = record.fields.iter().find(|f| f.def.name == "flightgear")?;
    let callsign = match &root.find("flightgear.callsign")?.value {
        Value::Str(s) => s.to_string(),
        _ => return None,
    };
    let pos = root.find("flightgear.position")?;
    let model = match pos.find("flightgear.position.model").map(|m| &m.value) {
        Some(Value::Str(s)) => s.to_string(),
        _ => String::new(),
    };
    let p = "flightgear.position.";
    let v = |axis: &str| find_f(pos, &format!("{p}linear_velocity.{axis}")).unwrap_or(0.0);
    let speed = (v("x").powi(2) + v("y").powi(2) + v("z").powi(2)).sqrt() * KNOTS_PER_MPS;
    let point = Point {
        frame: meta.frame,
        time: meta.time,
        rel: meta.time.secs_since(&meta.base),
        lat: find_f(pos, &format!("{p}geodetic.latitude"))?,
        lon: find_f(pos, &format!("{p}geodetic.longitude"))?,
        alt_ft: find_f(pos, &format!("{p}geodetic.altitude_ft"))?,
        heading: find_f(pos, &format!("{p}attitude.heading"))?,
        pitch: find_f(pos, &format!("{p}attitude.pitch"))?,
        roll: find_f(pos, &format!("{p}attitude.roll"))?,
        speed_kt: speed,
    };
    Some((callsign, model, point))
}

fn csv_row(out: &mut impl Write, callsign: &str, model: &str, p: &Point) -> io::Result<()> {
    // Callsigns and model paths are short ASCII names; a comma or quote is still quoted.
    let q = |s: &str| {
        if s.contains([',', '"', '\n', '\r']) {
            format!("\"{}\"", s.replace('"', "\"\""))
        } else {
            s.to_string()
        }
    };
    writeln!(
        out,
        "{},{},{:.6},{},{},{},{},{},{},{},{:.1},{}",
        p.frame,
        p.time.rfc3339(),
        p.rel,
        q(callsign),
        p.lat,
        p.lon,
        p.alt_ft,
        p.heading,
        p.pitch,
        p.roll,
        p.speed_kt,
        q(model)
    )
}

/// A callsign's track, for the formats that group by callsign.
#[derive(Default)]
struct Track {
    model: String,
    points: Vec<Point>,
}

fn geojson(tracks: Vec<(String, Track)>) -> geojson::FeatureCollection {
    let features = tracks
        .into_iter()
        .map(|(callsign, t)| {
            let coords: Vec<Vec<f64>> = t
                .points
                .iter()
                .map(|p| vec![p.lon, p.lat, p.alt_ft * 0.3048])
                .collect();
            let col = |f: fn(&Point) -> serde_json::Value| -> serde_json::Value {
                t.points.iter().map(f).collect::<Vec<_>>().into()
            };
            let mut props = serde_json::Map::new();
            props.insert("callsign".into(), callsign.into());
            props.insert("model".into(), t.model.clone().into());
            props.insert("time".into(), col(|p| p.time.rfc3339().into()));
            props.insert("frame".into(), col(|p| p.frame.into()));
            props.insert("heading".into(), col(|p| p.heading.into()));
            props.insert("pitch".into(), col(|p| p.pitch.into()));
            props.insert("roll".into(), col(|p| p.roll.into()));
            props.insert("speed_kt".into(), col(|p| p.speed_kt.into()));
            // A LineString needs two positions (RFC 7946 §3.1.4); one position is a Point.
            let geometry = if coords.len() >= 2 {
                geojson::Value::LineString(coords)
            } else {
                geojson::Value::Point(coords.into_iter().next().unwrap_or_default())
            };
            geojson::Feature {
                bbox: None,
                geometry: Some(geojson::Geometry::new(geometry)),
                id: None,
                properties: Some(props),
                foreign_members: None,
            }
        })
        .collect();
    geojson::FeatureCollection {
        bbox: None,
        features,
        foreign_members: None,
    }
}

/// Decodes `input` and writes its FlightGear tracks.
pub fn tracks<R: io::BufRead>(
    input: R,
    total_len: Option<u64>,
    config: Config,
    format: TrackFormat,
    out: impl Write,
    warn: &mut dyn FnMut(&crate::capture::CaptureError),
) -> Outcome {
    let config = Config {
        detail: true,
        flow_stats: false,
        message_stats: false,
        ..config
    };
    let mut out = BufWriter::with_capacity(1 << 16, out);
    if format == TrackFormat::Csv
        && let Err(e) = writeln!(out, "{CSV_COLUMNS}")
    {
        return Outcome::Output(e);
    }
    let mut tracks: HashMap<String, Track> = HashMap::new();
    let mut order: Vec<String> = Vec::new();
    let (mut held, mut dropped) = (0usize, 0u64);
    let mut engine = Engine::new(protocols::all(), config);
    let mut outcome = run_capture(input, &mut engine, total_len, warn, &mut |m, r| {
        let Some((callsign, model, point)) = point_of(m, r) else {
            return Ok(());
        };
        if format == TrackFormat::Csv {
            return csv_row(&mut out, &callsign, &model, &point);
        }
        if held >= MAX_POINTS {
            dropped += 1;
            return Ok(());
        }
        held += 1;
        let t = tracks.entry(callsign).or_insert_with_key(|k| {
            order.push(k.clone());
            Track::default()
        });
        t.model = model;
        t.points.push(point);
        Ok(())
    });
    if format != TrackFormat::Csv {
        if dropped > 0 {
            eprintln!(
                "gamedissect: {dropped} positions past the first {MAX_POINTS} left out (use --format csv)"
            );
        }
        let all: Vec<(String, Track)> = order
            .into_iter()
            .filter_map(|c| tracks.remove(&c).map(|t| (c, t)))
            .collect();
        let written = match format {
            TrackFormat::Kml => xml::kml(&mut out, &all),
            TrackFormat::Gpx => xml::gpx(&mut out, &all),
            _ => serde_json::to_writer(&mut out, &geojson(all)).map_err(io::Error::other),
        }
        .and_then(|()| writeln!(out));
        if let Err(e) = written
            && matches!(outcome, Outcome::Done)
        {
            outcome = Outcome::Output(e);
        }
    }
    if let Err(e) = out.flush()
        && matches!(outcome, Outcome::Done)
    {
        outcome = Outcome::Output(e);
    }
    outcome
}

/// The tracks of a capture held in memory, as text (tests).
pub fn tracks_of(bytes: &[u8], config: Config, format: TrackFormat) -> String {
    let mut out = Vec::new();
    let _ = tracks(bytes, None, config, format, &mut out, &mut |_| {});
    String::from_utf8_lossy(&out).into_owned()
}
