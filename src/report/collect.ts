/**
 * Reading results.json files that other jobs uploaded (matrix legs, or a fork pull request's
 * run for a workflow_run job). Their content is untrusted: a fork controls what its run
 * uploads. So every field is type-checked here, strings are only ever rendered escaped, and
 * the pull request number is checked against the triggering run before anything is posted.
 */
import { readdir, readFile } from 'node:fs/promises';
import { dirname, isAbsolute, join, normalize } from 'node:path';
import { DevpkgError } from '../errors.js';
import type { Mode, PackageResult, PlanDetails, PlannedPackage, TimelineEntry } from '../results.js';
import { RESULTS_FILE, RESULTS_SCHEMA, type ResultsDocument } from './artifact.js';
import type { ReportEntry } from './render.js';

export interface CollectedResults {
  docs: Array<{ file: string; doc: ResultsDocument }>;
  entries: ReportEntry[];
  problems: string[];
}

const MAX_DEPTH = 4;
const MAX_STRING = 200_000;

async function findResultFiles(dir: string, depth = 0): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isFile() && e.name === RESULTS_FILE) out.push(p);
    else if (e.isDirectory() && depth < MAX_DEPTH) out.push(...(await findResultFiles(p, depth + 1)));
  }
  return out.sort();
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v.slice(0, MAX_STRING) : undefined);
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

function timelineEntry(v: unknown): TimelineEntry | undefined {
  if (!isObj(v) || !str(v.at) || !str(v.object)) return undefined;
  return {
    at: str(v.at)!,
    object: str(v.object)!,
    generation: num(v.generation),
    observedGeneration: num(v.observedGeneration),
    condition: str(v.condition),
    version: str(v.version),
    lastAttemptedVersion: str(v.lastAttemptedVersion),
    message: str(v.message),
  };
}

function plan(v: unknown): PlanDetails | undefined {
  if (!isObj(v)) return undefined;
  return {
    path: str(v.path) ?? '',
    devPackageName: str(v.devPackageName) ?? '',
    bundleTag: str(v.bundleTag) ?? '',
    bundleImage: str(v.bundleImage) ?? '',
    devVersionReason: str(v.devVersionReason) ?? '',
    packageYaml: str(v.packageYaml) ?? '',
    overlay: str(v.overlay) ?? '',
    overlayPath: str(v.overlayPath) ?? '',
    commands: Array.isArray(v.commands) ? v.commands.map(str).filter((c): c is string => c !== undefined) : [],
  };
}

/** A result rebuilt field by field from untrusted JSON, or a reason it is unusable. */
export function sanitizeResult(v: unknown): PlannedPackage | string {
  if (!isObj(v)) return 'not an object';
  const name = str(v.name);
  const version = str(v.version);
  const verdict = str(v.verdict);
  const devVersion = str(v.devVersion);
  if (!name || !version || !verdict) return 'name, version or verdict missing';
  // Only an error result may lack its dev version (it stopped before one was planned).
  if (devVersion === undefined && verdict !== 'error') return 'devVersion missing';
  const unknown = Array.isArray(v.unknown) ? v.unknown.filter((u): u is 'refName' | 'targetRefName' | 'devVersion' => ['refName', 'targetRefName', 'devVersion'].includes(u as string)) : [];
  const r: PlannedPackage = {
    name,
    version,
    refName: str(v.refName),
    targetRefName: str(v.targetRefName) ?? str(v.refName),
    releasedVersion: str(v.releasedVersion),
    ...(str(v.releasedFrom) ? { releasedFrom: str(v.releasedFrom) } : {}),
    devVersion,
    bundle: str(v.bundle),
    // Read as the other job wrote it (not checked against MODES: a report shows what it is given).
    mode: (str(v.mode) ?? '') as Mode,
    verdict: verdict as PackageResult['verdict'],
    ...(unknown.length ? { unknown } : {}),
    reason: str(v.reason) ?? '',
    timeline: Array.isArray(v.timeline) ? v.timeline.map(timelineEntry).filter((e): e is TimelineEntry => e !== undefined) : [],
  };
  if (Array.isArray(v.phases)) {
    r.phases = v.phases
      .filter(isObj)
      .filter((p) => str(p.name))
      .map((p) => ({ name: str(p.name)!, startedAt: str(p.startedAt), seenAt: str(p.seenAt), ...(str(p.detail) ? { detail: str(p.detail) } : {}) }));
  }
  if (Array.isArray(v.steps)) {
    r.steps = v.steps
      .filter(isObj)
      .filter((t) => str(t.name) && (t.state === 'done' || t.state === 'failed' || t.state === 'cancelled'))
      .map((t) => ({
        name: str(t.name)!,
        state: t.state as 'done' | 'failed' | 'cancelled',
        needs: Array.isArray(t.needs) ? t.needs.map(str).filter((n): n is string => n !== undefined) : [],
        ...(str(t.startedAt) ? { startedAt: str(t.startedAt) } : {}),
        ...(str(t.finishedAt) ? { finishedAt: str(t.finishedAt) } : {}),
        waitedOn: Array.isArray(t.waitedOn) ? t.waitedOn.map(str).filter((n): n is string => n !== undefined) : [],
        ...(str(t.error) ? { error: str(t.error) } : {}),
      }));
  }
  if (isObj(v.diagnostics)) r.diagnostics = { dir: str(v.diagnostics.dir) ?? '', excerpt: str(v.diagnostics.excerpt) ?? '' };
  if (Array.isArray(v.assertions)) {
    r.assertions = v.assertions
      .filter(isObj)
      .map((a) => ({ description: str(a.description) ?? '', ok: a.ok === true, detail: str(a.detail) ?? '' }));
  }
  if (Array.isArray(v.problems)) {
    r.problems = v.problems
      .filter(isObj)
      .filter((x) => str(x.path) && str(x.message))
      .map((x) => ({
        path: str(x.path)!,
        ...(num(x.line) !== undefined ? { line: num(x.line) } : {}),
        message: str(x.message)!,
        severity: x.severity === 'error' ? ('error' as const) : ('warning' as const),
      }));
  }
  const p = plan(v.plan);
  if (p) r.plan = p;
  return r;
}

function sanitizeDoc(v: unknown): ResultsDocument | string {
  if (!isObj(v)) return 'not a JSON object';
  if (v.schema !== RESULTS_SCHEMA) return `schema is ${JSON.stringify(v.schema)}, expected ${RESULTS_SCHEMA}`;
  if (!Array.isArray(v.results)) return 'no results array';
  const runUrl = str(v.runUrl) ?? '';
  return {
    schema: RESULTS_SCHEMA,
    repository: str(v.repository) ?? '',
    prNumber: num(v.prNumber),
    headSha: str(v.headSha),
    runId: str(v.runId) ?? '',
    runAttempt: num(v.runAttempt) ?? 1,
    // Links in the report must lead to this GitHub's runs, not anywhere an artifact says.
    runUrl: /^https:\/\/[^\s()]+\/actions\/runs\/\d+$/.test(runUrl) ? runUrl : '',
    artifactName: (str(v.artifactName) ?? '').replace(/[^A-Za-z0-9._+-]+/g, '_'),
    commentHeader: str(v.commentHeader) ?? '',
    mode: str(v.mode) ?? '',
    result: v.result === 'success' || v.result === 'failure' ? v.result : 'skipped',
    createdAt: str(v.createdAt) ?? '',
    results: [],
  };
}

/**
 * Every results.json under `dir` (as actions/download-artifact lays them out: one folder per
 * artifact, or merged). A package version reported twice (a re-run leg) counts once: the
 * latest attempt wins.
 */
export async function collectResults(dir: string, expect: { repository: string; serverUrl: string }): Promise<CollectedResults> {
  let files: string[];
  try {
    files = await findResultFiles(dir);
  } catch (err) {
    throw new DevpkgError(`results-path ${dir}: cannot read it (${(err as Error).message}); download the result artifacts there first (actions/download-artifact)`);
  }
  const problems: string[] = [];
  const docs: CollectedResults['docs'] = [];
  const byKey = new Map<string, { entry: ReportEntry; rank: string }>();
  for (const file of files) {
    let raw: unknown;
    try {
      raw = JSON.parse(await readFile(file, 'utf8'));
    } catch (err) {
      problems.push(`${file}: not JSON (${(err as Error).message})`);
      continue;
    }
    const doc = sanitizeDoc(raw);
    if (typeof doc === 'string') {
      problems.push(`${file}: ${doc}`);
      continue;
    }
    if (doc.repository !== expect.repository) {
      problems.push(`${file}: results of ${doc.repository || 'an unnamed repository'}, not ${expect.repository}; ignored`);
      continue;
    }
    if (doc.runUrl && !doc.runUrl.startsWith(`${expect.serverUrl}/${expect.repository}/actions/runs/`)) doc.runUrl = '';
    const rawResults = (raw as Obj).results as unknown[];
    rawResults.forEach((rv, i) => {
      const r = sanitizeResult(rv);
      if (typeof r === 'string') {
        problems.push(`${file}: result ${i}: ${r}`);
        return;
      }
      // A relative diagnostics folder lives beside its results.json (the artifact's layout).
      if (r.diagnostics?.dir) {
        const rel = normalize(r.diagnostics.dir);
        r.diagnostics.dir = !isAbsolute(rel) && !rel.startsWith('..') ? join(dirname(file), rel) : '';
      }
      doc.results.push(r);
      const entry: ReportEntry = { result: r, runUrl: doc.runUrl || undefined, artifactName: doc.artifactName || undefined };
      const key = `${r.name}\u0000${r.version}\u0000${r.mode}`;
      const rank = `${String(doc.runAttempt).padStart(6, '0')} ${doc.createdAt}`;
      const prev = byKey.get(key);
      if (!prev || rank > prev.rank) byKey.set(key, { entry, rank });
    });
    docs.push({ file, doc });
  }
  const entries = [...byKey.values()]
    .map((v) => v.entry)
    .sort((a, b) => a.result.name.localeCompare(b.result.name) || a.result.version.localeCompare(b.result.version));
  return { docs, entries, problems };
}
