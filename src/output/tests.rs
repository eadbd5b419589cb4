use super::json::{base64_into, record_into, string_into};
use super::summary::SummaryWriter;
use super::text_tree::TreeWriter;
use super::*;
use crate::capture::Timestamp;
use crate::tree::{FieldDef, Note, NoteDef, Source};

static ROOT: FieldDef = FieldDef::group("t", "Test");
static NUM: FieldDef = FieldDef::uint("t.num", "Number").unit("ms");
static ITEM: FieldDef = FieldDef::group("t.item", "Item").repeated();
static NAME: FieldDef = FieldDef::string("t.item.name", "Name");
static KIND: FieldDef = FieldDef::enumeration("t.kind", "Kind").hex();
static RAW: FieldDef = FieldDef::bytes("t.raw", "Raw");
static ANGLE: FieldDef = FieldDef::float("t.angle", "Angle").unit("°");
static DUP: FieldDef = FieldDef::int("t.dup", "Not declared repeated");
static ODD: NoteDef = NoteDef::warning("expert.t.odd", "Something odd about the number");

fn sample() -> Record {
    let mut r = Record::new("t");
    r.summary = "a \"test\" record".into();
    r.msg_type = "test".into();
    let mut root = Field::new(&ROOT, Value::None, Pos::bytes(0, 10));
    root.children
        .push(Field::new(&NUM, Value::UInt(42), Pos::bytes(0, 2)));
    let mut item = Field::new(&ITEM, Value::None, Pos::bytes(2, 3));
    item.children.push(Field::new(
        &NAME,
        Value::Str("a\nb".into()),
        Pos::bytes(2, 3),
    ));
    root.children.push(item);
    let mut kind = Field::new(&KIND, Value::Enum(13, "PT_SERVERINFO"), Pos::bits(40, 5));
    kind.meaning = Some("server info".into());
    root.children.push(kind);
    root.children.push(Field::new(
        &RAW,
        Value::Bytes(vec![0xde, 0xad].into()),
        Pos::bytes(5, 2).in_source(1),
    ));
    root.children
        .push(Field::new(&ANGLE, Value::F32(180.5), Pos::bytes(7, 2)));
    root.children.push(Field::new(
        &NAME,
        Value::Bytes(vec![0x61, 0xff].into()),
        Pos::bytes(9, 1),
    ));
    root.children
        .push(Field::new(&DUP, Value::Int(-1), Pos::bytes(9, 1)));
    root.children
        .push(Field::new(&DUP, Value::Int(-2), Pos::bytes(9, 1)));
    r.fields.push(root);
    r.notes
        .push(Note::new(&ODD, Some(&NUM), Some(Pos::bytes(0, 2)), "odd"));
    r.sources.push(Source {
        name: "decompressed".into(),
        data: b"AB".to_vec(),
    });
    r
}

fn meta(payload: &[u8]) -> crate::proto::Meta<'_> {
    crate::proto::Meta {
        frame: 7,
        time: Timestamp::new(1_700_000_000, 250_000_000, 6),
        base: Timestamp::new(1_700_000_000, 0, 6),
        src: "10.0.0.1:27960".parse().unwrap(),
        dst: "[::1]:5000".parse().unwrap(),
        src_text: "10.0.0.1:27960",
        dst_text: "[::1]:5000",
        payload,
        flow: 3,
        direction: Some(crate::proto::Direction::ToClient),
    }
}

#[test]
fn json_record_shape() {
    let mut s = String::new();
    record_into(&mut s, &meta(b"0123456789"), &sample());
    assert_eq!(
        s,
        concat!(
            r#"{"frame":7,"time":"2023-11-14T22:13:20.250000Z","time_epoch":1700000000.250000,"#,
            r#""time_relative":0.250000,"src":"10.0.0.1:27960","dst":"[::1]:5000","flow":3,"#,
            r#""direction":"to_client","protocol":"t","type":"test","length":10,"#,
            r#""summary":"a \"test\" record","fields":{"t":{"num":42,"item":[{"name":"a\nb"}],"#,
            r#""kind":{"value":13,"name":"PT_SERVERINFO"},"raw":"dead","angle":180.5,"name":{"bytes":"Yf8="},"#,
            r#""dup":[-1,-2]}},"notes":[{"severity":"warning","message":"odd","field":"t.num"}]}"#
        )
    );
    let v: serde_json::Value = serde_json::from_str(&s).unwrap();
    assert_eq!(v["fields"]["t"]["item"][0]["name"], "a\nb");
}

#[test]
fn json_strings_escape_control_characters() {
    let mut s = String::new();
    string_into(&mut s, "q\"\\\u{1}é");
    assert_eq!(s, r#""q\"\\\u0001é""#);
    let back: String = serde_json::from_str(&s).unwrap();
    assert_eq!(back, "q\"\\\u{1}é");
}

#[test]
fn base64_vectors_from_rfc_4648() {
    for (input, want) in [
        ("", ""),
        ("f", "Zg=="),
        ("fo", "Zm8="),
        ("foo", "Zm9v"),
        ("foob", "Zm9vYg=="),
        ("fooba", "Zm9vYmE="),
        ("foobar", "Zm9vYmFy"),
    ] {
        let mut s = String::new();
        base64_into(&mut s, input.as_bytes());
        assert_eq!(s, want);
    }
}

#[test]
fn non_finite_floats_are_strings_in_json() {
    let mut r = Record::new("t");
    let mut root = Field::new(&ROOT, Value::None, Pos::bytes(0, 0));
    root.children
        .push(Field::new(&ANGLE, Value::F64(f64::NAN), Pos::bytes(0, 0)));
    r.fields.push(root);
    let mut s = String::new();
    record_into(&mut s, &meta(b""), &r);
    assert!(s.contains(r#""angle":"NaN""#), "{s}");
}

#[test]
fn tree_lines_carry_label_value_unit_meaning_name_and_position() {
    let mut out = Vec::new();
    let mut w = TreeWriter::new(&mut out, false, true);
    w.record(&meta(b"0123456789"), &sample()).unwrap();
    let text = String::from_utf8(out).unwrap();
    let want = "\
Frame 7: 0.250000 s, 10.0.0.1:27960 → [::1]:5000, flow 3, 10 bytes
t: a \"test\" record
  Test  [t @0+10]
    Number: 42 ms  [t.num @0+2]
    Item  [t.item @2+3]
      Name: \"a\\nb\"  [t.item.name @2+3]
    Kind: PT_SERVERINFO (0xd) (server info)  [t.kind @5.0+5b]
    Raw: dead  [t.raw @s1:5+2]
    Angle: 180.5°  [t.angle @7+2]
    Name: \"a\\xff\"  [t.item.name @9+1]
    Not declared repeated: -1  [t.dup @9+1]
    Not declared repeated: -2  [t.dup @9+1]
  [warning] odd  [t.num @0+2]
  payload (10 bytes):
    0000  30 31 32 33 34 35 36 37  38 39                    0123456789
  s1: decompressed (2 bytes):
    0000  41 42                                             AB
";
    assert_eq!(text, want);
}

#[test]
fn summary_line_with_note_marker() {
    let mut out = Vec::new();
    let mut w = SummaryWriter::new(&mut out, false);
    w.record(&meta(b""), &sample()).unwrap();
    assert_eq!(
        String::from_utf8(out).unwrap(),
        "     7    0.250000 10.0.0.1:27960 → [::1]:5000 t a \"test\" record [warning: odd]\n"
    );
}

#[test]
fn colour_only_when_asked() {
    let mut plain = Vec::new();
    SummaryWriter::new(&mut plain, false)
        .record(&meta(b""), &sample())
        .unwrap();
    let mut coloured = Vec::new();
    SummaryWriter::new(&mut coloured, true)
        .record(&meta(b""), &sample())
        .unwrap();
    assert!(!plain.contains(&0x1b));
    assert!(coloured.contains(&0x1b));
}

#[test]
fn display_of_values() {
    let f = |def: &'static FieldDef, v: Value| {
        let mut s = String::new();
        display_value(&mut s, &Field::new(def, v, Pos::default()));
        s
    };
    assert_eq!(f(&NUM, Value::UInt(5)), "5 ms");
    assert_eq!(f(&KIND, Value::Enum(300, "")), "300");
    assert_eq!(f(&RAW, Value::Bytes(Box::new([]))), "(empty)");
    let long = vec![0xabu8; 60];
    assert!(f(&RAW, Value::Bytes(long.into())).ends_with("… (60 bytes)"));
}

#[test]
fn any_fields_render_each_value_by_its_own_type_and_bytes_as_text() {
    static ANY: FieldDef = FieldDef::any("t.any", "Any");
    let mut r = Record::new("t");
    let mut root = Field::new(&ROOT, Value::None, Pos::default());
    root.children
        .push(Field::new(&ANY, Value::Int(-3), Pos::default()));
    root.children
        .push(Field::new(&ANY, Value::Bool(true), Pos::default()));
    root.children.push(Field::new(
        &ANY,
        Value::Bytes(vec![0x61, 0xff].into()),
        Pos::default(),
    ));
    r.fields.push(root);
    let mut s = String::new();
    record_into(&mut s, &meta(b""), &r);
    assert!(s.contains(r#""any":[-3,true,{"bytes":"Yf8="}]"#), "{s}");
    let mut d = String::new();
    display_value(&mut d, &r.fields[0].children[2]);
    assert_eq!(d, "\"a\\xff\"");
}

static MAP: FieldDef = FieldDef::group("t.map", "Map").map();
static MAP_KEY: FieldDef = FieldDef::enumeration("t.map.key", "Key");
static MAP_VALUE: FieldDef = FieldDef::any("t.map.value", "Value");

/// A key/value group: one JSON object keyed by each key's name in order (a repeated key is
/// written again, a key without its value gets `null`), one tree line per pair.
#[test]
fn a_map_is_one_object_keyed_by_name_and_one_line_per_pair() {
    let mut r = Record::new("t");
    let mut map = Field::new(&MAP, Value::None, Pos::bytes(0, 12));
    let key = |n: i64, name: &'static str, at: usize| {
        Field::new(&MAP_KEY, Value::Enum(n, name), Pos::bytes(at, 2))
    };
    map.children.extend([
        key(10, "a/b[0]", 0),
        Field::new(&MAP_VALUE, Value::F32(0.5), Pos::bytes(2, 2)),
        key(11, "", 4),
        Field::new(&MAP_VALUE, Value::Str("x".into()), Pos::bytes(6, 1)),
        key(10, "a/b[0]", 7),
        Field::new(&MAP_VALUE, Value::Bool(true), Pos::bits(80, 1)),
        key(12, "end", 11),
    ]);
    let mut root = Field::new(&ROOT, Value::None, Pos::bytes(0, 12));
    root.children.push(map);
    r.fields.push(root);
    let mut s = String::new();
    record_into(&mut s, &meta(b""), &r);
    assert!(
        s.contains(r#""map":{"a/b[0]":0.5,"11":"x","a/b[0]":true,"end":null}"#),
        "{s}"
    );
    let mut out = Vec::new();
    let mut w = TreeWriter::new(&mut out, false, false);
    w.record(&meta(b"0123456789ab"), &r).unwrap();
    let text = String::from_utf8(out).unwrap();
    let want = "    Map  [t.map @0+12]
      a/b[0] (10): 0.5  [t.map.key @0+4]
      11: \"x\"  [t.map.key @4+3]
      a/b[0] (10): true  [t.map.key @10.0+1b]
      Key: end (12)  [t.map.key @11+2]
";
    assert!(text.contains(want), "{text}");
}
