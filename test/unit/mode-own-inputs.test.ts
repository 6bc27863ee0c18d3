// Issue 35: every input kind and cluster mode document changes what that mode does (their own
// inputs; the plan-request ones are proven mode by mode in action-inputs.test.ts).
// - Kind mode runs in process with kind and docker stood in by a recorder whose `kind create`
//   fails, and tool downloads going to a release stand-in that has nothing: what the run does
//   before it has a cluster (every command with its arguments, the kind config it wrote, the
//   downloads it tried, its warnings, errors and outputs) must change with each input. The inputs
//   that act only once a cluster is up are named with the kind-mode integration test that uses them.
// - Cluster mode runs in process against a stand-in API server (no kapp-controller: nothing ever
//   reconciles, so every run ends timed-out) and a stand-in registry: what it asks the API server
//   (bodies included), the commands it runs with their environment, the downloads, the verdict.
import { cpSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parse } from 'yaml';
import { RecordingHost } from '../../src/action/host.js';
import { CLEANUP_STATE, CleanupList } from '../../src/cleanup.js';
import type { GithubContext } from '../../src/action/context.js';
import { parseInputs } from '../../src/inputs.js';
import { run as kindMode } from '../../src/modes/kind.js';
import { run as clusterMode } from '../../src/modes/cluster.js';
import { execTool } from '../../src/tools/exec.js';
import type { ExecFn } from '../../src/tools/exec.js';
import { actionTestScope } from '../support/action-scope.js';
import { inputsFrom } from '../support/inputs.js';
import { inputsWithoutEffect } from '../support/own-inputs.js';
import { failingKindTools } from '../support/kind-tools.js';
import { releaseServerForFile } from '../support/release-server.js';
import { kubeconfigFor, standInRegistry } from '../support/standin-servers.js';

const dirs = actionTestScope();
/** A folder devpkg made in the temp folder (its random part differs from run to run). */
const TEMP_FOLDER = new RegExp(`${tmpdir().replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/devpkg-[^/"\\\\]+`, 'g');
const server = releaseServerForFile();
const ACTION = parse(readFileSync(resolve('action.yml'), 'utf8')) as { inputs: Record<string, { description: string }> };

/** Inputs kind mode documents besides its `kind mode:` ones (README "Inputs"), not read through the plan request. */
const KIND_ALSO = ['registry-username', 'registry-password', 'push-command', 'push-timeout', 'lock-images', 'settle', 'timeout', 'assert', 'imgpkg-version', 'imgpkg-sha256', 'kbld-version', 'kbld-sha256', 'tool-checksums', 'artifact-name'];

/**
 * Each with a value that must change what kind mode does before its cluster is up (`with`: the
 * other inputs it needs to act). `realPush`: the push command really runs (the pushes start beside
 * `kind create`, which then fails only once they have ended), and `shows` is what the change must show.
 */
const BEFORE_CLUSTER: Record<string, { value: string; with?: Record<string, string>; realPush?: boolean; shows?: RegExp }> = {
  'kind-version': { value: 'v0.32.0' },
  'kind-sha256': { value: 'b'.repeat(64) },
  'kind-node-image': { value: 'example.invalid/node:v1' },
  'kind-config': { value: 'kind.yaml' },
  'registry-image': { value: 'example.invalid/registry:2' },
  'kapp-controller-version': { value: 'v0.50.0' },
  'kapp-controller-manifest': { value: 'no-such-manifest.yml' },
  'kapp-controller-sha256': { value: 'c'.repeat(64) },
  // Never sent: a warning says so.
  'registry-username': { value: 'me' },
  'registry-password': { value: 'secret' },
  // Without it imgpkg pushes, so imgpkg is needed.
  'push-command': { value: '' },
  'lock-images': { value: 'true' },
  'imgpkg-version': { value: 'v0.48.2', with: { 'push-command': '' } },
  'imgpkg-sha256': { value: 'd'.repeat(64), with: { 'push-command': '' } },
  'kbld-version': { value: 'v0.41.0', with: { 'lock-images': 'true' } },
  'kbld-sha256': { value: 'e'.repeat(64), with: { 'lock-images': 'true' } },
  'tool-checksums': { value: 'no-such-sums.txt' },
  'artifact-name': { value: 'other-results' },
  // The pushes run while the cluster is made: a push command past its limit is stopped, and the
  // package's result says so (the control's `sleep 3` finishes, and the result is the cluster's failure).
  'push-timeout': { value: '1s', with: { 'push-command': 'sleep 3' }, realPush: true, shows: /push command `sleep 3` did not finish within 1s \(push-timeout/ },
};

/** Inputs that act once the cluster is up, and the kind-mode integration test that shows each acting. */
const ONCE_CLUSTER_UP: Record<string, { file: string; shows: RegExp }> = {
  // SIGINT in the settle window: "won; holding for the 300s settle window".
  settle: { file: 'test/integration/kind-mode.test.ts', shows: /'--settle', '300s'[\s\S]*holding for the 300s settle window/ },
  // The assertions' results in the won result.
  assert: { file: 'test/integration/kind-mode.test.ts', shows: /actionRun\(\{ assert \}[\s\S]*r\.assertions/ },
  // The baseline's install, waited for at most the limit: an error result naming it.
  timeout: { file: 'test/integration/kind-mode.test.ts', shows: /actionRun\(\{ timeout: '1s', settle: '0s' \}[\s\S]*did not install: timed-out: [^\n]* within 1s/ },
};


function workspace() {
  const work = mkdtempSync(join(tmpdir(), 'devpkg-own-'));
  dirs.push(work);
  const repo = join(work, 'repo');
  cpSync(resolve('examples/tce-packages'), repo, { recursive: true });
  writeFileSync(join(repo, 'kapp-controller.yml'), 'apiVersion: v1\nkind: Namespace\nmetadata: {name: kapp-controller}\n');
  writeFileSync(join(repo, 'kind.yaml'), 'kind: Cluster\napiVersion: kind.x-k8s.io/v1alpha4\nnodes:\n- role: control-plane\n  labels: {devpkg.test/own: "1"}\n');
  execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: repo });
  return { work, repo };
}

/** What kind mode does with these inputs until its cluster would be there, with the run's random names, times and folders made alike. */
async function kindDoes(values: Record<string, string>, realPush = false): Promise<string> {
  const { work, repo } = workspace();
  server.reset();
  const host = new RecordingHost();
  const t = failingKindTools('ERROR: failed to create cluster: stand-in\n');
  const calls: string[][] = [];
  // With realPush, the push commands (`bash -c`) run for real, and `kind create` waits until the
  // run's two pushes (baseline and dev) have ended, so they always start before the cluster fails.
  // They push to a stand-in registry: the registry container's default port is said to be taken,
  // and the port docker then "chose" is the stand-in's.
  let pushesEnded = 0;
  let pushEnded = () => {};
  const registry = realPush ? await standInRegistry([]) : undefined;
  const exec: ExecFn = async (p, args, o) => {
    const config = args[0] === 'create' ? args.indexOf('--config') : -1;
    calls.push([p, ...args, ...(config > 0 ? [readFileSync(args[config + 1]!, 'utf8')] : [])]);
    if (registry && p === 'docker' && args[0] === 'run' && args.includes('127.0.0.1:5001:5000')) {
      return { code: 125, stdout: '', stderr: 'docker: Error response from daemon: Bind for 127.0.0.1:5001 failed: port is already allocated.\n' };
    }
    if (registry && p === 'docker' && args[0] === 'port') return { code: 0, stdout: `127.0.0.1:${registry.host.split(':')[1]}\n`, stderr: '' };
    if (realPush && p === 'bash' && args[0] === '-c') {
      try {
        return await execTool(p, args, o);
      } finally {
        pushesEnded++;
        pushEnded();
      }
    }
    if (realPush && args[0] === 'create') {
      const limit = Date.now() + 30_000;
      while (pushesEnded < 2 && Date.now() < limit) await new Promise<void>((r) => ((pushEnded = r), setTimeout(r, 1000)));
    }
    return t.exec(p, args, o);
  };
  const github: GithubContext = {
    eventName: 'workflow_dispatch', event: {}, sha: '', ref: '', owner: 'example', repo: 'packages', runId: '4242', runNumber: 7, runAttempt: 1,
    serverUrl: 'https://github.com', apiUrl: 'https://api.github.com', workspace: repo,
  };
  let err = '';
  try {
    const inputs = parseInputs(inputsFrom({ mode: 'kind', packages: 'antrea/1.5.3', comment: 'false', ...values }));
    await kindMode({ inputs, github, host, exec, env: { RUNNER_TEMP: work }, install: { github: server.url } });
  } catch (e) {
    err = (e as Error).message;
  } finally {
    // What the run recorded for the post step (the kind config folder), removed as the post step would.
    for (const item of CleanupList.fromState(host.getState(CLEANUP_STATE))) if (item.kind === 'temp-dir') rmSync(item.path, { recursive: true, force: true });
    registry?.server.closeAllConnections();
    registry?.server.close();
  }
  const done = JSON.stringify({ err, calls, downloads: [...server.requests], warnings: host.warnings, errors: host.errors, outputs: host.outputs });
  // The stand-in registry's port, wherever the run wrote its push address.
  const port = registry?.host.split(':')[1];
  return (port ? done.replaceAll(`localhost:${port}`, 'localhost:REGISTRY_PORT').replaceAll(`127.0.0.1:${port}`, '127.0.0.1:REGISTRY_PORT') : done)
    .replaceAll(work, 'WORK')
    .replaceAll(server.url, 'SERVER')
    .replace(/devpkg-4242[0-9a-z]{6}-1/g, 'CLUSTER')
    .replace(TEMP_FOLDER, 'TMP')
    .replace(/\d{4}-\d\d-\d\dT[\d:.]+Z/g, 'TIME')
    .replace(/(pid(-start)?=)\d+/g, '$1N');
}

test('every input kind mode documents is placed: shown acting before the cluster here, or once it is up by a named kind-mode test', () => {
  const documented = [...Object.keys(ACTION.inputs).filter((i) => ACTION.inputs[i]!.description.startsWith('kind mode:')), ...KIND_ALSO];
  const placed = new Set([...Object.keys(BEFORE_CLUSTER), ...Object.keys(ONCE_CLUSTER_UP)]);
  expect(documented.filter((i) => !placed.has(i))).toEqual([]);
  expect([...placed].filter((i) => !documented.includes(i))).toEqual([]);
  for (const i of KIND_ALSO) expect(Object.keys(ACTION.inputs)).toContain(i);
  for (const [input, { file, shows }] of Object.entries(ONCE_CLUSTER_UP)) {
    expect({ input, file, exists: existsSync(resolve(file)) }).toEqual({ input, file, exists: true });
    expect({ input, shows: shows.test(readFileSync(resolve(file), 'utf8')) }).toEqual({ input, shows: true });
  }
});

test('each input kind mode reads before its cluster is up changes what it does', async () => {
  const base = { 'kapp-controller-manifest': 'kapp-controller.yml', 'push-command': 'true' };
  const wrong = await inputsWithoutEffect(BEFORE_CLUSTER, (c) => c.realPush ?? false, kindDoes, { base });
  expect(wrong).toEqual([]);
}, 120_000);

/** Inputs cluster mode documents besides its `cluster mode:` ones (README "Inputs"), not read through the plan request. */
const CLUSTER_ALSO = ['cluster-registry', 'registry-username', 'registry-password', 'push-command', 'push-timeout', 'lock-images', 'settle', 'timeout', 'assert', 'imgpkg-version', 'imgpkg-sha256', 'kbld-version', 'kbld-sha256', 'tool-checksums', 'artifact-name'];

/**
 * Each with a value that must change what cluster mode does, and where it is known, what the
 * change must show. `with`: the other inputs it needs to act; `imgpkgOnPath`: a stand-in imgpkg
 * on PATH (it answers its version and fails every push), for the inputs only imgpkg's push reads.
 */
const CLUSTER_HERE: Record<string, { value: string; with?: Record<string, string>; imgpkgOnPath?: boolean; shows?: RegExp }> = {
  kubeconfig: { value: 'no-such-kubeconfig', shows: /no-such-kubeconfig/ },
  'package-install': { value: 'tkg-system/other', shows: /GET \/apis\/packaging\.carvel\.dev\/v1alpha1\/namespaces\/tkg-system\/packageinstalls\/other/ },
  // The dev Package applied names the bundle at the pull address.
  'cluster-registry': { value: 'elsewhere.example.invalid:5000', shows: /elsewhere\.example\.invalid:5000\/dev\/antrea-bundle@sha256:/ },
  'push-command': { value: 'echo another push', shows: /echo another push/ },
  'push-timeout': { value: '1s', with: { 'push-command': 'sleep 5' }, shows: /did not finish within 1s/ },
  timeout: { value: '3s', shows: /did not win within 3s/ },
  // The run's Lease is held for push-timeout + settle + timeout: 600 + 2 + 2 s.
  settle: { value: '2s', shows: /\\"leaseDurationSeconds\\":604/ },
  'registry-username': { value: 'me', with: { 'push-command': '', 'registry-password': 'secret' }, imgpkgOnPath: true, shows: /"IMGPKG_REGISTRY_USERNAME_\d+\\":\\"me\\"/ },
  'registry-password': { value: 'other-secret', with: { 'push-command': '', 'registry-username': 'me' }, imgpkgOnPath: true, shows: /"IMGPKG_REGISTRY_PASSWORD_\d+\\":\\"other-secret\\"/ },
  'lock-images': { value: 'true', shows: /kbld/ },
  'imgpkg-version': { value: 'v0.48.2', with: { 'push-command': '' }, shows: /imgpkg\/releases\/download\/v0\.48\.2\// },
  'imgpkg-sha256': { value: 'd'.repeat(64), with: { 'push-command': '' } },
  'kbld-version': { value: 'v0.41.0', with: { 'lock-images': 'true' }, shows: /v0\.41\.0/ },
  'kbld-sha256': { value: 'e'.repeat(64), with: { 'lock-images': 'true' } },
  'tool-checksums': { value: 'no-such-sums.txt', shows: /no-such-sums\.txt/ },
  'artifact-name': { value: 'other-results', shows: /other-results/ },
};

/** Cluster mode's inputs that act only once the dev version has won, and the cluster-mode integration test that shows each acting. */
const CLUSTER_ONCE_WON: Record<string, { file: string; shows: RegExp }> = {
  assert: { file: 'test/integration/verify.test.ts', shows: /clusterMode\(\{ packages: 'antrea\/1\.5\.3', 'package-install': `\$\{ns\}\/antrea`, assert: / },
};

/** A stand-in API server: the PackageInstall asked for, empty lists, writes echoed, watches held open; every request recorded with its body. */
async function standInApiServer(): Promise<{ url: string; requests: string[]; server: Server }> {
  const requests: string[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      requests.push(`${req.method} ${req.url} ${body}`);
      const u = new URL(req.url!, 'http://stand-in');
      const json = (code: number, o: unknown) => res.writeHead(code, { 'content-type': 'application/json' }).end(JSON.stringify(o));
      // A watch: its headers now (the connection is open), then silence.
      if (u.searchParams.get('watch') === 'true') return void res.writeHead(200, { 'content-type': 'application/json' }).flushHeaders();
      if (req.method === 'DELETE') return json(200, { kind: 'Status', apiVersion: 'v1', status: 'Success' });
      if (req.method !== 'GET') {
        const o = (body ? JSON.parse(body) : {}) as { metadata?: object };
        return json(201, { ...o, metadata: { ...o.metadata, resourceVersion: '2' } });
      }
      if (u.pathname === '/apis/data.packaging.carvel.dev/v1alpha1') {
        return json(200, { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: 'data.packaging.carvel.dev/v1alpha1', resources: [{ name: 'packages', singularName: 'package', namespaced: true, kind: 'Package', verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'] }] });
      }
      const pkgi = /\/namespaces\/([^/]+)\/packageinstalls\/([^/]+)$/.exec(u.pathname);
      if (pkgi) {
        return json(200, {
          apiVersion: 'packaging.carvel.dev/v1alpha1', kind: 'PackageInstall', metadata: { name: pkgi[2], namespace: pkgi[1], resourceVersion: '1', generation: 1 },
          spec: { packageRef: { refName: 'antrea.community.tanzu.vmware.com', versionSelection: { constraints: '>=1.5.3' } } },
          status: { version: '1.5.3', observedGeneration: 1, conditions: [{ type: 'ReconcileSucceeded', status: 'True' }] },
        });
      }
      if (/\/(packageinstalls|packages|apps|events|pods)$/.test(u.pathname)) return json(200, { kind: 'List', apiVersion: 'v1', metadata: { resourceVersion: '1' }, items: [] });
      json(404, { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NotFound', code: 404, message: 'not in the stand-in' });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests, server };
}

/** What cluster mode does with these inputs against the stand-ins, with the run's times, ports and folders made alike. */
async function clusterDoes(values: Record<string, string>, imgpkgOnPath = false): Promise<string> {
  const { work, repo } = workspace();
  server.reset();
  const api = await standInApiServer();
  const registry = await standInRegistry(api.requests);
  writeFileSync(join(repo, 'kubeconfig'), kubeconfigFor(api.url));
  const savedPath = process.env.PATH;
  if (imgpkgOnPath) {
    const bin = join(work, 'bin');
    mkdirSync(bin);
    writeFileSync(join(bin, 'imgpkg'), '#!/bin/sh\n[ "$1" = version ] && { echo "imgpkg version 0.41.1"; exit 0; }\necho "stand-in imgpkg: no push" >&2\nexit 1\n');
    chmodSync(join(bin, 'imgpkg'), 0o755);
    process.env.PATH = `${bin}:${savedPath}`;
  }
  const calls: string[][] = [];
  const exec: ExecFn = async (p, args, o) => {
    calls.push([p, ...args, JSON.stringify(o?.env ?? {})]);
    return execTool(p, args, o);
  };
  const github: GithubContext = {
    eventName: 'workflow_dispatch', event: {}, sha: '', ref: '', owner: 'example', repo: 'packages', runId: '4242', runNumber: 7, runAttempt: 1,
    serverUrl: 'https://github.com', apiUrl: 'https://api.github.com', workspace: repo,
  };
  const host = new RecordingHost();
  let err = '';
  try {
    const inputs = parseInputs(inputsFrom({ mode: 'cluster', packages: 'antrea/1.5.3', comment: 'false', registry: `${registry.host}/dev`, ...values }));
    await clusterMode({ inputs, github, host, exec, env: { RUNNER_TEMP: work }, install: { github: server.url } });
  } catch (e) {
    err = (e as Error).message;
  } finally {
    process.env.PATH = savedPath;
    for (const s of [api.server, registry.server]) {
      s.closeAllConnections();
      s.close();
    }
  }
  return JSON.stringify({ err, calls, requests: api.requests, downloads: [...server.requests], warnings: host.warnings, errors: host.errors, outputs: host.outputs })
    .replaceAll(work, 'WORK')
    .replaceAll(server.url, 'SERVER')
    .replaceAll(api.url, 'API')
    .replaceAll(registry.host, 'REGISTRY')
    .replace(/\d{4}-\d\d-\d\dT[\d:.]+Z/g, 'TIME')
    .replace(/pid \d+/g, 'pid N')
    .replace(TEMP_FOLDER, 'TMP')
    .replace(/timeoutSeconds=\d+/g, 'timeoutSeconds=N');
}

test('every input cluster mode documents is placed: shown acting here, or once the dev version won by a named cluster-mode test', () => {
  const documented = [...Object.keys(ACTION.inputs).filter((i) => ACTION.inputs[i]!.description.startsWith('cluster mode:')), ...CLUSTER_ALSO];
  const placed = new Set([...Object.keys(CLUSTER_HERE), ...Object.keys(CLUSTER_ONCE_WON)]);
  expect(documented.filter((i) => !placed.has(i))).toEqual([]);
  expect([...placed].filter((i) => !documented.includes(i))).toEqual([]);
  for (const i of CLUSTER_ALSO) expect(Object.keys(ACTION.inputs)).toContain(i);
  for (const [input, { file, shows }] of Object.entries(CLUSTER_ONCE_WON)) {
    expect({ input, shows: existsSync(resolve(file)) && shows.test(readFileSync(resolve(file), 'utf8')) }).toEqual({ input, shows: true });
  }
});

test('each input cluster mode documents changes what it does, against a stand-in API server and registry', async () => {
  const base = { kubeconfig: 'kubeconfig', 'package-install': 'tkg-system/antrea', 'cluster-registry': 'pull.example.invalid:5000', 'push-command': 'true', settle: '1s', timeout: '2s' };
  // Each control reached a result (against the stand-ins, timed-out where it gets that far: nothing reconciles).
  const wrong = await inputsWithoutEffect(CLUSTER_HERE, (c) => c.imgpkgOnPath ?? false, clusterDoes, { base, checkControl: (control) => expect(control).toContain('"verdicts":') });
  expect(wrong).toEqual([]);
}, 300_000);
