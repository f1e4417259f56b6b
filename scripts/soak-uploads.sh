#!/usr/bin/env bash
# The destination client's upload crash (issue 10) came within a minute in
# 4 of 5 runs of this: 6000 frames of the synthetic renderer on the 2D
# load-balanced four-source config at 320x240, headless. soak.sh runs it
# RUNS times in a row (default 20) and stops at the first failure.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${RUNS:-20}
frames=${FRAMES:-6000}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sed 's/640 360/320 240/' examples/configs/2d-lb-4.eqc > "$tmp/2d-320.eqc"
start=$(date +%s)
for i in $(seq 1 "$runs"); do
  if ! env -u DISPLAY LP_NUM_THREADS=1 bin/eqserver run --local --frames "$frames" --renderer synthetic "$tmp/2d-320.eqc" > "$tmp/run.out" 2>&1; then
    echo "soak: run $i of $runs failed:" >&2
    tail -n 40 "$tmp/run.out" >&2
    exit 1
  fi
  echo "soak: run $i of $runs: $(grep -m1 'frames in' "$tmp/run.out")"
done
echo "soak: $runs consecutive runs of $frames frames without a crash in $(( $(date +%s) - start )) s"
