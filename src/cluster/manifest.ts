/**
 * Installing a release manifest (kapp-controller's release.yml) without kubectl: every object
 * server-side applied in order with devpkg's field manager, then a bounded wait until its
 * Deployments are available and its APIServices answer. A timeout names what is not ready and
 * why (the pods' waiting reasons, e.g. ErrImagePull).
 */
import type { KubeConfig, KubernetesObject } from '@kubernetes/client-node';
import { parseAllDocuments } from 'yaml';
import { DevpkgError } from '../errors.js';
import type { KObject } from '../verify/evaluate.js';

/** The objects of a multi-document manifest, in order; empty documents skipped (pure). */
export function manifestObjects(text: string, source = 'manifest'): KubernetesObject[] {
  const out: KubernetesObject[] = [];
  for (const [i, doc] of parseAllDocuments(text).entries()) {
    if (doc.errors.length > 0) throw new DevpkgError(`${source}: document ${i + 1} is not valid YAML: ${doc.errors[0]!.message}`);
    const obj = doc.toJS() as KubernetesObject | null;
    if (obj === null || obj === undefined) continue;
    if (typeof obj !== 'object' || !obj.apiVersion || !obj.kind || !obj.metadata?.name) {
      throw new DevpkgError(`${source}: document ${i + 1} is not a Kubernetes object (apiVersion, kind and metadata.name)`);
    }
    out.push(obj);
  }
  if (out.length === 0) throw new DevpkgError(`${source}: no Kubernetes objects in it`);
  return out;
}

/**
 * The order to apply in: Namespaces, then CustomResourceDefinitions, then the rest as written
 * (stable), so no object arrives before the namespace or type it needs (pure).
 */
export function applyOrder(objects: KubernetesObject[]): KubernetesObject[] {
  const rank = (o: KubernetesObject) => (o.kind === 'Namespace' ? 0 : o.kind === 'CustomResourceDefinition' ? 1 : 2);
  return objects.map((o, i) => ({ o, i })).sort((a, b) => rank(a.o) - rank(b.o) || a.i - b.i).map((x) => x.o);
}

/** applyOrder cut where the rank changes: Namespaces, CustomResourceDefinitions, the rest (pure). */
export function applyGroups(objects: KubernetesObject[]): KubernetesObject[][] {
  const groups: KubernetesObject[][] = [];
  let last: string | undefined;
  for (const o of applyOrder(objects)) {
    const rank = o.kind === 'Namespace' || o.kind === 'CustomResourceDefinition' ? o.kind : 'rest';
    if (rank !== last) groups.push([]);
    groups[groups.length - 1]!.push(o);
    last = rank;
  }
  return groups;
}

/** What the wait watches: Deployments and APIServices of the manifest (pure). */
export function readinessTargets(objects: KubernetesObject[]): Array<{ apiVersion: string; kind: string; namespace?: string; name: string }> {
  return objects
    .filter((o) => (o.kind === 'Deployment' && o.apiVersion === 'apps/v1') || (o.kind === 'APIService' && o.apiVersion?.startsWith('apiregistration.k8s.io/')))
    .map((o) => ({ apiVersion: o.apiVersion!, kind: o.kind!, namespace: o.metadata?.namespace, name: o.metadata!.name! }));
}

/** Whether a live Deployment or APIService is ready, and if not, why (pure). */
export function readiness(obj: KObject): { ready: boolean; why: string } {
  const conds = (obj.status?.conditions ?? []) as Array<{ type?: string; status?: string; reason?: string; message?: string }>;
  const cond = (t: string) => conds.find((c) => c.type === t);
  if (obj.kind === 'APIService') {
    const a = cond('Available');
    return a?.status === 'True' ? { ready: true, why: 'Available' } : { ready: false, why: a ? `Available=${a.status}: ${a.reason ?? ''} ${a.message ?? ''}`.trim() : 'no Available condition yet' };
  }
  const want = (obj.spec?.replicas as number | undefined) ?? 1;
  const have = (obj.status?.availableReplicas as number | undefined) ?? 0;
  if (have >= want && (obj.status?.observedGeneration ?? 0) >= (obj.metadata?.generation ?? 0)) return { ready: true, why: `${have}/${want} available` };
  const p = cond('Progressing');
  return { ready: false, why: `${have}/${want} available${p?.message ? `; ${p.message}` : ''}` };
}

/** Why a namespace's pods do not run: `pod/container: Reason: message` for waiting or failing containers (pure). */
export function podProblems(pods: KObject[]): string[] {
  const out: string[] = [];
  for (const pod of pods) {
    const statuses = [...(pod.status?.initContainerStatuses ?? []), ...(pod.status?.containerStatuses ?? [])] as Array<{
      name?: string;
      state?: { waiting?: { reason?: string; message?: string }; terminated?: { reason?: string; exitCode?: number } };
    }>;
    for (const s of statuses) {
      const w = s.state?.waiting;
      if (w?.reason && w.reason !== 'ContainerCreating' && w.reason !== 'PodInitializing') {
        out.push(`${pod.metadata?.name}/${s.name}: ${w.reason}${w.message ? `: ${w.message}` : ''}`);
      }
    }
    const sched = ((pod.status?.conditions ?? []) as Array<{ type?: string; status?: string; message?: string }>).find((c) => c.type === 'PodScheduled' && c.status === 'False');
    if (sched) out.push(`${pod.metadata?.name}: not scheduled: ${sched.message ?? ''}`.trim());
  }
  return out;
}

export interface ApplyAndWaitOptions {
  timeoutMs?: number;
  pollMs?: number;
  log?: (m: string) => void;
  source?: string;
  sleep?: (ms: number) => Promise<void>;
}

export async function applyAndWait(kc: KubeConfig, text: string, o: ApplyAndWaitOptions = {}): Promise<void> {
  const k8s = await import('@kubernetes/client-node');
  const { ClusterClient } = await import('./client.js');
  const { describeApiError } = await import('../verify/verifier.js');
  const client = await ClusterClient.create(kc);
  const objects = manifestObjects(text, o.source);
  // Namespaces, then CRDs, then the rest: each group applied at once (no object of a group needs
  // another of it to exist; server-side apply checks no references).
  for (const group of applyGroups(objects)) await Promise.all(group.map((obj) => client.apply(obj)));
  o.log?.(`applied ${objects.length} objects`);

  const api = k8s.KubernetesObjectApi.makeApiClient(kc);
  const core = kc.makeApiClient(k8s.CoreV1Api);
  const sleep = o.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const deadline = Date.now() + (o.timeoutMs ?? 300_000);
  const targets = readinessTargets(objects);
  let pending = targets.map((t) => ({ ...t, why: 'not read yet' }));
  for (;;) {
    // Every target read at once: one round trip per poll, not one per object.
    const read = await Promise.all(
      pending.map(async (t) => {
        try {
          const r = readiness((await api.read({ apiVersion: t.apiVersion, kind: t.kind, metadata: { name: t.name, namespace: t.namespace } })) as KObject);
          return r.ready ? undefined : { ...t, why: r.why };
        } catch (err) {
          return { ...t, why: describeApiError(err) };
        }
      }),
    );
    pending = read.filter((t): t is NonNullable<typeof t> => t !== undefined);
    if (pending.length === 0) return;
    if (Date.now() >= deadline) break;
    await sleep(Math.min(o.pollMs ?? 2000, Math.max(0, deadline - Date.now())));
  }
  const namespaces = [...new Set(pending.filter((t) => t.namespace).map((t) => t.namespace!))];
  const problems: string[] = [];
  for (const ns of namespaces) {
    try {
      problems.push(...podProblems(((await core.listNamespacedPod({ namespace: ns })).items ?? []) as unknown as KObject[]));
    } catch {
      // The pods are extra detail; the message below stands without them.
    }
  }
  throw new DevpkgError(
    `not ready after ${Math.round((o.timeoutMs ?? 300_000) / 1000)}s: ` +
      pending.map((t) => `${t.kind} ${t.namespace ? `${t.namespace}/` : ''}${t.name} (${t.why})`).join('; ') +
      (problems.length ? `; pods: ${problems.join('; ')}` : ''),
  );
}
