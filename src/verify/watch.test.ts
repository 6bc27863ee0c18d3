/**
 * ResumableWatch against a small fake API server on loopback (plain HTTP): it resumes from the
 * last resourceVersion after a dropped connection and lists again after a 410 ERROR event.
 */
import { afterEach, describe, expect, test } from '@jest/globals';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { KObject } from './evaluate.js';
import { ResumableWatch } from './watch.js';

interface Req {
  watch: boolean;
  resourceVersion?: string;
  fieldSelector?: string;
}

class FakeApi {
  server!: Server;
  requests: Req[] = [];
  /** Called for each watch request; writes events and decides when to end. */
  onWatch: (req: Req, res: ServerResponse, n: number) => void = () => undefined;
  listRv = '5';
  items: KObject[] = [];
  private watches = 0;

  async start(): Promise<string> {
    this.server = createServer((req: IncomingMessage, res: ServerResponse) => {
      const url = new URL(req.url ?? '/', 'http://x');
      const r: Req = {
        watch: url.searchParams.get('watch') === 'true',
        resourceVersion: url.searchParams.get('resourceVersion') ?? undefined,
        fieldSelector: url.searchParams.get('fieldSelector') ?? undefined,
      };
      this.requests.push(r);
      if (!r.watch) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ apiVersion: 'g/v1', kind: 'ThingList', metadata: { resourceVersion: this.listRv }, items: this.items }));
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json', 'transfer-encoding': 'chunked' });
      this.onWatch(r, res, this.watches++);
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((r) => this.server.close(r));
  }
}

const obj = (name: string, rv: string, version: string): KObject => ({ metadata: { name, namespace: 'ns', resourceVersion: rv }, status: { version } });
const event = (type: string, o: unknown): string => `${JSON.stringify({ type, object: o })}\n`;

async function kubeConfig(server: string) {
  const k8s = await import('@kubernetes/client-node');
  const kc = new k8s.KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'fake', server, skipTLSVerify: true }],
    users: [{ name: 'u' }],
    contexts: [{ name: 'c', cluster: 'fake', user: 'u' }],
    currentContext: 'c',
  });
  return kc;
}

function until<T>(pred: () => T | undefined, ms = 10_000): Promise<T> {
  return new Promise((resolve, reject) => {
    const t0 = Date.now();
    const tick = (): void => {
      const v = pred();
      if (v !== undefined) return resolve(v);
      if (Date.now() - t0 > ms) return reject(new Error('condition not met in time'));
      setTimeout(tick, 20);
    };
    tick();
  });
}

describe('ResumableWatch', () => {
  let api: FakeApi;
  let w: ResumableWatch | undefined;
  afterEach(async () => {
    w?.stop();
    await api.stop();
  });

  test('resumes from the last resourceVersion after a drop, and lists again after 410', async () => {
    api = new FakeApi();
    api.items = [obj('pi', '5', '1.0.0')];
    api.onWatch = (_req, res, n) => {
      if (n === 0) {
        res.write(event('MODIFIED', obj('pi', '6', '1.0.1')));
        setTimeout(() => res.destroy(), 50); // the connection drops (e.g. an apiserver restart)
      } else if (n === 1) {
        res.write(event('ERROR', { kind: 'Status', code: 410, message: 'too old resource version: 6 (9)' }));
      } else {
        res.write(event('BOOKMARK', { metadata: { resourceVersion: '12' } }));
        res.write(event('MODIFIED', obj('pi', '13', '1.0.2')));
      }
    };
    const kc = await kubeConfig(await api.start());
    const seen: string[] = [];
    const lists: string[] = [];
    w = new ResumableWatch(kc, { group: 'g', version: 'v1', plural: 'things', namespace: 'ns', name: 'pi' }, {
      onChange: (objs, _changed, type) => seen.push(`${type}:${objs.get('pi')?.status?.version}`),
      onList: (rv, reason) => lists.push(`${rv}:${reason}`),
    });
    await w.start();
    await until(() => (seen.includes('MODIFIED:1.0.2') ? true : undefined));
    api.listRv = '9';
    const watchReqs = api.requests.filter((r) => r.watch);
    expect(watchReqs[0]).toMatchObject({ resourceVersion: '5', fieldSelector: 'metadata.name=pi' });
    expect(watchReqs[1]).toMatchObject({ resourceVersion: '6' }); // resumed, not relisted
    expect(lists[0]).toBe('5:start');
    expect(lists[1]).toMatch(/:resourceVersion expired$/);
    expect(w.lists).toBe(2);
    expect(seen).toEqual(['LIST:1.0.0', 'MODIFIED:1.0.1', 'LIST:1.0.0', 'MODIFIED:1.0.2']);
  }, 20_000);

  test('backs off and retries while the server refuses, without busy looping', async () => {
    api = new FakeApi();
    api.items = [obj('pi', '5', '1.0.0')];
    let refused = 0;
    api.onWatch = (_req, res, n) => {
      if (n < 3) {
        refused++;
        res.destroy();
      } else {
        res.write(event('MODIFIED', obj('pi', '7', '2.0.0')));
      }
    };
    const kc = await kubeConfig(await api.start());
    const problems: string[] = [];
    let version = '';
    w = new ResumableWatch(kc, { group: 'g', version: 'v1', plural: 'things', namespace: 'ns' }, {
      onChange: (objs) => (version = String(objs.get('pi')?.status?.version)),
      onProblem: (m) => problems.push(m),
    });
    await w.start();
    await until(() => (version === '2.0.0' ? true : undefined));
    expect(refused).toBe(3);
    expect(w.connects).toBe(4);
    expect(api.requests.filter((r) => !r.watch)).toHaveLength(1);
  }, 20_000);
});
