import { mkdir, rename } from 'node:fs/promises';
import path from 'node:path';
import { DevpkgError, UsageError } from '../errors.js';
import { registryText, type Registry } from '../bundle/reference.js';
import { DEFAULT_OUT, packageSteps, planFilesOf, renderSteps, shellWord, shownPath, type PlanPlace } from './plan-commands.js';
import { formatProblem, problemFromError, sortProblems, type Problem } from '../packages/problems.js';
import { toolsOf, type LayoutChoice, type Layouts, type LoadedPackage, type Tree } from '../layouts/index.js';
import { DEFAULT_PACKAGES_DIR, openRepository, scopeShown, treeChoiceOf, treeLabel, treeOf, type Repo } from './repo.js';
import type { DiffCounts } from '../detect/detect.js';
import { devPackageToYaml } from '../packages/derive.js';
import { ADDONS_MANAGER_SELECTION, devPackageOf, planDev } from '../packages/devplan.js';
import { overlayFileName, renderOverlay, USER_CUSTOMIZATIONS_DIR } from '../packages/overlay.js';
import { parseRefNameMap, targetRefName } from '../packages/refname.js';
import type { DevSequence } from '../versions/index.js';
import type { PackageVersionRef } from '../detect/index.js';
import { errorResult, type Mode, type PlannedPackage } from '../results.js';
import type { ExecFn } from '../tools/exec.js';

/** Which package versions are in play. */
export type Selection =
  | { kind: 'explicit'; packages: string[] }
  | { kind: 'all' }
  | { kind: 'diff'; base: string; head?: string; rangeKind: 'pr' | 'range' };

export interface PlanRequest {
  root: string;
  packagesDir: string;
  /** Which layouts read the repository (default auto). */
  layout?: LayoutChoice;
  /** kctrl layout: the released version git does not hold. */
  releasedVersion?: string;
  /** The repository opened at the edge (else opened here from root, layout and packagesDir). */
  repo?: Repo;
  /** Layouts opened by the caller (tests); the repository is opened around them. */
  layouts?: Layouts;
  selection: Selection;
  /** Where dev bundles go (parsed where it entered); default DEFAULT_PLAN_REGISTRY. */
  registry?: Registry;
  refName: string;
  seq: DevSequence;
  /** Forces the dev version (still checked against the versions in play). */
  devVersion?: string;
  addonType?: string;
  ignore?: string[];
  mode?: Mode;
  /** Where the printed commands are run and where the plan's files are (default: the repository root, not written). */
  place?: { cwd: string; out?: string; written: boolean; unwritten?: 'comment' | 'omit' };
  /** --build: the bundles a layout builds are in the plan's folder. */
  build?: boolean;
  /** With build: the folder the bundles are built into (the plan's folder being written). */
  buildInto?: string;
  /** Where --build looks for ytt and kbld (PATH); default the process's. */
  env?: NodeJS.ProcessEnv;
  exec?: ExecFn;
  log?: (message: string) => void;
}

export interface PlanOutput {
  /** Every package version in play; one that could not be read is verdict `error`. */
  packages: PlannedPackage[];
  /** Warnings and errors of every package, by file and line. */
  problems: Problem[];
  removed: PackageVersionRef[];
  base?: string;
  head?: string;
  /** Where the commands were rendered for, and whether the plan's folder was written. */
  place: PlanPlace;
  /** What was looked at: the scope, the tree read, and (comparing commits) the diff. */
  scope: ScopeReport;
  /** The tools the layouts need to build the planned bundles (kctrl: ytt, kbld), from the layouts' data. */
  tools: string[];
  /** The package versions in play, as the selection found them (path: the package's folder). */
  refs: PackageVersionRef[];
}

/** What a run looked at, so that "nothing changed" explains itself. */
export interface ScopeReport {
  /** The scope, absolute. */
  root: string;
  /** The git top level, when the scope is in a git repository. */
  top?: string;
  /** The scope below the top level ('' for the top). */
  prefix: string;
  /** The tree read: `the working tree` or `commit <sha>`. */
  tree: string;
  /** The package folders in the scope (in the tree read), when they were listed. */
  packages?: string[];
  /** Comparing commits: the range diffed and what it held. */
  diff?: DiffCounts & { from: string; head: string };
}

export interface Resolved {
  refs: PackageVersionRef[];
  removed: PackageVersionRef[];
  base?: string;
  head?: string;
  /** The tree the packages are read from (decided by the repository model). */
  tree: Tree & { root: string };
  scope: ScopeReport;
}

/** Registry used to name bundles when none is given: kind's conventional local registry. */
export const DEFAULT_PLAN_REGISTRY: Registry = Object.freeze({ host: 'localhost:5001', path: 'devpkg' });

export { DEFAULT_PACKAGES_DIR };

/**
 * Where the commands of a request are rendered for (pure). The default is the action's: run from
 * the repository root (working-directory), nothing written, the steps needing the plan's files
 * left out (the first step says how to write them).
 */
export function placeOf(req: Pick<PlanRequest, 'root' | 'place'>): PlanPlace {
  const cwd = req.place?.cwd ?? req.root;
  return {
    cwd,
    root: req.root,
    out: req.place?.out ?? path.join(cwd, DEFAULT_OUT),
    written: req.place?.written ?? false,
    unwritten: req.place?.unwritten ?? 'omit',
  };
}

/** The repository of a request: the one opened at the edge, or opened here from its root, layout and packagesDir. */
export async function repoOfRequest(req: Pick<PlanRequest, 'repo' | 'layouts' | 'root' | 'layout' | 'packagesDir' | 'releasedVersion' | 'exec'>): Promise<Repo> {
  return (
    req.repo ??
    openRepository({
      root: req.root,
      layout: req.layout,
      packagesDir: req.packagesDir,
      releasedVersion: req.releasedVersion,
      ...(req.layouts ? { layouts: req.layouts } : {}),
      ...(req.exec ? { exec: req.exec } : {}),
    })
  );
}

/** The layouts of a request. */
export async function layoutsOf(req: Parameters<typeof repoOfRequest>[0]): Promise<Layouts> {
  return (await repoOfRequest(req)).layouts;
}

/**
 * The package versions in play, the tree they are read from and what was looked at: the one
 * place detect and plan (the CLI and every mode) resolve a selection, so they see the same.
 */
export async function resolveSelection(req: PlanRequest): Promise<Resolved> {
  const sel = req.selection;
  const repo = await repoOfRequest(req);
  const { layouts } = repo;
  const scopeOf = (tree: Tree, packages?: PackageVersionRef[]): ScopeReport => ({
    root: repo.root,
    ...(repo.top ? { top: repo.top } : {}),
    prefix: repo.prefix,
    tree: treeLabel(tree),
    ...(packages ? { packages: [...new Set(packages.map((r) => r.path))] } : {}),
  });
  if (sel.kind === 'explicit') {
    const wanted = sel.packages.map((p) => {
      const [name, version] = p.split('/');
      if (!name || !version) throw new DevpkgError(`packages: "${p}" is not NAME/VERSION (e.g. antrea/1.5.3)`, { exitCode: 2 });
      return { name, version };
    });
    const tree = repo.tree;
    return { refs: await layouts.find(tree, wanted), removed: [], tree, scope: scopeOf(tree) };
  }
  if (sel.kind === 'all') {
    const tree = repo.tree;
    // A forced layout or a packages-dir that finds nothing is refused by the layouts' listing.
    const refs = await layouts.list(tree);
    if (refs.length === 0) {
      throw new DevpkgError(
        `${repo.root}: no packages found; ` +
          `set packages-dir to the folder holding <name>/<version>/package.yaml, or check the layout input (--layout; it is ${layouts.choice})`,
      );
    }
    return { refs, removed: [], tree, scope: scopeOf(tree, refs) };
  }
  const { detectChanges } = await import('../detect/index.js');
  const git = await repo.git();
  const result = await detectChanges({
    git,
    layouts,
    base: sel.base,
    head: sel.head,
    kind: sel.rangeKind,
    ignore: req.ignore,
    log: req.log,
    prefix: repo.prefix,
    treeAt: (c) => repo.at(c),
  });
  const tree = await treeOf(repo, treeChoiceOf(sel, result.head));
  // Listed only when the changes do not show it: the listing refuses a layout or packages-dir that finds nothing, and says what was in scope.
  const inScope = scopeShown(repo, result.changed) ? undefined : await layouts.list(tree);
  return {
    refs: result.changed,
    removed: result.removed,
    base: result.base,
    head: result.head,
    tree,
    scope: { ...scopeOf(tree, inScope), diff: { ...result.counts, from: result.from, head: result.head } },
  };
}

/** The repository at the base commit, read through git (the scope of it). */
export async function baseTreeOf(req: Parameters<typeof repoOfRequest>[0], base: string): Promise<Tree> {
  return (await repoOfRequest(req)).at(base);
}

/** Works out, for each package version in play, the dev version, dev Package and overlay. */
export async function plan(req: PlanRequest): Promise<PlanOutput> {
  // A bad --ref-name is bad usage, refused before git or any package file is read.
  const map = parseRefNameMap(req.refName);
  const repo = await repoOfRequest(req);
  const { layouts } = repo;
  const { refs, removed, base, head, tree, scope } = await resolveSelection({ ...req, repo });
  const baseTree = base ? await repo.at(base) : undefined;
  const registry = req.registry ?? DEFAULT_PLAN_REGISTRY;
  const packages: PlannedPackage[] = [];
  const problems: Problem[] = [];
  const builds: LoadedPackage[] = [];
  for (const ref of refs) {
    // One bad package never stops the others: its error becomes its result and a problem.
    try {
      const loaded = await layouts.load(tree, ref, { base: baseTree });
      const warnings = loaded.pkg.warnings.map((w) => ({ ...w, package: `${ref.name}/${ref.version}` }));
      problems.push(...warnings);
      const planned = planOne(loaded, { ...req, registry }, map, refs.length);
      packages.push(warnings.length > 0 ? { ...planned, problems: warnings } : planned);
      if (loaded.push.kind === 'build') builds.push(loaded);
    } catch (err) {
      if (err instanceof UsageError) throw err;
      const problem = problemFromError(err, ref.path, `${ref.name}/${ref.version}`);
      problems.push(problem);
      packages.push(errorResult(ref, problem, req.mode ?? 'plan'));
    }
  }
  if (req.build && req.buildInto !== undefined && builds.length > 0) await buildBundles(builds, { ...req, buildInto: req.buildInto }, layouts);
  const tools = toolsOf(builds).sort();
  return { packages, problems: sortProblems(problems), removed, base, head, place: placeOf(req), scope, tools, refs };
}

/**
 * --build: the bundles the layouts build (kctrl package release's, src/layouts/kctrl.ts), each into
 * <buildInto>/NAME/VERSION/bundle. Every tool is checked before the first build.
 */
async function buildBundles(builds: LoadedPackage[], req: PlanRequest & { buildInto: string }, layouts: Layouts): Promise<void> {
  const { carvelHowTo, findOnPath } = await import('../tools/carvel.js');
  const tools = toolsOf(builds);
  const missing: string[] = [];
  for (const t of tools) if (!(await findOnPath(t, req.env))) missing.push(t);
  if (missing.length > 0) {
    const who = builds.map((b) => (b.push.kind === 'build' ? b.push.file : b.path)).join(', ');
    throw new DevpkgError(
      `--build needs ${missing.join(' and ')} on PATH to build the bundle of ${who}, and ${missing.length === 1 ? 'it is' : 'they are'} not there: ${missing.map((t) => `${t}: ${carvelHowTo(t)}`).join('; ')}; or leave out --build`,
    );
  }
  const { execTool } = await import('../tools/exec.js');
  for (const loaded of builds) {
    const into = path.join(req.buildInto, planFilesOf(loaded.name, loaded.version).bundle);
    const got = await layouts.bundle(loaded, { root: req.root, exec: req.exec ?? execTool, tmp: req.buildInto, log: req.log ?? (() => undefined) });
    if (!('folder' in got)) continue;
    await mkdir(path.dirname(into), { recursive: true });
    await rename(got.folder, into);
  }
}

function planOne(
  loaded: LoadedPackage,
  req: PlanRequest & { registry: Registry },
  map: ReturnType<typeof parseRefNameMap>,
  count: number,
): PlannedPackage {
  const refName = loaded.pkg.pkg.spec.refName;
  const target = targetRefName(map, refName, count);
  // The repository's versions are what is in play before any cluster is seen.
  const dev = planDev({
    name: loaded.name,
    released: loaded.released,
    inPlay: loaded.inPlay,
    selection: ADDONS_MANAGER_SELECTION,
    seq: req.seq,
    forced: req.devVersion,
    pinned: loaded.pinned,
    registry: req.registry,
  });
  const own = loaded.push.kind === 'as-is' ? loaded.push.image : undefined;
  const bundleImage = own ?? dev.tagImage;
  // A Package's own bundle referenced by tag is used as it is (its warning names the line).
  const derived = devPackageOf(dev, loaded.pkg, { refName: target, ...(own ? { image: own, allowTag: true } : {}) });
  const packageYaml = devPackageToYaml(derived.pkg);
  // The overlay is bootstrap's (phases 2 and 3): only for what bootstrap takes.
  const overlay = loaded.bootstrap ? renderOverlay(derived.pkg, { name: loaded.name, addonType: req.addonType || undefined }, packageYaml) : '';
  const overlayFile = overlayFileName(loaded.name);
  const overlayPath = loaded.bootstrap ? `${USER_CUSTOMIZATIONS_DIR}/${overlayFile}` : '';
  const files = planFilesOf(loaded.name, loaded.version);
  const place = placeOf(req);
  const steps = packageSteps(
    {
      name: loaded.name,
      version: loaded.version,
      path: loaded.path,
      refName,
      targetRefName: target,
      tagImage: dev.tagImage,
      push: loaded.push.kind === 'build' ? { kind: 'build', what: loaded.push.what } : loaded.push,
      ...(loaded.bootstrap ? { bootstrap: { folder: loaded.bootstrap.folder } } : {}),
      overlayFile,
    },
    {
      build: req.build === true,
      registry: registryText(req.registry),
      ...(req.layout && req.layout !== 'auto' ? { layout: req.layout } : {}),
      ...(req.packagesDir !== DEFAULT_PACKAGES_DIR ? { packagesDir: req.packagesDir } : {}),
      ...(req.releasedVersion ? { releasedVersion: req.releasedVersion } : {}),
      ...(req.addonType ? { addonType: req.addonType } : {}),
    },
  );
  return {
    name: loaded.name,
    version: loaded.version,
    refName,
    targetRefName: target,
    devVersion: dev.version,
    ...(loaded.releasedFrom ? { releasedFrom: loaded.releasedFrom } : {}),
    mode: req.mode ?? 'plan',
    verdict: 'planned',
    reason: `${loaded.name} ${loaded.released} -> ${dev.version}: ${dev.reason}`,
    timeline: [],
    plan: {
      path: loaded.path,
      layout: loaded.layout,
      notes: loaded.notes,
      ...(loaded.upgradeFrom === null ? {} : { released: loaded.released }),
      ...(loaded.releasedOrigin ? { releasedFrom: loaded.releasedOrigin } : {}),
      ...(loaded.upgradeFrom !== undefined ? { upgradeFrom: loaded.upgradeFrom } : {}),
      devPackageName: derived.pkg.metadata.name,
      bundleTag: dev.tag,
      bundleImage,
      devVersionReason: dev.reason,
      packageYaml,
      overlay,
      overlayPath,
      files: [
        { path: files.devPackage, what: 'devPackage' },
        ...(loaded.bootstrap ? [{ path: files.overlay(overlayFile), what: 'overlay' as const }] : []),
        ...(loaded.push.kind === 'build' && req.build ? [{ path: files.bundle, what: 'bundle' as const }] : []),
      ],
      commands: renderSteps(steps, place),
    },
  };
}

/**
 * One planned package as the outputs and `--json` show it; `full` adds the YAML texts and the
 * commands, and, when `written` names the plan's folder, the files written there (absolute).
 */
export function packageSummary(p: PlannedPackage, full = false, written?: string): Record<string, unknown> {
  if (p.verdict === 'error') {
    const where = p.problems?.[0];
    return { name: p.name, version: p.version, path: where?.path, ...(where?.line !== undefined ? { line: where.line } : {}), verdict: p.verdict, error: p.reason };
  }
  const summary: Record<string, unknown> = {
    name: p.name,
    version: p.version,
    path: p.plan?.path,
    layout: p.plan?.layout,
    refName: p.refName,
    targetRefName: p.targetRefName,
    // The released version and where it came from, as fields: the git tag read (kctrl), the version upgraded from (repository).
    released: p.plan?.released ?? null,
    ...(p.plan?.releasedFrom ? { releasedFrom: p.plan.releasedFrom } : {}),
    ...(p.plan?.upgradeFrom !== undefined ? { upgradeFrom: p.plan.upgradeFrom } : {}),
    devVersion: p.devVersion,
    devPackageName: p.plan?.devPackageName,
    bundleTag: p.plan?.bundleTag,
    bundleImage: p.plan?.bundleImage,
    overlayPath: p.plan?.overlayPath,
  };
  if (full) {
    Object.assign(summary, {
      devVersionReason: p.plan?.devVersionReason,
      packageYaml: p.plan?.packageYaml,
      overlay: p.plan?.overlay,
      commands: p.plan?.commands,
    });
    if (written !== undefined) summary.files = (p.plan?.files ?? []).map((f) => ({ ...f, path: path.join(written, f.path) }));
  }
  return summary;
}

/** The matrix output: one include entry per package version, for `fromJSON`. */
export function matrixOf(packages: PlannedPackage[]): string {
  return JSON.stringify({ include: packages.map((p) => ({ package: `${p.name}/${p.version}`, ...packageSummary(p) })) });
}

/**
 * Why nothing is in play, in words (pure): the range diffed, how many files changed and how many
 * each ignore glob took, the scope and the tree read, the package folders in scope.
 */
export function nothingChanged(out: Pick<PlanOutput, 'scope'>): string[] {
  const s = out.scope;
  const where = s.prefix ? `${s.prefix} of ${s.top}` : s.root;
  const lines = ['No package versions changed.'];
  if (s.diff) {
    const d = s.diff;
    const under = d.pathspec.length ? ` under ${d.pathspec.join(', ')}` : '';
    const ignored = d.ignored.map((i) => `${i.files} ignored by ${i.glob}`).join(', ');
    lines.push(`  diffed ${d.from.slice(0, 12)}..${d.head.slice(0, 12)}: ${d.files} file(s) changed in ${where}${under}${ignored ? ` (${ignored})` : ''}`);
  }
  lines.push(`  read ${s.tree} of ${where}`);
  if (s.packages) {
    const shown = s.packages.slice(0, 5).join(', ');
    lines.push(`  package folders in scope: ${s.packages.length}${s.packages.length ? ` (${shown}${s.packages.length > 5 ? ', ...' : ''})` : ''}`);
  }
  return lines;
}

/** The readable plan the CLI prints without --json. */
export function renderPlanText(out: PlanOutput): string {
  const lines: string[] = [];
  const shown = (q: string) => shellWord(shownPath({ at: 'out', path: q }, out.place));
  if (out.base || out.head) lines.push(`Changes ${out.base ?? ''}..${out.head ?? ''}`);
  if (out.packages.length > 0) lines.push(`Read ${out.scope.tree}${out.scope.prefix ? ` of ${out.scope.prefix}` : ''}.`);
  if (out.packages.some((p) => p.plan)) {
    lines.push(
      out.place.written
        ? `Written to ${shown('')}: the files the commands below name.`
        : `Nothing written: add --out ${shown('')} to write the files the commented commands name.`,
    );
  }
  if (out.packages.length === 0) lines.push(...nothingChanged(out));
  for (const p of out.packages) {
    if (p.verdict === 'error') {
      lines.push('', `${p.name}/${p.version}: NOT PLANNED`, `  ${p.reason}`);
      continue;
    }
    lines.push('', `${p.name}/${p.version} (${p.plan?.path})`);
    for (const n of p.plan?.notes ?? []) lines.push(`  ${n}`);
    lines.push(`  refName      ${p.refName}${p.targetRefName !== p.refName ? ` -> ${p.targetRefName}` : ''}`);
    lines.push(`  dev version  ${p.devVersion}  (${p.plan?.devVersionReason})`);
    lines.push(`  Package      ${p.plan?.devPackageName}`);
    lines.push(`  bundle       ${p.plan?.bundleImage}`);
    if (p.plan?.overlayPath) lines.push(`  overlay      ${p.plan.overlayPath}`);
    if (out.place.written) for (const f of p.plan?.files ?? []) lines.push(`  wrote        ${shown(f.path)}`);
    lines.push('  commands:');
    for (const c of p.plan?.commands ?? []) lines.push(`    ${c}`);
  }
  for (const r of out.removed) lines.push('', `${r.name}/${r.version} removed (not tested)`);
  if (out.problems.length > 0) {
    lines.push('', `Problems (${out.problems.length}):`);
    for (const p of out.problems) lines.push(`  ${formatProblem(p)}`);
  }
  return lines.join('\n') + '\n';
}
