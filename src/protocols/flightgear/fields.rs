//! Every field the FlightGear multiplayer protocol decoder emits.
//!
//! Layouts and meanings: FlightGear 2020.3 `src/MultiPlayer/mpmessages.hxx` (`T_MsgHdr`,
//! `T_ChatMsg`, `T_PositionMsg`) and `multiplaymgr.cxx` (`FGMultiplayMgr::ProcessPosMsg`,
//! `SendMyPosition`, the id table `sIdPropertyList`); fgms `src/server/fg_server.cxx` for the
//! header words it rewrites.

crate::field_defs! {
    ROOT = group("flightgear", "FlightGear multiplayer protocol");

    // Header, `T_MsgHdr` (32 bytes)
    MAGIC = enumeration("flightgear.magic", "Magic")
        .hex()
        .desc("0x46474653 \"FGFS\" from clients and fgms to clients; 0x53464746 \"SFGF\" between fgms relays and to crossfeed listeners");
    VERSION = uint("flightgear.version", "Protocol version")
        .hex()
        .desc("Always 0x00010001 (1.1); unchanged by the 2017.2 property encoding v2");
    MSG_ID = enumeration("flightgear.msg_id", "Message id")
        .desc("1 CHAT_MSG (legacy chat), 7 POS_DATA (position and properties), 9 PING / 10 PONG (fgms 0.13+); 2-6 and 8 obsolete; other numbers are shown as they are");
    MSG_LEN = uint("flightgear.msg_len", "Message length")
        .unit("bytes")
        .desc("Total length including the 32-byte header; FlightGear drops a datagram whose length differs");
    RANGE_WORD = uint("flightgear.range_word", "Range / reply address word")
        .nests()
        .hex()
        .desc("Header word at offset 16: requested range in nm (FlightGear 2017.2+), 0 from older senders, rewritten by some fgms versions (see its children)");
    RANGE_NM = uint("flightgear.range_word.range_nm", "Requested range")
        .unit("nm")
        .desc("Visibility range the sender asks fgms for (low 16 bits; high 16 bits when fgms 0.13+ forwarded the word byte-swapped)");
    REPLY_ADDRESS = string("flightgear.range_word.reply_address", "Reply address")
        .desc("IPv4 address of the original sender written by fgms 0.11-0.12.0 (the word's octets in reverse)");
    REPLY_PORT = uint("flightgear.reply_port", "Reply port")
        .desc("0 from FlightGear; the sender's UDP port in packets forwarded by fgms 0.11-0.12.x");
    CALLSIGN = string("flightgear.callsign", "Callsign")
        .desc("Sender's callsign, at most 7 characters, NUL-terminated in 8 bytes");

    // Legacy chat, `T_ChatMsg` (MsgId 1)
    CHAT = string("flightgear.chat", "Chat text")
        .desc("Text of a legacy chat message (MsgId 1), up to the first NUL");

    // Position, `T_PositionMsg` (MsgId 7), 200 bytes
    POSITION = group("flightgear.position", "Position");
    MODEL = string("flightgear.position.model", "Model")
        .desc("Model path of the sender's aircraft (/sim/model/path), e.g. Aircraft/c172p/Models/c172p.xml");
    TIME = float("flightgear.position.time", "Time")
        .unit("s")
        .desc("Sender time stamp: the MP protocol clock (2018.1+) or simulation time (older)");
    LAG = float("flightgear.position.lag", "Lag")
        .unit("s")
        .desc("Sender's send period, 1 / tx-rate-hz");
    ECEF = group("flightgear.position.ecef", "ECEF position")
        .desc("Earth-centred, earth-fixed WGS-84 position");
    ECEF_X = float("flightgear.position.ecef.x", "X").unit("m");
    ECEF_Y = float("flightgear.position.ecef.y", "Y").unit("m");
    ECEF_Z = float("flightgear.position.ecef.z", "Z").unit("m");
    ORIENT = group("flightgear.position.orientation", "Orientation (angle-axis)")
        .desc("Rotation from the ECEF frame to the body frame as an angle-axis vector: the direction is the axis, the length the angle in radians");
    ORIENT_X = float("flightgear.position.orientation.x", "X").unit("rad");
    ORIENT_Y = float("flightgear.position.orientation.y", "Y").unit("rad");
    ORIENT_Z = float("flightgear.position.orientation.z", "Z").unit("rad");
    LIN_VEL = group("flightgear.position.linear_velocity", "Linear velocity")
        .desc("Body-frame velocity u (forward), v (right), w (down), times /sim/speed-up");
    LIN_VEL_X = float("flightgear.position.linear_velocity.x", "U").unit("m/s");
    LIN_VEL_Y = float("flightgear.position.linear_velocity.y", "V").unit("m/s");
    LIN_VEL_Z = float("flightgear.position.linear_velocity.z", "W").unit("m/s");
    ANG_VEL = group("flightgear.position.angular_velocity", "Angular velocity")
        .desc("Body rates p (roll), q (pitch), r (yaw)");
    ANG_VEL_X = float("flightgear.position.angular_velocity.x", "P").unit("rad/s");
    ANG_VEL_Y = float("flightgear.position.angular_velocity.y", "Q").unit("rad/s");
    ANG_VEL_Z = float("flightgear.position.angular_velocity.z", "R").unit("rad/s");
    LIN_ACC = group("flightgear.position.linear_accel", "Linear acceleration")
        .desc("Body-frame linear acceleration (FlightGear sends zeros)");
    LIN_ACC_X = float("flightgear.position.linear_accel.x", "X").unit("m/s²");
    LIN_ACC_Y = float("flightgear.position.linear_accel.y", "Y").unit("m/s²");
    LIN_ACC_Z = float("flightgear.position.linear_accel.z", "Z").unit("m/s²");
    ANG_ACC = group("flightgear.position.angular_accel", "Angular acceleration")
        .desc("Angular acceleration (FlightGear sends zeros)");
    ANG_ACC_X = float("flightgear.position.angular_accel.x", "X").unit("rad/s²");
    ANG_ACC_Y = float("flightgear.position.angular_accel.y", "Y").unit("rad/s²");
    ANG_ACC_Z = float("flightgear.position.angular_accel.z", "Z").unit("rad/s²");
    PAD = uint("flightgear.position.pad", "Pad")
        .hex()
        .desc("0 from a protocol-1 sender, 0x1FACE002 (V2_PAD_MAGIC) from a protocol-2 sender, anything else from a pre-1.9.1 client");
    GEODETIC = group("flightgear.position.geodetic", "Geodetic position (derived)")
        .desc("WGS-84 latitude, longitude and height computed from the ECEF position");
    LATITUDE = float("flightgear.position.geodetic.latitude", "Latitude")
        .unit("°")
        .desc("Derived: geodetic latitude, north positive");
    LONGITUDE = float("flightgear.position.geodetic.longitude", "Longitude")
        .unit("°")
        .desc("Derived: longitude, east positive");
    ALTITUDE_FT = float("flightgear.position.geodetic.altitude_ft", "Altitude")
        .unit("ft")
        .desc("Derived: height above the WGS-84 ellipsoid in feet");
    ALTITUDE_M = float("flightgear.position.geodetic.altitude_m", "Altitude")
        .unit("m")
        .desc("Derived: height above the WGS-84 ellipsoid in metres");
    ATTITUDE = group("flightgear.position.attitude", "Attitude (derived)")
        .desc("Heading, pitch and roll computed from the orientation at the geodetic position");
    HEADING = float("flightgear.position.attitude.heading", "Heading")
        .unit("°")
        .desc("Derived: true heading, 0 to 360");
    PITCH = float("flightgear.position.attitude.pitch", "Pitch")
        .unit("°")
        .desc("Derived: pitch, nose up positive");
    ROLL = float("flightgear.position.attitude.roll", "Roll")
        .unit("°")
        .desc("Derived: roll, right wing down positive");

    // Property section (`ProcessPosMsg`)
    PROPERTIES = group("flightgear.properties", "Properties")
        .desc("The property elements after the position block, each decoded by its id");
    PROPERTY = group("flightgear.properties.property", "Properties by path")
        .map()
        .desc("Every property element in wire order as an id and its value; JSON writes one object keyed by path, `{\"sim/multiplay/chat\": \"Hello\", …}` (a bit of a bool block is one property too)");
    PROP_ID = enumeration("flightgear.properties.property.id", "Id")
        .desc("Property id of the FlightGear 2020.3 table (`multiplaymgr.cxx` `sIdPropertyList`), named by the property's path; the table gives its declared type, `flightgear.properties.forms` its wire form. The JSON key of the value that follows it");
    PROP_VALUE = any("flightgear.properties.property.value", "Value")
        .desc("The value, typed by the id's declared type: a JSON integer for INT, a JSON float for FLOAT (short floats already scaled), true/false for BOOL, text for STRING");
    PROP_FORMS = string("flightgear.properties.forms", "Wire forms")
        .desc("The wire form of each element, one character per element in the order of `property`: `s` short (protocol 2: id16 + int16, scaled by the id's TransmitAs, or id16 + length16 + a compact string), `v` v1 (id32, then the value by the declared type: int32, float32, or a string of one word per character), `b` a bit of a bool block");
    BOOL_BLOCK = group("flightgear.properties.bool_block", "Bool block")
        .repeated()
        .desc("Block of 31 generic bools (ids 11000, 11040, 11080): bit i is property id + i");
    BOOL_BLOCK_ID = uint("flightgear.properties.bool_block.id", "Block id");
    BOOL_BLOCK_MASK = uint("flightgear.properties.bool_block.mask", "Bits")
        .hex()
        .desc("Bit i (least significant first) is the value of property block id + i; bit 31 unused");
    PROPS_UNDECODED = bytes("flightgear.properties.undecoded", "Not decodable")
        .desc("Rest of the property section after an unknown id (FlightGear abandons it too) or an unusable legacy layout");

    // Anything else
    DATA = bytes("flightgear.data", "Data")
        .desc("Body of an obsolete or unknown message id, or of a message too short for its layout");
    TRAILING = bytes("flightgear.trailing", "Trailing bytes")
        .desc("Bytes after the element that ends the message, or beyond the message length");
}
