#!/usr/bin/env bash
# Python-client compatibility suite: KServe's and Triton's Python clients against a real
# `kserve-ts serve`, and differential tests against KServe's own Python model server.
#
# Creates (or reuses) a virtualenv per KServe release (test/compat/venv.sh: kserve==X.Y.Z and
# the exact pins of test/compat/requirements.txt) under
#   ${XDG_CACHE_HOME:-$HOME/.cache}/kserve-ts/compat-kserve<X.Y.Z>-venv-py<X.Y>-<hash>
# builds the server if dist/ is missing, then runs pytest twice: tritonclient.grpc and kserve
# both register the protobuf package `inference` in protobuf's default descriptor pool with
# different files, so they cannot be imported into one process. The tritonclient.grpc cases
# run in their own pytest process.
#
# Usage: test/compat/run.sh [extra pytest args, e.g. -k differential -x]
# Env:   PYTHON=python3.12   interpreter to build the virtualenv with (default python3.11 or python3)
#        KSERVE_RELEASE=0.20.0  the anchor release to run against (default: venv.sh's ANCHOR_KSERVE)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo_root="$(cd "$here/../.." && pwd)"
cd "$repo_root"

venv="$(bash "$here/venv.sh" ${KSERVE_RELEASE:+"$KSERVE_RELEASE"})"
echo "[compat] anchor: kserve $("$venv/bin/python" -c 'from importlib.metadata import version; print(version("kserve"))')" >&2
py="$venv/bin/python"

if [[ ! -f dist/bin/kserve-ts.js ]]; then
  echo "[compat] dist/ missing: npm run build" >&2
  npm run build
fi

export PYTHONDONTWRITEBYTECODE=1
# Both servers listen on loopback only; never send that traffic through a configured proxy
# (requests, httpx and gRPC all honour these).
export NO_PROXY="127.0.0.1,localhost${NO_PROXY:+,$NO_PROXY}"
export no_proxy="$NO_PROXY"

# pytest exit codes: 0 passed, 1 failures, 2 interrupted, 3 internal error, 4 usage error,
# 5 no tests collected. Any of 1-5 fails the suite. The one exception: with a filter such as
# `-k differential`, one of the two runs may select nothing; that is fine as long as the
# other ran tests.
rc_main=0
rc_triton=0
# test/compat/hf/ is a suite of its own (its own venv with torch and vLLM): hf/run.sh.
echo "[compat] kserve clients, raw HTTP, differential and ported anchor tests" >&2
"$py" -m pytest -p no:cacheprovider -ra test/compat \
  --ignore=test/compat/test_tritonclient_grpc.py --ignore=test/compat/test_graph_router.py --ignore=test/compat/hf "$@" || rc_main=$?
echo "[compat] tritonclient.grpc, also through the InferenceGraph router (its own process: see the header of this script)" >&2
"$py" -m pytest -p no:cacheprovider -ra test/compat/test_tritonclient_grpc.py test/compat/test_graph_router.py "$@" || rc_triton=$?

failed=0
for rc in "$rc_main" "$rc_triton"; do
  if [[ $rc -ne 0 && $rc -ne 5 ]]; then failed=1; fi
  if [[ $rc -eq 5 && $# -eq 0 ]]; then failed=1; fi
done
if [[ $rc_main -eq 5 && $rc_triton -eq 5 ]]; then failed=1; fi
if [[ $failed -ne 0 ]]; then
  echo "[compat] FAILED (pytest exit codes: main $rc_main, tritonclient.grpc $rc_triton; 5 = no tests collected)" >&2
  exit 1
fi
echo "[compat] passed" >&2
