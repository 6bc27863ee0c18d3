/**
 * verifyPackageInstall through issue 34's faults, against the fake API server: kapp-controller's
 * pod deleted in the middle of an attempt (whose failure must not be the verdict), and an API
 * server that stops answering with its watch connections left open (a paused node).
 */
import { afterEach, describe, expect, test } from '@jest/globals';
import type { KObject } from './kobject.js';
import { app, DIGEST, FakeApiServer, PATHS, pkg, pkgi, sleep, startReleased } from '../../test/support/fake-apiserver.js';
import { verifyPackageInstall } from './verifier.js';

const DEV = '1.5.4-dev.1';
const KAPP_PODS = '/api/v1/namespaces/kapp-controller/pods';
const iso = (ms: number): string => new Date(ms).toISOString();

/** Resolves once `pred` holds; fails the test (instead of hanging) when it never does. */
async function until(pred: () => boolean, what: string, ms = 20_000): Promise<void> {
  const t0 = Date.now();
  while (!pred()) {
    if (Date.now() - t0 > ms) throw new Error(`never happened: ${what}`);
    await sleep(20);
  }
}

function kappPod(name: string, o: { ready: boolean; deletedAt?: number }): KObject {
  return {
    metadata: { name, namespace: 'kapp-controller', ...(o.deletedAt ? { deletionTimestamp: iso(o.deletedAt + 30_000), deletionGracePeriodSeconds: 30 } : {}) },
    status: { phase: 'Running', conditions: [{ type: 'Ready', status: o.ready ? 'True' : 'False' }] },
  };
}

/** The App of ns/antrea in an attempt at the dev bundle begun at `startedAt`. */
function devApp(cond: string, startedAt: number, deploy?: Record<string, unknown>): KObject {
  const a = app(cond);
  a.status.fetch = { exitCode: 0, stdout: `image: r/antrea@${DIGEST}`, startedAt: iso(startedAt) };
  if (deploy) a.status.deploy = deploy;
  return a;
}

type Verifying = { p: ReturnType<typeof verifyPackageInstall>; logs: string[] };

/** verifyPackageInstall of ns/antrea at DEV (the dev bundle DIGEST) on a fake API server already set up. */
function verifying(started: Awaited<ReturnType<typeof startReleased>>, o: Partial<Parameters<typeof verifyPackageInstall>[0]>): Verifying {
  const logs: string[] = [];
  const p = verifyPackageInstall({
    kc: started.kc,
    target: { namespace: 'ns', name: 'antrea' },
    expect: { version: DEV, digest: DIGEST },
    settleMs: 0,
    timeoutMs: 30_000,
    kappControllerNamespaces: ['kapp-controller'],
    log: (m) => logs.push(m),
    ...o,
  });
  return { p, logs };
}

describe('verifyPackageInstall through faults (fake API server)', () => {
  let fake: FakeApiServer;
  afterEach(async () => fake.stop());

  test('kapp-controller\'s pod deleted during the attempt: its ReconcileFailed is not the verdict; the next attempt wins; the timeline says so', async () => {
    const started = await startReleased([pkg('1.5.3'), pkg(DEV)]);
    fake = started.fake;
    fake.items.set(KAPP_PODS, [kappPod('kapp-controller-a-1', { ready: true })]);
    const { p, logs } = verifying(started, { settleMs: 300 });
    await fake.watching(KAPP_PODS);
    const attempt = Date.now() - 5000;
    fake.put(PATHS.app, devApp('Reconciling', attempt, { startedAt: iso(attempt + 1000) }));
    fake.put(PATHS.pkgi, pkgi({ cond: 'Reconciling', version: DEV }));
    await sleep(100);
    // The pod is deleted; its replacement starts.
    const deleted = Date.now();
    fake.put(KAPP_PODS, kappPod('kapp-controller-a-1', { ready: false, deletedAt: deleted }));
    fake.put(KAPP_PODS, kappPod('kapp-controller-a-2', { ready: false }));
    await sleep(100);
    // The dying process writes its interrupted attempt's failure.
    const killed = 'kapp: Error: waiting on reconcile deployment/web (apps/v1) namespace: web: signal: terminated';
    fake.put(PATHS.app, devApp('ReconcileFailed', attempt, { exitCode: 1, stderr: killed, startedAt: iso(attempt + 1000), updatedAt: iso(deleted + 500) }));
    fake.put(PATHS.pkgi, { ...pkgi({ cond: 'ReconcileFailed', version: '1.5.3', last: DEV }), status: { ...pkgi({ cond: 'ReconcileFailed', version: '1.5.3', last: DEV }).status, usefulErrorMessage: killed } });
    await sleep(300);
    fake.remove(KAPP_PODS, 'kapp-controller-a-1');
    fake.put(KAPP_PODS, kappPod('kapp-controller-a-2', { ready: true }));
    await sleep(100);
    // The new kapp-controller tries again, and succeeds.
    const again = Date.now();
    fake.put(PATHS.app, devApp('Reconciling', again, { startedAt: iso(again) }));
    fake.put(PATHS.pkgi, pkgi({ cond: 'Reconciling', version: DEV }));
    await sleep(100);
    fake.put(PATHS.app, devApp('ReconcileSucceeded', again, { exitCode: 0, startedAt: iso(again), updatedAt: iso(again + 10) }));
    fake.put(PATHS.pkgi, pkgi({ cond: 'ReconcileSucceeded', version: DEV }));
    const out = await p;
    expect([out.verdict, out.reason]).toEqual(['won', expect.stringMatching(/held through the 0s settle window/)]);
    const notes = out.timeline.filter((t) => t.object === 'kapp-controller').map((t) => t.message);
    expect(notes).toEqual([
      `pod kapp-controller/kapp-controller-a-1 was deleted (at ${iso(deleted)}); kapp-controller has no ready pod: nothing reconciles until it is back, devpkg waits`,
      expect.stringMatching(new RegExp(`^back: pod kapp-controller/kapp-controller-a-2 ready; kapp-controller was away from ${iso(deleted).replace(/\./g, '\\.')} to `)),
    ]);
    // The dying pod's failure was seen, and waited past.
    expect(out.timeline.some((t) => t.object === 'PackageInstall' && t.condition === 'ReconcileFailed')).toBe(true);
    expect(logs.some((l) => l.includes('kapp-controller: pod kapp-controller/kapp-controller-a-1 was deleted'))).toBe(true);
  }, 60_000);

  test('kapp-controller\'s sidecarexec loses its vendir (waitid: no child processes): not the verdict; its retry wins; the timeline names the race once', async () => {
    const started = await startReleased([pkg('1.5.3'), pkg(DEV)]);
    fake = started.fake;
    const { p, logs } = verifying(started, {});
    await fake.watching(PATHS.app);
    // As kapp-controller v0.51.0 writes the lost child: the fetch's error, exit -1, no stdout.
    const race = 'Fetching resources: waitid: no child processes';
    const attempt = Date.now();
    const failed = devApp('ReconcileFailed', attempt);
    failed.status.fetch = { exitCode: -1, error: race, startedAt: iso(attempt), updatedAt: iso(attempt + 300) };
    failed.status.conditions[0].message = race;
    failed.status.usefulErrorMessage = race;
    failed.status.consecutiveReconcileFailures = 1;
    fake.put(PATHS.app, failed);
    const pkgiFailed = pkgi({ cond: 'ReconcileFailed', version: '1.5.3', last: DEV });
    pkgiFailed.status.usefulErrorMessage = race;
    fake.put(PATHS.pkgi, pkgiFailed);
    await until(() => logs.some((l) => l.includes('waitid: no child processes')), 'the race logged');
    // The same status written again (a resync) is the same attempt: named once.
    fake.put(PATHS.app, { ...failed, metadata: { ...failed.metadata, annotations: { resync: '1' } } });
    await sleep(200);
    // Two seconds later kapp-controller tries again, and succeeds.
    const again = Date.now();
    fake.put(PATHS.app, devApp('Reconciling', again));
    fake.put(PATHS.pkgi, pkgi({ cond: 'Reconciling', version: DEV }));
    await sleep(100);
    fake.put(PATHS.app, devApp('ReconcileSucceeded', again));
    fake.put(PATHS.pkgi, pkgi({ cond: 'ReconcileSucceeded', version: DEV }));
    const out = await p;
    expect(out.verdict).toBe('won');
    const notes = out.timeline.filter((t) => t.object === 'kapp-controller').map((t) => t.message);
    expect(notes).toEqual([expect.stringMatching(/^kapp-controller's fetch step failed with "Fetching resources: waitid: no child processes": .*#1806.*failed attempt 1 of at most 3 waited out/)]);
    expect(out.timeline.some((t) => t.object === 'PackageInstall' && t.condition === 'ReconcileFailed')).toBe(true);
  }, 60_000);

  test('kapp-controller away at the time-out: timed-out, saying since when', async () => {
    const started = await startReleased([pkg('1.5.3'), pkg(DEV)]);
    fake = started.fake;
    fake.items.set(KAPP_PODS, [kappPod('kapp-controller-a-1', { ready: true })]);
    const p = verifyPackageInstall({ kc: started.kc, target: { namespace: 'ns', name: 'antrea' }, expect: { version: DEV }, settleMs: 0, timeoutMs: 2000, kappControllerNamespaces: ['kapp-controller'] });
    await fake.watching(KAPP_PODS);
    const deleted = Date.now();
    fake.put(KAPP_PODS, kappPod('kapp-controller-a-1', { ready: false, deletedAt: deleted }));
    const out = await p;
    expect(out.verdict).toBe('timed-out');
    expect(out.reason).toContain(`; kapp-controller has had no ready pod since ${iso(deleted)} (pod kapp-controller/kapp-controller-a-1 was deleted)`);
  }, 30_000);

  test('the API server stops answering with the watches left open: the gap is named, the watches reopened from their last resourceVersion, the verdict still right', async () => {
    const started = await startReleased([pkg('1.5.3'), pkg(DEV)]);
    fake = started.fake;
    const { p, logs } = verifying(started, { settleMs: 200, kappControllerNamespaces: [], liveness: { silenceMs: 200, probeTimeoutMs: 300, retryMs: 50 } });
    await fake.watching();
    fake.put(PATHS.pkgi, pkgi({ cond: 'Reconciling', version: DEV }));
    const rv = fake.rv;
    await sleep(100);
    fake.pause();
    await until(() => logs.some((l) => l.includes('the API server has not answered since')), 'the verifier saw the API server stop answering');
    const before = fake.requests.length;
    fake.resume();
    // Reopened from the last resourceVersion seen, not listed again.
    await until(() => fake.requests.slice(before).some((r) => r.startsWith(`${PATHS.pkgi}?`) && r.includes('watch=true')), 'the PackageInstall watch reopened');
    const reopened = fake.requests.slice(before).filter((r) => r.startsWith(`${PATHS.pkgi}?`));
    expect(reopened).toEqual([expect.stringContaining(`resourceVersion=${rv}`)]);
    fake.put(PATHS.pkgi, pkgi({ cond: 'ReconcileSucceeded', version: DEV }));
    const out = await p;
    expect(out.verdict).toBe('won');
    const gaps = out.timeline.filter((t) => t.object === 'API server').map((t) => t.message);
    expect(gaps).toEqual([
      expect.stringMatching(/^not answering from \d{4}-\S+Z to \d{4}-\S+Z \(GET \/readyz: no answer within 300ms\); the watches were reopened from their last resourceVersion$/),
    ]);
  }, 60_000);
});
