// `devpkg plan --out DIR --build` on a kctrl package, with the harness's real ytt, kbld, imgpkg,
// kubectl and kapp-controller: the bundle folder the plan wrote is what `kctrl package release`
// builds, and the printed imgpkg push and kubectl apply lines, run by bash from the folder the
// plan ran in, push it to the harness registry and put the dev Package into the cluster.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { newRunId, repoRoot, runCliIn } from './helpers/run.js';

const base = mkdtempSync(join(tmpdir(), 'devpkg-plan-out-'));
const run = newRunId();
let applied: string | undefined;
afterAll(() => {
  if (applied) execFileSync('kubectl', ['delete', '--ignore-not-found', '-f', applied], { stdio: 'pipe' });
  rmSync(base, { recursive: true, force: true });
});

function registry(): string {
  const r = process.env.DEVPKG_TEST_REGISTRY;
  if (!r) throw new Error('DEVPKG_TEST_REGISTRY is not set; run with `npm run test:integration` (the harness globalSetup sets it)');
  return r;
}

test('plan --out --build writes the built bundle; its push and apply lines run as printed', async () => {
  const repo = join(base, 'repo');
  cpSync(join(repoRoot, 'examples', 'kctrl'), repo, { recursive: true });
  const cwd = join(base, 'work');
  mkdirSync(cwd);
  const r = await runCliIn(cwd, ['plan', '--repo', '../repo', '--all', '--registry', `${registry()}/plan-out-${run}`, '--out', 'plan', '--build']);
  expect(r.code).toBe(0);
  const bundle = join(cwd, 'plan', 'simple-app', '0.0.0', 'bundle');
  expect(readdirSync(bundle).sort()).toEqual(['.imgpkg', 'config']);
  expect(readFileSync(join(bundle, '.imgpkg', 'images.yml'), 'utf8')).toContain('kind: ImagesLock');
  // Nothing of the build is left beside the plan's folder.
  expect(readdirSync(cwd)).toEqual(['plan']);

  const lines = r.stdout.split('\n').map((l) => l.trim()).filter((l) => /^(imgpkg push|kubectl apply) /.test(l));
  expect(lines.map((l) => l.split(' ')[0])).toEqual(['imgpkg', 'kubectl']);
  expect(lines[0]).toContain(' -f plan/simple-app/0.0.0/bundle ');
  for (const line of lines) execFileSync('bash', ['-euc', line], { cwd, stdio: 'pipe' });
  applied = join(cwd, 'plan', 'simple-app', '0.0.0', 'dev-package.yaml');

  // The lock the push wrote where the plan said, and the Package the cluster now serves.
  const lock = parse(readFileSync(join(cwd, 'plan', 'simple-app', '0.0.0', 'bundle.lock.yml'), 'utf8'));
  expect(lock.bundle.image).toMatch(new RegExp(`^${registry().replace(/[.]/g, '\\.')}/plan-out-${run}/simple-app-bundle@sha256:[0-9a-f]{64}$`));
  const pkg = parse(readFileSync(applied, 'utf8'));
  const got = JSON.parse(execFileSync('kubectl', ['get', 'packages.data.packaging.carvel.dev', pkg.metadata.name, '-n', pkg.metadata.namespace ?? 'default', '-o', 'json'], { encoding: 'utf8' }));
  expect(got.spec.version).toBe(pkg.spec.version);
});
