import { jest } from '@jest/globals';
import { Git } from '../tools/git.js';
import { detectChanges } from '../detect/detect.js';
import { withTrees } from '../../test/support/detect.js';
import { removeTempDirs, TestRepo } from '../detect/test-repo.js';
import { plan } from '../pipeline/plan.js';
import { runCli } from '../cli.js';
import { Layouts, memoryTree } from './index.js';
import { packagesRootOf, repositoryLayout } from './repository.js';

jest.setTimeout(30000);
afterAll(removeTempDirs);

const REF = 'simple-app.devpkg.test';
const D = (n: number) => `sha256:${String(n).padStart(64, '0')}`;
function pkg(version: string, o: { refName?: string; name?: string; image?: string } = {}): string {
  const refName = o.refName ?? REF;
  return [
    'apiVersion: data.packaging.carvel.dev/v1alpha1',
    'kind: Package',
    'metadata:',
    `  name: ${o.name ?? `${refName}.${version}`}`,
    'spec:',
    `  refName: ${refName}`,
    `  version: ${version}`,
    '  template:',
    '    spec:',
    '      fetch:',
    '      - imgpkgBundle:',
    `          image: ${o.image ?? `registry.test/simple-app@${D(Number(version.replace(/\D/g, '')))}`}`,
    '',
  ].join('\n');
}
const META = `apiVersion: data.packaging.carvel.dev/v1alpha1\nkind: PackageMetadata\nmetadata:\n  name: ${REF}\nspec:\n  displayName: simple-app\n`;
const ids = (r: { name: string; version: string }[]) => r.map((v) => `${v.name}/${v.version}`);
const N = 'simple-app';

describe('repository layout (pure parts)', () => {
  test.each([
    ['packages/a.b.c/1.0.0.yml', 'packages'],
    ['repo/packages/a.b.c/1.0.0.yaml', 'repo/packages'],
    ['repo/packages/flat.yml', 'repo/packages'],
    ['repo/packages/.imgpkg/images.yml', undefined],
    ['repo/packages/a.b.c/README.md', undefined],
    ['src/main.go', undefined],
  ])('%s sits in the packages folder %s', (file, root) => {
    expect(packagesRootOf(file)).toBe(root);
  });

  test('lists every Package document whatever the file names, several per file included', async () => {
    const tree = memoryTree({
      [`packages/${REF}/metadata.yml`]: META,
      [`packages/${REF}/1.0.0.yml`]: pkg('1.0.0'),
      'packages/all.yaml': `${pkg('2.0.0', { refName: 'other.devpkg.test' })}---\n${pkg('2.1.0', { refName: 'other.devpkg.test' })}`,
      'README.md': '# x\n',
    });
    const layouts = Layouts.open('repository', { packagesDir: 'addons/packages' });
    expect(ids(await layouts.list(tree))).toEqual(['other/2.0.0', 'other/2.1.0', `${N}/1.0.0`]);
  });

  test('load: the highest other version is the released one, and the Package is pinned to its own version and bundle', async () => {
    const tree = memoryTree({ [`packages/${REF}/1.0.0.yml`]: pkg('1.0.0'), [`packages/${REF}/1.1.0.yml`]: pkg('1.1.0'), [`packages/${REF}/0.9.0.yml`]: pkg('0.9.0') });
    const layouts = Layouts.open('auto', { packagesDir: 'addons/packages' });
    const loaded = await layouts.load(tree, { name: N, version: '1.1.0', path: `packages/${REF}/1.1.0.yml`, layout: 'repository' });
    expect(loaded).toMatchObject({ layout: 'repository', released: '1.0.0', pinned: { version: '1.1.0' } });
    expect(loaded.inPlay.sort()).toEqual(['0.9.0', '1.0.0']);
    expect(loaded.notes[0]).toContain('layout repository (recognised by its files');
    expect(await layouts.bundle(loaded, { root: '/', exec: jest.fn() as never, tmp: '/tmp', log: () => undefined })).toEqual({ image: `registry.test/simple-app@${D(110)}` });
  });

  test.each([
    ['a metadata.name that is not refName.version', pkg('1.0.0', { name: 'simple-app' }), 4, /metadata.name "simple-app" is not spec.refName/],
    ['a refName of two labels', pkg('1.0.0', { refName: 'simple.app' }), 6, /not a valid refName/],
    ['a version that is not semver', pkg('v1.0', {}).replace('name: simple-app.devpkg.test.v1.0', 'name: x'), 7, /not a semver version|without a leading "v"/],
    ['a YAML syntax error', 'kind: Package\nmetadata: [\n', 2, /YAML syntax error/],
  ])('%s is a problem with file and line, of that package only', async (_what, text, line, message) => {
    const file = `packages/${REF}/1.0.0.yml`;
    const tree = memoryTree({ [file]: text, [`packages/${REF}/2.0.0.yml`]: pkg('2.0.0') });
    const layout = repositoryLayout();
    const owned = layout.scope.owns(await tree.files());
    const { refs } = await layout.list(tree, owned);
    expect(refs).toHaveLength(2);
    const bad = refs.find((r) => r.path === file)!;
    await expect(layout.load(tree, bad, owned)).rejects.toMatchObject({ file, line, message: expect.stringMatching(message) });
    expect((await layout.load(tree, refs.find((r) => r.path !== file)!, owned)).pkg.warnings).toEqual([]);
  });
});

describe('repository layout on git repositories', () => {
  function repo(): TestRepo {
    const r = TestRepo.init();
    r.write({ [`repo/packages/${REF}/metadata.yml`]: META, [`repo/packages/${REF}/1.0.0.yml`]: pkg('1.0.0'), 'README.md': '# r\n' }).commit('1.0.0');
    return r;
  }

  test('detect: an added version, a changed one, a removed one and a metadata change, whatever the file names', async () => {
    const r = repo();
    r.write({ 'repo/packages/other.yml': pkg('3.0.0', { refName: 'other.devpkg.test' }) }).commit('other');
    const base = r.head();
    r.checkout('pr', true);
    r.write({ [`repo/packages/${REF}/1.1.0.yml`]: pkg('1.1.0') }).commit('add 1.1.0');
    const git = await Git.create(r.dir);
    const layouts = Layouts.open('auto', { packagesDir: 'addons/packages' });
    let d = await detectChanges({ ...withTrees(git, layouts), base });
    expect(ids(d.changed)).toEqual([`${N}/1.1.0`]);
    expect(d.changed[0]).toMatchObject({ path: `repo/packages/${REF}/1.1.0.yml`, layout: 'repository', reasons: [`added ${N}/1.1.0 in repo/packages/${REF}/1.1.0.yml`] });

    // Renaming a file without changing its Package touches nothing; deleting one removes it.
    r.mv('repo/packages/other.yml', 'repo/packages/other/3.0.0.yml');
    r.commit('rename');
    d = await detectChanges({ ...withTrees(git, layouts), base: `${base}`, head: 'HEAD' });
    expect(ids(d.changed)).toEqual([`${N}/1.1.0`]);
    r.rm('repo/packages/other/3.0.0.yml').commit('drop other');
    d = await detectChanges({ ...withTrees(git, layouts), base });
    expect(ids(d.removed)).toEqual(['other/3.0.0']);

    // A PackageMetadata change alone marks the highest version.
    const before = r.head();
    r.write({ [`repo/packages/${REF}/metadata.yml`]: META.replace('simple-app\n', 'Simple App\n') }).commit('metadata');
    d = await detectChanges({ ...withTrees(git, layouts), base: before });
    expect(d.changed).toEqual([expect.objectContaining({ name: N, version: '1.1.0', reasons: [expect.stringContaining('PackageMetadata')] })]);
  });

  test('plan: the new version is installed as it is, as the upgrade from the released one', async () => {
    const r = repo();
    const base = r.head();
    r.checkout('pr', true).write({ [`repo/packages/${REF}/1.1.0.yml`]: pkg('1.1.0') }).commit('1.1.0');
    const out = await plan({ root: r.dir, packagesDir: 'addons/packages', selection: { kind: 'diff', base, rangeKind: 'pr' }, refName: '', seq: { timestamp: new Date() } });
    expect(out.problems).toEqual([]);
    expect(out.packages).toHaveLength(1);
    const p = out.packages[0]!;
    expect(p).toMatchObject({ name: N, version: '1.1.0', refName: REF, devVersion: '1.1.0', verdict: 'planned' });
    expect(p.plan).toMatchObject({ layout: 'repository', devPackageName: `${REF}.1.1.0`, bundleImage: `registry.test/simple-app@${D(110)}` });
    expect(p.plan?.devVersionReason).toContain('outranks 1.0.0');
    expect(p.plan?.commands.find((c) => c.includes('push'))).toContain('# no push');
    expect(p.plan?.commands.join('\n')).not.toContain('SUPPRESS_PROVIDERS_UPDATE');
  });

  test('plan: a version kapp-controller would not select over the released one is that package\'s error, at the line of its version', async () => {
    const r = repo();
    r.write({ [`repo/packages/${REF}/2.0.0.yml`]: pkg('2.0.0') }).commit('2.0.0');
    const base = r.head();
    r.checkout('pr', true).write({ [`repo/packages/${REF}/1.0.0.yml`]: pkg('1.0.0').replace('kind: Package', 'kind: Package\n# changed') + '  releaseNotes: x\n' }).commit('patch old');
    const out = await plan({ root: r.dir, packagesDir: 'addons/packages', selection: { kind: 'diff', base, rangeKind: 'pr' }, refName: '', seq: { timestamp: new Date() } });
    expect(out.packages).toEqual([expect.objectContaining({ name: N, version: '1.0.0', verdict: 'error' })]);
    expect(out.problems).toEqual([
      expect.objectContaining({ path: `repo/packages/${REF}/1.0.0.yml`, line: 8, severity: 'error', message: expect.stringMatching(/repo\/packages\/simple-app.devpkg.test\/1.0.0.yml: version 1.0.0 does not outrank 2.0.0.*Give simple-app a version above 2.0.0/) }),
    ]);
  });

  test('issue 35: one Package that does not outrank the base stops no other: an error with file:line, the rest planned, JSON printed, exit 1 (CLI)', async () => {
    const r = repo();
    r.write({ [`repo/packages/${REF}/2.0.0.yml`]: pkg('2.0.0'), 'repo/packages/other/3.0.0.yml': pkg('3.0.0', { refName: 'other.devpkg.test' }) }).commit('2.0.0 and other');
    r.checkout('pr', true);
    r.write({ [`repo/packages/${REF}/1.0.0.yml`]: `${pkg('1.0.0')}  releaseNotes: a fix\n`, 'repo/packages/other/3.1.0.yml': pkg('3.1.0', { refName: 'other.devpkg.test' }) }).commit('patch old, add other 3.1.0');
    const t = { out: [] as string[], err: [] as string[] };
    const io = { stdout: (x: string) => t.out.push(x), stderr: (x: string) => t.err.push(x), env: process.env, cwd: r.dir };
    expect(await runCli(['plan', '--repo', r.dir, '--base', 'main', '--json'], io)).toBe(1);
    const json = JSON.parse(t.out.join('')) as { packages: Record<string, unknown>[]; problems: Record<string, unknown>[] };
    const file = `repo/packages/${REF}/1.0.0.yml`;
    expect(json.packages).toEqual([
      expect.objectContaining({ name: 'other', version: '3.1.0', devVersion: '3.1.0', released: '3.0.0', upgradeFrom: { version: '3.0.0', file: 'repo/packages/other/3.0.0.yml', at: r.git('rev-parse', 'main') } }),
      { name: N, version: '1.0.0', path: file, line: 7, verdict: 'error', error: expect.stringContaining(`${file}:7: the Package in ${file}: version 1.0.0 does not outrank 2.0.0`) },
    ]);
    expect(json.problems).toEqual([expect.objectContaining({ path: file, line: 7, severity: 'error' })]);
    expect(t.err.join('')).toContain(`${file}:7: error:`);
  });

  test('issue 35: a Package whose bundle is referenced by tag is used as it is, with a warning naming its line; the plan says the digest is pinned at push time', async () => {
    const r = repo();
    const base = r.head();
    const file = `repo/packages/${REF}/1.1.0.yml`;
    r.checkout('pr', true).write({ [file]: pkg('1.1.0', { image: 'registry.test/simple-app:1.1.0' }) }).commit('1.1.0 by tag');
    const out = await plan({ root: r.dir, packagesDir: 'addons/packages', selection: { kind: 'diff', base, rangeKind: 'pr' }, refName: '', seq: { timestamp: new Date() } });
    expect(out.packages).toEqual([expect.objectContaining({ name: N, version: '1.1.0', verdict: 'planned', devVersion: '1.1.0' })]);
    expect(out.problems).toEqual([expect.objectContaining({ path: file, line: 12, severity: 'warning', message: expect.stringContaining('bundle registry.test/simple-app:1.1.0 is referenced by tag') })]);
    const p = out.packages[0]!;
    expect(p.plan?.bundleImage).toBe('registry.test/simple-app:1.1.0');
    expect(p.plan?.notes).toEqual(expect.arrayContaining([expect.stringContaining('the plan reaches no registry (pinned at push time)')]));
    expect(p.plan).toMatchObject({ released: '1.0.0', upgradeFrom: { version: '1.0.0', file: `repo/packages/${REF}/1.0.0.yml` } });
    // detect lists the same warning (one check for both).
    const layout = repositoryLayout();
    const { workTree } = await import('./index.js');
    const tree = workTree(r.dir);
    expect((await layout.load(tree, { name: N, version: '1.1.0', path: file }, layout.scope.owns(await tree.files()))).pkg.warnings).toEqual([expect.objectContaining({ path: file, line: 12, severity: 'warning' })]);
  });

  test('a released version that cannot be installed is refused naming its file and line', async () => {
    const r = repo();
    const broken = pkg('1.0.0').replace(/ {6}fetch:[\s\S]*$/, '      fetch: []\n');
    r.write({ [`repo/packages/${REF}/1.0.0.yml`]: broken, [`repo/packages/${REF}/1.1.0.yml`]: pkg('1.1.0') }).commit('broken 1.0.0');
    const layouts = Layouts.open('repository', { packagesDir: '' });
    const { workTree } = await import('./index.js');
    const tree = workTree(r.dir);
    const loaded = await layouts.load(tree, { name: N, version: '1.1.0', path: `repo/packages/${REF}/1.1.0.yml`, layout: 'repository' });
    await expect(loaded.releasedSource({ root: r.dir, exec: jest.fn() as never, tmp: r.dir, log: () => undefined })).rejects.toMatchObject({
      file: `repo/packages/${REF}/1.0.0.yml`,
      line: 10,
      message: expect.stringContaining('the released simple-app 1.0.0'),
    });
  });

  test('auto: a TCE tree and a package repository side by side, each package read by its own layout', async () => {
    const r = repo();
    r.addVersion('addons/packages', 'antrea', '1.5.3').commit('tce');
    const out = await plan({ root: r.dir, packagesDir: 'addons/packages', selection: { kind: 'all' }, refName: '', seq: { timestamp: new Date() } });
    expect(out.packages.map((p) => [`${p.name}/${p.version}`, p.plan?.layout])).toEqual([
      ['antrea/1.5.3', 'tce'],
      [`${N}/1.0.0`, 'repository'],
    ]);
  });
});

test('examples/repository plans as it is', async () => {
  const root = new URL('../../examples/repository', import.meta.url).pathname;
  const out = await plan({ root, packagesDir: 'addons/packages', selection: { kind: 'all' }, refName: '', seq: { timestamp: new Date() } });
  expect(out.problems).toEqual([]);
  expect(out.packages.map((p) => [`${p.name}/${p.version}`, p.plan?.layout, p.devVersion])).toEqual([
    ['simple-app/1.0.0', 'repository', '1.0.0'],
    ['simple-app/1.1.0', 'repository', '1.1.0'],
  ]);
});
