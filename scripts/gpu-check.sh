#!/usr/bin/env bash
# The GPU check, prepared on this machine for a GPU machine that has no Node and no package
# registry, takes at most 64 MiB per run (the checkout included) and keeps files between runs
# only for about 30 s. It has Python 3.12 with torch, NVIDIA's CUDA 13 and cuDNN 9 wheels,
# onnx, torchvision and transformers. So the check travels as two bundles, one per run:
#
#   .gpu/p1  onnxruntime's CUDA provider (from scripts/install-cuda-ep.sh's cache) trimmed to
#            one GPU architecture's cubins (scripts/gpu/fatbin-trim.py) and xz'd, and the
#            provider bridge: run 1 (scripts/gpu/run1.sh) unpacks it, finds the machine's CUDA
#            libraries and exports ResNet-50 and BERT-base to ONNX with torch;
#   .gpu/p2  Node, the built server with its production dependencies (linux-x64 only, no
#            TensorFlow or cloud SDKs: not needed to serve ONNX), and the runner
#            (benchmarks/gpu-check.ts bundled with esbuild): run 2 (scripts/gpu/run2.sh)
#            runs a CUDA server and a CPU server side by side: outputs compared, then REST
#            and gRPC load with dynamic batching off and on, RSS and GPU memory, one table.
#
# Usage: bash scripts/gpu-check.sh            prepare both and print the two runs to make there
#        bash scripts/gpu-check.sh --smoke    also run the second bundle here, on the cpu with
#                                             fixture models (checks the bundles without a GPU)
# GPU_ARCH: the cubins kept, 90 for H100/H200 (default), 80 for A100, 89 for L4/L40S.
# Expensive pieces are cached under ${XDG_CACHE_HOME:-$HOME/.cache}/kserve-ts/gpu-check/: the
# trimmed provider by onnxruntime version and architecture, Node by its version, the packed
# production node_modules by package-lock.json's hash (only dist/ is packed every time).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
log() { echo "[gpu-check] $*" >&2; }
smoke=false
[[ "${1:-}" == --smoke ]] && smoke=true
arch="${GPU_ARCH:-90}"
LIMIT=$((64 * 1024 * 1024))
[[ -f dist/bin/kserve-ts.js ]] || { log "run from a built checkout (npm ci builds dist/)"; exit 1; }
export ONNXRUNTIME_NODE_INSTALL=skip   # npm must not fetch onnxruntime's NuGet CUDA build

ort="$(node -p "require('./package-lock.json').packages['node_modules/onnxruntime-node'].version")"
lock_hash="$(sha256sum package-lock.json | cut -c1-16)"
node_bin="$(readlink -f "$(command -v node)")"
node_version="$(node --version)"
cache="${XDG_CACHE_HOME:-$HOME/.cache}/kserve-ts/gpu-check"
mkdir -p "$cache"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
rm -rf .gpu && mkdir -p .gpu/p1 .gpu/p2

# ---- run 1's bundle: the provider, trimmed to one architecture.
lib="$(bash scripts/install-cuda-ep.sh)"
trimmed="$cache/cuda-ep-ort$ort-sm$arch.xz"
if [[ ! -f "$trimmed" ]]; then
  log "trimming the CUDA provider to sm_$arch and compressing it (xz -9e, a few minutes; cached)"
  python3 scripts/gpu/fatbin-trim.py "$lib/libonnxruntime_providers_cuda.so" "$work/cuda.so" "$arch"
  xz -9e -T0 -c "$work/cuda.so" > "$work/cuda.xz" && mv "$work/cuda.xz" "$trimmed"
fi
cp "$trimmed" .gpu/p1/cuda.xz
cp "$lib/libonnxruntime_providers_shared.so" .gpu/p1/

# ---- run 2's bundle: Node, the app, the runner.
node_xz="$cache/node-$node_version.xz"
if [[ ! -f "$node_xz" ]]; then
  log "compressing Node $node_version (cached)"
  xz -9 -T0 -c "$node_bin" > "$work/node.xz" && mv "$work/node.xz" "$node_xz"
fi
cp "$node_xz" .gpu/p2/node.xz
# The production node_modules change with package-lock.json only: packed once, cached.
modules_xz="$cache/prod-modules-$lock_hash.tar.xz"
if [[ ! -f "$modules_xz" ]]; then
  log "production dependencies for linux-x64 (npm ci --omit=dev from npm's cache; cached by package-lock.json)"
  mkdir -p "$work/modules/app"
  cp package.json package-lock.json .npmrc "$work/modules/app/"
  # onnxruntime-node is an optional peer dependency (a devDependency here), so it is added at
  # the locked version; TensorFlow, the cloud SDKs and the Kubernetes client stay out.
  (cd "$work/modules/app" && npm ci -s --omit=dev --omit=optional --ignore-scripts --prefer-offline --no-audit --no-fund &&
    npm install -s --no-save --save-prod --omit=dev --omit=optional --ignore-scripts --prefer-offline --no-audit --no-fund "onnxruntime-node@$ort")
  rm -rf "$work/modules/app"/node_modules/onnxruntime-node/bin/napi-v6/{darwin,win32,linux/arm64}
  tar -C "$work/modules" -cf - app/node_modules | xz -9 -T0 > "$work/modules.tar.xz" && mv "$work/modules.tar.xz" "$modules_xz"
fi
cp "$modules_xz" .gpu/p2/modules.tar.xz
mkdir -p "$work/app"
cp -r dist package.json "$work/app/"
rm -rf "$work/app/dist/test"
tar -C "$work" -cf - app | xz -9 -T0 > .gpu/p2/app.tar.xz
node_modules/.bin/esbuild benchmarks/gpu-check.ts --bundle --platform=node --format=esm --target=node20 --log-level=warning \
  --banner:js="import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" \
  --outfile=.gpu/p2/gpu-check.mjs

# ---- each run carries the checkout (tracked and untracked, not ignored) plus its bundle.
checkout="$(git ls-files -z --cached --others --exclude-standard | xargs -0 stat -c %s 2>/dev/null | awk '{s += $1} END {print s + 0}')"
mib() { awk -v b="$1" 'BEGIN {printf "%.1f MiB", b / 1048576}'; }
ok=true
for p in p1 p2; do
  size="$(du -sb ".gpu/$p" | cut -f1)"
  total=$((size + checkout))
  log ".gpu/$p: $(mib "$size") + checkout $(mib "$checkout") = $(mib "$total") of 64 MiB"
  (( total < LIMIT )) || { log ".gpu/$p does not fit the GPU machine's 64 MiB per run"; ok=false; }
done
$ok || exit 1

if $smoke; then
  log "smoke: run 2 here, on the cpu, with fixture models in place of ResNet-50 and BERT"
  state="$work/state"
  for m in conv_small identity_int64; do mkdir -p "$state/models/$m" && cp "test/fixtures/models/$m.onnx" "$state/models/$m/model.onnx"; done
  STATE="$state" OUT="$work/out" GPU_CHECK_LOCAL=1 SECS="${SECS:-1}" bash scripts/gpu/run2.sh .gpu/p2
  exit $?
fi

cat <<EOF
GPU check prepared (sm_$arch). On the GPU machine, two runs back to back (its files last about
30 s between them), each from the repository root with its bundle carried:
  1. command: bash scripts/gpu/run1.sh .gpu/p1    carry: [".gpu/p1"]   timeout: 300 s
  2. command: bash scripts/gpu/run2.sh .gpu/p2    carry: [".gpu/p2"]   timeout: 450 s
then hand the machine back. Run 2 prints the table; \$OUT/gpu-results.md and \$OUT/run.log
(the servers' logs) come back as files. Record the table in docs/gpu.md and benchmarks/RESULTS.md.
EOF
