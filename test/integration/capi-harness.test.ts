/**
 * Cluster API's core manager on the harness (test/harness/capi.sh): the binary built from
 * sigs.k8s.io/cluster-api v1.1.5 (the module proxy), run against the test control plane, which then
 * plays a bootstrap cluster. Its ClusterResourceSet controller applies a CRS's resources to the
 * Cluster its selector matches, through that Cluster's `<name>-kubeconfig` Secret; here that
 * Secret points back at the harness itself (the kind case, bootstrap-kind.test.ts, points it at a
 * kind cluster). A CRS whose selector matches no Cluster applies nothing. `down` leaves nothing
 * running.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import { capi, capiLog, capiPid, listening, readBinding, readCrs, resourcesApplied } from './helpers/capi.js';
import { createTestNamespace, deleteNamespace, harnessKubeConfig, statusCode, waitFor } from './helpers/kube.js';
import { runTool } from './helpers/run.js';

const T = 1_500_000;
let kc: KubeConfig;
let ns = '';

beforeAll(async () => {
  kc = await harnessKubeConfig();
  // Builds when missing (globalSetup normally has), applies the CRDs, starts the manager.
  await capi('up');
  ns = await createTestNamespace(kc, 'capi-it');
}, T);

afterAll(async () => {
  if (ns) await deleteNamespace(kc, ns).catch(() => undefined);
  await capi('down');
}, T);

test('the manager is the real cluster-api v1.1.5 build; metrics and health on 127.0.0.1', async () => {
  const pid = await capiPid();
  expect(pid).toBeGreaterThan(0);
  const { stdout } = await runTool('go', ['version', '-m', `/proc/${pid}/exe`]);
  expect(stdout).toMatch(/\tpath\tsigs\.k8s\.io\/cluster-api\n/);
  expect(stdout).toMatch(/\tmod\tsigs\.k8s\.io\/cluster-api\tv1\.1\.5\t/);
  // It says so itself (the version ldflags; -trimpath keeps them out of the build info), and its
  // ClusterResourceSet controllers started.
  const log = capiLog();
  expect(log).toMatch(/"starting manager"\s+"version"="v1\.1\.5"/);
  expect(log).toMatch(/Starting Controller.*"reconciler kind"="ClusterResourceSet"/);
  // Metrics and health on loopback; the webhook server (no host flag in v1.1.5) is the one other listener.
  const ports = Object.fromEntries(
    readFileSync(path.join(process.env.DEVPKG_HARNESS_DIR!, 'capi', 'ports.env'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => l.split('=') as [string, string]),
  );
  const addrs = listening(pid!);
  expect(addrs).toEqual(expect.arrayContaining([`127.0.0.1:${ports.METRICS_PORT}`, `127.0.0.1:${ports.HEALTH_PORT}`]));
  const others = addrs.filter((a) => !a.startsWith('127.0.0.1:'));
  expect(others).toHaveLength(1);
  expect(others[0]).toMatch(new RegExp(`^(::|0\\.0\\.0\\.0):${ports.WEBHOOK_PORT}$`));
}, T);

test('a ClusterResourceSet is applied to the Cluster its selector matches, through <name>-kubeconfig; one that matches nothing applies nothing', async () => {
  const k8s = await import('@kubernetes/client-node');
  const core = kc.makeApiClient(k8s.CoreV1Api);
  const custom = kc.makeApiClient(k8s.CustomObjectsApi);
  const cluster = 'capi-it-cluster';
  const target = `${ns}-target`;
  await core.createNamespace({ body: { metadata: { name: target, labels: { 'devpkg.dev/test': 'integration' } } } });
  try {
    // The Cluster as TKG labels a management cluster, and its kubeconfig Secret (the harness's own).
    await custom.createNamespacedCustomObject({
      group: 'cluster.x-k8s.io', version: 'v1beta1', namespace: ns, plural: 'clusters',
      body: { apiVersion: 'cluster.x-k8s.io/v1beta1', kind: 'Cluster', metadata: { name: cluster, namespace: ns, labels: { 'tkg.tanzu.vmware.com/cluster-name': cluster } }, spec: {} },
    });
    await core.createNamespacedSecret({
      namespace: ns,
      body: { metadata: { name: `${cluster}-kubeconfig`, labels: { 'cluster.x-k8s.io/cluster-name': cluster } }, type: 'cluster.x-k8s.io/secret', stringData: { value: readFileSync(process.env.KUBECONFIG!, 'utf8') } },
    });
    const resource = (name: string, cm: string) => ({
      metadata: { name },
      type: 'addons.cluster.x-k8s.io/resource-set',
      stringData: { value: `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${cm}\n  namespace: ${target}\ndata:\n  from: ${name}\n` },
    });
    await core.createNamespacedSecret({ namespace: ns, body: resource('matching-res', 'applied-by-crs') });
    await core.createNamespacedSecret({ namespace: ns, body: resource('other-res', 'never-applied') });
    const crs = (name: string, res: string, labels: Record<string, string>) => ({
      apiVersion: 'addons.cluster.x-k8s.io/v1beta1', kind: 'ClusterResourceSet', metadata: { name, namespace: ns },
      spec: { strategy: 'ApplyOnce', clusterSelector: { matchLabels: labels }, resources: [{ kind: 'Secret', name: res }] },
    });
    const where = { group: 'addons.cluster.x-k8s.io', version: 'v1beta1', namespace: ns, plural: 'clusterresourcesets' };
    await custom.createNamespacedCustomObject({ ...where, body: crs('other', 'other-res', { 'tkg.tanzu.vmware.com/cluster-name': 'someone-else' }) });
    await custom.createNamespacedCustomObject({ ...where, body: crs('matching', 'matching-res', { 'tkg.tanzu.vmware.com/cluster-name': cluster }) });

    // Applied into the cluster the kubeconfig Secret names, by the controller.
    const cm = await waitFor('the ConfigMap the CRS carries', async () => {
      try {
        return await core.readNamespacedConfigMap({ name: 'applied-by-crs', namespace: target });
      } catch (e) {
        if (statusCode(e) === 404) return undefined;
        throw e;
      }
    }, { timeoutMs: 120_000 });
    expect(cm.data).toEqual({ from: 'matching-res' });
    const applied = await waitFor('ResourcesApplied=True', async () => {
      const c = await readCrs(kc, ns, 'matching');
      return resourcesApplied(c)?.status === 'True' ? c : undefined;
    }, { timeoutMs: 120_000 });
    expect(applied!.metadata.finalizers).toContain('addons.cluster.x-k8s.io');
    const binding = await waitFor('the ClusterResourceSetBinding', async () => {
      const b = await readBinding(kc, ns, cluster);
      return b?.spec?.bindings?.some((x: { clusterResourceSetName: string; resources?: { applied: boolean }[] }) => x.clusterResourceSetName === 'matching' && x.resources?.[0]?.applied) ? b : undefined;
    });
    expect(binding.metadata.ownerReferences).toEqual(expect.arrayContaining([expect.objectContaining({ kind: 'Cluster', name: cluster })]));
    expect(binding.spec.bindings.map((b: { clusterResourceSetName: string }) => b.clusterResourceSetName)).toEqual(['matching']);
    expect(binding.spec.bindings[0].resources).toEqual([expect.objectContaining({ kind: 'Secret', name: 'matching-res', applied: true })]);

    // The other one was reconciled (its finalizer) and applied nothing: no condition, no object.
    const other = await waitFor('the other CRS reconciled', async () => {
      const c = await readCrs(kc, ns, 'other');
      return c?.metadata?.finalizers?.includes('addons.cluster.x-k8s.io') ? c : undefined;
    });
    expect(resourcesApplied(other)).toBeUndefined();
    await expect(core.readNamespacedConfigMap({ name: 'never-applied', namespace: target })).rejects.toMatchObject({ code: 404 });

    // Deleting the Cluster: the CRS controller lets the CRSs go (their finalizer) with the namespace.
    await custom.deleteNamespacedCustomObject({ group: 'cluster.x-k8s.io', version: 'v1beta1', namespace: ns, plural: 'clusters', name: cluster });
  } finally {
    await deleteNamespace(kc, target).catch(() => undefined);
  }
}, T);

test('down stops the manager and removes its folder; up again starts a new one', async () => {
  const pid = await capiPid();
  await capi('down');
  expect(existsSync(`/proc/${pid}`)).toBe(false);
  expect(await capiPid()).toBeUndefined();
  expect(existsSync(path.join(process.env.DEVPKG_HARNESS_DIR!, 'capi'))).toBe(false);
  await capi('up');
  const again = await capiPid();
  expect(again).toBeGreaterThan(0);
  expect(again).not.toBe(pid);
}, T);
