// A stand-in for the kind and docker CLIs in tests of kind mode's set-up: `kind version` answers
// v0.33.0, `docker version` answers, and `kind create cluster` fails with `createError` (after
// calling `during`, e.g. to deliver a signal mid-create). Every call is recorded.
import type { ExecFn } from '../../src/tools/exec.js';

export function failingKindTools(createError: string, during?: () => void): { exec: ExecFn; calls: string[][] } {
  const calls: string[][] = [];
  const exec: ExecFn = async (cmd, args) => {
    calls.push([cmd, ...args]);
    if (cmd === 'kind' && args[0] === 'version') return { code: 0, stdout: 'kind v0.33.0 go1.25 linux/amd64\n', stderr: '' };
    if (cmd === 'docker' && args[0] === 'version') return { code: 0, stdout: '27.0.0\n', stderr: '' };
    if (cmd === 'kind' && args[0] === 'create') {
      during?.();
      return { code: 1, stdout: '', stderr: createError };
    }
    return { code: 0, stdout: '', stderr: '' };
  };
  return { exec, calls };
}
