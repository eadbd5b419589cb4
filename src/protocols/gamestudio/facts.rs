//! 3D GameStudio facts read back from decoded records: where each message's command, player,
//! level, string and entity sit in the field tree. `gamedissect events` (through
//! [`super::events`]) reads GameStudio through these typed views, never by field name.

use std::borrow::Cow;

use super::fields as f;
use crate::toolkit::lookup::{child, child_int, child_text};
use crate::tree::{Field, Record, Value};

/// The GameStudio messages of a decoded record, in order: each message kind is its own group
/// (`gamestudio.cls_join`, `gamestudio.svc_update2`…), and every one carries its command.
pub fn messages(record: &Record) -> impl Iterator<Item = Message<'_>> {
    record
        .fields
        .iter()
        .find(|f| f.def.name == f::ROOT.name)
        .into_iter()
        .flat_map(|root| root.children.iter())
        .filter(|m| child(m, f::CMD.name).is_some())
        .map(Message)
}

/// One message (`CLS_*` towards the server, `SVC_*` towards the client).
#[derive(Debug, Clone, Copy)]
pub struct Message<'a>(&'a Field);

impl<'a> Message<'a> {
    /// The command's name (`CLS_JOIN` …; empty when not tabulated).
    pub fn command(self) -> &'static str {
        match child(self.0, f::CMD.name).map(|c| &c.value) {
            Some(Value::Enum(_, name)) => name,
            _ => "",
        }
    }

    fn text(self, name: &str) -> Option<Cow<'a, str>> {
        child_text(self.0, name)
    }

    /// CLS_JOIN: the player's name.
    pub fn player_name(self) -> Option<Cow<'a, str>> {
        self.text(f::PLAYER_NAME.name)
    }

    /// CLS_JOIN: the session name (the newest A6 manual revision).
    pub fn session_name(self) -> Option<Cow<'a, str>> {
        self.text(f::SESSION_NAME.name)
    }

    /// A5: the sending client's DirectPlay player id.
    pub fn player_dpid(self) -> Option<i64> {
        child_int(self.0, f::PLAYER_DPID.name)
    }

    /// CLS_LEVEL: the level file.
    pub fn level_name(self) -> Option<Cow<'a, str>> {
        self.text(f::LEVEL_NAME.name)
    }

    /// CLS_STRING, SVC_STRING: the string, and its index.
    pub fn string(self) -> Option<Cow<'a, str>> {
        self.text(f::TEXT.name)
    }

    pub fn string_index(self) -> Option<i64> {
        child_int(self.0, f::STRING_INDEX.name)
    }

    /// CLS_CREATE, SVC_CREATE: the identifier pairing a creation request with its answer.
    pub fn identifier(self) -> Option<i64> {
        child_int(self.0, f::IDENTIFIER.name)
    }

    /// CLS_CREATE: the model file asked for.
    pub fn file_name(self) -> Option<Cow<'a, str>> {
        self.text(f::FILE_NAME.name)
    }

    /// SVC_CREATE, SVC_REMOVE: the server's entity index.
    pub fn entity_index(self) -> Option<i64> {
        child_int(self.0, f::ENTITY.name)
    }
}
