/**
 * A developer's providers folder is never lost: before devpkg changes or creates a file there it
 * notes it in `<backupDir>/manifest.json` (and copies the original into `<backupDir>/files/`).
 * cleanupProviders undoes exactly that: created files are deleted, changed ones restored.
 */
import { cp, mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { DevpkgError } from '../errors.js';
import { listFiles } from './files.js';

export interface BackupManifest {
  providersDir: string;
  /** Files devpkg created (relative to providersDir). */
  created: string[];
  /** Folders devpkg created, outermost first. */
  createdDirs: string[];
  /** Files devpkg changed or removed; the originals are in files/<rel>. */
  changed: string[];
}

export const MANIFEST = 'manifest.json';

async function exists(p: string): Promise<boolean> {
  try {
    await stat(p);
    return true;
  } catch {
    return false;
  }
}

export class ProvidersBackup {
  private constructor(
    readonly backupDir: string,
    private readonly m: BackupManifest,
  ) {}

  /** Starts an empty backup (call after recording the CleanupList item, before any change). */
  static async start(backupDir: string, providersDir: string): Promise<ProvidersBackup> {
    await mkdir(path.join(backupDir, 'files'), { recursive: true });
    const b = new ProvidersBackup(backupDir, { providersDir, created: [], createdDirs: [], changed: [] });
    await b.save();
    return b;
  }

  static async load(backupDir: string): Promise<BackupManifest> {
    try {
      return JSON.parse(await readFile(path.join(backupDir, MANIFEST), 'utf8')) as BackupManifest;
    } catch (err) {
      throw new DevpkgError(`providers backup ${backupDir} has no readable ${MANIFEST}: ${(err as Error).message}`, { cause: err });
    }
  }

  manifest(): BackupManifest {
    return structuredClone(this.m);
  }

  private async save(): Promise<void> {
    await writeFile(path.join(this.backupDir, MANIFEST), `${JSON.stringify(this.m, null, 2)}\n`);
  }

  private abs(rel: string): string {
    return path.join(this.m.providersDir, rel);
  }

  /** Notes (and copies) a file before it is changed or removed; notes a file about to be created. */
  private async note(rel: string): Promise<void> {
    if (this.m.created.includes(rel) || this.m.changed.includes(rel)) return;
    if (await exists(this.abs(rel))) {
      const copy = path.join(this.backupDir, 'files', rel);
      await mkdir(path.dirname(copy), { recursive: true });
      await cp(this.abs(rel), copy);
      this.m.changed.push(rel);
    } else {
      // Folders that do not exist yet are ours too.
      const missing: string[] = [];
      for (let d = path.dirname(rel); d !== '.' && d !== path.sep && !(await exists(this.abs(d))); d = path.dirname(d)) missing.unshift(d);
      for (const d of missing) if (!this.m.createdDirs.includes(d)) this.m.createdDirs.push(d);
      this.m.created.push(rel);
    }
  }

  /** Writes one file (relative to the providers folder), backed up first. */
  async writeFile(rel: string, content: string): Promise<void> {
    await this.note(rel);
    await this.save();
    await mkdir(path.dirname(this.abs(rel)), { recursive: true });
    await writeFile(this.abs(rel), content);
  }

  /** Replaces the content of a folder with a copy of `source`; returns what changed. */
  async replaceDir(rel: string, source: string): Promise<{ added: string[]; removed: string[]; changed: string[]; same: string[] }> {
    const before = await listFiles(this.abs(rel));
    const after = await listFiles(source);
    const result = { added: [] as string[], removed: [] as string[], changed: [] as string[], same: [] as string[] };
    for (const f of after) {
      if (!before.includes(f)) result.added.push(f);
      else if ((await readFile(path.join(source, f))).equals(await readFile(path.join(this.abs(rel), f)))) result.same.push(f);
      else result.changed.push(f);
    }
    for (const f of before) if (!after.includes(f)) result.removed.push(f);
    for (const f of new Set([...before, ...after])) await this.note(path.join(rel, f));
    await this.save();
    await rm(this.abs(rel), { recursive: true, force: true });
    await mkdir(this.abs(rel), { recursive: true });
    await cp(source, this.abs(rel), { recursive: true });
    return result;
  }
}

/**
 * Undoes a backup: deletes what devpkg created, restores what it changed, removes the folders it
 * made when they are empty again, then the backup itself. Returns a line per action for the log.
 */
export async function restoreBackup(backupDir: string, providersDir?: string): Promise<string[]> {
  // Recorded but never started (the run died before its first change): nothing to undo.
  if (!(await exists(backupDir))) return [];
  const m = await ProvidersBackup.load(backupDir);
  const root = providersDir ?? m.providersDir;
  const done: string[] = [];
  for (const rel of m.created) {
    await rm(path.join(root, rel), { force: true });
    done.push(`deleted ${rel}`);
  }
  for (const rel of m.changed) {
    await mkdir(path.dirname(path.join(root, rel)), { recursive: true });
    await cp(path.join(backupDir, 'files', rel), path.join(root, rel));
    done.push(`restored ${rel}`);
  }
  for (const d of [...m.createdDirs].reverse()) {
    const entries = await readdir(path.join(root, d)).catch(() => undefined);
    if (entries && entries.length === 0) await rm(path.join(root, d), { recursive: true, force: true });
  }
  await rm(backupDir, { recursive: true, force: true });
  return done;
}

/** "deleted a, b; restored 12 file(s) under x" : one line for the log. */
export function summarizeRestore(done: string[]): string {
  const deleted = done.filter((d) => d.startsWith('deleted ')).map((d) => d.slice(8));
  const restored = done.filter((d) => d.startsWith('restored ')).map((d) => d.slice(9));
  const parts: string[] = [];
  if (deleted.length) parts.push(`deleted ${deleted.join(', ')}`);
  if (restored.length) {
    const dirs = [...new Set(restored.map((r) => r.split('/_ytt_lib/')[0] + (r.includes('/_ytt_lib/') ? '/_ytt_lib/...' : '')))];
    parts.push(restored.length > 3 ? `restored ${restored.length} files (${dirs.join(', ')})` : `restored ${restored.join(', ')}`);
  }
  return parts.join('; ') || 'nothing to undo';
}
