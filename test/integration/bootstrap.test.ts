/**
 * Bootstrap mode end to end against the harness (real kube-apiserver, real kapp-controller, real
 * registry, real ytt/imgpkg) with phases 2 and 3 done by our stand-in tanzu-addons-manager and
 * tkr-controller-manager (test/standin/tkg-controllers: controller processes written from what the
 * real v0.25.4 ones were seen to do, docs/addons-manager.md; started by test/harness/tkg.sh,
 * `controlplane.sh up --tkg`). The stand-in tanzu CLI (test/standin/tanzu/tanzu) plays:
 * `management-cluster create` itself (phase 1's ClusterResourceSet, the management cluster's
 * objects the real CLI leaves, rendered from the real providers tree) and the TKG 2.x path. devpkg
 * prepares the providers folder, checks the dry-run, runs the create, follows the three phases on
 * the cluster's own objects with watches, and gives the verdict after phase 3.
 * - normal phase 3 (the TKGVERSION annotation, the TKR controller's conditions, the manager's
 *   re-patch): the dev version wins and holds; the phases are reported in order;
 * - an upgrade (a newer BOM tag: new TKR, the Cluster relabelled) whose repository carries a higher
 *   released version: devpkg reports the loss, the phase and the upgrade;
 * - what tanzu-addons-manager and kapp-controller can do to undo the dev Package
 *   (docs/addons-manager.md): a BOM naming another refName; an edit undone by the manager's
 *   re-patch; an upgrade whose repository takes over, then a second one that deletes, a Package of
 *   the dev Package's name; the downgradable annotation.
 * Each run cleans up (stand-in `management-cluster delete`: the controllers are stopped, providers restored).
 */
import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { pushBundle } from '../../src/bundle/push.js';
import { parseRepository } from '../../src/bundle/reference.js';
import type { PackageResult } from '../../src/results.js';
import { devpkg, STANDIN, type Workspace } from './helpers/bootstrap.js';
import { ensureHarnessCrds } from './helpers/crds.js';
import { harnessKubeConfig } from './helpers/kube.js';
import { listFiles } from '../../src/providers/files.js';
import { RecordingHost } from '../../src/action/host.js';
import { CLEANUP_STATE, CleanupList, runCleanup } from '../../src/cleanup.js';
import { parseInputs } from '../../src/inputs.js';
import { inputsFrom } from '../support/inputs.js';
import { run as runMode } from '../../src/modes/bootstrap.js';
import { execTool } from '../../src/tools/exec.js';
import { controllerLog, renderMgmtObjects, tkgPids, tkgWorkspace } from './helpers/tkg-standin.js';
import { newRunId, repoRoot } from './helpers/run.js';

const runId = newRunId();
let ws: Workspace & { standinProviders: string };
// Per-test timeouts are explicit: jest reads testTimeout only from the global config.
const T = 420_000;
let image = '';

async function tree(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const f of await listFiles(dir)) out[f] = await readFile(path.join(dir, f), 'utf8');
  return out;
}

async function packageInstallGone(): Promise<boolean> {
  const k8s = await import('@kubernetes/client-node');
  const kc = await harnessKubeConfig();
  try {
    await kc.makeApiClient(k8s.CustomObjectsApi).getNamespacedCustomObject({ group: 'packaging.carvel.dev', version: 'v1alpha1', namespace: 'tkg-system', plural: 'packageinstalls', name: 'antrea' });
    return false;
  } catch (e) {
    return (e as { code?: number }).code === 404;
  }
}

beforeAll(async () => {
  for (const v of ['KUBECONFIG', 'DEVPKG_TEST_REGISTRY', 'KAPPCTRL_NAMESPACE', 'DEVPKG_TKG_HARNESS']) {
    if (!process.env[v]) throw new Error(`${v} is not set: these tests need the harness with kapp-controller and the stand-in TKG controllers (npm run test:integration; controlplane.sh up --tkg)`);
  }
  // The ClusterResourceSet CRD the stand-in writes (the TKR and Cluster CRDs come from tkg.sh up).
  await ensureHarnessCrds(await harnessKubeConfig());
  // TKG's antrea config, edited: the package the addons manager's data values (the real providers') fit.
  ws = await tkgWorkspace('devpkg-bootstrap-it-');
  process.env.DEVPKG_STANDIN_PROVIDERS = ws.standinProviders;
  // The management cluster's addon Secret and tkr objects, rendered from the real providers tree.
  process.env.DEVPKG_STANDIN_MGMT_OBJECTS = await renderMgmtObjects(ws.dir, ws.clusterName);
  const pushed = await pushBundle({ bundleDir: path.join(ws.folder, 'bundle'), repository: parseRepository(`${process.env.DEVPKG_TEST_REGISTRY}/devpkg-it/${runId}/antrea`), tag: 'bootstrap' });
  image = pushed.image;
}, 120_000);

const SWITCHES = ['DEVPKG_STANDIN_PHASE3', 'DEVPKG_STANDIN_REFNAME', 'DEVPKG_STANDIN_DOWNGRADABLE', 'DEVPKG_STANDIN_TKG2'];

/** Runs devpkg bootstrap with stand-in switches set for this run only. */
async function withSwitches(sw: Record<string, string>, extra: string[]): Promise<{ code: number; result: PackageResult; stderr: string }> {
  for (const k of SWITCHES) delete process.env[k];
  Object.assign(process.env, sw);
  try {
    const r = await devpkg(args(extra));
    const [result] = JSON.parse(r.stdout) as PackageResult[];
    if (r.code !== 1 || !result) console.log(r.stderr.slice(-4000), r.stdout.slice(-4000));
    return { code: r.code, result: result!, stderr: r.stderr };
  } finally {
    for (const k of SWITCHES) delete process.env[k];
  }
}

afterAll(async () => {
  for (const k of SWITCHES) delete process.env[k];
  delete process.env.DEVPKG_STANDIN_MGMT_OBJECTS;
  delete process.env.DEVPKG_STANDIN_PROVIDERS;
  if (ws) await rm(ws.dir, { recursive: true, force: true });
});

let work = '';
function args(extra: string[] = []): string[] {
  work = path.join(ws.dir, `work-${Date.now()}`);
  return [
    'bootstrap', '--package', ws.folder, '--image', image, '--ref-name', 'antrea.tanzu.vmware.com', '--addon-type', 'cni/antrea',
    '--tanzu-dir', ws.tanzuDir, '--cluster-config', ws.clusterConfig, '--tanzu', STANDIN,
    '--settle', '10s', '--timeout', '150s', '--bootstrap-timeout', '5m', '--work-dir', work, '--json',
    // No docker here: the stand-in plays the cluster (the host check is unit-tested in src/bootstrap/host.test.ts).
    '--skip-host-check', ...extra,
  ];
}

test('the dev version wins after phase 3; phases reported in order; cluster and providers cleaned up', async () => {
  delete process.env.DEVPKG_STANDIN_PHASE3;
  const r = await devpkg(args(['--dev-version', '1.5.4-dev.1']));
  if (r.code !== 0) console.log(r.stderr.slice(-4000), r.stdout.slice(-4000));
  expect(r.code).toBe(0);
  const [result] = JSON.parse(r.stdout) as PackageResult[];
  expect(result).toMatchObject({ name: 'antrea', version: '1.5.3', targetRefName: 'antrea.tanzu.vmware.com', devVersion: '1.5.4-dev.1', bundle: image, mode: 'bootstrap', verdict: 'won' });
  expect(result!.reason).toMatch(/the dev version held after phase 3/);
  const names = result!.phases!.map((p) => p.name);
  expect(names).toEqual([
    'management-cluster create',
    'management cluster created',
    'phase 1: ClusterResourceSet applied the dev Package',
    "phase 2: the addons manager's PackageInstall reconciled",
    'phase 3: TKR controller and BOM in place',
    'won',
  ]);
  const at = result!.phases!.slice(2).map((p) => p.seenAt!);
  expect([...at].sort()).toEqual(at);
  // The CLI's output is streamed into devpkg's log, and its own log file is kept for the report.
  expect(r.stderr).toMatch(/tanzu: \[standin .*\] phase 2: PackageInstall tkg-system\/antrea ReconcileSucceeded with 1\.5\.4-dev\.1/);
  expect(r.stderr).toMatch(/phase 3: TKR controller and BOM in place: seen/);
  expect(r.stderr).toMatch(/tanzu-core ReconcileSucceeded/);
  const tanzuLog = await readFile(path.join(work, 'tanzu-management-cluster-create.log'), 'utf8');
  expect(tanzuLog).toMatch(/phase 1: ClusterResourceSet tkg-system\/devpkg-it-mgmt-antrea-dev-package ResourcesApplied/);
  // Phases 2 and 3 by the stand-in controllers: the TKR controller made the BOM ConfigMap and TKR
  // from the BOM image, the addons manager the tanzu-core PackageRepository (a real repository
  // bundle that kapp-controller reconciled) and the PackageInstall; TKGVERSION set the TKR Compatible.
  expect(tanzuLog).toMatch(/core package repository packages\/core\/repo:\S+ pushed with antrea\.tanzu\.vmware\.com\.1\.5\.3\+vmware\.1-tkg\.1/);
  expect(tanzuLog).toMatch(/phase 2: tkr-controller-manager \(stand-in\) created BOM ConfigMap tkr-system\/v1\.22\.9---vmware\.1-tkg\.1 and TanzuKubernetesRelease v1\.22\.9---vmware\.1-tkg\.1/);
  expect(tanzuLog).toMatch(/phase 3: TKR v1\.22\.9---vmware\.1-tkg\.1 Compatible=True \(set by tkr-controller-manager, stand-in\)/);
  // The controllers' own logs: the stand-in processes did it, from their watches and discovery.
  const tkrLog = await controllerLog('tkr-controller-standin');
  expect(tkrLog).toMatch(/created BOM ConfigMap tkr-system\/v1\.22\.9---vmware\.1-tkg\.1 from \S+\/tkr-bom:v1\.22\.9_vmware\.1-tkg\.1/);
  expect(tkrLog).toMatch(/created TanzuKubernetesRelease v1\.22\.9---vmware\.1-tkg\.1 \(v1alpha1\)/);
  expect(tkrLog).toMatch(/TanzuKubernetesRelease v1\.22\.9---vmware\.1-tkg\.1: Compatible=True/);
  const addonsLog = await controllerLog('addons-manager-standin');
  expect(addonsLog).toMatch(/cluster tkg-system\/devpkg-it-mgmt: created PackageRepository tkg-system\/tanzu-core/);
  expect(addonsLog).toMatch(/cluster tkg-system\/devpkg-it-mgmt: created PackageInstall tkg-system\/antrea/);
  // Cleanup ran: the stand-in stopped the controllers and deleted the objects, the providers folder is as populated.
  expect(await tkgPids()).toEqual({});
  expect(await packageInstallGone()).toBe(true);
  expect(await tree(ws.providersDir)).toEqual(await tree(ws.standinProviders));
}, T);

test('a TKR upgrade (a newer BOM tag: new TKR, Cluster relabelled) brings a higher released version: devpkg reports the loss, the phase and the upgrade', async () => {
  process.env.DEVPKG_STANDIN_PHASE3 = 'upgrade';
  try {
    const r = await devpkg(args(['--dev-version', '1.5.4-dev.2']));
    if (r.code !== 1) console.log(r.stderr.slice(-4000), r.stdout.slice(-4000));
    expect(r.code).toBe(1);
    const [result] = JSON.parse(r.stdout) as PackageResult[];
    expect(['not-selected', 'lost']).toContain(result!.verdict);
    expect(result!.reason).toMatch(/lost in phase 3: the dev version 1\.5\.4-dev\.2 was installed at .*, then 99\.0\.0\+vmware\.1-tkg\.1 replaced it/);
    expect(result!.reason).toMatch(
      /in phase 3 \(at [^)]+\) the addons manager re-patched PackageRepository tkg-system\/tanzu-core from \S+\/packages\/core\/repo:v1\.6\.1_vmware\.1-tkg\.1 to \S+\/packages\/core\/repo:v1\.6\.2_vmware\.2-tkg\.1: the management cluster moved to a TKR whose BOM names another core package repository \(an upgrade: TKR v1\.22\.9---vmware\.2-tkg\.1\)/,
    );
    expect(result!.phases!.map((p) => p.name)).toContain('phase 3: TKR controller and BOM in place');
    const tanzuLog = await readFile(path.join(work, 'tanzu-management-cluster-create.log'), 'utf8');
    expect(tanzuLog).toMatch(/phase 3: tkr-controller-manager \(stand-in\) created TanzuKubernetesRelease v1\.22\.9---vmware\.2-tkg\.1 from the new BOM tag/);
    expect(tanzuLog).toMatch(/phase 3: tanzu-addons-manager \(stand-in\) re-patched PackageRepository tkg-system\/tanzu-core/);
    expect(await packageInstallGone()).toBe(true);
  } finally {
    delete process.env.DEVPKG_STANDIN_PHASE3;
  }
}, T);

test('TKG 2.x: ClusterBootstrap pins the released version; devpkg says a higher dev version cannot win there', async () => {
  process.env.DEVPKG_STANDIN_TKG2 = '1';
  try {
    const r = await devpkg(args(['--dev-version', '1.5.4-dev.4']));
    if (r.code !== 1) console.log(r.stderr.slice(-4000), r.stdout.slice(-4000));
    expect(r.code).toBe(1);
    const [result] = JSON.parse(r.stdout) as PackageResult[];
    // The pin drops the dev version; kapp-controller's downgrade guard then refuses the pinned
    // (lower) version, so the PackageInstall fails rather than going back. Either way: no win.
    expect(['not-selected', 'reconcile-failed']).toContain(result!.verdict);
    expect(result!.reason).toMatch(/1\.5\.3\+vmware\.1-tkg\.1/);
    expect(result!.reason).toContain('TKG 2.x: ClusterBootstrap (run.tanzu.vmware.com/v1alpha3) pins the exact package versions of the TKR, so a higher dev version cannot win there');
    expect(r.stderr).toMatch(/warning: TKG 2.x: ClusterBootstrap/);
    expect(await packageInstallGone()).toBe(true);
  } finally {
    delete process.env.DEVPKG_STANDIN_TKG2;
  }
}, T);

/** An assertion on the management cluster after the win (input assert): the PackageInstall runs the dev version. */
const ASSERT_PACKAGE_INSTALL = '[{kind: PackageInstall, apiVersion: packaging.carvel.dev/v1alpha1, namespace: tkg-system, name: antrea, path: status.version, equals: 1.5.4-dev.3}]';

test('action mode: the bootstrap mode wins, holds through settle, passes its assert, sets its outputs, and the post step deletes the cluster and restores the providers', async () => {
  delete process.env.DEVPKG_STANDIN_PHASE3;
  const host = new RecordingHost();
  const inputs: Record<string, string> = {
    mode: 'bootstrap',
    'working-directory': path.join(ws.dir, 'repo'),
    'packages-dir': 'addons/packages',
    packages: 'antrea/1.5.3',
    registry: `${process.env.DEVPKG_TEST_REGISTRY}/devpkg-it/${runId}-mode`,
    'ref-name': 'antrea.tanzu.vmware.com',
    'addon-type': 'cni/antrea',
    'tanzu-cli': STANDIN,
    'cluster-config': ws.clusterConfig,
    'dev-version': '1.5.4-dev.3',
    settle: '10s',
    timeout: '150s',
    assert: ASSERT_PACKAGE_INSTALL,
    'bootstrap-timeout': '5m',
    comment: 'false',
    'artifact-name': 'devpkg-bootstrap-it',
    'host-check': 'false', // no docker here: the stand-in plays the cluster
  };
  // The runner's HOME is the tanzu CLI's (tanzu-dir left at its default), in main and in post.
  const saved = process.env.HOME;
  process.env.HOME = ws.home;
  try {
    await runMode({
      inputs: parseInputs(inputsFrom(inputs)),
      github: { eventName: 'workflow_dispatch', runId: '7', runNumber: 7, runAttempt: 1, serverUrl: 'https://github.com', apiUrl: 'https://api.github.com', owner: 'o', repo: 'r', workspace: ws.dir, baseSha: '', headSha: '' } as never,
      host,
      exec: execTool,
      env: { ...process.env, HOME: ws.home, RUNNER_TEMP: path.join(ws.dir, 'runner-temp') },
    });
    expect(host.errors).toEqual([]);
    expect(JSON.parse(host.outputs.verdicts!)).toEqual({ 'antrea/1.5.3': 'won' });
    // settle and assert acted: the win held through the window, and the check ran on the cluster.
    const [result] = JSON.parse(host.outputs.results!) as PackageResult[];
    expect(result!.reason).toMatch(/held through the 10s settle window/);
    expect(result!.assertions?.map((a) => [a.description, a.ok])).toEqual([[expect.stringContaining('status.version'), true]]);
    const items = CleanupList.fromState(host.state[CLEANUP_STATE]!);
    expect(items.map((i) => i.kind)).toEqual(['providers-backup', 'management-cluster']);
    expect(await packageInstallGone()).toBe(false);

    // The stand-in controllers that did phases 2 and 3 run as processes, given the kubeconfig of
    // the cluster they act on, and the PackageInstall's fields are the addons manager's, under its
    // own field manager.
    const pids = await tkgPids();
    expect(Object.keys(pids).sort()).toEqual(['addons-manager-standin', 'tkr-controller-standin']);
    for (const pid of Object.values(pids)) {
      const argv = (await readFile(`/proc/${pid}/cmdline`, 'utf8')).split('\0');
      expect(argv).toContain(path.join(repoRoot, 'test', 'standin', 'tkg-controllers', 'tkg-controllers.mjs'));
      expect(argv[argv.indexOf('--kubeconfig') + 1]).toBe(process.env.KUBECONFIG);
    }
    const k8s = await import('@kubernetes/client-node');
    const pi = (await (await harnessKubeConfig()).makeApiClient(k8s.CustomObjectsApi).getNamespacedCustomObject({ group: 'packaging.carvel.dev', version: 'v1alpha1', namespace: 'tkg-system', plural: 'packageinstalls', name: 'antrea' })) as { metadata: { managedFields: { manager: string; fieldsV1: object }[] } };
    const byManager = pi.metadata.managedFields.find((f) => f.manager === 'tanzu-addons-manager-standin');
    expect(JSON.stringify(byManager?.fieldsV1)).toContain('"f:packageRef"');

    // The post step.
    const logs: string[] = [];
    await runCleanup(items, execTool, { info: (m) => logs.push(m), warning: (m) => logs.push(`warning: ${m}`) });
    expect(logs.filter((l) => l.startsWith('warning'))).toEqual([]);
    expect(await tkgPids()).toEqual({});
    expect(await packageInstallGone()).toBe(true);
    expect(await tree(ws.providersDir)).toEqual(await tree(ws.standinProviders));
  } finally {
    process.env.HOME = saved;
  }
}, T);

describe('what the addons manager and the repository can undo (docs/addons-manager.md)', () => {
  const TKG = 'antrea.tanzu.vmware.com';
  const TCE = 'antrea.community.tanzu.vmware.com';

  test("the BOM names another refName: the manager's PackageInstall never selects the dev Package; devpkg says so and which --ref-name", async () => {
    const { code, result, stderr } = await withSwitches({ DEVPKG_STANDIN_REFNAME: TKG }, ['--dev-version', '1.5.4-dev.10', '--ref-name', TCE]);
    expect(code).toBe(1);
    expect(result.verdict).toBe('not-selected');
    expect(result.reason).toContain(`the addons manager's PackageInstall tkg-system/antrea installs refName ${TKG} (the BOM's packageName, written on every reconcile), not the dev Package's refName ${TCE}: the dev Package can never be selected`);
    expect(result.reason).toContain(`give --ref-name ${TKG} (input ref-name)`);
    expect(result.reason).toMatch(/the dev version was never installed; phase 2 installed 1\.5\.3\+vmware\.1-tkg\.1/);
    expect(stderr).toMatch(/warning: the addons manager's PackageInstall/);
    expect(await packageInstallGone()).toBe(true);
  }, T);

  test("an edit pointing the PackageInstall at the dev Package is undone by phase 3's re-patch", async () => {
    const { code, result } = await withSwitches({ DEVPKG_STANDIN_REFNAME: TKG, DEVPKG_STANDIN_PHASE3: 'repatch' }, ['--dev-version', '1.5.4-dev.11', '--ref-name', TCE]);
    expect(code).toBe(1);
    expect(result.verdict).toBe('not-selected');
    expect(result.reason).toMatch(new RegExp(`the addons manager re-patched PackageInstall tkg-system/antrea in phase 3 \\(at [^)]+\\): spec\\.packageRef\\.refName went from ${TCE.replaceAll('.', '\\.')} back to ${TKG.replaceAll('.', '\\.')}`));
    expect(result.reason).toContain(`the addons manager's re-patch in phase 3 dropped versionSelection.constraints "1.5.4-dev.11" from PackageInstall tkg-system/antrea`);
    // Back on the BOM's refName kapp-controller picks the released version, which is lower than the
    // dev version it last attempted: the downgrade guard refuses it, and devpkg says so.
    expect(result.reason).toMatch(/the dev version was installed at .* but did not hold/);
    expect(result.reason).toMatch(/kapp-controller's downgrade guard refused 1\.5\.3\+vmware\.1-tkg\.1 \(last attempted 1\.5\.4-dev\.11\)/);
    expect(await packageInstallGone()).toBe(true);
  }, T);

  test("an upgrade's repository carries a Package of the dev name: it takes the dev Package over (released bundle); devpkg says lost in phase 3", async () => {
    const { code, result } = await withSwitches({ DEVPKG_STANDIN_PHASE3: 'upgrade-dev-name' }, ['--dev-version', '1.5.4-dev.12']);
    expect(code).toBe(1);
    expect(result.verdict).toBe('lost');
    expect(result.reason).toMatch(
      /the dev Package antrea\.tanzu\.vmware\.com\.1\.5\.4-dev\.12 was taken over in phase 3 by PackageRepository tkg-system\/tanzu-core: the repository carries a Package of the same name, so its reconcile rewrote the dev Package to the repository's spec \(bundle [^ ]+\/packages\/core\/antrea@sha256:[0-9a-f]{64}\) and owns it now/,
    );
    expect(result.reason).toMatch(/re-patched PackageRepository tkg-system\/tanzu-core from \S+ to \S+: the management cluster moved to a TKR whose BOM names another core package repository \(an upgrade: TKR v1\.22\.9---vmware\.2-tkg\.1\)/);
    expect(await packageInstallGone()).toBe(true);
  }, T);

  test("a second upgrade's repository without it deletes the dev Package the repository took over; the downgrade guard keeps the App", async () => {
    const { code, result } = await withSwitches({ DEVPKG_STANDIN_PHASE3: 'upgrade-remove' }, ['--dev-version', '1.5.4-dev.13']);
    expect(code).toBe(1);
    expect(result.verdict).toBe('lost');
    expect(result.reason).toContain(
      "the dev Package antrea.tanzu.vmware.com.1.5.4-dev.13 was deleted in phase 3 by PackageRepository tkg-system/tanzu-core's reconcile (a repository version without it deletes the Packages the repository owns)",
    );
    expect(result.reason).toMatch(/\(an upgrade: TKR v1\.22\.9---vmware\.2-tkg\.1, v1\.22\.9---vmware\.3-tkg\.1\)/);
    expect(result.reason).toMatch(/kapp-controller's downgrade guard refused 1\.5\.3\+vmware\.1-tkg\.1 \(last attempted 1\.5\.4-dev\.13\)/);
    expect(await packageInstallGone()).toBe(true);
  }, T);

  test('the same with packaging.carvel.dev/downgradable on the PackageInstall: kapp-controller goes back to the released version', async () => {
    const { code, result } = await withSwitches({ DEVPKG_STANDIN_PHASE3: 'upgrade-remove', DEVPKG_STANDIN_DOWNGRADABLE: '1' }, ['--dev-version', '1.5.4-dev.14']);
    expect(code).toBe(1);
    expect(result.verdict).toBe('lost');
    expect(result.reason).toContain('the dev Package antrea.tanzu.vmware.com.1.5.4-dev.14 was deleted in phase 3');
    expect(result.reason).toContain(
      'PackageInstall tkg-system/antrea carries packaging.carvel.dev/downgradable (the addons manager keeps annotations it does not set), so kapp-controller goes back to a lower version instead of refusing the downgrade',
    );
    expect(result.reason).not.toMatch(/downgrade guard refused/);
    expect(await packageInstallGone()).toBe(true);
  }, T);
});
