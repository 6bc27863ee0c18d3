/**
 * kctrl's authoring layout (`kctrl package init` / `kctrl package release`, kctrl v0.40+): a folder
 * holding package-build.yml (PackageBuild: metadata.name is the refName; the template's ytt/kbld
 * steps; export[0]: the bundle image, useKbldImagesLock and includePaths) and
 * package-resources.yml (a Package, a PackageMetadata and a sample PackageInstall). The released
 * Package is not in git: kctrl renders it at release. devpkg does the release's steps itself
 * with ytt, kbld and imgpkg (kctrl is not obtainable from a package registry): ytt + kbld of the
 * template, `.imgpkg/images.yml` from `kbld --imgpkg-lock-output` when useKbldImagesLock, then
 * the includePaths copied, relative paths kept, into the folder that is pushed.
 */
import { cp, mkdir, mkdtemp, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Node } from 'yaml';
import { DevpkgError } from '../errors.js';
import type { FileChange } from '../detect/classify.js';
import { globMatcher } from '../detect/glob.js';
import { duplicateKeyError, lineOf, parsePackageDocs, refNameProblem, versionProblem, type Package, type PackageResource } from '../packages/model.js';
import type { Problem } from '../packages/problems.js';
import type { PackageVersionRef } from '../results.js';
import { duplicateKey } from '../packages/yaml-keys.js';
import { compareVersions, parseVersion } from '../versions/index.js';
import { folderOf, inSkippedFolder, underAny } from './evidence.js';
import { below, isPureRename, sameDocuments } from './content.js';
import { folderAtRef, isUnder } from './tree.js';
import { chooseReleased, needsCluster, type ClusterReleasedLookup, type ReleasedChoice, type TagFound } from './released.js';
import type { BuildOptions, ChangedVersion, Layout, LoadedPackage, Owned, ReleasedSource, Tree } from './types.js';

export const BUILD_FILE = 'package-build.yml';
export const RESOURCES_FILE = 'package-resources.yml';

export interface PackageBuild {
  file: string;
  /** The package folder ('' for the repository root). */
  dir: string;
  refName: string;
  image: string;
  useKbldImagesLock: boolean;
  includePaths: string[];
  /** The app template steps (ytt, kbld, ...), as kctrl writes them into the released Package. */
  template: unknown[];
  deploy?: unknown[];
  /** Paths the ytt steps read, relative to the folder. */
  yttPaths: string[];
  lines: Record<string, number>;
}

const rec = (v: unknown): Record<string, unknown> => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {});

function linesOf(node: Node | null, p: string, out: Record<string, number>, lc: LineCounter): void {
  if (!node) return;
  if (node.range) out[p] ??= lc.linePos(node.range[0]).line;
  const child = (k: string | number) => (p === '' ? String(k) : `${p}.${k}`);
  if (isMap(node)) {
    for (const pair of node.items) {
      const k = isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
      const keyNode = pair.key as Node | null;
      if (keyNode?.range) out[child(k)] = lc.linePos(keyNode.range[0]).line;
      linesOf(pair.value as Node | null, child(k), out, lc);
    }
  } else if (isSeq(node)) node.items.forEach((it, i) => linesOf(it as Node, child(i), out, lc));
}

/** Parses and checks a package-build.yml (pure). Errors carry file and line. */
export function parsePackageBuild(text: string, file: string): PackageBuild {
  const lc = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lc, prettyErrors: false, uniqueKeys: false });
  const err = doc.errors[0];
  if (err) throw new DevpkgError(`YAML syntax error (${err.code}): ${err.message}; fix the YAML at this line`, { file, line: lc.linePos(err.pos[0]).line });
  const dup = duplicateKey(doc);
  if (dup) throw duplicateKeyError(dup, file, lc);
  const lines: Record<string, number> = {};
  linesOf(doc.contents as Node | null, '', lines, lc);
  const at = (p: string) => ({ file, line: lineOf({ lines }, p) ?? 1 });
  const v = rec(doc.toJS());
  if (v.kind !== 'PackageBuild') throw new DevpkgError(`${file} is not a PackageBuild (kind ${JSON.stringify(v.kind ?? null)}); kctrl package init writes kind: PackageBuild`, at('kind'));
  const refName = rec(v.metadata).name;
  if (typeof refName !== 'string' || refName === '') throw new DevpkgError('PackageBuild metadata.name is missing; it is the refName, e.g. simple-app.corp.com', at('metadata'));
  const rp = refNameProblem(refName);
  if (rp) throw new DevpkgError(`PackageBuild metadata.name ${rp}`, at('metadata.name'));
  const spec = rec(rec(rec(v.spec).template).spec);
  const exports = Array.isArray(spec.export) ? spec.export : [];
  const first = rec(exports[0]);
  const bundle = rec(first.imgpkgBundle);
  if (exports.length === 0 || typeof bundle.image !== 'string' || bundle.image === '') {
    throw new DevpkgError(
      'PackageBuild has no export with an imgpkgBundle image (spec.template.spec.export[0].imgpkgBundle.image); devpkg pushes the bundle kctrl package release would, so it needs one: run kctrl package init or add the export',
      at(exports.length === 0 ? 'spec.template.spec' : 'spec.template.spec.export.0'),
    );
  }
  const includePaths = Array.isArray(first.includePaths) ? first.includePaths.map(String) : [];
  if (includePaths.length === 0) throw new DevpkgError('PackageBuild export[0] has no includePaths: nothing would go into the bundle; list the folders, e.g. [config, .imgpkg]', at('spec.template.spec.export.0'));
  const app = rec(rec(spec.app).spec);
  const template = Array.isArray(app.template) ? app.template : [];
  const yttPaths = template.flatMap((s) => {
    const ytt = rec(rec(s).ytt);
    return Array.isArray(ytt.paths) ? ytt.paths.map(String) : [];
  });
  const dir = path.posix.dirname(file) === '.' ? '' : path.posix.dirname(file);
  return {
    file,
    dir,
    refName,
    image: bundle.image,
    useKbldImagesLock: bundle.useKbldImagesLock === true,
    includePaths,
    template,
    ...(Array.isArray(app.deploy) ? { deploy: app.deploy } : {}),
    yttPaths,
    lines,
  };
}

/** Pure: the package's name (its PackageInstall, service account, bundle repository): the refName's first label. */
const nameOf = (refName: string) => refName.split('.')[0] ?? refName;

const rel = (dir: string, p: string) => path.posix.normalize(dir === '' ? p : `${dir}/${p}`).replace(/\/+$/, '');

/** Pure: the files of a package folder whose change touches the package. */
export function watchedBy(build: PackageBuild): (file: string) => boolean {
  const fixed = [BUILD_FILE, RESOURCES_FILE].map((f) => rel(build.dir, f));
  const dirs = [...build.includePaths, ...build.yttPaths].filter((p) => p !== '-').map((p) => rel(build.dir, p));
  return (file) =>
    fixed.includes(file) ||
    (path.posix.dirname(file) === (build.dir || '.') && /^vendir.*\.ya?ml$/.test(path.posix.basename(file))) ||
    dirs.some((d) => isUnder(file, d));
}

/**
 * Pure: the released version among tags: the highest of the package's own tags
 * (`<name>-v1.2.3`, `<name>/v1.2.3`, `<refName>-v1.2.3`, `<refName>/v1.2.3`) and the
 * repository-wide ones (`v1.2.3`, `1.2.3`). Where the repository holds more than one package
 * (`shared`), a package's own tags come first: a repository-wide tag is another package's as
 * likely as this one's.
 */
export function releasedFromTags(tags: readonly string[], refName: string, o: { shared?: boolean } = {}): Omit<TagFound, 'reachableFrom'> | undefined {
  const name = nameOf(refName);
  const esc = (t: string) => t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const prefix = new RegExp(`^(?:${esc(refName)}|${esc(name)})[/-]`);
  const found = tags.flatMap((tag) => {
    const own = prefix.test(tag);
    const version = tag.replace(prefix, '').replace(/^v/, '');
    return parseVersion(version) !== undefined && versionProblem(version) === undefined ? [{ version, tag, own }] : [];
  });
  const pool = o.shared && found.some((t) => t.own) ? found.filter((t) => t.own) : found;
  return pool.sort((a, b) => compareVersions(a.version, b.version) || Number(a.own) - Number(b.own)).at(-1);
}

export interface KctrlOptions {
  /** --released-version (input released-version). */
  releasedVersion?: string;
  /** The repository's tags reachable from a commit (`git tag --merged AT`), when it is a git repository. */
  tags?: (root: string, at: string) => Promise<string[]>;
  /** Cluster mode: the cluster's Packages of a refName, asked only when neither the flag nor a tag gives the version. */
  cluster?: ClusterReleasedLookup;
}

/** The Package kctrl release would render: package-resources.yml's, with the build's template and a bundle fetch. */
export function releasedPackage(build: PackageBuild, res: PackageResource, version: string, image: string): PackageResource {
  const pkg = structuredClone(res.pkg) as Package;
  pkg.metadata.name = `${build.refName}.${version}`;
  delete pkg.metadata.creationTimestamp;
  pkg.spec.refName = build.refName;
  pkg.spec.version = version;
  const spec = { ...(pkg.spec.template?.spec ?? {}) };
  spec.fetch = [{ imgpkgBundle: { image } }];
  if (build.template.length) spec.template = structuredClone(build.template);
  if (build.deploy) spec.deploy = structuredClone(build.deploy);
  pkg.spec.template = { ...(pkg.spec.template ?? {}), spec };
  return { ...res, pkg };
}

export function kctrlLayout(o: KctrlOptions = {}): Layout {
  const readBuild = async (tree: Tree, dir: string) => {
    const file = rel(dir, BUILD_FILE);
    const text = await tree.read(file);
    return text === undefined ? undefined : parsePackageBuild(text, file);
  };
  const refOf = (build: PackageBuild, version: string): PackageVersionRef => ({ name: nameOf(build.refName), version, path: build.dir || '.' });
  const dirOf = (ref: PackageVersionRef) => (ref.path === '.' ? '' : ref.path);
  // The version git does not hold: --released-version, else the highest matching tag reachable
  // from the base (without one, from the commit read; the working tree's is HEAD), else the
  // cluster's Packages (cluster mode), else 0.0.0 (layouts/released.ts says which and why).
  const tagsSeen = new Map<string, Promise<string[]>>();
  const tagsAt = (root: string, at: string) => {
    let t = tagsSeen.get(`${root}\0${at}`);
    if (!t) tagsSeen.set(`${root}\0${at}`, (t = o.tags ? o.tags(root, at).catch(() => []) : Promise.resolve([])));
    return t;
  };
  const releasedOf = async (tree: Tree, refName: string, owned: Owned, base?: Tree): Promise<ReleasedChoice> => {
    const flag = o.releasedVersion;
    const from = base ?? tree;
    const at = from.ref ?? 'HEAD';
    const found = flag || !from.root ? undefined : releasedFromTags(await tagsAt(from.root, at), refName, { shared: owned.roots.length > 1 });
    const tag = found && { ...found, reachableFrom: at };
    const cluster = needsCluster({ flag, tag }) && o.cluster ? await o.cluster(refName) : undefined;
    return chooseReleased({ flag, tag, cluster, ...(from.root ? { tagsAt: at } : {}) });
  };
  const safeBuild = async (tree: Tree, dir: string) => {
    try {
      return await readBuild(tree, dir);
    } catch {
      return undefined;
    }
  };

  const self: Layout = {
    name: 'kctrl',
    scope: {
      evidence: `a folder holding both ${BUILD_FILE} and ${RESOURCES_FILE} (kctrl package init)`,
      owns(files, opt = {}) {
        // Both files are the evidence: a lone package-build.yml (kctrl's older format, or a file of the same name) is not a package.
        const builds = new Set<string>();
        const resources = new Set<string>();
        for (const f of files) {
          if (!opt.all && inSkippedFolder(f)) continue;
          const b = path.posix.basename(f);
          if (b === BUILD_FILE) builds.add(folderOf(f));
          else if (b === RESOURCES_FILE) resources.add(folderOf(f));
        }
        const roots = [...builds].filter((d) => resources.has(d)).sort();
        const notes = [...builds]
          .filter((d) => !resources.has(d))
          .sort()
          .map((d) => `${rel(d, BUILD_FILE)} has no ${RESOURCES_FILE} beside it: not a kctrl package (kctrl package init writes both)`);
        const set = new Set(roots);
        return { files: roots.length ? files.filter((f) => underAny(f, set)) : [], roots, ...(notes.length ? { notes } : {}) };
      },
      pathspec: [],
      pathOf: (name) => name,
      problemFile: (p) => p,
    },
    async list(tree, owned) {
      const refs: PackageVersionRef[] = [];
      for (const dir of owned.roots) {
        let build: PackageBuild | undefined;
        try {
          build = await readBuild(tree, dir);
        } catch {
          refs.push({ name: nameOf(path.posix.basename(dir || 'package')), version: '0.0.0', path: dir || '.' });
          continue;
        }
        if (build) refs.push(refOf(build, (await releasedOf(tree, build.refName, owned)).version));
      }
      return { refs, notes: [] };
    },
    async touched(changes, { head, from }, opts) {
      const ignored = globMatcher(opts.ignore);
      const changed: ChangedVersion[] = [];
      const removed: PackageVersionRef[] = [];
      const [headOwned, fromOwned] = [await head.owned(), await from.owned()];
      const [headRoots, fromRoots] = [headOwned.roots, fromOwned.roots];
      const builds = async (tree: Tree, roots: readonly string[]) => new Map((await Promise.all(roots.map(async (d) => [d, await safeBuild(tree, d)] as const))));
      const [atHead, atFrom] = await Promise.all([builds(head.tree, headRoots), builds(from.tree, [...new Set([...fromRoots, ...headRoots])])]);
      const headRefNames = new Set([...atHead.values()].flatMap((b) => (b ? [b.refName] : [])));
      // A pure rename keeping the file's place in a package folder that moved (same refName): no change.
      const moved = (c: FileChange, dir: string, h: PackageBuild | undefined) =>
        isPureRename(c) &&
        fromRoots.some((d) => {
          const f = atFrom.get(d);
          return f !== undefined && f.refName === h?.refName && below(c.oldPath!, d) !== undefined && below(c.oldPath!, d) === below(c.path, dir);
        });
      // package-build.yml and package-resources.yml count when what they parse to changed.
      const fixed = new Set([BUILD_FILE, RESOURCES_FILE]);
      const sameParsed = async (c: FileChange) =>
        (c.status === 'M' || c.status === 'R') && fixed.has(path.posix.basename(c.path)) && sameDocuments(await from.tree.read(c.oldPath ?? c.path), await head.tree.read(c.path));
      for (const dir of new Set([...headRoots, ...fromRoots])) {
        const h = atHead.get(dir);
        const f = atFrom.get(dir);
        const buildFile = rel(dir, BUILD_FILE);
        const headHas = headRoots.includes(dir);
        // A refName gone from head (its folder removed, or metadata.name changed) is removed.
        if (f && !headRefNames.has(f.refName)) removed.push(refOf(f, (await releasedOf(from.tree, f.refName, fromOwned)).version));
        if (!headHas) continue;
        // An unreadable package-build.yml at head counts as changed (load then names the problem).
        const watched = h ? watchedBy(h) : (p: string) => p === buildFile;
        const watchedBefore = f ? watchedBy(f) : () => false;
        const mine = changes.filter((c) => !ignored(c.path) && (watched(c.path) || watchedBefore(c.path) || (c.oldPath !== undefined && (watched(c.oldPath) || watchedBefore(c.oldPath)))));
        const real: FileChange[] = [];
        for (const c of mine) if (!moved(c, dir, h) && !(await sameParsed(c))) real.push(c);
        const reasons = real.map((c) => `${{ A: 'added', M: 'modified', D: 'deleted', R: 'renamed', C: 'copied' }[c.status] ?? c.status} ${c.oldPath ? `${c.oldPath} -> ` : ''}${c.path}`);
        if (reasons.length === 0) continue;
        // The released version as the base sees it: the tags reachable from the commit diffed from.
        const ref = h ? refOf(h, (await releasedOf(head.tree, h.refName, headOwned, from.tree)).version) : { name: nameOf(path.posix.basename(dir || 'package')), version: '0.0.0', path: dir || '.' };
        changed.push({ ...ref, reasons });
      }
      return { changed, removed };
    },
    async load(tree, ref, owned, lo = {}) {
      const dir = dirOf(ref);
      const build = await readBuild(tree, dir);
      if (!build) throw new DevpkgError(`unknown package ${ref.name}: no ${rel(dir, BUILD_FILE)} in ${tree.label}`);
      const resFile = rel(dir, RESOURCES_FILE);
      const text = await tree.read(resFile);
      if (text === undefined) throw new DevpkgError(`${resFile} is missing beside ${build.file}; kctrl package init writes it (a Package, a PackageMetadata and a PackageInstall)`, { file: build.file, line: 1 });
      const docs = parsePackageDocs(text, resFile);
      const doc = docs.packages[0];
      if (!doc) throw new DevpkgError(`${resFile} holds no Package; kctrl package release renders the released Package from it`, { file: resFile, line: 1 });
      if (doc.error) throw doc.error;
      const res = doc.res!;
      if (res.pkg.spec.refName !== build.refName) {
        throw new DevpkgError(`the Package's spec.refName ${res.pkg.spec.refName} is not the PackageBuild's metadata.name ${build.refName}; make them the same`, { file: resFile, line: lineOf(res, 'spec.refName') });
      }
      const released = await releasedOf(tree, build.refName, owned, lo.base);
      const warnings: Problem[] = [];
      for (const [i, p] of build.includePaths.entries()) {
        const generated = build.useKbldImagesLock && path.posix.normalize(p).startsWith('.imgpkg');
        if (generated) continue;
        if ((await tree.files([rel(dir, p)])).length === 0) {
          warnings.push({ path: build.file, line: lineOf(build, `spec.template.spec.export.0.includePaths.${i}`), severity: 'warning', message: includeMissing(build, p) });
        }
      }
      const pkg = releasedPackage(build, { ...res, warnings: [...res.warnings.filter((w) => !w.message.startsWith('Package metadata.name')), ...warnings] }, released.version, `${build.image}:${released.version.replace(/\+/g, '_')}`);
      return {
        name: ref.name,
        version: released.version,
        path: ref.path,
        packageFile: resFile,
        pkg,
        layout: 'kctrl',
        released: released.version,
        releasedFrom: `${released.version}, ${released.why}`,
        releasedOrigin: released.origin,
        inPlay: [released.version],
        notes: [`released version ${released.version}: ${released.why}`, `bundle built from ${build.file}: ${build.includePaths.join(', ')}`],
        tree,
        push: { kind: 'build', file: build.file, tools: buildTools(build), what: buildWords(build), build: (b) => buildFrom(tree, ref, b) },
        releasedSource: (b) => releasedAt({ name: ref.name, path: ref.path, released: released.version }, b),
      } satisfies LoadedPackage;
    },
  };
  // Built from the tree the package was read from: a commit's folder is exported from it.
  const buildFrom = async (tree: Tree, ref: PackageVersionRef, b: BuildOptions) => {
    const build = await readBuild(tree, dirOf(ref));
    if (!build) throw new DevpkgError(`no ${rel(dirOf(ref), BUILD_FILE)} in ${tree.label}`);
    const src = await tree.folder(build.dir, b.tmp);
    if (!src) throw new DevpkgError(`${build.dir || 'the repository root'} is not in ${tree.label}`, { file: build.file, line: 1 });
    return buildBundle(build, src, b);
  };
  const releasedAt = async (loaded: { name: string; path: string; released: string }, b: BuildOptions & { baseRef?: string }): Promise<ReleasedSource | undefined> => {
    const dir = loaded.path === '.' ? '' : loaded.path;
    if (!b.baseRef) return undefined;
    const baseTree = await folderAtRef(b, b.baseRef, dir, 'kctrl-base-');
    if (!baseTree) return undefined;
    const build = await readBuild(baseTree, dir);
    if (!build) return undefined;
    // The exported folder has no git tags: the base is the released version the plan already chose.
    const base = await kctrlLayout({ ...o, releasedVersion: loaded.released }).load(baseTree, { name: loaded.name, version: loaded.released, path: loaded.path }, { files: [], roots: [] });
    const folder = await buildBundle(build, path.join(baseTree.root, dir), b);
    return { pkg: base.pkg, bundle: { folder }, from: `${build.file} as of ${b.baseRef}`, atBase: true };
  };
  return self;
}

async function exists(p: string): Promise<boolean> {
  return stat(p).then(
    () => true,
    () => false,
  );
}

function includeMissing(build: PackageBuild, p: string): string {
  const why = path.posix.normalize(p).startsWith('.imgpkg')
    ? ` (kctrl package release writes it only with useKbldImagesLock: true; with ${build.useKbldImagesLock} it must be in the repository, e.g. made by the project's own release script)`
    : '';
  return `includePaths entry ${p} does not exist in ${build.dir || 'the repository root'}${why}; the bundle cannot be built: add it, or remove it from includePaths`;
}

/** The tools kctrl package release's build runs (pure): ytt for the template, kbld for the images lock. */
export function buildTools(build: PackageBuild): string[] {
  const ytt = build.yttPaths.some((p) => p !== '-');
  return [...(ytt ? ['ytt'] : []), ...(ytt && build.useKbldImagesLock ? ['kbld'] : [])];
}

/** kctrl package release's build in words, for people reading the plan (pure). */
export function buildWords(build: PackageBuild): string {
  const at = build.dir || '.';
  const ytt = build.yttPaths.filter((p) => p !== '-').map((p) => `-f ${p}`).join(' ');
  const steps = [
    ...(ytt ? [`ytt ${ytt}${build.useKbldImagesLock ? ' | kbld -f - --imgpkg-lock-output .imgpkg/images.yml' : ''} in ${at}`] : []),
    `${build.includePaths.join(', ')} copied from ${at}, relative paths kept`,
  ];
  return `as kctrl package release builds it: ${steps.join('; ')}`;
}

/** kctrl package release's build, into a folder under b.tmp; returns the folder to push. */
async function buildBundle(build: PackageBuild, src: string, b: { exec: import('../tools/exec.js').ExecFn; tmp: string; log: (m: string) => void }): Promise<string> {
  const out = await mkdtemp(path.join(b.tmp, 'kctrl-bundle-'));
  for (const [i, p] of build.includePaths.entries()) {
    const generated = build.useKbldImagesLock && path.posix.normalize(p).startsWith('.imgpkg');
    if (generated) continue;
    if (!(await exists(path.join(src, p)))) {
      throw new DevpkgError(includeMissing(build, p), { file: build.file, line: lineOf(build, `spec.template.spec.export.0.includePaths.${i}`) });
    }
    await mkdir(path.dirname(path.join(out, p)), { recursive: true });
    await cp(path.join(src, p), path.join(out, p), { recursive: true });
  }
  const yttFiles = build.yttPaths.filter((p) => p !== '-');
  if (yttFiles.length > 0) {
    b.log(`${build.file}: ytt ${yttFiles.map((f) => `-f ${f}`).join(' ')}${build.useKbldImagesLock ? ' | kbld -f - --imgpkg-lock-output .imgpkg/images.yml' : ''}`);
    const ytt = await b.exec('ytt', yttFiles.flatMap((f) => ['-f', f]), { cwd: src, allowFail: true });
    if (ytt.code !== 0) throw new DevpkgError(`ytt of ${build.file}'s template failed (exit ${ytt.code}): ${ytt.stderr.trim().split('\n').slice(-5).join('\n')}`, { file: build.file, line: lineOf(build, 'spec.template.spec.app') });
    // The lock is what kbld is there for: without useKbldImagesLock its output is not kept.
    if (build.useKbldImagesLock) {
      await mkdir(path.join(out, '.imgpkg'), { recursive: true });
      const args = ['-f', '-', '--imgpkg-lock-output', path.join(out, '.imgpkg', 'images.yml')];
      const kbld = await b.exec('kbld', args, { cwd: src, input: ytt.stdout, allowFail: true });
      if (kbld.code !== 0) throw new DevpkgError(`kbld of ${build.file}'s template failed (exit ${kbld.code}): ${kbld.stderr.trim().split('\n').slice(-5).join('\n')}`, { file: build.file, line: lineOf(build, 'spec.template.spec.app') });
    }
  }
  if (!(await exists(path.join(out, '.imgpkg', 'images.yml')))) {
    // imgpkg needs the folder; a bundle with no images lists none.
    await mkdir(path.join(out, '.imgpkg'), { recursive: true });
    await writeFile(path.join(out, '.imgpkg', 'images.yml'), 'apiVersion: imgpkg.carvel.dev/v1alpha1\nkind: ImagesLock\nimages: []\n');
  }
  return out;
}

