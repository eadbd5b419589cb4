//! Builds FlightGear MP datagrams byte by byte, for the unit tests, the property test and the
//! hand-made capture ([`crate::captures::flightgear`]). Each function writes one structure of
//! FlightGear 2020.3 `src/MultiPlayer/` (`mpmessages.hxx`, `multiplaymgr.cxx`), named in its
//! comment.

use gamedissect::protocols::flightgear::constants::{MAGIC_FGFS, PROTO_VER, V2_PAD_MAGIC};
use gamedissect::protocols::flightgear::geo;

/// A datagram under construction.
#[derive(Debug, Clone, Default)]
pub struct Packet {
    pub bytes: Vec<u8>,
}

impl Packet {
    /// The 32-byte header (FlightGear `src/MultiPlayer/mpmessages.hxx` `T_MsgHdr`). `MsgLen` is written as 0 and fixed by [`Packet::finish`].
    pub fn header(
        magic: u32,
        msg_id: u32,
        range_word: u32,
        reply_port: u32,
        callsign: &str,
    ) -> Packet {
        let mut p = Packet::default();
        p.u32(magic);
        p.u32(PROTO_VER);
        p.u32(msg_id);
        p.u32(0);
        p.u32(range_word);
        p.u32(reply_port);
        // Callsign: at most 7 characters, NUL-padded to 8 (FillMsgHdr).
        let mut cs = [0u8; 8];
        for (d, s) in cs.iter_mut().zip(callsign.bytes().take(7)) {
            *d = s;
        }
        p.bytes.extend_from_slice(&cs);
        p
    }

    /// A client position header as FlightGear 2017.2+ writes it (range 100 nm).
    pub fn client(callsign: &str, msg_id: u32) -> Packet {
        Packet::header(MAGIC_FGFS, msg_id, 100, 0, callsign)
    }

    pub fn u32(&mut self, v: u32) -> &mut Self {
        self.bytes.extend_from_slice(&v.to_be_bytes());
        self
    }
    pub fn f32(&mut self, v: f32) -> &mut Self {
        self.bytes.extend_from_slice(&v.to_be_bytes());
        self
    }
    pub fn f64(&mut self, v: f64) -> &mut Self {
        self.bytes.extend_from_slice(&v.to_be_bytes());
        self
    }
    pub fn raw(&mut self, b: &[u8]) -> &mut Self {
        self.bytes.extend_from_slice(b);
        self
    }

    /// The 200-byte position block (FlightGear `src/MultiPlayer/mpmessages.hxx` `T_PositionMsg`) for an aircraft at lat/lon (degrees), altitude (metres)
    /// with heading/pitch/roll (degrees), body velocity u and the given pad word.
    #[allow(clippy::too_many_arguments)]
    pub fn position(
        &mut self,
        model: &str,
        time: f64,
        lat: f64,
        lon: f64,
        alt_m: f64,
        hpr: (f64, f64, f64),
        speed: f32,
        pad: u32,
    ) -> &mut Self {
        let mut m = [0u8; 96];
        for (d, s) in m.iter_mut().zip(model.bytes().take(95)) {
            *d = s;
        }
        self.raw(&m);
        self.f64(time).f64(0.1);
        let (la, lo) = (lat.to_radians(), lon.to_radians());
        for c in geo::geodetic_to_ecef(la, lo, alt_m) {
            self.f64(c);
        }
        let v = geo::angle_axis_for(
            lo,
            la,
            hpr.0.to_radians(),
            hpr.1.to_radians(),
            hpr.2.to_radians(),
        );
        for c in v {
            self.f32(c as f32);
        }
        self.f32(speed).f32(0.0).f32(0.0); // linearVel u v w
        for _ in 0..9 {
            self.f32(0.0); // angularVel, linearAccel, angularAccel
        }
        self.u32(pad)
    }

    /// v1 INT/BOOL: id32 + int32 (FlightGear `src/MultiPlayer/multiplaymgr.cxx`
    /// `FGMultiplayMgr::SendMyPosition`, the v1 branch).
    pub fn v1_int(&mut self, id: u32, v: i32) -> &mut Self {
        self.u32(id).u32(v as u32)
    }
    /// v1 FLOAT: id32 + float32 (`multiplaymgr.cxx` `FGMultiplayMgr::SendMyPosition`).
    pub fn v1_float(&mut self, id: u32, v: f32) -> &mut Self {
        self.u32(id).f32(v)
    }
    /// v1 STRING (`multiplaymgr.cxx` `FGMultiplayMgr::SendMyPosition`): id32, length, one sign-extended word per character, zero words to a
    /// multiple of four.
    pub fn v1_string(&mut self, id: u32, s: &[u8]) -> &mut Self {
        self.u32(id).u32(s.len() as u32);
        for &c in s {
            self.u32(c as i8 as i32 as u32);
        }
        for _ in 0..(4 - s.len() % 4) % 4 {
            self.u32(0);
        }
        self
    }
    /// v2 short: high 16 bits id, low 16 bits int16 (`multiplaymgr.cxx`
    /// `FGMultiplayMgr::SendMyPosition`, `TT_SHORTINT` and the short floats).
    pub fn short(&mut self, id: u16, v: i16) -> &mut Self {
        self.u32((id as u32) << 16 | v as u16 as u32)
    }
    /// Scaled short float: s = trunc(x · scale), clamped to ±32767 (`multiplaymgr.cxx`
    /// `FGMultiplayMgr::SendMyPosition`, `TT_SHORT_FLOAT_*`).
    pub fn short_float(&mut self, id: u16, x: f32, scale: f32) -> &mut Self {
        let s = (x * scale).clamp(-32767.0, 32767.0) as i16;
        self.short(id, s)
    }
    /// v2 STRING: id and length in one word, then the raw bytes, no padding (`multiplaymgr.cxx`
    /// `FGMultiplayMgr::SendMyPosition`).
    pub fn v2_string(&mut self, id: u16, s: &[u8]) -> &mut Self {
        self.short(id, s.len() as i16).raw(s)
    }
    /// Bool block: block id, then the 31-bit mask (`multiplaymgr.cxx`
    /// `FGMultiplayMgr::SendMyPosition`, the generic bools of 2017.2+).
    pub fn bool_block(&mut self, block: u32, mask: u32) -> &mut Self {
        self.u32(block).u32(mask)
    }

    /// Writes `MsgLen` = the datagram length (FillMsgHdr) and returns the bytes.
    pub fn finish(&mut self) -> Vec<u8> {
        let len = self.bytes.len() as u32;
        if let Some(w) = self.bytes.get_mut(12..16) {
            w.copy_from_slice(&len.to_be_bytes());
        }
        self.bytes.clone()
    }
}

/// A protocol-2 position packet of a c172p at KSFO, like FlightGear 2020.3 sends: id 10 first,
/// partition 1 shorts, partition 2 strings (chat), then the three bool blocks.
pub fn sample_v2(callsign: &str, chat: &str) -> Vec<u8> {
    let mut p = Packet::client(callsign, 7);
    p.position(
        "Aircraft/c172p/Models/c172p.xml",
        1234.5,
        37.6189,
        -122.375,
        3.0,
        (281.0, 2.0, -1.0),
        0.0,
        V2_PAD_MAGIC,
    );
    p.short(10, 2)
        .short_float(100, -0.5, 32767.0)
        .short_float(302, 2400.3, 10.0)
        .short_float(1001, 0.25, 10000.0)
        .short_float(1005, 1.0, 1000.0)
        .short(1201, 1)
        .v1_int(1501, 3000)
        .v2_string(1101, b"N123")
        .v2_string(10002, chat.as_bytes())
        .bool_block(11000, 0b101)
        .bool_block(11040, 0)
        .bool_block(11080, 1 << 11);
    p.finish()
}

/// The same aircraft as a protocol-1 packet (pad 0, v1 forms only, bool blocks appended).
pub fn sample_v1(callsign: &str, chat: &str) -> Vec<u8> {
    let mut p = Packet::client(callsign, 7);
    p.position(
        "Aircraft/c172p/Models/c172p.xml",
        1234.5,
        37.6189,
        -122.375,
        3.0,
        (281.0, 2.0, -1.0),
        0.0,
        0,
    );
    p.v1_float(100, -0.5)
        .v1_float(302, 2400.3)
        .v1_int(1501, 3000)
        .v1_string(1101, b"N123")
        .v1_string(10002, chat.as_bytes())
        .bool_block(11000, 0b101);
    p.finish()
}
