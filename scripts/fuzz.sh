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

mkdir -p fuzz/corpus/capture fuzz/corpus/net fuzz/corpus/decoders
cp captures/*.pcap captures/*.pcapng fuzz/corpus/capture/ 2>/dev/null || true
# Seeds for the net and decoders targets are cut from the captures' packets by the seeding example.
cargo run --quiet --example fuzz_seeds -- fuzz/corpus

cargo fuzz build -O
status=0
for target in capture net decoders; do
  echo "== $target (${SECONDS_EACH}s)"
  if ! cargo fuzz run -O "$target" "fuzz/corpus/$target" -- \
      -max_total_time="$SECONDS_EACH" -rss_limit_mb=2048 -timeout=5 -max_len=262144 2>&1 \
      | grep -E "^(#[0-9]+\s+(DONE|pulse))|Done [0-9]+ runs|ERROR|SUMMARY|crash-|timeout-|oom-" | tail -3; then
    :
  fi
  if ls fuzz/artifacts/"$target"/* >/dev/null 2>&1; then
    echo "!! $target left artifacts in fuzz/artifacts/$target"
    status=1
  fi
done
exit $status
