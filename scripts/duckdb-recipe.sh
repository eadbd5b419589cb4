#!/usr/bin/env bash
# Runs the DuckDB recipe of docs/output.md on the shipped captures and checks its answers: the
# NDJSON loads with `read_json_auto` as is, with one SQL type per column (floats DOUBLE, groups
# STRUCT, GameStudio messages one list of structs per kind), and the queries give the values that
# `gamedissect stats` and the decoders give. The same questions are then asked of the Parquet
# that `dissect --format parquet` writes (read_parquet over the hive partitions), whose columns
# are typed by the registry, and must give the same answers.
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
for c in quake3-openarena-legacy quake3-ioq3-protocol gamestudio-a6-dplay8 flightgear-handmade srb2-2.2.13-session; do
  "$BIN" dissect -f parquet -w "$DIR/pq-$c" "captures/$c.pcap"
  "$BIN" stats -f json "captures/$c.pcap" > "$DIR/stats-$c.json"
done

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

# The same from Parquet: every file of a run, the partitions as columns.
def pq(capture):
    return f"read_parquet('pq-{capture}/**/*.parquet', hive_partitioning=true, union_by_name=true)"

def pq_type(capture, path, where="true"):
    return duckdb.sql(f"SELECT typeof({path}) FROM {pq(capture)} WHERE {where} LIMIT 1").fetchall()[0][0]

# Messages and bytes per type of every capture, against `stats` (a datagram's bytes are shared
# among its records there: the JSON's sum of lengths is checked where each datagram is one).
for capture in ["quake3-openarena-legacy", "quake3-ioq3-protocol", "gamestudio-a6-dplay8",
                "flightgear-handmade", "srb2-2.2.13-session"]:
    stats = json.load(open(f"stats-{capture}.json"))
    counted = {(p, t): c for p, m in stats["message_types"].items() for t, c in m.items()}
    rows = duckdb.sql(f"""
        SELECT protocol, type, count(*), sum(length), count(DISTINCT frame)
        FROM {pq(capture)} GROUP BY ALL
    """).fetchall()
    assert {(p, t): n for p, t, n, _, _ in rows} == {k: c["messages"] for k, c in counted.items()}, capture
    for p, t, n, nbytes, frames in rows:
        if n == frames:
            assert nbytes == counted[(p, t)]["bytes"], (capture, p, t)
pq_rows = duckdb.sql(f"""
    SELECT protocol, type, count(*) AS messages, sum(length) AS bytes
    FROM {pq("quake3-openarena-legacy")} GROUP BY ALL ORDER BY messages DESC
""").fetchall()
assert sorted(pq_rows) == sorted(rows_json := duckdb.sql("""
    SELECT protocol, type, count(*), sum(length) FROM read_json_auto('q3.ndjson') GROUP BY ALL
""").fetchall()), (pq_rows, rows_json)

# Typed columns, from the registry rather than inferred.
assert pq_type("quake3-openarena-legacy", "fields.quake3.svc.snapshot.server_time") == "BIGINT"
assert pq_type("quake3-openarena-legacy", "time") == "TIMESTAMPTZ_NS"
assert pq_type("quake3-openarena-legacy", "time_relative") == "DOUBLE"
assert pq_type("gamestudio-a6-dplay8", "fields.gamestudio.svc_update2[1].pos.x") == "DOUBLE"
assert pq_type("flightgear-handmade", "fields.flightgear.position.linear_accel.x") == "DOUBLE"
assert pq_type("flightgear-handmade", "fields.flightgear.range_word").startswith("STRUCT(")
assert pq_type("flightgear-handmade", "fields.flightgear.properties.property").startswith("MAP(VARCHAR")
assert pq_type("quake3-ioq3-protocol", "fields.quake3.svc.snapshot.entity").startswith("STRUCT(")
assert pq_type("srb2-2.2.13-session", "notes").startswith("STRUCT(severity VARCHAR")

# The server time of every snapshot, as from the NDJSON.
pq_snaps = duckdb.sql(f"""
    SELECT frame, time_relative, fields.quake3.svc.snapshot.server_time
    FROM {pq("quake3-openarena-legacy")} WHERE type = 'snapshot' ORDER BY frame
""").fetchall()
assert pq_snaps == snaps, (pq_snaps[:2], snaps[:2])

# GameStudio entity positions: the same rows as from the NDJSON.
pq_updates = duckdb.sql(f"""
    SELECT frame, u.entity_index, u.pos.x, u.pos.y, u.pos.z
    FROM (SELECT frame, unnest(fields.gamestudio.svc_update2) AS u
          FROM {pq("gamestudio-a6-dplay8")} WHERE fields.gamestudio.svc_update2 IS NOT NULL)
    ORDER BY frame
""").fetchall()
assert sorted(pq_updates) == sorted(updates), (pq_updates[:2], updates[:2])

# Baselines under the gamestate, and one FlightGear property read by its path.
pq_baselines = duckdb.sql(f"""
    SELECT len(fields.quake3.svc.gamestate.entity) FROM {pq("quake3-ioq3-protocol")}
    WHERE fields.quake3.svc.gamestate.entity IS NOT NULL
""").fetchall()
assert pq_baselines == baselines, (pq_baselines, baselines)
protocol_version = duckdb.sql(f"""
    SELECT fields.flightgear.properties.property['sim/multiplay/protocol-version'].int
    FROM {pq("flightgear-handmade")} WHERE type = 'position' ORDER BY frame LIMIT 1
""").fetchall()
assert protocol_version == [(2,)], protocol_version
print("ok")
EOF
