import { DevpkgError } from '../errors.js';
import { parseConstraints, satisfies, type Constraint } from './range.js';
import { compareParsed, parseRelaxed, parseStrict, parseTolerant, type ParsedVersion } from './semver.js';

/** PackageInstall.spec.packageRef.versionSelection (vendir's VersionSelectionSemver). */
export interface VersionSelection {
  constraints?: string;
  /** Absent (or null): prereleases are dropped. `{}`: all kept. `{identifiers}`: see selectVersion. */
  prereleases?: { identifiers?: string[] } | null;
}

/** The parts of a Package that make it drop out on a given cluster. */
export interface PackageVersionFacts {
  kubernetesVersionSelection?: { constraints?: string } | null;
  kappControllerVersionSelection?: { constraints?: string } | null;
}

export interface SelectOptions {
  /** Package facts by spec.version; versions without an entry have no cluster constraints. */
  packages?: Record<string, PackageVersionFacts | undefined>;
  /** The cluster's Kubernetes version (`v1.24.9+vmware.1`); unknown: that check is skipped. */
  kubernetesVersion?: string;
  /** The running kapp-controller's version; unknown: that check is skipped. */
  kappControllerVersion?: string;
  /** PackageInstall annotation packaging.carvel.dev/ignore-kubernetes-version-selection. */
  ignoreKubernetesVersionSelection?: boolean;
  /** PackageInstall annotation packaging.carvel.dev/ignore-kapp-controller-version-selection. */
  ignoreKappControllerVersionSelection?: boolean;
}

export interface ConsideredVersion {
  version: string;
  kept: boolean;
  reason: string;
}

export interface Selection {
  selected?: string;
  /** Every input version, in input order, with why it was kept or dropped. */
  considered: ConsideredVersion[];
  /** vendir's counters, e.g. `all=3 -> after-prereleases-filter=2 -> after-constraints-filter=1`. */
  details: string;
  /** When nothing is selected: the error kapp-controller reports (plus a summary of why). */
  message?: string;
}

function describeSelection(sel: VersionSelection): string {
  const pre = sel.prereleases;
  const preText = pre == null ? 'absent' : pre.identifiers?.length ? `{identifiers: [${pre.identifiers.join(', ')}]}` : '{}';
  return `constraints ${sel.constraints ? `"${sel.constraints}"` : 'none'}, prereleases ${preText}`;
}

/**
 * kapp-controller (v0.34+, and v0.30.2–v0.30.x) turns prereleases on when the constraints are a
 * single exact prerelease version (strictly parsed: no `v`, no operator, no spaces) and
 * versionSelection.prereleases is absent.
 */
export function effectiveSelection(sel: VersionSelection = {}): VersionSelection {
  if (sel.constraints && sel.prereleases == null) {
    const single = parseStrict(sel.constraints);
    if (single.ok && single.version.prerelease.length > 0) return { ...sel, prereleases: {} };
  }
  return sel;
}

/** Why a prerelease is dropped by the prereleases filter, or undefined when it is kept. */
function prereleaseDropReason(v: ParsedVersion, pre: VersionSelection['prereleases']): string | undefined {
  if (v.prerelease.length === 0) return undefined;
  if (pre == null) return 'prerelease; versionSelection.prereleases is not set';
  const ids = pre.identifiers ?? [];
  if (ids.length === 0) return undefined;
  // vendir matches whole dot-separated prerelease identifiers, exactly (numeric ones as written).
  if (v.prerelease.some((p) => ids.includes(p.str))) return undefined;
  return `prerelease; none of its identifiers (${v.prerelease.map((p) => p.str).join('.')}) is in versionSelection.prereleases.identifiers [${ids.join(', ')}]`;
}

function packageConstraint(text: string, version: string, field: string): Constraint {
  try {
    return parseConstraints(text);
  } catch (err) {
    throw new DevpkgError(
      `Package version ${version}: spec.${field}.constraints: ${(err as Error).message} (kapp-controller's API rejects such a Package)`,
    );
  }
}

interface Candidate {
  version: string;
  parsed?: ParsedVersion;
  dropped?: string;
}

/**
 * The version kapp-controller v0.30–v0.53 installs for a PackageInstall, given the versions of
 * its refName: vendir's HighestConstrainedVersion with kapp-controller's additions, in the same
 * order: parse (unparsable skipped, a leading `v` dropped) -> prereleases filter ->
 * Kubernetes-version check -> kapp-controller-version check -> constraints -> highest. When two
 * versions have equal precedence (`1.0.0` and `v1.0.0`), the one listed later wins (Go's stable
 * sort over the API's list order).
 *
 * `sel` undefined is treated as `{}` (no constraints, prereleases dropped); kapp-controller itself
 * rejects a PackageInstall without versionSelection. Throws a DevpkgError when the constraints do
 * not parse (kapp-controller reports "Parsing version constraint ...").
 */
export function selectVersion(versions: string[], sel?: VersionSelection, opts: SelectOptions = {}): Selection {
  const selection = effectiveSelection(sel ?? {});
  const constraint = selection.constraints ? parseConstraints(selection.constraints) : undefined;
  const cands: Candidate[] = versions.map((version) => {
    const r = parseRelaxed(version);
    return r.ok ? { version, parsed: r.version } : { version, dropped: `not a semver version: ${r.error}` };
  });
  const live = () => cands.filter((c) => c.dropped === undefined);
  const details = [`all=${live().length}`];

  for (const c of live()) c.dropped = prereleaseDropReason(c.parsed as ParsedVersion, selection.prereleases);
  details.push(`after-prereleases-filter=${live().length}`);

  const facts = (v: string) => opts.packages?.[v];
  // Like kapp-controller, the Kubernetes version is needed when any Package of the refName has a
  // Kubernetes constraint.
  const k8sConstrained = versions.some((v) => facts(v)?.kubernetesVersionSelection?.constraints);
  if (k8sConstrained && opts.kubernetesVersion !== undefined) {
    const kv = parseTolerant(opts.kubernetesVersion);
    if (!kv.ok) {
      throw new DevpkgError(`Unable to get kubernetes version: "${opts.kubernetesVersion}" does not parse (${kv.error})`);
    }
    const cluster: ParsedVersion = { ...kv.version, prerelease: [], build: [] };
    const shown = `${cluster.major}.${cluster.minor}.${cluster.patch}`;
    for (const c of live()) {
      const text = facts(c.version)?.kubernetesVersionSelection?.constraints;
      if (!text || opts.ignoreKubernetesVersionSelection) continue;
      if (!satisfies(cluster, packageConstraint(text, c.version, 'kubernetesVersionSelection'))) {
        c.dropped = `kubernetesVersionSelection "${text}" does not match the cluster's Kubernetes ${shown}`;
      }
    }
    details.push(`after-kubernetes-version-check=${live().length}`);
  }

  if (opts.kappControllerVersion !== undefined) {
    const kc = parseTolerant(opts.kappControllerVersion);
    const running: ParsedVersion | undefined = kc.ok ? { ...kc.version, prerelease: [], build: [] } : undefined;
    for (const c of live()) {
      const text = facts(c.version)?.kappControllerVersionSelection?.constraints;
      if (!text || opts.ignoreKappControllerVersionSelection) continue;
      const cons = packageConstraint(text, c.version, 'kappControllerVersionSelection');
      if (!running) {
        c.dropped = `kappControllerVersionSelection "${text}" cannot be checked: kapp-controller version "${opts.kappControllerVersion}" does not parse`;
      } else if (!satisfies(running, cons)) {
        c.dropped = `kappControllerVersionSelection "${text}" does not match kapp-controller ${running.major}.${running.minor}.${running.patch}`;
      }
    }
    details.push(`after-kapp-controller-version-check=${live().length}`);
  }

  if (constraint) {
    for (const c of live()) {
      if (!satisfies(c.parsed as ParsedVersion, constraint)) c.dropped = `does not satisfy ${constraint.text}`;
    }
    details.push(`after-constraints-filter=${live().length}`);
  }

  let best: Candidate | undefined;
  for (const c of live()) {
    if (!best || compareParsed(c.parsed as ParsedVersion, best.parsed as ParsedVersion) >= 0) best = c;
  }
  const considered = cands.map((c): ConsideredVersion => {
    if (c.dropped !== undefined) return { version: c.version, kept: false, reason: c.dropped };
    if (c === best) return { version: c.version, kept: true, reason: 'selected' };
    const tie = compareParsed(c.parsed as ParsedVersion, (best as Candidate).parsed as ParsedVersion) === 0;
    const b = (best as Candidate).version;
    return { version: c.version, kept: true, reason: tie ? `same precedence as ${b}, which is listed later` : `lower than ${b}` };
  });
  const detailText = details.join(' -> ');
  if (best) return { selected: best.version, considered, details: detailText };
  return {
    considered,
    details: detailText,
    message:
      `Expected to find at least one version, but did not (details: ${detailText}); ` +
      `versionSelection: ${describeSelection(selection)}` +
      (cands.length === 0 ? '; no versions were given' : ''),
  };
}
