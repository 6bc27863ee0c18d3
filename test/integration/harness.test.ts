// The test harness itself, against the real processes that globalSetup started:
// etcd + kube-apiserver + kube-controller-manager built from Go modules, Debian's
// docker-registry, skopeo, and the Carvel CLIs built from their Go modules.
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import { parse } from 'yaml';
import { ensureHarnessCrds, harnessCrds } from './helpers/crds.js';
import { harnessEnv } from './helpers/env.js';
import { createTestNamespace, deleteNamespace, harnessKubeConfig, statusCode, waitFor } from './helpers/kube.js';
import { withHarnessLogs } from './helpers/logs.js';
import { repoRoot, restartApiserver, runTool } from './helpers/run.js';

type K8s = typeof import('@kubernetes/client-node');

// Per-test timeouts are explicit: jest reads testTimeout only from the global config.
const T = 120_000;

let k8s: K8s;
let kc: KubeConfig;
const namespaces: string[] = [];
const tmpDirs: string[] = [];

function pinnedVersions(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of readFileSync(join(repoRoot, 'test', 'harness', 'versions.env'), 'utf8').split('\n')) {
    const m = /^([A-Z_]+)=(.*)$/.exec(line.trim());
    if (m) out[m[1]] = m[2].replace(/^"|"$/g, '');
  }
  return out;
}

function tmp(prefix: string): string {
  const d = mkdtempSync(join(tmpdir(), `devpkg-${prefix}-`));
  tmpDirs.push(d);
  return d;
}

async function namespace(prefix: string): Promise<string> {
  const ns = await createTestNamespace(kc, prefix);
  namespaces.push(ns);
  return ns;
}

beforeAll(async () => {
  k8s = await import('@kubernetes/client-node');
  kc = await harnessKubeConfig();
}, T);

afterAll(async () => {
  for (const ns of namespaces) await deleteNamespace(kc, ns);
  for (const d of tmpDirs) rmSync(d, { recursive: true, force: true });
}, T);

describe('control plane', () => {
  test(
    'kube-apiserver reports the pinned Kubernetes version',
    withHarnessLogs(async () => {
      const version = await kc.makeApiClient(k8s.VersionApi).getCode();
      expect(version.gitVersion).toBe(pinnedVersions().KUBERNETES_VERSION);
      expect(version.gitVersion).toBe(harnessEnv().kubernetesVersion);
    }),
    T,
  );

  test(
    'RBAC is enforced: an unknown service account may not list secrets',
    withHarnessLogs(async () => {
      const ns = await namespace('rbac');
      const authz = kc.makeApiClient(k8s.AuthorizationV1Api);
      const review = await authz.createSubjectAccessReview({
        body: {
          spec: {
            user: `system:serviceaccount:${ns}:nobody`,
            resourceAttributes: { namespace: ns, verb: 'list', resource: 'secrets' },
          },
        },
      });
      expect(review.status?.allowed).toBe(false);
      const admin = await authz.createSelfSubjectAccessReview({
        body: { spec: { resourceAttributes: { verb: '*', group: '*', resource: '*' } } },
      });
      expect(admin.status?.allowed).toBe(true);
    }),
    T,
  );

  test(
    'kube-controller-manager runs the service-account, root-CA, deployment, replicaset and daemonset controllers',
    withHarnessLogs(async () => {
      const ns = await namespace('kcm');
      const core = kc.makeApiClient(k8s.CoreV1Api);
      const apps = kc.makeApiClient(k8s.AppsV1Api);

      // serviceaccount-controller and root-ca-certificate-publisher-controller
      await waitFor('the default ServiceAccount', () =>
        core.readNamespacedServiceAccount({ name: 'default', namespace: ns }).then((sa) => sa),
      );
      const rootCa = await waitFor('the kube-root-ca.crt ConfigMap', () =>
        core.readNamespacedConfigMap({ name: 'kube-root-ca.crt', namespace: ns }).then((cm) => cm),
      );
      expect(rootCa.data?.['ca.crt']).toContain('BEGIN CERTIFICATE');

      const labels = { app: 'harness-ds' };
      const template = {
        metadata: { labels },
        spec: { containers: [{ name: 'pause', image: 'registry.k8s.io/pause:3.10' }] },
      };
      const ds = await apps.createNamespacedDaemonSet({
        namespace: ns,
        body: { metadata: { name: 'harness-ds' }, spec: { selector: { matchLabels: labels }, template } },
      });
      // With no nodes the daemonset controller reports zero desired, zero ready: the
      // state in which kapp considers a DaemonSet deployed.
      const status = await waitFor('DaemonSet status from kube-controller-manager', async () => {
        const cur = await apps.readNamespacedDaemonSet({ name: 'harness-ds', namespace: ns });
        return cur.status?.observedGeneration === ds.metadata?.generation ? cur.status : undefined;
      });
      expect(status.desiredNumberScheduled).toBe(0);
      expect(status.numberReady).toBe(0);

      const depLabels = { app: 'harness-deploy' };
      await apps.createNamespacedDeployment({
        namespace: ns,
        body: {
          metadata: { name: 'harness-deploy' },
          spec: {
            replicas: 1,
            selector: { matchLabels: depLabels },
            template: { ...template, metadata: { labels: depLabels } },
          },
        },
      });
      const rs = await waitFor('a ReplicaSet owned by the Deployment', async () => {
        const list = await apps.listNamespacedReplicaSet({ namespace: ns });
        return list.items.find((r) => r.metadata?.ownerReferences?.some((o) => o.name === 'harness-deploy'));
      });
      const pod = await waitFor('a Pod created by the ReplicaSet', async () => {
        const list = await core.listNamespacedPod({ namespace: ns });
        return list.items.find((p) => p.metadata?.ownerReferences?.some((o) => o.name === rs.metadata?.name));
      });
      // No scheduler and no nodes: the pod exists but stays Pending.
      expect(pod.status?.phase).toBe('Pending');
    }),
    T,
  );

  test(
    'namespace-controller and garbage collector finish deleting a namespace with objects',
    withHarnessLogs(async () => {
      const ns = await createTestNamespace(kc, 'nsdel');
      const core = kc.makeApiClient(k8s.CoreV1Api);
      await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'x' }, data: { a: 'b' } } });
      await core.deleteNamespace({ name: ns });
      await waitFor(`namespace ${ns} to disappear`, async () => {
        try {
          await core.readNamespace({ name: ns });
          return undefined;
        } catch (err) {
          if (statusCode(err) === 404) return true;
          throw err;
        }
      });
    }),
    T,
  );
});

describe('CRDs devpkg relies on', () => {
  test(
    'install idempotently and serve PackageInstall, App, PackageRepository, ClusterResourceSet and TKR objects',
    withHarnessLogs(async () => {
      const names = await ensureHarnessCrds(kc);
      expect(names.sort()).toEqual([
        'apps.kappctrl.k14s.io',
        'clusterresourcesets.addons.cluster.x-k8s.io',
        'packageinstalls.packaging.carvel.dev',
        'packagerepositories.packaging.carvel.dev',
        'tanzukubernetesreleases.run.tanzu.vmware.com',
      ]);
      expect(await harnessCrds()).toHaveLength(5);
      await ensureHarnessCrds(kc); // second install: no error, nothing replaced

      const ns = await namespace('crds');
      const custom = kc.makeApiClient(k8s.CustomObjectsApi);
      const pkgi = { group: 'packaging.carvel.dev', version: 'v1alpha1', namespace: ns, plural: 'packageinstalls' };
      const created = await custom.createNamespacedCustomObject({
        ...pkgi,
        body: {
          apiVersion: 'packaging.carvel.dev/v1alpha1',
          kind: 'PackageInstall',
          metadata: { name: 'antrea', annotations: { 'packaging.carvel.dev/downgradable': '' } },
          spec: {
            serviceAccountName: 'harness-sa',
            packageRef: { refName: 'antrea.tanzu.vmware.com', versionSelection: { prereleases: {} } },
          },
        },
      });
      expect(created.metadata.generation).toBe(1);

      // A spec change bumps generation (kapp-controller, when it runs, may write status
      // meanwhile; that must not, and a JSON patch carries no resourceVersion to conflict on).
      const patched = await custom.patchNamespacedCustomObject(
        {
          ...pkgi,
          name: 'antrea',
          body: [{ op: 'add', path: '/spec/packageRef/versionSelection/constraints', value: '>=1.0.0' }],
        },
        k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.JsonPatch),
      );
      expect(patched.metadata.generation).toBe(2);

      await custom.createNamespacedCustomObject({
        group: 'kappctrl.k14s.io',
        version: 'v1alpha1',
        namespace: ns,
        plural: 'apps',
        body: {
          apiVersion: 'kappctrl.k14s.io/v1alpha1',
          kind: 'App',
          metadata: { name: 'antrea' },
          spec: {
            serviceAccountName: 'harness-sa',
            fetch: [{ imgpkgBundle: { image: 'registry.example/antrea@sha256:' + '0'.repeat(64) } }],
            template: [{ ytt: {} }],
            deploy: [{ kapp: {} }],
          },
        },
      });
      await custom.createNamespacedCustomObject({
        group: 'packaging.carvel.dev',
        version: 'v1alpha1',
        namespace: ns,
        plural: 'packagerepositories',
        body: {
          apiVersion: 'packaging.carvel.dev/v1alpha1',
          kind: 'PackageRepository',
          metadata: { name: 'tanzu-core' },
          spec: { fetch: { imgpkgBundle: { image: 'registry.example/repo:v1' } } },
        },
      });

      const crs = { group: 'addons.cluster.x-k8s.io', version: 'v1beta1', namespace: ns, plural: 'clusterresourcesets' };
      await custom.createNamespacedCustomObject({
        ...crs,
        body: {
          apiVersion: 'addons.cluster.x-k8s.io/v1beta1',
          kind: 'ClusterResourceSet',
          metadata: { name: 'antrea-dev', annotations: { 'tkg.tanzu.vmware.com/addon-type': 'cni/antrea' } },
          spec: {
            clusterSelector: { matchLabels: { 'tkg.tanzu.vmware.com/cluster-name': 'mgmt' } },
            resources: [{ name: 'antrea-dev-package', kind: 'Secret' }],
            strategy: 'ApplyOnce',
          },
        },
      });
      // status is a subresource (nothing reconciles CRSs here): writing it leaves generation alone.
      const withStatus = await custom.patchNamespacedCustomObjectStatus(
        {
          ...crs,
          name: 'antrea-dev',
          body: { status: { observedGeneration: 1, conditions: [{ type: 'ResourcesApplied', status: 'True', lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z') }] } },
        },
        k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
      );
      expect(withStatus.metadata.generation).toBe(1);
      expect(withStatus.status.conditions[0].type).toBe('ResourcesApplied');
      // The CRS schema is structural and validating: an unknown resource kind is rejected.
      await expect(
        custom.createNamespacedCustomObject({
          ...crs,
          body: {
            apiVersion: 'addons.cluster.x-k8s.io/v1beta1',
            kind: 'ClusterResourceSet',
            metadata: { name: 'bad' },
            spec: { clusterSelector: {}, resources: [{ name: 'x', kind: 'Deployment' }] },
          },
        }),
      ).rejects.toMatchObject({ code: 422 });

      const tkrName = `v1.37.2---vmware.1-tkg.1-${ns}`.slice(0, 63);
      await custom.createClusterCustomObject({
        group: 'run.tanzu.vmware.com',
        version: 'v1alpha1',
        plural: 'tanzukubernetesreleases',
        body: {
          apiVersion: 'run.tanzu.vmware.com/v1alpha1',
          kind: 'TanzuKubernetesRelease',
          metadata: { name: tkrName },
          spec: { version: 'v1.37.2+vmware.1-tkg.1', kubernetesVersion: 'v1.37.2+vmware.1' },
        },
      });
      try {
        // Served as v1alpha3 (TKG 2.x) as well.
        const v3 = await custom.getClusterCustomObject({
          group: 'run.tanzu.vmware.com',
          version: 'v1alpha3',
          plural: 'tanzukubernetesreleases',
          name: tkrName,
        });
        expect(v3.spec.version).toBe('v1.37.2+vmware.1-tkg.1');
      } finally {
        await custom.deleteClusterCustomObject({
          group: 'run.tanzu.vmware.com',
          version: 'v1alpha1',
          plural: 'tanzukubernetesreleases',
          name: tkrName,
        });
      }
    }),
    T,
  );
});

describe('watches', () => {
  interface Seen {
    type: string;
    name: string;
    resourceVersion: string;
  }

  /** Start a watch of ConfigMaps in `ns` from `resourceVersion`; events go to `seen`. */
  async function watchConfigMaps(ns: string, resourceVersion: string, seen: Seen[]) {
    let ended: (err: unknown) => void = () => {};
    const done = new Promise<unknown>((r) => (ended = r));
    const abort = await new k8s.Watch(kc).watch(
      `/api/v1/namespaces/${ns}/configmaps`,
      { resourceVersion, allowWatchBookmarks: false },
      (type, obj: { metadata: { name: string; resourceVersion: string } }) => {
        seen.push({ type, name: obj.metadata.name, resourceVersion: obj.metadata.resourceVersion });
      },
      (err) => ended(err ?? null),
    );
    return { abort, done };
  }

  test(
    'a watch resumes from its last resourceVersion after kube-apiserver restarts, missing nothing',
    withHarnessLogs(async () => {
      const ns = await namespace('watch');
      const core = kc.makeApiClient(k8s.CoreV1Api);
      const cm = (name: string) => ({ namespace: ns, body: { metadata: { name }, data: { name } } });
      await core.createNamespacedConfigMap(cm('before-watch'));
      const list = await core.listNamespacedConfigMap({ namespace: ns });
      const listRv = list.metadata?.resourceVersion as string;

      const seen: Seen[] = [];
      const first = await watchConfigMaps(ns, listRv, seen);
      await core.createNamespacedConfigMap(cm('during-first-watch'));
      await waitFor('ADDED during-first-watch', async () =>
        seen.find((e) => e.type === 'ADDED' && e.name === 'during-first-watch'),
      );
      expect(seen.some((e) => e.name === 'before-watch')).toBe(false); // started after the list

      await restartApiserver();
      let timer: NodeJS.Timeout | undefined;
      const endErr = await Promise.race([
        first.done,
        new Promise((r) => (timer = setTimeout(() => r('still open'), 30_000))),
      ]);
      clearTimeout(timer);
      expect(endErr).not.toBe('still open'); // the restart did end the watch
      first.abort.abort();

      // Changes made while no watch is open must arrive on the resumed watch.
      const lastRv = seen[seen.length - 1].resourceVersion;
      await core.createNamespacedConfigMap(cm('while-disconnected'));
      await core.patchNamespacedConfigMap(
        { name: 'during-first-watch', namespace: ns, body: { data: { changed: 'yes' } } },
        k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
      );

      const resumed: Seen[] = [];
      const second = await watchConfigMaps(ns, lastRv, resumed);
      try {
        await waitFor('the resumed watch to deliver both changes', async () =>
          resumed.some((e) => e.type === 'ADDED' && e.name === 'while-disconnected') &&
          resumed.some((e) => e.type === 'MODIFIED' && e.name === 'during-first-watch')
            ? true
            : undefined,
        );
        // Resuming does not replay what the first watch already saw.
        expect(resumed.some((e) => e.type === 'ADDED' && e.name === 'during-first-watch')).toBe(false);
        expect(resumed.map((e) => e.name)).not.toContain('before-watch');
      } finally {
        second.abort.abort();
      }
    }),
    180_000,
  );

  test(
    'a watch on a custom resource sees it added and its status changed',
    withHarnessLogs(async () => {
      await ensureHarnessCrds(kc);
      const ns = await namespace('crwatch');
      const custom = kc.makeApiClient(k8s.CustomObjectsApi);
      const crs = { group: 'addons.cluster.x-k8s.io', version: 'v1beta1', namespace: ns, plural: 'clusterresourcesets' };
      const events: string[] = [];
      const abort = await new k8s.Watch(kc).watch(
        `/apis/addons.cluster.x-k8s.io/v1beta1/namespaces/${ns}/clusterresourcesets`,
        {},
        (type, obj: { metadata: { name: string }; status?: { conditions?: { type: string; status: string }[] } }) => {
          const applied = obj.status?.conditions?.find((c) => c.type === 'ResourcesApplied')?.status;
          events.push(`${type} ${obj.metadata.name} ${applied === 'True' ? 'Applied' : '-'}`);
        },
        () => {},
      );
      try {
        await custom.createNamespacedCustomObject({
          ...crs,
          body: {
            apiVersion: 'addons.cluster.x-k8s.io/v1beta1',
            kind: 'ClusterResourceSet',
            metadata: { name: 'watched' },
            spec: { clusterSelector: {}, resources: [{ name: 'pkg', kind: 'Secret' }] },
          },
        });
        await custom.patchNamespacedCustomObjectStatus(
          // Valid under the harness's CRD and under Cluster API's own (test/harness/capi.sh installs it;
          // it prunes unknown status fields and requires lastTransitionTime).
          { ...crs, name: 'watched', body: { status: { conditions: [{ type: 'ResourcesApplied', status: 'True', lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z') }] } } },
          k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
        );
        await waitFor('ADDED and MODIFIED events', async () =>
          events.includes('ADDED watched -') && events.includes('MODIFIED watched Applied')
            ? true
            : undefined,
        );
      } finally {
        abort.abort();
      }
    }),
    T,
  );
});

describe('Carvel tools and the registry', () => {
  test(
    'the built CLIs report their pinned versions',
    withHarnessLogs(async () => {
      const v = pinnedVersions();
      const expectations: Array<[string, string]> = [
        ['ytt', v.YTT_VERSION],
        ['imgpkg', v.IMGPKG_VERSION],
        ['kbld', v.KBLD_VERSION],
        ['kapp', v.KAPP_VERSION],
        ['vendir', v.VENDIR_VERSION],
      ];
      for (const [tool, version] of expectations) {
        const out = await runTool(tool, ['version']);
        expect(`${tool}: ${out.stdout}`).toContain(`${tool} version ${version.replace(/^v/, '')}`);
      }
      const kubectl = await runTool('kubectl', ['version', '--client', '-o', 'json']);
      expect(JSON.parse(kubectl.stdout).clientVersion.gitVersion).toBe(v.KUBERNETES_VERSION);
      // The tools resolve from the harness's bin directory first.
      const which = await runTool('bash', ['-c', 'command -v ytt']);
      expect(which.stdout.trim()).toBe(join(harnessEnv().binDir, 'ytt'));
    }),
    T,
  );

  test(
    'imgpkg pushes a bundle to the registry, skopeo inspects it, imgpkg pulls it back',
    withHarnessLogs(async () => {
      const { registry } = harnessEnv();
      const dir = tmp('bundle');
      mkdirSync(join(dir, 'bundle', '.imgpkg'), { recursive: true });
      mkdirSync(join(dir, 'bundle', 'config'), { recursive: true });
      writeFileSync(
        join(dir, 'bundle', '.imgpkg', 'images.yml'),
        'apiVersion: imgpkg.carvel.dev/v1alpha1\nkind: ImagesLock\nimages: []\n',
      );
      writeFileSync(join(dir, 'bundle', 'config', 'cm.yaml'), 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n');
      const repo = `${registry}/devpkg-harness/bundle-${Date.now().toString(36)}`;
      const lockFile = join(dir, 'lock.yml');
      await runTool('imgpkg', ['push', '-b', `${repo}:1.2.3_dev.1`, '-f', join(dir, 'bundle'), '--lock-output', lockFile]);
      const lock = parse(readFileSync(lockFile, 'utf8')) as { kind: string; bundle: { image: string; tag: string } };
      expect(lock.kind).toBe('BundleLock');
      expect(lock.bundle.tag).toBe('1.2.3_dev.1');
      const m = /^(.+)@(sha256:[0-9a-f]{64})$/.exec(lock.bundle.image);
      expect(m?.[1]).toBe(repo);
      const digest = m?.[2] as string;

      const inspected = JSON.parse(
        (await runTool('skopeo', ['inspect', '--tls-verify=false', `docker://${repo}:1.2.3_dev.1`])).stdout,
      ) as { Digest: string; Labels: Record<string, string>; Layers: string[] };
      expect(inspected.Digest).toBe(digest);
      expect(inspected.Labels['dev.carvel.imgpkg.bundle']).toBe('true');
      expect(inspected.Layers).toHaveLength(1);

      const out = join(dir, 'pulled');
      await runTool('imgpkg', ['pull', '-b', lock.bundle.image, '-o', out]);
      expect(readFileSync(join(out, 'config', 'cm.yaml'), 'utf8')).toContain('kind: ConfigMap');
    }),
    T,
  );

  test(
    'ytt renders a template with data values',
    withHarnessLogs(async () => {
      const dir = tmp('ytt');
      writeFileSync(
        join(dir, 'values.yaml'),
        '#@data/values\n---\nversion: 1.0.0\nreplicas: 1\n',
      );
      writeFileSync(
        join(dir, 'tpl.yaml'),
        [
          '#@ load("@ytt:data", "data")',
          'apiVersion: data.packaging.carvel.dev/v1alpha1',
          'kind: Package',
          'metadata:',
          '  name: #@ "antrea.tanzu.vmware.com." + data.values.version',
          'spec:',
          '  refName: antrea.tanzu.vmware.com',
          '  version: #@ data.values.version',
          '  replicas: #@ data.values.replicas * 2',
          '',
        ].join('\n'),
      );
      const out = await runTool('ytt', ['-f', dir, '--data-value', 'version=0.13.4-dev.1']);
      const doc = parse(out.stdout) as { metadata: { name: string }; spec: { version: string; replicas: number } };
      expect(doc.metadata.name).toBe('antrea.tanzu.vmware.com.0.13.4-dev.1');
      expect(doc.spec.version).toBe('0.13.4-dev.1');
      expect(doc.spec.replicas).toBe(2);
    }),
    T,
  );

  test(
    'kapp deploys a DaemonSet to the control plane and waits until it is reconciled',
    withHarnessLogs(async () => {
      const ns = await namespace('kapp');
      const dir = tmp('kapp');
      writeFileSync(
        join(dir, 'app.yaml'),
        [
          'apiVersion: apps/v1',
          'kind: DaemonSet',
          'metadata: {name: agent}',
          'spec:',
          '  selector: {matchLabels: {app: agent}}',
          '  template:',
          '    metadata: {labels: {app: agent}}',
          '    spec: {containers: [{name: pause, image: registry.k8s.io/pause:3.10}]}',
          '---',
          'apiVersion: v1',
          'kind: ConfigMap',
          'metadata: {name: agent-config}',
          'data: {a: b}',
          '',
        ].join('\n'),
      );
      await runTool('kapp', ['deploy', '-a', 'harness', '-n', ns, '--into-ns', ns, '-f', dir, '-y', '--wait-timeout', '2m'], {
        timeoutMs: 180_000,
      });
      const apps = kc.makeApiClient(k8s.AppsV1Api);
      const ds = await apps.readNamespacedDaemonSet({ name: 'agent', namespace: ns });
      expect(ds.status?.observedGeneration).toBe(ds.metadata?.generation);
      await runTool('kapp', ['delete', '-a', 'harness', '-n', ns, '-y'], { timeoutMs: 180_000 });
      await expect(apps.readNamespacedDaemonSet({ name: 'agent', namespace: ns })).rejects.toMatchObject({ code: 404 });
    }),
    240_000,
  );
});
