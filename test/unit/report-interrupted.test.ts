// The verdict `interrupted` in the report: the comment and the job summary show it as a failure
// with its own mark, and the overall result is failure.
import { overallResult, renderReport } from '../../src/report/render.js';
import { renderResultText } from '../../src/verify/render.js';
import { wonKind } from '../support/report-fixtures.js';

const interrupted = {
  ...wonKind(),
  verdict: 'interrupted' as const,
  reason: 'interrupted by SIGINT during the settle window (the dev version had won; whether it holds was not seen through); last state: installed 1.5.4-dev.1',
  assertions: undefined,
};

test('an interrupted result is shown as such in the comment/summary markdown and fails the run', () => {
  const { markdown } = renderReport({
    header: 'devpkg',
    runUrl: 'https://github.com/example/tce/actions/runs/42',
    runLabel: 'run 42',
    commit: '0123456789abcdef0123',
    generatedAt: '2026-11-29T23:45:10.123Z',
    entries: [{ result: interrupted, artifactName: 'devpkg-results' }],
  });
  expect(markdown).toContain('🛑 interrupted');
  expect(markdown).toContain('interrupted by SIGINT during the settle window');
  expect(overallResult([wonKind(), interrupted])).toBe('failure');
});

test('the terminal shows INTERRUPTED', () => {
  expect(renderResultText(interrupted)).toMatch(/^antrea\/1\.5\.3: INTERRUPTED: dev version 1\.5\.4-dev\.1/);
});
