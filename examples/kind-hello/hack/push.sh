#!/usr/bin/env bash
# The example's own push target, run by devpkg as its push-command (DEVPKG_* in the environment):
# builds the workload image, pushes it to the registry devpkg names, and pushes the bundle with
# that image locked by digest in .imgpkg/images.yml, the way a package repository's
# `make push-package` does. Needs Docker, and Go (or network access for `docker build`).
set -euo pipefail
: "${DEVPKG_REGISTRY:?run by devpkg as --push-command}" "${DEVPKG_IMAGE:?}" "${DEVPKG_TAG:?}" "${DEVPKG_BUNDLE_DIR:?}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
host="${DEVPKG_REGISTRY%%/*}"
app="$host/hello-app:$DEVPKG_TAG"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# 1. The workload: a static binary as the image's only file (built here when Go is installed,
#    which needs no network; else in a golang container).
if command -v go >/dev/null 2>&1; then
  mkdir "$tmp/app"
  (cd "$here/app" && CGO_ENABLED=0 go build -trimpath -o "$tmp/app/hello" .)
  tar -C "$tmp/app" -cf - hello | docker import --change 'ENTRYPOINT ["/hello"]' - "$app" >/dev/null
else
  docker build -q -t "$app" "$here/app" >/dev/null
fi
docker push "$app" >/dev/null
ref="$(docker image inspect --format '{{range .RepoDigests}}{{println .}}{{end}}' "$app" | grep -m1 "^$host/hello-app@sha256:")"

# 2. The bundle, with that image locked by digest (kbld resolves `image: hello-app` through it).
cp -R "$DEVPKG_BUNDLE_DIR" "$tmp/bundle"
cat > "$tmp/bundle/.imgpkg/images.yml" <<LOCK
apiVersion: imgpkg.carvel.dev/v1alpha1
kind: ImagesLock
images:
- image: $ref
  annotations:
    kbld.carvel.dev/id: hello-app
LOCK
if command -v imgpkg >/dev/null 2>&1; then
  imgpkg push -b "$DEVPKG_IMAGE" -f "$tmp/bundle" >/dev/null
else
  # What imgpkg pushes, made with Docker alone: one layer holding the bundle folder, labelled a bundle.
  tar -C "$tmp/bundle" -cf - . | docker import --change 'LABEL dev.carvel.imgpkg.bundle=true' - "$DEVPKG_IMAGE" >/dev/null
  docker push "$DEVPKG_IMAGE" >/dev/null
fi
echo "pushed $ref and $DEVPKG_IMAGE"
