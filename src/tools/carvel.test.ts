// ensureCarvelTool against a local release server (test/support/release-server.ts): the real
// downloader and the tool cache's own layout in a temp folder.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmod, mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { releaseServerForFile } from '../../test/support/release-server.js';
import type { DevpkgError } from '../errors.js';
import { CARVEL_RELEASES, ensureCarvelTool, findOnPath, normalizeVersion, releaseUrl } from './carvel.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'devpkg-install-test-'));
});
afterEach(async () => rm(dir, { recursive: true, force: true }));

test('releaseUrl and normalizeVersion', () => {
  expect(releaseUrl('imgpkg', 'v0.41.1', 'linux-amd64')).toBe('https://github.com/carvel-dev/imgpkg/releases/download/v0.41.1/imgpkg-linux-amd64');
  expect(normalizeVersion('0.41.1')).toBe('v0.41.1');
  expect(normalizeVersion(' v0.41.1 ')).toBe('v0.41.1');
});

test('pinned checksums are sha256 hex', () => {
  for (const versions of Object.values(CARVEL_RELEASES)) {
    for (const platforms of Object.values(versions)) {
      for (const sum of Object.values(platforms)) expect(sum).toMatch(/^[a-f0-9]{64}$/);
    }
  }
});

test('findOnPath: executable files only', async () => {
  await mkdir(join(dir, 'bin'));
  await writeFile(join(dir, 'bin', 'imgpkg'), '#!/bin/sh\n');
  expect(await findOnPath('imgpkg', { PATH: join(dir, 'bin') })).toBeUndefined();
  await chmod(join(dir, 'bin', 'imgpkg'), 0o755);
  expect(await findOnPath('imgpkg', { PATH: `/nonexistent:${join(dir, 'bin')}` })).toBe(join(dir, 'bin', 'imgpkg'));
});

describe('ensureCarvelTool (a local release server, the real tool cache layout)', () => {
  const server = releaseServerForFile();
  const saved = { cache: process.env.RUNNER_TOOL_CACHE };
  let cache = '';
  beforeEach(async () => {
    server.reset();
    cache = join(dir, 'cache');
    process.env.RUNNER_TOOL_CACHE = cache;
  });
  afterAll(() => {
    if (saved.cache === undefined) delete process.env.RUNNER_TOOL_CACHE;
    else process.env.RUNNER_TOOL_CACHE = saved.cache;
  });
  const base = () => ({ env: { PATH: '/nonexistent' }, platform: 'linux' as const, arch: 'x64', install: { github: server.url }, sleep: async () => undefined, log: () => undefined });
  const asset = (tool: string, v: string) => `/carvel-dev/${tool}/releases/download/${v}/${tool}-linux-amd64`;

  test('--no-install: a missing tool is an error that says how to install it; nothing is downloaded', async () => {
    await expect(ensureCarvelTool('imgpkg', { ...base(), install: { refuse: true, github: server.url } })).rejects.toThrow(
      /imgpkg is not on PATH \(and --no-install: devpkg does not install it\); install it \(https:\/\/carvel.dev\/imgpkg/,
    );
    expect(server.requests).toEqual([]);
  });

  test('the pinned default: a checksum mismatch refuses the binary, naming both sums; nothing is cached', async () => {
    server.bodies.set(asset('imgpkg', 'v0.41.1'), 'not imgpkg');
    const wrong = createHash('sha256').update('not imgpkg').digest('hex');
    await expect(ensureCarvelTool('imgpkg', base())).rejects.toThrow(
      new RegExp(`has sha256 ${wrong}, expected ${CARVEL_RELEASES.imgpkg['v0.41.1']['linux-amd64']}; not installing it`),
    );
    expect(server.requests).toEqual([asset('imgpkg', 'v0.41.1')]);
    await expect(readdir(cache).catch(() => [])).resolves.toEqual([]);
  });

  test('any version with its sha256: downloaded, checked, cached and runnable; a second call downloads nothing', async () => {
    const bytes = '#!/bin/sh\necho "kbld version 0.45.0"\n';
    server.bodies.set(asset('kbld', 'v0.45.0'), bytes);
    const sum = createHash('sha256').update(bytes).digest('hex');
    const path = await ensureCarvelTool('kbld', { ...base(), pin: { version: 'v0.45.0', sha256: sum } });
    expect(path).toBe(join(cache, 'kbld', '0.45.0', 'x64', 'kbld'));
    expect(execFileSync(path, ['version'], { encoding: 'utf8' })).toBe('kbld version 0.45.0\n');
    server.requests.length = 0;
    await expect(ensureCarvelTool('kbld', { ...base(), pin: { version: 'v0.45.0', sha256: sum } })).resolves.toBe(path);
    // --no-install refuses a download, not a release already cached.
    await expect(ensureCarvelTool('kbld', { ...base(), pin: { version: 'v0.45.0', sha256: sum }, install: { refuse: true } })).resolves.toBe(path);
    expect(server.requests).toEqual([]);
    // The cached binary is held to the sum asked for: another sum for the same version is refused.
    await expect(ensureCarvelTool('kbld', { ...base(), pin: { version: 'v0.45.0', sha256: 'f'.repeat(64) } })).rejects.toThrow(
      `kbld v0.45.0 in the tool cache (${join(cache, 'kbld', '0.45.0', 'x64')}) has sha256 ${sum}, expected ${'f'.repeat(64)} (kbld-sha256, CLI: --kbld-sha256)`,
    );
  });

  test('a version devpkg does not pin, without a sha256: a usage error naming the input and the flag; nothing downloaded', async () => {
    const err = (await ensureCarvelTool('imgpkg', { ...base(), pin: { version: 'v0.1.0' } }).catch((e: unknown) => e)) as DevpkgError;
    expect(err.exitCode).toBe(2);
    expect(err.message).toMatch(/^devpkg pins no sha256 for imgpkg v0.1.0 on linux-amd64 \(pinned: v0.41.1, v0.48.2\); give the sha256 of its imgpkg-linux-amd64 with imgpkg-sha256 \(CLI: --imgpkg-sha256\)/);
    expect(server.requests).toEqual([]);
  });
});
