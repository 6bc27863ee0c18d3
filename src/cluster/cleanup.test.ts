import { describe, expect, test } from '@jest/globals';
import type { CleanupItem } from '../cleanup.js';
import type { ExecFn } from '../tools/exec.js';
import { cleanupClusterItem, cleanupCommand, handCommand } from './cleanup.js';

describe('cleanupCommand', () => {
  test.each<[CleanupItem, string, string[]]>([
    [{ kind: 'kind-cluster', name: 'devpkg' }, 'kind', ['delete', 'cluster', '--name', 'devpkg']],
    // The binary that created the cluster (the tool cache's), not whatever kind is on PATH.
    [
      { kind: 'kind-cluster', name: 'devpkg', binary: '/opt/hostedtoolcache/kind/0.33.0/x64/kind' },
      '/opt/hostedtoolcache/kind/0.33.0/x64/kind',
      ['delete', 'cluster', '--name', 'devpkg'],
    ],
    [{ kind: 'docker-container', name: 'devpkg-registry' }, 'docker', ['rm', '-f', '-v', 'devpkg-registry']],
    [{ kind: 'docker-network', name: 'devpkg-x-1' }, 'docker', ['network', 'rm', 'devpkg-x-1']],
    [{ kind: 'docker-network-disconnect', network: 'kind', container: 'r' }, 'docker', ['network', 'disconnect', '--force', 'kind', 'r']],
    [
      { kind: 'kubernetes-object', kubeconfig: '/k', apiVersion: 'data.packaging.carvel.dev/v1alpha1', objectKind: 'Package', namespace: 'tkg-system', name: 'a.b.1.0.0' },
      'kubectl',
      ['--kubeconfig', '/k', 'delete', '-n', 'tkg-system', 'package.v1alpha1.data.packaging.carvel.dev/a.b.1.0.0', '--ignore-not-found', '--wait=false'],
    ],
    [{ kind: 'management-cluster', name: 'mc', tanzu: '/usr/bin/tanzu' }, '/usr/bin/tanzu', ['management-cluster', 'delete', 'mc', '--yes']],
  ])('%j', (item, cmd, args) => {
    const c = cleanupCommand(item);
    expect(c?.cmd).toBe(cmd);
    expect(c?.args).toEqual(args);
  });

  test('not a cluster item', () => expect(cleanupCommand({ kind: 'temp-dir', path: '/tmp/x' })).toBeUndefined());
});

describe('cleanupClusterItem', () => {
  const fake = (code: number, stderr: string): { exec: ExecFn; calls: string[][] } => {
    const calls: string[][] = [];
    return { calls, exec: async (cmd, args) => (calls.push([cmd, ...args]), { code, stdout: '', stderr }) };
  };
  test('runs the command', async () => {
    const f = fake(0, '');
    await cleanupClusterItem({ kind: 'docker-container', name: 'r' }, f.exec, () => undefined);
    expect(f.calls).toEqual([['docker', 'rm', '-f', '-v', 'r']]);
  });
  test('already gone is fine', async () => {
    await expect(cleanupClusterItem({ kind: 'docker-container', name: 'r' }, fake(1, 'Error: No such container: r').exec, () => undefined)).resolves.toBeUndefined();
  });
  test('other failures throw (the caller warns)', async () => {
    await expect(cleanupClusterItem({ kind: 'kind-cluster', name: 'd' }, fake(1, 'boom').exec, () => undefined)).rejects.toThrow(/kind delete exited 1: boom/);
  });
});

describe('handCommand: what a failed cleanup tells a person to run', () => {
  test.each<[CleanupItem, string | undefined]>([
    // Without devpkg's kubeconfig (in a temp folder that may be gone).
    [{ kind: 'kind-cluster', name: 'devpkg-a-1', kubeconfig: '/tmp/x/kubeconfig', binary: '/opt/kind' }, '/opt/kind delete cluster --name devpkg-a-1'],
    [{ kind: 'docker-container', name: 'devpkg-a-1-registry' }, 'docker rm -f -v devpkg-a-1-registry'],
    [{ kind: 'docker-network', name: 'devpkg-a-1' }, 'docker network rm devpkg-a-1'],
    [{ kind: 'temp-dir', path: "/tmp/it's here" }, "rm -rf '/tmp/it'\\''s here'"],
    [{ kind: 'management-cluster', name: 'mc', tanzu: 'tanzu', kubeconfig: '/k k' }, "KUBECONFIG='/k k' tanzu management-cluster delete mc --yes"],
    [{ kind: 'providers-backup', backupDir: '/b', providersDir: '/p' }, undefined],
  ])('%j', (item, want) => expect(handCommand(item)).toBe(want));
});
