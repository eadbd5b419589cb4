//! FlightGear multiplayer protocol: placeholder until the decoder lands (registration, ports and fields only).

pub mod fields;

use std::borrow::Cow;

use crate::proto::{Datagram, FlowDecoder, Prefs, Probe, ProbeInput, Protocol, ProtocolInfo};
use crate::tree::{Field, Pos, Record, Severity, Value};

pub struct FlightGear;

pub static PROTOCOL: FlightGear = FlightGear;

static INFO: ProtocolInfo = ProtocolInfo {
    name: "flightgear",
    title: "FlightGear multiplayer protocol",
    ports: &[(5000, 5002)],
    heuristic: "the FGFS/SFGF magic and version word",
    prefs: &[],
    fields: &[fields::ALL],
};

impl Protocol for FlightGear {
    fn info(&self) -> &'static ProtocolInfo {
        &INFO
    }
    fn probe(&self, _input: &ProbeInput<'_>) -> Probe {
        Probe::NO
    }
    fn new_flow(&self, _prefs: &Prefs) -> Box<dyn FlowDecoder> {
        Box::new(Flow)
    }
}

struct Flow;

impl FlowDecoder for Flow {
    fn decode(&mut self, d: &Datagram<'_>, out: &mut Vec<Record>) {
        let mut r = Record::new("flightgear");
        r.msg_type = Cow::Borrowed("undecoded");
        r.summary = format!("{} bytes (not decoded yet)", d.payload.len());
        let mut root = Field::new(&fields::ROOT, Value::None, Pos::bytes(0, d.payload.len()));
        root.children.push(Field::new(
            &fields::UNDECODED,
            Value::Bytes(d.payload.into()),
            Pos::bytes(0, d.payload.len()),
        ));
        r.fields.push(root);
        r.note(
            Severity::Note,
            None,
            "this protocol's decoder has not landed yet",
        );
        out.push(r);
    }
}
