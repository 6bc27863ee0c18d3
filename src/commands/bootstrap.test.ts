import { resolve } from 'node:path';
import { runCli } from '../cli.js';
import type { CliIO } from './io.js';

async function cli(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const io: CliIO = { stdout: (t) => (out += t), stderr: (t) => (err += t), env: { HOME: '/nonexistent-home' }, cwd: '/' };
  return { code: await runCli(argv, io), out, err };
}

describe('devpkg bootstrap', () => {
  test('--help prints the usage and exits 0', async () => {
    const r = await cli(['bootstrap', '--help']);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^Usage: devpkg bootstrap --package <version folder>/);
    expect(r.out).toContain('--prepare-only');
  });
  test.each([
    [['bootstrap', '--image', 'r@sha256:' + 'a'.repeat(64)], /--package is required/],
    [['bootstrap', '--package', 'x'], /give --image REPO@sha256:... or --registry REPO/],
    [['bootstrap', '--package', 'x', '--image', 'i', '--tanzu-dir', '/tmp/tanzu'], /must end in .config\/tanzu/],
    [['bootstrap', '--package', 'x', '--image', 'i'], /--cluster-config is required/],
    [['bootstrap', '--package', 'x', '--image', 'i', '--cluster-config', 'c.yaml'], /creating a management cluster needs the tanzu CLI: give --tanzu PATH/],
  ])('%j is a usage error', async (argv, msg) => {
    const r = await cli(argv);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(msg);
  });
  test('--cleanup with nothing recorded', async () => {
    const r = await cli(['bootstrap', '--cleanup']);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/nothing to clean up \(no \/nonexistent-home\/.config\/tanzu\/tkg\/devpkg-cleanup.json\)/);
  });
});

describe('devpkg bootstrap --tkg-custom-image-repository', () => {
  test.each([
    [['--tkg-custom-image-repository', 'https://harbor.example.com/tkg'], /--tkg-custom-image-repository: "https:\/\/harbor.example.com\/tkg" is not HOST\[:PORT\]\[\/PATH\]/],
    [['--tkg-custom-image-repository-skip-tls-verify'], /--tkg-custom-image-repository-skip-tls-verify and --tkg-custom-image-repository-ca-certificate apply to --tkg-custom-image-repository, which is not set/],
    [['--tkg-custom-image-repository', 'harbor.example.com/tkg', '--tkg-custom-image-repository-ca-certificate', '/nonexistent/ca.pem'], /cannot read \/nonexistent\/ca.pem/],
    [['--tkg-custom-image-repository', 'harbor.example.com/tkg'], /--tkg-custom-image-repository needs --cluster-config/],
  ])('%j is a usage error', async (extra, msg) => {
    const r = await cli(['bootstrap', '--package', 'x', '--image', 'i', '--prepare-only', ...extra]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(msg);
  });
});

test('devpkg bootstrap checks the host before creating anything, and --help names the way round it', async () => {
  const r = await cli(['bootstrap', '--help']);
  expect(r.out).toMatch(/--skip-host-check +create even where the host check \(cgroup v1, 4 CPUs, 6 GiB, docker\) refuses/);
});

test('without ytt on PATH and --no-install, --prepare-only fails up front naming ytt instead of weakening its dry-run check', async () => {
  const r = await cli(['bootstrap', '--package', resolve('examples/tce-packages/addons/packages/antrea/1.5.3'), '--image', 'i', '--prepare-only', '--no-install']);
  expect(r.code).toBe(2);
  expect(r.err).toMatch(/^devpkg bootstrap: ytt is not on PATH \(and --no-install: devpkg does not install it\): bootstrap renders the package config and the providers with it for its dry-run check, and will not run that check weakened; install ytt/);
  expect(r.err).not.toContain('the dry-run check renders the providers with ytt');
});

test('a --dev-version that would lose is refused before ytt is looked for or installed', async () => {
  // No ytt on PATH and --no-install: before the fix, the missing ytt was what this run reported.
  const r = await cli(['bootstrap', '--package', resolve('examples/tce-packages/addons/packages/antrea/1.5.3'), '--image', 'i', '--prepare-only', '--no-install', '--dev-version', '1.5.2']);
  expect(r.code).toBe(2);
  expect(r.err).toMatch(/^devpkg bootstrap: dev-version 1\.5\.2 does not outrank 1\.5\.3, the highest antrea version in play/);
  expect(r.err).not.toContain('ytt');
});

test('a --ytt-version devpkg does not pin, without --ytt-sha256: a usage error naming the flag, before anything else', async () => {
  const r = await cli(['bootstrap', '--package', resolve('examples/tce-packages/addons/packages/antrea/1.5.3'), '--image', 'i', '--prepare-only', '--ytt-version', 'v0.50.0']);
  expect(r.code).toBe(2);
  expect(r.err).toMatch(/^devpkg bootstrap: devpkg pins no sha256 for ytt v0\.50\.0 on \S+ .*with ytt-sha256 \(CLI: --ytt-sha256\)/);
});
