#!/usr/bin/env bash
# make soak: ten minutes of the three-node 2D load-balanced run at full
# speed (issue 13). Every 30 s it reads the goroutines and resident memory
# of the server and of every node's client from the run's /metrics, and
# prints them; after a minute of warm-up, growth of more than 5% in any of
# them fails. SOAK_SECONDS, SOAK_EVERY and SOAK_WARMUP change the times.
set -euo pipefail
cd "$(dirname "$0")/.."
total=${SOAK_SECONDS:-600}
every=${SOAK_EVERY:-30}
warmup=${SOAK_WARMUP:-60}
tmp=$(mktemp -d)
env -u DISPLAY LP_NUM_THREADS=1 bin/eqserver run --local --frames 1000000000 --triangles 200000 \
  --http 127.0.0.1:0 examples/configs/2d-lb-4.eqc > "$tmp/summary" 2> "$tmp/log" &
pid=$!
trap 'kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; rm -rf "$tmp"' EXIT
url=""
for _ in $(seq 1 150); do
  url=$(grep -o 'dashboard on http://[0-9.:]*/' "$tmp/log" | head -n1 | sed 's/^dashboard on //') || true
  [ -n "$url" ] && break
  sleep 0.2
done
[ -n "$url" ] || { echo "soak: no dashboard address" >&2; tail -n 20 "$tmp/log" >&2; exit 1; }
# one line per process: seconds frames process goroutines rss
sample() {
  curl -fsS "${url}metrics" | awk -v t="$1" '
    /^goeq_frames_total / { frames = $2 }
    /^goeq_process_goroutines\{/ { match($0, /process="[^"]*"/); p = substr($0, RSTART + 9, RLENGTH - 10); g[p] = $2 }
    /^goeq_process_resident_bytes\{/ { match($0, /process="[^"]*"/); p = substr($0, RSTART + 9, RLENGTH - 10); r[p] = $2 }
    END { for (p in g) printf "%d %d %s %d %d\n", t, frames, p, g[p], r[p] }'
}
start=$(date +%s)
printf "%8s %9s %-10s %11s %10s\n" seconds frames process goroutines "RSS MiB"
for (( t = 0; t <= total; t += every )); do
  while (( $(date +%s) - start < t )); do sleep 1; done
  kill -0 "$pid" 2>/dev/null || { echo "soak: eqserver ended early" >&2; tail -n 30 "$tmp/log" >&2; exit 1; }
  sample "$t" | sort -k3 | tee -a "$tmp/samples" | awk '{ printf "%8d %9d %-10s %11d %10.1f\n", $1, $2, $3, $4, $5 / 1048576 }'
done
kill -TERM "$pid"
wait "$pid" || true
tail -n 12 "$tmp/summary"
# growth after warm-up: the mean of the first three samples at or after it
# against the mean of the last three (single samples catch transient
# goroutines and garbage not yet collected); goroutines must also grow by
# two or more to count
awk -v w="$warmup" '
  $1 >= w { n[$3]++; g[$3, n[$3]] = $4; r[$3, n[$3]] = $5 }
  END {
    bad = 0
    for (p in n) {
      k = n[p] < 6 ? int(n[p] / 2) : 3
      if (k < 1) continue
      g0 = r0 = g1 = r1 = 0
      for (i = 1; i <= k; i++) { g0 += g[p, i]; r0 += r[p, i]; g1 += g[p, n[p] - k + i]; r1 += r[p, n[p] - k + i] }
      g0 /= k; r0 /= k; g1 /= k; r1 /= k
      gg = (g1 - g0) / g0 * 100; rg = (r1 - r0) / r0 * 100
      printf "soak: %-10s goroutines %.1f -> %.1f (%+.1f%%), RSS %.1f -> %.1f MiB (%+.1f%%)\n", p, g0, g1, gg, r0 / 1048576, r1 / 1048576, rg
      if ((gg > 5 && g1 - g0 >= 2) || rg > 5) bad = 1
    }
    if (bad) { print "soak: growth above 5% after warm-up"; exit 1 }
    print "soak: no process grew by more than 5% after warm-up"
  }' "$tmp/samples"
