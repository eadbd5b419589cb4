//! File lists and file transfer: the file-list entry of PT_SERVERINFO and PT_MOREFILESNEEDED,
//! PT_REQUESTFILE, PT_FILEFRAGMENT, PT_FILEACK (STJr/SRB2 `src/d_netfil.c`, 2.2.14+
//! `src/netcode/d_netfil.c`; packet structs in `src/d_clisrv.h`).

use crate::tree::{Pos, Value};
use crate::wire::{Dissector, Step};

use super::fields as f;
use super::notes;
use super::prim::{derived, group, mean, strn, text};
use super::tables::{Release, WillSend, WillSend214};

/// A file-list entry as `PutFileNeeded` writes it: status, 2.2.10+ folder byte, size, name
/// STRN(512), MD5.
pub(crate) fn file_entry(d: &mut Dissector<'_>, rel: Release) -> Step<String> {
    group(d, &f::FILE, Value::None, |d| {
        let status = d.u8(&f::FILE_STATUS)?;
        if d.tree.detail() {
            let m = status_meaning(rel, status);
            if !m.is_empty() {
                mean(d, m);
            }
        }
        if rel.0 >= 210 {
            d.u8(&f::FILE_FOLDER)?;
        }
        let size = d.u32_le(&f::FILE_SIZE)?;
        let name = strn(d, &f::FILE_NAME, 512)?;
        d.bytes(&f::FILE_MD5, 16)?;
        Ok(format!("{} ({size} bytes)", text(name)))
    })
}

/// The high nibble says whether the server will send the file (renumbered in 2.2.14). Up to
/// 2.2.9 `PutFileNeeded` lists every loaded file and sets the low nibble to 0 for one holding
/// only music/sound lumps ("unimportant"), which clients never request (`CL_SendRequestFile`).
fn status_meaning(rel: Release, status: u8) -> String {
    let will = status >> 4;
    let m = if rel.0 >= 214 {
        // A 2.2.14+ client reads every value from 2 up as too large.
        WillSend214(will).name_or("too large")
    } else {
        WillSend(will).name_or("")
    };
    if status & 0x0f != 0 {
        m.to_string()
    } else if m.is_empty() {
        "unimportant (music/sound only)".to_string()
    } else {
        format!("unimportant (music/sound only); {m}")
    }
}

/// PT_REQUESTFILE (`CL_SendRequestFile`): file ids, each with its name up to 2.2.9, ended by
/// 0xFF.
pub(crate) fn requestfile(d: &mut Dissector<'_>, rel: Release) -> Step<String> {
    let mut ids = Vec::new();
    loop {
        let id = d.u8(&f::REQ_FILEID)?;
        if id == 0xFF {
            mean(d, "end of list");
            break;
        }
        if rel.0 <= 209 {
            let n = strn(d, &f::REQ_FILENAME, 512)?;
            ids.push(format!("{id} {}", text(n)));
        } else {
            ids.push(id.to_string());
        }
        if ids.len() > 255 {
            break;
        }
    }
    Ok(format!("files {}", ids.join(", ")))
}

/// PT_FILEFRAGMENT (`filetx_pak`): a 7-byte header up to 2.2.4, 12 bytes from 2.2.5.
pub(crate) fn fragment(d: &mut Dissector<'_>, rel: Release) -> Step<String> {
    let id = d.u8(&f::FRAG_FILEID)?;
    if id == 0 {
        mean(d, "savegame during a join or resend, else the first file");
    }
    if rel.0 >= 205 {
        fragment_2_2_5(d, id)
    } else {
        fragment_2_1(d, id)
    }
}

/// 2.2.5+: file size, pass, position, the nominal fragment size, then the data to the end of
/// the datagram (`FileSendTicker`).
fn fragment_2_2_5(d: &mut Dissector<'_>, id: u8) -> Step<String> {
    let total = d.u32_le(&f::FRAG_FILESIZE)?;
    let it = d.u8(&f::FRAG_ITERATION)?;
    let pos = d.u32_le(&f::FRAG_POSITION)?;
    let size = d.u16_le(&f::FRAG_SIZE)?;
    let at = d.pos();
    let data = d.cur.rest();
    let _ = d.cur.skip(data.len());
    d.add(&f::FRAG_DATA, Value::Bytes(data.into()), at, data.len());
    if data.len() > size as usize {
        d.tree.expert(
            &notes::FRAGMENT_OVERSIZE,
            Some(&f::FRAG_DATA),
            Some(Pos::bytes(at, data.len())),
            format!(
                "{} data bytes exceed the nominal fragment size {size}",
                data.len()
            ),
        );
    }
    if size > 0 {
        let index = (pos / size as u32) as u64;
        derived(d, &f::FRAG_INDEX, Value::UInt(index), at);
    }
    Ok(format!(
        "file {id} bytes {pos}-{} of {total} pass {it}",
        pos as u64 + data.len() as u64
    ))
}

/// Up to 2.2.4: position with bit 31 on the last fragment, then size and that many bytes.
fn fragment_2_1(d: &mut Dissector<'_>, id: u8) -> Step<String> {
    let raw = d.u32_le(&f::FRAG_POSITION)?;
    let last = raw & 0x8000_0000 != 0;
    let pos = raw & 0x7fff_ffff;
    d.add(&f::FRAG_LAST, Value::Bool(last), 1 + 8, 4);
    let size = d.u16_le(&f::FRAG_SIZE)?;
    d.bytes(&f::FRAG_DATA, size as usize)?;
    let end = pos as u64 + size as u64;
    let mut s = format!("file {id} bytes {pos}-{end}");
    if last {
        s.push_str(&format!(" (last; file is {end} bytes)"));
    }
    Ok(s)
}

/// PT_FILEACK (2.2.5+, `fileack_pak`): file id, pass, then (start, bitmask) segments.
pub(crate) fn fileack(d: &mut Dissector<'_>) -> Step<String> {
    let id = d.u8(&f::FACK_FILEID)?;
    let it = d.u8(&f::FACK_ITERATION)?;
    let n = d.u8(&f::FACK_NUMSEGMENTS)?;
    let mut got = 0u32;
    for _ in 0..n {
        got += group(d, &f::FACK_SEGMENT, Value::None, |d| {
            d.u32_le(&f::FACK_START)?;
            let m = d.u32_le(&f::FACK_ACKS)?;
            Ok(m.count_ones())
        })?;
    }
    Ok(format!(
        "file {id} pass {it} {n} segments, {got} fragments acked"
    ))
}

/// PT_MOREFILESNEEDED (2.2.10+): first index, count, a "more follow" flag, then entries.
pub(crate) fn morefiles(d: &mut Dissector<'_>, rel: Release) -> Step<String> {
    let first = d.i32_le(&f::MORE_FIRST)?;
    let n = d.u8(&f::MORE_NUM)?;
    let more = d.u8(&f::MORE_MORE)?;
    let mut names = Vec::new();
    for _ in 0..n {
        names.push(file_entry(d, rel)?);
    }
    Ok(format!(
        "from {first}: {}{}",
        names.join(", "),
        if more != 0 { " (more follow)" } else { "" }
    ))
}
