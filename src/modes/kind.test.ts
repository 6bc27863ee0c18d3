// Kind mode's step graph run by the real scheduler with fake steps held by deferred promises:
// what starts together, what waits on what, and what a failure leaves unstarted.
import { describe, jest } from '@jest/globals';
import { KubeConfig } from '@kubernetes/client-node';
import { RecordingHost } from '../action/host.js';
import type { GithubContext } from '../action/context.js';
import { parseInputs } from '../inputs.js';
import type { ModeContext } from '../pipeline/context.js';
import { runSteps } from '../pipeline/schedule.js';
import { sequenceFromContext } from '../pipeline/selection.js';
import { startDevRun } from '../pipeline/steps.js';
import { inputsFrom } from '../../test/support/inputs.js';
import { addonsManagerPackageInstall, ADDONS_NAMESPACE } from '../cluster/baseline.js';
import { matchPackageInstalls, planForPackageInstalls, versionsInPlay } from '../cluster/dev.js';
import type { KObject } from '../verify/evaluate.js';
import { Docker } from '../tools/docker.js';
import type { ExecFn } from '../tools/exec.js';
import { SetupError } from '../cluster/kind.js';
import { expectedKindPlan, kindClusterName, kindStepGraph, withDockerFault, type KindStepOps } from './kind.js';

function fakeOps() {
  const open = new Map<string, { resolve: () => void; reject: (e: unknown) => void }>();
  const hold = (name: string) => new Promise<void>((resolve, reject) => void open.set(name, { resolve, reject }));
  const ops: KindStepOps = {
    imgpkg: () => hold('imgpkg'),
    prepare: () => hold('kind'),
    // Nothing waits for it; it ends at once here (its own test below holds it).
    leftovers: () => Promise.resolve(),
    manifest: () => hold('kapp-controller manifest'),
    registry: () => hold('registry'),
    cluster: () => hold('kind cluster'),
    apiServer: () => hold('api server'),
    registryOnNodes: () => hold('registry on nodes'),
    kappController: () => hold('kapp-controller'),
    build: (p) => hold(`build ${p}`),
    pushBaseline: (p) => hold(`push baseline ${p}`),
    pushDev: (p) => hold(`push dev ${p}`),
    baseline: (p) => hold(`baseline ${p}`),
    applyDev: (p) => hold(`dev Package ${p}`),
    verify: () => hold('verify'),
  };
  const settle = () => new Promise<void>((r) => setImmediate(r));
  return {
    ops,
    running: () => [...open.keys()].sort(),
    async finish(...names: string[]) {
      for (const name of names) {
        const d = open.get(name);
        if (!d) throw new Error(`test: ${name} is not running (running: ${[...open.keys()].join(', ')})`);
        open.delete(name);
        d.resolve();
        await settle();
      }
    },
    async fail(name: string) {
      open.get(name)!.reject(new Error(`${name} broke`));
      open.delete(name);
      await settle();
    },
    settle,
  };
}

async function started(pkgs: string[], cpu: number) {
  const f = fakeOps();
  const done = runSteps(kindStepGraph(pkgs, f.ops), { limits: { cpu } });
  await f.settle();
  return { f, done };
}

test('at once: imgpkg, kind and the kapp-controller manifest; then the cluster, the registry and the builds together', async () => {
  const { f, done } = await started(['a', 'b'], 4);
  expect(f.running()).toEqual(['imgpkg', 'kapp-controller manifest', 'kind']);
  await f.finish('kind');
  expect(f.running()).toEqual(['build a', 'build b', 'imgpkg', 'kapp-controller manifest', 'kind cluster', 'registry']);
  // The pushes go as soon as the registry answers: the cluster is still being created.
  await f.finish('imgpkg', 'registry', 'build a');
  expect(f.running()).toEqual(['build b', 'kapp-controller manifest', 'kind cluster', 'push baseline a', 'push dev a']);
  // kapp-controller as soon as the API server answers, while the host-side work goes on.
  await f.finish('kapp-controller manifest', 'kind cluster', 'api server');
  expect(f.running()).toEqual(['build b', 'kapp-controller', 'push baseline a', 'push dev a', 'registry on nodes']);
  await f.finish('kapp-controller', 'registry on nodes');
  expect(f.running()).toEqual(['build b', 'push baseline a', 'push dev a']);
  // A baseline needs its own push only; its dev Package waits for the baseline and the dev push.
  await f.finish('push baseline a');
  expect(f.running()).toEqual(['baseline a', 'build b', 'push dev a']);
  await f.finish('baseline a');
  expect(f.running()).toEqual(['build b', 'push dev a']);
  await f.finish('push dev a');
  expect(f.running()).toEqual(['build b', 'dev Package a']);
  await f.finish('dev Package a', 'build b', 'push baseline b', 'push dev b', 'baseline b');
  expect(f.running()).toEqual(['dev Package b']);
  await f.finish('dev Package b', 'verify');
  const r = await done;
  expect(r.failed).toBeUndefined();
  expect(Object.fromEntries(r.timeline.map((t) => [t.name, t.waitedOn]))).toMatchObject({
    'kind cluster': ['kind'],
    'push baseline a': ['build a'],
    'kapp-controller': ['api server'],
    'registry on nodes': ['api server'],
    'baseline a': ['push baseline a'],
    'dev Package a': ['push dev a'],
    'dev Package b': ['baseline b'],
    verify: ['dev Package b'],
  });
});

test("the sweep of earlier runs' leftovers starts once docker is checked, and nothing waits for it", async () => {
  const f = fakeOps();
  let swept!: () => void;
  f.ops.leftovers = () => new Promise<void>((r) => (swept = r));
  const done = runSteps(kindStepGraph(['a'], f.ops), { limits: { cpu: 4 } });
  await f.settle();
  expect(swept).toBeUndefined();
  await f.finish('kind');
  expect(swept).toBeDefined();
  await f.finish('imgpkg', 'registry', 'build a', 'push baseline a', 'push dev a', 'kapp-controller manifest', 'kind cluster', 'api server', 'kapp-controller', 'registry on nodes', 'baseline a', 'dev Package a', 'verify');
  swept();
  const r = await done;
  expect(r.failed).toBeUndefined();
  expect(r.timeline.find((t) => t.name === 'leftovers')?.waitedOn).toEqual(['kind']);
});

describe('kindClusterName', () => {
  test('two runs of one GitHub run attempt, or two CLI runs in one millisecond, get different names', () => {
    const names = new Set(Array.from({ length: 50 }, () => kindClusterName('4242', 1)));
    expect(names.size).toBe(50);
    for (const n of names) expect(n).toMatch(/^devpkg-4242[0-9a-z]{6}-1$/);
  });
  test.each([
    ['9876543210123', 2, 'abc123', 'devpkg-6543210123abc123-2'],
    ['', 0, 'zz0000', /^devpkg-[0-9a-z]+zz0000-1$/],
  ])('%s attempt %s nonce %s', (id, attempt, nonce, want) => expect(kindClusterName(id, attempt, nonce)).toMatch(want));
});

describe('withDockerFault: a step that failed because Docker or the registry container stopped says so', () => {
  const exec =
    (o: { down?: boolean; registry?: Record<string, unknown> }): ExecFn =>
    async (_cmd, args) => {
      if (args[0] === 'version') return o.down ? { code: 1, stdout: '', stderr: 'Cannot connect to the Docker daemon at unix:///x/docker.sock. Is the docker daemon running?\n' } : { code: 0, stdout: '20.10.24\n', stderr: '' };
      if (args[0] === 'container' && args[1] === 'inspect') return o.registry ? { code: 0, stdout: JSON.stringify([{ Name: '/r', ...o.registry, NetworkSettings: { Networks: {} } }]), stderr: '' } : { code: 1, stdout: '[]', stderr: 'Error: No such object: r' };
      return { code: 0, stdout: '', stderr: '' };
    };
  const docker = (e: ExecFn) => Docker.create(e);

  test('docker stopped answering: named first, the step kept in front of a setup error', async () => {
    const e = exec({ down: true });
    const err = (await withDockerFault(new SetupError('kind cluster', new Error('kind create cluster failed')), { exec: e, docker: await docker(exec({})), registry: 'r' })) as SetupError;
    expect(err).toBeInstanceOf(SetupError);
    expect(err.step).toBe('kind cluster');
    expect(err.message).toBe('kind cluster: docker stopped answering (the Docker engine is down?): Cannot connect to the Docker daemon at unix:///x/docker.sock. Is the docker daemon running?; kind create cluster failed');
  });
  test('the registry container stopped: its state', async () => {
    const e = exec({ registry: { State: { Status: 'exited', Running: false, ExitCode: 2, FinishedAt: '2026-12-05T08:00:00Z' } } });
    const err = (await withDockerFault(new Error('push command `x` failed (exit 1)'), { exec: e, docker: await docker(e), registry: 'r' })) as Error;
    expect(err.message).toBe('the registry container r is not running (exited, exit code 2, since 2026-12-05T08:00:00Z); push command `x` failed (exit 1)');
  });
  test('docker answers and the registry runs (or was never started): the error as it was', async () => {
    const original = new Error('boom');
    for (const e of [exec({ registry: { State: { Status: 'running', Running: true } } }), exec({})]) {
      expect(await withDockerFault(original, { exec: e, docker: await docker(e), registry: 'r' })).toBe(original);
    }
  });
});

test('many packages: builds and pushes share the cpu pool, at most its limit at a time', async () => {
  const pkgs = ['a', 'b', 'c', 'd', 'e'];
  const { f, done } = await started(pkgs, 2);
  await f.finish('kind', 'imgpkg', 'registry');
  const cpu = () => f.running().filter((n) => /^(build|push)/.test(n));
  expect(cpu()).toEqual(['build a', 'build b']);
  // Given first, a package's pushes come before the next package's build.
  await f.finish('build a');
  expect(cpu()).toEqual(['build b', 'push baseline a']);
  for (;;) {
    const next = cpu()[0];
    if (!next) break;
    await f.finish(next);
    expect(cpu().length).toBeLessThanOrEqual(2);
  }
  await f.finish('kapp-controller manifest', 'kind cluster', 'api server', 'kapp-controller', 'registry on nodes');
  for (const p of pkgs) await f.finish(`baseline ${p}`, `dev Package ${p}`);
  await f.finish('verify');
  const r = await done;
  expect(r.timeline.find((t) => t.name === 'build c')?.waitedOn).toEqual(['kind', 'a free cpu slot']);
});

test('20 packages (a package repository release) on 2 cores: never more than 2 builds or pushes at once, the 20 baselines together, then one verify of all 20', async () => {
  const pkgs = Array.from({ length: 20 }, (_, i) => `pkg${i + 1}/1.0.0`);
  const { f, done } = await started(pkgs, 2);
  await f.finish('kind', 'imgpkg', 'registry', 'kapp-controller manifest', 'kind cluster', 'api server', 'kapp-controller', 'registry on nodes');
  const cpu = () => f.running().filter((n) => /^(build|push)/.test(n));
  let peak = 0;
  // The host-side work, one finished at a time: the pool stays full and never overflows.
  for (let next = cpu()[0]; next; next = cpu()[0]) {
    peak = Math.max(peak, cpu().length);
    // A baseline starts as soon as its own push is done, while other packages still build.
    await f.finish(next);
  }
  expect(peak).toBe(2);
  // Every baseline was started on its push, none waits on another package.
  const baselines = f.running().filter((n) => n.startsWith('baseline '));
  expect(baselines).toHaveLength(20);
  for (const p of pkgs) await f.finish(`baseline ${p}`);
  expect(f.running()).toEqual(pkgs.map((p) => `dev Package ${p}`).sort());
  for (const p of pkgs) await f.finish(`dev Package ${p}`);
  // One verify for all of them (src/verify verifyAll watches them together).
  expect(f.running()).toEqual(['verify']);
  await f.finish('verify');
  const r = await done;
  expect(r.failed).toBeUndefined();
  // The run's 9 (kind, imgpkg, leftovers, registry, the manifest, the cluster, the API server, kapp-controller, the registry on the nodes), 5 per package, one verify.
  expect(r.timeline.filter((t) => t.state === 'done')).toHaveLength(9 + 5 * 20 + 1);
  expect(r.timeline.find((t) => t.name === 'verify')?.needs).toHaveLength(20);
});

test('the cluster failing: nothing that needs it starts, the running pushes are awaited, the step is named', async () => {
  const { f, done } = await started(['a'], 4);
  await f.finish('kind', 'imgpkg', 'registry', 'build a');
  await f.fail('kind cluster');
  expect(f.running()).toEqual(['kapp-controller manifest', 'push baseline a', 'push dev a']);
  await f.finish('kapp-controller manifest', 'push baseline a', 'push dev a');
  const r = await done;
  expect(r.failed?.step).toBe('kind cluster');
  expect(r.timeline.filter((t) => t.state === 'cancelled').map((t) => t.name)).toEqual(['api server', 'kapp-controller', 'registry on nodes', 'baseline a', 'dev Package a', 'verify']);
});

test.each([
  ['a released baseline', '1.0.0'],
  ['a package new in the repository (no baseline version)', undefined],
])('the plan pushed early is the plan of the cluster the baseline leaves: %s', (_what, baselineVersion) => {
  const loaded = { name: 'web', pkg: { pkg: { spec: { refName: 'web.test', version: '1.0.0' } } } } as never;
  const registry = { host: 'localhost:5001', path: 'devpkg' };
  const seq = { runNumber: 7, runAttempt: 1 };
  // What the dev pipeline finds after the baseline: its PackageInstall as applyBaseline makes it,
  // with kapp-controller's status, and the released Package.
  const pi = addonsManagerPackageInstall({ namespace: ADDONS_NAMESPACE, name: 'web', refName: 'web.test', serviceAccount: 'web-sa' }) as KObject;
  if (baselineVersion) pi.status = { version: baselineVersion, lastAttemptedVersion: baselineVersion };
  const pkgis = matchPackageInstalls([pi], 'web.test');
  const packages = baselineVersion ? [{ spec: { refName: 'web.test', version: baselineVersion } } as KObject] : [];
  const real = planForPackageInstalls({ name: 'web', released: '1.0.0', seq, registry }, pkgis, versionsInPlay(packages, pkgis));
  const early = expectedKindPlan({ loaded, refName: 'web.test', ...(baselineVersion ? { baselineVersion } : {}), seq, registry });
  expect(early).toEqual(real);
  expect(early.repository).toEqual({ host: 'localhost:5001', path: 'devpkg/web-bundle' });
});

test('the dev run plans with the run\'s sequence, not a second clock read: outside GitHub (run number 0), a second after the early push, its plan is the pushed one', async () => {
  const loaded = { name: 'web', pkg: { pkg: { spec: { refName: 'web.test', version: '1.0.0' } } } } as never;
  const registry = { host: 'localhost:5001', path: 'devpkg' };
  const github: GithubContext = {
    eventName: 'workflow_dispatch', event: {}, sha: '', ref: '', owner: 'example', repo: 'packages', runId: '', runNumber: 0, runAttempt: 0,
    serverUrl: 'https://github.com', apiUrl: 'https://api.github.com', workspace: '/nowhere',
  };
  // A push command: the dev run needs no imgpkg.
  const inputs = parseInputs(inputsFrom({ mode: 'kind', packages: 'web/1.0.0', 'push-command': 'true', comment: 'false' }));
  const ctx: ModeContext = { inputs, github, host: new RecordingHost(), exec: async () => ({ code: 0, stdout: '', stderr: '' }), env: {} };
  const kc = new KubeConfig();
  kc.loadFromOptions({ clusters: [{ name: 'c', server: 'https://127.0.0.1:1' }], users: [{ name: 'u' }], contexts: [{ name: 'c', cluster: 'c', user: 'u' }], currentContext: 'c' });
  // Only Date is faked, going on with the real time; the test moves it a second on.
  jest.useFakeTimers({ advanceTimers: true, doNotFake: ['hrtime', 'nextTick', 'performance', 'queueMicrotask', 'setImmediate', 'clearImmediate', 'setInterval', 'clearInterval', 'setTimeout', 'clearTimeout'] });
  try {
    const seq = sequenceFromContext(ctx);
    const early = expectedKindPlan({ loaded, refName: 'web.test', seq, registry });
    jest.setSystemTime(Date.now() + 1000);
    const run = await startDevRun(ctx, { kc, root: '/nowhere', refs: [], mode: 'kind', registry, seq, assertions: [] });
    // The cluster the baseline leaves for a package new in the repository: its PackageInstall only.
    const pi = addonsManagerPackageInstall({ namespace: ADDONS_NAMESPACE, name: 'web', refName: 'web.test', serviceAccount: 'web-sa' }) as KObject;
    const real = planForPackageInstalls({ name: 'web', released: '1.0.0', seq: run.seq, registry }, matchPackageInstalls([pi], 'web.test'), []);
    expect(early.version).toMatch(/^1\.0\.1-dev\.\d{14}$/);
    expect(real.tag).toBe(early.tag);
  } finally {
    jest.useRealTimers();
  }
});
