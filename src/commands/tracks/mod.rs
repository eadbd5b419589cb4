//! `gamedissect tracks`: FlightGear movement over time, one track per callsign, as CSV (streamed,
//! one row per position packet), GeoJSON (RFC 7946, one LineString feature per callsign), KML
//! (a time-stamped `gx:Track` per callsign) or GPX 1.1 (one `trk` per callsign).
//! Positions are the decoder's derived geodetic ones, read through the FlightGear facts
//! (`protocols::flightgear::facts::position`); see docs/tracks.md. Quake 3 snapshots give
//! per-snapshot rows of the recording client and every visible player (`quake3`), as CSV or
//! NDJSON.

use std::process::ExitCode;

use super::{Decode, finish_outcome, one_input, open_decode};
use std::collections::HashMap;
use std::io::{self, BufWriter, Write};

use crate::engine::{Config, Engine};
use crate::proto::Meta;
use crate::protocols;
use crate::protocols::flightgear::facts::position;
use crate::run::{Outcome, run_capture};
use crate::tree::Record;

mod quake3;
mod xml;

pub use quake3::CSV_COLUMNS as QUAKE3_CSV_COLUMNS;

/// How tracks are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TrackFormat {
    /// One row a position, streamed (FlightGear or Quake 3 columns)
    Csv,
    /// RFC 7946, one LineString a callsign (FlightGear)
    Geojson,
    /// A time-stamped gx:Track a callsign, for Google Earth (FlightGear)
    Kml,
    /// GPX 1.1, one trk a callsign (FlightGear)
    Gpx,
    /// One JSON object a line, streamed (FlightGear and Quake 3)
    Ndjson,
}

/// The CSV header of FlightGear tracks.
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

/// The callsign, model and position of a FlightGear position record.
pub fn point_of(meta: &Meta<'_>, record: &Record) -> Option<(String, String, Point)> {
    let p = position(record)?;
    let point = Point {
        frame: meta.frame,
        time: meta.time,
        rel: meta.time.secs_since(&meta.base),
        lat: p.latitude,
        lon: p.longitude,
        alt_ft: p.altitude_ft,
        heading: p.heading,
        pitch: p.pitch,
        roll: p.roll,
        speed_kt: p.speed * KNOTS_PER_MPS,
    };
    Some((p.callsign, p.model, point))
}

fn csv_row(out: &mut impl Write, callsign: &str, model: &str, p: &Point) -> io::Result<()> {
    // Callsigns and model paths are short ASCII names; a comma or quote is still quoted, and
    // control characters are escaped as every text writer does.
    let q = |s: &str| {
        let s = crate::text::escaped(s);
        if s.contains([',', '"']) {
            format!("\"{}\"", s.replace('"', "\"\""))
        } else {
            s.into_owned()
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

/// A FlightGear position as one NDJSON line, with the CSV's columns.
fn json_row(callsign: &str, model: &str, p: &Point) -> String {
    serde_json::json!({
        "frame": p.frame,
        "time": p.time.rfc3339(),
        "rel": p.rel,
        "protocol": "flightgear",
        "callsign": callsign,
        "latitude": p.lat,
        "longitude": p.lon,
        "altitude_ft": p.alt_ft,
        "heading": p.heading,
        "pitch": p.pitch,
        "roll": p.roll,
        "speed_kt": p.speed_kt,
        "model": model,
    })
    .to_string()
}

/// Where streamed rows go: CSV holds one protocol's columns (the first protocol with a
/// position decides; the other's rows are counted and left out), NDJSON holds both.
struct Stream<W: Write> {
    out: W,
    format: TrackFormat,
    csv_protocol: Option<&'static str>,
    left_out: u64,
}

impl<W: Write> Stream<W> {
    fn line(&mut self, protocol: &'static str, line: &str) -> io::Result<()> {
        if self.format == TrackFormat::Csv {
            match self.csv_protocol {
                None => {
                    self.csv_protocol = Some(protocol);
                    let header = if protocol == "quake3" {
                        QUAKE3_CSV_COLUMNS
                    } else {
                        CSV_COLUMNS
                    };
                    writeln!(self.out, "{header}")?;
                }
                Some(p) if p != protocol => {
                    self.left_out += 1;
                    return Ok(());
                }
                Some(_) => {}
            }
        }
        writeln!(self.out, "{line}")
    }
}

/// Held FlightGear positions, for the formats that group by callsign.
#[derive(Default)]
struct Held {
    tracks: HashMap<String, Track>,
    order: Vec<String>,
    held: usize,
    dropped: u64,
}

impl Held {
    fn push(&mut self, callsign: String, model: String, point: Point) {
        if self.held >= MAX_POINTS {
            self.dropped += 1;
            return;
        }
        self.held += 1;
        let t = self.tracks.entry(callsign).or_insert_with_key(|k| {
            self.order.push(k.clone());
            Track::default()
        });
        t.model = model;
        t.points.push(point);
    }

    fn write(mut self, format: TrackFormat, out: &mut impl Write) -> io::Result<()> {
        if self.dropped > 0 {
            eprintln!(
                "gamedissect: {} positions past the first {MAX_POINTS} left out (use --format csv)",
                self.dropped
            );
        }
        let all: Vec<(String, Track)> = std::mem::take(&mut self.order)
            .into_iter()
            .filter_map(|c| self.tracks.remove(&c).map(|t| (c, t)))
            .collect();
        match format {
            TrackFormat::Kml => xml::kml(out, &all),
            TrackFormat::Gpx => xml::gpx(out, &all),
            _ => serde_json::to_writer(&mut *out, &geojson(all)).map_err(io::Error::other),
        }?;
        writeln!(out)
    }
}

/// Decodes `input` and writes its tracks: FlightGear in every format, Quake 3 in CSV and
/// NDJSON.
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
    let streamed = matches!(format, TrackFormat::Csv | TrackFormat::Ndjson);
    let mut stream = Stream {
        out: BufWriter::with_capacity(1 << 16, out),
        format,
        csv_protocol: None,
        left_out: 0,
    };
    let mut held = Held::default();
    let mut q3 = quake3::Tracks::default();
    let mut engine = Engine::new(protocols::all(), config);
    let mut outcome = run_capture(input, &mut engine, total_len, warn, &mut |m, r| {
        if streamed && r.protocol == "quake3" {
            let json = format == TrackFormat::Ndjson;
            return q3.record(m, r, &mut |line| stream.line("quake3", &line), json);
        }
        let Some((callsign, model, point)) = point_of(m, r) else {
            return Ok(());
        };
        match format {
            TrackFormat::Csv => {
                let mut row = Vec::new();
                csv_row(&mut row, &callsign, &model, &point)?;
                let row = String::from_utf8_lossy(&row);
                stream.line("flightgear", row.trim_end())
            }
            TrackFormat::Ndjson => stream.line("flightgear", &json_row(&callsign, &model, &point)),
            _ => {
                held.push(callsign, model, point);
                Ok(())
            }
        }
    });
    let end = if streamed {
        if stream.left_out > 0 {
            eprintln!(
                "gamedissect: {} positions of another protocol left out of the CSV (use --protocol or --format ndjson)",
                stream.left_out
            );
        }
        match stream.csv_protocol {
            None if format == TrackFormat::Csv => writeln!(stream.out, "{CSV_COLUMNS}"),
            _ => Ok(()),
        }
    } else {
        held.write(format, &mut stream.out)
    };
    if let Err(e) = end.and_then(|()| stream.out.flush())
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

/// `gamedissect tracks`.
pub(super) fn command(decode: Decode, format: crate::commands::tracks::TrackFormat) -> ExitCode {
    let (input, len, mut warn) = match open_decode(&decode) {
        Ok(opened) => opened,
        Err(code) => return code,
    };
    let out = io::stdout().lock();
    let outcome =
        crate::commands::tracks::tracks(input, len, decode.config, format, out, &mut warn);
    finish_outcome(one_input(&decode.inputs), outcome)
}
