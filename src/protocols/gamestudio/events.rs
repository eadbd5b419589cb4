//! 3D GameStudio (Acknex) events (`gamedissect events`, docs/events.md): joins, level loads,
//! script strings, entity creation and removal, from the decoded messages of one flow, read
//! through [`super::facts`].
//!
//! Facts from Conitec's manuals (the A5 SDK Programmer's Manual, July 2002, "The A5
//! Client/Server Protocol", and the later manual page "The Client/Server Protocol"): a client
//! asks for an entity with CLS_CREATE (file, position, action, identifier) and the server
//! answers SVC_CREATE (entity index, the same identifier); SVC_REMOVE removes an entity on the
//! client; CLS_JOIN names the player, CLS_LEVEL the level file; CLS_STRING and SVC_STRING
//! send a script string.

use std::collections::HashMap;

use super::facts::{Message, messages};
use crate::toolkit::facts::{At, Event, EventExtractor, Events, KindDef, Label, Scope};
use crate::tree::Record;

const P: &str = "gamestudio";

/// What `gamedissect events` finds in GameStudio ([`crate::proto::Protocol::events`]): one
/// `State` per flow.
pub static EVENTS: Events = Events {
    kinds: KINDS,
    scope: Scope::Flow,
    extractor,
};

fn extractor() -> Box<dyn EventExtractor> {
    Box::<State>::default()
}

static KINDS: &[KindDef] = &[
    KindDef {
        protocol: P,
        name: "join",
        desc: "CLS_JOIN: who = player name; details session (newest A6 revision), dpid (A5)",
    },
    KindDef {
        protocol: P,
        name: "level",
        desc: "CLS_LEVEL, the client loads a level: text = level file",
    },
    KindDef {
        protocol: P,
        name: "string",
        desc: "CLS_STRING or SVC_STRING, a script string sent: text; details index, by = client or server",
    },
    KindDef {
        protocol: P,
        name: "create",
        desc: "SVC_CREATE, the server created an entity: text = the file the client's CLS_CREATE with the same identifier asked for; details entity, identifier",
    },
    KindDef {
        protocol: P,
        name: "remove",
        desc: "SVC_REMOVE, the server removed an entity: text = its file when its creation was seen; details entity",
    },
];

/// Identifiers and entities remembered per flow; past this, new ones are not named.
const MAX_ENTITIES: usize = 1024;

/// What naming needs of one flow: which file each creation asked for, and each entity's file.
#[derive(Default)]
struct State {
    requested: HashMap<i64, String>,
    entities: HashMap<i64, String>,
}

fn remember(map: &mut HashMap<i64, String>, key: i64, file: &str) {
    if map.len() < MAX_ENTITIES || map.contains_key(&key) {
        map.insert(key, file.to_string());
    }
}

impl EventExtractor for State {
    fn record(&mut self, at: &At, record: &Record, out: &mut Vec<Event>) {
        for msg in messages(record) {
            self.message(at, msg, out);
        }
    }
}

impl State {
    fn message(&mut self, at: &At, msg: Message<'_>, out: &mut Vec<Event>) {
        match msg.command() {
            "CLS_JOIN" => {
                let mut e = at.event(P, "join");
                e.who = msg.player_name().map(Label::plain);
                if let Some(s) = msg.session_name() {
                    e.details.push(("session", s.into_owned()));
                }
                if let Some(d) = msg.player_dpid() {
                    e.details.push(("dpid", format!("{d:#x}")));
                }
                out.push(e);
            }
            "CLS_LEVEL" => {
                let mut e = at.event(P, "level");
                e.text = msg.level_name().map(Label::plain);
                out.push(e);
            }
            c @ ("CLS_STRING" | "SVC_STRING") => {
                let mut e = at.event(P, "string");
                e.text = msg.string().map(Label::plain);
                if let Some(i) = msg.string_index() {
                    e.details.push(("index", i.to_string()));
                }
                let by = if c.starts_with("CLS") {
                    "client"
                } else {
                    "server"
                };
                e.details.push(("by", by.into()));
                out.push(e);
            }
            "CLS_CREATE" => {
                if let (Some(id), Some(file)) = (msg.identifier(), msg.file_name()) {
                    remember(&mut self.requested, id, &file);
                }
            }
            "SVC_CREATE" => out.push(self.create(at, msg)),
            "SVC_REMOVE" => {
                let mut e = at.event(P, "remove");
                if let Some(ent) = msg.entity_index() {
                    e.text = self.entities.remove(&ent).map(Label::plain);
                    e.details.push(("entity", ent.to_string()));
                }
                out.push(e);
            }
            _ => {}
        }
    }

    fn create(&mut self, at: &At, msg: Message<'_>) -> Event {
        let mut e = at.event(P, "create");
        let ent = msg.entity_index();
        let id = msg.identifier();
        let file = id.and_then(|i| self.requested.get(&i).cloned());
        if let (Some(ent), Some(file)) = (ent, &file) {
            remember(&mut self.entities, ent, file);
        }
        e.text = file.map(Label::plain);
        if let Some(ent) = ent {
            e.details.push(("entity", ent.to_string()));
        }
        if let Some(id) = id {
            e.details.push(("identifier", id.to_string()));
        }
        e
    }
}
