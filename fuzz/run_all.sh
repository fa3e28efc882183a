#!/bin/sh
# Runs every fuzz target for BUDGET seconds, PARALLEL at a time, at the lowest
# priority; logs go to LOGDIR/<target>.log. Usage: run_all.sh [BUDGET] [PARALLEL] [LOGDIR]
set -u
BUDGET=${1:-600}
PARALLEL=${2:-2}
LOGDIR=${3:-fuzz-logs}
BIN=${CARGO_TARGET_DIR:-target}/x86_64-unknown-linux-gnu/release
cd "$(dirname "$0")"
mkdir -p "$LOGDIR"
run() {
    mkdir -p "corpus/$1" "artifacts/$1"
    nice -n 19 "$BIN/$1" "corpus/$1" -artifact_prefix="artifacts/$1/" \
        -max_total_time="$BUDGET" -max_len=4096 -rss_limit_mb=2048 -timeout=20 \
        -print_final_stats=1 > "$LOGDIR/$1.log" 2>&1
    echo "$1 exit $?" >> "$LOGDIR/done"
}
set -- webhook_context yaml_files native_operation host_to_lua lua_to_host webhook_patch quantity
while [ $# -gt 0 ]; do
    i=0
    while [ $i -lt "$PARALLEL" ] && [ $# -gt 0 ]; do
        run "$1" &
        shift
        i=$((i + 1))
    done
    wait
done
