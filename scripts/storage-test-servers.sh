#!/usr/bin/env bash
# Installs the real storage servers the storage-initializer tests run on loopback, cached
# under ${XDG_CACHE_HOME:-~/.cache}/kserve-ts/ and keyed by version:
#   - moto (S3) from PyPI in a virtualenv
#   - fake-gcs-server (GCS emulator) built with `go install` from the Go module proxy
# Prints one JSON line {"moto": "<moto_server path>", "fakeGcs": "<binary path or null>"}.
# fake-gcs-server is optional: without a Go toolchain the GCS tests are skipped, and the
# script says so on stderr.
set -euo pipefail

MOTO_VERSION=5.2.5
FAKE_GCS_VERSION=v1.56.1

cache="${XDG_CACHE_HOME:-$HOME/.cache}/kserve-ts"
mkdir -p "$cache"
# Test files (s3, gcs) run in parallel workers and each calls this script: one installs, the
# others wait for it instead of racing on the same cache folders.
exec 9>"$cache/storage-test-servers.lock"
flock 9
venv="$(bash "$(dirname "${BASH_SOURCE[0]}")/cached-venv.sh" moto "moto[server]==$MOTO_VERSION")"
# A venv stamped installed but broken (two unlocked installs racing, before the lock above)
# is rebuilt once.
if ! "$venv/bin/python" -c 'import moto.server' >/dev/null 2>&1; then
  echo "storage-test-servers: $venv is broken, rebuilding it" >&2
  rm -rf "$venv"
  venv="$(bash "$(dirname "${BASH_SOURCE[0]}")/cached-venv.sh" moto "moto[server]==$MOTO_VERSION")"
fi

gcsdir="$cache/fake-gcs-server-$FAKE_GCS_VERSION"
fakegcs=null
if [ -x "$gcsdir/fake-gcs-server" ]; then
  fakegcs="\"$gcsdir/fake-gcs-server\""
elif command -v go >/dev/null 2>&1; then
  echo "storage-test-servers: building fake-gcs-server $FAKE_GCS_VERSION (go install, a few minutes the first time)" >&2
  rm -rf "$gcsdir.tmp"
  mkdir -p "$gcsdir.tmp"
  GOBIN="$gcsdir.tmp" CGO_ENABLED=0 go install "github.com/fsouza/fake-gcs-server@$FAKE_GCS_VERSION" >&2
  rm -rf "$gcsdir"
  mv "$gcsdir.tmp" "$gcsdir"
  fakegcs="\"$gcsdir/fake-gcs-server\""
else
  echo "storage-test-servers: no Go toolchain, GCS tests will be skipped" >&2
fi

echo "{\"moto\": \"$venv/bin/moto_server\", \"fakeGcs\": $fakegcs}"
