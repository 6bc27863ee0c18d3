import { CLEANUP_STATE, CleanupList, runCleanup } from './cleanup.js';
import { execTool } from './tools/exec.js';
import { Runner } from './action/runner.js';

/** The action's post step: remove what main recorded. Warns, never fails. */
export async function runPost(runner = new Runner()): Promise<void> {
  const items = CleanupList.fromState(runner.getState(CLEANUP_STATE));
  if (items.length === 0) return;
  await runner.group('devpkg cleanup', () =>
    runCleanup(items, execTool, { info: (m) => runner.info(m), warning: (m) => runner.annotate('warning', m) }),
  );
}
