/**
 * The dev Package and the 04_user_customizations file against the real tools:
 * - ytt (the one on PATH, as the tanzu CLI would run it) renders the file into a
 *   ClusterResourceSet and a Secret whose stringData.value is the dev Package, unchanged;
 * - kube-apiserver accepts the rendered CRS and Secret; kapp-controller's aggregated API accepts
 *   the dev Package, and a Package read back from it derives to the same dev Package;
 * - the example repository's antrea bundle, pushed with imgpkg and installed through a derived
 *   dev Package by a PackageInstall shaped like the addons manager's, deploys.
 */
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { KubernetesObject, KubernetesObjectApi } from '@kubernetes/client-node';
import { parse, parseAllDocuments } from 'yaml';
import { deriveDevPackage, devPackageToYaml } from '../../src/packages/derive.js';
import { loadPackage } from '../support/load-package.js';
import { parsePackageFile, parsePackageMetadataFile, type Package } from '../../src/packages/model.js';
import { renderOverlay } from '../../src/packages/overlay.js';
import { ensureHarnessCrds } from './helpers/crds.js';
import { newRunId, repoRoot, runTool } from './helpers/run.js';
import { createInstallAccount } from './helpers/kube.js';

const EXAMPLE = path.join(repoRoot, 'examples', 'tce-packages');
const DIGEST = `sha256:${'d'.repeat(64)}`;
const runId = newRunId();

interface Obj extends KubernetesObject {
  spec?: Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  status?: Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  stringData?: Record<string, string>;
  type?: string;
}

let workDir = '';

beforeAll(async () => {
  workDir = await mkdtemp(path.join(os.tmpdir(), 'devpkg-overlay-it-'));
});

afterAll(async () => {
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

/** Renders `text` with ytt and TKG-style data values (a `#@data/values` file); returns the documents. */
async function ytt(text: string, values: Record<string, string>, name = 'antrea_dev_package.yaml'): Promise<Obj[]> {
  const dir = await mkdtemp(path.join(workDir, 'ytt-'));
  await writeFile(path.join(dir, name), text);
  const valuesYaml = ['#@data/values', '---', ...Object.entries(values).map(([k, v]) => `${k}: ${JSON.stringify(v)}`), ''].join('\n');
  await writeFile(path.join(dir, 'values.yaml'), valuesYaml);
  const { stdout } = await runTool('ytt', ['-f', path.join(dir, 'values.yaml'), '-f', path.join(dir, name)]);
  return parseAllDocuments(stdout)
    .map((d) => d.toJS() as Obj | null)
    .filter((d): d is Obj => d !== null);
}

async function exampleDevPackage(namespace: string, image = `10.89.0.2:5000/devpkg/antrea@${DIGEST}`): Promise<Package> {
  const v = await loadPackage(EXAMPLE, 'addons/packages', 'antrea', '1.5.3');
  return deriveDevPackage(v.pkg, { version: '1.5.4-dev.1', image, namespace, refName: 'antrea.tanzu.vmware.com' }).pkg;
}

function trickyDevPackage(): Package {
  const pkg = parsePackageFile(
    `apiVersion: data.packaging.carvel.dev/v1alpha1
kind: Package
metadata:
  name: pkg.test.carvel.dev.1.0.0
  labels:
    enabled: "yes"
    comment: "# not a comment"
spec:
  refName: pkg.test.carvel.dev
  version: 1.0.0
  releaseNotes: "#@ fail('this must stay text')"
  template:
    spec:
      fetch:
      - imgpkgBundle:
          image: example.com/pkg@sha256:${'a'.repeat(64)}
      template:
      - ytt:
          paths: [config/]
          inline:
            paths:
              overlay.yaml: |
                #@ load("@ytt:overlay", "overlay")
                #@overlay/match by=overlay.all, expects="1+"
                ---
                metadata:
                  #@overlay/match missing_ok=True
                  labels: {from: "#@ data.values.x"}
      deploy:
      - kapp: {}
`,
    'tricky.yaml',
  );
  return deriveDevPackage(pkg, { version: '1.0.1-dev.1', image: `example.com/pkg@${DIGEST}` }).pkg;
}

describe('ytt renders the 04_user_customizations file', () => {
  const cases: [string, () => Promise<Package>][] = [
    ['the example antrea package, renamed to the TKG refName', () => exampleDevPackage('tkg-system')],
    ['a Package read back from a cluster', async () => {
      const text = await readFile(path.join(repoRoot, 'src/packages/testdata/antrea-from-cluster.yaml'), 'utf8');
      return deriveDevPackage(parsePackageFile(text, 'antrea-from-cluster.yaml'), { version: '1.5.3+vmware.1-tkg.2', image: `10.89.0.2:5000/antrea@${DIGEST}` }).pkg;
    }],
    ['strings that look like ytt code or YAML 1.1 booleans', async () => trickyDevPackage()],
  ];

  test.each(cases)('%s: a CRS and a Secret that carries the dev Package unchanged', async (_what, make) => {
    const devPkg = await make();
    const docs = await ytt(renderOverlay(devPkg, { name: devPkg.spec.refName.split('.')[0] }), {
      CLUSTER_NAME: 'mgmt',
      NAMESPACE: 'tkg-system',
      TKG_CLUSTER_ROLE: 'management',
    });
    expect(docs.map((d) => `${d.apiVersion}/${d.kind}`)).toEqual(['addons.cluster.x-k8s.io/v1beta1/ClusterResourceSet', 'v1/Secret']);
    const [crs, secret] = docs as [Obj, Obj];
    const objectName = `mgmt-${devPkg.spec.refName.split('.')[0]}-dev-package`;
    expect(crs.metadata).toEqual({
      name: objectName,
      namespace: 'tkg-system',
      labels: { 'cluster.x-k8s.io/cluster-name': 'mgmt' },
      annotations: { 'tkg.tanzu.vmware.com/addon-type': expect.stringMatching(/^[a-z-]+\/[a-z-]+$/) },
    });
    expect(crs.spec).toEqual({
      strategy: 'ApplyOnce',
      clusterSelector: { matchLabels: { 'tkg.tanzu.vmware.com/cluster-name': 'mgmt' } },
      resources: [{ name: objectName, kind: 'Secret' }],
    });
    expect(secret.metadata).toEqual(crs.metadata);
    expect(secret.type).toBe('addons.cluster.x-k8s.io/resource-set');
    expect(Object.keys(secret.stringData ?? {})).toEqual(['value']);
    const carried = parse(secret.stringData!.value!) as Package;
    expect(carried).toEqual({ ...devPkg, metadata: { ...devPkg.metadata, namespace: devPkg.metadata.namespace ?? 'tkg-system' } });
    // What a YAML 1.1 reader (the CRS controller's apply path) sees is the same data.
    expect(parse(secret.stringData!.value!, { version: '1.1' })).toEqual(carried);
  });

  test('the tricky strings arrive as strings, not as ytt code', async () => {
    const devPkg = trickyDevPackage();
    const [, secret] = await ytt(renderOverlay(devPkg), { CLUSTER_NAME: 'c', NAMESPACE: 'default', TKG_CLUSTER_ROLE: 'management' });
    const carried = parse(secret!.stringData!.value!) as Package;
    expect(carried.spec.releaseNotes).toBe("#@ fail('this must stay text')");
    expect(carried.metadata.labels).toEqual({ enabled: 'yes', comment: '# not a comment' });
    const inline = (carried.spec.template?.spec?.template?.[0] as { ytt: { inline: { paths: Record<string, string> } } }).ytt.inline.paths['overlay.yaml'];
    expect(inline).toContain('labels: {from: "#@ data.values.x"}\n');
  });

  test('workload clusters get nothing; --all-clusters style output does not look at the role', async () => {
    const devPkg = await exampleDevPackage('tkg-system');
    const values = { CLUSTER_NAME: 'wl', NAMESPACE: 'default', TKG_CLUSTER_ROLE: 'workload' };
    expect(await ytt(renderOverlay(devPkg), values)).toEqual([]);
    const docs = await ytt(renderOverlay(devPkg, { managementOnly: false }), values);
    expect(docs.map((d) => d.kind)).toEqual(['ClusterResourceSet', 'Secret']);
  });

  test('a derived Package printed as YAML reads back equal (devPackageToYaml is lossless)', async () => {
    const devPkg = await exampleDevPackage('tkg-system');
    expect(parse(devPackageToYaml(devPkg))).toEqual(devPkg);
  });
});

// ---------------------------------------------------------------------------------------------
// Against the harness: kube-apiserver (+ the CRS CRD) and kapp-controller.

let api: KubernetesObjectApi;
const ns = `devpkg-ov-${runId}`;
const sa = `antrea-${ns}-sa`;
const clusterRole = `antrea-${ns}-cluster-role`;

async function read(apiVersion: string, kind: string, namespace: string | undefined, name: string): Promise<Obj | undefined> {
  try {
    return (await api.read({ apiVersion, kind, metadata: { name, namespace } })) as Obj;
  } catch (e) {
    if ((e as { code?: number }).code === 404) return undefined;
    throw e;
  }
}

async function remove(apiVersion: string, kind: string, namespace: string | undefined, name: string): Promise<void> {
  try {
    await api.delete({ apiVersion, kind, metadata: { name, namespace } });
  } catch (e) {
    if ((e as { code?: number }).code !== 404) throw e;
  }
}

async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, describe: () => Promise<unknown>, ms = 150_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${ms / 1000}s waiting for ${what}; last seen:\n${JSON.stringify(await describe(), null, 2)}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

describe('on the test control plane with kapp-controller', () => {
  beforeAll(async () => {
    for (const v of ['KUBECONFIG', 'DEVPKG_TEST_REGISTRY', 'KAPPCTRL_NAMESPACE']) {
      if (!process.env[v]) throw new Error(`${v} is not set: these tests need the harness with kapp-controller (npm run test:integration)`);
    }
    const k8s = await import('@kubernetes/client-node');
    const kc = new k8s.KubeConfig();
    kc.loadFromDefault();
    api = k8s.KubernetesObjectApi.makeApiClient(kc);
    await ensureHarnessCrds(kc); // the ClusterResourceSet CRD
    await api.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  });

  afterAll(async () => {
    if (!api) return;
    await remove('packaging.carvel.dev/v1alpha1', 'PackageInstall', ns, 'antrea').catch(() => undefined);
    await waitFor('PackageInstall deletion', async () => ((await read('packaging.carvel.dev/v1alpha1', 'PackageInstall', ns, 'antrea')) ? undefined : true), async () => null, 60_000).catch(
      (e: Error) => console.warn(e.message),
    );
    await remove('rbac.authorization.k8s.io/v1', 'ClusterRoleBinding', undefined, clusterRole).catch(() => undefined);
    await remove('rbac.authorization.k8s.io/v1', 'ClusterRole', undefined, clusterRole).catch(() => undefined);
    await remove('v1', 'Namespace', undefined, ns).catch(() => undefined);
  });

  test('kube-apiserver takes the rendered CRS and Secret; kapp-controller takes the dev Package; a read-back derives to the same Package', async () => {
    const devPkg = await exampleDevPackage(ns);
    const docs = await ytt(renderOverlay(devPkg), { CLUSTER_NAME: 'mgmt', NAMESPACE: ns, TKG_CLUSTER_ROLE: 'management' });
    for (const d of docs) await api.create(d);
    const crs = await read('addons.cluster.x-k8s.io/v1beta1', 'ClusterResourceSet', ns, 'mgmt-antrea-dev-package');
    expect(crs?.spec?.strategy).toBe('ApplyOnce');
    const secret = await read('v1', 'Secret', ns, 'mgmt-antrea-dev-package');
    expect(secret?.type).toBe('addons.cluster.x-k8s.io/resource-set');
    const value = Buffer.from((secret as unknown as { data: Record<string, string> }).data.value!, 'base64').toString('utf8');

    // What the CRS controller would do with the Secret: create the object exactly as written.
    const carried = parse(value) as Package;
    await api.create(carried as unknown as KubernetesObject);
    const readBack = (await read('data.packaging.carvel.dev/v1alpha1', 'Package', ns, carried.metadata.name)) as unknown as Package;
    expect(readBack.metadata.uid).toBeDefined();
    expect(readBack.spec.version).toBe('1.5.4-dev.1');

    // Deriving from the cluster's copy strips what the server added and gives the same result.
    const again = deriveDevPackage(readBack, { version: '1.5.4-dev.2', image: `10.89.0.2:5000/devpkg/antrea@${DIGEST}` }).pkg;
    const fromFile = deriveDevPackage(carried, { version: '1.5.4-dev.2', image: `10.89.0.2:5000/devpkg/antrea@${DIGEST}` }).pkg;
    expect(again).toEqual(fromFile);
    await api.create(again as unknown as KubernetesObject);
    await remove('data.packaging.carvel.dev/v1alpha1', 'Package', ns, again.metadata.name);
    await remove('data.packaging.carvel.dev/v1alpha1', 'Package', ns, carried.metadata.name);
  });

  test('the example antrea bundle, pushed with imgpkg, installs through the dev Package and outranks 1.5.3', async () => {
    const registry = process.env.DEVPKG_TEST_REGISTRY!;
    const bundleDir = path.join(workDir, 'antrea-bundle');
    await cp(path.join(EXAMPLE, 'addons/packages/antrea/1.5.3/bundle'), bundleDir, { recursive: true });
    const lock = path.join(workDir, 'antrea.lock.yml');
    await runTool('imgpkg', ['push', '-b', `${registry}/devpkg-it/${runId}/antrea:1.5.4-dev.1`, '-f', bundleDir, '--lock-output', lock, '--tty=false'], {
      env: { ...process.env, IMGPKG_ENABLE_IAAS_AUTH: 'false' },
    });
    const image = (parse(await readFile(lock, 'utf8')) as { bundle: { image: string } }).bundle.image;
    expect(image).toMatch(/@sha256:[0-9a-f]{64}$/);

    const released = await loadPackage(EXAMPLE, 'addons/packages', 'antrea', '1.5.3');
    const dev = deriveDevPackage(released.pkg, { version: '1.5.4-dev.1', image, namespace: ns }).pkg;
    const md = parsePackageMetadataFile(await readFile(path.join(EXAMPLE, 'addons/packages/antrea/metadata.yaml'), 'utf8'), 'metadata.yaml').metadata;
    await api.create({ ...md, metadata: { ...md.metadata, namespace: ns } } as KubernetesObject);
    await api.create({ ...released.pkg.pkg, metadata: { ...released.pkg.pkg.metadata, namespace: ns } } as KubernetesObject);
    await api.create(dev as unknown as KubernetesObject);

    await createInstallAccount(api, { namespace: ns, serviceAccount: sa, clusterRole, valuesSecret: 'antrea-data-values', values: `namespace: ${ns}\nantrea:\n  config:\n    trafficEncapMode: hybrid\n` });
    await api.create({
      apiVersion: 'packaging.carvel.dev/v1alpha1',
      kind: 'PackageInstall',
      metadata: { name: 'antrea', namespace: ns },
      spec: {
        serviceAccountName: sa,
        packageRef: { refName: 'antrea.community.tanzu.vmware.com', versionSelection: { prereleases: {} } },
        values: [{ secretRef: { name: 'antrea-data-values' } }],
        syncPeriod: '30s',
      },
    } as Obj);

    const describe = async () => {
      const [pkgi, app] = await Promise.all([
        read('packaging.carvel.dev/v1alpha1', 'PackageInstall', ns, 'antrea'),
        read('kappctrl.k14s.io/v1alpha1', 'App', ns, 'antrea'),
      ]);
      return { packageInstall: pkgi?.status, app: app?.status };
    };
    const app = await waitFor(
      'PackageInstall antrea to reconcile 1.5.4-dev.1',
      async () => {
        const pkgi = await read('packaging.carvel.dev/v1alpha1', 'PackageInstall', ns, 'antrea');
        const a = await read('kappctrl.k14s.io/v1alpha1', 'App', ns, 'antrea');
        const ok = (o?: Obj) => o?.status?.conditions?.length === 1 && o.status.conditions[0].type === 'ReconcileSucceeded' && o.status.observedGeneration === o.metadata?.generation;
        return ok(pkgi) && ok(a) && pkgi!.status!.version === '1.5.4-dev.1' ? a : undefined;
      },
      describe,
    );
    expect(String(app?.status?.fetch?.stdout)).toContain(image.slice(image.indexOf('@') + 1));
    const ds = await read('apps/v1', 'DaemonSet', ns, 'antrea-agent');
    const template = ds?.spec?.template as { metadata: { annotations: Record<string, string> }; spec: { containers: { image: string }[] } };
    expect(template.metadata.annotations['antrea.io/traffic-encap-mode']).toBe('hybrid');
    expect(template.spec.containers[0]!.image).toMatch(/^projects\.registry\.vmware\.com\/antrea\/antrea-ubuntu@sha256:[0-9a-f]{64}$/);
    const cm = await read('v1', 'ConfigMap', ns, 'antrea-config');
    expect(parse((cm as unknown as { data: Record<string, string> }).data['antrea-agent.conf']!)).toEqual({ trafficEncapMode: 'hybrid', noSNAT: false, defaultMTU: 0 });
  });
});
