#!/usr/bin/env python3
"""Bulk parity check against Karmada's own code.

Mutates golden cases (every JSON type at paths of the inputs, absent fields,
null status items, integral floats, non-string label values, empty strings,
status-item member names in other cases, large and odd numbers), has Karmada's
code compute the expected outputs (`oracle2 fill`, see the anchor README of the
test inputs), runs `karmada-interpreter test` on the filled cases and counts the
cases where the two disagree.

    tools/parity_bulk.py --cases DIR --oracle2 BIN --interpreter BIN \
        [--seed 24] [--per-case 12] [--work DIR] [--compat COMPATIBILITY.md]

Prints the size, the seed, the disagreements COMPATIBILITY.md's rules explain
and the other mismatches grouped by mutation class, kind and operation (all in
`WORK/mismatches.json`; the filled cases are `WORK/filled.yaml`). A case that
Karmada refuses and no layer of ours serves counts as agreement (neither
answers); the cases of COMPATIBILITY.md's known deviations are not mutated.

Nothing here is needed by the project's tests; Go and Karmada's binaries are
only needed to run this tool.
"""

import argparse
import json
import os
import random
import subprocess
import sys

import yaml  # PyYAML
from collections import Counter, defaultdict

# Values every path may be given: every JSON type, and the odd ones.
TYPE_VALUES = [
    None, True, False, 0, -1, 7, 1.5, 1e20, "", "x", "1", "true", [], [{}], {}, {"a": "b"},
]
ODD_NUMBERS = [
    0, -1, 2147483647, 2147483648, -2147483649, 9007199254740993,
    1537228672809129216, 4611686018427387904, 9223372036854775807,
    -9223372036854775808, 18446744073709551615, 1e20, -1e20, 1e300, 0.5, -0.0, 1e-7, 3.0,
]
ODD_STRINGS = ["", " ", "y", "on", "0755", "1e3", "null", "é", "a\tb", "100m", "1Gi", "-1"]
NON_STRING_MAP_VALUES = [{}, {"a": "b"}, 1, 1.5, True, False, None, [], ["x"]]
STATUS_ITEM_KEYS = {
    "clusterName": ["ClusterName", "CLUSTERNAME", "clustername"],
    "status": ["Status", "STATUS"],
    "applied": ["Applied", "APPLIED"],
    "appliedMessage": ["AppliedMessage", "appliedmessage"],
    "health": ["Health", "HEALTH"],
}
SLOTS = ["desiredObj", "observedObj", "statusItems"]


def paths(value, prefix=()):
    """Every path below `value` (not `value` itself)."""
    if isinstance(value, dict):
        for k, v in value.items():
            yield prefix + (k,)
            yield from paths(v, prefix + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield prefix + (i,)
            yield from paths(v, prefix + (i,))


def get(root, path):
    for p in path:
        root = root[p]
    return root


def put(root, path, value):
    get(root, path[:-1])[path[-1]] = value


def delete(root, path):
    parent = get(root, path[:-1])
    del parent[path[-1]]


def show(path):
    return ".".join(str(p) for p in path)


def input_paths(case):
    out = []
    for slot in SLOTS:
        if slot in case and case[slot] is not None:
            out.extend((slot,) + p for p in paths(case[slot]))
    return out


def leaves(case, kinds):
    return [p for p in input_paths(case) if isinstance(get(case, p), kinds)
            and not isinstance(get(case, p), bool)]


def map_value_paths(case):
    """Paths of label, annotation and matchLabels maps in the inputs."""
    out = []
    for p in input_paths(case):
        if p[-1] in ("labels", "annotations", "matchLabels", "nodeSelector"):
            if isinstance(get(case, p), dict):
                out.append(p)
    for slot in ("desiredObj", "observedObj"):
        if isinstance(case.get(slot), dict):
            out.append((slot, "metadata", "labels"))
            out.append((slot, "metadata", "annotations"))
    return out


def replaced(c, rng, cls, kinds, values):
    """A leaf of one of `kinds` (any path when there is none) given one of `values`."""
    ps = leaves(c, kinds) or input_paths(c)
    if not ps:
        return None
    p = rng.choice(ps)
    v = rng.choice(values)
    put(c, p, v)
    return cls, f"{show(p)}={json.dumps(v)}", c


def mutate(case, rng):
    """One mutation of `case`: (class, description, mutated case) or None."""
    c = json.loads(json.dumps(case))
    cls = rng.choice([
        "type", "type", "type", "absent", "null-item", "integral-float", "map-value",
        "empty-string", "item-key-case", "odd-number", "odd-string",
    ])
    if cls in ("type", "absent"):
        ps = input_paths(c)
        if not ps:
            return None
        p = rng.choice(ps)
        if cls == "absent":
            delete(c, p)
            return cls, f"{show(p)} absent", c
        v = rng.choice(TYPE_VALUES)
        put(c, p, v)
        return cls, f"{show(p)}={json.dumps(v)}", c
    if cls == "null-item":
        items = c.get("statusItems")
        if c.get("operation") != "AggregateStatus" or not isinstance(items, list):
            return None
        i = rng.randint(0, len(items))
        items.insert(i, None)
        return cls, f"statusItems[{i}]=null", c
    if cls == "integral-float":
        return replaced(c, rng, cls, (int, float), [1e20, -1e20, 1e300, 1.8446744073709552e19, 9.3e18])
    if cls == "map-value":
        ps = map_value_paths(c)
        if not ps:
            return None
        p = rng.choice(ps)
        try:
            parent = get(c, p[:-1])
        except (KeyError, IndexError, TypeError):
            return None
        if not isinstance(parent, dict):
            return None
        m = parent.get(p[-1])
        if not isinstance(m, dict):
            m = {}
            parent[p[-1]] = m
        key = rng.choice(list(m.keys()) + ["added"]) if m else "added"
        v = rng.choice(NON_STRING_MAP_VALUES)
        m[key] = v
        return cls, f"{show(p)}.{key}={json.dumps(v)}", c
    if cls == "empty-string":
        return replaced(c, rng, cls, (str,), [""])
    if cls == "item-key-case":
        items = c.get("statusItems")
        if not isinstance(items, list) or not items:
            return None
        i = rng.randrange(len(items))
        item = items[i]
        if not isinstance(item, dict) or not item:
            return None
        key = rng.choice([k for k in item if k in STATUS_ITEM_KEYS] or [None])
        if key is None:
            return None
        new = rng.choice(STATUS_ITEM_KEYS[key])
        items[i] = {(new if k == key else k): v for k, v in item.items()}
        return cls, f"statusItems[{i}].{key} as {new}", c
    if cls == "odd-number":
        return replaced(c, rng, cls, (int, float), ODD_NUMBERS)
    if cls == "odd-string":
        return replaced(c, rng, cls, (str,), ODD_STRINGS)
    return None


# COMPATIBILITY.md's rules, each recognized from a mismatch: (rule, test of
# (mutation, our differences, Karmada's error, the layer that answered)).
RULES = [
    ("`false` reads as absent (bundled kinds)",
     lambda m, d, k, by: m.endswith("=false") and "but it succeeded" in d),
    ("32-bit or out-of-range integer in a field the operation reads: an error naming the field",
     lambda m, d, k, by: "operation failed" in d and not k
     and ("does not fit a" in d or "expected an integer, got" in d and "e+" in d)),
    ("aggregated 32-bit counters whose sum overflows: an error naming the field",
     lambda m, d, k, by: "the sum over member clusters" in d and "does not fit 32 bits" in d),
    ("Kruise InterpretHealth of a `status` that is false or a number: unhealthy",
     lambda m, d, k, by: "InterpretHealth" in by and "observedObj.status=" in m
     and "but it succeeded" in d and "attempt to index a non-table object" in k),
    ("BroadcastJob: each member judged by its own conditions", lambda m, d, k, by:
     "broadcastjob" in by and "AggregateStatus" in by and "status.conditions" in d),
    ("FlinkDeployment memory sizes", lambda m, d, k, by: "flinkdeployment" in by
     and ("memory" in d or "memory" in k or "4096m" in d)),
    ("HelmChart reflects observedGeneration", lambda m, d, k, by: "helmchart" in by
     and "status.observedGeneration" in d),
    ("StatefulSet reflects observedGeneration", lambda m, d, k, by: "StatefulSet InterpretStatus" in by
     and "status.observedGeneration: expected <absent>" in d),
    ("OCIRepository without serviceAccountName: no ServiceAccount dependency",
     lambda m, d, k, by: "ocirepository" in by and "table index is nil" in k),
    ("Workflow reads secret.secretName", lambda m, d, k, by: "workflow" in by
     and "secret-name-field-is-ignored" in d),
    ("no dependencies instead of Karmada's nil result", lambda m, d, k, by:
     "but it succeeded" in d and "requires type is table but got nil" in k),
    ("absent fields take their defaults (bundled kinds)", lambda m, d, k, by:
     "but it succeeded" in d and by.startswith("thirdparty")
     and any(t in k for t in ("object(nil)", "got nil)", "compare nil with", "with nil",
                              "table index is nil"))),
    ("member times of different JSON types compared as texts", lambda m, d, k, by:
     "but it succeeded" in d and "AggregateStatus" in by and "attempt to compare" in k
     and "Time" in m),
    ("keys unknown to the schema kept in normalized outputs", lambda m, d, k, by:
     by.startswith("native") and '{"a": "b"}' in m and 'expected <absent>, got "b"' in d),
    ("every empty table of a list in a script's result is dropped (Lua engine)",
     lambda m, d, k, by: "expected [], got <absent>" in d),
    ("StatefulSet aggregation freshness against the template generation", lambda m, d, k, by:
     "StatefulSet AggregateStatus" in by and "observedGeneration" in d),
]


def known_deviation_names(compat):
    """Case names of COMPATIBILITY.md's "Known deviations" table."""
    names = set()
    if not os.path.exists(compat):
        sys.exit(f"{compat}: no such file (--compat names COMPATIBILITY.md; its known "
                 "deviations and rules decide what is generated and how it is classified)")
    for line in open(compat):
        cells = [c.strip() for c in line.split("|")]
        if len(cells) > 3 and cells[2].startswith("`") and cells[1].startswith("`"):
            names.add(cells[2].strip("`"))
    return names


def oracle_errors(filled):
    """Karmada's error message of each filled case, by case name."""
    errors = {}
    for doc in open(filled).read().split("\n---\n"):
        lines = doc.split("\n")
        comment = [l[2:] for l in lines if l.startswith("# ")]
        if not comment or not ("error" in comment[0] or "PANIC" in comment[0]):
            continue
        start = next(i for i, l in enumerate(lines) if l.startswith("name:"))
        end = start + 1
        while end < len(lines) and lines[end].startswith(" "):
            end += 1
        name = str(yaml.safe_load("\n".join(lines[start:end]))["name"])
        errors[name] = " ".join(comment)
    return errors


def load_cases(oracle2, root):
    files = sorted(
        os.path.join(d, f) for d, _, fs in os.walk(root) for f in fs
        if f.endswith(".yaml") and f != "README.md"
    )
    out = subprocess.run([oracle2, "tojson", *files], capture_output=True, text=True,
                         check=True).stdout
    cases = []
    for line in out.splitlines():
        c = json.loads(line)
        c.pop("output", None)
        c.pop("expectError", None)
        cases.append(c)
    return cases


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cases", required=True)
    ap.add_argument("--oracle2", required=True)
    ap.add_argument("--interpreter", required=True)
    ap.add_argument("--seed", type=int, default=24)
    ap.add_argument("--per-case", type=int, default=12)
    ap.add_argument("--work", default="/tmp/parity-bulk")
    ap.add_argument("--compat",
                    default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                                         "COMPATIBILITY.md"),
                    help="its known deviations are not mutated; its rules classify mismatches")
    ap.add_argument("--reuse", action="store_true",
                    help="keep WORK/filled.yaml of an earlier run with the same seed and size")
    ap.add_argument("--show", type=int, default=3, help="examples printed per group")
    args = ap.parse_args()
    os.makedirs(args.work, exist_ok=True)
    rng = random.Random(args.seed)
    skip = known_deviation_names(args.compat)
    base = [c for c in load_cases(args.oracle2, args.cases) if c.get("name") not in skip]
    generated, meta = [], {}
    for n, case in enumerate(base):
        made = 0
        for _ in range(args.per_case * 4):
            if made == args.per_case:
                break
            m = mutate(case, rng)
            if m is None:
                continue
            cls, desc, c = m
            name = f"{case.get('name', '')} ~ {len(generated)} {cls} {desc}"
            c["name"] = name
            c.pop("_file", None)
            c.pop("_doc", None)
            c["description"] = f"{cls}: {desc} (from {os.path.relpath(case['_file'], args.cases)})"
            meta[name] = (cls, (c.get("desiredObj") or c.get("observedObj") or {}).get("kind")
                          if isinstance(c.get("desiredObj") or c.get("observedObj"), dict) else None,
                          c.get("operation"))
            generated.append(c)
            made += 1
    gen = os.path.join(args.work, "generated.yaml")
    with open(gen, "w") as f:
        f.write("\n---\n".join(json.dumps(c, ensure_ascii=False) for c in generated) + "\n")
    filled = os.path.join(args.work, "filled.yaml")
    if args.reuse and os.path.exists(filled):
        # "<golden case> ~ <index> <class> ...": the filled cases (those Karmada's code
        # could run) must be among the generated ones
        def mark(name):
            return name.split(" ~ ")[-1].split(" ")[:2]
        made = {tuple(mark(c["name"])) for c in generated}
        kept = {tuple(mark(line.rstrip("\n'\""))) for line in open(filled)
                if line.startswith("name: ")}
        if not kept <= made:
            sys.exit(f"{filled} was filled from other generated cases (another seed, size, "
                     "set of golden cases or COMPATIBILITY.md): run without --reuse")
    if not (args.reuse and os.path.exists(filled)):
        r = subprocess.run([args.oracle2, "fill", "-o", filled, gen], capture_output=True,
                           text=True)
        sys.stderr.write(r.stderr.splitlines()[-1] + "\n" if r.stderr else "")
    r = subprocess.run([args.interpreter, "test", "--format", "json", filled],
                       capture_output=True, text=True)
    try:
        report = json.loads(r.stdout)
    except json.JSONDecodeError:
        sys.exit(f"interpreter output is not JSON: {r.stdout[:500]} {r.stderr[:2000]}")
    cases = report["cases"]
    karmada = oracle_errors(filled)
    verdicts = Counter(c.get("verdict") for c in cases)
    groups, ruled = defaultdict(list), Counter()
    per_class = Counter()
    for c in cases:
        cls, kind, op = meta.get(c.get("name"), ("?", "?", "?"))
        per_class[cls] += 1
        if c.get("verdict") in ("passed", "knownDeviation"):
            continue
        diff = " ".join(c.get("differences") or [c.get("reason") or ""])
        if "but no layer serves" in diff:
            verdicts["neither serves"] += 1
            continue
        k = karmada.get(c.get("name"), "")
        c["karmadaError"] = k
        mutation = c["name"].split(" ~ ", 1)[-1]
        # the serving layer, or (when our side failed and no layer is named)
        # the kind as the bundled customizations are named, lower case
        by = f"{c.get('servedBy') or ''} {kind} {op} {kind.lower()}"
        rule = next((r for r, test in RULES if test(mutation, diff, k, by)), None)
        if rule:
            ruled[rule] += 1
            continue
        groups[(cls, kind, op)].append(c)
    mismatches = sum(len(v) for v in groups.values())
    print(f"seed {args.seed}, {args.per_case} mutations per case, {len(base)} base cases "
          f"({len(skip)} known deviations left out), {len(generated)} generated, "
          f"{len(cases)} compared; verdicts {dict(verdicts)}")
    print(f"per class: {dict(per_class)}")
    print(f"under COMPATIBILITY.md rules: {sum(ruled.values())} {dict(ruled)}")
    print(f"mismatches outside the rules: {mismatches}")
    for (cls, kind, op), cs in sorted(groups.items(), key=lambda kv: -len(kv[1])):
        print(f"\n== {len(cs)} {cls} {kind} {op}")
        for c in cs[: args.show]:
            print("  ", json.dumps(c, ensure_ascii=False)[:700])
    with open(os.path.join(args.work, "mismatches.json"), "w") as f:
        json.dump([c for cs in groups.values() for c in cs], f, ensure_ascii=False, indent=1)

if __name__ == "__main__":
    main()
