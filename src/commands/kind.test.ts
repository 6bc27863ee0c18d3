import { describe, expect, test } from '@jest/globals';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { execFileSync } from 'node:child_process';
import { failingKindTools } from '../../test/support/kind-tools.js';
import { DevpkgError } from '../errors.js';
import { run } from './kind.js';

function workspace() {
  const work = mkdtempSync(join(tmpdir(), 'devpkg-kindcli-'));
  const repo = join(work, 'repo');
  cpSync(resolve('examples/tce-packages'), repo, { recursive: true });
  writeFileSync(join(repo, 'kc.yml'), 'apiVersion: v1\nkind: Namespace\nmetadata: {name: kapp-controller}\n');
  execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: repo });
  return { work, repo };
}

/** kind and docker answer; `kind create` fails (or calls `during` first). */
const tools = (during?: () => void) => failingKindTools('ERROR: failed to create cluster: node image not found\n', during);

const io = (cwd: string) => {
  const out = { stdout: '', stderr: '' };
  return { out, io: { stdout: (t: string) => void (out.stdout += t), stderr: (t: string) => void (out.stderr += t), env: {}, cwd } };
};
const noSignals = () => () => undefined;
const ARGS = ['--packages', 'calico/3.22.1', '--kapp-controller-manifest', 'kc.yml', '--push-command', 'true', '--kind-node-image', 'bad/node:v0'];

describe('devpkg kind', () => {
  test('setup failing: exit 1, the error result printed and in --results-dir, the cluster deleted at exit', async () => {
    const { work, repo } = workspace();
    try {
      const t = tools();
      const { out, io: cli } = io(repo);
      const code = await run([...ARGS, '--results-dir', join(work, 'out')], cli, { exec: t.exec, onSignal: noSignals });
      expect(code).toBe(1);
      expect(out.stdout).toMatch(/calico/);
      expect(out.stdout).toMatch(/kind setup failed: kind cluster: kind create cluster devpkg-\w+-1 failed/);
      const doc = JSON.parse(readFileSync(join(work, 'out', 'results.json'), 'utf8')) as { results: Array<{ verdict: string }> };
      expect(doc.results.map((r) => r.verdict)).toEqual(['error']);
      expect(t.calls.filter((c) => c[1] === 'delete')).toEqual([['kind', 'delete', 'cluster', '--name', expect.stringMatching(/^devpkg-/), '--kubeconfig', expect.any(String)]]);
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });

  test('--keep: the cluster is not deleted; says how to delete it; its temp folder goes', async () => {
    const keptBefore = new Set(readdirSync(tmpdir()));
    const { work, repo } = workspace();
    try {
      const t = tools();
      const { out, io: cli } = io(repo);
      await run([...ARGS, '--results-dir', join(work, 'out'), '--keep'], cli, { exec: t.exec, onSignal: noSignals });
      expect(t.calls.some((c) => c[1] === 'delete')).toBe(false);
      // The registry container started next to the cluster is kept too.
      expect(out.stderr).toMatch(/--keep: left kind cluster (devpkg-\S+), container \1-registry, network \1; delete them with: kind delete cluster --name \1; docker rm -f -v \1-registry; docker network rm \1\n/);
      // Labelled as kept: a later run's start leaves them alone.
      expect(t.calls.find((c) => c[1] === 'network' && c[2] === 'create')).toContain('dev.devpkg.run.keep=true');
      expect(t.calls.find((c) => c[1] === 'run')).toContain('dev.devpkg.run.keep=true');
      // The cluster's folder (kubeconfig, config, build scratch) is not kept: `kind get kubeconfig` gives the kubeconfig.
      expect(readdirSync(tmpdir()).filter((d) => d.startsWith('devpkg-kind-') && !keptBefore.has(d))).toEqual([]);
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });

  test('SIGINT during the run: interrupted results written, the cluster deleted, no temp folder left, exit 130', async () => {
    const scratchBefore = new Set(readdirSync(tmpdir()).filter((d) => d.startsWith('devpkg-kind-cli-')));
    const { work, repo } = workspace();
    try {
      const handlers: Record<string, () => void> = {};
      const exits: number[] = [];
      const t = tools(() => handlers.SIGINT?.());
      const { out, io: cli } = io(repo);
      const code = await run([...ARGS, '--results-dir', join(work, 'out')], cli, {
        exec: t.exec,
        onSignal: (s, h) => ((handlers[s] = h), () => void delete handlers[s]),
        exit: (c) => void exits.push(c),
      });
      expect(code).toBe(130);
      expect(exits).toEqual([]);
      expect(out.stderr).toMatch(/SIGINT: stopping the wait; writing the result/);
      const doc = JSON.parse(readFileSync(join(work, 'out', 'results.json'), 'utf8')) as { results: Array<{ verdict: string; reason: string }> };
      expect(doc.results.map((r) => [r.verdict, r.reason])).toEqual([['interrupted', 'interrupted by SIGINT while the kind cluster was set up; nothing was applied']]);
      expect(out.stdout).toMatch(/calico\/3\.22\.1: INTERRUPTED/);
      expect(t.calls.some((c) => c[0] === 'kind' && c[1] === 'delete')).toBe(true);
      expect(readdirSync(tmpdir()).filter((d) => d.startsWith('devpkg-kind-cli-') && !scratchBefore.has(d))).toEqual([]);
      // The handlers are gone once the run ended.
      expect(Object.keys(handlers)).toEqual([]);
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });

  test('a second SIGINT: deletes what was created and exits 130 at once, no temp folder left', async () => {
    const scratchBefore = new Set(readdirSync(tmpdir()).filter((d) => d.startsWith('devpkg-kind-cli-')));
    const { work, repo } = workspace();
    try {
      const handlers: Record<string, () => void> = {};
      let exited!: (c: number) => void;
      const exitCode = new Promise<number>((r) => (exited = r));
      const t = tools(() => (handlers.SIGINT?.(), handlers.SIGINT?.()));
      const { io: cli } = io(repo);
      const running = run([...ARGS, '--results-dir', join(work, 'out')], cli, {
        exec: t.exec,
        onSignal: (s, h) => ((handlers[s] = h), () => undefined),
        exit: exited,
      });
      expect(await exitCode).toBe(130);
      // (A real exit ends the process here; the stand-in lets the run finish.)
      await running;
      expect(t.calls.some((c) => c[0] === 'kind' && c[1] === 'delete')).toBe(true);
      expect(readdirSync(tmpdir()).filter((d) => d.startsWith('devpkg-kind-cli-') && !scratchBefore.has(d))).toEqual([]);
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });

  test('--kind-config is read relative to the current folder, not --repo', async () => {
    const { work, repo } = workspace();
    try {
      writeFileSync(join(work, 'mine.yaml'), 'kind: Pod\napiVersion: v1\n');
      const t = tools();
      const { out, io: cli } = io(work);
      const err = await run(['--repo', repo, ...ARGS.map((a) => (a === 'kc.yml' ? join(repo, 'kc.yml') : a)), '--kind-config', 'mine.yaml', '--results-dir', join(work, 'out')], cli, { exec: t.exec, onSignal: noSignals }).catch((e: DevpkgError) => e);
      expect([(err as DevpkgError).exitCode, (err as DevpkgError).message]).toEqual([2, expect.stringContaining(`kind-config ${join(work, 'mine.yaml')}: kind "Pod"`)]);
      expect(out.stdout).toBe('');
      expect(t.calls).toEqual([]);
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });

  test('nothing to test is a usage error', async () => {
    const { io: cli } = io(tmpdir());
    await expect(run([], cli, { onSignal: noSignals })).rejects.toThrow('give --base REF (the diff to test), --packages NAME/VERSION,... or --all');
  });

  test('--packages is a list of NAME/VERSION, named as the flag', async () => {
    const { io: cli } = io(tmpdir());
    await expect(run(['--packages', 'antrea/1.5.3,\ncalico'], cli, { onSignal: noSignals })).rejects.toThrow(/^--packages: "calico" is not NAME\/VERSION \(e\.g\. antrea\/1\.5\.3\)$/);
  });

  test('registry-style flags do not exist here', async () => {
    const { io: cli } = io(tmpdir());
    await expect(run(['--registry', 'ghcr.io/x'], cli)).rejects.toThrow(/^unknown flag --registry; devpkg kind --help lists the flags$/);
    expect(existsSync(join(tmpdir(), 'devpkg-results'))).toBe(false);
  });
});
