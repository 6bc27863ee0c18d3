import { globMatcher } from './glob.js';

/** One changed file, as `git diff --name-status` reports it (R/C entries carry oldPath). */
export interface FileChange {
  status: string;
  path: string;
  oldPath?: string;
}

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
}

export interface Classification {
  /** Version folders (existing at head) with a changed file. */
  versions: VersionChange[];
  /** Packages whose metadata.yaml changed while none of their versions did. */
  metadataOnly: string[];
  /** Version folders whose package.yaml was deleted and that are no version folder at head. */
  removed: { name: string; version: string }[];
}

export const DEFAULT_IGNORE: readonly string[] = ['**/*.md'];

/** `./addons/packages/` -> `addons/packages`; `.` or `` -> `` (the repository root). */
export function normalizePackagesDir(dir: string): string {
  let d = dir.replace(/\\/g, '/').trim();
  while (d.startsWith('./')) d = d.slice(2);
  d = d.replace(/\/+$/, '');
  return d === '.' ? '' : d;
}

/** Splits `<packagesDir>/<name>/<rest...>` into its parts; undefined for paths outside. */
export function packagePathParts(path: string, packagesDir: string): { name: string; rest: string[] } | undefined {
  const prefix = packagesDir === '' ? '' : `${packagesDir}/`;
  if (!path.startsWith(prefix)) return undefined;
  const parts = path.slice(prefix.length).split('/');
  if (parts.length < 2 || parts[0] === '') return undefined;
  return { name: parts[0], rest: parts.slice(1) };
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
    const p = packagePathParts(f, packagesDir);
    if (!p || p.rest.length !== 2 || p.rest[1] !== 'package.yaml') continue;
    const list = out.get(p.name);
    if (list) list.push(p.rest[0]);
    else out.set(p.name, [p.rest[0]]);
  }
  return out;
}

const WORDS: Record<string, string> = { A: 'added', M: 'modified', D: 'deleted', T: 'type changed', U: 'unmerged' };

interface Side {
  path: string;
  deleted: boolean;
  reason: string;
}

function sides(c: FileChange): Side[] {
  if ((c.status === 'R' || c.status === 'C') && c.oldPath !== undefined) {
    const moved: Side = { path: c.path, deleted: false, reason: `${c.status === 'R' ? 'renamed' : 'copied'} ${c.oldPath} -> ${c.path}` };
    if (c.status === 'C') return [moved];
    return [{ path: c.oldPath, deleted: true, reason: `renamed ${c.oldPath} -> ${c.path}` }, moved];
  }
  return [{ path: c.path, deleted: c.status === 'D', reason: `${WORDS[c.status] ?? c.status} ${c.path}` }];
}

const byNameVersion = (a: { name: string; version: string }, b: { name: string; version: string }) =>
  a.name < b.name ? -1 : a.name > b.name ? 1 : a.version < b.version ? -1 : a.version > b.version ? 1 : 0;

/**
 * Decides which package versions a set of changed files touches (pure).
 * - a change below `<packagesDir>/<name>/<version>/` marks that version when it is a version folder at head;
 * - a change to `<packagesDir>/<name>/metadata.yaml` alone puts the package in `metadataOnly`;
 * - a deleted package.yaml of a folder that is no version at head is a removed version;
 * - a rename counts as a deletion of the old path and a change of the new one;
 * - ignored files, files outside the packages folder, and non-version folders do not count.
 */
export function classifyChanges(changes: readonly FileChange[], opts: ClassifyOptions): Classification {
  const packagesDir = normalizePackagesDir(opts.packagesDir);
  const ignored = globMatcher(opts.ignore);
  const versions = new Map<string, VersionChange>();
  const removed = new Map<string, { name: string; version: string }>();
  const metadata = new Set<string>();

  for (const change of changes) {
    for (const side of sides(change)) {
      if (ignored(side.path)) continue;
      const p = packagePathParts(side.path, packagesDir);
      if (!p) continue;
      if (p.rest.length === 1) {
        if (p.rest[0] === 'metadata.yaml') metadata.add(p.name);
        continue;
      }
      const version = p.rest[0];
      const key = `${p.name}/${version}`;
      if (opts.isVersionFolderAtHead(p.name, version)) {
        const v = versions.get(key);
        if (!v) versions.set(key, { name: p.name, version, reasons: [side.reason] });
        else if (!v.reasons.includes(side.reason)) v.reasons.push(side.reason);
      } else if (side.deleted && p.rest.length === 2 && p.rest[1] === 'package.yaml') {
        removed.set(key, { name: p.name, version });
      }
    }
  }

  const touched = new Set([...versions.values()].map((v) => v.name));
  return {
    versions: [...versions.values()].sort(byNameVersion),
    metadataOnly: [...metadata].filter((n) => !touched.has(n)).sort(),
    removed: [...removed.values()].sort(byNameVersion),
  };
}
