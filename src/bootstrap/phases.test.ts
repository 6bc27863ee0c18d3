import type { KObject } from '../verify/evaluate.js';
import { emptySnapshot, evaluatePhases, type Snapshot } from './phases.js';

const expectP = { pkgName: 'antrea', devPackageName: 'antrea.tanzu.vmware.com.1.5.4-dev.1', refName: 'antrea.tanzu.vmware.com' };
const cond = (type: string, status = 'True') => ({ conditions: [{ type, status }] });
const obj = (name: string, extra: Partial<KObject> = {}): KObject => ({ metadata: { name, generation: 1 }, ...extra }) as KObject;

function full(): Snapshot {
  const s = emptySnapshot();
  s.crs.set('mgmt-antrea-dev-package', obj('mgmt-antrea-dev-package', { status: cond('ResourcesApplied') }));
  s.packages.set(expectP.devPackageName, obj(expectP.devPackageName));
  s.packageInstalls.set('antrea', obj('antrea', { spec: { packageRef: { refName: 'antrea.tanzu.vmware.com' } }, status: { observedGeneration: 1, version: '1.5.4-dev.1', ...cond('ReconcileSucceeded') } }));
  s.deployments.set('tkr-controller-manager', obj('tkr-controller-manager', { status: cond('Available') }));
  s.configMaps.set('bom-v1', obj('bom-v1', { metadata: { name: 'bom-v1', labels: { tanzuKubernetesRelease: 'v1' } } }));
  s.tkrs.set('v1', obj('v1'));
  return s;
}

describe('evaluatePhases', () => {
  test('everything in place: all three phases done', () => {
    const e = evaluatePhases(full(), expectP);
    expect([e[1].done, e[2].done, e[3].done]).toEqual([true, true, true]);
    expect(e.packageInstall?.metadata?.name).toBe('antrea');
  });

  test("the addons manager's PackageInstall (by name) counts even when its refName is the BOM's, not ours", () => {
    const s = full();
    s.packageInstalls.get('antrea')!.spec!.packageRef.refName = 'antrea.community.tanzu.vmware.com';
    const e = evaluatePhases(s, expectP);
    expect(e[2].done).toBe(true);
    expect(e[2].seen).toMatch(/PackageInstall antrea \(antrea.community.tanzu.vmware.com\)/);
  });

  test.each<[string, (s: Snapshot) => void, 1 | 2 | 3, RegExp]>([
    ['CRS not applied yet', (s) => s.crs.set('mgmt-antrea-dev-package', obj('mgmt-antrea-dev-package', { status: cond('ResourcesApplied', 'False') })), 1, /ResourcesApplied=True/],
    ['no dev Package', (s) => s.packages.clear(), 1, /Package antrea.tanzu.vmware.com.1.5.4-dev.1/],
    [
      'only a PackageInstall of another name and refName',
      (s) => {
        const p = s.packageInstalls.get('antrea')!;
        s.packageInstalls.clear();
        s.packageInstalls.set('other', { ...p, metadata: { ...p.metadata, name: 'other' }, spec: { packageRef: { refName: 'antrea.community.tanzu.vmware.com' } } });
      },
      2,
      /PackageInstall antrea or a PackageInstall of antrea.tanzu.vmware.com/,
    ],
    ['PackageInstall not observed yet', (s) => (s.packageInstalls.get('antrea')!.metadata!.generation = 2), 2, /reconciled/],
    ['tkr-controller-manager not available', (s) => s.deployments.clear(), 3, /tkr-controller-manager/],
    ['BOM without TKR', (s) => s.tkrs.clear(), 3, /a BOM ConfigMap/],
    ['tanzu-core still reconciling', (s) => s.repositories.set('tanzu-core', obj('tanzu-core', { status: { observedGeneration: 1, ...cond('Reconciling') } })), 3, /tanzu-core/],
  ])('%s', (_what, change, phase, missing) => {
    const s = full();
    change(s);
    const e = evaluatePhases(s, expectP);
    expect(e[phase].done).toBe(false);
    expect(e[phase].missing.join('; ')).toMatch(missing);
  });

  test('TKG 1.x: a TKR read as v1alpha1 (the only version its TKR CRD serves) counts', () => {
    const s = full();
    const tkr = s.tkrs.get('v1')!;
    s.tkrs.clear();
    s.tkrsV1alpha1.set('v1', tkr);
    expect(evaluatePhases(s, expectP)[3]).toMatchObject({ done: true, missing: [] });
    s.tkrsV1alpha1.clear();
    expect(evaluatePhases(s, expectP)[3].done).toBe(false);
  });

  test('TKG 2.x: tkr-source-controller-manager counts; a named TKR needs its own BOM', () => {
    const s = full();
    s.deployments.clear();
    s.deployments.set('tkr-source-controller-manager', obj('tkr-source-controller-manager', { status: cond('Available') }));
    expect(evaluatePhases(s, expectP)[3].done).toBe(true);
    expect(evaluatePhases(s, { ...expectP, tkrName: 'v2' })[3].missing).toEqual(['a BOM ConfigMap in tkr-system labelled tanzuKubernetesRelease=v2', 'TanzuKubernetesRelease v2']);
  });
});

describe("phase 1 applied by Cluster API's ClusterResourceSet controller (its ClusterResourceSetBinding)", () => {
  const binding = (crsName: string, applied = true): KObject =>
    ({
      metadata: { name: 'mgmt', ownerReferences: [{ kind: 'Cluster', name: 'mgmt' }] },
      spec: { bindings: [{ clusterResourceSetName: crsName, resources: [{ kind: 'Secret', name: crsName, applied, lastAppliedTime: '2026-12-02T21:00:00Z' }] }] },
    }) as KObject;

  test('a binding that names the dev ClusterResourceSet: who applied it, to which Cluster, when', () => {
    const s = full();
    s.crsBindings.set('mgmt', binding('mgmt-antrea-dev-package'));
    const e = evaluatePhases(s, expectP);
    expect(e.appliedBy).toBe('ClusterResourceSetBinding mgmt (Cluster mgmt): Secret mgmt-antrea-dev-package applied at 2026-12-02T21:00:00Z');
    expect(e[1].done).toBe(true);
  });

  test('a resource the controller could not apply is said so', () => {
    const s = full();
    s.crsBindings.set('mgmt', binding('mgmt-antrea-dev-package', false));
    expect(evaluatePhases(s, expectP).appliedBy).toMatch(/Secret mgmt-antrea-dev-package not applied$/);
  });

  test('no binding, or one for other ClusterResourceSets only: nothing is claimed (the phase still counts on the CRS and the Package)', () => {
    const s = full();
    expect(evaluatePhases(s, expectP).appliedBy).toBeUndefined();
    s.crsBindings.set('mgmt', binding('mgmt-antrea'));
    const e = evaluatePhases(s, expectP);
    expect(e.appliedBy).toBeUndefined();
    expect(e[1].done).toBe(true);
  });
});
