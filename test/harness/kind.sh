#!/usr/bin/env bash
# The kind harness: a private container engine (Debian's dockerd) on which real kind clusters run,
# with the node, registry and kapp-controller images built by test/harness/kind-build.sh.
#
#   kind.sh up       build what is missing, start dockerd, put the isolation rules in force, load
#                    the images, write the kind config; print `export` lines on stdout
#   kind.sh down     remove every container and network, stop dockerd (and its containerd and
#                    shims), unmount, remove the iptables rules, chains and links it added, and
#                    the state directory
#   kind.sh status   exit 0 when the engine is up with its isolation rules in force
#   kind.sh env      print the exports of a running engine
#   kind.sh build    only build (test/harness/kind-build.sh)
#   kind.sh check    fail, naming each, when a command the kind harness needs is missing
#   kind.sh leftovers  print (stderr) dockerd's chain, docker0 and any dockerd or containerd when
#                    the chain or the link exists (what makes `up` refuse); exit 0 either way
#
# Exports (stable names; devpkg's kind-mode inputs take the DEVPKG_KIND_* values):
#   DOCKER_HOST                           unix socket of the private dockerd
#   PATH                                  $DEVPKG_HARNESS_DIR/kind/bin first: kind, kubectl, docker
#                                         (Debian's client), ytt, kbld, imgpkg, kapp, vendir
#   DEVPKG_KIND_NODE_IMAGE                the node image (input kind-node-image)
#   DEVPKG_KIND_CONFIG                    a kind config file with this machine's patches (input kind-config)
#   DEVPKG_KIND_REGISTRY_IMAGE            the local registry's image (input registry-image)
#   DEVPKG_KIND_KAPP_CONTROLLER_MANIFEST  kapp-controller's release manifest, a file (input kapp-controller-manifest)
#   DEVPKG_KIND_KAPP_CONTROLLER_IMAGE     the image that manifest runs (already in the node image)
#   DEVPKG_KIND_STATE                     the engine's state directory
#
# Environment: DEVPKG_HARNESS_DIR (default /tmp/devpkg-harness; the engine lives in its kind/
# subdirectory, so it can run beside controlplane.sh's harness), DEVPKG_CACHE.
# Only one engine runs per machine (they would share bridges and iptables chains).
# stdout carries only `export` lines; logs go to stderr and $DEVPKG_HARNESS_DIR/logs/dockerd.log.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
. "$HARNESS_SRC/kind-lib.sh"

engine_paths
KIND_BIN="$ENGINE_DIR/bin"
KIND_CONFIG="$ENGINE_DIR/kind-config.yaml"
KIND_MANIFEST="$ENGINE_DIR/kapp-controller-release.yml"

print_exports() {
  cat <<EOF
export DOCKER_HOST=$(q "unix://$ENGINE_SOCK")
export PATH=$(q "$KIND_BIN:$PATH")
export DEVPKG_KIND_NODE_IMAGE=$(q "$KIND_NODE_IMAGE")
export DEVPKG_KIND_CONFIG=$(q "$KIND_CONFIG")
export DEVPKG_KIND_REGISTRY_IMAGE=$(q "$KIND_REGISTRY_IMAGE")
export DEVPKG_KIND_KAPP_CONTROLLER_MANIFEST=$(q "$KIND_MANIFEST")
export DEVPKG_KIND_KAPP_CONTROLLER_IMAGE=$(q "$KIND_KAPP_CONTROLLER_IMAGE")
export DEVPKG_KIND_STATE=$(q "$ENGINE_DIR")
EOF
}

# The kind config with what this machine needs (docs/development.md "The kind harness"):
# kubelet >= 1.35 refuses cgroup v1 unless told; the etcd image is the harness's build. kind's
# default CNI stays on: the node image's is flannel (kindnetd is not obtainable), so a config
# with workers gets a pod network that spans its nodes.
write_kind_config() {
  cat > "$KIND_CONFIG" <<EOF
# Written by test/harness/kind.sh for this machine (cgroup v1, no image registry reachable).
kind: Cluster
apiVersion: kind.x-k8s.io/v1alpha4
kubeadmConfigPatches:
- |
  kind: KubeletConfiguration
  failCgroupV1: false
- |
  kind: ClusterConfiguration
  etcd:
    local:
      imageTag: ${ETCD_VERSION#v}-0
EOF
}

link_tools() {
  mkdir -p "$KIND_BIN"
  ln -sf "$(kind_binary kind)" "$KIND_BIN/kind"
  ln -sf /usr/bin/docker "$KIND_BIN/docker"
  local b; for b in kubectl ytt kbld imgpkg kapp vendir; do ln -sf "$(binary_path "$b")" "$KIND_BIN/$b"; done
}

cmd_check() {
  local missing=() pair cmd pkgs
  for pair in $KIND_DEBIAN_PACKAGES; do
    cmd=${pair%%:*} pkgs=${pair#*:}
    if [ "$cmd" = docker ]; then [ -x /usr/bin/docker ] || missing+=("docker (apt-get install ${pkgs//,/ })")
    elif ! command -v "$cmd" >/dev/null 2>&1; then missing+=("$cmd (apt-get install ${pkgs//,/ })"); fi
  done
  local b; for b in kind devpkg-runc; do [ -x "$(kind_binary "$b")" ] || missing+=("$b (test/harness/kind-build.sh)"); done
  for b in kubectl ytt kbld imgpkg kapp vendir etcd; do [ -x "$(binary_path "$b")" ] || missing+=("$b (test/harness/build.sh)"); done
  [ ${#missing[@]} -eq 0 ] || die "missing for the kind harness: ${missing[*]}"
  log "all commands the kind harness needs are present"
}

engine_healthy() { engine_pid >/dev/null && docker_up && isolation_rules check; }

cmd_up() {
  if engine_healthy; then
    log "kind engine already up ($ENGINE_SOCK)"
    print_exports; return 0
  fi
  local started=$SECONDS
  # Binaries first (no engine needed), so that a build failure leaves nothing running.
  "$HARNESS_SRC/build.sh" etcd kubernetes ytt kbld imgpkg kapp vendir >&2
  "$HARNESS_SRC/kind-build.sh" debian wrapper rootfs kind containerd crictl cni flannel coredns kubernetes-node pause >&2
  cmd_check
  [ -d "$ENGINE_DIR" ] && { log "cleaning up a stale engine state in $ENGINE_DIR"; engine_stop; }
  trap 'if [ "${UP_OK:-0}" != 1 ]; then up_failed; fi' EXIT
  engine_start
  export DOCKER_HOST="unix://$ENGINE_SOCK"
  # Images: built into this engine when not cached, then loaded from the cache.
  "$HARNESS_SRC/kind-build.sh" registry kapp-controller node >&2
  local t=$SECONDS
  ( load_image "$KIND_NODE_IMAGE" "$KIND_NODE_TAR" ) &
  local p1=$!
  load_image "$KIND_REGISTRY_IMAGE" "$KIND_REGISTRY_TAR"
  wait $p1 || die "loading the node image failed"
  log "images loaded in $((SECONDS - t))s"
  link_tools
  write_kind_config
  cp "$KIND_KAPP_CONTROLLER_MANIFEST" "$KIND_MANIFEST"
  engine_healthy || die "the engine is not healthy after up"
  UP_OK=1
  log "kind harness up in $((SECONDS - started))s (state $ENGINE_DIR)"
  print_exports
}

# A failed up leaves nothing running; dockerd's log goes to stderr first (down removes it).
up_failed() {
  log "up failed; bringing the engine down (last lines of $ENGINE_LOG follow)"
  tail -n 30 "$ENGINE_LOG" >&2 2>/dev/null || true
  engine_stop || true
}

load_image() { # image tar
  /usr/bin/docker image inspect "$1" >/dev/null 2>&1 && return 0
  [ -s "$2" ] || die "$2 is missing; run test/harness/kind-build.sh"
  /usr/bin/docker load -i "$2" >/dev/null || die "docker load -i $2 failed"
  /usr/bin/docker image inspect "$1" >/dev/null 2>&1 || die "$2 did not hold $1"
}

cmd_down() {
  engine_stop
  log "kind harness down"
}

case "${1:-}" in
  up)
    # Two `up`s at once (two test files starting together) take turns: the second finds the engine
    # up. flock -o: the lock is held by flock itself, not inherited by the dockerd that up starts.
    if [ "${DEVPKG_KIND_UP_HELD:-}" != 1 ]; then DEVPKG_KIND_UP_HELD=1 exec flock -o "$ENGINE_OWNER.up.lock" bash "$0" up; fi
    cmd_up ;;
  down) cmd_down ;;
  status) engine_healthy ;;
  env) engine_healthy || die "the kind engine is not up ($ENGINE_DIR)"; print_exports ;;
  build) shift; exec "$HARNESS_SRC/kind-build.sh" "$@" ;;
  check) cmd_check ;;
  leftovers) if docker_leftovers; then docker_leftovers_said >&2; fi ;;
  *) echo "usage: $0 up|down|status|env|build [step...]|check|leftovers" >&2; exit 2 ;;
esac
