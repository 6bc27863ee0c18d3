import { describe, expect, test } from '@jest/globals';
import { diagnosticsExcerpt, eventNamespaces, selectEvents, withLimit } from './diagnostics.js';
import type { KObject } from './evaluate.js';
import { summaryLine } from './index.js';

const app: KObject = { status: { deploy: { kapp: { associatedResources: { label: 'kapp.k14s.io/app=1', namespaces: ['web', 'tkg-system'] } } } } };

test.each<[string, KObject | undefined, string[]]>([
  ['no App: the PackageInstall namespace', undefined, ['tkg-system']],
  ['the namespaces the App deploys into', app, ['tkg-system', 'web']],
])('eventNamespaces: %s', (_n, a, want) => expect(eventNamespaces('tkg-system', a)).toEqual(want));

describe('selectEvents', () => {
  const ev = (ns: string, kind: string, name: string, reason: string, time: string, type = 'Normal') => ({
    metadata: { namespace: ns, creationTimestamp: time },
    involvedObject: { kind, name, namespace: ns },
    reason,
    type,
    message: `${reason} of ${name}`,
    lastTimestamp: new Date(time),
  });
  const events = [
    ev('web', 'Pod', 'app-1', 'Failed', '2026-01-01T10:00:20Z', 'Warning'),
    ev('web', 'Deployment', 'app', 'ScalingReplicaSet', '2026-01-01T10:00:10Z'),
    ev('tkg-system', 'Pod', 'other', 'Pulled', '2026-01-01T10:00:05Z'),
    ev('tkg-system', 'PackageInstall', 'antrea', 'Something', '2026-01-01T10:00:01Z'),
  ];
  test('the PackageInstall namespace keeps only its objects; workload namespaces keep everything; oldest first', () => {
    expect(selectEvents(events, { namespace: 'tkg-system', name: 'antrea', workloadNamespaces: ['web'] }).map((e) => `${e.namespace} ${e.object} ${e.reason}`)).toEqual([
      'tkg-system PackageInstall/antrea Something',
      'web Deployment/app ScalingReplicaSet',
      'web Pod/app-1 Failed',
    ]);
  });
  test('when the App deploys into the PackageInstall namespace, all of its events count', () => {
    const out = selectEvents(events, { namespace: 'tkg-system', name: 'antrea', workloadNamespaces: ['tkg-system', 'web'] });
    expect(out).toHaveLength(4);
    expect(out[0]!.time).toBe('2026-01-01T10:00:01.000Z');
  });
  test('the excerpt lists warning events', () => {
    const text = diagnosticsExcerpt({ reason: 'timed out', timeline: [], events: selectEvents(events, { namespace: 'tkg-system', name: 'antrea', workloadNamespaces: ['web'] }) });
    expect(text).toBe('timed out\nwarning events:\n  2026-01-01T10:00:20.000Z web Pod/app-1 Failed: Failed of app-1');
  });
});

test('withLimit rejects a request that does not answer, naming it', async () => {
  await expect(withLimit(new Promise(() => undefined), 10, 'events in web')).rejects.toThrow('events in web: no answer within 0s');
  await expect(withLimit(Promise.resolve(3), 1000, 'x')).resolves.toBe(3);
});

test.each<[string, string]>([
  ['kapp-controller could not reconcile 1.5.4-dev.1:\nusefulErrorMessage: ytt: Error:\n  no_such_value', 'kapp-controller could not reconcile 1.5.4-dev.1: usefulErrorMessage: ytt: Error: no_such_value'],
  ['won', 'won'],
  [`x:\n${'y'.repeat(400)}`, `x: ${'y'.repeat(296)}…`],
])('summaryLine %#', (reason, want) => expect(summaryLine(reason)).toBe(want));
