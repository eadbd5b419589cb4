//! KML and GPX, the XML track formats, written with `quick-xml` (which escapes callsigns and
//! model paths as text; their control characters, which XML 1.0 cannot hold and a terminal
//! would obey, are escaped first, as every text writer does). Both group positions by callsign.
//!
//! KML: OGC KML 2.2 with Google's `gx` extension. A `gx:Track` lists every `when` first, then
//! every `gx:coord` (longitude latitude altitude, in that order and in metres), then every
//! `gx:angles` (heading tilt roll), matched by position (Google's KML reference, `<gx:Track>`);
//! Google Earth shows it under its time slider.
//!
//! GPX 1.1 (topografix.com/GPX/1/1): one `trk` per callsign, one `trkseg`, one `trkpt` per
//! position with `ele` (metres) and `time`. GPX 1.1 has no attitude or speed elements, so
//! those stay in the CSV, GeoJSON and KML.

use std::io::{self, Write};

use quick_xml::Writer;
use quick_xml::events::{BytesDecl, BytesText, Event};

use super::Track;

const KML_NS: &str = "http://www.opengis.net/kml/2.2";
const GX_NS: &str = "http://www.google.com/kml/ext/2.2";
const GPX_NS: &str = "http://www.topografix.com/GPX/1/1";
const METRES_PER_FOOT: f64 = 0.3048;

fn text<W: Write>(w: &mut Writer<W>, name: &str, value: &str) -> io::Result<()> {
    w.create_element(name)
        .write_text_content(BytesText::new(&crate::text::escaped(value)))
        .map(|_| ())
}

fn declaration<W: Write>(w: &mut Writer<W>) -> io::Result<()> {
    w.write_event(Event::Decl(BytesDecl::new("1.0", Some("UTF-8"), None)))
}

fn kml_track<W: Write>(w: &mut Writer<W>, callsign: &str, t: &Track) -> io::Result<()> {
    w.create_element("Placemark").write_inner_content(|w| {
        text(w, "name", callsign)?;
        text(w, "description", &t.model)?;
        w.create_element("gx:Track").write_inner_content(|w| {
            // FlightGear gives the height above the WGS 84 ellipsoid; `absolute` is the
            // nearest KML has (above sea level), off by the local geoid height.
            text(w, "altitudeMode", "absolute")?;
            for p in &t.points {
                text(w, "when", &p.time.rfc3339())?;
            }
            for p in &t.points {
                let coord = format!("{} {} {}", p.lon, p.lat, p.alt_ft * METRES_PER_FOOT);
                text(w, "gx:coord", &coord)?;
            }
            for p in &t.points {
                text(
                    w,
                    "gx:angles",
                    &format!("{} {} {}", p.heading, p.pitch, p.roll),
                )?;
            }
            Ok(())
        })?;
        Ok(())
    })?;
    Ok(())
}

/// Writes `tracks` as one KML document, one `Placemark` with a `gx:Track` per callsign.
pub(super) fn kml(out: &mut impl Write, tracks: &[(String, Track)]) -> io::Result<()> {
    let mut w = Writer::new_with_indent(out, b' ', 1);
    declaration(&mut w)?;
    w.create_element("kml")
        .with_attribute(("xmlns", KML_NS))
        .with_attribute(("xmlns:gx", GX_NS))
        .write_inner_content(|w| {
            w.create_element("Document").write_inner_content(|w| {
                text(w, "name", "gamedissect tracks")?;
                for (callsign, t) in tracks {
                    kml_track(w, callsign, t)?;
                }
                Ok(())
            })?;
            Ok(())
        })?;
    Ok(())
}

fn gpx_track<W: Write>(w: &mut Writer<W>, callsign: &str, t: &Track) -> io::Result<()> {
    w.create_element("trk").write_inner_content(|w| {
        text(w, "name", callsign)?;
        text(w, "desc", &t.model)?;
        w.create_element("trkseg").write_inner_content(|w| {
            for p in &t.points {
                w.create_element("trkpt")
                    .with_attribute(("lat", p.lat.to_string().as_str()))
                    .with_attribute(("lon", p.lon.to_string().as_str()))
                    .write_inner_content(|w| {
                        text(w, "ele", &(p.alt_ft * METRES_PER_FOOT).to_string())?;
                        text(w, "time", &p.time.rfc3339())
                    })?;
            }
            Ok(())
        })?;
        Ok(())
    })?;
    Ok(())
}

/// Writes `tracks` as one GPX 1.1 document, one `trk` per callsign.
pub(super) fn gpx(out: &mut impl Write, tracks: &[(String, Track)]) -> io::Result<()> {
    let mut w = Writer::new_with_indent(out, b' ', 1);
    declaration(&mut w)?;
    w.create_element("gpx")
        .with_attribute(("version", "1.1"))
        .with_attribute(("creator", "gamedissect"))
        .with_attribute(("xmlns", GPX_NS))
        .write_inner_content(|w| {
            for (callsign, t) in tracks {
                gpx_track(w, callsign, t)?;
            }
            Ok(())
        })?;
    Ok(())
}
