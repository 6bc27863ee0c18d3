import { appendFileSync, cpSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { execFileSync } from 'node:child_process';
import { parse } from 'yaml';
import { plan, matrixOf } from '../../src/pipeline/plan.js';
import { runCli } from '../../src/cli.js';
import { compareVersions } from '../../src/versions/index.js';
import { renderReport } from '../../src/report/render.js';

const EXAMPLE = resolve('examples/tce-packages');
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

function gitRepoFromExample(): string {
  const dir = mkdtempSync(join(tmpdir(), 'devpkg-plan-'));
  dirs.push(dir);
  cpSync(EXAMPLE, dir, { recursive: true });
  const g = (...a: string[]) =>
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t.invalid', ...a], { cwd: dir, encoding: 'utf8' }).trim();
  g('init', '-q', '-b', 'main');
  g('add', '-A');
  g('commit', '-qm', 'base');
  g('checkout', '-qb', 'change');
  appendFileSync(join(dir, 'addons/packages/antrea/1.5.3/bundle/config/values.yaml'), '#! a change\n');
  writeFileSync(join(dir, 'addons/packages/calico/README.md'), 'docs only\n');
  g('add', '-A');
  g('commit', '-qm', 'change antrea');
  return dir;
}

function io() {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, io: { stdout: (t: string) => out.push(t), stderr: (t: string) => err.push(t), env: process.env, cwd: process.cwd() } };
}

describe('plan', () => {
  test('every version of the example repository, with a refName mapping', async () => {
    const out = await plan({
      root: EXAMPLE,
      packagesDir: 'addons/packages',
      selection: { kind: 'all' },
      registry: { host: 'registry.example.com', path: 'dev' },
      refName: 'antrea.community.tanzu.vmware.com=antrea.tanzu.vmware.com',
      seq: { runNumber: 42, runAttempt: 2 },
    });
    expect(out.packages.map((p) => `${p.name}/${p.version}`)).toEqual(['antrea/1.5.3', 'calico/3.22.1']);
    const antrea = out.packages[0];
    expect(antrea.targetRefName).toBe('antrea.tanzu.vmware.com');
    expect(compareVersions(antrea.devVersion!, '1.5.3')).toBeGreaterThan(0);
    expect(antrea.plan?.bundleImage).toBe(`registry.example.com/dev/antrea-bundle:${antrea.plan?.bundleTag}`);
    const pkg = parse(antrea.plan!.packageYaml);
    expect(pkg.metadata.name).toBe(`antrea.tanzu.vmware.com.${antrea.devVersion}`);
    expect(pkg.spec.refName).toBe('antrea.tanzu.vmware.com');
    expect(pkg.spec.version).toBe(antrea.devVersion);
    expect(antrea.plan?.overlayPath).toBe('providers/ytt/04_user_customizations/antrea_dev_package.yaml');
    expect(antrea.plan?.overlay).toContain('#@ load("@ytt:yaml", "yaml")');
    // calico is not in the mapping: keeps its refName
    expect(out.packages[1].targetRefName).toBe('calico.community.tanzu.vmware.com');
    const matrix = JSON.parse(matrixOf(out.packages));
    expect(matrix.include.map((m: { package: string }) => m.package)).toEqual(['antrea/1.5.3', 'calico/3.22.1']);
  });

  test('dev versions rise with the run number (the downgrade guard)', async () => {
    const at = async (runNumber: number) =>
      (await plan({ root: EXAMPLE, packagesDir: 'addons/packages', selection: { kind: 'explicit', packages: ['antrea/1.5.3'] }, refName: '', seq: { runNumber, runAttempt: 1 } }))
        .packages[0].devVersion!;
    const [a, b] = [await at(9), await at(10)];
    expect(compareVersions(b, a)).toBeGreaterThan(0);
  });

  test('a diff marks only the changed version; markdown does not count', async () => {
    const repo = gitRepoFromExample();
    const out = await plan({ root: repo, packagesDir: 'addons/packages', selection: { kind: 'diff', base: 'main', head: 'change', rangeKind: 'pr' }, refName: '', seq: { timestamp: new Date() } });
    expect(out.packages.map((p) => `${p.name}/${p.version}`)).toEqual(['antrea/1.5.3']);
  });

  test('an unknown package is an error of that package; the others are planned', async () => {
    const out = await plan({ root: EXAMPLE, packagesDir: 'addons/packages', selection: { kind: 'explicit', packages: ['nope/1.0.0', 'antrea/1.5.3'] }, refName: '', seq: { timestamp: new Date() } });
    expect(out.packages.map((p) => `${p.name}/${p.version} ${p.verdict}`)).toEqual(['nope/1.0.0 error', 'antrea/1.5.3 planned']);
    expect(out.problems).toEqual([
      { path: 'addons/packages/nope/1.0.0', severity: 'error', package: 'nope/1.0.0', message: expect.stringMatching(/^unknown package nope: .*known: antrea, calico$/) },
    ]);
  });

  test('a forced dev version below the released one is refused', async () => {
    await expect(
      plan({ root: EXAMPLE, packagesDir: 'addons/packages', selection: { kind: 'explicit', packages: ['antrea/1.5.3'] }, refName: '', seq: { timestamp: new Date() }, devVersion: '1.5.2' }),
    ).rejects.toThrow(/does not outrank 1.5.3/);
  });
});

describe('devpkg plan', () => {
  test('--json carries the fields other tools read', async () => {
    const repo = gitRepoFromExample();
    const t = io();
    const code = await runCli(['plan', '--repo', repo, '--base', 'main', '--head', 'change', '--registry', 'r.example.com/x', '--json'], t.io);
    expect(t.err.join('')).toBe('');
    expect(code).toBe(0);
    const doc = JSON.parse(t.out.join(''));
    expect(doc.removed).toEqual([]);
    expect(doc.packages).toHaveLength(1);
    for (const k of ['name', 'version', 'path', 'refName', 'devVersion', 'devPackageName', 'bundleTag', 'packageYaml', 'overlay']) {
      expect(doc.packages[0][k]).toBeTruthy();
    }
    expect(doc.packages[0].bundleTag).not.toContain('+');
  });

  test('usage errors exit 2', async () => {
    const t = io();
    expect(await runCli(['plan', '--repo', EXAMPLE], t.io)).toBe(2);
    expect(t.err.join('')).toMatch(/exactly one of --base REF, --all or --packages/);
    expect(await runCli(['plan', '--bogus'], io().io)).toBe(2);
  });

  test('an unknown base ref fails with exit 1 and names the ref', async () => {
    const repo = gitRepoFromExample();
    const t = io();
    expect(await runCli(['plan', '--repo', repo, '--base', 'no-such-branch'], t.io)).toBe(1);
    expect(t.err.join('')).toContain('no-such-branch');
  });

  test('readable output names the dev version and the overlay file', async () => {
    const t = io();
    expect(await runCli(['plan', '--repo', EXAMPLE, '--packages', 'calico/3.22.1'], t.io)).toBe(0);
    const text = t.out.join('');
    expect(text).toContain('calico/3.22.1');
    expect(text).toContain('04_user_customizations/calico_dev_package.yaml');
  });
});


describe("the action's plan: commands for the repository root, no file the runner did not write", () => {
  test.each([
    ['tce-packages', 'antrea/1.5.3', true],
    ['kctrl', 'simple-app/0.0.0', false],
    ['repository', 'simple-app/1.1.0', false],
  ])('examples/%s %s', async (example, pkg, bootstrappable) => {
    const root = resolve('examples', example);
    const out = await plan({ root, packagesDir: 'addons/packages', selection: { kind: 'explicit', packages: [pkg] }, refName: '', seq: { runNumber: 3, runAttempt: 1 } });
    const commands = out.packages[0]!.plan!.commands;
    expect(commands[0]).toMatch(new RegExp(`^devpkg plan --repo \\. --packages ${pkg.replace(/\./g, '\\.')} .*--out devpkg-plan `));
    // Every other line names only what the checkout holds: no file of the plan's folder, no placeholder.
    for (const c of commands.slice(1)) {
      expect(c).not.toContain('devpkg-plan');
      expect(c).not.toMatch(/<[a-z][^>]*>/);
    }
    for (const m of commands.join('\n').matchAll(/--(?:package|repo) (\S+)/g)) expect(existsSync(resolve(root, m[1]!))).toBe(true);
    expect(commands.some((c) => c.startsWith('SUPPRESS_PROVIDERS_UPDATE=1 tanzu'))).toBe(false); // it needs the overlay's cp
    expect(commands.some((c) => c.startsWith('devpkg bootstrap '))).toBe(bootstrappable);
    expect(commands.some((c) => c.startsWith('devpkg kind '))).toBe(!bootstrappable);
    // The summary and the comment show these very lines.
    const md = renderReport({ header: 'devpkg', entries: [{ result: out.packages[0]! }] }).markdown;
    for (const c of commands) expect(md).toContain(c);
  });
});
