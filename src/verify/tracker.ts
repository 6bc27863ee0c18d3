/**
 * The settle-window state machine, pure: fed with evaluations and timer expiries, it says when a
 * verdict is final. The watcher owns the clock and the timers; this owns the rules:
 * - a win counts only when it still holds when the settle window ends;
 * - a re-reconcile of the same version during the window (condition Reconciling, a generation
 *   bump) is tolerated, anything else that breaks the win is "lost";
 * - not-selected, reconcile-failed and downgrade-blocked are final when seen before a win.
 */
import type { Evaluation } from './evaluate.js';
import type { Verdict } from '../results.js';

export type TrackerPhase = 'waiting' | 'settling' | 'awaiting-rewin' | 'done';

export interface TrackerState {
  phase: TrackerPhase;
  /** The evaluation most recently seen. */
  last?: Evaluation;
  verdict?: Verdict;
  reason?: string;
}

export type TrackerAction =
  | { type: 'none' }
  | { type: 'start-settle'; ms: number }
  | { type: 'done'; verdict: Verdict; reason: string };

export interface ChangeInfo {
  /** What changed last, e.g. "PackageInstall generation 3 (spec changed by manager tanzu-addons-manager)". */
  description: string;
  at: string;
}

const FINAL = new Set(['not-selected', 'reconcile-failed', 'downgrade-blocked']);

export function initialTracker(): TrackerState {
  return { phase: 'waiting' };
}

export function onEvaluation(
  s: TrackerState,
  e: Evaluation,
  settleMs: number,
  change?: ChangeInfo,
): { state: TrackerState; action: TrackerAction } {
  if (s.phase === 'done') return { state: s, action: { type: 'none' } };
  const next: TrackerState = { ...s, last: e };
  switch (s.phase) {
    case 'waiting':
      if (e.state === 'won') {
        if (settleMs <= 0) return finish(next, 'won', e.reason);
        return { state: { ...next, phase: 'settling' }, action: { type: 'start-settle', ms: settleMs } };
      }
      if (FINAL.has(e.state)) return finish(next, e.state as Verdict, e.reason);
      return { state: next, action: { type: 'none' } };
    case 'settling':
      if (e.state === 'won' || (e.state === 'pending' && e.holdsDev)) return { state: next, action: { type: 'none' } };
      return finish(next, 'lost', lostReason(e, change));
    case 'awaiting-rewin':
      if (e.state === 'won') return finish(next, 'won', `${e.reason}, and still held after the settle window`);
      if (e.state === 'pending' && e.holdsDev) return { state: next, action: { type: 'none' } };
      return finish(next, 'lost', lostReason(e, change));
  }
}

/** The settle window ended: a win that still holds is final; a re-reconcile in flight gets to finish. */
export function onSettleExpired(s: TrackerState, settleMs: number): { state: TrackerState; action: TrackerAction } {
  if (s.phase !== 'settling') return { state: s, action: { type: 'none' } };
  if (s.last?.state === 'won') {
    return finish(s, 'won', `${s.last.reason}, and it held through the ${Math.round(settleMs / 1000)}s settle window`);
  }
  return { state: { ...s, phase: 'awaiting-rewin' }, action: { type: 'none' } };
}

export function onTimeout(s: TrackerState, timeoutMs: number): { state: TrackerState; action: TrackerAction } {
  if (s.phase === 'done') return { state: s, action: { type: 'none' } };
  const secs = Math.round(timeoutMs / 1000);
  const where = s.last ? `; last state: ${s.last.reason}` : '; nothing was observed';
  if (s.phase !== 'waiting') {
    return finish(s, 'timed-out', `won, but a re-reconcile in flight when the settle window ended had not finished at the ${secs}s time-out${where}`);
  }
  return finish(s, 'timed-out', `the dev version did not win within ${secs}s${where}`);
}

/**
 * A signal (SIGINT, SIGTERM) stopped the wait: the verdict is `interrupted`, saying where the
 * wait was and the last state seen.
 */
export function onInterrupt(s: TrackerState, what: string): { state: TrackerState; action: TrackerAction } {
  if (s.phase === 'done') return { state: s, action: { type: 'none' } };
  const where =
    s.phase === 'waiting'
      ? 'while waiting for the dev version to win'
      : 'during the settle window (the dev version had won; whether it holds was not seen through)';
  const last = s.last ? `; last state: ${s.last.reason}` : '; nothing was observed';
  return finish(s, 'interrupted', `interrupted by ${what} ${where}${last}`);
}

function finish(s: TrackerState, verdict: Verdict, reason: string): { state: TrackerState; action: TrackerAction } {
  return { state: { ...s, phase: 'done', verdict, reason }, action: { type: 'done', verdict, reason } };
}

function lostReason(e: Evaluation, change?: ChangeInfo): string {
  const by = change ? ` after ${change.description} at ${change.at}` : '';
  return `the dev version won, then lost it${by}: ${e.reason}`;
}
