#!/usr/bin/env bash
# What can be checked of the minimum supported Rust version (the workspace's
# `rust-version`) without that toolchain, which cannot be installed here.
#
# It checks:
#   1. every workspace crate declares a `rust-version`, the same as the
#      workspace's;
#   2. every package in the locked dependency graph (all features, all
#      platforms) that declares a `rust-version` declares one no newer than
#      ours; packages that declare none are listed (nothing is known of them).
#
# Together with clippy's `incompatible_msrv` lint (on by default; `.ci/run`
# runs clippy with -D warnings), which reads `rust-version` and flags calls to
# standard-library items stabilized after it, this catches the usual ways a
# newer toolchain sneaks in: an upgraded dependency and a new std API.
#
# It does NOT prove the workspace builds on that toolchain: language features
# and syntax, lints, Cargo features and manifest keys, and std items
# clippy's lint does not cover (trait impls, macros, behaviour changes) are
# only caught by building with that toolchain; a dependency's declared
# `rust-version` is its authors' claim, and one that declares none may need
# any version. Only a build with the MSRV toolchain proves it
# (`cargo +1.89 check --workspace --all-targets --all-features --locked`).
set -euo pipefail
cd "$(dirname "$0")/.."

meta=$(mktemp)
trap 'rm -f "$meta"' EXIT
cargo metadata --format-version 1 --all-features --locked >"$meta"
python3 - "$meta" <<'PY'
import json, sys

def version(text):
    parts = [int(p) for p in text.split(".")]
    return tuple(parts + [0] * (3 - len(parts)))

meta = json.load(open(sys.argv[1]))
members = set(meta['workspace_members'])
packages = {p['id']: p for p in meta['packages']}
resolved = {node['id'] for node in meta['resolve']['nodes']}

ours = {packages[m]['rust_version'] for m in members}
bad = False
if len(ours) != 1 or None in ours:
    print("workspace crates disagree on rust-version:", file=sys.stderr)
    for m in sorted(members):
        print(f"  {packages[m]['name']}: {packages[m]['rust_version']}", file=sys.stderr)
    sys.exit(1)
msrv = ours.pop()

newer, undeclared, checked = [], [], 0
for pid in sorted(resolved - members, key=lambda i: packages[i]['name']):
    pkg = packages[pid]
    declared = pkg.get("rust_version")
    if declared is None:
        undeclared.append(f"{pkg['name']} {pkg['version']}")
    else:
        checked += 1
        if version(declared) > version(msrv):
            newer.append(f"{pkg['name']} {pkg['version']} needs {declared}")

print(f"rust-version {msrv}: {checked} dependencies declare one no newer" if not newer
      else f"rust-version {msrv}: {len(newer)} of {checked + len(undeclared)} dependencies need a newer Rust:")
for line in newer:
    print("  " + line)
if undeclared:
    print(f"{len(undeclared)} dependencies declare no rust-version (unchecked): " + ", ".join(undeclared))
sys.exit(1 if newer else 0)
PY
