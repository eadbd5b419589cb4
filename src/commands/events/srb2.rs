//! SRB2 events, from the net commands the server relays in PT_SERVERTICS (what every player's
//! game executes), the player lists, and the server's refusal and shutdown packets.
//!
//! Facts from SRB2 (github.com/STJr/SRB2): net commands are executed from the server's tic
//! stream (`src/d_clisrv.c` `SV_SendTics`, `ExecuteTextCmd`); a client's PT_TEXTCMD is only a
//! request. `Got_Saycmd` (`src/hu_stuff.c`) shows chat, `Got_AddPlayer` and `Got_KickCmd`
//! (`src/d_clisrv.c`) add and remove players (a player who quits or times out is removed by the
//! server's XD_KICK with KICK_MSG_PLAYER_QUIT or KICK_MSG_TIMEOUT), `Got_NameAndColor`
//! (`src/d_netcmd.c`) renames, `Got_Mapcmd` (`src/d_netcmd.c`) changes the map.

use super::{At, Event, KindDef, Label};
use crate::toolkit::lookup::{child, child_int, child_text, children, int, text};
use crate::tree::{Field, Record, Value};

const P: &str = "srb2";

pub(super) static KINDS: &[KindDef] = &[
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

/// MAXPLAYERS (`src/doomdef.h`), the same in every release.
const MAX_PLAYERS: usize = 32;
/// Command buffers remembered for de-duplication: a server resends only the tics a client has
/// not acknowledged, and few tics carry commands; small, as every flow has its own.
const MAX_REPORTED: usize = 256;

/// What naming and de-duplication need of one SRB2 flow: 32 names and two numbers.
#[derive(Default)]
pub(crate) struct State {
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

/// An enum's symbolic name (empty when the number is not tabulated).
fn enum_name(f: &Field) -> &'static str {
    match f.value {
        Value::Enum(_, name) => name,
        _ => "",
    }
}

impl State {
    pub(crate) fn record(&mut self, at: &At, record: &Record, out: &mut Vec<Event>) {
        let Some(root) = record.fields.iter().find(|f| f.def.name == P) else {
            return;
        };
        let ptype = child(root, "srb2.header")
            .and_then(|h| child(h, "srb2.header.type"))
            .map_or("", enum_name);
        match ptype {
            "PT_SERVERREFUSE" => {
                let mut e = at.event(P, "refuse");
                e.text = child(root, "srb2.refuse")
                    .and_then(|r| child_text(r, "srb2.refuse.reason"))
                    .map(|t| Label::plain(t.as_ref()));
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
        if let Some(info) = child(root, "srb2.playerinfo") {
            self.player_info(info);
        }
        if let Some(cfg) = child(root, "srb2.servercfg") {
            self.server_config(at, cfg, out);
        }
        if let Some(tics) = child(root, "srb2.tics") {
            for section in children(tics, "srb2.tics.text") {
                let Some(tic) = int(&section.value).and_then(|t| u64::try_from(t).ok()) else {
                    continue;
                };
                for buf in children(section, "srb2.textbuf") {
                    let key = (tic, child_int(buf, "srb2.textbuf.player").unwrap_or(-1));
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
    }

    fn name(&self, player: i64) -> Option<Label> {
        let name = self.names[slot(player)?].as_deref()?;
        Some(Label::plain(name))
    }

    fn set_name(&mut self, player: i64, name: &str) {
        if let Some(s) = slot(player) {
            self.names[s] = (!name.is_empty()).then(|| name.to_string());
        }
    }

    /// PT_PLAYERINFO (a server browser's view): names only, no events.
    fn player_info(&mut self, info: &Field) {
        for p in children(info, "srb2.playerinfo.player") {
            if let (Some(n), Some(name)) =
                (int(&p.value), child_text(p, "srb2.playerinfo.player.name"))
            {
                self.set_name(n, &name);
            }
        }
    }

    /// PT_SERVERCFG: the client's node, and (up to 2.2.8) the players already in the game.
    fn server_config(&mut self, at: &At, cfg: &Field, out: &mut Vec<Event>) {
        self.client_node = child_int(cfg, "srb2.servercfg.clientnode");
        for (n, f) in children(cfg, "srb2.servercfg.name").enumerate() {
            let Some(name) = text(&f.value).filter(|t| !t.is_empty()) else {
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
    fn text_buffer(&mut self, at: &At, buf: &Field, out: &mut Vec<Event>) {
        let issuer = child_int(buf, "srb2.textbuf.player");
        for xd in children(buf, "srb2.xd") {
            match enum_name(xd) {
                "XD_SAY" => out.push(self.say(at, issuer, xd)),
                "XD_ADDPLAYER" => out.push(self.add_player(at, xd)),
                "XD_KICK" => out.push(self.kick(at, issuer, xd)),
                "XD_NAMEANDCOLOR" => self.name_and_color(at, issuer, xd, out),
                "XD_MAP" => {
                    let mut e = at.event(P, "map");
                    e.text = child_text(xd, "srb2.xd.map").map(|m| Label::plain(m.as_ref()));
                    if let Some(g) = child(xd, "srb2.xd.gametype") {
                        let name = enum_name(g);
                        let g = int(&g.value).unwrap_or_default().to_string();
                        e.details
                            .push(("gametype", if name.is_empty() { g } else { name.into() }));
                    }
                    out.push(e);
                }
                _ => {}
            }
        }
    }

    fn say(&self, at: &At, issuer: Option<i64>, xd: &Field) -> Event {
        let mut e = at.event(P, "chat");
        if let Some(p) = issuer {
            e.who = self.name(p);
            e.details.push(("player", p.to_string()));
        }
        e.text = child_text(xd, "srb2.xd.message").map(|m| Label::plain(m.as_ref()));
        // `Got_Saycmd`: 0 everyone, 1…32 privately to player n-1, negative the speaker's team.
        let to = match child_int(xd, "srb2.xd.target") {
            Some(0) | None => "everyone".to_string(),
            Some(t) if t < 0 => "team".to_string(),
            Some(t) => {
                e.target = self.name(t - 1);
                (t - 1).to_string()
            }
        };
        e.details.push(("to", to));
        let flags = child_int(xd, "srb2.xd.flags").unwrap_or(0);
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

    fn add_player(&mut self, at: &At, xd: &Field) -> Event {
        let mut e = at.event(P, "join");
        let node = child_int(xd, "srb2.xd.node");
        let player = child_int(xd, "srb2.xd.playernum");
        if let Some(p) = player {
            // 2.2 carries the name; 2.1 names the player in a later XD_NAMEANDCOLOR.
            if let Some(name) = child_text(xd, "srb2.xd.player_name") {
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

    fn kick(&mut self, at: &At, issuer: Option<i64>, xd: &Field) -> Event {
        let msg = child(xd, "srb2.xd.kick_msg").map_or("", enum_name);
        let quit = matches!(msg, "KICK_MSG_PLAYER_QUIT" | "KICK_MSG_TIMEOUT");
        let mut e = at.event(P, if quit { "leave" } else { "kick" });
        let player = child_int(xd, "srb2.xd.player");
        let kicked = player.and_then(|p| self.name(p));
        if quit {
            e.who = kicked;
        } else {
            e.who = issuer.and_then(|p| self.name(p));
            e.target = kicked;
            e.text = child_text(xd, "srb2.xd.reason")
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

    fn name_and_color(&mut self, at: &At, issuer: Option<i64>, xd: &Field, out: &mut Vec<Event>) {
        let (Some(p), Some(new)) = (issuer, child_text(xd, "srb2.xd.player_name")) else {
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
