import { describe, expect, test } from '@jest/globals';
import { DevpkgError } from '../errors.js';
import type { ExecFn, ExecOptions } from './exec.js';
import { askVersion, lastLines, requireAtLeast } from './tool.js';

test.each<[string, number, string]>([
  ['a\nb\nc\n\n', 2, 'b\nc'],
  ['  one line  ', 5, 'one line'],
  ['', 3, ''],
])('lastLines(%j, %d)', (text, n, want) => expect(lastLines(text, n)).toBe(want));

describe('askVersion', () => {
  const answering = (code: number, stdout: string, stderr = '') => {
    const calls: Array<[string, readonly string[], ExecOptions | undefined]> = [];
    const exec: ExecFn = async (cmd, args, opts) => (calls.push([cmd, args, opts]), { code, stdout, stderr });
    return { exec, calls };
  };
  const parse = (out: string) => /tool version (\S+)/.exec(out)?.[1];

  test('returns what parse reads; the call may fail without throwing, and keeps the caller\'s options', async () => {
    const t = answering(0, 'tool version 1.2.3\n');
    expect(await askVersion(t.exec, '/bin/tool', ['version'], parse, undefined, { cwd: '/repo' })).toBe('1.2.3');
    expect(t.calls).toEqual([['/bin/tool', ['version'], { cwd: '/repo', allowFail: true }]]);
  });
  test.each<[number, string, string, string]>([
    [0, 'something else', '', '/bin/tool version: unexpected answer (exit 0): something else'],
    [1, 'tool version 1.2.3', 'l1\nl2\nl3\nl4\nl5\nl6', '/bin/tool version: unexpected answer (exit 1): l2\nl3\nl4\nl5\nl6'],
  ])('exit %d with %j: refused with the last lines', async (code, stdout, stderr, message) => {
    const err = await askVersion(answering(code, stdout, stderr).exec, '/bin/tool', ['version'], parse).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DevpkgError);
    expect((err as Error).message).toBe(message);
  });
  test('a refusal of the caller\'s own words', async () => {
    await expect(askVersion(answering(2, '').exec, 'tool', ['version'], parse, (r) => `tool is broken (exit ${r.code})`)).rejects.toThrow(/^tool is broken \(exit 2\)$/);
  });
});

describe('requireAtLeast', () => {
  test.each<[number[], boolean]>([
    [[2, 15, 0], true],
    [[2, 40, 1], true],
    [[3, 0, 0], true],
    [[2, 14, 9], false],
    [[1, 99, 0], false],
  ])('%j against 2.15: ok %s', (version, ok) => {
    const check = () => requireAtLeast('git', version, [2, 15]);
    if (ok) expect(check).not.toThrow();
    else expect(check).toThrow(`git ${version.join('.')} is too old; devpkg needs git 2.15 or newer`);
  });
});
