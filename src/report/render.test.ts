import { lostBootstrap, planned, reconcileFailed, wonKind } from '../../test/support/report-fixtures.js';
import { code, fenced, mermaidLabel, text } from './markdown.js';
import { ganttChart } from './mermaid.js';
import { GITHUB_COMMENT_LIMIT, overallResult, renderReport, stepTable, type ReportInput } from './render.js';

const base = {
  header: 'devpkg',
  runUrl: 'https://github.com/example/tce/actions/runs/42',
  runLabel: 'run 42',
  commit: '0123456789abcdef0123',
  generatedAt: '2026-11-29T23:45:10.123Z',
};

describe('renderReport', () => {
  test('a kind run that won', () => {
    const r = renderReport({ ...base, entries: [{ result: wonKind(), artifactName: 'devpkg-results' }] });
    expect(r.trimmed).toEqual([]);
    expect(r.markdown).toMatchSnapshot();
  });

  test('a bootstrap run that lost, with diagnostics and links', () => {
    const r = renderReport({
      ...base,
      header: 'bootstrap',
      entries: [
        { result: lostBootstrap(), artifactName: 'devpkg-results' },
        { result: { ...wonKind(), name: 'pinniped', version: '0.12.1' }, artifactName: 'devpkg-results' },
      ],
    });
    expect(r.markdown).toMatchSnapshot();
    // Text from the cluster cannot close the fence, open HTML or mention anyone: it stays
    // verbatim inside a fence longer than any backtick run in it.
    expect(r.markdown).toContain(`\n\n\`\`\`\`text\n${lostBootstrap().diagnostics!.excerpt}\n\`\`\`\`\n\n</details>`);
    expect(r.markdown.split('@octocat')).toHaveLength(2);
  });

  test('plan mode', () => {
    const r = renderReport({ ...base, entries: [{ result: planned() }, { result: planned('calico', '3.22.1') }] });
    expect(r.markdown).toMatchSnapshot();
  });

  test('where a layout\'s released version came from is said, in a result and in a plan', () => {
    const from = "1.4.0, from the cluster's Packages: kapp-controller selects 1.4.0 for PackageInstall apps/simple-app";
    const won = renderReport({ ...base, entries: [{ result: { ...wonKind(), releasedFrom: from } }] }).markdown;
    expect(won).toContain(`- **Released version:** ${text(from)}\n`);
    const plan = renderReport({ ...base, entries: [{ result: { ...planned(), releasedFrom: from } }] }).markdown;
    expect(plan).toContain(`Released version: ${text(from)}\n`);
    expect(renderReport({ ...base, entries: [{ result: wonKind() }] }).markdown).not.toContain('Released version:');
  });

  test('no packages', () => {
    expect(renderReport({ ...base, entries: [] }).markdown).toMatchSnapshot();
  });

  test.each([
    [[wonKind()], 'success'],
    [[planned()], 'success'],
    [[wonKind(), reconcileFailed()], 'failure'],
    [[], 'skipped'],
  ] as const)('overallResult %#', (results, expected) => {
    expect(overallResult([...results])).toBe(expected);
  });
});

describe('trimming', () => {
  const huge = (n: number): ReportInput => ({
    ...base,
    entries: Array.from({ length: n }, (_, i) => {
      const r = reconcileFailed(`pkg${i}`, `1.0.${i}`);
      r.diagnostics!.excerpt = `line ${i}\n`.repeat(4000);
      return { result: r, artifactName: 'devpkg-results' };
    }),
  });

  test('diagnostics excerpts go first, keeping their tail', () => {
    const input = huge(3);
    const full = renderReport(input, Number.MAX_SAFE_INTEGER).markdown;
    expect(full.length).toBeGreaterThan(GITHUB_COMMENT_LIMIT);
    const r = renderReport(input);
    expect(r.markdown.length).toBeLessThanOrEqual(GITHUB_COMMENT_LIMIT);
    expect(r.trimmed).toEqual(['diagnostics and YAML excerpts were cut to 8000 characters each']);
    expect(r.markdown).toContain('characters cut; the full text is in the artifact');
    expect(r.markdown).toContain('line 2\n```'); // the tail survives
    expect(r.markdown).toContain("This report was shortened to fit GitHub's 65536-character limit");
    expect(r.markdown.match(/^### /gm)).toHaveLength(3);
  });

  test('then timelines, then package sections, then table rows', () => {
    const many = Array.from({ length: 400 }, (_, i) => ({ result: { ...wonKind(), name: `package-${i}` } }));
    const r = renderReport({ ...base, entries: many });
    expect(r.markdown.length).toBeLessThanOrEqual(GITHUB_COMMENT_LIMIT);
    expect(r.trimmed[0]).toMatch(/details of \d+ of 400 package versions were left out/);
    expect(r.markdown).not.toContain('```mermaid');
    // Every package still has its row in the overview.
    expect(r.markdown.match(/^\| package-\d+ 1\.5\.3 \|/gm)).toHaveLength(400);

    const rows = renderReport({ ...base, entries: many }, 20000);
    expect(rows.markdown.length).toBeLessThanOrEqual(20000);
    expect(rows.trimmed[0]).toMatch(/table rows were left out/);
    expect(rows.markdown).toMatch(/\| _…and \d+ more_ \|/);
  });

  test('a limit too small for anything still gives text, never an error', () => {
    const r = renderReport(huge(1), 300);
    expect(r.markdown.length).toBeLessThanOrEqual(300);
    expect(r.trimmed).toEqual(['the text was cut']);
  });
});

describe('mermaid', () => {
  test('labels lose the characters Mermaid reads as syntax', () => {
    expect(mermaidLabel('phase 1: CRS #2; 50% "x"')).toBe('phase 1꞉ CRS ＃2； 50％ \'x\'');
    expect(mermaidLabel('section A')).toBe('▸ section A');
    expect(mermaidLabel('  \n ')).toBe('-');
  });

  test('gantt of phases and object states', () => {
    const chart = ganttChart(lostBootstrap())!;
    expect(chart).toMatchSnapshot();
    const lines = chart.split('\n');
    expect(lines.slice(0, 4)).toEqual(['gantt', expect.stringMatching(/^ {4}title /), '    dateFormat x', '    axisFormat %H:%M:%S']);
    // Every task line is "label :tags, start, Ns" with one colon, the separator.
    for (const l of lines.filter((l) => !/^ {4}(title|dateFormat|axisFormat|section) /.test(l) && l !== 'gantt')) {
      expect(l).toMatch(/^ {4}[^:#;]+ :((done|active|crit), )*\d{13}, \d+s$/);
    }
  });

  test('long watches keep their first and last changes', () => {
    const r = wonKind();
    const at0 = Date.parse(r.timeline[0]!.at);
    r.timeline = Array.from({ length: 100 }, (_, i) => ({
      at: new Date(at0 + i * 1000).toISOString(),
      object: 'PackageInstall',
      condition: i % 2 ? 'Reconciling' : 'ReconcileSucceeded',
      version: '1.5.4-dev.1',
    }));
    const chart = ganttChart(r)!;
    expect(chart).toContain('76 more changes');
    expect(chart.split('\n').filter((l) => l.includes('1.5.4-dev.1 Reconcil'))).toHaveLength(24);
  });

  test('no timestamps, no chart', () => {
    expect(ganttChart(reconcileFailed())).toBeUndefined();
  });
});

describe('markdown escaping', () => {
  test.each([
    ['a|b', 'a\\|b'],
    ['*bold* _x_ [l](u) <b> &amp;', '\\*bold\\* \\_x\\_ \\[l\\](u) &lt;b&gt; &amp;amp;'],
    ['@team', '@\u200bteam'],
    ['two\nlines', 'two lines'],
  ])('text(%j)', (input, expected) => {
    expect(text(input)).toBe(expected);
  });

  test.each([
    ['plain', '`plain`'],
    ['a`b', '``a`b``'],
    ['`x`', '`` `x` ``'],
  ])('code(%j)', (input, expected) => {
    expect(code(input)).toBe(expected);
  });

  test('fenced content cannot close its fence', () => {
    expect(fenced('a\n```\nb', 'text')).toBe('````text\na\n```\nb\n````');
  });
});

describe('stepTable: the run\'s steps, seconds after the first started, what each waited on', () => {
  const t = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, 0) + s * 1000).toISOString();
  test.each([
    [
      'done, failed and cancelled steps',
      [
        { name: 'kind', state: 'done' as const, needs: [], startedAt: t(0), finishedAt: t(0.4), waitedOn: [] },
        { name: 'kind cluster', state: 'failed' as const, needs: ['kind'], startedAt: t(0.4), finishedAt: t(20), waitedOn: ['kind'], error: 'node image not found' },
        { name: 'push dev web', state: 'done' as const, needs: ['registry'], startedAt: t(3.25), finishedAt: t(5), waitedOn: ['build web', 'a free cpu slot'] },
        { name: 'verify', state: 'cancelled' as const, needs: ['dev Package web'], waitedOn: [] },
      ],
      [
        '| kind | 0.0 s | 0.4 s | — |',
        '| kind cluster (failed: node image not found) | 0.4 s | 20.0 s | kind |',
        '| push dev web | 3.3 s | 5.0 s | build web, a free cpu slot |',
        '| verify (cancelled) | — | — | — |',
      ],
    ],
  ])('%s', (_what, steps, rows) => {
    const table = stepTable(steps)!;
    expect(table).toContain('<summary>Steps (4)</summary>');
    expect(table.split('\n').filter((l) => l.startsWith('| ') && !l.startsWith('| Step'))).toEqual(rows);
  });
  test('no step started: no table', () => expect(stepTable([{ name: 'verify', state: 'cancelled', needs: [], waitedOn: [] }])).toBeUndefined());
  test('in a kind result\'s report', () => {
    const r = { ...wonKind(), steps: [{ name: 'kind cluster', state: 'done' as const, needs: [], startedAt: t(0), finishedAt: t(21), waitedOn: [] }] };
    expect(renderReport({ ...base, entries: [{ result: r }] }).markdown).toContain('| kind cluster | 0.0 s | 21.0 s | — |');
  });
});
