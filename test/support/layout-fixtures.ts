// Test support: one small fixture factory per layout for the shared layout contract
// (src/layouts/contract.test.ts). Each fixture writes packages `a` and `b` in its layout's form
// (plus a copy under examples/, which a listing skips) and knows how to make the edits the
// contract asserts on; the assertions themselves are the contract's. A new layout is one more
// entry in FIXTURES.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TestRepo } from '../../src/detect/test-repo.js';
import type { LayoutName } from '../../src/layouts/index.js';

/** A marker: one hex character, written into the Package (releaseNotes, bundle digest) and the bundle's content. */
export type Marker = 'a' | 'b' | 'c';

export const imageOf = (name: string, m: Marker) => `registry.example.com/${name}@sha256:${m.repeat(64)}`;

/** A Package document, the marker in releaseNotes and in its bundle's digest. */
export function packageYaml(name: string, version: string, m: Marker = 'a'): string {
  return [
    'apiVersion: data.packaging.carvel.dev/v1alpha1',
    'kind: Package',
    'metadata:',
    `  name: ${name}.example.com.${version}`,
    'spec:',
    `  refName: ${name}.example.com`,
    `  version: ${version}`,
    `  releaseNotes: marker ${m}`,
    '  template:',
    '    spec:',
    '      fetch:',
    '        - imgpkgBundle:',
    `            image: ${imageOf(name, m)}`,
    '',
  ].join('\n');
}

/** A Package whose line 7 repeats line 6's key (strict YAML refuses it there). */
export function brokenPackageYaml(name: string, version: string): { text: string; line: number } {
  const lines = packageYaml(name, version).split('\n');
  lines.splice(6, 0, `  refName: ${name}.example.com`);
  return { text: lines.join('\n'), line: 7 };
}

export const metadataYaml = (name: string) =>
  `apiVersion: data.packaging.carvel.dev/v1alpha1\nkind: PackageMetadata\nmetadata:\n  name: ${name}.example.com\nspec:\n  displayName: ${name}\n  providerName: me\n`;

const packageBuild = (name: string) =>
  [
    'apiVersion: kctrl.carvel.dev/v1alpha1',
    'kind: PackageBuild',
    'metadata:',
    `  name: ${name}.example.com`,
    'spec:',
    '  template:',
    '    spec:',
    '      app:',
    '        spec:',
    '          deploy:',
    '          - kapp: {}',
    '      export:',
    '      - imgpkgBundle:',
    `          image: registry.example.com/packages/${name}`,
    '        includePaths:',
    '        - config',
    '',
  ].join('\n');

const prepend = (r: TestRepo, file: string, text: string) => r.write({ [file]: `${text}${readFileSync(join(r.dir, file), 'utf8')}` });

/** How a layout delivers a bundle: a folder of the repository pushed, a folder built first, or the Package's own bundle. */
export type PushKind = 'folder' | 'build' | 'image';

export interface LayoutFixture {
  layout: LayoutName;
  /** Layouts.open's options for this layout. */
  open: { packagesDir?: string; releasedVersion?: string };
  /** Packages a and b (marker m in a), and a copy of a below examples/ (not listed). */
  seed(r: TestRepo, m?: Marker): void;
  /** What the seed lists, as name/version. */
  listed: [a: string, b: string];
  /** A change of a's content (its bundle, or its Package where the Package is the content). */
  contentEdit(r: TestRepo): void;
  /** A pure rename: b's folder (or file) moved, nothing in it changed. */
  pureRename(r: TestRepo): void;
  /** Comments added to a's Package (and metadata) files, nothing else. */
  commentEdit(r: TestRepo): void;
  /** b removed. */
  remove(r: TestRepo): void;
  /** Marker m written into a's Package and bundle content. */
  mark(r: TestRepo, m: Marker): void;
  /** How a's bundle is delivered, and the file of the pushed folder that holds the marker (folder, build). */
  push: { kind: PushKind; file?: string };
  /**
   * The released-version case: commits on a seeded repository (`seeded` is its commit) and
   * returns the base, the version of package a to load at the head commit (as the head's listing names it), the released version the
   * layout must give and one it must not (a version the base cannot see, say).
   */
  release(r: TestRepo, seeded: string): { base: string; version: string; released: string; not?: string };
  /** Breaks b's Package file; returns the file, the line named, and b as the listing names it. */
  broken(r: TestRepo): { file: string; line: number; ref: string };
}

const P = 'addons/packages';

const tce: LayoutFixture = {
  layout: 'tce',
  open: { packagesDir: P },
  seed(r, m = 'a') {
    for (const n of ['a', 'b']) {
      r.write({ [`${P}/${n}/metadata.yaml`]: metadataYaml(n), [`${P}/${n}/1.0.0/package.yaml`]: packageYaml(n, '1.0.0', n === 'a' ? m : 'a'), [`${P}/${n}/1.0.0/bundle/config/values.yml`]: `marker: ${m}\n` });
    }
    r.write({ [`examples/${P}/c/1.0.0/package.yaml`]: packageYaml('c', '1.0.0') });
  },
  listed: ['a/1.0.0', 'b/1.0.0'],
  contentEdit: (r) => r.write({ [`${P}/a/1.0.0/bundle/config/values.yml`]: 'marker: edited\n' }),
  pureRename: (r) => r.mv(`${P}/b`, `${P}/b2`),
  commentEdit: (r) => {
    prepend(r, `${P}/a/1.0.0/package.yaml`, '# reviewed\n');
    prepend(r, `${P}/a/metadata.yaml`, '# reviewed\n');
  },
  remove: (r) => r.rm(`${P}/b`),
  mark: (r, m) => r.write({ [`${P}/a/1.0.0/package.yaml`]: packageYaml('a', '1.0.0', m), [`${P}/a/1.0.0/bundle/config/values.yml`]: `marker: ${m}\n` }),
  push: { kind: 'folder', file: 'config/values.yml' },
  release(r, seeded) {
    // The version folder is the release: an edit of its bundle is tested against that version.
    r.write({ [`${P}/a/1.0.0/bundle/config/values.yml`]: 'marker: edited\n', [`${P}/a/1.1.0/package.yaml`]: packageYaml('a', '1.1.0', 'b') });
    r.commit('edit');
    return { base: seeded, version: '1.0.0', released: '1.0.0', not: '1.1.0' };
  },
  broken(r) {
    const b = brokenPackageYaml('b', '1.0.0');
    r.write({ [`${P}/b/1.0.0/package.yaml`]: b.text });
    return { file: `${P}/b/1.0.0/package.yaml`, line: b.line, ref: 'b/1.0.0' };
  },
};

const kctrl: LayoutFixture = {
  layout: 'kctrl',
  open: {},
  seed(r, m = 'a') {
    for (const n of ['a', 'b']) {
      r.write({ [`${n}/package-build.yml`]: packageBuild(n), [`${n}/package-resources.yml`]: packageYaml(n, '0.0.0', n === 'a' ? m : 'a'), [`${n}/config/values.yml`]: `marker: ${m}\n` });
    }
    r.write({ 'examples/c/package-build.yml': packageBuild('c'), 'examples/c/package-resources.yml': packageYaml('c', '0.0.0') });
  },
  // No tag and no released-version: 0.0.0 (the released-version case below reads tags).
  listed: ['a/0.0.0', 'b/0.0.0'],
  contentEdit: (r) => r.write({ 'a/config/values.yml': 'marker: edited\n' }),
  pureRename: (r) => r.mv('b', 'apps/b'),
  commentEdit: (r) => {
    prepend(r, 'a/package-resources.yml', '# kctrl package init wrote this\n');
    prepend(r, 'a/package-build.yml', '# reviewed\n');
  },
  remove: (r) => r.rm('b'),
  mark: (r, m) => r.write({ 'a/package-resources.yml': packageYaml('a', '0.0.0', m), 'a/config/values.yml': `marker: ${m}\n` }),
  push: { kind: 'build', file: 'config/values.yml' },
  release(r, seeded) {
    // The package's own tag reachable from the base; a later tag on the head only is not the release.
    r.git('tag', 'a-v1.2.0', seeded);
    r.write({ 'a/config/values.yml': 'marker: edited\n' });
    const head = r.commit('edit');
    r.git('tag', 'a-v9.0.0', head);
    // The head's listing names a by the tag its own commit sees (9.0.0); the base sees 1.2.0.
    return { base: seeded, version: '9.0.0', released: '1.2.0', not: '9.0.0' };
  },
  broken(r) {
    const b = brokenPackageYaml('b', '0.0.0');
    r.write({ 'b/package-resources.yml': b.text });
    return { file: 'b/package-resources.yml', line: b.line, ref: 'b/0.0.0' };
  },
};

const repository: LayoutFixture = {
  layout: 'repository',
  open: {},
  seed(r, m = 'a') {
    for (const n of ['a', 'b']) r.write({ [`packages/${n}.example.com/metadata.yml`]: metadataYaml(n), [`packages/${n}.example.com/1.0.0.yml`]: packageYaml(n, '1.0.0', n === 'a' ? m : 'a') });
    r.write({ 'examples/packages/c.example.com/1.0.0.yml': packageYaml('c', '1.0.0') });
  },
  listed: ['a/1.0.0', 'b/1.0.0'],
  // The Package is the content: its bundle changed.
  contentEdit: (r) => r.write({ 'packages/a.example.com/1.0.0.yml': packageYaml('a', '1.0.0', 'c') }),
  pureRename: (r) => r.mv('packages/b.example.com/1.0.0.yml', 'packages/b.example.com/v1.0.0.yml'),
  commentEdit: (r) => {
    prepend(r, 'packages/a.example.com/1.0.0.yml', '# reviewed\n');
    prepend(r, 'packages/a.example.com/metadata.yml', '# reviewed\n');
  },
  remove: (r) => r.rm('packages/b.example.com'),
  mark: (r, m) => r.write({ 'packages/a.example.com/1.0.0.yml': packageYaml('a', '1.0.0', m) }),
  push: { kind: 'image' },
  release(r, seeded) {
    // A new version is the upgrade from the highest other one at the base (not from one added at head).
    r.write({ 'packages/a.example.com/1.1.0.yml': packageYaml('a', '1.1.0', 'b'), 'packages/a.example.com/1.0.5.yml': packageYaml('a', '1.0.5', 'b') });
    r.commit('add');
    return { base: seeded, version: '1.1.0', released: '1.0.0', not: '1.0.5' };
  },
  broken(r) {
    const b = brokenPackageYaml('b', '1.0.0');
    r.write({ 'packages/b.example.com/1.0.0.yml': b.text });
    return { file: 'packages/b.example.com/1.0.0.yml', line: b.line, ref: 'b/1.0.0' };
  },
};

const plain: LayoutFixture = {
  layout: 'plain',
  open: {},
  seed(r, m = 'a') {
    r.write({
      'packages/a/metadata.yml': metadataYaml('a'),
      'packages/a/1.0.0/package.yml': packageYaml('a', '1.0.0', m),
      'packages/a/1.0.0/bundle/config/values.yml': `marker: ${m}\n`,
      'packages/a/1.0.0/bundle/.imgpkg/images.yml': 'apiVersion: imgpkg.carvel.dev/v1alpha1\nkind: ImagesLock\n',
      // b's Package fetches a bundle built elsewhere (TCE's secretgen-controller/0.11.2 is so).
      'packages/b/1.0.0/package.yml': packageYaml('b', '1.0.0'),
      'examples/packages/c/1.0.0/package.yml': packageYaml('c', '1.0.0'),
    });
  },
  listed: ['a/1.0.0', 'b/1.0.0'],
  contentEdit: (r) => r.write({ 'packages/a/1.0.0/bundle/config/values.yml': 'marker: edited\n' }),
  pureRename: (r) => r.mv('packages/b', 'packages/b2'),
  commentEdit: (r) => {
    prepend(r, 'packages/a/1.0.0/package.yml', '# reviewed\n');
    prepend(r, 'packages/a/metadata.yml', '# reviewed\n');
  },
  remove: (r) => r.rm('packages/b'),
  mark: (r, m) => r.write({ 'packages/a/1.0.0/package.yml': packageYaml('a', '1.0.0', m), 'packages/a/1.0.0/bundle/config/values.yml': `marker: ${m}\n` }),
  push: { kind: 'folder', file: 'config/values.yml' },
  release(r, seeded) {
    // A new version folder is the upgrade from the highest other one at the base.
    r.write({ 'packages/a/1.1.0/package.yml': packageYaml('a', '1.1.0', 'b'), 'packages/a/1.1.0/bundle/config/values.yml': 'marker: b\n', 'packages/a/1.0.5/package.yml': packageYaml('a', '1.0.5', 'b') });
    r.commit('add');
    return { base: seeded, version: '1.1.0', released: '1.0.0', not: '1.0.5' };
  },
  broken(r) {
    const b = brokenPackageYaml('b', '1.0.0');
    r.write({ 'packages/b/1.0.0/package.yml': b.text });
    return { file: 'packages/b/1.0.0/package.yml', line: b.line, ref: 'b/1.0.0' };
  },
};

/** Every layout's fixture: the contract runs against each (a new layout is one more entry). */
export const FIXTURES: readonly LayoutFixture[] = [tce, kctrl, repository, plain];
