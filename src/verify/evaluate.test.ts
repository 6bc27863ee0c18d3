import { describe, expect, test } from '@jest/globals';
import { evaluate, type KObject, type SelectFn } from './evaluate.js';

const DEV = '1.5.3-dev.2';
const DIGEST = `sha256:${'a'.repeat(64)}`;
const OLD_DIGEST = `sha256:${'b'.repeat(64)}`;

// A stand-in for src/versions' selectVersion: highest version, prereleases only with `prereleases`,
// and an exact-version constraint. The real one is exercised in the integration tests.
const select: SelectFn = (versions, sel) => {
  const considered = versions.map((v) => {
    if (sel?.constraints && v !== sel.constraints) return { version: v, kept: false, reason: `does not satisfy ${sel.constraints}` };
    if (v.includes('-') && !sel?.prereleases) return { version: v, kept: false, reason: 'prerelease, prereleases not enabled' };
    return { version: v, kept: true, reason: '' };
  });
  const kept = considered.filter((c) => c.kept).map((c) => c.version).sort();
  return { selected: kept[kept.length - 1], considered };
};

function pkgi(o: { gen?: number; obs?: number; cond?: string; version?: string; last?: string; useful?: string; sel?: unknown } = {}): KObject {
  return {
    metadata: { name: 'antrea', namespace: 'tkg-system', generation: o.gen ?? 2 },
    spec: { packageRef: { refName: 'antrea.tanzu.vmware.com', versionSelection: 'sel' in o ? o.sel : { prereleases: {} } } },
    status: {
      observedGeneration: o.obs ?? o.gen ?? 2,
      conditions: o.cond ? [{ type: o.cond, status: 'True' }] : [],
      version: o.version ?? DEV,
      lastAttemptedVersion: o.last ?? o.version ?? DEV,
      ...(o.useful ? { usefulErrorMessage: o.useful } : {}),
    },
  };
}

function app(o: { gen?: number; obs?: number; cond?: string; stdout?: string; template?: { exitCode: number; stderr: string } } = {}): KObject {
  return {
    metadata: { name: 'antrea', namespace: 'tkg-system', generation: o.gen ?? 4 },
    status: {
      observedGeneration: o.obs ?? o.gen ?? 4,
      conditions: [{ type: o.cond ?? 'ReconcileSucceeded', status: 'True' }],
      fetch: { exitCode: 0, stdout: o.stdout ?? `apiVersion: vendir.k14s.io/v1alpha1\ndirectories:\n- contents:\n  - imgpkgBundle:\n      image: reg/antrea@${DIGEST}\n` },
      ...(o.template ? { template: o.template } : {}),
    },
  };
}

const pkgs = (...versions: string[]): KObject[] => versions.map((v) => ({ spec: { version: v, refName: 'antrea.tanzu.vmware.com' } }));

const WON = pkgi({ cond: 'ReconcileSucceeded' });

describe('evaluate', () => {
  test.each<[string, { pkgi?: KObject; app?: KObject; packages?: KObject[] }, string, RegExp, boolean]>([
    ['no PackageInstall', {}, 'pending', /does not exist/, false],
    ['full proof', { pkgi: WON, app: app(), packages: pkgs('1.5.3', DEV) }, 'won', /reconciled 1\.5\.3-dev\.2.*dev bundle sha256:a/, true],
    ['PackageInstall generation not observed yet', { pkgi: pkgi({ gen: 3, obs: 2, cond: 'ReconcileSucceeded' }), app: app() }, 'pending', /generation 3\/observed 2/, true],
    ['PackageInstall reconciling the dev version', { pkgi: pkgi({ cond: 'Reconciling' }), app: app() }, 'pending', /condition Reconciling/, true],
    ['desired dev but last attempted older', { pkgi: pkgi({ cond: 'ReconcileSucceeded', last: '1.5.3' }), app: app(), packages: pkgs('1.5.3', DEV) }, 'pending', /lastAttemptedVersion 1\.5\.3,/, false],
    ['App not reconciled yet', { pkgi: WON, app: app({ gen: 5, obs: 4 }) }, 'pending', /App is not reconciled yet.*generation 5\/observed 4/, true],
    ['App missing', { pkgi: WON }, 'pending', /App antrea is not there/, true],
    ['App names another bundle', { pkgi: WON, app: app({ stdout: `image: reg/antrea@${OLD_DIGEST}` }) }, 'pending', /fetched sha256:b+, not the dev bundle/, false],
    ['two conditions are not a win', { pkgi: { ...WON, status: { ...WON.status, conditions: [{ type: 'ReconcileSucceeded', status: 'True' }, { type: 'Reconciling', status: 'True' }] } }, app: app() }, 'pending', /ReconcileSucceeded\+Reconciling/, true],
    ['reconcile failed on the dev version', {
      pkgi: pkgi({ cond: 'ReconcileFailed', useful: 'ytt: Error: no_such_value' }),
      app: app({ cond: 'ReconcileFailed', template: { exitCode: 1, stderr: 'ytt: Error: no_such_value\n  in broken.yaml' } }),
    }, 'reconcile-failed', /usefulErrorMessage: ytt: Error: no_such_value\ntemplate failed \(exit 1\)/, false],
    ['a failure reported before the App reconciled the new spec is not final', {
      pkgi: pkgi({ cond: 'ReconcileFailed', useful: 'old failure' }),
      app: app({ gen: 5, obs: 4, cond: 'ReconcileFailed' }),
    }, 'pending', /App has not reconciled 1\.5\.3-dev\.2 yet/, false],
    ['a failure while the App is still reconciling is not final', {
      pkgi: pkgi({ cond: 'ReconcileFailed', useful: 'old failure' }),
      app: app({ cond: 'Reconciling' }),
    }, 'pending', /App has not reconciled/, false],
    ['failure of an older attempt is not ours', { pkgi: pkgi({ cond: 'ReconcileFailed', version: '1.5.3', last: '1.5.3', useful: 'boom' }), packages: pkgs('1.5.3', DEV) }, 'pending', /has not switched/, false],
    ['downgrade guard refusing the dev version', {
      pkgi: pkgi({ cond: 'ReconcileFailed', version: DEV, last: '1.5.3-dev.9', useful: `Stopped installing matched version '${DEV}' since last attempted version '1.5.3-dev.9' is higher.\nhint: Add annotation packaging.carvel.dev/downgradable: "" to PackageInstall to proceed with downgrade` }),
    }, 'downgrade-blocked', /1\.5\.3-dev\.9 was attempted before and is higher/, false],
    ['a refusal from before the spec changed is not final', {
      pkgi: pkgi({ gen: 3, obs: 2, cond: 'ReconcileFailed', version: DEV, last: '1.5.3-dev.9', useful: `Stopped installing matched version '${DEV}' since last attempted version '1.5.3-dev.9' is higher.` }),
    }, 'pending', /generation 3\/observed 2/, false],
    ['downgrade guard refusing some other version', {
      pkgi: pkgi({ cond: 'ReconcileFailed', version: '1.5.3', last: '1.5.3-dev.1', useful: "Stopped installing matched version '1.5.3' since last attempted version '1.5.3-dev.1' is higher." }),
      packages: pkgs('1.5.3', DEV),
    }, 'pending', /has not switched/, false],
    ['exact-version constraint keeps the released version', {
      pkgi: pkgi({ cond: 'ReconcileSucceeded', version: '1.5.3', sel: { constraints: '1.5.3' } }), app: app(), packages: pkgs('1.5.3', DEV),
    }, 'not-selected', /keeps 1\.5\.3: 1\.5\.3-dev\.2 was dropped: does not satisfy 1\.5\.3.*versions seen: 1\.5\.3 \(kept\), 1\.5\.3-dev\.2 \[dev\] \(dropped/, false],
    ['no prereleases on the PackageInstall', {
      pkgi: pkgi({ cond: 'ReconcileSucceeded', version: '1.5.3', sel: undefined }), app: app(), packages: pkgs('1.5.3', DEV),
    }, 'not-selected', /prerelease, prereleases not enabled/, false],
    ['a higher version outranks the dev version', {
      pkgi: pkgi({ cond: 'ReconcileSucceeded', version: '1.6.0' }), app: app(), packages: pkgs('1.5.3', '1.6.0', DEV),
    }, 'not-selected', /1\.6\.0 ranks above 1\.5\.3-dev\.2/, false],
    ['dev Package not visible yet', { pkgi: pkgi({ cond: 'ReconcileSucceeded', version: '1.5.3' }), packages: pkgs('1.5.3') }, 'pending', /not visible in namespace tkg-system/, false],
    ['released version in place, still reconciling', { pkgi: pkgi({ cond: 'Reconciling', version: '1.5.3' }), packages: pkgs('1.5.3', '1.6.0') }, 'pending', /condition Reconciling/, false],
  ])('%s', (_name, state, want, reason, holdsDev) => {
    const e = evaluate(state, { version: DEV, digest: DIGEST }, select);
    expect(e.state).toBe(want);
    expect(e.reason).toMatch(reason);
    expect(e.holdsDev).toBe(holdsDev);
  });

  test('without a digest the App fetch output is not checked', () => {
    const e = evaluate({ pkgi: WON, app: app({ stdout: 'nothing' }) }, { version: DEV });
    expect(e.state).toBe('won');
  });

  test('without a selector a different version stays pending (no verdict guessed)', () => {
    const e = evaluate({ pkgi: pkgi({ cond: 'ReconcileSucceeded', version: '1.5.3', sel: { constraints: '1.5.3' } }), packages: pkgs('1.5.3', DEV) }, { version: DEV });
    expect(e.state).toBe('pending');
  });

  test('long messages are trimmed', () => {
    const e = evaluate({ pkgi: pkgi({ cond: 'ReconcileFailed', useful: 'x'.repeat(5000) }) }, { version: DEV });
    expect(e.state).toBe('reconcile-failed');
    expect(e.reason.length).toBeLessThan(1700);
    expect(e.reason).toMatch(/3500 more characters/);
  });
});
