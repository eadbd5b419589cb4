//! SRB2 hand-made captures (built by `testkit::captures::srb2`): the decoded values (names,
//! chat, map, tics, release) are the documented ones.

use gamedissect::engine::Config;
use gamedissect::run::{OutputFormat, render};
use serde_json::Value;

fn decode(bytes: &[u8], config: Config) -> Vec<Value> {
    let (out, err) = render(bytes, OutputFormat::Json, config);
    assert!(err.is_none(), "{err:?}");
    out.lines()
        .map(|l| serde_json::from_str(l).expect("json line"))
        .collect()
}

fn srb2(v: &Value) -> &Value {
    &v["fields"]["srb2"]
}

fn errors(v: &Value) -> Vec<String> {
    v["notes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|n| n["severity"] == "error")
        .map(|n| n.to_string())
        .collect()
}

/// Every message of the capture, with its summary, after checking the common facts.
fn good(bytes: &[u8], release: &str) -> Vec<Value> {
    let recs = decode(bytes, Config::default());
    assert!(!recs.is_empty());
    for r in &recs {
        assert_eq!(r["protocol"], "srb2", "{r}");
        assert!(errors(r).is_empty(), "{}: {:?}", r["summary"], errors(r));
        assert_eq!(srb2(r)["release"], release, "{}", r["summary"]);
        assert_eq!(srb2(r)["header"]["checksum_ok"], true);
    }
    recs
}

fn find<'a>(recs: &'a [Value], summary_start: &str) -> &'a Value {
    recs.iter()
        .find(|r| r["summary"].as_str().unwrap().starts_with(summary_start))
        .unwrap_or_else(|| panic!("no message {summary_start:?}"))
}

fn all_xd(recs: &[Value]) -> Vec<Value> {
    let mut v = Vec::new();
    for r in recs {
        let s = srb2(r);
        let bufs: Vec<&Value> = if let Some(texts) = s["tics"]["text"].as_array() {
            texts
                .iter()
                .flat_map(|t| t["textbuf"].as_array().cloned().unwrap_or_default())
                .map(|b| Box::leak(Box::new(b)) as &Value)
                .collect()
        } else if let Some(b) = s["textcmd"]["textbuf"].as_array() {
            b.iter().collect()
        } else {
            Vec::new()
        };
        for b in bufs {
            for x in b["xd"].as_array().cloned().unwrap_or_default() {
                let mut x = x;
                x["player"] = b["player"].clone();
                v.push(x);
            }
        }
    }
    v
}

#[test]
fn session_2_1_25_decodes_to_the_documented_values() {
    let recs = good(&testkit::captures::srb2::session_2_1_25(), "2.1.25");
    assert_eq!(recs.len(), 22);
    let retx = find(&recs, "PT_TEXTCMD #4");
    assert_eq!(retx["notes"].as_array().unwrap().len(), 0);
    let retx: Vec<&Value> = recs
        .iter()
        .filter(|r| r["summary"].as_str().unwrap().starts_with("PT_TEXTCMD #4"))
        .collect();
    assert_eq!(retx.len(), 2);
    assert_eq!(retx[1]["notes"][0]["severity"], "note");
    assert_eq!(retx[1]["notes"][0]["field"], "srb2.header.ack");
    let basis = srb2(&recs[0])["release_basis"].as_str().unwrap();
    assert!(basis.contains("PT_ASKINFO carries version 201"), "{basis}");
    let si = &srb2(find(&recs, "PT_SERVERINFO"))["serverinfo"];
    assert_eq!(si["servername"], "Green Hill Netgame");
    assert_eq!(si["mapname"], "MAP01");
    assert_eq!(si["maptitle"], "GREENFLOWER");
    assert_eq!(si["subversion"], 25);
    // 2.1.25 lists the base files too (`PutFileNeeded` in STJr/SRB2 src/d_netfil.c writes an
    // entry for every loaded file), so the add-on is file 5 and the
    // client requests, and the server sends fragments of, file 5.
    let files = si["file"].as_array().unwrap();
    assert_eq!(si["fileneedednum"], 6);
    assert_eq!(files.len(), 6);
    let names: Vec<&str> = files.iter().map(|f| f["name"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        [
            "srb2.srb",
            "zones.dta",
            "player.dta",
            "rings.dta",
            "patch.dta",
            "chatplus.wad"
        ]
    );
    assert_eq!(files[0]["status"], 0x01);
    assert_eq!(files[5]["status"], 0x11);
    let req = &srb2(find(&recs, "PT_REQUESTFILE"))["requestfile"];
    assert_eq!(req["fileid"][0], 5);
    assert_eq!(req["filename"][0], "chatplus.wad");
    let frag = &srb2(find(&recs, "PT_FILEFRAGMENT #1"))["fragment"];
    assert_eq!(frag["fileid"], 5);
    let pi = &srb2(find(&recs, "PT_PLAYERINFO"))["playerinfo"]["player"];
    assert_eq!(pi[0]["name"], "Sonic");
    assert_eq!(pi[0]["address"], "127.0.0.1");
    assert_eq!(pi[1]["name"], "Knuckles");
    assert_eq!(pi[1]["score"], 800);
    let cfg = &srb2(find(&recs, "PT_SERVERCFG"))["servercfg"];
    assert_eq!(cfg["gametic"], 5000);
    assert_eq!(cfg["clientnode"], 1);
    assert_eq!(cfg["netvar"][0]["value"], "10");
    // Server tics: 8-bit start tic expanded against the PT_SERVERCFG gametic; overlap marked.
    let tics: Vec<&Value> = recs
        .iter()
        .filter(|r| r["summary"].as_str().unwrap().starts_with("PT_SERVERTICS"))
        .collect();
    assert_eq!(tics.len(), 6);
    let t1 = &srb2(tics[1])["tics"];
    assert_eq!(t1["start"], 0x89);
    assert_eq!(t1["start_expanded"], 5001);
    assert_eq!(t1["numslots"], 3);
    assert_eq!(t1["tic"][0]["repeat"], true);
    assert_eq!(t1["tic"][1]["repeat"], false);
    assert_eq!(t1["tic"][1]["value"], 5002);
    assert_eq!(t1["tic"][1]["cmd"][1]["player_name"], "Tails");
    assert_eq!(t1["tic"][1]["cmd"][2]["player_name"], "Knuckles");
    assert_eq!(t1["tic"][1]["cmd"].as_array().unwrap().len(), 3);
    assert_eq!(srb2(tics[5])["tics"]["numslots"], 2);
    let xds = all_xd(&recs);
    let chat: Vec<&Value> = xds.iter().filter(|x| x["name"] == "XD_SAY").collect();
    assert_eq!(chat[0]["message"], "hello everyone");
    assert_eq!(chat[1]["message"], "hello everyone");
    assert_eq!(chat[1]["player"], 1);
    assert_eq!(chat[2]["message"], "hi Tails");
    assert_eq!(chat[2]["target"], 2);
    let kick = xds.iter().find(|x| x["name"] == "XD_KICK").unwrap();
    assert_eq!(kick["player"], 0);
    assert_eq!(kick["reason"], "spamming");
    assert_eq!(kick["kick_msg"]["name"], "KICK_MSG_CUSTOM_KICK");
    let map = xds.iter().find(|x| x["name"] == "XD_MAP").unwrap();
    assert_eq!(map["map"], "MAP02");
    assert_eq!(map["map_seed"], 0xDEAD_BEEFu32);
    let add = xds.iter().find(|x| x["name"] == "XD_ADDPLAYER").unwrap();
    assert_eq!(add["value"], 10);
    assert_eq!(add["playernum"], 1);
    let s = find(&recs, "PT_SERVERTICS tics 5003-5004")["summary"]
        .as_str()
        .unwrap();
    assert!(s.contains("say Tails: \"hello everyone\""), "{s}");
    assert!(
        s.contains("say Knuckles (private to Tails): \"hi Tails\""),
        "{s}"
    );
    assert_eq!(
        find(&recs, "PT_PING")["summary"],
        "PT_PING #5 Sonic 0 ms, Tails 57 ms, Knuckles 85 ms"
    );
    let frag = &srb2(find(&recs, "PT_FILEFRAGMENT #2"))["fragment"];
    assert_eq!(frag["last"], true);
    assert_eq!(frag["size"], 491);
}

#[test]
fn session_2_2_13_decodes_to_the_documented_values() {
    let recs = good(&testkit::captures::srb2::session_2_2_13(), "2.2.13");
    assert_eq!(recs.len(), 25);
    // The server info names 2.2.13, and the ask-info scored before it agrees: two pieces of
    // evidence lock it.
    let basis = |r: &serde_json::Value| srb2(r)["release_basis"].as_str().unwrap().to_string();
    let first = basis(&recs[1]);
    assert!(
        first.starts_with("PT_SERVERINFO carries packetversion 4")
            && first.ends_with("; the best fit over 1 packet agrees"),
        "{first}"
    );
    assert_eq!(basis(recs.last().unwrap()), first);
    let si = &srb2(find(&recs, "PT_SERVERINFO"))["serverinfo"];
    assert_eq!(si["servername"], "Emerald Coast Co-op");
    assert_eq!(si["gametypename"], "Co-op");
    assert_eq!(si["application"], "SRB2");
    assert_eq!(si["file"][0]["name"], "chatplus.pk3");
    let join = &srb2(find(&recs, "PT_CLIENTJOIN"))["join"];
    assert_eq!(join["modversion"], 54);
    assert_eq!(join["name"][0], "Tails");
    assert_eq!(
        srb2(find(&recs, "PT_CLIENTJOIN"))["header"]["type"]["value"],
        29
    );
    let cfg = &srb2(find(&recs, "PT_SERVERCFG"))["servercfg"];
    assert_eq!(cfg["gametic"], 70000);
    assert_eq!(cfg["server_context"], "QwErTyUi");
    let cc = &srb2(find(&recs, "PT_CLIENTCMD"))["clientcmd"]["cmd"][0];
    assert_eq!(cc["value"], 1);
    assert_eq!(cc["player_name"], "Tails");
    assert_eq!(cc["side"], -10);
    assert_eq!(cc["latency"], 0x70);
    let tics: Vec<&Value> = recs
        .iter()
        .filter(|r| r["summary"].as_str().unwrap().starts_with("PT_SERVERTICS"))
        .collect();
    assert_eq!(tics.len(), 6);
    assert_eq!(srb2(tics[0])["tics"]["start"], 70000);
    assert_eq!(srb2(tics[1])["tics"]["tic"][0]["repeat"], true);
    assert_eq!(srb2(tics[4])["tics"]["numslots"], 2);
    let xds = all_xd(&recs);
    let add = xds.iter().find(|x| x["name"] == "XD_ADDPLAYER").unwrap();
    assert_eq!(add["value"], 11);
    assert_eq!(add["player_name"], "Tails");
    let chat: Vec<&Value> = xds.iter().filter(|x| x["name"] == "XD_SAY").collect();
    assert_eq!(chat[0]["message"], "hello from 2.2");
    assert_eq!(chat[2]["message"], "welcome Tails");
    let kick = xds.iter().find(|x| x["name"] == "XD_KICK").unwrap();
    assert_eq!(kick["keep_body"], true);
    assert_eq!(kick["reason"], "spamming");
    let exit = xds.iter().find(|x| x["name"] == "XD_EXITLEVEL").unwrap();
    assert_eq!(exit["cheat"], 0);
    let map = xds.iter().find(|x| x["name"] == "XD_MAP").unwrap();
    assert_eq!(map["map"], "MAP02");
    let nc = xds.iter().find(|x| x["name"] == "XD_NAMEANDCOLOR").unwrap();
    assert_eq!(nc["color"], 5);
    assert_eq!(
        find(&recs, "PT_PING")["summary"],
        "PT_PING #2 Sonic 0 ms, Tails 42 ms, Knuckles 71 ms, maxping 500"
    );
    assert_eq!(srb2(find(&recs, "PT_NOTHING"))["nothing"]["ack"][0], 4);
    let fack = &srb2(find(&recs, "PT_FILEACK"))["fileack"];
    assert_eq!(fack["segment"][0]["acks"], 3);
}

#[test]
fn midsession_2_2_13_is_detected_by_best_fit() {
    let recs = good(&testkit::captures::srb2::midsession_2_2_13(), "2.2.13");
    let basis = srb2(&recs[3])["release_basis"].as_str().unwrap();
    assert!(basis.starts_with("best fit"), "{basis}");
    assert!(basis.contains("4 of 4"), "{basis}");
    assert_eq!(
        recs[3]["summary"],
        "PT_PING #12 player 0 30 ms, player 1 31 ms"
    );
}

#[test]
fn broken_capture_gets_located_notes() {
    // Forced, as its golden decode is: detecting, the checksum-valid type 40 of frame 3 (a type
    // no SRB2 release has) would name the flow another game built on SRB2's netcode.
    let mut config = Config::default();
    config.prefs.set("srb2.version", "2.2.13");
    let recs = decode(&testkit::captures::srb2::broken(), config);
    assert_eq!(recs.len(), 6);
    let sev = |r: &Value| -> Vec<(String, String)> {
        r["notes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| {
                (
                    n["severity"].as_str().unwrap().to_string(),
                    n["field"].as_str().unwrap_or("").to_string(),
                )
            })
            .collect()
    };
    let n = |a: &str, b: &str| (a.to_string(), b.to_string());
    // 1: bad checksum → warning on the checksum field, still decoded, and not trusted.
    assert_eq!(
        sev(&recs[0]),
        vec![n("warning", "srb2.header.checksum"), n("warning", "")]
    );
    assert_eq!(srb2(&recs[0])["askinfo"]["time"], 1000);
    assert_eq!(srb2(&recs[0])["header"]["checksum_ok"], false);
    // 2: cut body → error at the server name.
    assert_eq!(
        sev(&recs[1]),
        vec![n("error", "srb2.serverinfo.servername")]
    );
    // 3: unknown type → error on the type byte, and not trusted.
    assert_eq!(
        sev(&recs[2]),
        vec![n("error", "srb2.header.type"), n("warning", "")]
    );
    assert_eq!(recs[2]["summary"], "unknown packet type 40 (4 body bytes)");
    // 4: unknown XD id → error + note; the next player's buffer still decodes.
    assert_eq!(
        sev(&recs[3]),
        vec![n("error", "srb2.xd"), n("note", "srb2.textbuf.undecoded")]
    );
    assert!(
        recs[3]["summary"]
            .as_str()
            .unwrap()
            .contains("\"still here\"")
    );
    // 5: trailing bytes → warning; 6: ticcmd block cut → error.
    assert_eq!(sev(&recs[4]), vec![n("warning", "srb2.trailing")]);
    assert_eq!(sev(&recs[5]), vec![n("error", "srb2.tics.tic")]);
}
