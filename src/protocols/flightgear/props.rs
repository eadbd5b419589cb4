//! The property id table of FlightGear 2020.3 (`sIdPropertyList`, 420 entries).
//!
//! Source: FlightGear `src/MultiPlayer/multiplaymgr.cxx`, array `sIdPropertyList`, tag
//! `version/2020.3.11` (commit c060800fed65ce9502a9dfad46cccf59c941362b; byte-identical on the
//! `release/2020.3` head and on `next` of 2021-09), as restated in the reference notes
//! (`flightgear.md` §8). Columns: id, property path (relative to the sender's property root),
//! declared SimGear type, and the `TransmitAs` encoding a protocol-2 sender uses. The one id
//! added after 2020.3 (13003, FlightGear `next`) is kept apart in [`LATER`].
//!
//! The size of a property element on the wire is known only from this table, so the walk of the
//! property section depends on it entirely (`flightgear.md` §5.1).

/// Declared property type; the numbers are SimGear's `simgear::props::Type` (`props.hxx`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PropType {
    Bool = 2,
    Int = 3,
    Float = 5,
    Str = 7,
}

impl PropType {
    pub fn name(self) -> &'static str {
        match self {
            PropType::Bool => "BOOL",
            PropType::Int => "INT",
            PropType::Float => "FLOAT",
            PropType::Str => "STRING",
        }
    }
}

/// `TransmissionType` of FlightGear 2017.2+: how a protocol-2 sender encodes the property.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tx {
    /// `TT_ASIS`: the v1 form of the declared type (or a compact v2 string for strings).
    AsIs,
    /// `TT_INT`: a full 32-bit integer (v1 form).
    Int,
    /// `TT_SHORTINT`: id and int16 value in one word.
    ShortInt,
    /// `TT_SHORT_FLOAT_NORM`: int16 / 32767.
    ShortFloatNorm,
    /// `TT_SHORT_FLOAT_1`: int16 / 10.
    ShortFloat1,
    /// `TT_SHORT_FLOAT_2`: int16 / 100 (no property of the 2020.3 table uses it).
    ShortFloat2,
    /// `TT_SHORT_FLOAT_3`: int16 / 1000.
    ShortFloat3,
    /// `TT_SHORT_FLOAT_4`: int16 / 10000.
    ShortFloat4,
    /// `TT_BOOLARRAY`: one bit of a 31-bit block (11000, 11040, 11080).
    BoolArray,
    /// `TT_NOSEND`: never sent by a protocol-2 sender.
    NoSend,
}

impl Tx {
    /// The divisor of a scaled short float, `None` for the other encodings.
    pub fn short_float_divisor(self) -> Option<f64> {
        match self {
            Tx::ShortFloatNorm => Some(32767.0),
            Tx::ShortFloat1 => Some(10.0),
            Tx::ShortFloat2 => Some(100.0),
            Tx::ShortFloat3 => Some(1000.0),
            Tx::ShortFloat4 => Some(10000.0),
            _ => None,
        }
    }
}

/// One row of the table.
#[derive(Debug)]
pub struct PropDef {
    pub id: u16,
    pub path: &'static str,
    pub ty: PropType,
    pub tx: Tx,
}

const fn p(id: u16, path: &'static str, ty: PropType, tx: Tx) -> PropDef {
    PropDef { id, path, ty, tx }
}

/// The property id, or `None` when neither table knows it.
pub fn lookup(id: u32) -> Option<&'static PropDef> {
    let id = u16::try_from(id).ok()?;
    let find = |t: &'static [PropDef]| t.binary_search_by_key(&id, |d| d.id).ok().map(|i| &t[i]);
    find(&TABLE).or_else(|| find(&LATER))
}

/// Whether `def` comes from [`LATER`] rather than the 2020.3 table.
pub fn is_later(def: &PropDef) -> bool {
    LATER.iter().any(|d| d.id == def.id)
}

/// Ids added to FlightGear after 2020.3 (`next`, 2024-era copy; reference §9): decoded so that a
/// newer sender's packets do not stop the walk, flagged with a note.
pub static LATER: [PropDef; 1] = [p(
    13003,
    "instrumentation/transponder/mach-number",
    Float,
    ShortFloat4,
)];

use PropType::{Bool, Float, Int, Str};
use Tx::{AsIs, BoolArray, Int as TxInt, NoSend, ShortFloat1, ShortFloat3, ShortFloat4};
use Tx::{ShortFloatNorm, ShortInt};

/// FlightGear 2020.3 `sIdPropertyList`, sorted by id (the order of the source array).
pub static TABLE: [PropDef; 420] = [
    p(10, "sim/multiplay/protocol-version", Int, ShortInt),
    p(
        100,
        "surface-positions/left-aileron-pos-norm",
        Float,
        ShortFloatNorm,
    ),
    p(
        101,
        "surface-positions/right-aileron-pos-norm",
        Float,
        ShortFloatNorm,
    ),
    p(
        102,
        "surface-positions/elevator-pos-norm",
        Float,
        ShortFloatNorm,
    ),
    p(
        103,
        "surface-positions/rudder-pos-norm",
        Float,
        ShortFloatNorm,
    ),
    p(
        104,
        "surface-positions/flap-pos-norm",
        Float,
        ShortFloatNorm,
    ),
    p(
        105,
        "surface-positions/speedbrake-pos-norm",
        Float,
        ShortFloatNorm,
    ),
    p(106, "gear/tailhook/position-norm", Float, ShortFloatNorm),
    p(107, "gear/launchbar/position-norm", Float, ShortFloatNorm),
    p(108, "gear/launchbar/state", Str, AsIs),
    p(
        109,
        "gear/launchbar/holdback-position-norm",
        Float,
        ShortFloatNorm,
    ),
    p(110, "canopy/position-norm", Float, ShortFloatNorm),
    p(
        111,
        "surface-positions/wing-pos-norm",
        Float,
        ShortFloatNorm,
    ),
    p(
        112,
        "surface-positions/wing-fold-pos-norm",
        Float,
        ShortFloatNorm,
    ),
    p(120, "gear/launchbar/state-value", Int, NoSend),
    p(200, "gear/gear[0]/compression-norm", Float, ShortFloatNorm),
    p(201, "gear/gear[0]/position-norm", Float, ShortFloatNorm),
    p(210, "gear/gear[1]/compression-norm", Float, ShortFloatNorm),
    p(211, "gear/gear[1]/position-norm", Float, ShortFloatNorm),
    p(220, "gear/gear[2]/compression-norm", Float, ShortFloatNorm),
    p(221, "gear/gear[2]/position-norm", Float, ShortFloatNorm),
    p(230, "gear/gear[3]/compression-norm", Float, ShortFloatNorm),
    p(231, "gear/gear[3]/position-norm", Float, ShortFloatNorm),
    p(240, "gear/gear[4]/compression-norm", Float, ShortFloatNorm),
    p(241, "gear/gear[4]/position-norm", Float, ShortFloatNorm),
    p(300, "engines/engine[0]/n1", Float, ShortFloat1),
    p(301, "engines/engine[0]/n2", Float, ShortFloat1),
    p(302, "engines/engine[0]/rpm", Float, ShortFloat1),
    p(310, "engines/engine[1]/n1", Float, ShortFloat1),
    p(311, "engines/engine[1]/n2", Float, ShortFloat1),
    p(312, "engines/engine[1]/rpm", Float, ShortFloat1),
    p(320, "engines/engine[2]/n1", Float, ShortFloat1),
    p(321, "engines/engine[2]/n2", Float, ShortFloat1),
    p(322, "engines/engine[2]/rpm", Float, ShortFloat1),
    p(330, "engines/engine[3]/n1", Float, ShortFloat1),
    p(331, "engines/engine[3]/n2", Float, ShortFloat1),
    p(332, "engines/engine[3]/rpm", Float, ShortFloat1),
    p(340, "engines/engine[4]/n1", Float, ShortFloat1),
    p(341, "engines/engine[4]/n2", Float, ShortFloat1),
    p(342, "engines/engine[4]/rpm", Float, ShortFloat1),
    p(350, "engines/engine[5]/n1", Float, ShortFloat1),
    p(351, "engines/engine[5]/n2", Float, ShortFloat1),
    p(352, "engines/engine[5]/rpm", Float, ShortFloat1),
    p(360, "engines/engine[6]/n1", Float, ShortFloat1),
    p(361, "engines/engine[6]/n2", Float, ShortFloat1),
    p(362, "engines/engine[6]/rpm", Float, ShortFloat1),
    p(370, "engines/engine[7]/n1", Float, ShortFloat1),
    p(371, "engines/engine[7]/n2", Float, ShortFloat1),
    p(372, "engines/engine[7]/rpm", Float, ShortFloat1),
    p(380, "engines/engine[8]/n1", Float, ShortFloat1),
    p(381, "engines/engine[8]/n2", Float, ShortFloat1),
    p(382, "engines/engine[8]/rpm", Float, ShortFloat1),
    p(390, "engines/engine[9]/n1", Float, ShortFloat1),
    p(391, "engines/engine[9]/n2", Float, ShortFloat1),
    p(392, "engines/engine[9]/rpm", Float, ShortFloat1),
    p(800, "rotors/main/rpm", Float, ShortFloat1),
    p(801, "rotors/tail/rpm", Float, ShortFloat1),
    p(810, "rotors/main/blade[0]/position-deg", Float, ShortFloat3),
    p(811, "rotors/main/blade[1]/position-deg", Float, ShortFloat3),
    p(812, "rotors/main/blade[2]/position-deg", Float, ShortFloat3),
    p(813, "rotors/main/blade[3]/position-deg", Float, ShortFloat3),
    p(820, "rotors/main/blade[0]/flap-deg", Float, ShortFloat3),
    p(821, "rotors/main/blade[1]/flap-deg", Float, ShortFloat3),
    p(822, "rotors/main/blade[2]/flap-deg", Float, ShortFloat3),
    p(823, "rotors/main/blade[3]/flap-deg", Float, ShortFloat3),
    p(830, "rotors/tail/blade[0]/position-deg", Float, ShortFloat3),
    p(831, "rotors/tail/blade[1]/position-deg", Float, ShortFloat3),
    p(900, "sim/hitches/aerotow/tow/length", Float, AsIs),
    p(901, "sim/hitches/aerotow/tow/elastic-constant", Float, AsIs),
    p(
        902,
        "sim/hitches/aerotow/tow/weight-per-m-kg-m",
        Float,
        AsIs,
    ),
    p(903, "sim/hitches/aerotow/tow/dist", Float, AsIs),
    p(
        904,
        "sim/hitches/aerotow/tow/connected-to-property-node",
        Bool,
        AsIs,
    ),
    p(
        905,
        "sim/hitches/aerotow/tow/connected-to-ai-or-mp-callsign",
        Str,
        AsIs,
    ),
    p(906, "sim/hitches/aerotow/tow/brake-force", Float, AsIs),
    p(907, "sim/hitches/aerotow/tow/end-force-x", Float, AsIs),
    p(908, "sim/hitches/aerotow/tow/end-force-y", Float, AsIs),
    p(909, "sim/hitches/aerotow/tow/end-force-z", Float, AsIs),
    p(930, "sim/hitches/aerotow/is-slave", Bool, AsIs),
    p(
        931,
        "sim/hitches/aerotow/speed-in-tow-direction",
        Float,
        AsIs,
    ),
    p(932, "sim/hitches/aerotow/open", Bool, AsIs),
    p(933, "sim/hitches/aerotow/local-pos-x", Float, AsIs),
    p(934, "sim/hitches/aerotow/local-pos-y", Float, AsIs),
    p(935, "sim/hitches/aerotow/local-pos-z", Float, AsIs),
    p(1001, "controls/flight/slats", Float, ShortFloat4),
    p(1002, "controls/flight/speedbrake", Float, ShortFloat4),
    p(1003, "controls/flight/spoilers", Float, ShortFloat4),
    p(1004, "controls/gear/gear-down", Float, ShortFloat4),
    p(1005, "controls/lighting/nav-lights", Float, ShortFloat3),
    p(
        1006,
        "controls/armament/station[0]/jettison-all",
        Bool,
        ShortInt,
    ),
    p(1100, "sim/model/variant", Int, AsIs),
    p(1101, "sim/model/livery/file", Str, AsIs),
    p(1200, "environment/wildfire/data", Str, AsIs),
    p(1201, "environment/contrail", Int, ShortInt),
    p(1300, "tanker", Int, ShortInt),
    p(1400, "scenery/events", Str, AsIs),
    p(
        1500,
        "instrumentation/transponder/transmitted-id",
        Int,
        ShortInt,
    ),
    p(1501, "instrumentation/transponder/altitude", Int, AsIs),
    p(1502, "instrumentation/transponder/ident", Bool, ShortInt),
    p(
        1503,
        "instrumentation/transponder/inputs/mode",
        Int,
        ShortInt,
    ),
    p(
        1504,
        "instrumentation/transponder/ground-bit",
        Bool,
        ShortInt,
    ),
    p(
        1505,
        "instrumentation/transponder/airspeed-kt",
        Int,
        ShortInt,
    ),
    p(10001, "sim/multiplay/transmission-freq-hz", Str, NoSend),
    p(10002, "sim/multiplay/chat", Str, AsIs),
    p(10100, "sim/multiplay/generic/string[0]", Str, AsIs),
    p(10101, "sim/multiplay/generic/string[1]", Str, AsIs),
    p(10102, "sim/multiplay/generic/string[2]", Str, AsIs),
    p(10103, "sim/multiplay/generic/string[3]", Str, AsIs),
    p(10104, "sim/multiplay/generic/string[4]", Str, AsIs),
    p(10105, "sim/multiplay/generic/string[5]", Str, AsIs),
    p(10106, "sim/multiplay/generic/string[6]", Str, AsIs),
    p(10107, "sim/multiplay/generic/string[7]", Str, AsIs),
    p(10108, "sim/multiplay/generic/string[8]", Str, AsIs),
    p(10109, "sim/multiplay/generic/string[9]", Str, AsIs),
    p(10110, "sim/multiplay/generic/string[10]", Str, AsIs),
    p(10111, "sim/multiplay/generic/string[11]", Str, AsIs),
    p(10112, "sim/multiplay/generic/string[12]", Str, AsIs),
    p(10113, "sim/multiplay/generic/string[13]", Str, AsIs),
    p(10114, "sim/multiplay/generic/string[14]", Str, AsIs),
    p(10115, "sim/multiplay/generic/string[15]", Str, AsIs),
    p(10116, "sim/multiplay/generic/string[16]", Str, AsIs),
    p(10117, "sim/multiplay/generic/string[17]", Str, AsIs),
    p(10118, "sim/multiplay/generic/string[18]", Str, AsIs),
    p(10119, "sim/multiplay/generic/string[19]", Str, AsIs),
    p(10200, "sim/multiplay/generic/float[0]", Float, AsIs),
    p(10201, "sim/multiplay/generic/float[1]", Float, AsIs),
    p(10202, "sim/multiplay/generic/float[2]", Float, AsIs),
    p(10203, "sim/multiplay/generic/float[3]", Float, AsIs),
    p(10204, "sim/multiplay/generic/float[4]", Float, AsIs),
    p(10205, "sim/multiplay/generic/float[5]", Float, AsIs),
    p(10206, "sim/multiplay/generic/float[6]", Float, AsIs),
    p(10207, "sim/multiplay/generic/float[7]", Float, AsIs),
    p(10208, "sim/multiplay/generic/float[8]", Float, AsIs),
    p(10209, "sim/multiplay/generic/float[9]", Float, AsIs),
    p(10210, "sim/multiplay/generic/float[10]", Float, AsIs),
    p(10211, "sim/multiplay/generic/float[11]", Float, AsIs),
    p(10212, "sim/multiplay/generic/float[12]", Float, AsIs),
    p(10213, "sim/multiplay/generic/float[13]", Float, AsIs),
    p(10214, "sim/multiplay/generic/float[14]", Float, AsIs),
    p(10215, "sim/multiplay/generic/float[15]", Float, AsIs),
    p(10216, "sim/multiplay/generic/float[16]", Float, AsIs),
    p(10217, "sim/multiplay/generic/float[17]", Float, AsIs),
    p(10218, "sim/multiplay/generic/float[18]", Float, AsIs),
    p(10219, "sim/multiplay/generic/float[19]", Float, AsIs),
    p(10220, "sim/multiplay/generic/float[20]", Float, AsIs),
    p(10221, "sim/multiplay/generic/float[21]", Float, AsIs),
    p(10222, "sim/multiplay/generic/float[22]", Float, AsIs),
    p(10223, "sim/multiplay/generic/float[23]", Float, AsIs),
    p(10224, "sim/multiplay/generic/float[24]", Float, AsIs),
    p(10225, "sim/multiplay/generic/float[25]", Float, AsIs),
    p(10226, "sim/multiplay/generic/float[26]", Float, AsIs),
    p(10227, "sim/multiplay/generic/float[27]", Float, AsIs),
    p(10228, "sim/multiplay/generic/float[28]", Float, AsIs),
    p(10229, "sim/multiplay/generic/float[29]", Float, AsIs),
    p(10230, "sim/multiplay/generic/float[30]", Float, AsIs),
    p(10231, "sim/multiplay/generic/float[31]", Float, AsIs),
    p(10232, "sim/multiplay/generic/float[32]", Float, AsIs),
    p(10233, "sim/multiplay/generic/float[33]", Float, AsIs),
    p(10234, "sim/multiplay/generic/float[34]", Float, AsIs),
    p(10235, "sim/multiplay/generic/float[35]", Float, AsIs),
    p(10236, "sim/multiplay/generic/float[36]", Float, AsIs),
    p(10237, "sim/multiplay/generic/float[37]", Float, AsIs),
    p(10238, "sim/multiplay/generic/float[38]", Float, AsIs),
    p(10239, "sim/multiplay/generic/float[39]", Float, AsIs),
    p(10300, "sim/multiplay/generic/int[0]", Int, AsIs),
    p(10301, "sim/multiplay/generic/int[1]", Int, AsIs),
    p(10302, "sim/multiplay/generic/int[2]", Int, AsIs),
    p(10303, "sim/multiplay/generic/int[3]", Int, AsIs),
    p(10304, "sim/multiplay/generic/int[4]", Int, AsIs),
    p(10305, "sim/multiplay/generic/int[5]", Int, AsIs),
    p(10306, "sim/multiplay/generic/int[6]", Int, AsIs),
    p(10307, "sim/multiplay/generic/int[7]", Int, AsIs),
    p(10308, "sim/multiplay/generic/int[8]", Int, AsIs),
    p(10309, "sim/multiplay/generic/int[9]", Int, AsIs),
    p(10310, "sim/multiplay/generic/int[10]", Int, AsIs),
    p(10311, "sim/multiplay/generic/int[11]", Int, AsIs),
    p(10312, "sim/multiplay/generic/int[12]", Int, AsIs),
    p(10313, "sim/multiplay/generic/int[13]", Int, AsIs),
    p(10314, "sim/multiplay/generic/int[14]", Int, AsIs),
    p(10315, "sim/multiplay/generic/int[15]", Int, AsIs),
    p(10316, "sim/multiplay/generic/int[16]", Int, AsIs),
    p(10317, "sim/multiplay/generic/int[17]", Int, AsIs),
    p(10318, "sim/multiplay/generic/int[18]", Int, AsIs),
    p(10319, "sim/multiplay/generic/int[19]", Int, AsIs),
    p(10500, "sim/multiplay/generic/short[0]", Int, ShortInt),
    p(10501, "sim/multiplay/generic/short[1]", Int, ShortInt),
    p(10502, "sim/multiplay/generic/short[2]", Int, ShortInt),
    p(10503, "sim/multiplay/generic/short[3]", Int, ShortInt),
    p(10504, "sim/multiplay/generic/short[4]", Int, ShortInt),
    p(10505, "sim/multiplay/generic/short[5]", Int, ShortInt),
    p(10506, "sim/multiplay/generic/short[6]", Int, ShortInt),
    p(10507, "sim/multiplay/generic/short[7]", Int, ShortInt),
    p(10508, "sim/multiplay/generic/short[8]", Int, ShortInt),
    p(10509, "sim/multiplay/generic/short[9]", Int, ShortInt),
    p(10510, "sim/multiplay/generic/short[10]", Int, ShortInt),
    p(10511, "sim/multiplay/generic/short[11]", Int, ShortInt),
    p(10512, "sim/multiplay/generic/short[12]", Int, ShortInt),
    p(10513, "sim/multiplay/generic/short[13]", Int, ShortInt),
    p(10514, "sim/multiplay/generic/short[14]", Int, ShortInt),
    p(10515, "sim/multiplay/generic/short[15]", Int, ShortInt),
    p(10516, "sim/multiplay/generic/short[16]", Int, ShortInt),
    p(10517, "sim/multiplay/generic/short[17]", Int, ShortInt),
    p(10518, "sim/multiplay/generic/short[18]", Int, ShortInt),
    p(10519, "sim/multiplay/generic/short[19]", Int, ShortInt),
    p(10520, "sim/multiplay/generic/short[20]", Int, ShortInt),
    p(10521, "sim/multiplay/generic/short[21]", Int, ShortInt),
    p(10522, "sim/multiplay/generic/short[22]", Int, ShortInt),
    p(10523, "sim/multiplay/generic/short[23]", Int, ShortInt),
    p(10524, "sim/multiplay/generic/short[24]", Int, ShortInt),
    p(10525, "sim/multiplay/generic/short[25]", Int, ShortInt),
    p(10526, "sim/multiplay/generic/short[26]", Int, ShortInt),
    p(10527, "sim/multiplay/generic/short[27]", Int, ShortInt),
    p(10528, "sim/multiplay/generic/short[28]", Int, ShortInt),
    p(10529, "sim/multiplay/generic/short[29]", Int, ShortInt),
    p(10530, "sim/multiplay/generic/short[30]", Int, ShortInt),
    p(10531, "sim/multiplay/generic/short[31]", Int, ShortInt),
    p(10532, "sim/multiplay/generic/short[32]", Int, ShortInt),
    p(10533, "sim/multiplay/generic/short[33]", Int, ShortInt),
    p(10534, "sim/multiplay/generic/short[34]", Int, ShortInt),
    p(10535, "sim/multiplay/generic/short[35]", Int, ShortInt),
    p(10536, "sim/multiplay/generic/short[36]", Int, ShortInt),
    p(10537, "sim/multiplay/generic/short[37]", Int, ShortInt),
    p(10538, "sim/multiplay/generic/short[38]", Int, ShortInt),
    p(10539, "sim/multiplay/generic/short[39]", Int, ShortInt),
    p(10540, "sim/multiplay/generic/short[40]", Int, ShortInt),
    p(10541, "sim/multiplay/generic/short[41]", Int, ShortInt),
    p(10542, "sim/multiplay/generic/short[42]", Int, ShortInt),
    p(10543, "sim/multiplay/generic/short[43]", Int, ShortInt),
    p(10544, "sim/multiplay/generic/short[44]", Int, ShortInt),
    p(10545, "sim/multiplay/generic/short[45]", Int, ShortInt),
    p(10546, "sim/multiplay/generic/short[46]", Int, ShortInt),
    p(10547, "sim/multiplay/generic/short[47]", Int, ShortInt),
    p(10548, "sim/multiplay/generic/short[48]", Int, ShortInt),
    p(10549, "sim/multiplay/generic/short[49]", Int, ShortInt),
    p(10550, "sim/multiplay/generic/short[50]", Int, ShortInt),
    p(10551, "sim/multiplay/generic/short[51]", Int, ShortInt),
    p(10552, "sim/multiplay/generic/short[52]", Int, ShortInt),
    p(10553, "sim/multiplay/generic/short[53]", Int, ShortInt),
    p(10554, "sim/multiplay/generic/short[54]", Int, ShortInt),
    p(10555, "sim/multiplay/generic/short[55]", Int, ShortInt),
    p(10556, "sim/multiplay/generic/short[56]", Int, ShortInt),
    p(10557, "sim/multiplay/generic/short[57]", Int, ShortInt),
    p(10558, "sim/multiplay/generic/short[58]", Int, ShortInt),
    p(10559, "sim/multiplay/generic/short[59]", Int, ShortInt),
    p(10560, "sim/multiplay/generic/short[60]", Int, ShortInt),
    p(10561, "sim/multiplay/generic/short[61]", Int, ShortInt),
    p(10562, "sim/multiplay/generic/short[62]", Int, ShortInt),
    p(10563, "sim/multiplay/generic/short[63]", Int, ShortInt),
    p(10564, "sim/multiplay/generic/short[64]", Int, ShortInt),
    p(10565, "sim/multiplay/generic/short[65]", Int, ShortInt),
    p(10566, "sim/multiplay/generic/short[66]", Int, ShortInt),
    p(10567, "sim/multiplay/generic/short[67]", Int, ShortInt),
    p(10568, "sim/multiplay/generic/short[68]", Int, ShortInt),
    p(10569, "sim/multiplay/generic/short[69]", Int, ShortInt),
    p(10570, "sim/multiplay/generic/short[70]", Int, ShortInt),
    p(10571, "sim/multiplay/generic/short[71]", Int, ShortInt),
    p(10572, "sim/multiplay/generic/short[72]", Int, ShortInt),
    p(10573, "sim/multiplay/generic/short[73]", Int, ShortInt),
    p(10574, "sim/multiplay/generic/short[74]", Int, ShortInt),
    p(10575, "sim/multiplay/generic/short[75]", Int, ShortInt),
    p(10576, "sim/multiplay/generic/short[76]", Int, ShortInt),
    p(10577, "sim/multiplay/generic/short[77]", Int, ShortInt),
    p(10578, "sim/multiplay/generic/short[78]", Int, ShortInt),
    p(10579, "sim/multiplay/generic/short[79]", Int, ShortInt),
    p(11000, "sim/multiplay/generic/bool[0]", Bool, BoolArray),
    p(11001, "sim/multiplay/generic/bool[1]", Bool, BoolArray),
    p(11002, "sim/multiplay/generic/bool[2]", Bool, BoolArray),
    p(11003, "sim/multiplay/generic/bool[3]", Bool, BoolArray),
    p(11004, "sim/multiplay/generic/bool[4]", Bool, BoolArray),
    p(11005, "sim/multiplay/generic/bool[5]", Bool, BoolArray),
    p(11006, "sim/multiplay/generic/bool[6]", Bool, BoolArray),
    p(11007, "sim/multiplay/generic/bool[7]", Bool, BoolArray),
    p(11008, "sim/multiplay/generic/bool[8]", Bool, BoolArray),
    p(11009, "sim/multiplay/generic/bool[9]", Bool, BoolArray),
    p(11010, "sim/multiplay/generic/bool[10]", Bool, BoolArray),
    p(11011, "sim/multiplay/generic/bool[11]", Bool, BoolArray),
    p(11012, "sim/multiplay/generic/bool[12]", Bool, BoolArray),
    p(11013, "sim/multiplay/generic/bool[13]", Bool, BoolArray),
    p(11014, "sim/multiplay/generic/bool[14]", Bool, BoolArray),
    p(11015, "sim/multiplay/generic/bool[15]", Bool, BoolArray),
    p(11016, "sim/multiplay/generic/bool[16]", Bool, BoolArray),
    p(11017, "sim/multiplay/generic/bool[17]", Bool, BoolArray),
    p(11018, "sim/multiplay/generic/bool[18]", Bool, BoolArray),
    p(11019, "sim/multiplay/generic/bool[19]", Bool, BoolArray),
    p(11020, "sim/multiplay/generic/bool[20]", Bool, BoolArray),
    p(11021, "sim/multiplay/generic/bool[21]", Bool, BoolArray),
    p(11022, "sim/multiplay/generic/bool[22]", Bool, BoolArray),
    p(11023, "sim/multiplay/generic/bool[23]", Bool, BoolArray),
    p(11024, "sim/multiplay/generic/bool[24]", Bool, BoolArray),
    p(11025, "sim/multiplay/generic/bool[25]", Bool, BoolArray),
    p(11026, "sim/multiplay/generic/bool[26]", Bool, BoolArray),
    p(11027, "sim/multiplay/generic/bool[27]", Bool, BoolArray),
    p(11028, "sim/multiplay/generic/bool[28]", Bool, BoolArray),
    p(11029, "sim/multiplay/generic/bool[29]", Bool, BoolArray),
    p(11030, "sim/multiplay/generic/bool[30]", Bool, BoolArray),
    p(11040, "sim/multiplay/generic/bool[31]", Bool, BoolArray),
    p(11041, "sim/multiplay/generic/bool[32]", Bool, BoolArray),
    p(11042, "sim/multiplay/generic/bool[33]", Bool, BoolArray),
    p(11043, "sim/multiplay/generic/bool[34]", Bool, BoolArray),
    p(11044, "sim/multiplay/generic/bool[35]", Bool, BoolArray),
    p(11045, "sim/multiplay/generic/bool[36]", Bool, BoolArray),
    p(11046, "sim/multiplay/generic/bool[37]", Bool, BoolArray),
    p(11047, "sim/multiplay/generic/bool[38]", Bool, BoolArray),
    p(11048, "sim/multiplay/generic/bool[39]", Bool, BoolArray),
    p(11049, "sim/multiplay/generic/bool[40]", Bool, BoolArray),
    p(11050, "sim/multiplay/generic/bool[41]", Bool, BoolArray),
    p(11051, "sim/multiplay/generic/bool[91]", Bool, BoolArray),
    p(11052, "sim/multiplay/generic/bool[42]", Bool, BoolArray),
    p(11053, "sim/multiplay/generic/bool[43]", Bool, BoolArray),
    p(11054, "sim/multiplay/generic/bool[44]", Bool, BoolArray),
    p(11055, "sim/multiplay/generic/bool[45]", Bool, BoolArray),
    p(11056, "sim/multiplay/generic/bool[46]", Bool, BoolArray),
    p(11057, "sim/multiplay/generic/bool[47]", Bool, BoolArray),
    p(11058, "sim/multiplay/generic/bool[48]", Bool, BoolArray),
    p(11059, "sim/multiplay/generic/bool[49]", Bool, BoolArray),
    p(11060, "sim/multiplay/generic/bool[50]", Bool, BoolArray),
    p(11061, "sim/multiplay/generic/bool[51]", Bool, BoolArray),
    p(11062, "sim/multiplay/generic/bool[52]", Bool, BoolArray),
    p(11063, "sim/multiplay/generic/bool[53]", Bool, BoolArray),
    p(11064, "sim/multiplay/generic/bool[54]", Bool, BoolArray),
    p(11065, "sim/multiplay/generic/bool[55]", Bool, BoolArray),
    p(11066, "sim/multiplay/generic/bool[56]", Bool, BoolArray),
    p(11067, "sim/multiplay/generic/bool[57]", Bool, BoolArray),
    p(11068, "sim/multiplay/generic/bool[58]", Bool, BoolArray),
    p(11069, "sim/multiplay/generic/bool[59]", Bool, BoolArray),
    p(11070, "sim/multiplay/generic/bool[60]", Bool, BoolArray),
    p(11080, "sim/multiplay/generic/bool[61]", Bool, BoolArray),
    p(11081, "sim/multiplay/generic/bool[62]", Bool, BoolArray),
    p(11082, "sim/multiplay/generic/bool[63]", Bool, BoolArray),
    p(11083, "sim/multiplay/generic/bool[64]", Bool, BoolArray),
    p(11084, "sim/multiplay/generic/bool[65]", Bool, BoolArray),
    p(11085, "sim/multiplay/generic/bool[66]", Bool, BoolArray),
    p(11086, "sim/multiplay/generic/bool[67]", Bool, BoolArray),
    p(11087, "sim/multiplay/generic/bool[68]", Bool, BoolArray),
    p(11088, "sim/multiplay/generic/bool[69]", Bool, BoolArray),
    p(11089, "sim/multiplay/generic/bool[70]", Bool, BoolArray),
    p(11090, "sim/multiplay/generic/bool[71]", Bool, BoolArray),
    p(11091, "sim/multiplay/generic/bool[92]", Bool, BoolArray),
    p(11092, "sim/multiplay/generic/bool[72]", Bool, BoolArray),
    p(11093, "sim/multiplay/generic/bool[73]", Bool, BoolArray),
    p(11094, "sim/multiplay/generic/bool[74]", Bool, BoolArray),
    p(11095, "sim/multiplay/generic/bool[75]", Bool, BoolArray),
    p(11096, "sim/multiplay/generic/bool[76]", Bool, BoolArray),
    p(11097, "sim/multiplay/generic/bool[77]", Bool, BoolArray),
    p(11098, "sim/multiplay/generic/bool[78]", Bool, BoolArray),
    p(11099, "sim/multiplay/generic/bool[79]", Bool, BoolArray),
    p(11100, "sim/multiplay/generic/bool[80]", Bool, BoolArray),
    p(11101, "sim/multiplay/generic/bool[81]", Bool, BoolArray),
    p(11102, "sim/multiplay/generic/bool[82]", Bool, BoolArray),
    p(11103, "sim/multiplay/generic/bool[83]", Bool, BoolArray),
    p(11104, "sim/multiplay/generic/bool[84]", Bool, BoolArray),
    p(11105, "sim/multiplay/generic/bool[85]", Bool, BoolArray),
    p(11106, "sim/multiplay/generic/bool[86]", Bool, BoolArray),
    p(11107, "sim/multiplay/generic/bool[87]", Bool, BoolArray),
    p(11108, "sim/multiplay/generic/bool[88]", Bool, BoolArray),
    p(11109, "sim/multiplay/generic/bool[89]", Bool, BoolArray),
    p(11110, "sim/multiplay/generic/bool[90]", Bool, BoolArray),
    p(11990, "sim/multiplay/mp-clock-mode", Int, ShortInt),
    p(12000, "sim/multiplay/emesary/bridge[0]", Str, AsIs),
    p(12001, "sim/multiplay/emesary/bridge[1]", Str, AsIs),
    p(12002, "sim/multiplay/emesary/bridge[2]", Str, AsIs),
    p(12003, "sim/multiplay/emesary/bridge[3]", Str, AsIs),
    p(12004, "sim/multiplay/emesary/bridge[4]", Str, AsIs),
    p(12005, "sim/multiplay/emesary/bridge[5]", Str, AsIs),
    p(12006, "sim/multiplay/emesary/bridge[6]", Str, AsIs),
    p(12007, "sim/multiplay/emesary/bridge[7]", Str, AsIs),
    p(12008, "sim/multiplay/emesary/bridge[8]", Str, AsIs),
    p(12009, "sim/multiplay/emesary/bridge[9]", Str, AsIs),
    p(12010, "sim/multiplay/emesary/bridge[10]", Str, AsIs),
    p(12011, "sim/multiplay/emesary/bridge[11]", Str, AsIs),
    p(12012, "sim/multiplay/emesary/bridge[12]", Str, AsIs),
    p(12013, "sim/multiplay/emesary/bridge[13]", Str, AsIs),
    p(12014, "sim/multiplay/emesary/bridge[14]", Str, AsIs),
    p(12015, "sim/multiplay/emesary/bridge[15]", Str, AsIs),
    p(12016, "sim/multiplay/emesary/bridge[16]", Str, AsIs),
    p(12017, "sim/multiplay/emesary/bridge[17]", Str, AsIs),
    p(12018, "sim/multiplay/emesary/bridge[18]", Str, AsIs),
    p(12019, "sim/multiplay/emesary/bridge[19]", Str, AsIs),
    p(12020, "sim/multiplay/emesary/bridge[20]", Str, AsIs),
    p(12021, "sim/multiplay/emesary/bridge[21]", Str, AsIs),
    p(12022, "sim/multiplay/emesary/bridge[22]", Str, AsIs),
    p(12023, "sim/multiplay/emesary/bridge[23]", Str, AsIs),
    p(12024, "sim/multiplay/emesary/bridge[24]", Str, AsIs),
    p(12025, "sim/multiplay/emesary/bridge[25]", Str, AsIs),
    p(12026, "sim/multiplay/emesary/bridge[26]", Str, AsIs),
    p(12027, "sim/multiplay/emesary/bridge[27]", Str, AsIs),
    p(12028, "sim/multiplay/emesary/bridge[28]", Str, AsIs),
    p(12029, "sim/multiplay/emesary/bridge[29]", Str, AsIs),
    p(12200, "sim/multiplay/emesary/bridge-type[0]", Int, ShortInt),
    p(12201, "sim/multiplay/emesary/bridge-type[1]", Int, ShortInt),
    p(12202, "sim/multiplay/emesary/bridge-type[2]", Int, ShortInt),
    p(12203, "sim/multiplay/emesary/bridge-type[3]", Int, ShortInt),
    p(12204, "sim/multiplay/emesary/bridge-type[4]", Int, ShortInt),
    p(12205, "sim/multiplay/emesary/bridge-type[5]", Int, ShortInt),
    p(12206, "sim/multiplay/emesary/bridge-type[6]", Int, ShortInt),
    p(12207, "sim/multiplay/emesary/bridge-type[7]", Int, ShortInt),
    p(12208, "sim/multiplay/emesary/bridge-type[8]", Int, ShortInt),
    p(12209, "sim/multiplay/emesary/bridge-type[9]", Int, ShortInt),
    p(
        12210,
        "sim/multiplay/emesary/bridge-type[10]",
        Int,
        ShortInt,
    ),
    p(
        12211,
        "sim/multiplay/emesary/bridge-type[11]",
        Int,
        ShortInt,
    ),
    p(
        12212,
        "sim/multiplay/emesary/bridge-type[12]",
        Int,
        ShortInt,
    ),
    p(
        12213,
        "sim/multiplay/emesary/bridge-type[13]",
        Int,
        ShortInt,
    ),
    p(
        12214,
        "sim/multiplay/emesary/bridge-type[14]",
        Int,
        ShortInt,
    ),
    p(
        12215,
        "sim/multiplay/emesary/bridge-type[15]",
        Int,
        ShortInt,
    ),
    p(
        12216,
        "sim/multiplay/emesary/bridge-type[16]",
        Int,
        ShortInt,
    ),
    p(
        12217,
        "sim/multiplay/emesary/bridge-type[17]",
        Int,
        ShortInt,
    ),
    p(
        12218,
        "sim/multiplay/emesary/bridge-type[18]",
        Int,
        ShortInt,
    ),
    p(
        12219,
        "sim/multiplay/emesary/bridge-type[19]",
        Int,
        ShortInt,
    ),
    p(
        12220,
        "sim/multiplay/emesary/bridge-type[20]",
        Int,
        ShortInt,
    ),
    p(
        12221,
        "sim/multiplay/emesary/bridge-type[21]",
        Int,
        ShortInt,
    ),
    p(
        12222,
        "sim/multiplay/emesary/bridge-type[22]",
        Int,
        ShortInt,
    ),
    p(
        12223,
        "sim/multiplay/emesary/bridge-type[23]",
        Int,
        ShortInt,
    ),
    p(
        12224,
        "sim/multiplay/emesary/bridge-type[24]",
        Int,
        ShortInt,
    ),
    p(
        12225,
        "sim/multiplay/emesary/bridge-type[25]",
        Int,
        ShortInt,
    ),
    p(
        12226,
        "sim/multiplay/emesary/bridge-type[26]",
        Int,
        ShortInt,
    ),
    p(
        12227,
        "sim/multiplay/emesary/bridge-type[27]",
        Int,
        ShortInt,
    ),
    p(
        12228,
        "sim/multiplay/emesary/bridge-type[28]",
        Int,
        ShortInt,
    ),
    p(
        12229,
        "sim/multiplay/emesary/bridge-type[29]",
        Int,
        ShortInt,
    ),
    p(13000, "sim/model/fallback-model-index", Int, ShortInt),
    p(
        13001,
        "sim/multiplay/comm-transmit-frequency-hz",
        Int,
        TxInt,
    ),
    p(
        13002,
        "sim/multiplay/comm-transmit-power-norm",
        Int,
        ShortFloatNorm,
    ),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_is_sorted_unique_and_complete() {
        assert_eq!(TABLE.len(), 420);
        assert!(TABLE.windows(2).all(|w| w[0].id < w[1].id));
        assert!(LATER.iter().all(|d| TABLE.iter().all(|t| t.id != d.id)));
    }

    #[test]
    fn counts_match_the_reference() {
        // flightgear.md §8: counts by (type, TransmitAs).
        let count =
            |ty: PropType, tx: Tx| TABLE.iter().filter(|d| d.ty == ty && d.tx == tx).count();
        assert_eq!(count(Int, ShortInt), 118);
        assert_eq!(count(Bool, BoolArray), 93);
        assert_eq!(count(Str, AsIs), 56);
        assert_eq!(count(Float, AsIs), 52);
        assert_eq!(count(Float, ShortFloat1), 32);
        assert_eq!(count(Int, AsIs), 22);
        assert_eq!(count(Float, ShortFloatNorm), 22);
        assert_eq!(count(Float, ShortFloat3), 11);
        assert_eq!(count(Float, ShortFloat4), 4);
        assert_eq!(count(Bool, AsIs), 3);
        assert_eq!(count(Bool, ShortInt), 3);
        assert_eq!(count(Str, NoSend), 1);
        assert_eq!(count(Int, NoSend), 1);
        assert_eq!(count(Int, ShortFloatNorm), 1);
        assert_eq!(count(Int, TxInt), 1);
    }

    #[test]
    fn lookups() {
        let d = lookup(10002).unwrap();
        assert_eq!((d.path, d.ty, d.tx), ("sim/multiplay/chat", Str, AsIs));
        let d = lookup(100).unwrap();
        assert_eq!(d.path, "surface-positions/left-aileron-pos-norm");
        assert_eq!(d.tx.short_float_divisor(), Some(32767.0));
        assert_eq!(
            lookup(11051).unwrap().path,
            "sim/multiplay/generic/bool[91]"
        );
        assert_eq!(
            lookup(11092).unwrap().path,
            "sim/multiplay/generic/bool[72]"
        );
        assert_eq!(lookup(13002).unwrap().tx, ShortFloatNorm);
        assert_eq!(lookup(13002).unwrap().ty, Int);
        assert!(is_later(lookup(13003).unwrap()));
        assert!(!is_later(lookup(13002).unwrap()));
        for missing in [0, 9, 11031, 11039, 13004, 65536 + 100, u32::MAX] {
            assert!(lookup(missing).is_none(), "{missing}");
        }
        assert_eq!(Tx::ShortFloat2.short_float_divisor(), Some(100.0));
        assert_eq!(Tx::ShortInt.short_float_divisor(), None);
    }
}
