#!/usr/bin/env bash
# Times gamedissect against tshark on the same large capture, in one run, alternating the tools,
# and prints packets/s, ratios and peak RSS.
#
#   bash scripts/bench-vs-tshark.sh [COPIES] [ROUNDS] [SOURCE.pcap]
#
# The benchmark capture is SOURCE (default: the real OpenArena capture) replicated COPIES times
# (default 120, about 200k packets). Each copy gets its own loopback address pair with tcprewrite,
# so every copy is a separate set of flows (client and server ports stay as captured; the
# addresses differ), then all copies are merged in time order with mergecap. Needs: tcpreplay
# (tcprewrite), wireshark-common (mergecap, editcap), tshark, time, python3. Writes into target/bench/.
set -euo pipefail
cd "$(dirname "$0")/.."

COPIES=${1:-120}
ROUNDS=${2:-3}
SOURCE=${3:-captures/quake3-openarena-legacy.pcap}
OUT=target/bench
mkdir -p "$OUT/copies"

for tool in tcprewrite mergecap tshark python3 cargo; do
  command -v "$tool" >/dev/null || { echo "missing: $tool (apt-get install tcpreplay wireshark-common tshark)" >&2; exit 1; }
done

BIG="$OUT/$(basename "$SOURCE" .pcap)-x$COPIES.pcap"
if [ ! -s "$BIG" ]; then
  rm -f "$OUT"/copies/*.pcap
  for i in $(seq 1 "$COPIES"); do
    a=$(( i / 250 + 1 )); b=$(( i % 250 + 1 ))
    tcprewrite --infile="$SOURCE" --outfile="$OUT/copies/$i.pcap" \
      --srcipmap=127.0.0.1/32:127.$a.$b.1/32 --dstipmap=127.0.0.1/32:127.$a.$b.1/32 --fixcsum
  done
  mergecap -F pcap -w "$BIG" "$OUT"/copies/*.pcap
  rm -f "$OUT"/copies/*.pcap
fi

# Ten times longer: the benchmark capture played ten times in a row, each round on its own
# address block (127/8 mapped to (100+r)/8) and shifted by 700 s, more than the 600 s idle
# timeout, so the number of live flows stays that of one round while the file grows tenfold.
BIG10="$OUT/$(basename "$SOURCE" .pcap)-x$COPIES-10rounds.pcap"
if [ ! -s "$BIG10" ]; then
  rounds=()
  for r in $(seq 0 9); do
    tcprewrite --infile="$BIG" --outfile="$OUT/round$r.pcap" \
      --srcipmap=127.0.0.0/8:$((100 + r)).0.0.0/8 --dstipmap=127.0.0.0/8:$((100 + r)).0.0.0/8 --fixcsum
    editcap -t $((700 * r)) "$OUT/round$r.pcap" "$OUT/round$r-shifted.pcap"
    rounds+=("$OUT/round$r-shifted.pcap")
    rm -f "$OUT/round$r.pcap"
  done
  mergecap -a -F pcap -w "$BIG10" "${rounds[@]}"
  rm -f "${rounds[@]}"
fi

cargo build --release --quiet
BIN=target/release/gamedissect

python3 - "$BIG" "$BIN" "$ROUNDS" "$BIG10" <<'PY'
import os, subprocess, sys, time

cap, binary, rounds, cap10 = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]

def count_packets():
    out = subprocess.run([binary, "stats", "--format", "json", cap], capture_output=True, text=True, check=True).stdout
    import json
    return json.loads(out)["frames"]

packets = count_packets()
cmds = {
    "gamedissect summary": [binary, "dissect", cap],
    "gamedissect json":    [binary, "dissect", "--format", "json", cap],
    "gamedissect stats":   [binary, "stats", cap],
    "gd summary 1 thread": [binary, "dissect", "--threads", "1", cap],
    "gd json 1 thread":    [binary, "dissect", "--threads", "1", "--format", "json", cap],
    "tshark":              ["tshark", "-n", "-r", cap],
    "tshark -V":           ["tshark", "-n", "-V", "-r", cap],
    "tshark -T json":      ["tshark", "-n", "-T", "json", "-r", cap],
}
best = {k: float("inf") for k in cmds}
rss = {k: 0 for k in cmds}
for r in range(rounds):
    for name, cmd in cmds.items():          # alternate the tools within each round
        t0 = time.perf_counter()
        r = subprocess.run(["/usr/bin/time", "-f", "%M", *cmd], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        dt = time.perf_counter() - t0
        if r.returncode != 0:
            print(f"{name}: exit status {r.returncode}", file=sys.stderr)
        best[name] = min(best[name], dt)
        rss[name] = max(rss[name], int(r.stderr.strip().splitlines()[-1]))   # KiB
print(f"capture: {cap}, {packets} packets, {os.path.getsize(cap)} bytes, best of {rounds} rounds")
print(f"{'command':<22} {'seconds':>9} {'packets/s':>12} {'peak RSS MiB':>13}")
for name in cmds:
    print(f"{name:<22} {best[name]:>9.3f} {packets / best[name]:>12.0f} {rss[name] / 1024:>13.1f}")
def ratio(a, b):
    return best[b] / best[a]
print()
print(f"summary vs tshark          : {ratio('gamedissect summary', 'tshark'):6.1f}x the packets/s")
print(f"json    vs tshark -T json  : {ratio('gamedissect json', 'tshark -T json'):6.1f}x the packets/s")
print(f"json    vs tshark -V       : {ratio('gamedissect json', 'tshark -V'):6.1f}x the packets/s")
print(f"stats   vs tshark          : {ratio('gamedissect stats', 'tshark'):6.1f}x the packets/s")
print(f"on one thread: summary {ratio('gd summary 1 thread', 'tshark'):.1f}x tshark, json {ratio('gd json 1 thread', 'tshark -T json'):.1f}x tshark -T json")

def peak(cmd):
    # Through GNU time: a child forked from Python counts Python's own pages in ru_maxrss.
    r = subprocess.run(["/usr/bin/time", "-f", "%M", *cmd], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    return int(r.stderr.strip().splitlines()[-1]) / 1024
print()
for mode in (["dissect", "--format", "json"], ["dissect", "--threads", "1", "--format", "json"], ["stats"]):
    one, ten = peak([binary, *mode, cap]), peak([binary, *mode, cap10])
    print(f"peak RSS {' '.join(mode):<22}: {one:6.1f} MiB on the capture, {ten:6.1f} MiB on one ten times longer ({ten / one:.2f}x)")
PY
