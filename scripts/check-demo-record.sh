#!/usr/bin/env bash
# Records a short game twice at once: the real OpenArena client records its own demo (`record`)
# while tcpdump captures the traffic; then `gamedissect demo` makes its demo from the capture and
# the two are compared message by message. Not part of `cargo test`.
#
# Usage:  bash scripts/check-demo-record.sh [legacy|ioq3|all]     (default: all)
#   legacy: Debian's packaged protocol 71 (legacy netchan, .dm_71)
#   ioq3:   +set com_protocol 72 on server and client (ioquake3 netchan, .dm_72)
#
# The client's demo starts with a gamestate `CL_Record_f` makes itself (sequence
# serverMessageSequence - 1), then holds every message from the next non-delta snapshot on
# (`clc.demowaiting`); ours starts at the captured gamestate. Checked: same extension, every
# message of the client's demo after its gamestate present in ours with the same sequence and
# the same bytes, the same last sequence and the same end marker. The client's demo is then read
# by `gamedissect dissect`, which must decode it without an error note.
#
# Runs on 127.0.0.1 with the server on UDP 27962 and the client on 27963. Installs nothing.
# Needs root (tcpdump on lo), Debian's openarena, openarena-server, xvfb, tcpdump, python3, and a
# release build (cargo build --release).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BIN="$ROOT/target/release/gamedissect"
ADDR=127.0.0.1
PORT=27962
CLIENT_PORT=27963

log() { printf '[check-demo-record] %s\n' "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

for cmd in /usr/games/openarena /usr/games/openarena-server Xvfb tcpdump python3 ss; do
    command -v "$cmd" >/dev/null 2>&1 || die "command not found: $cmd"
done
[[ -x $BIN ]] || die "no release build: run cargo build --release"
[[ $(id -u) -eq 0 ]] || die "must run as root (tcpdump on lo)"
for p in "$PORT" "$CLIENT_PORT"; do
    [[ -z $(ss -Huln "sport = :$p") ]] || die "UDP port $p is in use"
done

WORK=$(mktemp -d)
PIDS=()
cleanup() {
    local p
    for p in "${PIDS[@]}"; do kill -KILL "$p" 2>/dev/null || true; done
    for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
    rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

wait_for() { # FILE REGEX SECONDS
    local i
    for ((i = 0; i < $3 * 10; i++)); do
        grep -Eq -- "$2" "$1" 2>/dev/null && return 0
        sleep 0.1
    done
    return 1
}

stop() { # PID: TERM, then KILL (the engine's shutdown can hang under Xvfb)
    local i
    kill "$1" 2>/dev/null || true
    for ((i = 0; i < 30; i++)); do kill -0 "$1" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$1" 2>/dev/null || true
    wait "$1" 2>/dev/null || true
}

# record NAME [extra engine args]: one game; leaves $WORK/NAME/{cap.pcap,client demo}.
record() {
    local name=$1 w="$WORK/$1" sfd cfd tp sp xp cp
    shift
    mkdir -p "$w/srvhome" "$w/clhome"
    mkfifo "$w/srv_in" "$w/cl_in"
    exec {sfd}<>"$w/srv_in" {cfd}<>"$w/cl_in"
    tcpdump -i lo -U -nn -w "$w/cap.pcap" "udp port $PORT" 2>"$w/tcpdump.err" &
    tp=$!; PIDS+=("$tp")
    wait_for "$w/tcpdump.err" 'listening on' 10 || die "tcpdump did not start"
    HOME="$w/srvhome" /usr/games/openarena-server +set dedicated 1 +set net_enabled 1 \
        +set net_ip "$ADDR" +set net_port "$PORT" +set g_gametype 0 +set bot_nochat 1 \
        "$@" +map oa_dm1 <"$w/srv_in" >"$w/server.log" 2>&1 &
    sp=$!; PIDS+=("$sp")
    wait_for "$w/server.log" '^AAS initialized' 60 || die "server did not start"
    echo "addbot Sarge 1" >&"$sfd"
    Xvfb -displayfd 9 -screen 0 640x480x24 -nolisten tcp 9>"$w/display" >"$w/xvfb.log" 2>&1 &
    xp=$!; PIDS+=("$xp")
    wait_for "$w/display" '^[0-9]+' 20 || die "Xvfb did not start"
    HOME="$w/clhome" DISPLAY=":$(head -n1 "$w/display")" LIBGL_ALWAYS_SOFTWARE=1 \
        SDL_AUDIODRIVER=dummy /usr/games/openarena +set r_mode 0 +set r_fullscreen 0 \
        +set cl_renderer opengl1 +set s_initsound 0 +set com_maxfps 60 +set cl_maxpackets 30 \
        +set com_introplayed 1 +set net_enabled 1 +set net_ip "$ADDR" \
        +set net_port "$CLIENT_PORT" +set name RecPlayer "$@" +connect "$ADDR:$PORT" \
        <"$w/cl_in" >"$w/client.log" 2>&1 &
    cp=$!; PIDS+=("$cp")
    wait_for "$w/server.log" 'RecPlayer.*entered the game' 120 || die "client did not enter"
    sleep 2
    echo "record golden" >&"$cfd"; sleep 1
    echo "+forward" >&"$cfd"; sleep 2; echo "-forward" >&"$cfd"
    echo "say recorded chat" >&"$cfd"; sleep 1
    echo "+attack" >&"$cfd"; sleep 1; echo "-attack" >&"$cfd"; sleep 2
    echo "disconnect" >&"$cfd"; sleep 2
    stop "$cp"; stop "$xp"
    echo "quit" >&"$sfd"; sleep 1; stop "$sp"
    kill -INT "$tp" 2>/dev/null || true; wait "$tp" 2>/dev/null || true
    exec {sfd}>&- {cfd}>&-
}

status=0
case "${1:-all}" in
    legacy) runs=(legacy) ;;
    ioq3) runs=(ioq3) ;;
    all) runs=(legacy ioq3) ;;
    *) die "usage: $0 [legacy|ioq3|all]" ;;
esac
for run in "${runs[@]}"; do
    if [[ $run == ioq3 ]]; then record "$run" +set com_protocol 72; else record "$run"; fi
    w="$WORK/$run"
    mkdir -p "$w/ours"
    "$BIN" demo -o "$w/ours" "$w/cap.pcap" >&2
    if ! python3 - "$w/clhome/.openarena/baseoa/demos" "$w/ours" <<'PY'
import os, struct, sys

def read(path):
    data, at, out = open(path, "rb").read(), 0, []
    while at + 8 <= len(data):
        seq, length = struct.unpack_from("<ii", data, at)
        if length == -1:
            return out, data[at:]
        out.append((seq, data[at + 8:at + 8 + length]))
        at += 8 + length
    return out, b""

client_dir, ours_dir = sys.argv[1:3]
theirs = sorted(os.listdir(client_dir))
ours = sorted(os.listdir(ours_dir))
problems = []
if len(theirs) != 1 or len(ours) != 1:
    print(f"  demos: client {theirs}, ours {ours}")
    sys.exit(1)
ext = lambda n: n.rsplit(".", 1)[-1]
if ext(theirs[0]) != ext(ours[0]):
    problems.append(f"extension {ext(theirs[0])} vs ours {ext(ours[0])}")
real, real_end = read(os.path.join(client_dir, theirs[0]))
mine, my_end = read(os.path.join(ours_dir, ours[0]))
by_seq = dict(mine)
same = sum(1 for s, b in real[1:] if by_seq.get(s) == b)
if same != len(real) - 1:
    problems.append(f"{len(real) - 1 - same} of the client's messages differ or are missing")
if real[-1][0] != mine[-1][0]:
    problems.append(f"last sequence {real[-1][0]} vs ours {mine[-1][0]}")
if real_end != my_end:
    problems.append("end markers differ")
for p in problems:
    print("  MISMATCH", p)
print(f"  {theirs[0]} ({len(real)} messages, {real[0][0]}..{real[-1][0]}) vs {ours[0]} "
      f"({len(mine)} messages, {mine[0][0]}..{mine[-1][0]}): {same} identical"
      + (", OK" if not problems else ""))
sys.exit(1 if problems else 0)
PY
    then
        status=1
    fi
    # A demo made elsewhere: the client's own, read by dissect without an error note.
    for demo in "$w/clhome/.openarena/baseoa/demos"/*; do
        if ! "$BIN" dissect --format json "$demo" | python3 -c '
import json, sys
recs = [json.loads(l) for l in sys.stdin]
errors = sum(n["severity"] == "error" for r in recs for n in r["notes"])
types = " ".join(sorted({r["type"] for r in recs}))
print(f"  dissect of the client demo: {len(recs)} messages ({types}), {errors} error notes")
sys.exit(1 if errors or not recs else 0)'; then
            status=1
        fi
    done
done
exit $status
