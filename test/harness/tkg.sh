#!/usr/bin/env bash
# TKG 1.6 management-cluster controllers on the devpkg test control plane, played by OUR stand-in
# (test/standin/tkg-controllers/tkg-controllers.mjs, from the facts in docs/addons-manager.md):
# tanzu-addons-manager and tkr-controller-manager themselves are not built (no package registry
# we use serves tanzu-framework).
#
#   test/harness/tkg.sh up       apply the CRDs the controllers need (TanzuKubernetesRelease: ours,
#                                test/harness/crds; Cluster: cluster-api's, from the Go module
#                                proxy), make tkg-system and tkr-system; prints `export` lines
#   test/harness/tkg.sh start --bom-image REPO --metadata-image REPO [--kubeconfig FILE]
#                                start both stand-in controllers against the cluster of FILE
#                                (default $KUBECONFIG, the harness's); the tanzu stand-in's create calls this
#   test/harness/tkg.sh stop     stop both (by their recorded PIDs)
#   test/harness/tkg.sh down     stop, and remove what `up` and `start` wrote on disk
#   test/harness/tkg.sh status   exit 0 when both run
#   test/harness/tkg.sh pids     "name pid" of each running controller
#
# `up` needs a running harness (test/harness/controlplane.sh up --tkg does both). Only `export`
# lines go to stdout; logs go to stderr and $DEVPKG_HARNESS_DIR/logs/.
set -euo pipefail

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
HARNESS_NAME=tkg
GO_BUILDS="the Cluster CRD is read from cluster-api's Go module"
REPO_ROOT=$(cd "$HARNESS_SRC/../.." && pwd)
STANDIN="$REPO_ROOT/test/standin/tkg-controllers/tkg-controllers.mjs"
TKR_CRD="$HARNESS_SRC/crds/run.tanzu.vmware.com_tanzukubernetesreleases.yaml"
ADDONS=addons-manager-standin
TKR=tkr-controller-standin
PROCS=("$TKR" "$ADDONS")

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

# proc_args_file, proc_pid_file, our_pid, stop_proc, wait_started: lib.sh.
start_proc() { # name arg... (executable first)
  local name=$1; shift
  printf '%s\n' "$@" > "$(proc_args_file "$name")"
  log "starting $name (log: $D/logs/$name.log)"
  # 8>&- 9>&-: the daemon must not inherit the harness or build locks.
  setsid "$@" >>"$D/logs/$name.log" 2>&1 </dev/null 8>&- 9>&- &
  echo $! > "$(proc_pid_file "$name")"
}

# The CRDs the controllers need: Cluster of cluster-api $CLUSTER_API_VERSION (the Cluster API
# release of TKG 1.6), from the Go module cache; TanzuKubernetesRelease, ours. kapp-controller's
# own (App, PackageInstall, PackageRepository) come from test/harness/kapp-controller.sh.
apply_crds() {
  local capi
  capi=$(module_dir sigs.k8s.io/cluster-api "$CLUSTER_API_VERSION")
  local f files=("$capi/config/crd/bases/cluster.x-k8s.io_clusters.yaml" "$TKR_CRD")
  for f in "${files[@]}"; do [ -f "$f" ] || die "$f is missing"; done
  for f in "${files[@]}"; do kubectl apply --server-side --force-conflicts -f "$f" >&2; done
  kubectl wait --for=condition=Established --timeout=60s crd/clusters.cluster.x-k8s.io crd/tanzukubernetesreleases.run.tanzu.vmware.com >&2
}

cmd_up() {
  harness_dirs
  need_kube
  [ -f "$STANDIN" ] || die "$STANDIN is missing"
  local ns
  apply_crds
  for ns in tkg-system tkr-system; do
    kubectl get namespace "$ns" >/dev/null 2>&1 || kubectl create namespace "$ns" >&2
  done
  mkdir -p "$TKG_DIR"
  touch "$TKG_DIR/.devpkg-tkg"
  log "stand-in TKG controllers ready to start (test/harness/tkg.sh start)"
  printf "export DEVPKG_TKG_HARNESS='%s'\n" "$HARNESS_SRC/tkg.sh"
}

ready() { [ -s "$1" ]; }

# start --bom-image REPO --metadata-image REPO [--kubeconfig FILE]: both stand-in controllers for
# the management cluster whose objects are in the cluster of FILE (the caller creates the Cluster,
# the addon Secrets and tkr-system/tkr-controller-config first, as a real management cluster has
# them). A running pair is stopped first: one management cluster per harness at a time.
cmd_start() {
  harness_dirs
  local bom="" meta="" kubeconfig="${KUBECONFIG:-}" arg
  while [ $# -gt 0 ]; do
    arg=$1; shift
    case $arg in
      --bom-image) bom=${1:-}; shift ;;
      --metadata-image) meta=${1:-}; shift ;;
      --kubeconfig) kubeconfig=${1:-}; shift ;;
      *) die "start: unknown argument $arg (usage: tkg.sh start --bom-image REPO --metadata-image REPO [--kubeconfig FILE])" ;;
    esac
  done
  [ -n "$bom" ] && [ -n "$meta" ] || die "start needs --bom-image REPO and --metadata-image REPO (the BOM and compatibility images in the test registry)"
  [ -n "$kubeconfig" ] && [ -f "$kubeconfig" ] || die "start needs the kubeconfig of the cluster the controllers act on (--kubeconfig FILE or KUBECONFIG; got '${kubeconfig}')"
  [ -f "$TKG_DIR/.devpkg-tkg" ] || die "test/harness/tkg.sh up has not run on $D (controlplane.sh up --tkg does it)"
  local node; node=$(command -v node) || die "node is not on PATH"
  cmd_stop
  rm -f "$TKG_DIR/$TKR.ready" "$TKG_DIR/$ADDONS.ready"
  # Discovery every 1 s at first, then every 2 s (the real defaults are 60 and 600): the BOM tags a
  # test pushes become ConfigMaps and TKRs within seconds.
  start_proc "$TKR" "$node" "$STANDIN" tkr-controller --kubeconfig "$kubeconfig" \
    --bom-image "$bom" --metadata-image "$meta" \
    --initial-discover-frequency 1 --continuous-discover-frequency 2 --ready-file "$TKG_DIR/$TKR.ready"
  wait_started "$TKR" 60 "running" ready "$TKG_DIR/$TKR.ready" || die "$TKR did not start"
  start_proc "$ADDONS" "$node" "$STANDIN" addons-manager --kubeconfig "$kubeconfig" --ready-file "$TKG_DIR/$ADDONS.ready"
  wait_started "$ADDONS" 60 "running" ready "$TKG_DIR/$ADDONS.ready" || die "$ADDONS did not start"
  log "both stand-in TKG controllers running against $kubeconfig (bom $bom, metadata $meta)"
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
  rm -f "$(proc_args_file "$TKR")" "$(proc_args_file "$ADDONS")"
  log "stand-in TKG controllers down"
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
    up) cmd_up ;;
    start) cmd_start "$@" ;;
    stop) cmd_stop ;;
    down) cmd_down ;;
    status) cmd_status ;;
    pids) cmd_pids ;;
    *) die "usage: tkg.sh up | start --bom-image REPO --metadata-image REPO [--kubeconfig FILE] | stop | down | status | pids" ;;
  esac
}

main "$@"
