import type { ActionHost } from './action/host.js';
import type { ExecFn } from './tools/exec.js';

// The cleanup list as data, at the bottom: the handlers (cluster/cleanup.ts,
// providers/cleanup.ts) import this, and the dispatcher (cleanup.ts) imports them.

/**
 * Things devpkg creates and must remove. Each is recorded BEFORE it is created, so the post step
 * can clean up even when main died halfway (recorded after, a run killed in between would leave
 * the thing behind with nothing naming it).
 */
export type CleanupItem =
  | { kind: 'temp-dir'; path: string }
  | { kind: 'kind-cluster'; name: string; kubeconfig?: string; /** The kind binary that created it (the post step uses it). */ binary?: string }
  | { kind: 'docker-container'; name: string }
  | { kind: 'docker-network'; name: string }
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

export function describe(item: CleanupItem): string {
  switch (item.kind) {
    case 'temp-dir':
      return `temporary folder ${item.path}`;
    case 'kind-cluster':
      return `kind cluster ${item.name}`;
    case 'docker-container':
      return `container ${item.name}`;
    case 'docker-network':
      return `network ${item.name}`;
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
