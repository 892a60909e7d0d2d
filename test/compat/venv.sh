#!/usr/bin/env bash
# Creates (or reuses) the compatibility virtualenv with the exact pins of
# test/compat/requirements.txt and prints its path on stdout (messages go to stderr):
#   ${XDG_CACHE_HOME:-$HOME/.cache}/kserve-ts/compat-venv-py<X.Y>-<hash of requirements.txt>
# Used by test/compat/run.sh and by benchmarks that start KServe's Python server.
# Env: PYTHON=python3.12   interpreter to build the virtualenv with (default python3.11 or python3)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

python_bin="${PYTHON:-}"
if [[ -z "$python_bin" ]]; then
  if command -v python3.11 >/dev/null 2>&1; then python_bin=python3.11; else python_bin=python3; fi
fi
py_ver="$("$python_bin" -c 'import sys; print(f"{sys.version_info[0]}.{sys.version_info[1]}")')"
req_hash="$(sha256sum "$here/requirements.txt" | cut -c1-12)"
cache_root="${XDG_CACHE_HOME:-$HOME/.cache}/kserve-ts"
venv="$cache_root/compat-venv-py${py_ver}-${req_hash}"

if [[ ! -f "$venv/.installed" ]]; then
  echo "[compat] creating virtualenv $venv" >&2
  mkdir -p "$cache_root"
  # Build beside the final path and rename into place, so that an interrupted install or a
  # concurrent run never leaves a half-built environment behind the final name. Everything
  # below runs `python -m ...`, which does not depend on the folder's name.
  staging="$(mktemp -d "$venv.staging.XXXXXX")"
  trap 'rm -rf "$staging"' EXIT
  "$python_bin" -m venv "$staging" >&2
  "$staging/bin/python" -m pip install --quiet --no-input -r "$here/requirements.txt" >&2
  touch "$staging/.installed"
  if [[ -f "$venv/.installed" ]]; then
    echo "[compat] another run installed $venv meanwhile; using it" >&2
  else
    rm -rf "$venv"
    mv -T "$staging" "$venv"
  fi
  rm -rf "$staging"
  trap - EXIT
else
  echo "[compat] reusing virtualenv $venv" >&2
fi
echo "$venv"
