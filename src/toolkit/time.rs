//! Capture timestamps and their RFC 3339 rendering, with the capture's own precision.

use std::fmt::Write;

use super::text::{push_padded, push_uint};

/// Seconds and nanoseconds since the Unix epoch, plus how many fractional digits the capture
/// really has (6 for µs pcap, 9 for ns, `if_tsresol` for pcapng).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Timestamp {
    pub secs: i64,
    pub nanos: u32,
    pub digits: u8,
}

impl Timestamp {
    pub fn new(secs: i64, nanos: u32, digits: u8) -> Timestamp {
        Timestamp {
            secs,
            nanos: nanos.min(999_999_999),
            digits: digits.min(9),
        }
    }

    /// Total nanoseconds (saturating), for differences.
    pub fn as_nanos(&self) -> i128 {
        self.secs as i128 * 1_000_000_000 + self.nanos as i128
    }

    /// Seconds elapsed since `earlier` (negative when the capture goes back in time).
    pub fn secs_since(&self, earlier: &Timestamp) -> f64 {
        (self.as_nanos() - earlier.as_nanos()) as f64 / 1e9
    }

    fn write_fraction(&self, out: &mut String, nanos: u32) {
        if self.digits > 0 {
            let scaled = nanos / 10u32.pow(9 - self.digits as u32);
            out.push('.');
            push_padded(out, scaled as u64, self.digits as usize);
        }
    }

    /// `2026-11-21T18:55:00.123456Z`.
    pub fn rfc3339(&self) -> String {
        let mut s = String::with_capacity(32);
        self.rfc3339_into(&mut s);
        s
    }

    /// Appends the RFC 3339 form to `s`.
    pub fn rfc3339_into(&self, s: &mut String) {
        let days = self.secs.div_euclid(86_400);
        let sod = self.secs.rem_euclid(86_400);
        let (y, m, d) = civil_from_days(days);
        if (0..=9999).contains(&y) {
            push_padded(s, y as u64, 4);
        } else {
            let _ = write!(s, "{y:04}");
        }
        for (sep, v) in [
            ('-', m as u64),
            ('-', d as u64),
            ('T', sod as u64 / 3600),
            (':', (sod as u64 / 60) % 60),
            (':', sod as u64 % 60),
        ] {
            s.push(sep);
            push_padded(s, v, 2);
        }
        self.write_fraction(s, self.nanos);
        s.push('Z');
    }

    /// Relative time since `base`, with this timestamp's precision: `12.345678`.
    pub fn relative(&self, base: &Timestamp) -> String {
        let mut s = String::with_capacity(20);
        self.relative_into(&mut s, base);
        s
    }

    /// Appends the relative time since `base` to `s`.
    pub fn relative_into(&self, s: &mut String, base: &Timestamp) {
        // Whole seconds and nanoseconds apart, without 128-bit division (this runs per line).
        let (mut secs, mut nanos) = (
            self.secs as i128 - base.secs as i128,
            self.nanos as i64 - base.nanos as i64,
        );
        if nanos < 0 {
            secs -= 1;
            nanos += 1_000_000_000;
        }
        if secs < 0 {
            // Negative: the magnitude of secs + nanos/1e9.
            s.push('-');
            if nanos > 0 {
                secs += 1;
                nanos = 1_000_000_000 - nanos;
            }
        }
        match u64::try_from(secs.unsigned_abs()) {
            Ok(v) => push_uint(s, v),
            Err(_) => {
                let _ = write!(s, "{}", secs.unsigned_abs());
            }
        }
        self.write_fraction(s, nanos as u32);
    }
}

/// Days since 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's algorithm).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc3339_with_capture_precision() {
        assert_eq!(
            Timestamp::new(0, 0, 6).rfc3339(),
            "1970-01-01T00:00:00.000000Z"
        );
        assert_eq!(
            Timestamp::new(1_700_000_000, 123_456_789, 9).rfc3339(),
            "2023-11-14T22:13:20.123456789Z"
        );
        assert_eq!(
            Timestamp::new(1_700_000_000, 123_456_000, 6).rfc3339(),
            "2023-11-14T22:13:20.123456Z"
        );
        assert_eq!(
            Timestamp::new(951_782_400, 0, 0).rfc3339(),
            "2000-02-29T00:00:00Z"
        );
        assert_eq!(
            Timestamp::new(-1, 500_000_000, 1).rfc3339(),
            "1969-12-31T23:59:59.5Z"
        );
    }

    #[test]
    fn relative_time() {
        let base = Timestamp::new(100, 900_000_000, 6);
        assert_eq!(
            Timestamp::new(102, 100_000_000, 6).relative(&base),
            "1.200000"
        );
        assert_eq!(
            Timestamp::new(100, 800_000_000, 3).relative(&base),
            "-0.100"
        );
        assert_eq!(
            Timestamp::new(99, 700_000_000, 6).relative(&base),
            "-1.200000"
        );
        assert_eq!(Timestamp::new(98, 900_000_000, 0).relative(&base), "-2");
        assert_eq!(
            Timestamp::new(100, 900_000_000, 9).relative(&base),
            "0.000000000"
        );
        assert_eq!(
            Timestamp::new(i64::MAX, 0, 0).relative(&Timestamp::new(i64::MIN, 0, 0)),
            "18446744073709551615"
        );
        assert_eq!(
            Timestamp::new(12_345, 6_000, 6).rfc3339(),
            "1970-01-01T03:25:45.000006Z"
        );
        assert_eq!(Timestamp::new(102, 100_000_000, 6).secs_since(&base), 1.2);
    }
}
