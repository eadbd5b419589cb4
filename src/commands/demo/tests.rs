use super::*;

#[test]
fn player_names_are_cleaned_then_made_safe() {
    // Q_CleanStr: "^^" keeps the first caret, and the second starts a colour code; the caret
    // left is no file name character.
    assert_eq!(clean_str("^1Gold^7en^^Player"), "Golden^layer");
    assert_eq!(file_part(&clean_str("^1Gold^7en^^Player")), "Golden_layer");
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
    let mut used = Names::default();
    assert_eq!(used.unique("a", "dm_71"), "a.dm_71");
    assert_eq!(used.unique("a", "dm_71"), "a-2.dm_71");
    // Another stem took the next suffix's name: it is skipped, not given twice.
    assert_eq!(used.unique("a-3", "dm_71"), "a-3.dm_71");
    assert_eq!(used.unique("a", "dm_71"), "a-4.dm_71");
    assert_eq!(used.unique("a-3", "dm_71"), "a-3-2.dm_71");
    assert_eq!(used.unique("b", "dm_68"), "b.dm_68");
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

mod collector {
    use super::*;
    use crate::capture::Timestamp;
    use crate::protocols::quake3::fields as f;
    use crate::tree::{Field, Pos, Value};

    /// A decoded server → client record as the Quake 3 decoder makes it (the fields the demo
    /// reads), carrying `sequence`, a gamestate for `map` when given, and the server's
    /// `disconnect` command when asked.
    fn server_record(sequence: u32, map: Option<&str>, disconnect: bool) -> Record {
        let mut r = Record::new("quake3");
        r.msg_type = if map.is_some() {
            "gamestate"
        } else {
            "snapshot"
        }
        .into();
        let mut root = Field::new(&f::ROOT, Value::None, Pos::bytes(0, 12));
        let mut netchan = Field::new(&f::NETCHAN, Value::None, Pos::bytes(0, 8));
        let seq = Field::new(
            &f::NC_SEQUENCE,
            Value::UInt(sequence.into()),
            Pos::bytes(0, 4),
        );
        netchan.children.push(seq);
        let mut svc = Field::new(&f::SVC, Value::None, Pos::bytes(8, 4));
        if let Some(map) = map {
            let mut gs = Field::new(&f::GAMESTATE, Value::None, Pos::bytes(8, 4));
            gs.children.push(Field::new(
                &f::GS_CLIENT_NUM,
                Value::UInt(1),
                Pos::bytes(8, 4),
            ));
            for (index, text) in [(0, format!("\\mapname\\{map}")), (545, "\\n\\^2Ann".into())] {
                let mut cs = Field::new(&f::GS_CONFIGSTRING, Value::None, Pos::bytes(8, 4));
                cs.children.push(Field::new(
                    &f::GS_CS_INDEX,
                    Value::UInt(index),
                    Pos::bytes(8, 4),
                ));
                let value = Value::Str(text.as_str().into());
                cs.children
                    .push(Field::new(&f::GS_CS_VALUE, value, Pos::bytes(8, 4)));
                gs.children.push(cs);
            }
            svc.children.push(gs);
        }
        if disconnect {
            let mut cmd = Field::new(&f::SVC_COMMAND, Value::None, Pos::bytes(8, 4));
            let name = Value::Str("disconnect".into());
            cmd.children
                .push(Field::new(&f::SVC_CMD_NAME, name, Pos::bytes(8, 4)));
            svc.children.push(cmd);
        }
        root.children.push(netchan);
        root.children.push(svc);
        r.fields.push(root);
        r
    }

    fn connect_record() -> Record {
        let mut r = Record::new("quake3");
        r.msg_type = "connect".into();
        let p = Field::new(&f::OOB_PROTOCOL, Value::UInt(68), Pos::bytes(0, 4));
        r.fields.push(p);
        r
    }

    fn collector(single: bool) -> Collector {
        Collector {
            target: Target::Memory,
            single,
            conns: HashMap::new(),
            report: Report::default(),
            used_names: Names::default(),
            open_count: 0,
        }
    }

    /// Feeds the records to a collector as flow `flow`'s, the server at 10.0.0.1:27960.
    fn feed(c: &mut Collector, flow: u64, records: Vec<(Direction, Record)>) {
        let (server, client) = (
            "10.0.0.1:27960".parse().unwrap(),
            "10.0.0.2:5000".parse().unwrap(),
        );
        for (i, (dir, mut r)) in records.into_iter().enumerate() {
            let payload = [i as u8; 12];
            let to_client = dir == Direction::ToClient;
            let m = Meta {
                frame: i as u64 + 1,
                time: Timestamp::new(0, 0, 6),
                base: Timestamp::new(0, 0, 6),
                src: if to_client { server } else { client },
                dst: if to_client { client } else { server },
                src_text: if to_client {
                    "10.0.0.1:27960"
                } else {
                    "10.0.0.2:5000"
                },
                dst_text: if to_client {
                    "10.0.0.2:5000"
                } else {
                    "10.0.0.1:27960"
                },
                payload: &payload,
                flow,
                direction: Some(dir),
            };
            c.record(&m, &mut r).unwrap();
        }
    }

    fn run(single: bool, records: Vec<(Direction, Record)>) -> Report {
        let mut c = collector(single);
        feed(&mut c, 0, records);
        c.finish().unwrap();
        c.report
    }

    #[test]
    fn connections_past_the_cap_are_only_counted() {
        let mut c = collector(false);
        for flow in 0..MAX_CONNS as u64 + 2 {
            feed(&mut c, flow, vec![(Direction::ToServer, connect_record())]);
        }
        assert_eq!((c.conns.len(), c.report.untracked), (MAX_CONNS, 2));
        // A flow already known is still followed.
        feed(&mut c, 7, map_change());
        c.finish().unwrap();
        assert_eq!(c.report.demos.len(), 2);
    }

    fn messages(d: &DemoInfo) -> Vec<(u32, Vec<u8>)> {
        file::messages(&d.bytes).unwrap()
    }

    fn map_change() -> Vec<(Direction, Record)> {
        use Direction::{ToClient, ToServer};
        vec![
            (ToServer, connect_record()),
            (ToClient, server_record(1, Some("q3dm17"), false)),
            (ToClient, server_record(2, None, false)),
            (ToClient, server_record(4, None, false)),
            (ToClient, server_record(5, Some("q3dm6"), false)),
            (ToClient, server_record(6, None, true)),
            (ToClient, server_record(7, None, false)),
        ]
    }

    #[test]
    fn a_map_change_starts_a_new_demo() {
        let r = run(false, map_change());
        let names: Vec<&str> = r.demos.iter().map(|d| d.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "Ann_10.0.0.1-27960_q3dm17.dm_68",
                "Ann_10.0.0.1-27960_q3dm6.dm_68"
            ]
        );
        // Message 3 was lost; message 7 came after the server's disconnect.
        let first: Vec<u32> = messages(&r.demos[0]).iter().map(|m| m.0).collect();
        assert_eq!((first, r.demos[0].lost), (vec![1, 2, 4], 1));
        let second = messages(&r.demos[1]);
        assert_eq!(second, vec![(5, vec![4; 4]), (6, vec![5; 4])]);
        assert!(r.skipped.is_empty());
    }

    #[test]
    fn single_keeps_one_demo_per_connection() {
        let r = run(true, map_change());
        assert_eq!(r.demos.len(), 1);
        let seqs: Vec<u32> = messages(&r.demos[0]).iter().map(|m| m.0).collect();
        assert_eq!(seqs, [1, 2, 4, 5, 6]);
        assert_eq!(r.demos[0].map, "q3dm17");
    }

    #[test]
    fn a_connection_of_keyed_messages_is_skipped_with_its_addresses() {
        let mut keyed = Record::new("quake3");
        keyed.msg_type = "keyed".into();
        let r = run(false, vec![(Direction::ToClient, keyed)]);
        let s = &r.skipped[0];
        assert_eq!(
            (s.server.as_str(), s.client.as_str(), s.reason.as_str()),
            (
                "10.0.0.1:27960",
                "10.0.0.2:5000",
                "no gamestate captured (0 server messages decoded, 1 left keyed)"
            )
        );
    }

    #[test]
    fn without_a_handshake_no_demo_is_named() {
        let mut records = map_change();
        records.remove(0);
        let r = run(false, records);
        assert!(r.demos.is_empty());
        assert_eq!(r.skipped.len(), 1);
        assert!(
            r.skipped[0]
                .reason
                .starts_with("the handshake was not captured")
        );
    }
}
