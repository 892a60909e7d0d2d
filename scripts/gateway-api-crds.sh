#!/usr/bin/env bash
# Prints the folder of the Gateway API standard-channel CRDs (HTTPRoute, Gateway, ...) at a
# pinned version, taken from the sigs.k8s.io/gateway-api module on the Go module proxy (the
# module zip carries config/crd/standard/*.yaml; checksums are verified against the Go
# checksum database). The controller tests install them to test Standard mode's HTTPRoutes.
# Cached in the Go module cache: the first call downloads ~5.6 MB, later calls are instant.
#
# Usage: scripts/gateway-api-crds.sh        (prints the folder on stdout)
# Needs: go (any version that can `go mod download`), the Go module proxy.
set -euo pipefail
GATEWAY_API_VERSION="${GATEWAY_API_VERSION:-v1.4.1}"
# Outside any module, so the repository's files never matter.
cd "$(mktemp -d)"
trap 'rm -rf "$PWD"' EXIT
dir="$(GOFLAGS=-mod=mod go mod download -json "sigs.k8s.io/gateway-api@${GATEWAY_API_VERSION}" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p')"
if [[ -z "$dir" || ! -f "$dir/config/crd/standard/gateway.networking.k8s.io_httproutes.yaml" ]]; then
  echo "gateway-api-crds: sigs.k8s.io/gateway-api@${GATEWAY_API_VERSION} has no config/crd/standard (download failed?)" >&2
  exit 1
fi
echo "$dir/config/crd/standard"
