import { rm } from 'node:fs/promises';
import type { ExecFn } from './tools/exec.js';
import { errorMessage } from './errors.js';
import { describe, type CleanupHandler, type CleanupItem } from './cleanup-list.js';

// The dispatcher: above the handlers, which import only the list (cleanup-list.ts).
export { CLEANUP_STATE, CleanupList, describe, type CleanupHandler, type CleanupItem } from './cleanup-list.js';

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
 * The items, newest first, in waves whose members do not depend on one another (pure): a kind
 * cluster and containers (the registry) are removed at once, at most one kind cluster in a wave
 * (kind edits a kubeconfig file); a network after the containers on it, folders (which may hold
 * the kubeconfig a kind delete reads) and everything else alone, in order.
 */
export function cleanupWaves(newestFirst: CleanupItem[]): CleanupItem[][] {
  const waves: CleanupItem[][] = [];
  let open: CleanupItem[] | undefined;
  for (const item of newestFirst) {
    const together = item.kind === 'kind-cluster' || item.kind === 'docker-container';
    if (together && open && !(item.kind === 'kind-cluster' && open.some((i) => i.kind === 'kind-cluster'))) {
      open.push(item);
      continue;
    }
    const wave = [item];
    waves.push(wave);
    open = together ? wave : undefined;
  }
  return waves;
}

/**
 * Undoes items newest first (cleanupWaves: independent ones at once). Never throws: a failed
 * cleanup is a warning (the thing may already be gone), so a post step never fails the job.
 */
export async function runCleanup(
  items: CleanupItem[],
  exec: ExecFn,
  log: { info: (m: string) => void; warning: (m: string) => void },
): Promise<void> {
  const one = async (item: CleanupItem): Promise<void> => {
    try {
      const handler = await handlerFor(item);
      await handler(item, exec, log.info);
      log.info(`cleaned up ${describe(item)}`);
    } catch (err) {
      const hand = (await import('./cluster/cleanup.js')).handCommand(item);
      log.warning(`could not clean up ${describe(item)}: ${errorMessage(err)}${hand ? `; remove it with: ${hand}` : ''}`);
    }
  };
  for (const wave of cleanupWaves([...items].reverse())) await Promise.all(wave.map(one));
}
