//! Numbers as decimal text without the formatting machinery, for the per-message hot paths
//! (summary lines, JSON, timestamps): `{}` through itoa, and zero padding.

/// Appends `v` in decimal, as `{}` writes it.
#[inline]
pub fn push_uint(out: &mut String, v: u64) {
    if v < 10 {
        out.push((b'0' + v as u8) as char);
        return;
    }
    out.push_str(itoa::Buffer::new().format(v));
}

/// Appends `v` in decimal with a `-` when negative, as `{}` writes it.
#[inline]
pub fn push_int(out: &mut String, v: i64) {
    if (0..10).contains(&v) {
        out.push((b'0' + v as u8) as char);
        return;
    }
    out.push_str(itoa::Buffer::new().format(v));
}

/// Appends `v` in decimal, zero-padded to at least `width` digits (`{:0width$}`).
pub fn push_padded(out: &mut String, v: u64, width: usize) {
    let mut digits = itoa::Buffer::new();
    let digits = digits.format(v);
    for _ in digits.len()..width {
        out.push('0');
    }
    out.push_str(digits);
}

/// Appends `v` with `decimals` decimals, exactly as `{v:.decimals$}` writes it, without the
/// formatter's exact-decimal machinery (its bignum fallback was a tenth of FlightGear's summary
/// mode) when the answer is certain: `v` non-negative, `v * 10^decimals` under 2^32, so that
/// the product is within 2^-21 of the exact one, and not within 10^-6 of a rounding tie. Every
/// other value goes to the formatter.
pub fn push_fixed(out: &mut String, v: f64, decimals: usize) {
    const POW: [u64; 5] = [1, 10, 100, 1_000, 10_000];
    if let Some(&pow) = POW.get(decimals)
        && v.is_sign_positive()
    {
        let scaled = v * pow as f64;
        // `scaled < 2^32` is false for NaN and infinities too.
        if scaled < 4_294_967_296.0 {
            let floor = scaled.floor();
            let frac = scaled - floor;
            if (frac - 0.5).abs() > 1e-6 {
                let n = floor as u64 + u64::from(frac > 0.5);
                push_uint(out, n / pow);
                if decimals > 0 {
                    out.push('.');
                    push_padded(out, n % pow, decimals);
                }
                return;
            }
        }
    }
    use std::fmt::Write as _;
    let _ = write!(out, "{v:.decimals$}");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimal_text_matches_the_formatter() {
        for v in [0u64, 7, 9, 10, 99, 12_345, u64::MAX] {
            let mut s = String::new();
            push_uint(&mut s, v);
            assert_eq!(s, format!("{v}"));
        }
        for v in [0i64, 5, -1, -10, 10, i64::MIN, i64::MAX] {
            let mut s = String::new();
            push_int(&mut s, v);
            assert_eq!(s, format!("{v}"));
        }
        for (v, w) in [(0u64, 2), (5, 2), (123, 2), (42, 6), (0, 0), (1_234_567, 9)] {
            let mut s = String::new();
            push_padded(&mut s, v, w);
            assert_eq!(s, format!("{v:0w$}"));
        }
    }

    #[test]
    fn fixed_decimals_match_the_formatter() {
        let mut values = vec![
            0.0,
            -0.0,
            0.5,
            1.5,
            2.5,
            0.00005,
            0.00015,
            1.23445,
            37.61889999,
            122.375,
            179.99995,
            99.99995,
            1e9,
            4.2e5,
            429_496.729_5,
            1e300,
            -3.25,
            f64::NAN,
            f64::INFINITY,
        ];
        // A deterministic spread of values, many of them near ties.
        let mut x = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..200_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let v = (x >> 11) as f64 / (1u64 << 53) as f64 * 360.0;
            values.push(v);
            values.push((v * 1e4).round() / 1e4 + 0.00005);
            values.push((v * 100.0).round() + 0.5);
        }
        for v in values {
            for d in 0..=4 {
                let mut s = String::new();
                push_fixed(&mut s, v, d);
                assert_eq!(s, format!("{v:.d$}"), "{v:e} with {d} decimals");
            }
        }
    }
}
