#!/usr/bin/env bash
# nektos/act for the workflow tier (test/workflows/): built once from its Go module with
# `go install github.com/nektos/act@$ACT_VERSION` (versions.env) into
# ${DEVPKG_CACHE:-$HOME/.cache/devpkg}/build/act-<version>-r<rev>/bin/act, and the Debian packages
# the workflows' own run: steps use (WORKFLOW_DEBIAN_PACKAGES) installed when missing (as root).
#
#   test/harness/act.sh build    build what is missing; prints the act binary's path on stdout
#   test/harness/act.sh path     prints the path (exit 1 when not built)
#
# Its own lock ($DEVPKG_CACHE/act-build.lock), not build.sh's: a cold control-plane build holds
# that one for many minutes and act needs none of it.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
HARNESS_NAME=act
GO_BUILDS="the workflow tier builds act from its Go module"

out=$(component_dir act "$ACT_VERSION")
act="$out/bin/act"

ensure_workflow_packages() {
  local missing=() pair
  for pair in $WORKFLOW_DEBIAN_PACKAGES git:git; do
    command -v "${pair%%:*}" >/dev/null 2>&1 || missing+=("${pair#*:}")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  [ "$(id -u)" = 0 ] || die "missing Debian packages the workflows use: ${missing[*]}; apt-get install ${missing[*]} (or run as root)"
  log "installing Debian packages: ${missing[*]}"
  DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 update -qq >&2 || die "apt-get update failed"
  DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "${missing[@]}" >&2 \
    || die "apt-get install ${missing[*]} failed"
}

build() {
  ensure_workflow_packages
  if [ -x "$act" ]; then printf '%s\n' "$act"; return 0; fi
  mkdir -p "$DEVPKG_CACHE"
  exec 9>"$DEVPKG_CACHE/act-build.lock"
  flock 9
  if [ ! -x "$act" ]; then
    go_env
    local started=$SECONDS
    log "act $ACT_VERSION: go install github.com/nektos/act@$ACT_VERSION"
    rm -rf "$out.tmp"
    GOBIN="$out.tmp/bin" go install -trimpath -ldflags "-s -w" "github.com/nektos/act@$ACT_VERSION" >&2 \
      || die "go install github.com/nektos/act@$ACT_VERSION failed"
    printf 'act %s built in %ss with %s\n' "$ACT_VERSION" "$((SECONDS - started))" "$(go version)" > "$out.tmp/BUILDINFO"
    rm -rf "$out"; mv "$out.tmp" "$out"
    log "act $ACT_VERSION: built in $((SECONDS - started))s ($act)"
  fi
  exec 9>&-
  printf '%s\n' "$act"
}

case "${1:-build}" in
  build) build ;;
  path) [ -x "$act" ] || die "act $ACT_VERSION is not built; run test/harness/act.sh build"; printf '%s\n' "$act" ;;
  *) die "usage: act.sh build|path" ;;
esac
