#!/usr/bin/env bash
# The differential suite of kserve-ts's InferenceGraph router against KServe's own
# (test/router-differential/differential.test.ts). KServe's router always binds :8080 on
# every address, so the suite runs in a network namespace of its own (loopback only):
# nothing else on the machine can hold that port, and nothing leaves the namespace.
# Builds (or takes from ~/.cache/kserve-ts) KServe's router and the gjson CLI first.
set -euo pipefail
cd "$(dirname "$0")/../.."
bash scripts/graph-oracles.sh kserve-router >/dev/null
bash scripts/graph-oracles.sh gjson >/dev/null
if [[ $EUID -eq 0 ]]; then ns=(unshare --net); else ns=(unshare --net --map-root-user); fi
exec "${ns[@]}" -- bash -c 'ip link set lo up && exec npx vitest run --config vitest.e2e.config.ts test/router-differential'
