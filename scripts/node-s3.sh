#!/usr/bin/env bash
# An S3 endpoint the node's pods can reach, for trying InferenceServices by hand
# (docs/kubernetes.md, section 2): moto, the S3 server the suites use (PyPI, cached by
# scripts/cached-venv.sh), bound to the node address of scripts/kube-node.sh, so the
# storage-initializer reaches it as 10.77.0.1:9000 and nothing off this machine is involved.
# Any access key and secret are accepted; what it holds lives in memory and goes with `stop`.
#
#   scripts/node-s3.sh start                  # moto on 10.77.0.1:9000, bucket `models` holding
#                                             # the iris model as iris/model.onnx
#   scripts/node-s3.sh put PATH s3://BUCKET/PREFIX  # uploads a file or a folder's files under
#                                             # PREFIX/ (bucket made if missing)
#   scripts/node-s3.sh stop                   # before `kube-node.sh down`: it takes the address
#
# Env: KNODE_S3_PORT (default 9000), KNODE_S3_STATE (pid and log, default /run/kserve-ts-node-s3).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
NODE_IP=10.77.0.1
PORT="${KNODE_S3_PORT:-9000}"
STATE="${KNODE_S3_STATE:-/run/kserve-ts-node-s3}"
ENDPOINT="http://$NODE_IP:$PORT"
# The same moto as the storage-initializer suites (one pin, in scripts/storage-test-servers.sh).
MOTO_VERSION="$(sed -n 's/^MOTO_VERSION=//p' "$ROOT/scripts/storage-test-servers.sh")"

log() { echo "[node-s3] $*" >&2; }
die() { log "error: $*"; exit 1; }
running() { [[ -f "$STATE/pid" ]] && kill -0 "$(cat "$STATE/pid")" 2>/dev/null; }
venv() { bash "$ROOT/scripts/cached-venv.sh" moto "moto[server]==$MOTO_VERSION"; }

# put PATH s3://BUCKET/PREFIX: a file, or every file under a folder, with boto3 from moto's
# environment.
put() {
  local src=$1 uri=$2
  [[ -e "$src" ]] || die "$src does not exist"
  [[ "$uri" =~ ^s3://([^/]+)/?(.*)$ ]] || die "$uri is not s3://BUCKET/PREFIX"
  running || die "not running: scripts/node-s3.sh start"
  "$(venv)/bin/python" - "$ENDPOINT" "$src" "${BASH_REMATCH[1]}" "${BASH_REMATCH[2]%/}" <<'EOF'
import os, sys, boto3
endpoint, src, bucket, prefix = sys.argv[1:]
s3 = boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1",
                  aws_access_key_id="any", aws_secret_access_key="any")
if bucket not in [b["Name"] for b in s3.list_buckets()["Buckets"]]:
    s3.create_bucket(Bucket=bucket)
if os.path.isdir(src):
    files = [(os.path.join(b, f), os.path.relpath(os.path.join(b, f), src)) for b, _, fs in os.walk(src) for f in fs]
else:
    files = [(src, os.path.basename(src))]
for path, rel in files:
    key = "/".join(p for p in (prefix, rel) if p)
    s3.upload_file(path, bucket, key)
    print(f"[node-s3] s3://{bucket}/{key}", file=sys.stderr)
EOF
}

start() {
  ip -o addr show to "$NODE_IP" | grep . >/dev/null || die "$NODE_IP is not on this machine: scripts/kube-node.sh up first"
  if running; then
    log "already running at $ENDPOINT"
    return 0
  fi
  local moto
  moto="$(venv)/bin/moto_server"
  mkdir -p "$STATE"
  setsid "$moto" -H "$NODE_IP" -p "$PORT" >"$STATE/log" 2>&1 </dev/null &
  echo $! >"$STATE/pid"
  for _ in $(seq 1 120); do
    curl -sf "$ENDPOINT/moto-api/" >/dev/null 2>&1 && break
    running || { tail -n 20 "$STATE/log" >&2; die "moto exited"; }
    sleep 0.25
  done
  curl -sf "$ENDPOINT/moto-api/" >/dev/null || die "moto did not answer at $ENDPOINT in 30 s"
  put "$ROOT/examples/models/iris/model.onnx" s3://models/iris
  log "S3 at $ENDPOINT (annotation serving.kserve.io/s3-endpoint: $NODE_IP:$PORT)"
}

stop() {
  if running; then
    local pid
    pid="$(cat "$STATE/pid")"
    kill -TERM "$pid"
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -0 "$pid" 2>/dev/null && kill -KILL "$pid"
  fi
  rm -rf "$STATE"
  log "stopped"
}

case "${1:-}" in
  start) start ;;
  put) [[ $# -eq 3 ]] || die "usage: $0 put PATH s3://BUCKET/PREFIX"; put "$2" "$3" ;;
  stop) stop ;;
  *) echo "usage: $0 start | put PATH s3://BUCKET/PREFIX | stop" >&2; exit 2 ;;
esac
