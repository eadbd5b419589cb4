//! The property id table of FlightGear 2020.3 (`sIdPropertyList`, 420 entries).
//!
//! Source: FlightGear `src/MultiPlayer/multiplaymgr.cxx`, array `sIdPropertyList`, tag
//! `version/2020.3.11` (commit c060800fed65ce9502a9dfad46cccf59c941362b; byte-identical on the
//! `release/2020.3` head and on `next` of 2021-09). Columns: id, property path (relative to the
//! sender's property root), declared SimGear type, and the `TransmitAs` encoding a protocol-2
//! sender uses. The one id added after 2020.3 (13003, FlightGear `next`) is kept apart in
//! [`LATER`].
//!
//! The size of a property element on the wire is known only from this table, so the walk of the
//! property section depends on it entirely (`FGMultiplayMgr::ProcessPosMsg`).

crate::open_enum! {
    /// Declared property type: SimGear `simgear/props/props.hxx`, enum `simgear::props::Type`
    /// (the table uses only these four).
    pub struct PropType(u8) {
        BOOL = 2 => "BOOL",
        INT = 3 => "INT",
        FLOAT = 5 => "FLOAT",
        STRING = 7 => "STRING",
    }
}

crate::open_enum! {
    /// How a protocol-2 sender encodes a property: FlightGear 2017.2+
    /// `src/MultiPlayer/multiplaymgr.cxx`, `enum TransmissionType` (the plain types reuse
    /// SimGear's type numbers; the numbers never travel on the wire).
    pub struct Tx(u16) {
        /// The v1 form of the declared type (or a compact v2 string for strings).
        ASIS = 0 => "TT_ASIS",
        BOOL = 2 => "TT_BOOL",
        /// A full 32-bit integer (v1 form).
        INT = 3 => "TT_INT",
        FLOAT = 5 => "TT_FLOAT",
        STRING = 7 => "TT_STRING",
        /// Id and int16 value in one word.
        SHORTINT = 0x100 => "TT_SHORTINT",
        /// int16 / 32767.
        SHORT_FLOAT_NORM = 0x101 => "TT_SHORT_FLOAT_NORM",
        /// int16 / 10.
        SHORT_FLOAT_1 = 0x102 => "TT_SHORT_FLOAT_1",
        /// int16 / 100 (no property of the 2020.3 table uses it).
        SHORT_FLOAT_2 = 0x103 => "TT_SHORT_FLOAT_2",
        /// int16 / 1000.
        SHORT_FLOAT_3 = 0x104 => "TT_SHORT_FLOAT_3",
        /// int16 / 10000.
        SHORT_FLOAT_4 = 0x105 => "TT_SHORT_FLOAT_4",
        /// One bit of a 31-bit block (11000, 11040, 11080).
        BOOLARRAY = 0x106 => "TT_BOOLARRAY",
        /// Declared, never encoded.
        CHAR = 0x107 => "TT_CHAR",
        /// Never sent by a protocol-2 sender.
        NOSEND = 0x108 => "TT_NOSEND",
    }
}

impl Tx {
    /// The divisor of a scaled short float (`get_scaled_short`), `None` for the other
    /// encodings.
    pub fn short_float_divisor(self) -> Option<f64> {
        match self {
            Tx::SHORT_FLOAT_NORM => Some(32767.0),
            Tx::SHORT_FLOAT_1 => Some(10.0),
            Tx::SHORT_FLOAT_2 => Some(100.0),
            Tx::SHORT_FLOAT_3 => Some(1000.0),
            Tx::SHORT_FLOAT_4 => Some(10000.0),
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
///
/// A position message carries a few hundred elements, each looked up once (a bool block 31
/// times), so this is the decoder's hottest call: one load from `INDEX` instead of a binary
/// search.
#[inline]
pub fn lookup(id: u32) -> Option<&'static PropDef> {
    let slot = *INDEX.get(id as usize)? as usize;
    match slot {
        0 => None,
        s if s <= TABLE.len() => TABLE.get(s - 1),
        s => LATER.get(s - 1 - TABLE.len()),
    }
}

/// The row number (0-based, across both tables) of a known id: a dense index for per-message
/// bitsets over the ids.
#[inline]
pub fn slot(id: u32) -> Option<usize> {
    (*INDEX.get(id as usize)? as usize).checked_sub(1)
}

/// How many rows [`slot`] numbers.
pub const SLOTS: usize = TABLE_ROWS;

/// One past the largest id of either table.
const INDEX_LEN: usize = {
    let mut max = 0;
    let mut i = 0;
    while i < TABLE_ROWS {
        if ROWS[i].0 as usize > max {
            max = ROWS[i].0 as usize;
        }
        i += 1;
    }
    max + 1
};

/// Rows of both tables, as (id, row) with [`TABLE`]'s rows first.
const TABLE_ROWS: usize = TABLE_LEN + LATER_LEN;
const TABLE_LEN: usize = 420;
const LATER_LEN: usize = 1;
const ROWS: [(u16, usize); TABLE_ROWS] = {
    let mut rows = [(0u16, 0usize); TABLE_ROWS];
    let mut i = 0;
    while i < TABLE_LEN {
        rows[i] = (TABLE_IDS[i], i);
        i += 1;
    }
    let mut j = 0;
    while j < LATER_LEN {
        rows[TABLE_LEN + j] = (LATER_IDS[j], TABLE_LEN + j);
        j += 1;
    }
    rows
};

/// Per id: 0 for an unknown id, else 1 + its row in [`TABLE`] followed by [`LATER`]. Built at
/// compile time; about 26 KB.
static INDEX: [u16; INDEX_LEN] = {
    let mut index = [0u16; INDEX_LEN];
    let mut i = 0;
    while i < TABLE_ROWS {
        index[ROWS[i].0 as usize] = ROWS[i].1 as u16 + 1;
        i += 1;
    }
    index
};

const TABLE_IDS: [u16; TABLE_LEN] = ids(&TABLE_DEFS);
const LATER_IDS: [u16; LATER_LEN] = ids(&LATER_DEFS);

const fn ids<const N: usize>(defs: &[PropDef; N]) -> [u16; N] {
    let mut out = [0u16; N];
    let mut i = 0;
    while i < N {
        out[i] = defs[i].id;
        i += 1;
    }
    out
}

/// Whether `def` comes from [`LATER`] rather than the 2020.3 table. Asked of every element:
/// whether `def` lies in [`LATER`] is two comparisons ([`lookup`] hands out rows of the
/// statics, never copies), where comparing ids with every row was a twentieth of a summary run.
#[inline]
pub fn is_later(def: &PropDef) -> bool {
    LATER.as_ptr_range().contains(&std::ptr::from_ref(def))
}

/// Ids added to FlightGear after 2020.3 (`next`, 2024-era copy of `multiplaymgr.cxx`): decoded so that a
/// newer sender's packets do not stop the walk, flagged with a note.
pub static LATER: [PropDef; LATER_LEN] = LATER_DEFS;
const LATER_DEFS: [PropDef; LATER_LEN] = [p(
    13003,
    "instrumentation/transponder/mach-number",
    FLOAT,
    TT_SHORT_FLOAT_4,
)];

// Short names for the rows of the tables.
const BOOL: PropType = PropType::BOOL;
const INT: PropType = PropType::INT;
const FLOAT: PropType = PropType::FLOAT;
const STRING: PropType = PropType::STRING;
const TT_ASIS: Tx = Tx::ASIS;
const TT_INT: Tx = Tx::INT;
const TT_SHORTINT: Tx = Tx::SHORTINT;
const TT_SHORT_FLOAT_NORM: Tx = Tx::SHORT_FLOAT_NORM;
const TT_SHORT_FLOAT_1: Tx = Tx::SHORT_FLOAT_1;
const TT_SHORT_FLOAT_3: Tx = Tx::SHORT_FLOAT_3;
const TT_SHORT_FLOAT_4: Tx = Tx::SHORT_FLOAT_4;
const TT_BOOLARRAY: Tx = Tx::BOOLARRAY;
const TT_NOSEND: Tx = Tx::NOSEND;

/// FlightGear 2020.3 `sIdPropertyList`, sorted by id (the order of the source array).
pub static TABLE: [PropDef; TABLE_LEN] = TABLE_DEFS;
const TABLE_DEFS: [PropDef; TABLE_LEN] = [
    p(10, "sim/multiplay/protocol-version", INT, TT_SHORTINT),
    p(
        100,
        "surface-positions/left-aileron-pos-norm",
        FLOAT,
        TT_SHORT_FLOAT_NORM,
    ),
    p(
        101,
        "surface-positions/right-aileron-pos-norm",
        FLOAT,
        TT_SHORT_FLOAT_NORM,
    ),
    p(
        102,
        "surface-positions/elevator-pos-norm",
        FLOAT,
        TT_SHORT_FLOAT_NORM,
    ),
    p(
        103,
        "surface-positions/rudder-pos-norm",
        FLOAT,
        TT_SHORT_FLOAT_NORM,
    ),
    p(
        104,
        "surface-positions/flap-pos-norm",
        FLOAT,
        TT_SHORT_FLOAT_NORM,
    ),
    p(
        105,
        "surface-positions/speedbrake-pos-norm",
        FLOAT,
        TT_SHORT_FLOAT_NORM,
    ),
    p(
        106,
        "gear/tailhook/position-norm",
        FLOAT,
        TT_SHORT_FLOAT_NORM,
    ),
    p(
        107,
        "gear/launchbar/position-norm",
        FLOAT,
        TT_SHORT_FLOAT_NORM,
    ),
    p(108, "gear/launchbar/state", STRING, TT_ASIS),
    p(
        109,
        "gear/launchbar/holdback-position-norm",
        FLOAT,
        TT_SHORT_FLOAT_NORM,
    ),
    p(110, "canopy/position-norm", FLOAT, TT_SHORT_FLOAT_NORM),
    p(
        111,
        "surface-positions/wing-pos-norm",
        FLOAT,
        TT_SHORT_FLOAT_NORM,
    ),
    p(
        112,
        "surface-positions/wing-fold-pos-norm",
        FLOAT,
        TT_SHORT_FLOAT_NORM,
    ),
    p(120, "gear/launchbar/state-value", INT, TT_NOSEND),
    p(
        200,
        "gear/gear[0]/compression-norm",
        FLOAT,
        TT_SHORT_FLOAT_NORM,
    ),
    p(
        201,
        "gear/gear[0]/position-norm",
        FLOAT,
        TT_SHORT_FLOAT_NORM,
    ),
    p(
        210,
        "gear/gear[1]/compression-norm",
        FLOAT,
        TT_SHORT_FLOAT_NORM,
    ),
    p(
        211,
        "gear/gear[1]/position-norm",
        FLOAT,
        TT_SHORT_FLOAT_NORM,
    ),
    p(
        220,
        "gear/gear[2]/compression-norm",
        FLOAT,
        TT_SHORT_FLOAT_NORM,
    ),
    p(
        221,
        "gear/gear[2]/position-norm",
        FLOAT,
        TT_SHORT_FLOAT_NORM,
    ),
    p(
        230,
        "gear/gear[3]/compression-norm",
        FLOAT,
        TT_SHORT_FLOAT_NORM,
    ),
    p(
        231,
        "gear/gear[3]/position-norm",
        FLOAT,
        TT_SHORT_FLOAT_NORM,
    ),
    p(
        240,
        "gear/gear[4]/compression-norm",
        FLOAT,
        TT_SHORT_FLOAT_NORM,
    ),
    p(
        241,
        "gear/gear[4]/position-norm",
        FLOAT,
        TT_SHORT_FLOAT_NORM,
    ),
    p(300, "engines/engine[0]/n1", FLOAT, TT_SHORT_FLOAT_1),
    p(301, "engines/engine[0]/n2", FLOAT, TT_SHORT_FLOAT_1),
    p(302, "engines/engine[0]/rpm", FLOAT, TT_SHORT_FLOAT_1),
    p(310, "engines/engine[1]/n1", FLOAT, TT_SHORT_FLOAT_1),
    p(311, "engines/engine[1]/n2", FLOAT, TT_SHORT_FLOAT_1),
    p(312, "engines/engine[1]/rpm", FLOAT, TT_SHORT_FLOAT_1),
    p(320, "engines/engine[2]/n1", FLOAT, TT_SHORT_FLOAT_1),
    p(321, "engines/engine[2]/n2", FLOAT, TT_SHORT_FLOAT_1),
    p(322, "engines/engine[2]/rpm", FLOAT, TT_SHORT_FLOAT_1),
    p(330, "engines/engine[3]/n1", FLOAT, TT_SHORT_FLOAT_1),
    p(331, "engines/engine[3]/n2", FLOAT, TT_SHORT_FLOAT_1),
    p(332, "engines/engine[3]/rpm", FLOAT, TT_SHORT_FLOAT_1),
    p(340, "engines/engine[4]/n1", FLOAT, TT_SHORT_FLOAT_1),
    p(341, "engines/engine[4]/n2", FLOAT, TT_SHORT_FLOAT_1),
    p(342, "engines/engine[4]/rpm", FLOAT, TT_SHORT_FLOAT_1),
    p(350, "engines/engine[5]/n1", FLOAT, TT_SHORT_FLOAT_1),
    p(351, "engines/engine[5]/n2", FLOAT, TT_SHORT_FLOAT_1),
    p(352, "engines/engine[5]/rpm", FLOAT, TT_SHORT_FLOAT_1),
    p(360, "engines/engine[6]/n1", FLOAT, TT_SHORT_FLOAT_1),
    p(361, "engines/engine[6]/n2", FLOAT, TT_SHORT_FLOAT_1),
    p(362, "engines/engine[6]/rpm", FLOAT, TT_SHORT_FLOAT_1),
    p(370, "engines/engine[7]/n1", FLOAT, TT_SHORT_FLOAT_1),
    p(371, "engines/engine[7]/n2", FLOAT, TT_SHORT_FLOAT_1),
    p(372, "engines/engine[7]/rpm", FLOAT, TT_SHORT_FLOAT_1),
    p(380, "engines/engine[8]/n1", FLOAT, TT_SHORT_FLOAT_1),
    p(381, "engines/engine[8]/n2", FLOAT, TT_SHORT_FLOAT_1),
    p(382, "engines/engine[8]/rpm", FLOAT, TT_SHORT_FLOAT_1),
    p(390, "engines/engine[9]/n1", FLOAT, TT_SHORT_FLOAT_1),
    p(391, "engines/engine[9]/n2", FLOAT, TT_SHORT_FLOAT_1),
    p(392, "engines/engine[9]/rpm", FLOAT, TT_SHORT_FLOAT_1),
    p(800, "rotors/main/rpm", FLOAT, TT_SHORT_FLOAT_1),
    p(801, "rotors/tail/rpm", FLOAT, TT_SHORT_FLOAT_1),
    p(
        810,
        "rotors/main/blade[0]/position-deg",
        FLOAT,
        TT_SHORT_FLOAT_3,
    ),
    p(
        811,
        "rotors/main/blade[1]/position-deg",
        FLOAT,
        TT_SHORT_FLOAT_3,
    ),
    p(
        812,
        "rotors/main/blade[2]/position-deg",
        FLOAT,
        TT_SHORT_FLOAT_3,
    ),
    p(
        813,
        "rotors/main/blade[3]/position-deg",
        FLOAT,
        TT_SHORT_FLOAT_3,
    ),
    p(
        820,
        "rotors/main/blade[0]/flap-deg",
        FLOAT,
        TT_SHORT_FLOAT_3,
    ),
    p(
        821,
        "rotors/main/blade[1]/flap-deg",
        FLOAT,
        TT_SHORT_FLOAT_3,
    ),
    p(
        822,
        "rotors/main/blade[2]/flap-deg",
        FLOAT,
        TT_SHORT_FLOAT_3,
    ),
    p(
        823,
        "rotors/main/blade[3]/flap-deg",
        FLOAT,
        TT_SHORT_FLOAT_3,
    ),
    p(
        830,
        "rotors/tail/blade[0]/position-deg",
        FLOAT,
        TT_SHORT_FLOAT_3,
    ),
    p(
        831,
        "rotors/tail/blade[1]/position-deg",
        FLOAT,
        TT_SHORT_FLOAT_3,
    ),
    p(900, "sim/hitches/aerotow/tow/length", FLOAT, TT_ASIS),
    p(
        901,
        "sim/hitches/aerotow/tow/elastic-constant",
        FLOAT,
        TT_ASIS,
    ),
    p(
        902,
        "sim/hitches/aerotow/tow/weight-per-m-kg-m",
        FLOAT,
        TT_ASIS,
    ),
    p(903, "sim/hitches/aerotow/tow/dist", FLOAT, TT_ASIS),
    p(
        904,
        "sim/hitches/aerotow/tow/connected-to-property-node",
        BOOL,
        TT_ASIS,
    ),
    p(
        905,
        "sim/hitches/aerotow/tow/connected-to-ai-or-mp-callsign",
        STRING,
        TT_ASIS,
    ),
    p(906, "sim/hitches/aerotow/tow/brake-force", FLOAT, TT_ASIS),
    p(907, "sim/hitches/aerotow/tow/end-force-x", FLOAT, TT_ASIS),
    p(908, "sim/hitches/aerotow/tow/end-force-y", FLOAT, TT_ASIS),
    p(909, "sim/hitches/aerotow/tow/end-force-z", FLOAT, TT_ASIS),
    p(930, "sim/hitches/aerotow/is-slave", BOOL, TT_ASIS),
    p(
        931,
        "sim/hitches/aerotow/speed-in-tow-direction",
        FLOAT,
        TT_ASIS,
    ),
    p(932, "sim/hitches/aerotow/open", BOOL, TT_ASIS),
    p(933, "sim/hitches/aerotow/local-pos-x", FLOAT, TT_ASIS),
    p(934, "sim/hitches/aerotow/local-pos-y", FLOAT, TT_ASIS),
    p(935, "sim/hitches/aerotow/local-pos-z", FLOAT, TT_ASIS),
    p(1001, "controls/flight/slats", FLOAT, TT_SHORT_FLOAT_4),
    p(1002, "controls/flight/speedbrake", FLOAT, TT_SHORT_FLOAT_4),
    p(1003, "controls/flight/spoilers", FLOAT, TT_SHORT_FLOAT_4),
    p(1004, "controls/gear/gear-down", FLOAT, TT_SHORT_FLOAT_4),
    p(
        1005,
        "controls/lighting/nav-lights",
        FLOAT,
        TT_SHORT_FLOAT_3,
    ),
    p(
        1006,
        "controls/armament/station[0]/jettison-all",
        BOOL,
        TT_SHORTINT,
    ),
    p(1100, "sim/model/variant", INT, TT_ASIS),
    p(1101, "sim/model/livery/file", STRING, TT_ASIS),
    p(1200, "environment/wildfire/data", STRING, TT_ASIS),
    p(1201, "environment/contrail", INT, TT_SHORTINT),
    p(1300, "tanker", INT, TT_SHORTINT),
    p(1400, "scenery/events", STRING, TT_ASIS),
    p(
        1500,
        "instrumentation/transponder/transmitted-id",
        INT,
        TT_SHORTINT,
    ),
    p(1501, "instrumentation/transponder/altitude", INT, TT_ASIS),
    p(1502, "instrumentation/transponder/ident", BOOL, TT_SHORTINT),
    p(
        1503,
        "instrumentation/transponder/inputs/mode",
        INT,
        TT_SHORTINT,
    ),
    p(
        1504,
        "instrumentation/transponder/ground-bit",
        BOOL,
        TT_SHORTINT,
    ),
    p(
        1505,
        "instrumentation/transponder/airspeed-kt",
        INT,
        TT_SHORTINT,
    ),
    p(
        10001,
        "sim/multiplay/transmission-freq-hz",
        STRING,
        TT_NOSEND,
    ),
    p(10002, "sim/multiplay/chat", STRING, TT_ASIS),
    p(10100, "sim/multiplay/generic/string[0]", STRING, TT_ASIS),
    p(10101, "sim/multiplay/generic/string[1]", STRING, TT_ASIS),
    p(10102, "sim/multiplay/generic/string[2]", STRING, TT_ASIS),
    p(10103, "sim/multiplay/generic/string[3]", STRING, TT_ASIS),
    p(10104, "sim/multiplay/generic/string[4]", STRING, TT_ASIS),
    p(10105, "sim/multiplay/generic/string[5]", STRING, TT_ASIS),
    p(10106, "sim/multiplay/generic/string[6]", STRING, TT_ASIS),
    p(10107, "sim/multiplay/generic/string[7]", STRING, TT_ASIS),
    p(10108, "sim/multiplay/generic/string[8]", STRING, TT_ASIS),
    p(10109, "sim/multiplay/generic/string[9]", STRING, TT_ASIS),
    p(10110, "sim/multiplay/generic/string[10]", STRING, TT_ASIS),
    p(10111, "sim/multiplay/generic/string[11]", STRING, TT_ASIS),
    p(10112, "sim/multiplay/generic/string[12]", STRING, TT_ASIS),
    p(10113, "sim/multiplay/generic/string[13]", STRING, TT_ASIS),
    p(10114, "sim/multiplay/generic/string[14]", STRING, TT_ASIS),
    p(10115, "sim/multiplay/generic/string[15]", STRING, TT_ASIS),
    p(10116, "sim/multiplay/generic/string[16]", STRING, TT_ASIS),
    p(10117, "sim/multiplay/generic/string[17]", STRING, TT_ASIS),
    p(10118, "sim/multiplay/generic/string[18]", STRING, TT_ASIS),
    p(10119, "sim/multiplay/generic/string[19]", STRING, TT_ASIS),
    p(10200, "sim/multiplay/generic/float[0]", FLOAT, TT_ASIS),
    p(10201, "sim/multiplay/generic/float[1]", FLOAT, TT_ASIS),
    p(10202, "sim/multiplay/generic/float[2]", FLOAT, TT_ASIS),
    p(10203, "sim/multiplay/generic/float[3]", FLOAT, TT_ASIS),
    p(10204, "sim/multiplay/generic/float[4]", FLOAT, TT_ASIS),
    p(10205, "sim/multiplay/generic/float[5]", FLOAT, TT_ASIS),
    p(10206, "sim/multiplay/generic/float[6]", FLOAT, TT_ASIS),
    p(10207, "sim/multiplay/generic/float[7]", FLOAT, TT_ASIS),
    p(10208, "sim/multiplay/generic/float[8]", FLOAT, TT_ASIS),
    p(10209, "sim/multiplay/generic/float[9]", FLOAT, TT_ASIS),
    p(10210, "sim/multiplay/generic/float[10]", FLOAT, TT_ASIS),
    p(10211, "sim/multiplay/generic/float[11]", FLOAT, TT_ASIS),
    p(10212, "sim/multiplay/generic/float[12]", FLOAT, TT_ASIS),
    p(10213, "sim/multiplay/generic/float[13]", FLOAT, TT_ASIS),
    p(10214, "sim/multiplay/generic/float[14]", FLOAT, TT_ASIS),
    p(10215, "sim/multiplay/generic/float[15]", FLOAT, TT_ASIS),
    p(10216, "sim/multiplay/generic/float[16]", FLOAT, TT_ASIS),
    p(10217, "sim/multiplay/generic/float[17]", FLOAT, TT_ASIS),
    p(10218, "sim/multiplay/generic/float[18]", FLOAT, TT_ASIS),
    p(10219, "sim/multiplay/generic/float[19]", FLOAT, TT_ASIS),
    p(10220, "sim/multiplay/generic/float[20]", FLOAT, TT_ASIS),
    p(10221, "sim/multiplay/generic/float[21]", FLOAT, TT_ASIS),
    p(10222, "sim/multiplay/generic/float[22]", FLOAT, TT_ASIS),
    p(10223, "sim/multiplay/generic/float[23]", FLOAT, TT_ASIS),
    p(10224, "sim/multiplay/generic/float[24]", FLOAT, TT_ASIS),
    p(10225, "sim/multiplay/generic/float[25]", FLOAT, TT_ASIS),
    p(10226, "sim/multiplay/generic/float[26]", FLOAT, TT_ASIS),
    p(10227, "sim/multiplay/generic/float[27]", FLOAT, TT_ASIS),
    p(10228, "sim/multiplay/generic/float[28]", FLOAT, TT_ASIS),
    p(10229, "sim/multiplay/generic/float[29]", FLOAT, TT_ASIS),
    p(10230, "sim/multiplay/generic/float[30]", FLOAT, TT_ASIS),
    p(10231, "sim/multiplay/generic/float[31]", FLOAT, TT_ASIS),
    p(10232, "sim/multiplay/generic/float[32]", FLOAT, TT_ASIS),
    p(10233, "sim/multiplay/generic/float[33]", FLOAT, TT_ASIS),
    p(10234, "sim/multiplay/generic/float[34]", FLOAT, TT_ASIS),
    p(10235, "sim/multiplay/generic/float[35]", FLOAT, TT_ASIS),
    p(10236, "sim/multiplay/generic/float[36]", FLOAT, TT_ASIS),
    p(10237, "sim/multiplay/generic/float[37]", FLOAT, TT_ASIS),
    p(10238, "sim/multiplay/generic/float[38]", FLOAT, TT_ASIS),
    p(10239, "sim/multiplay/generic/float[39]", FLOAT, TT_ASIS),
    p(10300, "sim/multiplay/generic/int[0]", INT, TT_ASIS),
    p(10301, "sim/multiplay/generic/int[1]", INT, TT_ASIS),
    p(10302, "sim/multiplay/generic/int[2]", INT, TT_ASIS),
    p(10303, "sim/multiplay/generic/int[3]", INT, TT_ASIS),
    p(10304, "sim/multiplay/generic/int[4]", INT, TT_ASIS),
    p(10305, "sim/multiplay/generic/int[5]", INT, TT_ASIS),
    p(10306, "sim/multiplay/generic/int[6]", INT, TT_ASIS),
    p(10307, "sim/multiplay/generic/int[7]", INT, TT_ASIS),
    p(10308, "sim/multiplay/generic/int[8]", INT, TT_ASIS),
    p(10309, "sim/multiplay/generic/int[9]", INT, TT_ASIS),
    p(10310, "sim/multiplay/generic/int[10]", INT, TT_ASIS),
    p(10311, "sim/multiplay/generic/int[11]", INT, TT_ASIS),
    p(10312, "sim/multiplay/generic/int[12]", INT, TT_ASIS),
    p(10313, "sim/multiplay/generic/int[13]", INT, TT_ASIS),
    p(10314, "sim/multiplay/generic/int[14]", INT, TT_ASIS),
    p(10315, "sim/multiplay/generic/int[15]", INT, TT_ASIS),
    p(10316, "sim/multiplay/generic/int[16]", INT, TT_ASIS),
    p(10317, "sim/multiplay/generic/int[17]", INT, TT_ASIS),
    p(10318, "sim/multiplay/generic/int[18]", INT, TT_ASIS),
    p(10319, "sim/multiplay/generic/int[19]", INT, TT_ASIS),
    p(10500, "sim/multiplay/generic/short[0]", INT, TT_SHORTINT),
    p(10501, "sim/multiplay/generic/short[1]", INT, TT_SHORTINT),
    p(10502, "sim/multiplay/generic/short[2]", INT, TT_SHORTINT),
    p(10503, "sim/multiplay/generic/short[3]", INT, TT_SHORTINT),
    p(10504, "sim/multiplay/generic/short[4]", INT, TT_SHORTINT),
    p(10505, "sim/multiplay/generic/short[5]", INT, TT_SHORTINT),
    p(10506, "sim/multiplay/generic/short[6]", INT, TT_SHORTINT),
    p(10507, "sim/multiplay/generic/short[7]", INT, TT_SHORTINT),
    p(10508, "sim/multiplay/generic/short[8]", INT, TT_SHORTINT),
    p(10509, "sim/multiplay/generic/short[9]", INT, TT_SHORTINT),
    p(10510, "sim/multiplay/generic/short[10]", INT, TT_SHORTINT),
    p(10511, "sim/multiplay/generic/short[11]", INT, TT_SHORTINT),
    p(10512, "sim/multiplay/generic/short[12]", INT, TT_SHORTINT),
    p(10513, "sim/multiplay/generic/short[13]", INT, TT_SHORTINT),
    p(10514, "sim/multiplay/generic/short[14]", INT, TT_SHORTINT),
    p(10515, "sim/multiplay/generic/short[15]", INT, TT_SHORTINT),
    p(10516, "sim/multiplay/generic/short[16]", INT, TT_SHORTINT),
    p(10517, "sim/multiplay/generic/short[17]", INT, TT_SHORTINT),
    p(10518, "sim/multiplay/generic/short[18]", INT, TT_SHORTINT),
    p(10519, "sim/multiplay/generic/short[19]", INT, TT_SHORTINT),
    p(10520, "sim/multiplay/generic/short[20]", INT, TT_SHORTINT),
    p(10521, "sim/multiplay/generic/short[21]", INT, TT_SHORTINT),
    p(10522, "sim/multiplay/generic/short[22]", INT, TT_SHORTINT),
    p(10523, "sim/multiplay/generic/short[23]", INT, TT_SHORTINT),
    p(10524, "sim/multiplay/generic/short[24]", INT, TT_SHORTINT),
    p(10525, "sim/multiplay/generic/short[25]", INT, TT_SHORTINT),
    p(10526, "sim/multiplay/generic/short[26]", INT, TT_SHORTINT),
    p(10527, "sim/multiplay/generic/short[27]", INT, TT_SHORTINT),
    p(10528, "sim/multiplay/generic/short[28]", INT, TT_SHORTINT),
    p(10529, "sim/multiplay/generic/short[29]", INT, TT_SHORTINT),
    p(10530, "sim/multiplay/generic/short[30]", INT, TT_SHORTINT),
    p(10531, "sim/multiplay/generic/short[31]", INT, TT_SHORTINT),
    p(10532, "sim/multiplay/generic/short[32]", INT, TT_SHORTINT),
    p(10533, "sim/multiplay/generic/short[33]", INT, TT_SHORTINT),
    p(10534, "sim/multiplay/generic/short[34]", INT, TT_SHORTINT),
    p(10535, "sim/multiplay/generic/short[35]", INT, TT_SHORTINT),
    p(10536, "sim/multiplay/generic/short[36]", INT, TT_SHORTINT),
    p(10537, "sim/multiplay/generic/short[37]", INT, TT_SHORTINT),
    p(10538, "sim/multiplay/generic/short[38]", INT, TT_SHORTINT),
    p(10539, "sim/multiplay/generic/short[39]", INT, TT_SHORTINT),
    p(10540, "sim/multiplay/generic/short[40]", INT, TT_SHORTINT),
    p(10541, "sim/multiplay/generic/short[41]", INT, TT_SHORTINT),
    p(10542, "sim/multiplay/generic/short[42]", INT, TT_SHORTINT),
    p(10543, "sim/multiplay/generic/short[43]", INT, TT_SHORTINT),
    p(10544, "sim/multiplay/generic/short[44]", INT, TT_SHORTINT),
    p(10545, "sim/multiplay/generic/short[45]", INT, TT_SHORTINT),
    p(10546, "sim/multiplay/generic/short[46]", INT, TT_SHORTINT),
    p(10547, "sim/multiplay/generic/short[47]", INT, TT_SHORTINT),
    p(10548, "sim/multiplay/generic/short[48]", INT, TT_SHORTINT),
    p(10549, "sim/multiplay/generic/short[49]", INT, TT_SHORTINT),
    p(10550, "sim/multiplay/generic/short[50]", INT, TT_SHORTINT),
    p(10551, "sim/multiplay/generic/short[51]", INT, TT_SHORTINT),
    p(10552, "sim/multiplay/generic/short[52]", INT, TT_SHORTINT),
    p(10553, "sim/multiplay/generic/short[53]", INT, TT_SHORTINT),
    p(10554, "sim/multiplay/generic/short[54]", INT, TT_SHORTINT),
    p(10555, "sim/multiplay/generic/short[55]", INT, TT_SHORTINT),
    p(10556, "sim/multiplay/generic/short[56]", INT, TT_SHORTINT),
    p(10557, "sim/multiplay/generic/short[57]", INT, TT_SHORTINT),
    p(10558, "sim/multiplay/generic/short[58]", INT, TT_SHORTINT),
    p(10559, "sim/multiplay/generic/short[59]", INT, TT_SHORTINT),
    p(10560, "sim/multiplay/generic/short[60]", INT, TT_SHORTINT),
    p(10561, "sim/multiplay/generic/short[61]", INT, TT_SHORTINT),
    p(10562, "sim/multiplay/generic/short[62]", INT, TT_SHORTINT),
    p(10563, "sim/multiplay/generic/short[63]", INT, TT_SHORTINT),
    p(10564, "sim/multiplay/generic/short[64]", INT, TT_SHORTINT),
    p(10565, "sim/multiplay/generic/short[65]", INT, TT_SHORTINT),
    p(10566, "sim/multiplay/generic/short[66]", INT, TT_SHORTINT),
    p(10567, "sim/multiplay/generic/short[67]", INT, TT_SHORTINT),
    p(10568, "sim/multiplay/generic/short[68]", INT, TT_SHORTINT),
    p(10569, "sim/multiplay/generic/short[69]", INT, TT_SHORTINT),
    p(10570, "sim/multiplay/generic/short[70]", INT, TT_SHORTINT),
    p(10571, "sim/multiplay/generic/short[71]", INT, TT_SHORTINT),
    p(10572, "sim/multiplay/generic/short[72]", INT, TT_SHORTINT),
    p(10573, "sim/multiplay/generic/short[73]", INT, TT_SHORTINT),
    p(10574, "sim/multiplay/generic/short[74]", INT, TT_SHORTINT),
    p(10575, "sim/multiplay/generic/short[75]", INT, TT_SHORTINT),
    p(10576, "sim/multiplay/generic/short[76]", INT, TT_SHORTINT),
    p(10577, "sim/multiplay/generic/short[77]", INT, TT_SHORTINT),
    p(10578, "sim/multiplay/generic/short[78]", INT, TT_SHORTINT),
    p(10579, "sim/multiplay/generic/short[79]", INT, TT_SHORTINT),
    p(11000, "sim/multiplay/generic/bool[0]", BOOL, TT_BOOLARRAY),
    p(11001, "sim/multiplay/generic/bool[1]", BOOL, TT_BOOLARRAY),
    p(11002, "sim/multiplay/generic/bool[2]", BOOL, TT_BOOLARRAY),
    p(11003, "sim/multiplay/generic/bool[3]", BOOL, TT_BOOLARRAY),
    p(11004, "sim/multiplay/generic/bool[4]", BOOL, TT_BOOLARRAY),
    p(11005, "sim/multiplay/generic/bool[5]", BOOL, TT_BOOLARRAY),
    p(11006, "sim/multiplay/generic/bool[6]", BOOL, TT_BOOLARRAY),
    p(11007, "sim/multiplay/generic/bool[7]", BOOL, TT_BOOLARRAY),
    p(11008, "sim/multiplay/generic/bool[8]", BOOL, TT_BOOLARRAY),
    p(11009, "sim/multiplay/generic/bool[9]", BOOL, TT_BOOLARRAY),
    p(11010, "sim/multiplay/generic/bool[10]", BOOL, TT_BOOLARRAY),
    p(11011, "sim/multiplay/generic/bool[11]", BOOL, TT_BOOLARRAY),
    p(11012, "sim/multiplay/generic/bool[12]", BOOL, TT_BOOLARRAY),
    p(11013, "sim/multiplay/generic/bool[13]", BOOL, TT_BOOLARRAY),
    p(11014, "sim/multiplay/generic/bool[14]", BOOL, TT_BOOLARRAY),
    p(11015, "sim/multiplay/generic/bool[15]", BOOL, TT_BOOLARRAY),
    p(11016, "sim/multiplay/generic/bool[16]", BOOL, TT_BOOLARRAY),
    p(11017, "sim/multiplay/generic/bool[17]", BOOL, TT_BOOLARRAY),
    p(11018, "sim/multiplay/generic/bool[18]", BOOL, TT_BOOLARRAY),
    p(11019, "sim/multiplay/generic/bool[19]", BOOL, TT_BOOLARRAY),
    p(11020, "sim/multiplay/generic/bool[20]", BOOL, TT_BOOLARRAY),
    p(11021, "sim/multiplay/generic/bool[21]", BOOL, TT_BOOLARRAY),
    p(11022, "sim/multiplay/generic/bool[22]", BOOL, TT_BOOLARRAY),
    p(11023, "sim/multiplay/generic/bool[23]", BOOL, TT_BOOLARRAY),
    p(11024, "sim/multiplay/generic/bool[24]", BOOL, TT_BOOLARRAY),
    p(11025, "sim/multiplay/generic/bool[25]", BOOL, TT_BOOLARRAY),
    p(11026, "sim/multiplay/generic/bool[26]", BOOL, TT_BOOLARRAY),
    p(11027, "sim/multiplay/generic/bool[27]", BOOL, TT_BOOLARRAY),
    p(11028, "sim/multiplay/generic/bool[28]", BOOL, TT_BOOLARRAY),
    p(11029, "sim/multiplay/generic/bool[29]", BOOL, TT_BOOLARRAY),
    p(11030, "sim/multiplay/generic/bool[30]", BOOL, TT_BOOLARRAY),
    p(11040, "sim/multiplay/generic/bool[31]", BOOL, TT_BOOLARRAY),
    p(11041, "sim/multiplay/generic/bool[32]", BOOL, TT_BOOLARRAY),
    p(11042, "sim/multiplay/generic/bool[33]", BOOL, TT_BOOLARRAY),
    p(11043, "sim/multiplay/generic/bool[34]", BOOL, TT_BOOLARRAY),
    p(11044, "sim/multiplay/generic/bool[35]", BOOL, TT_BOOLARRAY),
    p(11045, "sim/multiplay/generic/bool[36]", BOOL, TT_BOOLARRAY),
    p(11046, "sim/multiplay/generic/bool[37]", BOOL, TT_BOOLARRAY),
    p(11047, "sim/multiplay/generic/bool[38]", BOOL, TT_BOOLARRAY),
    p(11048, "sim/multiplay/generic/bool[39]", BOOL, TT_BOOLARRAY),
    p(11049, "sim/multiplay/generic/bool[40]", BOOL, TT_BOOLARRAY),
    p(11050, "sim/multiplay/generic/bool[41]", BOOL, TT_BOOLARRAY),
    p(11051, "sim/multiplay/generic/bool[91]", BOOL, TT_BOOLARRAY),
    p(11052, "sim/multiplay/generic/bool[42]", BOOL, TT_BOOLARRAY),
    p(11053, "sim/multiplay/generic/bool[43]", BOOL, TT_BOOLARRAY),
    p(11054, "sim/multiplay/generic/bool[44]", BOOL, TT_BOOLARRAY),
    p(11055, "sim/multiplay/generic/bool[45]", BOOL, TT_BOOLARRAY),
    p(11056, "sim/multiplay/generic/bool[46]", BOOL, TT_BOOLARRAY),
    p(11057, "sim/multiplay/generic/bool[47]", BOOL, TT_BOOLARRAY),
    p(11058, "sim/multiplay/generic/bool[48]", BOOL, TT_BOOLARRAY),
    p(11059, "sim/multiplay/generic/bool[49]", BOOL, TT_BOOLARRAY),
    p(11060, "sim/multiplay/generic/bool[50]", BOOL, TT_BOOLARRAY),
    p(11061, "sim/multiplay/generic/bool[51]", BOOL, TT_BOOLARRAY),
    p(11062, "sim/multiplay/generic/bool[52]", BOOL, TT_BOOLARRAY),
    p(11063, "sim/multiplay/generic/bool[53]", BOOL, TT_BOOLARRAY),
    p(11064, "sim/multiplay/generic/bool[54]", BOOL, TT_BOOLARRAY),
    p(11065, "sim/multiplay/generic/bool[55]", BOOL, TT_BOOLARRAY),
    p(11066, "sim/multiplay/generic/bool[56]", BOOL, TT_BOOLARRAY),
    p(11067, "sim/multiplay/generic/bool[57]", BOOL, TT_BOOLARRAY),
    p(11068, "sim/multiplay/generic/bool[58]", BOOL, TT_BOOLARRAY),
    p(11069, "sim/multiplay/generic/bool[59]", BOOL, TT_BOOLARRAY),
    p(11070, "sim/multiplay/generic/bool[60]", BOOL, TT_BOOLARRAY),
    p(11080, "sim/multiplay/generic/bool[61]", BOOL, TT_BOOLARRAY),
    p(11081, "sim/multiplay/generic/bool[62]", BOOL, TT_BOOLARRAY),
    p(11082, "sim/multiplay/generic/bool[63]", BOOL, TT_BOOLARRAY),
    p(11083, "sim/multiplay/generic/bool[64]", BOOL, TT_BOOLARRAY),
    p(11084, "sim/multiplay/generic/bool[65]", BOOL, TT_BOOLARRAY),
    p(11085, "sim/multiplay/generic/bool[66]", BOOL, TT_BOOLARRAY),
    p(11086, "sim/multiplay/generic/bool[67]", BOOL, TT_BOOLARRAY),
    p(11087, "sim/multiplay/generic/bool[68]", BOOL, TT_BOOLARRAY),
    p(11088, "sim/multiplay/generic/bool[69]", BOOL, TT_BOOLARRAY),
    p(11089, "sim/multiplay/generic/bool[70]", BOOL, TT_BOOLARRAY),
    p(11090, "sim/multiplay/generic/bool[71]", BOOL, TT_BOOLARRAY),
    p(11091, "sim/multiplay/generic/bool[92]", BOOL, TT_BOOLARRAY),
    p(11092, "sim/multiplay/generic/bool[72]", BOOL, TT_BOOLARRAY),
    p(11093, "sim/multiplay/generic/bool[73]", BOOL, TT_BOOLARRAY),
    p(11094, "sim/multiplay/generic/bool[74]", BOOL, TT_BOOLARRAY),
    p(11095, "sim/multiplay/generic/bool[75]", BOOL, TT_BOOLARRAY),
    p(11096, "sim/multiplay/generic/bool[76]", BOOL, TT_BOOLARRAY),
    p(11097, "sim/multiplay/generic/bool[77]", BOOL, TT_BOOLARRAY),
    p(11098, "sim/multiplay/generic/bool[78]", BOOL, TT_BOOLARRAY),
    p(11099, "sim/multiplay/generic/bool[79]", BOOL, TT_BOOLARRAY),
    p(11100, "sim/multiplay/generic/bool[80]", BOOL, TT_BOOLARRAY),
    p(11101, "sim/multiplay/generic/bool[81]", BOOL, TT_BOOLARRAY),
    p(11102, "sim/multiplay/generic/bool[82]", BOOL, TT_BOOLARRAY),
    p(11103, "sim/multiplay/generic/bool[83]", BOOL, TT_BOOLARRAY),
    p(11104, "sim/multiplay/generic/bool[84]", BOOL, TT_BOOLARRAY),
    p(11105, "sim/multiplay/generic/bool[85]", BOOL, TT_BOOLARRAY),
    p(11106, "sim/multiplay/generic/bool[86]", BOOL, TT_BOOLARRAY),
    p(11107, "sim/multiplay/generic/bool[87]", BOOL, TT_BOOLARRAY),
    p(11108, "sim/multiplay/generic/bool[88]", BOOL, TT_BOOLARRAY),
    p(11109, "sim/multiplay/generic/bool[89]", BOOL, TT_BOOLARRAY),
    p(11110, "sim/multiplay/generic/bool[90]", BOOL, TT_BOOLARRAY),
    p(11990, "sim/multiplay/mp-clock-mode", INT, TT_SHORTINT),
    p(12000, "sim/multiplay/emesary/bridge[0]", STRING, TT_ASIS),
    p(12001, "sim/multiplay/emesary/bridge[1]", STRING, TT_ASIS),
    p(12002, "sim/multiplay/emesary/bridge[2]", STRING, TT_ASIS),
    p(12003, "sim/multiplay/emesary/bridge[3]", STRING, TT_ASIS),
    p(12004, "sim/multiplay/emesary/bridge[4]", STRING, TT_ASIS),
    p(12005, "sim/multiplay/emesary/bridge[5]", STRING, TT_ASIS),
    p(12006, "sim/multiplay/emesary/bridge[6]", STRING, TT_ASIS),
    p(12007, "sim/multiplay/emesary/bridge[7]", STRING, TT_ASIS),
    p(12008, "sim/multiplay/emesary/bridge[8]", STRING, TT_ASIS),
    p(12009, "sim/multiplay/emesary/bridge[9]", STRING, TT_ASIS),
    p(12010, "sim/multiplay/emesary/bridge[10]", STRING, TT_ASIS),
    p(12011, "sim/multiplay/emesary/bridge[11]", STRING, TT_ASIS),
    p(12012, "sim/multiplay/emesary/bridge[12]", STRING, TT_ASIS),
    p(12013, "sim/multiplay/emesary/bridge[13]", STRING, TT_ASIS),
    p(12014, "sim/multiplay/emesary/bridge[14]", STRING, TT_ASIS),
    p(12015, "sim/multiplay/emesary/bridge[15]", STRING, TT_ASIS),
    p(12016, "sim/multiplay/emesary/bridge[16]", STRING, TT_ASIS),
    p(12017, "sim/multiplay/emesary/bridge[17]", STRING, TT_ASIS),
    p(12018, "sim/multiplay/emesary/bridge[18]", STRING, TT_ASIS),
    p(12019, "sim/multiplay/emesary/bridge[19]", STRING, TT_ASIS),
    p(12020, "sim/multiplay/emesary/bridge[20]", STRING, TT_ASIS),
    p(12021, "sim/multiplay/emesary/bridge[21]", STRING, TT_ASIS),
    p(12022, "sim/multiplay/emesary/bridge[22]", STRING, TT_ASIS),
    p(12023, "sim/multiplay/emesary/bridge[23]", STRING, TT_ASIS),
    p(12024, "sim/multiplay/emesary/bridge[24]", STRING, TT_ASIS),
    p(12025, "sim/multiplay/emesary/bridge[25]", STRING, TT_ASIS),
    p(12026, "sim/multiplay/emesary/bridge[26]", STRING, TT_ASIS),
    p(12027, "sim/multiplay/emesary/bridge[27]", STRING, TT_ASIS),
    p(12028, "sim/multiplay/emesary/bridge[28]", STRING, TT_ASIS),
    p(12029, "sim/multiplay/emesary/bridge[29]", STRING, TT_ASIS),
    p(
        12200,
        "sim/multiplay/emesary/bridge-type[0]",
        INT,
        TT_SHORTINT,
    ),
    p(
        12201,
        "sim/multiplay/emesary/bridge-type[1]",
        INT,
        TT_SHORTINT,
    ),
    p(
        12202,
        "sim/multiplay/emesary/bridge-type[2]",
        INT,
        TT_SHORTINT,
    ),
    p(
        12203,
        "sim/multiplay/emesary/bridge-type[3]",
        INT,
        TT_SHORTINT,
    ),
    p(
        12204,
        "sim/multiplay/emesary/bridge-type[4]",
        INT,
        TT_SHORTINT,
    ),
    p(
        12205,
        "sim/multiplay/emesary/bridge-type[5]",
        INT,
        TT_SHORTINT,
    ),
    p(
        12206,
        "sim/multiplay/emesary/bridge-type[6]",
        INT,
        TT_SHORTINT,
    ),
    p(
        12207,
        "sim/multiplay/emesary/bridge-type[7]",
        INT,
        TT_SHORTINT,
    ),
    p(
        12208,
        "sim/multiplay/emesary/bridge-type[8]",
        INT,
        TT_SHORTINT,
    ),
    p(
        12209,
        "sim/multiplay/emesary/bridge-type[9]",
        INT,
        TT_SHORTINT,
    ),
    p(
        12210,
        "sim/multiplay/emesary/bridge-type[10]",
        INT,
        TT_SHORTINT,
    ),
    p(
        12211,
        "sim/multiplay/emesary/bridge-type[11]",
        INT,
        TT_SHORTINT,
    ),
    p(
        12212,
        "sim/multiplay/emesary/bridge-type[12]",
        INT,
        TT_SHORTINT,
    ),
    p(
        12213,
        "sim/multiplay/emesary/bridge-type[13]",
        INT,
        TT_SHORTINT,
    ),
    p(
        12214,
        "sim/multiplay/emesary/bridge-type[14]",
        INT,
        TT_SHORTINT,
    ),
    p(
        12215,
        "sim/multiplay/emesary/bridge-type[15]",
        INT,
        TT_SHORTINT,
    ),
    p(
        12216,
        "sim/multiplay/emesary/bridge-type[16]",
        INT,
        TT_SHORTINT,
    ),
    p(
        12217,
        "sim/multiplay/emesary/bridge-type[17]",
        INT,
        TT_SHORTINT,
    ),
    p(
        12218,
        "sim/multiplay/emesary/bridge-type[18]",
        INT,
        TT_SHORTINT,
    ),
    p(
        12219,
        "sim/multiplay/emesary/bridge-type[19]",
        INT,
        TT_SHORTINT,
    ),
    p(
        12220,
        "sim/multiplay/emesary/bridge-type[20]",
        INT,
        TT_SHORTINT,
    ),
    p(
        12221,
        "sim/multiplay/emesary/bridge-type[21]",
        INT,
        TT_SHORTINT,
    ),
    p(
        12222,
        "sim/multiplay/emesary/bridge-type[22]",
        INT,
        TT_SHORTINT,
    ),
    p(
        12223,
        "sim/multiplay/emesary/bridge-type[23]",
        INT,
        TT_SHORTINT,
    ),
    p(
        12224,
        "sim/multiplay/emesary/bridge-type[24]",
        INT,
        TT_SHORTINT,
    ),
    p(
        12225,
        "sim/multiplay/emesary/bridge-type[25]",
        INT,
        TT_SHORTINT,
    ),
    p(
        12226,
        "sim/multiplay/emesary/bridge-type[26]",
        INT,
        TT_SHORTINT,
    ),
    p(
        12227,
        "sim/multiplay/emesary/bridge-type[27]",
        INT,
        TT_SHORTINT,
    ),
    p(
        12228,
        "sim/multiplay/emesary/bridge-type[28]",
        INT,
        TT_SHORTINT,
    ),
    p(
        12229,
        "sim/multiplay/emesary/bridge-type[29]",
        INT,
        TT_SHORTINT,
    ),
    p(13000, "sim/model/fallback-model-index", INT, TT_SHORTINT),
    p(
        13001,
        "sim/multiplay/comm-transmit-frequency-hz",
        INT,
        TT_INT,
    ),
    p(
        13002,
        "sim/multiplay/comm-transmit-power-norm",
        INT,
        TT_SHORT_FLOAT_NORM,
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
    fn counts_match_the_source_table() {
        // Counts by (type, TransmitAs) of `sIdPropertyList` in 2020.3.
        let count =
            |ty: PropType, tx: Tx| TABLE.iter().filter(|d| d.ty == ty && d.tx == tx).count();
        assert_eq!(count(INT, TT_SHORTINT), 118);
        assert_eq!(count(BOOL, TT_BOOLARRAY), 93);
        assert_eq!(count(STRING, TT_ASIS), 56);
        assert_eq!(count(FLOAT, TT_ASIS), 52);
        assert_eq!(count(FLOAT, TT_SHORT_FLOAT_1), 32);
        assert_eq!(count(INT, TT_ASIS), 22);
        assert_eq!(count(FLOAT, TT_SHORT_FLOAT_NORM), 22);
        assert_eq!(count(FLOAT, TT_SHORT_FLOAT_3), 11);
        assert_eq!(count(FLOAT, TT_SHORT_FLOAT_4), 4);
        assert_eq!(count(BOOL, TT_ASIS), 3);
        assert_eq!(count(BOOL, TT_SHORTINT), 3);
        assert_eq!(count(STRING, TT_NOSEND), 1);
        assert_eq!(count(INT, TT_NOSEND), 1);
        assert_eq!(count(INT, TT_SHORT_FLOAT_NORM), 1);
        assert_eq!(count(INT, TT_INT), 1);
    }

    #[test]
    fn lookups() {
        let d = lookup(10002).unwrap();
        assert_eq!(
            (d.path, d.ty, d.tx),
            ("sim/multiplay/chat", STRING, TT_ASIS)
        );
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
        assert_eq!(lookup(13002).unwrap().tx, TT_SHORT_FLOAT_NORM);
        assert_eq!(lookup(13002).unwrap().ty, INT);
        assert!(is_later(lookup(13003).unwrap()));
        assert!(!is_later(lookup(13002).unwrap()));
        for missing in [0, 9, 11031, 11039, 13004, 65536 + 100, u32::MAX] {
            assert!(lookup(missing).is_none(), "{missing}");
        }
        assert_eq!(Tx::SHORT_FLOAT_2.short_float_divisor(), Some(100.0));
        assert_eq!(Tx::SHORTINT.short_float_divisor(), None);
    }

    /// The compile-time index finds every row of both tables, and nothing else.
    #[test]
    fn index_finds_exactly_the_rows() {
        for row in TABLE.iter().chain(LATER.iter()) {
            let found = lookup(row.id as u32).unwrap();
            assert!(std::ptr::eq(found, row), "id {}", row.id);
        }
        let known = (0..=u16::MAX as u32)
            .filter(|&id| lookup(id).is_some())
            .count();
        assert_eq!(known, TABLE.len() + LATER.len());
    }
}
