import { DevpkgError } from '../errors.js';
import type { Selection } from './plan.js';
import type { ModeContext } from './context.js';

/**
 * Which package versions an action run is about: the `packages` input, `all`,
 * or the diff of the event (pull request: merge-base(base, head)..head; push: before..after).
 */
export function selectionFromContext(ctx: Pick<ModeContext, 'inputs' | 'github'>): Selection {
  const { inputs, github } = ctx;
  if (inputs.packages.length > 0) return { kind: 'explicit', packages: inputs.packages };
  if (inputs.all) return { kind: 'all' };
  const base = inputs.baseRef || github.baseSha;
  const head = inputs.headRef || github.headSha || github.sha || undefined;
  const isPr = github.eventName.startsWith('pull_request') || github.prNumber !== undefined;
  if (base) return { kind: 'diff', base, head, rangeKind: isPr || inputs.baseRef ? 'pr' : 'range' };
  if (github.eventName === 'workflow_dispatch') {
    throw new DevpkgError('workflow_dispatch: nothing to diff; set the packages input (NAME/VERSION list) or all: true');
  }
  if (github.eventName === 'push') {
    throw new DevpkgError('push: the event has no previous commit (a new branch); set base-ref, packages or all: true');
  }
  throw new DevpkgError(`${github.eventName || 'this event'}: no base to diff against; set base-ref (and head-ref), packages, or all: true`);
}

/** Dev versions rise with the run number and attempt on GitHub (the downgrade guard), with the clock elsewhere. */
export function sequenceFromContext(ctx: Pick<ModeContext, 'github'>) {
  return ctx.github.runNumber > 0
    ? { runNumber: ctx.github.runNumber, runAttempt: ctx.github.runAttempt }
    : { timestamp: new Date() };
}
