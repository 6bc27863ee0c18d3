import { createHash } from 'node:crypto';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CARVEL_RELEASES, ensureCarvelTool, findOnPath, normalizeVersion, releaseUrl, type ToolCache } from './carvel.js';

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

/** A tool cache stand-in that "downloads" the given bytes. */
function fakeToolCache(bytes: string, cached = '') {
  const calls: string[] = [];
  const tc: ToolCache = {
    find: (tool, version) => (calls.push(`find ${tool} ${version}`), cached),
    downloadTool: async (url) => {
      calls.push(`download ${url}`);
      const f = join(dir, 'download');
      await writeFile(f, bytes);
      return f;
    },
    cacheFile: async (_src, target, tool, version) => {
      calls.push(`cache ${target} ${tool} ${version}`);
      return join(dir, 'cache');
    },
  };
  return { tc, calls };
}

describe('ensureCarvelTool', () => {
  const base = { env: { PATH: '/nonexistent', GITHUB_ACTIONS: 'true' }, platform: 'linux' as const, arch: 'x64' };

  test('--no-install: a missing tool is an error that says how to install it; nothing is asked of the tool cache', async () => {
    const f = fakeToolCache('');
    await expect(ensureCarvelTool('imgpkg', { env: { PATH: '/nonexistent' }, install: { refuse: true }, toolCache: f.tc })).rejects.toThrow(
      /imgpkg is not on PATH \(and --no-install: devpkg does not install it\); install it \(https:\/\/carvel.dev\/imgpkg/,
    );
    expect(f.calls).toEqual([]);
  });

  test('off GitHub Actions too, a missing tool is installed pinned (from where install.github says)', async () => {
    const f = fakeToolCache('not imgpkg');
    await expect(ensureCarvelTool('imgpkg', { ...base, env: { PATH: '/nonexistent' }, install: { github: 'http://127.0.0.1:9' }, toolCache: f.tc })).rejects.toThrow(/expected/);
    expect(f.calls).toEqual(['find imgpkg 0.41.1', 'download http://127.0.0.1:9/carvel-dev/imgpkg/releases/download/v0.41.1/imgpkg-linux-amd64']);
  });

  test('a checksum mismatch refuses the binary', async () => {
    const f = fakeToolCache('not imgpkg');
    const wrong = createHash('sha256').update('not imgpkg').digest('hex');
    await expect(ensureCarvelTool('imgpkg', { ...base, toolCache: f.tc })).rejects.toThrow(
      new RegExp(`has sha256 ${wrong}, expected ${CARVEL_RELEASES.imgpkg['v0.41.1']['linux-amd64']}; not installing it`),
    );
    expect(f.calls).toEqual(['find imgpkg 0.41.1', 'download https://github.com/carvel-dev/imgpkg/releases/download/v0.41.1/imgpkg-linux-amd64']);
  });

  test('a matching checksum is cached', async () => {
    const bytes = 'pretend imgpkg';
    const sum = createHash('sha256').update(bytes).digest('hex');
    CARVEL_RELEASES.imgpkg['v9.9.9'] = { 'linux-amd64': sum };
    try {
      const f = fakeToolCache(bytes);
      expect(await ensureCarvelTool('imgpkg', { ...base, version: '9.9.9', toolCache: f.tc })).toBe(join(dir, 'cache', 'imgpkg'));
      expect(f.calls[2]).toBe('cache imgpkg imgpkg 9.9.9');
    } finally {
      delete CARVEL_RELEASES.imgpkg['v9.9.9'];
    }
  });

  test('already in the tool cache: no download', async () => {
    const f = fakeToolCache('', join(dir, 'cached'));
    expect(await ensureCarvelTool('imgpkg', { ...base, toolCache: f.tc })).toBe(join(dir, 'cached', 'imgpkg'));
    expect(f.calls).toEqual(['find imgpkg 0.41.1']);
  });

  test('a version without a pinned checksum: use setup-action', async () => {
    await expect(ensureCarvelTool('imgpkg', { ...base, version: 'v0.1.0', toolCache: fakeToolCache('').tc })).rejects.toThrow(
      /no pinned checksum for imgpkg v0.1.0 on linux-amd64 .*carvel-dev\/setup-action/,
    );
  });
});
