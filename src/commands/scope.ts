/**
 * The flags plan and detect share, parsed once and in one way (the same refusals in both): the
 * scope (--repo), the layouts (--layout, --packages-dir, --released-version) and which package
 * versions are in play (--base/--head/--range, --all, --packages). The repository is opened here,
 * at the edge, and handed on.
 */
import path from 'node:path';
import { UsageError } from '../errors.js';
import { parseList, parsePackageList, parseVersionFlag } from '../flags.js';
import { parseLayoutChoice, type LayoutChoice, type LoadedPackage } from '../layouts/index.js';
import { DEFAULT_PACKAGES_DIR, openRepository, type Repo } from '../pipeline/repo.js';
import type { PlanRequest, Selection } from '../pipeline/plan.js';
import { requireFolder, type CliIO } from './io.js';

export interface ScopeFlags {
  repo?: string;
  base?: string;
  head?: string;
  range?: boolean;
  all?: boolean;
  packages?: string;
  'packages-dir'?: string;
  layout?: string;
  'released-version'?: string;
}

/** The selection the flags ask for (pure); `command` names the command in messages. */
export function selectionFromFlags(values: ScopeFlags, command: string, o: { packages: boolean }): Selection {
  const chosen = [values.base !== undefined, values.all === true, values.packages !== undefined].filter(Boolean).length;
  const choices = o.packages ? '--base REF, --all or --packages LIST' : '--base REF or --all';
  if (chosen !== 1) throw new UsageError(`${command}: give exactly one of ${choices} (see ${command} --help)`);
  if (values.range && values.base === undefined) throw new UsageError(`${command}: --range needs --base`);
  if (values.head !== undefined && values.base === undefined) throw new UsageError(`${command}: --head needs --base (--all and --packages read the working tree)`);
  if (values.all) return { kind: 'all' };
  if (values.packages !== undefined) return { kind: 'explicit', packages: parsePackageList(values.packages, '--packages') };
  return { kind: 'diff', base: values.base!, head: values.head, rangeKind: values.range ? 'range' : 'pr' };
}

export interface OpenedScope {
  repo: Repo;
  layout: LayoutChoice;
  packagesDir: string;
  releasedVersion?: string;
}

/** Checks --repo, --layout, --packages-dir and --released-version (bad usage: exit 2) and opens the repository. */
export async function openScope(values: ScopeFlags, io: CliIO): Promise<OpenedScope> {
  const root = await requireFolder(path.resolve(io.cwd, values.repo ?? '.'), '--repo', 'repository folder');
  const layout = parseLayoutChoice(values.layout ?? 'auto', '--layout');
  const releasedVersion = values['released-version'] === undefined ? undefined : parseVersionFlag(values['released-version'], '--released-version');
  const packagesDir = values['packages-dir'] ?? DEFAULT_PACKAGES_DIR;
  const repo = await openRepository({ root, layout, packagesDir, releasedVersion, names: { layout: '--layout', packagesDir: '--packages-dir' } });
  return { repo, layout, packagesDir, ...(releasedVersion ? { releasedVersion } : {}) };
}

/**
 * The CLI's plan request as the scope and the selection flags make it: plan and detect start
 * from this one (the same packages, read and checked the same way), plan adding its own flags.
 */
export function scopedPlanRequest(
  scope: OpenedScope,
  selection: Selection,
  values: { ignore?: string },
  o: { log: (m: string) => void; timestamp?: Date },
): PlanRequest {
  return {
    root: scope.repo.root,
    repo: scope.repo,
    packagesDir: scope.packagesDir,
    layout: scope.layout,
    ...(scope.releasedVersion ? { releasedVersion: scope.releasedVersion } : {}),
    selection,
    refName: '',
    seq: { timestamp: o.timestamp ?? new Date() },
    ignore: values.ignore === undefined ? undefined : parseList(values.ignore),
    log: o.log,
  };
}

/**
 * A version folder named by hand (`devpkg dev --package`, `devpkg bootstrap --package`): checked
 * (its own usage errors), then opened as a repository whose packages folder is the version's
 * grandparent and loaded through the layouts, as plan and every mode load a package.
 */
export async function openVersionFolder(folder: string, what: string): Promise<{ root: string; repo: Repo; loaded: LoadedPackage }> {
  const { locateVersionFolder } = await import('../layouts/index.js');
  const { root, ...checked } = await locateVersionFolder(folder, what);
  const repo = await openRepository({ root, packagesDir: '', names: { layout: what, packagesDir: what } });
  const [ref] = await repo.layouts.find(repo.tree, [{ name: checked.name, version: checked.version }]);
  const loaded = await repo.layouts.load(repo.tree, ref!);
  return { root, repo, loaded };
}
