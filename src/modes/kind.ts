import { randomBytes } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import type { KindRegistry } from '../bundle/kind-registry.js';
import { formatRepository, type Registry } from '../bundle/reference.js';
import { ADDONS_NAMESPACE, applyBaseline, buildBaseline, pushBaseline, type BaselineBundle } from '../cluster/baseline.js';
import { ClusterClient } from '../cluster/client.js';
import { planForPackageInstalls, pushDevBundle, type PackageInstallInfo } from '../cluster/dev.js';
import {
  checkKindFiles,
  connectClusterRegistry,
  dockerNeed,
  fetchKappControllerManifest,
  installKappController,
  kindNeed,
  normalizeReleaseVersion,
  prepareKindCluster,
  SetupError,
  startClusterRegistry,
  startKindCluster,
  waitForApiServer,
  type KindClusterOptions,
  type KindPrep,
} from '../cluster/kind.js';
import type { BundleSource, LoadedPackage, ReleasedSource } from '../layouts/index.js';
import type { DevSequence } from '../versions/index.js';
import { runSteps, type Step } from '../pipeline/schedule.js';
import { sequenceFromContext } from '../pipeline/selection.js';
import { loadKubeConfig } from '../cluster/kubeconfig.js';
import { currentOwner, sweepLeftovers } from '../cluster/sweep.js';
import { Docker } from '../tools/docker.js';
import { CleanupList } from '../cleanup-list.js';
import { DevpkgError, errorMessage, UsageError } from '../errors.js';
import { parseRefNameMap, targetRefName } from '../packages/refname.js';
import type { PackageResult, Phase, TimelineEntry } from '../results.js';
import { applyDev, ensureImgpkg, finishRun, plannedRefs, readToolPins, startDevRun, toolNeeds, verifyDevRun, type ClusterRunOptions, type DevRun, type PreparedDev } from '../pipeline/steps.js';
import { checkNeeds } from '../tools/needs.js';
import { parseAssertions } from '../verify/assertions.js';
import type { PackageVersionRef } from '../detect/index.js';
import { failedResult, interruptedResult, loadForMode } from '../pipeline/problems.js';
import type { ModeContext } from '../pipeline/context.js';
import type { ExecFn } from '../tools/exec.js';
import { repoOfRun } from '../pipeline/request.js';

/**
 * A kind cluster name for this run (also its network's; the registry is `<name>-registry`): short,
 * lowercase, and unique per process: `nonce` (random) tells apart two runs of one GitHub run
 * attempt (matrix legs on one machine) and two CLI runs started in the same millisecond.
 */
export function kindClusterName(runId: string | number, attempt: number, nonce = randomBytes(4).readUInt32BE(0).toString(36).padStart(7, '0').slice(-6)): string {
  const id = String(runId || Date.now().toString(36)).toLowerCase().replace(/[^a-z0-9]/g, '').slice(-10);
  return `devpkg-${id}${nonce.toLowerCase().replace(/[^a-z0-9]/g, '')}-${attempt || 1}`;
}

/**
 * Kind mode: an ephemeral kind cluster with a local registry and kapp-controller; a baseline of
 * the released version installed the way the addons manager would; then the dev Package; verify.
 * Everything created is recorded for the post step first. A setup failure (kind, docker, the
 * cluster, the registry, kapp-controller) still reports: an `error` result per package naming the
 * step, results.json, the summary and the comment.
 */
export async function run(ctx: ModeContext): Promise<void> {
  const { inputs, host, github } = ctx;
  const root = path.resolve(github.workspace, inputs.workingDirectory);
  // The dev sequence, read once (outside GitHub, the clock): the plan, the early push and the dev run agree.
  const seq = sequenceFromContext(ctx);
  // Everything is checked before anything starts, in this order: the inputs (parseInputs), the
  // packages (planned as `devpkg plan` plans them), the files the inputs name, then every tool
  // and daemon, all that is missing named at once. Nothing is created before the last check.
  if (inputs.kappControllerVersion) normalizeReleaseVersion(inputs.kappControllerVersion, 'kapp-controller-version');
  const tools = await readToolPins(ctx);
  // The releases asked for, resolved now: a version without its sha256 is refused before any work.
  const baseNeeds = [
    dockerNeed(ctx.exec),
    kindNeed({ version: tools.kind?.version, sha256: tools.kind?.sha256, sha256From: tools.kind?.sha256From, exec: ctx.exec, install: ctx.install, log: (m) => host.info(m) }),
  ];
  const { planned, refs, unplanned, tools: layoutTools, nothing } = await host.group('Changed packages', () => plannedRefs(ctx, 'kind', seq));
  // imgpkg, kbld for lock-images, and what the planned packages' layouts build with (ytt, kbld).
  const needs = [...baseNeeds, ...toolNeeds(ctx, tools, layoutTools)];
  if (planned.length + unplanned.length === 0) {
    host.info('no package version changed; nothing to verify');
    await finishRun(ctx, [], nothing);
    return;
  }
  await checkKindFiles({ kindConfig: inputs.kindConfig || undefined, kappControllerManifest: inputs.kappControllerManifest || undefined, kappControllerSha256: inputs.kappControllerSha256 || undefined, cwd: root });
  const assertions = parseAssertions(inputs.assert);
  // The local registry needs no credentials: whatever was given is never sent (issue 18).
  if (inputs.registryUsername || inputs.registryPassword) {
    host.warning('mode kind pushes only to the local registry it creates: registry-username/registry-password are ignored and sent nowhere');
  }
  const kctx: ModeContext = { ...ctx, inputs: { ...inputs, registryUsername: '', registryPassword: '' } };
  const plannedOf = (ref: PackageVersionRef) => planned.find((p) => p.name === ref.name && p.version === ref.version);
  const setupFailed = async (err: unknown, phases: Phase[]) => {
    const step = err instanceof SetupError ? err.step : 'setup';
    host.error(`kind mode setup failed${err instanceof SetupError ? ` at ${step}` : ''}: ${(err as Error).message}`);
    const results = refs.map((ref) => failedResult(kctx, ref, err, 'kind', { prefix: 'kind setup failed', phases: [...phases], quiet: true, planned: plannedOf(ref) }));
    await finishRun(kctx, [...results, ...unplanned]);
  };
  try {
    await host.group('Tools', () =>
      checkNeeds('kind', needs, ctx.install, (m) => host.info(m)),
    );
  } catch (err) {
    await setupFailed(err, []);
    return;
  }
  if (refs.length === 0) {
    await finishRun(ctx, unplanned);
    return;
  }
  const cleanup = new CleanupList(host);
  // Who made what this run creates: labels on its network and registry, a file in its temp folder.
  const owner = ctx.owner ?? (await currentOwner({ local: Boolean(github.local), ...(github.local ? {} : { github: `${github.owner}/${github.repo} run ${github.runId} attempt ${github.runAttempt}` }) }));
  const clusterName = kindClusterName(github.runId, github.runAttempt);
  const phases: Phase[] = [];
  const mark = (name: string, at = new Date().toISOString()) => phases.push({ name, seenAt: at });
  const refNames = parseRefNameMap(inputs.refName);
  const baseRef = inputs.baseRef || github.baseSha || undefined;
  const clusterOptions: KindClusterOptions = {
    exec: ctx.exec,
    cleanup,
    name: clusterName,
    network: clusterName,
    owner,
    kindVersion: tools.kind?.version,
    kindSha256: tools.kind?.sha256,
    kindSha256From: tools.kind?.sha256From,
    nodeImage: inputs.kindNodeImage || undefined,
    kindConfig: inputs.kindConfig || undefined,
    registryImage: inputs.registryImage || undefined,
    kappControllerVersion: inputs.kappControllerVersion || undefined,
    kappControllerManifest: inputs.kappControllerManifest || undefined,
    kappControllerSha256: inputs.kappControllerSha256 || undefined,
    install: ctx.install,
    cwd: root,
    log: (m) => host.info(m),
  };
  // What the steps hand each other; a package's own failure ends only that package.
  let prep: KindPrep | undefined;
  let manifest: { text: string; source: string } | undefined;
  let registry: KindRegistry | undefined;
  let kc: KubeConfig | undefined;
  let dev: Promise<DevRun> | undefined;
  const pushTo = (r: KindRegistry): Registry => ({ host: r.pushHost, path: 'devpkg' });
  // What both pushes of a package (its baseline, its dev bundle) run with.
  const pushing = { root, exec: ctx.exec, pushCommand: inputs.pushCommand || undefined, pushTimeoutMs: inputs.pushTimeoutMs, ...(ctx.signal ? { signal: ctx.signal } : {}) };
  // Keyed NAME/VERSION: the step names of a package's steps.
  const keyOf = (ref: PackageVersionRef) => `${ref.name}/${ref.version}`;
  const pkgs = new Map(refs.map((ref) => [keyOf(ref), { ref } as PackageState]));
  const installs = new Map<string, { namespace: string; name: string }>();
  // A result's phases: the run's (the cluster, the registry, kapp-controller) and its own
  // baseline, not the other packages' (with 20 packages, 19 rows of someone else's in each).
  const phasesOf = (ref: PackageVersionRef): Phase[] => {
    const own = pkgs.get(keyOf(ref))?.baselinePhase;
    return [...phases, ...(own ? [own] : [])];
  };
  const { layouts } = await repoOfRun(kctx);
  const runOptions = (): ClusterRunOptions => ({
    kc: kc!,
    root,
    refs,
    mode: 'kind',
    registry: pushTo(registry!),
    clusterRegistry: { host: registry!.clusterHost, path: '' },
    packageInstalls: installs,
    phases,
    scratch: prep!.dir,
    seq,
    assertions,
  });
  const perPackage = (ref: PackageVersionRef, fn: (st: PackageState) => Promise<void>, onError: (st: PackageState, err: unknown) => PackageResult) => async () => {
    const st = pkgs.get(keyOf(ref))!;
    if (st.result) return;
    try {
      await fn(st);
    } catch (err) {
      // Both pushes of a package run at once: the first failure is its result.
      st.result ??= onError(st, await fault(err));
    }
  };
  const beforeBaseline = (st: PackageState, err: unknown, prefix?: string): PackageResult =>
    ctx.signal?.aborted
      ? interruptedResult(kctx, st.ref, 'kind', ctx.signal, 'before its baseline was installed; nothing was applied for it', { phases: phasesOf(st.ref), planned: plannedOf(st.ref) })
      : failedResult(kctx, st.ref, err, 'kind', { ...(prefix ? { prefix } : {}), phases: phasesOf(st.ref), planned: plannedOf(st.ref), ...(st.loaded?.problems.length ? { problems: st.loaded.problems } : {}) });
  const refOf = (name: string) => pkgs.get(name)!.ref;
  // A step that failed because Docker stopped, or because the registry container did, says so.
  const fault = (err: unknown) => (ctx.signal?.aborted || err instanceof UsageError ? Promise.resolve(err) : withDockerFault(err, { exec: ctx.exec, docker: prep?.docker, registry: `${clusterName}-registry` }));
  const ops: KindStepOps = {
    leftovers: async () => {
      await sweepLeftovers({ docker: prep!.docker, exec: ctx.exec, self: owner, log: (m) => host.info(m), warning: (m) => host.warning(m) });
    },
    imgpkg: async () => {
      try {
        await ensureImgpkg(kctx);
      } catch (err) {
        throw new SetupError('imgpkg', err);
      }
    },
    prepare: async () => void (prep = await prepareKindCluster(clusterOptions)),
    manifest: async () => void (manifest = await fetchKappControllerManifest(clusterOptions)),
    registry: async (signal) => void (registry = await startClusterRegistry(clusterOptions, prep!, clusterName, signal)),
    cluster: async () => {
      await startKindCluster(clusterOptions, prep!, '0s');
      mark('kind cluster');
    },
    apiServer: async (signal) => {
      kc = await loadKubeConfig(prep!.kubeconfig);
      await waitForApiServer(kc, { signal });
    },
    registryOnNodes: async () => {
      registry = await connectClusterRegistry(clusterOptions, prep!, kc!, registry!);
      mark('registry');
    },
    kappController: async () => {
      await installKappController(clusterOptions, kc!, manifest!);
      mark('kapp-controller');
    },
    build: (name) =>
      perPackage(
        refOf(name),
        async (st) => {
          st.stage = 'baseline';
          st.loaded = await loadForMode(kctx, st.ref, baseRef);
          st.refName = targetRefName(refNames, st.loaded.pkg.pkg.spec.refName, refs.length);
          const loaded = st.loaded;
          const released = await mkdtemp(path.join(prep!.dir, 'devpkg-baseline-'));
          st.released = { released: await buildBaseline({ root, exec: ctx.exec, loaded, baseRef, log: (m: string) => host.info(`${st.ref.name}: ${m}`) }, released) };
          st.stage = undefined;
          const tmp = await mkdtemp(path.join(prep!.dir, 'devpkg-build-'));
          st.bundle = await layouts.bundle(loaded, { root, exec: ctx.exec, tmp, log: (m) => host.info(`${st.ref.name}: ${m}`) });
        },
        (st, err) => beforeBaseline(st, err, st.stage),
      )(),
    pushBaseline: (name) =>
      perPackage(
        refOf(name),
        async (st) => {
          st.baseline = await pushBaseline({ ...pushing, loaded: st.loaded!, registry: pushTo(registry!), copyToRegistry: true, log: (m) => host.info(`${st.ref.name}: ${m}`) }, st.released);
        },
        (st, err) => beforeBaseline(st, err, 'baseline'),
      )(),
    pushDev: (name) =>
      perPackage(
        refOf(name),
        async (st) => {
          if (!('folder' in st.bundle!)) return;
          // The plan a fresh cluster holding only the baseline gets; applying checks it again.
          const plan = expectedKindPlan({ loaded: st.loaded!, refName: st.refName!, baselineVersion: st.released?.released?.pkg.pkg.spec.version, seq, devVersion: inputs.devVersion || undefined, registry: pushTo(registry!) });
          const pushed = await pushDevBundle({ ...pushing, loaded: st.loaded!, lockImages: inputs.lockImages, log: (m) => host.info(`${st.ref.name}: ${m}`) }, plan, st.bundle!.folder);
          st.prepushed = { repository: formatRepository(plan.repository), tag: plan.tag, pushed };
        },
        (st, err) => beforeBaseline(st, err, 'pushing the bundle'),
      )(),
    baseline: (name) =>
      perPackage(
        refOf(name),
        async (st) => {
          const client = await ClusterClient.create(kc!);
          const b = await applyBaseline(
            { client, kc: kc!, exec: ctx.exec, root, loaded: st.loaded!, refName: st.refName!, registry: pushTo(registry!), clusterRegistry: { host: registry!.clusterHost, path: '' }, timeoutMs: inputs.timeoutMs, signal: ctx.signal, log: (m) => host.info(`${st.ref.name}: ${m}`) },
            st.baseline,
          );
          installs.set(st.ref.name, { namespace: b.namespace, name: b.name });
          if (b.faults) st.baselineFaults = b.faults;
          if (b.source !== 'none') st.baselinePhase = { name: `baseline ${st.ref.name} ${b.releasedVersion}`, seenAt: b.installedAt };
        },
        (st, err) =>
          ctx.signal?.aborted
            ? interruptedResult(kctx, st.ref, 'kind', ctx.signal, 'while its baseline was installed; the dev Package was not applied', { phases: phasesOf(st.ref), planned: plannedOf(st.ref) })
            : failedResult(kctx, st.ref, err, 'kind', { prefix: 'baseline', phases: phasesOf(st.ref), planned: plannedOf(st.ref) }),
      )(),
    applyDev: async (name) => {
      const st = pkgs.get(name)!;
      if (st.result) return;
      dev ??= startDevRun(kctx, runOptions());
      const run = await dev;
      await applyDev(kctx, { ...runOptions(), phases: phasesOf(st.ref) }, run, st.ref, { loaded: st.loaded!, bundle: st.bundle!, ...(st.prepushed ? { prepushed: st.prepushed } : {}) });
      st.applied = true;
    },
    verify: async () => {
      if (dev) verified.push(...(await verifyDevRun(kctx, runOptions(), await dev)));
    },
  };
  const verified: PackageResult[] = [];
  const graph = kindStepGraph(refs.map(keyOf), ops);
  const ran = await runSteps(graph, { limits: { cpu: availableParallelism() }, ...(ctx.signal ? { signal: ctx.signal } : {}) });
  for (const t of ran.timeline) host.info(`step ${t.name}: ${t.state}${t.startedAt ? ` ${t.startedAt} -> ${t.finishedAt}` : ''}${t.waitedOn.length ? ` (waited on ${t.waitedOn.join(', ')})` : ''}`);
  const own = [...pkgs.values()].filter((st) => st.result).map((st) => st.result!);
  const withSteps = (results: PackageResult[]) =>
    results.map((r) => {
      const faults = [...pkgs.values()].find((st) => st.ref.name === r.name && st.ref.version === r.version)?.baselineFaults ?? [];
      return { ...r, steps: ran.timeline, ...(faults.length ? { timeline: [...faults, ...r.timeline] } : {}) };
    });
  if (ran.failed || ran.aborted) {
    // A dev run that never reached verify: its run Leases released, its packages' own failures kept.
    const started = dev ? await dev.catch(() => undefined) : undefined;
    if (started && !verified.length) {
      for (const release of started.releases) await release().catch(() => undefined);
      own.push(...started.errors);
    }
    if (ran.failed?.error instanceof UsageError) throw ran.failed.error;
    const rest = refs.filter((ref) => !own.some((r) => r.name === ref.name) && !verified.some((r) => r.name === ref.name));
    if (ctx.signal?.aborted) {
      const setUp = ['kind cluster', 'kapp-controller'].every((n) => ran.timeline.find((t) => t.name === n)?.state === 'done');
      const during = setUp ? 'before its dev Package was verified' : 'while the kind cluster was set up; nothing was applied';
      await finishRun(kctx, withSteps([...verified, ...own, ...rest.map((ref) => interruptedResult(kctx, ref, 'kind', ctx.signal!, during, { phases: phasesOf(ref), planned: plannedOf(ref) })), ...unplanned]));
      return;
    }
    const err = await fault(ran.failed!.error);
    const step = ran.failed!.error instanceof SetupError ? ran.failed!.error.step : ran.failed!.step;
    const setup = ran.failed!.error instanceof SetupError;
    host.error(`kind mode ${setup ? 'setup ' : ''}failed at ${step}: ${(err as Error).message}`);
    const results = rest.map((ref) => failedResult(kctx, ref, err, 'kind', { prefix: setup ? 'kind setup failed' : step, phases: phasesOf(ref), quiet: true, planned: plannedOf(ref) }));
    await finishRun(kctx, withSteps([...verified, ...own, ...results, ...unplanned]));
    return;
  }
  await finishRun(kctx, withSteps([...verified, ...own, ...unplanned]));
}

interface PackageState {
  ref: PackageVersionRef;
  /** The package's own end, when it stopped before verification. */
  result?: PackageResult;
  /** What a failure of the build step is prefixed with (the baseline's half). */
  stage?: string;
  loaded?: Awaited<ReturnType<typeof loadForMode>>;
  refName?: string;
  released?: { released: ReleasedSource | undefined };
  bundle?: BundleSource;
  baseline?: BaselineBundle;
  prepushed?: PreparedDev['prepushed'];
  applied?: boolean;
  /** Faults the baseline's wait went through (kapp-controller away, API server gaps): put in the result's timeline. */
  baselineFaults?: TimelineEntry[];
  /** When its released version was installed (a phase of its result only). */
  baselinePhase?: Phase;
}

/**
 * Pure: the dev plan kind mode pushes for before the cluster is up: a fresh cluster whose only
 * PackageInstall is the baseline's (addons-manager shaped, `prereleases: {}`), having installed
 * the released version. The dev pipeline plans again against the real cluster and pushes again
 * if it differs.
 */
export function expectedKindPlan(o: { loaded: Pick<LoadedPackage, 'name' | 'pkg' | 'released' | 'pinned'>; refName: string; baselineVersion?: string; seq: DevSequence; devVersion?: string; registry: Registry }) {
  const v = o.baselineVersion;
  const pkgi: PackageInstallInfo = { namespace: ADDONS_NAMESPACE, name: o.loaded.name, refName: o.refName, selection: { prereleases: {} }, status: v ? { version: v, lastAttemptedVersion: v } : {} };
  return planForPackageInstalls(
    { name: o.loaded.name, released: o.loaded.released ?? o.loaded.pkg.pkg.spec.version, seq: o.seq, devVersion: o.devVersion, ...(o.loaded.pinned ? { pinned: o.loaded.pinned } : {}), registry: o.registry },
    [pkgi],
    v ? [v] : [],
  );
}

/** What each of kind mode's steps does (src/modes/kind.ts runs the real ones; tests hand in fakes). */
export interface KindStepOps {
  imgpkg(): Promise<void>;
  /** kind, docker, the kind config, the cluster's folder, the run's network. */
  prepare(): Promise<void>;
  /** What earlier runs left whose process is gone, removed (never fails the run). */
  leftovers(): Promise<void>;
  manifest(): Promise<void>;
  registry(signal: AbortSignal): Promise<void>;
  cluster(): Promise<void>;
  apiServer(signal: AbortSignal): Promise<void>;
  registryOnNodes(): Promise<void>;
  kappController(): Promise<void>;
  build(pkg: string): Promise<void>;
  pushBaseline(pkg: string): Promise<void>;
  pushDev(pkg: string): Promise<void>;
  baseline(pkg: string): Promise<void>;
  applyDev(pkg: string): Promise<void>;
  verify(): Promise<void>;
}

/**
 * Kind mode's steps along their real dependencies (pure): the registry, the kind cluster, the
 * kapp-controller manifest and the bundle builds start at once; the pushes need the registry, not
 * the cluster; kapp-controller needs only the API server; each baseline needs kapp-controller, the
 * registry on the kind network and its pushed bundle; each dev Package its baseline and its push;
 * verify all of them. Builds and pushes share the `cpu` pool (at most the cores).
 */
export function kindStepGraph(pkgs: readonly string[], ops: KindStepOps): Step[] {
  const abortable = (fn: (s: AbortSignal) => Promise<void>) => (_: unknown, signal: AbortSignal) => fn(signal);
  return [
    { name: 'imgpkg', run: () => ops.imgpkg() },
    { name: 'kind', run: () => ops.prepare() },
    { name: 'kapp-controller manifest', run: () => ops.manifest() },
    // Nothing waits for it: this run's names never collide with what it removes.
    { name: 'leftovers', needs: ['kind'], run: () => ops.leftovers() },
    { name: 'kind cluster', needs: ['kind'], run: () => ops.cluster() },
    { name: 'registry', needs: ['kind'], run: abortable((s) => ops.registry(s)) },
    { name: 'api server', needs: ['kind cluster'], run: abortable((s) => ops.apiServer(s)) },
    { name: 'kapp-controller', needs: ['api server', 'kapp-controller manifest'], run: () => ops.kappController() },
    { name: 'registry on nodes', needs: ['registry', 'api server'], run: () => ops.registryOnNodes() },
    ...pkgs.flatMap((p): Step[] => [
      { name: `build ${p}`, needs: ['kind'], pool: 'cpu', run: () => ops.build(p) },
      { name: `push baseline ${p}`, needs: [`build ${p}`, 'registry', 'imgpkg'], pool: 'cpu', run: () => ops.pushBaseline(p) },
      { name: `push dev ${p}`, needs: [`build ${p}`, 'registry', 'imgpkg'], pool: 'cpu', run: () => ops.pushDev(p) },
      { name: `baseline ${p}`, needs: [`push baseline ${p}`, 'kapp-controller', 'registry on nodes'], run: () => ops.baseline(p) },
      { name: `dev Package ${p}`, needs: [`baseline ${p}`, `push dev ${p}`], run: () => ops.applyDev(p) },
    ]),
    { name: 'verify', needs: pkgs.map((p) => `dev Package ${p}`), run: () => ops.verify() },
  ];
}

/**
 * When a step failed because the Docker engine stopped answering, or because the run's registry
 * container is no longer running, the error says that first (the step's own error follows):
 * a refused connection to localhost:5001 or a dead API server does not name the cause.
 */
export async function withDockerFault(err: unknown, o: { exec: ExecFn; docker?: Docker; registry?: string }): Promise<unknown> {
  const why = await dockerFault(o).catch(() => undefined);
  if (!why) return err;
  if (errorMessage(err).includes(why)) return err;
  // A setup step's error keeps its step in front: `kind cluster: docker stopped answering ...; <kind's error>`.
  const inner = err instanceof SetupError ? err.cause : err;
  const wrapped = new DevpkgError(`${why}; ${errorMessage(inner)}`, { cause: inner, exitCode: err instanceof DevpkgError ? err.exitCode : 1 });
  return err instanceof SetupError ? new SetupError(err.step, wrapped) : wrapped;
}

/** What is wrong with Docker or the registry container right now, or undefined. */
export async function dockerFault(o: { exec: ExecFn; docker?: Docker; registry?: string }): Promise<string | undefined> {
  const docker = o.docker;
  const path = docker?.path ?? 'docker';
  const r = await o.exec(path, ['version', '--format', '{{.Server.Version}}'], { allowFail: true, timeoutMs: 30_000 });
  if (r.code !== 0) {
    const said = (r.stderr || r.stdout).trim().split('\n').filter(Boolean).slice(-1)[0] ?? `exit ${r.code}`;
    return `docker stopped answering (the Docker engine is down?): ${said}`;
  }
  if (!docker || !o.registry) return undefined;
  const state = await docker.inspectContainer(o.registry);
  // Not there yet (the registry step had not started) is not a fault.
  if (!state || state.running) return undefined;
  return `the registry container ${o.registry} is not running (${state.status ?? 'stopped'}${state.exitCode !== undefined ? `, exit code ${state.exitCode}` : ''}${state.finishedAt ? `, since ${state.finishedAt}` : ''})`;
}
