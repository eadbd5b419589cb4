//! Quake 3 events (`gamedissect events`, docs/events.md), from the decoded server commands,
//! gamestates, snapshot entities and connectionless packets of one flow, read through
//! [`super::facts`].
//!
//! Facts from ioquake3: configstring indices and `meansOfDeath_t` (code/game/bg_public.h), the
//! obituary temp entity (`G_TempEntity(…, EV_OBITUARY)` in code/game/g_combat.c `player_die`;
//! read back in code/cgame/cg_event.c `CG_Obituary`), chat lines (code/game/g_cmds.c `G_Say`,
//! code/server/sv_ccmds.c `SV_ConSay_f`).

use std::collections::HashMap;

use super::constants::MAX_GENTITIES;
use super::facts::{
    CS_PLAYERS, CS_SERVERINFO, CS_VOTE_STRING, ClientCommand, Connectionless, ET_OBITUARY, Entity,
    Gamestate, MAX_CLIENTS, Message, ServerCommand, Snapshot, clean_str, info_value, player_name,
};
use crate::toolkit::facts::{At, Event, EventExtractor, Events, KindDef, Label, Scope};
use crate::tree::Record;

const P: &str = "quake3";

/// What `gamedissect events` finds in Quake 3 ([`crate::proto::Protocol::events`]): one
/// [`State`] per flow.
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
        name: "chat",
        desc: "A chat line as the server broadcast it (`chat`/`tchat`): who = speaker, text = message; details mode = say, say_team, tell or server (the server console)",
    },
    KindDef {
        protocol: P,
        name: "kill",
        desc: "An obituary (EV_OBITUARY entity): who = killer (`<world>` for falls, lava, suicides), target = victim, text = means of death (MOD_…); details killer, victim (client numbers), mod (number)",
    },
    KindDef {
        protocol: P,
        name: "join",
        desc: "A player appeared in the player configstrings: who = player; details client, at = gamestate (already there when the gamestate was sent) or update",
    },
    KindDef {
        protocol: P,
        name: "leave",
        desc: "A player's configstring was cleared: who = player; details client",
    },
    KindDef {
        protocol: P,
        name: "rename",
        desc: "A player's configstring changed name: who = old name, target = new name; details client",
    },
    KindDef {
        protocol: P,
        name: "map",
        desc: "A gamestate (connecting, or a map change) or map_restart: text = map name; details client (this connection's slot), restart",
    },
    KindDef {
        protocol: P,
        name: "print",
        desc: "A server `print` command (console message): text",
    },
    KindDef {
        protocol: P,
        name: "centerprint",
        desc: "A server `cp` command (centre-screen message): text; empty ones are skipped",
    },
    KindDef {
        protocol: P,
        name: "rcon",
        desc: "A remote console command: text = the command (never the password)",
    },
    KindDef {
        protocol: P,
        name: "vote",
        desc: "A vote: `callvote` or `vote` sent by the client (who = this connection's player), or the vote string configstring set by the server (text)",
    },
    KindDef {
        protocol: P,
        name: "connect",
        desc: "The connection handshake: the client's `connect` (who = name from its userinfo; details protocol) and the server's `connectResponse`",
    },
    KindDef {
        protocol: P,
        name: "disconnect",
        desc: "A connection ends: the client's `disconnect` command (details by = client) or the server's (text = reason; details by = server)",
    },
];

/// `meansOfDeath_t` with the MISSIONPACK entries (23–27), which OpenArena's and Team Arena's
/// game code include; without them (baseq3) 23 is MOD_GRAPPLE.
const MODS: [&str; 29] = [
    "MOD_UNKNOWN",
    "MOD_SHOTGUN",
    "MOD_GAUNTLET",
    "MOD_MACHINEGUN",
    "MOD_GRENADE",
    "MOD_GRENADE_SPLASH",
    "MOD_ROCKET",
    "MOD_ROCKET_SPLASH",
    "MOD_PLASMA",
    "MOD_PLASMA_SPLASH",
    "MOD_RAILGUN",
    "MOD_LIGHTNING",
    "MOD_BFG",
    "MOD_BFG_SPLASH",
    "MOD_WATER",
    "MOD_SLIME",
    "MOD_LAVA",
    "MOD_CRUSH",
    "MOD_TELEFRAG",
    "MOD_FALLING",
    "MOD_SUICIDE",
    "MOD_TARGET_LASER",
    "MOD_TRIGGER_HURT",
    "MOD_NAIL",
    "MOD_CHAINGUN",
    "MOD_PROXIMITY_MINE",
    "MOD_KAMIKAZE",
    "MOD_JUICED",
    "MOD_GRAPPLE",
];

/// The name of a means of death, when the game's numbering is known: up to MOD_TRIGGER_HURT
/// every game agrees; past it, `missionpack` says which list applies (`None`: unknown game).
pub(crate) fn mod_name(n: i64, missionpack: Option<bool>) -> Option<&'static str> {
    match (n, missionpack) {
        (0..=22, _) => MODS.get(n as usize).copied(),
        (23, Some(false)) => Some("MOD_GRAPPLE"),
        (23..=28, Some(true)) => MODS.get(n as usize).copied(),
        _ => None,
    }
}

/// One flow's state: what naming and de-duplication need. `tracks` and `report` keep one per
/// flow too, for the names, map and client number it knows.
#[derive(Default)]
pub struct State {
    /// Player names by client number (CS_PLAYERS + n), raw.
    players: HashMap<i64, String>,
    /// The last reliable server command handled (resent commands repeat lower numbers).
    server_seq: Option<i64>,
    client_seq: Option<i64>,
    /// This connection's client number, from the gamestate.
    client_num: Option<i64>,
    /// Whether the game numbers means of death with the MISSIONPACK entries (from `gamename`).
    missionpack: Option<bool>,
    /// Obituaries already reported, by entity number, until the entity is removed.
    obituaries: HashMap<u16, (i64, i64, i64)>,
    vote: Option<String>,
    /// The map of the last gamestate (`mapname` of CS_SERVERINFO).
    map: Option<String>,
    /// The last gamestate handled, as (command sequence, `sv_serverid` of CS_SYSTEMINFO): a
    /// gamestate sent again repeats both, a new map's carries a new server id with the same
    /// sequence (the commands since do not reset it: ioquake3 code/server/sv_client.c
    /// `SV_SendClientGameState` writes `client->reliableSequence`).
    gamestate: Option<(Option<i64>, Option<String>)>,
}

impl EventExtractor for State {
    fn record(&mut self, at: &At, record: &Record, out: &mut Vec<Event>) {
        let Some(msg) = Message::of(record) else {
            return;
        };
        if let Some(oob) = msg.connectionless() {
            self.oob(at, oob, out);
        }
        if let Some(gs) = msg.gamestate() {
            self.gamestate(at, gs, out);
        }
        for cmd in msg.server_commands() {
            self.server_command(at, cmd, out);
        }
        if let Some(snap) = msg.snapshot() {
            self.snapshot(at, snap, out);
        }
        for cmd in msg.client_commands() {
            self.client_command(at, cmd, out);
        }
    }
}

impl State {
    /// A player's name as the game sent it (colour codes kept), when known.
    pub fn player_raw(&self, client: i64) -> Option<&str> {
        self.players.get(&client).map(String::as_str)
    }

    /// This connection's client number, from the last gamestate.
    pub fn client_num(&self) -> Option<i64> {
        self.client_num
    }

    /// The map of the last gamestate.
    pub fn map(&self) -> Option<&str> {
        self.map.as_deref()
    }

    fn event(&self, at: &At, kind: &'static str) -> Event {
        at.event(P, kind)
    }

    /// A client number as the player's name at this moment; `<world>` for the world.
    fn name_of(&self, client: i64) -> Option<Label> {
        if !(0..MAX_CLIENTS).contains(&client) {
            return Some(Label::plain("<world>"));
        }
        self.players.get(&client).map(|raw| label(raw))
    }

    fn oob(&mut self, at: &At, oob: Connectionless<'_>, out: &mut Vec<Event>) {
        let Some(command) = oob.command() else {
            return;
        };
        match &*command {
            "rcon" => {
                let mut e = self.event(at, "rcon");
                e.text = oob.rcon_command().map(Label::plain);
                out.push(e);
            }
            "connect" => {
                let mut e = self.event(at, "connect");
                e.who = oob.userinfo("name").map(|n| label(&n));
                if let Some(p) = oob.userinfo("protocol") {
                    e.details.push(("protocol", p.into_owned()));
                }
                e.text = Some(Label::plain("connect"));
                out.push(e);
            }
            "connectResponse" => {
                let mut e = self.event(at, "connect");
                e.text = Some(Label::plain("connectResponse"));
                out.push(e);
            }
            _ => {}
        }
    }

    fn gamestate(&mut self, at: &At, gs: Gamestate<'_>, out: &mut Vec<Event>) {
        let seq = gs.command_sequence();
        let identity = (seq, gs.server_id());
        if self.gamestate.as_ref() == Some(&identity) {
            return; // the same gamestate sent again
        }
        self.gamestate = Some(identity);
        if seq > self.server_seq {
            self.server_seq = seq;
        }
        self.client_num = gs.client_num();
        self.obituaries.clear();
        let mut map = None;
        let mut now: HashMap<i64, String> = HashMap::new();
        for (index, value) in gs.configstrings() {
            if index == CS_SERVERINFO {
                map = info_value(&value, "mapname").map(str::to_string);
                self.missionpack = info_value(&value, "gamename").and_then(|g| match g {
                    "baseq3" => Some(false),
                    "baseoa" | "missionpack" => Some(true),
                    _ => None,
                });
            } else if let Some(name) = player_name(index, &value) {
                now.insert(index - CS_PLAYERS, name.to_string());
            }
        }
        self.map.clone_from(&map);
        let mut e = self.event(at, "map");
        e.text = map.map(Label::plain);
        if let Some(c) = self.client_num {
            e.details.push(("client", c.to_string()));
        }
        out.push(e);
        let mut slots: Vec<i64> = now.keys().chain(self.players.keys()).copied().collect();
        slots.sort_unstable();
        slots.dedup();
        for client in slots {
            let name = now.remove(&client);
            self.player(at, client, name, "gamestate", out);
        }
    }

    /// A player slot's new name (`None`: empty): join, leave or rename against the table.
    fn player(
        &mut self,
        at: &At,
        client: i64,
        name: Option<String>,
        when: &str,
        out: &mut Vec<Event>,
    ) {
        let old = self.players.get(&client).cloned();
        let mut e = match (&old, &name) {
            (None, Some(n)) => {
                let mut e = self.event(at, "join");
                e.who = Some(label(n));
                e.details.push(("at", when.to_string()));
                e
            }
            (Some(o), None) => {
                let mut e = self.event(at, "leave");
                e.who = Some(label(o));
                e
            }
            (Some(o), Some(n)) if o != n => {
                let mut e = self.event(at, "rename");
                e.who = Some(label(o));
                e.target = Some(label(n));
                e
            }
            _ => return,
        };
        e.details.insert(0, ("client", client.to_string()));
        out.push(e);
        match name {
            Some(n) => self.players.insert(client, n),
            None => self.players.remove(&client),
        };
    }

    fn server_command(&mut self, at: &At, cmd: ServerCommand<'_>, out: &mut Vec<Event>) {
        let seq = cmd.sequence();
        if seq.is_some() && seq <= self.server_seq {
            return; // resent: handled when it first came
        }
        if seq.is_some() {
            self.server_seq = seq;
        }
        let name = cmd.name().unwrap_or_default();
        let message = cmd.message();
        match &*name {
            "chat" | "tchat" => {
                if let Some(m) = message {
                    out.push(self.chat(at, &m, name == "tchat"));
                }
            }
            "print" | "cp" => {
                let m = message.unwrap_or_default();
                let m = m.trim_end_matches('\n');
                if name == "cp" && m.is_empty() {
                    return;
                }
                let mut e = self.event(at, if name == "cp" { "centerprint" } else { "print" });
                e.text = Some(label(m));
                out.push(e);
            }
            "cs" | "bcs2" => self.configstring(at, cmd, out),
            "map_restart" => {
                let mut e = self.event(at, "map");
                e.details.push(("restart", "true".into()));
                out.push(e);
            }
            "disconnect" => {
                let mut e = self.event(at, "disconnect");
                e.text = message.map(|m| label(&m));
                e.details.push(("by", "server".into()));
                out.push(e);
            }
            _ => {}
        }
    }

    fn configstring(&mut self, at: &At, cmd: ServerCommand<'_>, out: &mut Vec<Event>) {
        let Some((index, value)) = cmd.configstring() else {
            return;
        };
        if (CS_PLAYERS..CS_PLAYERS + MAX_CLIENTS).contains(&index) {
            let name = player_name(index, &value).map(str::to_string);
            self.player(at, index - CS_PLAYERS, name, "update", out);
        } else if index == CS_VOTE_STRING {
            let value = value.into_owned();
            if !value.is_empty() && self.vote.as_ref() != Some(&value) {
                let mut e = self.event(at, "vote");
                e.text = Some(label(&value));
                e.details.push(("by", "server".into()));
                out.push(e);
            }
            self.vote = Some(value);
        }
    }

    /// A `chat`/`tchat` line split into speaker and message. G_Say writes the speaker, `^7`, the
    /// byte 0x19 and `: ` (team chat in parentheses, `tell` in brackets); the server console's
    /// lines start `console: ` and have no 0x19.
    fn chat(&self, at: &At, line: &str, team: bool) -> Event {
        let mut e = self.event(at, "chat");
        let (speaker, message, mode) = match line.split_once("\u{19}: ") {
            Some((s, m)) => {
                let s = s.strip_suffix("^7").unwrap_or(s);
                if let Some(t) = s.strip_prefix('[').and_then(|t| t.split_once(']')) {
                    (Some(t.0), m, "tell")
                } else if let Some(t) = s.strip_prefix('(').and_then(|t| t.split_once(')')) {
                    (Some(t.0), m, "say_team")
                } else {
                    (Some(s), m, if team { "say_team" } else { "say" })
                }
            }
            None => match line.split_once(": ") {
                Some(("console", m)) => (Some("console"), m, "server"),
                _ => (None, line, if team { "say_team" } else { "say" }),
            },
        };
        let speaker = speaker.map(|s| s.strip_suffix("^7").unwrap_or(s));
        e.who = speaker.map(label);
        e.text = Some(label(message));
        e.details.push(("mode", mode.into()));
        e
    }

    fn snapshot(&mut self, at: &At, snap: Snapshot<'_>, out: &mut Vec<Event>) {
        for n in snap.removed() {
            self.obituaries.remove(&(n as u16));
        }
        for ent in snap.entities() {
            let Some(number) = ent
                .number()
                .filter(|n| (0..MAX_GENTITIES as i64).contains(n))
            else {
                continue;
            };
            let number = number as u16;
            if ent.removed() || ent.e_type() != Some(ET_OBITUARY) {
                self.obituaries.remove(&number);
                continue;
            }
            if let Some(e) = self.obituary(at, ent, number) {
                out.push(e);
            }
        }
    }

    /// An obituary entity, once per entity (it stays in snapshots for a while and may be sent
    /// again against an older snapshot).
    fn obituary(&mut self, at: &At, ent: Entity<'_>, number: u16) -> Option<Event> {
        let victim = ent.other_entity_num();
        let killer = ent.other_entity_num2();
        let mod_ = ent.event_parm();
        let key = (
            victim.unwrap_or(-1),
            killer.unwrap_or(-1),
            mod_.unwrap_or(-1),
        );
        if self.obituaries.get(&number) == Some(&key) {
            return None;
        }
        self.obituaries.insert(number, key);
        let mut e = self.event(at, "kill");
        e.who = killer.and_then(|k| self.name_of(k));
        e.target = victim.and_then(|v| self.name_of(v));
        e.text = mod_
            .and_then(|m| mod_name(m, self.missionpack))
            .map(Label::plain);
        for (k, v) in [("killer", killer), ("victim", victim), ("mod", mod_)] {
            if let Some(v) = v {
                e.details.push((k, v.to_string()));
            }
        }
        Some(e)
    }

    fn client_command(&mut self, at: &At, cmd: ClientCommand<'_>, out: &mut Vec<Event>) {
        let seq = cmd.sequence();
        if seq.is_some() && seq <= self.client_seq {
            return;
        }
        if seq.is_some() {
            self.client_seq = seq;
        }
        let name = cmd.name().unwrap_or_default();
        let me = self.client_num.and_then(|c| self.name_of(c));
        let mut e = match &*name {
            "callvote" | "vote" => {
                let mut e = self.event(at, "vote");
                let text = cmd.text().unwrap_or_default();
                e.text = Some(label(text.trim_end()));
                e.details.push(("by", "client".into()));
                e
            }
            "disconnect" => {
                let mut e = self.event(at, "disconnect");
                e.details.push(("by", "client".into()));
                e
            }
            _ => return,
        };
        e.who = me;
        out.push(e);
    }
}

/// A name or line as sent, and as a person reads it (`Q_CleanStr`).
fn label(raw: &str) -> Label {
    Label {
        clean: clean_str(raw),
        raw: raw.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn means_of_death_by_game() {
        assert_eq!(mod_name(4, None), Some("MOD_GRENADE"));
        assert_eq!(mod_name(20, Some(true)), Some("MOD_SUICIDE"));
        assert_eq!(mod_name(23, Some(false)), Some("MOD_GRAPPLE"));
        assert_eq!(mod_name(23, Some(true)), Some("MOD_NAIL"));
        assert_eq!(mod_name(28, Some(true)), Some("MOD_GRAPPLE"));
        assert_eq!(mod_name(23, None), None);
        assert_eq!(mod_name(-1, Some(true)), None);
    }

    #[test]
    fn chat_lines_split() {
        let s = State::default();
        let at = At {
            frame: 1,
            time: Default::default(),
            base: Default::default(),
            flow: 0,
        };
        let e = s.chat(&at, "(Bob^7) (Base)\u{19}: ^5go", true);
        assert_eq!(e.who.map(|w| w.clean).as_deref(), Some("Bob"));
        assert_eq!(e.text.map(|t| t.clean).as_deref(), Some("go"));
        assert_eq!(e.details, vec![("mode", "say_team".to_string())]);
        let e = s.chat(&at, "[A^1x^7]\u{19}: hi", true);
        assert_eq!(e.who.map(|w| w.raw).as_deref(), Some("A^1x"));
        let e = s.chat(&at, "console: hello", false);
        assert_eq!(e.details, vec![("mode", "server".to_string())]);
    }
}
