#!/usr/bin/env bash
# `cargo package` of every workspace crate, each verified: cargo builds the
# crate from its packaged .crate alone (in dependency order, with the
# workspace crates it depends on taken from the packages just made, not from
# the working tree), so a file a build needs but the package leaves out fails
# here. Tests, benches and examples are not part of the packages (their files
# lie outside what each package includes) and are not built.
#
# Verification builds no dev-dependencies, so k8s-openapi gets its Kubernetes
# version the way k8s-openapi documents for that case: K8S_OPENAPI_ENABLED_VERSION,
# here the version its `latest` feature picks.
#
# usage: tools/package-check.sh [cargo package flags, e.g. --allow-dirty or -p CRATE]
# Heavy (every crate's dependencies are built again): not part of .ci/run.
set -euo pipefail
cd "$(dirname "$0")/.."

latest=$(cargo metadata --format-version 1 --locked | python3 -c '
import json, sys
for pkg in json.load(sys.stdin)["packages"]:
    if pkg["name"] == "k8s-openapi":
        (feature,) = pkg["features"]["latest"]        # "v1_37"
        print(feature[1:].replace("_", "."))           # "1.37"
        break
')
echo "K8S_OPENAPI_ENABLED_VERSION=$latest"
if (($#)); then
    K8S_OPENAPI_ENABLED_VERSION=$latest cargo package "$@"
else
    K8S_OPENAPI_ENABLED_VERSION=$latest cargo package --workspace
fi
