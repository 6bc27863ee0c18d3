import { expect, test } from '@jest/globals';
import { execTool } from './exec.js';

test('an aborted signal stops the child (SIGTERM): the run ends with its exit, not its own end', async () => {
  const controller = new AbortController();
  const running = execTool('sleep', ['600'], { allowFail: true, signal: controller.signal });
  controller.abort('SIGINT');
  const r = await running;
  expect(r.code).not.toBe(0);
  // Already aborted: the child is stopped as soon as it starts.
  expect((await execTool('sleep', ['600'], { allowFail: true, signal: controller.signal })).code).not.toBe(0);
});
