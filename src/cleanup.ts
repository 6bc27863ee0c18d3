import { rm } from 'node:fs/promises';
import type { ActionHost } from './action/host.js';
import type { ExecFn } from './tools/exec.js';
import { errorMessage } from './errors.js';

/**
 * Things devpkg creates and must remove: recorded BEFORE creation (STYLE.md 5),
 * so the post step can clean up even when main died halfway.
 */
export type CleanupItem =
  | { kind: 'temp-dir'; path: string }
  | { kind: 'kind-cluster'; name: string; kubeconfig?: string; /** The kind binary that created it (the post step uses it). */ binary?: string }
  | { kind: 'docker-container'; name: string }
  | { kind: 'docker-network-disconnect'; network: string; container: string }
  | { kind: 'management-cluster'; name: string; tanzu: string; kubeconfig?: string }
  | { kind: 'providers-backup'; backupDir: string; providersDir: string }
  | { kind: 'kubernetes-object'; kubeconfig?: string; apiVersion: string; objectKind: string; namespace?: string; name: string };

export const CLEANUP_STATE = 'devpkg-cleanup';

/** Keeps the list in memory and mirrors it to action state (or nowhere, for the CLI). */
export class CleanupList {
  private readonly items: CleanupItem[] = [];
  constructor(private readonly host?: Pick<ActionHost, 'saveState'>) {}

  record(item: CleanupItem): void {
    this.items.push(item);
    this.host?.saveState(CLEANUP_STATE, JSON.stringify(this.items));
  }

  /** Forgets an item that was removed in the normal course of the run. */
  done(item: CleanupItem): void {
    const i = this.items.findIndex((x) => JSON.stringify(x) === JSON.stringify(item));
    if (i >= 0) this.items.splice(i, 1);
    this.host?.saveState(CLEANUP_STATE, JSON.stringify(this.items));
  }

  list(): CleanupItem[] {
    return [...this.items];
  }

  static fromState(text: string): CleanupItem[] {
    if (!text) return [];
    try {
      const parsed = JSON.parse(text) as unknown;
      return Array.isArray(parsed) ? (parsed as CleanupItem[]) : [];
    } catch {
      return [];
    }
  }
}

export type CleanupHandler = (item: CleanupItem, exec: ExecFn, log: (m: string) => void) => Promise<void>;

async function handlerFor(item: CleanupItem): Promise<CleanupHandler> {
  switch (item.kind) {
    case 'temp-dir':
      return async (it) => rm((it as { path: string }).path, { recursive: true, force: true });
    case 'providers-backup':
      return (await import('./providers/cleanup.js')).cleanupProviders as CleanupHandler;
    default:
      return (await import('./cluster/cleanup.js')).cleanupClusterItem as CleanupHandler;
  }
}

/**
 * Undoes items newest first. Never throws: a failed cleanup is a warning
 * (the thing may already be gone), so a post step never fails the job.
 */
export async function runCleanup(
  items: CleanupItem[],
  exec: ExecFn,
  log: { info: (m: string) => void; warning: (m: string) => void },
): Promise<void> {
  for (const item of [...items].reverse()) {
    try {
      const handler = await handlerFor(item);
      await handler(item, exec, log.info);
      log.info(`cleaned up ${describe(item)}`);
    } catch (err) {
      log.warning(`could not clean up ${describe(item)}: ${errorMessage(err)}`);
    }
  }
}

export function describe(item: CleanupItem): string {
  switch (item.kind) {
    case 'temp-dir':
      return `temporary folder ${item.path}`;
    case 'kind-cluster':
      return `kind cluster ${item.name}`;
    case 'docker-container':
      return `container ${item.name}`;
    case 'docker-network-disconnect':
      return `container ${item.container} on network ${item.network}`;
    case 'management-cluster':
      return `management cluster ${item.name}`;
    case 'providers-backup':
      return `providers folder ${item.providersDir} (restored from ${item.backupDir})`;
    case 'kubernetes-object':
      return `${item.objectKind} ${item.namespace ? `${item.namespace}/` : ''}${item.name}`;
  }
}
