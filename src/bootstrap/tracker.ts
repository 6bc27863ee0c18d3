/**
 * Watches the new management cluster's own objects and notes when each bootstrap phase was
 * first complete (evaluatePhases). Watches start without a resourceVersion (the server sends
 * every existing object as ADDED), resume from the last resourceVersion after a disconnect, and
 * start over on 410 Gone. Nothing polls.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import type { KObject } from '../verify/evaluate.js';
import type { Phase } from '../results.js';
import { allTkrs, emptySnapshot, evaluatePhases, PHASE_NAMES, installedVersion, type PhaseExpect, type PhaseNumber, type PhasesEvaluation, type Snapshot } from './phases.js';
import { noteDevPackage, notePackageRef, noteRepository, type DevPackageHistory, type PackageRefSighting, type RepositorySighting } from './undo.js';

interface Source {
  key: keyof Snapshot;
  path: string;
}

export function phaseSources(namespace = 'tkg-system'): Source[] {
  return [
    { key: 'crs', path: `/apis/addons.cluster.x-k8s.io/v1beta1/namespaces/${namespace}/clusterresourcesets` },
    { key: 'crsBindings', path: `/apis/addons.cluster.x-k8s.io/v1beta1/namespaces/${namespace}/clusterresourcesetbindings` },
    { key: 'packages', path: `/apis/data.packaging.carvel.dev/v1alpha1/namespaces/${namespace}/packages` },
    { key: 'packageInstalls', path: `/apis/packaging.carvel.dev/v1alpha1/namespaces/${namespace}/packageinstalls` },
    { key: 'repositories', path: `/apis/packaging.carvel.dev/v1alpha1/namespaces/${namespace}/packagerepositories` },
    { key: 'deployments', path: '/apis/apps/v1/namespaces/tkr-system/deployments' },
    { key: 'configMaps', path: '/api/v1/namespaces/tkr-system/configmaps' },
    { key: 'tkrs', path: '/apis/run.tanzu.vmware.com/v1alpha3/tanzukubernetesreleases' },
    // A TKG 1.x management cluster's TKR CRD (the tkr ClusterResourceSet's) serves only v1alpha1.
    { key: 'tkrsV1alpha1', path: '/apis/run.tanzu.vmware.com/v1alpha1/tanzukubernetesreleases' },
  ];
}

/** One collection, watched from "now, with everything that exists" onwards. */
class CollectionWatch {
  private rv = '';
  private abort?: AbortController;
  private timer?: NodeJS.Timeout;
  private stopped = false;
  private backoff = 250;

  constructor(
    private readonly kc: KubeConfig,
    private readonly path: string,
    private readonly objects: Map<string, KObject>,
    private readonly changed: () => void,
    private readonly problem: (m: string) => void,
  ) {}

  async start(): Promise<void> {
    const k8s = await import('@kubernetes/client-node');
    if (this.stopped) return;
    const w = new k8s.Watch(this.kc);
    let restart = !this.rv;
    if (restart) this.objects.clear();
    const params: Record<string, string | number | boolean> = { allowWatchBookmarks: true, timeoutSeconds: 240 + Math.floor(Math.random() * 60) };
    if (this.rv) params.resourceVersion = this.rv;
    try {
      this.abort = await w.watch(
        this.path,
        params,
        (type: string, obj: KObject & { code?: number; message?: string }) => {
          if (this.stopped) return;
          this.backoff = 250;
          if (type === 'ERROR') {
            restart = true;
            this.rv = '';
            this.abort?.abort();
            return;
          }
          if (obj.metadata?.resourceVersion) this.rv = obj.metadata.resourceVersion;
          if (type === 'BOOKMARK' || !obj.metadata?.name) return;
          if (type === 'DELETED') this.objects.delete(obj.metadata.name);
          else this.objects.set(obj.metadata.name, obj);
          this.changed();
        },
        (err: unknown) => {
          if (this.stopped) return;
          const status = (err as { statusCode?: number } | null)?.statusCode;
          // 404: a CRD, API or namespace that is not there (yet); keep trying quietly.
          if (err && status !== 404 && !(err instanceof Error && err.name === 'AbortError')) this.problem(`watch ${this.path}: ${(err as Error).message ?? String(err)}`);
          this.schedule(err ? this.next() : 0, restart);
        },
      );
    } catch (err) {
      // 404 (a CRD or namespace that is not there yet) and connection errors: try again later.
      const code = (err as { code?: number; statusCode?: number }).code ?? (err as { statusCode?: number }).statusCode;
      if (code !== 404) this.problem(`watch ${this.path}: ${(err as Error).message ?? String(err)}`);
      this.schedule(this.next(), true);
    }
  }

  private next(): number {
    const ms = this.backoff;
    this.backoff = Math.min(this.backoff * 2, 5000);
    return ms;
  }

  private schedule(ms: number, restart: boolean): void {
    if (this.stopped) return;
    if (restart) this.rv = '';
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.start(), ms);
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.abort?.abort();
  }
}

export interface PhaseSighting {
  phase: PhaseNumber;
  at: string;
  /** What the PackageInstall installed when the phase was seen. */
  installed?: string;
  seen: string;
  /** Phase 1: the ClusterResourceSetBinding entry of the dev ClusterResourceSet, once seen (it may come later than the phase). */
  appliedBy?: string;
}

export class PhaseTracker {
  readonly snapshot: Snapshot = emptySnapshot();
  private readonly watches: CollectionWatch[] = [];
  private readonly seenAt = new Map<PhaseNumber, PhaseSighting>();
  private waiters: (() => void)[] = [];
  /** When the dev version was first seen installed (PackageInstall reconciled with it). */
  devInstalledAt?: string;
  /** Every version the PackageInstall was seen to install, in order, with when. */
  readonly installs: { version: string; at: string }[] = [];
  /** Every version the PackageInstall started to reconcile (status.lastAttemptedVersion), in order. */
  readonly attempts: { version: string; at: string }[] = [];
  /** The PackageInstall's spec.packageRef (refName, constraints) each time it changed. */
  readonly packageRefs: PackageRefSighting[] = [];
  /** The dev Package: when seen, taken over by a PackageRepository, gone. */
  readonly devPackage: DevPackageHistory = {};
  /** The tanzu-core PackageRepository's image each time it changed. */
  readonly repositoryImages: RepositorySighting[] = [];
  /** TanzuKubernetesReleases in the order they were first seen. */
  readonly tkrs: { name: string; at: string; created?: string }[] = [];
  last: PhasesEvaluation;

  constructor(
    private readonly kc: KubeConfig,
    private readonly expect: PhaseExpect & { devVersion: string },
    private readonly log: (m: string) => void = () => undefined,
    private readonly namespace = 'tkg-system',
  ) {
    this.last = evaluatePhases(this.snapshot, expect);
  }

  async start(): Promise<void> {
    for (const s of phaseSources(this.namespace)) {
      const w = new CollectionWatch(this.kc, s.path, this.snapshot[s.key], () => this.onChange(), (m) => this.log(m));
      this.watches.push(w);
    }
    await Promise.all(this.watches.map((w) => w.start()));
    this.onChange();
  }

  stop(): void {
    for (const w of this.watches) w.stop();
    for (const f of this.waiters) f();
    this.waiters = [];
  }

  private onChange(): void {
    const now = new Date().toISOString();
    const e = evaluatePhases(this.snapshot, this.expect);
    this.last = e;
    const v = installedVersion(e.packageInstall);
    if (v && this.installs[this.installs.length - 1]?.version !== v) {
      this.installs.push({ version: v, at: now });
      this.log(`PackageInstall ${e.packageInstall?.metadata?.name} installed ${v}${v === this.expect.devVersion ? ' (the dev version)' : ''}`);
    }
    if (v === this.expect.devVersion && !this.devInstalledAt) this.devInstalledAt = now;
    const attempted = e.packageInstall?.status?.lastAttemptedVersion as string | undefined;
    if (attempted && this.attempts[this.attempts.length - 1]?.version !== attempted) this.attempts.push({ version: attempted, at: now });
    const refChange = notePackageRef(this.packageRefs, e.packageInstall, now);
    if (refChange) this.log(refChange);
    const repoChange = noteRepository(this.repositoryImages, this.snapshot.repositories.get('tanzu-core'), now);
    if (repoChange) this.log(repoChange);
    for (const [name, tkr] of allTkrs(this.snapshot)) {
      if (!this.tkrs.some((t) => t.name === name)) {
        const created = tkr.metadata?.creationTimestamp as string | undefined;
        this.tkrs.push({ name, at: now, ...(created ? { created } : {}) });
        if (this.tkrs.length > 1) this.log(`TanzuKubernetesRelease ${name} appeared`);
      }
    }
    const devChange = noteDevPackage(this.devPackage, this.snapshot.packages.get(this.expect.devPackageName), this.expect.devPackageName, now);
    if (devChange) this.log(devChange);
    // In order: a phase counts once the one before it was seen (watches deliver independently).
    for (const p of [1, 2, 3] as PhaseNumber[]) {
      if (this.seenAt.has(p)) continue;
      if (!e[p].done) break;
      this.seenAt.set(p, { phase: p, at: now, seen: e[p].seen, ...(v ? { installed: v } : {}) });
      this.log(`${PHASE_NAMES[p]}: seen (${e[p].seen})`);
    }
    const p1 = this.seenAt.get(1);
    if (p1 && !p1.appliedBy && e.appliedBy) {
      p1.appliedBy = e.appliedBy;
      this.log(`phase 1 applied by Cluster API's ClusterResourceSet controller: ${e.appliedBy}`);
    }
    const ws = this.waiters;
    this.waiters = [];
    for (const f of ws) f();
  }

  sighting(p: PhaseNumber): PhaseSighting | undefined {
    return this.seenAt.get(p);
  }

  /** Resolves true once phase `p` was seen, false after timeoutMs. */
  waitFor(p: PhaseNumber, timeoutMs: number): Promise<boolean> {
    if (this.seenAt.has(p)) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((f) => f !== check);
        resolve(false);
      }, timeoutMs);
      const check = () => {
        if (this.seenAt.has(p)) {
          clearTimeout(timer);
          resolve(true);
        } else this.waiters.push(check);
      };
      this.waiters.push(check);
    });
  }

  /** Phases for PackageResult.phases. */
  phases(): Phase[] {
    return ([1, 2, 3] as PhaseNumber[]).filter((p) => this.seenAt.has(p)).map((p) => {
      const x = this.seenAt.get(p)!;
      return { name: PHASE_NAMES[p], seenAt: x.at, detail: x.appliedBy ? `${x.seen}; ${x.appliedBy}` : x.seen };
    });
  }
}
