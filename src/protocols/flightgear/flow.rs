//! The per-flow decoder: the aircraft a flow has seen (callsign, model, property protocol,
//! last chat line), so that a chat line is shown once, when it changes, and `stats` can list
//! the aircraft. Each datagram is decoded by [`msg::decode`].

use super::constants::{HEADER_LEN, MAGIC_FGFS, MAGIC_SFGF, MAX_TEXT_SIZE, PROTO_VER};
use super::msg;
use super::notes;
use super::prim::{Facts, model_short};
use crate::proto::{Datagram, FlowDecoder};
use crate::tree::{Detail, Record};

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
    /// The newest simulation time seen from this callsign.
    pub time: Option<f64>,
    /// The chat line before the last change, and the message count at that change: a line
    /// that changes for one message and then comes back was a stray, not a new line.
    pub before: Option<(Option<String>, u64)>,
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
    /// Decodes one datagram ([`msg::decode`]) and tells the aircraft table what it said.
    pub(super) fn message(
        &mut self,
        payload: &[u8],
        truncated: bool,
        detail: impl Into<Detail>,
    ) -> Record {
        let Some(why) = distrust(payload, truncated) else {
            return msg::decode(payload, truncated, detail, |callsign, facts| {
                self.observe(callsign, facts)
            });
        };
        let mut rec = msg::decode(payload, truncated, detail, |_, _| None);
        let msg = format!("not trusted: {why}; the flow's aircraft table is unchanged");
        rec.expert(&notes::UNTRUSTED, None, msg);
        rec
    }

    /// Records what a message told about its sender; returns the chat line when it is new or
    /// changed for that callsign (every position packet repeats the current line).
    fn observe(&mut self, callsign: &str, facts: &Facts<'_>) -> Option<String> {
        let new_chat = self.aircraft_mut(callsign)?.update(facts);
        if new_chat.is_some() {
            self.chat_lines += 1;
        }
        new_chat
    }
}

/// Why FlightGear would drop the datagram, if it would: the checks of
/// `FGMultiplayMgr::update` (FlightGear `src/MultiPlayer/multiplaymgr.cxx`): the magic (MSG_MAGIC
/// or RELAY_MAGIC), the protocol version and the message length against the bytes received. A
/// snaplen cut excuses a message length beyond the bytes kept.
fn distrust(p: &[u8], truncated: bool) -> Option<String> {
    let word = |at: usize| {
        p.get(at..at + 4)
            .map(|b| u32::from_be_bytes(b.try_into().unwrap()))
    };
    let (Some(magic), Some(version), Some(len)) = (word(0), word(4), word(12)) else {
        return Some(format!("{} bytes are shorter than the header", p.len()));
    };
    if p.len() < HEADER_LEN {
        return Some(format!("{} bytes are shorter than the header", p.len()));
    }
    if magic != MAGIC_FGFS && magic != MAGIC_SFGF {
        return Some(format!("magic 0x{magic:08x}"));
    }
    if version != PROTO_VER {
        return Some(format!("version 0x{version:08x}"));
    }
    let len = len as usize;
    let fits = len == p.len() || (truncated && len > p.len());
    (!fits || len < HEADER_LEN)
        .then(|| format!("message length {len} for a {}-byte datagram", p.len()))
}

impl Aircraft {
    fn update(&mut self, facts: &Facts<'_>) -> Option<String> {
        self.messages += 1;
        // A message older than the newest one seen (a replay, a mirror-port duplicate arriving
        // late) contradicts the flow: its model and chat line are stale, not news.
        if let Some(t) = facts.time.filter(|t| t.is_finite()) {
            if self.time.is_some_and(|newest| t < newest) {
                return None;
            }
            self.time = Some(t);
        }
        if let Some(m) = &facts.model
            && self.model != model_short(m)
        {
            self.model = model_short(m).chars().take(96).collect();
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
        // (A cleared line, FGData's empty value, is a real change even for one message.)
        let blip = self.chat.as_deref().is_some_and(|b| !b.is_empty());
        if let Some((prev, at)) = self.before.take()
            && blip
            && at + 1 == self.messages
            && prev.as_deref() == Some(c)
        {
            self.chat = prev;
            return None;
        }
        let c: String = c.chars().take(MAX_TEXT_SIZE as usize).collect();
        self.before = Some((self.chat.take(), self.messages));
        self.chat = Some(c.clone());
        (!c.is_empty()).then_some(c)
    }
}

impl FlowDecoder for Flow {
    fn decode(&mut self, d: &Datagram<'_>, out: &mut Vec<Record>) {
        out.push(self.message(d.payload, d.truncated, d.detail));
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
