#!/usr/bin/env bash
# Creates (or reuses) a Python virtualenv with exact pins from PyPI, cached under
#   ${XDG_CACHE_HOME:-$HOME/.cache}/kserve-ts/<name>-venv-py<X.Y>-<hash of the pins>
# and prints its path on stdout (messages go to stderr). The hash covers the arguments and
# the contents of any `-r FILE`, so changing a pin makes a new environment.
#
# Usage: scripts/cached-venv.sh NAME PIP_INSTALL_ARGS...
#   e.g. scripts/cached-venv.sh moto "moto[server]==5.2.5"
#        scripts/cached-venv.sh compat-kserve0.21.0 kserve==0.21.0 -r test/compat/requirements.txt
# Env:   PYTHON=python3.12   interpreter (default python3.11 where present, else python3)
#
# Virtualenvs are not relocatable (console scripts carry absolute paths), so the folder is
# built in place and counts as installed only once a stamp file is written last: an
# interrupted install is rebuilt from scratch on the next run.
set -euo pipefail

name="$1"
shift
python_bin="${PYTHON:-}"
if [[ -z "$python_bin" ]]; then
  if command -v python3.11 >/dev/null 2>&1; then python_bin=python3.11; else python_bin=python3; fi
fi
py_ver="$("$python_bin" -c 'import sys; print(f"{sys.version_info[0]}.{sys.version_info[1]}")')"

# A requirements file counts by its content, not its path, so clones at different paths
# share the venv.
key_input=""
args=("$@")
for ((i = 0; i < ${#args[@]}; i++)); do
  if [[ "${args[$i]}" == "-r" ]]; then
    key_input+=$'\n'"-r $(cat "${args[$((i + 1))]}")"
    i=$((i + 1))
  else
    key_input+=$'\n'"${args[$i]}"
  fi
done
key="$(printf '%s' "$key_input" | sha256sum | cut -c1-12)"

cache_root="${XDG_CACHE_HOME:-$HOME/.cache}/kserve-ts"
venv="$cache_root/${name}-venv-py${py_ver}-${key}"
if [[ ! -f "$venv/.installed" ]]; then
  echo "[cached-venv] creating $venv" >&2
  rm -rf "$venv"
  mkdir -p "$cache_root"
  "$python_bin" -m venv "$venv" >&2
  "$venv/bin/python" -m pip install --quiet --no-input --disable-pip-version-check "$@" >&2
  touch "$venv/.installed"
else
  echo "[cached-venv] reusing $venv" >&2
fi
echo "$venv"
