use super::*;

#[test]
fn colour_codes_are_stripped() {
    // As Q_CleanStr: "^^" keeps the first caret, and the second starts a colour code.
    assert_eq!(strip_colours("^1Gold^7en^^Player"), "Golden^layer");
}

#[test]
fn info_values_are_found() {
    let info = "\\sv_hostname\\noname\\mapname\\oa_dm1\\g_gametype\\0";
    assert_eq!(info_value(info, "mapname"), "oa_dm1");
    assert_eq!(info_value(info, "g_gametype"), "0");
    assert_eq!(info_value(info, "missing"), "");
}

#[test]
fn file_parts_are_safe() {
    assert_eq!(file_part("127.0.0.1-27960"), "127.0.0.1-27960");
    assert_eq!(file_part("../etc/passwd"), "_etc_passwd");
    assert_eq!(file_part(""), "unknown");
    assert_eq!(file_part(&"x".repeat(100)).len(), NAME_PART);
}

#[test]
fn names_are_made_unique() {
    let mut used = HashSet::new();
    assert_eq!(unique_name(&mut used, "a", "dm_71"), "a.dm_71");
    assert_eq!(unique_name(&mut used, "a", "dm_71"), "a-2.dm_71");
    assert_eq!(unique_name(&mut used, "a", "dm_71"), "a-3.dm_71");
}

#[test]
fn frame_headers_are_little_endian() {
    assert_eq!(frame_header(0x0102_0304, 5), [4, 3, 2, 1, 5, 0, 0, 0]);
}

#[test]
fn the_reader_reads_records_and_the_end_marker() {
    let mut demo = Vec::new();
    demo.extend_from_slice(&frame_header(7, 3));
    demo.extend_from_slice(b"abc");
    demo.extend_from_slice(&END_MARKER);
    let mut r = file::DemoReader::new(&demo[..]);
    assert_eq!(
        r.next_item(),
        Ok(Some(file::Item::Message {
            offset: 0,
            sequence: 7,
            bytes: b"abc".to_vec()
        }))
    );
    assert_eq!(r.next_item(), Ok(Some(file::Item::End { offset: 11 })));
    assert_eq!(r.next_item(), Ok(None));
}

#[test]
fn the_reader_refuses_lying_lengths() {
    let mut demo = frame_header(1, 1 << 20).to_vec();
    demo.extend_from_slice(b"abc");
    let err = file::messages(&demo).unwrap_err();
    assert_eq!(err.offset, 4);
    let mut cut = frame_header(1, 10).to_vec();
    cut.extend_from_slice(b"abc");
    let err = file::messages(&cut).unwrap_err();
    assert_eq!(
        (err.offset, err.message.as_str()),
        (8, "demo message cut off after 3 of 10 bytes")
    );
    let err = file::messages(&[1, 2, 3]).unwrap_err();
    assert_eq!(err.offset, 0);
}
