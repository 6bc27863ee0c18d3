// Contents from the tree the diff was taken at (issue 35): every layout reads a commit's files
// through the commit, never the working tree behind it, and a commit's bundle folder is exported
// from that commit.
import { jest } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../cli.js';
import { detectChanges } from '../detect/detect.js';
import { tceDiff, withTrees } from '../../test/support/detect.js';
import { removeTempDirs, TestRepo } from '../detect/test-repo.js';
import { closeGitReaders, Git } from '../tools/git.js';
import { execTool } from '../tools/exec.js';
import { commitTree, Layouts, workTree } from './index.js';

jest.setTimeout(30000);
const tmps: string[] = [];
afterAll(async () => {
  await closeGitReaders();
  removeTempDirs();
  for (const t of tmps.splice(0)) rmSync(t, { recursive: true, force: true });
});
const tmp = () => {
  const t = mkdtempSync(join(tmpdir(), 'devpkg-contents-'));
  tmps.push(t);
  return t;
};

const IMAGE = `registry.example.com/x@sha256:${'0'.repeat(64)}`;
const tcePackage = (refName: string, version = '1.0.0') =>
  `apiVersion: data.packaging.carvel.dev/v1alpha1\nkind: Package\nmetadata:\n  name: ${refName}.${version}\nspec:\n  refName: ${refName}\n  version: ${version}\n  template:\n    spec:\n      fetch:\n        - imgpkgBundle:\n            image: ${IMAGE}\n`;
const packageBuild = (refName: string) =>
  [
    'apiVersion: kctrl.carvel.dev/v1alpha1',
    'kind: PackageBuild',
    'metadata:',
    `  name: ${refName}`,
    'spec:',
    '  template:',
    '    spec:',
    '      app:',
    '        spec:',
    '          deploy:',
    '          - kapp: {}',
    '      export:',
    '      - imgpkgBundle:',
    '          image: registry.example.com/packages/app',
    '        includePaths:',
    '        - config',
    '',
  ].join('\n');
const packageResources = (refName: string) =>
  `apiVersion: data.packaging.carvel.dev/v1alpha1\nkind: Package\nmetadata:\n  name: ${refName}.0.0.0\nspec:\n  refName: ${refName}\n  version: 0.0.0\n  template:\n    spec:\n      deploy:\n      - kapp: {}\n`;

describe('a layout reads the commit it is given, not the working tree', () => {
  test('tce: a commit that renamed the refName loads, at the commit before, with the old refName and that commit bundle', async () => {
    const r = TestRepo.init();
    r.write({ 'addons/packages/x/1.0.0/package.yaml': tcePackage('x.example.com'), 'addons/packages/x/1.0.0/bundle/config/values.yaml': 'at: A\n' });
    const a = r.commit('A');
    r.write({ 'addons/packages/x/1.0.0/package.yaml': tcePackage('y.example.com'), 'addons/packages/x/1.0.0/bundle/config/values.yaml': 'at: B\n' });
    r.commit('B'); // the working tree is at B
    const git = await Git.create(r.dir);
    const layouts = Layouts.open('tce', { packagesDir: 'addons/packages' });
    const tree = commitTree(git, a);
    const [ref] = await layouts.find(tree, [{ name: 'x', version: '1.0.0' }]);
    const loaded = await layouts.load(tree, ref!);
    expect(loaded.pkg.pkg.spec.refName).toBe('x.example.com');
    // What is pushed is A's bundle, exported from A.
    const got = await layouts.bundle(loaded, { root: r.dir, exec: execTool, tmp: tmp(), log: () => undefined });
    expect('folder' in got && readFileSync(join(got.folder, 'config/values.yaml'), 'utf8')).toBe('at: A\n');
    // The working tree is read as the working tree.
    const atWork = await layouts.load(workTree(r.dir), ref!);
    expect(atWork.pkg.pkg.spec.refName).toBe('y.example.com');
    const fromWork = await layouts.bundle(atWork, { root: r.dir, exec: execTool, tmp: tmp(), log: () => undefined });
    expect('folder' in fromWork && fromWork.folder).toBe(join(r.dir, 'addons/packages/x/1.0.0/bundle'));
  });

  test('tce: an unknown version is explained from the commit, not the disk', async () => {
    const r = TestRepo.init();
    r.write({ 'addons/packages/x/1.0.0/package.yaml': tcePackage('x.example.com') });
    const a = r.commit('A');
    r.write({ 'addons/packages/x/2.0.0/package.yaml': tcePackage('x.example.com', '2.0.0') }).commit('B');
    const layouts = Layouts.open('tce', { packagesDir: 'addons/packages' });
    const tree = commitTree(await Git.create(r.dir), a);
    const [ref] = await layouts.find(tree, [{ name: 'x', version: '2.0.0' }]);
    await expect(layouts.load(tree, ref!)).rejects.toThrow(/unknown version 2\.0\.0 of package x: .*known versions: 1\.0\.0$/);
  });

  test('kctrl: refName and includePaths of the commit, and the bundle built from that commit', async () => {
    const r = TestRepo.init();
    r.write({ 'app/package-build.yml': packageBuild('app.example.com'), 'app/package-resources.yml': packageResources('app.example.com'), 'app/config/a.yml': 'at: A\n' });
    const a = r.commit('A');
    r.write({ 'app/package-build.yml': packageBuild('renamed.example.com'), 'app/package-resources.yml': packageResources('renamed.example.com') });
    r.rm('app/config');
    r.commit('B');
    const layouts = Layouts.open('kctrl', { packagesDir: '', releasedVersion: '1.0.0' });
    const tree = commitTree(await Git.create(r.dir), a);
    const [ref] = await layouts.list(tree);
    const loaded = await layouts.load(tree, ref!);
    expect(loaded.pkg.pkg.spec.refName).toBe('app.example.com');
    // config/ is there at A (it is gone from the working tree): no warning that it is missing.
    expect(loaded.pkg.warnings).toEqual([]);
    const got = await layouts.bundle(loaded, { root: r.dir, exec: execTool, tmp: tmp(), log: () => undefined });
    expect('folder' in got && readFileSync(join(got.folder, 'config/a.yml'), 'utf8')).toBe('at: A\n');
  });

  test('repository: the Package of the commit', async () => {
    const r = TestRepo.init();
    r.write({ 'packages/x.example.com/1.0.0.yml': tcePackage('x.example.com') });
    const a = r.commit('A');
    r.write({ 'packages/x.example.com/1.0.0.yml': tcePackage('x.example.com').replace(IMAGE, IMAGE.replace(/0{64}$/, '1'.repeat(64))) }).commit('B');
    const layouts = Layouts.open('repository', { packagesDir: '' });
    const tree = commitTree(await Git.create(r.dir), a);
    const [ref] = await layouts.list(tree);
    const loaded = await layouts.load(tree, ref!);
    expect(loaded.pkg.pkg.spec.template?.spec?.fetch).toEqual([{ imgpkgBundle: { image: IMAGE } }]);
  });
});

describe('one git cat-file --batch per run for the base side and commit trees', () => {
  // A PATH wrapper logs every git the run starts (behaviour, not timing).
  const counted = async (argv: string[]) => {
    const bin = tmp();
    const log = join(bin, 'git.log');
    const real = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
    writeFileSync(join(bin, 'git'), `#!/bin/sh\nprintf '%s\\n' "$*" >> '${log}'\nexec '${real}' "$@"\n`);
    chmodSync(join(bin, 'git'), 0o755);
    const path = process.env.PATH;
    process.env.PATH = `${bin}:${path}`;
    let out = '';
    let err = '';
    try {
      const code = await runCli(argv, { stdout: (t) => (out += t), stderr: (t) => (err += t), env: {}, cwd: process.cwd() });
      expect({ code, err }).toEqual({ code: 0, err: '' });
    } finally {
      process.env.PATH = path;
    }
    const calls = existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n') : [];
    return { calls, plan: JSON.parse(out) as { packages: { name: string }[] } };
  };
  const repository = (n: number) => {
    const r = TestRepo.init();
    for (let p = 0; p < n; p++) for (const v of ['1.0.0', '1.1.0', '1.2.0']) r.write({ [`packages/p${p}.example.com/${v}.yml`]: tcePackage(`p${p}.example.com`, v) });
    const a = r.commit('A');
    for (let p = 0; p < n; p++) r.write({ [`packages/p${p}.example.com/2.0.0.yml`]: tcePackage(`p${p}.example.com`, '2.0.0') });
    r.commit('B');
    return { r, a };
  };

  test('plan --base: as many git processes for 6 packages as for 2, one of them git cat-file --batch', async () => {
    const runs = [];
    for (const n of [2, 6]) {
      const { r, a } = repository(n);
      const { calls, plan } = await counted(['plan', '--repo', r.dir, '--base', a, '--json']);
      expect(plan.packages).toHaveLength(n);
      runs.push(calls);
    }
    const [two, six] = runs as [string[], string[]];
    expect(six.filter((c) => c.includes('cat-file --batch'))).toHaveLength(1);
    expect(six.filter((c) => /cat-file blob|(^| )show( |$)/.test(c))).toEqual([]);
    expect(six.length).toBe(two.length);
  });

  test("kind mode's baseline: every package's released folder exported through the same one git cat-file --batch, as the base holds it", async () => {
    const bin = tmp();
    const log = join(bin, 'git.log');
    const real = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
    writeFileSync(join(bin, 'git'), `#!/bin/sh\nprintf '%s\\n' "$*" >> '${log}'\nexec '${real}' "$@"\n`);
    chmodSync(join(bin, 'git'), 0o755);
    const runs: string[][] = [];
    for (const n of [2, 6]) {
      const r = TestRepo.init();
      for (let p = 0; p < n; p++) r.addVersion('mono/addons/packages', `p${p}`, '1.0.0', { 'bundle/config/values.yaml': `at: A\n` });
      const a = r.commit('A');
      for (let p = 0; p < n; p++) r.write({ [`mono/addons/packages/p${p}/1.0.0/bundle/config/values.yaml`]: 'at: B\n' });
      r.commit('B');
      const scope = join(r.dir, 'mono');
      const layouts = Layouts.open('tce', { packagesDir: 'addons/packages' });
      const tree = workTree(scope);
      const refs = await layouts.list(tree);
      expect(refs).toHaveLength(n);
      rmSync(log, { force: true });
      const path = process.env.PATH;
      process.env.PATH = `${bin}:${path}`;
      try {
        for (const ref of refs) {
          const loaded = await layouts.load(tree, ref);
          const got = await loaded.releasedSource({ root: scope, exec: execTool, tmp: tmp(), log: () => undefined, baseRef: a });
          expect(got?.atBase).toBe(true);
          const folder = got && 'folder' in got.bundle ? got.bundle.folder : '';
          expect(readFileSync(join(folder, 'config/values.yaml'), 'utf8')).toBe('at: A\n');
        }
      } finally {
        process.env.PATH = path;
        await closeGitReaders();
      }
      runs.push(readFileSync(log, 'utf8').trim().split('\n'));
    }
    const [two, six] = runs as [string[], string[]];
    expect(six).toEqual(['cat-file --batch']);
    expect(two).toEqual(six);
  });
});

describe('a change is a change of content', () => {
  const detect = async (r: TestRepo, a: string, layout: 'tce' | 'kctrl' | 'repository') => {
    const got = await detectChanges({ ...withTrees(await Git.create(r.dir), Layouts.open(layout, { packagesDir: 'addons/packages', releasedVersion: '1.0.0' })), base: a, kind: 'range' });
    return { changed: got.changed.map((c) => `${c.name}/${c.version}`), removed: got.removed.map((c) => `${c.name}/${c.version}`) };
  };
  const none = { changed: [], removed: [] };
  const P = 'addons/packages';
  const tce = () => {
    const r = TestRepo.init();
    r.addVersion(P, 'x', '1.0.0').addVersion(P, 'x', '1.1.0').addVersion(P, 'y', '2.0.0');
    r.write({ [`${P}/x/metadata.yaml`]: 'apiVersion: data.packaging.carvel.dev/v1alpha1\nkind: PackageMetadata\nmetadata:\n  name: x.example.com\nspec:\n  displayName: x\n  providerName: me\n' });
    return { r, a: r.commit('A') };
  };
  const edit = (r: TestRepo, file: string, f: (t: string) => string) => r.write({ [file]: f(readFileSync(join(r.dir, file), 'utf8')) });

  describe('tce', () => {
    test('pure renames of package folders and version folders touch nothing and remove nothing', async () => {
      const { r, a } = tce();
      r.mv(`${P}/y`, `${P}/y2`).mv(`${P}/x/1.0.0`, `${P}/x/1.0.0-moved`).commit('B');
      await expect(detect(r, a, 'tce')).resolves.toEqual(none);
    });

    test('a moved version folder whose content changed is a change', async () => {
      const { r, a } = tce();
      r.mv(`${P}/y/2.0.0`, `${P}/y/2.0.1`);
      edit(r, `${P}/y/2.0.1/bundle/config/values.yaml`, (t) => `${t}more: 1\n`);
      r.commit('B');
      await expect(detect(r, a, 'tce')).resolves.toEqual({ changed: ['y/2.0.1'], removed: [] });
    });

    test('a rename inside a bundle is a change of the bundle', async () => {
      const { r, a } = tce();
      r.mv(`${P}/y/2.0.0/bundle/config/values.yaml`, `${P}/y/2.0.0/bundle/config/values-renamed.yaml`).commit('B');
      await expect(detect(r, a, 'tce')).resolves.toEqual({ changed: ['y/2.0.0'], removed: [] });
    });

    test('comments, key order and whitespace in package.yaml and metadata.yaml touch nothing; a real edit does', async () => {
      const { r, a } = tce();
      edit(r, `${P}/x/1.0.0/package.yaml`, (t) => `# a comment\n${t.replace('kind: Package\n', '').replace('apiVersion:', 'kind:   Package\napiVersion:')}`);
      edit(r, `${P}/x/metadata.yaml`, (t) => `${t}# reviewed\n`);
      r.commit('B');
      await expect(detect(r, a, 'tce')).resolves.toEqual(none);
      edit(r, `${P}/x/metadata.yaml`, (t) => t.replace('providerName: me', 'providerName: you'));
      r.commit('C');
      await expect(detect(r, a, 'tce')).resolves.toEqual({ changed: ['x/1.1.0'], removed: [] });
    });
  });

  describe('kctrl', () => {
    const kctrl = () => {
      const r = TestRepo.init();
      r.write({ 'app/package-build.yml': packageBuild('app.example.com'), 'app/package-resources.yml': packageResources('app.example.com'), 'app/config/a.yml': 'a: 1\n' });
      return { r, a: r.commit('A') };
    };

    test('a moved package folder touches nothing; comments in package-resources.yml neither', async () => {
      const { r, a } = kctrl();
      r.mv('app', 'apps/app');
      edit(r, 'apps/app/package-resources.yml', (t) => `# kctrl package init wrote this\n${t}`);
      r.commit('B');
      await expect(detect(r, a, 'kctrl')).resolves.toEqual(none);
    });

    test('a rename in config/ is a change', async () => {
      const { r, a } = kctrl();
      r.mv('app/config/a.yml', 'app/config/b.yml').commit('B');
      await expect(detect(r, a, 'kctrl')).resolves.toEqual({ changed: ['app/1.0.0'], removed: [] });
    });

    test('a changed metadata.name lists the old refName as removed', async () => {
      const { r, a } = kctrl();
      r.write({ 'app/package-build.yml': packageBuild('renamed.example.com'), 'app/package-resources.yml': packageResources('renamed.example.com') }).commit('B');
      await expect(detect(r, a, 'kctrl')).resolves.toEqual({ changed: ['renamed/1.0.0'], removed: ['app/1.0.0'] });
    });
  });

  describe('repository', () => {
    const META = 'apiVersion: data.packaging.carvel.dev/v1alpha1\nkind: PackageMetadata\nmetadata:\n  name: x.example.com\nspec:\n  displayName: x\n';
    const repo = () => {
      const r = TestRepo.init();
      r.write({ 'packages/x.example.com/metadata.yml': META, 'packages/x.example.com/1.0.0.yml': tcePackage('x.example.com'), 'packages/y.example.com/1.0.0.yml': tcePackage('y.example.com') });
      return { r, a: r.commit('A') };
    };

    test('a comment in metadata.yml, key order in a Package and a pure rename touch nothing', async () => {
      const { r, a } = repo();
      edit(r, 'packages/x.example.com/metadata.yml', (t) => `${t}# reviewed\n`);
      edit(r, 'packages/x.example.com/1.0.0.yml', (t) => `kind: Package\n${t.replace('kind: Package\n', '')}`);
      r.mv('packages/y.example.com/1.0.0.yml', 'packages/y.example.com/v1.0.0.yml').commit('B');
      await expect(detect(r, a, 'repository')).resolves.toEqual(none);
    });

    test('a deleted Package file lists its Package as removed', async () => {
      const { r, a } = repo();
      r.rm('packages/y.example.com/1.0.0.yml').commit('B');
      await expect(detect(r, a, 'repository')).resolves.toEqual({ changed: [], removed: ['y/1.0.0'] });
    });
  });
});

test('tce: a version folder moved with only comments added to its package.yaml is neither changed nor removed', async () => {
  const r = TestRepo.init();
  r.addVersion('addons/packages', 'x', '1.0.0').addVersion('addons/packages', 'x', '1.1.0');
  const a = r.commit('A');
  r.mv('addons/packages/x/1.0.0', 'addons/packages/x/1.0.0-old');
  const file = 'addons/packages/x/1.0.0-old/package.yaml';
  r.write({ [file]: `# kept for reference\n${readFileSync(join(r.dir, file), 'utf8')}` }).commit('B');
  const got = await detectChanges({ ...tceDiff(await Git.create(r.dir), 'addons/packages'), base: a, kind: 'range' });
  expect({ changed: got.changed.length, removed: got.removed.length }).toEqual({ changed: 0, removed: 0 });
});
