/**
 * TCE's layout: `<packages-dir>/<name>/metadata.yaml` and version folders
 * `<packages-dir>/<name>/<version>/{package.yaml,bundle/}`, the packages folder wherever it sits
 * in the scope (below any folder named `packages`) unless packages-dir names it. The folder rules live in
 * tce-folders.ts (version folders on a tree) and tce-diff.ts (what a diff touches); this module
 * puts them behind the Layout interface.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { compareVersionFolders as compareFolders, loadVersion, METADATA_FILE, PACKAGE_FILE, normalizePackagesDir, readVersion } from './tce-folders.js';
import { lineOf, parsePackageFile, type PackageResource } from '../packages/model.js';
import { bundleFetch } from '../packages/derive.js';
import type { FileChange } from '../detect/classify.js';
import { classifyChanges, locatePackagePath, versionFolderPath, versionFoldersFromFiles } from './tce-diff.js';
import type { PackageVersionRef } from '../results.js';
import { folderOf, inSkippedFolder, packageFolderOf, underAny, versionFolderOf } from './evidence.js';
import { sameDocuments } from './content.js';
import { folderAtRef, isUnder, treeReader } from './tree.js';
import type { BuildOptions, ChangedVersion, Layout, LoadedPackage, LoadedVersion, Owned, ReleasedSource, Tree } from './types.js';

/** TCE's default packages-dir: with it, TCE's version folders are found below any folder named `packages`. */
/** The bundle a Package fetches itself (a version folder without bundle/ installs it as it is); a Package without one is refused at its line. */
function ownImage(pkg: PackageResource): string {
  return bundleFetch(pkg.pkg, (p) => ({ file: pkg.file, line: lineOf(pkg, p) })).image;
}

export const DEFAULT_TCE_PACKAGES_DIR = 'addons/packages';

/**
 * TCE's layout. `packagesDir`: an explicit packages-dir narrows the search to that folder; the
 * default (DEFAULT_TCE_PACKAGES_DIR, or none) finds version folders below any folder named
 * `packages` in the scope.
 */
export function tceLayout(packagesDir?: string): Layout {
  const given = packagesDir === undefined ? undefined : normalizePackagesDir(packagesDir);
  const dir = given === DEFAULT_TCE_PACKAGES_DIR ? undefined : given;
  // The version folders of a listing, by package folder (`<packages folder>/<name>`), worked out once per listing (plan --all loads every one).
  const folders = new WeakMap<Owned, Map<string, { packagesDir: string; name: string; versions: string[] }>>();
  const foldersOf = (owned: Owned) => {
    let m = folders.get(owned);
    if (!m) {
      folders.set(owned, (m = new Map()));
      for (const f of owned.files) {
        const v = versionFolderOf(f, dir);
        if (!v) continue;
        const at = packageFolderOf(v);
        const e = m.get(at);
        if (e) e.versions.push(v.version);
        else m.set(at, { packagesDir: v.packagesDir, name: v.name, versions: [v.version] });
      }
    }
    return m;
  };
  // The folders of a listing that hold a bundle/ (`<version folder>/bundle/...`), once per listing:
  // plan --all asks for every version folder.
  const bundled = new WeakMap<Owned, Set<string>>();
  const bundledOf = (owned: Owned) => {
    let b = bundled.get(owned);
    if (!b) {
      bundled.set(owned, (b = new Set()));
      for (const f of owned.files) {
        // Every `/bundle/` of the path (a folder above the packages folder may be named bundle too).
        for (let i = f.indexOf('/bundle/'); i > 0; i = f.indexOf('/bundle/', i + 1)) b.add(f.slice(0, i));
      }
    }
    return b;
  };
  const sortVersions = (vs: string[]) => [...vs].sort((a, b) => compareFolders(a, b));
  // A package's versions, sorted once per listing (plan --all loads each of them: sorting again per load cost most of a 500-version plan's layout time).
  const sorted = new WeakMap<Owned, Map<string, string[]>>();
  const sortedOf = (owned: Owned, folder: string) => {
    let m = sorted.get(owned);
    if (!m) sorted.set(owned, (m = new Map()));
    let vs = m.get(folder);
    if (!vs) m.set(folder, (vs = sortVersions(foldersOf(owned).get(folder)?.versions ?? [])));
    return vs;
  };
  /** The packages folder of a version folder's path. */
  const packagesDirOf = (versionPath: string) => dir ?? folderOf(folderOf(versionPath));
  /** The packages folders a changed path can be in (any `packages` folder above it, when searching). */
  const candidates = (p: string): string[] => {
    if (dir !== undefined) return isUnder(p, dir) ? [dir] : [];
    const parts = p.split('/');
    const out: string[] = [];
    for (let i = 0; i + 2 < parts.length; i++) if (parts[i] === 'packages') out.push(parts.slice(0, i + 1).join('/'));
    return out.filter((c) => !inSkippedFolder(`${c}/x`));
  };

  const self: Layout = {
    name: 'tce',
    scope: {
      evidence: `version folders ${dir === undefined ? '<a folder named packages>' : dir || '.'}/<name>/<version>/package.yaml (TCE)`,
      owns(files, o = {}) {
        const roots = new Set<string>();
        for (const f of files) {
          const v = versionFolderOf(f, dir);
          if (v && (o.all || dir !== undefined || !inSkippedFolder(f))) roots.add(packageFolderOf(v));
        }
        if (roots.size === 0) return { files: [], roots: [] };
        return { files: files.filter((f) => underAny(f, roots)), roots: [...roots].sort() };
      },
      pathspec: dir === undefined || dir === '' ? [] : [dir],
      pathOf: (name, version) => versionFolderPath(dir ?? DEFAULT_TCE_PACKAGES_DIR, name, version),
      problemFile: (p) => `${p}/${PACKAGE_FILE}`,
    },
    async list(_tree, owned) {
      const refs: PackageVersionRef[] = [];
      const byName = [...foldersOf(owned)].sort(([a, x], [b, y]) => (x.name < y.name ? -1 : x.name > y.name ? 1 : a < b ? -1 : a > b ? 1 : 0));
      for (const [folder, e] of byName) {
        for (const version of sortedOf(owned, folder)) refs.push({ name: e.name, version, path: versionFolderPath(e.packagesDir, e.name, version) });
      }
      return { refs, notes: [] };
    },
    async touched(changes, { head, from }, o) {
      // Each packages folder a change can sit in, with the package names changed there.
      const byDir = new Map<string, Set<string>>();
      for (const c of changes) {
        for (const p of [c.path, c.oldPath]) {
          if (p === undefined) continue;
          for (const d of candidates(p)) {
            const at = locatePackagePath(p, d);
            if (!at) continue;
            let names = byDir.get(d);
            if (!names) byDir.set(d, (names = new Set()));
            names.add(at.name);
          }
        }
      }
      // A change is a change of content: edits of package.yaml / metadata.yaml that parse to the same
      // documents on both sides (comments, key order, whitespace) touch nothing; anything else does.
      const unchanged = async (cs: readonly FileChange[], file: string) => {
        if (!cs.every((c) => (c.status === 'M' || c.status === 'R') && path.posix.basename(c.path) === file)) return false;
        for (const c of cs) if (!sameDocuments(await from.tree.read(c.oldPath ?? c.path), await head.tree.read(c.path))) return false;
        return true;
      };
      const changed: ChangedVersion[] = [];
      const removed: PackageVersionRef[] = [];
      for (const [d, names] of byDir) {
        // A long pathspec list costs more than listing the folder once.
        const paths = names.size > 64 ? (d === '' ? [] : [d]) : [...names].map((n) => (d === '' ? n : `${d}/${n}`));
        const atHead = versionFoldersFromFiles(await head.tree.files(paths), d);
        const sets = new Map([...atHead].map(([n, vs]) => [n, new Set(vs)]));
        const result = classifyChanges(changes, {
          packagesDir: d,
          ignore: o.ignore,
          isVersionFolderAtHead: (name, version) => sets.get(name)?.has(version) ?? false,
        });
        for (const v of result.versions) {
          if (await unchanged(v.changes, PACKAGE_FILE)) continue;
          changed.push({ name: v.name, version: v.version, path: versionFolderPath(d, v.name, v.version), reasons: v.reasons });
        }
        const touchedNames = new Set(changed.map((c) => c.name));
        for (const [name, cs] of [...result.metadata].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
          if (touchedNames.has(name) || (await unchanged(cs, METADATA_FILE))) continue;
          let top: string | undefined;
          for (const v of atHead.get(name) ?? []) if (top === undefined || o.compare(v, top) > 0) top = v;
          if (top === undefined) continue; // the whole package is gone at head, or no TCE package
          changed.push({
            name,
            version: top,
            path: versionFolderPath(d, name, top),
            reasons: [`${versionFolderPath(d, name, METADATA_FILE)} changed; ${top} is the highest version`],
          });
        }
        for (const r of result.removed) {
          const p = versionFolderPath(d, r.name, r.version);
          // Its package.yaml moved to another version folder and parses the same there: the Package is not gone.
          const to = changes.find((c) => c.status === 'R' && c.oldPath === `${p}/${PACKAGE_FILE}`);
          if (to && (await unchanged([to], PACKAGE_FILE))) continue;
          removed.push({ ...r, path: p });
        }
      }
      return { changed, removed };
    },
    async load(tree, ref, owned) {
      const pd = packagesDirOf(ref.path);
      const folder = packageFolderOf({ packagesDir: pd, name: ref.name });
      const listed = foldersOf(owned).get(folder)?.versions ?? [];
      const inTree = listed.includes(ref.version) && ref.path === versionFolderPath(pd, ref.name, ref.version);
      // Every read through the tree (a commit's or the working tree's), never the disk behind it.
      // loadVersion only for what the listing lacks: it gives the unknown package/version errors.
      const reader = treeReader(tree);
      const loaded = inTree
        ? await readVersion('', ref.name, { version: ref.version, path: ref.path, packageFile: `${ref.path}/${PACKAGE_FILE}` }, reader)
        : await loadVersion('', pd, ref.name, ref.version, reader);
      // A version folder without bundle/ (its Package fetches a bundle built elsewhere, as many of
      // TCE's do): the Package's own bundle is installed as it is, and bootstrap (which syncs
      // bundle/config) does not take it.
      const hasBundle = inTree ? bundledOf(owned).has(loaded.path) : (await tree.files([`${loaded.path}/bundle`])).length > 0;
      const bundle = `${loaded.path}/bundle`;
      return {
        ...loaded,
        layout: 'tce',
        released: loaded.pkg.pkg.spec.version,
        inPlay: [...sortedOf(owned, folder)],
        notes: hasBundle ? [] : [`no ${bundle}: the Package's own bundle (${ownImage(loaded.pkg)}) is installed as it is`],
        tree,
        push: hasBundle ? { kind: 'folder', folder: bundle } : { kind: 'as-is', image: ownImage(loaded.pkg) },
        ...(hasBundle ? { bootstrap: { folder: loaded.path, config: `${bundle}/config` } } : {}),
        releasedSource: (o) => releasedAt(loaded, tree, o),
      } satisfies LoadedPackage;
    },
  };
  return self;
}

/**
 * The released version of a version folder as of `o.baseRef` (its bundle/ exported from there);
 * without one at the base, the tree's own as the released one (said in the log).
 */
async function releasedAt(loaded: LoadedVersion, head: Tree, o: BuildOptions & { baseRef?: string }): Promise<ReleasedSource> {
  if (o.baseRef) {
    const base = await folderAtRef(o, o.baseRef, loaded.path, 'tce-');
    if (base) {
      const pkg = parsePackageFile(await readFile(path.join(base.root, loaded.path, PACKAGE_FILE), 'utf8'), `${loaded.path}/${PACKAGE_FILE}@${o.baseRef}`);
      const folder = path.join(base.root, loaded.path, 'bundle');
      const bundle = existsSync(folder) ? { folder } : { image: ownImage(pkg) };
      return { pkg, bundle, from: `${loaded.path} as of ${o.baseRef}`, atBase: true };
    }
  }
  o.log(`${loaded.path} does not exist at ${o.baseRef ?? 'the base ref'}; using the repository's version at head as ${loaded.pkg.pkg.spec.version}`);
  // The head's bundle, from the tree the package was read from (a commit's exported from it).
  const folder = await head.folder(`${loaded.path}/bundle`, o.tmp);
  return { pkg: loaded.pkg, bundle: folder ? { folder } : { image: ownImage(loaded.pkg) }, from: `${loaded.path} at head`, atBase: false };
}
