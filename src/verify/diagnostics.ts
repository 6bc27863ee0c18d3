/**
 * On a failed verdict: the PackageInstall, App, Packages and events as YAML files, and
 * kapp-controller's logs where a pod is reachable, in one folder for the report to attach.
 * kapp-controller emits no events for a PackageInstall or its App: the events that explain a
 * failure are those of the workload, in the namespaces the App deploys into, so those are read
 * too. Every request has a time limit: diagnostics never hold up the verdict for long.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import { stringify } from 'yaml';
import { appFailure, appFailureStep, timeOf, trimMessage, type KObject } from './evaluate.js';
import { workloadScope } from './pods.js';
import type { TimelineEntry } from '../results.js';

export interface DiagnosticsInput {
  kc: KubeConfig;
  namespace: string;
  name: string;
  dir: string;
  pkgi?: KObject;
  app?: KObject;
  packages: KObject[];
  /** The workload's pods as last seen (written to pods.yaml). */
  pods?: KObject[];
  timeline: TimelineEntry[];
  reason: string;
  /** Namespaces to look for a kapp-controller pod in. */
  kappControllerNamespaces?: string[];
  /** Extra log files to copy an excerpt of (e.g. the harness's kapp-controller log). */
  extraLogs?: string[];
}

const LOG_LINES = 200;
/** How long one diagnostics request may take. */
export const REQUEST_LIMIT_MS = 15_000;

/** Resolves like `p`, or rejects after `ms` (the request itself is left to finish or fail). */
export function withLimit<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${Math.round(ms / 1000)}s`)), ms);
  });
  return Promise.race([p, limit]).finally(() => clearTimeout(timer));
}

export interface EventSummary {
  time?: string;
  namespace?: string;
  type?: string;
  reason?: string;
  object: string;
  message?: string;
  count?: number;
}

/** Namespaces whose events explain a failure: the PackageInstall's and those the App deploys into. Pure. */
export function eventNamespaces(namespace: string, app: KObject | undefined): string[] {
  return [...new Set([namespace, ...workloadScope(app).namespaces])];
}

/**
 * Which events to keep, pure: every event of a namespace the App deploys into; in the
 * PackageInstall's own namespace (often shared, e.g. tkg-system) only those of the PackageInstall,
 * its App and Packages, unless the App deploys there too. Oldest first.
 */
export function selectEvents(
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  events: any[],
  o: { namespace: string; name: string; workloadNamespaces: string[] },
): EventSummary[] {
  return events
    .filter((e) => {
      const ns = e.metadata?.namespace ?? e.involvedObject?.namespace;
      if (o.workloadNamespaces.includes(ns)) return true;
      if (ns !== o.namespace) return false;
      return !e.involvedObject?.name || e.involvedObject.name === o.name || e.involvedObject.kind === 'Package';
    })
    .map((e) => ({
      time: toIso(e.lastTimestamp ?? e.eventTime ?? e.metadata?.creationTimestamp),
      namespace: e.metadata?.namespace ?? e.involvedObject?.namespace,
      type: e.type,
      reason: e.reason,
      object: `${e.involvedObject?.kind}/${e.involvedObject?.name}`,
      message: e.message,
      count: e.count,
    }))
    .sort((a, b) => (timeOf(a.time) ?? 0) - (timeOf(b.time) ?? 0));
}

function toIso(t: unknown): string | undefined {
  const ms = timeOf(t);
  return ms === undefined ? undefined : new Date(ms).toISOString();
}

function withoutManagedFields(o: KObject | undefined): KObject | undefined {
  if (!o) return o;
  const c = structuredClone(o);
  if (c.metadata) delete c.metadata.managedFields;
  return c;
}

/** The short text a PR comment shows; the files carry the rest. Pure. */
export function diagnosticsExcerpt(input: Pick<DiagnosticsInput, 'pkgi' | 'app' | 'timeline' | 'reason'> & { events?: EventSummary[] }): string {
  const lines: string[] = [input.reason];
  const useful = trimMessage(input.pkgi?.status?.usefulErrorMessage, 600);
  if (useful && !input.reason.includes(useful)) lines.push(`usefulErrorMessage: ${useful}`);
  const appErr = appFailure(input.app);
  const stepText = appFailureStep(input.app)?.text.slice(0, 200) ?? '';
  if (appErr && !input.reason.includes(appErr) && !(stepText && input.reason.includes(stepText))) lines.push(appErr);
  const last = input.timeline.slice(-5).map((t) => {
    const bits = [t.object, t.condition, t.version && `version ${t.version}`, t.lastAttemptedVersion && `last attempted ${t.lastAttemptedVersion}`]
      .filter(Boolean)
      .join(' ');
    return `${t.at} ${bits}`;
  });
  if (last.length) lines.push('last changes:', ...last.map((l) => `  ${l}`));
  const warnings = (input.events ?? []).filter((e) => e.type === 'Warning').slice(-5);
  if (warnings.length) {
    lines.push('warning events:', ...warnings.map((e) => `  ${e.time ?? '?'} ${e.namespace ?? ''} ${e.object} ${e.reason}: ${trimMessage(e.message, 300)}`));
  }
  return lines.join('\n');
}

export async function collectDiagnostics(input: DiagnosticsInput): Promise<{ dir: string; excerpt: string; files: string[] }> {
  const k8s = await import('@kubernetes/client-node');
  await mkdir(input.dir, { recursive: true });
  const files: string[] = [];
  const write = async (file: string, text: string): Promise<void> => {
    const p = join(input.dir, file);
    await writeFile(p, text);
    files.push(p);
  };
  await write('packageinstall.yaml', stringify(withoutManagedFields(input.pkgi) ?? null));
  await write('app.yaml', stringify(withoutManagedFields(input.app) ?? null));
  await write('packages.yaml', stringify(input.packages.map((p) => withoutManagedFields(p))));
  await write('timeline.yaml', stringify(input.timeline));

  const core = input.kc.makeApiClient(k8s.CoreV1Api);
  const namespaces = eventNamespaces(input.namespace, input.app);
  const workloadNamespaces = workloadScope(input.app).namespaces;
  const raw: unknown[] = [];
  const notes: string[] = [];
  for (const namespace of namespaces) {
    try {
      const ev = await withLimit(core.listNamespacedEvent({ namespace }), REQUEST_LIMIT_MS, `events in ${namespace}`);
      raw.push(...ev.items);
    } catch (err) {
      notes.push(`# could not list events in ${namespace}: ${(err as Error).message.split('\n')[0]}`);
    }
  }
  const events = selectEvents(raw, { namespace: input.namespace, name: input.name, workloadNamespaces });
  await write('events.yaml', `${notes.map((n) => `${n}\n`).join('')}# namespaces: ${namespaces.join(', ')}\n${stringify(events)}`);
  if (input.pods?.length) await write('pods.yaml', stringify(input.pods.map((p) => ({ metadata: { name: p.metadata?.name, namespace: p.metadata?.namespace, creationTimestamp: p.metadata?.creationTimestamp }, status: p.status }))));

  for (const ns of input.kappControllerNamespaces ?? ['kapp-controller', 'tkg-system', 'kube-system']) {
    try {
      const pods = await withLimit(core.listNamespacedPod({ namespace: ns }), REQUEST_LIMIT_MS, `pods in ${ns}`);
      for (const pod of pods.items.filter((p) => p.metadata?.name?.startsWith('kapp-controller'))) {
        const container = pod.spec?.containers.find((c) => c.name === 'kapp-controller')?.name ?? pod.spec?.containers[0]?.name;
        const log = await withLimit(
          core.readNamespacedPodLog({ namespace: ns, name: pod.metadata!.name!, container, tailLines: LOG_LINES }),
          REQUEST_LIMIT_MS,
          `log of ${ns}/${pod.metadata!.name}`,
        );
        await write(`kapp-controller-${pod.metadata!.name}.log`, String(log));
      }
    } catch {
      // Not reachable (no such namespace, no RBAC, no kubelet): the report says what was collected.
    }
  }
  for (const path of input.extraLogs ?? []) {
    try {
      const { readFile } = await import('node:fs/promises');
      const text = await readFile(path, 'utf8');
      const tail = text.split('\n').slice(-LOG_LINES).join('\n');
      await write(`log-${path.split('/').pop()}`, tail);
    } catch {
      // optional
    }
  }
  return { dir: input.dir, excerpt: diagnosticsExcerpt({ ...input, events }), files };
}
