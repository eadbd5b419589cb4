//! 3D GameStudio (Acknex) A5 and A6+: placeholder until the decoder lands (registration, ports and fields only).

pub mod fields;

use std::borrow::Cow;

use crate::proto::{Datagram, FlowDecoder, Prefs, Probe, ProbeInput, Protocol, ProtocolInfo};
use crate::tree::{Field, Pos, Record, Severity, Value};

pub struct Gamestudio;

pub static PROTOCOL: Gamestudio = Gamestudio;

static INFO: ProtocolInfo = ProtocolInfo {
    name: "gamestudio",
    title: "3D GameStudio (Acknex) A5 and A6+",
    ports: &[(2300, 2400), (6073, 6073), (47624, 47624)],
    heuristic: "the A5 svc_info constant, DirectPlay signatures and frame command bits",
    prefs: &[],
    fields: &[fields::ALL],
};

impl Protocol for Gamestudio {
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
        let mut r = Record::new("gamestudio");
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
