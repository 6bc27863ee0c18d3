// devpkg as npm installs it: `npm pack` of this checkout (the committed dist/, which check-dist
// keeps equal to what the sources build), installed from the tarball alone into a temp prefix with
// an empty npm cache and --offline (so nothing but the tarball is needed), then the installed
// `devpkg` run as a user would: --version and a plan of the example repository. And the commit
// stamp a release's package gets (scripts/stamp-commit.mjs), on a copy of dist/.
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { VERSION } from '../../src/version.js';

interface Packed {
  filename: string;
  files: Array<{ path: string; mode: number }>;
}

let tmp: string;
let packed: Packed;
const env = (): NodeJS.ProcessEnv => ({
  PATH: `${dirname(process.execPath)}:${process.env.PATH}`,
  HOME: join(tmp, 'home'),
  npm_config_cache: join(tmp, 'npm-cache'),
  npm_config_update_notifier: 'false',
});

beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), 'devpkg-pack-'));
  mkdirSync(join(tmp, 'home'));
  const out = execFileSync('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', tmp], { env: env(), encoding: 'utf8' });
  packed = (JSON.parse(out) as Packed[])[0]!;
}, 120_000);
afterAll(() => {
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

test('the tarball holds what runs: dist/, README.md, LICENSE and package.json, nothing else', () => {
  const paths = packed.files.map((f) => f.path).sort();
  expect(paths.filter((p) => !p.startsWith('dist/'))).toEqual(['LICENSE', 'README.md', 'package.json']);
  expect(paths).toEqual(expect.arrayContaining(['dist/cli.js', 'dist/index.js', 'dist/post.js', 'dist/package.json']));
  for (const dir of ['src/', 'test/', 'docs/', 'examples/', 'scripts/', 'node_modules/']) expect(paths.filter((p) => p.startsWith(dir))).toEqual([]);
  // The bin is executable as packed, with a node shebang.
  expect(packed.files.find((f) => f.path === 'dist/cli.js')!.mode & 0o111).toBe(0o111);
  expect(readFileSync('dist/cli.js', 'utf8').split('\n')[0]).toBe('#!/usr/bin/env node');
});

describe('installed from the tarball alone (empty cache, --offline)', () => {
  let bin: string;
  let prefix: string;
  beforeAll(() => {
    prefix = join(tmp, 'prefix');
    execFileSync('npm', ['install', '--global', '--prefix', prefix, '--offline', '--no-audit', '--no-fund', join(tmp, packed.filename)], { env: env(), encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    bin = join(prefix, 'bin', 'devpkg');
  }, 120_000);

  test('its package.json has the devpkg bin and no runtime dependencies (dist/ bundles them)', () => {
    const pkg = JSON.parse(readFileSync(join(prefix, 'lib', 'node_modules', 'devpkg', 'package.json'), 'utf8')) as Record<string, unknown>;
    expect(pkg.bin).toEqual({ devpkg: 'dist/cli.js' });
    expect(pkg.dependencies).toBeUndefined();
    expect(pkg.private).toBeUndefined();
    expect(pkg.version).toBe(VERSION);
  });

  test.each([['--version'], ['-V'], ['version']])('devpkg %s prints the version', (arg) => {
    const r = spawnSync(bin, [arg], { env: env(), encoding: 'utf8' });
    expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 0, stderr: '' });
    // The committed dist/ names no commit (a release's package does: see src/version.ts).
    expect(r.stdout).toBe(`devpkg ${VERSION}\n`);
  });

  test('devpkg plan --repo <a copy of examples/tce-packages> --all plans every version, from anywhere', () => {
    const repo = join(tmp, 'tce-packages');
    cpSync('examples/tce-packages', repo, { recursive: true });
    const r = spawnSync(bin, ['plan', '--repo', repo, '--all', '--json'], { cwd: tmp, env: env(), encoding: 'utf8' });
    expect(r.status).toBe(0);
    const plan = JSON.parse(r.stdout) as { packages: Array<{ name: string; version: string; devVersion: string }> };
    expect(plan.packages.map((p) => `${p.name}/${p.version}`)).toEqual(['antrea/1.5.3', 'calico/3.22.1']);
    for (const p of plan.packages) expect(p.devVersion).toMatch(/-dev\./);
  });
});

describe('scripts/stamp-commit.mjs, on a copy of dist/ (what the release workflow does before npm pack)', () => {
  const SHA = '89abcdef0123456789abcdef0123456789abcdef';
  const stamp = (...args: string[]) => spawnSync(process.execPath, ['scripts/stamp-commit.mjs', ...args], { encoding: 'utf8' });

  test('the stamped dist/ names the commit in --version; stamping twice, or a short SHA, is refused', () => {
    const dist = join(tmp, 'stamped-dist');
    cpSync('dist', dist, { recursive: true });
    expect(spawnSync(process.execPath, [join(dist, 'cli.js'), '--version'], { encoding: 'utf8' }).stdout).toBe(`devpkg ${VERSION}\n`);
    expect(stamp(dist, '89abcde')).toMatchObject({ status: 2, stderr: 'stamp-commit: SHA "89abcde" is not a full commit SHA (40 lowercase hex digits, as git rev-parse HEAD prints)\n' });
    expect(stamp(dist, SHA).status).toBe(0);
    expect(spawnSync(process.execPath, [join(dist, 'cli.js'), '--version'], { encoding: 'utf8' }).stdout).toBe(`devpkg ${VERSION} (commit 89abcde)\n`);
    expect(stamp(dist, SHA)).toMatchObject({ status: 1, stderr: `stamp-commit: ${dist} holds the unstamped commit 0 times, not once (already stamped, or not a dist/ built by scripts/bundle.mjs)\n` });
    // The checkout's own dist/ is never stamped: what check-dist compares stays the same.
    expect(spawnSync(process.execPath, ['dist/cli.js', '--version'], { encoding: 'utf8' }).stdout).toBe(`devpkg ${VERSION}\n`);
  });
});
