/**
 * Rules for the project's workflow files (.github/workflows, examples/workflows), as pure
 * functions over a parsed workflow: test/unit/workflows.test.ts runs them over every file, and
 * over small bad workflows to show that each rule catches what it is for.
 */
import { jobBudget } from '../../src/pipeline/budget.js';
import { parseDuration } from '../../src/commands/io.js';

export interface Step {
  name?: string;
  id?: string;
  if?: string | boolean;
  uses?: string;
  run?: string;
  with?: Record<string, unknown>;
}
export interface Job {
  name?: string;
  if?: string | boolean;
  uses?: string;
  'timeout-minutes'?: number | string;
  permissions?: unknown;
  steps?: Step[];
  with?: Record<string, unknown>;
}
export interface Workflow {
  on?: unknown;
  jobs?: Record<string, Job>;
}

const ALWAYS = /\balways\(\)/;

/** A step that runs devpkg: the action at this commit, the reusable workflow's checkout of it, or a pinned OWNER/devpkg. */
export function runsDevpkg(step: Step): boolean {
  return step.uses === './' || step.uses === './.devpkg-action' || /^[\w.-]+\/devpkg@/.test(step.uses ?? '');
}

/** A step that only tidies up or keeps evidence: may run in a cancelled run (it posts nothing and decides nothing). */
function isCleanupOrUpload(step: Step): boolean {
  return /^actions\/upload-artifact@/.test(step.uses ?? '') || (!!step.run && /^(remove|delete|clean)/i.test(step.name ?? ''));
}

/**
 * Jobs and steps that post or fail the run but are conditioned on `always()`, which is true in a
 * cancelled run too: a superseded run would post its partial results over the newer run's
 * sticky comment. `!cancelled()` is what they need.
 */
export function alwaysFindings(wf: Workflow): string[] {
  const out: string[] = [];
  for (const [id, job] of Object.entries(wf.jobs ?? {})) {
    if (ALWAYS.test(String(job.if ?? ''))) out.push(`job ${id}: if uses always(); use !cancelled()`);
    for (const [i, step] of (job.steps ?? []).entries()) {
      if (!ALWAYS.test(String(step.if ?? ''))) continue;
      if (runsDevpkg(step) || (step.run && !isCleanupOrUpload(step))) {
        out.push(`job ${id}, step ${step.name ?? step.id ?? i + 1}: if uses always() on a step that posts or fails the run; use !cancelled()`);
      }
    }
  }
  return out;
}

/** Jobs with steps but no `timeout-minutes` (GitHub's default is 6 hours). A job that calls a reusable workflow cannot set one. */
export function timeoutFindings(wf: Workflow): string[] {
  return Object.entries(wf.jobs ?? {})
    .filter(([, job]) => job.steps && job['timeout-minutes'] === undefined)
    .map(([id]) => `job ${id}: no timeout-minutes`);
}

/** A `with:` value that is a literal (not an expression), else undefined. */
function literal(v: unknown): string | undefined {
  if (v === undefined || v === null) return undefined;
  const s = String(v);
  return s.includes('${{') ? undefined : s;
}

/**
 * Jobs whose `timeout-minutes` is below the longest devpkg can take inside them with the inputs
 * its step gives (src/pipeline/budget.ts): GitHub would kill the job while devpkg is still within
 * its own limits. `defaults` are action.yml's input defaults. Steps whose mode is an expression
 * are checked where the expression is defined (the reusable workflow's own test).
 */
export function budgetFindings(wf: Workflow, defaults: Record<string, string>): string[] {
  const out: string[] = [];
  for (const [id, job] of Object.entries(wf.jobs ?? {})) {
    const limit = literal(job['timeout-minutes']);
    for (const step of (job.steps ?? []).filter(runsDevpkg)) {
      const w = step.with ?? {};
      const get = (k: string) => (w[k] === undefined ? defaults[k] : literal(w[k]));
      const mode = get('mode');
      const timeout = get('timeout');
      const settle = get('settle');
      const bootstrap = get('bootstrap-timeout');
      if (!mode || !timeout || !settle || !bootstrap) continue;
      const b = jobBudget({
        mode,
        timeoutMs: parseDuration(timeout, 'timeout'),
        settleMs: parseDuration(settle, 'settle'),
        bootstrapTimeoutMs: parseDuration(bootstrap, 'bootstrap-timeout'),
        // A push command runs for at most push-timeout, each push.
        ...(get('push-command') && get('push-timeout') ? { pushTimeoutMs: parseDuration(get('push-timeout')!, 'push-timeout') } : {}),
      });
      if (limit === undefined) out.push(`job ${id}: devpkg (${mode}) can take ${b.minutes} minutes, but the job's timeout-minutes is not a number`);
      else if (Number(limit) < b.minutes) {
        out.push(`job ${id}: timeout-minutes ${limit} is less than the ${b.minutes} minutes devpkg (${mode}) may take inside it (${b.parts.map((p) => `${p.what} ${Math.round(p.ms / 60_000)}m`).join(' + ')})`);
      }
    }
  }
  return out;
}
