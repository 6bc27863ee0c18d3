import { describe, expect, test } from '@jest/globals';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UsageError } from '../errors.js';
import type { CliIO } from './io.js';
import { booleans, CLUSTER_VERDICT_FLAGS, clusterVerdictSettings, DEFAULT_DIAGNOSTICS_DIR, strings } from './options.js';

function io(cwd = '/'): CliIO & { out: string } {
  const r = { out: '', stdout: (t: string) => (r.out += t), stderr: () => undefined, env: {}, cwd };
  return r;
}

describe('flag tables from names', () => {
  test('strings and booleans give util.parseArgs entries', () => {
    expect({ ...strings('repo', 'packages-dir'), ...booleans('json') }).toEqual({
      repo: { type: 'string' },
      'packages-dir': { type: 'string' },
      json: { type: 'boolean' },
    });
  });
  test('the cluster verdict group holds the waits, --json and what a verdict on a cluster needs', () => {
    expect(Object.keys(CLUSTER_VERDICT_FLAGS).sort()).toEqual(['assert', 'diagnostics', 'json', 'kubeconfig', 'settle', 'timeout']);
  });
});

describe('clusterVerdictSettings', () => {
  test('defaults: 60s settle, 10m timeout, diagnostics outside the work tree, no assertions; nothing is created', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'devpkg-opts-'));
    try {
      expect(await clusterVerdictSettings({}, io(dir))).toEqual({
        settleMs: 60_000,
        timeoutMs: 600_000,
        diagnosticsDir: join(tmpdir(), 'devpkg-diagnostics'),
        assertions: [],
      });
      expect(DEFAULT_DIAGNOSTICS_DIR).toBe(join(tmpdir(), 'devpkg-diagnostics'));
      await expect(stat(join(dir, 'devpkg-diagnostics'))).rejects.toThrow(/ENOENT/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
  test('reads the assertions file relative to the working folder', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'devpkg-opts-'));
    try {
      await writeFile(join(dir, 'a.yaml'), '- kind: Deployment\n  namespace: kube-system\n  name: antrea-controller\n  path: spec.replicas\n  equals: 1\n');
      const s = await clusterVerdictSettings({ assert: 'a.yaml', settle: '0', timeout: '1m', diagnostics: 'diag' }, io(dir));
      expect(s).toMatchObject({ settleMs: 0, timeoutMs: 60_000, diagnosticsDir: join(dir, 'diag') });
      expect(s.assertions).toHaveLength(1);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
  test.each<[Record<string, string>, RegExp]>([
    [{ settle: 'soon' }, /--settle: "soon" is not a duration/],
    [{ settle: '20m' }, /--settle 20m is longer than --timeout 10m/],
    [{ diagnostics: '/proc/x/y' }, /^--diagnostics: cannot create \/proc\/x\/y/],
  ])('%j is a usage error naming the flag', async (values, msg) => {
    await expect(clusterVerdictSettings(values, io())).rejects.toThrow(msg);
    await expect(clusterVerdictSettings(values, io())).rejects.toBeInstanceOf(UsageError);
  });
});
