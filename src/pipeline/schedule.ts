/**
 * A small step scheduler (pure: no I/O of its own; the steps bring theirs). Steps have names and
 * the names they need; each starts as soon as everything it needs has finished, steps of one pool
 * share that pool's limit (kind mode: builds and pushes, at most the cores), and every step gets a
 * timeline record: when it started and finished and what it waited on. The first failure (or an
 * abort) starts nothing more; the steps already running are awaited, so nothing is left running
 * when it returns, and the steps never started are recorded as cancelled.
 */
import type { StepRecord } from '../results.js';

export interface Step<V = unknown> {
  name: string;
  needs?: readonly string[];
  /** Steps of one pool run at most `limits[pool]` at a time; a step without a pool is not bounded. */
  pool?: string;
  /**
   * `value(name)`: what a needed step returned. `signal` is aborted at the first failure (or the
   * run's abort), so a step that waits (for a registry, an API server) can stop early.
   */
  run: (value: <T>(name: string) => T, signal: AbortSignal) => Promise<V>;
}

export type { StepRecord };
export type StepState = StepRecord['state'];

export interface ScheduleResult {
  /** One record per step, in the order the steps were given. */
  timeline: StepRecord[];
  values: ReadonlyMap<string, unknown>;
  /** The first step that failed, and how. */
  failed?: { step: string; error: unknown };
  /** The signal was aborted before every step had started. */
  aborted?: boolean;
}

export interface ScheduleOptions {
  limits?: Readonly<Record<string, number>>;
  signal?: AbortSignal;
  now?: () => Date;
}

/** Refuses a graph with a duplicate name, an unknown need or a cycle, naming it (pure). */
export function checkGraph(steps: readonly Step[]): void {
  const byName = new Map<string, Step>();
  for (const s of steps) {
    if (byName.has(s.name)) throw new Error(`step graph: two steps are named "${s.name}"`);
    byName.set(s.name, s);
  }
  for (const s of steps) {
    for (const n of s.needs ?? []) if (!byName.has(n)) throw new Error(`step graph: step "${s.name}" needs "${n}", which is not a step`);
  }
  const seen = new Map<string, 'open' | 'closed'>();
  const visit = (name: string, path: string[]): void => {
    const state = seen.get(name);
    if (state === 'closed') return;
    if (state === 'open') throw new Error(`step graph: a cycle: ${[...path.slice(path.indexOf(name)), name].join(' -> ')}`);
    seen.set(name, 'open');
    for (const n of byName.get(name)!.needs ?? []) visit(n, [...path, name]);
    seen.set(name, 'closed');
  };
  for (const s of steps) visit(s.name, []);
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

export async function runSteps(steps: readonly Step[], o: ScheduleOptions = {}): Promise<ScheduleResult> {
  checkGraph(steps);
  const now = () => (o.now ?? (() => new Date()))().toISOString();
  const records = new Map<string, StepRecord>(steps.map((s) => [s.name, { name: s.name, state: 'cancelled', needs: [...(s.needs ?? [])], waitedOn: [] }]));
  const values = new Map<string, unknown>();
  const finishedOrder = new Map<string, number>();
  const pending = new Set(steps.map((s) => s.name));
  const running = new Set<Promise<void>>();
  const inPool = new Map<string, number>();
  let failed: ScheduleResult['failed'];
  const stop = new AbortController();
  const onAbort = () => stop.abort(o.signal?.reason);
  o.signal?.addEventListener('abort', onAbort);
  if (o.signal?.aborted) onAbort();

  const start = (s: Step): void => {
    const rec = records.get(s.name)!;
    pending.delete(s.name);
    if (s.pool) inPool.set(s.pool, (inPool.get(s.pool) ?? 0) + 1);
    rec.startedAt = now();
    const needs = new Set(s.needs ?? []);
    const value = <T>(name: string): T => {
      if (!needs.has(name)) throw new Error(`step "${s.name}" asked for the value of "${name}", which it does not need`);
      return values.get(name) as T;
    };
    const p: Promise<void> = (async () => s.run(value, stop.signal))()
      .then(
        (v) => {
          values.set(s.name, v);
          rec.state = 'done';
        },
        (err: unknown) => {
          rec.state = 'failed';
          rec.error = message(err);
          if (!failed) {
            failed = { step: s.name, error: err };
            stop.abort(err);
          }
        },
      )
      .finally(() => {
        rec.finishedAt = now();
        finishedOrder.set(s.name, finishedOrder.size);
        if (s.pool) inPool.set(s.pool, inPool.get(s.pool)! - 1);
        running.delete(p);
        launch();
      });
    running.add(p);
  };

  const launch = (): void => {
    if (failed || o.signal?.aborted) return;
    for (const s of steps) {
      if (!pending.has(s.name)) continue;
      const needs = s.needs ?? [];
      if (!needs.every((n) => records.get(n)!.state === 'done' && finishedOrder.has(n))) continue;
      const rec = records.get(s.name)!;
      const last = [...needs].sort((a, b) => finishedOrder.get(b)! - finishedOrder.get(a)!)[0];
      const slot = `a free ${s.pool} slot`;
      const limit = s.pool ? o.limits?.[s.pool] : undefined;
      if (s.pool && limit !== undefined && (inPool.get(s.pool) ?? 0) >= Math.max(1, limit)) {
        rec.waitedOn = [...(last ? [last] : []), slot];
        continue;
      }
      if (!rec.waitedOn.includes(slot)) rec.waitedOn = last ? [last] : [];
      start(s);
    }
  };

  launch();
  while (running.size > 0) await Promise.race(running);
  o.signal?.removeEventListener('abort', onAbort);
  const aborted = pending.size > 0 && !failed && o.signal?.aborted === true;
  return { timeline: [...records.values()], values, ...(failed ? { failed } : {}), ...(aborted ? { aborted } : {}) };
}
