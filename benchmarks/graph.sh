#!/usr/bin/env bash
# The InferenceGraph router benchmark (benchmarks/run-graph.ts) in a network namespace of
# its own: KServe's router binds :8080 on every address. Arguments go to run-graph.ts.
set -euo pipefail
cd "$(dirname "$0")/.."
[[ -f dist/bin/router.js ]] || npm run build
bash scripts/graph-oracles.sh kserve-router >/dev/null
if [[ $EUID -eq 0 ]]; then ns=(unshare --net); else ns=(unshare --net --map-root-user); fi
exec "${ns[@]}" -- bash -c 'ip link set lo up && exec node --import tsx benchmarks/run-graph.ts "$@"' graph "$@"
