import { DevpkgError, errorMessage } from '../errors.js';
import { compareVersions, parseVersion, type ParsedVersion } from '../versions/index.js';
import type { Git } from '../tools/git.js';
import { DEFAULT_IGNORE, type FileChange } from './classify.js';
import { matchesGlob } from './glob.js';

export type VersionCompare = (a: string, b: string) => number;

/**
 * kapp-controller's ordering (build metadata counts: `+vmware.9-tkg.1` > `+vmware.10-tkg.1`),
 * with a parse cache. Folder names that are no version sort below every version, by name.
 */
export function kappCompare(): VersionCompare {
  const cache = new Map<string, ParsedVersion | null>();
  const parse = (v: string) => {
    let p = cache.get(v);
    if (p === undefined) cache.set(v, (p = parseVersion(v) ?? null));
    return p;
  };
  return (a, b) => {
    const pa = parse(a);
    const pb = parse(b);
    if (pa && pb) return compareVersions(pa, pb);
    if (pa || pb) return pa ? 1 : -1;
    return a < b ? -1 : a > b ? 1 : 0;
  };
}

/** `pr`: diff merge-base(base, head)..head (pull requests); `range`: diff base..head (pushes: before..after). */
export type RangeKind = 'pr' | 'range';

import type { PackageVersionRef } from '../results.js';

export type { PackageVersionRef };

/** A package version a diff touches, and why. */
export interface ChangedVersion extends PackageVersionRef {
  reasons: string[];
}

/** What a diff touches: the package versions changed and those removed. */
export interface Touched {
  changed: ChangedVersion[];
  removed: PackageVersionRef[];
}

/**
 * What reads a diff as package versions: the repository's layouts (src/layouts/index.ts's
 * Layouts, opened once at the edge), handed in. detect itself knows no layout: it finds the
 * range, diffs it in the scope and counts what the globs ignore.
 */
export interface ChangeReader<T> {
  /** Folders a diff has to look at ([] for the whole scope). */
  pathspec(): string[];
  touched(changes: readonly FileChange[], head: T, from: T, o: { ignore: readonly string[]; compare: VersionCompare }): Promise<Touched>;
}

export interface DetectOptions<T> {
  git: Git;
  /** The layouts in play, opened at the edge. */
  layouts: ChangeReader<T>;
  base: string;
  /** Default `HEAD`. */
  head?: string;
  /** Default `pr`. */
  kind?: RangeKind;
  /** Default `**\/*.md`. */
  ignore?: readonly string[];
  versionCompare?: VersionCompare;
  /** Remote to fetch missing commits from in a shallow clone (default `origin`). */
  remote?: string;
  /** Stop deepening a shallow clone after this many commits (default 1000). */
  maxFetchDepth?: number;
  /** First deepening step; doubles each round (default 50). */
  fetchStep?: number;
  log?: (message: string) => void;
  /**
   * The scope inside the git repository (`a/b`, '' for the top level): git names changed files
   * relative to its top level; the layouts see them relative to the scope, and nothing outside it.
   */
  prefix?: string;
  /** The scope's tree at a commit, as the layouts read it. */
  treeAt: (commit: string) => T | Promise<T>;
}

/** What a diff held, so that "nothing changed" explains itself. */
export interface DiffCounts {
  /** Files changed in the scope (within the folders the layouts look at). */
  files: number;
  /** Of those, how many each ignore glob took (first matching glob). */
  ignored: Array<{ glob: string; files: number }>;
  /** The folders the diff was limited to (scope-relative; empty: the whole scope). */
  pathspec: string[];
}

export interface DetectResult {
  changed: ChangedVersion[];
  removed: PackageVersionRef[];
  /** Resolved commits. */
  base: string;
  head: string;
  /** The merge-base (kind `pr`), undefined for kind `range`. */
  mergeBase?: string;
  /** The commit the diff starts from: mergeBase for `pr`, base for `range`. */
  from: string;
  counts: DiffCounts;
}

const ZERO_SHA = /^0+$/;
const FULL_SHA = /^[0-9a-f]{40}([0-9a-f]{24})?$/i;
const CHECKOUT_HINT = 'use actions/checkout with `fetch-depth: 0` (or fetch the history yourself before devpkg runs)';

/**
 * Resolves a ref to a commit; in a clone that lacks it (shallow checkouts fetch one commit),
 * tries `<remote>/<ref>` and then fetches it from the remote. Throws naming the ref.
 */
async function resolveCommit(git: Git, ref: string, what: string, remote: string, log: (m: string) => void): Promise<string> {
  if (ZERO_SHA.test(ref)) {
    throw new DevpkgError(`${what} "${ref}" is the all-zero commit (a newly pushed branch has no "before"); pass a base branch or list all versions`);
  }
  const local = (await git.tryRevParse(ref)) ?? (FULL_SHA.test(ref) ? undefined : await git.tryRevParse(`${remote}/${ref}`));
  if (local) return local;
  const url = await git.remoteUrl(remote);
  if (url === undefined) {
    await git.requireCommits();
    throw new DevpkgError(`unknown git ref "${ref}" (${what}): no such commit in ${git.repoDir}, and there is no remote "${remote}" to fetch it from`);
  }
  const shallow = await git.isShallow();
  log(`${what} ${ref} is not in the clone; fetching it from ${remote}`);
  try {
    return await git.fetchRef(remote, ref, shallow ? 1 : undefined);
  } catch (err) {
    throw new DevpkgError(`unknown git ref "${ref}" (${what}): not in ${git.repoDir}, and fetching it from ${remote} failed: ${errorMessage(err)}`, {
      cause: err,
    });
  }
}

/**
 * merge-base(base, head); in a shallow clone deepens the history from the remote in
 * growing steps until the merge-base appears or maxFetchDepth commits were fetched.
 */
async function findMergeBase(git: Git, base: string, head: string, opts: Required<Pick<DetectOptions<unknown>, 'remote' | 'maxFetchDepth' | 'fetchStep'>> & { log: (m: string) => void; names: [string, string] }): Promise<string> {
  let mb = await git.tryMergeBase(base, head);
  let fetched = 0;
  let step = opts.fetchStep;
  while (mb === undefined) {
    if (!(await git.isShallow())) {
      throw new DevpkgError(`${opts.names[0]} and ${opts.names[1]} have no common ancestor (unrelated histories); cannot tell what the pull request changed`);
    }
    if (fetched >= opts.maxFetchDepth || (await git.remoteUrl(opts.remote)) === undefined) {
      throw new DevpkgError(
        `the clone is shallow and the merge-base of ${opts.names[0]} and ${opts.names[1]} is not in it` +
          (fetched > 0 ? ` (deepened by ${fetched} commits from ${opts.remote})` : ` (no remote "${opts.remote}" to deepen from)`) +
          `; ${CHECKOUT_HINT}`,
      );
    }
    const n = Math.min(step, opts.maxFetchDepth - fetched);
    opts.log(`shallow clone: fetching ${n} more commits of history from ${opts.remote} to find the merge-base`);
    await git.fetchDeepen(opts.remote, n, [base, head]);
    fetched += n;
    step *= 2;
    mb = await git.tryMergeBase(base, head);
  }
  return mb;
}

function sortRefs<T extends PackageVersionRef>(list: T[], compare: VersionCompare): T[] {
  return list.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : compare(a.version, b.version)));
}

/** The package versions changed between two commits, following the rules of classifyChanges. */
export async function detectChanges<T>(opts: DetectOptions<T>): Promise<DetectResult> {
  const { git } = opts;
  const compare = opts.versionCompare ?? kappCompare();
  const remote = opts.remote ?? 'origin';
  const log = opts.log ?? (() => undefined);
  const kind = opts.kind ?? 'pr';
  const headRef = opts.head ?? 'HEAD';

  // One rev-parse for both in the common case; one by one (fetching what is missing) otherwise.
  const both = await git.tryRevParseAll([headRef, opts.base]);
  const head = both?.[0] ?? (await resolveCommit(git, headRef, 'head', remote, log));
  const base = both?.[1] ?? (await resolveCommit(git, opts.base, 'base', remote, log));
  const mergeBase =
    kind === 'pr'
      ? await findMergeBase(git, base, head, {
          remote,
          maxFetchDepth: opts.maxFetchDepth ?? 1000,
          fetchStep: opts.fetchStep ?? 50,
          log,
          names: [`base ${opts.base}`, `head ${headRef}`],
        })
      : undefined;
  const from = mergeBase ?? base;

  // Only the layouts' folders matter; a pathspec keeps git from listing the rest of the repository.
  // Git runs in the scope: pathspecs are relative to it ('.' is the scope), names to the top level.
  const { layouts } = opts;
  const prefix = (opts.prefix ?? '').replace(/\/+$/, '');
  const pathspec = layouts.pathspec();
  const raw = await git.diffNameStatus(from, head, pathspec.length ? pathspec : prefix ? ['.'] : []);
  const changes = scopeChanges(raw, prefix);
  const ignore = opts.ignore ?? DEFAULT_IGNORE;
  const treeAt = async (c: string) => opts.treeAt(c);
  const touched =
    changes.length === 0
      ? { changed: [], removed: [] }
      : await layouts.touched(changes, await treeAt(head), await treeAt(from), { ignore, compare });
  return {
    changed: sortRefs(touched.changed, compare),
    removed: sortRefs(touched.removed, compare),
    base,
    head,
    mergeBase,
    from,
    counts: countChanges(changes, ignore, pathspec),
  };
}

/**
 * Changed files (named from the git top level) as the scope sees them (pure): those below
 * `prefix`, named relative to it; a file renamed into the scope from outside is an addition.
 */
export function scopeChanges<T extends FileChange>(changes: readonly T[], prefix: string): T[] {
  if (prefix === '') return [...changes];
  const rel = (p: string | undefined) => (p !== undefined && p.startsWith(`${prefix}/`) ? p.slice(prefix.length + 1) : undefined);
  const out: T[] = [];
  for (const c of changes) {
    const p = rel(c.path);
    const old = rel(c.oldPath);
    if (p === undefined && old === undefined) continue;
    if (p === undefined) {
      // Renamed out of the scope: gone from it.
      out.push({ ...c, status: 'D', path: old!, oldPath: undefined });
      continue;
    }
    const moved = c.oldPath !== undefined && old === undefined;
    out.push(moved ? { ...c, status: 'A', path: p, oldPath: undefined } : { ...c, path: p, ...(old !== undefined ? { oldPath: old } : {}) });
  }
  return out;
}

/** How many files a diff changed and how many each ignore glob took (pure). */
export function countChanges(changes: readonly FileChange[], ignore: readonly string[], pathspec: string[] = []): DiffCounts {
  const byGlob = new Map<string, number>();
  for (const c of changes) {
    const g = ignore.find((x) => matchesGlob(c.path, x));
    if (g !== undefined) byGlob.set(g, (byGlob.get(g) ?? 0) + 1);
  }
  return { files: changes.length, ignored: [...byGlob].map(([glob, files]) => ({ glob, files })), pathspec };
}
