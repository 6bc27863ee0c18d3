#!/usr/bin/env bash
# The real TKG 1.6 management-cluster controllers on the devpkg test control plane:
# tanzu-addons-manager and tkr-controller-manager of tanzu-framework v0.25.4, built from the
# source kept in ../shared/src beside the repository (the Go module proxy refuses that module).
#
#   test/harness/tkg.sh build    build (or find cached) both binaries
#   test/harness/tkg.sh up       build, apply the upstream CRDs the controllers need, make the
#                                tkg-system and tkr-system namespaces; prints `export` lines
#   test/harness/tkg.sh start --bom-image REPO --metadata-image REPO
#                                start both controllers for the management cluster whose objects
#                                are in the harness (the stand-in tanzu CLI's create calls this)
#   test/harness/tkg.sh stop     stop both controllers (by their recorded PIDs)
#   test/harness/tkg.sh down     stop, and remove what `up` and `start` wrote on disk
#   test/harness/tkg.sh status   exit 0 when both controllers run
#   test/harness/tkg.sh pids     "name pid" of each running controller
#   test/harness/tkg.sh version  print `go version -m` of both binaries (module path, ldflags)
#
# `up` needs a running harness with kapp-controller (test/harness/controlplane.sh up --tkg does
# both). Only `export` lines go to stdout; logs go to stderr and $DEVPKG_HARNESS_DIR/logs/.
set -euo pipefail

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
HARNESS_NAME=tkg
GO_BUILDS="the TKG controllers are built with Go"
# tanzu-framework's own modules are not in the checksum database.
export GONOSUMDB=github.com/vmware-tanzu
TKG_SRC_DIR=$HARNESS_SRC

# ../shared beside the repository (the tests find ../shared/fixtures the same way).
SHARED_DIR="${DEVPKG_SHARED_DIR:-$(cd "$TKG_SRC_DIR/../../.." && pwd)/shared}"
TF_SRC="$SHARED_DIR/src/tanzu-framework-$TANZU_FRAMEWORK_VERSION"
TKR_PATCH="$TKG_SRC_DIR/tkg/tkr-metrics-bind-addr.patch"
# cluster-api-provider-vsphere v1.3.5 (required by both go.mod files) is refused by the module
# proxy (every v1.3.x but v1.3.1 answers 403); its types are used only by the TKG 2.x
# controllers (--feature-gate-cluster-bootstrap), which TKG 1.x does not run.
CAPV_MODULE=sigs.k8s.io/cluster-api-provider-vsphere
CAPV_BUILD_VERSION=v1.3.1

patch_hash() { sha256sum "$TKR_PATCH" | cut -c1-8; }
tkg_build_dir() {
  printf '%s/build/tanzu-framework-%s-tkg%s-%s' "$DEVPKG_CACHE" "$TANZU_FRAMEWORK_VERSION" "$TKG_RECIPE_REV" "$(patch_hash)"
}
ADDONS_BIN_NAME=tanzu-addons-manager
TKR_BIN_NAME=tkr-controller-manager
tkg_binary() { printf '%s/bin/%s' "$(tkg_build_dir)" "$1"; }

built() { [ -x "$(tkg_binary $ADDONS_BIN_NAME)" ] && [ -x "$(tkg_binary $TKR_BIN_NAME)" ]; }

# A copy of go.mod/go.sum beside the original, with the one module the proxy refuses replaced.
harness_modfile() { # module-dir
  cp "$1/go.mod" "$1/go.harness.mod"
  cp "$1/go.sum" "$1/go.harness.sum"
  go mod edit -replace="$CAPV_MODULE=$CAPV_MODULE@$CAPV_BUILD_VERSION" "$1/go.harness.mod"
}

cmd_build() {
  if built; then log "tanzu-framework $TANZU_FRAMEWORK_VERSION: cached ($(tkg_build_dir))"; return 0; fi
  [ -d "$TF_SRC" ] || die "$TF_SRC is missing: the TKG controllers are built from tanzu-framework's source kept in shared/src beside the repository (set DEVPKG_SHARED_DIR to the folder that holds src/)"
  go_env
  take_build_lock
  if built; then exec 9>&-; log "tanzu-framework $TANZU_FRAMEWORK_VERSION: cached ($(tkg_build_dir))"; return 0; fi
  local out work started=$SECONDS
  out=$(tkg_build_dir)
  work="$DEVPKG_CACHE/src/tanzu-framework-$TANZU_FRAMEWORK_VERSION"
  rm -rf "$work" "$out.tmp"; mkdir -p "$(dirname "$work")" "$out.tmp/bin"
  log "copying $TF_SRC to the build folder $work"
  cp -r "$TF_SRC" "$work"
  chmod -R u+w "$work"
  # GIT_CEILING_DIRECTORIES: git apply works as a plain patch here, never on a repository above.
  (cd "$work" && GIT_CEILING_DIRECTORIES="$(dirname "$work")" git apply "$TKR_PATCH") || die "applying $TKR_PATCH in $work failed"
  harness_modfile "$work"
  harness_modfile "$work/addons"
  local bi=github.com/vmware-tanzu/tanzu-framework/pkg/v1/buildinfo
  local ld="-s -w -X $bi.Version=$TANZU_FRAMEWORK_VERSION -X $bi.SHA=$TANZU_FRAMEWORK_COMMIT"
  (
    cd "$work/addons"
    log "$ADDONS_BIN_NAME: go build (about 5 min on two cores once the modules are downloaded)"
    go build -modfile=go.harness.mod -trimpath -ldflags "$ld" -o "$out.tmp/bin/$ADDONS_BIN_NAME" . >&2
    log "$ADDONS_BIN_NAME: built after $((SECONDS - started))s"
    cd "$work"
    log "$TKR_BIN_NAME: go build"
    go build -modfile=go.harness.mod -trimpath -ldflags "$ld" -o "$out.tmp/bin/$TKR_BIN_NAME" ./pkg/v1/tkr >&2
  ) || die "building the TKG controllers failed (work dir $work)"
  rm -rf "$out"; mv "$out.tmp" "$out"
  printf 'tanzu-framework %s (%s; %s replaced by %s; patch %s) built in %ss with %s\n' \
    "$TANZU_FRAMEWORK_VERSION" "$TANZU_FRAMEWORK_COMMIT" "$CAPV_MODULE" "$CAPV_BUILD_VERSION" \
    "$(basename "$TKR_PATCH")" "$((SECONDS - started))" "$(go version)" > "$out/BUILDINFO"
  log "tanzu-framework $TANZU_FRAMEWORK_VERSION: both controllers built in $((SECONDS - started))s"
  rm -rf "$work"
  exec 9>&-
}

cmd_version() {
  built || die "the TKG controllers are not built; run test/harness/tkg.sh build"
  go version -m "$(tkg_binary $ADDONS_BIN_NAME)" "$(tkg_binary $TKR_BIN_NAME)"
}

# ---------------------------------------------------------------- harness side

PROCS=("$TKR_BIN_NAME" "$ADDONS_BIN_NAME")

harness_dirs() {
  [ -n "${DEVPKG_HARNESS_DIR:-}" ] || die "DEVPKG_HARNESS_DIR is not set; run through test/harness/controlplane.sh up --tkg"
  D=$DEVPKG_HARNESS_DIR
  TKG_DIR="$D/tkg"
  mkdir -p "$D/logs" "$D/run"
  HARNESS_LOG="$D/logs/tkg-harness.log"
}

need_kube() {
  [ -n "${KUBECONFIG:-}" ] && [ -f "$KUBECONFIG" ] || die "KUBECONFIG is not set to the harness kubeconfig; run through test/harness/controlplane.sh up --tkg"
  command -v kubectl >/dev/null 2>&1 || die "kubectl is not on PATH (the harness puts it there)"
}

# proc_args_file, proc_pid_file, our_pid, stop_proc, wait_started, free_port: lib.sh.

start_proc() { # name home arg... (binary first)
  local name=$1 home=$2; shift 2
  printf '%s\n' "$@" > "$(proc_args_file "$name")"
  mkdir -p "$home"
  log "starting $name (log: $D/logs/$name.log)"
  # Its own HOME: tkr-controller-manager writes $HOME/registry_certs from tkr-controller-config.
  # 8>&- 9>&-: the daemon must not inherit the harness or build locks.
  HOME="$home" KUBECONFIG="$KUBECONFIG" setsid "$@" >>"$D/logs/$name.log" 2>&1 </dev/null 8>&- 9>&- &
  echo $! > "$(proc_pid_file "$name")"
}

wait_http() { # name url seconds
  wait_started "$1" "$3" "serving $2" curl -sf --max-time 2 -o /dev/null "$2"
}

# The CRDs the two controllers need, as upstream defines them: Cluster and KubeadmControlPlane of
# cluster-api v1.1.5 (the version tanzu-framework v0.25.4 replaces cluster-api with), from the Go
# module cache; TanzuKubernetesRelease from the tanzu-framework source. kapp-controller's own
# (App, PackageInstall, PackageRepository) come from test/harness/kapp-controller.sh.
apply_crds() {
  go_env
  [ -d "$TF_SRC" ] || die "$TF_SRC is missing: the TKR CRD is read from tanzu-framework's source in shared/src beside the repository"
  local capi
  capi=$(module_dir sigs.k8s.io/cluster-api "$CLUSTER_API_VERSION")
  local f files=(
    "$capi/config/crd/bases/cluster.x-k8s.io_clusters.yaml"
    "$capi/controlplane/kubeadm/config/crd/bases/controlplane.cluster.x-k8s.io_kubeadmcontrolplanes.yaml"
    "$TF_SRC/config/crd/bases/run.tanzu.vmware.com_tanzukubernetesreleases.yaml"
  )
  for f in "${files[@]}"; do [ -f "$f" ] || die "$f is missing"; done
  # A minimal harness CRD of the same name (test/harness/crds, installed by the tests) is replaced.
  local name
  for name in clusters.cluster.x-k8s.io kubeadmcontrolplanes.controlplane.cluster.x-k8s.io tanzukubernetesreleases.run.tanzu.vmware.com; do
    if kubectl get crd "$name" -o jsonpath='{.metadata.labels.devpkg\.dev/harness}' 2>/dev/null | grep -qx true; then
      log "replacing the harness's minimal CRD $name with the upstream one"
      kubectl delete crd "$name" --wait=true >&2
    fi
  done
  for f in "${files[@]}"; do kubectl apply --server-side --force-conflicts -f "$f" >&2; done
  kubectl wait --for=condition=Established --timeout=60s crd/clusters.cluster.x-k8s.io \
    crd/kubeadmcontrolplanes.controlplane.cluster.x-k8s.io crd/tanzukubernetesreleases.run.tanzu.vmware.com >&2
}

cmd_up() {
  harness_dirs
  need_kube
  cmd_build
  local ns
  apply_crds
  for ns in tkg-system tkr-system; do
    kubectl get namespace "$ns" >/dev/null 2>&1 || kubectl create namespace "$ns" >&2
  done
  # The binaries are linked into the harness (as controlplane.sh links its own): `start` may run
  # with another HOME (the tanzu stand-in runs with the test's), so another default DEVPKG_CACHE.
  mkdir -p "$TKG_DIR/bin"
  ln -sfn "$(tkg_binary $ADDONS_BIN_NAME)" "$TKG_DIR/bin/$ADDONS_BIN_NAME"
  ln -sfn "$(tkg_binary $TKR_BIN_NAME)" "$TKG_DIR/bin/$TKR_BIN_NAME"
  touch "$TKG_DIR/.devpkg-tkg"
  log "TKG controllers ready to start (test/harness/tkg.sh start); binaries in $(tkg_build_dir)"
  printf "export DEVPKG_TKG_HARNESS='%s'\n" "$TKG_SRC_DIR/tkg.sh"
}

# start --bom-image REPO --metadata-image REPO: both controllers for the management cluster whose
# objects are in the harness (the caller creates the Cluster, its kubeconfig Secret, the addon
# Secrets and tkr-system/tkr-controller-config first, as a real management cluster has them).
# A running pair is stopped first: one management cluster per harness at a time.
cmd_start() {
  harness_dirs
  need_kube
  local bom="" meta="" arg
  while [ $# -gt 0 ]; do
    arg=$1; shift
    case $arg in
      --bom-image) bom=${1:-}; shift ;;
      --metadata-image) meta=${1:-}; shift ;;
      *) die "start: unknown argument $arg (usage: tkg.sh start --bom-image REPO --metadata-image REPO)" ;;
    esac
  done
  [ -n "$bom" ] && [ -n "$meta" ] || die "start needs --bom-image REPO and --metadata-image REPO (the BOM and compatibility images in the test registry)"
  [ -f "$TKG_DIR/.devpkg-tkg" ] || die "test/harness/tkg.sh up has not run on $D (controlplane.sh up --tkg does it)"
  local b
  for b in "$ADDONS_BIN_NAME" "$TKR_BIN_NAME"; do
    [ -x "$TKG_DIR/bin/$b" ] || die "$TKG_DIR/bin/$b is missing; run test/harness/tkg.sh up (it builds and links them)"
  done
  cmd_stop
  local tkr_metrics addons_metrics addons_health addons_webhook
  tkr_metrics=$(free_port); addons_metrics=$(free_port); addons_health=$(free_port); addons_webhook=$(free_port)
  printf 'TKR_METRICS_PORT=%s\nADDONS_METRICS_PORT=%s\nADDONS_HEALTH_PORT=%s\n' "$tkr_metrics" "$addons_metrics" "$addons_health" > "$TKG_DIR/ports.env"
  # Discovery every 1 s at first, then every 2 s (defaults 60 and 600): the BOM tags a test
  # pushes become ConfigMaps and TKRs within seconds, by the controller's own loop.
  start_proc "$TKR_BIN_NAME" "$TKG_DIR/home-tkr" "$TKG_DIR/bin/$TKR_BIN_NAME" \
    --kubeconfig="$KUBECONFIG" \
    --bom-image-path="$bom" --bom-metadata-image-path="$meta" \
    --initial-discover-frequency=1 --continuous-discover-frequency=2 \
    --metrics-bind-addr="127.0.0.1:$tkr_metrics"
  wait_http "$TKR_BIN_NAME" "http://127.0.0.1:$tkr_metrics/metrics" 60 || die "$TKR_BIN_NAME did not start"
  start_proc "$ADDONS_BIN_NAME" "$TKG_DIR/home-addons" "$TKG_DIR/bin/$ADDONS_BIN_NAME" \
    --kubeconfig="$KUBECONFIG" \
    --metrics-bind-addr="127.0.0.1:$addons_metrics" --health-addr="127.0.0.1:$addons_health" \
    --webhook-server-port="$addons_webhook"
  wait_http "$ADDONS_BIN_NAME" "http://127.0.0.1:$addons_health/readyz" 120 || die "$ADDONS_BIN_NAME did not start"
  log "both TKG controllers running (bom $bom, metadata $meta)"
}

cmd_stop() {
  harness_dirs
  local p
  for p in "${PROCS[@]}"; do stop_proc "$p"; done
}

cmd_down() {
  harness_dirs
  cmd_stop
  rm -rf "$TKG_DIR"
  rm -f "$(proc_args_file "$TKR_BIN_NAME")" "$(proc_args_file "$ADDONS_BIN_NAME")"
  log "TKG controllers down"
}

cmd_status() {
  harness_dirs
  local p
  for p in "${PROCS[@]}"; do our_pid "$p" >/dev/null || return 1; done
}

# The PIDs of the running controllers, one "name pid" line each (for the tests).
cmd_pids() {
  harness_dirs
  local p pid
  for p in "${PROCS[@]}"; do
    if pid=$(our_pid "$p"); then printf '%s %s\n' "$p" "$pid"; fi
  done
  return 0
}

main() {
  local cmd=${1:-}
  [ $# -gt 0 ] && shift
  case $cmd in
    build) cmd_build ;;
    up) cmd_up ;;
    start) cmd_start "$@" ;;
    stop) cmd_stop ;;
    down) cmd_down ;;
    status) cmd_status ;;
    pids) cmd_pids ;;
    version) cmd_version ;;
    *) die "usage: tkg.sh build | up | start --bom-image REPO --metadata-image REPO | stop | down | status | pids | version" ;;
  esac
}

main "$@"
