#!/usr/bin/env bash
# The Quake 3 recovery corpus: real OpenArena sessions that vary what the key
# recovery depends on, to judge every change by a distribution of sessions
# rather than by one capture (issue 37).
#
# Usage:  bash scripts/quake3-corpus.sh DIR [--parallel 2] [SESSION...]
#         (or: bash scripts/capture-quake3.sh corpus DIR ...)
#
# Makes each session of the table below (or only those named) into DIR:
#   DIR/q3-NAME.pcap   everything on the server's UDP port (tcpdump -i lo)
#   DIR/q3-NAME.log    the dedicated server's console output: the ground truth
#   DIR/q3-NAME.meta   profile, options, engine arguments, duration, clients,
#                      packets each way, the machine's load before and after
# A session whose .pcap exists already is skipped (a rerun completes the set);
# DIR/corpus.txt gets one line per session made or failed. "--parallel 2" runs
# two sessions at a time, each on its own loopback address (127.0.0.1 and
# 127.0.0.2), both on Quake 3's own port 27960: a capture cut mid-session is
# recognised by that port only, so a session on another port would measure the
# port, not the key recovery. "--lane 1" runs on 127.0.0.2 beside another run.
#
# A session: tcpdump -> dedicated server (scripts/capture-quake3.sh's
# start_server: map, bots, g_log) -> quakestat queries -> the OpenArena
# clients, each its own process with its own HOME (fixed qkey, so a fixed
# cl_guid), net_port and net_qport, all on one Xvfb (software GL, 320x240),
# joining `join` seconds apart -> for `seconds`: each client moves by its
# style, chat lines every `chat` seconds (taking turns), at 30 % a
# map_restart, at 40 % a rename, at 50 % a map change, at 60 % queries and an
# rcon "status" (each when asked) -> the clients disconnect and quit -> queries
# -> the server quits -> tcpdump stops.
#
# Session options (key=value; defaults in parentheses):
#   seconds (150)    time in game from the first client's entry to the leave
#   clients (1)      OpenArena client processes; client i joins at i*join s
#   join (40)
#   move (busy)      idle | turn | busy, or a comma list, one per client:
#                    idle sends only the engine's own moves, turn holds a yaw
#                    key (cl_yawspeed 140) and swings the pitch, busy runs,
#                    turns, strafes, jumps, switches weapons and fires
#   chat (0)         seconds between chat lines (0: none)
#   info (short)     short | long: long adds setu cvars and a long name so the
#                    userinfo is about 900 characters (MAX_INFO_STRING 1024)
#   maxpackets (30), lanforce (0), maxfps (60)
#                    cl_maxpackets, cl_lanForcePackets, com_maxfps: with
#                    lanforce 1 the client sends every frame on the loopback
#   gametype (0)     g_gametype: 0 FFA, 3 team deathmatch, 4 CTF
#   bots (2)         how many bots (named from BOT_NAMES)
#   map (oa_dm1), map2 (none): map2 makes a map change at 50 %
#   restart (0), rename (0), queries (1)
#   proto (71)       71: the packaged legacy (XOR) netchan; 68: com_protocol
#                    and com_legacyprotocol 68 (Quake III 1.32's number, same
#                    netchan); 72: ioquake3's netchan (com_protocol 72)
#
# Needs what scripts/capture-quake3.sh needs: root, and the Debian packages
# openarena-server openarena qstat tcpdump xvfb libgl1-mesa-dri. The clients
# render in software: on a small machine, one session at a time.
set -euo pipefail

CORPUS_PORT=${PORT:-27960} CORPUS_ADDR=${ADDR:-127.0.0.1}
CORPUS_SCRIPT="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/$(basename "${BASH_SOURCE[0]}")"
# shellcheck source=scripts/capture-quake3.sh
source "$(dirname "$CORPUS_SCRIPT")/capture-quake3.sh"

log() { printf '[quake3-corpus %s] %s\n' "${SESSION:-main}" "$*" >&2; }

# NAME  options: the corpus. Names say the profile; the number tells sessions
# of one profile apart.
SESSIONS=(
    "idle-01        seconds=120 move=idle"
    "idle-02        seconds=180 move=idle lanforce=1 map=oa_dm2"
    "turn-01        seconds=120 move=turn"
    "turn-02        seconds=150 move=turn chat=20 maxpackets=125 maxfps=125"
    "longinfo-01    seconds=150 move=busy info=long chat=15"
    "longinfo-02    seconds=120 move=idle info=long"
    "rename-01      seconds=150 move=busy chat=12 rename=1"
    "chatty-01      seconds=180 move=busy chat=3"
    "chatty-02      seconds=120 move=idle chat=4"
    "multi3-01      seconds=240 clients=3 join=40 move=busy,turn,idle chat=10"
    "multi2-01      seconds=180 clients=2 join=60 move=turn,busy"
    "fast-01        seconds=180 move=busy chat=10 maxpackets=125 maxfps=125"
    "fast-tdm-01    seconds=180 move=busy maxpackets=125 maxfps=125 gametype=3 bots=6"
    "tdm-01         seconds=240 move=busy chat=15 gametype=3 bots=6"
    "ctf-01         seconds=240 move=busy chat=8 rename=1 gametype=4 bots=7 map=oa_ctf2"
    "mapchange-01   seconds=180 move=busy chat=12 map2=oa_dm2"
    "mapchange-02   seconds=180 move=idle restart=1 map2=oa_dm3"
    "proto68-01     seconds=150 move=busy chat=10 proto=68"
    "proto68-02     seconds=150 move=turn info=long proto=68"
    "long-01        seconds=600 clients=2 join=120 move=busy,turn chat=30 rename=1 map2=oa_dm2"
    "long-02        seconds=360 move=turn chat=20 gametype=3 bots=6"
    "ctf3-01        seconds=200 clients=3 join=30 move=busy,idle,turn chat=10 gametype=4 bots=6 map=oa_ctf2"
    "lan-01         seconds=150 move=busy chat=10 lanforce=1"
    "slow-01        seconds=150 move=busy chat=25 maxpackets=15"
    "ioq3-01        seconds=150 move=busy chat=10 proto=72"
    "ioq3-02        seconds=120 clients=2 join=30 move=idle,busy proto=72"
)

BOT_NAMES=(Angelyss Sarge Major Grism Kyonshi Gargoyle Jenna Liz Merman Neko)
CHAT_TEXTS=(
    "gg"
    "corpus chat: where is the rocket launcher"
    "short one"
    "this line is longer than most lines people type in a game, it goes on about nothing in particular for a while"
    "brb 1 2 3 4 5 6 7 8 9 0"
    "nice shot!"
    "(team) cover me, going left"
    "the quick brown fox jumps over the lazy dog 0123456789"
)

# ---------------------------------------------------------------- settings
declare -A S
settings() {
    S=([seconds]=150 [clients]=1 [join]=40 [move]=busy [chat]=0 [info]=short
        [maxpackets]=30 [lanforce]=0 [maxfps]=60 [gametype]=0 [bots]=2
        [map]=oa_dm1 [map2]='' [restart]=0 [rename]=0 [queries]=1 [proto]=71)
    local kv
    for kv; do
        [[ -v S[${kv%%=*}] ]] || die "unknown session option ${kv%%=*}"
        S[${kv%%=*}]=${kv#*=}
    done
}

proto_args() {
    case ${S[proto]} in
        71) ;;
        68) printf '%s\n' +set com_protocol 68 +set com_legacyprotocol 68 ;;
        72) printf '%s\n' +set com_protocol 72 ;;
        *) die "proto ${S[proto]}: 68, 71 or 72" ;;
    esac
}

# long_info I : console lines that bring the userinfo to about 900 characters
# (info strings take no backslash, quote or semicolon). They go to a config
# file the client execs: the engine keeps only the first 1,024 characters of
# its command line.
long_info() {
    local i=$1 word="corpus-userinfo-$i-" fill=''
    while ((${#fill} < 190)); do fill+=$word; done
    printf 'setu cg_corpusclan "LongInfoClan-%s the clan with a long tag"\n' "$i"
    printf 'setu cg_corpusnote1 "%s"\nsetu cg_corpusnote2 "%s"\n' "${fill:0:190}" "${fill:0:190}"
    printf 'setu cg_corpusnote3 "%s"\nset headmodel sarge/default\n' "${fill:0:120}"
}

move_of() {
    local styles
    IFS=, read -r -a styles <<<"${S[move]}"
    local n=${#styles[@]}
    if (($1 < n)); then echo "${styles[$1]}"; else echo "${styles[n - 1]}"; fi
}

# ---------------------------------------------------------------- clients
CL_PID=() CL_FD=() CL_NAME=() MOVER_PID=()
CORPUS_XVFB='' DISPLAY_NUM=''

start_display() {
    local dfile="$WORK/display"
    Xvfb -displayfd 9 -screen 0 640x480x24 -nolisten tcp 9>"$dfile" >"$WORK/xvfb.log" 2>&1 &
    CORPUS_XVFB=$!
    wait_for "$dfile" '^[0-9]+' 20 || die "Xvfb did not start: $(cat "$WORK/xvfb.log")"
    DISPLAY_NUM=":$(head -n1 "$dfile")"
}

# join_client I : client I connects; returns once the server says it entered.
join_client() {
    local i=$1
    local home="$WORK/cl$i" name="Corpus${i}Player" q='' fd
    [[ ${S[info]} == long ]] && name="Corpus${i}LongUserinfoPlayer"
    mkdir -p "$home/.openarena"
    while ((${#q} < 2048)); do q+="gamedissect-corpus-qkey-$i/"; done
    printf '%s' "${q:0:2048}" >"$home/.openarena/qkey"
    mkfifo "$WORK/cl$i.in"
    exec {fd}<>"$WORK/cl$i.in"
    CL_FD[i]=$fd CL_NAME[i]=$name
    local extra=()
    mapfile -t extra < <(proto_args)
    if [[ ${S[info]} == long ]]; then
        mkdir -p "$home/.openarena/baseoa"
        long_info "$i" >"$home/.openarena/baseoa/corpus.cfg"
        extra+=(+exec corpus.cfg)
    fi
    HOME="$home" DISPLAY="$DISPLAY_NUM" LIBGL_ALWAYS_SOFTWARE=1 SDL_AUDIODRIVER=dummy \
        "$CLIENT_BIN" \
        +set r_mode 0 +set r_fullscreen 0 +set cl_renderer opengl1 +set s_initsound 0 \
        +set com_maxfps "${S[maxfps]}" +set cl_maxpackets "${S[maxpackets]}" \
        +set cl_lanForcePackets "${S[lanforce]}" +set com_introplayed 1 \
        +set cl_yawspeed 140 +set cl_pitchspeed 90 \
        +set net_enabled 1 +set net_ip "$ADDR" +set net_port $((PORT + 1 + i)) \
        +set net_qport $((4321 + 1111 * i)) +set name "$name" +set model sarge \
        "${extra[@]}" +connect "$ADDR:$PORT" \
        <"$WORK/cl$i.in" >"$WORK/client$i.log" 2>&1 &
    CL_PID[i]=$!
    wait_for "$WORK/server.log" "print \"$name\\^7 entered the game" 150 \
        || die "client $i did not enter the game: $(tail -5 "$WORK/client$i.log")"
    log "client $i ($name) entered"
    srv "dumpuser $name"
}

say_to() { printf '%s\n' "$2" >&"${CL_FD[$1]}"; }

# Each style is a loop of console commands, run in the background until killed.
turn_loop() {
    while :; do
        cl "+left"; sleep 3; cl "+lookup"; sleep 0.4; cl "-lookup"; sleep 2; cl "-left"
        cl "+right"; sleep 2; cl "+lookdown"; sleep 0.4; cl "-lookdown"; sleep 1.5; cl "-right"
    done
}
busy_loop() { while :; do busy_moves; done; }

start_mover() {
    local i=$1 style
    style=$(move_of "$i")
    case $style in
        idle) return 0 ;;
        turn) (CFD=${CL_FD[i]}; turn_loop) & ;;
        busy) (CFD=${CL_FD[i]}; busy_loop) & ;;
        *) die "move style $style: idle, turn or busy" ;;
    esac
    MOVER_PID[i]=$!
}

stop_movers() {
    local p
    for p in "${MOVER_PID[@]}"; do
        kill "$p" 2>/dev/null || true
        wait "$p" 2>/dev/null || true
    done
    MOVER_PID=()
}

leave_client() {
    local i=$1 k
    say_to "$i" "disconnect"
    wait_for "$WORK/server.log" "print \"${CL_NAME[i]}\\^7 disconnected" 20 \
        || log "WARNING: client $i's disconnect not seen"
    say_to "$i" "quit"
    for ((k = 0; k < 100; k++)); do kill -0 "${CL_PID[i]}" 2>/dev/null || break; sleep 0.1; done
    kill "${CL_PID[i]}" 2>/dev/null || true
    wait "${CL_PID[i]}" 2>/dev/null || true
    CL_PID[i]=''
}

# ---------------------------------------------------------------- events
CHAT_N=0
chat_once() {
    local n=$1 i=$((CHAT_N % $1))
    local text="${CHAT_TEXTS[CHAT_N % ${#CHAT_TEXTS[@]}]} #$CHAT_N"
    say_to "$i" "say $text"
    CHAT_N=$((CHAT_N + 1))
}

rename_first() {
    local new="${CL_NAME[0]}Renamed"
    say_to 0 "name $new"
    wait_for "$WORK/server.log" "print \"${CL_NAME[0]}\\^7 renamed to $new" 15 \
        || die "rename not seen by the server"
    CL_NAME[0]=$new
}

# wait_after OFFSET REGEX SECONDS: like wait_for, in what the server log says
# after byte OFFSET.
wait_after() {
    local off=$1 re=$2 t=$3 k
    for ((k = 0; k < t * 10; k++)); do
        if tail -c +"$((off + 1))" "$WORK/server.log" | grep -E -- "$re" >/dev/null; then return 0; fi
        sleep 0.1
    done
    log "timeout (${t}s) waiting for /$re/ after byte $off"
    return 1
}

# change_map MAP JOINED: the server console changes the map (or restarts it
# with MAP empty); every joined client enters again.
change_map() {
    local map=$1 joined=$2 off i
    off=$(stat -c %s "$WORK/server.log")
    if [[ -n $map ]]; then
        srv "say the server changes the map to $map"
        srv "map $map"
        wait_after "$off" "^Server: $map" 40 || die "no map change"
    else
        srv "map_restart 0"
    fi
    for ((i = 0; i < joined; i++)); do
        wait_after "$off" "print \"${CL_NAME[i]}\\^7 entered the game" 60 \
            || log "WARNING: client $i did not enter again"
    done
}

# ---------------------------------------------------------------- one session
# play : the timeline of the session, from the first client's entry.
play() {
    local seconds=${S[seconds]} clients=${S[clients]} t0=$SECONDS now joined=1
    local next_chat=${S[chat]} did_restart=0 did_rename=0 did_map=0 did_queries=0
    start_mover 0
    while :; do
        now=$((SECONDS - t0))
        ((now < seconds)) || break
        if ((joined < clients && now >= joined * ${S[join]})); then
            join_client "$joined"; start_mover "$joined"; joined=$((joined + 1))
        fi
        if ((S[chat] > 0 && now >= next_chat)); then
            chat_once "$joined"; next_chat=$((next_chat + S[chat]))
        fi
        if ((S[restart] && !did_restart && now * 10 >= seconds * 3)); then
            did_restart=1; change_map '' "$joined"
        fi
        if ((S[rename] && !did_rename && now * 10 >= seconds * 4)); then
            did_rename=1; rename_first
        fi
        if [[ -n ${S[map2]} ]] && ((!did_map && now * 10 >= seconds * 5)); then
            did_map=1; change_map "${S[map2]}" "$joined"
        fi
        if ((S[queries] && !did_queries && now * 10 >= seconds * 6)); then
            did_queries=1; queries "clients in game" >>"$WORK/queries.txt" 2>&1
            oob_query "rcon $RCONPASS status" >>"$WORK/queries.txt" 2>&1
        fi
        sleep 1
    done
    stop_movers
    PLAYED=$((SECONDS - t0)) JOINED=$joined
}

packets() { tcpdump -r "$1" -nn "$2" 2>/dev/null | wc -l; }

write_meta() {
    local pcap=$1 meta=$2 spec=$3 load0=$4 i
    {
        echo "session: $SESSION"
        echo "profile: ${SESSION%-*}"
        echo "options: $spec"
        echo "server_args: ${SERVER_ARGS[*]}"
        echo "client_engine_args: $(proto_args | tr '\n' ' ')"
        echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
        echo "engine: $(dpkg-query -W -f='${Version}' ioquake3 2>/dev/null) (ioquake3), openarena $(dpkg-query -W -f='${Version}' openarena 2>/dev/null)"
        echo "seconds_in_game: $PLAYED"
        echo "clients: $JOINED (${CL_NAME[*]})"
        echo "bots: ${S[bots]} (${BOTS[*]})"
        echo "server: $ADDR:$PORT"
        echo "packets: $(packets "$pcap" udp)"
        echo "packets_to_server: $(packets "$pcap" "udp and dst port $PORT")"
        for ((i = 0; i < JOINED; i++)); do
            echo "packets_from_client$i: $(packets "$pcap" "udp and src port $((PORT + 1 + i))")"
        done
        echo "bytes: $(stat -c %s "$pcap")"
        echo "load_before: $load0"
        echo "load_after: $(cut -d' ' -f1-3 /proc/loadavg)"
        echo "warnings: $(grep -c WARNING "$WORK/session.err" 2>/dev/null || true)"
    } >"$meta"
}

# session DIR NAME OPTION... : one session into DIR/q3-NAME.*
session() {
    local dir=$1 spec
    SESSION=$2; shift 2
    spec="$*"
    settings "$@"
    local pcap="$dir/q3-$SESSION.pcap" i load0
    load0=$(cut -d' ' -f1-3 /proc/loadavg)
    WORK=$(mktemp -d /tmp/quake3-corpus.XXXXXX)
    mkdir -p "$WORK/srvhome"
    mkfifo "$WORK/srv_in"
    exec {SFD}<>"$WORK/srv_in"
    exec 2> >(tee "$WORK/session.err" >&2)
    log "=== $SESSION: $spec ($ADDR:$PORT, load $load0)"
    # Only this session's address: another may run on 127.0.0.2 at the same time.
    tcpdump -i lo -U -nn -w "$pcap.part" "udp port $PORT and host $ADDR" 2>"$WORK/tcpdump.err" &
    TCPDUMP_PID=$!
    wait_for "$WORK/tcpdump.err" 'listening on' 10 || die "tcpdump did not start"
    MAP=${S[map]}
    BOTS=("${BOT_NAMES[@]:0:${S[bots]}}")
    mapfile -t SERVER_ARGS < <(proto_args)
    # sv_maxclients 16: bots take client slots too (the default 8 refused a third client
    # beside six bots: "Server is full").
    SERVER_ARGS+=(+set g_gametype "${S[gametype]}" +set g_teamAutoJoin 1 +set capturelimit 0
        +set sv_maxclients 16)
    start_server "${SERVER_ARGS[@]}"
    queries "before the clients connect" >>"$WORK/queries.txt" 2>&1
    start_display
    join_client 0
    play
    for ((i = 0; i < JOINED; i++)); do leave_client "$i"; done
    kill "$CORPUS_XVFB" 2>/dev/null || true; wait "$CORPUS_XVFB" 2>/dev/null || true; CORPUS_XVFB=''
    queries "after the clients left" >>"$WORK/queries.txt" 2>&1
    srv "quit"
    for ((i = 0; i < 100; i++)); do kill -0 "$SERVER_PID" 2>/dev/null || break; sleep 0.1; done
    kill "$SERVER_PID" 2>/dev/null || true; wait "$SERVER_PID" 2>/dev/null || true; SERVER_PID=''
    sleep 0.5
    kill -INT "$TCPDUMP_PID"; wait "$TCPDUMP_PID" 2>/dev/null || true; TCPDUMP_PID=''
    cp "$WORK/server.log" "$dir/q3-$SESSION.log"
    write_meta "$pcap.part" "$dir/q3-$SESSION.meta" "$spec" "$load0"
    mv "$pcap.part" "$pcap"
    log "wrote $pcap ($(stat -c %s "$pcap") bytes, $PLAYED s in game)"
}

cleanup() {
    local p
    for p in "${MOVER_PID[@]}" "${CL_PID[@]}" "$SERVER_PID" "$CORPUS_XVFB"; do
        [[ -n $p ]] && kill "$p" 2>/dev/null || true
    done
    [[ -n $TCPDUMP_PID ]] && kill -INT "$TCPDUMP_PID" 2>/dev/null || true
    for p in "${MOVER_PID[@]}" "${CL_PID[@]}" "$SERVER_PID" "$CORPUS_XVFB" "$TCPDUMP_PID"; do
        [[ -n $p ]] && wait "$p" 2>/dev/null || true
    done
    # KEEP_WORK=1 keeps the engines' own logs to see why a session failed.
    [[ -n $WORK && -d $WORK && -z ${KEEP_WORK:-} ]] && rm -rf "$WORK"
    WORK=''
}

# ---------------------------------------------------------------- the corpus
spec_of() {
    local line
    for line in "${SESSIONS[@]}"; do
        read -r -a w <<<"$line"
        if [[ ${w[0]} == "$1" ]]; then echo "$line"; return 0; fi
    done
    die "no session $1"
}

# worker DIR LANE LANES ADDRESS NAME... : every LANES-th session from LANE,
# one at a time, each in its own process on loopback address 127.0.0.ADDRESS.
worker() {
    local dir=$1 lane=$2 lanes=$3 address=$4 k=0 name; shift 4
    for name; do
        if ((k++ % lanes != lane)); then continue; fi
        if [[ -f $dir/q3-$name.pcap ]]; then log "$name: made already"; continue; fi
        local spec
        spec=$(spec_of "$name")
        # shellcheck disable=SC2086
        if ADDR=127.0.0.$address bash "$CORPUS_SCRIPT" --session "$dir" $spec; then
            echo "$name ok $(date -u +%H:%M:%S)" >>"$dir/corpus.txt"
        else
            echo "$name FAILED $(date -u +%H:%M:%S)" >>"$dir/corpus.txt"
            rm -f "$dir/q3-$name.pcap.part"
        fi
    done
}

corpus_main() {
    [[ $# -ge 1 ]] || die "usage: $0 DIR [--parallel 2 | --lane 1] [SESSION...]"
    local dir lanes=1 first=0
    mkdir -p "$1"; dir=$(cd "$1" && pwd); shift
    if [[ ${1:-} == --parallel ]]; then lanes=$2; shift 2; fi
    if [[ ${1:-} == --lane ]]; then first=$2; shift 2; fi
    local names=("$@") line w
    if ((${#names[@]} == 0)); then
        for line in "${SESSIONS[@]}"; do read -r -a w <<<"$line"; names+=("${w[0]}"); done
    fi
    [[ $(id -u) -eq 0 ]] || die "must run as root (tcpdump on lo)"
    local lane pids=()
    for ((lane = 0; lane < lanes; lane++)); do
        worker "$dir" "$lane" "$lanes" $((1 + first + lane)) "${names[@]}" &
        pids+=($!)
    done
    for lane in "${pids[@]}"; do wait "$lane"; done
    log "done: $(grep -c ' ok ' "$dir/corpus.txt" 2>/dev/null || echo 0) sessions made"
}

if [[ ${1:-} == --session ]]; then
    shift
    PORT=$CORPUS_PORT ADDR=$CORPUS_ADDR
    session "$@"
else
    corpus_main "$@"
fi
