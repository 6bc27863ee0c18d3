import { lostBootstrap, planned, reconcileFailed, wonKind } from '../../test/support/report-fixtures.js';
import { code, fenced, mermaidLabel, text } from './markdown.js';
import { ganttChart } from './mermaid.js';
import type { PackageResult } from '../results.js';
import { proseOf } from '../../test/support/markdown.js';
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
    expect(r.markdown.match(/^<details><summary>❌ <b>pkg\d 1\.0\.\d<\/b>/gm)).toHaveLength(3);
  });

  test('then timelines, then package sections, then table rows', () => {
    const many = Array.from({ length: 400 }, (_, i) => ({ result: { ...wonKind(), name: `package-${i}` } }));
    const r = renderReport({ ...base, entries: many });
    expect(r.markdown.length).toBeLessThanOrEqual(GITHUB_COMMENT_LIMIT);
    expect(r.trimmed[0]).toMatch(/details of \d+ of 400 package versions were left out/);
    expect(r.markdown).not.toContain('```mermaid');
    // Every package still has its row in the overview.
    expect(r.markdown.match(/^\| package-\d+ \| `1\.5\.3` \|/gm)).toHaveLength(400);

    const rows = renderReport({ ...base, entries: many }, 20000);
    expect(rows.markdown.length).toBeLessThanOrEqual(20000);
    expect(rows.trimmed[0]).toMatch(/table rows were left out/);
    expect(rows.markdown).toMatch(/\| _…and \d+ more_ \|/);
    // The note says so under the table.
    expect(rows.markdown.indexOf('> This report was shortened')).toBeGreaterThan(rows.markdown.indexOf('more_ |'));
  });

  test('a limit too small for anything still gives text, never an error', () => {
    const r = renderReport(huge(1), 300);
    expect(r.markdown.length).toBeLessThanOrEqual(300);
    expect(r.trimmed).toEqual(['the text was cut']);
  });
});

describe('a release touching 20 package versions', () => {
  const T0 = Date.parse('2026-11-29T23:40:00.000Z');
  const at = (s: number) => new Date(T0 + s * 1000).toISOString();
  const names = Array.from({ length: 20 }, (_, i) => `pkg${String(i + 1).padStart(2, '0')}`);
  // One kind run's step graph: the same list in every result of the run.
  const steps = [
    { name: 'kind cluster', state: 'done' as const, needs: [], startedAt: at(0), finishedAt: at(15), waitedOn: [] },
    ...names.flatMap((n, i) => [
      { name: `build ${n}/1.0.0`, state: 'done' as const, needs: ['kind'], startedAt: at(i), finishedAt: at(i + 1), waitedOn: i > 1 ? ['kind', 'a free cpu slot'] : ['kind'] },
      { name: `push dev ${n}/1.0.0`, state: 'done' as const, needs: [`build ${n}/1.0.0`], startedAt: at(i + 1), finishedAt: at(i + 2), waitedOn: [`build ${n}/1.0.0`] },
    ]),
  ];
  const setup = [{ name: 'kind cluster', seenAt: at(15) }, { name: 'kapp-controller', seenAt: at(25) }];
  /** Won, reconcile failed or an error, each with a long watch (80 changes). */
  function result(n: string, i: number): PackageResult {
    const timeline = Array.from({ length: 80 }, (_, k) => ({
      at: at(30 + k),
      object: k % 2 ? 'App' : 'PackageInstall',
      generation: 1,
      observedGeneration: 1,
      condition: k % 3 ? 'Reconciling' : 'ReconcileSucceeded',
      version: `1.0.1-dev.${i}`,
      message: `change ${k} of ${n}: ${'x'.repeat(40)}`,
    }));
    if (i % 5 === 4) {
      const r = reconcileFailed(n, '1.0.0');
      return { ...r, steps, phases: [...setup, { name: 'dev Package applied', seenAt: at(30) }], timeline, diagnostics: { dir: `/tmp/d/${n}`, excerpt: `deploy stderr of ${n}\n`.repeat(200) } };
    }
    if (i % 7 === 3) {
      return { name: n, version: '1.0.0', mode: 'kind', verdict: 'error', reason: `baseline: the released bundle of ${n} did not build`, steps, phases: setup, timeline: [] };
    }
    return { ...wonKind(), name: n, version: '1.0.0', devVersion: `1.0.1-dev.${i}`, steps, phases: [...setup, { name: 'dev Package applied', seenAt: at(30) }, { name: 'won', seenAt: at(110) }], timeline };
  }
  const input = (): ReportInput => ({ ...base, entries: names.map((n, i) => ({ result: result(n, i), artifactName: 'devpkg-results' })) });
  const rowsOf = (md: string) => md.split('\n').filter((l) => /^\| pkg\d\d \|/.test(l));

  test('a summary table first, one row per package version: package, version, verdict, phase', () => {
    const { markdown } = renderReport(input());
    const lines = markdown.split('\n');
    expect(lines[0]).toBe('## ❌ devpkg · kind: 7 of 20 package versions failed');
    expect(lines.slice(2, 4)).toEqual(['| Package | Version | Verdict | Phase | Released → dev | Mode |', '|---|---|---|---|---|---|']);
    const rows = rowsOf(markdown);
    expect(rows).toHaveLength(20);
    expect(rows.map((l) => l.split(' | ').slice(0, 4).join(' | '))).toEqual(
      names.map((n, i) => `| ${n} | \`1.0.0\` | ${i % 5 === 4 ? '❌ reconcile failed | dev Package applied' : i % 7 === 3 ? '💥 error | kapp-controller' : '✅ won | won'}`),
    );
    // The table comes before any package's details.
    expect(markdown.indexOf('| pkg20 |')).toBeLessThan(markdown.indexOf('<details>'));
  });

  test('each package version\'s details are folded; the run\'s shared steps are shown once; it fits, the failures\' detail kept longest, with a note saying what was cut', () => {
    const input20 = input();
    const full = renderReport(input20, Number.MAX_SAFE_INTEGER).markdown;
    expect(full.length).toBeGreaterThan(GITHUB_COMMENT_LIMIT);
    const { markdown, trimmed } = renderReport(input20);
    expect(markdown.length).toBeLessThanOrEqual(GITHUB_COMMENT_LIMIT);
    // The wins' charts and tables go before the failures' do: the 4 failures that were watched
    // (the 3 errors never were) keep their table of observed changes.
    expect(trimmed).toEqual(['diagnostics and YAML excerpts, the timeline charts, and the tables of the package versions that passed, were left out']);
    expect(markdown.match(/<summary>Observed changes \(80\)<\/summary>/g)).toHaveLength(4);
    // The note sits under the table, ahead of the folded sections.
    const note = markdown.indexOf("> This report was shortened to fit GitHub's 65536-character limit");
    expect(note).toBeGreaterThan(markdown.indexOf('| pkg20 |'));
    expect(note).toBeLessThan(markdown.indexOf('<details>'));
    // One folded block per package version.
    expect(markdown.match(/^<details><summary>(✅|❌|💥) <b>pkg\d\d 1\.0\.0<\/b>: [^<]+<\/summary>$/gm)).toHaveLength(20);
    expect(markdown).not.toContain('<details open');
    expect(rowsOf(markdown)).toHaveLength(20);
    // 41 steps, shown once for the run, not once per package.
    expect(full.match(/<summary>The run’s steps, the same for every package version \(41\)<\/summary>/g)).toHaveLength(1);
    expect(full.match(/<summary>Steps \(/g)).toBeNull();
  });

  test('folded, a failure\'s summary line starts its reason; a long one is cut there, whole inside', () => {
    const long = { ...reconcileFailed('pkg05', '1.0.0'), reason: `Reconcile failed: ${'y'.repeat(300)} <b>@octocat` };
    const entries = [{ result: { ...wonKind(), name: 'pkg01', version: '1.0.0' } }, { result: reconcileFailed('pkg02', '1.0.0') }, { result: long }];
    const { markdown } = renderReport({ ...base, entries });
    expect(markdown).not.toContain('<details open');
    expect(markdown).toContain('\n<details><summary>✅ <b>pkg01 1.0.0</b>: won</summary>\n');
    expect(markdown).toContain(`\n<details><summary>❌ <b>pkg02 1.0.0</b>: reconcile failed — ${reconcileFailed('pkg02', '1.0.0').reason.replace(/"/g, '&quot;')}</summary>\n`);
    expect(markdown).toContain(`\n<details><summary>❌ <b>pkg05 1.0.0</b>: reconcile failed — Reconcile failed: ${'y'.repeat(141)}…</summary>\n`);
    expect(markdown).toContain(`> Reconcile failed: ${'y'.repeat(300)} &lt;b&gt;@\u200boctocat\n`);
  });

  test('hostile names stay text in the table and in the folded summaries', () => {
    const evil = '[click](https://evil.example) @everyone <img src=x> </summary></details>`';
    const entries = [{ result: { ...wonKind(), name: evil } }, ...names.slice(1).map((n) => ({ result: { ...wonKind(), name: n } }))];
    const { markdown } = renderReport({ ...base, entries });
    expect(markdown).not.toContain('<img');
    expect(markdown).not.toContain('</summary></details>`');
    expect(markdown).not.toMatch(/(?<!\\)\]\(https:\/\/evil/);
    // Mermaid charts are code: GitHub finds mentions and links in the prose only.
    expect(proseOf(markdown)).not.toMatch(/@everyone|https:\/\/evil/);
    expect(markdown).toContain('| \\[click\\](https:\u200b//evil.example) @\u200beveryone &lt;img src=x&gt; &lt;/summary&gt;&lt;/details&gt;\\` |');
    expect(markdown).toContain('<summary>✅ <b>&#91;click&#93;(https:\u200b//evil.example) @\u200beveryone &lt;img src=x&gt; &lt;/summary&gt;&lt;/details&gt;&#96; 1.5.3</b>: won</summary>');
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
