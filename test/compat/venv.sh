#!/usr/bin/env bash
# Creates (or reuses) the compatibility virtualenv with the exact pins of
# test/compat/requirements.txt and prints its path on stdout (messages go to stderr).
# Used by test/compat/run.sh and by benchmarks that start KServe's Python server.
# Env: PYTHON=python3.12   interpreter to build the virtualenv with (default python3.11 or python3)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
exec bash "$here/../../scripts/cached-venv.sh" compat -r "$here/requirements.txt"
