// test/harness/tkg.sh refuses clearly, before starting anything, when what it needs is not there:
// the harness, the BOM images and the kubeconfig to give the stand-in TKG controllers. It builds
// nothing (tanzu-framework is not built: the controllers are our stand-in).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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

test('start without a harness: says to run controlplane.sh up --tkg', () => {
  const r = tkg(['start', '--bom-image', 'r/b', '--metadata-image', 'r/m'], {});
  expect(r.code).not.toBe(0);
  expect(r.stderr).toContain('DEVPKG_HARNESS_DIR is not set; run through test/harness/controlplane.sh up --tkg');
});

test('start without the images: names both flags; leaves nothing behind but the harness folders', () => {
  const kubeconfig = join(dir, 'kubeconfig');
  writeFileSync(kubeconfig, '');
  const r = tkg(['start'], { DEVPKG_HARNESS_DIR: join(dir, 'h'), KUBECONFIG: kubeconfig });
  expect(r.code).not.toBe(0);
  expect(r.stderr).toContain('start needs --bom-image REPO and --metadata-image REPO');
  expect(readdirSync(join(dir, 'h', 'run'))).toEqual([]);
});

test('start with a kubeconfig that does not exist: names it; starts nothing', () => {
  const r = tkg(['start', '--bom-image', 'r/b', '--metadata-image', 'r/m', '--kubeconfig', join(dir, 'nope')], { DEVPKG_HARNESS_DIR: join(dir, 'h') });
  expect(r.code).not.toBe(0);
  expect(r.stderr).toContain(`start needs the kubeconfig of the cluster the controllers act on (--kubeconfig FILE or KUBECONFIG; got '${join(dir, 'nope')}')`);
  expect(readdirSync(join(dir, 'h', 'run'))).toEqual([]);
});

test('start before up: says up has not run', () => {
  const kubeconfig = join(dir, 'kubeconfig');
  writeFileSync(kubeconfig, '');
  const r = tkg(['start', '--bom-image', 'r/b', '--metadata-image', 'r/m'], { DEVPKG_HARNESS_DIR: join(dir, 'h'), KUBECONFIG: kubeconfig });
  expect(r.code).not.toBe(0);
  expect(r.stderr).toContain(`test/harness/tkg.sh up has not run on ${join(dir, 'h')}`);
});

test('an unknown command prints the usage; there is no build command', () => {
  for (const cmd of ['frobnicate', 'build', 'version']) {
    const r = tkg([cmd], {});
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/usage: tkg\.sh up \| start --bom-image REPO --metadata-image REPO \[--kubeconfig FILE\] \| stop \| down \| status \| pids/);
  }
  expect(readFileSync(script, 'utf8')).not.toMatch(/go build|git apply|tanzu-framework-v/);
});

test('the stand-in controllers refuse a missing kubeconfig or missing images, with the usage', () => {
  const standin = join('test', 'standin', 'tkg-controllers', 'tkg-controllers.mjs');
  for (const [args, msg] of [
    [['addons-manager'], '--kubeconfig FILE is required'],
    [['tkr-controller', '--kubeconfig', 'k'], '--bom-image REPO and --metadata-image REPO are required'],
    [['addons-manager', '--kubeconfig'], '--kubeconfig needs a value'],
    [['addons-manager', '--frobnicate', 'x'], 'unknown argument --frobnicate'],
    [['other'], 'unknown controller other'],
  ] as const) {
    const r = spawnSync(process.execPath, [standin, ...args], { encoding: 'utf8' });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(msg);
    expect(r.stderr).toContain('usage: tkg-controllers.mjs addons-manager --kubeconfig FILE');
  }
});
