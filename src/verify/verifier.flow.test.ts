/**
 * verifyPackageInstall end to end against a fake API server that plays kapp-controller's part by
 * hand: the settle window, a re-reconcile during it, a loss, and a time-out, with real timers.
 */
import { afterEach, describe, expect, test } from '@jest/globals';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { KObject } from './evaluate.js';
import { verifyPackageInstall } from './verifier.js';

const DIGEST = `sha256:${'d'.repeat(64)}`;
const PATHS = {
  pkgi: '/apis/packaging.carvel.dev/v1alpha1/namespaces/ns/packageinstalls',
  app: '/apis/kappctrl.k14s.io/v1alpha1/namespaces/ns/apps',
  pkgs: '/apis/data.packaging.carvel.dev/v1alpha1/namespaces/ns/packages',
};

class Fake {
  server!: Server;
  rv = 10;
  items = new Map<string, KObject[]>();
  watchers = new Map<string, ServerResponse[]>();
  /** Collections whose list request is accepted and never answered. */
  hang = new Set<string>();
  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      if (this.hang.has(url.pathname)) return;
      if (url.searchParams.get('watch') === 'true') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.flushHeaders();
        this.watchers.set(url.pathname, [...(this.watchers.get(url.pathname) ?? []), res]);
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ metadata: { resourceVersion: String(this.rv) }, items: this.items.get(url.pathname) ?? [] }));
    });
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }
  /** Replaces the object and tells the watchers. */
  put(path: string, o: KObject): void {
    this.rv++;
    o.metadata = { ...o.metadata, resourceVersion: String(this.rv) };
    this.items.set(path, [o]);
    for (const w of this.watchers.get(path) ?? []) w.write(`${JSON.stringify({ type: 'MODIFIED', object: o })}\n`);
  }
  /** Resolves once all three collections are being watched. */
  async watching(): Promise<void> {
    while (!Object.values(PATHS).every((p) => (this.watchers.get(p) ?? []).length > 0)) await sleep(20);
  }
  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((r) => this.server.close(r));
  }
}

function pkgi(o: { gen?: number; cond: string; version: string; last?: string }): KObject {
  return {
    metadata: { name: 'antrea', namespace: 'ns', generation: o.gen ?? 1, managedFields: [{ manager: 'tanzu-addons-manager', time: '2026-01-01T00:00:00Z' }] },
    spec: { packageRef: { refName: 'antrea.tanzu.vmware.com', versionSelection: { prereleases: {} } } },
    status: { observedGeneration: o.gen ?? 1, conditions: [{ type: o.cond, status: 'True' }], version: o.version, lastAttemptedVersion: o.last ?? o.version },
  };
}
const app = (cond = 'ReconcileSucceeded'): KObject => ({
  metadata: { name: 'antrea', namespace: 'ns', generation: 1 },
  status: { observedGeneration: 1, conditions: [{ type: cond, status: 'True' }], fetch: { exitCode: 0, stdout: `image: r/antrea@${DIGEST}` } },
});
const pkg = (v: string): KObject => ({ metadata: { name: `antrea.tanzu.vmware.com.${v}`, namespace: 'ns' }, spec: { refName: 'antrea.tanzu.vmware.com', version: v } });

async function kubeConfig(server: string) {
  const k8s = await import('@kubernetes/client-node');
  const kc = new k8s.KubeConfig();
  kc.loadFromOptions({ clusters: [{ name: 'f', server, skipTLSVerify: true }], users: [{ name: 'u' }], contexts: [{ name: 'c', cluster: 'f', user: 'u' }], currentContext: 'c' });
  return kc;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('verifyPackageInstall (fake API server)', () => {
  let fake: Fake;
  afterEach(async () => fake.stop());

  async function setup(): Promise<Awaited<ReturnType<typeof kubeConfig>>> {
    fake = new Fake();
    const server = await fake.start();
    fake.items.set(PATHS.pkgs, [pkg('1.5.3'), pkg('1.5.4-dev.1')]);
    fake.items.set(PATHS.app, [app()]);
    fake.items.set(PATHS.pkgi, [pkgi({ cond: 'ReconcileSucceeded', version: '1.5.3' })]);
    return kubeConfig(server);
  }

  test('a win that holds through a re-reconcile in the settle window', async () => {
    const kc = await setup();
    const p = verifyPackageInstall({ kc, target: { namespace: 'ns', name: 'antrea' }, expect: { version: '1.5.4-dev.1', digest: DIGEST }, settleMs: 1500, timeoutMs: 20_000 });
    await fake.watching();
    fake.put(PATHS.pkgi, pkgi({ cond: 'Reconciling', version: '1.5.4-dev.1' }));
    await sleep(100);
    fake.put(PATHS.pkgi, pkgi({ cond: 'ReconcileSucceeded', version: '1.5.4-dev.1' }));
    await sleep(400);
    fake.put(PATHS.pkgi, pkgi({ gen: 2, cond: 'Reconciling', version: '1.5.4-dev.1' })); // the addons manager re-patches
    await sleep(100);
    fake.put(PATHS.pkgi, pkgi({ gen: 2, cond: 'ReconcileSucceeded', version: '1.5.4-dev.1' }));
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
    const kc = await setup();
    const p = verifyPackageInstall({ kc, target: { namespace: 'ns', name: 'antrea' }, expect: { version: '1.5.4-dev.1', digest: DIGEST }, settleMs: 5000, timeoutMs: 20_000 });
    await fake.watching();
    fake.put(PATHS.pkgi, pkgi({ cond: 'ReconcileSucceeded', version: '1.5.4-dev.1' }));
    await sleep(300);
    fake.put(PATHS.pkgi, pkgi({ gen: 2, cond: 'ReconcileSucceeded', version: '1.5.3' }));
    const out = await p;
    expect(out.verdict).toBe('lost');
    expect(out.reason).toMatch(/won, then lost it after PackageInstall ns\/antrea changed \(generation 2, condition ReconcileSucceeded, status.version 1.5.3; last written by tanzu-addons-manager\) at \d{4}-/);
  }, 30_000);

  test('a list that is never answered does not hold the verdict past the time-out', async () => {
    const kc = await setup();
    fake.hang.add(PATHS.pkgs);
    const out = await verifyPackageInstall({ kc, target: { namespace: 'ns', name: 'antrea' }, expect: { version: '1.5.4-dev.1' }, settleMs: 0, timeoutMs: 1000 });
    expect(out.verdict).toBe('timed-out');
    expect(out.reason).toMatch(/did not win within 1s; nothing was observed/);
  }, 30_000);

  test('the App settled on another bundle: decided then, not at the time-out', async () => {
    const kc = await setup();
    const other = `sha256:${'e'.repeat(64)}`;
    fake.items.set(PATHS.pkgi, [pkgi({ cond: 'ReconcileSucceeded', version: '1.5.4-dev.1' })]);
    const fetch = [{ imgpkgBundle: { image: `r/antrea@${other}` } }];
    fake.items.set(PATHS.pkgs, [pkg('1.5.3'), { ...pkg('1.5.4-dev.1'), spec: { ...pkg('1.5.4-dev.1').spec, template: { spec: { fetch } } } }]);
    fake.items.set(PATHS.app, [{ ...app(), spec: { fetch }, status: { ...app().status, fetch: { exitCode: 0, stdout: `image: r/antrea@${other}` } } }]);
    const out = await verifyPackageInstall({ kc, target: { namespace: 'ns', name: 'antrea' }, expect: { version: '1.5.4-dev.1', digest: DIGEST }, settleMs: 0, timeoutMs: 60_000 });
    expect(out.verdict).toBe('not-selected');
    expect(out.reason).toMatch(`from bundle r/antrea@${other}, not the dev bundle ${DIGEST}`);
  }, 30_000);

  test('a win seen just before the time-out still gets its settle window', async () => {
    const kc = await setup();
    fake.items.set(PATHS.pkgi, [pkgi({ cond: 'ReconcileSucceeded', version: '1.5.4-dev.1' })]);
    const out = await verifyPackageInstall({ kc, target: { namespace: 'ns', name: 'antrea' }, expect: { version: '1.5.4-dev.1', digest: DIGEST }, settleMs: 1500, timeoutMs: 1000 });
    expect(out.verdict).toBe('won');
    expect(out.reason).toMatch(/held through the 2s settle window/);
  }, 30_000);

  test('a re-reconcile still in flight at the time-out: timed out, saying so', async () => {
    const kc = await setup();
    const p = verifyPackageInstall({ kc, target: { namespace: 'ns', name: 'antrea' }, expect: { version: '1.5.4-dev.1', digest: DIGEST }, settleMs: 300, timeoutMs: 1500 });
    await fake.watching();
    fake.put(PATHS.pkgi, pkgi({ cond: 'ReconcileSucceeded', version: '1.5.4-dev.1' }));
    await sleep(100);
    fake.put(PATHS.pkgi, pkgi({ gen: 2, cond: 'Reconciling', version: '1.5.4-dev.1' }));
    const out = await p;
    expect(out.verdict).toBe('timed-out');
    expect(out.reason).toMatch(/^won, but a re-reconcile in flight when the settle window ended had not finished at the 2s time-out; last state: /);
  }, 30_000);

  test('timed out: the reason carries the last state', async () => {
    const kc = await setup();
    const out = await verifyPackageInstall({ kc, target: { namespace: 'ns', name: 'antrea' }, expect: { version: '1.5.4-dev.1', digest: DIGEST }, settleMs: 0, timeoutMs: 1000 });
    expect(out.verdict).toBe('timed-out');
    expect(out.reason).toMatch(/did not win within 1s; last state: kapp-controller has not switched to 1.5.4-dev.1 yet/);
  }, 30_000);
});
