#!/usr/bin/env node
// Benchmark: `devpkg kind` end to end against bench/kind-bare.sh, a bare script doing the same
// steps with the same tools (kind create, the registry container with kind's local-registry
// setup, kubectl apply of kapp-controller, imgpkg push via the repository's push command,
// Package + PackageInstall, kubectl wait), on the same package repository, one run each, as a
// ratio. Goal (issue 33): devpkg / bare <= 0.9, devpkg's steps overlapping where they do not
// depend on each other; its step timeline (started, finished, what each waited on) is printed.
//
// The package repository is made here (as in test/integration/kind-mode.test.ts): one package
// whose Deployment runs a static binary imported as an image by the repository's push command.
// devpkg runs with --settle 0s (the bare script has no settle window either).
//
// Needs Docker, kind, kubectl, imgpkg, go and curl on PATH. On our machines: the kind harness,
//   eval "$(test/harness/kind.sh up)"
// whose DEVPKG_KIND_NODE_IMAGE, DEVPKG_KIND_CONFIG, DEVPKG_KIND_REGISTRY_IMAGE and
// DEVPKG_KIND_KAPP_CONTROLLER_MANIFEST are handed to both; elsewhere both use the defaults (the
// bare script then needs MANIFEST: kapp-controller's release.yml).
// Usage: node bench/kind.bench.mjs [--cli dist/cli.js] [--reps N] [--packages 1,5,10,20]
// --reps N: N pairs, which side goes first alternating (devpkg first in the first pair); each
// pair's ratio and their median are printed. Cluster creation varies by a few seconds from run to
// run on a busy machine, on both sides; one pair can land on either side of the goal.
// --packages: also devpkg kind on repositories of 5, 10 and 20 packages (a package repository
// release touches 20), each in one cluster, its wall time and the devpkg process's peak memory
// (its max RSS, read by a preload at its exit: the tools it starts are not counted) as ratios to
// the one-package run; linear growth at most is the goal (issue 34).
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { availableParallelism as availableCores, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

const { values: flags } = parseArgs({ options: { cli: { type: 'string', default: 'dist/cli.js' }, packages: { type: 'string', default: '1' }, reps: { type: 'string', default: '1' } } });
const REPS = Number(flags.reps);
if (!Number.isInteger(REPS) || REPS < 1) {
  console.error(`bench: --reps must be a whole number of at least 1, not ${JSON.stringify(flags.reps)}`);
  process.exit(2);
}
const CLI = resolve(flags.cli);
const E = process.env;
const manifest = E.DEVPKG_KIND_KAPP_CONTROLLER_MANIFEST || E.MANIFEST;
for (const [ok, msg] of [
  [existsSync(CLI), `${CLI} not found; run \`npm run bundle\` first (or pass --cli)`],
  [!!manifest, 'set DEVPKG_KIND_KAPP_CONTROLLER_MANIFEST (the kind harness) or MANIFEST (a kapp-controller release.yml) for the bare script'],
  ...['kind', 'kubectl', 'imgpkg', 'docker', 'go', 'curl'].map((t) => [spawnSync(t, ['--help'], { stdio: 'ignore' }).error === undefined, `${t} is not on PATH`]),
]) {
  if (!ok) {
    console.error(`bench: ${msg}`);
    process.exit(2);
  }
}

const work = mkdtempSync(join(tmpdir(), 'devpkg-bench-kind-'));
const repo = join(work, 'repo');
const REF = 'web.devpkg.test';
const VERSION_DIR = 'addons/packages/web/1.0.0';
const gitIn = (dir, ...a) => execFileSync('git', ['-c', 'user.name=b', '-c', 'user.email=b@b.invalid', ...a], { cwd: dir, encoding: 'utf8' }).trim();
const writeIn = (dir, p, t) => {
  mkdirSync(join(dir, p, '..'), { recursive: true });
  writeFileSync(join(dir, p), t);
};

/** A package repository of the packages `names` (each its own refName and namespace), released then changed. */
function makeRepo(dir, names) {
  mkdirSync(dir);
  gitIn(dir, 'init', '-q', '-b', 'main');
  for (const name of names) {
    const v = `addons/packages/${name}/1.0.0`;
    writeIn(dir, `${v}/package.yaml`, `apiVersion: data.packaging.carvel.dev/v1alpha1\nkind: Package\nmetadata:\n  name: ${name}.devpkg.test.1.0.0\nspec:\n  refName: ${name}.devpkg.test\n  version: 1.0.0\n  template:\n    spec:\n      fetch: [{imgpkgBundle: {image: "localhost:5001/devpkg/${name}-bundle:1.0.0"}}]\n      template: [{ytt: {paths: [config/]}}, {kbld: {paths: ["-", .imgpkg/images.yml]}}]\n      deploy: [{kapp: {}}]\n`);
    writeIn(dir, `${v}/bundle/config/web.yaml`, web(name, 'released'));
    writeIn(dir, `${v}/bundle/.imgpkg/images.yml`, 'apiVersion: imgpkg.carvel.dev/v1alpha1\nkind: ImagesLock\nimages: []\n');
  }
  writeIn(dir, 'hack/push.sh', PUSH);
  gitIn(dir, 'add', '-A');
  gitIn(dir, 'commit', '-qm', 'released');
  const base = gitIn(dir, 'rev-parse', 'HEAD');
  for (const name of names) writeIn(dir, `addons/packages/${name}/1.0.0/bundle/config/web.yaml`, web(name, 'dev'));
  gitIn(dir, 'commit', '-qam', 'dev');
  return { base, head: gitIn(dir, 'rev-parse', 'HEAD') };
}
const web = (name, flavour) =>
  `apiVersion: v1\nkind: Namespace\nmetadata: {name: ${name}}\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: ${name}}\nspec:\n  replicas: 1\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata:\n      labels: {app: web}\n      annotations: {devpkg.test/flavour: ${flavour}}\n    spec:\n      containers: [{name: web, image: web-app}]\n`;
// The workload image is named after the package: pushes of several packages run at once, and
// under one shared name a push's inspect could read another push's image, not yet pushed.
const PUSH = `set -euo pipefail
host="\${DEVPKG_REGISTRY%%/*}"
image="$host/web-app-$DEVPKG_PACKAGE:$DEVPKG_TAG"
docker import --change 'ENTRYPOINT ["/app"]' "$WEB_APP_TAR" "$image" >/dev/null
docker push "$image" >/dev/null
ref=$(docker image inspect --format '{{index .RepoDigests 0}}' "$image")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp -R "$DEVPKG_BUNDLE_DIR"/. "$tmp"
printf 'apiVersion: imgpkg.carvel.dev/v1alpha1\\nkind: ImagesLock\\nimages:\\n- image: %s\\n  annotations:\\n    kbld.carvel.dev/id: web-app\\n' "$ref" > "$tmp/.imgpkg/images.yml"
imgpkg push -b "$DEVPKG_IMAGE" -f "$tmp" >/dev/null
`;

function freePort() {
  return new Promise((r) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const p = s.address().port;
      s.close(() => r(p));
    });
  });
}

// Loaded into devpkg's node process (--import): at its exit, its peak resident memory (kB).
const RSS_PRELOAD = `data:text/javascript,${encodeURIComponent("import { writeFileSync } from 'node:fs'; process.on('exit', () => { if (process.env.BENCH_RSS_FILE) writeFileSync(process.env.BENCH_RSS_FILE, String(process.resourceUsage().maxRSS)); });")}`;

function timed(label, cmd, args, env) {
  const t0 = performance.now();
  const rssFile = join(work, `rss-${label.replace(/\W+/g, '-')}`);
  const r = spawnSync(cmd, args, { env: { ...process.env, ...env, BENCH_RSS_FILE: rssFile }, encoding: 'utf8', maxBuffer: 64 << 20 });
  const s = (performance.now() - t0) / 1000;
  if (r.status !== 0) {
    console.error(`${label} failed (exit ${r.status}):\n${r.stderr.slice(-3000)}\n${r.stdout.slice(-2000)}`);
    throw new Error(`${label} failed`);
  }
  const rssKb = existsSync(rssFile) ? Number(readFileSync(rssFile, 'utf8')) : undefined;
  return { s, rssKb, out: r.stdout, err: r.stderr.split('\n').filter((l) => l.startsWith('bare: ')).join('\n') };
}
const load = () => loadavg().map((x) => x.toFixed(1)).join(' ');
const median = (xs) => {
  const v = [...xs].sort((a, b) => a - b);
  return v.length % 2 ? v[(v.length - 1) / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
};
const mb = (kb) => (kb === undefined ? '?' : `${(kb / 1024).toFixed(0)} MB`);

console.log(`${new Date().toISOString()} load average ${load()} (1, 5, 15 min), ${process.platform} ${availableCores()} cores`);
try {
  // The workload image's only file: a static binary that waits.
  const app = join(work, 'app');
  mkdirSync(app);
  writeFileSync(join(app, 'go.mod'), 'module webapp\n\ngo 1.21\n');
  writeFileSync(join(app, 'main.go'), 'package main\n\nimport "time"\n\nfunc main() {\n\tfor {\n\t\ttime.Sleep(time.Hour)\n\t}\n}\n');
  execFileSync('go', ['build', '-trimpath', '-o', join(app, 'rootfs', 'app'), '.'], { cwd: app, env: { ...E, CGO_ENABLED: '0', GOFLAGS: '-mod=mod' } });
  execFileSync('tar', ['-C', join(app, 'rootfs'), '-cf', join(work, 'web-app.tar'), 'app']);

  const { base, head } = makeRepo(repo, ['web']);
  const env = { WEB_APP_TAR: join(work, 'web-app.tar') };

  const machine = [
    ['--kind-node-image', E.DEVPKG_KIND_NODE_IMAGE],
    ['--kind-config', E.DEVPKG_KIND_CONFIG],
    ['--registry-image', E.DEVPKG_KIND_REGISTRY_IMAGE],
    ['--kapp-controller-manifest', manifest],
  ].filter(([, v]) => v).flat();
  const devpkgKind = (dir, b, h, label = 'devpkg kind') =>
    timed(label, process.execPath, ['--import', RSS_PRELOAD, CLI, 'kind', '--repo', dir, '--base', b, '--head', h, '--push-command', 'bash hack/push.sh', '--settle', '0s', '--timeout', '5m', '--results-dir', join(dir, '..', `results-${label.replace(/\W+/g, '-')}`), '--json', ...machine], env);
  // The same cluster config devpkg made: the user's plus kind's local-registry containerd patch.
  const userConfig = E.DEVPKG_KIND_CONFIG ? readFileSync(E.DEVPKG_KIND_CONFIG, 'utf8') : 'kind: Cluster\napiVersion: kind.x-k8s.io/v1alpha4\n';
  if (/containerdConfigPatches/.test(userConfig)) throw new Error('bench: the kind config already has containerdConfigPatches; merge by hand');
  writeFileSync(join(work, 'kind-config.yaml'), `${userConfig}\ncontainerdConfigPatches:\n- |-\n  [plugins."io.containerd.grpc.v1.cri".registry]\n    config_path = "/etc/containerd/certs.d"\n`);
  mkdirSync(join(work, 'bare'));
  const runDevpkg = (rep) => {
    const run = devpkgKind(repo, base, head, REPS > 1 ? `devpkg kind ${rep}` : 'devpkg kind');
    const result = JSON.parse(run.out)[0];
    if (result?.verdict !== 'won') throw new Error(`devpkg kind: ${result?.verdict}: ${result?.reason}`);
    return { ...run, result };
  };
  const runBare = (devVersion, port) =>
    timed('bench/kind-bare.sh', 'bash', [resolve('bench/kind-bare.sh')], {
      ...env,
      NAME: `bench-bare-${Date.now().toString(36)}`,
      WORK: join(work, 'bare'),
      PORT: String(port),
      KIND_CONFIG: join(work, 'kind-config.yaml'),
      MANIFEST: manifest,
      REPO: repo,
      BASE: base,
      VERSION_DIR,
      REF,
      DEV_VERSION: devVersion,
      NODE_IMAGE: E.DEVPKG_KIND_NODE_IMAGE ?? '',
      REGISTRY_IMAGE: E.DEVPKG_KIND_REGISTRY_IMAGE ?? '',
      PUSH: 'bash hack/push.sh',
    });
  const pairs = [];
  let devpkg;
  for (let rep = 1; rep <= REPS; rep++) {
    let bare;
    const port = await freePort();
    // The bare script needs a dev version to name its Package: the last one devpkg planned.
    if (rep % 2 === 1) {
      devpkg = runDevpkg(rep);
      bare = runBare(devpkg.result.devVersion, port);
    } else {
      bare = runBare(devpkg.result.devVersion, port);
      devpkg = runDevpkg(rep);
    }
    pairs.push({ devpkg, bare, first: rep % 2 === 1 ? 'devpkg' : 'bare', load: load() });
    const { result } = devpkg;
    const t0 = Date.parse(result.phases?.[0]?.seenAt ?? '') - 0;
    if (REPS > 1) console.log(`-- pair ${rep} of ${REPS} (${pairs.at(-1).first} first)`);
    console.log(`devpkg phases (seconds after the cluster was up): ${(result.phases ?? []).map((p) => `${p.name} ${((Date.parse(p.seenAt) - t0) / 1000).toFixed(1)}`).join(', ')}`);
    const steps = result.steps ?? [];
    const s0 = Math.min(...steps.filter((t) => t.startedAt).map((t) => Date.parse(t.startedAt)));
    const sec = (iso) => (iso ? ((Date.parse(iso) - s0) / 1000).toFixed(1).padStart(5) : '    -');
    console.log(`devpkg steps (seconds from the first step's start: started, finished, waited on):\n${steps.map((t) => `  ${sec(t.startedAt)} ${sec(t.finishedAt)}  ${t.name}${t.state === 'done' ? '' : ` (${t.state})`}${t.waitedOn.length ? `  <- ${t.waitedOn.join(', ')}` : ''}`).join('\n')}`);
    console.log(`bare steps (seconds from the script's start):\n${bare.err}`);
    console.log(`devpkg kind (won ${result.devVersion}): ${devpkg.s.toFixed(1)} s`);
    console.log(`bare script (same steps, same tools):  ${bare.s.toFixed(1)} s`);
    console.log(`ratio devpkg/bare: ${(devpkg.s / bare.s).toFixed(2)} (goal <= 0.90)`);
  }
  if (REPS > 1) {
    const ratios = pairs.map((p) => p.devpkg.s / p.bare.s);
    console.log('pair | first  | devpkg | bare   | ratio | load average after');
    pairs.forEach((p, i) => console.log(`${String(i + 1).padStart(4)} | ${p.first.padEnd(6)} | ${p.devpkg.s.toFixed(1).padStart(5)} s | ${p.bare.s.toFixed(1).padStart(5)} s | ${ratios[i].toFixed(2)}  | ${p.load}`));
    console.log(`median ratio devpkg/bare over ${REPS} pairs: ${median(ratios).toFixed(2)} (goal <= 0.90; each pair: ${ratios.map((r) => r.toFixed(2)).join(', ')})`);
  }

  console.log(`devpkg kind, 1 package: ${devpkg.s.toFixed(1)} s, devpkg's max RSS ${mb(devpkg.rssKb)}`);

  // Many packages in one cluster (--packages 5,10,20): builds and pushes bounded by the cores,
  // the verifies together; time and devpkg's peak memory as ratios to one package.
  const rows = [{ n: 1, s: devpkg.s, rssKb: devpkg.rssKb }];
  for (const n of flags.packages.split(',').map(Number).filter((x) => x > 1)) {
    const names = Array.from({ length: n }, (_, i) => `web${i + 1}`);
    const dir = join(work, `repo-${n}`);
    const { base: b, head: h } = makeRepo(dir, names);
    const many = devpkgKind(dir, b, h, `devpkg kind ${n} packages`);
    const won = JSON.parse(many.out).filter((r) => r.verdict === 'won').length;
    if (won !== n) throw new Error(`devpkg kind, ${n} packages: ${won} won`);
    rows.push({ n, s: many.s, rssKb: many.rssKb });
    const rss = many.rssKb && devpkg.rssKb ? `${(many.rssKb / devpkg.rssKb).toFixed(2)}x` : '?';
    console.log(`devpkg kind, ${n} packages: ${many.s.toFixed(1)} s, ${(many.s / devpkg.s).toFixed(2)}x one package; max RSS ${mb(many.rssKb)}, ${rss} (goal: at most ${n}x, linear; load average ${load()})`);
  }
  if (rows.length > 1) {
    console.log('packages | wall | time ratio | devpkg max RSS | memory ratio');
    for (const r of rows) console.log(`${String(r.n).padStart(8)} | ${r.s.toFixed(1).padStart(6)} s | ${(r.s / devpkg.s).toFixed(2).padStart(5)}x | ${mb(r.rssKb).padStart(8)} | ${r.rssKb && devpkg.rssKb ? (r.rssKb / devpkg.rssKb).toFixed(2) : '?'}x`);
  }
  console.log(`${new Date().toISOString()} load average ${load()}`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
