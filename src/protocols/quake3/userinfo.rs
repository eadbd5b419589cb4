//! The `userinfo` command a client most likely sent, to key server messages without it.
//!
//! A legacy server message is keyed with the last client command the server received
//! (ioquake3 code/server/sv_net_chan.c `SV_Netchan_Encode`, `lastClientCommandString`). A
//! client that has not chatted since it joined last sent its `userinfo` (code/client/cl_main.c
//! `CL_CheckUserinfo` sends `userinfo "<Cvar_InfoString(CVAR_USERINFO)>"` whenever a user cvar
//! changes, and once after connecting): a long text the pad search cannot find byte by byte, but
//! one that is the same for every player who kept the defaults, apart from the name.
//!
//! The keys, their order and the defaults are the real client's: the `userinfo` commands of
//! every capture in `captures/` (the ioquake3 client with OpenArena's data), whose cvars are
//! registered with these defaults in code/client/cl_main.c `CL_Init` (name, rate, snaps, model,
//! headmodel, team_model, team_headmodel, color1, color2, handicap, teamtask, sex,
//! cl_anonymous, cl_voipProtocol) and the cgame's cvar table (cg_predictItems). The prediction
//! stops at `cl_guid`, whose value is the player's own key.

/// What comes before the name.
const BEFORE_NAME: &[u8] = b"userinfo \"\\name\\";
/// What comes after it, with the defaults, up to the value of `cl_guid`.
const AFTER_NAME: &[u8] = b"\\model\\sarge\\rate\\25000\\snaps\\20\\headmodel\\sarge\\team_model\\james\\team_headmodel\\*james\\color1\\4\\color2\\5\\handicap\\100\\teamtask\\0\\sex\\male\\cl_anonymous\\0\\cg_predictItems\\1\\cl_voipProtocol\\opus\\cl_guid\\";

/// Names tried at most (the newest learned first).
pub const NAMES: usize = 8;

/// The beginning of the `userinfo` command of a player called `name` who kept the defaults.
pub fn predicted(name: &[u8]) -> Vec<u8> {
    [BEFORE_NAME, name, AFTER_NAME].concat()
}

/// A captured `userinfo` command with its name replaced by `name`: what the same client sends
/// after renaming itself (only the name changes), whatever else it customised.
pub fn with_name(captured: &[u8], name: &[u8]) -> Option<Vec<u8>> {
    let rest = captured.strip_prefix(BEFORE_NAME)?;
    let end = rest.iter().position(|&c| c == b'\\' || c == b'"')?;
    Some([BEFORE_NAME, name, &rest[end..]].concat())
}

/// The likely `userinfo` commands of players called `names`: each captured one (newest first,
/// at most two) renamed, then the defaults', each text once.
pub fn predictions<'a>(
    names: &[Vec<u8>],
    captured: impl Iterator<Item = &'a [u8]>,
) -> Vec<Vec<u8>> {
    let captured: Vec<&[u8]> = captured
        .filter(|t| t.starts_with(BEFORE_NAME))
        .take(2)
        .collect();
    let mut out: Vec<Vec<u8>> = Vec::new();
    for name in names {
        let renamed = captured.iter().filter_map(|c| with_name(c, name));
        for text in renamed.chain(std::iter::once(predicted(name))) {
            if !out.contains(&text) {
                out.push(text);
            }
        }
    }
    out
}

/// The player names a server command shows: a chat line's speaker (g_cmds.c `G_Say`:
/// `chat "name^7<EC>: …"`, EC being byte 0x19, also written before the name by some game
/// versions), the name in `print "name^7 entered the
/// game"` (g_client.c `ClientBegin`), in `print "name^7 disconnected\n"` or `… timed out`
/// (ioquake3 code/server/sv_client.c `SV_DropClient`, its reasons from `SV_Disconnect_f` and
/// sv_main.c `SV_CheckTimeouts`), or both in `print "old^7 renamed to new"` (g_client.c
/// `ClientUserinfoChanged`). The `^7` the server puts after a name is not part of it.
pub fn names_in(cmd: &[u8]) -> Vec<&[u8]> {
    let found: Vec<&[u8]> = if let Some(rest) = cmd.strip_prefix(b"chat \"") {
        let rest = rest.strip_prefix(b"\x19").unwrap_or(rest);
        find(rest, b"\x19:")
            .map(|end| vec![&rest[..end]])
            .unwrap_or_default()
    } else if let Some(rest) = cmd.strip_prefix(b"print \"") {
        // The end taken is past the `^7` the server adds, stripped below like the other
        // prints': a name that itself ends in `^7` keeps it.
        let left = find(rest, b"^7 disconnected\n").or_else(|| find(rest, b"^7 timed out\n"));
        let left = left.map(|end| end + 2);
        if let Some(end) = find(rest, b" entered the game").or(left) {
            vec![&rest[..end]]
        } else if let Some(at) = find(rest, b" renamed to ") {
            let new = &rest[at + 12..];
            let new = &new[..find(new, b"\n")
                .or_else(|| find(new, b"\""))
                .unwrap_or(new.len())];
            vec![&rest[..at], new]
        } else {
            Vec::new()
        }
    } else {
        Vec::new()
    };
    (found.into_iter())
        .map(|n| n.strip_suffix(b"^7").unwrap_or(n))
        .filter(|n| fair_name(n))
        .collect()
}

/// The player names of a `statusResponse` after its first line: the info string's line, then
/// `<score> <ping> "<name>"` per player (ioquake3 code/server/sv_main.c `SVC_Status`), at most
/// [`NAMES`], each as [`names_in`] takes a name.
pub fn status_names(rest: &[u8]) -> Vec<Vec<u8>> {
    let mut out: Vec<Vec<u8>> = Vec::new();
    for line in rest.split(|&c| c == b'\n').skip(1) {
        let Some(open) = line.iter().position(|&c| c == b'"') else {
            continue;
        };
        let Some(close) = line.iter().rposition(|&c| c == b'"').filter(|&c| c > open) else {
            continue;
        };
        let name = &line[open + 1..close];
        if out.len() < NAMES && fair_name(name) && !out.iter().any(|n| n == name) {
            out.push(name.to_vec());
        }
    }
    out
}

/// Whether `name` can be a player name the echoes show (none of the characters an info string
/// cannot hold, not empty, not longer than a name).
fn fair_name(name: &[u8]) -> bool {
    !name.is_empty() && name.len() <= 36 && !name.iter().any(|&c| c == b'\\' || c == b'"')
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_prediction_is_the_captured_command_up_to_the_guid() {
        // The legacy capture's client command 2 (frame 5).
        let sent = b"userinfo \"\\name\\GoldenPlayer\\model\\sarge\\rate\\25000\\snaps\\20\\headmodel\\sarge\\team_model\\james\\team_headmodel\\*james\\color1\\4\\color2\\5\\handicap\\100\\teamtask\\0\\sex\\male\\cl_anonymous\\0\\cg_predictItems\\1\\cl_voipProtocol\\opus\\cl_guid\\381D54D6636A13525F51C7758F063B91\\teamoverlay\\0\"";
        let p = predicted(b"GoldenPlayer");
        assert!(sent.starts_with(&p));
        assert_eq!(p.len(), 229);
    }

    #[test]
    fn a_captured_userinfo_is_renamed() {
        let captured = b"userinfo \"\\name\\BusyPlayer\\model\\major\\rate\\90000\"";
        let renamed = with_name(captured, b"BusyRenamed").unwrap();
        assert_eq!(
            renamed,
            b"userinfo \"\\name\\BusyRenamed\\model\\major\\rate\\90000\""
        );
        let names = [b"BusyRenamed".to_vec()];
        let all = predictions(&names, [&captured[..]].into_iter());
        assert_eq!(all, [renamed, predicted(b"BusyRenamed")]);
        assert_eq!(with_name(b"say hi", b"x"), None);
    }

    #[test]
    fn names_come_from_chat_lines_and_prints() {
        // The busy capture's server command 21 (frame 3701).
        let chat = b"chat \"BusyRenamed^7\x19: ^207 new map, same netchan\"";
        assert_eq!(names_in(chat), [&b"BusyRenamed"[..]]);
        let chat = b"chat \"\x19BusyRenamed^7\x19: ^207 new map, same netchan\"";
        assert_eq!(names_in(chat), [&b"BusyRenamed"[..]]);
        let joined = b"print \"Sarge^7 entered the game\n\"";
        assert_eq!(names_in(joined), [&b"Sarge"[..]]);
        let renamed = b"print \"BusyPlayer^7 renamed to BusyRenamed\n\"";
        assert_eq!(names_in(renamed), [&b"BusyPlayer"[..], &b"BusyRenamed"[..]]);
        assert!(names_in(b"chat \"console: server console says hi\"").is_empty());
        assert!(names_in(b"cs 6 \"1\"").is_empty());
        // The legacy capture's last server command but one (frame 1635).
        let left = b"print \"GoldenPlayer^7 disconnected\n\"";
        assert_eq!(names_in(left), [&b"GoldenPlayer"[..]]);
        assert_eq!(names_in(b"print \"Sarge^7 timed out\n\""), [&b"Sarge"[..]]);
        assert!(names_in(b"print \"Sarge^7 was kicked\n\"").is_empty());
        // A name that ends in a colour code of its own (the server prints `cl->name` as the
        // userinfo has it, then `^7`).
        let red = &b"^1Red^7"[..];
        assert_eq!(names_in(b"print \"^1Red^7^7 disconnected\n\""), [red]);
        assert_eq!(names_in(b"print \"^1Red^7^7 entered the game\n\""), [red]);
    }

    #[test]
    fn a_status_lists_the_players_names() {
        // captures/quake3-openarena-busy.pcap frame 4,688 after its first line, the info
        // string shortened.
        let rest = b"\\sv_hostname\\GoldenQ3Server\\mapname\\oa_dm2\n1 0 \"Angelyss\"\n0 0 \"Sarge\"\n0 0 \"Major\"\n0 0 \"BusyRenamed\"\n";
        let names = status_names(rest);
        assert_eq!(
            names,
            [&b"Angelyss"[..], b"Sarge", b"Major", b"BusyRenamed"]
        );
        // The info string is never a player line, a line without a quoted name is skipped, and
        // a name an info string cannot hold is not taken.
        assert!(status_names(b"\\a\\\"b\"\n").is_empty());
        assert_eq!(
            status_names(b"\\x\\1\n3 9\n0 0 \"\"\n0 0 \"A\\B\"\n0 0 \"Ok\"\n"),
            [b"Ok"]
        );
        let many: Vec<u8> = (0..20)
            .flat_map(|i| format!("0 0 \"p{i}\"\n").into_bytes())
            .collect();
        assert_eq!(
            status_names(&[&b"\\x\\1\n"[..], &many].concat()).len(),
            NAMES
        );
    }
}
