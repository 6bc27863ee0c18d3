/**
 * The report as markdown, pure: the sticky pull request comment and the job summary are the
 * same text. A summary table comes first (one row per package version: package, version,
 * verdict, phase), then each package version's details folded in a `<details>` block (a
 * failure's summary line starts its reason), so a release touching 20 packages reads from the top.
 * It always fits GitHub's comment limit: when it would not, detail goes in a fixed order
 * (diagnostics and YAML excerpts, then the charts and tables of the versions that passed, then
 * the failures' ones, then per-package sections, then table rows) and a note under the table
 * says what was left out.
 */
import type { PackageResult, PlanDetails, PlannedPackage, Verdict } from '../results.js';
import { cell, code, cut, details, escapeHtml, fenced, htmlText, link, text } from './markdown.js';
import { ganttChart, timesOf } from './mermaid.js';

/** GitHub rejects issue comments longer than this many characters. */
export const GITHUB_COMMENT_LIMIT = 65536;

export type OverallResult = 'success' | 'failure' | 'skipped';

export interface ReportEntry {
  result: PlannedPackage;
  /** The run that produced this result; report mode merges results of several runs. */
  runUrl?: string;
  /** The artifact the workflow uploaded the results folder as; linked as <run url>#artifacts. */
  artifactName?: string;
  /** A local run's results folder (no run page, no artifact): named instead of links. */
  resultsDir?: string;
}

export interface ReportInput {
  /** The comment-header input; shown in the title when it is not the default. */
  header: string;
  entries: ReportEntry[];
  runUrl?: string;
  /** e.g. "run 42" */
  runLabel?: string;
  commit?: string;
  /** ISO time shown in the footer (passed in, so rendering stays pure). */
  generatedAt?: string;
  /** No package in play: why, line by line (the range, the files changed and ignored, the scope). */
  nothing?: string[];
  /**
   * Results files report mode refused (did not parse, broke the schema, a link, too large): the
   * report is then an error whatever the other files say, and names each.
   */
  unreadable?: Array<{ file: string; reason: string }>;
  /** The run whose artifacts those were (a workflow_run's triggering run), for the error. */
  sourceRunUrl?: string;
  /** What was cut while reading other jobs' results (fields too long, lists too long). */
  cuts?: string[];
}

export interface RenderedReport {
  markdown: string;
  /** What trimming left out, empty when nothing was. */
  trimmed: string[];
}

interface VerdictStyle {
  icon: string;
  label: string;
  ok: boolean;
}

export const VERDICTS: Record<Verdict, VerdictStyle> = {
  won: { icon: '✅', label: 'won', ok: true },
  planned: { icon: '📝', label: 'planned', ok: true },
  'not-selected': { icon: '❌', label: 'not selected', ok: false },
  'reconcile-failed': { icon: '❌', label: 'reconcile failed', ok: false },
  'downgrade-blocked': { icon: '⛔', label: 'downgrade blocked', ok: false },
  'timed-out': { icon: '⏱️', label: 'timed out', ok: false },
  lost: { icon: '❌', label: 'lost after winning', ok: false },
  interrupted: { icon: '🛑', label: 'interrupted', ok: false },
  error: { icon: '💥', label: 'error', ok: false },
};

function style(v: Verdict | string): VerdictStyle {
  return VERDICTS[v as Verdict] ?? { icon: '❔', label: String(v), ok: false };
}

/** success when every package won (or was planned), failure when any did not, skipped when there were none. */
export function overallResult(results: readonly PackageResult[]): OverallResult {
  if (results.length === 0) return 'skipped';
  return results.every((r) => style(r.verdict).ok) ? 'success' : 'failure';
}

/** The folder name of a package's diagnostics inside the artifact. */
export function slug(r: Pick<PackageResult, 'name' | 'version'>): string {
  return `${r.name}-${r.version}`.replace(/[^A-Za-z0-9._-]+/g, '_');
}

/** How much detail one rendering keeps; the trimming ladder lowers these step by step. */
interface Detail {
  excerptChars: number;
  mermaid: boolean;
  tables: boolean;
  /** Charts and tables for the package versions that passed too (failures keep theirs longer). */
  passed: boolean;
  /** How many packages get their own section (failures first). */
  sections: number;
  /** How many rows the overview table keeps. */
  rows: number;
}

function hms(t: number): string {
  return new Date(t).toISOString().slice(11, 19);
}

function elapsed(from: number, to: number): string {
  const s = Math.round((to - from) / 1000);
  if (Math.abs(s) < 60) return `+${s}s`;
  const m = Math.floor(s / 60);
  return `+${m}m${String(s % 60).padStart(2, '0')}s`;
}

function at(iso: string | undefined, zero: number): string {
  if (!iso) return '—';
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return text(iso);
  return `${hms(t)} (${elapsed(zero, t)})`;
}

/** A value the run never learned (an error before it): said, never an empty code span. */
const UNKNOWN = '_unknown_';

function versions(r: PackageResult): string {
  // A run that stopped early never saw what is released.
  const released = r.releasedVersion ? code(r.releasedVersion) : r.verdict === 'error' ? UNKNOWN : '_none released_';
  return `${released} → ${r.devVersion ? code(r.devVersion) : UNKNOWN}`;
}

function refNames(r: PackageResult): string {
  if (!r.refName) return `${UNKNOWN} (the package could not be read)`;
  const target = r.targetRefName || r.refName;
  return r.refName === target ? code(r.refName) : `${code(r.refName)} → ${code(target)}`;
}

function multiline(s: string): string {
  return s
    .split(/\r?\n/)
    .filter((l) => l.trim() !== '')
    .map(text)
    .join('<br>');
}

function phaseTable(r: PackageResult, zero: number): string | undefined {
  const phases = r.phases ?? [];
  if (phases.length === 0) return undefined;
  const rows = phases.map((p) => `| ${text(p.name)} | ${at(p.startedAt, zero)} | ${at(p.seenAt, zero)} |`);
  return ['| Phase | Started | Expected version seen |', '|---|---|---|', ...rows].join('\n');
}

/**
 * The run's steps (kind mode's step graph) as a table, times in seconds after the first step
 * started; collapsed, since it is the same for every package of the run (pure).
 */
export function stepTable(steps: NonNullable<PackageResult['steps']>, title = 'Steps'): string | undefined {
  const starts = steps.map((t) => Date.parse(t.startedAt ?? '')).filter((t) => !Number.isNaN(t));
  if (starts.length === 0) return undefined;
  const zero = Math.min(...starts);
  const sec = (iso: string | undefined) => {
    const t = Date.parse(iso ?? '');
    return Number.isNaN(t) ? '—' : `${((t - zero) / 1000).toFixed(1)} s`;
  };
  const rows = steps.map((t) => {
    const state = t.state === 'done' ? '' : ` (${t.state}${t.error ? `: ${cut(t.error, 120, 'head')}` : ''})`;
    return `| ${cell(text(t.name + state))} | ${sec(t.startedAt)} | ${sec(t.finishedAt)} | ${cell(text(t.waitedOn.join(', ') || '—'))} |`;
  });
  return details(`${title} (${steps.length})`, ['| Step | Started | Finished | Waited on |', '|---|---|---|---|', ...rows].join('\n'));
}

function timelineTable(r: PackageResult, zero: number): string | undefined {
  if (r.timeline.length === 0) return undefined;
  const rows = r.timeline.map((e) => {
    const gen = e.generation === undefined ? '' : `${e.observedGeneration ?? '?'}/${e.generation}`;
    return [
      at(e.at, zero),
      text(e.object),
      gen,
      e.condition ? text(e.condition) : '',
      e.version ? cell(code(e.version)) : '',
      e.lastAttemptedVersion ? cell(code(e.lastAttemptedVersion)) : '',
      e.message ? cell(text(e.message)) : '',
    ].join(' | ');
  });
  const table = [
    '| At | Object | Observed/gen | Condition | Version | Last attempted | Message |',
    '|---|---|---|---|---|---|---|',
    ...rows.map((r) => `| ${r} |`),
  ].join('\n');
  return details(`Observed changes (${r.timeline.length})`, table);
}

function links(e: ReportEntry, input: ReportInput): string | undefined {
  const runUrl = e.runUrl ?? input.runUrl;
  const parts: string[] = [];
  if (runUrl) parts.push(link('workflow run', runUrl));
  if (e.resultsDir) parts.push(`results folder ${code(e.resultsDir)}`);
  else if (e.artifactName) {
    const url = runUrl ? `${runUrl}#artifacts` : undefined;
    const name = `artifact ${e.artifactName}`;
    parts.push(url ? link(name, url) : text(name));
  }
  if (e.result.diagnostics?.dir) parts.push(`diagnostics in ${code(`diagnostics/${slug(e.result)}/`)}`);
  return parts.length > 0 ? `Full logs: ${parts.join(' · ')}` : undefined;
}

function resultSection(e: ReportEntry, input: ReportInput, d: Detail, sharedSteps: string | undefined): string {
  const r = e.result;
  const s = style(r.verdict);
  const times = timesOf(r);
  const zero = times.length > 0 ? Math.min(...times) : 0;
  if (s.ok && !d.passed) d = { ...d, mermaid: false, tables: false };
  const out: string[] = [`> ${multiline(r.reason) || s.label}`, ''];
  out.push(`- **Versions:** ${versions(r)}`);
  if (r.releasedFrom) out.push(`- **Released version:** ${text(r.releasedFrom)}`);
  out.push(`- **refName:** ${refNames(r)}`);
  if (r.bundle) out.push(`- **Bundle:** ${code(r.bundle)}`);
  out.push(`- **Mode:** ${text(r.mode)}`);
  if (d.tables) {
    const phases = phaseTable(r, zero);
    if (phases) out.push('', phases);
  }
  if (d.mermaid) {
    const chart = ganttChart(r);
    if (chart) out.push('', fenced(chart, 'mermaid'));
  }
  if (d.tables) {
    const tl = timelineTable(r, zero);
    if (tl) out.push('', tl);
    // The run's steps, unless the report shows them once for every package.
    const st = r.steps && !(sharedSteps !== undefined && stepsKey(r.steps) === sharedSteps) ? stepTable(r.steps) : undefined;
    if (st) out.push('', st);
  }
  if (r.assertions && r.assertions.length > 0) {
    const rows = r.assertions.map((a) => `| ${a.ok ? '✅' : '❌'} | ${cell(text(a.description))} | ${cell(text(a.detail))} |`);
    out.push('', '| | Assertion | Detail |', '|---|---|---|', ...rows);
  }
  if (!s.ok) {
    const excerpt = r.diagnostics?.excerpt ?? '';
    if (excerpt.trim() !== '' && d.excerptChars > 0) {
      out.push('', details('Diagnostics excerpt', fenced(cut(excerpt, d.excerptChars, 'tail'), 'text')));
    }
    const l = links(e, input);
    if (l) out.push('', l);
  }
  if (r.plan) out.push('', planDetails({ ...r, plan: r.plan }, d));
  return out.join('\n');
}

function planDetails(r: PlannedPackage & { plan: PlanDetails }, d: Detail): string {
  const p = r.plan;
  const out: string[] = [];
  if (p.devVersionReason) out.push(`Dev version: ${text(p.devVersionReason)}`, '');
  if (d.excerptChars > 0) {
    out.push(details(`Dev Package <code>${escapeHtml(p.devPackageName)}</code>`, fenced(cut(p.packageYaml, d.excerptChars, 'head'), 'yaml')));
    if (p.overlay) {
      out.push('', details(`Overlay <code>${escapeHtml(p.overlayPath)}</code>`, fenced(cut(p.overlay, d.excerptChars, 'head'), 'yaml')));
    }
    if (p.commands.length > 0) {
      out.push('', details('Commands', fenced(cut(p.commands.join('\n'), d.excerptChars, 'head'), 'sh')));
    }
  } else {
    out.push(`Dev Package ${code(p.devPackageName)} and overlay ${code(p.overlayPath)}: see the artifact.`);
  }
  return out.join('\n');
}

function planSection(e: ReportEntry, d: Detail): string {
  const r = e.result;
  const body = r.plan ? planDetails({ ...r, plan: r.plan }, d) : `> ${multiline(r.reason) || 'planned'}`;
  const facts = [`- **Versions:** ${versions(r)}`, `- **refName:** ${refNames(r)}`];
  if (r.plan) facts.push(`- **Bundle:** ${code(r.plan.bundleImage)}`);
  const released = r.releasedFrom ? [`Released version: ${text(r.releasedFrom)}`, ''] : [];
  return [...facts, '', ...released, body].join('\n');
}

/** How much of a failure's reason its folded summary line shows (the whole reason is inside). */
const SUMMARY_REASON_CHARS = 160;

/**
 * A package version's details, folded under a one-line summary of its verdict; a failure's
 * summary line also starts its reason, so what went wrong reads without unfolding anything.
 */
function packageSection(e: ReportEntry, input: ReportInput, d: Detail, sharedSteps: string | undefined): string {
  const r = e.result;
  const s = style(r.verdict);
  const planOnly = r.verdict === 'planned' && !r.timeline.length;
  const reason = r.reason.replace(/\s+/g, ' ').trim();
  const why = s.ok || !reason ? '' : ` — ${htmlText(reason.length > SUMMARY_REASON_CHARS ? `${reason.slice(0, SUMMARY_REASON_CHARS - 1)}…` : reason)}`;
  const summary = `${s.icon} <b>${htmlText(r.name)} ${htmlText(r.version)}</b>: ${htmlText(s.label)}${why}`;
  return details(summary, planOnly ? planSection(e, d) : resultSection(e, input, d, sharedSteps));
}

/** One key per distinct step list (the run's steps are the same in each of its results). */
function stepsKey(steps: NonNullable<PackageResult['steps']>): string {
  return JSON.stringify(steps);
}

/**
 * The step list every result that has steps shares, when more than one result has it (kind mode
 * with several packages: one run, one step graph): shown once, not once per package.
 */
function sharedStepsOf(entries: ReportEntry[]): { key: string; steps: NonNullable<PackageResult['steps']> } | undefined {
  const withSteps = entries.map((e) => e.result.steps).filter((s): s is NonNullable<PackageResult['steps']> => !!s && s.length > 0);
  if (withSteps.length < 2) return undefined;
  const key = stepsKey(withSteps[0]!);
  return withSteps.every((s) => stepsKey(s) === key) ? { key, steps: withSteps[0]! } : undefined;
}

function title(input: ReportInput): string {
  const results = input.entries.map((e) => e.result);
  const n = results.length;
  const named = input.header && input.header !== 'devpkg' ? `devpkg (${text(input.header)})` : 'devpkg';
  const modes = [...new Set(results.map((r) => r.mode))].map(text).join(', ');
  const where = modes ? ` · ${modes}` : '';
  const bad = input.unreadable?.length ?? 0;
  // Never a green title over results that could not be read: one of them may be the failure.
  if (bad > 0) return `## 💥 ${named}${where}: ${bad} results file${bad === 1 ? '' : 's'} could not be read`;
  if (n === 0) return `## ➖ ${named}${where}: no package versions to check`;
  const failed = results.filter((r) => !style(r.verdict).ok).length;
  const planned = results.filter((r) => r.verdict === 'planned').length;
  const of = (k: number): string => `${k} of ${n} package version${n === 1 ? '' : 's'}`;
  if (failed > 0) return `## ❌ ${named}${where}: ${of(failed)} failed`;
  if (planned === n) return `## 📝 ${named}${where}: ${n} package version${n === 1 ? '' : 's'} planned (nothing pushed or applied)`;
  return `## ✅ ${named}${where}: ${of(n - planned)} verified`;
}

/**
 * The phase a result ended in: the last one it reached (kind: `won`, or `dev Package applied`
 * when verification did not end in a win; bootstrap: the phase it was in), or none.
 */
function lastPhase(r: PackageResult): string {
  const p = r.phases?.at(-1);
  return p ? cell(text(p.name)) : '—';
}

/** The summary table: one row per package version, in the order of the results. */
function summaryTable(entries: ReportEntry[], rows: number): string {
  const kept = entries.slice(0, rows);
  const lines = ['| Package | Version | Verdict | Phase | Released → dev | Mode |', '|---|---|---|---|---|---|'];
  for (const { result: r } of kept) {
    const s = style(r.verdict);
    lines.push(`| ${cell(text(r.name))} | ${cell(code(r.version))} | ${s.icon} ${s.label} | ${lastPhase(r)} | ${cell(versions(r))} | ${cell(text(r.mode))} |`);
  }
  if (kept.length < entries.length) lines.push(`| _…and ${entries.length - kept.length} more_ | | | | | |`);
  return lines.join('\n');
}

/** At most this many refused files or cut fields are listed; the rest are counted (the log has all). */
const READ_ROWS = 20;

function listed(rows: string[], what: string): string[] {
  return rows.length > READ_ROWS ? [...rows.slice(0, READ_ROWS), `- _…and ${rows.length - READ_ROWS} more ${what} (see the job's log)_`] : rows;
}

/** The results files that were refused, by name and why, and where they came from. */
function unreadableSection(input: ReportInput): string | undefined {
  const bad = input.unreadable ?? [];
  if (bad.length === 0) return undefined;
  const run = input.sourceRunUrl ?? input.runUrl;
  const from = run ? ` of ${link('the run that made them', run)}` : '';
  const rows = bad.map((u) => `- ${code(u.file)}: ${text(u.reason)}`);
  return [
    '#### 💥 Results that could not be read',
    '',
    `devpkg shows no verdict for these files${from}: they did not parse or did not match the results schema, so this report cannot say that those package versions passed.`,
    '',
    ...listed(rows, 'files'),
  ].join('\n');
}

/** What was cut while reading other jobs' results. */
function cutsSection(input: ReportInput): string | undefined {
  const cuts = input.cuts ?? [];
  if (cuts.length === 0) return undefined;
  return ['#### ✂️ Cut while reading the results', '', ...listed(cuts.map((c) => `- ${text(c)}`), 'cuts')].join('\n');
}

/** At most this many problems are listed; the rest are counted (they are all in the artifact). */
const PROBLEM_ROWS = 50;

/** Warnings and errors in the package files of every entry, by file and line. */
function problemsSection(entries: ReportEntry[]): string | undefined {
  const all = entries.flatMap((e) => e.result.problems ?? []);
  if (all.length === 0) return undefined;
  const seen = new Set<string>();
  const unique = all.filter((p) => {
    const k = `${p.path}:${p.line ?? ''}:${p.message}`;
    return seen.has(k) ? false : (seen.add(k), true);
  });
  const errors = unique.filter((p) => p.severity === 'error').length;
  const head = `#### ⚠️ Problems in package files (${errors} error${errors === 1 ? '' : 's'}, ${unique.length - errors} warning${unique.length - errors === 1 ? '' : 's'})`;
  const rows = unique.slice(0, PROBLEM_ROWS).map((p) => `- ${p.severity === 'error' ? '💥' : '⚠️'} ${code(`${p.path}${p.line !== undefined ? `:${p.line}` : ''}`)}: ${text(p.message)}`);
  if (unique.length > PROBLEM_ROWS) rows.push(`- _…and ${unique.length - PROBLEM_ROWS} more (see the artifact)_`);
  return [head, '', ...rows].join('\n');
}

function footer(input: ReportInput): string {
  const parts: string[] = ['devpkg'];
  if (input.runUrl) parts.push(link(input.runLabel ?? 'workflow run', input.runUrl));
  if (input.commit) parts.push(`commit ${code(input.commit.slice(0, 12))}`);
  if (input.generatedAt) parts.push(text(input.generatedAt.replace('T', ' ').replace(/\.\d+Z$|Z$/, ' UTC')));
  return `<sub>${parts.join(' · ')}</sub>`;
}

function compose(input: ReportInput, d: Detail, trimmed: string[]): string {
  const out: string[] = [title(input), ''];
  const unreadable = unreadableSection(input);
  if (unreadable) out.push(unreadable, '');
  if (input.entries.length > 0) out.push(summaryTable(input.entries, d.rows), '');
  else if (input.nothing?.length) out.push(input.nothing.map((l) => `- ${text(l.trim())}`).join('\n'), '');
  // What was left out is said under the table, where it is read, not after 20 folded sections.
  if (trimmed.length > 0) {
    out.push(`> [!NOTE]\n> This report was shortened to fit GitHub's ${GITHUB_COMMENT_LIMIT}-character limit: ${trimmed.map(text).join('; ')}. The full results are in the artifact.`, '');
  }
  const problems = problemsSection(input.entries);
  if (problems) out.push(problems, '');
  const cuts = cutsSection(input);
  if (cuts) out.push(cuts, '');
  // Failures get their sections first when there is room for only some.
  const order = [...input.entries].sort(
    (a, b) => Number(style(a.result.verdict).ok) - Number(style(b.result.verdict).ok),
  );
  const shown = new Set(order.slice(0, d.sections));
  const shared = d.tables && shown.size > 0 ? sharedStepsOf(input.entries) : undefined;
  const sharedTable = shared ? stepTable(shared.steps, 'The run’s steps, the same for every package version') : undefined;
  if (sharedTable) out.push(sharedTable, '');
  for (const e of input.entries) {
    if (shown.has(e)) out.push(packageSection(e, input, d, sharedTable ? shared!.key : undefined), '');
  }
  out.push(footer(input));
  return out.join('\n');
}

/**
 * Renders the report within `limit` characters. Never fails on size: it drops detail step by
 * step and, as a last resort, cuts the text.
 */
export function renderReport(input: ReportInput, limit = GITHUB_COMMENT_LIMIT): RenderedReport {
  const n = input.entries.length;
  const ladder: Array<{ d: Detail; note?: string }> = [];
  const full: Detail = { excerptChars: Number.MAX_SAFE_INTEGER, mermaid: true, tables: true, passed: true, sections: n, rows: n };
  ladder.push({ d: full });
  for (const chars of [8000, 2000, 500]) {
    ladder.push({ d: { ...full, excerptChars: chars }, note: `diagnostics and YAML excerpts were cut to ${chars} characters each` });
  }
  const noExcerpts: Detail = { ...full, excerptChars: 0 };
  ladder.push({ d: noExcerpts, note: 'diagnostics and YAML excerpts were left out' });
  ladder.push({ d: { ...noExcerpts, passed: false }, note: 'diagnostics and YAML excerpts, and the timeline charts and tables of the package versions that passed, were left out' });
  ladder.push({ d: { ...noExcerpts, passed: false, mermaid: false }, note: 'diagnostics and YAML excerpts, the timeline charts, and the tables of the package versions that passed, were left out' });
  const bare: Detail = { ...noExcerpts, mermaid: false, tables: false, passed: false };
  ladder.push({ d: bare, note: 'diagnostics and YAML excerpts, timeline charts and tables were left out' });
  for (let k = Math.floor(n / 2); ; k = Math.floor(k / 2)) {
    ladder.push({ d: { ...bare, sections: k }, note: `details of ${n - k} of ${n} package versions were left out` });
    if (k === 0) break;
  }
  for (let k = Math.floor(n / 2); ; k = Math.floor(k / 2)) {
    ladder.push({ d: { ...bare, sections: 0, rows: k }, note: `details of all package versions and ${n - k} table rows were left out` });
    if (k === 0) break;
  }
  let last = '';
  for (const step of ladder) {
    const trimmed = step.note ? [step.note] : [];
    last = compose(input, step.d, trimmed);
    if (last.length <= limit) return { markdown: last, trimmed };
  }
  // Only very long titles or reasons get here: cut the text itself.
  const note = '\n\n> [!NOTE]\n> This report was cut to fit GitHub\'s comment limit. The full results are in the artifact.';
  return { markdown: last.slice(0, Math.max(0, limit - note.length)) + note, trimmed: ['the text was cut'] };
}
