import type { Package } from './model.js';
import { devPackageToYaml } from './derive.js';
import { defaultAddonType, overlayFileName, renderOverlay } from './overlay.js';

const IMAGE = `10.89.0.2:5000/devpkg/antrea@sha256:${'c'.repeat(64)}`;

function devPackage(): Package {
  return {
    apiVersion: 'data.packaging.carvel.dev/v1alpha1',
    kind: 'Package',
    metadata: {
      name: 'antrea.tanzu.vmware.com.1.5.3+vmware.1-tkg.1-dev.7.1',
      annotations: { 'devpkg.dev/derived-from': 'antrea.tanzu.vmware.com.1.5.3+vmware.1-tkg.1' },
    },
    spec: {
      refName: 'antrea.tanzu.vmware.com',
      version: '1.5.3+vmware.1-tkg.1-dev.7.1',
      releaseNotes: '#@ not a ytt annotation',
      template: {
        spec: {
          fetch: [{ imgpkgBundle: { image: IMAGE } }],
          template: [
            { ytt: { paths: ['config/'], inline: { paths: { 'overlay.yaml': '#@ load("@ytt:overlay", "overlay")\n#@overlay/match by=overlay.all\n---\nmetadata:\n  #@overlay/match missing_ok=True\n  labels: {x: y}\n' } } } },
            { kbld: { paths: ['-', '.imgpkg/images.yml'] } },
          ],
          deploy: [{ kapp: {} }],
        },
      },
    },
  };
}

// Read line by line: the Package sits in a def as plain data (strings starting with `#` quoted,
// embedded ytt text in a block scalar), the CRS and Secret carry the addon-type annotation and
// the cluster's namespace, and the whole thing is guarded to management clusters.
const EXPECTED = `#! devpkg: dev Package antrea.tanzu.vmware.com.1.5.3+vmware.1-tkg.1-dev.7.1 (antrea.tanzu.vmware.com 1.5.3+vmware.1-tkg.1-dev.7.1).
#! ClusterResourceSet + Secret: the new cluster gets the Package once (ApplyOnce), so the addons
#! manager finds a version above the released one. Remove this file to go back to the release.
#@ load("@ytt:data", "data")
#@ load("@ytt:yaml", "yaml")

#@ def dev_package():
apiVersion: data.packaging.carvel.dev/v1alpha1
kind: Package
metadata:
  name: antrea.tanzu.vmware.com.1.5.3+vmware.1-tkg.1-dev.7.1
  namespace: tkg-system
  annotations:
    devpkg.dev/derived-from: antrea.tanzu.vmware.com.1.5.3+vmware.1-tkg.1
spec:
  refName: antrea.tanzu.vmware.com
  version: 1.5.3+vmware.1-tkg.1-dev.7.1
  releaseNotes: "#@ not a ytt annotation"
  template:
    spec:
      fetch:
      - imgpkgBundle:
          image: ${IMAGE}
      template:
      - ytt:
          paths:
          - config/
          inline:
            paths:
              overlay.yaml: |
                #@ load("@ytt:overlay", "overlay")
                #@overlay/match by=overlay.all
                ---
                metadata:
                  #@overlay/match missing_ok=True
                  labels: {x: y}
      - kbld:
          paths:
          - "-"
          - .imgpkg/images.yml
      deploy:
      - kapp: {}
#@ end

#! Management clusters only: workload clusters made later from these providers keep the release.
#@ if data.values.TKG_CLUSTER_ROLE != "workload":
---
apiVersion: addons.cluster.x-k8s.io/v1beta1
kind: ClusterResourceSet
metadata:
  name: #@ "{}-antrea-dev-package".format(data.values.CLUSTER_NAME)
  namespace: #@ data.values.NAMESPACE
  labels:
    cluster.x-k8s.io/cluster-name: #@ data.values.CLUSTER_NAME
  annotations:
    tkg.tanzu.vmware.com/addon-type: cni/antrea
spec:
  strategy: ApplyOnce
  clusterSelector:
    matchLabels:
      tkg.tanzu.vmware.com/cluster-name: #@ data.values.CLUSTER_NAME
  resources:
  - name: #@ "{}-antrea-dev-package".format(data.values.CLUSTER_NAME)
    kind: Secret
---
apiVersion: v1
kind: Secret
metadata:
  name: #@ "{}-antrea-dev-package".format(data.values.CLUSTER_NAME)
  namespace: #@ data.values.NAMESPACE
  labels:
    cluster.x-k8s.io/cluster-name: #@ data.values.CLUSTER_NAME
  annotations:
    tkg.tanzu.vmware.com/addon-type: cni/antrea
type: addons.cluster.x-k8s.io/resource-set
stringData:
  value: #@ yaml.encode(dev_package())
#@ end
`;

describe('renderOverlay', () => {
  test('the 04_user_customizations file, exactly', () => {
    expect(renderOverlay(devPackage())).toBe(EXPECTED);
  });

  test.each([
    ['its own namespace', (p: Package) => ({ ...p, metadata: { ...p.metadata, namespace: 'packages' } })],
    ['no namespace', (p: Package) => p],
    ['metadata after spec', ({ metadata, ...rest }: Package) => ({ ...rest, metadata }) as Package],
  ])('given the dev Package already rendered, the same file (%s)', (_name, make) => {
    const pkg = make(devPackage());
    expect(renderOverlay(pkg, {}, devPackageToYaml(pkg))).toBe(renderOverlay(pkg));
  });

  test('all clusters: no TKG_CLUSTER_ROLE guard', () => {
    const text = renderOverlay(devPackage(), { managementOnly: false });
    expect(text).not.toContain('TKG_CLUSTER_ROLE');
    expect(text).not.toContain('#@ if');
    expect(text.split('#@ end').length).toBe(2); // only the def's end
    expect(text).toContain('\n---\napiVersion: addons.cluster.x-k8s.io/v1beta1\nkind: ClusterResourceSet\n');
  });

  test('options: namespace of the Package, addon type, name and CRS apiVersion', () => {
    const pkg = devPackage();
    pkg.metadata.namespace = 'default';
    const text = renderOverlay(pkg, { namespace: 'tanzu-package-repo-global', addonType: 'cni/antrea-dev', name: 'antrea-x', crsApiVersion: 'addons.cluster.x-k8s.io/v1alpha3' });
    expect(text).toContain('metadata:\n  name: antrea.tanzu.vmware.com.1.5.3+vmware.1-tkg.1-dev.7.1\n  namespace: tanzu-package-repo-global\n  annotations:');
    expect(text).not.toContain('namespace: default');
    expect(text).toContain('    tkg.tanzu.vmware.com/addon-type: cni/antrea-dev\n');
    expect(text).toContain('"{}-antrea-x-dev-package".format(data.values.CLUSTER_NAME)');
    expect(text).toContain('apiVersion: addons.cluster.x-k8s.io/v1alpha3\nkind: ClusterResourceSet');
  });

  test("the Package's own namespace is the default", () => {
    const pkg = devPackage();
    pkg.metadata.namespace = 'packages';
    expect(renderOverlay(pkg)).toContain('  namespace: packages\n');
  });

  test.each([
    [{ addonType: 'antrea' }, /addon type "antrea" must be CATEGORY\/NAME, e.g. cni\/antrea/],
    [{ name: 'Antrea' }, /package name "Antrea" cannot be used in object names/],
    [{ namespace: 'Tkg_System' }, /namespace "Tkg_System" is not a valid namespace name/],
  ])('rejects %j', (opts, message) => {
    expect(() => renderOverlay(devPackage(), opts)).toThrow(message);
  });
});

describe('names', () => {
  test.each([
    ['antrea', 'cni/antrea'],
    ['calico', 'cni/calico'],
    ['kapp-controller', 'addons-management/kapp-controller'],
    ['pinniped', 'authentication/pinniped'],
    ['my-operator', 'devpkg/my-operator'],
  ])('defaultAddonType(%s) = %s', (name, type) => {
    expect(defaultAddonType(name)).toBe(type);
  });

  test('overlayFileName', () => {
    expect(overlayFileName('antrea')).toBe('antrea_dev_package.yaml');
    expect(() => overlayFileName('../x')).toThrow(/cannot be used/);
  });
});
