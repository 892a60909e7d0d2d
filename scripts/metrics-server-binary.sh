#!/usr/bin/env bash
# Builds metrics-server (the resource metrics API, metrics.k8s.io, that HPA's cpu and memory
# targets read), for the one-node cluster's autoscaling suite (test/cluster/node/), from its
# module zip on the Go module proxy, cached under
#   ${XDG_CACHE_HOME:-$HOME/.cache}/kserve-ts/metrics-server-<version>/bin/metrics-server
# Prints progress on stderr and only the binary's path on stdout (last line).
#
# The module builds as the main module inside its own zip (its go.mod and go.sum pin every
# dependency), as the project's Makefile does: CGO off, -trimpath, version stamped by -X.
# scripts/build-images.sh metrics-server puts it into an image. The folder counts as built
# only once the stamp is written last; a flock serialises concurrent callers.
#
# Usage: scripts/metrics-server-binary.sh      (idempotent)
# Needs: go >= 1.24.4 (its go line; the local toolchain, nothing downloaded), unzip, flock.
set -euo pipefail

METRICS_SERVER_VERSION=v0.8.0 # go.mod: go 1.24.4
MODULE=sigs.k8s.io/metrics-server

log() { echo "[metrics-server-binary] $*" >&2; }

cache_root="${XDG_CACHE_HOME:-$HOME/.cache}/kserve-ts"
cache="$cache_root/metrics-server-${METRICS_SERVER_VERSION}"
bin="$cache/bin/metrics-server"
stamp="$cache/.built"

# shellcheck source=cached-build-lock.sh
source "$(dirname "${BASH_SOURCE[0]}")/cached-build-lock.sh"
[[ -f "$stamp" ]] || command -v go >/dev/null 2>&1 || { log "a Go toolchain (>= 1.24) is needed to build metrics-server"; exit 1; }
cached_build_begin "$cache" "$stamp" "$bin" log

command -v unzip >/dev/null 2>&1 || { apt-get update -qq >&2; DEBIAN_FRONTEND=noninteractive apt-get install -y -qq unzip >&2; }
rm -rf "$cache/bin" "$cache/src"
mkdir -p "$cache/bin" "$cache/src"
export GOTOOLCHAIN=local GOFLAGS="-buildvcs=false" CGO_ENABLED=0

log "building metrics-server $METRICS_SERVER_VERSION ..."
start=$SECONDS
zip="$(go mod download -json "$MODULE@$METRICS_SERVER_VERSION" | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const j=JSON.parse(s);if(j.Error){console.error(j.Error);process.exit(1)}console.log(j.Zip)})')"
unzip -q "$zip" -d "$cache/src"
cd "$cache/src/$MODULE@$METRICS_SERVER_VERSION"
go build -mod=readonly -trimpath \
  -ldflags="-s -w -X k8s.io/client-go/pkg/version.gitVersion=$METRICS_SERVER_VERSION" \
  -o "$bin" ./cmd/metrics-server >&2
log "built in $((SECONDS - start))s"
rm -rf "$cache/src"
"$bin" --version >&2 || true
touch "$stamp"
echo "$bin"
