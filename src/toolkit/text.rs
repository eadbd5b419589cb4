//! Numbers as decimal text without the formatting machinery, for the per-message hot paths
//! (summary lines, JSON, timestamps): `{}` through itoa, and zero padding; and the one escaping
//! of text that came off the wire before a text writer prints it ([`push_escaped`]).

use std::borrow::Cow;

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

/// Whether a byte can start a character that [`push_escaped`] escapes: C0 controls, DEL, and
/// the lead bytes of C1 controls (`0xc2`) and of the bidirectional controls (`0xe2`).
const fn suspect(b: u8) -> bool {
    b < 0x20 || b == 0x7f || b == 0xc2 || b == 0xe2
}

/// The [`suspect`] bytes as a table, so that the scan is one load a byte.
static SUSPECT: [bool; 256] = {
    let mut t = [false; 256];
    let mut i = 0;
    while i < 256 {
        t[i] = suspect(i as u8);
        i += 1;
    }
    t
};

/// Whether `c` is one a terminal could take as a command or that reorders the text around it:
/// a C0 control (U+0000–U+001F), DEL (U+007F), a C1 control (U+0080–U+009F, the one-character
/// CSI U+009B among them), or a bidirectional override or isolate (U+202A–U+202E,
/// U+2066–U+2069).
#[inline]
pub fn is_unsafe(c: char) -> bool {
    matches!(c, '\u{0}'..='\u{1f}' | '\u{7f}'..='\u{9f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// Appends the visible form of an unsafe character ([`is_unsafe`]): `\n`, `\r`, `\t`; `\xNN` for
/// the other C0 controls and DEL (one byte, as the tree shows a byte that is not UTF-8); and
/// `\u{NNNN}` (lowercase hex, as Rust writes it) for a C1 or bidirectional control, a
/// character of two or three bytes. Any other character is appended as it is.
pub fn push_escaped_char(out: &mut String, c: char) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let n = c as u32;
    match c {
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        _ if n < 0x20 || n == 0x7f => {
            out.push_str("\\x");
            out.push(HEX[(n >> 4) as usize] as char);
            out.push(HEX[(n & 15) as usize] as char);
        }
        _ if is_unsafe(c) => {
            out.push_str("\\u{");
            let mut digits = [0u8; 8];
            let mut len = 0;
            let mut v = n;
            while v > 0 || len == 0 {
                digits[len] = HEX[(v & 15) as usize];
                v >>= 4;
                len += 1;
            }
            for &d in digits[..len].iter().rev() {
                out.push(d as char);
            }
            out.push('}');
        }
        _ => out.push(c),
    }
}

/// The offset of the first byte of `bytes` that may start an unsafe character ([`suspect`]),
/// if any: eight bytes at a time, then byte by byte through the table in the word that has one
/// and in the last few bytes. A summary has a suspect byte in nearly every line (`e2` starts
/// the arrow of `C→S`), so the words after it are tested the same fast way.
#[inline]
fn first_suspect(bytes: &[u8]) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    // Whether a byte of `w` equals `b`: a zero byte of `w ^ b…` (exact for the word as a whole).
    let has = |w: u64, b: u8| {
        let x = w ^ (ONES * u64::from(b));
        x.wrapping_sub(ONES) & !x
    };
    let mut i = 0;
    while let Some(word) = bytes.get(i..i + 8) {
        let w = u64::from_le_bytes(word.try_into().unwrap_or([0; 8]));
        // A byte under 0x20 (the has-less-than test), or one of 0x7f, 0xc2 and 0xe2.
        let control = w.wrapping_sub(ONES * 0x20) & !w;
        if (control | has(w, 0x7f) | has(w, 0xc2) | has(w, 0xe2)) & HIGH != 0 {
            break;
        }
        i += 8;
    }
    bytes[i..]
        .iter()
        .position(|&b| SUSPECT[b as usize])
        .map(|p| p + i)
}

/// The length in bytes of the unsafe character ([`is_unsafe`]) that starts at `bytes[0]`, or 0
/// when the character there is safe. Read from the UTF-8 form: a C1 control is `c2 80`–`c2 9f`,
/// a bidirectional control `e2 80 aa`–`e2 80 ae` or `e2 81 a6`–`e2 81 a9`. Most suspect bytes
/// start a safe character (`e2` starts the arrow of every Quake 3 summary), so this is the
/// common case and must not cost a character decode.
#[inline]
fn unsafe_len(bytes: &[u8]) -> usize {
    match bytes {
        [b, ..] if *b < 0x20 || *b == 0x7f => 1,
        [0xc2, 0x80..=0x9f, ..] => 2,
        [0xe2, 0x80, 0xaa..=0xae, ..] | [0xe2, 0x81, 0xa6..=0xa9, ..] => 3,
        _ => 0,
    }
}

/// The offset and length of the first unsafe character of `bytes` at or after `from`.
#[inline]
fn next_unsafe(bytes: &[u8], mut from: usize) -> Option<(usize, usize)> {
    while let Some(i) = bytes.get(from..).and_then(first_suspect).map(|p| p + from) {
        match unsafe_len(&bytes[i..]) {
            0 => from = i + 1,
            len => return Some((i, len)),
        }
    }
    None
}

/// Appends `s` with every unsafe character ([`is_unsafe`]) in its visible form
/// ([`push_escaped_char`]): text from the wire (names, chat, server info) is data, never
/// terminal commands. Nothing else changes: backslashes, quotes and Quake 3 colour codes
/// (`^1`) stay as they are. The safe runs between unsafe characters are copied whole, so text
/// with nothing to escape, nearly all of it, costs a scan and one copy.
#[inline]
pub fn push_escaped(out: &mut String, s: &str) {
    match next_unsafe(s.as_bytes(), 0) {
        None => out.push_str(s),
        Some(first) => push_escaped_from(out, s, first),
    }
}

#[cold]
fn push_escaped_from(out: &mut String, s: &str, first: (usize, usize)) {
    let bytes = s.as_bytes();
    let mut copied = 0;
    let mut at = Some(first);
    while let Some((i, len)) = at {
        // `i` starts a character and `i + len` ends it (the patterns of `unsafe_len` are whole
        // UTF-8 characters), so both slices fall on character boundaries.
        out.push_str(&s[copied..i]);
        s[i..i + len]
            .chars()
            .for_each(|c| push_escaped_char(out, c));
        copied = i + len;
        at = next_unsafe(bytes, copied);
    }
    out.push_str(&s[copied..]);
}

/// `s` with its unsafe characters escaped as [`push_escaped`] does; borrowed, without a copy,
/// when it has none.
pub fn escaped(s: &str) -> Cow<'_, str> {
    match next_unsafe(s.as_bytes(), 0) {
        None => Cow::Borrowed(s),
        Some(first) => {
            let mut out = String::with_capacity(s.len() + 8);
            push_escaped_from(&mut out, s, first);
            Cow::Owned(out)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping_gives_exact_forms() {
        let cases = [
            ("plain ^1name^7", "plain ^1name^7"),
            ("", ""),
            ("a\x1b[2Jb", "a\\x1b[2Jb"),
            ("\x1b]52;c;aGk=\x07", "\\x1b]52;c;aGk=\\x07"),
            ("line\nnext\r\ttab", "line\\nnext\\r\\ttab"),
            ("nul\0del\x7f", "nul\\x00del\\x7f"),
            ("csi\u{9b}31m", "csi\\u{9b}31m"),
            ("c1 \u{80} \u{9f}", "c1 \\u{80} \\u{9f}"),
            ("rlo\u{202e}txt.exe", "rlo\\u{202e}txt.exe"),
            ("\u{202a}\u{2066}\u{2069}", "\\u{202a}\\u{2066}\\u{2069}"),
            // Not controls: kept.
            (
                "\u{a0}é€\u{2028}\u{200f}\u{202f}\u{2065}\u{206a}",
                "\u{a0}é€\u{2028}\u{200f}\u{202f}\u{2065}\u{206a}",
            ),
            ("back\\slash \"q\"", "back\\slash \"q\""),
        ];
        for (text, want) in cases {
            let mut out = String::from(">");
            push_escaped(&mut out, text);
            assert_eq!(out, format!(">{want}"), "{text:?}");
            assert_eq!(escaped(text), want, "{text:?}");
        }
        // Every position of every unsafe character in a longer text (the eight-byte scan).
        for bad in [
            '\0', '\x1b', '\x1f', '\x7f', '\u{80}', '\u{9b}', '\u{202e}', '\u{2069}',
        ] {
            for at in 0..20 {
                let mut text = "abcdefghijklmnopqrstuvwxyz ^1~ ".repeat(2);
                text.insert(at, bad);
                let mut want = text[..at].to_string();
                push_escaped_char(&mut want, bad);
                want.push_str(&text[at + bad.len_utf8()..]);
                assert_eq!(escaped(&text), want, "{bad:?} at {at}");
            }
        }
        for ok in [' ', '~', '\u{a0}', 'é', '€', '\u{2065}'] {
            let text = format!("{}{ok}{}", "x".repeat(11), "y".repeat(9));
            assert!(matches!(escaped(&text), Cow::Borrowed(_)), "{ok:?}");
        }
        assert!(matches!(escaped("é€ ^3ok"), Cow::Borrowed(_)));
        assert!(matches!(escaped("quake3 C→S seq 5 ‹x›"), Cow::Borrowed(_)));
        assert_eq!(escaped("→\u{202e}→\u{85}→"), "→\\u{202e}→\\u{85}→");
        assert!(matches!(escaped("plain"), Cow::Borrowed(_)));
    }

    #[test]
    fn every_unsafe_character_is_escaped() {
        for n in 0..0x3000u32 {
            let Some(c) = char::from_u32(n) else { continue };
            let mut out = String::new();
            push_escaped_char(&mut out, c);
            if is_unsafe(c) {
                assert!(out.starts_with('\\') && out.is_ascii(), "{n:x}");
                assert!(!out.chars().any(is_unsafe), "{n:x}");
            } else {
                assert_eq!(out, c.to_string());
            }
            assert_eq!(
                is_unsafe(c),
                c.is_control() || matches!(n, 0x202a..=0x202e | 0x2066..=0x2069)
            );
        }
    }

    /// The byte patterns the scan matches are exactly the unsafe characters, each whole.
    #[test]
    fn the_byte_patterns_are_the_unsafe_characters() {
        let mut buf = [0u8; 4];
        for c in (0..=0x10_ffffu32).filter_map(char::from_u32) {
            let bytes = c.encode_utf8(&mut buf).as_bytes();
            let want = if is_unsafe(c) { c.len_utf8() } else { 0 };
            assert_eq!(unsafe_len(bytes), want, "{:x}", c as u32);
        }
    }

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
