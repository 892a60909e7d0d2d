#!/bin/bash
# GPU machine, run 1 of the check scripts/gpu-check.sh prepares: the GPU's facts, the CUDA
# provider unpacked, the CUDA 13 and cuDNN 9 libraries of the machine's torch venv found, and
# ResNet-50 and BERT-base exported to ONNX with torch (no download). State goes to $STATE
# (/tmp/gpux), which the machine keeps about 30 s: make run 2 right after.
# Usage there: bash scripts/gpu/run1.sh .gpu/p1
set -uo pipefail
p1="${1:?usage: run1.sh BUNDLE_DIR (.gpu/p1)}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
G="${STATE:-/tmp/gpux}"
rm -rf "$G" && mkdir -p "$G/lib" "$G/models"
nvidia-smi --query-gpu=name,driver_version,memory.total,compute_cap --format=csv,noheader
python3 -c "import lzma,shutil,sys;shutil.copyfileobj(lzma.open(sys.argv[1]),open(sys.argv[2],'wb'))" \
  "$p1/cuda.xz" "$G/lib/libonnxruntime_providers_cuda.so"
cp "$p1/libonnxruntime_providers_shared.so" "$G/lib/"
roots="$(python3 -c "import nvidia;print(' '.join(nvidia.__path__))" 2>/dev/null)"
: > "$G/libdirs"
for so in libcudart.so.13 libcublas.so.13 libcublasLt.so.13 libcurand.so.10 libcufft.so.12 libcudnn.so.9; do
  p="$(find $roots /usr/local/cuda/lib64 -name "$so" 2>/dev/null | head -1)"
  echo "$so -> ${p:-MISSING}"
  [[ -n "$p" ]] && dirname "$p" >> "$G/libdirs"
done
sort -u "$G/libdirs" -o "$G/libdirs"
echo "unresolved by the provider:"
LD_LIBRARY_PATH="$(paste -sd: "$G/libdirs")" ldd "$G/lib/libonnxruntime_providers_cuda.so" | grep 'not found' || echo "  none"
PYTHONUNBUFFERED=1 timeout 300 python3 "$here/export_models.py" "$G/models" 2>&1 | grep -v Warning | tail -12
ls "$G/models"/*/model.onnx >/dev/null && echo RUN1_DONE
