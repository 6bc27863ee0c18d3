#!/usr/bin/env bash
# Shared helpers for the devpkg test harness, sourced (not executed) by every harness script:
# build.sh, controlplane.sh, kapp-controller.sh, tkg.sh, kind.sh and kind-build.sh.
# Everything here logs to stderr; stdout is reserved for `export` lines.

HARNESS_SRC="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=versions.env
. "$HARNESS_SRC/versions.env"

DEVPKG_CACHE="${DEVPKG_CACHE:-$HOME/.cache/devpkg}"

# Log lines are "[HARNESS_NAME HH:MM:SS] message" on stderr, and also appended to HARNESS_LOG
# once the script has set it. A script names itself by setting HARNESS_NAME after sourcing.
HARNESS_NAME=harness
HARNESS_LOG=""
log() {
  local line; line=$(printf '[%s %s] %s' "$HARNESS_NAME" "$(date -u +%H:%M:%S)" "$*")
  printf '%s\n' "$line" >&2
  [ -z "$HARNESS_LOG" ] || printf '%s\n' "$line" >> "$HARNESS_LOG"
}
die() { log "ERROR: $*"; exit 1; }

# A value quoted for an `export NAME=...` line that the caller evaluates.
q() { printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"; }

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
  # The workflow tier's (test/harness/act.sh builds act and installs these; not needed by the others).
  for pair in $WORKFLOW_DEBIAN_PACKAGES; do printf '%s workflow-debian:%s\n' "${pair%%:*}" "${pair#*:}"; done
  printf '%s workflow-built:%s\n' act act
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

# ---------------------------------------------------------------- Go builds

# The environment of every Go build of the harness: modules from the proxy, no workspace, static
# binaries, the machine's toolchain. A script sets GO_BUILDS (what it builds, for the error when
# go is missing) and may set GO_FLAGS.
GO_BUILDS="the harness builds its binaries from Go modules"
GO_FLAGS='-mod=mod -buildvcs=false'
go_env() {
  command -v go >/dev/null 2>&1 || die "go is not on PATH; $GO_BUILDS"
  export GOFLAGS="$GO_FLAGS" GOTOOLCHAIN=local CGO_ENABLED=0 GOWORK=off GO111MODULE=on
}

# One build at a time on this machine (two cores; concurrent harnesses share the cache): fd 9
# holds $DEVPKG_CACHE/build.lock until the script closes it (exec 9>&-) or ends. Processes the
# harness starts must not inherit it (9>&-).
take_build_lock() {
  mkdir -p "$DEVPKG_CACHE"
  exec 9>"$DEVPKG_CACHE/build.lock"
  flock 9
}

# Directory of a module in the module cache (downloads it if needed).
module_dir() { # module version
  go_env
  (cd "${TMPDIR:-/tmp}" && go mod download -json "$1@$2") \
    | python3 -c 'import json,sys; print(json.load(sys.stdin)["Dir"])' \
    || die "go mod download $1@$2 failed"
}

# The -ldflags of a Kubernetes build at VERSION: what `kubectl version` and the components report
# (version, commit and date from the module's .info, as the release build stamps them).
kube_ldflags() { # version
  local v=$1 major minor
  major=$(echo "$v" | sed -E 's/^v([0-9]+)\..*/\1/')
  minor=$(echo "$v" | sed -E 's/^v[0-9]+\.([0-9]+)\..*/\1/')
  go_env
  local info date commit
  info=$(cd "${TMPDIR:-/tmp}" && go mod download -json "k8s.io/kubernetes@$v" | python3 -c 'import json,sys; print(json.load(sys.stdin)["Info"])') \
    || die "go mod download k8s.io/kubernetes@$v failed"
  read -r date commit < <(python3 - "$info" <<'PY'
import json, sys
info = json.load(open(sys.argv[1]))
print(info.get("Time") or "1970-01-01T00:00:00Z", (info.get("Origin") or {}).get("Hash") or "")
PY
)
  local ld="-s -w" pkg
  for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    ld+=" -X $pkg.gitVersion=$v -X $pkg.gitMajor=$major -X $pkg.gitMinor=$minor"
    ld+=" -X $pkg.gitTreeState=clean -X $pkg.buildDate=$date"
    [ -n "$commit" ] && ld+=" -X $pkg.gitCommit=$commit"
  done
  printf '%s' "$ld"
}

# go_wrapper_build OUT WRAPPER NAME MODULE VERSION 'LDFLAGS' 'TAGS' MAINPKG...
# Builds MODULE@VERSION's main packages into OUT/bin, unless they are all there already. A wrapper
# module devpkg.test/harness/WRAPPER (in $DEVPKG_CACHE/src/WRAPPER-VERSION) requires MODULE@VERSION
# with the replace directives gen-replaces.py derives from MODULE's own go.mod, plus those in
# GO_WRAPPER_REPLACES (space-separated OLD=NEW@VERSION: a dependency version the proxy does not
# serve, replaced by one it does), with cgo when GO_WRAPPER_CGO=1 (default off). NAME is for the log.
go_wrapper_build() {
  local out=$1 wrapper=$2 name=$3 module=$4 version=$5 ldflags=$6 tags=$7; shift 7
  local pkg missing=0
  for pkg in "$@"; do [ -x "$out/bin/${pkg##*/}" ] || missing=1; done
  if [ $missing = 0 ]; then log "$name $version: cached ($out)"; return 0; fi
  go_env
  export CGO_ENABLED=${GO_WRAPPER_CGO:-0}
  local started=$SECONDS work="$DEVPKG_CACHE/src/$wrapper-$version"
  rm -rf "$work" "$out.tmp"; mkdir -p "$work" "$out.tmp/bin"
  log "$name $version: resolving $module"
  local gomod
  gomod=$(cd "$work" && go mod download -json "$module@$version" | python3 -c 'import json,sys; print(json.load(sys.stdin)["GoMod"])') \
    || die "go mod download $module@$version failed"
  (
    cd "$work"
    go mod init "devpkg.test/harness/$wrapper" >/dev/null 2>&1
    local flags; flags=$(go mod edit -json "$gomod" | python3 "$HARNESS_SRC/gen-replaces.py" "$version")
    # shellcheck disable=SC2086
    local r; for r in ${GO_WRAPPER_REPLACES:-}; do flags+=" -replace=$r"; done
    go mod edit $flags -require="$module@$version"
    local gets=() p; for p in "$@"; do gets+=("$p@$version"); done
    log "$name $version: go get ${gets[*]}"
    go get "${gets[@]}" >&2
    log "$name $version: go build (the slow part)"
    go build -trimpath -tags "$tags" -ldflags "$ldflags" -o "$out.tmp/bin/" "$@" >&2
  ) || die "building $name $version failed (work dir $work)"
  rm -rf "$out"; mv "$out.tmp" "$out"
  printf '%s %s built in %ss with %s\n' "$name" "$version" "$((SECONDS - started))" "$(go version)" > "$out/BUILDINFO"
  log "$name $version: built in $((SECONDS - started))s"
  rm -rf "$work"
}

# ---------------------------------------------------------------- processes

# Processes a harness starts keep their argv in $D/run/NAME.args (one argument per line, binary
# first) and their PID in $D/run/NAME.pid; D is the script's state directory.
proc_args_file() { printf '%s/run/%s.args' "$D" "$1"; }
proc_pid_file() { printf '%s/run/%s.pid' "$D" "$1"; }
read_pid() { local f; f=$(proc_pid_file "$1"); [ -f "$f" ] && cat "$f" || true; }

# The PID is ours only if it is alive and still runs the binary we started (PIDs get reused).
our_pid() { # name -> prints pid if it is our live process
  local name=$1 pid exe
  pid=$(read_pid "$name")
  pid_alive "$pid" || return 1
  exe=$(head -n1 "$(proc_args_file "$name")" 2>/dev/null || true)
  [ -n "$exe" ] || return 1
  local cmd0; cmd0=$(tr '\0' '\n' < "/proc/$pid/cmdline" 2>/dev/null | head -n1 || true)
  [ "$cmd0" = "$exe" ] || return 1
  printf '%s' "$pid"
}

# TERM, then KILL after 20 s; forgets the PID either way.
stop_proc() { # name
  local name=$1 pid
  pid=$(our_pid "$name") || { rm -f "$(proc_pid_file "$name")"; return 0; }
  log "stopping $name (pid $pid)"
  kill -TERM "$pid" 2>/dev/null || true
  local deadline=$((SECONDS + 20))
  while pid_alive "$pid" && [ $SECONDS -lt $deadline ]; do sleep 0.2; done
  if pid_alive "$pid"; then
    log "$name (pid $pid) did not stop after 20s; killing"
    kill -KILL "$pid" 2>/dev/null || true
    while pid_alive "$pid"; do sleep 0.1; done
  fi
  rm -f "$(proc_pid_file "$name")"
}

# Waits up to SECONDS until CHECK... succeeds for the started process NAME; STATE words what is
# waited for ("healthy", "serving URL"). Fails, quoting the end of $D/logs/NAME.log, when the
# process exits first or the time runs out.
wait_started() { # name seconds state check...
  local name=$1 secs=$2 state=$3; shift 3
  local deadline=$((SECONDS + secs))
  until "$@"; do
    if ! our_pid "$name" >/dev/null; then
      log "$name exited during start-up; last lines of $D/logs/$name.log:"
      tail -n 30 "$D/logs/$name.log" >&2 || true
      return 1
    fi
    if [ $SECONDS -ge $deadline ]; then
      log "$name not $state after ${secs}s; last lines of $D/logs/$name.log:"
      tail -n 30 "$D/logs/$name.log" >&2 || true
      return 1
    fi
    sleep 0.3
  done
  log "$name $state"
}
