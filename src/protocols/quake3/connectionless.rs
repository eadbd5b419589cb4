//! Connectionless (out-of-band) packets: the 0xffffffff marker and one text command
//! (ioquake3 code/server/sv_main.c `SV_ConnectionlessPacket`, code/client/cl_main.c
//! `CL_ConnectionlessPacket`; dpmaster doc/techinfo.txt for the master lists).

use super::fields::*;
use super::huffman::decompress_adaptive;
use super::notes;
use crate::proto::Role;
use crate::tree::{FieldDef, Pos, TreeBuilder, Value};

/// Every command the engines and master servers answer, with the role of its sender and its
/// canonical spelling (the two functions above; dpmaster doc/techinfo.txt).
/// Matching is case-insensitive (the engine uses Q_stricmp); the two list responses match by
/// prefix.
pub static COMMANDS: &[(&str, Role)] = &[
    ("getchallenge", Role::Client),
    ("challengeResponse", Role::Server),
    ("connect", Role::Client),
    ("connectResponse", Role::Server),
    ("getinfo", Role::Client),
    ("infoResponse", Role::Server),
    ("getstatus", Role::Client),
    ("statusResponse", Role::Server),
    ("rcon", Role::Client),
    ("print", Role::Server),
    ("disconnect", Role::Server),
    ("echo", Role::Server),
    ("heartbeat", Role::Server),
    ("getserversExtResponse", Role::Server),
    ("getserversResponse", Role::Server),
    ("getserversExt", Role::Client),
    ("getservers", Role::Client),
    ("getKeyAuthorize", Role::Client),
    ("getIpAuthorize", Role::Server),
    ("ipAuthorize", Role::Server),
    ("keyAuthorize", Role::Server),
    ("banUser", Role::Server),
    ("getmotd", Role::Client),
    ("motd", Role::Server),
];

/// The command word of an OOB text (up to whitespace / newline / NUL), matched against
/// [`COMMANDS`].
pub fn classify(text: &[u8]) -> Option<(&'static str, Role)> {
    let end = text.iter().position(|&c| c <= b' ').unwrap_or(text.len());
    let word = &text[..end];
    for &(name, role) in COMMANDS {
        let n = name.as_bytes();
        let prefix = name.ends_with("Response") && name.starts_with("getservers");
        let hit = if prefix {
            text.len() >= n.len() && text[..n.len()].eq_ignore_ascii_case(n)
        } else {
            word.eq_ignore_ascii_case(n)
        };
        if hit {
            return Some((name, role));
        }
    }
    None
}

/// Splits a command line into tokens like Cmd_TokenizeString: whitespace separates, double
/// quotes group (capped at 64 tokens).
pub fn tokenize(line: &[u8]) -> Vec<&[u8]> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < line.len() && out.len() < 64 {
        while i < line.len() && line[i] <= b' ' {
            i += 1;
        }
        if i >= line.len() {
            break;
        }
        if line[i] == b'"' {
            let s = i + 1;
            let e = line[s..]
                .iter()
                .position(|&c| c == b'"')
                .map_or(line.len(), |p| s + p);
            out.push(&line[s..e]);
            i = e + 1;
        } else {
            let s = i;
            while i < line.len() && line[i] > b' ' {
                i += 1;
            }
            out.push(&line[s..i]);
        }
    }
    out
}

/// Definitions of one info-string context (group, pair, key, value).
pub struct InfoDefs {
    pub group: &'static FieldDef,
    pub pair: &'static FieldDef,
    pub key: &'static FieldDef,
    pub value: &'static FieldDef,
}

pub static OOB_INFO_DEFS: InfoDefs = InfoDefs {
    group: &OOB_INFO,
    pair: &OOB_INFO_PAIR,
    key: &OOB_INFO_KEY,
    value: &OOB_INFO_VALUE,
};
pub static USERINFO_DEFS: InfoDefs = InfoDefs {
    group: &OOB_USERINFO,
    pair: &OOB_USERINFO_PAIR,
    key: &OOB_USERINFO_KEY,
    value: &OOB_USERINFO_VALUE,
};

/// Splits `\k\v\k\v` (leading backslash optional, as Info_ValueForKey accepts) into pairs
/// with their offsets: (key offset, key, value offset, value). At most 512 pairs.
pub fn info_pairs_at(s: &[u8]) -> Vec<(usize, &[u8], usize, &[u8])> {
    info_pair_iter(s).collect()
}

/// The pairs of [`info_pairs_at`] one at a time (lookups stop at their key, allocating nothing).
fn info_pair_iter(s: &[u8]) -> impl Iterator<Item = (usize, &[u8], usize, &[u8])> {
    let mut i = usize::from(s.first() == Some(&b'\\'));
    let next = move |from: usize| {
        s.get(from..)
            .and_then(|r| r.iter().position(|&c| c == b'\\'))
            .map_or(s.len(), |p| from + p)
    };
    std::iter::from_fn(move || {
        while i < s.len() {
            let ke = next(i);
            let vs = (ke + 1).min(s.len());
            let ve = next(vs);
            let pair = (i, &s[i..ke], vs, &s[vs..ve]);
            i = ve + 1;
            if ke > pair.0 || ve > vs {
                return Some(pair);
            }
        }
        None
    })
    .take(512)
}

/// The pairs of an info string without offsets.
pub fn info_pairs(s: &[u8]) -> Vec<(&[u8], &[u8])> {
    info_pairs_at(s)
        .into_iter()
        .map(|(_, k, _, v)| (k, v))
        .collect()
}

pub fn info_value<'a>(s: &'a [u8], key: &[u8]) -> Option<&'a [u8]> {
    info_pair_iter(s)
        .find(|(_, k, _, _)| k.eq_ignore_ascii_case(key))
        .map(|(_, _, _, v)| v)
}

/// Adds an info string as a group of key/value pairs. With `at` = (source, byte offset of `s`)
/// every key and value gets its own byte range; otherwise all point at `pos`.
pub fn add_info(t: &mut TreeBuilder, defs: &InfoDefs, s: &[u8], pos: Pos, at: Option<(u8, usize)>) {
    t.open(defs.group, Value::None, pos);
    for (ko, k, vo, v) in info_pairs_at(s) {
        let (pp, kp, vp) = match at {
            Some((src, base)) => (
                Pos::bytes(base + ko, vo + v.len() - ko).in_source(src),
                Pos::bytes(base + ko, k.len()).in_source(src),
                Pos::bytes(base + vo, v.len()).in_source(src),
            ),
            None => (pos, pos, pos),
        };
        t.open(defs.pair, Value::None, pp);
        t.add_text(defs.key, k, kp);
        t.add_text(defs.value, v, vp);
        t.close_as_is();
    }
    t.close_as_is();
}

/// Offset of `sub` (a subslice of `whole`) in `whole`, 0 when it is not one.
fn offset_in(whole: &[u8], sub: &[u8]) -> usize {
    let (w, s) = (whole.as_ptr() as usize, sub.as_ptr() as usize);
    if s >= w && s + sub.len() <= w + whole.len() {
        s - w
    } else {
        0
    }
}

fn parse_int(s: &[u8]) -> Option<i64> {
    std::str::from_utf8(s).ok()?.trim().parse().ok()
}

/// Facts an OOB packet teaches the flow.
#[derive(Default, Debug)]
pub struct Learned {
    pub challenge: Option<i32>,
    pub protocol: Option<u32>,
    pub qport: Option<u16>,
    /// A new connection starts (challengeResponse / connectResponse / connect).
    pub new_connection: bool,
}

pub struct OobResult {
    pub msg_type: &'static str,
    pub summary: String,
    pub learned: Learned,
    pub source: Option<Vec<u8>>,
}

fn lossy(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// One connectionless command being decoded.
struct Oob<'p> {
    /// The whole payload, marker included.
    p: &'p [u8],
    name: &'static str,
    /// The first line of the text after the marker (the command and its arguments).
    line: &'p [u8],
    /// Where the first line ends in the text after the marker.
    line_end: usize,
    /// What follows the first line.
    rest: &'p [u8],
    /// The first line's tokens, the command word first.
    toks: Vec<&'p [u8]>,
}

impl<'p> Oob<'p> {
    fn args(&self) -> &[&'p [u8]] {
        self.toks.get(1..).unwrap_or(&[])
    }
    fn arg(&self, i: usize) -> Option<&'p [u8]> {
        self.args().get(i).copied()
    }
    /// Where values parsed from the first line point.
    fn line_pos(&self) -> Pos {
        Pos::bytes(4, self.line.len())
    }
    /// Adds argument `i` as an integer field when it is one.
    fn int_arg(&self, t: &mut TreeBuilder, def: &'static FieldDef, i: usize) -> Option<i64> {
        let v = parse_int(self.arg(i)?)?;
        t.add(def, Value::Int(v), self.line_pos());
        Some(v)
    }
    /// The first line after the command word, trimmed.
    fn after_name(&self) -> String {
        lossy(self.line.get(self.name.len()..).unwrap_or(&[]).trim_ascii())
    }
}

/// Decodes a connectionless packet (payload starts with the marker) into `t` (ioquake3
/// code/server/sv_main.c `SV_ConnectionlessPacket`, code/client/cl_main.c
/// `CL_ConnectionlessPacket`).
pub fn decode(p: &[u8], t: &mut TreeBuilder) -> OobResult {
    t.open(&OOB, Value::None, Pos::bytes(0, p.len()));
    t.add(&OOB_MARKER, Value::UInt(0xffff_ffff), Pos::bytes(0, 4));
    let text = p.get(4..).unwrap_or(&[]);
    let mut res = OobResult {
        msg_type: "oob",
        summary: String::new(),
        learned: Learned::default(),
        source: None,
    };
    // connect: the server tests the 7 bytes "connect" and decompresses from offset 12
    // (ioquake3 code/server/sv_main.c `SV_ConnectionlessPacket`, `Huff_Decompress(msg, 12)`).
    if text.len() >= 7 && text[..7].eq_ignore_ascii_case(b"connect") && text.get(7) == Some(&b' ') {
        decode_connect(p, t, &mut res);
        t.close(p.len());
        return res;
    }
    let line_end = text
        .iter()
        .position(|&c| c == b'\n' || c == 0)
        .unwrap_or(text.len());
    let line = &text[..line_end];
    let Some((name, _role)) = classify(text) else {
        t.add_text(&OOB_TEXT, line, Pos::bytes(4, line.len()));
        t.expert(
            &notes::OOB_UNKNOWN,
            Some(&OOB_COMMAND),
            Some(Pos::bytes(4, line.len())),
            "unknown connectionless command",
        );
        res.msg_type = "oob_unknown";
        res.summary = format!("OOB {}", lossy(&line[..line.len().min(40)]));
        t.close(p.len());
        return res;
    };
    let o = Oob {
        p,
        name,
        line,
        line_end,
        rest: text.get(line_end + 1..).unwrap_or(&[]),
        toks: tokenize(line),
    };
    res.msg_type = name;
    command_fields(&o, t);
    res.summary = name.to_string();
    command(&o, t, &mut res);
    t.close(p.len());
    res
}

/// The command word, the line and its arguments as fields (where the command has no fields of
/// its own for them).
fn command_fields(o: &Oob<'_>, t: &mut TreeBuilder) {
    let (name, line) = (o.name, o.line);
    t.add(
        &OOB_COMMAND,
        Value::Str(name.into()),
        Pos::bytes(4, name.len().min(line.len())),
    );
    if name != "print" && (!name.starts_with("getservers") || !name.ends_with("Response")) {
        t.add_text(&OOB_TEXT, line, Pos::bytes(4, line.len()));
    }
    if !matches!(name, "rcon" | "print")
        && !name.ends_with("sResponse")
        && !name.ends_with("ExtResponse")
    {
        for a in o.args() {
            t.add_text(&OOB_ARG, a, Pos::bytes(offset_in(o.p, a), a.len()));
        }
    }
}

/// The command-specific part: its fields, what it teaches the flow, its summary.
fn command(o: &Oob<'_>, t: &mut TreeBuilder, res: &mut OobResult) {
    let name = o.name;
    match name {
        "getchallenge" => {
            if let Some(v) = o.int_arg(t, &OOB_CLIENT_CHALLENGE, 0) {
                res.summary = format!("getchallenge {v}");
            }
            if let Some(g) = o.arg(1) {
                t.add_text(&OOB_GAMENAME, g, o.line_pos());
            }
        }
        "challengeResponse" => challenge_response(o, t, res),
        "connectResponse" => {
            let ch = o.int_arg(t, &OOB_CHALLENGE, 0);
            res.learned.challenge = ch.map(|c| c as i32);
            res.learned.new_connection = true;
        }
        "getinfo" | "getstatus" | "heartbeat" => {
            if let Some(a) = o.arg(0) {
                res.summary = format!("{name} {}", lossy(a));
            }
        }
        "infoResponse" | "statusResponse" => info_response(o, t, res),
        "print" => {
            let msg = o.rest.split(|&c| c == 0).next().unwrap_or(&[]);
            t.add_text(&OOB_TEXT, msg, Pos::bytes(offset_in(o.p, msg), msg.len()));
            let first = msg.split(|&c| c == b'\n').next().unwrap_or(&[]);
            res.summary = format!("print {}", lossy(&first[..first.len().min(60)]));
        }
        "rcon" => rcon(o, t, res),
        "getservers" | "getserversExt" => getservers(o, t, res),
        "getserversResponse" | "getserversExtResponse" => {
            let (n, eot) = decode_server_list(o.p, 4 + name.len(), t);
            res.summary = format!("{name} {n} servers{}", if eot { " (end)" } else { "" });
        }
        "getmotd" | "motd" => {
            if let Some(a) = o.arg(0) {
                add_info(t, &OOB_INFO_DEFS, a, o.line_pos(), None);
            }
        }
        "getIpAuthorize" | "ipAuthorize" => {
            o.int_arg(t, &OOB_CHALLENGE, 0);
            res.summary = format!("{name} {}", o.after_name());
        }
        _ => {
            if !o.args().is_empty() {
                res.summary = lossy(&o.line[..o.line.len().min(60)]);
            }
        }
    }
}

/// `challengeResponse <challenge> [<client challenge> <protocol>]` (the bare form is id 1.32's).
fn challenge_response(o: &Oob<'_>, t: &mut TreeBuilder, res: &mut OobResult) {
    let ch = o.int_arg(t, &OOB_CHALLENGE, 0);
    o.int_arg(t, &OOB_CLIENT_CHALLENGE, 1);
    let proto = o.arg(2).and_then(parse_int);
    if let Some(pr) = proto {
        t.add(&OOB_PROTOCOL, Value::UInt(pr as u64), o.line_pos());
    }
    res.learned.challenge = ch.map(|c| c as i32);
    res.learned.protocol = proto.map(|v| v as u32);
    res.learned.new_connection = true;
    res.summary = format!(
        "challengeResponse {}{}",
        ch.unwrap_or(0),
        proto.map(|p| format!(" protocol {p}")).unwrap_or_default()
    );
}

/// `infoResponse` / `statusResponse`: an info string on the second line; a status adds one
/// line per player (ioquake3 code/server/sv_main.c `SVC_Info`, `SVC_Status`).
fn info_response(o: &Oob<'_>, t: &mut TreeBuilder, res: &mut OobResult) {
    let rest = o.rest;
    let info_end = rest.iter().position(|&c| c == b'\n').unwrap_or(rest.len());
    let info = &rest[..info_end];
    // Offset of `rest` in the payload: marker + first line + newline.
    let info_off = 4 + o.line_end + 1;
    add_info(
        t,
        &OOB_INFO_DEFS,
        info,
        Pos::bytes(info_off, info.len()),
        Some((0, info_off)),
    );
    let host = info_value(info, b"sv_hostname").or_else(|| info_value(info, b"hostname"));
    let map = info_value(info, b"mapname");
    res.summary = format!(
        "{} {} map {}",
        o.name,
        lossy(host.unwrap_or(b"?")),
        lossy(map.unwrap_or(b"?"))
    );
    if o.name == "statusResponse" {
        let players = rest.get(info_end + 1..).unwrap_or(&[]);
        let n = status_players(o.p, players, t);
        res.summary.push_str(&format!(" players {n}"));
    } else if let Some(c) = info_value(info, b"clients") {
        res.summary.push_str(&format!(" clients {}", lossy(c)));
    }
}

/// The `<score> <ping> "<name>"` lines of a status response (at most 256); returns how many.
fn status_players(p: &[u8], lines: &[u8], t: &mut TreeBuilder) -> usize {
    let mut n = 0;
    for pl in lines.split(|&c| c == b'\n') {
        if pl.is_empty() || n >= 256 {
            continue;
        }
        let tk = tokenize(pl);
        let at = |sub: &[u8]| Pos::bytes(offset_in(p, sub), sub.len());
        t.open(&OOB_PLAYER, Value::None, at(pl));
        if let Some(v) = tk.first().and_then(|s| parse_int(s)) {
            t.add(&OOB_PLAYER_SCORE, Value::Int(v), at(tk[0]));
        }
        if let Some(v) = tk.get(1).and_then(|s| parse_int(s)) {
            t.add(&OOB_PLAYER_PING, Value::Int(v), at(tk[1]));
        }
        if let Some(v) = tk.get(2) {
            t.add_text(&OOB_PLAYER_NAME, v, at(v));
        }
        t.close_as_is();
        n += 1;
    }
    n
}

/// `rcon <password> <command…>`.
fn rcon(o: &Oob<'_>, t: &mut TreeBuilder, res: &mut OobResult) {
    let Some(pw) = o.arg(0) else { return };
    let (line, lp) = (o.line, o.line_pos());
    t.add_text(&OOB_RCON_PASSWORD, pw, lp);
    // Command text: everything after the password token.
    let after = line
        .windows(pw.len().max(1))
        .position(|w| w == pw)
        .map(|i| &line[(i + pw.len()).min(line.len())..])
        .unwrap_or(&[]);
    let cmd = after.trim_ascii();
    t.add_text(&OOB_RCON_COMMAND, cmd, lp);
    res.summary = format!("rcon {}", lossy(cmd));
}

/// `getservers[Ext]`: dpmaster style puts the game name first, Quake III style the protocol
/// (dpmaster doc/techinfo.txt).
fn getservers(o: &Oob<'_>, t: &mut TreeBuilder, res: &mut OobResult) {
    let (g, pr) = match o.arg(0).and_then(parse_int) {
        Some(pr) => (None, Some(pr)),
        None => (o.arg(0), o.arg(1).and_then(parse_int)),
    };
    if let Some(g) = g {
        t.add_text(&OOB_GAMENAME, g, o.line_pos());
    }
    if let Some(pr) = pr {
        t.add(&OOB_PROTOCOL, Value::UInt(pr as u64), o.line_pos());
    }
    res.summary = format!("{} {}", o.name, o.after_name());
}

fn decode_connect(p: &[u8], t: &mut TreeBuilder, res: &mut OobResult) {
    res.msg_type = "connect";
    t.add(&OOB_COMMAND, Value::Str("connect".into()), Pos::bytes(4, 7));
    let Some(region) = p.get(12..).filter(|r| r.len() >= 2) else {
        t.expert(
            &notes::CONNECT_SHORT,
            Some(&OOB_CONNECT_LENGTH),
            Some(Pos::bytes(12, p.len().saturating_sub(12))),
            "connect packet too short for the compressed userinfo length",
        );
        res.summary = "connect (truncated)".into();
        return;
    };
    let n = u16::from_be_bytes([region[0], region[1]]) as usize;
    t.add(
        &OOB_CONNECT_LENGTH,
        Value::UInt(n as u64),
        Pos::bytes(12, 2),
    );
    // The engine clamps N to its receive buffer (MAX_MSGLEN − 12).
    let (text, complete) = decompress_adaptive(region, 16384 - 12);
    if !complete {
        t.expert(
            &notes::USERINFO_CUT,
            Some(&OOB_USERINFO),
            Some(Pos::bytes(14, region.len() - 2)),
            format!(
                "compressed userinfo ends after {} of {} bytes",
                text.len(),
                n
            ),
        );
    }
    let src_pos = Pos::bytes(0, text.len()).in_source(1);
    // The text is `"<userinfo>"`.
    let inner = text.strip_prefix(b"\"").unwrap_or(&text);
    let inner = inner.strip_suffix(b"\"").unwrap_or(inner);
    let inner_off = usize::from(text.first() == Some(&b'"'));
    add_info(t, &USERINFO_DEFS, inner, src_pos, Some((1, inner_off)));
    let get = |k: &[u8]| info_value(inner, k).and_then(parse_int);
    if let Some(c) = get(b"challenge") {
        t.add(&OOB_CHALLENGE, Value::Int(c), src_pos);
        res.learned.challenge = Some(c as i32);
    }
    if let Some(pr) = get(b"protocol") {
        t.add(&OOB_PROTOCOL, Value::UInt(pr as u64), src_pos);
        res.learned.protocol = Some(pr as u32);
    }
    if let Some(q) = get(b"qport") {
        t.add(&OOB_QPORT, Value::UInt(q as u64 & 0xffff), src_pos);
        res.learned.qport = Some(q as u16);
    }
    res.learned.new_connection = true;
    let name = info_value(inner, b"name").map(lossy).unwrap_or_default();
    res.summary = format!(
        "connect name {name} protocol {} challenge {}",
        res.learned
            .protocol
            .map(|v| v.to_string())
            .unwrap_or("?".into()),
        res.learned
            .challenge
            .map(|v| v.to_string())
            .unwrap_or("?".into())
    );
    res.source = Some(text);
}

/// `\` + IPv4 + port or `/` + IPv6 + port entries up to `\EOT` (dpmaster doc/techinfo.txt;
/// ioquake3 code/client/cl_main.c `CL_ServersResponsePacket`). Returns (count, eot).
fn decode_server_list(p: &[u8], start: usize, t: &mut TreeBuilder) -> (usize, bool) {
    let mut i = start;
    let mut n = 0;
    while i < p.len() {
        match p[i] {
            b'\\' if p.get(i + 1..i + 4) == Some(b"EOT") => {
                t.add(
                    &OOB_EOT,
                    Value::Bool(true),
                    Pos::bytes(i, (p.len() - i).min(7)),
                );
                return (n, true);
            }
            b'\\' if i + 7 <= p.len() => {
                let a = &p[i + 1..i + 5];
                let port = u16::from_be_bytes([p[i + 5], p[i + 6]]);
                t.open(&OOB_SERVER, Value::None, Pos::bytes(i, 7));
                t.add(
                    &OOB_SERVER_ADDRESS,
                    Value::Str(format!("{}.{}.{}.{}", a[0], a[1], a[2], a[3]).into()),
                    Pos::bytes(i + 1, 4),
                );
                t.add(
                    &OOB_SERVER_PORT,
                    Value::UInt(port as u64),
                    Pos::bytes(i + 5, 2),
                );
                t.close(i + 7);
                i += 7;
                n += 1;
            }
            b'/' if i + 19 <= p.len() => {
                let mut b = [0u8; 16];
                b.copy_from_slice(&p[i + 1..i + 17]);
                let port = u16::from_be_bytes([p[i + 17], p[i + 18]]);
                t.open(&OOB_SERVER, Value::None, Pos::bytes(i, 19));
                t.add(
                    &OOB_SERVER_ADDRESS,
                    Value::Str(std::net::Ipv6Addr::from(b).to_string().into()),
                    Pos::bytes(i + 1, 16),
                );
                t.add(
                    &OOB_SERVER_PORT,
                    Value::UInt(port as u64),
                    Pos::bytes(i + 17, 2),
                );
                t.close(i + 19);
                i += 19;
                n += 1;
            }
            _ => {
                t.expert(
                    &notes::SERVER_LIST_ENTRY,
                    None,
                    Some(Pos::bytes(i, p.len() - i)),
                    "server list entry cut short or of unknown kind",
                );
                return (n, false);
            }
        }
    }
    (n, false)
}

#[cfg(test)]
mod tests {
    use super::super::bits::tests::hex;
    use super::*;
    use crate::tree::Record;

    fn run(p: &[u8]) -> (OobResult, Record) {
        let mut t = TreeBuilder::new(true);
        let res = decode(p, &mut t);
        let mut r = Record::new("quake3");
        t.finish_into(p.len(), &mut r);
        (res, r)
    }

    /// Every command's records carry the `oob` group in Parquet (`fields::TYPES`).
    #[test]
    fn every_command_is_declared_with_the_oob_group() {
        for &(name, _) in COMMANDS {
            let declared = super::super::fields::TYPES.of(name);
            assert_eq!(declared.as_deref(), Some(&["quake3.oob"][..]), "{name}");
        }
    }

    #[test]
    fn tv8_connect_decompresses() {
        let p = hex(
            "ffffffff636f6e6e6563742001174474308e39f4c7219cc4144c8e65864b90f437b6c0d91fc6bbc5660d86859d621f03cf6f0d57f30c03be76ba8ded853322d660f20816d82cc25942a80f883a583822068e5cc36e4898430eab1b75cde6942c3c33c9158b55abf75dbca2391255140b8abd248601b7ae1c1db09cb9c0e5b9ca221bc49dc7ff4adf35db9aeaa22a2a767e6d140eb1bda59b51eeb9988f55617878daabe86a7c3202976dcb45bacebd677f5e5089b12ada92e79a6741b89b89ad3f427f8defec609d19397c438e6fba48623846127cee32a1781c3100cfbd8f0d5ad365b0ad5b8f54bb09",
        );
        let (res, r) = run(&p);
        assert!(!r.has_errors(), "{:?}", r.notes);
        let text = res.source.unwrap();
        assert_eq!(text.len(), 279);
        assert!(text.starts_with(b"\"\\cg_predictItems\\1\\"));
        assert!(text.ends_with(b"\\challenge\\-1390591617\""));
        assert_eq!(res.learned.challenge, Some(-1390591617));
        assert_eq!(res.learned.protocol, Some(71));
        assert_eq!(res.learned.qport, Some(26151));
        let keys = r.find_all("quake3.oob.userinfo.pair.key");
        assert_eq!(keys.len(), 18);
        assert_eq!(keys[8].value, Value::Str("name".into()));
    }

    #[test]
    fn status_response_players() {
        let p = b"\xff\xff\xff\xffstatusResponse\n\\sv_hostname\\Golden\\mapname\\oa_dm1\n3 50 \"Sarge\"\n0 0 \"Angelyss\"\n";
        let (res, r) = run(p);
        assert_eq!(res.summary, "statusResponse Golden map oa_dm1 players 2");
        let names = r.find_all("quake3.oob.player.name");
        assert_eq!(names[1].value, Value::Str("Angelyss".into()));
        assert_eq!(
            r.find("quake3.oob.player.score").unwrap().value,
            Value::Int(3)
        );
        // The info line ends with the newline at 53; `3 50 "Sarge"` starts at 54.
        assert_eq!(
            r.find("quake3.oob.player.ping").unwrap().pos,
            Pos::bytes(56, 2)
        );
        assert_eq!(names[0].pos, Pos::bytes(60, 5));
        assert_eq!(r.find_all("quake3.oob.info.pair").len(), 2);
        // "\xff×4 statusResponse\n" is 19 bytes, then "\sv_hostname\Golden…".
        assert_eq!(
            r.find("quake3.oob.info.pair.key").unwrap().pos,
            Pos::bytes(20, 11)
        );
        assert_eq!(
            r.find("quake3.oob.info.pair.value").unwrap().pos,
            Pos::bytes(32, 6)
        );
    }

    #[test]
    fn info_pairs_with_and_without_leading_backslash() {
        assert_eq!(
            info_pairs(b"n\\Sarge\\t\\0"),
            vec![(&b"n"[..], &b"Sarge"[..]), (&b"t"[..], &b"0"[..])]
        );
        assert_eq!(
            info_pairs_at(b"\\a\\bc"),
            vec![(1, &b"a"[..], 3, &b"bc"[..])]
        );
        assert_eq!(info_pairs(b"\\k"), vec![(&b"k"[..], &b""[..])]);
        assert!(info_pairs(b"").is_empty());
    }

    #[test]
    fn challenge_and_servers() {
        let (res, _) = run(b"\xff\xff\xff\xffchallengeResponse -55 123 71");
        assert_eq!(res.learned.challenge, Some(-55));
        assert_eq!(res.learned.protocol, Some(71));
        let mut p = b"\xff\xff\xff\xffgetserversResponse".to_vec();
        p.extend_from_slice(&[b'\\', 10, 0, 0, 1, 0x6d, 0x38]);
        p.extend_from_slice(b"\\EOT\0\0\0");
        let (res, r) = run(&p);
        assert_eq!(res.summary, "getserversResponse 1 servers (end)");
        assert_eq!(
            r.find("quake3.oob.server.address").unwrap().value,
            Value::Str("10.0.0.1".into())
        );
        assert_eq!(
            r.find("quake3.oob.server.port").unwrap().value,
            Value::UInt(27960)
        );
        assert_eq!(classify(b"GETINFO xxx").map(|c| c.0), Some("getinfo"));
        assert_eq!(
            classify(b"getserversExt Q 71").map(|c| c.0),
            Some("getserversExt")
        );
        assert!(classify(b"hello").is_none());
    }

    #[test]
    fn other_commands() {
        let (res, r) = run(b"\xff\xff\xff\xffgetservers 68 empty full");
        assert_eq!(res.msg_type, "getservers");
        assert_eq!(
            r.find("quake3.oob.protocol").unwrap().value,
            Value::UInt(68)
        );
        let (_, r) = run(b"\xff\xff\xff\xffgetservers Quake3Arena 71 empty");
        assert_eq!(
            r.find("quake3.oob.gamename").unwrap().value,
            Value::Str("Quake3Arena".into())
        );
        assert_eq!(
            r.find("quake3.oob.protocol").unwrap().value,
            Value::UInt(71)
        );
        let (res, _) = run(b"\xff\xff\xff\xffheartbeat QuakeArena-1\n");
        assert_eq!(res.summary, "heartbeat QuakeArena-1");
        let (res, r) = run(b"\xff\xff\xff\xffrcon secret kick all now");
        assert_eq!(res.summary, "rcon kick all now");
        assert_eq!(
            r.find("quake3.oob.rcon_password").unwrap().value,
            Value::Str("secret".into())
        );
        let (res, r) = run(b"\xff\xff\xff\xffprint\nbad challenge\n");
        assert_eq!(res.summary, "print bad challenge");
        assert_eq!(r.find("quake3.oob.text").unwrap().pos, Pos::bytes(10, 14));
        let (res, r) = run(b"\xff\xff\xff\xffipAuthorize -12 accept");
        assert_eq!(res.msg_type, "ipAuthorize");
        assert_eq!(
            r.find("quake3.oob.challenge").unwrap().value,
            Value::Int(-12)
        );
        let (res, _) = run(b"\xff\xff\xff\xffdisconnect");
        assert_eq!(res.msg_type, "disconnect");
        let (_, r) = run(b"\xff\xff\xff\xffmotd \"\\challenge\\1\\motd\\hi\"");
        assert_eq!(r.find_all("quake3.oob.info.pair.key").len(), 2);
        let (res, r) = run(b"\xff\xff\xff\xffgetchallenge 77 Quake3Arena");
        assert_eq!(res.summary, "getchallenge 77");
        assert_eq!(
            r.find("quake3.oob.gamename").unwrap().value,
            Value::Str("Quake3Arena".into())
        );
        // 1.32 forms: no arguments.
        let (res, r) = run(b"\xff\xff\xff\xffchallengeResponse 5");
        assert_eq!(res.learned.protocol, None);
        assert!(!r.has_errors());
        let (res, r) = run(b"\xff\xff\xff\xffhello world");
        assert_eq!(res.msg_type, "oob_unknown");
        assert_eq!(r.worst(), Some(crate::tree::Severity::Warning));
    }
}
