// The first try of kind mode (issue 27), one case per thing a new user meets: everything is
// checked before anything starts, in order (flags, packages, the files flags name, then every
// tool and daemon), and all that is missing is named in one run. kind and docker are the
// recording stand-in of test/support/kind-tools.ts, so "nothing started" is "nothing called"
// (or only the tools' version questions); kind's release comes from a local release stand-in.
import { afterAll, beforeAll, beforeEach, describe, expect, test } from '@jest/globals';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { execFileSync } from 'node:child_process';
import { run } from '../../src/commands/kind.js';
import { DevpkgError } from '../../src/errors.js';
import type { PackageResult } from '../../src/results.js';
import { failingKindTools, type KindToolsOptions } from '../support/kind-tools.js';
import { releaseServerForFile } from '../support/release-server.js';

const server = releaseServerForFile();
const saved = { cache: process.env.RUNNER_TOOL_CACHE, path: process.env.PATH };
let work = '';
let repo = '';

beforeAll(() => {
  // devpkg's tool cache for these tests: empty, and never the user's.
  process.env.RUNNER_TOOL_CACHE = mkdtempSync(join(tmpdir(), 'devpkg-firsttry-cache-'));
  // No imgpkg on PATH, whatever this machine has: only the system folders.
  process.env.PATH = '/usr/bin:/bin';
});
afterAll(() => {
  rmSync(process.env.RUNNER_TOOL_CACHE!, { recursive: true, force: true });
  process.env.RUNNER_TOOL_CACHE = saved.cache;
  process.env.PATH = saved.path;
});
beforeEach(() => {
  server.reset();
  work = mkdtempSync(join(tmpdir(), 'devpkg-firsttry-'));
  repo = join(work, 'repo');
  cpSync(resolve('examples/tce-packages'), repo, { recursive: true });
  writeFileSync(join(repo, 'kc.yml'), 'apiVersion: v1\nkind: Namespace\nmetadata: {name: kapp-controller}\n');
  execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: repo });
});
afterEach(() => rmSync(work, { recursive: true, force: true }));

const CREATE_FAILS = 'ERROR: failed to create cluster: node image not found\n';

async function kind(args: string[], tools: KindToolsOptions = {}, install = {}) {
  const t = failingKindTools(CREATE_FAILS, tools);
  const out = { stdout: '', stderr: '' };
  const io = { stdout: (s: string) => void (out.stdout += s), stderr: (s: string) => void (out.stderr += s), env: {}, cwd: repo };
  const results = join(work, 'out');
  let code: number;
  let error: DevpkgError | undefined;
  try {
    code = await run([...args, '--results-dir', results], io, { exec: t.exec, onSignal: () => () => undefined, install: { github: server.url, ...install } });
  } catch (err) {
    error = err as DevpkgError;
    code = error.exitCode;
  }
  const file = join(results, 'results.json');
  const doc = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as { results: PackageResult[] }) : undefined;
  const report = existsSync(join(results, 'report.md')) ? readFileSync(join(results, 'report.md'), 'utf8') : undefined;
  return { code, error, out, calls: t.calls, doc, report, results };
}

/** Only the tools' version questions: nothing created, nothing pulled, nothing run. */
const onlyAsked = (calls: string[][]) => calls.every((c) => c[1] === 'version');
const OK = ['--kapp-controller-manifest', 'kc.yml', '--push-command', 'true'];

describe('flags and the files they name: exit 2 naming the flag, before any tool is asked', () => {
  const config = (text: string) => () => (writeFileSync(join(repo, 'kind.yaml'), text), ['--kind-config', 'kind.yaml']);
  test.each<[string, () => string[], RegExp]>([
    ['a kind config that is not YAML', config('kind: Cluster\n  apiVersion: [\n'), /^kind-config \S+\/kind\.yaml: not valid YAML/],
    ['a kind config that is not a kind Cluster', config('apiVersion: v1\nkind: Pod\n'), /^kind-config \S+\/kind\.yaml: kind "Pod", apiVersion "v1": devpkg takes a kind cluster config/],
    [
      'a kind config with a conflicting containerd config_path',
      config('kind: Cluster\napiVersion: kind.x-k8s.io/v1alpha4\ncontainerdConfigPatches:\n- |-\n  [plugins."io.containerd.grpc.v1.cri".registry]\n    config_path = "/etc/containerd/mine"\n'),
      /^kind-config \S+\/kind\.yaml: containerdConfigPatches\[0\] sets config_path = "\/etc\/containerd\/mine"/,
    ],
    ['a kind config that does not exist', () => ['--kind-config', 'nosuch.yaml'], /^kind-config: cannot read \S+\/nosuch\.yaml: ENOENT/],
    ['an assert file that does not exist', () => ['--assert', 'nosuch-assert.yaml'], /^--assert: cannot read \S+\/nosuch-assert\.yaml: ENOENT/],
    ['an assert file that is not a list', () => (writeFileSync(join(repo, 'a.yaml'), 'kind: x\n'), ['--assert', 'a.yaml']), /^assert: must be a YAML list/],
    ['a kapp-controller manifest file that does not exist', () => ['--kapp-controller-manifest', 'nosuch-kc.yml'], /^kapp-controller-manifest: cannot read \S+\/nosuch-kc\.yml: ENOENT/],
    ['a registry image that is not an image reference', () => ['--registry-image', 'UPPER/Case:bad tag'], /^input registry-image: "UPPER\/Case:bad tag" is not an image reference \(it contains a space\)/],
    ['a registry image with an uppercase path', () => ['--registry-image', 'UPPER/Case:3'], /^input registry-image: "UPPER\/Case:3" is not an image reference \(repository path "UPPER\/Case" must be lowercase\)/],
    ['a kind version that is not a version', () => ['--kind-version', 'latest'], /^input kind-version: "latest" is not a release version such as v0\.33\.0$/],
  ])('%s', async (_what, extra, message) => {
    const r = await kind(['--packages', 'calico/3.22.1', ...OK, ...extra()], { dockerDown: true, absent: ['kind'] });
    expect(r.code).toBe(2);
    expect(r.error?.message).toMatch(message);
    // Refused before Docker (down here, which would otherwise be named) or kind was asked anything.
    expect(r.calls).toEqual([]);
    expect(r.doc).toBeUndefined();
    expect(server.requests).toEqual([]);
  });
});

describe('the packages: planned as devpkg plan plans them', () => {
  test('an unknown package is its own error result in plan\'s words; nothing is created; the results say what is unknown', async () => {
    const r = await kind(['--packages', 'nosuch/1.0.0', ...OK]);
    expect(r.code).toBe(1);
    expect(r.out.stdout).toContain('unknown package nosuch: no folder addons/packages/nosuch with a metadata.yaml or a version folder; known: antrea, calico');
    expect(r.out.stdout).not.toMatch(/kind setup failed|imgpkg/);
    expect(r.out.stdout).toMatch(/^nosuch\/1\.0\.0: ERROR\n/);
    expect(onlyAsked(r.calls)).toBe(true);
    const res = r.doc!.results[0]!;
    expect(res).toMatchObject({ name: 'nosuch', version: '1.0.0', verdict: 'error', unknown: ['refName', 'targetRefName', 'devVersion'] });
    // No empty names or versions anywhere, in results.json or report.md.
    expect(JSON.stringify(r.doc!.results)).not.toMatch(/:""/);
    expect(r.report).not.toContain('``');
    expect(r.report).toContain('- **Versions:** _unknown_ → _unknown_');
    expect(r.report).toContain('- **refName:** _unknown_ (the package could not be read)');
  });

  test('an unknown version next to a good package: the good one goes on to set-up', async () => {
    const r = await kind(['--packages', 'antrea/9.9.9,calico/3.22.1', ...OK]);
    expect(r.code).toBe(1);
    const byName = Object.fromEntries(r.doc!.results.map((x) => [x.name, x]));
    expect(byName.antrea!.reason).toContain('unknown version 9.9.9 of package antrea: no folder addons/packages/antrea/9.9.9 holding a package.yaml; known versions: 1.5.3');
    expect(byName.calico!.reason).toMatch(/^kind setup failed: kind cluster: kind create cluster/);
    // What the plan knew about calico stays in its error result.
    expect(byName.calico).toMatchObject({ refName: 'calico.community.tanzu.vmware.com', devVersion: expect.stringMatching(/^3\.22\.2-dev\./) });
    expect(byName.calico!.unknown).toBeUndefined();
  });
});

describe('the tools and the daemon: all that is missing, named in one message', () => {
  test('--no-install with kind and imgpkg missing and docker down: the three in one message with how to get each; nothing started', async () => {
    const r = await kind(['--packages', 'calico/3.22.1', '--kapp-controller-manifest', 'kc.yml', '--no-install'], { dockerDown: true, absent: ['kind'] });
    expect(r.code).toBe(1);
    const reason = r.doc!.results[0]!.reason;
    expect(reason).toMatch(/^kind setup failed: mode kind cannot start: 3 things are missing \(--no-install\)/);
    expect(reason).toMatch(/- docker: docker does not answer \(exit 1\): Cannot connect to the Docker daemon.*; start the Docker daemon, or install Docker \(https:\/\/docs\.docker\.com\/engine\/install\/\)/);
    expect(reason).toMatch(/- kind v0\.33\.0: not on PATH; install it \(https:\/\/kind\.sigs\.k8s\.io\/docs\/user\/quick-start\/#installation, or go install sigs\.k8s\.io\/kind@v0\.33\.0\)/);
    expect(reason).toMatch(/- imgpkg: not on PATH; install it \(https:\/\/carvel\.dev\/imgpkg\/docs\/latest\/install\//);
    expect(r.calls).toEqual([['docker', 'version', '--format', '{{.Server.Version}}'], ['kind', 'version']]);
    expect(server.requests).toEqual([]);
  });

  test('docker down and kind missing (installable): both named, and nothing is downloaded while the run cannot start', async () => {
    const r = await kind(['--packages', 'calico/3.22.1', ...OK], { dockerDown: true, absent: ['kind'] });
    expect(r.code).toBe(1);
    const reason = r.doc!.results[0]!.reason;
    expect(reason).toMatch(/2 things are missing\n- docker: docker does not answer/);
    expect(reason).toMatch(/- kind v0\.33\.0: not on PATH; devpkg installs it \(pinned, checksum-checked\) once the rest is there/);
    expect(onlyAsked(r.calls)).toBe(true);
    expect(server.requests).toEqual([]);
  });

  test('with a good kind config, a nonexistent package and a Docker that does not answer are both named in one run', async () => {
    writeFileSync(join(repo, 'kind.yaml'), 'kind: Cluster\napiVersion: kind.x-k8s.io/v1alpha4\nnodes:\n- role: control-plane\n');
    const r = await kind(['--packages', 'nosuch/1.0.0,calico/3.22.1', '--kind-config', 'kind.yaml', ...OK], { dockerDown: true });
    expect(r.code).toBe(1);
    expect(r.out.stdout).toContain('unknown package nosuch');
    expect(r.out.stdout).toContain('docker does not answer');
    expect(r.doc!.results.map((x) => [x.name, x.verdict])).toEqual([
      ['calico', 'error'],
      ['nosuch', 'error'],
    ]);
    expect(onlyAsked(r.calls)).toBe(true);
  });

  test('kind missing: installed from its release (sha256 from the release listing) into devpkg\'s own cache, then used', async () => {
    const binary = Buffer.from('#!/bin/sh\necho kind v0.33.0\n');
    const { createHash } = await import('node:crypto');
    const sum = createHash('sha256').update(binary).digest('hex');
    server.bodies.set('/kubernetes-sigs/kind/releases/download/v0.33.0/kind-linux-amd64', binary);
    server.bodies.set('/kubernetes-sigs/kind/releases/download/v0.33.0/kind-linux-amd64.sha256sum', `${sum}  kind-linux-amd64\n`);
    // The tool cache's ::debug:: workflow commands stay off a terminal's stdout.
    const written: string[] = [];
    const write = process.stdout.write;
    process.stdout.write = ((chunk: unknown, ...rest: unknown[]) => (written.push(String(chunk)), (write as (...a: unknown[]) => boolean).call(process.stdout, chunk, ...rest))) as typeof write;
    const r = await kind(['--packages', 'calico/3.22.1', ...OK], { absent: ['kind'] }).finally(() => (process.stdout.write = write));
    expect(written.filter((w) => w.includes('::debug::'))).toEqual([]);
    expect(server.requests).toEqual(['/kubernetes-sigs/kind/releases/download/v0.33.0/kind-linux-amd64.sha256sum', '/kubernetes-sigs/kind/releases/download/v0.33.0/kind-linux-amd64']);
    const installed = join(process.env.RUNNER_TOOL_CACHE!, 'kind', '0.33.0', 'x64', 'kind');
    expect(readFileSync(installed)).toEqual(binary);
    // The cluster was asked of the installed kind (the stand-in's create fails, as set up).
    expect(r.calls.find((c) => c[1] === 'create')?.[0]).toBe(installed);
    expect(r.doc!.results[0]!.reason).toMatch(/^kind setup failed: kind cluster: /);
    rmSync(join(process.env.RUNNER_TOOL_CACHE!, 'kind'), { recursive: true, force: true });
  });
});

test('a report written outside Actions links nowhere on GitHub; it names the local results folder', async () => {
  const r = await kind(['--packages', 'calico/3.22.1', ...OK]);
  expect(r.report).not.toMatch(/https?:\/\/github\.com/);
  expect(r.report).toContain(`results folder \`${r.results}\``);
  expect(r.out.stderr).not.toContain('upload-artifact');
  expect(readdirSync(r.results)).toEqual(expect.arrayContaining(['results.json', 'report.md']));
});

test('devpkg dev gets imgpkg the same way: --no-install refuses, naming it and how to get it, before the cluster is asked anything', async () => {
  // A kubeconfig whose server would refuse any connection: nothing may reach it.
  const kubeconfig = join(work, 'kubeconfig');
  writeFileSync(
    kubeconfig,
    'apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: "https://127.0.0.1:9"}}]\nusers: [{name: u, user: {token: t}}]\ncontexts: [{name: x, context: {cluster: c, user: u}}]\ncurrent-context: x\n',
  );
  const { runCli } = await import('../../src/cli.js');
  let err = '';
  const code = await runCli(['dev', '--package', join(repo, 'addons/packages/calico/3.22.1'), '--registry', 'localhost:5001/devpkg', '--kubeconfig', kubeconfig, '--no-install'], {
    stdout: () => undefined,
    stderr: (t) => void (err += t),
    env: {},
    cwd: repo,
  });
  expect(code).toBe(1);
  expect(err).toContain('mode dev cannot start: one thing is missing (--no-install)\n- imgpkg: not on PATH; install it (https://carvel.dev/imgpkg/docs/latest/install/');
  expect(server.requests).toEqual([]);
});
