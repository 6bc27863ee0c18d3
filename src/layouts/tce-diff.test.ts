import type { FileChange } from '../detect/classify.js';
import { classifyChanges, locatePackagePath, movedWithItsFolder, packagePathParts, versionFoldersFromFiles } from './tce-diff.js';
import { normalizePackagesDir } from './tce-folders.js';

const P = 'addons/packages';
// Version folders at head: antrea 1.2.3 and 1.3.0, calico 3.19.1+vmware.1, pinniped 0.24.4+update.2.
const AT_HEAD = new Set(['antrea/1.2.3', 'antrea/1.3.0', 'calico/3.19.1+vmware.1', 'pinniped/0.24.4+update.2']);
const opts = { packagesDir: P, ignore: ['**/*.md'], isVersionFolderAtHead: (n: string, v: string) => AT_HEAD.has(`${n}/${v}`) };
const M = (path: string): FileChange => ({ status: 'M', path });

describe('classifyChanges', () => {
  test.each<[string, FileChange[], string[], string[], string[]]>([
    ['a changed bundle file marks its version', [M(`${P}/antrea/1.2.3/bundle/config/a.yaml`)], ['antrea/1.2.3'], [], []],
    ['several files of one version count once', [M(`${P}/antrea/1.2.3/package.yaml`), M(`${P}/antrea/1.2.3/bundle/x`)], ['antrea/1.2.3'], [], []],
    ['build metadata in folder names', [M(`${P}/pinniped/0.24.4+update.2/package.yaml`)], ['pinniped/0.24.4+update.2'], [], []],
    ['file names with spaces', [{ status: 'A', path: `${P}/calico/3.19.1+vmware.1/bundle/my file.yaml` }], ['calico/3.19.1+vmware.1'], [], []],
    ['metadata.yaml alone', [M(`${P}/antrea/metadata.yaml`)], [], ['antrea'], []],
    ['metadata.yaml with a version change is not metadata-only', [M(`${P}/antrea/metadata.yaml`), M(`${P}/antrea/1.3.0/package.yaml`)], ['antrea/1.3.0'], [], []],
    ['non-version folders (test/, hack/) do not count', [M(`${P}/antrea/test/e2e.sh`), { status: 'A', path: `${P}/antrea/hack/x.sh` }], [], [], []],
    ['other package-level files do not count', [M(`${P}/antrea/Makefile`)], [], [], []],
    ['markdown does not count', [M(`${P}/antrea/1.2.3/README.md`), M('README.md'), M(`${P}/antrea/README.md`)], [], [], []],
    ['files outside the packages folder do not count', [M('hack/build.sh'), M('addons/packages.yaml'), M(`${P}/x`)], [], [], []],
    ['a deleted version folder is removed', [{ status: 'D', path: `${P}/antrea/1.0.0/package.yaml` }, { status: 'D', path: `${P}/antrea/1.0.0/bundle/a` }], [], [], ['antrea/1.0.0']],
    ['a deleted file inside a living version marks it', [{ status: 'D', path: `${P}/antrea/1.2.3/bundle/old.yaml` }], ['antrea/1.2.3'], [], []],
    ['a deleted file of a non-version folder is nothing', [{ status: 'D', path: `${P}/antrea/test/package.yaml.bak` }], [], [], []],
    [
      'a renamed version folder: new changed, old removed',
      [{ status: 'R', oldPath: `${P}/antrea/1.0.0/package.yaml`, path: `${P}/antrea/1.3.0/package.yaml` }],
      ['antrea/1.3.0'],
      [],
      ['antrea/1.0.0'],
    ],
    [
      'a copy marks only the new path',
      [{ status: 'C', oldPath: `${P}/antrea/1.2.3/package.yaml`, path: `${P}/antrea/1.3.0/package.yaml` }],
      ['antrea/1.3.0'],
      [],
      [],
    ],
    [
      'a rename out of a living version marks both',
      [{ status: 'R', oldPath: `${P}/antrea/1.2.3/bundle/a.yaml`, path: `${P}/calico/3.19.1+vmware.1/bundle/a.yaml` }],
      ['antrea/1.2.3', 'calico/3.19.1+vmware.1'],
      [],
      [],
    ],
  ])('%s', (_name, changes, versions, metadataOnly, removed) => {
    const r = classifyChanges(changes, opts);
    expect(r.versions.map((v) => `${v.name}/${v.version}`)).toEqual(versions);
    expect(r.metadataOnly).toEqual(metadataOnly);
    expect(r.removed.map((v) => `${v.name}/${v.version}`)).toEqual(removed);
  });

  test('reasons name the files and what happened', () => {
    const r = classifyChanges(
      [M(`${P}/antrea/1.2.3/package.yaml`), { status: 'R', oldPath: `${P}/antrea/1.2.3/a`, path: `${P}/antrea/1.2.3/b` }],
      opts,
    );
    expect(r.versions[0].reasons).toEqual([
      `modified ${P}/antrea/1.2.3/package.yaml`,
      `renamed ${P}/antrea/1.2.3/a -> ${P}/antrea/1.2.3/b`,
    ]);
  });

  test('an empty ignore list counts markdown', () => {
    const r = classifyChanges([M(`${P}/antrea/1.2.3/README.md`)], { ...opts, ignore: [] });
    expect(r.versions.map((v) => v.version)).toEqual(['1.2.3']);
  });

  test('packages at the repository root', () => {
    const r = classifyChanges([M('antrea/1.2.3/package.yaml'), M('README.md')], { ...opts, packagesDir: '.' });
    expect(r.versions.map((v) => `${v.name}/${v.version}`)).toEqual(['antrea/1.2.3']);
  });
});

describe('helpers', () => {
  test.each([
    ['addons/packages', 'addons/packages'],
    ['./addons/packages/', 'addons/packages'],
    ['addons\\packages', 'addons/packages'],
    ['.', ''],
    ['', ''],
  ])('normalizePackagesDir(%s)', (input, out) => expect(normalizePackagesDir(input)).toBe(out));

  test.each([
    ['addons/packages/a/1.0.0/package.yaml', { name: 'a', rest: ['1.0.0', 'package.yaml'] }],
    ['addons/packages/a/metadata.yaml', { name: 'a', rest: ['metadata.yaml'] }],
    ['addons/packages/a', undefined],
    ['addons/packagesX/a/b', undefined],
    ['other/a/b', undefined],
  ])('packagePathParts(%s)', (path, out) => expect(packagePathParts(path, P)).toEqual(out));

  test.each([
    [`${P}/a/1.0.0/bundle/config/x y.yaml`, P, { name: 'a', version: '1.0.0', file: 'bundle/config/x y.yaml' }],
    [`${P}/a/metadata.yaml`, P, { name: 'a', file: 'metadata.yaml' }],
    [`${P}/a`, P, undefined],
    [`${P}//a/b`, P, undefined],
    [`${P}X/a/b`, P, undefined],
    ['a/0.24.4+update.2/package.yaml', '', { name: 'a', version: '0.24.4+update.2', file: 'package.yaml' }],
    ['README.md', '', undefined],
  ])('locatePackagePath(%s, %s)', (path, dir, out) => expect(locatePackagePath(path, dir)).toEqual(out));

  test('versionFoldersFromFiles keeps folders holding package.yaml directly', () => {
    const m = versionFoldersFromFiles(
      [
        `${P}/a/1.0.0/package.yaml`,
        `${P}/a/1.0.0/bundle/config/package.yaml`,
        `${P}/a/test/values.yaml`,
        `${P}/a/metadata.yaml`,
        `${P}/a/0.24.4+update.2/package.yaml`,
        `${P}/b/2.0.0/package.yaml`,
        'other/c/1.0.0/package.yaml',
      ],
      P,
    );
    expect(Object.fromEntries(m)).toEqual({ a: ['1.0.0', '0.24.4+update.2'], b: ['2.0.0'] });
  });
});

describe('movedWithItsFolder (a pure rename that keeps its place in the folder that moved)', () => {
  const R = (from: string, to: string, score = 100): FileChange => ({ status: 'R', oldPath: from, path: to, score });
  test.each<[string, FileChange, boolean]>([
    ['a version folder renamed', R(`${P}/a/1.0.0/package.yaml`, `${P}/a/1.0.1/package.yaml`), true],
    ['a package folder renamed', R(`${P}/a/1.0.0/bundle/config/x.yaml`, `${P}/b/1.0.0/bundle/config/x.yaml`), true],
    ['metadata.yaml with its package folder', R(`${P}/a/metadata.yaml`, `${P}/b/metadata.yaml`), true],
    ['a file renamed inside a bundle', R(`${P}/a/1.0.0/bundle/config/x.yaml`, `${P}/a/1.0.0/bundle/config/y.yaml`), false],
    ['a version folder renamed with its content changed', R(`${P}/a/1.0.0/package.yaml`, `${P}/a/1.0.1/package.yaml`, 87), false],
    ['out of the packages folder', R(`${P}/a/1.0.0/package.yaml`, 'elsewhere/a/1.0.0/package.yaml'), false],
  ])('%s: %s', (_what, change, want) => expect(movedWithItsFolder(change, P)).toBe(want));
});
