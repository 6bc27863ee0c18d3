#!/usr/bin/env python3
"""Print `go mod edit` flags that make a wrapper module build an upstream main module.

Reads `go mod edit -json` output of the upstream go.mod on stdin. Replace directives
that point into the upstream tree (k8s.io/kubernetes: `k8s.io/api => ./staging/src/k8s.io/api`)
cannot work outside that tree, so each becomes a replace to the published version of the
same module: staging modules are published as v0.MINOR.PATCH for Kubernetes v1.MINOR.PATCH.
Replace directives to other modules are copied as they are; `godebug` lines and the `go`
directive are carried over so the build behaves as upstream's own.

usage: go mod edit -json upstream.mod | gen-replaces.py UPSTREAM_VERSION
"""
import json
import re
import sys


def staging_version(upstream_version: str) -> str:
    m = re.fullmatch(r"v1\.(\d+)\.(\d+)(-.*)?", upstream_version)
    if not m:
        sys.exit(f"gen-replaces: cannot derive staging version from {upstream_version}")
    return f"v0.{m.group(1)}.{m.group(2)}{m.group(3) or ''}"


def main() -> None:
    upstream_version = sys.argv[1]
    mod = json.load(sys.stdin)
    flags = []
    if mod.get("Go"):
        flags.append(f"-go={mod['Go']}")
    for g in mod.get("Godebug") or []:
        flags.append(f"-godebug={g['Key']}={g['Value']}")
    for r in mod.get("Replace") or []:
        old, new = r["Old"], r["New"]
        old_s = old["Path"] + (f"@{old['Version']}" if old.get("Version") else "")
        if new["Path"].startswith("./staging/src/"):
            flags.append(f"-replace={old_s}={old['Path']}@{staging_version(upstream_version)}")
        elif new["Path"].startswith(".") or new["Path"].startswith("/"):
            print(f"gen-replaces: dropping local replace {old_s} => {new['Path']}", file=sys.stderr)
        else:
            flags.append(f"-replace={old_s}={new['Path']}@{new['Version']}")
    print("\n".join(flags))


if __name__ == "__main__":
    main()
