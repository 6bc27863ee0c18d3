/**
 * What a real cluster showed (issue 17, section 3), on the harness's real control plane and
 * kapp-controller, with a small package made here ("web": a ConfigMap, later a Deployment). One
 * PackageInstall moves through the scenarios in order, as on a real cluster:
 *   baseline 1.0.0
 *   -> devpkg dev pushes to one address and the Package references another (--cluster-registry)
 *   -> devpkg verify heads its result with the package and the released version
 *   -> a pull address on localhost that refuses: the verdict names a localhost registry
 *   -> a deploy error, then a YAML syntax error: only the second is in the verdict
 *   -> the same bundle again under a new dev version: the verdict says it is an earlier result
 *   -> the action's cluster mode with input cluster-registry
 *   -> a Deployment whose pod cannot pull its image: reconcile-failed with the pod's reason, and the
 *      events of the namespace the App deployed into
 *   -> the same on a PackageInstall's first deploy (the baseline), where the App names no label yet.
 * The harness has no kubelet: the pod of the last scenario is a real Pod, created by the real
 * ReplicaSet controller from what kapp-controller deployed, whose status this test writes through
 * the status subresource (what the kubelet would write). The real ImagePullBackOff on a kind
 * cluster is a separate test.
 */
import { jest } from '@jest/globals';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { KubeConfig, KubernetesObject } from '@kubernetes/client-node';
import { parse } from 'yaml';
import { readGithubContext } from '../../src/action/context.js';
import { RecordingHost } from '../../src/action/host.js';
import { installBaseline } from '../../src/cluster/baseline.js';
import { ClusterClient } from '../../src/cluster/client.js';
import { parseInputs } from '../../src/inputs.js';
import { run as runClusterMode } from '../../src/modes/cluster.js';
import { loadPackage } from '../support/load-package.js';
import { execTool } from '../../src/tools/exec.js';
import type { PackageResult } from '../../src/results.js';
import { parseRegistry } from '../../src/flags.js';
import { inputsFrom } from '../support/inputs.js';
import { harnessEnv } from './helpers/env.js';
import { createTestNamespace, deleteNamespace, harnessKubeConfig, waitFor } from './helpers/kube.js';
import { newRunId, runCliIn } from './helpers/run.js';

const REF = 'web.devpkg.test';
const WAIT = '150s';

let kc: KubeConfig;
let ns = '';
let work = '';
let root = '';
let registry = '';
let registryPort = '';
const runId = newRunId();
const versionDir = (): string => path.join(root, 'web', '1.0.0');
const configFile = (name: string): string => path.join(versionDir(), 'bundle', 'config', name);

const cli = (args: string[]) => runCliIn(work, args);

function devArgs(extra: string[]): string[] {
  return ['dev', '--package', versionDir(), '--registry', registry, '--package-install', `${ns}/web`, '--settle', '2s', '--timeout', WAIT, '--diagnostics', path.join(work, 'diagnostics'), ...extra];
}

async function devJson(extra: string[] = []): Promise<{ code: number; stderr: string; res: PackageResult }> {
  const r = await cli(devArgs([...extra, '--json']));
  const [res] = JSON.parse(r.stdout) as PackageResult[];
  return { code: r.code, stderr: r.stderr, res: res! };
}

/** A port on loopback that nothing listens on. */
async function closedPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as { port: number }).port;
  await new Promise((r) => srv.close(r));
  return port;
}

async function writePackage(name = 'web'): Promise<void> {
  const dir = path.join(root, name, '1.0.0');
  await mkdir(path.join(dir, 'bundle', '.imgpkg'), { recursive: true });
  await mkdir(path.join(dir, 'bundle', 'config'), { recursive: true });
  await writeFile(
    path.join(dir, 'package.yaml'),
    `apiVersion: data.packaging.carvel.dev/v1alpha1
kind: Package
metadata:
  name: ${name}.devpkg.test.1.0.0
spec:
  refName: ${name}.devpkg.test
  version: 1.0.0
  template:
    spec:
      fetch:
        - imgpkgBundle:
            image: example.invalid/web@sha256:${'0'.repeat(64)}
      template:
        - ytt:
            paths:
              - config/
      deploy:
        - kapp: {}
`,
  );
  await writeFile(path.join(dir, 'bundle', '.imgpkg', 'images.yml'), 'apiVersion: imgpkg.carvel.dev/v1alpha1\nkind: ImagesLock\n');
  await writeFile(path.join(dir, 'bundle', 'config', 'config.yaml'), `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}-config\n  namespace: ${ns}\ndata:\n  release: "1.0.0"\n`);
}

function deployment(name: string): string {
  return `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${name}
  namespace: ${ns}
spec:
  replicas: 1
  selector:
    matchLabels: {app: ${name}}
  template:
    metadata:
      labels: {app: ${name}}
    spec:
      containers:
        - name: ${name}
          image: localhost:5001/devpkg-vd/no-such-image:dev
`;
}

/** Waits for the pod of Deployment `app` and writes what the kubelet would after a failed pull. */
async function podCannotPull(app: string): Promise<{ name: string; message: string }> {
  const k8s = await import('@kubernetes/client-node');
  const core = kc.makeApiClient(k8s.CoreV1Api);
  // kapp-controller deploys; the ReplicaSet controller creates the pod (Pending: no scheduler, no kubelet).
  const pod = await waitFor(
    `the pod of Deployment ${app}`,
    async () => (await core.listNamespacedPod({ namespace: ns, labelSelector: `app=${app}` })).items[0],
    { timeoutMs: 120_000, intervalMs: 500 },
  );
  // What the kubelet would write after a failed pull, through the status subresource.
  const message = 'Back-off pulling image "localhost:5001/devpkg-vd/no-such-image:dev": ErrImagePull: not found';
  await core.patchNamespacedPodStatus(
    {
      namespace: ns,
      name: pod.metadata!.name!,
      body: {
        status: {
          phase: 'Pending',
          containerStatuses: [{ name: app, image: 'localhost:5001/devpkg-vd/no-such-image:dev', imageID: '', ready: false, restartCount: 0, state: { waiting: { reason: 'ImagePullBackOff', message } } }],
        },
      },
    },
    k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
  );
  return { name: pod.metadata!.name!, message };
}

async function setRelease(value: string): Promise<void> {
  const text = await readFile(configFile('config.yaml'), 'utf8');
  await writeFile(configFile('config.yaml'), text.replace(/release: .*/, `release: "${value}"`));
}

async function readPackage(version: string): Promise<KubernetesObject & { spec?: { template?: { spec?: { fetch?: Array<{ imgpkgBundle?: { image?: string } }> } } } }> {
  const k8s = await import('@kubernetes/client-node');
  const api = kc.makeApiClient(k8s.CustomObjectsApi);
  return (await api.getNamespacedCustomObject({ group: 'data.packaging.carvel.dev', version: 'v1alpha1', namespace: ns, plural: 'packages', name: `${REF}.${version}` })) as never;
}

jest.setTimeout(300_000);

describe('verdicts, diagnostics and addresses on kapp-controller', () => {
  const results: Record<string, PackageResult> = {};

  beforeAll(async () => {
    const env = harnessEnv();
    if (!process.env.KAPPCTRL_NAMESPACE) throw new Error('the harness runs without kapp-controller; these tests need controlplane.sh up --kapp-controller');
    kc = await harnessKubeConfig();
    registry = `${env.registry}/devpkg-vd/${runId}`;
    registryPort = env.registry.slice(env.registry.lastIndexOf(':') + 1);
    ns = await createTestNamespace(kc, 'devpkg-vd');
    work = await mkdtemp(path.join(os.tmpdir(), 'devpkg-vd-'));
    root = path.join(work, 'packages');
    await writePackage();
  });

  afterAll(async () => {
    if (kc && ns) {
      const client = await ClusterClient.create(kc);
      await client.delete('packaging.carvel.dev/v1alpha1', 'PackageInstall', ns, 'web').catch(() => undefined);
      await new Promise((r) => setTimeout(r, 5000)); // kapp-controller's turn to delete the App
      await client.delete('packaging.carvel.dev/v1alpha1', 'PackageInstall', ns, 'first').catch(() => undefined);
      await client.delete('rbac.authorization.k8s.io/v1', 'ClusterRoleBinding', undefined, `web-sa-${ns}-cluster-admin`).catch(() => undefined);
      await client.delete('rbac.authorization.k8s.io/v1', 'ClusterRoleBinding', undefined, `first-sa-${ns}-cluster-admin`).catch(() => undefined);
      await deleteNamespace(kc, ns).catch(() => undefined);
    }
    if (work && !process.env.DEVPKG_KEEP_TEST_DIRS) await rm(work, { recursive: true, force: true });
  });

  test('baseline: web 1.0.0 installed like the addons manager', async () => {
    const client = await ClusterClient.create(kc);
    const loaded = await loadPackage(root, '', 'web', '1.0.0');
    const b = await installBaseline({ client, kc, exec: execTool, root, loaded, refName: REF, registry: parseRegistry(registry, 'test registry'), namespace: ns, timeoutMs: 150_000, log: () => undefined });
    expect(b.releasedVersion).toBe('1.0.0');
  });

  test('devpkg dev pushes to --registry and the Package references --cluster-registry (same path and digest)', async () => {
    await setRelease('pull-address');
    // On the harness kapp-controller runs on this machine, so localhost reaches the registry too:
    // the push goes to 127.0.0.1:PORT and the cluster pulls from localhost:PORT.
    const { code, stderr, res } = await devJson(['--cluster-registry', `localhost:${registryPort}`]);
    results.pull = res;
    expect([res.verdict, res.verdict === 'won' ? '' : res.reason]).toEqual(['won', '']);
    expect(code).toBe(0);
    const pushedPath = registry.slice(registry.indexOf('/'));
    expect(res.bundle).toMatch(new RegExp(`^localhost:${registryPort}${pushedPath.replace(/[.]/g, '\\.')}/web-bundle@sha256:[0-9a-f]{64}$`));
    const pkg = await readPackage(res.devVersion!);
    expect(pkg.spec?.template?.spec?.fetch?.[0]?.imgpkgBundle?.image).toBe(res.bundle);
    // A localhost pull address is warned about up front, --json or not.
    expect(stderr).toBe(
      `warning: the cluster is to pull the bundle from localhost:${registryPort} (--cluster-registry), a localhost address: inside the kapp-controller pod ` +
        'that is the pod itself, so the fetch fails unless kapp-controller runs on this machine\'s network. If it runs in a pod, push with --registry ' +
        '(input registry) as before and set --cluster-registry (input cluster-registry) to an address the cluster reaches: with kind\'s local registry, ' +
        "the registry container's IP on the kind network and its port inside (e.g. 172.18.0.3:5000; docker inspect -f '{{.NetworkSettings.Networks.kind.IPAddress}}' kind-registry).\n",
    );
  });

  test('devpkg verify heads its result with the package and the released version', async () => {
    const win = results.pull!;
    const r = await cli(['verify', '--package-install', `${ns}/web`, '--expect-version', win.devVersion!, '--bundle', win.bundle!, '--settle', '0', '--timeout', '60s', '--diagnostics', path.join(work, 'diagnostics')]);
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n')[0]).toBe(`web/1.0.0: WON: dev version ${win.devVersion} (${win.bundle})`);
    expect(r.stderr).toMatch(new RegExp(`^${ns}/web: won: PackageInstall ${ns}/web reconciled ${win.devVersion!.replace(/[.]/g, '\\.')} and its App succeeded`, 'm'));
  });

  test('a pull address on localhost that refuses: reconcile-failed, and the verdict names a localhost registry', async () => {
    await setRelease('refused');
    const port = await closedPort();
    const { code, res } = await devJson(['--cluster-registry', `localhost:${port}`]);
    expect(code).toBe(1);
    expect(res.verdict).toBe('reconcile-failed');
    expect(res.reason).toMatch(new RegExp(`usefulErrorMessage: vendir: Error: .*:${port}: connect: connection refused.*\nfetch failed \\(exit 1\\) with that message`, 's'));
    expect(res.reason).toMatch(new RegExp(`hint: kapp-controller could not connect to \\S+:${port}, a localhost registry\\. Inside the kapp-controller pod localhost is the pod itself`));
    expect(res.reason).toContain('--cluster-registry (input cluster-registry)');
  });

  test('a deploy error, then a YAML syntax error: the verdict has only the attempt being judged', async () => {
    await setRelease('deploy-error');
    await writeFile(configFile('bad.yaml'), `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: Bad_Name\n  namespace: ${ns}\n`);
    // Text output this time: the one-line summary on stderr carries the reason after "could not reconcile X:".
    const first = await cli(devArgs([]));
    expect(first.code).toBe(1);
    const head = /^web\/1\.0\.0: RECONCILE FAILED: dev version (\S+) \((\S+)\)$/m.exec(first.stdout);
    expect(head).not.toBeNull();
    const summary = first.stderr.split('\n').find((l) => l.startsWith(`${ns}/web: reconcile-failed: `))!;
    expect(summary).toMatch(new RegExp(`^${ns}/web: reconcile-failed: kapp-controller could not reconcile ${head![1]!.replace(/[.]/g, '\\.')}: usefulErrorMessage: .*Bad_Name`));
    expect(first.stdout).toMatch(/usefulErrorMessage: kapp: Error: .*Bad_Name.*\n {2}deploy failed \(exit 1\) with that message/s);

    await writeFile(configFile('bad.yaml'), 'apiVersion: v1\nkind: ConfigMap\nmetadata: [unclosed\n');
    const { code, res } = await devJson();
    results.yaml = res;
    expect(code).toBe(1);
    expect(res.verdict).toBe('reconcile-failed');
    expect(res.reason).toMatch(/usefulErrorMessage: ytt: Error: .*bad\.yaml.*\ntemplate failed \(exit 1\) with that message/s);
    // The App's deploy status still holds the previous attempt's Bad_Name error; it is not ours.
    expect(res.reason).not.toContain('Bad_Name');
    expect(res.diagnostics?.excerpt).not.toContain('Bad_Name');
    expect(res.reason).not.toMatch(/earlier attempt/);
  });

  test('the same bundle under a new dev version: the verdict says kapp-controller reports the earlier attempt', async () => {
    const before = results.yaml!;
    const { code, res } = await devJson();
    expect(code).toBe(1);
    expect(res.devVersion).not.toBe(before.devVersion);
    // The same folder pushed again has the same digest.
    expect(res.bundle!.split('@')[1]).toBe(before.bundle!.split('@')[1]);
    expect(res.verdict).toBe('reconcile-failed');
    expect(res.reason).toMatch(/usefulErrorMessage: ytt: Error: .*\ntemplate failed \(exit 1\) with that message/s);
    // A failing App retries on its own every 2^n s (at most its 30 s sync period). When that retry
    // fell between the dev Package's creation and the verdict, the result is a new attempt and
    // nothing is to be said; otherwise the verdict must say the result is an earlier attempt's.
    const seenApp = parse(await readFile(path.join(res.diagnostics!.dir, 'app.yaml'), 'utf8')) as { status: { fetch: { startedAt: string } } };
    const created = (await readPackage(res.devVersion!)).metadata!.creationTimestamp as unknown as string;
    expect(Number.isNaN(Date.parse(created))).toBe(false);
    if (Date.parse(seenApp.status.fetch.startedAt) < Date.parse(created)) {
      expect(res.reason).toMatch(/note: this is the result of an earlier attempt\. The App last fetched at \S+, before the dev Package web\.devpkg\.test\.\S+ was created/);
    } else {
      expect(res.reason).not.toMatch(/earlier attempt/);
    }
    await rm(configFile('bad.yaml'));
  });

  test('the action\'s cluster mode: input cluster-registry is where the Package points, with the warning as an annotation', async () => {
    await setRelease('cluster-mode');
    const host = new RecordingHost();
    const ctx = {
      inputs: parseInputs(
        inputsFrom({
          mode: 'cluster',
          'packages-dir': '.',
          packages: 'web/1.0.0',
          registry,
          'cluster-registry': `localhost:${registryPort}`,
          'package-install': `${ns}/web`,
          kubeconfig: process.env.KUBECONFIG!,
          settle: '2s',
          timeout: WAIT,
          comment: 'false',
        }),
      ),
      github: { ...readGithubContext({}), workspace: root },
      host,
      exec: execTool,
      env: { ...process.env, RUNNER_TEMP: work },
    };
    await runClusterMode(ctx);
    expect(JSON.parse(host.outputs.verdicts!)).toEqual({ 'web/1.0.0': 'won' });
    const [res] = JSON.parse(host.outputs.results!) as PackageResult[];
    expect(res!.bundle).toMatch(new RegExp(`^localhost:${registryPort}/devpkg-vd/${runId}/web-bundle@sha256:[0-9a-f]{64}$`));
    expect(host.warnings).toEqual([{ message: expect.stringMatching(new RegExp(`^the cluster is to pull the bundle from localhost:${registryPort} \\(input cluster-registry\\), a localhost address`)) }]);
  });

  test('a pod that cannot pull its image: reconcile-failed with the pod\'s reason, and the workload namespace\'s events', async () => {
    await setRelease('deployment');
    await writeFile(configFile('deployment.yaml'), deployment('web'));
    const running = devJson();
    const pod = await podCannotPull('web');
    const { code, res } = await running;
    expect(code).toBe(1);
    expect(res.verdict).toBe('reconcile-failed');
    expect(res.reason).toContain(`the workload of ${res.devVersion} cannot start: pod ${ns}/${pod.name} container web: ImagePullBackOff: ${pod.message}`);
    expect(res.timeline).toContainEqual(expect.objectContaining({ object: 'Pod', condition: 'ImagePullBackOff' }));
    // The deploy running now has the earlier Bad_Name deploy error in its status: not this attempt's.
    expect(res.diagnostics!.excerpt).not.toContain('Bad_Name');
    const dir = res.diagnostics!.dir;
    const events = await readFile(path.join(dir, 'events.yaml'), 'utf8');
    // kapp-controller emits none for the PackageInstall/App; the workload's controllers do.
    expect(events).toContain(`# namespaces: ${ns}`);
    expect(events).toMatch(/reason: ScalingReplicaSet/);
    expect(events).toMatch(/reason: SuccessfulCreate/);
    expect(existsSync(path.join(dir, 'pods.yaml'))).toBe(true);
    expect(await readFile(path.join(dir, 'pods.yaml'), 'utf8')).toContain('ImagePullBackOff');
  });

  test('a first install whose pod cannot pull: the label comes from kapp\'s app ConfigMap, the baseline fails with the pod\'s reason', async () => {
    // An App's first deploy: its status names no kapp label until the deploy ends.
    await writePackage('first');
    await writeFile(path.join(root, 'first', '1.0.0', 'bundle', 'config', 'deployment.yaml'), deployment('first'));
    const client = await ClusterClient.create(kc);
    const loaded = await loadPackage(root, '', 'first', '1.0.0');
    const installing = installBaseline({ client, kc, exec: execTool, root, loaded, refName: 'first.devpkg.test', registry: parseRegistry(registry, 'test registry'), namespace: ns, timeoutMs: 150_000, log: () => undefined });
    const pod = await podCannotPull('first');
    await expect(installing).rejects.toThrow(
      `the baseline (released first 1.0.0) did not install: reconcile-failed: the workload of 1.0.0 cannot start: pod ${ns}/${pod.name} container first: ImagePullBackOff: ${pod.message}`,
    );
  });
});
