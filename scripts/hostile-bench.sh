#!/usr/bin/env bash
# Runs the release binary over each crafted capture of the hostile suite and prints, per attack,
# the CPU time per packet against a normal Quake 3 capture's, the peak RSS and the exit code.
#
#   bash scripts/hostile-bench.sh [NORMAL_CAPTURE]    # default captures/quake3-ioq3-protocol.pcap
#
# The captures are written to target/hostile/ by `testkit`'s hostile_captures (HOSTILE_FLOWS sets
# the gamestate flood's flow count, default 60,000: 524 MB). The normal capture (a pcap) is
# replicated REPLICATE times (default 298: 500,640 packets of the ioquake3 capture) so that its
# CPU time is well above /usr/bin/time's 10 ms resolution. Needs GNU time (/usr/bin/time).
set -euo pipefail
cd "$(dirname "$0")/.."
SOURCE=${1:-captures/quake3-ioq3-protocol.pcap}
OUT=target/hostile
cargo build --quiet --release
cargo run --quiet --release -p testkit --bin hostile_captures -- "$OUT"
BIN=target/release/gamedissect

# The pcap header once, then the records REPLICATE times (times repeat; each copy decodes alike).
NORMAL="$OUT/normal-$(basename "$SOURCE")"
{
  head -c 24 "$SOURCE"
  for _ in $(seq "${REPLICATE:-298}"); do tail -c +25 "$SOURCE"; done
} > "$NORMAL"

# CPU seconds (user + system), peak RSS in KiB and the exit code of one run.
measure() {
  local log status
  log=$(mktemp)
  set +e
  /usr/bin/time -f "%U %S %M" -o "$log" "$@" >/dev/null 2>&1
  status=$?
  set -e
  tail -1 "$log" | awk -v s="$status" '{ print $1 + $2, $3, s }'
  rm -f "$log"
}

frames() { "$BIN" stats --format json "$1" | grep -o '"frames":[0-9]*' | head -1 | cut -d: -f2; }

# name mode frames cpu rss exit base → one row
row() {
  awk -v name="$1" -v mode="$2" -v n="$3" -v cpu="$4" -v rss="$5" -v st="$6" -v base="$7" \
    'BEGIN { per = cpu / n; printf "%-32s %-8s %9d %10.2f %8.1f %9.1f %5s\n",
             name, mode, n, per * 1e6, per / base, rss / 1024, st }'
}

read -r cpu rss status < <(measure "$BIN" dissect --threads 1 -f json "$NORMAL")
n=$(frames "$NORMAL")
base=$(awk -v c="$cpu" -v n="$n" 'BEGIN { print c / n }')
printf '%-32s %-8s %9s %10s %8s %9s %5s\n' capture mode frames "µs/pkt" "x normal" "RSS MiB" exit
row "$(basename "$NORMAL")" json "$n" "$cpu" "$rss" "$status" "$base"
for f in "$OUT"/*.pcap "$OUT"/*.pcapng; do
  [ "$f" = "$NORMAL" ] && continue
  n=$(frames "$f")
  for mode in summary json stats; do
    if [ "$mode" = stats ]; then
      read -r cpu rss status < <(measure "$BIN" stats "$f")
    else
      read -r cpu rss status < <(measure "$BIN" dissect --threads 1 -f "$mode" "$f")
    fi
    row "$(basename "$f")" "$mode" "$n" "$cpu" "$rss" "$status" "$base"
  done
done
# What the probes cost: the unclaimed DirectPlay 8 flows without them.
f="$OUT/gamestudio-dp8-probing.pcap"
read -r cpu rss status < <(measure "$BIN" dissect --threads 1 --no-heuristics -f summary "$f")
row "$(basename "$f")" no-heur "$(frames "$f")" "$cpu" "$rss" "$status" "$base"
