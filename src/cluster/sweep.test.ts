import { describe, expect, test } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Docker } from '../tools/docker.js';
import type { ExecFn } from '../tools/exec.js';
import { ownerLabels, type RunOwner } from './leftovers.js';
import { currentOwner, probeProcess, sweepLeftovers, writeOwnerFile } from './sweep.js';

/** A pid that was alive a moment ago and is not now. */
function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
  return Number(r.stdout.toString());
}

describe('probeProcess and currentOwner', () => {
  test('this process is alive, with the start time its owner record holds', async () => {
    const me = await currentOwner({ local: true, now: new Date('2026-12-05T08:00:00Z') });
    expect(me).toMatchObject({ host: hostname(), pid: process.pid, startedAt: '2026-12-05T08:00:00.000Z' });
    const probe = await probeProcess(process.pid);
    expect(probe.alive).toBe(true);
    if (process.platform === 'linux') expect(probe).toEqual({ alive: true, start: me.pidStart });
  });
  test("the action's owner is the job's runner process (main's parent), which outlives main until the post step", async () => {
    expect((await currentOwner({ local: false, github: 'acme/pkgs run 1 attempt 1' })).pid).toBe(process.ppid);
  });
  test('an exited process is gone', async () => expect(await probeProcess(deadPid())).toEqual({ alive: false }));
});

describe('sweepLeftovers', () => {
  const setup = () => {
    const tmp = mkdtempSync(join(tmpdir(), 'devpkg-sweep-test-'));
    const gone: RunOwner = { host: hostname(), pid: deadPid(), startedAt: '2026-12-05T07:00:00.000Z' };
    return { tmp, gone };
  };
  /** docker with a gone run's cluster, registry and network, a live run's (this process), and a cluster of the user's. */
  const fakeDocker = (gone: RunOwner, live: RunOwner, o: { rmFails?: boolean } = {}) => {
    const calls: string[][] = [];
    const inspect = (names: string[], all: Record<string, Record<string, string>>, container: boolean) =>
      JSON.stringify(names.map((n) => (container ? { Name: `/${n}`, Config: { Labels: all[n] } } : { Name: n, Labels: all[n] })));
    const containers = { 'devpkg-gone-1-registry': ownerLabels(gone, 'devpkg-gone-1'), 'devpkg-live-1-registry': ownerLabels(live, 'devpkg-live-1') };
    const networks = { 'devpkg-gone-1': ownerLabels(gone, 'devpkg-gone-1'), 'devpkg-live-1': ownerLabels(live, 'devpkg-live-1') };
    const exec: ExecFn = async (_cmd, args) => {
      calls.push([...args]);
      const a = args.join(' ');
      if (a.startsWith('version')) return { code: 0, stdout: '20.10.24\n', stderr: '' };
      if (a.startsWith('ps -a --filter label=dev.devpkg.cluster')) return { code: 0, stdout: `${Object.keys(containers).join('\n')}\n`, stderr: '' };
      if (a.startsWith('ps -a --filter label=io.x-k8s.kind.cluster'))
        return { code: 0, stdout: 'devpkg-gone-1-control-plane\tdevpkg-gone-1\ndevpkg-live-1-control-plane\tdevpkg-live-1\nkind-control-plane\tkind\n', stderr: '' };
      if (a.startsWith('container inspect')) return { code: 0, stdout: inspect(args.slice(2), containers, true), stderr: '' };
      if (a.startsWith('network ls')) return { code: 0, stdout: `${Object.keys(networks).join('\n')}\n`, stderr: '' };
      if (a.startsWith('network inspect')) return { code: 0, stdout: inspect(args.slice(2), networks, false), stderr: '' };
      if (o.rmFails && args[0] === 'rm') return { code: 1, stdout: '', stderr: 'Error response from daemon: removal of container in progress' };
      return { code: 0, stdout: '', stderr: '' };
    };
    return { exec, calls };
  };

  test("removes a gone run's things (containers, then its network, then its folders), says so, and leaves a live run's alone", async () => {
    const { tmp, gone } = setup();
    try {
      const live = await currentOwner({ local: true });
      const other: RunOwner = { ...live, pid: process.ppid, pidStart: (await probeProcess(process.ppid)).alive ? ((await probeProcess(process.ppid)) as { start?: string }).start : undefined };
      const goneDir = join(tmp, 'devpkg-kind-cluster-gone');
      const liveDir = join(tmp, 'devpkg-kind-cli-live');
      const bare = join(tmp, 'devpkg-kind-cli-bare');
      for (const d of [goneDir, liveDir, bare, join(tmp, 'devpkg-other')]) mkdirSync(d);
      await writeOwnerFile(goneDir, gone, 'devpkg-gone-1');
      await writeOwnerFile(liveDir, other);
      const d = fakeDocker(gone, other);
      const logs: string[] = [];
      const warnings: string[] = [];
      const r = await sweepLeftovers({ docker: await Docker.create(d.exec), exec: d.exec, self: live, log: (m) => logs.push(m), warning: (m) => warnings.push(m), tmp });
      expect(r).toEqual({ removed: 1, kept: 1 });
      expect(d.calls.filter((c) => c[0] === 'rm' || (c[0] === 'network' && c[1] === 'rm'))).toEqual([
        ['rm', '-f', '-v', 'devpkg-gone-1-control-plane'],
        ['rm', '-f', '-v', 'devpkg-gone-1-registry'],
        ['network', 'rm', 'devpkg-gone-1'],
      ]);
      expect(existsSync(goneDir)).toBe(false);
      expect([liveDir, bare, join(tmp, 'devpkg-other')].map(existsSync)).toEqual([true, true, true]);
      expect(logs.find((l) => l.startsWith('removing'))).toBe(
        `removing what a devpkg run on ${gone.host} pid ${gone.pid} started 2026-12-05T07:00:00.000Z left (its process is gone): kind cluster devpkg-gone-1 (node devpkg-gone-1-control-plane), container devpkg-gone-1-registry, network devpkg-gone-1, folder ${goneDir}`,
      );
      expect(logs).toContain('cleaned up network devpkg-gone-1');
      expect(logs.find((l) => l.startsWith('left alone'))).toMatch(/^left alone: kind cluster devpkg-live-1 .*container devpkg-live-1-registry, network devpkg-live-1, folder .*devpkg-kind-cli-live, of a devpkg run on .* pid \d+ .*that is still running$/);
      expect(warnings).toEqual([]);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });

  test('what cannot be removed is named with the command that removes it; the sweep never throws', async () => {
    const { tmp, gone } = setup();
    try {
      const live = await currentOwner({ local: true });
      const d = fakeDocker(gone, live, { rmFails: true });
      const warnings: string[] = [];
      await sweepLeftovers({ docker: await Docker.create(d.exec), exec: d.exec, self: live, log: () => undefined, warning: (m) => warnings.push(m), tmp });
      expect(warnings).toContain('could not clean up container devpkg-gone-1-registry: docker rm exited 1: Error response from daemon: removal of container in progress; remove it with: docker rm -f -v devpkg-gone-1-registry');
      const broken: ExecFn = async (_c, args) => (args[0] === 'version' ? { code: 0, stdout: '1\n', stderr: '' } : { code: 1, stdout: '', stderr: 'Cannot connect to the Docker daemon' });
      const w2: string[] = [];
      expect(await sweepLeftovers({ docker: await Docker.create(broken), exec: broken, self: live, log: () => undefined, warning: (m) => w2.push(m), tmp })).toEqual({ removed: 0, kept: 0 });
      expect(w2[0]).toMatch(/^could not look for what earlier devpkg runs left: docker (ps|network ls) .* failed \(exit 1\): Cannot connect to the Docker daemon/);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });
});
