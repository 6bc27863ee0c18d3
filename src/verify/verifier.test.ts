import { describe, expect, test } from '@jest/globals';
import { describeApiError, lastWriter, timelineEntry } from './verifier.js';
import { collectionPath } from './watch.js';
import { diagnosticsExcerpt } from './diagnostics.js';

const at = new Date('2026-01-02T03:04:05.000Z');

describe('timelineEntry', () => {
  test('a PackageInstall', () => {
    expect(
      timelineEntry('PackageInstall', {
        metadata: { generation: 3 },
        status: { observedGeneration: 3, conditions: [{ type: 'ReconcileSucceeded', status: 'True' }], version: '1.0.1', lastAttemptedVersion: '1.0.1', friendlyDescription: 'Reconcile succeeded' },
      }, at),
    ).toEqual({ at: '2026-01-02T03:04:05.000Z', object: 'PackageInstall', generation: 3, observedGeneration: 3, condition: 'ReconcileSucceeded', version: '1.0.1', lastAttemptedVersion: '1.0.1', message: 'Reconcile succeeded' });
  });
  test('usefulErrorMessage wins over friendlyDescription and is trimmed', () => {
    const e = timelineEntry('App', { metadata: { generation: 1 }, status: { usefulErrorMessage: 'x'.repeat(400), friendlyDescription: 'Reconcile failed' } }, at);
    expect(e.message).toMatch(/^x{300}… \(100 more characters\)$/);
  });
  test('absent object', () => expect(timelineEntry('App', undefined, at)).toEqual({ at: '2026-01-02T03:04:05.000Z', object: 'App', message: 'absent' }));
});

describe('lastWriter', () => {
  test('the newest managedFields entry', () => {
    expect(
      lastWriter({
        metadata: {
          managedFields: [
            { manager: 'devpkg', time: '2026-01-01T00:00:00Z' },
            { manager: 'tanzu-addons-manager', time: '2026-01-01T00:01:00Z' },
            { manager: 'kapp-controller', time: '2026-01-01T00:00:30Z', subresource: 'status' },
          ],
        },
      }),
    ).toBe('tanzu-addons-manager');
  });
  test('none', () => expect(lastWriter({ metadata: {} })).toBeUndefined());
});

describe('describeApiError', () => {
  test('the API server message and reason', () => {
    expect(describeApiError({ code: 403, body: JSON.stringify({ message: 'packageinstalls is forbidden', reason: 'Forbidden' }) })).toBe('packageinstalls is forbidden (Forbidden) [HTTP 403]');
  });
  test('a plain error', () => expect(describeApiError(new Error('connect ECONNREFUSED\nmore'))).toBe('connect ECONNREFUSED'));
});

describe('collectionPath', () => {
  test.each([
    [{ group: 'packaging.carvel.dev', version: 'v1alpha1', plural: 'packageinstalls', namespace: 'tkg-system' }, '/apis/packaging.carvel.dev/v1alpha1/namespaces/tkg-system/packageinstalls'],
    [{ group: '', version: 'v1', plural: 'events', namespace: 'x' }, '/api/v1/namespaces/x/events'],
  ])('%j', (ref, want) => expect(collectionPath(ref)).toBe(want));
});

describe('diagnosticsExcerpt', () => {
  test('reason, the App error not already in it, and the last changes', () => {
    const text = diagnosticsExcerpt({
      reason: 'kapp-controller could not reconcile 1.0.1',
      pkgi: { status: { usefulErrorMessage: 'ytt: Error: boom' } },
      app: { status: { template: { exitCode: 1, stderr: 'ytt: Error: boom' } } },
      timeline: [{ at: 'T1', object: 'PackageInstall', condition: 'ReconcileFailed', version: '1.0.1', lastAttemptedVersion: '1.0.1' }],
    });
    expect(text).toBe(
      'kapp-controller could not reconcile 1.0.1\nusefulErrorMessage: ytt: Error: boom\ntemplate failed (exit 1): ytt: Error: boom\nlast changes:\n  T1 PackageInstall ReconcileFailed version 1.0.1 last attempted 1.0.1',
    );
  });
});
