#!/usr/bin/env bash
# Runs k6 with the given arguments. Uses `k6` from PATH when there is one; otherwise builds
# a pinned k6 from the Go module proxy once (`go install`, with the Go already installed:
# GOTOOLCHAIN=local, so no other toolchain is downloaded) into
#   ${XDG_CACHE_HOME:-$HOME/.cache}/kserve-ts/k6-<version>/k6
# and runs that. Build messages go to stderr.
#
# Usage: scripts/k6.sh run [k6 flags] benchmarks/k6/<script>.js
#   e.g. scripts/k6.sh run -e BASE_URL=http://127.0.0.1:8080 benchmarks/k6/v2-infer.js
# Env:   K6=/path/to/k6   use this binary instead of PATH or the cached build
#        K6_BUILD=1       ignore a k6 on PATH and use (or build) the pinned version
set -euo pipefail

# go.k6.io/k6 v1.8.1 declares `go 1.25.0`, so any Go ≥ 1.25 builds it without switching toolchains.
K6_VERSION=v1.8.1

if [[ -n "${K6:-}" ]]; then exec "$K6" "$@"; fi
if [[ -z "${K6_BUILD:-}" ]] && command -v k6 >/dev/null 2>&1; then exec k6 "$@"; fi

dir="${XDG_CACHE_HOME:-$HOME/.cache}/kserve-ts/k6-${K6_VERSION}"
if [[ ! -x "$dir/k6" ]]; then
  command -v go >/dev/null 2>&1 || { echo "[k6] k6 is not on PATH and Go is not installed to build it" >&2; exit 1; }
  echo "[k6] building go.k6.io/k6@${K6_VERSION} into $dir (first run only; several minutes)" >&2
  # Built into a scratch folder and moved into place last, so an interrupted build is redone.
  tmp="$(mktemp -d "${dir}.XXXXXX" 2>/dev/null || { mkdir -p "$(dirname "$dir")" && mktemp -d "${dir}.XXXXXX"; })"
  trap 'rm -rf "$tmp"' EXIT
  start=$SECONDS
  GOTOOLCHAIN=local GOBIN="$tmp" CGO_ENABLED=0 go install -trimpath -ldflags='-s -w' "go.k6.io/k6@${K6_VERSION}" >&2
  chmod 755 "$tmp"
  rm -rf "$dir"
  mv "$tmp" "$dir"
  trap - EXIT
  echo "[k6] built in $((SECONDS - start)) s" >&2
fi
exec "$dir/k6" "$@"
