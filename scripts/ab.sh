#!/usr/bin/env bash
# A/B frame rate of two builds of goeq, alternating run by run on the same
# machine so that both see the same load.
#   scripts/ab.sh OLD_BIN_DIR NEW_BIN_DIR [REPS]
# e.g. old = `git worktree add /tmp/old 8862f0e && (cd /tmp/old && go build -o bin/ ./cmd/...)`.
# Prints one line per run (name build rep fps) and then the medians.
set -euo pipefail
old=${1:?old bin dir}; new=${2:?new bin dir}; reps=${3:-5}
cd "$(dirname "$0")/.."
cfgs=(
  "demo|examples/configs/2d-lb-4.eqc|--renderer mesh --triangles 1000000 --frames 60"
  "synthetic|examples/configs/2d-lb-4.eqc|--renderer synthetic --frames 600"
  "db|examples/configs/db-lb-4.eqc|--renderer mesh --triangles 400000 --frames 60"
  "pixel|examples/configs/pixel-2x2.eqc|--renderer mesh --triangles 400000 --frames 60"
  "direct-send|examples/configs/db-direct-send.eqc|--renderer mesh --triangles 400000 --frames 60"
)
log=$(mktemp)
trap 'rm -f "$log"' EXIT
for c in "${cfgs[@]}"; do
  IFS='|' read -r name cfg args <<< "$c"
  for i in $(seq 1 "$reps"); do
    for v in old new; do
      bin=$old; [ "$v" = new ] && bin=$new
      # shellcheck disable=SC2086
      fps=$(env -u DISPLAY LP_NUM_THREADS=1 "$bin/eqserver" run --local --json $args "$cfg" 2>/dev/null |
        python3 -c 'import json,sys; print(json.load(sys.stdin)["fps"])' 2>/dev/null || echo fail)
      echo "$name $v $i $fps" | tee -a "$log"
    done
  done
done
python3 - "$log" <<'P'
import collections, statistics, sys
runs = collections.defaultdict(list)
for line in open(sys.argv[1]):
    name, build, _, fps = line.split()
    if fps != "fail":
        runs[(name, build)].append(float(fps))
print("config old-fps new-fps new/old")
for name in dict.fromkeys(k[0] for k in runs):
    o, n = statistics.median(runs[(name, "old")]), statistics.median(runs[(name, "new")])
    print(f"{name} {o:.2f} {n:.2f} {n/o:.2f}")
P
