#!/usr/bin/env bash
# The kind mode's steps done by hand with the same tools, for bench/kind.bench.mjs to time
# against `devpkg kind`: kind create, the registry container with kind's local-registry setup,
# kubectl apply of kapp-controller, the released bundle pushed and installed as the addons
# manager would (Package + PackageInstall), the dev bundle pushed, its Package applied, and
# kubectl wait until the PackageInstall runs it. Then everything is deleted.
# Env: NAME, WORK, PORT, KIND_CONFIG, MANIFEST, REPO, BASE, VERSION_DIR, REF, DEV_VERSION,
#      NODE_IMAGE and REGISTRY_IMAGE (optional), PUSH (the repository's push command).
set -euo pipefail
t0=$(date +%s.%N)
stamp() { awk -v a="$t0" -v b="$(date +%s.%N)" -v w="$1" 'BEGIN { printf "bare: %.1f s %s\n", b - a, w }' >&2; }
kc="$WORK/kubeconfig"
reg="$NAME-registry"
k() { kubectl --kubeconfig "$kc" "$@"; }
cleanup() {
  kind delete cluster --name "$NAME" --kubeconfig "$kc" >/dev/null 2>&1 || true
  docker rm -f "$reg" >/dev/null 2>&1 || true
}
trap cleanup EXIT

kind create cluster --name "$NAME" ${NODE_IMAGE:+--image "$NODE_IMAGE"} --config "$KIND_CONFIG" --kubeconfig "$kc" --wait 180s 2>/dev/null
stamp 'kind cluster'

docker run -d --restart=always --name "$reg" -p "127.0.0.1:$PORT:5000" --network kind "${REGISTRY_IMAGE:-registry:3}" >/dev/null
ip=$(docker inspect -f '{{(index .NetworkSettings.Networks "kind").IPAddress}}' "$reg")
printf '[host."http://%s:5000"]\n' "$reg" > "$WORK/hosts.toml"
for node in $(kind get nodes --name "$NAME"); do
  docker exec "$node" mkdir -p "/etc/containerd/certs.d/localhost:$PORT"
  docker cp "$WORK/hosts.toml" "$node:/etc/containerd/certs.d/localhost:$PORT/hosts.toml"
done
k apply -f - >/dev/null <<YAML
apiVersion: v1
kind: ConfigMap
metadata: {name: local-registry-hosting, namespace: kube-public}
data:
  localRegistryHosting.v1: |
    host: "localhost:$PORT"
YAML
until curl -fsS -o /dev/null "http://127.0.0.1:$PORT/v2/"; do sleep 0.1; done
stamp registry

k apply -f "$MANIFEST" >/dev/null
k rollout status -n kapp-controller deployment/kapp-controller --timeout=300s >/dev/null
k wait apiservice/v1alpha1.data.packaging.carvel.dev --for=condition=Available --timeout=180s >/dev/null
stamp kapp-controller

# push BUNDLE_DIR TAG -> prints the bundle's digest
push() {
  DEVPKG_REGISTRY="localhost:$PORT/devpkg/web-bundle" DEVPKG_TAG="$2" DEVPKG_IMAGE="localhost:$PORT/devpkg/web-bundle:$2" \
    DEVPKG_BUNDLE_DIR="$1" DEVPKG_PACKAGE=web DEVPKG_VERSION="$2" bash -c "cd '$REPO' && $PUSH"
  curl -fsSI -H 'Accept: application/vnd.oci.image.manifest.v1+json, application/vnd.docker.distribution.manifest.v2+json' \
    "http://127.0.0.1:$PORT/v2/devpkg/web-bundle/manifests/$2" | tr -d '\r' | sed -n 's/^[Dd]ocker-[Cc]ontent-[Dd]igest: //p'
}
package() { # VERSION DIGEST
  cat <<YAML
apiVersion: data.packaging.carvel.dev/v1alpha1
kind: Package
metadata: {name: $REF.$1, namespace: tkg-system}
spec:
  refName: $REF
  version: $1
  template:
    spec:
      fetch: [{imgpkgBundle: {image: "$ip:5000/devpkg/web-bundle@$2"}}]
      template: [{ytt: {paths: [config/]}}, {kbld: {paths: ["-", .imgpkg/images.yml]}}]
      deploy: [{kapp: {}}]
YAML
}

# The released version from the base ref, installed the way the addons manager would.
git -C "$REPO" archive --format=tar -o "$WORK/base.tar" "$BASE" -- "$VERSION_DIR"
mkdir -p "$WORK/base" && tar -xf "$WORK/base.tar" -C "$WORK/base"
released=$(push "$WORK/base/$VERSION_DIR/bundle" 1.0.0)
k apply -f - >/dev/null <<YAML
apiVersion: v1
kind: Namespace
metadata: {name: tkg-system}
---
apiVersion: v1
kind: ServiceAccount
metadata: {name: web-sa, namespace: tkg-system}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: web-sa-tkg-system-cluster-admin}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: cluster-admin}
subjects: [{kind: ServiceAccount, name: web-sa, namespace: tkg-system}]
YAML
package 1.0.0 "$released" | k apply -f - >/dev/null
k apply -f - >/dev/null <<YAML
apiVersion: packaging.carvel.dev/v1alpha1
kind: PackageInstall
metadata: {name: web, namespace: tkg-system}
spec:
  serviceAccountName: web-sa
  packageRef: {refName: $REF, versionSelection: {prereleases: {}}}
  syncPeriod: 30s
YAML
k wait -n tkg-system packageinstall/web --for=condition=ReconcileSucceeded --timeout=300s >/dev/null
stamp 'baseline installed'

# The dev version from the working tree.
dev=$(push "$REPO/$VERSION_DIR/bundle" "$DEV_VERSION")
package "$DEV_VERSION" "$dev" | k apply -f - >/dev/null
stamp 'dev Package applied'
k wait -n tkg-system packageinstall/web --for=jsonpath='{.status.version}'="$DEV_VERSION" --timeout=300s >/dev/null
k wait -n tkg-system packageinstall/web --for=condition=ReconcileSucceeded --timeout=300s >/dev/null
stamp 'dev version installed'
echo "bare: $DEV_VERSION installed ($dev)"
