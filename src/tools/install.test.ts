// ensureYtt against a local HTTP server serving a release asset, with the real @actions/tool-cache
// (the installer itself, installPinnedTool, is tested in toolcache.test.ts: right and wrong sum,
// 404, 503 retried).
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { releaseServerForFile } from '../../test/support/release-server.js';
import { ensureYtt, yttRelease } from './install.js';

const asset = Buffer.from('#!/bin/sh\necho "ytt version 0.44.3"\n');
const sum = createHash('sha256').update(asset).digest('hex');
const server = releaseServerForFile();
const { requests } = server;
let dir = '';
const saved = { temp: process.env.RUNNER_TEMP, cache: process.env.RUNNER_TOOL_CACHE, path: process.env.PATH };
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'devpkg-install-'));
  await mkdir(path.join(dir, 'temp'));
  await mkdir(path.join(dir, 'cache'));
  process.env.RUNNER_TEMP = path.join(dir, 'temp');
  process.env.RUNNER_TOOL_CACHE = path.join(dir, 'cache');
  server.reset();
  server.bodies.set('/carvel-dev/ytt/releases/download/v0.44.3/ytt-linux-amd64', asset);
});
afterEach(async () => {
  process.env.RUNNER_TEMP = saved.temp;
  process.env.RUNNER_TOOL_CACHE = saved.cache;
  process.env.PATH = saved.path;
  await rm(dir, { recursive: true, force: true });
});


describe('yttRelease', () => {
  test.each([
    ['v0.44.3', 'linux', 'x64', 'https://github.com/carvel-dev/ytt/releases/download/v0.44.3/ytt-linux-amd64', 'c047bd7084beea2b4a585b13148d7c1084ee6c4aee8a68592fc8ed7d75ecebc5'],
    [undefined, 'linux', 'arm64', 'https://github.com/carvel-dev/ytt/releases/download/v0.44.3/ytt-linux-arm64', '91d9ce5f2c9f8d11a127b1676d3a9fcb1982ec9b89084751c8bd335acffdb0c4'],
  ])('%s %s %s', (v, platform, arch, url, sha256) => {
    expect(yttRelease(v ? { version: v } : undefined, platform, arch)).toEqual({ tool: 'ytt', version: 'v0.44.3', url, sha256 });
  });
  test('an unpinned version or platform names what is pinned and how to give a sha256', () => {
    expect(() => yttRelease({ version: 'v0.50.0' }, 'linux', 'x64')).toThrow(
      'devpkg pins no sha256 for ytt v0.50.0 on linux-amd64 (pinned: v0.44.3); give the sha256 of its ytt-linux-amd64 with ytt-sha256 (CLI: --ytt-sha256) or in a tool-checksums file (CLI: --tool-checksums) next to ytt-version (CLI: --ytt-version), choose a pinned version, or put ytt on PATH before devpkg (e.g. carvel-dev/setup-action)',
    );
    expect(() => yttRelease(undefined, 'win32', 'x64')).toThrow(/no sha256 for ytt v0.44.3 on win32-amd64 \(pinned: none for this platform\)/);
  });
  test('an unpinned version with its sha256', () => {
    expect(yttRelease({ version: 'v0.50.0', sha256: 'a'.repeat(64) }, 'linux', 'x64')).toEqual({
      tool: 'ytt',
      version: 'v0.50.0',
      url: 'https://github.com/carvel-dev/ytt/releases/download/v0.50.0/ytt-linux-amd64',
      sha256: 'a'.repeat(64),
    });
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
  test('--no-install: a missing ytt fails up front, saying why bootstrap needs it and how to install it; nothing downloaded', async () => {
    await expect(ensureYtt({ env: { PATH: path.join(dir, 'nothing') }, install: { refuse: true, github: server.url } })).rejects.toThrow(
      /^ytt is not on PATH \(and --no-install: devpkg does not install it\): bootstrap renders the package config and the providers with it for its dry-run check, and will not run that check weakened; install ytt/,
    );
    expect(requests).toEqual([]);
  });
  test('missing (on a runner or off it), the pinned release is installed through the tool cache', async () => {
    const bin = await ensureYtt({ env: { PATH: '' }, platform: 'linux', arch: 'x64', install: { github: server.url }, pin: { version: 'v0.44.3' } }).catch((e: Error) => e.message);
    // The local server serves the fake asset, whose sum is not ytt's: the pinned sum refuses it.
    expect(bin).toMatch(new RegExp(`^ytt v0.44.3 from ${server.url}/carvel-dev/ytt/releases/download/v0.44.3/ytt-linux-amd64 has sha256 ${sum}, expected c047bd70`));
  });
  test('ytt-version with its ytt-sha256: that release installed, and it runs', async () => {
    server.bodies.set('/carvel-dev/ytt/releases/download/v0.50.0/ytt-linux-amd64', asset);
    const bin = await ensureYtt({ env: { PATH: '' }, platform: 'linux', arch: 'x64', install: { github: server.url }, pin: { version: 'v0.50.0', sha256: sum }, log: () => undefined });
    expect(bin).toBe(path.join(dir, 'cache', 'ytt', '0.50.0', 'x64', 'ytt'));
    expect(execFileSync(bin, { encoding: 'utf8' })).toBe('ytt version 0.44.3\n');
  });
});
