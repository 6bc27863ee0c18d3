import { DevpkgError } from '../errors.js';
import { planDevVersion, sequenceIdentifiers, toOciTag, type DevSequence } from './devversion.js';
import { selectVersion, type VersionSelection } from './select.js';
import { compareVersions } from './semver.js';

const run42: DevSequence = { runNumber: 42, runAttempt: 1 };
const TKG = ['1.5.2+vmware.1-tkg.1', '1.5.3+vmware.1-tkg.1'];

describe('planDevVersion', () => {
  test.each<[string, string[], VersionSelection | undefined, string | undefined, string, string]>([
    ['prereleases allowed (addons manager: prereleases {})', TKG, { prereleases: {} }, undefined, '1.5.4-dev.42.1', '1.5.4-dev.42.1'],
    ['prereleases not allowed', TKG, {}, undefined, '1.5.4+dev.42.1', '1.5.4_dev.42.1'],
    ['no selection at all', TKG, undefined, undefined, '1.5.4+dev.42.1', '1.5.4_dev.42.1'],
    ['identifiers include dev', TKG, { prereleases: { identifiers: ['dev'] } }, undefined, '1.5.4-dev.42.1', '1.5.4-dev.42.1'],
    ['identifiers without dev use an allowed one', TKG, { prereleases: { identifiers: ['rc'] } }, undefined, '1.5.4-rc.dev.42.1', '1.5.4-rc.dev.42.1'],
    ['range >=1.0.0 <2.0.0 with a 2.x in play', ['1.4.0', '2.1.0'], { constraints: '>=1.0.0 <2.0.0' }, undefined, '1.4.1+dev.42.1', '1.4.1_dev.42.1'],
    ['range with prereleases', ['1.4.0', '2.1.0'], { constraints: '>=1.0.0 <2.0.0', prereleases: {} }, undefined, '1.4.1-dev.42.1', '1.4.1-dev.42.1'],
    ['a tight upper bound keeps the core and extends the build', ['1.0.9'], { constraints: '<1.0.10' }, undefined, '1.0.9+dev.42.1', '1.0.9_dev.42.1'],
    // W is +vmware.9-tkg.1 ("9-tkg" > "10-tkg" byte-wise); the dev version must beat it, not +vmware.10
    ['build metadata trap under a bound', ['1.5.3+vmware.10-tkg.1', '1.5.3+vmware.9-tkg.1'], { constraints: '<1.5.4' }, undefined, '1.5.3+vmware.9-tkg.1.dev.42.1', '1.5.3_vmware.9-tkg.1.dev.42.1'],
    ['the changed version counts even when not listed', [], {}, '0.24.4+update.2', '0.24.5+dev.42.1', '0.24.5_dev.42.1'],
    ['nothing in play', [], {}, undefined, '0.0.1+dev.42.1', '0.0.1_dev.42.1'],
    ['an earlier dev version does not push the patch up', ['1.5.3', '1.5.4-dev.41.1'], { prereleases: {} }, undefined, '1.5.4-dev.42.1', '1.5.4-dev.42.1'],
    // a later-looking timestamp dev version from a laptop is still beaten, with the next patch
    ['a timestamped dev version in play', ['1.5.3', '1.5.4-dev.20261129000000'], { prereleases: {} }, undefined, '1.5.5-dev.42.1', '1.5.5-dev.42.1'],
    ['an unrelated higher prerelease', ['1.5.3', '2.0.0-rc.1'], { prereleases: {} }, undefined, '2.0.1-dev.42.1', '2.0.1-dev.42.1'],
    ['a prerelease that is filtered out does not matter', ['1.5.3', '2.0.0-rc.1'], {}, undefined, '1.5.4+dev.42.1', '1.5.4_dev.42.1'],
    ['unparsable versions are ignored', ['1.5.3', 'latest', '01.0.0'], {}, undefined, '1.5.4+dev.42.1', '1.5.4_dev.42.1'],
    ['nothing selectable: start inside the constraints', [], { constraints: '1.x' }, undefined, '1.0.1+dev.42.1', '1.0.1_dev.42.1'],
    ['nothing selectable: below a higher release', ['2.1.0'], { constraints: '>=1.0.0 <2.0.0', prereleases: {} }, undefined, '1.0.1-dev.42.1', '1.0.1-dev.42.1'],
    ['v-prefixed versions are understood', ['v1.5.3'], { prereleases: {} }, undefined, '1.5.4-dev.42.1', '1.5.4-dev.42.1'],
  ])('%s', (_name, versions, selection, base, version, tag) => {
    const plan = planDevVersion({ versions, selection, base, seq: run42 });
    expect(plan.version).toBe(version);
    expect(plan.tag).toBe(tag);
    const inPlay = base === undefined ? versions : [...versions, base];
    expect(selectVersion([plan.version, ...inPlay], selection).selected).toBe(plan.version);
    expect(plan.reason).toContain(plan.version);
  });

  test('the reason says what it outranks', () => {
    const plan = planDevVersion({ versions: TKG, selection: { prereleases: {} }, seq: run42 });
    expect(plan.reason).toBe(
      '1.5.4-dev.42.1 outranks 1.5.3+vmware.1-tkg.1, the version kapp-controller selects now (versionSelection: constraints none, prereleases {} (all)); it rises with the run number and attempt',
    );
  });

  test.each<[string, VersionSelection, RegExp]>([
    ['an exact version', { constraints: '1.5.3+vmware.1-tkg.1' }, /allows only the exact version 1.5.3\+vmware.1-tkg.1, so no dev version can be selected\. Change the PackageInstall's versionSelection.constraints to a range \(e\.g\. ">=1.5.3\+vmware.1-tkg.1"\)/],
    ['an exact version with =', { constraints: '=1.5.3+vmware.1-tkg.1', prereleases: {} }, /allows only the exact version/],
    ['exact versions with ||', { constraints: '1.5.2+vmware.1-tkg.1 || 1.5.3+vmware.1-tkg.1' }, /allows only the exact versions 1.5.2\+vmware.1-tkg.1, 1.5.3\+vmware.1-tkg.1/],
    ['an exact prerelease', { constraints: '1.5.3-dev.1' }, /allows only the exact version 1.5.3-dev.1/],
    ['an exact version nobody has', { constraints: '9.9.9' }, /allows only the exact version 9.9.9/],
    ['an upper bound at the released version', { constraints: '<=1.5.3+vmware.1-tkg.1' }, /no dev version that outranks 1.5.3\+vmware.1-tkg.1 passes versionSelection .*tried 1.5.4\+dev.42.1 \(does not satisfy <=1.5.3\+vmware.1-tkg.1\).*Widen versionSelection.constraints/],
  ])('throws for %s', (_name, selection, message) => {
    let err: unknown;
    try {
      planDevVersion({ versions: TKG, selection, seq: run42 });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(DevpkgError);
    expect((err as Error).message).toMatch(message);
  });

  test('an unparsable constraint throws naming it', () => {
    expect(() => planDevVersion({ versions: TKG, selection: { constraints: '>=1.5' }, seq: run42 })).toThrow(/cannot parse version constraint ">=1.5"/);
  });

  test.each<[string, VersionSelection]>([
    ['prereleases on', { prereleases: {} }],
    ['prereleases off', {}],
    ['bounded', { constraints: '<1.5.4' }],
  ])('rises across runs and attempts (%s), and each wins over the earlier ones', (_name, selection) => {
    const seqs: DevSequence[] = [
      { runNumber: 1, runAttempt: 1 },
      { runNumber: 1, runAttempt: 2 },
      { runNumber: 2, runAttempt: 1 },
      { runNumber: 9, runAttempt: 3 },
      { runNumber: 10, runAttempt: 1 },
      { runNumber: 100, runAttempt: 1 },
      { runNumber: 1000, runAttempt: 120 },
    ];
    const inCluster = [...TKG];
    let previous: string | undefined;
    for (const seq of seqs) {
      const plan = planDevVersion({ versions: inCluster, selection, seq });
      if (previous) expect([previous, plan.version, compareVersions(plan.version, previous)]).toEqual([previous, plan.version, 1]);
      expect(selectVersion([...inCluster, plan.version], selection).selected).toBe(plan.version);
      inCluster.push(plan.version);
      previous = plan.version;
    }
  });

  test('rises with the timestamp', () => {
    const times = ['2026-11-29T23:59:07Z', '2026-11-29T23:59:08Z', '2026-11-30T00:00:00Z', '2027-01-01T00:00:00Z'];
    const plans = times.map((t) => planDevVersion({ versions: TKG, selection: { prereleases: {} }, seq: { timestamp: new Date(t) } }).version);
    expect(plans[0]).toBe('1.5.4-dev.20261129235907');
    for (let i = 1; i < plans.length; i++) expect(compareVersions(plans[i], plans[i - 1])).toBe(1);
  });

  test('is the same for the same inputs (plan and kind modes agree), also when it is already in play', () => {
    const a = planDevVersion({ versions: TKG, selection: { prereleases: {} }, seq: run42 });
    const b = planDevVersion({ versions: [...TKG, a.version], selection: { prereleases: {} }, seq: run42 });
    expect(b.version).toBe(a.version);
  });
});

describe('sequenceIdentifiers', () => {
  test.each<[DevSequence, string[]]>([
    [{ runNumber: 42, runAttempt: 1 }, ['42', '1']],
    [{ runNumber: 0, runAttempt: 0 }, ['0', '0']],
    [{ timestamp: new Date('2026-01-02T03:04:05.678Z') }, ['20260102030405']],
  ])('%j', (seq, ids) => {
    expect(sequenceIdentifiers(seq)).toEqual(ids);
  });
  test.each<[DevSequence]>([[{ runNumber: -1, runAttempt: 1 }], [{ runNumber: 1.5, runAttempt: 1 }], [{ timestamp: new Date('nope') }]])('rejects %j', (seq) => {
    expect(() => sequenceIdentifiers(seq)).toThrow(DevpkgError);
  });
});

describe('toOciTag', () => {
  test.each([
    ['1.5.4-dev.42.1', '1.5.4-dev.42.1'],
    ['1.5.4+dev.42.1', '1.5.4_dev.42.1'],
    ['1.5.3+vmware.1-tkg.1', '1.5.3_vmware.1-tkg.1'],
  ])('%s -> %s', (v, tag) => {
    expect(toOciTag(v)).toBe(tag);
  });
  test.each([
    ['1.0.0+' + 'a'.repeat(130), /at most 128/],
    ['-1.0.0', /not starting with/],
    ['.1.0.0', /not starting with/],
    ['1.0.0/x', /only \[A-Za-z0-9_.-\]/],
  ])('rejects %s', (v, msg) => {
    expect(() => toOciTag(v)).toThrow(msg);
  });
});

describe('planDevVersion against several PackageInstalls of one refName, each with its own versionSelection', () => {
  const A = 'PackageInstall tkg-system/antrea';
  const B = 'PackageInstall team/antrea';

  test('prereleases in one, not in the other: a release-form dev version that wins under both', () => {
    const plan = planDevVersion({ versions: TKG, selections: [{ label: A, selection: { prereleases: {} } }, { label: B, selection: {} }], seq: run42 });
    expect(plan.version).toBe('1.5.4+dev.42.1');
    for (const sel of [{ prereleases: {} }, {}]) expect(selectVersion([plan.version, ...TKG], sel).selected).toBe(plan.version);
    expect(plan.reason).toContain(`wins under each PackageInstall's versionSelection: ${A} outranks 1.5.3+vmware.1-tkg.1`);
    expect(plan.reason).toContain(`${B} outranks 1.5.3+vmware.1-tkg.1, the version kapp-controller selects now (versionSelection: constraints none, prereleases not set)`);
  });

  test('a tight bound in one: the dev version stays under it and still wins in the other', () => {
    const sels = [{ label: A, selection: { prereleases: {} } }, { label: B, selection: { constraints: '<1.5.4' } }];
    const plan = planDevVersion({ versions: TKG, selections: sels, seq: run42 });
    for (const s of sels) expect(selectVersion([plan.version, ...TKG], s.selection).selected).toBe(plan.version);
    expect(plan.version).toBe('1.5.3+vmware.1-tkg.1.dev.42.1');
  });

  test('the same selection twice plans as one', () => {
    const one = planDevVersion({ versions: TKG, selection: { prereleases: {} }, seq: run42 });
    const two = planDevVersion({ versions: TKG, selections: [{ label: A, selection: { prereleases: {} } }, { label: B, selection: { prereleases: {} } }], seq: run42 });
    expect(two).toEqual(one);
  });

  test('one that pins an exact version: refused, naming that PackageInstall', () => {
    expect(() => planDevVersion({ versions: TKG, selections: [{ label: A, selection: { prereleases: {} } }, { label: B, selection: { constraints: '1.5.3+vmware.1-tkg.1' } }], seq: run42 })).toThrow(
      new RegExp(`^${B}: versionSelection.constraints "1.5.3\\+vmware.1-tkg.1" allows only the exact version`),
    );
  });

  test('each alone can be won but not both at once: refused, naming both and the way out', () => {
    let err: unknown;
    try {
      planDevVersion({ versions: ['1.5.3'], selections: [{ label: A, selection: { constraints: '<1.6.0' } }, { label: B, selection: { constraints: '>=2.0.0' } }], seq: run42 });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(DevpkgError);
    const m = (err as Error).message;
    expect(m).toMatch(/^no dev version wins under every versionSelection of the 2 PackageInstalls of this refName \(PackageInstall tkg-system\/antrea: constraints "<1.6.0", prereleases not set; PackageInstall team\/antrea: constraints ">=2.0.0", prereleases not set\)/);
    expect(m).toMatch(/1\.5\.4\+dev\.42\.1 \(PackageInstall team\/antrea: does not satisfy >=2\.0\.0\)/);
    expect(m).toMatch(/name the one to move with --package-install NS\/NAME \(input package-install\)$/);
  });
});
