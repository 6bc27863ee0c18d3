// Issue 34 on the kind harness: `devpkg kind` as real processes (helpers/built-cli.ts) on
// examples/kind-hello. Two runs at once on one engine share no name, port, network or temp folder,
// each gets its own verdict and removes only its own things; a run killed with SIGKILL leaves
// things the next run's start finds by their labels and removes, saying so; and two faults
// injected at a named step through the push command (the one step devpkg hands to a program of
// the user's): the registry container stopped while the bundle is pushed, and the Docker engine
// stopped. Each fault ends in an error result that names it and the step, results.json and
// report.md written, exit 1, and nothing of the run left (or, with Docker gone, each thing named
// with the command that removes it). The engine-stopping test runs last and brings the engine
// back up (kind.sh up brings a dead engine down first).
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PackageResult } from '../../src/results.js';
import { buildDevpkg, start, type BuiltDevpkg, type Running } from './helpers/built-cli.js';
import { kindHarnessUp, type KindHarness } from './helpers/kind.js';
import { repoRoot, runTool } from './helpers/run.js';

const T = 1_200_000;
const PUSH = `bash ${repoRoot}/examples/kind-hello/hack/push.sh`;

let harness: KindHarness;
let built: BuiltDevpkg;
let work: string;
beforeAll(async () => {
  harness = await kindHarnessUp();
  built = buildDevpkg();
  work = mkdtempSync(join(tmpdir(), 'devpkg-concur-'));
}, 2_700_000);
afterAll(() => {
  built?.remove();
  if (work) rmSync(work, { recursive: true, force: true });
});

const docker = async (...args: string[]) => (await runTool('docker', args, { env: harness.env, allowFail: true })).stdout;

/** devpkg's things on the engine: containers (by name), networks and volumes (all: anonymous volumes have no name to go by). */
async function engineState(): Promise<{ containers: string[]; networks: string[]; volumes: number }> {
  const lines = (s: string) => s.split('\n').map((l) => l.trim()).filter(Boolean).sort();
  return {
    containers: lines(await docker('ps', '-a', '--format', '{{.Names}}')).filter((n) => n.startsWith('devpkg-')),
    // Every network but docker's own: kind's shared `kind` too, which a run must not leave either.
    networks: lines(await docker('network', 'ls', '--format', '{{.Name}}')).filter((n) => !['bridge', 'host', 'none'].includes(n)),
    volumes: lines(await docker('volume', 'ls', '-q')).length,
  };
}

/** A `devpkg kind` process on examples/kind-hello, with its own results folder, in the temp folder `tmp` (no --json: its log is the test's evidence). */
function devpkgKind(name: string, tmp: string, pushCommand = PUSH): { run: Running; results: string } {
  const results = join(work, `${name}-results`);
  const run = start(
    built.cli,
    ['kind', '--repo', 'examples/kind-hello', '--packages', 'hello/1.0.0', '--push-command', pushCommand, '--settle', '5s', '--timeout', '6m', '--results-dir', results],
    { env: { ...harness.env, TMPDIR: tmp }, cwd: repoRoot },
  );
  return { run, results };
}

const clusterOf = (r: Running) => /creating cluster (devpkg-[0-9a-z]+-\d+)/.exec(r.stderr())?.[1];
const pushPortOf = (r: Running) => /registry ready: push to localhost:(\d+)/.exec(r.stderr())?.[1];
const devpkgFolders = (tmp: string) => readdirSync(tmp).filter((d) => d.startsWith('devpkg-'));
const resultsOf = (dir: string) => (JSON.parse(readFileSync(join(dir, 'results.json'), 'utf8')) as { results: PackageResult[] }).results;
const tail = (r: Running) => r.stderr().slice(-5000);

test(
  "two devpkg kind runs at once: each its own cluster, network, registry port and temp folders, each its own verdict; the second's start leaves the first's things alone; nothing of either is left",
  async () => {
    const before = await engineState();
    const tmp = mkdtempSync(join(work, 'two-tmp-'));
    const a = devpkgKind('a', tmp);
    // The second starts once the first's network and registry exist: its sweep sees them.
    await a.run.until('registry ready: push to');
    const b = devpkgKind('b', tmp);
    const [ea, eb] = await Promise.all([a.run.exited, b.run.exited]);
    expect({ a: ea, b: eb, stderr: ea.code === 0 && eb.code === 0 ? '' : `${tail(a.run)}\n----\n${tail(b.run)}` }).toEqual({ a: { code: 0, signal: null }, b: { code: 0, signal: null }, stderr: '' });
    for (const x of [a, b]) {
      expect(resultsOf(x.results).map((r) => [r.name, r.verdict])).toEqual([['hello', 'won']]);
      expect(x.run.stdout()).toMatch(/^hello\/1\.0\.0: WON: /m);
      expect(existsSync(join(x.results, 'report.md'))).toBe(true);
    }
    const [ca, cb] = [clusterOf(a.run), clusterOf(b.run)];
    expect(ca).toBeDefined();
    expect(cb).toBeDefined();
    expect(ca).not.toBe(cb);
    // Each its own registry port (the default 5001 when free, else one docker picks).
    expect(pushPortOf(a.run)).toMatch(/^\d+$/);
    expect(pushPortOf(b.run)).toMatch(/^\d+$/);
    expect(pushPortOf(a.run)).not.toBe(pushPortOf(b.run));
    if (pushPortOf(a.run) === '5001') expect(b.run.stderr()).toMatch(/127\.0\.0\.1:5001 is taken; letting docker choose a free port/);
    // Each on its own network.
    expect(a.run.stderr()).toContain(`registry on the ${ca} network`);
    expect(b.run.stderr()).toContain(`registry on the ${cb} network`);
    // The second run found the first's things and left them alone; neither removed anything.
    expect(b.run.stderr()).toMatch(new RegExp(`left alone: .*container ${ca}-registry, network ${ca}, .*of a devpkg run on ${hostname()} pid ${a.run.child.pid} .*that is still running`));
    for (const x of [a, b]) expect(x.run.stderr()).not.toMatch(/removing what a devpkg run|could not clean up/);
    expect(await engineState()).toEqual(before);
    expect(devpkgFolders(tmp)).toEqual([]);
  },
  T,
);

test(
  "a run killed with SIGKILL leaves its cluster, registry, network and folders, labelled with it; the next run's start removes them, says so, and wins",
  async () => {
    const before = await engineState();
    const tmp = mkdtempSync(join(work, 'kill-tmp-'));
    const killed = devpkgKind('killed', tmp);
    // The cluster is up and the registry is on its network: everything a run creates exists.
    await killed.run.until('registry on the ');
    const cluster = clusterOf(killed.run)!;
    killed.run.child.kill('SIGKILL');
    expect(await killed.run.exited).toEqual({ code: null, signal: 'SIGKILL' });
    // What it left, and the labels that say whose it is.
    const left = await engineState();
    expect(left.containers).toEqual(expect.arrayContaining([`${cluster}-control-plane`, `${cluster}-registry`]));
    expect(left.networks).toContain(cluster);
    expect((await docker('container', 'inspect', '-f', '{{index .Config.Labels "dev.devpkg.run.pid"}} {{index .Config.Labels "dev.devpkg.run.host"}}', `${cluster}-registry`)).trim()).toBe(`${killed.run.child.pid} ${hostname()}`);
    expect((await docker('network', 'inspect', '-f', '{{index .Labels "dev.devpkg.cluster"}}', cluster)).trim()).toBe(cluster);
    const folders = devpkgFolders(tmp);
    expect(folders.map((f) => f.replace(/-[^-]+$/, '-*')).sort()).toEqual(['devpkg-kind-cli-*', 'devpkg-kind-cluster-*']);

    const next = devpkgKind('next', tmp);
    const exit = await next.run.exited;
    expect({ exit, stderr: exit.code === 0 ? '' : tail(next.run) }).toEqual({ exit: { code: 0, signal: null }, stderr: '' });
    expect(resultsOf(next.results).map((r) => [r.name, r.verdict])).toEqual([['hello', 'won']]);
    const said = new RegExp(
      `removing what a devpkg run on ${hostname()} pid ${killed.run.child.pid} started \\S+ left \\(its process is gone\\): kind cluster ${cluster} \\(node ${cluster}-control-plane\\), container ${cluster}-registry, network ${cluster}, folder \\S+, folder \\S+`,
    );
    expect(next.run.stderr()).toMatch(said);
    for (const f of folders) expect(next.run.stderr()).toContain(`folder ${join(tmp, f)}`);
    expect(next.run.stderr()).toContain(`cleaned up network ${cluster}`);
    expect(next.run.stderr()).not.toMatch(/could not clean up/);
    expect(await engineState()).toEqual(before);
    expect(devpkgFolders(tmp)).toEqual([]);
  },
  T,
);

test(
  'the registry container stopped while the bundle is pushed: an error result naming the stopped registry and the step, results.json and report.md written, exit 1, nothing left',
  async () => {
    const before = await engineState();
    const tmp = mkdtempSync(join(work, 'registry-tmp-'));
    // The run's registry is the one container named *-registry on the engine.
    const stopRegistry = `docker stop $(docker ps -q --filter name=-registry) >/dev/null; ${PUSH}`;
    const x = devpkgKind('registry', tmp, stopRegistry);
    const exit = await x.run.exited;
    expect(exit).toEqual({ code: 1, signal: null });
    const results = resultsOf(x.results);
    expect(results.map((r) => [r.name, r.verdict])).toEqual([['hello', 'error']]);
    // The step (the baseline's push or the dev bundle's, whichever failed first) and the fault (the
    // registry container is not running), then the push's own error (the registry does not answer).
    expect(results[0]!.reason).toMatch(/^(baseline|pushing the bundle): the registry container devpkg-[0-9a-z]+-\d+-registry is not running \(exited, exit code \d+, since \S+\); push command `[^`]*`: /);
    expect(existsSync(join(x.results, 'report.md'))).toBe(true);
    expect(readFileSync(join(x.results, 'report.md'), 'utf8')).toMatch(/registry container devpkg-\S+ is not running/);
    expect(x.run.stderr()).not.toMatch(/could not clean up/);
    expect(await engineState()).toEqual(before);
    expect(devpkgFolders(tmp)).toEqual([]);
  },
  T,
);

test(
  'the Docker engine stops during a run: the next step fails naming docker, results.json and report.md written, exit 1; cleanup names what it could not remove with the command; no temp folder left; the engine comes back empty',
  async () => {
    const tmp = mkdtempSync(join(work, 'docker-tmp-'));
    // The push command stops the engine (dockerd TERM), waits until docker no longer answers and
    // exits 0: devpkg's next step, reading the pushed tag back from the registry, fails.
    const stopEngine = `kill -TERM "$(cat "$DEVPKG_KIND_STATE/dockerd.pid")" 2>/dev/null; while docker version >/dev/null 2>&1; do sleep 0.2; done; echo engine stopped`;
    const x = devpkgKind('docker', tmp, stopEngine);
    try {
      const exit = await x.run.exited;
      expect({ exit, stderr: exit.code === 1 ? '' : tail(x.run) }).toEqual({ exit: { code: 1, signal: null }, stderr: '' });
      const cluster = clusterOf(x.run)!;
      const results = resultsOf(x.results);
      expect(results.map((r) => [r.name, r.verdict])).toEqual([['hello', 'error']]);
      expect(results[0]!.reason).toMatch(/^(baseline|pushing the bundle): docker stopped answering \(the Docker engine is down\?\): .*Cannot connect to the Docker daemon/);
      expect(existsSync(join(x.results, 'report.md'))).toBe(true);
      const err = x.run.stderr();
      // kind's own error is several lines.
      expect(err).toMatch(new RegExp(`could not clean up kind cluster ${cluster}: [\\s\\S]*?Cannot connect to the Docker daemon[^\\n]*; remove it with: \\S*kind delete cluster --name ${cluster}\\n`));
      expect(err).toMatch(new RegExp(`could not clean up container ${cluster}-registry: .*Cannot connect to the Docker daemon.*; remove it with: docker rm -f -v ${cluster}-registry\\n`));
      expect(err).toMatch(new RegExp(`could not clean up network ${cluster}: .*; remove it with: docker network rm ${cluster}\\n`));
      expect(devpkgFolders(tmp)).toEqual([]);
    } finally {
      // The engine back (the dead one brought down first): nothing of the run is on it.
      harness = await kindHarnessUp();
    }
    expect(await engineState()).toEqual({ containers: [], networks: [], volumes: 0 });
  },
  T,
);
