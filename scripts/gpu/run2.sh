#!/bin/bash
# GPU machine, run 2 of the check scripts/gpu-check.sh prepares: the bundled Node and the
# built server with its production dependencies unpacked into $STATE (/tmp/gpux), run 1's
# provider linked beside libonnxruntime.so.1, then the runner (benchmarks/gpu-check.ts,
# bundled): results in $OUT/gpu-results.md, everything the servers logged in $OUT/run.log.
# Usage there: bash scripts/gpu/run2.sh .gpu/p2        (SECS per load point, default 3)
# scripts/gpu-check.sh --smoke runs it here with GPU_CHECK_LOCAL=1 (cpu, fixture models).
set -uo pipefail
p2="${1:?usage: run2.sh BUNDLE_DIR (.gpu/p2)}"
G="${STATE:-/tmp/gpux}"
out="${OUT:-$G/out}"
local_flag=()
if [[ -n "${GPU_CHECK_LOCAL:-}" ]]; then
  local_flag=(--local)
elif [[ ! -f "$G/lib/libonnxruntime_providers_cuda.so" ]]; then
  echo "run 1's files are gone (the machine went cold): make run 1 again, then this one at once"; exit 3
fi
mkdir -p "$out"
python3 -c "import lzma,shutil,sys;shutil.copyfileobj(lzma.open(sys.argv[1]),open(sys.argv[2],'wb'))" "$p2/node.xz" "$G/node"
chmod +x "$G/node"
for t in modules.tar.xz app.tar.xz; do
  python3 -c "import sys,tarfile;tarfile.open(sys.argv[1]).extractall(sys.argv[2])" "$p2/$t" "$G"
done
bin="$G/app/node_modules/onnxruntime-node/bin/napi-v6/linux/x64"
for f in libonnxruntime_providers_cuda.so libonnxruntime_providers_shared.so; do
  [[ -f "$G/lib/$f" ]] && ln -sf "$G/lib/$f" "$bin/$f"
done
[[ -f "$G/libdirs" ]] && export LD_LIBRARY_PATH="$(paste -sd: "$G/libdirs")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
timeout 420 "$G/node" "$p2/gpu-check.mjs" --app "$G/app" --models "$G/models" --out "$out" --seconds "${SECS:-3}" "${local_flag[@]}" \
  > "$out/run.log" 2>&1
rc=$?
cat "$out/gpu-results.md" 2>/dev/null || tail -40 "$out/run.log"
echo "server warnings and errors (first 10):"
grep -E '"level":(40|50|60)' "$out/run.log" | head -10 | cut -c1-400
echo "rc=$rc"
exit $rc
