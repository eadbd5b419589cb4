//! Derived position: WGS-84 geodetic coordinates from the ECEF position, and heading, pitch and
//! roll from the angle-axis orientation at that position.
//!
//! Sources: SimGear `simgear/math/SGQuat.hxx`
//! (`fromAngleAxis`, `fromLonLatRad`, `getEulerRad`, `operator*`) for the quaternion
//! conventions, WGS-84 (NIMA TR8350.2: a = 6378137 m, 1/f = 298.257223563) for the ellipsoid.
//! Everything is plain `f64` arithmetic: any input, NaN included, gives some output, never a
//! panic.

/// WGS-84 semi-major axis, metres.
pub const WGS84_A: f64 = 6_378_137.0;
/// WGS-84 flattening.
pub const WGS84_F: f64 = 1.0 / 298.257_223_563;
/// Feet per metre (1 ft = 0.3048 m exactly).
pub const FT_PER_M: f64 = 1.0 / 0.3048;

/// Geodetic position: latitude and longitude in radians, height above the ellipsoid in metres.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Geodetic {
    pub lat: f64,
    pub lon: f64,
    pub alt: f64,
}

/// ECEF (metres) to WGS-84 geodetic, by Bowring's formula refined with two Newton-style
/// iterations of the latitude (sub-millimetre for any point near the Earth's surface).
pub fn ecef_to_geodetic(x: f64, y: f64, z: f64) -> Geodetic {
    let a = WGS84_A;
    let f = WGS84_F;
    let b = a * (1.0 - f);
    let e2 = f * (2.0 - f);
    let ep2 = e2 / (1.0 - e2);
    let p = x.hypot(y);
    let lon = y.atan2(x);
    // Bowring's initial parametric latitude.
    let theta = (z * a).atan2(p * b);
    let (st, ct) = theta.sin_cos();
    let mut lat = (z + ep2 * b * st * st * st).atan2(p - e2 * a * ct * ct * ct);
    let mut alt = 0.0;
    for _ in 0..3 {
        let (sl, cl) = lat.sin_cos();
        let n = a / (1.0 - e2 * sl * sl).sqrt();
        alt = if cl.abs() > 1e-9 {
            p / cl - n
        } else {
            z.abs() - b
        };
        let next = z.atan2(p * (1.0 - e2 * n / (n + alt)));
        // At a fixed point another round computes the same altitude and latitude again, so
        // stopping changes no bit (a round is a `sincos`, a square root and an `atan2`).
        if next.to_bits() == lat.to_bits() {
            break;
        }
        lat = next;
    }
    Geodetic { lat, lon, alt }
}

/// WGS-84 geodetic (radians, metres) to ECEF metres; used by the tests and the capture builders.
pub fn geodetic_to_ecef(lat: f64, lon: f64, alt: f64) -> [f64; 3] {
    let e2 = WGS84_F * (2.0 - WGS84_F);
    let (sl, cl) = lat.sin_cos();
    let n = WGS84_A / (1.0 - e2 * sl * sl).sqrt();
    [
        (n + alt) * cl * lon.cos(),
        (n + alt) * cl * lon.sin(),
        (n * (1.0 - e2) + alt) * sl,
    ]
}

/// A quaternion (w, x, y, z), SimGear's component order and Hamilton product.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Quat {
    pub w: f64,
    pub x: f64,
    pub y: f64,
    pub z: f64,
}

impl Quat {
    /// Hamilton product `self · r`.
    pub fn hamilton(self, r: Quat) -> Quat {
        let l = self;
        Quat {
            w: l.w * r.w - l.x * r.x - l.y * r.y - l.z * r.z,
            x: l.w * r.x + l.x * r.w + l.y * r.z - l.z * r.y,
            y: l.w * r.y - l.x * r.z + l.y * r.w + l.z * r.x,
            z: l.w * r.z + l.x * r.y - l.y * r.x + l.z * r.w,
        }
    }

    pub fn conj(self) -> Quat {
        Quat {
            w: self.w,
            x: -self.x,
            y: -self.y,
            z: -self.z,
        }
    }

    /// `SGQuat::fromAngleAxis`: the vector's length is the angle, its direction the axis.
    pub fn from_angle_axis(v: [f64; 3]) -> Quat {
        let angle = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
        if angle.is_nan() || angle <= 1e-12 {
            return Quat {
                w: 1.0,
                x: 0.0,
                y: 0.0,
                z: 0.0,
            };
        }
        let s = (angle / 2.0).sin() / angle;
        Quat {
            w: (angle / 2.0).cos(),
            x: v[0] * s,
            y: v[1] * s,
            z: v[2] * s,
        }
    }

    /// The inverse of [`Quat::from_angle_axis`] (for tests and capture builders).
    pub fn to_angle_axis(self) -> [f64; 3] {
        let q = if self.w < 0.0 {
            Quat {
                w: -self.w,
                x: -self.x,
                y: -self.y,
                z: -self.z,
            }
        } else {
            self
        };
        let sin_half = (q.x * q.x + q.y * q.y + q.z * q.z).sqrt();
        if sin_half < 1e-12 {
            return [0.0; 3];
        }
        let angle = 2.0 * sin_half.atan2(q.w);
        let k = angle / sin_half;
        [q.x * k, q.y * k, q.z * k]
    }

    /// `SGQuat::fromLonLatRad`: rotation from ECEF to the local horizontal frame (x north,
    /// y east, z down) at a position.
    pub fn from_lon_lat(lon: f64, lat: f64) -> Quat {
        let a = lon / 2.0;
        let b = -std::f64::consts::FRAC_PI_4 - lat / 2.0;
        let (sa, ca) = a.sin_cos();
        let (sb, cb) = b.sin_cos();
        Quat {
            w: ca * cb,
            x: -sa * sb,
            y: ca * sb,
            z: sa * cb,
        }
    }

    /// `SGQuat::fromYawPitchRoll` (radians), for tests and capture builders.
    pub fn from_yaw_pitch_roll(yaw: f64, pitch: f64, roll: f64) -> Quat {
        let (sz, cz) = (yaw / 2.0).sin_cos();
        let (sy, cy) = (pitch / 2.0).sin_cos();
        let (sx, cx) = (roll / 2.0).sin_cos();
        Quat {
            w: cz * cy * cx + sz * sy * sx,
            x: cz * cy * sx - sz * sy * cx,
            y: cz * sy * cx + sz * cy * sx,
            z: sz * cy * cx - cz * sy * sx,
        }
    }

    /// `SGQuat::getEulerRad`: (heading in [0, 2π), pitch, roll) in radians.
    pub fn euler(self) -> (f64, f64, f64) {
        let Quat { w, x, y, z } = self;
        let roll = (2.0 * (y * z + w * x)).atan2(w * w - x * x - y * y + z * z);
        let s = (2.0 * (x * z - w * y)).clamp(-1.0, 1.0);
        let pitch = -s.asin();
        let mut heading = (2.0 * (x * y + w * z)).atan2(w * w + x * x - y * y - z * z);
        if heading < 0.0 {
            heading += 2.0 * std::f64::consts::PI;
        }
        (heading, pitch, roll)
    }
}

/// Heading, pitch and roll in degrees (heading in [0, 360)) of an orientation sent as an
/// angle-axis vector by an aircraft at geodetic `lon`/`lat` (radians).
pub fn attitude_deg(angle_axis: [f64; 3], lon: f64, lat: f64) -> (f64, f64, f64) {
    let q = Quat::from_angle_axis(angle_axis);
    let hl = Quat::from_lon_lat(lon, lat).conj().hamilton(q);
    let (h, p, r) = hl.euler();
    let mut hd = h.to_degrees();
    if hd >= 360.0 {
        hd -= 360.0;
    }
    (hd, p.to_degrees(), r.to_degrees())
}

/// The heading alone, as [`attitude_deg`] gives it: the summary line shows no pitch or roll,
/// and their `atan2` and `asin` were a tenth of a summary run.
pub fn heading_deg(angle_axis: [f64; 3], lon: f64, lat: f64) -> f64 {
    let q = Quat::from_angle_axis(angle_axis);
    let Quat { w, x, y, z } = Quat::from_lon_lat(lon, lat).conj().hamilton(q);
    // The heading term of `Quat::euler`, written the same way so the result is the same bits.
    let mut h = (2.0 * (x * y + w * z)).atan2(w * w + x * x - y * y - z * z);
    if h < 0.0 {
        h += 2.0 * std::f64::consts::PI;
    }
    let mut hd = h.to_degrees();
    if hd >= 360.0 {
        hd -= 360.0;
    }
    hd
}

/// The angle-axis vector a sender at `lon`/`lat` with this heading/pitch/roll (all radians)
/// puts on the wire (`q = q_ec2hl(lon, lat) · q_hl(heading, pitch, roll)`).
pub fn angle_axis_for(lon: f64, lat: f64, heading: f64, pitch: f64, roll: f64) -> [f64; 3] {
    Quat::from_lon_lat(lon, lat)
        .hamilton(Quat::from_yaw_pitch_roll(heading, pitch, roll))
        .to_angle_axis()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    #[test]
    fn equator_and_poles() {
        let g = ecef_to_geodetic(WGS84_A, 0.0, 0.0);
        assert!(close(g.lat, 0.0, 1e-12) && close(g.lon, 0.0, 1e-12) && close(g.alt, 0.0, 1e-6));
        // b = a (1 - f) = 6356752.314245 m.
        let g = ecef_to_geodetic(0.0, 0.0, 6_356_752.314_245);
        assert!(close(g.lat.to_degrees(), 90.0, 1e-9));
        assert!(close(g.alt, 0.0, 1e-3), "{}", g.alt);
        let g = ecef_to_geodetic(0.0, 0.0, -6_356_752.314_245 - 1000.0);
        assert!(close(g.lat.to_degrees(), -90.0, 1e-9));
        assert!(close(g.alt, 1000.0, 1e-3));
        let g = ecef_to_geodetic(0.0, WGS84_A + 100.0, 0.0);
        assert!(close(g.lon.to_degrees(), 90.0, 1e-12) && close(g.alt, 100.0, 1e-6));
    }

    #[test]
    fn known_point_ksfo() {
        // The start position of the golden captures (37.6189 N, 122.3750 W): its ECEF
        // coordinates worked out independently of the code under test:
        // N = a / sqrt(1 - e² sin² φ) = 6386106.404 m; X = N cos φ cos λ, etc. (computed with Python).
        let [x, y, z] = geodetic_to_ecef(37.6189f64.to_radians(), (-122.375f64).to_radians(), 0.0);
        assert!(close(x, -2_708_541.233, 1e-3), "{x}");
        assert!(close(y, -4_272_097.155, 1e-3), "{y}");
        assert!(close(z, 3_872_025.237, 1e-3), "{z}");
        let g = ecef_to_geodetic(x, y, z);
        assert!(close(g.lat.to_degrees(), 37.6189, 1e-9));
        assert!(close(g.lon.to_degrees(), -122.375, 1e-9));
        assert!(close(g.alt, 0.0, 1e-3));
    }

    #[test]
    fn round_trip_many_points() {
        for lat in [-89.9, -60.0, -12.5, 0.0, 0.001, 37.6189, 51.47, 89.99] {
            for lon in [-179.9, -122.375, 0.0, 45.0, 179.9] {
                for alt in [-400.0, 0.0, 914.4, 12_000.0] {
                    let [x, y, z] =
                        geodetic_to_ecef(f64::to_radians(lat), f64::to_radians(lon), alt);
                    let g = ecef_to_geodetic(x, y, z);
                    assert!(close(g.lat.to_degrees(), lat, 1e-9), "{lat} {lon} {alt}");
                    assert!(close(g.lon.to_degrees(), lon, 1e-9));
                    assert!(close(g.alt, alt, 1e-3), "{lat} {lon} {alt}: {}", g.alt);
                }
            }
        }
    }

    #[test]
    fn level_north_at_null_island_is_a_quarter_turn_about_minus_y() {
        // q_ec2hl(0, 0) = (cos(-π/4), 0, sin(-π/4), 0): angle π/2 about -Y.
        let v = angle_axis_for(0.0, 0.0, 0.0, 0.0, 0.0);
        assert!(close(v[0], 0.0, 1e-12) && close(v[2], 0.0, 1e-12));
        assert!(close(v[1], -std::f64::consts::FRAC_PI_2, 1e-12));
        let (h, p, r) = attitude_deg([0.0, -std::f64::consts::FRAC_PI_2, 0.0], 0.0, 0.0);
        assert!(close(h, 0.0, 1e-9) && close(p, 0.0, 1e-9) && close(r, 0.0, 1e-9));
    }

    #[test]
    fn attitude_round_trips() {
        for (lat, lon) in [
            (37.6189, -122.375),
            (-33.9, 151.2),
            (0.0, 0.0),
            (64.0, -21.9),
        ] {
            for (h, p, r) in [
                (280.0, 0.0, 0.0),
                (0.5, 10.0, -20.0),
                (181.0, -5.0, 45.0),
                (90.0, 30.0, 0.0),
            ] {
                let (la, lo) = (f64::to_radians(lat), f64::to_radians(lon));
                let v = angle_axis_for(
                    lo,
                    la,
                    f64::to_radians(h),
                    f64::to_radians(p),
                    f64::to_radians(r),
                );
                // The wire carries f32: decode from single precision, as a receiver must.
                let v = v.map(|c| c as f32 as f64);
                let (hd, pd, rd) = attitude_deg(v, lo, la);
                assert!(close(hd, h, 1e-3), "{lat} {lon}: heading {hd} want {h}");
                assert!(close(pd, p, 1e-3), "pitch {pd} want {p}");
                assert!(close(rd, r, 1e-3), "roll {rd} want {r}");
            }
        }
    }

    #[test]
    fn garbage_does_not_panic() {
        let g = ecef_to_geodetic(f64::NAN, f64::INFINITY, -0.0);
        let _ = attitude_deg([f64::NAN, 1e300, -1e300], g.lon, g.lat);
        let g = ecef_to_geodetic(0.0, 0.0, 0.0);
        assert!(g.lon == 0.0);
        let _ = attitude_deg([0.0; 3], f64::NAN, f64::NAN);
    }
}
