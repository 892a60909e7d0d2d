#!/usr/bin/env bash
# Builds Traefik v3 (a Gateway API implementation that honours HTTPRoute backendRefs weights
# and header matches), for the one-node cluster's canary suite (test/cluster/node/), from its
# module zip on the Go module proxy, cached under
#   ${XDG_CACHE_HOME:-$HOME/.cache}/kserve-ts/traefik-<version>/bin/traefik
# Prints progress on stderr and only the binary's path on stdout (last line).
#
# Traefik's go.mod has replace directives, so it cannot be `go install`ed as a dependency; it
# builds as the main module inside its own (writable) unzipped module, as its Makefile's
# `binary` target does: CGO off, -trimpath, version stamped by -X. The web UI's bundle is not
# in the module zip (webui/static holds only a placeholder file, which satisfies the
# `//go:embed static`), so the dashboard is empty; the suites do not use it.
# scripts/build-images.sh traefik puts it into an image. The folder counts as built only once
# the stamp is written last; a flock serialises concurrent callers.
#
# Usage: scripts/traefik-binary.sh      (idempotent)
# Needs: go >= 1.24 (its go line; the local toolchain, nothing downloaded), unzip, flock.
set -euo pipefail

TRAEFIK_VERSION=v3.6.2 # go.mod: go 1.24.0
MODULE=github.com/traefik/traefik/v3

log() { echo "[traefik-binary] $*" >&2; }

cache_root="${XDG_CACHE_HOME:-$HOME/.cache}/kserve-ts"
cache="$cache_root/traefik-${TRAEFIK_VERSION}"
bin="$cache/bin/traefik"
stamp="$cache/.built"

# shellcheck source=cached-build-lock.sh
source "$(dirname "${BASH_SOURCE[0]}")/cached-build-lock.sh"
[[ -f "$stamp" ]] || command -v go >/dev/null 2>&1 || { log "a Go toolchain (>= 1.24) is needed to build traefik"; exit 1; }
cached_build_begin "$cache" "$stamp" "$bin" log

command -v unzip >/dev/null 2>&1 || { apt-get update -qq >&2; DEBIAN_FRONTEND=noninteractive apt-get install -y -qq unzip >&2; }
rm -rf "$cache/bin" "$cache/src"
mkdir -p "$cache/bin" "$cache/src"
export GOTOOLCHAIN=local GOFLAGS="-buildvcs=false" CGO_ENABLED=0

log "building traefik $TRAEFIK_VERSION ..."
start=$SECONDS
zip="$(GOFLAGS=-mod=mod go mod download -json "$MODULE@$TRAEFIK_VERSION" | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const j=JSON.parse(s);if(j.Error){console.error(j.Error);process.exit(1)}console.log(j.Zip)})')"
unzip -q "$zip" -d "$cache/src"
src="$cache/src/$MODULE@$TRAEFIK_VERSION"
chmod -R u+w "$src"
cd "$src"
[[ -n "$(ls -A webui/static 2>/dev/null)" ]] || { mkdir -p webui/static && echo "web UI not built" > webui/static/README.txt; }
go build -mod=readonly -trimpath \
  -ldflags="-s -w -X github.com/traefik/traefik/v3/pkg/version.Version=$TRAEFIK_VERSION -X github.com/traefik/traefik/v3/pkg/version.Codename=kserve-ts" \
  -o "$bin" ./cmd/traefik >&2
log "built in $((SECONDS - start))s"
rm -rf "$cache/src"
"$bin" version >&2 || true
touch "$stamp"
echo "$bin"
