use super::*;
use crate::capture::Timestamp;
use crate::proto::{FlowDecoder, Prefs, Probe, ProbeInput, ProtocolInfo};
use crate::tree::{Field, Pos, Value};

/// The fields of a protocol of the tests' own: the filter knows no game, only the registry.
mod game {
    crate::field_defs! {
        ROOT = group("game", "A test game");
        COMMAND = group("game.command", "Command").repeated();
        SEQUENCE = uint("game.command.sequence", "Sequence");
        NAME = string("game.command.name", "Name");
        MESSAGE = string("game.command.message", "Message");
        SNAPSHOT = group("game.snapshot", "Snapshot");
        SERVER_TIME = int("game.snapshot.server_time", "Server time").unit("ms");
        OOB = group("game.oob", "Out-of-band packet");
    }
}

static GAME_INFO: ProtocolInfo = ProtocolInfo {
    name: "game",
    title: "A test game",
    ports: &[],
    heuristic: "none",
    prefs: &[],
    fields: &[game::ALL],
    notes: &[],
};

struct Game;

impl Protocol for Game {
    fn info(&self) -> &'static ProtocolInfo {
        &GAME_INFO
    }
    fn probe(&self, _: &ProbeInput<'_>) -> Probe {
        Probe::NO
    }
    fn new_flow(&self, _: &Prefs) -> Box<dyn FlowDecoder> {
        unreachable!("the filter tests decode nothing")
    }
}

static GAME: Game = Game;

fn registry() -> Vec<&'static dyn Protocol> {
    vec![&GAME]
}

fn filter(text: &str) -> Filter {
    Filter::new(text, &registry()).unwrap_or_else(|e| panic!("{text}: {e}"))
}

fn error(text: &str) -> String {
    Filter::new(text, &registry()).unwrap_err().0
}

fn meta() -> Meta<'static> {
    Meta {
        frame: 12,
        time: Timestamp::new(1_700_000_002, 500_000_000, 6),
        base: Timestamp::new(1_700_000_000, 0, 6),
        src: "10.1.2.3:27960".parse().unwrap(),
        dst: "192.0.2.7:40000".parse().unwrap(),
        src_text: "10.1.2.3:27960",
        dst_text: "192.0.2.7:40000",
        payload: b"",
        flow: 4,
        direction: Some(Direction::ToClient),
    }
}

/// A record with two commands, "print" and "chat", and a warning.
fn record() -> Record {
    let mut r = Record::new("game");
    r.msg_type = "gamestate".into();
    let mut root = Field::new(&game::ROOT, Value::None, Pos::bytes(0, 40));
    for (seq, name, text) in [(7u64, "print", "hello\n"), (8, "chat", "Sarge: gg")] {
        let mut c = Field::new(&game::COMMAND, Value::None, Pos::bytes(0, 10));
        c.children.push(Field::new(
            &game::SEQUENCE,
            Value::UInt(seq),
            Pos::bytes(0, 4),
        ));
        c.children.push(Field::new(
            &game::NAME,
            Value::Str(name.into()),
            Pos::bytes(4, 4),
        ));
        c.children.push(Field::new(
            &game::MESSAGE,
            Value::Str(text.into()),
            Pos::bytes(4, 4),
        ));
        root.children.push(c);
    }
    r.fields.push(root);
    r.expert(
        &crate::toolkit::udp::FRAME_CUT,
        None,
        "frame cut by the capture's snaplen",
    );
    r
}

use crate::proto::Direction;

#[test]
fn any_occurrence_and_all_not_equal() {
    let (m, r) = (meta(), record());
    let yes = |t: &str| assert!(filter(t).matches(&m, &r), "{t} should match");
    let no = |t: &str| assert!(!filter(t).matches(&m, &r), "{t} should not match");
    yes("game");
    yes("game.command.name == \"chat\"");
    yes("game.command.name == chat");
    yes("game.command.name eq print");
    no("game.command.name == cs");
    // `!=` is "all not equal": one of the two commands is chat.
    no("game.command.name != chat");
    yes("game.command.name != cs");
    yes("game.command.sequence > 7 && game.command.sequence <= 8");
    no("game.command.sequence > 8");
    yes("game.command.sequence in {1 2 8}");
    yes("game.command.sequence in {1, 5..7}");
    no("game.command.sequence in {9..12}");
    yes("game.command.message contains \"gg\"");
    yes("game.command.message matches \"^Sarge: g+$\"");
    no("game.command.message matches \"^gg\"");
    // An absent field: every comparison is false, `!=` included; `not` makes it true.
    no("game.snapshot.server_time == 5");
    no("game.snapshot.server_time != 5");
    yes("not game.snapshot.server_time");
    yes("!(game.snapshot or game.oob)");
}

#[test]
fn record_level_fields() {
    let (m, r) = (meta(), record());
    let yes = |t: &str| assert!(filter(t).matches(&m, &r), "{t} should match");
    let no = |t: &str| assert!(!filter(t).matches(&m, &r), "{t} should not match");
    yes("frame.number == 12");
    yes("frame.number in {10..12}");
    yes("frame.time_relative > 2.4 and frame.time_relative < 2.6");
    yes("frame.time_epoch >= 1700000002.5");
    yes("ip.src == 10.1.2.3");
    yes("ip.src == 10.0.0.0/8");
    no("ip.dst == 10.0.0.0/8");
    yes("ip.addr == 192.0.2.7");
    yes("udp.port == 40000 and udp.srcport == 27960");
    no("udp.dstport == 27960");
    yes("msg.type == gamestate and msg.protocol == game");
    yes("flow.number == 4 and flow.direction == to_client");
    yes("expert.severity == warning");
    yes("expert.severity >= note");
    no("expert.severity == error");
    yes("expert.message contains snaplen");
    yes("expert.frame_cut");
    no("expert.reassembled");
}

#[test]
fn usage_errors_name_the_problem() {
    let e = error("game.command.nam == chat");
    assert!(e.contains("unknown field \"game.command.nam\""), "{e}");
    assert!(e.contains("\"game.command.name\""), "{e}");
    assert!(error("frame.nuber == 1").contains("\"frame.number\""));
    assert!(error("game.command.sequence == abc").contains("a uint field"));
    assert!(error("ip.src == 300.1.1.1").contains("address"));
    assert!(error("expert.severity == fatal").contains("note, warning or error"));
    assert!(error("game = 1").contains("\"==\""));
    assert!(error("(game").contains("expected \")\""));
    assert!(error("game.command.message matches \"(\"").contains("regular expression"));
    assert!(error("").contains("empty"));
    assert!(error("game game").contains("column 6"));
    let deep = format!("{}game{}", "(".repeat(100), ")".repeat(100));
    assert!(error(&deep).contains("nested too deeply"));
}

#[test]
fn only_tree_fields_need_trees() {
    assert!(filter("game.command").needs_tree());
    assert!(!filter("frame.number > 3 or expert.severity == error").needs_tree());
}

#[test]
fn edit_distance_counts_edits() {
    assert_eq!(edit_distance("kitten", "sitting"), 3);
    assert_eq!(edit_distance("", "abc"), 3);
    assert_eq!(edit_distance("same", "same"), 0);
}
