#!/usr/bin/env bash
# Runs the DuckDB recipe of docs/output.md on the shipped captures and checks its answers: the
# NDJSON loads with `read_json_auto` as is, with one SQL type per column (floats DOUBLE, groups
# STRUCT, GameStudio messages one list of structs per kind), and the queries give the values that
# `gamedissect stats` and the decoders give.
#
#   pip install duckdb                 # once (DuckDB's Python package)
#   bash scripts/duckdb-recipe.sh      # exit 0 and "ok" when every check holds
#
# Not part of `cargo test`: it needs DuckDB. GAMEDISSECT names the binary (default: a debug build).
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${GAMEDISSECT:-target/debug/gamedissect}
[ -x "$BIN" ] || cargo build --quiet
DIR=$(mktemp -d)
trap 'rm -rf "$DIR"' EXIT
"$BIN" dissect -f json captures/quake3-openarena-legacy.pcap > "$DIR/q3.ndjson"
"$BIN" dissect -f json captures/quake3-ioq3-protocol.pcap > "$DIR/q3-ioq3.ndjson"
"$BIN" dissect -f json captures/gamestudio-a6-dplay8.pcap > "$DIR/gs.ndjson"
"$BIN" dissect -f json captures/flightgear-handmade.pcap > "$DIR/fg.ndjson"
"$BIN" stats -f json captures/quake3-openarena-legacy.pcap > "$DIR/q3-stats.json"

cd "$DIR"
python3 - <<'EOF'
import json
import duckdb

def column_type(table, path):
    """The SQL type DuckDB inferred for a dotted path into the `fields` column."""
    return duckdb.sql(f"SELECT typeof({path}) FROM read_json_auto('{table}') LIMIT 1").fetchall()[0][0]

# Messages and bytes per type, as `gamedissect stats` counts them.
rows = duckdb.sql("""
    SELECT protocol, type, count(*) AS messages, sum(length) AS bytes
    FROM read_json_auto('q3.ndjson') GROUP BY ALL ORDER BY messages DESC
""").fetchall()
stats = json.load(open("q3-stats.json"))
for protocol, ty, messages, nbytes in rows:
    counted = stats["message_types"][protocol][ty]
    assert (messages, nbytes) == (counted["messages"], counted["bytes"]), (ty, counted)
assert sum(r[2] for r in rows) == sum(
    c["messages"] for m in stats["message_types"].values() for c in m.values())

# The server time of every snapshot: an integer column, the first snapshot's time.
snaps = duckdb.sql("""
    SELECT frame, time_relative, fields.quake3.svc.snapshot.server_time
    FROM read_json_auto('q3.ndjson') WHERE type = 'snapshot' ORDER BY frame
""").fetchall()
assert snaps[0][2] == 2200 and len(snaps) > 100, snaps[:2]
assert isinstance(snaps[0][1], float)

# GameStudio entity positions: one row per SVC_UPDATE2 message; whole positions are DOUBLE.
updates = duckdb.sql("""
    SELECT frame, u.entity_index, u.pos.x, u.pos.y, u.pos.z
    FROM (SELECT frame, unnest(fields.gamestudio.svc_update2) AS u
          FROM read_json_auto('gs.ndjson') WHERE fields.gamestudio.svc_update2 IS NOT NULL)
""").fetchall()
assert updates[0][1:] == (7, 1.0, 2.0, 3.0), updates[0]
assert column_type("gs.ndjson", "fields.gamestudio.svc_update2[1].pos.x") == "DOUBLE"

# The shapes that once typed wrongly: whole floats, a field that was sometimes an object,
# baselines under a dotted key.
assert column_type("fg.ndjson", "fields.flightgear.position.linear_accel.x") == "DOUBLE"
assert column_type("fg.ndjson", "fields.flightgear.range_word").startswith("STRUCT(")
assert column_type("q3-ioq3.ndjson",
                   "fields.quake3.svc.snapshot.entity[1].origin_0") == "DOUBLE"
baselines = duckdb.sql("""
    SELECT len(fields.quake3.svc.gamestate.entity) FROM read_json_auto('q3-ioq3.ndjson')
    WHERE fields.quake3.svc.gamestate.entity IS NOT NULL
""").fetchall()
assert baselines and baselines[0][0] > 10, baselines
print("ok")
EOF
