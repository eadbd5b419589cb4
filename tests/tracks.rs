//! `gamedissect tracks` on the real FlightGear captures: every position equals the decoded one,
//! the GeoJSON, KML and GPX parse back (with the geojson and quick-xml crates) with every position
//! and time, and each track starts where fgfs was told to start (`start-lat-deg`, `start-lon-deg` in `captures/flightgear-*.txt`).

use std::fs;
use std::path::Path;

use gamedissect::tracks::{CSV_COLUMNS, TrackFormat, tracks_of};
use testkit::dissect::{config_for, field_values};

const CAPTURES: [&str; 4] = [
    "flightgear-v1",
    "flightgear-v2-air",
    "flightgear-v2-ground",
    "flightgear-v2-pair",
];

fn run(stem: &str, format: TrackFormat) -> String {
    let path = format!("captures/{stem}.pcap");
    tracks_of(
        &fs::read(&path).unwrap(),
        config_for(Path::new(&path)),
        format,
    )
}

/// (callsign, start latitude, start longitude) from the capture's notes.
fn starts(stem: &str) -> Vec<(String, f64, f64)> {
    let mut out: Vec<(String, f64, f64)> = Vec::new();
    for line in fs::read_to_string(format!("captures/{stem}.txt"))
        .unwrap()
        .lines()
    {
        if let Some(c) = line.strip_prefix("callsign: ") {
            out.push((c.into(), f64::NAN, f64::NAN));
        } else if let Some(v) = line.strip_prefix("start-lat-deg: ") {
            out.last_mut().unwrap().1 = v.parse().unwrap();
        } else if let Some(v) = line.strip_prefix("start-lon-deg: ") {
            out.last_mut().unwrap().2 = v.parse().unwrap();
        }
    }
    out
}

#[test]
fn csv_positions_equal_the_decoded_ones() {
    for stem in CAPTURES {
        let csv = run(stem, TrackFormat::Csv);
        let mut lines = csv.lines();
        assert_eq!(lines.next(), Some(CSV_COLUMNS));
        let rows: Vec<Vec<String>> = lines
            .map(|l| l.split(',').map(String::from).collect())
            .collect();
        let path = format!("captures/{stem}.pcap");
        let lat = field_values(&path, "flightgear.position.geodetic.latitude");
        let lon = field_values(&path, "flightgear.position.geodetic.longitude");
        assert_eq!(rows.len(), lat.len(), "{stem}");
        for ((row, (frame, la)), (_, lo)) in rows.iter().zip(&lat).zip(&lon) {
            assert_eq!(row[0], frame.to_string());
            assert_eq!(row[4].parse::<f64>().unwrap(), la.parse::<f64>().unwrap());
            assert_eq!(row[5].parse::<f64>().unwrap(), lo.parse::<f64>().unwrap());
        }
        for (callsign, la, lo) in starts(stem) {
            let first = rows.iter().find(|r| r[3] == callsign).unwrap();
            let (a, o): (f64, f64) = (first[4].parse().unwrap(), first[5].parse().unwrap());
            assert!(
                (a - la).abs() < 1e-4 && (o - lo).abs() < 1e-4,
                "{stem} {callsign}"
            );
        }
    }
}

#[test]
fn geojson_parses_back_with_every_position() {
    for stem in CAPTURES {
        let text = run(stem, TrackFormat::Geojson);
        let gj: geojson::GeoJson = text.parse().unwrap_or_else(|e| panic!("{stem}: {e}"));
        let geojson::GeoJson::FeatureCollection(fc) = gj else {
            panic!("{stem}: not a FeatureCollection");
        };
        let csv = run(stem, TrackFormat::Csv);
        let rows: Vec<Vec<String>> = csv
            .lines()
            .skip(1)
            .map(|l| l.split(',').map(String::from).collect())
            .collect();
        let expected = starts(stem);
        assert_eq!(fc.features.len(), expected.len(), "{stem}");
        for f in &fc.features {
            let callsign = f.property("callsign").unwrap().as_str().unwrap();
            let Some(geojson::Value::LineString(coords)) = f.geometry.as_ref().map(|g| &g.value)
            else {
                panic!("{stem}: not a LineString");
            };
            let mine: Vec<&Vec<String>> = rows.iter().filter(|r| r[3] == callsign).collect();
            assert_eq!(coords.len(), mine.len());
            for (c, r) in coords.iter().zip(&mine) {
                assert_eq!(c[0], r[5].parse::<f64>().unwrap());
                assert_eq!(c[1], r[4].parse::<f64>().unwrap());
                let alt_m = r[6].parse::<f64>().unwrap() * 0.3048;
                assert!((c[2] - alt_m).abs() < 1e-9);
            }
            let (_, la, lo) = expected.iter().find(|s| s.0 == callsign).unwrap();
            assert!((coords[0][1] - la).abs() < 1e-4 && (coords[0][0] - lo).abs() < 1e-4);
        }
    }
}

/// Per callsign (in document order), the `(element, attributes, text)` of every element under
/// its track, read back with quick-xml; `track` is the element that starts a callsign's track.
type Parsed = Vec<(String, Vec<(String, Vec<(String, String)>, String)>)>;

fn parse_xml(text: &str, track: &str) -> Parsed {
    use quick_xml::events::Event;
    let mut reader = quick_xml::Reader::from_str(text);
    let mut out: Parsed = Vec::new();
    let mut open: Option<(String, Vec<(String, String)>)> = None;
    let mut in_track = false;
    loop {
        match reader.read_event().expect("well-formed XML") {
            Event::Start(e) => {
                let name = e.name().as_ref().to_string();
                if e.name().as_ref() == track {
                    in_track = true;
                    out.push((String::new(), Vec::new()));
                }
                let attrs = e
                    .attributes()
                    .map(|a| {
                        let a = a.unwrap();
                        let key = a.key.as_ref().to_string();
                        (key, a.value.into_owned())
                    })
                    .collect();
                open = Some((name, attrs));
            }
            Event::Text(t) => {
                if let (true, Some((name, attrs))) = (in_track, open.take()) {
                    let value = t.xml10_content().into_owned();
                    let last = out.last_mut().unwrap();
                    if name == "name" && last.0.is_empty() {
                        last.0 = value.clone();
                    }
                    last.1.push((name, attrs, value));
                }
            }
            Event::Eof => break,
            _ => {}
        }
    }
    out
}

/// The CSV rows of one callsign: (time, latitude, longitude, altitude in metres, heading,
/// pitch, roll).
fn csv_points(stem: &str, callsign: &str) -> Vec<(String, f64, f64, f64, [f64; 3])> {
    let csv = run(stem, TrackFormat::Csv);
    csv.lines()
        .skip(1)
        .map(|l| l.split(',').collect::<Vec<_>>())
        .filter(|r| r[3] == callsign)
        .map(|r| {
            let f = |i: usize| r[i].parse::<f64>().unwrap();
            (
                r[1].to_string(),
                f(4),
                f(5),
                f(6) * 0.3048,
                [f(7), f(8), f(9)],
            )
        })
        .collect()
}

#[test]
fn kml_parses_back_with_every_position_and_time() {
    for stem in CAPTURES {
        let kml = run(stem, TrackFormat::Kml);
        assert!(kml.contains("xmlns:gx=\"http://www.google.com/kml/ext/2.2\""));
        let tracks = parse_xml(&kml, "Placemark");
        assert_eq!(tracks.len(), starts(stem).len(), "{stem}");
        for (callsign, elements) in &tracks {
            let of = |n: &str| -> Vec<&String> {
                elements.iter().filter(|e| e.0 == n).map(|e| &e.2).collect()
            };
            let expected = csv_points(stem, callsign);
            assert!(!expected.is_empty(), "{stem} {callsign}");
            let (when, coord, angles) = (of("when"), of("gx:coord"), of("gx:angles"));
            assert_eq!(when.len(), expected.len(), "{stem} {callsign}");
            assert_eq!(coord.len(), expected.len());
            assert_eq!(angles.len(), expected.len());
            for (i, (time, lat, lon, alt_m, att)) in expected.iter().enumerate() {
                assert_eq!(when[i], time);
                let c: Vec<f64> = coord[i].split(' ').map(|v| v.parse().unwrap()).collect();
                assert_eq!((c[0], c[1]), (*lon, *lat), "{stem} {callsign} {i}");
                assert!((c[2] - alt_m).abs() < 1e-9);
                let a: Vec<f64> = angles[i].split(' ').map(|v| v.parse().unwrap()).collect();
                assert_eq!(a, att.to_vec());
            }
            let (_, la, lo) = starts(stem).into_iter().find(|s| s.0 == *callsign).unwrap();
            assert!((expected[0].1 - la).abs() < 1e-4 && (expected[0].2 - lo).abs() < 1e-4);
        }
    }
}

#[test]
fn gpx_parses_back_with_every_position_and_time() {
    for stem in CAPTURES {
        let gpx = run(stem, TrackFormat::Gpx);
        assert!(gpx.contains("<gpx version=\"1.1\""));
        let tracks = parse_xml(&gpx, "trk");
        assert_eq!(tracks.len(), starts(stem).len(), "{stem}");
        for (callsign, elements) in &tracks {
            let expected = csv_points(stem, callsign);
            assert!(!expected.is_empty(), "{stem} {callsign}");
            let of = |n: &'static str| elements.iter().filter(move |e| e.0 == n);
            let trkpt: Vec<(f64, f64)> = of("trkpt")
                .map(|e| {
                    let attr = |k: &str| -> f64 {
                        e.1.iter().find(|a| a.0 == k).unwrap().1.parse().unwrap()
                    };
                    (attr("lat"), attr("lon"))
                })
                .collect();
            let ele: Vec<f64> = of("ele").map(|e| e.2.parse().unwrap()).collect();
            let time: Vec<&String> = of("time").map(|e| &e.2).collect();
            assert_eq!(trkpt.len(), expected.len(), "{stem} {callsign}");
            assert_eq!(ele.len(), expected.len());
            for (i, (t, lat, lon, alt_m, _)) in expected.iter().enumerate() {
                assert_eq!(trkpt[i], (*lat, *lon), "{stem} {callsign} {i}");
                assert!((ele[i] - alt_m).abs() < 1e-9);
                assert_eq!(time[i], t);
            }
        }
    }
}
