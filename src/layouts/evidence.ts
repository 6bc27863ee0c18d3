/**
 * Recognition by evidence, from paths first (pure): which files can be a package of which layout,
 * before anything is read. Each layout's `owns` asks these; only the candidates are ever read.
 */
import path from 'node:path';

/**
 * Folders not searched for packages unless asked (the scope or packages-dir is inside one, or
 * `--packages` names a package there): test data, examples, templates and vendored code hold
 * package-shaped files that are not this repository's packages (docs/cli.md says so).
 */
export const SKIPPED_FOLDERS: readonly string[] = ['examples', 'fixtures', '__fixtures__', 'node_modules', 'templates', 'testdata', 'vendor'];
const SKIPPED = new Set(SKIPPED_FOLDERS);

/** Pure: whether a file's folders (not its own name) pass through a skipped folder. */
export function inSkippedFolder(file: string): boolean {
  const parts = file.split('/');
  for (let i = 0; i < parts.length - 1; i++) if (SKIPPED.has(parts[i]!)) return true;
  return false;
}

/** A TCE version folder: `<packages folder>/<name>/<version>/package.yaml`. */
export interface VersionFolder {
  /** The packages folder ('' for the scope's root). */
  packagesDir: string;
  name: string;
  version: string;
}

export const TCE_PACKAGE_FILE = 'package.yaml';

/**
 * Pure: the version folder a file is the package.yaml of. With `packagesDir` (an explicit
 * packages-dir) only below it; without, below any folder named `packages`, wherever it sits.
 */
export function versionFolderOf(file: string, packagesDir?: string): VersionFolder | undefined {
  if (!file.endsWith(`/${TCE_PACKAGE_FILE}`)) return undefined;
  const parts = file.split('/');
  const n = parts.length;
  if (packagesDir !== undefined) {
    const dir = packagesDir === '' ? [] : packagesDir.split('/');
    if (n !== dir.length + 3 || dir.some((d, i) => parts[i] !== d)) return undefined;
    return { packagesDir, name: parts[n - 3]!, version: parts[n - 2]! };
  }
  if (n < 4 || parts[n - 4] !== 'packages') return undefined;
  return { packagesDir: parts.slice(0, n - 3).join('/'), name: parts[n - 3]!, version: parts[n - 2]! };
}

/** Pure: `<packagesDir>/<name>`. */
export const packageFolderOf = (v: { packagesDir: string; name: string }) => (v.packagesDir === '' ? v.name : `${v.packagesDir}/${v.name}`);

/** Pure: the TCE package folders (`<packages folder>/<name>`) of a listing, found anywhere (what no other layout may claim). */
export function tcePackageFolders(files: readonly string[]): Set<string> {
  const out = new Set<string>();
  for (const f of files) {
    const v = versionFolderOf(f);
    if (v) out.add(packageFolderOf(v));
  }
  return out;
}

/** Pure: the folder of a file ('' at the root). */
export const folderOf = (file: string) => (path.posix.dirname(file) === '.' ? '' : path.posix.dirname(file));

/** Pure: whether `file` is below one of `folders` (a set of folders; '' is the root). */
export function underAny(file: string, folders: ReadonlySet<string>): boolean {
  if (folders.size === 0) return false;
  if (folders.has('')) return true;
  for (let i = file.indexOf('/'); i > 0; i = file.indexOf('/', i + 1)) if (folders.has(file.slice(0, i))) return true;
  return false;
}

/** The plain layout's version folder file (`packages/<name>/<version>/package.yml`, `.yml`: TCE's is package.yaml). */
export const PLAIN_PACKAGE_FILE = 'package.yml';

/**
 * Pure: the plain version folder a file is the package.yml of, below a folder named `packages`
 * (or below `packagesDir` when given), as versionFolderOf finds TCE's.
 */
export function plainVersionFolderOf(file: string, packagesDir?: string): VersionFolder | undefined {
  if (!file.endsWith(`/${PLAIN_PACKAGE_FILE}`)) return undefined;
  return versionFolderOf(`${file.slice(0, -PLAIN_PACKAGE_FILE.length)}${TCE_PACKAGE_FILE}`, packagesDir);
}

/** Pure: the package folders holding plain version folders, found anywhere (what the repository layout leaves to it). */
export function plainPackageFolders(files: readonly string[]): Set<string> {
  const out = new Set<string>();
  for (const f of files) {
    const v = plainVersionFolderOf(f);
    if (v) out.add(packageFolderOf(v));
  }
  return out;
}

/** Pure: whether a file's text says it holds a Package (a `kind: Package` line), before it is parsed. */
export function saysPackage(text: string): boolean {
  return /^\s*kind:\s*["']?Package["']?\s*(#.*)?$/m.test(text);
}
