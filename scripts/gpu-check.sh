#!/usr/bin/env bash
# GPU check for a machine with an NVIDIA GPU and driver (>= 580, CUDA 13): installs the
# project and the CUDA execution provider from registries only, shows the GPU, then runs
# benchmarks/gpu-check.ts: conv_small and mlp_64x8 on CUDA vs CPU (outputs within 1e-3
# relative), and conv_small over REST binary and gRPC raw at c=1 and c=8, one table.
# Exit status 0 only when CUDA loaded, outputs agree and no request failed.
# Usage: bash scripts/gpu-check.sh        (GPU_CHECK_SECONDS=5 per point by default)
set -euo pipefail
cd "$(dirname "$0")/.."
export ONNXRUNTIME_NODE_INSTALL=skip   # npm ci must not fetch onnxruntime's NuGet CUDA build
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
[[ -d node_modules/onnxruntime-node ]] || npm ci
[[ -f dist/bin/kserve-ts.js ]] || npm run build
lib="$(bash scripts/install-cuda-ep.sh)"
CUDA_LIB_DIR="$lib" node --import tsx benchmarks/gpu-check.ts
