/**
 * The one door for results another job wrote (a matrix leg, or a fork pull request's run seen
 * from a privileged workflow_run job): a results.json is parsed, checked against the schema and
 * cleaned here, and everything after this works on what it returns. Pure: collect.ts reads the
 * files.
 *
 * What "clean" means here is what holds in every place a value goes (the log, the job summary,
 * the comment, the results output): no control characters (ANSI escapes, NUL, \r, bidi
 * overrides), no line that the runner would read as a workflow command (`::set-output`,
 * `::add-mask`, `::stop-commands`, `##[...]`), bounded length with a note where it was cut, and
 * only the types and values the schema names. Escaping for markdown, HTML and Mermaid is not
 * done here: it depends on where a value lands, and render.ts does it through markdown.ts.
 */
import { MODES, VERDICT_NAMES, type Mode, type PlanDetails, type PlannedPackage, type TimelineEntry, type Verdict } from '../results.js';
import { RESULTS_SCHEMA, type ResultsDocument } from './artifact.js';

/** The limits on what is read; docs/workflows.md (pull requests from forks) names them. */
export const UNTRUSTED_LIMITS = {
  /** A results.json larger than this (bytes) is refused without reading it. */
  fileBytes: 1024 * 1024,
  /** A text field: longer ones are cut, with a note. */
  fieldChars: 4096,
  /** A block (diagnostics excerpt, dev Package YAML, overlay): longer ones are cut, with a note. */
  blockChars: 16384,
  /** Package results in one file: a file with more is refused (no change touches that many). */
  results: 256,
  /** Entries of one list (timeline, phases, assertions, problems, commands): the rest are cut, with a note. */
  listItems: 500,
} as const;

// CSI (ESC [ ... final), OSC (ESC ] ... BEL or ESC \), and two-character escapes.
// eslint-disable-next-line no-control-regex -- matching control characters is this module's job
const ANSI = /\u001b(?:\[[0-?]*[ -/]*[@-~]?|\][^\u0007\u001b]*(?:\u0007|\u001b\\)?|[@-Z\\-_])?|\u009b[0-?]*[ -/]*[@-~]?/g;
// C0 but tab and newline, DEL, C1, and the bidi marks, embeddings, overrides and isolates.
// eslint-disable-next-line no-control-regex -- as above
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * Text with nothing a terminal, the runner or a reader would act on: ANSI escapes and control
 * characters removed, line ends made `\n` (one line: spaces), and `::` at a line's start or
 * `##[` anywhere broken by a zero-width space, so no line of it is a workflow command even
 * when it is logged (the runner trims leading whitespace before it looks for `::`).
 */
export function cleanText(s: string, multiline = false): string {
  let out = s
    .replace(LONE_SURROGATE, '\uFFFD')
    .replace(ANSI, '')
    .replace(/\r\n?|[\u2028\u2029\u0085]/g, '\n')
    .replace(CONTROL, '');
  if (!multiline) out = out.replace(/[\n\t]+/g, ' ');
  return out.replace(/^([^\S\n]*)::/gm, '$1\u200b::').replace(/##\[/g, '##\u200b[');
}

/** Cuts `s` to `max` characters, the note counted in, at a character boundary. */
export function cutText(s: string, max: number): { text: string; cut: number } {
  if (s.length <= max) return { text: s, cut: 0 };
  const note = (n: number): string => ` … (${n} characters cut by devpkg: the limit is ${max})`;
  let room = Math.max(0, max - note(s.length).length);
  if (/[\uD800-\uDBFF]/.test(s[room - 1] ?? '')) room -= 1;
  const cut = s.length - room;
  return { text: s.slice(0, room) + note(cut), cut };
}

/** A results file that was read: the document, and what was cut while reading it. */
export interface ReadDocument {
  doc: ResultsDocument;
  notes: string[];
}

/** Why a results file was refused: the first few places it breaks the schema. */
export interface Refusal {
  refused: string;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const MAX_ERRORS = 5;

/** A walk over one untrusted document that records every violation and every cut by path. */
class Reader {
  readonly errors: string[] = [];
  readonly notes: string[] = [];

  fail(path: string, what: string): undefined {
    if (this.errors.length < MAX_ERRORS) this.errors.push(`${path}: ${what}`);
    return undefined;
  }

  private text(v: string, path: string, max: number, multiline: boolean): string {
    const { text, cut } = cutText(cleanText(v, multiline), max);
    if (cut > 0) this.notes.push(`${path} was cut to ${max} characters (${cut} cut)`);
    return text;
  }

  /** An optional string (absent stays absent; any other type is a violation). */
  str(o: Obj, key: string, path: string, opts: { max?: number; multiline?: boolean } = {}): string | undefined {
    const v = o[key];
    if (v === undefined) return undefined;
    if (typeof v !== 'string') return this.fail(`${path}.${key}`, `${typeof v === 'object' ? (v === null ? 'null' : Array.isArray(v) ? 'an array' : 'an object') : `a ${typeof v}`}, expected a string`);
    return this.text(v, `${path}.${key}`, opts.max ?? UNTRUSTED_LIMITS.fieldChars, opts.multiline ?? false);
  }

  need(o: Obj, key: string, path: string, opts: { max?: number; multiline?: boolean } = {}): string {
    const s = this.str(o, key, path, opts);
    if (s === undefined && o[key] === undefined) this.fail(`${path}.${key}`, 'missing');
    return s ?? '';
  }

  num(o: Obj, key: string, path: string, integer = true): number | undefined {
    const v = o[key];
    if (v === undefined) return undefined;
    if (typeof v !== 'number' || !Number.isFinite(v) || (integer && !Number.isSafeInteger(v))) return this.fail(`${path}.${key}`, `${JSON.stringify(v)?.slice(0, 40)}, expected ${integer ? 'an integer' : 'a number'}`);
    return v;
  }

  oneOf<T extends string>(o: Obj, key: string, path: string, allowed: readonly T[], required: boolean): T | undefined {
    const v = o[key];
    if (v === undefined) return required ? this.fail(`${path}.${key}`, 'missing') : undefined;
    if (typeof v === 'string' && (allowed as readonly string[]).includes(v)) return v as T;
    return this.fail(`${path}.${key}`, `${cutText(cleanText(JSON.stringify(v) ?? String(v)), 60).text} is not one of ${allowed.join(', ')}`);
  }

  /** An optional list; each item read by `item` (undefined items are violations it recorded). */
  list<T>(o: Obj, key: string, path: string, item: (v: unknown, path: string) => T | undefined): T[] | undefined {
    const v = o[key];
    if (v === undefined) return undefined;
    if (!Array.isArray(v)) return this.fail(`${path}.${key}`, 'expected an array');
    const max = UNTRUSTED_LIMITS.listItems;
    // A long watch keeps its last changes (the ones that decided the verdict).
    const kept = key === 'timeline' ? v.slice(-max) : v.slice(0, max);
    if (v.length > max) this.notes.push(`${path}.${key} had ${v.length} entries; ${key === 'timeline' ? 'the last' : 'the first'} ${max} were kept`);
    const out: T[] = [];
    kept.forEach((x, i) => {
      const r = item(x, `${path}.${key}[${key === 'timeline' ? v.length - kept.length + i : i}]`);
      if (r !== undefined) out.push(r);
    });
    return out;
  }

  /** An optional list of strings (plan commands, step names), each cleaned and cut to a field's length. */
  stringList(o: Obj, key: string, path: string): string[] | undefined {
    return this.list(o, key, path, (x, p) => (typeof x === 'string' ? cutText(cleanText(x), UNTRUSTED_LIMITS.fieldChars).text : this.fail(p, 'expected a string')));
  }

  obj(v: unknown, path: string): Obj | undefined {
    return isObj(v) ? v : this.fail(path, 'expected an object');
  }
}

function timelineEntry(rd: Reader, v: unknown, path: string): TimelineEntry | undefined {
  const o = rd.obj(v, path);
  if (!o) return undefined;
  return {
    at: rd.need(o, 'at', path),
    object: rd.need(o, 'object', path),
    generation: rd.num(o, 'generation', path),
    observedGeneration: rd.num(o, 'observedGeneration', path),
    condition: rd.str(o, 'condition', path),
    version: rd.str(o, 'version', path),
    lastAttemptedVersion: rd.str(o, 'lastAttemptedVersion', path),
    message: rd.str(o, 'message', path, { multiline: true }),
  };
}

function planOf(rd: Reader, v: unknown, path: string): PlanDetails | undefined {
  const o = rd.obj(v, path);
  if (!o) return undefined;
  const block = { max: UNTRUSTED_LIMITS.blockChars, multiline: true };
  return {
    path: rd.str(o, 'path', path) ?? '',
    devPackageName: rd.str(o, 'devPackageName', path) ?? '',
    bundleTag: rd.str(o, 'bundleTag', path) ?? '',
    bundleImage: rd.str(o, 'bundleImage', path) ?? '',
    devVersionReason: rd.str(o, 'devVersionReason', path, { multiline: true }) ?? '',
    packageYaml: rd.str(o, 'packageYaml', path, block) ?? '',
    overlay: rd.str(o, 'overlay', path, block) ?? '',
    overlayPath: rd.str(o, 'overlayPath', path) ?? '',
    commands: rd.stringList(o, 'commands', path) ?? [],
  };
}

/**
 * A diagnostics folder as the artifact names it: relative, inside the artifact. `..`, an
 * absolute path or a drive letter is refused (the report copies this folder).
 */
export function artifactRelativePath(p: string): string | undefined {
  const parts = p.replace(/\\/g, '/').split('/');
  if (p === '' || p.startsWith('/') || p.startsWith('\\') || /^[A-Za-z]:/.test(p) || parts.includes('..') || p.includes('\u0000')) return undefined;
  return parts.filter((x) => x !== '' && x !== '.').join('/');
}

function result(rd: Reader, v: unknown, path: string): PlannedPackage | undefined {
  const o = rd.obj(v, path);
  if (!o) return undefined;
  const verdict = rd.oneOf<Verdict>(o, 'verdict', path, VERDICT_NAMES, true);
  const mode = rd.oneOf<Mode>(o, 'mode', path, MODES, true);
  const r: PlannedPackage = {
    name: rd.need(o, 'name', path),
    version: rd.need(o, 'version', path),
    refName: rd.str(o, 'refName', path),
    targetRefName: rd.str(o, 'targetRefName', path),
    releasedVersion: rd.str(o, 'releasedVersion', path),
    devVersion: rd.str(o, 'devVersion', path),
    bundle: rd.str(o, 'bundle', path),
    mode: mode ?? 'report',
    verdict: verdict ?? 'error',
    reason: rd.str(o, 'reason', path, { multiline: true }) ?? '',
    timeline: rd.list(o, 'timeline', path, (x, p) => timelineEntry(rd, x, p)) ?? [],
  };
  if (!r.targetRefName) r.targetRefName = r.refName;
  if (r.name === '' && o.name !== undefined) rd.fail(`${path}.name`, 'empty');
  // Only an error result may lack its dev version (it stopped before one was planned).
  if (r.devVersion === undefined && verdict !== undefined && verdict !== 'error') rd.fail(`${path}.devVersion`, `missing (only an error result may lack it)`);
  const releasedFrom = rd.str(o, 'releasedFrom', path);
  if (releasedFrom) r.releasedFrom = releasedFrom;
  const unknown = rd.list(o, 'unknown', path, (u, p) => (u === 'refName' || u === 'targetRefName' || u === 'devVersion' ? u : rd.fail(p, 'expected refName, targetRefName or devVersion')));
  if (unknown?.length) r.unknown = unknown;
  const phases = rd.list(o, 'phases', path, (x, p) => {
    const po = rd.obj(x, p);
    if (!po) return undefined;
    const detail = rd.str(po, 'detail', p, { multiline: true });
    return { name: rd.need(po, 'name', p), startedAt: rd.str(po, 'startedAt', p), seenAt: rd.str(po, 'seenAt', p), ...(detail ? { detail } : {}) };
  });
  if (phases) r.phases = phases;
  const steps = rd.list(o, 'steps', path, (x, p) => {
    const so = rd.obj(x, p);
    if (!so) return undefined;
    const startedAt = rd.str(so, 'startedAt', p);
    const finishedAt = rd.str(so, 'finishedAt', p);
    const error = rd.str(so, 'error', p, { multiline: true });
    return {
      name: rd.need(so, 'name', p),
      state: rd.oneOf(so, 'state', p, ['done', 'failed', 'cancelled'] as const, true) ?? 'failed',
      needs: rd.stringList(so, 'needs', p) ?? [],
      ...(startedAt ? { startedAt } : {}),
      ...(finishedAt ? { finishedAt } : {}),
      waitedOn: rd.stringList(so, 'waitedOn', p) ?? [],
      ...(error ? { error } : {}),
    };
  });
  if (steps) r.steps = steps;
  if (o.diagnostics !== undefined) {
    const d = rd.obj(o.diagnostics, `${path}.diagnostics`);
    if (d) {
      const dir = rd.str(d, 'dir', `${path}.diagnostics`) ?? '';
      const rel = dir === '' ? '' : artifactRelativePath(dir);
      if (rel === undefined) rd.fail(`${path}.diagnostics.dir`, `${JSON.stringify(dir)} is not a path inside the artifact (absolute or with ..): refused`);
      r.diagnostics = { dir: rel ?? '', excerpt: rd.str(d, 'excerpt', `${path}.diagnostics`, { max: UNTRUSTED_LIMITS.blockChars, multiline: true }) ?? '' };
    }
  }
  const assertions = rd.list(o, 'assertions', path, (x, p) => {
    const a = rd.obj(x, p);
    if (!a) return undefined;
    if (a.ok !== undefined && typeof a.ok !== 'boolean') rd.fail(`${p}.ok`, 'expected true or false');
    return { description: rd.str(a, 'description', p) ?? '', ok: a.ok === true, detail: rd.str(a, 'detail', p, { multiline: true }) ?? '' };
  });
  if (assertions) r.assertions = assertions;
  const problems = rd.list(o, 'problems', path, (x, p) => {
    const po = rd.obj(x, p);
    if (!po) return undefined;
    const line = rd.num(po, 'line', p);
    const severity = rd.oneOf(po, 'severity', p, ['error', 'warning'] as const, false) ?? 'warning';
    return { path: rd.need(po, 'path', p), ...(line !== undefined ? { line } : {}), message: rd.need(po, 'message', p, { multiline: true }), severity };
  });
  if (problems) r.problems = problems;
  if (o.plan !== undefined) {
    const p = planOf(rd, o.plan, `${path}.plan`);
    if (p) r.plan = p;
  }
  return r;
}

/**
 * A parsed results.json, checked and cleaned: the document, or why it is refused. Anything that
 * breaks the schema (a wrong type, a verdict or mode devpkg does not have, a missing field, a
 * diagnostics path leaving the artifact) refuses the whole file: a report that left out the one
 * failed result of a file would be green when the run was not.
 */
export function readResultsDocument(raw: unknown): ReadDocument | Refusal {
  const rd = new Reader();
  if (!isObj(raw)) return { refused: 'not a JSON object' };
  if (raw.schema !== RESULTS_SCHEMA) return { refused: `schema is ${cutText(cleanText(JSON.stringify(raw.schema) ?? 'missing'), 60).text}, expected ${RESULTS_SCHEMA}` };
  if (!Array.isArray(raw.results)) return { refused: 'results: expected an array' };
  if (raw.results.length > UNTRUSTED_LIMITS.results) return { refused: `results: ${raw.results.length} package results, more than the ${UNTRUSTED_LIMITS.results} devpkg reads from one file` };
  const runUrl = rd.str(raw, 'runUrl', '$') ?? '';
  const runAttempt = rd.num(raw, 'runAttempt', '$') ?? 1;
  const prNumber = rd.num(raw, 'prNumber', '$');
  if (prNumber !== undefined && prNumber < 1) rd.fail('$.prNumber', 'expected a pull request number');
  const runId = raw.runId === undefined || typeof raw.runId === 'number' ? String(raw.runId ?? '') : rd.str(raw, 'runId', '$') ?? '';
  const doc: ResultsDocument = {
    schema: RESULTS_SCHEMA,
    repository: rd.str(raw, 'repository', '$') ?? '',
    prNumber,
    headSha: rd.str(raw, 'headSha', '$'),
    runId,
    runAttempt,
    // Links in the report must lead to this GitHub's runs; collect.ts checks the prefix.
    runUrl: /^https:\/\/[^\s()<>]+\/actions\/runs\/\d+$/.test(runUrl) ? runUrl : '',
    artifactName: (rd.str(raw, 'artifactName', '$') ?? '').replace(/[^A-Za-z0-9._+-]+/g, '_'),
    commentHeader: rd.str(raw, 'commentHeader', '$') ?? '',
    mode: rd.str(raw, 'mode', '$') ?? '',
    result: rd.oneOf(raw, 'result', '$', ['success', 'failure', 'skipped'] as const, false) ?? 'skipped',
    createdAt: rd.str(raw, 'createdAt', '$') ?? '',
    results: [],
  };
  raw.results.forEach((v, i) => {
    const r = result(rd, v, `results[${i}]`);
    if (r) doc.results.push(r);
  });
  if (rd.errors.length > 0) return { refused: `does not match ${RESULTS_SCHEMA}: ${rd.errors.join('; ')}` };
  return { doc, notes: rd.notes };
}
