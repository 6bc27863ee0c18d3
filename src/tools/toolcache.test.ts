// installPinnedTool against a local HTTP server (node:http on 127.0.0.1) serving a release asset
// and its checksum listing, with the real @actions/tool-cache writing into a temp tool cache.
import { afterAll, beforeEach, describe, expect, test } from '@jest/globals';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { releaseServerForFile } from '../../test/support/release-server.js';
import { downloadFile } from './download.js';
import { checksumFor, fetchWithRetry, installPinnedTool, isTransientStatus, releasePlatform } from './toolcache.js';

/** Runs `fn` with process.stdout.write recorded (and kept off the terminal). */
async function capturingStdout<T>(fn: () => Promise<T>): Promise<{ result: T; stdout: string[] }> {
  const stdout: string[] = [];
  const write = process.stdout.write;
  process.stdout.write = ((chunk: unknown) => (stdout.push(String(chunk)), true)) as typeof write;
  try {
    return { result: await fn(), stdout };
  } finally {
    process.stdout.write = write;
  }
}

const ASSET = '#!/bin/sh\necho "kind v0.33.0 go1.25 linux/amd64"\n';
const SUM = createHash('sha256').update(ASSET).digest('hex');

const server = releaseServerForFile();
const { requests: hits, failFirst: failures, bodies } = server;
let cache = '';
const savedPath = process.env.PATH;
const savedCache = process.env.RUNNER_TOOL_CACHE;

afterAll(async () => {
  process.env.PATH = savedPath;
  if (savedCache === undefined) delete process.env.RUNNER_TOOL_CACHE;
  else process.env.RUNNER_TOOL_CACHE = savedCache;
});

beforeEach(() => {
  if (cache) rmSync(cache, { recursive: true, force: true });
  cache = mkdtempSync(join(tmpdir(), 'devpkg-toolcache-'));
  process.env.RUNNER_TOOL_CACHE = cache;
  process.env.PATH = savedPath;
  server.reset();
  bodies.set('/v0.33.0/kind-linux-amd64', ASSET);
});

afterAll(() => rmSync(cache, { recursive: true, force: true }));

const kind = (over: Record<string, string> = {}) => ({
  tool: 'kind',
  version: 'v0.33.0',
  url: `${server.url}/v0.33.0/kind-linux-amd64`,
  sumsUrl: `${server.url}/v0.33.0/kind-linux-amd64.sha256sum`,
  ...over,
});
const noSleep = async () => undefined;

describe('installPinnedTool', () => {
  test('right sum in the release listing: cached, executable, first on PATH; a second run downloads nothing', async () => {
    bodies.set('/v0.33.0/kind-linux-amd64.sha256sum', `${SUM}  kind-linux-amd64\n`);
    const path = await installPinnedTool(kind(), { arch: 'x64', sleep: noSleep });
    expect(path).toBe(join(cache, 'kind', '0.33.0', 'x64', 'kind'));
    expect(readFileSync(path, 'utf8')).toBe(ASSET);
    expect(statSync(path).mode & 0o111).not.toBe(0);
    expect(process.env.PATH?.split(':')[0]).toBe(join(cache, 'kind', '0.33.0', 'x64'));
    expect(hits).toEqual(['/v0.33.0/kind-linux-amd64.sha256sum', '/v0.33.0/kind-linux-amd64']);
    hits.length = 0;
    await expect(installPinnedTool(kind(), { arch: 'x64' })).resolves.toBe(path);
    expect(hits).toEqual([]);
  });

  test('wrong sum in the listing: refused, nothing cached', async () => {
    bodies.set('/v0.33.0/kind-linux-amd64.sha256sum', `${'0'.repeat(64)}  kind-linux-amd64\n`);
    await expect(installPinnedTool(kind(), { arch: 'x64', sleep: noSleep })).rejects.toThrow(
      `kind v0.33.0 from ${server.url}/v0.33.0/kind-linux-amd64 has sha256 ${SUM}, expected ${'0'.repeat(64)}; not installing it`,
    );
    expect(() => statSync(join(cache, 'kind', '0.33.0'))).toThrow();
  });

  test('a sha256 pinned by devpkg: the listing is not read; a wrong pin is refused', async () => {
    await expect(installPinnedTool(kind({ sha256: SUM, sumsUrl: '' }), { arch: 'x64' })).resolves.toMatch(/kind$/);
    expect(hits).toEqual(['/v0.33.0/kind-linux-amd64']);
    rmSync(cache, { recursive: true, force: true });
    await expect(installPinnedTool(kind({ sha256: 'f'.repeat(64) }), { arch: 'x64' })).rejects.toThrow(/has sha256 [0-9a-f]{64}, expected f{64}/);
  });

  test('the listing does not name the asset: refused', async () => {
    bodies.set('/v0.33.0/kind-linux-amd64.sha256sum', `${SUM}  kind-darwin-arm64\n`);
    await expect(installPinnedTool(kind(), { arch: 'x64', sleep: noSleep })).rejects.toThrow(/kind-linux-amd64.sha256sum does not list kind-linux-amd64; not installing it/);
  });

  test('transient 503s of the asset and the listing are retried, said through log and never on stdout', async () => {
    bodies.set('/v0.33.0/kind-linux-amd64.sha256sum', `${SUM}  kind-linux-amd64\n`);
    failures.set('/v0.33.0/kind-linux-amd64', [503]);
    failures.set('/v0.33.0/kind-linux-amd64.sha256sum', [502, 500]);
    const logs: string[] = [];
    const { result, stdout } = await capturingStdout(() => installPinnedTool(kind(), { arch: 'x64', sleep: noSleep, log: (m) => logs.push(m) }));
    expect(result).toMatch(/kind$/);
    expect(hits.filter((h) => h.endsWith('kind-linux-amd64'))).toHaveLength(2);
    expect(hits.filter((h) => h.endsWith('.sha256sum'))).toHaveLength(3);
    expect(logs).toContain('download kind v0.33.0: HTTP 503; trying again in 1s (attempt 2 of 4)');
    expect(stdout).toEqual([]);
  });

  test('a missing release (404) fails at once, naming the URL', async () => {
    await expect(installPinnedTool(kind({ url: `${server.url}/v9.9.9/kind-linux-amd64`, sha256: SUM }), { arch: 'x64' })).rejects.toThrow(
      `download kind v0.33.0 (${server.url}/v9.9.9/kind-linux-amd64) failed: HTTP 404`,
    );
    expect(hits).toEqual(['/v9.9.9/kind-linux-amd64']);
  });
});

describe('downloadFile', () => {
  test('a 503 then the body: the file holds the body; the retry is logged, nothing is written to stdout', async () => {
    bodies.set('/bin', 'binary bytes');
    failures.set('/bin', [503]);
    const logs: string[] = [];
    const dest = join(cache, 'bin');
    const { result, stdout } = await capturingStdout(() => downloadFile(`${server.url}/bin`, dest, { sleep: noSleep, log: (m) => logs.push(m), what: 'bin' }));
    expect(result).toBe(dest);
    expect(readFileSync(dest, 'utf8')).toBe('binary bytes');
    expect(logs).toEqual(['download bin: HTTP 503; trying again in 1s (attempt 2 of 4)']);
    expect(stdout).toEqual([]);
  });
  test('without a log, retry notices go to stderr', async () => {
    bodies.set('/bin', 'x');
    failures.set('/bin', [500]);
    const err: string[] = [];
    const write = process.stderr.write;
    process.stderr.write = ((chunk: string) => (err.push(String(chunk)), true)) as typeof write;
    try {
      await downloadFile(`${server.url}/bin`, join(cache, 'bin'), { sleep: noSleep, what: 'bin' });
    } finally {
      process.stderr.write = write;
    }
    expect(err).toEqual(['download bin: HTTP 500; trying again in 1s (attempt 2 of 4)\n']);
  });
  test('a 404 leaves no file behind', async () => {
    const dest = join(cache, 'missing');
    await expect(downloadFile(`${server.url}/missing`, dest, { sleep: noSleep })).rejects.toThrow(`download ${server.url}/missing (${server.url}/missing) failed: HTTP 404`);
    expect(() => statSync(dest)).toThrow();
  });
});

describe('fetchWithRetry', () => {
  test('500, 500, then 200', async () => {
    bodies.set('/x', 'ok');
    failures.set('/x', [500, 500]);
    const logs: string[] = [];
    const data = await fetchWithRetry(`${server.url}/x`, { sleep: noSleep, log: (m) => logs.push(m) });
    expect(new TextDecoder().decode(data)).toBe('ok');
    expect(logs).toEqual([expect.stringContaining('HTTP 500; trying again in 1s (attempt 2 of 4)'), expect.stringContaining('trying again in 2s (attempt 3 of 4)')]);
  });
  test('a 404 is not retried', async () => {
    await expect(fetchWithRetry(`${server.url}/missing`, { sleep: noSleep, what: 'release.yml' })).rejects.toThrow(`download release.yml (${server.url}/missing) failed: HTTP 404`);
    expect(hits).toEqual(['/missing']);
  });
  test('gives up after the last attempt', async () => {
    failures.set('/down', [503, 503, 503, 503]);
    await expect(fetchWithRetry(`${server.url}/down`, { sleep: noSleep, attempts: 4 })).rejects.toThrow(/failed: HTTP 503/);
    expect(hits).toHaveLength(4);
  });
  test('a refused connection is retried, then named', async () => {
    const calls: string[] = [];
    const f = (async (u: string) => {
      calls.push(u);
      throw new TypeError('fetch failed: connect ECONNREFUSED 127.0.0.1:1');
    }) as unknown as typeof fetch;
    await expect(fetchWithRetry('http://127.0.0.1:1/x', { fetch: f, sleep: noSleep, attempts: 2 })).rejects.toThrow(/ECONNREFUSED/);
    expect(calls).toHaveLength(2);
  });
});

describe('pure helpers', () => {
  test.each([
    [408, true],
    [429, true],
    [500, true],
    [503, true],
    [404, false],
    [403, false],
  ])('isTransientStatus(%d) = %s', (s, want) => expect(isTransientStatus(s)).toBe(want));
  test.each([
    ['linux', 'x64', 'linux-amd64'],
    ['linux', 'arm64', 'linux-arm64'],
    ['darwin', 'arm64', 'darwin-arm64'],
  ])('releasePlatform(%s, %s)', (p, a, want) => expect(releasePlatform(p, a)).toBe(want));
  test('no release for win32', () => expect(() => releasePlatform('win32', 'x64')).toThrow(/no release binaries for win32\/x64/));
  test.each([
    ['release.yml', 'b'.repeat(64)],
    ['package.yml', 'c'.repeat(64)],
    ['kctrl-linux-amd64', 'a'.repeat(64)],
    ['other', undefined],
  ])('checksumFor %s', (file, want) => {
    const listing = `${'a'.repeat(64)}  kctrl-linux-amd64\n${'B'.repeat(64)} *release.yml\n${'c'.repeat(64)}  ./package.yml\n`;
    expect(checksumFor(listing, file)).toBe(want);
  });
});

test('a pinned sum that is not one is refused before any download', async () => {
  const tc = { find: () => '', cacheFile: async () => '' };
  await expect(installPinnedTool({ tool: 'ytt', version: 'v0.44.3', url: 'http://127.0.0.1:1/ytt', sha256: 'abc' }, { toolCache: tc, addToPath: false })).rejects.toThrow(
    'ytt v0.44.3: pinned sha256 "abc" is not 64 hex digits',
  );
});
