// installPinned against a local HTTP server serving a release asset, with the real
// @actions/tool-cache: right sum (installed, cached, on PATH), wrong sum (nothing installed),
// a 404 (not retried), a 503 then 200 (retried).
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ensureYtt, installPinned, yttRelease } from './install.js';

const asset = Buffer.from('#!/bin/sh\necho "ytt version 0.44.3"\n');
const sum = createHash('sha256').update(asset).digest('hex');
let server: Server;
let base = '';
let requests: string[] = [];
/** Status codes to answer before serving the asset, per path. */
const failFirst = new Map<string, number[]>();
let dir = '';
const saved = { temp: process.env.RUNNER_TEMP, cache: process.env.RUNNER_TOOL_CACHE, path: process.env.PATH };

beforeAll(async () => {
  server = createServer((req, res) => {
    requests.push(req.url ?? '');
    const queue = failFirst.get(req.url ?? '');
    const status = queue?.shift();
    if (status) {
      res.writeHead(status).end('no');
    } else if (req.url?.startsWith('/releases/')) {
      res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(asset);
    } else res.writeHead(404).end('not found');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // The retry helper's sleeps (10-20s by default) are read from these globals.
  Object.assign(globalThis, { TEST_DOWNLOAD_TOOL_RETRY_MIN_SECONDS: 0, TEST_DOWNLOAD_TOOL_RETRY_MAX_SECONDS: 0 });
});
afterAll(async () => {
  await new Promise((r) => server.close(r));
});
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'devpkg-install-'));
  await mkdir(path.join(dir, 'temp'));
  await mkdir(path.join(dir, 'cache'));
  process.env.RUNNER_TEMP = path.join(dir, 'temp');
  process.env.RUNNER_TOOL_CACHE = path.join(dir, 'cache');
  requests = [];
  failFirst.clear();
});
afterEach(async () => {
  process.env.RUNNER_TEMP = saved.temp;
  process.env.RUNNER_TOOL_CACHE = saved.cache;
  process.env.PATH = saved.path;
  await rm(dir, { recursive: true, force: true });
});

const release = (sha256 = sum, name = 'ytt-linux-amd64') => ({ tool: 'ytt', version: '0.44.3', url: `${base}/releases/${name}`, sha256, arch: 'x64' });

test('the right sum: downloaded once, checked, cached, executable, its folder on PATH; the next run uses the cache', async () => {
  const added: string[] = [];
  const bin = await installPinned(release(), { addPath: (d) => added.push(d) });
  expect(bin).toBe(path.join(dir, 'cache', 'ytt', '0.44.3', 'x64', 'ytt'));
  expect(await readFile(bin)).toEqual(asset);
  expect((await stat(bin)).mode & 0o111).not.toBe(0);
  expect(added).toEqual([path.dirname(bin)]);
  expect(requests).toEqual(['/releases/ytt-linux-amd64']);
  expect(await installPinned(release(), { addPath: () => undefined })).toBe(bin);
  expect(requests).toHaveLength(1);
});

test('the default addPath puts the folder first on PATH', async () => {
  const bin = await installPinned(release());
  expect(process.env.PATH!.split(path.delimiter)[0]).toBe(path.dirname(bin));
});

test('a wrong sum: an error naming both sums; nothing cached, the download removed', async () => {
  const wrong = 'f'.repeat(64);
  await expect(installPinned(release(wrong), { addPath: () => undefined })).rejects.toThrow(
    `ytt 0.44.3 from ${base}/releases/ytt-linux-amd64 has sha256 ${sum}, expected ${wrong} (pinned in devpkg); not installing it`,
  );
  expect(await readdir(path.join(dir, 'cache'))).toEqual([]);
  expect(await readdir(path.join(dir, 'temp'))).toEqual([]);
});

test('a 404 is not retried and names the URL and status', async () => {
  await expect(installPinned({ ...release(), url: `${base}/missing/ytt` }, { addPath: () => undefined })).rejects.toThrow(
    new RegExp(`^could not download ytt 0.44.3 from ${base}/missing/ytt \\(HTTP 404\\)`),
  );
  expect(requests).toEqual(['/missing/ytt']);
});

test('a transient 503 is retried, then the asset installs', async () => {
  failFirst.set('/releases/ytt-linux-amd64', [503]);
  const bin = await installPinned(release(), { addPath: () => undefined });
  expect(requests).toEqual(['/releases/ytt-linux-amd64', '/releases/ytt-linux-amd64']);
  expect(await readFile(bin)).toEqual(asset);
});

test('a pinned sum that is not one is refused before any download', async () => {
  await expect(installPinned(release('abc'), { addPath: () => undefined })).rejects.toThrow('ytt 0.44.3: pinned sha256 "abc" is not 64 hex digits');
  expect(requests).toEqual([]);
});

describe('yttRelease', () => {
  test.each([
    ['v0.44.3', 'linux', 'x64', 'https://github.com/carvel-dev/ytt/releases/download/v0.44.3/ytt-linux-amd64', 'c047bd7084beea2b4a585b13148d7c1084ee6c4aee8a68592fc8ed7d75ecebc5'],
    ['0.44.3', 'linux', 'arm64', 'https://github.com/carvel-dev/ytt/releases/download/v0.44.3/ytt-linux-arm64', '91d9ce5f2c9f8d11a127b1676d3a9fcb1982ec9b89084751c8bd335acffdb0c4'],
  ])('%s %s %s', (v, platform, arch, url, sha256) => {
    expect(yttRelease(v, platform, arch)).toEqual({ tool: 'ytt', version: '0.44.3', url, sha256, arch });
  });
  test('an unpinned version or platform names what is pinned and the way round', () => {
    expect(() => yttRelease('v0.50.0', 'linux', 'x64')).toThrow('devpkg has no pinned sha256 for ytt v0.50.0 on linux-amd64 (pinned: v0.44.3); put ytt on PATH before devpkg (e.g. carvel-dev/setup-action)');
    expect(() => yttRelease('v0.44.3', 'win32', 'x64')).toThrow(/no pinned sha256 for ytt v0.44.3 on win32-amd64/);
  });
});

describe('ensureYtt', () => {
  test('ytt on PATH is used as it is', async () => {
    const bin = path.join(dir, 'bin');
    await mkdir(bin);
    await writeFile(path.join(bin, 'ytt'), asset);
    await chmod(path.join(bin, 'ytt'), 0o755);
    expect(await ensureYtt({ env: { PATH: bin } })).toBe(path.join(bin, 'ytt'));
    expect(requests).toEqual([]);
  });
  test('off GitHub, a missing ytt fails up front, saying why bootstrap needs it and how to install it', async () => {
    await expect(ensureYtt({ env: { PATH: path.join(dir, 'nothing') } })).rejects.toThrow(
      /^ytt is not on PATH: bootstrap renders the package config and the providers with it for its dry-run check, and will not run that check weakened; install ytt/,
    );
  });
  test('on a GitHub runner, the pinned release is installed through the tool cache', async () => {
    const bin = await ensureYtt({ env: { PATH: '', GITHUB_ACTIONS: 'true' }, platform: 'linux', arch: 'x64', baseUrl: `${base}/releases`, version: 'v0.44.3', addPath: () => undefined }).catch((e: Error) => e.message);
    // The local server serves the fake asset, whose sum is not ytt's: the pinned sum refuses it.
    expect(bin).toMatch(new RegExp(`^ytt 0.44.3 from ${base}/releases/v0.44.3/ytt-linux-amd64 has sha256 ${sum}, expected c047bd70`));
  });
});
