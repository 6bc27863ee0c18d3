/**
 * A package repository bundle's source (the packaging tutorial, `kctrl package repository
 * release`): a `packages/` folder of YAML files holding Package and PackageMetadata documents,
 * usually `packages/<refName>/metadata.yml` and `packages/<refName>/<version>.yml`, but any
 * file names and groupings count. The Packages are in git and their bundles are built elsewhere:
 * a pull request adds or changes a Package, and the Package's own bundle is installed as it is,
 * as the upgrade from the highest other version of its refName (chart-testing's --upgrade).
 */
import path from 'node:path';
import { DevpkgError, errorMessage } from '../errors.js';
import { globMatcher } from '../detect/glob.js';
import { bundleFetch, parseImageRef } from '../packages/derive.js';
import { lineOf, parsePackageDocs, type PackageDoc, type PackageResource } from '../packages/model.js';
import type { Problem } from '../packages/problems.js';
import type { PackageVersionRef } from '../results.js';
import { compareVersions, parseVersion } from '../versions/index.js';
import { inSkippedFolder, plainPackageFolders, saysPackage, tcePackageFolders, underAny } from './evidence.js';
import { sameValue, yamlDocuments } from './content.js';
import { commitTree } from './tree.js';
import type { BuildOptions, ChangedVersion, Layout, LoadedPackage, Owned, ReleasedSource, Tree } from './types.js';

const YAML = /\.ya?ml$/;
/** kctrl's evidence files (layouts/kctrl.ts): never a repository's Package file. */
const KCTRL_FILES = new Set(['package-build.yml', 'package-resources.yml']);

/** Pure: the `packages` folder a file sits in (the nearest), or undefined. Its `.imgpkg/` does not count. */
export function packagesRootOf(file: string): string | undefined {
  if (!YAML.test(file)) return undefined;
  const parts = file.split('/');
  for (let i = parts.length - 2; i >= 0; i--) {
    if (parts[i] === '.imgpkg') return undefined;
    if (parts[i] === 'packages') return parts.slice(0, i + 1).join('/');
  }
  return undefined;
}

interface FileDocs {
  file: string;
  /** The text read (what its PackageMetadata documents are compared by). */
  text?: string;
  packages: PackageDoc[];
  metadata: string[];
  /** The YAML error, when the file does not parse and says it is a Package (kind: Package). */
  error?: DevpkgError;
  /** Why the file is no package (no Package in it, or YAML strict parsing rejects that ytt may take), for the notes. */
  note?: string;
}


async function readDocs(tree: Tree, file: string): Promise<FileDocs | undefined> {
  const text = await tree.read(file);
  if (text === undefined) return undefined;
  const none = (why: string): FileDocs => ({ file, text, packages: [], metadata: [], note: `${file} ${why}: not a package` });
  // Most files under packages/ that are not Package files never reach the parser.
  if (!saysPackage(text) && !/^\s*kind:\s*["']?PackageMetadata/m.test(text)) return none('holds no Package');
  try {
    // kapp-controller runs ytt over the folder, so ytt comments (#@) are only comments here.
    const docs = parsePackageDocs(text, file);
    return docs.packages.length === 0 && docs.metadata.length === 0 ? none('holds no Package') : { file, text, ...docs };
  } catch (err) {
    if (!(err instanceof DevpkgError)) throw err;
    // A file strict YAML rejects is a broken package only when it says it is one (a ytt template may repeat keys).
    return saysPackage(text) ? { file, text, packages: [], metadata: [], error: err } : none(`is not strict YAML (${err.message.split(';')[0]}; ytt may accept it) and says no kind: Package`);
  }
}

/**
 * The package's name (names its PackageInstall, service account and bundle repository): the first
 * label of its refName, `simple-app` of `simple-app.corp.com`.
 */
export function nameOfRefName(refName: string): string {
  return refName.split('.')[0] ?? refName;
}

/** Pure: how a file's broken content is named: `packages/<refName>/<version>.yml` gives both. */
function nameFromPath(file: string): { name: string; version: string } {
  return { name: nameOfRefName(path.posix.basename(path.posix.dirname(file))), version: path.posix.basename(file).replace(YAML, '') };
}

/** Pure: the package versions of one file (broken documents included, named as well as they can be). */
export function refsOfFile(f: FileDocs): PackageVersionRef[] {
  if (f.error) return [{ ...nameFromPath(f.file), path: f.file }];
  const fallback = nameFromPath(f.file);
  return f.packages.map((p) => ({ name: p.refName ? nameOfRefName(p.refName) : fallback.name, version: p.version ?? fallback.version, path: f.file }));
}

const key = (r: { name: string; version: string }) => `${r.name}\0${r.version}`;

function highestOf(versions: readonly string[]): string | undefined {
  return versions.filter((v) => parseVersion(v) !== undefined).sort(compareVersions).at(-1);
}

/** The Package a ref names, checked as kapp-controller would take it; throws with file and line. */
function packageOf(f: FileDocs, ref: PackageVersionRef): PackageResource {
  if (f.error) throw f.error;
  const doc = f.packages.find((p) => nameOfRefName(p.refName ?? '') === ref.name && (p.version ?? '') === ref.version) ?? (f.packages.length === 1 ? f.packages[0] : undefined);
  if (!doc) {
    const known = f.packages.map((p) => `${p.refName}/${p.version}`).join(', ') || 'none';
    throw new DevpkgError(`unknown package ${ref.name}/${ref.version}: ${f.file} holds no Package named ${ref.name} (the first label of its refName) of version ${ref.version} (it holds: ${known})`, { file: f.file, line: 1 });
  }
  if (doc.error) throw doc.error;
  const res = doc.res!;
  const expected = `${res.pkg.spec.refName}.${res.pkg.spec.version}`;
  if (res.pkg.metadata.name !== expected) {
    // kapp-controller refuses it, and in a package repository the file is what it is given.
    throw new DevpkgError(`Package metadata.name ${JSON.stringify(res.pkg.metadata.name)} is not spec.refName + "." + spec.version; kapp-controller refuses it: write name: ${expected}`, {
      file: f.file,
      line: lineOf(res, 'metadata.name') ?? doc.line,
    });
  }
  const { image } = bundleFetch(res.pkg, (p) => ({ file: f.file, line: lineOf(res, p) }));
  const warnings = res.warnings.filter((w) => !w.message.startsWith('Package metadata.name'));
  const byTag = tagReferenced(res, image);
  return { ...res, warnings: byTag ? [...warnings, byTag] : warnings };
}

/**
 * Pure: the warning for a Package whose bundle is referenced by tag. kapp-controller installs it
 * (and resolves the tag again on every sync), so devpkg uses it as it is; where a registry is
 * reached (kind: imgpkg copy; cluster: the registry's manifest) the dev Package pins the digest
 * it resolved. The plan reaches none: it says so.
 */
export function tagReferenced(res: PackageResource, image: string): Problem | undefined {
  if (parseImageRef(image)?.digest !== undefined) return undefined;
  const fetch = res.pkg.spec.template?.spec?.fetch ?? [];
  const i = Array.isArray(fetch) ? fetch.findIndex((x) => x && typeof x === 'object' && x.imgpkgBundle) : -1;
  return {
    path: res.file,
    line: lineOf(res, `spec.template.spec.fetch.${Math.max(i, 0)}.imgpkgBundle.image`),
    severity: 'warning',
    message:
      `bundle ${image} is referenced by tag: kapp-controller installs it, resolving the tag again on every sync, so devpkg uses it as it is; ` +
      'kind and cluster modes pin the digest the tag resolves to in the dev Package (the plan reaches no registry: pinned at push time). ' +
      'Pin it by digest (repo@sha256:...) so that what is tested is what is released',
  };
}

const lineAt = (res: PackageResource, p: string) => {
  const line = lineOf(res, p);
  return line === undefined ? {} : { line };
};

/** Pure: the plan's word on a bundle referenced by tag (its warning names the line). */
function ownBundleNote(res: PackageResource): string[] {
  const image = bundleFetch(res.pkg).image;
  return parseImageRef(image)?.digest === undefined ? [`bundle ${image} is used as it is, referenced by tag: kind and cluster modes pin the digest it resolves to in the dev Package; the plan reaches no registry (pinned at push time)`] : [];
}

/** Pure: the PackageMetadata documents of a YAML text, by metadata.name (none when it does not parse). */
function metadataOf(text: string): Map<string, unknown> {
  const out = new Map<string, unknown>();
  for (const d of yamlDocuments(text) ?? []) {
    const m = d as { kind?: unknown; metadata?: { name?: unknown } } | null;
    if (m && typeof m === 'object' && m.kind === 'PackageMetadata' && typeof m.metadata?.name === 'string') out.set(m.metadata.name, m);
  }
  return out;
}

export function repositoryLayout(): Layout {
  // Every file of a listing read once (load asks for the other versions of a refName).
  const parsed = new WeakMap<Owned, Promise<FileDocs[]>>();
  const allDocs = (tree: Tree, owned: Owned) => {
    let p = parsed.get(owned);
    if (!p) parsed.set(owned, (p = Promise.all(owned.files.map((f) => readDocs(tree, f))).then((l) => l.filter((x): x is FileDocs => x !== undefined))));
    return p;
  };
  // The base tree listed and read once for every package a run loads (each load asks it).
  const listed = new WeakMap<Tree, Promise<Owned>>();
  const ownedAt = (tree: Tree) => {
    let p = listed.get(tree);
    if (!p) listed.set(tree, (p = tree.files().then((files) => self.scope.owns(files))));
    return p;
  };
  const versionsOf = async (tree: Tree, owned: Owned, refName: string) =>
    (await allDocs(tree, owned)).flatMap((f) => f.packages.filter((p) => p.res && p.refName === refName).map((p) => ({ version: p.version!, file: f.file, doc: p })));

  const self: Layout = {
    name: 'repository',
    scope: {
      evidence: 'YAML files holding Package documents under a folder named packages (a package repository bundle)',
      owns(files, opt = {}) {
        // A TCE version folder is TCE's wherever it is (whichever layouts are in play), a plain one plain's, a kctrl folder's two files kctrl's.
        const taken = new Set([...tcePackageFolders(files), ...plainPackageFolders(files)]);
        const mine = files.filter(
          (f) => packagesRootOf(f) !== undefined && (opt.all || !inSkippedFolder(f)) && !underAny(f, taken) && !KCTRL_FILES.has(path.posix.basename(f)),
        );
        return { files: mine, roots: [...new Set(mine.map((f) => packagesRootOf(f)!))].sort() };
      },
      pathspec: [],
      pathOf: (name, version) => `packages/${name}/${version}.yml`,
      problemFile: (p) => p,
    },
    async list(tree, owned) {
      const docs = await allDocs(tree, owned);
      return { refs: docs.flatMap(refsOfFile), notes: docs.flatMap((d) => (d.note ? [d.note] : [])) };
    },
    async touched(changes, { head, from }, o) {
      const ignored = globMatcher(o.ignore);
      const headFiles = new Set<string>();
      const fromFiles = new Set<string>();
      for (const c of changes) {
        if (c.status !== 'D' && packagesRootOf(c.path) && !ignored(c.path)) headFiles.add(c.path);
        const old = c.oldPath ?? c.path;
        if ((c.status !== 'A' && c.status !== 'C') && packagesRootOf(old) && !ignored(old)) fromFiles.add(old);
      }
      const [h, f] = await Promise.all([
        Promise.all([...headFiles].map((x) => readDocs(head.tree, x))),
        Promise.all([...fromFiles].map((x) => readDocs(from.tree, x))),
      ]);
      const before = new Map<string, { pkg: unknown; file: string }>();
      // The PackageMetadata documents before, by refName (a change of content only counts).
      const metadataBefore = new Map<string, unknown>();
      for (const docs of f) {
        if (docs?.text !== undefined) for (const [refName, m] of metadataOf(docs.text)) metadataBefore.set(refName, m);
        refsOfFile(docs ?? { file: '', packages: [], metadata: [] }).forEach((ref, i) => {
          const p = docs!.packages[i];
          if (p) before.set(key(ref), { pkg: p.res?.pkg ?? null, file: docs!.file });
        });
      }
      const changed = new Map<string, ChangedVersion>();
      const after = new Set<string>();
      const metadataOnly = new Set<string>();
      for (const docs of h) {
        if (!docs) continue;
        const metadataNow = docs.text === undefined ? new Map<string, unknown>() : metadataOf(docs.text);
        for (const m of docs.metadata) if (!metadataBefore.has(m) || !sameValue(metadataBefore.get(m), metadataNow.get(m))) metadataOnly.add(m);
        if (docs.error) {
          const [ref] = refsOfFile(docs);
          changed.set(key(ref!), { ...ref!, reasons: [`changed ${docs.file} (it does not parse)`] });
          continue;
        }
        const refs = refsOfFile(docs);
        docs.packages.forEach((p, i) => {
          const ref = refs[i]!;
          const k = key(ref);
          after.add(k);
          const was = before.get(k);
          // The same Package whatever its comments, key order or file: no change.
          if (was && sameValue(was.pkg, p.res?.pkg ?? null)) return;
          const reason = !was ? `added ${ref.name}/${ref.version} in ${docs.file}` : was.file === docs.file ? `modified ${ref.name}/${ref.version} in ${docs.file}` : `moved ${ref.name}/${ref.version} from ${was.file} to ${docs.file} and changed it`;
          changed.set(k, { ...ref, reasons: [reason] });
        });
      }
      const removed: PackageVersionRef[] = [];
      for (const [k, was] of before) {
        if (after.has(k)) continue;
        const [name, version] = k.split('\0') as [string, string];
        removed.push({ name, version, path: was.file });
      }
      // A PackageMetadata change alone marks the highest version of its refName.
      const touchedNames = new Set([...changed.values()].map((c) => c.name));
      for (const refName of metadataOnly) {
        const name = nameOfRefName(refName);
        if (touchedNames.has(name)) continue;
        const versions = await versionsOf(head.tree, await head.owned(), refName);
        const top = highestOf(versions.map((v) => v.version));
        const at = versions.find((v) => v.version === top);
        if (top && at) changed.set(key({ name, version: top }), { name, version: top, path: at.file, reasons: [`the PackageMetadata of ${refName} changed; ${top} is its highest version`] });
      }
      return { changed: [...changed.values()], removed };
    },
    async load(tree, ref, owned, o = {}) {
      // The listing parsed it already (plan --all loads every one): parse once.
      const listed = owned.files.includes(ref.path) ? (await allDocs(tree, owned)).find((d) => d.file === ref.path) : undefined;
      const f = listed ?? (await readDocs(tree, ref.path));
      if (!f) throw new DevpkgError(`unknown package ${ref.name}/${ref.version}: no file ${ref.path} in ${tree.label}`);
      const pkg = packageOf(f, ref);
      const refName = pkg.pkg.spec.refName;
      // With a base ref, the released version is the highest other one there (and a higher one
      // is in play: the change must outrank it); without, each version is the upgrade from the
      // one below it in the tree.
      const candidates = o.base
        ? (await versionsOf(o.base, await ownedAt(o.base), refName)).filter((v) => v.version !== ref.version)
        : (await versionsOf(tree, owned, refName)).filter((v) => parseVersion(v.version) !== undefined && compareVersions(v.version, ref.version) < 0);
      const others = candidates.map((v) => v.version);
      const released = highestOf(others);
      const at = (o.base ?? tree).label;
      const from = candidates.find((c) => c.version === released);
      const upgradeFrom = released && from ? { version: released, file: from.file, at: o.base?.ref ?? at } : null;
      const where = o.base ? `other version of ${refName} at ${at}` : `version of ${refName} below it in the repository`;
      const words = upgradeFrom
        ? `upgrade from ${released}, the highest ${where} (${upgradeFrom.file})`
        : `no earlier version of ${refName}${o.base ? ` at ${at}` : ''}: a first install`;
      return {
        name: ref.name,
        version: ref.version,
        path: ref.path,
        packageFile: ref.path,
        pkg,
        layout: 'repository',
        released: released ?? ref.version,
        ...(upgradeFrom ? { releasedFrom: `${released}, the highest ${where} (${upgradeFrom.file}): the Package is installed as the upgrade from it` } : {}),
        upgradeFrom,
        inPlay: others,
        pinned: { version: pkg.pkg.spec.version, by: `the Package in ${ref.path}: version`, file: ref.path, ...lineAt(pkg, 'spec.version') },
        notes: [words, ...ownBundleNote(pkg)],
        tree,
        push: { kind: 'as-is', image: bundleFetch(pkg.pkg).image },
        releasedSource: (b) => releasedAt({ name: ref.name, version: ref.version, refName }, b),
      } satisfies LoadedPackage;
    },
  };
  const releasedAt = async (loaded: { name: string; version: string; refName: string }, o: BuildOptions & { baseRef?: string }): Promise<ReleasedSource | undefined> => {
    let tree: Tree;
    if (o.baseRef) {
      const { Git } = await import('../tools/git.js');
      tree = commitTree(await Git.create(o.root, o.exec), o.baseRef);
    } else {
      const { workTree } = await import('./tree.js');
      tree = workTree(o.root);
    }
    const owned = self.scope.owns(await tree.files());
    const candidates = (await versionsOf(tree, owned, loaded.refName)).filter((v) => v.version !== loaded.version);
    const top = highestOf(candidates.map((c) => c.version));
    const at = candidates.find((c) => c.version === top);
    if (!at?.doc.res) return undefined;
    try {
      const res = at.doc.res;
      return { pkg: res, bundle: { image: bundleFetch(res.pkg, (p) => ({ file: at.file, line: lineOf(res, p) })).image }, from: `${at.file}${o.baseRef ? ` as of ${o.baseRef}` : ''}`, atBase: o.baseRef !== undefined };
    } catch (err) {
      const line = err instanceof DevpkgError ? err.line : undefined;
      throw new DevpkgError(`the released ${loaded.name} ${top} (${at.file}) cannot be installed: ${errorMessage(err)}`, { cause: err, file: at.file, ...(line !== undefined ? { line } : {}) });
    }
  };
  return self;
}
