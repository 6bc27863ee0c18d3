/**
 * The repository model of a run, worked out once at the edge and handed to detect, plan and every
 * mode: the git top level, the scope (`--repo` / working-directory, any folder of the git
 * repository: monorepos are normal), the layouts, and which tree is read. Git names files
 * relative to its top level; everything past this module sees them relative to the scope.
 */
import { realpath } from 'node:fs/promises';
import path from 'node:path';
import { commitTree, DEFAULT_PACKAGES_DIR, Layouts, normalizePackagesDir, workTree, type ClusterReleasedLookup, type LayoutChoice, type Tree } from '../layouts/index.js';
import type { PackageVersionRef } from '../results.js';
import type { ExecFn } from '../tools/exec.js';
import type { Git } from '../tools/git.js';

export { DEFAULT_PACKAGES_DIR } from '../layouts/index.js';

export interface RepoOptions {
  /** The scope: the folder the packages repository is (absolute). */
  root: string;
  layout?: LayoutChoice;
  packagesDir?: string;
  /** kctrl: the released version git does not hold. */
  releasedVersion?: string;
  /** Cluster mode: the released version from the cluster's Packages. */
  clusterReleased?: ClusterReleasedLookup;
  exec?: ExecFn;
  /** Layouts already opened (tests); else opened here from layout, packagesDir and releasedVersion. */
  layouts?: Layouts;
  /** How the settings are called where they came from (flags or inputs), for messages. */
  names?: { layout: string; packagesDir: string };
}

/** Which tree a run reads: the working tree of the scope, or the scope at a commit. */
export type TreeChoice = { kind: 'work' } | { kind: 'commit'; ref: string };

export interface Repo {
  /** The scope, absolute: where layouts, packages-dir and printed paths start. */
  root: string;
  /** The git top level holding the scope; undefined outside any git repository. */
  top?: string;
  /** The scope relative to the top level, with `/` ('' when it is the top level). */
  prefix: string;
  layouts: Layouts;
  choice: LayoutChoice;
  packagesDir: string;
  /** The working tree of the scope. */
  tree: Tree & { root: string };
  names: { layout: string; packagesDir: string };
  exec?: ExecFn;
  /** Git, run in the scope (one per repository). */
  git(): Promise<Git>;
  /** The scope as it is at a commit: files named relative to the scope, read through git. */
  at(commit: string): Promise<Tree & { root: string }>;
}

/**
 * Which tree a selection reads (pure): the head commit when the diff names one (`--head`, the
 * action's head ref), else the working tree (every version, explicit versions, and the CLI's
 * diff up to HEAD while iterating on uncommitted edits).
 */
export function treeChoiceOf(sel: { kind: string; head?: string }, resolvedHead?: string): TreeChoice {
  if (sel.kind === 'diff' && sel.head !== undefined) return { kind: 'commit', ref: resolvedHead ?? sel.head };
  return { kind: 'work' };
}

/** The scope relative to the top level (pure): '' for the top, `a/b` below it, undefined outside it. */
export function prefixOf(top: string, scope: string): string | undefined {
  const rel = path.relative(top, scope);
  if (rel === '') return '';
  if (rel.startsWith('..') || path.isAbsolute(rel)) return undefined;
  return rel.split(path.sep).join('/');
}

/**
 * A tree of the whole git repository seen from the scope (pure over its tree): files below
 * `prefix`, named relative to it.
 */
export function scopedTree<T extends Tree>(tree: T, prefix: string, root: string): T & { root: string } {
  if (prefix === '') return { ...tree, root };
  const inside = (p: string) => (p === '' || p === '.' ? prefix : `${prefix}/${p.replace(/^\.\//, '').replace(/\/+$/, '')}`);
  return {
    ...tree,
    root,
    files: async (paths = []) => {
      const files = await tree.files(paths.length ? paths.map(inside) : [prefix]);
      return files.filter((f) => f.startsWith(`${prefix}/`)).map((f) => f.slice(prefix.length + 1));
    },
    read: (file: string) => tree.read(inside(file)),
  };
}

/** Opens the repository of a run (the edge): git top level, scope, layouts. */
export async function openRepository(o: RepoOptions): Promise<Repo> {
  const packagesDir = normalizePackagesDir(o.packagesDir ?? DEFAULT_PACKAGES_DIR);
  const choice = o.layouts?.choice ?? o.layout ?? 'auto';
  const layouts = o.layouts ?? Layouts.open(choice, { packagesDir, releasedVersion: o.releasedVersion || undefined, ...(o.clusterReleased ? { clusterReleased: o.clusterReleased } : {}) });
  const { gitTopLevel } = await import('../tools/git.js');
  const { execTool } = await import('../tools/exec.js');
  // The top level is asked of git itself (a stand-in exec of a test answers only for the tools it stands in for).
  const exec = execTool;
  let top: string | undefined;
  let prefix = '';
  const found = await gitTopLevel(exec, o.root).catch(() => undefined);
  if (found) {
    const real = await realpath(o.root).catch(() => o.root);
    const p = prefixOf(await realpath(found).catch(() => found), real);
    if (p !== undefined) {
      top = found;
      prefix = p;
    }
  }
  let git: Promise<Git> | undefined;
  const trees = new Map<string, Promise<Tree & { root: string }>>();
  const repo: Repo = {
    root: o.root,
    top,
    prefix,
    layouts,
    choice,
    packagesDir,
    tree: workTree(o.root),
    names: o.names ?? { layout: 'layout', packagesDir: 'packages-dir' },
    ...(o.exec ? { exec: o.exec } : {}),
    git: () => (git ??= import('../tools/git.js').then(({ Git }) => Git.create(o.root, o.exec))),
    at: (commit) => {
      let t = trees.get(commit);
      if (!t) trees.set(commit, (t = repo.git().then((g) => scopedTree(commitTree(g, commit), prefix, o.root))));
      return t;
    },
  };
  return repo;
}

/** The tree a choice names. */
export async function treeOf(repo: Repo, choice: TreeChoice): Promise<Tree & { root: string }> {
  return choice.kind === 'work' ? repo.tree : repo.at(choice.ref);
}

/** How a tree is named in the plan and the log. */
export function treeLabel(tree: Tree): string {
  return tree.ref ? `commit ${tree.ref.slice(0, 12)}` : 'the working tree';
}

/** Whether these package versions already show the layouts and packages-dir find something (no listing needed to refuse). */
export function scopeShown(repo: Repo, refs: readonly PackageVersionRef[]): boolean {
  if (refs.length === 0) return false;
  const dirSet = repo.packagesDir !== DEFAULT_PACKAGES_DIR && repo.layouts.modules.some((m) => m.scope.pathspec.includes(repo.packagesDir));
  return !dirSet || refs.some((r) => r.path === repo.packagesDir || r.path.startsWith(`${repo.packagesDir}/`));
}
