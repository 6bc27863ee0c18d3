import { jest } from '@jest/globals';
import { cpSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Git } from '../tools/git.js';
import { detectChanges } from '../detect/detect.js';
import { withTrees } from '../../test/support/detect.js';
import { removeTempDirs, tempDir, TestRepo } from '../detect/test-repo.js';
import { plan } from '../pipeline/plan.js';
import { runCli } from '../cli.js';
import { renderReport } from '../report/render.js';
import { Layouts, workTree } from './index.js';
import { parsePackageBuild, releasedFromTags, watchedBy } from './kctrl.js';

jest.setTimeout(30000);
afterAll(removeTempDirs);

const EXAMPLE = new URL('../../examples/kctrl', import.meta.url).pathname;
const BUILD = 'simple-app/package-build.yml';
const ids = (r: { name: string; version: string }[]) => r.map((v) => `${v.name}/${v.version}`);
const repoPkg = (v: string) =>
  `apiVersion: data.packaging.carvel.dev/v1alpha1\nkind: Package\nmetadata:\n  name: other.devpkg.test.${v}\nspec:\n  refName: other.devpkg.test\n  version: ${v}\n  template:\n    spec:\n      fetch:\n      - imgpkgBundle:\n          image: registry.test/other@sha256:${'1'.repeat(64)}\n`;

/** examples/kctrl/simple-app in a subfolder, beside a package repository's repo/packages/ tree. */
function mixedRepo(): TestRepo {
  const r = TestRepo.init();
  cpSync(EXAMPLE, r.dir, { recursive: true });
  r.write({ 'repo/packages/other/1.0.0.yml': repoPkg('1.0.0') }).commit('initial');
  return r;
}

describe('package-build.yml', () => {
  test('the example parses: refName, image, includePaths, the ytt paths', async () => {
    const src = await workTree(EXAMPLE).read(BUILD);
    const b = parsePackageBuild(src!, BUILD);
    expect(b).toMatchObject({ dir: 'simple-app', refName: 'simple-app.devpkg.example.com', image: 'registry.example.com/packages/simple-app', useKbldImagesLock: true, includePaths: ['config', '.imgpkg/images.yml'], yttPaths: ['config'] });
    const watched = watchedBy(b);
    expect(['simple-app/config/config.yml', 'simple-app/package-resources.yml', 'simple-app/vendir.lock.yml', BUILD].every(watched)).toBe(true);
    expect(['simple-app/README.md', 'simple-app/test/x.yml', 'config/config.yml'].some(watched)).toBe(false);
  });

  test.each([
    ['no export', 'export:\n      - imgpkgBundle:\n          image: registry.example.com/packages/simple-app\n          useKbldImagesLock: true\n        includePaths:\n        - config\n        - .imgpkg/images.yml\n', '', 9, /has no export with an imgpkgBundle image/],
    ['a refName of two labels', 'name: simple-app.devpkg.example.com', 'name: simple-app.example', 4, /not a valid refName/],
    ['no includePaths', '        includePaths:\n        - config\n        - .imgpkg/images.yml\n', '', 23, /no includePaths/],
  ])('%s is an error with file and line', async (_what, from, to, line, message) => {
    const src = (await workTree(EXAMPLE).read(BUILD))!.replace(from, to);
    expect(() => parsePackageBuild(src, BUILD)).toThrow(expect.objectContaining({ file: BUILD, line, message: expect.stringMatching(message) }));
  });

  test.each([
    [['v1.0.0', 'v1.2.0', 'v1.10.0-rc.1', 'nightly'], 'v1.10.0-rc.1'],
    [['simple-app/v2.0.0', 'v1.0.0'], 'simple-app/v2.0.0'],
    [['simple-app-v1.0.0', 'v2.0.0'], 'v2.0.0'],
    [['simple-app.devpkg.example.com/v1.1.0', 'v1.0.0'], 'simple-app.devpkg.example.com/v1.1.0'],
    [['other/v9.0.0', 'other-v9.0.0'], undefined],
    [[], undefined],
  ])('the released version from tags %j (one package): tag %s', (tags, want) => {
    expect(releasedFromTags(tags, 'simple-app.devpkg.example.com')?.tag).toBe(want);
  });

  test.each([
    [['v1.2.0', 'broken-v0.1.0'], 'broken.devpkg.example.com', 'broken-v0.1.0'],
    [['v1.2.0', 'broken-v0.1.0'], 'simple-app.devpkg.example.com', 'v1.2.0'],
    [['v1.2.0', 'broken/v0.1.0', 'broken-v0.0.9'], 'broken.devpkg.example.com', 'broken/v0.1.0'],
  ])('with several packages, a package\'s own tags come before repository-wide ones: %j for %s gives %s', (tags, refName, want) => {
    expect(releasedFromTags(tags, refName, { shared: true })).toMatchObject({ tag: want, own: want !== 'v1.2.0' });
  });
});

describe('kctrl layout on git repositories', () => {
  test('auto recognises a kctrl package in a subfolder beside a repo/packages/ tree', async () => {
    const r = mixedRepo();
    const out = await plan({ root: r.dir, packagesDir: 'addons/packages', selection: { kind: 'all' }, refName: '', seq: { timestamp: new Date() } });
    expect(out.problems).toEqual([]);
    expect(out.packages.map((p) => [`${p.name}/${p.version}`, p.plan?.layout])).toEqual([
      ['simple-app/0.0.0', 'kctrl'],
      ['other/1.0.0', 'repository'],
    ]);
    const k = out.packages[0]!;
    expect(k.plan?.notes).toEqual(expect.arrayContaining([expect.stringContaining('layout kctrl (recognised by its files: simple-app)'), expect.stringContaining('0.0.0')]));
    expect(k.plan?.packageYaml).toContain('imgpkgBundle:');
    expect(k.plan?.packageYaml).not.toContain('git: {}');
    // The action's rendering: the bundle is built by the plan that writes the files.
    expect(k.plan?.commands[0]).toMatch(/^devpkg plan --repo \. --packages simple-app\/0\.0\.0 .*--build --out devpkg-plan /);
    // Not a version folder: no bootstrap lines, and kind is the next step.
    expect(k.plan?.commands.join('\n')).not.toContain('SUPPRESS_PROVIDERS_UPDATE');
    expect(k.plan?.commands.some((c) => c.startsWith('devpkg kind --repo . --packages simple-app/0.0.0'))).toBe(true);
  });

  test('detect: template, includePaths and package files mark the package; other files do not', async () => {
    const r = mixedRepo();
    const base = r.head();
    r.checkout('pr', true);
    const git = await Git.create(r.dir);
    const layouts = Layouts.open('auto', { packagesDir: 'addons/packages' });
    const detect = () => detectChanges({ ...withTrees(git, layouts), base });
    r.write({ 'simple-app/NOTES.txt': 'not in the bundle\n', 'docs/x.txt': 'x\n' }).commit('unrelated');
    expect(ids((await detect()).changed)).toEqual([]);
    r.write({ 'simple-app/config/values.yml': '#@data/values\n---\nnamespace: default\ngreeting: hi\n' }).commit('values');
    const d = await detect();
    expect(ids(d.changed)).toEqual(['simple-app/0.0.0']);
    expect(d.changed[0]).toMatchObject({ layout: 'kctrl', path: 'simple-app', reasons: ['modified simple-app/config/values.yml'] });
    r.write({ 'simple-app/vendir.yml': 'apiVersion: vendir.k14s.io/v1alpha1\nkind: Config\n', 'repo/packages/other/1.1.0.yml': repoPkg('1.1.0') }).commit('vendir and a new version');
    expect(ids((await detect()).changed)).toEqual(['other/1.1.0', 'simple-app/0.0.0']);
  });

  test('the released version: --released-version, else the highest matching tag, else 0.0.0; the dev version outranks it', async () => {
    const r = mixedRepo();
    r.git('tag', 'v1.2.0');
    r.git('tag', 'simple-app/v1.3.0');
    const run = (releasedVersion?: string) =>
      plan({ root: r.dir, packagesDir: 'addons/packages', layout: 'kctrl', releasedVersion, selection: { kind: 'all' }, refName: '', seq: { timestamp: new Date(Date.UTC(2026, 0, 1)) } });
    let out = await run();
    expect(out.packages.map((p) => `${p.name}/${p.version}`)).toEqual(['simple-app/1.3.0']);
    expect(out.packages[0]!.devVersion).toMatch(/^1\.3\.1-dev\./);
    expect(out.packages[0]!.plan?.notes?.join('\n')).toContain("released version 1.3.0: from git tag simple-app/v1.3.0 (the highest of the package's own tags reachable from HEAD)");
    out = await run('2.0.0');
    expect(out.packages[0]).toMatchObject({ version: '2.0.0', devVersion: expect.stringMatching(/^2\.0\.1-dev\./) });
  });

  test('cluster mode: the cluster\'s Packages give the released version only when neither the flag nor a tag does, said in the plan', async () => {
    const r = mixedRepo();
    const cluster = jest.fn(async (refName: string) => ({ version: '1.4.0', why: `kapp-controller selects 1.4.0 for PackageInstall apps/simple-app among the Packages of ${refName} (1.4.0)` }));
    const run = (releasedVersion?: string) =>
      plan({
        root: r.dir,
        packagesDir: 'addons/packages',
        layouts: Layouts.open('kctrl', { packagesDir: '', releasedVersion, clusterReleased: cluster }),
        selection: { kind: 'all' },
        refName: '',
        seq: { timestamp: new Date(Date.UTC(2026, 0, 1)) },
      });
    let out = await run();
    const why = "from the cluster's Packages: kapp-controller selects 1.4.0 for PackageInstall apps/simple-app among the Packages of simple-app.devpkg.example.com (1.4.0)";
    expect(out.packages[0]).toMatchObject({ name: 'simple-app', version: '1.4.0', devVersion: expect.stringMatching(/^1\.4\.1-dev\./), releasedFrom: `1.4.0, ${why}` });
    expect(out.packages[0]!.plan?.notes).toContain(`released version 1.4.0: ${why}`);
    expect(cluster.mock.calls.every(([refName]) => refName === 'simple-app.devpkg.example.com')).toBe(true);
    cluster.mockClear();
    r.git('tag', 'v1.2.0');
    out = await run();
    expect(out.packages[0]).toMatchObject({ version: '1.2.0', releasedFrom: '1.2.0, from git tag v1.2.0 (the highest matching git tag reachable from HEAD)' });
    out = await run('2.0.0');
    expect(out.packages[0]).toMatchObject({ version: '2.0.0', releasedFrom: '2.0.0, from --released-version (input released-version)' });
    expect(cluster).not.toHaveBeenCalled();
  });

  test('cluster mode, and the cluster has none: 0.0.0, the plan saying why', async () => {
    const r = mixedRepo();
    const layouts = Layouts.open('kctrl', { packagesDir: '', clusterReleased: async (refName) => ({ why: `no PackageInstall of ${refName} in the cluster` }) });
    const out = await plan({ root: r.dir, packagesDir: 'addons/packages', layouts, selection: { kind: 'all' }, refName: '', seq: { timestamp: new Date() } });
    expect(out.packages[0]).toMatchObject({ version: '0.0.0', releasedFrom: '0.0.0, no --released-version, no matching git tag reachable from HEAD, and none from the cluster (no PackageInstall of simple-app.devpkg.example.com in the cluster): 0.0.0' });
  });

  test('an includePaths entry that does not exist: a warning in the plan, and the push names it with file and line', async () => {
    const r = mixedRepo();
    const src = (await workTree(r.dir).read(BUILD))!.replace('useKbldImagesLock: true', 'useKbldImagesLock: false');
    r.write({ [BUILD]: src }).commit('no lock');
    const out = await plan({ root: r.dir, packagesDir: 'addons/packages', layout: 'kctrl', selection: { kind: 'all' }, refName: '', seq: { timestamp: new Date() } });
    expect(out.problems).toEqual([expect.objectContaining({ path: BUILD, line: 28, severity: 'warning', message: expect.stringContaining('includePaths entry .imgpkg/images.yml does not exist') })]);
    const layouts = Layouts.open('kctrl', { packagesDir: '' });
    const tree = workTree(r.dir);
    const [ref] = await layouts.list(tree);
    const loaded = await layouts.load(tree, ref!);
    const exec = jest.fn();
    await expect(layouts.bundle(loaded, { root: r.dir, exec: exec as never, tmp: tempDir(), log: () => undefined })).rejects.toMatchObject({ file: BUILD, line: 28, message: expect.stringContaining('useKbldImagesLock') });
    expect(exec).not.toHaveBeenCalled();
  });

  test('a broken package-build.yml is that package\'s error; the others go on', async () => {
    const r = mixedRepo();
    r.write({ [BUILD]: (await workTree(r.dir).read(BUILD))!.replace(/ {6}export:[\s\S]*$/, '') }).commit('no export');
    const out = await plan({ root: r.dir, packagesDir: 'addons/packages', selection: { kind: 'all' }, refName: '', seq: { timestamp: new Date() } });
    expect(out.packages.map((p) => [p.name, p.verdict])).toEqual([
      ['simple-app', 'error'],
      ['other', 'planned'],
    ]);
    expect(out.problems).toEqual([expect.objectContaining({ path: BUILD, line: 9, severity: 'error', message: expect.stringContaining('no export') })]);
  });
});

describe('issue 35: the released version is the highest matching tag reachable from the base', () => {
  const at = (ms: number) => ({ timestamp: new Date(Date.UTC(2026, 0, 1) + ms) });
  const simple = (out: Awaited<ReturnType<typeof plan>>) => out.packages.find((p) => p.name === 'simple-app')!;

  /** main: A0 (no tag), A tagged v1.0.0; branch `side` from A with v9.0.0 (main never sees it); `pr` from main changes simple-app. */
  function branchedTags(): { r: TestRepo; a0: string } {
    const r = mixedRepo();
    const a0 = r.head();
    r.write({ 'README.md': 'a\n' }).commit('A');
    r.git('tag', 'v1.0.0');
    r.checkout('side', true).write({ 'side.txt': 's\n' }).commit('B');
    r.git('tag', 'v9.0.0');
    r.checkout('main').checkout('pr', true);
    r.write({ 'simple-app/config/values.yml': '#@data/values\n---\nnamespace: default\ngreeting: hi\n' }).commit('values');
    return { r, a0 };
  }

  test('a tag on another branch is not the released version (plan --base)', async () => {
    const { r } = branchedTags();
    const out = await plan({ root: r.dir, packagesDir: 'addons/packages', selection: { kind: 'diff', base: 'main', rangeKind: 'pr' }, refName: '', seq: at(0) });
    expect(out.packages.map((p) => `${p.name}/${p.version}`)).toEqual(['simple-app/1.0.0']);
    const main = r.git('rev-parse', 'main');
    expect(simple(out)).toMatchObject({ devVersion: expect.stringMatching(/^1\.0\.1-dev\./), releasedFrom: `1.0.0, from git tag v1.0.0 (the highest matching git tag reachable from ${main.slice(0, 12)})` });
    expect(simple(out).plan).toMatchObject({ released: '1.0.0', releasedFrom: { source: 'tag', tag: 'v1.0.0', reachableFrom: main } });
  });

  test('a base commit no tag is reachable from: 0.0.0, though the repository has tags', async () => {
    const { r, a0 } = branchedTags();
    const out = await plan({ root: r.dir, packagesDir: 'addons/packages', selection: { kind: 'diff', base: a0, rangeKind: 'pr' }, refName: '', seq: at(0) });
    expect(out.packages.map((p) => `${p.name}/${p.version}`)).toEqual(['simple-app/0.0.0']);
    expect(simple(out).releasedFrom).toBe(`0.0.0, no --released-version, no matching git tag reachable from ${a0.slice(0, 12)} (the cluster is read only in cluster mode): 0.0.0`);
    expect(simple(out).plan?.releasedFrom).toEqual({ source: 'none' });
  });

  test('without a base (plan --all, --packages): the tags reachable from the commit read', async () => {
    const { r, a0 } = branchedTags();
    const all = () => plan({ root: r.dir, packagesDir: 'addons/packages', selection: { kind: 'all' }, refName: '', seq: at(0) });
    expect(simple(await all()).version).toBe('1.0.0');
    r.git('checkout', '-q', a0);
    expect(simple(await all()).version).toBe('0.0.0');
    r.git('checkout', '-q', 'side');
    expect(simple(await all())).toMatchObject({ version: '9.0.0', plan: { releasedFrom: { source: 'tag', tag: 'v9.0.0', reachableFrom: 'HEAD' } } });
  });

  test('with several packages, a package\'s own tag comes before a repository-wide one; the JSON names each tag', async () => {
    const r = mixedRepo();
    const copy = (f: string) => readFileSync(join(r.dir, 'simple-app', f), 'utf8').replaceAll('simple-app', 'broken');
    r.write({ 'broken/package-build.yml': copy('package-build.yml'), 'broken/package-resources.yml': copy('package-resources.yml'), 'broken/config/config.yml': copy('config/config.yml') }).commit('broken');
    r.git('tag', 'v1.2.0');
    r.git('tag', 'broken-v0.1.0');
    const t = { out: [] as string[], err: [] as string[] };
    const io = { stdout: (x: string) => t.out.push(x), stderr: (x: string) => t.err.push(x), env: process.env, cwd: r.dir };
    expect(await runCli(['plan', '--repo', r.dir, '--all', '--layout', 'kctrl', '--json'], io)).toBe(0);
    const json = JSON.parse(t.out.join('')) as { packages: Record<string, unknown>[] };
    expect(json.packages.map((p) => `${p.name}/${p.version}`)).toEqual(['broken/0.1.0', 'simple-app/1.2.0']);
    expect(json.packages.map((p) => [p.name, p.released, p.releasedFrom])).toEqual([
      ['broken', '0.1.0', { source: 'tag', tag: 'broken-v0.1.0', reachableFrom: 'HEAD' }],
      ['simple-app', '1.2.0', { source: 'tag', tag: 'v1.2.0', reachableFrom: 'HEAD' }],
    ]);
    // The plan's text names the tag too.
    t.out.length = 0;
    expect(await runCli(['plan', '--repo', r.dir, '--all', '--layout', 'kctrl'], io)).toBe(0);
    expect(t.out.join('')).toContain("released version 0.1.0: from git tag broken-v0.1.0 (the highest of the package's own tags reachable from HEAD)");
    // And the report (plan mode's job summary and comment).
    const out = await plan({ root: r.dir, packagesDir: 'addons/packages', layout: 'kctrl', selection: { kind: 'all' }, refName: '', seq: at(0) });
    const md = renderReport({ header: 'devpkg', entries: out.packages.map((result) => ({ result })) }).markdown;
    expect(md).toContain("Released version: 0.1.0, from git tag broken-v0.1.0 (the highest of the package's own tags reachable from HEAD)");
    expect(md).toContain('Released version: 1.2.0, from git tag v1.2.0 (the highest matching git tag reachable from HEAD)');
  });
});

test('examples/kctrl plans as it is', async () => {
  const root = tempDir();
  cpSync(EXAMPLE, join(root), { recursive: true });
  const out = await plan({ root, packagesDir: 'addons/packages', releasedVersion: '1.0.0', selection: { kind: 'all' }, refName: '', seq: { timestamp: new Date() } });
  expect(out.problems).toEqual([]);
  expect(out.packages.map((p) => [`${p.name}/${p.version}`, p.plan?.layout])).toEqual([['simple-app/1.0.0', 'kctrl']]);
});
