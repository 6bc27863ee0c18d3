import { jest } from '@jest/globals';
import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { Git } from '../tools/git.js';
import { detectChanges } from '../detect/detect.js';
import { removeTempDirs, tempDir, TestRepo } from '../detect/test-repo.js';
import { plan } from '../pipeline/plan.js';
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
    [['v1.0.0', 'v1.2.0', 'v1.10.0-rc.1', 'nightly'], 'v1.10.0-rc.1'.slice(1)],
    [['simple-app/v2.0.0', 'v1.0.0'], '2.0.0'],
    [['other/v9.0.0'], undefined],
    [[], undefined],
  ])('the released version from tags %j is %s', (tags, want) => {
    expect(releasedFromTags(tags, 'simple-app.devpkg.example.com')).toBe(want);
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
    const detect = () => detectChanges({ git, packagesDir: 'addons/packages', layouts, base });
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
    expect(out.packages[0]!.plan?.notes?.join('\n')).toContain('the highest matching git tag');
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
    expect(out.packages[0]).toMatchObject({ version: '1.2.0', releasedFrom: '1.2.0, the highest matching git tag' });
    out = await run('2.0.0');
    expect(out.packages[0]).toMatchObject({ version: '2.0.0', releasedFrom: '2.0.0, from --released-version (input released-version)' });
    expect(cluster).not.toHaveBeenCalled();
  });

  test('cluster mode, and the cluster has none: 0.0.0, the plan saying why', async () => {
    const r = mixedRepo();
    const layouts = Layouts.open('kctrl', { packagesDir: '', clusterReleased: async (refName) => ({ why: `no PackageInstall of ${refName} in the cluster` }) });
    const out = await plan({ root: r.dir, packagesDir: 'addons/packages', layouts, selection: { kind: 'all' }, refName: '', seq: { timestamp: new Date() } });
    expect(out.packages[0]).toMatchObject({ version: '0.0.0', releasedFrom: '0.0.0, no --released-version, no matching git tag, and none from the cluster (no PackageInstall of simple-app.devpkg.example.com in the cluster): 0.0.0' });
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

test('examples/kctrl plans as it is', async () => {
  const root = tempDir();
  cpSync(EXAMPLE, join(root), { recursive: true });
  const out = await plan({ root, packagesDir: 'addons/packages', releasedVersion: '1.0.0', selection: { kind: 'all' }, refName: '', seq: { timestamp: new Date() } });
  expect(out.problems).toEqual([]);
  expect(out.packages.map((p) => [`${p.name}/${p.version}`, p.plan?.layout])).toEqual([['simple-app/1.0.0', 'kctrl']]);
});
