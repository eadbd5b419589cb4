#!/usr/bin/env bash
# Seeds the fuzz corpora from the golden captures and runs every fuzz target for SECONDS each,
# printing libFuzzer's final line (executions, coverage) per target.
#
#   bash scripts/fuzz.sh [SECONDS]      # default 60
#
# Needs cargo-fuzz (`cargo install cargo-fuzz`); runs on stable through RUSTC_BOOTSTRAP=1.
# A crash leaves its input in fuzz/artifacts/<target>/ and makes this script exit non-zero.
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_EACH=${1:-60}
export RUSTC_BOOTSTRAP=1

mkdir -p fuzz/corpus/capture fuzz/corpus/net fuzz/corpus/decoders fuzz/corpus/demo
# Whole captures are up to 1.4 MB, which makes every execution slow: seed with their first 16 KiB
# (the reader treats the cut as a located error, so the prefix is still a valid test).
for f in captures/*.pcap captures/*.pcapng; do
  head -c 16384 "$f" > "fuzz/corpus/capture/$(basename "$f")"
done
# The demo target reads the Quake 3 captures (their gamestate is in the first 16 KiB); the capture
# target also gets our demos of them, since a demo is read as input too.
for f in captures/quake3-*.pcap; do
  head -c 16384 "$f" > "fuzz/corpus/demo/$(basename "$f")"
done
cargo run --quiet -p gamedissect --bin gamedissect -- demo -q -o fuzz/corpus/capture/demos captures/quake3-ioq3-protocol.pcap >/dev/null
cargo run --quiet -p gamedissect --bin gamedissect -- demo -q -o fuzz/corpus/capture/demos captures/quake3-openarena-legacy.pcap >/dev/null
for f in fuzz/corpus/capture/demos/*; do
  head -c 16384 "$f" > "fuzz/corpus/capture/$(basename "$f")"
done
rm -r fuzz/corpus/capture/demos
# Seeds for the net and decoders targets are cut from the captures' packets by the testkit, with
# pcapng files whose interfaces carry options (if_tsresol, if_tsoffset at both ends of i64).
cargo run --quiet -p testkit --bin fuzz_seeds -- fuzz/corpus

# Optimised, but with overflow checks and debug assertions on (`-O` alone turns both off, and an
# overflow that wraps silently in release is exactly what fuzzing must see).
FUZZ_FLAGS=(-O -a)
export RUSTFLAGS="${RUSTFLAGS:-} -C overflow-checks=on"
cargo fuzz build "${FUZZ_FLAGS[@]}"
status=0
for target in capture net decoders demo; do
  echo "== $target (${SECONDS_EACH}s)"
  if ! cargo fuzz run "${FUZZ_FLAGS[@]}" "$target" "fuzz/corpus/$target" -- \
      -max_total_time="$SECONDS_EACH" -rss_limit_mb=2048 -timeout=5 -max_len=65536 2>&1 \
      | grep -E "^(#[0-9]+\s+(DONE|pulse))|Done [0-9]+ runs|ERROR|SUMMARY|crash-|timeout-|oom-" | tail -3; then
    :
  fi
  if ls fuzz/artifacts/"$target"/* >/dev/null 2>&1; then
    echo "!! $target left artifacts in fuzz/artifacts/$target"
    status=1
  fi
done
exit $status
