/** Plain-text rendering of verify results for the terminal and the action log. */
import type { PackageResult } from '../results.js';

const MARK: Record<string, string> = {
  won: 'WON',
  'not-selected': 'NOT SELECTED',
  'reconcile-failed': 'RECONCILE FAILED',
  'downgrade-blocked': 'DOWNGRADE BLOCKED',
  'timed-out': 'TIMED OUT',
  lost: 'LOST',
  interrupted: 'INTERRUPTED',
  planned: 'PLANNED',
  error: 'ERROR',
};

export function renderResultText(r: PackageResult): string {
  const lines: string[] = [];
  lines.push(`${r.name}${r.version ? `/${r.version}` : ''}: ${MARK[r.verdict] ?? r.verdict}${r.devVersion ? `: dev version ${r.devVersion}` : ''}${r.bundle ? ` (${r.bundle})` : ''}`);
  lines.push(`  ${r.reason.split('\n').join('\n  ')}`);
  if (r.timeline.length) {
    lines.push('  timeline:');
    for (const t of r.timeline) {
      const bits = [
        t.generation !== undefined ? `gen ${t.generation}/${t.observedGeneration ?? '-'}` : '',
        t.condition ?? '',
        t.version ? `version ${t.version}` : '',
        t.lastAttemptedVersion && t.lastAttemptedVersion !== t.version ? `last attempted ${t.lastAttemptedVersion}` : '',
        t.message ? `"${t.message.split('\n')[0]}"` : '',
      ].filter(Boolean);
      lines.push(`    ${t.at}  ${t.object.padEnd(14)} ${bits.join('  ')}`);
    }
  }
  for (const a of r.assertions ?? []) lines.push(`  assertion ${a.ok ? 'ok  ' : 'FAIL'} ${a.description}: ${a.detail}`);
  if (r.diagnostics) lines.push(`  diagnostics: ${r.diagnostics.dir}`);
  return `${lines.join('\n')}\n`;
}
