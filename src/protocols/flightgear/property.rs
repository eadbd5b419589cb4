//! The property section of a position message, in both encodings: FlightGear 2020.3
//! `src/MultiPlayer/multiplaymgr.cxx` `FGMultiplayMgr::ProcessPosMsg` (receiver) and
//! `SendMyPosition` (sender), with the id table of [`super::tables`].
//!
//! The section has no count and no element lengths: the size of an element is known only from
//! its id, so the walk stops at an unknown id exactly as `ProcessPosMsg` does. The high half
//! of an element's first word decides its form: non-zero is a protocol-2 short element (id and
//! int16 in one word), zero a v1 element (32-bit id, then the value by the declared type).

use super::constants::MAX_TEXT_SIZE;
use super::fields as f;
use super::notes;
use super::prim::{Facts, lossy, scale_short};
use super::tables::{self, PropDef, PropType, Tx};
use crate::tree::{Pos, TreeBuilder, Value};
use crate::wire::{Cursor, Dissector, Step, Stop};

/// Bool blocks (`BOOLARRAY_BASE_1..3`); a receiver takes any v1 BOOL id in this range as a block.
const BOOLARRAY_START: u32 = 11000;
const BOOLARRAY_END: u32 = 11080;
const BOOLARRAY_BLOCKS: [u32; 3] = [11000, 11040, 11080];
/// Most property items emitted per message (a 1200-byte packet holds far fewer; this bounds
/// the tree of a hostile 64 KiB datagram full of bool blocks).
const MAX_ITEMS: usize = 4096;
/// Property ids the decoder looks at: the protocol version, the launchbar state code
/// (`decode_received_launchbar_state`) and the chat line.
const ID_PROTOCOL_VERSION: u32 = 10;
const ID_LAUNCHBAR_STATE: u32 = 120;
const ID_CHAT: u32 = 10002;
/// The characters of `flightgear.properties.forms`: a short element (an id and an int16 in
/// one word, or a compact string), a v1 element (a 32-bit id, then the value), a bit of a
/// bool block.
const FORM_SHORT: char = 's';
const FORM_V1: char = 'v';
const FORM_BOOL_BIT: char = 'b';

crate::open_enum! {
    /// Launchbar state codes carried by id 120: `multiplaymgr.cxx`
    /// `decode_received_launchbar_state`.
    pub struct Launchbar(i16) {
        ENGAGED = 0 => "Engaged",
        LAUNCHING = 1 => "Launching",
        COMPLETED = 2 => "Completed",
        DISENGAGED = 3 => "Disengaged",
    }
}

/// What the walk adds after the elements: bool blocks' words and the undecoded rest, which
/// sit beside the pairs of ids and values, not among them.
struct After {
    /// Where each bool block starts, its id and its mask.
    blocks: Vec<(usize, u32, u32)>,
    /// Where the bytes after an unknown id start.
    undecoded: Option<usize>,
    /// The wire form of each element (`flightgear.properties.forms`).
    forms: String,
    /// The ids seen so far in this message, by [`tables::slot`], and whether a repeat was
    /// noted: FlightGear never repeats one (`FGMultiplayMgr::SendMyPosition` writes each
    /// property once), and a repeat would be a repeated key in the JSON object.
    seen: [u64; tables::SLOTS.div_ceil(64)],
    repeat_noted: bool,
}

impl Default for After {
    fn default() -> Self {
        After {
            blocks: Vec::new(),
            undecoded: None,
            forms: String::new(),
            seen: [0; tables::SLOTS.div_ceil(64)],
            repeat_noted: false,
        }
    }
}

/// Marks `id` as seen in this message; its second appearance gets a warning (once a message).
#[inline]
fn mark_seen(d: &mut Dissector<'_>, after: &mut After, id: u32, pos: Pos) {
    let Some(slot) = tables::slot(id) else {
        return;
    };
    let (word, bit) = (slot / 64, 1u64 << (slot % 64));
    if after.seen[word] & bit == 0 {
        after.seen[word] |= bit;
        return;
    }
    if !after.repeat_noted {
        after.repeat_noted = true;
        d.tree.expert(
            &notes::REPEATED_ID,
            Some(&f::PROP_ID),
            Some(pos),
            format!("property id {id} appears twice in this message: the JSON object repeats its key (the tree and `forms` keep both elements)"),
        );
    }
}

/// Walks the property section from `start` to the end of the message: the elements as
/// pairs of an id and a value in one group (JSON: an object keyed by path), then the bool
/// blocks' words and any rest that cannot be decoded.
pub(super) fn walk<'a>(d: &mut Dissector<'a>, start: usize, facts: &mut Facts<'a>) {
    let end = d.cur.len();
    if start >= end {
        return;
    }
    d.cur.seek(start);
    d.tree
        .open(&f::PROPERTIES, Value::None, Pos::bytes(start, end - start));
    d.tree
        .open(&f::PROPERTY, Value::None, Pos::bytes(start, end - start));
    // Room for the usual case (one 4-byte element per pair) up front: growing the list
    // element by element reallocated it eight times a message.
    d.tree.reserve(2 * ((end - start) / 4).min(MAX_ITEMS));
    let mut after = After::default();
    let elements_end = elements(d, facts, &mut after);
    d.tree.close(elements_end);
    if d.tree.detail() {
        d.tree.add(
            &f::PROP_FORMS,
            Value::Str(after.forms.as_str().into()),
            Pos::bytes(start, elements_end - start),
        );
    }
    for &(at, id, mask) in &after.blocks {
        bool_block_words(d, at, id, mask);
    }
    if let Some(at) = after.undecoded {
        let body = d.cur.data();
        d.tree.add(
            &f::PROPS_UNDECODED,
            Value::Bytes(body[at..].into()),
            Pos::bytes(at, body.len() - at),
        );
    }
    leftover(d);
    match facts.protocol {
        Some(2) => d.tree.set_group_meaning("protocol 2 encoding"),
        Some(_) => d.tree.set_group_meaning("protocol 1 encoding"),
        None => {}
    }
    d.tree.close(end);
}

/// The elements, until the data ends or one stops the walk; returns where the last decoded
/// element ends.
fn elements<'a>(d: &mut Dissector<'a>, facts: &mut Facts<'a>, after: &mut After) -> usize {
    let end = d.cur.len();
    let detail = d.tree.detail();
    let mut items = 0usize;
    let mut first = true;
    let mut decoded_end = d.pos();
    while d.cur.remaining() >= 4 {
        if !detail
            && items < MAX_ITEMS
            && let Some((id, size)) = plain_size(d.cur.data(), d.pos())
        {
            mark_seen(d, after, id, Pos::bytes(d.pos(), 4));
            d.cur.seek(d.pos() + size);
            items += 1;
            decoded_end = d.pos();
            first = false;
            continue;
        }
        if items >= MAX_ITEMS {
            let at = d.pos();
            d.tree.expert(
                &notes::TOO_MANY_ITEMS,
                Some(&f::PROPERTIES),
                Some(Pos::bytes(at, end - at)),
                format!("more than {MAX_ITEMS} property values: the rest is not shown"),
            );
            break;
        }
        match element(d, facts, first, after) {
            Ok(n) => items += n,
            Err(Stop) => {
                facts.props_cut = true;
                break;
            }
        }
        decoded_end = d.pos();
        first = false;
    }
    decoded_end
}

/// The size of the element at `at` when, without a tree, decoding it would only step over it:
/// a known id (not a later one, which gets a note) of a number or bool whose value nothing
/// else reads (not the protocol version; a short float scaled by its TransmitAs, a v1 bool
/// outside the bool blocks), with its bytes all there. Everything else goes through
/// [`element`], so the summary's notes, chat line and protocol are the same; this is the
/// summary's shortcut over the 150-200 elements of a packet.
#[inline]
fn plain_size(data: &[u8], at: usize) -> Option<(u32, usize)> {
    let word = data.get(at..at.checked_add(4)?)?;
    let w = u32::from_be_bytes([word[0], word[1], word[2], word[3]]);
    let short = w >> 16 != 0;
    let id = if short { w >> 16 } else { w };
    let def = tables::lookup(id)?;
    if tables::is_later(def) {
        return None;
    }
    let plain = match def.ty {
        PropType::INT => !short || id != ID_PROTOCOL_VERSION,
        PropType::BOOL => !is_bool_block(def, id, short),
        PropType::FLOAT => !short || def.tx.short_float_divisor().is_some(),
        _ => false,
    };
    let size = if short { 4 } else { 8 };
    (plain && data.len() - at >= size).then_some((id, size))
}

/// Fewer than 4 bytes after the last element: too short for another one.
fn leftover(d: &mut Dissector<'_>) {
    let left = d.cur.remaining();
    if left > 0 && left < 4 {
        let at = d.pos();
        let _ = d.bytes(&f::TRAILING, left);
        d.tree.expert(
            &notes::PROPS_TRAILING,
            Some(&f::TRAILING),
            Some(Pos::bytes(at, left)),
            format!("{left} byte(s) after the last property element, too short for another"),
        );
    }
}

/// Whether an element is a bool block (a v1 BOOL id in the block range: 31 bools in one mask
/// word, `multiplaymgr.cxx` `SendMyPosition`) rather than one property.
#[inline]
fn is_bool_block(def: &PropDef, id: u32, short: bool) -> bool {
    !short && def.ty == PropType::BOOL && (BOOLARRAY_START..=BOOLARRAY_END).contains(&id)
}

/// The element being decoded: its table row, its id and where it starts.
#[derive(Clone, Copy)]
struct Elem {
    def: &'static PropDef,
    id: u32,
    at: usize,
}

/// Decodes one element; returns the number of items added, or [`Stop`] when the walk must
/// stop (the reason is already a note).
#[inline]
fn element<'a>(
    d: &mut Dissector<'a>,
    facts: &mut Facts<'a>,
    first: bool,
    after: &mut After,
) -> Step<usize> {
    let at = d.pos();
    let w = d.cur.u32_be().map_err(|_| Stop)?;
    let short = w >> 16 != 0;
    let id = if short { w >> 16 } else { w };
    let Some(def) = tables::lookup(id) else {
        return Err(unknown_id(d, at, id, after));
    };
    if tables::is_later(def) {
        d.tree.expert(
            &notes::LATER_ID,
            Some(&f::PROP_ID),
            Some(Pos::bytes(at, 4)),
            format!("property id {id} is newer than FlightGear 2020.3 (which stops at it)"),
        );
    }
    let e = Elem { def, id, at };
    let block =
        !short && def.ty == PropType::BOOL && (BOOLARRAY_START..=BOOLARRAY_END).contains(&id);
    if !block {
        mark_seen(d, after, id, Pos::bytes(at, 4));
    }
    if short {
        short_element(d, e, w as u16 as i16, facts, first, after)
    } else {
        v1_element(d, e, facts, after)
    }
}

/// An id the table does not know: the size of its value is unknown, so the rest of the section
/// is shown undecoded (`ProcessPosMsg` abandons it too).
fn unknown_id(d: &mut Dissector<'_>, at: usize, id: u32, after: &mut After) -> Stop {
    let body = d.cur.data();
    let rest = body.len() - at;
    after.undecoded = Some(at);
    d.tree.expert(
        &notes::UNKNOWN_ID,
        Some(&f::PROPS_UNDECODED),
        Some(Pos::bytes(at, 4)),
        format!(
            "unknown property id {id} at offset {at}: its size is unknown, so the remaining {rest} bytes cannot be decoded (FlightGear abandons them too)"
        ),
    );
    d.cur.seek(body.len());
    Stop
}

/// A protocol-2 short element: id in the high half of the word, int16 in the low half (for a
/// string: the length of the bytes that follow).
fn short_element<'a>(
    d: &mut Dissector<'a>,
    e: Elem,
    raw: i16,
    facts: &mut Facts<'a>,
    first: bool,
    after: &mut After,
) -> Step<usize> {
    let mut item = Item {
        def: e.def,
        id: e.id,
        value: Value::Int(raw as i64),
        meaning: Meaning::None,
        id_pos: Pos::bytes(e.at, 2),
        value_pos: Pos::bytes(e.at + 2, 2),
    };
    match e.def.ty {
        PropType::STRING => v2_string(d, e, raw, &mut item, facts)?,
        PropType::INT => short_int(d, e, raw, &mut item, facts, first),
        PropType::BOOL => {
            item.value = Value::Bool(raw != 0);
            if raw != 0 && raw != 1 {
                item.meaning = Meaning::Raw(raw as i64);
            }
        }
        PropType::FLOAT => short_float(d, e, raw, &mut item),
        // The table declares no other type; the raw int16 stands.
        _ => {}
    }
    push_item(&mut d.tree, &mut after.forms, item);
    Ok(1)
}

/// A compact string: `raw` bytes right after the word, unaligned, no terminator.
fn v2_string<'a>(
    d: &mut Dissector<'a>,
    e: Elem,
    raw: i16,
    item: &mut Item,
    facts: &mut Facts<'a>,
) -> Step<()> {
    if raw < 0 {
        d.tree.expert(
            &notes::STRING_NEGATIVE_LENGTH,
            Some(&f::PROP_VALUE),
            Some(item.value_pos),
            format!("compact string of id {} has a negative length {raw}", e.id),
        );
        return Err(Stop);
    }
    let len = raw as usize;
    let text = match d.cur.bytes(len) {
        Ok(t) => t,
        Err(short) => {
            d.tree.expert(
                &notes::STRING_CUT,
                Some(&f::PROP_VALUE),
                Some(Pos::bytes(e.at + 4, short.have)),
                format!(
                    "string of property {} ({}) is cut off: {short}",
                    e.id, e.def.path
                ),
            );
            return Err(Stop);
        }
    };
    if len as u32 >= MAX_TEXT_SIZE {
        d.tree.expert(
            &notes::STRING_TOO_LONG,
            Some(&f::PROP_VALUE),
            Some(item.value_pos),
            format!("string length {len} exceeds what FlightGear sends (767)"),
        );
    }
    if d.tree.detail() {
        item.value = Value::text(text);
    }
    item.value_pos = Pos::bytes(e.at + 4, len);
    if e.id == ID_CHAT {
        facts.chat = Some(lossy(text));
    }
    Ok(())
}

/// A short INT: the launchbar state code, 13002 (declared INT but sent as a normalised short
/// float, which FlightGear stores unscaled), or the protocol version.
fn short_int(
    d: &mut Dissector<'_>,
    e: Elem,
    raw: i16,
    item: &mut Item,
    facts: &mut Facts<'_>,
    first: bool,
) {
    if e.id == ID_LAUNCHBAR_STATE {
        item.meaning = Meaning::Launchbar(Launchbar(raw).name());
    } else if e.def.tx == Tx::SHORT_FLOAT_NORM {
        item.meaning = Meaning::Text("raw int16: FlightGear stores it unscaled (declared INT)");
    }
    if e.id == ID_PROTOCOL_VERSION {
        facts.protocol = u8::try_from(raw).ok().or(facts.protocol);
        if !first {
            d.tree.expert(
                &notes::PROTOCOL_NOT_FIRST,
                Some(&f::PROP_ID),
                Some(item.id_pos),
                "protocol-version is not the first property",
            );
        }
    }
}

/// A short FLOAT, scaled by its TransmitAs (`get_scaled_short`); one whose TransmitAs is not a
/// short float reads 0 in FlightGear.
fn short_float(d: &mut Dissector<'_>, e: Elem, raw: i16, item: &mut Item) {
    // The division is the one cost of a short element the summary does not need.
    if !d.tree.detail() && e.def.tx.short_float_divisor().is_some() {
        return;
    }
    match scale_short(raw, e.def.tx) {
        Some(v) => {
            // The raw int16 is the value times the TransmitAs divisor: no meaning is built
            // per element (it was a tenth of a JSON run), the tree shows the scaled value.
            item.value = Value::F32(v);
        }
        None => {
            item.value = Value::F32(0.0);
            item.meaning = Meaning::NotScaled(raw);
            d.tree.expert(
                &notes::FLOAT_AS_SHORT,
                Some(&f::PROP_VALUE),
                Some(item.value_pos),
                format!(
                    "float property {} ({}) sent in short form, which 2020.3 never does: FlightGear reads 0",
                    e.id, e.def.path
                ),
            );
        }
    }
}

/// A v1 element: the 32-bit id, then the value by the declared type.
fn v1_element<'a>(
    d: &mut Dissector<'a>,
    e: Elem,
    facts: &mut Facts<'a>,
    after: &mut After,
) -> Step<usize> {
    match e.def.ty {
        PropType::BOOL if is_bool_block(e.def, e.id, false) => bool_block(d, e, after),
        PropType::INT | PropType::BOOL => {
            let v = d.cur.i32_be().map_err(|s| d.short(&f::PROP_VALUE, s))?;
            let item = if e.def.ty == PropType::BOOL {
                let meaning = match v {
                    0 | 1 => Meaning::None,
                    _ => Meaning::Raw(v as i64),
                };
                v1_item(e, Value::Bool(v != 0), meaning)
            } else {
                v1_item(e, Value::Int(v as i64), Meaning::None)
            };
            push_item(&mut d.tree, &mut after.forms, item);
            Ok(1)
        }
        PropType::FLOAT => {
            let v = d.cur.f32_be().map_err(|s| d.short(&f::PROP_VALUE, s))?;
            let item = v1_item(e, Value::F32(v), Meaning::None);
            push_item(&mut d.tree, &mut after.forms, item);
            Ok(1)
        }
        _ => v1_string(d, e, facts, after),
    }
}

/// The item of an 8-byte v1 element.
fn v1_item(e: Elem, value: Value, meaning: Meaning) -> Item {
    Item {
        def: e.def,
        id: e.id,
        value,
        meaning,
        id_pos: Pos::bytes(e.at, 4),
        value_pos: Pos::bytes(e.at + 4, 4),
    }
}

/// A v1 string: the length, one word per character (the sender sign-extends each byte), then
/// zero words up to a multiple of four words. FlightGear 2017.3+ caps the length at
/// `MAX_TEXT_SIZE`.
fn v1_string<'a>(
    d: &mut Dissector<'a>,
    e: Elem,
    facts: &mut Facts<'a>,
    after: &mut After,
) -> Step<usize> {
    let val_at = e.at + 4;
    let len = d.cur.u32_be().map_err(|s| d.short(&f::PROP_VALUE, s))?;
    if len > MAX_TEXT_SIZE {
        d.tree.expert(
            &notes::V1_STRING_CAPPED,
            Some(&f::PROP_VALUE),
            Some(Pos::bytes(val_at, 4)),
            format!("v1 string length {len} over {MAX_TEXT_SIZE}: FlightGear reads {MAX_TEXT_SIZE} characters"),
        );
    }
    let n = len.min(MAX_TEXT_SIZE) as usize;
    let words = n.div_ceil(4) * 4;
    let data = match d.cur.bytes(words * 4) {
        Ok(b) => b,
        Err(short) => {
            d.tree.expert(
                &notes::V1_STRING_CUT,
                Some(&f::PROP_VALUE),
                Some(Pos::bytes(short.at, short.have)),
                format!(
                    "v1 string of property {} ({}) is cut off: {n} characters and padding need {} bytes, {} left",
                    e.id,
                    e.def.path,
                    words * 4,
                    short.have
                ),
            );
            d.cur.seek(d.cur.len());
            return Err(Stop);
        }
    };
    let (text, odd) = v1_chars(data, n);
    if odd > 0 {
        d.tree.expert(
            &notes::V1_STRING_ODD_WORDS,
            Some(&f::PROP_VALUE),
            Some(Pos::bytes(val_at + 4, words * 4)),
            format!("{odd} character or pad word(s) of property {} hold more than a sign-extended byte; the low byte is used", e.id),
        );
    }
    if e.id == ID_CHAT {
        facts.chat = Some(String::from_utf8_lossy(&text).into_owned().into());
    }
    let value = if d.tree.detail() {
        Value::text(&text)
    } else {
        Value::None
    };
    let mut item = v1_item(e, value, Meaning::Chars(len));
    item.value_pos = Pos::bytes(val_at, 4 + words * 4);
    push_item(&mut d.tree, &mut after.forms, item);
    Ok(1)
}

/// The characters of a v1 string (the low byte of each of the first `n` words) and how many
/// words hold more than a sign-extended byte or, past `n`, are not zero.
fn v1_chars(data: &[u8], n: usize) -> (Vec<u8>, usize) {
    let mut text = Vec::with_capacity(n);
    let mut odd = 0usize;
    for (i, wb) in data.chunks_exact(4).enumerate() {
        let word = u32::from_be_bytes([wb[0], wb[1], wb[2], wb[3]]);
        if i < n {
            text.push(wb[3]);
            let hi = word >> 8;
            if !(hi == 0 || (hi == 0x00ff_ffff && wb[3] >= 0x80)) {
                odd += 1;
            }
        } else if word != 0 {
            odd += 1;
        }
    }
    (text, odd)
}

/// A bool block: `[block id][31-bit mask]`, bit i = property `block id + i`
/// (`TT_BOOLARRAY`; every bit becomes its own item, located at its bit).
fn bool_block(d: &mut Dissector<'_>, e: Elem, after: &mut After) -> Step<usize> {
    let (at, id) = (e.at, e.id);
    let mask = d
        .cur
        .u32_be()
        .map_err(|s| d.short(&f::BOOL_BLOCK_MASK, s))?;
    if d.tree.detail() {
        after.blocks.push((at, id, mask));
    }
    let mask_pos = Pos::bytes(at + 4, 4);
    if !BOOLARRAY_BLOCKS.contains(&id) {
        d.tree.expert(
            &notes::BOOL_BLOCK_ID,
            Some(&f::BOOL_BLOCK_ID),
            Some(Pos::bytes(at, 4)),
            format!(
                "bool id {id} in the block range: FlightGear takes it as a block starting there"
            ),
        );
    }
    if mask & 0x8000_0000 != 0 {
        d.tree.expert(
            &notes::BOOL_BLOCK_BIT31,
            Some(&f::BOOL_BLOCK_MASK),
            Some(mask_pos),
            "bit 31 of a bool block is set; it is never used",
        );
    }
    if !d.tree.detail() {
        // The bits are only tree items: counted (for the item bound), not built.
        let known = (0..31u32).filter(|i| tables::lookup(id + i).is_some());
        return Ok(known
            .inspect(|&i| {
                let bit = Pos::bits((at + 4) * 8 + (31 - i as usize), 1);
                mark_seen(d, after, id + i, bit);
            })
            .count());
    }
    let mut n = 0;
    for i in 0..31u32 {
        let Some(def) = tables::lookup(id + i) else {
            continue;
        };
        let bit = Pos::bits((at + 4) * 8 + (31 - i as usize), 1);
        mark_seen(d, after, id + i, bit);
        push_item(
            &mut d.tree,
            &mut after.forms,
            Item {
                def,
                id: id + i,
                value: Value::Bool(mask >> i & 1 == 1),
                meaning: Meaning::None,
                id_pos: Pos::bytes(at, 4),
                value_pos: bit,
            },
        );
        n += 1;
    }
    Ok(n)
}

/// A bool block's two words, beside the pairs its bits became (`after.blocks` of the walk).
fn bool_block_words(d: &mut Dissector<'_>, at: usize, id: u32, mask: u32) {
    d.tree.open(&f::BOOL_BLOCK, Value::None, Pos::bytes(at, 8));
    d.tree
        .add(&f::BOOL_BLOCK_ID, Value::UInt(id as u64), Pos::bytes(at, 4));
    d.tree.add(
        &f::BOOL_BLOCK_MASK,
        Value::UInt(mask as u64),
        Pos::bytes(at + 4, 4),
    );
    d.tree.close_as_is();
}

/// FlightGear's `verifyProperties`: a strict v1 walk (every id known, no short forms, no NaN
/// floats, string lengths within the data) that must end exactly at the end of the message.
pub fn verify_v1(body: &[u8], start: usize) -> bool {
    if start > body.len() {
        return false;
    }
    let mut c = Cursor::at(body, start);
    while !c.is_empty() {
        if verify_element(&mut c).is_none() {
            return false;
        }
    }
    true
}

/// One element of the strict walk; `None` when it does not pass.
fn verify_element(c: &mut Cursor<'_>) -> Option<()> {
    let id = c.u32_be().ok()?;
    let def = tables::lookup(id)?;
    if id > 0xffff {
        return None;
    }
    match def.ty {
        PropType::INT | PropType::BOOL => c.skip(4).ok(),
        PropType::FLOAT => c.f32_be().ok().filter(|v| !v.is_nan()).map(|_| ()),
        _ => {
            let len = c.u32_be().ok().filter(|&l| l <= MAX_TEXT_SIZE)?;
            let words = (len as usize).div_ceil(4) * 4;
            c.skip(words * 4).ok()
        }
    }
}

/// What an item's value means, formatted only when the tree is kept.
enum Meaning {
    None,
    Text(&'static str),
    /// A bool or short whose raw value is shown.
    Raw(i64),
    /// A short FLOAT whose TransmitAs is not a scaled one.
    NotScaled(i16),
    /// The launchbar state code's name, if it has one.
    Launchbar(Option<&'static str>),
    /// A v1 string's declared length.
    Chars(u32),
}

impl Meaning {
    fn text(&self) -> Option<Box<str>> {
        Some(
            match *self {
                Meaning::None => return None,
                Meaning::Text(t) => t.to_string(),
                Meaning::Raw(v) => format!("raw {v}"),
                Meaning::NotScaled(raw) => format!("raw {raw}, not a scaled property"),
                Meaning::Launchbar(Some(s)) => format!("{s} (gear/launchbar/state)"),
                Meaning::Launchbar(None) => {
                    "no launchbar state (FlightGear sets an empty string)".to_string()
                }
                Meaning::Chars(len) => format!("{len} character(s), one per word"),
            }
            .into(),
        )
    }
}

/// One decoded property element, before it becomes a tree item.
struct Item {
    def: &'static PropDef,
    id: u32,
    value: Value,
    meaning: Meaning,
    /// Where the id sits, where the value sits (byte or bit range).
    id_pos: Pos,
    value_pos: Pos,
}

/// Adds the item as a pair: the id (an open enum named by the property's path, a static
/// string) and the value, side by side in the properties' group, so an element costs two
/// leaves and no allocation of its own (a group per element with its own list of children and
/// two meanings was half of a JSON run), and its wire form as one character of `forms`.
/// Nothing is built while the tree is discarded, and the test is inlined into every caller: in
/// summary mode a call per element was 6% of the run.
#[inline(always)]
fn push_item(tree: &mut TreeBuilder, forms: &mut String, it: Item) {
    if tree.detail() {
        forms.push(if it.value_pos.bits {
            FORM_BOOL_BIT
        } else if it.id_pos.len == 2 {
            FORM_SHORT
        } else {
            FORM_V1
        });
        build_item(tree, it);
    }
}

#[inline(never)]
fn build_item(tree: &mut TreeBuilder, it: Item) {
    tree.add(
        &f::PROP_ID,
        Value::Enum(i64::from(it.id), it.def.path),
        it.id_pos,
    );
    let meaning = it.meaning.text();
    let value = tree.add(&f::PROP_VALUE, it.value, it.value_pos);
    if meaning.is_some() {
        value.meaning = meaning;
    }
}
