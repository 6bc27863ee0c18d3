/**
 * An error the user can act on. The message names the thing that is wrong and
 * what to do about it; `file`/`line` let the action turn it into an annotation.
 */
export class DevpkgError extends Error {
  readonly file?: string;
  readonly line?: number;
  /** Process exit code when this reaches the CLI: 1 = a check failed, 2 = bad usage. */
  readonly exitCode: number;

  constructor(message: string, opts: { file?: string; line?: number; exitCode?: number; cause?: unknown } = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'DevpkgError';
    this.file = opts.file;
    this.line = opts.line;
    this.exitCode = opts.exitCode ?? 1;
  }
}

/** Bad command-line usage or bad action input: exit code 2. */
export class UsageError extends DevpkgError {
  constructor(message: string) {
    super(message, { exitCode: 2 });
    this.name = 'UsageError';
  }
}

/**
 * The run was stopped by a signal (SIGINT/SIGTERM, the runner cancelling the job) during a step:
 * the result is `interrupted`, not `error`. The message says during what and what was left.
 */
export class InterruptedError extends DevpkgError {
  constructor(message: string, cause?: unknown) {
    super(message, cause === undefined ? {} : { cause });
    this.name = 'InterruptedError';
  }
}

export function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message;
  return String(err);
}

/** Did `err` (or what caused it) come from a full disk: ENOSPC, or a tool's "no space left on device"? */
export function isNoSpace(err: unknown): boolean {
  for (let e = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if ((e as { code?: unknown }).code === 'ENOSPC') return true;
    if (/no space left on device/i.test(errorMessage(e))) return true;
  }
  return false;
}

/** Pure: the path a no-space error names (Node's err.path, or `write /x/y: no space left on device` of a tool). */
export function noSpacePath(err: unknown): string | undefined {
  for (let e = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const p = (e as { path?: unknown }).path;
    if (typeof p === 'string' && p.startsWith('/')) return p;
    const m = /(?<![\w.-])(\/[^\s:'"]+)['"]?:?\s*(?:[^\n]*?:\s*)?no space left on device/i.exec(errorMessage(e));
    if (m) return m[1];
  }
  return undefined;
}

/**
 * Pure: a full disk in words, naming the folder (the one of `folders` that holds the path the
 * error names, else that path's, else the first) and what to do; undefined for any other error.
 */
export function explainNoSpace(err: unknown, o: { folders: string[] }): DevpkgError | undefined {
  if (!isNoSpace(err)) return undefined;
  const where = noSpacePath(err);
  const inside = (f: string) => where !== undefined && (where === f || where.startsWith(`${f.replace(/\/+$/, '')}/`));
  const folder = o.folders.find(inside) ?? (where ? where.replace(/\/[^/]*$/, '') || '/' : o.folders[0] ?? '.');
  const detail = errorMessage(err).split('\n').filter(Boolean).slice(-3).join('\n');
  return new DevpkgError(
    `the folder ${folder} is out of space (no space left on device); what devpkg wrote there is removed. ` +
      `Free space there (df -h ${folder}), or point the scratch folder at a disk with room: TMPDIR (on a runner, RUNNER_TEMP)\n${detail}`,
    { cause: err },
  );
}
