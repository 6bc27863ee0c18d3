/**
 * The layouts in play, chosen once at the edge (the `layout` input, `--layout`): `auto` gives
 * each file of the repository to the first layout that recognises it, in the order of AUTO_ORDER;
 * a named layout reads the repository alone. Everything else goes through `Layouts` and never
 * asks which layout a package version has.
 */
import { DevpkgError, UsageError } from '../errors.js';
import type { FileChange } from '../detect/classify.js';
import type { Problem } from '../packages/problems.js';
import type { PackageVersionRef } from '../results.js';
import { kctrlLayout } from './kctrl.js';
import { repositoryLayout } from './repository.js';
import { tceLayout } from './tce.js';
import type { ClusterReleasedLookup } from './released.js';
import { isUnder } from './tree.js';
import {
  LAYOUT_CHOICES,
  type BuildOptions,
  type BundleSource,
  type Layout,
  type LayoutChoice,
  type LayoutName,
  type LoadedPackage,
  type Owned,
  type ReleasedSource,
  type Touched,
  type Tree,
} from './types.js';

export type { ClusterReleased, ClusterReleasedLookup } from './released.js';
export type { BuildOptions, BundleSource, LayoutChoice, LayoutName, LoadedPackage, ReleasedSource, Tree } from './types.js';
export { LAYOUT_CHOICES } from './types.js';
export { commitTree, memoryTree, workTree } from './tree.js';

/** One module per layout; a fourth layout is one more entry here (and its module and tests). */
const MODULES: Record<LayoutName, (o: OpenOptions) => Layout> = {
  tce: (o) => tceLayout(o.packagesDir),
  kctrl: (o) => kctrlLayout({ releasedVersion: o.releasedVersion || undefined, tags: gitTags, ...(o.clusterReleased ? { cluster: o.clusterReleased } : {}) }),
  repository: () => repositoryLayout(),
};

export interface OpenOptions {
  /** TCE's packages folder (packages-dir). */
  packagesDir: string;
  /** kctrl: the released version git does not hold (released-version, --released-version). */
  releasedVersion?: string;
  /** Cluster mode: the cluster's Packages, the chain's step after the git tags (layouts/released.ts). */
  clusterReleased?: ClusterReleasedLookup;
}

async function gitTags(root: string): Promise<string[]> {
  const { execTool } = await import('../tools/exec.js');
  const r = await execTool('git', ['-C', root, 'tag', '--list'], { allowFail: true });
  return r.code === 0 ? r.stdout.split('\n').map((t) => t.trim()).filter(Boolean) : [];
}

/** Which layout auto tries first: a folder with package-build.yml wins over everything inside it. */
const AUTO_ORDER: readonly LayoutName[] = ['kctrl', 'tce', 'repository'];

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

export class Layouts {
  private readonly listings = new WeakMap<Tree, Promise<Listing>>();

  private constructor(
    readonly choice: LayoutChoice,
    readonly modules: readonly Layout[],
  ) {}

  static open(choice: LayoutChoice, o: OpenOptions): Layouts {
    const names = choice === 'auto' ? AUTO_ORDER : [choice];
    return new Layouts(choice, names.map((n) => MODULES[n](o)));
  }

  /** Folders a diff has to look at ([] for the whole repository). */
  pathspec(): string[] {
    const specs = this.modules.map((m) => m.pathspec());
    return specs.some((s) => s.length === 0) ? [] : [...new Set(specs.flat())];
  }

  /** Pure: each file to the first layout that owns it. */
  assign(files: readonly string[]): Listing {
    const owned = new Map<LayoutName, Owned>();
    let rest = files;
    for (const m of this.modules) {
      const mine = m.owns(rest);
      owned.set(m.name, mine);
      if (this.modules.length > 1 && mine.roots.length > 0) rest = rest.filter((f) => !mine.roots.some((r) => isUnder(f, r)));
    }
    return { owned };
  }

  /** The listing of a tree, read once per tree. */
  listing(tree: Tree): Promise<Listing> {
    let l = this.listings.get(tree);
    if (!l) this.listings.set(tree, (l = tree.files(this.pathspec()).then((files) => this.assign(files))));
    return l;
  }

  private module(ref: PackageVersionRef): Layout {
    // A ref without its layout (a version folder named by hand, e.g. `devpkg dev --package`) is TCE's,
    // the layout devpkg read before there were others; never silently the first module.
    const m = this.modules.find((x) => x.name === (ref.layout ?? 'tce')) ?? (this.modules.length === 1 ? this.modules[0] : undefined);
    if (!m) throw new Error(`${ref.name}/${ref.version} (${ref.path}): layout ${ref.layout ?? 'tce'} is not among the layouts in use (${this.modules.map((x) => x.name).join(', ')})`);
    return m;
  }

  /** Every package version in the tree, each tagged with its layout. */
  async list(tree: Tree): Promise<PackageVersionRef[]> {
    const { owned } = await this.listing(tree);
    const out: PackageVersionRef[] = [];
    for (const m of this.modules) {
      for (const r of await m.list(tree, owned.get(m.name) ?? { files: [], roots: [] })) out.push({ ...r, layout: m.name });
    }
    return out;
  }

  /** The package versions NAME/VERSION names, as found in the tree (an unknown one is left for load to explain). */
  async find(tree: Tree, wanted: { name: string; version: string }[]): Promise<PackageVersionRef[]> {
    const all = await this.list(tree);
    // An unknown one goes to the first layout that holds anything here: its load says what is there.
    const { owned } = await this.listing(tree);
    const first = this.modules.find((m) => (owned.get(m.name)?.roots.length ?? 0) > 0) ?? this.modules[0]!;
    return wanted.map((w) => {
      const hits = all.filter((r) => r.name === w.name && r.version === w.version);
      if (hits.length > 1) {
        throw new DevpkgError(`packages: ${w.name}/${w.version} is in more than one place (${hits.map((h) => h.path).join(', ')}); choose one with the layout input (--layout)`, { exitCode: 2 });
      }
      return hits[0] ?? { ...w, path: first.pathOf(w.name, w.version), layout: first.name };
    });
  }

  /** What a diff touches, each layout looking at the files it owns on either side. */
  async touched(changes: readonly FileChange[], head: Tree, from: Tree, o: { ignore: readonly string[]; compare: (a: string, b: string) => number }): Promise<Touched> {
    const none: Owned = { files: [], roots: [] };
    const out: Touched = { changed: [], removed: [] };
    const single = this.modules.length === 1;
    // With one layout every change is its own; with several, a change belongs to the layout owning its folder.
    const [h, f] = single ? [undefined, undefined] : await Promise.all([this.listing(head), this.listing(from)]);
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

  /** Reads and checks one package version of `tree` (the working tree or a commit); says which layout read it. */
  async load(tree: Tree, ref: PackageVersionRef, o: { base?: Tree } = {}): Promise<LoadedPackage> {
    const m = this.module(ref);
    const { owned } = await this.listing(tree);
    const loaded = await m.load(tree, ref, owned.get(m.name) ?? { files: [], roots: [] }, o);
    const how = this.choice === 'auto' ? `layout ${m.name} (recognised by its files: ${ref.path})` : `layout ${m.name} (as set)`;
    return { ...loaded, tree, notes: [how, ...loaded.notes] };
  }

  /** Problems of one package version at a tree (never throws). */
  check(tree: Tree, ref: PackageVersionRef): Promise<Problem[]> {
    return this.module(ref).check(tree, ref);
  }

  bundle(loaded: LoadedPackage, o: BuildOptions): Promise<BundleSource> {
    return this.module(loaded).bundle(loaded, o);
  }

  released(loaded: LoadedPackage, o: BuildOptions & { baseRef?: string }): Promise<ReleasedSource | undefined> {
    return this.module(loaded).released(loaded, o);
  }
}
