//! Quake 3 facts read back from decoded records: the one place outside the decoder that knows
//! where a chat line, a configstring, a snapshot's players or a handshake's protocol sit in the
//! field tree. `gamedissect events` (through [`super::events`]), `tracks`, `report` and `demo`
//! read Quake 3 through these typed views, never by field name.
//!
//! Facts from ioquake3: configstring indices (code/qcommon/q_shared.h `CS_SERVERINFO`,
//! `CS_SYSTEMINFO`; code/game/bg_public.h `CS_VOTE_STRING`, `CS_PLAYERS`), `entityType_t` and
//! `entity_event_t` (bg_public.h), info strings (code/qcommon/q_shared.c `Info_ValueForKey`).

use std::borrow::Cow;

use super::constants::Cs;
use super::fields as f;
use crate::toolkit::lookup::{child, child_int, child_text, children, int, text};
use crate::tree::{Field, FieldDef, Record, Value};

pub mod server_message;

pub use server_message::{ServerMessage, server_message};

/// CS_PLAYERS: player n's configstring is CS_PLAYERS + n.
pub const CS_PLAYERS: i64 = Cs::PLAYERS.0 as i64;
/// CS_VOTE_STRING: the vote being called.
pub const CS_VOTE_STRING: i64 = Cs::VOTE_STRING.0 as i64;
/// CS_SERVERINFO (`mapname`, `gamename`) and CS_SYSTEMINFO (`sv_serverid`).
pub const CS_SERVERINFO: i64 = Cs::SERVERINFO.0 as i64;
pub const CS_SYSTEMINFO: i64 = Cs::SYSTEMINFO.0 as i64;
/// MAX_CLIENTS (q_shared.h): client numbers, and the entity numbers of players, are below it.
pub const MAX_CLIENTS: i64 = 64;
/// eType of a player entity (`entityType_t`: ET_PLAYER).
pub const ET_PLAYER: i64 = 1;
/// eType of an obituary: a temp entity's eType is ET_EVENTS (13) plus its event, and
/// EV_OBITUARY is 60 in `entity_event_t`.
pub const ET_OBITUARY: i64 = 13 + 60;

/// The value of `key` in a `\key\value…` info string (q_shared.c `Info_ValueForKey`).
pub fn info_value<'a>(info: &'a str, key: &str) -> Option<&'a str> {
    let mut parts = info.strip_prefix('\\').unwrap_or(info).split('\\');
    while let (Some(k), Some(v)) = (parts.next(), parts.next()) {
        if k == key {
            return Some(v);
        }
    }
    None
}

/// The name in a player configstring (`n\Name\t\0…`), `None` for another index or an empty
/// slot.
pub fn player_name(index: i64, value: &str) -> Option<&str> {
    if !(CS_PLAYERS..CS_PLAYERS + MAX_CLIENTS).contains(&index) || value.is_empty() {
        return None;
    }
    info_value(value, "n")
}

/// Whether `p` starts with a colour code: `^` and an ASCII letter or digit (ioquake3
/// code/qcommon/q_shared.c `Q_IsColorString`; id's 1.32 took `^` and anything but `^`).
pub fn is_color_string(p: &[u8]) -> bool {
    matches!(p, [b'^', c, ..] if c.is_ascii_alphanumeric())
}

/// A name or line as a person reads it, cleaned as ioquake3's `Q_CleanStr` cleans it
/// (code/qcommon/q_shared.c): each colour code ([`is_color_string`]) removed, and of the other
/// bytes only printable ASCII (0x20–0x7E) kept, so control bytes (the `\x19` that ends a chat
/// speaker's name) go, and so does every byte of a character outside ASCII (a Latin-1 byte the
/// decoder kept, read as U+FFFD, too).
pub fn clean_str(raw: &str) -> String {
    let bytes = raw.as_bytes();
    let mut out = String::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if is_color_string(&bytes[i..]) {
            i += 2;
            continue;
        }
        if (0x20..=0x7e).contains(&bytes[i]) {
            out.push(char::from(bytes[i]));
        }
        i += 1;
    }
    out
}

/// The Quake 3 layer of a decoded record.
#[derive(Debug, Clone, Copy)]
pub struct Message<'a>(&'a Field);

impl<'a> Message<'a> {
    /// The record's Quake 3 layer, if it has one.
    pub fn of(record: &'a Record) -> Option<Message<'a>> {
        record
            .fields
            .iter()
            .find(|f| f.def.name == f::ROOT.name)
            .map(Message)
    }

    /// The netchan sequence of a sequenced message.
    pub fn sequence(self) -> Option<i64> {
        child(self.0, f::NETCHAN.name).and_then(|n| child_int(n, f::NC_SEQUENCE.name))
    }

    /// A connectionless packet.
    pub fn connectionless(self) -> Option<Connectionless<'a>> {
        child(self.0, f::OOB.name).map(Connectionless)
    }

    fn server(self) -> Option<&'a Field> {
        child(self.0, f::SVC.name)
    }

    /// The server message's gamestate.
    pub fn gamestate(self) -> Option<Gamestate<'a>> {
        self.server()
            .and_then(|s| child(s, f::GAMESTATE.name))
            .map(Gamestate)
    }

    /// The server message's reliable commands, in order.
    pub fn server_commands(self) -> impl Iterator<Item = ServerCommand<'a>> {
        self.server()
            .into_iter()
            .flat_map(|s| children(s, f::SVC_COMMAND.name))
            .map(ServerCommand)
    }

    /// The server message's snapshot.
    pub fn snapshot(self) -> Option<Snapshot<'a>> {
        self.server()
            .and_then(|s| child(s, f::SNAPSHOT.name))
            .map(Snapshot)
    }

    /// The client message's reliable commands, in order.
    pub fn client_commands(self) -> impl Iterator<Item = ClientCommand<'a>> {
        child(self.0, f::CLC.name)
            .into_iter()
            .flat_map(|c| children(c, f::CLC_COMMAND.name))
            .map(ClientCommand)
    }
}

/// A connectionless packet (`\xff\xff\xff\xff` and a text command).
#[derive(Debug, Clone, Copy)]
pub struct Connectionless<'a>(&'a Field);

impl<'a> Connectionless<'a> {
    /// The command word (`connect`, `rcon`, `getstatus` …).
    pub fn command(self) -> Option<Cow<'a, str>> {
        child_text(self.0, f::OOB_COMMAND.name)
    }

    /// An `rcon` packet's command (never its password).
    pub fn rcon_command(self) -> Option<Cow<'a, str>> {
        child_text(self.0, f::OOB_RCON_COMMAND.name)
    }

    /// The value of `key` in a `connect`'s userinfo.
    pub fn userinfo(self, key: &str) -> Option<Cow<'a, str>> {
        let info = child(self.0, f::OOB_USERINFO.name)?;
        children(info, f::OOB_USERINFO_PAIR.name).find_map(|pair| {
            if child_text(pair, f::OOB_USERINFO_KEY.name)? != key {
                return None;
            }
            child_text(pair, f::OOB_USERINFO_VALUE.name)
        })
    }
}

/// A gamestate (`svc_gamestate`): the configstrings a connection starts a map with.
#[derive(Debug, Clone, Copy)]
pub struct Gamestate<'a>(&'a Field);

impl<'a> Gamestate<'a> {
    /// The server's reliable command sequence when it sent the gamestate.
    pub fn command_sequence(self) -> Option<i64> {
        child_int(self.0, f::GS_COMMAND_SEQ.name)
    }

    /// This connection's client number.
    pub fn client_num(self) -> Option<i64> {
        child_int(self.0, f::GS_CLIENT_NUM.name)
    }

    /// Every configstring with its index and text.
    pub fn configstrings(self) -> impl Iterator<Item = (i64, Cow<'a, str>)> {
        children(self.0, f::GS_CONFIGSTRING.name).filter_map(|cs| {
            Some((
                child_int(cs, f::GS_CS_INDEX.name)?,
                child_text(cs, f::GS_CS_VALUE.name)?,
            ))
        })
    }

    /// `sv_serverid` of CS_SYSTEMINFO: new at every map load (ioquake3 code/server/sv_init.c
    /// `SV_SpawnServer` sets it from the level's start time).
    pub fn server_id(self) -> Option<String> {
        self.configstrings()
            .find_map(|(index, value)| (index == CS_SYSTEMINFO).then_some(value))
            .and_then(|v| info_value(&v, "sv_serverid").map(str::to_string))
    }
}

/// A reliable server command (`svc_serverCommand`).
#[derive(Debug, Clone, Copy)]
pub struct ServerCommand<'a>(&'a Field);

impl<'a> ServerCommand<'a> {
    pub fn sequence(self) -> Option<i64> {
        child_int(self.0, f::SVC_CMD_SEQUENCE.name)
    }

    /// The command word (`chat`, `print`, `cs` …).
    pub fn name(self) -> Option<Cow<'a, str>> {
        child_text(self.0, f::SVC_CMD_NAME.name)
    }

    /// The quoted message of `print`, `chat`, `tchat`, `cp` and `disconnect`.
    pub fn message(self) -> Option<Cow<'a, str>> {
        child_text(self.0, f::SVC_CMD_MESSAGE.name)
    }

    /// A `cs` (or a reassembled `bcs2`): the configstring's index and new text.
    pub fn configstring(self) -> Option<(i64, Cow<'a, str>)> {
        Some((
            child_int(self.0, f::SVC_CMD_CS_INDEX.name)?,
            child_text(self.0, f::SVC_CMD_CS_VALUE.name)?,
        ))
    }
}

/// A reliable client command (`clc_clientCommand`).
#[derive(Debug, Clone, Copy)]
pub struct ClientCommand<'a>(&'a Field);

impl<'a> ClientCommand<'a> {
    pub fn sequence(self) -> Option<i64> {
        child_int(self.0, f::CLC_CMD_SEQUENCE.name)
    }

    /// The command word (`say`, `callvote`, `disconnect` …).
    pub fn name(self) -> Option<Cow<'a, str>> {
        child_text(self.0, f::CLC_CMD_NAME.name)
    }

    /// The arguments after the command word.
    pub fn text(self) -> Option<Cow<'a, str>> {
        child_text(self.0, f::CLC_CMD_TEXT.name)
    }
}

/// A value read from a delta-coded state: one not shown is zero (the decoder leaves out fields
/// that are zero after the delta), unless the state is partial (the state its delta applied to
/// was not captured): then it is not known.
fn float_or_zero(f: &Field, name: &str, partial: bool) -> Option<f64> {
    match child(f, name).map(|c| &c.value) {
        Some(Value::F32(x)) => Some(f64::from(*x)),
        Some(Value::F64(x)) => Some(*x),
        _ if partial => None,
        _ => Some(0.0),
    }
}

fn vec3(f: &Field, names: [&FieldDef; 3], partial: bool) -> [Option<f64>; 3] {
    names.map(|d| float_or_zero(f, d.name, partial))
}

/// A snapshot (`svc_snapshot`).
#[derive(Debug, Clone, Copy)]
pub struct Snapshot<'a>(&'a Field);

impl<'a> Snapshot<'a> {
    /// The server time of the snapshot (ms).
    pub fn server_time(self) -> Option<i64> {
        child_int(self.0, f::SNAP_SERVER_TIME.name)
    }

    /// How many messages back its reference snapshot is (0: not a delta).
    pub fn delta_num(self) -> Option<i64> {
        child_int(self.0, f::SNAP_DELTA_NUM.name)
    }

    /// The message sequence of its reference snapshot.
    pub fn delta_from(self) -> Option<i64> {
        child_int(self.0, f::SNAP_DELTA_FROM.name)
    }

    /// The entity numbers the snapshot removes from its reference.
    pub fn removed(self) -> impl Iterator<Item = i64> + 'a {
        children(self.0, f::SNAP_REMOVED.name).filter_map(|f| int(&f.value))
    }

    /// The entities the snapshot lists (changed against its reference, or new).
    pub fn entities(self) -> impl Iterator<Item = Entity<'a>> {
        children(self.0, f::ENTITY.name).map(Entity)
    }

    /// The recording client's player state.
    pub fn player_state(self) -> Option<PlayerState<'a>> {
        child(self.0, f::PS.name).map(PlayerState)
    }
}

/// An entity of a snapshot.
#[derive(Debug, Clone, Copy)]
pub struct Entity<'a>(&'a Field);

impl<'a> Entity<'a> {
    /// The entity number (a player's is its client number).
    pub fn number(self) -> Option<i64> {
        child_int(self.0, f::ENT_NUMBER.name)
    }

    /// The snapshot removes it.
    pub fn removed(self) -> bool {
        child(self.0, f::ENT_REMOVED.name).is_some_and(|f| f.value == Value::Bool(true))
    }

    /// Some of its fields are not known: the state its delta applied to was not captured, and
    /// they were not sent since.
    pub fn partial(self) -> bool {
        child(self.0, f::ENT_PARTIAL.name).is_some()
    }

    /// `eType`.
    pub fn e_type(self) -> Option<i64> {
        child_int(self.0, f::ENT_E_TYPE.name)
    }

    /// An integer field: shown, or zero when not shown (the decoder leaves out zeros) unless
    /// the state is partial and this delta did not send it (listed in `changed` by its
    /// netfield name, the field's label): then not known.
    fn int_or_zero(self, def: &FieldDef) -> Option<i64> {
        let sent = || {
            children(self.0, f::ENT_CHANGED.name)
                .any(|c| text(&c.value).is_some_and(|t| t == def.label))
        };
        match child_int(self.0, def.name) {
            Some(v) => Some(v),
            None if !self.partial() || sent() => Some(0),
            None => None,
        }
    }

    /// `otherEntityNum`: an obituary's victim.
    pub fn other_entity_num(self) -> Option<i64> {
        self.int_or_zero(&f::ENT_OTHER_ENTITY_NUM)
    }

    /// `otherEntityNum2`: an obituary's killer.
    pub fn other_entity_num2(self) -> Option<i64> {
        self.int_or_zero(&f::ENT_OTHER_ENTITY_NUM2)
    }

    /// `eventParm`: an obituary's means of death.
    pub fn event_parm(self) -> Option<i64> {
        self.int_or_zero(&f::ENT_EVENT_PARM)
    }

    /// `pos.trBase`: where the entity is (a player's origin).
    pub fn position(self) -> [Option<f64>; 3] {
        let names = [
            &f::ENT_POS_TR_BASE_0,
            &f::ENT_POS_TR_BASE_1,
            &f::ENT_POS_TR_BASE_2,
        ];
        vec3(self.0, names, self.partial())
    }

    /// `apos.trBase`: the entity's angles (a player's view angles; ioquake3
    /// code/game/bg_misc.c `BG_PlayerStateToEntityState`).
    pub fn angles(self) -> [Option<f64>; 3] {
        let names = [
            &f::ENT_APOS_TR_BASE_0,
            &f::ENT_APOS_TR_BASE_1,
            &f::ENT_APOS_TR_BASE_2,
        ];
        vec3(self.0, names, self.partial())
    }
}

/// The recording client's player state in a snapshot.
#[derive(Debug, Clone, Copy)]
pub struct PlayerState<'a>(&'a Field);

impl<'a> PlayerState<'a> {
    /// Some of its fields are not known (see [`Entity::partial`]).
    pub fn partial(self) -> bool {
        child(self.0, f::PS_INCOMPLETE.name).is_some()
    }

    /// `stats[STAT_HEALTH]` (index 0).
    pub fn health(self) -> Option<i64> {
        children(self.0, f::PS_STAT.name)
            .find(|s| child_int(s, f::PS_STAT_INDEX.name) == Some(0))
            .and_then(|s| child_int(s, f::PS_STAT_VALUE.name))
            .or((!self.partial()).then_some(0))
    }

    /// `origin`.
    pub fn origin(self) -> [Option<f64>; 3] {
        let names = [&f::PS_ORIGIN_0, &f::PS_ORIGIN_1, &f::PS_ORIGIN_2];
        vec3(self.0, names, self.partial())
    }

    /// `viewangles`.
    pub fn viewangles(self) -> [Option<f64>; 3] {
        let names = [
            &f::PS_VIEWANGLES_0,
            &f::PS_VIEWANGLES_1,
            &f::PS_VIEWANGLES_2,
        ];
        vec3(self.0, names, self.partial())
    }
}

/// The protocol a `connect` or `challengeResponse` names, found anywhere in the record: the
/// recording client's, which picks a demo's extension (ioquake3 code/client/cl_main.c
/// `CL_Record_f`: `com_legacyprotocol` for a compat connection, else `com_protocol`, and
/// `CL_CheckForResend` sends the same number in `connect`).
pub fn handshake_protocol(record: &Record) -> Option<u32> {
    if !matches!(&*record.msg_type, "connect" | "challengeResponse") {
        return None;
    }
    match record.find(f::OOB_PROTOCOL.name)?.value {
        Value::UInt(p) => u32::try_from(p).ok(),
        _ => None,
    }
}

/// Whether the record carries a reliable `disconnect` command: the client's (`by_client`) or
/// the server's.
pub fn disconnects(record: &Record, by_client: bool) -> bool {
    let name = if by_client {
        f::CLC_CMD_NAME.name
    } else {
        f::SVC_CMD_NAME.name
    };
    record
        .find_all(name)
        .iter()
        .any(|f| matches!(&f.value, Value::Str(s) if &**s == "disconnect"))
}

/// The recording player's name as sent (configstring CS_PLAYERS + the gamestate's client
/// number, key `n`; empty when not there) and the map (serverinfo `mapname`) of a gamestate
/// record, its fields found anywhere in the record.
pub fn gamestate_player_and_map(record: &Record) -> (String, String) {
    let client = match record.find(f::GS_CLIENT_NUM.name).map(|f| &f.value) {
        Some(Value::UInt(n)) => Some(*n),
        _ => None,
    };
    let mut player = String::new();
    let mut map = String::new();
    for cs in record.find_all(f::GS_CONFIGSTRING.name) {
        let index = match cs.find(f::GS_CS_INDEX.name).map(|f| &f.value) {
            Some(Value::UInt(i)) => *i,
            _ => continue,
        };
        // Names from the game's 8-bit strings (a Latin-1 `Jürgen`) are kept as bytes by the
        // decoder; they are read here with their other bytes as U+FFFD.
        let text = match cs.find(f::GS_CS_VALUE.name).map(|f| &f.value) {
            Some(Value::Str(t)) => Cow::Borrowed(&**t),
            Some(Value::Bytes(b)) => String::from_utf8_lossy(b),
            _ => continue,
        };
        if index == CS_SERVERINFO as u64 {
            map = info_value(&text, "mapname").unwrap_or("").to_string();
        } else if Some(index) == client.map(|c| c + CS_PLAYERS as u64) {
            player = info_value(&text, "n").unwrap_or("").to_string();
        }
    }
    (player, map)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colour_codes_and_control_bytes_go() {
        assert_eq!(clean_str("GoldenPlayer^7\u{19}: ^2hi"), "GoldenPlayer: hi");
        assert_eq!(clean_str("^^1a^"), "^a^");
        assert_eq!(clean_str("x\ny"), "xy");
        // "^^" keeps the first caret, and the second starts a colour code.
        assert_eq!(clean_str("^1Gold^7en^^Player"), "Golden^layer");
        // A caret before anything but a letter or digit is text; DEL and bytes past ASCII go.
        assert_eq!(clean_str("^!a^ b^"), "^!a^ b^");
        assert_eq!(clean_str("J\u{fc}rgen\u{7f}"), "Jrgen");
        assert_eq!(clean_str("J\u{fffd}rgen ^\u{e9}"), "Jrgen ^");
        assert!(is_color_string(b"^z") && !is_color_string(b"^") && !is_color_string(b"^\xc3"));
    }

    #[test]
    fn info_strings() {
        assert_eq!(info_value("n\\Sarge\\t\\0", "n"), Some("Sarge"));
        assert_eq!(info_value("\\mapname\\oa_dm1", "mapname"), Some("oa_dm1"));
        let info = "\\sv_hostname\\noname\\mapname\\oa_dm1\\g_gametype\\0";
        assert_eq!(info_value(info, "g_gametype"), Some("0"));
        assert_eq!(info_value(info, "missing"), None);
        assert_eq!(player_name(546, ""), None);
        assert_eq!(player_name(10, "n\\x"), None);
        assert_eq!(player_name(545, "n\\x\\t\\0"), Some("x"));
    }
}
