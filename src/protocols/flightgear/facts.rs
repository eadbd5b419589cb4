//! FlightGear facts read back from decoded records: where a packet's callsign, model, chat text
//! and derived position sit in the field tree. `gamedissect events` (through
//! [`super::events`]), `tracks` and `report` read FlightGear through these, never by field name.
//!
//! Facts from FlightGear: the chat property `sim/multiplay/chat` has id 10002
//! (src/MultiPlayer/multiplaymgr.cxx, `sIdPropertyList`).

use std::borrow::Cow;

use super::fields as f;
use crate::toolkit::lookup::{child, child_text, text};
use crate::tree::{Field, FieldDef, Record, Value};

/// The chat property's id.
const CHAT_ID: i64 = 10002;

/// The FlightGear layer of a decoded record.
#[derive(Debug, Clone, Copy)]
pub struct Packet<'a>(&'a Field);

impl<'a> Packet<'a> {
    /// The record's FlightGear layer, if it has one.
    pub fn of(record: &'a Record) -> Option<Packet<'a>> {
        record
            .fields
            .iter()
            .find(|f| f.def.name == f::ROOT.name)
            .map(Packet)
    }

    /// The sender's callsign (text that is not UTF-8 with replacement characters).
    pub fn callsign(self) -> Option<Cow<'a, str>> {
        child_text(self.0, f::CALLSIGN.name)
    }

    /// The model path of a position packet (empty when it has none).
    pub fn model(self) -> Cow<'a, str> {
        child(self.0, f::POSITION.name)
            .and_then(|p| child_text(p, f::MODEL.name))
            .unwrap_or_default()
    }

    /// The chat text of a packet: the v1 chat field, or the chat property of v2.
    pub fn chat(self) -> Option<String> {
        if let Some(c) = child_text(self.0, f::CHAT.name) {
            return Some(c.into_owned());
        }
        let props = child(self.0, f::PROPERTIES.name)?;
        // The properties are pairs of an id and its value, side by side.
        let pairs = &child(props, f::PROPERTY.name)?.children;
        pairs.windows(2).find_map(|w| {
            (w[0].def.name == f::PROP_ID.name
                && matches!(w[0].value, Value::Enum(id, _) if id == CHAT_ID)
                && w[1].def.name == f::PROP_VALUE.name)
                .then(|| text(&w[1].value).map(|t| t.into_owned()))
                .flatten()
        })
    }
}

/// A position packet's derived geodetic position and attitude (the decoder's `geodetic` and
/// `attitude` groups), and the magnitude of its body-frame linear velocity.
#[derive(Debug, Clone, PartialEq)]
pub struct Position {
    pub callsign: String,
    pub model: String,
    /// Degrees (WGS 84).
    pub latitude: f64,
    pub longitude: f64,
    /// Feet above the ellipsoid.
    pub altitude_ft: f64,
    /// Degrees.
    pub heading: f64,
    pub pitch: f64,
    pub roll: f64,
    /// m/s: the speed through the air mass the simulator moves (FlightGear sends velocity in
    /// body axes); a component not sent counts as zero.
    pub speed: f64,
}

fn float(f: &Field, name: &str) -> Option<f64> {
    match f.find(name)?.value {
        Value::F32(x) => Some(f64::from(x)),
        Value::F64(x) => Some(x),
        _ => None,
    }
}

/// The position of a FlightGear position packet, its fields found anywhere under the packet;
/// `None` for any other record, for a callsign that is not UTF-8 (tracks are keyed by it) and
/// when the geodetic position or attitude could not be derived.
pub fn position(record: &Record) -> Option<Position> {
    if record.protocol != f::ROOT.name {
        return None;
    }
    let root = record.fields.iter().find(|f| f.def.name == f::ROOT.name)?;
    let callsign = match &root.find(f::CALLSIGN.name)?.value {
        Value::Str(s) => s.to_string(),
        _ => return None,
    };
    let pos = root.find(f::POSITION.name)?;
    let model = match pos.find(f::MODEL.name).map(|m| &m.value) {
        Some(Value::Str(s)) => s.to_string(),
        _ => String::new(),
    };
    let v = |axis: &FieldDef| float(pos, axis.name).unwrap_or(0.0);
    Some(Position {
        callsign,
        model,
        latitude: float(pos, f::LATITUDE.name)?,
        longitude: float(pos, f::LONGITUDE.name)?,
        altitude_ft: float(pos, f::ALTITUDE_FT.name)?,
        heading: float(pos, f::HEADING.name)?,
        pitch: float(pos, f::PITCH.name)?,
        roll: float(pos, f::ROLL.name)?,
        speed: (v(&f::LIN_VEL_X).powi(2) + v(&f::LIN_VEL_Y).powi(2) + v(&f::LIN_VEL_Z).powi(2))
            .sqrt(),
    })
}
