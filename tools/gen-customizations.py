#!/usr/bin/env python3
"""N distinct, valid ResourceInterpreterCustomization documents in one file.

    tools/gen-customizations.py N OUT.yaml [--cases CASES.yaml] [--broken EVERY]

Each customization targets its own kind (`Widget<i>` in one of a few groups
and versions) and has three to six rules, each a multi-line Lua script, the
rule set varying with `i`, so the file looks like a large hand-written one.
`--cases` also writes golden cases (two per customization among the first
five) for `karmada-interpreter test -f OUT.yaml CASES.yaml`. `--broken EVERY`
makes the health script of every EVERY-th customization call a field of a
nil value at run time and leaves out the entry function of its retention
rule, so `check` reports a problem there (and locates it in the file).

Only the standard library: tools/scale.sh uses it to measure how the
commands grow with the number of customizations, and benches/scale.rs how
a call, the start-up and the memory of the library and of `serve` do.
"""

import argparse
import sys

GROUPS = ["apps.example.io", "batch.example.io", "data.example.org", "net.example.com",
          "ml.example.dev", "storage.example.io", "ops.example.net"]
VERSIONS = ["v1", "v1beta1", "v1alpha2", "v2"]

HEALTH = """\
function InterpretHealth(observedObj)
  if observedObj.status == nil then
    return false
  end
  local want = observedObj.spec.replicas or {n}
  local ready = observedObj.status.readyReplicas or 0
  if observedObj.status.observedGeneration ~= observedObj.metadata.generation then
    return false
  end
  return ready >= want
end
"""

BROKEN_HEALTH = """\
function InterpretHealth(observedObj)
  local missing = nil
  -- customization {n} reads a field of nothing
  return missing.ready == true
end
"""

REPLICA = """\
local kube = require("kube")
function GetReplicas(obj)
  local replica = obj.spec.replicas or 1
  local requirement = kube.accuratePodRequirements(obj.spec.template)
  if replica > {n} then
    replica = replica
  end
  return replica, requirement
end
"""

REVISE = """\
function ReviseReplica(obj, desiredReplica)
  -- kind {kind}
  obj.spec.replicas = desiredReplica
  return obj
end
"""

RETAIN = """\
function Retain(desiredObj, observedObj)
  if observedObj.spec.paused ~= nil then
    desiredObj.spec.paused = observedObj.spec.paused
  end
  desiredObj.metadata.annotations = desiredObj.metadata.annotations or {{}}
  desiredObj.metadata.annotations["example.io/retained-{n}"] = "true"
  return desiredObj
end
"""

BROKEN_RETAIN = """\
function Keep(desiredObj, observedObj)
  return desiredObj
end
"""

REFLECT = """\
function ReflectStatus(observedObj)
  if observedObj.status == nil then
    return {{}}
  end
  return {{
    readyReplicas = observedObj.status.readyReplicas,
    observedGeneration = observedObj.metadata.generation,
    phase = observedObj.status.phase or "Pending{n}",
  }}
end
"""

AGGREGATE = """\
function AggregateStatus(desiredObj, statusItems)
  if statusItems == nil then
    return desiredObj
  end
  local ready = 0
  for i = 1, #statusItems do
    local s = statusItems[i].status
    if s ~= nil and s.readyReplicas ~= nil then
      ready = ready + s.readyReplicas
    end
  end
  desiredObj.status = desiredObj.status or {{}}
  desiredObj.status.readyReplicas = ready
  desiredObj.status.members{n} = #statusItems
  return desiredObj
end
"""

DEPENDENCIES = """\
function GetDependencies(desiredObj)
  local refs = {{}}
  local spec = desiredObj.spec or {{}}
  if spec.configRef ~= nil then
    table.insert(refs, {{
      apiVersion = "v1",
      kind = "ConfigMap",
      namespace = desiredObj.metadata.namespace,
      name = spec.configRef,
    }})
  end
  -- {n} dependencies at most
  return refs
end
"""

# (member, template), the optional rules in the order they rotate.
OPTIONAL = [
    ("replicaRevision", REVISE),
    ("retention", RETAIN),
    ("statusReflection", REFLECT),
    ("statusAggregation", AGGREGATE),
    ("dependencyInterpretation", DEPENDENCIES),
]


def target(i):
    group = GROUPS[i % len(GROUPS)]
    version = VERSIONS[(i // len(GROUPS)) % len(VERSIONS)]
    return f"{group}/{version}", f"Widget{i}"


def script_block(text, indent=8):
    pad = " " * indent
    return "".join(pad + line + "\n" if line else "\n" for line in text.splitlines())


def customization(i, broken):
    api_version, kind = target(i)
    rules = [("healthInterpretation", BROKEN_HEALTH if broken else HEALTH),
             ("replicaResource", REPLICA)]
    # One to four of the optional rules, starting at a place that turns with i.
    count = 1 + i % 4
    for k in range(count):
        member, template = OPTIONAL[(i + k) % len(OPTIONAL)]
        if broken and member == "retention":
            template = BROKEN_RETAIN
        rules.append((member, template))
    out = [
        "apiVersion: config.karmada.io/v1alpha1",
        "kind: ResourceInterpreterCustomization",
        "metadata:",
        f"  name: widget-{i}",
        "spec:",
        "  target:",
        f"    apiVersion: {api_version}",
        f"    kind: {kind}",
        "  customizations:",
    ]
    text = "\n".join(out) + "\n"
    for member, template in rules:
        text += f"    {member}:\n      luaScript: |\n"
        text += script_block(template.format(n=i + 1, kind=kind))
    return text


def cases(i):
    api_version, kind = target(i)
    obj = (f"  apiVersion: {api_version}\n  kind: {kind}\n"
           f"  metadata:\n    name: w{i}\n    namespace: default\n    generation: 2\n"
           f"  spec:\n    replicas: 2\n")
    return [
        f"name: {kind} healthy\noperation: InterpretHealth\nobservedObj:\n{obj}"
        f"  status:\n    readyReplicas: 2\n    observedGeneration: 2\n"
        f"output:\n  healthy: true\n",
        f"name: {kind} not yet healthy\noperation: InterpretHealth\nobservedObj:\n{obj}"
        f"  status:\n    readyReplicas: 1\n    observedGeneration: 2\n"
        f"output:\n  healthy: false\n",
    ]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("count", type=int)
    parser.add_argument("out")
    parser.add_argument("--cases", help="also write golden cases for the first customizations")
    parser.add_argument("--broken", type=int, default=0, metavar="EVERY",
                        help="every EVERY-th customization has failing scripts")
    args = parser.parse_args()
    with open(args.out, "w") as f:
        f.write("---\n".join(
            customization(i, args.broken > 0 and i % args.broken == args.broken - 1)
            for i in range(args.count)))
    if args.cases:
        with open(args.cases, "w") as f:
            f.write("---\n".join(c for i in range(min(5, args.count)) for c in cases(i)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
