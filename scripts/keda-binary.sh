#!/usr/bin/env bash
# Builds KEDA's operator (github.com/kedacore/keda/v2 cmd/operator: ScaledObjects, their HPA,
# and the 0 <-> 1 activation that scales to zero) for the one-node cluster's KEDA suite
# (test/cluster/node/keda.test.ts), from its module zip on the Go module proxy, cached under
#   ${XDG_CACHE_HOME:-$HOME/.cache}/kserve-ts/keda-<version>/bin/keda
# with the release's CRDs and RBAC beside it (config/crd/bases, config/rbac from the same zip).
# Prints progress on stderr and only the binary's path on stdout (last line).
#
# KEDA's go.mod has replace directives, so it builds as the main module inside its own zip,
# as its Makefile does (CGO off, version stamped by -X). v2.21.1 needs go >= 1.27.4; v2.21.0
# is the newest release whose go line (1.26.0) the local toolchain meets. The metrics adapter
# (cmd/adapter, N > 1 through the HPA's external metrics) and the admission webhooks are not
# built. scripts/build-images.sh keda puts the binary into an image. The folder counts as
# built only once the stamp is written last; a flock serialises concurrent callers.
#
# Usage: scripts/keda-binary.sh      (idempotent)
# Needs: go >= 1.26 (no other toolchain is downloaded), unzip, flock.
set -euo pipefail

KEDA_VERSION=v2.21.0 # go.mod: go 1.26.0
MODULE=github.com/kedacore/keda/v2

log() { echo "[keda-binary] $*" >&2; }

cache_root="${XDG_CACHE_HOME:-$HOME/.cache}/kserve-ts"
cache="$cache_root/keda-${KEDA_VERSION}"
bin="$cache/bin/keda"
stamp="$cache/.built"

# shellcheck source=cached-build-lock.sh
source "$(dirname "${BASH_SOURCE[0]}")/cached-build-lock.sh"
[[ -f "$stamp" ]] || command -v go >/dev/null 2>&1 || { log "a Go toolchain (>= 1.26) is needed to build KEDA"; exit 1; }
cached_build_begin "$cache" "$stamp" "$bin" log

command -v unzip >/dev/null 2>&1 || { apt-get update -qq >&2; DEBIAN_FRONTEND=noninteractive apt-get install -y -qq unzip >&2; }
rm -rf "$cache/bin" "$cache/src" "$cache/config"
mkdir -p "$cache/bin" "$cache/src" "$cache/config"
export GOTOOLCHAIN=local GOFLAGS="-buildvcs=false" CGO_ENABLED=0

log "building the KEDA operator $KEDA_VERSION ..."
start=$SECONDS
zip="$(go mod download -json "$MODULE@$KEDA_VERSION" | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const j=JSON.parse(s);if(j.Error){console.error(j.Error);process.exit(1)}console.log(j.Zip)})')"
unzip -q "$zip" -d "$cache/src"
src="$cache/src/$MODULE@$KEDA_VERSION"
cp -r "$src/config/crd/bases" "$cache/config/crd"
cp -r "$src/config/rbac" "$cache/config/rbac"
cd "$src"
go build -mod=readonly -trimpath \
  -ldflags="-s -w -X=$MODULE/version.Version=${KEDA_VERSION#v} -X=$MODULE/version.GitCommit=$KEDA_VERSION" \
  -o "$bin" ./cmd/operator >&2
log "built in $((SECONDS - start))s"
cd "$cache"
rm -rf "$cache/src"
touch "$stamp"
echo "$bin"
