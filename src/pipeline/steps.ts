// Steps the cluster, kind and bootstrap modes share: which packages changed, push + apply +
// verify, imgpkg on PATH, and the end of a run (outputs, report, failure).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import type { Registry } from '../bundle/reference.js';
import { ClusterClient } from '../cluster/client.js';
import { runDevPipeline } from '../cluster/dev.js';
import { runHolder } from '../cluster/runlease.js';
import { DevpkgError, explainNoSpace, UsageError } from '../errors.js';
import type { Problem } from '../packages/problems.js';
import { parseRefNameMap } from '../packages/refname.js';
import { nothingChanged, plan, resolveSelection } from './plan.js';
import type { PackageVersionRef } from '../detect/index.js';
import type { Assertion } from '../verify/assertions.js';
import { parsePackageInstallRef, passed, verifyAll, type VerifyRequest } from '../verify/index.js';
import { renderResultText } from '../verify/render.js';
import type { Mode, PackageResult, PlannedPackage } from '../results.js';
import { carvelNeed, ensureCarvelTool, findOnPath, type CarvelTool } from '../tools/carvel.js';
import type { Need } from '../tools/needs.js';
import type { BundleSource, LoadedPackage } from '../layouts/index.js';
import type { PushBundleResult } from '../bundle/push.js';
import { withChecksumsFile, type ToolPins } from '../tools/releases.js';
import type { DevSequence } from '../versions/index.js';
import { annotateProblems, failedResult, interruptedResult, loadForMode } from './problems.js';
import { planRequestOf, repoOfRun } from './request.js';
import type { ModeContext } from './context.js';

export interface ClusterRunOptions {
  kc: KubeConfig;
  root: string;
  refs: PackageVersionRef[];
  mode: Mode;
  /** Where to push. */
  registry: Registry;
  /** Where the cluster pulls from when not from `registry` (kind: the registry on the kind network). */
  clusterRegistry?: Registry;
  /** NS/NAME per package name (kind mode creates one per package); else the package-install input. */
  packageInstalls?: Map<string, { namespace: string; name: string }>;
  /** Extra phases to put in each result (kind: cluster, registry, kapp-controller, baseline). */
  phases?: PackageResult['phases'];
  /**
   * Where build folders go: kind mode's cluster folder, recorded in the cleanup list, so the post
   * step removes them even when main was killed; else RUNNER_TEMP (emptied by the runner) or the temp folder.
   */
  scratch?: string;
  /** The run's dev sequence, read once where the mode starts (sequenceFromContext): the plan, an early push and the dev run agree. */
  seq: DevSequence;
  /** The assert input, parsed once where the mode starts (a bad one is refused before anything is made). */
  assertions: Assertion[];
}

/** What the dev half of a run (push, derive, apply, then verify) carries from package to package. */
export interface DevRun {
  client: ClusterClient;
  refNames: ReturnType<typeof parseRefNameMap>;
  named?: { namespace: string; name: string };
  credentials?: { username: string; password: string };
  seq: DevSequence;
  errors: PackageResult[];
  requests: VerifyRequest[];
  releases: Array<() => Promise<void>>;
  temps: string[];
}

export async function startDevRun(ctx: ModeContext, o: ClusterRunOptions): Promise<DevRun> {
  const { inputs, host } = ctx;
  const named = inputs.packageInstall ? parsePackageInstallRef(inputs.packageInstall, 'input package-install') : undefined;
  if (named && o.refs.length > 1) {
    throw new UsageError(`input package-install names one PackageInstall but ${o.refs.length} packages changed; set packages to one NAME/VERSION`);
  }
  if (inputs.registryPassword) host.setSecret(inputs.registryPassword);
  const credentials = inputs.registryUsername && inputs.registryPassword ? { username: inputs.registryUsername, password: inputs.registryPassword } : undefined;
  const run: DevRun = {
    client: await ClusterClient.create(o.kc),
    refNames: parseRefNameMap(inputs.refName),
    ...(named ? { named } : {}),
    ...(credentials ? { credentials } : {}),
    seq: o.seq,
    errors: [],
    requests: [],
    releases: [],
    temps: [],
  };
  await ensureImgpkg(ctx);
  return run;
}

/** Built before the cluster was asked anything (kind mode): the package read, its bundle built, maybe pushed. */
export interface PreparedDev {
  loaded: LoadedPackage & { problems: Problem[] };
  bundle: BundleSource;
  prepushed?: { repository: string; tag: string; pushed: PushBundleResult };
}

/** Pushes, derives and applies one package; a failure becomes its `error` (or interrupted) result. */
export async function applyDev(ctx: ModeContext, o: ClusterRunOptions, run: DevRun, ref: PackageVersionRef, pre?: PreparedDev): Promise<void> {
  const { inputs, host } = ctx;
  let problems: Problem[] = [];
  const scratch = o.scratch ?? (ctx.env.RUNNER_TEMP || tmpdir());
  // The step a failure happened in, named in its result.
  let step = 'reading the package';
  try {
    const loaded = pre?.loaded ?? (await loadForMode(ctx, ref, inputs.baseRef || ctx.github.baseSha || undefined));
    problems = loaded.problems;
    let bundle = pre?.bundle;
    if (!bundle) {
      step = 'building the bundle';
      const tmp = await mkdtemp(path.join(scratch, 'devpkg-build-'));
      run.temps.push(tmp);
      bundle = await (await repoOfRun(ctx)).layouts.bundle(loaded, { root: o.root, exec: ctx.exec, tmp, log: (m) => host.info(m) });
    }
    const dev = await runDevPipeline({
      client: run.client,
      root: o.root,
      loaded,
      bundle,
      packageCount: o.refs.length,
      refNames: run.refNames,
      packageInstall: o.packageInstalls?.get(ref.name) ?? run.named,
      registry: o.registry,
      clusterRegistry: o.clusterRegistry,
      credentials: run.credentials,
      pushCommand: inputs.pushCommand || undefined,
      pushTimeoutMs: inputs.pushTimeoutMs,
      ...(ctx.signal ? { signal: ctx.signal } : {}),
      onStep: (s) => (step = s),
      lockImages: inputs.lockImages,
      seq: run.seq,
      devVersion: inputs.devVersion || undefined,
      mode: o.mode,
      exec: ctx.exec,
      log: (m) => host.info(m),
      runLease: { holder: runHolder(ctx.env), seconds: (inputs.pushTimeoutMs + inputs.settleMs + inputs.timeoutMs) / 1000 },
      ...(pre?.prepushed ? { prepushed: pre.prepushed } : {}),
    });
    run.releases.push(dev.release);
    for (const r of dev.requests) {
      r.base.phases = [...(o.phases ?? []), { name: 'dev Package applied', seenAt: new Date().toISOString() }];
      // Kind mode's cluster is deleted at the end: an interrupted result names nothing left applied.
      if (o.mode === 'kind') delete r.applied;
      if (problems.length) r.base.problems = problems;
      if (loaded.releasedFrom) r.base.releasedFrom = loaded.releasedFrom;
      run.requests.push(r);
    }
  } catch (err) {
    if (ctx.signal?.aborted) run.errors.push(interruptedResult(ctx, ref, o.mode, ctx.signal, 'while its dev Package was pushed and applied', { phases: o.phases, problems }));
    else {
      // A full scratch disk in words; a failure that is not a file's names the step it stopped.
      const fault = explainNoSpace(err, { folders: [scratch, tmpdir()] }) ?? err;
      const fromFile = (fault as { file?: unknown }).file !== undefined;
      run.errors.push(failedResult(ctx, ref, fault, o.mode, { phases: o.phases, problems, ...(fromFile ? {} : { prefix: step }) }));
    }
  }
}

/** Verifies every applied package concurrently; then releases the run Leases and removes the build folders. */
export async function verifyDevRun(ctx: ModeContext, o: ClusterRunOptions, run: DevRun): Promise<PackageResult[]> {
  const { inputs, host } = ctx;
  const verified = await host.group(`Verify ${run.requests.length} PackageInstall(s)`, () =>
    verifyAll(run.requests, {
      kc: o.kc,
      settleMs: inputs.settleMs,
      timeoutMs: inputs.timeoutMs,
      assertions: o.assertions,
      // Outside the work tree; finishRun copies them into the results folder.
      diagnosticsDir: path.join(ctx.env.RUNNER_TEMP || tmpdir(), 'devpkg-diagnostics'),
      log: (m) => host.info(m),
      signal: ctx.signal,
    }).finally(async () => {
      for (const release of run.releases) await release();
      for (const t of run.temps) await rm(t, { recursive: true, force: true });
    }),
  );
  // Diagnostics are named once they are copied into the results folder (finishRun), not here in
  // the scratch folder that a terminal run removes at exit.
  for (const r of verified) host.info(renderResultText({ ...r, diagnostics: undefined }));
  return [...verified, ...run.errors];
}

/**
 * Pushes, derives and applies every package (each failure becomes an `error` result, the others
 * go on), then verifies all of them concurrently. Shared by the cluster and kind modes.
 */
export async function pushApplyVerify(ctx: ModeContext, o: ClusterRunOptions): Promise<PackageResult[]> {
  const run = await startDevRun(ctx, o);
  for (const ref of o.refs) {
    if (ctx.signal?.aborted) {
      run.errors.push(interruptedResult(ctx, ref, o.mode, ctx.signal, 'before its dev Package was pushed and applied', { phases: o.phases }));
      continue;
    }
    await ctx.host.group(`Push and apply ${ref.name}/${ref.version}`, () => applyDev(ctx, o, run, ref));
  }
  return verifyDevRun(ctx, o, run);
}

/**
 * The tool releases the inputs ask for, with the sums of a tool-checksums file (read here,
 * relative to working-directory: a file that cannot be read is a usage error naming the input).
 */
export async function readToolPins(ctx: Pick<ModeContext, 'inputs' | 'github'>): Promise<ToolPins> {
  const { tools, toolChecksums } = ctx.inputs;
  if (!toolChecksums) return tools;
  return withChecksumsFile(tools, path.resolve(ctx.github.workspace, ctx.inputs.workingDirectory, toolChecksums), 'input tool-checksums');
}

/**
 * imgpkg (and kbld for lock-images) on PATH: the runner's, or the release the inputs ask for
 * (pinned, or with its sha256), checksum-checked, from the tool cache.
 */
export async function ensureImgpkg(ctx: ModeContext): Promise<void> {
  const tools = await readToolPins(ctx);
  const log = (m: string) => ctx.host.info(m);
  // A push command pushes by itself; kbld still locks the images first when asked.
  if (!ctx.inputs.pushCommand) await ensureCarvelTool('imgpkg', { pin: tools.imgpkg, log, install: ctx.install });
  if (ctx.inputs.lockImages) await ensureCarvelTool('kbld', { pin: tools.kbld, log, install: ctx.install });
}

const CARVEL: readonly string[] = ['imgpkg', 'kbld', 'ytt'] satisfies CarvelTool[];

/**
 * What kind and cluster mode check before anything starts: imgpkg (unless a push command pushes),
 * kbld for lock-images, and every tool the layouts of the planned packages say they need to build
 * their bundles (kctrl: ytt, kbld), the Carvel ones installable from the pinned releases.
 */
export function toolNeeds(ctx: Pick<ModeContext, 'inputs' | 'install' | 'host'>, pins: ToolPins, layoutTools: readonly string[]): Need[] {
  const log = (m: string) => ctx.host.info(m);
  const names = new Set<string>();
  if (!ctx.inputs.pushCommand) names.add('imgpkg');
  if (ctx.inputs.lockImages) names.add('kbld');
  for (const t of layoutTools) names.add(t);
  return [...names].map((t) =>
    CARVEL.includes(t)
      ? carvelNeed(t as CarvelTool, { pin: pins[t as CarvelTool], install: ctx.install, log })
      : { what: t, missing: async () => ((await findOnPath(t)) ? undefined : 'not on PATH'), howTo: `install ${t} and put it on PATH` },
  );
}

/** Outputs, report, and one failure for everything that did not win. */
export async function finishRun(ctx: ModeContext, results: PackageResult[], nothing?: string[]): Promise<void> {
  ctx.host.setOutput('verdicts', JSON.stringify(Object.fromEntries(results.map((r) => [`${r.name}/${r.version}`, r.verdict]))));
  const { publishReport } = await import('../report/publish.js');
  await publishReport({ results, ctx, resultsDir: ctx.resultsDir, ...(nothing?.length ? { nothing } : {}) });
  const failed = results.filter((r) => !passed(r));
  if (failed.length > 0) {
    throw new DevpkgError(
      `${failed.length} of ${results.length} package(s) did not win: ` +
        failed.map((r) => `${r.name}/${r.version} ${r.verdict}${r.assertions?.some((a) => !a.ok) ? ' (assertions failed)' : ''}`).join(', '),
    );
  }
}

/** The package versions in play (bootstrap mode); when none, why, in words (logged here, for the report). */
export async function changedRefs(ctx: ModeContext, mode: Mode, seq: DevSequence): Promise<{ refs: PackageVersionRef[]; nothing: string[] }> {
  const sel = await resolveSelection(await planRequestOf(ctx, mode, seq));
  const nothing = sel.refs.length === 0 ? nothingChanged(sel) : [];
  for (const l of nothing) ctx.host.info(l.trim());
  return { refs: sel.refs, nothing };
}

/**
 * The packages in play, planned as `devpkg plan` plans them: those that can go on, and an
 * `error` result (with plan's words, annotated on its file) for each that cannot; and the tools
 * the layouts of the planned packages need to build their bundles (data from the layouts).
 */
export async function plannedRefs(
  ctx: ModeContext,
  mode: Mode,
  seq: DevSequence,
): Promise<{ planned: PlannedPackage[]; refs: PackageVersionRef[]; unplanned: PackageResult[]; tools: string[]; nothing: string[] }> {
  const out = await plan(await planRequestOf(ctx, mode, seq));
  const unplanned = out.packages.filter((p) => p.verdict === 'error');
  annotateProblems(ctx, unplanned.flatMap((p) => p.problems ?? []));
  const nothing = out.packages.length === 0 ? nothingChanged(out) : [];
  for (const l of nothing) ctx.host.info(l.trim());
  const planned = out.packages.filter((p) => p.verdict !== 'error');
  // The refs the layouts found for what was planned (path and layout theirs), in the plan's order.
  const refs = planned.map((p): PackageVersionRef => {
    const at = out.refs.filter((r) => r.name === p.name && r.path === p.plan?.path);
    return at.find((r) => r.version === p.version) ?? at[0] ?? { name: p.name, version: p.version, path: p.plan!.path, layout: p.plan!.layout };
  });
  return { planned, refs, unplanned, tools: out.tools, nothing };
}
