/**
 * The verifier's lifecycle against a fake API server: a signal (interrupted), objects deleted or
 * applied by someone else while it watches, a cluster that never answers, and requests still in
 * flight when the verdict is given (they must not hold the process).
 */
import { afterEach, describe, expect, test } from '@jest/globals';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { KubeConfig } from '@kubernetes/client-node';
import { DIGEST, FakeApiServer, kubeConfig, PATHS, pkg, pkgi, sleep, startReleased } from '../../test/support/fake-apiserver.js';
import { verifyPackageInstall } from './verifier.js';
import { verifyOne } from './index.js';

const DEV = '1.5.4-dev.1';
const target = { namespace: 'ns', name: 'antrea' };
const expectDev = { version: DEV, digest: DIGEST };

describe('verifier lifecycle (fake API server)', () => {
  let fake: FakeApiServer | undefined;
  afterEach(async () => {
    await fake?.stop();
    fake = undefined;
  });

  async function setup(): Promise<KubeConfig> {
    // The released Package was applied by devpkg too (the kind mode's baseline): not another run.
    const started = await startReleased([pkg('1.5.3', 'devpkg'), pkg(DEV, 'devpkg')]);
    fake = started.fake;
    return started.kc;
  }

  /** Starts a verification with a 60s settle window and lets the dev version win: the window is running. */
  async function wonAndSettling(): Promise<{ p: ReturnType<typeof verifyPackageInstall> }> {
    const kc = await setup();
    const p = verifyPackageInstall({ kc, target, expect: expectDev, settleMs: 60_000, timeoutMs: 120_000 });
    await fake!.watching();
    fake!.put(PATHS.pkgi, pkgi({ cond: 'ReconcileSucceeded', version: DEV }));
    await sleep(300); // the watch delivers the win
    return { p };
  }

  test('a signal during the settle window: interrupted, with where it was, the last state and what stays applied', async () => {
    const kc = await setup();
    const ctl = new AbortController();
    const p = verifyOne(
      { base: { name: 'antrea', version: '1.5.3', refName: '', targetRefName: '', devVersion: DEV, mode: 'cluster' }, target, expect: expectDev, applied: [{ namespace: 'ns', name: `antrea.tanzu.vmware.com.${DEV}` }] },
      { kc, settleMs: 60_000, timeoutMs: 120_000, signal: ctl.signal },
    );
    await fake!.watching();
    fake!.put(PATHS.pkgi, pkgi({ cond: 'ReconcileSucceeded', version: DEV }));
    while (!fake!.items.get(PATHS.pkgi)) await sleep(10);
    await sleep(300); // the watch delivers the win; the settle window (60s) is running
    ctl.abort('SIGTERM');
    const r = await p;
    expect(r.verdict).toBe('interrupted');
    expect(r.reason).toBe(
      'interrupted by SIGTERM during the settle window (the dev version had won; whether it holds was not seen through); ' +
        `last state: ${r.reason.match(/last state: (.*?)\. devpkg had applied/)![1]}. ` +
        `devpkg had applied the dev Package ns/antrea.tanzu.vmware.com.${DEV}; it stays applied ` +
        `(to undo: kubectl delete packages.data.packaging.carvel.dev -n ns antrea.tanzu.vmware.com.${DEV})`,
    );
    expect(r.reason).toMatch(/last state: .*1\.5\.4-dev\.1/);
  }, 30_000);

  test('a signal that came before the wait started: interrupted at once, nothing observed', async () => {
    const kc = await setup();
    const ctl = new AbortController();
    ctl.abort('SIGINT');
    const out = await verifyPackageInstall({ kc, target, expect: expectDev, settleMs: 1000, timeoutMs: 60_000, signal: ctl.signal });
    expect(out.verdict).toBe('interrupted');
    expect(out.reason).toBe('interrupted by SIGINT while waiting for the dev version to win; nothing was observed');
  }, 30_000);

  test('the dev Package deleted during the settle window: lost, the deletion named, and how to recover', async () => {
    const { p } = await wonAndSettling();
    fake!.remove(PATHS.pkgs, `antrea.tanzu.vmware.com.${DEV}`);
    await sleep(100);
    // kapp-controller wants to go back to 1.5.3 and its downgrade guard refuses.
    fake!.put(PATHS.pkgi, {
      ...pkgi({ gen: 1, cond: 'ReconcileFailed', version: DEV, last: DEV }),
      status: { ...pkgi({ cond: 'ReconcileFailed', version: DEV }).status, usefulErrorMessage: `Stopped installing matched version '1.5.3' since last attempted version '${DEV}' is higher.` },
    });
    const out = await p;
    expect(out.verdict).toBe('lost');
    expect(out.reason).toMatch(/^the dev version won, then lost it after PackageInstall ns\/antrea changed .*Stopped installing matched version '1\.5\.3'/s);
    expect(out.reason).toMatch(
      new RegExp(`; while devpkg watched: the dev Package ns/antrea\\.tanzu\\.vmware\\.com\\.1\\.5\\.4-dev\\.1 was deleted \\(the API does not record who deletes; it was last written by devpkg\\) at \\d{4}-`),
    );
    expect(out.reason).toContain(
      'kapp-controller will not go back to a lower version by itself (downgrade guard). To recover: run devpkg dev again (it plans a higher dev version), ' +
        'or allow the downgrade with kubectl annotate packageinstall -n ns antrea packaging.carvel.dev/downgradable="", ' +
        'or delete PackageInstall ns/antrea so that its owner (e.g. the addons manager) recreates it',
    );
    expect(out.timeline).toContainEqual(expect.objectContaining({ object: `Package antrea.tanzu.vmware.com.${DEV}`, message: 'deleted' }));
    expect(out.reason).not.toContain('another devpkg run');
  }, 30_000);

  test('the PackageInstall deleted during the settle window: lost, and the deletion is what the verdict names', async () => {
    const { p } = await wonAndSettling();
    fake!.remove(PATHS.pkgi, 'antrea');
    const out = await p;
    expect(out.verdict).toBe('lost');
    expect(out.reason).toMatch(
      /^the dev version won, then lost it after PackageInstall ns\/antrea was deleted \(the API does not record who deletes; it was last written by tanzu-addons-manager\) at \d{4}-/,
    );
    expect(out.reason).not.toContain('To recover');
  }, 30_000);

  test('another devpkg run applies a higher dev Package during the settle window: lost, and the other run is named', async () => {
    const { p } = await wonAndSettling();
    fake!.put(PATHS.pkgs, pkg('1.5.4-dev.2', 'devpkg'));
    await sleep(100);
    fake!.put(PATHS.pkgi, pkgi({ gen: 1, cond: 'Reconciling', version: '1.5.4-dev.2' }));
    const out = await p;
    expect(out.verdict).toBe('lost');
    expect(out.reason).toMatch(/; while devpkg watched: another devpkg run applied Package ns\/antrea\.tanzu\.vmware\.com\.1\.5\.4-dev\.2 \(version 1\.5\.4-dev\.2\) at \d{4}-/);
    expect(out.reason).not.toContain('To recover');
  }, 30_000);

  test('a cluster that does not answer at all: error at once, naming the server and the connection error', async () => {
    // A port that was just free: nothing listens there.
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const port = (probe.address() as AddressInfo).port;
    await new Promise((r) => probe.close(r));
    const kc = await kubeConfig(`http://127.0.0.1:${port}`);
    const out = await verifyPackageInstall({ kc, target, expect: expectDev, settleMs: 0, timeoutMs: 600_000 });
    expect(out.verdict).toBe('error');
    expect(out.reason).toMatch(new RegExp(`^cannot reach the cluster at http://127\\.0\\.0\\.1:${port}: .*ECONNREFUSED.*; nothing was observed \\(check the kubeconfig`));
  }, 30_000);

  test('a list the server never answers does not hold the verdict back', async () => {
    const kc = await setup();
    fake!.hold.add(`list ${PATHS.pkgi}`);
    const out = await verifyPackageInstall({ kc, target, expect: expectDev, settleMs: 0, timeoutMs: 1000 });
    expect(out.verdict).toBe('timed-out');
    // The request is still open on the server: the verdict did not wait for it.
    const { res } = await fake!.heldRequest(`list ${PATHS.pkgi}`);
    expect(res.writableEnded).toBe(false);
  }, 30_000);

  test('diagnostics from an API server that stopped answering do not hold the verdict back', async () => {
    const kc = await setup();
    fake!.hold.add('list /api/v1/namespaces/ns/events');
    const logs: string[] = [];
    const dir = await import('node:fs/promises').then((fs) => fs.mkdtemp(`${(process.env.TMPDIR ?? '/tmp').replace(/\/$/, '')}/devpkg-diag-`));
    try {
      const r = await verifyOne(
        { base: { name: 'antrea', version: '1.5.3', refName: '', targetRefName: '', devVersion: DEV, mode: 'cluster' }, target, expect: expectDev },
        { kc, settleMs: 0, timeoutMs: 500, diagnosticsDir: dir, diagnosticsDeadlineMs: 500, log: (m) => logs.push(m) },
      );
      expect(r.verdict).toBe('timed-out');
      expect(r.diagnostics).toBeUndefined();
      expect(logs).toContain('ns/antrea: could not collect diagnostics: the cluster did not answer within 0.5s; what was collected by then is in the folder');
      await fake!.heldRequest('list /api/v1/namespaces/ns/events');
    } finally {
      await import('node:fs/promises').then((fs) => fs.rm(dir, { recursive: true, force: true }));
    }
  }, 30_000);

  test('a watch connection that opens only after the verdict is closed at once, not left to the server', async () => {
    const kc = await setup();
    fake!.hold.add(`watch ${PATHS.pkgi}`);
    const out = await verifyPackageInstall({ kc, target, expect: expectDev, settleMs: 0, timeoutMs: 1000 });
    expect(out.verdict).toBe('timed-out');
    const { req, res } = await fake!.heldRequest(`watch ${PATHS.pkgi}`);
    const closed = new Promise<void>((r) => req.socket.once('close', () => r()));
    // Now the server answers the watch: devpkg, done already, must hang up.
    res.writeHead(200, { 'content-type': 'application/json' });
    res.flushHeaders();
    await closed;
    expect(req.socket.destroyed).toBe(true);
  }, 30_000);
});
