import { mkdir, readdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import type { ExecFn } from '../tools/exec.js';
import type { Tree } from './types.js';

/** Folders no layout looks into. */
const SKIP = new Set(['.git', 'node_modules', '.devpkg']);

async function walk(root: string, rel: string, out: string[]): Promise<void> {
  let entries;
  try {
    entries = await readdir(path.join(root, rel), { withFileTypes: true });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return;
    throw err;
  }
  // A folder below the root with its own .git is another repository (a checkout of the devpkg action
  // at .devpkg-action, a tool cloned into the workspace): git does not list it, and neither do we.
  if (rel !== '' && entries.some((e) => e.name === '.git')) return;
  const dirs: string[] = [];
  for (const e of entries) {
    const p = rel === '' ? e.name : `${rel}/${e.name}`;
    if (e.isDirectory()) {
      if (!SKIP.has(e.name)) dirs.push(p);
    } else out.push(p);
  }
  await Promise.all(dirs.map((d) => walk(root, d, out)));
}

/** The working tree below `root`. */
export function workTree(root: string): Tree & { root: string } {
  return {
    label: 'the working tree',
    root,
    async files(paths = []) {
      const out: string[] = [];
      await Promise.all((paths.length ? paths : ['']).map((p) => walk(root, p.replace(/\/+$/, ''), out)));
      return out.sort();
    },
    read: (file) => readFile(path.join(root, file), 'utf8').catch(() => undefined),
  };
}

/** The repository at a commit, read through git. */
export function commitTree(
  git: { repoDir?: string; listFiles(ref: string, paths?: readonly string[]): Promise<string[]>; tryShow(ref: string, p: string): Promise<string | undefined> },
  ref: string,
): Tree {
  return {
    label: ref.slice(0, 12),
    ref,
    ...(git.repoDir ? { root: git.repoDir } : {}),
    files: (paths = []) => git.listFiles(ref, paths),
    read: (file) => git.tryShow(ref, file),
  };
}

/** An in-memory tree (tests, and files already read). */
export function memoryTree(files: Record<string, string>, label = 'memory'): Tree & { root: string } {
  return {
    label,
    root: '/memory',
    files: async (paths = []) =>
      Object.keys(files)
        .filter((f) => paths.length === 0 || paths.some((p) => p === '' || f === p || f.startsWith(`${p.replace(/\/+$/, '')}/`)))
        .sort(),
    read: async (file) => files[file],
  };
}

/** Whether `file` is `dir` or below it ('' is the root). */
export function isUnder(file: string, dir: string): boolean {
  return dir === '' || file === dir || file.startsWith(`${dir}/`);
}

/**
 * Copies `folder` (relative to the repository root) as it was at `ref` into `dest` with git
 * archive + tar (no shell). Returns false when the folder does not exist at that ref.
 */
export async function exportFolderAtRef(exec: ExecFn, root: string, ref: string, folder: string, dest: string): Promise<boolean> {
  const ls = await exec('git', ['-C', root, 'ls-tree', '-d', '--name-only', ref, '--', folder === '' ? '.' : folder], { allowFail: true });
  if (ls.code !== 0 || ls.stdout.trim() === '') return false;
  await mkdir(dest, { recursive: true });
  const tar = path.join(dest, '.devpkg-export.tar');
  await exec('git', ['-C', root, 'archive', '--format=tar', '-o', tar, ref, '--', folder === '' ? '.' : folder]);
  await exec('tar', ['-xf', tar, '-C', dest]);
  await rm(tar, { force: true });
  return true;
}
