#!/usr/bin/env bash
# Shared helpers for the devpkg test harness. Sourced, not executed.
# Everything here logs to stderr; stdout is reserved for `export` lines.

HARNESS_SRC="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=versions.env
. "$HARNESS_SRC/versions.env"

DEVPKG_CACHE="${DEVPKG_CACHE:-$HOME/.cache/devpkg}"
DEVPKG_HARNESS_DIR="${DEVPKG_HARNESS_DIR:-/tmp/devpkg-harness}"

log() { printf '[harness %s] %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }
die() { printf '[harness] ERROR: %s\n' "$*" >&2; exit 1; }

# Directory holding one built component, keyed by its version and the recipe revision.
component_dir() { # name version
  printf '%s/build/%s-%s-r%s' "$DEVPKG_CACHE" "$1" "$2" "$HARNESS_BUILD_REV"
}

# Binaries of the harness, one line per "binary component version".
harness_binaries() {
  cat <<LIST
etcd etcd $ETCD_VERSION
kube-apiserver kubernetes $KUBERNETES_VERSION
kube-controller-manager kubernetes $KUBERNETES_VERSION
kubectl kubernetes $KUBERNETES_VERSION
ytt ytt $YTT_VERSION
imgpkg imgpkg $IMGPKG_VERSION
kbld kbld $KBLD_VERSION
kapp kapp $KAPP_VERSION
vendir vendir $VENDIR_VERSION
LIST
}

binary_path() { # binary -> path of the cached build (may not exist yet)
  local b c v
  while read -r b c v; do
    if [ "$b" = "$1" ]; then printf '%s/bin/%s' "$(component_dir "$c" "$v")" "$b"; return 0; fi
  done < <(harness_binaries)
  return 1
}

# A free TCP port on 127.0.0.1 (the kernel picks it; a tiny race remains until the
# process binds, which is why callers check that their process came up).
free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

pid_alive() { [ -n "${1:-}" ] && kill -0 "$1" 2>/dev/null; }

# Wait until a command succeeds, up to $1 seconds; $2 names what we wait for.
wait_for() { # seconds what cmd...
  local secs=$1 what=$2; shift 2
  local deadline=$((SECONDS + secs))
  until "$@" >/dev/null 2>&1; do
    if [ $SECONDS -ge $deadline ]; then
      log "timed out after ${secs}s waiting for $what"
      return 1
    fi
    sleep 0.5
  done
}

# Every command the harness and the tests need, as "command what-provides-it" lines: the
# machine's toolchains, the Debian packages, and the binaries the harness builds.
harness_commands() {
  local c pair b comp v
  for c in $MACHINE_COMMANDS; do printf '%s machine\n' "$c"; done
  for pair in $DEBIAN_PACKAGES; do printf '%s debian:%s\n' "${pair%%:*}" "${pair#*:}"; done
  while read -r b comp v; do printf '%s built:%s\n' "$b" "$comp"; done < <(harness_binaries)
  # The kind harness's (test/harness/kind.sh check verifies these; check_commands does not, as
  # the control plane runs without them).
  for pair in $KIND_DEBIAN_PACKAGES; do printf '%s kind-debian:%s\n' "${pair%%:*}" "${pair#*:}"; done
  printf '%s kind-built:%s\n' kind kind devpkg-runc runtime-wrapper
}

# Fails once, naming every missing command and how to get it (built ones are looked up in the
# cache, the others on PATH).
check_commands() {
  local missing=() c how path
  while read -r c how; do
    case $how in
      built:*) path=$(binary_path "$c"); [ -x "$path" ] || missing+=("$c (built by test/harness/build.sh ${how#built:})") ;;
      debian:*) if [ "$c" = docker-registry ]; then [ -x /usr/bin/docker-registry ] || missing+=("$c (apt-get install ${how#debian:})");
                elif ! command -v "$c" >/dev/null 2>&1; then missing+=("$c (apt-get install ${how#debian:})"); fi ;;
      machine) command -v "$c" >/dev/null 2>&1 || missing+=("$c (the machine's toolchain; not installed by the project)") ;;
    esac
  done < <(harness_commands)
  if [ ${#missing[@]} -gt 0 ]; then
    die "missing commands the tests need: ${missing[*]}; run test/harness/build.sh (as root for apt-get)"
  fi
  log "all $(harness_commands | wc -l) commands the tests need are present"
}
