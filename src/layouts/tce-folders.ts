/**
 * TCE's version folders on a tree (packages-dir/<name>/<version>/package.yaml): listing them,
 * reading and checking one, and a version folder named by hand (`devpkg dev --package`).
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import * as path from 'node:path';
import semver from 'semver';
import { DevpkgError, UsageError } from '../errors.js';
import { lineOf, parsePackageFile } from '../packages/model.js';
import type { LoadedVersion } from './types.js';

/**
 * The only file-system access of the layout code. Paths are `root` joined with repository-relative
 * ones (root may be '': a tree's own reader, layouts/tree.ts treeReader); tests can hand in
 * an in-memory reader.
 */
export interface TreeReader {
  /** Names of the sub-folders of `dir`, and of its files; empty lists when `dir` does not exist. */
  list(dir: string): Promise<{ dirs: string[]; files: string[] }>;
  readText(file: string): Promise<string>;
  /** Whether a path exists (an empty listing does not tell an empty folder from a missing one). */
  exists?(p: string): Promise<boolean>;
}

export const fsReader: TreeReader = {
  async list(dir) {
    try {
      const entries = await readdir(dir, { withFileTypes: true });
      return {
        dirs: entries.filter((e) => e.isDirectory()).map((e) => e.name),
        files: entries.filter((e) => e.isFile()).map((e) => e.name),
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT' || (err as NodeJS.ErrnoException).code === 'ENOTDIR') {
        return { dirs: [], files: [] };
      }
      throw err;
    }
  },
  readText: (file) => readFile(file, 'utf8'),
  exists: async (p) => {
    try {
      await stat(p);
      return true;
    } catch {
      return false;
    }
  },
};

export const PACKAGE_FILE = 'package.yaml';
export const METADATA_FILE = 'metadata.yaml';

export interface VersionEntry {
  /** The folder name, e.g. `0.24.4+update.2`. */
  version: string;
  /** The version folder, relative to the repository root, with `/` separators. */
  path: string;
  /** `<path>/package.yaml`. */
  packageFile: string;
}

export interface PackageEntry {
  name: string;
  /** `<packagesDir>/<name>`, relative to the repository root. */
  path: string;
  /** `<path>/metadata.yaml` when it exists. */
  metadataFile?: string;
  /** Version folders (those holding a package.yaml), lowest version first. */
  versions: VersionEntry[];
}

/** The one packages-dir normaliser: `addons/packages/`, `./addons/packages`, `addons//packages` -> `addons/packages`; `.` or '' -> '' (the scope's root). */
export function normalizePackagesDir(dir: string): string {
  const p = path.posix.normalize(dir.trim().replaceAll('\\', '/')).replace(/\/+$/, '');
  return p === '.' ? '' : p.replace(/^\.\//, '');
}

function join(...parts: string[]): string {
  return path.posix.join(...parts.filter((p) => p !== ''));
}

/** Orders version folder names as kapp-controller would (build metadata counts); non-semver names last, by name. */
export function compareVersionFolders(a: string, b: string): number {
  const va = semver.valid(a);
  const vb = semver.valid(b);
  if (va && vb) return semver.compareBuild(a, b);
  if (va) return -1;
  if (vb) return 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Version folders of one package, from the names of its sub-folders and whether each holds
 * a package.yaml (pure: no reads).
 */
export function versionEntries(packagePath: string, folders: { name: string; hasPackageFile: boolean }[]): VersionEntry[] {
  return folders
    .filter((f) => f.hasPackageFile)
    .map((f) => f.name)
    .sort(compareVersionFolders)
    .map((version) => {
      const p = join(packagePath, version);
      return { version, path: p, packageFile: join(p, PACKAGE_FILE) };
    });
}

/**
 * Packages under `<root>/<packagesDir>`: every folder holding a metadata.yaml or at least one
 * version folder (a sub-folder with a package.yaml; `test/`, `hack/` and the like are skipped).
 */
export async function listPackages(root: string, packagesDir: string, reader: TreeReader = fsReader): Promise<PackageEntry[]> {
  const dir = normalizePackagesDir(packagesDir);
  const top = await reader.list(path.join(root, dir));
  const names = [...top.dirs].sort();
  const entries = await Promise.all(names.map((name) => readPackageEntry(root, dir, name, reader)));
  return entries.filter((e) => e.metadataFile !== undefined || e.versions.length > 0);
}

async function readPackageEntry(root: string, dir: string, name: string, reader: TreeReader): Promise<PackageEntry> {
  const pkgPath = join(dir, name);
  const abs = path.join(root, pkgPath);
  const listing = await reader.list(abs);
  const entry: PackageEntry = { name, path: pkgPath, versions: versionEntries(pkgPath, await markVersionFolders(abs, listing.dirs, reader)) };
  if (listing.files.includes(METADATA_FILE)) entry.metadataFile = join(pkgPath, METADATA_FILE);
  return entry;
}

/**
 * Reads and checks one version folder: its package.yaml must parse (a DevpkgError with file and
 * line otherwise); what can be planned around is in `pkg.warnings`. `file`s are relative to `root`.
 */
export async function loadVersion(
  root: string,
  packagesDir: string,
  name: string,
  version: string,
  reader: TreeReader = fsReader,
): Promise<LoadedVersion> {
  const dir = normalizePackagesDir(packagesDir);
  const entry = name.includes('/') || name.startsWith('.') ? undefined : await readPackageEntry(root, dir, name, reader);
  if (entry && !version.includes('/') && !entry.versions.some((e) => e.version === version)) {
    // The folder is there but holds no package.yaml: say so, not that the package is unknown.
    const listing = await reader.list(path.join(root, entry.path));
    if (listing.dirs.includes(version)) {
      const inside = await reader.list(path.join(root, entry.path, version));
      const holds = [...inside.dirs.map((d) => `${d}/`), ...inside.files].sort().join(', ') || 'nothing';
      const known = entry.versions.map((e) => e.version).join(', ') || 'none';
      throw new DevpkgError(
        `unknown version ${version} of package ${name}: the folder ${join(entry.path, version)} has no ${PACKAGE_FILE} (it holds: ${holds}), ` +
          `so it is not a version folder; put the Package (kind: Package) in ${join(entry.path, version, PACKAGE_FILE)}, or use a known version: ${known}`,
      );
    }
  }
  if (!entry || (entry.versions.length === 0 && entry.metadataFile === undefined)) {
    const known = (await listPackages(root, dir, reader)).map((p) => p.name).join(', ') || 'none';
    throw new DevpkgError(`unknown package ${name}: no folder ${join(dir, name)} with a metadata.yaml or a version folder; known: ${known}`);
  }
  const v = entry.versions.find((e) => e.version === version);
  if (!v) {
    const known = entry.versions.map((e) => e.version).join(', ') || 'none';
    throw new DevpkgError(`unknown version ${version} of package ${name}: no folder ${join(entry.path, version)} holding a ${PACKAGE_FILE}; known versions: ${known}`);
  }
  return readVersion(root, name, v, reader);
}

/** Reads and checks a version folder already found by listPackages (no listing again). */
export async function readVersion(root: string, name: string, v: VersionEntry, reader: TreeReader = fsReader): Promise<LoadedVersion> {
  const text = await reader.readText(path.join(root, v.packageFile));
  const pkg = parsePackageFile(text, v.packageFile);
  return { name, version: v.version, path: v.path, packageFile: v.packageFile, pkg: checkFolderVersion(pkg, v.version) };
}

/**
 * The Package's spec.version should be the version folder's name (pure). When it is not, the
 * folder name means nothing to kapp-controller, so spec.version is the released version and a
 * warning says where they disagree (TCE's external-dns/0.11.0 holds 0.11.0+3).
 */
export function checkFolderVersion(res: LoadedVersion['pkg'], folderVersion: string): LoadedVersion['pkg'] {
  if (res.pkg.spec.version === folderVersion) return res;
  const warning = {
    path: res.file,
    line: lineOf(res, 'spec.version'),
    severity: 'warning' as const,
    message: `spec.version ${res.pkg.spec.version} does not match its version folder ${folderVersion}; devpkg uses ${res.pkg.spec.version} as the released version (rename the folder to ${res.pkg.spec.version}, or set spec.version and metadata.name to ${folderVersion})`,
  };
  return { ...res, warnings: [...res.warnings, warning] };
}

/** The version folders (those holding a package.yaml) in a package folder, lowest version first. */
export async function versionFoldersIn(packageFolder: string, reader: TreeReader = fsReader): Promise<string[]> {
  const { dirs } = await reader.list(packageFolder);
  return versionEntries('', await markVersionFolders(packageFolder, dirs, reader)).map((v) => v.version);
}

/** The sub-folders `dirs` of a package folder, each marked with whether it holds a package.yaml. */
async function markVersionFolders(packageFolder: string, dirs: string[], reader: TreeReader): Promise<{ name: string; hasPackageFile: boolean }[]> {
  return Promise.all(dirs.map(async (d) => ({ name: d, hasPackageFile: (await reader.list(path.join(packageFolder, d))).files.includes(PACKAGE_FILE) })));
}

/**
 * A folder given as a version folder (`devpkg dev --package`, `devpkg bootstrap --package`):
 * `<root>/<name>/<version>` holding a package.yaml. A package folder, a missing folder or one
 * without a package.yaml is a usage error naming the flag and, for a package folder, its versions.
 */
export async function loadVersionFolder(folder: string, what: string, reader: TreeReader = fsReader): Promise<{ root: string; loaded: LoadedVersion }> {
  const here = await reader.list(folder);
  if (!here.files.includes(PACKAGE_FILE)) {
    const versions = await versionFoldersIn(folder, reader);
    if (versions.length > 0) {
      throw new UsageError(
        `${what}: ${folder} is a package folder, not a version folder; give one of its versions: ${versions.map((v) => path.join(folder, v)).join(', ')}`,
      );
    }
    if (here.dirs.length === 0 && here.files.length === 0 && !(await reader.exists?.(folder) ?? true)) {
      throw new UsageError(`${what}: folder ${folder} does not exist; give a version folder such as addons/packages/antrea/1.5.3`);
    }
    throw new UsageError(`${what}: ${folder} holds no ${PACKAGE_FILE}; give a version folder (<packages dir>/<name>/<version>, holding package.yaml and bundle/)`);
  }
  const root = path.dirname(path.dirname(folder));
  const loaded = await loadVersion(root, '', path.basename(path.dirname(folder)), path.basename(folder), reader);
  return { root, loaded };
}
