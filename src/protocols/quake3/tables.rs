//! Static tables of the Quake III protocol.
//!
//! Sources: ioquake/ioq3 code/qcommon/msg.c (`msg_hData`, `entityStateFields`,
//! `playerStateFields`), identical in id-Software/Quake-III-Arena code/qcommon/msg.c; reference
//! notes /work/shared/protocols/quake3.md Appendix A, §10.3 and §10.4.

/// The code of the NYT leaf in the static tree (Appendix A), never sent by the encoder.
pub static NYT_CODE: &str = "00000000100";

/// Symbol frequencies the static message Huffman tree is built from (`msg_hData`, ioq3 msg.c).
#[rustfmt::skip]
pub static MSG_HDATA: [u32; 256] = [
250315, 41193, 6292, 7106, 3730, 3750, 6110, 23283, 33317, 6950, 7838, 9714, 
9257, 17259, 3949, 1778, 8288, 1604, 1590, 1663, 1100, 1213, 1238, 1134, 
1749, 1059, 1246, 1149, 1273, 4486, 2805, 3472, 21819, 1159, 1670, 1066, 
1043, 1012, 1053, 1070, 1726, 888, 1180, 850, 960, 780, 1752, 3296, 
10630, 4514, 5881, 2685, 4650, 3837, 2093, 1867, 2584, 1949, 1972, 940, 
1134, 1788, 1670, 1206, 5719, 6128, 7222, 6654, 3710, 3795, 1492, 1524, 
2215, 1140, 1355, 971, 2180, 1248, 1328, 1195, 1770, 1078, 1264, 1266, 
1168, 965, 1155, 1186, 1347, 1228, 1529, 1600, 2617, 2048, 2546, 3275, 
2410, 3585, 2504, 2800, 2675, 6146, 3663, 2840, 14253, 3164, 2221, 1687, 
3208, 2739, 3512, 4796, 4091, 3515, 5288, 4016, 7937, 6031, 5360, 3924, 
4892, 3743, 4566, 4807, 5852, 6400, 6225, 8291, 23243, 7838, 7073, 8935, 
5437, 4483, 3641, 5256, 5312, 5328, 5370, 3492, 2458, 1694, 1821, 2121, 
1916, 1149, 1516, 1367, 1236, 1029, 1258, 1104, 1245, 1006, 1149, 1025, 
1241, 952, 1287, 997, 1713, 1009, 1187, 879, 1099, 929, 1078, 951, 
1656, 930, 1153, 1030, 1262, 1062, 1214, 1060, 1621, 930, 1106, 912, 
1034, 892, 1158, 990, 1175, 850, 1121, 903, 1087, 920, 1144, 1056, 
3462, 2240, 4397, 12136, 7758, 1345, 1307, 3278, 1950, 886, 1023, 1112, 
1077, 1042, 1061, 1071, 1484, 1001, 1096, 915, 1052, 995, 1070, 876, 
1111, 851, 1059, 805, 1112, 923, 1103, 817, 1899, 1872, 976, 841, 
1127, 956, 1159, 950, 7791, 954, 1289, 933, 1127, 3207, 1020, 927, 
1355, 768, 1040, 745, 952, 805, 1073, 740, 1013, 805, 1008, 796, 
996, 1057, 11457, 13504, ];
/// The static code of every byte (first bit sent first), reference Appendix A (computed there
/// with ioquake3's huffman.c from `MSG_HDATA`). The decoder builds its lookup table from these;
/// a test rebuilds them with the adaptive model fed `MSG_HDATA` and checks they agree.
#[rustfmt::skip]
pub static STATIC_CODES: [&str; 256] = [
"01", "11011", "0001001", "0011011", "10000101", "10001000", "0000100", "111111", "10101", "0010110", 
"1001011", "1101000", "1100100", "101101", "10011100", "001101010", "1010010", "000110100", "000011111", "000111111", 
"1011101110", "1100111111", "1101010001", "1100010011", "001011110", "1011000110", "1101010100", "1100011011", "1101011110", "11000010", 
"111100100", "00101011", "111011", "1100101100", "001000100", "1011001101", "1010001111", "1001111111", "1011000011", "1011001111", 
"001010010", "0011010110", "1100110000", "0010100000", "1000111001", "0000111101", "001011111", "00011110", "1110010", "11000011", 
"11110111", "111010011", "11001010", "10001101", "101100000", "100001101", "111000000", "100011110", "100110011", "1000100110", 
"1100010010", "001111010", "001000101", "1100111110", "11110011", "0000101", "0011111", "0010000", "10000100", "10001010", 
"000000010", "000011100", "101111001", "1100011000", "1110101101", "1000111011", "101110011", "1101010101", "1110001110", "1100110011", 
"001101001", "1011100100", "1101011010", "1101011011", "1100101110", "1000111010", "1100011110", "1100110001", "1110101100", "1101001101", 
"000011101", "000101010", "111000110", "101000001", "110101110", "00011011", "110011110", "00111100", "110101011", "111100011", 
"111010010", "0000110", "10000010", "111100101", "001110", "00010100", "101111010", "001000110", "00011001", "111100010", 
"00110000", "11001101", "10100001", "00110001", "11100010", "10011110", "1001101", "0000001", "11101000", "10011000", 
"11010010", "10000111", "11000101", "11001110", "11110110", "0001011", "0001000", "1010011", "111110", "1001010", 
"0011001", "1011111", "11110000", "11000001", "10000000", "11100001", "11100110", "11100111", "11101010", "00101110", 
"110100111", "001000111", "100000010", "101100100", "100011001", "1100011010", "000000011", "1110101111", "1101010000", "1010001010", 
"1101011000", "1011110000", "1101010011", "1001111100", "1100011100", "1010001001", "1101010010", "1000110000", "1101011111", "1001110110", 
"001010001", "1001111110", "1100110010", "0011010000", "1011101101", "1000001110", "1011100011", "1000101110", "000111001", "1000011000", 
"1100011101", "1010001011", "1101011001", "1011001100", "1101001100", "1011001010", "000111000", "1000001111", "1011110001", "0011110111", 
"1010001100", "0011010111", "1100011111", "1001100101", "1100101111", "0010100001", "1100000001", "0011110110", "1011100101", "1000000111", 
"1100011001", "1011000100", "00101010", "110000001", "10111010", "000001", "1001000", "1110001111", "1110000011", "00011101", 
"100011111", "0011010001", "1010001000", "1100000000", "1011100010", "1010001110", "1011001011", "1011100000", "000000000", "1001110111", 
"1011101100", "1000000110", "1011000010", "1001110100", "1011001110", "0010100111", "1011110110", "0010100110", "1011000111", "0001101010", 
"1011110111", "1000001100", "1011101111", "0001111100", "100010110", "100010010", "1001100100", "0001111101", "1100010000", "1000111000", 
"1100101101", "1000100111", "1001001", "1000110001", "1110000010", "1000011001", "1100010001", "00011000", "1010000001", "1000001101", 
"1110101110", "0000111100", "1010001101", "0000000011", "1000101111", "0001010111", "1011100001", "00000000101", "1010000000", "0001101011", 
"1001111101", "0001010110", "1001110101", "1011000101", "1111010", "001001", ];

use super::fields::*;
use crate::tree::FieldDef;

/// One delta-coded field: its tree definition, engine name and bit count (0 = float,
/// negative = signed).
pub struct WireField {
    pub def: &'static FieldDef,
    pub name: &'static str,
    pub bits: i32,
}

/// `entityStateFields` in wire order (ioq3 code/qcommon/msg.c; reference §10.3).
#[rustfmt::skip]
pub static ENTITY_FIELDS: [WireField; 51] = [
    WireField { def: &ENT_POS_TR_TIME, name: "pos.trTime", bits: 32 },
    WireField { def: &ENT_POS_TR_BASE_0, name: "pos.trBase[0]", bits: 0 },
    WireField { def: &ENT_POS_TR_BASE_1, name: "pos.trBase[1]", bits: 0 },
    WireField { def: &ENT_POS_TR_DELTA_0, name: "pos.trDelta[0]", bits: 0 },
    WireField { def: &ENT_POS_TR_DELTA_1, name: "pos.trDelta[1]", bits: 0 },
    WireField { def: &ENT_POS_TR_BASE_2, name: "pos.trBase[2]", bits: 0 },
    WireField { def: &ENT_APOS_TR_BASE_1, name: "apos.trBase[1]", bits: 0 },
    WireField { def: &ENT_POS_TR_DELTA_2, name: "pos.trDelta[2]", bits: 0 },
    WireField { def: &ENT_APOS_TR_BASE_0, name: "apos.trBase[0]", bits: 0 },
    WireField { def: &ENT_EVENT, name: "event", bits: 10 },
    WireField { def: &ENT_ANGLES2_1, name: "angles2[1]", bits: 0 },
    WireField { def: &ENT_E_TYPE, name: "eType", bits: 8 },
    WireField { def: &ENT_TORSO_ANIM, name: "torsoAnim", bits: 8 },
    WireField { def: &ENT_EVENT_PARM, name: "eventParm", bits: 8 },
    WireField { def: &ENT_LEGS_ANIM, name: "legsAnim", bits: 8 },
    WireField { def: &ENT_GROUND_ENTITY_NUM, name: "groundEntityNum", bits: 10 },
    WireField { def: &ENT_POS_TR_TYPE, name: "pos.trType", bits: 8 },
    WireField { def: &ENT_E_FLAGS, name: "eFlags", bits: 19 },
    WireField { def: &ENT_OTHER_ENTITY_NUM, name: "otherEntityNum", bits: 10 },
    WireField { def: &ENT_WEAPON, name: "weapon", bits: 8 },
    WireField { def: &ENT_CLIENT_NUM, name: "clientNum", bits: 8 },
    WireField { def: &ENT_ANGLES_1, name: "angles[1]", bits: 0 },
    WireField { def: &ENT_POS_TR_DURATION, name: "pos.trDuration", bits: 32 },
    WireField { def: &ENT_APOS_TR_TYPE, name: "apos.trType", bits: 8 },
    WireField { def: &ENT_ORIGIN_0, name: "origin[0]", bits: 0 },
    WireField { def: &ENT_ORIGIN_1, name: "origin[1]", bits: 0 },
    WireField { def: &ENT_ORIGIN_2, name: "origin[2]", bits: 0 },
    WireField { def: &ENT_SOLID, name: "solid", bits: 24 },
    WireField { def: &ENT_POWERUPS, name: "powerups", bits: 16 },
    WireField { def: &ENT_MODELINDEX, name: "modelindex", bits: 8 },
    WireField { def: &ENT_OTHER_ENTITY_NUM2, name: "otherEntityNum2", bits: 10 },
    WireField { def: &ENT_LOOP_SOUND, name: "loopSound", bits: 8 },
    WireField { def: &ENT_GENERIC1, name: "generic1", bits: 8 },
    WireField { def: &ENT_ORIGIN2_2, name: "origin2[2]", bits: 0 },
    WireField { def: &ENT_ORIGIN2_0, name: "origin2[0]", bits: 0 },
    WireField { def: &ENT_ORIGIN2_1, name: "origin2[1]", bits: 0 },
    WireField { def: &ENT_MODELINDEX2, name: "modelindex2", bits: 8 },
    WireField { def: &ENT_ANGLES_0, name: "angles[0]", bits: 0 },
    WireField { def: &ENT_TIME, name: "time", bits: 32 },
    WireField { def: &ENT_APOS_TR_TIME, name: "apos.trTime", bits: 32 },
    WireField { def: &ENT_APOS_TR_DURATION, name: "apos.trDuration", bits: 32 },
    WireField { def: &ENT_APOS_TR_BASE_2, name: "apos.trBase[2]", bits: 0 },
    WireField { def: &ENT_APOS_TR_DELTA_0, name: "apos.trDelta[0]", bits: 0 },
    WireField { def: &ENT_APOS_TR_DELTA_1, name: "apos.trDelta[1]", bits: 0 },
    WireField { def: &ENT_APOS_TR_DELTA_2, name: "apos.trDelta[2]", bits: 0 },
    WireField { def: &ENT_TIME2, name: "time2", bits: 32 },
    WireField { def: &ENT_ANGLES_2, name: "angles[2]", bits: 0 },
    WireField { def: &ENT_ANGLES2_0, name: "angles2[0]", bits: 0 },
    WireField { def: &ENT_ANGLES2_2, name: "angles2[2]", bits: 0 },
    WireField { def: &ENT_CONSTANT_LIGHT, name: "constantLight", bits: 32 },
    WireField { def: &ENT_FRAME, name: "frame", bits: 16 },
];

/// `playerStateFields` in wire order (ioq3 code/qcommon/msg.c; reference §10.4).
#[rustfmt::skip]
pub static PLAYER_FIELDS: [WireField; 48] = [
    WireField { def: &PS_COMMAND_TIME, name: "commandTime", bits: 32 },
    WireField { def: &PS_ORIGIN_0, name: "origin[0]", bits: 0 },
    WireField { def: &PS_ORIGIN_1, name: "origin[1]", bits: 0 },
    WireField { def: &PS_BOB_CYCLE, name: "bobCycle", bits: 8 },
    WireField { def: &PS_VELOCITY_0, name: "velocity[0]", bits: 0 },
    WireField { def: &PS_VELOCITY_1, name: "velocity[1]", bits: 0 },
    WireField { def: &PS_VIEWANGLES_1, name: "viewangles[1]", bits: 0 },
    WireField { def: &PS_VIEWANGLES_0, name: "viewangles[0]", bits: 0 },
    WireField { def: &PS_WEAPON_TIME, name: "weaponTime", bits: -16 },
    WireField { def: &PS_ORIGIN_2, name: "origin[2]", bits: 0 },
    WireField { def: &PS_VELOCITY_2, name: "velocity[2]", bits: 0 },
    WireField { def: &PS_LEGS_TIMER, name: "legsTimer", bits: 8 },
    WireField { def: &PS_PM_TIME, name: "pm_time", bits: -16 },
    WireField { def: &PS_EVENT_SEQUENCE, name: "eventSequence", bits: 16 },
    WireField { def: &PS_TORSO_ANIM, name: "torsoAnim", bits: 8 },
    WireField { def: &PS_MOVEMENT_DIR, name: "movementDir", bits: 4 },
    WireField { def: &PS_EVENTS_0, name: "events[0]", bits: 8 },
    WireField { def: &PS_LEGS_ANIM, name: "legsAnim", bits: 8 },
    WireField { def: &PS_EVENTS_1, name: "events[1]", bits: 8 },
    WireField { def: &PS_PM_FLAGS, name: "pm_flags", bits: 16 },
    WireField { def: &PS_GROUND_ENTITY_NUM, name: "groundEntityNum", bits: 10 },
    WireField { def: &PS_WEAPONSTATE, name: "weaponstate", bits: 4 },
    WireField { def: &PS_E_FLAGS, name: "eFlags", bits: 16 },
    WireField { def: &PS_EXTERNAL_EVENT, name: "externalEvent", bits: 10 },
    WireField { def: &PS_GRAVITY, name: "gravity", bits: 16 },
    WireField { def: &PS_SPEED, name: "speed", bits: 16 },
    WireField { def: &PS_DELTA_ANGLES_1, name: "delta_angles[1]", bits: 16 },
    WireField { def: &PS_EXTERNAL_EVENT_PARM, name: "externalEventParm", bits: 8 },
    WireField { def: &PS_VIEWHEIGHT, name: "viewheight", bits: -8 },
    WireField { def: &PS_DAMAGE_EVENT, name: "damageEvent", bits: 8 },
    WireField { def: &PS_DAMAGE_YAW, name: "damageYaw", bits: 8 },
    WireField { def: &PS_DAMAGE_PITCH, name: "damagePitch", bits: 8 },
    WireField { def: &PS_DAMAGE_COUNT, name: "damageCount", bits: 8 },
    WireField { def: &PS_GENERIC1, name: "generic1", bits: 8 },
    WireField { def: &PS_PM_TYPE, name: "pm_type", bits: 8 },
    WireField { def: &PS_DELTA_ANGLES_0, name: "delta_angles[0]", bits: 16 },
    WireField { def: &PS_DELTA_ANGLES_2, name: "delta_angles[2]", bits: 16 },
    WireField { def: &PS_TORSO_TIMER, name: "torsoTimer", bits: 12 },
    WireField { def: &PS_EVENT_PARMS_0, name: "eventParms[0]", bits: 8 },
    WireField { def: &PS_EVENT_PARMS_1, name: "eventParms[1]", bits: 8 },
    WireField { def: &PS_CLIENT_NUM, name: "clientNum", bits: 8 },
    WireField { def: &PS_WEAPON, name: "weapon", bits: 5 },
    WireField { def: &PS_VIEWANGLES_2, name: "viewangles[2]", bits: 0 },
    WireField { def: &PS_GRAPPLE_POINT_0, name: "grapplePoint[0]", bits: 0 },
    WireField { def: &PS_GRAPPLE_POINT_1, name: "grapplePoint[1]", bits: 0 },
    WireField { def: &PS_GRAPPLE_POINT_2, name: "grapplePoint[2]", bits: 0 },
    WireField { def: &PS_JUMPPAD_ENT, name: "jumppad_ent", bits: 10 },
    WireField { def: &PS_LOOP_SOUND, name: "loopSound", bits: 16 },
];

/// Name of a configstring index in the baseq3 layout (ioq3 code/game/bg_public.h and
/// code/qcommon/q_shared.h; reference §9.2). Mods may differ.
pub fn configstring_name(index: u32) -> &'static str {
    match index {
        0 => "serverinfo",
        1 => "systeminfo",
        2 => "music",
        3 => "message",
        4 => "motd",
        5 => "warmup",
        6 => "scores1",
        7 => "scores2",
        8 => "vote_time",
        9 => "vote_string",
        10 => "vote_yes",
        11 => "vote_no",
        12 | 13 => "team_vote_time",
        14 | 15 => "team_vote_string",
        16 | 17 => "team_vote_yes",
        18 | 19 => "team_vote_no",
        20 => "game_version",
        21 => "level_start_time",
        22 => "intermission",
        23 => "flag_status",
        24 => "shader_state",
        25 => "bot_info",
        27 => "items",
        32..=287 => "model",
        288..=543 => "sound",
        544..=607 => "player",
        608..=671 => "location",
        672..=735 => "particle",
        _ => "",
    }
}

/// Configstrings that hold info strings (`\key\value…`).
pub fn configstring_is_info(index: u32) -> bool {
    matches!(index, 0 | 1 | 544..=607)
}
