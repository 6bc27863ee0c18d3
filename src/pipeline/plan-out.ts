/**
 * `plan --out DIR`: the plan's folder. Everything is written into a temporary folder beside DIR
 * and renamed into place at the end, so a failed plan leaves nothing half-written. DIR may be
 * new, empty, or the folder of an earlier plan (it holds devpkg-plan.json), which is replaced
 * whole; any other folder is refused.
 */
import { mkdir, mkdtemp, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { UsageError } from '../errors.js';
import type { PlannedPackage } from '../results.js';

/** The file that marks a plan's folder (the plan as --json prints it). */
export const PLAN_MARKER = 'devpkg-plan.json';

const isUnderOrSame = (child: string, parent: string) => {
  const rel = path.relative(parent, child);
  return rel === '' || (!rel.startsWith(`..${path.sep}`) && rel !== '..' && !path.isAbsolute(rel));
};

/** Refuses an --out folder that cannot be (re)written, before anything is planned. */
export async function checkOutDir(dir: string, root: string, flag = '--out'): Promise<void> {
  if (isUnderOrSame(root, dir)) throw new UsageError(`${flag}: ${dir} holds the repository ${root}; give a folder of its own for the plan's files, e.g. ${flag} devpkg-plan`);
  const parent = path.dirname(dir);
  const parentIsDir = await stat(parent).then((s) => s.isDirectory(), () => false);
  if (!parentIsDir) throw new UsageError(`${flag}: ${parent} does not exist; create it first, or choose another folder for ${path.basename(dir)}`);
  const st = await stat(dir).catch(() => undefined);
  if (!st) return;
  if (!st.isDirectory()) throw new UsageError(`${flag}: ${dir} is a file; give a folder (new, empty, or an earlier plan's)`);
  const entries = await readdir(dir);
  if (entries.length === 0 || entries.includes(PLAN_MARKER)) return;
  throw new UsageError(`${flag}: ${dir} is not empty and is not an earlier plan's folder (no ${PLAN_MARKER} in it); give a new or empty folder, or remove it`);
}

/** The temporary folder beside DIR that becomes DIR (the bundles are built into it first). */
export async function stagePlanDir(dir: string): Promise<string> {
  return mkdtemp(path.join(path.dirname(dir), `.${path.basename(dir)}.devpkg-`));
}

/**
 * Writes each planned package's files into the staged folder, then the marker, and renames the
 * staged folder to DIR (an earlier plan's folder is moved aside and removed).
 */
export async function finishPlanDir(stage: string, dir: string, packages: readonly PlannedPackage[], marker: unknown): Promise<void> {
  for (const p of packages) {
    const plan = p.plan;
    if (!plan) continue;
    for (const f of plan.files ?? []) {
      if (f.what === 'bundle') continue; // built there already
      const file = path.join(stage, f.path);
      await mkdir(path.dirname(file), { recursive: true });
      await writeFile(file, f.what === 'devPackage' ? plan.packageYaml : plan.overlay);
    }
  }
  await writeFile(path.join(stage, PLAN_MARKER), JSON.stringify(marker, null, 2) + '\n');
  const old = await stat(dir).then(() => `${stage}.old`, () => undefined);
  if (old) await rename(dir, old);
  try {
    await rename(stage, dir);
  } catch (err) {
    if (old) await rename(old, dir);
    throw err;
  }
  if (old) await rm(old, { recursive: true, force: true });
}

/** Removes the staged folder after a failure (nothing half-written stays). */
export async function dropStage(stage: string): Promise<void> {
  await rm(stage, { recursive: true, force: true });
}
