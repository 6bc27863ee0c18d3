/**
 * Bootstrap mode with phase 1 carried by Cluster API's own ClusterResourceSet controller into a
 * real cluster. The harness's control plane plays the bootstrap cluster, with the real core
 * manager of sigs.k8s.io/cluster-api v1.1.5 running against it (test/harness/capi.sh); the
 * management cluster is a real kind cluster on the kind harness, with kapp-controller in a pod and
 * a registry on the kind network (made by devpkg's own createKindCluster, as kind mode makes it).
 *
 * The stand-in tanzu CLI renders the providers with ytt, applies the render's Cluster (labelled as
 * the providers label it), its `<name>-kubeconfig` Secret (the kind cluster's) and the
 * ClusterResourceSets with their Secrets to the bootstrap cluster, and waits as the CLI does; the
 * ClusterResourceSet controller applies them into the kind cluster (phase 1: the dev Package from
 * the 04_user_customizations file, the package's addon Secret and its vendored manifests). The
 * stand-in then plays `clusterctl move` of the Cluster API objects into the kind cluster, where
 * devpkg follows the phases. The package under test runs a workload whose image is built here.
 */
import { chmodSync, cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import { pushBundle } from '../../src/bundle/push.js';
import { parseRepository } from '../../src/bundle/reference.js';
import { CleanupList, runCleanup } from '../../src/cleanup.js';
import { createKindCluster, type KindCluster } from '../../src/cluster/kind.js';
import type { PackageResult } from '../../src/results.js';
import { execTool } from '../../src/tools/exec.js';
import { devpkg, STANDIN } from './helpers/bootstrap.js';
import { capi, readBinding, readCrs, resourcesApplied } from './helpers/capi.js';
import { harnessKubeConfig } from './helpers/kube.js';
import { kindHarnessUp, parseExportLines, type KindHarness } from './helpers/kind.js';
import { newRunId, runTool } from './helpers/run.js';
import { tkgPids } from './helpers/tkg-standin.js';
import { buildWorkloadTar } from './helpers/workload.js';
import { put, WEB_REF, webMgmtObjects, writeWebPackage, writeWebProviders } from './helpers/web-bootstrap.js';

const T = 1_800_000;
const runId = newRunId();
const CLUSTER = 'devpkg-bk-mgmt';
const REF = WEB_REF;
const savedEnv = { ...process.env };
const work = mkdtempSync(join(tmpdir(), 'devpkg-bootstrap-kind-'));
const cleanup = new CleanupList();
let kh: KindHarness;
let cluster: KindCluster;
let bootstrapKc: KubeConfig;
/** The dev bundle, by digest, at the registry's kind-network address (what kapp-controller fetches). */
let image = '';
let digest = '';
let workloadImage = '';

interface Ws {
  dir: string;
  folder: string;
  home: string;
  tanzuDir: string;
  providers: string;
  config: string;
}

/** A packages repository with web 1.0.0 (the dev flavour), a tanzu HOME, a cluster config. */
function workspace(name: string): Ws {
  const dir = join(work, name);
  const folder = writeWebPackage(join(dir, 'repo', 'addons', 'packages'), 'dev', workloadImage);
  const home = join(dir, 'home');
  const config = join(dir, 'mgmt.yaml');
  put(config, `CLUSTER_NAME: ${CLUSTER}\nCLUSTER_PLAN: dev\nINFRASTRUCTURE_PROVIDER: docker\nCNI: none\n`);
  return { dir, folder, home, tanzuDir: join(home, '.config', 'tanzu'), providers: join(home, '.config', 'tanzu', 'tkg', 'providers'), config };
}

beforeAll(async () => {
  kh = await kindHarnessUp();
  Object.assign(process.env, kh.env);
  const up = await capi('up');
  Object.assign(process.env, parseExportLines(up.stdout));
  bootstrapKc = await harnessKubeConfig();

  // The workload: a static binary that waits, as the image's only file.
  const tar = buildWorkloadTar(work);

  cluster = await createKindCluster({
    exec: execTool,
    cleanup,
    name: `devpkg-bk-${runId}`,
    nodeImage: kh.nodeImage,
    kindConfig: kh.config,
    registryImage: kh.registryImage,
    kappControllerManifest: kh.kappControllerManifest,
    log: () => undefined,
  });
  // The image, pushed where the nodes pull it (localhost:<port>, kind's local-registry pattern).
  const pushed = `${cluster.registry.pushHost}/web-app:${runId}`;
  await runTool('docker', ['import', '--change', 'ENTRYPOINT ["/app"]', tar, pushed]);
  await runTool('docker', ['push', pushed]);
  workloadImage = (await runTool('docker', ['image', 'inspect', '--format', '{{index .RepoDigests 0}}', pushed])).stdout.trim();
  expect(workloadImage).toMatch(/^localhost:\d+\/web-app@sha256:[0-9a-f]{64}$/);

  writeWebProviders(join(work, 'providers'));
  process.env.DEVPKG_STANDIN_PROVIDERS = join(work, 'providers');
  process.env.DEVPKG_STANDIN_MGMT_KUBECONFIG = cluster.kubeconfig;
  process.env.DEVPKG_STANDIN_CAPI_CRDS = process.env.DEVPKG_CAPI_CRDS;
  // Phases 2 and 3 (the stand-in TKG controllers, against the kind cluster): the registry as the
  // stand-in pushes to it and as kapp-controller in the cluster reaches it, the released version,
  // and what TKG's tkr ClusterResourceSet carries (tkr-controller-config, the controller's Deployment).
  process.env.DEVPKG_STANDIN_REGISTRY = cluster.registry.pushHost;
  process.env.DEVPKG_STANDIN_REGISTRY_PULL = cluster.registry.clusterHost;
  process.env.DEVPKG_STANDIN_RELEASED = '1.0.0';
  process.env.DEVPKG_STANDIN_MGMT_OBJECTS = join(work, 'mgmt-objects.yaml');
  put(process.env.DEVPKG_STANDIN_MGMT_OBJECTS, webMgmtObjects(CLUSTER));
  put(
    join(work, 'assert.yaml'),
    `- {kind: Deployment, namespace: web, name: web, path: 'spec.template.metadata.annotations["devpkg.test/flavour"]', equals: dev}\n- {kind: Deployment, namespace: web, name: web, path: status.availableReplicas, equals: 1}\n`,
  );
}, T);

afterAll(async () => {
  await runCleanup(cleanup.list(), execTool, { info: () => undefined, warning: (m) => console.warn(m) });
  await capi('down');
  for (const k of Object.keys(process.env)) if (!(k in savedEnv)) delete process.env[k];
  Object.assign(process.env, savedEnv);
  rmSync(work, { recursive: true, force: true });
}, T);

/** The dev bundle of a workspace, pushed from here; referenced at the registry's kind-network address. */
async function pushDev(ws: Ws, tag: string): Promise<void> {
  const r = await pushBundle({ bundleDir: join(ws.folder, 'bundle'), repository: parseRepository(`${cluster.registry.pushHost}/devpkg-it/web-bundle`), tag });
  digest = r.digest;
  image = `${cluster.registry.clusterHost}/devpkg-it/web-bundle@${digest}`;
}

function args(ws: Ws, extra: string[]): string[] {
  return [
    'bootstrap', '--package', ws.folder, '--image', image, '--ref-name', REF,
    '--tanzu-dir', ws.tanzuDir, '--cluster-config', ws.config,
    '--settle', '10s', '--timeout', '240s', '--bootstrap-timeout', '6m', '--work-dir', join(ws.dir, 'work'), '--json',
    // Kept for the assertions on both clusters; each test's finally runs --cleanup.
    '--skip-host-check', '--keep', ...extra,
  ];
}

/** `devpkg bootstrap --cleanup`: the stand-in's delete (both clusters), the providers restored. */
async function cleanupRun(ws: Ws): Promise<void> {
  const r = await devpkg(['bootstrap', '--cleanup', '--tanzu-dir', ws.tanzuDir]);
  expect(r.code).toBe(0);
}

const kubectl = (...a: string[]) => runTool('kubectl', ['--kubeconfig', cluster.kubeconfig, ...a]).then((x) => x.stdout.trim());

test('phase 1 by the ClusterResourceSet controller into the kind cluster; kapp-controller there installs the dev version; verdict after phase 3', async () => {
  const ws = workspace('win');
  await pushDev(ws, 'win');
  const r = await devpkg(args(ws, ['--tanzu', STANDIN, '--dev-version', '1.0.1-dev.1', '--assert', join(work, 'assert.yaml')]));
  if (r.code !== 0) console.log(r.stderr.slice(-6000), r.stdout.slice(-3000));
  try {
    // Phase 1 on the bootstrap cluster: the real controller's condition and binding, naming the kind cluster's Cluster.
    const devCrs = await readCrs(bootstrapKc, 'tkg-system', `${CLUSTER}-web-dev-package`);
    expect(resourcesApplied(devCrs)).toMatchObject({ status: 'True' });
    const binding = await readBinding(bootstrapKc, 'tkg-system', CLUSTER);
    expect(binding?.metadata?.ownerReferences).toEqual(expect.arrayContaining([expect.objectContaining({ kind: 'Cluster', name: CLUSTER })]));
    expect(binding?.spec?.bindings?.map((b: { clusterResourceSetName: string }) => b.clusterResourceSetName).sort()).toEqual([`${CLUSTER}-web`, `${CLUSTER}-web-dev-package`]);
    for (const b of binding!.spec.bindings) expect(b.resources).toEqual([expect.objectContaining({ kind: 'Secret', applied: true })]);
    // What it applied is in the kind cluster: the dev Package, the addon Secret.
    expect(await kubectl('get', 'packages.data.packaging.carvel.dev', '-n', 'tkg-system', `${REF}.1.0.1-dev.1`, '-o', 'jsonpath={.spec.version}')).toBe('1.0.1-dev.1');
    expect(await kubectl('get', 'secret', '-n', 'tkg-system', `${CLUSTER}-web-addon`, '-o', 'jsonpath={.type}')).toBe('tkg.tanzu.vmware.com/addon');

    expect(r.code).toBe(0);
    const [result] = JSON.parse(r.stdout) as PackageResult[];
    expect(result).toMatchObject({ name: 'web', version: '1.0.0', devVersion: '1.0.1-dev.1', bundle: image, mode: 'bootstrap', verdict: 'won' });
    expect(result!.reason).toMatch(/the dev version held after phase 3/);
    expect(result!.assertions?.map((a) => a.ok)).toEqual([true, true]);
    const names = result!.phases!.map((p) => p.name);
    expect(names).toEqual([
      'management-cluster create',
      'management cluster created',
      'phase 1: ClusterResourceSet applied the dev Package',
      "phase 2: the addons manager's PackageInstall reconciled",
      'phase 3: TKR controller and BOM in place',
      'won',
    ]);
    const p1 = result!.phases!.find((p) => p.name.startsWith('phase 1'))!;
    expect(p1.detail).toMatch(new RegExp(`ClusterResourceSetBinding ${CLUSTER}`));
    // kapp-controller in the kind cluster fetched exactly the pushed dev bundle, and runs the image built here.
    expect(await kubectl('get', 'app', '-n', 'tkg-system', 'web', '-o', 'jsonpath={.status.fetch.stdout}')).toContain(digest);
    expect(await kubectl('get', 'deployment', '-n', 'web', 'web', '-o', 'jsonpath={.spec.template.spec.containers[0].image}')).toBe(workloadImage);
    // Phases 2 and 3 acted on the kind cluster: the PackageInstall and tanzu-core the stand-in addons manager wrote, the TKR its TKR controller made.
    expect(await kubectl('get', 'packageinstall', '-n', 'tkg-system', 'web', '-o', 'jsonpath={.spec.packageRef.refName}')).toBe(REF);
    expect(await kubectl('get', 'packagerepository', '-n', 'tkg-system', 'tanzu-core', '-o', 'jsonpath={.spec.fetch.imgpkgBundle.image}')).toContain(cluster.registry.clusterHost);
    expect(await kubectl('get', 'tanzukubernetesreleases', '-o', 'name')).toContain('v1.22.9---vmware.1-tkg.1');
  } finally {
    // The stand-in's delete: nothing of the stand-in TKG controllers runs.
    await cleanupRun(ws);
    expect(await tkgPids()).toEqual({});
  }
}, T);

test('a ClusterResourceSet whose selector matches no Cluster: phase 1 never applies; the verdict names the ClusterResourceSet and the labels', async () => {
  const ws = workspace('selector');
  await pushDev(ws, 'selector');
  // A user overlay that points the dev ClusterResourceSet's selector at another cluster name.
  const overlayDir = join(ws.dir, 'providers-with-overlay');
  cpSync(process.env.DEVPKG_STANDIN_PROVIDERS!, overlayDir, { recursive: true });
  put(
    join(overlayDir, 'ytt', '03_customizations', 'selector.yaml'),
    `#@ load("@ytt:overlay", "overlay")\n#@overlay/match by=overlay.subset({"kind": "ClusterResourceSet", "metadata": {"name": "${CLUSTER}-web-dev-package"}}), expects="0+"\n---\nspec:\n  clusterSelector:\n    matchLabels:\n      tkg.tanzu.vmware.com/cluster-name: someone-else\n`,
  );
  const saved = process.env.DEVPKG_STANDIN_PROVIDERS;
  process.env.DEVPKG_STANDIN_PROVIDERS = overlayDir;
  process.env.DEVPKG_STANDIN_WAIT_MS = '60000';
  try {
    const r = await devpkg(args(ws, ['--tanzu', STANDIN, '--dev-version', '1.0.1-dev.2']));
    expect(r.code).not.toBe(0);
    const [result] = JSON.parse(r.stdout) as PackageResult[];
    expect(result!.verdict).toBe('error');
    expect(result!.reason).toContain(`ClusterResourceSet tkg-system/${CLUSTER}-web-dev-package`);
    expect(result!.reason).toContain('matchLabels {tkg.tanzu.vmware.com/cluster-name: "someone-else"} matches no Cluster');
    expect(result!.reason).toMatch(new RegExp(`Cluster tkg-system/${CLUSTER} has labels \\{[^}]*tkg\\.tanzu\\.vmware\\.com/cluster-name: "${CLUSTER}"`));
    // The controller applied the other one and not this one: no Package in the kind cluster.
    expect(resourcesApplied(await readCrs(bootstrapKc, 'tkg-system', `${CLUSTER}-web`))).toMatchObject({ status: 'True' });
    expect(resourcesApplied(await readCrs(bootstrapKc, 'tkg-system', `${CLUSTER}-web-dev-package`))).toBeUndefined();
    expect((await runTool('kubectl', ['--kubeconfig', cluster.kubeconfig, 'get', 'packages.data.packaging.carvel.dev', '-n', 'tkg-system', `${REF}.1.0.1-dev.2`], { allowFail: true })).code).not.toBe(0);
  } finally {
    process.env.DEVPKG_STANDIN_PROVIDERS = saved;
    delete process.env.DEVPKG_STANDIN_WAIT_MS;
    await cleanupRun(ws);
    expect(await tkgPids()).toEqual({});
  }
}, T);

test('without SUPPRESS_PROVIDERS_UPDATE the providers update removes the overlay file: the dev Package never arrives, and devpkg says so', async () => {
  const ws = workspace('no-suppress');
  await pushDev(ws, 'no-suppress');
  // A tanzu that runs the create without SUPPRESS_PROVIDERS_UPDATE (the dry-run keeps it).
  const tanzu = join(ws.dir, 'tanzu-without-suppress');
  put(tanzu, `#!/bin/sh\ncase " $* " in *" --dry-run "*) ;; *) unset SUPPRESS_PROVIDERS_UPDATE ;; esac\nexec ${JSON.stringify(STANDIN)} "$@"\n`);
  chmodSync(tanzu, 0o755);
  try {
    const r = await devpkg(args(ws, ['--tanzu', tanzu, '--dev-version', '1.0.1-dev.3', '--timeout', '60s']));
    expect(r.code).not.toBe(0);
    const [result] = JSON.parse(r.stdout) as PackageResult[];
    expect(result!.verdict).toBe('timed-out');
    expect(result!.reason).toMatch(/^phase 1: ClusterResourceSet applied the dev Package was not seen within 60s: missing ClusterResourceSet \*-web-dev-package, Package web\.devpkg\.test\.1\.0\.1-dev\.3/);
    expect(r.stderr).toMatch(/providers folder differs from this CLI's; moving it to/);
    // Phase 1 itself ran: the controller applied what the fresh providers render.
    expect(resourcesApplied(await readCrs(bootstrapKc, 'tkg-system', `${CLUSTER}-web`))).toMatchObject({ status: 'True' });
    expect(await readCrs(bootstrapKc, 'tkg-system', `${CLUSTER}-web-dev-package`)).toBeUndefined();
  } finally {
    await cleanupRun(ws);
    expect(await tkgPids()).toEqual({});
  }
}, T);
