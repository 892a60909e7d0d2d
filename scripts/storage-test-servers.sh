#!/usr/bin/env bash
# Installs the real storage servers the storage-initializer tests run on loopback, cached
# under ${XDG_CACHE_HOME:-~/.cache}/kserve-ts/ and keyed by version:
#   - moto (S3) from PyPI in a virtualenv
#   - fake-gcs-server (GCS emulator) built with `go install` from the Go module proxy
#   - Azurite (Azure Blob emulator, MIT) from the npm registry, install scripts off
#   - gofakes3 (a second S3 server, serves ranges from memory: the benchmark's contrast to
#     moto) built from a three-line main against the Go module proxy
# Prints one JSON line {"moto": "<moto_server path>", "fakeGcs": "<binary path or null>",
# "azurite": "<azurite-blob path>", "gofakes3": "<binary path or null>"}.
# The Go-built servers are optional: without a Go toolchain the GCS tests are skipped, and
# the script says so on stderr.
set -euo pipefail

MOTO_VERSION=5.2.5
FAKE_GCS_VERSION=v1.56.1
AZURITE_VERSION=3.37.0
GOFAKES3_VERSION=v1.2.0

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

azdir="$cache/azurite-$AZURITE_VERSION"
if [ ! -x "$azdir/node_modules/.bin/azurite-blob" ]; then
  echo "storage-test-servers: installing azurite $AZURITE_VERSION from the npm registry" >&2
  rm -rf "$azdir.tmp"
  mkdir -p "$azdir.tmp"
  echo '{"name": "kserve-ts-azurite", "private": true}' >"$azdir.tmp/package.json"
  (cd "$azdir.tmp" && npm install --no-audit --no-fund --ignore-scripts --loglevel=error "azurite@$AZURITE_VERSION" >&2)
  rm -rf "$azdir"
  mv "$azdir.tmp" "$azdir"
fi

s3dir="$cache/gofakes3-$GOFAKES3_VERSION"
gofakes3=null
if [ -x "$s3dir/gofakes3-server" ]; then
  gofakes3="\"$s3dir/gofakes3-server\""
elif command -v go >/dev/null 2>&1; then
  echo "storage-test-servers: building gofakes3 $GOFAKES3_VERSION (Go module proxy)" >&2
  rm -rf "$s3dir.tmp"
  mkdir -p "$s3dir.tmp/src"
  cat >"$s3dir.tmp/src/main.go" <<'GO'
// An in-memory S3 server on -addr (gofakes3 with its s3mem backend).
package main

import (
	"flag"
	"log"
	"net/http"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:9000", "listen address")
	flag.Parse()
	log.Fatal(http.ListenAndServe(*addr, gofakes3.New(s3mem.New()).Server()))
}
GO
  printf 'module kserve-ts/gofakes3-server\n\ngo 1.22\n' >"$s3dir.tmp/src/go.mod"
  (cd "$s3dir.tmp/src" && go get "github.com/johannesboyne/gofakes3@$GOFAKES3_VERSION" >&2 && CGO_ENABLED=0 go build -o "$s3dir.tmp/gofakes3-server" . >&2)
  rm -rf "$s3dir"
  mv "$s3dir.tmp" "$s3dir"
  gofakes3="\"$s3dir/gofakes3-server\""
fi

echo "{\"moto\": \"$venv/bin/moto_server\", \"fakeGcs\": $fakegcs, \"azurite\": \"$azdir/node_modules/.bin/azurite-blob\", \"gofakes3\": $gofakes3}"
