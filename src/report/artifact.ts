/**
 * The results folder (results.json, report.md, diagnostics/<package>/...). devpkg writes it and
 * names it in the `results-dir` output; the workflow uploads it with actions/upload-artifact
 * (devpkg does not upload artifacts itself), and `mode: report` reads it back from the
 * artifacts that actions/download-artifact fetched.
 */
import { cp, lstat, mkdir, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { PlannedPackage } from '../results.js';
import type { OverallResult } from './render.js';
import { slug } from './render.js';

export const RESULTS_SCHEMA = 'devpkg.results/v1';
export const RESULTS_FILE = 'results.json';

/** results.json. `prNumber` is what a workflow_run report job comments on (after checking it). */
export interface ResultsDocument {
  schema: typeof RESULTS_SCHEMA;
  /** owner/repo of the run that produced the results. */
  repository: string;
  prNumber?: number;
  headSha?: string;
  runId: string;
  runAttempt: number;
  runUrl: string;
  artifactName: string;
  commentHeader: string;
  mode: string;
  result: OverallResult;
  createdAt: string;
  results: PlannedPackage[];
}

export async function listFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...(await listFiles(p)));
    else if (e.isFile()) out.push(p);
  }
  return out.sort();
}

/**
 * Writes the results folder afresh and returns its files. Diagnostics folders are copied in
 * under diagnostics/<name>-<version>/ (so one upload-artifact `path:` holds everything), and each
 * result's diagnostics.dir is rewritten to that relative path in results.json; `lasting` holds
 * the results with the copy's absolute path (the source is often a temp folder removed at exit).
 */
export async function writeResultsFolder(
  dir: string,
  doc: ResultsDocument,
  reportMarkdown: string,
  warn: (message: string) => void,
): Promise<{ files: string[]; lasting: PlannedPackage[] }> {
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  const results: PlannedPackage[] = [];
  const lasting: PlannedPackage[] = [];
  for (const r of doc.results) {
    if (!r.diagnostics?.dir) {
      results.push(r);
      lasting.push(r);
      continue;
    }
    let target = join('diagnostics', slug(r));
    try {
      if (!(await stat(r.diagnostics.dir)).isDirectory()) throw new Error('not a folder');
      // Files and folders only: in report mode the folder is another job's, and a link in it could point anywhere.
      await cp(r.diagnostics.dir, join(dir, target), { recursive: true, filter: async (p) => !(await lstat(p)).isSymbolicLink() });
    } catch (err) {
      warn(`diagnostics of ${r.name} ${r.version}: cannot copy ${r.diagnostics.dir} into the results: ${(err as Error).message}`);
      target = '';
    }
    results.push({ ...r, diagnostics: { ...r.diagnostics, dir: target } });
    lasting.push(target ? { ...r, diagnostics: { ...r.diagnostics, dir: join(dir, target) } } : r);
  }
  await writeFile(join(dir, RESULTS_FILE), JSON.stringify({ ...doc, results }, null, 2) + '\n');
  await writeFile(join(dir, 'report.md'), reportMarkdown);
  return { files: await listFiles(dir), lasting };
}
