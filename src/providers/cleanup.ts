import type { CleanupItem } from '../cleanup.js';
import type { ExecFn } from '../tools/exec.js';

/** Restores a providers folder from its backup (implemented with the bootstrap mode). */
export async function cleanupProviders(_item: CleanupItem, _exec: ExecFn, _log: (m: string) => void): Promise<void> {
  throw new Error('providers restore is not implemented yet');
}
