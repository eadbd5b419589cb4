//! Quake 3 events, from the decoded server commands, gamestates, snapshot entities and
//! connectionless packets of one flow.
//!
//! Facts from ioquake3: configstring indices and `meansOfDeath_t` (code/game/bg_public.h), the
//! obituary temp entity (`G_TempEntity(…, EV_OBITUARY)` in code/game/g_combat.c `player_die`;
//! read back in code/cgame/cg_event.c `CG_Obituary`), chat lines (code/game/g_cmds.c `G_Say`,
//! code/server/sv_ccmds.c `SV_ConSay_f`).

use std::collections::HashMap;

use super::{At, Event, KindDef, Label, clean_quake3};
use crate::toolkit::lookup::{child, child_int, child_text, children, info_value, int, text};
use crate::tree::{Field, Record};

const P: &str = "quake3";

pub(super) static KINDS: &[KindDef] = &[
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

/// CS_PLAYERS and MAX_CLIENTS (bg_public.h, q_shared.h).
const CS_PLAYERS: i64 = 544;
const MAX_CLIENTS: i64 = 64;
/// CS_VOTE_STRING (bg_public.h).
const CS_VOTE_STRING: i64 = 9;
/// ET_EVENTS + EV_OBITUARY: a temp entity's eType is the event number plus ET_EVENTS (13);
/// EV_OBITUARY is 60 in `entity_event_t`.
const ET_OBITUARY: i64 = 13 + 60;
/// An entity number past the last one: entities are 10-bit (GENTITYNUM_BITS).
const MAX_GENTITIES: usize = 1024;
/// Set on an entity some of whose fields are not known (the state its delta applied to was not
/// captured, and they were not sent since): an absent field is then unknown, not zero.
const ENT_PARTIAL: &str = "quake3.svc.snapshot.entity.partial";

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

/// One flow's state: what naming and de-duplication need.
#[derive(Default)]
pub(crate) struct State {
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

impl State {
    pub(crate) fn record(&mut self, at: &At, record: &Record, out: &mut Vec<Event>) {
        let Some(root) = record.fields.iter().find(|f| f.def.name == P) else {
            return;
        };
        if let Some(oob) = child(root, "quake3.oob") {
            self.oob(at, oob, out);
        }
        if let Some(svc) = child(root, "quake3.svc") {
            if let Some(gs) = child(svc, "quake3.svc.gamestate") {
                self.gamestate(at, gs, out);
            }
            for cmd in children(svc, "quake3.svc.command") {
                self.server_command(at, cmd, out);
            }
            if let Some(snap) = child(svc, "quake3.svc.snapshot") {
                self.snapshot(at, snap, out);
            }
        }
        if let Some(clc) = child(root, "quake3.clc") {
            for cmd in children(clc, "quake3.clc.command") {
                self.client_command(at, cmd, out);
            }
        }
    }

    /// A player's name as the game sent it (colour codes kept), when known.
    pub(crate) fn player_raw(&self, client: i64) -> Option<&str> {
        self.players.get(&client).map(String::as_str)
    }

    /// This connection's client number, from the last gamestate.
    pub(crate) fn client_num(&self) -> Option<i64> {
        self.client_num
    }

    /// The map of the last gamestate.
    pub(crate) fn map(&self) -> Option<&str> {
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

    fn oob(&mut self, at: &At, oob: &Field, out: &mut Vec<Event>) {
        let Some(command) = child_text(oob, "quake3.oob.command") else {
            return;
        };
        match &*command {
            "rcon" => {
                let mut e = self.event(at, "rcon");
                e.text = child_text(oob, "quake3.oob.rcon_command").map(Label::plain);
                out.push(e);
            }
            "connect" => {
                let mut e = self.event(at, "connect");
                if let Some(ui) = child(oob, "quake3.oob.userinfo") {
                    e.who = info_value(ui, "name").map(|n| label(&n));
                    if let Some(p) = info_value(ui, "protocol") {
                        e.details.push(("protocol", p.into_owned()));
                    }
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

    fn gamestate(&mut self, at: &At, gs: &Field, out: &mut Vec<Event>) {
        let seq = child_int(gs, "quake3.svc.gamestate.command_sequence");
        let identity = (seq, server_id(gs));
        if self.gamestate.as_ref() == Some(&identity) {
            return; // the same gamestate sent again
        }
        self.gamestate = Some(identity);
        if seq > self.server_seq {
            self.server_seq = seq;
        }
        self.client_num = child_int(gs, "quake3.svc.gamestate.client_num");
        self.obituaries.clear();
        let mut map = None;
        let mut now: HashMap<i64, String> = HashMap::new();
        for cs in children(gs, "quake3.svc.gamestate.configstring") {
            let (Some(index), Some(value)) = (
                child_int(cs, "quake3.svc.gamestate.configstring.index"),
                child_text(cs, "quake3.svc.gamestate.configstring.value"),
            ) else {
                continue;
            };
            if index == 0 {
                map = info_of(&value, "mapname");
                self.missionpack = info_of(&value, "gamename").and_then(|g| match g.as_str() {
                    "baseq3" => Some(false),
                    "baseoa" | "missionpack" => Some(true),
                    _ => None,
                });
            } else if let Some(name) = player_name(index, &value) {
                now.insert(index - CS_PLAYERS, name);
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

    fn server_command(&mut self, at: &At, cmd: &Field, out: &mut Vec<Event>) {
        let seq = child_int(cmd, "quake3.svc.command.sequence");
        if seq.is_some() && seq <= self.server_seq {
            return; // resent: handled when it first came
        }
        if seq.is_some() {
            self.server_seq = seq;
        }
        let name = child_text(cmd, "quake3.svc.command.name").unwrap_or_default();
        let message = child_text(cmd, "quake3.svc.command.message");
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

    fn configstring(&mut self, at: &At, cmd: &Field, out: &mut Vec<Event>) {
        let (Some(index), Some(value)) = (
            child_int(cmd, "quake3.svc.command.cs_index"),
            child_text(cmd, "quake3.svc.command.cs_value"),
        ) else {
            return;
        };
        if (CS_PLAYERS..CS_PLAYERS + MAX_CLIENTS).contains(&index) {
            let name = player_name(index, &value);
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

    fn snapshot(&mut self, at: &At, snap: &Field, out: &mut Vec<Event>) {
        for n in children(snap, "quake3.svc.snapshot.removed").filter_map(|f| int(&f.value)) {
            self.obituaries.remove(&(n as u16));
        }
        for ent in children(snap, "quake3.svc.snapshot.entity") {
            let Some(number) = child_int(ent, "quake3.svc.snapshot.entity.number")
                .filter(|n| (0..MAX_GENTITIES as i64).contains(n))
            else {
                continue;
            };
            let number = number as u16;
            let removed = child(ent, "quake3.svc.snapshot.entity.removed")
                .is_some_and(|f| f.value == crate::tree::Value::Bool(true));
            if removed || child_int(ent, "quake3.svc.snapshot.entity.e_type") != Some(ET_OBITUARY) {
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
    fn obituary(&mut self, at: &At, ent: &Field, number: u16) -> Option<Event> {
        // A field not shown is zero, unless the state is partial (then it is not known).
        let base_known = child(ent, ENT_PARTIAL).is_none();
        let value = |name: &str, label: &str| -> Option<i64> {
            let sent = children(ent, "quake3.svc.snapshot.entity.changed")
                .any(|c| text(&c.value).is_some_and(|t| t == label));
            match child_int(ent, name) {
                Some(v) => Some(v),
                None if base_known || sent => Some(0),
                None => None,
            }
        };
        let victim = value(
            "quake3.svc.snapshot.entity.other_entity_num",
            "otherEntityNum",
        );
        let killer = value(
            "quake3.svc.snapshot.entity.other_entity_num2",
            "otherEntityNum2",
        );
        let mod_ = value("quake3.svc.snapshot.entity.event_parm", "eventParm");
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

    fn client_command(&mut self, at: &At, cmd: &Field, out: &mut Vec<Event>) {
        let seq = child_int(cmd, "quake3.clc.command.sequence");
        if seq.is_some() && seq <= self.client_seq {
            return;
        }
        if seq.is_some() {
            self.client_seq = seq;
        }
        let name = child_text(cmd, "quake3.clc.command.name").unwrap_or_default();
        let me = self.client_num.and_then(|c| self.name_of(c));
        let mut e = match &*name {
            "callvote" | "vote" => {
                let mut e = self.event(at, "vote");
                let text = child_text(cmd, "quake3.clc.command.text").unwrap_or_default();
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

fn label(raw: &str) -> Label {
    Label {
        clean: clean_quake3(raw),
        raw: raw.to_string(),
    }
}

/// The value of `key` in a `\key\value…` info string (q_shared.c `Info_ValueForKey`).
fn info_of(info: &str, key: &str) -> Option<String> {
    let mut parts = info.strip_prefix('\\').unwrap_or(info).split('\\');
    while let (Some(k), Some(v)) = (parts.next(), parts.next()) {
        if k == key {
            return Some(v.to_string());
        }
    }
    None
}

/// `sv_serverid` of a gamestate's CS_SYSTEMINFO (configstring 1): new at every map load
/// (ioquake3 code/server/sv_init.c `SV_SpawnServer` sets it from the level's start time).
fn server_id(gs: &Field) -> Option<String> {
    children(gs, "quake3.svc.gamestate.configstring")
        .filter(|cs| child_int(cs, "quake3.svc.gamestate.configstring.index") == Some(1))
        .find_map(|cs| child_text(cs, "quake3.svc.gamestate.configstring.value"))
        .and_then(|v| info_of(&v, "sv_serverid"))
}

/// The name in a player configstring (`n\Name\t\0…`), `None` for an empty slot.
fn player_name(index: i64, value: &str) -> Option<String> {
    if !(CS_PLAYERS..CS_PLAYERS + MAX_CLIENTS).contains(&index) || value.is_empty() {
        return None;
    }
    info_of(value, "n")
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
    fn info_strings() {
        assert_eq!(info_of("n\\Sarge\\t\\0", "n").as_deref(), Some("Sarge"));
        assert_eq!(
            info_of("\\mapname\\oa_dm1", "mapname").as_deref(),
            Some("oa_dm1")
        );
        assert_eq!(player_name(546, ""), None);
        assert_eq!(player_name(10, "n\\x"), None);
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
