#!/usr/bin/env bash
# A real kapp-controller on the devpkg test control plane.
#
#   test/harness/kapp-controller.sh build   build (or find cached) the kapp-controller binary
#   test/harness/kapp-controller.sh render  print the manifests that `up` applies
#   test/harness/kapp-controller.sh up      apply kapp-controller's CRDs, RBAC, namespaces and
#                                           APIService, start controller + sidecarexec, wait until
#                                           the packaging API is Available; prints `export` lines
#   test/harness/kapp-controller.sh down    stop both processes, remove what `up` created on disk
#   test/harness/kapp-controller.sh status  exit 0 when both processes run
#
# `up` needs the harness environment (test/harness/controlplane.sh exports it): KUBECONFIG (an
# admin kubeconfig), DEVPKG_HARNESS_DIR, and PATH with ytt, kbld, kapp and vendir. kubectl is
# taken from PATH (the machine image has one).
#
# Only `export` lines go to stdout; everything else goes to stderr and
# $DEVPKG_HARNESS_DIR/logs/kapp-controller-harness.log.
#
# How it is wired (see /work/notes/readme-kapp-controller.md for the why):
# - kapp-controller is built from its Go module with a wrapper module whose replace directives are
#   generated from kapp-controller's own go.mod (test/harness/gen-replaces.py).
# - The manifests are kapp-controller's own config/ from the Go module cache, rendered with ytt and
#   kapp-controller/harness-overlay.yml (no Deployment; packaging-api is an ExternalName Service to
#   localhost on the API port).
# - The controller runs "in cluster" as kapp-controller-sa: its packaging API server only knows
#   in-cluster config, read from hard-coded paths. It runs in a private mount namespace where a
#   harness directory is bind-mounted over /var/run/secrets/kubernetes.io/serviceaccount (token
#   from the TokenRequest API, the apiserver CA) and another over /home/kapp-controller (where it
#   writes its self-signed serving certificate). Nothing is written to those paths on the host; a
#   missing mount point directory is created empty, and removed by the `down` that finds no
#   kapp-controller (of any harness) mounted on it any more.
set -euo pipefail

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
HARNESS_NAME=kapp-controller
GO_BUILDS="kapp-controller is built from its Go module"
GO_FLAGS=-mod=mod
KC_SRC=$HARNESS_SRC

KAPP_CONTROLLER_VERSION="${KAPP_CONTROLLER_VERSION:-v0.51.0}"
# The Go module proxy serves kapp-controller under its old path only.
KAPP_CONTROLLER_MODULE="${KAPP_CONTROLLER_MODULE:-github.com/vmware-tanzu/carvel-kapp-controller}"
# Bump when the build recipe below changes, to invalidate cached builds.
KC_RECIPE_REV=1

KC_NAMESPACE="${KAPPCTRL_NAMESPACE:-kapp-controller}"
KC_GLOBAL_NAMESPACE="${KAPPCTRL_GLOBAL_NAMESPACE:-kapp-controller-packaging-global}"
KC_SA=kapp-controller-sa
SA_MOUNT=/var/run/secrets/kubernetes.io/serviceaccount
HOME_MOUNT=/home/kapp-controller

kc_build_dir() { printf '%s/build/kapp-controller-%s-kc%s' "$DEVPKG_CACHE" "$KAPP_CONTROLLER_VERSION" "$KC_RECIPE_REV"; }
kc_binary() { printf '%s/bin/kapp-controller' "$(kc_build_dir)"; }

# Directory of kapp-controller's module source in the module cache (downloads it if needed).
kc_module_dir() { module_dir "$KAPP_CONTROLLER_MODULE" "$KAPP_CONTROLLER_VERSION"; }

cmd_build() {
  local bin; bin=$(kc_binary)
  if [ -x "$bin" ]; then log "$KAPP_CONTROLLER_VERSION: cached ($bin)"; return 0; fi
  go_env
  take_build_lock
  if [ -x "$bin" ]; then exec 9>&-; log "$KAPP_CONTROLLER_VERSION: cached ($bin)"; return 0; fi
  local out; out=$(kc_build_dir)
  local work="$DEVPKG_CACHE/src/kapp-controller-$KAPP_CONTROLLER_VERSION"
  local started=$SECONDS
  rm -rf "$work" "$out.tmp"; mkdir -p "$work" "$out.tmp/bin"
  local dl gomod
  dl=$(cd "$work" && go mod download -json "$KAPP_CONTROLLER_MODULE@$KAPP_CONTROLLER_VERSION") \
    || die "go mod download $KAPP_CONTROLLER_MODULE@$KAPP_CONTROLLER_VERSION failed"
  gomod=$(printf '%s' "$dl" | python3 -c 'import json,sys; print(json.load(sys.stdin)["GoMod"])')
  (
    cd "$work"
    go mod init devpkg.test/harness/kapp-controller >/dev/null 2>&1
    # Copy kapp-controller's replace directives (and go/godebug lines) into the wrapper module.
    local flags; flags=$(go mod edit -json "$gomod" | python3 "$KC_SRC/gen-replaces.py" "$KAPP_CONTROLLER_VERSION")
    log "wrapper module flags from upstream go.mod: $(echo "$flags" | tr '\n' ' ')"
    # shellcheck disable=SC2086
    go mod edit $flags -require="$KAPP_CONTROLLER_MODULE@$KAPP_CONTROLLER_VERSION"
    go get "$KAPP_CONTROLLER_MODULE/cmd/controller@$KAPP_CONTROLLER_VERSION" >&2
    log "$KAPP_CONTROLLER_VERSION: go build (slow on two cores)"
    # main.Version feeds kapp-controller's own version (kappControllerVersionSelection).
    go build -trimpath -ldflags "-s -w -X main.Version=${KAPP_CONTROLLER_VERSION#v}" \
      -o "$out.tmp/bin/kapp-controller" "$KAPP_CONTROLLER_MODULE/cmd/controller" >&2
  ) || die "building kapp-controller $KAPP_CONTROLLER_VERSION failed (work dir $work)"
  rm -rf "$out"; mv "$out.tmp" "$out"
  printf 'kapp-controller %s (%s) built in %ss with %s\n' "$KAPP_CONTROLLER_VERSION" "$KAPP_CONTROLLER_MODULE" \
    "$((SECONDS - started))" "$(go version)" > "$out/BUILDINFO"
  log "$KAPP_CONTROLLER_VERSION: built in $((SECONDS - started))s"
  rm -rf "$work"
  exec 9>&-
}

# Render kapp-controller's own config/ with the harness overlay.
render() { # api-port
  local dir; dir=$(kc_module_dir)
  command -v ytt >/dev/null 2>&1 || die "ytt is not on PATH (the harness puts it there)"
  ytt -f "$dir/config/config" -f "$dir/config/values-schema.yml" \
    -f "$dir/config/overlays/controller-config-overlay.yml" \
    -f "$dir/config/overlays/crd-overlay.yml" \
    -f "$KC_SRC/kapp-controller/harness-overlay.yml" \
    --data-value namespace="$KC_NAMESPACE" \
    --data-value packagingGlobalNamespace="$KC_GLOBAL_NAMESPACE" \
    --data-value-yaml apiPort="$1" \
    --data-value-yaml enableApiPriorityAndFairness=false
}

harness_dirs() {
  [ -n "${DEVPKG_HARNESS_DIR:-}" ] || die "DEVPKG_HARNESS_DIR is not set; run through test/harness/controlplane.sh up --kapp-controller"
  KC_DIR="$DEVPKG_HARNESS_DIR/kapp-controller"
  LOG_DIR="$DEVPKG_HARNESS_DIR/logs"
  CONTROLLER_LOG="$LOG_DIR/kapp-controller.log"
  SIDECAR_LOG="$LOG_DIR/kapp-controller-sidecarexec.log"
  mkdir -p "$LOG_DIR"
  HARNESS_LOG="$LOG_DIR/kapp-controller-harness.log"
}

# A pid from a pid file, only if that process is still the kapp-controller binary we started.
kc_pid() { # pidfile
  [ -f "$1" ] || return 1
  local pid; pid=$(cat "$1")
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || return 1
  tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null | grep -q "$(kc_binary)" || return 1
  printf '%s' "$pid"
}

wait_until() { # seconds what cmd...
  local secs=$1 what=$2; shift 2
  local deadline=$((SECONDS + secs)) rc
  while true; do
    rc=0; "$@" >/dev/null 2>&1 || rc=$?
    [ $rc = 0 ] && return 0
    [ $rc = 2 ] && { log "gave up waiting for $what"; return 1; }
    [ $SECONDS -ge $deadline ] && { log "timed out after ${secs}s waiting for $what"; return 1; }
    sleep 0.5
  done
}

print_exports() {
  cat <<EOF
export KAPPCTRL_VERSION=$(q "$KAPP_CONTROLLER_VERSION")
export KAPPCTRL_NAMESPACE=$(q "$KC_NAMESPACE")
export KAPPCTRL_GLOBAL_NAMESPACE=$(q "$KC_GLOBAL_NAMESPACE")
export KAPPCTRL_LOG=$(q "$CONTROLLER_LOG")
export KAPPCTRL_SIDECAREXEC_LOG=$(q "$SIDECAR_LOG")
export KAPPCTRL_API_PORT=$(q "$(cat "$KC_DIR/api-port")")
EOF
}

# Mount point directories on the host. Several harnesses (different DEVPKG_HARNESS_DIRs) may run
# kapp-controllers at once, each in its own mount namespace over the same mount points, so a
# directory that `up` had to create is listed host-wide in $MOUNTPOINTS_LIST and removed by the
# `down` that finds no process mounted on it any more (removing a directory that is a mount point
# in another namespace would detach that mount there). $MOUNTPOINTS_LOCK orders the checks.
MOUNTPOINTS_LIST="$DEVPKG_CACHE/kapp-controller-mountpoints"
MOUNTPOINTS_LOCK="$DEVPKG_CACHE/kapp-controller-mountpoints.lock"

ensure_mountpoint() { # path
  local p=$1 top=""
  while [ ! -e "$p" ]; do top=$p; p=$(dirname "$p"); done
  if [ -n "$top" ]; then
    mkdir -p "$1"
    echo "$top" >> "$MOUNTPOINTS_LIST"
  fi
  [ -d "$1" ] || die "$1 exists and is not a directory"
}

# Is any process (of any harness) in another mount namespace mounted on our mount points?
mountpoints_in_use() {
  local self f ns
  self=$(readlink /proc/self/ns/mnt)
  for f in /proc/[0-9]*; do
    ns=$(readlink "$f/ns/mnt" 2>/dev/null) || continue
    [ "$ns" = "$self" ] && continue
    awk '$5 == "/run/secrets/kubernetes.io/serviceaccount" || $5 == "/var/run/secrets/kubernetes.io/serviceaccount" ||
         $5 == "/home/kapp-controller" { found = 1; exit } END { exit !found }' "$f/mountinfo" 2>/dev/null && return 0
  done
  return 1
}

remove_unused_mountpoints() {
  [ -f "$MOUNTPOINTS_LIST" ] || return 0
  if mountpoints_in_use; then
    log "mount points still used by another harness's kapp-controller; leaving them"
    return 0
  fi
  local d
  while read -r d; do
    # Only directories this script created, and only while empty.
    [ -n "$d" ] && [ -d "$d" ] && find "$d" -depth -type d -empty -delete 2>/dev/null || true
  done < "$MOUNTPOINTS_LIST"
  rm -f "$MOUNTPOINTS_LIST"
}

cmd_up() {
  harness_dirs
  [ -n "${KUBECONFIG:-}" ] || die "KUBECONFIG is not set"
  local tool; for tool in kubectl ytt kbld kapp vendir unshare python3; do
    command -v "$tool" >/dev/null 2>&1 || die "$tool is not on PATH"
  done
  if kc_pid "$KC_DIR/controller.pid" >/dev/null && kc_pid "$KC_DIR/sidecarexec.pid" >/dev/null; then
    log "already running (pids $(cat "$KC_DIR/controller.pid") $(cat "$KC_DIR/sidecarexec.pid"))"
    print_exports; return 0
  fi
  local started=$SECONDS
  cmd_build
  # A failed `up` leaves nothing running behind it.
  trap 'if [ "${KC_UP_OK:-0}" != 1 ]; then stop_pidfile "$KC_DIR/controller.pid" controller; stop_pidfile "$KC_DIR/sidecarexec.pid" sidecarexec; fi' EXIT
  mkdir -p "$KC_DIR"
  rm -rf "$KC_DIR/sa" "$KC_DIR/home" "$KC_DIR/mem-tmp"
  mkdir -p "$KC_DIR/sa" "$KC_DIR/home" "$KC_DIR/mem-tmp"
  chmod 700 "$KC_DIR/sa"

  local port
  port=$(free_port)
  echo "$port" > "$KC_DIR/api-port"

  log "applying kapp-controller $KAPP_CONTROLLER_VERSION config (CRDs, namespaces, RBAC, APIService on port $port)"
  render "$port" > "$KC_DIR/manifests.yml"
  kubectl apply --server-side --force-conflicts --field-manager=devpkg-harness -f "$KC_DIR/manifests.yml" >&2
  kubectl wait --for=condition=Established --timeout=60s \
    crd/apps.kappctrl.k14s.io crd/packageinstalls.packaging.carvel.dev \
    crd/packagerepositories.packaging.carvel.dev crd/internalpackages.internal.packaging.carvel.dev \
    crd/internalpackagemetadatas.internal.packaging.carvel.dev >&2

  # In-cluster identity: a bound token of kapp-controller-sa and the apiserver's CA.
  local server hostport host sport
  server=$(kubectl config view --minify -o jsonpath='{.clusters[0].cluster.server}')
  hostport=${server#https://}; hostport=${hostport%%/*}
  host=${hostport%:*}; sport=${hostport##*:}
  [ "$host" != "$hostport" ] || sport=443
  host=${host#[}; host=${host%]}
  kubectl config view --raw --minify --flatten -o jsonpath='{.clusters[0].cluster.certificate-authority-data}' \
    | base64 -d > "$KC_DIR/sa/ca.crt"
  [ -s "$KC_DIR/sa/ca.crt" ] || die "the kubeconfig has no certificate-authority for $server"
  kubectl create token "$KC_SA" -n "$KC_NAMESPACE" --duration=24h > "$KC_DIR/sa/token"
  printf '%s' "$KC_NAMESPACE" > "$KC_DIR/sa/namespace"

  local sock="$KC_DIR/mem-tmp/sidecarexec.sock"
  if [ ${#sock} -gt 100 ]; then # unix socket paths are limited to 108 bytes
    sock=$(mktemp -d /tmp/kc-sock.XXXXXX)/sidecarexec.sock
    echo "${sock%/*}" > "$KC_DIR/sock-dir"
  fi

  # sidecarexec runs vendir/ytt/kbld for the controller; like upstream's pod it has no
  # service-account token, and its HOME is a harness directory (no docker credentials of root's).
  # Each process writes its own pid just before exec'ing kapp-controller; setsid detaches it
  # from the caller's session so it outlives `up`.
  log "starting sidecarexec"
  rm -f "$KC_DIR/sidecarexec.pid" "$KC_DIR/controller.pid"
  (
    cd "$KC_DIR/mem-tmp"
    exec env -u KUBECONFIG HOME="$KC_DIR/home" KAPPCTRL_SIDECAREXEC_SOCK="$sock" \
      setsid /bin/sh -c 'echo $$ > "$1" && shift && exec "$@"' \
        sh "$KC_DIR/sidecarexec.pid" "$(kc_binary)" --sidecarexec
  ) >>"$SIDECAR_LOG" 2>&1 </dev/null 8>&- 9>&- &
  wait_until 30 "sidecarexec socket $sock" test -S "$sock" \
    || die "sidecarexec did not start; see $SIDECAR_LOG"

  mkdir -p "$DEVPKG_CACHE"
  exec 8>"$MOUNTPOINTS_LOCK"
  flock 8
  ensure_mountpoint "$SA_MOUNT"
  ensure_mountpoint "$HOME_MOUNT"
  log "starting controller (API port $port, in-cluster as $KC_NAMESPACE/$KC_SA via $host:$sport)"
  (
    cd "$KC_DIR/mem-tmp"
    exec env -u KUBECONFIG \
      HOME="$HOME_MOUNT" \
      KUBERNETES_SERVICE_HOST="$host" KUBERNETES_SERVICE_PORT="$sport" \
      KAPPCTRL_SYSTEM_NAMESPACE="$KC_NAMESPACE" \
      KAPPCTRL_API_PORT="$port" \
      KAPPCTRL_MEM_TMP_DIR="$KC_DIR/mem-tmp" \
      KAPPCTRL_SIDECAREXEC_SOCK="$sock" \
      setsid unshare --mount --propagation private -- /bin/sh -c \
        'mount --bind "$1" "$2" && mount --bind "$3" "$4" && echo $$ > "$5" && shift 5 && exec "$@"' \
        sh "$KC_DIR/sa" "$SA_MOUNT" "$KC_DIR/home" "$HOME_MOUNT" "$KC_DIR/controller.pid" \
        "$(kc_binary)" \
        -packaging-global-namespace="$KC_GLOBAL_NAMESPACE" \
        -enable-api-priority-and-fairness=false \
        -metrics-bind-address=0 \
        -concurrency=4
  ) >>"$CONTROLLER_LOG" 2>&1 </dev/null 8>&- 9>&- &
  wait_until 30 "controller process" controller_mounted \
    || die "kapp-controller did not start; see $CONTROLLER_LOG"
  exec 8>&-

  if ! wait_until 120 "APIService v1alpha1.data.packaging.carvel.dev Available" api_available; then
    tail -n 30 "$CONTROLLER_LOG" >&2 || true
    local why
    why=$(kubectl get apiservice v1alpha1.data.packaging.carvel.dev \
      -o jsonpath='{.status.conditions[?(@.type=="Available")].message}' 2>&1 || true)
    log "APIService Available condition: $why"
    case $why in *ExternalName*)
      log "hint: kube-apiserver must run with --enable-aggregator-routing=false to reach an ExternalName Service" ;;
    esac
    die "kapp-controller's packaging API did not become Available; see $CONTROLLER_LOG"
  fi
  wait_until 30 "controller started" grep -q '"starting manager"\|Starting workers' "$CONTROLLER_LOG" \
    || die "kapp-controller did not start its controllers; see $CONTROLLER_LOG"
  kc_pid "$KC_DIR/controller.pid" >/dev/null || die "kapp-controller exited; see $CONTROLLER_LOG"
  KC_UP_OK=1
  log "kapp-controller $KAPP_CONTROLLER_VERSION up in $((SECONDS - started))s"
  print_exports
}

controller_mounted() { # its pid is written after both bind mounts are in place
  [ -s "$KC_DIR/controller.pid" ] || return 1
  kill -0 "$(cat "$KC_DIR/controller.pid")" 2>/dev/null || return 2
}

api_available() {
  kc_pid "$KC_DIR/controller.pid" >/dev/null || { log "controller process exited"; return 2; }
  [ "$(kubectl get apiservice v1alpha1.data.packaging.carvel.dev \
    -o jsonpath='{.status.conditions[?(@.type=="Available")].status}')" = True ]
}

stop_pidfile() { # pidfile name
  local pid
  if pid=$(kc_pid "$1"); then
    log "stopping $2 (pid $pid)"
    kill -TERM "$pid" 2>/dev/null || true
    local i; for i in $(seq 1 40); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
    kill -0 "$pid" 2>/dev/null && { log "$2 did not stop on TERM; killing"; kill -KILL "$pid" 2>/dev/null || true; }
  fi
  rm -f "$1"
}

cmd_down() {
  harness_dirs
  [ -d "$KC_DIR" ] || { log "nothing to stop"; return 0; }
  stop_pidfile "$KC_DIR/controller.pid" controller
  stop_pidfile "$KC_DIR/sidecarexec.pid" sidecarexec
  # An APIService whose server is gone makes discovery fail for every client of the control
  # plane; `up` applies it again.
  if [ -n "${KUBECONFIG:-}" ] && [ -f "$KC_DIR/manifests.yml" ] && command -v kubectl >/dev/null 2>&1; then
    kubectl delete apiservice v1alpha1.data.packaging.carvel.dev --ignore-not-found \
      --request-timeout=10s >&2 2>/dev/null || log "could not delete the packaging APIService (control plane down?)"
  fi
  mkdir -p "$DEVPKG_CACHE"
  exec 8>"$MOUNTPOINTS_LOCK"
  flock 8
  remove_unused_mountpoints
  exec 8>&-
  [ -f "$KC_DIR/sock-dir" ] && { rm -rf "$(cat "$KC_DIR/sock-dir")"; rm -f "$KC_DIR/sock-dir"; }
  rm -rf "$KC_DIR/sa" "$KC_DIR/home" "$KC_DIR/mem-tmp"
  log "down (logs kept in $LOG_DIR)"
}

cmd_status() {
  harness_dirs
  kc_pid "$KC_DIR/controller.pid" >/dev/null && kc_pid "$KC_DIR/sidecarexec.pid" >/dev/null
}

case "${1:-}" in
  build) cmd_build ;;
  render) render "${2:-10350}" ;;
  up) cmd_up ;;
  down) cmd_down ;;
  status) cmd_status ;;
  *) echo "usage: $0 build|render [port]|up|down|status" >&2; exit 2 ;;
esac
