#!/usr/bin/env bash
# How the commands grow with the number of customizations in one file (issue 33): CPU seconds of
# `check`, `lint`, `list`, `test` (with two golden cases) and `serve --print-config` (start-up: the
# chain built, the configuration printed) on files of N customizations written by
# tools/gen-customizations.py, plus `check` of the same file from standard input.
#
# usage: tools/scale.sh [BIN] [SIZES] [LIMIT]
#   BIN    default target/release/karmada-interpreter (`cargo build --release -p karmada-interpreter-cli`)
#   SIZES  default "1 100 1000 3000"
#   LIMIT  seconds a run may take before it is stopped and shown as >LIMIT (default 300)
#
# Prints one row per size: CPU seconds per command and, from the second size on, the ratio of each
# time to the previous size's beside the ratio of the sizes (linear growth keeps them close).
set -eu
bin=${1:-target/release/karmada-interpreter}
sizes=${2:-1 100 1000 3000}
limit=${3:-300}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
openssl req -x509 -newkey rsa:2048 -nodes -subj /CN=localhost -days 1 \
  -keyout "$tmp/tls.key" -out "$tmp/tls.crt" >/dev/null 2>&1
# seconds COMMAND...: the CPU time (user + system) of one run, its output dropped (a shared
# machine stretches wall times, not CPU times), or >LIMIT when it ran out of time.
seconds() {
  if timeout "$limit" /usr/bin/time -f '%U %S' -o "$tmp/time" "$@" >/dev/null 2>&1 || [ $? -ne 124 ]; then
    tail -n 1 "$tmp/time" | awk '{printf "%.2f", $1 + $2}'
  else
    echo ">$limit"
  fi
}
commands="check check-stdin lint list test serve"
printf '%6s' N
for c in $commands; do printf '%14s' "$c"; done
echo
prev_n=
declare -A prev
for n in $sizes; do
  file=$tmp/c$n.yaml
  python3 "$here/gen-customizations.py" "$n" "$file" --cases "$tmp/cases$n.yaml"
  declare -A now
  now[check]=$(seconds "$bin" check -f "$file" -q)
  now[check-stdin]=$(seconds sh -c '"$1" check -f - -q < "$2"' _ "$bin" "$file")
  now[lint]=$(seconds "$bin" lint -f "$file" -q)
  now[list]=$(seconds "$bin" list -f "$file")
  now[test]=$(seconds "$bin" test -f "$file" "$tmp/cases$n.yaml" -q)
  now[serve]=$(seconds "$bin" serve -f "$file" --print-config --cert "$tmp/tls.crt" --key "$tmp/tls.key")
  printf '%6s' "$n"
  for c in $commands; do
    cell=${now[$c]}
    if [ -n "$prev_n" ] && [[ $cell != '>'* ]] && [[ ${prev[$c]} != '>'* ]]; then
      cell=$(awk -v a="$cell" -v b="${prev[$c]}" 'BEGIN { if (b > 0) printf "%s (%.1fx)", a, a / b; else printf "%s", a }')
    fi
    printf '%14s' "$cell"
    prev[$c]=${now[$c]}
  done
  [ -n "$prev_n" ] && printf '   sizes %.1fx' "$(awk -v a="$n" -v b="$prev_n" 'BEGIN { print a / b }')"
  echo
  prev_n=$n
done
