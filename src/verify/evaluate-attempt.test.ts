/**
 * The verdict's view of one attempt: only the failing step of the App's last attempt, a result
 * kapp-controller carried over from an earlier attempt with the same digest, a bundle other than
 * the expected one, registry hints, and the workload's pods.
 */
import { describe, expect, test } from '@jest/globals';
import { appFailure, earlierAttemptNote, evaluate, type KObject } from './evaluate.js';

const DEV = '1.5.4-dev.2';
const DIGEST = `sha256:${'a'.repeat(64)}`;
const OTHER = `sha256:${'b'.repeat(64)}`;
const LOCK = (d: string): string => `apiVersion: vendir.k14s.io/v1alpha1\ndirectories:\n- contents:\n  - imgpkgBundle:\n      image: reg/antrea@${d}\n`;

function pkgi(cond: string, o: { version?: string; last?: string; useful?: string } = {}): KObject {
  return {
    metadata: { name: 'antrea', namespace: 'ns', generation: 2 },
    spec: { packageRef: { refName: 'antrea.tanzu.vmware.com', versionSelection: { prereleases: {} } } },
    status: {
      observedGeneration: 2,
      conditions: [{ type: cond, status: 'True' }],
      version: o.version ?? DEV,
      lastAttemptedVersion: o.last ?? o.version ?? DEV,
      ...(o.useful ? { usefulErrorMessage: o.useful } : {}),
    },
  };
}

function app(cond: string, status: Record<string, unknown> = {}, spec?: Record<string, unknown>): KObject {
  return {
    metadata: { name: 'antrea', namespace: 'ns', generation: 3 },
    ...(spec ? { spec } : {}),
    status: { observedGeneration: 3, conditions: [{ type: cond, status: 'True' }], fetch: { exitCode: 0, stdout: LOCK(DIGEST), startedAt: '2026-01-01T10:00:05Z' }, ...status },
  };
}

function pod(name: string, created: string, waiting?: { reason: string; message?: string }, restarts = 0): KObject {
  return {
    metadata: { name, namespace: 'ns', creationTimestamp: created },
    status: { containerStatuses: [{ name: 'main', restartCount: restarts, state: waiting ? { waiting } : { running: {} } }] },
  };
}

const devPackage = (created: string): KObject => ({ metadata: { name: `antrea.tanzu.vmware.com.${DEV}`, creationTimestamp: created }, spec: { version: DEV, refName: 'antrea.tanzu.vmware.com' } });

describe('appFailure: the failing step of the last attempt only', () => {
  test.each<[string, Record<string, unknown>, string]>([
    ['deploy failed', { fetch: { exitCode: 0 }, template: { exitCode: 0 }, deploy: { exitCode: 1, stderr: 'kapp: Error: configmap/Bad_Name' } }, 'deploy failed (exit 1): kapp: Error: configmap/Bad_Name'],
    // A YAML syntax error after a deploy error: the template step failed, deploy did not run; its error is the previous attempt's.
    ['template failed after an earlier deploy error', { fetch: { exitCode: 0 }, template: { exitCode: 1, stderr: 'yaml: line 3: mapping values' }, deploy: { exitCode: 1, stderr: 'kapp: Error: configmap/Bad_Name' } }, 'template failed (exit 1): yaml: line 3: mapping values'],
    ['fetch failed: template and deploy are stale', { fetch: { exitCode: 1, stderr: 'dial tcp [::1]:5001: connect: connection refused' }, template: { exitCode: 1, stderr: 'old' }, deploy: { exitCode: 1, stderr: 'older' } }, 'fetch failed (exit 1): dial tcp [::1]:5001: connect: connection refused'],
    ['an empty stderr falls back to the error', { fetch: { exitCode: 1, stderr: '', error: 'Fetching resources: Error' } }, 'fetch failed (exit 1): Fetching resources: Error'],
    ['nothing failed', { fetch: { exitCode: 0 }, template: { exitCode: 0 }, deploy: { exitCode: 0 } }, ''],
    // A deploy in progress: its status is still the previous deploy's (written before this attempt's fetch).
    [
      'a deploy running now, with the previous deploy\'s error in its status',
      { fetch: { exitCode: 0, startedAt: '2026-01-01T10:00:03Z' }, template: { exitCode: 0, updatedAt: '2026-01-01T10:00:03Z' }, deploy: { exitCode: 1, stderr: 'configmap/Bad_Name', startedAt: '2026-01-01T10:00:03Z', updatedAt: '2026-01-01T10:00:01Z' } },
      '',
    ],
    [
      'a template error from before this attempt\'s fetch',
      { fetch: { exitCode: 0, startedAt: '2026-01-01T10:00:03Z' }, template: { exitCode: 1, stderr: 'old', updatedAt: '2026-01-01T10:00:01Z' } },
      '',
    ],
    [
      'a deploy that failed in this attempt',
      { fetch: { exitCode: 0, startedAt: '2026-01-01T10:00:03Z' }, template: { exitCode: 0, updatedAt: '2026-01-01T10:00:03Z' }, deploy: { exitCode: 1, stderr: 'new', startedAt: '2026-01-01T10:00:03Z', updatedAt: '2026-01-01T10:00:09Z' } },
      'deploy failed (exit 1): new',
    ],
  ])('%s', (_n, status, want) => expect(appFailure({ status })).toBe(want));
});

describe('reconcile-failed names only the attempt being judged', () => {
  test('a deploy error of the previous attempt is left out', () => {
    const e = evaluate(
      {
        pkgi: pkgi('ReconcileFailed', { useful: 'yaml: line 3: mapping values are not allowed' }),
        app: app('ReconcileFailed', { template: { exitCode: 1, stderr: 'yaml: line 3: mapping values are not allowed' }, deploy: { exitCode: 1, stderr: 'configmap/Bad_Name invalid' } }),
      },
      { version: DEV },
    );
    expect(e.state).toBe('reconcile-failed');
    expect(e.reason).toContain('usefulErrorMessage: yaml: line 3: mapping values are not allowed\ntemplate failed (exit 1) with that message');
    expect(e.reason).not.toContain('Bad_Name');
  });

  test('the App seen here still fetches the previous bundle: its failure is not the dev attempt\'s yet (pending, then judged)', () => {
    // Seen on a loaded machine: the PackageInstall already reports the dev version as failed while the
    // App's own update (the new bundle) has not arrived, so the App's status is the previous attempt's.
    const fetchOf = (d: string) => ({ fetch: [{ imgpkgBundle: { image: `reg/antrea@${d}` } }] });
    const devPkg: KObject = { metadata: { name: `antrea.tanzu.vmware.com.${DEV}` }, spec: { version: DEV, refName: 'antrea.tanzu.vmware.com', template: { spec: fetchOf(DIGEST) } } };
    const failed = pkgi('ReconcileFailed', { useful: 'kapp: Error: create configmap/Bad_Name (v1)' });
    const oldApp = app('ReconcileFailed', { deploy: { exitCode: 1, stderr: 'configmap/Bad_Name invalid' } }, fetchOf(OTHER));
    const stale = evaluate({ pkgi: failed, app: oldApp, packages: [devPkg] }, { version: DEV, digest: DIGEST });
    expect(stale.state).toBe('pending');
    expect(stale.reason).toBe(`the App does not fetch ${DEV}'s bundle yet (its last result, a failure, is an earlier attempt's)`);
    const newApp = app('ReconcileFailed', { template: { exitCode: 1, stderr: 'yaml: line 3: did not find expected' } }, fetchOf(DIGEST));
    const judged = evaluate({ pkgi: pkgi('ReconcileFailed', { useful: 'yaml: line 3: did not find expected' }), app: newApp, packages: [devPkg] }, { version: DEV, digest: DIGEST });
    expect(judged.state).toBe('reconcile-failed');
    expect(judged.reason).not.toContain('Bad_Name');
  });

  test('the App has already reconciled the dev bundle while the PackageInstall still reports the attempt kapp-controller lost: pending until it follows, then won', () => {
    // Seen when kapp-controller's pod is deleted mid-install: the PackageInstall keeps the failure
    // of the stopped attempt until its own next reconcile, after the App's new attempt succeeded.
    const stopped = pkgi('ReconcileFailed', { useful: 'kapp: Error: waiting on reconcile deployment/web: signal: terminated' });
    // Its attempt began after kapp-controller was back (10:00:25, the outage 10:00:06-10:00:20).
    const succeeded = app('ReconcileSucceeded', { fetch: { exitCode: 0, stdout: LOCK(DIGEST), startedAt: '2026-01-01T10:00:25Z' }, deploy: { exitCode: 0 } });
    const outage = { from: Date.parse('2026-01-01T10:00:06Z'), to: Date.parse('2026-01-01T10:00:20Z'), what: 'pod kapp-controller-1 deleted' };
    const lagging = evaluate({ pkgi: stopped, app: succeeded, kappControllerOutages: [outage] }, { version: DEV, digest: DIGEST });
    expect(lagging).toEqual({
      state: 'pending',
      reason: `the App has reconciled ${DEV}'s bundle, but the PackageInstall still reports an earlier failure (usefulErrorMessage: kapp: Error: waiting on reconcile deployment/web: signal: terminated); waiting for it to follow its App`,
      holdsDev: false,
    });
    expect(evaluate({ pkgi: pkgi('ReconcileSucceeded'), app: succeeded, kappControllerOutages: [outage] }, { version: DEV, digest: DIGEST }).state).toBe('won');
    // An App that succeeded with another bundle, or that failed in an attempt after kapp-controller
    // was back: the failure stands.
    const early = { from: Date.parse('2026-01-01T09:00:00Z'), to: Date.parse('2026-01-01T09:00:30Z'), what: 'pod kapp-controller-0 deleted' };
    const otherBundle = app('ReconcileSucceeded', { fetch: { exitCode: 0, stdout: LOCK(OTHER) } });
    expect(evaluate({ pkgi: stopped, app: otherBundle, kappControllerOutages: [early] }, { version: DEV, digest: DIGEST }).state).toBe('reconcile-failed');
    expect(evaluate({ pkgi: stopped, app: app('ReconcileFailed', { deploy: { exitCode: 1, stderr: 'kapp: Error: signal: terminated' } }), kappControllerOutages: [early] }, { version: DEV, digest: DIGEST }).state).toBe('reconcile-failed');
    // kapp-controller never went away: nothing was stopped, the PackageInstall's failure is its own (final).
    expect(evaluate({ pkgi: stopped, app: succeeded }, { version: DEV, digest: DIGEST }).state).toBe('reconcile-failed');
    // The PackageInstall's own refusal (a pin to a lower version, the downgrade guard) leaves the App
    // on the dev bundle, succeeded: final even after an outage (TKG 2.x's ClusterBootstrap pin).
    const pinned = pkgi('ReconcileFailed', { useful: `Stopped installing matched version '1.5.3' since last attempted version '${DEV}' is higher.` });
    expect(evaluate({ pkgi: pinned, app: succeeded, kappControllerOutages: [outage] }, { version: DEV, digest: DIGEST }).state).not.toBe('pending');
    // No version satisfies the PackageInstall's constraints: its own refusal too, final.
    const noVersion = pkgi('ReconcileFailed', { useful: `Expected to find at least one version, but did not (details: all=2 -> after-prereleases-filter=1 -> after-kapp-controller-version-check=1 -> after-constraints-filter=0)` });
    expect(evaluate({ pkgi: noVersion, app: succeeded, kappControllerOutages: [outage] }, { version: DEV, digest: DIGEST }).state).not.toBe('pending');
  });

  test.each<[string, string | undefined, RegExp | undefined]>([
    ['fetched before the dev Package existed: an earlier attempt', '2026-01-01T10:00:09Z', /note: this is the result of an earlier attempt\. The App last fetched at 2026-01-01T10:00:05\.000Z, before the dev Package antrea\.tanzu\.vmware\.com\.1\.5\.4-dev\.2 was created \(2026-01-01T10:00:09\.000Z\)/],
    ['fetched after the dev Package was created: this attempt', '2026-01-01T10:00:01Z', undefined],
    ['same second: this attempt', '2026-01-01T10:00:05Z', undefined],
    ['dev Package not visible: nothing said', undefined, undefined],
  ])('%s', (_n, created, note) => {
    const state = {
      pkgi: pkgi('ReconcileFailed', { useful: 'kapp: Error: boom' }),
      app: app('ReconcileFailed', { deploy: { exitCode: 1, stderr: 'kapp: Error: boom' } }),
      packages: created ? [devPackage(created)] : [],
    };
    const e = evaluate(state, { version: DEV, digest: DIGEST });
    expect(e.state).toBe('reconcile-failed');
    if (note) expect(e.reason).toMatch(note);
    else expect(e.reason).not.toMatch(/earlier attempt/);
    expect(earlierAttemptNote(state.app, state.packages, DEV) !== undefined).toBe(note !== undefined);
  });

  test('a step whose stderr is the usefulErrorMessage is named, not quoted twice', () => {
    const err = 'vendir: Error: Syncing directory';
    const e = evaluate({ pkgi: pkgi('ReconcileFailed', { useful: err }), app: app('ReconcileFailed', { fetch: { exitCode: 1, stderr: `${err}\n` } }) }, { version: DEV });
    expect(e.reason).toBe(`kapp-controller could not reconcile ${DEV}:\nusefulErrorMessage: ${err}\nfetch failed (exit 1) with that message`);
  });

  test.each<[string, string, RegExp]>([
    ['localhost refused', 'vendir: Error: dial tcp [::1]:5001: connect: connection refused', /hint: kapp-controller could not connect to \[::1\]:5001, a localhost registry.*--cluster-registry \(input cluster-registry\)/s],
    ['127.0.0.1 refused', 'Get "http://127.0.0.1:5001/v2/": dial tcp 127.0.0.1:5001: connect: connection refused', /could not connect to 127\.0\.0\.1:5001/],
    ['a registry name over HTTP', 'Get "https://kind-registry:5000/v2/": http: server gave HTTP response to HTTPS client', /hint: the registry speaks plain HTTP.*RFC1918/s],
  ])('a fetch error with a registry hint: %s', (_n, err, hint) => {
    const e = evaluate({ pkgi: pkgi('ReconcileFailed', { useful: err }), app: app('ReconcileFailed', { fetch: { exitCode: 1, stderr: err } }) }, { version: DEV });
    expect(e.state).toBe('reconcile-failed');
    expect(e.reason).toMatch(hint);
  });

  test('a refused connection to a non-local registry gets no localhost hint', () => {
    const err = 'dial tcp 172.18.0.3:5000: connect: connection refused';
    const e = evaluate({ pkgi: pkgi('ReconcileFailed', { useful: err }), app: app('ReconcileFailed', { fetch: { exitCode: 1, stderr: err } }) }, { version: DEV });
    expect(e.reason).not.toMatch(/hint/);
  });
});

describe('another bundle than the expected one', () => {
  const won = pkgi('ReconcileSucceeded');
  const fetchOf = (d: string) => ({ fetch: [{ imgpkgBundle: { image: `reg/antrea@${d}` } }] });
  const pkgOf = (d: string): KObject => ({ metadata: { name: `antrea.tanzu.vmware.com.${DEV}` }, spec: { version: DEV, refName: 'antrea.tanzu.vmware.com', template: { spec: fetchOf(d) } } });
  const settledOn = (d: string) => app('ReconcileSucceeded', { fetch: { exitCode: 0, stdout: LOCK(d) } }, fetchOf(d));
  test('final once the dev Package names another bundle and the App has reconciled exactly that', () => {
    const e = evaluate({ pkgi: won, app: settledOn(OTHER), packages: [pkgOf(OTHER)] }, { version: DEV, digest: DIGEST });
    expect(e.state).toBe('not-selected');
    expect(e.reason).toBe(
      `kapp-controller installed ${DEV}, but from bundle reg/antrea@${OTHER}, not the dev bundle ${DIGEST}: the Package ${DEV} references that bundle (check --bundle, or whether the Package was replaced)`,
    );
  });
  test.each<[string, KObject, KObject[]]>([
    // Right after the switch: the PackageInstall reports success while the App seen here is still the old one.
    ['the App seen here still has the previous spec', settledOn(OTHER), [pkgOf(DIGEST)]],
    ['the App spec already names the expected bundle', app('ReconcileSucceeded', { fetch: { exitCode: 0, stdout: LOCK(OTHER) } }, fetchOf(DIGEST)), [pkgOf(DIGEST)]],
    ['the dev Package is not visible', settledOn(OTHER), []],
  ])('still pending: %s', (_n, a, packages) => {
    expect(evaluate({ pkgi: won, app: a, packages }, { version: DEV, digest: DIGEST }).state).toBe('pending');
  });
});

describe('the workload of the dev version', () => {
  const deploying = (pods: KObject[], o: { fetch?: string; last?: string } = {}) => ({
    pkgi: pkgi('Reconciling', { version: DEV, last: o.last ?? DEV }),
    app: app('Reconciling', { fetch: { exitCode: 0, stdout: LOCK(o.fetch ?? DIGEST) }, deploy: { startedAt: '2026-01-01T10:00:10Z', exitCode: 0, finished: false } }),
    pods,
  });
  const pull = { reason: 'ImagePullBackOff', message: 'Back-off pulling image "localhost:5001/app:dev"' };

  test('ImagePullBackOff of a pod of this deploy is final', () => {
    const e = evaluate(deploying([pod('app-1', '2026-01-01T10:00:12Z', pull)]), { version: DEV, digest: DIGEST });
    expect(e.state).toBe('reconcile-failed');
    expect(e.reason).toMatch(/^the workload of 1\.5\.4-dev\.2 cannot start: pod ns\/app-1 container main: ImagePullBackOff: Back-off pulling image "localhost:5001\/app:dev" \(kapp-controller is still waiting for it/);
  });
  test.each<[string, ReturnType<typeof deploying>, string, RegExp]>([
    ['ErrImagePull is reported, not final', deploying([pod('app-1', '2026-01-01T10:00:12Z', { reason: 'ErrImagePull', message: 'not found' })]), 'pending', /condition Reconciling.*; pods: pod ns\/app-1 container main: ErrImagePull: not found/],
    ['CrashLoopBackOff before 3 restarts is not final', deploying([pod('app-1', '2026-01-01T10:00:12Z', { reason: 'CrashLoopBackOff' }, 2)]), 'pending', /pods: .*CrashLoopBackOff after 2 restart\(s\)/],
    ['CrashLoopBackOff at 3 restarts is final', deploying([pod('app-1', '2026-01-01T10:00:12Z', { reason: 'CrashLoopBackOff', message: 'back-off 40s' }, 3)]), 'reconcile-failed', /CrashLoopBackOff after 3 restart\(s\): back-off 40s/],
    ['a pod from before this deploy is not the dev version\'s', deploying([pod('old-1', '2026-01-01T09:59:00Z', pull)]), 'pending', /^condition Reconciling[^;]*$/],
    ['the App still fetched another bundle: not the dev version\'s pods', deploying([pod('app-1', '2026-01-01T10:00:12Z', pull)], { fetch: OTHER }), 'pending', /condition Reconciling/],
    ['the PackageInstall attempted another version', deploying([pod('app-1', '2026-01-01T10:00:12Z', pull)], { last: '1.5.3' }), 'pending', /condition Reconciling/],
    ['running pods: nothing to say', deploying([pod('app-1', '2026-01-01T10:00:12Z')]), 'pending', /^condition Reconciling[^;]*$/],
  ])('%s', (_n, state, want, reason) => {
    const e = evaluate(state, { version: DEV, digest: DIGEST });
    expect(e.state).toBe(want);
    expect(e.reason).toMatch(reason);
  });
  test('a deploy that failed in the end names the pods too', () => {
    const state = deploying([pod('app-1', '2026-01-01T10:00:12Z', pull)]);
    state.pkgi = pkgi('ReconcileFailed', { useful: 'kapp: Error: waiting on reconcile deployment/app: Deployment is not progressing' });
    state.app = { ...state.app, status: { ...state.app.status, conditions: [{ type: 'ReconcileFailed', status: 'True' }], deploy: { ...state.app.status.deploy, exitCode: 1, stderr: 'kapp: Error: waiting on reconcile deployment/app' } } };
    const e = evaluate(state, { version: DEV, digest: DIGEST });
    expect(e.state).toBe('reconcile-failed');
    expect(e.reason).toMatch(/pods: pod ns\/app-1 container main: ImagePullBackOff/);
  });
});

describe('kapp-controller went away during the attempt', () => {
  // The App's attempt began at 10:00:05 (its fetch); kapp-controller's pod was deleted at 10:00:20.
  const killed = (): { pkgi: KObject; app: KObject } => ({
    pkgi: pkgi('ReconcileFailed', { useful: 'kapp: Error: waiting on reconcile deployment/web: signal: terminated' }),
    app: app('ReconcileFailed', { deploy: { exitCode: 1, stderr: 'kapp: Error: signal: terminated', startedAt: '2026-01-01T10:00:06Z', updatedAt: '2026-01-01T10:00:21Z' } }),
  });
  const away = { from: Date.parse('2026-01-01T10:00:20Z'), what: 'pod kapp-controller/kapp-controller-a-1 was deleted' };

  test('its failure from an attempt begun before is not the verdict: pending, waiting for the next attempt', () => {
    const e = evaluate({ ...killed(), kappControllerOutages: [away] }, { version: DEV });
    expect(e.state).toBe('pending');
    expect(e.reason).toBe(
      `the failure of ${DEV} is from an attempt begun at 2026-01-01T10:00:05.000Z, before kapp-controller went away at 2026-01-01T10:00:20.000Z ` +
        '(pod kapp-controller/kapp-controller-a-1 was deleted); waiting for its next attempt (once kapp-controller is back); ' +
        "that attempt's usefulErrorMessage: kapp: Error: waiting on reconcile deployment/web: signal: terminated",
    );
    // Back, but the new pod has not tried again yet: still waiting.
    expect(evaluate({ ...killed(), kappControllerOutages: [{ ...away, to: Date.parse('2026-01-01T10:00:40Z') }] }, { version: DEV }).reason).toMatch(
      /waiting for its next attempt \(kapp-controller has been back since 2026-01-01T10:00:40\.000Z\)/,
    );
  });

  test('the same failure without an outage is the verdict (the old behaviour, right when kapp-controller stayed)', () => {
    expect(evaluate(killed(), { version: DEV }).state).toBe('reconcile-failed');
  });

  test('a failure of the attempt made once it is back is the verdict', () => {
    const s = killed();
    s.app.status.fetch.startedAt = '2026-01-01T10:00:45Z';
    s.app.status.deploy = { exitCode: 1, stderr: 'kapp: Error: configmap/Bad_Name', startedAt: '2026-01-01T10:00:46Z', updatedAt: '2026-01-01T10:00:47Z' };
    const e = evaluate({ ...s, kappControllerOutages: [{ ...away, to: Date.parse('2026-01-01T10:00:40Z') }] }, { version: DEV });
    expect(e.state).toBe('reconcile-failed');
    expect(e.reason).toMatch(/Bad_Name/);
  });
});

describe('kapp-controller\'s sidecarexec lost its child (waitid: no child processes)', () => {
  // kapp-controller v0.51.0's own race (src/verify/kapp-controller.ts): the attempt failed whatever
  // the package holds, and kapp-controller tries again after 2^n seconds.
  const RACE = 'Fetching resources: waitid: no child processes';
  const lost = (failures: number, version = '1.5.3'): { pkgi: KObject; app: KObject } => {
    const a = app('ReconcileFailed', { fetch: { exitCode: -1, error: RACE, startedAt: '2026-01-01T10:00:05Z' }, consecutiveReconcileFailures: failures, usefulErrorMessage: RACE });
    a.status.conditions[0].message = RACE;
    return { pkgi: pkgi('ReconcileFailed', { version, last: DEV, useful: RACE }), app: a };
  };

  test('the first such failure is not the verdict: pending, naming the race, the fix and the next attempt; a fault for the timeline', () => {
    const e = evaluate(lost(1), { version: DEV });
    expect(e.state).toBe('pending');
    expect(e.reason).toMatch(new RegExp(`^the attempt at ${DEV.replace(/\./g, '\\.')} failed, but not on the package: kapp-controller's fetch step failed with "${RACE}"`));
    expect(e.reason).toMatch(/carvel-dev\/kapp-controller#1806/);
    expect(e.reason).toMatch(/failed attempt 1 of at most 3 waited out, kapp-controller tries again in about 2s$/);
    expect(e.fault).toEqual({ key: 'fetch@1767261605000#1', message: expect.stringMatching(/^kapp-controller's fetch step failed/) });
    // Each failed attempt is its own fault (the timeline names each once).
    expect(evaluate(lost(2), { version: DEV }).fault?.key).toBe('fetch@1767261605000#2');
  });

  test('three in a row are waited out; the fourth is the verdict, saying it was kapp-controller\'s race every time', () => {
    expect(evaluate(lost(3), { version: DEV }).state).toBe('pending');
    const e = evaluate(lost(4), { version: DEV });
    expect(e.state).toBe('reconcile-failed');
    expect(e.fault).toBeUndefined();
    expect(e.reason).toMatch(/usefulErrorMessage: Fetching resources: waitid: no child processes/);
    expect(e.reason).toMatch(/not a fault of the package; it failed so 4 attempts in a row, so it is the verdict$/);
  });

  test('a re-reconcile of the installed dev version that loses the race still holds the dev version (the settle window waits for the next attempt)', () => {
    expect(evaluate(lost(1, DEV), { version: DEV })).toMatchObject({ state: 'pending', holdsDev: true });
    expect(evaluate(lost(1), { version: DEV }).holdsDev).toBe(false);
  });

  test('the same failure shape with the package\'s own error is the verdict at once', () => {
    const s = lost(1);
    s.app.status.fetch = { exitCode: 1, stderr: 'imgpkg: Error: Fetching image: GET https://reg/v2/: 404', startedAt: '2026-01-01T10:00:05Z' };
    s.app.status.conditions[0].message = 'Fetching resources: Error (see .status.usefulErrorMessage for details)';
    s.app.status.usefulErrorMessage = s.pkgi.status.usefulErrorMessage = 'imgpkg: Error: Fetching image: GET https://reg/v2/: 404';
    expect(evaluate(s, { version: DEV }).state).toBe('reconcile-failed');
  });
});

describe('the registry named when the fetch did not reach it, and registries known to be gone', () => {
  test('the registry container stopped while kapp-controller fetched: reconcile-failed naming the registry', () => {
    const err =
      "vendir: Error: Syncing directory '0':\n  Syncing directory '.' with imgpkgBundle contents:\n    Fetching image:\n" +
      '      Get "http://172.18.0.3:5000/v2/": dial tcp 172.18.0.3:5000: connect: no route to host';
    const e = evaluate({ pkgi: pkgi('ReconcileFailed', { useful: 'Fetching resources: Error (see .status.usefulErrorMessage for details)' }), app: app('ReconcileFailed', { fetch: { exitCode: 1, stderr: err } }) }, { version: DEV });
    expect(e.state).toBe('reconcile-failed');
    expect(e.reason).toMatch(/hint: kapp-controller could not reach the registry 172\.18\.0\.3:5000 \(http:\/\/172\.18\.0\.3:5000\/v2\/: connect: no route to host\): the registry is down/);
  });

  test('an image on projects.registry.vmware.com that never pulls: the image, the kubelet\'s reason and the hint', () => {
    const image = 'projects.registry.vmware.com/tce/web-app:1.0.1';
    const waiting = { reason: 'ImagePullBackOff', message: `Back-off pulling image "${image}": ErrImagePull: failed to resolve reference "${image}": dial tcp: lookup projects.registry.vmware.com: no such host` };
    const p = pod('web-1', '2026-01-01T10:00:12Z', waiting);
    p.spec = { containers: [{ name: 'main', image }] };
    const e = evaluate(
      {
        pkgi: pkgi('Reconciling'),
        app: app('Reconciling', { fetch: { exitCode: 0, stdout: LOCK(DIGEST) }, deploy: { startedAt: '2026-01-01T10:00:10Z', exitCode: 0, finished: false } }),
        pods: [p],
      },
      { version: DEV, digest: DIGEST },
    );
    expect(e.state).toBe('reconcile-failed');
    expect(e.reason).toContain(`pod ns/web-1 container main: ImagePullBackOff: Back-off pulling image "${image}"`);
    expect(e.reason).toContain(`\nhint: ${image} is on projects.registry.vmware.com, decommissioned by its owner in 2024`);
    expect(e.reason).toMatch(/tkg-custom-image-repository/);
  });
});
