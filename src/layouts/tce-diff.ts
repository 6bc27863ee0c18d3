/**
 * TCE's diff rules (pure): which version folders and package folders a set of changed files
 * touches below one packages folder (`<packagesDir>/<name>/<version>/...`,
 * `<packagesDir>/<name>/metadata.yaml`).
 */
import { globMatcher } from '../detect/glob.js';
import type { FileChange } from '../detect/classify.js';
import { normalizePackagesDir } from './tce-folders.js';

export interface ClassifyOptions {
  /** Repository-relative folder holding `<name>/<version>/package.yaml`, e.g. `addons/packages`. */
  packagesDir: string;
  /** True when `<packagesDir>/<name>/<version>/package.yaml` exists at the head commit. */
  isVersionFolderAtHead: (name: string, version: string) => boolean;
  /** Changed files matching one of these globs do not count (e.g. `**\/*.md`). */
  ignore: readonly string[];
}

export interface VersionChange {
  name: string;
  version: string;
  /** Why the version counts as changed, e.g. `modified addons/packages/x/1.0.0/package.yaml`. */
  reasons: string[];
  /** The changes below it (a layout compares their content). */
  changes: FileChange[];
}

export interface Classification {
  /** Version folders (existing at head) with a changed file. */
  versions: VersionChange[];
  /** Packages whose metadata.yaml changed while none of their versions did. */
  metadataOnly: string[];
  /** The changes of each package's metadata.yaml (a layout compares their content). */
  metadata: Map<string, FileChange[]>;
  /** Version folders whose package.yaml was deleted and that are no version folder at head. */
  removed: { name: string; version: string }[];
}


/** Where a path sits below the packages folder. */
export interface PackagePath {
  name: string;
  /** The folder below the package (`1.2.3`, `test`); undefined for files directly in `<name>/`. */
  version?: string;
  /** The rest of the path below `<name>/<version>/` (or below `<name>/` when version is undefined). */
  file: string;
}

/**
 * Splits `<packagesDir>/<name>/[<version>/]<file>`; undefined for paths outside a package folder.
 * Hot path (every changed and every listed file): indexOf instead of split.
 */
export function locatePackagePath(path: string, packagesDir: string): PackagePath | undefined {
  let i = 0;
  if (packagesDir !== '') {
    if (!path.startsWith(packagesDir) || path.charCodeAt(packagesDir.length) !== 47 /* / */) return undefined;
    i = packagesDir.length + 1;
  }
  const j = path.indexOf('/', i);
  if (j <= i) return undefined;
  const name = path.slice(i, j);
  const k = path.indexOf('/', j + 1);
  if (k < 0) return { name, file: path.slice(j + 1) };
  return { name, version: path.slice(j + 1, k), file: path.slice(k + 1) };
}

/** Splits `<packagesDir>/<name>/<rest...>` into its parts; undefined for paths outside. */
export function packagePathParts(path: string, packagesDir: string): { name: string; rest: string[] } | undefined {
  const p = locatePackagePath(path, packagesDir);
  if (!p) return undefined;
  return { name: p.name, rest: p.version === undefined ? [p.file] : [p.version, ...p.file.split('/')] };
}

export function versionFolderPath(packagesDir: string, name: string, version: string): string {
  return packagesDir === '' ? `${name}/${version}` : `${packagesDir}/${name}/${version}`;
}

/**
 * The version folders among a list of files: folders holding a package.yaml directly,
 * so `test/` or `hack/` folders are not versions. Returns name -> versions.
 */
export function versionFoldersFromFiles(files: readonly string[], packagesDir: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const f of files) {
    if (!f.endsWith('/package.yaml')) continue;
    const p = locatePackagePath(f, packagesDir);
    if (!p || p.version === undefined || p.file !== 'package.yaml') continue;
    const list = out.get(p.name);
    if (list) list.push(p.version);
    else out.set(p.name, [p.version]);
  }
  return out;
}

const WORDS: Record<string, string> = { A: 'added', M: 'modified', D: 'deleted', T: 'type changed', U: 'unmerged' };

function reasonOf(c: FileChange, deletedSide: boolean): string {
  if (c.oldPath !== undefined && (c.status === 'R' || c.status === 'C')) {
    return `${c.status === 'R' ? 'renamed' : 'copied'} ${c.oldPath} -> ${c.path}`;
  }
  return `${deletedSide ? 'deleted' : (WORDS[c.status] ?? c.status)} ${c.path}`;
}

const byNameVersion = (a: { name: string; version: string }, b: { name: string; version: string }) =>
  a.name < b.name ? -1 : a.name > b.name ? 1 : a.version < b.version ? -1 : a.version > b.version ? 1 : 0;

/**
 * Decides which package versions a set of changed files touches (pure).
 * - a change below `<packagesDir>/<name>/<version>/` marks that version when it is a version folder at head;
 * - a change to `<packagesDir>/<name>/metadata.yaml` alone puts the package in `metadataOnly`;
 * - a deleted package.yaml of a folder that is no version at head is a removed version;
 * - a rename counts as a deletion of the old path and a change of the new one, except a pure rename
 *   (score 100) that keeps the file's place in its version (or package) folder: the folder moved,
 *   its content did not, so nothing is touched and nothing removed;
 * - ignored files, files outside the packages folder, and non-version folders do not count.
 */
export function classifyChanges(changes: readonly FileChange[], opts: ClassifyOptions): Classification {
  const packagesDir = normalizePackagesDir(opts.packagesDir);
  const ignored = globMatcher(opts.ignore);
  const versions = new Map<string, VersionChange>();
  const removed = new Map<string, { name: string; version: string }>();
  const metadata = new Map<string, FileChange[]>();

  const consider = (change: FileChange, path: string, deleted: boolean) => {
    const p = locatePackagePath(path, packagesDir);
    if (!p || ignored(path)) return;
    if (p.version === undefined) {
      if (p.file === 'metadata.yaml' && !metadata.get(p.name)?.includes(change)) metadata.set(p.name, [...(metadata.get(p.name) ?? []), change]);
      return;
    }
    const key = `${p.name}/${p.version}`;
    if (opts.isVersionFolderAtHead(p.name, p.version)) {
      const reason = reasonOf(change, deleted);
      const v = versions.get(key);
      if (!v) versions.set(key, { name: p.name, version: p.version, reasons: [reason], changes: [change] });
      // Only a rename inside one version yields the same reason twice.
      else if (change.status !== 'R' || !v.reasons.includes(reason)) {
        v.reasons.push(reason);
        v.changes.push(change);
      }
    } else if (deleted && p.file === 'package.yaml') {
      removed.set(key, { name: p.name, version: p.version });
    }
  };

  for (const change of changes) {
    if (movedWithItsFolder(change, packagesDir)) continue;
    // A rename is a deletion of the old path plus a change of the new one; a copy only the latter.
    if (change.status === 'R' && change.oldPath !== undefined) consider(change, change.oldPath, true);
    consider(change, change.path, change.status === 'D');
  }

  const touched = new Set([...versions.values()].map((v) => v.name));
  return {
    versions: [...versions.values()].sort(byNameVersion),
    metadataOnly: [...metadata.keys()].filter((n) => !touched.has(n)).sort(),
    metadata,
    removed: [...removed.values()].sort(byNameVersion),
  };
}

/**
 * A pure rename (score 100) whose file keeps its place below its version folder (or, for
 * metadata.yaml, its package folder): the folder moved, its content did not (pure).
 */
export function movedWithItsFolder(change: FileChange, packagesDir: string): boolean {
  if (change.status !== 'R' || change.score !== 100 || change.oldPath === undefined) return false;
  const [from, to] = [locatePackagePath(change.oldPath, packagesDir), locatePackagePath(change.path, packagesDir)];
  return from !== undefined && to !== undefined && from.file === to.file && (from.version === undefined) === (to.version === undefined);
}
