// Issue 29: cluster mode on the kctrl and package repository layouts, against the real
// kapp-controller of the control plane harness (it runs out of cluster there and pulls from the
// harness registry on loopback). Each case starts from what a release left in the cluster (a
// Package and a PackageInstall of the refName, installed like the addons manager would), then
// runs the action's cluster mode on a pull request's commit range:
// - kctrl (examples/kctrl, a ConfigMap; a git repository made here with no tag and no
//   released-version): the released version is the one kapp-controller selects among the
//   cluster's Packages of the refName, said in the plan and the result; the pull request's build
//   wins over it.
// - a package repository (examples/repository, its placeholder bundles replaced by bundles pushed
//   here): the pull request adds 1.1.0, installed with its own bundle as the upgrade from 1.0.0.
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jest } from '@jest/globals';
import type { KubeConfig } from '@kubernetes/client-node';
import { RecordingHost } from '../../src/action/host.js';
import { readGithubContext } from '../../src/action/context.js';
import { installBaseline } from '../../src/cluster/baseline.js';
import { ClusterClient } from '../../src/cluster/client.js';
import { parseRegistry } from '../../src/flags.js';
import { parseInputs } from '../../src/inputs.js';
import { Layouts, workTree, type BuildOptions, type LoadedPackage, type ReleasedSource } from '../../src/layouts/index.js';
import { run as runClusterMode } from '../../src/modes/cluster.js';
import type { PackageResult } from '../../src/results.js';
import { execTool } from '../../src/tools/exec.js';
import { inputsFrom } from '../support/inputs.js';
import { harnessEnv } from './helpers/env.js';
import { createTestNamespace, deleteNamespace, harnessKubeConfig } from './helpers/kube.js';
import { newRunId, repoRoot, runTool } from './helpers/run.js';

jest.setTimeout(300_000);

const REF = 'simple-app.devpkg.example.com';
const WAIT = '150s';
const runId = newRunId();
const work = mkdtempSync(join(tmpdir(), 'devpkg-cluster-layouts-'));
const namespaces: string[] = [];
let kc: KubeConfig;
let registry = '';

const git = (dir: string, ...args: string[]) => runTool('git', ['-C', dir, '-c', 'user.name=t', '-c', 'user.email=t@devpkg.invalid', '-c', 'commit.gpgsign=false', ...args]).then((r) => r.stdout.trim());

beforeAll(async () => {
  const env = harnessEnv();
  if (!process.env.KAPPCTRL_NAMESPACE) throw new Error('the harness runs without kapp-controller; these tests need controlplane.sh up --kapp-controller');
  kc = await harnessKubeConfig();
  registry = `${env.registry}/devpkg-it/${runId}`;
});

afterAll(async () => {
  if (kc) {
    const client = await ClusterClient.create(kc);
    for (const ns of namespaces) await client.delete('packaging.carvel.dev/v1alpha1', 'PackageInstall', ns, 'simple-app').catch(() => undefined);
    await new Promise((r) => setTimeout(r, 5000)); // kapp-controller's turn to delete the Apps
    for (const ns of namespaces) {
      await client.delete('rbac.authorization.k8s.io/v1', 'ClusterRoleBinding', undefined, `simple-app-sa-${ns}-cluster-admin`).catch(() => undefined);
      await deleteNamespace(kc, ns).catch(() => undefined);
    }
  }
  if (!process.env.DEVPKG_KEEP_TEST_DIRS) rmSync(work, { recursive: true, force: true });
});

/** The action's cluster mode on `repo` over base..head, naming the PackageInstall the baseline made. */
async function clusterMode(repo: string, o: { base: string; head: string; ns: string }) {
  const host = new RecordingHost();
  const temp = mkdtempSync(join(work, 'runner-temp-'));
  const ctx = {
    inputs: parseInputs(
      inputsFrom({ mode: 'cluster', 'base-ref': o.base, 'head-ref': o.head, registry, kubeconfig: process.env.KUBECONFIG!, 'package-install': `${o.ns}/simple-app`, settle: '3s', timeout: WAIT, comment: 'false' }),
    ),
    github: { ...readGithubContext({}), workspace: repo },
    host,
    exec: execTool,
    env: { ...process.env, RUNNER_TEMP: temp },
  };
  const err = await runClusterMode(ctx).then(() => undefined, (e: unknown) => e as Error);
  const results = JSON.parse(host.outputs.results ?? '[]') as PackageResult[];
  return { host, err, results };
}

/**
 * What a release left in the cluster, set up before a case: the repository's only package read by
 * `layouts`, its released version (`released`) installed in `ns` like the addons manager would.
 * (kapp-controller's sidecarexec once lost its ytt child to its own zombie reaper here, "waitid: no
 * child processes"; devpkg's wait now waits for kapp-controller's next attempt: src/verify/evaluate.ts.)
 */
async function installRelease(repo: string, ns: string, layouts: Layouts, released: (loaded: LoadedPackage, build: BuildOptions & { baseRef?: string }) => Promise<ReleasedSource | undefined>, baseRef?: string) {
  const tree = workTree(repo);
  const [ref] = await layouts.list(tree);
  const loaded = await layouts.load(tree, ref!);
  return installBaseline({
    client: await ClusterClient.create(kc),
    kc,
    exec: execTool,
    root: repo,
    loaded,
    ...(baseRef ? { baseRef } : {}),
    released: (build: BuildOptions & { baseRef?: string }) => released(loaded, build),
    refName: REF,
    registry: parseRegistry(registry, 'test registry'),
    namespace: ns,
    timeoutMs: 150_000,
    log: () => undefined,
  });
}

async function configMapGreeting(ns: string, name: string): Promise<string | undefined> {
  const k8s = await import('@kubernetes/client-node');
  const cm = await kc.makeApiClient(k8s.CoreV1Api).readNamespacedConfigMap({ namespace: ns, name });
  return cm.data?.greeting;
}

test('cluster mode, kctrl layout: no tag and no released-version, so the released version is the one kapp-controller selects among the cluster\'s Packages; the pull request\'s build wins over it', async () => {
  const ns = await createTestNamespace(kc, 'devpkg-cl-kctrl');
  namespaces.push(ns);
  const repo = join(work, 'kctrl');
  cpSync(join(repoRoot, 'examples', 'kctrl'), repo, { recursive: true });
  const values = (greeting: string) => `#@data/values\n---\nnamespace: ${ns}\ngreeting: ${greeting}\n`;
  writeFileSync(join(repo, 'simple-app/config/values.yml'), values('hello from the release'));
  await git(repo, 'init', '-q', '-b', 'main');
  await git(repo, 'add', '-A');
  await git(repo, 'commit', '-qm', 'simple-app');
  const base = await git(repo, 'rev-parse', 'HEAD');

  // What `kctrl package release -v 1.0.0` put in the cluster (built the same way, from the base commit).
  const released = Layouts.open('kctrl', { packagesDir: '', releasedVersion: '1.0.0' });
  const b = await installRelease(repo, ns, released, (loaded, build) => loaded.releasedSource(build), base);
  expect(b).toMatchObject({ releasedVersion: '1.0.0', source: 'base-ref' });
  expect(await configMapGreeting(ns, 'simple-app')).toBe('hello from the release');

  writeFileSync(join(repo, 'simple-app/config/values.yml'), values('hello from the pull request'));
  await git(repo, 'commit', '-qam', 'simple-app: a new greeting');
  const head = await git(repo, 'rev-parse', 'HEAD');
  expect(await git(repo, 'tag', '--list')).toBe('');

  const { host, err, results } = await clusterMode(repo, { base, head, ns });
  const from = new RegExp(`^1\\.0\\.0, from the cluster's Packages: kapp-controller selects 1\\.0\\.0 for PackageInstall ${ns}/simple-app among the Packages of ${REF.replace(/\./g, '\\.')} \\(1\\.0\\.0\\)$`);
  expect(results).toEqual([
    expect.objectContaining({ name: 'simple-app', version: '1.0.0', refName: REF, mode: 'cluster', verdict: 'won', releasedVersion: '1.0.0', releasedFrom: expect.stringMatching(from), devVersion: expect.stringMatching(/^1\.0\.1-dev\./) }),
  ]);
  expect(err).toBeUndefined();
  expect(host.logs).toContainEqual(expect.stringMatching(/^simple-app\/1\.0\.0: released version 1\.0\.0: from the cluster's Packages: kapp-controller selects 1\.0\.0/));
  expect(host.logs).toContainEqual('simple-app/1.0.0: layout kctrl (recognised by its files: simple-app)');
  // The report says it too.
  expect(host.summaries.join('\n')).toMatch(/- \*\*Released version:\*\* 1\.0\.0, from the cluster's Packages: kapp-controller selects 1\.0\.0/);
  expect(await configMapGreeting(ns, 'simple-app')).toBe('hello from the pull request');
});

/** A ConfigMap bundle pushed with imgpkg to the harness registry; its digest reference. */
async function releaseBundle(ns: string, greeting: string, tag: string): Promise<string> {
  const dir = mkdtempSync(join(work, 'bundle-'));
  mkdirSync(join(dir, 'config'));
  mkdirSync(join(dir, '.imgpkg'));
  writeFileSync(join(dir, 'config', 'cm.yml'), `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: simple-repo\n  namespace: ${ns}\ndata:\n  greeting: ${greeting}\n`);
  writeFileSync(join(dir, '.imgpkg', 'images.yml'), 'apiVersion: imgpkg.carvel.dev/v1alpha1\nkind: ImagesLock\nimages: []\n');
  await runTool('imgpkg', ['push', '-b', `${registry}/simple-repo-release:${tag}`, '-f', dir, '--lock-output', join(dir, 'lock.yml')]);
  return /image: (\S+)/.exec(readFileSync(join(dir, 'lock.yml'), 'utf8'))![1]!;
}

test('cluster mode, repository layout: the pull request adds 1.1.0 to examples/repository; its own bundle wins as the upgrade from the released 1.0.0', async () => {
  const ns = await createTestNamespace(kc, 'devpkg-cl-repo');
  namespaces.push(ns);
  const repo = join(work, 'repository');
  cpSync(join(repoRoot, 'examples', 'repository'), repo, { recursive: true });
  const dir = join(repo, 'packages', REF);
  const example = (v: string) => readFileSync(join(dir, `${v}.yml`), 'utf8');
  // The example's placeholder bundles, replaced by bundles the harness's kapp-controller can pull.
  const withImage = (text: string, image: string) => text.replace(/image: \S+/, `image: ${image}`);
  const v110 = withImage(example('1.1.0'), await releaseBundle(ns, 'upgraded', '1.1.0'));
  writeFileSync(join(dir, '1.0.0.yml'), withImage(example('1.0.0'), await releaseBundle(ns, 'released', '1.0.0')));
  rmSync(join(dir, '1.1.0.yml'));
  await git(repo, 'init', '-q', '-b', 'main');
  await git(repo, 'add', '-A');
  await git(repo, 'commit', '-qm', '1.0.0');
  const base = await git(repo, 'rev-parse', 'HEAD');

  // The released 1.0.0 in the cluster: the repository's only Package at the base commit, its own bundle.
  const layouts = Layouts.open('repository', { packagesDir: '' });
  const b = await installRelease(repo, ns, layouts, async (loaded, build) => ({ pkg: loaded.pkg, bundle: await layouts.bundle(loaded, build), from: `${loaded.path} as of ${base}`, atBase: true }));
  expect(b).toMatchObject({ releasedVersion: '1.0.0' });
  expect(await configMapGreeting(ns, 'simple-repo')).toBe('released');

  writeFileSync(join(dir, '1.1.0.yml'), v110);
  await git(repo, 'add', '-A');
  await git(repo, 'commit', '-qm', '1.1.0');
  const head = await git(repo, 'rev-parse', 'HEAD');

  const { host, err, results } = await clusterMode(repo, { base, head, ns });
  expect(results).toEqual([expect.objectContaining({ name: 'simple-app', version: '1.1.0', refName: REF, mode: 'cluster', verdict: 'won', releasedVersion: '1.0.0', devVersion: '1.1.0' })]);
  // The pull request's own bundle, by its digest: nothing was built or pushed.
  expect(results[0]!.bundle).toBe(/image: (\S+)/.exec(v110)![1]);
  expect(err).toBeUndefined();
  expect(host.logs).toContainEqual(expect.stringMatching(new RegExp(`^simple-app/1\\.1\\.0: upgrade from 1\\.0\\.0, the highest other version of ${REF.replace(/\./g, '\\.')} at `)));
  expect(await configMapGreeting(ns, 'simple-repo')).toBe('upgraded');
});
