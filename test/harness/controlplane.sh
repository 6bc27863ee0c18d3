#!/usr/bin/env bash
# devpkg test harness: a real control plane (etcd, kube-apiserver, kube-controller-manager),
# a real OCI registry (Debian's docker-registry) and the Carvel CLIs, all on loopback.
#
#   controlplane.sh up [--kapp-controller] [--tkg]
#                                            build what is missing, start, wait until healthy,
#                                            print `export` lines on stdout; --tkg (implies
#                                            --kapp-controller) makes the stand-in TKG controllers
#                                            ready to start (test/harness/tkg.sh)
#   controlplane.sh down                     stop the processes this harness started (by their
#                                            recorded PIDs; Cluster API's manager and the TKG
#                                            controllers too) and remove the state directory
#   controlplane.sh restart-apiserver        stop kube-apiserver and start it again with the
#                                            same flags and port
#   controlplane.sh build                    only build / install (no processes)
#   controlplane.sh check                    fail, naming each, when a command the tests need is missing
#   controlplane.sh commands                 list those commands and what provides each
#   controlplane.sh env                      print the exports of a running harness
#   controlplane.sh status                   exit 0 when every process is up and healthy
#
# Environment: DEVPKG_HARNESS_DIR (state, default /tmp/devpkg-harness),
# DEVPKG_CACHE (builds, default ~/.cache/devpkg).
# stdout carries only `export NAME='value'` lines; all logging goes to stderr.
# Process logs: $DEVPKG_HARNESS_DIR/logs/<name>.log
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

DEVPKG_HARNESS_DIR="${DEVPKG_HARNESS_DIR:-/tmp/devpkg-harness}"
D=$DEVPKG_HARNESS_DIR
MARKER="$D/.devpkg-harness"
PROCS=(etcd kube-apiserver kube-controller-manager registry) # start order
KAPP_CONTROLLER_SH="$HARNESS_SRC/kapp-controller.sh"
TKG_SH="$HARNESS_SRC/tkg.sh"
CAPI_SH="$HARNESS_SRC/capi.sh"

# ---------------------------------------------------------------- certificates

gen_cert() { # name subject san-or-empty usage(serverAuth|clientAuth) [ca-name]
  local name=$1 subj=$2 san=$3 usage=$4 ca=${5:-ca}
  local ext="$D/certs/$name.ext"
  {
    echo "basicConstraints=critical,CA:FALSE"
    echo "keyUsage=critical,digitalSignature,keyEncipherment"
    echo "extendedKeyUsage=$usage"
    [ -n "$san" ] && echo "subjectAltName=$san"
  } > "$ext"
  openssl ecparam -name prime256v1 -genkey -noout -out "$D/certs/$name.key" 2>/dev/null
  openssl req -new -key "$D/certs/$name.key" -subj "$subj" -out "$D/certs/$name.csr" 2>/dev/null
  openssl x509 -req -in "$D/certs/$name.csr" -CA "$D/certs/$ca.crt" -CAkey "$D/certs/$ca.key" \
    -CAcreateserial -days 3650 -sha256 -extfile "$ext" -out "$D/certs/$name.crt" 2>/dev/null
  rm -f "$D/certs/$name.csr" "$ext"
}

gen_ca() { # name cn
  openssl ecparam -name prime256v1 -genkey -noout -out "$D/certs/$1.key" 2>/dev/null
  openssl req -x509 -new -key "$D/certs/$1.key" -subj "/CN=$2" -days 3650 -sha256 \
    -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign,digitalSignature" \
    -out "$D/certs/$1.crt" 2>/dev/null
}

gen_certs() {
  mkdir -p "$D/certs"
  local san="IP:127.0.0.1,IP:10.96.0.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default"
  san+=",DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local"
  # Also the machine's own addresses, so a process that cannot use loopback can still verify.
  local ip
  for ip in $(hostname -I 2>/dev/null || true); do
    case $ip in *:*) ;; *) san+=",IP:$ip" ;; esac
  done
  gen_ca ca devpkg-harness-ca
  gen_ca front-proxy-ca devpkg-harness-front-proxy-ca
  gen_cert apiserver /CN=kube-apiserver "$san" serverAuth
  gen_cert admin "/O=system:masters/CN=devpkg-admin" "" clientAuth
  gen_cert kube-controller-manager /CN=system:kube-controller-manager "" clientAuth
  gen_cert front-proxy-client /CN=front-proxy-client "" clientAuth front-proxy-ca
  gen_cert kube-controller-manager-serving /CN=kube-controller-manager "IP:127.0.0.1,DNS:localhost" serverAuth
  openssl genrsa -out "$D/certs/sa.key" 2048 2>/dev/null
  openssl rsa -in "$D/certs/sa.key" -pubout -out "$D/certs/sa.pub" 2>/dev/null
  chmod 600 "$D"/certs/*.key
}

write_kubeconfig() { # file user cert-name
  local file=$1 user=$2 cert=$3
  cat > "$file" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: devpkg-harness
  cluster:
    server: https://127.0.0.1:$API_PORT
    certificate-authority-data: $(base64 -w0 < "$D/certs/ca.crt")
users:
- name: $user
  user:
    client-certificate-data: $(base64 -w0 < "$D/certs/$cert.crt")
    client-key-data: $(base64 -w0 < "$D/certs/$cert.key")
contexts:
- name: devpkg-harness
  context:
    cluster: devpkg-harness
    user: $user
    namespace: default
current-context: devpkg-harness
EOF
  chmod 600 "$file"
}

# ---------------------------------------------------------------- processes

load_ports() { [ -f "$D/ports.env" ] && . "$D/ports.env"; }

# proc_args_file, proc_pid_file, our_pid, stop_proc and wait_started: lib.sh.

# Start NAME with the argv stored in run/NAME.args (one argument per line, binary first),
# detached from our session so it outlives the caller, logging to logs/NAME.log.
start_proc() { # name
  local name=$1 args=() line
  while IFS= read -r line; do args+=("$line"); done < "$(proc_args_file "$name")"
  log "starting $name (log: $D/logs/$name.log)"
  # 8>&-: the daemon must not inherit the harness lock.
  setsid "${args[@]}" >>"$D/logs/$name.log" 2>&1 </dev/null 8>&- &
  echo $! > "$(proc_pid_file "$name")"
}

write_args() { # name arg... (binary first)
  local name=$1; shift
  printf '%s\n' "$@" > "$(proc_args_file "$name.tmp")"
  mv "$(proc_args_file "$name.tmp")" "$(proc_args_file "$name")"
}

bin() { printf '%s/bin/%s' "$D" "$1"; }

# ---------------------------------------------------------------- health

curl_admin() { # path
  curl -sf --max-time 5 --cacert "$D/certs/ca.crt" --cert "$D/certs/admin.crt" --key "$D/certs/admin.key" \
    "https://127.0.0.1:$API_PORT$1"
}
etcd_healthy() { curl -sf --max-time 5 "http://127.0.0.1:$ETCD_PORT/health" | grep -q '"health":"true"'; }
apiserver_healthy() { curl_admin /readyz >/dev/null; }
kcm_healthy() { curl -skf --max-time 5 "https://127.0.0.1:$KCM_PORT/healthz" >/dev/null; }
registry_healthy() { curl -sf --max-time 5 -o /dev/null "http://127.0.0.1:$REGISTRY_PORT/v2/"; }

proc_healthy() { # name
  case $1 in
    etcd) etcd_healthy ;;
    kube-apiserver) apiserver_healthy ;;
    kube-controller-manager) kcm_healthy ;;
    registry) registry_healthy ;;
  esac
}

wait_healthy() { wait_started "$1" "$2" healthy proc_healthy "$1"; } # name seconds

all_healthy() {
  [ -f "$MARKER" ] && load_ports || return 1
  local p
  for p in "${PROCS[@]}"; do
    our_pid "$p" >/dev/null && proc_healthy "$p" || return 1
  done
}

# ---------------------------------------------------------------- exports

print_exports() {
  load_ports
  # PATH: our bin first, then the caller's PATH without an earlier copy of our bin.
  local rest
  rest=$(printf '%s' "$PATH" | tr ':' '\n' | grep -vxF "$D/bin" | paste -sd: -)
  cat <<EOF
export DEVPKG_HARNESS_DIR=$(q "$D")
export KUBECONFIG=$(q "$D/kubeconfig")
export DEVPKG_TEST_APISERVER=$(q "https://127.0.0.1:$API_PORT")
export DEVPKG_TEST_REGISTRY=$(q "127.0.0.1:$REGISTRY_PORT")
export DEVPKG_TEST_KUBERNETES_VERSION=$(q "$KUBERNETES_VERSION")
export PATH=$(q "$D/bin:$rest")
EOF
}

# ---------------------------------------------------------------- commands

cmd_build() {
  "$HARNESS_SRC/build.sh" 8>&-
}

link_bins() {
  mkdir -p "$D/bin"
  local b c v path
  while read -r b c v; do
    path=$(binary_path "$b")
    [ -x "$path" ] || die "$b was not built ($path missing); run test/harness/controlplane.sh build"
    ln -sfn "$path" "$D/bin/$b"
  done < <(harness_binaries)
}

start_all() {
  local started=$SECONDS
  mkdir -p "$D"/{bin,certs,logs,run,data/etcd,data/registry}
  touch "$MARKER"
  link_bins
  ETCD_PORT=$(free_port); ETCD_PEER_PORT=$(free_port); API_PORT=$(free_port)
  KCM_PORT=$(free_port); REGISTRY_PORT=$(free_port); REGISTRY_DEBUG_PORT=$(free_port)
  cat > "$D/ports.env" <<EOF
ETCD_PORT=$ETCD_PORT
ETCD_PEER_PORT=$ETCD_PEER_PORT
API_PORT=$API_PORT
KCM_PORT=$KCM_PORT
REGISTRY_PORT=$REGISTRY_PORT
REGISTRY_DEBUG_PORT=$REGISTRY_DEBUG_PORT
EOF
  gen_certs
  write_kubeconfig "$D/kubeconfig" devpkg-admin admin
  write_kubeconfig "$D/kube-controller-manager.kubeconfig" system:kube-controller-manager kube-controller-manager

  write_args etcd "$(bin etcd)" \
    --name=devpkg-harness --data-dir="$D/data/etcd" \
    --listen-client-urls="http://127.0.0.1:$ETCD_PORT" --advertise-client-urls="http://127.0.0.1:$ETCD_PORT" \
    --listen-peer-urls="http://127.0.0.1:$ETCD_PEER_PORT" --initial-advertise-peer-urls="http://127.0.0.1:$ETCD_PEER_PORT" \
    --initial-cluster="devpkg-harness=http://127.0.0.1:$ETCD_PEER_PORT" \
    --unsafe-no-fsync=true --quota-backend-bytes=2147483648 --log-level=warn
  start_proc etcd
  wait_healthy etcd 60

  local c=$D/certs
  write_args kube-apiserver "$(bin kube-apiserver)" \
    --etcd-servers="http://127.0.0.1:$ETCD_PORT" \
    --bind-address=127.0.0.1 --advertise-address=127.0.0.1 --secure-port="$API_PORT" \
    --tls-cert-file="$c/apiserver.crt" --tls-private-key-file="$c/apiserver.key" \
    --client-ca-file="$c/ca.crt" \
    --service-cluster-ip-range=10.96.0.0/16 \
    --authorization-mode=RBAC \
    --allow-privileged=true \
    --endpoint-reconciler-type=none \
    --service-account-issuer=https://kubernetes.default.svc.cluster.local \
    --service-account-key-file="$c/sa.pub" --service-account-signing-key-file="$c/sa.key" \
    --requestheader-client-ca-file="$c/front-proxy-ca.crt" \
    --requestheader-allowed-names=front-proxy-client \
    --requestheader-username-headers=X-Remote-User \
    --requestheader-group-headers=X-Remote-Group \
    --requestheader-extra-headers-prefix=X-Remote-Extra- \
    --proxy-client-cert-file="$c/front-proxy-client.crt" --proxy-client-key-file="$c/front-proxy-client.key" \
    --enable-aggregator-routing=false \
    --watch-cache="$WATCH_CACHE" \
    --profiling=false \
    --v=1
  start_proc kube-apiserver
  wait_healthy kube-apiserver 120

  write_args kube-controller-manager "$(bin kube-controller-manager)" \
    --kubeconfig="$D/kube-controller-manager.kubeconfig" \
    --authentication-kubeconfig="$D/kube-controller-manager.kubeconfig" \
    --authorization-kubeconfig="$D/kube-controller-manager.kubeconfig" \
    --bind-address=127.0.0.1 --secure-port="$KCM_PORT" \
    --tls-cert-file="$c/kube-controller-manager-serving.crt" --tls-private-key-file="$c/kube-controller-manager-serving.key" \
    --controllers="$KCM_CONTROLLERS" \
    --use-service-account-credentials=true \
    --root-ca-file="$c/ca.crt" \
    --service-account-private-key-file="$c/sa.key" \
    --cluster-signing-cert-file="$c/ca.crt" --cluster-signing-key-file="$c/ca.key" \
    --service-cluster-ip-range=10.96.0.0/16 \
    --leader-elect=false \
    --profiling=false \
    --v=1
  start_proc kube-controller-manager
  wait_healthy kube-controller-manager 60

  cat > "$D/registry.yml" <<EOF
version: 0.1
log:
  level: info
  fields:
    service: registry
storage:
  filesystem:
    rootdirectory: $D/data/registry
  delete:
    enabled: true
http:
  addr: 127.0.0.1:$REGISTRY_PORT
  secret: devpkg-harness-$RANDOM$RANDOM
  debug:
    addr: 127.0.0.1:$REGISTRY_DEBUG_PORT
EOF
  write_args registry "$REGISTRY_BIN" serve "$D/registry.yml"
  start_proc registry
  wait_healthy registry 30
  log "control plane up in $((SECONDS - started))s (state $D)"
}

# Controllers of kube-controller-manager: what Deployments, ReplicaSets, DaemonSets,
# namespaces, garbage collection and service accounts need, plus the aggregation of RBAC
# cluster roles (admin/edit/view) that kapp-controller's service accounts rely on.
KCM_CONTROLLERS=daemonset-controller,deployment-controller,replicaset-controller,statefulset-controller,job-controller,cronjob-controller,namespace-controller,garbage-collector-controller,serviceaccount-controller,serviceaccount-token-controller,root-ca-certificate-publisher-controller,clusterrole-aggregation-controller,endpoints-controller,endpointslice-controller,resourcequota-controller,ttl-after-finished-controller,disruption-controller
REGISTRY_BIN=/usr/bin/docker-registry
# kube-apiserver's watch cache is off by default: with it, a watch resumed from a
# resourceVersion older than the restarted apiserver's first list gets 410 Expired (as on a
# real cluster); without it, watches are served from etcd's history and resume across
# `restart-apiserver`. DEVPKG_HARNESS_WATCH_CACHE=true turns it back on.
WATCH_CACHE="${DEVPKG_HARNESS_WATCH_CACHE:-false}"

kapp_controller() { # up|down, with the harness exports in the environment
  local action=$1
  if [ ! -x "$KAPP_CONTROLLER_SH" ] && [ ! -f "$KAPP_CONTROLLER_SH" ]; then
    [ "$action" = down ] && return 0
    die "--kapp-controller asked for, but $KAPP_CONTROLLER_SH does not exist (it installs kapp-controller on the harness)"
  fi
  local exports; exports=$(print_exports)
  (
    eval "$exports"
    bash "$KAPP_CONTROLLER_SH" "$action" 8>&-
  )
}

tkg() { # up|down, with the harness exports (and kapp-controller's) in the environment
  local action=$1 exports=$2
  (
    eval "$exports"
    bash "$TKG_SH" "$action" 8>&-
  )
}

cmd_up() {
  local with_kc=0 with_tkg=0 arg
  for arg in "$@"; do
    case $arg in
      --kapp-controller) with_kc=1 ;;
      --tkg) with_kc=1 with_tkg=1 ;;
      *) die "up: unknown argument $arg" ;;
    esac
  done
  if [ $with_kc = 1 ] && [ ! -f "$KAPP_CONTROLLER_SH" ]; then
    die "--kapp-controller asked for, but $KAPP_CONTROLLER_SH does not exist (it installs kapp-controller on the harness)"
  fi
  if all_healthy; then
    log "harness already up and healthy ($D)"
  else
    if [ -f "$MARKER" ]; then
      log "found a stale or unhealthy harness in $D; tearing it down first"
      cmd_down
    elif [ -e "$D" ] && [ -n "$(ls -A "$D" 2>/dev/null | grep -v -x -e kind -e logs)" ]; then
      # Only the kind harness's state (kind.sh up, e.g. for a bench) is shared; anything else is not ours.
      die "$D exists, is not empty and is not a harness state directory; set DEVPKG_HARNESS_DIR elsewhere"
    fi
    cmd_build
    command -v "$REGISTRY_BIN" >/dev/null || die "$REGISTRY_BIN missing (Debian package docker-registry)"
    if ! start_all; then
      log "harness failed to start; logs are in $D/logs"
      exit 1
    fi
  fi
  local kc_exports="" tkg_exports=""
  if [ $with_kc = 1 ]; then
    kc_exports=$(kapp_controller up) || die "test/harness/kapp-controller.sh up failed"
  fi
  if [ $with_tkg = 1 ]; then
    tkg_exports=$(tkg up "$(print_exports; printf '%s\n' "$kc_exports" | grep '^export ' || true)") || die "test/harness/tkg.sh up failed"
  fi
  print_exports
  [ -n "$kc_exports" ] && printf '%s\n' "$kc_exports" | grep '^export ' || true
  [ -n "$tkg_exports" ] && printf '%s\n' "$tkg_exports" | grep '^export ' || true
}

cmd_down_core() {
  load_ports || true
  local i
  for ((i = ${#PROCS[@]} - 1; i >= 0; i--)); do stop_proc "${PROCS[$i]}"; done
  # A kind engine (test/harness/kind.sh) keeps its state in $D/kind: stop it before removing $D.
  if [ -d "$D/kind" ]; then "$HARNESS_SRC/kind.sh" down || log "kind.sh down failed; continuing"; fi
  # Remove only a directory this harness made.
  if [ -f "$MARKER" ]; then
    rm -rf "$D"
  fi
}

cmd_down() {
  # Cluster API's manager (test/harness/capi.sh up) and the TKG controllers first (they watch the
  # API), by their recorded PIDs.
  if [ -f "$MARKER" ] && [ -f "$CAPI_SH" ]; then
    (export DEVPKG_HARNESS_DIR="$D"; bash "$CAPI_SH" down 8>&- >/dev/null) || log "capi.sh down failed; continuing"
  fi
  if [ -f "$MARKER" ] && [ -f "$TKG_SH" ]; then
    tkg down "export DEVPKG_HARNESS_DIR='$D'" >/dev/null || log "tkg.sh down failed; continuing"
  fi
  if [ -f "$MARKER" ] && [ -f "$KAPP_CONTROLLER_SH" ]; then
    load_ports || true
    kapp_controller down >/dev/null || log "kapp-controller.sh down failed; continuing"
  fi
  cmd_down_core
  log "harness down"
}

cmd_restart_apiserver() {
  [ -f "$MARKER" ] || die "no harness in $D"
  load_ports
  stop_proc kube-apiserver
  start_proc kube-apiserver
  wait_healthy kube-apiserver 120 || die "kube-apiserver did not come back"
  print_exports
}

cmd_env() {
  all_healthy || die "no healthy harness in $D (run: test/harness/controlplane.sh up)"
  print_exports
}

# One up/down/restart at a time per state directory: a second `up` waits, then finds the
# harness healthy. The lock file sits beside the state directory (which `down` removes).
take_lock() {
  mkdir -p "$(dirname "$D")"
  exec 8>"$D.lock"
  if ! flock -n 8; then
    log "waiting for another controlplane.sh on $D (lock $D.lock)"
    flock -w 7200 8 || die "timed out waiting for the lock $D.lock"
  fi
}

main() {
  local cmd=${1:-}
  [ $# -gt 0 ] && shift
  case $cmd in
    up | down | restart-apiserver) take_lock ;;
  esac
  case $cmd in
    up) cmd_up "$@" ;;
    down) cmd_down ;;
    restart-apiserver) cmd_restart_apiserver ;;
    build) cmd_build ;;
    env) cmd_env ;;
    status) all_healthy ;;
    check) check_commands ;;
    commands) harness_commands ;;
    *) die "usage: controlplane.sh up [--kapp-controller] [--tkg] | down | restart-apiserver | build | check | commands | env | status" ;;
  esac
}

main "$@"
