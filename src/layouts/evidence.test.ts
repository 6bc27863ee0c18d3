/**
 * Recognition by evidence (issue 35): each layout takes a package only by its own evidence, from
 * the paths first; two claims on a folder, and a layout or packages-dir that finds nothing, are errors.
 */
import { readFileSync } from 'node:fs';
import { DevpkgError } from '../errors.js';
import { inSkippedFolder, versionFolderOf } from './evidence.js';
import { Layouts, memoryTree, workTree } from './index.js';

const ROOT = new URL('../..', import.meta.url).pathname;
const example = (p: string) => readFileSync(`${ROOT}examples/${p}`, 'utf8');
const TCE_PKG = example('tce-packages/addons/packages/antrea/1.5.3/package.yaml');
const BUILD = example('kctrl/simple-app/package-build.yml');
const RESOURCES = example('kctrl/simple-app/package-resources.yml');
const REPO_PKG = (v: string, ref = 'knative-serving.devpkg.test') =>
  `apiVersion: data.packaging.carvel.dev/v1alpha1\nkind: Package\nmetadata:\n  name: ${ref}.${v}\nspec:\n  refName: ${ref}\n  version: ${v}\n  template:\n    spec:\n      fetch:\n      - imgpkgBundle:\n          image: registry.test/k@sha256:${'1'.repeat(64)}\n`;
const auto = (packagesDir = 'addons/packages') => Layouts.open('auto', { packagesDir });
const ids = (r: { name: string; version: string; layout?: string; path: string }[]) => r.map((v) => `${v.layout}:${v.name}/${v.version}@${v.path}`);

async function error(p: Promise<unknown>): Promise<DevpkgError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof DevpkgError) return err;
    throw err;
  }
  throw new Error('no error');
}

describe('paths first (pure)', () => {
  test.each([
    ['addons/packages/antrea/1.5.3/package.yaml', undefined, { packagesDir: 'addons/packages', name: 'antrea', version: '1.5.3' }],
    ['x/y/packages/antrea/1.5.3/package.yaml', undefined, { packagesDir: 'x/y/packages', name: 'antrea', version: '1.5.3' }],
    ['packages/antrea/1.5.3/package.yaml', undefined, { packagesDir: 'packages', name: 'antrea', version: '1.5.3' }],
    ['hack/packages/templates/package.yaml', undefined, undefined],
    ['addons/packages/antrea/1.5.3/bundle/package.yaml', undefined, undefined],
    ['pkgs/antrea/1.5.3/package.yaml', 'pkgs', { packagesDir: 'pkgs', name: 'antrea', version: '1.5.3' }],
    ['addons/packages/antrea/1.5.3/package.yaml', 'pkgs', undefined],
    ['antrea/1.5.3/package.yaml', '', { packagesDir: '', name: 'antrea', version: '1.5.3' }],
  ])('%s (packages-dir %s) is the version folder %j', (file, dir, want) => {
    expect(versionFolderOf(file, dir)).toEqual(want);
  });

  test.each([
    ['examples/tce-packages/addons/packages/a/1/package.yaml', true],
    ['src/packages/testdata/x.yaml', true],
    ['test/fixtures/packages/a.yml', true],
    ['hack/packages/templates/package.yaml', true],
    ['addons/packages/a/1/package.yaml', false],
    ['examples', false],
  ])('%s is in a skipped folder: %s', (file, skipped) => {
    expect(inSkippedFolder(file)).toBe(skipped);
  });
});

describe('TCE by version folders under a packages folder, wherever it sits', () => {
  test('a TCE tree below a subfolder is TCE, not a package repository (the released bundle tested as the change)', async () => {
    // plan --repo . --packages antrea/1.5.3 in this repository: main read it as a package repository.
    const tree = memoryTree({
      'tce/addons/packages/antrea/1.5.3/package.yaml': TCE_PKG,
      'tce/addons/packages/antrea/1.5.3/bundle/config/values.yaml': 'a: 1\n',
      'tce/addons/packages/antrea/metadata.yaml': 'apiVersion: data.packaging.carvel.dev/v1alpha1\nkind: PackageMetadata\nmetadata:\n  name: antrea.community.tanzu.vmware.com\n',
    });
    const layouts = auto();
    expect(ids(await layouts.find(tree, [{ name: 'antrea', version: '1.5.3' }]))).toEqual(['tce:antrea/1.5.3@tce/addons/packages/antrea/1.5.3']);
    expect(ids(await layouts.list(tree))).toEqual(['tce:antrea/1.5.3@tce/addons/packages/antrea/1.5.3']);
  });

  test('the repository layout never claims a TCE version folder, even when it is the only layout', async () => {
    const tree = memoryTree({ 'packages/antrea/1.5.3/package.yaml': TCE_PKG });
    const err = await error(Layouts.open('repository', { packagesDir: 'addons/packages' }).list(tree));
    expect(err.message).toMatch(/layout repository \(the layout input, --layout\) found no package/);
    expect(err.message).toMatch(/tce: 1 folder \(packages\/antrea\)/);
  });

  test('this repository: examples/ and testdata are not packages unless asked', async () => {
    const tree = workTree(ROOT);
    const refs = await auto().list(tree);
    expect(refs.filter((r) => /(^|\/)(examples|testdata|fixtures)\//.test(r.path))).toEqual([]);
    // Named, it is found (and TCE's: the defect's own case).
    expect(ids(await auto().find(tree, [{ name: 'antrea', version: '1.5.3' }]))).toEqual(['tce:antrea/1.5.3@examples/tce-packages/addons/packages/antrea/1.5.3']);
    // A scope inside examples/ reads it.
    expect(ids(await auto().list(workTree(`${ROOT}examples/tce-packages`)))).toContain('tce:antrea/1.5.3@addons/packages/antrea/1.5.3');
  });

  test('a packages-dir inside a skipped folder reads it', async () => {
    const tree = memoryTree({ 'examples/t/addons/packages/antrea/1.5.3/package.yaml': TCE_PKG });
    expect(ids(await auto('examples/t/addons/packages').list(tree))).toEqual(['tce:antrea/1.5.3@examples/t/addons/packages/antrea/1.5.3']);
  });
});

describe('kctrl by package-build.yml AND package-resources.yml', () => {
  test('a lone package-build.yml is not a package, only a note', async () => {
    // main: carvel/0.0.0, which then failed the run.
    const tree = memoryTree({ 'carvel/package-build.yml': BUILD, 'carvel/config/x.yml': 'a: 1\n', 'simple-app/package-build.yml': BUILD, 'simple-app/package-resources.yml': RESOURCES });
    const layouts = auto();
    expect(ids(await layouts.list(tree))).toEqual(['kctrl:simple-app/0.0.0@simple-app']);
    expect(await layouts.notes(tree)).toEqual([expect.stringMatching(/^carvel\/package-build.yml has no package-resources.yml beside it: not a kctrl package/)]);
  });
});

describe('a package repository by YAML files holding Package documents', () => {
  test('a ytt template under packages/<name>/config/ that strict YAML rejects is not a package, only a note', async () => {
    // main: a package config/knative, which failed the run.
    const tree = memoryTree({
      'packages/knative-serving.devpkg.test/1.0.0.yml': REPO_PKG('1.0.0'),
      'packages/knative/config/overlay.yml': '#@ load("@ytt:overlay", "overlay")\nmetadata:\n  name: a\nmetadata:\n  name: b\n',
      'packages/knative/config/values.yml': '#@data/values\n---\nreplicas: 1\n',
    });
    const layouts = auto();
    expect(ids(await layouts.list(tree))).toEqual(['repository:knative-serving/1.0.0@packages/knative-serving.devpkg.test/1.0.0.yml']);
    const notes = await layouts.notes(tree);
    // Neither says kind: Package, so neither is parsed.
    expect(notes).toEqual(['packages/knative/config/overlay.yml holds no Package: not a package', 'packages/knative/config/values.yml holds no Package: not a package']);
  });

  test('one strict YAML rejects that names a kind: PackageMetadata is a note saying why', async () => {
    const tree = memoryTree({ 'packages/k/metadata.yml': 'kind: PackageMetadata\nmetadata:\n  name: a\nmetadata:\n  name: b\n' });
    const layouts = Layouts.open('repository', {});
    await expect(layouts.list(tree)).rejects.toThrow(/layout repository .*found no package/);
    expect(await layouts.notes(tree)).toEqual([expect.stringMatching(/^packages\/k\/metadata.yml is not strict YAML \(YAML syntax error \(DUPLICATE_KEY\).*ytt may accept it.*not a package$/)]);
  });

  test('in a diff too: a changed ytt template under packages/ touches nothing', async () => {
    const files = (overlay: string, v: string) => ({
      'packages/knative-serving.devpkg.test/1.0.0.yml': REPO_PKG(v),
      'packages/knative/config/overlay.yml': overlay,
    });
    const from = memoryTree(files('metadata:\n  name: a\n', '1.0.0'));
    const head = memoryTree(files('metadata:\n  name: a\nmetadata:\n  name: b\n', '1.0.0'));
    const o = { ignore: [], compare: (a: string, b: string) => a.localeCompare(b) };
    const t = await auto().touched([{ status: 'M', path: 'packages/knative/config/overlay.yml' }], head, from, o);
    expect(t).toEqual({ changed: [], removed: [] });
  });

  test('a Package file that does not parse is still a (broken) package: it says kind: Package', async () => {
    const tree = memoryTree({ 'packages/a.b.c/1.0.0.yml': 'kind: Package\nmetadata: [\n' });
    const [ref] = await auto().list(tree);
    expect(ref).toMatchObject({ layout: 'repository', path: 'packages/a.b.c/1.0.0.yml' });
  });
});

describe('a folder two layouts claim is an error naming both and the layout input', () => {
  test('a kctrl package inside a TCE package folder', async () => {
    const tree = memoryTree({ 'addons/packages/antrea/package-build.yml': BUILD, 'addons/packages/antrea/package-resources.yml': RESOURCES, 'addons/packages/antrea/1.5.3/package.yaml': TCE_PKG });
    const err = await error(auto().list(tree));
    expect(err.message).toMatch(/both layout kctrl and layout tce could claim it.*choose one with the layout input \(--layout kctrl or --layout tce\)/);
    expect(err.exitCode).toBe(2);
    // The layout input decides.
    expect(ids(await Layouts.open('tce', { packagesDir: 'addons/packages' }).list(tree))).toEqual(['tce:antrea/1.5.3@addons/packages/antrea/1.5.3']);
  });

  test('a kctrl package holding a package repository file of the same package', async () => {
    const tree = memoryTree({ 'app/package-build.yml': BUILD, 'app/package-resources.yml': RESOURCES, 'app/packages/k/1.0.0.yml': REPO_PKG('1.0.0', 'simple-app.devpkg.example.com') });
    const err = await error(auto().list(tree));
    expect(err.message).toMatch(/^app: both layout kctrl and layout repository could claim it .*app\/packages\/k\/1.0.0.yml holds a Package of simple-app too.*--layout kctrl or --layout repository/);
  });

  test("kctrl package release's output (carvel-artifacts/) in the package's folder is the kctrl package's: kapp-controller's examples", async () => {
    const tree = memoryTree({
      'app/package-build.yml': BUILD,
      'app/package-resources.yml': RESOURCES,
      'app/carvel-artifacts/packages/simple-app.devpkg.example.com/package.yml': REPO_PKG('1.0.0', 'simple-app.devpkg.example.com'),
    });
    const layouts = auto();
    expect(ids(await layouts.list(tree)).map((i) => i.split('@')[0])).toEqual(['kctrl:simple-app/0.0.0']);
    expect((await layouts.notes(tree)).join('\n')).toMatch(/app\/carvel-artifacts\/packages: kctrl package release's output/);
  });

  test('nested claims of different packages are each their own (the deepest claim wins): kapp-controller\'s repository', async () => {
    // package-build.yml at the root, a test package repository and a TCE tree below it.
    const tree = memoryTree({
      'package-build.yml': BUILD,
      'package-resources.yml': RESOURCES,
      'test/e2e/assets/repo/packages/pkg.test.carvel.dev/pkg.test.carvel.dev.1.0.0.yml': REPO_PKG('1.0.0', 'pkg.test.carvel.dev'),
      'addons/packages/antrea/1.5.3/package.yaml': TCE_PKG,
    });
    expect(ids(await auto().list(tree)).map((i) => i.split('@')[0])).toEqual(['kctrl:simple-app/0.0.0', 'tce:antrea/1.5.3', 'repository:pkg/1.0.0']);
  });
});

describe('a layout or packages-dir that finds nothing is an error naming what was looked for and what is there', () => {
  const kctrlTree = () => memoryTree({ 'simple-app/package-build.yml': BUILD, 'simple-app/package-resources.yml': RESOURCES });

  test('--layout tce on a kctrl repository', async () => {
    const err = await error(Layouts.open('tce', { packagesDir: 'addons/packages' }).list(kctrlTree()));
    expect(err.message).toMatch(/^layout tce \(the layout input, --layout\) found no package in \/memory \(memory\): it looks for version folders <a folder named packages>\/<name>\/<version>\/package.yaml \(TCE\); what is there: kctrl: 1 folder \(simple-app\)/);
    expect(err.exitCode).toBe(1);
  });

  test('a packages-dir typo (layout auto) is an error, not a package repository nor "nothing changed"', async () => {
    const tree = memoryTree({ 'addons/packages/antrea/1.5.3/package.yaml': TCE_PKG });
    const err = await error(auto('addons/pakages').list(tree));
    expect(err.message).toMatch(/^packages-dir addons\/pakages \(--packages-dir\) found no package .*what is there: tce: 1 folder \(addons\/packages\/antrea\); set packages-dir/);
  });

  test('in a diff too: touched refuses instead of touching nothing', async () => {
    const head = kctrlTree();
    const changes = [{ status: 'M', path: 'simple-app/config/x.yml' }];
    const o = { ignore: [], compare: (a: string, b: string) => a.localeCompare(b) };
    const err = await error(Layouts.open('tce', { packagesDir: 'repo/pakages' }).touched(changes, head, head, o));
    expect(err.message).toMatch(/layout tce .*found no package.*kctrl: 1 folder/);
    // auto with the default finds the kctrl package and no error.
    await expect(auto().touched(changes, head, head, o)).resolves.toBeDefined();
  });
});
