/**
 * A stand-in for a release download site on 127.0.0.1 (node:http), for the installers' tests with
 * the real @actions/tool-cache: it serves `bodies` by path (404 otherwise), first answering a path
 * with the statuses queued for it in `failFirst` (e.g. [503] = one 503, then the body), and records
 * every path asked for.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export class ReleaseServer {
  private server?: Server;
  url = '';
  readonly requests: string[] = [];
  readonly bodies = new Map<string, string | Buffer>();
  readonly failFirst = new Map<string, number[]>();

  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      const p = req.url ?? '';
      this.requests.push(p);
      const status = this.failFirst.get(p)?.shift();
      const body = this.bodies.get(p);
      if (status) res.writeHead(status).end('try later');
      else if (body === undefined) res.writeHead(404).end('not found');
      else res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(body);
    });
    await new Promise<void>((r) => this.server!.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this.url;
  }

  /** Forgets the requests, bodies and queued failures (between tests). */
  reset(): void {
    this.requests.length = 0;
    this.bodies.clear();
    this.failFirst.clear();
  }

  async stop(): Promise<void> {
    await new Promise((r) => this.server?.close(r));
  }
}

/** @actions/tool-cache waits 10-20 s before a retry; its own test hooks make that 0. Returns the undo. */
export function noToolCacheRetryWait(): () => void {
  const g = globalThis as Record<string, unknown>;
  g.TEST_DOWNLOAD_TOOL_RETRY_MIN_SECONDS = 0;
  g.TEST_DOWNLOAD_TOOL_RETRY_MAX_SECONDS = 0;
  return () => {
    delete g.TEST_DOWNLOAD_TOOL_RETRY_MIN_SECONDS;
    delete g.TEST_DOWNLOAD_TOOL_RETRY_MAX_SECONDS;
  };
}

/**
 * For a test file: a ReleaseServer started before its tests (tool-cache retrying without a wait)
 * and stopped after them; reset it between tests.
 */
export function releaseServerForFile(): ReleaseServer {
  const server = new ReleaseServer();
  let retryWaitBack = () => undefined as void;
  beforeAll(async () => {
    await server.start();
    retryWaitBack = noToolCacheRetryWait();
  });
  afterAll(async () => {
    await server.stop();
    retryWaitBack();
  });
  return server;
}
