// Kind mode in process with kind and docker stood in by a recorder: a setup failure before any
// package runs still reports a result per package, results.json and the summary (issue 17), and
// the cluster is left recorded for the post step. The real cluster: test/integration/kind-mode.test.ts.
import { afterEach, describe, expect, jest, test } from '@jest/globals';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { execFileSync } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { RecordingHost } from '../../src/action/host.js';
import type { GithubContext } from '../../src/action/context.js';
import { CLEANUP_STATE, CleanupList } from '../../src/cleanup.js';
import { DevpkgError } from '../../src/errors.js';
import { parseInputs } from '../../src/inputs.js';
import { run } from '../../src/modes/kind.js';
import type { ExecFn } from '../../src/tools/exec.js';
import { actionTestScope } from '../support/action-scope.js';
import { inputsFrom } from '../support/inputs.js';
import { failingKindTools } from '../support/kind-tools.js';

const dirs = actionTestScope();

// What a run records for the post step stays behind unless the post step runs: here the test
// removes the recorded temp folders (the kind config devpkg wrote) itself.
const hosts: RecordingHost[] = [];
function newHost(): RecordingHost {
  const h = new RecordingHost();
  hosts.push(h);
  return h;
}
afterEach(() => {
  for (const h of hosts.splice(0)) {
    for (const item of CleanupList.fromState(h.getState(CLEANUP_STATE))) {
      if (item.kind === 'temp-dir') rmSync(item.path, { recursive: true, force: true });
    }
  }
});

function workspace() {
  const work = mkdtempSync(join(tmpdir(), 'devpkg-kindmode-'));
  dirs.push(work);
  const repo = join(work, 'repo');
  cpSync(resolve('examples/tce-packages'), repo, { recursive: true });
  writeFileSync(join(repo, 'kapp-controller.yml'), 'apiVersion: v1\nkind: Namespace\nmetadata: {name: kapp-controller}\n');
  execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: repo });
  return { work, repo };
}

function github(repo: string): GithubContext {
  return {
    eventName: 'workflow_dispatch', event: {}, sha: '', ref: '', owner: 'example', repo: 'packages', runId: '4242', runNumber: 7, runAttempt: 1,
    serverUrl: 'https://github.com', apiUrl: 'https://api.github.com', workspace: repo,
  };
}

/** kind and docker answer; `kind create` fails as with an unpullable node image. */
const tools = () =>
  failingKindTools('ERROR: failed to create cluster: failed to pull image "example.invalid/node:v0": dial tcp: lookup example.invalid: no such host\n');

test('kind create failing: an error result per package naming the step and the cause, results.json, the summary; the cluster recorded for the post step', async () => {
  const { work, repo } = workspace();
  const host = newHost();
  const t = tools();
  const inputs = parseInputs(
    inputsFrom({
      mode: 'kind',
      packages: 'antrea/1.5.3,calico/3.22.1',
      'kind-node-image': 'example.invalid/node:v0',
      'kapp-controller-manifest': 'kapp-controller.yml',
      'push-command': 'true',
      comment: 'false',
    }),
  );
  const err = await run({ inputs, github: github(repo), host, exec: t.exec, env: { RUNNER_TEMP: work } }).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(DevpkgError);
  expect((err as Error).message).toBe('2 of 2 package(s) did not win: antrea/1.5.3 error, calico/3.22.1 error');

  const doc = JSON.parse(readFileSync(join(work, 'devpkg-devpkg-results', 'results.json'), 'utf8')) as { results: Array<{ name: string; verdict: string; reason: string }> };
  expect(doc.results.map((r) => [r.name, r.verdict])).toEqual([
    ['antrea', 'error'],
    ['calico', 'error'],
  ]);
  for (const r of doc.results) {
    expect(r.reason).toMatch(/^kind setup failed: kind cluster: kind create cluster devpkg-4242[0-9a-z]{6}-1 failed \(exit 1\): ERROR: failed to create cluster: failed to pull image "example.invalid\/node:v0"/);
  }
  expect(host.summaries).toHaveLength(1);
  expect(host.summaries[0]).toContain('failed to pull image');
  expect(JSON.parse(host.outputs.verdicts!)).toEqual({ 'antrea/1.5.3': 'error', 'calico/3.22.1': 'error' });
  // One annotation for the shared cause, not one per package.
  expect(host.errors.map((e) => e.message)).toEqual([expect.stringMatching(/^kind mode setup failed at kind cluster: kind cluster: kind create cluster/)]);
  // No cluster came up, but kind may have left a node container: the post step deletes it.
  const items = CleanupList.fromState(host.getState(CLEANUP_STATE));
  const name = items.find((i) => i.kind === 'kind-cluster')?.name;
  // Unique per process (two runs of one GitHub run attempt, two CLI runs in one millisecond): the run id, then a random part.
  expect(name).toMatch(/^devpkg-4242[0-9a-z]{6}-1$/);
  expect(items).toContainEqual({ kind: 'kind-cluster', name, kubeconfig: expect.any(String), binary: 'kind' });
  // The run's own network, recorded before it is made, created with the run's labels; kind is pointed at it.
  expect(items).toContainEqual({ kind: 'docker-network', name });
  const create = t.calls.find((c) => c[0] === 'docker' && c[1] === 'network' && c[2] === 'create')!;
  expect(create.slice(-1)).toEqual([name]);
  expect(create).toContain(`dev.devpkg.cluster=${name}`);
  expect(create).toContain(`dev.devpkg.run.pid=${process.ppid}`);
  // The registry starts next to kind create (it needs no cluster), recorded before it is made;
  // nothing that needs the cluster ran.
  expect(t.calls.filter((c) => c[0] === 'docker' && c[1] === 'run')).toHaveLength(1);
  expect(items).toContainEqual({ kind: 'docker-container', name: `${name}-registry` });
  const dockerRun = t.calls.find((c) => c[0] === 'docker' && c[1] === 'run')!;
  expect(dockerRun.slice(dockerRun.indexOf('--network'), dockerRun.indexOf('--network') + 2)).toEqual(['--network', name]);
  expect(dockerRun).toContain(`dev.devpkg.cluster=${name}`);
  // The registry starts on the run's network: no connect later (nothing needed the cluster anyway).
  expect(t.calls.filter((c) => (c[0] === 'kind' && c[1] === 'get') || (c[0] === 'docker' && (['cp', 'exec'].includes(c[1]!) || (c[1] === 'network' && !['create', 'ls'].includes(c[2]!)))))).toEqual([]);
  // The step timeline is in every result: the cluster failed, what needed it never started.
  const steps = (doc.results[0] as unknown as { steps: Array<{ name: string; state: string; waitedOn: string[] }> }).steps;
  expect(Object.fromEntries(steps.filter((s) => ['kind cluster', 'api server', 'kapp-controller', 'baseline antrea/1.5.3', 'verify'].includes(s.name)).map((s) => [s.name, s.state]))).toEqual({
    'kind cluster': 'failed',
    'api server': 'cancelled',
    'kapp-controller': 'cancelled',
    'baseline antrea/1.5.3': 'cancelled',
    verify: 'cancelled',
  });
  expect(steps.find((s) => s.name === 'kind cluster')?.waitedOn).toEqual(['kind']);
});

test('a kind-version that is not a version: a usage error naming the input where inputs are read, so no mode or tool starts', () => {
  const read = () => parseInputs(inputsFrom({ mode: 'kind', packages: 'calico/3.22.1', 'kind-version': 'not-a-version', 'push-command': 'true', comment: 'false' }));
  expect(read).toThrow(expect.objectContaining({ exitCode: 2, message: 'input kind-version: "not-a-version" is not a release version such as v0.33.0' }));
});

test('registry credentials given to kind mode are never used: a warning, and the push command sees none', async () => {
  const { work, repo } = workspace();
  const host = newHost();
  const t = tools();
  const inputs = parseInputs(
    inputsFrom({
      mode: 'kind',
      packages: 'calico/3.22.1',
      'registry-username': 'me',
      'registry-password': 's3cret',
      'kapp-controller-manifest': 'kapp-controller.yml',
      'push-command': 'true',
      comment: 'false',
    }),
  );
  await run({ inputs, github: github(repo), host, exec: t.exec, env: { RUNNER_TEMP: work } }).catch(() => undefined);
  expect(host.warnings.map((w) => w.message)).toContain(
    'mode kind pushes only to the local registry it creates: registry-username/registry-password are ignored and sent nowhere',
  );
  expect(JSON.stringify(t.calls)).not.toContain('s3cret');
});

describe('kind-mode inputs', () => {
  const parse = (v: Record<string, string>) => () => parseInputs(inputsFrom({ mode: 'kind', ...v }));
  test.each([
    [{ registry: 'ghcr.io/me' }, 'input registry: mode kind pushes to the local registry it creates on the kind network; remove registry ("ghcr.io/me") (and registry-username/registry-password), or use mode: cluster to push to an external registry'],
    [{ 'kapp-controller-manifest': 'kc.yml', 'kapp-controller-version': 'v0.51.0' }, 'inputs kapp-controller-manifest and kapp-controller-version: give one; the manifest replaces the download of a release version'],
    [{ 'kapp-controller-sha256': 'abc' }, 'input kapp-controller-sha256: "abc" is not a sha256 (64 hex digits), e.g. the output of sha256sum release.yml'],
  ])('refused: %j', (v, message) => expect(parse(v)).toThrow(message));
  test('the new inputs are read', () => {
    const sha = 'A'.repeat(64);
    expect(parse({ 'kind-config': 'kind.yaml', 'registry-image': 'mirror/registry:3', 'kapp-controller-manifest': 'https://m/release.yml', 'kapp-controller-sha256': sha })()).toMatchObject({
      kindConfig: 'kind.yaml',
      registryImage: 'mirror/registry:3',
      kappControllerManifest: 'https://m/release.yml',
      kappControllerSha256: 'a'.repeat(64),
    });
  });
  test('registry stays allowed in cluster mode', () => expect(parseInputs(inputsFrom({ mode: 'cluster', registry: 'ghcr.io/me' })).registry).toEqual({ host: 'ghcr.io', path: 'me' }));
});

test('a monorepo: working-directory a subfolder of the git repository; the package is read, built and pushed from the subfolder, and only the cluster step fails', async () => {
  const work = mkdtempSync(join(tmpdir(), 'devpkg-kindmode-'));
  dirs.push(work);
  const top = join(work, 'top');
  cpSync(resolve('examples/tce-packages'), join(top, 'carvel'), { recursive: true });
  writeFileSync(join(top, 'README.md'), 'a monorepo\n');
  writeFileSync(join(top, 'carvel', 'kapp-controller.yml'), 'apiVersion: v1\nkind: Namespace\nmetadata: {name: kapp-controller}\n');
  const git = (...a: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.invalid', ...a], { cwd: top });
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('commit', '-qm', 'base');
  const host = newHost();
  const t = tools();
  const inputs = parseInputs(
    inputsFrom({
      mode: 'kind',
      'working-directory': 'carvel',
      packages: 'antrea/1.5.3',
      'kind-node-image': 'example.invalid/node:v0',
      'kapp-controller-manifest': 'kapp-controller.yml',
      'push-command': 'echo "pushed $DEVPKG_PACKAGE $DEVPKG_VERSION from $PWD"',
      comment: 'false',
    }),
  );
  await run({ inputs, github: github(top), host, exec: t.exec, env: { RUNNER_TEMP: work } }).catch((e: unknown) => e);
  const doc = JSON.parse(readFileSync(join(work, 'devpkg-devpkg-results', 'results.json'), 'utf8')) as {
    results: Array<{ name: string; version: string; verdict: string; reason: string; steps: Array<{ name: string; state: string }> }>;
  };
  expect(doc.results.map((r) => [r.name, r.version, r.verdict])).toEqual([['antrea', '1.5.3', 'error']]);
  // Found in the subfolder (not "no file ... in the working tree", no doubled path): only the cluster failed.
  expect(doc.results[0]!.reason).toMatch(/^kind setup failed: kind cluster: /);
  expect(JSON.stringify(doc)).not.toContain('carvel/carvel');
  const steps = Object.fromEntries(doc.results[0]!.steps.map((s) => [s.name, s.state]));
  expect(steps['kind cluster']).toBe('failed');
  expect(Object.entries(steps).filter(([n, s]) => n.includes('antrea/1.5.3') && n.startsWith('build') && s === 'done')).not.toEqual([]);
  expect(host.errors.map((e) => e.message).join('\n')).not.toMatch(/working tree|no folder|known: none/);
});

test('outside GitHub (run number 0) the dev version is read from the clock once per run: a second later, the early dev push pushes the version planned', async () => {
  const { work, repo } = workspace();
  const host = newHost();
  // A registry that answers /v2/ (the kind registry's readiness) and holds no tag.
  const reg = createServer((req, res) => void res.writeHead(req.url === '/v2/' ? 200 : 404).end());
  await new Promise<void>((r) => reg.listen(0, '127.0.0.1', r));
  const port = (reg.address() as AddressInfo).port;
  // Only Date is faked, and it goes on with the real time; the test moves it a second on.
  jest.useFakeTimers({ advanceTimers: true, doNotFake: ['hrtime', 'nextTick', 'performance', 'queueMicrotask', 'setImmediate', 'clearImmediate', 'setInterval', 'clearInterval', 'setTimeout', 'clearTimeout'] });
  try {
    const t = tools();
    const pushes: Array<Record<string, string | undefined>> = [];
    let devPushed!: () => void;
    const pushedDev = new Promise<void>((r) => (devPushed = r));
    const exec: ExecFn = async (cmd, args, opts) => {
      if (cmd === 'bash') {
        pushes.push(opts?.env ?? {});
        if (opts?.env?.DEVPKG_VERSION?.includes('dev')) devPushed();
        return { code: 0, stdout: '', stderr: '' };
      }
      if (cmd.endsWith('docker') && args[0] === 'run') {
        // The plan is made; the run goes on a second later (past the clock's second).
        jest.setSystemTime(Date.now() + 1000);
        if (args.includes('127.0.0.1:5001:5000')) return { code: 125, stdout: '', stderr: 'Bind for 127.0.0.1:5001 failed: port is already allocated\n' };
      }
      if (cmd.endsWith('docker') && args[0] === 'port') return { code: 0, stdout: `127.0.0.1:${port}\n`, stderr: '' };
      // The cluster fails once the early dev push has run.
      if (cmd.endsWith('kind') && args[0] === 'create') await pushedDev;
      return t.exec(cmd, args, opts);
    };
    const inputs = parseInputs(inputsFrom({ mode: 'kind', packages: 'antrea/1.5.3', 'kapp-controller-manifest': 'kapp-controller.yml', 'push-command': 'true', comment: 'false' }));
    await run({ inputs, github: { ...github(repo), runNumber: 0, runAttempt: 0 }, host, exec, env: { RUNNER_TEMP: work } }).catch(() => undefined);
    const doc = JSON.parse(readFileSync(join(work, 'devpkg-devpkg-results', 'results.json'), 'utf8')) as { results: Array<{ devVersion?: string }> };
    const planned = doc.results[0]!.devVersion;
    expect(planned).toMatch(/^1\.5\.4-dev\.\d{14}$/);
    expect(pushes.filter((p) => p.DEVPKG_VERSION?.includes('dev')).map((p) => p.DEVPKG_VERSION)).toEqual([planned]);
  } finally {
    jest.useRealTimers();
    reg.close();
  }
});
