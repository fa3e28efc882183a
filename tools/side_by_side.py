#!/usr/bin/env python3
"""Times the bench inputs with Karmada's own code and with ours, interleaved, and prints ratios.

Each round runs Karmada's Go benchmark (`anchorbench.test`, built by the anchor's build.sh from
Karmada's sources) and then `karmada-interpreter bench` on the same input folder, one thread each,
on the same machine. A ratio is Karmada's time per call divided by ours, per case and per round;
the table shows the median over the rounds, next to the target of each kind of case:

  lua-* op: 20x or more; native-* op: 10x or more; every from-bytes figure: 5x or more.

usage: [ANCHOR_DIR=DIR] tools/side_by_side.py [--anchor-bin DIR] --inputs DIR --ours BIN
                             [--rounds 3] [--benchtime 1s] [--iterations 2000] [--json OUT]

--anchor-bin defaults to $ANCHOR_DIR/bin (the anchor build's output).

Karmada's figures are Go's ns/op (`-test.cpu 1`); ours are the median thread-CPU time per call that
`bench -o json` reports. Run it on a quiet machine (nothing else compiling or serving).
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys

TARGETS = {"lua-op": 20.0, "native-op": 10.0, "from-bytes": 5.0}


def karmada_round(anchor_bin, inputs, benchtime):
    env = dict(os.environ, ANCHOR_INPUTS=inputs, GOMAXPROCS="1")
    out = subprocess.run(
        [os.path.join(anchor_bin, "anchorbench.test"), "-test.run", "^$", "-test.bench", ".",
         "-test.cpu", "1", "-test.benchtime", benchtime],
        env=env, capture_output=True, text=True, check=True).stdout
    figures = {}
    for m in re.finditer(r"^Benchmark(Op|FromBytes)/(\S+)\s+\d+\s+([\d.]+) ns/op", out, re.M):
        figures[(m.group(2), "op" if m.group(1) == "Op" else "from-bytes")] = float(m.group(3))
    if not figures:
        sys.exit(f"no benchmark lines from anchorbench.test:\n{out}")
    return figures


def our_round(ours, inputs, iterations):
    out = subprocess.run([ours, "bench", inputs, "--iterations", str(iterations), "-o", "json"],
                         capture_output=True, text=True, check=True).stdout
    figures = {}
    for row in json.loads(out):
        if not row.get("matches", False):
            sys.exit(f"{row['name']}: our result no longer matches the case's output")
        figures[(row["name"], "op")] = float(row["op_ns"])
        figures[(row["name"], "from-bytes")] = float(row["from_bytes_ns"])
    return figures


def target_of(case, figure):
    if figure == "from-bytes":
        return TARGETS["from-bytes"]
    return TARGETS["lua-op"] if case.startswith("lua-") else TARGETS["native-op"]


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    default_bin = os.path.join(os.environ["ANCHOR_DIR"], "bin") if os.environ.get("ANCHOR_DIR") else None
    p.add_argument("--anchor-bin", default=default_bin, required=default_bin is None)
    p.add_argument("--inputs", required=True)
    p.add_argument("--ours", required=True)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--benchtime", default="1s")
    p.add_argument("--iterations", type=int, default=2000)
    p.add_argument("--json")
    a = p.parse_args()
    rounds = []
    for i in range(a.rounds):
        k = karmada_round(a.anchor_bin, a.inputs, a.benchtime)
        o = our_round(a.ours, a.inputs, a.iterations)
        rounds.append((k, o))
        print(f"round {i + 1}/{a.rounds} done", file=sys.stderr)
    keys = sorted(set(rounds[0][0]) & set(rounds[0][1]))
    rows, missed = [], 0
    for case, figure in keys:
        ratios = [k[(case, figure)] / o[(case, figure)] for k, o in rounds]
        karmada = statistics.median(k[(case, figure)] for k, _ in rounds)
        ours = statistics.median(o[(case, figure)] for _, o in rounds)
        ratio = statistics.median(ratios)
        target = target_of(case, figure)
        met = ratio >= target
        missed += not met
        rows.append({"case": case, "figure": figure, "karmada_ns": karmada, "ours_ns": ours,
                     "ratio": ratio, "ratios": ratios, "target": target, "met": met})
    print(f"| case | figure | Karmada (median ns) | ours (median ns) | ratio (median of {a.rounds}) | target |")
    print("|---|---|---:|---:|---:|---|")
    for r in rows:
        mark = "met" if r["met"] else "**missed**"
        print(f"| {r['case']} | {r['figure']} | {r['karmada_ns']:,.0f} | {r['ours_ns']:,.0f} | "
              f"{r['ratio']:.1f}x | {r['target']:.0f}x {mark} |")
    print(f"\n{len(rows) - missed} of {len(rows)} figures at target", file=sys.stderr)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
