import { stringify } from 'yaml';
import { carriedDocs, checkDryRun, clusterNameOf, editedLeaves, explainRenderFailure, listSome, type Doc } from './validate.js';

const ds = (labels: Record<string, string>): Doc => ({ apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: { name: 'antrea-agent', namespace: 'kube-system', labels } });
const sa: Doc = { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'antrea-agent', namespace: 'kube-system' } };
const devPkg: Doc = { apiVersion: 'data.packaging.carvel.dev/v1alpha1', kind: 'Package', metadata: { name: 'antrea.tanzu.vmware.com.1.5.4-dev.1', namespace: 'tkg-system' }, spec: { version: '1.5.4-dev.1' } };

function render(o: { ours?: boolean; cni?: Doc[]; pkg?: Doc; secretType?: string }): string {
  const docs: Doc[] = [{ apiVersion: 'cluster.x-k8s.io/v1beta1', kind: 'Cluster', metadata: { name: 'mgmt' } }];
  if (o.cni) {
    docs.push({ kind: 'ClusterResourceSet', metadata: { name: 'mgmt-cni-antrea', namespace: 'tkg-system' }, spec: { resources: [{ kind: 'Secret', name: 'mgmt-cni-antrea' }] } });
    docs.push({ kind: 'Secret', metadata: { name: 'mgmt-cni-antrea', namespace: 'tkg-system' }, type: 'addons.cluster.x-k8s.io/resource-set', stringData: { value: o.cni.map((d) => stringify(d)).join('---\n') } });
  }
  if (o.ours !== false) {
    docs.push({ kind: 'ClusterResourceSet', metadata: { name: 'mgmt-antrea-dev-package', namespace: 'tkg-system' }, spec: { resources: [{ kind: 'Secret', name: 'mgmt-antrea-dev-package' }] } });
    docs.push({
      kind: 'Secret',
      metadata: { name: 'mgmt-antrea-dev-package', namespace: 'tkg-system' },
      type: o.secretType ?? 'addons.cluster.x-k8s.io/resource-set',
      data: { value: Buffer.from(stringify(o.pkg ?? devPkg)).toString('base64') },
    });
  }
  return docs.map((d) => stringify(d)).join('---\n');
}

const expectBase = { pkgName: 'antrea', devPackageName: 'antrea.tanzu.vmware.com.1.5.4-dev.1', devVersion: '1.5.4-dev.1' };

describe('checkDryRun', () => {
  test('our CRS and Secret with the dev Package, and the edit in the CNI manifests: ok', () => {
    const edited = [sa, ds({ app: 'antrea', edited: 'yes' })];
    const vendored = [sa, ds({ app: 'antrea' })];
    const c = checkDryRun(render({ cni: edited }), { ...expectBase, edited, vendored });
    expect(c.problems).toEqual([]);
    expect(c.ok).toBe(true);
    expect(c.crs).toBe('tkg-system/mgmt-antrea-dev-package');
    expect(c.carried).toEqual(['ServiceAccount/antrea-agent', 'DaemonSet/antrea-agent']);
    expect(c.notes).toEqual(['all 1 edited value(s) are in the rendered manifests']);
  });

  test('the render still uses the vendored manifests: not ok, naming the edit', () => {
    const edited = [sa, ds({ app: 'antrea', edited: 'yes' })];
    const vendored = [sa, ds({ app: 'antrea' })];
    const c = checkDryRun(render({ cni: vendored }), { ...expectBase, edited, vendored });
    expect(c.ok).toBe(false);
    expect(c.problems).toEqual([expect.stringMatching(/do not hold the edit \(DaemonSet\/kube-system\/antrea-agent metadata.labels.edited\)/)]);
  });

  test.each([
    ['no user customisation rendered', { ours: false, cni: [sa] }, /no ClusterResourceSet \*-antrea-dev-package/],
    ['another Package version', { cni: [sa], pkg: { ...devPkg, spec: { version: '1.5.3' } } }, /carries Package antrea.tanzu.vmware.com.1.5.4-dev.1 1.5.3, not/],
    ['a plain Secret', { cni: [sa], secretType: 'Opaque' }, /has type Opaque/],
    ['no CRS carries the config', {}, /no ClusterResourceSet carries the objects of the edited config/],
  ])('%s', (_what, o, problem) => {
    const c = checkDryRun(render(o as Parameters<typeof render>[0]), { ...expectBase, edited: [sa], vendored: [] });
    expect(c.ok).toBe(false);
    expect(c.problems.join('\n')).toMatch(problem);
  });
});

test('no ClusterResourceSet of the addon type at all (vsphere-cpi on docker): phase 1 does not apply, a note', () => {
  const cni = { kind: 'ClusterResourceSet', metadata: { name: 'mgmt-antrea', annotations: { 'tkg.tanzu.vmware.com/addon-type': 'cni/antrea' } }, spec: { resources: [] } };
  const rendered = `${render({})}---\n${stringify(cni)}`;
  const absent = checkDryRun(rendered, { ...expectBase, edited: [sa], vendored: [], addonType: 'cloud-provider/vsphere-cpi' });
  expect(absent.problems).toEqual([]);
  expect(absent.notes).toEqual([expect.stringMatching(/^phase 1 does not apply to this cluster: the render has no ClusterResourceSet of cloud-provider\/vsphere-cpi/)]);
  // The providers' CRS of that type is there but carries nothing of the edited config: a problem.
  const present = checkDryRun(rendered, { ...expectBase, edited: [sa], vendored: [], addonType: 'cni/antrea' });
  expect(present.problems).toEqual([expect.stringMatching(/no ClusterResourceSet carries the objects of the edited config/)]);
});

test('carriedDocs reads stringData and base64 data', () => {
  expect(carriedDocs({ kind: 'Secret', data: { v: Buffer.from('a: 1\n---\nb: 2\n').toString('base64') } })).toEqual([{ a: 1 }, { b: 2 }]);
  expect(carriedDocs({ kind: 'ConfigMap', data: { v: 'c: 3' } })).toEqual([{ c: 3 }]);
});

test('editedLeaves lists changed and added leaves per object', () => {
  const e = editedLeaves([ds({ a: '1' })], [ds({ a: '2', b: '3' }), sa]);
  expect([...e.keys()]).toEqual(['DaemonSet/kube-system/antrea-agent', 'ServiceAccount/kube-system/antrea-agent']);
  expect([...e.get('DaemonSet/kube-system/antrea-agent')!.keys()]).toEqual(['metadata.labels.a', 'metadata.labels.b']);
});

test('clusterNameOf', () => {
  expect(clusterNameOf('CLUSTER_NAME: mgmt\nCNI: antrea\n')).toBe('mgmt');
  expect(clusterNameOf('CNI: antrea\n')).toBeUndefined();
});

describe('explainRenderFailure', () => {
  const lib = { library: 'addons/packages/antrea/1.5.3/bundle/config', libFile: 'ytt/vendir/cni/cni.lib.yaml' };
  test.each([
    [
      "ytt: Error: - library.eval: Evaluating library 'addons/packages/antrea/1.5.3/bundle/config': Overlaying data values (in following order: additional data values): ... Expected number of matched nodes to be 1, but was 0",
      /fails inside the library devpkg replaced \(addons\/packages\/antrea\/1.5.3\/bundle\/config, loaded by ytt\/vendir\/cni\/cni.lib.yaml\): the providers evaluate \/r\/config with their own data values .* does not declare all of them/,
    ],
    ["ytt: Error: - library.eval: Evaluating library 'addons/packages/antrea/1.5.3/bundle/config': Overlaying (in following order: a.yaml)", /does not evaluate there/],
    ["ytt: Error: - library.eval: Evaluating library 'addons/packages/calico/3.22.1/bundle/config': x", undefined],
    ['ytt: Error: struct has no .kubeadmConfigSpec field', undefined],
  ])('%#', (message, want) => {
    const got = explainRenderFailure(message, lib, '/r/config');
    if (want) expect(got).toMatch(want);
    else expect(got).toBeUndefined();
  });
  test('no library replaced: nothing to explain', () => expect(explainRenderFailure("Evaluating library 'x'", undefined, '/r')).toBeUndefined());
});

test.each([
  [[], ''],
  [['a', 'b'], 'a, b'],
  [['a', 'b', 'c', 'd'], 'a, b, c and 1 more'],
])('listSome(%j)', (items, want) => expect(listSome(items, 3)).toBe(want));
