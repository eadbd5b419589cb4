#!/usr/bin/env bash
# Writes every output of every shipped capture into one folder, so that two builds can be
# compared byte for byte (a refactoring must leave them equal):
#
#   bash scripts/output-snapshot.sh target/release/gamedissect /tmp/before
#   ... change the code, cargo build --release ...
#   bash scripts/output-snapshot.sh target/release/gamedissect /tmp/after
#   diff -r /tmp/before /tmp/after && echo identical
#
# Per capture: dissect in summary, tree (with --hex), JSON (one pass and -2) and fields form, stats (text, JSON,
# per second), events (text, JSON, CSV), tracks (CSV, NDJSON; GeoJSON, KML and GPX where it has
# FlightGear), the HTML report, and the demos with their listing. A capture's extra options come
# from tests/golden/<capture>.args, as in the golden tests. Exit codes are kept beside the output.
set -uo pipefail
cd "$(dirname "$0")/.."
BIN=${1:?usage: output-snapshot.sh BINARY OUT_DIR}
OUT=${2:?usage: output-snapshot.sh BINARY OUT_DIR}
BIN=$(realpath "$BIN")
mkdir -p "$OUT"

# Runs one command, its standard output into FILE and its exit code into FILE.rc.
keep() {
  local file=$1
  shift
  "$@" >"$file" 2>"$file.err"
  echo $? >"$file.rc"
}

for capture in captures/*.pcap captures/*.pcapng; do
  name=$(basename "${capture%.*}")
  args=()
  if [ -f "tests/golden/$name.args" ]; then
    mapfile -t args <"tests/golden/$name.args"
  fi
  d="$OUT/$name"
  mkdir -p "$d"
  keep "$d/summary" "$BIN" dissect "${args[@]}" --color never "$capture"
  keep "$d/tree" "$BIN" dissect "${args[@]}" --color never -f tree --hex "$capture"
  keep "$d/json" "$BIN" dissect "${args[@]}" -f json --hex "$capture"
  keep "$d/json-2" "$BIN" dissect "${args[@]}" -f json -2 "$capture"
  keep "$d/fields" "$BIN" dissect "${args[@]}" -f fields -e frame.number -e msg.type -e msg.protocol \
    -e flow.direction -e expert.message -E header=y "$capture"
  keep "$d/stats" "$BIN" stats "${args[@]}" "$capture"
  keep "$d/stats.json" "$BIN" stats "${args[@]}" -f json "$capture"
  keep "$d/interval" "$BIN" stats "${args[@]}" --interval 1s "$capture"
  for f in text json csv; do
    keep "$d/events.$f" "$BIN" events "${args[@]}" -f "$f" "$capture"
  done
  for f in csv ndjson geojson kml gpx; do
    keep "$d/tracks.$f" "$BIN" tracks "${args[@]}" -f "$f" "$capture"
  done
  keep "$d/report.html" "$BIN" report -q "${args[@]}" "$capture" -w -
  keep "$d/demo.list" "$BIN" demo --list "$capture"
  mkdir -p "$d/demos"
  keep "$d/demo.out" "$BIN" demo -q -o "$d/demos" "$capture"
  # The listing names the output folder: keep it relative so two snapshots compare.
  sed -i "s#$d/##g" "$d/demo.out"
done
echo "$OUT"
