#!/usr/bin/env bash
# Prints the folder holding KServe's huggingfaceserver package (python/huggingfaceserver of
# github.com/kserve/kserve at $KSERVE_VERSION) on stdout. huggingfaceserver is not on PyPI;
# the Go module proxy serves KServe's whole tree, python/ included, as the module zip, whose
# checksum `go mod download` verifies against the Go checksum database. The module cache
# (GOMODCACHE) keeps it: a second call is instant.
#
# Usage: test/compat/hf/huggingfaceserver-src.sh     (needs go; progress on stderr)
set -euo pipefail

KSERVE_VERSION=v0.20.0

command -v go >/dev/null 2>&1 || { echo "[hf] a Go toolchain is needed to fetch KServe's module zip" >&2; exit 1; }
dir="$(cd /tmp && GOFLAGS=-mod=mod GOTOOLCHAIN=local go mod download -json "github.com/kserve/kserve@$KSERVE_VERSION" |
  python3 -c 'import json, sys; print(json.load(sys.stdin)["Dir"])')"
src="$dir/python/huggingfaceserver"
if [[ ! -f "$src/huggingfaceserver/__main__.py" ]]; then
  echo "[hf] $src/huggingfaceserver/__main__.py missing from the kserve $KSERVE_VERSION module" >&2
  exit 1
fi
echo "$src"
