/**
 * runCleanup undoes newest first, and removes at once what does not depend on anything else being
 * gone: a kind cluster and the registry container; their network after them, folders last.
 */
import { describe, expect, test } from '@jest/globals';
import { mkdtempSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cleanupWaves, runCleanup, type CleanupItem } from './cleanup.js';
import type { ExecFn } from './tools/exec.js';

const cluster = (name: string): CleanupItem => ({ kind: 'kind-cluster', name, kubeconfig: `/tmp/${name}/kubeconfig` });
const container = (name: string): CleanupItem => ({ kind: 'docker-container', name });
const network = (name: string): CleanupItem => ({ kind: 'docker-network', name });
const folder = (path: string): CleanupItem => ({ kind: 'temp-dir', path });
const names = (waves: CleanupItem[][]): string[][] => waves.map((w) => w.map((i) => ('name' in i ? i.name : 'path' in i ? i.path : i.kind)));

describe('cleanupWaves', () => {
  test.each<[string, CleanupItem[], string[][]]>([
    // As kind mode records them, newest first: the registry and the cluster started at once.
    ['kind mode: cluster and registry together, then the network, then the folder', [cluster('c'), container('r'), network('n'), folder('/t')], [['c', 'r'], ['n'], ['/t']]],
    ['the other order of the same', [container('r'), cluster('c'), network('n'), folder('/t')], [['r', 'c'], ['n'], ['/t']]],
    ['two clusters (a sweep of two runs): one per wave, containers with either', [cluster('c1'), container('r1'), cluster('c2'), container('r2')], [['c1', 'r1'], ['c2', 'r2']]],
    ['a network between them keeps them apart', [container('r1'), network('n'), container('r2')], [['r1'], ['n'], ['r2']]],
    [
      'objects in the cluster go before it, one at a time',
      [
        { kind: 'kubernetes-object', apiVersion: 'v1', objectKind: 'ConfigMap', namespace: 'ns', name: 'a' },
        { kind: 'kubernetes-object', apiVersion: 'v1', objectKind: 'ConfigMap', namespace: 'ns', name: 'b' },
        cluster('c'),
      ],
      [['a'], ['b'], ['c']],
    ],
    ['nothing', [], []],
  ])('%s', (_n, items, want) => expect(names(cleanupWaves(items))).toEqual(want));
});

describe('runCleanup', () => {
  test('the cluster and the registry are removed at once; the network only once both are gone; the folder last; each said', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'devpkg-cleanup-'));
    const events: string[] = [];
    const running = new Set<string>();
    const exec: ExecFn = async (cmd, args) => {
      const what = `${cmd} ${args.slice(0, 2).join(' ')}`;
      events.push(`start ${what}${running.size ? ` (while ${[...running].join(', ')})` : ''}`);
      running.add(what);
      await new Promise((r) => setTimeout(r, 30));
      running.delete(what);
      return { code: 0, stdout: '', stderr: '' };
    };
    const info: string[] = [];
    // Recorded oldest first, as kind mode does.
    await runCleanup([folder(dir), network('n'), container('r'), cluster('c')], exec, { info: (m) => info.push(m), warning: (m) => info.push(`warning: ${m}`) });
    expect(events).toEqual(['start kind delete cluster', 'start docker rm -f (while kind delete cluster)', 'start docker network rm']);
    expect(existsSync(dir)).toBe(false);
    expect(info.filter((m) => m.startsWith('cleaned up'))).toEqual(expect.arrayContaining(['cleaned up kind cluster c', 'cleaned up container r', 'cleaned up network n', `cleaned up temporary folder ${dir}`]));
    expect(info.at(-1)).toBe(`cleaned up temporary folder ${dir}`);
  });

  test('one that fails is a warning naming the command to run by hand; the others in its wave still go', async () => {
    const exec: ExecFn = async (cmd) => (cmd === 'kind' ? { code: 1, stdout: '', stderr: 'ERROR: failed to delete cluster "c": permission denied' } : { code: 0, stdout: '', stderr: '' });
    const info: string[] = [];
    await runCleanup([container('r'), cluster('c')], exec, { info: (m) => info.push(m), warning: (m) => info.push(`warning: ${m}`) });
    expect(info).toContain('cleaned up container r');
    expect(info.find((m) => m.startsWith('warning:'))).toMatch(/^warning: could not clean up kind cluster c: kind delete exited 1: ERROR: failed to delete cluster "c": permission denied; remove it with: kind delete cluster --name c$/);
  });
});
