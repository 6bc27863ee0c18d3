// The package the bootstrap tests on a real management cluster use (bootstrap-kind.test.ts in
// process, test/workflows/bootstrap.test.ts through the devpkg-bootstrap.yml example): `web`, a
// TCE-layout package whose Deployment runs an image built on this machine, and the stand-in tanzu
// CLI's providers tree for it (an addon `web` instead of the CNI).
import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import path, { join } from 'node:path';
import { webDeployment } from './workload.js';
import { repoRoot } from './run.js';

export const WEB_REF = 'web.devpkg.test';

/**
 * The package's manifests. Phase 1 creates them as written, before kapp-controller deploys the
 * package and adopts them: kapp's default label scoping rules would add its app label to the
 * Deployment's selector, which is immutable ("field is immutable", seen here), so the Deployment
 * opts out of them, as a package whose objects a ClusterResourceSet creates first must.
 */
export const webBootstrapDeployment = (flavour: string): string => webDeployment(flavour, { unscopedLabels: true });

export function put(file: string, text: string): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
}

/**
 * The providers tree the stand-in populates from (DEVPKG_STANDIN_PROVIDERS): the test fixture's
 * Cluster, config and filters, and instead of the CNI an addon `web` whose ClusterResourceSet
 * carries its vendored manifests and its addon Secret (what the addons manager installs from).
 */
export function writeWebProviders(dir: string): void {
  const fixture = join(repoRoot, 'test', 'fixtures', 'providers');
  cpSync(join(fixture, 'config_default.yaml'), join(dir, 'config_default.yaml'));
  cpSync(join(fixture, 'ytt', '01_base'), join(dir, 'ytt', '01_base'), { recursive: true });
  cpSync(join(fixture, 'ytt', '05_filters'), join(dir, 'ytt', '05_filters'), { recursive: true });
  mkdirSync(join(dir, 'ytt', '04_user_customizations'), { recursive: true });
  put(join(dir, 'ytt', 'vendir', 'devpkg', 'devpkg.lib.yaml'), '#@ load("@ytt:library", "library")\n\n#@ web_lib = library.get("addons/packages/web/1.0.0/bundle/config")\n');
  put(join(dir, 'ytt', 'vendir', 'devpkg', '_ytt_lib', 'addons', 'packages', 'web', '1.0.0', 'bundle', 'config', 'web.yaml'), webBootstrapDeployment('released'));
  put(
    join(dir, 'ytt', '02_addons', 'web', 'add_web.yaml'),
    `#@ load("@ytt:data", "data")
#@ load("@ytt:yaml", "yaml")
#@ load("/vendir/devpkg/devpkg.lib.yaml", "web_lib")

#@ def addon_secret():
apiVersion: v1
kind: Secret
type: tkg.tanzu.vmware.com/addon
metadata:
  name: #@ "{}-web-addon".format(data.values.CLUSTER_NAME)
  namespace: tkg-system
  labels:
    tkg.tanzu.vmware.com/addon-name: web
    tkg.tanzu.vmware.com/cluster-name: #@ data.values.CLUSTER_NAME
    clusterctl.cluster.x-k8s.io/move: ""
  annotations:
    tkg.tanzu.vmware.com/addon-type: devpkg/web
stringData:
  values.yaml: "#@data/values\\n---\\n{}\\n"
#@ end

#@ name = "{}-web".format(data.values.CLUSTER_NAME)
---
apiVersion: addons.cluster.x-k8s.io/v1beta1
kind: ClusterResourceSet
metadata:
  name: #@ name
  namespace: #@ data.values.NAMESPACE
  labels:
    cluster.x-k8s.io/cluster-name: #@ data.values.CLUSTER_NAME
  annotations:
    tkg.tanzu.vmware.com/addon-type: devpkg/web
spec:
  strategy: ApplyOnce
  clusterSelector:
    matchLabels:
      tkg.tanzu.vmware.com/cluster-name: #@ data.values.CLUSTER_NAME
  resources:
  - name: #@ name
    kind: Secret
---
apiVersion: v1
kind: Secret
metadata:
  name: #@ name
  namespace: #@ data.values.NAMESPACE
  labels:
    cluster.x-k8s.io/cluster-name: #@ data.values.CLUSTER_NAME
  annotations:
    tkg.tanzu.vmware.com/addon-type: devpkg/web
type: addons.cluster.x-k8s.io/resource-set
stringData:
  value: #@ yaml.encode(web_lib.eval()) + "---\\n" + yaml.encode(addon_secret())
`,
  );
}

/**
 * The package's files in a TCE layout under `packagesDir` (addons/packages): metadata.yaml and
 * 1.0.0/ (package.yaml, bundle/config/web.yaml of `flavour`, the bundle's images lock naming
 * `workloadImage`, a digest reference). Returns the version folder.
 */
export function writeWebPackage(packagesDir: string, flavour: string, workloadImage: string): string {
  const folder = join(packagesDir, 'web', '1.0.0');
  put(
    join(folder, 'package.yaml'),
    `apiVersion: data.packaging.carvel.dev/v1alpha1\nkind: Package\nmetadata:\n  name: ${WEB_REF}.1.0.0\nspec:\n  refName: ${WEB_REF}\n  version: 1.0.0\n  template:\n    spec:\n      fetch:\n      - imgpkgBundle:\n          image: localhost:5001/devpkg/web-bundle:1.0.0\n      template:\n      - ytt:\n          paths: [config/]\n      - kbld:\n          paths: ["-", .imgpkg/images.yml]\n      deploy:\n      - kapp: {}\n`,
  );
  put(join(packagesDir, 'web', 'metadata.yaml'), `apiVersion: data.packaging.carvel.dev/v1alpha1\nkind: PackageMetadata\nmetadata:\n  name: ${WEB_REF}\nspec:\n  displayName: web\n`);
  put(join(folder, 'bundle', 'config', 'web.yaml'), webBootstrapDeployment(flavour));
  put(
    join(folder, 'bundle', '.imgpkg', 'images.yml'),
    `apiVersion: imgpkg.carvel.dev/v1alpha1\nkind: ImagesLock\nimages:\n- image: ${workloadImage}\n  annotations:\n    kbld.carvel.dev/id: web-app\n`,
  );
  return folder;
}

/**
 * What the stand-in puts in management cluster `cluster` as the real CLI leaves it
 * (DEVPKG_STANDIN_MGMT_OBJECTS): the web addon Secret, tkr-controller-config and the
 * tkr-controller-manager Deployment TKG's tkr ClusterResourceSet carries.
 */
export function webMgmtObjects(cluster: string): string {
  return (
    `apiVersion: v1\nkind: Secret\ntype: tkg.tanzu.vmware.com/addon\nmetadata:\n  name: ${cluster}-web-addon\n  labels:\n    tkg.tanzu.vmware.com/addon-name: web\n    tkg.tanzu.vmware.com/cluster-name: ${cluster}\n---\n` +
    'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: tkr-controller-config\n  namespace: tkr-system\ndata: {}\n---\n' +
    'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: tkr-controller-manager\n  namespace: tkr-system\nspec:\n  selector:\n    matchLabels: {app: tkr-controller-manager}\n  template:\n    metadata:\n      labels: {app: tkr-controller-manager}\n    spec:\n      containers:\n      - name: manager\n        image: stand-in.invalid/tkr-controller-manager:none\n'
  );
}
