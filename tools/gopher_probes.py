#!/usr/bin/env python3
"""Fills (or checks) the expected outputs of tests/data/gopher-probes/*.yaml with
Karmada's answers.

Each probe is a Lua function body that computes a value (usually a string).
Every probe becomes a ResourceInterpreterCustomization of its own kind whose
InterpretStatus script is

    function ReflectStatus(observedObj)
      return {v = (function(obj) <probe body> end)(observedObj)}
    end

(tests/data/gopher-probes/wrapper.lua, which also gives the probes the
helpers `s(...)` and `keys(t)`) and one case per probe is answered by Karmada's declarative interpreter (the
gopher-lua engine `karmadactl interpret` runs), through the `oracle` binary
built from Karmada's sources (see the project's anchor tooling):

    tools/gopher_probes.py --oracle PATH/TO/oracle [--check] [FILE...]

Without --check, each probe's `karmada` field is (re)written: `{value: V}`
with the `v` Karmada reflected (absent when the probe returned nil), or
`{error: MESSAGE}` with Karmada's whitespace-normalized error. With --check,
the files are left alone and the probes whose recorded answer differs from
Karmada's are listed.
"""
import argparse
import glob
import json
import os
import subprocess
import sys
import tempfile

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "tests", "data", "gopher-probes")
with open(os.path.join(DATA, "object.json")) as _fh:
    OBJECT = json.load(_fh)


with open(os.path.join(DATA, "wrapper.lua")) as _fh:
    WRAPPER = _fh.read()


def script(body):
    return WRAPPER.replace("@BODY@", body.rstrip("\n"))


def load(files):
    out = []
    for f in files:
        with open(f) as fh:
            header = []
            for line in fh:
                if line.startswith("#"):
                    header.append(line)
                else:
                    break
        with open(f) as fh:
            probes = yaml.safe_load(fh) or []
        out.append((f, "".join(header), probes))
    return out


def run_oracle(oracle, probes):
    customs, cases = [], []
    for i, p in enumerate(probes):
        kind = "P%d" % i
        customs.append({
            "apiVersion": "config.karmada.io/v1alpha1",
            "kind": "ResourceInterpreterCustomization",
            "metadata": {"name": "probe-%d" % i},
            "spec": {
                "target": {"apiVersion": "probe.example.io/v1", "kind": kind},
                "customizations": {"statusReflection": {"luaScript": script(p["script"])}},
            },
        })
        obj = dict(OBJECT)
        obj["kind"] = kind
        cases.append({"name": p["name"], "operation": "InterpretStatus", "observedObj": obj})
    with tempfile.TemporaryDirectory() as d:
        cpath = os.path.join(d, "c.yaml")
        with open(cpath, "w") as fh:
            yaml.safe_dump_all(customs, fh)
        res = subprocess.run([oracle, "-c", cpath], input=yaml.safe_dump_all(cases),
                             capture_output=True, text=True, check=True)
    answers = []
    for doc in res.stdout.split("\n---\n"):
        err = None
        lines = doc.split("\n")
        if lines and lines[0].startswith("# karmada error: "):
            # the engine reports the message without gopher-lua's traceback
            err = lines[0][len("# karmada error: "):].split(" stack traceback:")[0]
        case = yaml.safe_load(doc)
        if err is not None:
            answers.append({"error": err})
        else:
            status = (case.get("output") or {}).get("status") or {}
            answers.append({"value": status["v"]} if "v" in status else {})
    if len(answers) != len(probes):
        sys.exit("oracle answered %d cases for %d probes" % (len(answers), len(probes)))
    return answers


class _Dumper(yaml.SafeDumper):
    pass


def _str(dumper, s):
    style = "|" if "\n" in s else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", s, style=style)


_Dumper.add_representer(str, _str)


def dump(path, header, probes):
    with open(path, "w") as fh:
        fh.write(header)
        for p in probes:
            fh.write(yaml.dump([p], Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=1000))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--oracle", required=True)
    ap.add_argument("--check", action="store_true")
    ap.add_argument("files", nargs="*")
    a = ap.parse_args()
    files = a.files or sorted(glob.glob(os.path.join(DATA, "*.yaml")))
    sets = load(files)
    allp = [p for _, _, ps in sets for p in ps]
    answers = run_oracle(a.oracle, allp)
    bad = 0
    k = 0
    for path, header, probes in sets:
        for p in probes:
            ans = answers[k]
            k += 1
            if a.check:
                if p.get("karmada") != ans:
                    bad += 1
                    print("%s: %s: recorded %s, Karmada %s" % (os.path.basename(path), p["name"],
                          json.dumps(p.get("karmada")), json.dumps(ans)))
            else:
                p["karmada"] = ans
        if not a.check:
            dump(path, header, probes)
    print("%d probes, %d differ from Karmada" % (len(allp), bad) if a.check else
          "%d probes filled" % len(allp))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
