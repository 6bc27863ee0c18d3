// Issue 34's faults around kapp-controller, the API server and the registries, on one real kind
// cluster (the kind harness), made once for the file by devpkg's own createKindCluster as kind mode
// makes it (its own docker network with the registry on it, kapp-controller from its manifest). The baseline is
// installed by the function kind mode's baseline step runs (installBaseline); each dev install is
// `devpkg dev` as a real process against the cluster (the same dev pipeline and verifier as kind
// mode). The workload's Deployment has minReadySeconds, so kapp deploys for half a minute: the
// fault comes while kapp-controller is in the middle of a deploy.
//
// Each case: the verdict and the reason or timeline naming the fault; results written; exit code;
// no temp folder and no run Lease left. The file's cluster, registry and network go at the end, checked.
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import type { KubeConfig } from '@kubernetes/client-node';
import { CleanupList, runCleanup } from '../../src/cleanup.js';
import { ClusterClient } from '../../src/cluster/client.js';
import { installBaseline } from '../../src/cluster/baseline.js';
import { createKindCluster, type KindCluster } from '../../src/cluster/kind.js';
import { loadKubeConfig } from '../../src/cluster/kubeconfig.js';
import type { PackageResult } from '../../src/results.js';
import { execTool } from '../../src/tools/exec.js';
import { loadPackage } from '../support/load-package.js';
import { buildDevpkg, start, type BuiltDevpkg, type Running } from './helpers/built-cli.js';
import { kindHarnessUp } from './helpers/kind.js';
import { freePort, newRunId, runTool } from './helpers/run.js';
import { buildWorkloadTar } from './helpers/workload.js';

const T = 1_200_000;
const runId = newRunId();
const REF = 'web.devpkg.test';
const VERSION_DIR = 'addons/packages/web/1.0.0';
const GONE_IMAGE = `projects.registry.vmware.com/tce/web-app@sha256:${'7'.repeat(64)}`;
const savedEnv = { ...process.env };
const work = mkdtempSync(join(tmpdir(), 'devpkg-kind-faults-'));
const repo = join(work, 'repo');
const folder = join(repo, VERSION_DIR);
const cleanup = new CleanupList();
let cluster: KindCluster;
let kc: KubeConfig;
let built: BuiltDevpkg;
let workloadImage = '';
let base = '';
let cleanedUp = false;

const PACKAGE = `apiVersion: data.packaging.carvel.dev/v1alpha1
kind: Package
metadata:
  name: ${REF}.1.0.0
spec:
  refName: ${REF}
  version: 1.0.0
  template:
    spec:
      fetch:
      - imgpkgBundle:
          image: localhost:5001/devpkg/web-bundle:1.0.0
      template:
      - ytt:
          paths: [config/]
      - kbld:
          paths: ["-", .imgpkg/images.yml]
      deploy:
      - kapp: {}
`;

/** The workload: kapp waits for it for minReadySeconds after its pod is ready. `flavour` makes each bundle a new one. */
const deployment = (flavour: string): string => `apiVersion: v1
kind: Namespace
metadata:
  name: web
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: web
spec:
  replicas: 1
  minReadySeconds: 30
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
      annotations:
        devpkg.test/flavour: ${flavour}
    spec:
      terminationGracePeriodSeconds: 1
      containers:
      - name: web
        image: web-app
`;

const lock = (image: string): string =>
  `apiVersion: imgpkg.carvel.dev/v1alpha1\nkind: ImagesLock\nimages:\n- image: ${image}\n  annotations:\n    kbld.carvel.dev/id: web-app\n`;

function write(path: string, text: string): void {
  mkdirSync(join(repo, path, '..'), { recursive: true });
  writeFileSync(join(repo, path), text);
}

const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t.invalid', ...args], { cwd: repo, encoding: 'utf8' }).trim();
const kubectl = (...args: string[]) => runTool('kubectl', ['--kubeconfig', cluster.kubeconfig, ...args]).then((r) => r.stdout.trim());
const docker = (...args: string[]) => runTool('docker', args).then((r) => r.stdout.trim());
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Resolves once the App tkg-system/web deploys (kapp running) in an attempt begun at or after `since`. */
async function deploying(since: number, what: string, ms = 240_000): Promise<void> {
  for (const t0 = Date.now(); ; await sleep(1000)) {
    if (Date.now() - t0 > ms) throw new Error(`the App never started deploying: ${what}`);
    const raw = await kubectl('get', 'app', '-n', 'tkg-system', 'web', '-o', 'json').catch(() => '');
    if (!raw) continue;
    const st = (JSON.parse(raw) as { status?: { conditions?: Array<{ type: string; status: string }>; deploy?: { startedAt?: string; finished?: boolean } } }).status;
    const started = Date.parse(st?.deploy?.startedAt ?? '');
    const reconciling = st?.conditions?.some((c) => c.type === 'Reconciling' && c.status === 'True');
    if (reconciling && started >= since - 2000 && st?.deploy?.finished !== true) return;
  }
}

/** kapp-controller's pod, deleted as `kubectl delete pod` does (its grace period, not waited for). */
async function deleteKappControllerPod(): Promise<string> {
  const name = await kubectl('get', 'pod', '-n', 'kapp-controller', '-l', 'app=kapp-controller', '-o', 'jsonpath={.items[0].metadata.name}');
  await kubectl('delete', 'pod', '-n', 'kapp-controller', name, '--wait=false');
  return name;
}

interface DevRun {
  exit: { code: number | null; signal: NodeJS.Signals | null };
  /** The result (--json); without --json, what it printed is in `text`. */
  result: PackageResult;
  text: string;
  stderr: string;
  /** The diagnostics folder's files (a failed verdict writes them). */
  diagnostics: string[];
}

/**
 * `devpkg dev` on the working tree's package (its Deployment flavoured `flavour`), with `during`
 * run beside it (it fails when devpkg exits first). Checks what every case must leave: the
 * results (--json), no temp folder, no run Lease.
 */
async function devRun(flavour: string, during: (run: Running, startedAt: number) => Promise<void>, o: { json?: boolean } = {}): Promise<DevRun> {
  const json = o.json ?? true;
  write(`${VERSION_DIR}/bundle/config/web.yaml`, deployment(flavour));
  const tmp = mkdtempSync(join(work, `tmp-${flavour}-`));
  const diagnostics = join(work, `diagnostics-${flavour}`);
  const startedAt = Date.now();
  const run = start(
    built.cli,
    ['dev', '--package', folder, '--registry', `${cluster.registry.pushHost}/devpkg`, '--kubeconfig', cluster.kubeconfig, '--settle', '5s', '--timeout', '5m', '--diagnostics', diagnostics, ...(json ? ['--json'] : [])],
    { env: { ...process.env, TMPDIR: tmp }, cwd: work },
  );
  try {
    await Promise.race([
      during(run, startedAt),
      run.exited.then(() => sleep(3000)).then(() => Promise.reject(new Error(`devpkg dev exited before the fault was injected:\n${run.stdout()}\n${run.stderr().slice(-3000)}`))),
    ]);
  } finally {
    await run.exited;
  }
  const exit = await run.exited;
  let results: PackageResult[];
  try {
    results = json ? (JSON.parse(run.stdout()) as PackageResult[]) : [{ name: 'web', version: '1.0.0', mode: 'cluster', verdict: /^web\/1\.0\.0: WON\b/.test(run.stdout()) ? 'won' : 'error', reason: '', timeline: [] }];
  } catch {
    throw new Error(`devpkg dev printed no JSON (exit ${exit.code}):\n${run.stdout()}\n${run.stderr().slice(-3000)}`);
  }
  expect(results.map((r) => r.name)).toEqual(['web']);
  // Nothing left: no temp folder of the run, no run Lease on the PackageInstall.
  expect(readdirSync(tmp)).toEqual([]);
  expect(await kubectl('get', 'lease', '-n', 'tkg-system', '-o', 'name')).not.toMatch(/devpkg-/);
  const files = results[0]!.verdict === 'won' ? [] : readdirSync(join(diagnostics, readdirSync(diagnostics)[0]!)).sort();
  return { exit, result: results[0]!, text: run.stdout(), stderr: run.stderr(), diagnostics: files };
}

beforeAll(async () => {
  const kh = await kindHarnessUp();
  Object.assign(process.env, kh.env);
  const tar = buildWorkloadTar(work);
  // Its own docker network and a fixed registry port, as kind mode's clusters have: a case stops
  // and starts the registry container, which must come back at the same address. On the shared
  // `kind` network another file's container took its address meanwhile (seen with three files at
  // once), and an ephemeral port may come back as another number.
  const name = `devpkg-kf-${runId}`;
  cluster = await createKindCluster({
    exec: execTool,
    cleanup,
    name,
    network: name,
    registryPort: await freePort(),
    nodeImage: kh.nodeImage,
    kindConfig: kh.config,
    registryImage: kh.registryImage,
    kappControllerManifest: kh.kappControllerManifest,
    log: () => undefined,
  });
  kc = await loadKubeConfig(cluster.kubeconfig);
  // Containers on this machine resolve nothing beyond it, and such a lookup times out rather than
  // failing (about 20 s a try, measured with getent in a node), so a pull from the decommissioned
  // registry took minutes here where a connected runner gets its answer at once. Its name is
  // pinned to an address of the node where nothing listens: the pull fails at once, as there.
  await docker('exec', `${cluster.name}-control-plane`, 'sh', '-c', `echo '127.0.0.1 ${GONE_IMAGE.split('/')[0]}' >> /etc/hosts`);
  // The workload image, where the nodes pull it (localhost:<port>, kind's local-registry pattern).
  const pushed = `${cluster.registry.pushHost}/web-app:${runId}`;
  await runTool('docker', ['import', '--change', 'ENTRYPOINT ["/app"]', tar, pushed]);
  await runTool('docker', ['push', pushed]);
  workloadImage = await docker('image', 'inspect', '--format', '{{index .RepoDigests 0}}', pushed);

  mkdirSync(repo);
  git('init', '-q', '-b', 'main');
  write(`${VERSION_DIR}/package.yaml`, PACKAGE);
  write('addons/packages/web/metadata.yaml', `apiVersion: data.packaging.carvel.dev/v1alpha1\nkind: PackageMetadata\nmetadata:\n  name: ${REF}\nspec:\n  displayName: web\n`);
  write(`${VERSION_DIR}/bundle/config/web.yaml`, deployment('released'));
  write(`${VERSION_DIR}/bundle/.imgpkg/images.yml`, lock(workloadImage));
  git('add', '-A');
  git('commit', '-qm', 'web 1.0.0 released');
  base = git('rev-parse', 'HEAD');
  built = buildDevpkg();
}, T);

afterAll(async () => {
  built?.remove();
  if (!cleanedUp) await runCleanup(cleanup.list(), execTool, { info: () => undefined, warning: (m) => console.warn(m) });
  for (const k of Object.keys(process.env)) if (!(k in savedEnv)) delete process.env[k];
  Object.assign(process.env, savedEnv);
  rmSync(work, { recursive: true, force: true });
}, T);

/**
 * kapp-controller's notes after its pod `deleted` was deleted: first that deletion, last "back",
 * away and back in turn. The new pod may have a blip of its own once ready (a CI run saw one for
 * 138 ms: kubelet status updates of a freshly started pod); such a later outage is the new pod's,
 * never the deleted one's, and the note names the cause.
 */
function expectOutageNotes(notes: Array<string | undefined>, deleted: string, prefix: string): void {
  const esc = (x: string): string => x.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const p = esc(prefix);
  expect(notes.length % 2).toBe(0);
  expect(notes.length).toBeGreaterThanOrEqual(2);
  notes.forEach((n, i) => {
    if (i === 0) {
      expect(n).toMatch(new RegExp(`^${p}pod kapp-controller/${esc(deleted)} was deleted \\(at \\S+\\); kapp-controller has no ready pod`));
    } else if (i % 2 === 0) {
      expect(n).toMatch(new RegExp(`^${p}pod kapp-controller/kapp-controller-\\S+ (is no longer ready|is gone|was deleted)`));
      expect(n).not.toContain(deleted);
    } else {
      expect(n).toMatch(new RegExp(`^${p}back: pod kapp-controller/kapp-controller-\\S+ ready; kapp-controller was away from \\S+ to \\S+`));
    }
  });
}

test('kapp-controller\'s pod deleted during the baseline install: the baseline waits for it, says so, and is installed', async () => {
  const loaded = await loadPackage(repo, 'addons/packages', 'web', '1.0.0');
  const logs: string[] = [];
  const startedAt = Date.now();
  const installing = installBaseline({
    client: await ClusterClient.create(kc),
    kc,
    exec: execTool,
    root: repo,
    loaded,
    baseRef: base,
    refName: REF,
    registry: { host: cluster.registry.pushHost, path: 'devpkg' },
    clusterRegistry: { host: cluster.registry.clusterHost, path: '' },
    timeoutMs: 300_000,
    scratch: work,
    log: (m) => logs.push(m),
  });
  const failed = installing.then(() => undefined, (err: Error) => err);
  await Promise.race([deploying(startedAt, 'the baseline'), failed.then((e) => Promise.reject(e ?? new Error('the baseline finished before its deploy was seen')))]);
  const pod = await deleteKappControllerPod();
  const b = await installing;
  expect(b).toMatchObject({ namespace: 'tkg-system', name: 'web', releasedVersion: '1.0.0' });
  expectOutageNotes(b.faults?.map((f) => f.message) ?? [], pod, 'during the baseline: ');
  expect(logs.some((l) => l.includes(`kapp-controller: pod kapp-controller/${pod} was deleted`))).toBe(true);
  expect(await kubectl('get', 'packageinstall', '-n', 'tkg-system', 'web', '-o', 'jsonpath={.status.version}')).toBe('1.0.0');
}, T);

test('kapp-controller\'s pod deleted during the dev install: devpkg waits for it, the timeline says so, and the dev version wins (exit 0)', async () => {
  let pod = '';
  const r = await devRun('kapp-deleted', async (_run, startedAt) => {
    await deploying(startedAt, 'the dev install');
    pod = await deleteKappControllerPod();
  });
  expect([r.exit.code, r.result.verdict]).toEqual([0, 'won']);
  const notes = r.result.timeline.filter((t) => t.object === 'kapp-controller').map((t) => t.message);
  expectOutageNotes(notes, pod, '');
}, T);

test('the API server stops answering for 20s (the node container paused) while devpkg watches: the gap is in the timeline, the watches reopen, the dev version wins (exit 0)', async () => {
  const node = `${cluster.name}-control-plane`;
  const r = await devRun('node-paused', async (_run, startedAt) => {
    await deploying(startedAt, 'the dev install');
    await docker('pause', node);
    try {
      await sleep(20_000);
    } finally {
      await docker('unpause', node);
    }
  });
  expect([r.exit.code, r.result.verdict]).toEqual([0, 'won']);
  const gaps = r.result.timeline.filter((t) => t.object === 'API server').map((t) => t.message);
  expect(gaps).toEqual([
    expect.stringMatching(/^not answering from \S+Z to \S+Z \(GET \/readyz: no answer within 5s\); the watches were reopened from their last resourceVersion$/),
  ]);
  const [, from, to] = /from (\S+) to (\S+)/.exec(gaps[0]!)!;
  // The gap lies within the pause (devpkg notices after 5s of silence and a 5s probe; it closes when the node answers).
  expect(Date.parse(to!)).toBeGreaterThan(Date.parse(from!));
}, T);

test('the local registry container stopped as the dev Package is applied: reconcile-failed naming the registry (exit 1)', async () => {
  const container = cluster.registry.containerName;
  // Without --json, devpkg dev logs its steps: the registry stops when it says it applies the dev Package.
  const r = await devRun(
    'registry-stopped',
    async (run) => {
      await run.until('applying Package');
      await docker('stop', '-t', '1', container);
    },
    { json: false },
  ).finally(async () => {
    await docker('start', container);
  });
  expect(r.exit.code).toBe(1);
  expect(r.text).toMatch(/^web\/1\.0\.0: RECONCILE FAILED: dev version /);
  expect(r.text).toContain(`hint: kapp-controller could not reach the registry ${cluster.registry.clusterHost} (`);
  expect(r.text).toMatch(/the registry is down, or not reachable from the cluster's pods at that address/);
  expect(r.diagnostics).toEqual(expect.arrayContaining(['app.yaml', 'packageinstall.yaml', 'timeline.yaml']));
  // The registry came back at the address the cluster pulls from.
  expect(`${await docker('inspect', '-f', `{{(index .NetworkSettings.Networks "${cluster.name}").IPAddress}}`, container)}:5000`).toBe(cluster.registry.clusterHost);
}, T);

test('a workload image on projects.registry.vmware.com never pulls: reconcile-failed naming the image, the kubelet\'s reason, the decommissioned registry and the mirror inputs (exit 1)', async () => {
  write(`${VERSION_DIR}/bundle/.imgpkg/images.yml`, lock(GONE_IMAGE));
  try {
    const r = await devRun('gone-registry', async () => undefined);
    expect([r.exit.code, r.result.verdict]).toEqual([1, 'reconcile-failed']);
    expect(r.result.reason).toMatch(new RegExp(`pod web/web-[a-z0-9]+-[a-z0-9]+ container web: ImagePullBackOff: Back-off pulling image "${GONE_IMAGE.replace(/\./g, '\\.')}"`));
    expect(r.result.reason).toContain(`hint: ${GONE_IMAGE} is on projects.registry.vmware.com, decommissioned by its owner in 2024`);
    expect(r.result.reason).toMatch(/tkg-custom-image-repository \(--tkg-custom-image-repository/);
    expect(r.diagnostics).toEqual(expect.arrayContaining(['pods.yaml', 'events.yaml']));
  } finally {
    write(`${VERSION_DIR}/bundle/.imgpkg/images.yml`, lock(workloadImage));
  }
}, T);

test('the file\'s cluster, registry container and network are gone at the end: nothing of the runs is left on the engine', async () => {
  await runCleanup(cleanup.list(), execTool, { info: () => undefined, warning: (m) => console.warn(m) });
  cleanedUp = true;
  expect((await runTool('kind', ['get', 'clusters'], { allowFail: true })).stdout.split('\n').filter((c) => c.trim() === cluster.name)).toEqual([]);
  expect((await docker('ps', '-a', '--format', '{{.Names}}')).split('\n').filter((n) => n.startsWith(cluster.name))).toEqual([]);
  expect((await docker('network', 'ls', '--format', '{{.Name}}')).split('\n').filter((n) => n === cluster.name)).toEqual([]);
}, T);
