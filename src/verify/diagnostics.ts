/**
 * On a failed verdict: the PackageInstall, App, Packages and events as YAML files, and
 * kapp-controller's logs where a pod is reachable, in one folder for the report to attach.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import { stringify } from 'yaml';
import { appFailure, trimMessage, type KObject } from './evaluate.js';
import type { TimelineEntry } from './types.js';

export interface DiagnosticsInput {
  kc: KubeConfig;
  namespace: string;
  name: string;
  dir: string;
  pkgi?: KObject;
  app?: KObject;
  packages: KObject[];
  timeline: TimelineEntry[];
  reason: string;
  /** Namespaces to look for a kapp-controller pod in. */
  kappControllerNamespaces?: string[];
  /** Extra log files to copy an excerpt of (e.g. the harness's kapp-controller log). */
  extraLogs?: string[];
}

const LOG_LINES = 200;

function withoutManagedFields(o: KObject | undefined): KObject | undefined {
  if (!o) return o;
  const c = structuredClone(o);
  if (c.metadata) delete c.metadata.managedFields;
  return c;
}

/** The short text a PR comment shows; the files carry the rest. Pure. */
export function diagnosticsExcerpt(input: Pick<DiagnosticsInput, 'pkgi' | 'app' | 'timeline' | 'reason'>): string {
  const lines: string[] = [input.reason];
  const useful = trimMessage(input.pkgi?.status?.usefulErrorMessage, 600);
  if (useful && !input.reason.includes(useful)) lines.push(`usefulErrorMessage: ${useful}`);
  const appErr = appFailure(input.app);
  if (appErr && !input.reason.includes(appErr)) lines.push(appErr);
  const last = input.timeline.slice(-5).map((t) => {
    const bits = [t.object, t.condition, t.version && `version ${t.version}`, t.lastAttemptedVersion && `last attempted ${t.lastAttemptedVersion}`]
      .filter(Boolean)
      .join(' ');
    return `${t.at} ${bits}`;
  });
  if (last.length) lines.push('last changes:', ...last.map((l) => `  ${l}`));
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
  try {
    const ev = await core.listNamespacedEvent({ namespace: input.namespace });
    const items = ev.items
      .filter((e) => !e.involvedObject?.name || e.involvedObject.name === input.name || e.involvedObject.kind === 'Package')
      .map((e) => ({
        time: e.lastTimestamp ?? e.eventTime ?? e.metadata?.creationTimestamp,
        type: e.type,
        reason: e.reason,
        object: `${e.involvedObject?.kind}/${e.involvedObject?.name}`,
        message: e.message,
        count: e.count,
      }));
    await write('events.yaml', stringify(items));
  } catch (err) {
    await write('events.yaml', `# could not list events: ${(err as Error).message.split('\n')[0]}\n`);
  }

  for (const ns of input.kappControllerNamespaces ?? ['kapp-controller', 'tkg-system', 'kube-system']) {
    try {
      const pods = await core.listNamespacedPod({ namespace: ns });
      for (const pod of pods.items.filter((p) => p.metadata?.name?.startsWith('kapp-controller'))) {
        const container = pod.spec?.containers.find((c) => c.name === 'kapp-controller')?.name ?? pod.spec?.containers[0]?.name;
        const log = await core.readNamespacedPodLog({ namespace: ns, name: pod.metadata!.name!, container, tailLines: LOG_LINES });
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
  return { dir: input.dir, excerpt: diagnosticsExcerpt(input), files };
}
