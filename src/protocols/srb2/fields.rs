//! Every field the Sonic Robo Blast 2 decoder emits (layouts: STJr/SRB2 `src/d_clisrv.h`
//! packet structs, `src/d_netcmd.c` net-command handlers, `src/d_ticcmd.h` `ticcmd_t`).

crate::field_defs! {
    ROOT = group("srb2", "Sonic Robo Blast 2");
    RELEASE = string("srb2.release", "Release assumed").desc("SRB2 release whose tables decode this packet (2.1.25, 2.2.0 … 2.2.15)");
    RELEASE_BASIS = string("srb2.release_basis", "Why this release").desc("Forced by --srb2-version, named by a packet of the flow, or the best fit over the flow's packets");
    HEADER = group("srb2.header", "Header").desc("The 8-byte doomdata_t header");
    CHECKSUM = uint("srb2.header.checksum", "Checksum").hex().desc("Carried checksum (u32 LE): 0x01234567 + Σ byte·position over bytes 4…end");
    CHECKSUM_COMPUTED = uint("srb2.header.checksum_computed", "Computed checksum").hex().desc("Checksum recomputed over the datagram");
    CHECKSUM_OK = boolean("srb2.header.checksum_ok", "Checksum correct").desc("Carried and computed checksums are equal");
    ACK = uint("srb2.header.ack", "Ack").desc("Sequence number of a reliably sent packet (1…255); 0 = unreliable");
    ACKRETURN = uint("srb2.header.ackreturn", "Ack return").desc("Cumulative acknowledgement of the peer's reliable packets");
    TYPE = enumeration("srb2.header.type", "Packet type").desc("packettype_t, numbered per release");
    RESERVED = uint("srb2.header.reserved", "Reserved").desc("Padding, never written by the game (normally 0)");
    BODY = bytes("srb2.body", "Body").desc("Body of a packet whose layout is unknown (unknown type or untabulated release layout)");
    TRAILING = bytes("srb2.trailing", "Trailing bytes").desc("Bytes after the end of a decoded body");

    NOTHING = group("srb2.nothing", "PT_NOTHING ack queue").desc("96-byte out-of-order ack queue");
    NOTHING_ACK = uint("srb2.nothing.ack", "Selective ack").repeated().desc("Sequence number received out of order (non-zero queue entries)");

    CLIENTCMD = group("srb2.clientcmd", "Client command").holds(&["srb2.cmd"]).desc("PT_CLIENTCMD/MIS, PT_CLIENT2CMD/MIS, PT_NODEKEEPALIVE/MIS body");
    CLIENT_TIC = uint("srb2.clientcmd.client_tic", "Client tic").desc("Low byte of the client's gametic");
    RESENDFROM = uint("srb2.clientcmd.resendfrom", "Resend from").desc("Low byte of the next tic the client needs from the server");
    CONSISTANCY = int("srb2.clientcmd.consistancy", "Consistency").desc("16-bit game-state checksum for client_tic");

    CMD = group("srb2.cmd", "Ticcmd").repeated().valued(crate::tree::Kind::UInt).desc("ticcmd_t; the value is the player slot when known");
    CMD_PLAYER_NAME = string("srb2.cmd.player_name", "Player name").desc("Name of the player of this slot, as learned from the flow (not on the wire)");
    CMD_FORWARD = int("srb2.cmd.forward", "Forward move").desc("forwardmove, -50…50");
    CMD_SIDE = int("srb2.cmd.side", "Side move").desc("sidemove, -50…50");
    CMD_ANGLETURN = int("srb2.cmd.angleturn", "Angle turn").desc("Upper 16 bits of the angle; bit 0 = TICCMD_RECEIVED");
    CMD_AIMING = int("srb2.cmd.aiming", "Aiming").desc("Vertical aim");
    CMD_BUTTONS = uint("srb2.cmd.buttons", "Buttons").hex().desc("buttoncode_t bits (weapon slot in bits 0–3)");
    CMD_LATENCY = uint("srb2.cmd.latency", "Latency").desc("2.2.10+: low byte of the sender's leveltime");

    TICS = group("srb2.tics", "Server tics").desc("PT_SERVERTICS body");
    TICS_START = uint("srb2.tics.start", "Start tic").desc("First tic (low byte up to 2.2.4, u32 from 2.2.5)");
    TICS_START_EXPANDED = uint("srb2.tics.start_expanded", "Start tic (expanded)").desc("8-bit start tic expanded against the flow's tic reference");
    TICS_NUMTICS = uint("srb2.tics.numtics", "Tics").desc("Number of tics");
    TICS_NUMSLOTS = uint("srb2.tics.numslots", "Slots").desc("Player slots per tic (highest player number in use + 1)");
    TICS_TIC = group("srb2.tics.tic", "Tic").repeated().valued(crate::tree::Kind::UInt).holds(&["srb2.cmd"]).desc("The move records of one tic; the value is the absolute tic");
    TICS_TIC_REPEAT = boolean("srb2.tics.tic.repeat", "Repeat").desc("This tic was already decoded from an earlier packet of the flow");
    TICS_TEXT = group("srb2.tics.text", "Text commands of a tic").repeated().valued(crate::tree::Kind::UInt).holds(&["srb2.textbuf"]).desc("Text-command section for one tic; the value is the tic");
    TICS_TEXT_COUNT = uint("srb2.tics.text.count", "Buffers").desc("Number of players with text commands in this tic");

    TEXTBUF = group("srb2.textbuf", "Text-command buffer").repeated().holds(&["srb2.xd"]).desc("len + net commands of one player");
    TEXTBUF_PLAYER = uint("srb2.textbuf.player", "Player").desc("Player number issuing the commands");
    TEXTBUF_PLAYER_NAME = string("srb2.textbuf.player_name", "Player name").desc("Name of the issuing player, as learned from the flow (not on the wire)");
    TEXTBUF_LEN = uint("srb2.textbuf.len", "Length").unit("bytes").desc("Length of the net-command bytes");
    XD_UNDECODED = bytes("srb2.textbuf.undecoded", "Undecoded commands").desc("Rest of a buffer after a command that could not be decoded");
    TEXTCMD = group("srb2.textcmd", "Text command").holds(&["srb2.textbuf"]).desc("PT_TEXTCMD / PT_TEXTCMD2 body");

    XD = enumeration("srb2.xd", "Net command").repeated().nests().holds(&["srb2.netvar"]).desc("XD id (netxcmd_t, numbered per release) and its body");
    XD_NAME = string("srb2.xd.player_name", "Player name").desc("Player name (XD_NAMEANDCOLOR, XD_ADDPLAYER)");
    XD_AVAILABILITIES = uint("srb2.xd.availabilities", "Skin availabilities").hex().desc("2.2: bitmask of unlockable skins");
    XD_COLOR = uint("srb2.xd.color", "Colour").desc("Skin colour (u8 up to 2.2.4, u16 from 2.2.5)");
    XD_SKIN = uint("srb2.xd.skin", "Skin").desc("Skin number");
    XD_PREFS = uint("srb2.xd.prefs", "Preferences").hex().desc("XD_WEAPONPREF bits: flipcam, analog, directionchar, autobrake");
    XD_TARGET_PLAYER = uint("srb2.xd.player", "Player").desc("Player the command acts on (kick, verified, demoted, mute)");
    XD_KICK_MSG = enumeration("srb2.xd.kick_msg", "Kick reason").desc("KICK_MSG_* (bit 0x80 = keep body, 2.2.1+)");
    XD_KICK_KEEPBODY = boolean("srb2.xd.keep_body", "Keep body").desc("KICK_MSG_KEEP_BODY flag");
    XD_KICK_REASON = string("srb2.xd.reason", "Custom reason").desc("Reason text of a custom kick or ban");
    XD_SAY_TARGET = int("srb2.xd.target", "Target").desc("0 everyone, 1…32 private to player n-1, -1 own team");
    XD_SAY_FLAGS = uint("srb2.xd.flags", "Say flags").hex().desc("0x01 HU_SERVER_SAY, 0x02 HU_CSAY");
    XD_SAY_MESSAGE = string("srb2.xd.message", "Message").desc("Chat text");
    XD_MAP_FLAGS = uint("srb2.xd.map_flags", "Map flags").hex().desc("bit0 ultimate, bit1 don't reset players, bit2 skip cutscene, bit3 FLS");
    XD_MAP_GAMETYPE = enumeration("srb2.xd.gametype", "Gametype").desc("Gametype of the new map");
    XD_MAP_NAME = string("srb2.xd.map", "Map").desc("Map lump name, e.g. MAP01");
    XD_MAP_SEED = uint("srb2.xd.map_seed", "Random seed").hex().desc("Random seed for the new map");
    XD_CHEAT = uint("srb2.xd.cheat", "Cheat").desc("2.2.12–2.2.13 XD_EXITLEVEL byte");
    XD_FILENAME = string("srb2.xd.filename", "File name").desc("File or folder of XD_ADDFILE/REQADDFILE/ADDFOLDER/REQADDFOLDER/RUNSOC");
    XD_MD5 = bytes("srb2.xd.md5", "MD5").desc("MD5 of the added file");
    XD_PAUSED = uint("srb2.xd.paused", "Paused").desc("1 = pause, 0 = unpause");
    XD_DEDICATEDPAUSE = uint("srb2.xd.dedicated_pause", "Dedicated pause").desc("1 if issued by a dedicated server");
    XD_NODE = uint("srb2.xd.node", "Node").desc("Server-side node of the added player");
    XD_PLAYERNUM = uint("srb2.xd.playernum", "Player number").desc("Player number given to the added player");
    XD_SPLITSCREEN = boolean("srb2.xd.second_player", "Second local player").desc("Bit 0x80 of the player number");
    XD_TEAMCHANGE = uint("srb2.xd.teamchange", "Team change").hex().desc("changeteam_union bitfield");
    XD_TC_PLAYER = uint("srb2.xd.tc_player", "Player").desc("Bits 0–4: player number");
    XD_TC_TEAM = uint("srb2.xd.tc_team", "New team").desc("Bits 5–9: 0 spectator, 1 red, 2 blue, 3 playing");
    XD_TC_VERIFIED = boolean("srb2.xd.tc_verification", "Server initiated").desc("Bit 10: serverchangeteam");
    XD_TC_AUTOBALANCE = boolean("srb2.xd.tc_autobalance", "Autobalance").desc("Bit 11");
    XD_TC_SCRAMBLED = boolean("srb2.xd.tc_scrambled", "Scrambled").desc("Bit 12");
    XD_SEED = uint("srb2.xd.seed", "Seed").hex().desc("XD_RANDOMSEED value");
    XD_MOTD = string("srb2.xd.motd", "Message of the day").desc("XD_SETMOTD text (no terminator on the wire)");
    XD_SUICIDE_PLAYER = int("srb2.xd.suicide_player", "Player").desc("XD_SUICIDE player (s32)");
    XD_ARGC = uint("srb2.xd.argc", "Arguments").desc("XD_LUACMD argument count");
    XD_ARG = string("srb2.xd.arg", "Argument").repeated().desc("XD_LUACMD argv (argv[0] = command name)");
    XD_SUCCESS = uint("srb2.xd.success", "Success").desc("XD_LUAFILE: 1 delivered, 0 failed");
    XD_MUTED = uint("srb2.xd.muted", "Muted").desc("XD_MUTEPLAYER: 1 muted");

    NETVAR = group("srb2.netvar", "Net variable").repeated().desc("netid, value, stealth");
    NETVAR_ID = uint("srb2.netvar.id", "Netid").hex().desc("Name hash (≤ 2.2.6) or registration number (2.2.7+)");
    NETVAR_VALUE = string("srb2.netvar.value", "Value").desc("String value of the variable");
    NETVAR_STEALTH = uint("srb2.netvar.stealth", "Stealth").desc("1 = change silently");

    SERVERCFG = group("srb2.servercfg", "Server config").holds(&["srb2.netvar"]).desc("PT_SERVERCFG body");
    CFG_VERSION = uint("srb2.servercfg.version", "Version").desc("VERSION (201 / 202), up to 2.2.9");
    CFG_SUBVERSION = uint("srb2.servercfg.subversion", "Subversion").desc("SUBVERSION, up to 2.2.9");
    CFG_SERVERPLAYER = uint("srb2.servercfg.serverplayer", "Server player").desc("Player number of the server's own player");
    CFG_TOTALSLOTNUM = uint("srb2.servercfg.totalslotnum", "Total slots").desc("Highest player number in use + 1");
    CFG_GAMETIC = uint("srb2.servercfg.gametic", "Gametic").desc("Full tic number: anchor for later 8-bit tics");
    CFG_CLIENTNODE = uint("srb2.servercfg.clientnode", "Client node").desc("Node number the server gave the client");
    CFG_GAMESTATE = enumeration("srb2.servercfg.gamestate", "Game state").desc("gamestate_t");
    CFG_GAMETYPE = enumeration("srb2.servercfg.gametype", "Gametype").desc("Current gametype");
    CFG_MODIFIED = uint("srb2.servercfg.modifiedgame", "Modified").desc("1 = add-ons loaded");
    CFG_USEDCHEATS = uint("srb2.servercfg.usedcheats", "Used cheats").desc("2.2.12+");
    CFG_CONTEXT = string("srb2.servercfg.server_context", "Server context").desc("Random 8-letter string chosen at server start");
    CFG_SKINS = bytes("srb2.servercfg.playerskins", "Player skins").desc("32 skins (0xFF = slot not in game), up to 2.2.8");
    CFG_COLORS = bytes("srb2.servercfg.playercolor", "Player colours").desc("32 colours (u8; u16 LE from 2.2.5), up to 2.2.8");
    CFG_AVAILABILITIES = bytes("srb2.servercfg.playeravailabilities", "Player availabilities").desc("32 × u32, 2.2.0–2.2.8");
    CFG_ADMINS = bytes("srb2.servercfg.adminplayers", "Admin players").desc("32 × s8 admin player numbers (-1 = unused), up to 2.2.8");
    CFG_NAME = string("srb2.servercfg.name", "Player name").repeated().desc("32 player names (STRZ; empty = free slot), up to 2.2.8");
    CFG_NETVAR_COUNT = uint("srb2.servercfg.netvar_count", "Net variables").desc("Number of changed net variables that follow");

    JOIN = group("srb2.join", "Client join").desc("PT_CLIENTJOIN body");
    JOIN_255 = uint("srb2.join.x255", "Marker 255").desc("2.2.1–2.2.9: always 0xFF");
    JOIN_PACKETVERSION = uint("srb2.join.packetversion", "Packet version").desc("2.2.1–2.2.9 PACKETVERSION");
    JOIN_MODVERSION = uint("srb2.join.modversion", "Mod version").desc("2.2.10+: MODVERSION (54 = 2.2.13)");
    JOIN_APPLICATION = string("srb2.join.application", "Application").desc("\"SRB2\"");
    JOIN_VERSION = uint("srb2.join.version", "Version").desc("VERSION (201 / 202)");
    JOIN_SUBVERSION = uint("srb2.join.subversion", "Subversion").desc("SUBVERSION");
    JOIN_LOCALPLAYERS = uint("srb2.join.localplayers", "Local players").desc("1, or 2 with splitscreen");
    JOIN_MODE = uint("srb2.join.mode", "Mode").desc("Never written (stale byte)");
    JOIN_NAME = string("srb2.join.name", "Name").repeated().desc("2.2: names of the local players (char[21])");

    ASKINFO = group("srb2.askinfo", "Ask info").desc("PT_ASKINFO body");
    ASKINFO_VERSION = uint("srb2.askinfo.version", "Version").desc("Sender's VERSION (201 = 2.1, 202 = 2.2)");
    ASKINFO_TIME = uint("srb2.askinfo.time", "Time").unit("tics").desc("Sender's clock, echoed in PT_SERVERINFO");

    SERVERINFO = group("srb2.serverinfo", "Server info").holds(&["srb2.file"]).desc("PT_SERVERINFO body");
    SI_255 = uint("srb2.serverinfo.x255", "Marker 255").desc("2.2.1+: always 0xFF");
    SI_PACKETVERSION = uint("srb2.serverinfo.packetversion", "Packet version").desc("2.2.1+ PACKETVERSION");
    SI_APPLICATION = string("srb2.serverinfo.application", "Application").desc("\"SRB2\"");
    SI_VERSION = uint("srb2.serverinfo.version", "Version").desc("VERSION");
    SI_SUBVERSION = uint("srb2.serverinfo.subversion", "Subversion").desc("SUBVERSION");
    SI_PLAYERS = uint("srb2.serverinfo.numberofplayer", "Players").desc("Players in the game");
    SI_MAXPLAYERS = uint("srb2.serverinfo.maxplayer", "Max players").desc("cvar maxplayers");
    SI_REFUSE = enumeration("srb2.serverinfo.refusereason", "Refuse reason").desc("2.2.3+: 0 joinable, 1 joins disabled, 2 full, 3 banned");
    SI_GAMETYPE = enumeration("srb2.serverinfo.gametype", "Gametype").desc("2.1: gametype number");
    SI_GAMETYPENAME = string("srb2.serverinfo.gametypename", "Gametype").desc("2.2: gametype name");
    SI_MODIFIED = uint("srb2.serverinfo.modifiedgame", "Modified").desc("1 = add-ons loaded");
    SI_CHEATS = uint("srb2.serverinfo.cheatsenabled", "Cheats").desc("1 = cheats enabled");
    SI_DEDICATED = uint("srb2.serverinfo.isdedicated", "Dedicated").desc("Up to 2.2.9: 1 = dedicated server");
    SI_FLAGS = uint("srb2.serverinfo.flags", "Flags").hex().desc("2.2.10+: 0x40 SV_DEDICATED, 0x20 SV_LOTSOFADDONS");
    SI_FILECOUNT = uint("srb2.serverinfo.fileneedednum", "Files").desc("Entries in the file list");
    SI_ADMINPLAYER = int("srb2.serverinfo.adminplayer", "Admin player").desc("2.1: never written (stale byte)");
    SI_TIME = uint("srb2.serverinfo.time", "Time").unit("tics").desc("Echo of the PT_ASKINFO time");
    SI_LEVELTIME = uint("srb2.serverinfo.leveltime", "Level time").unit("tics").desc("Time spent in the current level");
    SI_SERVERNAME = string("srb2.serverinfo.servername", "Server name").desc("char[32]");
    SI_MAPNAME = string("srb2.serverinfo.mapname", "Map").desc("char[8], e.g. MAP01");
    SI_MAPTITLE = string("srb2.serverinfo.maptitle", "Map title").desc("char[33]");
    SI_MAPMD5 = bytes("srb2.serverinfo.mapmd5", "Map MD5").desc("MD5 of the map");
    SI_ACTNUM = uint("srb2.serverinfo.actnum", "Act").desc("Act number");
    SI_ISZONE = uint("srb2.serverinfo.iszone", "Is zone").desc("1 = title gets \" Zone\"");
    SI_HTTPSOURCE = string("srb2.serverinfo.httpsource", "HTTP source").desc("2.2.14+: download mirror URL");

    FILE = group("srb2.file", "File").repeated().desc("File-list entry (PT_SERVERINFO, PT_MOREFILESNEEDED)");
    FILE_STATUS = uint("srb2.file.status", "Status").hex().desc("Low nibble: 1 important, 0 music/sound-only file (up to 2.2.9); high nibble willsend");
    FILE_FOLDER = uint("srb2.file.folder", "Folder").desc("2.2.10+: 1 = the add-on is a folder");
    FILE_SIZE = uint("srb2.file.size", "Size").unit("bytes").desc("File size");
    FILE_NAME = string("srb2.file.name", "Name").desc("File name (no path)");
    FILE_MD5 = bytes("srb2.file.md5", "MD5").desc("MD5 of the file");

    PLAYERINFO = group("srb2.playerinfo", "Player info").desc("PT_PLAYERINFO body: 32 × 36 bytes; unused records are not shown");
    PI_PLAYER = group("srb2.playerinfo.player", "Player").repeated().valued(crate::tree::Kind::UInt).desc("A used record; the value is its index (player number)");
    PI_NUM = uint("srb2.playerinfo.player.num", "Number").desc("2.1.25: node; 2.2: player number");
    PI_NAME = string("srb2.playerinfo.player.name", "Name").desc("char[22]");
    PI_ADDRESS = string("srb2.playerinfo.player.address", "Address").desc("2.1.25: IPv4 of the player; 2.2: zero");
    PI_TEAM = uint("srb2.playerinfo.player.team", "Team").desc("ctfteam or 0 playing / 255 spectator");
    PI_SKIN = uint("srb2.playerinfo.player.skin", "Skin").desc("Skin number");
    PI_DATA = uint("srb2.playerinfo.player.data", "Data").hex().desc("2.1: colour in bits 0–4; 0x20 it, 0x40 flag, 0x80 super");
    PI_SCORE = uint("srb2.playerinfo.player.score", "Score").desc("Score");
    PI_TIME = uint("srb2.playerinfo.player.time", "Time in server").unit("s").desc("Seconds in the server");

    REFUSE = group("srb2.refuse", "Server refuse").desc("PT_SERVERREFUSE body");
    REFUSE_REASON = string("srb2.refuse.reason", "Reason").desc("Why the join was refused");

    REQUESTFILE = group("srb2.requestfile", "Request file").desc("PT_REQUESTFILE body");
    REQ_FILEID = uint("srb2.requestfile.fileid", "File id").repeated().desc("Index into the server's file list; 0xFF ends the list");
    REQ_FILENAME = string("srb2.requestfile.filename", "File name").repeated().desc("Up to 2.2.9: name of the requested file");

    VIAMS = group("srb2.askinfoviams", "Ask info via MS").desc("PT_ASKINFOVIAMS body");
    VIAMS_ADDR = string("srb2.askinfoviams.clientaddr", "Client address").desc("char[22]");
    VIAMS_TIME = uint("srb2.askinfoviams.time", "Time").desc("Sender's clock");

    FRAGMENT = group("srb2.fragment", "File fragment").desc("PT_FILEFRAGMENT body");
    FRAG_FILEID = uint("srb2.fragment.fileid", "File id").desc("0 = savegame / Lua file");
    FRAG_FILESIZE = uint("srb2.fragment.filesize", "File size").unit("bytes").desc("2.2.5+: total size");
    FRAG_ITERATION = uint("srb2.fragment.iteration", "Iteration").desc("2.2.5+: sending pass");
    FRAG_POSITION = uint("srb2.fragment.position", "Position").desc("Byte offset (up to 2.2.4: bit 31 = last fragment)");
    FRAG_LAST = boolean("srb2.fragment.last", "Last fragment").desc("Up to 2.2.4: bit 31 of position");
    FRAG_SIZE = uint("srb2.fragment.size", "Size").unit("bytes").desc("Data bytes (2.2.5+: nominal fragment size)");
    FRAG_INDEX = uint("srb2.fragment.index", "Fragment index").desc("2.2.5+: position / size (computed)");
    FRAG_DATA = bytes("srb2.fragment.data", "Data").desc("File bytes");

    FILEACK = group("srb2.fileack", "File ack").desc("PT_FILEACK body");
    FACK_FILEID = uint("srb2.fileack.fileid", "File id").desc("File being acknowledged");
    FACK_ITERATION = uint("srb2.fileack.iteration", "Iteration").desc("Highest pass seen");
    FACK_NUMSEGMENTS = uint("srb2.fileack.numsegments", "Segments").desc("Number of ack segments");
    FACK_SEGMENT = group("srb2.fileack.segment", "Segment").repeated().desc("start + 32-fragment bitmask");
    FACK_START = uint("srb2.fileack.segment.start", "Start").desc("First fragment index");
    FACK_ACKS = uint("srb2.fileack.segment.acks", "Acks").hex().desc("Bit j = fragment start+j received");
    FILERECEIVED = group("srb2.filereceived", "File received").desc("PT_FILERECEIVED body");
    FILERECEIVED_ID = uint("srb2.filereceived.fileid", "File id").desc("Completed file");
    TELLFILES = group("srb2.tellfiles", "Tell files needed").desc("PT_TELLFILESNEEDED body");
    TELLFILES_FIRST = int("srb2.tellfiles.first", "First").desc("First file index wanted");
    MOREFILES = group("srb2.morefiles", "More files needed").holds(&["srb2.file"]).desc("PT_MOREFILESNEEDED body");
    MORE_FIRST = int("srb2.morefiles.first", "First").desc("Index of the first entry");
    MORE_NUM = uint("srb2.morefiles.num", "Entries").desc("Entries that follow");
    MORE_MORE = uint("srb2.morefiles.more", "More").desc("1 = further entries remain");

    NODETIMEOUT = group("srb2.nodetimeout", "Node timeout").desc("PT_NODETIMEOUT body (local only)");
    NODETIMEOUT_NODE = uint("srb2.nodetimeout.node", "Node").desc("Timed-out node");
    LOGIN = group("srb2.login", "Login").desc("PT_LOGIN body");
    LOGIN_HASH = bytes("srb2.login.hash", "Password hash").desc("Salted double MD5 of the admin password");
    PING = group("srb2.ping", "Ping table").desc("PT_PING body");
    PING_ENTRY = uint("srb2.ping.entry", "Ping").repeated().unit("ms").desc("Average ping of player i");
    PING_MAXPING = uint("srb2.ping.maxping", "Max ping").unit("ms").desc("2.2: the server's maxping cvar (entry 32)");

    RESYNCHGET = group("srb2.resynchget", "Resynch get").desc("PT_RESYNCHGET body");
    RESYNCHGET_PLAYER = uint("srb2.resynchget.player", "Player").desc("Player confirmed");
    RESYNCHEND = group("srb2.resynchend", "Resynch end").holds(&["srb2.body"]).desc("PT_RESYNCHEND body (2.1.25 resynchend_pak)");

    RE_SEED = uint("srb2.resynchend.randomseed", "randomseed").desc("Random seed");
    RE_FLAGPLAYER = int("srb2.resynchend.flagplayer", "flagplayer").repeated().desc("CTF flag holder");
    RE_FLAGLOOSE = int("srb2.resynchend.flagloose", "flagloose").repeated().desc("Flag loose timer");
    RE_FLAGFLAGS = int("srb2.resynchend.flagflags", "flagflags").repeated().desc("Flag mobj flags");
    RE_FLAGX = int("srb2.resynchend.flagx", "flagx").repeated().desc("Flag x (fixed)");
    RE_FLAGY = int("srb2.resynchend.flagy", "flagy").repeated().desc("Flag y (fixed)");
    RE_FLAGZ = int("srb2.resynchend.flagz", "flagz").repeated().desc("Flag z (fixed)");
    RE_INGAME = uint("srb2.resynchend.ingame", "ingame").desc("Bit i = player i not spectating");
    RE_CTFTEAM = int("srb2.resynchend.ctfteam", "ctfteam").repeated().desc("CTF team per player");
    RE_SCORE = uint("srb2.resynchend.score", "score").repeated().desc("Score per player");
    RE_NUMBOXES = int("srb2.resynchend.numboxes", "numboxes").repeated().desc("Monitors per player");
    RE_TOTALRING = int("srb2.resynchend.totalring", "totalring").repeated().desc("Rings per player");
    RE_REALTIME = uint("srb2.resynchend.realtime", "realtime").repeated().desc("Real time per player");
    RE_LAPS = uint("srb2.resynchend.laps", "laps").repeated().desc("Laps per player");
    RESYNCH = group("srb2.resynch", "Resynching").holds(&["srb2.body"]).desc("PT_RESYNCHING body (2.1.25 resynch_pak)");
    RS_PLAYERNUM = uint("srb2.resynch.playernum", "playernum").desc("player_t / mobj_t member (2.1.25 resynch_pak)");
    RS_PLAYERSTATE = uint("srb2.resynch.playerstate", "playerstate").desc("player_t / mobj_t member (2.1.25 resynch_pak)");
    RS_PFLAGS = uint("srb2.resynch.pflags", "pflags").desc("player_t / mobj_t member (2.1.25 resynch_pak)");
    RS_PANIM = uint("srb2.resynch.panim", "panim").desc("player_t / mobj_t member (2.1.25 resynch_pak)");
    RS_AIMING = uint("srb2.resynch.aiming", "aiming").desc("player_t / mobj_t member (2.1.25 resynch_pak)");
    RS_CURRENTWEAPON = int("srb2.resynch.currentweapon", "currentweapon").desc("player_t / mobj_t member (2.1.25 resynch_pak)");
    RS_RINGWEAPONS = int("srb2.resynch.ringweapons", "ringweapons").desc("player_t / mobj_t member (2.1.25 resynch_pak)");
    RS_POWERS = uint("srb2.resynch.powers", "powers").repeated().desc("player_t / mobj_t member (2.1.25 resynch_pak)");
    RS_HEALTH = int("srb2.resynch.health", "health").desc("player_t / mobj_t member (2.1.25 resynch_pak)");
    RS_LIVES = int("srb2.resynch.lives", "lives").desc("player_t / mobj_t member (2.1.25 resynch_pak)");
    RS_CONTINUES = int("srb2.resynch.continues", "continues").desc("player_t / mobj_t member (2.1.25 resynch_pak)");
    RS_SCOREADD = uint("srb2.resynch.scoreadd", "scoreadd").desc("player_t / mobj_t member (2.1.25 resynch_pak)");
    RS_XTRALIFE = int("srb2.resynch.xtralife", "xtralife").desc("player_t / mobj_t member (2.1.25 resynch_pak)");
    RS_PITY = int("srb2.resynch.pity", "pity").desc("player_t / mobj_t member (2.1.25 resynch_pak)");
    RS_SKINCOLOR = uint("srb2.resynch.skincolor", "skincolor").desc("player_t / mobj_t member (2.1.25 resynch_pak)");
    RS_SKIN = int("srb2.resynch.skin", "skin").desc("player_t / mobj_t member (2.1.25 resynch_pak)");
    RS_NORMALSPEED = int("srb2.resynch.normalspeed", "normalspeed").desc("player_t / mobj_t member (2.1.25 resynch_pak)");
    RS_RUNSPEED = int("srb2.resynch.runspeed", "runspeed").desc("player_t / mobj_t member (2.1.25 resynch_pak)");
    RS_THRUSTFACTOR = uint("srb2.resynch.thrustfactor", "thrustfactor").desc("player_t / mobj_t member (2.1.25 resynch_pak)");
    RS_ACCELSTART = uint("srb2.resynch.accelstart", "accelstart").desc("player_t / mobj_t member (2.1.25 resynch_pak)");
    RS_ACCELERATION = uint("srb2.resynch.acceleration", "acceleration").desc("player_t / mobj_t member (2.1.25 resynch_pak)");
    RS_CHARABILITY = uint("srb2.resynch.charability", "charability").desc("player_t / mobj_t member (2.1.25 resynch_pak)");
    RS_CHARABILITY2 = uint("srb2.resynch.charability2", "charability2").desc("player_t / mobj_t member (2.1.25 resynch_pak)");
    RS_CHARFLAGS = uint("srb2.resynch.charflags", "charflags").desc("player_t / mobj_t member (2.1.25 resynch_pak)");
    RS_THOKITEM = uint("srb2.resynch.thokitem", "thokitem").desc("player_t / mobj_t member (2.1.25 resynch_pak)");
    RS_SPINITEM = uint("srb2.resynch.spinitem", "spinitem").desc("player_t / mobj_t member (2.1.25 resynch_pak)");
    RS_REVITEM = uint("srb2.resynch.revitem", "revitem").desc("player_t / mobj_t member (2.1.25 resynch_pak)");
    RS_ACTIONSPD = int("srb2.resynch.actionspd", "actionspd").desc("player_t / mobj_t member (2.1.25 resynch_pak)");
    RS_MINDASH = int("srb2.resynch.mindash", "mindash").desc("player_t / mobj_t member (2.1.25 resynch_pak)");
    RS_MAXDASH = int("srb2.resynch.maxdash", "maxdash").desc("player_t / mobj_t member (2.1.25 resynch_pak)");
    RS_JUMPFACTOR = int("srb2.resynch.jumpfactor", "jumpfactor").desc("player_t / mobj_t member (2.1.25 resynch_pak)");
    RS_SPEED = int("srb2.resynch.speed", "speed").desc("player_t / mobj_t member (2.1.25 resynch_pak)");
    RS_JUMPING = uint("srb2.resynch.jumping", "jumping").desc("player_t / mobj_t member (2.1.25 resynch_pak)");
    RS_SECONDJUMP = uint("srb2.resynch.secondjump", "secondjump").desc("player_t / mobj_t member (2.1.25 resynch_pak)");
    RS_FLY1 = uint("srb2.resynch.fly1", "fly1").desc("player_t / mobj_t member (2.1.25 resynch_pak)");
    RS_GLIDETIME = uint("srb2.resynch.glidetime", "glidetime").desc("player_t / mobj_t member (2.1.25 resynch_pak)");
    RS_CLIMBING = uint("srb2.resynch.climbing", "climbing").desc("player_t / mobj_t member (2.1.25 resynch_pak)");
    RS_DEADTIMER = int("srb2.resynch.deadtimer", "deadtimer").desc("player_t / mobj_t member (2.1.25 resynch_pak)");
    RS_EXITING = uint("srb2.resynch.exiting", "exiting").desc("player_t / mobj_t member (2.1.25 resynch_pak)");
    RS_HOMING = uint("srb2.resynch.homing", "homing").desc("player_t / mobj_t member (2.1.25 resynch_pak)");
    RS_SKIDTIME = uint("srb2.resynch.skidtime", "skidtime").desc("player_t / mobj_t member (2.1.25 resynch_pak)");
    RS_CMOMX = int("srb2.resynch.cmomx", "cmomx").desc("player_t / mobj_t member (2.1.25 resynch_pak)");
    RS_CMOMY = int("srb2.resynch.cmomy", "cmomy").desc("player_t / mobj_t member (2.1.25 resynch_pak)");
    RS_RMOMX = int("srb2.resynch.rmomx", "rmomx").desc("player_t / mobj_t member (2.1.25 resynch_pak)");
    RS_RMOMY = int("srb2.resynch.rmomy", "rmomy").desc("player_t / mobj_t member (2.1.25 resynch_pak)");
    RS_WEAPONDELAY = int("srb2.resynch.weapondelay", "weapondelay").desc("player_t / mobj_t member (2.1.25 resynch_pak)");
    RS_TOSSDELAY = int("srb2.resynch.tossdelay", "tossdelay").desc("player_t / mobj_t member (2.1.25 resynch_pak)");
    RS_STARPOSTX = int("srb2.resynch.starpostx", "starpostx").desc("player_t / mobj_t member (2.1.25 resynch_pak)");
    RS_STARPOSTY = int("srb2.resynch.starposty", "starposty").desc("player_t / mobj_t member (2.1.25 resynch_pak)");
    RS_STARPOSTZ = int("srb2.resynch.starpostz", "starpostz").desc("player_t / mobj_t member (2.1.25 resynch_pak)");
    RS_STARPOSTNUM = int("srb2.resynch.starpostnum", "starpostnum").desc("player_t / mobj_t member (2.1.25 resynch_pak)");
    RS_STARPOSTTIME = uint("srb2.resynch.starposttime", "starposttime").desc("player_t / mobj_t member (2.1.25 resynch_pak)");
    RS_STARPOSTANGLE = uint("srb2.resynch.starpostangle", "starpostangle").desc("player_t / mobj_t member (2.1.25 resynch_pak)");
    RS_MAXLINK = int("srb2.resynch.maxlink", "maxlink").desc("player_t / mobj_t member (2.1.25 resynch_pak)");
    RS_DASHSPEED = int("srb2.resynch.dashspeed", "dashspeed").desc("player_t / mobj_t member (2.1.25 resynch_pak)");
    RS_DASHTIME = int("srb2.resynch.dashtime", "dashtime").desc("player_t / mobj_t member (2.1.25 resynch_pak)");
    RS_ANGLE_POS = uint("srb2.resynch.angle_pos", "angle_pos").desc("player_t / mobj_t member (2.1.25 resynch_pak)");
    RS_OLD_ANGLE_POS = uint("srb2.resynch.old_angle_pos", "old_angle_pos").desc("player_t / mobj_t member (2.1.25 resynch_pak)");
    RS_BUMPERTIME = uint("srb2.resynch.bumpertime", "bumpertime").desc("player_t / mobj_t member (2.1.25 resynch_pak)");
    RS_FLYANGLE = int("srb2.resynch.flyangle", "flyangle").desc("player_t / mobj_t member (2.1.25 resynch_pak)");
    RS_DRILLTIMER = uint("srb2.resynch.drilltimer", "drilltimer").desc("player_t / mobj_t member (2.1.25 resynch_pak)");
    RS_LINKCOUNT = int("srb2.resynch.linkcount", "linkcount").desc("player_t / mobj_t member (2.1.25 resynch_pak)");
    RS_LINKTIMER = uint("srb2.resynch.linktimer", "linktimer").desc("player_t / mobj_t member (2.1.25 resynch_pak)");
    RS_ANOTHERFLYANGLE = int("srb2.resynch.anotherflyangle", "anotherflyangle").desc("player_t / mobj_t member (2.1.25 resynch_pak)");
    RS_NIGHTSTIME = uint("srb2.resynch.nightstime", "nightstime").desc("player_t / mobj_t member (2.1.25 resynch_pak)");
    RS_DRILLMETER = int("srb2.resynch.drillmeter", "drillmeter").desc("player_t / mobj_t member (2.1.25 resynch_pak)");
    RS_DRILLDELAY = uint("srb2.resynch.drilldelay", "drilldelay").desc("player_t / mobj_t member (2.1.25 resynch_pak)");
    RS_BONUSTIME = uint("srb2.resynch.bonustime", "bonustime").desc("player_t / mobj_t member (2.1.25 resynch_pak)");
    RS_MARE = uint("srb2.resynch.mare", "mare").desc("player_t / mobj_t member (2.1.25 resynch_pak)");
    RS_LASTSIDEHIT = int("srb2.resynch.lastsidehit", "lastsidehit").desc("player_t / mobj_t member (2.1.25 resynch_pak)");
    RS_LASTLINEHIT = int("srb2.resynch.lastlinehit", "lastlinehit").desc("player_t / mobj_t member (2.1.25 resynch_pak)");
    RS_LOSSTIME = uint("srb2.resynch.losstime", "losstime").desc("player_t / mobj_t member (2.1.25 resynch_pak)");
    RS_TIMESHIT = uint("srb2.resynch.timeshit", "timeshit").desc("player_t / mobj_t member (2.1.25 resynch_pak)");
    RS_ONCONVEYOR = int("srb2.resynch.onconveyor", "onconveyor").desc("player_t / mobj_t member (2.1.25 resynch_pak)");
    RS_HASMO = uint("srb2.resynch.hasmo", "hasmo").desc("1 = the player has a body; otherwise the object part is stale");
    RS_ANGLE = uint("srb2.resynch.angle", "angle").desc("player_t / mobj_t member (2.1.25 resynch_pak)");
    RS_X = int("srb2.resynch.x", "x").desc("player_t / mobj_t member (2.1.25 resynch_pak)");
    RS_Y = int("srb2.resynch.y", "y").desc("player_t / mobj_t member (2.1.25 resynch_pak)");
    RS_Z = int("srb2.resynch.z", "z").desc("player_t / mobj_t member (2.1.25 resynch_pak)");
    RS_MOMX = int("srb2.resynch.momx", "momx").desc("player_t / mobj_t member (2.1.25 resynch_pak)");
    RS_MOMY = int("srb2.resynch.momy", "momy").desc("player_t / mobj_t member (2.1.25 resynch_pak)");
    RS_MOMZ = int("srb2.resynch.momz", "momz").desc("player_t / mobj_t member (2.1.25 resynch_pak)");
    RS_FRICTION = int("srb2.resynch.friction", "friction").desc("player_t / mobj_t member (2.1.25 resynch_pak)");
    RS_MOVEFACTOR = int("srb2.resynch.movefactor", "movefactor").desc("player_t / mobj_t member (2.1.25 resynch_pak)");
    RS_TICS = int("srb2.resynch.tics", "tics").desc("player_t / mobj_t member (2.1.25 resynch_pak)");
    RS_STATENUM = uint("srb2.resynch.statenum", "statenum").desc("player_t / mobj_t member (2.1.25 resynch_pak)");
    RS_FLAGS = uint("srb2.resynch.flags", "flags").desc("player_t / mobj_t member (2.1.25 resynch_pak)");
    RS_FLAGS2 = uint("srb2.resynch.flags2", "flags2").desc("player_t / mobj_t member (2.1.25 resynch_pak)");
    RS_EFLAGS = uint("srb2.resynch.eflags", "eflags").desc("player_t / mobj_t member (2.1.25 resynch_pak)");
    RS_RADIUS = int("srb2.resynch.radius", "radius").desc("player_t / mobj_t member (2.1.25 resynch_pak)");
    RS_HEIGHT = int("srb2.resynch.height", "height").desc("player_t / mobj_t member (2.1.25 resynch_pak)");
    RS_SCALE = int("srb2.resynch.scale", "scale").desc("player_t / mobj_t member (2.1.25 resynch_pak)");
    RS_DESTSCALE = int("srb2.resynch.destscale", "destscale").desc("player_t / mobj_t member (2.1.25 resynch_pak)");
    RS_SCALESPEED = int("srb2.resynch.scalespeed", "scalespeed").desc("player_t / mobj_t member (2.1.25 resynch_pak)");
    RS_STALE = bytes("srb2.resynch.stale", "Stale object bytes").desc("Object part of resynch_pak when hasmo = 0");
}

/// The fields each packet type's records carry: the header and release of every datagram, then
/// the body's group (`msg::body_group`, which a test keeps in step with this list).
pub static TYPES: crate::tree::TypeFields = crate::tree::TypeFields {
    common: &[
        "srb2.release",
        "srb2.release_basis",
        "srb2.header",
        "srb2.body",
        "srb2.trailing",
    ],
    by_type: &[
        (&["PT_NOTHING"], &["srb2.nothing"]),
        (&["PT_SERVERCFG"], &["srb2.servercfg"]),
        (
            &[
                "PT_CLIENTCMD",
                "PT_CLIENTMIS",
                "PT_CLIENT2CMD",
                "PT_CLIENT2MIS",
                "PT_NODEKEEPALIVE",
                "PT_NODEKEEPALIVEMIS",
            ],
            &["srb2.clientcmd"],
        ),
        (&["PT_SERVERTICS"], &["srb2.tics"]),
        (&["PT_SERVERREFUSE"], &["srb2.refuse"]),
        (&["PT_ASKINFO"], &["srb2.askinfo"]),
        (&["PT_SERVERINFO"], &["srb2.serverinfo"]),
        (&["PT_PLAYERINFO"], &["srb2.playerinfo"]),
        (&["PT_REQUESTFILE"], &["srb2.requestfile"]),
        (&["PT_ASKINFOVIAMS"], &["srb2.askinfoviams"]),
        (&["PT_RESYNCHEND"], &["srb2.resynchend"]),
        (&["PT_RESYNCHGET"], &["srb2.resynchget"]),
        (&["PT_RESYNCHING"], &["srb2.resynch"]),
        (&["PT_FILEFRAGMENT"], &["srb2.fragment"]),
        (&["PT_FILEACK"], &["srb2.fileack"]),
        (&["PT_FILERECEIVED"], &["srb2.filereceived"]),
        (&["PT_TEXTCMD", "PT_TEXTCMD2"], &["srb2.textcmd"]),
        (&["PT_CLIENTJOIN"], &["srb2.join"]),
        (&["PT_NODETIMEOUT"], &["srb2.nodetimeout"]),
        (&["PT_LOGIN"], &["srb2.login"]),
        (&["PT_TELLFILESNEEDED"], &["srb2.tellfiles"]),
        (&["PT_MOREFILESNEEDED"], &["srb2.morefiles"]),
        (&["PT_PING"], &["srb2.ping"]),
        // Empty bodies, a datagram too short for a header, a type the release lacks (its body
        // is `srb2.body`), the 0-byte reachability test, another game's headers.
        (
            &[
                "PT_SERVERSHUTDOWN",
                "PT_CLIENTQUIT",
                "PT_WILLRESENDGAMESTATE",
                "PT_CANRECEIVEGAMESTATE",
                "PT_RECEIVEDGAMESTATE",
                "PT_SENDINGLUAFILE",
                "PT_ASKLUAFILE",
                "PT_HASLUAFILE",
                "PT_BASICKEEPALIVE",
                "short",
                "unknown",
                "empty",
                "other game",
            ],
            &[],
        ),
    ],
};
