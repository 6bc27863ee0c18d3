import { describe, expect, test } from '@jest/globals';
import type { KObject } from './evaluate.js';
import { describePodProblem, kappAppLabel, podProblems, workloadScope } from './pods.js';

describe('workloadScope', () => {
  test.each<[string, KObject | undefined, ReturnType<typeof workloadScope>]>([
    ['no App', undefined, { namespaces: [] }],
    [
      'associated resources of the last deploy',
      { status: { deploy: { kapp: { associatedResources: { label: 'kapp.k14s.io/app=1700', namespaces: ['(cluster)', 'kube-system', 'app-ns'] } } } } },
      { label: 'kapp.k14s.io/app=1700', namespaces: ['app-ns', 'kube-system'] },
    ],
    [
      "namespaces named in kapp's deploy output while it runs",
      { status: { deploy: { stdout: '10:00:12AM: ongoing: reconcile deployment/app (apps/v1) namespace: web\n10:00:12AM:  ^ Waiting for 1 unavailable replicas\n  namespace: web2 ' } } },
      { namespaces: ['web', 'web2'] },
    ],
  ])('%s', (_n, app, want) => expect(workloadScope(app)).toEqual(want));
});

function pod(o: { name?: string; created?: string; deleting?: boolean; init?: boolean; waiting?: { reason: string; message?: string }; restarts?: number }): KObject {
  const cs = [{ name: o.init ? 'init' : 'main', restartCount: o.restarts ?? 0, state: o.waiting ? { waiting: o.waiting } : { running: {} } }];
  return {
    metadata: { name: o.name ?? 'p', namespace: 'ns', creationTimestamp: o.created ?? '2026-01-01T10:00:00Z', ...(o.deleting ? { deletionTimestamp: '2026-01-01T10:01:00Z' } : {}) },
    status: o.init ? { initContainerStatuses: cs } : { containerStatuses: cs },
  };
}

describe('podProblems', () => {
  const since = Date.parse('2026-01-01T10:00:00Z');
  test.each<[string, KObject, Array<{ reason: string; final: boolean }>]>([
    ['running', pod({}), []],
    ['ImagePullBackOff', pod({ waiting: { reason: 'ImagePullBackOff', message: 'Back-off pulling image' } }), [{ reason: 'ImagePullBackOff', final: true }]],
    ['ErrImagePull', pod({ waiting: { reason: 'ErrImagePull' } }), [{ reason: 'ErrImagePull', final: false }]],
    ['InvalidImageName', pod({ waiting: { reason: 'InvalidImageName' } }), [{ reason: 'InvalidImageName', final: true }]],
    ['ErrImageNeverPull', pod({ waiting: { reason: 'ErrImageNeverPull' } }), [{ reason: 'ErrImageNeverPull', final: true }]],
    ['CrashLoopBackOff, 2 restarts', pod({ waiting: { reason: 'CrashLoopBackOff' }, restarts: 2 }), [{ reason: 'CrashLoopBackOff', final: false }]],
    ['CrashLoopBackOff, 3 restarts', pod({ waiting: { reason: 'CrashLoopBackOff' }, restarts: 3 }), [{ reason: 'CrashLoopBackOff', final: true }]],
    ['CreateContainerConfigError', pod({ waiting: { reason: 'CreateContainerConfigError' } }), [{ reason: 'CreateContainerConfigError', final: false }]],
    ['an init container', pod({ init: true, waiting: { reason: 'ImagePullBackOff' } }), [{ reason: 'ImagePullBackOff', final: true }]],
    ['ContainerCreating is normal', pod({ waiting: { reason: 'ContainerCreating' } }), []],
    ['a pod being deleted', pod({ deleting: true, waiting: { reason: 'ImagePullBackOff' } }), []],
    ['created before the deploy started', pod({ created: '2026-01-01T09:59:59Z', waiting: { reason: 'ImagePullBackOff' } }), []],
  ])('%s', (_n, p, want) => {
    expect(podProblems([p], since).map(({ reason, final }) => ({ reason, final }))).toEqual(want);
  });

  test('a Date creationTimestamp (typed list) counts like a string one; final problems first', () => {
    const typed = pod({ name: 'b', waiting: { reason: 'ErrImagePull' } });
    typed.metadata!.creationTimestamp = new Date('2026-01-01T10:00:01Z') as unknown as string;
    const out = podProblems([typed, pod({ name: 'a', waiting: { reason: 'ImagePullBackOff', message: 'Back-off pulling image "x"' } })], since);
    expect(out.map((p) => p.pod)).toEqual(['a', 'b']);
    expect(describePodProblem(out[0]!)).toBe('pod ns/a container main: ImagePullBackOff: Back-off pulling image "x"');
  });
});

test.each<[string, Record<string, string> | undefined, string | undefined]>([
  ["kapp's app ConfigMap", { spec: '{"labelKey":"kapp.k14s.io/app","labelValue":"1796187786384974455","lastChangeName":"web.app-change-nwqsb"}' }, 'kapp.k14s.io/app=1796187786384974455'],
  ['no data', undefined, undefined],
  ['not JSON', { spec: 'labelKey: x' }, undefined],
  ['no value', { spec: '{"labelKey":"kapp.k14s.io/app"}' }, undefined],
])('kappAppLabel: %s', (_n, data, want) => expect(kappAppLabel(data)).toBe(want));
