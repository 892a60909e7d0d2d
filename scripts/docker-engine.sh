#!/usr/bin/env bash
# Starts and stops a private Docker engine for building and testing the images: Debian's
# dockerd (docker.io 20.10, with its own managed containerd and runc), no iptables rules,
# no default bridge (containers use --network none or --network host), overlay2.
#
#   scripts/docker-engine.sh start    # installs docker.io if missing, starts dockerd, waits
#                                     # for it; prints `export DOCKER_HOST=...` on stdout
#   scripts/docker-engine.sh stop     # stops dockerd and its containerd, leaves no process
#   scripts/docker-engine.sh env      # prints the export line (whether or not it runs)
#
# The layer store (data root) lives under ${XDG_CACHE_HOME:-$HOME/.cache}/kserve-ts/docker
# so the base image and unchanged layers survive between CI runs; the exec root and the
# socket live under a short /run path (unix socket paths are limited to 108 bytes).
# Debian's client is /usr/bin/docker; /usr/local/bin/docker may be a newer client that
# speaks an API version this engine does not, so scripts call $DOCKER (below) explicitly.
set -euo pipefail

cache_root="${XDG_CACHE_HOME:-$HOME/.cache}/kserve-ts"
data_root="${KSERVE_TS_DOCKER_DATA:-$cache_root/docker}"
run_dir="${KSERVE_TS_DOCKER_RUN:-/run/kserve-ts-docker}"
sock="$run_dir/docker.sock"
pidfile="$run_dir/dockerd.pid"
log="$run_dir/dockerd.log"

log() { echo "[docker-engine] $*" >&2; }

running() { [[ -f "$pidfile" ]] && kill -0 "$(cat "$pidfile")" 2>/dev/null; }

install_engine() {
  command -v dockerd >/dev/null 2>&1 && [[ -x /usr/bin/docker ]] && return 0
  log "installing Debian's docker.io"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2
  apt-get install -y -qq docker.io >&2
}

start() {
  install_engine
  if running; then
    echo "export DOCKER_HOST=unix://$sock"
    return 0
  fi
  mkdir -p "$data_root" "$run_dir/exec"
  rm -f "$sock"
  log "starting dockerd (data root $data_root)"
  setsid dockerd \
    --data-root "$data_root" --exec-root "$run_dir/exec" --pidfile "$pidfile" \
    -H "unix://$sock" --iptables=false --ip-masq=false --bridge=none \
    --storage-driver overlay2 --containerd-namespace kserve-ts-docker \
    --containerd-plugins-namespace kserve-ts-docker-plugins \
    >"$log" 2>&1 </dev/null &
  for _ in $(seq 1 120); do
    if DOCKER_HOST="unix://$sock" /usr/bin/docker version >/dev/null 2>&1; then
      echo "export DOCKER_HOST=unix://$sock"
      return 0
    fi
    sleep 0.5
  done
  log "dockerd did not answer within 60 s; its log:"
  tail -n 40 "$log" >&2 || true
  exit 1
}

# dockerd bind-mounts its network namespace files under the exec root and leaves them
# mounted when it exits (or dies); unmount whatever is left there, deepest first.
unmount_leftovers() {
  local m
  while read -r m; do
    umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || log "could not unmount $m"
  done < <(awk -v root="$run_dir/" 'index($5, root) == 1 { print $5 }' /proc/self/mountinfo | sort -r)
}

stop() {
  running || { unmount_leftovers; log "not running"; return 0; }
  local pid
  pid="$(cat "$pidfile")"
  # dockerd stops its containers (10 s grace) and its managed containerd on SIGTERM.
  kill -TERM "$pid"
  for _ in $(seq 1 60); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.5
  done
  if kill -0 "$pid" 2>/dev/null; then
    log "dockerd did not stop in 30 s; killing it"
    kill -KILL "$pid" || true
  fi
  # A managed containerd whose parent was killed is left behind: find it by its config path.
  pkill -f "containerd --config $run_dir/exec/containerd/containerd.toml" 2>/dev/null || true
  unmount_leftovers
  rm -f "$pidfile" "$sock"
  log "stopped"
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  env) echo "export DOCKER_HOST=unix://$sock" ;;
  *) echo "usage: $0 start|stop|env" >&2; exit 2 ;;
esac
