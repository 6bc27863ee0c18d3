// One bad package never stops the others (issue 11): a repository with every kind of
// inconsistency seen in vmware-tanzu/community-edition, and files that cannot be used.
import { cpSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { execFileSync } from 'node:child_process';
import { plan } from '../../src/pipeline/plan.js';
import { runCli } from '../../src/cli.js';
import { actionTestScope } from '../support/action-scope.js';
import { runAction } from '../support/run-action.js';

const EXAMPLE = resolve('examples/tce-packages');
const ANTREA = readFileSync(join(EXAMPLE, 'addons/packages/antrea/1.5.3/package.yaml'), 'utf8');
const dirs = actionTestScope();

/** antrea as version `v` with some text replaced. */
function antrea(v: string, ...edits: Array<[string | RegExp, string]>): string {
  let text = ANTREA.replaceAll('1.5.3', v);
  for (const [from, to] of edits) text = text.replace(from, to);
  return text;
}

const FILES: Record<string, string> = {
  // spec.version disagrees with the folder (TCE: external-dns/0.11.0 holds 0.11.0+3)
  'antrea/1.6.0/package.yaml': antrea('1.6.0', [/^ {2}version: 1\.6\.0$/m, '  version: 1.6.0+3'], [/^ {2}name: (.*)\.1\.6\.0$/m, '  name: $1.1.6.0+3']),
  // metadata.name is not refName.version (TCE: prometheus/2.36.2)
  'antrea/1.7.0/package.yaml': antrea('1.7.0', [/^ {2}name: (.*)\.1\.7\.0$/m, '  name: $1.1.7.0-3']),
  // does not parse
  'antrea/1.8.0/package.yaml': antrea('1.8.0', [/^ {2}refName: .*$/m, '  refName: [antrea']),
  // no imgpkgBundle to replace
  'calico/3.23.0/package.yaml': antrea('3.23.0', [/imgpkgBundle:\n\s+image: \S+/, 'http:\n            url: https://example.invalid/x.tgz']),
  // no spec.version
  'calico/3.24.0/package.yaml': antrea('3.24.0', [/^ {2}version: 3\.24\.0\n/m, '']),
};

function makeRepo(git = false): string {
  const dir = mkdtempSync(join(tmpdir(), 'devpkg-problems-'));
  dirs.push(dir);
  cpSync(EXAMPLE, dir, { recursive: true });
  for (const [file, text] of Object.entries(FILES)) {
    const p = join(dir, 'addons/packages', file);
    mkdirSync(dirname(p), { recursive: true });
    writeFileSync(p, text);
  }
  if (git) {
    const g = (...a: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t.invalid', ...a], { cwd: dir, encoding: 'utf8' }).trim();
    g('init', '-q', '-b', 'main');
    g('add', '-A');
    g('commit', '-qm', 'packages');
  }
  return dir;
}

const P = 'addons/packages';

test('plan --all plans every usable version and names each problem with file and line', async () => {
  const root = makeRepo();
  const out = await plan({ root, packagesDir: P, selection: { kind: 'all' }, refName: '', seq: { timestamp: new Date('2026-01-02T03:04:05Z') } });
  expect(out.packages.map((p) => `${p.name}/${p.version} ${p.verdict}`)).toEqual([
    'antrea/1.5.3 planned',
    'antrea/1.6.0 planned',
    'antrea/1.7.0 planned',
    'antrea/1.8.0 error',
    'calico/3.22.1 planned',
    'calico/3.23.0 error',
    'calico/3.24.0 error',
  ]);
  expect(out.problems.map((p) => `${p.path}:${p.line} ${p.severity} ${p.package}`)).toEqual([
    `${P}/antrea/1.6.0/package.yaml:7 warning antrea/1.6.0`,
    `${P}/antrea/1.7.0/package.yaml:4 warning antrea/1.7.0`,
    `${P}/antrea/1.8.0/package.yaml:6 error antrea/1.8.0`,
    `${P}/calico/3.23.0/package.yaml:15 error calico/3.23.0`,
    `${P}/calico/3.24.0/package.yaml:5 error calico/3.24.0`,
  ]);
  const [folder, name, yaml, bundle, version] = out.problems.map((p) => p.message);
  expect(folder).toMatch(/^spec.version 1.6.0\+3 does not match its version folder 1.6.0; devpkg uses 1.6.0\+3 as the released version/);
  expect(name).toMatch(/^Package metadata.name "antrea.community.tanzu.vmware.com.1.7.0-3" is not spec.refName \+ "." \+ spec.version/);
  expect(yaml).toMatch(/^YAML syntax error/);
  expect(bundle).toMatch(/must fetch exactly one imgpkgBundle in spec.template.spec.fetch \(found only http\)/);
  expect(version).toMatch(/^Package spec.version is missing/);

  // The inconsistent ones are planned from spec.version, and the dev Package gets a correct name.
  const byKey = new Map(out.packages.map((p) => [`${p.name}/${p.version}`, p]));
  const a160 = byKey.get('antrea/1.6.0')!;
  expect(a160.problems?.map((p) => p.severity)).toEqual(['warning']);
  expect(a160.reason).toMatch(/^antrea 1.6.0\+3 -> /);
  const a170 = byKey.get('antrea/1.7.0')!;
  expect(a170.plan?.devPackageName).toBe(`antrea.community.tanzu.vmware.com.${a170.devVersion}`);
  // The dev version outranks every version in play, including the folder that was 1.8.0.
  expect(a170.devVersion).toMatch(/^1\.8\.1-dev\./);
  expect(byKey.get('calico/3.24.0')!.reason).toMatch(new RegExp(`^${P}/calico/3.24.0/package.yaml:5: Package spec.version is missing`));
});

function cliIO() {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, io: { stdout: (t: string) => out.push(t), stderr: (t: string) => err.push(t), env: process.env, cwd: process.cwd() } };
}

test('devpkg plan --all --json: problems in the JSON, each named on stderr, exit 1 at the end', async () => {
  const root = makeRepo();
  const c = cliIO();
  const code = await runCli(['plan', '--repo', root, '--all', '--json'], c.io);
  expect(code).toBe(1);
  const json = JSON.parse(c.out.join(''));
  expect(json.packages).toHaveLength(7);
  expect(json.packages.filter((p: { verdict?: string }) => p.verdict === 'error').map((p: { name: string; version: string }) => `${p.name}/${p.version}`)).toEqual([
    'antrea/1.8.0',
    'calico/3.23.0',
    'calico/3.24.0',
  ]);
  expect(json.problems).toHaveLength(5);
  expect(Object.keys(json.problems[0]).sort()).toEqual(['line', 'message', 'package', 'path', 'severity']);
  const stderr = c.err.join('');
  expect(stderr).toContain(`${P}/antrea/1.6.0/package.yaml:7: warning: spec.version 1.6.0+3`);
  expect(stderr).toContain(`${P}/calico/3.23.0/package.yaml:15: error: `);
  expect(stderr).toMatch(/3 package version\(s\) could not be used: antrea\/1.8.0, calico\/3.23.0, calico\/3.24.0/);
});

test('devpkg plan with warnings only exits 0; the text output lists them', async () => {
  const root = makeRepo();
  const c = cliIO();
  const code = await runCli(['plan', '--repo', root, '--packages', 'antrea/1.6.0,antrea/1.7.0'], c.io);
  expect(code).toBe(0);
  const text = c.out.join('');
  expect(text).toContain('Problems (2):');
  expect(text).toContain(`${P}/antrea/1.7.0/package.yaml:4: warning: Package metadata.name`);
});

test('devpkg detect --all checks every listed package.yaml at head', async () => {
  const root = makeRepo(true);
  const c = cliIO();
  const code = await runCli(['detect', '--repo', root, '--all', '--json'], c.io);
  expect(code).toBe(1);
  const json = JSON.parse(c.out.join(''));
  expect(json.packages).toHaveLength(7);
  expect(json.problems.map((p: { path: string; severity: string }) => `${p.path} ${p.severity}`)).toEqual([
    `${P}/antrea/1.6.0/package.yaml warning`,
    `${P}/antrea/1.7.0/package.yaml warning`,
    `${P}/antrea/1.8.0/package.yaml error`,
    `${P}/calico/3.23.0/package.yaml error`,
    `${P}/calico/3.24.0/package.yaml error`,
  ]);
});

test('action plan mode: annotations on file and line, a problems output, the summary lists them, one failure at the end', async () => {
  const repo = makeRepo(true);
  const { printed, outputs, summary } = await runAction(dirs, repo, {
    INPUT_MODE: 'plan',
    INPUT_PACKAGES: 'antrea/1.6.0,calico/3.23.0,calico/3.22.1',
    'INPUT_PACKAGES-DIR': P,
  });
  expect(process.exitCode).toBe(1);
  const commands = printed.split('\n').filter((l) => /^::(warning|error) /.test(l));
  expect(commands.find((l) => l.startsWith('::warning ') && l.includes(`file=${P}/antrea/1.6.0/package.yaml`))).toMatch(/line=7/);
  expect(commands.find((l) => l.startsWith('::error ') && l.includes(`file=${P}/calico/3.23.0/package.yaml`))).toMatch(/line=15/);
  expect(printed).toMatch(/::error::1 package version\(s\) could not be used: calico\/3.23.0/);
  const problems = JSON.parse(outputs.problems!);
  expect(problems.map((p: { package: string; severity: string }) => `${p.package} ${p.severity}`)).toEqual(['antrea/1.6.0 warning', 'calico/3.23.0 error']);
  expect(summary).toContain('Problems in package files (1 error, 1 warning)');
  expect(summary).toContain(`${P}/antrea/1.6.0/package.yaml:7`);
});

test('issue 35, action plan mode: a repository Package that does not outrank the base is that package\'s error at its line; the other is planned, outputs written, one failure at the end', async () => {
  const repo = mkdtempSync(join(tmpdir(), 'devpkg-problems-repo-'));
  dirs.push(repo);
  const pkg = (refName: string, v: string) =>
    `apiVersion: data.packaging.carvel.dev/v1alpha1\nkind: Package\nmetadata:\n  name: ${refName}.${v}\nspec:\n  refName: ${refName}\n  version: ${v}\n  template:\n    spec:\n      fetch:\n      - imgpkgBundle:\n          image: registry.test/x@sha256:${'1'.repeat(64)}\n`;
  const put = (files: Record<string, string>) => {
    for (const [f, t] of Object.entries(files)) {
      mkdirSync(dirname(join(repo, f)), { recursive: true });
      writeFileSync(join(repo, f), t);
    }
  };
  const g = (...a: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t.invalid', ...a], { cwd: repo, encoding: 'utf8' }).trim();
  put({ 'packages/app.devpkg.test/1.0.0.yml': pkg('app.devpkg.test', '1.0.0'), 'packages/app.devpkg.test/2.0.0.yml': pkg('app.devpkg.test', '2.0.0'), 'packages/other.devpkg.test/3.0.0.yml': pkg('other.devpkg.test', '3.0.0') });
  g('init', '-q', '-b', 'main');
  g('add', '-A');
  g('commit', '-qm', 'base');
  g('checkout', '-qb', 'pr');
  put({ 'packages/app.devpkg.test/1.0.0.yml': `${pkg('app.devpkg.test', '1.0.0')}  releaseNotes: a fix\n`, 'packages/other.devpkg.test/3.1.0.yml': pkg('other.devpkg.test', '3.1.0') });
  g('add', '-A');
  g('commit', '-qm', 'change');
  const { printed, outputs } = await runAction(dirs, repo, { INPUT_MODE: 'plan', 'INPUT_BASE-REF': 'main', 'INPUT_HEAD-REF': 'pr' });
  expect(process.exitCode).toBe(1);
  const file = 'packages/app.devpkg.test/1.0.0.yml';
  expect(printed.split('\n').find((l) => l.startsWith('::error ') && l.includes(`file=${file}`))).toMatch(/line=7.*does not outrank 2\.0\.0/);
  expect(printed).toMatch(/::error::1 package version\(s\) could not be used: app\/1.0.0/);
  const packages = JSON.parse(outputs.packages!) as Record<string, unknown>[];
  expect(packages.map((p) => [`${p.name}/${p.version}`, p.verdict ?? 'planned', p.line])).toEqual([
    ['app/1.0.0', 'error', 7],
    ['other/3.1.0', 'planned', undefined],
  ]);
  expect(packages[1]).toMatchObject({ released: '3.0.0', upgradeFrom: { version: '3.0.0', file: 'packages/other.devpkg.test/3.0.0.yml' } });
});
