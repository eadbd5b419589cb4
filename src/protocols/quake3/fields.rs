//! Every field the Quake III Arena (id 1.32, ioquake3, OpenArena) decoder emits.

crate::field_defs! {
    // A datagram whose netchan flavour is not decided yet shows its sequence at the root.
    ROOT = group("quake3", "Quake III Arena (id 1.32, ioquake3, OpenArena)").holds(&["quake3.netchan.sequence", "quake3.netchan.fragment"]);

    // Connectionless packets (ioquake3 code/server/sv_main.c `SV_ConnectionlessPacket`).
    OOB = group("quake3.oob", "Connectionless packet").desc("Packet starting with the 0xffffffff marker: one text command");
    OOB_MARKER = uint("quake3.oob.marker", "Marker").hex().desc("The four 0xff bytes of a connectionless packet");
    OOB_COMMAND = string("quake3.oob.command", "Command").desc("Command word (getchallenge, infoResponse, connect …)");
    OOB_TEXT = string("quake3.oob.text", "Text").desc("The command line as sent (first line; for print: the message)");
    OOB_ARG = string("quake3.oob.arg", "Argument").repeated().desc("Arguments after the command word, tokenized like the engine (quotes group)");
    OOB_CHALLENGE = int("quake3.oob.challenge", "Challenge").desc("Server challenge (challengeResponse, connect userinfo, getIpAuthorize, ipAuthorize)");
    OOB_CLIENT_CHALLENGE = int("quake3.oob.client_challenge", "Client challenge").desc("Client's random challenge (ioquake3/OpenArena getchallenge and challengeResponse)");
    OOB_PROTOCOL = uint("quake3.oob.protocol", "Protocol").desc("Protocol number (challengeResponse, connect userinfo, getservers)");
    OOB_GAMENAME = string("quake3.oob.gamename", "Game name").desc("com_gamename (getchallenge, getservers dpmaster style)");
    OOB_INFO = group("quake3.oob.info", "Info string").desc("Info string (\\key\\value…) as key/value pairs");
    OOB_INFO_PAIR = group("quake3.oob.info.pair", "Pair").repeated().desc("One key/value of the info string");
    OOB_INFO_KEY = string("quake3.oob.info.pair.key", "Key").desc("Info key");
    OOB_INFO_VALUE = string("quake3.oob.info.pair.value", "Value").desc("Info value");
    OOB_PLAYER = group("quake3.oob.player", "Player").repeated().desc("statusResponse player line: score, ping, name");
    OOB_PLAYER_SCORE = int("quake3.oob.player.score", "Score").desc("Player score");
    OOB_PLAYER_PING = int("quake3.oob.player.ping", "Ping").unit("ms").desc("Player ping");
    OOB_PLAYER_NAME = string("quake3.oob.player.name", "Name").desc("Player name (with ^ colour codes)");
    OOB_CONNECT_LENGTH = uint("quake3.oob.connect_length", "Userinfo length").desc("connect: big-endian length of the Huffman-compressed text (bytes after decompression)");
    OOB_USERINFO = group("quake3.oob.userinfo", "Userinfo").desc("connect: the adaptive-Huffman-decompressed userinfo as key/value pairs");
    OOB_USERINFO_PAIR = group("quake3.oob.userinfo.pair", "Pair").repeated().desc("One userinfo key/value");
    OOB_USERINFO_KEY = string("quake3.oob.userinfo.pair.key", "Key").desc("Userinfo key");
    OOB_USERINFO_VALUE = string("quake3.oob.userinfo.pair.value", "Value").desc("Userinfo value");
    OOB_QPORT = uint("quake3.oob.qport", "Qport").desc("connect: the qport the client will put in every netchan header");
    OOB_SERVER = group("quake3.oob.server", "Server").repeated().desc("getserversResponse / getserversExtResponse entry");
    OOB_SERVER_ADDRESS = string("quake3.oob.server.address", "Address").desc("Server address (IPv4 or IPv6)");
    OOB_SERVER_PORT = uint("quake3.oob.server.port", "Port").desc("Server port");
    OOB_EOT = boolean("quake3.oob.eot", "End of list").desc("The list ended with the EOT entry (last packet of a master reply)");
    OOB_RCON_PASSWORD = string("quake3.oob.rcon_password", "Rcon password").desc("rcon password (sent in clear text)");
    OOB_RCON_COMMAND = string("quake3.oob.rcon_command", "Rcon command").desc("rcon command text");

    // Netchan (ioquake3 code/qcommon/net_chan.c `Netchan_Process`).
    NETCHAN = group("quake3.netchan", "Netchan").desc("Sequenced-packet header");
    NC_SEQUENCE = uint("quake3.netchan.sequence", "Sequence").desc("Outgoing sequence number of the sender (bit 31 removed)");
    NC_FRAGMENT = boolean("quake3.netchan.fragment", "Fragment").desc("Bit 31 of the sequence: this datagram is one fragment of a larger message");
    NC_QPORT = uint("quake3.netchan.qport", "Qport").desc("Client's qport (client → server only)");
    NC_CHECKSUM = uint("quake3.netchan.checksum", "Checksum").hex().desc("ioquake3 flavour: challenge XOR (sequence × challenge)");
    NC_FRAG_START = uint("quake3.netchan.fragment_start", "Fragment start").desc("Byte offset of this fragment in the message");
    NC_FRAG_LEN = uint("quake3.netchan.fragment_length", "Fragment length").desc("Message bytes in this fragment (less than 1300 = last)");
    NC_FLAVOUR = enumeration("quake3.netchan.flavour", "Flavour").desc("Wire format of this connection: 0 legacy (id 1.32 / OpenArena: XOR, no checksum), 1 ioquake3 (checksum, no XOR); the meaning says how it was decided");
    NC_REASSEMBLED = uint("quake3.netchan.reassembled", "Reassembled length").desc("Length of the message completed by this fragment");
    NC_FRAG_DATA = bytes("quake3.netchan.fragment_data", "Fragment data").desc("Bytes of an incomplete message (decoded once the last fragment arrives)");
    NC_KEY = uint("quake3.netchan.xor_key", "XOR key").hex().desc("Legacy flavour: initial key byte of the XOR de-keying");
    NC_KEY_STRING = string("quake3.netchan.xor_string", "XOR key string").desc("Legacy flavour: the acknowledged reliable command the key cycles through; shown when it changes (per direction), not on every message");
    NC_KEY_SOURCE = string("quake3.netchan.xor_source", "XOR key from").desc("Legacy flavour: how the message's key was known: handshake (challenge and the captured command text), other direction (challenge byte recovered from the keyed messages, key string from a command captured in the other direction), recovered text (the key string read off a recovered pad, or a predicted chat echo, not captured), or recovered pad (see xor_recovered_from)");
    NC_KEY_RECOVERED = uint("quake3.netchan.xor_recovered_from", "XOR pad recovered from").desc("Legacy flavour, key string or challenge not captured: the message was de-keyed with the pad recovered from this many keyed messages that acknowledge the same command (no handshake, or the command was lost)");

    // Server → client (ioquake3 code/client/cl_parse.c `CL_ParseServerMessage`).
    SVC = group("quake3.svc", "Server message").desc("Server → client message body");
    SVC_RELIABLE_ACK = uint("quake3.svc.reliable_ack", "Reliable acknowledge").desc("Number of the last client command the server executed");
    SVC_NOP = uint("quake3.svc.nop", "Nops").desc("Number of svc_nop padding operations");
    SVC_COMMAND = group("quake3.svc.command", "Server command").repeated().desc("svc_serverCommand: a reliable command");
    SVC_CMD_SEQUENCE = uint("quake3.svc.command.sequence", "Sequence").desc("Reliable command number");
    SVC_CMD_TEXT = string("quake3.svc.command.text", "Text").desc("Command text as sent");
    SVC_CMD_NAME = string("quake3.svc.command.name", "Name").desc("Command word (cs, print, chat, tchat, cp, scores, bcs0/1/2, disconnect …)");
    SVC_CMD_MESSAGE = string("quake3.svc.command.message", "Message").desc("print / chat / tchat / cp / disconnect: the quoted message text");
    SVC_CMD_CS_INDEX = uint("quake3.svc.command.cs_index", "Configstring index").desc("cs / bcs0: configstring index");
    SVC_CMD_CS_NAME = string("quake3.svc.command.cs_name", "Configstring").desc("Name of the configstring index (baseq3 layout)");
    SVC_CMD_CS_VALUE = string("quake3.svc.command.cs_value", "Configstring value").desc("cs: new configstring text (bcs: the reassembled text on bcs2)");
    SVC_CMD_INFO = group("quake3.svc.command.info", "Info string").desc("cs of an info-string configstring as key/value pairs");
    SVC_CMD_INFO_PAIR = group("quake3.svc.command.info.pair", "Pair").repeated().desc("One key/value");
    SVC_CMD_INFO_KEY = string("quake3.svc.command.info.pair.key", "Key").desc("Info key");
    SVC_CMD_INFO_VALUE = string("quake3.svc.command.info.pair.value", "Value").desc("Info value");
    SVC_CMD_ARG = string("quake3.svc.command.arg", "Argument").repeated().desc("Other commands (scores …): arguments");
    GAMESTATE = group("quake3.svc.gamestate", "Gamestate").holds(&["quake3.svc.snapshot.entity"]).desc("svc_gamestate: configstrings, baselines, client number, checksum feed");
    GS_COMMAND_SEQ = uint("quake3.svc.gamestate.command_sequence", "Command sequence").desc("Server's current reliable command number");
    GS_CONFIGSTRING = group("quake3.svc.gamestate.configstring", "Configstring").repeated().desc("One configstring");
    GS_CS_INDEX = uint("quake3.svc.gamestate.configstring.index", "Index").desc("Configstring index (0 serverinfo, 1 systeminfo, 32 models, 288 sounds, 544 players …)");
    GS_CS_NAME = string("quake3.svc.gamestate.configstring.name", "Name").desc("Name of the index (baseq3 layout, bg_public.h)");
    GS_CS_VALUE = string("quake3.svc.gamestate.configstring.value", "Value").desc("Configstring text");
    GS_CS_INFO = group("quake3.svc.gamestate.configstring.info", "Info string").desc("Info-string configstrings (serverinfo, systeminfo, players) as key/value pairs");
    GS_CS_INFO_PAIR = group("quake3.svc.gamestate.configstring.info.pair", "Pair").repeated().desc("One key/value");
    GS_CS_INFO_KEY = string("quake3.svc.gamestate.configstring.info.pair.key", "Key").desc("Info key");
    GS_CS_INFO_VALUE = string("quake3.svc.gamestate.configstring.info.pair.value", "Value").desc("Info value");
    GS_BASELINES = uint("quake3.svc.gamestate.baselines", "Baselines").desc("Number of entity baselines (each shown as quake3.entity)");
    GS_CLIENT_NUM = uint("quake3.svc.gamestate.client_num", "Client number").desc("This client's slot");
    GS_CHECKSUM_FEED = int("quake3.svc.gamestate.checksum_feed", "Checksum feed").desc("Random per-map value; part of the usercmd key");
    DOWNLOAD = group("quake3.svc.download", "Download").repeated().desc("svc_download block");
    DL_BLOCK = uint("quake3.svc.download.block", "Block").desc("Block number");
    DL_SIZE = int("quake3.svc.download.size", "File size").unit("bytes").desc("Block 0 only: total size (negative = error)");
    DL_ERROR = string("quake3.svc.download.error", "Error").desc("Error text when the size is negative");
    DL_LENGTH = uint("quake3.svc.download.length", "Length").unit("bytes").desc("Bytes in this block (0 = end of file)");
    DL_DATA = bytes("quake3.svc.download.data", "Data").desc("Block bytes");
    SNAPSHOT = group("quake3.svc.snapshot", "Snapshot").desc("svc_snapshot");
    SNAP_SERVER_TIME = int("quake3.svc.snapshot.server_time", "Server time").unit("ms").desc("Server time of the snapshot");
    SNAP_DELTA_NUM = uint("quake3.svc.snapshot.delta_num", "Delta number").desc("0 = not delta-compressed, else the reference snapshot is the one of message (sequence − delta)");
    SNAP_DELTA_FROM = uint("quake3.svc.snapshot.delta_from", "Delta from").desc("Sequence of the message carrying the reference snapshot");
    SNAP_FLAGS = uint("quake3.svc.snapshot.flags", "Flags").hex().desc("1 rate delayed, 2 not active, 4 servercount");
    SNAP_AREAMASK = bytes("quake3.svc.snapshot.areamask", "Area mask").desc("PVS area bits");
    SNAP_ENTITIES = uint("quake3.svc.snapshot.entities", "Entities").desc("Number of entities in the snapshot after applying the delta; absent while the entity list is not whole (a reference snapshot was not captured since the last non-delta one)");
    SNAP_REMOVED = uint("quake3.svc.snapshot.removed", "Removed").repeated().desc("Numbers of entities removed by this snapshot");
    VOIP = group("quake3.svc.voip", "VoIP").repeated().valued(crate::tree::Kind::Enum).desc("svc_voipSpeex / svc_voipOpus framing (ioquake3 flavour)");
    VOIP_CLIENT = uint("quake3.svc.voip.client", "Sender").desc("Sending client");
    VOIP_GENERATION = uint("quake3.svc.voip.generation", "Generation").desc("VoIP generation");
    VOIP_SEQUENCE = uint("quake3.svc.voip.sequence", "Sequence").desc("VoIP sequence");
    VOIP_FRAMES = uint("quake3.svc.voip.frames", "Frames").desc("Codec frames");
    VOIP_FLAGS = uint("quake3.svc.voip.flags", "Flags").desc("1 spatial, 2 direct");
    VOIP_DATA = bytes("quake3.svc.voip.data", "Data").desc("Codec data");
    VOIP_RECIPIENTS = bytes("quake3.svc.voip.recipients", "Recipients").desc("Client → server: 64-bit recipient mask");

    // Delta-coded states (ioquake3 code/qcommon/msg.c `entityStateFields`, `playerStateFields`).
    ENTITY = group("quake3.svc.snapshot.entity", "Entity").repeated().desc("An entity state (snapshot entity or gamestate baseline) with absolute values; zero fields omitted, and unknown ones (see partial)");
    ENT_NUMBER = uint("quake3.svc.snapshot.entity.number", "Number").desc("Entity number");
    ENT_REMOVED = boolean("quake3.svc.snapshot.entity.removed", "Removed").desc("The entity is removed from the snapshot");
    ENT_BASE = enumeration("quake3.svc.snapshot.entity.base", "Delta from").desc("What the delta applied to: 0 previous snapshot, 1 baseline from the gamestate, 2 zero baseline (the gamestate had none), 3 baseline not captured (fields not sent unknown), 4 reference not captured (the reference snapshot, or one it was a delta from, was not captured: the entity may have been in it, so its fields not sent are unknown)");
    ENT_PARTIAL = boolean("quake3.svc.snapshot.entity.partial", "Partial").desc("Some fields are unknown: the state the delta applied to (or one before it) was not captured, and they have not been sent since; they are absent, never 0 or a baseline's value");
    ENT_CHANGED = string("quake3.svc.snapshot.entity.changed", "Changed").repeated().desc("Fields changed by this delta");
    ENT_POS_TR_TIME = int("quake3.svc.snapshot.entity.pos_tr_time", "pos.trTime").desc("Entity field `pos.trTime` (32-bit), absolute value after the delta");
    ENT_POS_TR_BASE_0 = float("quake3.svc.snapshot.entity.pos_tr_base_0", "pos.trBase[0]").desc("Entity field `pos.trBase[0]` (float), absolute value after the delta");
    ENT_POS_TR_BASE_1 = float("quake3.svc.snapshot.entity.pos_tr_base_1", "pos.trBase[1]").desc("Entity field `pos.trBase[1]` (float), absolute value after the delta");
    ENT_POS_TR_DELTA_0 = float("quake3.svc.snapshot.entity.pos_tr_delta_0", "pos.trDelta[0]").desc("Entity field `pos.trDelta[0]` (float), absolute value after the delta");
    ENT_POS_TR_DELTA_1 = float("quake3.svc.snapshot.entity.pos_tr_delta_1", "pos.trDelta[1]").desc("Entity field `pos.trDelta[1]` (float), absolute value after the delta");
    ENT_POS_TR_BASE_2 = float("quake3.svc.snapshot.entity.pos_tr_base_2", "pos.trBase[2]").desc("Entity field `pos.trBase[2]` (float), absolute value after the delta");
    ENT_APOS_TR_BASE_1 = float("quake3.svc.snapshot.entity.apos_tr_base_1", "apos.trBase[1]").desc("Entity field `apos.trBase[1]` (float), absolute value after the delta");
    ENT_POS_TR_DELTA_2 = float("quake3.svc.snapshot.entity.pos_tr_delta_2", "pos.trDelta[2]").desc("Entity field `pos.trDelta[2]` (float), absolute value after the delta");
    ENT_APOS_TR_BASE_0 = float("quake3.svc.snapshot.entity.apos_tr_base_0", "apos.trBase[0]").desc("Entity field `apos.trBase[0]` (float), absolute value after the delta");
    ENT_EVENT = int("quake3.svc.snapshot.entity.event", "event").desc("Entity field `event` (10-bit), absolute value after the delta");
    ENT_ANGLES2_1 = float("quake3.svc.snapshot.entity.angles2_1", "angles2[1]").desc("Entity field `angles2[1]` (float), absolute value after the delta");
    ENT_E_TYPE = int("quake3.svc.snapshot.entity.e_type", "eType").desc("Entity field `eType` (8-bit), absolute value after the delta");
    ENT_TORSO_ANIM = int("quake3.svc.snapshot.entity.torso_anim", "torsoAnim").desc("Entity field `torsoAnim` (8-bit), absolute value after the delta");
    ENT_EVENT_PARM = int("quake3.svc.snapshot.entity.event_parm", "eventParm").desc("Entity field `eventParm` (8-bit), absolute value after the delta");
    ENT_LEGS_ANIM = int("quake3.svc.snapshot.entity.legs_anim", "legsAnim").desc("Entity field `legsAnim` (8-bit), absolute value after the delta");
    ENT_GROUND_ENTITY_NUM = int("quake3.svc.snapshot.entity.ground_entity_num", "groundEntityNum").desc("Entity field `groundEntityNum` (10-bit), absolute value after the delta");
    ENT_POS_TR_TYPE = int("quake3.svc.snapshot.entity.pos_tr_type", "pos.trType").desc("Entity field `pos.trType` (8-bit), absolute value after the delta");
    ENT_E_FLAGS = int("quake3.svc.snapshot.entity.e_flags", "eFlags").desc("Entity field `eFlags` (19-bit), absolute value after the delta");
    ENT_OTHER_ENTITY_NUM = int("quake3.svc.snapshot.entity.other_entity_num", "otherEntityNum").desc("Entity field `otherEntityNum` (10-bit), absolute value after the delta");
    ENT_WEAPON = int("quake3.svc.snapshot.entity.weapon", "weapon").desc("Entity field `weapon` (8-bit), absolute value after the delta");
    ENT_CLIENT_NUM = int("quake3.svc.snapshot.entity.client_num", "clientNum").desc("Entity field `clientNum` (8-bit), absolute value after the delta");
    ENT_ANGLES_1 = float("quake3.svc.snapshot.entity.angles_1", "angles[1]").desc("Entity field `angles[1]` (float), absolute value after the delta");
    ENT_POS_TR_DURATION = int("quake3.svc.snapshot.entity.pos_tr_duration", "pos.trDuration").desc("Entity field `pos.trDuration` (32-bit), absolute value after the delta");
    ENT_APOS_TR_TYPE = int("quake3.svc.snapshot.entity.apos_tr_type", "apos.trType").desc("Entity field `apos.trType` (8-bit), absolute value after the delta");
    ENT_ORIGIN_0 = float("quake3.svc.snapshot.entity.origin_0", "origin[0]").desc("Entity field `origin[0]` (float), absolute value after the delta");
    ENT_ORIGIN_1 = float("quake3.svc.snapshot.entity.origin_1", "origin[1]").desc("Entity field `origin[1]` (float), absolute value after the delta");
    ENT_ORIGIN_2 = float("quake3.svc.snapshot.entity.origin_2", "origin[2]").desc("Entity field `origin[2]` (float), absolute value after the delta");
    ENT_SOLID = int("quake3.svc.snapshot.entity.solid", "solid").desc("Entity field `solid` (24-bit), absolute value after the delta");
    ENT_POWERUPS = int("quake3.svc.snapshot.entity.powerups", "powerups").desc("Entity field `powerups` (16-bit), absolute value after the delta");
    ENT_MODELINDEX = int("quake3.svc.snapshot.entity.modelindex", "modelindex").desc("Entity field `modelindex` (8-bit), absolute value after the delta");
    ENT_OTHER_ENTITY_NUM2 = int("quake3.svc.snapshot.entity.other_entity_num2", "otherEntityNum2").desc("Entity field `otherEntityNum2` (10-bit), absolute value after the delta");
    ENT_LOOP_SOUND = int("quake3.svc.snapshot.entity.loop_sound", "loopSound").desc("Entity field `loopSound` (8-bit), absolute value after the delta");
    ENT_GENERIC1 = int("quake3.svc.snapshot.entity.generic1", "generic1").desc("Entity field `generic1` (8-bit), absolute value after the delta");
    ENT_ORIGIN2_2 = float("quake3.svc.snapshot.entity.origin2_2", "origin2[2]").desc("Entity field `origin2[2]` (float), absolute value after the delta");
    ENT_ORIGIN2_0 = float("quake3.svc.snapshot.entity.origin2_0", "origin2[0]").desc("Entity field `origin2[0]` (float), absolute value after the delta");
    ENT_ORIGIN2_1 = float("quake3.svc.snapshot.entity.origin2_1", "origin2[1]").desc("Entity field `origin2[1]` (float), absolute value after the delta");
    ENT_MODELINDEX2 = int("quake3.svc.snapshot.entity.modelindex2", "modelindex2").desc("Entity field `modelindex2` (8-bit), absolute value after the delta");
    ENT_ANGLES_0 = float("quake3.svc.snapshot.entity.angles_0", "angles[0]").desc("Entity field `angles[0]` (float), absolute value after the delta");
    ENT_TIME = int("quake3.svc.snapshot.entity.time", "time").desc("Entity field `time` (32-bit), absolute value after the delta");
    ENT_APOS_TR_TIME = int("quake3.svc.snapshot.entity.apos_tr_time", "apos.trTime").desc("Entity field `apos.trTime` (32-bit), absolute value after the delta");
    ENT_APOS_TR_DURATION = int("quake3.svc.snapshot.entity.apos_tr_duration", "apos.trDuration").desc("Entity field `apos.trDuration` (32-bit), absolute value after the delta");
    ENT_APOS_TR_BASE_2 = float("quake3.svc.snapshot.entity.apos_tr_base_2", "apos.trBase[2]").desc("Entity field `apos.trBase[2]` (float), absolute value after the delta");
    ENT_APOS_TR_DELTA_0 = float("quake3.svc.snapshot.entity.apos_tr_delta_0", "apos.trDelta[0]").desc("Entity field `apos.trDelta[0]` (float), absolute value after the delta");
    ENT_APOS_TR_DELTA_1 = float("quake3.svc.snapshot.entity.apos_tr_delta_1", "apos.trDelta[1]").desc("Entity field `apos.trDelta[1]` (float), absolute value after the delta");
    ENT_APOS_TR_DELTA_2 = float("quake3.svc.snapshot.entity.apos_tr_delta_2", "apos.trDelta[2]").desc("Entity field `apos.trDelta[2]` (float), absolute value after the delta");
    ENT_TIME2 = int("quake3.svc.snapshot.entity.time2", "time2").desc("Entity field `time2` (32-bit), absolute value after the delta");
    ENT_ANGLES_2 = float("quake3.svc.snapshot.entity.angles_2", "angles[2]").desc("Entity field `angles[2]` (float), absolute value after the delta");
    ENT_ANGLES2_0 = float("quake3.svc.snapshot.entity.angles2_0", "angles2[0]").desc("Entity field `angles2[0]` (float), absolute value after the delta");
    ENT_ANGLES2_2 = float("quake3.svc.snapshot.entity.angles2_2", "angles2[2]").desc("Entity field `angles2[2]` (float), absolute value after the delta");
    ENT_CONSTANT_LIGHT = int("quake3.svc.snapshot.entity.constant_light", "constantLight").desc("Entity field `constantLight` (32-bit), absolute value after the delta");
    ENT_FRAME = int("quake3.svc.snapshot.entity.frame", "frame").desc("Entity field `frame` (16-bit), absolute value after the delta");
    PS = group("quake3.svc.snapshot.ps", "Player state").desc("The player state after the delta; zero fields omitted");
    PS_COMMAND_TIME = int("quake3.svc.snapshot.ps.command_time", "commandTime").desc("Player state field `commandTime` (32-bit), absolute value after the delta");
    PS_ORIGIN_0 = float("quake3.svc.snapshot.ps.origin_0", "origin[0]").desc("Player state field `origin[0]` (float), absolute value after the delta");
    PS_ORIGIN_1 = float("quake3.svc.snapshot.ps.origin_1", "origin[1]").desc("Player state field `origin[1]` (float), absolute value after the delta");
    PS_BOB_CYCLE = int("quake3.svc.snapshot.ps.bob_cycle", "bobCycle").desc("Player state field `bobCycle` (8-bit), absolute value after the delta");
    PS_VELOCITY_0 = float("quake3.svc.snapshot.ps.velocity_0", "velocity[0]").desc("Player state field `velocity[0]` (float), absolute value after the delta");
    PS_VELOCITY_1 = float("quake3.svc.snapshot.ps.velocity_1", "velocity[1]").desc("Player state field `velocity[1]` (float), absolute value after the delta");
    PS_VIEWANGLES_1 = float("quake3.svc.snapshot.ps.viewangles_1", "viewangles[1]").desc("Player state field `viewangles[1]` (float), absolute value after the delta");
    PS_VIEWANGLES_0 = float("quake3.svc.snapshot.ps.viewangles_0", "viewangles[0]").desc("Player state field `viewangles[0]` (float), absolute value after the delta");
    PS_WEAPON_TIME = int("quake3.svc.snapshot.ps.weapon_time", "weaponTime").desc("Player state field `weaponTime` (-16-bit), absolute value after the delta");
    PS_ORIGIN_2 = float("quake3.svc.snapshot.ps.origin_2", "origin[2]").desc("Player state field `origin[2]` (float), absolute value after the delta");
    PS_VELOCITY_2 = float("quake3.svc.snapshot.ps.velocity_2", "velocity[2]").desc("Player state field `velocity[2]` (float), absolute value after the delta");
    PS_LEGS_TIMER = int("quake3.svc.snapshot.ps.legs_timer", "legsTimer").desc("Player state field `legsTimer` (8-bit), absolute value after the delta");
    PS_PM_TIME = int("quake3.svc.snapshot.ps.pm_time", "pm_time").desc("Player state field `pm_time` (-16-bit), absolute value after the delta");
    PS_EVENT_SEQUENCE = int("quake3.svc.snapshot.ps.event_sequence", "eventSequence").desc("Player state field `eventSequence` (16-bit), absolute value after the delta");
    PS_TORSO_ANIM = int("quake3.svc.snapshot.ps.torso_anim", "torsoAnim").desc("Player state field `torsoAnim` (8-bit), absolute value after the delta");
    PS_MOVEMENT_DIR = int("quake3.svc.snapshot.ps.movement_dir", "movementDir").desc("Player state field `movementDir` (4-bit), absolute value after the delta");
    PS_EVENTS_0 = int("quake3.svc.snapshot.ps.events_0", "events[0]").desc("Player state field `events[0]` (8-bit), absolute value after the delta");
    PS_LEGS_ANIM = int("quake3.svc.snapshot.ps.legs_anim", "legsAnim").desc("Player state field `legsAnim` (8-bit), absolute value after the delta");
    PS_EVENTS_1 = int("quake3.svc.snapshot.ps.events_1", "events[1]").desc("Player state field `events[1]` (8-bit), absolute value after the delta");
    PS_PM_FLAGS = int("quake3.svc.snapshot.ps.pm_flags", "pm_flags").desc("Player state field `pm_flags` (16-bit), absolute value after the delta");
    PS_GROUND_ENTITY_NUM = int("quake3.svc.snapshot.ps.ground_entity_num", "groundEntityNum").desc("Player state field `groundEntityNum` (10-bit), absolute value after the delta");
    PS_WEAPONSTATE = int("quake3.svc.snapshot.ps.weaponstate", "weaponstate").desc("Player state field `weaponstate` (4-bit), absolute value after the delta");
    PS_E_FLAGS = int("quake3.svc.snapshot.ps.e_flags", "eFlags").desc("Player state field `eFlags` (16-bit), absolute value after the delta");
    PS_EXTERNAL_EVENT = int("quake3.svc.snapshot.ps.external_event", "externalEvent").desc("Player state field `externalEvent` (10-bit), absolute value after the delta");
    PS_GRAVITY = int("quake3.svc.snapshot.ps.gravity", "gravity").desc("Player state field `gravity` (16-bit), absolute value after the delta");
    PS_SPEED = int("quake3.svc.snapshot.ps.speed", "speed").desc("Player state field `speed` (16-bit), absolute value after the delta");
    PS_DELTA_ANGLES_1 = int("quake3.svc.snapshot.ps.delta_angles_1", "delta_angles[1]").desc("Player state field `delta_angles[1]` (16-bit), absolute value after the delta");
    PS_EXTERNAL_EVENT_PARM = int("quake3.svc.snapshot.ps.external_event_parm", "externalEventParm").desc("Player state field `externalEventParm` (8-bit), absolute value after the delta");
    PS_VIEWHEIGHT = int("quake3.svc.snapshot.ps.viewheight", "viewheight").desc("Player state field `viewheight` (-8-bit), absolute value after the delta");
    PS_DAMAGE_EVENT = int("quake3.svc.snapshot.ps.damage_event", "damageEvent").desc("Player state field `damageEvent` (8-bit), absolute value after the delta");
    PS_DAMAGE_YAW = int("quake3.svc.snapshot.ps.damage_yaw", "damageYaw").desc("Player state field `damageYaw` (8-bit), absolute value after the delta");
    PS_DAMAGE_PITCH = int("quake3.svc.snapshot.ps.damage_pitch", "damagePitch").desc("Player state field `damagePitch` (8-bit), absolute value after the delta");
    PS_DAMAGE_COUNT = int("quake3.svc.snapshot.ps.damage_count", "damageCount").desc("Player state field `damageCount` (8-bit), absolute value after the delta");
    PS_GENERIC1 = int("quake3.svc.snapshot.ps.generic1", "generic1").desc("Player state field `generic1` (8-bit), absolute value after the delta");
    PS_PM_TYPE = int("quake3.svc.snapshot.ps.pm_type", "pm_type").desc("Player state field `pm_type` (8-bit), absolute value after the delta");
    PS_DELTA_ANGLES_0 = int("quake3.svc.snapshot.ps.delta_angles_0", "delta_angles[0]").desc("Player state field `delta_angles[0]` (16-bit), absolute value after the delta");
    PS_DELTA_ANGLES_2 = int("quake3.svc.snapshot.ps.delta_angles_2", "delta_angles[2]").desc("Player state field `delta_angles[2]` (16-bit), absolute value after the delta");
    PS_TORSO_TIMER = int("quake3.svc.snapshot.ps.torso_timer", "torsoTimer").desc("Player state field `torsoTimer` (12-bit), absolute value after the delta");
    PS_EVENT_PARMS_0 = int("quake3.svc.snapshot.ps.event_parms_0", "eventParms[0]").desc("Player state field `eventParms[0]` (8-bit), absolute value after the delta");
    PS_EVENT_PARMS_1 = int("quake3.svc.snapshot.ps.event_parms_1", "eventParms[1]").desc("Player state field `eventParms[1]` (8-bit), absolute value after the delta");
    PS_CLIENT_NUM = int("quake3.svc.snapshot.ps.client_num", "clientNum").desc("Player state field `clientNum` (8-bit), absolute value after the delta");
    PS_WEAPON = int("quake3.svc.snapshot.ps.weapon", "weapon").desc("Player state field `weapon` (5-bit), absolute value after the delta");
    PS_VIEWANGLES_2 = float("quake3.svc.snapshot.ps.viewangles_2", "viewangles[2]").desc("Player state field `viewangles[2]` (float), absolute value after the delta");
    PS_GRAPPLE_POINT_0 = float("quake3.svc.snapshot.ps.grapple_point_0", "grapplePoint[0]").desc("Player state field `grapplePoint[0]` (float), absolute value after the delta");
    PS_GRAPPLE_POINT_1 = float("quake3.svc.snapshot.ps.grapple_point_1", "grapplePoint[1]").desc("Player state field `grapplePoint[1]` (float), absolute value after the delta");
    PS_GRAPPLE_POINT_2 = float("quake3.svc.snapshot.ps.grapple_point_2", "grapplePoint[2]").desc("Player state field `grapplePoint[2]` (float), absolute value after the delta");
    PS_JUMPPAD_ENT = int("quake3.svc.snapshot.ps.jumppad_ent", "jumppad_ent").desc("Player state field `jumppad_ent` (10-bit), absolute value after the delta");
    PS_LOOP_SOUND = int("quake3.svc.snapshot.ps.loop_sound", "loopSound").desc("Player state field `loopSound` (16-bit), absolute value after the delta");
    PS_CHANGED = string("quake3.svc.snapshot.ps.changed", "Changed").repeated().desc("Fields changed by this delta");
    PS_STAT = group("quake3.svc.snapshot.ps.stat", "Stat").repeated().desc("stats[] element (0 health, 1 holdable, 3 weapons, 4 armor, 7 max health …)");
    PS_PERSISTANT = group("quake3.svc.snapshot.ps.persistant", "Persistant").repeated().desc("persistant[] element (0 score, 1 hits, 2 rank, 3 team …)");
    PS_AMMO = group("quake3.svc.snapshot.ps.ammo", "Ammo").repeated().desc("ammo[] element, by weapon number");
    PS_POWERUP = group("quake3.svc.snapshot.ps.powerup", "Powerup").repeated().desc("powerups[] element (expiry time)");
    PS_STAT_INDEX = uint("quake3.svc.snapshot.ps.stat.index", "Index").desc("Array element index");
    PS_STAT_VALUE = int("quake3.svc.snapshot.ps.stat.value", "Value").desc("Array element value");
    PS_PERSISTANT_INDEX = uint("quake3.svc.snapshot.ps.persistant.index", "Index").desc("Array element index");
    PS_PERSISTANT_VALUE = int("quake3.svc.snapshot.ps.persistant.value", "Value").desc("Array element value");
    PS_AMMO_INDEX = uint("quake3.svc.snapshot.ps.ammo.index", "Index").desc("Array element index");
    PS_AMMO_VALUE = int("quake3.svc.snapshot.ps.ammo.value", "Value").desc("Array element value");
    PS_POWERUP_INDEX = uint("quake3.svc.snapshot.ps.powerup.index", "Index").desc("Array element index");
    PS_POWERUP_VALUE = int("quake3.svc.snapshot.ps.powerup.value", "Value").desc("Array element value");
    PS_INCOMPLETE = boolean("quake3.svc.snapshot.ps.partial", "Partial").desc("Some fields have not been sent since the capture began (a reference snapshot was not captured): those are unknown and absent, never 0");

    // Client → server (ioquake3 code/server/sv_client.c `SV_ExecuteClientMessage`).
    CLC = group("quake3.clc", "Client message").desc("Client → server message body");
    CLC_SERVER_ID = int("quake3.clc.server_id", "Server id").desc("sv_serverid of the gamestate the client is on");
    CLC_MESSAGE_ACK = uint("quake3.clc.message_ack", "Message acknowledge").desc("Sequence of the last server message received");
    CLC_RELIABLE_ACK = uint("quake3.clc.reliable_ack", "Reliable acknowledge").desc("Number of the last server command received");
    CLC_COMMAND = group("quake3.clc.command", "Client command").repeated().desc("clc_clientCommand: a reliable command");
    CLC_CMD_SEQUENCE = uint("quake3.clc.command.sequence", "Sequence").desc("Reliable command number");
    CLC_CMD_TEXT = string("quake3.clc.command.text", "Text").desc("Command text (say, userinfo, cp, nextdl …)");
    CLC_CMD_NAME = string("quake3.clc.command.name", "Name").desc("Command word");
    CLC_CMD_MESSAGE = string("quake3.clc.command.message", "Message").desc("say / say_team / tell: the chat text");
    CLC_MOVE = group("quake3.clc.move", "Move").desc("clc_move / clc_moveNoDelta");
    CLC_MOVE_NO_DELTA = boolean("quake3.clc.move.no_delta", "No delta").desc("clc_moveNoDelta: asks for a non-delta snapshot");
    CLC_MOVE_COUNT = uint("quake3.clc.move.count", "Count").desc("Number of usercmds");
    CLC_MOVE_KEY = uint("quake3.clc.move.key", "Key").hex().desc("Base key: checksumFeed XOR messageAcknowledge XOR hash(acknowledged server command)");
    CLC_MOVE_KEY_RECOVERED = uint("quake3.clc.move.key_recovered_from", "Key recovered from").desc("Present when no gamestate was captured and the key's low 16 bits (or some of them, key_known_bits) were recovered: how many usercmd values the recovery used");
    CLC_MOVE_KEY_FIRST_PASS = boolean("quake3.clc.move.key_first_pass", "Key from the first pass").desc("Present (true) with key_recovered_from when the key's bits came from the first pass of -2, which recovered them over the whole capture");
    CLC_MOVE_KEY_BITS = uint("quake3.clc.move.key_known_bits", "Key bits known").desc("Present with key_recovered_from: 16 (every field de-keyed), 15 or 8 (forward, right, up and weapon de-keyed; angles and buttons still keyed)");
    USERCMD = group("quake3.clc.move.usercmd", "Usercmd").repeated().desc("One usercmd, absolute values");
    UC_SERVER_TIME = int("quake3.clc.move.usercmd.server_time", "Server time").unit("ms").desc("Command time");
    UC_PITCH = float("quake3.clc.move.usercmd.pitch", "Pitch").unit("°").desc("angles[0]");
    UC_YAW = float("quake3.clc.move.usercmd.yaw", "Yaw").unit("°").desc("angles[1]");
    UC_ROLL = float("quake3.clc.move.usercmd.roll", "Roll").unit("°").desc("angles[2]");
    UC_FORWARD = int("quake3.clc.move.usercmd.forward", "Forward").desc("forwardmove (−127…127)");
    UC_RIGHT = int("quake3.clc.move.usercmd.right", "Right").desc("rightmove");
    UC_UP = int("quake3.clc.move.usercmd.up", "Up").desc("upmove");
    UC_BUTTONS = uint("quake3.clc.move.usercmd.buttons", "Buttons").hex().desc("1 attack, 2 talk, 4 use holdable, 8 gesture, 16 walking …");
    UC_WEAPON = uint("quake3.clc.move.usercmd.weapon", "Weapon").desc("Selected weapon");
    UC_CHANGED = string("quake3.clc.move.usercmd.changed", "Changed").repeated().desc("Fields sent in this usercmd");
    UC_KEYED = string("quake3.clc.move.usercmd.keyed", "Still keyed").repeated().desc("Fields whose value is not shown: sent keyed with key bits not known (no gamestate captured and not yet recovered)");
    CLC_VOIP = group("quake3.clc.voip", "VoIP").repeated().valued(crate::tree::Kind::Enum).desc("clc_voip framing (ioquake3 flavour)");
}

/// The fields each message type's records can carry: a connectionless command its `oob` group,
/// a netchan datagram its header and the messages of its direction (`svc` from the server,
/// `clc` from the client; a datagram whose direction or flavour is not known yet, either).
pub static TYPES: crate::tree::TypeFields = crate::tree::TypeFields {
    common: &[],
    by_type: &[
        (
            &[
                "getchallenge",
                "challengeResponse",
                "connect",
                "connectResponse",
                "getinfo",
                "infoResponse",
                "getstatus",
                "statusResponse",
                "rcon",
                "print",
                "disconnect",
                "echo",
                "heartbeat",
                "getserversExtResponse",
                "getserversResponse",
                "getserversExt",
                "getservers",
                "getKeyAuthorize",
                "getIpAuthorize",
                "ipAuthorize",
                "keyAuthorize",
                "banUser",
                "getmotd",
                "motd",
                "oob",
                "oob_unknown",
            ],
            &["quake3.oob"],
        ),
        (&["fragment", "untrusted", "runt"], &["quake3.netchan"]),
        (
            &[
                "gamestate",
                "snapshot",
                "serverCommand",
                "download",
                "server",
            ],
            &["quake3.netchan", "quake3.svc"],
        ),
        (
            &["clientCommand", "move", "client"],
            &["quake3.netchan", "quake3.clc"],
        ),
        (
            &["keyed", "netchan"],
            &["quake3.netchan", "quake3.svc", "quake3.clc"],
        ),
    ],
};
