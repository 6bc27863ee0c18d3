// Issue 29: kind mode on the kctrl and package repository layouts, on the kind harness.
// Issue 35: every layout in a monorepo (working-directory a subfolder of the git repository),
// past planning: TCE and kctrl together in one scope (one cluster), the repository and plain
// layouts each in their own.
// - kctrl (examples/kctrl, a ConfigMap): devpkg builds the package from the base ref as the
//   baseline (the released version from the git tag), then the pull request's build as the dev
//   version, and verifies it wins.
// - a package repository whose Packages name bundles in a registry started here (Debian's
//   docker-registry on loopback, which the kind nodes cannot reach): the released 1.0.0 and the
//   pull request's 1.1.0 are copied into kind mode's own registry as they are (digests kept), and
//   1.1.0 is verified as the upgrade from 1.0.0.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { closeSync, cpSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RecordingHost } from '../../src/action/host.js';
import { readGithubContext } from '../../src/action/context.js';
import { CLEANUP_STATE, CleanupList } from '../../src/cleanup.js';
import { parseInputs } from '../../src/inputs.js';
import { run as runKindMode } from '../../src/modes/kind.js';
import { runPost } from '../../src/post.js';
import { execTool } from '../../src/tools/exec.js';
import type { PackageResult } from '../../src/results.js';
import { inputsFrom } from '../support/inputs.js';
import { kindHarnessUp } from './helpers/kind.js';
import { freePort, repoRoot, runTool } from './helpers/run.js';


const T = 1_800_000;
const savedEnv = { ...process.env };
const work = mkdtempSync(join(tmpdir(), 'devpkg-kind-layouts-'));
const repo = join(work, 'repo');
const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t.invalid', ...args], { cwd: repo, encoding: 'utf8' }).trim();
let machine: Record<string, string> = {};
let base = '';
let head = '';

beforeAll(async () => {
  const kh = await kindHarnessUp();
  Object.assign(process.env, kh.env);
  machine = { 'kind-node-image': kh.nodeImage, 'kind-config': kh.config, 'registry-image': kh.registryImage, 'kapp-controller-manifest': kh.kappControllerManifest };
  cpSync(join(repoRoot, 'examples', 'kctrl'), repo, { recursive: true });
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('commit', '-qm', 'simple-app released');
  git('tag', 'v1.0.0');
  base = git('rev-parse', 'HEAD');
  writeFileSync(join(repo, 'simple-app/config/values.yml'), '#@data/values\n---\nnamespace: default\ngreeting: hello from the pull request\n');
  git('commit', '-qam', 'simple-app: a new greeting');
  head = git('rev-parse', 'HEAD');
}, T);

let source: ChildProcess | undefined;
afterAll(async () => {
  if (source && source.exitCode === null) {
    const exited = new Promise((r) => source!.once('exit', r));
    source.kill('SIGTERM');
    await exited;
  }
  for (const k of Object.keys(process.env)) if (!(k in savedEnv)) delete process.env[k];
  Object.assign(process.env, savedEnv);
  rmSync(work, { recursive: true, force: true });
});

/** Mode kind in process on `workspace` with the machine's inputs and `extra` ones; its own RUNNER_TEMP. */
function kindRun(workspace: string, runId: string, extra: Record<string, string>) {
  const host = new RecordingHost();
  const temp = mkdtempSync(join(work, 'runner-temp-'));
  const ctx = {
    inputs: parseInputs(inputsFrom({ mode: 'kind', settle: '5s', timeout: '5m', comment: 'false', ...machine, ...extra })),
    github: { ...readGithubContext({}), workspace, runId, runNumber: 1 },
    host,
    exec: execTool,
    env: { ...process.env, RUNNER_TEMP: temp },
  };
  return { host, ctx };
}

/** kubectl on the kind cluster a run made (its kubeconfig as recorded for the post step): the trimmed stdout. */
function kubectlOfRun(host: RecordingHost): (...args: string[]) => Promise<string> {
  const kubeconfig = CleanupList.fromState(host.getState(CLEANUP_STATE)).find((i) => i.kind === 'kind-cluster')?.kubeconfig;
  if (!kubeconfig) throw new Error('the run recorded no kind cluster');
  return (...args) => runTool('kubectl', ['--kubeconfig', kubeconfig, ...args]).then((x) => x.stdout.trim());
}

test('mode kind, kctrl layout: the baseline built from the base ref, then the pull request\'s build wins', async () => {
  const { host, ctx } = kindRun(repo, 'kctrlwin', { layout: 'auto', 'base-ref': base, 'head-ref': head });
  try {
    await runKindMode(ctx);
    const results = JSON.parse(host.outputs.results!) as PackageResult[];
    expect(results).toHaveLength(1);
    const r = results[0]!;
    expect(r).toMatchObject({ name: 'simple-app', version: '1.0.0', refName: 'simple-app.devpkg.example.com', mode: 'kind', verdict: 'won', releasedVersion: '1.0.0' });
    expect(r.devVersion).toMatch(/^1\.0\.1-dev\./);
    expect(r.phases?.map((p) => p.name)).toEqual(['kind cluster', 'registry', 'kapp-controller', 'baseline simple-app 1.0.0', 'dev Package applied', 'won']);
    const kubectl = kubectlOfRun(host);
    expect(await kubectl('get', 'configmap', '-n', 'default', 'simple-app', '-o', 'jsonpath={.data.greeting}')).toBe('hello from the pull request');
    expect(host.logs.join('\n')).toContain('layout kctrl (recognised by its files: simple-app)');
  } finally {
    await runPost(host);
  }
}, T);

/** A plain-HTTP registry on loopback, started here: where the repository's bundles were released. */
async function sourceRegistry(): Promise<string> {
  const dir = mkdtempSync(join(work, 'source-registry-'));
  const port = await freePort();
  writeFileSync(join(dir, 'config.yml'), ['version: 0.1', 'log: {level: warn}', `storage: {filesystem: {rootdirectory: ${join(dir, 'data')}}}`, `http: {addr: "127.0.0.1:${port}", secret: devpkg-test}`, ''].join('\n'));
  const fd = openSync(join(dir, 'registry.log'), 'a');
  source = spawn('docker-registry', ['serve', join(dir, 'config.yml')], { stdio: ['ignore', fd, fd] });
  closeSync(fd);
  for (const deadline = Date.now() + 20_000; ; ) {
    const status = await fetch(`http://127.0.0.1:${port}/v2/`).then((r) => r.status, () => 0);
    if (status === 200) return `127.0.0.1:${port}`;
    if (Date.now() > deadline || source.exitCode !== null) throw new Error(`the source registry did not start: ${readFileSync(join(dir, 'registry.log'), 'utf8')}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A ConfigMap bundle pushed with imgpkg; its digest reference. */
async function releaseBundle(registry: string, greeting: string, tag: string): Promise<string> {
  const dir = mkdtempSync(join(work, 'bundle-'));
  mkdirSync(join(dir, 'config'));
  mkdirSync(join(dir, '.imgpkg'));
  writeFileSync(join(dir, 'config', 'cm.yml'), `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: simple-repo\n  namespace: default\ndata:\n  greeting: ${greeting}\n`);
  writeFileSync(join(dir, '.imgpkg', 'images.yml'), 'apiVersion: imgpkg.carvel.dev/v1alpha1\nkind: ImagesLock\nimages: []\n');
  await runTool('imgpkg', ['push', '-b', `${registry}/simple-repo:${tag}`, '-f', dir, '--lock-output', join(dir, 'lock.yml')]);
  return /image: (\S+)/.exec(readFileSync(join(dir, 'lock.yml'), 'utf8'))![1]!;
}

const REPO_REF = 'simple-repo.devpkg.test';
const repoPackage = (version: string, image: string) => `apiVersion: data.packaging.carvel.dev/v1alpha1
kind: Package
metadata:
  name: ${REPO_REF}.${version}
spec:
  refName: ${REPO_REF}
  version: ${version}
  template:
    spec:
      fetch:
      - imgpkgBundle:
          image: ${image}
      template:
      - ytt:
          paths: [config/]
      - kbld:
          paths: ['-', .imgpkg/images.yml]
      deploy:
      - kapp: {}
`;

test('mode kind, repository layout in a monorepo (working-directory a subfolder): the pull request\'s Package, its own bundle, wins as the upgrade from the released version; a Package outside the subfolder is not read', async () => {
  const registry = await sourceRegistry();
  const released = await releaseBundle(registry, 'released', '1.0.0');
  const next = await releaseBundle(registry, 'upgraded', '1.1.0');
  // The git repository holds more than the bundle: the bundle is its `release/` folder (issue 35's
  // monorepo), and a `packages/` folder at the top holds a Package that must not be read.
  const dir = join(work, 'pkgrepo');
  const pkgs = join(dir, 'release', 'packages', REPO_REF);
  mkdirSync(pkgs, { recursive: true });
  mkdirSync(join(dir, 'packages', 'decoy.devpkg.test'), { recursive: true });
  const g = (...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t.invalid', ...args], { cwd: dir, encoding: 'utf8' }).trim();
  g('init', '-q', '-b', 'main');
  writeFileSync(join(pkgs, '1.0.0.yml'), repoPackage('1.0.0', released));
  g('add', '-A');
  g('commit', '-qm', '1.0.0');
  const repoBase = g('rev-parse', 'HEAD');
  writeFileSync(join(pkgs, '1.1.0.yml'), repoPackage('1.1.0', next));
  writeFileSync(join(dir, 'packages', 'decoy.devpkg.test', '2.0.0.yml'), repoPackage('2.0.0', `${registry}/not-there@sha256:${'0'.repeat(64)}`).replaceAll(REPO_REF, 'decoy.devpkg.test'));
  g('add', '-A');
  g('commit', '-qm', '1.1.0, and a Package outside the bundle');
  const repoHead = g('rev-parse', 'HEAD');

  const { host, ctx } = kindRun(dir, 'repowin', { 'working-directory': 'release', 'base-ref': repoBase, 'head-ref': repoHead });
  try {
    await runKindMode(ctx);
    const results = JSON.parse(host.outputs.results!) as PackageResult[];
    expect(results).toHaveLength(1);
    const r = results[0]!;
    expect(r).toMatchObject({ name: 'simple-repo', version: '1.1.0', refName: REPO_REF, mode: 'kind', verdict: 'won', releasedVersion: '1.0.0', devVersion: '1.1.0' });
    // The pull request's own bundle (its digest), from kind mode's registry.
    expect(r.bundle).toMatch(new RegExp(`@${next.split('@')[1]}$`));
    expect(r.phases?.map((p) => p.name)).toEqual(['kind cluster', 'registry', 'kapp-controller', 'baseline simple-repo 1.0.0', 'dev Package applied', 'won']);
    const kubectl = kubectlOfRun(host);
    expect(await kubectl('get', 'configmap', '-n', 'default', 'simple-repo', '-o', 'jsonpath={.data.greeting}')).toBe('upgraded');
  } finally {
    await runPost(host);
  }
}, T);

test('mode kind, plain layout in a monorepo (packages/<name>/<version>/package.yml with bundle/, working-directory a subfolder): the baseline from the base commit, then the pull request\'s bundle wins', async () => {
  const dir = join(work, 'plainrepo');
  const version = join(dir, 'carvel', 'packages', 'simple-plain', '1.0.0');
  mkdirSync(join(version, 'bundle', 'config'), { recursive: true });
  mkdirSync(join(version, 'bundle', '.imgpkg'), { recursive: true });
  const cm = (greeting: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: simple-plain\n  namespace: default\ndata:\n  greeting: ${greeting}\n`;
  writeFileSync(join(version, 'bundle', 'config', 'cm.yml'), cm('released'));
  writeFileSync(join(version, 'bundle', '.imgpkg', 'images.yml'), 'apiVersion: imgpkg.carvel.dev/v1alpha1\nkind: ImagesLock\nimages: []\n');
  writeFileSync(join(version, 'package.yml'), repoPackage('1.0.0', `registry.example.invalid/simple-plain@sha256:${'1'.repeat(64)}`).replaceAll(REPO_REF, 'simple-plain.devpkg.test'));
  const g = (...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t.invalid', ...args], { cwd: dir, encoding: 'utf8' }).trim();
  g('init', '-q', '-b', 'main');
  g('add', '-A');
  g('commit', '-qm', 'simple-plain 1.0.0');
  const plainBase = g('rev-parse', 'HEAD');
  writeFileSync(join(version, 'bundle', 'config', 'cm.yml'), cm('from the pull request'));
  g('commit', '-qam', 'simple-plain: a new greeting');
  const plainHead = g('rev-parse', 'HEAD');

  const { host, ctx } = kindRun(dir, 'plainwin', { 'working-directory': 'carvel', 'base-ref': plainBase, 'head-ref': plainHead });
  try {
    await runKindMode(ctx);
    const results = JSON.parse(host.outputs.results!) as PackageResult[];
    expect(results).toHaveLength(1);
    const r = results[0]!;
    expect(r).toMatchObject({ name: 'simple-plain', version: '1.0.0', refName: 'simple-plain.devpkg.test', mode: 'kind', verdict: 'won' });
    expect(r.phases?.map((p) => p.name)).toEqual(['kind cluster', 'registry', 'kapp-controller', 'baseline simple-plain 1.0.0', 'dev Package applied', 'won']);
    const kubectl = kubectlOfRun(host);
    expect(await kubectl('get', 'configmap', '-n', 'default', 'simple-plain', '-o', 'jsonpath={.data.greeting}')).toBe('from the pull request');
    expect(host.logs.join('\n')).toMatch(/layout plain/);
  } finally {
    await runPost(host);
  }
}, T);

test('mode kind, TCE and kctrl layouts together in a monorepo (working-directory a subfolder): each baseline from the base commit, each pull request\'s change wins; a changed package outside the subfolder is not read', async () => {
  const dir = join(work, 'mono');
  const scope = join(dir, 'platform');
  const cm = (name: string, greeting: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n  namespace: default\ndata:\n  greeting: ${greeting}\n`;
  const tcePackage = (where: string, name: string) => {
    const version = join(where, 'addons', 'packages', name, '1.0.0');
    mkdirSync(join(version, 'bundle', 'config'), { recursive: true });
    mkdirSync(join(version, 'bundle', '.imgpkg'), { recursive: true });
    writeFileSync(join(version, 'bundle', 'config', 'cm.yml'), cm(name, 'released'));
    writeFileSync(join(version, 'bundle', '.imgpkg', 'images.yml'), 'apiVersion: imgpkg.carvel.dev/v1alpha1\nkind: ImagesLock\nimages: []\n');
    writeFileSync(join(version, 'package.yaml'), repoPackage('1.0.0', `registry.example.invalid/${name}:1.0.0`).replaceAll(REPO_REF, `${name}.devpkg.test`));
    writeFileSync(join(where, 'addons', 'packages', name, 'metadata.yaml'), `apiVersion: data.packaging.carvel.dev/v1alpha1\nkind: PackageMetadata\nmetadata:\n  name: ${name}.devpkg.test\nspec:\n  displayName: ${name}\n`);
    return join(version, 'bundle', 'config', 'cm.yml');
  };
  const tceValues = tcePackage(scope, 'simple-tce');
  // A TCE tree at the top of the git repository, outside the scope: changed too, never read.
  const decoy = tcePackage(dir, 'decoy');
  cpSync(join(repoRoot, 'examples', 'kctrl', 'simple-app'), join(scope, 'apps', 'simple-app'), { recursive: true });
  const g = (...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t.invalid', ...args], { cwd: dir, encoding: 'utf8' }).trim();
  g('init', '-q', '-b', 'main');
  g('add', '-A');
  g('commit', '-qm', 'released');
  g('tag', 'v1.0.0');
  const monoBase = g('rev-parse', 'HEAD');
  writeFileSync(tceValues, cm('simple-tce', 'from the pull request'));
  writeFileSync(decoy, cm('decoy', 'must not be read'));
  writeFileSync(join(scope, 'apps', 'simple-app', 'config', 'values.yml'), '#@data/values\n---\nnamespace: default\ngreeting: kctrl from the pull request\n');
  g('commit', '-qam', 'simple-tce and simple-app: new greetings; decoy too');
  const monoHead = g('rev-parse', 'HEAD');

  const { host, ctx } = kindRun(dir, 'monowin', { 'working-directory': 'platform', 'base-ref': monoBase, 'head-ref': monoHead });
  try {
    await runKindMode(ctx);
    const results = (JSON.parse(host.outputs.results!) as PackageResult[]).sort((a, b) => a.name.localeCompare(b.name));
    expect(results.map((r) => [r.name, r.version, r.refName, r.verdict, r.releasedVersion])).toEqual([
      ['simple-app', '1.0.0', 'simple-app.devpkg.example.com', 'won', '1.0.0'],
      ['simple-tce', '1.0.0', 'simple-tce.devpkg.test', 'won', '1.0.0'],
    ]);
    for (const r of results) expect(r.phases?.map((p) => p.name)).toEqual(['kind cluster', 'registry', 'kapp-controller', `baseline ${r.name} 1.0.0`, 'dev Package applied', 'won']);
    const kubectl = kubectlOfRun(host);
    expect(await kubectl('get', 'configmap', '-n', 'default', 'simple-tce', '-o', 'jsonpath={.data.greeting}')).toBe('from the pull request');
    expect(await kubectl('get', 'configmap', '-n', 'default', 'simple-app', '-o', 'jsonpath={.data.greeting}')).toBe('kctrl from the pull request');
    const log = host.logs.join('\n');
    expect(log).toContain('simple-app');
    expect(log).not.toContain('decoy');
  } finally {
    await runPost(host);
  }
}, T);
