import path from 'node:path';
import { DevpkgError, UsageError } from '../errors.js';
import { bundleRepository } from '../bundle/reference.js';
import { formatProblem, problemFromError, sortProblems, type Problem } from '../packages/problems.js';
import { listPackages, loadVersion, readVersion, type LoadedVersion } from '../packages/layout.js';
import { deriveDevPackage, devPackageToYaml } from '../packages/derive.js';
import { overlayFileName, renderOverlay, USER_CUSTOMIZATIONS_DIR } from '../packages/overlay.js';
import { parseRefNameMap, targetRefName } from '../packages/refname.js';
import { compareVersions, parseVersion, planDevVersion, toOciTag, type DevSequence } from '../versions/index.js';
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
  selection: Selection;
  /** HOST[:PORT][/PATH] for dev bundles. */
  registry: string;
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
export const DEFAULT_PLAN_REGISTRY = 'localhost:5001/devpkg';

export async function resolveSelection(req: PlanRequest): Promise<{ refs: PackageVersionRef[]; removed: PackageVersionRef[]; base?: string; head?: string }> {
  const sel = req.selection;
  if (sel.kind === 'explicit') {
    const refs = sel.packages.map((p) => {
      const [name, version] = p.split('/');
      if (!name || !version) throw new DevpkgError(`packages: "${p}" is not NAME/VERSION (e.g. antrea/1.5.3)`, { exitCode: 2 });
      return { name, version, path: path.posix.join(req.packagesDir, name, version) };
    });
    return { refs, removed: [] };
  }
  if (sel.kind === 'all') {
    const pkgs = await listPackages(req.root, req.packagesDir);
    if (pkgs.length === 0) {
      throw new DevpkgError(`${path.join(req.root, req.packagesDir)}: no packages found; set packages-dir to the folder holding <name>/<version>/package.yaml`);
    }
    return { refs: pkgs.flatMap((p) => p.versions.map((v) => ({ name: p.name, version: v.version, path: v.path }))), removed: [] };
  }
  const { Git } = await import('../tools/git.js');
  const { detectChanges } = await import('../detect/index.js');
  const git = await Git.create(req.root, req.exec);
  const result = await detectChanges({
    git,
    packagesDir: req.packagesDir,
    base: sel.base,
    head: sel.head,
    kind: sel.rangeKind,
    ignore: req.ignore,
    log: req.log,
  });
  return { refs: result.changed, removed: result.removed, base: result.base, head: result.head };
}

/** Works out, for each package version in play, the dev version, dev Package and overlay. */
export async function plan(req: PlanRequest): Promise<PlanOutput> {
  const { refs, removed, base, head } = await resolveSelection(req);
  const map = parseRefNameMap(req.refName);
  const registry = (req.registry || DEFAULT_PLAN_REGISTRY).replace(/\/+$/, '');
  const packages: PlannedPackage[] = [];
  // One listing of the repository serves every package (the versions in play per name).
  const byName = new Map((refs.length > 0 ? await listPackages(req.root, req.packagesDir) : []).map((p) => [p.name, p]));
  const problems: Problem[] = [];
  for (const ref of refs) {
    const listed = byName.get(ref.name)?.versions ?? [];
    const entry = listed.find((v) => v.version === ref.version);
    // One bad package never stops the others: its error becomes its result and a problem.
    try {
      // loadVersion only for what the listing lacks: it gives the unknown package/version errors.
      const loaded = entry ? await readVersion(req.root, ref.name, entry) : await loadVersion(req.root, req.packagesDir, ref.name, ref.version);
      const versions = listed.map((v) => v.version);
      const warnings = loaded.pkg.warnings.map((w) => ({ ...w, package: `${ref.name}/${ref.version}` }));
      problems.push(...warnings);
      const planned = planOne(loaded, versions, { ...req, registry }, map, refs.length);
      packages.push(warnings.length > 0 ? { ...planned, problems: warnings } : planned);
    } catch (err) {
      if (err instanceof UsageError) throw err;
      const problem = problemFromError(err, entry?.packageFile ?? ref.path, `${ref.name}/${ref.version}`);
      problems.push(problem);
      packages.push(errorResult(ref, problem, req.mode ?? 'plan'));
    }
  }
  return { packages, problems: sortProblems(problems), removed, base, head };
}

function planOne(
  loaded: LoadedVersion,
  versions: string[],
  req: PlanRequest & { registry: string },
  map: ReturnType<typeof parseRefNameMap>,
  count: number,
): PlannedPackage {
  const refName = loaded.pkg.pkg.spec.refName;
  const target = targetRefName(map, refName, count);
  const specVersion = loaded.pkg.pkg.spec.version;
  // Folders whose names are not versions cannot be selected by kapp-controller: leave them out.
  const parsed = versions.filter((v) => parseVersion(v) !== undefined);
  const inPlay = parsed.includes(specVersion) ? parsed : [...parsed, specVersion];
  const dev = planDevVersion({
    versions: inPlay,
    // The addons manager's PackageInstalls allow prereleases and set no constraints.
    selection: { prereleases: {} },
    base: specVersion,
    seq: req.seq,
  });
  let devVersion = dev.version;
  let reason = dev.reason;
  if (req.devVersion) {
    const highest = [...inPlay].sort(compareVersions).at(-1) ?? specVersion;
    if (compareVersions(req.devVersion, highest) <= 0) {
      // A bad input for every package, not a problem of this one: it stops the plan.
      throw new UsageError(`dev-version ${req.devVersion} does not outrank ${highest} (the highest ${loaded.name} version in the repository); kapp-controller would keep ${highest}`);
    }
    devVersion = req.devVersion;
    reason = `forced by dev-version (outranks ${highest})`;
  }
  const tag = toOciTag(devVersion);
  const bundleImage = `${bundleRepository(req.registry, loaded.name)}:${tag}`;
  const derived = deriveDevPackage(loaded.pkg, { version: devVersion, image: bundleImage, refName: target, allowTag: true });
  const packageYaml = devPackageToYaml(derived.pkg);
  const overlay = renderOverlay(derived.pkg, { name: loaded.name, addonType: req.addonType || undefined });
  const overlayPath = `${USER_CUSTOMIZATIONS_DIR}/${overlayFileName(loaded.name)}`;
  return {
    name: loaded.name,
    version: loaded.version,
    refName,
    targetRefName: target,
    devVersion,
    mode: req.mode ?? 'plan',
    verdict: 'planned',
    reason: `${loaded.name} ${specVersion} -> ${devVersion}: ${reason}`,
    timeline: [],
    plan: {
      path: loaded.path,
      devPackageName: derived.pkg.metadata.name,
      bundleTag: tag,
      bundleImage,
      devVersionReason: reason,
      packageYaml,
      overlay,
      overlayPath,
      commands: [
        `imgpkg push -b ${bundleImage} -f ${loaded.path}/bundle --lock-output ${loaded.name}.lock.yml`,
        `# set spec.template.spec.fetch[0].imgpkgBundle.image to bundle.image from ${loaded.name}.lock.yml (repo@sha256:...)`,
        `kubectl apply --server-side -f ${loaded.name}-dev-package.yaml   # cluster: iterate on a running cluster`,
        `cp ${loaded.name}_dev_package.yaml ~/.config/tanzu/${overlayPath.replace(/^providers/, 'tkg/providers')}`,
        `SUPPRESS_PROVIDERS_UPDATE=1 tanzu management-cluster create -i docker --file <cluster-config>`,
      ],
    },
  };
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
