import type { CleanupItem } from '../cleanup-list.js';
import { DevpkgError } from '../errors.js';
import type { ExecFn } from '../tools/exec.js';
import { restoreBackup, summarizeRestore } from './backup.js';

/**
 * Restores a providers folder from its backup: files devpkg created are deleted, files it
 * changed are put back (see backup.ts). Throws on failure; runCleanup turns it into a warning.
 */
export async function cleanupProviders(item: CleanupItem, _exec: ExecFn, log: (m: string) => void): Promise<void> {
  if (item.kind !== 'providers-backup') throw new DevpkgError(`cleanupProviders cannot undo ${item.kind}`);
  const done = await restoreBackup(item.backupDir, item.providersDir);
  log(`providers folder ${item.providersDir}: ${summarizeRestore(done)}`);
}
