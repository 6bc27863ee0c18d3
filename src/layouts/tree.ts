import { mkdir, mkdtemp, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fsReader, type TreeReader } from './tce-folders.js';
import type { Tree } from './types.js';

/** Folders no layout looks into. */
const SKIP = new Set(['.git', 'node_modules', '.devpkg']);

async function walk(root: string, rel: string, out: string[]): Promise<void> {
  let entries;
  try {
    entries = await readdir(path.join(root, rel), { withFileTypes: true });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    // A file named as a path is listed as itself (as git ls-tree lists it).
    if (code === 'ENOTDIR' && rel !== '' && (await stat(path.join(root, rel)).then((s) => s.isFile(), () => false))) out.push(rel);
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

/** Working trees made by workTree: their reader is the disk itself (empty folders included). */
const WORK_TREES = new WeakSet<Tree>();

/** The working tree below `root` (or a folder exported from a commit, labelled with it). */
export function workTree(root: string, label = 'the working tree'): Tree & { root: string } {
  const tree: Tree & { root: string } = {
    label,
    root,
    async files(paths = []) {
      const out: string[] = [];
      await Promise.all((paths.length ? paths : ['']).map((p) => walk(root, p.replace(/\/+$/, ''), out)));
      return out.sort();
    },
    read: (file) => readFile(path.join(root, file), 'utf8').catch(() => undefined),
    // The working tree's own folder: what is on disk is what is pushed.
    folder: async (folder) => {
      const p = path.join(root, folder);
      return (await stat(p).then((s) => s.isDirectory(), () => false)) ? p : undefined;
    },
  };
  WORK_TREES.add(tree);
  return tree;
}

/** What commitTree needs of git (tools/git.ts's Git). */
export interface CommitReader {
  repoDir?: string;
  listFiles(ref: string, paths?: readonly string[]): Promise<string[]>;
  tryShow(ref: string, p: string): Promise<string | undefined>;
  exportFolder?(ref: string, folder: string, dest: string): Promise<boolean>;
}

/** The repository at a commit, read through git. */
export function commitTree(git: CommitReader, ref: string): Tree {
  return {
    label: ref.slice(0, 12),
    ref,
    ...(git.repoDir ? { root: git.repoDir } : {}),
    files: (paths = []) => git.listFiles(ref, paths),
    read: (file) => git.tryShow(ref, file),
    // Exported from the commit, never taken from the working tree (which may hold another commit).
    async folder(folder, tmp) {
      if (!git.exportFolder) throw new Error(`${ref.slice(0, 12)}: this git reader cannot export folders`);
      const dest = await mkdtemp(path.join(tmp, 'tree-'));
      return (await git.exportFolder(ref, folder, dest)) ? path.join(dest, folder) : undefined;
    },
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
    async folder(folder, tmp) {
      const mine = Object.keys(files).filter((f) => isUnder(f, folder));
      if (mine.length === 0) return undefined;
      const dest = await mkdtemp(path.join(tmp, 'memory-'));
      for (const f of mine) {
        await mkdir(path.dirname(path.join(dest, f)), { recursive: true });
        await writeFile(path.join(dest, f), files[f]!);
      }
      return path.join(dest, folder);
    },
  };
}

/**
 * The layout code's TreeReader (tce-folders.ts) over a Tree: paths relative to the tree's
 * root ('' for the root itself, as `path.join('', x)` gives them), every read through the tree.
 */
export function treeReader(tree: Tree): TreeReader {
  if (WORK_TREES.has(tree) && tree.root !== undefined) {
    // The working tree is the folder on disk: read it there (an empty folder is something to name).
    const root = tree.root;
    return {
      list: (dir) => fsReader.list(path.join(root, dir)),
      readText: (file) => fsReader.readText(path.join(root, file)),
      exists: (p) => fsReader.exists!(path.join(root, p)),
    };
  }
  const norm = (p: string) => {
    const x = path.posix.normalize(p.replaceAll('\\', '/')).replace(/\/+$/, '');
    return x === '.' ? '' : x.replace(/^\.\//, '');
  };
  const listings = new Map<string, Promise<string[]>>();
  const filesUnder = (dir: string) => {
    // A folder below one already listed is answered from that listing.
    for (const [d, l] of listings) if (isUnder(dir, d)) return l.then((fs) => fs.filter((f) => isUnder(f, dir) && f !== dir));
    const l = tree.files(dir === '' ? [] : [dir]).then((fs) => fs.filter((f) => f !== dir));
    listings.set(dir, l);
    return l;
  };
  const list = async (p: string) => {
    const dir = norm(p);
    const dirs = new Set<string>();
    const out: string[] = [];
    for (const f of await filesUnder(dir)) {
      const rest = dir === '' ? f : f.slice(dir.length + 1);
      const slash = rest.indexOf('/');
      if (slash < 0) out.push(rest);
      else dirs.add(rest.slice(0, slash));
    }
    return { dirs: [...dirs], files: out };
  };
  return {
    list,
    async readText(file) {
      const text = await tree.read(norm(file));
      if (text === undefined) throw Object.assign(new Error(`${norm(file)}: not in ${tree.label}`), { code: 'ENOENT' });
      return text;
    },
    exists: async (p) => {
      const l = await list(p);
      return l.dirs.length + l.files.length > 0 || (await tree.read(norm(p))) !== undefined;
    },
  };
}

/** Whether `file` is `dir` or below it ('' is the root). */
export function isUnder(file: string, dir: string): boolean {
  return dir === '' || file === dir || file.startsWith(`${dir}/`);
}

/**
 * `folder` (relative to `o.root`, the scope: a monorepo's is a subfolder of the repository) as it
 * was at `ref`, exported into a new folder under `o.tmp` (named `prefix`...) through the run's one
 * `git cat-file --batch`: a tree of that folder on disk, labelled with the commit. Undefined when
 * the folder does not exist at that ref.
 */
export async function folderAtRef(o: { root: string; tmp: string }, ref: string, folder: string, prefix: string): Promise<(Tree & { root: string }) | undefined> {
  const dest = await mkdtemp(path.join(o.tmp, prefix));
  const { exportTree } = await import('../tools/git.js');
  return (await exportTree(o.root, 'git', ref, folder, dest)) ? workTree(dest, ref.slice(0, 12)) : undefined;
}
