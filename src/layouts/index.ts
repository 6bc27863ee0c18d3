/**
 * The layouts in play, chosen once at the edge (the `layout` input, `--layout`): `auto` gives
 * each file of the repository to the first layout that recognises it, in the order of AUTO_ORDER;
 * a named layout reads the repository alone. Everything else goes through `Layouts` and never
 * asks which layout a package version has.
 */
import { DevpkgError, UsageError } from '../errors.js';
import type { FileChange } from '../detect/classify.js';
import type { PackageVersionRef } from '../results.js';
import { kctrlLayout } from './kctrl.js';
import { plainLayout } from './plain.js';
import { repositoryLayout } from './repository.js';
import { DEFAULT_TCE_PACKAGES_DIR, tceLayout } from './tce.js';
import { loadVersionFolder, normalizePackagesDir } from './tce-folders.js';
import type { ClusterReleasedLookup } from './released.js';
import { isUnder } from './tree.js';
import { folderOf, PLAIN_PACKAGE_FILE, TCE_PACKAGE_FILE } from './evidence.js';
import {
  LAYOUT_CHOICES,
  type BuildOptions,
  type BundleSource,
  type Layout,
  type LayoutChoice,
  type LayoutName,
  type LoadedPackage,
  type Owned,
  type Touched,
  type Tree,
} from './types.js';

export type { ClusterReleased, ClusterReleasedLookup } from './released.js';
export type { BootstrapSource, BuildOptions, BundleSource, LayoutChoice, LayoutName, LoadedPackage, PushPlan, ReleasedSource, Tree } from './types.js';
export { LAYOUT_CHOICES } from './types.js';
export type { LoadedVersion } from './types.js';
export { normalizePackagesDir };
export { commitTree, memoryTree, workTree } from './tree.js';
/** The packages-dir a run has when none is set (TCE's `addons/packages`). */
export { DEFAULT_TCE_PACKAGES_DIR as DEFAULT_PACKAGES_DIR } from './tce.js';

/** One module per layout; a fourth layout is one more entry here (and its module and tests). */
const MODULES: Record<LayoutName, (o: OpenOptions) => Layout> = {
  tce: (o) => tceLayout(o.packagesDir),
  kctrl: (o) => kctrlLayout({ releasedVersion: o.releasedVersion || undefined, tags: gitTags, ...(o.clusterReleased ? { cluster: o.clusterReleased } : {}) }),
  repository: () => repositoryLayout(),
  plain: (o) => plainLayout(o.packagesDir),
};

export interface OpenOptions {
  /**
   * TCE's packages folder (packages-dir). Undefined or the default (addons/packages): TCE's
   * version folders are found below any folder named `packages` in the scope; any other value
   * narrows TCE to that folder, and finding nothing there is an error.
   */
  packagesDir?: string;
  /** kctrl: the released version git does not hold (released-version, --released-version). */
  releasedVersion?: string;
  /** Cluster mode: the cluster's Packages, the chain's step after the git tags (layouts/released.ts). */
  clusterReleased?: ClusterReleasedLookup;
}

/** The tags reachable from a commit (`git tag --merged AT`): a tag the commit cannot see was not released before it. */
async function gitTags(root: string, at: string): Promise<string[]> {
  const { execTool } = await import('../tools/exec.js');
  const r = await execTool('git', ['-C', root, 'tag', '--list', '--merged', at], { allowFail: true });
  return r.code === 0 ? r.stdout.split('\n').map((t) => t.trim()).filter(Boolean) : [];
}

/** The order auto lists layouts in (claims never overlap: evidence decides, and two claims on one folder are an error). */
const AUTO_ORDER: readonly LayoutName[] = ['kctrl', 'tce', 'plain', 'repository'];

/** The layouts packages-dir narrows (version folders below a packages folder); the others search the whole scope. */
const NARROWED: readonly LayoutName[] = ['tce', 'plain'];

/** Pure: the packages-dir value when it narrows the search (set, and not the default). */
function narrowing(packagesDir: string | undefined): string | undefined {
  if (packagesDir === undefined) return undefined;
  const d = normalizePackagesDir(packagesDir);
  return d === DEFAULT_TCE_PACKAGES_DIR ? undefined : d;
}

/** Pure: what a listing holds, in words, for the error when the layouts asked for find nothing. */
export function describeFiles(files: readonly string[], modules: readonly Layout[]): string {
  const parts: string[] = [];
  for (const m of modules) {
    const o = m.scope.owns(files, { all: true });
    if (o.roots.length === 0) continue;
    const shown = o.roots.slice(0, 3).map((r) => r || '.').join(', ');
    parts.push(`${m.name}: ${o.roots.length} folder${o.roots.length === 1 ? '' : 's'} (${shown}${o.roots.length > 3 ? ', ...' : ''})`);
  }
  return parts.length ? `what is there: ${parts.join('; ')}` : `no package of any layout is there (${files.length} files)`;
}

export function parseLayoutChoice(text: string, what: string): LayoutChoice {
  const t = (text || 'auto').trim().toLowerCase();
  if (!(LAYOUT_CHOICES as readonly string[]).includes(t)) {
    throw new UsageError(`${what}: "${text}" is not a layout; use one of ${LAYOUT_CHOICES.join(', ')}`);
  }
  return t as LayoutChoice;
}

export interface Listing {
  /** What each layout owns of the tree. */
  owned: Map<LayoutName, Owned>;
}

/** Where `kctrl package release` writes the package repository it makes, in the package's folder (its default). */
const KCTRL_RELEASE_OUTPUT = 'carvel-artifacts';

/** Evidence: a folder two layouts claim (exit 2: the layout input decides). */
function ambiguity(folder: string, a: LayoutName, b: LayoutName, why: string): DevpkgError {
  return new DevpkgError(`${folder || '.'}: both layout ${a} and layout ${b} could claim it (${why}); choose one with the layout input (--layout ${a} or --layout ${b})`, { exitCode: 2 });
}

export class Layouts {
  private readonly listings = new WeakMap<Tree, Promise<Listing>>();
  private readonly everything = new WeakMap<Tree, Promise<Listing>>();
  private readonly recognised = new WeakMap<Tree, Promise<{ refs: PackageVersionRef[]; notes: string[] }>>();

  private constructor(
    readonly choice: LayoutChoice,
    readonly modules: readonly Layout[],
    /** packages-dir, when it narrows the search. */
    readonly packagesDir: string | undefined,
    private readonly o: OpenOptions,
  ) {}

  static open(choice: LayoutChoice, o: OpenOptions): Layouts {
    const names = choice === 'auto' ? AUTO_ORDER : [choice];
    return new Layouts(choice, names.map((n) => MODULES[n](o)), narrowing(o.packagesDir), o);
  }

  /** Folders a diff has to look at ([] for the whole repository). */
  pathspec(): string[] {
    const specs = this.modules.map((m) => m.scope.pathspec);
    return specs.some((s) => s.length === 0) ? [] : [...new Set(specs.flat())];
  }

  /**
   * Pure: what each layout can own of a listing, from the paths alone. Folders in
   * SKIPPED_FOLDERS (examples, testdata, ...) are left out unless `all`. A folder that two
   * layouts claim by their evidence is an error naming both.
   */
  assign(files: readonly string[], o: { all?: boolean } = {}): Listing {
    const owned = new Map<LayoutName, Owned>();
    for (const m of this.modules) owned.set(m.name, m.scope.owns(files, o));
    // kctrl's and TCE's evidence are both paths: kctrl's two files inside a TCE package folder are two
    // claims on one folder. A TCE tree below a kctrl package's folder is another package (the
    // deepest claim wins: a repository with package-build.yml at its root may hold anything else).
    const kctrl = owned.get('kctrl')?.roots ?? [];
    for (const r of owned.get('tce')?.roots ?? []) {
      const k = kctrl.find((d) => isUnder(d, r));
      if (k !== undefined) throw ambiguity(k, 'kctrl', 'tce', `${k || '.'} holds package-build.yml and package-resources.yml, and it is in ${r}, a TCE package folder`);
    }
    // TCE's package.yaml and the plain form's package.yml in one version folder: two claims on it.
    const plain = owned.get('plain');
    if (plain && plain.roots.length > 0 && (owned.get('tce')?.roots.length ?? 0) > 0) {
      const tceFiles = new Set(owned.get('tce')!.files);
      for (const f of plain.files) {
        if (!f.endsWith(`/${PLAIN_PACKAGE_FILE}`)) continue;
        const twin = `${f.slice(0, -PLAIN_PACKAGE_FILE.length)}${TCE_PACKAGE_FILE}`;
        if (tceFiles.has(twin)) throw ambiguity(folderOf(f), 'tce', 'plain', `it holds both ${TCE_PACKAGE_FILE} and ${PLAIN_PACKAGE_FILE}`);
      }
    }
    // kctrl package release writes its package repository (carvel-artifacts/packages/...) into the
    // package's folder: that output is the kctrl package's, not a package repository of its own.
    const repo = owned.get('repository');
    if (repo && kctrl.length > 0) {
      const outputs = kctrl.map((k) => (k === '' ? KCTRL_RELEASE_OUTPUT : `${k}/${KCTRL_RELEASE_OUTPUT}`));
      const isOutput = (f: string) => outputs.some((o) => isUnder(f, o));
      const dropped = [...new Set(repo.roots.filter(isOutput))];
      if (dropped.length > 0) {
        owned.set('repository', {
          ...repo,
          files: repo.files.filter((f) => !isOutput(f)),
          roots: repo.roots.filter((r) => !isOutput(r)),
          notes: [...(repo.notes ?? []), ...dropped.map((d) => `${d}: kctrl package release's output of the kctrl package around it, read as that package's, not as a package repository`)],
        });
      }
    }
    return { owned };
  }

  /** The listing of a tree, read once per tree (`all`: skipped folders included). */
  listing(tree: Tree, o: { all?: boolean } = {}): Promise<Listing> {
    const cache = o.all ? this.everything : this.listings;
    let l = cache.get(tree);
    if (!l) cache.set(tree, (l = tree.files(this.pathspec()).then((files) => this.assign(files, o))));
    return l;
  }

  private module(ref: PackageVersionRef): Layout {
    // A ref without its layout (a version folder named by hand, e.g. `devpkg dev --package`) is TCE's,
    // the layout devpkg read before there were others; never silently the first module.
    const m = this.modules.find((x) => x.name === (ref.layout ?? DEFAULT_LAYOUT)) ?? (this.modules.length === 1 ? this.modules[0] : undefined);
    if (!m) throw new Error(`${ref.name}/${ref.version} (${ref.path}): layout ${ref.layout ?? DEFAULT_LAYOUT} is not among the layouts in use (${this.modules.map((x) => x.name).join(', ')})`);
    return m;
  }

  private async listed(tree: Tree, o: { all?: boolean } = {}): Promise<{ refs: PackageVersionRef[]; notes: string[] }> {
    const { owned } = await this.listing(tree, o);
    const refs: PackageVersionRef[] = [];
    const notes: string[] = [];
    for (const m of this.modules) {
      const mine = owned.get(m.name) ?? { files: [], roots: [] };
      const l = await m.list(tree, mine);
      notes.push(...(mine.notes ?? []), ...l.notes);
      for (const r of l.refs) refs.push({ ...r, layout: m.name });
    }
    // A Package file inside a kctrl package's folder (other than its own package-resources.yml) for
    // the same package (kctrl's release output kept beside its source, say) is claimed twice. A
    // Package of another package there is that other package (kapp-controller's repository holds
    // package-build.yml at its root and a test package repository under test/e2e/assets).
    const kctrl = refs.filter((r) => r.layout === 'kctrl');
    for (const r of refs) {
      if (r.layout !== 'repository') continue;
      const k = kctrl.find((x) => x.name === r.name && isUnder(r.path, x.path === '.' ? '' : x.path));
      if (k !== undefined) throw ambiguity(k.path, 'kctrl', 'repository', `${k.path} holds package-build.yml and package-resources.yml of ${k.name}, and ${r.path} holds a Package of ${r.name} too`);
    }
    return { refs, notes };
  }

  /**
   * Every package version in the tree, each tagged with its layout. A layout set by the layout
   * input, or a packages-dir, that finds none is an error naming what was looked for and what is there.
   */
  async list(tree: Tree): Promise<PackageVersionRef[]> {
    let r = this.recognised.get(tree);
    if (!r) this.recognised.set(tree, (r = this.listed(tree)));
    const { refs } = await r;
    await this.requireFound(tree, refs);
    return refs;
  }

  /** What looked like a package and is not (a lone package-build.yml, a file under packages/ with no Package), in words. */
  async notes(tree: Tree): Promise<string[]> {
    let r = this.recognised.get(tree);
    if (!r) this.recognised.set(tree, (r = this.listed(tree)));
    return (await r).notes;
  }

  /** The error when a layout set by the layout input, or a narrowing packages-dir, finds nothing; undefined when nothing was asked for or something was found. */
  async nothingFound(tree: Tree, found: readonly { layout?: string }[]): Promise<DevpkgError | undefined> {
    const tce = this.modules.find((m) => m.name === 'tce');
    const asked: Layout | undefined = this.choice !== 'auto' ? this.modules[0] : this.packagesDir !== undefined ? tce : undefined;
    // In auto, packages-dir narrows every layout of version folders (NARROWED): a package of any of them was found there.
    const counts = (l: string) => l === asked?.name || (this.choice === 'auto' && NARROWED.includes(l as LayoutName));
    if (!asked || found.some((f) => counts(f.layout ?? DEFAULT_LAYOUT))) return undefined;
    const all = await tree.files();
    const search = AUTO_ORDER.map((n) => MODULES[n]({ ...this.o, packagesDir: undefined }));
    const where = tree.root ?? tree.label;
    const what =
      this.choice !== 'auto'
        ? `layout ${asked.name} (the layout input, --layout)`
        : `packages-dir ${this.packagesDir || '.'} (--packages-dir)`;
    const fix = this.choice !== 'auto' ? 'set the layout input to the layout of what is there, or auto' : 'set packages-dir to the folder holding <name>/<version>/package.yaml, or leave it out';
    return new DevpkgError(`${what} found no package in ${where} (${tree.label}): it looks for ${asked.scope.evidence}; ${describeFiles(all, search)}; ${fix}`);
  }

  private async requireFound(tree: Tree, refs: PackageVersionRef[]): Promise<void> {
    const err = await this.nothingFound(tree, refs);
    if (err) throw err;
  }

  /**
   * The package versions NAME/VERSION names, as found in the tree; one not found among the
   * searched folders is looked for in the skipped ones (naming it asks for it); an unknown one is
   * left for load to explain.
   */
  async find(tree: Tree, wanted: { name: string; version: string }[]): Promise<PackageVersionRef[]> {
    const all = await this.list(tree);
    const match = (refs: PackageVersionRef[], w: { name: string; version: string }) => refs.filter((r) => r.name === w.name && r.version === w.version);
    const missing = wanted.some((w) => match(all, w).length === 0);
    const more = missing ? (await this.listed(tree, { all: true })).refs : [];
    // An unknown one goes to the first layout that holds anything here: its load says what is there.
    const { owned } = await this.listing(tree);
    const first = this.modules.find((m) => (owned.get(m.name)?.roots.length ?? 0) > 0) ?? this.modules[0]!;
    return wanted.map((w) => {
      let hits = match(all, w);
      if (hits.length === 0) hits = match(more, w);
      if (hits.length > 1) {
        throw new DevpkgError(`packages: ${w.name}/${w.version} is in more than one place (${hits.map((h) => h.path).join(', ')}); choose one with the layout input (--layout)`, { exitCode: 2 });
      }
      return hits[0] ?? { ...w, path: first.scope.pathOf(w.name, w.version), layout: first.name };
    });
  }

  /** What a diff touches, each layout looking at the files it owns on either side. */
  async touched(changes: readonly FileChange[], head: Tree, from: Tree, o: { ignore: readonly string[]; compare: (a: string, b: string) => number }): Promise<Touched> {
    const none: Owned = { files: [], roots: [] };
    const out: Touched = { changed: [], removed: [] };
    const single = this.modules.length === 1;
    // With one layout every change is its own; with several, a change belongs to the layout owning its folder.
    const [h, f] = single && !this.asked() ? [undefined, undefined] : await Promise.all([this.listing(head), this.listing(from)]);
    if (this.asked()) {
      // A layout set by the layout input, or a narrowing packages-dir, that owns nothing on either side is an error, not "nothing changed".
      const has = (l: Listing | undefined) => [...(l?.owned ?? new Map<LayoutName, Owned>())].filter(([, x]) => x.roots.length > 0).map(([n]) => ({ layout: n }));
      const err = await this.nothingFound(head, [...has(h), ...has(f)]);
      if (err) throw err;
    }
    for (const m of this.modules) {
      let mine = changes;
      if (!single) {
        const roots = (x: Layout) => [...(h?.owned.get(x.name)?.roots ?? []), ...(f?.owned.get(x.name)?.roots ?? [])];
        const own = roots(m);
        const others = this.modules.filter((x) => x !== m).flatMap(roots);
        // The deepest claim wins: a kctrl package in a subfolder of a repository's tree is kctrl's.
        const depth = (p: string, rs: string[]) => Math.max(-1, ...rs.filter((r) => isUnder(p, r)).map((r) => r.length));
        const ownsPath = (p: string) => depth(p, own) >= 0 && depth(p, own) > depth(p, others);
        mine = changes.filter((c) => ownsPath(c.path) || (c.oldPath !== undefined && ownsPath(c.oldPath)));
      }
      const owned = (l: Promise<Listing> | undefined, t: Tree) => async () => (await (l ?? this.listing(t))).owned.get(m.name) ?? none;
      const t = await m.touched(mine, { head: { tree: head, owned: owned(h && Promise.resolve(h), head) }, from: { tree: from, owned: owned(f && Promise.resolve(f), from) } }, o);
      out.changed.push(...t.changed.map((c) => ({ ...c, layout: m.name })));
      out.removed.push(...t.removed.map((c) => ({ ...c, layout: m.name })));
    }
    return out;
  }

  /** Whether a layout or a packages-dir was asked for (then finding nothing is an error). */
  private asked(): boolean {
    return this.choice !== 'auto' || this.packagesDir !== undefined;
  }

  /** Reads and checks one package version of `tree` (the working tree or a commit); says which layout read it. */
  async load(tree: Tree, ref: PackageVersionRef, o: { base?: Tree } = {}): Promise<LoadedPackage> {
    const m = this.module(ref);
    const { owned } = await this.listing(tree);
    const loaded = await m.load(tree, ref, owned.get(m.name) ?? { files: [], roots: [] }, o);
    const how = this.choice === 'auto' ? `layout ${m.name} (recognised by its files: ${ref.path})` : `layout ${m.name} (as set)`;
    return { ...loaded, tree, notes: [how, ...loaded.notes] };
  }

  /**
   * The folder to push, from the tree the package was read from (built there first when its push
   * plan says so), or the Package's own bundle, used as it is: the push plan carried out.
   */
  bundle(loaded: LoadedPackage, o: BuildOptions): Promise<BundleSource> {
    return bundleSource(loaded, o);
  }
}

/**
 * A loaded package's push plan carried out (whichever layout read it): the folder to push, from
 * the tree the package was read from (built there first when the plan says so), or the Package's
 * own bundle, used as it is.
 */
export async function bundleSource(loaded: Pick<LoadedPackage, 'push' | 'tree' | 'name' | 'version' | 'packageFile'>, o: BuildOptions): Promise<BundleSource> {
  const p = loaded.push;
  if (p.kind === 'as-is') return { image: p.image };
  if (p.kind === 'build') return { folder: await p.build(o) };
  const folder = await loaded.tree.folder(p.folder, o.tmp);
  if (!folder) throw new DevpkgError(`${p.folder} is not in ${loaded.tree.label}; it is the folder ${loaded.name}/${loaded.version} pushes`, { file: loaded.packageFile, line: 1 });
  return { folder };
}

/**
 * A version folder named by hand (`devpkg dev --package`, `devpkg bootstrap --package`), checked
 * (a usage error naming `what` when it is a package folder, missing, or holds no Package): the
 * repository root to open it from (its packages folder being the root: packages-dir ''), and
 * the NAME/VERSION it holds.
 */
export async function locateVersionFolder(folder: string, what: string): Promise<{ root: string; name: string; version: string }> {
  const { root, loaded } = await loadVersionFolder(folder, what);
  return { root, name: loaded.name, version: loaded.version };
}

/** The tools the push plans of these package versions run (kctrl: ytt, kbld), in the order the builds run them. */
export function toolsOf(loaded: readonly Pick<LoadedPackage, 'push'>[]): string[] {
  return [...new Set(loaded.flatMap((l) => (l.push.kind === 'build' ? l.push.tools : [])))];
}

/** The layout a ref without one is read by (a version folder named by hand, `devpkg dev --package`). */
const DEFAULT_LAYOUT: LayoutName = 'tce';

/** Each layout with its options left out: enough for what depends on the paths alone. */
const PLAIN = new Map<LayoutName, Layout>();

/**
 * The file a package version's problems are reported on when its error names none (pure, from
 * the ref's layout and path): TCE's package.yaml in its version folder, a repository's file, ...
 */
export function problemFileOf(ref: PackageVersionRef): string {
  const name = (ref.layout ?? DEFAULT_LAYOUT) as LayoutName;
  const make = MODULES[name];
  if (!make) return ref.path;
  let m = PLAIN.get(name);
  if (!m) PLAIN.set(name, (m = make({})));
  return m.scope.problemFile(ref.path);
}
