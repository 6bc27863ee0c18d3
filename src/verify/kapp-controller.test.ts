import { describe, expect, test } from '@jest/globals';
import type { KObject } from './kobject.js';
import { deletionRequestedAt, describeLostChild, initialKappController, interruptedAttempt, lostChildAttempt, notReadyCause, onKappControllerPods, openOutage, podReady, type KappControllerState } from './kapp-controller.js';

const T = (s: string): number => Date.parse(`2026-01-01T10:00:${s}Z`);

function pod(name: string, o: { ready?: boolean; deleting?: string; grace?: number; ns?: string } = {}): KObject {
  return {
    metadata: {
      name,
      namespace: o.ns ?? 'kapp-controller',
      ...(o.deleting ? { deletionTimestamp: `2026-01-01T10:00:${o.deleting}Z`, deletionGracePeriodSeconds: o.grace ?? 30 } : {}),
    },
    status: { phase: o.ready === false ? 'Pending' : 'Running', conditions: [{ type: 'Ready', status: o.ready === false ? 'False' : 'True' }] },
  };
}

/** Feeds pod lists one after another; returns the notes and the final state. */
function feed(steps: Array<[string, KObject[]]>): { notes: string[]; state: KappControllerState } {
  let state = initialKappController();
  const notes: string[] = [];
  for (const [at, pods] of steps) {
    const r = onKappControllerPods(state, pods, T(at));
    state = r.state;
    if (r.note) notes.push(r.note.message);
  }
  return { notes, state };
}

describe('kapp-controller going away and coming back', () => {
  test('its pod deleted: away from when the deletion was asked for, back when the new pod is ready', () => {
    const { notes, state } = feed([
      ['00', [pod('kapp-controller-a-1')]],
      // Deleted at 10:00:05 with 30s grace: deletionTimestamp 10:00:35.
      ['06', [pod('kapp-controller-a-1', { deleting: '35' }), pod('kapp-controller-a-2', { ready: false })]],
      ['20', [pod('kapp-controller-a-2', { ready: false })]],
      ['40', [pod('kapp-controller-a-2')]],
    ]);
    expect(notes).toEqual([
      'pod kapp-controller/kapp-controller-a-1 was deleted (at 2026-01-01T10:00:05.000Z); kapp-controller has no ready pod: nothing reconciles until it is back, devpkg waits',
      'back: pod kapp-controller/kapp-controller-a-2 ready; kapp-controller was away from 2026-01-01T10:00:05.000Z to 2026-01-01T10:00:40.000Z (pod kapp-controller/kapp-controller-a-1 was deleted)',
    ]);
    expect(state.outages).toEqual([{ from: T('05'), to: T('40'), what: 'pod kapp-controller/kapp-controller-a-1 was deleted' }]);
    expect(openOutage(state)).toBeUndefined();
  });

  test('a pod that is no longer ready (its container restarting): away from when devpkg saw it', () => {
    const { notes, state } = feed([
      ['00', [pod('kapp-controller-a-1')]],
      ['10', [pod('kapp-controller-a-1', { ready: false })]],
    ]);
    expect(notes).toEqual([expect.stringMatching(/^pod kapp-controller\/kapp-controller-a-1 is no longer ready \(phase Pending\) \(at 2026-01-01T10:00:10.000Z\)/)]);
    expect(openOutage(state)).toEqual({ from: T('10'), what: 'pod kapp-controller/kapp-controller-a-1 is no longer ready (phase Pending)' });
  });

  test('no longer ready: the note says which container and why (a crash and its restart), and a blip is its own outage', () => {
    const crashed: KObject = {
      metadata: { name: 'kapp-controller-a-1', namespace: 'kapp-controller' },
      status: {
        phase: 'Running',
        conditions: [{ type: 'Ready', status: 'False', reason: 'ContainersNotReady' }],
        containerStatuses: [
          { name: 'kapp-controller', ready: false, restartCount: 1, state: { terminated: { reason: 'Error', exitCode: 1 } } },
          { name: 'kapp-controller-sidecarexec', ready: true, restartCount: 0, state: { running: {} } },
        ],
      },
    };
    const { notes, state } = feed([
      ['00', [pod('kapp-controller-a-1')]],
      ['10', [crashed]],
      ['11', [pod('kapp-controller-a-1')]],
    ]);
    expect(notes).toEqual([
      'pod kapp-controller/kapp-controller-a-1 is no longer ready (container kapp-controller terminated: Error, exit code 1, restarted 1 time) (at 2026-01-01T10:00:10.000Z); kapp-controller has no ready pod: nothing reconciles until it is back, devpkg waits',
      expect.stringMatching(/^back: pod kapp-controller\/kapp-controller-a-1 ready; kapp-controller was away from 2026-01-01T10:00:10.000Z to 2026-01-01T10:00:11.000Z/),
    ]);
    expect(state.outages).toHaveLength(1);
  });

  test('why not ready: a waiting container, the Ready condition\'s reason, the phase, or nothing known', () => {
    const base = { metadata: { name: 'kapp-controller-a-1' } };
    expect(notReadyCause({ ...base, status: { containerStatuses: [{ name: 'c', ready: false, restartCount: 3, state: { waiting: { reason: 'CrashLoopBackOff' } } }] } })).toBe(
      'container c waiting: CrashLoopBackOff, restarted 3 times',
    );
    expect(notReadyCause({ ...base, status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'False', reason: 'ReadinessGatesNotReady' }] } })).toBe('ReadinessGatesNotReady');
    expect(notReadyCause({ ...base, status: { phase: 'Running' } })).toBe('');
  });

  test('never seen ready (not installed there, or still starting): not an outage', () => {
    expect(feed([['00', [pod('kapp-controller-a-1', { ready: false })]], ['05', []]]).notes).toEqual([]);
  });

  test('other pods of the namespace are not kapp-controller', () => {
    expect(feed([['00', [pod('coredns-1', { ns: 'kube-system' })]], ['05', []]]).notes).toEqual([]);
  });

  test('a second replica keeps it there', () => {
    expect(feed([['00', [pod('kapp-controller-a-1'), pod('kapp-controller-a-2')]], ['05', [pod('kapp-controller-a-2')]]]).notes).toEqual([]);
  });

  test('readiness and the deletion request', () => {
    expect(podReady(pod('kapp-controller-x'))).toBe(true);
    expect(podReady(pod('kapp-controller-x', { deleting: '30' }))).toBe(false);
    expect(deletionRequestedAt(pod('kapp-controller-x', { deleting: '30', grace: 0 }))).toBe(T('30'));
    expect(deletionRequestedAt(pod('kapp-controller-x'))).toBeUndefined();
  });
});

describe('interruptedAttempt: a failure from an attempt begun before kapp-controller went away', () => {
  const app = (startedAt?: string): KObject => ({ status: { fetch: startedAt ? { startedAt: `2026-01-01T10:00:${startedAt}Z` } : {} } });
  const away = { from: T('20'), what: 'pod kapp-controller/kapp-controller-a-1 was deleted' };
  test.each<[string, KObject, Array<{ from: number; to?: number; what: string }>, boolean]>([
    ['no outage', app('10'), [], false],
    ['begun before it went away, still away', app('10'), [away], true],
    ['begun before it went away, back now (no new attempt yet)', app('10'), [{ ...away, to: T('40') }], true],
    ['begun after it went away (by the new pod)', app('41'), [{ ...away, to: T('40') }], false],
    ['no attempt time, still away', app(), [away], true],
    ['no attempt time, back', app(), [{ ...away, to: T('40') }], false],
  ])('%s', (_n, a, outages, want) => expect(interruptedAttempt(a, outages) !== undefined).toBe(want));
});

describe('lostChildAttempt: an attempt failed only because kapp-controller\'s sidecarexec lost its child', () => {
  // As kapp-controller v0.51.0 writes it (pkg/app/app_reconcile.go, pkg/exec/cmd_run_result.go):
  // no exit code from the lost child (-1), the step's error, the condition's message, and the
  // usefulErrorMessage (the stderr when there is one, else the error).
  const RACE = 'Fetching resources: waitid: no child processes';
  const failed = (status: Record<string, unknown>, message = RACE, failures: unknown = 1): KObject => ({
    status: { conditions: [{ type: 'ReconcileFailed', status: 'True', message }], consecutiveReconcileFailures: failures, usefulErrorMessage: message, ...status },
  });
  const fetchLost = { fetch: { exitCode: -1, error: RACE, startedAt: '2026-12-07T10:00:00Z', updatedAt: '2026-12-07T10:00:01Z' } };

  test('the fetch lost its vendir: the step, the message, the count and the attempt', () => {
    expect(lostChildAttempt(failed(fetchLost))).toEqual({ step: 'fetch', message: RACE, failures: 1, attempt: Date.parse('2026-12-07T10:00:00Z') });
  });

  test.each<[string, KObject, Partial<ReturnType<typeof lostChildAttempt>> | undefined]>([
    [
      'the template lost ytt, whose warnings are the usefulErrorMessage: found in the step\'s error',
      failed(
        { fetch: { exitCode: 0, startedAt: '2026-12-07T10:00:00Z' }, template: { exitCode: -1, stderr: 'ytt: Warning: deprecated', error: 'Templating dir: wait: no child processes', updatedAt: '2026-12-07T10:00:02Z' } },
        'Templating dir: Error (see .status.usefulErrorMessage for details)',
        3,
      ),
      { step: 'template', message: 'Templating dir: wait: no child processes', failures: 3 },
    ],
    ['only the condition says so (no step status)', failed({}), { step: 'reconcile', message: RACE, failures: 1 }],
    ['no failure count written: one', failed(fetchLost, RACE, undefined), { failures: 1 }],
    ['a ReconcileSucceeded App with the race in an old step status', { status: { conditions: [{ type: 'ReconcileSucceeded', status: 'True' }], fetch: { exitCode: -1, error: RACE } } }, undefined],
    ['a failure of the package (kapp\'s error)', failed({ deploy: { exitCode: 1, stderr: 'kapp: Error: configmap/Bad_Name invalid' } }, 'Deploying: Error (see .status.usefulErrorMessage for details)'), undefined],
    [
      'the race in a template status from before this attempt, and this attempt\'s fetch failed on the registry',
      {
        status: {
          conditions: [{ type: 'ReconcileFailed', status: 'True', message: 'Fetching resources: Error (see .status.usefulErrorMessage for details)' }],
          usefulErrorMessage: 'dial tcp 127.0.0.1:5001: connect: connection refused',
          fetch: { exitCode: 1, stderr: 'dial tcp 127.0.0.1:5001: connect: connection refused', startedAt: '2026-12-07T10:00:10Z' },
          template: { exitCode: -1, error: 'Templating dir: waitid: no child processes', updatedAt: '2026-12-07T10:00:02Z' },
        },
      },
      undefined,
    ],
    ['"no child processes" without Go\'s wait call is not the race', failed({}, 'vendir: Error: no child processes to sync'), undefined],
    ['no App', undefined as unknown as KObject, undefined],
  ])('%s', (_n, a, want) => {
    const got = lostChildAttempt(a);
    if (want === undefined) expect(got).toBeUndefined();
    else expect(got).toMatchObject(want);
  });

  test('described as kapp-controller\'s race, naming the step, the message and the upstream fix', () => {
    const d = describeLostChild(lostChildAttempt(failed(fetchLost))!);
    expect(d).toContain(`kapp-controller's fetch step failed with "${RACE}"`);
    expect(d).toContain('carvel-dev/kapp-controller#1806');
    expect(d).toContain('not a fault of the package');
  });
});
