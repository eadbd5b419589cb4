//! `gamedissect tracks` on the real FlightGear captures: every position equals the decoded one,
//! the GeoJSON parses back (RFC 7946, with the geojson crate), and each track starts where fgfs
//! was told to start (`start-lat-deg`, `start-lon-deg` in `captures/flightgear-*.txt`).

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
