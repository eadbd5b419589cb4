//! FlightGear multiplayer protocol (fgfs ↔ fgms, UDP, default port 5000).
//!
//! Layers: [`msg`] decodes one datagram (header, legacy chat, dispatch), [`position`] the
//! position block, [`property`] the property section in both encodings, [`props`] is the
//! 420-entry property table of FlightGear 2020.3, [`geo`] derives the geodetic position and
//! attitude, [`notes`] registers the expert notes. Per-flow state ([`Flow`]) remembers the
//! aircraft seen (callsign, model, last chat line) so that a chat line is shown once, when it
//! changes, and `stats` can list the aircraft.
//!
//! Sources: FlightGear 2020.3 (github.com/FlightGear/flightgear, tag `version/2020.3.11`)
//! `src/MultiPlayer/mpmessages.hxx` and `multiplaymgr.cxx`; SimGear `simgear/props/props.hxx`
//! and `simgear/math/SGQuat.hxx`; fgms (github.com/FlightGear/fgms) `src/server/fg_server.cxx`
//! and `src/flightgear/MultiPlayer/mpmessages.hxx`.

pub mod events;
pub mod facts;
pub mod fields;
pub mod geo;
pub mod msg;
pub mod notes;
pub mod position;
pub mod property;
pub mod props;

use crate::proto::{Datagram, FlowDecoder, Prefs, Probe, ProbeInput, Protocol, ProtocolInfo};
use crate::tree::Record;

pub struct FlightGear;

pub static PROTOCOL: FlightGear = FlightGear;

static INFO: ProtocolInfo = ProtocolInfo {
    name: "flightgear",
    title: "FlightGear multiplayer protocol",
    ports: &[(5000, 5002)],
    heuristic: "the FGFS/SFGF magic followed by the version word 0x00010001",
    prefs: &[],
    fields: &[fields::ALL],
    notes: notes::ALL,
};

/// Content probe, after the receivers' own checks (FlightGear `FGMultiplayMgr::update`, fgms
/// `FG_SERVER::PacketIsValid`): the magic alone is four fixed ASCII bytes; with the version
/// word 0x00010001 behind it the datagram is FlightGear MP on any port. Content does not tell
/// the sender's role (fgms forwards client datagrams unchanged), so no role is claimed.
pub fn probe_payload(p: &[u8]) -> Probe {
    let word = |o: usize| {
        p.get(o..o + 4)
            .map(|b| u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    };
    if word(0).is_none_or(|m| msg::Magic(m).name().is_none()) {
        return Probe::NO;
    }
    match word(4) {
        Some(msg::PROTO_VER) => Probe::certain(None),
        _ => Probe::likely(None),
    }
}

impl Protocol for FlightGear {
    fn info(&self) -> &'static ProtocolInfo {
        &INFO
    }
    fn events(&self) -> Option<&'static crate::toolkit::facts::Events> {
        Some(&events::EVENTS)
    }
    fn probe(&self, input: &ProbeInput<'_>) -> Probe {
        probe_payload(input.payload)
    }
    fn new_flow(&self, _prefs: &Prefs) -> Box<dyn FlowDecoder> {
        Box::new(Flow::default())
    }
}

/// Most aircraft remembered per flow (a busy fgms forwards dozens; beyond this they are only
/// counted).
const MAX_AIRCRAFT: usize = 256;

/// What the flow remembers about one callsign.
#[derive(Debug, Clone, Default)]
pub struct Aircraft {
    pub callsign: String,
    pub model: String,
    /// The last chat line seen (property 10002 or MsgId 1).
    pub chat: Option<String>,
    /// Property protocol the sender uses (1 or 2), from the pad word and id 10.
    pub protocol: Option<u8>,
    pub messages: u64,
}

/// Per-flow state.
#[derive(Debug, Default)]
pub struct Flow {
    pub aircraft: Vec<Aircraft>,
    /// Callsigns not remembered because the table was full.
    pub untracked: u64,
    /// Chat lines shown (new or changed text).
    pub chat_lines: u64,
}

impl Flow {
    /// The entry of `callsign`, created when there is room.
    pub fn aircraft_mut(&mut self, callsign: &str) -> Option<&mut Aircraft> {
        if let Some(i) = self.aircraft.iter().position(|a| a.callsign == callsign) {
            return self.aircraft.get_mut(i);
        }
        if self.aircraft.len() >= MAX_AIRCRAFT {
            self.untracked += 1;
            return None;
        }
        self.aircraft.push(Aircraft {
            callsign: callsign.to_string(),
            ..Aircraft::default()
        });
        self.aircraft.last_mut()
    }
}

impl Flow {
    /// Records what a message told about its sender; returns the chat line when it is new or
    /// changed for that callsign (every position packet repeats the current line).
    fn observe(&mut self, callsign: &str, facts: &msg::Facts<'_>) -> Option<String> {
        let new_chat = self.aircraft_mut(callsign)?.update(facts);
        if new_chat.is_some() {
            self.chat_lines += 1;
        }
        new_chat
    }
}

impl Aircraft {
    fn update(&mut self, facts: &msg::Facts<'_>) -> Option<String> {
        self.messages += 1;
        if let Some(m) = &facts.model
            && self.model != msg::model_short(m)
        {
            self.model = msg::model_short(m).chars().take(96).collect();
        }
        if let Some(p) = facts.protocol {
            self.protocol = Some(p);
        }
        // An empty value (FGData clears the line ~10 s after it was typed) is remembered, so
        // the same line typed again shows again, but is not itself shown.
        let c = facts.chat.as_deref()?;
        if self.chat.as_deref() == Some(c) {
            return None;
        }
        let c: String = c.chars().take(msg::MAX_TEXT_SIZE as usize).collect();
        self.chat = Some(c.clone());
        (!c.is_empty()).then_some(c)
    }
}

impl FlowDecoder for Flow {
    fn decode(&mut self, d: &Datagram<'_>, out: &mut Vec<Record>) {
        out.push(msg::decode(d.payload, d.truncated, d.detail, self));
    }

    fn state_bytes(&self) -> usize {
        self.aircraft
            .iter()
            .map(|a| {
                std::mem::size_of::<Aircraft>()
                    + a.callsign.capacity()
                    + a.model.capacity()
                    + a.chat.as_ref().map_or(0, |c| c.capacity())
            })
            .sum()
    }

    fn describe(&self) -> Vec<(String, String)> {
        let mut facts = Vec::new();
        if !self.aircraft.is_empty() {
            let list: Vec<String> = self
                .aircraft
                .iter()
                .map(|a| {
                    let mut s = a.callsign.clone();
                    let mut extra = Vec::new();
                    if !a.model.is_empty() {
                        extra.push(a.model.clone());
                    }
                    if let Some(p) = a.protocol {
                        extra.push(format!("v{p}"));
                    }
                    extra.push(format!(
                        "{} message{}",
                        a.messages,
                        if a.messages == 1 { "" } else { "s" }
                    ));
                    s.push_str(&format!(" ({})", extra.join(", ")));
                    s
                })
                .collect();
            facts.push(("aircraft".to_string(), list.join("; ")));
        }
        if self.untracked > 0 {
            facts.push((
                "aircraft not tracked".to_string(),
                format!(
                    "{} messages (more than {MAX_AIRCRAFT} callsigns)",
                    self.untracked
                ),
            ));
        }
        if self.chat_lines > 0 {
            facts.push(("chat lines".to_string(), self.chat_lines.to_string()));
        }
        facts
    }
}

#[cfg(test)]
mod tests;
