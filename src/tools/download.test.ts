// The downloader behind a proxy: a forwarding HTTP proxy (node:http, recording every request it
// is asked to forward) in front of the local release server (test/support/release-server.ts).
// A loopback address never goes through a proxy (@actions/http-client's rule), so the downloads
// here name a host only the proxy knows: it forwards releases.example.test to the release server.
import { afterAll, afterEach, beforeAll, expect, test } from '@jest/globals';
import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { downloadFile, fetchWithRetry } from './download.js';
import { releaseServerForFile } from '../../test/support/release-server.js';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const server = releaseServerForFile();
const HOST = 'releases.example.test';
const VARS = ['http_proxy', 'HTTP_PROXY', 'https_proxy', 'HTTPS_PROXY', 'no_proxy', 'NO_PROXY'];
const saved = Object.fromEntries(VARS.map((v) => [v, process.env[v]]));

/** Every host:port the proxy was asked to reach (by a tunnel or by forwarding), and its own URL. */
const proxied: string[] = [];
let proxy: Server;
let proxyUrl = '';

beforeAll(async () => {
  const upstream = () => new URL(server.url);
  proxy = createServer((req, res) => {
    // Plain forwarding (GET http://host/path).
    const target = new URL(req.url ?? '');
    proxied.push(`${target.hostname}:${target.port || 80}`);
    if (target.hostname !== HOST) return void res.writeHead(502).end('unknown host');
    const out = request({ host: upstream().hostname, port: upstream().port, path: target.pathname, method: req.method, headers: { ...req.headers, host: target.host } }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    });
    out.on('error', () => res.writeHead(502).end());
    req.pipe(out);
  });
  // A tunnel (CONNECT host:port), which undici's ProxyAgent (like http-client's tunnel) asks for.
  proxy.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
    proxied.push(req.url ?? '');
    if (!(req.url ?? '').startsWith(`${HOST}:`)) return void client.end('HTTP/1.1 502 Bad Gateway\r\n\r\n');
    const up = connect(Number(upstream().port), upstream().hostname, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      up.write(head);
      up.pipe(client);
      client.pipe(up);
    });
    up.on('error', () => client.destroy());
    client.on('error', () => up.destroy());
  });
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((r) => proxy.close(r));
});

afterEach(() => {
  proxied.length = 0;
  server.reset();
  for (const v of VARS) {
    if (saved[v] === undefined) delete process.env[v];
    else process.env[v] = saved[v];
  }
});

function setProxyEnv(vars: Record<string, string>): void {
  for (const v of VARS) delete process.env[v];
  Object.assign(process.env, vars);
}

const quiet = { sleep: async () => undefined, log: () => undefined };

test.each(['HTTP_PROXY', 'http_proxy'])('with %s set, a download goes through the proxy', async (name) => {
  server.bodies.set('/v1/kapp', 'kapp binary');
  setProxyEnv({ [name]: proxyUrl });
  const bytes = await fetchWithRetry(`http://${HOST}/v1/kapp`, quiet);
  expect(Buffer.from(bytes).toString()).toBe('kapp binary');
  expect(proxied).toEqual([`${HOST}:80`]);
  expect(server.requests).toEqual(['/v1/kapp']);
});

test('a file download goes through the proxy too, and a 503 from behind it is retried', async () => {
  server.bodies.set('/v1/ytt', 'ytt binary');
  server.failFirst.set('/v1/ytt', [503]);
  setProxyEnv({ HTTP_PROXY: proxyUrl });
  const dir = mkdtempSync(join(tmpdir(), 'devpkg-proxy-'));
  const dest = join(dir, 'ytt');
  const log: string[] = [];
  try {
    await downloadFile(`http://${HOST}/v1/ytt`, dest, { ...quiet, log: (m) => log.push(m) });
    expect(readFileSync(dest, 'utf8')).toBe('ytt binary');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  expect(proxied.length).toBeGreaterThan(0);
  expect(new Set(proxied)).toEqual(new Set([`${HOST}:80`]));
  expect(server.requests).toEqual(['/v1/ytt', '/v1/ytt']);
  expect(log).toEqual([expect.stringContaining('HTTP 503; trying again')]);
});

test.each([HOST, 'example.test', '.example.test', `${HOST}:80`, '*'])('with NO_PROXY=%s covering the host, the download does not go through the proxy', async (noProxy) => {
  server.bodies.set('/v1/kapp', 'kapp binary');
  setProxyEnv({ HTTP_PROXY: proxyUrl, NO_PROXY: noProxy });
  // Straight to the host, which no DNS knows: the download fails, and the proxy saw nothing.
  await expect(fetchWithRetry(`http://${HOST}/v1/kapp`, { ...quiet, attempts: 1 })).rejects.toThrow(`(http://${HOST}/v1/kapp) failed`);
  expect(proxied).toEqual([]);
});

test('NO_PROXY naming another host leaves this one going through the proxy', async () => {
  server.bodies.set('/v1/kapp', 'kapp binary');
  setProxyEnv({ HTTP_PROXY: proxyUrl, NO_PROXY: 'github.com,other.example.test' });
  await fetchWithRetry(`http://${HOST}/v1/kapp`, quiet);
  expect(proxied).toEqual([`${HOST}:80`]);
});

test('HTTPS_PROXY alone is not used for an http:// download', async () => {
  setProxyEnv({ HTTPS_PROXY: proxyUrl });
  await expect(fetchWithRetry(`http://${HOST}/v1/kapp`, { ...quiet, attempts: 1 })).rejects.toThrow('failed');
  expect(proxied).toEqual([]);
});

test('a loopback release server is fetched directly even with HTTP_PROXY set (as @actions/http-client does)', async () => {
  server.bodies.set('/v1/kapp', 'kapp binary');
  setProxyEnv({ HTTP_PROXY: proxyUrl });
  const bytes = await fetchWithRetry(`${server.url}/v1/kapp`, quiet);
  expect(Buffer.from(bytes).toString()).toBe('kapp binary');
  expect(proxied).toEqual([]);
  expect(server.requests).toEqual(['/v1/kapp']);
});
