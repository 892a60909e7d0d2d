#!/usr/bin/env bash
# Creates (or reuses) the compatibility virtualenv for one KServe release and prints its path
# on stdout (messages go to stderr): kserve==VERSION plus the exact pins of
# test/compat/requirements.txt, cached under ~/.cache/kserve-ts as
# compat-kserve<VERSION>-venv-py<X.Y>-<hash> (scripts/cached-venv.sh), so each release has its
# own cached environment and a cold cache builds it from PyPI.
# Used by test/compat/run.sh and by benchmarks that start KServe's Python server.
#
# Usage: test/compat/venv.sh [VERSION]   default: the anchor release, ANCHOR_KSERVE below
# Env:   PYTHON=python3.12   interpreter to build the virtualenv with (default python3.11 or python3)
set -euo pipefail

# The release the compatibility suite and the benchmarks compare against: the newest on PyPI
# when it was last moved. Moving from 0.20.0, the suite gave the same results on both (same
# passes, same known differences), so 0.20.0 is not kept as a second run; run it with
# `KSERVE_RELEASE=0.20.0 test/compat/run.sh` (its own cached virtualenv).
ANCHOR_KSERVE=0.21.0

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
version="${1:-$ANCHOR_KSERVE}"
if [[ ! "$version" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]]; then
  echo "[compat] not a KServe release: '$version' (want X.Y.Z)" >&2
  exit 2
fi
exec bash "$here/../../scripts/cached-venv.sh" "compat-kserve${version}" "kserve==${version}" -r "$here/requirements.txt"
