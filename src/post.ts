import { CLEANUP_STATE, CleanupList, runCleanup } from './cleanup.js';
import { execTool } from './tools/exec.js';

/** The action's post step: remove what main recorded. Warns, never fails. */
export async function runPost(): Promise<void> {
  const core = await import('@actions/core');
  const items = CleanupList.fromState(core.getState(CLEANUP_STATE));
  if (items.length === 0) return;
  await core.group('devpkg cleanup', () =>
    runCleanup(items, execTool, { info: (m) => core.info(m), warning: (m) => core.warning(m) }),
  );
}
