//! Every field the 3D GameStudio (Acknex) A5 and A6+ decoder emits, plus the DirectPlay 8 and
//! DirectPlay 4 wrapper layers it unwraps (their own root fields `dplay8` and `dplay4`).
//!
//! Sources: Conitec's A5 SDK Programmer's Manual p.12–14 (2002), the later `prog_cserver` manual
//! page, Microsoft [MC-DPL8R] 2.2, [MC-DPLHP], [MC-DPL4CS] 2.2.1, 2.2.6, 2.2.45 and Wireshark's
//! epan/dissectors/packet-dplay.c; see docs/protocols/gamestudio.md.

crate::field_defs! {
    ROOT = group("gamestudio", "3D GameStudio (Acknex) A5 and A6+");
    DIALECT = enumeration("gamestudio.dialect", "Dialect")
        .desc("Protocol dialect used for this datagram (5 = A5 2002 manual, 6 = A6+ later page); the meaning says how it was decided");
    DIRECTION = enumeration("gamestudio.direction", "Direction")
        .desc("0 = client → server (CLS_ table), 1 = server → client (SVC_ table); the meaning says how it was decided");
    POS_MODE = enumeration("gamestudio.pos_mode", "CPosition encoding")
        .desc("How CPosition values were read: 3 = packed 3-byte Position, 4 = 4-byte Fixed (pos_resolution is not on the wire)");
    DIALECT_BASIS = string("gamestudio.dialect_basis", "Dialect basis")
        .desc("How the dialect was decided (forced, sync constant, the only reading that parses, or undecided)");
    DIRECTION_BASIS = string("gamestudio.direction_basis", "Direction basis")
        .desc("How the direction was decided (the plumbing's port/content/first-sender rule, or which table the messages parse in)");
    POS_BASIS = string("gamestudio.pos_basis", "CPosition basis")
        .desc("How the CPosition encoding was decided");
    // One group per message kind, so that each kind is its own JSON key with one shape of
    // arguments; the arguments keep one name each (`gamestudio.msg.*`) for filters, and each
    // group holds the arguments its message can have, in every dialect (`msg.rs`, `P::next`
    // and the message's reader), so that its Parquet column has those and no others.
    CLS_FILL = group("gamestudio.cls_fill", "Message").repeated()
        .holds(&["gamestudio.msg.cmd"])
        .desc("A5 only: a one-byte filler; its children are the `gamestudio.msg.*` fields");
    CLS_JOIN = group("gamestudio.cls_join", "Message").repeated()
        .holds(&["gamestudio.msg.cmd", "gamestudio.msg.player_dpid", "gamestudio.msg.player_name", "gamestudio.msg.session_name"])
        .desc("A client joins: its DirectPlay id and player name; its children are the `gamestudio.msg.*` fields");
    CLS_CREATE = group("gamestudio.cls_create", "Message").repeated()
        .holds(&["gamestudio.msg.cmd", "gamestudio.msg.player_dpid", "gamestudio.msg.file_name", "gamestudio.msg.start", "gamestudio.msg.action_index", "gamestudio.msg.identifier"])
        .desc("A client asks the server to create an entity; its children are the `gamestudio.msg.*` fields");
    CLS_REMOVE = group("gamestudio.cls_remove", "Message").repeated()
        .holds(&["gamestudio.msg.cmd", "gamestudio.msg.entity_dpid", "gamestudio.msg.entity_index"])
        .desc("A client removes an entity; its children are the `gamestudio.msg.*` fields");
    CLS_PING = group("gamestudio.cls_ping", "Message").repeated()
        .holds(&["gamestudio.msg.cmd", "gamestudio.msg.player_dpid"])
        .desc("A client keep-alive; its children are the `gamestudio.msg.*` fields");
    CLS_LEVEL = group("gamestudio.cls_level", "Message").repeated()
        .holds(&["gamestudio.msg.cmd", "gamestudio.msg.player_dpid", "gamestudio.msg.level_name"])
        .desc("A client reports the level it loaded; its children are the `gamestudio.msg.*` fields");
    CLS_VAR = group("gamestudio.cls_var", "Message").repeated()
        .holds(&["gamestudio.msg.cmd", "gamestudio.msg.var_index", "gamestudio.msg.var_length", "gamestudio.msg.var_value"])
        .desc("A client sends a script variable; its children are the `gamestudio.msg.*` fields");
    CLS_STRING = group("gamestudio.cls_string", "Message").repeated()
        .holds(&["gamestudio.msg.cmd", "gamestudio.msg.string_index", "gamestudio.msg.text"])
        .desc("A client sends a script string; its children are the `gamestudio.msg.*` fields");
    CLS_SKILL = group("gamestudio.cls_skill", "Message").repeated()
        .holds(&["gamestudio.msg.cmd", "gamestudio.msg.entity_dpid", "gamestudio.msg.entity_index", "gamestudio.msg.struct_offset", "gamestudio.msg.struct_field", "gamestudio.msg.skill"])
        .desc("A client sends an entity skill; its children are the `gamestudio.msg.*` fields");
    CLS_SKILL3 = group("gamestudio.cls_skill3", "Message").repeated()
        .holds(&["gamestudio.msg.cmd", "gamestudio.msg.entity_dpid", "gamestudio.msg.entity_index", "gamestudio.msg.struct_offset", "gamestudio.msg.struct_field", "gamestudio.msg.skill"])
        .desc("A client sends three entity skills; its children are the `gamestudio.msg.*` fields");
    SVC_FILL = group("gamestudio.svc_fill", "Message").repeated()
        .holds(&["gamestudio.msg.cmd"])
        .desc("A5 only: a one-byte filler; its children are the `gamestudio.msg.*` fields");
    SVC_CREATE = group("gamestudio.svc_create", "Message").repeated()
        .holds(&["gamestudio.msg.cmd", "gamestudio.msg.entity_index", "gamestudio.msg.identifier"])
        .desc("The server creates an entity; its children are the `gamestudio.msg.*` fields");
    SVC_REMOVE = group("gamestudio.svc_remove", "Message").repeated()
        .holds(&["gamestudio.msg.cmd", "gamestudio.msg.entity_index"])
        .desc("The server removes an entity; its children are the `gamestudio.msg.*` fields");
    SVC_ENTSOUND = group("gamestudio.svc_entsound", "Message").repeated()
        .holds(&["gamestudio.msg.cmd", "gamestudio.msg.entity_index", "gamestudio.msg.sound_index", "gamestudio.msg.volume", "gamestudio.msg.sound_handle"])
        .desc("The server plays a sound on an entity; its children are the `gamestudio.msg.*` fields");
    SVC_EFFECT = group("gamestudio.svc_effect", "Message").repeated()
        .holds(&["gamestudio.msg.cmd", "gamestudio.msg.action_index", "gamestudio.msg.number", "gamestudio.msg.start", "gamestudio.msg.vel"])
        .desc("The server starts a particle effect; its children are the `gamestudio.msg.*` fields");
    SVC_INFO = group("gamestudio.svc_info", "Message").repeated()
        .holds(&["gamestudio.msg.cmd", "gamestudio.msg.sync", "gamestudio.msg.protocol_version", "gamestudio.msg.server_time", "gamestudio.msg.frame_time"])
        .desc("The server's protocol version and time; its children are the `gamestudio.msg.*` fields");
    SVC_VAR = group("gamestudio.svc_var", "Message").repeated()
        .holds(&["gamestudio.msg.cmd", "gamestudio.msg.var_index", "gamestudio.msg.var_length", "gamestudio.msg.var_value"])
        .desc("The server sends a script variable; its children are the `gamestudio.msg.*` fields");
    SVC_STRING = group("gamestudio.svc_string", "Message").repeated()
        .holds(&["gamestudio.msg.cmd", "gamestudio.msg.string_index", "gamestudio.msg.text"])
        .desc("The server sends a script string; its children are the `gamestudio.msg.*` fields");
    SVC_SKILL = group("gamestudio.svc_skill", "Message").repeated()
        .holds(&["gamestudio.msg.cmd", "gamestudio.msg.entity_index", "gamestudio.msg.struct_offset", "gamestudio.msg.struct_field", "gamestudio.msg.skill"])
        .desc("The server sends an entity skill; its children are the `gamestudio.msg.*` fields");
    SVC_SKILL3 = group("gamestudio.svc_skill3", "Message").repeated()
        .holds(&["gamestudio.msg.cmd", "gamestudio.msg.entity_index", "gamestudio.msg.struct_offset", "gamestudio.msg.struct_field", "gamestudio.msg.skill"])
        .desc("The server sends three entity skills; its children are the `gamestudio.msg.*` fields");
    SVC_LOCAL = group("gamestudio.svc_local", "Message").repeated()
        .holds(&["gamestudio.msg.cmd", "gamestudio.msg.entity_index", "gamestudio.msg.function_index"])
        .desc("A6+ only: the server runs a function on the client; its children are the `gamestudio.msg.*` fields");
    SVC_UPDATE1 = group("gamestudio.svc_update1", "Message").repeated()
        .holds(&["gamestudio.msg.cmd", "gamestudio.msg.params", "gamestudio.msg.entity_index", "gamestudio.msg.pos", "gamestudio.msg.pan", "gamestudio.msg.scale", "gamestudio.msg.file_name", "gamestudio.msg.frame", "gamestudio.msg.frame_fraction", "gamestudio.msg.flags", "gamestudio.msg.skin", "gamestudio.msg.ambient", "gamestudio.msg.albedo"])
        .desc("An entity update, parameter group 1; its children are the `gamestudio.msg.*` fields");
    SVC_UPDATE2 = group("gamestudio.svc_update2", "Message").repeated()
        .holds(&["gamestudio.msg.cmd", "gamestudio.msg.params", "gamestudio.msg.entity_index", "gamestudio.msg.ambient", "gamestudio.msg.albedo", "gamestudio.msg.skin", "gamestudio.msg.tilt", "gamestudio.msg.roll", "gamestudio.msg.next_frame", "gamestudio.msg.pos", "gamestudio.msg.pan", "gamestudio.msg.frame", "gamestudio.msg.frame_fraction", "gamestudio.msg.flags"])
        .desc("An entity update, parameter group 2; its children are the `gamestudio.msg.*` fields");
    SVC_UPDATE3 = group("gamestudio.svc_update3", "Message").repeated()
        .holds(&["gamestudio.msg.cmd", "gamestudio.msg.params", "gamestudio.msg.entity_index", "gamestudio.msg.lightrange", "gamestudio.msg.color", "gamestudio.msg.alpha", "gamestudio.msg.u", "gamestudio.msg.v", "gamestudio.msg.flags2"])
        .desc("An entity update, parameter group 3; its children are the `gamestudio.msg.*` fields");
    CMD = enumeration("gamestudio.msg.cmd", "Command").hex()
        .desc("Command byte (CLS_* towards the server, SVC_* towards the client)");
    PLAYER_DPID = uint("gamestudio.msg.player_dpid", "Player DPID").hex()
        .desc("A5 only: DirectPlay player id of the sending client (XOR-obfuscated by DirectPlay)");
    ENTITY_DPID = uint("gamestudio.msg.entity_dpid", "Entity DPID").hex()
        .desc("A5 only: entity id in cls_remove / cls_skill / cls_skill3");
    PLAYER_NAME = string("gamestudio.msg.player_name", "Player name").desc("CLS_JOIN player name");
    SESSION_NAME = string("gamestudio.msg.session_name", "Session name")
        .desc("CLS_JOIN session name of the newest manual revision (read when printable text follows the player name)");
    FILE_NAME = string("gamestudio.msg.file_name", "File name")
        .desc("Model/level file name (CLS_CREATE, update parameter 'type')");
    START = group("gamestudio.msg.start", "Start position").desc("Position Start[3]");
    START_X = float("gamestudio.msg.start.x", "Start X").unit("quants").desc("Packed Position: raw signed 24-bit / 128");
    START_Y = float("gamestudio.msg.start.y", "Start Y").unit("quants").desc("Packed Position: raw signed 24-bit / 128");
    START_Z = float("gamestudio.msg.start.z", "Start Z").unit("quants").desc("Packed Position: raw signed 24-bit / 128");
    ACTION_INDEX = int("gamestudio.msg.action_index", "Action index").desc("Index of an action/function in the script");
    IDENTIFIER = int("gamestudio.msg.identifier", "Identifier").desc("Identifier pairing CLS_CREATE with SVC_CREATE");
    ENTITY = int("gamestudio.msg.entity_index", "Entity index").desc("Server entity index");
    LEVEL_NAME = string("gamestudio.msg.level_name", "Level name").desc("CLS_LEVEL level file name");
    VAR_INDEX = int("gamestudio.msg.var_index", "Variable index").desc("Index of the script variable");
    VAR_LENGTH = int("gamestudio.msg.var_length", "Variable length").desc("Number of Fixed values that follow");
    VAR_VALUE = float("gamestudio.msg.var_value", "Value").repeated().desc("Fixed 22.10 value (raw / 1024)");
    STRING_INDEX = int("gamestudio.msg.string_index", "String index").desc("Index of the script string");
    TEXT = string("gamestudio.msg.text", "Text").desc("String contents");
    STRUCT_OFFSET = int("gamestudio.msg.struct_offset", "Struct offset")
        .desc("Byte offset of the value in the ENTITY struct");
    STRUCT_FIELD = string("gamestudio.msg.struct_field", "Struct field")
        .desc("A6+: the ENTITY member(s) at Struct_Offset (atypes.h layout; three for SKILL3); not given for A5 (A4_ENTITY head unknown)");
    SKILL = float("gamestudio.msg.skill", "Skill").repeated().desc("Fixed 22.10 value (raw / 1024)");
    SOUND_INDEX = int("gamestudio.msg.sound_index", "Sound index").desc("SVC_ENTSOUND sound index");
    VOLUME = float("gamestudio.msg.volume", "Volume").desc("Scale(2000): byte × 2000 / 255");
    SOUND_HANDLE = int("gamestudio.msg.sound_handle", "Sound handle").desc("SVC_ENTSOUND handle");
    NUMBER = int("gamestudio.msg.number", "Number").desc("SVC_EFFECT particle count");
    VEL = group("gamestudio.msg.vel", "Velocity").desc("Fixed Vel[3]");
    VEL_X = float("gamestudio.msg.vel.x", "Velocity X").desc("Fixed 22.10 (raw / 1024)");
    VEL_Y = float("gamestudio.msg.vel.y", "Velocity Y").desc("Fixed 22.10 (raw / 1024)");
    VEL_Z = float("gamestudio.msg.vel.z", "Velocity Z").desc("Fixed 22.10 (raw / 1024)");
    SYNC = uint("gamestudio.msg.sync", "Sync constant").hex().desc("A5 svc_info: always 0x11191218");
    PROTOCOL_VERSION = uint("gamestudio.msg.protocol_version", "Protocol version").desc("SVC_INFO protocol version byte");
    SERVER_TIME = float("gamestudio.msg.server_time", "Server time").desc("SVC_INFO Float server time");
    FRAME_TIME = float("gamestudio.msg.frame_time", "Frame time").desc("A5 svc_info Float frame time");
    FUNCTION_INDEX = int("gamestudio.msg.function_index", "Function index").desc("A6+ SVC_LOCAL function index");
    PARAMS = uint("gamestudio.msg.params", "Parameter bits").hex()
        .desc("SVC_UPDATE: bits 0..5 of the command byte; the meaning lists the parameters in wire order");
    POS = group("gamestudio.msg.pos", "Position").desc("Update parameter 'position': CPosition Pos[3]");
    POS_X = float("gamestudio.msg.pos.x", "Position X").unit("quants").desc("Packed (raw / 128) or Fixed (raw / 1024), see pos_mode");
    POS_Y = float("gamestudio.msg.pos.y", "Position Y").unit("quants").desc("Packed (raw / 128) or Fixed (raw / 1024), see pos_mode");
    POS_Z = float("gamestudio.msg.pos.z", "Position Z").unit("quants").desc("Packed (raw / 128) or Fixed (raw / 1024), see pos_mode");
    PAN = float("gamestudio.msg.pan", "Pan").unit("°").desc("Angle: raw u16 × 360 / 65535");
    TILT = float("gamestudio.msg.tilt", "Tilt").unit("°").desc("Angle: raw u16 × 360 / 65535");
    ROLL = float("gamestudio.msg.roll", "Roll").unit("°").desc("Angle: raw u16 × 360 / 65535");
    FRAME = int("gamestudio.msg.frame", "Frame").desc("Update parameter 'frame': Short Frame_Int");
    FRAME_FRACTION = float("gamestudio.msg.frame_fraction", "Frame fraction").desc("Scale(1) tweening factor");
    NEXT_FRAME = int("gamestudio.msg.next_frame", "Next frame").desc("Short tweening target frame");
    FLAGS = uint("gamestudio.msg.flags", "Flags").hex()
        .desc("Update parameter 'flags1' (A5: Byte; A6+: Short carrying flags 8..23)");
    FLAGS2 = uint("gamestudio.msg.flags2", "Flags 2").hex().desc("A5 update parameter 'flags2' (Byte)");
    SCALE = group("gamestudio.msg.scale", "Scale").desc("Short Scale[3], value = raw × 0.25");
    SCALE_X = float("gamestudio.msg.scale.x", "Scale X").desc("raw × 0.25");
    SCALE_Y = float("gamestudio.msg.scale.y", "Scale Y").desc("raw × 0.25");
    SCALE_Z = float("gamestudio.msg.scale.z", "Scale Z").desc("raw × 0.25");
    AMBIENT = float("gamestudio.msg.ambient", "Ambient").desc("Scale(100)");
    ALBEDO = float("gamestudio.msg.albedo", "Albedo").desc("Scale(255)");
    SKIN = uint("gamestudio.msg.skin", "Skin").desc("Byte skin number");
    LIGHTRANGE = float("gamestudio.msg.lightrange", "Light range").desc("Scale(2000)");
    COLOR = group("gamestudio.msg.color", "Colour").desc("Scale(255) × 3 (A5 order blue, green, red; A6+ red, green, blue)");
    RED = float("gamestudio.msg.color.red", "Red").desc("Scale(255)");
    GREEN = float("gamestudio.msg.color.green", "Green").desc("Scale(255)");
    BLUE = float("gamestudio.msg.color.blue", "Blue").desc("Scale(255)");
    ALPHA = float("gamestudio.msg.alpha", "Alpha").desc("Scale(100)");
    U = float("gamestudio.msg.u", "U").desc("UV offset (A5: Short / 16; A6+: Fixed / 1024)");
    V = float("gamestudio.msg.v", "V").desc("UV offset (A5: Short / 16; A6+: Fixed / 1024)");
    UNDECODED = bytes("gamestudio.undecoded", "Undecoded")
        .desc("Bytes after a message that could not be decoded");

    DP8 = group("dplay8", "DirectPlay 8");
    DP8_COMMAND = uint("dplay8.command", "Command").hex()
        .desc("bCommand flags ([MC-DPL8R] 2.2): 0x01 DATA (DFRAME), 0x80 CFRAME, …; the meaning names them");
    DP8_CONTROL = uint("dplay8.control", "Control").hex().desc("DFRAME bControl flags; the meaning names them");
    DP8_SEQ = uint("dplay8.seq", "Sequence").desc("bSeq: this frame's sequence number");
    DP8_NRCV = uint("dplay8.next_receive", "Next receive").desc("bNRcv: next sequence number expected");
    DP8_SACK1 = uint("dplay8.sack_mask1", "SACK mask 1").hex().desc("Low 32 bits of the SACK mask");
    DP8_SACK2 = uint("dplay8.sack_mask2", "SACK mask 2").hex().desc("High 32 bits of the SACK mask");
    DP8_SEND1 = uint("dplay8.send_mask1", "Send mask 1").hex().desc("Low 32 bits of the cancel-send mask");
    DP8_SEND2 = uint("dplay8.send_mask2", "Send mask 2").hex().desc("High 32 bits of the cancel-send mask");
    DP8_SESSION = uint("dplay8.session_id", "Session id").hex().desc("dwSessID (CONNECT/CONNECTED, keep-alive DFRAME)");
    DP8_EXT = enumeration("dplay8.ext_opcode", "Extended opcode").desc("CFRAME bExtOpCode");
    DP8_MSG_ID = uint("dplay8.msg_id", "Message id").desc("CFRAME bMsgID");
    DP8_RSP_ID = uint("dplay8.rsp_id", "Response id").desc("CFRAME bRspId");
    DP8_VERSION = uint("dplay8.version", "Protocol version").hex().desc("dwCurrentProtocolVersion (0x0001xxxx)");
    DP8_TIMESTAMP = uint("dplay8.timestamp", "Timestamp").unit("ms").desc("tTimestamp: sender tick count");
    DP8_SIGNATURE = uint("dplay8.signature", "Signature").hex()
        .desc("ullSignature of a signed session (present after CONNECTED_SIGNED)");
    DP8_CONNECT_SIG = uint("dplay8.connect_sig", "Connect cookie").hex().desc("CONNECTED_SIGNED ullConnectSig");
    DP8_SENDER_SECRET = uint("dplay8.sender_secret", "Sender secret").hex().desc("CONNECTED_SIGNED ullSenderSecret");
    DP8_RECEIVER_SECRET = uint("dplay8.receiver_secret", "Receiver secret").hex().desc("CONNECTED_SIGNED ullReceiverSecret");
    DP8_SIGNING_OPTS = enumeration("dplay8.signing_opts", "Signing options").desc("CONNECTED_SIGNED dwSigningOpts: 1 FAST, 2 FULL");
    DP8_ECHO_TS = uint("dplay8.echo_timestamp", "Echo timestamp").unit("ms").desc("CONNECTED_SIGNED dwEchoTimestamp");
    DP8_SACK_FLAGS = uint("dplay8.sack_flags", "SACK flags").hex().desc("SACK bFlags");
    DP8_RETRY = uint("dplay8.retry", "Retry").desc("SACK bRetry");
    DP8_NSEQ = uint("dplay8.next_seq", "Next send sequence").desc("SACK bNSeq");
    DP8_SUB = group("dplay8.coalesced", "Coalesced payload").repeated().holds(&["dplay8.core_message"])
        .desc("One sub-payload of a coalesced DFRAME ([MC-DPL8R] 2.2.3)");
    DP8_SUB_SIZE = uint("dplay8.coalesced.size", "Size").desc("11-bit payload size (bSize + BIG_1..3 bits)");
    DP8_SUB_CMD = uint("dplay8.coalesced.command", "Command").hex().desc("Coalesce header bCommand flags");
    DP8_PAYLOAD_LEN = uint("dplay8.payload_length", "Payload length").desc("Application payload bytes in this frame");
    DP8_CORE = bytes("dplay8.core_message", "Core message")
        .desc("Payload with the USER_1/USER_2 flag: DirectPlay session management, not Gamestudio data");
    DP8_FRAGMENT = bytes("dplay8.fragment", "Message fragment")
        .desc("Part of a message split over several DFRAMEs (not reassembled)");
    DP8_ENUM_CMD = enumeration("dplay8.enum_command", "Enumeration command")
        .desc("[MC-DPLHP]: 0x02 ENUM_QUERY, 0x03 ENUM_RESPONSE (lead byte 0x00)");
    DP8_ENUM_PAYLOAD = uint("dplay8.enum_payload", "Enumeration payload id").hex().desc("wEnumPayload");
    DP8_QUERY_TYPE = uint("dplay8.query_type", "Query type")
        .desc("ENUM_QUERY QueryType: 0x01 with ApplicationGUID, 0x02 without");
    DP8_APP_GUID = string("dplay8.application_guid", "Application GUID").desc("ApplicationGUID in ENUM_QUERY / ENUM_RESPONSE");
    DP8_INSTANCE_GUID = string("dplay8.instance_guid", "Instance GUID").desc("ENUM_RESPONSE ApplicationInstanceGUID");
    DP8_APP_PAYLOAD = bytes("dplay8.application_payload", "Application payload").desc("ENUM_QUERY application payload");
    DP8_REPLY_OFFSET = uint("dplay8.reply_offset", "Reply offset").desc("ENUM_RESPONSE offset of the reply after EnumPayload (0 = none)");
    DP8_RESPONSE_SIZE = uint("dplay8.response_size", "Response size").desc("ENUM_RESPONSE reply size");
    DP8_DESC_SIZE = uint("dplay8.app_desc_size", "Application description size").desc("ENUM_RESPONSE ApplicationDescSize");
    DP8_DESC_FLAGS = uint("dplay8.app_desc_flags", "Application description flags").hex().desc("ENUM_RESPONSE ApplicationDescFlags");
    DP8_MAX_PLAYERS = uint("dplay8.max_players", "Max players").desc("ENUM_RESPONSE MaxPlayers");
    DP8_CUR_PLAYERS = uint("dplay8.current_players", "Current players").desc("ENUM_RESPONSE CurrentPlayers");
    DP8_SESSION_NAME = string("dplay8.session_name", "Session name").desc("ENUM_RESPONSE SessionName (UTF-16LE, at SessionNameOffset after EnumPayload)");
    DP8_DATA = bytes("dplay8.data", "Data").desc("Remaining bytes of a DirectPlay 8 frame not decoded further");

    DP4 = group("dplay4", "DirectPlay 4");
    DP4_SIZE = uint("dplay4.size", "Size").desc("Low 20 bits of the first word: message size");
    DP4_TOKEN = enumeration("dplay4.token", "Token").hex().desc("High 12 bits: 0xFAB remote, 0xCAB forward, 0xBAB server");
    DP4_FAMILY = uint("dplay4.sockaddr_family", "Address family").desc("SOCKADDR_IN family (2)");
    DP4_PORT = uint("dplay4.sockaddr_port", "Port").desc("SOCKADDR_IN port (network order)");
    DP4_ADDR = string("dplay4.sockaddr_address", "Address").desc("SOCKADDR_IN IPv4 address");
    DP4_SIGNATURE = string("dplay4.signature", "Signature").desc("'play' on system messages");
    DP4_VERSION = uint("dplay4.version", "Version").desc("System message protocol version");
    DP4_COMMAND = enumeration("dplay4.command", "Command").desc("System message command ([MC-DPL4CS] 2.2.6)");
    DP4_ID_FROM = uint("dplay4.id_from", "From player").hex().desc("Player message idFrom");
    DP4_ID_TO = uint("dplay4.id_to", "To player").hex().desc("Player message idTo");
    DP4_APP_GUID = string("dplay4.application_guid", "Application GUID").desc("ENUMSESSIONS ApplicationGuid ([MC-DPL4CS] 2.2.29)");
    DP4_PASSWORD_OFFSET = uint("dplay4.password_offset", "Password offset").desc("ENUMSESSIONS PasswordOffset");
    DP4_ENUM_FLAGS = uint("dplay4.enum_flags", "Enumeration flags").hex().desc("ENUMSESSIONS Flags (0x1 available, 0x2 all, 0x40 password required)");
    DP4_BODY = bytes("dplay4.body", "Body").desc("System message body (not decoded)");
}

/// The fields each message type's records can carry (`Flow::show` names a record after its
/// first message that is not a fill, parsing every buffer in one direction; a DirectPlay type
/// whose buffers named no message keeps the wrapper's name).
pub static TYPES: crate::tree::TypeFields = crate::tree::TypeFields {
    common: &[],
    by_type: &[
        (
            &["CLS_*"],
            &[
                "gamestudio.dialect",
                "gamestudio.dialect_basis",
                "gamestudio.direction",
                "gamestudio.direction_basis",
                "gamestudio.cls_fill",
                "gamestudio.cls_join",
                "gamestudio.cls_create",
                "gamestudio.cls_remove",
                "gamestudio.cls_ping",
                "gamestudio.cls_level",
                "gamestudio.cls_var",
                "gamestudio.cls_string",
                "gamestudio.cls_skill",
                "gamestudio.cls_skill3",
                "gamestudio.undecoded",
                "dplay8",
                "dplay4",
            ],
        ),
        (
            &["SVC_*"],
            &[
                "gamestudio.dialect",
                "gamestudio.dialect_basis",
                "gamestudio.direction",
                "gamestudio.direction_basis",
                "gamestudio.pos_mode",
                "gamestudio.pos_basis",
                "gamestudio.svc_fill",
                "gamestudio.svc_create",
                "gamestudio.svc_remove",
                "gamestudio.svc_entsound",
                "gamestudio.svc_effect",
                "gamestudio.svc_info",
                "gamestudio.svc_var",
                "gamestudio.svc_string",
                "gamestudio.svc_skill",
                "gamestudio.svc_skill3",
                "gamestudio.svc_local",
                "gamestudio.svc_update1",
                "gamestudio.svc_update2",
                "gamestudio.svc_update3",
                "gamestudio.undecoded",
                "dplay8",
                "dplay4",
            ],
        ),
        // Buffers that named no message: fills, an unknown first byte, nothing left.
        (
            &["fill", "empty", "DP8 DATA", "DP8 fragment", "DP4 player"],
            &[
                "gamestudio.dialect",
                "gamestudio.dialect_basis",
                "gamestudio.direction",
                "gamestudio.direction_basis",
                "gamestudio.cls_fill",
                "gamestudio.svc_fill",
                "gamestudio.undecoded",
                "dplay8",
                "dplay4",
            ],
        ),
        (&["DP8 *"], &["dplay8"]),
        (&["DP4 *"], &["dplay4"]),
    ],
};
