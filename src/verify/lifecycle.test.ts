/**
 * The verifier's lifecycle against a fake API server: a signal (interrupted), objects deleted or
 * applied by someone else while it watches, a cluster that never answers, and requests still in
 * flight when the verdict is given (they must not hold the process).
 */
import { afterEach, describe, expect, test } from '@jest/globals';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { KObject } from './evaluate.js';
import { verifyPackageInstall } from './verifier.js';
import { verifyOne } from './index.js';

const DIGEST = `sha256:${'d'.repeat(64)}`;
const DEV = '1.5.4-dev.1';
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
  /** Requests answered only when the test says so (path -> held responses). */
  held = new Map<string, Array<{ req: IncomingMessage; res: ServerResponse }>>();
  hold = new Set<string>();
  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      const key = `${url.searchParams.get('watch') === 'true' ? 'watch' : 'list'} ${url.pathname}`;
      if (this.hold.has(key)) {
        this.held.set(key, [...(this.held.get(key) ?? []), { req, res }]);
        return;
      }
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
  private send(path: string, type: string, o: KObject): void {
    for (const w of this.watchers.get(path) ?? []) w.write(`${JSON.stringify({ type, object: o })}\n`);
  }
  put(path: string, o: KObject): void {
    this.rv++;
    o.metadata = { ...o.metadata, resourceVersion: String(this.rv) };
    const others = (this.items.get(path) ?? []).filter((x) => x.metadata?.name !== o.metadata?.name);
    this.items.set(path, [...others, o]);
    this.send(path, 'MODIFIED', o);
  }
  remove(path: string, name: string): void {
    this.rv++;
    const o = (this.items.get(path) ?? []).find((x) => x.metadata?.name === name)!;
    this.items.set(path, (this.items.get(path) ?? []).filter((x) => x !== o));
    this.send(path, 'DELETED', { ...o, metadata: { ...o.metadata, resourceVersion: String(this.rv) } });
  }
  async watching(): Promise<void> {
    while (!Object.values(PATHS).every((p) => (this.watchers.get(p) ?? []).length > 0)) await sleep(20);
  }
  async heldRequest(key: string): Promise<{ req: IncomingMessage; res: ServerResponse }> {
    while (!(this.held.get(key) ?? []).length) await sleep(20);
    return this.held.get(key)![0]!;
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
const app = (): KObject => ({
  metadata: { name: 'antrea', namespace: 'ns', generation: 1 },
  status: { observedGeneration: 1, conditions: [{ type: 'ReconcileSucceeded', status: 'True' }], fetch: { exitCode: 0, stdout: `image: r/antrea@${DIGEST}` } },
});
const pkg = (v: string, manager = 'kapp-controller'): KObject => ({
  metadata: { name: `antrea.tanzu.vmware.com.${v}`, namespace: 'ns', managedFields: [{ manager, time: '2026-01-01T00:00:00Z' }] },
  spec: { refName: 'antrea.tanzu.vmware.com', version: v },
});

async function kubeConfig(server: string) {
  const k8s = await import('@kubernetes/client-node');
  const kc = new k8s.KubeConfig();
  kc.loadFromOptions({ clusters: [{ name: 'f', server, skipTLSVerify: true }], users: [{ name: 'u' }], contexts: [{ name: 'c', cluster: 'f', user: 'u' }], currentContext: 'c' });
  return kc;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const target = { namespace: 'ns', name: 'antrea' };
const expectDev = { version: DEV, digest: DIGEST };

describe('verifier lifecycle (fake API server)', () => {
  let fake: Fake | undefined;
  afterEach(async () => {
    await fake?.stop();
    fake = undefined;
  });

  async function setup(): Promise<Awaited<ReturnType<typeof kubeConfig>>> {
    fake = new Fake();
    const server = await fake.start();
    // The released Package was applied by devpkg too (the kind mode's baseline): not another run.
    fake.items.set(PATHS.pkgs, [pkg('1.5.3', 'devpkg'), pkg(DEV, 'devpkg')]);
    fake.items.set(PATHS.app, [app()]);
    fake.items.set(PATHS.pkgi, [pkgi({ cond: 'ReconcileSucceeded', version: '1.5.3' })]);
    return kubeConfig(server);
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
    const kc = await setup();
    const p = verifyPackageInstall({ kc, target, expect: expectDev, settleMs: 60_000, timeoutMs: 120_000 });
    await fake!.watching();
    fake!.put(PATHS.pkgi, pkgi({ cond: 'ReconcileSucceeded', version: DEV }));
    await sleep(300);
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
    const kc = await setup();
    const p = verifyPackageInstall({ kc, target, expect: expectDev, settleMs: 60_000, timeoutMs: 120_000 });
    await fake!.watching();
    fake!.put(PATHS.pkgi, pkgi({ cond: 'ReconcileSucceeded', version: DEV }));
    await sleep(300);
    fake!.remove(PATHS.pkgi, 'antrea');
    const out = await p;
    expect(out.verdict).toBe('lost');
    expect(out.reason).toMatch(
      /^the dev version won, then lost it after PackageInstall ns\/antrea was deleted \(the API does not record who deletes; it was last written by tanzu-addons-manager\) at \d{4}-/,
    );
    expect(out.reason).not.toContain('To recover');
  }, 30_000);

  test('another devpkg run applies a higher dev Package during the settle window: lost, and the other run is named', async () => {
    const kc = await setup();
    const p = verifyPackageInstall({ kc, target, expect: expectDev, settleMs: 60_000, timeoutMs: 120_000 });
    await fake!.watching();
    fake!.put(PATHS.pkgi, pkgi({ cond: 'ReconcileSucceeded', version: DEV }));
    await sleep(300);
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
