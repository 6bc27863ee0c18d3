import type { CleanupItem } from '../cleanup.js';
import type { ExecFn } from '../tools/exec.js';

/** Deletes clusters, containers and objects recorded by the cluster modes. */
export async function cleanupClusterItem(item: CleanupItem, _exec: ExecFn, _log: (m: string) => void): Promise<void> {
  throw new Error(`cleanup of ${item.kind} is not implemented yet`);
}
