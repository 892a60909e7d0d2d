#!/usr/bin/env bash
# Builds the huggingfaceserver differential's models (generate_hf_encoders.py: a tiny BERT
# encoder and cross-encoder with random weights, as safetensors for huggingfaceserver and as
# ONNX for kserve-ts) and prints the folder holding them on stdout.
#
# Cached under ${XDG_CACHE_HOME:-$HOME/.cache}/kserve-ts/hf-encoders-<hash>[-base], the hash
# covering both generators (the fixtures' tokenizer comes from
# test/fixtures/generate_text_encoders.py) and the virtualenv's pins; a folder counts as built
# once renamed into place, and a flock serialises concurrent callers.
#
# Usage: test/compat/hf/generate-hf-encoders.sh [--base]
#   --base   the benchmark's BERT-base-sized encoder instead (about 700 MB: weights twice)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
suffix=""
args=()
if [[ "${1:-}" == "--base" ]]; then suffix="-base"; args=(--base); fi
key="$(cat "$here/generate_hf_encoders.py" "$here/../../fixtures/generate_text_encoders.py" "$here/requirements.txt" | sha256sum | cut -c1-12)"
cache_root="${XDG_CACHE_HOME:-$HOME/.cache}/kserve-ts"
out="$cache_root/hf-encoders-$key$suffix"

mkdir -p "$cache_root"
exec 9>"$out.lock"
flock 9
if [[ ! -d "$out" ]]; then
  venv="$(bash "$here/venv.sh")"
  tmp="$out.tmp.$$"
  rm -rf "$tmp"
  echo "[hf] building $out" >&2
  PYTHONDONTWRITEBYTECODE=1 "$venv/bin/python" "$here/generate_hf_encoders.py" --out "$tmp" "${args[@]}" >&2
  mv "$tmp" "$out"
fi
echo "$out"
