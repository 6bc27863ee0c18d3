/**
 * The three bootstrap phases, read from the new cluster's own objects (pure). The tracker
 * (tracker.ts) feeds it what its watches see and notes when each phase was first complete.
 */
import type { KObject } from '../verify/evaluate.js';

export const PHASE_NAMES = {
  1: 'phase 1: ClusterResourceSet applied the dev Package',
  2: "phase 2: the addons manager's PackageInstall reconciled",
  3: 'phase 3: TKR controller and BOM in place',
} as const;

export type PhaseNumber = 1 | 2 | 3;

export interface Snapshot {
  crs: Map<string, KObject>;
  /** ClusterResourceSetBindings: what Cluster API's ClusterResourceSet controller applied to which Cluster. */
  crsBindings: Map<string, KObject>;
  packages: Map<string, KObject>;
  packageInstalls: Map<string, KObject>;
  deployments: Map<string, KObject>;
  configMaps: Map<string, KObject>;
  tkrs: Map<string, KObject>;
  /** TKRs read as v1alpha1: the only version the TKR CRD of a TKG 1.x management cluster serves. */
  tkrsV1alpha1: Map<string, KObject>;
  repositories: Map<string, KObject>;
}

export function emptySnapshot(): Snapshot {
  return {
    crs: new Map(),
    crsBindings: new Map(),
    packages: new Map(),
    packageInstalls: new Map(),
    deployments: new Map(),
    configMaps: new Map(),
    tkrs: new Map(),
    tkrsV1alpha1: new Map(),
    repositories: new Map(),
  };
}

/** Every TKR seen, whichever version of the API served it. */
export function allTkrs(s: Snapshot): Map<string, KObject> {
  return new Map([...s.tkrsV1alpha1, ...s.tkrs]);
}

export interface PhaseExpect {
  /** Short package name: our CRS is <cluster>-<pkgName>-dev-package. */
  pkgName: string;
  devPackageName: string;
  /** The cluster's refName (the addons manager's PackageInstall installs it). */
  refName: string;
  /** The cluster's TKR (from the Cluster object's label), when known. */
  tkrName?: string;
}

export interface PhaseState {
  done: boolean;
  /** What is still missing (empty when done). */
  missing: string[];
  /** One line of what was seen. */
  seen: string;
}

export interface PhasesEvaluation {
  1: PhaseState;
  2: PhaseState;
  3: PhaseState;
  /** The addons manager's PackageInstall (by name, else by refName), when there is one. */
  packageInstall?: KObject;
  /** Who applied the dev ClusterResourceSet (bindingOf), when a ClusterResourceSetBinding says so. */
  appliedBy?: string;
}

export function condition(o: KObject | undefined, type: string): string | undefined {
  const c = (o?.status?.conditions ?? []).find((x: { type?: string }) => x.type === type) as { status?: string } | undefined;
  return c?.status;
}

function reconciled(o: KObject | undefined): string | undefined {
  if (!o) return undefined;
  const st = o.status ?? {};
  if (st.observedGeneration !== o.metadata?.generation) return undefined;
  const c = (st.conditions ?? []).find((x: { type?: string; status?: string }) => (x.type === 'ReconcileSucceeded' || x.type === 'ReconcileFailed') && x.status === 'True');
  return c?.type;
}

/** BOM ConfigMaps carry the label tanzuKubernetesRelease=<TKR name>. */
export const BOM_TKR_LABEL = 'tanzuKubernetesRelease';

interface BindingEntry {
  clusterResourceSetName?: string;
  resources?: Array<{ kind?: string; name?: string; applied?: boolean; lastAppliedTime?: string }>;
}

/**
 * Who applied a ClusterResourceSet: its entry in a ClusterResourceSetBinding (named after the
 * Cluster, owned by it), which only Cluster API's ClusterResourceSet controller writes. Undefined
 * when no binding names it.
 */
export function bindingOf(s: Snapshot, crsName: string): string | undefined {
  for (const b of s.crsBindings.values()) {
    const entry = ((b.spec?.bindings ?? []) as BindingEntry[]).find((x) => x.clusterResourceSetName === crsName);
    if (!entry) continue;
    const owner = ((b.metadata?.ownerReferences ?? []) as Array<{ kind?: string; name?: string }>).find((o) => o.kind === 'Cluster')?.name ?? b.metadata?.name;
    const res = (entry.resources ?? []).map((r) => `${r.kind} ${r.name} ${r.applied ? `applied at ${r.lastAppliedTime ?? '?'}` : 'not applied'}`).join(', ');
    return `ClusterResourceSetBinding ${b.metadata?.name} (Cluster ${owner}): ${res || 'no resources'}`;
  }
  return undefined;
}

export function evaluatePhases(s: Snapshot, e: PhaseExpect): PhasesEvaluation {
  // Phase 1
  const crs = [...s.crs.values()].find((c) => String(c.metadata?.name ?? '').endsWith(`-${e.pkgName}-dev-package`));
  const applied = condition(crs, 'ResourcesApplied') === 'True';
  const devPkg = s.packages.get(e.devPackageName);
  const m1: string[] = [];
  if (!crs) m1.push(`ClusterResourceSet *-${e.pkgName}-dev-package`);
  else if (!applied) m1.push(`ResourcesApplied=True on ClusterResourceSet ${crs.metadata?.name}`);
  if (!devPkg) m1.push(`Package ${e.devPackageName}`);
  const p1: PhaseState = {
    done: m1.length === 0,
    missing: m1,
    seen: `${crs ? `ClusterResourceSet ${crs.metadata?.name} ResourcesApplied=${condition(crs, 'ResourcesApplied') ?? 'unknown'}` : 'no dev ClusterResourceSet'}; ${devPkg ? `Package ${e.devPackageName} present` : `no Package ${e.devPackageName}`}`,
  };

  // Phase 2
  // The addons manager names its PackageInstall after the addon (GenerateAppNameFromAddonSecret)
  // and writes the BOM's refName into it, which need not be ours: by name first.
  const pkgi =
    s.packageInstalls.get(e.pkgName) ??
    [...s.packageInstalls.values()].filter((p) => p.spec?.packageRef?.refName === e.refName).sort((a, b) => String(a.metadata?.name).localeCompare(String(b.metadata?.name)))[0];
  const r = reconciled(pkgi);
  const p2: PhaseState = {
    done: !!pkgi && !!r,
    missing: !pkgi ? [`PackageInstall ${e.pkgName} or a PackageInstall of ${e.refName} in tkg-system`] : r ? [] : [`PackageInstall ${pkgi.metadata?.name} reconciled (observedGeneration = generation)`],
    seen: pkgi
      ? `PackageInstall ${pkgi.metadata?.name} (${pkgi.spec?.packageRef?.refName}): ${r ?? 'reconciling'}, version ${pkgi.status?.version ?? 'none'}`
      : `no PackageInstall ${e.pkgName} nor one of ${e.refName}`,
  };

  // Phase 3
  const m3: string[] = [];
  const tkrs = allTkrs(s);
  const tkrCtl = s.deployments.get('tkr-controller-manager');
  const tkrSource = s.deployments.get('tkr-source-controller-manager');
  const available = (d?: KObject) => condition(d, 'Available') === 'True';
  if (!available(tkrCtl) && !available(tkrSource)) m3.push('Deployment tkr-system/tkr-controller-manager (or tkr-source-controller-manager) Available');
  const label = (c: KObject): string | undefined => (c.metadata?.labels as Record<string, string> | undefined)?.[BOM_TKR_LABEL];
  const boms = [...s.configMaps.values()].filter((c) => label(c));
  const bom = e.tkrName ? boms.find((c) => label(c) === e.tkrName) : boms.find((c) => tkrs.has(String(label(c))));
  if (!bom) m3.push(e.tkrName ? `a BOM ConfigMap in tkr-system labelled ${BOM_TKR_LABEL}=${e.tkrName}` : `a BOM ConfigMap in tkr-system with a TKR of its ${BOM_TKR_LABEL} label`);
  const tkrName = e.tkrName ?? (bom ? label(bom) : undefined);
  if (tkrName && !tkrs.has(tkrName)) m3.push(`TanzuKubernetesRelease ${tkrName}`);
  const core = s.repositories.get('tanzu-core');
  if (core && reconciled(core) !== 'ReconcileSucceeded') m3.push('PackageRepository tkg-system/tanzu-core reconciled');
  const p3: PhaseState = {
    done: m3.length === 0,
    missing: m3,
    seen: [
      `tkr-controller-manager ${tkrCtl ? (available(tkrCtl) ? 'available' : 'not available') : 'absent'}`,
      ...(tkrSource ? [`tkr-source-controller-manager ${available(tkrSource) ? 'available' : 'not available'}`] : []),
      bom ? `BOM ${bom.metadata?.name}` : 'no BOM',
      tkrName ? `TKR ${tkrName} ${tkrs.has(tkrName) ? 'present' : 'absent'}` : 'no TKR',
      core ? `tanzu-core ${reconciled(core) ?? 'reconciling'}` : 'no tanzu-core PackageRepository',
    ].join(', '),
  };
  const appliedBy = crs ? bindingOf(s, String(crs.metadata?.name)) : undefined;
  return { 1: p1, 2: p2, 3: p3, ...(pkgi ? { packageInstall: pkgi } : {}), ...(appliedBy ? { appliedBy } : {}) };
}

/** The ordinal of `version` being installed by the PackageInstall: the dev one, or another. */
export function installedVersion(pkgi: KObject | undefined): string | undefined {
  if (!pkgi || reconciled(pkgi) !== 'ReconcileSucceeded') return undefined;
  return pkgi.status?.version;
}
