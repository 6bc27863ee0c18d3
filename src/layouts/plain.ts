/**
 * The plain layout: a Package in a version folder, `<a folder named packages>/<name>/<version>/package.yml`
 * (`.yml`; TCE's is `package.yaml`), `<name>/metadata.yml` beside the version folders when there
 * is one, and the bundle's source in the version folder: `bundle/` (pushed), or `.imgpkg/images.yml`
 * with `config/` in the version folder itself (the version folder is the bundle: pushed), or
 * nothing (the Package fetches a bundle built elsewhere: installed as it is, as the upgrade from
 * the highest other version, as the repository layout does). TCE's secretgen-controller keeps its
 * later versions this way (`addons/packages/secretgen-controller/0.11.2/package.yml`, no bundle/).
 *
 * The rules are small pure functions (where the bundle comes from, which version is released,
 * which versions a change touches); the Layout object below only reads the tree for them.
 */
import path from 'node:path';
import { DevpkgError } from '../errors.js';
import { globMatcher } from '../detect/glob.js';
import type { FileChange } from '../detect/classify.js';
import { bundleFetch } from '../packages/derive.js';
import { checkFolderVersion, compareVersionFolders, normalizePackagesDir } from './tce-folders.js';
import { lineOf, parsePackageFile, type PackageResource } from '../packages/model.js';
import type { PackageVersionRef, UpgradeFrom } from '../results.js';
import { compareVersions, parseVersion } from '../versions/index.js';
import { isPureRename, sameDocuments } from './content.js';
import { folderOf, inSkippedFolder, packageFolderOf, PLAIN_PACKAGE_FILE, plainVersionFolderOf, saysPackage, tcePackageFolders, TCE_PACKAGE_FILE, underAny, versionFolderOf } from './evidence.js';
import { folderAtRef, isUnder, memoryTree, workTree } from './tree.js';
import type { BuildOptions, ChangedVersion, Layout, LoadedPackage, PushPlan, ReleasedSource, Tree } from './types.js';

export const PLAIN_METADATA_FILE = 'metadata.yml';
/** The default packages-dir (TCE's): with it, version folders are found below any folder named `packages`. */
const DEFAULT_PACKAGES_DIR = 'addons/packages';

/** How a version folder's bundle is delivered: a folder pushed as it is, or the Package's own bundle used as it is. */
export type PlainPush = { push: string; why: string } | { own: true };

/**
 * Pure: the push plan of a version folder, from the files below it. `bundle/` is pushed; else a
 * version folder holding `.imgpkg/images.yml` is the bundle itself (the packaging tutorial's
 * `config/` + `.imgpkg/`); else the Package's own bundle is installed as it is.
 */
export function pushPlanOf(versionFolder: string, files: readonly string[]): PlainPush {
  const inside = (p: string) => files.some((f) => isUnder(f, `${versionFolder}/${p}`));
  if (inside('bundle')) return { push: `${versionFolder}/bundle`, why: `${versionFolder}/bundle` };
  if (files.includes(`${versionFolder}/.imgpkg/images.yml`)) return { push: versionFolder, why: `${versionFolder} (it holds .imgpkg/images.yml: the version folder is the bundle)` };
  return { own: true };
}

/** The released version a load starts from, and the version it is the upgrade from (a Package installed as it is). */
export interface PlainReleased {
  /** The released version (the baseline's); the Package's own when there is none. */
  version: string;
  /** The other version it is the upgrade from, undefined when there is none (a first install, or the same version edited). */
  from?: string;
  words: string;
}

/**
 * Pure: which version is released. A pushed bundle derives a dev Package: the same version at the
 * base is the release it stands in for, else the highest other version there (a new version
 * folder is the upgrade from it), else a first install; without a base the version folder is its
 * own release (as TCE's). A Package installed as it is is pinned: it is the upgrade from the highest
 * other version at the base (without a base, the highest below it), never from itself.
 */
export function releasedPlain(version: string, o: { pinned: boolean; base?: { versions: readonly string[]; at: string }; below: readonly string[] }): PlainReleased {
  const highest = (vs: readonly string[]) => vs.filter((v) => v !== version && parseVersion(v) !== undefined).sort(compareVersions).at(-1);
  if (!o.pinned) {
    if (!o.base) return { version, words: `released version ${version}: the version folder's own (no base to compare with)` };
    if (o.base.versions.includes(version)) return { version, words: `released version ${version}: the same version folder at ${o.base.at}` };
    const top = highest(o.base.versions);
    return top ? { version: top, from: top, words: `released version ${top}: the highest other version folder at ${o.base.at}` } : { version, words: `no version folder of it at ${o.base.at}: a first install` };
  }
  const pool = o.base ? o.base.versions : o.below.filter((v) => parseVersion(v) !== undefined && parseVersion(version) !== undefined && compareVersions(v, version) < 0);
  const top = highest(pool);
  const where = o.base ? `other version folder at ${o.base.at}` : 'version folder below it';
  return top ? { version: top, from: top, words: `upgrade from ${top}, the highest ${where}` } : { version, words: `no earlier version folder${o.base ? ` at ${o.base.at}` : ''}: a first install` };
}

/** Pure: the other versions in play (see load). */
export function othersInPlay(version: string, o: { pinned: boolean; here: readonly string[]; base?: readonly string[] }): string[] {
  const below = (v: string) => parseVersion(v) !== undefined && parseVersion(version) !== undefined && compareVersions(v, version) < 0;
  const pool = o.pinned ? (o.base ?? o.here.filter(below)) : [...o.here, ...(o.base ?? [])];
  return [...new Set(pool)].filter((v) => v !== version).sort(compareVersionFolders);
}

/** Pure: every version folder of a package folder (plain's package.yml or TCE's package.yaml: one refName's versions in play). */
export function versionsIn(files: readonly string[], packageFolder: string): string[] {
  const out = new Set<string>();
  for (const f of files) {
    const v = plainVersionFolderOf(f) ?? versionFolderOf(f);
    if (v && packageFolderOf(v) === packageFolder) out.add(v.version);
  }
  return [...out].sort(compareVersionFolders);
}

/** Pure: the version folder (`<packages>/<name>/<version>`) a path is in, given the version folders known. */
function versionFolderIn(p: string, folders: ReadonlySet<string>): string | undefined {
  const parts = p.split('/');
  for (let i = parts.length - 1; i > 0; i--) {
    const d = parts.slice(0, i).join('/');
    if (folders.has(d)) return d;
  }
  return undefined;
}

const refOfFolder = (vf: string): PackageVersionRef => ({ name: path.posix.basename(folderOf(vf)), version: path.posix.basename(vf), path: vf });
const key = (r: { name: string; version: string }) => `${r.name}/${r.version}`;
const WORDS: Record<string, string> = { A: 'added', M: 'modified', D: 'deleted', R: 'renamed', C: 'copied', T: 'type changed' };

/**
 * Pure: what a diff touches, given the version folders on each side and whether an edit of
 * package.yml / metadata.yml changed what it parses to (`same`). A pure rename that keeps a file's
 * place in its version folder is no change (the folder moved); a version folder whose package.yml
 * is gone at head, and did not move unchanged, is removed; a metadata.yml edit touches the highest
 * version of its package.
 */
export function touchedPlain(
  changes: readonly FileChange[],
  o: { head: readonly string[]; from: readonly string[]; ignored: (p: string) => boolean; same: (c: FileChange) => boolean; compare: (a: string, b: string) => number },
): { changed: ChangedVersion[]; removed: PackageVersionRef[] } {
  const head = new Set(o.head);
  const from = new Set(o.from);
  const within = (p: string, d: string) => p.slice(d.length + 1);
  const changed = new Map<string, ChangedVersion>();
  const add = (vf: string, reason: string) => {
    const r = refOfFolder(vf);
    const c = changed.get(key(r));
    if (c) c.reasons.push(reason);
    else changed.set(key(r), { ...r, reasons: [reason] });
  };
  const movedAway = new Set<string>();
  for (const c of changes) {
    if (o.ignored(c.path)) continue;
    const at = c.status === 'D' ? undefined : versionFolderIn(c.path, head);
    const was = c.oldPath !== undefined ? versionFolderIn(c.oldPath, from) : c.status === 'D' ? versionFolderIn(c.path, from) : undefined;
    // The folder moved: the file kept its place in it and its content.
    if (isPureRename(c) && at && was && within(c.path, at) === within(c.oldPath!, was)) {
      if (within(c.path, at) === PLAIN_PACKAGE_FILE) movedAway.add(was);
      continue;
    }
    const base = path.posix.basename(c.path);
    if ((base === PLAIN_PACKAGE_FILE || base === PLAIN_METADATA_FILE) && o.same(c)) {
      if (was && base === PLAIN_PACKAGE_FILE) movedAway.add(was);
      continue;
    }
    const reason = `${WORDS[c.status] ?? c.status} ${c.oldPath ? `${c.oldPath} -> ` : ''}${c.path}`;
    if (at) add(at, reason);
    else if (base === PLAIN_METADATA_FILE && c.status !== 'D') {
      // `<packages>/<name>/metadata.yml`: the package's highest version at head.
      const pkg = folderOf(c.path);
      const top = o.head.filter((v) => folderOf(v) === pkg).map((v) => path.posix.basename(v)).sort(o.compare).at(-1);
      if (top !== undefined) add(`${pkg}/${top}`, `${c.path} changed; ${top} is the highest version`);
    }
  }
  const removed = o.from.filter((vf) => !head.has(vf) && !movedAway.has(vf)).map(refOfFolder);
  return { changed: [...changed.values()], removed };
}

/** The bundle a Package fetches, refused at its line when it fetches none or several. */
function ownImage(pkg: PackageResource): string {
  return bundleFetch(pkg.pkg, (p) => ({ file: pkg.file, line: lineOf(pkg, p) })).image;
}

export function plainLayout(packagesDir?: string): Layout {
  const given = packagesDir === undefined ? undefined : normalizePackagesDir(packagesDir);
  const dir = given === DEFAULT_PACKAGES_DIR ? undefined : given;
  const folderOfFile = (f: string) => {
    const v = plainVersionFolderOf(f, dir);
    return v && `${packageFolderOf(v)}/${v.version}`;
  };
  const versionFolders = (files: readonly string[]) => files.flatMap((f) => folderOfFile(f) ?? []).sort();
  // A package folder's files, listed once per tree (load asks for the other versions).
  const listed = new WeakMap<Tree, Map<string, Promise<string[]>>>();
  const filesOf = (tree: Tree, folder: string) => {
    let m = listed.get(tree);
    if (!m) listed.set(tree, (m = new Map()));
    let p = m.get(folder);
    if (!p) m.set(folder, (p = tree.files([folder])));
    return p;
  };
  const fileOf = (ref: PackageVersionRef) => `${ref.path}/${PLAIN_PACKAGE_FILE}`;
  const isPackage = async (tree: Tree, vf: string) => saysPackage((await tree.read(`${vf}/${PLAIN_PACKAGE_FILE}`)) ?? '');
  const parse = (text: string, file: string, version: string) => checkFolderVersion(parsePackageFile(text, file), version);
  /** The Package of a version folder at a tree (package.yml, or TCE's package.yaml beside plain ones), undefined when it has none. */
  const packageAt = async (tree: Tree, vf: string): Promise<PackageResource | undefined> => {
    for (const name of [PLAIN_PACKAGE_FILE, TCE_PACKAGE_FILE]) {
      const text = await tree.read(`${vf}/${name}`);
      if (text !== undefined) return parsePackageFile(text, `${vf}/${name}@${tree.label}`);
    }
    return undefined;
  };

  /** The released version as kind mode installs it first: the version folder `loaded.released` at the base ref (or the working tree). */
  const releasedAt = async (loaded: { path: string; released: string; pinnedNone: boolean }, o: BuildOptions & { baseRef?: string }): Promise<ReleasedSource | undefined> => {
    const vf = `${folderOf(loaded.path)}/${loaded.released}`;
    const where = o.baseRef ? o.baseRef.slice(0, 12) : 'the working tree';
    if (loaded.pinnedNone) {
      o.log(`${vf}: no released version to install first (pinned to none)`);
      return undefined;
    }
    // The version folder as it was at the base, exported as the scope names it (as TCE's and
    // kctrl's are): a monorepo's scope is a subfolder of the top level.
    const tree: Tree = o.baseRef ? ((await folderAtRef(o, o.baseRef, vf, 'plain-base-')) ?? memoryTree({}, o.baseRef.slice(0, 12))) : workTree(o.root);
    const pkg = await packageAt(tree, vf);
    if (!pkg) {
      o.log(`${vf} is not in ${where}: no released version to install first`);
      return undefined;
    }
    const plan = pushPlanOf(vf, await tree.files([vf]));
    const folder = 'own' in plan ? undefined : await tree.folder(plan.push, o.tmp);
    return { pkg, bundle: folder ? { folder } : { image: ownImage(pkg) }, from: `${vf}${o.baseRef ? ` as of ${o.baseRef}` : ''}`, atBase: o.baseRef !== undefined };
  };

  const self: Layout = {
    name: 'plain',
    scope: {
      evidence: `version folders ${dir === undefined ? '<a folder named packages>' : dir || '.'}/<name>/<version>/${PLAIN_PACKAGE_FILE} (the plain form)`,
      owns(files, o = {}) {
        const vfs = files.filter((f) => o.all || dir !== undefined || !inSkippedFolder(f)).flatMap((f) => folderOfFile(f) ?? []);
        if (vfs.length === 0) return { files: [], roots: [] };
        // A package folder TCE also holds version folders in (secretgen-controller's) is TCE's; the plain version folders in it are ours.
        const tce = tcePackageFolders(files);
        const roots = new Set(vfs.map((vf) => (tce.has(folderOf(vf)) ? vf : folderOf(vf))));
        return { files: files.filter((f) => underAny(f, roots)), roots: [...roots].sort() };
      },
      pathspec: dir === undefined || dir === '' ? [] : [dir],
      pathOf: (name, version) => `${dir ?? 'packages'}/${name}/${version}`.replace(/^\//, ''),
      problemFile: (p) => `${p}/${PLAIN_PACKAGE_FILE}`,
    },
    async list(tree, owned) {
      // package.yml is a common name (espanso's hub keeps packages/<name>/<version>/package.yml too): one
      // that does not say kind: Package is no Package, only a note (broken YAML that says it is one is listed, and refused at load).
      const refs: PackageVersionRef[] = [];
      const notes: string[] = [];
      for (const vf of versionFolders(owned.files)) {
        if (await isPackage(tree, vf)) refs.push(refOfFolder(vf));
        else notes.push(`${vf}/${PLAIN_PACKAGE_FILE} says no kind: Package: not a package`);
      }
      refs.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : compareVersionFolders(a.version, b.version)));
      return { refs, notes };
    },
    async touched(changes, { head, from }, o) {
      const [h, f] = await Promise.all([head.owned(), from.owned()]);
      const fixed = new Set([PLAIN_PACKAGE_FILE, PLAIN_METADATA_FILE]);
      // Which edits parse to the same documents on both sides (comments, key order): read before the pure rules run.
      const same = new Set<FileChange>();
      await Promise.all(
        changes.map(async (c) => {
          if ((c.status === 'M' || c.status === 'R') && fixed.has(path.posix.basename(c.path)) && sameDocuments(await from.tree.read(c.oldPath ?? c.path), await head.tree.read(c.path))) same.add(c);
        }),
      );
      const t = touchedPlain(changes, { head: versionFolders(h.files), from: versionFolders(f.files), ignored: globMatcher(o.ignore), same: (c) => same.has(c), compare: o.compare });
      // Only Packages count: a package.yml that says no kind: Package on its side is no package version.
      const keep = async <T extends PackageVersionRef>(refs: T[], tree: Tree) => (await Promise.all(refs.map(async (r) => ((await isPackage(tree, r.path)) ? [r] : [])))).flat();
      return { changed: await keep(t.changed, head.tree), removed: await keep(t.removed, from.tree) };
    },
    async load(tree, ref, owned, o = {}) {
      const file = fileOf(ref);
      const text = await tree.read(file);
      const pkgFolder = folderOf(ref.path);
      const files = owned.files.some((x) => isUnder(x, ref.path)) ? owned.files : await filesOf(tree, pkgFolder);
      if (text === undefined) {
        const known = versionsIn(await filesOf(tree, pkgFolder), pkgFolder).join(', ') || 'none';
        throw new DevpkgError(`unknown version ${ref.version} of package ${ref.name}: no ${file} in ${tree.label}; known versions: ${known}`);
      }
      const pkg = parse(text, file, ref.version);
      const plan = pushPlanOf(ref.path, files);
      const pinned = 'own' in plan;
      // Refused at its line now when the Package names no single bundle to install as it is.
      const image = pinned ? ownImage(pkg) : undefined;
      const version = pkg.pkg.spec.version;
      const here = versionsIn(await filesOf(tree, pkgFolder), pkgFolder);
      const baseVersions = o.base ? versionsIn(await filesOf(o.base, pkgFolder), pkgFolder) : undefined;
      const r = releasedPlain(version, { pinned, below: here, ...(baseVersions && o.base ? { base: { versions: baseVersions, at: o.base.label } } : {}) });
      // In play: a Package installed as it is competes with the base's versions (without a base, those
      // below it: plan --all plans each version as the upgrade from the one below, as a package
      // repository's); a derived dev Package outranks every version folder there is.
      const others = othersInPlay(version, { pinned, here, ...(baseVersions ? { base: baseVersions } : {}) });
      const upgradeFrom: UpgradeFrom | null = r.from ? { version: r.from, file: `${pkgFolder}/${r.from}`, at: o.base?.ref ?? (o.base ?? tree).label } : null;
      const push: PushPlan = 'own' in plan ? { kind: 'as-is', image: image! } : { kind: 'folder', folder: plan.push };
      return {
        name: ref.name,
        version: ref.version,
        path: ref.path,
        packageFile: file,
        pkg,
        layout: 'plain',
        released: r.version,
        ...(r.version !== version || pinned ? { releasedFrom: r.words } : {}),
        ...(pinned ? { upgradeFrom, pinned: { version, by: `the Package in ${file}: version`, file, ...(lineOf(pkg, 'spec.version') !== undefined ? { line: lineOf(pkg, 'spec.version')! } : {}) } } : {}),
        inPlay: pinned ? others : [...others, version],
        notes: [r.words, pinned ? `no bundle folder in ${ref.path}: the Package's own bundle (${image}) is installed as it is` : `bundle pushed from ${plan.why}`],
        tree,
        push,
        releasedSource: (b) => releasedAt({ path: ref.path, released: r.version, pinnedNone: pinned && upgradeFrom === null }, b),
      } satisfies LoadedPackage;
    },
  };
  return self;
}
