// What an App's status says of its last attempt, pure: at the bottom of verify/ so that evaluate.ts
// (the verdict) and kapp-controller.ts (kapp-controller's own faults) read it the same way.
import type { KObject } from './kobject.js';

/** Milliseconds since the epoch of a Kubernetes timestamp (string or Date), or undefined. */
export function timeOf(t: unknown): number | undefined {
  if (t === undefined || t === null || t === '') return undefined;
  const ms = t instanceof Date ? t.getTime() : Date.parse(String(t));
  return Number.isNaN(ms) ? undefined : ms;
}

/**
 * The step that failed in the App's last attempt, or undefined. An attempt runs fetch, template,
 * deploy in that order and stops at the first failure; kapp-controller leaves the status of the
 * steps after it as an earlier attempt wrote them. So only the first failing step belongs to this
 * attempt, and a template or deploy status last written before this attempt's fetch started (or,
 * for a deploy, before the deploy now running started) is stale.
 */
export function appFailureStep(app: KObject | undefined): { step: string; exitCode: number; text: string; error: string } | undefined {
  const st = app?.status;
  if (!st) return undefined;
  const attempt = timeOf(st.fetch?.startedAt);
  for (const step of ['fetch', 'template', 'deploy'] as const) {
    const s = st[step];
    if (!s || typeof s.exitCode !== 'number' || s.exitCode === 0) continue;
    const updated = timeOf(s.updatedAt);
    if (step !== 'fetch' && attempt !== undefined && updated !== undefined && updated < attempt) continue;
    const started = timeOf(s.startedAt);
    if (step === 'deploy' && started !== undefined && updated !== undefined && updated < started) continue;
    return { step, exitCode: s.exitCode, text: String(s.stderr || s.error || '').trim(), error: String(s.error ?? '').trim() };
  }
  return undefined;
}
