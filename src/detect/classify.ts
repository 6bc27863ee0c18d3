/** A diff's changed files, as every layout reads them (layout-neutral). */
/** One changed file, as `git diff --name-status` reports it (R/C entries carry oldPath). */
export interface FileChange {
  status: string;
  path: string;
  oldPath?: string;
  /** git's similarity score of a rename or copy (100: the same content). */
  score?: number;
}

/** Changed files matching these globs do not count unless the ignore input says otherwise. */
export const DEFAULT_IGNORE: readonly string[] = ['**/*.md'];
