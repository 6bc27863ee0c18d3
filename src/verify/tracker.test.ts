import { describe, expect, test } from '@jest/globals';
import type { Evaluation } from './evaluate.js';
import { initialTracker, onEvaluation, onSettleExpired, onTimeout, type TrackerState } from './tracker.js';

const won: Evaluation = { state: 'won', reason: 'won it', holdsDev: true };
const reconciling: Evaluation = { state: 'pending', reason: 'Reconciling', holdsDev: true };
const other: Evaluation = { state: 'pending', reason: 'status.version 1.5.3', holdsDev: false };
const failed: Evaluation = { state: 'reconcile-failed', reason: 'ytt error', holdsDev: false };
const notSel: Evaluation = { state: 'not-selected', reason: 'constraint', holdsDev: false };

type Step = Evaluation | 'settle' | 'timeout';

function run(steps: Step[], settleMs = 3000): { s: TrackerState; actions: string[] } {
  let s = initialTracker();
  const actions: string[] = [];
  for (const step of steps) {
    const r =
      step === 'settle' ? onSettleExpired(s, settleMs) : step === 'timeout' ? onTimeout(s, 60000) : onEvaluation(s, step, settleMs, { description: 'PackageInstall generation 3', at: 'T1' });
    s = r.state;
    if (r.action.type !== 'none') actions.push(r.action.type === 'done' ? `done:${r.action.verdict}` : `${r.action.type}:${r.action.ms}`);
  }
  return { s, actions };
}

describe('settle tracker', () => {
  test.each<[string, Step[], string[], string | undefined]>([
    ['win held through the window', [other, won, 'settle'], ['start-settle:3000', 'done:won'], 'won'],
    ['re-reconcile of the same version is tolerated', [won, reconciling, won, 'settle'], ['start-settle:3000', 'done:won'], 'won'],
    ['window ends mid re-reconcile, then wins again', [won, reconciling, 'settle', won], ['start-settle:3000', 'done:won'], 'won'],
    ['window ends mid re-reconcile, then fails', [won, reconciling, 'settle', failed], ['start-settle:3000', 'done:lost'], 'lost'],
    ['another version takes over during the window', [won, other], ['start-settle:3000', 'done:lost'], 'lost'],
    ['a failure before a win is final', [other, failed], ['done:reconcile-failed'], 'reconcile-failed'],
    ['not selected is final', [notSel], ['done:not-selected'], 'not-selected'],
    ['nothing happens: timed out', [other, 'timeout'], ['done:timed-out'], 'timed-out'],
    ['events after the verdict are ignored', [notSel, won], ['done:not-selected'], 'not-selected'],
    ['settle expiry while waiting does nothing', ['settle', other], [], undefined],
  ])('%s', (_n, steps, actions, verdict) => {
    const r = run(steps);
    expect(r.actions).toEqual(actions);
    expect(r.s.verdict).toBe(verdict);
  });

  test('settle 0 decides on the first win', () => {
    expect(run([won], 0).actions).toEqual(['done:won']);
  });

  test('lost names the change that broke the win', () => {
    const r = run([won, other]);
    expect(r.s.reason).toBe('the dev version won, then lost it after PackageInstall generation 3 at T1: status.version 1.5.3');
  });

  test('time-out reason carries the last state', () => {
    expect(run([other, 'timeout']).s.reason).toBe('the dev version did not win within 60s; last state: status.version 1.5.3');
  });
});
