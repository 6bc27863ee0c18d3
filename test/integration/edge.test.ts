/**
 * Interruptions and outside changes during real runs, on the harness's control plane with a real
 * kapp-controller, in the order a user would meet them on one PackageInstall:
 *   baseline (released 1.5.3 from the base commit)
 *   -> `devpkg dev` gets SIGTERM in the settle window: interrupted, result printed, exit 143
 *   -> the action's cluster mode gets SIGINT in the settle window: outputs, job summary, exit 130
 *   -> a second `devpkg dev` while the first is in its settle window: stopped, the first is named
 *   -> the dev Package deleted during the settle window: lost, deletion named, how to recover
 *   -> `devpkg verify` against an apiserver that is not there: error at once, naming it
 * The signals are real, sent to devpkg running as its own process (src/ transpiled by the test).
 */
import { jest } from '@jest/globals';
import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import { runCli } from '../../src/cli.js';
import { installBaseline } from '../../src/cluster/baseline.js';
import { ClusterClient } from '../../src/cluster/client.js';
import { loadPackage } from '../support/load-package.js';
import { execTool } from '../../src/tools/exec.js';
import type { PackageResult } from '../../src/results.js';
import { parseRegistry } from '../../src/flags.js';
import { buildDevpkg, start, type BuiltDevpkg } from './helpers/built-cli.js';
import { harnessEnv } from './helpers/env.js';
import { createTestNamespace, deleteNamespace, harnessKubeConfig, statusCode } from './helpers/kube.js';
import { newRunId, repoRoot, runTool } from './helpers/run.js';
import { CLUSTER_REF, REPO_REF, setInfraProvider as setAntreaInfraProvider, VERSION_DIR } from './helpers/antrea.js';


let kc: KubeConfig;
let ns = '';
let repo = '';
let work = '';
let registry = '';
let built: BuiltDevpkg;
const runId = newRunId();

async function git(...args: string[]): Promise<string> {
  return (await runTool('git', ['-C', repo, '-c', 'user.email=t@devpkg.test', '-c', 'user.name=t', ...args])).stdout.trim();
}

const setInfraProvider = (value: string) => setAntreaInfraProvider(repo, value);

/** Runs the CLI in this process; `until` resolves once stderr holds the text (the run goes on). */
function cli(args: string[]) {
  let stdout = '';
  let stderr = '';
  const waiters: Array<{ text: string; resolve: () => void }> = [];
  const done = runCli(args, {
    stdout: (t) => (stdout += t),
    stderr: (t) => {
      stderr += t;
      for (const w of waiters.filter((x) => stderr.includes(x.text))) w.resolve();
    },
    env: process.env,
    cwd: work,
  }).then((code) => ({ code, stdout, stderr }));
  const until = (text: string): Promise<void> =>
    stderr.includes(text) ? Promise.resolve() : new Promise((resolve) => waiters.push({ text, resolve }));
  return { done, until, stderr: () => stderr };
}

function devArgs(settle: string, extra: string[] = []): string[] {
  return [
    'dev',
    '--package', path.join(repo, VERSION_DIR),
    '--registry', registry,
    '--ref-name', `${REPO_REF}=${CLUSTER_REF}`,
    '--package-install', `${ns}/antrea`,
    '--settle', settle,
    '--timeout', '180s',
    '--diagnostics', path.join(work, 'diagnostics'),
    ...extra,
  ];
}

async function leaseExists(): Promise<boolean> {
  const k8s = await import('@kubernetes/client-node');
  try {
    await kc.makeApiClient(k8s.CoordinationV1Api).readNamespacedLease({ namespace: ns, name: 'devpkg-antrea' });
    return true;
  } catch (err) {
    if (statusCode(err) === 404) return false;
    throw err;
  }
}

async function packageInstall(): Promise<{ status?: { version?: string; lastAttemptedVersion?: string } }> {
  const k8s = await import('@kubernetes/client-node');
  return (await kc.makeApiClient(k8s.CustomObjectsApi).getNamespacedCustomObject({ group: 'packaging.carvel.dev', version: 'v1alpha1', namespace: ns, plural: 'packageinstalls', name: 'antrea' })) as {
    status?: { version?: string };
  };
}

jest.setTimeout(300_000);

describe('interruptions and outside changes on kapp-controller', () => {
  beforeAll(async () => {
    built = buildDevpkg();
    const env = harnessEnv();
    if (!process.env.KAPPCTRL_NAMESPACE) throw new Error('the harness runs without kapp-controller; these tests need controlplane.sh up --kapp-controller');
    kc = await harnessKubeConfig();
    registry = `${env.registry}/devpkg-edge/${runId}`;
    ns = await createTestNamespace(kc, 'devpkg-edge');
    work = await mkdtemp(path.join(os.tmpdir(), 'devpkg-edge-'));
    repo = path.join(work, 'repo');
    await cp(path.join(repoRoot, 'examples/tce-packages'), repo, { recursive: true });
    await runTool('git', ['init', '-q', '-b', 'main', repo]);
    await git('add', '-A');
    await git('commit', '-q', '-m', 'released');
    const base = await git('rev-parse', 'HEAD');
    const client = await ClusterClient.create(kc);
    await installBaseline({
      client,
      kc,
      exec: execTool,
      root: repo,
      loaded: await loadPackage(repo, 'addons/packages', 'antrea', '1.5.3'),
      baseRef: base,
      refName: CLUSTER_REF,
      registry: parseRegistry(registry, 'test registry'),
      namespace: ns,
      values: `namespace: ${ns}\n`,
      timeoutMs: 150_000,
      log: () => undefined,
    });
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
    built?.remove();
  });

  test('devpkg dev gets SIGTERM in the settle window: verdict interrupted, what stays applied, diagnostics, exit 143', async () => {
    await setInfraProvider('devpkg-sigterm');
    const run = start(built.cli, devArgs('120s'), { env: process.env, cwd: work });
    await run.until('holding for the 120s settle window');
    run.child.kill('SIGTERM');
    const { code, signal } = await run.exited;
    const stdout = run.stdout();
    expect({ code, signal }).toEqual({ code: 143, signal: null });
    expect(run.stderr()).toContain('devpkg: SIGTERM: stopping the wait; writing the result and diagnostics (send it again to exit at once)');
    const dev = /dev version (1\.5\.4-dev\.\d{14})/.exec(stdout)![1]!;
    expect(stdout).toContain(`antrea/1.5.3: INTERRUPTED: dev version ${dev}`);
    expect(stdout).toContain('interrupted by SIGTERM during the settle window (the dev version had won; whether it holds was not seen through); last state: ');
    expect(stdout).toContain(
      `devpkg had applied the dev Package ${ns}/${CLUSTER_REF}.${dev}; it stays applied (to undo: kubectl delete packages.data.packaging.carvel.dev -n ${ns} ${CLUSTER_REF}.${dev})`,
    );
    const dir = /diagnostics: (\S+)/.exec(stdout)![1]!;
    for (const f of ['packageinstall.yaml', 'app.yaml', 'timeline.yaml']) expect(existsSync(path.join(dir, f))).toBe(true);
    // The run is over: its Lease is gone, and the dev Package is still what kapp-controller runs.
    expect(await leaseExists()).toBe(false);
    expect((await packageInstall()).status?.version).toBe(dev);
  });

  test('the action\'s cluster mode gets SIGINT in the settle window: verdict output, job summary, exit 130', async () => {
    await setInfraProvider('devpkg-sigint');
    for (const f of ['output', 'state', 'summary']) await writeFile(path.join(work, f), '');
    await writeFile(path.join(work, 'event.json'), '{}');
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      GITHUB_EVENT_NAME: 'workflow_dispatch',
      GITHUB_EVENT_PATH: path.join(work, 'event.json'),
      GITHUB_WORKSPACE: repo,
      GITHUB_REPOSITORY: 'example/packages',
      GITHUB_RUN_ID: '7',
      GITHUB_RUN_NUMBER: '7',
      GITHUB_RUN_ATTEMPT: '1',
      GITHUB_OUTPUT: path.join(work, 'output'),
      GITHUB_STATE: path.join(work, 'state'),
      GITHUB_STEP_SUMMARY: path.join(work, 'summary'),
      RUNNER_TEMP: work,
      INPUT_MODE: 'cluster',
      INPUT_PACKAGES: 'antrea/1.5.3',
      'INPUT_PACKAGES-DIR': 'addons/packages',
      INPUT_REGISTRY: registry,
      'INPUT_REF-NAME': `${REPO_REF}=${CLUSTER_REF}`,
      'INPUT_PACKAGE-INSTALL': `${ns}/antrea`,
      INPUT_KUBECONFIG: process.env.KUBECONFIG!,
      INPUT_SETTLE: '120s',
      INPUT_TIMEOUT: '180s',
      INPUT_COMMENT: 'false',
      'INPUT_ARTIFACT-NAME': 'devpkg-results',
      'INPUT_COMMENT-HEADER': 'devpkg',
    };
    const run = start(built.action, [], { env, cwd: repo });
    await run.until('holding for the 120s settle window');
    run.child.kill('SIGINT');
    const { code, signal } = await run.exited;
    expect({ code, signal }).toEqual({ code: 130, signal: null });
    expect(run.stdout()).toContain('::error::devpkg was interrupted by SIGINT; the results above are what it saw until then');
    const outputs = readFileSync(path.join(work, 'output'), 'utf8');
    expect(outputs).toMatch(/verdicts<<.*\n\{"antrea\/1\.5\.3":"interrupted"\}\n/);
    const summary = readFileSync(path.join(work, 'summary'), 'utf8');
    expect(summary).toContain('🛑');
    expect(summary).toContain('interrupted by SIGINT during the settle window');
    expect(await leaseExists()).toBe(false);
  });

  test('a second devpkg dev on the same PackageInstall stops and names the run in progress; the first still wins', async () => {
    await setInfraProvider('devpkg-first');
    const first = cli(devArgs('15s'));
    await first.until('holding for the 15s settle window');
    expect(await leaseExists()).toBe(true);
    const second = await cli(devArgs('3s')).done;
    expect(second.code).toBe(1);
    expect(second.stderr).toMatch(
      new RegExp(
        `^devpkg dev: PackageInstall ${ns}/antrea: another devpkg run is working on this PackageInstall: devpkg on \\S+ pid ${process.pid} started \\S+, since \\S+ ` +
          `\\(Lease ${ns}/devpkg-antrea, held until \\S+\\)\\. Two runs on one PackageInstall make each other lose: wait for it to finish, or, if that run is gone, ` +
          `delete the Lease: kubectl delete lease -n ${ns} devpkg-antrea\\n$`,
        'm',
      ),
    );
    const r = await first.done;
    expect(r.stdout).toContain(': WON: ');
    expect(r.code).toBe(0);
    expect(await leaseExists()).toBe(false);
  });

  test('the dev Package deleted during the settle window: lost, the deletion named, and how to recover', async () => {
    await setInfraProvider('devpkg-deleted');
    const run = start(built.cli, devArgs('120s'), { env: process.env, cwd: work });
    await run.until('holding for the 120s settle window');
    const dev = /: (\S+) won; holding/.exec(run.stderr())?.[1];
    if (!dev) throw new Error(`no win in the log:\n${run.stderr()}`);
    const client = await ClusterClient.create(kc);
    await client.delete('data.packaging.carvel.dev/v1alpha1', 'Package', ns, `${CLUSTER_REF}.${dev}`);
    const { code } = await run.exited;
    const out = run.stdout();
    expect(code).toBe(1);
    expect(out).toContain(`antrea/1.5.3: LOST: dev version ${dev}`);
    expect(out).toContain(`while devpkg watched: the dev Package ${ns}/${CLUSTER_REF}.${dev} was deleted (the API does not record who deletes; it was last written by devpkg`);
    expect(out).toContain(
      `To recover: run devpkg dev again (it plans a higher dev version), or allow the downgrade with kubectl annotate packageinstall -n ${ns} antrea packaging.carvel.dev/downgradable="", ` +
        `or delete PackageInstall ${ns}/antrea so that its owner (e.g. the addons manager) recreates it`,
    );
    expect(out).toMatch(new RegExp(`Package ${CLUSTER_REF.replace(/\./g, '\\.')}\\.${dev.replace(/\./g, '\\.')}\\s+"deleted"`));
  });

  test('devpkg verify against an apiserver that is not there: error at once, naming the server and the connection error', async () => {
    const k8s = await import('@kubernetes/client-node');
    const dead = new k8s.KubeConfig();
    dead.loadFromFile(harnessEnv().kubeconfig);
    const net = await import('node:net');
    const probe = net.createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const port = (probe.address() as import('node:net').AddressInfo).port;
    await new Promise((r) => probe.close(r));
    const cluster = dead.getCurrentCluster()!;
    const file = path.join(work, 'dead-kubeconfig');
    const cfg = JSON.parse(dead.exportConfig()) as { clusters: Array<{ name: string; cluster: { server: string } }> };
    for (const c of cfg.clusters) if (c.name === cluster.name) c.cluster.server = `https://127.0.0.1:${port}`;
    await writeFile(file, JSON.stringify(cfg));
    const r = await cli(['verify', '--package-install', `${ns}/antrea`, '--expect-version', '1.5.3', '--kubeconfig', file, '--timeout', '10m', '--diagnostics', path.join(work, 'diag-dead'), '--json']).done;
    expect(r.code).toBe(1);
    const res = JSON.parse(r.stdout) as PackageResult;
    expect(res.verdict).toBe('error');
    expect(res.reason).toMatch(new RegExp(`^cannot reach the cluster at https://127\\.0\\.0\\.1:${port}: .*ECONNREFUSED.*; nothing was observed`));
  });

  test('devpkg verify exits once it has given the verdict, though the server still holds its watches', async () => {
    // A server that answers every list (empty) and never answers a watch: the shape of the
    // report "printed timed-out and then did not exit for two minutes".
    const http = await import('node:http');
    const held: import('node:http').ServerResponse[] = [];
    const server = http.createServer((req, res) => {
      if (new URL(req.url ?? '/', 'http://x').searchParams.get('watch') === 'true') {
        held.push(res);
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ metadata: { resourceVersion: '1' }, items: [] }));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as import('node:net').AddressInfo).port;
    const file = path.join(work, 'slow-kubeconfig');
    await writeFile(
      file,
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [{ name: 's', cluster: { server: `http://127.0.0.1:${port}`, 'insecure-skip-tls-verify': true } }],
        users: [{ name: 'u', user: {} }],
        contexts: [{ name: 'c', context: { cluster: 's', user: 'u' } }],
        'current-context': 'c',
      }),
    );
    try {
      const run = start(built.cli, ['verify', '--package-install', 'ns/antrea', '--expect-version', '1.5.4', '--kubeconfig', file, '--settle', '0', '--timeout', '3s', '--diagnostics', path.join(work, 'diag-held')], {
        env: process.env,
        cwd: work,
      });
      const { code } = await run.exited;
      expect(code).toBe(1);
      expect(run.stdout()).toContain('antrea: TIMED OUT: dev version 1.5.4');
      expect(run.stdout()).toContain(`diagnostics: ${path.join(work, 'diag-held')}`);
      expect(held.length).toBeGreaterThan(0);
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  }, 60_000);
});
