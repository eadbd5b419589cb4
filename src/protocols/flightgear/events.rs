//! FlightGear events (`gamedissect events`, docs/events.md): chat, and each callsign's first
//! packet (appears, with its model), model changes and last packet (leaves, reported at the end
//! of the capture), read through [`super::facts`].

use std::collections::HashMap;

use super::facts::Packet;
use crate::toolkit::facts::{At, Event, EventExtractor, Events, KindDef, Label, Scope};
use crate::tree::Record;

const P: &str = "flightgear";

/// What `gamedissect events` finds in FlightGear ([`crate::proto::Protocol::events`]): one
/// `State` for the capture, since a callsign is heard on every flow a relay forwards it to.
pub static EVENTS: Events = Events {
    kinds: KINDS,
    scope: Scope::Capture,
    extractor,
};

fn extractor() -> Box<dyn EventExtractor> {
    Box::<State>::default()
}

static KINDS: &[KindDef] = &[
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

/// Callsigns followed at once; later ones get no events (a hostile capture cannot grow this).
const MAX_CALLSIGNS: usize = 65_536;

struct Callsign {
    last: At,
    model: String,
    chat: String,
    packets: u64,
}

#[derive(Default)]
struct State {
    callsigns: HashMap<String, Callsign>,
}

impl EventExtractor for State {
    fn record(&mut self, at: &At, record: &Record, out: &mut Vec<Event>) {
        let Some(packet) = Packet::of(record) else {
            return;
        };
        let Some(callsign) = packet.callsign() else {
            return;
        };
        let model = packet.model();
        let chat = packet.chat();
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
    fn finish(&mut self, out: &mut Vec<Event>) {
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
