// Signals in a bootstrap (issue 27 §5): SIGINT/SIGTERM during `tanzu management-cluster create`
// stops it (the CLI gets SIGTERM) and the result is `interrupted`, naming the management cluster's
// delete command; after a signal the providers folder is restored and the clusters are left,
// listed with their delete commands, for `devpkg bootstrap --cleanup`.
import { afterEach, describe, expect, test } from '@jest/globals';
import { existsSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { CleanupList } from '../cleanup-list.js';
import { ProvidersBackup } from '../providers/backup.js';
import type { ExecFn, ExecOptions } from '../tools/exec.js';
import { Tanzu } from '../tools/tanzu.js';
import { cleanupInterrupted, readState } from './cleanup.js';
import { InterruptedError } from '../errors.js';
import { loadPackage } from '../../test/support/load-package.js';
import { bootstrapFolders, createAndVerify, runBootstrap, type BootstrapOptions, type PreparedBootstrap } from './run.js';

const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});
async function tempDir(): Promise<string> {
  const d = await mkdtemp(join(tmpdir(), 'devpkg-bootstrap-signal-'));
  dirs.push(d);
  return d;
}

/**
 * A stand-in tanzu CLI: `management-cluster create` runs until its signal is aborted, then ends
 * as a SIGTERMed process does (exit 143); kind and docker list nothing. Every call is recorded.
 */
function standinTanzu(onCreate: () => void) {
  const calls: Array<{ argv: string[]; opts?: ExecOptions }> = [];
  const exec: ExecFn = async (cmd, args, opts) => {
    calls.push({ argv: [cmd, ...args], opts });
    if (args[0] === 'management-cluster' && args[1] === 'create') {
      onCreate();
      await new Promise<void>((resolve) => (opts?.signal?.aborted ? resolve() : opts?.signal?.addEventListener('abort', () => resolve())));
      return { code: 143, stdout: 'Setting up bootstrapper...\n', stderr: '' };
    }
    return { code: 0, stdout: '', stderr: '' };
  };
  return { exec, calls };
}

async function setUp(signal: AbortSignal, onCreate: () => void) {
  const dir = await tempDir();
  const workDir = join(dir, 'work');
  await mkdir(workDir);
  const clusterConfig = join(dir, 'mgmt.yaml');
  await writeFile(clusterConfig, 'CLUSTER_NAME: devpkg-mgmt\nINFRASTRUCTURE_PROVIDER: docker\n');
  const t = standinTanzu(onCreate);
  const cleanup = new CleanupList();
  const o = {
    loaded: { name: 'antrea', version: '1.5.3', path: join(dir, 'antrea/1.5.3'), pkg: { pkg: { spec: { refName: 'antrea.community.tanzu.vmware.com' } } } },
    refName: 'antrea.tanzu.vmware.com',
    seq: { timestamp: new Date() },
    tanzuPath: '/opt/tanzu',
    paths: { tanzuDir: join(dir, 'home/.config/tanzu'), providersDir: join(dir, 'home/.config/tanzu/tkg/providers'), home: join(dir, 'home') },
    bootstrapTimeoutMs: 60_000,
    timeoutMs: 60_000,
    settleMs: 0,
    heartbeatMs: 60_000,
    workDir,
    cleanup,
    signal,
    exec: t.exec,
  } as unknown as BootstrapOptions;
  const p = {
    outcome: { devPackage: { metadata: { name: 'antrea.tanzu.vmware.com.1.5.4-dev.1' } }, devVersion: '1.5.4-dev.1', image: 'r/antrea@sha256:x', createCommand: 'tanzu management-cluster create ...' },
    clusterConfig,
    tanzu: new Tanzu('/opt/tanzu', t.exec, { HOME: join(dir, 'home') }),
    digest: 'sha256:x',
  } as unknown as PreparedBootstrap;
  return { o, p, calls: t.calls, cleanup, home: join(dir, 'home') };
}

describe('a signal in a bootstrap', () => {
  test('during tanzu management-cluster create: the CLI is stopped, the result is interrupted and names the delete command', async () => {
    const controller = new AbortController();
    const s = await setUp(controller.signal, () => controller.abort('SIGINT'));
    const out = await createAndVerify(s.o, s.p);
    const create = s.calls.find((c) => c.argv[1] === 'management-cluster' && c.argv[2] === 'create');
    expect(create?.opts?.signal?.aborted).toBe(true);
    expect(out.result).toMatchObject({ name: 'antrea', version: '1.5.3', verdict: 'interrupted', devVersion: '1.5.4-dev.1', mode: 'bootstrap' });
    expect(out.result!.reason).toMatch(
      new RegExp(`^interrupted by SIGINT during tanzu management-cluster create \\(after \\d+s\\); the management cluster devpkg-mgmt may be there, partly made: delete it with HOME=${s.home.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} /opt/tanzu management-cluster delete devpkg-mgmt --yes$`),
    );
    expect(out.deleteCommand).toBe(`HOME=${s.home} /opt/tanzu management-cluster delete devpkg-mgmt --yes`);
    // Nothing after the create: no kubeconfig fetched, no phase waited for.
    expect(s.calls.some((c) => c.argv.includes('kubeconfig'))).toBe(false);
    expect(s.cleanup.list()).toEqual([{ kind: 'management-cluster', name: 'devpkg-mgmt', tanzu: '/opt/tanzu' }]);
  });

  test('before the create: interrupted, nothing created or recorded', async () => {
    const controller = new AbortController();
    controller.abort('SIGTERM');
    const s = await setUp(controller.signal, () => undefined);
    const out = await createAndVerify(s.o, s.p);
    expect(out.result).toMatchObject({ verdict: 'interrupted', reason: 'interrupted by SIGTERM before tanzu management-cluster create; no cluster was created' });
    expect(s.calls).toEqual([]);
    expect(s.cleanup.list()).toEqual([]);
  });
});

describe('a signal during the push of a bootstrap', () => {
  test('the push command is stopped with the signal; runBootstrap ends interrupted, before any cluster, providers untouched', async () => {
    const dir = await tempDir();
    const example = resolve('examples/tce-packages');
    const loaded = await loadPackage(example, 'addons/packages', 'antrea', '1.5.3');
    const controller = new AbortController();
    const calls: Array<{ argv: string[]; opts?: ExecOptions }> = [];
    // The push command (bash -c ...) runs until the signal, then ends as a SIGTERMed process does.
    const exec: ExecFn = async (cmd, args, opts) => {
      calls.push({ argv: [cmd, ...args], opts });
      if (cmd === 'bash') {
        controller.abort('SIGTERM');
        await new Promise<void>((r) => (opts?.signal?.aborted ? r() : opts?.signal?.addEventListener('abort', () => r())));
        return { code: 143, stdout: '', stderr: '' };
      }
      return { code: 1, stdout: '', stderr: 'not a git repository' };
    };
    // A registry that answers its API check (the push command is what never finishes).
    const server = createServer((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end('{}');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const port = (server.address() as AddressInfo).port;
    const cleanup = new CleanupList();
    const home = join(dir, 'home');
    const o: BootstrapOptions = {
      loaded,
      folders: bootstrapFolders(loaded, example),
      refName: 'antrea.tanzu.vmware.com',
      registry: { host: `127.0.0.1:${port}`, path: 'devpkg' },
      pushCommand: 'make push-bundle',
      seq: { timestamp: new Date('2026-12-05T08:00:00Z') },
      tanzuPath: '/opt/tanzu',
      yttPath: '/opt/ytt',
      paths: { tanzuDir: join(home, '.config/tanzu'), providersDir: join(home, '.config/tanzu/tkg/providers'), home },
      bootstrapTimeoutMs: 60_000,
      timeoutMs: 60_000,
      settleMs: 0,
      workDir: join(dir, 'work'),
      cleanup,
      signal: controller.signal,
      exec,
    };
    const err = await runBootstrap(o)
      .then(() => undefined, (e: unknown) => e)
      .finally(() => server.close());
    expect(err).toBeInstanceOf(InterruptedError);
    expect((err as Error).message).toBe('interrupted by SIGTERM while the bundle was pushed; no cluster was created');
    // The push command got the run's signal (its process group is stopped with it); nothing ran after it.
    const push = calls.find((c) => c.argv[0] === 'bash');
    expect(push?.opts?.signal?.aborted).toBe(true);
    expect(calls[calls.length - 1]).toBe(push);
    expect(calls.some((c) => c.argv[0] === '/opt/tanzu' || c.argv[0] === '/opt/ytt')).toBe(false);
    expect(cleanup.list()).toEqual([]);
    expect(existsSync(home)).toBe(false);
    // Before the fix the push was not given the signal: it ran on (here: forever), so this test times out.
  }, 20_000);
});

describe('cleanupInterrupted', () => {
  test('the providers folder is restored; the clusters stay in the state file, each with its delete command', async () => {
    const dir = await tempDir();
    const providers = join(dir, 'providers');
    await mkdir(join(providers, 'ytt'), { recursive: true });
    await writeFile(join(providers, 'ytt', 'base.yaml'), 'original\n');
    const backupDir = join(dir, 'backup');
    const b = await ProvidersBackup.start(backupDir, providers);
    await b.writeFile('ytt/base.yaml', 'edited\n');
    await b.writeFile('ytt/04_user_customizations/antrea_dev_package.yaml', 'dev\n');
    const scratch = join(dir, 'scratch');
    await mkdir(scratch);
    const state = join(dir, 'devpkg-cleanup.json');
    const items = [
      { kind: 'providers-backup' as const, backupDir, providersDir: providers },
      { kind: 'temp-dir' as const, path: scratch },
      { kind: 'kind-cluster' as const, name: 'tkg-kind-abc' },
      { kind: 'docker-container' as const, name: 'devpkg-mgmt-lb' },
      { kind: 'management-cluster' as const, name: 'devpkg-mgmt', tanzu: '/opt/tanzu' },
    ];
    const calls: string[][] = [];
    const exec: ExecFn = async (cmd, args) => (calls.push([cmd, ...args]), { code: 0, stdout: '', stderr: '' });
    const logs: string[] = [];
    const left = await cleanupInterrupted(items, exec, '/home/u', { info: (m) => logs.push(m), warning: (m) => logs.push(`warning: ${m}`) }, state);

    expect(await readFile(join(providers, 'ytt', 'base.yaml'), 'utf8')).toBe('original\n');
    expect(existsSync(join(providers, 'ytt', '04_user_customizations'))).toBe(false);
    expect(existsSync(scratch)).toBe(false);
    // Nothing slow was run: no cluster or container was deleted.
    expect(calls).toEqual([]);
    expect(await readState(state)).toEqual(items.slice(2));
    expect(left).toEqual([
      'kind cluster tkg-kind-abc: kind delete cluster --name tkg-kind-abc',
      'container devpkg-mgmt-lb: docker rm -f devpkg-mgmt-lb',
      'management cluster devpkg-mgmt: HOME=/home/u /opt/tanzu management-cluster delete devpkg-mgmt --yes',
    ]);
  });
});
