//! SRB2 events (`gamedissect events`, docs/events.md), from the net commands the server relays
//! in PT_SERVERTICS (what every player's game executes), the player lists, and the server's
//! refusal and shutdown packets, read through [`super::facts`].
//!
//! Facts from SRB2 (github.com/STJr/SRB2): net commands are executed from the server's tic
//! stream (`src/d_clisrv.c` `SV_SendTics`, `ExecuteTextCmd`); a client's PT_TEXTCMD is only a
//! request. `Got_Saycmd` (`src/hu_stuff.c`) shows chat, `Got_AddPlayer` and `Got_KickCmd`
//! (`src/d_clisrv.c`) add and remove players (a player who quits or times out is removed by the
//! server's XD_KICK with KICK_MSG_PLAYER_QUIT or KICK_MSG_TIMEOUT), `Got_NameAndColor`
//! (`src/d_netcmd.c`) renames, `Got_Mapcmd` (`src/d_netcmd.c`) changes the map.

use super::facts::{MAX_PLAYERS, NetCommand, Packet, ServerConfig, TextBuffer};
use crate::toolkit::facts::{At, Event, EventExtractor, Events, KindDef, Label, Scope};
use crate::tree::Record;

const P: &str = "srb2";

/// What `gamedissect events` finds in SRB2 ([`crate::proto::Protocol::events`]): one `State`
/// per flow.
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
        desc: "XD_SAY relayed by the server: who = speaker, target = the addressee of a private message, text = message; details player, to (everyone, team or a player number), flags (server, csay)",
    },
    KindDef {
        protocol: P,
        name: "join",
        desc: "A player enters the game (XD_ADDPLAYER; at = addplayer), or is listed in the PT_SERVERCFG the client receives on joining (at = servercfg): who = player; details player, node",
    },
    KindDef {
        protocol: P,
        name: "leave",
        desc: "A player quits or times out (XD_KICK with KICK_MSG_PLAYER_QUIT or KICK_MSG_TIMEOUT), or this flow's client sends PT_CLIENTQUIT: who = player; details player, reason",
    },
    KindDef {
        protocol: P,
        name: "kick",
        desc: "A player is kicked or banned (XD_KICK, any other KICK_MSG_*): who = the issuer, target = the player, text = custom reason or KICK_MSG_* name; details player, reason",
    },
    KindDef {
        protocol: P,
        name: "rename",
        desc: "XD_NAMEANDCOLOR with a name other than the player's known one: who = old name, target = new name; details player",
    },
    KindDef {
        protocol: P,
        name: "map",
        desc: "XD_MAP: text = map lump name; details gametype",
    },
    KindDef {
        protocol: P,
        name: "refuse",
        desc: "PT_SERVERREFUSE: the server refused a join; text = reason",
    },
    KindDef {
        protocol: P,
        name: "shutdown",
        desc: "PT_SERVERSHUTDOWN: the server is shutting down",
    },
];

/// Command buffers remembered for de-duplication: a server resends only the tics a client has
/// not acknowledged, and few tics carry commands; small, as every flow has its own.
const MAX_REPORTED: usize = 256;

/// What naming and de-duplication need of one SRB2 flow: 32 names and two numbers.
#[derive(Default)]
struct State {
    names: [Option<String>; MAX_PLAYERS],
    /// The (tic, player) command buffers reported lately, oldest first: PT_SERVERTICS overlap,
    /// and a tic's commands are sent again until the client acknowledges the tic.
    reported: std::collections::VecDeque<(u64, i64)>,
    /// The node the server gave this flow's client (PT_SERVERCFG), and the player it became.
    client_node: Option<i64>,
    client_player: Option<i64>,
}

fn slot(player: i64) -> Option<usize> {
    usize::try_from(player).ok().filter(|&p| p < MAX_PLAYERS)
}

impl EventExtractor for State {
    fn record(&mut self, at: &At, record: &Record, out: &mut Vec<Event>) {
        let Some(packet) = Packet::of(record) else {
            return;
        };
        match packet.packet_type() {
            "PT_SERVERREFUSE" => {
                let mut e = at.event(P, "refuse");
                e.text = packet.refuse_reason().map(|t| Label::plain(t.as_ref()));
                out.push(e);
            }
            "PT_SERVERSHUTDOWN" => out.push(at.event(P, "shutdown")),
            "PT_CLIENTQUIT" => {
                let mut e = at.event(P, "leave");
                if let Some(p) = self.client_player {
                    e.who = self.name(p);
                    e.details.push(("player", p.to_string()));
                }
                e.details.push(("reason", "PT_CLIENTQUIT".into()));
                out.push(e);
            }
            _ => {}
        }
        // PT_PLAYERINFO (a server browser's view): names only, no events.
        for (n, name) in packet.player_info() {
            self.set_name(n, &name);
        }
        if let Some(cfg) = packet.server_config() {
            self.server_config(at, cfg, out);
        }
        for (tic, buf) in packet.tic_commands() {
            let key = (tic, buf.player().unwrap_or(-1));
            if self.reported.contains(&key) {
                continue;
            }
            if self.reported.len() >= MAX_REPORTED {
                self.reported.pop_front();
            }
            self.reported.push_back(key);
            self.text_buffer(at, buf, out);
        }
    }
}

impl State {
    fn name(&self, player: i64) -> Option<Label> {
        let name = self.names[slot(player)?].as_deref()?;
        Some(Label::plain(name))
    }

    fn set_name(&mut self, player: i64, name: &str) {
        if let Some(s) = slot(player) {
            self.names[s] = (!name.is_empty()).then(|| name.to_string());
        }
    }

    /// PT_SERVERCFG: the client's node, and (up to 2.2.8) the players already in the game.
    fn server_config(&mut self, at: &At, cfg: ServerConfig<'_>, out: &mut Vec<Event>) {
        self.client_node = cfg.client_node();
        for (n, name) in cfg.names().enumerate() {
            let Some(name) = name.filter(|t| !t.is_empty()) else {
                continue;
            };
            let n = n as i64;
            self.set_name(n, &name);
            let mut e = at.event(P, "join");
            e.who = Some(Label::plain(name.as_ref()));
            e.details.push(("player", n.to_string()));
            e.details.push(("at", "servercfg".into()));
            out.push(e);
        }
    }

    /// The net commands one player issued in one tic.
    fn text_buffer(&mut self, at: &At, buf: TextBuffer<'_>, out: &mut Vec<Event>) {
        let issuer = buf.player();
        for xd in buf.commands() {
            match xd.kind() {
                "XD_SAY" => out.push(self.say(at, issuer, xd)),
                "XD_ADDPLAYER" => out.push(self.add_player(at, xd)),
                "XD_KICK" => out.push(self.kick(at, issuer, xd)),
                "XD_NAMEANDCOLOR" => self.name_and_color(at, issuer, xd, out),
                "XD_MAP" => {
                    let mut e = at.event(P, "map");
                    e.text = xd.map().map(|m| Label::plain(m.as_ref()));
                    if let Some((name, g)) = xd.gametype() {
                        let g = g.to_string();
                        e.details
                            .push(("gametype", if name.is_empty() { g } else { name.into() }));
                    }
                    out.push(e);
                }
                _ => {}
            }
        }
    }

    fn say(&self, at: &At, issuer: Option<i64>, xd: NetCommand<'_>) -> Event {
        let mut e = at.event(P, "chat");
        if let Some(p) = issuer {
            e.who = self.name(p);
            e.details.push(("player", p.to_string()));
        }
        e.text = xd.message().map(|m| Label::plain(m.as_ref()));
        // `Got_Saycmd`: 0 everyone, 1…32 privately to player n-1, negative the speaker's team.
        let to = match xd.say_target() {
            Some(0) | None => "everyone".to_string(),
            Some(t) if t < 0 => "team".to_string(),
            Some(t) => {
                e.target = self.name(t - 1);
                (t - 1).to_string()
            }
        };
        e.details.push(("to", to));
        let flags = xd.say_flags().unwrap_or(0);
        let mut named = Vec::new();
        if flags & 1 != 0 {
            named.push("server");
        }
        if flags & 2 != 0 {
            named.push("csay");
        }
        if !named.is_empty() {
            e.details.push(("flags", named.join(",")));
        }
        e
    }

    fn add_player(&mut self, at: &At, xd: NetCommand<'_>) -> Event {
        let mut e = at.event(P, "join");
        let node = xd.node();
        let player = xd.player_num();
        if let Some(p) = player {
            // 2.2 carries the name; 2.1 names the player in a later XD_NAMEANDCOLOR.
            if let Some(name) = xd.player_name() {
                self.set_name(p, &name);
            }
            e.who = self.name(p);
            e.details.push(("player", p.to_string()));
            if node.is_some() && node == self.client_node {
                self.client_player = Some(p);
            }
        }
        if let Some(n) = node {
            e.details.push(("node", n.to_string()));
        }
        e.details.push(("at", "addplayer".into()));
        e
    }

    fn kick(&mut self, at: &At, issuer: Option<i64>, xd: NetCommand<'_>) -> Event {
        let msg = xd.kick_msg();
        let quit = matches!(msg, "KICK_MSG_PLAYER_QUIT" | "KICK_MSG_TIMEOUT");
        let mut e = at.event(P, if quit { "leave" } else { "kick" });
        let player = xd.kicked();
        let kicked = player.and_then(|p| self.name(p));
        if quit {
            e.who = kicked;
        } else {
            e.who = issuer.and_then(|p| self.name(p));
            e.target = kicked;
            e.text = xd
                .kick_reason()
                .filter(|r| !r.is_empty())
                .map(|r| Label::plain(r.as_ref()))
                .or_else(|| (!msg.is_empty()).then(|| Label::plain(msg)));
        }
        if let Some(p) = player {
            e.details.push(("player", p.to_string()));
            self.set_name(p, "");
        }
        if !msg.is_empty() {
            e.details.push(("reason", msg.into()));
        }
        e
    }

    fn name_and_color(
        &mut self,
        at: &At,
        issuer: Option<i64>,
        xd: NetCommand<'_>,
        out: &mut Vec<Event>,
    ) {
        let (Some(p), Some(new)) = (issuer, xd.player_name()) else {
            return;
        };
        let old = self.name(p);
        if let Some(old) = old.filter(|o| o.raw != new) {
            let mut e = at.event(P, "rename");
            e.who = Some(old);
            e.target = Some(Label::plain(new.as_ref()));
            e.details.push(("player", p.to_string()));
            out.push(e);
        }
        self.set_name(p, &new);
    }
}
