// One dev plan for every mode (issue 19): the drift cases between plan, the cluster pipeline
// (devpkg dev, the cluster and kind modes) and bootstrap. Each mode is run through its own entry
// (plan(), runDevPipeline, runBootstrap) on the example repository; nothing is pushed or applied.
import { afterAll, describe, expect, test } from '@jest/globals';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { bootstrapFolders, runBootstrap, type BootstrapOptions } from '../../src/bootstrap/run.js';
import { CleanupList } from '../../src/cleanup-list.js';
import type { ClusterClient } from '../../src/cluster/client.js';
import { runDevPipeline } from '../../src/cluster/dev.js';
import { UsageError } from '../../src/errors.js';
import { bundleOfLoaded, loadPackage } from '../support/load-package.js';
import { parseRefNameMap } from '../../src/packages/refname.js';
import { plan } from '../../src/pipeline/plan.js';
import type { ExecFn } from '../../src/tools/exec.js';
import type { KObject } from '../../src/verify/evaluate.js';

const EXAMPLE = resolve('examples/tce-packages');
const REF = 'antrea.tanzu.vmware.com';
const registry = { host: 'localhost:5001', path: 'devpkg' };
const seq = { timestamp: new Date('2026-12-02T08:00:00Z') };
const LOSES =
  'dev-version 1.5.3 does not outrank 1.5.3, the highest antrea version in play; kapp-controller would keep 1.5.3. ' +
  'Give a higher dev-version, or leave it empty and devpkg chooses one';

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** Every program run is recorded and refused: a refused plan must not get as far as running one. */
function recordingExec(): { exec: ExecFn; calls: string[] } {
  const calls: string[] = [];
  const exec: ExecFn = async (cmd, args) => {
    calls.push([cmd, ...args].join(' '));
    throw new Error(`${cmd}: not available in this test`);
  };
  return { exec, calls };
}

/** A cluster holding the released antrea 1.5.3, installed by an addons-manager-like PackageInstall. */
function fakeCluster(): { client: ClusterClient; applied: KObject[] } {
  const applied: KObject[] = [];
  const pkgi: KObject = {
    metadata: { namespace: 'tkg-system', name: 'antrea' },
    spec: { packageRef: { refName: REF, versionSelection: { prereleases: {} } } },
    status: { version: '1.5.3', lastAttemptedVersion: '1.5.3' },
  };
  const client = {
    listPackageInstalls: async () => [pkgi],
    readPackageInstall: async () => pkgi,
    listPackages: async () => [{ metadata: { namespace: 'tkg-system', name: `${REF}.1.5.3` }, spec: { refName: REF, version: '1.5.3' } }],
    apply: async (o: KObject) => {
      applied.push(o);
      return o;
    },
  } as unknown as ClusterClient;
  return { client, applied };
}

async function planMode(devVersion?: string) {
  return plan({ root: EXAMPLE, packagesDir: 'addons/packages', selection: { kind: 'explicit', packages: ['antrea/1.5.3'] }, registry, refName: '', seq, devVersion });
}

async function clusterPipeline(devVersion?: string) {
  const { client, applied } = fakeCluster();
  const { exec, calls } = recordingExec();
  const loaded = await loadPackage(EXAMPLE, 'addons/packages', 'antrea', '1.5.3');
  const run = runDevPipeline({
    client,
    root: EXAMPLE,
    loaded,
    bundle: await bundleOfLoaded(loaded, EXAMPLE),
    packageCount: 1,
    refNames: parseRefNameMap(`antrea.community.tanzu.vmware.com=${REF}`),
    registry,
    seq,
    devVersion,
    mode: 'cluster',
    exec,
  });
  return { run, applied, calls };
}

/** runBootstrap --prepare-only with a pushed bundle; logs what it says, runs nothing real. */
async function bootstrap(devVersion?: string) {
  const dir = mkdtempSync(join(tmpdir(), 'devpkg-devplan-'));
  dirs.push(dir);
  const loaded = await loadPackage(EXAMPLE, 'addons/packages', 'antrea', '1.5.3');
  const { exec, calls } = recordingExec();
  const logs: string[] = [];
  const workDir = join(dir, 'work');
  const o: BootstrapOptions = {
    loaded,
    folders: bootstrapFolders(loaded, EXAMPLE),
    refName: REF,
    image: `localhost:5001/devpkg/antrea-bundle@sha256:${'a'.repeat(64)}`,
    devVersion,
    seq,
    tanzuPath: join(dir, 'no-tanzu'),
    yttPath: join(dir, 'no-ytt'),
    dryRunWithYtt: true,
    paths: { tanzuDir: join(dir, 'home/.config/tanzu'), providersDir: join(dir, 'home/.config/tanzu/tkg/providers'), home: join(dir, 'home') },
    prepareOnly: true,
    bootstrapTimeoutMs: 60_000,
    timeoutMs: 60_000,
    settleMs: 0,
    workDir,
    cleanup: new CleanupList(),
    exec,
    log: (m) => logs.push(m),
  };
  const run = runBootstrap(o);
  return { run, logs, calls, workDir, home: o.paths.home! };
}

async function refusal(p: Promise<unknown>): Promise<Error> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(UsageError);
  return err as Error;
}

describe('a forced dev version that would lose is refused in every mode, with the same message', () => {
  test('plan', async () => {
    expect((await refusal(planMode('1.5.3'))).message).toBe(LOSES);
  });

  test('the cluster pipeline (devpkg dev, the cluster and kind modes): nothing pushed or applied', async () => {
    const { run, applied, calls } = await clusterPipeline('1.5.3');
    expect((await refusal(run)).message).toBe(LOSES);
    expect(calls).toEqual([]);
    expect(applied).toEqual([]);
  });

  test('bootstrap: refused before anything is written', async () => {
    const { run, calls, workDir, home } = await bootstrap('1.5.3');
    expect((await refusal(run)).message).toBe(LOSES);
    expect(calls).toEqual([]);
    expect(existsSync(workDir)).toBe(false);
    expect(existsSync(home)).toBe(false);
  });
});

describe('bootstrap plans as plan does', () => {
  test('a forced dev version that cannot be an OCI tag is refused (no hand-made tag)', async () => {
    const { run, calls } = await bootstrap(`1.5.4+${'a'.repeat(130)}`);
    await expect(run).rejects.toThrow(/cannot be an OCI tag .*at most 128/);
    expect(calls).toEqual([]);
  });

  test('the dev version bootstrap uses is the one plan shows for the same run', async () => {
    const shown = (await planMode()).packages[0]!;
    const { run, logs } = await bootstrap();
    await run.catch(() => undefined); // stops at the first program (ytt), after planning
    expect(shown.devVersion).toMatch(/^1\.5\.4-dev\.20261202080000$/);
    expect(logs[0]).toBe(`dev version ${shown.devVersion}: ${shown.plan?.devVersionReason}`);
  });
});
