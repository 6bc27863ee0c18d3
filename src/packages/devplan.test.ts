import { describe, expect, test } from '@jest/globals';
import { UsageError } from '../errors.js';
import { formatRepository } from '../bundle/reference.js';
import { ADDONS_MANAGER_SELECTION, devPackageOf, planDev, type DevPlanRequest } from './devplan.js';
import type { Package } from './model.js';

const registry = { host: 'localhost:5001', path: 'devpkg' };
const req = (over: Partial<DevPlanRequest>): DevPlanRequest => ({
  name: 'antrea',
  released: '1.5.3',
  inPlay: [],
  selection: ADDONS_MANAGER_SELECTION,
  seq: { runNumber: 7, runAttempt: 2 },
  registry,
  ...over,
});

describe('planDev: the dev version, its tag and its bundle repository', () => {
  test.each<[string, Partial<DevPlanRequest>, { version: string; tag: string; image: string }]>([
    [
      'prereleases allowed (the addons manager): the next patch as a dev prerelease',
      {},
      { version: '1.5.4-dev.7.2', tag: '1.5.4-dev.7.2', image: 'localhost:5001/devpkg/antrea-bundle:1.5.4-dev.7.2' },
    ],
    [
      'no prereleases setting: build metadata, written with "_" in the tag',
      { selection: {} },
      { version: '1.5.4+dev.7.2', tag: '1.5.4_dev.7.2', image: 'localhost:5001/devpkg/antrea-bundle:1.5.4_dev.7.2' },
    ],
    [
      'outranks a higher version in play, not only the one changed',
      { inPlay: ['1.2.3', '1.6.0', 'not-a-version'] },
      { version: '1.6.1-dev.7.2', tag: '1.6.1-dev.7.2', image: 'localhost:5001/devpkg/antrea-bundle:1.6.1-dev.7.2' },
    ],
    [
      'a forced version that outranks everything is kept as given',
      { forced: '2.0.0+dev.1', inPlay: ['1.6.0'] },
      { version: '2.0.0+dev.1', tag: '2.0.0_dev.1', image: 'localhost:5001/devpkg/antrea-bundle:2.0.0_dev.1' },
    ],
    [
      'a registry without a path',
      { registry: { host: '172.18.0.3:5000', path: '' }, forced: '1.5.4' },
      { version: '1.5.4', tag: '1.5.4', image: '172.18.0.3:5000/antrea-bundle:1.5.4' },
    ],
  ])('%s', (_, over, want) => {
    const plan = planDev(req(over));
    expect({ version: plan.version, tag: plan.tag, image: plan.tagImage }).toEqual(want);
    expect(formatRepository(plan.repository!)).toBe(want.image.slice(0, want.image.lastIndexOf(':')));
  });

  test('the reason of a forced version names what it outranks', () => {
    expect(planDev(req({ forced: '1.5.4-dev.1', inPlay: ['1.2.3'] })).reason).toBe('forced by dev-version (outranks 1.5.3)');
  });

  test.each<[string, Partial<DevPlanRequest>, string]>([
    [
      'equal to the released version',
      { forced: '1.5.3' },
      'dev-version 1.5.3 does not outrank 1.5.3, the highest antrea version in play; kapp-controller would keep 1.5.3. ' +
        'Give a higher dev-version, or leave it empty and devpkg chooses one',
    ],
    [
      'below an earlier attempt (the downgrade guard)',
      { forced: '1.5.4-dev.1', inPlay: ['1.5.4-dev.9'] },
      'dev-version 1.5.4-dev.1 does not outrank 1.5.4-dev.9, the highest antrea version in play; kapp-controller would keep 1.5.4-dev.9. ' +
        'Give a higher dev-version, or leave it empty and devpkg chooses one',
    ],
    [
      'with build metadata that sorts below the released version\'s',
      { forced: '1.5.3+dev.1', released: '1.5.3+vmware.1' },
      'dev-version 1.5.3+dev.1 does not outrank 1.5.3+vmware.1, the highest antrea version in play; kapp-controller would keep 1.5.3+vmware.1. ' +
        'Give a higher dev-version, or leave it empty and devpkg chooses one',
    ],
  ])('a forced version %s is refused, naming the version it loses to', (_, over, message) => {
    let err: unknown;
    try {
      planDev(req(over));
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(UsageError);
    expect((err as Error).message).toBe(message);
  });

  test('a forced prerelease that the selection drops is refused with the selection\'s reason', () => {
    expect(() => planDev(req({ forced: '1.5.4-dev.1', selection: {} }))).toThrow(
      /^dev-version 1\.5\.4-dev\.1 would not be selected under the PackageInstall's versionSelection \(.*prerelease.*\); kapp-controller would keep 1\.5\.3\./,
    );
  });

  test('a version that cannot be an OCI tag is refused before anything is pushed', () => {
    expect(() => planDev(req({ forced: `1.5.4+${'a'.repeat(130)}` }))).toThrow(/cannot be an OCI tag .*at most 128/);
  });

  test('a package name that cannot name a repository is refused, naming the package', () => {
    expect(() => planDev(req({ name: 'Antrea' }))).toThrow(/package "Antrea" cannot name a bundle repository/);
  });

  test('without a registry (a bundle pushed already) the plan names no repository', () => {
    const plan = planDev(req({ registry: undefined }));
    expect(plan).toEqual({ version: '1.5.4-dev.7.2', tag: '1.5.4-dev.7.2', reason: expect.any(String) });
  });
});

describe('devPackageOf', () => {
  const source: Package = {
    apiVersion: 'data.packaging.carvel.dev/v1alpha1',
    kind: 'Package',
    metadata: { name: 'antrea.community.tanzu.vmware.com.1.5.3', namespace: 'default' },
    spec: {
      refName: 'antrea.community.tanzu.vmware.com',
      version: '1.5.3',
      template: { spec: { fetch: [{ imgpkgBundle: { image: 'projects.registry.vmware.com/tce/antrea@sha256:' + 'a'.repeat(64) } }] } },
    },
  } as unknown as Package;

  test('before the push: the plan\'s version and tag image, under the target refName', () => {
    const plan = planDev(req({}));
    const { pkg } = devPackageOf(plan, source, { refName: 'antrea.tanzu.vmware.com' });
    expect(pkg.spec.version).toBe('1.5.4-dev.7.2');
    expect(pkg.spec.refName).toBe('antrea.tanzu.vmware.com');
    expect(pkg.metadata.name).toBe('antrea.tanzu.vmware.com.1.5.4-dev.7.2');
    expect(pkg.spec.template?.spec?.fetch?.[0]?.imgpkgBundle?.image).toBe('localhost:5001/devpkg/antrea-bundle:1.5.4-dev.7.2');
  });

  test('after the push: the digest reference, in the namespace given', () => {
    const image = `172.18.0.3:5000/devpkg/antrea-bundle@sha256:${'b'.repeat(64)}`;
    const { pkg, imagePinned } = devPackageOf(planDev(req({})), source, { refName: 'antrea.tanzu.vmware.com', image, namespace: 'tkg-system' });
    expect(imagePinned).toBe(true);
    expect(pkg.metadata.namespace).toBe('tkg-system');
    expect(pkg.spec.template?.spec?.fetch?.[0]?.imgpkgBundle?.image).toBe(image);
  });

  test('a plan without a registry needs the pushed image', () => {
    expect(() => devPackageOf(planDev(req({ registry: undefined })), source, { refName: 'x' })).toThrow(/no image for 1\.5\.4-dev\.7\.2/);
  });
});
