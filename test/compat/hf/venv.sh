#!/usr/bin/env bash
# Creates (or reuses) the virtualenv of the huggingfaceserver differential and prints its
# path on stdout (messages on stderr): the exact pins of requirements.txt here (kserve 0.20.0
# and vLLM 0.24.0, whose OpenAI types kserve's routes are built on; torch, transformers, the
# Python `openai` client, onnx for the export, pytest), cached under
#   ${XDG_CACHE_HOME:-$HOME/.cache}/kserve-ts/hf-anchor-venv-py<X.Y>-<hash of the arguments>
# by scripts/cached-venv.sh. torch and vLLM from PyPI are CUDA builds: with their nvidia-*
# wheels the environment is about 7 GiB (it runs on the CPU).
#
# pip's own HTTP cache stays empty on these machines, so the wheels are kept in a wheelhouse
# beside the venv (hf-anchor-wheels-<hash of requirements.txt>, about 4 GiB), downloaded
# once with `pip wheel` (an sdist is built into a wheel there), and the venv is installed from
# it offline (--no-index): a rebuild after a pin change downloads only what changed.
#
# Usage: test/compat/hf/venv.sh
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
requirements="$here/requirements.txt"
cache_root="${XDG_CACHE_HOME:-$HOME/.cache}/kserve-ts"
wheels="$cache_root/hf-anchor-wheels-$(sha256sum "$requirements" | cut -c1-12)"
python_bin="${PYTHON:-}"
if [[ -z "$python_bin" ]]; then
  if command -v python3.11 >/dev/null 2>&1; then python_bin=python3.11; else python_bin=python3; fi
fi

mkdir -p "$cache_root"
exec 9>"$wheels.lock"
flock 9
if [[ ! -f "$wheels/.complete" ]]; then
  echo "[hf] downloading the wheels of $requirements into $wheels" >&2
  mkdir -p "$wheels"
  # Files already in the folder (an interrupted or older download) are not fetched again.
  "$python_bin" -m pip wheel --quiet --no-input --disable-pip-version-check -r "$requirements" -w "$wheels" >&2
  touch "$wheels/.complete"
fi
PYTHON="$python_bin" bash "$here/../../../scripts/cached-venv.sh" hf-anchor --no-index --find-links "$wheels" -r "$requirements"
