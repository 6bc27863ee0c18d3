#!/usr/bin/env bash
# Build (or find cached) everything the kind harness (test/harness/kind.sh) runs: Debian's
# docker.io and friends, the capability-clamping OCI runtime wrapper, kind, the node image's
# binaries (containerd, crictl, CNI plugins, CoreDNS, kubelet/kubeadm/kube-scheduler/kube-proxy,
# pause), the node image itself, a registry image and a kapp-controller image + release manifest.
# Idempotent: what is in the cache is reused, so a warm run takes seconds.
#
#   test/harness/kind-build.sh            build everything missing
#   test/harness/kind-build.sh STEP...    only these steps (see `steps` below)
#
# Everything goes to ${DEVPKG_CACHE:-$HOME/.cache/devpkg}/build/kind-*-r<KIND_RECIPE_REV>/ (the
# images as `docker save` archives, which kind.sh `docker load`s). Building images needs a docker
# daemon: this script starts a private one (kind.sh's engine, under a temporary state dir) when
# none is given in DOCKER_HOST, and stops it again. All output goes to stderr.
#
# One lock per step ($DEVPKG_CACHE/kind-build-<step>.lock), not build.sh's: the control-plane
# build and these may run at the same time (Go's build and module caches are safe to share), and
# two runs of this script wait for each other only on the same step.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
. "$HARNESS_SRC/kind-lib.sh"

STEPS="debian wrapper rootfs kind containerd crictl cni flannel coredns kubernetes-node pause registry kapp-controller node"

GO_BUILDS="the kind harness builds its binaries from Go modules"

ensure_kind_debian_packages() {
  local missing=() pair cmd pkgs
  for pair in $KIND_DEBIAN_PACKAGES; do
    cmd=${pair%%:*} pkgs=${pair#*:}
    # /usr/local/bin may hold another docker client; the harness uses Debian's.
    if [ "$cmd" = docker ]; then [ -x /usr/bin/docker ] && continue
    elif command -v "$cmd" >/dev/null 2>&1; then continue; fi
    missing+=(${pkgs//,/ })
  done
  [ ${#missing[@]} -eq 0 ] && { log "Debian packages for kind: present"; return 0; }
  [ "$(id -u)" = 0 ] || die "missing Debian packages: ${missing[*]}; install them (apt-get install ${missing[*]}) or run as root"
  log "installing Debian packages: ${missing[*]}"
  DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 update -qq >&2 || die "apt-get update failed"
  # policy-rc.d keeps the packages' own services (docker, containerd) from starting.
  local policy=/usr/sbin/policy-rc.d created_policy=0
  if [ ! -e $policy ]; then printf '#!/bin/sh\nexit 101\n' > $policy; chmod +x $policy; created_policy=1; fi
  local rc=0
  DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends \
    "${missing[@]}" >&2 || rc=$?
  [ $created_policy = 1 ] && rm -f $policy
  [ $rc = 0 ] || die "apt-get install ${missing[*]} failed"
}

# go_build NAME MODULE VERSION 'LDFLAGS' 'TAGS' MAINPKG...: go_wrapper_build (lib.sh) into the
# kind cache, with the wrapper module kind-NAME.
go_build() {
  local name=$1 module=$2 version=$3 ldflags=$4 tags=$5; shift 5
  go_wrapper_build "$(kind_dir "$name" "$version")" "kind-$name" "$name" "$module" "$version" "$ldflags" "$tags" "$@"
}

build_wrapper() {
  local out; out=$(kind_dir runtime-wrapper "$KIND_RECIPE_REV")
  local src="$HARNESS_SRC/kind/runtime-wrapper"
  local sum; sum=$(cat "$src"/*.go "$src/go.mod" | sha256sum | cut -c1-16)
  if [ -x "$out/bin/devpkg-runc" ] && [ "$(cat "$out/SOURCE" 2>/dev/null)" = "$sum" ]; then
    log "runtime wrapper: cached ($out)"; return 0
  fi
  go_env
  rm -rf "$out.tmp"; mkdir -p "$out.tmp/bin"
  (cd "$src" && GOFLAGS=-buildvcs=false go build -trimpath -ldflags '-s -w' -o "$out.tmp/bin/devpkg-runc" .) \
    || die "building the runtime wrapper failed"
  echo "$sum" > "$out.tmp/SOURCE"
  rm -rf "$out"; mv "$out.tmp" "$out"
  log "runtime wrapper: built ($out/bin/devpkg-runc)"
}

build_kubernetes_node() {
  local out b cached=1; out=$(kind_dir kubernetes-node "$KUBERNETES_VERSION")
  for b in $KIND_NODE_KUBERNETES_BINARIES; do [ -x "$out/bin/$b" ] || cached=0; done
  if [ $cached = 1 ]; then log "kubernetes-node $KUBERNETES_VERSION: cached ($out)"; return 0; fi
  local pkgs=(); for b in $KIND_NODE_KUBERNETES_BINARIES; do pkgs+=("k8s.io/kubernetes/cmd/$b"); done
  go_build kubernetes-node k8s.io/kubernetes "$KUBERNETES_VERSION" "$(kube_ldflags "$KUBERNETES_VERSION")" "" "${pkgs[@]}"
}

build_pause() {
  local out; out=$(kind_dir pause "$KUBERNETES_VERSION")
  if [ -x "$out/bin/pause" ]; then log "pause: cached ($out)"; return 0; fi
  local dir; dir=$(module_dir k8s.io/kubernetes "$KUBERNETES_VERSION")
  local src="$dir/build/pause/linux/pause.c"
  [ -f "$src" ] || die "pause source $src is not in k8s.io/kubernetes@$KUBERNETES_VERSION"
  # The pause image's tag is the one kubeadm asks for (build/pause/Makefile's TAG).
  local tag; tag=$(sed -nE 's/^TAG[[:space:]]*[?:]?=[[:space:]]*([0-9.]+).*/\1/p' "$dir/build/pause/Makefile" | head -1)
  [ -n "$tag" ] || die "no TAG in $dir/build/pause/Makefile"
  rm -rf "$out.tmp"; mkdir -p "$out.tmp/bin"
  gcc -Os -Wall -Werror -static -DVERSION="v$tag-devpkg" -o "$out.tmp/bin/pause" "$src" >&2 \
    || die "gcc -static $src failed (needs Debian's gcc and libc6-dev)"
  strip "$out.tmp/bin/pause" 2>/dev/null || true
  echo "$tag" > "$out.tmp/TAG"
  rm -rf "$out"; mv "$out.tmp" "$out"
  log "pause $tag: built ($out)"
}

# Packages of the node's Debian base: what kind's images/base/Dockerfile installs (less
# fuse-overlayfs, nfs-common, open-iscsi: rootless and network storage are not used here),
# plus runc (kind builds its own; Debian's works with containerd 2) and what the
# component images take their libraries from (conntrack, iptables, dash).
NODE_DEBIAN_PACKAGES="systemd conntrack iptables nftables iproute2 ethtool util-linux mount kmod libseccomp2 pigz e2fsprogs bash ca-certificates curl jq procps runc"

# A debootstrapped Debian rootfs, as a tar archive in the cache.
build_rootfs() {
  local out; out=$(kind_dir rootfs "$KIND_DEBIAN_SUITE")
  if [ -s "$out/rootfs.tar" ]; then log "rootfs $KIND_DEBIAN_SUITE: cached ($out)"; return 0; fi
  command -v debootstrap >/dev/null 2>&1 || die "debootstrap is missing; run test/harness/kind-build.sh debian (as root)"
  [ "$(id -u)" = 0 ] || die "debootstrap needs root"
  local mirror; mirror=$(debian_mirror)
  local work="$DEVPKG_CACHE/src/kind-rootfs"
  rm -rf "$work" "$out.tmp"; mkdir -p "$work" "$out.tmp"
  log "rootfs: debootstrap $KIND_DEBIAN_SUITE from $mirror (a few minutes)"
  debootstrap --variant=minbase --include="${NODE_DEBIAN_PACKAGES// /,}" \
    "$KIND_DEBIAN_SUITE" "$work" "$mirror" > "$out.tmp/debootstrap.log" 2>&1 \
    || { tail -20 "$out.tmp/debootstrap.log" >&2; die "debootstrap $KIND_DEBIAN_SUITE failed (log $out.tmp/debootstrap.log)"; }
  # Nothing of apt's downloads in the image.
  rm -rf "$work"/var/cache/apt/archives/*.deb "$work"/var/lib/apt/lists/*
  tar -C "$work" --numeric-owner -cf "$out.tmp/rootfs.tar" . || die "archiving the rootfs failed"
  mv "$out.tmp/debootstrap.log" "$out.tmp/debootstrap.log.done"
  rm -rf "$out"; mv "$out.tmp" "$out"
  rm -rf "$work"
  log "rootfs: $(du -h "$out/rootfs.tar" | cut -f1) in $out"
}

# The Debian mirror apt uses on this machine (the only archive it reaches).
debian_mirror() {
  local m
  m=$(grep -rhoE 'https?://[^ ]*debian/?( |$)' /etc/apt/sources.list /etc/apt/sources.list.d/ 2>/dev/null \
      | grep -v security | head -1 | tr -d ' ')
  printf '%s' "${m:-http://deb.debian.org/debian}"
}

build_step() {
  case $1 in
    debian) ensure_kind_debian_packages ;;
    wrapper) build_wrapper ;;
    kind) go_build kind sigs.k8s.io/kind "$KIND_VERSION" "-s -w" "" sigs.k8s.io/kind ;;
    containerd)
      go_build containerd github.com/containerd/containerd/v2 "$CONTAINERD_VERSION" \
        "-s -w -X github.com/containerd/containerd/v2/version.Version=$CONTAINERD_VERSION -X github.com/containerd/containerd/v2/version.Package=github.com/containerd/containerd/v2" \
        "no_aufs no_zfs no_btrfs no_devmapper" \
        github.com/containerd/containerd/v2/cmd/containerd github.com/containerd/containerd/v2/cmd/ctr \
        github.com/containerd/containerd/v2/cmd/containerd-shim-runc-v2 ;;
    crictl)
      go_build crictl sigs.k8s.io/cri-tools "$CRICTL_VERSION" \
        "-s -w -X sigs.k8s.io/cri-tools/pkg/version.Version=$CRICTL_VERSION" "" sigs.k8s.io/cri-tools/cmd/crictl ;;
    cni)
      local m=github.com/containernetworking/plugins
      go_build cni-plugins $m "$CNI_PLUGINS_VERSION" \
        "-s -w -X github.com/containernetworking/plugins/pkg/utils/buildversion.BuildVersion=$CNI_PLUGINS_VERSION" "" \
        $m/plugins/main/ptp $m/plugins/main/bridge $m/plugins/main/loopback $m/plugins/ipam/host-local $m/plugins/meta/portmap
      # The flannel CNI plugin (reads flanneld's subnet.env, delegates to bridge + host-local): the
      # last version of this module that has it (later it moved to flannel-io/cni-plugin, which
      # the proxy does not serve).
      go_build cni-flannel $m "$CNI_FLANNEL_PLUGIN_VERSION" \
        "-s -w -X github.com/containernetworking/plugins/pkg/utils/buildversion.BuildVersion=$CNI_FLANNEL_PLUGIN_VERSION" "" \
        $m/plugins/meta/flannel ;;
    flannel)
      # flanneld's main imports every backend: the tencentvpc one needs tencentcloud's vpc module
      # at a version the proxy refuses (403), so a served one with the API it calls replaces it;
      # the udp one is cgo on amd64, so cgo on and linked static as its Makefile does.
      GO_WRAPPER_CGO=1 \
      GO_WRAPPER_REPLACES="github.com/tencentcloud/tencentcloud-sdk-go/tencentcloud/vpc=github.com/tencentcloud/tencentcloud-sdk-go/tencentcloud/vpc@$FLANNEL_TENCENTCLOUD_VPC_VERSION" \
      go_build flannel github.com/flannel-io/flannel "$FLANNEL_VERSION" \
        "-s -w -X github.com/flannel-io/flannel/pkg/version.Version=$FLANNEL_VERSION -extldflags -static" \
        "netgo osusergo" github.com/flannel-io/flannel ;;
    coredns) go_build coredns github.com/coredns/coredns "$COREDNS_VERSION" "-s -w" "" github.com/coredns/coredns ;;
    kubernetes-node) build_kubernetes_node ;;
    pause) build_pause ;;
    rootfs) build_rootfs ;;
    node|registry|kapp-controller) build_image_step "$1" ;;
    *) die "unknown step $1 (known: $STEPS)" ;;
  esac
}

# ------------------------------------------------------------------ images

# The image steps need a docker daemon: the one in DOCKER_HOST (kind.sh up passes its engine), or
# a private engine started here for the build and stopped afterwards.
TEMP_ENGINE=""
D() { /usr/bin/docker "$@"; }
ensure_engine() {
  if [ -n "${DOCKER_HOST:-}" ] && D version >/dev/null 2>&1; then return 0; fi
  TEMP_ENGINE=$(mktemp -d /tmp/devpkg-kind-build.XXXXXX)
  log "starting a private engine for the image builds in $TEMP_ENGINE"
  trap 'stop_temp_engine' EXIT
  DEVPKG_HARNESS_DIR=$TEMP_ENGINE engine_start
  export DOCKER_HOST="unix://$TEMP_ENGINE/kind/docker.sock"
}
stop_temp_engine() {
  [ -n "$TEMP_ENGINE" ] || return 0
  log "stopping the private build engine"
  DEVPKG_HARNESS_DIR=$TEMP_ENGINE engine_stop || true
  rm -rf "$TEMP_ENGINE"
  TEMP_ENGINE=""
}

# docker import of a directory, with Dockerfile-like changes.
import_dir() { # dir image change...
  local dir=$1 image=$2; shift 2
  local changes=() c; for c in "$@"; do changes+=(--change "$c"); done
  tar -C "$dir" --numeric-owner -c . | D import "${changes[@]}" - "$image" >/dev/null \
    || die "docker import of $dir as $image failed"
}

# Copy executables with the shared libraries they load (from a rootfs, resolved inside it).
copy_with_libs() { # rootfs dest path...
  local root=$1 dest=$2; shift 2
  local f lib
  for f in "$@"; do
    mkdir -p "$dest$(dirname "$f")"
    cp -a "$root$f" "$dest$f"
    if [ -L "$root$f" ]; then # also the file it points to
      local target; target=$(chroot "$root" readlink -f "$f")
      mkdir -p "$dest$(dirname "$target")"; cp -a "$root$target" "$dest$target"
    fi
    for lib in $(chroot "$root" ldd "$f" 2>/dev/null | grep -oE '/[^ ]+' || true); do
      [ -e "$dest$lib" ] && continue
      mkdir -p "$dest$(dirname "$lib")"
      cp -aL "$root$lib" "$dest$lib"
    done
  done
}

image_saved() { [ -s "$1" ] && [ -s "$1.sha256" ]; }
save_image() { # image tar
  D save -o "$2.tmp" "$1" || die "docker save $1 failed"
  sha256sum "$2.tmp" | cut -d' ' -f1 > "$2.sha256"
  mv "$2.tmp" "$2"
  log "saved $1 ($(du -h "$2" | cut -f1)) to $2"
}
load_saved() { # image tar
  D image inspect "$1" >/dev/null 2>&1 && return 0
  image_saved "$2" || die "$2 is missing; run test/harness/kind-build.sh"
  D load -i "$2" >/dev/null || die "docker load -i $2 failed"
}

build_registry_image() {
  if image_saved "$KIND_REGISTRY_TAR"; then log "registry image: cached ($KIND_REGISTRY_TAR)"; return 0; fi
  [ -x /usr/bin/docker-registry ] || die "/usr/bin/docker-registry is missing (apt-get install docker-registry)"
  ensure_engine
  local work; work=$(mktemp -d "$DEVPKG_CACHE/src/kind-registry.XXXXXX")
  copy_with_libs / "$work" /usr/bin/docker-registry
  mkdir -p "$work/etc/docker/registry" "$work/var/lib/registry" "$work/tmp"
  chmod 1777 "$work/tmp"
  # The configuration of the registry:2 image (filesystem storage, :5000, no auth).
  cat > "$work/etc/docker/registry/config.yml" <<'YAML'
version: 0.1
log:
  fields:
    service: registry
storage:
  cache:
    blobdescriptor: inmemory
  filesystem:
    rootdirectory: /var/lib/registry
  delete:
    enabled: true
http:
  addr: :5000
  headers:
    X-Content-Type-Options: [nosniff]
health:
  storagedriver:
    enabled: true
    interval: 10s
    threshold: 3
YAML
  import_dir "$work" "$KIND_REGISTRY_IMAGE" 'ENTRYPOINT ["/usr/bin/docker-registry", "serve"]' \
    'CMD ["/etc/docker/registry/config.yml"]' 'EXPOSE 5000' 'VOLUME ["/var/lib/registry"]'
  rm -rf "$work"
  mkdir -p "$KIND_IMAGES_DIR"
  save_image "$KIND_REGISTRY_IMAGE" "$KIND_REGISTRY_TAR"
}

kc_module_dir() { module_dir "$KAPP_CONTROLLER_MODULE" "$KAPP_CONTROLLER_VERSION"; }
KAPP_CONTROLLER_MODULE=github.com/vmware-tanzu/carvel-kapp-controller
# The Carvel CLIs kapp-controller shells out to (its hack/dependencies.yml), at `/` in its image.
KC_IMAGE_CLIS="ytt kbld kapp imgpkg vendir"

build_kapp_controller() {
  if image_saved "$KIND_KAPP_CONTROLLER_TAR" && [ -s "$KIND_KAPP_CONTROLLER_MANIFEST" ]; then
    log "kapp-controller image and manifest: cached ($KIND_IMAGES_DIR)"; return 0
  fi
  "$HARNESS_SRC/kapp-controller.sh" build >&2 || die "test/harness/kapp-controller.sh build failed"
  "$HARNESS_SRC/build.sh" ytt kbld kapp imgpkg vendir >&2 || die "test/harness/build.sh (Carvel CLIs) failed"
  ensure_engine
  local rev; rev=$(sed -n 's/^KC_RECIPE_REV=//p' "$HARNESS_SRC/kapp-controller.sh")
  local kc="$DEVPKG_CACHE/build/kapp-controller-$KAPP_CONTROLLER_VERSION-kc$rev/bin/kapp-controller"
  [ -x "$kc" ] || die "kapp-controller binary $kc is missing"
  local work; work=$(mktemp -d "$DEVPKG_CACHE/src/kind-kapp-controller.XXXXXX")
  # Laid out as kapp-controller's Dockerfile does: binaries at /, a passwd entry for uid 1000
  # in group 0, a group-writable /etc/pki/tls/certs with ca-bundle.crt and its .orig copy.
  cp "$kc" "$work/kapp-controller"
  local cli; for cli in $KC_IMAGE_CLIS; do cp "$(binary_path "$cli")" "$work/$cli"; done
  mkdir -p "$work/etc/pki/tls/certs" "$work/home/kapp-controller" "$work/tmp"
  chmod 1777 "$work/tmp"; chmod 775 "$work/etc/pki/tls/certs"; chown 1000:0 "$work/home/kapp-controller"
  echo "kapp-controller:x:1000:0:/home/kapp-controller:/usr/sbin/nologin" > "$work/etc/passwd"
  echo "root:x:0:" > "$work/etc/group"
  cp /etc/ssl/certs/ca-certificates.crt "$work/etc/pki/tls/certs/ca-bundle.crt"
  cp /etc/ssl/certs/ca-certificates.crt "$work/etc/pki/tls/certs/ca-bundle.crt.orig"
  chmod 664 "$work/etc/pki/tls/certs/"*
  import_dir "$work" "$KIND_KAPP_CONTROLLER_IMAGE" 'USER 1000' 'ENV PATH=/:/usr/local/bin:/usr/bin:/bin' \
    'ENTRYPOINT ["/kapp-controller"]'
  rm -rf "$work"
  mkdir -p "$KIND_IMAGES_DIR"
  render_kapp_controller_manifest > "$KIND_KAPP_CONTROLLER_MANIFEST.tmp"
  mv "$KIND_KAPP_CONTROLLER_MANIFEST.tmp" "$KIND_KAPP_CONTROLLER_MANIFEST"
  save_image "$KIND_KAPP_CONTROLLER_IMAGE" "$KIND_KAPP_CONTROLLER_TAR"
}

# kapp-controller's release manifest, rendered from the module's own config/ as its
# hack/build-release.sh does (ytt, then kbld), with the image it builds replaced by ours.
render_kapp_controller_manifest() {
  local dir; dir=$(kc_module_dir)
  local work; work=$(mktemp -d "$DEVPKG_CACHE/src/kind-kc-manifest.XXXXXX")
  cp -r "$dir/config" "$work/config"; chmod -R u+w "$work"
  # build-release.sh puts the release version into the Deployment's annotation.
  sed -i "s/v0.0.0/$KAPP_CONTROLLER_VERSION/" "$work/config/config/deployment.yml"
  cat > "$work/kbld-override.yml" <<YAML
apiVersion: kbld.k14s.io/v1alpha1
kind: Config
overrides:
- image: kapp-controller
  newImage: $KIND_KAPP_CONTROLLER_IMAGE
  preresolved: true
YAML
  "$(binary_path ytt)" -f "$work/config/config" -f "$work/config/values-schema.yml" \
    -f "$dir/config-release/values-schema.yml" -v dev.version="$KAPP_CONTROLLER_VERSION" \
    | "$(binary_path kbld)" -f- -f "$work/kbld-override.yml" \
    || { rm -rf "$work"; die "rendering kapp-controller's release manifest (ytt | kbld) failed"; }
  rm -rf "$work"
}

# The images kubeadm asks for (`kubeadm config images list`), made under exactly those names
# (etcd under the tag the kind config pins) in the engine; prints the names.
build_component_images() { # rootfs-dir -> names on stdout
  local root=$1 v=$KUBERNETES_VERSION
  local kn; kn=$(kind_dir kubernetes-node "$v")/bin
  local kc; kc=$(component_dir kubernetes "$v")/bin
  local images; images=$("$kn/kubeadm" config images list --kubernetes-version "$v" 2>/dev/null) \
    || die "kubeadm config images list failed"
  local work; work=$(mktemp -d "$DEVPKG_CACHE/src/kind-images.XXXXXX")
  local img name tag dir path='ENV PATH=/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'
  for img in $images; do
    name=${img%:*} tag=${img##*:}
    dir="$work/${name##*/}"; mkdir -p "$dir/usr/local/bin" "$dir/tmp"; chmod 1777 "$dir/tmp"
    case ${name##*/} in
      kube-apiserver|kube-controller-manager)
        cp "$kc/${name##*/}" "$dir/usr/local/bin/"
        import_dir "$dir" "$img" "$path" ;;
      kube-scheduler)
        cp "$kn/kube-scheduler" "$dir/usr/local/bin/"
        import_dir "$dir" "$img" "$path" ;;
      kube-proxy)
        cp "$kn/kube-proxy" "$dir/usr/local/bin/"
        kube_proxy_userland "$root" "$dir"
        import_dir "$dir" "$img" "$path" ;;
      etcd)
        # kind's config patch pins the tag of the harness's etcd build (kubeadm's default differs).
        img="$name:${ETCD_VERSION#v}-0"
        cp "$(binary_path etcd)" "$dir/usr/local/bin/etcd"
        import_dir "$dir" "$img" "$path" ;;
      coredns)
        [ "$tag" = "$COREDNS_VERSION" ] || die "kubeadm $v asks for CoreDNS $tag but versions.env has COREDNS_VERSION=$COREDNS_VERSION"
        cp "$(kind_dir coredns "$COREDNS_VERSION")/bin/coredns" "$dir/coredns"
        import_dir "$dir" "$img" 'ENTRYPOINT ["/coredns"]' ;;
      pause)
        cp "$(kind_dir pause "$v")/bin/pause" "$dir/pause"
        import_dir "$dir" "$img" 'ENTRYPOINT ["/pause"]' ;;
      *) die "kubeadm asks for an image the harness does not make: $img" ;;
    esac
    printf '%s\n' "$img"
  done
  rm -rf "$work"
}

# kube-proxy (iptables mode) runs iptables, ip6tables, their -save/-restore and conntrack. The
# image gets both iptables backends from the Debian rootfs and, under the plain names, a script
# that picks the backend the node uses, the way kind's entrypoint picks it for the node.
kube_proxy_userland() { # rootfs image-dir
  local root=$1 dir=$2
  copy_with_libs "$root" "$dir" /usr/sbin/xtables-nft-multi /usr/sbin/xtables-legacy-multi /usr/sbin/conntrack /bin/sh /bin/dash
  # The extensions iptables loads (libxt_statistic.so needs libm, ...), with their libraries.
  local ext=() f
  for f in "$root"/usr/lib/x86_64-linux-gnu/xtables/*.so; do ext+=("${f#"$root"}"); done
  [ ${#ext[@]} -gt 0 ] || die "no iptables extensions in the rootfs"
  copy_with_libs "$root" "$dir" "${ext[@]}"
  [ -f "$root/etc/protocols" ] && { mkdir -p "$dir/etc"; cp "$root/etc/protocols" "$dir/etc/"; }
  local mode cmd
  for mode in nft legacy; do
    mkdir -p "$dir/usr/sbin/$mode"
    for cmd in iptables iptables-save iptables-restore ip6tables ip6tables-save ip6tables-restore; do
      ln -sf "../xtables-$mode-multi" "$dir/usr/sbin/$mode/$cmd"
    done
  done
  cat > "$dir/usr/sbin/iptables-wrapper" <<'SH'
#!/bin/sh
# devpkg kind harness: run the iptables backend (nft or legacy) that has the node's rules.
count() { n=0; while IFS= read -r l; do case $l in -*) n=$((n + 1)) ;; esac; done; echo $n; }
mode=$(cat /tmp/.iptables-mode 2>/dev/null)
if [ -z "$mode" ]; then
  legacy=$( { /usr/sbin/legacy/iptables-save; /usr/sbin/legacy/ip6tables-save; } 2>/dev/null | count)
  nft=$( { /usr/sbin/nft/iptables-save; /usr/sbin/nft/ip6tables-save; } 2>/dev/null | count)
  if [ "$legacy" -ge "$nft" ]; then mode=legacy; else mode=nft; fi
  echo "$mode" > /tmp/.iptables-mode 2>/dev/null
fi
exec "/usr/sbin/$mode/${0##*/}" "$@"
SH
  chmod 755 "$dir/usr/sbin/iptables-wrapper"
  for cmd in iptables iptables-save iptables-restore ip6tables ip6tables-save ip6tables-restore; do
    ln -sf iptables-wrapper "$dir/usr/sbin/$cmd"
  done
}

# flanneld's image, in the engine (imported into the node's containerd with the component images;
# prints its name): flanneld at /opt/bin (as its own image has it), the iptables userland
# kube-proxy's image has (flanneld --ip-masq writes its masquerade and forward rules with it), and
# sh, cp, mv and sleep for the container that installs the CNI config.
build_flannel_image() { # rootfs-dir -> name on stdout
  local root=$1
  local dir; dir=$(mktemp -d "$DEVPKG_CACHE/src/kind-flannel.XXXXXX")
  mkdir -p "$dir/opt/bin" "$dir/tmp" "$dir/run/flannel" "$dir/etc/kube-flannel" "$dir/etc/cni/net.d"
  chmod 1777 "$dir/tmp"
  install -m 755 "$(kind_dir flannel "$FLANNEL_VERSION")/bin/flannel" "$dir/opt/bin/flanneld"
  kube_proxy_userland "$root" "$dir"
  copy_with_libs "$root" "$dir" /bin/cp /bin/mv /bin/sleep
  import_dir "$dir" "$KIND_FLANNEL_IMAGE" 'ENV PATH=/opt/bin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    'ENTRYPOINT ["/opt/bin/flanneld"]'
  rm -rf "$dir"
  printf '%s\n' "$KIND_FLANNEL_IMAGE"
}

# The node image, assembled the way `kind build node-image` does it (which would pull kindnetd):
# a base image following kind's images/base (Debian rootfs from debootstrap, kind's files,
# containerd, runc, crictl, CNI plugins), then a container of it into which the Kubernetes
# binaries are copied and the component images imported (pinned) into its containerd, committed.
build_node_image() {
  if image_saved "$KIND_NODE_TAR"; then log "node image: cached ($KIND_NODE_TAR)"; return 0; fi
  local v=$KUBERNETES_VERSION b
  local kn; kn=$(kind_dir kubernetes-node "$v")/bin
  local cd; cd=$(kind_dir containerd "$CONTAINERD_VERSION")/bin
  for b in "$kn/kubelet" "$kn/kubeadm" "$(binary_path kubectl)" "$cd/containerd" "$(kind_dir crictl "$CRICTL_VERSION")/bin/crictl" \
           "$(kind_dir cni-plugins "$CNI_PLUGINS_VERSION")/bin/ptp" "$(kind_dir pause "$v")/bin/pause" \
           "$(kind_dir coredns "$COREDNS_VERSION")/bin/coredns" "$(binary_path etcd)" "$(kind_dir rootfs "$KIND_DEBIAN_SUITE")/rootfs.tar" \
           "$(kind_dir flannel "$FLANNEL_VERSION")/bin/flannel" "$(kind_dir cni-flannel "$CNI_FLANNEL_PLUGIN_VERSION")/bin/flannel" \
           "$HARNESS_SRC/kind/default-cni.yaml"; do
    [ -e "$b" ] || die "$b is missing; run test/harness/kind-build.sh (and build.sh for the control plane)"
  done
  image_saved "$KIND_KAPP_CONTROLLER_TAR" || die "the kapp-controller image is not built; run test/harness/kind-build.sh kapp-controller"
  ensure_engine
  local started=$SECONDS
  local kindsrc; kindsrc=$(module_dir sigs.k8s.io/kind "$KIND_VERSION")/images/base/files
  local root; root=$(mktemp -d "$DEVPKG_CACHE/src/kind-node-root.XXXXXX")
  log "node: base rootfs"
  tar -C "$root" --numeric-owner -xf "$(kind_dir rootfs "$KIND_DEBIAN_SUITE")/rootfs.tar"
  # kind's static files, with the modes its Dockerfile gives them.
  install -d -m 755 "$root/kind" "$root/kind/bin" "$root/usr/local/bin" "$root/etc/containerd" "$root/etc/default" \
    "$root/etc/sysctl.d" "$root/etc/systemd/system/kubelet.service.d" "$root/etc/kubernetes/manifests" \
    "$root/opt/cni/bin" "$root/etc/cni/net.d"
  install -m 755 "$kindsrc"/usr/local/bin/* "$root/usr/local/bin/"
  install -m 644 "$kindsrc"/kind/README.txt "$root/kind/"
  install -m 755 "$kindsrc"/kind/bin/* "$root/kind/bin/"
  install -m 644 "$kindsrc"/etc/crictl.yaml "$root/etc/"
  install -m 644 "$kindsrc"/etc/containerd/config.toml "$root/etc/containerd/"
  install -m 644 "$kindsrc"/etc/default/kubelet "$root/etc/default/"
  install -m 644 "$kindsrc"/etc/sysctl.d/* "$root/etc/sysctl.d/"
  local f; for f in "$kindsrc"/etc/systemd/system/*; do [ -f "$f" ] && install -m 644 "$f" "$root/etc/systemd/system/"; done
  install -m 644 "$kindsrc"/etc/systemd/system/kubelet.service.d/* "$root/etc/systemd/system/kubelet.service.d/"
  # The same clean-up as its Dockerfile.
  find "$root/lib/systemd/system/sysinit.target.wants/" -name systemd-tmpfiles-setup.service -delete
  rm -f "$root"/lib/systemd/system/multi-user.target.wants/* "$root"/etc/systemd/system/*.wants/* \
    "$root"/lib/systemd/system/local-fs.target.wants/* "$root"/lib/systemd/system/sockets.target.wants/*udev* \
    "$root"/lib/systemd/system/sockets.target.wants/*initctl* "$root"/lib/systemd/system/basic.target.wants/*
  echo "ReadKMsg=no" >> "$root/etc/systemd/journald.conf"
  ln -sf /usr/lib/systemd/systemd "$root/sbin/init"
  chroot "$root" systemctl enable kubelet.service containerd.service undo-mount-hacks.service >&2
  chroot "$root" systemctl mask systemd-binfmt.service >&2
  # containerd, its shim and ctr; crictl; CNI plugins (Debian's runc is in the rootfs).
  install -m 755 "$cd/containerd" "$cd/ctr" "$cd/containerd-shim-runc-v2" "$(kind_dir crictl "$CRICTL_VERSION")/bin/crictl" "$root/usr/local/bin/"
  install -m 755 "$(kind_dir cni-plugins "$CNI_PLUGINS_VERSION")"/bin/* "$root/opt/cni/bin/"
  # cri-base.json as its Dockerfile makes it: ctr's default spec, the product-files hook, no rlimits.
  "$cd/ctr" oci spec | python3 -c '
import json, sys
spec = json.load(sys.stdin)
spec.setdefault("hooks", {}).setdefault("createContainer", []).append({"path": "/kind/bin/mount-product-files.sh"})
spec["process"].pop("rlimits", None)
json.dump(spec, sys.stdout, indent=4)' > "$root/etc/containerd/cri-base.json"
  log "node: component images"
  local names; names=$(build_component_images "$root")
  # Machine-specific containerd settings: without CAP_SYS_RESOURCE runc cannot lower
  # oom_score_adj ("can't get final child's PID from pipe: EOF"); the sandbox image is our pause,
  # under the name kubeadm gives it.
  local pause_image; pause_image=$(grep -m1 '/pause:' <<< "$names") || die "kubeadm lists no pause image"
  sed -i -e 's/restrict_oom_score_adj = false/restrict_oom_score_adj = true/' \
    -e "s|sandbox_image = \".*\"|sandbox_image = \"$pause_image\"|" "$root/etc/containerd/config.toml"
  grep -q 'restrict_oom_score_adj = true' "$root/etc/containerd/config.toml" || die "kind's containerd config has no restrict_oom_score_adj to set"
  grep -q "sandbox_image = \"$pause_image\"" "$root/etc/containerd/config.toml" || die "kind's containerd config has no sandbox_image to set"
  # The default CNI, in kindnetd's place (not obtainable): flanneld's image, the flannel CNI
  # plugin and test/harness/kind/default-cni.yaml where kind applies it from (kind's
  # installcni action fills in the pod subnet).
  names+=$'\n'"$(build_flannel_image "$root")"
  install -m 755 "$(kind_dir cni-flannel "$CNI_FLANNEL_PLUGIN_VERSION")/bin/flannel" "$root/opt/cni/bin/flannel"
  install -d -m 755 "$root/kind/manifests"
  sed "s|@FLANNEL_IMAGE@|$KIND_FLANNEL_IMAGE|g" "$HARNESS_SRC/kind/default-cni.yaml" > "$root/kind/manifests/default-cni.yaml"
  grep -q "would you kindly template this file" "$root/kind/manifests/default-cni.yaml" || die "default-cni.yaml lost kind's template marker"
  # The Kubernetes node binaries, where kind's node-image build puts them.
  install -m 755 "$kn/kubelet" "$kn/kubeadm" "$(binary_path kubectl)" "$root/usr/bin/"
  printf '%s' "$v" > "$root/kind/version"

  load_saved "$KIND_KAPP_CONTROLLER_IMAGE" "$KIND_KAPP_CONTROLLER_TAR"
  names+=$'\n'"$KIND_KAPP_CONTROLLER_IMAGE"

  log "node: base image"
  local base="devpkg.test/kind/base-build:$(kind_key)"
  import_dir "$root" "$base.tmp" 'ENV container=docker' 'ENTRYPOINT ["/usr/local/bin/entrypoint", "/sbin/init"]'
  rm -rf "$root"
  # docker import cannot set STOPSIGNAL (systemd stops on SIGRTMIN+3): one offline classic build.
  local ctx; ctx=$(mktemp -d "$DEVPKG_CACHE/src/kind-base-ctx.XXXXXX")
  printf 'FROM %s\nSTOPSIGNAL SIGRTMIN+3\n' "$base.tmp" > "$ctx/Dockerfile"
  DOCKER_BUILDKIT=0 D build -q -t "$base" "$ctx" >/dev/null || die "docker build (STOPSIGNAL) of $base failed"
  rm -rf "$ctx"; D rmi "$base.tmp" >/dev/null

  log "node: importing $(echo "$names" | wc -l) images into the node's containerd"
  local id="devpkg-kind-node-build-$$"
  D run -d --privileged --entrypoint=sleep --name "$id" "$base" infinity >/dev/null || die "docker run of the base image failed"
  # shellcheck disable=SC2016
  D exec "$id" bash -c 'nohup containerd > /var/log/containerd-build.log 2>&1 &
    for i in $(seq 1 60); do [ -S /run/containerd/containerd.sock ] && ctr version >/dev/null 2>&1 && exit 0; sleep 0.5; done
    cat /var/log/containerd-build.log >&2; exit 1' || { D rm -f "$id" >/dev/null; die "containerd did not start in the node build container"; }
  # shellcheck disable=SC2086
  D save $names | D exec -i "$id" ctr --namespace=k8s.io images import --label=io.cri-containerd.pinned=pinned \
    --all-platforms --no-unpack --digests - >&2 || { D rm -f "$id" >/dev/null; die "importing the component images into the node failed"; }
  local listed missing="" n
  listed=$(D exec "$id" ctr --namespace=k8s.io images list -q)
  for n in $names; do grep -qxF "$n" <<< "$listed" || grep -qxF "docker.io/$n" <<< "$listed" || missing+=" $n"; done
  [ -z "$missing" ] || { D rm -f "$id" >/dev/null; die "images missing in the node's containerd after import:$missing"; }
  # (it becomes a zombie: the container's PID 1 is sleep, which reaps nothing)
  D exec "$id" bash -c 'pkill -x containerd; for i in $(seq 1 40); do pgrep -x -r R,S,D containerd >/dev/null || exit 0; sleep 0.25; done; exit 1' \
    || log "containerd in the build container did not stop on TERM"
  D exec "$id" rm -f /var/log/containerd-build.log
  D commit --change 'ENTRYPOINT [ "/usr/local/bin/entrypoint", "/sbin/init" ]' \
    --change 'ENV HTTP_PROXY="" HTTPS_PROXY="" NO_PROXY=""' "$id" "$KIND_NODE_IMAGE" >/dev/null \
    || { D rm -f "$id" >/dev/null; die "docker commit of the node image failed"; }
  D rm -f "$id" >/dev/null
  # shellcheck disable=SC2086
  D rmi $names "$base" >/dev/null 2>&1 || true
  D load -i "$KIND_KAPP_CONTROLLER_TAR" >/dev/null
  mkdir -p "$KIND_IMAGES_DIR"
  save_image "$KIND_NODE_IMAGE" "$KIND_NODE_TAR"
  log "node image $KIND_NODE_IMAGE built in $((SECONDS - started))s"
}

build_image_step() {
  case $1 in
    registry) build_registry_image ;;
    kapp-controller) build_kapp_controller ;;
    node) build_node_image ;;
  esac
}

main() {
  mkdir -p "$DEVPKG_CACHE"
  local started=$SECONDS steps=("$@") s t
  [ ${#steps[@]} -eq 0 ] && read -r -a steps <<< "$STEPS"
  for s in "${steps[@]}"; do
    t=$SECONDS
    exec 7>"$DEVPKG_CACHE/kind-build-$s.lock"
    flock 7
    build_step "$s"
    exec 7>&-
    log "step $s: $((SECONDS - t))s"
  done
  log "kind build done in $((SECONDS - started))s"
}

main "$@"
