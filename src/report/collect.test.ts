import { readResultsDocument } from './untrusted.js';

const result = { name: 'simple-app', version: '1.0.0', verdict: 'won', devVersion: '1.0.1-dev.1', mode: 'cluster', reason: 'won', timeline: [] };
const doc = (r: unknown) => ({ schema: 'devpkg.results/v1', repository: 'example/tce', results: [r] });

test('a result read back for the report keeps where its released version came from, and only as text', () => {
  const from = "1.0.0, from the cluster's Packages: kapp-controller selects 1.0.0 for PackageInstall apps/simple-app";
  expect(readResultsDocument(doc({ ...result, releasedFrom: from }))).toMatchObject({ doc: { results: [{ releasedFrom: from }] } });
  expect(readResultsDocument(doc({ ...result, releasedFrom: { not: 'text' } }))).toEqual({ refused: expect.stringContaining('results[0].releasedFrom: an object, expected a string') });
  expect(readResultsDocument(doc(result))).not.toHaveProperty('doc.results.0.releasedFrom');
});

test('a result read back keeps its step timeline; a step of another shape refuses the file', () => {
  const steps = [
    { name: 'kind cluster', state: 'done', needs: ['kind'], startedAt: '2026-01-01T00:00:01.000Z', finishedAt: '2026-01-01T00:00:21.000Z', waitedOn: ['kind'] },
    { name: 'verify', state: 'cancelled', needs: ['dev Package web'], waitedOn: [] },
  ];
  expect(readResultsDocument(doc({ ...result, steps }))).toMatchObject({ doc: { results: [{ steps }] } });
  expect(readResultsDocument(doc({ ...result, steps: [{ name: 'x', state: 'exploded', needs: [], waitedOn: [] }] }))).toEqual({ refused: expect.stringContaining('results[0].steps[0].state') });
  expect(readResultsDocument(doc({ ...result, steps: [{ name: 'y', state: 'failed', needs: [1], waitedOn: [] }] }))).toEqual({ refused: expect.stringContaining('results[0].steps[0].needs[0]: expected a string') });
});
