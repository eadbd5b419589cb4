#!/usr/bin/env bash
# Renders the HTML reports of a Quake 3, a FlightGear, an SRB2 and a GameStudio capture in
# headless Chromium and saves full-page screenshots, to look at the pages as a browser shows them.
#
#   bash scripts/check-report.sh [OUT_DIR]     (default target/report-check)
#
# Writes OUT_DIR/<capture>.html and OUT_DIR/<capture>.png (1280 by 3600 px). With SMALL=1 it also
# writes the downsized copies shown in docs/report.md into docs/report/.
# Needs: cargo, chromium (Debian: apt-get install chromium); for SMALL=1 ImageMagick's convert.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${1:-target/report-check}
mkdir -p "$OUT"
command -v chromium >/dev/null || { echo "missing: chromium (apt-get install chromium)" >&2; exit 1; }
cargo build --release --quiet
for name in quake3-openarena-legacy flightgear-v2-pair srb2-2.2.13-session gamestudio-a6-dplay8; do
  capture=$(ls captures/"$name".pcap*)
  target/release/gamedissect report -q "$capture" -w "$OUT/$name.html"
  # A fresh profile each time, so nothing cached or remembered changes the picture.
  profile=$(mktemp -d)
  chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --user-data-dir="$profile" \
    --window-size=1280,3600 --screenshot="$PWD/$OUT/$name.png" "file://$PWD/$OUT/$name.html" \
    >/dev/null 2>&1
  rm -rf "$profile"
  echo "$OUT/$name.png"
  if [ "${SMALL:-0}" = 1 ]; then
    convert "$OUT/$name.png" -trim +repage -resize 50% -colors 48 -strip "docs/report/$name.png"
  fi
done
