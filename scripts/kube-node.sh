#!/usr/bin/env bash
# A one-node Kubernetes on this machine for the end-to-end suites (test/cluster/node/) and
# for trying the charts by hand: etcd, kube-apiserver, kube-controller-manager,
# kube-scheduler, CoreDNS (cluster DNS), a containerd CRI instance of its own, a CNI bridge,
# kubelet and kube-proxy (iptables mode), with the kserve-ts images imported into that
# containerd.
#
#   scripts/kube-node.sh up       # idempotent; prints the kubeconfig path (last stdout line)
#   scripts/kube-node.sh status   # each component's state and the node's Ready condition
#   scripts/kube-node.sh down     # stops everything and removes every trace (see below)
#   scripts/kube-node.sh env      # prints `export KUBECONFIG=... PATH=...`: kubectl 1.35 (the
#                                 # node's own) and helm (scripts/helm-tools.sh, built on first
#                                 # use) first on PATH; `eval "$(scripts/kube-node.sh env)"`
#
# Layout (the settings measured in docs/kubernetes.md "A node on this machine"):
#   node IP      10.77.0.1 on `knode0`, a bridge without ports (a loopback node IP is
#                refused by kubelet; the kernel here has no dummy driver)
#   Services     10.96.0.0/24, routed into knode0 so an untranslated Service address is
#                dropped on this machine and never leaves it; `kubernetes` = 10.96.0.1
#   pods         10.88.0.0/24 on the CNI bridge `cni-node0` (hairpin on: a pod can reach
#                itself through its Service)
#   apiserver    https://10.77.0.1:6443, advertised there, so pods (the controller) reach it
#                through the `kubernetes` Service and its certificate holds IP:10.96.0.1
#   etcd         127.0.0.1:12379 (ports below the ephemeral range the test harnesses use)
#   DNS          CoreDNS on the host, bound to 10.77.0.1:53 (UDP and TCP) and serving
#                cluster.local from the API server (kubernetes plugin, its own least-privilege
#                user); kubelet gives pods --cluster-dns 10.77.0.1, so `{isvc}-predictor.{ns}`
#                resolves as in any cluster. Names outside cluster.local do not exist (NXDOMAIN),
#                never forwarded: pods reach nothing outside this machine. Readiness on 127.0.0.1:10254.
#                (Bound on the node address rather than behind a kube-dns Service: it needs
#                neither kube-proxy nor mirrored Endpoints to answer, and the host reaches it too.)
# State: $KNODE_STATE (default /run/kserve-ts-node): certificates, configs, logs, kubelet's
# root, containerd's state. containerd's content store lives under
# ${XDG_CACHE_HOME:-$HOME/.cache}/kserve-ts/kube-node so an image imported once is not
# imported again (each image's docker ID is stamped); nothing runs from it after `down`.
#
# Images: the pause image (a static C program built with gcc) and the kserve-ts images at
# package.json's version, built by scripts/build-images.sh: server, storage-initializer and
# controller must be there (the charts run nothing without them); server-tensorflow, the
# model-iris modelcar, custom-model, transformer, router, server-cuda, metrics-server (the
# resource metrics API the autoscaling suite deploys; the apiserver has the front-proxy client
# certificate aggregated APIs need), keda (KEDA's operator, the KEDA suite) and traefik (the
# canary suite's Gateway API implementation) are imported
# when they have been built (the suites and docs/kubernetes.md sections 5-7 use them;
# server-cuda, 2.6 GB, only the GPU runtime suite) and named as skipped otherwise. KNODE_IMAGES="IMG ..." replaces
# the required list (and then nothing optional is imported).
# They are `docker save`d from the private engine (scripts/docker-engine.sh, started if
# needed) and imported with `ctr import`; pods use imagePullPolicy IfNotPresent or Never.
#
# `down` leaves nothing: pods are deleted while kubelet still runs (CNI releases veths and
# addresses), then every process is stopped by its pid file (containerd shims by their
# socket path), mounts under the state folders are unmounted, the two bridges (and so the
# Service route) deleted, kube-proxy's and kubelet's iptables/nftables rules removed,
# kubelet's cgroups (kubepods) removed and the kernel settings kubelet changes restored.
# It then checks and reports anything left, with a non-zero exit. It also cleans up after a
# node killed outright (pod processes are then found by their cgroups), and a failed `up`
# runs it itself. Machine-wide cleanup happens only for a node started here (a marker in
# the cache folder), never for another Kubernetes' KUBE-* rules or cgroups.
#
# Needs: root, the binaries of scripts/kube-test-binaries.sh and scripts/coredns-binary.sh
# (built on first use), Debian's
# containerd, runc, containernetworking-plugins, iptables, gcc (installed if missing).
set -euo pipefail
# With pipefail, `cmd | grep -q` fails when grep exits at its first match and cmd then dies of
# SIGPIPE: a match read as no match (an image imported again, a leftover not reported). The
# pipelines below let grep read everything (`>/dev/null` instead of -q).

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
S="${KNODE_STATE:-/run/kserve-ts-node}"
CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/kserve-ts/kube-node"
CTR_ROOT="$CACHE/containerd"
ACTIVE="$CACHE/active"
NODE_IP=10.77.0.1
NODE_BRIDGE=knode0
POD_BRIDGE=cni-node0
POD_CIDR=10.88.0.0/24
SERVICE_CIDR=10.96.0.0/24
API_SERVICE_IP=10.96.0.1
API_PORT=6443
ETCD_PORT=12379
DNS_READY_PORT=10254
CLUSTER_DOMAIN=cluster.local
NODE_NAME=knode
CNI_NET=kserve-ts-node
PAUSE_IMAGE=local/pause:1
SOCK="$S/containerd/containerd.sock"
DOCKER="${DOCKER:-/usr/bin/docker}"
VERSION="$(node -p 'require(process.argv[1]).version' "$ROOT/package.json" 2>/dev/null || echo 0.1.0)"
if [[ -n "${KNODE_IMAGES:-}" ]]; then
  OPTIONAL_IMAGES=""
else
  KNODE_IMAGES="kserve-ts-server:$VERSION kserve-ts-storage-initializer:$VERSION kserve-ts-controller:$VERSION"
  OPTIONAL_IMAGES="kserve-ts-server-tensorflow:$VERSION kserve-ts-router:$VERSION kserve-ts-model-iris:$VERSION kserve-ts-custom-model:$VERSION kserve-ts-transformer:$VERSION kserve-ts-server-cuda:$VERSION kserve-ts-metrics-server:$VERSION kserve-ts-keda:$VERSION kserve-ts-traefik:$VERSION"
fi
# Kernel settings kubelet sets at start (setupKernelTunables); `down` puts the old values back.
KUBELET_SYSCTLS=(vm.overcommit_memory vm.panic_on_oom kernel.panic kernel.panic_on_oops kernel.keys.root_maxkeys kernel.keys.root_maxbytes)
# Start order; `down` stops in reverse.
COMPONENTS=(etcd kube-apiserver kube-controller-manager kube-scheduler coredns containerd kubelet kube-proxy)
# Controllers a one-node cluster needs for workloads, GC, service accounts, HPA and PDBs.
CONTROLLERS=deployment-controller,replicaset-controller,garbage-collector-controller,namespace-controller,serviceaccount-controller,serviceaccount-token-controller,root-ca-certificate-publisher-controller,endpoints-controller,endpointslice-controller,endpointslice-mirroring-controller,clusterrole-aggregation-controller,horizontal-pod-autoscaler-controller,disruption-controller,pod-garbage-collector-controller,node-lifecycle-controller,job-controller,ttl-after-finished-controller

UP_DONE=0
log() { echo "[kube-node] $*" >&2; }
die() { log "error: $*"; exit 1; }

pid_of() { [[ -f "$S/pids/$1" ]] && cat "$S/pids/$1"; }
# A process that has exited but is not yet reaped (its parent is init here, which reaps only
# now and then) counts as gone.
running() { [[ -r /proc/$1/stat ]] && ! grep -q '^[0-9]* ([^)]*) Z' "/proc/$1/stat" 2>/dev/null; }
alive() { local p; p="$(pid_of "$1")" && [[ -n "$p" ]] && running "$p"; }
kubectl() { "$BIN/kubectl" --kubeconfig "$S/kubeconfig" "$@"; }
ctr_() { ctr --address "$SOCK" -n k8s.io "$@"; }

# wait_until SECONDS DESCRIPTION COMPONENT CMD...: polls CMD every 0.25 s; fails with the
# component's log tail when it exits or the time runs out.
wait_until() {
  local secs=$1 what=$2 comp=$3
  shift 3
  local deadline=$((SECONDS + secs))
  until "$@" >/dev/null 2>&1; do
    if [[ -n "$comp" ]] && ! alive "$comp"; then
      log "$comp exited while waiting for $what; its log:"
      tail -n 30 "$S/logs/$comp.log" >&2 || true
      return 1
    fi
    if ((SECONDS >= deadline)); then
      log "timed out after ${secs}s waiting for $what"
      if [[ -n "$comp" ]]; then
        log "$comp's log:"
        tail -n 30 "$S/logs/$comp.log" >&2 || true
      fi
      return 1
    fi
    sleep 0.25
  done
}

# start NAME CMD...: a session of its own (no signal from the caller's terminal), output
# to logs/NAME.log, pid to pids/NAME.
start() {
  local name=$1
  shift
  log "starting $name"
  setsid "$@" >"$S/logs/$name.log" 2>&1 </dev/null &
  echo $! >"$S/pids/$name"
}

ensure_packages() {
  local missing=()
  command -v containerd >/dev/null || missing+=(containerd)
  command -v runc >/dev/null || missing+=(runc)
  [[ -x /usr/lib/cni/bridge && -x /usr/lib/cni/host-local && -x /usr/lib/cni/loopback ]] || missing+=(containernetworking-plugins)
  command -v iptables >/dev/null || missing+=(iptables)
  command -v nft >/dev/null || missing+=(nftables)
  command -v conntrack >/dev/null || missing+=(conntrack)
  command -v gcc >/dev/null || missing+=(gcc libc6-dev)
  command -v openssl >/dev/null || missing+=(openssl)
  [[ ${#missing[@]} -eq 0 ]] && return 0
  log "installing ${missing[*]} (Debian)"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2
  apt-get install -y -qq "${missing[@]}" >&2
}

# ---------------------------------------------------------------- certificates

# cert NAME CN O SANS: a key and a certificate signed by the node's CA ("" = no SAN / no O).
cert() {
  local name=$1 cn=$2 o=$3 sans=$4 d="$S/certs"
  local subj="/CN=$cn"
  [[ -n "$o" ]] && subj="/O=$o/CN=$cn"
  # EC keys: an RSA key takes a good part of a second on a loaded machine, and there are nine.
  openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout "$d/$name.key" -out "$d/$name.csr" -subj "$subj" 2>/dev/null
  {
    echo "basicConstraints=CA:FALSE"
    echo "keyUsage=critical,digitalSignature,keyEncipherment"
    if [[ -n "$sans" ]]; then
      echo "extendedKeyUsage=serverAuth,clientAuth"
      echo "subjectAltName=$sans"
    else
      echo "extendedKeyUsage=clientAuth"
    fi
  } >"$d/$name.ext"
  openssl x509 -req -in "$d/$name.csr" -CA "$d/ca.crt" -CAkey "$d/ca.key" -CAcreateserial \
    -days 30 -extfile "$d/$name.ext" -out "$d/$name.crt" 2>/dev/null
  rm -f "$d/$name.csr" "$d/$name.ext"
}

make_certs() {
  local d="$S/certs"
  mkdir -p "$d"
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout "$d/ca.key" -out "$d/ca.crt" -days 30 \
    -subj "/CN=kserve-ts-node-ca" 2>/dev/null
  # Pods reach the apiserver as 10.96.0.1 (the `kubernetes` Service) or by its DNS names;
  # the host as 10.77.0.1.
  cert apiserver kube-apiserver "" \
    "IP:$API_SERVICE_IP,IP:$NODE_IP,IP:127.0.0.1,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local,DNS:localhost"
  # The apiserver's client certificate towards kubelet (logs, exec, port-forward).
  cert apiserver-kubelet-client kube-apiserver-kubelet-client system:masters ""
  # kubelet's serving certificate: the apiserver dials it at the node IP.
  cert kubelet-serving "$NODE_NAME" "" "IP:$NODE_IP,DNS:$NODE_NAME"
  cert admin admin system:masters ""
  cert kube-controller-manager system:kube-controller-manager "" ""
  cert kube-scheduler system:kube-scheduler "" ""
  cert kubelet "system:node:$NODE_NAME" system:nodes ""
  cert kube-proxy system:kube-proxy "" ""
  cert coredns system:coredns "" ""
  # The apiserver's client certificate towards aggregated API servers (metrics-server's
  # metrics.k8s.io): its CN is the one --requestheader-allowed-names lets vouch for a user.
  cert front-proxy-client front-proxy-client "" ""
  openssl genrsa -out "$d/sa.key" 2048 2>/dev/null
  openssl rsa -in "$d/sa.key" -pubout -out "$d/sa.pub" 2>/dev/null
}

# kubeconfig USER: a kubeconfig for that user's client certificate.
kubeconfig_for() {
  local user=$1 d="$S/certs"
  cat <<EOF
apiVersion: v1
kind: Config
clusters:
  - name: kserve-ts-node
    cluster:
      server: https://$NODE_IP:$API_PORT
      certificate-authority-data: $(base64 -w0 "$d/ca.crt")
users:
  - name: $user
    user:
      client-certificate-data: $(base64 -w0 "$d/$user.crt")
      client-key-data: $(base64 -w0 "$d/$user.key")
contexts:
  - name: kserve-ts-node
    context: { cluster: kserve-ts-node, user: $user, namespace: default }
current-context: kserve-ts-node
EOF
}

# ---------------------------------------------------------------- network

setup_network() {
  # A port-less bridge holds the node IP; the Service range is routed into it.
  ip link show "$NODE_BRIDGE" >/dev/null 2>&1 || ip link add "$NODE_BRIDGE" type bridge
  ip addr replace "$NODE_IP/32" dev "$NODE_BRIDGE"
  ip link set "$NODE_BRIDGE" up
  ip route replace "$SERVICE_CIDR" dev "$NODE_BRIDGE"
  mkdir -p "$S/cni/net.d" "$S/cni/ipam"
  cat >"$S/cni/net.d/10-$CNI_NET.conflist" <<EOF
{
  "cniVersion": "0.4.0",
  "name": "$CNI_NET",
  "plugins": [
    {
      "type": "bridge",
      "bridge": "$POD_BRIDGE",
      "isGateway": true,
      "ipMasq": false,
      "hairpinMode": true,
      "ipam": {
        "type": "host-local",
        "ranges": [[{ "subnet": "$POD_CIDR", "gateway": "10.88.0.1" }]],
        "routes": [{ "dst": "0.0.0.0/0" }],
        "dataDir": "$S/cni/ipam"
      }
    }
  ]
}
EOF
}

# ---------------------------------------------------------------- containerd and images

write_containerd_config() {
  mkdir -p "$S/containerd" "$CTR_ROOT"
  cat >"$S/containerd/config.toml" <<EOF
version = 2
root = "$CTR_ROOT"
state = "$S/containerd/state"
disabled_plugins = ["io.containerd.snapshotter.v1.aufs", "io.containerd.snapshotter.v1.btrfs", "io.containerd.snapshotter.v1.devmapper", "io.containerd.snapshotter.v1.zfs", "io.containerd.tracing.processor.v1.otlp", "io.containerd.internal.v1.tracing"]

[grpc]
  address = "$SOCK"
[ttrpc]
  address = "$SOCK.ttrpc"

[plugins."io.containerd.internal.v1.opt"]
  path = "$S/containerd/opt"

[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "docker.io/$PAUSE_IMAGE"
  # runc cannot lower oom_score_adj here (no CAP_SYS_RESOURCE): without this it fails with
  # "can't get final child's PID from pipe: EOF".
  restrict_oom_score_adj = true
  disable_apparmor = true
  enable_selinux = false
  stream_server_address = "127.0.0.1"
  stream_server_port = "0"
  # Pod network namespaces under the state folder, not /run/netns.
  netns_mounts_under_state_dir = true
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        SystemdCgroup = false
        Root = "$S/containerd/runc"
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = "$S/cni/net.d"
    max_conf_num = 1
EOF
}

docker_env() {
  [[ -n "${DOCKER_HOST:-}" ]] && "$DOCKER" version >/dev/null 2>&1 && return 0
  eval "$(bash "$ROOT/scripts/docker-engine.sh" start)"
}

ensure_pause_image() {
  "$DOCKER" image inspect "$PAUSE_IMAGE" >/dev/null 2>&1 && return 0
  local d
  d="$(mktemp -d)"
  cat >"$d/pause.c" <<'EOF'
/* The pod sandbox's process: holds the namespaces, exits on SIGTERM/SIGINT. */
#include <signal.h>
#include <unistd.h>
static void done(int sig) { (void)sig; _exit(0); }
int main(void) {
  signal(SIGTERM, done);
  signal(SIGINT, done);
  for (;;) pause();
}
EOF
  gcc -static -Os -o "$d/pause" "$d/pause.c"
  strip "$d/pause"
  tar -C "$d" -cf "$d/pause.tar" pause
  "$DOCKER" import -c 'ENTRYPOINT ["/pause"]' "$d/pause.tar" "$PAUSE_IMAGE" >/dev/null
  rm -rf "$d"
}

# IMAGES: the required images (a missing one is an error) and the optional ones built.
node_images() {
  local img
  IMAGES="$KNODE_IMAGES"
  for img in $KNODE_IMAGES; do
    "$DOCKER" image inspect "$img" >/dev/null 2>&1 ||
      die "image $img is missing from the docker engine: run scripts/build-images.sh first"
  done
  for img in $OPTIONAL_IMAGES; do
    if "$DOCKER" image inspect "$img" >/dev/null 2>&1; then
      IMAGES+=" $img"
    else
      local name="${img#kserve-ts-}"
      log "$img is not built, so not imported (scripts/build-images.sh ${name%%:*} builds it)"
    fi
  done
}

# Imports an image unless containerd has it at the same docker image ID (stamped).
import_image() {
  local img=$1 id stamp ref
  id="$("$DOCKER" image inspect -f '{{.Id}}' "$img" 2>/dev/null)" ||
    die "image $img is missing from the docker engine: run scripts/build-images.sh first"
  stamp="$CACHE/imported/${img//[:\/]/_}"
  ref="docker.io/$img"
  [[ "$img" == */* ]] || ref="docker.io/library/$img"
  if [[ -f "$stamp" && "$(cat "$stamp")" == "$id" ]] && ctr_ images ls -q | grep -xF "$ref" >/dev/null; then
    return 0
  fi
  log "importing $img into the node's containerd"
  local start=$SECONDS
  "$DOCKER" save "$img" | ctr_ images import - >/dev/null
  log "imported $img in $((SECONDS - start)) s"
  mkdir -p "$CACHE/imported"
  echo "$id" >"$stamp"
}

# ---------------------------------------------------------------- DNS

# CoreDNS as kubeadm deploys it, but on the host: read access to what the kubernetes plugin
# watches, for its own user (the `coredns` certificate), then the server on the node address.
start_dns() {
  kubectl apply -f - >/dev/null <<EOF
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: { name: "system:coredns" }
rules:
  - { apiGroups: [""], resources: [endpoints, services, pods, namespaces], verbs: [list, watch] }
  - { apiGroups: [discovery.k8s.io], resources: [endpointslices], verbs: [list, watch] }
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: { name: "system:coredns" }
roleRef: { apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: "system:coredns" }
subjects: [{ apiGroup: rbac.authorization.k8s.io, kind: User, name: "system:coredns" }]
EOF
  mkdir -p "$S/coredns"
  # No forward plugin: a name outside the cluster's zones does not exist (NXDOMAIN, so a
  # resolver's search list ends in "not found" at once), and pods never query anything beyond
  # this machine. `pods insecure` answers a-b-c-d.<ns>.pod names as kubeadm's CoreDNS does.
  cat >"$S/coredns/Corefile" <<EOF
.:53 {
    bind $NODE_IP
    template ANY ANY {
        rcode NXDOMAIN
    }
}
$CLUSTER_DOMAIN:53 in-addr.arpa:53 ip6.arpa:53 {
    bind $NODE_IP
    errors
    ready 127.0.0.1:$DNS_READY_PORT
    kubernetes $CLUSTER_DOMAIN in-addr.arpa ip6.arpa {
        kubeconfig $S/coredns.kubeconfig kserve-ts-node
        pods insecure
        ttl 5
    }
    cache 5
}
EOF
  start coredns "$COREDNS" -conf "$S/coredns/Corefile"
}

# ---------------------------------------------------------------- up

up() {
  [[ $EUID -eq 0 ]] || die "must run as root (bridges, routes, iptables, mounts)"
  if [[ -d "$S" ]]; then
    if all_running; then
      # Images built since the node came up (or rebuilt) are imported now.
      docker_env
      node_images
      for img in $IMAGES; do import_image "$img"; done
      log "already up"
      echo "$S/kubeconfig"
      return 0
    fi
    log "a previous node is partly up: taking it down first"
    down
  fi
  local t0=$SECONDS
  ensure_packages
  BIN="$(bash "$ROOT/scripts/kube-test-binaries.sh")"
  COREDNS="$(bash "$ROOT/scripts/coredns-binary.sh")"
  # The images first: a missing one is a clear error before anything has started.
  docker_env
  node_images
  # From here on a failure takes down whatever was started.
  trap 'if [[ $UP_DONE != 1 ]]; then log "up failed: taking down what was started"; down >/dev/null 2>&1 || true; fi' EXIT
  for port in $ETCD_PORT $((ETCD_PORT + 1)) $DNS_READY_PORT; do
    if ss -Hltn "sport = :$port" | grep . >/dev/null; then die "port $port is taken: the node needs it"; fi
  done
  # A resolver bound to every address on :53 would keep CoreDNS off the node address.
  if ss -Hlun "sport = :53" | grep -E '(0\.0\.0\.0|\*|\[::\]):53 ' >/dev/null; then die "UDP port 53 is taken on all addresses: CoreDNS needs $NODE_IP:53"; fi
  mkdir -p "$S/pids" "$S/logs" "$S/kubelet" "$S/pod-logs" "$CACHE"
  # Outlives a crash that loses $S: `down` then still knows the machine-wide leftovers are ours.
  touch "$ACTIVE"
  echo "$BIN" >"$S/bin"
  for k in "${KUBELET_SYSCTLS[@]}"; do echo "$k=$(sysctl -n "$k")"; done >"$S/sysctls"
  make_certs
  for u in admin kube-controller-manager kube-scheduler kubelet kube-proxy coredns; do
    kubeconfig_for "$u" >"$S/$u.kubeconfig"
  done
  cp "$S/admin.kubeconfig" "$S/kubeconfig"
  setup_network

  start etcd "$BIN/etcd" --name=knode --data-dir="$S/etcd" \
    --listen-client-urls="http://127.0.0.1:$ETCD_PORT" --advertise-client-urls="http://127.0.0.1:$ETCD_PORT" \
    --listen-peer-urls="http://127.0.0.1:$((ETCD_PORT + 1))" --initial-advertise-peer-urls="http://127.0.0.1:$((ETCD_PORT + 1))" \
    --initial-cluster="knode=http://127.0.0.1:$((ETCD_PORT + 1))" --unsafe-no-fsync --log-level=warn
  # containerd and the images do not depend on the control plane: in parallel with it.
  write_containerd_config
  start containerd containerd --config "$S/containerd/config.toml"
  wait_until 30 "etcd" etcd curl -sf "http://127.0.0.1:$ETCD_PORT/health"

  start kube-apiserver "$BIN/kube-apiserver" \
    --etcd-servers="http://127.0.0.1:$ETCD_PORT" \
    --bind-address="$NODE_IP" --advertise-address="$NODE_IP" --secure-port="$API_PORT" \
    --tls-cert-file="$S/certs/apiserver.crt" --tls-private-key-file="$S/certs/apiserver.key" \
    --client-ca-file="$S/certs/ca.crt" \
    --service-cluster-ip-range="$SERVICE_CIDR" \
    --service-account-key-file="$S/certs/sa.pub" --service-account-signing-key-file="$S/certs/sa.key" \
    --service-account-issuer=https://kubernetes.default.svc.cluster.local \
    --authorization-mode=Node,RBAC --allow-privileged=true \
    --kubelet-client-certificate="$S/certs/apiserver-kubelet-client.crt" \
    --kubelet-client-key="$S/certs/apiserver-kubelet-client.key" \
    --kubelet-certificate-authority="$S/certs/ca.crt" \
    --kubelet-preferred-address-types=InternalIP \
    --requestheader-client-ca-file="$S/certs/ca.crt" --requestheader-allowed-names=front-proxy-client \
    --requestheader-username-headers=X-Remote-User --requestheader-group-headers=X-Remote-Group \
    --requestheader-extra-headers-prefix=X-Remote-Extra- \
    --proxy-client-cert-file="$S/certs/front-proxy-client.crt" --proxy-client-key-file="$S/certs/front-proxy-client.key" \
    --enable-aggregator-routing=true \
    --profiling=false
  wait_until 30 "containerd" containerd ctr_ version
  ensure_pause_image
  for img in "$PAUSE_IMAGE" $IMAGES; do import_image "$img"; done
  wait_until 60 "kube-apiserver /readyz" kube-apiserver kubectl get --raw /readyz

  start kube-controller-manager "$BIN/kube-controller-manager" \
    --kubeconfig="$S/kube-controller-manager.kubeconfig" \
    --authentication-kubeconfig="$S/kube-controller-manager.kubeconfig" \
    --authorization-kubeconfig="$S/kube-controller-manager.kubeconfig" \
    --controllers="$CONTROLLERS" --leader-elect=false --bind-address=127.0.0.1 --secure-port=0 \
    --service-account-private-key-file="$S/certs/sa.key" --root-ca-file="$S/certs/ca.crt" \
    --use-service-account-credentials=true --cluster-cidr="$POD_CIDR" \
    --horizontal-pod-autoscaler-sync-period=5s --profiling=false
  start kube-scheduler "$BIN/kube-scheduler" \
    --kubeconfig="$S/kube-scheduler.kubeconfig" \
    --authentication-kubeconfig="$S/kube-scheduler.kubeconfig" \
    --authorization-kubeconfig="$S/kube-scheduler.kubeconfig" \
    --leader-elect=false --secure-port=0 --profiling=false
  start_dns

  cat >"$S/kubelet-config.yaml" <<EOF
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
failCgroupV1: false
# containerd 1.6 lacks the RuntimeConfig call: the driver must be explicit.
cgroupDriver: cgroupfs
failSwapOn: false
enforceNodeAllocatable: []
address: $NODE_IP
port: 10250
readOnlyPort: 0
healthzBindAddress: 127.0.0.1
healthzPort: 10248
containerRuntimeEndpoint: unix://$SOCK
tlsCertFile: $S/certs/kubelet-serving.crt
tlsPrivateKeyFile: $S/certs/kubelet-serving.key
authentication:
  anonymous: { enabled: true }
  webhook: { enabled: false }
  x509: { clientCAFile: $S/certs/ca.crt }
authorization: { mode: AlwaysAllow }
evictionHard:
  memory.available: 100Mi
  nodefs.available: 1%
  nodefs.inodesFree: 1%
  imagefs.available: 1%
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
clusterDomain: $CLUSTER_DOMAIN
clusterDNS: [$NODE_IP]
podLogsDir: $S/pod-logs
resolvConf: /etc/resolv.conf
syncFrequency: 10s
nodeStatusUpdateFrequency: 10s
fileCheckFrequency: 10s
maxPods: 40
serializeImagePulls: false
EOF
  start kubelet "$BIN/kubelet" --config="$S/kubelet-config.yaml" --kubeconfig="$S/kubelet.kubeconfig" \
    --root-dir="$S/kubelet" --cert-dir="$S/kubelet/pki" --node-ip="$NODE_IP" --hostname-override="$NODE_NAME"

  cat >"$S/kube-proxy-config.yaml" <<EOF
apiVersion: kubeproxy.config.k8s.io/v1alpha1
kind: KubeProxyConfiguration
clientConnection: { kubeconfig: $S/kube-proxy.kubeconfig }
hostnameOverride: $NODE_NAME
mode: iptables
clusterCIDR: $POD_CIDR
detectLocalMode: ClusterCIDR
nodePortAddresses: ["$NODE_IP/32"]
iptables: { localhostNodePorts: false }
# Zeros leave the machine's conntrack sysctls alone.
conntrack: { maxPerCore: 0, tcpEstablishedTimeout: 0s, tcpCloseWaitTimeout: 0s }
healthzBindAddress: 127.0.0.1:10256
metricsBindAddress: 127.0.0.1:10249
EOF
  start kube-proxy "$BIN/kube-proxy" --config="$S/kube-proxy-config.yaml"

  wait_until 60 "node $NODE_NAME Ready" kubelet \
    kubectl wait --for=condition=Ready "node/$NODE_NAME" --timeout=2s
  wait_until 60 "the default ServiceAccount" kube-controller-manager kubectl get serviceaccount default -n default
  wait_until 30 "kube-proxy healthz" kube-proxy curl -sf http://127.0.0.1:10256/healthz
  # Ready once the kubernetes plugin has synced Services and EndpointSlices.
  wait_until 30 "CoreDNS ready" coredns curl -sf "http://127.0.0.1:$DNS_READY_PORT/ready"
  UP_DONE=1
  log "up in $((SECONDS - t0)) s; kubeconfig: $S/kubeconfig"
  echo "$S/kubeconfig"
}

all_running() {
  local c
  for c in "${COMPONENTS[@]}"; do alive "$c" || return 1; done
}

# ---------------------------------------------------------------- down

# stop_component NAME: SIGTERM, then SIGKILL after 15 s.
stop_component() {
  local name=$1 pid
  pid="$(pid_of "$name")" || return 0
  if running "$pid"; then
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 1 150); do running "$pid" || break; sleep 0.1; done
    if running "$pid"; then
      log "$name did not stop in 15 s: killing it"
      kill -KILL "$pid" 2>/dev/null || true
      sleep 0.2
    fi
  fi
  rm -f "$S/pids/$name"
}

# Processes started from this node that outlive their parent: containerd's shims and the
# containers under them carry the state folder in their command line.
node_pids() {
  local p cmd
  for p in /proc/[0-9]*; do
    cmd="$(tr '\0' ' ' 2>/dev/null <"$p/cmdline")" || continue
    [[ "$cmd" == *"$S/"* || "$cmd" == *"$CTR_ROOT"* ]] && echo "${p#/proc/}"
  done
  return 0
}

delete_pods() {
  alive kube-apiserver && alive kubelet || return 0
  # Nothing re-creates pods once the controllers are stopped.
  stop_component kube-controller-manager
  local ns
  for ns in $(kubectl get namespaces -o jsonpath='{.items[*].metadata.name}' 2>/dev/null); do
    kubectl delete pods --all -n "$ns" --grace-period=2 --wait=false >/dev/null 2>&1 || true
  done
  # kubelet tears each sandbox down (CNI DEL releases the veth and the address).
  local deadline=$((SECONDS + 60))
  while ((SECONDS < deadline)); do
    local brif=0 pods
    [[ -d /sys/class/net/$POD_BRIDGE/brif ]] && brif="$(ls /sys/class/net/$POD_BRIDGE/brif | wc -l)"
    pods="$(kubectl get pods -A --no-headers 2>/dev/null | wc -l || true)"
    ((brif == 0 && pods == 0)) && return 0
    sleep 0.5
  done
  log "pods or veths still present after 60 s; removing them without kubelet"
}

remove_containers() {
  [[ -S "$SOCK" ]] && alive containerd || return 0
  local id
  for id in $(ctr_ tasks ls -q 2>/dev/null); do ctr_ tasks kill -s SIGKILL "$id" >/dev/null 2>&1 || true; done
  sleep 0.5
  for id in $(ctr_ tasks ls -q 2>/dev/null); do ctr_ tasks delete -f "$id" >/dev/null 2>&1 || true; done
  for id in $(ctr_ containers ls -q 2>/dev/null); do ctr_ containers delete "$id" >/dev/null 2>&1 || true; done
}

unmount_all() {
  local m
  # Deepest first; a lazy unmount for anything still busy.
  for m in $(findmnt -rn -o TARGET | grep -E "^($S|$CTR_ROOT)(/|$)" | sort -r); do
    umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || log "could not unmount $m"
  done
}

# Rules of kube-proxy and kubelet: every KUBE-* chain and every jump into one.
clean_iptables() {
  local cmd table chain rule
  for cmd in iptables ip6tables; do
    command -v "$cmd" >/dev/null || continue
    for table in filter nat mangle raw; do
      "$cmd-save" -t "$table" 2>/dev/null | grep 'KUBE-' >/dev/null || continue
      while read -r rule; do
        # shellcheck disable=SC2086
        eval "$cmd -t $table -D ${rule#-A }" 2>/dev/null || true
      done < <("$cmd-save" -t "$table" | grep -E '^-A ' | grep -vE '^-A KUBE-' | grep -E -- '-j KUBE-')
      for chain in $("$cmd-save" -t "$table" | sed -n 's/^:\(KUBE-[^ ]*\) .*/\1/p'); do
        "$cmd" -t "$table" -F "$chain" 2>/dev/null || true
      done
      for chain in $("$cmd-save" -t "$table" | sed -n 's/^:\(KUBE-[^ ]*\) .*/\1/p'); do
        "$cmd" -t "$table" -X "$chain" 2>/dev/null || true
      done
    done
  done
  local fam
  for fam in ip ip6; do nft delete table "$fam" kube-proxy 2>/dev/null || true; done
}

# Pod processes whose shim died (containerd or the node killed outright) are reparented to
# init and carry nothing of ours in their command line: find them by kubelet's cgroups.
kill_pod_processes() {
  local p left
  for _ in 1 2 3 4 5 6 7 8 9 10; do
    left="$(find /sys/fs/cgroup/*/kubepods /sys/fs/cgroup/kubepods -name cgroup.procs -exec cat {} + 2>/dev/null | sort -u || true)"
    [[ -z "$left" ]] && return 0
    for p in $left; do kill -KILL "$p" 2>/dev/null || true; done
    sleep 0.3
  done
}

remove_cgroups() {
  local d
  for d in /sys/fs/cgroup/*/kubepods /sys/fs/cgroup/kubepods; do
    [[ -d "$d" ]] || continue
    find "$d" -depth -type d -exec rmdir {} + 2>/dev/null || true
  done
}

leftovers() {
  local left=()
  local p
  for p in $(node_pids); do left+=("process $p: $(tr '\0' ' ' 2>/dev/null </proc/$p/cmdline | cut -c1-120)"); done
  for c in "${COMPONENTS[@]}"; do alive "$c" && left+=("$c (pid $(pid_of "$c"))"); done
  findmnt -rn -o TARGET | grep -E "^($S|$CTR_ROOT)(/|$)" >/dev/null && left+=("mounts under $S or $CTR_ROOT")
  for l in "$NODE_BRIDGE" "$POD_BRIDGE"; do ip link show "$l" >/dev/null 2>&1 && left+=("link $l"); done
  ip route show "$SERVICE_CIDR" | grep . >/dev/null && left+=("route $SERVICE_CIDR")
  { iptables-save 2>/dev/null; ip6tables-save 2>/dev/null; } | grep 'KUBE-' >/dev/null && left+=("iptables KUBE-* rules")
  nft list tables 2>/dev/null | grep kube-proxy >/dev/null && left+=("nftables kube-proxy tables")
  compgen -G '/sys/fs/cgroup/*/kubepods' >/dev/null && left+=("cgroups kubepods")
  [[ -d "$S" ]] && left+=("state folder $S")
  printf '%s\n' "${left[@]}"
}

down() {
  [[ $EUID -eq 0 ]] || die "must run as root"
  BIN="$(cat "$S/bin" 2>/dev/null || true)"
  if [[ -d "$S" ]]; then
    local t0=$SECONDS
    log "stopping the node"
    [[ -n "$BIN" ]] && delete_pods
    # Parallel stops wait on their own jobs only: run from a failed `up`, this shell is also
    # the parent of the components it started.
    local jobs=()
    stop_component kube-scheduler & jobs+=($!)
    stop_component coredns & jobs+=($!)
    stop_component kube-controller-manager & jobs+=($!)
    stop_component kubelet & jobs+=($!)
    wait "${jobs[@]}"
    remove_containers
    stop_component kube-proxy
    if [[ -n "$BIN" && -f "$S/kube-proxy-config.yaml" ]]; then
      "$BIN/kube-proxy" --cleanup --config="$S/kube-proxy-config.yaml" >>"$S/logs/kube-proxy-cleanup.log" 2>&1 || true
    fi
    jobs=()
    stop_component containerd & jobs+=($!)
    stop_component kube-apiserver & jobs+=($!)
    wait "${jobs[@]}"
    stop_component etcd
    local p
    for p in $(node_pids); do kill -KILL "$p" 2>/dev/null || true; done
    kill_pod_processes
    unmount_all
    if [[ -f "$S/sysctls" ]]; then
      while IFS='=' read -r k v; do sysctl -qw "$k=$v" || true; done <"$S/sysctls"
    fi
    log "stopped in $((SECONDS - t0)) s"
  fi
  if [[ ! -d "$S" && ! -f "$ACTIVE" ]]; then
    # Never started here (or fully down): KUBE-* rules and kubepods cgroups, if any, belong
    # to someone else's Kubernetes.
    log "not running"
    return 0
  fi
  # What a crashed or killed node may have left, even without its state folder.
  ip link del "$POD_BRIDGE" 2>/dev/null || true
  ip link del "$NODE_BRIDGE" 2>/dev/null || true
  clean_iptables
  kill_pod_processes
  remove_cgroups
  rm -f /var/lib/cni/results/"$CNI_NET"-* 2>/dev/null || true
  # libcni's cache folder, made on first use; kept when something else uses it.
  rmdir /var/lib/cni/results /var/lib/cni 2>/dev/null || true
  find /var/log/containers -maxdepth 1 -type l -lname "$S/*" -delete 2>/dev/null || true
  unmount_all
  rm -rf "$S"
  local left
  left="$(leftovers)"
  if [[ -n "$left" ]]; then
    log "left behind:"
    echo "$left" | sed 's/^/  /' >&2
    return 1
  fi
  rm -f "$ACTIVE"
  log "down: nothing left"
}

status() {
  if [[ ! -d "$S" ]]; then
    echo "down"
    return 3
  fi
  BIN="$(cat "$S/bin")"
  local c ok=0
  for c in "${COMPONENTS[@]}"; do
    if alive "$c"; then echo "$c: running (pid $(pid_of "$c"))"; else echo "$c: NOT running"; ok=1; fi
  done
  echo "node $NODE_NAME: $(kubectl get node "$NODE_NAME" -o jsonpath='{.status.conditions[?(@.type=="Ready")].status}' 2>/dev/null || echo unknown) (Ready)"
  echo "kubeconfig: $S/kubeconfig"
  return $ok
}

# The node's kubectl (same version as the API server: no skew warning) and helm in one folder
# put first on PATH. helm is built by scripts/helm-tools.sh on first use (a few minutes).
env_lines() {
  [[ -f "$S/bin" ]] || die "the node is not up: scripts/kube-node.sh up"
  local helm_bin
  helm_bin="$(bash "$ROOT/scripts/helm-tools.sh")"
  mkdir -p "$S/path"
  ln -sfn "$(cat "$S/bin")/kubectl" "$S/path/kubectl"
  ln -sfn "$helm_bin/helm" "$S/path/helm"
  echo "export KUBECONFIG=$S/kubeconfig PATH=$S/path:\$PATH"
}

case "${1:-}" in
  up) up ;;
  down) down ;;
  status) status ;;
  env) env_lines ;;
  *) echo "usage: $0 up|down|status|env" >&2; exit 2 ;;
esac
