import { jest } from '@jest/globals';
import { DERIVED_FROM_ANNOTATION } from '../packages/derive.js';
import { parseRefNameMap } from '../packages/refname.js';
import type { KObject } from '../verify/kobject.js';
import type { PackageInstallInfo } from './dev.js';
import { clusterReleasedLookup, readClusterReleased, releasedInCluster } from './released.js';

const REF = 'app.devpkg.test';
const pkg = (version: string, ns = 'apps', dev = false): KObject => ({
  apiVersion: 'data.packaging.carvel.dev/v1alpha1',
  kind: 'Package',
  metadata: { name: `${REF}.${version}`, namespace: ns, ...(dev ? { annotations: { [DERIVED_FROM_ANNOTATION]: `${REF}.1.0.0` } } : {}) },
  spec: { refName: REF, version },
});
const pkgi = (namespace: string, selection?: PackageInstallInfo['selection'], name = 'app'): PackageInstallInfo => ({ namespace, name, refName: REF, selection, status: {} });
const pkgiObject = (namespace: string, name: string, o: { refName?: string; deleting?: boolean } = {}): KObject => ({
  apiVersion: 'packaging.carvel.dev/v1alpha1',
  kind: 'PackageInstall',
  metadata: { namespace, name, ...(o.deleting ? { deletionTimestamp: '2026-12-03T00:00:00Z' } : {}) },
  spec: { packageRef: { refName: o.refName ?? REF, versionSelection: { prereleases: {} } } },
});

describe('releasedInCluster (pure)', () => {
  test('the version kapp-controller selects under the PackageInstall\'s versionSelection; devpkg\'s own dev Packages left out', () => {
    const byNs = new Map([['apps', [pkg('1.0.0'), pkg('1.2.0'), pkg('1.1.0'), pkg('1.2.1-dev.1', 'apps', true)]]]);
    expect(releasedInCluster(REF, byNs, [pkgi('apps', { prereleases: {} })])).toEqual({
      version: '1.2.0',
      why: `kapp-controller selects 1.2.0 for PackageInstall apps/app among the Packages of ${REF} (1.0.0, 1.2.0, 1.1.0; 1 devpkg dev Package(s) left out)`,
    });
  });

  test('constraints and the prereleases filter are kapp-controller\'s (selectVersion), not simply the highest', () => {
    const byNs = new Map([['apps', [pkg('1.0.0'), pkg('1.1.0'), pkg('2.0.0-rc.1')]]]);
    expect(releasedInCluster(REF, byNs, [pkgi('apps', { constraints: '<1.1.0' })]).version).toBe('1.0.0');
    expect(releasedInCluster(REF, byNs, [pkgi('apps', {})]).version).toBe('1.1.0');
    expect(releasedInCluster(REF, byNs, [pkgi('apps', { prereleases: {} })]).version).toBe('2.0.0-rc.1');
  });

  test('several PackageInstalls: the highest of what each selects, naming which', () => {
    const byNs = new Map([
      ['a', [pkg('1.0.0', 'a')]],
      ['b', [pkg('1.3.0', 'b')]],
    ]);
    const r = releasedInCluster(REF, byNs, [pkgi('a', {}), pkgi('b', {})]);
    expect(r.version).toBe('1.3.0');
    expect(r.why).toContain('PackageInstall b/app');
  });

  test('none: no PackageInstall, no Package, or none selected, each said', () => {
    expect(releasedInCluster(REF, new Map(), [])).toEqual({ why: `no PackageInstall of ${REF} in the cluster` });
    expect(releasedInCluster(REF, new Map([['apps', [pkg('1.0.1-dev.1', 'apps', true)]]]), [pkgi('apps', {})])).toEqual({
      why: `no Package of ${REF} in apps for PackageInstall apps/app; 1 devpkg dev Package(s) left out`,
    });
    const r = releasedInCluster(REF, new Map([['apps', [pkg('1.0.0')]]]), [pkgi('apps', { constraints: '>=2.0.0' })]);
    expect(r.version).toBeUndefined();
    expect(r.why).toMatch(/^kapp-controller selects none of app\.devpkg\.test's Packages 1\.0\.0 for PackageInstall apps\/app \(Expected to find at least one version/);
  });
});

function fakeClient(pkgis: KObject[], packages: KObject[]) {
  return {
    listPackageInstalls: jest.fn(async () => pkgis),
    readPackageInstall: jest.fn(async (ns: string, name: string) => pkgis.find((p) => p.metadata?.namespace === ns && p.metadata?.name === name)),
    listPackages: jest.fn(async (ns: string, refName: string) => packages.filter((p) => p.metadata?.namespace === ns && p.spec?.refName === refName)),
  };
}

describe('readClusterReleased', () => {
  test('the PackageInstalls of the refName (one being deleted left out) and the Packages their namespaces see', async () => {
    const c = fakeClient([pkgiObject('apps', 'app'), pkgiObject('gone', 'app', { deleting: true }), pkgiObject('apps', 'other', { refName: 'other.devpkg.test' })], [pkg('1.0.0'), pkg('9.0.0', 'gone')]);
    expect((await readClusterReleased(c, REF)).version).toBe('1.0.0');
    expect(c.listPackages.mock.calls).toEqual([['apps', REF]]);
  });

  test('a named PackageInstall (input package-install): only its namespace; a missing one is said', async () => {
    const c = fakeClient([pkgiObject('apps', 'app'), pkgiObject('b', 'app')], [pkg('1.0.0'), pkg('2.0.0', 'b')]);
    expect((await readClusterReleased(c, REF, { namespace: 'apps', name: 'app' })).version).toBe('1.0.0');
    expect(await readClusterReleased(c, REF, { namespace: 'apps', name: 'nope' })).toEqual({ why: 'PackageInstall apps/nope does not exist' });
  });
});

test('clusterReleasedLookup: the refName mapped by ref-name, the client made once on first use, each refName read once', async () => {
  const c = fakeClient([pkgiObject('apps', 'app')], [pkg('1.0.0')]);
  const client = jest.fn(async () => c);
  const lookup = clusterReleasedLookup({ client, refNames: parseRefNameMap(`app.repo.example=${REF}`) });
  expect(client).not.toHaveBeenCalled();
  expect((await lookup('app.repo.example')).version).toBe('1.0.0');
  expect((await lookup('app.repo.example')).version).toBe('1.0.0');
  expect((await lookup('unmapped.repo.example')).why).toBe('no PackageInstall of unmapped.repo.example in the cluster');
  expect(client).toHaveBeenCalledTimes(1);
  expect(c.listPackageInstalls).toHaveBeenCalledTimes(2);
});
