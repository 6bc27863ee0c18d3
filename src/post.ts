import { CLEANUP_STATE, CleanupList, runCleanup } from './cleanup.js';
import { execTool } from './tools/exec.js';
import { coreHost, type ActionHost } from './action/host.js';

/** The action's post step: remove what main recorded. Warns, never fails. */
export async function runPost(host?: ActionHost): Promise<void> {
  const h = host ?? coreHost(await import('@actions/core'));
  const items = CleanupList.fromState(h.getState(CLEANUP_STATE));
  if (items.length === 0) return;
  await h.group('devpkg cleanup', () => runCleanup(items, execTool, { info: (m) => h.info(m), warning: (m) => h.warning(m) }));
}
