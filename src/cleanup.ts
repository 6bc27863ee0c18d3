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
      const hand = (await import('./cluster/cleanup.js')).handCommand(item);
      log.warning(`could not clean up ${describe(item)}: ${errorMessage(err)}${hand ? `; remove it with: ${hand}` : ''}`);
    }
  }
}
