#!/usr/bin/env bash
# Build (or find cached) every binary of the devpkg test harness and install the Debian
# packages it needs. Idempotent: a component whose binaries are already in the cache is
# skipped, so a warm run takes seconds.
#
#   test/harness/build.sh            build everything missing
#   test/harness/build.sh NAME...    only these components (etcd kubernetes ytt imgpkg kbld kapp vendir debian)
#
# Builds go to ${DEVPKG_CACHE:-$HOME/.cache/devpkg}/build/<component>-<version>-r<rev>/bin.
# All output goes to stderr.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

APT_UPDATED=0
ensure_debian_packages() {
  local missing=() pair cmd pkg
  for pair in $DEBIAN_PACKAGES; do
    cmd=${pair%%:*} pkg=${pair#*:}
    if [ "$cmd" = docker-registry ]; then
      [ -x /usr/bin/docker-registry ] || missing+=("$pkg")
    elif ! command -v "$cmd" >/dev/null 2>&1; then
      missing+=("$pkg")
    fi
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  if [ "$(id -u)" != 0 ]; then
    die "missing Debian packages: ${missing[*]}; install them (apt-get install ${missing[*]}) or run as root"
  fi
  log "installing Debian packages: ${missing[*]}"
  if [ $APT_UPDATED = 0 ]; then
    DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 update -qq >&2 || die "apt-get update failed"
    APT_UPDATED=1
  fi
  # policy-rc.d keeps the packages' own services (docker-registry on :5000) from starting.
  local policy=/usr/sbin/policy-rc.d created_policy=0
  if [ ! -e $policy ]; then printf '#!/bin/sh\nexit 101\n' > $policy; chmod +x $policy; created_policy=1; fi
  DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "${missing[@]}" >&2 \
    || { [ $created_policy = 1 ] && rm -f $policy; die "apt-get install ${missing[*]} failed"; }
  [ $created_policy = 1 ] && rm -f $policy
  return 0
}

GO_BUILDS="the harness builds etcd, Kubernetes and the Carvel CLIs from Go modules"

# build_component NAME MODULE VERSION 'LDFLAGS' MAINPKG...: go_wrapper_build (lib.sh) into the
# component's cache folder, with the wrapper module NAME.
build_component() {
  local name=$1 module=$2 version=$3 ldflags=$4; shift 4
  go_wrapper_build "$(component_dir "$name" "$version")" "$name" "$name" "$module" "$version" "$ldflags" "" "$@"
}

build_etcd() {
  # etcd's own main package lives in go.etcd.io/etcd/v3 (the repository root) which
  # replaces its sibling modules by path; server/v3 has a clean go.mod and the
  # etcdmain package, so a two-line main wraps it.
  local out; out=$(component_dir etcd "$ETCD_VERSION")
  if [ -x "$out/bin/etcd" ]; then log "etcd $ETCD_VERSION: cached ($out)"; return 0; fi
  go_env
  local started=$SECONDS work="$DEVPKG_CACHE/src/etcd-$ETCD_VERSION"
  rm -rf "$work" "$out.tmp"; mkdir -p "$work/etcd" "$out.tmp/bin"
  cat > "$work/etcd/main.go" <<'GO'
// Command etcd is the etcd server, built from go.etcd.io/etcd/server/v3.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() { etcdmain.Main(os.Args) }
GO
  (
    cd "$work"
    go mod init devpkg.test/harness/etcd >/dev/null 2>&1
    local gomod; gomod=$(go mod download -json "go.etcd.io/etcd/server/v3@$ETCD_VERSION" | python3 -c 'import json,sys; print(json.load(sys.stdin)["GoMod"])')
    local flags; flags=$(go mod edit -json "$gomod" | python3 "$HARNESS_SRC/gen-replaces.py" "$ETCD_VERSION")
    # shellcheck disable=SC2086
    go mod edit $flags -require="go.etcd.io/etcd/server/v3@$ETCD_VERSION"
    log "etcd $ETCD_VERSION: go mod tidy"
    go mod tidy >&2
    log "etcd $ETCD_VERSION: go build"
    go build -trimpath -ldflags "-s -w -X go.etcd.io/etcd/api/v3/version.GitSHA=$ETCD_VERSION" -o "$out.tmp/bin/etcd" ./etcd >&2
  ) || die "building etcd $ETCD_VERSION failed (work dir $work)"
  rm -rf "$out"; mv "$out.tmp" "$out"
  printf 'etcd %s built in %ss with %s\n' "$ETCD_VERSION" "$((SECONDS - started))" "$(go version)" > "$out/BUILDINFO"
  log "etcd $ETCD_VERSION: built in $((SECONDS - started))s"
  rm -rf "$work"
}

build_kubernetes() {
  local v=$KUBERNETES_VERSION
  local out b cached=1; out=$(component_dir kubernetes "$v")
  for b in kube-apiserver kube-controller-manager kubectl; do [ -x "$out/bin/$b" ] || cached=0; done
  if [ $cached = 1 ]; then log "kubernetes $v: cached ($out)"; return 0; fi
  local ld; ld=$(kube_ldflags "$v")
  build_component kubernetes k8s.io/kubernetes "$v" "$ld" \
    k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kube-controller-manager \
    k8s.io/kubernetes/cmd/kubectl
}

build_carvel() { # name version main-package version-var
  local name=$1 version=$2 pkg=$3 var=$4
  build_component "$name" "carvel.dev/$name" "$version" "-s -w -X $var=${version#v}" "$pkg"
}

build_one() {
  case $1 in
    debian) ensure_debian_packages ;;
    etcd) build_etcd ;;
    kubernetes) build_kubernetes ;;
    ytt) build_carvel ytt "$YTT_VERSION" carvel.dev/ytt/cmd/ytt carvel.dev/ytt/pkg/version.Version ;;
    imgpkg) build_carvel imgpkg "$IMGPKG_VERSION" carvel.dev/imgpkg/cmd/imgpkg carvel.dev/imgpkg/pkg/imgpkg/cmd.Version ;;
    kbld) build_carvel kbld "$KBLD_VERSION" carvel.dev/kbld/cmd/kbld carvel.dev/kbld/pkg/kbld/version.Version ;;
    kapp) build_carvel kapp "$KAPP_VERSION" carvel.dev/kapp/cmd/kapp carvel.dev/kapp/pkg/kapp/version.Version ;;
    vendir) build_carvel vendir "$VENDIR_VERSION" carvel.dev/vendir/cmd/vendir carvel.dev/vendir/pkg/vendir/version.Version ;;
    *) die "unknown component $1 (known: debian etcd kubernetes ytt imgpkg kbld kapp vendir)" ;;
  esac
}

main() {
  take_build_lock
  local started=$SECONDS
  local components=("$@")
  [ ${#components[@]} -eq 0 ] && components=(debian etcd kubernetes ytt imgpkg kbld kapp vendir)
  local c
  for c in "${components[@]}"; do build_one "$c"; done
  [ ${#components[@]} -gt 1 ] && check_commands
  log "build done in $((SECONDS - started))s"
}

main "$@"
