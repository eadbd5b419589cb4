#!/usr/bin/env bash
# Checks `gamedissect annotate` against Wireshark's own reader: tshark opens the pcapng it
# writes, shows our decode as packet comments, filters on them, and sees the same frames as in
# the input. Not part of `cargo test`: it needs tshark (Debian package tshark).
#
# Usage:  bash scripts/check-annotate.sh [CAPTURE ...]
#         (default: captures/quake3-openarena-legacy.pcap captures/flightgear-v2-pair.pcap)
#
# Per capture, with OUT the annotated copy:
#   * `tshark -r OUT -Y 'frame.comment contains "chat"'` lists exactly the frames whose
#     `gamedissect dissect` lines say chat, and `frame.comment contains " chat \""` exactly the
#     chat messages themselves in the two games whose summaries say `chat "TEXT"`: the frames
#     `gamedissect dissect -Y 'quake3.svc.command.name == chat'` passes and those of
#     `gamedissect events --kind flightgear.chat` (the first list also has a Quake 3 client's
#     `say` whose text has the word);
#   * the frames with a comment are those `dissect` prints a line for;
#   * `tshark -r X -T fields -e frame.number -e frame.time_epoch -e frame.len -e frame.cap_len`
#     is the same for the input and OUT, and so is tshark's one-line summary of every frame
#     (every other dissector as it was).
# Exit 0 when every check passed. Needs a release build (cargo build --release).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BIN="$ROOT/target/release/gamedissect"

log() { printf '[check-annotate] %s\n' "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

command -v tshark >/dev/null 2>&1 || die "command not found: tshark (apt-get install -y tshark)"
[[ -x $BIN ]] || die "no release build: run cargo build --release"

CAPTURES=("$@")
if ((${#CAPTURES[@]} == 0)); then
    CAPTURES=("$ROOT/captures/quake3-openarena-legacy.pcap" "$ROOT/captures/flightgear-v2-pair.pcap")
fi

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# tshark, its "running as root" warning kept out of the comparison.
ts() { tshark "$@" 2>>"$WORK/tshark.log"; }

# Frame numbers of dissect's lines (one per frame), from `dissect ARGS`.
dissect_frames() { "$BIN" dissect --color never "$@" | awk '{print $1}' | uniq; }

same() { # NAME FILE_A FILE_B
    if cmp -s "$2" "$3"; then
        log "ok   $1 ($(wc -l <"$2") lines)"
    else
        log "FAIL $1"
        { diff "$2" "$3" || true; } | head -20 >&2
        FAILED=1
    fi
}

FAILED=0
for cap in "${CAPTURES[@]}"; do
    name=$(basename "$cap")
    out="$WORK/${name%.*}.pcapng"
    log "$name"
    "$BIN" annotate -q "$cap" -w "$out"
    ts -r "$out" -Y 'frame.comment contains "chat"' -T fields -e frame.number >"$WORK/ts-chat"
    "$BIN" dissect --color never "$cap" | awk '/chat/ {print $1}' | uniq >"$WORK/gd-chat"
    same 'frame.comment contains "chat" = dissect lines saying chat' "$WORK/gd-chat" "$WORK/ts-chat"
    ts -r "$out" -Y 'frame.comment contains " chat \""' -T fields -e frame.number >"$WORK/ts-chat-msg"
    # Quake 3's and FlightGear's summaries say `chat "TEXT"` (SRB2's say `say`). Quake 3's
    # chat command is sent again until acknowledged: each copy is a chat message on the wire
    # (`events` shows one); a FlightGear chat property is one event a frame.
    {
        dissect_frames -Y 'quake3.svc.command.name == chat' "$cap"
        "$BIN" events --kind flightgear.chat "$cap" | awk '{print $1}'
    } | sort -n -u >"$WORK/gd-chat-msg"
    same 'frame.comment contains " chat \"" = the chat messages' \
        "$WORK/gd-chat-msg" "$WORK/ts-chat-msg"
    ts -r "$out" -Y 'frame.comment' -T fields -e frame.number >"$WORK/ts-commented"
    dissect_frames "$cap" >"$WORK/gd-lines"
    same 'frames with a comment = frames dissect prints' "$WORK/gd-lines" "$WORK/ts-commented"
    fields=(-T fields -e frame.number -e frame.time_epoch -e frame.len -e frame.cap_len)
    ts -r "$cap" "${fields[@]}" >"$WORK/fields-in"
    ts -r "$out" "${fields[@]}" >"$WORK/fields-out"
    same 'frame.number, time_epoch, len, cap_len' "$WORK/fields-in" "$WORK/fields-out"
    ts -r "$cap" >"$WORK/ts-in"
    ts -r "$out" >"$WORK/ts-out"
    same "tshark's summary of every frame" "$WORK/ts-in" "$WORK/ts-out"
done
if ((FAILED)); then
    die "some checks failed"
fi
log "all checks passed"
