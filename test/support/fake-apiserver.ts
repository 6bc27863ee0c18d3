/**
 * A fake Kubernetes API server for the verifier's tests: lists and watches of the three
 * collections the verifier reads (PackageInstalls, Apps, Packages in namespace ns), objects put
 * and removed by the test as kapp-controller (or someone else) would, and requests held open
 * until the test answers them. Plus the objects those tests start from.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { KubeConfig } from '@kubernetes/client-node';
import type { KObject } from '../../src/verify/evaluate.js';

export const DIGEST = `sha256:${'d'.repeat(64)}`;

export const PATHS = {
  pkgi: '/apis/packaging.carvel.dev/v1alpha1/namespaces/ns/packageinstalls',
  app: '/apis/kappctrl.k14s.io/v1alpha1/namespaces/ns/apps',
  pkgs: '/apis/data.packaging.carvel.dev/v1alpha1/namespaces/ns/packages',
};

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class FakeApiServer {
  server!: Server;
  rv = 10;
  items = new Map<string, KObject[]>();
  watchers = new Map<string, ServerResponse[]>();
  /** Requests answered only when the test says so ("list PATH" or "watch PATH" -> held requests). */
  held = new Map<string, Array<{ req: IncomingMessage; res: ServerResponse }>>();
  /** Which requests to hold: "list PATH" or "watch PATH". */
  hold = new Set<string>();
  /** Every request, as PATH?QUERY, in order. */
  requests: string[] = [];
  /** While paused, requests wait unanswered (open connections stay open and silent), as on a paused node. */
  private paused?: Array<{ req: IncomingMessage; res: ServerResponse }>;

  /** Listens on a free port of 127.0.0.1; returns the server's URL. */
  async start(): Promise<string> {
    this.server = createServer((req, res) => this.handle(req, res));
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Stops answering: new requests wait, the watch connections stay open and say nothing. */
  pause(): void {
    this.paused ??= [];
  }

  /** Answers again, the requests that waited first. */
  resume(): void {
    const waiting = this.paused ?? [];
    this.paused = undefined;
    for (const { req, res } of waiting) if (!res.destroyed) this.handle(req, res);
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    if (this.paused) {
      this.paused.push({ req, res });
      return;
    }
    this.requests.push(req.url ?? '/');
    const url = new URL(req.url ?? '/', 'http://x');
    const watch = url.searchParams.get('watch') === 'true';
    const key = `${watch ? 'watch' : 'list'} ${url.pathname}`;
    if (this.hold.has(key)) {
      this.held.set(key, [...(this.held.get(key) ?? []), { req, res }]);
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    if (watch) {
      res.flushHeaders();
      this.watchers.set(url.pathname, [...(this.watchers.get(url.pathname) ?? []), res]);
      return;
    }
    res.end(JSON.stringify({ metadata: { resourceVersion: String(this.rv) }, items: this.items.get(url.pathname) ?? [] }));
  }

  private send(path: string, type: string, o: KObject): void {
    for (const w of this.watchers.get(path) ?? []) if (!w.destroyed) w.write(`${JSON.stringify({ type, object: o })}\n`);
  }

  /** Adds the object, or replaces the one of its name, and tells the watchers. */
  put(path: string, o: KObject): void {
    this.rv++;
    o.metadata = { ...o.metadata, resourceVersion: String(this.rv) };
    const others = (this.items.get(path) ?? []).filter((x) => x.metadata?.name !== o.metadata?.name);
    this.items.set(path, [...others, o]);
    this.send(path, 'MODIFIED', o);
  }

  /** Deletes the object of that name and tells the watchers. */
  remove(path: string, name: string): void {
    this.rv++;
    const o = (this.items.get(path) ?? []).find((x) => x.metadata?.name === name)!;
    this.items.set(path, (this.items.get(path) ?? []).filter((x) => x !== o));
    this.send(path, 'DELETED', { ...o, metadata: { ...o.metadata, resourceVersion: String(this.rv) } });
  }

  /** Resolves once all three collections (and `more` paths) are being watched. */
  async watching(...more: string[]): Promise<void> {
    const paths = [...Object.values(PATHS), ...more];
    for (const t0 = Date.now(); !paths.every((p) => (this.watchers.get(p) ?? []).length > 0); ) {
      if (Date.now() - t0 > 20_000) throw new Error(`nobody watches ${paths.filter((p) => !(this.watchers.get(p) ?? []).length).join(', ')}`);
      await sleep(20);
    }
  }

  /** The first request held under `key`, once it has come. */
  async heldRequest(key: string): Promise<{ req: IncomingMessage; res: ServerResponse }> {
    while (!(this.held.get(key) ?? []).length) await sleep(20);
    return this.held.get(key)![0]!;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((r) => this.server.close(r));
  }
}

/** A KubeConfig whose one cluster is `server`, without credentials. */
export async function kubeConfig(server: string): Promise<KubeConfig> {
  const k8s = await import('@kubernetes/client-node');
  const kc = new k8s.KubeConfig();
  kc.loadFromOptions({ clusters: [{ name: 'f', server, skipTLSVerify: true }], users: [{ name: 'u' }], contexts: [{ name: 'c', cluster: 'f', user: 'u' }], currentContext: 'c' });
  return kc;
}

/** PackageInstall ns/antrea as the addons manager made it, reconciled to `version` with condition `cond`. */
export function pkgi(o: { gen?: number; cond: string; version: string; last?: string }): KObject {
  return {
    metadata: { name: 'antrea', namespace: 'ns', generation: o.gen ?? 1, managedFields: [{ manager: 'tanzu-addons-manager', time: '2026-01-01T00:00:00Z' }] },
    spec: { packageRef: { refName: 'antrea.tanzu.vmware.com', versionSelection: { prereleases: {} } } },
    status: { observedGeneration: o.gen ?? 1, conditions: [{ type: o.cond, status: 'True' }], version: o.version, lastAttemptedVersion: o.last ?? o.version },
  };
}

/** App ns/antrea with condition `cond`, having fetched the bundle DIGEST. */
export const app = (cond = 'ReconcileSucceeded'): KObject => ({
  metadata: { name: 'antrea', namespace: 'ns', generation: 1 },
  status: { observedGeneration: 1, conditions: [{ type: cond, status: 'True' }], fetch: { exitCode: 0, stdout: `image: r/antrea@${DIGEST}` } },
});

/** Package antrea.tanzu.vmware.com.<v> in ns; with `manager`, the field manager that last wrote it. */
export const pkg = (v: string, manager?: string): KObject => ({
  metadata: {
    name: `antrea.tanzu.vmware.com.${v}`,
    namespace: 'ns',
    ...(manager ? { managedFields: [{ manager, time: '2026-01-01T00:00:00Z' }] } : {}),
  },
  spec: { refName: 'antrea.tanzu.vmware.com', version: v },
});

/**
 * A fake API server where PackageInstall ns/antrea runs the released 1.5.3 (its App reconciled)
 * and `packages` are the Packages of its refName; with a KubeConfig for it.
 */
export async function startReleased(packages: KObject[]): Promise<{ fake: FakeApiServer; kc: KubeConfig }> {
  const fake = new FakeApiServer();
  const server = await fake.start();
  fake.items.set(PATHS.pkgs, packages);
  fake.items.set(PATHS.app, [app()]);
  fake.items.set(PATHS.pkgi, [pkgi({ cond: 'ReconcileSucceeded', version: '1.5.3' })]);
  return { fake, kc: await kubeConfig(server) };
}
