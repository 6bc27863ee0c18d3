/**
 * devpkg's cluster pipeline and verifier against the real kapp-controller on the harness, driven
 * through `devpkg dev`, `devpkg verify`, the cluster mode and the library, on a copy of
 * examples/tce-packages in a git repository made here. One PackageInstall moves through the
 * scenarios in order (each builds on the last, as on a real cluster):
 *   baseline (released 1.5.3 from the base commit, installed like the addons manager would)
 *   -> a dev version that wins (CLI; assertions that hold, then one that fails)
 *   -> a win through the cluster mode (also with a PackageInstall of the refName being deleted elsewhere)
 *   -> a win while kube-apiserver restarts under the watches
 *   -> a dev version whose template is broken (reconcile-failed)
 *   -> a lower dev version after that (downgrade-blocked)
 *   -> an exact-version constraint (not-selected)
 */
import { jest } from '@jest/globals';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { KubeConfig, KubernetesObject } from '@kubernetes/client-node';
import { RecordingHost } from '../../src/action/host.js';
import { readGithubContext } from '../../src/action/context.js';
import { installBaseline } from '../../src/cluster/baseline.js';
import { ClusterClient } from '../../src/cluster/client.js';
import { runDevPipeline } from '../../src/cluster/dev.js';
import { parseInputs } from '../../src/inputs.js';
import { inputsFrom } from '../support/inputs.js';
import { run as runClusterMode } from '../../src/modes/cluster.js';
import { bundleOfLoaded, loadPackage } from '../support/load-package.js';
import { parseRefNameMap } from '../../src/packages/refname.js';
import { execTool } from '../../src/tools/exec.js';
import { runAssertions } from '../../src/verify/assertions.js';
import type { PackageResult } from '../../src/results.js';
import { verifyPackageInstall } from '../../src/verify/verifier.js';
import { parseRegistry } from '../../src/flags.js';
import { harnessEnv } from './helpers/env.js';
import { createTestNamespace, deleteNamespace, harnessKubeConfig } from './helpers/kube.js';
import { newRunId, repoRoot, restartApiserver, runCliIn, runTool } from './helpers/run.js';
import { CLUSTER_REF, REPO_REF, setInfraProvider as setAntreaInfraProvider, VERSION_DIR } from './helpers/antrea.js';

const WAIT = '150s';

let kc: KubeConfig;
let ns = '';
let repo = '';
let work = '';
let baseCommit = '';
let registry = '';
const runId = newRunId();

async function git(...args: string[]): Promise<string> {
  return (await runTool('git', ['-C', repo, ...args])).stdout.trim();
}

const setInfraProvider = (value: string) => setAntreaInfraProvider(repo, value);

const cli = (args: string[]) => runCliIn(work, args);

function devArgs(extra: string[] = []): string[] {
  return [
    'dev',
    '--package', path.join(repo, VERSION_DIR),
    '--registry', registry,
    '--ref-name', `${REPO_REF}=${CLUSTER_REF}`,
    '--package-install', `${ns}/antrea`,
    '--settle', '3s',
    '--timeout', WAIT,
    '--diagnostics', path.join(work, 'diagnostics'),
    '--json',
    ...extra,
  ];
}

function parseResults(stdout: string): PackageResult[] {
  return JSON.parse(stdout) as PackageResult[];
}

async function pkgi(): Promise<KubernetesObject & { status?: Record<string, unknown> }> {
  const k8s = await import('@kubernetes/client-node');
  const api = kc.makeApiClient(k8s.CustomObjectsApi);
  return (await api.getNamespacedCustomObject({ group: 'packaging.carvel.dev', version: 'v1alpha1', namespace: ns, plural: 'packageinstalls', name: 'antrea' })) as KubernetesObject & {
    status?: Record<string, unknown>;
  };
}

async function deletePackage(version: string): Promise<void> {
  const client = await ClusterClient.create(kc);
  await client.delete('data.packaging.carvel.dev/v1alpha1', 'Package', ns, `${CLUSTER_REF}.${version}`);
}

/** The versions of the Packages of the refName in the test namespace, sorted. */
async function packageVersions(): Promise<string[]> {
  const client = await ClusterClient.create(kc);
  return (await client.listPackages(ns, CLUSTER_REF)).map((p) => String(p.spec?.version)).sort();
}

/** A Package of `version` made by hand from the released one (same bundle): what devpkg refuses to apply. */
async function applyPackageCopy(version: string): Promise<void> {
  const client = await ClusterClient.create(kc);
  const released = (await client.listPackages(ns, CLUSTER_REF)).find((p) => p.spec?.version === '1.5.3')!;
  await client.apply({
    apiVersion: 'data.packaging.carvel.dev/v1alpha1',
    kind: 'Package',
    metadata: { name: `${CLUSTER_REF}.${version}`, namespace: ns },
    spec: { ...released.spec, version },
  } as KubernetesObject);
}

const agentAnnotation = (value: string, nsName = ns): string =>
  `- {kind: DaemonSet, namespace: ${nsName}, name: antrea-agent, path: 'spec.template.metadata.annotations["tanzu.vmware.com/infra-provider"]', equals: ${value}}\n`;

// A project-level testTimeout in jest.config.js is not applied; each step waits on kapp-controller.
jest.setTimeout(300_000);

describe('devpkg verify / dev / cluster mode on kapp-controller', () => {
  const results: Record<string, PackageResult> = {};

  beforeAll(async () => {
    const env = harnessEnv();
    if (!process.env.KAPPCTRL_NAMESPACE) throw new Error('the harness runs without kapp-controller; these tests need controlplane.sh up --kapp-controller');
    kc = await harnessKubeConfig();
    registry = `${env.registry}/devpkg-it/${runId}`;
    ns = await createTestNamespace(kc, 'devpkg-vf');
    work = await mkdtemp(path.join(os.tmpdir(), 'devpkg-vf-'));
    repo = path.join(work, 'repo');
    await cp(path.join(repoRoot, 'examples/tce-packages'), repo, { recursive: true });
    await runTool('git', ['init', '-q', '-b', 'main', repo]);
    await git('-c', 'user.email=t@devpkg.test', '-c', 'user.name=t', 'add', '-A');
    await git('-c', 'user.email=t@devpkg.test', '-c', 'user.name=t', 'commit', '-q', '-m', 'released');
    baseCommit = await git('rev-parse', 'HEAD');
    // The change under test: the agent's pod template annotation says devpkg-it.
    await setInfraProvider('devpkg-it');
    await git('-c', 'user.email=t@devpkg.test', '-c', 'user.name=t', 'commit', '-q', '-am', 'change antrea');
  });

  afterAll(async () => {
    if (kc && ns) {
      const client = await ClusterClient.create(kc);
      await client.delete('packaging.carvel.dev/v1alpha1', 'PackageInstall', ns, 'antrea').catch(() => undefined);
      await new Promise((r) => setTimeout(r, 5000)); // kapp-controller's turn to delete the App
      await client.delete('rbac.authorization.k8s.io/v1', 'ClusterRoleBinding', undefined, `antrea-sa-${ns}-cluster-admin`).catch(() => undefined);
      await deleteNamespace(kc, ns).catch(() => undefined);
    }
    if (work && !process.env.DEVPKG_KEEP_TEST_DIRS) await rm(work, { recursive: true, force: true });
  });

  test('baseline: the released version from the base commit, installed like the addons manager', async () => {
    const client = await ClusterClient.create(kc);
    const loaded = await loadPackage(repo, 'addons/packages', 'antrea', '1.5.3');
    const b = await installBaseline({
      client,
      kc,
      exec: execTool,
      root: repo,
      loaded,
      baseRef: baseCommit,
      refName: CLUSTER_REF,
      registry: parseRegistry(registry, 'test registry'),
      namespace: ns,
      values: `namespace: ${ns}\n`,
      timeoutMs: 150_000,
      log: () => undefined,
    });
    expect(b.source).toBe('base-ref');
    expect(b.releasedVersion).toBe('1.5.3');
    const p = await pkgi();
    expect((p as { spec?: { packageRef?: unknown } }).spec?.packageRef).toEqual({ refName: CLUSTER_REF, versionSelection: { prereleases: {} } });
    // Built from the base commit: the annotation is the released one, not the change.
    const [a] = await runAssertions(kc, [{ kind: 'DaemonSet', namespace: ns, name: 'antrea-agent', path: 'spec.template.metadata.annotations["tanzu.vmware.com/infra-provider"]', equals: 'docker' }]);
    expect(a).toMatchObject({ ok: true });
  });

  test('devpkg dev: the dev version wins, with a timeline, and the assertions hold', async () => {
    const assertFile = path.join(work, 'assert-ok.yaml');
    await writeFile(assertFile, agentAnnotation('devpkg-it') + `- {kind: ConfigMap, namespace: ${ns}, name: antrea-config, path: 'data["antrea-agent.conf"]', matches: 'trafficEncapMode: encap'}\n`);
    const r = await cli(devArgs(['--assert', assertFile]));
    // Nothing on stderr with --json but the up-front warning about the harness's loopback registry
    // (kapp-controller runs on this machine here, so it does reach it).
    expect(r.stderr).toMatch(/^warning: the cluster is to pull the bundle from 127\.0\.0\.1:\d+ \(--registry; --cluster-registry is not set\), a localhost address: [^\n]*\n$/);
    const [res] = parseResults(r.stdout);
    results.win = res!;
    // A dev version that did not win brings its reason (a rehearsal saw reconcile-failed here once, reason not shown).
    expect({ code: r.code, reason: res?.verdict === 'won' ? '' : res?.reason }).toEqual({ code: 0, reason: '' });
    expect(res).toMatchObject({ name: 'antrea', version: '1.5.3', refName: REPO_REF, targetRefName: CLUSTER_REF, releasedVersion: '1.5.3', verdict: 'won', mode: 'cluster' });
    expect(res!.devVersion).toMatch(/^1\.5\.4-dev\.\d{14}$/);
    expect(res!.bundle).toMatch(new RegExp(`^${registry.replace(/[.]/g, '\\.')}/antrea-bundle@sha256:[0-9a-f]{64}$`));
    expect(res!.reason).toMatch(/held through the 3s settle window/);
    expect(res!.assertions?.map((a) => a.ok)).toEqual([true, true]);
    // The timeline shows the PackageInstall moving from the released version to the dev version.
    const pi = res!.timeline.filter((t) => t.object === 'PackageInstall');
    // Watching starts after the apply, so the first entry may already show the dev version.
    expect([res!.releasedVersion, res!.devVersion]).toContain(pi[0]!.lastAttemptedVersion);
    expect(pi.at(-1)).toMatchObject({ version: res!.devVersion, lastAttemptedVersion: res!.devVersion, condition: 'ReconcileSucceeded' });
    expect(pi.at(-1)!.observedGeneration).toBe(pi.at(-1)!.generation);
    expect(res!.timeline.some((t) => t.object === 'App' && t.condition === 'ReconcileSucceeded')).toBe(true);
    for (const t of res!.timeline) expect(Number.isNaN(Date.parse(t.at))).toBe(false);
  });

  test('devpkg verify: a failing assertion makes a won verdict fail the command', async () => {
    const assertFile = path.join(work, 'assert-bad.yaml');
    await writeFile(assertFile, agentAnnotation('something-else'));
    const win = results.win!;
    const r = await cli([
      'verify',
      '--package-install', `${ns}/antrea`,
      '--expect-version', win.devVersion!,
      '--bundle', win.bundle!,
      '--settle', '0',
      '--timeout', '60s',
      '--assert', assertFile,
      '--diagnostics', path.join(work, 'diagnostics'),
      '--json',
    ]);
    expect(r.code).toBe(1);
    const res = JSON.parse(r.stdout) as PackageResult;
    expect(res.verdict).toBe('won');
    expect(res.assertions).toEqual([
      {
        description: `DaemonSet ${ns}/antrea-agent: spec.template.metadata.annotations["tanzu.vmware.com/infra-provider"] equals "something-else"`,
        ok: false,
        detail: 'is devpkg-it, expected something-else',
      },
    ]);
    expect(res.reason).toMatch(/1 of 1 assertion\(s\) failed/);
    expect(existsSync(path.join(res.diagnostics!.dir, 'packageinstall.yaml'))).toBe(true);
  });

  test('devpkg verify: a wrong bundle digest is not a win, decided once the App settled on the other bundle (not at the time-out)', async () => {
    const win = results.win!;
    const r = await cli(['verify', '--package-install', `${ns}/antrea`, '--expect-version', win.devVersion!, '--bundle', `sha256:${'0'.repeat(64)}`, '--settle', '0', '--timeout', '120s', '--json', '--diagnostics', path.join(work, 'diagnostics')]);
    expect(r.code).toBe(1);
    const res = JSON.parse(r.stdout) as PackageResult;
    expect(res.verdict).toBe('not-selected');
    expect(res.reason).toBe(
      `kapp-controller installed ${win.devVersion}, but from bundle ${win.bundle}, not the dev bundle sha256:${'0'.repeat(64)}: ` +
        `the Package ${win.devVersion} references that bundle (check --bundle, or whether the Package was replaced)`,
    );
    // Headed with the package and the released version, not the dev version.
    expect(res).toMatchObject({ name: 'antrea', version: '1.5.3', releasedVersion: '1.5.3', devVersion: win.devVersion });
  });

  /** The action's cluster mode on the test repository, with these inputs over the common ones. */
  function clusterMode(values: Record<string, string>) {
    const inputs = {
      mode: 'cluster',
      'packages-dir': 'addons/packages',
      registry,
      'ref-name': `${REPO_REF}=${CLUSTER_REF}`,
      kubeconfig: process.env.KUBECONFIG!,
      settle: '3s',
      timeout: WAIT,
      comment: 'false',
      ...values,
    };
    const host = new RecordingHost();
    const ctx = {
      inputs: parseInputs(inputsFrom(inputs)),
      github: { ...readGithubContext({}), workspace: repo },
      host,
      exec: execTool,
      env: { ...process.env, RUNNER_TEMP: work },
    };
    return { host, run: () => runClusterMode(ctx) };
  }

  test('cluster mode: the changed package wins', async () => {
    await setInfraProvider('devpkg-cluster-mode');
    const { host, run } = clusterMode({ packages: 'antrea/1.5.3', 'package-install': `${ns}/antrea`, assert: agentAnnotation('devpkg-cluster-mode') });
    await run();
    expect(JSON.parse(host.outputs.verdicts!)).toEqual({ 'antrea/1.5.3': 'won' });
    expect(host.errors).toEqual([]);
  });

  test('cluster mode: a PackageInstall of the refName being deleted in another namespace (an earlier run\'s, still terminating) is left out, not an error', async () => {
    // As harness.test.ts's crds-* namespace can be, just before this file on a loaded machine:
    // kapp-controller had not finished deleting its PackageInstall antrea of this refName, the dev
    // Package was refused in the terminating namespace, and antrea ended `error`. A finalizer of
    // this test's holds that state here until the end.
    const k8s = await import('@kubernetes/client-node');
    const api = k8s.KubernetesObjectApi.makeApiClient(kc);
    const other = await createTestNamespace(kc, 'devpkg-vf-gone');
    const gone = { apiVersion: 'packaging.carvel.dev/v1alpha1', kind: 'PackageInstall', metadata: { name: 'antrea', namespace: other } };
    await api.create({
      ...gone,
      metadata: { ...gone.metadata, finalizers: ['devpkg.test/hold'] },
      spec: { serviceAccountName: 'nobody', packageRef: { refName: CLUSTER_REF, versionSelection: { prereleases: {} } } },
    } as KubernetesObject);
    try {
      await api.delete(gone as KubernetesObject);
      await deleteNamespace(kc, other);
      await setInfraProvider('devpkg-left-out');
      const { host, run } = clusterMode({ packages: 'antrea/1.5.3', assert: agentAnnotation('devpkg-left-out') });
      const err = await run().then(() => undefined, (e: unknown) => e as Error);
      const ended = Object.fromEntries((JSON.parse(host.outputs.results ?? '[]') as PackageResult[]).map((r) => [`${r.name}/${r.version}`, r.verdict === 'won' ? 'won' : `${r.verdict}: ${r.reason}`]));
      expect(ended).toEqual({ 'antrea/1.5.3': 'won' });
      expect(err).toBeUndefined();
      expect(host.logs).toContainEqual(expect.stringMatching(new RegExp(`^PackageInstall ${other}/antrea is being deleted \\(since \\S+\\); leaving it out$`)));
    } finally {
      await api
        .patch({ ...gone, metadata: { ...gone.metadata, finalizers: null } } as unknown as KubernetesObject, undefined, undefined, undefined, undefined, k8s.PatchStrategy.MergePatch)
        .catch(() => undefined);
      await deleteNamespace(kc, other).catch(() => undefined);
    }
  });

  test('cluster mode: an unusable package.yaml is that package\'s error; a name mismatch is a warning; the other package still wins', async () => {
    await setInfraProvider('devpkg-one-bad');
    const antreaFile = path.join(repo, VERSION_DIR, 'package.yaml');
    const calicoFile = path.join(repo, 'addons/packages/calico/3.22.1/package.yaml');
    // As in the real TCE tree (oracle-cpi/1.22.1): metadata.name names another version.
    await writeFile(antreaFile, (await readFile(antreaFile, 'utf8')).replace(`name: ${REPO_REF}.1.5.3`, `name: ${REPO_REF}.1.5.2`));
    await writeFile(calicoFile, 'apiVersion: data.packaging.carvel.dev/v1alpha1\nkind: Package\nspec:\n  refName: [calico\n');
    try {
      const { host, run } = clusterMode({ packages: 'calico/3.22.1,antrea/1.5.3', assert: agentAnnotation('devpkg-one-bad') });
      // calico fails first and antrea is still pushed, applied and verified; one failure at the end names calico.
      const err = await run().then(() => undefined, (e: unknown) => e as Error);
      // A package that did not end as expected shows its reason in the diff (a matcher such as
      // expect.any would hide it).
      const ended = Object.fromEntries(
        (JSON.parse(host.outputs.results ?? '[]') as PackageResult[]).map((r) => [`${r.name}/${r.version}`, r.verdict === 'won' ? 'won' : `${r.verdict}: ${r.reason}`]),
      );
      expect(ended).toEqual({ 'calico/3.22.1': expect.stringMatching(/^error: /), 'antrea/1.5.3': 'won' });
      expect(JSON.parse(host.outputs.verdicts!)).toEqual({ 'calico/3.22.1': 'error', 'antrea/1.5.3': 'won' });
      expect(err?.message).toContain('1 of 2 package(s) did not win: calico/3.22.1 error');
      expect(host.errors).toEqual([
        { message: expect.stringMatching(/YAML syntax error/), where: expect.objectContaining({ file: 'addons/packages/calico/3.22.1/package.yaml', line: 4 }) },
      ]);
      expect(host.warnings).toEqual([
        { message: expect.stringMatching(/^the cluster is to pull the bundle from 127\.0\.0\.1:\d+ \(input registry; input cluster-registry is not set\)/) },
        { message: expect.stringMatching(/metadata\.name "antrea\.community\.tanzu\.vmware\.com\.1\.5\.2" is not spec\.refName/), where: expect.objectContaining({ file: `${VERSION_DIR}/package.yaml`, line: 4 }) },
      ]);
      const results = JSON.parse(host.outputs.results!) as PackageResult[];
      const antrea = results.find((r) => r.name === 'antrea')!;
      expect(antrea.assertions?.map((a) => a.ok)).toEqual([true]);
      expect(antrea.problems).toEqual([expect.objectContaining({ severity: 'warning', path: `${VERSION_DIR}/package.yaml`, line: 4 })]);
      expect(results.find((r) => r.name === 'calico')).toMatchObject({
        verdict: 'error',
        problems: [expect.objectContaining({ severity: 'error', path: 'addons/packages/calico/3.22.1/package.yaml', line: 4 })],
      });
    } finally {
      await git('checkout', '--', VERSION_DIR, 'addons/packages/calico/3.22.1');
    }
  });

  test('a win while kube-apiserver restarts under the watches (resumed, not polled)', async () => {
    await setInfraProvider('devpkg-restart');
    // Same form as a planned dev version, from the clock: above every earlier one, below later ones.
    const version = `1.5.4-dev.${new Date().toISOString().replace(/\D/g, '').slice(0, 14)}`;
    const problems: string[] = [];
    let watching!: () => void;
    const firstEvaluation = new Promise<void>((r) => (watching = r));
    const waiting = verifyPackageInstall({
      kc,
      target: { namespace: ns, name: 'antrea' },
      expect: { version },
      settleMs: 3000,
      timeoutMs: 200_000,
      log: (m) => problems.push(m),
      // The PackageInstall is listed last: once it is seen, every watch has been opened.
      onEvaluation: (e) => (/does not exist/.test(e.reason) ? undefined : watching()),
    });
    await firstEvaluation;
    await new Promise((r) => setTimeout(r, 500)); // let the last watch connect, then pull the apiserver away

    await restartApiserver();
    const client = await ClusterClient.create(kc);
    const loaded = await loadPackage(repo, 'addons/packages', 'antrea', '1.5.3');
    const dev = await runDevPipeline({
      client,
      root: repo,
      loaded,
      bundle: await bundleOfLoaded(loaded, repo),
      packageCount: 1,
      refNames: parseRefNameMap(`${REPO_REF}=${CLUSTER_REF}`),
      packageInstall: { namespace: ns, name: 'antrea' },
      registry: parseRegistry(registry, 'test registry'),
      seq: { timestamp: new Date() },
      devVersion: version,
      mode: 'cluster',
    });
    expect(dev.plan.version).toBe(version);
    const outcome = await waiting;
    expect(outcome.verdict).toBe('won');
    // The connections broke and were resumed (or listed again), not replaced by polling.
    expect(outcome.watchStats.packageInstall!.connects).toBeGreaterThan(1);
    expect(outcome.watchStats.app!.connects).toBeGreaterThan(1);
    expect(problems.some((m) => /reconnecting|retrying|listing again/.test(m))).toBe(true);
    expect(outcome.timeline.filter((t) => t.object === 'PackageInstall').at(-1)).toMatchObject({ version, condition: 'ReconcileSucceeded' });
  });

  test('a dev version whose template is broken: reconcile-failed, with ytt\'s error and diagnostics', async () => {
    const overlay = path.join(repo, VERSION_DIR, 'bundle/config/overlays/update-agent.yaml');
    await writeFile(overlay, (await readFile(overlay, 'utf8')).replace('#@ data.values.infraProvider', '#@ data.values.no_such_value'));
    const r = await cli(devArgs());
    expect(r.code).toBe(1);
    const [res] = parseResults(r.stdout);
    results.broken = res!;
    expect(res!.verdict).toBe('reconcile-failed');
    expect(res!.reason).toMatch(/usefulErrorMessage: .*ytt: Error/s);
    expect(res!.reason).toContain('no_such_value');
    expect(res!.diagnostics?.excerpt).toContain('no_such_value');
    for (const f of ['packageinstall.yaml', 'app.yaml', 'packages.yaml', 'events.yaml', 'timeline.yaml']) {
      expect(existsSync(path.join(res!.diagnostics!.dir, f))).toBe(true);
    }
    await git('checkout', '--', VERSION_DIR);
  });

  test('a lower dev version after a higher attempt: devpkg dev refuses it up front; applied by hand, kapp-controller blocks it (downgrade-blocked)', async () => {
    // Leave only the released version and a dev version below the broken one that was attempted last.
    for (const r of [results.win, results.broken]) await deletePackage(r!.devVersion!);
    const client = await ClusterClient.create(kc);
    const k8s = await import('@kubernetes/client-node');
    const api = kc.makeApiClient(k8s.CustomObjectsApi);
    const list = (await api.listNamespacedCustomObject({ group: 'data.packaging.carvel.dev', version: 'v1alpha1', namespace: ns, plural: 'packages' })) as { items: KubernetesObject[] };
    for (const p of list.items) {
      const v = (p as { spec?: { version?: string } }).spec?.version;
      if (v && v !== '1.5.3') await client.delete('data.packaging.carvel.dev/v1alpha1', 'Package', ns, p.metadata!.name!);
    }
    // The dev plan reads the PackageInstall's last attempt from the real cluster and refuses.
    const refused = await cli(devArgs(['--dev-version', '1.5.4-dev.1']));
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      `dev-version 1.5.4-dev.1 does not outrank ${results.broken!.devVersion}, the highest antrea version in play; kapp-controller would keep `,
    );
    expect(await packageVersions()).toEqual(['1.5.3']);

    // What the refusal spares the user, seen for real: kapp-controller's own guard, and the verdict that names it.
    await applyPackageCopy('1.5.4-dev.1');
    const r = await cli(['verify', '--package-install', `${ns}/antrea`, '--expect-version', '1.5.4-dev.1', '--settle', '0', '--timeout', WAIT, '--json', '--diagnostics', path.join(work, 'diagnostics')]);
    expect(r.code).toBe(1);
    const res = JSON.parse(r.stdout) as PackageResult;
    expect(res!.verdict).toBe('downgrade-blocked');
    expect(res!.reason).toContain(`refused 1.5.4-dev.1: version ${results.broken!.devVersion} was attempted before and is higher`);
    expect(res!.reason).toContain('packaging.carvel.dev/downgradable');
  });

  test('an exact-version constraint: not-selected, with the selection explained', async () => {
    const k8s = await import('@kubernetes/client-node');
    const api = k8s.KubernetesObjectApi.makeApiClient(kc);
    await deletePackage('1.5.4-dev.1');
    await api.patch(
      {
        apiVersion: 'packaging.carvel.dev/v1alpha1',
        kind: 'PackageInstall',
        metadata: { name: 'antrea', namespace: ns, annotations: { 'packaging.carvel.dev/downgradable': '' } },
        spec: { packageRef: { refName: CLUSTER_REF, versionSelection: { constraints: '1.5.3', prereleases: {} } } },
      } as KubernetesObject,
      undefined,
      undefined,
      undefined,
      undefined,
      k8s.PatchStrategy.MergePatch,
    );
    const back = await verifyPackageInstall({ kc, target: { namespace: ns, name: 'antrea' }, expect: { version: '1.5.3' }, settleMs: 0, timeoutMs: 150_000 });
    expect(back.verdict).toBe('won');

    const refused = await cli(devArgs(['--dev-version', '1.5.4-dev.2']));
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/dev-version 1\.5\.4-dev\.2 would not be selected under the versionSelection of PackageInstall [a-z0-9-]+\/antrea \(.*1\.5\.3.*\); kapp-controller would keep 1\.5\.3\./);

    await applyPackageCopy('1.5.4-dev.2');
    const r = await cli(['verify', '--package-install', `${ns}/antrea`, '--expect-version', '1.5.4-dev.2', '--settle', '0', '--timeout', WAIT, '--json', '--diagnostics', path.join(work, 'diagnostics')]);
    expect(r.code).toBe(1);
    const res = JSON.parse(r.stdout) as PackageResult;
    expect(res!.verdict).toBe('not-selected');
    expect(res!.reason).toMatch(/kapp-controller keeps 1\.5\.3: 1\.5\.4-dev\.2 was dropped: .*1\.5\.3/);
    expect(res!.reason).toMatch(/versions seen: .*1\.5\.3 \(kept.*1\.5\.4-dev\.2 \[dev\] \(dropped/);
    expect(res!.reason).toContain('"constraints":"1.5.3"');
  });
});
