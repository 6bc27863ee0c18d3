/**
 * The dev plan: for one package, the dev version kapp-controller will select, its OCI tag, the
 * bundle repository, and the dev Package. Pure, and the only place these are worked out: plan,
 * cluster, kind and bootstrap modes (and their CLI commands) all call planDev, so a version, a tag
 * or a repository can never differ between what `devpkg plan` shows and what a mode does.
 */
import { DevpkgError, UsageError } from '../errors.js';
import { bundleRepository, formatRepository, type Registry, type Repository } from '../bundle/reference.js';
import {
  compareVersions,
  parseVersion,
  planDevVersion,
  selectVersion,
  toOciTag,
  type DevSequence,
  type LabeledSelection,
  type VersionSelection,
} from '../versions/index.js';
import { deriveDevPackage, type DerivedPackage } from './derive.js';
import type { Package, PackageResource } from './model.js';

/**
 * The versionSelection the addons manager gives the PackageInstalls it creates (tanzu-framework
 * v0.25.4, addons/controllers/package_reconciler.go): prereleases `{}`, no constraints. Plan and
 * bootstrap modes plan against it; cluster and kind modes read the PackageInstall's own.
 */
export const ADDONS_MANAGER_SELECTION: VersionSelection = Object.freeze({ prereleases: Object.freeze({}) });

export interface DevPlanRequest {
  /** The package's name (its folder); names the bundle repository. */
  name: string;
  /** The version being changed: the repository package.yaml's spec.version. Counted as in play. */
  released: string;
  /**
   * Every other version in play for the refName: the repository's version folders (plan,
   * bootstrap), or the cluster's Packages and what its PackageInstalls installed or last
   * attempted (cluster, kind). Versions that do not parse are left out, as kapp-controller does.
   */
  inPlay: string[];
  /** The PackageInstall's versionSelection. */
  selection: VersionSelection;
  /**
   * Several PackageInstalls of the refName (cluster, kind), each with its own versionSelection,
   * instead of `selection`: the dev version must win under every one, or is refused naming which.
   */
  selections?: LabeledSelection[];
  seq: DevSequence;
  /** A dev version the user gave (dev-version), already checked as semver where it entered. */
  forced?: string;
  /**
   * A version the layout fixes (a package repository's pull request installs its own Package as
   * the upgrade), used when no dev-version is given. Refused as that package's error, at the
   * file and line that set it, never as bad usage: one package's version stops no other.
   */
  pinned?: Pin;
  /**
   * Where bundles go, parsed where it entered (flags.ts parseRegistry). Unset only when the bundle
   * is pushed already (devpkg bootstrap --image): the plan then names no repository.
   */
  registry?: Registry;
}

/** A version a layout fixes, and where: the file and line that set it. */
export interface Pin {
  version: string;
  /** What fixes it, for the messages, e.g. `the Package in packages/x/1.1.0.yml: version`. */
  by: string;
  file: string;
  line?: number;
}

export interface DevPlan {
  /** Strict semver for Package.spec.version. */
  version: string;
  /** The OCI tag of the bundle (`+` written as `_`, checked against the OCI grammar). */
  tag: string;
  /** Why this version wins (or that it was forced, and what it outranks). */
  reason: string;
  /** `<registry>/<name>-bundle` (unset without a registry). */
  repository?: Repository;
  /** `<repository>:<tag>`: the bundle before it is pushed (its digest is known only after). */
  tagImage?: string;
}

/**
 * Plans one package's dev version and bundle. A forced dev version that kapp-controller would
 * not select over every version in play is refused naming the version it loses to, in every mode
 * alike: the dev-version input's as bad usage (a UsageError naming the input), a layout's pin as
 * an error of that package at its file and line.
 */
export function planDev(req: DevPlanRequest & { registry: Registry }): DevPlan & Required<Pick<DevPlan, 'repository' | 'tagImage'>>;
export function planDev(req: DevPlanRequest): DevPlan;
export function planDev(req: DevPlanRequest): DevPlan {
  const pool = [...new Set([...req.inPlay, req.released])].filter((v) => parseVersion(v) !== undefined);
  const forced = req.forced ?? req.pinned?.version;
  const chosen = forced
    ? { version: forced, reason: forcedReason(forced, pool, req) }
    : planDevVersion({ versions: pool, selection: req.selection, selections: req.selections, base: req.released, seq: req.seq });
  const bundle = req.registry ? bundleOf(req.registry, req.name, chosen.version) : { tag: toOciTag(chosen.version) };
  return { ...bundle, version: chosen.version, reason: chosen.reason };
}

/**
 * Where the bundle of one version of a package goes: `<registry>/<name>-bundle:<tag>`. The dev
 * plan's, and the kind mode's released baseline's.
 */
export function bundleOf(registry: Registry, name: string, version: string): { repository: Repository; tag: string; tagImage: string } {
  const repository = bundleRepository(registry, name);
  const tag = toOciTag(version);
  return { repository, tag, tagImage: `${formatRepository(repository)}:${tag}` };
}

/** Why a forced dev version wins; throws when it would not (under any of the selections). */
function forcedReason(forced: string, pool: string[], req: DevPlanRequest): string {
  const pin = req.forced === undefined ? req.pinned : undefined;
  const by = pin?.by ?? 'dev-version';
  // The dev-version input is bad usage; a layout's pin is that package's error, at its line.
  const refuse = (message: string) => (pin ? new DevpkgError(message, { file: pin.file, ...(pin.line !== undefined ? { line: pin.line } : {}) }) : new UsageError(message));
  const highest = [...pool].filter((v) => v !== forced || !pin).sort(compareVersions).at(-1);
  const sels = req.selections?.length ? req.selections : [{ label: '', selection: req.selection }];
  const keep = selectVersion(pool, sels[0]!.selection).selected ?? highest;
  if (highest !== undefined && compareVersions(forced, highest) <= 0) {
    throw refuse(
      `${by} ${forced} does not outrank ${highest}, the highest ${req.name} version in play; kapp-controller would keep ${keep}. ` +
        (pin ? `Give ${req.name} a version above ${highest}` : 'Give a higher dev-version, or leave it empty and devpkg chooses one'),
    );
  }
  for (const { label, selection } of sels) {
    const result = selectVersion([...pool, forced], selection);
    if (result.selected === forced) continue;
    const why = result.considered.find((c) => c.version === forced)?.reason ?? `kapp-controller selects ${result.selected ?? 'nothing'}`;
    const kept = selectVersion(pool, selection).selected ?? highest;
    throw refuse(
      `${by} ${forced} would not be selected under ${label ? `the versionSelection of ${label}` : "the PackageInstall's versionSelection"} (${why})` +
        `${kept ? `; kapp-controller would keep ${kept}` : ''}. ` +
        (pin ? 'Give it a version the selection allows' : 'Give a dev-version the selection allows, or leave it empty and devpkg chooses one'),
    );
  }
  return highest === undefined ? `forced by ${by}` : `forced by ${by} (outranks ${highest})`;
}

/**
 * The dev Package of a plan: `source` (the repository's package.yaml, or the cluster's Package
 * of the version in place) with the plan's version and `image`. Before the push, the image is
 * the plan's tagImage (allowed only there); after it, the pushed digest reference.
 */
export function devPackageOf(
  plan: DevPlan,
  source: Package | PackageResource,
  o: { refName: string; image?: string; namespace?: string; allowTag?: boolean },
): DerivedPackage {
  const image = o.image ?? plan.tagImage;
  if (!image) throw new Error(`devPackageOf: no image for ${plan.version} (the plan has no registry and none was given)`);
  return deriveDevPackage(source, {
    version: plan.version,
    image,
    refName: o.refName,
    ...(o.namespace ? { namespace: o.namespace } : {}),
    ...(o.image && !o.allowTag ? {} : { allowTag: true }),
  });
}
