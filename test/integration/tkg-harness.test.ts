/**
 * The stand-in TKG controllers of the harness (test/standin/tkg-controllers, started by
 * test/harness/tkg.sh): two controller processes, each given the kubeconfig of the cluster it acts
 * on, listening on no port; the TKR controller makes BOM ConfigMaps and TKRs from the BOM image's
 * tags and never overwrites an existing BOM ConfigMap; stop and down leave nothing running. (The
 * bootstrap tests use them for phases 2 and 3.)
 */
import { existsSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pushFileImage } from '../standin/tkg-controllers/registry.mjs';
import { harnessKubeConfig, waitFor } from './helpers/kube.js';
import { newRunId, repoRoot, runTool } from './helpers/run.js';
import { controllerLog, tkgPids, tkgScript } from './helpers/tkg-standin.js';

const T = 300_000;
const STANDIN = path.join(repoRoot, 'test', 'standin', 'tkg-controllers', 'tkg-controllers.mjs');

/** Whether a process has a listening TCP socket (from /proc). */
function listens(pid: number): boolean {
  const inodes = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (m) inodes.add(m[1]!);
    } catch {
      /* closed meanwhile */
    }
  }
  return ['tcp', 'tcp6'].some((file) =>
    readFileSync(`/proc/${pid}/net/${file}`, 'utf8').trim().split('\n').slice(1).some((l) => {
      const f = l.trim().split(/\s+/);
      return f[3] === '0A' && inodes.has(f[9]!); // 0A: LISTEN
    }),
  );
}

const tkg = (...args: string[]) => runTool('bash', [tkgScript(), ...args], { timeoutMs: 240_000 });
const registry = () => process.env.DEVPKG_TEST_REGISTRY!;
const run = newRunId();
const bomRepo = () => `${registry()}/devpkg-it/tkg-harness-${run}/tkr-bom`;
const metaRepo = () => `${registry()}/devpkg-it/tkg-harness-${run}/tkr-compatibility`;
const bom = (version: string, marker: string) =>
  `release:\n  version: ${version}\ncomponents:\n  kubernetes:\n  - version: v1.22.9+vmware.1\nimageConfig:\n  imageRepository: ${marker}\naddons: {}\n`;

afterAll(async () => {
  // Leave the harness as the global setup made it (up: CRDs and the marker; nothing running).
  await tkg('stop');
  await tkg('up');
  const k8s = await import('@kubernetes/client-node');
  const kc = await harnessKubeConfig();
  for (const name of ['v1.22.9---tkgharness.1', 'v1.22.9---tkgharness.2']) {
    await kc.makeApiClient(k8s.CoreV1Api).deleteNamespacedConfigMap({ name, namespace: 'tkr-system' }).catch(() => undefined);
    await kc.makeApiClient(k8s.CustomObjectsApi).deleteClusterCustomObject({ group: 'run.tanzu.vmware.com', version: 'v1alpha1', plural: 'tanzukubernetesreleases', name }).catch(() => undefined);
  }
}, T);

test('two stand-in processes act on the cluster of the kubeconfig given, listen on no port, create BOM ConfigMaps and TKRs from new BOM tags but never overwrite a BOM ConfigMap; stop and down leave nothing running', async () => {
  const k8s = await import('@kubernetes/client-node');
  const kc = await harnessKubeConfig();
  const core = kc.makeApiClient(k8s.CoreV1Api);
  const custom = kc.makeApiClient(k8s.CustomObjectsApi);
  // The harness makes tkr-system at `up --tkg`, but an earlier test of the tier may have deleted it
  // with its management cluster's namespaces (seen in a full run): make it again if so.
  await core.createNamespace({ body: { metadata: { name: 'tkr-system' } } }).catch((e: unknown) => {
    if ((e as { code?: number }).code !== 409) throw e;
  });
  // A BOM ConfigMap for tag .1 exists already (its content is not the image's): it must stay.
  await core.createNamespacedConfigMap({
    namespace: 'tkr-system',
    body: { metadata: { name: 'v1.22.9---tkgharness.1', labels: { tanzuKubernetesRelease: 'v1.22.9---tkgharness.1' }, annotations: { bomImageTag: 'v1.22.9_tkgharness.1' } }, data: { bomContent: bom('v1.22.9+tkgharness.1', 'kept.example') } },
  });
  await pushFileImage(`${bomRepo()}:v1.22.9_tkgharness.1`, 'bom.yaml', bom('v1.22.9+tkgharness.1', 'image.example'));
  await pushFileImage(`${bomRepo()}:v1.22.9_tkgharness.2`, 'bom.yaml', bom('v1.22.9+tkgharness.2', 'image.example'));
  await pushFileImage(`${metaRepo()}:v1`, 'metadata.yaml', 'managementClusterVersions: []\n');

  const dir = await mkdtemp(path.join(tmpdir(), 'devpkg-tkg-harness-it-'));
  try {
    // Its own copy of the kubeconfig: the controllers take the one they are given.
    const kubeconfig = path.join(dir, 'kubeconfig');
    await copyFile(process.env.KUBECONFIG!, kubeconfig);
    await tkg('start', '--bom-image', bomRepo(), '--metadata-image', metaRepo(), '--kubeconfig', kubeconfig);
    const pids = await tkgPids();
    expect(Object.keys(pids).sort()).toEqual(['addons-manager-standin', 'tkr-controller-standin']);
    for (const [name, pid] of Object.entries(pids)) {
      const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      expect(argv.slice(1, 3)).toEqual([STANDIN, name === 'addons-manager-standin' ? 'addons-manager' : 'tkr-controller']);
      expect(argv[argv.indexOf('--kubeconfig') + 1]).toBe(kubeconfig);
      expect({ name, listens: listens(pid) }).toEqual({ name, listens: false });
      expect(await controllerLog(name)).toContain(`(kubeconfig ${kubeconfig})`);
    }

    // Tag .2 is new: its BOM ConfigMap and TKR (v1alpha1) appear; tag .1 had a ConfigMap: left as it was.
    const tkr2 = await waitFor('TKR v1.22.9---tkgharness.2', () =>
      custom.getClusterCustomObject({ group: 'run.tanzu.vmware.com', version: 'v1alpha1', plural: 'tanzukubernetesreleases', name: 'v1.22.9---tkgharness.2' }).catch(() => undefined),
    );
    expect(tkr2).toMatchObject({ apiVersion: 'run.tanzu.vmware.com/v1alpha1', spec: { version: 'v1.22.9+tkgharness.2', kubernetesVersion: 'v1.22.9+vmware.1', repository: 'image.example' } });
    const cm2 = await core.readNamespacedConfigMap({ name: 'v1.22.9---tkgharness.2', namespace: 'tkr-system' });
    expect(cm2.metadata?.annotations).toEqual({ bomImageTag: 'v1.22.9_tkgharness.2' });
    expect(cm2.metadata?.managedFields?.map((f) => f.manager)).toEqual(['tkr-controller-standin']);
    const cm1 = await core.readNamespacedConfigMap({ name: 'v1.22.9---tkgharness.1', namespace: 'tkr-system' });
    expect(cm1.data?.bomContent).toContain('kept.example');
    expect(cm1.binaryData).toBeUndefined();
    // The TKR of the kept ConfigMap is made from it (its BOM, not the image's).
    const tkr1 = await waitFor('TKR v1.22.9---tkgharness.1', () =>
      custom.getClusterCustomObject({ group: 'run.tanzu.vmware.com', version: 'v1alpha1', plural: 'tanzukubernetesreleases', name: 'v1.22.9---tkgharness.1' }).catch(() => undefined),
    );
    expect(tkr1).toMatchObject({ spec: { repository: 'kept.example' } });
    // The same TKR is served as v1alpha3 too (the harness CRD serves both, as TKG 1.6's does).
    expect(await custom.getClusterCustomObject({ group: 'run.tanzu.vmware.com', version: 'v1alpha3', plural: 'tanzukubernetesreleases', name: 'v1.22.9---tkgharness.1' })).toMatchObject({ apiVersion: 'run.tanzu.vmware.com/v1alpha3' });

    await tkg('stop');
    for (const pid of Object.values(pids)) expect(existsSync(`/proc/${pid}`)).toBe(false);
    expect(await tkgPids()).toEqual({});

    // down: stopped (again: a second start, then down) and its folder removed.
    await tkg('start', '--bom-image', bomRepo(), '--metadata-image', metaRepo(), '--kubeconfig', kubeconfig);
    const again = await tkgPids();
    expect(Object.keys(again)).toHaveLength(2);
    await tkg('down');
    for (const pid of Object.values(again)) expect(existsSync(`/proc/${pid}`)).toBe(false);
    expect(existsSync(path.join(process.env.DEVPKG_HARNESS_DIR!, 'tkg'))).toBe(false);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}, T);
