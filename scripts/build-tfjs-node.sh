#!/usr/bin/env bash
# Provides @tensorflow/tfjs-node (the tensorflow backend's native path) without its
# installer's download: tfjs-node's install script fetches libtensorflow from
# storage.googleapis.com, which CI and air-gapped clusters cannot reach. tfjs-node is an
# optional peer dependency of kserve-ts, so `npm ci` does not install it. This script instead
#   1. installs the npm package and its dependencies with scripts disabled (npm registry),
#   2. takes libtensorflow from the tensorflow-cpu wheel on PyPI: libtensorflow_cc.so.2
#      (which exports the TF_*/TFE_* C API) and libtensorflow_framework.so.2, plus the C
#      headers under tensorflow/include,
#   3. compiles the binding against them with node-gyp and the local Node headers.
# The result (binding + libraries) is cached under
#   ${XDG_CACHE_HOME:-$HOME/.cache}/kserve-ts/tfjs-node-<versions>
# so later runs only re-install the npm package and copy it in.
#
# Usage: scripts/build-tfjs-node.sh          (idempotent; run after npm ci)
# Needs: python3 with pip, g++, make, Node headers (include/node under the Node prefix).
set -euo pipefail

TF_VERSION=2.15.1   # libtensorflow version, from the tensorflow-cpu wheel (same as the fixtures)
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
cd "$root"

# tfjs-node is an optional peer dependency (package.json), so package-lock.json has no entry
# for it. Its releases go in lockstep with @tensorflow/tfjs (tfjs-node@X depends on exactly
# @tensorflow/tfjs@X), so the locked tfjs's version is the one to build.
TFJS_NODE_VERSION="$(node -p "require('./package-lock.json').packages['node_modules/@tensorflow/tfjs'].version")"
NAPI="$(node -p "Math.min(8, Number(process.versions.napi))")"   # tfjs-node's highest napi build
NODE_ABI="$(node -p process.versions.modules)"
arch="$(uname -m)"
key="tfjs-node${TFJS_NODE_VERSION}-tf${TF_VERSION}-napi${NAPI}-abi${NODE_ABI}-${arch}"
cache_root="${XDG_CACHE_HOME:-$HOME/.cache}/kserve-ts"
cache="$cache_root/$key"
log() { echo "[build-tfjs-node] $*" >&2; }

# 1. The npm package and its dependencies, without running its downloading install script.
pkg="$root/node_modules/@tensorflow/tfjs-node"
if [[ ! -f "$pkg/package.json" ]]; then
  log "installing @tensorflow/tfjs-node@$TFJS_NODE_VERSION with scripts disabled"
  # --save-dev makes it a development dependency of this install (an optional peer alone is
  # "up to date" when absent); --no-save leaves package.json and package-lock.json as they are.
  npm install --no-save --save-dev --ignore-scripts --no-audit --no-fund "@tensorflow/tfjs-node@$TFJS_NODE_VERSION" >&2
fi

if [[ ! -f "$cache/.built" ]]; then
  rm -rf "$cache"
  mkdir -p "$cache"
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' EXIT

  # 2. libtensorflow and headers from the tensorflow-cpu wheel (PyPI).
  wheels="$cache_root/wheels"
  mkdir -p "$wheels"
  wheel="$(ls "$wheels"/tensorflow_cpu-"$TF_VERSION"-*manylinux*"$arch".whl 2>/dev/null | head -1 || true)"
  if [[ -z "$wheel" ]]; then
    log "downloading the tensorflow-cpu $TF_VERSION wheel from PyPI"
    python3 -m pip download --quiet --no-deps --only-binary=:all: --platform manylinux2014_"$arch" \
      --python-version 3.11 "tensorflow-cpu==$TF_VERSION" -d "$wheels" >&2
    wheel="$(ls "$wheels"/tensorflow_cpu-"$TF_VERSION"-*manylinux*"$arch".whl | head -1)"
  fi
  log "extracting libtensorflow from $(basename "$wheel")"
  python3 - "$wheel" "$work/deps" <<'PY'
import sys, zipfile, os, shutil
wheel, out = sys.argv[1], sys.argv[2]
os.makedirs(f"{out}/lib", exist_ok=True)
with zipfile.ZipFile(wheel) as z:
    for n in z.namelist():
        if n.endswith("/"):
            continue
        if n in ("tensorflow/libtensorflow_cc.so.2", "tensorflow/libtensorflow_framework.so.2"):
            with z.open(n) as src, open(f"{out}/lib/{os.path.basename(n)}", "wb") as dst:
                shutil.copyfileobj(src, dst)
        elif n.startswith("tensorflow/include/") and n.endswith(".h") and not n.startswith("tensorflow/include/external/"):
            dest = f"{out}/include/{n[len('tensorflow/include/'):]}"
            os.makedirs(os.path.dirname(dest), exist_ok=True)
            with z.open(n) as src, open(dest, "wb") as dst:
                shutil.copyfileobj(src, dst)
PY
  # The C API lives in libtensorflow_cc.so.2 (its SONAME); the binding links -ltensorflow.
  ln -sf libtensorflow_cc.so.2 "$work/deps/lib/libtensorflow.so"
  ln -sf libtensorflow_framework.so.2 "$work/deps/lib/libtensorflow_framework.so"
  if ! nm -D --defined-only "$work/deps/lib/libtensorflow_cc.so.2" | grep ' TF_LoadSessionFromSavedModel' >/dev/null; then
    log "libtensorflow_cc.so.2 in the wheel does not export the TensorFlow C API"; exit 1
  fi

  # 3. Compile the binding with node-gyp against the local Node headers.
  cp -r "$pkg/binding" "$pkg/binding.gyp" "$pkg/package.json" "$work/"
  node_gyp="$(dirname "$(readlink -f "$(command -v npm)")")/../node_modules/node-gyp/bin/node-gyp.js"
  nodedir="$(dirname "$(dirname "$(readlink -f "$(command -v node)")")")"
  [[ -f "$nodedir/include/node/node_api.h" ]] || nodedir=/usr
  log "compiling tfjs_binding (napi $NAPI) with node-gyp, Node headers from $nodedir/include/node"
  (cd "$work" && node "$node_gyp" rebuild --nodedir="$nodedir" --module_name=tfjs_binding \
      --module_path="lib/napi-v$NAPI" --napi_build_version="$NAPI" >&2)
  mkdir -p "$cache/lib/napi-v$NAPI" "$cache/deps"
  cp "$work/build/Release/tfjs_binding.node" "$cache/lib/napi-v$NAPI/"
  cp -a "$work/deps/lib" "$cache/deps/"
  touch "$cache/.built"
else
  log "reusing $cache"
fi

# Install into the package: lib/napi-vN/tfjs_binding.node finds deps/lib through its rpath.
mkdir -p "$pkg/lib" "$pkg/deps"
rm -rf "$pkg/lib/napi-v$NAPI" "$pkg/deps/lib"
cp -a "$cache/lib/napi-v$NAPI" "$pkg/lib/"
cp -a "$cache/deps/lib" "$pkg/deps/"
node -e "const tf = require('@tensorflow/tfjs-node'); console.error('[build-tfjs-node] ok: tfjs-node', tf.version['tfjs-node'], 'on libtensorflow', tf.backend().binding.TF_Version)"
