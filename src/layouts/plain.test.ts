// The plain layout's own rules (the shared ones are in contract.test.ts): where the bundle comes
// from, which version is released, what a diff touches, and how it shares a repository with TCE's
// version folders (TCE's secretgen-controller holds both forms in one package folder).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FileChange } from '../detect/classify.js';
import { DevpkgError } from '../errors.js';
import { imageOf, packageYaml } from '../../test/support/layout-fixtures.js';
import { runCli } from '../cli.js';
import { Layouts, memoryTree, workTree } from './index.js';
import { pushPlanOf, releasedPlain, touchedPlain } from './plain.js';

const tmps: string[] = [];
afterAll(() => {
  for (const t of tmps.splice(0)) rmSync(t, { recursive: true, force: true });
});
const build = () => {
  const tmp = mkdtempSync(join(tmpdir(), 'devpkg-plain-'));
  tmps.push(tmp);
  return { root: '/nowhere', exec: (() => Promise.reject(new Error('no tool runs here'))) as never, tmp, log: () => undefined };
};
const ids = (r: { name: string; version: string; layout?: string }[]) => r.map((v) => `${v.layout}:${v.name}/${v.version}`);
async function error(p: Promise<unknown>): Promise<DevpkgError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof DevpkgError) return err;
    throw err;
  }
  throw new Error('no error');
}

describe('push plan (pure)', () => {
  test.each([
    ['bundle/ is pushed', ['v/package.yml', 'v/bundle/config/a.yml'], { push: 'v/bundle' }],
    ['.imgpkg/images.yml in the version folder: the folder is the bundle', ['v/package.yml', 'v/config/a.yml', 'v/.imgpkg/images.yml'], { push: 'v' }],
    ['bundle/ wins over .imgpkg/ beside it', ['v/package.yml', 'v/bundle/x', 'v/.imgpkg/images.yml'], { push: 'v/bundle' }],
    ['config/ alone is no bundle (no .imgpkg/images.yml): the own bundle', ['v/package.yml', 'v/config/a.yml'], { own: true }],
    ['nothing beside package.yml: the own bundle', ['v/package.yml', 'v/README.md'], { own: true }],
    ['a sibling version folder named v-bundle is not this one', ['v/package.yml', 'v-bundle/x'], { own: true }],
  ])('%s', (_what, files, want) => {
    expect(pushPlanOf('v', files)).toMatchObject(want);
  });
});

describe('released version (pure)', () => {
  const base = (versions: string[]) => ({ versions, at: 'base' });
  test.each([
    ['pushed, the same version at base: itself', '1.0.0', false, base(['1.0.0', '0.9.0']), [], '1.0.0', undefined],
    ['pushed, a new version: the highest other at base', '1.1.0', false, base(['1.0.0', '0.9.0']), [], '1.0.0', '1.0.0'],
    ['pushed, nothing at base: a first install', '1.0.0', false, base([]), [], '1.0.0', undefined],
    ['pushed, no base: the folder is its own release', '1.0.0', false, undefined, ['0.9.0'], '1.0.0', undefined],
    ['own bundle: never from itself, the highest other at base', '1.0.0', true, base(['1.0.0', '0.9.0', '0.8.0']), [], '0.9.0', '0.9.0'],
    ['own bundle, no base: the highest below it in the tree', '1.0.0', true, undefined, ['0.9.0', '1.0.0', '2.0.0'], '0.9.0', '0.9.0'],
    ['own bundle, nothing below: a first install', '1.0.0', true, undefined, ['2.0.0'], '1.0.0', undefined],
  ] as const)('%s', (_what, version, pinned, b, below, released, from) => {
    const r = releasedPlain(version, { pinned, below, ...(b ? { base: b } : {}) });
    expect({ version: r.version, from: r.from }).toEqual({ version: released, from });
  });
});

describe('touched (pure)', () => {
  const head = ['packages/a/1.0.0', 'packages/a/1.1.0'];
  const run = (changes: FileChange[], from = head, h = head) =>
    touchedPlain(changes, { head: h, from, ignored: (p) => p.endsWith('.md'), same: () => false, compare: (x, y) => (x < y ? -1 : x > y ? 1 : 0) });
  test('metadata.yml alone touches the highest version', () => {
    expect(run([{ status: 'M', path: 'packages/a/metadata.yml' }]).changed.map((c) => c.version)).toEqual(['1.1.0']);
  });
  test('ignored files touch nothing', () => {
    expect(run([{ status: 'M', path: 'packages/a/1.0.0/README.md' }])).toEqual({ changed: [], removed: [] });
  });
  test('a version folder renamed as a whole (pure renames) is neither changed nor removed', () => {
    const got = run([{ status: 'R', score: 100, oldPath: 'packages/a/1.1.0/package.yml', path: 'packages/a/1.1.1/package.yml' }], head, ['packages/a/1.0.0', 'packages/a/1.1.1']);
    expect(got).toEqual({ changed: [], removed: [] });
  });
  test('a file renamed inside the bundle is a change', () => {
    expect(run([{ status: 'R', score: 100, oldPath: 'packages/a/1.0.0/bundle/a.yml', path: 'packages/a/1.0.0/bundle/b.yml' }]).changed.map((c) => c.version)).toEqual(['1.0.0']);
  });
  test('a deleted version folder is removed', () => {
    expect(run([{ status: 'D', path: 'packages/a/1.1.0/package.yml' }], head, ['packages/a/1.0.0'])).toEqual({ changed: [], removed: [{ name: 'a', version: '1.1.0', path: 'packages/a/1.1.0' }] });
  });
});

describe('beside TCE, the repository layout and nothing', () => {
  // The shape of TCE's secretgen-controller at 1b473a07: TCE version folders (package.yaml + bundle/) and later plain ones (package.yml, no bundle).
  const SG = 'addons/packages/secretgen-controller';
  const mixed = () =>
    memoryTree({
      [`${SG}/metadata.yaml`]: 'apiVersion: data.packaging.carvel.dev/v1alpha1\nkind: PackageMetadata\nmetadata:\n  name: secretgen-controller.example.com\n',
      [`${SG}/0.8.0/package.yaml`]: packageYaml('secretgen-controller', '0.8.0'),
      [`${SG}/0.8.0/bundle/config/values.yaml`]: 'x: 1\n',
      [`${SG}/0.11.1/package.yml`]: packageYaml('secretgen-controller', '0.11.1'),
      [`${SG}/0.11.2/package.yml`]: packageYaml('secretgen-controller', '0.11.2', 'b'),
      [`${SG}/0.11.2/README.md`]: '# secretgen\n',
    });

  test('auto: TCE reads the package.yaml folders, plain the package.yml ones, the repository layout neither', async () => {
    expect(ids(await Layouts.open('auto', { packagesDir: 'addons/packages' }).list(mixed()))).toEqual(['tce:secretgen-controller/0.8.0', 'plain:secretgen-controller/0.11.1', 'plain:secretgen-controller/0.11.2']);
  });

  test('a Package with no bundle folder is installed as it is, pinned, as the upgrade from the highest other version (TCE folders count)', async () => {
    const layouts = Layouts.open('auto', {});
    const tree = mixed();
    const ref = (await layouts.list(tree)).find((r) => r.version === '0.11.2')!;
    const base = memoryTree({ [`${SG}/0.8.0/package.yaml`]: packageYaml('secretgen-controller', '0.8.0'), [`${SG}/0.11.1/package.yml`]: packageYaml('secretgen-controller', '0.11.1') }, 'base');
    const loaded = await layouts.load(tree, ref, { base });
    expect({ released: loaded.released, pinned: loaded.pinned?.version, upgradeFrom: loaded.upgradeFrom, push: loaded.push, inPlay: loaded.inPlay }).toEqual({
      released: '0.11.1',
      pinned: '0.11.2',
      upgradeFrom: { version: '0.11.1', file: `${SG}/0.11.1`, at: 'base' },
      push: { kind: 'as-is', image: imageOf('secretgen-controller', 'b') },
      inPlay: ['0.8.0', '0.11.1'],
    });
    await expect(layouts.bundle(loaded, build())).resolves.toEqual({ image: imageOf('secretgen-controller', 'b') });
  });

  test('without a base (plan --all), a Package installed as it is competes only with the versions below it', async () => {
    const layouts = Layouts.open('auto', {});
    const tree = mixed();
    const ref = (await layouts.list(tree)).find((r) => r.version === '0.11.1')!;
    const loaded = await layouts.load(tree, ref);
    expect({ released: loaded.released, inPlay: loaded.inPlay, pinned: loaded.pinned?.version }).toEqual({ released: '0.8.0', inPlay: ['0.8.0'], pinned: '0.11.1' });
  });

  test('a change of a plain version folder in a TCE package folder is the plain layout\'s', async () => {
    const before = memoryTree({ ...Object.fromEntries(await Promise.all((await mixed().files()).map(async (f) => [f, (await mixed().read(f))!]))), [`${SG}/0.11.2/package.yml`]: packageYaml('secretgen-controller', '0.11.2', 'a') });
    const got = await Layouts.open('auto', {}).touched([{ status: 'M', path: `${SG}/0.11.2/package.yml` }], mixed(), before, { ignore: [], compare: (a, b) => (a < b ? -1 : 1) });
    expect(got.changed.map((c) => `${c.layout}:${c.name}/${c.version}`)).toEqual(['plain:secretgen-controller/0.11.2']);
  });

  test('package.yaml and package.yml in one version folder: an error naming both layouts and the layout input', async () => {
    const tree = memoryTree({ 'packages/a/1.0.0/package.yaml': packageYaml('a', '1.0.0'), 'packages/a/1.0.0/package.yml': packageYaml('a', '1.0.0') });
    const err = await error(Layouts.open('auto', {}).list(tree));
    expect(err.message).toMatch(/^packages\/a\/1\.0\.0: both layout tce and layout plain could claim it \(it holds both package\.yaml and package\.yml\); choose one .*--layout tce or --layout plain/);
    expect(err.exitCode).toBe(2);
    expect(ids(await Layouts.open('plain', {}).list(tree))).toEqual(['plain:a/1.0.0']);
  });

  test('--layout tce on a plain repository says what is there', async () => {
    const tree = memoryTree({ 'packages/a/1.0.0/package.yml': packageYaml('a', '1.0.0') });
    const err = await error(Layouts.open('tce', { packagesDir: 'addons/packages' }).list(tree));
    expect(err.message).toMatch(/layout tce .* found no package .*what is there: plain: 1 folder \(packages\/a\)/);
  });

  test('a packages-dir holding only plain version folders finds them (no "found no package")', async () => {
    const tree = memoryTree({ 'pkgs/a/1.0.0/package.yml': packageYaml('a', '1.0.0'), 'packages/b/1.0.0/package.yml': packageYaml('b', '1.0.0') });
    expect(ids(await Layouts.open('auto', { packagesDir: 'pkgs' }).list(tree))).toEqual(['plain:a/1.0.0']);
  });
});

describe('package.yml that is not a Package', () => {
  // espanso's hub keeps packages/<name>/<version>/package.yml (text expansions, no kind): not a Carvel package.
  const ESPANSO = 'name: emoji\nparent: default\nmatches:\n  - trigger: ":smile"\n    replace: "x"\n';
  test('is no package, only a note; a broken Package file that says kind: Package is still listed', async () => {
    const tree = memoryTree({ 'packages/emoji/0.1.0/package.yml': ESPANSO, 'packages/a/1.0.0/package.yml': 'kind: Package\nspec: [\n' });
    const layouts = Layouts.open('auto', {});
    expect(ids(await layouts.list(tree))).toEqual(['plain:a/1.0.0']);
    expect(await layouts.notes(tree)).toEqual(['packages/emoji/0.1.0/package.yml says no kind: Package: not a package']);
  });

  test('an edit of one touches nothing', async () => {
    const before = memoryTree({ 'packages/emoji/0.1.0/package.yml': ESPANSO });
    const after = memoryTree({ 'packages/emoji/0.1.0/package.yml': `${ESPANSO}  - trigger: ":wave"\n    replace: "y"\n` });
    const got = await Layouts.open('plain', {}).touched([{ status: 'M', path: 'packages/emoji/0.1.0/package.yml' }], after, before, { ignore: [], compare: (a, b) => (a < b ? -1 : 1) });
    expect(got).toEqual({ changed: [], removed: [] });
  });
});

describe('bad input', () => {
  test('a Package that fetches no imgpkgBundle and has no bundle folder: refused at the line of its fetch', async () => {
    const text = packageYaml('a', '1.0.0').replace(/ {8}- imgpkgBundle:\n.*\n/, '        - git: {url: https://example.com/a}\n');
    const tree = memoryTree({ 'packages/a/1.0.0/package.yml': text });
    const layouts = Layouts.open('plain', {});
    const [ref] = await layouts.list(tree);
    const err = await error(layouts.load(tree, ref!));
    expect({ file: err.file, line: err.line, message: err.message }).toMatchObject({ file: 'packages/a/1.0.0/package.yml', line: 11, message: expect.stringMatching(/exactly one imgpkgBundle/) });
  });

  test('an unknown version names the versions there', async () => {
    const tree = memoryTree({ 'packages/a/1.0.0/package.yml': packageYaml('a', '1.0.0') });
    const layouts = Layouts.open('plain', {});
    const [ref] = await layouts.find(tree, [{ name: 'a', version: '2.0.0' }]);
    expect(ref).toMatchObject({ path: 'packages/a/2.0.0', layout: 'plain' });
    await expect(layouts.load(tree, ref!)).rejects.toThrow(/^unknown version 2\.0\.0 of package a: no packages\/a\/2\.0\.0\/package\.yml in memory; known versions: 1\.0\.0$/);
  });
});

describe('examples/plain', () => {
  const ROOT = new URL('../..', import.meta.url).pathname;

  test('plan --repo examples/plain --all: 1.0.0 pushes its bundle/, 1.1.0 installs its own bundle as the upgrade from 1.0.0', async () => {
    let out = '';
    let err = '';
    const code = await runCli(['plan', '--repo', `${ROOT}examples/plain`, '--all', '--registry', 'localhost:5000/dev', '--json'], { stdout: (t) => (out += t), stderr: (t) => (err += t), env: {}, cwd: ROOT });
    expect({ code, err }).toEqual({ code: 0, err: '' });
    const plan = JSON.parse(out) as { packages: { name: string; version: string; layout: string; devVersion: string; upgradeFrom?: unknown; commands: string[] }[] };
    const pushes = (p: { commands: string[] }) => p.commands.filter((c) => /imgpkg push|no push/.test(c)).map((c) => c.replace(/-bundle:[0-9][^ ]*/, '-bundle:TAG').replace(/ --lock-output .*/, ''));
    expect(plan.packages.map((p) => ({ id: `${p.layout}:${p.name}/${p.version}`, upgradeFrom: p.upgradeFrom, pushes: pushes(p) }))).toEqual([
      { id: 'plain:hello/1.0.0', upgradeFrom: undefined, pushes: ['# imgpkg push -b localhost:5000/dev/hello-bundle:TAG -f examples/plain/packages/hello/1.0.0/bundle'] },
      {
        id: 'plain:hello/1.1.0',
        upgradeFrom: { version: '1.0.0', file: 'packages/hello/1.0.0', at: 'the working tree' },
        pushes: [expect.stringMatching(/^# no push: the Package's own bundle registry\.example\.com\/packages\/hello@sha256:0+110 is used as it is$/)],
      },
    ]);
    expect(plan.packages[1]!.devVersion).toBe('1.1.0');
  });

  test('this repository, searched, does not read it', async () => {
    const refs = await Layouts.open('auto', {}).list(workTree(ROOT));
    expect(refs.filter((r) => r.layout === 'plain')).toEqual([]);
  });
});
