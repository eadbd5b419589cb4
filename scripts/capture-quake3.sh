#!/usr/bin/env bash
# Make golden packet captures of Quake III Arena (OpenArena / ioquake3) traffic
# on loopback, for gamedissect's Quake III dissector tests.
#
# Usage:  bash scripts/capture-quake3.sh [legacy|ioq3|busy|busy-ioq3|all]  (default: all)
#         bash scripts/capture-quake3.sh corpus DIR [PROFILE...]
#
#   corpus -> the recovery corpus (scripts/quake3-corpus.sh): about two dozen
#             sessions of 2 to 10 minutes into DIR, varying what the key
#             recovery depends on (see that script).
#
#   legacy -> captures/quake3-openarena-legacy.pcap + .log
#             Debian's openarena / openarena-server as packaged: the wrappers run
#             the ioquake3 1.36 engine with com_protocol 71 == com_legacyprotocol
#             71, so every connection uses the legacy (XOR, no checksum) netchan.
#   ioq3   -> captures/quake3-ioq3-protocol.pcap + .log
#             same binaries with "+set com_protocol 72" on server and client
#             (72 != com_legacyprotocol 71), so the connection uses ioquake3's
#             netchan (per-packet checksum field, no XOR).
#   busy   -> captures/quake3-openarena-busy.pcap + .log   (not part of "all")
#             legacy netchan like "legacy", but a longer, busier session (about
#             2.5 minutes in game): three bots, a client that runs, turns,
#             jumps, switches weapons and fires all the time, a chat line about
#             every 12 s (12 fixed texts), one rename (userinfo change), a
#             map change ("map oa_dm2" on the server console) halfway through
#             and an rcon "status". The client sends at most 30 packets/s
#             (cl_maxpackets 30, cl_lanForcePackets 0), as on the internet, so
#             moves carry several usercmds.
#   busy-ioq3 -> captures/quake3-ioq3-busy.pcap + .log   (not part of "all")
#             the same session with "+set com_protocol 72", as "ioq3".
#
# What happens in each capture (all on 127.0.0.1, UDP port 27960):
#   tcpdump -i lo -U (filter "udp port 27960") -> dedicated server on oa_dm1
#   with bots Angelyss and Sarge -> quakestat -q3s / -R -P queries, a raw
#   getinfo and an rcon "status" -> the OpenArena client (Xvfb, software GL)
#   connects as GoldenPlayer, moves, says two fixed chat lines, the server
#   console says one line -> more queries -> client disconnects and quits ->
#   server quits -> tcpdump stops. The server's console output (stdout) is
#   saved as captures/quake3-<name>.log: it is the ground truth for the tests.
#
# Installs nothing. Needs root (tcpdump on lo) and these Debian packages:
#   openarena-server openarena qstat tcpdump xvfb libgl1-mesa-dri
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CAPDIR="$ROOT/captures"
PORT=27960
CLIENT_PORT=27961
ADDR=127.0.0.1
MAP=oa_dm1
PLAYER=GoldenPlayer
BOTS=(Angelyss Sarge)
RCONPASS=goldenrcon
SERVER_BIN=/usr/games/openarena-server
CLIENT_BIN=/usr/games/openarena

log() { printf '[capture-quake3] %s\n' "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

# ---------------------------------------------------------------- prerequisites
check_prereqs() {
    local missing=() pkg
    for pkg in openarena-server openarena qstat tcpdump xvfb libgl1-mesa-dri; do
        if [[ $(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true) != *"install ok installed"* ]]; then
            missing+=("$pkg")
        fi
    done
    if ((${#missing[@]})); then
        die "missing Debian packages: ${missing[*]}  (apt-get install -y ${missing[*]})"
    fi
    local cmd
    for cmd in "$SERVER_BIN" "$CLIENT_BIN" quakestat tcpdump Xvfb mkfifo timeout ss; do
        command -v "$cmd" >/dev/null 2>&1 || die "command not found: $cmd"
    done
    [[ $(id -u) -eq 0 ]] || die "must run as root (tcpdump on lo)"
    local p
    for p in "$PORT" "$CLIENT_PORT"; do
        if [[ -n $(ss -Huln "sport = :$p") ]]; then
            die "UDP port $p is already in use; stop whatever listens there first"
        fi
    done
}

# ---------------------------------------------------------------- helpers
# wait_for FILE EXTENDED-REGEX TIMEOUT_SECONDS
wait_for() {
    local file=$1 re=$2 t=$3 i
    for ((i = 0; i < t * 10; i++)); do
        if [[ -f $file ]] && grep -E -- "$re" "$file" >/dev/null; then return 0; fi
        sleep 0.1
    done
    log "timeout (${t}s) waiting for /$re/ in $file"
    return 1
}

# oob_query TEXT : send one connectionless packet (FF FF FF FF + TEXT) to the
# server from a fresh UDP socket and print the first reply datagram.
oob_query() {
    local text=$1 fd
    exec {fd}<>"/dev/udp/$ADDR/$PORT"
    printf '\xff\xff\xff\xff%s' "$text" >&"$fd"
    timeout 2 dd bs=65536 count=1 status=none <&"$fd" | tr -d '\377' | sed 's/^/    | /' || true
    echo
    exec {fd}>&-
}

queries() {
    local what=$1
    log "queries ($what)"
    quakestat -q3s "$ADDR:$PORT" || true
    quakestat -R -P -q3s "$ADDR:$PORT" || true
    log "getinfo reply:"
    oob_query "getinfo gamedissect"
}

# PIDs of what we started, for cleanup (only these are ever killed)
TCPDUMP_PID='' SERVER_PID='' CLIENT_PID='' XVFB_PID='' WORK=''
cleanup() {
    local p
    for p in "$CLIENT_PID" "$SERVER_PID" "$XVFB_PID"; do
        [[ -n $p ]] && kill "$p" 2>/dev/null || true
    done
    if [[ -n $TCPDUMP_PID ]]; then kill -INT "$TCPDUMP_PID" 2>/dev/null || true; fi
    for p in "$CLIENT_PID" "$SERVER_PID" "$XVFB_PID" "$TCPDUMP_PID"; do
        [[ -n $p ]] && wait "$p" 2>/dev/null || true
    done
    TCPDUMP_PID='' SERVER_PID='' CLIENT_PID='' XVFB_PID=''
    [[ -n $WORK && -d $WORK ]] && rm -rf "$WORK"
    WORK=''
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---------------------------------------------------------------- shared steps
# Console FIFOs of the server and the client (file descriptors held read-write
# so the engines never see EOF on stdin).
SFD='' CFD=''
srv() { printf '%s\n' "$*" >&"$SFD"; }
cl() { printf '%s\n' "$*" >&"$CFD"; }

# open_work : temporary HOMEs (the client's with a fixed qkey, so a fixed
# cl_guid in the userinfo) and the two console FIFOs.
open_work() {
    WORK=$(mktemp -d /tmp/capture-quake3.XXXXXX)
    mkdir -p "$WORK/srvhome" "$WORK/clhome/.openarena" "$CAPDIR"
    local q=''
    while ((${#q} < 2048)); do q+="gamedissect-golden-qkey/"; done
    printf '%s' "${q:0:2048}" >"$WORK/clhome/.openarena/qkey"
    mkfifo "$WORK/srv_in" "$WORK/cl_in"
    exec {SFD}<>"$WORK/srv_in" {CFD}<>"$WORK/cl_in"
}

# start_tcpdump PCAP
start_tcpdump() {
    tcpdump -i lo -U -nn -w "$1" "udp port $PORT" 2>"$WORK/tcpdump.err" &
    TCPDUMP_PID=$!
    wait_for "$WORK/tcpdump.err" 'listening on' 10 || die "tcpdump did not start: $(cat "$WORK/tcpdump.err")"
}

# start_server [extra engine args...] : dedicated server on $MAP with $BOTS
start_server() {
    HOME="$WORK/srvhome" "$SERVER_BIN" \
        +set dedicated 1 +set net_enabled 1 +set net_ip "$ADDR" +set net_port "$PORT" \
        +set sv_hostname GoldenQ3Server +set g_motd "gamedissect golden capture" \
        +set rconpassword "$RCONPASS" +set g_gametype 0 +set fraglimit 0 +set timelimit 0 \
        +set bot_nochat 1 +set g_log games.log +set g_logsync 1 \
        "$@" +map "$MAP" \
        <"$WORK/srv_in" >"$WORK/server.log" 2>&1 &
    SERVER_PID=$!
    wait_for "$WORK/server.log" '^AAS initialized' 60 || die "server did not load $MAP"
    local b
    for b in "${BOTS[@]}"; do
        srv "addbot $b 1"
        wait_for "$WORK/server.log" "print \"$b\\^7 entered the game" 20 || die "bot $b did not enter"
    done
    sleep 1
}

# start_client [extra engine args...] : the OpenArena client as $PLAYER, under
# its own Xvfb, software GL; returns once the server says it entered the game.
start_client() {
    local dfile="$WORK/display"
    Xvfb -displayfd 9 -screen 0 640x480x24 -nolisten tcp 9>"$dfile" >"$WORK/xvfb.log" 2>&1 &
    XVFB_PID=$!
    wait_for "$dfile" '^[0-9]+' 20 || die "Xvfb did not start: $(cat "$WORK/xvfb.log")"
    local display=":$(head -n1 "$dfile")"
    log "Xvfb on $display"

    HOME="$WORK/clhome" DISPLAY="$display" LIBGL_ALWAYS_SOFTWARE=1 SDL_AUDIODRIVER=dummy \
        "$CLIENT_BIN" \
        +set r_mode 0 +set r_fullscreen 0 +set cl_renderer opengl1 +set s_initsound 0 \
        +set com_maxfps 60 +set cl_maxpackets 30 +set com_introplayed 1 \
        +set net_enabled 1 +set net_ip "$ADDR" +set net_port "$CLIENT_PORT" \
        +set name "$PLAYER" +set model sarge \
        "$@" +connect "$ADDR:$PORT" \
        <"$WORK/cl_in" >"$WORK/client.log" 2>&1 &
    CLIENT_PID=$!
    wait_for "$WORK/server.log" "print \"$PLAYER\\^7 entered the game" 120 \
        || die "client did not enter the game (see $WORK/client.log)"
}

# leave_and_stop NAME WHO : the client (named WHO now) disconnects and quits,
# queries, the server quits, tcpdump stops, the server log is kept beside
# captures/quake3-NAME.pcap.
leave_and_stop() {
    local name=$1 now=$2
    local pcap="$CAPDIR/quake3-$name.pcap" outlog="$CAPDIR/quake3-$name.log"
    cl "disconnect"
    wait_for "$WORK/server.log" "print \"$now\\^7 disconnected" 15 || log "WARNING: no disconnect seen"
    sleep 1
    cl "quit"
    local i
    for ((i = 0; i < 100; i++)); do kill -0 "$CLIENT_PID" 2>/dev/null || break; sleep 0.1; done
    kill "$CLIENT_PID" 2>/dev/null || true
    wait "$CLIENT_PID" 2>/dev/null || true
    CLIENT_PID=''
    kill "$XVFB_PID" 2>/dev/null || true; wait "$XVFB_PID" 2>/dev/null || true; XVFB_PID=''

    queries "after the client left"
    sleep 0.5

    srv "quit"
    for ((i = 0; i < 100; i++)); do kill -0 "$SERVER_PID" 2>/dev/null || break; sleep 0.1; done
    kill "$SERVER_PID" 2>/dev/null || true
    wait "$SERVER_PID" 2>/dev/null || true
    SERVER_PID=''

    sleep 0.5
    kill -INT "$TCPDUMP_PID"; wait "$TCPDUMP_PID" 2>/dev/null || true; TCPDUMP_PID=''
    cat "$WORK/tcpdump.err" >&2

    exec {SFD}>&- {CFD}>&-
    cp "$WORK/server.log" "$outlog"
    chown --reference="$CAPDIR" "$pcap" "$outlog" 2>/dev/null || true   # tcpdump drops to user tcpdump
    log "$(tcpdump -r "$pcap" -nn 2>/dev/null | wc -l) packets in $pcap"
    if [[ -n ${KEEP_CLIENT_LOG:-} ]]; then cp "$WORK/client.log" "$KEEP_CLIENT_LOG.$name"; fi
    log "wrote $pcap ($(stat -c %s "$pcap") bytes) and $outlog"
    rm -rf "$WORK"; WORK=''
}

# ---------------------------------------------------------------- one capture
# run_capture NAME FLAVOUR-TAG [extra engine args for server and client...]
run_capture() {
    local name=$1 tag=$2; shift 2
    local extra=("$@")
    local pcap="$CAPDIR/quake3-$name.pcap" outlog="$CAPDIR/quake3-$name.log"
    local chat1="hello from $PLAYER over the $tag netchan"
    local chat2="second chat line 12345 gg"
    local srvsay="server console says hi to $PLAYER"

    open_work
    log "=== capture $name (${extra[*]:-packaged defaults}) -> $pcap"
    rm -f "$pcap" "$outlog"
    start_tcpdump "$pcap"
    start_server "${extra[@]}"
    queries "before the client connects"
    start_client "${extra[@]}"
    sleep 3

    # ---- play a little (about 25 s in game): move, shoot, chat
    cl "+forward";   sleep 2;   cl "-forward"
    cl "+moveright"; sleep 1;   cl "-moveright"
    cl "+left";      sleep 1;   cl "-left"
    cl "+forward";   sleep 1.5; cl "-forward"
    cl "say $chat1"
    wait_for "$WORK/server.log" "say: $PLAYER: $chat1" 10 || die "chat line 1 not seen by the server"
    cl "+attack";    sleep 0.5; cl "-attack"
    cl "+back";      sleep 1;   cl "-back"
    srv "say $srvsay"
    sleep 1
    queries "client in game"
    rcon_reply=$(oob_query "rcon $RCONPASS status")
    log "rcon status reply:"; printf '%s\n' "$rcon_reply"
    cl "+moveleft";  sleep 1;   cl "-moveleft"
    cl "+right";     sleep 1;   cl "-right"
    cl "+forward";   sleep 2;   cl "-forward"
    cl "+attack";    sleep 1;   cl "-attack"
    cl "say $chat2"
    wait_for "$WORK/server.log" "say: $PLAYER: $chat2" 10 || die "chat line 2 not seen by the server"
    cl "+moveright"; sleep 1;   cl "-moveright"
    sleep 2

    leave_and_stop "$name" "$PLAYER"
}

# ---------------------------------------------------------------- busy session
# The client's fixed chat lines, one about every 12 s.
BUSY_CHAT=(
    "busy capture chat line 01: moving and turning"
    "line 02 from the busy client, still strafing"
    "03 jump jump jump"
    "chat 04 before the rename"
    "05: renamed now, weapons next"
    "06 the map changes soon"
    "07 new map, same netchan"
    "08 spinning on the spot"
    "09 firing the machinegun"
    "10 ten lines and counting"
    "11 almost done"
    "12 last busy line, bye"
)
BUSY_RENAMED=BusyRenamed
BUSY_MAP2=oa_dm2

# busy_moves : about 12 s of play: run, turn both ways, strafe, jump, switch
# weapons and fire.
busy_moves() {
    cl "+forward"; cl "+left";  sleep 1.5; cl "-left"
    cl "+moveup";  sleep 0.3;   cl "-moveup"
    cl "+right";   sleep 1.5;   cl "-right"; cl "-forward"
    cl "weapnext"; cl "+attack"; sleep 1; cl "-attack"
    cl "+moveleft"; cl "+left"; sleep 1; cl "-left"; cl "-moveleft"
    cl "+back"; cl "+moveup"; sleep 0.3; cl "-moveup"; sleep 0.7; cl "-back"
    cl "weapprev"; cl "+moveright"; cl "+right"; cl "+attack"
    sleep 1.2; cl "-attack"; cl "-right"; cl "-moveright"
    cl "+forward"; cl "+lookup"; sleep 0.4; cl "-lookup"; cl "+lookdown"; sleep 0.4; cl "-lookdown"
    sleep 0.6; cl "-forward"
    cl "+movedown"; cl "+left"; sleep 1; cl "-left"; cl "-movedown"
    cl "weapon 1"; cl "+forward"; cl "+attack"; sleep 1; cl "-attack"; cl "-forward"
    cl "weapon 2"; cl "+moveup"; cl "+right"; sleep 0.4; cl "-moveup"; sleep 0.6; cl "-right"
}

# busy_say N NAME : chat line N, seen by the server as NAME's
busy_say() {
    local text=${BUSY_CHAT[$1]} who=$2
    cl "say $text"
    wait_for "$WORK/server.log" "say: $who: $text" 10 || die "chat line $1 not seen by the server"
}

# run_busy NAME [extra engine args for server and client...]
run_busy() {
    local name=$1; shift
    local pcap="$CAPDIR/quake3-$name.pcap" outlog="$CAPDIR/quake3-$name.log"
    PLAYER=BusyPlayer
    BOTS=(Angelyss Sarge Major)

    open_work
    log "=== capture $name (busy session; ${*:-packaged defaults}) -> $pcap"
    rm -f "$pcap" "$outlog"
    start_tcpdump "$pcap"
    start_server "$@"
    queries "before the client connects"
    start_client +set cl_lanForcePackets 0 +set cl_yawspeed 180 +set cl_pitchspeed 90 "$@"
    sleep 2

    local i who=$PLAYER
    for i in "${!BUSY_CHAT[@]}"; do
        busy_moves
        busy_say "$i" "$who"
        if ((i == 3)); then
            cl "name $BUSY_RENAMED"
            wait_for "$WORK/server.log" "print \"$PLAYER\\^7 renamed to $BUSY_RENAMED" 10 \
                || die "rename not seen by the server"
            who=$BUSY_RENAMED
        elif ((i == 5)); then
            # Through the server console, not rcon: the console output of an
            # rcon command goes to the rcon reply, so the server log would
            # lack the new map's "Server:" and InitGame lines.
            srv "say the server changes the map to $BUSY_MAP2"
            srv "map $BUSY_MAP2"
            wait_for "$WORK/server.log" "^Server: $BUSY_MAP2" 30 || die "no map change"
            # it entered oa_dm1 under its first name: this is the new map
            wait_for "$WORK/server.log" "print \"$who\\^7 entered the game" 60 \
                || die "client did not enter $BUSY_MAP2"
            sleep 2
        elif ((i == 8)); then
            queries "client in game"
            log "rcon status reply:"; oob_query "rcon $RCONPASS status"
        fi
    done
    sleep 2
    leave_and_stop "$name" "$who"
}

# ---------------------------------------------------------------- main
main() {
    if [[ ${1:-} == corpus ]]; then
        shift
        exec bash "$ROOT/scripts/quake3-corpus.sh" "$@"
    fi
    check_prereqs
    case "${1:-all}" in
        legacy) run_capture openarena-legacy legacy ;;
        ioq3)   run_capture ioq3-protocol ioq3 +set com_protocol 72 ;;
        busy)   run_busy openarena-busy ;;
        busy-ioq3) run_busy ioq3-busy +set com_protocol 72 ;;
        all)
            run_capture openarena-legacy legacy
            run_capture ioq3-protocol ioq3 +set com_protocol 72
            ;;
        *) die "usage: $0 [legacy|ioq3|busy|busy-ioq3|all|corpus DIR [PROFILE...]]" ;;
    esac
    log "done"
}

# scripts/quake3-corpus.sh sources this file for its helpers and runs its own main.
if [[ ${BASH_SOURCE[0]} == "$0" ]]; then
    main "$@"
fi
