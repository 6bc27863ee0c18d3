// A stand-in for the kind and docker CLIs in tests of kind mode's set-up: `kind version` answers
// v0.33.0, `docker version` answers, `docker container inspect` finds no container, and `kind create cluster` fails with `createError` (after
// calling `during`, e.g. to deliver a signal mid-create). `absent` makes a tool not found on PATH
// (as exec reports it; the same tool by an absolute path, as devpkg installed it, answers) and `dockerDown` makes docker's daemon not answer. Every call is recorded.
import { DevpkgError } from '../../src/errors.js';
import type { ExecFn } from '../../src/tools/exec.js';

export interface KindToolsOptions {
  during?: () => void;
  absent?: Array<'kind' | 'docker'>;
  dockerDown?: boolean;
}

export function failingKindTools(createError: string, o: KindToolsOptions | (() => void) = {}): { exec: ExecFn; calls: string[][] } {
  const opts = typeof o === 'function' ? { during: o } : o;
  const calls: string[][] = [];
  const exec: ExecFn = async (path, args) => {
    calls.push([path, ...args]);
    // A tool by its name is looked up on PATH; by an absolute path (one devpkg installed) it is there.
    const cmd = path.slice(path.lastIndexOf('/') + 1);
    if ((opts.absent ?? []).includes(path as 'kind')) throw new DevpkgError(`${cmd}: not found on PATH; install it or put it on PATH`);
    if (cmd === 'kind' && args[0] === 'version') return { code: 0, stdout: 'kind v0.33.0 go1.25 linux/amd64\n', stderr: '' };
    if (cmd === 'docker' && args[0] === 'version') {
      return opts.dockerDown
        ? { code: 1, stdout: '', stderr: 'Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?\n' }
        : { code: 0, stdout: '27.0.0\n', stderr: '' };
    }
    // No container yet (the registry is started next to kind create, so this is asked).
    if (cmd === 'docker' && args[0] === 'container' && args[1] === 'inspect') return { code: 1, stdout: '[]\n', stderr: `Error: No such object: ${args[2]}\n` };
    if (cmd === 'kind' && args[0] === 'create') {
      opts.during?.();
      return { code: 1, stdout: '', stderr: createError };
    }
    return { code: 0, stdout: '', stderr: '' };
  };
  return { exec, calls };
}
