/**
 * The one place an action run's repository is opened and its plan request built: every mode
 * (plan, detect, kind, cluster, bootstrap) asks here, so every input reaches every mode that
 * documents it the same way.
 */
import path from 'node:path';
import type { ClusterReleasedLookup } from '../layouts/index.js';
import type { Inputs } from '../inputs.js';
import type { Mode } from '../results.js';
import type { PlanRequest } from './plan.js';
import { openRepository, type Repo } from './repo.js';
import type { DevSequence } from '../versions/index.js';
import { selectionFromContext } from './selection.js';
import type { ModeContext } from './context.js';

/** The scope of an action run: working-directory, from the workspace. */
export function scopeOf(ctx: Pick<ModeContext, 'inputs' | 'github'>): string {
  return path.resolve(ctx.github.workspace, ctx.inputs.workingDirectory);
}

/** The repositories opened, per run (its GitHub context) and per the inputs that make one. */
const opened = new WeakMap<object, Map<string, Promise<Repo>>>();

const repoKey = (i: Inputs) => JSON.stringify([i.workingDirectory, i.layout, i.packagesDir, i.releasedVersion]);

/**
 * The repository of a run, opened once per run (per inputs); cluster mode opens it first with
 * what only it knows (the cluster's released versions), and everything after gets that one.
 */
export function repoOfRun(ctx: Pick<ModeContext, 'inputs' | 'github' | 'exec'>, extra: { clusterReleased?: ClusterReleasedLookup } = {}): Promise<Repo> {
  // Kind mode runs on a copy of the inputs (credentials dropped): the same run, the same repository.
  let byKey = opened.get(ctx.github);
  if (!byKey) opened.set(ctx.github, (byKey = new Map()));
  const key = repoKey(ctx.inputs);
  let r = byKey.get(key);
  if (!r || extra.clusterReleased) {
    r = openRepository({
      root: scopeOf(ctx),
      layout: ctx.inputs.layout,
      packagesDir: ctx.inputs.packagesDir,
      releasedVersion: ctx.inputs.releasedVersion || undefined,
      exec: ctx.exec,
      names: { layout: 'input layout', packagesDir: 'input packages-dir' },
      ...extra,
    });
    byKey.set(key, r);
  }
  return r;
}

/**
 * The plan request of an action run: built here only, from every input a plan reads, with the
 * run's dev sequence (read once where the mode starts: sequenceFromContext).
 */
export async function planRequestOf(ctx: ModeContext, mode: Mode, seq: DevSequence): Promise<PlanRequest> {
  const { inputs } = ctx;
  const repo = await repoOfRun(ctx);
  return {
    root: repo.root,
    repo,
    packagesDir: inputs.packagesDir,
    layout: inputs.layout,
    ...(inputs.releasedVersion ? { releasedVersion: inputs.releasedVersion } : {}),
    selection: selectionFromContext(ctx),
    registry: inputs.registry,
    refName: inputs.refName,
    seq,
    ...(inputs.devVersion ? { devVersion: inputs.devVersion } : {}),
    ...(inputs.addonType ? { addonType: inputs.addonType } : {}),
    ignore: inputs.ignore,
    mode,
    exec: ctx.exec,
    log: (m) => ctx.host.info(m),
  };
}
