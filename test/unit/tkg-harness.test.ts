// test/harness/tkg.sh refuses clearly, before building or starting anything, when what it needs
// is not there: the tanzu-framework source in shared/ beside the repository, the harness, the
// BOM images to give the TKR controller.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const script = join('test', 'harness', 'tkg.sh');

function tkg(args: string[], env: Record<string, string>): { code: number; stderr: string } {
  const base = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' };
  const r = spawnSync('bash', [script, ...args], { env: { ...base, ...env }, encoding: 'utf8' });
  return { code: r.status ?? 1, stderr: r.stderr };
}

let dir = '';
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'devpkg-tkg-unit-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

test('build without ../shared/src: names the missing source folder and how to point at it; builds nothing', () => {
  const r = tkg(['build'], { DEVPKG_CACHE: join(dir, 'cache'), DEVPKG_SHARED_DIR: join(dir, 'no-shared') });
  expect(r.code).not.toBe(0);
  expect(r.stderr).toContain(`${join(dir, 'no-shared')}/src/tanzu-framework-v0.25.4 is missing`);
  expect(r.stderr).toContain('DEVPKG_SHARED_DIR');
  expect(readdirSync(dir)).toEqual([]);
});

test('start without a harness: says to run controlplane.sh up --tkg', () => {
  const r = tkg(['start', '--bom-image', 'r/b', '--metadata-image', 'r/m'], {});
  expect(r.code).not.toBe(0);
  expect(r.stderr).toContain('DEVPKG_HARNESS_DIR is not set; run through test/harness/controlplane.sh up --tkg');
});

test('start without the images: names both flags; leaves nothing behind but the harness folders', () => {
  const kubeconfig = join(dir, 'kubeconfig');
  spawnSync('bash', ['-c', `: > ${kubeconfig}`]);
  const r = tkg(['start'], { DEVPKG_HARNESS_DIR: join(dir, 'h'), KUBECONFIG: kubeconfig });
  expect(r.code).not.toBe(0);
  expect(r.stderr).toContain('start needs --bom-image REPO and --metadata-image REPO');
  expect(readdirSync(join(dir, 'h', 'run'))).toEqual([]);
});

test('an unknown command prints the usage', () => {
  const r = tkg(['frobnicate'], {});
  expect(r.code).not.toBe(0);
  expect(r.stderr).toMatch(/usage: tkg\.sh build \| up \| start --bom-image REPO --metadata-image REPO \| stop \| down \| status \| pids \| version/);
});
