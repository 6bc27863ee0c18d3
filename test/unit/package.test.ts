// devpkg as npm installs it: `npm pack` of this checkout (the committed dist/, which check-dist
// keeps equal to what the sources build), installed from the tarball alone into a temp prefix with
// an empty npm cache and --offline (so nothing but the tarball is needed), then the installed
// `devpkg` run as a user would: --version and a plan of the example repository.
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

test('its package.json has the devpkg bin and no runtime dependencies (dist/ bundles them)', () => {
  const listing = execFileSync('tar', ['-xOzf', join(tmp, packed.filename), 'package/package.json'], { encoding: 'utf8' });
  const pkg = JSON.parse(listing) as Record<string, unknown>;
  expect(pkg.bin).toEqual({ devpkg: 'dist/cli.js' });
  expect(pkg.dependencies).toBeUndefined();
  expect(pkg.private).toBeUndefined();
  expect(pkg.version).toBe(VERSION);
});

describe('installed from the tarball alone (empty cache, --offline)', () => {
  let bin: string;
  beforeAll(() => {
    const prefix = join(tmp, 'prefix');
    execFileSync('npm', ['install', '--global', '--prefix', prefix, '--offline', '--no-audit', '--no-fund', join(tmp, packed.filename)], { env: env(), encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    bin = join(prefix, 'bin', 'devpkg');
  }, 120_000);

  test.each([['--version'], ['-V'], ['version']])('devpkg %s prints the version', (arg) => {
    const r = spawnSync(bin, [arg], { env: env(), encoding: 'utf8' });
    expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 0, stderr: '' });
    // A release build names its commit; the committed dist/ names none (see src/version.ts).
    expect(r.stdout).toMatch(new RegExp(`^devpkg ${VERSION.replace(/\./g, '\\.')}( \\(commit [0-9a-f]{7}\\))?\\n$`));
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
