import type { PackageResult } from '../results.js';
import { sanitizeResult } from './collect.js';

const result = { name: 'simple-app', version: '1.0.0', verdict: 'won', devVersion: '1.0.1-dev.1', mode: 'cluster', reason: 'won', timeline: [] };

test('a result read back for the report keeps where its released version came from, and only as text', () => {
  const from = "1.0.0, from the cluster's Packages: kapp-controller selects 1.0.0 for PackageInstall apps/simple-app";
  expect(sanitizeResult({ ...result, releasedFrom: from })).toMatchObject({ releasedFrom: from });
  expect(sanitizeResult({ ...result, releasedFrom: { not: 'text' } })).not.toHaveProperty('releasedFrom');
  expect(sanitizeResult(result)).not.toHaveProperty('releasedFrom');
});

test('a result read back keeps its step timeline, only what has the shape of one', () => {
  const steps = [
    { name: 'kind cluster', state: 'done', needs: ['kind'], startedAt: '2026-01-01T00:00:01.000Z', finishedAt: '2026-01-01T00:00:21.000Z', waitedOn: ['kind'] },
    { name: 'verify', state: 'cancelled', needs: ['dev Package web'], waitedOn: [] },
  ];
  expect((sanitizeResult({ ...result, steps: [...steps, 'not a step', { state: 'done' }] }) as PackageResult).steps).toEqual(steps);
  expect((sanitizeResult({ ...result, steps: [{ name: 'x', state: 'exploded' }, { name: 'y', state: 'failed', needs: [1], waitedOn: 'a' }] }) as PackageResult).steps).toEqual([{ name: 'y', state: 'failed', needs: [], waitedOn: [] }]);
});
