#!/usr/bin/env bash
# Shared by test/harness/kind.sh and kind-build.sh: names of the kind harness's cached pieces and
# images, and the private container engine (Debian's dockerd). Sourced after lib.sh, not executed.

kind_dir() { # name version -> cache directory of one kind build
  printf '%s/build/kind-%s-%s-r%s' "$DEVPKG_CACHE" "$1" "$2" "$KIND_RECIPE_REV"
}

# A short key over every version an image is made from and the node image's default CNI manifest,
# so a changed version, manifest (or recipe rev) makes a new image and a new cache entry.
kind_key() {
  printf '%s ' "$(sha256sum < "$HARNESS_SRC/kind/default-cni.yaml" | cut -c1-16)" "$KIND_RECIPE_REV" "$KIND_VERSION" "$KUBERNETES_VERSION" "$ETCD_VERSION" "$CONTAINERD_VERSION" \
    "$CRICTL_VERSION" "$CNI_PLUGINS_VERSION" "$CNI_FLANNEL_PLUGIN_VERSION" "$FLANNEL_VERSION" "$COREDNS_VERSION" "$KIND_DEBIAN_SUITE" \
    "$KAPP_CONTROLLER_VERSION" "$YTT_VERSION" "$IMGPKG_VERSION" "$KBLD_VERSION" "$KAPP_VERSION" "$VENDIR_VERSION" \
    | sha256sum | cut -c1-10
}

# Images the harness makes. Their names are under devpkg.test/, a registry that does not exist, so
# nothing is ever pulled for them: they are loaded from the cache.
KIND_NODE_IMAGE="devpkg.test/kind/node:$KUBERNETES_VERSION-$(kind_key)"
KIND_REGISTRY_IMAGE="devpkg.test/kind/registry:2-$(kind_key)"
KIND_KAPP_CONTROLLER_IMAGE="devpkg.test/kind/kapp-controller:$KAPP_CONTROLLER_VERSION-$(kind_key)"
# flanneld, the node image's default CNI (test/harness/kind/default-cni.yaml); only inside the node.
KIND_FLANNEL_IMAGE="devpkg.test/kind/flannel:$FLANNEL_VERSION-$(kind_key)"
KIND_IMAGES_DIR="$(kind_dir images "$(kind_key)")"
# The three image archives (`docker save`) and the rendered kapp-controller release manifest.
KIND_NODE_TAR="$KIND_IMAGES_DIR/node.tar"
KIND_REGISTRY_TAR="$KIND_IMAGES_DIR/registry.tar"
KIND_KAPP_CONTROLLER_TAR="$KIND_IMAGES_DIR/kapp-controller.tar"
KIND_KAPP_CONTROLLER_MANIFEST="$KIND_IMAGES_DIR/kapp-controller-release.yml"

kind_binary() { # kind | devpkg-runc -> path in the cache
  case $1 in
    kind) printf '%s/bin/kind' "$(kind_dir kind "$KIND_VERSION")" ;;
    devpkg-runc) printf '%s/bin/devpkg-runc' "$(kind_dir runtime-wrapper "$KIND_RECIPE_REV")" ;;
    *) return 1 ;;
  esac
}

# ------------------------------------------------------------------ the engine

DEVPKG_HARNESS_DIR="${DEVPKG_HARNESS_DIR:-/tmp/devpkg-harness}"

# State of one engine: $DEVPKG_HARNESS_DIR/kind (data root, exec root, socket, pid, snapshots).
engine_paths() {
  ENGINE_DIR="$DEVPKG_HARNESS_DIR/kind"
  ENGINE_SOCK="$ENGINE_DIR/docker.sock"
  ENGINE_PID="$ENGINE_DIR/dockerd.pid"
  ENGINE_LOG="$DEVPKG_HARNESS_DIR/logs/dockerd.log"
}
# One engine per machine: dockerd's bridges, iptables chains and the `kind` network's addresses
# live in the machine's network namespace, so two engines would fight over them.
ENGINE_OWNER=/run/devpkg-kind-engine
ENGINE_RULE_COMMENT=devpkg-kind-harness

# The interface of the default route: the way off this machine.
uplink() { ip -o route show default 2>/dev/null | awk '{for (i = 1; i < NF; i++) if ($i == "dev") { print $(i + 1); exit }}'; }
uplink6() { ip -o -6 route show default 2>/dev/null | awk '{for (i = 1; i < NF; i++) if ($i == "dev") { print $(i + 1); exit }}'; }

# pid of the running engine of this harness dir, if it is alive and is dockerd.
engine_pid() {
  engine_paths
  [ -s "$ENGINE_PID" ] || return 1
  local pid; pid=$(cat "$ENGINE_PID")
  pid_alive "$pid" || return 1
  [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = dockerd ] || return 1
  printf '%s' "$pid"
}

# The dockerd flags. Everything that keeps packets on this machine is here:
# --ip-forward=false (dockerd never turns forwarding on), --ip-masq=false (no NAT to the
# outside), --dns 127.0.0.1 (containers resolve nothing beyond the machine).
engine_flags() {
  local wrapper; wrapper=$(kind_binary devpkg-runc)
  printf '%s\n' \
    --host "unix://$ENGINE_SOCK" \
    --data-root "$ENGINE_DIR/data" \
    --exec-root "$ENGINE_DIR/exec" \
    --pidfile "$ENGINE_PID" \
    --storage-driver overlay2 \
    --exec-opt native.cgroupdriver=cgroupfs \
    --add-runtime "devpkg-runc=$wrapper" \
    --default-runtime devpkg-runc \
    --ip-forward=false \
    --ip-masq=false \
    --dns 127.0.0.1 \
    --iptables=true \
    --userland-proxy=true \
    --log-level warn
}

# The rules that drop every packet a container sends towards the uplink (IPv4 in DOCKER-USER,
# where dockerd wants them; IPv6 in FORWARD, since dockerd 20.10 has no IPv6 chains).
isolation_rules() { # add|check|delete
  local op=$1 up up6 rc=0
  up=$(uplink); up6=$(uplink6)
  case $op in
    add)
      [ -n "$up" ] && iptables -I DOCKER-USER -o "$up" -m comment --comment "$ENGINE_RULE_COMMENT" -j DROP
      [ -n "$up6" ] && ip6tables -I FORWARD -o "$up6" -m comment --comment "$ENGINE_RULE_COMMENT" -j DROP
      return 0 ;;
    check)
      if [ -n "$up" ]; then iptables -C DOCKER-USER -o "$up" -m comment --comment "$ENGINE_RULE_COMMENT" -j DROP 2>/dev/null || rc=1; fi
      if [ -n "$up6" ]; then ip6tables -C FORWARD -o "$up6" -m comment --comment "$ENGINE_RULE_COMMENT" -j DROP 2>/dev/null || rc=1; fi
      return $rc ;;
  esac
}

# iptables and links as they are now (compared at `down`; the test compares them too).
net_snapshot() { # dir
  mkdir -p "$1"
  local t
  for t in filter nat mangle raw; do
    iptables -t $t -S > "$1/iptables-$t" 2>/dev/null || true
    ip6tables -t $t -S > "$1/ip6tables-$t" 2>/dev/null || true
  done
  ip -o link show | awk -F': ' '{print $2}' | sed 's/@.*//' | sort > "$1/links"
  # dockerd (cgroupfs driver) makes a docker/ cgroup in every hierarchy and leaves it.
  ls -d /sys/fs/cgroup/*/docker /sys/fs/cgroup/docker 2>/dev/null | sort > "$1/cgroups" || true
  cat /proc/sys/net/ipv4/ip_forward > "$1/ip_forward"
}

# Undo every iptables rule and chain, and every link, that is not in the snapshot taken before
# the engine started (dockerd leaves its chains, rules and docker0 behind when it stops).
net_restore() { # snapshot-dir
  local snap=$1 t cmd line spec chain
  for cmd in iptables ip6tables; do
    for t in filter nat mangle raw; do
      [ -f "$snap/$cmd-$t" ] || continue
      # Rules first (deleting a rule by its spec), then the chains that were added.
      while IFS= read -r line; do
        case $line in
          "-A "*) spec=${line#-A }
            # shellcheck disable=SC2086
            eval "$cmd -t $t -D $spec" 2>/dev/null || log "could not delete $cmd -t $t rule: $line" ;;
        esac
      done < <($cmd -t $t -S 2>/dev/null | grep -vxF -f "$snap/$cmd-$t" || true)
      local chains=()
      mapfile -t chains < <($cmd -t $t -S 2>/dev/null | grep -vxF -f "$snap/$cmd-$t" | sed -n 's/^-N //p' || true)
      # Flush them all before deleting any: they jump to each other.
      for chain in "${chains[@]}"; do $cmd -t $t -F "$chain" 2>/dev/null || true; done
      for chain in "${chains[@]}"; do
        $cmd -t $t -X "$chain" 2>/dev/null || log "could not delete $cmd -t $t chain $chain"
      done
    done
  done
  local cg
  while IFS= read -r cg; do
    [ -d "$cg" ] && { find "$cg" -depth -type d -exec rmdir {} + 2>/dev/null || log "could not remove cgroup $cg"; }
  done < <(ls -d /sys/fs/cgroup/*/docker /sys/fs/cgroup/docker 2>/dev/null | sort | comm -13 "$snap/cgroups" -)
  local link
  while IFS= read -r link; do
    [ -n "$link" ] || continue
    case $link in docker0|br-*|veth*) ip link delete "$link" 2>/dev/null || log "could not delete link $link" ;; esac
  done < <(ip -o link show | awk -F': ' '{print $2}' | sed 's/@.*//' | sort | comm -13 "$snap/links" -)
}

# What is left of an engine: processes started from its state dir, mounts under it.
engine_processes() { # dir -> pids whose command line names the state dir
  local p
  for p in /proc/[0-9]*; do
    tr '\0' ' ' 2>/dev/null < "$p/cmdline" | grep -qF "$1/" && printf '%s\n' "${p#/proc/}"
  done
  return 0
}
# Every descendant of a process (docker-proxy and the like name no state dir).
descendants() { # pid
  local all; all=$(for f in /proc/[0-9]*/stat; do awk '{print $1, $4}' "$f" 2>/dev/null; done)
  local queue=("$1") p c
  while [ ${#queue[@]} -gt 0 ]; do
    p=${queue[0]}; queue=("${queue[@]:1}")
    for c in $(awk -v p="$p" '$2 == p {print $1}' <<< "$all"); do printf '%s\n' "$c"; queue+=("$c"); done
  done
}
engine_mounts() { # dir -> mount points under it, deepest first
  awk -v d="$1/" 'index($5, d) == 1 { print $5 }' /proc/self/mountinfo | sort -r
}

engine_start() {
  engine_paths
  local wrapper; wrapper=$(kind_binary devpkg-runc)
  [ -x "$wrapper" ] || die "the runtime wrapper is not built; run test/harness/kind-build.sh wrapper"
  command -v dockerd >/dev/null 2>&1 || die "dockerd is missing; run test/harness/kind-build.sh debian (as root)"
  [ "$(id -u)" = 0 ] || die "the kind harness runs dockerd and needs root"
  # Taking the machine's one engine slot: checked and claimed under a lock, so two `up`s waiting
  # for the same engine to go away do not both start.
  # The lock sits beside the owner file, not in the build cache: two harnesses with different
  # caches (a fresh-HOME CI rehearsal beside a developer's) still share the machine's one slot.
  exec 6>"$ENGINE_OWNER.lock"
  flock 6
  local waited=0 limit=${DEVPKG_KIND_ENGINE_WAIT:-0} odir opid
  while [ -s "$ENGINE_OWNER" ] && read -r odir opid < "$ENGINE_OWNER" && dockerd_running "$opid"; do
    if [ "$waited" -ge "$limit" ]; then
      exec 6>&-
      die "another kind harness engine runs on this machine (state $odir, dockerd pid $opid); only one can (they share the machine's bridges and iptables). Use it (DEVPKG_HARNESS_DIR=${odir%/kind}), stop it (DEVPKG_HARNESS_DIR=${odir%/kind} test/harness/kind.sh down) or wait for it (DEVPKG_KIND_ENGINE_WAIT=<seconds>)"
    fi
    [ "$waited" = 0 ] && log "waiting up to ${limit}s for the kind engine in $odir (dockerd pid $opid) to stop"
    flock -u 6; sleep 5; waited=$((waited + 5)); flock 6
  done
  # An engine killed without being brought down (SIGKILL; a session whose processes were ended)
  # leaves its chains, links and mounts, and the owner file naming its state: brought down here
  # with its own network snapshot, and said.
  if [ -s "$ENGINE_OWNER" ] && read -r odir opid < "$ENGINE_OWNER" && ! dockerd_running "$opid"; then
    if [ -d "$odir" ]; then
      log "a kind engine in $odir (dockerd pid $opid) is gone without being brought down; removing what it left"
      ( DEVPKG_HARNESS_DIR=${odir%/kind}; engine_stop ) || log "bringing the dead engine in $odir down failed; see above"
    fi
    rm -f "$ENGINE_OWNER"
  fi
  # An engine that is being brought down removes its chains and docker0 last: give it time.
  while docker_leftovers && [ "$waited" -lt "$limit" ]; do sleep 2; waited=$((waited + 2)); done
  # Chains and links of a dockerd with no state left to read: removed only when no dockerd runs on
  # this machine at all (then nothing owns them).
  if docker_leftovers && ! pgrep -x dockerd >/dev/null 2>&1; then
    docker_leftovers_said >&2
    log "no dockerd runs on this machine: removing dockerd's chains and links left by one that was killed"
    stale_docker_net_remove
  fi
  if docker_leftovers; then
    exec 6>&-
    docker_leftovers_said >&2
    die "dockerd's chains or docker0 are already on this machine but no kind harness engine runs: leftovers of an engine that was not brought down (run test/harness/kind.sh down with its DEVPKG_HARNESS_DIR) or another Docker; stop that first"
  fi
  mkdir -p "$ENGINE_DIR" "$DEVPKG_HARNESS_DIR/logs"
  touch "$DEVPKG_HARNESS_DIR/kind/.devpkg-kind-harness"
  net_snapshot "$ENGINE_DIR/net-before"
  # kind mounts the host's /lib/modules into its nodes; where there is none (this machine's kernel
  # has no modules), docker would create it: create it here instead, and remove it at stop.
  if [ ! -e /lib/modules ]; then mkdir /lib/modules; echo /lib/modules >> "$ENGINE_DIR/created-paths"; fi
  local flags=(); mapfile -t flags < <(engine_flags)
  log "starting dockerd on $ENGINE_SOCK (log $ENGINE_LOG)"
  rm -f "$ENGINE_PID"
  (
    exec setsid dockerd "${flags[@]}"
  ) >>"$ENGINE_LOG" 2>&1 </dev/null 6>&- 7>&- 8>&- 9>&- &
  local launcher=$!
  if ! wait_for 60 "dockerd on $ENGINE_SOCK" docker_up; then
    tail -n 20 "$ENGINE_LOG" >&2 || true
    pid_alive "$launcher" && kill "$launcher" 2>/dev/null
    die "dockerd did not start; see $ENGINE_LOG"
  fi
  local pid; pid=$(engine_pid) || die "dockerd runs but wrote no pid file $ENGINE_PID"
  printf '%s %s\n' "$ENGINE_DIR" "$pid" > "$ENGINE_OWNER"
  exec 6>&-
  # Before anything else runs in it: nothing leaves the machine.
  isolation_rules add || die "could not add the isolation rules"
  isolation_rules check || die "the isolation rules are not in force"
  log "dockerd up (pid $pid); containers cannot reach beyond this machine (DROP to $(uplink) in DOCKER-USER)"
}

# Alive and not a zombie (a killed dockerd whose parent is gone may wait a while to be reaped).
pid_running() { pid_alive "$1" && ! grep -qE '^[0-9]+ \(.*\) Z' "/proc/$1/stat" 2>/dev/null; }
# The owner file's pid is a running dockerd (not a zombie, not a reused pid): the engine lives.
dockerd_running() { pid_running "$1" && [ "$(cat "/proc/$1/comm" 2>/dev/null)" = dockerd ]; }

docker_leftovers() { iptables -S DOCKER-USER >/dev/null 2>&1 || ip link show docker0 >/dev/null 2>&1; }
# Removes every DOCKER* chain and rule, the harness's isolation rules, and docker0, br-<id> and
# veth links: net_restore against a snapshot of today's state with those taken out.
stale_docker_net_remove() {
  local snap f; snap=$(mktemp -d "${TMPDIR:-/tmp}/kind-stale-net.XXXXXX")
  net_snapshot "$snap"
  for f in "$snap"/iptables-* "$snap"/ip6tables-*; do
    grep -vE "DOCKER|$ENGINE_RULE_COMMENT" "$f" > "$f.keep" || true
    mv "$f.keep" "$f"
  done
  grep -vE '^(docker0|br-[0-9a-f]{12}|veth.*)$' "$snap/links" > "$snap/links.keep" || true
  mv "$snap/links.keep" "$snap/links"
  net_restore "$snap"
  rm -rf "$snap"
}
# What docker_leftovers found, and who may own it: the chain, the link, any dockerd or containerd.
docker_leftovers_said() {
  iptables -S DOCKER-USER 2>/dev/null | sed 's/^/[kind] found: iptables /'
  ip -o link show docker0 2>/dev/null | sed 's/^/[kind] found: link /'
  ps -eo pid,ppid,etimes,args 2>/dev/null | awk '$4 ~ /(dockerd|containerd)$/ { print "[kind] found: process " $0 }'
  return 0
}

docker_up() { DOCKER_HOST="unix://$ENGINE_SOCK" /usr/bin/docker version >/dev/null 2>&1; }

# Stop the engine and remove everything it left: containers, networks, the daemon and its
# containerd and shims, mounts, iptables rules and chains, links, the state dir.
engine_stop() {
  engine_paths
  [ -d "$ENGINE_DIR" ] || { log "no kind engine state in $ENGINE_DIR"; return 0; }
  local pid family="" p
  if pid=$(engine_pid); then
    local d=(/usr/bin/docker -H "unix://$ENGINE_SOCK")
    local ids; ids=$("${d[@]}" ps -aq 2>/dev/null || true)
    if [ -n "$ids" ]; then
      log "removing containers: $(echo "$ids" | tr '\n' ' ')"
      # shellcheck disable=SC2086
      "${d[@]}" rm -f -v $ids >/dev/null 2>&1 || log "docker rm failed for some containers"
    fi
    "${d[@]}" network prune -f >/dev/null 2>&1 || log "docker network prune failed"
    family=$(for p in $(descendants "$pid"); do printf '%s %s\n' "$p" "$(cat "/proc/$p/comm" 2>/dev/null)"; done)
    log "stopping dockerd (pid $pid)"
    kill -TERM "$pid" 2>/dev/null || true
    local i; for i in $(seq 1 60); do pid_alive "$pid" || break; sleep 0.5; done
    pid_alive "$pid" && { log "dockerd did not stop on TERM; killing"; kill -KILL "$pid" 2>/dev/null || true; }
  fi
  # Its containerd and any shim (their command lines name the state dir), and whatever else it
  # started that is still there.
  local p left
  # (a descendant counts only while it still has the name it had: its pid may have been reused)
  local c
  left=$(engine_processes "$ENGINE_DIR"
    while read -r p c; do
      if [ -n "$p" ] && [ "$(cat "/proc/$p/comm" 2>/dev/null)" = "$c" ]; then echo "$p"; fi
    done <<< "$family")
  if [ -n "$left" ]; then
    for p in $left; do kill -TERM "$p" 2>/dev/null || true; done
    sleep 2
    for p in $(engine_processes "$ENGINE_DIR"); do kill -KILL "$p" 2>/dev/null || true; done
  fi
  local m
  for m in $(engine_mounts "$ENGINE_DIR"); do
    umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || log "could not unmount $m"
  done
  if [ -d "$ENGINE_DIR/net-before" ]; then
    net_restore "$ENGINE_DIR/net-before"
  else
    log "no network snapshot in $ENGINE_DIR; iptables rules and links are not checked"
  fi
  if [ -f "$ENGINE_DIR/created-paths" ]; then
    local created; while IFS= read -r created; do rmdir "$created" 2>/dev/null || log "could not remove $created"; done < "$ENGINE_DIR/created-paths"
  fi
  if [ -s "$ENGINE_OWNER" ]; then
    local odir; read -r odir _ < "$ENGINE_OWNER" || true
    [ "$odir" = "$ENGINE_DIR" ] && rm -f "$ENGINE_OWNER"
  fi
  [ -z "$(engine_mounts "$ENGINE_DIR")" ] || die "mounts are left under $ENGINE_DIR: $(engine_mounts "$ENGINE_DIR" | tr '\n' ' ')"
  rm -rf "$ENGINE_DIR"
  # Its log too, and the folders it made for it when they are empty now (the control plane's
  # harness may share them).
  rm -f "$ENGINE_LOG"
  rmdir "$DEVPKG_HARNESS_DIR/logs" 2>/dev/null || true
  rmdir "$DEVPKG_HARNESS_DIR" 2>/dev/null || true
}
