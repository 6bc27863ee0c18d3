// Issue 29: the kctrl and package repository layouts against real tools. A kctrl package (the
// example) is detected on a commit range, planned, built the way `kctrl package release` builds
// it (ytt + kbld --imgpkg-lock-output, includePaths) and pushed to the harness registry; a package
// repository's Package is planned with its own bundle and nothing is pushed; kapp-controller's own
// module, two versions from the Go module cache made into a git repository here, is a real kctrl
// case (detected and planned; its push names what stops it).
import { execFileSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pushBundle } from '../../src/bundle/push.js';
import { parseRepository } from '../../src/bundle/reference.js';
import { detectChanges } from '../../src/detect/detect.js';
import { withTrees } from '../support/detect.js';
import { Layouts, workTree } from '../../src/layouts/index.js';
import { plan } from '../../src/pipeline/plan.js';
import { Git } from '../../src/tools/git.js';
import { execTool } from '../../src/tools/exec.js';
import { Imgpkg } from '../../src/tools/imgpkg.js';
import { newRunId, repoRoot } from './helpers/run.js';

const ENV = { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_TERMINAL_PROMPT: '0' };
const ID = ['-c', 'user.name=devpkg test', '-c', 'user.email=test@devpkg.invalid', '-c', 'commit.gpgsign=false'];
const git = (dir: string, ...args: string[]) => execFileSync('git', [...ID, ...args], { cwd: dir, env: ENV, encoding: 'utf8' }).trim();
const made: string[] = [];
const temp = (p: string) => {
  const d = mkdtempSync(join(tmpdir(), p));
  made.push(d);
  return d;
};
afterAll(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});
const run = newRunId();
const build = { exec: execTool, log: () => undefined };

function registry(): string {
  const r = process.env.DEVPKG_TEST_REGISTRY;
  if (!r) throw new Error('DEVPKG_TEST_REGISTRY is not set; run with `npm run test:integration` (the harness globalSetup sets it)');
  return r;
}

describe('kctrl layout, pushed to the harness registry', () => {
  test('a change to a template file is detected, planned, built like kctrl package release and pushed', async () => {
    const dir = temp('devpkg-kctrl-');
    git(dir, 'init', '-q', '-b', 'main');
    cpSync(join(repoRoot, 'examples', 'kctrl'), dir, { recursive: true });
    git(dir, 'add', '-A');
    git(dir, 'commit', '-q', '-m', 'simple-app');
    git(dir, 'tag', 'v1.0.0');
    git(dir, 'checkout', '-q', '-b', 'pr');
    const values = join(dir, 'simple-app/config/values.yml');
    writeFileSync(values, readFileSync(values, 'utf8').replace('hello from simple-app', 'hello from the pull request'));
    git(dir, 'commit', '-q', '-am', 'greeting');

    const layouts = Layouts.open('auto', { packagesDir: 'addons/packages' });
    const d = await detectChanges({ ...withTrees(await Git.create(dir), layouts), base: 'main' });
    expect(d.changed.map((c) => [c.name, c.version, c.layout])).toEqual([['simple-app', '1.0.0', 'kctrl']]);

    const out = await plan({ root: dir, packagesDir: 'addons/packages', layouts, selection: { kind: 'diff', base: 'main', rangeKind: 'pr' }, refName: '', seq: { timestamp: new Date() } });
    expect(out.problems).toEqual([]);
    expect(out.packages[0]).toMatchObject({ name: 'simple-app', version: '1.0.0', verdict: 'planned', devVersion: expect.stringMatching(/^1\.0\.1-dev\./) });

    const loaded = await layouts.load(workTree(dir), d.changed[0]!);
    const tmp = temp('devpkg-kctrl-build-');
    const bundle = await layouts.bundle(loaded, { root: dir, tmp, ...build });
    if (!('folder' in bundle)) throw new Error('a kctrl package builds a folder');
    // kbld's lock (no images in a ConfigMap) and the includePaths, relative paths kept.
    expect(readdirSync(bundle.folder).sort()).toEqual(['.imgpkg', 'config']);
    expect(await readFile(join(bundle.folder, '.imgpkg', 'images.yml'), 'utf8')).toContain('kind: ImagesLock');
    expect(await readFile(join(bundle.folder, 'config', 'values.yml'), 'utf8')).toContain('hello from the pull request');

    const pushed = await pushBundle({ bundleDir: bundle.folder, repository: parseRepository(`${registry()}/layouts-${run}/simple-app-bundle`), tag: '1.0.1-dev.1', exec: execTool });
    const pulledDir = join(temp('devpkg-kctrl-pull-'), 'out');
    const pulled = await (await Imgpkg.create(execTool)).pull({ image: pushed.image, outputDir: pulledDir });
    expect(pulled.code).toBe(0);
    expect(await readFile(join(pulledDir, 'config', 'values.yml'), 'utf8')).toContain('hello from the pull request');

    // The baseline (kind mode installs it first) is the package built from the base ref.
    const released = await loaded.releasedSource({ root: dir, tmp, baseRef: 'main', ...build });
    expect(released?.atBase).toBe(true);
    // The exported base has no tags: it is the released version the plan chose (the tag's).
    expect(released?.pkg.pkg.spec.version).toBe('1.0.0');
    if (!released || !('folder' in released.bundle)) throw new Error('the baseline builds a folder');
    expect(await readFile(join(released.bundle.folder, 'config', 'values.yml'), 'utf8')).toContain('hello from simple-app');
  });
});

describe('kapp-controller\'s own module as a kctrl repository', () => {
  const versions = ['v0.50.0', 'v0.51.0'];
  function moduleDir(v: string): string {
    const out = execFileSync('go', ['mod', 'download', '-json', `github.com/vmware-tanzu/carvel-kapp-controller@${v}`], { encoding: 'utf8', cwd: tmpdir(), env: { ...process.env, GOFLAGS: '-mod=mod' } });
    return JSON.parse(out).Dir as string;
  }

  test('two versions from the Go module cache: detected and planned; the push names the generated .imgpkg/images.yml', async () => {
    const dir = temp('devpkg-kc-module-');
    git(dir, 'init', '-q', '-b', 'main');
    for (const [i, v] of versions.entries()) {
      const src = moduleDir(v);
      expect(existsSync(join(src, 'package-build.yml'))).toBe(true);
      for (const e of readdirSync(dir)) if (e !== '.git') rmSync(join(dir, e), { recursive: true, force: true });
      // vendor/ is left out: a few hundred MB of Go sources no package file refers to.
      cpSync(src, dir, { recursive: true, filter: (p) => !p.startsWith(join(src, 'vendor')) });
      // The module cache is read-only; the next version replaces these files.
      for (const e of readdirSync(dir, { recursive: true, withFileTypes: true })) if (!e.parentPath.includes('.git')) chmodSync(join(e.parentPath, e.name), e.isDirectory() ? 0o755 : 0o644);
      git(dir, 'add', '-A');
      git(dir, 'commit', '-q', '-m', v);
      if (i === 0) {
        git(dir, 'tag', v);
        git(dir, 'checkout', '-q', '-b', 'next');
      }
    }
    const layouts = Layouts.open('auto', { packagesDir: 'addons/packages' });
    const d = await detectChanges({ ...withTrees(await Git.create(dir), layouts), base: 'main' });
    expect(d.changed.map((c) => [c.name, c.version, c.layout, c.path])).toEqual([['kapp-controller', '0.50.0', 'kctrl', '.']]);
    expect(d.changed[0]!.reasons).toEqual(expect.arrayContaining(['modified config/config/deployment.yml']));

    const out = await plan({ root: dir, packagesDir: 'addons/packages', layouts, selection: { kind: 'diff', base: 'main', rangeKind: 'pr' }, refName: '', seq: { timestamp: new Date() } });
    const p = out.packages[0]!;
    expect(p).toMatchObject({ name: 'kapp-controller', refName: 'kapp-controller.carvel.dev', version: '0.50.0', verdict: 'planned', devVersion: expect.stringMatching(/^0\.50\.1-dev\./) });
    expect(p.plan?.packageYaml).toContain('image: localhost:5001/devpkg/kapp-controller-bundle:0.50.1-dev.');
    // Its includePaths lists .imgpkg/images.yml, which its own release script generates.
    expect(out.problems).toEqual([expect.objectContaining({ path: 'package-build.yml', line: 29, severity: 'warning', message: expect.stringContaining('includePaths entry .imgpkg/images.yml does not exist') })]);
    const loaded = await layouts.load(workTree(dir), d.changed[0]!);
    await expect(layouts.bundle(loaded, { root: dir, tmp: temp('devpkg-kc-build-'), ...build })).rejects.toMatchObject({
      file: 'package-build.yml',
      line: 29,
      message: expect.stringContaining('useKbldImagesLock: true; with false it must be in the repository'),
    });
  });
});
