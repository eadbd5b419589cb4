//! SRB2 facts read back from decoded records: where the packet type, the player lists, the net
//! commands of the server's tics and the ping table sit in the field tree. `gamedissect events`
//! (through [`super::events`]) and `report` read SRB2 through these typed views, never by field
//! name.

use std::borrow::Cow;

use super::fields as f;
use crate::toolkit::lookup::{child, child_int, child_text, children, int, text};
use crate::tree::{Field, Record, Value};

/// MAXPLAYERS (`src/doomdef.h`), the same in every release: player slots are numbered below it.
pub const MAX_PLAYERS: usize = 32;

/// An enum's symbolic name (empty when the number is not tabulated).
fn enum_name(f: &Field) -> &'static str {
    match f.value {
        Value::Enum(_, name) => name,
        _ => "",
    }
}

/// The SRB2 layer of a decoded record.
#[derive(Debug, Clone, Copy)]
pub struct Packet<'a>(&'a Field);

impl<'a> Packet<'a> {
    /// The record's SRB2 layer, if it has one.
    pub fn of(record: &'a Record) -> Option<Packet<'a>> {
        record
            .fields
            .iter()
            .find(|f| f.def.name == f::ROOT.name)
            .map(Packet)
    }

    /// The packet type's name (`PT_SERVERTICS` …; empty when not known).
    pub fn packet_type(self) -> &'static str {
        child(self.0, f::HEADER.name)
            .and_then(|h| child(h, f::TYPE.name))
            .map_or("", enum_name)
    }

    /// PT_SERVERREFUSE: the server's reason.
    pub fn refuse_reason(self) -> Option<Cow<'a, str>> {
        child(self.0, f::REFUSE.name).and_then(|r| child_text(r, f::REFUSE_REASON.name))
    }

    /// PT_PLAYERINFO (a server browser's view): each listed player's number and name.
    pub fn player_info(self) -> impl Iterator<Item = (i64, Cow<'a, str>)> {
        child(self.0, f::PLAYERINFO.name)
            .into_iter()
            .flat_map(|info| children(info, f::PI_PLAYER.name))
            .filter_map(|p| Some((int(&p.value)?, child_text(p, f::PI_NAME.name)?)))
    }

    /// PT_SERVERCFG: what the server tells a joining client.
    pub fn server_config(self) -> Option<ServerConfig<'a>> {
        child(self.0, f::SERVERCFG.name).map(ServerConfig)
    }

    /// PT_SERVERTICS: the net commands the server relays, as (tic, one player's buffer), in
    /// order.
    pub fn tic_commands(self) -> impl Iterator<Item = (u64, TextBuffer<'a>)> {
        child(self.0, f::TICS.name)
            .into_iter()
            .flat_map(|tics| children(tics, f::TICS_TEXT.name))
            .filter_map(|section| {
                let tic = int(&section.value).and_then(|t| u64::try_from(t).ok())?;
                Some(children(section, f::TEXTBUF.name).map(move |b| (tic, TextBuffer(b))))
            })
            .flatten()
    }
}

/// PT_SERVERCFG.
#[derive(Debug, Clone, Copy)]
pub struct ServerConfig<'a>(&'a Field);

impl<'a> ServerConfig<'a> {
    /// The node the server gave the client.
    pub fn client_node(self) -> Option<i64> {
        child_int(self.0, f::CFG_CLIENTNODE.name)
    }

    /// The names of the players in the game, by slot (empty slots too), up to 2.2.8.
    pub fn names(self) -> impl Iterator<Item = Option<Cow<'a, str>>> {
        children(self.0, f::CFG_NAME.name).map(|f| text(&f.value))
    }
}

/// The net commands one player issued in one tic.
#[derive(Debug, Clone, Copy)]
pub struct TextBuffer<'a>(&'a Field);

impl<'a> TextBuffer<'a> {
    /// The issuing player's number.
    pub fn player(self) -> Option<i64> {
        child_int(self.0, f::TEXTBUF_PLAYER.name)
    }

    /// Its net commands, in order.
    pub fn commands(self) -> impl Iterator<Item = NetCommand<'a>> {
        children(self.0, f::XD.name).map(NetCommand)
    }
}

/// One net command (`XD_SAY`, `XD_MAP` …).
#[derive(Debug, Clone, Copy)]
pub struct NetCommand<'a>(&'a Field);

impl<'a> NetCommand<'a> {
    /// Its name (`XD_SAY` …; empty when not tabulated).
    pub fn kind(self) -> &'static str {
        enum_name(self.0)
    }

    fn text(self, name: &str) -> Option<Cow<'a, str>> {
        child_text(self.0, name)
    }

    /// XD_SAY: the message.
    pub fn message(self) -> Option<Cow<'a, str>> {
        self.text(f::XD_SAY_MESSAGE.name)
    }

    /// XD_SAY: 0 everyone, 1…32 privately to player n-1, negative the speaker's team
    /// (`Got_Saycmd`).
    pub fn say_target(self) -> Option<i64> {
        child_int(self.0, f::XD_SAY_TARGET.name)
    }

    /// XD_SAY: HU_SERVER_SAY (1), HU_CSAY (2).
    pub fn say_flags(self) -> Option<i64> {
        child_int(self.0, f::XD_SAY_FLAGS.name)
    }

    /// XD_MAP: the map lump name.
    pub fn map(self) -> Option<Cow<'a, str>> {
        self.text(f::XD_MAP_NAME.name)
    }

    /// XD_MAP: the gametype's name (empty when not tabulated) and number.
    pub fn gametype(self) -> Option<(&'static str, i64)> {
        let g = child(self.0, f::XD_MAP_GAMETYPE.name)?;
        Some((enum_name(g), int(&g.value).unwrap_or_default()))
    }

    /// XD_ADDPLAYER: the node and the player number it becomes.
    pub fn node(self) -> Option<i64> {
        child_int(self.0, f::XD_NODE.name)
    }

    pub fn player_num(self) -> Option<i64> {
        child_int(self.0, f::XD_PLAYERNUM.name)
    }

    /// XD_ADDPLAYER (2.2) and XD_NAMEANDCOLOR: the player's name.
    pub fn player_name(self) -> Option<Cow<'a, str>> {
        self.text(f::XD_NAME.name)
    }

    /// XD_KICK: the KICK_MSG_* name (empty when not tabulated or absent).
    pub fn kick_msg(self) -> &'static str {
        child(self.0, f::XD_KICK_MSG.name).map_or("", enum_name)
    }

    /// XD_KICK: the kicked player.
    pub fn kicked(self) -> Option<i64> {
        child_int(self.0, f::XD_TARGET_PLAYER.name)
    }

    /// XD_KICK: the custom reason.
    pub fn kick_reason(self) -> Option<Cow<'a, str>> {
        self.text(f::XD_KICK_REASON.name)
    }
}

/// One slot of a PT_PING table: the ping, and the name the decoder gave the slot's player.
#[derive(Debug, Clone, Copy)]
pub struct Ping<'a> {
    pub ms: Option<i64>,
    pub player: Option<&'a str>,
}

/// A PT_PING table (found anywhere in the record): its slots in order (the 2.2 maxping entry
/// is not one).
pub fn ping_table(record: &Record) -> Option<impl Iterator<Item = Ping<'_>>> {
    let table = record.find(f::PING.name)?;
    Some(children(table, f::PING_ENTRY.name).map(|e| Ping {
        ms: int(&e.value),
        player: e.meaning.as_deref(),
    }))
}
