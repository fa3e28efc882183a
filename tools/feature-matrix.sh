#!/usr/bin/env bash
# Every workspace crate builds, free of warnings, with every feature combination
# a user can pick one at a time: `cargo clippy -p <crate> -- -D warnings` (the
# library and binaries, no tests: dev-dependencies would turn features on and
# hide a missing one; clippy rather than check so that warnings fail without
# RUSTFLAGS, which would rebuild every dependency) with
#   --no-default-features, the defaults, each feature alone (on no defaults)
#   and --all-features.
# Combinations that turn on the same set of the crate's features (after
# following what each feature enables) are checked once.
#
# k8s-openapi builds only with a Kubernetes version chosen and a library never
# chooses one, so each crate that depends on it is checked with
# `k8s-openapi/latest` added (the version a binary would pick).
#
# usage: tools/feature-matrix.sh [CRATE...]    (default: every workspace member)
# Extra cargo flags go in FEATURE_MATRIX_CARGO_FLAGS (e.g. "--quiet").
# Exits non-zero when any combination fails; all are tried first.
set -euo pipefail
cd "$(dirname "$0")/.."

plan=$(cargo metadata --no-deps --format-version 1 | python3 -c '
import json, sys
meta = json.load(sys.stdin)
wanted = set(sys.argv[1:])
for pkg in meta["packages"]:
    if wanted and pkg["name"] not in wanted:
        continue
    feats = pkg["features"]
    def closure(names):
        seen, todo = set(), list(names)
        while todo:
            f = todo.pop()
            if f in seen or f not in feats:
                continue
            seen.add(f)
            todo.extend(feats[f])
        return frozenset(seen - {"default"})
    combos = [("--no-default-features", closure([])),
              ("", closure(["default"]))]
    combos += [("--no-default-features --features " + f, closure([f]))
               for f in sorted(feats) if f != "default"]
    combos.append(("--all-features", closure(feats)))
    k8s = any(d["name"] == "k8s-openapi" and d["kind"] is None
              for d in pkg["dependencies"])
    done = set()
    for flags, enabled in combos:
        if enabled in done:
            continue
        done.add(enabled)
        if k8s:
            flags = (flags + " --features k8s-openapi/latest").strip()
        print(pkg["name"] + "\t" + flags)
' "$@")

failed=()
count=0
while IFS=$'\t' read -r crate flags; do
    count=$((count + 1))
    echo "== cargo clippy -p $crate $flags -- -D warnings"
    # shellcheck disable=SC2086 # flags are words
    if ! cargo clippy ${FEATURE_MATRIX_CARGO_FLAGS:-} -p "$crate" $flags -- -D warnings; then
        failed+=("$crate $flags")
    fi
done <<<"$plan"

if ((${#failed[@]})); then
    echo "feature matrix: ${#failed[@]} of $count combinations failed:" >&2
    printf '  cargo clippy -p %s -- -D warnings\n' "${failed[@]}" >&2
    exit 1
fi
echo "feature matrix: all $count combinations build without warnings"
