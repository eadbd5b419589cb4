#!/usr/bin/env bash
# Plays the demos `gamedissect demo` makes of the shipped Quake 3 captures in the real OpenArena
# client, and compares what the client's parser logged (cl_shownet 3) with gamedissect's decode
# of the same messages. Not part of `cargo test`: it needs the game and a virtual display.
#
# Usage:  bash scripts/check-demo.sh [CAPTURE.pcap ...]
#         (default: captures/quake3-openarena-legacy.pcap captures/quake3-ioq3-protocol.pcap)
#
# Per capture: `gamedissect demo -o <home>/.openarena/baseoa/demos CAPTURE`, then, per demo,
# `openarena +set cl_shownet 3 +set timedemo 1 +demo NAME.dm_NN` under Xvfb (software GL, no
# sound). A .dm_72 demo needs `+set com_protocol 72` (CL_PlayDemo_f accepts only its own
# com_protocol, com_legacyprotocol and the old 66/67; Debian's wrapper sets both to 71). The client
# is stopped once the demo is over (its cgame unloads) or after 180 s. Then it checks:
#   * the playback reached the demo's end: the timedemo figures CL_DemoCompleted prints at the end
#     marker are there, every message the demo holds was parsed (one "------------------" line
#     each), and no "ERROR:" (ERR_DROP) line, nor "Demo file was truncated", nor a bad command
#     was logged;
#   * per snapshot (cl_shownet prints the message number, the delta reference, the player state
#     fields and each entity read with its changed fields and their values): the same numbers,
#     fields and values as `gamedissect dissect --format json` of the capture for that sequence.
# Exit 0 when every check passed. Needs: openarena, xvfb (Debian packages), python3, a release
# build (cargo build --release).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BIN="$ROOT/target/release/gamedissect"
CLIENT_BIN=/usr/games/openarena
PLAY_TIMEOUT=180

log() { printf '[check-demo] %s\n' "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

for cmd in "$CLIENT_BIN" Xvfb python3; do
    command -v "$cmd" >/dev/null 2>&1 || die "command not found: $cmd (apt-get install -y openarena xvfb)"
done
[[ -x $BIN ]] || die "no release build: run cargo build --release"

CAPTURES=("$@")
if ((${#CAPTURES[@]} == 0)); then
    CAPTURES=("$ROOT/captures/quake3-openarena-legacy.pcap" "$ROOT/captures/quake3-ioq3-protocol.pcap")
fi

WORK=$(mktemp -d)
XVFB_PID='' CLIENT_PID=''
cleanup() {
    [[ -n $CLIENT_PID ]] && kill "$CLIENT_PID" 2>/dev/null || true
    [[ -n $XVFB_PID ]] && kill "$XVFB_PID" 2>/dev/null || true
    [[ -n $CLIENT_PID ]] && wait "$CLIENT_PID" 2>/dev/null || true
    [[ -n $XVFB_PID ]] && wait "$XVFB_PID" 2>/dev/null || true
    rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

dfile="$WORK/display"
Xvfb -displayfd 9 -screen 0 640x480x24 -nolisten tcp 9>"$dfile" >"$WORK/xvfb.log" 2>&1 &
XVFB_PID=$!
for ((i = 0; i < 200; i++)); do [[ -s $dfile ]] && break; sleep 0.1; done
[[ -s $dfile ]] || die "Xvfb did not start: $(cat "$WORK/xvfb.log")"
DISPLAY=":$(head -n1 "$dfile")"
log "Xvfb on $DISPLAY"

# play NAME LOG [extra args]: plays demos/NAME, writes the console output to LOG.
play() {
    local name=$1 out=$2 i
    shift 2
    HOME="$WORK/home" DISPLAY="$DISPLAY" LIBGL_ALWAYS_SOFTWARE=1 SDL_AUDIODRIVER=dummy \
        "$CLIENT_BIN" +set r_mode 0 +set r_fullscreen 0 +set cl_renderer opengl1 \
        +set s_initsound 0 +set com_introplayed 1 "$@" \
        +set cl_shownet 3 +set timedemo 1 +set nextdemo quit +demo "$name" >"$out" 2>&1 &
    CLIENT_PID=$!
    # The demo is over when the cgame unloads (end of file, or the server's disconnect in it).
    for ((i = 0; i < PLAY_TIMEOUT * 10; i++)); do
        kill -0 "$CLIENT_PID" 2>/dev/null || break
        grep -q 'forcefully unloading cgame vm\|^ERROR:' "$out" && break
        sleep 0.1
    done
    # SIGTERM first; the engine's shutdown can hang in the renderer under Xvfb, hence the KILL.
    kill "$CLIENT_PID" 2>/dev/null || true
    for ((i = 0; i < 50; i++)); do
        kill -0 "$CLIENT_PID" 2>/dev/null || break
        sleep 0.1
    done
    kill -KILL "$CLIENT_PID" 2>/dev/null || true
    wait "$CLIENT_PID" 2>/dev/null || true
    CLIENT_PID=''
}

status=0
for cap in "${CAPTURES[@]}"; do
    base=$(basename "$cap" .pcap)
    rm -rf "$WORK/home"
    demos="$WORK/home/.openarena/baseoa/demos"
    mkdir -p "$demos"
    "$BIN" demo -o "$demos" "$cap" | tee "$WORK/$base.demo.txt" >&2
    "$BIN" dissect --format json --protocol quake3 "$cap" >"$WORK/$base.json"
    for demo in "$demos"/*; do
        name=$(basename "$demo")
        extra=()
        case $name in
            *.dm_72) extra=(+set com_protocol 72) ;;
        esac
        log "playing $name ${extra[*]:-}"
        play "$name" "$WORK/$name.log" "${extra[@]}"
        cp "$WORK/$name.log" "${CHECK_DEMO_KEEP:-$WORK}/" 2>/dev/null || true
        if ! python3 - "$demo" "$WORK/$name.log" "$WORK/$base.json" <<'PY'
import json, re, struct, sys

demo_path, log_path, json_path = sys.argv[1:4]

# The demo's records (ioquake3 cl_main.c CL_ReadDemoMessage).
data = open(demo_path, "rb").read()
seqs, off = [], 0
while off + 8 <= len(data):
    seq, length = struct.unpack_from("<ii", data, off)
    if length == -1:
        break
    seqs.append(seq)
    off += 8 + length

text = open(log_path, encoding="latin-1").read()
problems = []
for bad in ("ERROR:", "Demo file was truncated", "BAD CMD", "Illegible server message"):
    if bad in text:
        problems.append(f"the client logged {bad!r}")
# CL_DemoCompleted prints the timedemo figures only when CL_ReadDemoMessage met the end marker.
if not re.search(r"^\d+ frames [\d.]+ seconds", text, re.M):
    problems.append("the client never reached the end of the demo (no timedemo figures)")
parsed = text.count("\n------------------\n") + text.startswith("------------------\n")
if parsed != len(seqs):
    problems.append(f"the client parsed {parsed} messages of the {len(seqs)} in the demo")

def snake(name):
    s = re.sub(r"\[(\d+)\]", r"_\1", name).replace(".", "_")
    return re.sub(r"([A-Z])", lambda m: "_" + m.group(1).lower(), s)

def fields_of(line):
    body = re.sub(r"\(\d+ bits\)\s*$", "", line)
    return [tuple(f.rsplit(":", 1)) for f in body.split()]

# The client's log: per snapshot message number, what it read. CL_ParsePacketEntities names each
# entity it reads ("delta: N", "baseline: N"); MSG_ReadDeltaEntity then prints its changed fields
# ("#N field:value ... (B bits)", with N not yet set there, so not used) or "#N remove", or
# nothing when the entity did not change.
client = {}
cur = pending = None
for line in text.splitlines():
    if line.strip().endswith(":svc_snapshot"):
        cur, pending = {"ps": [], "ents": []}, None
        continue
    if cur is None:
        continue
    m = re.match(r"\s*\d+: playerstate (.*)$", line)
    if m:
        cur["ps"] = fields_of(m.group(1))
        continue
    m = re.match(r"\s*\d+:\s+(delta|baseline): (\d+)\s*$", line)
    if m:
        pending = [int(m.group(2)), "delta", []]
        cur["ents"].append(pending)
        continue
    m = re.match(r"\s*\d+: #(\d+)\s+remove\s*$", line)
    if m and pending:
        pending[1] = "remove"
        continue
    m = re.match(r"\s*\d+: #(\d+)\s+(.*)$", line)
    if m and pending:
        pending[2] = fields_of(m.group(2))
        continue
    m = re.match(r"\s*snapshot:(-?\d+)\s+delta:(-?\d+)", line)
    if m:
        client[int(m.group(1))] = (int(m.group(2)), cur)
        cur = None

# Our decode of the capture, by sequence.
ours = {}
for line in open(json_path):
    r = json.loads(line)
    if r.get("direction") != "to_client" or r.get("type") != "snapshot":
        continue
    q = r["fields"]["quake3"]
    ours[q["netchan"]["sequence"]] = q["svc"]["snapshot"]

def same(value, text_value):
    # cl_shownet prints an integral float as %i, another as %f, an int as %i.
    if isinstance(value, float):
        exact = struct.unpack("<f", struct.pack("<f", value))[0]
        if exact == int(exact):
            return text_value == str(int(exact))
        return text_value == f"{exact:.6f}"
    return text_value == str(value)

# Not printed at cl_shownet 3: the player state's arrays (MSG_ReadDeltaPlayerstate prints them
# only at 4), and an entity field changed to zero (MSG_ReadDeltaEntity reads it without printing).
ARRAYS = {"stats", "persistant", "ammo", "powerups"}

def is_zero(obj, name):
    return obj.get(snake(name), 0) in (0, 0.0)

def compare(seq, what, our_obj, their_fields):
    names = [n for n, _ in their_fields]
    ours = [n for n in our_obj.get("changed", []) if n not in ARRAYS]
    printed = [n for n in ours if n in names or not is_zero(our_obj, n)]
    if names != printed:
        problems.append(f"seq {seq} {what}: fields {names} vs ours {ours}")
        return
    for n, v in their_fields:
        key = snake(n)
        if key in our_obj and not same(our_obj[key], v):
            problems.append(f"seq {seq} {what}: {n} {v} vs ours {our_obj[key]}")

checked = fields = 0
for seq in seqs:
    if seq not in ours:
        continue
    snap = ours[seq]
    if seq not in client:
        problems.append(f"seq {seq}: the client logged no snapshot")
        continue
    delta, got = client[seq]
    want_delta = snap.get("delta_from", seq) if snap.get("delta_num", 0) else -1
    if delta != want_delta:
        problems.append(f"seq {seq}: delta {delta} vs ours {want_delta}")
    compare(seq, "playerstate", snap.get("ps", {}), got["ps"])
    mine = snap.get("entity", [])
    if [e["number"] for e in mine] != [n for n, _, _ in got["ents"]]:
        problems.append(f"seq {seq}: entities {[n for n, _, _ in got['ents']]} vs ours {[e['number'] for e in mine]}")
    else:
        for e, (n, kind, fl) in zip(mine, got["ents"]):
            if (kind == "remove") != bool(e.get("removed")):
                problems.append(f"seq {seq} #{n}: removed differs")
            elif kind == "delta":
                compare(seq, f"#{n}", e, fl)
            fields += len(fl)
    fields += len(got["ps"])
    checked += 1

for p in problems[:20]:
    print("  MISMATCH", p)
print(f"  {len(seqs)} messages played, {checked} snapshots compared ({fields} field values): "
      + ("OK" if not problems else f"{len(problems)} problems"))
sys.exit(1 if problems else 0)
PY
        then
            status=1
        fi
    done
done
exit $status
