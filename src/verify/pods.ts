/**
 * The pods of the workload an App deploys, and why they do not start. kapp waits for a
 * Deployment until its progress deadline (10 minutes by default), so an image that cannot be
 * pulled would otherwise surface only as "condition Reconciling" until devpkg's own time-out.
 *
 * Which pods: those carrying the App's kapp label (kapp's ownership label rules put it on pod
 * templates too, unless kapp.k14s.io/disable-default-ownership-label-rules), in the
 * namespaces the App deploys into, created since the App's current deploy started.
 * Which waiting reasons are final (decided at once, verdict reconcile-failed):
 * - ImagePullBackOff, InvalidImageName, ErrImageNeverPull: the kubelet tried and gave up for
 *   now; the same image reference will not appear by itself;
 * - CrashLoopBackOff once a container has restarted CRASH_LOOP_FINAL times (an earlier crash may
 *   be a dependency that is not ready yet).
 * ErrImagePull, CreateContainerConfigError and the rest are reported while waiting, not final.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import type { KObject } from './kobject.js';
import { ResumableWatch } from './watch.js';

function timeOf(t: unknown): number | undefined {
  if (t === undefined || t === null || t === '') return undefined;
  const ms = t instanceof Date ? t.getTime() : Date.parse(String(t));
  return Number.isNaN(ms) ? undefined : ms;
}

function trimMessage(text: string, max: number): string {
  const s = text.trim();
  return s.length <= max ? s : `${s.slice(0, max)}… (${s.length - max} more characters)`;
}

export const CRASH_LOOP_FINAL = 3;
const FINAL_REASONS = new Set(['ImagePullBackOff', 'InvalidImageName', 'ErrImageNeverPull']);
const REPORTED_REASONS = new Set([
  ...FINAL_REASONS,
  'ErrImagePull',
  'CrashLoopBackOff',
  'CreateContainerConfigError',
  'CreateContainerError',
  'RunContainerError',
  'PreCreateHookError',
  'PostStartHookError',
]);

export interface WorkloadScope {
  /** The App's kapp label selector, e.g. `kapp.k14s.io/app=1700000000000000000`. */
  label?: string;
  namespaces: string[];
}

export interface PodProblem {
  namespace: string;
  pod: string;
  container: string;
  reason: string;
  message: string;
  restarts: number;
  final: boolean;
  /** The container's image, as its status (or else the pod's spec) names it. */
  image?: string;
}

/**
 * Where the App deploys: `status.deploy.kapp.associatedResources` (label and namespaces, set once
 * a deploy has run) and the namespaces kapp names in its deploy output. Pure.
 */
export function workloadScope(app: KObject | undefined): WorkloadScope {
  const assoc = app?.status?.deploy?.kapp?.associatedResources as { label?: string; namespaces?: string[] } | undefined;
  const namespaces = new Set<string>((assoc?.namespaces ?? []).filter((n) => n && n !== '(cluster)'));
  const stdout = String(app?.status?.deploy?.stdout ?? '');
  for (const m of stdout.matchAll(/namespace: ([a-z0-9]([-a-z0-9]*[a-z0-9])?)\b/g)) namespaces.add(m[1]!);
  return { ...(assoc?.label ? { label: assoc.label } : {}), namespaces: [...namespaces].sort() };
}

/** Containers of these pods that wait for a reason worth reporting. Pure. */
export function podProblems(pods: KObject[] | undefined, sinceMs?: number): PodProblem[] {
  const out: PodProblem[] = [];
  for (const pod of pods ?? []) {
    if (pod.metadata?.deletionTimestamp) continue;
    const created = timeOf(pod.metadata?.creationTimestamp);
    if (sinceMs !== undefined && (created === undefined || created < sinceMs)) continue;
    const statuses = [...(pod.status?.initContainerStatuses ?? []), ...(pod.status?.containerStatuses ?? [])] as Array<{
      name?: string;
      image?: string;
      restartCount?: number;
      state?: { waiting?: { reason?: string; message?: string } };
    }>;
    const specs = [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])] as Array<{ name?: string; image?: string }>;
    for (const c of statuses) {
      const reason = c.state?.waiting?.reason;
      if (!reason || !REPORTED_REASONS.has(reason)) continue;
      const restarts = c.restartCount ?? 0;
      const image = c.image || specs.find((x) => x.name === c.name)?.image;
      out.push({
        namespace: String(pod.metadata?.namespace ?? ''),
        pod: String(pod.metadata?.name ?? ''),
        container: c.name ?? '?',
        reason,
        message: trimMessage(c.state?.waiting?.message ?? '', 400),
        restarts,
        final: FINAL_REASONS.has(reason) || (reason === 'CrashLoopBackOff' && restarts >= CRASH_LOOP_FINAL),
        ...(image ? { image } : {}),
      });
    }
  }
  return out.sort((a, b) => Number(b.final) - Number(a.final) || `${a.namespace}/${a.pod}/${a.container}`.localeCompare(`${b.namespace}/${b.pod}/${b.container}`));
}

/**
 * The App's kapp label out of kapp's app ConfigMap (`<App>.app`, data.spec JSON with labelKey and
 * labelValue), written when a deploy starts: during an App's first deploy the App status does not
 * carry the label yet. Pure; undefined when the ConfigMap says nothing usable.
 */
export function kappAppLabel(data: Record<string, string> | undefined): string | undefined {
  try {
    const spec = JSON.parse(data?.spec ?? '') as { labelKey?: unknown; labelValue?: unknown };
    if (typeof spec.labelKey === 'string' && typeof spec.labelValue === 'string' && spec.labelKey && spec.labelValue) {
      return `${spec.labelKey}=${spec.labelValue}`;
    }
  } catch {
    // not JSON: no label
  }
  return undefined;
}

export function describePodProblem(p: PodProblem): string {
  const restarts = p.reason === 'CrashLoopBackOff' ? ` after ${p.restarts} restart(s)` : '';
  // The kubelet's pull messages quote the image; others do not: then it is named here.
  const image = p.image && !p.message.includes(p.image) ? ` (image ${p.image})` : '';
  return `pod ${p.namespace}/${p.pod} container ${p.container}${image}: ${p.reason}${restarts}${p.message ? `: ${p.message}` : ''}`;
}

/**
 * Watches the pods of a workload scope (one watch per namespace, by the kapp label). The scope
 * grows as the App names more namespaces; a new label (a new App) starts over.
 */
export class WorkloadPods {
  private readonly watches = new Map<string, ResumableWatch>();
  private label?: string;
  private stopped = false;
  private lookingUp = false;

  constructor(
    private readonly kc: KubeConfig,
    private readonly events: { onChange(pods: KObject[]): void; onProblem?(message: string): void; onActivity?(): void },
  ) {}

  /**
   * Watches the pods of `scope`. Without a label in it (an App's first deploy), the label is read
   * once from kapp's app ConfigMap of `app`; later calls try again while it is unknown.
   */
  track(scope: WorkloadScope, app?: { namespace: string; name: string }): void {
    if (this.stopped) return;
    if (!scope.label) {
      if (!this.label) {
        if (app && scope.namespaces.length > 0 && !this.lookingUp) this.lookUpLabel(scope, app);
        return;
      }
      scope = { ...scope, label: this.label };
    }
    if (scope.label !== this.label) {
      for (const w of this.watches.values()) w.stop();
      this.watches.clear();
      this.label = scope.label;
    }
    for (const namespace of scope.namespaces) {
      if (this.watches.has(namespace)) continue;
      const w = new ResumableWatch(
        this.kc,
        { group: '', version: 'v1', plural: 'pods', namespace, labelSelector: scope.label },
        { onChange: () => this.events.onChange(this.current()), onProblem: (m) => this.events.onProblem?.(m), onActivity: () => this.events.onActivity?.() },
      );
      this.watches.set(namespace, w);
      // Reading pods is a help, not a requirement (RBAC may forbid it): a refusal is logged once.
      w.start().catch((err: unknown) => {
        this.events.onProblem?.(`cannot watch pods in ${namespace}: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`);
        w.stop();
      });
    }
  }

  private lookUpLabel(scope: WorkloadScope, app: { namespace: string; name: string }): void {
    this.lookingUp = true;
    void (async () => {
      const k8s = await import('@kubernetes/client-node');
      const core = this.kc.makeApiClient(k8s.CoreV1Api);
      // kapp-controller names the kapp app <App>.app (older releases: <App>-ctrl).
      for (const name of [`${app.name}.app`, `${app.name}-ctrl`]) {
        try {
          const label = kappAppLabel((await core.readNamespacedConfigMap({ namespace: app.namespace, name })).data);
          if (label) return label;
        } catch {
          // absent (not created yet, another name) or not readable: try the next, or later
        }
      }
      return undefined;
    })()
      .then((label) => {
        this.lookingUp = false;
        if (label && !this.label) this.track({ ...scope, label });
      })
      .catch(() => (this.lookingUp = false));
  }

  current(): KObject[] {
    return [...this.watches.values()].flatMap((w) => [...w.current().values()]);
  }

  /** Reopens every pod watch from its last resourceVersion (see ResumableWatch.reopen). */
  reopen(): void {
    for (const w of this.watches.values()) w.reopen();
  }

  stop(): void {
    this.stopped = true;
    for (const w of this.watches.values()) w.stop();
  }
}
