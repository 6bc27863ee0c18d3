/**
 * Phase 1: where the providers' ytt library keeps its copy of a package's `bundle/config`.
 * `providers/ytt/vendir/<folder>/<folder>.lib.yaml` holds `library.get("<path>")` calls (folder
 * `cni`, `kapp-controller`, `vsphere_cpi` in tanzu-framework v0.25); ytt resolves each one in the
 * `_ytt_lib` folder next to that file, so the vendored copy is
 * `providers/ytt/vendir/<folder>/_ytt_lib/<path>`.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { DevpkgError } from '../errors.js';
import { listFiles } from './files.js';

export const VENDIR_DIR = path.join('ytt', 'vendir');

export interface LibraryGet {
  /** The .lib.yaml that asks for the library, relative to the providers folder. */
  libFile: string;
  line: number;
  /** The library path as written, e.g. addons/packages/antrea/1.5.3/bundle/config. */
  library: string;
}

export interface VendoredLibrary extends LibraryGet {
  /** The vendored folder, relative to the providers folder. */
  dir: string;
  /** The version folder in the library path (the segment after the package name), when there is one. */
  version?: string;
}

/** Pure: every `library.get("...")` in a ytt file (commented-out lines skipped). */
export function parseLibraryGets(text: string, libFile: string): LibraryGet[] {
  const out: LibraryGet[] = [];
  text.split('\n').forEach((raw, i) => {
    const line = raw.trim();
    if (!line.startsWith('#@') || line.startsWith('#@ #') || line.startsWith('#!')) return;
    const re = /library\.get\(\s*["']([^"']+)["']/g;
    for (let m = re.exec(line); m; m = re.exec(line)) out.push({ libFile, line: i + 1, library: m[1]! });
  });
  return out;
}

/** Pure: the library of one package: a path segment equal to the package name, e.g. .../antrea/1.5.3/... */
export function pickLibrary(gets: LibraryGet[], pkgName: string): VendoredLibrary[] {
  return gets
    .filter((g) => g.library.split('/').includes(pkgName))
    .map((g) => {
      const parts = g.library.split('/');
      const i = parts.indexOf(pkgName);
      const next = parts[i + 1];
      const version = next && /^v?\d/.test(next) ? next : undefined;
      return { ...g, dir: path.join(path.dirname(g.libFile), '_ytt_lib', ...parts), ...(version ? { version } : {}) };
    });
}

/** Every `.lib.yaml` under ytt/vendir (outside `_ytt_lib`), relative to the providers folder. */
async function libFiles(providersDir: string): Promise<string[]> {
  const under = await listFiles(path.join(providersDir, VENDIR_DIR), (folder) => folder === '_ytt_lib');
  return under.filter((f) => f.endsWith('.lib.yaml')).map((f) => path.join(VENDIR_DIR, f));
}

/**
 * The vendored library of `pkgName` (e.g. antrea). The vendir folders are named after the addon
 * category for the CNI (`cni`) but not for the others (`kapp-controller`, `vsphere_cpi` in
 * tanzu-framework v0.25), so every folder is searched; when several hold the package, the one named
 * `category` wins. Throws, naming what was looked at, when no or several libraries match.
 */
export async function findVendoredLibrary(providersDir: string, category: string, pkgName: string): Promise<VendoredLibrary> {
  const files = await libFiles(providersDir);
  if (files.length === 0) {
    throw new DevpkgError(`no ${VENDIR_DIR}/*/*.lib.yaml in ${providersDir}: this providers folder vendors no libraries; is it a TKG providers folder?`);
  }
  const gets = (await Promise.all(files.map(async (f) => parseLibraryGets(await readFile(path.join(providersDir, f), 'utf8'), f)))).flat();
  let unique = [...new Map(pickLibrary(gets, pkgName).map((f) => [f.dir, f])).values()];
  if (unique.length > 1) {
    const inCategory = unique.filter((u) => u.libFile.startsWith(path.join(VENDIR_DIR, category) + path.sep));
    if (inCategory.length) unique = inCategory;
  }
  if (unique.length === 0) {
    throw new DevpkgError(
      `${files.join(', ')} load no library of ${pkgName} (library.get calls: ${gets.map((g) => g.library).join(', ') || 'none'}); check --addon-type (input addon-type) CATEGORY/NAME`,
    );
  }
  if (unique.length > 1) {
    throw new DevpkgError(`${pkgName} has several vendored libraries in ${providersDir}: ${unique.map((u) => u.dir).join(', ')}; devpkg does not know which one the cluster uses`);
  }
  return unique[0]!;
}
