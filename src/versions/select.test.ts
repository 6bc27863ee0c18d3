import { DevpkgError } from '../errors.js';
import { effectiveSelection, selectVersion, type VersionSelection } from './select.js';

const reasonOf = (r: ReturnType<typeof selectVersion>, v: string) => r.considered.find((c) => c.version === v)?.reason;

describe('selectVersion', () => {
  test.each<[string, string[], VersionSelection | undefined, string | undefined]>([
    ['highest release', ['1.0.0', '1.2.0', '1.1.0'], {}, '1.2.0'],
    ['no selection given: prereleases dropped', ['1.0.0', '1.1.0-rc.1'], undefined, '1.0.0'],
    ['prereleases absent drops them', ['1.0.0', '1.1.0-dev.1'], {}, '1.0.0'],
    ['prereleases {} keeps them', ['1.0.0', '1.1.0-dev.1'], { prereleases: {} }, '1.1.0-dev.1'],
    ['prereleases null counts as absent', ['1.0.0', '1.1.0-dev.1'], { prereleases: null }, '1.0.0'],
    ['identifiers [] keeps all', ['1.0.0', '1.1.0-dev.1'], { prereleases: { identifiers: [] } }, '1.1.0-dev.1'],
    ['identifiers match a whole part', ['1.0.0', '1.1.0-rc.1', '1.2.0-dev.1'], { prereleases: { identifiers: ['rc'] } }, '1.1.0-rc.1'],
    ['identifiers do not match a part of a part', ['1.0.0', '1.1.0-dev1'], { prereleases: { identifiers: ['dev'] } }, '1.0.0'],
    ['identifiers are case-sensitive', ['1.0.0', '1.1.0-RC.1'], { prereleases: { identifiers: ['rc'] } }, '1.0.0'],
    ['numeric identifiers match too', ['1.0.0', '1.1.0-alpha.7'], { prereleases: { identifiers: ['7'] } }, '1.1.0-alpha.7'],
    ['identifiers ignore build metadata', ['1.0.0', '1.1.0-x+dev'], { prereleases: { identifiers: ['dev'] } }, '1.0.0'],
    ['identifiers never filter releases', ['1.0.0', '0.9.0'], { prereleases: { identifiers: ['rc'] } }, '1.0.0'],
    ['a leading v is dropped for parsing but kept in output', ['1.0.0', 'v1.1.0'], {}, 'v1.1.0'],
    ['unparsable versions are skipped', ['01.2.3', '1.0.0', 'latest', '1.2'], {}, '1.0.0'],
    ['build metadata orders: 9-tkg > 10-tkg', ['1.5.3+vmware.10-tkg.1', '1.5.3+vmware.9-tkg.1'], {}, '1.5.3+vmware.9-tkg.1'],
    ['build beats no build', ['1.5.3+vmware.1', '1.5.3'], {}, '1.5.3+vmware.1'],
    ['dev prerelease vs vmware build', ['0.13.3-dev', '0.13.3+vmware.1-tkg.1', '0.13.4-dev.1'], { prereleases: {} }, '0.13.4-dev.1'],
    ['prerelease below its release', ['0.13.3-dev', '0.13.3+vmware.1-tkg.1'], { prereleases: {} }, '0.13.3+vmware.1-tkg.1'],
    ['range keeps a prerelease inside it when prereleases are on', ['1.0.5', '1.1.0-rc.1', '1.1.0'], { constraints: '>=1.0.0 <1.1.0', prereleases: {} }, '1.1.0-rc.1'],
    ['range without prereleases', ['1.0.5', '1.1.0-rc.1', '1.1.0'], { constraints: '>=1.0.0 <1.1.0' }, '1.0.5'],
    ['!=', ['1.0.0', '1.1.0'], { constraints: '!=1.1.0' }, '1.0.0'],
    ['||', ['0.9.0', '1.5.0', '2.1.0'], { constraints: '<1.0.0 || >=2.0.0 <2.1.0' }, '0.9.0'],
    ['wildcard', ['1.2.0', '1.2.7', '1.3.0'], { constraints: '1.2.x' }, '1.2.7'],
    ['exact version', ['1.0.0', '1.1.0', '1.2.0'], { constraints: '1.1.0' }, '1.1.0'],
    ['exact version with build metadata', ['1.1.0', '1.1.0+vmware.1', '1.1.0+vmware.2'], { constraints: '1.1.0+vmware.1' }, '1.1.0+vmware.1'],
    ['an exact prerelease constraint turns prereleases on', ['1.0.0', '1.1.0-dev.1'], { constraints: '1.1.0-dev.1' }, '1.1.0-dev.1'],
    ['... only when written as a bare version', ['1.0.0', '1.1.0-dev.1'], { constraints: '=1.1.0-dev.1' }, undefined],
    ['... and not with an operator', ['1.0.0', '1.1.0-dev.1'], { constraints: '>=1.0.0-dev.1' }, '1.0.0'],
    ['... and identifiers set stay as set', ['1.1.0-dev.1'], { constraints: '1.1.0-dev.1', prereleases: { identifiers: ['rc'] } }, undefined],
    ['equal precedence: the later one wins', ['v1.0.0', '1.0.0'], {}, '1.0.0'],
    ['equal precedence: the later one wins (2)', ['1.0.0', 'v1.0.0'], {}, 'v1.0.0'],
    ['numeric build identifiers by value', ['1.0.0+02', '1.0.0+10'], {}, '1.0.0+10'],
    ['nothing given', [], { prereleases: {} }, undefined],
  ])('%s', (_name, versions, sel, expected) => {
    expect(selectVersion(versions, sel).selected).toBe(expected);
  });

  test('reasons explain why a dev version lost', () => {
    const r = selectVersion(['1.5.3+vmware.1', '1.5.4-dev.1', '1.6.0', 'v1.x', '1.5.2'], { constraints: '>=1.0.0 <1.6.0' });
    expect(r.selected).toBe('1.5.3+vmware.1');
    expect(reasonOf(r, '1.5.4-dev.1')).toBe('prerelease; versionSelection.prereleases is not set');
    expect(reasonOf(r, '1.6.0')).toBe('does not satisfy >=1.0.0 <1.6.0');
    expect(reasonOf(r, 'v1.x')).toMatch(/^not a semver version: /);
    expect(reasonOf(r, '1.5.2')).toBe('lower than 1.5.3+vmware.1');
    expect(reasonOf(r, '1.5.3+vmware.1')).toBe('selected');
    expect(r.considered.map((c) => c.version)).toEqual(['1.5.3+vmware.1', '1.5.4-dev.1', '1.6.0', 'v1.x', '1.5.2']);
    expect(r.considered.filter((c) => c.kept).map((c) => c.version)).toEqual(['1.5.3+vmware.1', '1.5.2']);
    expect(r.details).toBe('all=4 -> after-prereleases-filter=3 -> after-constraints-filter=2');
  });

  test('identifier filter reason', () => {
    const r = selectVersion(['1.0.0', '1.1.0-dev.1'], { prereleases: { identifiers: ['rc', 'beta'] } });
    expect(reasonOf(r, '1.1.0-dev.1')).toBe('prerelease; none of its identifiers (dev.1) is in versionSelection.prereleases.identifiers [rc, beta]');
  });

  test('when nothing is left, the message carries vendir-style details', () => {
    const r = selectVersion(['1.0.0-dev.1', '2.0.0'], { constraints: '<2.0.0' });
    expect(r.selected).toBeUndefined();
    expect(r.message).toMatch(/^Expected to find at least one version, but did not \(details: all=2 -> after-prereleases-filter=1 -> after-constraints-filter=0\)/);
    expect(r.message).toContain('constraints "<2.0.0"');
  });

  test('an unparsable constraint throws a DevpkgError naming it', () => {
    expect(() => selectVersion(['1.0.0'], { constraints: '>=1.0 <2' })).toThrow(DevpkgError);
    expect(() => selectVersion(['1.0.0'], { constraints: '>=1.0 <2' })).toThrow(/cannot parse version constraint ">=1.0 <2"/);
  });

  test('an unparsable constraint throws even when no version is left to filter', () => {
    expect(() => selectVersion(['1.0.0-rc.1'], { constraints: '~1.0.0' })).toThrow(/Could not parse comparator "~"/);
  });
});

describe('selectVersion with cluster facts', () => {
  const packages = {
    '1.0.0': {},
    '1.1.0': { kubernetesVersionSelection: { constraints: '>=1.22.0' } },
    '1.2.0': { kubernetesVersionSelection: { constraints: '>=1.24.0' }, kappControllerVersionSelection: { constraints: '>=0.45.0' } },
  };
  const versions = Object.keys(packages);

  test.each([
    ['no cluster facts: nothing drops', {}, '1.2.0'],
    ['old Kubernetes', { kubernetesVersion: 'v1.23.8+vmware.2' }, '1.1.0'],
    ['very old Kubernetes', { kubernetesVersion: 'v1.21.0' }, '1.0.0'],
    ['new Kubernetes, old kapp-controller', { kubernetesVersion: 'v1.24.9+vmware.1', kappControllerVersion: 'v0.41.2' }, '1.1.0'],
    ['prerelease kapp-controller counts as its release', { kubernetesVersion: '1.24.0', kappControllerVersion: '0.45.0-rc.1' }, '1.2.0'],
    ['Kubernetes prerelease counts as its release', { kubernetesVersion: 'v1.24.0-rc.1' }, '1.2.0'],
    ['both new', { kubernetesVersion: '1.25', kappControllerVersion: '0.53.1' }, '1.2.0'],
    ['unparsable kapp-controller version drops constrained packages', { kappControllerVersion: 'develop' }, '1.1.0'],
    ['ignore annotation', { kubernetesVersion: 'v1.21.0', ignoreKubernetesVersionSelection: true }, '1.2.0'],
    ['ignore kapp-controller annotation', { kappControllerVersion: '0.30.0', ignoreKappControllerVersionSelection: true }, '1.2.0'],
  ])('%s', (_name, opts, expected) => {
    expect(selectVersion(versions, {}, { packages, ...opts }).selected).toBe(expected);
  });

  test('reasons and details name the checks', () => {
    const r = selectVersion(versions, {}, { packages, kubernetesVersion: 'v1.23.8+vmware.2', kappControllerVersion: '0.53.0' });
    expect(reasonOf(r, '1.2.0')).toBe(`kubernetesVersionSelection ">=1.24.0" does not match the cluster's Kubernetes 1.23.8`);
    expect(r.details).toBe('all=3 -> after-prereleases-filter=3 -> after-kubernetes-version-check=2 -> after-kapp-controller-version-check=2');
  });

  test('an unparsable cluster version is an error, as in kapp-controller', () => {
    expect(() => selectVersion(versions, {}, { packages, kubernetesVersion: 'banana' })).toThrow(/Unable to get kubernetes version/);
  });

  test('an unparsable Package constraint names the Package version', () => {
    const bad = { '1.0.0': { kubernetesVersionSelection: { constraints: '>=1.22' } } };
    expect(() => selectVersion(['1.0.0'], {}, { packages: bad, kubernetesVersion: '1.24.0' })).toThrow(
      /Package version 1.0.0: spec.kubernetesVersionSelection.constraints: cannot parse version constraint ">=1.22"/,
    );
  });
});

describe('effectiveSelection', () => {
  test.each<[VersionSelection, VersionSelection]>([
    [{ constraints: '1.0.0-rc.1' }, { constraints: '1.0.0-rc.1', prereleases: {} }],
    [{ constraints: '1.0.0-rc.1+b' }, { constraints: '1.0.0-rc.1+b', prereleases: {} }],
    [{ constraints: '1.0.0' }, { constraints: '1.0.0' }],
    [{ constraints: 'v1.0.0-rc.1' }, { constraints: 'v1.0.0-rc.1' }],
    [{ constraints: ' 1.0.0-rc.1' }, { constraints: ' 1.0.0-rc.1' }],
    [{ constraints: '1.0.0-rc.1', prereleases: { identifiers: ['x'] } }, { constraints: '1.0.0-rc.1', prereleases: { identifiers: ['x'] } }],
  ])('%j', (input, expected) => {
    expect(effectiveSelection(input)).toEqual(expected);
  });
});
