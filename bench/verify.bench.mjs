#!/usr/bin/env node
// Benchmark: how fast `devpkg verify` gives its verdict once a PackageInstall has reached the
// winning state, as a ratio against the named baseline
//   kubectl wait -n NS packageinstall.v1alpha1.packaging.carvel.dev/NAME --for=condition=ReconcileSucceeded
// on the same object; and the CPU each uses while it waits. Target (DESIGN.md): ratio <= 1 and
// no CPU spent while waiting (watches, not polling).
//
// Per repetition a fresh PackageInstall (a new name) is created for a Package of the fixture
// bundle; right after the create, `devpkg verify --settle 0` and `kubectl wait` start together.
// A warm in-process watch (started before the create) stamps the moment the PackageInstall is
// seen in the winning state; each tool's latency = its exit time - that moment. Both started
// seconds before the win (kapp-controller's fetch/template/deploy), so start-up is not in it.
//
// The idle phase runs both against a PackageInstall that stays put (an expected version that
// never comes) for --idle seconds and reads their CPU time from /proc/<pid>/stat between second
// 3 and second idle-1 (after start-up, before exit).
//
// Needs the harness with kapp-controller (eval "$(test/harness/controlplane.sh up --kapp-controller)"):
// KUBECONFIG, DEVPKG_TEST_REGISTRY, imgpkg and kubectl on PATH.
// On a real kind cluster (a kubelet that pulls), pass --bundle bench/kind-bundle: the fixture with
// the node's preloaded pause image as the agent, so the DaemonSet becomes available offline.
// Usage: node bench/verify.bench.mjs [--reps N] [--idle S] [--cli dist/cli.js] [--bundle DIR]
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

const { values: flags } = parseArgs({
  options: {
    reps: { type: 'string', default: '7' },
    idle: { type: 'string', default: '20' },
    cli: { type: 'string', default: 'dist/cli.js' },
    bundle: { type: 'string', default: 'test/fixtures/kapp-controller/bundle' },
  },
});
const REPS = Number(flags.reps);
const IDLE_S = Number(flags.idle);
const CLI = resolve(flags.cli);
for (const [ok, msg] of [
  [existsSync(CLI), `${CLI} not found; run \`npm run bundle\` first (or pass --cli)`],
  [!!process.env.KUBECONFIG && !!process.env.DEVPKG_TEST_REGISTRY, 'KUBECONFIG and DEVPKG_TEST_REGISTRY must be set (start the harness)'],
  [spawnSync('kubectl', ['version', '--client'], { encoding: 'utf8' }).status === 0, 'kubectl is not on PATH'],
  [spawnSync('imgpkg', ['version'], { encoding: 'utf8' }).status === 0, 'imgpkg is not on PATH'],
]) {
  if (!ok) {
    console.error(`bench: ${msg}`);
    process.exit(2);
  }
}

const k8s = await import('@kubernetes/client-node');
const kc = new k8s.KubeConfig();
kc.loadFromDefault();
const objects = k8s.KubernetesObjectApi.makeApiClient(kc);
const id = Date.now().toString(36);
const base = `devpkg-bench-${id}`;
let ns = base;
const namespaces = [];
const refName = 'bench-agent.devpkg.test';
const sa = 'bench-sa';
const work = mkdtempSync(join(tmpdir(), 'devpkg-bench-verify-'));
const CLK_TCK = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

function cpuSeconds(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLK_TCK; // utime + stime
  } catch {
    return undefined;
  }
}

function start(cmd, args) {
  const t0 = performance.now();
  const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], env: process.env });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const done = new Promise((r) => child.on('close', (code) => r({ code, end: performance.now(), out, t0 })));
  return { child, done };
}

async function pushFixture() {
  const dir = join(work, 'bundle');
  cpSync(resolve(flags.bundle), dir, { recursive: true });
  const lock = join(work, 'lock.yml');
  const repo = `${process.env.DEVPKG_TEST_REGISTRY}/devpkg-bench/${id}/agent`;
  const r = spawnSync('imgpkg', ['push', '-b', `${repo}:1.0.0`, '-f', dir, '--lock-output', lock, '--tty=false'], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`imgpkg push failed: ${r.stderr}`);
  const image = /image: (\S+)/.exec(readFileSync(lock, 'utf8'))[1];
  return { image, digest: image.slice(image.indexOf('@') + 1) };
}

function pkg(version, image) {
  return {
    apiVersion: 'data.packaging.carvel.dev/v1alpha1',
    kind: 'Package',
    metadata: { name: `${refName}.${version}`, namespace: ns },
    spec: {
      refName,
      version,
      template: { spec: { fetch: [{ imgpkgBundle: { image } }], template: [{ ytt: { paths: ['config/'] } }, { kbld: { paths: ['-', '.imgpkg/images.yml'] } }], deploy: [{ kapp: {} }] } },
    },
  };
}

function pkgi(name) {
  return {
    apiVersion: 'packaging.carvel.dev/v1alpha1',
    kind: 'PackageInstall',
    metadata: { name, namespace: ns },
    spec: { serviceAccountName: sa, packageRef: { refName, versionSelection: { prereleases: {} } }, syncPeriod: '10m' },
  };
}

/** Resolves with the time the PackageInstall is first seen winning (warm watch, started before the create). */
async function watchWin(name, version) {
  let resolveWin;
  const won = new Promise((r) => (resolveWin = r));
  const w = new k8s.Watch(kc);
  const ctl = await w.watch(`/apis/packaging.carvel.dev/v1alpha1/namespaces/${ns}/packageinstalls`, { fieldSelector: `metadata.name=${name}` }, (_t, o) => {
    const c = o.status?.conditions ?? [];
    if (o.status?.observedGeneration === o.metadata?.generation && c.length === 1 && c[0].type === 'ReconcileSucceeded' && o.status?.version === version) {
      resolveWin({ perf: performance.now(), wall: Date.now() });
    }
  }, () => undefined);
  return { won, stop: () => ctl.abort() };
}

/** A namespace per PackageInstall: each deploys the same objects, and kapp lets one App own them per namespace. */
async function useNamespace(name, image) {
  ns = name;
  namespaces.push(name);
  await objects.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  await objects.create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: sa, namespace: ns } });
  await objects.create({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name: `${ns}-admin` },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
    subjects: [{ kind: 'ServiceAccount', name: sa, namespace: ns }],
  });
  await objects.create(pkg('1.0.0', image));
}

async function teardown() {
  for (const n of namespaces) {
    for (const o of [{ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: `${n}-admin` } }, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: n } }]) {
      await objects.delete(o).catch(() => undefined);
    }
  }
  rmSync(work, { recursive: true, force: true });
}

async function latencyRep(i, bundle) {
  await useNamespace(`${base}-${i}`, bundle.image);
  const name = `bench-${i}`;
  const w = await watchWin(name, '1.0.0');
  await objects.create(pkgi(name));
  const dev = start('node', [CLI, 'verify', '--package-install', `${ns}/${name}`, '--expect-version', '1.0.0', '--bundle', bundle.digest, '--settle', '0', '--timeout', '180s', '--json']);
  const kub = start('kubectl', ['wait', '-n', ns, `packageinstall.v1alpha1.packaging.carvel.dev/${name}`, '--for=condition=ReconcileSucceeded', '--timeout=180s']);
  const [d, k, win] = await Promise.all([dev.done, kub.done, w.won]);
  w.stop();
  if (d.code !== 0 || k.code !== 0) throw new Error(`rep ${i}: devpkg exit ${d.code}, kubectl exit ${k.code}\n${d.out}\n${k.out}`);
  // When devpkg itself saw the winning PackageInstall (its timeline), to split detection from exit.
  const seen = JSON.parse(d.out.slice(d.out.indexOf('{'))).timeline.filter((t) => t.object === 'PackageInstall').at(-1);
  const won = win.perf;
  return { devpkg: d.end - won, kubectl: k.end - won, devpkgSeen: Date.parse(seen.at) - win.wall, reconcile: won - Math.min(d.t0, k.t0) };
}

async function idleCpu(bundle) {
  await useNamespace(`${base}-idle`, bundle.image);
  const name = 'bench-idle';
  const w = await watchWin(name, '1.0.0');
  await objects.create(pkgi(name));
  await w.won;
  w.stop();
  // Neither will be satisfied: devpkg waits for a version that never comes, kubectl for a condition that is never set.
  const dev = start('node', [CLI, 'verify', '--package-install', `${ns}/${name}`, '--expect-version', '9.9.9', '--bundle', bundle.digest, '--settle', '0', '--timeout', `${IDLE_S}s`, '--json']);
  const kub = start('kubectl', ['wait', '-n', ns, `packageinstall.v1alpha1.packaging.carvel.dev/${name}`, '--for=condition=NeverSet', `--timeout=${IDLE_S}s`]);
  await new Promise((r) => setTimeout(r, 3000));
  const a = { dev: cpuSeconds(dev.child.pid), kub: cpuSeconds(kub.child.pid) };
  const window = IDLE_S - 4;
  await new Promise((r) => setTimeout(r, window * 1000));
  const b = { dev: cpuSeconds(dev.child.pid), kub: cpuSeconds(kub.child.pid) };
  await Promise.all([dev.done, kub.done]);
  return { window, devpkg: b.dev - a.dev, kubectl: b.kub - a.kub };
}

try {
  const bundle = await pushFixture();
  const reps = [];
  for (let i = 0; i < REPS; i++) {
    const r = await latencyRep(i, bundle);
    reps.push(r);
    console.error(`rep ${i}: reconcile ${r.reconcile.toFixed(0)} ms; after the win: devpkg ${r.devpkg.toFixed(0)} ms (saw it at ${r.devpkgSeen} ms), kubectl wait ${r.kubectl.toFixed(0)} ms`);
  }
  const idle = await idleCpu(bundle);
  const dMed = median(reps.map((r) => r.devpkg));
  const kMed = median(reps.map((r) => r.kubectl));
  const result = {
    benchmark: 'verify',
    baseline: 'kubectl wait --for=condition=ReconcileSucceeded',
    reps: REPS,
    medianLatencyAfterWinMs: { devpkg: Math.round(dMed), kubectl: Math.round(kMed) },
    ratio: Number((dMed / kMed).toFixed(2)),
    medianDevpkgSawWinMs: median(reps.map((r) => r.devpkgSeen)),
    idleCpuSeconds: { window: idle.window, devpkg: idle.devpkg, kubectl: idle.kubectl },
    idleCpuPercent: { devpkg: Number(((100 * idle.devpkg) / idle.window).toFixed(2)), kubectl: Number(((100 * idle.kubectl) / idle.window).toFixed(2)) },
  };
  console.log(JSON.stringify(result, null, 2));
} finally {
  await teardown();
}
