import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { releaseServerForFile } from '../../test/support/release-server.js';
import type { CliIO } from './io.js';
import { run } from './push.js';

function io(env: NodeJS.ProcessEnv = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const cli: CliIO = { stdout: (t) => void out.push(t), stderr: (t) => void err.push(t), env, cwd: '/tmp' };
  return { cli, out, err };
}

test('--help prints usage and exits 0', async () => {
  const t = io();
  expect(await run(['--help'], t.cli)).toBe(0);
  expect(t.out.join('')).toContain('Usage: devpkg push --bundle DIR --image REPO:TAG');
  expect(t.out.join('')).toContain('DEVPKG_REGISTRY_PASSWORD');
});

test.each([
  [['--image', 'localhost:5001/a:t'], {}, /--bundle is required/],
  [['--bundle', 'b'], {}, /--image is required/],
  [['--bundle', 'b', '--image', 'localhost:5001/a:t', '--registry-password', 'x'], {}, /--registry-password is not accepted.*DEVPKG_REGISTRY_PASSWORD/],
  [['--bundle', 'b', '--image', 'localhost:5001/a:t', '--registry-username', 'me'], {}, /needs the password in the environment variable DEVPKG_REGISTRY_PASSWORD/],
  [['--bundle', 'b', '--image', 'localhost:5001/a:t'], { DEVPKG_REGISTRY_PASSWORD: 'x' }, /--registry-username is not/],
  [['--bundle', 'b', '--image', 'localhost:5001/a:1.0+dev'], {}, /contains "\+"/],
])('usage error %j', async (argv, env, msg) => {
  const t = io(env);
  const err = (await run(argv, t.cli).catch((e: Error) => e)) as Error & { exitCode?: number };
  expect(err.message).toMatch(msg);
  expect(err.exitCode).toBe(2);
});

describe('inputs first, then tools: a local release server stands in for GitHub releases', () => {
  const server = releaseServerForFile();
  const ASSET = '/carvel-dev/imgpkg/releases/download/v0.45.0/imgpkg-linux-amd64';
  // A stand-in imgpkg: answers `version`, and `push` writes the BundleLock a real push writes.
  const FAKE_IMGPKG = [
    '#!/bin/sh',
    'if [ "$1" = version ]; then echo "imgpkg version 0.45.0"; exit 0; fi',
    'while [ $# -gt 0 ]; do case "$1" in -b) img="$2"; shift;; --lock-output) out="$2"; shift;; esac; shift; done',
    `printf 'apiVersion: imgpkg.carvel.dev/v1alpha1\\nkind: BundleLock\\nbundle:\\n  image: %s@sha256:%s\\n  tag: t\\n' "\${img%:*}" "${'d'.repeat(64)}" > "$out"`,
    '',
  ].join('\n');
  const SUM = createHash('sha256').update(FAKE_IMGPKG).digest('hex');
  let dir = '';
  const savedCache = process.env.RUNNER_TOOL_CACHE;
  beforeEach(async () => {
    server.reset();
    dir = await mkdtemp(join(tmpdir(), 'devpkg-push-cmd-'));
    process.env.RUNNER_TOOL_CACHE = join(dir, 'cache');
    await mkdir(join(dir, 'bundle', '.imgpkg'), { recursive: true });
    await writeFile(join(dir, 'bundle', '.imgpkg', 'images.yml'), 'apiVersion: imgpkg.carvel.dev/v1alpha1\nkind: ImagesLock\n');
    await mkdir(join(dir, 'empty'));
  });
  afterEach(async () => {
    if (savedCache === undefined) delete process.env.RUNNER_TOOL_CACHE;
    else process.env.RUNNER_TOOL_CACHE = savedCache;
    await rm(dir, { recursive: true, force: true });
  });

  /** The push command with no imgpkg on PATH, downloads from the local server, process stdout recorded. */
  async function push(argv: string[]) {
    const t = io({ PATH: join(dir, 'no-bin') });
    t.cli.cwd = dir;
    const processStdout: string[] = [];
    const write = process.stdout.write;
    process.stdout.write = ((chunk: unknown) => (processStdout.push(String(chunk)), true)) as typeof write;
    let code: number | undefined;
    let error: (Error & { exitCode?: number }) | undefined;
    try {
      code = await run(argv, t.cli, { install: { github: server.url }, sleep: async () => undefined });
    } catch (err) {
      error = err as Error & { exitCode?: number };
    } finally {
      process.stdout.write = write;
    }
    return { code, error, out: t.out.join(''), err: t.err.join(''), processStdout };
  }
  const IMAGE = ['--image', 'localhost:5001/devpkg/antrea:1.2.3_dev.1'];

  test.each([
    ['a bundle folder that does not exist', ['--bundle', '/nonexistent'], '--bundle: the bundle folder /nonexistent does not exist'],
    ['a file', ['--bundle', 'bundle/.imgpkg/images.yml'], /^--bundle: \S+images\.yml is a file; give the bundle folder$/],
    ['a folder without .imgpkg/images.yml', ['--bundle', 'empty'], /^--bundle: bundle folder \S+\/empty has no \.imgpkg\/images\.yml, which an imgpkg bundle needs/],
    ['--lock-images on a folder without config/', ['--bundle', 'empty', '--lock-images'], /^--bundle: the config\/ folder that --lock-images reads with kbld \S+\/empty\/config does not exist$/],
    ['a version devpkg does not pin, without its sha256', ['--bundle', 'bundle', '--imgpkg-version', 'v0.45.0'], /^devpkg pins no sha256 for imgpkg v0\.45\.0 on \S+ .*with imgpkg-sha256 \(CLI: --imgpkg-sha256\)/],
    ['a sha256 that is not one', ['--bundle', 'bundle', '--imgpkg-version', 'v0.45.0', '--imgpkg-sha256', 'xyz'], /^--imgpkg-sha256: "xyz" is not a sha256/],
  ])('%s: exit 2 at once, naming it; nothing downloaded', async (_what, argv, message) => {
    const r = await push([...argv, ...IMAGE]);
    expect(r.error?.exitCode).toBe(2);
    expect(r.error?.message).toMatch(message);
    expect(server.requests).toEqual([]);
    expect(r.out).toBe('');
  });

  test('--no-install and no imgpkg on PATH: refused, nothing downloaded', async () => {
    const r = await push(['--bundle', 'bundle', ...IMAGE, '--no-install']);
    expect(r.error?.message).toMatch(/^imgpkg is not on PATH \(and --no-install: devpkg does not install it\)/);
    expect(server.requests).toEqual([]);
  });

  test('an unpinned imgpkg with its sha256, downloaded after a 503: installed, run, and stdout holds only the digest reference', async () => {
    server.bodies.set(ASSET, FAKE_IMGPKG);
    server.failFirst.set(ASSET, [503]);
    const r = await push(['--bundle', 'bundle', ...IMAGE, '--imgpkg-version', '0.45.0', '--imgpkg-sha256', SUM]);
    expect(r.error).toBeUndefined();
    expect(r.code).toBe(0);
    expect(r.out).toBe(`localhost:5001/devpkg/antrea@sha256:${'d'.repeat(64)}\n`);
    expect(server.requests).toEqual([ASSET, ASSET]);
    // Nothing else reached the process's stdout (no retry notice, no ::debug:: line): the retry is on stderr.
    expect(r.processStdout).toEqual([]);
    expect(r.err).toContain('download imgpkg v0.45.0: HTTP 503; trying again in 1s (attempt 2 of 4)');
  });

  test('--tool-checksums: the sum of the version named, read from a checksums file', async () => {
    server.bodies.set(ASSET, FAKE_IMGPKG);
    const platform = `${process.platform}-${process.arch === 'x64' ? 'amd64' : process.arch}`;
    await writeFile(join(dir, 'checksums.txt'), `${SUM}  imgpkg-${platform}\n`);
    const r = await push(['--bundle', 'bundle', ...IMAGE, '--imgpkg-version', 'v0.45.0', '--tool-checksums', 'checksums.txt']);
    expect(r.error).toBeUndefined();
    expect(r.out).toBe(`localhost:5001/devpkg/antrea@sha256:${'d'.repeat(64)}\n`);
  });

  test('--tool-checksums naming a file that is not there: exit 2 naming the flag; nothing downloaded', async () => {
    const r = await push(['--bundle', 'bundle', ...IMAGE, '--imgpkg-version', 'v0.45.0', '--tool-checksums', 'nosuch.txt']);
    expect(r.error?.exitCode).toBe(2);
    expect(r.error?.message).toBe(`--tool-checksums: cannot read ${join(dir, 'nosuch.txt')}: ENOENT; give a file of "<sha256>  <file>" lines`);
    expect(server.requests).toEqual([]);
  });

  test('a wrong sha256: refused naming both digests, and nothing is left in the tool cache', async () => {
    server.bodies.set(ASSET, FAKE_IMGPKG);
    const wrong = 'e'.repeat(64);
    const r = await push(['--bundle', 'bundle', ...IMAGE, '--imgpkg-version', 'v0.45.0', '--imgpkg-sha256', wrong]);
    expect(r.error?.message).toBe(
      `imgpkg v0.45.0 from ${server.url}${ASSET} has sha256 ${SUM}, expected ${wrong} (imgpkg-sha256, CLI: --imgpkg-sha256); not installing it`,
    );
    expect(r.out).toBe('');
    expect(await readdir(join(dir, 'cache')).catch(() => [])).toEqual([]);
  });
});
