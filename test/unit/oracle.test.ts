// scripts/oracle.mjs, the independent oracle devpkg is checked against on real repositories
// (docs/development.md), run as a process on a small git repository holding the three forms of
// package: what each commit touches and removes, and how it compares with a devpkg's JSON.
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { TestRepo, removeTempDirs, tempDir } from '../../src/detect/test-repo.js';

const SCRIPT = resolve('scripts/oracle.mjs');

const pkg = (version: string, extra = '') => `apiVersion: data.packaging.carvel.dev/v1alpha1
kind: Package
metadata:
  name: simple-app.corp.com.${version}
spec:
  refName: simple-app.corp.com
  version: ${version}
  template:
    spec:
      fetch:
      - imgpkgBundle:
          image: registry.invalid/simple-app@sha256:${'a'.repeat(64)}
${extra}`;

const meta = (description: string) => `apiVersion: data.packaging.carvel.dev/v1alpha1
kind: PackageMetadata
metadata:
  name: simple-app.corp.com
spec:
  shortDescription: ${description}
`;

const build = `apiVersion: kctrl.carvel.dev/v1alpha1
kind: PackageBuild
metadata:
  name: web.corp.com
spec:
  template:
    spec:
      app:
        spec:
          template:
          - ytt:
              paths:
              - config
          - kbld:
              paths:
              - '-'
      export:
      - imgpkgBundle:
          image: registry.invalid/web
        includePaths:
        - config
`;

const resources = `apiVersion: data.packaging.carvel.dev/v1alpha1
kind: Package
metadata:
  name: web.corp.com.0.0.0
spec:
  refName: web.corp.com
  version: 0.0.0
`;

interface Entry { name: string; version: string }
interface Row {
  subject: string;
  oracle: { touched: Entry[]; removed: Entry[] };
  result?: Record<string, string[] | boolean | string>;
}

async function oracle(dir: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const r = await promisify(execFile)(process.execPath, [SCRIPT, dir, ...args], { encoding: 'utf8' });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

const names = (l: Entry[]) => l.map((e) => (e.version === '*' ? e.name : `${e.name}/${e.version}`));

afterAll(removeTempDirs);

describe('scripts/oracle.mjs', () => {
  let repo: TestRepo;
  const commit = (subject: string) => {
    repo.git('add', '-A');
    repo.git('commit', '-q', '--allow-empty', '-m', subject);
  };

  beforeAll(() => {
    repo = TestRepo.init();
    repo.write({
      'repo/packages/simple-app.corp.com/1.0.0.yml': pkg('1.0.0'),
      'repo/packages/simple-app.corp.com/metadata.yml': meta('one'),
      'repo/packages/app/config/template.yaml': 'a: 1\na: 2\n',
      'addons/packages/foo/1.0.0/package.yaml': 'apiVersion: data.packaging.carvel.dev/v1alpha1\nkind: Package\nspec:\n  refName: foo.corp.com\n  version: 1.0.0\n',
      'addons/packages/foo/1.0.0/bundle/config/x.yaml': 'x: 1\n',
      'addons/packages/foo/metadata.yaml': 'kind: PackageMetadata\nspec: {a: 1}\n',
      'web/package-build.yml': build,
      'web/package-resources.yml': resources,
      'web/config/app.yml': 'app: 1\n',
      'web/main.go': 'package main\n',
    });
    commit('initial');
    repo.git('tag', 'v0.1.0');
    repo.write({ 'repo/packages/simple-app.corp.com/1.0.0.yml': `# a comment\n${pkg('1.0.0').replace('kind: Package\n', '').replace('apiVersion:', 'kind: Package\napiVersion:')}` });
    commit('comment and key order');
    repo.mv('repo/packages/simple-app.corp.com/1.0.0.yml', 'repo/packages/simple-app.corp.com/v1.0.0.yaml');
    commit('pure rename');
    repo.write({ 'addons/packages/foo/1.0.0/bundle/config/x.yaml': 'x: 2\n' });
    commit('bundle edit');
    repo.write({ 'repo/packages/simple-app.corp.com/1.1.0.yml': pkg('1.1.0') });
    commit('new version');
    repo.write({ 'repo/packages/simple-app.corp.com/metadata.yml': meta('two') });
    commit('metadata edit');
    repo.write({ 'addons/packages/foo/metadata.yaml': '# only a comment\nkind: PackageMetadata\nspec: {a: 1}\n' });
    commit('tce metadata comment');
    repo.write({ 'web/main.go': 'package main // not in the package\n' });
    commit('kctrl source outside includePaths');
    repo.write({ 'web/config/app.yml': 'app: 2\n' });
    commit('kctrl config edit');
    repo.git('tag', 'v0.2.0');
    repo.rm('repo/packages/simple-app.corp.com/v1.0.0.yaml');
    commit('remove a version');
    repo.write({ 'repo/packages/app/config/template.yaml': 'a: 1\na: 3\n', 'README.md': 'words\n' });
    commit('template and markdown');
    repo.write({ 'web/package-build.yml': build.replace('name: web.corp.com', 'name: web.other.com') });
    commit('kctrl refName change');
  });

  test('decides from the two trees what each commit touches and removes', async () => {
    const r = await oracle(repo.dir, ['--commits', '20', '--oracle-only', '--json']);
    expect(r.code).toBe(0);
    const rows = (JSON.parse(r.stdout) as { rows: Row[] }).rows;
    const got = Object.fromEntries(rows.map((row) => [row.subject, { touched: names(row.oracle.touched), removed: names(row.oracle.removed) }]));
    expect(got).toEqual({
      'comment and key order': { touched: [], removed: [] },
      'pure rename': { touched: [], removed: [] },
      'bundle edit': { touched: ['foo/1.0.0'], removed: [] },
      'new version': { touched: ['simple-app/1.1.0'], removed: [] },
      'metadata edit': { touched: ['simple-app/1.1.0'], removed: [] },
      'tce metadata comment': { touched: [], removed: [] },
      'kctrl source outside includePaths': { touched: [], removed: [] },
      'kctrl config edit': { touched: ['web'], removed: [] },
      'remove a version': { touched: [], removed: ['simple-app/1.0.0'] },
      'template and markdown': { touched: [], removed: [] },
      'kctrl refName change': { touched: ['web'], removed: ['web'] },
    });
  });

  test('compares with a devpkg JSON: the packages, the removed, the kctrl version from tags the base can see', async () => {
    // A devpkg stand-in that prints, for every commit, the same answer: one extra package and a
    // kctrl version (0.2.0) from a tag the base of "kctrl config edit" cannot see.
    const dir = tempDir('devpkg-oracle-');
    const standin = join(dir, 'cli.mjs');
    writeFileSync(standin, `const head = process.argv[process.argv.indexOf('--head') + 1];
const subject = (await import('node:child_process')).execFileSync('git', ['log', '-1', '--format=%s', head], { encoding: 'utf8' }).trim();
const answers = {
  'kctrl config edit': { packages: [{ name: 'web', version: '0.2.0', path: 'web' }], removed: [] },
  'bundle edit': { packages: [{ name: 'foo', version: '1.0.0', path: 'addons/packages/foo/1.0.0' }], removed: [] },
  'remove a version': { packages: [], removed: [{ name: 'simple-app', version: '1.0.0' }] },
  'pure rename': { packages: [{ name: 'simple-app', version: '1.0.0', path: 'x' }], removed: [] },
};
process.stdout.write(JSON.stringify(answers[subject] ?? { packages: [], removed: [] }));
`);
    const r = await oracle(repo.dir, ['--commits', '20', '--json', '--devpkg', standin]);
    expect(r.code).toBe(1);
    const out = JSON.parse(r.stdout) as { commits: number; agreed: number; rows: Row[] };
    const bySubject = Object.fromEntries(out.rows.map((row) => [row.subject, row.result]));
    expect(out.commits).toBe(12 - 1);
    expect(bySubject['pure rename']).toMatchObject({ agree: false, onlyDevpkg: ['simple-app/1.0.0'] });
    expect(bySubject['kctrl config edit']).toMatchObject({ agree: false, releasedDiffer: ['web: oracle 0.1.0, devpkg 0.2.0'] });
    expect(bySubject['bundle edit']).toMatchObject({ agree: true });
    expect(bySubject['remove a version']).toMatchObject({ agree: true });
    expect(bySubject['new version']).toMatchObject({ agree: false, onlyOracle: ['simple-app/1.1.0'] });
    expect(out.agreed).toBe(out.rows.filter((row) => row.result?.agree === true).length);
    expect(out.agreed).toBe(6);
  });

  test('bad usage is exit 2 naming the flag', async () => {
    const r = await oracle(repo.dir, ['--commits', 'none']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('oracle: --commits must be a whole number above 0\n');
  });
});
