/**
 * Issue 34, the faults that need no kind engine, on the control-plane harness's real kube-apiserver,
 * registry and kapp-controller, with a small package made here ("web": a ConfigMap) whose
 * PackageInstall a baseline installed like the addons manager would:
 *   - the push command fails: it exits non-zero; it hangs past push-timeout (a child that starts
 *     a grandchild that sleeps: both stopped with their process group); it prints a digest the
 *     registry does not hold (it really pushes the tag, then prints another digest);
 *   - the scratch folder's disk fills (a 1 MiB tmpfs mounted as RUNNER_TEMP, a bundle that does
 *     not fit);
 *   - two runs for one PackageInstall at once: concurrent acquireRunLease calls with real
 *     clients, and two real `devpkg dev` processes started together.
 * Each fault must end in an `error` result for the package naming the fault and the step, the
 * outputs and the report written, a failure (exit 1), and nothing left: no dev Package, no Lease,
 * nothing in the scratch folder, no process.
 */
import { jest } from '@jest/globals';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import { readGithubContext } from '../../src/action/context.js';
import { RecordingHost } from '../../src/action/host.js';
import { installBaseline } from '../../src/cluster/baseline.js';
import { ClusterClient } from '../../src/cluster/client.js';
import { acquireRunLease, leaseName, type HeldLease } from '../../src/cluster/runlease.js';
import { DevpkgError } from '../../src/errors.js';
import { parseRegistry } from '../../src/flags.js';
import { parseInputs } from '../../src/inputs.js';
import { run as runClusterMode } from '../../src/modes/cluster.js';
import { loadPackage } from '../support/load-package.js';
import type { PackageResult } from '../../src/results.js';
import { execTool } from '../../src/tools/exec.js';
import { inputsFrom } from '../support/inputs.js';
import { buildDevpkg, start, type BuiltDevpkg } from './helpers/built-cli.js';
import { harnessEnv } from './helpers/env.js';
import { createTestNamespace, deleteNamespace, harnessKubeConfig } from './helpers/kube.js';
import { newRunId, runTool } from './helpers/run.js';

jest.setTimeout(300_000);

const REF = 'web.devpkg.test';
const WAIT = '150s';
const runId = newRunId();
let kc: KubeConfig;
let ns = '';
let work = '';
let root = '';
let registry = '';
let scratch = '';
let mounted = false;
let built: BuiltDevpkg | undefined;

const git = (...args: string[]) => runTool('git', ['-C', root, '-c', 'user.name=t', '-c', 'user.email=t@devpkg.invalid', '-c', 'commit.gpgsign=false', ...args]).then((r) => r.stdout.trim());

async function writePackage(): Promise<void> {
  const dir = path.join(root, 'web', '1.0.0');
  await mkdir(path.join(dir, 'bundle', '.imgpkg'), { recursive: true });
  await mkdir(path.join(dir, 'bundle', 'config'), { recursive: true });
  await writeFile(
    path.join(dir, 'package.yaml'),
    `apiVersion: data.packaging.carvel.dev/v1alpha1
kind: Package
metadata:
  name: ${REF}.1.0.0
spec:
  refName: ${REF}
  version: 1.0.0
  template:
    spec:
      fetch:
        - imgpkgBundle:
            image: example.invalid/web@sha256:${'0'.repeat(64)}
      template:
        - ytt:
            paths:
              - config/
      deploy:
        - kapp: {}
`,
  );
  await writeFile(path.join(dir, 'bundle', '.imgpkg', 'images.yml'), 'apiVersion: imgpkg.carvel.dev/v1alpha1\nkind: ImagesLock\n');
  await writeFile(path.join(dir, 'bundle', 'config', 'config.yaml'), `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web-config\n  namespace: ${ns}\ndata:\n  release: "1.0.0"\n`);
}

const k8sApi = async () => {
  const k8s = await import('@kubernetes/client-node');
  return kc.makeApiClient(k8s.CustomObjectsApi);
};

/** The run Lease of PackageInstall web, or undefined. */
async function lease(): Promise<{ spec?: { holderIdentity?: string } } | undefined> {
  try {
    return (await (await k8sApi()).getNamespacedCustomObject({ group: 'coordination.k8s.io', version: 'v1', namespace: ns, plural: 'leases', name: leaseName('web') })) as never;
  } catch (err) {
    if ((err as { code?: number }).code === 404) return undefined;
    throw err;
  }
}

/** The Packages of the refName in the test namespace (only the released one when nothing was left). */
async function packageVersions(): Promise<string[]> {
  const list = (await (await k8sApi()).listNamespacedCustomObject({ group: 'data.packaging.carvel.dev', version: 'v1alpha1', namespace: ns, plural: 'packages' })) as { items: Array<{ spec?: { refName?: string; version?: string } }> };
  return list.items.filter((p) => p.spec?.refName === REF).map((p) => p.spec!.version!).sort();
}

/** Running, not a zombie waiting to be reaped. */
function running(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

/** The action's cluster mode on package web with these inputs; RUNNER_TEMP is `temp` (the scratch folder). */
async function clusterMode(extra: Record<string, string>, temp: string) {
  const host = new RecordingHost();
  const resultsDir = await mkdtemp(path.join(work, 'results-'));
  const ctx = {
    inputs: parseInputs(
      inputsFrom({
        mode: 'cluster',
        'packages-dir': '.',
        registry,
        'package-install': `${ns}/web`,
        kubeconfig: process.env.KUBECONFIG!,
        settle: '2s',
        timeout: WAIT,
        comment: 'false',
        ...extra,
      }),
    ),
    github: { ...readGithubContext({}), workspace: root },
    host,
    exec: execTool,
    env: { ...process.env, RUNNER_TEMP: temp },
    resultsDir,
  };
  const err = await runClusterMode(ctx).then(() => undefined, (e: unknown) => e as Error);
  const results = JSON.parse(host.outputs.results ?? '[]') as PackageResult[];
  return { host, err, results, resultsDir };
}

/** What every fault must leave: one `error` result, the outputs and the report, a failure, and nothing in the cluster. */
async function expectFault(r: Awaited<ReturnType<typeof clusterMode>>, reason: RegExp, temp: string): Promise<PackageResult> {
  expect(r.results).toEqual([expect.objectContaining({ name: 'web', version: '1.0.0', verdict: 'error', reason: expect.stringMatching(reason) })]);
  expect(JSON.parse(r.host.outputs.verdicts!)).toEqual({ 'web/1.0.0': 'error' });
  // The report: the job summary and the results folder.
  expect(r.host.summaries.join('\n')).toMatch(/^\| web \| `1\.0\.0` \| \S+ error \|/m);
  expect(r.host.summaries.join('\n')).toContain(r.results[0]!.reason.split(':')[0]);
  expect(JSON.parse(await readFile(path.join(r.resultsDir, 'results.json'), 'utf8'))).toMatchObject({ results: [expect.objectContaining({ verdict: 'error' })] });
  // A failure: the action's one setFailed, exit 1.
  expect(r.err).toBeInstanceOf(DevpkgError);
  expect((r.err as DevpkgError).exitCode).toBe(1);
  expect(r.err!.message).toBe('1 of 1 package(s) did not win: web/1.0.0 error');
  // Nothing left: no dev Package, no Lease, nothing in the scratch folder.
  expect(await packageVersions()).toEqual(['1.0.0']);
  expect(await lease()).toBeUndefined();
  expect(await readdir(temp)).toEqual([]);
  return r.results[0]!;
}

beforeAll(async () => {
  const env = harnessEnv();
  if (!process.env.KAPPCTRL_NAMESPACE) throw new Error('the harness runs without kapp-controller; these tests need controlplane.sh up --kapp-controller');
  kc = await harnessKubeConfig();
  registry = `${env.registry}/devpkg-faults/${runId}`;
  ns = await createTestNamespace(kc, 'devpkg-faults');
  work = await mkdtemp(path.join(os.tmpdir(), 'devpkg-faults-'));
  root = path.join(work, 'packages');
  await writePackage();
  await git('init', '-q', '-b', 'main');
  await git('add', '-A');
  await git('commit', '-qm', 'web 1.0.0');
});

afterAll(async () => {
  built?.remove();
  if (mounted) await runTool('umount', [scratch]).catch(() => undefined);
  if (kc && ns) {
    const client = await ClusterClient.create(kc);
    await client.delete('packaging.carvel.dev/v1alpha1', 'PackageInstall', ns, 'web').catch(() => undefined);
    await new Promise((r) => setTimeout(r, 5000)); // kapp-controller's turn to delete the App
    await client.delete('rbac.authorization.k8s.io/v1', 'ClusterRoleBinding', undefined, `web-sa-${ns}-cluster-admin`).catch(() => undefined);
    await deleteNamespace(kc, ns).catch(() => undefined);
  }
  if (work && !process.env.DEVPKG_KEEP_TEST_DIRS) await rm(work, { recursive: true, force: true });
});

test('contention: five runs take the Lease of one PackageInstall at the same moment; exactly one holds it, each other names it, and it is released', async () => {
  const target = { namespace: ns, name: 'web' };
  for (let round = 0; round < 3; round++) {
    // Each run its own client, as separate processes would have.
    const holders = [0, 1, 2, 3, 4].map((i) => `devpkg test run ${round}.${i}`);
    const clients = await Promise.all(holders.map(() => harnessKubeConfig()));
    const settled = await Promise.allSettled(holders.map((holder, i) => acquireRunLease(clients[i]!, target, { holder, seconds: 600 })));
    const held = settled.flatMap((s, i) => (s.status === 'fulfilled' && s.value ? [{ lease: s.value, holder: holders[i]! }] : []));
    expect(held).toHaveLength(1);
    const winner = held[0]!;
    expect((await lease())?.spec?.holderIdentity).toBe(winner.holder);
    for (const s of settled) {
      if (s.status === 'fulfilled') continue;
      const message = (s.reason as Error).message;
      // Named: the holder, since when, and how to clear it (or, losing the create race itself, to run again).
      expect(message).toMatch(
        new RegExp(
          `^PackageInstall ${ns}/web: (another devpkg run is working on this PackageInstall: ${winner.holder}, since \\S+ \\(Lease ${ns}/devpkg-web, held until \\S+\\)\\. .*kubectl delete lease -n ${ns} devpkg-web` +
            `|another devpkg run took Lease ${ns}/devpkg-web at the same moment; run again once it is done)$`,
        ),
      );
    }
    // At least one loser read the winner's Lease and named it.
    expect(settled.some((s) => s.status === 'rejected' && (s.reason as Error).message.includes(winner.holder))).toBe(true);
    await (winner.lease as HeldLease).release();
    expect(await lease()).toBeUndefined();
  }
});

test('baseline: web 1.0.0 installed like the addons manager', async () => {
  const client = await ClusterClient.create(kc);
  const loaded = await loadPackage(root, '', 'web', '1.0.0');
  const b = await installBaseline({ client, kc, exec: execTool, root, loaded, refName: REF, registry: parseRegistry(registry, 'test registry'), namespace: ns, timeoutMs: 150_000, log: () => undefined });
  expect(b.releasedVersion).toBe('1.0.0');
});

test('the push command exits non-zero: an error result naming the command, its exit and the step; nothing left', async () => {
  const temp = await mkdtemp(path.join(work, 'runner-temp-'));
  const cmd = 'echo "make: *** [push-package] Error 3" >&2; exit 3';
  const r = await clusterMode({ packages: 'web/1.0.0', 'push-command': cmd }, temp);
  const res = await expectFault(r, /^pushing the bundle: push command `echo "make: \*\*\* \[push-package\] Error 3" >&2; exit 3` failed \(exit 3\):\n[\s\S]*make: \*\*\* \[push-package\] Error 3/, temp);
  expect(r.host.errors).toContainEqual({ message: `web/1.0.0: ${res.reason}` });
});

test('the push command hangs past push-timeout: it and the grandchild it started are stopped; an error result naming the command and the limit; nothing left', async () => {
  const temp = await mkdtemp(path.join(work, 'runner-temp-'));
  const pidFile = path.join(work, 'grandchild.pid');
  const cmd = `echo building the bundle; bash -c 'sleep 600' & echo $! > ${pidFile}; wait`;
  const r = await clusterMode({ packages: 'web/1.0.0', 'push-command': cmd, 'push-timeout': '3s' }, temp);
  await expectFault(r, /^pushing the bundle: push command `.*` did not finish within 3s \(push-timeout; CLI --push-timeout\) and was stopped with every process it started \(its process group: SIGTERM, then SIGKILL\)[\s\S]*\nbuilding the bundle$/, temp);
  const pid = Number(await readFile(pidFile, 'utf8'));
  expect(pid).toBeGreaterThan(0);
  expect(running(pid)).toBe(false);
});

test('the push command prints a digest that is not in the registry: an error result naming the digest, the registry and the command; no Package references it', async () => {
  const temp = await mkdtemp(path.join(work, 'runner-temp-'));
  const bogus = `sha256:${'e'.repeat(64)}`;
  // It really pushes the tag, then prints another digest (as a wrapper script reading a stale lock file would).
  const cmd = `imgpkg push -b "$DEVPKG_IMAGE" -f "$DEVPKG_BUNDLE_DIR" >/dev/null && echo "Pushed '$DEVPKG_REGISTRY@${bogus}'"`;
  const r = await clusterMode({ packages: 'web/1.0.0', 'push-command': cmd }, temp);
  const host = registry.slice(0, registry.indexOf('/'));
  const repoPath = `${registry.slice(registry.indexOf('/') + 1)}/web-bundle`;
  const res = await expectFault(r, new RegExp(`^pushing the bundle: push command \`.*\` printed ${registry.replace(/[.]/g, '\\.')}/web-bundle@${bogus}, but registry ${host.replace(/[.]/g, '\\.')} has no manifest ${bogus} in ${repoPath.replace(/[.]/g, '\\.')}: devpkg writes no Package referencing a digest the registry does not hold`), temp);
  expect(res.bundle).toBeUndefined();
});

test('the scratch folder\'s disk fills (a 1 MiB tmpfs as RUNNER_TEMP): the bundle export fails naming the folder and that it is out of space; nothing half-written is left there', async () => {
  // The pull request adds a 2 MiB file to the bundle: exporting the head commit's bundle folder does not fit.
  const base = await git('rev-parse', 'HEAD');
  await writeFile(path.join(root, 'web', '1.0.0', 'bundle', 'config', 'blob.txt'), randomBytes(1536 * 1024).toString('base64'));
  await git('add', '-A');
  await git('commit', '-qm', 'web: a big file');
  const head = await git('rev-parse', 'HEAD');
  scratch = path.join(work, 'scratch');
  await mkdir(scratch);
  await runTool('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', scratch]);
  mounted = true;
  try {
    const r = await clusterMode({ 'base-ref': base, 'head-ref': head }, scratch);
    const res = await expectFault(r, new RegExp(`^building the bundle: the folder ${scratch.replace(/[.]/g, '\\.')} is out of space \\(no space left on device\\); what devpkg wrote there is removed\\. Free space there \\(df -h ${scratch.replace(/[.]/g, '\\.')}\\), or point the scratch folder at a disk with room: TMPDIR \\(on a runner, RUNNER_TEMP\\)\n`), scratch);
    expect(res.reason).toMatch(/no space left on device/i);
  } finally {
    await runTool('umount', [scratch]);
    mounted = false;
    await git('reset', '-q', '--hard', base);
  }
});

test('two `devpkg dev` processes for one PackageInstall started together: one holds the Lease and wins, the other stops naming it; the Lease is released', async () => {
  built = buildDevpkg();
  const versionDir = path.join(root, 'web', '1.0.0');
  await writeFile(path.join(versionDir, 'bundle', 'config', 'config.yaml'), (await readFile(path.join(versionDir, 'bundle', 'config', 'config.yaml'), 'utf8')).replace(/release: .*/, 'release: "contention"'));
  // A push that takes a few seconds, so that the two runs overlap.
  const cmd = 'sleep 3; imgpkg push -b "$DEVPKG_IMAGE" -f "$DEVPKG_BUNDLE_DIR"';
  const args = ['dev', '--package', versionDir, '--registry', registry, '--package-install', `${ns}/web`, '--push-command', cmd, '--settle', '2s', '--timeout', WAIT, '--diagnostics', path.join(work, 'diagnostics'), '--json'];
  const runs = [0, 1].map(() => start(built!.cli, args, { env: process.env, cwd: work }));
  // Watch the Lease while they run: one holder at a time, and only one at all.
  const seen = new Set<string>();
  let done = false;
  const watching = (async () => {
    while (!done) {
      const h = (await lease().catch(() => undefined))?.spec?.holderIdentity;
      if (h) seen.add(h);
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  const ended = await Promise.all(runs.map((r) => r.exited));
  done = true;
  await watching;
  const codes = ended.map((e) => e.code);
  expect(codes.slice().sort()).toEqual([0, 1]);
  const winner = runs[codes.indexOf(0)]!;
  const loser = runs[codes.indexOf(1)]!;
  const [res] = JSON.parse(winner.stdout()) as PackageResult[];
  expect(res).toMatchObject({ name: 'web', verdict: 'won' });
  expect([...seen]).toHaveLength(1);
  const holder = [...seen][0]!;
  expect(holder).toMatch(new RegExp(`^devpkg on \\S+ pid ${winner.child.pid} started \\S+$`));
  expect(loser.stderr()).toMatch(new RegExp(`PackageInstall ${ns}/web: another devpkg run is working on this PackageInstall: ${holder.replace(/[.]/g, '\\.')}, since \\S+ \\(Lease ${ns}/devpkg-web, held until \\S+\\)\\. .*kubectl delete lease -n ${ns} devpkg-web`));
  expect(await lease()).toBeUndefined();
});

test('`devpkg dev` whose push command fails: exit 1 naming the command; it held the Lease while pushing and released it after the error', async () => {
  built ??= buildDevpkg();
  const versionDir = path.join(root, 'web', '1.0.0');
  // The push command reads the Lease itself: held by this very run while it pushes.
  const cmd = `kubectl get lease -n ${ns} devpkg-web -o jsonpath='holder={.spec.holderIdentity}{"\\n"}'; exit 4`;
  const before = await packageVersions();
  const run = start(built.cli, ['dev', '--package', versionDir, '--registry', registry, '--package-install', `${ns}/web`, '--push-command', cmd, '--settle', '2s', '--timeout', WAIT, '--diagnostics', path.join(work, 'diagnostics')], { env: process.env, cwd: work });
  const { code } = await run.exited;
  expect(code).toBe(1);
  expect(run.stderr()).toContain(`push command \`${cmd}\` failed (exit 4)`);
  expect(run.stderr()).toMatch(new RegExp(`holder=devpkg on \\S+ pid ${run.child.pid} started `));
  expect(await lease()).toBeUndefined();
  expect(await packageVersions()).toEqual(before);
});
