#!/usr/bin/env bash
# Builds the kserve-ts images without any container registry:
#   kserve-ts-server:<version>, kserve-ts-storage-initializer:<version>, kserve-ts-controller:<version>,
#   kserve-ts-router:<version> (the InferenceGraph router; KServe's router image contract),
#   and kserve-ts-server-tensorflow:<version> (the server plus native TensorFlow for SavedModels,
#   with the libtensorflow binding scripts/build-tfjs-node.sh builds from the tensorflow-cpu wheel)
#   and kserve-ts-server-cuda:<version> (the server plus onnxruntime's CUDA execution provider and
#   CUDA 13 libraries from PyPI wheels, scripts/install-cuda-ep.sh; about 2.2 GB of libraries),
#   and images for the one-node cluster's suites and walk-throughs (docs/kubernetes.md):
#   kserve-ts-model-iris:<version> (a modelcar: the iris ONNX model under /models, for
#   storageUri oci://kserve-ts-model-iris:<version>), kserve-ts-custom-model:<version> (the server
#   plus examples/custom-model compiled, as its --model_module) and kserve-ts-transformer:<version>
#   (the server plus examples/transformer compiled, as its --model_module), and
#   kserve-ts-metrics-server:<version> (metrics-server, built from the Go module proxy by
#   scripts/metrics-server-binary.sh: the resource metrics API the autoscaling suite's HPA reads)
#   and kserve-ts-keda:<version> (KEDA's operator, built the same way by scripts/keda-binary.sh)
#   and kserve-ts-traefik:<version> (Traefik v3, a Gateway API implementation, built the same way
#   by scripts/traefik-binary.sh: the canary suite's gateway)
# on a Node 24 base made from Debian forky with mmdebstrap (no registry, only Debian's
# package mirror), or on any base given as BASE=... (e.g. BASE=node:24-slim with a registry).
#
#   eval "$(scripts/docker-engine.sh start)"   # or any engine in DOCKER_HOST
#   scripts/build-images.sh                   # all but server-cuda (a GPU image: 2.2 GB of CUDA
#                                             # wheels a CPU machine never uses); prints each
#                                             # image's size at the end
#   scripts/build-images.sh all               # all of them, server-cuda included (what CI builds)
#   scripts/build-images.sh server model-iris # only these (names without kserve-ts-); the images
#                                             # built FROM the server (server-cuda, custom-model,
#                                             # transformer) build it too
#
# The application is built on the host, not inside `docker build`: registries are reached
# through a CA only the host trusts, and that CA must never be baked into a shipped image.
# `npm ci --omit=optional --ignore-scripts` installs the tree exactly as package-lock.json pins
# it (development dependencies included: the optional features an image carries, onnxruntime,
# TensorFlow, the cloud SDKs and the Kubernetes client, are optional peer dependencies of the
# package and development dependencies of this repository); scripts/image-stage.mjs takes only
# what each image imports.
#
# Cache (${XDG_CACHE_HOME:-$HOME/.cache}/kserve-ts): the base rootfs tar keyed by Debian
# release and package list, the production node_modules keyed by the lock file's hash; the
# engine's layer store keeps the imported base and unchanged layers.
set -euo pipefail
cd "$(dirname "$0")/.."

DOCKER="${DOCKER:-/usr/bin/docker}"
VERSION="$(node -p 'require("./package.json").version')"
DEBIAN_RELEASE=forky
# ca-certificates: the storage-initializer and the controller talk TLS to S3, GCS, HTTPS and the API server.
BASE_PACKAGES=nodejs,ca-certificates
cache_root="${XDG_CACHE_HOME:-$HOME/.cache}/kserve-ts"

log() { echo "[build-images] $*" >&2; }

ALL_TARGETS=(server storage-initializer controller router server-tensorflow server-cuda model-iris custom-model transformer metrics-server keda traefik)
# Targets of images/Dockerfile, built from one staged context; the others have a Dockerfile each.
DOCKERFILE_TARGETS=(server storage-initializer controller router server-tensorflow)
DEFAULT_TARGETS=(server storage-initializer controller router server-tensorflow model-iris custom-model transformer metrics-server keda traefik)
wanted=("$@")
[[ ${#wanted[@]} -gt 0 ]] || wanted=("${DEFAULT_TARGETS[@]}")
[[ "${wanted[*]}" != all ]] || wanted=("${ALL_TARGETS[@]}")
for t in "${wanted[@]}"; do
  [[ " ${ALL_TARGETS[*]} " == *" $t "* ]] || { log "unknown image '$t' (one of: ${ALL_TARGETS[*]})"; exit 2; }
  # Built FROM kserve-ts-server: that is rebuilt first, so they never sit on a stale one.
  case $t in server-cuda | custom-model | transformer) [[ " ${wanted[*]} " == *" server "* ]] || wanted=(server "${wanted[@]}") ;; esac
done
want() { [[ " ${wanted[*]} " == *" $1 "* ]]; }

base_key="$(echo "$DEBIAN_RELEASE $BASE_PACKAGES v1" | sha256sum | cut -c1-12)"
base_tag="kserve-ts-base:$DEBIAN_RELEASE-$base_key"

make_base() {
  if "$DOCKER" image inspect "$base_tag" >/dev/null 2>&1; then return 0; fi
  local tar="$cache_root/base/$DEBIAN_RELEASE-$base_key.tar"
  if [[ ! -f "$tar" ]]; then
    command -v mmdebstrap >/dev/null 2>&1 || { apt-get update -qq >&2; DEBIAN_FRONTEND=noninteractive apt-get install -y -qq mmdebstrap >&2; }
    mkdir -p "$cache_root/base"
    log "making the base rootfs: Debian $DEBIAN_RELEASE minbase + $BASE_PACKAGES"
    # forky's Release file can be past its Valid-Until date on the mirror: testing is
    # re-signed irregularly, so the check is off for this build only (signatures still checked).
    # Documentation, manuals and translations are never installed; apt's lists are dropped.
    mmdebstrap --variant=minbase --format=tar --include="$BASE_PACKAGES" \
      --aptopt='Acquire::Check-Valid-Until "false"' \
      --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-include=/usr/share/doc/*/copyright' \
      --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/locale/*' \
      --dpkgopt='path-exclude=/usr/share/info/*' \
      --customize-hook='rm -rf "$1"/var/lib/apt/lists/* "$1"/var/cache/apt/* "$1"/var/cache/debconf/*-old' \
      "$DEBIAN_RELEASE" "$tar.partial" >&2
    mv "$tar.partial" "$tar"
  fi
  log "importing the base as $base_tag"
  "$DOCKER" import -c 'CMD ["/bin/bash"]' "$tar" "$base_tag" >/dev/null
}

prod_modules() {
  local key dir flags=(--omit=optional --ignore-scripts)
  key="$( (cat package-lock.json; echo "${flags[*]}") | sha256sum | cut -c1-16)"
  dir="$cache_root/image-node-modules/$key"
  if [[ ! -f "$dir/.complete" ]]; then
    log "installing the dependencies from package-lock.json"
    rm -rf "$dir"
    mkdir -p "$dir"
    cp package.json package-lock.json "$dir/"
    # The project's .npmrc keeps onnxruntime-node's CUDA download off; scripts don't run anyway.
    cp .npmrc "$dir/" 2>/dev/null || true
    (cd "$dir" && ONNXRUNTIME_NODE_INSTALL=skip npm ci "${flags[@]}" --no-audit --no-fund >&2)
    touch "$dir/.complete"
  fi
  echo "$dir/node_modules"
}

BASE="${BASE:-}"
if [[ -z "$BASE" ]]; then
  make_base
  BASE="$base_tag"
fi
[[ -f dist/bin/kserve-ts.js && -f dist/bin/controller.js && -f dist/bin/router.js ]] || { log "building the TypeScript"; npm run build >&2; }
source_url="$(node -p 'const p=require("./package.json"); (p.repository && (p.repository.url || p.repository)) || "https://github.com/kserve-ts/kserve-ts"')"

# build IMAGE CONTEXT [docker build args...]
build() {
  local image=$1 dir=$2 start=$SECONDS
  shift 2
  log "building $image"
  DOCKER_BUILDKIT=0 "$DOCKER" build -q --build-arg VERSION="$VERSION" --build-arg SOURCE="$source_url" \
    -t "$image" "$@" "$dir" >/dev/null
  log "built $image in $((SECONDS - start)) s"
}

# compile_example NAME OUT: examples/NAME's TypeScript (strict, as docs/custom-models.md builds
# a model module) compiled to OUT/examples/NAME. It imports `kserve-ts`, which the server image
# resolves to its own SDK (scripts/image-stage.mjs stages /app as that package).
compile_example() {
  local name=$1 out=$2 cfg
  [[ -d "examples/$name" ]] || { log "examples/$name is missing: cannot build its image"; exit 1; }
  cfg="$(mktemp -d)"
  cat >"$cfg/tsconfig.json" <<EOF
{
  "compilerOptions": {
    "target": "es2022", "module": "nodenext", "moduleResolution": "nodenext", "strict": true,
    "skipLibCheck": true, "rootDir": "$PWD/examples", "outDir": "$out/examples", "types": ["node"],
    "typeRoots": ["$PWD/node_modules/@types"]
  },
  "include": ["$PWD/examples/$name/**/*.ts"]
}
EOF
  npx --no-install tsc -p "$cfg/tsconfig.json" >&2 || { rm -rf "$cfg"; log "examples/$name does not compile"; exit 1; }
  rm -rf "$cfg"
}

# One context per target of images/Dockerfile: its own staged folder and an empty one for each
# other target. The classic builder sends the whole context with every build, so one shared
# context sent every target's tree (server-tensorflow's libtensorflow included) five times.
contexts="$(mktemp -d)"
cleanup=("$contexts")
for t in "${DOCKERFILE_TARGETS[@]}"; do
  mkdir -p "$contexts/$t"
  cp images/Dockerfile "$contexts/$t/Dockerfile"
  for other in "${DOCKERFILE_TARGETS[@]}"; do mkdir -p "$contexts/$t/$other"; done
done
trap 'rm -rf "${cleanup[@]}"' EXIT
if want server || want storage-initializer || want controller || want router; then
  modules="$(prod_modules)"
  for t in server storage-initializer controller router; do
    if want "$t"; then node scripts/image-stage.mjs "$t" "$modules" "$contexts/$t/$t"; fi
  done
fi
if want server-tensorflow; then
  # tfjs-node's binding is built on the host into ./node_modules (cached); the image takes it
  # and what the server imports from that tree, which npm ci installed from the same lock file.
  log "native TensorFlow binding for kserve-ts-server-tensorflow"
  bash scripts/build-tfjs-node.sh >&2
  node scripts/image-stage.mjs server-tensorflow "$PWD/node_modules" "$contexts/server-tensorflow/server-tensorflow"
fi
# The classic builder runs every stage before the target: the ones not asked for copy an
# empty folder (a throw-away stage; only the asked-for targets are tagged).
for t in "${DOCKERFILE_TARGETS[@]}"; do
  if want "$t"; then build "kserve-ts-$t:$VERSION" "$contexts/$t" --target "$t" --build-arg BASE="$BASE"; fi
done
if want model-iris; then
  model_context="$(mktemp -d)"
  cleanup+=("$model_context")
  mkdir -p "$model_context/models"
  cp examples/models/iris/model.onnx "$model_context/models/"
  cp images/model-iris.Dockerfile "$model_context/Dockerfile"
  printf 'Dockerfile\n' > "$model_context/.dockerignore"
  build "kserve-ts-model-iris:$VERSION" "$model_context" --build-arg BASE="$BASE"
fi

# go_binary_image NAME ARG: a Go program of the node's suites, built and cached by version by
# scripts/NAME-binary.sh, on the Debian base from images/NAME.Dockerfile; its version (the
# cache folder's name is NAME-<version>) goes in as the build argument ARG.
go_binary_image() {
  local name=$1 arg=$2 bin version ctx
  bin="$(bash "scripts/$name-binary.sh")"
  version="$(basename "$(dirname "$(dirname "$bin")")")"
  ctx="$(mktemp -d)"
  cleanup+=("$ctx")
  cp "$bin" "$ctx/$name"
  cp "images/$name.Dockerfile" "$ctx/Dockerfile"
  printf 'Dockerfile\n' > "$ctx/.dockerignore"
  build "kserve-ts-$name:$VERSION" "$ctx" --build-arg BASE="$BASE" --build-arg "$arg=${version#"$name"-}"
}
# metrics-server: the resource metrics API of the autoscaling suite; keda: KEDA's operator;
# traefik: the Gateway API implementation of the canary suite.
if want metrics-server; then go_binary_image metrics-server METRICS_SERVER_VERSION; fi
if want keda; then go_binary_image keda KEDA_VERSION; fi
if want traefik; then go_binary_image traefik TRAEFIK_VERSION; fi

if want server-cuda; then
  # The server's own target on a base that already holds the CUDA libraries (in
  # /opt/kserve-ts/cuda/lib), so the 2.2 GB layer is made once per base and library set and
  # the engine's layer store (cached) keeps it: a changed server rebuilds only its app layer,
  # and the node's containerd already has the big one. The two provider libraries are linked
  # into the binding's folder, the only place onnxruntime looks for them.
  log "CUDA execution provider for kserve-ts-server-cuda"
  cuda_lib="$(bash scripts/install-cuda-ep.sh)"
  cuda_key="$( (echo "$BASE"; cat "$(dirname "$cuda_lib")/.done"; cat images/cuda-base.Dockerfile) | sha256sum | cut -c1-12)"
  cuda_base="kserve-ts-cuda-base:$cuda_key"
  if ! "$DOCKER" image inspect "$cuda_base" >/dev/null 2>&1; then
    cuda_context="$(mktemp -d "$cache_root/cuda-context.XXXXXX")"
    cleanup+=("$cuda_context")
    mkdir -p "$cuda_context/opt/kserve-ts/cuda"
    # Hard links when the cache and the context share a file system (2.2 GB).
    cp -al "$cuda_lib" "$cuda_context/opt/kserve-ts/cuda/lib" 2>/dev/null || cp -a "$cuda_lib" "$cuda_context/opt/kserve-ts/cuda/lib"
    cp images/cuda-base.Dockerfile "$cuda_context/Dockerfile"
    printf 'Dockerfile\n' > "$cuda_context/.dockerignore"
    build "$cuda_base" "$cuda_context" --build-arg BASE="$BASE"
  fi
  server_cuda_context="$(mktemp -d)"
  cleanup+=("$server_cuda_context")
  cp images/Dockerfile "$server_cuda_context/Dockerfile"
  for t in "${DOCKERFILE_TARGETS[@]}"; do mkdir -p "$server_cuda_context/$t"; done
  cp -al "$contexts/server/server/." "$server_cuda_context/server/" 2>/dev/null || cp -a "$contexts/server/server/." "$server_cuda_context/server/"
  ort_bin="$server_cuda_context/server/node_modules/onnxruntime-node/bin/napi-v6/linux/x64"
  mkdir -p "$ort_bin"
  for f in libonnxruntime_providers_cuda.so libonnxruntime_providers_shared.so; do
    ln -s "/opt/kserve-ts/cuda/lib/$f" "$ort_bin/$f"
  done
  build "kserve-ts-server-cuda:$VERSION" "$server_cuda_context" --target server --build-arg BASE="$cuda_base" --build-arg WORKERS=1 \
    --label org.opencontainers.image.title=kserve-ts-server-cuda \
    --label "org.opencontainers.image.description=kserve-ts-server with the onnxruntime CUDA execution provider (CUDA 13, cuDNN 9; needs an NVIDIA driver >= R580)"
fi

# The model-module images: the server image plus one compiled example under /app/examples
# (the custom model also gets the iris model it loads by default), one Dockerfile each.
for t in custom-model transformer; do
  want "$t" || continue
  app_context="$(mktemp -d)"
  cleanup+=("$app_context")
  compile_example "$t" "$app_context/app"
  if [[ $t == custom-model ]]; then
    mkdir -p "$app_context/app/examples/models/iris"
    cp examples/models/iris/model.onnx "$app_context/app/examples/models/iris/"
  fi
  cp "images/$t.Dockerfile" "$app_context/Dockerfile"
  printf 'Dockerfile\n' > "$app_context/.dockerignore"
  build "kserve-ts-$t:$VERSION" "$app_context" --build-arg SERVER="kserve-ts-server:$VERSION"
done

# The classic builder runs every stage before the target, so a stage not asked for ends as an
# untagged image (209 MB listed: the base plus an empty folder), and a rebuilt image leaves its
# previous version untagged: remove those of ours (only dangling ones: nothing tagged or in use).
"$DOCKER" image prune -f --filter "label=org.opencontainers.image.vendor=kserve-ts" >/dev/null

for t in "${ALL_TARGETS[@]}"; do
  want "$t" || continue
  size="$("$DOCKER" image inspect -f '{{.Size}}' "kserve-ts-$t:$VERSION")"
  printf 'kserve-ts-%s:%s\t%d MB\n' "$t" "$VERSION" "$((size / 1000000))"
done
