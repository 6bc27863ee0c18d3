import { describe, expect, test } from '@jest/globals';
import type { KObject } from '../verify/evaluate.js';
import { addonsManagerPackageInstall, installIdentity } from './baseline.js';
import { UsageError } from '../errors.js';
import { parseRefNameMap } from '../packages/refname.js';
import { selectVersion } from '../versions/index.js';
import { findPackageInstalls, matchPackageInstalls, packageInstallTargets, planForPackageInstalls, versionsInPlay, type PackageInstallInfo } from './dev.js';

const pkgi = (ns: string, name: string, refName: string, status: object = {}, deletionTimestamp?: string): KObject => ({
  metadata: { namespace: ns, name, ...(deletionTimestamp ? { deletionTimestamp, finalizers: ['finalizers.packageinstall.packaging.carvel.dev/delete'] } : {}) },
  spec: { packageRef: { refName, versionSelection: { prereleases: {} } } },
  status,
});

describe('matchPackageInstalls', () => {
  test('only the refName, sorted', () => {
    const all = [pkgi('tkg-system', 'antrea', 'antrea.tanzu.vmware.com'), pkgi('a', 'x', 'calico.tanzu.vmware.com'), pkgi('default', 'antrea2', 'antrea.tanzu.vmware.com')];
    expect(matchPackageInstalls(all, 'antrea.tanzu.vmware.com').map((p) => `${p.namespace}/${p.name}`)).toEqual(['default/antrea2', 'tkg-system/antrea']);
  });
});

const REF = 'antrea.tanzu.vmware.com';
const live = pkgi('vf', 'antrea', REF);
const deleting = pkgi('crds', 'antrea', REF, {}, '2026-12-02T07:33:48Z');
const deletingToo = pkgi('edge', 'antrea', REF, {}, '2026-12-02T07:30:00Z');

describe('packageInstallTargets: one being deleted gets no dev version', () => {
  test.each([
    { found: [live], targets: ['vf/antrea'], skipped: [] },
    { found: [deleting, live], targets: ['vf/antrea'], skipped: ['PackageInstall crds/antrea is being deleted (since 2026-12-02T07:33:48Z); leaving it out'] },
    {
      found: [deleting, deletingToo],
      targets: [],
      skipped: [
        'PackageInstall crds/antrea is being deleted (since 2026-12-02T07:33:48Z); leaving it out',
        'PackageInstall edge/antrea is being deleted (since 2026-12-02T07:30:00Z); leaving it out',
      ],
    },
    { found: [], targets: [], skipped: [] },
  ])('$targets from $found.length found', ({ found, targets, skipped }) => {
    const r = packageInstallTargets(matchPackageInstalls(found, REF));
    expect({ targets: r.targets.map((p) => `${p.namespace}/${p.name}`), skipped: r.skipped }).toEqual({ targets, skipped });
  });
});

describe('findPackageInstalls', () => {
  /** A client over a fixed list of PackageInstalls. */
  const client = (all: KObject[]) => ({
    listPackageInstalls: async () => all,
    readPackageInstall: async (ns: string, name: string) => all.find((p) => p.metadata?.namespace === ns && p.metadata?.name === name),
  });

  test('by refName: a PackageInstall being deleted in another namespace (an earlier run\'s, still terminating) is left out and named in the log', async () => {
    const logs: string[] = [];
    const found = await findPackageInstalls(client([deleting, live]), REF, undefined, (m) => logs.push(m));
    expect(found.map((p) => `${p.namespace}/${p.name}`)).toEqual(['vf/antrea']);
    expect(logs).toEqual(['PackageInstall crds/antrea is being deleted (since 2026-12-02T07:33:48Z); leaving it out']);
  });

  test('by refName, only ones being deleted: an error saying so', async () => {
    const logs: string[] = [];
    await expect(findPackageInstalls(client([deleting, deletingToo]), REF, undefined, (m) => logs.push(m))).rejects.toThrow(
      `no PackageInstall in the cluster installs refName ${REF} but 2 being deleted (left out); name one with --package-install NS/NAME (input package-install), or map`,
    );
    expect(logs).toHaveLength(2);
  });

  test('by refName, none: the error names both ways out', async () => {
    await expect(findPackageInstalls(client([pkgi('a', 'x', 'calico.tanzu.vmware.com')]), REF)).rejects.toThrow(
      `no PackageInstall in the cluster installs refName ${REF}; name one with --package-install NS/NAME (input package-install), or map the repository refName to the cluster's with --ref-name FROM=TO (input ref-name)`,
    );
  });

  test('named and being deleted: an error saying so, not a wait that cannot end in a win', async () => {
    await expect(findPackageInstalls(client([deleting]), REF, { namespace: 'crds', name: 'antrea' })).rejects.toThrow(
      'PackageInstall crds/antrea is being deleted (since 2026-12-02T07:33:48Z): kapp-controller will not install a dev version on it; run again once its owner',
    );
  });

  test('named: that one, whatever its refName; a missing one is an error', async () => {
    const other = pkgi('tkg-system', 'antrea', 'other.refname');
    expect((await findPackageInstalls(client([other]), REF, { namespace: 'tkg-system', name: 'antrea' })).map((p) => p.refName)).toEqual(['other.refname']);
    await expect(findPackageInstalls(client([]), REF, { namespace: 'tkg-system', name: 'antrea' })).rejects.toThrow(
      'PackageInstall tkg-system/antrea does not exist; check --package-install (input package-install)',
    );
  });
});

describe('versionsInPlay', () => {
  test('Packages plus what was installed and last attempted (downgrade guard)', () => {
    const pkgs: KObject[] = [{ spec: { version: '1.5.3' } }, { spec: { version: '1.5.3' } }];
    const infos = matchPackageInstalls([pkgi('n', 'a', 'r.x', { version: '1.5.3', lastAttemptedVersion: '1.5.4-dev.9' })], 'r.x');
    expect(versionsInPlay(pkgs, infos)).toEqual(['1.5.3', '1.5.4-dev.9']);
  });
});

describe('baseline objects', () => {
  test('PackageInstall like the addons manager', () => {
    expect(addonsManagerPackageInstall({ namespace: 'tkg-system', name: 'antrea', refName: 'antrea.tanzu.vmware.com', serviceAccount: 'antrea-sa' })).toEqual({
      apiVersion: 'packaging.carvel.dev/v1alpha1',
      kind: 'PackageInstall',
      metadata: { name: 'antrea', namespace: 'tkg-system' },
      spec: { serviceAccountName: 'antrea-sa', packageRef: { refName: 'antrea.tanzu.vmware.com', versionSelection: { prereleases: {} } }, syncPeriod: '30s' },
    });
  });
  test('identity: namespace, service account, cluster-admin binding', () => {
    const objs = installIdentity('tkg-system', 'antrea-sa');
    expect(objs.map((o) => `${o.kind}/${o.metadata?.name}`)).toEqual(['Namespace/tkg-system', 'ServiceAccount/antrea-sa', 'ClusterRoleBinding/antrea-sa-tkg-system-cluster-admin']);
  });
});

describe('planForPackageInstalls: every PackageInstall of the refName, each with its own versionSelection', () => {
  const info = (namespace: string, selection: PackageInstallInfo['selection'], version = '1.5.3'): PackageInstallInfo => ({
    namespace,
    name: 'antrea',
    refName: 'antrea.tanzu.vmware.com',
    selection,
    status: { version },
  });
  const o = { name: 'antrea', released: '1.5.3', seq: { runNumber: 7, runAttempt: 1 }, registry: { host: 'localhost:5001', path: 'devpkg' } };

  test('the first allows prereleases, the second does not: the plan wins under both, not just the first', () => {
    const pkgis = [info('a', { prereleases: {} }), info('b', undefined)];
    const plan = planForPackageInstalls(o, pkgis, versionsInPlay([], pkgis));
    expect(plan.version).toBe('1.5.4+dev.7.1');
    expect(selectVersion(['1.5.3', plan.version], {}).selected).toBe(plan.version);
    expect(plan.reason).toMatch(/PackageInstall a\/antrea outranks 1\.5\.3.*PackageInstall b\/antrea outranks 1\.5\.3/);
    expect(plan.tagImage).toBe('localhost:5001/devpkg/antrea-bundle:1.5.4_dev.7.1');
  });

  test('a dev-version the second one would not select is refused, naming it', () => {
    const pkgis = [info('a', { prereleases: {} }), info('b', {})];
    expect(() => planForPackageInstalls({ ...o, devVersion: '1.5.4-dev.1' }, pkgis, ['1.5.3'])).toThrow(UsageError);
    expect(() => planForPackageInstalls({ ...o, devVersion: '1.5.4-dev.1' }, pkgis, ['1.5.3'])).toThrow(
      /^dev-version 1\.5\.4-dev\.1 would not be selected under the versionSelection of PackageInstall b\/antrea \(.*prerelease/,
    );
  });
});

describe('runDevPipeline with a bundle used as it is (a package repository\'s Package)', () => {
  const REF = 'simple.devpkg.test';
  const OWN = `registry.test/simple@sha256:${'a'.repeat(64)}`;
  const text = `apiVersion: data.packaging.carvel.dev/v1alpha1\nkind: Package\nmetadata:\n  name: ${REF}.1.1.0\nspec:\n  refName: ${REF}\n  version: 1.1.0\n  template:\n    spec:\n      fetch:\n      - imgpkgBundle:\n          image: ${OWN}\n`;
  async function run(o: { clusterPackages: string[]; image?: string }) {
    const { parsePackageFile } = await import('../packages/model.js');
    const image = o.image ?? OWN;
    const { runDevPipeline } = await import('./dev.js');
    const applied: KObject[] = [];
    const client = {
      listPackageInstalls: async () => [pkgi('tkg-system', 'simple', REF, { version: '1.0.0' })],
      readPackageInstall: async () => undefined,
      listPackages: async () => o.clusterPackages.map((v) => ({ metadata: { namespace: 'tkg-system', name: `${REF}.${v}` }, spec: { refName: REF, version: v } })),
      apply: async (obj: KObject) => void applied.push(obj),
    };
    const exec = async () => {
      throw new Error('nothing is built or pushed');
    };
    const out = await runDevPipeline({
      client: client as never,
      root: '/repo',
      loaded: { name: 'simple', version: '1.1.0', path: 'packages/simple.yml', packageFile: 'packages/simple.yml', pkg: parsePackageFile(text.replace(OWN, image), 'packages/simple.yml'), released: '1.0.0', pinned: { version: '1.1.0', by: 'the Package in packages/simple.yml: version', file: 'packages/simple.yml', line: 7 } },
      bundle: { image },
      packageCount: 1,
      refNames: parseRefNameMap(''),
      registry: { host: 'localhost:5001', path: 'devpkg' },
      seq: { timestamp: new Date() },
      mode: 'cluster',
      exec: exec as never,
    });
    return { out, applied };
  }

  test('the Package is applied with its own version and bundle; nothing is pushed; the App must name its digest', async () => {
    const { out, applied } = await run({ clusterPackages: ['1.0.0'] });
    expect(out.plan.version).toBe('1.1.0');
    expect(out.image).toBe(OWN);
    expect(applied).toHaveLength(1);
    expect(applied[0]).toMatchObject({ metadata: { name: `${REF}.1.1.0`, namespace: 'tkg-system' }, spec: { version: '1.1.0', template: { spec: { fetch: [{ imgpkgBundle: { image: OWN } }] } } } });
    expect(out.requests[0]!.expect).toEqual({ version: '1.1.0', digest: `sha256:${'a'.repeat(64)}` });
  });

  test('a version the cluster already outranks is refused before anything is applied: that package\'s error at the line of its version, not bad usage', async () => {
    const err = await run({ clusterPackages: ['1.0.0', '2.0.0'] }).catch((e: unknown) => e);
    expect(err).toMatchObject({ message: expect.stringMatching(/version 1.1.0 does not outrank 2.0.0/), file: 'packages/simple.yml', line: 7, exitCode: 1 });
    expect(err).not.toBeInstanceOf(UsageError);
  });

  test('issue 35: a bundle referenced by tag is used as it is, and the dev Package pins the digest the registry resolves the tag to (a local HTTP registry stand-in)', async () => {
    const { createServer } = await import('node:http');
    const { createHash } = await import('node:crypto');
    const manifest = Buffer.from('{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json"}');
    const digest = `sha256:${createHash('sha256').update(manifest).digest('hex')}`;
    const seen: string[] = [];
    const server = createServer((req, res) => {
      seen.push(`${req.method} ${req.url}`);
      if (req.url === '/v2/released/simple/manifests/1.1.0') return res.writeHead(200, { 'docker-content-digest': digest, 'content-type': 'application/vnd.oci.image.manifest.v1+json' }).end(req.method === 'HEAD' ? undefined : manifest);
      res.writeHead(404).end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const host = `127.0.0.1:${(server.address() as import('node:net').AddressInfo).port}`;
      const { out, applied } = await run({ clusterPackages: ['1.0.0'], image: `${host}/released/simple:1.1.0` });
      expect(seen).toContain('HEAD /v2/released/simple/manifests/1.1.0');
      expect(out.image).toBe(`${host}/released/simple@${digest}`);
      expect(applied[0]).toMatchObject({ spec: { version: '1.1.0', template: { spec: { fetch: [{ imgpkgBundle: { image: `${host}/released/simple@${digest}` } }] } } } });
      expect(out.requests[0]!.expect).toEqual({ version: '1.1.0', digest });
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
    }
  });
});

describe('runDevPipeline with the bundle pushed early (kind mode)', () => {
  const REF = 'web.devpkg.test';
  const DIGEST = `sha256:${'b'.repeat(64)}`;
  const text = `apiVersion: data.packaging.carvel.dev/v1alpha1\nkind: Package\nmetadata:\n  name: ${REF}.1.0.0\nspec:\n  refName: ${REF}\n  version: 1.0.0\n  template:\n    spec:\n      fetch:\n      - imgpkgBundle:\n          image: localhost:5001/devpkg/web-bundle:1.0.0\n`;
  async function run(prepushedTag: string) {
    const { parsePackageFile } = await import('../packages/model.js');
    const { runDevPipeline } = await import('./dev.js');
    const applied: KObject[] = [];
    const logs: string[] = [];
    const client = {
      listPackageInstalls: async () => [pkgi('tkg-system', 'web', REF, { version: '1.0.0' })],
      readPackageInstall: async () => undefined,
      listPackages: async () => [{ metadata: { namespace: 'tkg-system', name: `${REF}.1.0.0` }, spec: { refName: REF, version: '1.0.0' } }],
      apply: async (obj: KObject) => void applied.push(obj),
    };
    const calls: string[][] = [];
    const exec = async (cmd: string, args: string[]) => {
      calls.push([cmd, ...args]);
      throw new Error('nothing is pushed here');
    };
    const out = runDevPipeline({
      client: client as never,
      root: '/repo',
      loaded: { name: 'web', version: '1.0.0', path: 'addons/packages/web/1.0.0', packageFile: 'addons/packages/web/1.0.0/package.yaml', pkg: parsePackageFile(text, 'package.yaml') },
      bundle: { folder: '/nonexistent/bundle' },
      packageCount: 1,
      refNames: parseRefNameMap(''),
      registry: { host: 'localhost:5001', path: 'devpkg' },
      clusterRegistry: { host: '172.18.0.3:5000', path: '' },
      seq: { timestamp: new Date() },
      devVersion: '1.0.1-dev.1',
      mode: 'kind',
      exec: exec as never,
      log: (m) => void logs.push(m),
      prepushed: { repository: 'localhost:5001/devpkg/web-bundle', tag: prepushedTag, pushed: { image: `localhost:5001/devpkg/web-bundle@${DIGEST}`, digest: DIGEST, tag: prepushedTag } },
    });
    return { out, applied, logs, calls };
  }

  test('the plan is the one pushed for: nothing pushed again, the Package names it at the cluster\'s address', async () => {
    const { out, applied, calls } = await run('1.0.1-dev.1');
    const r = await out;
    expect(calls).toEqual([]);
    expect(r.image).toBe(`172.18.0.3:5000/devpkg/web-bundle@${DIGEST}`);
    expect(applied[0]).toMatchObject({ spec: { version: '1.0.1-dev.1', template: { spec: { fetch: [{ imgpkgBundle: { image: `172.18.0.3:5000/devpkg/web-bundle@${DIGEST}` } }] } } } });
    expect(r.requests[0]!.expect).toEqual({ version: '1.0.1-dev.1', digest: DIGEST });
  });

  test('another plan: said, and pushed again (here the push fails: the folder does not exist)', async () => {
    const { out, applied, logs } = await run('1.0.1-dev.0');
    await expect(out).rejects.toThrow(/nonexistent/);
    expect(logs).toContain('the bundle pushed early as localhost:5001/devpkg/web-bundle:1.0.1-dev.0 is not the planned localhost:5001/devpkg/web-bundle:1.0.1-dev.1; pushing again');
    expect(applied).toEqual([]);
  });
});
