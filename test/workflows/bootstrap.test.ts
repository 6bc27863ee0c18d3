// Bootstrap mode as a runner runs it: the devpkg-bootstrap.yml example (in a consumer repository
// made from examples/tce-packages, `uses: OWNER/devpkg@<sha>`) executed by act on the kind harness,
// dispatched by hand as the example is (workflow_dispatch, inputs package and addon-type), on a
// branch that changes a package of the repository.
//
// Everything comes in the way a user gives it: the tanzu CLI as a release archive through the
// repository variables TANZU_CLI_URL + TANZU_CLI_SHA256 (the archive holds our STAND-IN tanzu CLI,
// test/standin/tanzu, served from 127.0.0.1), the registry image through DEVPKG_REGISTRY_IMAGE,
// the image mirror through TKG_CUSTOM_IMAGE_REPOSITORY, the runner by its label (`-P
// tanzu-bootstrap=-self-hosted`, as act maps a self-hosted label). One input is added to the
// devpkg step, as kind.test.ts adds the machine's kind inputs: `host-check: false`, because this
// machine has 2 CPUs and the check wants 4 for a real bootstrap (what runs here is a kind cluster).
//
// What the stand-in plays is what bootstrap-kind.test.ts has it play in process: the harness's
// control plane is the bootstrap cluster, with Cluster API's real ClusterResourceSet controller
// (test/harness/capi.sh); the management cluster is a kind cluster on the kind harness with
// kapp-controller in a pod (made here, standing for the one the real CLI would make); phases 2
// and 3 are the stand-in TKG controllers (test/harness/tkg.sh). The package is `web` in the TCE
// layout (helpers/web-bootstrap.ts): the example antrea of examples/tce-packages cannot win a TKG
// 1.x bootstrap (the addons manager's data values are not in its schema; tkg-standin.ts says why).
//
// The verdict must reach the outputs, the job's log and the uploaded artifact (the example sets
// comment: false, and a dispatched run has no pull request to comment on); the action's post step
// must delete the management cluster through the stand-in, the workflow's last step its registry,
// and nothing may be left: no cluster or container beyond the one made here, no stand-in
// controller, no Cluster API object on the bootstrap cluster, no temp folder (the tier's check).
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { CleanupList, runCleanup } from '../../src/cleanup.js';
import { createKindCluster, type KindCluster } from '../../src/cluster/kind.js';
import { execTool } from '../../src/tools/exec.js';
import { ReleaseServer } from '../support/release-server.js';
import { STANDIN } from '../integration/helpers/bootstrap.js';
import { capi } from '../integration/helpers/capi.js';
import { kindHarnessForFile, parseExportLines, stopsAtEndHere, type KindHarness } from '../integration/helpers/kind.js';
import { controlplaneScript, runTool } from '../integration/helpers/run.js';
import { tkgPids } from '../integration/helpers/tkg-standin.js';
import { webBootstrapDeployment, webMgmtObjects, writeWebPackage, writeWebProviders } from '../integration/helpers/web-bootstrap.js';
import { buildWorkloadTar, tarOfOneFile } from '../integration/helpers/workload.js';
import { DEVPKG_REPOSITORY, expectSuccess, git, jobOf, jobResults } from './helpers/act.js';
import { artifactsOf, checkout, makeConsumer, makeWorld, readArtifactFile, runIn, type Consumer, type World } from './helpers/world.js';

const T = 1_800_000;
const WF = '.github/workflows/devpkg-bootstrap.yml';
/** The kind cluster that stands for the management cluster the CLI would create. */
const MGMT = 'devpkg-wfb-mgmt';
const ARCHIVE = '/tanzu-cli-standin-linux-amd64.tar.gz';
const savedEnv = { ...process.env };
const cleanup = new CleanupList();
let cleanedUp = false;
let controlPlaneStartedHere = false;
let releaseEngine: (() => Promise<void>) | undefined;
let capiUp = false;
let kh: KindHarness;
let cluster: KindCluster;
let w: World;
let c: Consumer;
const releases = new ReleaseServer();
let archiveSha256 = '';

/** Adds `host-check: false` after the devpkg step's `mode: bootstrap`, keeping its indent. */
function withHostCheckOff(text: string): string {
  const m = /^( *)mode: bootstrap$/m.exec(text);
  if (!m) throw new Error('no `mode: bootstrap` in devpkg-bootstrap.yml');
  return text.replace(m[0], `${m[0]}\n${m[1]}host-check: false`);
}

/** A tanzu CLI release archive as a user downloads one: `tanzu` at its top, here a launcher of the stand-in. */
function standinArchive(): Buffer {
  const launcher = `#!/bin/sh\n# devpkg's STAND-IN for the tanzu CLI (test/standin/tanzu), not the tanzu CLI.\nexec ${JSON.stringify(STANDIN)} "$@"\n`;
  return gzipSync(tarOfOneFile('tanzu', Buffer.from(launcher), 0o755));
}

/**
 * What could be left on the engine: clusters and containers of this file, the management cluster
 * (MGMT and its nodes and registry) and the workflow's registry (`devpkg-registry-<run id>`). The
 * engine is shared with kind.test.ts (kind mode's `devpkg-<run id>...`); the tier checks it whole.
 */
async function engine(): Promise<{ clusters: string[]; containers: string[] }> {
  const own = (n: string) => n === MGMT || n.startsWith(`${MGMT}-`) || n.startsWith('devpkg-registry-');
  const clusters = (await runTool('kind', ['get', 'clusters'], { env: kh.env })).stdout.split('\n').filter(Boolean).filter(own).sort();
  const containers = (await runTool('docker', ['ps', '-a', '--format', '{{.Names}}'], { env: kh.env })).stdout.split('\n').filter(Boolean).filter(own).sort();
  return { clusters, containers };
}

/** Cluster API's objects on the bootstrap cluster (the harness's control plane). */
async function bootstrapClusterObjects(): Promise<string[]> {
  const r = await runTool('kubectl', ['get', 'clusters.cluster.x-k8s.io,clusterresourcesets.addons.cluster.x-k8s.io,clusterresourcesetbindings.addons.cluster.x-k8s.io', '-A', '-o', 'name']);
  return r.stdout.split('\n').filter(Boolean);
}

async function removeCluster(): Promise<void> {
  if (cleanedUp) return;
  cleanedUp = true;
  await runCleanup(cleanup.list(), execTool, { info: () => undefined, warning: (m) => console.warn(m) });
}

beforeAll(async () => {
  // The bootstrap cluster: the harness's control plane with the stand-in TKG controllers' CRDs
  // (the integration tier's global setup does this there; this tier has none).
  controlPlaneStartedHere = (await runTool('bash', [controlplaneScript, 'status'], { allowFail: true })).code !== 0;
  const cp = await runTool('bash', [controlplaneScript, 'up', '--tkg'], { timeoutMs: T });
  Object.assign(process.env, parseExportLines(cp.stdout));
  ({ kh, release: releaseEngine } = await kindHarnessForFile());
  Object.assign(process.env, kh.env);
  Object.assign(process.env, parseExportLines((await capi('up')).stdout));
  capiUp = true;
  expect(await engine()).toEqual({ clusters: [], containers: [] });

  w = await makeWorld('example', 'tce', 'devpkg-wf-bootstrap-');
  const work = join(w.scratch, 'machine');

  // The management cluster the CLI would make: kind, kapp-controller in a pod, a local registry
  // holding the workload's image (the nodes pull it as localhost:<port>).
  cluster = await createKindCluster({
    exec: execTool,
    cleanup,
    name: MGMT,
    nodeImage: kh.nodeImage,
    kindConfig: kh.config,
    registryImage: kh.registryImage,
    kappControllerManifest: kh.kappControllerManifest,
    log: () => undefined,
  });
  const pushed = `${cluster.registry.pushHost}/web-app:wf`;
  await runTool('docker', ['import', '--change', 'ENTRYPOINT ["/app"]', buildWorkloadTar(work), pushed]);
  await runTool('docker', ['push', pushed]);
  const workloadImage = (await runTool('docker', ['image', 'inspect', '--format', '{{index .RepoDigests 0}}', pushed])).stdout.trim();
  expect(workloadImage).toMatch(/^localhost:\d+\/web-app@sha256:[0-9a-f]{64}$/);

  // The consumer: examples/tce-packages with the examples in .github/workflows; branch web adds
  // the package as released, then changes it (the dev flavour), as a maintainer's branch does.
  c = makeConsumer(w, (name, text) => (name === 'devpkg-bootstrap.yml' ? withHostCheckOff(text) : text));
  git(c.dir, 'checkout', '-q', '-b', 'web', c.base);
  writeWebPackage(join(c.dir, 'addons', 'packages'), 'released', workloadImage);
  git(c.dir, 'add', '-A');
  git(c.dir, 'commit', '-qm', 'web 1.0.0 as released');
  writeFileSync(join(c.dir, 'addons', 'packages', 'web', '1.0.0', 'bundle', 'config', 'web.yaml'), webBootstrapDeployment('dev'));
  git(c.dir, 'commit', '-qam', 'web 1.0.0: the change under test');
  c.heads.web = git(c.dir, 'rev-parse', 'HEAD');
  checkout(c, 'web');

  writeWebProviders(join(work, 'providers'));
  const archive = standinArchive();
  archiveSha256 = createHash('sha256').update(archive).digest('hex');
  releases.bodies.set(ARCHIVE, archive);
  await releases.start();
}, T);

afterAll(async () => {
  await releases.stop();
  if (kh) await removeCluster();
  if (capiUp) await capi('down');
  await w?.close();
  await releaseEngine?.();
  if (stopsAtEndHere(controlPlaneStartedHere)) await runTool('bash', [controlplaneScript, 'down'], { timeoutMs: 600_000 });
  for (const k of Object.keys(process.env)) if (!(k in savedEnv)) delete process.env[k];
  Object.assign(process.env, savedEnv);
}, T);

test('dispatched on a branch changing web: the dev version wins after phase 3; the verdict in the outputs and the artifact; the post step leaves nothing', async () => {
  const id = w.nextRunId();
  const name = `devpkg-${id}`; // the example's CLUSTER_NAME: devpkg-${GITHUB_RUN_ID}
  const work = join(w.scratch, 'machine');
  writeFileSync(join(work, 'mgmt-objects.yaml'), webMgmtObjects(name));
  // The stand-in's own settings (a real tanzu CLI needs none): the bootstrap cluster, the cluster
  // it plays having made, its providers tree, where it pushes the TKR/BOM images, the released version.
  const standin = {
    DEVPKG_STANDIN_KUBECONFIG: process.env.KUBECONFIG!,
    DEVPKG_STANDIN_MGMT_KUBECONFIG: cluster.kubeconfig,
    DEVPKG_STANDIN_CAPI_CRDS: process.env.DEVPKG_CAPI_CRDS!,
    DEVPKG_STANDIN_PROVIDERS: join(work, 'providers'),
    DEVPKG_STANDIN_REGISTRY: cluster.registry.pushHost,
    DEVPKG_STANDIN_REGISTRY_PULL: cluster.registry.clusterHost,
    DEVPKG_STANDIN_RELEASED: '1.0.0',
    DEVPKG_STANDIN_MGMT_OBJECTS: join(work, 'mgmt-objects.yaml'),
  };
  // The runner's machine: the kind harness's docker, the harness's tools and the stand-in
  // controllers' script (the stand-in starts them), Node 24 first.
  const machine = {
    DOCKER_HOST: kh.dockerHost,
    DEVPKG_HARNESS_DIR: process.env.DEVPKG_HARNESS_DIR!,
    DEVPKG_TKG_HARNESS: process.env.DEVPKG_TKG_HARNESS!,
    DEVPKG_CACHE: process.env.DEVPKG_CACHE || join(homedir(), '.cache', 'devpkg'),
  };
  const inputs = { package: 'web/1.0.0', 'addon-type': 'devpkg/web' };
  const vars = {
    DEVPKG_REGISTRY_IMAGE: kh.registryImage,
    TANZU_CLI_URL: `${releases.url}${ARCHIVE}`,
    TANZU_CLI_SHA256: archiveSha256,
    TKG_CUSTOM_IMAGE_REPOSITORY: `${cluster.registry.clusterHost}/tkg`,
  };
  const before = await engine();
  expect(before.clusters).toEqual([MGMT]);

  const run = await runIn(w, c.dir, WF, 'workflow_dispatch', { inputs }, {
    runId: id,
    inputs,
    vars,
    platforms: ['tanzu-bootstrap=-self-hosted'],
    path: `${dirname(w.nodes['24']!)}:${process.env.PATH}`,
    env: { ...machine, ...standin },
    timeoutMs: T,
  });
  expectSuccess(run);
  expect(jobResults(run)).toEqual({ bootstrap: 'success' });
  expect(releases.requests).toEqual([ARCHIVE]);

  const o = jobOf(run, 'bootstrap').outputs;
  expect(o.registry).toMatch(/^(10|172|192)\.[0-9.]+:5000\/devpkg$/);
  expect(o.result).toBe('success');
  const [result, ...more] = JSON.parse(o.results!) as Array<Record<string, unknown>>;
  expect(more).toEqual([]);
  expect(result).toMatchObject({ name: 'web', version: '1.0.0', mode: 'bootstrap', verdict: 'won' });
  expect(result!.devVersion).toMatch(/^1\.0\.1-dev\./);
  // The bundle kapp-controller fetched: pushed by the action to the workflow's registry, by digest.
  expect(result!.bundle).toMatch(new RegExp(`^${o.registry!.replaceAll('.', '\\.')}/web-bundle@sha256:[0-9a-f]{64}$`));
  expect(String(result!.reason)).toMatch(/the dev version held after phase 3/);
  expect((result!.phases as Array<{ name: string }>).map((p) => p.name)).toEqual([
    'management-cluster create',
    'management cluster created',
    'phase 1: ClusterResourceSet applied the dev Package',
    "phase 2: the addons manager's PackageInstall reconciled",
    'phase 3: TKR controller and BOM in place',
    'won',
  ]);
  // The result as the action prints it in the job's log.
  expect(run.text).toMatch(/web\/1\.0\.0: WON: dev version 1\.0\.1-dev\./);

  const art = artifactsOf(w, 'example/tce', id);
  expect(Object.keys(art)).toEqual(['devpkg-bootstrap']);
  expect(art['devpkg-bootstrap']).toEqual(expect.arrayContaining(['report.md', 'results.json']));
  expect(JSON.parse(readArtifactFile(w, 'example/tce', id, 'devpkg-bootstrap', 'results.json')).results[0]).toMatchObject({ name: 'web', verdict: 'won' });
  // comment: false, and no pull request: nothing posted.
  expect(w.standin.count('POST', /comments$/) + w.standin.count('PATCH', /comments\/\d+$/)).toBe(0);

  // The post step deleted the management cluster (the stand-in's delete: its objects on both
  // clusters, the stand-in controllers); the workflow's last step removed its registry.
  expect(run.log.some((e) => String(e.msg ?? '').includes(`Success - Post ${DEVPKG_REPOSITORY}@`))).toBe(true);
  expect(run.log.some((e) => /Success - Main Remove the registry/.test(String(e.msg ?? '')))).toBe(true);
  expect(await tkgPids()).toEqual({});
  expect(await bootstrapClusterObjects()).toEqual([]);
  expect(await engine()).toEqual(before);
  await removeCluster();
  expect(await engine()).toEqual({ clusters: [], containers: [] });
}, T);

