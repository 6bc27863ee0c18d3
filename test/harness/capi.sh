#!/usr/bin/env bash
# Cluster API's core manager (sigs.k8s.io/cluster-api, CLUSTER_API_VERSION in versions.env) on the
# devpkg test control plane, which then plays the bootstrap cluster of a management-cluster create:
# its ClusterResourceSet controller applies phase 1 into a real (kind) cluster through that
# cluster's <name>-kubeconfig Secret.
#
#   test/harness/capi.sh build    build (or find cached) the manager from the Go module proxy
#   test/harness/capi.sh up       build, apply Cluster API's CRDs, make the webhook serving
#                                 certificate, start the manager; prints `export` lines:
#                                 DEVPKG_CAPI_HARNESS (this script), DEVPKG_CAPI_VERSION,
#                                 DEVPKG_CAPI_CRDS (the module's config/crd/bases folder)
#   test/harness/capi.sh down     stop the manager, remove what `up` wrote
#   test/harness/capi.sh status   exit 0 when the manager runs and is ready
#   test/harness/capi.sh pid      the manager's PID
#   test/harness/capi.sh version  `go version -m` of the binary
#
# `up` needs a running harness (test/harness/controlplane.sh up). Only `export` lines go to
# stdout; logs go to stderr and $DEVPKG_HARNESS_DIR/logs/.
set -euo pipefail

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
HARNESS_NAME=capi
GO_BUILDS="Cluster API's manager is built with Go"

CAPI_MODULE=sigs.k8s.io/cluster-api
capi_build_dir() { component_dir cluster-api "$CLUSTER_API_VERSION"; }
CAPI_BIN="$(capi_build_dir)/bin/cluster-api"

# The -ldflags of upstream's own build (hack/version.sh): what the manager logs as its version.
capi_ldflags() {
  local v=$CLUSTER_API_VERSION major minor info date commit
  major=$(echo "$v" | sed -E 's/^v([0-9]+)\..*/\1/')
  minor=$(echo "$v" | sed -E 's/^v[0-9]+\.([0-9]+)\..*/\1/')
  go_env
  info=$(cd "${TMPDIR:-/tmp}" && go mod download -json "$CAPI_MODULE@$v" | python3 -c 'import json,sys; print(json.load(sys.stdin)["Info"])') \
    || die "go mod download $CAPI_MODULE@$v failed"
  read -r date commit < <(python3 - "$info" <<'PY'
import json, sys
info = json.load(open(sys.argv[1]))
print(info.get("Time") or "1970-01-01T00:00:00Z", (info.get("Origin") or {}).get("Hash") or "")
PY
)
  local pkg=sigs.k8s.io/cluster-api/version
  local ld="-s -w -X $pkg.gitVersion=$v -X $pkg.gitMajor=$major -X $pkg.gitMinor=$minor -X $pkg.gitTreeState=clean -X $pkg.buildDate=$date"
  [ -n "$commit" ] && ld+=" -X $pkg.gitCommit=$commit"
  printf '%s' "$ld"
}

cmd_build() {
  if [ -x "$CAPI_BIN" ]; then log "cluster-api $CLUSTER_API_VERSION: cached ($(capi_build_dir))"; return 0; fi
  take_build_lock
  go_wrapper_build "$(capi_build_dir)" cluster-api "cluster-api" "$CAPI_MODULE" "$CLUSTER_API_VERSION" "$(capi_ldflags)" "" "$CAPI_MODULE"
  exec 9>&-
}


cmd_version() {
  [ -x "$CAPI_BIN" ] || die "the Cluster API manager is not built; run test/harness/capi.sh build"
  go version -m "$CAPI_BIN"
}

# ---------------------------------------------------------------- harness side

PROC=cluster-api-manager

harness_dirs() {
  [ -n "${DEVPKG_HARNESS_DIR:-}" ] || die "DEVPKG_HARNESS_DIR is not set; start the harness first (eval \"\$(test/harness/controlplane.sh up)\")"
  D=$DEVPKG_HARNESS_DIR
  CAPI_DIR="$D/capi"
  mkdir -p "$D/logs" "$D/run"
  HARNESS_LOG="$D/logs/capi-harness.log"
}

need_kube() {
  [ -n "${KUBECONFIG:-}" ] && [ -f "$KUBECONFIG" ] || die "KUBECONFIG is not set to the harness kubeconfig; run through test/harness/controlplane.sh up"
  command -v kubectl >/dev/null 2>&1 || die "kubectl is not on PATH (the harness puts it there)"
}

# Every CRD of the core manager (config/crd/bases of the module: Cluster, Machine*, ClusterClass,
# MachinePool, ClusterResourceSet, ClusterResourceSetBinding) as upstream defines them, from the Go
# module cache. Applied as written: no conversion webhook is configured, so only v1beta1 (their
# storage version) is used. A minimal harness CRD of the same name (test/harness/crds, label
# devpkg.dev/harness=true, installed by the tests) is replaced.
CAPI_CRDS=()
apply_crds() {
  go_env
  local capi f name names=()
  capi=$(module_dir "$CAPI_MODULE" "$CLUSTER_API_VERSION")
  CAPI_CRDS=()
  for f in "$capi"/config/crd/bases/*.yaml; do CAPI_CRDS+=("$f"); done
  [ ${#CAPI_CRDS[@]} -gt 0 ] || die "no CRDs in $capi/config/crd/bases"
  for f in "${CAPI_CRDS[@]}"; do
    # group_plural.yaml -> plural.group
    name=$(basename "$f" .yaml); name="${name#*_}.${name%%_*}"
    names+=("crd/$name")
    if kubectl get crd "$name" -o jsonpath='{.metadata.labels.devpkg\.dev/harness}' 2>/dev/null | grep -qx true; then
      log "replacing the harness's minimal CRD $name with the upstream one"
      kubectl delete crd "$name" --wait=true >&2
    fi
  done
  for f in "${CAPI_CRDS[@]}"; do kubectl apply --server-side --force-conflicts -f "$f" >&2; done
  kubectl wait --for=condition=Established --timeout=60s "${names[@]}" >&2 \
    || die "Cluster API's CRDs did not become Established"
}

# The webhook server's serving certificate (the manager always starts its webhook server and needs
# tls.crt/tls.key). No webhook configuration points the apiserver at it: objects are created as
# written, without upstream's defaulting and validation.
make_certs() {
  local dir="$CAPI_DIR/certs"
  [ -f "$dir/tls.crt" ] && [ -f "$dir/tls.key" ] && return 0
  mkdir -p "$dir"
  openssl req -x509 -newkey rsa:2048 -nodes -days 7 -subj "/CN=cluster-api-webhook.devpkg.test" \
    -addext "subjectAltName=IP:127.0.0.1,DNS:localhost" \
    -keyout "$dir/tls.key" -out "$dir/tls.crt" >/dev/null 2>&1 || die "openssl could not make the webhook certificate in $dir"
}

print_exports() {
  local capi; capi=$(module_dir "$CAPI_MODULE" "$CLUSTER_API_VERSION")
  printf 'export DEVPKG_CAPI_HARNESS=%s\n' "$(q "$HARNESS_SRC/capi.sh")"
  printf 'export DEVPKG_CAPI_CRDS=%s\n' "$(q "$capi/config/crd/bases")"
  printf 'export DEVPKG_CAPI_VERSION=%s\n' "$(q "$CLUSTER_API_VERSION")"
}

ready_url() { printf 'http://127.0.0.1:%s/readyz' "$(sed -n 's/^HEALTH_PORT=//p' "$CAPI_DIR/ports.env" 2>/dev/null)"; }
is_ready() { curl -sf --max-time 2 -o /dev/null "$(ready_url)"; }

cmd_up() {
  harness_dirs
  need_kube
  if our_pid "$PROC" >/dev/null && is_ready; then print_exports; return 0; fi
  cmd_build
  apply_crds
  make_certs
  stop_proc "$PROC"
  local metrics health webhook
  metrics=$(free_port); health=$(free_port); webhook=$(free_port)
  printf 'METRICS_PORT=%s\nHEALTH_PORT=%s\nWEBHOOK_PORT=%s\n' "$metrics" "$health" "$webhook" > "$CAPI_DIR/ports.env"
  mkdir -p "$CAPI_DIR/bin"
  ln -sfn "$CAPI_BIN" "$CAPI_DIR/bin/cluster-api"
  # Metrics and health on loopback. The webhook server has no host flag in this version (it
  # listens on every address, on a free port); nothing calls it. --sync-period 20s (default 10m):
  # two ClusterResourceSets applied at once can each patch the ClusterResourceSetBinding's list
  # with only their own entry (seen here); the next resync re-applies the one that lost it.
  local args=("$CAPI_DIR/bin/cluster-api"
    --kubeconfig="$KUBECONFIG"
    --metrics-bind-addr="127.0.0.1:$metrics" --health-addr="127.0.0.1:$health"
    --webhook-port="$webhook" --webhook-cert-dir="$CAPI_DIR/certs"
    --feature-gates=ClusterResourceSet=true
    --sync-period=20s)
  printf '%s\n' "${args[@]}" > "$(proc_args_file "$PROC")"
  log "starting $PROC $CLUSTER_API_VERSION (log: $D/logs/$PROC.log)"
  # 8>&- 9>&-: the daemon must not inherit the harness or build locks.
  setsid "${args[@]}" >>"$D/logs/$PROC.log" 2>&1 </dev/null 8>&- 9>&- &
  echo $! > "$(proc_pid_file "$PROC")"
  wait_started "$PROC" 120 "ready ($(ready_url))" is_ready || die "$PROC did not become ready"
  print_exports
}

cmd_down() {
  harness_dirs
  stop_proc "$PROC"
  rm -f "$(proc_args_file "$PROC")"
  rm -rf "$CAPI_DIR"
  log "Cluster API manager down"
}

cmd_status() {
  harness_dirs
  our_pid "$PROC" >/dev/null && is_ready
}

cmd_pid() {
  harness_dirs
  our_pid "$PROC" || return 1
  echo
}

case "${1:-}" in
  build) cmd_build ;;
  up) cmd_up ;;
  down) cmd_down ;;
  status) cmd_status ;;
  pid) cmd_pid ;;
  version) cmd_version ;;
  *) die "usage: test/harness/capi.sh build | up | down | status | pid | version" ;;
esac
