#!/usr/bin/env bash
# The huggingfaceserver differential: kserve-ts's OpenAI routes (embeddings, rerank, models)
# against KServe's own huggingfaceserver v0.20.0 on the same random-weight BERT encoder, and
# the Python `openai` client against both (test_openai_differential.py).
#
# Everything comes from package registries and is cached under ~/.cache/kserve-ts:
#   huggingfaceserver-src.sh   KServe's python/huggingfaceserver from the kserve module zip (Go module proxy)
#   venv.sh                    kserve 0.20.0, torch, transformers, openai, pytest (PyPI)
#   generate-hf-encoders.sh    the models: safetensors for huggingfaceserver, ONNX for kserve-ts
# and builds dist/ if it is missing.
#
# Usage: test/compat/hf/run.sh [extra pytest args, e.g. -k embeddings -x]
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo_root="$(cd "$here/../../.." && pwd)"
cd "$repo_root"

HF_SERVER_SRC="$(bash "$here/huggingfaceserver-src.sh")"
venv="$(bash "$here/venv.sh")"
HF_ENCODERS="$(bash "$here/generate-hf-encoders.sh")"
export HF_SERVER_SRC HF_ENCODERS

if [[ ! -f dist/bin/kserve-ts.js ]]; then
  echo "[hf] dist/ missing: npm run build" >&2
  npm run build
fi

export PYTHONDONTWRITEBYTECODE=1
export NO_PROXY="127.0.0.1,localhost${NO_PROXY:+,$NO_PROXY}"
export no_proxy="$NO_PROXY"
# The test process runs the reference forward passes: one thread, as the servers.
export OMP_NUM_THREADS=1 TOKENIZERS_PARALLELISM=false HF_HUB_OFFLINE=1

# Its own rootdir: test/compat's conftest (the ONNX anchor's fixtures) stays out.
exec "$venv/bin/python" -m pytest -p no:cacheprovider -ra --rootdir "$here" "$here" "$@"
