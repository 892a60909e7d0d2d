# Sourced by the cached tool builds (kube-test-binaries.sh, helm-tools.sh):
#   cached_build_begin CACHE_DIR STAMP BIN LOG_FN
# prints BIN and exits the calling script when STAMP exists (a finished build); otherwise
# takes an exclusive flock on CACHE_DIR.lock (fd 9, held until the caller exits), waiting
# for a concurrent builder, and exits the same way if that builder finished meanwhile.
# The stamp is written last by the caller, so a killed build is redone.
cached_build_begin() {
  local cache=$1 stamp=$2 bin=$3 log=$4
  if [[ -f "$stamp" ]]; then
    echo "$bin"
    exit 0
  fi
  command -v flock >/dev/null 2>&1 || { "$log" "flock (util-linux) is needed"; exit 1; }
  mkdir -p "$cache"
  exec 9>"$cache.lock"
  if ! flock -n 9; then
    "$log" "another process is building $cache; waiting for it"
    flock 9
  fi
  if [[ -f "$stamp" ]]; then
    echo "$bin"
    exit 0
  fi
}
