/**
 * The claim devpkg exists to prove, checked against kapp-controller itself: a PackageInstall shaped
 * like the TKG addons manager's (refName only, `prereleases: {}`, a service account with RBAC)
 * moves to a higher dev Package, reports a broken dev Package the way kapp-controller does, and
 * will not go back down unless it carries `packaging.carvel.dev/downgradable: ""`.
 *
 * Needs the harness with kapp-controller: `eval "$(test/harness/controlplane.sh up --kapp-controller)"`
 * (KUBECONFIG, DEVPKG_TEST_REGISTRY, KAPPCTRL_NAMESPACE, imgpkg on PATH). The steps build on each
 * other and run in order.
 */
import { execFile } from 'node:child_process';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { KubernetesObject, KubernetesObjectApi } from '@kubernetes/client-node';
import { parse as parseYaml } from 'yaml';
import { createInstallAccount } from './helpers/kube.js';
import { newRunId } from './helpers/run.js';

const execFileP = promisify(execFile);

const FIXTURES = path.resolve(process.cwd(), 'test/fixtures/kapp-controller');
const REF_NAME = 'devpkg-agent.devpkg.test';
const PKGI = 'devpkg-agent';
const RELEASED = '1.0.0';
const DEV = '1.0.1-dev.1';
const DEV_BROKEN = '1.0.1-dev.2';
const WAIT_MS = 150_000;

// ---- small local helpers (devpkg's own Kubernetes client code is not part of this test) ----

interface Obj extends KubernetesObject {
  spec?: Record<string, unknown>;
  status?: Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  data?: Record<string, string>;
}

let api: KubernetesObjectApi;
let PatchStrategy: { MergePatch: 'application/merge-patch+json' };

function isNotFound(e: unknown): boolean {
  return (e as { code?: number }).code === 404;
}

async function read(apiVersion: string, kind: string, namespace: string | undefined, name: string): Promise<Obj | undefined> {
  try {
    return (await api.read({ apiVersion, kind, metadata: { name, namespace } })) as Obj;
  } catch (e) {
    if (isNotFound(e)) return undefined;
    throw e;
  }
}

async function remove(apiVersion: string, kind: string, namespace: string | undefined, name: string): Promise<void> {
  try {
    await api.delete({ apiVersion, kind, metadata: { name, namespace } });
  } catch (e) {
    if (!isNotFound(e)) throw e;
  }
}

/** Poll until `probe` returns a value; on time-out throw with the last thing `describe` saw. */
async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, describe: () => Promise<unknown>, ms = WAIT_MS): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${ms / 1000}s waiting for ${what}; last seen:\n${JSON.stringify(await describe(), null, 2)}`);
    }
    await new Promise((r) => setTimeout(r, 500));
  }
}

// ---- the scenario ----

const registry = process.env.DEVPKG_TEST_REGISTRY ?? '';
const runId = newRunId();
const ns = `devpkg-kc-${runId}`;
const sa = `${PKGI}-${ns}-sa`;
const clusterRole = `${PKGI}-${ns}-cluster-role`;
const repo = `${registry}/devpkg-it/${runId}/devpkg-agent`;
const bundles = new Map<string, { image: string; digest: string }>();
let workDir = '';

/** Build the fixture bundle for `version` (optionally broken) and push it with imgpkg. */
async function pushBundle(version: string, broken = false): Promise<{ image: string; digest: string }> {
  const dir = path.join(workDir, version);
  await cp(path.join(FIXTURES, 'bundle'), dir, { recursive: true });
  await writeFile(path.join(dir, 'config/version.star'), `bundle_version = ${JSON.stringify(version)}\n`);
  if (broken) await cp(path.join(FIXTURES, 'broken/broken.yaml'), path.join(dir, 'config/broken.yaml'));
  const lock = path.join(workDir, `${version}.lock.yml`);
  await execFileP('imgpkg', ['push', '-b', `${repo}:${version}`, '-f', dir, '--lock-output', lock, '--tty=false'], {
    env: { ...process.env, IMGPKG_ENABLE_IAAS_AUTH: 'false' },
  });
  const image = (parseYaml(await readFile(lock, 'utf8')) as { bundle: { image: string } }).bundle.image;
  const digest = image.slice(image.indexOf('@') + 1);
  expect(digest).toMatch(/^sha256:[0-9a-f]{64}$/);
  const b = { image, digest };
  bundles.set(version, b);
  return b;
}

function packageCR(version: string): Obj {
  const b = bundles.get(version);
  if (!b) throw new Error(`no bundle pushed for ${version}`);
  return {
    apiVersion: 'data.packaging.carvel.dev/v1alpha1',
    kind: 'Package',
    metadata: { name: `${REF_NAME}.${version}`, namespace: ns },
    spec: {
      refName: REF_NAME,
      version,
      releasedAt: new Date().toISOString(),
      template: {
        spec: {
          fetch: [{ imgpkgBundle: { image: b.image } }],
          template: [{ ytt: { paths: ['config/'] } }, { kbld: { paths: ['-', '.imgpkg/images.yml'] } }],
          deploy: [{ kapp: {} }],
        },
      },
    },
  };
}

const readPkgi = (): Promise<Obj | undefined> => read('packaging.carvel.dev/v1alpha1', 'PackageInstall', ns, PKGI);
const readApp = (): Promise<Obj | undefined> => read('kappctrl.k14s.io/v1alpha1', 'App', ns, PKGI);

async function describeState(): Promise<unknown> {
  const [pkgi, app] = await Promise.all([readPkgi(), readApp()]);
  return {
    packageInstall: pkgi && { generation: pkgi.metadata?.generation, annotations: pkgi.metadata?.annotations, status: pkgi.status },
    app: app && { generation: app.metadata?.generation, status: app.status },
  };
}

function onlyCondition(o: Obj | undefined): string | undefined {
  const c = o?.status?.conditions as { type: string; status: string }[] | undefined;
  return c && c.length === 1 && c[0].status === 'True' ? c[0].type : undefined;
}

/** The devpkg definition of "this version won" (DESIGN.md, "Proof that a version won"). */
async function waitForWin(version: string): Promise<{ pkgi: Obj; app: Obj }> {
  const digest = bundles.get(version)!.digest;
  return waitFor(
    `PackageInstall ${PKGI} to reconcile ${version}`,
    async () => {
      const [pkgi, app] = await Promise.all([readPkgi(), readApp()]);
      if (!pkgi || !app) return undefined;
      const ok =
        pkgi.status?.observedGeneration === pkgi.metadata?.generation &&
        onlyCondition(pkgi) === 'ReconcileSucceeded' &&
        pkgi.status?.version === version &&
        pkgi.status?.lastAttemptedVersion === version &&
        app.status?.observedGeneration === app.metadata?.generation &&
        onlyCondition(app) === 'ReconcileSucceeded' &&
        String(app.status?.fetch?.stdout ?? '').includes(digest);
      return ok ? { pkgi, app } : undefined;
    },
    describeState,
  );
}

async function deployedConfigMap(): Promise<Obj | undefined> {
  return read('v1', 'ConfigMap', ns, 'devpkg-agent-config');
}

describe('kapp-controller on the test control plane', () => {
  beforeAll(async () => {
    for (const v of ['KUBECONFIG', 'DEVPKG_TEST_REGISTRY', 'KAPPCTRL_NAMESPACE']) {
      if (!process.env[v]) {
        throw new Error(`${v} is not set: start the harness with kapp-controller first: eval "$(test/harness/controlplane.sh up --kapp-controller)"`);
      }
    }
    const k8s = await import('@kubernetes/client-node');
    PatchStrategy = k8s.PatchStrategy as typeof PatchStrategy;
    const kc = new k8s.KubeConfig();
    kc.loadFromDefault();
    api = k8s.KubernetesObjectApi.makeApiClient(kc);
    workDir = await mkdtemp(path.join(os.tmpdir(), 'devpkg-kc-'));

    await api.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    await createInstallAccount(api, { namespace: ns, serviceAccount: sa, clusterRole, valuesSecret: `${PKGI}-data-values`, values: 'greeting: from-the-packageinstall\n' });
  });

  afterAll(async () => {
    if (!api) return;
    // kapp-controller deletes the App (and kapp deletes what it deployed) before the
    // PackageInstall goes; give it that turn, then drop the rest.
    await remove('packaging.carvel.dev/v1alpha1', 'PackageInstall', ns, PKGI).catch(() => undefined);
    await waitFor('PackageInstall deletion', async () => ((await readPkgi()) ? undefined : true), describeState, 60_000).catch(
      (e: Error) => console.warn(e.message),
    );
    await remove('rbac.authorization.k8s.io/v1', 'ClusterRoleBinding', undefined, clusterRole).catch(() => undefined);
    await remove('rbac.authorization.k8s.io/v1', 'ClusterRole', undefined, clusterRole).catch(() => undefined);
    await remove('v1', 'Namespace', undefined, ns).catch(() => undefined);
    if (workDir) await rm(workDir, { recursive: true, force: true });
  });

  test('a PackageInstall shaped like the addons manager\'s installs the released 1.0.0', async () => {
    await pushBundle(RELEASED);
    await api.create(packageCR(RELEASED));
    await api.create({
      apiVersion: 'data.packaging.carvel.dev/v1alpha1',
      kind: 'PackageMetadata',
      metadata: { name: REF_NAME, namespace: ns },
      spec: { displayName: 'devpkg agent', shortDescription: 'devpkg integration-test package' },
    } as Obj);
    await api.create({
      apiVersion: 'packaging.carvel.dev/v1alpha1',
      kind: 'PackageInstall',
      metadata: { name: PKGI, namespace: ns },
      spec: {
        serviceAccountName: sa,
        packageRef: { refName: REF_NAME, versionSelection: { prereleases: {} } },
        values: [{ secretRef: { name: `${PKGI}-data-values` } }],
        // The shortest period kapp-controller accepts (its minimum is 30s).
        syncPeriod: '30s',
      },
    } as Obj);

    const { app } = await waitForWin(RELEASED);
    expect(app.status?.fetch?.exitCode).toBe(0);
    const cm = await deployedConfigMap();
    expect(cm?.data).toEqual({ version: RELEASED, greeting: 'from-the-packageinstall' });
    const ds = await read('apps/v1', 'DaemonSet', ns, 'devpkg-agent');
    const podSpec = (ds?.spec as { template: { spec: { containers: { image: string }[] } } }).template.spec;
    // kbld resolved the tag through the bundle's .imgpkg/images.yml.
    expect(podSpec.containers[0].image).toMatch(/^example\.invalid\/devpkg\/agent@sha256:[0-9a-f]{64}$/);
  });

  test('adding Package 1.0.1-dev.1 moves the PackageInstall to the dev version', async () => {
    await pushBundle(DEV);
    await api.create(packageCR(DEV));

    const { pkgi, app } = await waitForWin(DEV);
    expect(pkgi.status?.friendlyDescription).toBe('Reconcile succeeded');
    // vendir's lock output names the dev bundle by digest, and not the released one.
    const stdout = String(app.status?.fetch?.stdout);
    expect(stdout).toContain(bundles.get(DEV)!.image);
    expect(stdout).not.toContain(bundles.get(RELEASED)!.digest);
    expect((await deployedConfigMap())?.data?.version).toBe(DEV);
  });

  test('a dev Package whose ytt template is broken ends ReconcileFailed with kapp-controller\'s usefulErrorMessage', async () => {
    await pushBundle(DEV_BROKEN, true);
    await api.create(packageCR(DEV_BROKEN));

    const { pkgi, app } = await waitFor(
      'PackageInstall to fail on the broken dev version',
      async () => {
        const [pkgi, app] = await Promise.all([readPkgi(), readApp()]);
        return pkgi &&
          app &&
          pkgi.status?.observedGeneration === pkgi.metadata?.generation &&
          pkgi.status?.lastAttemptedVersion === DEV_BROKEN &&
          onlyCondition(pkgi) === 'ReconcileFailed' &&
          app.status?.observedGeneration === app.metadata?.generation &&
          onlyCondition(app) === 'ReconcileFailed'
          ? { pkgi, app }
          : undefined;
      },
      describeState,
    );
    expect(pkgi.status?.version).toBe(DEV_BROKEN);
    expect(pkgi.status?.friendlyDescription).toBe('Reconcile failed: Error (see .status.usefulErrorMessage for details)');
    const useful = String(pkgi.status?.usefulErrorMessage);
    // The PackageInstall carries the App's message, which is ytt's own error.
    expect(useful).toBe(app.status?.usefulErrorMessage);
    expect(useful).toMatch(/ytt: Error: /);
    expect(useful).toContain('no_such_value');
    expect(String(app.status?.fetch?.stdout)).toContain(bundles.get(DEV_BROKEN)!.digest);
    expect(app.status?.template?.exitCode).not.toBe(0);
    expect(String(app.status?.template?.stderr)).toContain('no_such_value');
    // Nothing was deployed from the broken version: the dev version stays in place.
    expect((await deployedConfigMap())?.data?.version).toBe(DEV);
  });

  test('removing the dev Packages hits the downgrade guard until the PackageInstall is downgradable', async () => {
    await remove('data.packaging.carvel.dev/v1alpha1', 'Package', ns, `${REF_NAME}.${DEV_BROKEN}`);
    await remove('data.packaging.carvel.dev/v1alpha1', 'Package', ns, `${REF_NAME}.${DEV}`);

    const expected =
      `Stopped installing matched version '${RELEASED}' since last attempted version '${DEV_BROKEN}' is higher.` +
      '\nhint: Add annotation packaging.carvel.dev/downgradable: "" to PackageInstall to proceed with downgrade';
    const pkgi = await waitFor(
      'the downgrade guard',
      async () => {
        const p = await readPkgi();
        return p?.status?.usefulErrorMessage === expected && onlyCondition(p) === 'ReconcileFailed' ? p : undefined;
      },
      describeState,
    );
    expect(pkgi.status?.version).toBe(RELEASED);
    expect(pkgi.status?.lastAttemptedVersion).toBe(DEV_BROKEN);
    expect(pkgi.status?.friendlyDescription).toBe('Reconcile failed: Error (see .status.usefulErrorMessage for details)');

    await api.patch(
      {
        apiVersion: 'packaging.carvel.dev/v1alpha1',
        kind: 'PackageInstall',
        metadata: { name: PKGI, namespace: ns, annotations: { 'packaging.carvel.dev/downgradable': '' } },
      },
      undefined,
      undefined,
      undefined,
      undefined,
      PatchStrategy.MergePatch,
    );
    await waitForWin(RELEASED);
    expect((await deployedConfigMap())?.data?.version).toBe(RELEASED);
  });
});
