/**
 * What undid (or will undo) the dev Package in a bootstrap, read from what the phase tracker saw
 * (pure). The behaviours are those of tanzu-addons-manager v0.25.4 and kapp-controller described
 * in docs/addons-manager.md: the manager re-patches spec.packageRef of its PackageInstall on every
 * reconcile (refName from the BOM, versionSelection {prereleases: {}}), a PackageRepository takes
 * over a Package of the same name and deletes the Packages it owns once they leave it, and the
 * downgrade guard holds unless the PackageInstall carries packaging.carvel.dev/downgradable.
 * The TKR controller only ever creates BOM ConfigMaps and TKRs (it never rewrites the BOM of a
 * TKR), so another core repository reaches the cluster only with another TKR: an upgrade.
 */
import type { KObject } from '../verify/evaluate.js';
import { exactVersionsOf, parseConstraints, satisfies } from '../versions/index.js';
import type { PhaseNumber } from './phases.js';

export const REPOSITORY_REF_ANNOTATION = 'packaging.carvel.dev/package-repository-ref';
export const DOWNGRADABLE_ANNOTATION = 'packaging.carvel.dev/downgradable';
const DOWNGRADE = /Stopped installing matched version '([^']+)' since last attempted version '([^']+)' is higher/;

export interface PackageRefSighting {
  refName?: string;
  constraints?: string;
  at: string;
}

export interface RepositorySighting {
  /** The tanzu-core PackageRepository's spec.fetch.imgpkgBundle.image. */
  image?: string;
  at: string;
}

export interface DevPackageHistory {
  seenAt?: string;
  /** When the Package first carried a package-repository-ref annotation, and which repository. */
  takenOver?: { by: string; at: string; image?: string };
  /** When it disappeared after having been seen. */
  goneAt?: string;
}

export interface UndoInput {
  dev: { name: string; refName: string; version: string };
  /** The addons manager's PackageInstall as it is now. */
  pkgi?: KObject;
  /** Its spec.packageRef each time it changed (refName, constraints). */
  packageRefs: PackageRefSighting[];
  devPackage: DevPackageHistory;
  /** Versions the PackageInstall installed, in order. */
  installs: { version: string; at: string }[];
  /** The tanzu-core PackageRepository's image each time it changed. */
  repositoryImages?: RepositorySighting[];
  /** TanzuKubernetesReleases in the order they were first seen, with their creationTimestamp. */
  tkrs?: { name: string; at: string; created?: string }[];
  phaseAt: (at: string) => PhaseNumber;
}

export interface Finding {
  text: string;
  /** Set when the finding decides the verdict on its own (nothing brings the dev Package back). */
  verdict?: 'not-selected' | 'lost';
}

/**
 * Records the PackageInstall's spec.packageRef when it changed; returns a log line for a change
 * after the first sighting.
 */
export function notePackageRef(refs: PackageRefSighting[], pkgi: KObject | undefined, now: string): string | undefined {
  const ref = pkgi?.spec?.packageRef as { refName?: string; versionSelection?: { constraints?: string } } | undefined;
  if (!ref) return undefined;
  const cur = { refName: ref.refName, constraints: ref.versionSelection?.constraints || undefined };
  const prev = refs[refs.length - 1];
  if (prev && prev.refName === cur.refName && prev.constraints === cur.constraints) return undefined;
  refs.push({ ...cur, at: now });
  if (!prev) return undefined;
  return `${pkgiName(pkgi)} spec.packageRef now refName ${cur.refName}${cur.constraints ? `, constraints "${cur.constraints}"` : ', no constraints'}`;
}

/** Records what became of the dev Package (`pkg` as the watch shows it now); returns a log line. */
export function noteDevPackage(d: DevPackageHistory, pkg: KObject | undefined, name: string, now: string): string | undefined {
  if (!pkg) {
    if (!d.seenAt || d.goneAt) return undefined;
    d.goneAt = now;
    return `dev Package ${name} deleted`;
  }
  d.seenAt ??= now;
  const by = pkg.metadata?.annotations?.[REPOSITORY_REF_ANNOTATION];
  if (!by || d.takenOver) return undefined;
  const image = pkg.spec?.template?.spec?.fetch?.[0]?.imgpkgBundle?.image as string | undefined;
  d.takenOver = { by, at: now, ...(image ? { image } : {}) };
  return `dev Package ${name} now belongs to PackageRepository ${by}`;
}

/**
 * Records the tanzu-core PackageRepository's image when it changed; returns a log line for a change
 * after the first sighting.
 */
export function noteRepository(seen: RepositorySighting[], repo: KObject | undefined, now: string): string | undefined {
  const image = repo?.spec?.fetch?.imgpkgBundle?.image as string | undefined;
  if (!repo || !image) return undefined;
  const prev = seen[seen.length - 1];
  if (prev && prev.image === image) return undefined;
  seen.push({ image, at: now });
  if (!prev) return undefined;
  return `PackageRepository ${repo.metadata?.namespace ?? 'tkg-system'}/${repo.metadata?.name ?? 'tanzu-core'} now fetches ${image}`;
}

function pkgiName(p?: KObject): string {
  return `PackageInstall ${p?.metadata?.namespace ?? 'tkg-system'}/${p?.metadata?.name ?? '?'}`;
}

function excludes(constraints: string, version: string): boolean {
  try {
    return !satisfies(version, constraints);
  } catch {
    return false;
  }
}

function isExact(constraints: string): boolean {
  try {
    return !!exactVersionsOf(parseConstraints(constraints));
  } catch {
    return false;
  }
}

export function undoFindings(i: UndoInput): Finding[] {
  const out: Finding[] = [];
  const { dev, pkgi } = i;
  const name = pkgiName(pkgi);
  const ref = pkgi?.spec?.packageRef as { refName?: string; versionSelection?: { constraints?: string } } | undefined;
  const refName = ref?.refName;
  const advice = refName ? `; the 04_user_customizations dev Package must carry the refName the BOM names: give --ref-name ${refName} (input ref-name)` : '';

  if (refName && refName !== dev.refName) {
    const had = i.packageRefs.filter((r) => r.refName === dev.refName);
    const back = had.length ? i.packageRefs.find((r) => r.at > had[had.length - 1]!.at && r.refName !== dev.refName) : undefined;
    out.push({
      verdict: 'not-selected',
      text: back
        ? `the addons manager re-patched ${name} in phase ${i.phaseAt(back.at)} (at ${back.at}): spec.packageRef.refName went from ${dev.refName} back to ${refName}; it writes the BOM's packageName and versionSelection {prereleases: {}} on every reconcile, undoing edits, so the dev Package is no longer selected${advice}`
        : `the addons manager's ${name} installs refName ${refName} (the BOM's packageName, written on every reconcile), not the dev Package's refName ${dev.refName}: the dev Package can never be selected${advice}`,
    });
  }

  const constraints = ref?.versionSelection?.constraints;
  if (constraints && excludes(constraints, dev.version)) {
    out.push({
      text:
        `${name}'s versionSelection.constraints "${constraints}" exclude the dev version ${dev.version}` +
        (isExact(constraints) ? ': an exact pin, so a higher dev version cannot win (the TKG 1.x addons manager never sets constraints; TKG 2.x ClusterBootstrap does)' : ''),
    });
  }
  let dropped: { constraints: string; at: string } | undefined;
  for (let k = 1; k < i.packageRefs.length; k++) {
    const was = i.packageRefs[k - 1]!.constraints;
    if (was && !i.packageRefs[k]!.constraints) dropped = { constraints: was, at: i.packageRefs[k]!.at };
  }
  if (dropped && !constraints) {
    out.push({ text: `the addons manager's re-patch in phase ${i.phaseAt(dropped.at)} dropped versionSelection.constraints "${dropped.constraints}" from ${name}` });
  }

  // Another core repository: the addons manager re-patched tanzu-core from a new TKR's BOM.
  const repos = i.repositoryImages ?? [];
  const moved = repos.length > 1 ? repos[repos.length - 1]! : undefined;
  if (moved) {
    // The TKRs made after the repository was first seen (the watches deliver what already
    // existed in any order, so when a TKR was seen says less than when it was created).
    const first = Date.parse(repos[0]!.at);
    const newTkrs = (i.tkrs ?? []).filter((t) => Date.parse(t.created ?? t.at) > first).map((t) => t.name);
    out.push({
      text:
        `in phase ${i.phaseAt(moved.at)} (at ${moved.at}) the addons manager re-patched PackageRepository tkg-system/tanzu-core from ${repos[0]!.image} to ${moved.image}: ` +
        `the management cluster moved to a TKR whose BOM names another core package repository (an upgrade${newTkrs.length ? `: TKR ${newTkrs.join(', ')}` : ''}); ` +
        `the TKR controller never rewrites a TKR's BOM, so the released Packages change only with a new TKR`,
    });
  }

  const taken = i.devPackage.takenOver;
  if (taken) {
    out.push({
      verdict: 'lost',
      text:
        `the dev Package ${dev.name} was taken over in phase ${i.phaseAt(taken.at)} by PackageRepository ${taken.by}: the repository carries a Package of the same name, ` +
        `so its reconcile rewrote the dev Package to the repository's spec${taken.image ? ` (bundle ${taken.image})` : ''} and owns it now; choose a dev version the repository does not carry`,
    });
  }
  const gone = i.devPackage.goneAt;
  if (gone) {
    out.push({
      verdict: 'lost',
      text:
        `the dev Package ${dev.name} was deleted in phase ${i.phaseAt(gone)}` +
        (taken ? ` by PackageRepository ${taken.by}'s reconcile (a repository version without it deletes the Packages the repository owns)` : ''),
    });
  }

  const undone = out.some((f) => f.verdict) || !!(constraints && excludes(constraints, dev.version));
  if (undone && pkgi?.metadata?.annotations?.[DOWNGRADABLE_ANNOTATION] !== undefined) {
    const devAt = i.installs.find((x) => x.version === dev.version)?.at;
    const back = devAt ? i.installs.find((x) => x.at > devAt && x.version !== dev.version) : undefined;
    out.push({
      text:
        `${name} carries ${DOWNGRADABLE_ANNOTATION} (the addons manager keeps annotations it does not set), so kapp-controller goes back to a lower version instead of refusing the downgrade` +
        (back ? `: it went back to ${back.version} at ${back.at}` : ''),
    });
  } else if (undone) {
    const m = DOWNGRADE.exec(String(pkgi?.status?.usefulErrorMessage ?? ''));
    if (m) out.push({ text: `kapp-controller's downgrade guard refused ${m[1]} (last attempted ${m[2]}): the App stays on what it had, but ${name} fails` });
  }
  return out;
}
