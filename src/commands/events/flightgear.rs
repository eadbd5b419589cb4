//! FlightGear events: chat, and each callsign's first packet (appears, with its model), model
//! changes and last packet (leaves, reported at the end of the capture).
//!
//! Facts from FlightGear: the chat property `sim/multiplay/chat` has id 10002
//! (src/MultiPlayer/multiplaymgr.cxx, `sIdPropertyList`).

use std::collections::HashMap;

use super::{At, Event, KindDef, Label};
use crate::toolkit::lookup::{child, child_text, text};
use crate::tree::{Field, Record, Value};

const P: &str = "flightgear";

pub(super) static KINDS: &[KindDef] = &[
    KindDef {
        protocol: P,
        name: "chat",
        desc: "A new chat text (`sim/multiplay/chat`, sent when it changes): who = callsign, text",
    },
    KindDef {
        protocol: P,
        name: "appear",
        desc: "A callsign's first packet: who = callsign, text = model path",
    },
    KindDef {
        protocol: P,
        name: "model",
        desc: "A callsign's model changed: who = callsign, text = new model path",
    },
    KindDef {
        protocol: P,
        name: "leave",
        desc: "A callsign's last packet in the capture (written at the end, in time order): who = callsign; details packets",
    },
];

/// The chat property's id.
const CHAT_ID: i64 = 10002;
/// Callsigns followed at once; later ones get no events (a hostile capture cannot grow this).
const MAX_CALLSIGNS: usize = 65_536;

struct Callsign {
    last: At,
    model: String,
    chat: String,
    packets: u64,
}

#[derive(Default)]
pub(crate) struct State {
    callsigns: HashMap<String, Callsign>,
}

impl State {
    pub(crate) fn record(&mut self, at: &At, record: &Record, out: &mut Vec<Event>) {
        let Some(root) = record.fields.iter().find(|f| f.def.name == P) else {
            return;
        };
        let Some(callsign) = child_text(root, "flightgear.callsign") else {
            return;
        };
        let model = child(root, "flightgear.position")
            .and_then(|p| child_text(p, "flightgear.position.model"))
            .unwrap_or_default();
        let chat = chat_of(root);
        let who = Label::plain(callsign.as_ref());
        if !self.callsigns.contains_key(callsign.as_ref()) {
            if self.callsigns.len() >= MAX_CALLSIGNS {
                return;
            }
            let mut e = at.event(P, "appear");
            e.who = Some(who.clone());
            e.text = Some(Label::plain(model.as_ref()));
            out.push(e);
            self.callsigns.insert(
                callsign.to_string(),
                Callsign {
                    last: *at,
                    model: model.to_string(),
                    chat: String::new(),
                    packets: 0,
                },
            );
        }
        let Some(c) = self.callsigns.get_mut(callsign.as_ref()) else {
            return;
        };
        c.last = *at;
        c.packets += 1;
        if !model.is_empty() && model != c.model {
            c.model = model.to_string();
            let mut e = at.event(P, "model");
            e.who = Some(who.clone());
            e.text = Some(Label::plain(model.as_ref()));
            out.push(e);
        }
        if let Some(chat) = chat
            && !chat.is_empty()
            && chat != c.chat
        {
            c.chat = chat.clone();
            let mut e = at.event(P, "chat");
            e.who = Some(who);
            e.text = Some(Label::plain(chat));
            out.push(e);
        }
    }

    /// Every callsign's last packet, in time order.
    pub(crate) fn finish(&mut self, out: &mut Vec<Event>) {
        let mut all: Vec<(String, Callsign)> = self.callsigns.drain().collect();
        all.sort_by(|a, b| (a.1.last.frame, &a.0).cmp(&(b.1.last.frame, &b.0)));
        for (callsign, c) in all {
            let mut e = c.last.event(P, "leave");
            e.who = Some(Label::plain(callsign));
            e.details.push(("packets", c.packets.to_string()));
            out.push(e);
        }
    }
}

/// The chat text of a packet: the v1 chat field, or the chat property of v2.
fn chat_of(root: &Field) -> Option<String> {
    if let Some(c) = child_text(root, "flightgear.chat") {
        return Some(c.into_owned());
    }
    let props = child(root, "flightgear.properties")?;
    // The properties are pairs of an id and its value, side by side.
    let pairs = &child(props, "flightgear.properties.property")?.children;
    pairs.windows(2).find_map(|w| {
        (w[0].def.name == "flightgear.properties.property.id"
            && matches!(w[0].value, Value::Enum(id, _) if id == CHAT_ID)
            && w[1].def.name == "flightgear.properties.property.value")
            .then(|| text(&w[1].value).map(|t| t.into_owned()))
            .flatten()
    })
}
