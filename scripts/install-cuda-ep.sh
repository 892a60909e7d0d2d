#!/usr/bin/env bash
# Installs onnxruntime-node's CUDA execution provider from PyPI wheels, without the NuGet
# download its own installer would make (.npmrc skips it; air-gapped clusters cannot reach it):
#   1. libonnxruntime_providers_cuda.so and libonnxruntime_providers_shared.so from the
#      onnxruntime-gpu wheel whose version equals onnxruntime-node's (from package-lock.json);
#      the same build, so the provider's internal ABI matches the npm package's libonnxruntime;
#   2. the CUDA runtime libraries the provider needs from NVIDIA's wheels. onnxruntime-gpu
#      1.30.0 on PyPI is built against CUDA 13 (its libraries want libcudart.so.13,
#      libcublas.so.13), so these are the CUDA 13 wheels its own `[cuda,cudnn]` extras name;
#   3. checks with ldd that every library resolves except the driver's libcuda.so.1;
#   4. links the two provider libraries into the binding's folder, the only place
#      onnxruntime looks for them (the folder of libonnxruntime.so.1).
# Everything is cached under ${XDG_CACHE_HOME:-$HOME/.cache}/kserve-ts/cuda-ep-ort<version>-<arch>,
# so a warm run only re-creates the links (npm ci removes them with node_modules).
#
# The CUDA libraries are found at run time through LD_LIBRARY_PATH, which must be set when
# the server process starts. The script prints that folder on stdout:
#   export LD_LIBRARY_PATH="$(bash scripts/install-cuda-ep.sh)${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
#
# Usage: scripts/install-cuda-ep.sh            (idempotent; run after npm ci)
# Needs: python3 with pip, ldd. No GPU or driver needed to install.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
cd "$root"
log() { echo "[install-cuda-ep] $*" >&2; }

ORT_VERSION="$(node -p "require('./package-lock.json').packages['node_modules/onnxruntime-node'].version")"
arch="$(uname -m)"
[[ "$arch" == x86_64 ]] || { log "only linux x86_64 wheels are published for onnxruntime-gpu; this is $arch"; exit 1; }
# The NVIDIA wheels, pinned (CUDA 13 major, what onnxruntime-gpu $ORT_VERSION links).
NVIDIA_WHEELS=(
  nvidia-cuda-runtime==13.5.37
  nvidia-cublas==13.10.0.20
  nvidia-curand==10.4.5.25
  nvidia-cufft==12.5.0.14
  nvidia-cuda-nvrtc==13.5.37
  nvidia-cudnn-cu13==9.28.1.4
)
key="cuda-ep-ort${ORT_VERSION}-${arch}"
cache_root="${XDG_CACHE_HOME:-$HOME/.cache}/kserve-ts"
cache="$cache_root/$key"
lib="$cache/lib"

if [[ ! -f "$cache/.done" ]]; then
  rm -rf "$cache"
  mkdir -p "$lib"
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' EXIT
  platforms=()
  for p in manylinux_2_28 manylinux_2_27 manylinux_2_17 manylinux2014 manylinux_2_12 manylinux2010 manylinux_2_5 manylinux1; do
    platforms+=(--platform "${p}_${arch}")
  done
  log "downloading onnxruntime-gpu==$ORT_VERSION and ${NVIDIA_WHEELS[*]} from PyPI"
  python3 -m pip download --quiet --no-deps --only-binary=:all: "${platforms[@]}" --python-version 3.11 \
    "onnxruntime-gpu==$ORT_VERSION" "${NVIDIA_WHEELS[@]}" -d "$work/wheels" >&2
  log "extracting provider and CUDA libraries"
  python3 - "$work/wheels" "$lib" <<'PY'
import os, re, shutil, sys, zipfile
wheels, out = sys.argv[1], sys.argv[2]
wanted_ort = {"libonnxruntime_providers_cuda.so", "libonnxruntime_providers_shared.so"}
for w in sorted(os.listdir(wheels)):
    with zipfile.ZipFile(os.path.join(wheels, w)) as z:
        for n in z.namelist():
            base = os.path.basename(n)
            if w.startswith("onnxruntime_gpu-"):
                take = n.startswith("onnxruntime/capi/") and base in wanted_ort
            else:  # nvidia/<component>/lib/lib*.so*
                take = re.fullmatch(r"nvidia/[^/]+/lib/lib[^/]+\.so(\.[0-9]+)*", n) is not None
            if take:
                with z.open(n) as src, open(os.path.join(out, base), "wb") as dst:
                    shutil.copyfileobj(src, dst)
PY
  # 3. Every library must resolve from this folder, the system, or the driver (absent here).
  missing="$(for f in "$lib"/*.so*; do LD_LIBRARY_PATH="$lib" ldd "$f" 2>/dev/null | awk '/not found/ {print $1}'; done | sort -u | grep -v '^libcuda\.so\.1$' || true)"
  if [[ -n "$missing" ]]; then
    log "libraries that nothing provides (only the driver's libcuda.so.1 may be missing):"; echo "$missing" >&2; exit 1
  fi
  for f in libonnxruntime_providers_cuda.so libonnxruntime_providers_shared.so libcudart.so.13 libcublasLt.so.13 libcudnn.so.9; do
    [[ -f "$lib/$f" ]] || { log "$f missing from the wheels"; exit 1; }
  done
  echo "onnxruntime-gpu==$ORT_VERSION ${NVIDIA_WHEELS[*]}" > "$cache/.done"
  log "cached in $cache ($(du -sh "$cache" | cut -f1))"
fi

# 4. The binding loads providers from libonnxruntime.so.1's folder.
bin="$root/node_modules/onnxruntime-node/bin/napi-v6/linux/$( [[ $arch == x86_64 ]] && echo x64 || echo "$arch")"
[[ -f "$bin/libonnxruntime.so.1" ]] || { log "onnxruntime-node is not installed (run npm ci first)"; exit 1; }
for f in libonnxruntime_providers_cuda.so libonnxruntime_providers_shared.so; do
  ln -sfn "$lib/$f" "$bin/$f"
done
log "CUDA execution provider for onnxruntime-node $ORT_VERSION linked into $bin; set LD_LIBRARY_PATH=$lib"
echo "$lib"
