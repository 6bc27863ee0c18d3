import { spawn } from 'node:child_process';
import { DevpkgError } from '../errors.js';

export interface ExecOptions {
  cwd?: string;
  /** Extra environment merged over process.env (a value of undefined removes the variable). */
  env?: Record<string, string | undefined>;
  /** Written to the child's stdin. */
  input?: string;
  /** Do not throw on a non-zero exit; the caller inspects `code`. */
  allowFail?: boolean;
  /** Kill the child after this many milliseconds. */
  timeoutMs?: number;
  /** Aborted (SIGINT/SIGTERM to devpkg): the child gets SIGTERM; the result is its exit. */
  signal?: AbortSignal;
  /** Called with each chunk of output, for live logs (heartbeats, long creates). */
  onStdout?: (chunk: string) => void;
  onStderr?: (chunk: string) => void;
}

export interface ExecResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** The shape every tool class takes, so tests can hand in a recorder instead of a real process. */
export type ExecFn = (cmd: string, args: readonly string[], opts?: ExecOptions) => Promise<ExecResult>;

/**
 * Runs a program with an argv array, never through a shell. A missing binary
 * becomes a DevpkgError that names it and how to install it.
 */
export const execTool: ExecFn = (cmd, args, opts = {}) =>
  new Promise<ExecResult>((resolve, reject) => {
    const env: NodeJS.ProcessEnv = { ...process.env };
    for (const [k, v] of Object.entries(opts.env ?? {})) {
      if (v === undefined) delete env[k];
      else env[k] = v;
    }
    const child = spawn(cmd, [...args], { cwd: opts.cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    const timer =
      opts.timeoutMs === undefined
        ? undefined
        : setTimeout(() => {
            timedOut = true;
            child.kill('SIGTERM');
          }, opts.timeoutMs);
    const stop = (): void => void child.kill('SIGTERM');
    if (opts.signal?.aborted) stop();
    else opts.signal?.addEventListener('abort', stop, { once: true });
    child.stdout.setEncoding('utf8').on('data', (c: string) => {
      stdout += c;
      opts.onStdout?.(c);
    });
    child.stderr.setEncoding('utf8').on('data', (c: string) => {
      stderr += c;
      opts.onStderr?.(c);
    });
    child.on('error', (err: NodeJS.ErrnoException) => {
      if (timer) clearTimeout(timer);
      opts.signal?.removeEventListener('abort', stop);
      if (err.code === 'ENOENT') {
        reject(new DevpkgError(`${cmd}: not found on PATH; install it or put it on PATH`, { cause: err }));
      } else {
        reject(new DevpkgError(`${cmd}: could not start: ${err.message}`, { cause: err }));
      }
    });
    child.on('close', (code, signal) => {
      if (timer) clearTimeout(timer);
      opts.signal?.removeEventListener('abort', stop);
      const result = { code: code ?? (signal ? 128 : 1), stdout, stderr };
      if (timedOut) {
        reject(new DevpkgError(`${cmd} ${args.join(' ')}: timed out after ${opts.timeoutMs} ms`));
      } else if (result.code !== 0 && !opts.allowFail) {
        const detail = (stderr.trim() || stdout.trim()).split('\n').slice(-20).join('\n');
        reject(new DevpkgError(`${cmd} ${args[0] ?? ''} failed (exit ${result.code}): ${detail}`));
      } else {
        resolve(result);
      }
    });
    child.stdin.on('error', () => undefined);
    child.stdin.end(opts.input ?? '');
  });
