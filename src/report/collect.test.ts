import { sanitizeResult } from './collect.js';

const result = { name: 'simple-app', version: '1.0.0', verdict: 'won', devVersion: '1.0.1-dev.1', mode: 'cluster', reason: 'won', timeline: [] };

test('a result read back for the report keeps where its released version came from, and only as text', () => {
  const from = "1.0.0, from the cluster's Packages: kapp-controller selects 1.0.0 for PackageInstall apps/simple-app";
  expect(sanitizeResult({ ...result, releasedFrom: from })).toMatchObject({ releasedFrom: from });
  expect(sanitizeResult({ ...result, releasedFrom: { not: 'text' } })).not.toHaveProperty('releasedFrom');
  expect(sanitizeResult(result)).not.toHaveProperty('releasedFrom');
});
