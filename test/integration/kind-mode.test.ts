// devpkg's own kind mode end to end on a real kind cluster: the action in process (main, then the
// post step) and `devpkg kind`, on a package repository made here whose bundles run a Deployment
// from an image built here and pushed by the repository's own push-command (as TCE's
// `make push-package` does). devpkg creates the cluster, the registry and kapp-controller itself.
//
// Here the cluster runs on the kind harness (test/harness/kind.sh: a private dockerd, the node,
// registry and kapp-controller images made from Debian packages and Go modules), which comes in
// through the inputs real users have: kind-node-image, kind-config, registry-image,
// kapp-controller-manifest. On GitHub's runner (.github/workflows/e2e-kind.yml,
// DEVPKG_KIND_E2E=github) the same file runs with kind's default node image and the release
// manifest: those inputs are left empty.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { RecordingHost } from '../../src/action/host.js';
import { readGithubContext } from '../../src/action/context.js';
import { runCli } from '../../src/cli.js';
import { CLEANUP_STATE, CleanupList } from '../../src/cleanup.js';
import { parseInputs } from '../../src/inputs.js';
import { run as runKindMode } from '../../src/modes/kind.js';
import { runPost } from '../../src/post.js';
import { execTool } from '../../src/tools/exec.js';
import type { EventSummary } from '../../src/verify/diagnostics.js';
import type { PackageResult } from '../../src/results.js';
import { parse as parseYaml } from 'yaml';
import { inputsFrom } from '../support/inputs.js';
import { buildDevpkg, start } from './helpers/built-cli.js';
import { kindHarnessUp, type KindHarness } from './helpers/kind.js';
import { runTool } from './helpers/run.js';
import { buildWorkloadTar, webDeployment } from './helpers/workload.js';


const T = 1_200_000;
const onGitHub = process.env.DEVPKG_KIND_E2E === 'github';
const REF = 'web.devpkg.test';
const VERSION_DIR = 'addons/packages/web/1.0.0';

let kh: KindHarness | undefined;
const savedEnv = { ...process.env };
const work = mkdtempSync(join(tmpdir(), 'devpkg-kind-mode-'));
const repo = join(work, 'repo');
let base = '';
let head = '';

/** What the machine needs, as inputs (empty on GitHub's runner: kind's defaults, the release manifest). */
function machineInputs(): Record<string, string> {
  if (!kh) return {};
  return {
    'kind-node-image': kh.nodeImage,
    'kind-config': kh.config,
    'registry-image': kh.registryImage,
    'kapp-controller-manifest': kh.kappControllerManifest,
  };
}

const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t.invalid', ...args], { cwd: repo, encoding: 'utf8' }).trim();

const deployment = (flavour: string, extra = ''): string => webDeployment(flavour, { extra });

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

// The repository's own push target: the workload image (a static binary, imported), then the
// bundle with that image locked in .imgpkg/images.yml, pushed where devpkg says.
const PUSH = `#!/usr/bin/env bash
set -euo pipefail
host="\${DEVPKG_REGISTRY%%/*}"
image="$host/web-app:$DEVPKG_TAG"
# hack/lock.env, when present, may set WEB_APP_LOCK: the reference to lock instead of the one pushed.
[ -f hack/lock.env ] && . hack/lock.env
docker import --change 'ENTRYPOINT ["/app"]' "$WEB_APP_TAR" "$image" >/dev/null
docker push "$image" >/dev/null
ref=$(docker image inspect --format '{{index .RepoDigests 0}}' "$image")
[ -n "\${WEB_APP_LOCK:-}" ] && ref="$host/$WEB_APP_LOCK"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp -R "$DEVPKG_BUNDLE_DIR"/. "$tmp"
cat > "$tmp/.imgpkg/images.yml" <<EOF
apiVersion: imgpkg.carvel.dev/v1alpha1
kind: ImagesLock
images:
- image: $ref
  annotations:
    kbld.carvel.dev/id: web-app
EOF
imgpkg push -b "$DEVPKG_IMAGE" -f "$tmp" >/dev/null
`;

function write(path: string, text: string): void {
  mkdirSync(join(repo, path, '..'), { recursive: true });
  writeFileSync(join(repo, path), text);
}

beforeAll(async () => {
  if (!onGitHub) {
    kh = await kindHarnessUp();
    Object.assign(process.env, kh.env);
  }
  // The workload: a static binary that waits, as the image's only file.
  process.env.WEB_APP_TAR = buildWorkloadTar(work);

  mkdirSync(repo);
  git('init', '-q', '-b', 'main');
  write(`${VERSION_DIR}/package.yaml`, PACKAGE);
  write('addons/packages/web/metadata.yaml', `apiVersion: data.packaging.carvel.dev/v1alpha1\nkind: PackageMetadata\nmetadata:\n  name: ${REF}\nspec:\n  displayName: web\n`);
  write(`${VERSION_DIR}/bundle/config/web.yaml`, deployment('released'));
  write(`${VERSION_DIR}/bundle/.imgpkg/images.yml`, 'apiVersion: imgpkg.carvel.dev/v1alpha1\nkind: ImagesLock\nimages: []\n');
  write('hack/push.sh', PUSH);
  git('add', '-A');
  git('commit', '-qm', 'web 1.0.0 released');
  base = git('rev-parse', 'HEAD');
  write(`${VERSION_DIR}/bundle/config/web.yaml`, deployment('dev'));
  git('commit', '-qam', 'web: the dev flavour');
  head = git('rev-parse', 'HEAD');
}, T);

afterAll(() => {
  for (const k of Object.keys(process.env)) if (!(k in savedEnv)) delete process.env[k];
  Object.assign(process.env, savedEnv);
  rmSync(work, { recursive: true, force: true });
});

/**
 * Kind clusters, containers and docker networks of a run left on this engine: `cluster` is the
 * run's cluster name, or (for an action run, whose name has a random part) the pattern of it.
 */
async function leftovers(cluster: string | RegExp): Promise<string[]> {
  const ours = (n: string) => (typeof cluster === 'string' ? n === cluster || n.startsWith(`${cluster}-`) : cluster.test(n));
  const names = async (cmd: string, args: string[]) => (await runTool(cmd, args, { allowFail: true })).stdout.split('\n').map((n) => n.trim()).filter(ours);
  return [
    ...(await names('kind', ['get', 'clusters'])).map((n) => `cluster ${n}`),
    ...(await names('docker', ['ps', '-a', '--format', '{{.Names}}'])).map((n) => `container ${n}`),
    ...(await names('docker', ['network', 'ls', '--format', '{{.Name}}'])).map((n) => `network ${n}`),
  ];
}

/** devpkg's run names: devpkg-<run id>-<attempt>, its nodes and its registry container. */
const RUN_NAME = /^devpkg-[0-9a-z]+-\d+(-control-plane|-worker\d*|-registry)?$/;

/** devpkg's kind clusters and containers on this engine (to compare before and after a run). */
async function engineState(): Promise<{ clusters: string[]; containers: string[] }> {
  const clusters = (await runTool('kind', ['get', 'clusters'], { allowFail: true })).stdout.split('\n').filter((c) => RUN_NAME.test(c.trim()));
  const containers = (await runTool('docker', ['ps', '-a', '--format', '{{.Names}}'])).stdout.split('\n').filter((n) => RUN_NAME.test(n));
  return { clusters: clusters.sort(), containers: containers.sort() };
}

/**
 * A failed run's diagnostics, as collected from the real cluster before devpkg deleted it:
 * kapp-controller's pod log (read from its pod in the cluster, not from a harness file) and the
 * events of the namespace the App deploys into (non-empty). Returns the folder's files.
 */
function expectClusterDiagnostics(resultsDir: string, r: PackageResult): string[] {
  expect(r.diagnostics?.dir).toBe('diagnostics/web-1.0.0');
  const dir = join(resultsDir, r.diagnostics!.dir);
  const files = readdirSync(dir).sort();
  expect(files).toEqual(expect.arrayContaining(['app.yaml', 'events.yaml', 'packageinstall.yaml', 'timeline.yaml']));
  const logs = files.filter((f) => /^kapp-controller-kapp-controller-[a-z0-9]+-[a-z0-9]+\.log$/.test(f));
  expect(logs).toHaveLength(1);
  // kapp-controller's own reconcile lines about the PackageInstall devpkg made (tkg-system/web).
  const log = readFileSync(join(dir, logs[0]!), 'utf8');
  expect(log).toMatch(/"name":"web"/);
  expect(log).toMatch(/"namespace":"tkg-system"/);
  const eventsText = readFileSync(join(dir, 'events.yaml'), 'utf8');
  expect(eventsText).toMatch(/^# namespaces: .*\bweb\b/m);
  const events = parseYaml(eventsText) as EventSummary[];
  expect(events.filter((e) => e.namespace === 'web').length).toBeGreaterThan(0);
  return files;
}

function actionRun(values: Record<string, string>, runId: string) {
  const host = new RecordingHost();
  const temp = mkdtempSync(join(work, 'runner-temp-'));
  const ctx = {
    inputs: parseInputs(
      inputsFrom({
        mode: 'kind',
        'packages-dir': 'addons/packages',
        'base-ref': base,
        'head-ref': head,
        'push-command': 'bash hack/push.sh',
        settle: '5s',
        timeout: '5m',
        comment: 'false',
        ...machineInputs(),
        ...values,
      }),
    ),
    github: { ...readGithubContext({}), workspace: repo, runId, runNumber: 1 },
    host,
    exec: execTool,
    env: { ...process.env, RUNNER_TEMP: temp },
  };
  // The run's cluster (and network, and `<name>-registry`): devpkg-<run id><random part>-<attempt>.
  return { host, temp, cluster: new RegExp(`^devpkg-${runId}[0-9a-z]{6}-1(-|$)`), run: () => runKindMode(ctx) };
}

test('mode kind (the action in process): the changed package\'s dev version wins on a real cluster; the post step leaves nothing', async () => {
  const assert = `[{kind: Deployment, namespace: web, name: web, path: 'spec.template.metadata.annotations["devpkg.test/flavour"]', equals: dev}, {kind: Deployment, namespace: web, name: web, path: status.availableReplicas, equals: 1}]`;
  const a = actionRun({ assert }, 'kindwin');
  try {
    await a.run();
    const results = JSON.parse(a.host.outputs.results!) as PackageResult[];
    expect(results).toHaveLength(1);
    const r = results[0]!;
    expect(r).toMatchObject({ name: 'web', version: '1.0.0', mode: 'kind', verdict: 'won', releasedVersion: '1.0.0' });
    expect(r.devVersion).toMatch(/^1\.0\.1-dev\./);
    expect(r.assertions?.map((x) => [x.description, x.ok])).toEqual([
      [expect.stringContaining('flavour'), true],
      [expect.stringContaining('availableReplicas'), true],
    ]);
    // The phases of the setup and the baseline installed the way the addons manager would.
    expect(r.phases?.map((p) => p.name)).toEqual(['kind cluster', 'registry', 'kapp-controller', 'baseline web 1.0.0', 'dev Package applied', 'won']);
    // The bundle is <registry>/devpkg/web-bundle by digest, at the registry's kind-network address.
    expect(r.bundle).toMatch(/^\d+\.\d+\.\d+\.\d+:5000\/devpkg\/web-bundle@sha256:[0-9a-f]{64}$/);
    const digest = r.bundle!.split('@')[1]!;

    const kubeconfig = CleanupList.fromState(a.host.getState(CLEANUP_STATE)).find((i) => i.kind === 'kind-cluster')?.kubeconfig;
    expect(kubeconfig).toBeDefined();
    // Before the post step: the run's cluster, node, registry and network, all found by its pattern.
    expect((await leftovers(a.cluster)).map((n) => n.split(' ')[0]).sort()).toEqual(['cluster', 'container', 'container', 'network']);
    const kubectl = (...args: string[]) => runTool('kubectl', ['--kubeconfig', kubeconfig!, ...args]).then((x) => x.stdout.trim());
    // kapp-controller fetched exactly the dev bundle and runs the dev version.
    expect(await kubectl('get', 'app', '-n', 'tkg-system', 'web', '-o', 'jsonpath={.status.fetch.stdout}')).toContain(digest);
    expect(await kubectl('get', 'packageinstall', '-n', 'tkg-system', 'web', '-o', 'jsonpath={.status.version}')).toBe(r.devVersion);
    // The workload runs the image the push command built, pulled by the kubelet through localhost:<port>.
    const image = await kubectl('get', 'deployment', '-n', 'web', 'web', '-o', 'jsonpath={.spec.template.spec.containers[0].image}');
    expect(image).toMatch(/^localhost:\d+\/web-app@sha256:[0-9a-f]{64}$/);
    expect(await kubectl('get', 'deployment', '-n', 'web', 'web', '-o', 'jsonpath={.status.availableReplicas}')).toBe('1');
    expect(await kubectl('get', 'configmap', '-n', 'kube-public', 'local-registry-hosting', '-o', 'jsonpath={.data.localRegistryHosting\\.v1}')).toMatch(/host: "localhost:\d+"/);

    // results.json and the job summary.
    const doc = JSON.parse(readFileSync(join(a.temp, 'devpkg-devpkg-results', 'results.json'), 'utf8')) as { results: PackageResult[] };
    expect(doc.results.map((x) => x.verdict)).toEqual(['won']);
    expect(a.host.summaries).toHaveLength(1);
    expect(a.host.summaries[0]).toContain('web');
    expect(a.host.outputs.result).toBe('success');
  } finally {
    await runPost(a.host);
  }
  expect(await leftovers(a.cluster)).toEqual([]);
}, T);

test('devpkg kind (the CLI): a dev bundle whose manifest is invalid is reconcile-failed with kapp\'s error; nothing is left at exit', async () => {
  write(`${VERSION_DIR}/bundle/config/web.yaml`, deployment('broken', '---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: Bad_Name\n  namespace: web\n'));
  git('commit', '-qam', 'web: an invalid object');
  const bad = git('rev-parse', 'HEAD');
  const before = await engineState();
  const out = { stdout: '', stderr: '' };
  const flags = Object.entries(machineInputs()).flatMap(([k, v]) => [`--${k}`, v]);
  const code = await runCli(
    ['kind', '--repo', repo, '--base', base, '--head', bad, '--push-command', 'bash hack/push.sh', '--settle', '5s', '--timeout', '4m', '--results-dir', join(work, 'cli-results'), '--json', ...flags],
    { stdout: (t) => void (out.stdout += t), stderr: (t) => void (out.stderr += t), env: process.env, cwd: repo },
  );
  expect(code).toBe(1);
  const results = JSON.parse(out.stdout) as PackageResult[];
  expect(results.map((r) => r.verdict)).toEqual(['reconcile-failed']);
  expect(results[0]!.reason).toMatch(/Bad_Name/);
  const doc = JSON.parse(readFileSync(join(work, 'cli-results', 'results.json'), 'utf8')) as { results: PackageResult[] };
  expect(doc.results[0]!.verdict).toBe('reconcile-failed');
  expectClusterDiagnostics(join(work, 'cli-results'), doc.results[0]!);
  // Nothing of the run is left: the same clusters and containers as before it.
  expect(await engineState()).toEqual(before);
}, T);

test('devpkg kind (the CLI), three packages in one cluster: each wins; builds and pushes at most the cores at once, the verifies together; each result\'s phases name its own baseline only; nothing is left', async () => {
  // Its own repository: three packages, each its own refName and namespace; the push command
  // names the workload image after the package (the pushes run at once).
  const dir = join(work, 'three');
  const names = ['web1', 'web2', 'web3'];
  const g = (...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t.invalid', ...args], { cwd: dir, encoding: 'utf8' }).trim();
  const put = (path: string, text: string) => {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), text);
  };
  const workload = (n: string, flavour: string) => webDeployment(flavour).replace(/^( {2}name| {2}namespace): web$/gm, `$1: ${n}`);
  mkdirSync(dir);
  g('init', '-q', '-b', 'main');
  for (const n of names) {
    put(`addons/packages/${n}/1.0.0/package.yaml`, PACKAGE.replaceAll(REF, `${n}.devpkg.test`).replace('/web-bundle:', `/${n}-bundle:`));
    put(`addons/packages/${n}/1.0.0/bundle/config/web.yaml`, workload(n, 'released'));
    put(`addons/packages/${n}/1.0.0/bundle/.imgpkg/images.yml`, 'apiVersion: imgpkg.carvel.dev/v1alpha1\nkind: ImagesLock\nimages: []\n');
  }
  put('hack/push.sh', PUSH.replace('image="$host/web-app:$DEVPKG_TAG"', 'image="$host/web-app-$DEVPKG_PACKAGE:$DEVPKG_TAG"'));
  g('add', '-A');
  g('commit', '-qm', 'three packages released');
  const b = g('rev-parse', 'HEAD');
  for (const n of names) put(`addons/packages/${n}/1.0.0/bundle/config/web.yaml`, workload(n, 'dev'));
  g('commit', '-qam', 'three packages: the dev flavour');
  const h = g('rev-parse', 'HEAD');
  const before = await engineState();
  const out = { stdout: '', stderr: '' };
  const flags = Object.entries(machineInputs()).flatMap(([k, v]) => [`--${k}`, v]);
  const code = await runCli(
    ['kind', '--repo', dir, '--base', b, '--head', h, '--push-command', 'bash hack/push.sh', '--settle', '5s', '--timeout', '5m', '--results-dir', join(work, 'three-results'), '--json', ...flags],
    { stdout: (t) => void (out.stdout += t), stderr: (t) => void (out.stderr += t), env: process.env, cwd: dir },
  );
  const results = JSON.parse(out.stdout) as PackageResult[];
  expect({ code, verdicts: results.map((r) => `${r.name} ${r.verdict}`).sort() }).toEqual({ code: 0, verdicts: names.map((n) => `${n} won`) });
  for (const r of results) {
    expect(r.phases?.map((p) => p.name)).toEqual(['kind cluster', 'registry', 'kapp-controller', `baseline ${r.name} 1.0.0`, 'dev Package applied', 'won']);
  }
  // The step graph as it ran (the same in each result): one verify, after all three dev Packages.
  const steps = results[0]!.steps!;
  const verify = steps.find((t) => t.name === 'verify')!;
  expect(verify.needs.sort()).toEqual(names.map((n) => `dev Package ${n}/1.0.0`));
  const at = (iso?: string) => Date.parse(iso ?? '');
  for (const n of names) expect(at(steps.find((t) => t.name === `dev Package ${n}/1.0.0`)!.finishedAt)).toBeLessThanOrEqual(at(verify.startedAt));
  // Builds and pushes (9 steps): at no moment more of them running than the cores.
  const cpu = steps.filter((t) => /^(build|push (baseline|dev)) /.test(t.name));
  expect(cpu).toHaveLength(9);
  const overlap = Math.max(...cpu.map((t) => cpu.filter((o) => at(o.startedAt) <= at(t.startedAt) && at(t.startedAt) < at(o.finishedAt)).length));
  expect(overlap).toBeLessThanOrEqual(availableParallelism());
  expect(await engineState()).toEqual(before);
}, T);

test('mode kind: cluster creation failing (a node image that does not exist) is an error result per package with the summary; nothing is left', async () => {
  const a = actionRun({ 'kind-node-image': 'devpkg.invalid/no-such-node:v0.0.0' }, 'kindbad');
  try {
    await expect(a.run()).rejects.toThrow('1 of 1 package(s) did not win: web/1.0.0 error');
    const results = JSON.parse(a.host.outputs.results!) as PackageResult[];
    expect(results.map((r) => [r.name, r.verdict])).toEqual([['web', 'error']]);
    expect(results[0]!.reason).toMatch(/^kind setup failed: kind cluster: kind create cluster devpkg-kindbad[0-9a-z]{6}-1 failed \(exit \d+\): [\s\S]*devpkg\.invalid\/no-such-node/);
    expect(a.host.summaries).toHaveLength(1);
    expect(a.host.summaries[0]).toContain('kind setup failed');
    const doc = JSON.parse(readFileSync(join(a.temp, 'devpkg-devpkg-results', 'results.json'), 'utf8')) as { results: PackageResult[] };
    expect(doc.results[0]!.verdict).toBe('error');
  } finally {
    await runPost(a.host);
  }
  expect(await leftovers(a.cluster)).toEqual([]);
}, T);

test('mode kind: a dev bundle whose image cannot be pulled is reconcile-failed with the pod\'s waiting reason, not timed-out; diagnostics from the cluster; nothing is left', async () => {
  // The workload image locked in the dev bundle is a digest that was never pushed to the local registry.
  const missing = createHash('sha256').update('an image never pushed').digest('hex');
  write(`${VERSION_DIR}/bundle/config/web.yaml`, deployment('unpullable'));
  // Only for the dev version: the baseline (the released 1.0.0, pushed by the same script) runs.
  write('hack/lock.env', `[ "$DEVPKG_VERSION" = 1.0.0 ] || WEB_APP_LOCK=web-app@sha256:${missing}\n`);
  git('add', '-A');
  git('commit', '-qm', 'web: an image that is not in the registry');
  const unpullable = git('rev-parse', 'HEAD');
  const a = actionRun({ 'head-ref': unpullable, timeout: '4m' }, 'kindpull');
  try {
    const failure = await a.run().then(() => undefined, (err: Error) => err);
    const results = JSON.parse(a.host.outputs.results!) as PackageResult[];
    expect(results).toHaveLength(1);
    const r = results[0]!;
    // The pod's waiting reason and the kubelet's message, naming the image it could not pull.
    expect([r.name, r.verdict, r.reason]).toEqual(['web', 'reconcile-failed', expect.stringMatching(/pod web\/web-[a-z0-9]+-[a-z0-9]+ container web: (ErrImagePull|ImagePullBackOff)/)]);
    expect(failure?.message).toBe('1 of 1 package(s) did not win: web/1.0.0 reconcile-failed');
    expect(r.reason).toContain(`web-app@sha256:${missing}`);
    expect(r.reason).toMatch(/not found|failed to pull|Back-off pulling image/i);
    const podEntries = (r.timeline ?? []).filter((t) => t.object === 'Pod');
    expect(podEntries.map((t) => t.condition)).toEqual(expect.arrayContaining(['ImagePullBackOff']));
    expect(podEntries.some((t) => t.message?.includes(missing))).toBe(true);

    const resultsDir = join(a.temp, 'devpkg-devpkg-results');
    const doc = JSON.parse(readFileSync(join(resultsDir, 'results.json'), 'utf8')) as { results: PackageResult[] };
    expect(doc.results[0]!.verdict).toBe('reconcile-failed');
    const files = expectClusterDiagnostics(resultsDir, doc.results[0]!);
    expect(files).toContain('pods.yaml');
    const pods = parseYaml(readFileSync(join(resultsDir, doc.results[0]!.diagnostics!.dir, 'pods.yaml'), 'utf8')) as Array<{ status?: { containerStatuses?: Array<{ state?: { waiting?: { reason?: string } } }> } }>;
    expect(pods.flatMap((p) => p.status?.containerStatuses ?? []).map((c) => c.state?.waiting?.reason)).toEqual(expect.arrayContaining([expect.stringMatching(/^(ErrImagePull|ImagePullBackOff)$/)]));
    // The kubelet's pull failure is among the workload namespace's events.
    const events = parseYaml(readFileSync(join(resultsDir, doc.results[0]!.diagnostics!.dir, 'events.yaml'), 'utf8')) as EventSummary[];
    expect(events.some((e) => e.namespace === 'web' && e.object.startsWith('Pod/') && /Failed|BackOff/.test(e.reason ?? ''))).toBe(true);
    expect(a.host.summaries).toHaveLength(1);
    expect(a.host.summaries[0]).toContain('reconcile failed');
    expect(a.host.summaries[0]).toContain('ImagePullBackOff');
  } finally {
    await runPost(a.host);
    rmSync(join(repo, 'hack', 'lock.env'), { force: true });
  }
  expect(await leftovers(a.cluster)).toEqual([]);
}, T);

test('mode kind: timeout bounds the waits on the cluster: at 1s the baseline\'s install is not waited for longer, an error result naming the limit; nothing is left', async () => {
  const a = actionRun({ timeout: '1s', settle: '0s' }, 'kindshort');
  try {
    await expect(a.run()).rejects.toThrow('1 of 1 package(s) did not win: web/1.0.0 error');
    const results = JSON.parse(a.host.outputs.results!) as PackageResult[];
    expect(results.map((r) => [r.name, r.verdict])).toEqual([['web', 'error']]);
    expect(results[0]!.reason).toMatch(/the baseline \(released web 1\.0\.0\) did not install: timed-out: [^\n]* within 1s/);
    // The cluster was up: the limit ended a wait on it, not the set-up.
    expect(results[0]!.phases?.map((p) => p.name)).toEqual(expect.arrayContaining(['kind cluster', 'kapp-controller']));
  } finally {
    await runPost(a.host);
  }
  expect(await leftovers(a.cluster)).toEqual([]);
}, T);

test('devpkg kind (a real process): SIGINT in the settle window writes the interrupted result, closes the watches before the cluster goes, leaves no temp folder; exit 130', async () => {
  const built = buildDevpkg();
  const tmp = mkdtempSync(join(work, 'tmp-'));
  const resultsDir = join(work, 'sigint-results');
  try {
    const before = await engineState();
    const flags = Object.entries(machineInputs()).flatMap(([k, v]) => [`--${k}`, v]);
    const run = start(
      built.cli,
      ['kind', '--repo', repo, '--base', base, '--head', head, '--push-command', 'bash hack/push.sh', '--settle', '300s', '--timeout', '10m', '--results-dir', resultsDir, ...flags],
      { env: { ...process.env, TMPDIR: tmp }, cwd: repo },
    );
    await run.until('won; holding for the 300s settle window');
    run.child.kill('SIGINT');
    const exit = await run.exited;
    expect(exit).toEqual({ code: 130, signal: null });
    const doc = JSON.parse(readFileSync(join(resultsDir, 'results.json'), 'utf8')) as { results: PackageResult[] };
    expect(doc.results.map((r) => [r.name, r.verdict])).toEqual([['web', 'interrupted']]);
    expect(doc.results[0]!.reason).toMatch(/interrupted by SIGINT/);
    // The cluster is deleted: nothing is said to stay applied.
    expect(doc.results[0]!.reason).not.toMatch(/stays applied/);
    expect(readFileSync(join(resultsDir, 'report.md'), 'utf8')).toContain('interrupted');
    expect(run.stdout()).toMatch(/web\/1\.0\.0: INTERRUPTED/);
    // The watches were closed before the cluster was deleted: none of them reconnects to a dead API server.
    expect(run.stderr()).not.toMatch(/reconnecting|ECONNREFUSED/);
    expect(readdirSync(tmp).filter((d) => d.startsWith('devpkg-'))).toEqual([]);
    expect(await engineState()).toEqual(before);
  } finally {
    built.remove();
  }
}, T);

test('devpkg dev on a kept kind cluster, pushing to localhost without --cluster-registry: the pull address comes from the cluster\'s local registry (KEP-1755 ConfigMap + the container on kind\'s network); won', async () => {
  const flags = Object.entries(machineInputs()).flatMap(([k, v]) => [`--${k}`, v]);
  const kept = { stdout: '', stderr: '' };
  // The kept cluster's folder (its kubeconfig) goes to a temp folder of this test's own.
  const tmp = mkdtempSync(join(work, 'keep-tmp-'));
  const savedTmp = process.env.TMPDIR;
  process.env.TMPDIR = tmp;
  const keptCode = await runCli(
    ['kind', '--repo', repo, '--base', base, '--head', head, '--push-command', 'bash hack/push.sh', '--settle', '5s', '--timeout', '4m', '--results-dir', join(work, 'kept-results'), '--keep', '--json', ...flags],
    { stdout: (t) => void (kept.stdout += t), stderr: (t) => void (kept.stderr += t), env: process.env, cwd: repo },
  ).finally(() => (savedTmp === undefined ? delete process.env.TMPDIR : (process.env.TMPDIR = savedTmp)));
  const cluster = /--keep: left kind cluster (devpkg-[0-9a-z]+-\d+)/.exec(kept.stderr)?.[1];
  expect(cluster).toBeDefined();
  const kubeconfig = join(work, `${cluster}.kubeconfig`);
  try {
    expect(keptCode).toBe(0);
    writeFileSync(kubeconfig, (await runTool('kind', ['get', 'kubeconfig', '--name', cluster!])).stdout);
    const kubectl = (...args: string[]) => runTool('kubectl', ['--kubeconfig', kubeconfig, ...args]).then((x) => x.stdout.trim());
    const hosting = parseYaml(await kubectl('get', 'configmap', '-n', 'kube-public', 'local-registry-hosting', '-o', 'jsonpath={.data.localRegistryHosting\\.v1}')) as { host: string; hostFromClusterNetwork?: string };
    // devpkg kind says where the cluster reaches its registry (an RFC1918 address on kind's network).
    expect(hosting.hostFromClusterNetwork).toMatch(/^(10|172|192)\.\d+\.\d+\.\d+:5000$/);
    // As kind's own local-registry script writes it (host only): the container on kind's network is found.
    const kindDocs = join(work, 'kind-docs-hosting.yaml');
    writeFileSync(kindDocs, `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: local-registry-hosting, namespace: kube-public}\ndata:\n  localRegistryHosting.v1: |\n    host: "${hosting.host}"\n    help: "https://kind.sigs.k8s.io/docs/user/local-registry/"\n`);
    await kubectl('replace', '-f', kindDocs);
    expect(await kubectl('get', 'configmap', '-n', 'kube-public', 'local-registry-hosting', '-o', 'jsonpath={.data.localRegistryHosting\\.v1}')).not.toContain('hostFromClusterNetwork');

    const dev = { stdout: '', stderr: '' };
    const code = await runCli(
      ['dev', '--package', join(repo, VERSION_DIR), '--registry', `${hosting.host}/devpkg`, '--kubeconfig', kubeconfig, '--push-command', 'bash hack/push.sh', '--settle', '5s', '--timeout', '4m', '--diagnostics', join(work, 'diagnostics'), '--json'],
      { stdout: (t) => void (dev.stdout += t), stderr: (t) => void (dev.stderr += t), env: process.env, cwd: work },
    );
    const results = JSON.parse(dev.stdout) as PackageResult[];
    // (The whole result, so that a failure shows its reason and timeline.)
    expect(results).toEqual([expect.objectContaining({ verdict: 'won' })]);
    expect(code).toBe(0);
    expect(dev.stderr).not.toMatch(/warning: the cluster is to pull the bundle from localhost/);
    // Pulled from the registry container's address on kind's network, found through docker.
    expect(results[0]!.bundle).toMatch(new RegExp(`^${hosting.hostFromClusterNetwork!.replace(/\./g, '\\.')}/devpkg/web-bundle@sha256:[0-9a-f]{64}$`));
  } finally {
    await runTool('kind', ['delete', 'cluster', '--name', cluster!], { allowFail: true });
    await runTool('docker', ['rm', '-f', '-v', `${cluster}-registry`], { allowFail: true });
    // --keep keeps the run's network too.
    await runTool('docker', ['network', 'rm', cluster!], { allowFail: true });
  }
  expect(await leftovers(cluster!)).toEqual([]);
}, T);
