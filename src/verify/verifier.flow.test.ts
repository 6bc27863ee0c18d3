/**
 * verifyPackageInstall end to end against a fake API server that plays kapp-controller's part by
 * hand: the settle window, a re-reconcile during it, a loss, and a time-out, with real timers.
 */
import { afterEach, describe, expect, test } from '@jest/globals';
import type { KubeConfig } from '@kubernetes/client-node';
import { app, DIGEST, FakeApiServer, PATHS, pkg, pkgi, sleep, startReleased } from '../../test/support/fake-apiserver.js';
import { verifyPackageInstall } from './verifier.js';

const DEV = '1.5.4-dev.1';

describe('verifyPackageInstall (fake API server)', () => {
  let fake: FakeApiServer;
  afterEach(async () => fake.stop());

  async function setup(): Promise<KubeConfig> {
    const started = await startReleased([pkg('1.5.3'), pkg(DEV)]);
    fake = started.fake;
    return started.kc;
  }

  /** verifyPackageInstall of ns/antrea; by default the dev version from the dev bundle is expected. */
  const verify = (kc: KubeConfig, o: { settleMs: number; timeoutMs: number; expect?: { version: string; digest?: string } }) =>
    verifyPackageInstall({ kc, target: { namespace: 'ns', name: 'antrea' }, expect: { version: DEV, digest: DIGEST }, ...o });

  /** Starts verifying against a fresh fake and waits until the verifier watches it; the test then plays kapp-controller. */
  async function watchedVerification(o: { settleMs: number; timeoutMs: number }): Promise<{ p: ReturnType<typeof verify> }> {
    const p = verify(await setup(), o);
    await fake.watching();
    return { p };
  }

  test('a win that holds through a re-reconcile in the settle window', async () => {
    const { p } = await watchedVerification({ settleMs: 1500, timeoutMs: 20_000 });
    fake.put(PATHS.pkgi, pkgi({ cond: 'Reconciling', version: DEV }));
    await sleep(100);
    fake.put(PATHS.pkgi, pkgi({ cond: 'ReconcileSucceeded', version: DEV }));
    await sleep(400);
    fake.put(PATHS.pkgi, pkgi({ gen: 2, cond: 'Reconciling', version: DEV })); // the addons manager re-patches
    await sleep(100);
    fake.put(PATHS.pkgi, pkgi({ gen: 2, cond: 'ReconcileSucceeded', version: DEV }));
    const out = await p;
    expect(out.verdict).toBe('won');
    expect(out.reason).toMatch(/held through the 2s settle window/);
    expect(Date.parse(out.decidedAt) - Date.parse(out.wonAt!)).toBeGreaterThanOrEqual(1500);
    expect(out.timeline.filter((t) => t.object === 'PackageInstall').map((t) => `${t.generation}:${t.condition}:${t.version}`)).toEqual([
      '1:ReconcileSucceeded:1.5.3',
      '1:Reconciling:1.5.4-dev.1',
      '1:ReconcileSucceeded:1.5.4-dev.1',
      '2:Reconciling:1.5.4-dev.1',
      '2:ReconcileSucceeded:1.5.4-dev.1',
    ]);
    expect(out.wonAt).toBeDefined();
  }, 30_000);

  test('lost: another version takes over during the settle window, and the writer is named', async () => {
    const { p } = await watchedVerification({ settleMs: 5000, timeoutMs: 20_000 });
    fake.put(PATHS.pkgi, pkgi({ cond: 'ReconcileSucceeded', version: DEV }));
    await sleep(300);
    fake.put(PATHS.pkgi, pkgi({ gen: 2, cond: 'ReconcileSucceeded', version: '1.5.3' }));
    const out = await p;
    expect(out.verdict).toBe('lost');
    expect(out.reason).toMatch(/won, then lost it after PackageInstall ns\/antrea changed \(generation 2, condition ReconcileSucceeded, status.version 1.5.3; last written by tanzu-addons-manager\) at \d{4}-/);
  }, 30_000);

  test('a list that is never answered does not hold the verdict past the time-out', async () => {
    const kc = await setup();
    fake.hold.add(`list ${PATHS.pkgs}`);
    fake.hold.add(`watch ${PATHS.pkgs}`);
    const out = await verify(kc, { expect: { version: DEV }, settleMs: 0, timeoutMs: 1000 });
    expect(out.verdict).toBe('timed-out');
    expect(out.reason).toMatch(/did not win within 1s; nothing was observed/);
  }, 30_000);

  test('the App settled on another bundle: decided then, not at the time-out', async () => {
    const kc = await setup();
    const other = `sha256:${'e'.repeat(64)}`;
    fake.items.set(PATHS.pkgi, [pkgi({ cond: 'ReconcileSucceeded', version: DEV })]);
    const fetch = [{ imgpkgBundle: { image: `r/antrea@${other}` } }];
    fake.items.set(PATHS.pkgs, [pkg('1.5.3'), { ...pkg(DEV), spec: { ...pkg(DEV).spec, template: { spec: { fetch } } } }]);
    fake.items.set(PATHS.app, [{ ...app(), spec: { fetch }, status: { ...app().status, fetch: { exitCode: 0, stdout: `image: r/antrea@${other}` } } }]);
    const out = await verify(kc, { settleMs: 0, timeoutMs: 60_000 });
    expect(out.verdict).toBe('not-selected');
    expect(out.reason).toMatch(`from bundle r/antrea@${other}, not the dev bundle ${DIGEST}`);
  }, 30_000);

  test('a win seen just before the time-out still gets its settle window', async () => {
    const kc = await setup();
    fake.items.set(PATHS.pkgi, [pkgi({ cond: 'ReconcileSucceeded', version: DEV })]);
    const out = await verify(kc, { settleMs: 1500, timeoutMs: 1000 });
    expect(out.verdict).toBe('won');
    expect(out.reason).toMatch(/held through the 2s settle window/);
  }, 30_000);

  test('a re-reconcile still in flight at the time-out: timed out, saying so', async () => {
    const { p } = await watchedVerification({ settleMs: 300, timeoutMs: 1500 });
    fake.put(PATHS.pkgi, pkgi({ cond: 'ReconcileSucceeded', version: DEV }));
    await sleep(100);
    fake.put(PATHS.pkgi, pkgi({ gen: 2, cond: 'Reconciling', version: DEV }));
    const out = await p;
    expect(out.verdict).toBe('timed-out');
    expect(out.reason).toMatch(/^won, but a re-reconcile in flight when the settle window ended had not finished at the 2s time-out; last state: /);
  }, 30_000);

  test('timed out: the reason carries the last state', async () => {
    const kc = await setup();
    const out = await verify(kc, { settleMs: 0, timeoutMs: 1000 });
    expect(out.verdict).toBe('timed-out');
    expect(out.reason).toMatch(/did not win within 1s; last state: kapp-controller has not switched to 1.5.4-dev.1 yet/);
  }, 30_000);
});
