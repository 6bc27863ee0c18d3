import { describe, expect, test } from '@jest/globals';
import type { CleanupItem } from '../cleanup.js';
import type { ExecFn } from '../tools/exec.js';
import { cleanupClusterItem, cleanupCommand } from './cleanup.js';

describe('cleanupCommand', () => {
  test.each<[CleanupItem, string, string[]]>([
    [{ kind: 'kind-cluster', name: 'devpkg' }, 'kind', ['delete', 'cluster', '--name', 'devpkg']],
    // The binary that created the cluster (the tool cache's), not whatever kind is on PATH.
    [
      { kind: 'kind-cluster', name: 'devpkg', binary: '/opt/hostedtoolcache/kind/0.33.0/x64/kind' },
      '/opt/hostedtoolcache/kind/0.33.0/x64/kind',
      ['delete', 'cluster', '--name', 'devpkg'],
    ],
    [{ kind: 'docker-container', name: 'devpkg-registry' }, 'docker', ['rm', '-f', 'devpkg-registry']],
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
    expect(f.calls).toEqual([['docker', 'rm', '-f', 'r']]);
  });
  test('already gone is fine', async () => {
    await expect(cleanupClusterItem({ kind: 'docker-container', name: 'r' }, fake(1, 'Error: No such container: r').exec, () => undefined)).resolves.toBeUndefined();
  });
  test('other failures throw (the caller warns)', async () => {
    await expect(cleanupClusterItem({ kind: 'kind-cluster', name: 'd' }, fake(1, 'boom').exec, () => undefined)).rejects.toThrow(/kind delete exited 1: boom/);
  });
});
