/**
 * Reading results.json files that other jobs uploaded (matrix legs, or a fork pull request's
 * run for a workflow_run job). Their content is untrusted: a fork controls what its run
 * uploads. This is where it enters: the folder is walked without following links, each file
 * is size-checked, parsed and handed to untrusted.ts (schema and cleaning), and only what that
 * returns goes on. A file that cannot be read is named in `unreadable`, which the report shows
 * as an error (never as a shorter green report). The pull request number is checked against
 * the triggering run before anything is posted (modes/report.ts).
 */
import { lstat, readdir, readFile, realpath } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import { DevpkgError } from '../errors.js';
import { RESULTS_FILE, type ResultsDocument } from './artifact.js';
import type { ReportEntry } from './render.js';
import { cleanText, cutText, readResultsDocument, UNTRUSTED_LIMITS } from './untrusted.js';

/** A file of the artifacts that was refused: its path below results-path (cleaned) and why. */
export interface Unreadable {
  file: string;
  reason: string;
}

export interface CollectedResults {
  docs: Array<{ file: string; doc: ResultsDocument }>;
  entries: ReportEntry[];
  /** What was wrong or cut, one line each, for the log. */
  problems: string[];
  /** Files refused: the report says so instead of a verdict for them. */
  unreadable: Unreadable[];
  /** What was cut while reading (fields, lists), for the report's note. */
  cuts: string[];
}

const MAX_DEPTH = 4;

/** A path below `root` as the report may show it (one line, no control characters, bounded). */
function shown(root: string, p: string): string {
  return cutText(cleanText(relative(root, p).split(sep).join('/') || '.'), 300).text;
}

/** results.json files below `dir`, and every symbolic link met (refused: nothing follows them). */
async function findResultFiles(dir: string, depth = 0): Promise<{ files: string[]; links: string[] }> {
  const files: string[] = [];
  const links: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isSymbolicLink()) links.push(p);
    else if (e.isFile() && e.name === RESULTS_FILE) files.push(p);
    else if (e.isDirectory() && depth < MAX_DEPTH) {
      const below = await findResultFiles(p, depth + 1);
      files.push(...below.files);
      links.push(...below.links);
    }
  }
  return { files: files.sort(), links: links.sort() };
}

/**
 * Every results.json under `dir` (as actions/download-artifact lays them out: one folder per
 * artifact, or merged). A package version reported twice (a re-run leg) counts once: the
 * latest attempt wins.
 */
export async function collectResults(dir: string, expect: { repository: string; serverUrl: string }): Promise<CollectedResults> {
  let found: { files: string[]; links: string[] };
  let root: string;
  try {
    root = await realpath(dir);
    found = await findResultFiles(dir);
  } catch (err) {
    throw new DevpkgError(`results-path ${dir}: cannot read it (${(err as Error).message}); download the result artifacts there first (actions/download-artifact)`);
  }
  const problems: string[] = [];
  const cuts: string[] = [];
  const unreadable: Unreadable[] = [];
  const refuse = (file: string, reason: string): void => {
    const u = { file: shown(dir, file), reason: cutText(cleanText(reason), 600).text };
    unreadable.push(u);
    problems.push(`${u.file}: ${u.reason}`);
  };
  for (const link of found.links) refuse(link, 'a symbolic link: refused (an artifact holds files and folders only)');
  const docs: CollectedResults['docs'] = [];
  const byKey = new Map<string, { entry: ReportEntry; rank: string }>();
  for (const file of found.files) {
    let raw: unknown;
    try {
      const size = (await lstat(file)).size;
      if (size > UNTRUSTED_LIMITS.fileBytes) {
        refuse(file, `${size} bytes, more than the ${UNTRUSTED_LIMITS.fileBytes} devpkg reads: refused unread`);
        continue;
      }
      raw = JSON.parse(await readFile(file, 'utf8'));
    } catch (err) {
      refuse(file, `not JSON (${(err as Error).message})`);
      continue;
    }
    const read = readResultsDocument(raw);
    if ('refused' in read) {
      refuse(file, read.refused);
      continue;
    }
    const { doc } = read;
    if (doc.repository !== expect.repository) {
      refuse(file, `results of ${doc.repository || 'an unnamed repository'}, not ${expect.repository}`);
      continue;
    }
    // A diagnostics folder lives beside its results.json (the artifact's layout), and must be a
    // real folder there: not a link, not outside the artifacts.
    let outside = '';
    for (const r of doc.results) {
      if (!r.diagnostics?.dir) continue;
      const at = join(dirname(file), r.diagnostics.dir);
      const real = await realpath(at).catch(() => '');
      // A folder the artifact does not have (the copy failed in that run) is no refusal: no link.
      if (real === '') r.diagnostics.dir = '';
      else if (real !== join(root, relative(dir, at)) || !(await lstat(at)).isDirectory()) outside = shown(dir, at);
      else r.diagnostics.dir = at;
    }
    if (outside) {
      refuse(file, `its diagnostics folder ${outside} is a link or not a folder inside the artifacts: refused`);
      continue;
    }
    if (doc.runUrl && !doc.runUrl.startsWith(`${expect.serverUrl}/${expect.repository}/actions/runs/`)) doc.runUrl = '';
    for (const n of read.notes) cuts.push(`${shown(dir, file)}: ${n}`);
    problems.push(...read.notes.map((n) => `${shown(dir, file)}: ${n}`));
    for (const r of doc.results) {
      const entry: ReportEntry = { result: r, runUrl: doc.runUrl || undefined, artifactName: doc.artifactName || undefined };
      const key = `${r.name}\u0000${r.version}\u0000${r.mode}`;
      const rank = `${String(doc.runAttempt).padStart(6, '0')} ${doc.createdAt}`;
      const prev = byKey.get(key);
      if (!prev || rank > prev.rank) byKey.set(key, { entry, rank });
    }
    docs.push({ file, doc });
  }
  const entries = [...byKey.values()]
    .map((v) => v.entry)
    .sort((a, b) => a.result.name.localeCompare(b.result.name) || a.result.version.localeCompare(b.result.version));
  return { docs, entries, problems, unreadable, cuts };
}
