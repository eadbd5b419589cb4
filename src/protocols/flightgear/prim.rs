//! The small pieces the datagram, position and property decoders share: the position of a
//! named byte range, the `Facts` a message tells about its sender, text from wire bytes,
//! the summary's quoting and model name, and the scaling of a short float.

use std::borrow::Cow;

use super::tables::Tx;
use crate::tree::Pos;
use crate::wire::Range;

/// The position of a named range.
pub(super) fn pos(r: Range) -> Pos {
    Pos::bytes(r.start, r.len())
}

/// What the position block and properties told, for the summary and the flow state.
#[derive(Debug, Default)]
pub(super) struct Facts<'a> {
    pub(super) model: Option<Cow<'a, str>>,
    pub(super) geo: Option<(f64, f64, f64)>,
    pub(super) heading: Option<f64>,
    pub(super) chat: Option<Cow<'a, str>>,
    pub(super) protocol: Option<u8>,
    pub(super) props_cut: bool,
    /// The sender's simulation time (`T_PositionMsg.time`), which only grows.
    pub(super) time: Option<f64>,
}

/// The value of a v2 short float element: `int16 / divisor`, as FlightGear computes it in double
/// precision and stores it in a float.
pub fn scale_short(raw: i16, tx: Tx) -> Option<f32> {
    tx.short_float_divisor().map(|d| (raw as f64 / d) as f32)
}

/// The model's short name: the file name of the model path without `.xml`
/// (`Aircraft/c172p/Models/c172p.xml` → `c172p`).
pub fn model_short(path: &str) -> &str {
    let file = path.rsplit('/').next().unwrap_or(path);
    let stem = file.strip_suffix(".xml").unwrap_or(file);
    if stem.is_empty() { path } else { stem }
}

/// Text from wire bytes, invalid UTF-8 replaced: `String::from_utf8_lossy`, with the
/// validation's fast path first (the callsign, model and chat line of every message are
/// almost always ASCII, and the lossy decoder's per-chunk loop was 2% of a summary run).
pub(super) fn lossy(bytes: &[u8]) -> Cow<'_, str> {
    match std::str::from_utf8(bytes) {
        Ok(s) => Cow::Borrowed(s),
        Err(_) => String::from_utf8_lossy(bytes),
    }
}

/// Quotes a chat line for the summary, shortened to 80 characters.
pub(super) fn quote(s: &str) -> String {
    let mut out = String::from("\"");
    for (i, ch) in s.chars().enumerate() {
        if i == 80 {
            out.push('…');
            break;
        }
        crate::text::push_escaped_char(&mut out, ch);
    }
    out.push('"');
    out
}
