/**
 * Problems of package files in the action: annotations on their file and line, attached to the
 * package's result; one bad package never stops the others.
 */
import { DevpkgError } from '../errors.js';
import { problemFileOf, type LoadedPackage } from '../layouts/index.js';
import { treeChoiceOf, treeOf } from './repo.js';
import { repoOfRun } from './request.js';
import { selectionFromContext } from './selection.js';
import { problemFromError, type Problem } from '../packages/problems.js';
import { errorResult } from '../results.js';
import type { PackageVersionRef } from '../detect/index.js';
import type { Mode, PackageResult } from '../results.js';
import type { ModeContext } from './context.js';

/**
 * Every problem as an annotation on its file and line. Paths are relative to the packages
 * repository; annotations want them relative to the workspace.
 */
export function annotateProblems(ctx: Pick<ModeContext, 'host' | 'inputs'>, problems: readonly Problem[]): void {
  const dir = ctx.inputs.workingDirectory.replace(/^\.\/?/, '').replace(/\/+$/, '');
  for (const p of problems) {
    const where = { file: dir ? `${dir}/${p.path}` : p.path, line: p.line, title: `devpkg ${p.package ?? p.path}` };
    if (p.severity === 'error') ctx.host.error(p.message, where);
    else ctx.host.warning(p.message, where);
  }
}

/** Loads a package version for a cluster mode; its warnings become annotations and `problems`. */
export async function loadForMode(
  ctx: Pick<ModeContext, 'host' | 'inputs' | 'exec' | 'github'>,
  ref: PackageVersionRef,
  /** The base ref of the run, when it compares commits (a layout may find the released version there). */
  baseRef?: string,
): Promise<LoadedPackage & { problems: Problem[] }> {
  const repo = await repoOfRun(ctx);
  // The tree the model chose for the run (the head commit when the diff names one).
  const tree = await treeOf(repo, treeChoiceOf(selectionFromContext(ctx)));
  const base = baseRef ? await repo.at(baseRef) : undefined;
  const { layouts } = repo;
  const loaded = await layouts.load(tree, ref, { base });
  for (const n of loaded.notes) ctx.host.info(`${ref.name}/${ref.version}: ${n}`);
  const problems = loaded.pkg.warnings.map((w) => ({ ...w, package: `${ref.name}/${ref.version}` }));
  annotateProblems(ctx, problems);
  return { ...loaded, problems };
}

/** A package version that failed before verification: annotated, and an `error` result. */
export function failedResult(
  ctx: Pick<ModeContext, 'host' | 'inputs'>,
  ref: PackageVersionRef,
  err: unknown,
  mode: Mode,
  /** quiet: no annotation per package (the caller reported a failure they share once). */
  extra: { prefix?: string; phases?: PackageResult['phases']; problems?: Problem[]; quiet?: boolean; planned?: PackageResult } = {},
): PackageResult {
  const problem = problemFromError(err, problemFileOf(ref), `${ref.name}/${ref.version}`);
  if (extra.prefix) problem.message = `${extra.prefix}: ${problem.message}`;
  const fromFile = (err as { file?: unknown }).file !== undefined;
  // Only errors that name a file are file problems; others (a registry, the cluster) are the verdict alone.
  if (fromFile) annotateProblems(ctx, [problem]);
  else if (!extra.quiet) ctx.host.error(`${ref.name}/${ref.version}: ${problem.message}`);
  const r = errorResult(ref, problem, mode);
  if (!fromFile) {
    r.reason = problem.message;
    delete r.problems;
  }
  const problems = [...(extra.problems ?? []), ...(r.problems ?? [])];
  // What the plan knew before the failure (refNames, the planned dev version) is not unknown.
  const known = extra.planned ? { refName: extra.planned.refName, targetRefName: extra.planned.targetRefName, devVersion: extra.planned.devVersion, unknown: undefined } : {};
  const out: PackageResult = { ...r, ...known, ...(problems.length ? { problems } : {}), ...(extra.phases ? { phases: extra.phases } : {}) };
  if (!out.unknown) delete out.unknown;
  return out;
}

/**
 * A package version a SIGINT/SIGTERM stopped before its verdict: `interrupted`, saying where it
 * stopped (the verifier writes its own when the signal comes during the wait).
 */
export function interruptedResult(
  ctx: Pick<ModeContext, 'host' | 'inputs'>,
  ref: PackageVersionRef,
  mode: Mode,
  signal: AbortSignal,
  during: string,
  extra: { phases?: PackageResult['phases']; problems?: Problem[]; planned?: PackageResult } = {},
): PackageResult {
  const err = new DevpkgError(`interrupted by ${String(signal.reason ?? 'a signal')} ${during}`);
  return { ...failedResult(ctx, ref, err, mode, { ...extra, quiet: true }), verdict: 'interrupted' };
}
