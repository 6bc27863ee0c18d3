import { readResultsDocument } from './untrusted.js';

const result = { name: 'simple-app', version: '1.0.0', verdict: 'won', devVersion: '1.0.1-dev.1', mode: 'cluster', reason: 'won', timeline: [] };
const doc = (r: unknown) => ({ schema: 'devpkg.results/v1', repository: 'example/tce', results: [r] });

test('a result read back for the report keeps where its released version came from, and only as text', () => {
  const from = "1.0.0, from the cluster's Packages: kapp-controller selects 1.0.0 for PackageInstall apps/simple-app";
  expect(readResultsDocument(doc({ ...result, releasedFrom: from }))).toMatchObject({ doc: { results: [{ releasedFrom: from }] } });
  expect(readResultsDocument(doc({ ...result, releasedFrom: { not: 'text' } }))).toEqual({ refused: expect.stringContaining('results[0].releasedFrom: an object, expected a string') });
  expect(readResultsDocument(doc(result))).not.toHaveProperty('doc.results.0.releasedFrom');
});
