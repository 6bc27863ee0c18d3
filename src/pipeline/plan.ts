import path from 'node:path';
import { DevpkgError, UsageError } from '../errors.js';
import type { Registry } from '../bundle/reference.js';
import { formatProblem, problemFromError, sortProblems, type Problem } from '../packages/problems.js';
import { commitTree, Layouts, workTree, type LayoutChoice, type LoadedPackage, type Tree } from '../layouts/index.js';
import { bundleFetch, devPackageToYaml } from '../packages/derive.js';
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
  /** The layouts opened at the edge (else opened from layout and packagesDir). */
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
}

/** Registry used to name bundles when none is given: kind's conventional local registry. */
export const DEFAULT_PLAN_REGISTRY: Registry = Object.freeze({ host: 'localhost:5001', path: 'devpkg' });

/** The layouts of a request: the ones opened at the edge, or opened here from its layout and packagesDir. */
export function layoutsOf(req: Pick<PlanRequest, 'layout' | 'layouts' | 'packagesDir' | 'releasedVersion'>): Layouts {
  return req.layouts ?? Layouts.open(req.layout ?? 'auto', { packagesDir: req.packagesDir, releasedVersion: req.releasedVersion });
}

export async function resolveSelection(req: PlanRequest): Promise<{ refs: PackageVersionRef[]; removed: PackageVersionRef[]; base?: string; head?: string }> {
  const sel = req.selection;
  const layouts = layoutsOf(req);
  if (sel.kind === 'explicit') {
    const wanted = sel.packages.map((p) => {
      const [name, version] = p.split('/');
      if (!name || !version) throw new DevpkgError(`packages: "${p}" is not NAME/VERSION (e.g. antrea/1.5.3)`, { exitCode: 2 });
      return { name, version };
    });
    return { refs: await layouts.find(workTree(req.root), wanted), removed: [] };
  }
  if (sel.kind === 'all') {
    const refs = await layouts.list(workTree(req.root));
    if (refs.length === 0) {
      throw new DevpkgError(
        `${path.join(req.root, layouts.choice === 'tce' ? req.packagesDir : '')}: no packages found; ` +
          `set packages-dir to the folder holding <name>/<version>/package.yaml, or check the layout input (--layout; it is ${layouts.choice})`,
      );
    }
    return { refs, removed: [] };
  }
  const { Git } = await import('../tools/git.js');
  const { detectChanges } = await import('../detect/index.js');
  const git = await Git.create(req.root, req.exec);
  const result = await detectChanges({
    git,
    packagesDir: req.packagesDir,
    layouts,
    base: sel.base,
    head: sel.head,
    kind: sel.rangeKind,
    ignore: req.ignore,
    log: req.log,
  });
  return { refs: result.changed, removed: result.removed, base: result.base, head: result.head };
}

/** The repository at the base commit, read through git. */
export async function baseTreeOf(req: Pick<PlanRequest, 'root' | 'exec'>, base: string): Promise<Tree> {
  const { Git } = await import('../tools/git.js');
  return commitTree(await Git.create(req.root, req.exec), base);
}

/** Works out, for each package version in play, the dev version, dev Package and overlay. */
export async function plan(req: PlanRequest): Promise<PlanOutput> {
  // A bad --ref-name is bad usage, refused before git or any package file is read.
  const map = parseRefNameMap(req.refName);
  const layouts = layoutsOf(req);
  const tree = workTree(req.root);
  const { refs, removed, base, head } = await resolveSelection({ ...req, layouts });
  const baseTree = base ? await baseTreeOf(req, base) : undefined;
  const registry = req.registry ?? DEFAULT_PLAN_REGISTRY;
  const packages: PlannedPackage[] = [];
  const problems: Problem[] = [];
  for (const ref of refs) {
    // One bad package never stops the others: its error becomes its result and a problem.
    try {
      const loaded = await layouts.load(tree, ref, { base: baseTree });
      const warnings = loaded.pkg.warnings.map((w) => ({ ...w, package: `${ref.name}/${ref.version}` }));
      problems.push(...warnings);
      const planned = planOne(loaded, { ...req, registry }, map, refs.length);
      packages.push(warnings.length > 0 ? { ...planned, problems: warnings } : planned);
    } catch (err) {
      if (err instanceof UsageError) throw err;
      const problem = problemFromError(err, ref.path, `${ref.name}/${ref.version}`);
      problems.push(problem);
      packages.push(errorResult(ref, problem, req.mode ?? 'plan'));
    }
  }
  return { packages, problems: sortProblems(problems), removed, base, head };
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
    forced: req.devVersion ?? loaded.pinned?.version,
    forcedBy: req.devVersion ? undefined : loaded.pinned?.by,
    registry: req.registry,
  });
  const own = loaded.bundleFolder === undefined ? ownBundle(loaded) : undefined;
  const bundleImage = own ?? dev.tagImage;
  const derived = devPackageOf(dev, loaded.pkg, { refName: target, ...(own ? { image: own } : {}) });
  const packageYaml = devPackageToYaml(derived.pkg);
  const overlay = renderOverlay(derived.pkg, { name: loaded.name, addonType: req.addonType || undefined });
  const overlayPath = `${USER_CUSTOMIZATIONS_DIR}/${overlayFileName(loaded.name)}`;
  const push =
    loaded.bundleFolder === undefined
      ? [`# no push: the Package's own bundle ${own} is used as it is`]
      : [
          ...(loaded.buildSteps ?? []),
          `imgpkg push -b ${dev.tagImage} -f ${loaded.bundleFolder} --lock-output ${loaded.name}.lock.yml`,
          `# set spec.template.spec.fetch[0].imgpkgBundle.image to bundle.image from ${loaded.name}.lock.yml (repo@sha256:...)`,
        ];
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
      devPackageName: derived.pkg.metadata.name,
      bundleTag: dev.tag,
      bundleImage,
      devVersionReason: dev.reason,
      packageYaml,
      overlay,
      overlayPath,
      commands: [
        ...push,
        `kubectl apply --server-side -f ${loaded.name}-dev-package.yaml   # cluster: iterate on a running cluster`,
        `cp ${loaded.name}_dev_package.yaml ~/.config/tanzu/${overlayPath.replace(/^providers/, 'tkg/providers')}`,
        `SUPPRESS_PROVIDERS_UPDATE=1 tanzu management-cluster create -i docker --file <cluster-config>`,
      ],
    },
  };
}

/** The image the Package itself fetches (a layout whose bundles are built elsewhere). */
function ownBundle(loaded: LoadedPackage): string {
  return bundleFetch(loaded.pkg.pkg, () => ({ file: loaded.pkg.file })).image;
}

/** One planned package as the outputs and `--json` show it; `full` adds the YAML texts. */
export function packageSummary(p: PlannedPackage, full = false): Record<string, unknown> {
  if (p.verdict === 'error') {
    return { name: p.name, version: p.version, path: p.problems?.[0]?.path, verdict: p.verdict, error: p.reason };
  }
  const summary: Record<string, unknown> = {
    name: p.name,
    version: p.version,
    path: p.plan?.path,
    layout: p.plan?.layout,
    refName: p.refName,
    targetRefName: p.targetRefName,
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
  }
  return summary;
}

/** The matrix output: one include entry per package version, for `fromJSON`. */
export function matrixOf(packages: PlannedPackage[]): string {
  return JSON.stringify({ include: packages.map((p) => ({ package: `${p.name}/${p.version}`, ...packageSummary(p) })) });
}

/** The readable plan the CLI prints without --json. */
export function renderPlanText(out: PlanOutput): string {
  const lines: string[] = [];
  if (out.base || out.head) lines.push(`Changes ${out.base ?? ''}..${out.head ?? ''}`);
  if (out.packages.length === 0) lines.push('No package versions changed.');
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
    lines.push(`  overlay      ${p.plan?.overlayPath}`);
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
