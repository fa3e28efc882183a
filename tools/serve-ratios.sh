#!/usr/bin/env bash
# `serve` beside Karmada's example interpreter webhook under the same load, interleaved in one
# run, reported as ratios (medians over rounds).
#
# usage: ANCHOR_DIR=<anchor build dir> tools/serve-ratios.sh LOAD_DIR [PROJECT_BIN] [ROUNDS] [SECONDS] [SERVE_ARG...]
#   ANCHOR_DIR   the anchor build's output: bin/interpreter-webhook-example and certs/
#   LOAD_DIR     the anchor's serve-load folder: request.json (an InterpretReplica of a Workload)
#                and workload-customization.yaml (the example webhook's logic as a customization)
#   PROJECT_BIN  default target/release/karmada-interpreter (`cargo build --release`)
#   ROUNDS       default 3; SECONDS per protocol and round, default 10
#   SERVE_ARG    extra arguments for `serve` (e.g. --inline-budget-us 0, --log-level off)
#
# Both servers are pinned to CPU 0 and h2load (64 connections, one request in flight on each)
# to CPU 1. Per round, server and protocol (HTTP/2, then HTTP/1.1) it prints req/s, p50/p99
# latency, peak RSS, and the server's CPU time over the round: req/s per busy core
# (requests / CPU seconds) is the figure a loaded machine does not distort, since a pinned
# server gets only the share of CPU 0 other processes leave it.
set -eu
load=$1
bin=${2:-target/release/karmada-interpreter}
rounds=${3:-3}
secs=${4:-10}
shift $(( $# < 4 ? $# : 4 ))
[ -x "$ANCHOR_DIR/bin/interpreter-webhook-example" ] || { echo "no example webhook in ANCHOR_DIR"; exit 1; }
command -v h2load >/dev/null || { echo "needs h2load (apt-get install nghttp2-client)"; exit 1; }
certs=$ANCHOR_DIR/certs
tmp=$(mktemp -d)
taskset -c 0 "$ANCHOR_DIR/bin/interpreter-webhook-example" --kubeconfig="$certs/dummy-kubeconfig.yaml" \
  --bind-address=127.0.0.1 --secure-port=18471 --cert-dir="$certs" >"$tmp/karmada.log" 2>&1 &
kpid=$!
taskset -c 0 "$bin" serve -f "$load/workload-customization.yaml" --listen 127.0.0.1:18472 \
  --cert "$certs/tls.crt" --key "$certs/tls.key" "$@" >"$tmp/project.log" 2>&1 &
ppid=$!
trap 'kill $kpid $ppid 2>/dev/null; rm -rf "$tmp"' EXIT
sleep 2
for u in "https://127.0.0.1:18471/interpreter-workload" "https://127.0.0.1:18472/interpret"; do
  curl -s --cacert "$certs/ca.crt" -H 'Content-Type: application/json' --data-binary @"$load/request.json" "$u" | head -c 300; echo
done
cpu() { awk '{print $14 + $15}' "/proc/$1/stat"; }
hz=$(getconf CLK_TCK)
for r in $(seq "$rounds"); do
  for s in "karmada https://127.0.0.1:18471/interpreter-workload $kpid" "project https://127.0.0.1:18472/interpret $ppid"; do
    set -- $s
    for proto in h2 h1; do
      flag=""; [ $proto = h1 ] && flag="--h1"
      rm -f "$tmp/lat.tsv"
      before=$(cpu "$3")
      out=$(taskset -c 1 h2load $flag -c 64 -m 1 -t 1 -D "$secs" --warm-up-time=1 --log-file="$tmp/lat.tsv" \
        -d "$load/request.json" -H 'Content-Type: application/json' "$2" 2>&1)
      after=$(cpu "$3")
      rps=$(echo "$out" | sed -nE 's/^finished in .*, ([0-9.]+) req\/s.*/\1/p')
      ok=$(echo "$out" | sed -nE 's/^status codes: ([0-9]+) 2xx.*/\1/p')
      echo "round $r $1 $proto req/s=$rps 2xx=$ok $(python3 - "$tmp/lat.tsv" <<'EOF'
import sys
v = sorted(int(l.split()[2]) for l in open(sys.argv[1]) if l.strip())
print('p50=%.1fms p99=%.1fms' % (v[len(v)//2]/1000, v[int(len(v)*0.99)]/1000) if v else 'no log')
EOF
) cpu_s=$(echo "scale=2; ($after - $before) / $hz" | bc) rss_kb=$(awk '/VmHWM/{print $2}' "/proc/$3/status")"
    done
  done
done | tee "$tmp/rounds.txt"
python3 - "$tmp/rounds.txt" "$secs" <<'EOF'
import re, statistics, sys
secs = float(sys.argv[2])
rows = {}
for line in open(sys.argv[1]):
    m = re.match(r"round (\d+) (\w+) (h2|h1) req/s=([\d.]+) 2xx=(\d+) p50=([\d.]+)ms p99=([\d.]+)ms cpu_s=([\d.]+) rss_kb=(\d+)", line)
    if m:
        rps, cpu = float(m[4]), float(m[8])
        # h2load's warm-up second is not in req/s but is in the CPU time: count it in.
        per_core = rps * (secs + 1) / cpu if cpu > 0 else 0
        rows[(int(m[1]), m[2], m[3])] = dict(rps=rps, p99=float(m[7]), core=per_core, rss=int(m[9]))
med = statistics.median
print()
print("| protocol | Karmada req/s | serve req/s | ratio | Karmada req/s per busy core | serve | ratio | Karmada p99 | serve p99 |")
print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
for proto in ("h2", "h1"):
    pairs = [(rows[(r, "karmada", p)], rows[(r, "project", p)]) for (r, s, p) in sorted(rows)
             if s == "karmada" and p == proto and (r, "project", p) in rows]
    if not pairs:
        continue
    print("| %s | %.0f | %.0f | %.2fx | %.0f | %.0f | %.2fx | %.1f ms | %.1f ms |" % (
        "HTTP/2" if proto == "h2" else "HTTP/1.1",
        med(k["rps"] for k, _ in pairs), med(p["rps"] for _, p in pairs),
        med(p["rps"] / k["rps"] for k, p in pairs),
        med(k["core"] for k, _ in pairs), med(p["core"] for _, p in pairs),
        med(p["core"] / k["core"] for k, p in pairs if k["core"]),
        med(k["p99"] for k, _ in pairs), med(p["p99"] for _, p in pairs)))
peak = lambda side: max((v["rss"] for (r, s, p), v in rows.items() if s == side), default=0)
print("\npeak RSS: Karmada %.1f MB, serve %.1f MB (medians of %d interleaved rounds; ratios per round)"
      % (peak("karmada") / 1024, peak("project") / 1024, len({k[0] for k in rows})))
EOF
