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
  /** Kill the child after this many milliseconds (an ExecTimeoutError, with the output so far). */
  timeoutMs?: number;
  /** Aborted (SIGINT/SIGTERM to devpkg): the child gets SIGTERM; the result is its exit. */
  signal?: AbortSignal;
  /**
   * Run the child in a process group of its own, and stop the whole group (SIGTERM, then SIGKILL
   * after GROUP_GRACE_MS) on a time-out, on abort, and when the child ends leaving processes in it:
   * a user's command (`bash -c`) that starts make, imgpkg or a `sleep` leaves nothing running.
   */
  processGroup?: boolean;
  /** Called with each chunk of output, for live logs (heartbeats, long creates). */
  onStdout?: (chunk: string) => void;
  onStderr?: (chunk: string) => void;
}

export interface ExecResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** A child that ran past its timeoutMs and was stopped; stdout/stderr are what it printed until then. */
export class ExecTimeoutError extends DevpkgError {
  constructor(
    readonly cmd: string,
    readonly args: readonly string[],
    readonly timeoutMs: number,
    readonly stdout: string,
    readonly stderr: string,
  ) {
    super(`${cmd} ${args.join(' ')}: timed out after ${timeoutMs} ms`);
    this.name = 'ExecTimeoutError';
  }
}

/** How long a process group has between SIGTERM and SIGKILL. */
export const GROUP_GRACE_MS = 5000;

/** Is any process of group `pgid` still there (a zombie counts until it is reaped)? */
function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

function signalGroup(pgid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(-pgid, sig);
  } catch {
    // gone already
  }
}

/**
 * Stops every process of group `pgid`: SIGTERM, then SIGKILL to what is left after the grace,
 * resolving once none is left (or, for what neither signal removes, after a bounded wait).
 */
export async function stopGroup(pgid: number, graceMs = GROUP_GRACE_MS): Promise<void> {
  if (!groupAlive(pgid)) return;
  signalGroup(pgid, 'SIGTERM');
  const until = async (ms: number): Promise<boolean> => {
    const end = Date.now() + ms;
    while (Date.now() < end) {
      if (!groupAlive(pgid)) return true;
      await new Promise((r) => setTimeout(r, 50));
    }
    return !groupAlive(pgid);
  };
  if (await until(graceMs)) return;
  signalGroup(pgid, 'SIGKILL');
  await until(2000);
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
    const group = opts.processGroup === true;
    const child = spawn(cmd, [...args], { cwd: opts.cwd, env, stdio: ['pipe', 'pipe', 'pipe'], detached: group });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    // The group's stop, once: on a time-out or abort, or when the child ends leaving processes in it.
    let stopping: Promise<void> | undefined;
    const stopAll = (): Promise<void> => (stopping ??= child.pid === undefined ? Promise.resolve() : stopGroup(child.pid));
    const kill = (): void => {
      if (group) void stopAll();
      else child.kill('SIGTERM');
    };
    const timer =
      opts.timeoutMs === undefined
        ? undefined
        : setTimeout(() => {
            timedOut = true;
            kill();
          }, opts.timeoutMs);
    const stop = (): void => kill();
    // A grandchild holding stdout open would keep 'close' from coming after the child exits.
    if (group) child.on('exit', () => void stopAll());
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
    const finish = async (code: number | null, signal: NodeJS.Signals | null): Promise<void> => {
      if (timer) clearTimeout(timer);
      opts.signal?.removeEventListener('abort', stop);
      // Nothing of the group is left when the call returns.
      if (group) await stopAll();
      const result = { code: code ?? (signal ? 128 : 1), stdout, stderr };
      if (timedOut) {
        reject(new ExecTimeoutError(cmd, args, opts.timeoutMs ?? 0, stdout, stderr));
      } else if (result.code !== 0 && !opts.allowFail) {
        const detail = (stderr.trim() || stdout.trim()).split('\n').slice(-20).join('\n');
        reject(new DevpkgError(`${cmd} ${args[0] ?? ''} failed (exit ${result.code}): ${detail}`));
      } else {
        resolve(result);
      }
    };
    child.on('close', (code, signal) => void finish(code, signal));
    child.stdin.on('error', () => undefined);
    child.stdin.end(opts.input ?? '');
  });
