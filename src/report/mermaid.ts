import type { PackageResult, TimelineEntry } from '../results.js';
import { mermaidLabel } from './markdown.js';

/** One bar of the chart. */
interface Bar {
  label: string;
  tags: string[];
  start: number;
  end: number;
}

/** Bars per section; a long watch keeps its first and last changes. */
export const MAX_BARS_PER_SECTION = 24;

function ms(iso: string | undefined): number | undefined {
  if (!iso) return undefined;
  const t = Date.parse(iso);
  return Number.isNaN(t) ? undefined : t;
}

/** Every timestamp in a result, for the chart's end and the tables' zero. */
export function timesOf(r: PackageResult): number[] {
  const out: number[] = [];
  for (const p of r.phases ?? []) {
    for (const t of [ms(p.startedAt), ms(p.seenAt)]) if (t !== undefined) out.push(t);
  }
  for (const e of r.timeline) {
    const t = ms(e.at);
    if (t !== undefined) out.push(t);
  }
  return out;
}

function phaseBars(r: PackageResult, end: number): Bar[] {
  const phases = (r.phases ?? [])
    .map((p) => ({ p, start: ms(p.startedAt) }))
    .filter((x): x is { p: (typeof x)['p']; start: number } => x.start !== undefined)
    .sort((a, b) => a.start - b.start);
  return phases.map(({ p, start }, i) => {
    const seen = ms(p.seenAt);
    const next = phases[i + 1]?.start;
    const stop = Math.max(next ?? end, seen ?? 0);
    return { label: p.name, tags: seen !== undefined ? ['done'] : ['active'], start, end: stop };
  });
}

function stateLabel(e: TimelineEntry): string {
  const version = e.version ?? e.lastAttemptedVersion;
  return [version, e.condition].filter(Boolean).join(' ') || 'no status';
}

function objectBars(entries: TimelineEntry[], devVersion: string, end: number): Bar[] {
  const sorted = entries
    .map((e) => ({ e, at: ms(e.at) }))
    .filter((x): x is { e: TimelineEntry; at: number } => x.at !== undefined)
    .sort((a, b) => a.at - b.at);
  const bars: Bar[] = [];
  for (const { e, at } of sorted) {
    const label = stateLabel(e);
    const last = bars[bars.length - 1];
    if (last && last.label === label) continue;
    if (last) last.end = at;
    const tags: string[] = [];
    if (e.condition === 'ReconcileFailed' || e.condition === 'DeleteFailed') tags.push('crit');
    else if (e.condition === 'ReconcileSucceeded' && e.version === devVersion) tags.push('done');
    else if (e.condition === 'Reconciling') tags.push('active');
    bars.push({ label, tags, start: at, end });
  }
  return bars;
}

function keepEnds(bars: Bar[]): { bars: Bar[]; dropped: number } {
  if (bars.length <= MAX_BARS_PER_SECTION) return { bars, dropped: 0 };
  const half = MAX_BARS_PER_SECTION / 2;
  return { bars: [...bars.slice(0, half), ...bars.slice(bars.length - half)], dropped: bars.length - 2 * half };
}

function barLine(b: Bar): string {
  // Whole seconds: gantt durations take no fractions, and a bar needs some width.
  const seconds = Math.max(1, Math.round((b.end - b.start) / 1000));
  const data = [...b.tags, String(b.start), `${seconds}s`].join(', ');
  return `    ${mermaidLabel(b.label)} :${data}`;
}

/**
 * A Mermaid gantt chart of the bootstrap phases and of what each watched object ran when,
 * or undefined when the result carries no timestamps. Times are epoch milliseconds
 * (`dateFormat x`); the axis shows wall-clock time in the reader's time zone.
 */
export function ganttChart(r: PackageResult): string | undefined {
  const times = timesOf(r);
  if (times.length === 0) return undefined;
  const end = Math.max(...times) + 1000;
  const lines = [
    'gantt',
    `    title ${mermaidLabel(`${r.name} ${r.version} - dev ${r.devVersion}`)}`,
    '    dateFormat x',
    '    axisFormat %H:%M:%S',
  ];
  const phases = phaseBars(r, end);
  if (phases.length > 0) {
    lines.push('    section Phases');
    for (const b of keepEnds(phases).bars) lines.push(barLine(b));
  }
  const objects = [...new Set(r.timeline.map((e) => e.object))];
  for (const object of objects) {
    const { bars, dropped } = keepEnds(objectBars(r.timeline.filter((e) => e.object === object), r.devVersion ?? '', end));
    if (bars.length === 0) continue;
    lines.push(`    section ${mermaidLabel(object)}`);
    bars.forEach((b, i) => {
      if (dropped > 0 && i === MAX_BARS_PER_SECTION / 2) {
        lines.push(`    ${mermaidLabel(`${dropped} more changes`)} :${bars[i - 1]!.end}, 1s`);
      }
      lines.push(barLine(b));
    });
  }
  return lines.length > 4 ? lines.join('\n') : undefined;
}
