/**
 * The seam between devpkg and the ways a packages repository is laid out. Each layout (TCE's
 * version folders, kctrl's authoring folders, package repository bundles) is one module behind
 * this interface; the edge chooses them once (layouts/index.ts) and detect, plan, the modes and
 * the report only ever see package versions, Packages and folders to push.
 */
import type { FileChange } from '../detect/classify.js';
import type { ChangedVersion, Touched } from '../detect/detect.js';

export type { ChangedVersion, Touched };
import type { PackageResource } from '../packages/model.js';
import type { Pin } from '../packages/devplan.js';
import type { PackageVersionRef, ReleasedOrigin, UpgradeFrom } from '../results.js';
import type { ExecFn } from '../tools/exec.js';

export const LAYOUTS = ['tce', 'kctrl', 'repository', 'plain'] as const;
export type LayoutName = (typeof LAYOUTS)[number];
export type LayoutChoice = 'auto' | LayoutName;
export const LAYOUT_CHOICES: readonly LayoutChoice[] = ['auto', ...LAYOUTS];

/** A repository at one commit, or its working tree: the only reads a layout makes there. */
export interface Tree {
  /** For messages: `the working tree`, or the commit. */
  readonly label: string;
  /** The commit, when the tree is one. */
  readonly ref?: string;
  /** The repository's folder on disk, when known (its git tags, say). */
  readonly root?: string;
  /** Every file below `paths` (everything when empty), repository-relative with `/`. */
  files(paths?: readonly string[]): Promise<string[]>;
  /** A file's text, undefined when it is not there. */
  read(file: string): Promise<string | undefined>;
  /**
   * `folder` on disk as this tree holds it (what is pushed or built): the working tree's own
   * folder, a commit's exported into a new folder under `tmp` (the caller removes `tmp`);
   * undefined when the tree has no such folder.
   */
  folder(folder: string, tmp: string): Promise<string | undefined>;
}

/** The files of a listing one layout takes, and the folders it claims (auto gives those to no other layout). */
export interface Owned {
  files: string[];
  /** Repository-relative folders ('' for the root) whose whole content belongs to this layout. */
  roots: string[];
  /** What looked like this layout's but is not (from the paths alone), for the plan's notes. */
  notes?: string[];
}

/** The package versions a layout found among the files it owns, and what it read but did not take. */
export interface Listed {
  refs: PackageVersionRef[];
  /** Files that looked like packages and are not (no Package in them, say), in words. */
  notes: string[];
}

/** One side of a diff, as a layout sees it. */
export interface Side {
  tree: Tree;
  /** What the layout owns of the tree (listed on demand: a diff often needs none of it). */
  owned: () => Promise<Owned>;
}

/**
 * How a package version's dev bundle is delivered, as data callers act on without asking which
 * layout read it: a folder of the tree pushed as it is, a bundle built first (by `build`, with
 * `tools` on PATH) and then pushed, or the Package's own bundle used as it is (nothing pushed).
 */
export type PushPlan =
  | { kind: 'folder'; /** Repository-relative folder, taken from the tree the package was read from. */ folder: string }
  | {
      kind: 'build';
      /** The file the build follows (for messages). */
      file: string;
      /** The tools the build runs, checked on PATH before anything starts. */
      tools: string[];
      /** The build in words, for the plan. */
      what: string;
      /** Builds the bundle into a new folder under o.tmp; returns it. */
      build(o: BuildOptions): Promise<string>;
    }
  | { kind: 'as-is'; image: string };

/**
 * What `devpkg dev`, `devpkg bootstrap` and bootstrap mode take: a version folder (given with
 * `--package`), whose `config` folder phase 1 syncs into the providers' _ytt_lib.
 */
export interface BootstrapSource {
  /** The version folder, repository-relative. */
  folder: string;
  /** The folder phase 1 copies into providers/ytt/vendir/<type>/_ytt_lib, repository-relative. */
  config: string;
}

/**
 * A package version read and checked: the Package the dev one is derived from, the released
 * version it starts from and the versions in play before a cluster is seen, and how it is
 * delivered (data the layout returns: callers never ask which layout read it).
 */
export interface LoadedPackage extends LoadedVersion {
  layout: LayoutName;
  /** The version the plan treats as released (the baseline's). */
  released: string;
  /** Where the released version came from, in words, when the layout had to work it out (kctrl) or chose it (repository). */
  releasedFrom?: string;
  /** The same as data, for the plan's JSON: the source, and the git tag read (kctrl). */
  releasedOrigin?: ReleasedOrigin;
  /** The version the Package is installed as the upgrade from (a package repository), null for a first install. */
  upgradeFrom?: UpgradeFrom | null;
  /** Other versions of the refName the repository holds (counted as in play). */
  inPlay: string[];
  /**
   * A version the dev Package must have, when the layout fixes it (a package repository: the
   * pull request's Package is installed as it is, as the upgrade from the released one).
   */
  pinned?: Pin;
  /** How the layout was chosen and what it read, for the plan. */
  notes: string[];
  /** The tree it was read from: a push plan's folder is taken from there. */
  tree: Tree;
  /** How the dev bundle is delivered. */
  push: PushPlan;
  /** What bootstrap takes, when it can take this package version (undefined: kind and cluster modes only). */
  bootstrap?: BootstrapSource;
  /** The released version as of `baseRef` (kind mode installs it first); undefined when there is none. */
  releasedSource(o: BuildOptions & { baseRef?: string }): Promise<ReleasedSource | undefined>;
}

/** A package version read: its folder or file, the file holding its Package, and the Package. */
export interface LoadedVersion {
  name: string;
  version: string;
  path: string;
  packageFile: string;
  pkg: PackageResource;
}

/** Where the bundle comes from: a folder to push, or the Package's own bundle, used as is. */
export type BundleSource = { folder: string } | { image: string };

export interface BuildOptions {
  root: string;
  exec: ExecFn;
  /** A temporary folder the caller removes (builds go there). */
  tmp: string;
  log: (m: string) => void;
}

/** The released version as the kind mode installs it first. */
export interface ReleasedSource {
  pkg: PackageResource;
  bundle: BundleSource;
  /** Where it came from, for the log. */
  from: string;
  /** Whether it is the base ref's (false: the working tree's, when the base ref lacks it). */
  atBase: boolean;
}

/**
 * What a layout recognises and where, from the paths alone (pure): the data callers and the
 * repository model need before anything is read.
 */
export interface LayoutScope {
  /** What the layout recognises a package by, in words (for the error when it finds none). */
  readonly evidence: string;
  /** Folders a diff has to look at ([] for the whole repository). */
  readonly pathspec: readonly string[];
  /**
   * The files of a listing this layout can own (only those are read). Folders in evidence.ts's
   * SKIPPED_FOLDERS are left out unless `all`.
   */
  owns(files: readonly string[], o?: { all?: boolean }): Owned;
  /** Where a version named NAME/VERSION would be (for the message when it is not there). */
  pathOf(name: string, version: string): string;
  /** The file a package version's problems are reported on when an error names none, from its path alone. */
  problemFile(path: string): string;
}

/**
 * One layout. A fourth one is a module returning this and one entry in index.ts's MODULES; what
 * callers need of a package (how its bundle is delivered, the tools, what bootstrap takes, the
 * released version's source) is data in the LoadedPackage its `load` returns.
 */
export interface Layout {
  readonly name: LayoutName;
  readonly scope: LayoutScope;
  /** Every package version among the owned files (reading only those). */
  list(tree: Tree, owned: Owned): Promise<Listed>;
  /** The package versions a diff touches and those it removed. */
  touched(changes: readonly FileChange[], sides: { head: Side; from: Side }, o: { ignore: readonly string[]; compare: (a: string, b: string) => number }): Promise<Touched>;
  /**
   * Reads and checks one package version of `tree` (and nothing else: no disk read behind its
   * back); `base` is the tree at the base ref when the run compares commits (where a layout finds
   * the released version git does not hold beside the change). Throws a DevpkgError with file
   * and line; what can be planned around is in `pkg.warnings`.
   */
  load(tree: Tree, ref: PackageVersionRef, owned: Owned, o?: { base?: Tree }): Promise<LoadedPackage>;
}
