#!/usr/bin/env bash
# Runs gamedissect over captures of other people's traffic, none of it a game this tool
# decodes, and fails when any flow is claimed by a game decoder, when a run exits with anything
# but 0 (decoded) or 1 (unreadable input), or when one crashes or outlasts the timeout.
#
#   bash scripts/foreign-corpus.sh [-b BINARY] [-t SECONDS] [-j JOBS] [FOLDER ...]
#
# Without folders: shallow clones (git clone --depth 1) of the test captures of tcpdump
# (tests/), OISF suricata-verify and zeek (testing/), into $GAMEDISSECT_FOREIGN_CACHE
# (default ~/.cache/gamedissect-foreign), made when missing. Every *.pcap, *.pcapng and *.cap
# (and *.trace) file under the folders is one capture. Each is run as `gamedissect stats -q -f json`.
# docs/trust.md has the figures of the last run.
set -uo pipefail
cd "$(dirname "$0")/.."
BIN=target/release/gamedissect
TIMEOUT=20
JOBS=2
while getopts b:t:j: opt; do
  case $opt in
  b) BIN=$OPTARG ;;
  t) TIMEOUT=$OPTARG ;;
  j) JOBS=$OPTARG ;;
  *) exit 2 ;;
  esac
done
shift $((OPTIND - 1))
BIN=$(realpath "$BIN")
[ -x "$BIN" ] || { echo "no binary at $BIN (cargo build --release)" >&2; exit 2; }

folders=("$@")
if [ ${#folders[@]} -eq 0 ]; then
  cache=${GAMEDISSECT_FOREIGN_CACHE:-$HOME/.cache/gamedissect-foreign}
  mkdir -p "$cache"
  for url in https://github.com/the-tcpdump-group/tcpdump https://github.com/OISF/suricata-verify \
    https://github.com/zeek/zeek; do
    dir=$cache/$(basename "$url")
    [ -d "$dir" ] || git clone --quiet --depth 1 "$url" "$dir" || exit 2
    folders+=("$dir")
  done
fi

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# One line per capture: exit code, claimed protocols (protocol=messages, or none, or -), path.
one() {
  local f=$1 res rc claimed
  res=$(timeout "$TIMEOUT" "$BIN" stats -q -f json "$f" 2>/dev/null)
  rc=$?
  claimed=$(printf '%s' "$res" | python3 -c '
import json, sys
try:
    d = json.load(sys.stdin)
except Exception:
    print("-"); sys.exit()
c = {k: v.get("messages", 0) for k, v in d.get("protocols", {}).items() if k != "udp"}
print(",".join(f"{k}={v}" for k, v in sorted(c.items())) or "none")')
  echo "$rc $claimed $f"
}
export -f one
export BIN TIMEOUT
find "${folders[@]}" -type f \( -name '*.pcap' -o -name '*.pcapng' -o -name '*.cap' \
  -o -name '*.trace' \) -print0 | sort -z |
  xargs -0 -r -n 1 -P "$JOBS" bash -c 'one "$0"' >"$out/runs"
sort -k3 "$out/runs" -o "$out/runs"

total=$(wc -l <"$out/runs")
echo "captures: $total"
echo "exit codes:"
awk '{print $1}' "$out/runs" | sort -n | uniq -c | sed 's/^/  /'
echo "claims per protocol (must be none):"
awk '$2 != "none" && $2 != "-" {n = split($2, c, ","); for (i = 1; i <= n; i++) {split(c[i], kv, "="); m[kv[1]] += kv[2]; k[kv[1]]++}}
  END {for (p in m) printf "  %s: %d captures, %d messages\n", p, k[p], m[p]}' "$out/runs"
timeouts=$(awk '$1 == 124' "$out/runs" | wc -l)
crashes=$(awk '$1 > 1 && $1 != 124' "$out/runs" | wc -l)
echo "timeouts: $timeouts"
echo "crashes or other exit codes: $crashes"
offenders=$(awk '($1 != 0 && $1 != 1) || ($2 != "none" && $2 != "-")' "$out/runs")
if [ -n "$offenders" ]; then
  echo "offenders (exit code, claims, capture):"
  printf '%s\n' "$offenders" | sed 's/^/  /'
  exit 1
fi
echo "clean"
