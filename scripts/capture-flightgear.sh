#!/usr/bin/env bash
# Make real golden captures of FlightGear multiplayer (MP) traffic on loopback.
#
# Runs Debian's fgfs (FlightGear 2020.3) headless under Xvfb with Mesa software
# GL, lets it send MP position packets to 127.0.0.1, sends chat lines through
# its telnet property server and records the UDP traffic with tcpdump.
#
# Usage:  bash scripts/capture-flightgear.sh [SCENARIO...]
#   scenarios: v2-ground v2-air v1 v2-pair   (default: all four)
# Output: captures/flightgear-<scenario>.pcap and captures/flightgear-<scenario>.txt
#         (v1 is written as captures/flightgear-v1.pcap / .txt)
#
# Prerequisites (not installed by this script; Debian 12 package names):
#   flightgear (pulls flightgear-data-*, ~1.9 GB download), xvfb, tcpdump, libgl1-mesa-dri
# Must run as root (tcpdump on lo). All traffic stays on 127.0.0.1.
#
# Environment overrides:
#   OUT_DIR       where the pcap/txt files go (default: <repo>/captures)
#   START_TIMEOUT seconds to wait for the first MP packets (default 420)
#   KEEP_WORK=1   keep the temporary work dir (fgfs logs) after the run
set -euo pipefail

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_DIR=$(cd "$SCRIPT_DIR/.." && pwd)
OUT_DIR=${OUT_DIR:-$REPO_DIR/captures}
START_TIMEOUT=${START_TIMEOUT:-420}

# Ports. 5000 is FlightGear's default MP port.
PORT_A=5000          # single-instance: fgfs sends to this port (nobody listens)
PORT_B=5002          # single-instance: fgfs binds/receives here (and sends from it)
TELNET_A=5401
TELNET_B=5402
BPF="udp port $PORT_A or udp port $PORT_B"

AIRCRAFT=c172p
CHAT1="Hello from gamedissect"
CHAT2="Second line: golden capture 42"
CHAT_B1="Hi GDPAIRA, this is GDPAIRB"
CHAT_B2="GDPAIRB signing off"

log() { printf '[capture-flightgear %(%H:%M:%S)T] %s\n' -1 "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

# ---------------------------------------------------------------- prerequisites
find_fgfs() {
    if command -v fgfs >/dev/null 2>&1; then command -v fgfs
    elif [[ -x /usr/games/fgfs ]]; then echo /usr/games/fgfs
    else return 1; fi
}
FGFS=$(find_fgfs) || die "fgfs not found (apt-get install flightgear)"
command -v Xvfb >/dev/null 2>&1 || die "Xvfb not found (apt-get install xvfb)"
command -v tcpdump >/dev/null 2>&1 || die "tcpdump not found (apt-get install tcpdump)"
[[ $(id -u) -eq 0 ]] || die "must run as root (tcpdump on lo)"
FG_ROOT=${FG_ROOT:-/usr/share/games/flightgear}
[[ -f $FG_ROOT/Aircraft/$AIRCRAFT/$AIRCRAFT-set.xml ]] \
    || die "$FG_ROOT/Aircraft/$AIRCRAFT/$AIRCRAFT-set.xml missing (flightgear-data-base)"
ls /usr/lib/*/dri/swrast_dri.so >/dev/null 2>&1 \
    || die "Mesa software GL driver missing (apt-get install libgl1-mesa-dri)"
export FG_ROOT

mkdir -p "$OUT_DIR"
WORK=$(mktemp -d /tmp/capture-flightgear.XXXXXX)

# On exit, end only this script's own background jobs that still run
# (tcpdump, Xvfb, fgfs), by pid.
cleanup() {
    local p pids
    pids=$(jobs -pr)
    for p in $pids; do kill "$p" 2>/dev/null || true; done
    [[ -n $pids ]] && sleep 2
    pids=$(jobs -pr)
    for p in $pids; do kill -9 "$p" 2>/dev/null || true; done
    if [[ ${KEEP_WORK:-0} == 1 ]]; then log "work dir kept: $WORK"; else rm -rf "$WORK"; fi
}
trap cleanup EXIT

# Common environment for fgfs: software GL, no D-Bus abort, private dirs.
export LIBGL_ALWAYS_SOFTWARE=1
export DBUS_FATAL_WARNINGS=0
export XDG_RUNTIME_DIR=$WORK/xdg
mkdir -p -m 700 "$XDG_RUNTIME_DIR"

FG_VERSION=$(DISPLAY= QT_QPA_PLATFORM=offscreen FG_HOME=$WORK/version-home \
    "$FGFS" --version 2>/dev/null | sed -n 's/^FlightGear version: //p' | head -n1)
[[ -n $FG_VERSION ]] || die "could not read fgfs --version"
log "fgfs $FG_VERSION at $FGFS"

# ---------------------------------------------------------------- Xvfb
start_xvfb() {
    local n
    for n in $(seq 91 120); do
        [[ -e /tmp/.X11-unix/X$n || -e /tmp/.X$n-lock ]] && continue
        Xvfb ":$n" -screen 0 800x600x24 -nolisten tcp >"$WORK/xvfb.log" 2>&1 &
        XVFB_PID=$!
        sleep 2
        if kill -0 "$XVFB_PID" 2>/dev/null; then
            export DISPLAY=":$n"
            log "Xvfb on $DISPLAY (pid $XVFB_PID)"
            return 0
        fi
    done
    die "could not start Xvfb"
}
start_xvfb

# ---------------------------------------------------------------- helpers
# Options that make fgfs start faster / render less under llvmpipe. None of
# them changes what the MP protocol sends except the rendering-only properties.
FAST_OPTS=(
    --disable-terrasync --disable-sound --disable-splash-screen
    --geometry=640x480 --disable-fullscreen --max-fps=25
    --disable-ai-traffic --disable-real-weather-fetch --disable-fgcom
    --disable-clouds --disable-clouds3d --fog-fastest --visibility=8000
    --disable-random-objects --disable-random-vegetation --disable-random-buildings
    --disable-specular-highlight --disable-horizon-effect --disable-hud
    --disable-save-on-exit
    --prop:/sim/rendering/shaders/skydome=false
    --prop:/sim/rendering/shaders/quality-level=0
    --prop:/sim/rendering/texture-compression=0
    # Do not draw terrain/models/aircraft/clouds: llvmpipe otherwise manages
    # only 2-4 frames/s on 2 cores, and fgfs sends at most one MP packet per
    # frame. Scenery is still loaded (ground elevation, on-ground start).
    --prop:bool:/sim/rendering/draw-mask/terrain=false
    --prop:bool:/sim/rendering/draw-mask/models=false
    --prop:bool:/sim/rendering/draw-mask/aircraft=false
    --prop:bool:/sim/rendering/draw-mask/clouds=false
)

# pcap_count FILE [SRCPORT]: packets in FILE (optionally only from SRCPORT)
pcap_count() {
    local f=$1 filter="udp"
    [[ -n ${2:-} ]] && filter="udp src port $2"
    tcpdump -nn -r "$f" "$filter" 2>/dev/null | wc -l
}

# telnet_cmd PORT COMMAND: send one command to fgfs's telnet property server,
# print the first reply line.
telnet_cmd() {
    local port=$1 cmd=$2 reply=""
    exec 3<>"/dev/tcp/127.0.0.1/$port" || return 1
    printf '%s\r\n' "$cmd" >&3
    IFS= read -r -t 10 reply <&3 || true
    printf 'quit\r\n' >&3 || true
    exec 3<&- 3>&-
    printf '%s\n' "${reply%$'\r'}"
}

# telnet_get PORT PROPERTY: print the value only
telnet_get() {
    telnet_cmd "$1" "get $2" | sed -n "s/^[^=]* = '\(.*\)' ([a-z]*)\$/\1/p"
}

wait_telnet() {
    local port=$1 deadline=$((SECONDS + 120))
    until (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do
        (( SECONDS < deadline )) || return 1
        sleep 2
    done
}

# start_fgfs NAME CALLSIGN OUTPORT INPORT TELNETPORT EXTRA_OPTS...
# sets FG_PID_<NAME>, writes the command line to $WORK/NAME.cmd
start_fgfs() {
    local name=$1 cs=$2 outp=$3 inp=$4 tel=$5; shift 5
    local home=$WORK/home-$name
    mkdir -p "$home"
    local args=(
        --aircraft=$AIRCRAFT --callsign="$cs"
        "$@"
        --timeofday=noon
        "${FAST_OPTS[@]}"
        --multiplay=out,10,127.0.0.1,$outp
        --multiplay=in,10,127.0.0.1,$inp
        --telnet=$tel
        --log-level=info
    )
    printf '%q ' fgfs "${args[@]}" | sed 's/ $//' >"$WORK/$name.cmd"
    FG_HOME=$home "$FGFS" "${args[@]}" >"$WORK/$name.log" 2>&1 &
    local pid=$!
    printf -v "FG_PID_$name" '%s' "$pid"
    log "fgfs $name ($cs) pid $pid: out->$outp in=$inp telnet=$tel"
}

stop_pid() {
    local pid=$1 i
    kill -TERM "$pid" 2>/dev/null || return 0
    for i in $(seq 1 30); do
        kill -0 "$pid" 2>/dev/null || { wait "$pid" 2>/dev/null || true; return 0; }
        sleep 1
    done
    kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
}

start_tcpdump() {
    local pcap=$1
    rm -f "$pcap"
    tcpdump -i lo -nn -U -s 0 -w "$pcap" "$BPF" >"$WORK/tcpdump.log" 2>&1 &
    TCPDUMP_PID=$!
    local i
    for i in $(seq 1 20); do
        grep -q "listening on" "$WORK/tcpdump.log" 2>/dev/null && return 0
        sleep 0.5
    done
    die "tcpdump did not start: $(cat "$WORK/tcpdump.log")"
}

stop_tcpdump() {
    kill -INT "$TCPDUMP_PID" 2>/dev/null || true
    wait "$TCPDUMP_PID" 2>/dev/null || true
}

# wait_packets PCAP SRCPORT MIN NAME
wait_packets() {
    local pcap=$1 port=$2 min=$3 name=$4 pid n t0=$SECONDS
    pid=FG_PID_$name; pid=${!pid}
    while :; do
        n=$(pcap_count "$pcap" "$port")
        (( n >= min )) && { log "$name: $n MP packets after $((SECONDS - t0)) s"; return 0; }
        kill -0 "$pid" 2>/dev/null || { tail -n 30 "$WORK/$name.log" >&2; die "fgfs $name died"; }
        (( SECONDS - t0 < START_TIMEOUT )) || { tail -n 30 "$WORK/$name.log" >&2; die "no MP packets from $name after $START_TIMEOUT s"; }
        sleep 3
    done
}

send_chat() {
    local port=$1 text=$2 reply
    reply=$(telnet_cmd "$port" "set /sim/multiplay/chat $text")
    log "chat via telnet $port: $reply"
    [[ $reply == *"$text"* ]] || die "chat not accepted: $reply"
}

# write_meta TXT PCAP SCENARIO: fills the .txt description from variables
write_meta() {
    local txt=$1 pcap=$2 scenario=$3 n first last
    n=$(pcap_count "$pcap")
    first=$(tcpdump -nn -tt -c 1 -r "$pcap" 2>/dev/null | cut -d' ' -f1)
    last=$(tcpdump -nn -tt -r "$pcap" 2>/dev/null | tail -n1 | cut -d' ' -f1)
    {
        echo "# FlightGear MP golden capture: $(basename "$pcap")"
        echo "scenario: $scenario"
        echo "made-by: bash scripts/capture-flightgear.sh $scenario"
        echo "fgfs-version: $FG_VERSION (Debian package flightgear $(dpkg-query -W -f='${Version}' flightgear 2>/dev/null || echo '?'))"
        echo "capture-filter: $BPF (interface lo)"
        echo "packets: $n"
        echo "first-packet-epoch: $first"
        echo "last-packet-epoch: $last"
        echo "duration-s: $(awk -v a="$first" -v b="$last" 'BEGIN{printf "%.1f", b-a}')"
        echo "bytes: $(stat -c %s "$pcap")"
        cat "$WORK/meta-$scenario"
    } >"$txt"
}

# describe_instance NAME CALLSIGN TELNET PROTO LAT LON ALT HDG EXTRA CHATS...
describe_instance() {
    local name=$1 cs=$2 tel=$3 proto=$4 lat=$5 lon=$6 alt=$7 hdg=$8 extra=$9; shift 9
    local c i=1
    echo "[$name]"
    echo "callsign: $cs"
    echo "aircraft: $AIRCRAFT"
    echo "model-path (read back /sim/model/path): $MODEL_PATH"
    echo "protocol-version-given: $proto"
    echo "start-lat-deg: $lat"
    echo "start-lon-deg: $lon"
    echo "start-altitude-ft: $alt"
    echo "start-heading-deg: $hdg"
    echo "start-extra: $extra"
    for c in "$@"; do echo "chat$i: $c"; i=$((i + 1)); done
    echo "fgfs-command: $(cat "$WORK/$name.cmd")"
}

# snapshot NAME TELNET: read back properties while the sim runs
snapshot() {
    local name=$1 tel=$2 p
    for p in /sim/multiplay/callsign /sim/multiplay/protocol-version /sim/model/path \
             /position/latitude-deg /position/longitude-deg /position/altitude-ft \
             /orientation/heading-deg /velocities/airspeed-kt /sim/multiplay/chat; do
        echo "readback $p: $(telnet_get "$tel" "$p")"
    done
}

# ---------------------------------------------------------------- scenarios
# single SCENARIO OUTFILE CALLSIGN PROTO LAT LON ALT HDG EXTRA...
run_single() {
    local scenario=$1 base=$2 cs=$3 proto=$4 lat=$5 lon=$6 alt=$7 hdg=$8; shift 8
    local extra=("$@")
    local pcap=$OUT_DIR/$base.pcap txt=$OUT_DIR/$base.txt
    log "=== scenario $scenario -> $pcap"
    start_tcpdump "$pcap"
    local popt=()
    [[ $proto == 1 ]] && popt=(--prop:int:/sim/multiplay/protocol-version=1)
    start_fgfs A "$cs" "$PORT_A" "$PORT_B" "$TELNET_A" \
        --lat="$lat" --lon="$lon" --altitude="$alt" --heading="$hdg" \
        ${extra[@]+"${extra[@]}"} ${popt[@]+"${popt[@]}"}
    wait_packets "$pcap" "$PORT_B" 20 A
    wait_telnet "$TELNET_A" || die "telnet $TELNET_A not reachable"
    MODEL_PATH=$(telnet_get "$TELNET_A" /sim/model/path)
    local got; got=$(telnet_get "$TELNET_A" /sim/multiplay/protocol-version)
    [[ $got == "$proto" ]] || die "protocol-version is '$got', wanted $proto"
    sleep 5
    send_chat "$TELNET_A" "$CHAT1"
    sleep 8
    send_chat "$TELNET_A" "$CHAT2"
    sleep 5
    {
        describe_instance A "$cs" "$TELNET_A" "$proto" "$lat" "$lon" "$alt" "$hdg" \
            "${extra[*]:-none}" "$CHAT1" "$CHAT2"
        snapshot A "$TELNET_A"
        echo "ports: fgfs binds 127.0.0.1:$PORT_B (in), sends to 127.0.0.1:$PORT_A (out, no listener)"
    } >"$WORK/meta-$scenario"
    sleep 15
    stop_pid "$FG_PID_A"
    sleep 1
    stop_tcpdump
    write_meta "$txt" "$pcap" "$scenario"
    cp "$WORK/A.log" "$WORK/$scenario-A.log"
    log "$scenario: $(pcap_count "$pcap") packets, $(stat -c %s "$pcap") bytes"
}

run_pair() {
    local scenario=v2-pair base=flightgear-v2-pair
    local pcap=$OUT_DIR/$base.pcap txt=$OUT_DIR/$base.txt
    local lat=37.6189 lon=-122.3750 alt=0 hdgA=280 latB=37.6200 lonB=-122.3770 hdgB=100
    log "=== scenario $scenario -> $pcap"
    start_tcpdump "$pcap"
    # A sends to B's port and listens on A's; B the other way round.
    start_fgfs A GDPAIRA "$PORT_B" "$PORT_A" "$TELNET_A" \
        --lat="$lat" --lon="$lon" --altitude="$alt" --heading="$hdgA"
    sleep 20   # stagger the two heavy start-ups on 2 cores
    start_fgfs B GDPAIRB "$PORT_A" "$PORT_B" "$TELNET_B" \
        --lat="$latB" --lon="$lonB" --altitude="$alt" --heading="$hdgB"
    wait_packets "$pcap" "$PORT_A" 20 A
    wait_packets "$pcap" "$PORT_B" 20 B
    wait_telnet "$TELNET_A" || die "telnet $TELNET_A not reachable"
    wait_telnet "$TELNET_B" || die "telnet $TELNET_B not reachable"
    MODEL_PATH=$(telnet_get "$TELNET_A" /sim/model/path)
    sleep 5
    send_chat "$TELNET_A" "$CHAT1"
    sleep 4
    send_chat "$TELNET_B" "$CHAT_B1"
    sleep 6
    send_chat "$TELNET_A" "$CHAT2"
    sleep 4
    send_chat "$TELNET_B" "$CHAT_B2"
    sleep 5
    {
        describe_instance A GDPAIRA "$TELNET_A" 2 "$lat" "$lon" "$alt" "$hdgA" none "$CHAT1" "$CHAT2"
        echo "ports: binds 127.0.0.1:$PORT_A, sends to 127.0.0.1:$PORT_B"
        snapshot A "$TELNET_A"
        echo "readback /ai/models/multiplayer[0]/callsign: $(telnet_get "$TELNET_A" '/ai/models/multiplayer[0]/callsign')"
        describe_instance B GDPAIRB "$TELNET_B" 2 "$latB" "$lonB" "$alt" "$hdgB" none "$CHAT_B1" "$CHAT_B2"
        echo "ports: binds 127.0.0.1:$PORT_B, sends to 127.0.0.1:$PORT_A"
        snapshot B "$TELNET_B"
        echo "readback /ai/models/multiplayer[0]/callsign: $(telnet_get "$TELNET_B" '/ai/models/multiplayer[0]/callsign')"
    } >"$WORK/meta-$scenario"
    sleep 10
    stop_pid "$FG_PID_A"
    stop_pid "$FG_PID_B"
    sleep 1
    stop_tcpdump
    write_meta "$txt" "$pcap" "$scenario"
    log "$scenario: $(pcap_count "$pcap") packets, $(stat -c %s "$pcap") bytes"
}

SCENARIOS=("$@")
[[ ${#SCENARIOS[@]} -gt 0 ]] || SCENARIOS=(v2-ground v2-air v1 v2-pair)
for s in "${SCENARIOS[@]}"; do
    case $s in
        v2-ground) run_single v2-ground flightgear-v2-ground GDTEST1 2 \
                       37.6189 -122.3750 0 280 ;;
        v2-air)    run_single v2-air flightgear-v2-air GDAIR2 2 \
                       37.7000 -122.3000 3000 180 --in-air --vc=100 ;;
        v1)        run_single v1 flightgear-v1 GDV1 1 \
                       37.6189 -122.3750 0 280 ;;
        v2-pair)   run_pair ;;
        *) die "unknown scenario '$s' (v2-ground v2-air v1 v2-pair)" ;;
    esac
done
log "done: ${SCENARIOS[*]}"
