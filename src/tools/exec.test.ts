import { afterEach, beforeEach, describe, expect, test } from '@jest/globals';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execTool, ExecTimeoutError } from './exec.js';

test('an aborted signal stops the child (SIGTERM): the run ends with its exit, not its own end', async () => {
  const controller = new AbortController();
  const running = execTool('sleep', ['600'], { allowFail: true, signal: controller.signal });
  controller.abort('SIGINT');
  const r = await running;
  expect(r.code).not.toBe(0);
  // Already aborted: the child is stopped as soon as it starts.
  expect((await execTool('sleep', ['600'], { allowFail: true, signal: controller.signal })).code).not.toBe(0);
});

// A user's command that starts a grandchild (make starting imgpkg, a script starting `sleep`):
// stopping the child alone would leave the grandchild running, holding the output pipe open.
describe('processGroup: the whole group is stopped', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'devpkg-exec-test-'));
  });
  afterEach(async () => rm(dir, { recursive: true, force: true }));

  /** Running, not a zombie waiting to be reaped. */
  const running = (pid: number): boolean => {
    try {
      return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
    } catch {
      return false;
    }
  };
  const grandchild = (pidFile: string, trap = '') => `${trap}bash -c '${trap}sleep 300' & echo $! > ${pidFile}; wait`;

  test.each([
    ['a grandchild that sleeps', ''],
    ['a grandchild and a child that ignore SIGTERM (SIGKILL after the grace)', "trap '' TERM; "],
  ])('timed out, %s: ExecTimeoutError with the output so far, and nothing of the group left running', async (_name, trap) => {
    const pidFile = join(dir, 'grandchild.pid');
    const err = await execTool('bash', ['-c', `echo started; ${grandchild(pidFile, trap)}`], { processGroup: true, timeoutMs: 500, allowFail: true }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ExecTimeoutError);
    expect((err as ExecTimeoutError).stdout).toBe('started\n');
    expect((err as ExecTimeoutError).message).toBe(`bash -c echo started; ${grandchild(pidFile, trap)}: timed out after 500 ms`);
    const pid = Number(readFileSync(pidFile, 'utf8'));
    expect(pid).toBeGreaterThan(0);
    expect(running(pid)).toBe(false);
  }, 30_000);

  test('the child exits and leaves a grandchild holding its output: the call returns, the grandchild is stopped', async () => {
    const pidFile = join(dir, 'grandchild.pid');
    const r = await execTool('bash', ['-c', `sleep 300 & echo $! > ${pidFile}; exit 3`], { processGroup: true, allowFail: true });
    expect(r.code).toBe(3);
    expect(running(Number(readFileSync(pidFile, 'utf8')))).toBe(false);
  }, 30_000);

  test('aborted: the group is stopped', async () => {
    const pidFile = join(dir, 'grandchild.pid');
    const controller = new AbortController();
    const r = execTool('bash', ['-c', grandchild(pidFile)], { processGroup: true, allowFail: true, signal: controller.signal });
    while (!existsSync(pidFile) || !readFileSync(pidFile, 'utf8').trim()) await new Promise((res) => setTimeout(res, 20));
    controller.abort('SIGINT');
    expect((await r).code).not.toBe(0);
    expect(running(Number(readFileSync(pidFile, 'utf8')))).toBe(false);
  }, 30_000);

  test('without processGroup, a timeout is an ExecTimeoutError too', async () => {
    await expect(execTool('sleep', ['30'], { timeoutMs: 200 })).rejects.toBeInstanceOf(ExecTimeoutError);
  });
});
