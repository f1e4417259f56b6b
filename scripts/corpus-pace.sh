#!/usr/bin/env bash
# The pace of every config of the corpus decomposed against its reference
# (each destination drawing its whole frame alone), on this machine: a
# config far below its reference spends its time on something other than
# drawing. Prints a markdown table, slowest ratio first.
#   scripts/corpus-pace.sh [BIN_DIR] [TRIANGLES] [FRAMES]
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(realpath "${1:-bin}"); triangles=${2:-200000}; frames=${3:-40}
corpus=$(realpath ../shared/eqc-corpus)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" # where configs' relative dump_image files land
fps() { # config, extra flags
  # shellcheck disable=SC2086
  env -u DISPLAY timeout 300 "$bin/eqserver" run --local --json --frames "$frames" --triangles "$triangles" $2 "$1" 2>/dev/null |
    python3 -c 'import json,sys; print("%.1f" % json.load(sys.stdin)["fps"])' 2>/dev/null || echo fail
}
for cfg in "$corpus"/*.eqc; do
  dec=$(fps "$cfg" ""); ref=$(fps "$cfg" --reference)
  ratio=$(python3 -c "print('%.2f' % ($dec/$ref))" 2>/dev/null || echo -)
  echo "$ratio|$(basename "$cfg" .eqc)|$dec|$ref"
done | sort -t'|' -k1,1 -g | {
  echo "| config | decomposed fps | reference fps | ratio |"
  echo "|---|---|---|---|"
  while IFS='|' read -r ratio name dec ref; do echo "| $name | $dec | $ref | $ratio |"; done
}
