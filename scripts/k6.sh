#!/usr/bin/env bash
# Runs the k6 scripts in benchmarks/k6/ with a k6 the user provides. k6 is AGPL-licensed,
# so this project neither builds nor downloads it: install it yourself (your OS package,
# the k6 release you trust) and put it on PATH, or point K6 at the binary.
#
# Usage: scripts/k6.sh run [k6 flags] benchmarks/k6/<script>.js
#   e.g. scripts/k6.sh run -e BASE_URL=http://127.0.0.1:8080 benchmarks/k6/v2-infer.js
# Env:   K6=/path/to/k6   use this binary instead of the one on PATH
set -euo pipefail

if [[ -n "${K6:-}" ]]; then exec "$K6" "$@"; fi
if command -v k6 >/dev/null 2>&1; then exec k6 "$@"; fi
echo "[k6] no k6 found: install k6 yourself (it is AGPL-licensed, so kserve-ts does not build or ship it) and put it on PATH, or set K6=/path/to/k6" >&2
exit 127
