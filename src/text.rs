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
}
